// SPDX-License-Identifier: Apache-2.0
// FEAT_PMUv3p9: PMZR_EL0 (D13.5, D24.5.29, I5.2), PMUACR_EL1 and
// PMUSERENR_EL0.{UEN, TID} (D13.11.3, D24.5.25, D24.5.26), and the
// configuration's rules. The EL0 rungs and values the accessibility texts
// give are walked against the texts themselves in test_sysreg.cpp; these
// tests hold the counts and the bitmap views the field descriptions give.
#include "fixture.h"

#include <string>

#include "pmvp/ext.h"
#include "pmvp/sysreg.h"

namespace pmvp::test {
namespace {

class Pmuv3p9 : public Kernel {
protected:
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.feat_pmuv3p7 = cfg.feat_pmuv3p9 = true;
        cfg.feat_pmuv3_icntr = true;
        cfg.processor_hz = 1000000000;
        cfg.num_counters = 4;
    }
    void init()
    {
        Kernel::init();
        context(0, 1, PMVP_NONSECURE, 0);
    }
    // Event counters 0..3 count CPU_CYCLES, with PMCCNTR and PMICNTR.
    void count_everything()
    {
        for (unsigned n = 0; n < 4; n++)
            program(0, n, PMVP_EV_CPU_CYCLES);
        write(0, PMVP_PMCNTENSET_EL0, PMVP_PMU_C | PMVP_PMU_F0, 0);
    }
    // An MRS or MSR with op1 3, CRn 9 (the EL0-accessible PMU registers) in
    // the PE's context, with no trap of a higher level.
    pmvp_sysreg_execution access(bool write, unsigned crm, unsigned op2, uint64_t *v, pmvp_time t, unsigned op1 = 3)
    {
        pmvp_sysreg_execution out{};
        EXPECT_EQ(pmvp_sysreg_execute_a64(&core, 0, write, 3, op1, 9, crm, op2, 0, nullptr, t, v, &out), PMVP_OK);
        return out;
    }
};

// 1 GHz, so a counter of CPU_CYCLES counts 1000 a microsecond.
TEST_F(Pmuv3p9, D24_5_29_PmzrZeroesTheCountersWhoseBitsAreOne)
{
    init();
    count_everything();
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 500, 1 * kUs), PMVP_OK);
    write(0, PMVP_PMZR_EL0, PMVP_PMU_C | 0x5 | PMVP_PMU_F0, 10 * kUs);
    EXPECT_EQ(read(0, PMVP_PMZR_EL0, 10 * kUs), 0u);  // write-only: reads as zero
    EXPECT_EQ(counter(0, 0, 15 * kUs), 5000u);
    EXPECT_EQ(counter(0, 1, 15 * kUs), 15000u);
    EXPECT_EQ(counter(0, 2, 15 * kUs), 5000u);
    EXPECT_EQ(counter(0, 3, 15 * kUs), 15000u);
    EXPECT_EQ(cycles(0, 15 * kUs), 5000u);
    EXPECT_EQ(read(0, PMVP_PMICNTR_EL0, 15 * kUs), 0u);
    // Bits of counters not implemented change nothing.
    write(0, PMVP_PMZR_EL0, 0x7FFFFFF0u, 16 * kUs);
    EXPECT_EQ(counter(0, 3, 16 * kUs), 16000u);
    // Nothing is zeroed when PMZR is not implemented.
    pmvp_core_config earlier = cfg;
    earlier.feat_pmuv3p9 = false;
    pmvp_core other;
    ASSERT_EQ(pmvp_core_init(&other, &earlier), PMVP_OK);
    EXPECT_EQ(pmvp_pmu_write(&other, 0, PMVP_PMZR_EL0, 0, 1, 0), PMVP_ERR_REGISTER);
}

// PMZR_EL0's P<n> bits are RAZ/WI for counters the context cannot reach:
// at EL1 with EL2 enabled, those at and above MDCR_EL2.HPMN.
TEST_F(Pmuv3p9, D24_5_29_AnEl1WriteZeroesTheFirstRangeOnly)
{
    init();
    count_everything();
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 2) | PMVP_MDCR_EL2_HPME, PMVP_MDCR_EL3_EnPM2, 0);
    uint64_t v = 0xF | PMVP_PMU_C;
    EXPECT_EQ(access(true, 13, 4, &v, 10 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(counter(0, 0, 12 * kUs), 2000u);
    EXPECT_EQ(counter(0, 1, 12 * kUs), 2000u);
    EXPECT_EQ(counter(0, 2, 12 * kUs), 12000u);
    EXPECT_EQ(counter(0, 3, 12 * kUs), 12000u);
    EXPECT_EQ(cycles(0, 12 * kUs), 2000u);
    // MRS PMZR_EL0 does not exist: UNDEFINED.
    EXPECT_EQ(access(false, 13, 4, &v, 12 * kUs).verdict, PMVP_SYSREG_UNDEFINED);
}

// I5.2: PMZR_EL0 at 0xCA0 (write-only, reads as zero), where PMSWINC is not
// permitted with FEAT_PMUv3p9; the bitmaps are 64 bits wide even without
// the instruction counter.
TEST_F(Pmuv3p9, I5_2_TheExternalPmzrAndTheWideBitmaps)
{
    cfg.feat_pmuv3_icntr = false;
    init();
    count_everything();
    pmvp_ext_access a{ PMVP_SECURE, false };
    ASSERT_EQ(pmvp_ext_write(&core, 0, PMVP_FRAME_PMU, 0xCA0, 4, 0x2, &a, 10 * kUs, nullptr), PMVP_OK);
    ASSERT_EQ(pmvp_ext_write(&core, 0, PMVP_FRAME_PMU, 0xCA0, 8, PMVP_PMU_C, &a, 10 * kUs, nullptr), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 11 * kUs), 11000u);
    EXPECT_EQ(counter(0, 1, 11 * kUs), 1000u);
    EXPECT_EQ(cycles(0, 11 * kUs), 1000u);
    uint64_t v = 1;
    ASSERT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0xCA0, 8, &a, 11 * kUs, &v, nullptr), PMVP_OK);
    EXPECT_EQ(v, 0u);
    ASSERT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0xC00, 8, &a, 11 * kUs, &v, nullptr), PMVP_OK);
    EXPECT_EQ(v, 0xFu | PMVP_PMU_C);
    // A debugger's write to PMZR zeroes nothing (the debug path moves values, not actions).
    ASSERT_EQ(pmvp_ext_debug_write(&core, 0, PMVP_FRAME_PMU, 0xCA0, 8, 0xF, 12 * kUs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 12 * kUs), 12000u);
    // The OPTIONAL external PMSWINC is refused with the feature.
    cfg.pmu_ext_pmswinc = true;
    const char *why = nullptr;
    pmvp_core other;
    EXPECT_EQ(pmvp_core_init_why(&other, &cfg, &why), PMVP_ERR_CONFIG);
    ASSERT_NE(why, nullptr);
    EXPECT_NE(std::string(why).find("pmu_ext_pmswinc"), std::string::npos) << why;
}

// D13.11.3: at EL0 under PMUSERENR_EL0.UEN the enable and overflow bits of
// a counter are reached only where PMUACR_EL1 opens the counter, and ER, CR
// and IR make them read-only; PMCR_EL0 is trapped.
TEST_F(Pmuv3p9, D13_11_3_El0SeesTheCountersPmuacrOpens)
{
    init();
    count_everything();
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4), PMVP_MDCR_EL3_EnPM2, 0);
    uint64_t v = PMVP_PMU_C | 0x2;
    EXPECT_EQ(access(true, 14, 4, &v, 1 * kUs, 0).verdict, PMVP_SYSREG_PERMITTED);  // MSR PMUACR_EL1 at EL1
    EXPECT_EQ(read(0, PMVP_PMUACR_EL1, 1 * kUs), PMVP_PMU_C | 0x2u);
    write(0, PMVP_PMUSERENR_EL0, PMVP_PMUSERENR_EL0_UEN | PMVP_PMUSERENR_EL0_ER, 1 * kUs);
    context(0, 0, PMVP_NONSECURE, 2 * kUs);
    // PMCNTENSET_EL0 reads the bits of counter 1 and PMCCNTR only.
    EXPECT_EQ(access(false, 12, 1, &v, 3 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(v, PMVP_PMU_C | 0x2u);
    // PMCNTENCLR_EL0: ER makes counter 1's bit read-only; C is written; the
    // closed counters' bits are ignored.
    v = 0xF | PMVP_PMU_C | PMVP_PMU_F0;
    EXPECT_EQ(access(true, 12, 2, &v, 3 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(read(0, PMVP_PMCNTENSET_EL0, 3 * kUs), 0xFu | PMVP_PMU_F0);
    write(0, PMVP_PMCNTENSET_EL0, PMVP_PMU_C, 3 * kUs);  // PMCCNTR counts on from 3000
    // PMEVCNTR1_EL0 reads; PMEVCNTR0_EL0 reads as zero; ER ignores the write.
    pmvp_sysreg_execution o{};
    ASSERT_EQ(pmvp_sysreg_execute_a64(&core, 0, false, 3, 3, 14, 8, 1, 0, nullptr, 4 * kUs, &v, &o), PMVP_OK);
    EXPECT_EQ(o.verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(v, 4000u);
    ASSERT_EQ(pmvp_sysreg_execute_a64(&core, 0, false, 3, 3, 14, 8, 0, 0, nullptr, 4 * kUs, &v, &o), PMVP_OK);
    EXPECT_EQ(v, 0u);
    v = 7;
    ASSERT_EQ(pmvp_sysreg_execute_a64(&core, 0, true, 3, 3, 14, 8, 1, 0, nullptr, 4 * kUs, &v, &o), PMVP_OK);
    EXPECT_EQ(o.verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(counter(0, 1, 4 * kUs), 4000u);
    // PMZR_EL0 from EL0: ER ignores counter 1's bit, PMUACR closes counter 0's; C is taken.
    v = 0x3 | PMVP_PMU_C;
    EXPECT_EQ(access(true, 13, 4, &v, 5 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(counter(0, 0, 5 * kUs), 5000u);
    EXPECT_EQ(counter(0, 1, 5 * kUs), 5000u);
    EXPECT_EQ(cycles(0, 6 * kUs), 1000u);  // zeroed at 5 us
    // UEN traps PMCR_EL0 (EN alone would open it), and TID the reads of PMCEID<n>.
    write(0, PMVP_PMUSERENR_EL0, PMVP_PMUSERENR_EL0_UEN | PMVP_PMUSERENR_EL0_EN | PMVP_PMUSERENR_EL0_TID, 7 * kUs);
    o = access(false, 12, 0, &v, 7 * kUs);
    EXPECT_EQ(o.verdict, PMVP_SYSREG_TRAP);
    EXPECT_EQ(o.target_el, 1u);
    EXPECT_EQ(access(false, 12, 6, &v, 7 * kUs).verdict, PMVP_SYSREG_TRAP);
    write(0, PMVP_PMUSERENR_EL0, PMVP_PMUSERENR_EL0_EN, 8 * kUs);
    EXPECT_EQ(access(false, 12, 0, &v, 8 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(access(false, 12, 6, &v, 8 * kUs).verdict, PMVP_SYSREG_PERMITTED);
}

// Without FEAT_PMUv3p9, PMUSERENR_EL0.{UEN, TID} are RES0; the feature
// needs FEAT_PMUv3p7; ID_AA64DFR0_EL1.PMUVer reads 0b1001 with it.
TEST(Pmuv3p9Config, RulesAndIdentification)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.feat_pmuv3p7 = false;
    cfg.feat_pmuv3p9 = true;
    pmvp_core core;
    const char *why = nullptr;
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_ERR_CONFIG);
    ASSERT_NE(why, nullptr);
    EXPECT_STREQ(why, "feat_pmuv3p9: FEAT_PMUv3p9 needs feat_pmuv3p7 (it implies FEAT_PMUv3p8 and FEAT_PMUv3p7)");
    cfg.feat_pmuv3p7 = true;
    ASSERT_EQ(pmvp_core_init(&core, &cfg), PMVP_OK);
    uint64_t fields = 0, mask = 0;
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 0, &fields, &mask), PMVP_OK);  // ID_AA64DFR0_EL1
    EXPECT_EQ(fields >> 8 & 0xF, 0x9u);
    ASSERT_EQ(pmvp_pmu_write(&core, 0, PMVP_PMUSERENR_EL0, 0, UINT64_MAX, 0), PMVP_OK);
    uint64_t v = 0;
    ASSERT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMUSERENR_EL0, 0, 0, &v), PMVP_OK);
    EXPECT_EQ(v, 0x5Fu);  // EN, SW, CR, ER, UEN, TID (IR needs the instruction counter)
    cfg.feat_pmuv3p9 = false;
    ASSERT_EQ(pmvp_core_init(&core, &cfg), PMVP_OK);
    ASSERT_EQ(pmvp_pmu_write(&core, 0, PMVP_PMUSERENR_EL0, 0, UINT64_MAX, 0), PMVP_OK);
    ASSERT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMUSERENR_EL0, 0, 0, &v), PMVP_OK);
    EXPECT_EQ(v, 0xFu);
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 0, &fields, &mask), PMVP_OK);
    EXPECT_EQ(fields >> 8 & 0xF, 0x7u);
}

}  // namespace
}  // namespace pmvp::test
