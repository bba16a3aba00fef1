// SPDX-License-Identifier: Apache-2.0
// The instruction counter PMICNTR_EL0 (FEAT_PMUv3_ICNTR): D13.1, D13.3
// (RFBGFH), D13.5.1.3, D13.5.2.1 (RMZPBW), D13.5.4 (RCSRMB), D24.5.14,
// D24.5.15, and its external view (I5.2, I5.3.10, I5.3.11).
#include "fixture.h"


#include "pmvp/ext.h"
#include "pmvp/sysreg.h"

namespace pmvp::test {
namespace {

class Icntr : public Kernel {
protected:
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.feat_pmuv3_icntr = true;
    }
    void init()
    {
        Kernel::init();
        context(0, 1, PMVP_NONSECURE, 0);
    }
    // PMCR.E and PMCNTENSET.F0 (D13.5.1.3).
    void enable(pmvp_time t = 0)
    {
        write(0, PMVP_PMCNTENSET_EL0, PMVP_PMU_F0, t);
        write(0, PMVP_PMCR_EL0, read(0, PMVP_PMCR_EL0, t) | PMVP_PMCR_EL0_E, t);
    }
    void retire(uint64_t count, pmvp_time t)
    {
        ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, count, t), PMVP_OK);
    }
    uint64_t instructions(pmvp_time t) { return read(0, PMVP_PMICNTR_EL0, t); }
    uint64_t to_interrupt(pmvp_time t)
    {
        uint64_t n = 0;
        EXPECT_EQ(pmvp_core_events_to_interrupt(&core, 0, PMVP_EV_INST_RETIRED, t, &n), PMVP_OK);
        return n;
    }
};

TEST_F(Icntr, IWMNXT_CountsTheInstructionsItsPeRetiresWhileEnabled)
{
    cfg.num_pes = 2;
    init();
    retire(100, 1 * kUs);  // not enabled yet
    enable(2 * kUs);
    retire(1000, 3 * kUs);
    retire(7, 4 * kUs);
    ASSERT_EQ(pmvp_core_report(&core, 1, PMVP_EV_INST_RETIRED, 50, 4 * kUs), PMVP_OK);  // the other PE's
    ASSERT_EQ(pmvp_core_report(&core, 0, 0x0021, 9, 4 * kUs), PMVP_OK);                 // BR_RETIRED
    EXPECT_EQ(instructions(5 * kUs), 1007u);
    // PMCR.E disables it as it does the first range.
    write(0, PMVP_PMCR_EL0, 0, 6 * kUs);
    retire(10, 7 * kUs);
    EXPECT_EQ(instructions(8 * kUs), 1007u);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E, 9 * kUs);
    write(0, PMVP_PMCNTENCLR_EL0, PMVP_PMU_F0, 9 * kUs);
    retire(10, 10 * kUs);
    EXPECT_EQ(instructions(11 * kUs), 1007u);
    EXPECT_EQ(read(0, PMVP_PMCNTENSET_EL0, 11 * kUs) & PMVP_PMU_F0, 0u);
    // Time alone counts nothing.
    EXPECT_EQ(instructions(1000 * kMs), 1007u);
}

TEST_F(Icntr, RFBGFH_AnOverflowOfBits63To0SetsF0AndRequestsTheInterrupt)
{
    init();
    enable();
    write(0, PMVP_PMICNTR_EL0, UINT64_MAX - 9, 0);
    write(0, PMVP_PMINTENSET_EL1, PMVP_PMU_F0, 0);
    EXPECT_EQ(to_interrupt(1 * kUs), 10u);
    retire(9, 1 * kUs);
    EXPECT_FALSE(irq(0, 1 * kUs));
    EXPECT_EQ(to_interrupt(1 * kUs), 1u);
    retire(6, 2 * kUs);
    EXPECT_EQ(instructions(2 * kUs), 5u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 2 * kUs), PMVP_PMU_F0);
    EXPECT_TRUE(irq(0, 2 * kUs));
    EXPECT_EQ(to_interrupt(2 * kUs), PMVP_EVENTS_NEVER);  // the flag is set
    EXPECT_TRUE(pmvp_core_input_may_interrupt(&core, PMVP_EV_INST_RETIRED, false));
    write(0, PMVP_PMOVSCLR_EL0, PMVP_PMU_F0, 3 * kUs);
    EXPECT_FALSE(irq(0, 3 * kUs));
    // Neither PMCR.P nor PMCR.C resets it (D24.5.8).
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_P | PMVP_PMCR_EL0_C, 4 * kUs);
    EXPECT_EQ(instructions(4 * kUs), 5u);
}

TEST_F(Icntr, D24_5_14_PmicfiltrFiltersAndReadsInstRetired)
{
    init();
    enable();
    write(0, PMVP_PMICFILTR_EL0, PMVP_PMEVTYPER_EL0_U | PMVP_PMEVTYPER_EL0_MT | 0x11, 0);
    // evtCount reads 0x0008 whatever is written; MT is RES0 here (D24.5.14).
    EXPECT_EQ(read(0, PMVP_PMICFILTR_EL0, 0), PMVP_PMEVTYPER_EL0_U | 0x08);
    retire(10, 1 * kUs);  // EL1: counted
    context(0, 0, PMVP_NONSECURE, 2 * kUs);
    retire(20, 3 * kUs);  // EL0: filtered
    EXPECT_EQ(instructions(4 * kUs), 10u);
    // Non-secure EL0 is filtered out when NSU != U: U and NSU both set count it.
    write(0, PMVP_PMICFILTR_EL0, PMVP_PMEVTYPER_EL0_U | PMVP_PMEVTYPER_EL0_NSU, 5 * kUs);
    retire(30, 6 * kUs);
    EXPECT_EQ(instructions(7 * kUs), 40u);
    write(0, PMVP_PMICFILTR_EL0, PMVP_PMEVTYPER_EL0_NSU, 8 * kUs);
    retire(30, 9 * kUs);
    EXPECT_EQ(instructions(10 * kUs), 40u);
    write(0, PMVP_PMICFILTR_EL0, 0, 11 * kUs);
    retire(30, 12 * kUs);
    EXPECT_EQ(instructions(13 * kUs), 70u);
}

TEST_F(Icntr, RCSRMB_ProhibitedAsTheFirstRangeWhateverHpmn)
{
    init();
    enable();
    program(0, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_NSH);
    write(0, PMVP_PMICFILTR_EL0, PMVP_PMEVTYPER_EL0_NSH, 0);  // EL2 not filtered out
    // HPMN = 0: counter 0 is in the second range; HPMD prohibits EL2 for the
    // first range only, and the instruction counter with it.
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 0) | PMVP_MDCR_EL2_HPME | PMVP_MDCR_EL2_HPMD, PMVP_MDCR_EL3_EnPM2,
             0);
    context(0, 2, PMVP_NONSECURE, 0);
    retire(10, 1 * kUs);
    EXPECT_EQ(instructions(2 * kUs), 0u);
    EXPECT_EQ(counter(0, 0, 2 * kUs), 10u);
    // Secure EL1 without MDCR_EL3.SPME or MPMX: prohibited.
    context(0, 1, PMVP_SECURE, 3 * kUs);
    retire(10, 4 * kUs);
    EXPECT_EQ(instructions(5 * kUs), 0u);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 0) | PMVP_MDCR_EL2_HPME, PMVP_MDCR_EL3_SPME, 6 * kUs);
    retire(10, 7 * kUs);
    EXPECT_EQ(instructions(8 * kUs), 10u);
}

TEST_F(Icntr, RMZPBW_F0FreezesTheFirstRangeAndIsFrozenWithIt)
{
    cfg.feat_pmuv3p7 = true;
    init();
    enable();
    program(0, 0, PMVP_EV_CPU_CYCLES);
    program(0, 1, PMVP_EV_INST_RETIRED);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LP | PMVP_PMCR_EL0_FZO, 0);
    write(0, PMVP_PMICNTR_EL0, UINT64_MAX - 99, 0);
    EXPECT_EQ(to_interrupt(0), 100u);  // a source of the freeze, without its interrupt enabled
    retire(100, 1000 * kNs);           // the 100th overflows PMICNTR at 1 us
    // What happens with the overflow counts: all 100 on counter 1 too.
    EXPECT_EQ(counter(0, 1, 2 * kUs), 100u);
    EXPECT_EQ(counter(0, 0, 2 * kUs), 1000u);  // frozen from 1 us on
    EXPECT_EQ(instructions(2 * kUs), 0u);
    retire(5, 3 * kUs);
    EXPECT_EQ(instructions(3 * kUs), 0u);
    write(0, PMVP_PMOVSCLR_EL0, PMVP_PMU_F0, 4 * kUs);
    retire(5, 5 * kUs);
    EXPECT_EQ(instructions(5 * kUs), 5u);
    EXPECT_EQ(counter(0, 0, 5 * kUs), 2000u);
    // An event counter's overflow freezes the instruction counter.
    write(0, PMVP_PMEVCNTR_EL0, UINT64_MAX - 999, 5 * kUs, 0);  // overflows at 6 us
    EXPECT_EQ(next_event(5 * kUs), 6 * kUs);
    retire(5, 7 * kUs);
    EXPECT_EQ(instructions(7 * kUs), 5u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 7 * kUs), 1u);
}

TEST_F(Icntr, WithoutTheFeatureItsRegistersAndF0DoNotExist)
{
    cfg.feat_pmuv3_icntr = false;
    init();
    uint64_t v = 0;
    EXPECT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMICNTR_EL0, 0, 0, &v), PMVP_ERR_REGISTER);
    EXPECT_EQ(pmvp_pmu_write(&core, 0, PMVP_PMICFILTR_EL0, 0, 1, 0), PMVP_ERR_REGISTER);
    write(0, PMVP_PMCNTENSET_EL0, ~UINT64_C(0), 0);
    EXPECT_EQ(read(0, PMVP_PMCNTENSET_EL0, 0), 0x8000003Fu);
    write(0, PMVP_PMUSERENR_EL0, ~UINT64_C(0), 0);
    EXPECT_EQ(read(0, PMVP_PMUSERENR_EL0, 0), 0xFu);
}

TEST(IcntrConfig, RefusedBeforePmuv3p5)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.pmu_version = PMVP_PMUV3P4;
    pmvp_core_config_limit_to_version(&cfg);  // the other later features off
    cfg.feat_pmuv3_icntr = true;
    pmvp_core core;
    const char *why = nullptr;
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_ERR_CONFIG);
    EXPECT_STREQ(why, "feat_pmuv3_icntr: FEAT_PMUv3_ICNTR (Armv8.9) needs pmu_version PMUv3p5"
                      " (pmvp_core_config_limit_to_version() turns off every feature pmu_version lacks)");
    pmvp_core_config_limit_to_version(&cfg);
    EXPECT_FALSE(cfg.feat_pmuv3_icntr);
    pmvp_core_config_default(&cfg);
    cfg.feat_pmuv3_icntr = cfg.feat_ebep = cfg.feat_sebep = true;  // SYNC: test_sebep.cpp
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_OK) << why;
}

// MRS/MSR PMICNTR_EL0 (op1 3, CRn 9, CRm 4, op2 0) and the F0 bits.
class IcntrAccess : public Icntr {
protected:
    pmvp_sysreg_execution mrs(unsigned crm, unsigned op2, uint64_t *v, pmvp_time t, bool write = false)
    {
        pmvp_sysreg_execution out{};
        EXPECT_EQ(pmvp_sysreg_execute_a64(&core, 0, write, 3, 3, 9, crm, op2, 0, nullptr, t, v, &out), PMVP_OK);
        return out;
    }
};

TEST_F(IcntrAccess, D24_5_15_MdcrEl3EnPM2AndTheEl0EnableGateIt)
{
    init();
    enable();
    retire(42, 1 * kUs);
    uint64_t v = 0;
    // MDCR_EL3.EnPM2 == 0: trapped to EL3 from EL1 and EL2 (the fixture's controls leave it 0).
    pmvp_sysreg_execution o = mrs(4, 0, &v, 2 * kUs);
    EXPECT_EQ(o.verdict, PMVP_SYSREG_TRAP);
    EXPECT_EQ(o.target_el, 3u);
    // PMCNTENSET.F0 is RAZ/WI there.
    EXPECT_EQ(mrs(12, 1, &v, 2 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(v & PMVP_PMU_F0, 0u);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6), PMVP_MDCR_EL3_EnPM2, 3 * kUs);
    EXPECT_EQ(mrs(4, 0, &v, 3 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(v, 42u);
    EXPECT_EQ(mrs(12, 1, &v, 3 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(v & PMVP_PMU_F0, PMVP_PMU_F0);
    v = 0x500;
    EXPECT_EQ(mrs(4, 0, &v, 3 * kUs, true).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(instructions(3 * kUs), 0x500u);
    EXPECT_EQ(mrs(6, 0, &v, 3 * kUs).verdict, PMVP_SYSREG_PERMITTED);  // PMICFILTR_EL0
    EXPECT_EQ(v, 0x08u);
    // EL0: PMUSERENR_EL0.UEN (FEAT_PMUv3p9) is RES0, so EN alone does not open it.
    write(0, PMVP_PMUSERENR_EL0, PMVP_PMUSERENR_EL0_EN | PMVP_PMUSERENR_EL0_IR, 4 * kUs);
    EXPECT_EQ(read(0, PMVP_PMUSERENR_EL0, 4 * kUs), PMVP_PMUSERENR_EL0_EN | PMVP_PMUSERENR_EL0_IR);
    context(0, 0, PMVP_NONSECURE, 4 * kUs);
    o = mrs(4, 0, &v, 5 * kUs);
    EXPECT_EQ(o.verdict, PMVP_SYSREG_TRAP);
    EXPECT_EQ(o.target_el, 1u);
    EXPECT_EQ(mrs(12, 1, &v, 5 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(v & PMVP_PMU_F0, 0u);
    // At EL3 nothing gates it.
    context(0, 3, PMVP_SECURE, 6 * kUs);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6), 0, 6 * kUs);
    EXPECT_EQ(mrs(4, 0, &v, 6 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(v, 0x500u);
}

TEST_F(Icntr, I5_2_TheExternalFrameShowsItAndItsF0Bits)
{
    init();
    enable();
    retire(0x1234, 1 * kUs);
    pmvp_ext_access a{ PMVP_SECURE, false };
    pmvp_time now = 2 * kUs;
    auto rd = [&](uint32_t off, unsigned size) {
        uint64_t v = 0;
        EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, off, size, &a, now, &v, nullptr), PMVP_OK) << std::hex << off;
        return v;
    };
    EXPECT_EQ(rd(0x100, 8), 0x1234u);
    EXPECT_EQ(rd(0xC04, 4), 1u);  // PMCNTENSET_EL0[63:32]: F0
    EXPECT_EQ(rd(0xC00, 8), PMVP_PMU_F0);
    EXPECT_EQ(rd(0xE00, 4) & (PMVP_PMCFGR_N | PMVP_PMCFGR_NCG),
              7u | 1u << 28);               // 6 + the cycle and instruction counters - 1
    EXPECT_EQ(rd(0xCE0, 4), 7u | 1u << 8);  // CG0NC 7, CG1NC 1
    // PMICFILTR_EL0: [31:0] at 0x480, [63:32] at 0xA80; evtCount reads 8.
    now = 3 * kUs;
    ASSERT_EQ(pmvp_ext_write(&core, 0, PMVP_FRAME_PMU, 0x480, 4, PMVP_PMEVTYPER_EL0_P, &a, 3 * kUs, nullptr), PMVP_OK);
    EXPECT_EQ(rd(0x480, 4), PMVP_PMEVTYPER_EL0_P | 0x08);
    EXPECT_EQ(rd(0xA80, 4), 0u);
    ASSERT_EQ(pmvp_ext_write(&core, 0, PMVP_FRAME_PMU, 0xC24, 4, 1, &a, 3 * kUs, nullptr), PMVP_OK);
    EXPECT_EQ(read(0, PMVP_PMCNTENSET_EL0, 3 * kUs) & PMVP_PMU_F0, 0u);  // cleared by PMCNTENCLR[63:32]
}

TEST_F(Icntr, ACheckpointKeepsTheCounterAndItsControls)
{
    init();
    enable();
    write(0, PMVP_PMICFILTR_EL0, PMVP_PMEVTYPER_EL0_U, 0);
    write(0, PMVP_PMINTENSET_EL1, PMVP_PMU_F0, 0);
    retire(77, 1 * kUs);
    save_and_restore();
    retire(3, 2 * kUs);
    EXPECT_EQ(instructions(2 * kUs), 80u);
    EXPECT_EQ(read(0, PMVP_PMICFILTR_EL0, 2 * kUs), PMVP_PMEVTYPER_EL0_U | 0x08);
    EXPECT_EQ(read(0, PMVP_PMINTENSET_EL1, 2 * kUs), PMVP_PMU_F0);
}

}  // namespace
}  // namespace pmvp::test
