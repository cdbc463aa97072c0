/* nfctl.h -- the commands of the NF control protocol (see README.md).
 *
 * nfctl_execute() turns one request into one reply; framing and sockets are
 * ctl.c's business.  A request is a command line, a newline and an optional
 * binary body; a reply is "ok[ words]\n" and an optional body, or
 * "error ERRNO-NAME message\n". */
#ifndef UNONF_NFCTL_H
#define UNONF_NFCTL_H 1

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "json.h"
#include "nfcore.h"

#define NFCTL_TAKE_MAX_BYTES (64u << 20)

struct nfctl {
    struct nfcore *core;
    /* Optional: adds the I/O layer's members to the 'stats' object. */
    void (*stats_hook)(void *aux, struct json *);
    void *aux;
};

/* Executes the request in 'req' (modified in place) and appends the reply
 * to 'reply'. */
void nfctl_execute(const struct nfctl *, uint8_t *req, size_t len,
                   struct wbuf *reply);

#endif /* nfctl.h */
