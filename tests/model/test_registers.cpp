// SPDX-License-Identifier: Apache-2.0
// The PMU register file (D24.5): reset values, implemented bits, indirection.
#include <string>
#include <vector>

#include "fixture.h"
#include "pmvp/amu.h"
#include "pmvp/sysreg.h"

namespace pmvp::test {
namespace {

using Registers = Kernel;

TEST_F(Registers, PMCR_N_ReadsNumPmuCounters)
{
    cfg.num_counters = 31;
    init();
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMCR_EL0_N, read(0, PMVP_PMCR_EL0, 0)), 31u);
}

TEST_F(Registers, PMCR_LC_IsRes1AndDIsRes0WithoutAArch32)
{
    cfg.have_aarch32 = false;
    init();
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_D, 0);
    uint64_t v = read(0, PMVP_PMCR_EL0, 0);
    EXPECT_TRUE(v & PMVP_PMCR_EL0_LC);
    EXPECT_FALSE(v & PMVP_PMCR_EL0_D);
}

TEST_F(Registers, PMCR_WriteOnlyAndUnimplementedBitsReadAsZero)
{
    init();
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_P | PMVP_PMCR_EL0_C | PMVP_PMCR_EL0_X | PMVP_PMCR_EL0_FZO | PMVP_BIT(40), 0);
    EXPECT_EQ(read(0, PMVP_PMCR_EL0, 0) & ~PMVP_PMCR_EL0_N, 0u);
}

TEST_F(Registers, PMCR_ImpAndIdcode)
{
    cfg.pmcr_imp = 0x41;
    cfg.pmcr_idcode = 0x12;
    init();
    uint64_t v = read(0, PMVP_PMCR_EL0, 0);
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMCR_EL0_IMP, v), 0x41u);
    EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMCR_EL0_IDCODE, v), 0x12u);
}

TEST_F(Registers, PMCR_P_ResetsOnlyTheFirstRangeFromEl1)
{
    init();
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4), 0, 0);
    for (unsigned n = 0; n < 6; n++)
        write(0, PMVP_PMEVCNTR_EL0, 100 + n, 0, n);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_P, 0);
    EXPECT_EQ(counter(0, 3, 0), 0u);
    EXPECT_EQ(counter(0, 4, 0), 104u);
    context(0, 2, PMVP_NONSECURE, 0);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_P, 0);
    EXPECT_EQ(counter(0, 4, 0), 0u);
}

TEST_F(Registers, PMCR_C_ResetsCycleCounterButNotItsOverflowFlag)
{
    init();
    write(0, PMVP_PMCCNTR_EL0, 1234, 0);
    write(0, PMVP_PMOVSSET_EL0, PMVP_PMU_C, 0);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_C, 0);
    EXPECT_EQ(cycles(0, 0), 0u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, 0), PMVP_PMU_C);
}

TEST_F(Registers, SetAndClearPairsShareOneState)
{
    init();  // 6 counters: P<6..30> are RAZ/WI
    write(0, PMVP_PMCNTENSET_EL0, 0xFFFFFFFFu, 0);
    EXPECT_EQ(read(0, PMVP_PMCNTENCLR_EL0, 0), 0x8000003Fu);
    write(0, PMVP_PMCNTENCLR_EL0, 0x80000001u, 0);
    EXPECT_EQ(read(0, PMVP_PMCNTENSET_EL0, 0), 0x3Eu);
    write(0, PMVP_PMINTENSET_EL1, 0x3, 0);
    write(0, PMVP_PMINTENCLR_EL1, 0x1, 0);
    EXPECT_EQ(read(0, PMVP_PMINTENSET_EL1, 0), 0x2u);
    write(0, PMVP_PMOVSSET_EL0, 0x5, 0);
    write(0, PMVP_PMOVSCLR_EL0, 0x4, 0);
    EXPECT_EQ(read(0, PMVP_PMOVSCLR_EL0, 0), 0x1u);
}

TEST_F(Registers, PMXEVTYPER_SelectsByPmselrAndSel31IsPmccfiltr)
{
    init();
    write(0, PMVP_PMSELR_EL0, 3, 0);
    write(0, PMVP_PMXEVTYPER_EL0, PMVP_EV_INST_RETIRED | PMVP_PMEVTYPER_EL0_U, 0);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0, 3), PMVP_EV_INST_RETIRED | PMVP_PMEVTYPER_EL0_U);
    write(0, PMVP_PMXEVCNTR_EL0, 77, 0);
    EXPECT_EQ(counter(0, 3, 0), 77u);
    write(0, PMVP_PMSELR_EL0, 31, 0);
    write(0, PMVP_PMXEVTYPER_EL0, PMVP_PMEVTYPER_EL0_P | 0x11, 0);
    EXPECT_EQ(read(0, PMVP_PMCCFILTR_EL0, 0), PMVP_PMEVTYPER_EL0_P);  // no evtCount in PMCCFILTR
}

TEST_F(Registers, PMXEVCNTR_WithUnimplementedSelectionIsRazWiAndLogged)
{
    std::vector<std::string> log;
    cfg.log = [](void *user, unsigned, const char *msg) {
        static_cast<std::vector<std::string> *>(user)->push_back(msg);
    };
    cfg.log_user = &log;
    init();
    write(0, PMVP_PMSELR_EL0, 10, 0);  // only 6 counters
    write(0, PMVP_PMXEVCNTR_EL0, 5, 0);
    EXPECT_EQ(read(0, PMVP_PMXEVCNTR_EL0, 0), 0u);
    write(0, PMVP_PMSELR_EL0, 31, 0);  // PMXEVCNTR with SEL == 31 is CONSTRAINED UNPREDICTABLE
    EXPECT_EQ(read(0, PMVP_PMXEVCNTR_EL0, 0), 0u);
    EXPECT_EQ(log.size(), 3u);
    for (unsigned n = 0; n < 6; n++)
        EXPECT_EQ(counter(0, n, 0), 0u);
}

TEST_F(Registers, PMEVTYPER_KeepsOnlyImplementedFilterBits)
{
    cfg.have_el3 = false;
    cfg.have_el2 = false;
    init();
    write(0, PMVP_PMEVTYPER_EL0, ~0ull, 0, 0);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0, 0),
              PMVP_PMEVTYPER_EL0_P | PMVP_PMEVTYPER_EL0_U | PMVP_PMEVTYPER_EL0_MT | PMVP_PMEVTYPER_EL0_evtCount);
}

TEST_F(Registers, PMEVTYPER_EvtCountIs10BitsBeforePMUv3p1)
{
    cfg.pmu_version = PMVP_PMUV3;
    pmvp_core_config_limit_to_version(&cfg);
    init();
    write(0, PMVP_PMEVTYPER_EL0, 0x4004, 0, 0);
    EXPECT_EQ(read(0, PMVP_PMEVTYPER_EL0, 0, 0), 0x004u);
}

TEST_F(Registers, PMCEID_IsDerivedFromTheSupportedEvents)
{
    const uint16_t events[] = { PMVP_EV_SW_INCR, PMVP_EV_CPU_CYCLES, PMVP_EV_STALL_BACKEND, PMVP_EV_CNT_CYCLES,
                                0xC000 };
    cfg.events = events;
    cfg.num_events = 5;
    init();
    EXPECT_EQ(read(0, PMVP_PMCEID0_EL0, 0), (1ull << 0) | (1ull << 17) | (1ull << 36));
    EXPECT_EQ(read(0, PMVP_PMCEID1_EL0, 0), 1ull << 4);
    EXPECT_EQ(pmvp_pmu_write(&core, 0, PMVP_PMCEID0_EL0, 0, 0, 0), PMVP_ERR_READ_ONLY);
}

TEST_F(Registers, PMCEID_UpperHalvesNeedPMUv3p1)
{
    cfg.pmu_version = PMVP_PMUV3;
    pmvp_core_config_limit_to_version(&cfg);
    init();
    EXPECT_EQ(read(0, PMVP_PMCEID0_EL0, 0) >> 32, 0u);
}

TEST_F(Registers, ResetRestoresResetValuesAndKeepsControls)
{
    init();
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 3), 0, 0);
    enable_cycle_counter(0);
    write(0, PMVP_PMEVCNTR_EL0, 9, 0, 1);
    ASSERT_EQ(pmvp_pmu_reset(&core, 0, 5 * kNs), PMVP_OK);
    EXPECT_EQ(read(0, PMVP_PMCR_EL0, 5 * kNs) & PMVP_PMCR_EL0_E, 0u);
    EXPECT_EQ(cycles(0, 10 * kNs), 0u);
    EXPECT_EQ(counter(0, 1, 10 * kNs), 0u);
    EXPECT_EQ(core.pe[0].pmu.ctl.mdcr_el2, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 3));
}

TEST_F(Registers, RegisterNamesComeFromTheTable)
{
    EXPECT_STREQ(pmvp_pmu_reg_name(PMVP_PMCCNTR_EL0), "PMCCNTR_EL0");
    EXPECT_TRUE(pmvp_pmu_reg_indexed(PMVP_PMEVTYPER_EL0));
    EXPECT_FALSE(pmvp_pmu_reg_indexed(PMVP_PMCR_EL0));
    EXPECT_EQ(pmvp_pmu_reg_name(PMVP_PMU_NUM_REGS), nullptr);
}

TEST_F(Registers, PMMIR_ExistsFromPMUv3p4)
{
    cfg.pmu_version = PMVP_PMUV3P1;
    pmvp_core_config_limit_to_version(&cfg);
    init();
    uint64_t v = 0;
    EXPECT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMMIR_EL1, 0, 0, &v), PMVP_ERR_REGISTER);
    cfg.pmu_version = PMVP_PMUV3P4;
    pmvp_core_config_limit_to_version(&cfg);
    cfg.pmmir = 0x1234;
    init();
    EXPECT_EQ(read(0, PMVP_PMMIR_EL1, 0), 0x1234u);
}

// One gate per register (registers.def): the register file refuses a
// register (PMVP_ERR_REGISTER) exactly when its MRS at the highest
// Exception level is UNDEFINED, in every configuration of the gates.
TEST_F(Registers, TheRegisterFileAndTheAccessChecksAgreeOnEveryGate)
{
    const pmvp_pmu_version versions[] = { PMVP_PMUV3, PMVP_PMUV3P1, PMVP_PMUV3P4, PMVP_PMUV3P5 };
    int configurations = 0;
    for (pmvp_pmu_version v : versions)
        for (unsigned features = 0; features < 16; features++) {
            pmvp_core_config_default(&cfg);
            cfg.pmu_version = v;
            pmvp_core_config_limit_to_version(&cfg);
            cfg.feat_ebep = features & 1;
            cfg.feat_sebep = cfg.feat_ebep && (features & 2);
            cfg.feat_amuv1 = features & 4;
            cfg.feat_amuv1p1 = cfg.feat_amuv1 && (features & 8);
            cfg.amu_num_aux = 2;
            cfg.amu_aux_offsets = cfg.feat_amuv1p1 ? 0x3 : 0; /* instance 0 of AMEVCNTVOFF1_EL2 exists */
            if (pmvp_core_init(&core, &cfg) != PMVP_OK)
                continue;
            configurations++;
            size_t count = 0;
            const pmvp_sysreg_encoding *t = pmvp_sysreg_encodings(PMVP_MRS, &count);
            for (size_t i = 0; i < count; i++) {
                pmvp_sysreg r{ PMVP_MRS, t[i].family, t[i].reg, 0, t[i].part };
                pmvp_sysreg_context x{};
                ASSERT_EQ(pmvp_sysreg_context_of(&core, 0, &x), PMVP_OK);
                x.el = 3;
                pmvp_sysreg_outcome o{};
                ASSERT_EQ(pmvp_sysreg_check(&cfg, &r, &x, &o), PMVP_OK);
                uint64_t value = 0;
                int err = t[i].family == PMVP_SYSREG_PMU
                              ? pmvp_pmu_read(&core, 0, (pmvp_pmu_reg)t[i].reg, 0, 0, &value)
                              : pmvp_amu_read(&core, 0, (pmvp_amu_reg)t[i].reg, 0, 0, &value);
                bool undefined = o.verdict == PMVP_SYSREG_UNDEFINED;
                bool write_only = t[i].family == PMVP_SYSREG_PMU && t[i].reg == PMVP_PMSWINC_EL0;
                if (!write_only) {
                    EXPECT_EQ(err == PMVP_ERR_REGISTER, undefined)
                        << pmvp_sysreg_name(&r) << " with PMU version " << v << ", features " << features;
                }
            }
        }
    // Every combination the versions permit (FEAT_EBEP needs PMUv3p5,
    // FEAT_AMUv1 PMUv3p4, FEAT_AMUv1p1 PMUv3p5): 4 with PMUv3 and with
    // PMUv3p1, 6 with PMUv3p4, 16 with PMUv3p5.
    EXPECT_EQ(configurations, 30);
}

}  // namespace
}  // namespace pmvp::test
