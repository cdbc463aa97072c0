/* replay.h -- the ESP anti-replay window (RFC 4303 section 3.4.3), kept as
 * a ring of bits in the manner of RFC 6479 so that advancing the window
 * costs O(1) words per packet. */
#ifndef SECGW_REPLAY_H
#define SECGW_REPLAY_H 1

#include <stdint.h>

#define REPLAY_MAX_WINDOW 4096
#define REPLAY_RING_WORDS (REPLAY_MAX_WINDOW / 64 + 1)

struct replay_window {
    uint32_t size;              /* Window size W, a multiple of 8. */
    uint32_t top;               /* Highest authenticated number, 0: none. */
    uint64_t ring[REPLAY_RING_WORDS];   /* Bit (seq % ring bits). */
};

enum replay_result {
    REPLAY_OK,
    REPLAY_DUPLICATE,           /* Seen before. */
    REPLAY_TOO_OLD,             /* Left of the window (or 0). */
};

void replay_init(struct replay_window *, uint32_t size);
/* Checks 'seq' before authentication; does not change the window. */
enum replay_result replay_check(const struct replay_window *, uint32_t seq);
/* Records 'seq' after the packet authenticated. */
void replay_update(struct replay_window *, uint32_t seq);
/* Whether 'seq' (within the window) is marked as seen. */
int replay_seen(const struct replay_window *, uint32_t seq);

#endif /* replay.h */
