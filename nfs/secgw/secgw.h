/* secgw.h -- an IPsec security gateway: ESP tunnel mode with AES-GCM.
 *
 * Cleartext packets that match an outbound SA's selector are encrypted into
 * an ESP tunnel; ESP packets addressed to an inbound SA's local endpoint are
 * authenticated, checked against the anti-replay window and decrypted.  Both
 * directions work on one port (or across two).  Per-SA sequence numbers and
 * replay windows are the state that moves with the NF; keys do not: both
 * instances are configured with the same SAs. */
#ifndef SECGW_H
#define SECGW_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "esp.h"
#include "match.h"
#include "nf.h"

#define SECGW_STATE_VERSION 1
#define SECGW_REC_SA (0x100)
#define SECGW_MAX_SAS 64
#define SECGW_MAX_FRAME 9216

struct secgw_sa {
    struct esp_sa esp;
    struct flow_match selector; /* Out: what to encrypt; in: inner check. */
};

enum secgw_counter {
    SECGW_ENCRYPTED,
    SECGW_DECRYPTED,
    SECGW_BYPASSED,             /* Cleartext no SA wanted, passed. */
    SECGW_BYPASS_DROPPED,       /* Same, dropped by 'bypass drop'. */
    SECGW_UNKNOWN_SPI,
    SECGW_MALFORMED,
    SECGW_REPLAYED,
    SECGW_TOO_OLD,
    SECGW_AUTH_FAILED,
    SECGW_BAD_TRAILER,
    SECGW_BAD_INNER,            /* Decrypted, but not an IP packet. */
    SECGW_POLICY_MISMATCH,      /* Decrypted inner packet outside selector. */
    SECGW_SEQ_OVERFLOW,
    SECGW_TOO_BIG,
    SECGW_N_COUNTERS,
};

struct secgw {
    struct secgw_sa sas[SECGW_MAX_SAS];
    size_t n_sas;
    uint32_t window;            /* Replay window size for inbound SAs. */
    bool bypass_drop;
    uint64_t counters[SECGW_N_COUNTERS];
    uint8_t (*scratch)[SECGW_MAX_FRAME + ESP_MAX_OVERHEAD];  /* Per slot. */
};

extern const struct nf_class secgw_class;

int secgw_config_load(struct secgw *, const char *path, char *err,
                      size_t errlen);
struct secgw_sa *secgw_find_sa(struct secgw *, bool inbound, uint32_t spi);
void secgw_process(struct nf_batch *, void *secgw);
void secgw_flow_encode(const void *secgw, const struct flow *,
                       struct wbuf *);
int secgw_flow_decode(void *secgw, const struct flow_key *, struct rbuf *,
                      void *data);
struct state_writer;
void secgw_records_encode(const void *secgw, struct state_writer *);
int secgw_record_decode(void *secgw, uint16_t type, struct rbuf *,
                        bool apply);
void secgw_records_clear(void *secgw);

#endif /* secgw.h */
