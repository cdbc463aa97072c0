/* nat_state.c -- codec of the NAT's per-flow state.
 *
 * Version 1 flow data (8 bytes): external address[4], u16 external port (or
 * ICMP identifier; 0 if none was allocated), u16 reserved (0).  The flow's
 * key is its outbound 5-tuple.  An import must come from a NAT with the same
 * external address and a port within this NAT's pool. */
#include "nat.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

void
nat_flow_encode(const void *nat_, const struct flow *f, struct wbuf *out)
{
    const struct nat *nat = nat_;
    const struct nat_flow *nf = (const struct nat_flow *) f->data;

    wbuf_put(out, nat->external, 4);
    wbuf_put_be16(out, nf->ext_port);
    wbuf_put_be16(out, 0);
}

int
nat_flow_decode(void *nat_, const struct flow_key *key, struct rbuf *r,
                void *data)
{
    struct nat *nat = nat_;
    const uint8_t *external = rbuf_get(r, 4);
    uint16_t port = rbuf_be16(r);
    uint16_t reserved = rbuf_be16(r);
    int proto = nat_proto_index(key->proto);

    if (!rbuf_ok(r) || reserved || key->family != 4 || proto < 0
        || memcmp(external, nat->external, 4)
        || (port && (port < nat->ports.lo || port > nat->ports.hi))) {
        return EINVAL;
    }
    if (data && port) {
        nat_ports_ref(&nat->ports, proto, port);
        nat_map(nat, key, data, port);
    }
    return 0;
}
