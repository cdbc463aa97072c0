/* monitor_banner.c -- recognizing services and clients from payloads.
 *
 * Every function reads only within [payload, payload + len). */
#include "monitor.h"

#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util.h"

/* Copies the line at 'p' (up to CR, LF or the end) as printable ASCII. */
static void
copy_line(const uint8_t *p, size_t len, char *out, size_t size)
{
    size_t n = 0;

    for (size_t i = 0; i < len && n + 1 < size; i++) {
        if (p[i] == '\r' || p[i] == '\n') {
            break;
        }
        out[n++] = isprint(p[i]) ? (char) p[i] : '?';
    }
    out[n] = '\0';
}

static bool
starts_with(const uint8_t *p, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && !memcmp(p, prefix, n);
}

/* Finds header 'name' (with its colon) at the start of a line of the HTTP
 * head in 'p' and copies its value to 'out'. */
static bool
http_header(const uint8_t *p, size_t len, const char *name, char *out,
            size_t size)
{
    size_t n = strlen(name);

    for (size_t i = 0; i + n <= len; i++) {
        if (i && p[i - 1] != '\n') {
            continue;
        }
        if (p[i] == '\r' || p[i] == '\n') {
            return false;                       /* End of the head. */
        }
        if (!strncasecmp((const char *) p + i, name, n)) {
            size_t v = i + n;
            while (v < len && p[v] == ' ') {
                v++;
            }
            copy_line(p + v, len - v, out, size);
            return true;
        }
    }
    return false;
}

static void
app_with(char *app, size_t size, const char *service, const char *detail)
{
    if (detail[0]) {
        snprintf(app, size, "%s:%s", service, detail);
    } else {
        snprintf(app, size, "%s", service);
    }
}

int
mon_banner(const uint8_t *p, size_t len, char *app, size_t size)
{
    static const char *const methods[] = {
        "GET ", "POST ", "HEAD ", "PUT ", "DELETE ", "OPTIONS ",
    };
    char value[MON_APP_MAX] = "";

    if (starts_with(p, len, "HTTP/1.")) {
        http_header(p, len, "Server:", value, sizeof value);
        app_with(app, size, "http", value);
        return MON_SERVER;
    }
    for (size_t i = 0; i < ARRAY_SIZE(methods); i++) {
        if (starts_with(p, len, methods[i])) {
            http_header(p, len, "User-Agent:", value, sizeof value);
            app_with(app, size, "http", value);
            return MON_CLIENT;
        }
    }
    if (starts_with(p, len, "SSH-")) {
        copy_line(p, len, value, sizeof value);
        app_with(app, size, "ssh", value);
        return MON_SERVER;
    }
    if (starts_with(p, len, "220 ") || starts_with(p, len, "220-")) {
        copy_line(p + 4, len - 4, value, sizeof value);
        const char *what = strcasestr(value, "smtp") ? "smtp"
                           : strcasestr(value, "ftp") ? "ftp" : "banner";
        app_with(app, size, what, value);
        return MON_SERVER;
    }
    return 0;
}

const char *
mon_port_name(uint8_t proto, uint16_t port)
{
    static const struct {
        uint8_t proto;
        uint16_t port;
        const char *name;
    } ports[] = {
        { IPPROTO_TCP, 21, "ftp" }, { IPPROTO_TCP, 22, "ssh" },
        { IPPROTO_TCP, 25, "smtp" }, { IPPROTO_TCP, 53, "dns" },
        { IPPROTO_TCP, 80, "http" }, { IPPROTO_TCP, 110, "pop3" },
        { IPPROTO_TCP, 143, "imap" }, { IPPROTO_TCP, 443, "https" },
        { IPPROTO_TCP, 3306, "mysql" }, { IPPROTO_TCP, 5432, "postgresql" },
        { IPPROTO_TCP, 6379, "redis" }, { IPPROTO_TCP, 8080, "http-alt" },
        { IPPROTO_UDP, 53, "dns" }, { IPPROTO_UDP, 67, "dhcp" },
        { IPPROTO_UDP, 123, "ntp" }, { IPPROTO_UDP, 161, "snmp" },
        { IPPROTO_UDP, 443, "quic" }, { IPPROTO_UDP, 514, "syslog" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(ports); i++) {
        if (ports[i].proto == proto && ports[i].port == port) {
            return ports[i].name;
        }
    }
    return NULL;
}
