/* state.c -- the versioned binary envelope of exported NF state. */
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void
state_writer_begin(struct state_writer *w, struct wbuf *out, uint16_t kind,
                   uint16_t nf_version)
{
    w->out = out;
    w->start = out->len;
    w->count = 0;
    wbuf_put(out, STATE_MAGIC, 4);
    wbuf_put_be16(out, STATE_FORMAT_VERSION);
    wbuf_put_be16(out, kind);
    wbuf_put_be16(out, nf_version);
    wbuf_put_be16(out, 0);
    wbuf_put_be32(out, 0);      /* Count, patched by state_writer_end(). */
}

void
state_record_begin(struct state_writer *w, uint16_t type)
{
    w->record = w->out->len;
    wbuf_put_be16(w->out, type);
    wbuf_put_be16(w->out, 0);
    wbuf_put_be32(w->out, 0);   /* Length, patched by state_record_end(). */
}

void
state_record_end(struct state_writer *w)
{
    size_t len = w->out->len - w->record - STATE_REC_HDR_LEN;
    put_be32(w->out->data + w->record + 4, (uint32_t) len);
    w->count++;
}

void
state_writer_end(struct state_writer *w)
{
    put_be32(w->out->data + w->start + 12, w->count);
}

uint64_t
state_us_since(uint64_t then_ns, uint64_t now_ns)
{
    return now_ns > then_ns ? (now_ns - then_ns) / 1000 : 0;
}

uint64_t
state_ns_ago(uint64_t now_ns, uint64_t us)
{
    uint64_t ns = us < UINT64_MAX / 1000 ? us * 1000 : UINT64_MAX;
    return ns < now_ns ? now_ns - ns : 0;
}

void
state_flow_encode(struct wbuf *out, const struct flow *f, uint64_t now_ns)
{
    const struct flow_key *k = &f->key;
    uint8_t *p = wbuf_put_uninit(out, STATE_FLOW_LEN);

    p[0] = k->family;
    p[1] = k->proto;
    put_be16(p + 2, k->sport);
    put_be16(p + 4, k->dport);
    put_be16(p + 6, 0);
    memcpy(p + 8, k->src, 16);
    memcpy(p + 24, k->dst, 16);
    put_be64(p + 40, f->packets);
    put_be64(p + 48, f->bytes);
    put_be64(p + 56, state_us_since(f->first_ns, now_ns));
    put_be64(p + 64, state_us_since(f->last_ns, now_ns));
}

static bool
is_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i]) {
            return false;
        }
    }
    return true;
}

int
state_flow_decode(struct rbuf *r, struct state_flow *sf)
{
    const uint8_t *p = rbuf_get(r, STATE_FLOW_LEN);
    if (!p) {
        return EINVAL;
    }

    struct flow_key *k = &sf->key;
    memset(k, 0, sizeof *k);
    k->family = p[0];
    k->proto = p[1];
    k->sport = get_be16(p + 2);
    k->dport = get_be16(p + 4);
    memcpy(k->src, p + 8, 16);
    memcpy(k->dst, p + 24, 16);
    sf->packets = get_be64(p + 40);
    sf->bytes = get_be64(p + 48);
    sf->age_us = get_be64(p + 56);
    sf->idle_us = get_be64(p + 64);

    if ((k->family != 4 && k->family != 6) || get_be16(p + 6)
        || (k->family == 4
            && (!is_zero(k->src + 4, 12) || !is_zero(k->dst + 4, 12)))
        || sf->idle_us > sf->age_us) {
        return EINVAL;
    }
    return 0;
}

int
state_reader_init(struct state_reader *sr, const uint8_t *data, size_t len,
                  uint16_t kind, uint16_t max_nf_version,
                  char *err, size_t errlen)
{
    rbuf_init(&sr->r, data, len);
    const uint8_t *h = rbuf_get(&sr->r, STATE_HDR_LEN);
    if (!h || memcmp(h, STATE_MAGIC, 4)) {
        snprintf(err, errlen, "not a state blob (bad magic)");
        return EINVAL;
    }
    uint16_t format = get_be16(h + 4);
    sr->kind = get_be16(h + 6);
    sr->nf_version = get_be16(h + 8);
    sr->count = sr->left = get_be32(h + 12);
    if (format != STATE_FORMAT_VERSION) {
        snprintf(err, errlen, "state format version %u, expected %u",
                 format, STATE_FORMAT_VERSION);
        return EINVAL;
    }
    if (sr->kind != kind) {
        snprintf(err, errlen, "state of NF kind %u, expected %u",
                 sr->kind, kind);
        return EINVAL;
    }
    if (sr->nf_version > max_nf_version || !sr->nf_version) {
        snprintf(err, errlen, "NF state version %u, supported 1..%u",
                 sr->nf_version, max_nf_version);
        return EINVAL;
    }
    if (get_be16(h + 10)) {
        snprintf(err, errlen, "reserved header field is not zero");
        return EINVAL;
    }
    return 0;
}

int
state_reader_next(struct state_reader *sr, uint16_t *type,
                  struct rbuf *payload)
{
    if (!sr->left) {
        return rbuf_remaining(&sr->r) ? EINVAL : ENOENT;
    }
    const uint8_t *h = rbuf_get(&sr->r, STATE_REC_HDR_LEN);
    if (!h || get_be16(h + 2)) {
        return EINVAL;
    }
    uint32_t len = get_be32(h + 4);
    const uint8_t *p = rbuf_get(&sr->r, len);
    if (!p) {
        return EINVAL;
    }
    *type = get_be16(h);
    rbuf_init(payload, p, len);
    sr->left--;
    return 0;
}
