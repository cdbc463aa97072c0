/* Fuzz target: the L2-L4 packet parser, with its output checked. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "packet.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *frame = malloc(size ? size : 1);
    struct pkt_info in;

    memcpy(frame, data, size);
    if (!pkt_parse(frame, size, &in)) {
        /* Everything the parser points at is inside the frame. */
        if (in.l3_ofs > in.l4_ofs || in.l4_ofs > in.payload_ofs
            || (size_t) in.payload_ofs + in.payload_len
               > (size_t) in.l3_ofs + in.l3_len
            || (size_t) in.l3_ofs + in.l3_len > size
            || (in.key.family != 4 && in.key.family != 6)) {
            abort();
        }
    }
    free(frame);
    return 0;
}
