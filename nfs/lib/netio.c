/* netio.c -- packet I/O provider registry. */
#include "netio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct netio_class *const classes[] = {
    &netio_afpacket_class,
#ifdef UNONF_DPDK
    &netio_dpdk_class,
#endif
};

void
netio_config_init(struct netio_config *cfg)
{
    cfg->rx_ring_bytes = 8u << 20;
    cfg->rx_timeout_ms = 1;
}

int
netio_open(const char *backend, const char *ifname,
           const struct netio_config *cfg, struct netio **iop)
{
    for (size_t i = 0; i < ARRAY_SIZE(classes); i++) {
        if (!strcmp(backend, classes[i]->name)) {
            int error = classes[i]->open(ifname, cfg, iop);
            if (!error) {
                (*iop)->class = classes[i];
                (*iop)->name = xstrdup(ifname);
            }
            return error;
        }
    }
    return ENOTSUP;
}

void
netio_close(struct netio *io)
{
    if (io) {
        char *name = io->name;
        io->class->close(io);
        free(name);
    }
}

const char *
netio_backends(void)
{
#ifdef UNONF_DPDK
    return "afpacket, dpdk";
#else
    return "afpacket";
#endif
}
