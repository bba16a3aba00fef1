// SPDX-License-Identifier: Apache-2.0
// A batch report's spread over processor cycles (pmvp_core_report_runs,
// pmvp_core_report_spread, and several at once: pmvp_core_report_batches):
// threshold and edge counting of D13.8 see each
// cycle's occurrences; every other counter counts them cycle by cycle, so
// overflows and freezes fall on the cycle they would. At 1 GHz processor
// cycle k is ((k - 1) ns, k ns].
#include "fixture.h"

namespace pmvp::test {
namespace {

constexpr uint16_t kBrRetired = 0x0021;


class Spread : public Kernel {
protected:
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.feat_pmuv3p7 = true;
        cfg.pmmir = PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, 8) | PMVP_FIELD_PREP(PMVP_PMMIR_EL1_EDGE, 2);
        cfg.num_counters = 4;
    }
    int spread(uint64_t count, uint64_t cycles, pmvp_time now, unsigned pe = 0)
    {
        return pmvp_core_report_spread(&core, pe, PMVP_EV_INST_RETIRED, count, cycles, now);
    }
};

// Example D13-5's kind, cycles with at least two instructions retired: 1500
// instructions over 1000 cycles are 500 cycles of 2 and 500 of 1. As one
// report they would be one cycle of 1500.
TEST_F(Spread, RQVYDV_TheThresholdSeesEachCyclesShare)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(2));  // cycles with >= 2
    program(0, 1, PMVP_EV_INST_RETIRED, tc(kGe) | th(2));       // their instructions
    program(0, 2, PMVP_EV_INST_RETIRED);
    program(0, 3, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(2) | kTe);  // rising edges
    ASSERT_EQ(spread(1500, 1000, 1000 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1000 * kNs), 500u);
    EXPECT_EQ(counter(0, 1, 1000 * kNs), 1000u);
    EXPECT_EQ(counter(0, 2, 1000 * kNs), 1500u);
    EXPECT_EQ(counter(0, 3, 1000 * kNs), 1u);  // the extra ones come first: one rising edge
    // Runs give any pattern: 2, 0, 3, 0 twice over 4 cycles ending at 1004 ns.
    const pmvp_run runs[] = { { 1, 2 }, { 1, 0 }, { 1, 3 }, { 1, 0 } };
    ASSERT_EQ(pmvp_core_report_runs(&core, 0, PMVP_EV_INST_RETIRED, runs, 4, 1004 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1004 * kNs), 502u);
    EXPECT_EQ(counter(0, 1, 1004 * kNs), 1005u);
    EXPECT_EQ(counter(0, 2, 1004 * kNs), 1505u);
    EXPECT_EQ(counter(0, 3, 1004 * kNs), 3u);  // cycle 1000 had 1: cycles 1001 and 1003 rise
}

// The window is the cycles completed by `now`: a call at 1000.5 ns covers
// cycles up to the 1000th (edge at 1000 ns). A report earlier in its first
// cycle adds to that cycle.
TEST_F(Spread, TheWindowEndsWithTheLastCompletedCycleAndTakesTheFirstCyclesReports)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(3));
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 1, 500), PMVP_OK);  // cycle 1, at 0.5 ns
    ASSERT_EQ(spread(2000, 1000, 1000 * kNs + 500), PMVP_OK);                      // 2 on each of cycles 1..1000
    EXPECT_EQ(counter(0, 0, 1000 * kNs + 500), 1u);                                // cycle 1: 2 + 1
    EXPECT_EQ(counter(0, 0, 2000 * kNs), 1u);                                      // nothing after the window
}

// Everything counts cycle by cycle: counter 0 (INST_RETIRED, one per cycle)
// overflows on the 100th cycle of the window, and its flag (PMCR.FZO)
// freezes counter 1 (CPU_CYCLES) from there: it counts 100 of the 1000
// cycles. The instruction counter, the AMU and an MT == 1 counter of the
// other PE count the spread too.
TEST_F(Spread, OverflowsAndFreezesFallOnTheirCycle)
{
    cfg.num_pes = 2;
    cfg.feat_pmuv3_icntr = true;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    program(0, 1, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMEVCNTR_EL0, UINT32_MAX - 99, 0, 0);
    write(0, PMVP_PMCNTENSET_EL0, PMVP_PMU_F0, 0);
    ASSERT_EQ(pmvp_amu_write(&core, 0, PMVP_AMCNTENSET0_EL0, 0, 0x4, 0), PMVP_OK);  // AMEVCNTR02: INST_RETIRED
    program(1, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT);
    ASSERT_EQ(spread(1000, 1000, 1000 * kNs), PMVP_OK);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 1000 * kNs), 1u);
    EXPECT_EQ(counter(0, 1, 1000 * kNs), 100u);
    EXPECT_EQ(counter(0, 0, 1000 * kNs), UINT64_C(0x100000000));  // carried into bit 32, then frozen
    EXPECT_EQ(read(0, PMVP_PMICNTR_EL0, 1000 * kNs), 100u);       // frozen with the first range
    uint64_t amu = 0;
    ASSERT_EQ(pmvp_amu_read(&core, 0, PMVP_AMEVCNTR0_EL0, 2, 1000 * kNs, &amu), PMVP_OK);
    EXPECT_EQ(amu, 1000u);
    EXPECT_EQ(counter(1, 0, 1000 * kNs), 1000u);
}

// The instruction counter's own overflow (2^64, F0) freezes the first range
// on its cycle.
TEST_F(Spread, TheInstructionCountersOverflowFreezesOnItsCycle)
{
    cfg.feat_pmuv3_icntr = true;
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMCNTENSET_EL0, PMVP_PMU_F0, 0);
    write(0, PMVP_PMICNTR_EL0, UINT64_MAX - 299, 0);  // 300 short: the 100th cycle of 3
    ASSERT_EQ(spread(3000, 1000, 1000 * kNs), PMVP_OK);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 1000 * kNs), PMVP_PMU_F0);
    EXPECT_EQ(counter(0, 0, 1000 * kNs), 100u);
    EXPECT_EQ(read(0, PMVP_PMICNTR_EL0, 1000 * kNs), 0u);
}

TEST_F(Spread, BadWindowsAreRefused)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    pmvp_run run{ 10, 1 };
    EXPECT_EQ(pmvp_core_report_runs(nullptr, 0, PMVP_EV_INST_RETIRED, &run, 1, 0), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_report_runs(&core, 0, PMVP_EV_INST_RETIRED, nullptr, 1, 20 * kNs), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_report_runs(&core, 2, PMVP_EV_INST_RETIRED, &run, 1, 20 * kNs), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_core_report_runs(&core, 0, PMVP_EV_CPU_CYCLES, &run, 1, 20 * kNs), PMVP_ERR_EVENT);
    EXPECT_EQ(pmvp_core_report_runs(&core, 0, PMVP_EV_INST_RETIRED, &run, 0, 20 * kNs), PMVP_ERR_VALUE);
    EXPECT_EQ(spread(5, 0, 20 * kNs), PMVP_ERR_VALUE);
    EXPECT_EQ(spread(UINT64_MAX, 1, 20 * kNs), PMVP_ERR_VALUE);  // more than UINT32_MAX on a cycle
    const pmvp_run huge[] = { { UINT64_MAX, 1 }, { 1, 1 } };
    EXPECT_EQ(pmvp_core_report_runs(&core, 0, PMVP_EV_INST_RETIRED, huge, 2, 20 * kNs), PMVP_ERR_VALUE);
    // A write at 15.5 ns: the window's first cycle must end after it.
    write(0, PMVP_PMSELR_EL0, 1, 15 * kNs + 500);
    EXPECT_EQ(spread(6, 6, 20 * kNs), PMVP_ERR_PAST);  // cycles 15..20: cycle 15 ended at 15 ns
    EXPECT_EQ(spread(5, 5, 20 * kNs), PMVP_OK);        // cycles 16..20
    EXPECT_EQ(spread(1, 1, 19 * kNs), PMVP_ERR_PAST);  // before the last call
    // A PE that is off reports nothing; a stopped clock runs no cycle.
    state(1, PMVP_PE_OFF, 21 * kNs);
    EXPECT_EQ(spread(1, 1, 30 * kNs, 1), PMVP_ERR_PE_OFF);
    state(0, PMVP_PE_WFI, 31 * kNs);
    EXPECT_EQ(spread(1, 1, 40 * kNs), PMVP_ERR_VALUE);
    EXPECT_EQ(counter(0, 0, 40 * kNs), 5u);  // the one spread taken, nothing of the refusals
}

// Two SMT threads' batches over the same cycles (pmvp_core_report_batches):
// an MT == 1 counter's V_B on a cycle is the sum of both PEs' instructions
// on it (D13.8 with D14.4's MT rule). PE 0 retires one instruction on each
// of cycles 1..1000, PE 1 one on each of cycles 501..1000: 500 cycles of 2
// for PE 0's MT == 1 counter, none for its MT == 0 one, and one rising
// edge, at cycle 501.
TEST_F(Spread, SeveralPEsBatchesSumOnEachCycleForMt1)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(2) | PMVP_PMEVTYPER_EL0_MT);
    program(0, 1, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(2));
    program(0, 2, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(2) | kTe | PMVP_PMEVTYPER_EL0_MT);
    program(0, 3, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT);
    program(1, 0, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(1));
    const pmvp_run one_each[] = { { 1000, 1 } }, last_half[] = { { 500, 1 } };
    const pmvp_batch b[] = { { 0, PMVP_EV_INST_RETIRED, one_each, 1 }, { 1, PMVP_EV_INST_RETIRED, last_half, 1 } };
    ASSERT_EQ(pmvp_core_report_batches(&core, b, 2, 1000 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1000 * kNs), 500u);
    EXPECT_EQ(counter(0, 1, 1000 * kNs), 0u);
    EXPECT_EQ(counter(0, 2, 1000 * kNs), 1u);
    EXPECT_EQ(counter(0, 3, 1000 * kNs), 1500u);
    EXPECT_EQ(counter(1, 0, 1000 * kNs), 500u);
    // The same cycles as two one-PE calls are refused: the second window
    // would reach back before the first call.
    ASSERT_EQ(pmvp_core_report_runs(&core, 0, PMVP_EV_INST_RETIRED, one_each, 1, 2000 * kNs), PMVP_OK);
    EXPECT_EQ(pmvp_core_report_runs(&core, 1, PMVP_EV_INST_RETIRED, last_half, 1, 2000 * kNs), PMVP_ERR_PAST);
}

// One PE's batches of two events over the same cycles, with runs that
// change at different cycles: each counter sees its own event's share.
// INST_RETIRED 2,2,0,0 and BR_RETIRED 0,1,1,0 over cycles 1..4 (edges at
// 1..4 ns): INST_RETIRED >= 2 on 2 cycles; BR_RETIRED == 1 on cycles 2 and
// 3; their rising edges once each.
TEST_F(Spread, OnePEsBatchesOfTwoEventsKeepTheirOwnRuns)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(2));
    program(0, 1, kBrRetired, tc(kEqCount) | th(1));
    program(0, 2, kBrRetired, tc(kEqCount) | th(1) | kTe);
    program(0, 3, kBrRetired);
    const pmvp_run inst[] = { { 2, 2 }, { 2, 0 } }, br[] = { { 1, 0 }, { 2, 1 }, { 1, 0 } };
    const pmvp_batch b[] = { { 0, PMVP_EV_INST_RETIRED, inst, 2 }, { 0, kBrRetired, br, 3 } };
    ASSERT_EQ(pmvp_core_report_batches(&core, b, 2, 4 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 4 * kNs), 2u);
    EXPECT_EQ(counter(0, 1, 4 * kNs), 2u);
    EXPECT_EQ(counter(0, 2, 4 * kNs), 1u);
    EXPECT_EQ(counter(0, 3, 4 * kNs), 2u);
}

// A CPU model that knows instants: the cycles of (since, now] are its
// window. At 1 GHz, (10.5 ns, 20 ns] holds the edges at 11..20 ns.
TEST_F(Spread, CyclesBetweenTwoInstants)
{
    init();
    uint64_t cycles = 0;
    ASSERT_EQ(pmvp_core_cycles_between(&core, 10 * kNs + 500, 20 * kNs, &cycles), PMVP_OK);
    EXPECT_EQ(cycles, 10u);
    ASSERT_EQ(pmvp_core_cycles_between(&core, 10 * kNs, 20 * kNs, &cycles), PMVP_OK);
    EXPECT_EQ(cycles, 10u);  // the edge at 10 ns belongs to the instant 10 ns
    ASSERT_EQ(pmvp_core_cycles_between(&core, 0, 0, &cycles), PMVP_OK);
    EXPECT_EQ(cycles, 0u);
    EXPECT_EQ(pmvp_core_cycles_between(&core, 20 * kNs, 10 * kNs, &cycles), PMVP_ERR_VALUE);
    EXPECT_EQ(pmvp_core_cycles_between(nullptr, 0, 1, &cycles), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_cycles_between(&core, 0, 1, nullptr), PMVP_ERR_NULL);
    write(0, PMVP_PMSELR_EL0, 1, 15 * kNs);
    EXPECT_EQ(pmvp_core_cycles_between(&core, 10 * kNs, 20 * kNs, &cycles), PMVP_ERR_PAST);
    pmvp_run runs[2];
    ASSERT_EQ(pmvp_even_runs(7, 3, runs), PMVP_OK);
    EXPECT_EQ(runs[0].cycles, 1u);
    EXPECT_EQ(runs[0].per_cycle, 3u);
    EXPECT_EQ(runs[1].cycles, 2u);
    EXPECT_EQ(runs[1].per_cycle, 2u);
    EXPECT_EQ(pmvp_even_runs(7, 0, runs), PMVP_ERR_VALUE);
    EXPECT_EQ(pmvp_even_runs(7, 3, nullptr), PMVP_ERR_NULL);
}

// A call with one bad batch is refused whole, naming that batch's fault,
// and changes nothing.
TEST_F(Spread, ABadBatchRefusesTheWholeCall)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT);
    const pmvp_run run[] = { { 10, 1 } };
    pmvp_batch b[PMVP_MAX_BATCHES + 1];
    for (pmvp_batch &x : b)
        x = { 0, PMVP_EV_INST_RETIRED, run, 1 };
    EXPECT_EQ(pmvp_core_report_batches(&core, nullptr, 1, 20 * kNs), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_report_batches(&core, b, 0, 20 * kNs), PMVP_ERR_VALUE);
    EXPECT_EQ(pmvp_core_report_batches(&core, b, PMVP_MAX_BATCHES + 1, 20 * kNs), PMVP_ERR_VALUE);
    ASSERT_EQ(pmvp_core_report_batches(&core, b, PMVP_MAX_BATCHES, 10 * kNs), PMVP_OK);  // 16 on each cycle
    EXPECT_EQ(counter(0, 0, 10 * kNs), 160u);
    b[1].pe = 2;
    EXPECT_EQ(pmvp_core_report_batches(&core, b, 2, 20 * kNs), PMVP_ERR_PE);
    b[1] = { 1, PMVP_EV_CPU_CYCLES, run, 1 };
    EXPECT_EQ(pmvp_core_report_batches(&core, b, 2, 20 * kNs), PMVP_ERR_EVENT);
    b[1] = { 1, PMVP_EV_INST_RETIRED, nullptr, 1 };
    EXPECT_EQ(pmvp_core_report_batches(&core, b, 2, 20 * kNs), PMVP_ERR_NULL);
    const pmvp_run eleven[] = { { 11, 1 } };
    b[1] = { 1, PMVP_EV_INST_RETIRED, eleven, 1 };
    EXPECT_EQ(pmvp_core_report_batches(&core, b, 2, 20 * kNs), PMVP_ERR_PAST);  // cycle 10 is before the last call
    b[1] = { 1, PMVP_EV_INST_RETIRED, run, 1 };
    ASSERT_EQ(pmvp_core_report_batches(&core, b, 2, 20 * kNs), PMVP_OK);  // the refusals took nothing
    EXPECT_EQ(counter(0, 0, 20 * kNs), 180u);
}

// Shares over the cycles between two instants: two SMT threads retire 300
// and 100 instructions in (10 ns, 210 ns], 200 cycles at 1 GHz: PE 0 has
// 100 cycles of 2 then 100 of 1, PE 1 100 cycles of 1 then 100 of 0, so
// the MT == 1 sum is 3 on 100 cycles and 1 on 100. Within one cycle,
// (210.2 ns, 210.7 ns], a share is a report in it.
TEST_F(Spread, SharesBetweenTwoInstantsSpreadEvenlyOverTheirCycles)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(3) | PMVP_PMEVTYPER_EL0_MT);
    program(0, 1, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(2));
    program(1, 0, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(1));
    write(0, PMVP_PMSELR_EL0, 0, 10 * kNs);
    const pmvp_share s[] = { { 0, PMVP_EV_INST_RETIRED, 300 }, { 1, PMVP_EV_INST_RETIRED, 100 } };
    ASSERT_EQ(pmvp_core_report_shares(&core, s, 2, 10 * kNs, 210 * kNs), PMVP_OK);
    const pmvp_share small[] = { { 0, PMVP_EV_INST_RETIRED, 2 }, { 1, PMVP_EV_INST_RETIRED, 1 } };
    ASSERT_EQ(pmvp_core_report_shares(&core, small, 2, 210 * kNs + 200, 210 * kNs + 700), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 211 * kNs), 101u);  // and cycle 211: 2 + 1
    EXPECT_EQ(counter(0, 1, 211 * kNs), 101u);
    EXPECT_EQ(counter(1, 0, 211 * kNs), 101u);
    // Reaching back before the last input (the reads at 211 ns), the window
    // starts there: (211 ns, 300 ns], 89 cycles of PE 0's 3 or 4 and PE 1's
    // 1 or 2.
    ASSERT_EQ(pmvp_core_report_shares(&core, s, 2, 200 * kNs, 300 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 300 * kNs), 190u);
    EXPECT_EQ(counter(0, 1, 300 * kNs), 190u);
    EXPECT_EQ(counter(1, 0, 300 * kNs), 190u);
    EXPECT_EQ(pmvp_core_report_shares(&core, s, 2, 100 * kNs, 250 * kNs), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_core_report_shares(&core, s, 0, 300 * kNs, 400 * kNs), PMVP_ERR_VALUE);
    EXPECT_EQ(pmvp_core_report_shares(&core, nullptr, 1, 300 * kNs, 400 * kNs), PMVP_ERR_NULL);
    const pmvp_share off_pe[] = { { 0, PMVP_EV_INST_RETIRED, 1 }, { 2, PMVP_EV_INST_RETIRED, 1 } };
    EXPECT_EQ(pmvp_core_report_shares(&core, off_pe, 2, 300 * kNs, 300 * kNs + 1), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_core_report_shares(&core, off_pe, 2, 300 * kNs, 400 * kNs), PMVP_ERR_PE);
    EXPECT_EQ(counter(0, 1, 400 * kNs), 190u);  // nothing of the refused calls
}

}  // namespace
}  // namespace pmvp::test
