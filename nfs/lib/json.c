/* json.c -- minimal streaming JSON writer. */
#include "json.h"

#include <inttypes.h>

void
json_init(struct json *j, struct wbuf *out)
{
    j->out = out;
    j->depth = 0;
    j->comma[0] = false;
}

static void
put_string(struct wbuf *b, const char *s)
{
    wbuf_put_u8(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\') {
            wbuf_put_u8(b, '\\');
            wbuf_put_u8(b, c);
        } else if (c < 0x20 || c >= 0x7f) {
            /* Names come from packets: keep the output plain ASCII. */
            wbuf_printf(b, "\\u%04x", c);
        } else {
            wbuf_put_u8(b, c);
        }
    }
    wbuf_put_u8(b, '"');
}

static void
member(struct json *j, const char *key)
{
    if (j->comma[j->depth]) {
        wbuf_put_u8(j->out, ',');
    }
    j->comma[j->depth] = true;
    if (key) {
        put_string(j->out, key);
        wbuf_put_u8(j->out, ':');
    }
}

static void
open_container(struct json *j, const char *key, char c)
{
    member(j, key);
    wbuf_put_u8(j->out, (uint8_t) c);
    if (j->depth < JSON_MAX_DEPTH - 1) {
        j->depth++;
    }
    j->comma[j->depth] = false;
}

static void
close_container(struct json *j, char c)
{
    if (j->depth > 0) {
        j->depth--;
    }
    wbuf_put_u8(j->out, (uint8_t) c);
}

void
json_obj_open(struct json *j, const char *key)
{
    open_container(j, key, '{');
}

void
json_obj_close(struct json *j)
{
    close_container(j, '}');
}

void
json_arr_open(struct json *j, const char *key)
{
    open_container(j, key, '[');
}

void
json_arr_close(struct json *j)
{
    close_container(j, ']');
}

void
json_u64(struct json *j, const char *key, uint64_t v)
{
    member(j, key);
    wbuf_printf(j->out, "%" PRIu64, v);
}

void
json_str(struct json *j, const char *key, const char *s)
{
    member(j, key);
    put_string(j->out, s);
}

void
json_bool(struct json *j, const char *key, bool v)
{
    member(j, key);
    wbuf_put_cstr(j->out, v ? "true" : "false");
}
