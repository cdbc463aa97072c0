/* monitor_fingerprint.c -- TCP SYN fingerprints and OS hints.
 *
 * A much reduced p0f: the initial TTL (the observed TTL rounded up to 32,
 * 64, 128 or 255), the window and the order of the TCP options. */
#include "monitor.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

static uint8_t
initial_ttl(uint8_t ttl)
{
    return ttl <= 32 ? 32 : ttl <= 64 ? 64 : ttl <= 128 ? 128 : 255;
}

/* Appends the names of the options in 'opt' ('len' bytes) to 'out'. */
static void
option_layout(const uint8_t *opt, size_t len, char *out, size_t size)
{
    size_t n = 0;

    out[0] = '\0';
    for (size_t i = 0; i < len && n + 8 < size;) {
        uint8_t kind = opt[i];
        const char *name;
        size_t olen;

        if (kind == 0) {
            name = "eol";
            olen = len - i;
        } else if (kind == 1) {
            name = "nop";
            olen = 1;
        } else {
            if (i + 1 >= len || opt[i + 1] < 2 || opt[i + 1] > len - i) {
                name = "bad";
                olen = len - i;
            } else {
                olen = opt[i + 1];
                name = kind == 2 ? "mss" : kind == 3 ? "ws" : kind == 4 ? "sok"
                       : kind == 5 ? "sack" : kind == 8 ? "ts" : "opt";
            }
        }
        n += (size_t) snprintf(out + n, size - n, "%s%s", n ? "," : "", name);
        i += olen;
    }
}

void
mon_fingerprint(const uint8_t *tcp, size_t len, uint8_t ttl,
                char *fp, size_t fp_size, char *os, size_t os_size)
{
    char layout[MON_FP_MAX];
    uint8_t ittl = initial_ttl(ttl);
    uint16_t window = len >= 16 ? get_be16(tcp + 14) : 0;
    size_t doff = len >= 13 ? (size_t) (tcp[12] >> 4) * 4 : 0;

    if (doff < 20 || doff > len) {
        doff = 20;
    }
    option_layout(tcp + 20, len >= doff ? doff - 20 : 0, layout,
                  sizeof layout);
    snprintf(fp, fp_size, "%u:%u:%s", ittl, window, layout);

    const char *hint;
    if (ittl == 64) {
        hint = !strncmp(layout, "mss,sok,ts,nop,ws", 17) ? "Linux"
               : !strncmp(layout, "mss,nop,ws,nop,nop,ts", 21) ? "macOS/BSD"
               : "Unix";
    } else if (ittl == 128) {
        hint = "Windows";
    } else if (ittl == 255) {
        hint = "Solaris/network device";
    } else {
        hint = "unknown";
    }
    snprintf(os, os_size, "%s", hint);
}
