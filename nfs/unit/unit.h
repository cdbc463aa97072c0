/* unit.h -- a minimal harness for the C unit tests.
 *
 * Each test program has a main() that calls UNIT_RUN(test) for its tests
 * and returns unit_report().  A failed CHECK prints where and goes on. */
#ifndef UNIT_H
#define UNIT_H 1

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int unit_failures;
static int unit_checks;

#define CHECK(COND)                                                     \
    do {                                                                \
        unit_checks++;                                                  \
        if (!(COND)) {                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,      \
                    __LINE__, #COND);                                   \
            unit_failures++;                                            \
        }                                                               \
    } while (0)

#define CHECK_EQ(A, B)                                                  \
    do {                                                                \
        long long a_ = (long long) (A), b_ = (long long) (B);           \
        unit_checks++;                                                  \
        if (a_ != b_) {                                                 \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, "      \
                    "%s == %lld\n", __FILE__, __LINE__, #A, a_, #B, b_); \
            unit_failures++;                                            \
        }                                                               \
    } while (0)

#define UNIT_RUN(TEST)                                                  \
    do {                                                                \
        int before_ = unit_failures;                                    \
        TEST();                                                         \
        if (unit_failures != before_) {                                 \
            fprintf(stderr, "FAILED: %s\n", #TEST);                     \
        }                                                               \
    } while (0)

static inline int
unit_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
    return unit_failures ? 1 : 0;
}

/* Writes 'text' to a fresh temporary file; returns its path (static). */
static inline const char *
unit_temp_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/unonf-unit-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t) strlen(text)) {
        perror("unit_temp_file");
        exit(2);
    }
    close(fd);
    return path;
}

#endif /* unit.h */
