/* vlog.h -- leveled logging to stderr with per-call-site rate limiting.
 *
 * Messages that can be triggered by traffic (a malformed packet, a full
 * table) must use the _RL variants so that a flood of bad packets cannot
 * flood the log:
 *
 *     static struct vlog_rl rl = VLOG_RL_INIT(5);
 *     VLOG_WARN_RL(&rl, "truncated ESP packet (%u bytes)", len);
 */
#ifndef UNONF_VLOG_H
#define UNONF_VLOG_H 1

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

enum vlog_level {
    VLL_ERR,
    VLL_WARN,
    VLL_INFO,
    VLL_DBG,
};

/* At most 'burst' messages per second from one call site; the number of
 * suppressed messages is reported with the next one that gets through. */
struct vlog_rl {
    unsigned int burst;
    unsigned int used;
    unsigned int suppressed;
    uint64_t second;
};
#define VLOG_RL_INIT(BURST) { (BURST), 0, 0, 0 }

void vlog_init(const char *program);
int vlog_set_level_name(const char *);
bool vlog_is_enabled(enum vlog_level);
void vlog(enum vlog_level, const char *fmt, ...) PRINTF_FORMAT(2, 3);
void vlog_rl(struct vlog_rl *, enum vlog_level, const char *fmt, ...)
    PRINTF_FORMAT(3, 4);

#define VLOG_ERR(...) vlog(VLL_ERR, __VA_ARGS__)
#define VLOG_WARN(...) vlog(VLL_WARN, __VA_ARGS__)
#define VLOG_INFO(...) vlog(VLL_INFO, __VA_ARGS__)
#define VLOG_DBG(...)                                   \
    do {                                                \
        if (vlog_is_enabled(VLL_DBG)) {                 \
            vlog(VLL_DBG, __VA_ARGS__);                 \
        }                                               \
    } while (0)
#define VLOG_ERR_RL(RL, ...) vlog_rl(RL, VLL_ERR, __VA_ARGS__)
#define VLOG_WARN_RL(RL, ...) vlog_rl(RL, VLL_WARN, __VA_ARGS__)
#define VLOG_INFO_RL(RL, ...) vlog_rl(RL, VLL_INFO, __VA_ARGS__)

#endif /* vlog.h */
