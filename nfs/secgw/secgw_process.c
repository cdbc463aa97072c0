/* secgw_process.c -- per-packet encryption and decryption. */
#include "secgw.h"

#include <netinet/in.h>
#include <string.h>

#include "util.h"
#include "vlog.h"

static const enum secgw_counter esp_counters[] = {
    [ESP_OK] = SECGW_N_COUNTERS,
    [ESP_MALFORMED] = SECGW_MALFORMED,
    [ESP_REPLAYED] = SECGW_REPLAYED,
    [ESP_TOO_OLD] = SECGW_TOO_OLD,
    [ESP_AUTH_FAILED] = SECGW_AUTH_FAILED,
    [ESP_BAD_TRAILER] = SECGW_BAD_TRAILER,
    [ESP_SEQ_OVERFLOW] = SECGW_SEQ_OVERFLOW,
    [ESP_TOO_BIG] = SECGW_TOO_BIG,
};

static void
drop(struct secgw *gw, struct nf_pkt *p, enum secgw_counter why)
{
    gw->counters[why]++;
    p->verdict = NF_DROP;
}

/* Whether 'addr' is the local endpoint of an inbound SA. */
static bool
is_local_endpoint(const struct secgw *gw, const uint8_t *addr)
{
    for (size_t i = 0; i < gw->n_sas; i++) {
        const struct esp_sa *esp = &gw->sas[i].esp;
        if (esp->inbound && !memcmp(esp->local, addr, 4)) {
            return true;
        }
    }
    return false;
}

static struct secgw_sa *
inbound_sa(struct secgw *gw, const uint8_t *dst, uint32_t spi)
{
    for (size_t i = 0; i < gw->n_sas; i++) {
        struct secgw_sa *sa = &gw->sas[i];
        if (sa->esp.inbound && sa->esp.spi == spi
            && !memcmp(sa->esp.local, dst, 4)) {
            return sa;
        }
    }
    return NULL;
}

static void
decrypt(struct secgw *gw, struct nf_pkt *p)
{
    static struct vlog_rl rl = VLOG_RL_INIT(5);
    const struct pkt_info *in = &p->info;
    uint8_t *esp = p->data + in->l4_ofs;
    size_t esp_len = (size_t) in->l3_ofs + in->l3_len - in->l4_ofs;

    if (esp_len < ESP_HDR_LEN) {
        drop(gw, p, SECGW_MALFORMED);
        return;
    }
    struct secgw_sa *sa = inbound_sa(gw, in->key.dst, get_be32(esp));
    if (!sa) {
        drop(gw, p, SECGW_UNKNOWN_SPI);
        VLOG_WARN_RL(&rl, "ESP with unknown SPI %#x", get_be32(esp));
        return;
    }

    size_t inner_len;
    uint8_t nh;
    enum esp_result r = esp_decap(&sa->esp, esp, esp_len, &inner_len, &nh);
    if (r != ESP_OK) {
        drop(gw, p, esp_counters[r]);
        return;
    }
    if (nh != 4 && nh != 41) {
        drop(gw, p, SECGW_BAD_INNER);   /* Not tunnel mode, or dummy (59). */
        return;
    }

    /* Slide the L2 header up against the inner packet, in place. */
    uint8_t *inner = esp + ESP_HDR_LEN + ESP_IV_LEN;
    size_t l2_len = in->l3_ofs;
    uint8_t *frame = inner - l2_len;
    memmove(frame, p->data, l2_len);
    put_be16(frame + l2_len - 2, nh == 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6);
    p->data = frame;
    p->len = (uint32_t) (l2_len + inner_len);

    struct pkt_info inner_info;
    if (pkt_parse(p->data, p->len, &inner_info)
        || inner_info.ethertype != (nh == 4 ? ETHERTYPE_IPV4
                                            : ETHERTYPE_IPV6)) {
        drop(gw, p, SECGW_BAD_INNER);
    } else if (!flow_match_key(&sa->selector, &inner_info.key)) {
        drop(gw, p, SECGW_POLICY_MISMATCH);
    } else {
        gw->counters[SECGW_DECRYPTED]++;
    }
}

static struct secgw_sa *
outbound_sa(struct secgw *gw, const struct flow_key *key)
{
    for (size_t i = 0; i < gw->n_sas; i++) {
        struct secgw_sa *sa = &gw->sas[i];
        if (!sa->esp.inbound && flow_match_key(&sa->selector, key)) {
            return sa;
        }
    }
    return NULL;
}

static uint8_t
inner_tos(const struct nf_pkt *p)
{
    const uint8_t *ip = p->data + p->info.l3_ofs;
    return p->info.key.family == 4 ? ip[1]
                                   : (uint8_t) (get_be16(ip) >> 4);
}

static void
encrypt(struct secgw *gw, struct secgw_sa *sa, struct nf_pkt *p,
        uint8_t *out)
{
    size_t l2_len = p->info.l3_ofs;
    size_t esp_len;

    enum esp_result r = esp_encap(&sa->esp, p->data + l2_len, p->info.l3_len,
                                  p->info.key.family == 4 ? 4 : 41,
                                  inner_tos(p), out + l2_len,
                                  SECGW_MAX_FRAME + ESP_MAX_OVERHEAD - l2_len,
                                  &esp_len);
    if (r != ESP_OK) {
        drop(gw, p, esp_counters[r]);
        return;
    }
    memcpy(out, p->data, l2_len);
    put_be16(out + l2_len - 2, ETHERTYPE_IPV4);
    p->data = out;
    p->len = (uint32_t) (l2_len + esp_len);
    gw->counters[SECGW_ENCRYPTED]++;
}

void
secgw_process(struct nf_batch *batch, void *gw_)
{
    struct secgw *gw = gw_;

    NF_BATCH_FOR_EACH (p, batch) {
        const struct pkt_info *in = &p->info;

        if (in->key.proto == IPPROTO_ESP && in->key.family == 4
            && !(in->flags & PKT_F_FRAG)
            && is_local_endpoint(gw, in->key.dst)) {
            decrypt(gw, p);
            continue;
        }
        struct secgw_sa *sa = outbound_sa(gw, &in->key);
        if (sa) {
            encrypt(gw, sa, p, gw->scratch[p - batch->pkts]);
        } else if (gw->bypass_drop) {
            drop(gw, p, SECGW_BYPASS_DROPPED);
        } else {
            gw->counters[SECGW_BYPASSED]++;
        }
    }
}
