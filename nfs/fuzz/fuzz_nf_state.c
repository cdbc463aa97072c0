/* Fuzz target: an NF's state decoder.  Built once per NF with
 * -DNF_CLASS=<nf>_class.  The input is imported (first byte: merge or
 * replace); if it is accepted, the state exported afterwards must import
 * again, and export the same. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "state.h"

extern const struct nf_class NF_CLASS;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct nfcore *core;
    struct flow_selector all = { .kind = FLOWS_ALL };
    char err[256];
    size_t n;

    if (!core) {
        core = fuzz_core(&NF_CLASS);
    }
    if (!size) {
        return 0;
    }
    bool replace = data[0] & 1;
    uint8_t *blob = malloc(size - 1 ? size - 1 : 1);
    memcpy(blob, data + 1, size - 1);
    if (!nfcore_state_put(core, blob, size - 1, replace, &n, err,
                          sizeof err)) {
        struct wbuf out, again;
        wbuf_init(&out, 0);
        wbuf_init(&again, 0);
        nfcore_state_get(core, &all, &out);
        if (nfcore_state_put(core, out.data, out.len, true, &n, err,
                             sizeof err)) {
            abort();                /* What we export, we must import. */
        }
        nfcore_state_get(core, &all, &again);
        if (again.len != out.len) {
            abort();
        }
        wbuf_uninit(&out);
        wbuf_uninit(&again);
    }
    free(blob);
    if (nfcore_flow_count(core) > 2048) {
        nfcore_state_delete(core, &all);
    }
    return 0;
}
