/* monitor.h -- a passive asset monitor in the manner of PRADS.
 *
 * It forwards every packet unchanged and learns, per host (asset): its MAC
 * address, an OS hint from TCP SYN and SYN+ACK fingerprints (initial TTL,
 * window, option layout), and its services: servers from SYN+ACKs and UDP
 * replies from well-known ports, clients from HTTP requests, with banners
 * (HTTP Server and User-Agent, SSH, FTP/SMTP greetings) where the payload
 * shows them.  Per-flow state: packet/byte counters and TCP flags seen;
 * per-asset state: the above.  Both move with the NF. */
#ifndef MONITOR_H
#define MONITOR_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow.h"
#include "nf.h"

#define MONITOR_STATE_VERSION 1
#define MONITOR_REC_ASSET (0x100)
#define MON_MAX_SERVICES 16
#define MON_APP_MAX 64
#define MON_OS_MAX 32
#define MON_FP_MAX 64
#define MON_INSPECT 4           /* Payload packets per flow looked into. */

enum mon_role {
    MON_SERVER = 1,
    MON_CLIENT = 2,
};

struct mon_service {
    uint8_t proto;
    uint8_t role;               /* enum mon_role. */
    uint16_t port;
    char app[MON_APP_MAX];      /* "http", "http:nginx/1.25", "ssh:..." */
};

/* Per-asset state (the data of an entry in the asset table). */
struct mon_asset {
    uint8_t mac[6];
    uint8_t ttl;                /* Latest TTL seen from the host. */
    uint8_t n_services;
    uint16_t syn_window;
    char os[MON_OS_MAX];        /* OS hint, "" if no SYN seen yet. */
    char fingerprint[MON_FP_MAX];       /* "64:65535:mss,sok,ts,nop,ws". */
    struct mon_service services[MON_MAX_SERVICES];
};

/* Per-flow state. */
struct mon_flow {
    uint8_t tcp_flags;          /* Union of the flags seen. */
    uint8_t inspected;          /* Payload packets looked into. */
};

enum mon_counter {
    MON_ASSETS_CREATED,
    MON_ASSET_TABLE_FULL,
    MON_SERVICES_FOUND,
    MON_OS_FINGERPRINTS,
    MON_N_COUNTERS,
};

struct monitor {
    struct flow_table *assets;  /* Keyed by address in 'src'. */
    size_t max_assets;
    uint64_t counters[MON_N_COUNTERS];
};

extern const struct nf_class monitor_class;

int monitor_config_load(struct monitor *, const char *path, char *err,
                        size_t errlen);
void monitor_process(struct nf_batch *, void *monitor);

/* The asset table key of an address. */
void mon_asset_key(uint8_t family, const uint8_t addr[16],
                   struct flow_key *);
/* Adds or refines service (proto, port, role) of 'a'; 'app' may be "". */
bool mon_asset_add_service(struct mon_asset *, uint8_t proto, uint16_t port,
                           enum mon_role, const char *app);

/* TCP SYN fingerprint of the TCP header 'tcp' ('len' bytes, options
 * included) seen with 'ttl': writes the fingerprint and an OS hint. */
void mon_fingerprint(const uint8_t *tcp, size_t len, uint8_t ttl,
                     char *fp, size_t fp_size, char *os, size_t os_size);

/* Recognizes a server banner or client request in an L4 payload: writes
 * e.g. "http:nginx/1.25" to 'app'.  Returns the role, or 0 if nothing was
 * recognized. */
int mon_banner(const uint8_t *payload, size_t len, char *app, size_t size);

/* Name of a well-known service port ("http"), or NULL. */
const char *mon_port_name(uint8_t proto, uint16_t port);

void monitor_flow_encode(const void *monitor, const struct flow *,
                         struct wbuf *);
int monitor_flow_decode(void *monitor, const struct flow_key *,
                        struct rbuf *, void *data);
struct state_writer;
void monitor_records_encode(const void *monitor, struct state_writer *);
int monitor_record_decode(void *monitor, uint16_t type, struct rbuf *,
                          bool apply);
void monitor_records_clear(void *monitor);

#endif /* monitor.h */
