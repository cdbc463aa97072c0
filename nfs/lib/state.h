/* state.h -- the versioned binary envelope of exported NF state.
 *
 * Format version 1, all integers big-endian (host and sNIC may differ in
 * byte order):
 *
 *   header (16 bytes):
 *     0  "UNOS"          magic
 *     4  u16 format      STATE_FORMAT_VERSION
 *     6  u16 kind        the NF (nf_class.state_kind)
 *     8  u16 nf_version  version of the NF's record layouts
 *    10  u16 reserved    0
 *    12  u32 count       number of records
 *   records:
 *     0  u16 type        STATE_REC_FLOW, or >= STATE_REC_NF (NF-defined)
 *     2  u16 reserved    0
 *     4  u32 length      payload bytes
 *     8  payload
 *
 * A flow record's payload is the generic part below, then the NF's data:
 *     0  u8  family (4|6)   1  u8 proto   2 u16 sport   4 u16 dport
 *     6  u16 reserved       8  src[16]   24 dst[16]
 *    40  u64 packets       48  u64 bytes
 *    56  u64 age_us (since first packet)  64 u64 idle_us (since last)
 *    72  NF data
 * Times are relative so that they survive a move to another clock. */
#ifndef UNONF_STATE_H
#define UNONF_STATE_H 1

#include <stdint.h>

#include "buf.h"
#include "flow.h"

#define STATE_MAGIC "UNOS"
#define STATE_FORMAT_VERSION 1
#define STATE_HDR_LEN 16
#define STATE_REC_HDR_LEN 8
#define STATE_FLOW_LEN 72
#define STATE_REC_FLOW 1
#define STATE_REC_NF 0x100

struct state_writer {
    struct wbuf *out;
    size_t start;               /* Offset of the header in 'out'. */
    size_t record;              /* Offset of the open record's header. */
    uint32_t count;
};

void state_writer_begin(struct state_writer *, struct wbuf *, uint16_t kind,
                        uint16_t nf_version);
void state_record_begin(struct state_writer *, uint16_t type);
void state_record_end(struct state_writer *);
void state_writer_end(struct state_writer *);

/* Relative times: microseconds from 'then_ns' to 'now_ns' (0 if 'then_ns' is
 * later), and the time 'us' microseconds before 'now_ns' (0 if before the
 * clock's start). */
uint64_t state_us_since(uint64_t then_ns, uint64_t now_ns);
uint64_t state_ns_ago(uint64_t now_ns, uint64_t us);

/* Appends the generic part of a flow record. */
void state_flow_encode(struct wbuf *, const struct flow *, uint64_t now_ns);

struct state_flow {
    struct flow_key key;
    uint64_t packets;
    uint64_t bytes;
    uint64_t age_us;
    uint64_t idle_us;
};

/* Reads and validates the generic part of a flow record. */
int state_flow_decode(struct rbuf *, struct state_flow *);

struct state_reader {
    struct rbuf r;
    uint16_t kind;
    uint16_t nf_version;
    uint32_t count;
    uint32_t left;
};

/* Checks the header: magic, format version, that it is for NF 'kind' at
 * most at version 'max_nf_version'.  Returns 0 or EINVAL with a reason. */
int state_reader_init(struct state_reader *, const uint8_t *, size_t,
                      uint16_t kind, uint16_t max_nf_version,
                      char *err, size_t errlen);

/* Reads the next record: 0 with its type and payload, ENOENT after the last
 * one (and no trailing bytes), EINVAL if malformed. */
int state_reader_next(struct state_reader *, uint16_t *type,
                      struct rbuf *payload);

#endif /* state.h */
