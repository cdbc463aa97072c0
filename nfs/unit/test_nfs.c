/* Unit tests of NF-specific logic: banners and fingerprints, ACL rules,
 * NAT rewriting, l7fw host matching. */
#include <errno.h>
#include <netinet/in.h>

#include "frames.h"
#include "l2fw/l2fw.h"
#include "l7fw/l7fw.h"
#include "monitor/monitor.h"
#include "nat/nat.h"
#include "nfcore.h"
#include "unit.h"

static void
test_banners(void)
{
    char app[MON_APP_MAX];
    static const char http_resp[] =
        "HTTP/1.1 200 OK\r\nDate: x\r\nserver:  Apache/2.4\r\n\r\nServer: no";
    static const char http_req[] =
        "GET /x HTTP/1.1\r\nHost: h\r\nUser-Agent: Mozilla/5.0 (X11)\r\n\r\n";

    CHECK_EQ(mon_banner((const uint8_t *) http_resp, strlen(http_resp), app,
                        sizeof app), MON_SERVER);
    CHECK(!strcmp(app, "http:Apache/2.4"));
    CHECK_EQ(mon_banner((const uint8_t *) http_req, strlen(http_req), app,
                        sizeof app), MON_CLIENT);
    CHECK(!strcmp(app, "http:Mozilla/5.0 (X11)"));
    /* A header after the end of the head does not count. */
    static const char late[] = "HTTP/1.0 404 x\r\n\r\nServer: late\r\n";
    CHECK_EQ(mon_banner((const uint8_t *) late, strlen(late), app, sizeof app),
             MON_SERVER);
    CHECK(!strcmp(app, "http"));
    CHECK_EQ(mon_banner((const uint8_t *) "SSH-2.0-x\x01y", 11, app,
                        sizeof app), MON_SERVER);
    CHECK(!strcmp(app, "ssh:SSH-2.0-x?y"));
    CHECK_EQ(mon_banner((const uint8_t *) "220 mail ESMTP Postfix\r\n", 24,
                        app, sizeof app), MON_SERVER);
    CHECK(!strcmp(app, "smtp:mail ESMTP Postfix"));
    CHECK_EQ(mon_banner((const uint8_t *) "GET", 3, app, sizeof app), 0);
    CHECK_EQ(mon_banner((const uint8_t *) "", 0, app, sizeof app), 0);
    /* Every prefix of a banner is safe to read. */
    for (size_t n = 0; n <= strlen(http_req); n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, http_req, n);
        mon_banner(copy, n, app, sizeof app);
        free(copy);
    }
}

static void
test_fingerprints(void)
{
    uint8_t tcp[60] = { 0 };
    char fp[MON_FP_MAX], os[MON_OS_MAX];
    /* Linux: mss, sackok, timestamps, nop, wscale. */
    static const uint8_t opts[] = {
        2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
    };

    tcp[12] = (20 + sizeof opts) / 4 << 4;
    put_be16(tcp + 14, 64240);
    memcpy(tcp + 20, opts, sizeof opts);
    mon_fingerprint(tcp, 20 + sizeof opts, 61, fp, sizeof fp, os, sizeof os);
    CHECK(!strcmp(fp, "64:64240:mss,sok,ts,nop,ws"));
    CHECK(!strcmp(os, "Linux"));
    mon_fingerprint(tcp, 20 + sizeof opts, 120, fp, sizeof fp, os, sizeof os);
    CHECK(!strcmp(os, "Windows"));
    /* An option length running past the header. */
    tcp[21] = 40;
    mon_fingerprint(tcp, 20 + sizeof opts, 64, fp, sizeof fp, os, sizeof os);
    CHECK(!strcmp(fp, "64:64240:bad"));
    tcp[21] = 0;
    mon_fingerprint(tcp, 20 + sizeof opts, 64, fp, sizeof fp, os, sizeof os);
    CHECK(!strcmp(fp, "64:64240:bad"));
    mon_fingerprint(tcp, 10, 64, fp, sizeof fp, os, sizeof os);
    CHECK(!strcmp(fp, "64:0:"));
}

static void
test_services(void)
{
    struct mon_asset a;

    memset(&a, 0, sizeof a);
    CHECK(mon_asset_add_service(&a, IPPROTO_TCP, 80, MON_SERVER, ""));
    CHECK(!strcmp(a.services[0].app, "http"));
    CHECK(!mon_asset_add_service(&a, IPPROTO_TCP, 80, MON_SERVER, ""));
    CHECK(mon_asset_add_service(&a, IPPROTO_TCP, 80, MON_SERVER, "http:x/1"));
    CHECK(!strcmp(a.services[0].app, "http:x/1"));
    CHECK_EQ(a.n_services, 1);
    for (uint16_t p = 1; p < 40; p++) {
        mon_asset_add_service(&a, IPPROTO_UDP, p, MON_SERVER, "");
    }
    CHECK_EQ(a.n_services, MON_MAX_SERVICES);
}

static void
test_l2fw_rules(void)
{
    struct l2fw fw;
    char err[256];
    struct flow_key k;
    uint16_t rule;
    const char *path = unit_temp_file("deny src 10.0.0.0/8 dport 22\n"
                                      "allow proto tcp\ndefault deny\n");

    memset(&fw, 0, sizeof fw);
    CHECK_EQ(l2fw_config_load(&fw, path, err, sizeof err), 0);
    unlink(path);
    memset(&k, 0, sizeof k);
    k.family = 4;
    k.proto = IPPROTO_TCP;
    k.src[0] = 10;
    k.dport = 22;
    CHECK_EQ(l2fw_classify(&fw, &k, &rule), L2FW_DENY);
    CHECK_EQ(rule, 0);
    k.dport = 80;
    CHECK_EQ(l2fw_classify(&fw, &k, &rule), L2FW_ALLOW);
    CHECK_EQ(rule, 1);
    k.proto = IPPROTO_UDP;
    CHECK_EQ(l2fw_classify(&fw, &k, &rule), L2FW_DENY);
    CHECK_EQ(rule, L2FW_RULE_DEFAULT);
    CHECK_EQ(fw.rules[0].hits + fw.rules[1].hits + fw.default_hits, 3);
    free(fw.rules);

    memset(&fw, 0, sizeof fw);
    path = unit_temp_file("allow\nallow src 10.0.0.0/40\n");
    CHECK_EQ(l2fw_config_load(&fw, path, err, sizeof err), EINVAL);
    CHECK(strstr(err, ":2: bad src") != NULL);
    unlink(path);
    free(fw.rules);
}

static void
nat_output(void *aux, struct nf_batch *b)
{
    struct nf_pkt *out = aux;
    memcpy(out, &b->pkts[0], sizeof *out);
}

static void
test_nat_rewrites_with_valid_checksums(void)
{
    static struct nf_batch b;
    struct nf_pkt out;
    struct nfcore_config cfg;
    struct nfcore *core;
    char err[256];
    uint8_t f[128];
    const char *path = unit_temp_file("external 203.0.113.1\n"
                                      "internal 10.0.0.0/8\n"
                                      "ports 5000-5001\n");

    nfcore_config_init(&cfg, &nat_class);
    cfg.hold_bytes = 1 << 20;
    CHECK_EQ(nfcore_create(&nat_class, path, &cfg, nat_output, &out, &core,
                           err, sizeof err), 0);
    unlink(path);

    for (uint8_t proto = IPPROTO_TCP; proto <= IPPROTO_UDP;
         proto += IPPROTO_UDP - IPPROTO_TCP) {
        b.n = 1;
        b.pkts[0].data = f;
        b.pkts[0].len = (uint32_t) frame_ipv4(f, proto, "10.1.2.3",
                                              "198.51.100.1", 4321, 80, 0x02,
                                              "abc", 3);
        nfcore_receive(core, &b);
        CHECK_EQ(out.verdict, NF_PASS);
        CHECK(frame_checksums_ok(out.data, out.len));
        CHECK_EQ(get_be32(out.data + 26), 0xcb007101);  /* 203.0.113.1 */
        uint16_t port = get_be16(out.data + 34);
        CHECK(port == 5000 || port == 5001);

        /* The reply comes back to the original address and port. */
        b.pkts[0].len = (uint32_t) frame_ipv4(f, proto, "198.51.100.1",
                                              "203.0.113.1", 80, port, 0x12,
                                              "de", 2);
        nfcore_receive(core, &b);
        CHECK_EQ(out.verdict, NF_PASS);
        CHECK(frame_checksums_ok(out.data, out.len));
        CHECK_EQ(get_be32(out.data + 30), 0x0a010203);
        CHECK_EQ(get_be16(out.data + 36), 4321);
    }
    /* Two ports per protocol: the third UDP flow finds none. */
    for (uint16_t sport = 1; sport <= 2; sport++) {
        b.pkts[0].len = (uint32_t) frame_udp(f, "10.1.2.3", "198.51.100.1",
                                             sport, 53, 4);
        nfcore_receive(core, &b);
    }
    CHECK_EQ(out.verdict, NF_DROP);

    /* A flow with ports 0 (an echo with identifier 0), then a later
     * fragment with the same addresses and no room for an ICMP header: it
     * names the flow but must not be rewritten (found by fuzz_nat_packet). */
    b.pkts[0].len = (uint32_t) frame_ipv4(f, IPPROTO_UDP, "10.1.2.3",
                                          "198.51.100.1", 0, 0, 0, NULL, 4);
    f[14 + 9] = IPPROTO_ICMP;
    f[34] = 8;                                  /* Echo request, id 0. */
    memset(f + 35, 0, 7);
    uint8_t *frag = malloc(14 + 24);
    memcpy(frag, f, 14 + 20);                   /* Before the NAT rewrites. */
    nfcore_receive(core, &b);
    CHECK_EQ(out.verdict, NF_PASS);
    put_be16(frag + 14 + 2, 24);
    put_be16(frag + 14 + 6, 0x0010);            /* Offset 128. */
    b.pkts[0].data = frag;
    b.pkts[0].len = 14 + 24;
    nfcore_receive(core, &b);
    CHECK_EQ(out.verdict, NF_DROP);
    CHECK_EQ(nfcore_counters(core)->processed, 8);
    free(frag);
    nfcore_destroy(core);
}

static void
test_l7fw_host_rules(void)
{
    struct l7fw *fw;
    char err[256];
    const char *path = unit_temp_file("block host *.Example.COM\n"
                                      "block proto DNS\n");

    CHECK_EQ(l7fw_class.create(path, (void **) &fw, err, sizeof err), 0);
    unlink(path);
    CHECK(l7fw_is_blocked(fw, 0, 0, "example.com"));
    CHECK(l7fw_is_blocked(fw, 0, 0, "www.EXAMPLE.com"));
    CHECK(!l7fw_is_blocked(fw, 0, 0, "notexample.com"));
    CHECK(!l7fw_is_blocked(fw, 0, 0, "example.com.evil"));
    CHECK(!l7fw_is_blocked(fw, 0, 0, ""));
    CHECK(l7fw_is_blocked(fw, 0, 5, ""));           /* DNS is nDPI's 5. */
    l7fw_class.destroy(fw);

    path = unit_temp_file("block proto NotAProtocol\n");
    CHECK_EQ(l7fw_class.create(path, (void **) &fw, err, sizeof err), EINVAL);
    CHECK(strstr(err, "NotAProtocol") != NULL);
    unlink(path);
}

int
main(void)
{
    UNIT_RUN(test_banners);
    UNIT_RUN(test_fingerprints);
    UNIT_RUN(test_services);
    UNIT_RUN(test_l2fw_rules);
    UNIT_RUN(test_nat_rewrites_with_valid_checksums);
    UNIT_RUN(test_l7fw_host_rules);
    return unit_report("test_nfs");
}
