/* frames.h -- building test frames for the C unit tests. */
#ifndef UNIT_FRAMES_H
#define UNIT_FRAMES_H 1

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "packet.h"
#include "util.h"

/* Ethernet + IPv4 + TCP or UDP header + 'payload' (NULL: 'len' zero bytes)
 * into 'f'.  Returns the frame length.  Checksums are computed. */
static inline size_t
frame_ipv4(uint8_t *f, uint8_t proto, const char *src, const char *dst,
           uint16_t sport, uint16_t dport, uint8_t tcp_flags,
           const void *payload, size_t len)
{
    size_t l4_len = proto == IPPROTO_TCP ? 20 : 8;
    size_t ip_len = 20 + l4_len + len;
    uint8_t *ip = f + ETH_HDR_LEN, *l4 = ip + 20;

    memset(f, 0, ETH_HDR_LEN + ip_len);
    memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
    put_be16(f + 12, ETHERTYPE_IPV4);
    ip[0] = 0x45;
    put_be16(ip + 2, (uint16_t) ip_len);
    ip[8] = 64;
    ip[9] = proto;
    inet_pton(AF_INET, src, ip + 12);
    inet_pton(AF_INET, dst, ip + 16);
    put_be16(ip + 10, csum_finish(csum_partial(ip, 20, 0)));
    put_be16(l4, sport);
    put_be16(l4 + 2, dport);
    if (proto == IPPROTO_TCP) {
        l4[12] = 5 << 4;
        l4[13] = tcp_flags;
        put_be16(l4 + 14, 8192);
    } else {
        put_be16(l4 + 4, (uint16_t) (8 + len));
    }
    if (payload) {
        memcpy(l4 + l4_len, payload, len);
    }
    /* L4 checksum over the pseudo-header. */
    uint32_t sum = csum_partial(ip + 12, 8, proto + (uint32_t) (l4_len + len));
    sum = csum_partial(l4, l4_len + len, sum);
    put_be16(l4 + (proto == IPPROTO_TCP ? 16 : 6), csum_finish(sum));
    return ETH_HDR_LEN + ip_len;
}

static inline size_t
frame_udp(uint8_t *f, const char *src, const char *dst, uint16_t sport,
          uint16_t dport, size_t len)
{
    return frame_ipv4(f, IPPROTO_UDP, src, dst, sport, dport, 0, NULL, len);
}

/* Whether the IPv4 and TCP/UDP checksums of 'f' verify. */
static inline bool
frame_checksums_ok(const uint8_t *f, size_t len)
{
    struct pkt_info in;
    if (pkt_parse(f, len, &in)) {
        return false;
    }
    const uint8_t *ip = f + in.l3_ofs, *l4 = f + in.l4_ofs;
    size_t l4_len = in.l3_len - (size_t) (in.l4_ofs - in.l3_ofs);
    uint32_t sum = csum_partial(ip + 12, 8, in.key.proto + (uint32_t) l4_len);
    return csum_finish(csum_partial(ip, 20, 0)) == 0
           && csum_finish(csum_partial(l4, l4_len, sum)) == 0;
}

#endif /* frames.h */
