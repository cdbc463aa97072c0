/* esp.c -- ESP tunnel mode with AES-GCM over OpenSSL EVP. */
#include "esp.h"

#include <errno.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <string.h>

#include "packet.h"
#include "util.h"

int
esp_sa_init(struct esp_sa *sa, bool inbound, uint32_t spi,
            const uint8_t *keysalt, size_t len, uint32_t window)
{
    const EVP_CIPHER *cipher;

    memset(sa, 0, sizeof *sa);
    switch (len) {
    case 16 + ESP_SALT_LEN: cipher = EVP_aes_128_gcm(); break;
    case 24 + ESP_SALT_LEN: cipher = EVP_aes_192_gcm(); break;
    case 32 + ESP_SALT_LEN: cipher = EVP_aes_256_gcm(); break;
    default: return EINVAL;
    }
    sa->spi = spi;
    sa->inbound = inbound;
    memcpy(sa->salt, keysalt + len - ESP_SALT_LEN, ESP_SALT_LEN);
    replay_init(&sa->replay, window);
    sa->ctx = EVP_CIPHER_CTX_new();
    if (!sa->ctx || !EVP_CipherInit_ex(sa->ctx, cipher, NULL, keysalt, NULL,
                                       inbound ? 0 : 1)) {
        esp_sa_uninit(sa);
        return EINVAL;
    }
    return 0;
}

void
esp_sa_uninit(struct esp_sa *sa)
{
    EVP_CIPHER_CTX_free(sa->ctx);
    sa->ctx = NULL;
}

static void
make_nonce(const struct esp_sa *sa, const uint8_t *iv, uint8_t nonce[12])
{
    memcpy(nonce, sa->salt, ESP_SALT_LEN);
    memcpy(nonce + ESP_SALT_LEN, iv, ESP_IV_LEN);
}

void
esp_seal2(struct esp_sa *sa, uint32_t seq, const uint8_t *head,
          size_t head_len, const uint8_t *tail, size_t tail_len, uint8_t *out)
{
    uint8_t nonce[12];
    uint8_t *iv = out + ESP_HDR_LEN;
    uint8_t *ct = iv + ESP_IV_LEN;
    int n;

    put_be32(out, sa->spi);
    put_be32(out + 4, seq);
    put_be64(iv, seq);
    make_nonce(sa, iv, nonce);

    /* With a key and cipher set, these calls cannot fail.  GCM is a stream
     * cipher: each update writes as many bytes as it reads. */
    EVP_EncryptInit_ex(sa->ctx, NULL, NULL, NULL, nonce);
    EVP_EncryptUpdate(sa->ctx, NULL, &n, out, ESP_HDR_LEN);   /* AAD. */
    EVP_EncryptUpdate(sa->ctx, ct, &n, head, (int) head_len);
    if (tail_len) {
        EVP_EncryptUpdate(sa->ctx, ct + head_len, &n, tail, (int) tail_len);
    }
    EVP_EncryptFinal_ex(sa->ctx, ct + head_len + tail_len, &n);
    EVP_CIPHER_CTX_ctrl(sa->ctx, EVP_CTRL_GCM_GET_TAG, ESP_ICV_LEN,
                        ct + head_len + tail_len);
}

void
esp_seal(struct esp_sa *sa, uint32_t seq, const uint8_t *pt, size_t pt_len,
         uint8_t *out)
{
    esp_seal2(sa, seq, pt, pt_len, NULL, 0, out);
}

static void
put_outer_ipv4(struct esp_sa *sa, uint8_t *ip, size_t total, uint8_t tos)
{
    ip[0] = 0x45;
    ip[1] = tos;
    put_be16(ip + 2, (uint16_t) total);
    put_be16(ip + 4, sa->ip_id++);
    put_be16(ip + 6, 0);
    ip[8] = 64;
    ip[9] = IPPROTO_ESP;
    put_be16(ip + 10, 0);
    memcpy(ip + 12, sa->local, 4);
    memcpy(ip + 16, sa->remote, 4);
    put_be16(ip + 10, csum_finish(csum_partial(ip, ESP_OUTER_LEN, 0)));
}

enum esp_result
esp_encap(struct esp_sa *sa, const uint8_t *inner, size_t len, uint8_t nh,
          uint8_t tos, uint8_t *out, size_t room, size_t *out_len)
{
    size_t pad = (4 - (len + 2) % 4) % 4;
    size_t pt_len = len + pad + 2;
    size_t total = ESP_OUTER_LEN + ESP_HDR_LEN + ESP_IV_LEN + pt_len
                   + ESP_ICV_LEN;

    if (total > room || total > UINT16_MAX) {
        return ESP_TOO_BIG;
    }
    if (sa->seq == UINT32_MAX) {
        return ESP_SEQ_OVERFLOW;
    }

    /* The inner packet is encrypted from where it is, its trailer from
     * here: no copy of the packet before encryption. */
    uint8_t trailer[3 + 2];
    for (size_t i = 0; i < pad; i++) {
        trailer[i] = (uint8_t) (i + 1);         /* RFC 4303 default. */
    }
    trailer[pad] = (uint8_t) pad;
    trailer[pad + 1] = nh;

    esp_seal2(sa, ++sa->seq, inner, len, trailer, pad + 2,
              out + ESP_OUTER_LEN);
    put_outer_ipv4(sa, out, total, tos);
    sa->packets++;
    sa->bytes += len;
    *out_len = total;
    return ESP_OK;
}

enum esp_result
esp_decap(struct esp_sa *sa, uint8_t *esp, size_t len, size_t *inner_len,
          uint8_t *nh)
{
    const size_t head = ESP_HDR_LEN + ESP_IV_LEN;

    if (len < head + 2 + ESP_ICV_LEN || len > INT32_MAX) {
        return ESP_MALFORMED;
    }
    uint32_t seq = get_be32(esp + 4);
    switch (replay_check(&sa->replay, seq)) {
    case REPLAY_DUPLICATE: return ESP_REPLAYED;
    case REPLAY_TOO_OLD: return ESP_TOO_OLD;
    case REPLAY_OK: break;
    }

    uint8_t nonce[12];
    uint8_t *ct = esp + head;
    size_t ct_len = len - head - ESP_ICV_LEN;
    int n, ok;

    make_nonce(sa, esp + ESP_HDR_LEN, nonce);
    EVP_DecryptInit_ex(sa->ctx, NULL, NULL, NULL, nonce);
    EVP_DecryptUpdate(sa->ctx, NULL, &n, esp, ESP_HDR_LEN);   /* AAD. */
    EVP_DecryptUpdate(sa->ctx, ct, &n, ct, (int) ct_len);
    EVP_CIPHER_CTX_ctrl(sa->ctx, EVP_CTRL_GCM_SET_TAG, ESP_ICV_LEN,
                        ct + ct_len);
    ok = EVP_DecryptFinal_ex(sa->ctx, ct + n, &n);
    if (ok <= 0) {
        return ESP_AUTH_FAILED;
    }
    /* Authentic: the sequence number counts even if the trailer is bad. */
    replay_update(&sa->replay, seq);

    size_t pad = ct[ct_len - 2];
    if (pad + 2 > ct_len) {
        return ESP_BAD_TRAILER;
    }
    for (size_t i = 0; i < pad; i++) {
        if (ct[ct_len - 2 - pad + i] != i + 1) {
            return ESP_BAD_TRAILER;
        }
    }
    *nh = ct[ct_len - 1];
    *inner_len = ct_len - 2 - pad;
    sa->packets++;
    sa->bytes += *inner_len;
    return ESP_OK;
}
