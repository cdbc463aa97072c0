/* pktq.h -- a bounded FIFO of packet copies (the buffering mode's store).
 *
 * Packets are copied into one circular arena, in arrival order, with the
 * port they arrived on.  The queue is bounded both in packets and in bytes; a
 * push that does not fit fails and the caller counts the drop.  The arena is
 * reserved with mmap and only touched as it fills, so a large bound costs
 * nothing until packets are held. */
#ifndef UNONF_PKTQ_H
#define UNONF_PKTQ_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pktq {
    uint8_t *arena;
    size_t size;                /* Bytes in the arena. */
    size_t head;                /* Offset of the oldest record. */
    size_t tail;                /* Offset where the next record goes. */
    size_t count;               /* Packets held. */
    size_t max_count;
    uint64_t bytes;             /* Sum of the held packets' lengths. */
    size_t high_water;          /* Highest offset written since last trim. */
};

/* Creates a queue of at most 'max_count' packets in 'max_bytes' of arena.
 * Returns 0 or an errno. */
int pktq_init(struct pktq *, size_t max_count, size_t max_bytes);
void pktq_uninit(struct pktq *);

/* Appends a copy of 'data'.  Returns false if it does not fit. */
bool pktq_push(struct pktq *, const uint8_t *data, uint32_t len,
               uint8_t port);

/* Walks the held packets from the oldest without removing them.  The data
 * stays valid (and writable) until it is popped. */
struct pktq_iter {
    size_t pos;
    size_t left;
};
void pktq_iter_init(const struct pktq *, struct pktq_iter *);
bool pktq_iter_next(struct pktq *, struct pktq_iter *,
                    uint8_t **data, uint32_t *len, uint8_t *port);

/* Removes the 'n' oldest packets. */
void pktq_pop(struct pktq *, size_t n);

#endif /* pktq.h */
