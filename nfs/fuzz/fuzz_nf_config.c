/* Fuzz target: an NF's configuration parser.  Built once per NF with
 * -DNF_CLASS=<nf>_class. */
#include "fuzz_common.h"
#include "vlog.h"

extern const struct nf_class NF_CLASS;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    void *nf;

    vlog_set_level_name("err");
    if (!NF_CLASS.create(fuzz_file(data, size), &nf, err, sizeof err)) {
        NF_CLASS.destroy(nf);
    }
    return 0;
}
