/* secgw.c -- the secgw network function: instance, counters, commands. */
#include "secgw.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

static const char *const counter_names[SECGW_N_COUNTERS] = {
    [SECGW_ENCRYPTED] = "encrypted",
    [SECGW_DECRYPTED] = "decrypted",
    [SECGW_BYPASSED] = "bypassed",
    [SECGW_BYPASS_DROPPED] = "bypass_dropped",
    [SECGW_UNKNOWN_SPI] = "unknown_spi",
    [SECGW_MALFORMED] = "malformed",
    [SECGW_REPLAYED] = "replayed",
    [SECGW_TOO_OLD] = "too_old",
    [SECGW_AUTH_FAILED] = "auth_failed",
    [SECGW_BAD_TRAILER] = "bad_trailer",
    [SECGW_BAD_INNER] = "bad_inner",
    [SECGW_POLICY_MISMATCH] = "policy_mismatch",
    [SECGW_SEQ_OVERFLOW] = "seq_overflow",
    [SECGW_TOO_BIG] = "too_big",
};

static void
secgw_destroy(void *gw_)
{
    struct secgw *gw = gw_;

    if (!gw) {
        return;
    }
    for (size_t i = 0; i < gw->n_sas; i++) {
        esp_sa_uninit(&gw->sas[i].esp);
    }
    free(gw->scratch);
    free(gw);
}

static int
secgw_create(const char *config, void **nf, char *err, size_t errlen)
{
    struct secgw *gw = xzalloc(sizeof *gw);
    int error = secgw_config_load(gw, config, err, errlen);

    if (error) {
        secgw_destroy(gw);
        return error;
    }
    gw->scratch = xmalloc(NF_BATCH_MAX * sizeof *gw->scratch);
    *nf = gw;
    return 0;
}

/* "sas": every SA with its sequence number and counters, as JSON. */
static int
secgw_command(void *gw_, int argc, char *argv[], struct wbuf *body,
              char *err OVS_UNUSED, size_t errlen OVS_UNUSED)
{
    struct secgw *gw = gw_;
    struct json j;

    if (argc != 1 || strcmp(argv[0], "sas")) {
        return ENOENT;
    }
    json_init(&j, body);
    json_arr_open(&j, NULL);
    for (size_t i = 0; i < gw->n_sas; i++) {
        const struct esp_sa *sa = &gw->sas[i].esp;
        json_obj_open(&j, NULL);
        json_str(&j, "dir", sa->inbound ? "in" : "out");
        json_u64(&j, "spi", sa->spi);
        json_u64(&j, "seq", sa->inbound ? sa->replay.top : sa->seq);
        json_u64(&j, "packets", sa->packets);
        json_u64(&j, "bytes", sa->bytes);
        json_obj_close(&j);
    }
    json_arr_close(&j);
    return 0;
}

const struct nf_class secgw_class = {
    .name = "secgw",
    .summary = "IPsec security gateway: ESP tunnel mode, AES-GCM (RFC 4106)",
    .config_help =
        "  sa out spi N key 0xHEX local A.B.C.D remote A.B.C.D [selector]\n"
        "      encrypt cleartext matching the selector into the tunnel\n"
        "      local -> remote (first matching SA wins)\n"
        "  sa in spi N key 0xHEX local A.B.C.D remote A.B.C.D [selector]\n"
        "      decrypt ESP to 'local' with this SPI; the inner packet must\n"
        "      match the selector\n"
        "    KEY is the AES key (16, 24 or 32 bytes) then a 4-byte salt, as\n"
        "    for Linux's rfc4106(gcm(aes)); the ICV is 16 bytes.\n"
        "    selector: [proto P] [src PREFIX] [dst PREFIX] [sport N[-M]]\n"
        "              [dport N[-M]]\n"
        "  replay-window N      inbound window, 32..4096 (default 128);\n"
        "                       before the SAs\n"
        "  bypass pass|drop     cleartext no SA selects (default pass)\n"
        "  Control command 'sas' lists the SAs with their sequence numbers.\n",
    .flags = NF_CONFIG_REQUIRED | NF_UNPARSED_DROP,
    .state_kind = 3,
    .state_version = SECGW_STATE_VERSION,
    .flow_data_size = 0,
    .counter_names = counter_names,
    .counters_offset = offsetof(struct secgw, counters),
    .n_counters = SECGW_N_COUNTERS,
    .create = secgw_create,
    .destroy = secgw_destroy,
    .process = secgw_process,
    .flow_encode = secgw_flow_encode,
    .flow_decode = secgw_flow_decode,
    .records_encode = secgw_records_encode,
    .record_decode = secgw_record_decode,
    .records_clear = secgw_records_clear,
    .command = secgw_command,
};
