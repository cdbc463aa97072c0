/* pktq.c -- bounded FIFO of packet copies in a circular arena. */
#include "pktq.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "util.h"

#define REC_HDR 8
#define WRAP_MARK UINT32_MAX
/* Give memory back to the kernel when a queue that grew past this empties. */
#define TRIM_THRESHOLD (16u << 20)

static size_t
rec_size(uint32_t len)
{
    return REC_HDR + ROUND_UP((size_t) len, 8);
}

int
pktq_init(struct pktq *q, size_t max_count, size_t max_bytes)
{
    memset(q, 0, sizeof *q);
    q->size = ROUND_UP(MAX(max_bytes, (size_t) 4096), 4096);
    q->max_count = max_count;
    q->arena = mmap(NULL, q->size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (q->arena == MAP_FAILED) {
        q->arena = NULL;
        return errno;
    }
    return 0;
}

void
pktq_uninit(struct pktq *q)
{
    if (q->arena) {
        munmap(q->arena, q->size);
        q->arena = NULL;
    }
}

static void
write_record(struct pktq *q, size_t at, const uint8_t *data, uint32_t len,
             uint8_t port)
{
    uint8_t *rec = q->arena + at;
    memcpy(rec, &len, 4);
    rec[4] = port;
    memcpy(rec + REC_HDR, data, len);
    q->tail = at + rec_size(len);
    q->high_water = MAX(q->high_water, q->tail);
    if (q->tail == q->size) {
        q->tail = 0;
    }
}

bool
pktq_push(struct pktq *q, const uint8_t *data, uint32_t len, uint8_t port)
{
    size_t need = rec_size(len);

    if (q->count >= q->max_count || need > q->size) {
        return false;
    }
    if (q->count == 0) {
        q->head = q->tail = 0;
    }
    if (q->count && q->tail == q->head) {
        return false;                           /* Full. */
    }
    if (q->tail >= q->head) {
        /* Free space is [tail, size) then [0, head). */
        if (need <= q->size - q->tail) {
            write_record(q, q->tail, data, len, port);
        } else if (need <= q->head) {
            uint32_t mark = WRAP_MARK;
            memcpy(q->arena + q->tail, &mark, 4);
            write_record(q, 0, data, len, port);
        } else {
            return false;
        }
    } else if (need <= q->head - q->tail) {
        write_record(q, q->tail, data, len, port);
    } else {
        return false;
    }
    q->count++;
    q->bytes += len;
    return true;
}

/* Reads the record at '*pos', skipping a wrap marker, and advances. */
static uint8_t *
read_record(const struct pktq *q, size_t *pos, uint32_t *len, uint8_t *port)
{
    uint32_t n;

    memcpy(&n, q->arena + *pos, 4);
    if (n == WRAP_MARK) {
        *pos = 0;
        memcpy(&n, q->arena, 4);
    }
    uint8_t *rec = q->arena + *pos;
    *len = n;
    *port = rec[4];
    *pos += rec_size(n);
    if (*pos == q->size) {
        *pos = 0;
    }
    return rec + REC_HDR;
}

void
pktq_iter_init(const struct pktq *q, struct pktq_iter *it)
{
    it->pos = q->head;
    it->left = q->count;
}

bool
pktq_iter_next(struct pktq *q, struct pktq_iter *it,
               uint8_t **data, uint32_t *len, uint8_t *port)
{
    if (!it->left) {
        return false;
    }
    it->left--;
    *data = read_record(q, &it->pos, len, port);
    return true;
}

void
pktq_pop(struct pktq *q, size_t n)
{
    for (; n && q->count; n--) {
        uint32_t len;
        uint8_t port;
        read_record(q, &q->head, &len, &port);
        q->count--;
        q->bytes -= len;
    }
    if (!q->count) {
        q->head = q->tail = 0;
        if (q->high_water > TRIM_THRESHOLD) {
            madvise(q->arena, q->high_water, MADV_DONTNEED);
            q->high_water = 0;
        }
    }
}
