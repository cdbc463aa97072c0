/* Unit tests of the packet parser and checksum helpers. */
#include "packet.h"

#include <errno.h>
#include <netinet/in.h>

#include "frames.h"
#include "unit.h"
#include "util.h"

static size_t
ipv4_udp(uint8_t *f, size_t payload)
{
    return frame_udp(f, "10.0.0.1", "10.0.0.2", 1234, 53, payload);
}

static void
test_ipv4_udp(void)
{
    uint8_t f[128];
    struct pkt_info in;
    size_t len = ipv4_udp(f, 10);

    CHECK_EQ(pkt_parse(f, len, &in), 0);
    CHECK_EQ(in.key.family, 4);
    CHECK_EQ(in.key.proto, IPPROTO_UDP);
    CHECK_EQ(in.key.sport, 1234);
    CHECK_EQ(in.key.dport, 53);
    CHECK_EQ(in.key.src[0], 10);
    CHECK_EQ(in.key.src[3], 1);
    CHECK(frame_checksums_ok(f, len));
    CHECK_EQ(in.l3_ofs, 14);
    CHECK_EQ(in.l4_ofs, 34);
    CHECK_EQ(in.payload_ofs, 42);
    CHECK_EQ(in.payload_len, 10);
    CHECK_EQ(in.ttl, 64);
    CHECK(in.flags & PKT_F_L4);

    /* Ethernet padding after the IP packet is ignored. */
    CHECK_EQ(pkt_parse(f, len + 20, &in), 0);
    CHECK_EQ(in.l3_len, len - 14);

    /* Every truncation is refused, none read past the end. */
    for (size_t n = 0; n < len; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, f, n);
        CHECK(pkt_parse(copy, n, &in) != 0);
        free(copy);
    }
}

static void
test_bad_headers(void)
{
    uint8_t f[128];
    struct pkt_info in;
    size_t len = ipv4_udp(f, 10);

    f[14] = 0x44;                               /* IHL 16 bytes. */
    CHECK_EQ(pkt_parse(f, len, &in), EINVAL);
    f[14] = 0x4f;                               /* IHL beyond the packet. */
    CHECK_EQ(pkt_parse(f, len, &in), EINVAL);
    f[14] = 0x65;                               /* Version 6 in IPv4. */
    CHECK_EQ(pkt_parse(f, len, &in), EINVAL);
    ipv4_udp(f, 10);
    put_be16(f + 16, 19);                       /* Total < header. */
    CHECK_EQ(pkt_parse(f, len, &in), EINVAL);
    ipv4_udp(f, 10);
    put_be16(f + 38, 7);                        /* UDP length < 8. */
    CHECK_EQ(pkt_parse(f, len, &in), EINVAL);
    put_be16(f + 38, 19);                       /* UDP length > IP's. */
    CHECK_EQ(pkt_parse(f, len, &in), EINVAL);
    ipv4_udp(f, 10);
    put_be16(f + 12, 0x0806);                   /* ARP. */
    CHECK_EQ(pkt_parse(f, len, &in), EPROTONOSUPPORT);
    CHECK_EQ(in.ethertype, 0x0806);
}

static void
test_tcp_and_icmp(void)
{
    uint8_t f[128];
    struct pkt_info in;
    size_t len = ipv4_udp(f, 20);
    uint8_t *ip = f + 14, *l4 = ip + 20;

    ip[9] = IPPROTO_TCP;
    l4[12] = 5 << 4;
    l4[13] = 0x12;
    CHECK_EQ(pkt_parse(f, len, &in), 0);
    CHECK_EQ(in.tcp_flags, 0x12);
    CHECK_EQ(in.payload_len, 28 - 20);
    l4[12] = 4 << 4;                            /* Data offset < 5. */
    CHECK_EQ(pkt_parse(f, len, &in), EINVAL);
    l4[12] = 15 << 4;                           /* Beyond the packet. */
    CHECK_EQ(pkt_parse(f, len, &in), EINVAL);

    ip[9] = IPPROTO_ICMP;
    l4[0] = 8;                                  /* Echo request. */
    put_be16(l4 + 4, 4242);
    CHECK_EQ(pkt_parse(f, len, &in), 0);
    CHECK_EQ(in.key.sport, 4242);
    CHECK_EQ(in.key.dport, 4242);
    l4[0] = 3;                                  /* Unreachable. */
    CHECK_EQ(pkt_parse(f, len, &in), 0);
    CHECK_EQ(in.key.sport, 0);

    ip[9] = IPPROTO_ESP;                        /* No ports. */
    CHECK_EQ(pkt_parse(f, len, &in), 0);
    CHECK_EQ(in.l4_ofs, 34);
    CHECK(!(in.flags & PKT_F_L4));
}

static void
test_fragments(void)
{
    uint8_t f[128];
    struct pkt_info in;
    size_t len = ipv4_udp(f, 10);

    put_be16(f + 14 + 6, 0x2000);               /* MF, offset 0. */
    CHECK_EQ(pkt_parse(f, len, &in), 0);
    CHECK(in.flags & PKT_F_FRAG);
    CHECK(!(in.flags & PKT_F_LATER_FRAG));
    CHECK_EQ(in.key.sport, 1234);
    put_be16(f + 14 + 6, 0x0010);               /* Offset 128. */
    CHECK_EQ(pkt_parse(f, len, &in), 0);
    CHECK(in.flags & PKT_F_LATER_FRAG);
    CHECK_EQ(in.key.sport, 0);
}

static void
test_vlan(void)
{
    uint8_t f[160], g[160];
    struct pkt_info in;
    size_t len = ipv4_udp(f, 10);

    /* One tag, two tags, then three (refused). */
    for (int tags = 1; tags <= 3; tags++) {
        memcpy(g, f, 12);
        for (int t = 0; t < tags; t++) {
            put_be16(g + 12 + 4 * t, t ? ETHERTYPE_VLAN : ETHERTYPE_QINQ);
            put_be16(g + 14 + 4 * t, 100);
        }
        memcpy(g + 12 + 4 * tags, f + 12, len - 12);
        int error = pkt_parse(g, len + 4 * tags, &in);
        if (tags <= 2) {
            CHECK_EQ(error, 0);
            CHECK_EQ(in.l3_ofs, 14 + 4 * tags);
            CHECK_EQ(in.key.dport, 53);
        } else {
            CHECK_EQ(error, EINVAL);
        }
    }
}

static void
test_ipv6(void)
{
    uint8_t f[200];
    struct pkt_info in;

    memset(f, 0, sizeof f);
    put_be16(f + 12, ETHERTYPE_IPV6);
    uint8_t *ip = f + 14;
    ip[0] = 0x60;
    ip[7] = 64;
    ip[8] = 0x20, ip[9] = 0x01, ip[23] = 1;
    ip[24] = 0x20, ip[25] = 0x01, ip[39] = 2;
    /* Hop-by-hop (8 bytes), fragment header, then UDP. */
    ip[6] = IPPROTO_HOPOPTS;
    uint8_t *ext = ip + 40;
    ext[0] = IPPROTO_FRAGMENT;
    ext[1] = 0;
    ext[8] = IPPROTO_UDP;
    uint8_t *udp = ext + 16;
    put_be16(udp, 5000);
    put_be16(udp + 2, 6000);
    put_be16(udp + 4, 12);
    put_be16(ip + 4, 16 + 12);
    size_t len = 14 + 40 + 16 + 12;

    CHECK_EQ(pkt_parse(f, len, &in), 0);
    CHECK_EQ(in.key.family, 6);
    CHECK_EQ(in.key.proto, IPPROTO_UDP);
    CHECK_EQ(in.key.sport, 5000);
    CHECK_EQ(in.key.dst[15], 2);
    CHECK(in.flags & PKT_F_FRAG);
    CHECK_EQ(in.payload_len, 4);

    ext[1] = 200;                               /* Beyond the packet. */
    CHECK_EQ(pkt_parse(f, len, &in), EINVAL);
    for (size_t n = 0; n < len; n++) {
        CHECK(pkt_parse(f, n, &in) != 0);
    }
}

static void
test_checksums(void)
{
    uint8_t buf[64];
    unsigned int seed = 1;

    for (int round = 0; round < 1000; round++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            buf[i] = (uint8_t) rand_r(&seed);
        }
        put_be16(buf + 10, 0);
        uint16_t csum = csum_finish(csum_partial(buf, sizeof buf, 0));
        put_be16(buf + 10, csum);
        CHECK_EQ(csum_finish(csum_partial(buf, sizeof buf, 0)), 0);

        /* Incremental updates agree with recomputing. */
        uint32_t old32 = get_be32(buf + 20), new32 = (uint32_t) rand_r(&seed);
        uint16_t old16 = get_be16(buf + 40), new16 = (uint16_t) rand_r(&seed);
        put_be32(buf + 20, new32);
        put_be16(buf + 40, new16);
        uint16_t updated = csum_update16(csum_update32(csum, old32, new32),
                                         old16, new16);
        put_be16(buf + 10, 0);
        uint16_t fresh = csum_finish(csum_partial(buf, sizeof buf, 0));
        /* 0x0000 and 0xffff are the same one's-complement number. */
        CHECK(updated == fresh || (updated ^ fresh) == 0xffff);
    }
}

int
main(void)
{
    UNIT_RUN(test_ipv4_udp);
    UNIT_RUN(test_bad_headers);
    UNIT_RUN(test_tcp_and_icmp);
    UNIT_RUN(test_fragments);
    UNIT_RUN(test_vlan);
    UNIT_RUN(test_ipv6);
    UNIT_RUN(test_checksums);
    return unit_report("test_packet");
}
