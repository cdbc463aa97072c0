/* netio_dpdk.c -- packet I/O through a DPDK poll-mode driver.
 *
 * The interface name is either a vhost-user socket path, opened with the
 * virtio-user PMD as the socket's server (the NF's side of an Open vSwitch
 * dpdkvhostuserclient port), or a whole DPDK vdev devargs string such as
 * "net_vhost0,iface=/run/x.sock,client=1" (how a generator stands in for the
 * switch).
 *
 * The EAL starts on the first open, in memory only (--in-memory: no files
 * under /dev/hugepages or /var/run/dpdk, so it cannot disturb another DPDK
 * process such as OVS), never probing PCI (--no-pci), on the CPUs the process
 * is already allowed (so --cpu pinning holds).  Devices are hot-plugged one
 * per open.  --single-file-segments keeps the memory a vhost-user peer must
 * map to a few regions: the protocol carries at most 8.
 *
 * A DPDK queue has no descriptor to wait on: rx_fd() is -1 and the runtime
 * polls, sleeping a little longer each empty round (nfrt.c). */
#ifdef UNONF_DPDK
#include "netio.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "util.h"
#include "vlog.h"

/* Rings as deep as the PCIe link's: what a starved switch leaves unread
 * waits here.  At 1,024 an NF's transmit ring, at 10,000 packets/s, filled
 * when a busy two-core machine kept the switch's poll-mode thread from it for
 * 100 ms, and the NF dropped what it could not send. */
#define RX_DESC 4096
#define TX_DESC 4096
#define POOL_MBUFS (2 * (RX_DESC + TX_DESC) - 1)   /* 2^n - 1 fits the ring. */
#define POOL_CACHE 256
#define BURST_MAX 256
#define TX_NAP_US 20
#define QUEUE_SIZE 4096         /* virtio-user's ring (its default is 256). */

struct dpdk_io {
    struct netio up;
    uint16_t port_id;
    char *dev_name;             /* The vdev's name, to detach it. */
    struct rte_mempool *pool;
    struct rte_mbuf *rx_bufs[BURST_MAX];
    uint16_t rx_n;              /* Held by the latest rx(). */
    struct netio_stats stats;
};

static int n_open;              /* Ports open: the EAL stops with the last. */
static bool eal_up;
static unsigned int n_vdevs;    /* To give each socket path a unique name. */

static struct dpdk_io *
dpdk_cast(struct netio *io)
{
    return OBJECT_CONTAINING(io, struct dpdk_io, up);
}

/* "0@(a,b,...)": lcore 0 on the CPUs this thread may run on. */
static void
lcores_arg(char *buf, size_t size)
{
    cpu_set_t set;
    size_t len = (size_t) snprintf(buf, size, "0@(");

    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set)) {
        CPU_SET(0, &set);
    }
    for (int cpu = 0; cpu < CPU_SETSIZE && len < size; cpu++) {
        if (CPU_ISSET(cpu, &set)) {
            len += (size_t) snprintf(buf + len, size - len, "%s%d",
                                     buf[len - 1] == '(' ? "" : ",", cpu);
        }
    }
    if (len < size) {
        snprintf(buf + len, size - len, ")");
    }
}

static int
eal_start(void)
{
    char lcores[256];
    char prog[] = "unonf", lc_opt[] = "--lcores", no_pci[] = "--no-pci",
         in_memory[] = "--in-memory", single[] = "--single-file-segments",
         no_telemetry[] = "--no-telemetry",
         log[] = "--log-level=lib.*:warning",
         log_eal[] = "--log-level=lib.eal:error",
         log_pmd[] = "--log-level=pmd.*:warning";
    char *argv[] = { prog, lc_opt, lcores, no_pci, in_memory, single,
                     no_telemetry, log, log_eal, log_pmd };

    if (eal_up) {
        return 0;
    }
    lcores_arg(lcores, sizeof lcores);
    if (rte_eal_init(ARRAY_SIZE(argv), argv) < 0) {
        VLOG_ERR("DPDK EAL: %s", rte_strerror(rte_errno));
        return rte_errno ? rte_errno : EINVAL;
    }
    eal_up = true;
    return 0;
}

/* The devargs for 'ifname': a socket path becomes a virtio-user server. */
static char *
devargs_for(const char *ifname)
{
    if (ifname[0] != '/') {
        return xstrdup(ifname);
    }
    size_t size = strlen(ifname) + 96;
    char *s = xmalloc(size);
    snprintf(s, size, "net_virtio_user%u,path=%s,server=1,queues=1,"
             "queue_size=%d", n_vdevs++, ifname, QUEUE_SIZE);
    return s;
}

static int
port_start(struct dpdk_io *d)
{
    struct rte_eth_conf conf = { 0 };
    int socket = rte_eth_dev_socket_id(d->port_id);
    int error;

    if (socket < 0) {
        socket = (int) rte_socket_id();
    }
    char pool_name[RTE_MEMPOOL_NAMESIZE];
    snprintf(pool_name, sizeof pool_name, "unonf%u", d->port_id);
    d->pool = rte_pktmbuf_pool_create(pool_name, POOL_MBUFS, POOL_CACHE, 0,
                                      RTE_MBUF_DEFAULT_BUF_SIZE, socket);
    if (!d->pool) {
        return rte_errno ? rte_errno : ENOMEM;
    }
    if ((error = -rte_eth_dev_configure(d->port_id, 1, 1, &conf))
        || (error = -rte_eth_rx_queue_setup(d->port_id, 0, RX_DESC,
                                            (unsigned int) socket, NULL,
                                            d->pool))
        || (error = -rte_eth_tx_queue_setup(d->port_id, 0, TX_DESC,
                                            (unsigned int) socket, NULL))
        || (error = -rte_eth_dev_start(d->port_id))) {
        return error;
    }
    return 0;
}

static void dpdk_close(struct netio *);

static int
dpdk_open(const char *ifname, const struct netio_config *cfg OVS_UNUSED,
          struct netio **iop)
{
    int error = eal_start();
    if (error) {
        return error;
    }

    struct dpdk_io *d = xzalloc(sizeof *d);
    char *devargs = devargs_for(ifname);
    d->dev_name = xstrdup(devargs);
    d->dev_name[strcspn(devargs, ",")] = '\0';
    n_open++;
    error = -rte_dev_probe(devargs);
    free(devargs);
    if (error) {
        VLOG_ERR("%s: cannot attach DPDK device %s", ifname, d->dev_name);
        free(d->dev_name);
        d->dev_name = NULL;
        dpdk_close(&d->up);
        return error;
    }
    if (rte_eth_dev_get_port_by_name(d->dev_name, &d->port_id)
        || (error = port_start(d))) {
        VLOG_ERR("%s: cannot start DPDK port %s: %s", ifname, d->dev_name,
                 rte_strerror(error ? error : ENODEV));
        dpdk_close(&d->up);
        return error ? error : ENODEV;
    }
    *iop = &d->up;
    return 0;
}

static void
dpdk_close(struct netio *io)
{
    struct dpdk_io *d = dpdk_cast(io);

    rte_pktmbuf_free_bulk(d->rx_bufs, d->rx_n);
    if (d->dev_name) {
        rte_eth_dev_stop(d->port_id);
        rte_eth_dev_close(d->port_id);
        rte_eal_hotplug_remove("vdev", d->dev_name);
        free(d->dev_name);
    }
    rte_mempool_free(d->pool);
    free(d);
    if (--n_open == 0 && eal_up) {
        rte_eal_cleanup();
        eal_up = false;
    }
}

static int
dpdk_rx_fd(const struct netio *io OVS_UNUSED)
{
    return -1;
}

static size_t
dpdk_rx(struct netio *io, struct netio_pkt *pkts, size_t max)
{
    struct dpdk_io *d = dpdk_cast(io);
    size_t n = 0;

    d->rx_n = rte_eth_rx_burst(d->port_id, 0, d->rx_bufs,
                               (uint16_t) MIN(max, BURST_MAX));
    for (uint16_t i = 0; i < d->rx_n; i++) {
        struct rte_mbuf *m = d->rx_bufs[i];
        if (m->nb_segs > 1) {
            /* Larger than one mbuf: the NFs take contiguous frames. */
            d->stats.rx_truncated++;
            continue;
        }
        pkts[n++] = (struct netio_pkt) {
            rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_data_len(m),
        };
    }
    d->stats.rx_packets += n;
    return n;
}

static void
dpdk_rx_done(struct netio *io)
{
    struct dpdk_io *d = dpdk_cast(io);

    rte_pktmbuf_free_bulk(d->rx_bufs, d->rx_n);
    d->rx_n = 0;
}

static size_t
dpdk_tx(struct netio *io, const struct netio_pkt *pkts, size_t n)
{
    struct dpdk_io *d = dpdk_cast(io);
    struct rte_mbuf *bufs[BURST_MAX];
    uint16_t index[BURST_MAX];  /* Of each mbuf's packet in 'pkts'. */
    uint16_t k = 0;

    n = MIN(n, BURST_MAX);
    if (rte_pktmbuf_alloc_bulk(d->pool, bufs, (unsigned int) n)) {
        return 0;               /* Pool empty: the transmit queue is full. */
    }
    for (size_t i = 0; i < n; i++) {
        struct rte_mbuf *m = bufs[k];
        if (pkts[i].len <= rte_pktmbuf_tailroom(m)) {
            memcpy(rte_pktmbuf_mtod(m, void *), pkts[i].data, pkts[i].len);
            m->data_len = (uint16_t) pkts[i].len;
            m->pkt_len = pkts[i].len;
            index[k++] = (uint16_t) i;
        }
    }
    uint16_t sent = rte_eth_tx_burst(d->port_id, 0, bufs, k);
    rte_pktmbuf_free_bulk(bufs + sent, (unsigned int) (n - sent));

    /* Consumed: everything before the first packet the queue did not take,
     * the packets too big for an mbuf among them included. */
    size_t consumed = sent == k ? n : index[sent];
    d->stats.tx_packets += sent;
    d->stats.tx_errors += consumed - sent;
    return consumed;
}

static void
dpdk_tx_wait(struct netio *io OVS_UNUSED, int timeout_ms)
{
    /* No completion to wait on: the peer frees ring slots as it polls, so
     * a short nap and the caller tries again. */
    usleep((useconds_t) MIN(timeout_ms * 1000, TX_NAP_US));
}

static void
dpdk_get_stats(struct netio *io, struct netio_stats *st)
{
    struct dpdk_io *d = dpdk_cast(io);
    struct rte_eth_stats es;

    *st = d->stats;
    if (!rte_eth_stats_get(d->port_id, &es)) {
        st->rx_kernel_drops = es.imissed + es.rx_nombuf;
    }
}

const struct netio_class netio_dpdk_class = {
    .name = "dpdk",
    .open = dpdk_open,
    .close = dpdk_close,
    .rx_fd = dpdk_rx_fd,
    .rx = dpdk_rx,
    .rx_done = dpdk_rx_done,
    .tx = dpdk_tx,
    .tx_wait = dpdk_tx_wait,
    .get_stats = dpdk_get_stats,
};
#endif /* UNONF_DPDK */
