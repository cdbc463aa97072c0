/* monitor -- passive asset monitor. */
#include "monitor.h"
#include "nfrt.h"

int
main(int argc, char *argv[])
{
    return nfrt_main(&monitor_class, argc, argv);
}
