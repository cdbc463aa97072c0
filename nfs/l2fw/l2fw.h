/* l2fw.h -- an ACL firewall on 5-tuple rules.
 *
 * The first rule that matches a flow's first packet decides for the whole
 * flow; the decision is per-flow state, so it moves with the flow. */
#ifndef L2FW_H
#define L2FW_H 1

#include <stddef.h>
#include <stdint.h>

#include "match.h"
#include "nf.h"

#define L2FW_MAX_RULES 4096
#define L2FW_STATE_VERSION 1
#define L2FW_RULE_DEFAULT UINT16_MAX

enum l2fw_action {
    L2FW_ALLOW = 1,
    L2FW_DENY = 2,
};

struct l2fw_rule {
    enum l2fw_action action;
    struct flow_match match;
    uint64_t hits;              /* Flows (or untracked packets) decided. */
};

enum l2fw_counter {
    L2FW_ALLOWED,
    L2FW_DENIED,
    L2FW_N_COUNTERS,
};

struct l2fw {
    struct l2fw_rule *rules;
    size_t n_rules;
    enum l2fw_action default_action;
    uint64_t default_hits;
    uint64_t counters[L2FW_N_COUNTERS];
};

/* Per-flow state. */
struct l2fw_flow {
    uint8_t action;             /* enum l2fw_action, 0 until decided. */
    uint16_t rule;              /* Deciding rule, or L2FW_RULE_DEFAULT. */
};

extern const struct nf_class l2fw_class;

int l2fw_config_load(struct l2fw *, const char *path, char *err,
                     size_t errlen);
/* Finds the action for 'key' and counts the hit. */
enum l2fw_action l2fw_classify(struct l2fw *, const struct flow_key *,
                               uint16_t *rule);
void l2fw_process(struct nf_batch *, void *l2fw);
void l2fw_flow_encode(const void *l2fw, const struct flow *, struct wbuf *);
int l2fw_flow_decode(void *l2fw, const struct flow_key *, struct rbuf *,
                     void *data);

#endif /* l2fw.h */
