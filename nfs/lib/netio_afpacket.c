/* netio_afpacket.c -- packet I/O over AF_PACKET.
 *
 * Receive: a TPACKET_V3 mmap'd ring (variable-sized packets packed in blocks
 * that the kernel hands over when full or after rx_timeout_ms), with
 * PACKET_IGNORE_OUTGOING so that what we transmit on the same interface is
 * not read back.  Transmit: sendmmsg() of a whole batch on the same socket.
 * A TPACKET_V2 transmit ring was measured too: on veth it is about half as
 * fast, because its zero-copy buffers are copied again (skb_copy_ubufs) when
 * veth hands the packet to its peer. */
#include "netio.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util.h"
#include "vlog.h"

/* TPACKET_V3 hands a block to user space when it is full or after rx_timeout_ms, so at low rates
 * each block carries only a timeout's worth of packets: the ring then covers a stall of about
 * (blocks x timeout), not (bytes / rate).  Small blocks keep that window long (8 MiB: 1,024 blocks,
 * a second at 1 ms) on a busy machine where the NF can be descheduled for hundreds of milliseconds:
 * with 32 KiB blocks (256 ms), a migration's new NF, starved while it released what it held, lost
 * up to 3,083 packets in its ring.  A block holds the largest frame the interface's MTU allows. */
#define RX_BLOCK_MIN (8u << 10)
#define RX_BLOCK_HEADROOM 256u      /* Block and packet headers, VLAN tags, alignment. */
#define PAGE_BYTES 4096u
#define RX_FRAME_SIZE 2048u
#define VLAN_HLEN 4
#define TX_BATCH 256
#define SNDBUF_BYTES (8 << 20)

struct afp {
    struct netio up;
    int ifindex;

    int fd;                     /* Receives and transmits. */
    uint8_t *rx_ring;
    size_t rx_ring_len;
    unsigned int rx_block_size;
    unsigned int rx_blocks;
    unsigned int rx_cur;        /* Block to read next. */
    struct tpacket_block_desc *rx_blk;  /* Block being read, or NULL. */
    uint8_t *rx_next;           /* Next packet header in 'rx_blk'. */
    unsigned int rx_left;       /* Packets left in 'rx_blk'. */

    struct netio_stats stats;
};

static struct afp *
afp_cast(struct netio *io)
{
    return OBJECT_CONTAINING(io, struct afp, up);
}

static int
setopt(int fd, int level, int name, const void *val, socklen_t len)
{
    return setsockopt(fd, level, name, val, len) ? errno : 0;
}

/* The smallest block (a multiple of the page size) that holds a frame as
 * large as the interface's MTU allows. */
static unsigned int
rx_block_size(int fd, const char *ifname)
{
    struct ifreq ifr = { 0 };
    unsigned int mtu = ETH_DATA_LEN;

    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    if (!ioctl(fd, SIOCGIFMTU, &ifr) && ifr.ifr_mtu > 0) {
        mtu = (unsigned int) ifr.ifr_mtu;
    }
    unsigned int need = mtu + ETH_HLEN + 2 * VLAN_HLEN + RX_BLOCK_HEADROOM;
    return MAX(RX_BLOCK_MIN, (need + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES);
}

static int
open_socket(struct afp *a, const char *ifname, const struct netio_config *cfg)
{
    int v3 = TPACKET_V3, one = 1, reserve = VLAN_HLEN;
    int error;

    a->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (a->fd < 0) {
        return errno;
    }
    error = setopt(a->fd, SOL_PACKET, PACKET_VERSION, &v3, sizeof v3);
    if (!error) {
        /* Room to put back a VLAN tag that the device stripped. */
        error = setopt(a->fd, SOL_PACKET, PACKET_RESERVE, &reserve,
                       sizeof reserve);
    }
    if (error) {
        return error;
    }
    int sndbuf = SNDBUF_BYTES;
    setopt(a->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    /* Older kernels lack it; rx() also checks the packet type. */
    setopt(a->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);

    a->rx_block_size = rx_block_size(a->fd, ifname);
    a->rx_blocks = MAX(4u, (unsigned int) (cfg->rx_ring_bytes
                                           / a->rx_block_size));
    struct tpacket_req3 req = {
        .tp_block_size = a->rx_block_size,
        .tp_block_nr = a->rx_blocks,
        .tp_frame_size = RX_FRAME_SIZE,
        .tp_frame_nr = a->rx_block_size / RX_FRAME_SIZE * a->rx_blocks,
        .tp_retire_blk_tov = MAX(1u, cfg->rx_timeout_ms),
    };
    error = setopt(a->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req);
    if (error) {
        return error;
    }
    a->rx_ring_len = (size_t) a->rx_block_size * a->rx_blocks;
    a->rx_ring = mmap(NULL, a->rx_ring_len, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_POPULATE, a->fd, 0);
    if (a->rx_ring == MAP_FAILED) {
        a->rx_ring = NULL;
        return errno;
    }

    struct packet_mreq mreq = {
        .mr_ifindex = a->ifindex,
        .mr_type = PACKET_MR_PROMISC,
    };
    error = setopt(a->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mreq,
                   sizeof mreq);
    if (error) {
        return error;
    }

    /* Bound only now, so that no packet arrives before the ring exists. */
    struct sockaddr_ll sll = {
        .sll_family = AF_PACKET,
        .sll_protocol = htons(ETH_P_ALL),
        .sll_ifindex = a->ifindex,
    };
    return bind(a->fd, (struct sockaddr *) &sll, sizeof sll) ? errno : 0;
}

static void
afp_close(struct netio *io)
{
    struct afp *a = afp_cast(io);

    if (a->rx_ring) {
        munmap(a->rx_ring, a->rx_ring_len);
    }
    if (a->fd >= 0) {
        close(a->fd);
    }
    free(a);
}

static int
afp_open(const char *ifname, const struct netio_config *cfg,
         struct netio **iop)
{
    struct afp *a = xzalloc(sizeof *a);
    int error;

    a->fd = -1;
    a->ifindex = (int) if_nametoindex(ifname);
    if (!a->ifindex) {
        error = errno;
    } else {
        error = open_socket(a, ifname, cfg);
    }
    if (error) {
        afp_close(&a->up);
        return error;
    }
    *iop = &a->up;
    return 0;
}

static int
afp_rx_fd(const struct netio *io)
{
    return OBJECT_CONTAINING(io, struct afp, up)->fd;
}

static struct tpacket_block_desc *
rx_block(const struct afp *a, unsigned int i)
{
    return (struct tpacket_block_desc *) (a->rx_ring
                                          + (size_t) i * a->rx_block_size);
}

/* Puts back in front of the packet the VLAN tag the device stripped; the
 * ring reserves VLAN_HLEN bytes of headroom for it. */
static void
restore_vlan(const struct tpacket3_hdr *h, struct netio_pkt *p)
{
    if (!(h->tp_status & TP_STATUS_VLAN_VALID) || p->len < 12) {
        return;
    }
    uint16_t tpid = h->tp_status & TP_STATUS_VLAN_TPID_VALID
                    ? h->hv1.tp_vlan_tpid : 0x8100;
    p->data -= VLAN_HLEN;
    memmove(p->data, p->data + VLAN_HLEN, 12);
    put_be16(p->data + 12, tpid);
    put_be16(p->data + 14, (uint16_t) h->hv1.tp_vlan_tci);
    p->len += VLAN_HLEN;
}

static size_t
afp_rx(struct netio *io, struct netio_pkt *pkts, size_t max)
{
    struct afp *a = afp_cast(io);
    size_t n = 0;

    if (!a->rx_blk) {
        struct tpacket_block_desc *b = rx_block(a, a->rx_cur);
        uint32_t status = __atomic_load_n(&b->hdr.bh1.block_status,
                                          __ATOMIC_ACQUIRE);
        if (!(status & TP_STATUS_USER)) {
            return 0;
        }
        a->rx_blk = b;
        a->rx_left = b->hdr.bh1.num_pkts;
        a->rx_next = (uint8_t *) b + b->hdr.bh1.offset_to_first_pkt;
    }

    while (n < max && a->rx_left) {
        struct tpacket3_hdr *h = (struct tpacket3_hdr *) a->rx_next;
        const struct sockaddr_ll *sll = (const struct sockaddr_ll *)
            (a->rx_next + TPACKET_ALIGN(sizeof *h));

        a->rx_next += h->tp_next_offset;
        a->rx_left--;
        if (sll->sll_pkttype == PACKET_OUTGOING) {
            continue;
        }
        if (h->tp_snaplen < h->tp_len) {
            a->stats.rx_truncated++;
            continue;
        }
        struct netio_pkt *p = &pkts[n++];
        p->data = (uint8_t *) h + h->tp_mac;
        p->len = h->tp_snaplen;
        restore_vlan(h, p);
    }
    a->stats.rx_packets += n;
    return n;
}

static void
afp_rx_done(struct netio *io)
{
    struct afp *a = afp_cast(io);

    if (a->rx_blk && !a->rx_left) {
        __atomic_store_n(&a->rx_blk->hdr.bh1.block_status, TP_STATUS_KERNEL,
                         __ATOMIC_RELEASE);
        a->rx_blk = NULL;
        a->rx_cur = (a->rx_cur + 1) % a->rx_blocks;
    }
}

static size_t
afp_tx(struct netio *io, const struct netio_pkt *pkts, size_t n)
{
    static struct vlog_rl rl = VLOG_RL_INIT(5);
    struct afp *a = afp_cast(io);
    struct mmsghdr msgs[TX_BATCH];
    struct iovec iov[TX_BATCH];

    n = MIN(n, (size_t) TX_BATCH);
    for (size_t i = 0; i < n; i++) {
        iov[i] = (struct iovec) { pkts[i].data, pkts[i].len };
        msgs[i] = (struct mmsghdr) {
            .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 },
        };
    }
    int sent = sendmmsg(a->fd, msgs, (unsigned int) n, MSG_DONTWAIT);
    if (sent >= 0) {
        a->stats.tx_packets += (uint64_t) sent;
        return (size_t) sent;
    }
    if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR) {
        return 0;               /* Full for now: the caller waits. */
    }
    /* The first packet is refused (too big for the MTU...): skip it. */
    a->stats.tx_errors++;
    VLOG_WARN_RL(&rl, "%s: %u-byte packet not sent: %s", a->up.name,
                 pkts[0].len, strerror(errno));
    return 1;
}

static void
afp_tx_wait(struct netio *io, int timeout_ms)
{
    struct afp *a = afp_cast(io);
    struct pollfd pfd = { .fd = a->fd, .events = POLLOUT };

    poll(&pfd, 1, timeout_ms);
}

static void
afp_get_stats(struct netio *io, struct netio_stats *stats)
{
    struct afp *a = afp_cast(io);
    struct tpacket_stats_v3 st;
    socklen_t len = sizeof st;

    /* The kernel resets its counters on every read: accumulate them. */
    if (!getsockopt(a->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len)) {
        a->stats.rx_kernel_drops += st.tp_drops;
    }
    *stats = a->stats;
}

const struct netio_class netio_afpacket_class = {
    .name = "afpacket",
    .open = afp_open,
    .close = afp_close,
    .rx_fd = afp_rx_fd,
    .rx = afp_rx,
    .rx_done = afp_rx_done,
    .tx = afp_tx,
    .tx_wait = afp_tx_wait,
    .get_stats = afp_get_stats,
};
