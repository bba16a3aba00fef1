/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmvp-demo: one 2-thread SMT core, driven through the kernel API the way a
 * CPU model would, printing what its PMUs count. Every figure it prints is
 * the count the Arm ARM implies for the scenario described beside it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmvp/amu.h"
#include "pmvp/core.h"
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/ext.h"
#include "pmvp/fields.h"
#include "pmvp/pmu.h"

#define US(x) ((pmvp_time)(x) * 1000000u) /* microseconds in picoseconds */

static void check(int err, const char *what)
{
    if (err) {
        fprintf(stderr, "pmvp-demo: %s: %s\n", what, pmvp_strerror(err));
        exit(1);
    }
}

static uint64_t rd(pmvp_core *c, unsigned pe, enum pmvp_pmu_reg r, unsigned n, pmvp_time t)
{
    uint64_t v;
    check(pmvp_pmu_read(c, pe, r, n, t, &v), pmvp_pmu_reg_name(r));
    return v;
}

static void wr(pmvp_core *c, unsigned pe, enum pmvp_pmu_reg r, unsigned n, uint64_t v, pmvp_time t)
{
    check(pmvp_pmu_write(c, pe, r, n, v, t), pmvp_pmu_reg_name(r));
}

int main(void)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.num_pes = 2;
    cfg.processor_hz = UINT64_C(2000000000);
    cfg.clock_stops_in_wfx = true;

    static pmvp_core core;
    check(pmvp_core_init(&core, &cfg), "init");

    /* Both PEs: PMCCNTR, CPU_CYCLES (MT=0), CPU_CYCLES (MT=1), INST_RETIRED. */
    for (unsigned pe = 0; pe < 2; pe++) {
        wr(&core, pe, PMVP_PMEVTYPER_EL0, 0, PMVP_EV_CPU_CYCLES, 0);
        wr(&core, pe, PMVP_PMEVTYPER_EL0, 1, PMVP_EV_CPU_CYCLES | PMEVTYPER_EL0_MT, 0);
        wr(&core, pe, PMVP_PMEVTYPER_EL0, 2, PMVP_EV_INST_RETIRED, 0);
        wr(&core, pe, PMVP_PMCNTENSET_EL0, 0, 0x7 | PMVP_PMU_C, 0);
        wr(&core, pe, PMVP_PMCR_EL0, 0, PMCR_EL0_E | PMCR_EL0_LC, 0);
        pmvp_pmu_controls ctl = { .mdcr_el2 = PMVP_FIELD_PREP(MDCR_EL2_HPMN, cfg.num_counters),
                                  .mdcr_el3 = MDCR_EL3_MTPME };
        check(pmvp_core_set_controls(&core, pe, &ctl, 0), "controls");
        check(pmvp_amu_write(&core, pe, PMVP_AMCNTENSET0_EL0, 0, 0xF, 0), "AMCNTENSET0");
    }

    /* 0-100 us: both threads run, retiring 150000 and 50000 instructions.
     * 100-200 us: PE 1 in WFI. 200-300 us: both in WFI, so the clock stops.
     * 300-400 us: both run again at 1 GHz (DVFS step). */
    check(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 150000, US(100)), "report");
    check(pmvp_core_report(&core, 1, PMVP_EV_INST_RETIRED, 50000, US(100)), "report");
    check(pmvp_core_set_pe_state(&core, 1, PMVP_PE_WFI, US(100)), "wfi");
    check(pmvp_core_set_pe_state(&core, 0, PMVP_PE_WFI, US(200)), "wfi");
    check(pmvp_core_set_clock(&core, UINT64_C(1000000000), US(300)), "dvfs");
    check(pmvp_core_set_pe_state(&core, 0, PMVP_PE_RUN, US(300)), "wake");
    check(pmvp_core_set_pe_state(&core, 1, PMVP_PE_RUN, US(300)), "wake");

    pmvp_time end = US(400);
    printf("pmvp-demo: one SMT core, 2 PE threads; 2 GHz, WFI phases, then 1 GHz\n");
    printf("%-4s %14s %16s %16s %14s\n", "PE", "PMCCNTR", "CPU_CYCLES MT=0", "CPU_CYCLES MT=1",
           "INST_RETIRED");
    for (unsigned pe = 0; pe < 2; pe++)
        printf("%-4u %14" PRIu64 " %16" PRIu64 " %16" PRIu64 " %14" PRIu64 "\n", pe,
               rd(&core, pe, PMVP_PMCCNTR_EL0, 0, end), rd(&core, pe, PMVP_PMEVCNTR_EL0, 0, end),
               rd(&core, pe, PMVP_PMEVCNTR_EL0, 1, end), rd(&core, pe, PMVP_PMEVCNTR_EL0, 2, end));
    printf("expected: PMCCNTR and CPU_CYCLES MT=1 500000 on both PEs (2 GHz x 200 us + 1 GHz x 100 us;\n"
           "          the clock stops while both PEs are in WFI); CPU_CYCLES MT=0 500000 on PE 0 and\n"
           "          300000 on PE 1 (a thread in WFI is not active)\n");

    /* The same PEs through the AMU, read from the external AMU frame, and
     * PMCCNTR through the external PMU frame, as a debugger would. */
    pmvp_ext_access bus = { PMVP_NONSECURE, false };
    printf("\n%-4s %14s %14s %14s %18s\n", "PE", "AMU CPU_CYC", "AMU CNT_CYC", "AMU INST_RET",
           "PMU.PMCCNTR @0x0F8");
    for (unsigned pe = 0; pe < 2; pe++) {
        uint64_t v[4];
        const uint32_t off[3] = { 0x000, 0x008, 0x010 }; /* AMEVCNTR0<0..2> */
        for (unsigned i = 0; i < 3; i++)
            check(pmvp_ext_read(&core, pe, PMVP_FRAME_AMU, off[i], 8, &bus, end, &v[i], NULL), "AMU frame");
        check(pmvp_ext_read(&core, pe, PMVP_FRAME_PMU, 0x0F8, 8, &bus, end, &v[3], NULL), "PMU frame");
        printf("%-4u %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %18" PRIu64 "\n", pe, v[0], v[1], v[2], v[3]);
    }
    printf("expected: AMU CPU_CYCLES 500000 on PE 0 and 300000 on PE 1; CNT_CYCLES (100 MHz) 30000\n"
           "          and 20000 (300 us and 200 us not in WFI); INST_RETIRED as reported; PMCCNTR as above\n");
    return 0;
}
