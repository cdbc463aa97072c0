/* l2fw_process.c -- per-packet decisions. */
#include "l2fw.h"

enum l2fw_action
l2fw_classify(struct l2fw *fw, const struct flow_key *key, uint16_t *rule)
{
    for (size_t i = 0; i < fw->n_rules; i++) {
        if (flow_match_key(&fw->rules[i].match, key)) {
            fw->rules[i].hits++;
            *rule = (uint16_t) i;
            return fw->rules[i].action;
        }
    }
    fw->default_hits++;
    *rule = L2FW_RULE_DEFAULT;
    return fw->default_action;
}

void
l2fw_process(struct nf_batch *batch, void *fw_)
{
    struct l2fw *fw = fw_;

    NF_BATCH_FOR_EACH (p, batch) {
        enum l2fw_action action;
        uint16_t rule;

        if (p->flow) {
            struct l2fw_flow *lf = (struct l2fw_flow *) p->flow->data;
            if (!lf->action) {
                lf->action = (uint8_t) l2fw_classify(fw, &p->info.key,
                                                     &lf->rule);
            }
            action = lf->action;
        } else {
            action = l2fw_classify(fw, &p->info.key, &rule);
        }
        if (action == L2FW_ALLOW) {
            fw->counters[L2FW_ALLOWED]++;
        } else {
            fw->counters[L2FW_DENIED]++;
            p->verdict = NF_DROP;
        }
    }
}
