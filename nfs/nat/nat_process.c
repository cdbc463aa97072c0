/* nat_process.c -- mapping flows and rewriting addresses and ports. */
#include "nat.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "util.h"
#include "vlog.h"

#define REVERSE_MAX (1u << 22)
#define ICMP_ECHO_REQUEST 8

bool
nat_is_internal(const struct nat *nat, const struct flow_key *k)
{
    bool src = false, dst = false;

    for (size_t i = 0; i < nat->n_internal; i++) {
        src |= ip_prefix_contains(&nat->internal[i], k->family, k->src);
        dst |= ip_prefix_contains(&nat->internal[i], k->family, k->dst);
    }
    return src && !dst;
}

void
nat_reply_key(const struct nat *nat, const struct flow_key *out,
              uint16_t ext_port, struct flow_key *reply)
{
    memset(reply, 0, sizeof *reply);
    reply->family = 4;
    reply->proto = out->proto;
    memcpy(reply->src, out->dst, 4);
    memcpy(reply->dst, nat->external, 4);
    if (out->proto == IPPROTO_ICMP) {
        reply->sport = reply->dport = ext_port;     /* Echo identifier. */
    } else {
        reply->sport = out->dport;
        reply->dport = ext_port;
    }
}

void
nat_map(struct nat *nat, const struct flow_key *out, struct nat_flow *nf,
        uint16_t ext_port)
{
    static struct vlog_rl rl = VLOG_RL_INIT(2);
    struct flow_key reply;
    struct flow *r;

    nf->ext_port = ext_port;
    nat_reply_key(nat, out, ext_port, &reply);
    if (!nat->reverse) {
        nat->reverse = flow_table_create(REVERSE_MAX, sizeof *out);
    }
    if (flow_table_insert(nat->reverse, &reply, 0, &r) == ENOSPC) {
        VLOG_WARN_RL(&rl, "reverse index full: replies will be dropped");
        return;
    }
    memcpy(r->data, out, sizeof *out);
}

void
nat_flow_key(void *nat_, struct nf_pkt *p, struct flow_key *key)
{
    struct nat *nat = nat_;

    *key = p->info.key;
    if (nat->reverse && key->family == 4 && p->info.flags & PKT_F_L4
        && !memcmp(key->dst, nat->external, 4)) {
        const struct flow *r = flow_table_lookup(nat->reverse, key);
        if (r) {
            memcpy(key, r->data, sizeof *key);
            p->reversed = true;
        }
    }
}

bool
nat_flow_admit(void *nat_, const struct nf_pkt *p)
{
    const struct nat *nat = nat_;
    const struct pkt_info *in = &p->info;

    if (p->reversed || in->key.family != 4 || !(in->flags & PKT_F_L4)
        || nat_proto_index(in->key.proto) < 0
        || !nat_is_internal(nat, &in->key)) {
        return false;
    }
    return in->key.proto != IPPROTO_ICMP
           || p->data[in->l4_ofs] == ICMP_ECHO_REQUEST;
}

void
nat_flow_release(void *nat_, struct flow *f)
{
    struct nat *nat = nat_;
    struct nat_flow *nf = (struct nat_flow *) f->data;
    struct flow_key reply;

    if (!nf->ext_port) {
        return;
    }
    nat_ports_unref(&nat->ports, nat_proto_index(f->key.proto), nf->ext_port);
    nat_reply_key(nat, &f->key, nf->ext_port, &reply);
    struct flow *r = flow_table_lookup(nat->reverse, &reply);
    if (r && !memcmp(r->data, &f->key, sizeof f->key)) {
        flow_table_remove(nat->reverse, r);
    }
    nf->ext_port = 0;
}

/* Replaces the IPv4 address at 'addr_ofs' of the IP header and the port (or
 * ICMP identifier) at 'port_ofs' of the L4 header, keeping checksums right
 * (RFC 1624). */
static void
rewrite(struct nf_pkt *p, size_t addr_ofs, const uint8_t *addr,
        size_t port_ofs, uint16_t port)
{
    uint8_t *ip = p->data + p->info.l3_ofs;
    uint8_t *l4 = p->data + p->info.l4_ofs;
    uint32_t old_addr = get_be32(ip + addr_ofs), new_addr = get_be32(addr);
    uint16_t old_port = get_be16(l4 + port_ofs);
    size_t csum_ofs;

    put_be32(ip + addr_ofs, new_addr);
    put_be16(ip + 10, csum_update32(get_be16(ip + 10), old_addr, new_addr));
    put_be16(l4 + port_ofs, port);

    switch (p->info.key.proto) {
    case IPPROTO_ICMP:          /* No pseudo-header. */
        put_be16(l4 + 2, csum_update16(get_be16(l4 + 2), old_port, port));
        return;
    case IPPROTO_UDP:
        csum_ofs = 6;
        if (!get_be16(l4 + csum_ofs)) {
            return;             /* No checksum. */
        }
        break;
    default:
        csum_ofs = 16;
        break;
    }
    uint16_t csum = csum_update32(get_be16(l4 + csum_ofs), old_addr,
                                  new_addr);
    csum = csum_update16(csum, old_port, port);
    if (p->info.key.proto == IPPROTO_UDP && !csum) {
        csum = 0xffff;
    }
    put_be16(l4 + csum_ofs, csum);
}

static size_t
port_ofs(uint8_t proto, bool source)
{
    return proto == IPPROTO_ICMP ? 4 : source ? 0 : 2;
}

static void
translate_out(struct nat *nat, struct nf_pkt *p)
{
    struct nat_flow *nf = (struct nat_flow *) p->flow->data;
    uint8_t proto = p->info.key.proto;

    if (!nf->ext_port) {
        uint16_t port = nat_ports_alloc(&nat->ports, nat_proto_index(proto));
        if (!port) {
            nat->counters[NAT_PORTS_EXHAUSTED]++;
            p->verdict = NF_DROP;
            return;
        }
        nat_map(nat, &p->flow->key, nf, port);
    }
    rewrite(p, 12, nat->external, port_ofs(proto, true), nf->ext_port);
    nat->counters[NAT_TRANSLATED_OUT]++;
}

static void
translate_in(struct nat *nat, struct nf_pkt *p)
{
    const struct flow_key *out = &p->flow->key;

    rewrite(p, 16, out->src, port_ofs(out->proto, false), out->sport);
    nat->counters[NAT_TRANSLATED_IN]++;
}

void
nat_process(struct nf_batch *batch, void *nat_)
{
    struct nat *nat = nat_;

    NF_BATCH_FOR_EACH (p, batch) {
        const struct flow_key *k = &p->info.key;
        /* A later fragment has no L4 header to rewrite, even if its key
         * (ports 0) names a flow. */
        bool l4 = p->info.flags & PKT_F_L4;

        if (p->flow && l4 && p->reversed) {
            translate_in(nat, p);
        } else if (p->flow && l4) {
            translate_out(nat, p);
        } else if (k->family == 4 && !memcmp(k->dst, nat->external, 4)) {
            nat->counters[NAT_NO_MAPPING]++;
            p->verdict = NF_DROP;
        } else if (nat_is_internal(nat, k)) {
            nat->counters[NAT_UNTRANSLATABLE]++;
            p->verdict = NF_DROP;
        } else {
            nat->counters[NAT_PASSED]++;
        }
    }
}
