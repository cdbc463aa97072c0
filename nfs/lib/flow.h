/* flow.h -- 5-tuple flow keys and the flow table.
 *
 * A flow table maps a 5-tuple to a 'struct flow' with generic counters
 * (packets, bytes, first and last seen) followed by 'data_size' bytes of
 * NF-specific state.  Entries are kept on a list ordered by last use, so that
 * idle flows can be expired from its head in O(1) and exports walk flows in a
 * stable order.  The table never holds more than its configured maximum. */
#ifndef UNONF_FLOW_H
#define UNONF_FLOW_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Addresses are in network byte order; an IPv4 address is in the first four
 * bytes of the 16 with the rest zero.  Ports are in host byte order.  All
 * padding is zero so that keys compare and hash as bytes. */
struct flow_key {
    uint8_t src[16];
    uint8_t dst[16];
    uint16_t sport;
    uint16_t dport;
    uint8_t proto;
    uint8_t family;             /* 4 or 6. */
    uint8_t pad[2];
};

#define FLOW_KEY_STR_MAX 112

/* Formats 'key' as "udp 10.0.0.1:1000 > 10.0.0.2:2000" into 'buf'. */
void flow_key_format(const struct flow_key *, char *buf, size_t size);

/* Reverses the direction of 'key'. */
void flow_key_reverse(struct flow_key *);

/* Orders the endpoints of 'key' so that both directions of a connection give
 * the same key.  Returns true if it swapped them. */
bool flow_key_canonicalize(struct flow_key *);

struct flow {
    struct flow *hnext;         /* Hash chain. */
    struct flow *prev, *next;   /* Use order: least recently seen first. */
    uint32_t hash;
    struct flow_key key;
    uint64_t packets;
    uint64_t bytes;
    uint64_t first_ns;          /* Monotonic time of the first packet. */
    uint64_t last_ns;           /* Monotonic time of the latest packet. */
    uint8_t data[] __attribute__((aligned(16)));   /* The NF's state. */
};

struct flow_table;

struct flow_table *flow_table_create(size_t max_flows, size_t data_size);
/* Frees the table and its entries; the caller releases NF state first. */
void flow_table_destroy(struct flow_table *);

size_t flow_table_count(const struct flow_table *);
size_t flow_table_max(const struct flow_table *);

struct flow *flow_table_lookup(const struct flow_table *,
                               const struct flow_key *);

/* Inserts a new flow with zeroed counters and data, seen at 'now_ns'.
 * Returns 0 and the flow, EEXIST (and the existing flow) or ENOSPC. */
int flow_table_insert(struct flow_table *, const struct flow_key *,
                      uint64_t now_ns, struct flow **);

/* Removes and frees 'flow'. */
void flow_table_remove(struct flow_table *, struct flow *);

/* Counts one packet of 'bytes' bytes on 'flow' at 'now_ns' and moves it to
 * the most-recently-used end. */
void flow_table_touch(struct flow_table *, struct flow *, uint32_t bytes,
                      uint64_t now_ns);

/* Sets the times of 'flow' (for imports) and moves it to the
 * most-recently-used end. */
void flow_table_set_times(struct flow_table *, struct flow *,
                          uint64_t first_ns, uint64_t last_ns);

/* Iteration in use order, least recently seen first.  The current flow may
 * be removed if the next one was fetched before. */
struct flow *flow_table_first(const struct flow_table *);
struct flow *flow_table_next(const struct flow_table *, const struct flow *);

#endif /* flow.h */
