/* nfcore.h -- what every NF does around its process(): parsing, the flow
 * table and its counters, buffering, injection, and state export/import.
 *
 * The core does no I/O: packets come in with nfcore_receive() and leave
 * through the output function given at creation, so it runs the same under
 * the packet-I/O runtime, unit tests and fuzzers. */
#ifndef UNONF_NFCORE_H
#define UNONF_NFCORE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "json.h"
#include "match.h"
#include "nf.h"

struct nfcore_config {
    size_t max_flows;
    uint64_t flow_timeout_ns;   /* Idle flows expire; 0: never. */
    bool unparsed_drop;         /* Drop (or pass) packets that do not parse. */
    size_t hold_packets;        /* Bounds of the buffering mode's queue. */
    size_t hold_bytes;
    bool two_port;              /* Packets leave by the other port. */
};

void nfcore_config_init(struct nfcore_config *, const struct nf_class *);

struct nfcore_counters {
    uint64_t rx;                /* Packets received (including held). */
    uint64_t injected;          /* Packets given by 'inject'. */
    uint64_t processed;         /* Processed: received, released, injected. */
    uint64_t forwarded;         /* Packets handed to the output. */
    uint64_t nf_drop;           /* Dropped by the NF's verdict. */
    uint64_t unparsed;
    uint64_t unparsed_drop;
    uint64_t flow_table_full;   /* Packets that found no room for a flow. */
    uint64_t flows_created;
    uint64_t flows_expired;
    uint64_t held;              /* Packets put in the buffer. */
    uint64_t hold_drop;         /* Packets lost because the buffer was full. */
    uint64_t released;
    uint64_t taken;
};

/* Receives the processed batch: transmits packets whose verdict is NF_PASS
 * by their 'out_port'. */
typedef void nfcore_output_func(void *aux, struct nf_batch *);

struct nfcore;

int nfcore_create(const struct nf_class *, const char *config,
                  const struct nfcore_config *, nfcore_output_func *,
                  void *aux, struct nfcore **, char *err, size_t errlen);
void nfcore_destroy(struct nfcore *);

const struct nf_class *nfcore_class(const struct nfcore *);
const struct nfcore_counters *nfcore_counters(const struct nfcore *);
size_t nfcore_flow_count(const struct nfcore *);

/* Takes a batch received from the ports (data, len and port set): processes
 * it now, or, in buffering mode, keeps copies in arrival order. */
void nfcore_receive(struct nfcore *, struct nf_batch *);

/* Expires at most 'max' idle flows (never while holding packets). */
void nfcore_expire(struct nfcore *, uint64_t now_ns, size_t max);

/* Buffering.  Holding: received packets are kept, not processed.
 * Releasing: the held packets are being processed, oldest first, a step at
 * a time; what arrives meanwhile is held behind them, so that the order is
 * kept and the receive ring never backs up while a long queue drains. */
enum nfcore_hold {
    NFCORE_PROCESSING,
    NFCORE_HOLDING,
    NFCORE_RELEASING,
};
enum nfcore_hold nfcore_hold_state(const struct nfcore *);
size_t nfcore_held(const struct nfcore *);
uint64_t nfcore_held_bytes(const struct nfcore *);
void nfcore_buffer_start(struct nfcore *);
/* Moves held packets, oldest first, to 'out' as a packet list (below) of at
 * most 'max_bytes' (at least one packet).  Buffering stays on. */
size_t nfcore_buffer_take(struct nfcore *, struct wbuf *out,
                          size_t max_bytes);
/* Starts releasing: returns the number of packets held now.  Then
 * nfcore_release_step() processes up to 'max' held packets in order and
 * returns whether any are left; normal processing resumes when none are. */
size_t nfcore_buffer_release(struct nfcore *);
bool nfcore_release_step(struct nfcore *, size_t max);

/* Packet lists (buffer take, inject): a sequence of
 *     u8 port, u8[3] reserved (0), u32 length (big-endian), bytes
 * Processes the packets of 'list' now, ahead of any held ones.  The list is
 * validated entirely first.  Returns 0 or EINVAL. */
#define PKTLIST_HDR_LEN 8
int nfcore_inject(struct nfcore *, uint8_t *list, size_t len, size_t *n,
                  char *err, size_t errlen);

struct flow_selector {
    enum { FLOWS_ALL, FLOWS_ONE, FLOWS_MATCH } kind;
    struct flow_key key;        /* FLOWS_ONE (either direction). */
    struct flow_match match;    /* FLOWS_MATCH. */
};

/* State export: flows chosen by 'sel' and, for FLOWS_ALL, the NF's global
 * records.  Appends a state blob to 'out' and returns the number of flows. */
size_t nfcore_state_get(struct nfcore *, const struct flow_selector *,
                        struct wbuf *out);
/* State import: merges into (or, with 'replace', replaces) the current
 * state.  All-or-nothing: the blob is validated before anything changes. */
int nfcore_state_put(struct nfcore *, const uint8_t *, size_t, bool replace,
                     size_t *n_flows, char *err, size_t errlen);
size_t nfcore_state_delete(struct nfcore *, const struct flow_selector *);

/* JSON for the control socket. */
void nfcore_stats_json(const struct nfcore *, struct json *);
void nfcore_flows_json(const struct nfcore *, const struct flow_selector *,
                       struct json *);
int nfcore_nf_command(struct nfcore *, int argc, char *argv[],
                      struct wbuf *body, char *err, size_t errlen);

#endif /* nfcore.h */
