/* util.c -- allocation, number parsing, clock. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void
out_of_memory(void)
{
    fputs("fatal: out of memory\n", stderr);
    abort();
}

void *
xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        out_of_memory();
    }
    return p;
}

void *
xzalloc(size_t n)
{
    return xcalloc(1, n);
}

void *
xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) {
        out_of_memory();
    }
    return p;
}

void *
xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        out_of_memory();
    }
    return p;
}

char *
xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

int
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!s || !isdigit((unsigned char) s[0])) {
        return EINVAL;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno == ERANGE) {
        return ERANGE;
    }
    if (end == s || *end) {
        return EINVAL;
    }
    if (v < min || v > max) {
        return ERANGE;
    }
    *out = v;
    return 0;
}

static int
hex_digit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    } else if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

int
parse_hex_bytes(const char *s, uint8_t *out, size_t max, size_t *n)
{
    if (strncmp(s, "0x", 2) && strncmp(s, "0X", 2)) {
        return EINVAL;
    }
    s += 2;
    size_t len = strlen(s);
    if (!len || len % 2 || len / 2 > max) {
        return EINVAL;
    }
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hex_digit(s[2 * i]);
        int lo = hex_digit(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return EINVAL;
        }
        out[i] = (uint8_t) (hi << 4 | lo);
    }
    *n = len / 2;
    return 0;
}

uint64_t
time_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

const char *
errno_name(int error)
{
    const char *name = error ? strerrorname_np(error) : "OK";
    return name ? name : "EUNKNOWN";
}
