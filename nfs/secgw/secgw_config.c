/* secgw_config.c -- security associations from the configuration file. */
#include "secgw.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "util.h"

struct sa_words {
    const char *spi, *key, *local, *remote;
    char *selector[CONF_MAX_WORDS];
    int n_selector;
};

static int
split_sa_words(int argc, char *argv[], struct sa_words *w, char *err,
               size_t errlen)
{
    memset(w, 0, sizeof *w);
    for (int i = 2; i < argc; i += 2) {
        if (i + 1 >= argc) {
            snprintf(err, errlen, "'%s' needs a value", argv[i]);
            return EINVAL;
        }
        const char **slot = !strcmp(argv[i], "spi") ? &w->spi
                            : !strcmp(argv[i], "key") ? &w->key
                            : !strcmp(argv[i], "local") ? &w->local
                            : !strcmp(argv[i], "remote") ? &w->remote : NULL;
        if (slot) {
            *slot = argv[i + 1];
        } else {
            w->selector[w->n_selector++] = argv[i];
            w->selector[w->n_selector++] = argv[i + 1];
        }
    }
    if (!w->spi || !w->key || !w->local || !w->remote) {
        snprintf(err, errlen, "an SA needs spi, key, local and remote");
        return EINVAL;
    }
    return 0;
}

static int
parse_ipv4(const char *s, uint8_t addr[4], const char *what, char *err,
           size_t errlen)
{
    uint8_t family, a[16];

    if (ip_addr_parse(s, &family, a) || family != 4) {
        snprintf(err, errlen, "%s '%s' is not an IPv4 address", what, s);
        return EINVAL;
    }
    memcpy(addr, a, 4);
    return 0;
}

static int
parse_sa(struct secgw *gw, int argc, char *argv[], char *err, size_t errlen)
{
    struct sa_words w;
    uint8_t keysalt[32 + ESP_SALT_LEN];
    size_t keylen;
    uint64_t spi;
    bool inbound;

    if (argc < 2 || (strcmp(argv[1], "in") && strcmp(argv[1], "out"))) {
        snprintf(err, errlen, "usage: sa in|out spi N key 0xHEX local ADDR "
                 "remote ADDR [selector]");
        return EINVAL;
    }
    inbound = !strcmp(argv[1], "in");
    int error = split_sa_words(argc, argv, &w, err, errlen);
    if (error) {
        return error;
    }
    if (parse_u64(w.spi, 256, UINT32_MAX, &spi)) {
        snprintf(err, errlen, "bad spi '%s' (256 to 2^32-1)", w.spi);
        return EINVAL;
    }
    if (secgw_find_sa(gw, inbound, (uint32_t) spi)) {
        snprintf(err, errlen, "duplicate %s SA with spi %s", argv[1], w.spi);
        return EINVAL;
    }
    if (gw->n_sas >= SECGW_MAX_SAS) {
        snprintf(err, errlen, "more than %d SAs", SECGW_MAX_SAS);
        return EINVAL;
    }
    if (parse_hex_bytes(w.key, keysalt, sizeof keysalt, &keylen)) {
        snprintf(err, errlen, "key must be 0x and 20, 28 or 36 bytes of hex "
                 "(AES key, then 4 bytes of salt)");
        return EINVAL;
    }

    struct secgw_sa *sa = &gw->sas[gw->n_sas];
    memset(sa, 0, sizeof *sa);
    error = flow_match_parse(w.n_selector, w.selector, &sa->selector,
                             err, errlen);
    if (!error && esp_sa_init(&sa->esp, inbound, (uint32_t) spi, keysalt,
                              keylen, gw->window)) {
        snprintf(err, errlen, "key must be 20, 28 or 36 bytes (AES key, then "
                 "4 bytes of salt), not %zu", keylen);
        error = EINVAL;
    }
    if (!error) {
        gw->n_sas++;
        error = parse_ipv4(w.local, sa->esp.local, "local", err, errlen);
    }
    if (!error) {
        error = parse_ipv4(w.remote, sa->esp.remote, "remote", err, errlen);
    }
    return error;
}

static int
config_line(void *gw_, int argc, char *argv[], char *err, size_t errlen)
{
    struct secgw *gw = gw_;
    uint64_t v;

    if (!strcmp(argv[0], "sa")) {
        return parse_sa(gw, argc, argv, err, errlen);
    }
    if (!strcmp(argv[0], "replay-window")) {
        if (argc != 2 || parse_u64(argv[1], 32, REPLAY_MAX_WINDOW, &v)
            || v % 32) {
            snprintf(err, errlen, "usage: replay-window N (32 to %d, a "
                     "multiple of 32)", REPLAY_MAX_WINDOW);
            return EINVAL;
        }
        if (gw->n_sas) {
            snprintf(err, errlen, "replay-window must come before the SAs");
            return EINVAL;
        }
        gw->window = (uint32_t) v;
        return 0;
    }
    if (!strcmp(argv[0], "bypass")) {
        if (argc != 2
            || (strcmp(argv[1], "pass") && strcmp(argv[1], "drop"))) {
            snprintf(err, errlen, "usage: bypass pass|drop");
            return EINVAL;
        }
        gw->bypass_drop = !strcmp(argv[1], "drop");
        return 0;
    }
    snprintf(err, errlen, "unknown keyword '%s' (sa, replay-window, bypass)",
             argv[0]);
    return EINVAL;
}

int
secgw_config_load(struct secgw *gw, const char *path, char *err,
                  size_t errlen)
{
    gw->window = 128;
    return conf_load(path, config_line, gw, err, errlen);
}

struct secgw_sa *
secgw_find_sa(struct secgw *gw, bool inbound, uint32_t spi)
{
    for (size_t i = 0; i < gw->n_sas; i++) {
        if (gw->sas[i].esp.inbound == inbound && gw->sas[i].esp.spi == spi) {
            return &gw->sas[i];
        }
    }
    return NULL;
}
