/* monitor_config.c -- the (optional) configuration file. */
#include "monitor.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "util.h"

static int
config_line(void *m_, int argc, char *argv[], char *err, size_t errlen)
{
    struct monitor *m = m_;
    uint64_t v;

    if (!strcmp(argv[0], "max-assets")) {
        if (argc != 2 || parse_u64(argv[1], 1, 1u << 24, &v)) {
            snprintf(err, errlen, "usage: max-assets N (1 to 16777216)");
            return EINVAL;
        }
        m->max_assets = v;
        return 0;
    }
    snprintf(err, errlen, "unknown keyword '%s' (max-assets)", argv[0]);
    return EINVAL;
}

int
monitor_config_load(struct monitor *m, const char *path, char *err,
                    size_t errlen)
{
    m->max_assets = 65536;
    return path ? conf_load(path, config_line, m, err, errlen) : 0;
}
