/* Fuzz target: the control protocol's commands, on a monitor.  The input
 * is a sequence of requests (command line, newline, body), each a u16
 * length and that many bytes, with packets received between them. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "monitor/monitor.h"
#include "nfctl.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct nfcore *core;
    static const uint8_t udp[] = {
        0, 42, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0, 0x45, 0, 0, 28, 0, 0,
        0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, 4, 0, 0, 53, 0, 8, 0, 0,
    };
    struct wbuf reply;

    if (!core) {
        core = fuzz_core(&monitor_class);
    }
    struct nfctl ctl = { core, NULL, NULL };
    wbuf_init(&reply, 0);
    while (size >= 2) {
        size_t len = get_be16(data);
        len = len < size - 2 ? len : size - 2;
        uint8_t *req = malloc(len ? len : 1);
        memcpy(req, data + 2, len);
        wbuf_clear(&reply);
        nfctl_execute(&ctl, req, len, &reply);
        free(req);
        fuzz_receive(core, udp, sizeof udp);
        nfcore_release_step(core, 64);
        data += 2 + len;
        size -= 2 + len;
    }
    wbuf_uninit(&reply);
    nfcore_buffer_release(core);
    nfcore_release_step(core, SIZE_MAX);
    struct flow_selector all = { .kind = FLOWS_ALL };
    if (nfcore_flow_count(core) > 2048) {
        nfcore_state_delete(core, &all);
    }
    return 0;
}
