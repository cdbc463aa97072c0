/* match.h -- IP prefixes, port ranges and 5-tuple matches.
 *
 * The same match syntax serves l2fw's ACL rules, secgw's SA selectors and
 * the control socket's flow filters:
 *
 *     [proto tcp|udp|icmp|icmp6|esp|N] [src PREFIX] [dst PREFIX]
 *     [sport N|N-M] [dport N|N-M]
 *
 * where PREFIX is an IPv4 or IPv6 address with an optional /len.  Omitted
 * fields match anything. */
#ifndef UNONF_MATCH_H
#define UNONF_MATCH_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow.h"

struct ip_prefix {
    uint8_t family;             /* 0 (any), 4 or 6. */
    uint8_t plen;
    uint8_t addr[16];
};

struct port_range {
    uint16_t lo, hi;
};

struct flow_match {
    int proto;                  /* -1 for any. */
    struct ip_prefix src, dst;
    struct port_range sport, dport;
};

/* Parses an IPv4 or IPv6 address into 'family' (4 or 6) and 'addr'. */
int ip_addr_parse(const char *, uint8_t *family, uint8_t addr[16]);
void ip_addr_format(uint8_t family, const uint8_t addr[16], char *buf,
                    size_t size);
int ip_prefix_parse(const char *, struct ip_prefix *);
bool ip_prefix_contains(const struct ip_prefix *, uint8_t family,
                        const uint8_t addr[16]);
int port_range_parse(const char *, struct port_range *);
int ip_proto_parse(const char *, uint8_t *proto);

void flow_match_init_any(struct flow_match *);

/* Parses the match fields in argv[0..argc-1].  On error returns EINVAL and
 * writes a reason to 'err'. */
int flow_match_parse(int argc, char *argv[], struct flow_match *,
                     char *err, size_t errlen);
bool flow_match_key(const struct flow_match *, const struct flow_key *);

/* Parses an exact key from five words: PROTO SRC SPORT DST DPORT. */
int flow_key_parse(int argc, char *argv[], struct flow_key *,
                   char *err, size_t errlen);

#endif /* match.h */
