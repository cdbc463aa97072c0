/* noop -- no-op forwarder. */
#include "nfrt.h"
#include "noop.h"

int
main(int argc, char *argv[])
{
    return nfrt_main(&noop_class, argc, argv);
}
