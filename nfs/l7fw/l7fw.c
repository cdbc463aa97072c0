/* l7fw.c -- the l7fw network function: instance, counters, commands. */
#include "l7fw.h"

#include <errno.h>
#include <stddef.h>
#include <ndpi_api.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const counter_names[L7FW_N_COUNTERS] = {
    [L7FW_DETECTED_FLOWS] = "detected_flows",
    [L7FW_UNDETECTED_FLOWS] = "undetected_flows",
    [L7FW_BLOCKED_FLOWS] = "blocked_flows",
    [L7FW_BLOCKED_PACKETS] = "blocked_packets",
    [L7FW_UNTRACKED_PACKETS] = "untracked_packets",
};

static void
l7fw_destroy(void *fw_)
{
    struct l7fw *fw = fw_;

    if (!fw) {
        return;
    }
    for (size_t i = 0; i < fw->n_blocked_hosts; i++) {
        free(fw->blocked_hosts[i]);
    }
    if (fw->ndpi) {
        ndpi_exit_detection_module(fw->ndpi);
    }
    free(fw);
}

static int
l7fw_create(const char *config, void **nf, char *err, size_t errlen)
{
    struct l7fw *fw = xzalloc(sizeof *fw);
    NDPI_PROTOCOL_BITMASK all;

    fw->ndpi = ndpi_init_detection_module(ndpi_no_prefs);
    if (!fw->ndpi) {
        free(fw);
        return ENOMEM;
    }
    NDPI_BITMASK_SET_ALL(all);
    ndpi_set_protocol_detection_bitmask2(fw->ndpi, &all);
    ndpi_finalize_initialization(fw->ndpi);

    int error = l7fw_config_load(fw, config, err, errlen);
    if (error) {
        l7fw_destroy(fw);
        return error;
    }
    *nf = fw;
    return 0;
}

const struct nf_class l7fw_class = {
    .name = "l7fw",
    .summary = "layer-7 firewall: nDPI detection, per-flow blocking",
    .config_help =
        "  One rule per line:\n"
        "    block proto NAME  nDPI protocol name (HTTP, TLS, DNS, QUIC...),\n"
        "                      as master or application protocol\n"
        "    block host NAME   HTTP Host, TLS SNI or DNS query equal to NAME\n"
        "                      or ending in .NAME ('*.NAME' is the same)\n"
        "  Without a configuration file nothing is blocked.\n",
    .flags = NF_BIDIR_FLOWS | NF_UNPARSED_DROP,
    .state_kind = 2,
    .state_version = L7FW_STATE_VERSION,
    .flow_data_size = sizeof(struct l7fw_flow),
    .counter_names = counter_names,
    .counters_offset = offsetof(struct l7fw, counters),
    .n_counters = L7FW_N_COUNTERS,
    .create = l7fw_create,
    .destroy = l7fw_destroy,
    .process = l7fw_process,
    .flow_release = l7fw_flow_release,
    .flow_encode = l7fw_flow_encode,
    .flow_decode = l7fw_flow_decode,
};
