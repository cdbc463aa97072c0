/* nfrt.c -- command line, packet I/O, control socket and poll loop. */
#include "nfrt.h"

#define _GNU_SOURCE 1
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "netio.h"
#include "nfcore.h"
#include "nfctl.h"
#include "version.h"
#include "vlog.h"

#define EXIT_USAGE 2
#define POLL_IDLE_MS 100
#define CTL_CHECK_NS 1000000ull         /* Control every 1 ms when busy. */
#define HOUSEKEEPING_NS 100000000ull
#define EXPIRE_PER_ROUND 10000
#define RELEASE_PER_ROUND (4 * NF_BATCH_MAX)
/* Bursts read before a control request is answered: a burst reads one ring
 * block at most, and what came before the request may fill several. */
#define RECEIVE_BEFORE_ANSWER_MAX 1024
#define TX_WAIT_NS 100000000ull         /* For ring space, before dropping. */
#define MAX_POLLFDS (NF_PORT_MAX + CTL_MAX_CLIENTS + 1)
/* A polled port (DPDK) has no descriptor to wake the loop.  As Open vSwitch's
 * pmd-maxsleep does, the loop polls on while rounds bring NAP_BATCH packets
 * or more, and naps after a round that brought fewer, each nap twice the last
 * from NAP_FIRST_NS up to --max-sleep-us: a loaded NF polls, a lightly loaded
 * or idle one sleeps.  (Spinning a while after each packet instead kept an NF
 * at 10,000 packets/s polling its whole core, and starved the switch that
 * shared its CPU quota.) */
#define NAP_BATCH 32
#define NAP_FIRST_NS 2000ull
#define MAX_SLEEP_US_DEFAULT 500
#define TIMER_SLACK_NS 2000ul

struct nfrt_options {
    const char *ports[NF_PORT_MAX];
    const char *control;
    const char *config;
    const char *backend;
    bool buffering;
    bool check_config;
    int cpu;
    unsigned int max_sleep_us;
    struct nfcore_config core;
    struct netio_config io;
};

struct nfrt {
    const struct nf_class *class;
    struct nfcore *core;
    struct netio *ports[NF_PORT_MAX];
    size_t n_ports;
    bool polled;                /* A port has no descriptor to poll. */
    uint64_t max_nap_ns;
    struct ctl_server *ctl;
    struct nfctl nfctl;
    uint64_t tx_dropped;        /* Packets that found the tx ring full. */
    uint64_t busy_ns;           /* In rounds that had packets to handle. */
    struct nf_batch batch;
    struct netio_pkt io_pkts[NF_BATCH_MAX];
};

static volatile sig_atomic_t stop_signal;

static void
on_signal(int sig)
{
    stop_signal = sig;
}

static void
usage(const struct nf_class *class)
{
    printf("%s -- %s\n\n"
           "usage: %s --iface IF [options]\n\n"
           "Receives packets on IF, processes them and transmits the result\n"
           "back out of IF (or, with --out-iface, out of the other one).\n\n"
           "options:\n"
           "  -i, --iface IF        interface to receive from and send to\n"
           "  -o, --out-iface IF    second interface (two-port mode)\n"
           "  -c, --control PATH    Unix socket for the control protocol\n"
           "  -f, --config FILE     configuration file%s\n"
           "      --check-config    validate the configuration and exit\n"
           "      --buffering       start in buffering mode (migration\n"
           "                        target)\n"
           "      --unparsed pass|drop\n"
           "                        packets that do not parse (default %s)\n"
           "      --max-flows N     flow table size (default 1048576)\n"
           "      --flow-timeout S  expire flows idle for S seconds\n"
           "                        (default 300, 0 = never)\n"
           "      --hold-packets N  buffering bound in packets (default\n"
           "                        1048576)\n"
           "      --hold-bytes N    buffering bound in bytes (default\n"
           "                        512 MiB)\n"
           "      --backend NAME    packet I/O provider: %s (default\n"
           "                        afpacket)\n"
           "      --rx-ring-mb N    receive ring size (default 8)\n"
           "      --rx-timeout-ms N longest a packet waits in the receive\n"
           "                        ring (default 1)\n"
           "      --max-sleep-us N  longest an idle polled (dpdk) port sleeps\n"
           "                        between polls (default %d, 0 = never\n"
           "                        sleep)\n"
           "      --cpu N           pin to CPU N\n"
           "      --log-level L     err, warn, info or dbg (default info)\n"
           "  -h, --help            this help\n"
           "  -V, --version         version\n\n"
           "configuration file:\n%s",
           class->name, class->summary, class->name,
           class->flags & NF_CONFIG_REQUIRED ? " (required)" : "",
           class->flags & NF_UNPARSED_DROP ? "drop" : "pass",
           netio_backends(), MAX_SLEEP_US_DEFAULT, class->config_help);
}

static int usage_error(const struct nf_class *, const char *fmt, ...)
    PRINTF_FORMAT(2, 3);

static int
usage_error(const struct nf_class *class, const char *fmt, ...)
{
    va_list args;

    fprintf(stderr, "%s: ", class->name);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fprintf(stderr, " (try --help)\n");
    return EXIT_USAGE;
}

enum {
    OPT_BUFFERING = 256, OPT_CHECK_CONFIG, OPT_UNPARSED, OPT_MAX_FLOWS,
    OPT_FLOW_TIMEOUT, OPT_HOLD_PACKETS, OPT_HOLD_BYTES, OPT_BACKEND,
    OPT_RX_RING_MB, OPT_RX_TIMEOUT, OPT_MAX_SLEEP, OPT_CPU, OPT_LOG_LEVEL,
};

static const struct option long_options[] = {
    { "iface", required_argument, NULL, 'i' },
    { "out-iface", required_argument, NULL, 'o' },
    { "control", required_argument, NULL, 'c' },
    { "config", required_argument, NULL, 'f' },
    { "check-config", no_argument, NULL, OPT_CHECK_CONFIG },
    { "buffering", no_argument, NULL, OPT_BUFFERING },
    { "unparsed", required_argument, NULL, OPT_UNPARSED },
    { "max-flows", required_argument, NULL, OPT_MAX_FLOWS },
    { "flow-timeout", required_argument, NULL, OPT_FLOW_TIMEOUT },
    { "hold-packets", required_argument, NULL, OPT_HOLD_PACKETS },
    { "hold-bytes", required_argument, NULL, OPT_HOLD_BYTES },
    { "backend", required_argument, NULL, OPT_BACKEND },
    { "rx-ring-mb", required_argument, NULL, OPT_RX_RING_MB },
    { "rx-timeout-ms", required_argument, NULL, OPT_RX_TIMEOUT },
    { "max-sleep-us", required_argument, NULL, OPT_MAX_SLEEP },
    { "cpu", required_argument, NULL, OPT_CPU },
    { "log-level", required_argument, NULL, OPT_LOG_LEVEL },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

/* Parses the value of numeric option 'name'.  Returns 0 or EXIT_USAGE. */
static int
number_arg(const struct nf_class *class, const char *name, const char *arg,
           uint64_t min, uint64_t max, uint64_t *out)
{
    if (parse_u64(arg, min, max, out)) {
        return usage_error(class, "--%s: '%s' is not a number in [%llu, %llu]",
                           name, arg, (unsigned long long) min,
                           (unsigned long long) max);
    }
    return 0;
}

/* Returns -1 to go on, or an exit status. */
static int
parse_options(const struct nf_class *class, int argc, char *argv[],
              struct nfrt_options *o)
{
    memset(o, 0, sizeof *o);
    o->backend = "afpacket";
    o->cpu = -1;
    o->max_sleep_us = MAX_SLEEP_US_DEFAULT;
    nfcore_config_init(&o->core, class);
    netio_config_init(&o->io);

    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, ":i:o:c:f:hV", long_options, NULL);
        uint64_t v = 0;
        int status = 0;

        if (c == -1) {
            break;
        }
        switch (c) {
        case 'i': o->ports[0] = optarg; break;
        case 'o': o->ports[1] = optarg; break;
        case 'c': o->control = optarg; break;
        case 'f': o->config = optarg; break;
        case OPT_CHECK_CONFIG: o->check_config = true; break;
        case OPT_BUFFERING: o->buffering = true; break;
        case OPT_BACKEND: o->backend = optarg; break;
        case OPT_UNPARSED:
            if (strcmp(optarg, "pass") && strcmp(optarg, "drop")) {
                return usage_error(class, "--unparsed: '%s' is not pass or "
                                   "drop", optarg);
            }
            o->core.unparsed_drop = !strcmp(optarg, "drop");
            break;
        case OPT_MAX_FLOWS:
            status = number_arg(class, "max-flows", optarg, 1, 1u << 26, &v);
            o->core.max_flows = v;
            break;
        case OPT_FLOW_TIMEOUT:
            status = number_arg(class, "flow-timeout", optarg, 0, 86400 * 365,
                                &v);
            o->core.flow_timeout_ns = v * 1000000000ull;
            break;
        case OPT_HOLD_PACKETS:
            status = number_arg(class, "hold-packets", optarg, 1, 1u << 26,
                                &v);
            o->core.hold_packets = v;
            break;
        case OPT_HOLD_BYTES:
            status = number_arg(class, "hold-bytes", optarg, 65536, 1ull << 36,
                                &v);
            o->core.hold_bytes = v;
            break;
        case OPT_RX_RING_MB:
            status = number_arg(class, "rx-ring-mb", optarg, 1, 4096, &v);
            o->io.rx_ring_bytes = v << 20;
            break;
        case OPT_RX_TIMEOUT:
            status = number_arg(class, "rx-timeout-ms", optarg, 1, 1000, &v);
            o->io.rx_timeout_ms = (unsigned int) v;
            break;
        case OPT_MAX_SLEEP:
            status = number_arg(class, "max-sleep-us", optarg, 0, 100000, &v);
            o->max_sleep_us = (unsigned int) v;
            break;
        case OPT_CPU:
            status = number_arg(class, "cpu", optarg, 0, CPU_SETSIZE - 1, &v);
            o->cpu = (int) v;
            break;
        case OPT_LOG_LEVEL:
            if (vlog_set_level_name(optarg)) {
                return usage_error(class, "--log-level: unknown level '%s'",
                                   optarg);
            }
            break;
        case 'h':
            usage(class);
            return 0;
        case 'V':
            printf("%s (UNO network functions) %s\n", class->name,
                   UNONF_VERSION);
            return 0;
        case ':':
            return usage_error(class, "option '%s' needs a value",
                               argv[optind - 1]);
        default:
            return usage_error(class, "unknown option '%s'",
                               argv[optind - 1]);
        }
        if (status) {
            return status;
        }
    }
    if (optind < argc) {
        return usage_error(class, "unexpected argument '%s'", argv[optind]);
    }
    if (!o->config && class->flags & NF_CONFIG_REQUIRED) {
        return usage_error(class, "--config is required");
    }
    if (!o->ports[0] && !o->check_config) {
        return usage_error(class, "--iface is required");
    }
    o->core.two_port = o->ports[1] != NULL;
    return -1;
}

/* Transmits 'n' packets on 'io', waiting a little for ring space rather than
 * dropping. */
static void
send_all(struct nfrt *rt, struct netio *io, struct netio_pkt *pkts, size_t n)
{
    static struct vlog_rl rl = VLOG_RL_INIT(5);
    size_t done = 0;
    uint64_t deadline = 0;

    while (done < n) {
        done += io->class->tx(io, pkts + done, n - done);
        if (done < n) {
            uint64_t now = time_ns();
            if (!deadline) {
                deadline = now + TX_WAIT_NS;
            } else if (now >= deadline) {
                rt->tx_dropped += n - done;
                VLOG_WARN_RL(&rl, "%s: transmit ring full, dropped %zu "
                             "packets", io->name, n - done);
                return;
            }
            io->class->tx_wait(io, 1);
        }
    }
}

static void
output(void *aux, struct nf_batch *b)
{
    struct nfrt *rt = aux;

    for (size_t port = 0; port < rt->n_ports; port++) {
        size_t n = 0;
        for (size_t i = 0; i < b->n; i++) {
            const struct nf_pkt *p = &b->pkts[i];
            if (p->verdict == NF_PASS && p->out_port == port) {
                rt->io_pkts[n++] = (struct netio_pkt) { p->data, p->len };
            }
        }
        if (n) {
            send_all(rt, rt->ports[port], rt->io_pkts, n);
        }
    }
}

static void
stats_hook(void *aux, struct json *j)
{
    struct nfrt *rt = aux;
    struct netio_stats sum = { 0 };

    json_arr_open(j, "ports");
    for (size_t i = 0; i < rt->n_ports; i++) {
        struct netio *io = rt->ports[i];
        struct netio_stats st;

        io->class->get_stats(io, &st);
        json_obj_open(j, NULL);
        json_str(j, "name", io->name);
        json_u64(j, "rx", st.rx_packets);
        json_u64(j, "tx", st.tx_packets);
        json_u64(j, "rx_kernel_drops", st.rx_kernel_drops);
        json_u64(j, "rx_truncated", st.rx_truncated);
        json_u64(j, "tx_errors", st.tx_errors);
        json_obj_close(j);
        sum.tx_packets += st.tx_packets;
        sum.rx_kernel_drops += st.rx_kernel_drops;
        sum.rx_truncated += st.rx_truncated;
        sum.tx_errors += st.tx_errors;
    }
    json_arr_close(j);
    json_u64(j, "tx", sum.tx_packets);
    json_u64(j, "tx_errors", sum.tx_errors);
    json_u64(j, "tx_dropped", rt->tx_dropped);
    /* A polling NF (dpdk) uses its whole core: its load is this share. */
    json_u64(j, "busy_ns", rt->busy_ns);
    json_u64(j, "rx_kernel_drops", sum.rx_kernel_drops);
    json_u64(j, "rx_truncated", sum.rx_truncated);
    json_u64(j, "drop", nfcore_counters(rt->core)->nf_drop
             + nfcore_counters(rt->core)->unparsed_drop
             + nfcore_counters(rt->core)->hold_drop
             + rt->tx_dropped + sum.tx_errors + sum.rx_kernel_drops
             + sum.rx_truncated);
}

static void
control_request(void *aux, uint8_t *req, size_t len, struct wbuf *reply)
{
    struct nfrt *rt = aux;
    nfctl_execute(&rt->nfctl, req, len, reply);
}

/* Receives one batch from each port.  Returns how many packets came. */
static size_t
receive(struct nfrt *rt)
{
    size_t received = 0;

    for (size_t port = 0; port < rt->n_ports; port++) {
        struct netio *io = rt->ports[port];
        size_t n = io->class->rx(io, rt->io_pkts, NF_BATCH_MAX);

        if (n) {
            struct nf_batch *b = &rt->batch;
            for (size_t i = 0; i < n; i++) {
                b->pkts[i].data = rt->io_pkts[i].data;
                b->pkts[i].len = rt->io_pkts[i].len;
                b->pkts[i].port = (uint8_t) port;
            }
            b->n = n;
            nfcore_receive(rt->core, b);
            received += n;
        }
        io->class->rx_done(io);
    }
    return received;
}

/* How long the loop may wait for a descriptor: not at all after a loaded
 * round, else a nap on polled ports (the previous nap, updated) or up to
 * POLL_IDLE_MS on descriptors. */
static struct timespec
wait_time(const struct nfrt *rt, bool loaded, bool busy, uint64_t *nap_ns)
{
    uint64_t ns;

    if (loaded || (busy && !rt->polled)) {
        ns = *nap_ns = 0;
    } else if (rt->polled) {
        ns = *nap_ns = MIN(*nap_ns ? 2 * *nap_ns : NAP_FIRST_NS,
                           rt->max_nap_ns);
    } else {
        ns = POLL_IDLE_MS * 1000000ull;
    }
    return (struct timespec) { .tv_sec = (time_t) (ns / 1000000000ull),
                               .tv_nsec = (long) (ns % 1000000000ull) };
}

static void
run(struct nfrt *rt)
{
    uint64_t next_ctl = 0, next_housekeeping = 0;
    uint64_t nap_ns = 0;
    uint64_t round_start = time_ns();

    while (!stop_signal) {
        size_t received = receive(rt);
        bool releasing = nfcore_hold_state(rt->core) == NFCORE_RELEASING;
        if (releasing) {
            nfcore_release_step(rt->core, RELEASE_PER_ROUND);
        }
        bool busy = received || releasing;
        /* Worth polling again at once (descriptors: anything came). */
        bool loaded = releasing || received >= (rt->polled ? NAP_BATCH : 1);
        uint64_t now = time_ns();

        if (busy) {
            rt->busy_ns += now - round_start;
            round_start = now;
        }
        if (loaded && now < next_ctl) {
            continue;
        }
        next_ctl = now + CTL_CHECK_NS;

        struct pollfd fds[MAX_POLLFDS];
        size_t n = 0;
        if (!busy) {
            for (size_t i = 0; i < rt->n_ports; i++) {
                struct netio *io = rt->ports[i];
                fds[n++] = (struct pollfd) {
                    .fd = io->class->rx_fd(io), .events = POLLIN,
                };
            }
        }
        size_t first_ctl = n;
        if (rt->ctl) {
            n += ctl_server_pollfds(rt->ctl, fds + n, MAX_POLLFDS - n);
        }
        struct timespec wait = wait_time(rt, loaded, busy, &nap_ns);
        int ready = ppoll(fds, (nfds_t) n, &wait, NULL);
        if (ready > 0 && rt->ctl) {
            /* The ports first: an answer (the idle time in stats, the packets
             * a take returns) then covers every packet that reached them
             * before the request, also one that came during a nap on a
             * polled port, which has no descriptor to wake the loop. Read
             * until they are empty: a burst stops at the end of a ring block
             * (5 packets were answered as 1 when the kernel had handed them
             * over in two blocks). */
            for (int i = 0; i < RECEIVE_BEFORE_ANSWER_MAX && receive(rt); i++) {
            }
            ctl_server_run(rt->ctl, fds + first_ctl, n - first_ctl);
        }

        now = round_start = time_ns();
        if (now >= next_housekeeping) {
            next_housekeeping = now + HOUSEKEEPING_NS;
            nfcore_expire(rt->core, now, EXPIRE_PER_ROUND);
        }
    }
}

static int
pin_cpu(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) ? errno : 0;
}

static void
nfrt_destroy(struct nfrt *rt)
{
    ctl_server_destroy(rt->ctl);
    for (size_t i = 0; i < rt->n_ports; i++) {
        netio_close(rt->ports[i]);
    }
    nfcore_destroy(rt->core);
    free(rt);
}

/* Sets up everything but the loop.  Returns 0 or an exit status. */
static int
nfrt_setup(struct nfrt *rt, const struct nfrt_options *o)
{
    char err[512] = "";
    int error;

    error = nfcore_create(rt->class, o->config, &o->core, output, rt,
                          &rt->core, err, sizeof err);
    if (error) {
        fprintf(stderr, "%s: %s\n", rt->class->name,
                err[0] ? err : strerror(error));
        return EXIT_USAGE;
    }
    if (o->check_config) {
        printf("%s: configuration is valid\n", rt->class->name);
        return 0;
    }
    if (o->cpu >= 0 && (error = pin_cpu(o->cpu))) {
        fprintf(stderr, "%s: --cpu %d: %s\n", rt->class->name, o->cpu,
                strerror(error));
        return 1;
    }
    for (size_t i = 0; i < NF_PORT_MAX && o->ports[i]; i++) {
        error = netio_open(o->backend, o->ports[i], &o->io, &rt->ports[i]);
        if (error) {
            fprintf(stderr, "%s: cannot open interface %s (%s): %s\n",
                    rt->class->name, o->ports[i], o->backend,
                    error == ENOTSUP ? "unknown backend" : strerror(error));
            return error == ENOTSUP ? EXIT_USAGE : 1;
        }
        rt->n_ports++;
        rt->polled |= rt->ports[i]->class->rx_fd(rt->ports[i]) < 0;
    }
    rt->max_nap_ns = o->max_sleep_us * 1000ull;
    if (rt->polled) {
        /* Naps of microseconds, not the default 50 us of timer slack. */
        prctl(PR_SET_TIMERSLACK, TIMER_SLACK_NS);
    }
    if (o->buffering) {
        nfcore_buffer_start(rt->core);
    }
    rt->nfctl = (struct nfctl) { rt->core, stats_hook, rt };
    if (o->control) {
        error = ctl_server_create(o->control, control_request, rt, &rt->ctl);
        if (error) {
            fprintf(stderr, "%s: cannot listen on control socket %s: %s\n",
                    rt->class->name, o->control, strerror(error));
            return 1;
        }
    }
    return -1;
}

int
nfrt_main(const struct nf_class *class, int argc, char *argv[])
{
    struct nfrt_options o;
    int status;

    vlog_init(class->name);
    status = parse_options(class, argc, argv, &o);
    if (status >= 0) {
        return status;
    }

    struct nfrt *rt = xzalloc(sizeof *rt);
    rt->class = class;
    status = nfrt_setup(rt, &o);
    if (status < 0) {
        struct sigaction sa = { .sa_handler = on_signal };
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);

        VLOG_INFO("%s %s ready on %s%s%s%s%s", class->name, UNONF_VERSION,
                  o.ports[0], o.ports[1] ? " and " : "",
                  o.ports[1] ? o.ports[1] : "",
                  o.control ? ", control " : "", o.control ? o.control : "");
        run(rt);
        VLOG_INFO("exiting on signal %d", (int) stop_signal);
        status = 0;
    }
    nfrt_destroy(rt);
    return status;
}
