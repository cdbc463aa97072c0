/* Unit tests of flow keys and the flow table. */
#include "flow.h"

#include <errno.h>
#include <netinet/in.h>

#include "unit.h"

static struct flow_key
key(uint32_t i)
{
    struct flow_key k;
    memset(&k, 0, sizeof k);
    k.family = 4;
    k.proto = IPPROTO_UDP;
    k.src[0] = 10;
    k.src[1] = (uint8_t) (i >> 16);
    k.src[2] = (uint8_t) (i >> 8);
    k.src[3] = (uint8_t) i;
    k.dst[0] = 192;
    k.sport = (uint16_t) i;
    k.dport = 53;
    return k;
}

static void
test_insert_lookup_remove(void)
{
    struct flow_table *t = flow_table_create(20000, 8);
    struct flow *f, *g;

    for (uint32_t i = 0; i < 10000; i++) {
        struct flow_key k = key(i);
        CHECK_EQ(flow_table_insert(t, &k, i, &f), 0);
        CHECK(!memcmp(&f->key, &k, sizeof k));
        f->data[0] = (uint8_t) i;
    }
    CHECK_EQ(flow_table_count(t), 10000);
    for (uint32_t i = 0; i < 10000; i++) {
        struct flow_key k = key(i);
        f = flow_table_lookup(t, &k);
        CHECK(f && f->data[0] == (uint8_t) i && f->first_ns == i);
    }
    struct flow_key k = key(5);
    CHECK_EQ(flow_table_insert(t, &k, 0, &g), EEXIST);
    CHECK(g == flow_table_lookup(t, &k));
    flow_table_remove(t, g);
    CHECK(!flow_table_lookup(t, &k));
    CHECK_EQ(flow_table_count(t), 9999);
    k = key(123456);
    CHECK(!flow_table_lookup(t, &k));
    flow_table_destroy(t);
}

static void
test_bound(void)
{
    struct flow_table *t = flow_table_create(3, 0);
    struct flow *f;

    for (uint32_t i = 0; i < 3; i++) {
        struct flow_key k = key(i);
        CHECK_EQ(flow_table_insert(t, &k, 0, &f), 0);
    }
    struct flow_key k = key(99);
    CHECK_EQ(flow_table_insert(t, &k, 0, &f), ENOSPC);
    CHECK(f == NULL);
    flow_table_destroy(t);
}

static void
test_use_order(void)
{
    struct flow_table *t = flow_table_create(10, 0);
    struct flow *f[4];

    for (uint32_t i = 0; i < 4; i++) {
        struct flow_key k = key(i);
        flow_table_insert(t, &k, i, &f[i]);
    }
    flow_table_touch(t, f[1], 100, 50);
    flow_table_touch(t, f[0], 10, 60);
    CHECK_EQ(f[1]->packets, 1);
    CHECK_EQ(f[1]->bytes, 100);
    CHECK_EQ(f[1]->last_ns, 50);

    uint32_t order[4], n = 0;
    for (struct flow *x = flow_table_first(t); x; x = flow_table_next(t, x)) {
        order[n++] = x->key.sport;
    }
    CHECK_EQ(n, 4);
    CHECK_EQ(order[0], 2);
    CHECK_EQ(order[1], 3);
    CHECK_EQ(order[2], 1);
    CHECK_EQ(order[3], 0);

    /* Removing while iterating, as expiry does. */
    struct flow *x = flow_table_first(t);
    while (x) {
        struct flow *next = flow_table_next(t, x);
        if (x->key.sport % 2 == 0) {
            flow_table_remove(t, x);
        }
        x = next;
    }
    CHECK_EQ(flow_table_count(t), 2);
    flow_table_destroy(t);
}

static void
test_keys(void)
{
    struct flow_key k = key(7), r = k;
    char buf[FLOW_KEY_STR_MAX];

    flow_key_reverse(&r);
    CHECK_EQ(r.sport, 53);
    CHECK_EQ(r.dport, 7);
    CHECK_EQ(r.src[0], 192);

    struct flow_key a = k, b = r;
    bool sa = flow_key_canonicalize(&a), sb = flow_key_canonicalize(&b);
    CHECK(!memcmp(&a, &b, sizeof a));
    CHECK(sa != sb);

    flow_key_format(&k, buf, sizeof buf);
    CHECK(!strcmp(buf, "udp 10.0.0.7:7 > 192.0.0.0:53"));
}

int
main(void)
{
    UNIT_RUN(test_insert_lookup_remove);
    UNIT_RUN(test_bound);
    UNIT_RUN(test_use_order);
    UNIT_RUN(test_keys);
    return unit_report("test_flow");
}
