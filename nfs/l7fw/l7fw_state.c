/* l7fw_state.c -- codec of l7fw's per-flow state.
 *
 * Version 1 flow data: u8 status (0 detecting, 1 detected, 2 gave up), u8
 * blocked (0|1), u8 packets inspected, u8 reserved (0), then three
 * u8-length-prefixed strings: master protocol name, application protocol
 * name, host name.  Protocols travel by name because nDPI's numbers differ
 * between its versions.  nDPI's own detection state does not travel: a flow
 * that was still being detected starts detection again on its next packet,
 * with what is left of its budget of L7FW_MAX_INSPECT packets. */
#include "l7fw.h"

#include <errno.h>
#include <ndpi_api.h>
#include <string.h>

void
l7fw_flow_encode(const void *fw_, const struct flow *f, struct wbuf *out)
{
    const struct l7fw *fw = fw_;
    const struct l7fw_flow *lf = (const struct l7fw_flow *) f->data;

    wbuf_put_u8(out, lf->status);
    wbuf_put_u8(out, lf->blocked);
    wbuf_put_u8(out, lf->inspected);
    wbuf_put_u8(out, 0);
    wbuf_put_str8(out, l7fw_proto_name(fw, lf->master));
    wbuf_put_str8(out, l7fw_proto_name(fw, lf->app));
    wbuf_put_str8(out, lf->host);
}

static uint16_t
proto_id(const struct l7fw *fw, const char *name)
{
    return ndpi_get_proto_by_name(fw->ndpi, name);
}

int
l7fw_flow_decode(void *fw_, const struct flow_key *key OVS_UNUSED,
                 struct rbuf *r, void *data)
{
    struct l7fw *fw = fw_;
    char master[L7FW_NAME_MAX], app[L7FW_NAME_MAX], host[L7FW_HOST_MAX];
    uint8_t status = rbuf_u8(r);
    uint8_t blocked = rbuf_u8(r);
    uint8_t inspected = rbuf_u8(r);
    uint8_t reserved = rbuf_u8(r);

    rbuf_str8(r, master, sizeof master);
    rbuf_str8(r, app, sizeof app);
    rbuf_str8(r, host, sizeof host);
    if (!rbuf_ok(r) || status > L7FW_GAVE_UP || blocked > 1 || reserved) {
        return EINVAL;
    }
    if (data) {
        struct l7fw_flow *lf = data;
        lf->status = status;
        lf->blocked = blocked;
        lf->master = proto_id(fw, master);
        lf->app = proto_id(fw, app);
        lf->inspected = inspected;
        memcpy(lf->host, host, sizeof host);
    }
    return 0;
}
