/* fuzz_common.h -- shared parts of the libFuzzer harnesses. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H 1

#include <stddef.h>
#include <stdint.h>

#include "nf.h"
#include "nfcore.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The configuration each NF is fuzzed with ("" for none). */
const char *fuzz_config(const struct nf_class *);

/* A core running 'class' with fuzz_config(), output discarded; aborts on
 * failure.  Logging is reduced to errors. */
struct nfcore *fuzz_core(const struct nf_class *);

/* Writes 'len' bytes to an in-memory file; returns its path (static). */
const char *fuzz_file(const void *, size_t len);

/* Splits 'data' into packets, each a big-endian u16 length and that many
 * bytes (the last one shortened to what is left), and has 'core' receive
 * them in one batch.  The packets are copied, each into its own buffer of
 * exactly its length, so that ASan sees any read past the end. */
void fuzz_receive(struct nfcore *, const uint8_t *data, size_t size);

#endif /* fuzz_common.h */
