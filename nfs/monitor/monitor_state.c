/* monitor_state.c -- codec of the monitor's per-flow and per-asset state.
 *
 * Version 1 flow data (4 bytes): u8 TCP flags seen, u8 payload packets
 * inspected, u16 reserved (0).
 *
 * Version 1 asset record (type 0x100):
 *     0  u8  family (4|6)   1 u8[3] reserved (0)   4 address[16]
 *    20  mac[6]            26 u8 latest TTL      27 u8 number of services
 *    28  u16 SYN window    30 u16 reserved (0)
 *    32  u64 packets       40 u64 bytes
 *    48  u64 age_us        56 u64 idle_us
 *    64  str8 OS hint, str8 fingerprint (u8 length, then bytes)
 *    then per service: u8 proto, u8 role (1 server, 2 client), u16 port,
 *        str8 application */
#include "monitor.h"

#include <errno.h>
#include <string.h>

#include "state.h"
#include "util.h"

void
monitor_flow_encode(const void *m OVS_UNUSED, const struct flow *f,
                    struct wbuf *out)
{
    const struct mon_flow *mf = (const struct mon_flow *) f->data;

    wbuf_put_u8(out, mf->tcp_flags);
    wbuf_put_u8(out, mf->inspected);
    wbuf_put_be16(out, 0);
}

int
monitor_flow_decode(void *m OVS_UNUSED, const struct flow_key *key OVS_UNUSED,
                    struct rbuf *r, void *data)
{
    uint8_t flags = rbuf_u8(r);
    uint8_t inspected = rbuf_u8(r);
    uint16_t reserved = rbuf_be16(r);

    if (!rbuf_ok(r) || reserved) {
        return EINVAL;
    }
    if (data) {
        struct mon_flow *mf = data;
        mf->tcp_flags = flags;
        mf->inspected = inspected;
    }
    return 0;
}

static void
encode_asset(const struct flow *f, uint64_t now, struct wbuf *out)
{
    const struct mon_asset *a = (const struct mon_asset *) f->data;

    wbuf_put_u8(out, f->key.family);
    wbuf_put(out, "\0\0\0", 3);
    wbuf_put(out, f->key.src, 16);
    wbuf_put(out, a->mac, 6);
    wbuf_put_u8(out, a->ttl);
    wbuf_put_u8(out, a->n_services);
    wbuf_put_be16(out, a->syn_window);
    wbuf_put_be16(out, 0);
    wbuf_put_be64(out, f->packets);
    wbuf_put_be64(out, f->bytes);
    wbuf_put_be64(out, state_us_since(f->first_ns, now));
    wbuf_put_be64(out, state_us_since(f->last_ns, now));
    wbuf_put_str8(out, a->os);
    wbuf_put_str8(out, a->fingerprint);
    for (size_t i = 0; i < a->n_services; i++) {
        const struct mon_service *s = &a->services[i];
        wbuf_put_u8(out, s->proto);
        wbuf_put_u8(out, s->role);
        wbuf_put_be16(out, s->port);
        wbuf_put_str8(out, s->app);
    }
}

void
monitor_records_encode(const void *m_, struct state_writer *w)
{
    const struct monitor *m = m_;
    uint64_t now = time_ns();

    for (const struct flow *f = flow_table_first(m->assets); f;
         f = flow_table_next(m->assets, f)) {
        state_record_begin(w, MONITOR_REC_ASSET);
        encode_asset(f, now, w->out);
        state_record_end(w);
    }
}

struct asset_record {
    struct flow_key key;
    uint64_t packets, bytes, age_us, idle_us;
    struct mon_asset asset;
};

static int
decode_asset(struct rbuf *r, struct asset_record *rec)
{
    struct mon_asset *a = &rec->asset;
    uint8_t family = rbuf_u8(r);
    const uint8_t *reserved = rbuf_get(r, 3);
    const uint8_t *addr = rbuf_get(r, 16);
    const uint8_t *mac = rbuf_get(r, 6);

    memset(rec, 0, sizeof *rec);
    a->ttl = rbuf_u8(r);
    a->n_services = rbuf_u8(r);
    a->syn_window = rbuf_be16(r);
    uint16_t reserved2 = rbuf_be16(r);
    rec->packets = rbuf_be64(r);
    rec->bytes = rbuf_be64(r);
    rec->age_us = rbuf_be64(r);
    rec->idle_us = rbuf_be64(r);
    rbuf_str8(r, a->os, sizeof a->os);
    rbuf_str8(r, a->fingerprint, sizeof a->fingerprint);
    if (!rbuf_ok(r) || (family != 4 && family != 6) || reserved[0]
        || reserved[1] || reserved[2] || reserved2
        || a->n_services > MON_MAX_SERVICES || rec->idle_us > rec->age_us) {
        return EINVAL;
    }
    mon_asset_key(family, addr, &rec->key);
    memcpy(a->mac, mac, 6);
    for (size_t i = 0; i < a->n_services; i++) {
        struct mon_service *s = &a->services[i];
        s->proto = rbuf_u8(r);
        s->role = rbuf_u8(r);
        s->port = rbuf_be16(r);
        rbuf_str8(r, s->app, sizeof s->app);
        if (s->role != MON_SERVER && s->role != MON_CLIENT) {
            return EINVAL;
        }
    }
    return rbuf_ok(r) && !rbuf_remaining(r) ? 0 : EINVAL;
}

int
monitor_record_decode(void *m_, uint16_t type, struct rbuf *r, bool apply)
{
    struct monitor *m = m_;
    struct asset_record rec;
    struct flow *f;

    if (type != MONITOR_REC_ASSET || decode_asset(r, &rec)) {
        return EINVAL;
    }
    if (!apply) {
        return 0;
    }
    uint64_t now = time_ns();
    int error = flow_table_insert(m->assets, &rec.key, now, &f);
    if (error == ENOSPC) {
        m->counters[MON_ASSET_TABLE_FULL]++;
        return 0;               /* Validated: losing an asset is not fatal. */
    }
    memcpy(f->data, &rec.asset, sizeof rec.asset);
    f->packets = rec.packets;
    f->bytes = rec.bytes;
    flow_table_set_times(m->assets, f, state_ns_ago(now, rec.age_us),
                         state_ns_ago(now, rec.idle_us));
    return 0;
}

void
monitor_records_clear(void *m_)
{
    struct monitor *m = m_;
    struct flow *f = flow_table_first(m->assets);

    while (f) {
        struct flow *next = flow_table_next(m->assets, f);
        flow_table_remove(m->assets, f);
        f = next;
    }
}
