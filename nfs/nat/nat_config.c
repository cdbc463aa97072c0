/* nat_config.c -- the configuration file. */
#include "nat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "util.h"

struct nat_config {
    struct nat *nat;
    bool have_external;
    struct port_range ports;
};

static int
config_line(void *cfg_, int argc, char *argv[], char *err, size_t errlen)
{
    struct nat_config *cfg = cfg_;
    struct nat *nat = cfg->nat;

    if (argc != 2) {
        snprintf(err, errlen, "'%s' takes one value", argv[0]);
        return EINVAL;
    }
    if (!strcmp(argv[0], "external")) {
        uint8_t family, addr[16];
        if (ip_addr_parse(argv[1], &family, addr) || family != 4) {
            snprintf(err, errlen, "external '%s' is not an IPv4 address",
                     argv[1]);
            return EINVAL;
        }
        memcpy(nat->external, addr, 4);
        cfg->have_external = true;
    } else if (!strcmp(argv[0], "internal")) {
        struct ip_prefix *p = &nat->internal[nat->n_internal];
        if (nat->n_internal >= NAT_MAX_INTERNAL) {
            snprintf(err, errlen, "more than %d internal prefixes",
                     NAT_MAX_INTERNAL);
            return EINVAL;
        }
        if (ip_prefix_parse(argv[1], p) || p->family != 4) {
            snprintf(err, errlen, "internal '%s' is not an IPv4 prefix",
                     argv[1]);
            return EINVAL;
        }
        nat->n_internal++;
    } else if (!strcmp(argv[0], "ports")) {
        if (port_range_parse(argv[1], &cfg->ports) || !cfg->ports.lo) {
            snprintf(err, errlen, "ports '%s' is not a range like "
                     "1024-65535", argv[1]);
            return EINVAL;
        }
    } else {
        snprintf(err, errlen, "unknown keyword '%s' (external, internal, "
                 "ports)", argv[0]);
        return EINVAL;
    }
    return 0;
}

int
nat_config_load(struct nat *nat, const char *path, char *err, size_t errlen)
{
    struct nat_config cfg = { .nat = nat, .ports = { 1024, 65535 } };
    int error = conf_load(path, config_line, &cfg, err, errlen);

    if (!error && (!cfg.have_external || !nat->n_internal)) {
        snprintf(err, errlen, "%s: 'external' and at least one 'internal' "
                 "are required", path);
        error = EINVAL;
    }
    if (!error) {
        nat_ports_init(&nat->ports, cfg.ports.lo, cfg.ports.hi);
    }
    return error;
}
