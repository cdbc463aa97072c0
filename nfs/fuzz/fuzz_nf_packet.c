/* Fuzz target: an NF's packet path (parsing, flows, process()).  Built once
 * per NF with -DNF_CLASS=<nf>_class.  The input is a sequence of packets
 * (fuzz_receive()), received twice so that the second round meets the
 * flows the first one created. */
#include "fuzz_common.h"

extern const struct nf_class NF_CLASS;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct nfcore *core;

    if (!core) {
        core = fuzz_core(&NF_CLASS);
    }
    fuzz_receive(core, data, size);
    fuzz_receive(core, data, size);
    /* Bound the state carried from one input to the next. */
    struct flow_selector all = { .kind = FLOWS_ALL };
    if (nfcore_flow_count(core) > 2048) {
        nfcore_state_delete(core, &all);
    }
    return 0;
}
