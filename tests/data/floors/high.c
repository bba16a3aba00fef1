/* A fixture of the test kernel.floors_refuses: two files of one floor that
 * call each other. */
#include "low.h"

static int high_static(int x) { return x; }

int high_entry(int x)
{
    return high_static(low_helper(x)) + peer_entry(x);
}
