/* Unit tests of the state envelope and the generic flow record. */
#include "state.h"

#include <errno.h>

#include "unit.h"

static void
test_envelope(void)
{
    struct wbuf b;
    struct state_writer w;
    struct state_reader r;
    struct rbuf payload;
    uint16_t type;
    char err[128];

    wbuf_init(&b, 0);
    state_writer_begin(&w, &b, 4, 1);
    state_record_begin(&w, 0x100);
    wbuf_put(&b, "abc", 3);
    state_record_end(&w);
    state_record_begin(&w, STATE_REC_FLOW);
    state_record_end(&w);
    state_writer_end(&w);
    CHECK_EQ(b.len, 16 + 8 + 3 + 8);
    CHECK(!memcmp(b.data, "UNOS\0\1\0\4\0\1\0\0\0\0\0\2", 16));

    CHECK_EQ(state_reader_init(&r, b.data, b.len, 4, 1, err, sizeof err), 0);
    CHECK_EQ(state_reader_next(&r, &type, &payload), 0);
    CHECK_EQ(type, 0x100);
    CHECK_EQ(rbuf_remaining(&payload), 3);
    CHECK_EQ(state_reader_next(&r, &type, &payload), 0);
    CHECK_EQ(type, STATE_REC_FLOW);
    CHECK_EQ(rbuf_remaining(&payload), 0);
    CHECK_EQ(state_reader_next(&r, &type, &payload), ENOENT);

    /* Wrong NF, newer NF version, bad magic, short header. */
    CHECK_EQ(state_reader_init(&r, b.data, b.len, 3, 1, err, sizeof err),
             EINVAL);
    CHECK(strstr(err, "kind 4") != NULL);
    b.data[9] = 2;
    CHECK_EQ(state_reader_init(&r, b.data, b.len, 4, 1, err, sizeof err),
             EINVAL);
    b.data[9] = 1;
    b.data[0] = 'X';
    CHECK_EQ(state_reader_init(&r, b.data, b.len, 4, 1, err, sizeof err),
             EINVAL);
    b.data[0] = 'U';
    CHECK_EQ(state_reader_init(&r, b.data, 15, 4, 1, err, sizeof err), EINVAL);

    /* A record longer than the blob; a count larger than the records;
     * bytes after the last record. */
    put_be32(b.data + 16 + 4, 1000);
    state_reader_init(&r, b.data, b.len, 4, 1, err, sizeof err);
    CHECK_EQ(state_reader_next(&r, &type, &payload), EINVAL);
    put_be32(b.data + 16 + 4, 3);
    put_be32(b.data + 12, 3);
    state_reader_init(&r, b.data, b.len, 4, 1, err, sizeof err);
    state_reader_next(&r, &type, &payload);
    state_reader_next(&r, &type, &payload);
    CHECK_EQ(state_reader_next(&r, &type, &payload), EINVAL);
    put_be32(b.data + 12, 1);
    state_reader_init(&r, b.data, b.len, 4, 1, err, sizeof err);
    state_reader_next(&r, &type, &payload);
    CHECK_EQ(state_reader_next(&r, &type, &payload), EINVAL);
    wbuf_uninit(&b);
}

static void
test_flow_record(void)
{
    struct flow *f = xzalloc(sizeof *f);
    struct state_flow sf;
    struct wbuf b;
    struct rbuf r;

    f->key.family = 6;
    f->key.proto = 17;
    f->key.src[0] = 0x20;
    f->key.dst[15] = 9;
    f->key.sport = 1;
    f->key.dport = 65535;
    f->packets = 1ull << 40;
    f->bytes = 7;
    f->first_ns = 1000000000;
    f->last_ns = 3000000000;
    wbuf_init(&b, 0);
    state_flow_encode(&b, f, 5000000000);
    CHECK_EQ(b.len, STATE_FLOW_LEN);
    rbuf_init(&r, b.data, b.len);
    CHECK_EQ(state_flow_decode(&r, &sf), 0);
    CHECK(!memcmp(&sf.key, &f->key, sizeof sf.key));
    CHECK_EQ(sf.packets, 1ull << 40);
    CHECK_EQ(sf.age_us, 4000000);
    CHECK_EQ(sf.idle_us, 2000000);

    b.data[0] = 4;                  /* IPv4 with bytes past the address. */
    rbuf_init(&r, b.data, b.len);
    CHECK_EQ(state_flow_decode(&r, &sf), EINVAL);
    b.data[0] = 6;
    put_be64(b.data + 64, 5000000);  /* Idle longer than age. */
    rbuf_init(&r, b.data, b.len);
    CHECK_EQ(state_flow_decode(&r, &sf), EINVAL);
    rbuf_init(&r, b.data, b.len - 1);
    CHECK_EQ(state_flow_decode(&r, &sf), EINVAL);

    CHECK_EQ(state_ns_ago(10000, 3), 7000);
    CHECK_EQ(state_ns_ago(10000, 11), 0);
    CHECK_EQ(state_ns_ago(10000, UINT64_MAX), 0);
    CHECK_EQ(state_us_since(5000, 3000), 0);
    wbuf_uninit(&b);
    free(f);
}

static void
test_rbuf(void)
{
    static const uint8_t data[] = { 3, 'a', 'b', 'c', 2, 'x', 0, 9 };
    char s[8];
    struct rbuf r;

    rbuf_init(&r, data, sizeof data);
    rbuf_str8(&r, s, sizeof s);
    CHECK(rbuf_ok(&r) && !strcmp(s, "abc"));
    rbuf_str8(&r, s, sizeof s);                 /* Embedded NUL. */
    CHECK(!rbuf_ok(&r));
    CHECK_EQ(rbuf_u8(&r), 0);                   /* Sticky error. */
    rbuf_init(&r, data, sizeof data);
    rbuf_str8(&r, s, 3);                        /* Longer than 's'. */
    CHECK(!rbuf_ok(&r));
    rbuf_init(&r, data, 2);
    CHECK_EQ(rbuf_be32(&r), 0);
    CHECK(!rbuf_ok(&r) && rbuf_remaining(&r) == 0);
}

int
main(void)
{
    UNIT_RUN(test_envelope);
    UNIT_RUN(test_flow_record);
    UNIT_RUN(test_rbuf);
    return unit_report("test_state");
}
