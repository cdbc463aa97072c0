/* noop.h -- the no-op forwarder: the baseline the benchmarks compare with. */
#ifndef NOOP_H
#define NOOP_H 1

#include "nf.h"

extern const struct nf_class noop_class;

#endif /* noop.h */
