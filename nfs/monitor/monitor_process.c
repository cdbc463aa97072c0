/* monitor_process.c -- learning assets and services from packets. */
#include "monitor.h"

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "vlog.h"

#define TCP_SYN 0x02
#define TCP_ACK 0x10

void
mon_asset_key(uint8_t family, const uint8_t addr[16], struct flow_key *key)
{
    memset(key, 0, sizeof *key);
    key->family = family;
    memcpy(key->src, addr, 16);
}

bool
mon_asset_add_service(struct mon_asset *a, uint8_t proto, uint16_t port,
                      enum mon_role role, const char *app)
{
    struct mon_service *s = NULL;

    for (size_t i = 0; i < a->n_services; i++) {
        struct mon_service *x = &a->services[i];
        if (x->proto == proto && x->port == port && x->role == role) {
            s = x;
            break;
        }
    }
    if (!s) {
        if (a->n_services >= MON_MAX_SERVICES) {
            return false;
        }
        s = &a->services[a->n_services++];
        s->proto = proto;
        s->port = port;
        s->role = (uint8_t) role;
        s->app[0] = '\0';
    } else if (!app[0] || strlen(app) <= strlen(s->app)) {
        return false;           /* Nothing more specific. */
    }
    snprintf(s->app, sizeof s->app, "%s", app[0] ? app
             : mon_port_name(proto, port) ? mon_port_name(proto, port) : "");
    return true;
}

/* The asset of the packet's source address, created if need be. */
static struct mon_asset *
source_asset(struct monitor *m, const struct nf_pkt *p, uint64_t now)
{
    static struct vlog_rl rl = VLOG_RL_INIT(2);
    struct flow_key key;
    struct flow *f;

    mon_asset_key(p->info.key.family, p->info.key.src, &key);
    f = flow_table_lookup(m->assets, &key);
    if (!f) {
        if (flow_table_insert(m->assets, &key, now, &f)) {
            m->counters[MON_ASSET_TABLE_FULL]++;
            VLOG_WARN_RL(&rl, "asset table full (%zu assets)", m->max_assets);
            return NULL;
        }
        m->counters[MON_ASSETS_CREATED]++;
    }
    flow_table_touch(m->assets, f, p->len, now);

    struct mon_asset *a = (struct mon_asset *) f->data;
    memcpy(a->mac, p->data + 6, 6);
    a->ttl = p->info.ttl;
    return a;
}

static void
add_service(struct monitor *m, struct mon_asset *a, uint8_t proto,
            uint16_t port, enum mon_role role, const char *app)
{
    if (mon_asset_add_service(a, proto, port, role, app)) {
        m->counters[MON_SERVICES_FOUND]++;
    }
}

static void
learn_tcp(struct monitor *m, struct mon_asset *a, struct nf_pkt *p)
{
    const struct pkt_info *in = &p->info;
    uint8_t flags = in->tcp_flags;

    if (flags & TCP_SYN) {
        const uint8_t *tcp = p->data + in->l4_ofs;
        mon_fingerprint(tcp, in->payload_ofs - in->l4_ofs, in->ttl,
                        a->fingerprint, sizeof a->fingerprint,
                        a->os, sizeof a->os);
        a->syn_window = get_be16(tcp + 14);
        m->counters[MON_OS_FINGERPRINTS]++;
        if (flags & TCP_ACK) {
            add_service(m, a, IPPROTO_TCP, in->key.sport, MON_SERVER, "");
        }
    }

    struct mon_flow *mf = p->flow ? (struct mon_flow *) p->flow->data : NULL;
    if (in->payload_len && (!mf || mf->inspected < MON_INSPECT)) {
        char app[MON_APP_MAX];
        int role = mon_banner(p->data + in->payload_ofs, in->payload_len,
                              app, sizeof app);
        if (role) {
            uint16_t port = role == MON_SERVER ? in->key.sport
                                               : in->key.dport;
            add_service(m, a, IPPROTO_TCP, port, role, app);
        }
        if (mf) {
            mf->inspected++;
        }
    }
}

static void
learn_udp(struct monitor *m, struct mon_asset *a, const struct nf_pkt *p)
{
    uint16_t sport = p->info.key.sport, dport = p->info.key.dport;

    /* A reply from a well-known port, or from a privileged port to an
     * ephemeral one, shows a server. */
    if (mon_port_name(IPPROTO_UDP, sport) || (sport < 1024 && dport >= 1024)) {
        add_service(m, a, IPPROTO_UDP, sport, MON_SERVER, "");
    }
}

void
monitor_process(struct nf_batch *batch, void *m_)
{
    struct monitor *m = m_;

    NF_BATCH_FOR_EACH (p, batch) {
        if (p->flow && p->info.key.proto == IPPROTO_TCP) {
            struct mon_flow *mf = (struct mon_flow *) p->flow->data;
            mf->tcp_flags |= p->info.tcp_flags;
        }
        struct mon_asset *a = source_asset(m, p, batch->now_ns);
        if (!a || !(p->info.flags & PKT_F_L4)) {
            continue;
        }
        if (p->info.key.proto == IPPROTO_TCP) {
            learn_tcp(m, a, p);
        } else if (p->info.key.proto == IPPROTO_UDP) {
            learn_udp(m, a, p);
        }
    }
}
