/* Unit tests of prefixes, port ranges, matches and configuration words. */
#include "match.h"

#include <errno.h>
#include <netinet/in.h>

#include "conf.h"
#include "unit.h"

static void
test_prefixes(void)
{
    struct ip_prefix p;
    uint8_t fam, a[16];

    CHECK_EQ(ip_prefix_parse("10.1.2.3/12", &p), 0);
    CHECK_EQ(p.plen, 12);
    CHECK_EQ(p.addr[1], 0);                     /* Host bits cleared. */
    ip_addr_parse("10.15.255.255", &fam, a);
    CHECK(ip_prefix_contains(&p, fam, a));
    ip_addr_parse("10.16.0.0", &fam, a);
    CHECK(!ip_prefix_contains(&p, fam, a));
    ip_addr_parse("2001:db8::1", &fam, a);
    CHECK(!ip_prefix_contains(&p, fam, a));

    CHECK_EQ(ip_prefix_parse("2001:db8::/33", &p), 0);
    CHECK_EQ(p.family, 6);
    CHECK(ip_prefix_contains(&p, fam, a));
    CHECK_EQ(ip_prefix_parse("0.0.0.0/0", &p), 0);
    ip_addr_parse("1.2.3.4", &fam, a);
    CHECK(ip_prefix_contains(&p, fam, a));

    CHECK_EQ(ip_prefix_parse("10.0.0.0/33", &p), EINVAL);
    CHECK_EQ(ip_prefix_parse("10.0.0/8", &p), EINVAL);
    CHECK_EQ(ip_prefix_parse("10.0.0.0/", &p), EINVAL);
    CHECK_EQ(ip_prefix_parse("", &p), EINVAL);
}

static void
test_ports_and_protos(void)
{
    struct port_range r;
    uint8_t proto;

    CHECK_EQ(port_range_parse("80", &r), 0);
    CHECK(r.lo == 80 && r.hi == 80);
    CHECK_EQ(port_range_parse("1024-65535", &r), 0);
    CHECK(r.lo == 1024 && r.hi == 65535);
    CHECK_EQ(port_range_parse("20-10", &r), EINVAL);
    CHECK_EQ(port_range_parse("65536", &r), EINVAL);
    CHECK_EQ(port_range_parse("-5", &r), EINVAL);
    CHECK_EQ(port_range_parse("1-2-3", &r), EINVAL);
    CHECK_EQ(ip_proto_parse("udp", &proto), 0);
    CHECK_EQ(proto, IPPROTO_UDP);
    CHECK_EQ(ip_proto_parse("132", &proto), 0);
    CHECK_EQ(proto, 132);
    CHECK_EQ(ip_proto_parse("256", &proto), EINVAL);
}

static void
test_match(void)
{
    char line[] = "proto tcp src 10.0.0.0/8 dport 80-88";
    char *argv[CONF_MAX_WORDS];
    char err[128];
    struct flow_match m;
    struct flow_key k;
    int argc = conf_split(line, argv, CONF_MAX_WORDS);

    CHECK_EQ(flow_match_parse(argc, argv, &m, err, sizeof err), 0);
    char flow[] = "tcp 10.9.9.9 5555 192.0.2.1 81";
    argc = conf_split(flow, argv, CONF_MAX_WORDS);
    CHECK_EQ(flow_key_parse(argc, argv, &k, err, sizeof err), 0);
    CHECK(flow_match_key(&m, &k));
    k.dport = 89;
    CHECK(!flow_match_key(&m, &k));
    k.dport = 80;
    k.proto = IPPROTO_UDP;
    CHECK(!flow_match_key(&m, &k));

    char bad1[] = "proto";
    argc = conf_split(bad1, argv, CONF_MAX_WORDS);
    CHECK_EQ(flow_match_parse(argc, argv, &m, err, sizeof err), EINVAL);
    CHECK(strstr(err, "needs a value") != NULL);
    char bad2[] = "colour red";
    argc = conf_split(bad2, argv, CONF_MAX_WORDS);
    CHECK_EQ(flow_match_parse(argc, argv, &m, err, sizeof err), EINVAL);
    char bad3[] = "udp 10.0.0.1 1 2001:db8::1 2";
    argc = conf_split(bad3, argv, CONF_MAX_WORDS);
    CHECK_EQ(flow_key_parse(argc, argv, &k, err, sizeof err), EINVAL);

    flow_match_init_any(&m);
    CHECK(flow_match_key(&m, &k));
}

static int
count_lines(void *aux, int argc, char *argv[], char *err, size_t errlen)
{
    int *n = aux;
    if (!strcmp(argv[0], "bad")) {
        snprintf(err, errlen, "bad keyword");
        return EINVAL;
    }
    *n += argc;
    return 0;
}

static void
test_conf(void)
{
    char line[] = "  one two#comment three\t";
    char *argv[4];
    char err[256];
    int n = 0;

    CHECK_EQ(conf_split(line, argv, 4), 2);
    CHECK(!strcmp(argv[0], "one") && !strcmp(argv[1], "two"));
    char many[] = "a b c d e";
    CHECK_EQ(conf_split(many, argv, 4), -1);

    const char *path = unit_temp_file("# comment\n\nx y\nz\nbad line\nq\n");
    CHECK_EQ(conf_load(path, count_lines, &n, err, sizeof err), EINVAL);
    CHECK_EQ(n, 3);
    CHECK(strstr(err, ":5: bad keyword") != NULL);
    unlink(path);
    CHECK_EQ(conf_load("/nonexistent/file", count_lines, &n, err, sizeof err),
             ENOENT);
}

int
main(void)
{
    UNIT_RUN(test_prefixes);
    UNIT_RUN(test_ports_and_protos);
    UNIT_RUN(test_match);
    UNIT_RUN(test_conf);
    return unit_report("test_match");
}
