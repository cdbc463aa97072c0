/* ctl.h -- the Unix stream socket that carries the control protocol.
 *
 * Framing: every request and every reply is a 4-byte big-endian length N
 * followed by N bytes.  A client may send several requests; replies come in
 * order.  The server never blocks: it reads and writes what the sockets
 * accept and keeps partial frames per client. */
#ifndef UNONF_CTL_H
#define UNONF_CTL_H 1

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define CTL_MAX_FRAME (1u << 30)
#define CTL_MAX_CLIENTS 16

/* Handles one request (which it may modify) and appends the reply. */
typedef void ctl_request_func(void *aux, uint8_t *req, size_t len,
                              struct wbuf *reply);

struct ctl_server;

/* Listens on 'path'.  A stale socket file is replaced; one that a live
 * process answers on is not (EADDRINUSE). */
int ctl_server_create(const char *path, ctl_request_func *, void *aux,
                      struct ctl_server **);
void ctl_server_destroy(struct ctl_server *);

/* Adds the server's descriptors to 'fds' (at most 'max'); returns how many. */
size_t ctl_server_pollfds(const struct ctl_server *, struct pollfd *fds,
                          size_t max);
/* Serves whatever is ready among 'fds', as filled by ctl_server_pollfds()
 * and then polled. */
void ctl_server_run(struct ctl_server *, const struct pollfd *fds, size_t n);

#endif /* ctl.h */
