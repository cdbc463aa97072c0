/* nfctl.c -- commands of the NF control protocol. */
#include "nfctl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "state.h"
#include "util.h"
#include "version.h"

struct request {
    int argc;
    char **argv;
    uint8_t *body;
    size_t body_len;
};

static void reply_ok(struct wbuf *, const char *fmt, ...)
    PRINTF_FORMAT(2, 3);

static void
reply_ok(struct wbuf *reply, const char *fmt, ...)
{
    char words[128];
    va_list args;

    va_start(args, fmt);
    vsnprintf(words, sizeof words, fmt, args);
    va_end(args);
    wbuf_printf(reply, "ok%s%s\n", words[0] ? " " : "", words);
}

/* Starts an "ok" reply whose body is JSON. */
static void
reply_json(struct wbuf *reply, struct json *j)
{
    reply_ok(reply, "%s", "");
    json_init(j, reply);
}

static int
check_argc(const struct request *r, int min, int max, char *err,
           size_t errlen)
{
    if (r->argc < min || r->argc > max) {
        snprintf(err, errlen, "wrong number of arguments for '%s'",
                 r->argv[0]);
        return EINVAL;
    }
    return 0;
}

static int
no_body(const struct request *r, char *err, size_t errlen)
{
    if (r->body_len) {
        snprintf(err, errlen, "'%s' takes no body", r->argv[0]);
        return EINVAL;
    }
    return 0;
}

/* Parses "all", "flow P S SP D DP" or "match FIELD VALUE..."; no words mean
 * all if 'empty_ok'. */
static int
parse_selector(int argc, char *argv[], bool empty_ok,
               struct flow_selector *sel, char *err, size_t errlen)
{
    memset(sel, 0, sizeof *sel);
    if (!argc && empty_ok) {
        sel->kind = FLOWS_ALL;
        return 0;
    }
    if (!argc) {
        snprintf(err, errlen, "say which flows: all, flow ... or match ...");
        return EINVAL;
    }
    if (!strcmp(argv[0], "all") && argc == 1) {
        sel->kind = FLOWS_ALL;
        return 0;
    }
    if (!strcmp(argv[0], "flow")) {
        sel->kind = FLOWS_ONE;
        return flow_key_parse(argc - 1, argv + 1, &sel->key, err, errlen);
    }
    if (!strcmp(argv[0], "match")) {
        sel->kind = FLOWS_MATCH;
        return flow_match_parse(argc - 1, argv + 1, &sel->match, err, errlen);
    }
    snprintf(err, errlen, "bad flow selector '%s'", argv[0]);
    return EINVAL;
}

static int
cmd_ping(const struct nfctl *ctl OVS_UNUSED, struct request *r,
         struct wbuf *reply, char *err, size_t errlen)
{
    int error = check_argc(r, 1, 1, err, errlen);
    if (!error) {
        reply_ok(reply, "pong");
    }
    return error;
}

static int
cmd_version(const struct nfctl *ctl, struct request *r, struct wbuf *reply,
            char *err, size_t errlen)
{
    const struct nf_class *class = nfcore_class(ctl->core);
    struct json j;
    int error = check_argc(r, 1, 1, err, errlen);

    if (!error) {
        reply_json(reply, &j);
        json_obj_open(&j, NULL);
        json_str(&j, "nf", class->name);
        json_str(&j, "version", UNONF_VERSION);
        json_u64(&j, "protocol", NFCTL_PROTOCOL_VERSION);
        json_u64(&j, "state_format", STATE_FORMAT_VERSION);
        json_u64(&j, "state_kind", class->state_kind);
        json_u64(&j, "state_version", class->state_version);
        json_obj_close(&j);
    }
    return error;
}

static int
cmd_stats(const struct nfctl *ctl, struct request *r, struct wbuf *reply,
          char *err, size_t errlen)
{
    struct json j;
    int error = check_argc(r, 1, 1, err, errlen);

    if (!error) {
        reply_json(reply, &j);
        json_obj_open(&j, NULL);
        nfcore_stats_json(ctl->core, &j);
        if (ctl->stats_hook) {
            ctl->stats_hook(ctl->aux, &j);
        }
        json_obj_close(&j);
    }
    return error;
}

static int
cmd_flows(const struct nfctl *ctl, struct request *r, struct wbuf *reply,
          char *err, size_t errlen)
{
    struct flow_selector sel;
    struct json j;
    int error = parse_selector(r->argc - 1, r->argv + 1, true, &sel,
                               err, errlen);

    if (!error) {
        reply_json(reply, &j);
        nfcore_flows_json(ctl->core, &sel, &j);
    }
    return error;
}

static int
cmd_state(const struct nfctl *ctl, struct request *r, struct wbuf *reply,
          char *err, size_t errlen)
{
    struct flow_selector sel;
    const char *op = r->argc > 1 ? r->argv[1] : "";
    int error;

    if (!strcmp(op, "get") || !strcmp(op, "delete")) {
        bool get = op[0] == 'g';
        error = parse_selector(r->argc - 2, r->argv + 2, get, &sel,
                               err, errlen);
        if (error) {
            return error;
        }
        if (get) {
            /* The count and the serialisation time (us) go in the status
             * line, before the blob. */
            struct wbuf blob;
            wbuf_init(&blob, 0);
            uint64_t start = time_ns();
            size_t n = nfcore_state_get(ctl->core, &sel, &blob);
            reply_ok(reply, "%zu %"PRIu64, n, (time_ns() - start) / 1000);
            wbuf_put(reply, blob.data, blob.len);
            wbuf_uninit(&blob);
        } else {
            reply_ok(reply, "%zu", nfcore_state_delete(ctl->core, &sel));
        }
        return 0;
    }
    if (!strcmp(op, "put")) {
        const char *mode = r->argc > 2 ? r->argv[2] : "merge";
        bool replace = !strcmp(mode, "replace");
        size_t n;

        if (r->argc > 3 || (!replace && strcmp(mode, "merge"))) {
            snprintf(err, errlen, "usage: state put [merge|replace]");
            return EINVAL;
        }
        uint64_t start = time_ns();
        error = nfcore_state_put(ctl->core, r->body, r->body_len, replace,
                                 &n, err, errlen);
        if (!error) {
            /* The count, the deserialisation time (us) and the packets
             * held: a migration imports the state into an NF that holds
             * what reaches it, and checks the hold's fill without another
             * round trip before the release. */
            reply_ok(reply, "%zu %"PRIu64" %zu", n,
                     (time_ns() - start) / 1000, nfcore_held(ctl->core));
        }
        return error;
    }
    snprintf(err, errlen, "usage: state get|put|delete ...");
    return EINVAL;
}

static int
cmd_buffer(const struct nfctl *ctl, struct request *r, struct wbuf *reply,
           char *err, size_t errlen)
{
    const char *op = r->argc > 1 ? r->argv[1] : "";
    int error = no_body(r, err, errlen);

    if (error) {
        return error;
    }
    if (!strcmp(op, "start") && r->argc == 2) {
        nfcore_buffer_start(ctl->core);
        reply_ok(reply, "%zu", nfcore_held(ctl->core));
    } else if (!strcmp(op, "release") && r->argc == 2) {
        reply_ok(reply, "%zu", nfcore_buffer_release(ctl->core));
    } else if (!strcmp(op, "take") && r->argc <= 3) {
        uint64_t max = NFCTL_TAKE_MAX_BYTES;
        if (r->argc == 3 && parse_u64(r->argv[2], 1, NFCTL_TAKE_MAX_BYTES,
                                      &max)) {
            snprintf(err, errlen, "bad byte limit '%s'", r->argv[2]);
            return EINVAL;
        }
        struct wbuf pkts;
        wbuf_init(&pkts, 0);
        size_t n = nfcore_buffer_take(ctl->core, &pkts, max);
        reply_ok(reply, "%zu %zu", n, nfcore_held(ctl->core));
        wbuf_put(reply, pkts.data, pkts.len);
        wbuf_uninit(&pkts);
    } else {
        snprintf(err, errlen, "usage: buffer start|take [MAX_BYTES]|release");
        return EINVAL;
    }
    return 0;
}

static int
cmd_inject(const struct nfctl *ctl, struct request *r, struct wbuf *reply,
           char *err, size_t errlen)
{
    size_t n;
    int error = check_argc(r, 1, 1, err, errlen);

    if (!error) {
        error = nfcore_inject(ctl->core, r->body, r->body_len, &n,
                              err, errlen);
    }
    if (!error) {
        reply_ok(reply, "%zu", n);
    }
    return error;
}

static const struct {
    const char *name;
    int (*func)(const struct nfctl *, struct request *, struct wbuf *,
                char *, size_t);
} commands[] = {
    { "ping", cmd_ping },
    { "version", cmd_version },
    { "stats", cmd_stats },
    { "flows", cmd_flows },
    { "state", cmd_state },
    { "buffer", cmd_buffer },
    { "inject", cmd_inject },
};

static int
dispatch(const struct nfctl *ctl, struct request *r, struct wbuf *reply,
         char *err, size_t errlen)
{
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        if (!strcmp(r->argv[0], commands[i].name)) {
            if (commands[i].func != cmd_state && commands[i].func != cmd_inject
                && r->body_len) {
                return no_body(r, err, errlen);
            }
            return commands[i].func(ctl, r, reply, err, errlen);
        }
    }

    size_t start = reply->len;
    reply_ok(reply, "%s", "");
    int error = nfcore_nf_command(ctl->core, r->argc, r->argv, reply,
                                  err, errlen);
    if (error) {
        reply->len = start;
        if (error == ENOENT && !err[0]) {
            snprintf(err, errlen, "unknown command '%s'", r->argv[0]);
        }
    }
    return error;
}

void
nfctl_execute(const struct nfctl *ctl, uint8_t *req, size_t len,
              struct wbuf *reply)
{
    char line[CONF_MAX_LINE + 1];
    char *argv[CONF_MAX_WORDS];
    char err[256] = "";
    uint8_t *nl = len ? memchr(req, '\n', len) : NULL;
    size_t line_len = nl ? (size_t) (nl - req) : len;
    size_t start = reply->len;
    int error = 0;

    struct request r = {
        .argv = argv,
        .body = nl ? nl + 1 : req + len,
        .body_len = nl ? len - line_len - 1 : 0,
    };
    if (!line_len || line_len > CONF_MAX_LINE
        || memchr(req, '\0', line_len)) {
        snprintf(err, sizeof err, "bad command line");
        error = EINVAL;
    } else {
        memcpy(line, req, line_len);
        line[line_len] = '\0';
        r.argc = conf_split(line, argv, CONF_MAX_WORDS);
        if (r.argc <= 0) {
            snprintf(err, sizeof err, "empty or overlong command");
            error = EINVAL;
        } else {
            error = dispatch(ctl, &r, reply, err, sizeof err);
        }
    }
    if (error) {
        reply->len = start;
        wbuf_printf(reply, "error %s %s\n", errno_name(error),
                    err[0] ? err : strerror(error));
    }
}
