/* secgw_state.c -- codec of secgw's state: one record per SA.
 *
 * secgw keeps no per-flow data (its flows carry only the generic counters).
 * Version 1 SA record (type 0x100):
 *     0  u8  direction (0 outbound, 1 inbound)   1  u8[3] reserved (0)
 *     4  u32 spi
 *     8  u64 packets      16  u64 bytes
 *    24  u32 sequence number: outbound, the last one sent; inbound, the
 *        highest one authenticated (the top of the replay window)
 *    28  u32 replay window size W (inbound; 0 outbound)
 *    32  W/8 bytes: bit i (byte i/8, least significant bit first) is set if
 *        sequence number top - i was received
 *
 * Imports never move a counter backwards: an outbound SA keeps the higher
 * of its own and the imported sequence number (a repeated number would
 * repeat a GCM nonce), and an inbound window keeps the higher top, merging
 * the bits when the tops are equal.  For the same reason clearing state
 * (state put replace, state delete all) resets only the packet counters. */
#include "secgw.h"

#include <errno.h>
#include <string.h>

#include "state.h"

void
secgw_flow_encode(const void *gw OVS_UNUSED, const struct flow *f OVS_UNUSED,
                  struct wbuf *out OVS_UNUSED)
{
}

int
secgw_flow_decode(void *gw OVS_UNUSED, const struct flow_key *key OVS_UNUSED,
                  struct rbuf *r OVS_UNUSED, void *data OVS_UNUSED)
{
    return 0;
}

static void
encode_window(const struct replay_window *w, struct wbuf *out)
{
    uint8_t *bits = wbuf_put_uninit(out, w->size / 8);

    memset(bits, 0, w->size / 8);
    for (uint32_t i = 0; i < w->size && i < w->top; i++) {
        if (replay_seen(w, w->top - i)) {
            bits[i / 8] |= (uint8_t) (1u << (i % 8));
        }
    }
}

void
secgw_records_encode(const void *gw_, struct state_writer *w)
{
    const struct secgw *gw = gw_;

    for (size_t i = 0; i < gw->n_sas; i++) {
        const struct esp_sa *sa = &gw->sas[i].esp;

        state_record_begin(w, SECGW_REC_SA);
        wbuf_put_u8(w->out, sa->inbound);
        wbuf_put(w->out, "\0\0\0", 3);
        wbuf_put_be32(w->out, sa->spi);
        wbuf_put_be64(w->out, sa->packets);
        wbuf_put_be64(w->out, sa->bytes);
        if (sa->inbound) {
            wbuf_put_be32(w->out, sa->replay.top);
            wbuf_put_be32(w->out, sa->replay.size);
            encode_window(&sa->replay, w->out);
        } else {
            wbuf_put_be32(w->out, sa->seq);
            wbuf_put_be32(w->out, 0);
        }
        state_record_end(w);
    }
}

/* Merges an imported window (top 'top', 'size' bits in 'bits') into 'w':
 * the higher top wins and the bits within the window are or-ed. */
static void
merge_window(struct replay_window *w, uint32_t top, uint32_t size,
             const uint8_t *bits)
{
    replay_update(w, top);      /* The top was received. */
    for (uint32_t i = 1; i < size && i < top; i++) {
        uint32_t seq = top - i;
        if (bits[i / 8] & (1u << (i % 8)) && w->top - seq < w->size) {
            replay_update(w, seq);
        }
    }
}

int
secgw_record_decode(void *gw_, uint16_t type, struct rbuf *r, bool apply)
{
    struct secgw *gw = gw_;

    if (type != SECGW_REC_SA) {
        return EINVAL;
    }
    uint8_t dir = rbuf_u8(r);
    const uint8_t *reserved = rbuf_get(r, 3);
    uint32_t spi = rbuf_be32(r);
    uint64_t packets = rbuf_be64(r);
    uint64_t bytes = rbuf_be64(r);
    uint32_t seq = rbuf_be32(r);
    uint32_t size = rbuf_be32(r);
    const uint8_t *bits = rbuf_get(r, size / 8);

    if (!rbuf_ok(r) || rbuf_remaining(r) || dir > 1 || reserved[0]
        || reserved[1] || reserved[2] || size % 8
        || size > REPLAY_MAX_WINDOW || (!dir && size)) {
        return EINVAL;
    }
    struct secgw_sa *sa = secgw_find_sa(gw, dir, spi);
    if (!sa) {
        return EINVAL;          /* No such SA configured here. */
    }
    if (apply) {
        sa->esp.packets = packets;
        sa->esp.bytes = bytes;
        if (dir) {
            if (seq) {
                merge_window(&sa->esp.replay, seq, size, bits);
            }
        } else if (seq > sa->esp.seq) {
            sa->esp.seq = seq;
        }
    }
    return 0;
}

void
secgw_records_clear(void *gw_)
{
    struct secgw *gw = gw_;

    for (size_t i = 0; i < gw->n_sas; i++) {
        gw->sas[i].esp.packets = 0;
        gw->sas[i].esp.bytes = 0;
    }
}
