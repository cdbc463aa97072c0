/* Unit tests of the NF core and the control commands, with real NFs. */
#include "nfcore.h"

#include <errno.h>

#include "frames.h"
#include "l2fw/l2fw.h"
#include "l7fw/l7fw.h"
#include "monitor/monitor.h"
#include "nat/nat.h"
#include "nfctl.h"
#include "secgw/secgw.h"
#include "state.h"
#include "unit.h"

/* What the core sends out: copies of the forwarded frames. */
struct capture {
    size_t n;
    uint8_t port[4096];
    uint32_t len[4096];
    uint8_t data[4096][128];
};

static void
capture_output(void *aux, struct nf_batch *b)
{
    struct capture *cap = aux;

    for (size_t i = 0; i < b->n; i++) {
        const struct nf_pkt *p = &b->pkts[i];
        if (p->verdict == NF_PASS && cap->n < ARRAY_SIZE(cap->len)) {
            cap->port[cap->n] = p->out_port;
            cap->len[cap->n] = p->len;
            memcpy(cap->data[cap->n], p->data, MIN(p->len, 128u));
            cap->n++;
        }
    }
}

static struct nfcore *
make_core(const struct nf_class *class, const char *config,
          struct capture *cap, struct nfcore_config *cfg)
{
    struct nfcore_config defaults;
    struct nfcore *core;
    char err[256];
    const char *path = config ? unit_temp_file(config) : NULL;

    if (!cfg) {
        nfcore_config_init(&defaults, class);
        defaults.hold_bytes = 1 << 20;
        cfg = &defaults;
    }
    memset(cap, 0, sizeof *cap);
    int error = nfcore_create(class, path, cfg, capture_output, cap, &core,
                              err, sizeof err);
    if (path) {
        unlink(path);
    }
    if (error) {
        fprintf(stderr, "nfcore_create(%s): %s\n", class->name, err);
        exit(2);
    }
    return core;
}

/* Receives 'n' UDP frames numbered from 'first' (source port 1000 + i %
 * 10, the number in the payload). */
static void
receive_udp(struct nfcore *core, uint32_t first, size_t n)
{
    static struct nf_batch b;
    static uint8_t frames[NF_BATCH_MAX][128];

    for (size_t done = 0; done < n;) {
        b.n = MIN(n - done, (size_t) NF_BATCH_MAX);
        for (size_t i = 0; i < b.n; i++) {
            uint32_t num = first + (uint32_t) (done + i);
            uint8_t payload[4];
            put_be32(payload, num);
            b.pkts[i].data = frames[i];
            b.pkts[i].len = (uint32_t) frame_ipv4(
                frames[i], IPPROTO_UDP, "10.0.0.1", "10.0.0.2",
                (uint16_t) (1000 + num % 10), 53, 0, payload, 4);
            b.pkts[i].port = 0;
        }
        nfcore_receive(core, &b);
        done += b.n;
    }
}

static uint32_t
number(const struct capture *cap, size_t i)
{
    return get_be32(cap->data[i] + ETH_HDR_LEN + 28);
}

static void
test_buffering_keeps_order(void)
{
    struct capture cap;
    struct nfcore *core = make_core(&monitor_class, NULL, &cap, NULL);

    receive_udp(core, 0, 10);
    CHECK_EQ(cap.n, 10);
    nfcore_buffer_start(core);
    receive_udp(core, 10, 700);
    CHECK_EQ(cap.n, 10);
    CHECK_EQ(nfcore_held(core), 700);
    nfcore_expire(core, UINT64_MAX, 100);       /* Not while buffering. */
    CHECK_EQ(nfcore_flow_count(core), 10);
    CHECK_EQ(nfcore_buffer_release(core), 700);
    CHECK_EQ(nfcore_hold_state(core), NFCORE_RELEASING);
    CHECK(nfcore_release_step(core, 300));
    CHECK_EQ(cap.n, 310);
    receive_udp(core, 710, 5);                  /* Held behind the rest. */
    CHECK_EQ(cap.n, 310);
    CHECK(!nfcore_release_step(core, SIZE_MAX));
    CHECK_EQ(cap.n, 715);
    for (size_t i = 0; i < cap.n; i++) {
        CHECK_EQ(number(&cap, i), i);
    }
    CHECK_EQ(nfcore_hold_state(core), NFCORE_PROCESSING);
    const struct nfcore_counters *k = nfcore_counters(core);
    CHECK_EQ(k->rx, 715);
    CHECK_EQ(k->held, 705);
    CHECK_EQ(k->released, 705);
    CHECK_EQ(k->processed, 715);
    nfcore_expire(core, UINT64_MAX, 100);
    CHECK_EQ(nfcore_flow_count(core), 0);
    nfcore_destroy(core);
}

static void
test_take_and_inject(void)
{
    struct capture cap, cap2;
    struct nfcore *old = make_core(&monitor_class, NULL, &cap, NULL);
    struct nfcore *new = make_core(&monitor_class, NULL, &cap2, NULL);
    struct wbuf list;
    char err[128];
    size_t n;

    nfcore_buffer_start(old);
    receive_udp(old, 0, 300);
    wbuf_init(&list, 0);
    CHECK_EQ(nfcore_buffer_take(old, &list, 100 * (8 + 46)), 100);
    CHECK_EQ(nfcore_held(old), 200);
    CHECK_EQ(nfcore_buffer_take(old, &list, SIZE_MAX), 200);
    CHECK_EQ(nfcore_held(old), 0);
    CHECK_EQ(nfcore_hold_state(old), NFCORE_HOLDING);

    CHECK_EQ(nfcore_inject(new, list.data, list.len, &n, err, sizeof err), 0);
    CHECK_EQ(n, 300);
    CHECK_EQ(cap2.n, 300);
    for (size_t i = 0; i < cap2.n; i++) {
        CHECK_EQ(number(&cap2, i), i);
    }

    /* Bad lists are refused whole. */
    uint8_t bad[64];
    memcpy(bad, list.data, sizeof bad);
    bad[0] = 1;                                  /* Port 1, one port. */
    CHECK_EQ(nfcore_inject(new, bad, sizeof bad, &n, err, sizeof err), EINVAL);
    memcpy(bad, list.data, sizeof bad);
    put_be32(bad + 4, 0);
    CHECK_EQ(nfcore_inject(new, bad, sizeof bad, &n, err, sizeof err), EINVAL);
    CHECK_EQ(nfcore_inject(new, list.data, list.len - 1, &n, err, sizeof err),
             EINVAL);
    CHECK_EQ(cap2.n, 300);
    wbuf_uninit(&list);
    nfcore_destroy(old);
    nfcore_destroy(new);
}

/* Zeroes the relative times in a state blob so that two exports compare. */
static void
mask_times(struct wbuf *blob)
{
    size_t ofs = STATE_HDR_LEN;

    while (ofs + STATE_REC_HDR_LEN <= blob->len) {
        uint16_t type = get_be16(blob->data + ofs);
        uint32_t len = get_be32(blob->data + ofs + 4);
        uint8_t *p = blob->data + ofs + STATE_REC_HDR_LEN;
        if (type == STATE_REC_FLOW) {
            memset(p + 56, 0, 16);
        } else if (type == MONITOR_REC_ASSET && len >= 64) {
            memset(p + 48, 0, 16);
        }
        ofs += STATE_REC_HDR_LEN + len;
    }
}

static const char SECGW_CONF[] =
    "sa out spi 0x1000 key 0x000102030405060708090a0b0c0d0e0fa0a1a2a3 "
    "local 192.0.2.1 remote 192.0.2.2 src 10.0.0.0/8\n"
    "sa in spi 0x2000 key 0x000102030405060708090a0b0c0d0e0fa0a1a2a3 "
    "local 192.0.2.1 remote 192.0.2.2\n";

static void
round_trip(const struct nf_class *class, const char *config)
{
    struct capture cap, cap2;
    struct nfcore *a = make_core(class, config, &cap, NULL);
    struct nfcore *b = make_core(class, config, &cap2, NULL);
    struct flow_selector all = { .kind = FLOWS_ALL };
    struct wbuf one, two;
    char err[256];
    size_t n;

    receive_udp(a, 0, 100);
    wbuf_init(&one, 0);
    wbuf_init(&two, 0);
    size_t flows = nfcore_state_get(a, &all, &one);
    CHECK_EQ(nfcore_state_put(b, one.data, one.len, true, &n, err,
                              sizeof err), 0);
    CHECK_EQ(n, flows);
    nfcore_state_get(b, &all, &two);
    mask_times(&one);
    mask_times(&two);
    CHECK_EQ(one.len, two.len);
    CHECK(one.len == two.len && !memcmp(one.data, two.data, one.len));
    if (one.len != two.len || memcmp(one.data, two.data, one.len)) {
        fprintf(stderr, "round trip differs for %s\n", class->name);
    }
    wbuf_uninit(&one);
    wbuf_uninit(&two);
    nfcore_destroy(a);
    nfcore_destroy(b);
}

static void
test_round_trips(void)
{
    round_trip(&monitor_class, NULL);
    round_trip(&l2fw_class, "allow proto udp sport 1000-1004\n");
    round_trip(&l7fw_class, NULL);
    round_trip(&secgw_class, SECGW_CONF);
    round_trip(&nat_class, "external 203.0.113.1\ninternal 10.0.0.0/8\n");
}

static void
test_bad_import_changes_nothing(void)
{
    struct capture cap;
    struct nfcore *core = make_core(&monitor_class, NULL, &cap, NULL);
    struct flow_selector all = { .kind = FLOWS_ALL };
    struct wbuf blob, after;
    char err[256];
    size_t n;

    receive_udp(core, 0, 50);
    wbuf_init(&blob, 0);
    wbuf_init(&after, 0);
    nfcore_state_get(core, &all, &blob);
    /* Corrupt the family of the last flow record (10 flows, 1 asset). */
    size_t ofs = STATE_HDR_LEN;
    size_t last_flow = 0;
    while (ofs < blob.len) {
        if (get_be16(blob.data + ofs) == STATE_REC_FLOW) {
            last_flow = ofs;
        }
        ofs += STATE_REC_HDR_LEN + get_be32(blob.data + ofs + 4);
    }
    blob.data[last_flow + STATE_REC_HDR_LEN] = 5;
    CHECK_EQ(nfcore_state_put(core, blob.data, blob.len, true, &n, err,
                              sizeof err), EINVAL);
    CHECK(strstr(err, "bad flow") != NULL);
    CHECK_EQ(nfcore_flow_count(core), 10);

    /* Too many flows for the table. */
    struct capture cap2;
    struct nfcore_config cfg;
    nfcore_config_init(&cfg, &monitor_class);
    cfg.max_flows = 5;
    cfg.hold_bytes = 1 << 20;
    struct nfcore *small = make_core(&monitor_class, NULL, &cap2, &cfg);
    blob.data[last_flow + STATE_REC_HDR_LEN] = 4;
    CHECK_EQ(nfcore_state_put(small, blob.data, blob.len, false, &n, err,
                              sizeof err), ENOSPC);
    CHECK_EQ(nfcore_flow_count(small), 0);
    receive_udp(small, 0, 10);
    CHECK_EQ(nfcore_counters(small)->flow_table_full, 5);
    CHECK_EQ(cap2.n, 10);               /* Still forwarded. */
    wbuf_uninit(&blob);
    wbuf_uninit(&after);
    nfcore_destroy(core);
    nfcore_destroy(small);
}

/* Sends 'line' (and 'body') through the control commands; returns the
 * reply's status line in 'status' and its body length. */
/* A status line "ok COUNT USEC": the count as expected, then a time. */
static bool
timed_ok(const char *status, const char *prefix)
{
    size_t n = strlen(prefix);
    return !strncmp(status, prefix, n) && status[n] >= '0' && status[n] <= '9';
}

static size_t
ctl(const struct nfctl *c, const char *line, const void *body, size_t len,
    char *status, size_t size, struct wbuf *reply)
{
    struct wbuf req;
    wbuf_init(&req, 0);
    wbuf_put_cstr(&req, line);
    if (body) {
        wbuf_put_u8(&req, '\n');
        wbuf_put(&req, body, len);
    }
    wbuf_clear(reply);
    nfctl_execute(c, req.data, req.len, reply);
    wbuf_uninit(&req);
    uint8_t *nl = memchr(reply->data, '\n', reply->len);
    size_t n = nl ? (size_t) (nl - reply->data) : reply->len;
    snprintf(status, size, "%.*s", (int) n, (const char *) reply->data);
    return nl ? reply->len - n - 1 : 0;
}

static void
test_control_commands(void)
{
    struct capture cap;
    struct nfcore *core = make_core(&monitor_class, NULL, &cap, NULL);
    struct nfctl c = { core, NULL, NULL };
    struct wbuf reply, blob;
    char status[256];

    wbuf_init(&reply, 0);
    wbuf_init(&blob, 0);
    receive_udp(core, 0, 20);
    ctl(&c, "ping", NULL, 0, status, sizeof status, &reply);
    CHECK(!strcmp(status, "ok pong"));
    ctl(&c, "", NULL, 0, status, sizeof status, &reply);
    CHECK(!strncmp(status, "error EINVAL", 12));
    ctl(&c, "frob", NULL, 0, status, sizeof status, &reply);
    CHECK(!strcmp(status, "error ENOENT unknown command 'frob'"));
    ctl(&c, "state get flow udp 10.0.0.1 1003 10.0.0.2 53", NULL, 0, status,
        sizeof status, &reply);
    CHECK(timed_ok(status, "ok 1 "));
    ctl(&c, "state get match sport 1000-1004", NULL, 0, status,
        sizeof status, &reply);
    CHECK(timed_ok(status, "ok 5 "));
    size_t body = ctl(&c, "state get", NULL, 0, status, sizeof status,
                      &reply);
    CHECK(timed_ok(status, "ok 10 "));
    wbuf_put(&blob, reply.data + reply.len - body, body);
    ctl(&c, "state delete", NULL, 0, status, sizeof status, &reply);
    CHECK(!strncmp(status, "error EINVAL", 12));
    ctl(&c, "state delete all", NULL, 0, status, sizeof status, &reply);
    CHECK(!strcmp(status, "ok 10"));
    ctl(&c, "state put", blob.data, blob.len, status, sizeof status, &reply);
    CHECK(timed_ok(status, "ok 10 "));
    ctl(&c, "state put sideways", blob.data, blob.len, status, sizeof status,
        &reply);
    CHECK(!strncmp(status, "error EINVAL", 12));
    ctl(&c, "buffer start", NULL, 0, status, sizeof status, &reply);
    CHECK(!strcmp(status, "ok 0"));
    receive_udp(core, 0, 3);
    /* an import into a holding NF says how many packets it holds */
    ctl(&c, "state put replace", blob.data, blob.len, status, sizeof status,
        &reply);
    CHECK(timed_ok(status, "ok 10 ") && !strcmp(strrchr(status, ' '), " 3"));
    body = ctl(&c, "buffer take", NULL, 0, status, sizeof status, &reply);
    CHECK(!strcmp(status, "ok 3 0"));
    CHECK_EQ(body, 3 * (8 + 46));
    ctl(&c, "buffer release", NULL, 0, status, sizeof status, &reply);
    CHECK(!strcmp(status, "ok 0"));
    CHECK_EQ(nfcore_hold_state(core), NFCORE_PROCESSING);
    ctl(&c, "buffer take 0", NULL, 0, status, sizeof status, &reply);
    CHECK(!strncmp(status, "error EINVAL", 12));
    ctl(&c, "assets", NULL, 0, status, sizeof status, &reply);
    CHECK(!strcmp(status, "ok"));
    ctl(&c, "stats", "x", 1, status, sizeof status, &reply);
    CHECK(!strncmp(status, "error EINVAL", 12));
    wbuf_uninit(&reply);
    wbuf_uninit(&blob);
    nfcore_destroy(core);
}

static void
test_bidirectional_flows(void)
{
    struct capture cap;
    struct nfcore *core = make_core(&l7fw_class, NULL, &cap, NULL);
    static struct nf_batch b;
    uint8_t f1[128], f2[128];

    b.n = 2;
    b.pkts[0] = (struct nf_pkt) { .data = f1, .len = (uint32_t)
        frame_udp(f1, "10.0.0.9", "10.0.0.2", 5000, 53, 10) };
    b.pkts[1] = (struct nf_pkt) { .data = f2, .len = (uint32_t)
        frame_udp(f2, "10.0.0.2", "10.0.0.9", 53, 5000, 10) };
    nfcore_receive(core, &b);
    CHECK_EQ(nfcore_flow_count(core), 1);
    CHECK(b.pkts[0].flow == b.pkts[1].flow);
    CHECK(b.pkts[0].reversed != b.pkts[1].reversed);
    CHECK_EQ(b.pkts[0].flow->packets, 2);
    nfcore_destroy(core);
}

int
main(void)
{
    UNIT_RUN(test_buffering_keeps_order);
    UNIT_RUN(test_take_and_inject);
    UNIT_RUN(test_round_trips);
    UNIT_RUN(test_bad_import_changes_nothing);
    UNIT_RUN(test_control_commands);
    UNIT_RUN(test_bidirectional_flows);
    return unit_report("test_nfcore");
}
