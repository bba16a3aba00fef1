// SPDX-License-Identifier: Apache-2.0
// The pure query (pmu.h, amu.h, ext.h): a register as it is at an instant at
// or after the core's present, the core left exactly as it was.
#include <cstring>
#include <memory>
#include <random>

#include "fixture.h"
#include "pmvp/amu.h"
#include "pmvp/ext.h"
#include "pmvp/sysreg.h"

namespace pmvp::test {
namespace {

class Peek : public Kernel {
protected:
    // 1 GHz. Counter 0 counts CPU_CYCLES from 0xFFFFFFF0, counter 1 chains
    // it from 7, counter 2 counts INST_RETIRED; PMCCNTR counts through the
    // PMCR.D divider; AMU architected counter 0 counts CPU_CYCLES. All from 0.
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.pmu_version = PMVP_PMUV3P4;
        pmvp_core_config_limit_to_version(&cfg);
        init();
        enable_cycle_counter(0, PMVP_PMCR_EL0_D);
        program(0, 0, PMVP_EV_CPU_CYCLES);
        program(0, 1, PMVP_EV_CHAIN);
        program(0, 2, PMVP_EV_INST_RETIRED);
        write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFF0u, 0, 0);
        write(0, PMVP_PMEVCNTR_EL0, 7, 0, 1);
        ASSERT_EQ(pmvp_amu_write(&core, 0, PMVP_AMCNTENSET0_EL0, 0, 1, 0), PMVP_OK);
    }
    uint64_t peek(pmvp_pmu_reg r, pmvp_time t, unsigned n = 0)
    {
        uint64_t v = 0;
        EXPECT_EQ(pmvp_pmu_peek(&core, 0, r, n, t, &v), PMVP_OK) << pmvp_pmu_reg_name(r);
        return v;
    }
    uint64_t amu_peek(unsigned n, pmvp_time t)
    {
        uint64_t v = 0;
        EXPECT_EQ(pmvp_amu_peek(&core, 0, PMVP_AMEVCNTR0_EL0, n, t, &v), PMVP_OK);
        return v;
    }
};

// 1 us at 1 GHz: counter 0 wraps (0xFFFFFFF0 + 1000 = 2^32 + 984) and sets
// its overflow flag, the CHAIN counter takes the carry, PMCCNTR has 1000/64
// = 15 and the AMU 1000, while the core's bytes stay as they were.
TEST_F(Peek, ShowsTheLaterInstantAndChangesNothing)
{
    auto before = std::make_unique<pmvp_core>();
    std::memcpy(before.get(), &core, sizeof core);
    EXPECT_EQ(peek(PMVP_PMEVCNTR_EL0, kUs, 0), 984u);
    EXPECT_EQ(peek(PMVP_PMEVCNTR_EL0, kUs, 1), 8u);
    EXPECT_EQ(peek(PMVP_PMOVSSET_EL0, kUs), 1u);
    EXPECT_EQ(peek(PMVP_PMCCNTR_EL0, kUs), 15u);
    EXPECT_EQ(peek(PMVP_PMXEVCNTR_EL0, kUs), 984u);  // PMSELR.SEL is 0
    EXPECT_EQ(amu_peek(0, kUs), 1000u);
    uint32_t ovsset = 0;
    uint64_t v = 0;
    ASSERT_EQ(pmvp_ext_find(&core, PMVP_FRAME_PMU, "PMOVSSET_EL0", 0, &ovsset), PMVP_OK);
    ASSERT_EQ(pmvp_ext_debug_read(&core, 0, PMVP_FRAME_PMU, ovsset, 4, kUs, &v), PMVP_OK);
    EXPECT_EQ(v, 1u);
    EXPECT_EQ(std::memcmp(before.get(), &core, sizeof core), 0);
}

// The present does not move: an input for an earlier instant is taken, and
// the next query shows it; a read then commits the same values.
TEST_F(Peek, LeavesThePresentForEarlierInputs)
{
    EXPECT_EQ(peek(PMVP_PMEVCNTR_EL0, kUs, 2), 0u);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 5, kUs / 2), PMVP_OK);
    EXPECT_EQ(peek(PMVP_PMEVCNTR_EL0, kUs, 2), 5u);
    EXPECT_EQ(peek(PMVP_PMEVCNTR_EL0, kUs, 0), 984u);
    EXPECT_EQ(counter(0, 0, kUs), 984u);
    EXPECT_EQ(counter(0, 1, kUs), 8u);
    EXPECT_EQ(counter(0, 2, kUs), 5u);
    EXPECT_EQ(cycles(0, kUs), 15u);
}

// It refuses what a read refuses, and changes nothing when it does.
TEST_F(Peek, RefusesAsAReadDoes)
{
    uint64_t v = 0;
    ASSERT_EQ(counter(0, 0, kUs), 984u);  // the present is now 1 us
    EXPECT_EQ(pmvp_pmu_peek(&core, 0, PMVP_PMEVCNTR_EL0, 0, kUs / 2, &v), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_pmu_peek(&core, 0, PMVP_PMEVCNTR_EL0, cfg.num_counters, kUs, &v), PMVP_ERR_COUNTER);
    EXPECT_EQ(pmvp_pmu_peek(&core, 1, PMVP_PMEVCNTR_EL0, 0, kUs, &v), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_pmu_peek(&core, 0, PMVP_PMIAR_EL1, 0, kUs, &v), PMVP_ERR_REGISTER);  // no FEAT_SEBEP
    EXPECT_EQ(pmvp_pmu_peek(&core, 0, PMVP_PMEVCNTR_EL0, 0, kUs, nullptr), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_pmu_peek(nullptr, 0, PMVP_PMEVCNTR_EL0, 0, kUs, &v), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_amu_peek(&core, 0, PMVP_AMEVCNTR0_EL0, 0, kUs / 2, &v), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_amu_peek(&core, 0, PMVP_AMEVCNTR0_EL0, 4, kUs, &v), PMVP_ERR_COUNTER);
    EXPECT_EQ(pmvp_amu_peek(&core, 0, PMVP_AMEVCNTR0_EL0, 0, kUs, nullptr), PMVP_ERR_NULL);
}

// The pure query of an MRS takes no MSR: a write changes the core, and
// pmvp_sysreg_execute makes it.
TEST_F(Peek, AnMsrIsNoPureQuery)
{
    const pmvp_sysreg_a64 msr = { true, 3, 3, 9, 13, 0, 0 }, mrs = { false, 3, 3, 9, 13, 0, 0 };  // PMCCNTR_EL0
    uint64_t v = 5;
    pmvp_sysreg_execution out{};
    EXPECT_EQ(pmvp_sysreg_peek_execute(&core, 0, &msr, nullptr, kUs, &v, &out), PMVP_ERR_VALUE);
    EXPECT_EQ(v, 5u);
    ASSERT_EQ(pmvp_sysreg_peek_execute(&core, 0, &mrs, nullptr, kUs, &v, &out), PMVP_OK);
    EXPECT_EQ(pmvp_sysreg_peek_execute(&core, 0, nullptr, nullptr, kUs, &v, &out), PMVP_ERR_NULL);
}

// Every pure query is the committing call made on a copy of the core: for
// every MRS encoding of the PMU and AMU (pmvp_sysreg_peek_a64), every word
// and doubleword of both frames as a guest reads it (pmvp_ext_peek), and
// PMUIRQ (pmvp_pmu_irq_peek), at instants ahead of the present of a core
// whose registers were written at random and which counts and overflows.
// The core's bytes do not change.
TEST(PeekAll, EveryPureQueryIsTheCommittedCallOnACopy)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        pmvp_core_config cfg;
        pmvp_core_config_default(&cfg);
        cfg.num_pes = 2;
        cfg.pmu_version = PMVP_PMUV3P5;
        cfg.feat_ebep = cfg.feat_sebep = seed != 2;
        cfg.amu_num_aux = 2;
        cfg.pmu_ext_layout = seed == 3 ? PMVP_EXT64 : PMVP_EXT32;
        auto core = std::make_unique<pmvp_core>(), copy = std::make_unique<pmvp_core>(),
             before = std::make_unique<pmvp_core>();
        ASSERT_EQ(pmvp_core_init(core.get(), &cfg), PMVP_OK);
        std::mt19937_64 rng(seed);
        for (unsigned pe = 0; pe < 2; pe++) {
            scribble(core.get(), pe, kUs, rng);
            ASSERT_EQ(pmvp_pmu_write(core.get(), pe, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E, kUs), PMVP_OK);
            ASSERT_EQ(pmvp_pmu_write(core.get(), pe, PMVP_PMCNTENSET_EL0, 0, 0xFFFFFFFF, kUs), PMVP_OK);
            ASSERT_EQ(pmvp_pmu_write(core.get(), pe, PMVP_PMINTENSET_EL1, 0, 0xFFFFFFFF, kUs), PMVP_OK);
            ASSERT_EQ(pmvp_pmu_write(core.get(), pe, PMVP_PMOVSCLR_EL0, 0, 0xFFFFFFFF, kUs), PMVP_OK);
        }
        std::memcpy(before.get(), core.get(), sizeof *core);
        const pmvp_ext_access bus{ PMVP_NONSECURE, false };
        unsigned reads = 0, mrs = 0;
        for (pmvp_time t : { kUs, kUs + 3 * kNs, 50 * kUs, 5 * kMs }) {
            for (unsigned pe = 0; pe < 2; pe++) {
                bool a = false, b = false;
                ASSERT_EQ(pmvp_pmu_irq_peek(core.get(), pe, t, &a), PMVP_OK);
                pmvp_core_copy(copy.get(), core.get());
                ASSERT_EQ(pmvp_pmu_irq(copy.get(), pe, t, &b), PMVP_OK);
                EXPECT_EQ(a, b) << "PMUIRQ of PE " << pe << " at " << t;
                for (unsigned op1 : { 0u, 3u })
                    for (unsigned crn : { 9u, 13u, 14u })
                        for (unsigned crm = 0; crm < 16; crm++)
                            for (unsigned op2 = 0; op2 < 8; op2++) {
                                uint64_t x = 1, y = 2;
                                pmvp_sysreg_execution ex{}, ey{};
                                int ea =
                                    pmvp_sysreg_peek_a64(core.get(), pe, 3, op1, crn, crm, op2, 0, nullptr, t, &x, &ex);
                                pmvp_core_copy(copy.get(), core.get());
                                int eb = pmvp_sysreg_execute_a64(copy.get(), pe, false, 3, op1, crn, crm, op2, 0,
                                                                 nullptr, t, &y, &ey);
                                ASSERT_EQ(ea, eb) << op1 << " " << crn << " " << crm << " " << op2;
                                if (ea == PMVP_OK) {
                                    EXPECT_EQ(ex.verdict, ey.verdict);
                                    EXPECT_EQ(ex.esr, ey.esr);
                                    if (ex.verdict != PMVP_SYSREG_PERMITTED)
                                        continue;
                                    mrs += x != 0;
                                    EXPECT_EQ(x, y) << "MRS 3, " << op1 << ", c" << crn << ", c" << crm << ", " << op2
                                                    << " at " << t;
                                }
                            }
                for (pmvp_frame f : { PMVP_FRAME_PMU, PMVP_FRAME_AMU })
                    for (uint32_t off = 0; off < PMVP_FRAME_SIZE; off += 4)
                        for (unsigned size : { 4u, 8u }) {
                            uint64_t x = 1, y = 2;
                            pmvp_ext_effect ex{}, ey{};
                            int ea = pmvp_ext_peek(core.get(), pe, f, off, size, &bus, t, &x, &ex);
                            pmvp_core_copy(copy.get(), core.get());
                            int eb = pmvp_ext_read(copy.get(), pe, f, off, size, &bus, t, &y, &ey);
                            ASSERT_EQ(ea, eb) << f << " " << off << " " << size;
                            if (ea != PMVP_OK)
                                continue;
                            reads += x != 0;
                            EXPECT_EQ(x, y) << "frame " << f << " offset " << off << " size " << size << " at " << t;
                            EXPECT_EQ(ex, ey);
                        }
            }
        }
        EXPECT_EQ(std::memcmp(before.get(), core.get(), sizeof *core), 0);
        EXPECT_GT(reads, 500u);  // values, not zeros, were compared
        EXPECT_GT(mrs, 100u);
    }
}

// The refusal queries answer as the calls would, on every event number, for
// each PE, on and off, at the present and at a later instant; a level or a
// report of another class is refused as the call refuses it.
TEST(RefusalQueries, AnswerAsTheCallsWould)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.num_pes = 2;
    cfg.feat_amuv1 = true;
    auto core = std::make_unique<pmvp_core>(), copy = std::make_unique<pmvp_core>();
    ASSERT_EQ(pmvp_core_init(core.get(), &cfg), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_pe_state(core.get(), 1, PMVP_PE_OFF, kUs), PMVP_OK);
    unsigned accepted[2] = { 0, 0 }, levels = 0;
    for (unsigned pe = 0; pe < 3; pe++)
        for (unsigned event = 0; event <= 0xFFFF; event++)
            for (pmvp_time t : { kUs, 2 * kUs }) {
                int report = pmvp_core_report_refusal(core.get(), pe, (uint16_t)event);
                int level = pmvp_core_set_level_refusal(core.get(), pe, (uint16_t)event);
                pmvp_core_copy(copy.get(), core.get());
                ASSERT_EQ(report, pmvp_core_report(copy.get(), pe, (uint16_t)event, 1, t)) << pe << " " << event;
                pmvp_core_copy(copy.get(), core.get());
                ASSERT_EQ(level, pmvp_core_set_level(copy.get(), pe, (uint16_t)event, 1, t)) << pe << " " << event;
                if (pe < 2 && t == kUs) {
                    accepted[pe] += report == PMVP_OK;
                    levels += level == PMVP_OK && pe == 0;
                }
            }
    EXPECT_GT(accepted[0], 10u);  // the core's occurrence events
    EXPECT_EQ(accepted[1], 0u);   // PE 1 is off
    EXPECT_GT(levels, 2u);
    EXPECT_EQ(pmvp_core_report_refusal(nullptr, 0, PMVP_EV_INST_RETIRED), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_set_level_refusal(nullptr, 0, PMVP_EV_STALL_BACKEND), PMVP_ERR_NULL);
}

}  // namespace
}  // namespace pmvp::test
