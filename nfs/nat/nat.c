/* nat.c -- the nat network function: instance and counters. */
#include "nat.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const counter_names[NAT_N_COUNTERS] = {
    [NAT_TRANSLATED_OUT] = "translated_out",
    [NAT_TRANSLATED_IN] = "translated_in",
    [NAT_NO_MAPPING] = "no_mapping",
    [NAT_PORTS_EXHAUSTED] = "ports_exhausted",
    [NAT_UNTRANSLATABLE] = "untranslatable",
    [NAT_PASSED] = "passed",
};

static void
nat_destroy(void *nat_)
{
    struct nat *nat = nat_;

    if (nat) {
        flow_table_destroy(nat->reverse);
        nat_ports_uninit(&nat->ports);
        free(nat);
    }
}

static int
nat_create(const char *config, void **nf, char *err, size_t errlen)
{
    struct nat *nat = xzalloc(sizeof *nat);
    int error = nat_config_load(nat, config, err, errlen);

    if (error) {
        nat_destroy(nat);
        return error;
    }
    *nf = nat;
    return 0;
}

const struct nf_class nat_class = {
    .name = "nat",
    .summary = "source NAT (IPv4; TCP, UDP, ICMP echo) with per-flow mappings",
    .config_help =
        "  external A.B.C.D     the address internal sources are mapped to\n"
        "  internal PREFIX      sources to translate (repeatable)\n"
        "  ports LO-HI          external port pool (default 1024-65535)\n"
        "  Traffic between internal prefixes, and traffic that is neither\n"
        "  from an internal prefix nor to the external address, passes\n"
        "  unchanged; inbound packets without a mapping are dropped.\n",
    .flags = NF_CONFIG_REQUIRED | NF_UNPARSED_DROP,
    .state_kind = 5,
    .state_version = NAT_STATE_VERSION,
    .flow_data_size = sizeof(struct nat_flow),
    .counter_names = counter_names,
    .counters_offset = offsetof(struct nat, counters),
    .n_counters = NAT_N_COUNTERS,
    .create = nat_create,
    .destroy = nat_destroy,
    .process = nat_process,
    .flow_key = nat_flow_key,
    .flow_admit = nat_flow_admit,
    .flow_release = nat_flow_release,
    .flow_encode = nat_flow_encode,
    .flow_decode = nat_flow_decode,
};
