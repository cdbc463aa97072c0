/* flow.c -- flow keys and a chained hash table with a use-ordered list. */
#include "flow.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

_Static_assert(sizeof(struct flow_key) == 40, "flow_key must have no padding");

struct flow_table {
    struct flow **buckets;
    size_t mask;                /* Number of buckets - 1. */
    size_t count;
    size_t max;
    size_t data_size;
    uint64_t seed;
    struct flow *head, *tail;   /* Use order. */
};

static const char *
proto_name(uint8_t proto, char *buf, size_t size)
{
    switch (proto) {
    case IPPROTO_TCP: return "tcp";
    case IPPROTO_UDP: return "udp";
    case IPPROTO_ICMP: return "icmp";
    case IPPROTO_ICMPV6: return "icmp6";
    case IPPROTO_ESP: return "esp";
    default:
        snprintf(buf, size, "%u", proto);
        return buf;
    }
}

void
flow_key_format(const struct flow_key *key, char *buf, size_t size)
{
    char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], num[8];
    int af = key->family == 6 ? AF_INET6 : AF_INET;

    inet_ntop(af, key->src, src, sizeof src);
    inet_ntop(af, key->dst, dst, sizeof dst);
    snprintf(buf, size, af == AF_INET6 ? "%s [%s]:%u > [%s]:%u"
             : "%s %s:%u > %s:%u", proto_name(key->proto, num, sizeof num),
             src, key->sport, dst, key->dport);
}

void
flow_key_reverse(struct flow_key *key)
{
    uint8_t tmp[16];
    memcpy(tmp, key->src, 16);
    memcpy(key->src, key->dst, 16);
    memcpy(key->dst, tmp, 16);
    uint16_t port = key->sport;
    key->sport = key->dport;
    key->dport = port;
}

bool
flow_key_canonicalize(struct flow_key *key)
{
    int cmp = memcmp(key->src, key->dst, 16);
    if (cmp > 0 || (cmp == 0 && key->sport > key->dport)) {
        flow_key_reverse(key);
        return true;
    }
    return false;
}

static uint64_t
mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static uint32_t
flow_key_hash(const struct flow_key *key, uint64_t seed)
{
    uint64_t words[5];
    uint64_t h = seed;

    memcpy(words, key, sizeof words);
    for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
        h = (h ^ mix64(words[i] + i)) * 0x9e3779b97f4a7c15ull;
    }
    return (uint32_t) mix64(h);
}

struct flow_table *
flow_table_create(size_t max_flows, size_t data_size)
{
    struct flow_table *t = xzalloc(sizeof *t);
    size_t n = 1024;

    t->buckets = xcalloc(n, sizeof *t->buckets);
    t->mask = n - 1;
    t->max = max_flows;
    t->data_size = data_size;
    t->seed = mix64(time_ns() ^ (uint64_t) (uintptr_t) t);
    return t;
}

void
flow_table_destroy(struct flow_table *t)
{
    if (!t) {
        return;
    }
    struct flow *f = t->head;
    while (f) {
        struct flow *next = f->next;
        free(f);
        f = next;
    }
    free(t->buckets);
    free(t);
}

size_t
flow_table_count(const struct flow_table *t)
{
    return t->count;
}

size_t
flow_table_max(const struct flow_table *t)
{
    return t->max;
}

struct flow *
flow_table_lookup(const struct flow_table *t, const struct flow_key *key)
{
    uint32_t hash = flow_key_hash(key, t->seed);

    for (struct flow *f = t->buckets[hash & t->mask]; f; f = f->hnext) {
        if (f->hash == hash && !memcmp(&f->key, key, sizeof *key)) {
            return f;
        }
    }
    return NULL;
}

static void
grow(struct flow_table *t)
{
    size_t n = (t->mask + 1) * 2;
    struct flow **buckets = xcalloc(n, sizeof *buckets);

    for (struct flow *f = t->head; f; f = f->next) {
        struct flow **b = &buckets[f->hash & (n - 1)];
        f->hnext = *b;
        *b = f;
    }
    free(t->buckets);
    t->buckets = buckets;
    t->mask = n - 1;
}

static void
list_unlink(struct flow_table *t, struct flow *f)
{
    if (f->prev) {
        f->prev->next = f->next;
    } else {
        t->head = f->next;
    }
    if (f->next) {
        f->next->prev = f->prev;
    } else {
        t->tail = f->prev;
    }
}

static void
list_append(struct flow_table *t, struct flow *f)
{
    f->next = NULL;
    f->prev = t->tail;
    if (t->tail) {
        t->tail->next = f;
    } else {
        t->head = f;
    }
    t->tail = f;
}

int
flow_table_insert(struct flow_table *t, const struct flow_key *key,
                  uint64_t now_ns, struct flow **out)
{
    struct flow *f = flow_table_lookup(t, key);
    if (f) {
        *out = f;
        return EEXIST;
    }
    if (t->count >= t->max) {
        *out = NULL;
        return ENOSPC;
    }
    if (t->count >= t->mask + 1) {
        grow(t);
    }

    f = xzalloc(sizeof *f + t->data_size);
    f->hash = flow_key_hash(key, t->seed);
    f->key = *key;
    f->first_ns = f->last_ns = now_ns;

    struct flow **b = &t->buckets[f->hash & t->mask];
    f->hnext = *b;
    *b = f;
    list_append(t, f);
    t->count++;
    *out = f;
    return 0;
}

void
flow_table_remove(struct flow_table *t, struct flow *f)
{
    struct flow **p = &t->buckets[f->hash & t->mask];
    while (*p != f) {
        p = &(*p)->hnext;
    }
    *p = f->hnext;
    list_unlink(t, f);
    t->count--;
    free(f);
}

void
flow_table_touch(struct flow_table *t, struct flow *f, uint32_t bytes,
                 uint64_t now_ns)
{
    f->packets++;
    f->bytes += bytes;
    f->last_ns = now_ns;
    if (t->tail != f) {
        list_unlink(t, f);
        list_append(t, f);
    }
}

void
flow_table_set_times(struct flow_table *t, struct flow *f,
                     uint64_t first_ns, uint64_t last_ns)
{
    f->first_ns = first_ns;
    f->last_ns = last_ns;
    if (t->tail != f) {
        list_unlink(t, f);
        list_append(t, f);
    }
}

struct flow *
flow_table_first(const struct flow_table *t)
{
    return t->head;
}

struct flow *
flow_table_next(const struct flow_table *t, const struct flow *f)
{
    (void) t;
    return f->next;
}
