/* noop.c -- forwards every packet unchanged: no parsing, no flows, no state.
 *
 * It measures what the packet I/O of libunonf costs by itself. */
#include "noop.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

static int
noop_create(const char *config, void **nf, char *err, size_t errlen)
{
    static char instance;

    if (config) {
        snprintf(err, errlen, "noop takes no configuration file");
        return EINVAL;
    }
    *nf = &instance;
    return 0;
}

static void
noop_destroy(void *nf OVS_UNUSED)
{
}

static void
noop_process(struct nf_batch *batch OVS_UNUSED, void *nf OVS_UNUSED)
{
}

const struct nf_class noop_class = {
    .name = "noop",
    .summary = "no-op forwarder (the packet I/O baseline)",
    .config_help = "  none: noop takes no configuration file.\n",
    .flags = NF_RAW,
    .state_kind = 0,
    .state_version = 1,
    .create = noop_create,
    .destroy = noop_destroy,
    .process = noop_process,
};
