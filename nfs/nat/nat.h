/* nat.h -- source NAT (IPv4, TCP, UDP and ICMP echo).
 *
 * Packets from an internal prefix to the outside get the external address
 * and an external port (the ICMP echo identifier for pings) allocated per
 * flow; replies to the external address and port get the original address
 * and port back.  The mapping is the flow's state: a flow is keyed by its
 * outbound 5-tuple, and replies find it through a reverse index, so both
 * directions count on one flow entry. */
#ifndef NAT_H
#define NAT_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow.h"
#include "match.h"
#include "nf.h"

#define NAT_STATE_VERSION 1
#define NAT_MAX_INTERNAL 64

enum nat_proto_index {
    NAT_TCP,
    NAT_UDP,
    NAT_ICMP,
    NAT_N_PROTOS,
};

/* External ports in use per protocol: a use count per port of the pool. */
struct nat_ports {
    uint16_t lo, hi;
    uint8_t *use[NAT_N_PROTOS];
    uint32_t next[NAT_N_PROTOS];        /* Where the next search starts. */
};

/* Per-flow state. */
struct nat_flow {
    uint16_t ext_port;          /* 0 until a port is allocated. */
};

enum nat_counter {
    NAT_TRANSLATED_OUT,
    NAT_TRANSLATED_IN,
    NAT_NO_MAPPING,             /* Inbound to the external address, no flow. */
    NAT_PORTS_EXHAUSTED,
    NAT_UNTRANSLATABLE,         /* Internal source, but cannot be mapped. */
    NAT_PASSED,                 /* Neither internal nor to the external. */
    NAT_N_COUNTERS,
};

struct nat {
    uint8_t external[4];
    struct ip_prefix internal[NAT_MAX_INTERNAL];
    size_t n_internal;
    struct nat_ports ports;
    struct flow_table *reverse; /* Reply 5-tuple -> outbound key. */
    uint64_t counters[NAT_N_COUNTERS];
};

extern const struct nf_class nat_class;

int nat_config_load(struct nat *, const char *path, char *err, size_t errlen);

int nat_proto_index(uint8_t proto);
void nat_ports_init(struct nat_ports *, uint16_t lo, uint16_t hi);
void nat_ports_uninit(struct nat_ports *);
/* Returns a free port (and takes it), or 0 if none is left. */
uint16_t nat_ports_alloc(struct nat_ports *, int proto);
void nat_ports_ref(struct nat_ports *, int proto, uint16_t port);
void nat_ports_unref(struct nat_ports *, int proto, uint16_t port);

/* The reply 5-tuple of outbound flow 'out' mapped to 'ext_port'. */
void nat_reply_key(const struct nat *, const struct flow_key *out,
                   uint16_t ext_port, struct flow_key *reply);
/* Records 'ext_port' (already taken from the pool) in the data 'nf' of the
 * flow with outbound key 'out', and indexes its replies. */
void nat_map(struct nat *, const struct flow_key *out, struct nat_flow *nf,
             uint16_t ext_port);

bool nat_is_internal(const struct nat *, const struct flow_key *);
void nat_flow_key(void *nat, struct nf_pkt *, struct flow_key *);
bool nat_flow_admit(void *nat, const struct nf_pkt *);
void nat_flow_release(void *nat, struct flow *);
void nat_process(struct nf_batch *, void *nat);
void nat_flow_encode(const void *nat, const struct flow *, struct wbuf *);
int nat_flow_decode(void *nat, const struct flow_key *, struct rbuf *,
                    void *data);

#endif /* nat.h */
