/* nat -- source NAT. */
#include "nat.h"
#include "nfrt.h"

int
main(int argc, char *argv[])
{
    return nfrt_main(&nat_class, argc, argv);
}
