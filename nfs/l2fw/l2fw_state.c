/* l2fw_state.c -- codec of l2fw's per-flow state.
 *
 * Version 1 flow data (4 bytes): u8 action (1 allow, 2 deny), u8 reserved
 * (0), u16 index of the deciding rule (65535: the default). */
#include "l2fw.h"

#include <errno.h>

void
l2fw_flow_encode(const void *fw OVS_UNUSED, const struct flow *f,
                 struct wbuf *out)
{
    const struct l2fw_flow *lf = (const struct l2fw_flow *) f->data;

    wbuf_put_u8(out, lf->action);
    wbuf_put_u8(out, 0);
    wbuf_put_be16(out, lf->rule);
}

int
l2fw_flow_decode(void *fw OVS_UNUSED, const struct flow_key *key OVS_UNUSED,
                 struct rbuf *r, void *data)
{
    uint8_t action = rbuf_u8(r);
    uint8_t reserved = rbuf_u8(r);
    uint16_t rule = rbuf_be16(r);

    if (!rbuf_ok(r) || reserved
        || (action != L2FW_ALLOW && action != L2FW_DENY)) {
        return EINVAL;
    }
    if (data) {
        struct l2fw_flow *lf = data;
        lf->action = action;
        lf->rule = rule;
    }
    return 0;
}
