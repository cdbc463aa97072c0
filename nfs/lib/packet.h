/* packet.h -- bounds-checked parsing of Ethernet/VLAN/IPv4/IPv6/TCP/UDP/ICMP.
 *
 * pkt_parse() never reads outside [frame, frame + len).  Lengths from the
 * headers are checked against the captured length: a packet whose IP total
 * length exceeds what was captured is truncated and rejected; bytes after the
 * IP packet (Ethernet padding) are ignored. */
#ifndef UNONF_PACKET_H
#define UNONF_PACKET_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow.h"

#define ETH_HDR_LEN 14
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8

enum {
    PKT_F_L4 = 1 << 0,          /* The L4 header was parsed: ports valid. */
    PKT_F_FRAG = 1 << 1,        /* Part of a fragmented IP packet. */
    PKT_F_LATER_FRAG = 1 << 2,  /* A fragment other than the first. */
};

struct pkt_info {
    uint16_t ethertype;         /* Of the IP header, after VLAN tags. */
    uint16_t l3_ofs;            /* Offset of the IP header in the frame. */
    uint16_t l3_len;            /* IP packet length, from its header. */
    uint16_t l4_ofs;            /* Offset of the L4 header (or ESP...). */
    uint16_t payload_ofs;       /* Offset of the L4 payload. */
    uint16_t payload_len;       /* Bytes of L4 payload. */
    uint8_t flags;              /* PKT_F_*. */
    uint8_t ttl;                /* IPv4 TTL or IPv6 hop limit. */
    uint8_t tcp_flags;
    uint8_t pad;
    struct flow_key key;
};

/* Parses 'frame'.  Returns 0 on success, EPROTONOSUPPORT if the frame is not
 * IP (ARP, LLDP...; 'info->ethertype' says what it is) or EINVAL if it is
 * truncated or inconsistent.  On ICMP echo request and reply the identifier is
 * both ports; other ICMP types have ports 0; protocols without ports (ESP,
 * GRE...) have ports 0 and 'l4_ofs' at their header. */
int pkt_parse(const uint8_t *frame, size_t len, struct pkt_info *info);

/* Internet checksum helpers (RFC 1071, incremental update per RFC 1624). */
uint32_t csum_partial(const void *, size_t, uint32_t sum);
uint16_t csum_finish(uint32_t sum);
uint16_t csum_update16(uint16_t csum, uint16_t old, uint16_t new);
uint16_t csum_update32(uint16_t csum, uint32_t old, uint32_t new);

#endif /* packet.h */
