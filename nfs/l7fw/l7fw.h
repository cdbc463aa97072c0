/* l7fw.h -- a layer-7 firewall: nDPI detects each flow's application
 * protocol and host name (HTTP Host, TLS SNI, DNS query), and flows of
 * configured protocols or hosts are blocked.
 *
 * Both directions of a connection share one flow.  Packets pass while
 * detection runs; from the packet that completes detection on, a blocked
 * flow's packets are dropped. */
#ifndef L7FW_H
#define L7FW_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nf.h"

#define L7FW_STATE_VERSION 1
#define L7FW_HOST_MAX 80        /* As nDPI's host_server_name. */
#define L7FW_NAME_MAX 32
#define L7FW_MAX_BLOCKS 256
#define L7FW_MAX_INSPECT 32     /* Packets given to nDPI before giving up. */

struct ndpi_detection_module_struct;
struct ndpi_flow_struct;

enum l7fw_status {
    L7FW_DETECTING = 0,
    L7FW_DETECTED = 1,
    L7FW_GAVE_UP = 2,
};

/* Per-flow state. */
struct l7fw_flow {
    struct ndpi_flow_struct *ndpi;  /* While detecting; not exported. */
    uint16_t master;            /* nDPI protocol ids (0: unknown). */
    uint16_t app;
    uint8_t status;             /* enum l7fw_status. */
    uint8_t blocked;
    uint8_t inspected;          /* Packets given to nDPI. */
    char host[L7FW_HOST_MAX];
};

enum l7fw_counter {
    L7FW_DETECTED_FLOWS,
    L7FW_UNDETECTED_FLOWS,
    L7FW_BLOCKED_FLOWS,
    L7FW_BLOCKED_PACKETS,
    L7FW_UNTRACKED_PACKETS,
    L7FW_N_COUNTERS,
};

struct l7fw {
    struct ndpi_detection_module_struct *ndpi;
    uint16_t blocked_protos[L7FW_MAX_BLOCKS];
    size_t n_blocked_protos;
    char *blocked_hosts[L7FW_MAX_BLOCKS];
    size_t n_blocked_hosts;
    uint64_t counters[L7FW_N_COUNTERS];
};

extern const struct nf_class l7fw_class;

int l7fw_config_load(struct l7fw *, const char *path, char *err,
                     size_t errlen);
/* Whether a flow with these protocols and host is to be blocked. */
bool l7fw_is_blocked(const struct l7fw *, uint16_t master, uint16_t app,
                     const char *host);
const char *l7fw_proto_name(const struct l7fw *, uint16_t id);
void l7fw_process(struct nf_batch *, void *l7fw);
void l7fw_flow_release(void *l7fw, struct flow *);
void l7fw_flow_encode(const void *l7fw, const struct flow *, struct wbuf *);
int l7fw_flow_decode(void *l7fw, const struct flow_key *, struct rbuf *,
                     void *data);

#endif /* l7fw.h */
