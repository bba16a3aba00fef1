// SPDX-License-Identifier: Apache-2.0
// Threshold and edge counting (D13.8, D24.5.12 TC/TE/TLC/TH, D24.5.19
// PMMIR.THWIDTH/EDGE): exact counts for each kind of input, the cycle a
// report belongs to, C_P, linking, the next overflow, checkpoints, the
// registers and the configuration's rules. At 1 GHz processor cycle k is
// ((k - 1) ns, k ns]: a report at 0.5 ns belongs to cycle 1, which its
// closing edge at 1 ns counts; one at 1 ns comes after that edge.
#include "fixture.h"

#include "pmvp/ext.h"

namespace pmvp::test {
namespace {

constexpr pmvp_time kPs = 1;


class Threshold : public Kernel {
protected:
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.pmu_version = PMVP_PMUV3P5;
        cfg.feat_pmuv3p7 = true;
        // FEAT_PMUv3_TH2 with an 8-bit TH.
        cfg.pmmir = PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, 8) | PMVP_FIELD_PREP(PMVP_PMMIR_EL1_EDGE, 2);
        cfg.processor_hz = 1000000000;
        cfg.num_counters = 4;
    }
    void retire(uint64_t count, pmvp_time t, unsigned pe = 0)
    {
        ASSERT_EQ(pmvp_core_report(&core, pe, PMVP_EV_INST_RETIRED, count, t), PMVP_OK);
    }
    void level(uint16_t event, uint32_t value, pmvp_time t, unsigned pe = 0)
    {
        ASSERT_EQ(pmvp_core_set_level(&core, pe, event, value, t), PMVP_OK);
    }
};

// Example D13-5's kind: cycles on which at least two instructions retire.
// Reports in one cycle add up; the cycle counts at its closing edge.
TEST_F(Threshold, RQVYDV_GreaterOrEqualCountsCyclesWhoseReportsReachTheThreshold)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(2));
    retire(2, 500 * kPs);   // cycle 1: 2, counts
    retire(1, 1200 * kPs);  // cycle 2: 1
    retire(1, 2100 * kPs);  // cycle 3: 1 + 1, counts
    retire(1, 2900 * kPs);
    retire(3, 5 * kNs);  // after edge 5: cycle 6, counts at 6 ns
    EXPECT_EQ(counter(0, 0, 5500 * kPs), 2u);
    EXPECT_EQ(counter(0, 0, 6 * kNs), 3u);
    EXPECT_EQ(counter(0, 0, 1 * kUs), 3u);
}

// A PMEVTYPER write that turns the threshold function on takes effect from
// the write: reports before it were plain occurrences, those after it
// count by cycle, while another counter of the same event counts them all.
TEST_F(Threshold, ACounterRetypedWithAThresholdCountsCyclesFromTheWrite)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    program(0, 1, PMVP_EV_INST_RETIRED);
    retire(3, 500 * kPs);  // cycle 1
    write(0, PMVP_PMEVTYPER_EL0, PMVP_EV_INST_RETIRED | tc(kGeCount) | th(2), 2 * kNs, 1);
    retire(2, 2500 * kPs);  // cycle 3: 2, counts
    retire(1, 3500 * kPs);  // cycle 4: 1
    EXPECT_EQ(counter(0, 0, 10 * kNs), 6u);
    EXPECT_EQ(counter(0, 1, 10 * kNs), 3u + 1u);
}

// Example D13-4: STALL_SLOT with TC equals, TH 4 increments by four on a
// cycle with exactly four empty slots.
TEST_F(Threshold, ExampleD13_4_EqualsCountsVbOnCyclesWhereItEqualsTh)
{
    init();
    program(0, 0, 0x003F /* STALL_SLOT */, tc(kEq) | th(4));
    ASSERT_EQ(pmvp_core_report(&core, 0, 0x003F, 4, 500 * kPs), PMVP_OK);   // cycle 1: 4
    ASSERT_EQ(pmvp_core_report(&core, 0, 0x003F, 3, 1500 * kPs), PMVP_OK);  // cycle 2: 3
    ASSERT_EQ(pmvp_core_report(&core, 0, 0x003F, 2, 2200 * kPs), PMVP_OK);  // cycle 3: 2 + 2
    ASSERT_EQ(pmvp_core_report(&core, 0, 0x003F, 2, 2700 * kPs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kUs), 8u);
}

// An occurrence event is 0 on the cycles without a report, so less-than 1
// counts the cycles on which nothing retired: 1000 cycles in 1 us less 3.
TEST_F(Threshold, LessThanCountsTheCyclesWithoutAnOccurrence)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kLtCount) | th(1));
    retire(1, 10 * kNs);
    retire(4, 500 * kNs);
    retire(1, 999500 * kPs);
    EXPECT_EQ(counter(0, 0, 1 * kUs), 997u);
}

// A level event's V_B is its level on every cycle: the count of a stretch
// is a product. INST_FETCH_PERCYC at 3 for 1 us with GE 2 counts V_B: 3000;
// at 1 for the next microsecond nothing; not-equal 1, count: the other cycles.
TEST_F(Threshold, LevelInputsCountTheirStretchesAsProducts)
{
    init();
    program(0, 0, 0x8120, tc(kGe) | th(2));
    program(0, 1, 0x8120, tc(kNe | 1) | th(1));
    level(0x8120, 3, 0);
    level(0x8120, 1, 1 * kUs);
    EXPECT_EQ(counter(0, 0, 2 * kUs), 3000u);
    EXPECT_EQ(counter(0, 1, 2 * kUs), 1000u);
}

// Example D13-6: edge counting of a single-bit event with TH 0. The
// condition is STALL_BACKEND != 0: on at 100 ns, off at 200 ns, on at 300 ns.
TEST_F(Threshold, ExampleD13_6_EdgesOfALevelEvent)
{
    init();
    program(0, 0, PMVP_EV_STALL_BACKEND, kTe | tc(kRising));
    program(0, 1, PMVP_EV_STALL_BACKEND, kTe | tc(kFalling));
    program(0, 2, PMVP_EV_STALL_BACKEND, kTe | tc(kBoth));
    level(PMVP_EV_STALL_BACKEND, 1, 100 * kNs);
    level(PMVP_EV_STALL_BACKEND, 0, 200 * kNs);
    level(PMVP_EV_STALL_BACKEND, 1, 300 * kNs);
    EXPECT_EQ(counter(0, 0, 1 * kUs), 2u);
    // TC 0b011 counts a change of C_T (here STALL_BACKEND == 0) to true.
    // C_T is 0 before the first cycle (C_P of a cycle on which counting was
    // not allowed), so the first cycle, equal, counts: 1 + the fall at 200 ns.
    EXPECT_EQ(counter(0, 1, 1 * kUs), 2u);
    EXPECT_EQ(counter(0, 2, 1 * kUs), 4u);
}

// The edges of reports: cycles 5, 6 and 10 retire instructions, so the
// condition INST_RETIRED != 0 rises twice.
TEST_F(Threshold, EdgesOfReports)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, kTe | tc(kRising));
    retire(1, 4500 * kPs);
    retire(2, 5500 * kPs);
    retire(1, 9100 * kPs);
    EXPECT_EQ(counter(0, 0, 1 * kUs), 2u);
}

// C_P is 0 after a cycle on which counting was not allowed: disabling the
// counter for a while makes the condition rise again when it is enabled.
TEST_F(Threshold, RisingEdgeAfterCountingWasNotAllowed)
{
    init();
    program(0, 0, PMVP_EV_STALL_BACKEND, kTe | tc(kRising));
    level(PMVP_EV_STALL_BACKEND, 1, 100 * kNs);
    write(0, PMVP_PMCNTENCLR_EL0, 1, 200 * kNs);
    write(0, PMVP_PMCNTENSET_EL0, 1, 300 * kNs);
    EXPECT_EQ(counter(0, 0, 1 * kUs), 2u);
}

// FEAT_PMUv3_TH2, Example D13-7 (1a): counter 1 counts V[0], the
// instructions retired, on the cycles on which STALL_BACKEND != 0 (TLC 0b10,
// not-equal 0): the instructions retired while stalled.
TEST_F(Threshold, ExampleD13_7_LinkingCountsTheLowerCountersValue)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    program(0, 1, PMVP_EV_STALL_BACKEND, tc(kNe) | tlc(0b10));
    level(PMVP_EV_STALL_BACKEND, 1, 0);
    retire(3, 500 * kNs);
    level(PMVP_EV_STALL_BACKEND, 0, 1 * kUs);
    retire(5, 1500 * kNs);
    EXPECT_EQ(counter(0, 0, 2 * kUs), 8u);
    EXPECT_EQ(counter(0, 1, 2 * kUs), 3u);
    // TLC 0b01: where the condition fails, V[n-1]. STALL_BACKEND == 1 on a
    // cycle counts 1 (equals, count), else the instructions of the cycle.
    write(0, PMVP_PMEVTYPER_EL0, PMVP_EV_STALL_BACKEND | tc(kEqCount) | th(1) | tlc(0b01), 2 * kUs, 1);
    write(0, PMVP_PMEVCNTR_EL0, 0, 2 * kUs, 1);
    level(PMVP_EV_STALL_BACKEND, 1, 2 * kUs);
    level(PMVP_EV_STALL_BACKEND, 0, 3 * kUs);
    retire(7, 3500 * kNs);
    EXPECT_EQ(counter(0, 1, 4 * kUs), 1000u + 7u);
}

// With FGMT a thread's CPU_CYCLES is 1 on its slot's cycles and 0 on the
// others: less-than 1 counts the other thread's half; the edges of C_T
// (CPU_CYCLES == 1) happen on every cycle.
TEST_F(Threshold, D14_4_1_BarrelSlotsAlternateVb)
{
    cfg.num_pes = 2;
    cfg.mt_policy = PMVP_MT_FGMT;
    init();
    program(0, 0, PMVP_EV_CPU_CYCLES, tc(kLtCount) | th(1));
    program(0, 1, PMVP_EV_CPU_CYCLES, kTe | tc(kBoth) | th(1));
    EXPECT_EQ(counter(0, 0, 1 * kUs), 500u);
    EXPECT_EQ(counter(0, 1, 1 * kUs), 1000u);
}

// The next overflow is predicted through the threshold function: 100 idle
// cycles from overflow, and one more after a cycle that retires.
TEST_F(Threshold, TheNextOverflowFollowsTheThresholdFunction)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kLtCount) | th(1));
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFu - 99, 0);
    EXPECT_EQ(next_event(0), 100 * kNs);
    retire(1, 500 * kPs);
    EXPECT_EQ(next_event(500 * kPs), 101 * kNs);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 101 * kNs - 1) & 1, 0u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 101 * kNs) & 1, 1u);
    EXPECT_EQ(counter(0, 0, 101 * kNs), UINT64_C(1) << 32);  // 64 bits wide, overflow at bit 31
}

// A checkpoint in the middle of a cycle keeps the occurrences reported in it.
TEST_F(Threshold, ACheckpointKeepsTheCycleInProgress)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(2));
    retire(1, 200 * kPs);
    save_and_restore();
    retire(1, 700 * kPs);
    EXPECT_EQ(counter(0, 0, 2 * kNs), 1u);
}

// pmvp's choice: a write of PMEVTYPER<n> starts its threshold function
// afresh; the occurrences reported earlier in the cycle are not part of V_B.
TEST_F(Threshold, AWriteOfTheTypeStartsAfresh)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kGeCount) | th(2));
    retire(1, 200 * kPs);
    write(0, PMVP_PMEVTYPER_EL0, PMVP_EV_INST_RETIRED | tc(kGeCount) | th(2), 500 * kPs, 0);
    retire(1, 700 * kPs);
    EXPECT_EQ(counter(0, 0, 2 * kNs), 0u);
}

// The threshold function does not apply to BUS_CYCLES (pmvp does not model
// its V_B on a processor cycle, docs/SEMANTICS.md): counted as without it.
TEST_F(Threshold, EventsOfAnotherClockCountWithoutIt)
{
    cfg.bus_hz = 250000000;
    init();
    program(0, 0, PMVP_EV_BUS_CYCLES, tc(kLtCount) | th(1));
    EXPECT_EQ(counter(0, 0, 1 * kUs), 250u);
}

// D24.5.12 (evtCount): of an event the PMU does not support no events are
// counted, so not the cycles on which its V_B, 0, is less than 1 either.
TEST_F(Threshold, AnUnsupportedEventCountsNothing)
{
    static const uint16_t events[] = { PMVP_EV_CPU_CYCLES };
    cfg.events = events;
    cfg.num_events = 1;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, tc(kLtCount) | th(1));
    program(0, 1, PMVP_EV_CPU_CYCLES, tc(kGeCount) | th(1));
    EXPECT_EQ(counter(0, 0, 1 * kUs), 0u);
    EXPECT_EQ(counter(0, 1, 1 * kUs), 1000u);
}

// D24.5.12: TH is THWIDTH bits wide, TE needs EDGE, TLC needs TH2 and an
// odd counter; without FEAT_PMUv3_TH the fields are RES0.
TEST_F(Threshold, D24_5_12_WritableFieldsFollowPmmir)
{
    uint64_t all = tc(7) | kTe | tlc(3) | th(0xFFF);
    cfg.pmmir = PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, 4) | PMVP_FIELD_PREP(PMVP_PMMIR_EL1_EDGE, 2);
    init();
    write(0, PMVP_PMEVTYPER_EL0, all, 0, 0);
    write(0, PMVP_PMEVTYPER_EL0, all, 0, 1);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0, 0), tc(7) | kTe | th(0xF));
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0, 1), tc(7) | kTe | tlc(3) | th(0xF));
    cfg.pmmir = PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, 12);
    init();
    write(0, PMVP_PMEVTYPER_EL0, all, 0, 1);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0, 1), tc(7) | th(0xFFF));
    cfg.pmmir = 0;
    init();
    write(0, PMVP_PMEVTYPER_EL0, all, 0, 1);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0, 1), 0u);
    EXPECT_EQ(read(0, PMVP_PMMIR_EL1, 0), 0u);
}

// I5.2 note d: with FEAT_PMUv3_TH the EXT32 frame has the top halves at
// 0xA00 + 4n (and PMCCFILTR's at 0xA7C).
TEST_F(Threshold, I5_2_TheTopHalvesAt0xA00)
{
    init();
    pmvp_ext_access a{ PMVP_SECURE, false };
    uint64_t type = PMVP_EV_INST_RETIRED | tc(kGeCount) | th(2);
    // The top half first: a write of the bottom half keeps it.
    ASSERT_EQ(pmvp_ext_write(&core, 0, PMVP_FRAME_PMU, 0xA04, 4, type >> 32, &a, 0, nullptr), PMVP_OK);
    ASSERT_EQ(pmvp_ext_write(&core, 0, PMVP_FRAME_PMU, 0x404, 4, type & 0xFFFFFFFF, &a, 0, nullptr), PMVP_OK);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0, 1), type);
    uint64_t v = 0;
    ASSERT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0xA04, 4, &a, 0, &v, nullptr), PMVP_OK);
    EXPECT_EQ(v, type >> 32);
    ASSERT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0xA7C, 4, &a, 0, &v, nullptr), PMVP_OK);
    EXPECT_EQ(v, 0u);
    // Without it (nor FEAT_PMUv3p8) the space is IMPLEMENTATION DEFINED:
    // pmvp's is RAZ/WI.
    cfg.pmmir = 0;
    init();
    pmvp_ext_effect effect = PMVP_EXT_DONE;
    ASSERT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0xA04, 4, &a, 0, &v, &effect), PMVP_OK);
    EXPECT_EQ(effect, PMVP_EXT_RAZ_WI);
}

// D24.5.19: the configuration's PMMIR is refused with its reason where no
// PMU could show it.
TEST_F(Threshold, D24_5_19_PmmirThresholdFieldsAreChecked)
{
    struct Case {
        uint64_t pmmir;
        bool p7;
        const char *why;
    };
    for (const Case &k : std::initializer_list<Case>{
             { PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, 13), true, "THWIDTH above 0b1100 is reserved" },
             { PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, 4) | PMVP_FIELD_PREP(PMVP_PMMIR_EL1_EDGE, 3), true,
               "EDGE above 0b0010 is reserved" },
             { PMVP_FIELD_PREP(PMVP_PMMIR_EL1_EDGE, 1), true, "EDGE nonzero (FEAT_PMUv3_EDGE) needs FEAT_PMUv3_TH" },
             { PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, 4), false, "needs feat_pmuv3p7" } }) {
        cfg.pmmir = k.pmmir;
        cfg.feat_pmuv3p7 = k.p7;
        const char *why = nullptr;
        EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_ERR_CONFIG);
        ASSERT_NE(why, nullptr);
        EXPECT_NE(std::string(why).find(k.why), std::string::npos) << why;
    }
    cfg.pmu_version = PMVP_PMUV3P4;
    cfg.pmmir = PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, 4) | PMVP_FIELD_PREP(PMVP_PMMIR_EL1_EDGE, 1) | 0x12;
    pmvp_core_config_limit_to_version(&cfg);
    EXPECT_EQ(cfg.pmmir, 0x12u);
}

}  // namespace
}  // namespace pmvp::test
