/* packet.c -- bounds-checked L2-L4 parser and checksum helpers. */
#include "packet.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "util.h"

#define IPV6_HDR_LEN 40
#define MAX_VLAN_TAGS 2
#define MAX_IPV6_EXT_HDRS 8

static int
parse_l4(const uint8_t *frame, size_t end, size_t ofs, struct pkt_info *info)
{
    size_t avail = end - ofs;
    const uint8_t *l4 = frame + ofs;

    info->l4_ofs = (uint16_t) ofs;
    info->payload_ofs = (uint16_t) ofs;
    info->payload_len = (uint16_t) avail;
    if (info->flags & PKT_F_LATER_FRAG) {
        return 0;
    }

    switch (info->key.proto) {
    case IPPROTO_TCP: {
        if (avail < 20) {
            return EINVAL;
        }
        size_t doff = (size_t) (l4[12] >> 4) * 4;
        if (doff < 20 || doff > avail) {
            return EINVAL;
        }
        info->key.sport = get_be16(l4);
        info->key.dport = get_be16(l4 + 2);
        info->tcp_flags = l4[13];
        info->payload_ofs = (uint16_t) (ofs + doff);
        info->payload_len = (uint16_t) (avail - doff);
        break;
    }
    case IPPROTO_UDP: {
        if (avail < 8) {
            return EINVAL;
        }
        size_t ulen = get_be16(l4 + 4);
        if (ulen < 8 || ulen > avail) {
            return EINVAL;
        }
        info->key.sport = get_be16(l4);
        info->key.dport = get_be16(l4 + 2);
        info->payload_ofs = (uint16_t) (ofs + 8);
        info->payload_len = (uint16_t) (ulen - 8);
        break;
    }
    case IPPROTO_ICMP:
    case IPPROTO_ICMPV6: {
        if (avail < 8) {
            return EINVAL;
        }
        uint8_t type = l4[0];
        bool echo = info->key.proto == IPPROTO_ICMP
                    ? type == 8 || type == 0 : type == 128 || type == 129;
        if (echo) {
            info->key.sport = info->key.dport = get_be16(l4 + 4);
        }
        info->payload_ofs = (uint16_t) (ofs + 8);
        info->payload_len = (uint16_t) (avail - 8);
        break;
    }
    default:
        return 0;
    }
    info->flags |= PKT_F_L4;
    return 0;
}

static int
parse_ipv4(const uint8_t *frame, size_t len, size_t ofs, struct pkt_info *info)
{
    const uint8_t *ip = frame + ofs;

    if (len - ofs < 20 || ip[0] >> 4 != 4) {
        return EINVAL;
    }
    size_t ihl = (size_t) (ip[0] & 0xf) * 4;
    size_t total = get_be16(ip + 2);
    if (ihl < 20 || total < ihl || total > len - ofs) {
        return EINVAL;
    }

    info->l3_len = (uint16_t) total;
    info->ttl = ip[8];
    info->key.family = 4;
    info->key.proto = ip[9];
    memcpy(info->key.src, ip + 12, 4);
    memcpy(info->key.dst, ip + 16, 4);

    uint16_t frag = get_be16(ip + 6);
    if (frag & 0x3fff) {
        info->flags |= PKT_F_FRAG;
        if (frag & 0x1fff) {
            info->flags |= PKT_F_LATER_FRAG;
        }
    }
    return parse_l4(frame, ofs + total, ofs + ihl, info);
}

static bool
ipv6_is_ext_hdr(uint8_t nh)
{
    return nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING
           || nh == IPPROTO_FRAGMENT || nh == IPPROTO_DSTOPTS;
}

static int
parse_ipv6(const uint8_t *frame, size_t len, size_t ofs, struct pkt_info *info)
{
    const uint8_t *ip = frame + ofs;

    if (len - ofs < IPV6_HDR_LEN || ip[0] >> 4 != 6) {
        return EINVAL;
    }
    size_t total = IPV6_HDR_LEN + get_be16(ip + 4);
    if (total > len - ofs) {
        return EINVAL;
    }
    info->l3_len = (uint16_t) total;
    info->ttl = ip[7];
    info->key.family = 6;
    memcpy(info->key.src, ip + 8, 16);
    memcpy(info->key.dst, ip + 24, 16);

    size_t end = ofs + total;
    size_t pos = ofs + IPV6_HDR_LEN;
    uint8_t nh = ip[6];
    for (int i = 0; ipv6_is_ext_hdr(nh); i++) {
        if (i >= MAX_IPV6_EXT_HDRS || end - pos < 8) {
            return EINVAL;
        }
        const uint8_t *ext = frame + pos;
        size_t ext_len;
        if (nh == IPPROTO_FRAGMENT) {
            ext_len = 8;
            info->flags |= PKT_F_FRAG;
            if (get_be16(ext + 2) & 0xfff8) {
                info->flags |= PKT_F_LATER_FRAG;
            }
        } else {
            ext_len = ((size_t) ext[1] + 1) * 8;
        }
        if (ext_len > end - pos) {
            return EINVAL;
        }
        nh = ext[0];
        pos += ext_len;
    }
    info->key.proto = nh;
    return parse_l4(frame, end, pos, info);
}

int
pkt_parse(const uint8_t *frame, size_t len, struct pkt_info *info)
{
    memset(info, 0, sizeof *info);
    if (len < ETH_HDR_LEN || len > UINT16_MAX) {
        return EINVAL;
    }

    size_t ofs = 12;
    uint16_t type = get_be16(frame + ofs);
    for (int tags = 0; type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ;
         tags++) {
        if (tags >= MAX_VLAN_TAGS || len - ofs < 6) {
            return EINVAL;
        }
        ofs += 4;
        type = get_be16(frame + ofs);
    }
    ofs += 2;
    info->ethertype = type;
    info->l3_ofs = (uint16_t) ofs;

    switch (type) {
    case ETHERTYPE_IPV4:
        return parse_ipv4(frame, len, ofs, info);
    case ETHERTYPE_IPV6:
        return parse_ipv6(frame, len, ofs, info);
    default:
        return EPROTONOSUPPORT;
    }
}

uint32_t
csum_partial(const void *data, size_t n, uint32_t sum)
{
    const uint8_t *p = data;

    for (; n >= 2; n -= 2, p += 2) {
        sum += get_be16(p);
    }
    if (n) {
        sum += (uint32_t) p[0] << 8;
    }
    return sum;
}

uint16_t
csum_finish(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t) ~sum;
}

uint16_t
csum_update16(uint16_t csum, uint16_t old, uint16_t new)
{
    /* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'). */
    uint32_t sum = (uint16_t) ~csum + (uint16_t) ~old + new;
    return csum_finish(sum);
}

uint16_t
csum_update32(uint16_t csum, uint32_t old, uint32_t new)
{
    return csum_update16(csum_update16(csum, old >> 16, new >> 16),
                         old & 0xffff, new & 0xffff);
}
