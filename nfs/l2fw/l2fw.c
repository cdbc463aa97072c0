/* l2fw.c -- the l2fw network function: instance, counters, commands. */
#include "l2fw.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

static const char *const counter_names[L2FW_N_COUNTERS] = {
    [L2FW_ALLOWED] = "allowed",
    [L2FW_DENIED] = "denied",
};

static void
l2fw_destroy(void *fw_)
{
    struct l2fw *fw = fw_;

    if (fw) {
        free(fw->rules);
        free(fw);
    }
}

static int
l2fw_create(const char *config, void **nf, char *err, size_t errlen)
{
    struct l2fw *fw = xzalloc(sizeof *fw);
    int error = l2fw_config_load(fw, config, err, errlen);

    if (error) {
        l2fw_destroy(fw);
        return error;
    }
    *nf = fw;
    return 0;
}

/* "rules": the rules with their hit counts, as JSON. */
static int
l2fw_command(void *fw_, int argc, char *argv[], struct wbuf *body,
             char *err OVS_UNUSED, size_t errlen OVS_UNUSED)
{
    struct l2fw *fw = fw_;
    struct json j;

    if (argc != 1 || strcmp(argv[0], "rules")) {
        return ENOENT;
    }
    json_init(&j, body);
    json_obj_open(&j, NULL);
    json_arr_open(&j, "rules");
    for (size_t i = 0; i < fw->n_rules; i++) {
        json_obj_open(&j, NULL);
        json_str(&j, "action",
                 fw->rules[i].action == L2FW_ALLOW ? "allow" : "deny");
        json_u64(&j, "hits", fw->rules[i].hits);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    json_str(&j, "default", fw->default_action == L2FW_ALLOW ? "allow"
             : "deny");
    json_u64(&j, "default_hits", fw->default_hits);
    json_obj_close(&j);
    return 0;
}

const struct nf_class l2fw_class = {
    .name = "l2fw",
    .summary = "ACL firewall on 5-tuple rules",
    .config_help =
        "  One rule per line, first match wins; a flow's first packet is\n"
        "  matched and the decision holds for the flow:\n"
        "    allow|deny [proto tcp|udp|icmp|icmp6|esp|N] [src PREFIX]\n"
        "               [dst PREFIX] [sport N[-M]] [dport N[-M]]\n"
        "    default allow|deny        (default: deny)\n"
        "  Control command 'rules' returns the rules' hit counts.\n",
    .flags = NF_CONFIG_REQUIRED | NF_UNPARSED_DROP,
    .state_kind = 1,
    .state_version = L2FW_STATE_VERSION,
    .flow_data_size = sizeof(struct l2fw_flow),
    .counter_names = counter_names,
    .counters_offset = offsetof(struct l2fw, counters),
    .n_counters = L2FW_N_COUNTERS,
    .create = l2fw_create,
    .destroy = l2fw_destroy,
    .process = l2fw_process,
    .flow_encode = l2fw_flow_encode,
    .flow_decode = l2fw_flow_decode,
    .command = l2fw_command,
};
