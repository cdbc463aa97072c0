/* Unit tests of the anti-replay window and the ESP codec. */
#include <errno.h>
#include <stdbool.h>

#include "secgw/esp.h"
#include "secgw/replay.h"

#include "unit.h"
#include "util.h"

/* The window against a plain model: the set of sequence numbers seen. */
static void
test_replay_model(void)
{
    static bool seen[20000];
    struct replay_window w;
    unsigned int seed = 11;
    uint32_t top = 0;

    replay_init(&w, 128);
    for (int i = 0; i < 50000; i++) {
        uint32_t seq = top + 1 + (uint32_t) rand_r(&seed) % 50;
        if (rand_r(&seed) % 2 && top > 200) {
            seq = top - (uint32_t) rand_r(&seed) % 200; /* Old, replay. */
        }
        if (seq >= ARRAY_SIZE(seen)) {
            break;
        }
        enum replay_result expect = !seq || (top >= seq && top - seq >= 128)
                                    ? REPLAY_TOO_OLD
                                    : seen[seq] ? REPLAY_DUPLICATE : REPLAY_OK;
        CHECK_EQ(replay_check(&w, seq), expect);
        if (expect == REPLAY_OK) {
            replay_update(&w, seq);
            seen[seq] = true;
            top = MAX(top, seq);
        }
        CHECK_EQ(w.top, top);
    }
    CHECK_EQ(replay_check(&w, 0), REPLAY_TOO_OLD);
}

static void
test_replay_big_jump(void)
{
    struct replay_window w;

    replay_init(&w, 4096);
    replay_update(&w, 1);
    replay_update(&w, 3);
    replay_update(&w, 1000000);
    CHECK_EQ(replay_check(&w, 3), REPLAY_TOO_OLD);
    CHECK_EQ(replay_check(&w, 1000000 - 4095), REPLAY_OK);
    CHECK_EQ(replay_check(&w, 1000000), REPLAY_DUPLICATE);
    replay_update(&w, 999999);
    CHECK_EQ(replay_check(&w, 999999), REPLAY_DUPLICATE);
}

static const uint8_t KEY[] = {
    0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c, 0x6d, 0x6a, 0x8f, 0x94,
    0x67, 0x30, 0x83, 0x08, 0xca, 0xfe, 0xba, 0xbe,
};

static void
pair(struct esp_sa *out, struct esp_sa *in, size_t keylen)
{
    uint8_t key[36];

    for (size_t i = 0; i < sizeof key; i++) {
        key[i] = KEY[i % sizeof KEY];
    }
    CHECK_EQ(esp_sa_init(out, false, 0x1234, key, keylen, 0), 0);
    CHECK_EQ(esp_sa_init(in, true, 0x1234, key, keylen, 64), 0);
}

static void
test_esp_round_trip(void)
{
    static const size_t keylens[] = { 20, 28, 36 };
    uint8_t inner[300], buf[400];

    for (size_t i = 0; i < sizeof inner; i++) {
        inner[i] = (uint8_t) i;
    }
    for (size_t k = 0; k < ARRAY_SIZE(keylens); k++) {
        struct esp_sa out, in;
        pair(&out, &in, keylens[k]);
        for (size_t len = 20; len < 40; len++) {
            size_t n, inner_len;
            uint8_t nh;
            CHECK_EQ(esp_encap(&out, inner, len, 4, 0x10, buf, sizeof buf, &n),
                     ESP_OK);
            CHECK_EQ((n - ESP_OUTER_LEN - 16 - ESP_ICV_LEN) % 4, 0);
            CHECK_EQ(buf[9], 50);
            CHECK_EQ(buf[1], 0x10);
            uint8_t *esp = buf + ESP_OUTER_LEN;
            CHECK_EQ(get_be32(esp + 4), out.seq);
            CHECK_EQ(esp_decap(&in, esp, n - ESP_OUTER_LEN, &inner_len, &nh),
                     ESP_OK);
            CHECK_EQ(inner_len, len);
            CHECK_EQ(nh, 4);
            CHECK(!memcmp(esp + 16, inner, len));
            /* The same packet again is a replay. */
            CHECK_EQ(esp_decap(&in, esp, n - ESP_OUTER_LEN, &inner_len, &nh),
                     ESP_REPLAYED);
        }
        esp_sa_uninit(&out);
        esp_sa_uninit(&in);
    }
}

static void
test_esp_rejects(void)
{
    struct esp_sa out, in;
    uint8_t inner[64] = { 0x45 }, buf[200], copy[200];
    size_t n, inner_len;
    uint8_t nh;

    pair(&out, &in, 20);
    CHECK_EQ(esp_encap(&out, inner, sizeof inner, 4, 0, buf, sizeof buf, &n),
             ESP_OK);
    size_t esp_len = n - ESP_OUTER_LEN;
    /* Any changed byte after the SPI fails authentication (a changed
     * sequence number too: it is authenticated data). */
    for (size_t i = 4; i < esp_len; i++) {
        memcpy(copy, buf + ESP_OUTER_LEN, esp_len);
        copy[i] ^= 0x80;
        enum esp_result r = esp_decap(&in, copy, esp_len, &inner_len, &nh);
        CHECK(r == ESP_AUTH_FAILED || (i < 8 && r != ESP_OK));
    }
    CHECK_EQ(esp_decap(&in, buf + ESP_OUTER_LEN, 16 + ESP_ICV_LEN + 1,
                       &inner_len, &nh), ESP_MALFORMED);
    CHECK_EQ(esp_encap(&out, inner, sizeof inner, 4, 0, buf, 50, &n),
             ESP_TOO_BIG);

    /* Authentic, but with a wrong padding pattern. */
    uint8_t pt[8] = { 1, 2, 3, 9, 9, 9, 3, 4 };
    esp_seal(&out, 100, pt, sizeof pt, copy);
    CHECK_EQ(esp_decap(&in, copy, 16 + sizeof pt + ESP_ICV_LEN, &inner_len,
                       &nh), ESP_BAD_TRAILER);
    /* A pad length longer than the plaintext. */
    uint8_t pt2[4] = { 0, 0, 200, 4 };
    esp_seal(&out, 101, pt2, sizeof pt2, copy);
    CHECK_EQ(esp_decap(&in, copy, 16 + sizeof pt2 + ESP_ICV_LEN, &inner_len,
                       &nh), ESP_BAD_TRAILER);

    out.seq = UINT32_MAX;
    CHECK_EQ(esp_encap(&out, inner, sizeof inner, 4, 0, buf, sizeof buf, &n),
             ESP_SEQ_OVERFLOW);
    uint8_t badkey[10] = { 0 };
    struct esp_sa bad;
    CHECK_EQ(esp_sa_init(&bad, false, 1, badkey, sizeof badkey, 0), EINVAL);
    esp_sa_uninit(&out);
    esp_sa_uninit(&in);
}

int
main(void)
{
    UNIT_RUN(test_replay_model);
    UNIT_RUN(test_replay_big_jump);
    UNIT_RUN(test_esp_round_trip);
    UNIT_RUN(test_esp_rejects);
    return unit_report("test_secgw");
}
