/* netio.h -- batched packet I/O on a network interface, behind a small
 * provider interface: AF_PACKET, and DPDK (virtio-user on a vhost-user
 * socket) where the build found libdpdk.
 *
 * rx() returns packets that stay valid, and writable in place, until
 * rx_done(); tx() copies packets out, so the caller may reuse its buffers as
 * soon as it returns. */
#ifndef UNONF_NETIO_H
#define UNONF_NETIO_H 1

#include <stddef.h>
#include <stdint.h>

struct netio_pkt {
    uint8_t *data;
    uint32_t len;
};

struct netio_config {
    size_t rx_ring_bytes;       /* Receive ring size. */
    unsigned int rx_timeout_ms; /* Longest a packet waits in a ring block. */
};

struct netio_stats {
    uint64_t rx_packets;
    uint64_t tx_packets;        /* Handed to the kernel. */
    uint64_t rx_kernel_drops;   /* Dropped by the kernel: ring full. */
    uint64_t rx_truncated;      /* Longer than the ring could hold. */
    uint64_t tx_errors;         /* Rejected by the kernel or too big. */
};

struct netio {
    const struct netio_class *class;
    char *name;
};

struct netio_class {
    const char *name;
    int (*open)(const char *ifname, const struct netio_config *,
                struct netio **);
    void (*close)(struct netio *);
    /* Descriptor to poll for POLLIN when rx() returns nothing, or -1 if the
     * provider has none and must be polled (DPDK). */
    int (*rx_fd)(const struct netio *);
    /* Returns up to 'max' received packets. */
    size_t (*rx)(struct netio *, struct netio_pkt *, size_t max);
    /* Gives back the packets returned by the latest rx(). */
    void (*rx_done)(struct netio *);
    /* Sends copies of up to 'n' packets.  Returns how many it consumed,
     * sent or rejected (too big, counted in tx_errors): fewer than 'n' when
     * the device or socket is full for now. */
    size_t (*tx)(struct netio *, const struct netio_pkt *, size_t n);
    /* Waits up to 'timeout_ms' for room to transmit. */
    void (*tx_wait)(struct netio *, int timeout_ms);
    void (*get_stats)(struct netio *, struct netio_stats *);
};

void netio_config_init(struct netio_config *);

/* Opens interface 'ifname' with provider 'backend' ("afpacket" or
 * "dpdk"). */
int netio_open(const char *backend, const char *ifname,
               const struct netio_config *, struct netio **);
void netio_close(struct netio *);
/* Names of the providers, for --help. */
const char *netio_backends(void);

extern const struct netio_class netio_afpacket_class;
#ifdef UNONF_DPDK
extern const struct netio_class netio_dpdk_class;
#endif

#endif /* netio.h */
