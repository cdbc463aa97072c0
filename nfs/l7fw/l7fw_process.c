/* l7fw_process.c -- detection with nDPI and per-flow blocking. */
#include "l7fw.h"

#include <ndpi_api.h>
#include <string.h>

#include "util.h"
#include "vlog.h"

void
l7fw_flow_release(void *fw OVS_UNUSED, struct flow *f)
{
    struct l7fw_flow *lf = (struct l7fw_flow *) f->data;

    if (lf->ndpi) {
        ndpi_free_flow(lf->ndpi);
        lf->ndpi = NULL;
    }
}

/* Ends detection of 'lf' with 'proto' and decides whether to block it. */
static void
finish(struct l7fw *fw, struct flow *f, ndpi_protocol proto,
       enum l7fw_status status)
{
    struct l7fw_flow *lf = (struct l7fw_flow *) f->data;

    lf->master = proto.master_protocol;
    lf->app = proto.app_protocol;
    lf->status = (uint8_t) status;
    memcpy(lf->host, lf->ndpi->host_server_name, L7FW_HOST_MAX);
    lf->host[L7FW_HOST_MAX - 1] = '\0';
    lf->blocked = l7fw_is_blocked(fw, lf->master, lf->app, lf->host);
    l7fw_flow_release(fw, f);

    fw->counters[status == L7FW_DETECTED ? L7FW_DETECTED_FLOWS
                 : L7FW_UNDETECTED_FLOWS]++;
    if (lf->blocked) {
        fw->counters[L7FW_BLOCKED_FLOWS]++;
    }
    if (vlog_is_enabled(VLL_DBG)) {
        char key[FLOW_KEY_STR_MAX];
        flow_key_format(&f->key, key, sizeof key);
        VLOG_DBG("%s: %s.%s host '%s'%s", key, l7fw_proto_name(fw, lf->master),
                 l7fw_proto_name(fw, lf->app), lf->host,
                 lf->blocked ? ": blocked" : "");
    }
}

static void
inspect(struct l7fw *fw, struct nf_pkt *p, uint64_t now_ms)
{
    struct flow *f = p->flow;
    struct l7fw_flow *lf = (struct l7fw_flow *) f->data;

    if (!lf->ndpi) {
        lf->ndpi = ndpi_flow_malloc(SIZEOF_FLOW_STRUCT);
        if (!lf->ndpi) {
            out_of_memory();
        }
        memset(lf->ndpi, 0, SIZEOF_FLOW_STRUCT);
    }
    lf->inspected++;
    ndpi_protocol proto = ndpi_detection_process_packet(
        fw->ndpi, lf->ndpi, p->data + p->info.l3_ofs, p->info.l3_len, now_ms);

    if (proto.app_protocol != NDPI_PROTOCOL_UNKNOWN
        || proto.master_protocol != NDPI_PROTOCOL_UNKNOWN) {
        finish(fw, f, proto, L7FW_DETECTED);
    } else if (lf->inspected >= L7FW_MAX_INSPECT) {
        uint8_t guessed;
        proto = ndpi_detection_giveup(fw->ndpi, lf->ndpi, 1, &guessed);
        finish(fw, f, proto, L7FW_GAVE_UP);
    }
}

void
l7fw_process(struct nf_batch *batch, void *fw_)
{
    struct l7fw *fw = fw_;
    uint64_t now_ms = batch->now_ns / 1000000;

    NF_BATCH_FOR_EACH (p, batch) {
        if (!p->flow) {
            fw->counters[L7FW_UNTRACKED_PACKETS]++;
            continue;
        }
        struct l7fw_flow *lf = (struct l7fw_flow *) p->flow->data;
        if (lf->status == L7FW_DETECTING
            && !(p->info.flags & PKT_F_LATER_FRAG)) {
            inspect(fw, p, now_ms);
        }
        if (lf->blocked) {
            fw->counters[L7FW_BLOCKED_PACKETS]++;
            p->verdict = NF_DROP;
        }
    }
}
