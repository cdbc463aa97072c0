/* nat_ports.c -- the pool of external ports. */
#include "nat.h"

#include <netinet/in.h>
#include <stdlib.h>

#include "util.h"

int
nat_proto_index(uint8_t proto)
{
    return proto == IPPROTO_TCP ? NAT_TCP : proto == IPPROTO_UDP ? NAT_UDP
           : proto == IPPROTO_ICMP ? NAT_ICMP : -1;
}

void
nat_ports_init(struct nat_ports *ports, uint16_t lo, uint16_t hi)
{
    ports->lo = lo;
    ports->hi = hi;
    for (int i = 0; i < NAT_N_PROTOS; i++) {
        ports->use[i] = xcalloc((size_t) hi - lo + 1, 1);
        ports->next[i] = 0;
    }
}

void
nat_ports_uninit(struct nat_ports *ports)
{
    for (int i = 0; i < NAT_N_PROTOS; i++) {
        free(ports->use[i]);
        ports->use[i] = NULL;
    }
}

uint16_t
nat_ports_alloc(struct nat_ports *ports, int proto)
{
    uint32_t n = (uint32_t) ports->hi - ports->lo + 1;
    uint8_t *use = ports->use[proto];

    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = (ports->next[proto] + i) % n;
        if (!use[k]) {
            use[k] = 1;
            ports->next[proto] = (k + 1) % n;
            return (uint16_t) (ports->lo + k);
        }
    }
    return 0;
}

void
nat_ports_ref(struct nat_ports *ports, int proto, uint16_t port)
{
    uint8_t *use = &ports->use[proto][port - ports->lo];
    if (*use < UINT8_MAX) {
        (*use)++;
    }
}

void
nat_ports_unref(struct nat_ports *ports, int proto, uint16_t port)
{
    uint8_t *use = &ports->use[proto][port - ports->lo];
    if (*use) {
        (*use)--;
    }
}
