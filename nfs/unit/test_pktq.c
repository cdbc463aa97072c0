/* Unit tests of the buffering queue against a simple model. */
#include "pktq.h"

#include "unit.h"
#include "util.h"

static void
test_fifo_with_wraparound(void)
{
    struct pktq q;
    /* Model: lengths and first bytes of the held packets, in order. */
    uint32_t lens[4096];
    uint8_t marks[4096];
    size_t head = 0, tail = 0;
    unsigned int seed = 3;
    uint8_t data[2000];
    uint8_t next_mark = 0;

    CHECK_EQ(pktq_init(&q, 1000, 64 * 1024), 0);
    for (int round = 0; round < 20000; round++) {
        if (rand_r(&seed) % 3 && tail - head < 4096) {
            uint32_t len = 1 + (uint32_t) rand_r(&seed) % 1999;
            memset(data, next_mark, len);
            bool ok = pktq_push(&q, data, len, (uint8_t) (len & 1));
            if (ok) {
                lens[tail % 4096] = len;
                marks[tail % 4096] = next_mark++;
                tail++;
            } else {
                /* Refused only when nearly full: the larger of the two
                 * free stretches is at least half the free space, and a
                 * wrap wastes less than one record. */
                CHECK(q.count == 1000
                      || q.bytes + q.count * 15 + 2 * (len + 15) + 2016
                         >= 64 * 1024);
            }
        } else {
            size_t n = (size_t) rand_r(&seed) % 4;
            struct pktq_iter it;
            uint8_t *p;
            uint32_t len;
            uint8_t port;

            pktq_iter_init(&q, &it);
            for (size_t i = 0; i < n && pktq_iter_next(&q, &it, &p, &len,
                                                      &port); i++) {
                CHECK_EQ(len, lens[(head + i) % 4096]);
                CHECK_EQ(p[0], marks[(head + i) % 4096]);
                CHECK_EQ(p[len - 1], marks[(head + i) % 4096]);
                CHECK_EQ(port, len & 1);
            }
            n = MIN(n, tail - head);
            pktq_pop(&q, n);
            head += n;
        }
        CHECK_EQ(q.count, tail - head);
    }
    pktq_uninit(&q);
}

static void
test_bounds(void)
{
    struct pktq q;
    uint8_t data[100] = { 0 };

    CHECK_EQ(pktq_init(&q, 3, 4096), 0);
    CHECK(pktq_push(&q, data, 100, 0));
    CHECK(pktq_push(&q, data, 100, 0));
    CHECK(pktq_push(&q, data, 100, 0));
    CHECK(!pktq_push(&q, data, 100, 0));        /* Count bound. */
    CHECK_EQ(q.bytes, 300);
    pktq_pop(&q, 3);
    CHECK_EQ(q.count, 0);
    CHECK_EQ(q.bytes, 0);
    pktq_uninit(&q);

    CHECK_EQ(pktq_init(&q, 1000, 4096), 0);
    size_t n = 0;
    while (pktq_push(&q, data, 100, 0)) {
        n++;
    }
    CHECK_EQ(n, 4096 / 112);                    /* Byte bound. */
    pktq_uninit(&q);
}

int
main(void)
{
    UNIT_RUN(test_fifo_with_wraparound);
    UNIT_RUN(test_bounds);
    return unit_report("test_pktq");
}
