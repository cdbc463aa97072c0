/* buf.c -- growable output buffer and bounds-checked input cursor. */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
wbuf_init(struct wbuf *b, size_t capacity)
{
    b->data = capacity ? xmalloc(capacity) : NULL;
    b->len = 0;
    b->cap = capacity;
}

void
wbuf_uninit(struct wbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void
wbuf_clear(struct wbuf *b)
{
    b->len = 0;
}

void
wbuf_reserve(struct wbuf *b, size_t more)
{
    if (b->cap - b->len >= more) {
        return;
    }
    size_t cap = MAX(b->cap * 2, b->len + more);
    cap = MAX(cap, (size_t) 64);
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void *
wbuf_put_uninit(struct wbuf *b, size_t n)
{
    wbuf_reserve(b, n);
    void *p = b->data + b->len;
    b->len += n;
    return p;
}

void
wbuf_put(struct wbuf *b, const void *p, size_t n)
{
    if (n) {
        memcpy(wbuf_put_uninit(b, n), p, n);
    }
}

void
wbuf_put_u8(struct wbuf *b, uint8_t v)
{
    *(uint8_t *) wbuf_put_uninit(b, 1) = v;
}

void
wbuf_put_be16(struct wbuf *b, uint16_t v)
{
    put_be16(wbuf_put_uninit(b, 2), v);
}

void
wbuf_put_be32(struct wbuf *b, uint32_t v)
{
    put_be32(wbuf_put_uninit(b, 4), v);
}

void
wbuf_put_be64(struct wbuf *b, uint64_t v)
{
    put_be64(wbuf_put_uninit(b, 8), v);
}

void
wbuf_put_cstr(struct wbuf *b, const char *s)
{
    wbuf_put(b, s, strlen(s));
}

void
wbuf_printf(struct wbuf *b, const char *fmt, ...)
{
    va_list args;

    va_start(args, fmt);
    int n = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    if (n < 0) {
        return;
    }
    wbuf_reserve(b, (size_t) n + 1);
    va_start(args, fmt);
    vsnprintf((char *) b->data + b->len, (size_t) n + 1, fmt, args);
    va_end(args);
    b->len += (size_t) n;
}

void
wbuf_put_str8(struct wbuf *b, const char *s)
{
    size_t n = MIN(strlen(s), (size_t) 255);
    wbuf_put_u8(b, (uint8_t) n);
    wbuf_put(b, s, n);
}

const uint8_t *
rbuf_get(struct rbuf *r, size_t n)
{
    if (r->error || r->len - r->ofs < n) {
        r->error = true;
        return NULL;
    }
    const uint8_t *p = r->data + r->ofs;
    r->ofs += n;
    return p;
}

uint8_t
rbuf_u8(struct rbuf *r)
{
    const uint8_t *p = rbuf_get(r, 1);
    return p ? p[0] : 0;
}

uint16_t
rbuf_be16(struct rbuf *r)
{
    const uint8_t *p = rbuf_get(r, 2);
    return p ? get_be16(p) : 0;
}

uint32_t
rbuf_be32(struct rbuf *r)
{
    const uint8_t *p = rbuf_get(r, 4);
    return p ? get_be32(p) : 0;
}

uint64_t
rbuf_be64(struct rbuf *r)
{
    const uint8_t *p = rbuf_get(r, 8);
    return p ? get_be64(p) : 0;
}

void
rbuf_str8(struct rbuf *r, char *out, size_t size)
{
    size_t n = rbuf_u8(r);
    const uint8_t *p = rbuf_get(r, n);

    out[0] = '\0';
    if (!p || n >= size || memchr(p, '\0', n)) {
        r->error = true;
        return;
    }
    memcpy(out, p, n);
    out[n] = '\0';
}
