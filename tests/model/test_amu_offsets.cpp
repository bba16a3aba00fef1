// SPDX-License-Identifier: Apache-2.0
// FEAT_AMUv1p1's virtual offsets (D16.2, D24.6.2, D24.6.9 to D24.6.12): a
// hypervisor's AMEVCNTVOFF0<n>_EL2 and AMEVCNTVOFF1<n>_EL2 change what EL0
// and EL1 read of the activity monitors through the System registers, with
// HCR_EL2.AMVOFFEN and SCR_EL3.AMVOFFEN; the counts, EL2's and EL3's reads
// and the external view stay physical. 1 GHz processor clock, 100 MHz
// System Counter.
#include "fixture.h"

#include "pmvp/amu.h"
#include "pmvp/ext.h"
#include "pmvp/sysreg.h"

namespace pmvp::test {
namespace {

// MRS/MSR encodings (op1, CRn, CRm, op2; op0 is 3) with counter index n.
struct Enc {
    unsigned op1, crn, crm, op2;
};
Enc amevcntr0(unsigned n)
{
    return { 3, 13, 4 | n >> 3, n & 7 };
}
Enc amevcntr1(unsigned n)
{
    return { 3, 13, 12 | n >> 3, n & 7 };
}
Enc amevcntvoff0(unsigned n)
{
    return { 4, 13, 8 | n >> 3, n & 7 };
}
Enc amevcntvoff1(unsigned n)
{
    return { 4, 13, 10 | n >> 3, n & 7 };
}
constexpr Enc kAmcg1idr{ 3, 13, 2, 6 };

class AmuOffsets : public Kernel {
protected:
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.amu_num_aux = 3;
        cfg.amu_aux_offsets = 0x5;  // counters 0 and 2 have an offset
    }
    void init()
    {
        Kernel::init();
        ASSERT_EQ(pmvp_amu_write(&core, 0, PMVP_AMCNTENSET0_EL0, 0, 0xF, 0), PMVP_OK);
        ASSERT_EQ(pmvp_amu_write(&core, 0, PMVP_AMCNTENSET1_EL0, 0, 0x7, 0), PMVP_OK);
        context(0, 1, PMVP_NONSECURE, 0);
    }
    // An access at the PE's Exception level, with these higher-level controls.
    pmvp_sysreg_execution exec(bool write, Enc e, uint64_t &v, pmvp_time t, uint64_t hcr_el2, uint64_t scr_el3)
    {
        pmvp_sysreg_context higher{};
        higher.hcr_el2 = hcr_el2;
        higher.scr_el3 = scr_el3;
        pmvp_sysreg_execution out{};
        EXPECT_EQ(pmvp_sysreg_execute_a64(&core, 0, write, 3, e.op1, e.crn, e.crm, e.op2, 0, &higher, t, &v, &out),
                  PMVP_OK);
        return out;
    }
    uint64_t mrs(Enc e, pmvp_time t, uint64_t hcr_el2 = PMVP_HCR_EL2_AMVOFFEN, uint64_t scr_el3 = PMVP_SCR_EL3_AMVOFFEN)
    {
        uint64_t v = 0;
        EXPECT_EQ(exec(false, e, v, t, hcr_el2, scr_el3).verdict, PMVP_SYSREG_PERMITTED);
        return v;
    }
    void msr(Enc e, uint64_t v, pmvp_time t)
    {
        EXPECT_EQ(exec(true, e, v, t, 0, PMVP_SCR_EL3_AMVOFFEN).verdict, PMVP_SYSREG_PERMITTED);
    }
};

TEST_F(AmuOffsets, D24_6_9_El1ReadsThePhysicalCountLessTheOffset)
{
    init();
    context(0, 2, PMVP_NONSECURE, 0);  // the hypervisor sets the offsets
    msr(amevcntvoff0(0), 400, 0);
    msr(amevcntvoff0(2), 7, 0);
    msr(amevcntvoff0(3), 2000, 0);
    msr(amevcntvoff1(0), 100, 0);
    msr(amevcntvoff1(2), 50, 0);
    EXPECT_EQ(mrs(amevcntvoff0(0), 0), 400u);
    EXPECT_EQ(mrs(kAmcg1idr, 0), 0x0005'0007u);  // CG1VOFF counters 0 and 2, CG1IMP 0 to 2
    context(0, 1, PMVP_NONSECURE, 0);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 30, kUs), PMVP_OK);
    // At 1 us: CPU_CYCLES 1000, CNT_CYCLES 100, INST_RETIRED 30, no memory stall;
    // the auxiliary counters count CPU_CYCLES (the default).
    EXPECT_EQ(mrs(amevcntr0(0), kUs), 600u);
    EXPECT_EQ(mrs(amevcntr0(1), kUs), 100u);  // CNT_CYCLES has no offset
    EXPECT_EQ(mrs(amevcntr0(2), kUs), 23u);
    EXPECT_EQ(mrs(amevcntr0(3), kUs), (uint64_t)0 - 2000u);  // modulo 2^64
    EXPECT_EQ(mrs(amevcntr1(0), kUs), 900u);
    EXPECT_EQ(mrs(amevcntr1(1), kUs), 1000u);  // no offset implemented
    EXPECT_EQ(mrs(amevcntr1(2), kUs), 950u);
    // Without either AMVOFFEN, or in the EL2&0 host, EL1 reads the physical count.
    EXPECT_EQ(mrs(amevcntr0(0), kUs, 0), 1000u);
    EXPECT_EQ(mrs(amevcntr0(0), kUs, PMVP_HCR_EL2_AMVOFFEN, 0), 1000u);
    EXPECT_EQ(
        mrs(amevcntr0(0), kUs, PMVP_HCR_EL2_AMVOFFEN | PMVP_HCR_EL2_E2H | PMVP_HCR_EL2_TGE, PMVP_SCR_EL3_AMVOFFEN),
        1000u);
    // EL2, the register file and the external frame see the physical count.
    context(0, 2, PMVP_NONSECURE, kUs);
    EXPECT_EQ(mrs(amevcntr0(0), kUs), 1000u);
    uint64_t v = 0;
    ASSERT_EQ(pmvp_amu_read(&core, 0, PMVP_AMEVCNTR0_EL0, 0, kUs, &v), PMVP_OK);
    EXPECT_EQ(v, 1000u);
    pmvp_ext_access a{ PMVP_SECURE, false };
    ASSERT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_AMU, 0x000, 8, &a, kUs, &v, nullptr), PMVP_OK);
    EXPECT_EQ(v, 1000u);
}

// EL2 not enabled (Secure state without Secure EL2): no offset applies.
TEST_F(AmuOffsets, D24_6_9_NoOffsetWithoutEl2)
{
    init();
    context(0, 2, PMVP_NONSECURE, 0);
    msr(amevcntvoff0(0), 400, 0);
    context(0, 1, PMVP_SECURE, 0);
    EXPECT_EQ(mrs(amevcntr0(0), kUs), 1000u);
}

// AMCR_EL0.CG1RZ: the auxiliary counters read zero below the highest
// Exception level, offsets or not.
TEST_F(AmuOffsets, D24_6_10_Cg1rzReadsZeroBeforeAnyOffset)
{
    init();
    context(0, 2, PMVP_NONSECURE, 0);
    msr(amevcntvoff1(0), 100, 0);
    ASSERT_EQ(pmvp_amu_write(&core, 0, PMVP_AMCR_EL0, 0, PMVP_AMCR_EL0_CG1RZ, 0), PMVP_OK);
    context(0, 1, PMVP_NONSECURE, 0);
    EXPECT_EQ(mrs(amevcntr1(0), kUs), 0u);
}

TEST_F(AmuOffsets, D24_6_11_AccessibleAtEl2AndEl3Only)
{
    init();
    uint64_t v = 0;
    // EL1: UNDEFINED (FEAT_NV is not modelled), as at EL0.
    EXPECT_EQ(exec(false, amevcntvoff0(0), v, 0, PMVP_HCR_EL2_AMVOFFEN, PMVP_SCR_EL3_AMVOFFEN).verdict,
              PMVP_SYSREG_UNDEFINED);
    context(0, 0, PMVP_NONSECURE, 0);
    EXPECT_EQ(exec(false, amevcntvoff0(0), v, 0, 0, PMVP_SCR_EL3_AMVOFFEN).verdict, PMVP_SYSREG_UNDEFINED);
    // EL2: SCR_EL3.AMVOFFEN == 0 traps to EL3.
    context(0, 2, PMVP_NONSECURE, 0);
    pmvp_sysreg_execution o = exec(true, amevcntvoff0(0), v, 0, 0, 0);
    EXPECT_EQ(o.verdict, PMVP_SYSREG_TRAP);
    EXPECT_EQ(o.target_el, 3u);
    // Counter 1 (CNT_CYCLES) has no offset register, nor do auxiliary
    // counters outside amu_aux_offsets or beyond amu_num_aux.
    EXPECT_EQ(exec(false, amevcntvoff0(1), v, 0, 0, PMVP_SCR_EL3_AMVOFFEN).verdict, PMVP_SYSREG_UNDEFINED);
    EXPECT_EQ(exec(false, amevcntvoff1(1), v, 0, 0, PMVP_SCR_EL3_AMVOFFEN).verdict, PMVP_SYSREG_UNDEFINED);
    EXPECT_EQ(exec(false, amevcntvoff1(3), v, 0, 0, PMVP_SCR_EL3_AMVOFFEN).verdict, PMVP_SYSREG_UNDEFINED);
    EXPECT_EQ(pmvp_amu_write(&core, 0, PMVP_AMEVCNTVOFF0_EL2, 1, 5, 0), PMVP_ERR_COUNTER);
    EXPECT_EQ(pmvp_amu_write(&core, 0, PMVP_AMEVCNTVOFF1_EL2, 1, 5, 0), PMVP_ERR_COUNTER);
    // EL3: permitted whatever SCR_EL3.AMVOFFEN.
    context(0, 3, PMVP_SECURE, 0);
    EXPECT_EQ(exec(true, amevcntvoff1(2), v, 0, 0, 0).verdict, PMVP_SYSREG_PERMITTED);
}

TEST(AmuOffsetsConfig, RefusedWithoutAmuv1p1OrForACounterNotImplemented)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.amu_num_aux = 2;
    cfg.amu_aux_offsets = 0x4;
    pmvp_core core;
    const char *why = nullptr;
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_ERR_CONFIG);
    EXPECT_STREQ(why, "amu_aux_offsets: an offset for an auxiliary counter that is not implemented (n >= amu_num_aux)");
    cfg.amu_aux_offsets = 0x2;
    cfg.feat_amuv1p1 = false;
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_ERR_CONFIG);
    EXPECT_STREQ(why, "amu_aux_offsets: virtual offsets need FEAT_AMUv1p1 (feat_amuv1p1)");
}

}  // namespace
}  // namespace pmvp::test
