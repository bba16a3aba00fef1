// SPDX-License-Identifier: Apache-2.0
// The pure query (pmu.h, amu.h, ext.h): a register as it is at an instant at
// or after the core's present, the core left exactly as it was.
#include <cstring>
#include <memory>

#include "fixture.h"
#include "pmvp/amu.h"
#include "pmvp/ext.h"

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
        init();
        enable_cycle_counter(0, PMCR_EL0_D);
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

}  // namespace
}  // namespace pmvp::test
