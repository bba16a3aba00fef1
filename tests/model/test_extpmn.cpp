// SPDX-License-Identifier: Apache-2.0
// The third range of event counters (FEAT_PMUv3_EXTPMN): D13.1.1 (the
// ranges, MFYQC, ZCCDD), D13.3 (overflow), D13.5.1.1 (Table D13-4),
// D13.5.2.1 (freeze), D13.5.4 (prohibition), D14.3 (CHAIN), D24.5 (reset),
// I3.1.4 (Table I3-3, RDQYGL, OSLO), I5.3.47 (PMCCR).
#include "fixture.h"

#include "pmvp/ext.h"
#include "pmvp/sysreg.h"

namespace pmvp::test {
namespace {

constexpr uint32_t kPmccr = 0xE58;

class Extpmn : public Kernel {
protected:
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.feat_pmuv3_extpmn = true;
        cfg.feat_pmuv3p7 = true;
        cfg.feat_fgt = true;
    }
    // An external access: Secure is the Most secure one here (EL3, no RME).
    static pmvp_ext_access access(pmvp_security s) { return pmvp_ext_access{ (uint8_t)s, false }; }
    uint64_t ext_read(uint32_t offset, pmvp_security s, pmvp_time t, pmvp_ext_effect *e = nullptr, unsigned size = 4)
    {
        pmvp_ext_access a = access(s);
        uint64_t v = 0;
        EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, offset, size, &a, t, &v, e), PMVP_OK);
        return v;
    }
    void ext_write(uint32_t offset, uint64_t v, pmvp_security s, pmvp_time t, pmvp_ext_effect *e = nullptr,
                   unsigned size = 4)
    {
        pmvp_ext_access a = access(s);
        ASSERT_EQ(pmvp_ext_write(&core, 0, PMVP_FRAME_PMU, offset, size, v, &a, t, e), PMVP_OK);
    }
    // The external agent reserves counters [epmn, N), EPME as given.
    void reserve(unsigned epmn, bool epme, pmvp_time t = 0)
    {
        ext_write(kPmccr, PMVP_FIELD_PREP(PMVP_PMCCR_EPMN, epmn) | (epme ? PMVP_PMCCR_EPME : 0), PMVP_SECURE, t);
    }
    pmvp_sysreg_execution msr_mrs(bool write, unsigned crn, unsigned crm, unsigned op2, uint64_t *v, pmvp_time t)
    {
        pmvp_sysreg_execution out{};
        EXPECT_EQ(pmvp_sysreg_execute_a64(&core, 0, write, 3, 3, crn, crm, op2, 0, nullptr, t, v, &out), PMVP_OK);
        return out;
    }
};

TEST(ExtpmnConfig, RefusedBeforePmuv3p5)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.pmu_version = PMVP_PMUV3P4;
    pmvp_core_config_limit_to_version(&cfg);
    cfg.feat_pmuv3_extpmn = true;
    pmvp_core core;
    const char *why = nullptr;
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_ERR_CONFIG);
    EXPECT_STREQ(why, "feat_pmuv3_extpmn: FEAT_PMUv3_EXTPMN needs pmu_version PMUv3p5 (its third range overflows "
                      "at bit 63) (pmvp_core_config_limit_to_version() turns off every feature pmu_version lacks)");
    pmvp_core_config_limit_to_version(&cfg);
    EXPECT_FALSE(cfg.feat_pmuv3_extpmn);
}

TEST_F(Extpmn, I5_3_47_PmccrColdResetsToNoThirdRangeAndOnlyAMostSecureAccessReachesIt)
{
    init();
    pmvp_ext_effect e{};
    EXPECT_EQ(ext_read(kPmccr, PMVP_SECURE, 0, &e), 6u);  // EPMN = N, EPME 0, OSLO 0
    EXPECT_EQ(e, PMVP_EXT_DONE);
    EXPECT_EQ(ext_read(kPmccr, PMVP_NONSECURE, 0, &e), 0u);
    EXPECT_EQ(e, PMVP_EXT_RAZ_WI);
    ext_write(kPmccr, 2, PMVP_NONSECURE, 0, &e);
    EXPECT_EQ(e, PMVP_EXT_RAZ_WI);
    EXPECT_EQ(ext_read(kPmccr, PMVP_SECURE, 0), 6u);
    // RES0 bits stay 0; a 64-bit access reaches the whole register.
    ext_write(kPmccr, ~UINT64_C(0), PMVP_SECURE, 0, nullptr, 8);
    EXPECT_EQ(ext_read(kPmccr, PMVP_SECURE, 0, nullptr, 8), PMVP_PMCCR_OSLO | PMVP_PMCCR_EPME | PMVP_PMCCR_EPMN);
    // PMDEVID.EXTPMN says the feature is there.
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMDEVID_EXTPMN, ext_read(0xFC8, PMVP_NONSECURE, 0)), 1u);
    // Off or with the OS Double Lock: an error; the OS Lock does not apply.
    pmvp_pmu_controls ctl{};
    ASSERT_EQ(pmvp_core_controls(&core, 0, &ctl), PMVP_OK);
    ctl.os_lock = true;
    ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
    EXPECT_EQ(ext_read(kPmccr, PMVP_SECURE, 0, &e), PMVP_PMCCR_OSLO | PMVP_PMCCR_EPME | 31u);
    ctl.os_double_lock = true;
    ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
    pmvp_ext_access a = access(PMVP_SECURE);
    uint64_t v = 0;
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, kPmccr, 4, &a, 0, &v, nullptr), PMVP_ERR_LOCKED);
}

TEST_F(Extpmn, HVGXL_CountersReservedBeforeSoftwareRuns)
{
    cfg.extpmn_reserved = 2;
    init();
    EXPECT_EQ(ext_read(kPmccr, PMVP_SECURE, 0), 4u);  // EPMN = 6 - 2, EPME 0
    uint64_t v = 0;
    EXPECT_EQ(msr_mrs(false, 9, 12, 0, &v, 0).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMCR_EL0_N, v), 4u);
    // A Warm reset leaves PMCCR as the agent left it.
    reserve(5, true, 1 * kUs);
    ASSERT_EQ(pmvp_pmu_reset(&core, 0, 2 * kUs), PMVP_OK);
    EXPECT_EQ(ext_read(kPmccr, PMVP_SECURE, 2 * kUs), PMVP_PMCCR_EPME | 5u);
}

TEST(ExtpmnConfig, ReservedCountersNeedTheFeatureAndAtMostN)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.extpmn_reserved = 1;
    pmvp_core core;
    const char *why = nullptr;
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_ERR_CONFIG);
    EXPECT_STREQ(why, "extpmn_reserved: reserving counters for an external agent needs FEAT_PMUv3_EXTPMN "
                      "(feat_pmuv3_extpmn)");
    cfg.feat_pmuv3_extpmn = true;
    cfg.extpmn_reserved = 7;
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_ERR_CONFIG);
    EXPECT_STREQ(why, "extpmn_reserved: more counters than num_counters");
    cfg.extpmn_reserved = 6;
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_OK) << why;
}

TEST_F(Extpmn, WithoutTheFeatureThereIsNoPmccrAndNoThirdRange)
{
    cfg.feat_pmuv3_extpmn = false;
    init();
    pmvp_ext_effect e{};
    ext_write(kPmccr, 2 | PMVP_PMCCR_EPME, PMVP_SECURE, 0, &e);
    EXPECT_EQ(e, PMVP_EXT_RAZ_WI);
    EXPECT_EQ(ext_read(kPmccr, PMVP_SECURE, 0, &e), 0u);
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMDEVID_EXTPMN, ext_read(0xFC8, PMVP_SECURE, 0)), 0u);
    program(0, 5, PMVP_EV_CPU_CYCLES);
    EXPECT_EQ(counter(0, 5, 1 * kUs), 1000u);  // the first range's, enabled by PMCR.E
}

TEST_F(Extpmn, TableD13_4_EpmeEnablesTheThirdRangeAlone)
{
    init();
    reserve(4, false);
    program(0, 1, PMVP_EV_CPU_CYCLES);  // first range: PMCR.E (program sets it)
    program(0, 4, PMVP_EV_CPU_CYCLES);  // third range
    write(0, PMVP_PMEVTYPER_EL0, PMVP_EV_CPU_CYCLES, 0, 5);
    write(0, PMVP_PMCNTENSET_EL0, 1u << 5, 0);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6) | PMVP_MDCR_EL2_HPME, PMVP_MDCR_EL3_MTPME, 0);
    EXPECT_EQ(counter(0, 1, 1 * kUs), 1000u);
    EXPECT_EQ(counter(0, 4, 1 * kUs), 0u);  // neither PMCR.E nor HPME enables it
    reserve(4, true, 1 * kUs);
    write(0, PMVP_PMCR_EL0, 0, 2 * kUs);
    EXPECT_EQ(counter(0, 1, 3 * kUs), 2000u);
    EXPECT_EQ(counter(0, 4, 3 * kUs), 2000u);
    EXPECT_EQ(counter(0, 5, 3 * kUs), 2000u);
    // EPMN back to N: HPMN 6 no longer clamped, counters 4 and 5 are the
    // first range's, and PMCR.E is 0 now.
    reserve(6, true, 3 * kUs);
    EXPECT_EQ(counter(0, 4, 4 * kUs), 2000u);
}

TEST_F(Extpmn, MFYQC_HpmnAboveEpmnIsEpmn)
{
    init();
    reserve(4, true);
    // HPMN 6 > EPMN 4: the Effective HPMN is 4, as EL1 sees it in PMCR.N,
    // and PMEVCNTR4_EL0 is beyond the self-hosted counters (UNDEFINED), not
    // beyond HPMN (a trap to EL2).
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6) | PMVP_MDCR_EL2_HPME, PMVP_MDCR_EL3_MTPME, 0);
    uint64_t v = 0;
    EXPECT_EQ(msr_mrs(false, 9, 12, 0, &v, 0).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMCR_EL0_N, v), 4u);
    EXPECT_EQ(msr_mrs(false, 14, 8, 4, &v, 0).verdict, PMVP_SYSREG_UNDEFINED);
    // PMCR.P written at EL1 resets the four counters EL1 has.
    program(0, 3, PMVP_EV_CPU_CYCLES);
    program(0, 4, PMVP_EV_CPU_CYCLES);
    v = PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_P;
    EXPECT_EQ(msr_mrs(true, 9, 12, 0, &v, 1 * kUs).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(counter(0, 3, 2 * kUs), 1000u);
    EXPECT_EQ(counter(0, 4, 2 * kUs), 2000u);
}

TEST_F(Extpmn, D13_5_4_SpmeMpmxAndHpmdDoNotProhibitTheThirdRange)
{
    init();
    reserve(3, true);
    program(0, 0, PMVP_EV_CPU_CYCLES, PMVP_PMEVTYPER_EL0_NSH);  // first range; M == P: EL3 not filtered
    program(0, 3, PMVP_EV_CPU_CYCLES, PMVP_PMEVTYPER_EL0_NSH);  // third range
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 3) | PMVP_MDCR_EL2_HPMD, PMVP_MDCR_EL3_MTPME | PMVP_MDCR_EL3_MPMX,
             0);
    context(0, 1, PMVP_SECURE, 0);           // Secure EL1 without SPME (MPMX allows it: RGNGCW)
    context(0, 3, PMVP_SECURE, 1 * kUs);     // EL3 with MPMX and without SPME: prohibited
    context(0, 2, PMVP_NONSECURE, 2 * kUs);  // EL2 with HPMD: prohibited for the first range
    context(0, 1, PMVP_NONSECURE, 3 * kUs);
    EXPECT_EQ(counter(0, 0, 4 * kUs), 2000u);  // Secure EL1 and Non-secure EL1
    EXPECT_EQ(counter(0, 3, 4 * kUs), 4000u);  // every one of them
}

TEST_F(Extpmn, D13_3_TheThirdRangeOverflowsAtBit63AndRequestsPmuirqWithEpme)
{
    init();
    reserve(4, false);
    program(0, 4, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMINTENSET_EL1, 1u << 4, 0);
    write(0, PMVP_PMEVCNTR_EL0, UINT32_MAX - 99, 0, 4);  // PMCR.LP and MDCR_EL2.HLP are 0
    reserve(4, true, 0);
    EXPECT_EQ(counter(0, 4, 1 * kUs), UINT64_C(0x100000000) + 900);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 1 * kUs), 0u);
    write(0, PMVP_PMEVCNTR_EL0, UINT64_MAX - 999, 1 * kUs, 4);
    EXPECT_EQ(next_event(1 * kUs), 2 * kUs);
    EXPECT_FALSE(irq(0, 2 * kUs - 1));
    EXPECT_TRUE(irq(0, 2 * kUs));
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 2 * kUs), 1u << 4);
    // EPME is the range's global enable for the request too.
    reserve(4, false, 3 * kUs);
    EXPECT_FALSE(irq(0, 3 * kUs));
}

TEST_F(Extpmn, D13_5_2_1_TheThirdRangeNeitherFreezesNorIsFrozen)
{
    init();
    reserve(2, true);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 1) | PMVP_MDCR_EL2_HPME | PMVP_MDCR_EL2_HPMFZO, PMVP_MDCR_EL3_MTPME,
             0);
    for (unsigned n : { 0u, 1u, 2u, 3u })
        program(0, n, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    // Counter 2, third range, overflows at 1 us: nothing freezes.
    write(0, PMVP_PMEVCNTR_EL0, UINT64_MAX - 999, 0, 2);
    EXPECT_EQ(counter(0, 0, 2 * kUs), 2000u);
    EXPECT_EQ(counter(0, 1, 2 * kUs), 2000u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 2 * kUs), 1u << 2);
    // Counter 0 (first range) overflows at 3 us, counter 1 (second) at 4 us:
    // each freezes its range; counter 3 counts on.
    write(0, PMVP_PMEVCNTR_EL0, UINT32_MAX - 999, 2 * kUs, 0);
    write(0, PMVP_PMEVCNTR_EL0, UINT32_MAX - 1999, 2 * kUs, 1);
    pmvp_time when = 0;
    ASSERT_EQ(pmvp_core_next_freeze(&core, 2 * kUs, &when), PMVP_OK);
    EXPECT_EQ(when, 3 * kUs);
    EXPECT_EQ(counter(0, 0, 10 * kUs), UINT64_C(0x100000000));  // carried into bit 32 (PMUv3p5), then frozen
    EXPECT_EQ(counter(0, 1, 10 * kUs), UINT64_C(0x100000000));
    EXPECT_EQ(counter(0, 3, 10 * kUs), 10000u);
}

TEST_F(Extpmn, D14_3_ChainAtEpmnCountsTheRangeBelowAndNoChainAboveTheThirdRange)
{
    init();
    reserve(5, true);
    program(0, 4, PMVP_EV_CPU_CYCLES);
    program(0, 5, PMVP_EV_CHAIN);
    write(0, PMVP_PMEVCNTR_EL0, UINT32_MAX - 999, 0, 4);
    // <n+1> == EPMN: UNPREDICTABLE whether it counts; pmvp counts it, as at HPMN.
    EXPECT_EQ(counter(0, 5, 2 * kUs), 1u);
    // An even counter in the third range overflows at bit 63: no CHAIN.
    reserve(4, true, 2 * kUs);
    write(0, PMVP_PMEVCNTR_EL0, UINT32_MAX - 999, 2 * kUs, 4);
    EXPECT_EQ(counter(0, 4, 4 * kUs), UINT64_C(0x100000000) + 1000);
    EXPECT_EQ(counter(0, 5, 4 * kUs), 1u);
}

TEST_F(Extpmn, ZCCDD_NNBYQ_PmcrNReadsEpmnOrHpmnAndTheThirdRangeIsUndefinedToSystemRegisters)
{
    init();
    reserve(4, true);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 2), PMVP_MDCR_EL3_MTPME, 0);
    uint64_t v = 0;
    context(0, 2, PMVP_NONSECURE, 0);
    EXPECT_EQ(msr_mrs(false, 9, 12, 0, &v, 0).verdict, PMVP_SYSREG_PERMITTED);  // PMCR_EL0
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMCR_EL0_N, v), 4u);
    context(0, 1, PMVP_NONSECURE, 0);
    EXPECT_EQ(msr_mrs(false, 9, 12, 0, &v, 0).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMCR_EL0_N, v), 2u);
    // PMEVCNTR4_EL0 (CRm 0b1000, op2 4): GetNumEventCountersSelfHosted() is
    // EPMN, so UNDEFINED at every Exception level with FEAT_FGT.
    for (uint8_t el : { 1, 2, 3 }) {
        context(0, el, el == 3 ? PMVP_SECURE : PMVP_NONSECURE, 0);
        EXPECT_EQ(msr_mrs(false, 14, 8, 4, &v, 0).verdict, PMVP_SYSREG_UNDEFINED) << int(el);
        EXPECT_EQ(msr_mrs(false, 14, 8, 3, &v, 0).verdict, el == 1 ? PMVP_SYSREG_TRAP : PMVP_SYSREG_PERMITTED);
    }
    // PMCNTENSET_EL0 at EL3: bits 4 and 5 RAZ/WI.
    write(0, PMVP_PMCNTENSET_EL0, 0x3F, 0);
    v = 0;
    EXPECT_EQ(msr_mrs(false, 9, 12, 1, &v, 0).verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(v, 0xFu);
    v = 0x30;
    EXPECT_EQ(msr_mrs(true, 9, 12, 2, &v, 0).verdict, PMVP_SYSREG_PERMITTED);  // PMCNTENCLR_EL0
    EXPECT_EQ(read(0, PMVP_PMCNTENSET_EL0, 0), 0x3Fu);
}

TEST_F(Extpmn, TableI3_3_RDQYGL_TheThirdRangeIsRazWiToAnAccessNotMostSecure)
{
    init();
    reserve(4, true);
    program(0, 5, PMVP_EV_CPU_CYCLES);
    pmvp_ext_effect e{};
    // PMEVCNTR5_EL0 at 0x000 + 8 * 5 (EXT32: low word).
    EXPECT_EQ(ext_read(0x28, PMVP_SECURE, 1 * kUs, &e), 1000u);
    EXPECT_EQ(ext_read(0x28, PMVP_NONSECURE, 1 * kUs, &e), 0u);
    EXPECT_EQ(e, PMVP_EXT_RAZ_WI);
    ext_write(0x28, 7, PMVP_NONSECURE, 1 * kUs);
    EXPECT_EQ(ext_read(0x414, PMVP_NONSECURE, 1 * kUs), 0u);  // PMEVTYPER5_EL0
    EXPECT_EQ(ext_read(0x414, PMVP_SECURE, 1 * kUs), PMVP_EV_CPU_CYCLES);
    // PMCNTENSET_EL0: bit 5 hidden, and kept by a write of 0 from the other side.
    write(0, PMVP_PMCNTENSET_EL0, 1u << 0, 1 * kUs);
    EXPECT_EQ(ext_read(0xC00, PMVP_NONSECURE, 1 * kUs), 1u << 0);
    EXPECT_EQ(ext_read(0xC00, PMVP_SECURE, 1 * kUs), (1u << 0) | (1u << 5));
    ext_write(0xC20, 0x3F, PMVP_NONSECURE, 1 * kUs);  // PMCNTENCLR_EL0
    EXPECT_EQ(read(0, PMVP_PMCNTENSET_EL0, 1 * kUs), 1u << 5);
    // PMCFGR.N: EPMN to the one, N to the other.
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMCFGR_N, ext_read(0xE00, PMVP_NONSECURE, 1 * kUs)), 4u);
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMCFGR_N, ext_read(0xE00, PMVP_SECURE, 1 * kUs)), 6u);
    // PMCR.P (0xE04) from the other side leaves the third range.
    ext_write(0xE04, PMVP_PMCR_EL0_P, PMVP_NONSECURE, 2 * kUs);
    EXPECT_EQ(counter(0, 5, 3 * kUs), 3000u);
    ext_write(0xE04, PMVP_PMCR_EL0_P, PMVP_SECURE, 3 * kUs);
    EXPECT_EQ(counter(0, 5, 4 * kUs), 1000u);
}

TEST_F(Extpmn, I3_1_4_OsloLetsAMostSecureAccessIgnoreTheOsLock)
{
    init();
    pmvp_pmu_controls ctl{};
    ASSERT_EQ(pmvp_core_controls(&core, 0, &ctl), PMVP_OK);
    ctl.os_lock = true;
    ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
    uint64_t v = 0;
    pmvp_ext_access s = access(PMVP_SECURE), ns = access(PMVP_NONSECURE);
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0xE04, 4, &s, 0, &v, nullptr), PMVP_ERR_LOCKED);
    ext_write(kPmccr, PMVP_PMCCR_OSLO | 6, PMVP_SECURE, 0);
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0xE04, 4, &s, 0, &v, nullptr), PMVP_OK);
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0xE04, 4, &ns, 0, &v, nullptr), PMVP_ERR_LOCKED);
}

TEST_F(Extpmn, D24_5_AWarmResetLeavesTheCountersOfTheExternalAgent)
{
    init();
    reserve(4, true);
    program(0, 5, PMVP_EV_CPU_CYCLES);
    write(0, PMVP_PMCNTENSET_EL0, PMVP_PMU_C, 0);
    write(0, PMVP_PMINTENSET_EL1, 1u << 5, 0);
    ASSERT_EQ(pmvp_pmu_reset(&core, 0, 1 * kUs), PMVP_OK);
    // PMCCR is reset by a Cold reset only; the counter, its filter and its
    // enable bits are kept with FEAT_PMUv3_EXTPMN; PMCR.E resets to 0.
    EXPECT_EQ(ext_read(kPmccr, PMVP_SECURE, 1 * kUs), PMVP_PMCCR_EPME | 4u);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 1 * kUs, 5), PMVP_EV_CPU_CYCLES);
    EXPECT_EQ(read(0, PMVP_PMCNTENSET_EL0, 1 * kUs), (1u << 5) | PMVP_PMU_C);
    EXPECT_EQ(read(0, PMVP_PMINTENSET_EL1, 1 * kUs), 1u << 5);
    EXPECT_EQ(read(0, PMVP_PMCR_EL0, 1 * kUs) & PMVP_PMCR_EL0_E, 0u);
    EXPECT_EQ(counter(0, 5, 3 * kUs), 3000u);  // EPME still enables it
    // Without the feature, the same reset clears them.
    cfg.feat_pmuv3_extpmn = false;
    init();
    program(0, 5, PMVP_EV_CPU_CYCLES);
    ASSERT_EQ(pmvp_pmu_reset(&core, 0, 1 * kUs), PMVP_OK);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 1 * kUs, 5), 0u);
    EXPECT_EQ(counter(0, 5, 1 * kUs), 0u);
}

TEST_F(Extpmn, PmccrSurvivesACheckpoint)
{
    init();
    reserve(3, true);
    save_and_restore();
    EXPECT_EQ(ext_read(kPmccr, PMVP_SECURE, 0), PMVP_PMCCR_EPME | 3u);
}

}  // namespace
}  // namespace pmvp::test
