/* The names docs/KERNEL.md's C snippets assume, as its prose introduces them
 * (the headers it names, a core, the instant and the values a CPU model
 * holds): declared here so that each snippet compiles as written. */
#include <stdint.h>

#include "pmvp/sysreg.h"
#include "pmvp/x86.h"

extern pmvp_core core;
extern pmvp_time now;
extern uint64_t value, v, hcr_el2, hstr_el2;
#define US UINT64_C(1000000) /* 1 us in ps */
