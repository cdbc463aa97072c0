/* fuzz_common.c -- shared parts of the libFuzzer harnesses. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"
#include "vlog.h"

static const struct {
    const char *nf;
    const char *config;
} configs[] = {
    { "l2fw", "allow proto udp dport 53\ndeny proto tcp dport 23\n"
              "allow proto tcp\ndefault deny\n" },
    { "l7fw", "block proto HTTP\nblock host blocked.example\n" },
    { "secgw",
      "replay-window 64\n"
      "sa out spi 0x1000 key 0x000102030405060708090a0b0c0d0e0fa0a1a2a3 "
      "local 192.0.2.1 remote 192.0.2.2 src 10.0.0.0/8\n"
      "sa in spi 0x2000 key 0x000102030405060708090a0b0c0d0e0fa0a1a2a3 "
      "local 192.0.2.1 remote 192.0.2.2 src 10.0.0.0/8\n" },
    { "monitor", "max-assets 4096\n" },
    { "nat", "external 203.0.113.1\ninternal 10.0.0.0/8\n"
             "ports 1024-1100\n" },
};

const char *
fuzz_config(const struct nf_class *class)
{
    for (size_t i = 0; i < ARRAY_SIZE(configs); i++) {
        if (!strcmp(configs[i].nf, class->name)) {
            return configs[i].config;
        }
    }
    return "";
}

const char *
fuzz_file(const void *data, size_t len)
{
    static char path[64];
    static int fd = -1;

    if (fd < 0) {
        fd = memfd_create("fuzz-config", 0);
        if (fd < 0) {
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) || pwrite(fd, data, len, 0) != (ssize_t) len) {
        abort();
    }
    return path;
}

static void
discard(void *aux OVS_UNUSED, struct nf_batch *b OVS_UNUSED)
{
}

struct nfcore *
fuzz_core(const struct nf_class *class)
{
    struct nfcore_config cfg;
    struct nfcore *core;
    char err[256];
    const char *config = fuzz_config(class);

    vlog_set_level_name("err");
    nfcore_config_init(&cfg, class);
    cfg.max_flows = 4096;
    cfg.hold_packets = 4096;
    cfg.hold_bytes = 4 << 20;
    if (nfcore_create(class, config[0] ? fuzz_file(config, strlen(config))
                                       : NULL,
                      &cfg, discard, NULL, &core, err, sizeof err)) {
        fprintf(stderr, "fuzz_core(%s): %s\n", class->name, err);
        abort();
    }
    return core;
}

void
fuzz_receive(struct nfcore *core, const uint8_t *data, size_t size)
{
    static struct nf_batch b;
    uint8_t *copies[NF_BATCH_MAX];

    b.n = 0;
    while (size >= 2 && b.n < NF_BATCH_MAX) {
        size_t len = MIN((size_t) get_be16(data), size - 2);
        struct nf_pkt *p = &b.pkts[b.n];
        copies[b.n] = xmalloc(len);
        memcpy(copies[b.n], data + 2, len);
        p->data = copies[b.n];
        p->len = (uint32_t) len;
        p->port = 0;
        b.n++;
        data += 2 + len;
        size -= 2 + len;
    }
    size_t n = b.n;
    nfcore_receive(core, &b);
    for (size_t i = 0; i < n; i++) {
        free(copies[i]);
    }
}
