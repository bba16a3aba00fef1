// SPDX-License-Identifier: Apache-2.0
// Multithreaded counting: PMEVTYPER.MT, SMT, FGMT, SoEMT (D13.6, D14.4.1).
#include <cstring>

#include "fixture.h"

namespace pmvp::test {
namespace {

using Multithreading = Kernel;

TEST_F(Multithreading, D14_4_1_SmtThreadInWfiIsNotActive)
{
    cfg.num_pes = 2;
    init();
    for (unsigned pe = 0; pe < 2; pe++) {
        enable_cycle_counter(pe);
        program(pe, 0, PMVP_EV_CPU_CYCLES);
        program(pe, 1, PMVP_EV_CPU_CYCLES, PMVP_PMEVTYPER_EL0_MT);
    }
    state(1, PMVP_PE_WFI, 1 * kUs);
    EXPECT_EQ(counter(1, 0, 4 * kUs), 1000u);  // MT=0: only while PE 1 runs
    EXPECT_EQ(counter(1, 1, 4 * kUs), 4000u);  // MT=1: PE 0 is not in WFI
    EXPECT_EQ(counter(0, 0, 4 * kUs), 4000u);
    EXPECT_EQ(cycles(1, 4 * kUs), 4000u);  // PMCCNTR counts every processor cycle
}

TEST_F(Multithreading, D14_4_1_AllThreadsInWfxStopEvenMt1)
{
    cfg.num_pes = 2;
    cfg.clock_stops_in_wfx = false;  // the clock runs, yet MT=1 must not count
    init();
    program(0, 1, PMVP_EV_CPU_CYCLES, PMVP_PMEVTYPER_EL0_MT);
    state(0, PMVP_PE_WFI, 1 * kUs);
    state(1, PMVP_PE_WFE, 1 * kUs);
    EXPECT_EQ(counter(0, 1, 4 * kUs), 1000u);
}

class Barrel : public Kernel, public ::testing::WithParamInterface<unsigned> {};

TEST_P(Barrel, D14_4_1_FgmtCpuCyclesMt0CountsEveryTthCycle)
{
    const unsigned t = GetParam();
    cfg.num_pes = t;
    cfg.mt_policy = PMVP_MT_FGMT;
    init();
    for (unsigned pe = 0; pe < t; pe++) {
        program(pe, 0, PMVP_EV_CPU_CYCLES);
        program(pe, 1, PMVP_EV_CPU_CYCLES, PMVP_PMEVTYPER_EL0_MT);
        enable_cycle_counter(pe);
    }
    // 1000 processor cycles: thread p owns cycles p+1, p+1+T, ...
    for (unsigned pe = 0; pe < t; pe++) {
        EXPECT_EQ(counter(pe, 0, 1000 * kNs), 1000u / t) << "thread " << pe;
        EXPECT_EQ(counter(pe, 1, 1000 * kNs), 1000u);
        EXPECT_EQ(cycles(pe, 1000 * kNs), 1000u);
    }
    // The barrel position carries across calls: cycles 1001..1003 go to
    // threads 0, 1, 2 (mod T), so thread 0 gets 2 of them with T = 2, 1 with T = 4.
    EXPECT_EQ(counter(0, 0, 1003 * kNs), 1000u / t + (t == 2 ? 2u : 1u));
}

INSTANTIATE_TEST_SUITE_P(TwoAndFourThreads, Barrel, ::testing::Values(2u, 4u));

TEST_F(Multithreading, D14_4_1_FgmtOverflowOfABarrelThreadIsPredicted)
{
    cfg.num_pes = 4;
    cfg.mt_policy = PMVP_MT_FGMT;
    init();
    program(2, 0, PMVP_EV_CPU_CYCLES);
    write(2, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFull - 9, 0, 0);
    // Thread 2 owns cycles 3, 7, 11, ...; its 10th is cycle 39.
    EXPECT_EQ(next_event(0), 39 * kNs);
}

TEST_F(Multithreading, D14_4_1_SoemtCountsOnlyTheActiveThread)
{
    cfg.num_pes = 2;
    cfg.mt_policy = PMVP_MT_SOEMT;
    init();
    for (unsigned pe = 0; pe < 2; pe++)
        program(pe, 0, PMVP_EV_CPU_CYCLES);
    ASSERT_EQ(pmvp_core_set_active_thread(&core, 1, 300 * kNs), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_active_thread(&core, 0, 700 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1000 * kNs), 600u);
    EXPECT_EQ(counter(1, 0, 1000 * kNs), 400u);
}

TEST_F(Multithreading, D13_6_Mt1SumsOccurrencesOverThePes)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT);
    program(0, 1, PMVP_EV_INST_RETIRED);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 40, 1 * kNs), PMVP_OK);
    ASSERT_EQ(pmvp_core_report(&core, 1, PMVP_EV_INST_RETIRED, 2, 1 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kNs), 42u);
    EXPECT_EQ(counter(0, 1, 1 * kNs), 40u);
}

TEST_F(Multithreading, D13_6_Mt1IsZeroWhenMtpmeIsZero)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6), 0, 0);  // MDCR_EL3.MTPME = 0
    ASSERT_EQ(pmvp_core_report(&core, 1, PMVP_EV_INST_RETIRED, 2, 1 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kNs), 0u);
}

TEST_F(Multithreading, D13_6_MtpmuDisabledCoreWideWhenConfigured)
{
    cfg.num_pes = 2;
    cfg.mtpmu_disable_core_wide = true;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT);
    controls(1, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6), 0, 0);  // PE 1 disables FEAT_MTPMU
    ASSERT_EQ(pmvp_core_report(&core, 1, PMVP_EV_INST_RETIRED, 2, 1 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kNs), 0u);
}

TEST_F(Multithreading, D13_6_ExampleD13_1_NoSecureEventsFromOtherPe)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT);
    program(0, 1, PMVP_EV_CPU_CYCLES, PMVP_PMEVTYPER_EL0_MT);
    context(1, 1, PMVP_SECURE, 0);
    controls(1, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6), PMVP_MDCR_EL3_SPME | PMVP_MDCR_EL3_MTPME,
             0);  // SPME on PE B only
    state(0, PMVP_PE_WFI, 0);
    ASSERT_EQ(pmvp_core_report(&core, 1, PMVP_EV_INST_RETIRED, 2, 1 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kUs), 0u);
    // Only PE 1 runs, in Secure state: its cycles are not counted by PE 0 either.
    EXPECT_EQ(counter(0, 1, 1 * kUs), 0u);
}

TEST_F(Multithreading, D13_7_1_Mt1FiltersByTheSourceThreadsContext)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT | PMVP_PMEVTYPER_EL0_U);  // not EL0
    context(1, 0, PMVP_NONSECURE, 0);
    ASSERT_EQ(pmvp_core_report(&core, 1, PMVP_EV_INST_RETIRED, 5, 1 * kNs), PMVP_OK);  // PE 1 at EL0
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 7, 1 * kNs), PMVP_OK);  // PE 0 at EL1
    EXPECT_EQ(counter(0, 0, 1 * kNs), 7u);
}

// Told one change at a time (pmvp_core_set_level) or each instant's changes
// at once (pmvp_core_set_levels): the same counts.
class Mt1Stall : public Kernel, public ::testing::WithParamInterface<bool> {
protected:
    void tell(pmvp_time t, std::initializer_list<pmvp_level_change> changes)
    {
        if (GetParam()) {
            ASSERT_EQ(pmvp_core_set_levels(&core, changes.begin(), (unsigned)changes.size(), t), PMVP_OK);
            return;
        }
        for (const pmvp_level_change &c : changes)
            ASSERT_EQ(pmvp_core_set_level(&core, c.pe, c.event, c.level, t), PMVP_OK);
    }
};

TEST_P(Mt1Stall, D14_4_1_Mt1StallNeedsTheStallOnAllPes)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_STALL_BACKEND, PMVP_PMEVTYPER_EL0_MT);
    program(0, 1, PMVP_EV_STALL_BACKEND);
    program(0, 2, PMVP_EV_STALL_BACKEND_MEM, PMVP_PMEVTYPER_EL0_MT);
    // 0-1 us: only PE 0 stalls. 1-2 us: both. PE 1 also has the second
    // condition of STALL_BACKEND_MEM from 1.5 us. At 2 us all three end.
    tell(0, { { 0, PMVP_EV_STALL_BACKEND, 1 } });
    tell(1 * kUs, { { 1, PMVP_EV_STALL_BACKEND, 1 } });
    tell(1500 * kNs, { { 1, PMVP_EV_STALL_BACKEND_MEM, 1 } });
    tell(2 * kUs,
         { { 1, PMVP_EV_STALL_BACKEND_MEM, 0 }, { 0, PMVP_EV_STALL_BACKEND, 0 }, { 1, PMVP_EV_STALL_BACKEND, 0 } });
    EXPECT_EQ(counter(0, 0, 3 * kUs), 1000u);
    EXPECT_EQ(counter(0, 1, 3 * kUs), 2000u);
    EXPECT_EQ(counter(0, 2, 3 * kUs), 500u);
}
INSTANTIATE_TEST_SUITE_P(OneByOneAndAtOnce, Mt1Stall, ::testing::Bool());

// What one change of pmvp_core_set_levels would refuse refuses them all,
// and the core is as it was, byte for byte.
TEST_F(Multithreading, LevelChangesToldAtOnceAreRefusedWhole)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_STALL_BACKEND);
    ASSERT_EQ(pmvp_core_set_level(&core, 0, PMVP_EV_STALL_BACKEND, 1, 1 * kUs), PMVP_OK);
    const pmvp_core before = core;
    const pmvp_level_change no_pe[] = { { 0, PMVP_EV_STALL_BACKEND, 0 }, { 2, PMVP_EV_STALL_BACKEND, 1 } };
    const pmvp_level_change no_level[] = { { 0, PMVP_EV_STALL_BACKEND, 0 }, { 1, PMVP_EV_INST_RETIRED, 1 } };
    const pmvp_level_change good[] = { { 0, PMVP_EV_STALL_BACKEND, 0 } };
    EXPECT_EQ(pmvp_core_set_levels(&core, no_pe, 2, 2 * kUs), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_core_set_levels(&core, no_level, 2, 2 * kUs), PMVP_ERR_EVENT);
    EXPECT_EQ(pmvp_core_set_levels(&core, good, 1, 500 * kNs), PMVP_ERR_PAST);
    // From the past with a later change naming a bad event: the first
    // change's refusal, as pmvp_core_set_level gives it, not the second's.
    EXPECT_EQ(pmvp_core_set_level(&core, 0, PMVP_EV_STALL_BACKEND, 0, 500 * kNs), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_core_set_levels(&core, no_level, 2, 500 * kNs), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_core_set_levels(&core, good, 0, 2 * kUs), PMVP_ERR_VALUE);
    EXPECT_EQ(pmvp_core_set_levels(&core, nullptr, 1, 2 * kUs), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_set_levels(nullptr, good, 1, 2 * kUs), PMVP_ERR_NULL);
    EXPECT_EQ(std::memcmp(&before, &core, sizeof core), 0);
    EXPECT_EQ(counter(0, 0, 3 * kUs), 2000u);  // the stall from 1 us, never ended
}

TEST_F(Multithreading, D14_4_1_Mt1ConditionCountsWhenAnyPeHoldsIt)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, 0x8380, PMVP_PMEVTYPER_EL0_MT);  // ZA_ACTIVE
    program(0, 1, 0x8380);
    ASSERT_EQ(pmvp_core_set_level(&core, 1, 0x8380, 1, 1 * kUs), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_level(&core, 0, 0x8380, 1, 2 * kUs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 3 * kUs), 2000u);
    EXPECT_EQ(counter(0, 1, 3 * kUs), 1000u);
}

TEST_F(Multithreading, D13_6_Mt1PerCycleEventSumsTheLevels)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, 0x8320, PMVP_PMEVTYPER_EL0_MT);
    ASSERT_EQ(pmvp_core_set_level(&core, 0, 0x8320, 2, 0), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_level(&core, 1, 0x8320, 3, 0), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 1 * kUs), 5000u);
}

TEST_F(Multithreading, FeatMtpmuAbsentMakesMtRes0)
{
    cfg.num_pes = 2;
    cfg.feat_mtpmu = false;
    init();
    write(0, PMVP_PMEVTYPER_EL0, PMVP_EV_INST_RETIRED | PMVP_PMEVTYPER_EL0_MT, 0, 0);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0, 0), (uint64_t)PMVP_EV_INST_RETIRED);
}

}  // namespace
}  // namespace pmvp::test
