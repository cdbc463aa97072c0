/* l7fw_config.c -- the blocking rules and their evaluation. */
#include "l7fw.h"

#include <ctype.h>
#include <errno.h>
#include <ndpi_api.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "util.h"

static int
add_proto(struct l7fw *fw, char *name, char *err, size_t errlen)
{
    u_int16_t id = ndpi_get_proto_by_name(fw->ndpi, name);

    if (id == NDPI_PROTOCOL_UNKNOWN) {
        snprintf(err, errlen, "unknown nDPI protocol '%s'", name);
        return EINVAL;
    }
    fw->blocked_protos[fw->n_blocked_protos++] = id;
    return 0;
}

static int
add_host(struct l7fw *fw, const char *host, char *err, size_t errlen)
{
    /* "*.example.com" and "example.com" both block the domain and its
     * subdomains. */
    if (!strncmp(host, "*.", 2)) {
        host += 2;
    }
    size_t n = strlen(host);
    if (!n || n >= L7FW_HOST_MAX) {
        snprintf(err, errlen, "bad host name '%s'", host);
        return EINVAL;
    }
    char *copy = xstrdup(host);
    for (char *p = copy; *p; p++) {
        *p = (char) tolower((unsigned char) *p);
    }
    fw->blocked_hosts[fw->n_blocked_hosts++] = copy;
    return 0;
}

static int
config_line(void *fw_, int argc, char *argv[], char *err, size_t errlen)
{
    struct l7fw *fw = fw_;

    if (strcmp(argv[0], "block")) {
        snprintf(err, errlen, "unknown keyword '%s' (block)", argv[0]);
        return EINVAL;
    }
    if (argc != 3 || (strcmp(argv[1], "proto") && strcmp(argv[1], "host"))) {
        snprintf(err, errlen, "usage: block proto NAME | block host NAME");
        return EINVAL;
    }
    if (fw->n_blocked_protos >= L7FW_MAX_BLOCKS
        || fw->n_blocked_hosts >= L7FW_MAX_BLOCKS) {
        snprintf(err, errlen, "more than %d block rules of a kind",
                 L7FW_MAX_BLOCKS);
        return EINVAL;
    }
    return argv[1][0] == 'p' ? add_proto(fw, argv[2], err, errlen)
                             : add_host(fw, argv[2], err, errlen);
}

int
l7fw_config_load(struct l7fw *fw, const char *path, char *err, size_t errlen)
{
    return path ? conf_load(path, config_line, fw, err, errlen) : 0;
}

static bool
host_matches(const char *pattern, const char *host)
{
    size_t plen = strlen(pattern), hlen = strlen(host);

    if (hlen < plen || strcasecmp(host + hlen - plen, pattern)) {
        return false;
    }
    return hlen == plen || host[hlen - plen - 1] == '.';
}

bool
l7fw_is_blocked(const struct l7fw *fw, uint16_t master, uint16_t app,
                const char *host)
{
    for (size_t i = 0; i < fw->n_blocked_protos; i++) {
        uint16_t id = fw->blocked_protos[i];
        if (id == master || id == app) {
            return true;
        }
    }
    for (size_t i = 0; host[0] && i < fw->n_blocked_hosts; i++) {
        if (host_matches(fw->blocked_hosts[i], host)) {
            return true;
        }
    }
    return false;
}

const char *
l7fw_proto_name(const struct l7fw *fw, uint16_t id)
{
    const char *name = ndpi_get_proto_name(fw->ndpi, id);
    return name ? name : "Unknown";
}
