/* match.c -- IP prefixes, port ranges and 5-tuple matches. */
#include "match.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

int
ip_addr_parse(const char *s, uint8_t *family, uint8_t addr[16])
{
    memset(addr, 0, 16);
    if (inet_pton(AF_INET, s, addr) == 1) {
        *family = 4;
        return 0;
    }
    if (inet_pton(AF_INET6, s, addr) == 1) {
        *family = 6;
        return 0;
    }
    return EINVAL;
}

void
ip_addr_format(uint8_t family, const uint8_t addr[16], char *buf, size_t size)
{
    if (!inet_ntop(family == 6 ? AF_INET6 : AF_INET, addr, buf,
                   (socklen_t) size)) {
        snprintf(buf, size, "?");
    }
}

int
ip_prefix_parse(const char *s, struct ip_prefix *p)
{
    char addr[INET6_ADDRSTRLEN];
    const char *slash = strchr(s, '/');
    size_t n = slash ? (size_t) (slash - s) : strlen(s);

    if (n >= sizeof addr) {
        return EINVAL;
    }
    memcpy(addr, s, n);
    addr[n] = '\0';
    memset(p, 0, sizeof *p);
    if (ip_addr_parse(addr, &p->family, p->addr)) {
        return EINVAL;
    }

    unsigned max = p->family == 4 ? 32 : 128;
    uint64_t plen = max;
    if (slash && parse_u64(slash + 1, 0, max, &plen)) {
        return EINVAL;
    }
    p->plen = (uint8_t) plen;
    for (unsigned bit = p->plen; bit < 128; bit++) {
        p->addr[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
    }
    return 0;
}

bool
ip_prefix_contains(const struct ip_prefix *p, uint8_t family,
                   const uint8_t addr[16])
{
    if (!p->family) {
        return true;
    }
    if (p->family != family) {
        return false;
    }
    unsigned bytes = p->plen / 8, bits = p->plen % 8;
    if (memcmp(p->addr, addr, bytes)) {
        return false;
    }
    if (bits) {
        uint8_t mask = (uint8_t) (0xff << (8 - bits));
        return (addr[bytes] & mask) == p->addr[bytes];
    }
    return true;
}

int
port_range_parse(const char *s, struct port_range *r)
{
    char lo[8];
    const char *dash = strchr(s, '-');
    uint64_t a, b;

    if (!dash) {
        if (parse_u64(s, 0, 65535, &a)) {
            return EINVAL;
        }
        r->lo = r->hi = (uint16_t) a;
        return 0;
    }
    size_t n = (size_t) (dash - s);
    if (n >= sizeof lo) {
        return EINVAL;
    }
    memcpy(lo, s, n);
    lo[n] = '\0';
    if (parse_u64(lo, 0, 65535, &a) || parse_u64(dash + 1, a, 65535, &b)) {
        return EINVAL;
    }
    r->lo = (uint16_t) a;
    r->hi = (uint16_t) b;
    return 0;
}

int
ip_proto_parse(const char *s, uint8_t *proto)
{
    static const struct {
        const char *name;
        uint8_t proto;
    } names[] = {
        { "tcp", IPPROTO_TCP }, { "udp", IPPROTO_UDP },
        { "icmp", IPPROTO_ICMP }, { "icmp6", IPPROTO_ICMPV6 },
        { "esp", IPPROTO_ESP },
    };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        if (!strcmp(s, names[i].name)) {
            *proto = names[i].proto;
            return 0;
        }
    }
    uint64_t v;
    if (parse_u64(s, 0, 255, &v)) {
        return EINVAL;
    }
    *proto = (uint8_t) v;
    return 0;
}

void
flow_match_init_any(struct flow_match *m)
{
    memset(m, 0, sizeof *m);
    m->proto = -1;
    m->sport.hi = m->dport.hi = 65535;
}

int
flow_match_parse(int argc, char *argv[], struct flow_match *m,
                 char *err, size_t errlen)
{
    flow_match_init_any(m);
    for (int i = 0; i < argc; i += 2) {
        const char *field = argv[i];
        if (i + 1 >= argc) {
            snprintf(err, errlen, "'%s' needs a value", field);
            return EINVAL;
        }
        const char *value = argv[i + 1];
        int error;
        if (!strcmp(field, "proto")) {
            uint8_t proto;
            error = ip_proto_parse(value, &proto);
            m->proto = proto;
        } else if (!strcmp(field, "src")) {
            error = ip_prefix_parse(value, &m->src);
        } else if (!strcmp(field, "dst")) {
            error = ip_prefix_parse(value, &m->dst);
        } else if (!strcmp(field, "sport")) {
            error = port_range_parse(value, &m->sport);
        } else if (!strcmp(field, "dport")) {
            error = port_range_parse(value, &m->dport);
        } else {
            snprintf(err, errlen, "unknown match field '%s'", field);
            return EINVAL;
        }
        if (error) {
            snprintf(err, errlen, "bad %s '%s'", field, value);
            return EINVAL;
        }
    }
    return 0;
}

bool
flow_match_key(const struct flow_match *m, const struct flow_key *k)
{
    return (m->proto < 0 || m->proto == k->proto)
           && ip_prefix_contains(&m->src, k->family, k->src)
           && ip_prefix_contains(&m->dst, k->family, k->dst)
           && k->sport >= m->sport.lo && k->sport <= m->sport.hi
           && k->dport >= m->dport.lo && k->dport <= m->dport.hi;
}

int
flow_key_parse(int argc, char *argv[], struct flow_key *k,
               char *err, size_t errlen)
{
    uint8_t dfamily;
    uint64_t sport, dport;

    memset(k, 0, sizeof *k);
    if (argc != 5) {
        snprintf(err, errlen, "a flow is PROTO SRC SPORT DST DPORT");
        return EINVAL;
    }
    if (ip_proto_parse(argv[0], &k->proto)
        || ip_addr_parse(argv[1], &k->family, k->src)
        || parse_u64(argv[2], 0, 65535, &sport)
        || ip_addr_parse(argv[3], &dfamily, k->dst)
        || parse_u64(argv[4], 0, 65535, &dport)
        || dfamily != k->family) {
        snprintf(err, errlen, "bad flow '%s %s %s %s %s'",
                 argv[0], argv[1], argv[2], argv[3], argv[4]);
        return EINVAL;
    }
    k->sport = (uint16_t) sport;
    k->dport = (uint16_t) dport;
    return 0;
}
