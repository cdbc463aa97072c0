/* nfrt.h -- the process around an NF: command line, packet I/O, control
 * socket and the poll loop.  Each NF's main() is one call to nfrt_main(). */
#ifndef UNONF_NFRT_H
#define UNONF_NFRT_H 1

#include "nf.h"

/* Runs NF 'class' as a process.  Returns the exit status: 0 after SIGTERM or
 * SIGINT, 1 on a runtime failure, 2 on a usage or configuration error. */
int nfrt_main(const struct nf_class *, int argc, char *argv[]);

#endif /* nfrt.h */
