/* secgw -- IPsec ESP security gateway. */
#include "nfrt.h"
#include "secgw.h"

int
main(int argc, char *argv[])
{
    return nfrt_main(&secgw_class, argc, argv);
}
