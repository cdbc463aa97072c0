/* esp.h -- IPsec ESP in tunnel mode with AES-GCM (RFC 4303, RFC 4106)
 * through OpenSSL's EVP interface.
 *
 * Outer headers are IPv4; inner packets IPv4 or IPv6.  Sequence numbers are
 * 32 bits (no ESN).  The 8-byte IV is the sequence number, which never
 * repeats for a key: the nonce is salt || IV. */
#ifndef SECGW_ESP_H
#define SECGW_ESP_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"

#define ESP_HDR_LEN 8           /* SPI, sequence number. */
#define ESP_IV_LEN 8
#define ESP_ICV_LEN 16
#define ESP_SALT_LEN 4
#define ESP_OUTER_LEN 20        /* Outer IPv4 header. */
/* Most bytes encapsulation adds: outer header, ESP header, IV, up to 3
 * bytes of padding, pad length, next header, ICV. */
#define ESP_MAX_OVERHEAD (ESP_OUTER_LEN + ESP_HDR_LEN + ESP_IV_LEN + 3 + 2 \
                          + ESP_ICV_LEN)

struct evp_cipher_ctx_st;

struct esp_sa {
    uint32_t spi;
    bool inbound;
    uint8_t salt[ESP_SALT_LEN];
    struct evp_cipher_ctx_st *ctx;
    uint8_t local[4];           /* Tunnel endpoints (outer addresses). */
    uint8_t remote[4];
    uint32_t seq;               /* Outbound: last sequence number sent. */
    uint16_t ip_id;             /* Outbound: outer IPv4 identification. */
    struct replay_window replay;        /* Inbound. */
    uint64_t packets;
    uint64_t bytes;
};

enum esp_result {
    ESP_OK,
    ESP_MALFORMED,              /* Too short for ESP with AES-GCM. */
    ESP_REPLAYED,
    ESP_TOO_OLD,
    ESP_AUTH_FAILED,
    ESP_BAD_TRAILER,            /* Padding or pad length wrong. */
    ESP_SEQ_OVERFLOW,           /* Outbound SA exhausted: rekey needed. */
    ESP_TOO_BIG,
};

/* Sets up 'sa' with 'keysalt': an AES key of 16, 24 or 32 bytes followed by
 * the 4-byte salt.  Returns 0 or EINVAL. */
int esp_sa_init(struct esp_sa *, bool inbound, uint32_t spi,
                const uint8_t *keysalt, size_t len, uint32_t window);
void esp_sa_uninit(struct esp_sa *);

/* Writes to 'out' the ESP header with 'seq', the IV, 'pt' encrypted and the
 * ICV: ESP_HDR_LEN + ESP_IV_LEN + pt_len + ESP_ICV_LEN bytes.  'pt' may be
 * 'out' + ESP_HDR_LEN + ESP_IV_LEN (in place). */
void esp_seal(struct esp_sa *, uint32_t seq, const uint8_t *pt,
              size_t pt_len, uint8_t *out);
/* The same, of the plaintext 'head' followed by 'tail' (neither in place). */
void esp_seal2(struct esp_sa *, uint32_t seq, const uint8_t *head,
               size_t head_len, const uint8_t *tail, size_t tail_len,
               uint8_t *out);

/* Encapsulates the IP packet 'inner' (next header 'nh': 4 or 41) into 'out'
 * (outer IPv4 header onwards, at most 'room' bytes).  'tos' is copied to the
 * outer header. */
enum esp_result esp_encap(struct esp_sa *, const uint8_t *inner, size_t len,
                          uint8_t nh, uint8_t tos, uint8_t *out, size_t room,
                          size_t *out_len);

/* Decapsulates the ESP packet 'esp' ('len' bytes from the SPI to the end of
 * the ICV) in place: checks the sequence number against the replay window,
 * authenticates and decrypts, checks the trailer, then moves the window.
 * On ESP_OK the inner packet is at esp + ESP_HDR_LEN + ESP_IV_LEN. */
enum esp_result esp_decap(struct esp_sa *, uint8_t *esp, size_t len,
                          size_t *inner_len, uint8_t *nh);

#endif /* esp.h */
