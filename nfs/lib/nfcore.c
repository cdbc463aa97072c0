/* nfcore.c -- parsing, flows, buffering and state around an NF's process(). */
#include "nfcore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "pktq.h"
#include "state.h"
#include "vlog.h"

struct nfcore {
    const struct nf_class *class;
    void *nf;
    struct nfcore_config cfg;
    nfcore_output_func *output;
    void *aux;
    struct flow_table *flows;   /* NULL for NF_RAW classes. */
    struct nfcore_counters counters;
    enum nfcore_hold hold;
    struct pktq held;
    struct nf_batch batch;      /* For released and injected packets. */
    uint64_t last_rx_ns;        /* When a packet was last received (or the
                                 * core created): 'stats' reports the idle
                                 * time, so a migration need not wait out a
                                 * quiet period that has already passed. */
};

void
nfcore_config_init(struct nfcore_config *cfg, const struct nf_class *class)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->max_flows = 1u << 20;
    cfg->flow_timeout_ns = 300ull * 1000000000ull;
    cfg->unparsed_drop = (class->flags & NF_UNPARSED_DROP) != 0;
    cfg->hold_packets = 1u << 20;
    cfg->hold_bytes = 512u << 20;
}

int
nfcore_create(const struct nf_class *class, const char *config,
              const struct nfcore_config *cfg, nfcore_output_func *output,
              void *aux, struct nfcore **corep, char *err, size_t errlen)
{
    struct nfcore *c = xzalloc(sizeof *c);
    int error;

    *corep = NULL;
    c->class = class;
    c->cfg = *cfg;
    c->output = output;
    c->aux = aux;
    c->last_rx_ns = time_ns();
    error = pktq_init(&c->held, cfg->hold_packets, cfg->hold_bytes);
    if (error) {
        snprintf(err, errlen, "cannot reserve %zu bytes for buffering: %s",
                 cfg->hold_bytes, strerror(error));
        free(c);
        return error;
    }
    error = class->create(config, &c->nf, err, errlen);
    if (error) {
        pktq_uninit(&c->held);
        free(c);
        return error;
    }
    if (!(class->flags & NF_RAW)) {
        c->flows = flow_table_create(cfg->max_flows, class->flow_data_size);
    }
    *corep = c;
    return 0;
}

static void
remove_flow(struct nfcore *c, struct flow *f)
{
    if (c->class->flow_release) {
        c->class->flow_release(c->nf, f);
    }
    flow_table_remove(c->flows, f);
}

static void
remove_all_flows(struct nfcore *c)
{
    struct flow *f = flow_table_first(c->flows);
    while (f) {
        struct flow *next = flow_table_next(c->flows, f);
        remove_flow(c, f);
        f = next;
    }
}

void
nfcore_destroy(struct nfcore *c)
{
    if (!c) {
        return;
    }
    if (c->flows) {
        remove_all_flows(c);
        flow_table_destroy(c->flows);
    }
    c->class->destroy(c->nf);
    pktq_uninit(&c->held);
    free(c);
}

const struct nf_class *
nfcore_class(const struct nfcore *c)
{
    return c->class;
}

const struct nfcore_counters *
nfcore_counters(const struct nfcore *c)
{
    return &c->counters;
}

size_t
nfcore_flow_count(const struct nfcore *c)
{
    return c->flows ? flow_table_count(c->flows) : 0;
}

/* The flow table key of 'p'. */
static void
lookup_key(struct nfcore *c, struct nf_pkt *p, struct flow_key *key)
{
    if (c->class->flow_key) {
        c->class->flow_key(c->nf, p, key);
    } else {
        *key = p->info.key;
        if (c->class->flags & NF_BIDIR_FLOWS) {
            p->reversed = flow_key_canonicalize(key);
        }
    }
}

static void
classify(struct nfcore *c, struct nf_batch *b)
{
    static struct vlog_rl rl = VLOG_RL_INIT(5);

    for (size_t i = 0; i < b->n; i++) {
        struct nf_pkt *p = &b->pkts[i];

        p->verdict = NF_PASS;
        p->flow = NULL;
        p->reversed = false;
        p->out_port = c->cfg.two_port ? !p->port : p->port;
        if (c->class->flags & NF_RAW) {
            p->parsed = true;
            continue;
        }
        int error = pkt_parse(p->data, p->len, &p->info);
        p->parsed = !error;
        if (error) {
            c->counters.unparsed++;
            if (c->cfg.unparsed_drop) {
                p->verdict = NF_DROP;
                c->counters.unparsed_drop++;
            }
            continue;
        }

        struct flow_key key;
        lookup_key(c, p, &key);
        struct flow *f = flow_table_lookup(c->flows, &key);
        if (!f) {
            if (c->class->flow_admit && !c->class->flow_admit(c->nf, p)) {
                continue;
            }
            if (flow_table_insert(c->flows, &key, b->now_ns, &f)) {
                c->counters.flow_table_full++;
                VLOG_WARN_RL(&rl, "flow table full (%zu flows)",
                             flow_table_max(c->flows));
                continue;
            }
            c->counters.flows_created++;
        }
        flow_table_touch(c->flows, f, p->len, b->now_ns);
        p->flow = f;
    }
}

/* Processes a batch and hands it to the output. */
static void
process_batch(struct nfcore *c, struct nf_batch *b)
{
    b->now_ns = time_ns();
    classify(c, b);
    c->class->process(b, c->nf);
    for (size_t i = 0; i < b->n; i++) {
        if (b->pkts[i].verdict == NF_PASS) {
            c->counters.forwarded++;
        } else if (b->pkts[i].parsed) {
            c->counters.nf_drop++;
        }
    }
    c->counters.processed += b->n;
    c->output(c->aux, b);
}

void
nfcore_receive(struct nfcore *c, struct nf_batch *b)
{
    static struct vlog_rl rl = VLOG_RL_INIT(5);

    c->counters.rx += b->n;
    c->last_rx_ns = time_ns();
    if (c->hold == NFCORE_PROCESSING) {
        process_batch(c, b);
        return;
    }
    for (size_t i = 0; i < b->n; i++) {
        struct nf_pkt *p = &b->pkts[i];
        if (pktq_push(&c->held, p->data, p->len, p->port)) {
            c->counters.held++;
        } else {
            c->counters.hold_drop++;
            VLOG_WARN_RL(&rl, "buffer full (%zu packets, %llu bytes held):"
                         " dropping", c->held.count,
                         (unsigned long long) c->held.bytes);
        }
    }
}

void
nfcore_expire(struct nfcore *c, uint64_t now_ns, size_t max)
{
    if (!c->flows || !c->cfg.flow_timeout_ns
        || c->hold != NFCORE_PROCESSING) {
        return;
    }
    for (size_t i = 0; i < max; i++) {
        struct flow *f = flow_table_first(c->flows);
        if (!f || f->last_ns + c->cfg.flow_timeout_ns > now_ns) {
            break;
        }
        remove_flow(c, f);
        c->counters.flows_expired++;
    }
}

enum nfcore_hold
nfcore_hold_state(const struct nfcore *c)
{
    return c->hold;
}

size_t
nfcore_held(const struct nfcore *c)
{
    return c->held.count;
}

uint64_t
nfcore_held_bytes(const struct nfcore *c)
{
    return c->held.bytes;
}

void
nfcore_buffer_start(struct nfcore *c)
{
    c->hold = NFCORE_HOLDING;
}

static void
pktlist_put(struct wbuf *out, uint8_t port, const uint8_t *data, uint32_t len)
{
    uint8_t *h = wbuf_put_uninit(out, PKTLIST_HDR_LEN);
    h[0] = port;
    h[1] = h[2] = h[3] = 0;
    put_be32(h + 4, len);
    wbuf_put(out, data, len);
}

size_t
nfcore_buffer_take(struct nfcore *c, struct wbuf *out, size_t max_bytes)
{
    struct pktq_iter it;
    uint8_t *data;
    uint32_t len;
    uint8_t port;
    size_t n = 0, bytes = 0;

    pktq_iter_init(&c->held, &it);
    while (pktq_iter_next(&c->held, &it, &data, &len, &port)) {
        if (n && bytes + PKTLIST_HDR_LEN + len > max_bytes) {
            break;
        }
        pktlist_put(out, port, data, len);
        bytes += PKTLIST_HDR_LEN + len;
        n++;
    }
    pktq_pop(&c->held, n);
    c->counters.taken += n;
    return n;
}

size_t
nfcore_buffer_release(struct nfcore *c)
{
    c->hold = c->held.count ? NFCORE_RELEASING : NFCORE_PROCESSING;
    return c->held.count;
}

bool
nfcore_release_step(struct nfcore *c, size_t max)
{
    size_t done = 0;

    if (c->hold == NFCORE_RELEASING && !c->held.count) {
        c->hold = NFCORE_PROCESSING;    /* Taken away meanwhile. */
    }
    while (c->hold == NFCORE_RELEASING && done < max) {
        struct nf_batch *b = &c->batch;
        struct pktq_iter it;
        size_t n = MIN(max - done, (size_t) NF_BATCH_MAX);

        pktq_iter_init(&c->held, &it);
        for (b->n = 0; b->n < n; b->n++) {
            struct nf_pkt *p = &b->pkts[b->n];
            if (!pktq_iter_next(&c->held, &it, &p->data, &p->len, &p->port)) {
                break;
            }
        }
        process_batch(c, b);
        pktq_pop(&c->held, b->n);
        c->counters.released += b->n;
        done += b->n;
        if (!c->held.count) {
            c->hold = NFCORE_PROCESSING;
        }
    }
    return c->hold == NFCORE_RELEASING;
}

int
nfcore_inject(struct nfcore *c, uint8_t *list, size_t len, size_t *n,
              char *err, size_t errlen)
{
    uint8_t n_ports = c->cfg.two_port ? 2 : 1;
    size_t count = 0;

    *n = 0;
    for (size_t ofs = 0; ofs < len; count++) {
        const uint8_t *h = list + ofs;
        if (len - ofs < PKTLIST_HDR_LEN) {
            snprintf(err, errlen, "packet %zu: truncated header", count);
            return EINVAL;
        }
        uint32_t plen = get_be32(h + 4);
        if (h[0] >= n_ports || h[1] || h[2] || h[3]) {
            snprintf(err, errlen, "packet %zu: bad port or reserved bytes",
                     count);
            return EINVAL;
        }
        if (!plen || plen > UINT16_MAX
            || plen > len - ofs - PKTLIST_HDR_LEN) {
            snprintf(err, errlen, "packet %zu: bad length %u", count, plen);
            return EINVAL;
        }
        ofs += PKTLIST_HDR_LEN + plen;
    }

    struct nf_batch *b = &c->batch;
    b->n = 0;
    for (size_t ofs = 0; ofs < len;) {
        struct nf_pkt *p = &b->pkts[b->n++];
        p->port = list[ofs];
        p->len = get_be32(list + ofs + 4);
        p->data = list + ofs + PKTLIST_HDR_LEN;
        ofs += PKTLIST_HDR_LEN + p->len;
        if (b->n == NF_BATCH_MAX || ofs == len) {
            process_batch(c, b);
            b->n = 0;
        }
    }
    c->counters.injected += count;
    *n = count;
    return 0;
}

/* Finds the flow of 'key' in either direction. */
static struct flow *
find_flow(const struct nfcore *c, const struct flow_key *key)
{
    struct flow *f = flow_table_lookup(c->flows, key);
    if (!f) {
        struct flow_key rev = *key;
        flow_key_reverse(&rev);
        f = flow_table_lookup(c->flows, &rev);
    }
    return f;
}

static bool
selected(const struct flow_selector *sel, const struct flow *f)
{
    return sel->kind == FLOWS_ALL
           || (sel->kind == FLOWS_MATCH
               && flow_match_key(&sel->match, &f->key));
}

static void
encode_flow(struct nfcore *c, struct state_writer *w, const struct flow *f,
            uint64_t now)
{
    state_record_begin(w, STATE_REC_FLOW);
    state_flow_encode(w->out, f, now);
    c->class->flow_encode(c->nf, f, w->out);
    state_record_end(w);
}

size_t
nfcore_state_get(struct nfcore *c, const struct flow_selector *sel,
                 struct wbuf *out)
{
    struct state_writer w;
    uint64_t now = time_ns();
    size_t n = 0;

    state_writer_begin(&w, out, c->class->state_kind,
                       c->class->state_version);
    if (c->flows && sel->kind == FLOWS_ONE) {
        struct flow *f = find_flow(c, &sel->key);
        if (f) {
            encode_flow(c, &w, f, now);
            n++;
        }
    } else if (c->flows) {
        wbuf_reserve(out, flow_table_count(c->flows)
                     * (STATE_REC_HDR_LEN + STATE_FLOW_LEN
                        + c->class->flow_data_size));
        for (struct flow *f = flow_table_first(c->flows); f;
             f = flow_table_next(c->flows, f)) {
            if (selected(sel, f)) {
                encode_flow(c, &w, f, now);
                n++;
            }
        }
    }
    if (sel->kind == FLOWS_ALL && c->class->records_encode) {
        c->class->records_encode(c->nf, &w);
    }
    state_writer_end(&w);
    return n;
}

/* Reads a flow record: generic part, then the NF's data into 'data' (or
 * only validates it if 'data' is NULL). */
static int
decode_flow(struct nfcore *c, struct rbuf *r, struct state_flow *sf,
            void *data)
{
    if (state_flow_decode(r, sf)
        || c->class->flow_decode(c->nf, &sf->key, r, data)
        || rbuf_remaining(r)) {
        return EINVAL;
    }
    if (c->class->flags & NF_BIDIR_FLOWS) {
        struct flow_key canon = sf->key;
        if (flow_key_canonicalize(&canon)) {
            return EINVAL;      /* Such keys are stored canonical. */
        }
    }
    return 0;
}

/* First pass of an import: checks every record and that the flows fit. */
static int
validate_state(struct nfcore *c, const uint8_t *blob, size_t len,
               bool replace, char *err, size_t errlen)
{
    struct state_reader sr;
    uint16_t type;
    struct rbuf r;
    size_t new_flows = 0;
    int error;

    error = state_reader_init(&sr, blob, len, c->class->state_kind,
                              c->class->state_version, err, errlen);
    if (error) {
        return error;
    }
    for (uint32_t i = 0; !(error = state_reader_next(&sr, &type, &r)); i++) {
        if (type == STATE_REC_FLOW) {
            struct state_flow sf;
            if (!c->flows || decode_flow(c, &r, &sf, NULL)) {
                snprintf(err, errlen, "record %u: bad flow", i);
                return EINVAL;
            }
            if (replace || !flow_table_lookup(c->flows, &sf.key)) {
                new_flows++;
            }
        } else if (type < STATE_REC_NF || !c->class->record_decode
                   || c->class->record_decode(c->nf, type, &r, false)) {
            snprintf(err, errlen, "record %u: bad record of type %#x",
                     i, type);
            return EINVAL;
        }
    }
    if (error != ENOENT) {
        snprintf(err, errlen, "malformed record framing");
        return EINVAL;
    }
    size_t room = c->flows ? flow_table_max(c->flows)
                             - (replace ? 0 : flow_table_count(c->flows)) : 0;
    if (new_flows > room) {
        snprintf(err, errlen, "%zu new flows do not fit (room for %zu)",
                 new_flows, room);
        return ENOSPC;
    }
    return 0;
}

int
nfcore_state_put(struct nfcore *c, const uint8_t *blob, size_t len,
                 bool replace, size_t *n_flows, char *err, size_t errlen)
{
    struct state_reader sr;
    uint16_t type;
    struct rbuf r;
    uint64_t now = time_ns();
    int error;

    *n_flows = 0;
    error = validate_state(c, blob, len, replace, err, errlen);
    if (error) {
        return error;
    }
    if (replace) {
        if (c->flows) {
            remove_all_flows(c);
        }
        if (c->class->records_clear) {
            c->class->records_clear(c->nf);
        }
    }

    state_reader_init(&sr, blob, len, c->class->state_kind,
                      c->class->state_version, err, errlen);
    while (!state_reader_next(&sr, &type, &r)) {
        if (type != STATE_REC_FLOW) {
            c->class->record_decode(c->nf, type, &r, true);
            continue;
        }

        struct state_flow sf;
        struct rbuf copy = r;
        struct flow *f;
        state_flow_decode(&copy, &sf);
        if (flow_table_insert(c->flows, &sf.key, now, &f) == EEXIST) {
            if (c->class->flow_release) {
                c->class->flow_release(c->nf, f);
            }
            memset(f->data, 0, c->class->flow_data_size);
        }
        decode_flow(c, &r, &sf, f->data);
        f->packets = sf.packets;
        f->bytes = sf.bytes;
        flow_table_set_times(c->flows, f, state_ns_ago(now, sf.age_us),
                             state_ns_ago(now, sf.idle_us));
        (*n_flows)++;
    }
    return 0;
}

size_t
nfcore_state_delete(struct nfcore *c, const struct flow_selector *sel)
{
    size_t n = 0;

    if (!c->flows) {
        return 0;
    }
    if (sel->kind == FLOWS_ONE) {
        struct flow *f = find_flow(c, &sel->key);
        if (f) {
            remove_flow(c, f);
            n++;
        }
        return n;
    }
    struct flow *f = flow_table_first(c->flows);
    while (f) {
        struct flow *next = flow_table_next(c->flows, f);
        if (selected(sel, f)) {
            remove_flow(c, f);
            n++;
        }
        f = next;
    }
    if (sel->kind == FLOWS_ALL && c->class->records_clear) {
        c->class->records_clear(c->nf);
    }
    return n;
}

void
nfcore_stats_json(const struct nfcore *c, struct json *j)
{
    const struct nfcore_counters *k = &c->counters;

    json_str(j, "nf", c->class->name);
    json_u64(j, "rx", k->rx);
    json_u64(j, "idle_us", (time_ns() - c->last_rx_ns) / 1000);
    json_u64(j, "injected", k->injected);
    json_u64(j, "processed", k->processed);
    json_u64(j, "forwarded", k->forwarded);
    json_u64(j, "nf_drop", k->nf_drop);
    json_u64(j, "unparsed", k->unparsed);
    json_u64(j, "unparsed_drop", k->unparsed_drop);
    json_u64(j, "flows", nfcore_flow_count(c));
    json_u64(j, "flows_created", k->flows_created);
    json_u64(j, "flows_expired", k->flows_expired);
    json_u64(j, "flow_table_full", k->flow_table_full);
    static const char *const hold_names[] = {
        [NFCORE_PROCESSING] = "off",
        [NFCORE_HOLDING] = "holding",
        [NFCORE_RELEASING] = "releasing",
    };
    json_bool(j, "buffering", c->hold == NFCORE_HOLDING);
    json_str(j, "buffer_state", hold_names[c->hold]);
    json_u64(j, "buffered", c->held.count);
    json_u64(j, "buffered_bytes", c->held.bytes);
    json_u64(j, "held", k->held);
    json_u64(j, "hold_drop", k->hold_drop);
    json_u64(j, "released", k->released);
    json_u64(j, "taken", k->taken);

    const uint64_t *values = (const uint64_t *) (const void *)
        ((const char *) c->nf + c->class->counters_offset);
    json_obj_open(j, "counters");
    for (size_t i = 0; i < c->class->n_counters; i++) {
        json_u64(j, c->class->counter_names[i], values[i]);
    }
    json_obj_close(j);
}

static void
flow_json(const struct flow *f, struct json *j)
{
    char addr[64];

    json_obj_open(j, NULL);
    json_u64(j, "proto", f->key.proto);
    ip_addr_format(f->key.family, f->key.src, addr, sizeof addr);
    json_str(j, "src", addr);
    json_u64(j, "sport", f->key.sport);
    ip_addr_format(f->key.family, f->key.dst, addr, sizeof addr);
    json_str(j, "dst", addr);
    json_u64(j, "dport", f->key.dport);
    json_u64(j, "packets", f->packets);
    json_u64(j, "bytes", f->bytes);
    json_obj_close(j);
}

void
nfcore_flows_json(const struct nfcore *c, const struct flow_selector *sel,
                  struct json *j)
{
    json_arr_open(j, NULL);
    if (c->flows && sel->kind == FLOWS_ONE) {
        const struct flow *f = find_flow(c, &sel->key);
        if (f) {
            flow_json(f, j);
        }
    } else if (c->flows) {
        for (const struct flow *f = flow_table_first(c->flows); f;
             f = flow_table_next(c->flows, f)) {
            if (selected(sel, f)) {
                flow_json(f, j);
            }
        }
    }
    json_arr_close(j);
}

int
nfcore_nf_command(struct nfcore *c, int argc, char *argv[],
                  struct wbuf *body, char *err, size_t errlen)
{
    if (!c->class->command) {
        return ENOENT;
    }
    return c->class->command(c->nf, argc, argv, body, err, errlen);
}
