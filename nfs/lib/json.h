/* json.h -- a minimal streaming JSON writer for control-socket replies.
 *
 * Every value call takes the member name, or NULL inside an array. */
#ifndef UNONF_JSON_H
#define UNONF_JSON_H 1

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"

#define JSON_MAX_DEPTH 8

struct json {
    struct wbuf *out;
    int depth;
    bool comma[JSON_MAX_DEPTH];
};

void json_init(struct json *, struct wbuf *);
void json_obj_open(struct json *, const char *key);
void json_obj_close(struct json *);
void json_arr_open(struct json *, const char *key);
void json_arr_close(struct json *);
void json_u64(struct json *, const char *key, uint64_t);
void json_str(struct json *, const char *key, const char *);
void json_bool(struct json *, const char *key, bool);

#endif /* json.h */
