/* ctl.c -- non-blocking Unix stream server for length-framed requests. */
#include "ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util.h"
#include "vlog.h"

#define READ_CHUNK (256u << 10)

struct ctl_client {
    int fd;
    struct wbuf in;             /* Bytes received, not yet handled. */
    struct wbuf out;            /* Replies not yet sent... */
    size_t out_ofs;             /* ...from this offset. */
    bool eof;                   /* The client will send nothing more. */
};

struct ctl_server {
    int fd;
    char *path;
    ctl_request_func *cb;
    void *aux;
    struct ctl_client *clients[CTL_MAX_CLIENTS];
    size_t n_clients;
};

static int
make_addr(const char *path, struct sockaddr_un *sun)
{
    memset(sun, 0, sizeof *sun);
    sun->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sun->sun_path) {
        return ENAMETOOLONG;
    }
    strcpy(sun->sun_path, path);
    return 0;
}

/* Removes 'path' if it is a socket that nobody answers on. */
static int
remove_stale(const char *path, const struct sockaddr_un *sun)
{
    struct stat st;

    if (lstat(path, &st)) {
        return errno == ENOENT ? 0 : errno;
    }
    if (!S_ISSOCK(st.st_mode)) {
        return EEXIST;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return errno;
    }
    int error = connect(fd, (const struct sockaddr *) sun, sizeof *sun)
                ? errno : EADDRINUSE;
    close(fd);
    if (error == EADDRINUSE) {
        return error;
    }
    return unlink(path) ? errno : 0;
}

int
ctl_server_create(const char *path, ctl_request_func *cb, void *aux,
                  struct ctl_server **serverp)
{
    struct sockaddr_un sun;
    int error;

    *serverp = NULL;
    error = make_addr(path, &sun);
    if (!error) {
        error = remove_stale(path, &sun);
    }
    if (error) {
        return error;
    }

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return errno;
    }
    if (bind(fd, (struct sockaddr *) &sun, sizeof sun)
        || chmod(path, 0660) || listen(fd, 16)) {
        error = errno;
        close(fd);
        return error;
    }

    struct ctl_server *s = xzalloc(sizeof *s);
    s->fd = fd;
    s->path = xstrdup(path);
    s->cb = cb;
    s->aux = aux;
    *serverp = s;
    return 0;
}

static void
client_close(struct ctl_server *s, size_t i)
{
    struct ctl_client *c = s->clients[i];

    close(c->fd);
    wbuf_uninit(&c->in);
    wbuf_uninit(&c->out);
    free(c);
    s->clients[i] = s->clients[--s->n_clients];
}

void
ctl_server_destroy(struct ctl_server *s)
{
    if (!s) {
        return;
    }
    while (s->n_clients) {
        client_close(s, 0);
    }
    close(s->fd);
    unlink(s->path);
    free(s->path);
    free(s);
}

size_t
ctl_server_pollfds(const struct ctl_server *s, struct pollfd *fds, size_t max)
{
    size_t n = 0;

    if (n < max) {
        fds[n++] = (struct pollfd) { .fd = s->fd, .events = POLLIN };
    }
    for (size_t i = 0; i < s->n_clients && n < max; i++) {
        const struct ctl_client *c = s->clients[i];
        short events = c->out.len > c->out_ofs ? POLLOUT : POLLIN;
        fds[n++] = (struct pollfd) { .fd = c->fd, .events = events };
    }
    return n;
}

static void
accept_clients(struct ctl_server *s)
{
    static struct vlog_rl rl = VLOG_RL_INIT(5);

    for (;;) {
        int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EINTR) {
                VLOG_WARN_RL(&rl, "control accept: %s", strerror(errno));
            }
            return;
        }
        if (s->n_clients >= CTL_MAX_CLIENTS) {
            VLOG_WARN_RL(&rl, "control: too many clients, refusing one");
            close(fd);
            continue;
        }
        struct ctl_client *c = xzalloc(sizeof *c);
        c->fd = fd;
        s->clients[s->n_clients++] = c;
    }
}

/* Sends pending output.  Returns false if the client must be closed. */
static bool
client_flush(struct ctl_client *c)
{
    while (c->out_ofs < c->out.len) {
        ssize_t n = send(c->fd, c->out.data + c->out_ofs,
                         c->out.len - c->out_ofs, MSG_NOSIGNAL);
        if (n < 0) {
            return errno == EAGAIN || errno == EINTR;
        }
        c->out_ofs += (size_t) n;
    }
    wbuf_clear(&c->out);
    c->out_ofs = 0;
    return true;
}

/* Handles the complete frames in the input buffer.  Returns false on a bad
 * frame. */
static bool
client_handle(struct ctl_server *s, struct ctl_client *c)
{
    size_t ofs = 0;

    while (c->out.len == c->out_ofs && c->in.len - ofs >= 4) {
        uint32_t n = get_be32(c->in.data + ofs);
        if (n > CTL_MAX_FRAME) {
            return false;
        }
        if (c->in.len - ofs - 4 < n) {
            break;
        }
        size_t hdr = c->out.len;
        wbuf_put_be32(&c->out, 0);
        s->cb(s->aux, c->in.data + ofs + 4, n, &c->out);
        put_be32(c->out.data + hdr, (uint32_t) (c->out.len - hdr - 4));
        ofs += 4 + (size_t) n;
        if (!client_flush(c)) {
            return false;
        }
    }
    memmove(c->in.data, c->in.data + ofs, c->in.len - ofs);
    c->in.len -= ofs;
    return true;
}

/* Reads what is available.  Returns false on a read error. */
static bool
client_read(struct ctl_client *c)
{
    for (;;) {
        wbuf_reserve(&c->in, READ_CHUNK);
        ssize_t n = recv(c->fd, c->in.data + c->in.len, c->in.cap - c->in.len,
                         0);
        if (n > 0) {
            c->in.len += (size_t) n;
        } else if (n == 0) {
            c->eof = true;
            return true;
        } else {
            return errno == EAGAIN || errno == EINTR;
        }
    }
}

/* Returns false if the client is done or broken. */
static bool
client_run(struct ctl_server *s, struct ctl_client *c, short revents)
{
    if (revents & POLLOUT && !client_flush(c)) {
        return false;
    }
    if (revents & (POLLIN | POLLHUP | POLLERR) && !c->eof
        && !client_read(c)) {
        return false;
    }
    if (!client_handle(s, c)) {
        return false;
    }
    return !c->eof || c->out.len > c->out_ofs;
}

void
ctl_server_run(struct ctl_server *s, const struct pollfd *fds, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (fds[i].fd == s->fd && fds[i].revents) {
            accept_clients(s);
        }
    }
    for (size_t i = 0; i < s->n_clients;) {
        struct ctl_client *c = s->clients[i];
        short revents = 0;
        for (size_t k = 0; k < n; k++) {
            if (fds[k].fd == c->fd) {
                revents = fds[k].revents;
            }
        }
        if (revents && !client_run(s, c, revents)) {
            client_close(s, i);
        } else {
            i++;
        }
    }
}
