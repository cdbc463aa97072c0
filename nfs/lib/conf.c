/* conf.c -- configuration file reader. */
#include "conf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int
conf_split(char *line, char *argv[], int max)
{
    int argc = 0;
    char *p = line;

    for (;;) {
        while (*p && isspace((unsigned char) *p)) {
            p++;
        }
        if (!*p || *p == '#') {
            *p = '\0';
            return argc;
        }
        if (argc >= max) {
            return -1;
        }
        argv[argc++] = p;
        while (*p && !isspace((unsigned char) *p) && *p != '#') {
            p++;
        }
        if (*p == '#') {
            *p = '\0';
            return argc;
        }
        if (*p) {
            *p++ = '\0';
        }
    }
}

int
conf_load(const char *path, conf_line_func *cb, void *aux,
          char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        int error = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(error));
        return error;
    }

    char line[CONF_MAX_LINE + 2];
    int error = 0;
    for (int lineno = 1; !error && fgets(line, sizeof line, f); lineno++) {
        char *argv[CONF_MAX_WORDS];
        char why[256] = "";
        size_t n = strlen(line);

        if (n > CONF_MAX_LINE && line[n - 1] != '\n') {
            snprintf(why, sizeof why, "line longer than %d bytes",
                     CONF_MAX_LINE);
            error = EINVAL;
        } else {
            int argc = conf_split(line, argv, CONF_MAX_WORDS);
            if (argc < 0) {
                snprintf(why, sizeof why, "more than %d words",
                         CONF_MAX_WORDS);
                error = EINVAL;
            } else if (argc > 0) {
                error = cb(aux, argc, argv, why, sizeof why);
            }
        }
        if (error) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno,
                     why[0] ? why : strerror(error));
        }
    }
    if (!error && ferror(f)) {
        error = EIO;
        snprintf(err, errlen, "%s: read error", path);
    }
    fclose(f);
    return error;
}
