/* buf.h -- a growable output buffer and a bounds-checked input cursor.
 *
 * Codecs write with 'wbuf' and read with 'rbuf'.  An rbuf never reads past
 * its end: a read that does not fit sets a sticky error, returns zeros, and
 * every later read fails too, so a decoder can read a whole record and check
 * rbuf_ok() once. */
#ifndef UNONF_BUF_H
#define UNONF_BUF_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct wbuf {
    uint8_t *data;
    size_t len;
    size_t cap;
};

void wbuf_init(struct wbuf *, size_t capacity);
void wbuf_uninit(struct wbuf *);
void wbuf_clear(struct wbuf *);
void wbuf_reserve(struct wbuf *, size_t more);
void *wbuf_put_uninit(struct wbuf *, size_t);
void wbuf_put(struct wbuf *, const void *, size_t);
void wbuf_put_u8(struct wbuf *, uint8_t);
void wbuf_put_be16(struct wbuf *, uint16_t);
void wbuf_put_be32(struct wbuf *, uint32_t);
void wbuf_put_be64(struct wbuf *, uint64_t);
void wbuf_put_cstr(struct wbuf *, const char *);
void wbuf_printf(struct wbuf *, const char *fmt, ...) PRINTF_FORMAT(2, 3);
/* Appends a length-prefixed (u8) string of at most 255 bytes. */
void wbuf_put_str8(struct wbuf *, const char *);

struct rbuf {
    const uint8_t *data;
    size_t len;
    size_t ofs;
    bool error;
};

static inline void
rbuf_init(struct rbuf *r, const void *data, size_t len)
{
    r->data = data;
    r->len = len;
    r->ofs = 0;
    r->error = false;
}

static inline size_t
rbuf_remaining(const struct rbuf *r)
{
    return r->error ? 0 : r->len - r->ofs;
}

static inline bool
rbuf_ok(const struct rbuf *r)
{
    return !r->error;
}

/* Returns a pointer to the next 'n' bytes and advances, or NULL (and sets the
 * error) if fewer than 'n' remain. */
const uint8_t *rbuf_get(struct rbuf *, size_t n);
uint8_t rbuf_u8(struct rbuf *);
uint16_t rbuf_be16(struct rbuf *);
uint32_t rbuf_be32(struct rbuf *);
uint64_t rbuf_be64(struct rbuf *);
/* Reads a u8-length-prefixed string into 'out' (NUL-terminated; 'size' must
 * exceed the longest accepted string).  Embedded NULs are an error. */
void rbuf_str8(struct rbuf *, char *out, size_t size);

#endif /* buf.h */
