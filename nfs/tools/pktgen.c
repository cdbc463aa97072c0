/* pktgen -- a packet generator and sink on libunonf's packet I/O.
 *
 * Generator: sends UDP/IPv4 frames of one size over N flows (source ports
 * BASE..BASE+N-1) as fast as the ring takes them, or at a given rate.  Each
 * payload starts with the flow index and a per-flow sequence number (two
 * big-endian u32), so that a receiver can check loss and order.  Sink:
 * counts what arrives.  Both print one JSON line when done. */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "match.h"
#include "netio.h"
#include "packet.h"
#include "util.h"
#include "vlog.h"

#define BATCH 256
#define MAX_FLOWS 65536

struct options {
    const char *iface;
    const char *backend;
    bool sink;
    unsigned int size;          /* Frame size including the 4-byte FCS. */
    unsigned int flows;
    uint64_t count;             /* 0: until the duration is over. */
    double duration;
    uint64_t rate;              /* Packets per second, 0: unlimited. */
    uint8_t src[4], dst[4];
    uint16_t sport, dport;
    int cpu;
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig OVS_UNUSED)
{
    stop = 1;
}

static void
usage(void)
{
    printf("pktgen -- UDP packet generator and sink on libunonf's packet "
           "I/O\n\n"
           "usage: pktgen --iface IF [options]\n\n"
           "  -i, --iface IF       interface (dpdk: a vhost-user socket path "
           "or\n"
           "                       vdev devargs)\n"
           "      --backend NAME   packet I/O provider: %s (default\n"
           "                       afpacket)\n"
           "      --sink           count received packets instead of sending\n"
           "  -s, --size N         frame size with FCS, 64..1518\n"
           "                       (default 64)\n"
           "  -n, --flows N        flows, by source port (default 1)\n"
           "  -c, --count N        packets to send (default: until\n"
           "                       --duration)\n"
           "  -d, --duration S     seconds to run (default 5)\n"
           "  -r, --rate PPS       packets per second (default: as fast as\n"
           "                       possible)\n"
           "      --src A.B.C.D    source address (default 10.0.0.1)\n"
           "      --dst A.B.C.D    destination address (default 10.0.0.2)\n"
           "      --sport N        first source port (default 10000)\n"
           "      --dport N        destination port (default 9)\n"
           "      --cpu N          pin to CPU N\n"
           "  -h, --help\n\n"
           "Prints a JSON line: packets, seconds, pps (and, generating, the\n"
           "packets that came back, read only where no kernel drops them).\n", netio_backends());
}

static int
fail(const char *msg, const char *arg)
{
    fprintf(stderr, "pktgen: %s '%s' (try --help)\n", msg, arg);
    return 2;
}

static int
parse_addr(const char *s, uint8_t out[4])
{
    uint8_t family, addr[16];

    if (ip_addr_parse(s, &family, addr) || family != 4) {
        return EINVAL;
    }
    memcpy(out, addr, 4);
    return 0;
}

/* Returns -1 to go on, or an exit status. */
static int
parse_options(int argc, char *argv[], struct options *o)
{
    static const struct option longopts[] = {
        { "iface", required_argument, NULL, 'i' },
        { "backend", required_argument, NULL, 'b' },
        { "sink", no_argument, NULL, 'S' },
        { "size", required_argument, NULL, 's' },
        { "flows", required_argument, NULL, 'n' },
        { "count", required_argument, NULL, 'c' },
        { "duration", required_argument, NULL, 'd' },
        { "rate", required_argument, NULL, 'r' },
        { "src", required_argument, NULL, 'A' },
        { "dst", required_argument, NULL, 'B' },
        { "sport", required_argument, NULL, 'P' },
        { "dport", required_argument, NULL, 'Q' },
        { "cpu", required_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    uint64_t v;

    memset(o, 0, sizeof *o);
    o->backend = "afpacket";
    o->size = 64;
    o->flows = 1;
    o->duration = 5;
    parse_addr("10.0.0.1", o->src);
    parse_addr("10.0.0.2", o->dst);
    o->sport = 10000;
    o->dport = 9;
    o->cpu = -1;

    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":i:s:n:c:d:r:h", longopts,
                                 NULL)) != -1;) {
        switch (c) {
        case 'i': o->iface = optarg; break;
        case 'b': o->backend = optarg; break;
        case 'S': o->sink = true; break;
        case 's':
            if (parse_u64(optarg, 64, 1518, &v)) {
                return fail("bad --size", optarg);
            }
            o->size = (unsigned int) v;
            break;
        case 'n':
            if (parse_u64(optarg, 1, MAX_FLOWS, &v)) {
                return fail("bad --flows", optarg);
            }
            o->flows = (unsigned int) v;
            break;
        case 'c':
            if (parse_u64(optarg, 1, UINT64_MAX, &o->count)) {
                return fail("bad --count", optarg);
            }
            break;
        case 'd': {
            char *end;
            o->duration = strtod(optarg, &end);
            if (*end || !(o->duration > 0)) {
                return fail("bad --duration", optarg);
            }
            break;
        }
        case 'r':
            if (parse_u64(optarg, 1, UINT64_MAX, &o->rate)) {
                return fail("bad --rate", optarg);
            }
            break;
        case 'A':
            if (parse_addr(optarg, o->src)) {
                return fail("bad --src", optarg);
            }
            break;
        case 'B':
            if (parse_addr(optarg, o->dst)) {
                return fail("bad --dst", optarg);
            }
            break;
        case 'P':
        case 'Q':
            if (parse_u64(optarg, 1, 65535, &v)) {
                return fail("bad port", optarg);
            }
            *(c == 'P' ? &o->sport : &o->dport) = (uint16_t) v;
            break;
        case 'C':
            if (parse_u64(optarg, 0, CPU_SETSIZE - 1, &v)) {
                return fail("bad --cpu", optarg);
            }
            o->cpu = (int) v;
            break;
        case 'h':
            usage();
            return 0;
        case ':':
            return fail("option needs a value:", argv[optind - 1]);
        default:
            return fail("unknown option", argv[optind - 1]);
        }
    }
    if (optind < argc) {
        return fail("unexpected argument", argv[optind]);
    }
    if (!o->iface) {
        fprintf(stderr, "pktgen: --iface is required (try --help)\n");
        return 2;
    }
    if (o->sport + o->flows - 1 > 65535) {
        fprintf(stderr, "pktgen: --sport + --flows exceeds 65535\n");
        return 2;
    }
    return -1;
}

/* Builds the frame of flow 'i' into 'f' (size - 4 bytes). */
static void
build_frame(const struct options *o, unsigned int i, uint8_t *f)
{
    size_t len = o->size - 4;
    static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
    static const uint8_t smac[6] = { 0x02, 0, 0, 0, 0, 0x01 };

    memset(f, 0, len);
    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    put_be16(f + 12, ETHERTYPE_IPV4);

    uint8_t *ip = f + ETH_HDR_LEN;
    ip[0] = 0x45;
    put_be16(ip + 2, (uint16_t) (len - ETH_HDR_LEN));
    ip[8] = 64;
    ip[9] = 17;
    memcpy(ip + 12, o->src, 4);
    memcpy(ip + 16, o->dst, 4);
    put_be16(ip + 10, csum_finish(csum_partial(ip, 20, 0)));

    uint8_t *udp = ip + 20;
    put_be16(udp, (uint16_t) (o->sport + i));
    put_be16(udp + 2, o->dport);
    put_be16(udp + 4, (uint16_t) (len - ETH_HDR_LEN - 20));
    put_be32(udp + 8, i);                       /* Flow index. */
}

static double
seconds(uint64_t ns)
{
    return (double) ns / 1e9;
}

static int
generate(const struct options *o, struct netio *io)
{
    size_t len = o->size - 4;
    uint8_t *frames = xmalloc((size_t) o->flows * len);
    uint32_t *seqs = xcalloc(o->flows, sizeof *seqs);
    struct netio_pkt pkts[BATCH];
    uint64_t sent = 0, start = time_ns();
    uint64_t end = start + (uint64_t) (o->duration * 1e9);
    unsigned int flow = 0;
    /* A polled provider (DPDK) has no kernel to drop what comes back to
     * the generator: it reads and counts it, or the peer's queue fills.  It
     * has no descriptor to wait on either: a full queue is polled again. */
    bool drain = io->class->rx_fd(io) < 0;
    uint64_t received = 0;

    for (unsigned int i = 0; i < o->flows; i++) {
        build_frame(o, i, frames + (size_t) i * len);
    }
    while (!stop && (!o->count || sent < o->count)) {
        uint64_t now = time_ns();
        if (now >= end) {
            break;
        }
        size_t n = BATCH;
        if (o->count) {
            n = MIN(n, o->count - sent);
        }
        if (o->rate) {
            uint64_t due = (uint64_t) ((double) (now - start) * 1e-9
                                       * (double) o->rate);
            if (due <= sent) {
                continue;
            }
            n = MIN(n, due - sent);
        }
        /* One packet per flow in turn; a batch may hold a flow once only,
         * since the ring copies from the frame when tx() runs. */
        n = MIN(n, (size_t) o->flows);
        for (size_t k = 0; k < n; k++) {
            uint8_t *f = frames + (size_t) flow * len;
            put_be32(f + ETH_HDR_LEN + 20 + 12, ++seqs[flow]);
            pkts[k] = (struct netio_pkt) { f, (uint32_t) len };
            flow = (flow + 1) % o->flows;
        }
        if (drain) {
            struct netio_pkt in[BATCH];
            received += io->class->rx(io, in, BATCH);
            io->class->rx_done(io);
        }
        size_t done = io->class->tx(io, pkts, n);
        sent += done;
        /* Frames not taken go back to their flows' turn. */
        for (size_t k = done; k < n; k++) {
            flow = (flow + o->flows - 1) % o->flows;
            seqs[flow]--;
        }
        if (done < n && !drain) {
            io->class->tx_wait(io, 1);
        }
    }
    io->class->tx_wait(io, 10);
    double secs = seconds(time_ns() - start);
    printf("{\"packets\": %llu, \"seconds\": %.6f, \"pps\": %.0f, "
           "\"received\": %llu}\n", (unsigned long long) sent, secs,
           (double) sent / secs, (unsigned long long) received);
    free(frames);
    free(seqs);
    return 0;
}

static int
sink(const struct options *o, struct netio *io)
{
    struct netio_pkt pkts[BATCH];
    uint64_t received = 0, bytes = 0, first = 0, last = 0;
    uint64_t end = time_ns() + (uint64_t) (o->duration * 1e9);

    while (!stop && (!o->count || received < o->count)) {
        size_t n = io->class->rx(io, pkts, BATCH);
        uint64_t now = time_ns();
        if (n) {
            if (!first) {
                first = now;
            }
            last = now;
            received += n;
            for (size_t i = 0; i < n; i++) {
                bytes += pkts[i].len;
            }
        }
        io->class->rx_done(io);
        if (now >= end) {
            break;
        }
    }
    double secs = first && last > first ? seconds(last - first) : 0;
    printf("{\"packets\": %llu, \"bytes\": %llu, \"seconds\": %.6f, "
           "\"pps\": %.0f}\n", (unsigned long long) received,
           (unsigned long long) bytes, secs,
           secs ? (double) received / secs : 0.0);
    return 0;
}

int
main(int argc, char *argv[])
{
    struct options o;
    struct netio_config cfg;
    struct netio *io;

    vlog_init(argv[0]);
    int status = parse_options(argc, argv, &o);
    if (status >= 0) {
        return status;
    }
    if (o.cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o.cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set)) {
            fprintf(stderr, "pktgen: --cpu %d: %s\n", o.cpu, strerror(errno));
            return 1;
        }
    }
    netio_config_init(&cfg);
    int error = netio_open(o.backend, o.iface, &cfg, &io);
    if (error == ENOTSUP) {
        return fail("unknown --backend", o.backend);
    } else if (error) {
        fprintf(stderr, "pktgen: cannot open %s: %s\n", o.iface,
                strerror(error));
        return 1;
    }
    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    status = o.sink ? sink(&o, io) : generate(&o, io);
    netio_close(io);
    return status;
}
