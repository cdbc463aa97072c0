/* util.h -- small helpers shared by every module of libunonf. */
#ifndef UNONF_UTIL_H
#define UNONF_UTIL_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(A) (sizeof (A) / sizeof (A)[0])
#define MIN(A, B) ((A) < (B) ? (A) : (B))
#define MAX(A, B) ((A) > (B) ? (A) : (B))
#define ROUND_UP(X, Y) (((X) + ((Y) - 1)) / (Y) * (Y))
#define OBJECT_CONTAINING(PTR, TYPE, MEMBER) \
    ((TYPE *) (void *) ((char *) (PTR) - offsetof(TYPE, MEMBER)))
#define PRINTF_FORMAT(FMT, ARG0) __attribute__((format(printf, FMT, ARG0)))
#define NO_RETURN __attribute__((noreturn))
#define OVS_UNUSED __attribute__((unused))
#define OVS_LIKELY(X) __builtin_expect(!!(X), 1)
#define OVS_UNLIKELY(X) __builtin_expect(!!(X), 0)

/* Allocation that aborts instead of returning NULL (as OVS's xmalloc). */
void *xmalloc(size_t);
void *xzalloc(size_t);
void *xcalloc(size_t, size_t);
void *xrealloc(void *, size_t);
char *xstrdup(const char *);
void out_of_memory(void) NO_RETURN;

/* Number parsing: the whole string must be a number within [min, max].
 * Accepts decimal, or hexadecimal with a 0x prefix.  Return 0 or EINVAL /
 * ERANGE. */
int parse_u64(const char *, uint64_t min, uint64_t max, uint64_t *);

/* Parses "0x" followed by an even number of hex digits into 'out' (at most
 * 'max' bytes); stores the byte count in '*n'.  Returns 0 or EINVAL. */
int parse_hex_bytes(const char *, uint8_t *out, size_t max, size_t *n);

/* Big-endian loads and stores that do not assume alignment. */
static inline uint16_t
get_be16(const uint8_t *p)
{
    return (uint16_t) (p[0] << 8 | p[1]);
}

static inline uint32_t
get_be32(const uint8_t *p)
{
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
           | (uint32_t) p[2] << 8 | p[3];
}

static inline uint64_t
get_be64(const uint8_t *p)
{
    return (uint64_t) get_be32(p) << 32 | get_be32(p + 4);
}

static inline void
put_be16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static inline void
put_be32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

static inline void
put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, v >> 32);
    put_be32(p + 4, v);
}

/* Monotonic clock. */
uint64_t time_ns(void);

/* Human-readable name of an errno value ("EINVAL"), for the control
 * protocol's error replies. */
const char *errno_name(int);

#endif /* util.h */
