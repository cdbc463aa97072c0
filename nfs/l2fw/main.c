/* l2fw -- ACL firewall on 5-tuple rules. */
#include "l2fw.h"
#include "nfrt.h"

int
main(int argc, char *argv[])
{
    return nfrt_main(&l2fw_class, argc, argv);
}
