// SPDX-License-Identifier: Apache-2.0
// FEAT_SEBEP (D13.3.3, D14.7): PMEVTYPER<n>.SYNC, the synchronous events, and
// the overflows an instruction observes as it retires (RNZLVW), with the
// overshoot reflected in the count.
#include <string>
#include <vector>

#include "fixture.h"

namespace pmvp::test {
namespace {

constexpr uint16_t kBrRetired = 0x0021;

class Sebep : public Kernel {
protected:
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.feat_ebep = true;
        cfg.feat_sebep = true;
    }
    // RXLMVX: BR_RETIRED the only synchronous event.
    void only_branches_synchronous()
    {
        static const uint16_t only_branches[] = { kBrRetired };
        cfg.sync_events = only_branches;
        cfg.num_sync_events = 1;
    }
    // Counter n counts `event` in synchronous mode with its interrupt enabled,
    // `before` increments short of overflowing at 2^32 (PMCR.LP == 0; the
    // 64-bit counter of FEAT_PMUv3p5 carries into bit 32, RQZJKS).
    void arm(unsigned n, uint16_t event, uint64_t before, uint64_t sync_bit = PMVP_PMEVTYPER_EL0_SYNC)
    {
        program(0, n, event, sync_bit);
        write(0, PMVP_PMINTENSET_EL1, 1u << n, 0);
        write(0, PMVP_PMEVCNTR_EL0, 0x100000000ull - before, 0, n);
    }
    pmvp_retire_result retire_at(uint64_t pc, uint16_t event, uint64_t count, pmvp_time t)
    {
        pmvp_retire_result r{ 0xDEAD, true };
        EXPECT_EQ(pmvp_core_retire(&core, 0, event, count, pc, t, &r), PMVP_OK);
        return r;
    }
    // The counters whose overflow the instruction observes.
    uint64_t retire(uint16_t event, uint64_t count, pmvp_time t = 0)
    {
        return retire_at(0x1000, event, count, t).overflows;
    }
};

TEST_F(Sebep, SyncBitIsImplementedOnlyWithTheFeature)
{
    init();
    write(0, PMVP_PMEVTYPER_EL0, PMVP_PMEVTYPER_EL0_SYNC | PMVP_EV_INST_RETIRED, 0);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0), PMVP_PMEVTYPER_EL0_SYNC | PMVP_EV_INST_RETIRED);
    cfg.feat_sebep = false;
    init();
    write(0, PMVP_PMEVTYPER_EL0, PMVP_PMEVTYPER_EL0_SYNC | PMVP_EV_INST_RETIRED, 0);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0), uint64_t{ PMVP_EV_INST_RETIRED });  // RES0
    // PMCCFILTR_EL0 has no SYNC (RFCXWT: the cycle counter has no synchronous mode).
    write(0, PMVP_PMCCFILTR_EL0, PMVP_PMEVTYPER_EL0_SYNC, 0);
    EXPECT_EQ(read(0, PMVP_PMCCFILTR_EL0, 0), 0u);
}

TEST_F(Sebep, RNZLVW_TheInstructionThatOverflowsTheCounterObservesIt)
{
    init();
    arm(2, PMVP_EV_INST_RETIRED, 3);
    EXPECT_EQ(retire(PMVP_EV_INST_RETIRED, 1), 0u);
    EXPECT_EQ(retire(PMVP_EV_INST_RETIRED, 1), 0u);
    EXPECT_EQ(retire(PMVP_EV_INST_RETIRED, 1), 1u << 2);  // the third overflows it
    EXPECT_EQ(counter(0, 2, 0), 0x100000000u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 0), 1u << 2);
}

TEST_F(Sebep, OvershootIsReflectedInTheCount)
{
    init();
    arm(0, kBrRetired, 2);
    // One instruction adds 5: the counter overshoots zero by 3.
    EXPECT_EQ(retire(kBrRetired, 5), 1u);
    EXPECT_EQ(counter(0, 0, 0), 0x100000003u);
    // While PMOVSSET.P0 stays 1, every later instruction generating the event
    // observes it (the PMU exception may have been masked), overshooting further.
    EXPECT_EQ(retire(kBrRetired, 1, 10 * kNs), 1u);
    EXPECT_EQ(counter(0, 0, 10 * kNs), 0x100000004u);
    write(0, PMVP_PMOVSCLR_EL0, 1, 20 * kNs);
    EXPECT_EQ(retire(kBrRetired, 1, 20 * kNs), 0u);
    EXPECT_EQ(counter(0, 0, 20 * kNs), 0x100000005u);
}

TEST_F(Sebep, OnlyCountersInSynchronousModeWithTheirInterruptEnabled)
{
    init();
    arm(0, PMVP_EV_INST_RETIRED, 1);     // synchronous
    arm(1, PMVP_EV_INST_RETIRED, 1, 0);  // SYNC == 0: asynchronous (INPRDL)
    arm(3, PMVP_EV_INST_RETIRED, 1);
    write(0, PMVP_PMINTENCLR_EL1, 1u << 3, 0);  // PMINTENSET.P3 == 0
    arm(4, PMVP_EV_INST_RETIRED, 1);
    write(0, PMVP_PMCNTENCLR_EL0, 1u << 4, 0);  // disabled: does not count the event
    EXPECT_EQ(retire(PMVP_EV_INST_RETIRED, 1), 1u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 0), 0xBu);  // 0, 1 and 3 overflowed
}

TEST_F(Sebep, RSSVKV_AnEventThatIsNotSynchronousIsNeverInSynchronousMode)
{
    init();
    arm(0, PMVP_EV_INST_RETIRED, 1);
    arm(1, 0x0003 /* L1D_CACHE_REFILL: not a D14.7 event */, 1);
    EXPECT_EQ(retire(0x0003, 1), 0u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 0), 2u);  // it overflowed all the same
    // pmvp_core_report is the same count without the observation.
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 1, 0), PMVP_OK);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 0), 3u);
}

TEST_F(Sebep, RXLMVX_TheSynchronousEventsAreConfigurable)
{
    only_branches_synchronous();
    init();
    arm(0, PMVP_EV_INST_RETIRED, 1);
    arm(1, kBrRetired, 1);
    EXPECT_EQ(retire(PMVP_EV_INST_RETIRED, 1), 0u);
    EXPECT_EQ(retire(kBrRetired, 1), 2u);
}

TEST_F(Sebep, ImpossibleSynchronousEventsAreConfigurationErrors)
{
    for (uint16_t ev : { uint16_t{ PMVP_EV_CPU_CYCLES },  // not counted at retirement
                         uint16_t{ 0x0003 },              // not a D14.7 event
                         uint16_t{ PMVP_EV_SW_INCR },     // generated by PMSWINC, not reported
                         uint16_t{ 0x1234 } }) {          // not a catalogue event
        cfg.sync_events = &ev;
        cfg.num_sync_events = 1;
        EXPECT_EQ(pmvp_core_init(&core, &cfg), PMVP_ERR_CONFIG) << ev;
    }
    const uint16_t supported[] = { PMVP_EV_CPU_CYCLES };
    const uint16_t sync[] = { PMVP_EV_INST_RETIRED };  // not among the supported events
    cfg.events = supported;
    cfg.num_events = 1;
    cfg.sync_events = sync;
    EXPECT_EQ(pmvp_core_init(&core, &cfg), PMVP_ERR_CONFIG);
}

TEST_F(Sebep, WithoutTheFeatureNothingIsObserved)
{
    cfg.feat_sebep = false;
    cfg.feat_ebep = false;
    init();
    arm(0, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_EQ(retire(PMVP_EV_INST_RETIRED, 1), 0u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 0), 1u);
}

TEST_F(Sebep, RetireChecksItsArguments)
{
    init();
    EXPECT_EQ(pmvp_core_retire(&core, 0, PMVP_EV_INST_RETIRED, 1, 0, 0, nullptr), PMVP_ERR_NULL);
    pmvp_retire_result r{ 7, true };
    EXPECT_EQ(pmvp_core_retire(nullptr, 0, PMVP_EV_INST_RETIRED, 1, 0, 0, &r), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_retire(&core, 0, PMVP_EV_CPU_CYCLES, 1, 0, 0, &r), PMVP_ERR_EVENT);
    EXPECT_EQ(r.overflows, 0u);
    EXPECT_FALSE(r.ppend);
    EXPECT_EQ(pmvp_core_retire(&core, 9, PMVP_EV_INST_RETIRED, 1, 0, 0, &r), PMVP_ERR_PE);
    ASSERT_EQ(pmvp_core_retire(&core, 0, PMVP_EV_INST_RETIRED, 1, 0, 5, &r), PMVP_OK);
    EXPECT_EQ(pmvp_core_retire(&core, 0, PMVP_EV_INST_RETIRED, 1, 0, 4, &r), PMVP_ERR_PAST);
}

// ---------------------------------------------------------------- FEAT_EBEP

// Table D13-1, row by row: MDCR_EL3.PMEE, MDCR_EL2.PMEE, HCR_EL2.TGE,
// PMECR_EL1.PMEE, PMECR_EL1.KPME, PSTATE.PM (-1: any value) and the cell of
// each Exception level EL3, EL2, EL1, EL0 ("n/a": not a context).
struct D13_1Row {
    int el3_pmee, el2_pmee, tge, pmecr_pmee, kpme, pm;
    const char *cell[4];
};

const D13_1Row kTableD13_1[] = {
    { 0, -1, 0, -1, -1, -1, { "IRQ", "IRQ", "IRQ", "IRQ" } }, { 0, -1, 1, -1, -1, -1, { "IRQ", "IRQ", "n/a", "IRQ" } },
    { 1, 0, 0, -1, -1, -1, { "IRQ", "IRQ", "IRQ", "IRQ" } },  { 1, 0, 1, -1, -1, -1, { "IRQ", "IRQ", "n/a", "IRQ" } },
    { 1, 1, 0, 0, -1, -1, { "IRQ", "IRQ", "IRQ", "IRQ" } },   { 1, 1, 0, 2, -1, -1, { "Dis", "Dis", "Dis", "Dis" } },
    { 1, 1, 0, 3, 0, -1, { "Msk", "Msk", "Msk", "EL1" } },    { 1, 1, 0, 3, 1, 0, { "Msk", "Msk", "EL1", "EL1" } },
    { 1, 1, 0, 3, 1, 1, { "Msk", "Msk", "Msk", "EL1" } },     { 1, 1, 1, 0, -1, -1, { "IRQ", "IRQ", "n/a", "IRQ" } },
    { 1, 1, 1, 2, -1, -1, { "Dis", "Dis", "n/a", "Dis" } },   { 1, 1, 1, 3, -1, -1, { "Msk", "Msk", "n/a", "EL2" } },
    { 1, 2, 0, -1, -1, -1, { "Dis", "Dis", "Dis", "Dis" } },  { 1, 2, 1, -1, -1, -1, { "Dis", "Dis", "n/a", "Dis" } },
    { 1, 3, 0, -1, 0, -1, { "Msk", "Msk", "EL2", "EL2" } },   { 1, 3, 0, -1, 1, 0, { "Msk", "EL2", "EL2", "EL2" } },
    { 1, 3, 0, -1, 1, 1, { "Msk", "Msk", "EL2", "EL2" } },    { 1, 3, 1, -1, 0, -1, { "Msk", "Msk", "n/a", "EL2" } },
    { 1, 3, 1, -1, 1, 0, { "Msk", "EL2", "n/a", "EL2" } },    { 1, 3, 1, -1, 1, 1, { "Msk", "Msk", "n/a", "EL2" } },
    { 2, -1, 0, -1, -1, -1, { "Dis", "Dis", "Dis", "Dis" } }, { 2, -1, 1, -1, -1, -1, { "Dis", "Dis", "n/a", "Dis" } },
    { 3, -1, 0, -1, 0, -1, { "Msk", "EL3", "EL3", "EL3" } },  { 3, -1, 0, -1, 1, 0, { "EL3", "EL3", "EL3", "EL3" } },
    { 3, -1, 0, -1, 1, 1, { "Msk", "EL3", "EL3", "EL3" } },   { 3, -1, 1, -1, 0, -1, { "Msk", "EL3", "n/a", "EL3" } },
    { 3, -1, 1, -1, 1, 0, { "EL3", "EL3", "n/a", "EL3" } },   { 3, -1, 1, -1, 1, 1, { "Msk", "EL3", "n/a", "EL3" } },
};

std::string cell_of(const pmvp_pmu_exception &e)
{
    switch (e.state) {
    case PMVP_PMUEXC_IRQ: return "IRQ";
    case PMVP_PMUEXC_DISABLED: return "Dis";
    case PMVP_PMUEXC_MASKED: return "Msk";
    default: return "EL" + std::to_string(e.target_el);
    }
}

// The values an "any" column of the table takes.
std::vector<int> values_of(int v, int width)
{
    if (v >= 0)
        return { v };
    std::vector<int> all;
    for (int i = 0; i < (1 << width); i++)
        all.push_back(i);
    return all;
}

TEST_F(Sebep, TableD13_1_EveryCell)
{
    // The table has EL2 enabled in the current Security state, EL3's too
    // (Secure EL2, enabled by SCR_EL3.EEL2: pmvp's EL3 is in Secure state).
    cfg.feat_sel2 = true;
    init();
    int checked = 0;
    for (const D13_1Row &row : kTableD13_1)
        for (int el2_pmee : values_of(row.el2_pmee, 2))
            for (int pmecr_pmee : values_of(row.pmecr_pmee, 2))
                for (int kpme : values_of(row.kpme, 1))
                    for (int pm : values_of(row.pm, 1))
                        for (int el = 3; el >= 0; el--) {
                            std::string expected = row.cell[3 - el];
                            // The reserved PMECR_EL1.PMEE 0b01 is not a row of the table.
                            if (expected == "n/a" || (row.pmecr_pmee < 0 && pmecr_pmee == 1))
                                continue;
                            pmvp_pmu_controls ctl{};
                            ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, cfg.num_counters) |
                                           PMVP_FIELD_PREP(PMVP_MDCR_EL2_PMEE, (uint64_t)el2_pmee);
                            ctl.mdcr_el3 = PMVP_FIELD_PREP(PMVP_MDCR_EL3_PMEE, (uint64_t)row.el3_pmee);
                            ctl.hcr_el2 = row.tge ? PMVP_HCR_EL2_TGE : 0;
                            ctl.scr_el3 = PMVP_SCR_EL3_EEL2;
                            ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
                            write(0, PMVP_PMECR_EL1, (uint64_t)pmecr_pmee | (kpme ? PMVP_PMECR_EL1_KPME : 0), 0);
                            pmvp_context x{};
                            x.el = (uint8_t)el;
                            x.security = el == 3 ? PMVP_SECURE : PMVP_NONSECURE;
                            x.pm = pm;
                            ASSERT_EQ(pmvp_core_set_context(&core, 0, &x, 0), PMVP_OK);
                            pmvp_pmu_exception e{};
                            ASSERT_EQ(pmvp_core_pmu_exception(&core, 0, 0, &e), PMVP_OK);
                            EXPECT_EQ(cell_of(e), expected)
                                << "MDCR_EL3.PMEE=" << row.el3_pmee << " MDCR_EL2.PMEE=" << el2_pmee
                                << " TGE=" << row.tge << " PMECR.PMEE=" << pmecr_pmee << " KPME=" << kpme
                                << " PM=" << pm << " at EL" << el;
                            checked++;
                        }
    EXPECT_EQ(checked, 1344);  // the 28 rows with their X columns expanded, "n/a" cells left out
}

TEST_F(Sebep, PmecrAndPmiarExistOnlyWithTheirFeatures)
{
    init();
    write(0, PMVP_PMECR_EL1, ~uint64_t{ 0 }, 0);
    EXPECT_EQ(read(0, PMVP_PMECR_EL1, 0), PMVP_PMECR_EL1_KPME | PMVP_PMECR_EL1_PMEE);
    // PMIAR_EL1.ADDRESS: [1:0] RES0, [63:48] copies bit 47.
    write(0, PMVP_PMIAR_EL1, 0x0000812345678AB7ull, 0);
    EXPECT_EQ(read(0, PMVP_PMIAR_EL1, 0), 0xFFFF812345678AB4ull);
    write(0, PMVP_PMIAR_EL1, 0x1234412345678AB7ull, 0);
    EXPECT_EQ(read(0, PMVP_PMIAR_EL1, 0), 0x0000412345678AB4ull);
    cfg.feat_sebep = false;
    init();
    uint64_t v = 0;
    EXPECT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMIAR_EL1, 0, 0, &v), PMVP_ERR_REGISTER);
    cfg.feat_ebep = false;
    init();
    EXPECT_EQ(pmvp_pmu_write(&core, 0, PMVP_PMECR_EL1, 0, 3, 0), PMVP_ERR_REGISTER);
    // FEAT_SEBEP requires FEAT_EBEP.
    cfg.feat_sebep = true;
    EXPECT_EQ(pmvp_core_init(&core, &cfg), PMVP_ERR_CONFIG);
}

// The PE at EL0 with the PMU exception enabled at EL1 and unmasked.
class SebepProfiling : public Sebep {
protected:
    void init_profiling()
    {
        init();
        controls(0,
                 PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, cfg.num_counters) |
                     PMVP_FIELD_PREP(PMVP_MDCR_EL2_PMEE, PMVP_PMEE_LOWER),
                 PMVP_FIELD_PREP(PMVP_MDCR_EL3_PMEE, PMVP_PMEE_LOWER), 0);
        write(0, PMVP_PMECR_EL1, PMVP_PMECR_EL1_KPME | PMVP_PMEE_ENABLED, 0);
        context(0, 0, PMVP_NONSECURE, 0);
    }
    void pm(bool on, pmvp_time t)
    {
        pmvp_context x{};
        x.el = 1;
        x.pm = on;
        ASSERT_EQ(pmvp_core_set_context(&core, 0, &x, t), PMVP_OK);
    }
};

TEST_F(SebepProfiling, RNZLVW_PpendOnTheGeneratingInstructionWithItsAddressInPmiar)
{
    init_profiling();
    arm(1, PMVP_EV_INST_RETIRED, 2);
    pmvp_retire_result r = retire_at(0x8000, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_FALSE(r.ppend);
    r = retire_at(0x8004, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_TRUE(r.ppend);
    EXPECT_EQ(r.overflows, 2u);
    EXPECT_EQ(read(0, PMVP_PMIAR_EL1, 0), 0x8004u);
    EXPECT_EQ(counter(0, 1, 0), 0x100000000u);
    // Enabling the exception disabled PMUIRQ (Table D13-1), and a counter in
    // synchronous mode asks for no asynchronous exception (RKBPMJ).
    EXPECT_FALSE(irq(0, 0));
    pmvp_pmu_exception e{};
    ASSERT_EQ(pmvp_core_pmu_exception(&core, 0, 0, &e), PMVP_OK);
    EXPECT_EQ(e.state, PMVP_PMUEXC_UNMASKED);
    EXPECT_FALSE(e.async_pending);
}

TEST_F(SebepProfiling, MaskedExceptionLeavesPpendToALaterInstructionWithOvershoot)
{
    init_profiling();
    arm(0, PMVP_EV_INST_RETIRED, 1);
    pm(true, 0);  // at EL1, the target, with PSTATE.PM == 1: masked (RSCBDZ)
    pmvp_retire_result r = retire_at(0x100, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_EQ(r.overflows, 1u);
    EXPECT_FALSE(r.ppend);
    EXPECT_EQ(read(0, PMVP_PMIAR_EL1, 0), 0u);
    retire_at(0x104, PMVP_EV_INST_RETIRED, 1, 0);
    pm(false, 0);
    r = retire_at(0x108, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_TRUE(r.ppend);
    EXPECT_EQ(read(0, PMVP_PMIAR_EL1, 0), 0x108u);
    EXPECT_EQ(counter(0, 0, 0), 0x100000002u);  // overshoot 2: the masked stretch
}

TEST_F(SebepProfiling, RKBPMJ_AsynchronousCountersAskForTheExceptionNotPmuirq)
{
    init_profiling();
    arm(0, PMVP_EV_INST_RETIRED, 1, 0);  // SYNC == 0
    pmvp_retire_result r = retire_at(0x100, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_EQ(r.overflows, 0u);
    EXPECT_FALSE(r.ppend);
    pmvp_pmu_exception e{};
    ASSERT_EQ(pmvp_core_pmu_exception(&core, 0, 0, &e), PMVP_OK);
    EXPECT_TRUE(e.async_pending);
    EXPECT_FALSE(irq(0, 0));
    // With the exception disabled again, the same overflow raises PMUIRQ.
    write(0, PMVP_PMECR_EL1, PMVP_PMEE_IRQ, 0);
    ASSERT_EQ(pmvp_core_pmu_exception(&core, 0, 0, &e), PMVP_OK);
    EXPECT_FALSE(e.async_pending);
    EXPECT_TRUE(irq(0, 0));
}

// The instruction counter in synchronous mode (RSSVKV: PMICFILTR_EL0.SYNC
// alone decides, FEAT_PMUv3_ICNTR): F0, bit 32, observed by the instruction
// that overflows PMICNTR.
class SebepIcntr : public SebepProfiling {
protected:
    void SetUp() override
    {
        SebepProfiling::SetUp();
        cfg.feat_pmuv3_icntr = true;
        cfg.feat_pmuv3p7 = true;
    }
    // PMICNTR 'before' instructions short of 2^64, its interrupt enabled.
    void arm_icntr(uint64_t before, uint64_t pmicfiltr)
    {
        write(0, PMVP_PMICFILTR_EL0, pmicfiltr, 0);
        write(0, PMVP_PMICNTR_EL0, 0 - before, 0);
        write(0, PMVP_PMINTENSET_EL1, PMVP_PMU_F0, 0);
        write(0, PMVP_PMCNTENSET_EL0, PMVP_PMU_F0, 0);
        write(0, PMVP_PMCR_EL0, read(0, PMVP_PMCR_EL0, 0) | PMVP_PMCR_EL0_E, 0);
    }
};

TEST_F(SebepIcntr, RNZLVW_TheInstructionThatOverflowsPmicntrObservesF0)
{
    init_profiling();
    arm_icntr(2, PMVP_PMEVTYPER_EL0_SYNC);
    EXPECT_EQ(read(0, PMVP_PMICFILTR_EL0, 0), PMVP_PMEVTYPER_EL0_SYNC | PMVP_EV_INST_RETIRED);
    pmvp_retire_result r = retire_at(0x8000, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_EQ(r.overflows, 0u);
    EXPECT_FALSE(r.ppend);
    r = retire_at(0x8004, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_EQ(r.overflows, PMVP_PMU_F0);
    EXPECT_TRUE(r.ppend);
    EXPECT_EQ(read(0, PMVP_PMIAR_EL1, 0), 0x8004u);
    EXPECT_EQ(read(0, PMVP_PMICNTR_EL0, 0), 0u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 0), PMVP_PMU_F0);
    // RKBPMJ: in synchronous mode it asks for no asynchronous exception.
    pmvp_pmu_exception e{};
    ASSERT_EQ(pmvp_core_pmu_exception(&core, 0, 0, &e), PMVP_OK);
    EXPECT_FALSE(e.async_pending);
    // Another event's instruction does not observe it; the next INST_RETIRED does.
    EXPECT_EQ(retire(kBrRetired, 1), 0u);
    EXPECT_EQ(retire(PMVP_EV_INST_RETIRED, 1), PMVP_PMU_F0);
    EXPECT_EQ(read(0, PMVP_PMICNTR_EL0, 0), 1u);  // the overshoot
}

TEST_F(SebepIcntr, RSSVKV_SyncAloneDecidesEvenWhenInstRetiredIsNotASynchronousEvent)
{
    only_branches_synchronous();
    init_profiling();
    // Event counter 0 with SYNC and the same event, which is not synchronous
    // here: not in synchronous mode, so its overflow is not observed.
    arm(0, PMVP_EV_INST_RETIRED, 1);
    arm_icntr(1, PMVP_PMEVTYPER_EL0_SYNC);
    pmvp_retire_result r = retire_at(0x100, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_EQ(r.overflows, PMVP_PMU_F0);
    EXPECT_TRUE(r.ppend);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 0), PMVP_PMU_F0 | 1u);  // both overflowed
}

TEST_F(SebepIcntr, WithoutSyncF0AsksForTheAsynchronousException)
{
    init_profiling();
    arm_icntr(1, 0);
    pmvp_retire_result r = retire_at(0x100, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_EQ(r.overflows, 0u);
    EXPECT_FALSE(r.ppend);
    pmvp_pmu_exception e{};
    ASSERT_EQ(pmvp_core_pmu_exception(&core, 0, 0, &e), PMVP_OK);
    EXPECT_TRUE(e.async_pending);
}

TEST_F(SebepIcntr, D24_5_8_FzoIsNotFrozenByF0InSynchronousMode)
{
    init_profiling();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LP | PMVP_PMCR_EL0_FZO, 0);
    arm_icntr(1, PMVP_PMEVTYPER_EL0_SYNC);
    retire_at(0x100, PMVP_EV_INST_RETIRED, 1, 1 * kUs);  // F0 set at 1 us
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 2 * kUs), PMVP_PMU_F0);
    EXPECT_EQ(counter(0, 0, 2 * kUs), 2000u);  // not frozen
    retire_at(0x104, PMVP_EV_INST_RETIRED, 3, 2 * kUs);
    EXPECT_EQ(read(0, PMVP_PMICNTR_EL0, 2 * kUs), 3u);
    // SYNC == 0: the same flag freezes the first range and PMICNTR.
    write(0, PMVP_PMICFILTR_EL0, 0, 3 * kUs);
    EXPECT_EQ(counter(0, 0, 4 * kUs), 3000u);
    retire_at(0x108, PMVP_EV_INST_RETIRED, 3, 4 * kUs);
    EXPECT_EQ(read(0, PMVP_PMICNTR_EL0, 4 * kUs), 3u);
}

TEST_F(SebepIcntr, SyncIsRes0WithoutFeatSebep)
{
    cfg.feat_ebep = cfg.feat_sebep = false;
    init();
    write(0, PMVP_PMICFILTR_EL0, PMVP_PMEVTYPER_EL0_SYNC | PMVP_PMEVTYPER_EL0_U, 0);
    EXPECT_EQ(read(0, PMVP_PMICFILTR_EL0, 0), PMVP_PMEVTYPER_EL0_U | PMVP_EV_INST_RETIRED);
}

// ------------------------------------------------- shadow effect, threshold

// The instruction that observes an overflow when the shadow keeps it for
// `shadow` occurrences: the counter, 1 short of overflowing, is fed one
// INST_RETIRED per instruction until PPEND; returns the overshoot then.
uint64_t overshoot_at_ppend(pmvp_core &core, pmvp_time step, unsigned max_instructions)
{
    for (unsigned i = 0; i < max_instructions; i++) {
        pmvp_retire_result r{};
        EXPECT_EQ(pmvp_core_retire(&core, 0, PMVP_EV_INST_RETIRED, 1, 0x1000 + 4 * i, i * step, &r), PMVP_OK);
        if (r.ppend) {
            uint64_t v = 0;
            EXPECT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMEVCNTR_EL0, 0, i * step, &v), PMVP_OK);
            EXPECT_EQ(v >> 32, 1u);
            return v & UINT32_MAX;
        }
    }
    ADD_FAILURE() << "no PPEND in " << max_instructions << " instructions";
    return ~uint64_t{ 0 };
}

TEST_F(SebepProfiling, ShadowEffectDelaysObservationByExactlyTheBound)
{
    cfg.inaccuracy.shadow_events = 7;
    cfg.inaccuracy.draw = PMVP_DRAW_BOUND;
    init_profiling();
    arm(0, PMVP_EV_INST_RETIRED, 1);
    EXPECT_EQ(overshoot_at_ppend(core, kNs, 100), 7u);
}

TEST_F(SebepProfiling, ShadowEffectStaysWithinItsBoundOverSeeds)
{
    cfg.inaccuracy.shadow_events = 5;
    std::vector<int> seen(6, 0);
    for (uint64_t seed = 1; seed <= 300; seed++) {
        cfg.inaccuracy.seed = seed;
        init_profiling();
        arm(0, PMVP_EV_INST_RETIRED, 1);
        uint64_t o = overshoot_at_ppend(core, kNs, 100);
        ASSERT_LE(o, 5u) << "seed " << seed;
        seen[o]++;
    }
    // Seeded, not systematic: every delay from 0 to 5 occurs.
    for (unsigned o = 0; o <= 5; o++)
        EXPECT_GT(seen[o], 20) << "delay " << o;
}

TEST_F(SebepProfiling, ShadowEndsAtItsTimeLimit)
{
    cfg.inaccuracy.shadow_events = 1000;
    cfg.inaccuracy.shadow_time = 10 * kNs;
    cfg.inaccuracy.draw = PMVP_DRAW_BOUND;
    init_profiling();
    arm(0, PMVP_EV_INST_RETIRED, 1);
    // One instruction per 3 ns: the first at or after 10 ns past the
    // overflow (at 0) is the fourth one after it, at 12 ns.
    EXPECT_EQ(overshoot_at_ppend(core, 3 * kNs, 2000), 4u);
}

TEST_F(SebepProfiling, NoShadowAtOrAboveTheThresholdAtAContextSynchronization)
{
    const pmvp_sebep_threshold thresholds[] = { { PMVP_EV_INST_RETIRED, 16 } };
    cfg.sebep_thresholds = thresholds;
    cfg.num_sebep_thresholds = 1;
    cfg.inaccuracy.shadow_events = 7;
    cfg.inaccuracy.draw = PMVP_DRAW_BOUND;
    init_profiling();
    // 16 short of overflow at the context synchronization: at the threshold.
    arm(0, PMVP_EV_INST_RETIRED, 16);
    ASSERT_EQ(pmvp_core_context_sync(&core, 0, 0), PMVP_OK);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 15, 0), PMVP_OK);
    EXPECT_EQ(overshoot_at_ppend(core, kNs, 100), 0u);
    // 17 short: below the threshold, so the shadow applies.
    init_profiling();
    arm(0, PMVP_EV_INST_RETIRED, 17);
    ASSERT_EQ(pmvp_core_context_sync(&core, 0, 0), PMVP_OK);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 16, 0), PMVP_OK);
    EXPECT_EQ(overshoot_at_ppend(core, kNs, 100), 7u);
    // Another event has the default headroom, 1: only a value 1 short of
    // overflowing is at the threshold.
    init_profiling();
    arm(1, kBrRetired, 2);
    ASSERT_EQ(pmvp_core_context_sync(&core, 0, 0), PMVP_OK);
    pmvp_retire_result r{};
    for (int i = 0; i < 2; i++)
        ASSERT_EQ(pmvp_core_retire(&core, 0, kBrRetired, 1, 0, 0, &r), PMVP_OK);
    EXPECT_FALSE(r.ppend);  // in the shadow
}

// A counter overflows inside a shadow; the handler clears its flag and
// re-arms it 1 short; a context synchronization makes it precise (at the
// threshold); the very next instruction overflows it again and observes it
// (PPEND), with no overshoot: the old shadow ended when the flag was cleared.
TEST_F(SebepProfiling, ClearingTheFlagEndsTheShadowOfARearmedCounter)
{
    cfg.inaccuracy.shadow_events = 7;
    cfg.inaccuracy.draw = PMVP_DRAW_BOUND;
    init_profiling();
    arm(0, PMVP_EV_INST_RETIRED, 1);
    pmvp_retire_result r = retire_at(0x100, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_FALSE(r.ppend);  // the overflow is in its shadow of 7
    write(0, PMVP_PMOVSCLR_EL0, 0x1, 0);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFu, 0, 0);
    ASSERT_EQ(pmvp_core_context_sync(&core, 0, 0), PMVP_OK);
    r = retire_at(0x104, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_EQ(r.overflows, 1u);
    EXPECT_TRUE(r.ppend);
    EXPECT_EQ(read(0, PMVP_PMIAR_EL1, 0), 0x104u);
    EXPECT_EQ(counter(0, 0, 0), 0x100000000u);
}

// Clearing PMOVSSET during a shadow ends the shadow: a flag set later (by a
// write to PMOVSSET) is observed by the next instruction that counts.
TEST_F(SebepProfiling, ClearingTheFlagInAShadowLetsALaterFlagBeSeenAtOnce)
{
    cfg.inaccuracy.shadow_events = 7;
    cfg.inaccuracy.draw = PMVP_DRAW_BOUND;
    init_profiling();
    arm(0, PMVP_EV_INST_RETIRED, 1);
    EXPECT_FALSE(retire_at(0x100, PMVP_EV_INST_RETIRED, 1, 0).ppend);  // in the shadow
    EXPECT_FALSE(retire_at(0x104, PMVP_EV_INST_RETIRED, 1, 0).ppend);  // still
    write(0, PMVP_PMOVSCLR_EL0, 0x1, 0);
    write(0, PMVP_PMOVSSET_EL0, 0x1, 0);
    pmvp_retire_result r = retire_at(0x108, PMVP_EV_INST_RETIRED, 1, 0);
    EXPECT_EQ(r.overflows, 1u);
    EXPECT_TRUE(r.ppend);
    EXPECT_EQ(read(0, PMVP_PMIAR_EL1, 0), 0x108u);
}

TEST_F(Sebep, InaccuracyConfigurationErrors)
{
    auto refused = [&](auto change) {
        pmvp_core_config c = cfg;
        change(c);
        return pmvp_core_init(&core, &c) == PMVP_ERR_CONFIG;
    };
    EXPECT_TRUE(refused([](pmvp_core_config &c) { c.inaccuracy.drop_ppm = PMVP_MAX_DROP_PPM + 1; }));
    EXPECT_TRUE(refused([](pmvp_core_config &c) { c.inaccuracy.draw = static_cast<pmvp_inaccuracy_draw>(2); }));
    EXPECT_TRUE(refused([](pmvp_core_config &c) { c.inaccuracy.shadow_time = 5; }));
    EXPECT_TRUE(refused([](pmvp_core_config &c) {
        c.feat_sebep = false;
        c.inaccuracy.shadow_events = 1;
    }));
    EXPECT_TRUE(refused([](pmvp_core_config &c) { c.num_sebep_thresholds = PMVP_MAX_THRESHOLDS + 1; }));
    EXPECT_TRUE(refused([](pmvp_core_config &c) { c.num_sebep_thresholds = 1; }));
    EXPECT_FALSE(refused([](pmvp_core_config &c) { c.inaccuracy.drop_ppm = PMVP_MAX_DROP_PPM; }));
}

TEST(SyncEvents, D14_7_ListsRequiredAndRecommendedEvents)
{
    EXPECT_EQ(pmvp_event_sync_kind(PMVP_EV_INST_RETIRED), PMVP_SYNC_REQUIRED);
    EXPECT_EQ(pmvp_event_sync_kind(0x000C), PMVP_SYNC_REQUIRED);     // PC_WRITE_RETIRED
    EXPECT_EQ(pmvp_event_sync_kind(0x0022), PMVP_SYNC_REQUIRED);     // BR_MIS_PRED_RETIRED
    EXPECT_EQ(pmvp_event_sync_kind(0x000D), PMVP_SYNC_RECOMMENDED);  // BR_IMMED_RETIRED
    EXPECT_EQ(pmvp_event_sync_kind(0x8181), PMVP_SYNC_RECOMMENDED);  // BR_COND_RETIRED
    EXPECT_EQ(pmvp_event_sync_kind(0x000A), PMVP_SYNC_NONE);         // EXC_RETURN
    EXPECT_EQ(pmvp_event_sync_kind(0x0009), PMVP_SYNC_NONE);         // EXC_TAKEN: never
    EXPECT_EQ(pmvp_event_sync_kind(PMVP_EV_CPU_CYCLES), PMVP_SYNC_NONE);
}

}  // namespace
}  // namespace pmvp::test
