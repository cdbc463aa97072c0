/* vlog.c -- leveled, rate-limited logging to stderr. */
#include "vlog.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *program_name = "unonf";
static enum vlog_level max_level = VLL_INFO;
static const char *const level_names[] = { "err", "warn", "info", "dbg" };

void
vlog_init(const char *program)
{
    const char *slash = strrchr(program, '/');
    program_name = slash ? slash + 1 : program;
}

int
vlog_set_level_name(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(level_names); i++) {
        if (!strcmp(name, level_names[i])) {
            max_level = (enum vlog_level) i;
            return 0;
        }
    }
    return EINVAL;
}

bool
vlog_is_enabled(enum vlog_level level)
{
    return level <= max_level;
}

static void
vlog_valist(enum vlog_level level, unsigned int suppressed,
            const char *fmt, va_list args)
{
    char msg[512];
    struct timespec ts;

    vsnprintf(msg, sizeof msg, fmt, args);
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    if (suppressed) {
        fprintf(stderr,
                "%s.%03ldZ %s %s: %s (%u similar messages suppressed)\n",
                when, ts.tv_nsec / 1000000, program_name, level_names[level],
                msg, suppressed);
    } else {
        fprintf(stderr, "%s.%03ldZ %s %s: %s\n", when, ts.tv_nsec / 1000000,
                program_name, level_names[level], msg);
    }
}

void
vlog(enum vlog_level level, const char *fmt, ...)
{
    if (!vlog_is_enabled(level)) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    vlog_valist(level, 0, fmt, args);
    va_end(args);
}

void
vlog_rl(struct vlog_rl *rl, enum vlog_level level, const char *fmt, ...)
{
    if (!vlog_is_enabled(level)) {
        return;
    }
    uint64_t second = time_ns() / 1000000000ull;
    if (second != rl->second) {
        rl->second = second;
        rl->used = 0;
    }
    if (rl->used >= rl->burst) {
        rl->suppressed++;
        return;
    }
    rl->used++;

    va_list args;
    va_start(args, fmt);
    vlog_valist(level, rl->suppressed, fmt, args);
    va_end(args);
    rl->suppressed = 0;
}
