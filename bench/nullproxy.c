/*
 * nullproxy: the least an OpenFlow proxy in front of a bridge must do, as a baseline for the
 * OneSwitch flow_mod benchmark (bench/bench_oneswitch.py). It accepts TCP connections on
 * 127.0.0.1:PORT, one at a time, connects each to the bridge's Unix management socket and copies
 * bytes both ways with one epoll loop. It parses nothing, so whatever rate it reaches with a
 * barrier after each flow_mod is the ceiling of any proxy (OneSwitch included) on this machine.
 *
 *     nullproxy PORT UNIX_SOCKET_PATH
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Copies what `from` has to `to`; -1 on end of stream or error. */
static int pump(int from, int to)
{
    char buf[65536];
    ssize_t n;

    do {
        n = read(from, buf, sizeof buf);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        return -1;
    }
    for (ssize_t off = 0; off < n;) {
        ssize_t w = write(to, buf + off, (size_t) (n - off));
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w < 0) {
            return -1;
        }
        off += w;
    }
    return 0;
}

static int connect_unix(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (fd < 0 || connect(fd, (struct sockaddr *) &addr, sizeof addr) < 0) {
        perror("nullproxy: connect to the bridge");
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

/* Forwards between the client and a new bridge connection until either side closes. */
static void serve(int client, const char *path)
{
    int one = 1;
    int bridge = connect_unix(path);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN};

    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (bridge < 0 || ep < 0) {
        goto out;
    }
    ev.data.fd = client;
    epoll_ctl(ep, EPOLL_CTL_ADD, client, &ev);
    ev.data.fd = bridge;
    epoll_ctl(ep, EPOLL_CTL_ADD, bridge, &ev);
    for (;;) {
        struct epoll_event ready[2];
        int n = epoll_wait(ep, ready, 2, -1);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        for (int i = 0; i < n; i++) {
            int from = ready[i].data.fd;
            if (pump(from, from == client ? bridge : client) < 0) {
                goto out;
            }
        }
    }
out:
    if (ep >= 0) {
        close(ep);
    }
    if (bridge >= 0) {
        close(bridge);
    }
    close(client);
}

int main(int argc, char **argv)
{
    char *end;
    long port = argc == 3 ? strtol(argv[1], &end, 10) : 0;

    if (argc != 3 || *end != '\0' || port < 1 || port > 65535) {
        fprintf(stderr, "usage: nullproxy PORT UNIX_SOCKET_PATH (listens on 127.0.0.1:PORT)\n");
        return 2;
    }
    int one = 1;
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((unsigned short) port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(listener, (struct sockaddr *) &addr, sizeof addr) < 0 || listen(listener, 8) < 0) {
        perror("nullproxy: listen");
        return 1;
    }
    for (;;) {
        int client = accept(listener, NULL, NULL);
        if (client >= 0) {
            serve(client, argv[2]);
        } else if (errno != EINTR) {
            perror("nullproxy: accept");
            return 1;
        }
    }
}
