// SPDX-License-Identifier: Apache-2.0
// Freeze on overflow (D13.5.2.1, FEAT_PMUv3p7): PMCR.FZO, MDCR_EL2.HPMFZO.
// A 1 GHz processor clock: a cycle is a nanosecond. pmvp counts what
// happens with the freezing overflow (every clock edge of its instant, the
// CHAIN counter above, the rest of the same report) and freezes the rest:
// an input at the instant of a clock edge comes after the edge.
#include "fixture.h"


namespace pmvp::test {
namespace {

constexpr uint64_t k32 = 0xFFFFFFFFull;

class Freeze : public Kernel {
protected:
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.feat_pmuv3p7 = true;
    }
    // Counters 0..5 in the first range (HPMN = 6) unless set otherwise.
    void hpmn(unsigned h, uint64_t extra = 0)
    {
        controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, h) | PMVP_MDCR_EL2_HPME | extra, 0, 0);
    }
    uint64_t peek(pmvp_pmu_reg r, pmvp_time t, unsigned n = 0)
    {
        uint64_t v = 0;
        EXPECT_EQ(pmvp_pmu_peek(&core, 0, r, n, t, &v), PMVP_OK);
        return v;
    }
    pmvp_time next_interrupt(pmvp_time t)
    {
        pmvp_time when = 0;
        EXPECT_EQ(pmvp_core_next_interrupt(&core, t, &when), PMVP_OK);
        return when;
    }
    void report(uint16_t event, uint64_t count, pmvp_time t)
    {
        ASSERT_EQ(pmvp_core_report(&core, 0, event, count, t), PMVP_OK);
    }
};

TEST_F(Freeze, RMZPBW_FirstRangeStopsAfterTheOverflowsInstant)
{
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_CPU_CYCLES);
    enable_cycle_counter(0, PMVP_PMCR_EL0_LC | PMVP_PMCR_EL0_FZO);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 0);  // overflows on cycle 1000
    EXPECT_EQ(next_event(0), 1000 * kNs);
    // The pure query splits its stretch at the overflow as a read does.
    EXPECT_EQ(peek(PMVP_PMEVCNTR_EL0, 5 * kUs, 1), 1000u);
    EXPECT_EQ(peek(PMVP_PMEVCNTR_EL0, 5 * kUs, 0), k32 + 1);
    EXPECT_EQ(counter(0, 1, 5 * kUs), 1000u);
    EXPECT_EQ(counter(0, 0, 5 * kUs), k32 + 1);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 5 * kUs), 1u);
    EXPECT_EQ(cycles(0, 5 * kUs), 5000u);  // PMCR.DP == 0: PMCCNTR is not affected
    // ILMSFT: while the flag is set, reads return the same value.
    EXPECT_EQ(counter(0, 1, 9 * kUs), 1000u);
}

TEST_F(Freeze, PMCR_DP_FreezesTheCycleCounterWithTheFirstRange)
{
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    enable_cycle_counter(0, PMVP_PMCR_EL0_LC | PMVP_PMCR_EL0_FZO | PMVP_PMCR_EL0_DP);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 0);
    EXPECT_EQ(cycles(0, 5 * kUs), 1000u);
}

TEST_F(Freeze, ClearingTheFlagResumesCounting)
{
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 0);
    write(0, PMVP_PMOVSCLR_EL0, 1, 3 * kUs);
    EXPECT_EQ(counter(0, 1, 5 * kUs), 1000u + 2000u);
    // Without FZO an overflow freezes nothing.
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E, 5 * kUs);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 5 * kUs, 0);
    EXPECT_EQ(counter(0, 1, 7 * kUs), 5000u);
}

TEST_F(Freeze, HPMFZO_FreezesTheSecondRangeOnly)
{
    init();
    hpmn(2, PMVP_MDCR_EL2_HPMFZO);
    for (unsigned n = 0; n < 4; n++)
        program(0, n, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 2);  // second range
    EXPECT_EQ(counter(0, 3, 4 * kUs), 1000u);
    EXPECT_EQ(counter(0, 1, 4 * kUs), 4000u);
    // A first-range flag does not freeze it: PMCR.FZO is 0.
    write(0, PMVP_PMOVSSET_EL0, 1, 4 * kUs);
    EXPECT_EQ(counter(0, 1, 6 * kUs), 6000u);
}

TEST_F(Freeze, HPMFZO_IsIgnoredWithoutPMUv3p7)
{
    cfg.feat_pmuv3p7 = false;
    init();
    hpmn(2, PMVP_MDCR_EL2_HPMFZO);
    program(0, 2, PMVP_EV_CPU_CYCLES);
    program(0, 3, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 2);
    EXPECT_EQ(counter(0, 3, 4 * kUs), 4000u);
}

TEST_F(Freeze, FZO_IsRes0WithoutPMUv3p7)
{
    cfg.feat_pmuv3p7 = false;
    init();
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    EXPECT_EQ(read(0, PMVP_PMCR_EL0, 0) & PMVP_PMCR_EL0_FZO, 0u);
}

TEST_F(Freeze, FZO_IsReadWriteWithPMUv3p7)
{
    init();
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    EXPECT_EQ(read(0, PMVP_PMCR_EL0, 0) & PMVP_PMCR_EL0_FZO, PMVP_PMCR_EL0_FZO);
}

TEST_F(Freeze, AFlagSoftwareSetsFreezesToo)
{
    init();
    program(0, 1, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMOVSSET_EL0, 1u << 4, 2 * kUs);
    EXPECT_EQ(counter(0, 1, 5 * kUs), 2000u);
}

TEST_F(Freeze, IDKYFT_FlagsOfSynchronousCountersDoNotFreeze)
{
    cfg.feat_ebep = cfg.feat_sebep = true;
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES, PMVP_PMEVTYPER_EL0_SYNC);
    program(0, 1, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 0);
    EXPECT_EQ(counter(0, 1, 3 * kUs), 3000u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 3 * kUs), 1u);
    // A counter in synchronous mode is frozen like any other.
    write(0, PMVP_PMOVSSET_EL0, 1u << 1, 3 * kUs);
    EXPECT_EQ(counter(0, 0, 5 * kUs), k32 + 1 + 2000u);
}

TEST_F(Freeze, AReportThatOverflowsIsCountedWholeThenFreezes)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    program(0, 1, PMVP_EV_INST_RETIRED);
    program(0, 2, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 4, 0, 0);
    report(PMVP_EV_INST_RETIRED, 10, 2 * kUs);  // counter 0 overflows on the 5th
    report(PMVP_EV_INST_RETIRED, 10, 3 * kUs);
    EXPECT_EQ(counter(0, 1, 5 * kUs), 10u);
    EXPECT_EQ(counter(0, 0, 5 * kUs), k32 + 6);
    EXPECT_EQ(counter(0, 2, 5 * kUs), 2000u);  // cycles until the report, none after
}

TEST_F(Freeze, ReportsAfterACycleOverflowAreNotCounted)
{
    // The cycles before a report may have frozen its counters: the report
    // brings the core to its instant first.
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_INST_RETIRED);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 0);
    report(PMVP_EV_INST_RETIRED, 7, 999 * kNs);
    report(PMVP_EV_INST_RETIRED, 7, 1000 * kNs);  // after the edge that overflowed: frozen
    report(PMVP_EV_INST_RETIRED, 7, 1500 * kNs);
    EXPECT_EQ(counter(0, 1, 2 * kUs), 7u);
}

TEST_F(Freeze, ALevelChangedWhileArmedKeepsItsSplit)
{
    // A level counter that is the freeze's source: on, off, on again; the
    // overflow comes after 1000 stall cycles.
    init();
    program(0, 0, PMVP_EV_STALL_BACKEND);
    program(0, 1, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 0);
    ASSERT_EQ(pmvp_core_set_level(&core, 0, PMVP_EV_STALL_BACKEND, 1, 0), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_level(&core, 0, PMVP_EV_STALL_BACKEND, 0, 500 * kNs), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_level(&core, 0, PMVP_EV_STALL_BACKEND, 1, 600 * kNs), PMVP_OK);
    EXPECT_EQ(next_event(600 * kNs), 1100 * kNs);
    EXPECT_EQ(peek(PMVP_PMEVCNTR_EL0, 3 * kUs, 1), 1100u);
    EXPECT_EQ(counter(0, 1, 3 * kUs), 1100u);
}

TEST_F(Freeze, ITLHSZ_TheChainCounterTakesTheFreezingOverflow)
{
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_CHAIN);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 0);
    EXPECT_EQ(counter(0, 1, 3 * kUs), 1u);
}

TEST_F(Freeze, AChainCounterAtHpmnStopsWithTheFirstRange)
{
    // HPMN = 1: counter 0 in the first range feeds CHAIN counter 1 in the
    // second. Counter 0's overflow freezes the first range at 1 us, so
    // counter 1, one wrap from overflowing after it, never overflows, and
    // no interrupt is predicted for it.
    init();
    hpmn(1, PMVP_MDCR_EL2_HPMFZO);
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_CHAIN);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 1, 0, 1);
    write(0, PMVP_PMINTENSET_EL1, 1u << 1, 0);
    EXPECT_EQ(next_interrupt(0), PMVP_TIME_NEVER);
    EXPECT_EQ(next_event(0), 1000 * kNs);
    EXPECT_EQ(counter(0, 1, 10 * kUs), k32);
}

TEST_F(Freeze, AFrozenChainCounterTakesNoCarry)
{
    // HPMN = 1, second range frozen by counter 2 at 1 us; counter 0 (first
    // range, not frozen: FZO is 0) wraps at 2 us and does not feed frozen
    // CHAIN counter 1. The pure query splits as the read does.
    init();
    hpmn(1, PMVP_MDCR_EL2_HPMFZO);
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_CHAIN);
    program(0, 2, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 1999, 0, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 2);
    EXPECT_EQ(peek(PMVP_PMEVCNTR_EL0, 3 * kUs, 1), 0u);
    EXPECT_EQ(peek(PMVP_PMOVSSET_EL0, 3 * kUs), 0b101u);
    EXPECT_EQ(counter(0, 1, 3 * kUs), 0u);
    EXPECT_EQ(counter(0, 0, 3 * kUs), k32 + 1001);
}

TEST_F(Freeze, TheNextInterruptSkipsAnOverflowAFreezeStops)
{
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_CPU_CYCLES);
    enable_cycle_counter(0, PMVP_PMCR_EL0_FZO | PMVP_PMCR_EL0_DP);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 999, 0, 0);   // freezes at 1 us, no interrupt
    write(0, PMVP_PMEVCNTR_EL0, k32 - 1999, 0, 1);  // would overflow at 2 us
    write(0, PMVP_PMCCNTR_EL0, k32 - 2999, 0);      // would overflow at 3 us
    write(0, PMVP_PMINTENSET_EL1, 0b10 | PMVP_PMU_C, 0);
    EXPECT_EQ(next_interrupt(0), PMVP_TIME_NEVER);
    EXPECT_FALSE(irq(0, 5 * kUs));
    write(0, PMVP_PMOVSCLR_EL0, 1, 5 * kUs);  // resumes: counter 1 is 1000 from overflow
    EXPECT_EQ(next_interrupt(5 * kUs), 6 * kUs);
}

TEST_F(Freeze, ACpuModelLearnsWhereToEndItsBatches)
{
    // A CPU model reporting instructions in batches ends one at the
    // instruction that overflows a source (the report counts whole), and
    // at the instant a counter of cycles overflows one.
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    program(0, 1, PMVP_EV_INST_RETIRED);
    program(0, 2, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 41, 0, 0);
    write(0, PMVP_PMEVCNTR_EL0, k32 - 2999, 0, 2);
    uint64_t count = 0;
    ASSERT_EQ(pmvp_core_events_to_interrupt(&core, 0, PMVP_EV_INST_RETIRED, 0, &count), PMVP_OK);
    EXPECT_EQ(count, 42u);  // no interrupt is enabled: the freeze alone
    pmvp_time when = 0;
    ASSERT_EQ(pmvp_core_next_freeze(&core, 0, &when), PMVP_OK);
    EXPECT_EQ(when, 3 * kUs);
    EXPECT_EQ(next_interrupt(0), PMVP_TIME_NEVER);
    report(PMVP_EV_INST_RETIRED, 42, 1 * kUs);  // frozen: nothing left to end a batch for
    ASSERT_EQ(pmvp_core_next_freeze(&core, 1 * kUs, &when), PMVP_OK);
    EXPECT_EQ(when, PMVP_TIME_NEVER);
    ASSERT_EQ(pmvp_core_events_to_interrupt(&core, 0, PMVP_EV_INST_RETIRED, 1 * kUs, &count), PMVP_OK);
    EXPECT_EQ(count, PMVP_EVENTS_NEVER);
    EXPECT_EQ(counter(0, 2, 5 * kUs), k32 - 1999);  // the cycles until the report
}

TEST_F(Freeze, ACheckpointKeepsTheFreeze)
{
    init();
    program(0, 1, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMOVSSET_EL0, 1, 1 * kUs);
    save_and_restore();
    EXPECT_EQ(counter(0, 1, 4 * kUs), 1000u);
}

}  // namespace
}  // namespace pmvp::test
