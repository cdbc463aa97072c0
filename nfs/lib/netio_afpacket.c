/* netio_afpacket.c -- packet I/O over AF_PACKET mmap'd rings.
 *
 * Receive: a TPACKET_V3 ring (variable-sized packets packed in blocks that
 * the kernel hands over when full or after rx_timeout_ms), with
 * PACKET_IGNORE_OUTGOING so that what we transmit on the same interface is
 * not read back.  Transmit: a TPACKET_V2 ring on a second socket bound with
 * protocol 0, which therefore receives nothing; one sendto() per batch starts
 * the kernel on every queued frame. */
#include "netio.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util.h"
#include "vlog.h"

#define RX_BLOCK_SIZE (256u << 10)
#define RX_FRAME_SIZE 2048u
#define VLAN_HLEN 4
#define TX_DATA_OFS (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))

struct afp {
    struct netio up;
    int ifindex;

    int rx_fd;
    uint8_t *rx_ring;
    size_t rx_ring_len;
    unsigned int rx_blocks;
    unsigned int rx_cur;        /* Block to read next. */
    struct tpacket_block_desc *rx_blk;  /* Block being read, or NULL. */
    uint8_t *rx_next;           /* Next packet header in 'rx_blk'. */
    unsigned int rx_left;       /* Packets left in 'rx_blk'. */

    int tx_fd;
    uint8_t *tx_ring;
    size_t tx_ring_len;
    unsigned int tx_frame_size;
    unsigned int tx_frames;
    unsigned int tx_cur;

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

static int
bind_ifindex(int fd, int ifindex, uint16_t proto)
{
    struct sockaddr_ll sll = {
        .sll_family = AF_PACKET,
        .sll_protocol = htons(proto),
        .sll_ifindex = ifindex,
    };
    return bind(fd, (struct sockaddr *) &sll, sizeof sll) ? errno : 0;
}

static int
open_rx(struct afp *a, const struct netio_config *cfg)
{
    int v3 = TPACKET_V3, one = 1, reserve = VLAN_HLEN;
    int error;

    a->rx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (a->rx_fd < 0) {
        return errno;
    }
    error = setopt(a->rx_fd, SOL_PACKET, PACKET_VERSION, &v3, sizeof v3);
    if (!error) {
        /* Room to put back a VLAN tag that the device stripped. */
        error = setopt(a->rx_fd, SOL_PACKET, PACKET_RESERVE, &reserve,
                       sizeof reserve);
    }
    if (error) {
        return error;
    }
    /* Older kernels lack it; rx() also checks the packet type. */
    setopt(a->rx_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);

    a->rx_blocks = MAX(4u, (unsigned int) (cfg->rx_ring_bytes
                                           / RX_BLOCK_SIZE));
    struct tpacket_req3 req = {
        .tp_block_size = RX_BLOCK_SIZE,
        .tp_block_nr = a->rx_blocks,
        .tp_frame_size = RX_FRAME_SIZE,
        .tp_frame_nr = RX_BLOCK_SIZE / RX_FRAME_SIZE * a->rx_blocks,
        .tp_retire_blk_tov = MAX(1u, cfg->rx_timeout_ms),
    };
    error = setopt(a->rx_fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req);
    if (error) {
        return error;
    }
    a->rx_ring_len = (size_t) RX_BLOCK_SIZE * a->rx_blocks;
    a->rx_ring = mmap(NULL, a->rx_ring_len, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_POPULATE, a->rx_fd, 0);
    if (a->rx_ring == MAP_FAILED) {
        a->rx_ring = NULL;
        return errno;
    }

    struct packet_mreq mreq = {
        .mr_ifindex = a->ifindex,
        .mr_type = PACKET_MR_PROMISC,
    };
    error = setopt(a->rx_fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mreq,
                   sizeof mreq);
    return error ? error : bind_ifindex(a->rx_fd, a->ifindex, ETH_P_ALL);
}

static int
interface_mtu(const char *ifname, unsigned int *mtu)
{
    struct ifreq ifr;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int error = 0;

    if (fd < 0) {
        return errno;
    }
    memset(&ifr, 0, sizeof ifr);
    strncpy(ifr.ifr_name, ifname, sizeof ifr.ifr_name - 1);
    if (ioctl(fd, SIOCGIFMTU, &ifr)) {
        error = errno;
    } else {
        *mtu = (unsigned int) ifr.ifr_mtu;
    }
    close(fd);
    return error;
}

static int
open_tx(struct afp *a, const char *ifname, const struct netio_config *cfg)
{
    int v2 = TPACKET_V2, one = 1;
    unsigned int mtu = 1500;
    int error;

    error = interface_mtu(ifname, &mtu);
    if (error) {
        return error;
    }
    a->tx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (a->tx_fd < 0) {
        return errno;
    }
    error = setopt(a->tx_fd, SOL_PACKET, PACKET_VERSION, &v2, sizeof v2);
    if (!error) {
        /* Skip frames the kernel rejects instead of stopping at them. */
        error = setopt(a->tx_fd, SOL_PACKET, PACKET_LOSS, &one, sizeof one);
    }
    if (error) {
        return error;
    }

    /* Room for the MTU plus Ethernet, two VLAN tags and ESP growth. */
    unsigned int need = (unsigned int) TX_DATA_OFS + mtu + 14 + 8 + 128;
    unsigned int frame = 2048;
    while (frame < need) {
        frame *= 2;
    }
    unsigned int block = MAX(frame, 65536u);
    unsigned int per_block = block / frame;
    unsigned int blocks = (unsigned int) MAX((size_t) 1,
                                             cfg->tx_ring_frames / per_block);
    struct tpacket_req req = {
        .tp_block_size = block,
        .tp_block_nr = blocks,
        .tp_frame_size = frame,
        .tp_frame_nr = per_block * blocks,
    };
    error = setopt(a->tx_fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof req);
    if (error) {
        return error;
    }
    a->tx_frame_size = frame;
    a->tx_frames = req.tp_frame_nr;
    a->tx_ring_len = (size_t) block * blocks;
    a->tx_ring = mmap(NULL, a->tx_ring_len, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_POPULATE, a->tx_fd, 0);
    if (a->tx_ring == MAP_FAILED) {
        a->tx_ring = NULL;
        return errno;
    }
    return bind_ifindex(a->tx_fd, a->ifindex, 0);
}

static void
afp_close(struct netio *io)
{
    struct afp *a = afp_cast(io);

    if (a->rx_ring) {
        munmap(a->rx_ring, a->rx_ring_len);
    }
    if (a->tx_ring) {
        munmap(a->tx_ring, a->tx_ring_len);
    }
    if (a->rx_fd >= 0) {
        close(a->rx_fd);
    }
    if (a->tx_fd >= 0) {
        close(a->tx_fd);
    }
    free(a);
}

static int
afp_open(const char *ifname, const struct netio_config *cfg,
         struct netio **iop)
{
    struct afp *a = xzalloc(sizeof *a);
    int error;

    a->rx_fd = a->tx_fd = -1;
    a->ifindex = (int) if_nametoindex(ifname);
    if (!a->ifindex) {
        error = errno;
    } else {
        error = open_rx(a, cfg);
        if (!error) {
            error = open_tx(a, ifname, cfg);
        }
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
    return OBJECT_CONTAINING(io, struct afp, up)->rx_fd;
}

static struct tpacket_block_desc *
rx_block(const struct afp *a, unsigned int i)
{
    return (struct tpacket_block_desc *) (a->rx_ring
                                          + (size_t) i * RX_BLOCK_SIZE);
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

static struct tpacket2_hdr *
tx_frame(const struct afp *a, unsigned int i)
{
    return (struct tpacket2_hdr *) (a->tx_ring
                                    + (size_t) i * a->tx_frame_size);
}

static size_t
afp_tx(struct netio *io, const struct netio_pkt *pkts, size_t n)
{
    static struct vlog_rl rl = VLOG_RL_INIT(5);
    struct afp *a = afp_cast(io);
    size_t max_len = a->tx_frame_size - TX_DATA_OFS;
    size_t i, queued = 0;

    for (i = 0; i < n; i++) {
        struct tpacket2_hdr *h = tx_frame(a, a->tx_cur);
        uint32_t status = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
        if (status == TP_STATUS_WRONG_FORMAT) {
            a->stats.tx_errors++;
        } else if (status != TP_STATUS_AVAILABLE) {
            break;
        }
        if (pkts[i].len > max_len) {
            a->stats.tx_errors++;
            VLOG_WARN_RL(&rl, "%s: %u-byte packet too big to send",
                         a->up.name, pkts[i].len);
            continue;
        }
        memcpy((uint8_t *) h + TX_DATA_OFS, pkts[i].data, pkts[i].len);
        h->tp_len = pkts[i].len;
        __atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST,
                         __ATOMIC_RELEASE);
        a->tx_cur = (a->tx_cur + 1) % a->tx_frames;
        queued++;
    }
    if (queued && sendto(a->tx_fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0
        && errno != EAGAIN && errno != ENOBUFS) {
        VLOG_WARN_RL(&rl, "%s: send: %s", a->up.name, strerror(errno));
    }
    a->stats.tx_packets += queued;
    return i;
}

static void
afp_tx_wait(struct netio *io, int timeout_ms)
{
    struct afp *a = afp_cast(io);
    struct pollfd pfd = { .fd = a->tx_fd, .events = POLLOUT };

    sendto(a->tx_fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
    poll(&pfd, 1, timeout_ms);
}

static void
afp_get_stats(struct netio *io, struct netio_stats *stats)
{
    struct afp *a = afp_cast(io);
    struct tpacket_stats_v3 st;
    socklen_t len = sizeof st;

    /* The kernel resets its counters on every read: accumulate them. */
    if (!getsockopt(a->rx_fd, SOL_PACKET, PACKET_STATISTICS, &st, &len)) {
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
