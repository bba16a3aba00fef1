// SPDX-License-Identifier: Apache-2.0
// The register catalogue (catalogue.h) against the model: every register
// described, fields that do not overlap, and no bit the model implements
// outside a listed field; the encoding table and the event class names.
#include <cstring>
#include <string>

#include "fixture.h"
#include "pmvp/amu.h"
#include "pmvp/catalogue.h"
#include "pmvp/sysreg.h"

namespace pmvp::test {
namespace {

unsigned num_regs(pmvp_sysreg_family f)
{
    return f == PMVP_SYSREG_PMU ? unsigned{ PMVP_PMU_NUM_REGS } : unsigned{ PMVP_AMU_NUM_REGS };
}

// The union of a register's fields; fails the test if two overlap.
uint64_t field_bits(const pmvp_reg_desc *d, const std::string &name)
{
    uint64_t all = 0;
    for (size_t i = 0; i < d->num_fields; i++) {
        EXPECT_NE(d->fields[i].mask, 0u) << name << "." << d->fields[i].name;
        EXPECT_EQ(all & d->fields[i].mask, 0u) << name << "." << d->fields[i].name << " overlaps";
        all |= d->fields[i].mask;
    }
    return all;
}

TEST(Catalogue, EveryRegisterIsDescribed)
{
    for (auto f : { PMVP_SYSREG_PMU, PMVP_SYSREG_AMU })
        for (unsigned reg = 0; reg < num_regs(f); reg++) {
            const pmvp_reg_desc *d = pmvp_reg_desc_of(f, reg);
            ASSERT_NE(d, nullptr);
            EXPECT_NE(d->title, nullptr) << f << ":" << reg;
            EXPECT_NE(d->section, nullptr) << f << ":" << reg;
            EXPECT_NE(d->feature, nullptr) << f << ":" << reg;
            EXPECT_GT(d->num_fields, 0u) << f << ":" << reg;
        }
    EXPECT_EQ(pmvp_reg_desc_of(PMVP_SYSREG_PMU, PMVP_PMU_NUM_REGS), nullptr);
    EXPECT_EQ(pmvp_reg_desc_of(PMVP_SYSREG_AMU, PMVP_AMU_NUM_REGS), nullptr);
    EXPECT_EQ(pmvp_reg_desc_of(static_cast<pmvp_sysreg_family>(2), 0), nullptr);
}

TEST(Catalogue, FieldsArePlacedAsTheArmArmPlacesThem)
{
    const pmvp_reg_desc *pmcr = pmvp_reg_desc_of(PMVP_SYSREG_PMU, PMVP_PMCR_EL0);
    ASSERT_EQ(pmcr->num_fields, 12u);
    EXPECT_STREQ(pmcr->fields[0].name, "IMP");
    EXPECT_EQ(pmcr->fields[0].mask, 0xFF000000u);
    EXPECT_STREQ(pmcr->fields[2].name, "N");
    EXPECT_EQ(pmcr->fields[2].mask, 0xF800u);
    const pmvp_reg_desc *evtyper = pmvp_reg_desc_of(PMVP_SYSREG_PMU, PMVP_PMEVTYPER_EL0);
    EXPECT_STREQ(evtyper->fields[evtyper->num_fields - 1].name, "evtCount");
    EXPECT_EQ(evtyper->fields[evtyper->num_fields - 1].mask, 0xFFFFu);
}

// With every feature, all ones written to each register (or, for read-only
// ones, what it reads) has no bit outside the register's fields. FEAT_SEBEP
// and FEAT_PMUv3_ICNTR are not configured together (core.c), nor PMCR.IMP
// and FEAT_PMUv3p7, which FEAT_PMUv3p9 needs: one run has FEAT_SEBEP and
// PMCR.IMP, the other FEAT_PMUv3_ICNTR, FEAT_PMUv3p9, FEAT_PMUv3_SS and
// FEAT_PMUv3_TH2.
class CatalogueCoversTheModel : public Kernel, public ::testing::WithParamInterface<bool> {};

TEST_P(CatalogueCoversTheModel, NoImplementedBitOutsideAField)
{
    cfg.num_counters = 31;
    cfg.have_el2 = cfg.have_el3 = cfg.feat_sel2 = cfg.feat_rme = true;
    cfg.have_aarch32 = true;
    cfg.feat_pmuv3p7 = cfg.feat_pmuv3p9 = cfg.feat_pmuv3_ss = GetParam();
    cfg.pmcr_imp = GetParam() ? 0 : 0x41;
    cfg.pmcr_idcode = GetParam() ? 0 : 0x12;
    cfg.pmu_version = PMVP_PMUV3P5;
    // Every field of PMMIR, THWIDTH and EDGE at their largest (FEAT_PMUv3_TH2
    // with a 12-bit TH), which need FEAT_PMUv3p7.
    cfg.pmmir = GetParam() ? 0x02CFFFFF : 0x000FFFFF;
    cfg.amu_num_aux = PMVP_AMU_MAX_AUX;
    cfg.amu_aux_offsets = 0xFFFF;
    cfg.feat_ebep = true;
    cfg.feat_sebep = !GetParam();
    cfg.feat_pmuv3_icntr = GetParam();
    init();
    for (auto f : { PMVP_SYSREG_PMU, PMVP_SYSREG_AMU })
        for (unsigned reg = 0; reg < num_regs(f); reg++) {
            const pmvp_reg_desc *d = pmvp_reg_desc_of(f, reg);
            std::string name = f == PMVP_SYSREG_PMU ? pmvp_pmu_reg_name(static_cast<pmvp_pmu_reg>(reg))
                                                    : pmvp_amu_reg_name(static_cast<pmvp_amu_reg>(reg));
            uint64_t bits = field_bits(d, name), v = 0;
            // The one feature this run leaves out has no registers.
            std::string feature = d->feature;
            if (GetParam()
                    ? feature == "FEAT_SEBEP"
                    : feature == "FEAT_PMUv3_ICNTR" || feature == "FEAT_PMUv3p9" || feature.find("FEAT_PMUv3_SS") == 0)
                continue;
            if (f == PMVP_SYSREG_PMU) {
                pmvp_pmu_write(&core, 0, static_cast<pmvp_pmu_reg>(reg), 0, ~UINT64_C(0), 0);
                ASSERT_EQ(pmvp_pmu_read(&core, 0, static_cast<pmvp_pmu_reg>(reg), 0, 0, &v), PMVP_OK);
            } else {
                pmvp_amu_write(&core, 0, static_cast<pmvp_amu_reg>(reg), 0, ~UINT64_C(0), 0);
                ASSERT_EQ(pmvp_amu_read(&core, 0, static_cast<pmvp_amu_reg>(reg), 0, 0, &v), PMVP_OK);
            }
            EXPECT_EQ(v & ~bits, 0u) << name << " reads bits outside its fields";
        }
}

INSTANTIATE_TEST_SUITE_P(SebepOrIcntrAndPmuv3p9, CatalogueCoversTheModel, ::testing::Bool());

TEST(Catalogue, EncodingTablesNameDescribedRegisters)
{
    size_t total = 0;
    for (auto op : { PMVP_MRS, PMVP_MRC, PMVP_MRRC }) {
        size_t count = 0;
        const pmvp_sysreg_encoding *t = pmvp_sysreg_encodings(op, &count);
        ASSERT_NE(t, nullptr);
        for (size_t i = 0; i < count; i++) {
            EXPECT_NE(pmvp_reg_desc_of(static_cast<pmvp_sysreg_family>(t[i].family), t[i].reg), nullptr);
            EXPECT_EQ(t[i].name == nullptr, op == PMVP_MRS) << "AArch32 encodings carry their own name";
        }
        total += count;
    }
    // MRS/MSR: 29 PMU and 15 AMU registers. MRC/MCR: 19 PMU (PMECR_EL1,
    // PMIAR_EL1, PMICNTR_EL0, PMICFILTR_EL0, PMUACR_EL1, PMZR_EL0 and the
    // snapshot registers are AArch64 only) plus
    // PMCEID2/3 (two more) and 11 AMU (AMEVCNTR0/1 are 64-bit, MRRC/MCRR
    // only, as is PMCCNTR's second encoding; AMEVCNTVOFF0/1_EL2 are
    // AArch64 only).
    EXPECT_EQ(total, 44u + 32u + 3u);
    size_t count = 1;
    EXPECT_EQ(pmvp_sysreg_encodings(static_cast<pmvp_sysreg_op>(6), &count), nullptr);
    EXPECT_EQ(count, 0u);
}

TEST(Catalogue, EveryEventClassHasAName)
{
    for (size_t i = 0; i < pmvp_event_count(); i++)
        EXPECT_NE(pmvp_event_class_name(pmvp_event_at(i)->cls), nullptr) << pmvp_event_at(i)->name;
    EXPECT_STREQ(pmvp_event_class_name(PMVP_EVCLASS_STALL), "STALL");
    EXPECT_EQ(pmvp_event_class_name(static_cast<pmvp_event_class>(99)), nullptr);
}

}  // namespace
}  // namespace pmvp::test
