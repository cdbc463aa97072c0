/* l7fw -- layer-7 firewall on nDPI. */
#include "l7fw.h"
#include "nfrt.h"

int
main(int argc, char *argv[])
{
    return nfrt_main(&l7fw_class, argc, argv);
}
