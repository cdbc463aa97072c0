/* Fuzz target: secgw's decryption path past authentication.  The input is
 * the plaintext of an ESP payload (inner packet, padding, pad length, next
 * header); the harness seals it with the inbound SA's key, as a peer would,
 * so that the trailer checks and the inner packet's parsing and policy
 * check run on arbitrary authentic data. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "secgw/esp.h"
#include "secgw/secgw.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct nfcore *core;
    static struct esp_sa peer;
    static uint32_t seq;
    static const uint8_t keysalt[20] = {
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        0xa0, 0xa1, 0xa2, 0xa3,
    };

    if (!core) {
        core = fuzz_core(&secgw_class);
        if (esp_sa_init(&peer, false, 0x2000, keysalt, sizeof keysalt, 0)) {
            abort();
        }
    }
    if (size > 2000) {
        return 0;
    }

    /* Ethernet, outer IPv4 (192.0.2.2 -> 192.0.2.1), sealed ESP. */
    size_t esp_len = ESP_HDR_LEN + ESP_IV_LEN + size + ESP_ICV_LEN;
    size_t len = 14 + 20 + esp_len;
    uint8_t *frame = calloc(1, len);
    frame[12] = 0x08;
    uint8_t *ip = frame + 14;
    ip[0] = 0x45;
    put_be16(ip + 2, (uint16_t) (20 + esp_len));
    ip[8] = 64;
    ip[9] = 50;
    memcpy(ip + 12, "\xc0\x00\x02\x02\xc0\x00\x02\x01", 8);
    esp_seal(&peer, ++seq, data, size, ip + 20);

    uint8_t hdr[2];
    put_be16(hdr, (uint16_t) len);
    uint8_t *input = malloc(2 + len);
    memcpy(input, hdr, 2);
    memcpy(input + 2, frame, len);
    fuzz_receive(core, input, 2 + len);
    free(input);
    free(frame);
    return 0;
}
