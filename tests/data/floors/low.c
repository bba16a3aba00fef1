/* A fixture of the test kernel.floors_refuses: a low file that calls up. */
#include "low.h"

int low_helper(int x) { return x + 1; }

int low_entry(int x)
{
    return high_entry(x); /* a call to a higher floor */
}
