// SPDX-License-Identifier: Apache-2.0
// Counting rules of one PE: cycle counter, event counters, overflow, CHAIN,
// SW_INCR, filtering and prohibition (D13.3, D13.5, D13.7, D14.4).
#include <cctype>
#include <string>

#include "fixture.h"

namespace pmvp::test {
namespace {

using Counting = Kernel;

TEST_F(Counting, D14_4_PmccntrCountsProcessorCycles_1msAt2GHz)
{
    cfg.processor_hz = 2 * kGHz;
    init();
    enable_cycle_counter(0);
    EXPECT_EQ(cycles(0, 1 * kMs), 2000000u);
}

// A report's route reaches the reporting PE's own event counters, its AMU
// counters of the event, and other PEs' counters with MT == 1 (D14.4): a
// route that reached PE 0's own counter alone must widen when an AMU
// counter, then another PE's MT == 1 counter, start counting the event at
// later instants, with reports between them and reads at the end.
TEST_F(Counting, D14_4_ReportsReachCountersThatStartCountingTheEventLater)
{
    cfg.num_pes = 2;
    cfg.feat_mtpmu = true;
    cfg.feat_amuv1 = true;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 100, 1 * kUs), PMVP_OK);      /* PE 0's counter alone */
    ASSERT_EQ(pmvp_amu_write(&core, 0, PMVP_AMCNTENSET0_EL0, 0, 1u << 2, 2 * kUs), PMVP_OK); /* INST_RETIRED */
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 30, 3 * kUs), PMVP_OK);
    program(1, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT, 4 * kUs);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 5, 5 * kUs), PMVP_OK);
    ASSERT_EQ(pmvp_core_report(&core, 1, PMVP_EV_INST_RETIRED, 7, 6 * kUs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 7 * kUs), 135u); /* MT == 0: not PE 1's 7 */
    EXPECT_EQ(counter(1, 0, 7 * kUs), 12u);  /* MT == 1: PE 0's 5 after it started, and its own 7 */
    uint64_t amu = 0;
    ASSERT_EQ(pmvp_amu_read(&core, 0, PMVP_AMEVCNTR0_EL0, 2, 7 * kUs, &amu), PMVP_OK);
    EXPECT_EQ(amu, 35u); /* the 30 and the 5 after it was enabled; an AMU counts its own PE's events */
}

// A PMEVTYPER write changes what one counter counts and nothing else that
// decides where a report goes: after each write the retyped counter takes
// the reports of its new event, in its new filter and with its new MT, and
// the other counters keep theirs, with reports of both events between the
// writes.
TEST_F(Counting, D14_4_ARetypedCounterTakesItsNewEventAndTheOthersKeepTheirs)
{
    constexpr uint16_t kBrRetired = 0x0021;
    cfg.num_pes = 2;
    cfg.feat_mtpmu = true;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    program(0, 1, kBrRetired);
    program(1, 0, kBrRetired, PMVP_PMEVTYPER_EL0_MT);
    auto report = [&](unsigned pe, uint16_t event, uint64_t count, pmvp_time t) {
        ASSERT_EQ(pmvp_core_report(&core, pe, event, count, t), PMVP_OK);
    };
    report(0, PMVP_EV_INST_RETIRED, 10, 1 * kUs);
    report(0, kBrRetired, 3, 2 * kUs);
    write(0, PMVP_PMEVTYPER_EL0, PMVP_EV_INST_RETIRED, 3 * kUs, 1); /* PE 0's counter 1: BR_RETIRED -> INST_RETIRED */
    report(0, PMVP_EV_INST_RETIRED, 20, 4 * kUs);
    report(0, kBrRetired, 4, 5 * kUs);
    write(1, PMVP_PMEVTYPER_EL0, kBrRetired, 6 * kUs, 0); /* PE 1's counter 0: MT 1 -> 0 */
    report(0, kBrRetired, 5, 7 * kUs);
    report(1, kBrRetired, 6, 8 * kUs);
    write(0, PMVP_PMEVTYPER_EL0, PMVP_EV_INST_RETIRED | PMVP_PMEVTYPER_EL0_P, 9 * kUs, 0); /* EL1 filtered out */
    report(0, PMVP_EV_INST_RETIRED, 40, 10 * kUs);
    EXPECT_EQ(counter(0, 0, 11 * kUs), 30u);      /* 10 + 20; not the 40 at EL1 */
    EXPECT_EQ(counter(0, 1, 11 * kUs), 3u + 60u); /* BR_RETIRED's 3, then INST_RETIRED's 20 and 40 */
    EXPECT_EQ(counter(1, 0, 11 * kUs), 13u);      /* PE 0's 3 and 4 while MT was 1, then its own 6 */
}

TEST_F(Counting, PMCR_D_DividesBy64_1msAt2GHzGives31250)
{
    cfg.processor_hz = 2 * kGHz;
    init();
    enable_cycle_counter(0, PMVP_PMCR_EL0_D);
    EXPECT_EQ(cycles(0, 1 * kMs), 31250u);
}

TEST_F(Counting, PMCR_D_CountsEvery64thCycleExactly)
{
    init();  // 1 GHz: one cycle per ns
    enable_cycle_counter(0, PMVP_PMCR_EL0_D);
    EXPECT_EQ(cycles(0, 63 * kNs), 0u);
    EXPECT_EQ(cycles(0, 64 * kNs), 1u);
    EXPECT_EQ(cycles(0, 127 * kNs), 1u);
    EXPECT_EQ(cycles(0, 128 * kNs), 2u);
}

TEST_F(Counting, PMCR_D_IgnoredWhenLCIsOne)
{
    cfg.processor_hz = 2 * kGHz;
    init();
    enable_cycle_counter(0, PMVP_PMCR_EL0_D | PMVP_PMCR_EL0_LC);
    EXPECT_EQ(cycles(0, 1 * kMs), 2000000u);
}

TEST_F(Counting, PMCR_D_DividerModeAllCyclesKeepsAdvancingWhileDisabled)
{
    cfg.divider_mode = PMVP_DIVIDER_ALL_CYCLES;
    init();
    enable_cycle_counter(0, PMVP_PMCR_EL0_D);
    write(0, PMVP_PMCNTENCLR_EL0, PMVP_PMU_C, 40 * kNs);   // 40 cycles into the divider
    write(0, PMVP_PMCNTENSET_EL0, PMVP_PMU_C, 100 * kNs);  // 60 more pass uncounted
    // The divider saw 100 cycles: its 64th was uncounted, its 128th is at 128 ns.
    EXPECT_EQ(cycles(0, 127 * kNs), 0u);
    EXPECT_EQ(cycles(0, 128 * kNs), 1u);
}

TEST_F(Counting, D14_4_DvfsMidRun)
{
    cfg.processor_hz = 2 * kGHz;
    init();
    enable_cycle_counter(0);
    ASSERT_EQ(pmvp_core_set_clock(&core, 1 * kGHz, kMs / 2), PMVP_OK);
    // 0.5 ms at 2 GHz + 0.5 ms at 1 GHz.
    EXPECT_EQ(cycles(0, 1 * kMs), 1500000u);
}

TEST_F(Counting, D14_4_ClockStopCountsNothing)
{
    init();
    enable_cycle_counter(0);
    ASSERT_EQ(pmvp_core_set_clock(&core, 0, 10 * kUs), PMVP_OK);
    EXPECT_EQ(cycles(0, 500 * kUs), 10000u);
    ASSERT_EQ(pmvp_core_set_clock(&core, 1 * kGHz, 500 * kUs), PMVP_OK);
    EXPECT_EQ(cycles(0, 510 * kUs), 20000u);
}

TEST_F(Counting, D14_4_WfiStopsTheClockByDefault)
{
    init();
    enable_cycle_counter(0);
    program(0, 0, PMVP_EV_CPU_CYCLES);
    state(0, PMVP_PE_WFI, 1 * kUs);
    state(0, PMVP_PE_RUN, 3 * kUs);
    EXPECT_EQ(cycles(0, 4 * kUs), 2000u);
    EXPECT_EQ(counter(0, 0, 4 * kUs), 2000u);
}

TEST_F(Counting, D14_4_WfiWithClockRunningCountsPmccntrPerConfiguration)
{
    cfg.clock_stops_in_wfx = false;
    for (bool counts_in_wfx : { true, false }) {
        cfg.pmccntr_counts_in_wfx = counts_in_wfx;
        init();
        enable_cycle_counter(0);
        program(0, 0, PMVP_EV_CPU_CYCLES);
        state(0, PMVP_PE_WFE, 1 * kUs);
        state(0, PMVP_PE_RUN, 3 * kUs);
        EXPECT_EQ(cycles(0, 4 * kUs), counts_in_wfx ? 4000u : 2000u);
        // CPU_CYCLES: the thread is not active in WFE (wfx_thread_active false).
        EXPECT_EQ(counter(0, 0, 4 * kUs), 2000u);
    }
}

TEST_F(Counting, D14_4_CpuCyclesInWfxWhenThreadActiveAndConfigured)
{
    cfg.clock_stops_in_wfx = false;
    cfg.wfx_thread_active = true;
    for (bool in_wfx : { true, false }) {
        cfg.cpu_cycles_in_wfx = in_wfx;
        init();
        program(0, 0, PMVP_EV_CPU_CYCLES);
        state(0, PMVP_PE_WFI, 1 * kUs);
        EXPECT_EQ(counter(0, 0, 3 * kUs), in_wfx ? 3000u : 1000u);
    }
}

TEST_F(Counting, RNTZHW_LC0_OverflowsAt2Pow32AndKeepsUpperBits)
{
    init();
    enable_cycle_counter(0, 0);
    write(0, PMVP_PMCCNTR_EL0, 0xFFFFFFFFull - 9, 0);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 9 * kNs), 0u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 10 * kNs), PMVP_PMU_C);
    EXPECT_EQ(cycles(0, 10 * kNs), 0x100000000ull);  // IFYVTD: bits [63:0] increment
}

TEST_F(Counting, RNTZHW_LC1_OverflowsOnlyAt2Pow64)
{
    init();
    enable_cycle_counter(0, PMVP_PMCR_EL0_LC);
    write(0, PMVP_PMCCNTR_EL0, 0xFFFFFFFFull - 9, 0);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 20 * kNs), 0u);
    write(0, PMVP_PMCCNTR_EL0, ~0ull - 4, 20 * kNs);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 25 * kNs), PMVP_PMU_C);
    EXPECT_EQ(cycles(0, 25 * kNs), 0u);
}

TEST_F(Counting, RQZJKS_LP0_EventCounterOverflowsAt2Pow32)
{
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFull - 99, 0, 0);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 99 * kNs), 0u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 100 * kNs), 1u);
    EXPECT_EQ(counter(0, 0, 100 * kNs), 0x100000000ull);  // 64-bit counter with PMUv3p5
}

TEST_F(Counting, RQZJKS_LP1_EventCounterOverflowsAt2Pow64)
{
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LP, 0);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFull - 99, 0, 0);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 200 * kNs), 0u);
    write(0, PMVP_PMEVCNTR_EL0, ~0ull, 200 * kNs, 0);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 201 * kNs), 1u);
    EXPECT_EQ(counter(0, 0, 201 * kNs), 0u);
}

// RQZJKS with PMCR.LP == 1: only bit 64 overflows. Crossing bit 63, or
// wrapping the low 32 bits while bit 63 is set, sets no flag and is no
// predicted overflow; an occurrence event likewise.
TEST_F(Counting, RQZJKS_LP1_NoOverflowAtBit63OrAtTheLowWordsWrap)
{
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_INST_RETIRED);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LP, 0);
    write(0, PMVP_PMINTENSET_EL1, 0x3, 0);
    write(0, PMVP_PMEVCNTR_EL0, (UINT64_C(1) << 63) - 10, 0, 0);           // crosses bit 63 at 10 ns
    write(0, PMVP_PMEVCNTR_EL0, (UINT64_C(1) << 63) | 0xFFFFFFF0u, 0, 1);  // low word wraps at 16
    pmvp_time when = 0;
    ASSERT_EQ(pmvp_core_next_event(&core, 0, &when), PMVP_OK);
    EXPECT_GT(when, 1 * kMs);  // nothing near: the next overflow of counter 0 is 2^63 cycles away
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 32, 50 * kNs), PMVP_OK);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 100 * kNs), 0u);
    EXPECT_EQ(counter(0, 0, 100 * kNs), (UINT64_C(1) << 63) + 90);
    EXPECT_EQ(counter(0, 1, 100 * kNs), (UINT64_C(1) << 63) + 0x100000010u);
    EXPECT_FALSE([&] {
        bool l = true;
        pmvp_pmu_irq(&core, 0, 100 * kNs, &l);
        return l;
    }());
}

// PMCR.D with PMCCNTR at 0xFFFFFFFF (LC == 0): the overflow is the 64th
// processor cycle, when the divider's first tick comes, and it is predicted
// there; a PMCCNTR write restarts the divider.
TEST_F(Counting, PMCR_D_OverflowPredictedAtThe64thCycle)
{
    init();  // 1 GHz
    enable_cycle_counter(0, PMVP_PMCR_EL0_D);
    write(0, PMVP_PMINTENSET_EL1, PMVP_PMU_C, 0);
    write(0, PMVP_PMCCNTR_EL0, 0xFFFFFFFFu, 10 * kNs);
    pmvp_time when = 0;
    ASSERT_EQ(pmvp_core_next_event(&core, 10 * kNs, &when), PMVP_OK);
    EXPECT_EQ(when, 74 * kNs);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 73 * kNs), 0u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 74 * kNs), PMVP_PMU_C);
    EXPECT_EQ(cycles(0, 74 * kNs), 0x100000000u);
}

TEST_F(Counting, RQZJKS_Without_PMUv3p5_CountersAre32Bit)
{
    cfg.pmu_version = PMVP_PMUV3P4;
    pmvp_core_config_limit_to_version(&cfg);
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMEVCNTR_EL0, 0x1FFFFFFF0ull, 0, 0);  // bits [63:32] are not implemented
    EXPECT_EQ(counter(0, 0, 0), 0xFFFFFFF0u);
    EXPECT_EQ(counter(0, 0, 20 * kNs), 4u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 20 * kNs), 1u);
}

TEST_F(Counting, CHAIN_OddCounterCountsEvenCounterOverflows)
{
    cfg.pmu_version = PMVP_PMUV3P4;
    pmvp_core_config_limit_to_version(&cfg);
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_CHAIN);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFF0u, 0, 0);
    write(0, PMVP_PMEVCNTR_EL0, 7, 0, 1);
    EXPECT_EQ(counter(0, 1, 15 * kNs), 7u);
    EXPECT_EQ(counter(0, 1, 16 * kNs), 8u);
    // 2^32 cycles later (4.29 s at 1 GHz), one more: a 64-bit count of cycles.
    EXPECT_EQ(counter(0, 1, 16 * kNs + (1ull << 32) * kNs), 9u);
    EXPECT_EQ(counter(0, 0, 16 * kNs + (1ull << 32) * kNs), 0u);
}

TEST_F(Counting, CHAIN_DoesNotCountWhenEvenCounterIsLong)
{
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_CHAIN);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LP, 0);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFF0u, 0, 0);
    EXPECT_EQ(counter(0, 1, 100 * kNs), 0u);
    EXPECT_EQ(counter(0, 0, 100 * kNs), 0xFFFFFFF0ull + 100);
}

TEST_F(Counting, CHAIN_OverflowIsPredicted)
{
    cfg.pmu_version = PMVP_PMUV3P4;
    pmvp_core_config_limit_to_version(&cfg);
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_CHAIN);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFF0u, 0, 0);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFu, 0, 1);
    // Counter 0 overflows at 16 ns (and counter 1 with it).
    EXPECT_EQ(next_event(0), 16 * kNs);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 16 * kNs), 3u);
}

TEST_F(Counting, SW_INCR_CountsOnlyWhenEnabled)
{
    init();
    write(0, PMVP_PMEVTYPER_EL0, PMVP_EV_SW_INCR, 0, 2);
    write(0, PMVP_PMCNTENSET_EL0, 1u << 2, 0);
    write(0, PMVP_PMSWINC_EL0, 1u << 2, 1 * kNs);  // PMCR.E == 0
    EXPECT_EQ(counter(0, 2, 1 * kNs), 0u);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E, 2 * kNs);
    write(0, PMVP_PMSWINC_EL0, 1u << 2, 3 * kNs);
    write(0, PMVP_PMSWINC_EL0, 0x7F, 3 * kNs);  // twice without synchronization: counted twice
    EXPECT_EQ(counter(0, 2, 3 * kNs), 2u);
    EXPECT_EQ(read(0, PMVP_PMSWINC_EL0, 3 * kNs), 0u);  // WO/RAZ
}

TEST_F(Counting, SW_INCR_IsFilteredByTheWritersExceptionLevel)
{
    init();
    program(0, 0, PMVP_EV_SW_INCR, PMVP_PMEVTYPER_EL0_U);
    context(0, 0, PMVP_NONSECURE, 0);
    write(0, PMVP_PMSWINC_EL0, 1, 1 * kNs);
    context(0, 1, PMVP_NONSECURE, 2 * kNs);
    write(0, PMVP_PMSWINC_EL0, 1, 3 * kNs);
    EXPECT_EQ(counter(0, 0, 3 * kNs), 1u);
}

// One row per filter bit: the filter value, the context, and whether an
// event Attributable to that context is counted (D24.5.12).
struct FilterCase {
    const char *rule;
    uint64_t filter;
    uint8_t el;
    pmvp_security sec;
    bool counted;
};

class Filtering : public Kernel, public ::testing::WithParamInterface<FilterCase> {};

TEST_P(Filtering, EventCountedOrFiltered)
{
    const FilterCase &fc = GetParam();
    cfg.feat_sel2 = true;
    cfg.feat_rme = true;
    init();
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6), PMVP_MDCR_EL3_SPME, 0);
    program(0, 0, PMVP_EV_INST_RETIRED, fc.filter);
    write(0, PMVP_PMCCFILTR_EL0, fc.filter, 0);
    enable_cycle_counter(0);
    context(0, fc.el, fc.sec, 0);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 5, 1 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kUs), fc.counted ? 5u : 0u) << fc.rule;
    EXPECT_EQ(cycles(0, 1 * kUs), fc.counted ? 1000u : 0u) << fc.rule;
}

INSTANTIATE_TEST_SUITE_P(
    D24_5_12, Filtering,
    ::testing::Values(
        FilterCase{ "U filters NS EL0", PMVP_PMEVTYPER_EL0_U, 0, PMVP_NONSECURE, false },
        FilterCase{ "NSU == U counts NS EL0", PMVP_PMEVTYPER_EL0_U | PMVP_PMEVTYPER_EL0_NSU, 0, PMVP_NONSECURE, true },
        FilterCase{ "NSU != U filters NS EL0", PMVP_PMEVTYPER_EL0_NSU, 0, PMVP_NONSECURE, false },
        FilterCase{ "U filters Secure EL0", PMVP_PMEVTYPER_EL0_U, 0, PMVP_SECURE, false },
        FilterCase{ "NSU does not affect Secure EL0", PMVP_PMEVTYPER_EL0_NSU, 0, PMVP_SECURE, true },
        FilterCase{ "P filters NS EL1", PMVP_PMEVTYPER_EL0_P, 1, PMVP_NONSECURE, false },
        FilterCase{ "NSK == P counts NS EL1", PMVP_PMEVTYPER_EL0_P | PMVP_PMEVTYPER_EL0_NSK, 1, PMVP_NONSECURE, true },
        FilterCase{ "NSK != P filters NS EL1", PMVP_PMEVTYPER_EL0_NSK, 1, PMVP_NONSECURE, false },
        FilterCase{ "P filters Secure EL1", PMVP_PMEVTYPER_EL0_P, 1, PMVP_SECURE, false },
        FilterCase{ "NSH == 0 filters NS EL2", 0, 2, PMVP_NONSECURE, false },
        FilterCase{ "NSH == 1 counts NS EL2", PMVP_PMEVTYPER_EL0_NSH, 2, PMVP_NONSECURE, true },
        FilterCase{ "SH == NSH filters Secure EL2", PMVP_PMEVTYPER_EL0_NSH | PMVP_PMEVTYPER_EL0_SH, 2, PMVP_SECURE,
                    false },
        FilterCase{ "SH != NSH counts Secure EL2", PMVP_PMEVTYPER_EL0_SH, 2, PMVP_SECURE, true },
        FilterCase{ "M != P filters EL3", PMVP_PMEVTYPER_EL0_M, 3, PMVP_ROOT, false },
        FilterCase{ "M == P counts EL3", PMVP_PMEVTYPER_EL0_M | PMVP_PMEVTYPER_EL0_P, 3, PMVP_ROOT, true },
        FilterCase{ "P alone filters EL3", PMVP_PMEVTYPER_EL0_P, 3, PMVP_ROOT, false },
        FilterCase{ "RLK != P filters Realm EL1", PMVP_PMEVTYPER_EL0_RLK, 1, PMVP_REALM, false },
        FilterCase{ "RLK == P counts Realm EL1", PMVP_PMEVTYPER_EL0_RLK | PMVP_PMEVTYPER_EL0_P, 1, PMVP_REALM, true },
        FilterCase{ "RLU != U filters Realm EL0", PMVP_PMEVTYPER_EL0_RLU, 0, PMVP_REALM, false },
        FilterCase{ "RLH != NSH counts Realm EL2", PMVP_PMEVTYPER_EL0_RLH, 2, PMVP_REALM, true },
        FilterCase{ "RLH == NSH filters Realm EL2", PMVP_PMEVTYPER_EL0_RLH | PMVP_PMEVTYPER_EL0_NSH, 2, PMVP_REALM,
                    false }),
    [](const ::testing::TestParamInfo<FilterCase> &info) {
        std::string name;
        for (const char *c = info.param.rule; *c; c++)
            name += std::isalnum((unsigned char)*c) ? *c : '_';
        return name;
    });

TEST_F(Counting, D13_1_1_HpmnPartitionsTheCountersBetweenPmcrEAndHpme)
{
    init();  // 6 counters
    for (unsigned n : { 0u, 5u })
        program(0, n, PMVP_EV_CPU_CYCLES);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4), PMVP_MDCR_EL3_MTPME, 0);  // HPME = 0
    EXPECT_EQ(counter(0, 0, 1 * kUs), 1000u);
    EXPECT_EQ(counter(0, 5, 1 * kUs), 0u);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4) | PMVP_MDCR_EL2_HPME, PMVP_MDCR_EL3_MTPME, 1 * kUs);
    write(0, PMVP_PMCR_EL0, 0, 1 * kUs);  // PMCR.E = 0
    EXPECT_EQ(counter(0, 0, 2 * kUs), 1000u);
    EXPECT_EQ(counter(0, 5, 2 * kUs), 1000u);
}

// One control changed alone keeps the others: MDCR_EL3 set after HPMN = 4
// leaves the partition, and HPME set through MDCR_EL2 alone enables the
// second range. The getters show what was set.
TEST_F(Counting, OneControlChangedAloneKeepsTheOthers)
{
    init();
    program(0, 5, PMVP_EV_CPU_CYCLES);
    ASSERT_EQ(pmvp_core_set_control(&core, 0, PMVP_CTL_MDCR_EL2, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4), 0), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_control(&core, 0, PMVP_CTL_MDCR_EL3, PMVP_MDCR_EL3_MTPME, 0), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_control(&core, 0, PMVP_CTL_OS_LOCK, 1, 0), PMVP_OK);
    pmvp_pmu_controls ctl{};
    ASSERT_EQ(pmvp_core_controls(&core, 0, &ctl), PMVP_OK);
    EXPECT_EQ(ctl.mdcr_el2, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4));
    EXPECT_EQ(ctl.mdcr_el3, PMVP_MDCR_EL3_MTPME);
    EXPECT_TRUE(ctl.os_lock);
    EXPECT_EQ(counter(0, 5, kUs), 0u);  // second range, HPME clear
    ASSERT_EQ(pmvp_core_set_control(&core, 0, PMVP_CTL_MDCR_EL2,
                                    PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4) | PMVP_MDCR_EL2_HPME, kUs),
              PMVP_OK);
    EXPECT_EQ(counter(0, 5, 2 * kUs), 1000u);
    pmvp_context x{};
    context(0, 2, PMVP_NONSECURE, 2 * kUs);
    ASSERT_EQ(pmvp_core_context(&core, 0, &x), PMVP_OK);
    EXPECT_EQ(x.el, 2u);
    EXPECT_EQ(pmvp_core_set_control(&core, 0, (pmvp_control)99, 0, 2 * kUs), PMVP_ERR_VALUE);
    EXPECT_EQ(pmvp_core_controls(&core, 1, &ctl), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_core_context(&core, 0, nullptr), PMVP_ERR_NULL);
}

TEST_F(Counting, RMMZLZ_HpmdProhibitsEl2OnlyInTheFirstRange)
{
    init();
    for (unsigned n : { 0u, 5u })
        program(0, n, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_NSH);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4) | PMVP_MDCR_EL2_HPME | PMVP_MDCR_EL2_HPMD, 0, 0);
    context(0, 2, PMVP_NONSECURE, 0);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 3, 1 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kNs), 0u);
    EXPECT_EQ(counter(0, 5, 1 * kNs), 3u);
}

TEST_F(Counting, RJDWFF_SpmeAllowsSecureCounting)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    context(0, 1, PMVP_SECURE, 0);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 3, 1 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kNs), 0u);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6), PMVP_MDCR_EL3_SPME, 1 * kNs);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 3, 2 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 2 * kNs), 3u);
}

TEST_F(Counting, RJRYNM_AuthenticationInterfaceAllowsSecureCountingBeforeDebugv8p2)
{
    cfg.feat_debugv8p2 = false;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    context(0, 1, PMVP_SECURE, 0);
    pmvp_pmu_controls ctl{};
    ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6);
    ctl.secure_noninvasive_debug = true;
    ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 3, 1 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kNs), 3u);
}

TEST_F(Counting, PMCR_DP_StopsCycleCounterWhereCountingIsProhibited)
{
    init();
    enable_cycle_counter(0, PMVP_PMCR_EL0_LC | PMVP_PMCR_EL0_DP);
    context(0, 1, PMVP_SECURE, 1 * kUs);  // SPME == 0: prohibited
    context(0, 1, PMVP_NONSECURE, 3 * kUs);
    EXPECT_EQ(cycles(0, 4 * kUs), 2000u);
}

TEST_F(Counting, PMCR_DP0_CycleCounterCountsInProhibitedRegions)
{
    init();
    enable_cycle_counter(0, PMVP_PMCR_EL0_LC);
    context(0, 1, PMVP_SECURE, 1 * kUs);
    EXPECT_EQ(cycles(0, 4 * kUs), 4000u);
}

TEST_F(Counting, SCCD_And_HCCD_StopTheCycleCounter)
{
    init();
    enable_cycle_counter(0);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6) | PMVP_MDCR_EL2_HCCD, PMVP_MDCR_EL3_SPME | PMVP_MDCR_EL3_SCCD,
             0);
    context(0, 1, PMVP_SECURE, 1 * kUs);     // SCCD
    context(0, 2, PMVP_NONSECURE, 2 * kUs);  // HCCD
    context(0, 1, PMVP_NONSECURE, 3 * kUs);
    EXPECT_EQ(cycles(0, 4 * kUs), 2000u);
}

TEST_F(Counting, MCCD_And_MPMX_WithPMUv3p7Controls)
{
    cfg.feat_pmuv3p7 = true;
    init();
    enable_cycle_counter(0, PMVP_PMCR_EL0_LC);
    program(0, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_M | PMVP_PMEVTYPER_EL0_P);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6), PMVP_MDCR_EL3_SPME | PMVP_MDCR_EL3_MCCD | PMVP_MDCR_EL3_MPMX,
             0);
    write(0, PMVP_PMCCFILTR_EL0, PMVP_PMEVTYPER_EL0_M | PMVP_PMEVTYPER_EL0_P, 0);
    context(0, 3, PMVP_SECURE, 0);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 3, 1 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kUs), 0u);  // RGNGCW: {SPME, MPMX} = {1, 1}, first range
    EXPECT_EQ(cycles(0, 1 * kUs), 0u);      // MCCD
}

TEST_F(Counting, DebugStateCountsNothing)
{
    init();
    enable_cycle_counter(0);
    program(0, 0, PMVP_EV_INST_RETIRED);
    pmvp_context halted{};
    halted.el = 1;
    halted.halted = true;
    ASSERT_EQ(pmvp_core_set_context(&core, 0, &halted, 0), PMVP_OK);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 3, 1 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kUs), 0u);
    EXPECT_EQ(cycles(0, 1 * kUs), 0u);
}

TEST_F(Counting, D13_3_1_IrqRisesAtThePredictedOverflowInstant)
{
    init();
    enable_cycle_counter(0, 0);
    write(0, PMVP_PMINTENSET_EL1, PMVP_PMU_C, 0);
    write(0, PMVP_PMCCNTR_EL0, 0xFFFFFFFFull - 999, 0);
    EXPECT_EQ(next_event(0), 1000 * kNs);
    EXPECT_FALSE(irq(0, 1000 * kNs - 1));
    EXPECT_TRUE(irq(0, 1000 * kNs));
    EXPECT_EQ(next_event(1000 * kNs), PMVP_TIME_NEVER);  // flag already set
    write(0, PMVP_PMOVSCLR_EL0, PMVP_PMU_C, 2000 * kNs);
    EXPECT_FALSE(irq(0, 2000 * kNs));
}

TEST_F(Counting, D13_3_1_IrqNeedsTheRangesGlobalEnable)
{
    init();
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4), 0, 0);
    write(0, PMVP_PMINTENSET_EL1, 0x21, 0);
    write(0, PMVP_PMOVSSET_EL0, 0x20, 0);  // counter 5: second range, HPME == 0
    EXPECT_FALSE(irq(0, 0));
    write(0, PMVP_PMOVSSET_EL0, 0x01, 0);  // counter 0: first range, PMCR.E == 0
    EXPECT_FALSE(irq(0, 0));
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E, 0);
    EXPECT_TRUE(irq(0, 0));
}

// D13.2.2: after a direct write disables a counter, direct reads of the
// counter and of the overflow flags return their values at the disable
// point; no event is observed as counted after it. 1 GHz: 1 cycle per ns.
TEST_F(Counting, D13_2_DisableRule_ReadsReturnTheValueAtTheDisablePoint)
{
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_INST_RETIRED);
    enable_cycle_counter(0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LC);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFull - 1499, 0, 0);  // would overflow at 1500 ns
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 7, 400 * kNs), PMVP_OK);
    write(0, PMVP_PMCNTENCLR_EL0, 0x3, 1000 * kNs);         // counters 0 and 1 off
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_LC, 1000 * kNs);  // and everything, by PMCR.E
    for (pmvp_time t : { 1000 * kNs, 1500 * kNs, 2 * kMs }) {
        // Events after the disable point, at it and later.
        ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 5, t), PMVP_OK);
        EXPECT_EQ(counter(0, 0, t), 0xFFFFFFFFull - 499) << t;
        EXPECT_EQ(counter(0, 1, t), 7u) << t;
        EXPECT_EQ(cycles(0, t), 1000u) << t;
        EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, t), 0u) << t;  // the overflow never happens
    }
}

TEST_F(Counting, LazyCostDoesNotDependOnSimulatedTime)
{
    // 1000 s of a counting core in two calls; the result is exact.
    cfg.processor_hz = 3 * kGHz;
    init();
    enable_cycle_counter(0);
    program(0, 0, PMVP_EV_CPU_CYCLES);
    const pmvp_time s = 1000 * kMs;
    EXPECT_EQ(cycles(0, 1000 * s), 3000000000000ull);
    EXPECT_EQ(counter(0, 0, 1000 * s), 3000000000000ull);
}

TEST_F(Counting, BusCyclesAndCntCyclesFollowTheirClocks)
{
    cfg.bus_hz = 250000000;
    cfg.system_counter_hz = 100000000;
    init();
    program(0, 0, PMVP_EV_BUS_CYCLES);
    program(0, 1, PMVP_EV_CNT_CYCLES);
    EXPECT_EQ(counter(0, 0, 1 * kMs), 250000u);
    EXPECT_EQ(counter(0, 1, 1 * kMs), 100000u);
}

TEST_F(Counting, PerCycleEventAddsTheLevelEachCycle)
{
    init();
    program(0, 0, 0x8320);  // L1D_CACHE_REFILL_PERCYC
    ASSERT_EQ(pmvp_core_set_level(&core, 0, 0x8320, 3, 1 * kUs), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_level(&core, 0, 0x8320, 0, 2 * kUs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 3 * kUs), 3000u);
}

// pmvp_core_input_may_interrupt: an input matters to an interrupt only
// through a counter that can request one (PMINTENSET, its range enabled) and
// counts the event, follows the level, or feeds such a counter through
// CHAIN; each write that decides it is seen at once (the answer is cached).
TEST_F(Counting, InputsMayInterruptOnlyThroughCountersThatRequestOne)
{
    const uint16_t kL1dCache = 0x0004;  // L1D_CACHE
    cfg.num_pes = 2;
    init();
    auto report = [&](uint16_t e) { return pmvp_core_input_may_interrupt(&core, e, false); };
    auto level = [&](uint16_t e) { return pmvp_core_input_may_interrupt(&core, e, true); };
    program(0, 0, PMVP_EV_INST_RETIRED);
    program(1, 1, PMVP_EV_STALL_BACKEND_MEM, PMVP_PMEVTYPER_EL0_MT);
    program(1, 2, kL1dCache);
    program(1, 3, PMVP_EV_CHAIN);
    EXPECT_FALSE(report(PMVP_EV_INST_RETIRED));
    EXPECT_FALSE(level(PMVP_EV_STALL_BACKEND));

    write(0, PMVP_PMINTENSET_EL1, 1u << 0, 0);
    EXPECT_TRUE(report(PMVP_EV_INST_RETIRED));
    EXPECT_FALSE(level(PMVP_EV_STALL_BACKEND));
    write(0, PMVP_PMCR_EL0, 0, 0);  // PMCR.E = 0: the first range requests nothing
    EXPECT_FALSE(report(PMVP_EV_INST_RETIRED));
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E, 0);
    EXPECT_TRUE(report(PMVP_EV_INST_RETIRED));
    write(0, PMVP_PMINTENCLR_EL1, 1u << 0, 0);
    EXPECT_FALSE(report(PMVP_EV_INST_RETIRED));

    // A STALL event's counter follows its own level and, counted with
    // MT == 1, the stall condition's.
    write(1, PMVP_PMINTENSET_EL1, 1u << 1, 0);
    EXPECT_TRUE(level(PMVP_EV_STALL_BACKEND_MEM));
    EXPECT_TRUE(level(PMVP_EV_STALL_BACKEND));
    write(1, PMVP_PMEVTYPER_EL0, PMVP_EV_STALL_BACKEND_MEM, 0, 1);  // MT = 0
    EXPECT_TRUE(level(PMVP_EV_STALL_BACKEND_MEM));
    EXPECT_FALSE(level(PMVP_EV_STALL_BACKEND));
    write(1, PMVP_PMINTENCLR_EL1, 1u << 1, 0);
    EXPECT_FALSE(level(PMVP_EV_STALL_BACKEND_MEM));

    // Counter 2 feeds the CHAIN counter 3 above it.
    EXPECT_FALSE(report(kL1dCache));
    write(1, PMVP_PMINTENSET_EL1, 1u << 3, 0);
    EXPECT_TRUE(report(kL1dCache));
    EXPECT_FALSE(report(PMVP_EV_INST_RETIRED));
}

}  // namespace
}  // namespace pmvp::test
