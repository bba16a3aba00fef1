/* SPDX-License-Identifier: Apache-2.0 */
/* A C program built against an installed pmvp with pkg-config only: it
 * programs the cycle counter of a PE through the kernel API and checks the
 * count the architecture implies. */
#include <stdio.h>

#include "pmvp/core.h"
#include "pmvp/error.h"
#include "pmvp/fields.h"
#include "pmvp/pmu.h"
#include "pmvp/version.h"

int main(void)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.processor_hz = 2000000000; /* 2 GHz */
    static pmvp_core core;
    int err = pmvp_core_init(&core, &cfg);
    if (!err)
        err = pmvp_pmu_write(&core, 0, PMVP_PMCNTENSET_EL0, 0, PMVP_PMU_C, 0);
    if (!err)
        err = pmvp_pmu_write(&core, 0, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_D, 0);
    uint64_t cycles = 0;
    if (!err) /* 1 ms later */
        err = pmvp_pmu_read(&core, 0, PMVP_PMCCNTR_EL0, 0, 1000000000, &cycles);
    if (err) {
        fprintf(stderr, "c_consumer: %s\n", pmvp_strerror(err));
        return 1;
    }
    /* 1 ms at 2 GHz with PMCR.D = 1: 2,000,000 cycles / 64. */
    printf("pmvp %s: PMCCNTR_EL0 = %llu\n", pmvp_version(), (unsigned long long)cycles);
    return cycles == 31250 ? 0 : 1;
}
