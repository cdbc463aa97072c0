/* replay.c -- ESP anti-replay window as a ring of bits (RFC 6479). */
#include "replay.h"

#include <string.h>

#define RING_BITS (REPLAY_RING_WORDS * 64u)

void
replay_init(struct replay_window *w, uint32_t size)
{
    memset(w, 0, sizeof *w);
    w->size = size;
}

int
replay_seen(const struct replay_window *w, uint32_t seq)
{
    uint32_t bit = seq % RING_BITS;
    return (w->ring[bit / 64] >> (bit % 64)) & 1;
}

enum replay_result
replay_check(const struct replay_window *w, uint32_t seq)
{
    if (!seq) {
        return REPLAY_TOO_OLD;
    }
    if (seq > w->top) {
        return REPLAY_OK;
    }
    if (w->top - seq >= w->size) {
        return REPLAY_TOO_OLD;
    }
    return replay_seen(w, seq) ? REPLAY_DUPLICATE : REPLAY_OK;
}

void
replay_update(struct replay_window *w, uint32_t seq)
{
    if (seq > w->top) {
        /* Clear the words the window slides over. */
        uint32_t old_word = w->top / 64, new_word = seq / 64;
        uint32_t n = new_word - old_word;
        if (n > REPLAY_RING_WORDS) {
            n = REPLAY_RING_WORDS;
        }
        for (uint32_t i = 1; i <= n; i++) {
            w->ring[(old_word + i) % REPLAY_RING_WORDS] = 0;
        }
        w->top = seq;
    }
    uint32_t bit = seq % RING_BITS;
    w->ring[bit / 64] |= 1ull << (bit % 64);
}
