/* nf.h -- the interface between a network function and the runtime.
 *
 * A network function is a 'struct nf_class': a process() function that
 * decides what happens to each packet of a batch, and the codec of its
 * per-flow and global state.  The runtime (nfcore.c) parses packets, keeps
 * the flow table and its counters, holds packets while buffering, and hands
 * the NF batches of parsed packets; nfrt.c adds packet I/O, the control
 * socket and the command line. */
#ifndef UNONF_NF_H
#define UNONF_NF_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "flow.h"
#include "packet.h"

#define NF_BATCH_MAX 256
#define NF_PORT_MAX 2           /* --iface is port 0, --out-iface port 1. */

enum nf_verdict {
    NF_PASS,                    /* Transmit (data/len may have changed). */
    NF_DROP,
};

struct nf_pkt {
    uint8_t *data;              /* Writable; an NF may point it elsewhere. */
    uint32_t len;
    uint8_t port;               /* Port it arrived on. */
    uint8_t out_port;           /* Port it leaves by (set by the runtime). */
    uint8_t verdict;            /* enum nf_verdict. */
    bool parsed;                /* 'info' valid; false: not for process(). */
    bool reversed;              /* Bidirectional NFs: key was swapped. */
    struct flow *flow;          /* NULL if not tracked or the table is full. */
    struct pkt_info info;
};

struct nf_batch {
    size_t n;
    uint64_t now_ns;
    struct nf_pkt pkts[NF_BATCH_MAX];
};

/* Iterates over the packets of a batch that are for the NF: parsed packets
 * (or all of them for NF_RAW classes). */
#define NF_BATCH_FOR_EACH(PKT, BATCH)                                   \
    for (struct nf_pkt *PKT = (BATCH)->pkts;                            \
         PKT < (BATCH)->pkts + (BATCH)->n; PKT++)                       \
        if (PKT->parsed)

enum nf_class_flags {
    NF_CONFIG_REQUIRED = 1 << 0,
    NF_RAW = 1 << 1,            /* No parsing, no flows (the no-op NF). */
    NF_BIDIR_FLOWS = 1 << 2,    /* Both directions share a flow entry. */
    NF_UNPARSED_DROP = 1 << 3,  /* Default policy for unparsed packets. */
};

struct state_writer;

struct nf_class {
    const char *name;
    const char *summary;        /* One line for --help. */
    const char *config_help;    /* Config file syntax for --help. */
    unsigned int flags;         /* enum nf_class_flags. */
    uint16_t state_kind;        /* Identifies this NF's state blobs. */
    uint16_t state_version;     /* Version of this NF's record layouts. */
    size_t flow_data_size;      /* Bytes of NF state per flow. */
    /* The NF's counters: 'n_counters' uint64_t at 'counters_offset' in its
     * instance, named by 'counter_names'. */
    const char *const *counter_names;
    size_t n_counters;
    size_t counters_offset;

    /* Creates an instance from 'config' (NULL if none was given). */
    int (*create)(const char *config, void **nf, char *err, size_t errlen);
    void (*destroy)(void *nf);

    /* Sets the verdict of each packet of 'batch' (NF_BATCH_FOR_EACH). */
    void (*process)(struct nf_batch *batch, void *nf);

    /* Optional: the flow table key of a packet (default: its 5-tuple,
     * canonicalized for NF_BIDIR_FLOWS); sets 'pkt->reversed' if the packet
     * goes in the flow's reverse direction. */
    void (*flow_key)(void *nf, struct nf_pkt *, struct flow_key *);
    /* Optional: whether a packet without a flow creates one. */
    bool (*flow_admit)(void *nf, const struct nf_pkt *);
    /* Optional: frees what a flow's data refers to, before it is removed. */
    void (*flow_release)(void *nf, struct flow *);

    /* State codec.  flow_encode() appends the flow's NF data to a flow
     * record; flow_decode() reads it back: into 'data' (zeroed) when it is
     * not NULL, otherwise only to validate it.  Returns 0 or EINVAL. */
    void (*flow_encode)(const void *nf, const struct flow *, struct wbuf *);
    int (*flow_decode)(void *nf, const struct flow_key *, struct rbuf *,
                       void *data);
    /* Optional global state: records of types >= STATE_REC_NF. */
    void (*records_encode)(const void *nf, struct state_writer *);
    int (*record_decode)(void *nf, uint16_t type, struct rbuf *, bool apply);
    void (*records_clear)(void *nf);

    /* Optional NF-specific control commands: ENOENT if not one. */
    int (*command)(void *nf, int argc, char *argv[], struct wbuf *body,
                   char *err, size_t errlen);
};

#endif /* nf.h */
