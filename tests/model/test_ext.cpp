// SPDX-License-Identifier: Apache-2.0
// The external PMU and AMU frames (I3, I4, I5): values, masks, reset,
// set/clear, halves, RAZ/WI, access checks, the debug path, and a fuzz test.
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fixture.h"
#include "pmvp/amu.h"
#include "pmvp/ext.h"

namespace pmvp::test {
namespace {

constexpr pmvp_ext_access kNonSecure{ PMVP_NONSECURE, false };
constexpr pmvp_ext_access kSecure{ PMVP_SECURE, false };
constexpr pmvp_ext_access kDebugger{ PMVP_NONSECURE, true };

class Ext : public Kernel {
protected:
    uint32_t at(pmvp_frame f, const char *name, unsigned n = 0)
    {
        uint32_t off = 0;
        EXPECT_EQ(pmvp_ext_find(&core, f, name, n, &off), PMVP_OK) << name;
        return off;
    }
    // A 4- or 8-byte access that must succeed; returns the value or effect.
    uint64_t rd(pmvp_frame f, uint32_t off, pmvp_time t, unsigned size = 4, const pmvp_ext_access &a = kNonSecure,
                unsigned pe = 0)
    {
        uint64_t v = 0;
        EXPECT_EQ(pmvp_ext_read(&core, pe, f, off, size, &a, t, &v, &effect), PMVP_OK) << std::hex << off;
        return v;
    }
    void wr(pmvp_frame f, uint32_t off, uint64_t v, pmvp_time t, unsigned size = 4,
            const pmvp_ext_access &a = kNonSecure, unsigned pe = 0)
    {
        EXPECT_EQ(pmvp_ext_write(&core, pe, f, off, size, v, &a, t, &effect), PMVP_OK) << std::hex << off;
    }
    uint64_t pmu(const char *name, pmvp_time t, unsigned n = 0, unsigned size = 4)
    {
        return rd(PMVP_FRAME_PMU, at(PMVP_FRAME_PMU, name, n), t, size);
    }
    void set_pmu(const char *name, uint64_t v, pmvp_time t, unsigned n = 0, unsigned size = 4)
    {
        wr(PMVP_FRAME_PMU, at(PMVP_FRAME_PMU, name, n), v, t, size);
    }
    void debug_controls(bool os_lock, bool double_lock, uint64_t mdcr_el3 = PMVP_MDCR_EL3_MTPME)
    {
        pmvp_pmu_controls ctl = core.pe[0].pmu.ctl;
        ctl.os_lock = os_lock;
        ctl.os_double_lock = double_lock;
        ctl.mdcr_el3 = mdcr_el3;
        ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, core.last_call), PMVP_OK);
    }

    pmvp_ext_effect effect = PMVP_EXT_DONE;
    uint64_t value_ = 0;
};

// I5.3.11 PMCFGR.FZO: freeze on overflow is supported with FEAT_PMUv3p7, and
// then PMCR_EL0.FZO is RW through the frame too; a freeze set up there
// holds the first range's counters as the frame reads them (D13.5.2.1).
TEST_F(Ext, I5_3_11_FreezeOnOverflowThroughTheFrame)
{
    init();
    EXPECT_EQ(pmu("PMCFGR", 0) & PMVP_PMCFGR_FZO, 0u);
    set_pmu("PMCR_EL0", PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    EXPECT_EQ(pmu("PMCR_EL0", 0) & PMVP_PMCR_EL0_FZO, 0u);  // RES0 without FEAT_PMUv3p7

    cfg.feat_pmuv3p7 = true;
    init();
    EXPECT_EQ(pmu("PMCFGR", 0) & PMVP_PMCFGR_FZO, PMVP_PMCFGR_FZO);
    set_pmu("PMEVTYPER<n>_EL0", PMVP_EV_CPU_CYCLES, 0, 0);
    set_pmu("PMEVTYPER<n>_EL0", PMVP_EV_CPU_CYCLES, 0, 1);
    set_pmu("PMEVCNTR<n>_EL0", 0xFFFFFFFFu - 999, 0, 0);
    set_pmu("PMCNTENSET_EL0", 0x3, 0);
    set_pmu("PMCR_EL0", PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO, 0);
    EXPECT_EQ(pmu("PMCR_EL0", 0) & PMVP_PMCR_EL0_FZO, PMVP_PMCR_EL0_FZO);
    EXPECT_EQ(pmu("PMEVCNTR<n>_EL0", 3 * kUs, 1), 1000u);  // 1 GHz: frozen at the overflow, 1 us
    set_pmu("PMOVSCLR_EL0", 0x1, 3 * kUs);
    EXPECT_EQ(pmu("PMEVCNTR<n>_EL0", 5 * kUs, 1), 3000u);
}

// I5.3.4: PMU.PMCCNTR_EL0 at 0x0F8 counts processor cycles: 1 ms at 2 GHz
// with PMCR.D = 1 gives 31250, in either layout, in halves or whole.
TEST_F(Ext, I5_3_4_PmccntrAt0x0F8InBothLayouts)
{
    for (pmvp_ext_layout layout : { PMVP_EXT32, PMVP_EXT64 }) {
        cfg.pmu_ext_layout = layout;
        cfg.processor_hz = 2 * kGHz;
        init();
        ASSERT_EQ(at(PMVP_FRAME_PMU, "PMCCNTR_EL0"), 0x0F8u);
        set_pmu("PMCNTENSET_EL0", PMVP_PMU_C, 0);
        set_pmu("PMCR_EL0", PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_D, 0);
        EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x0F8, kMs), 31250u);
        EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x0F8, kMs, 8), 31250u);
        EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x0FC, kMs), 0u);
    }
}

// I5.3.4: a 32-bit write to one half of a 64-bit register leaves the other.
TEST_F(Ext, I5_3_4_HalfWritesLeaveTheOtherHalf)
{
    init();
    wr(PMVP_FRAME_PMU, 0x0F8, 0x11111111, 0, 8);
    wr(PMVP_FRAME_PMU, 0x0FC, 0x22222222, 0);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x0F8, 0, 8), 0x2222222211111111u);
    wr(PMVP_FRAME_PMU, 0x0F8, 0x33333333, 0);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x0F8, 0, 8), 0x2222222233333333u);
    // PMEVCNTR<n> with PMUv3p5 is 64-bit in EXT32 too.
    wr(PMVP_FRAME_PMU, 0x004 + 8 * 2, 0xABCD, 0);
    EXPECT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMEVCNTR_EL0, 2, 0, &value_), PMVP_OK);
    EXPECT_EQ(value_, 0xABCD00000000u);
}

// The public row listing shows one PMEVCNTR<n>_EL0 row in each layout: 64
// bits wide with PMUv3p5 (in EXT32 too), 32 bits in EXT32 without it.
TEST_F(Ext, I5_2_TheRowListingHasOnePmevcntrRowOfTheRightWidth)
{
    struct Case {
        pmvp_pmu_version version;
        pmvp_ext_layout layout;
        unsigned width;
    };
    for (const Case &k : { Case{ PMVP_PMUV3P5, PMVP_EXT32, 64 }, Case{ PMVP_PMUV3P5, PMVP_EXT64, 64 },
                           Case{ PMVP_PMUV3P4, PMVP_EXT32, 32 } }) {
        cfg.pmu_version = k.version;
        pmvp_core_config_limit_to_version(&cfg);
        cfg.pmu_ext_layout = k.layout;
        init();
        unsigned rows = 0, width = 0;
        for (size_t i = 0; i < pmvp_ext_reg_count(); i++) {
            const pmvp_ext_reg *r = pmvp_ext_reg_at(i);
            if (std::string(r->name) == "PMEVCNTR<n>_EL0" && pmvp_ext_reg_present(&core, r)) {
                rows++;
                width = pmvp_ext_reg_width(&core, r);
            }
        }
        EXPECT_EQ(rows, 1u) << k.version << " " << k.layout;
        EXPECT_EQ(width, k.width) << k.version << " " << k.layout;
    }
}

// I5.2 (Table I5-2): without PMUv3p5 the EXT32 event counters are 32-bit and
// their upper words are reserved.
TEST_F(Ext, I5_2_Ext32CountersWithoutPmuv3p5Are32Bit)
{
    cfg.pmu_version = PMVP_PMUV3P4;
    pmvp_core_config_limit_to_version(&cfg);
    init();
    wr(PMVP_FRAME_PMU, 0x004, 0xFFFFFFFF, 0);
    EXPECT_EQ(effect, PMVP_EXT_RAZ_WI);
    wr(PMVP_FRAME_PMU, 0x000, 0xFFFFFFFF, 0);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x000, 0), 0xFFFFFFFFu);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x004, 0), 0u);
    uint64_t v;
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0x000, 8, &kNonSecure, 0, &v, nullptr), PMVP_ERR_SIZE);
}

// Read-back through the frame of every writable PMU register, with the bits
// the default configuration implements (6 counters, EL2, EL3, AArch32).
TEST_F(Ext, I5_3_WritableBitsOfThePmuFrame)
{
    for (pmvp_ext_layout layout : { PMVP_EXT32, PMVP_EXT64 }) {
        cfg.pmu_ext_layout = layout;
        init();
        SCOPED_TRACE(layout == PMVP_EXT64 ? "EXT64" : "EXT32");
        unsigned size = layout == PMVP_EXT64 ? 8 : 4;
        struct Case {
            const char *name;
            uint64_t expect;
        };
        const Case cases[] = {
            { "PMEVTYPER<n>_EL0", 0xFE00FFFF },  // P U NSK NSU NSH M MT, evtCount
            { "PMCCFILTR_EL0", 0xFC000000 },
            { "PMCR_EL0", PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_D | PMVP_PMCR_EL0_DP | PMVP_PMCR_EL0_LC | PMVP_PMCR_EL0_LP },
            { "PMCNTENSET_EL0", 0x8000003F },
            { "PMINTENSET_EL1", 0x8000003F },
            { "PMOVSSET_EL0", 0x8000003F },
            { "PMITCTRL", 0x1 },
        };
        for (const Case &c : cases) {
            unsigned s = std::string(c.name) == "PMITCTRL" ? 4 : size;
            wr(PMVP_FRAME_PMU, at(PMVP_FRAME_PMU, c.name), ~UINT64_C(0), 0, s);
            EXPECT_EQ(rd(PMVP_FRAME_PMU, at(PMVP_FRAME_PMU, c.name), 0, s), c.expect) << c.name;
        }
        wr(PMVP_FRAME_PMU, at(PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", 5), ~UINT64_C(0), 0, 8);
        EXPECT_EQ(rd(PMVP_FRAME_PMU, at(PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", 5), 0, 8), ~UINT64_C(0));
    }
}

// Every register of both frames in both layouts, by its table row: a write
// of all ones leaves a read-only register as it was, reads back within the
// writable mask of a read/write one, and reads back as zero from a
// write-only one; a write of zeros through a set or clear view changes nothing.
TEST_F(Ext, EveryRegisterHonoursItsAccessKind)
{
    for (pmvp_ext_layout layout : { PMVP_EXT32, PMVP_EXT64 }) {
        cfg.pmu_ext_layout = cfg.amu_ext_layout = layout;
        cfg.pmu_ext_pmswinc = layout == PMVP_EXT32;
        cfg.amu_num_aux = 3;
        init();
        unsigned checked = 0;
        for (size_t i = 0; i < pmvp_ext_reg_count(); i++) {
            const pmvp_ext_reg *r = pmvp_ext_reg_at(i);
            if (!pmvp_ext_reg_present(&core, r))
                continue;
            pmvp_frame f = (pmvp_frame)r->frame;
            unsigned size = pmvp_ext_reg_width(&core, r) / 8;
            for (unsigned n = 0; n < pmvp_ext_reg_instances(&core, r); n++) {
                SCOPED_TRACE(std::string(r->name) + "[" + std::to_string(n) + "]");
                uint32_t off = r->offset + n * r->stride;
                uint64_t before = rd(f, off, 0, size);
                if (r->kind == PMVP_EXT_W1S || r->kind == PMVP_EXT_W1C) {
                    wr(f, off, 0, 0, size);
                    EXPECT_EQ(rd(f, off, 0, size), before);
                }
                wr(f, off, ~UINT64_C(0), 0, size);
                uint64_t after = rd(f, off, 0, size);
                switch (r->kind) {
                case PMVP_EXT_RO: EXPECT_EQ(after, before); break;
                case PMVP_EXT_WO: EXPECT_EQ(after, 0u); break;
                default: EXPECT_EQ(after & ~r->wmask, 0u); break;
                }
                checked++;
            }
            ASSERT_EQ(pmvp_pmu_reset(&core, 0, 0), PMVP_OK);
        }
        EXPECT_GT(checked, 70u);
    }
}

// I4.1, I5.3: set, clear and (EXT64) plain views of one state.
TEST_F(Ext, I4_1_SetClearAndPlainViewsShareState)
{
    cfg.pmu_ext_layout = PMVP_EXT64;
    init();
    set_pmu("PMCNTENSET_EL0", 0x5, 0, 0, 8);
    set_pmu("PMCNTENCLR_EL0", 0x1, 0, 0, 8);
    EXPECT_EQ(pmu("PMCNTEN", 0, 0, 8), 0x4u);
    set_pmu("PMCNTEN", 0x80000003, 0, 0, 8);
    EXPECT_EQ(pmu("PMCNTENSET_EL0", 0, 0, 8), 0x80000003u);
    EXPECT_EQ(pmu("PMCNTENCLR_EL0", 0, 0, 8), 0x80000003u);
    set_pmu("PMOVS", 0x2, 0, 0, 8);
    set_pmu("PMOVSSET_EL0", 0x1, 0, 0, 8);
    set_pmu("PMOVSCLR_EL0", 0x2, 0, 0, 8);
    EXPECT_EQ(pmu("PMOVS", 0, 0, 8), 0x1u);
    set_pmu("PMINTEN", 0x7, 0, 0, 8);
    set_pmu("PMINTENCLR_EL1", 0x2, 0, 0, 8);
    EXPECT_EQ(pmu("PMINTENSET_EL1", 0, 0, 8), 0x5u);
}

// I5.3.21: the external PMCR maps [10:0]; N, IDCODE and IMP read as zero,
// and PMCR.P and PMCR.C still reset the counters.
TEST_F(Ext, I5_3_21_ExternalPmcr)
{
    cfg.pmcr_imp = 0x41;
    cfg.pmcr_idcode = 0x12;
    init();
    EXPECT_EQ(pmu("PMCR_EL0", 0), 0u);
    program(0, 0, PMVP_EV_CPU_CYCLES);
    enable_cycle_counter(0);
    EXPECT_EQ(pmu("PMEVCNTR<n>_EL0", kUs), 1000u);
    set_pmu("PMCR_EL0", PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_P | PMVP_PMCR_EL0_C | PMVP_PMCR_EL0_LC, kUs);
    EXPECT_EQ(pmu("PMEVCNTR<n>_EL0", 2 * kUs), 1000u);
    EXPECT_EQ(pmu("PMCCNTR_EL0", 2 * kUs), 1000u);
    EXPECT_EQ(pmu("PMCR_EL0", 2 * kUs), PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LC);
}

// Identification registers derived from the configuration.
TEST_F(Ext, I5_3_IdentificationRegisters)
{
    cfg.num_pes = 2;
    cfg.pmiidr = 0x1234D43B;  // ProductID 0x123, Variant 4, Revision 0xD, Arm
    cfg.mpidr = 0x80000100;   // Aff1 = 1
    cfg.pmmir = 0x8;
    init();
    EXPECT_EQ(pmu("PMCFGR", 0), 0xFF06u);  // CCD CC SIZE=63 N=6
    EXPECT_EQ(pmu("PMIIDR", 0), 0x1234D43Bu);
    EXPECT_EQ(pmu("PMMIR", 0), 0x8u);
    EXPECT_EQ(pmu("PMDEVARCH", 0), 0x47702A16u);
    EXPECT_EQ(pmu("PMDEVID", 0), 0u);
    EXPECT_EQ(pmu("PMDEVTYPE", 0), 0x16u);
    EXPECT_EQ(pmu("PMPIDR0", 0), 0x23u);
    EXPECT_EQ(pmu("PMPIDR1", 0), 0xB1u);
    EXPECT_EQ(pmu("PMPIDR2", 0), 0x4Bu);
    EXPECT_EQ(pmu("PMPIDR3", 0), 0xD0u);
    EXPECT_EQ(pmu("PMPIDR4", 0), 0x04u);
    const uint32_t cidr[] = { 0x0D, 0x90, 0x05, 0xB1 };
    for (unsigned i = 0; i < 4; i++)
        EXPECT_EQ(rd(PMVP_FRAME_PMU, 0xFF0 + 4 * i, 0), cidr[i]);
    EXPECT_EQ(pmu("PMDEVAFF0", 0), 0x81000100u);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0xFA8, 0, 4, kNonSecure, 1), 0x81000101u);  // PE 1: Aff0 = 1
    EXPECT_EQ(pmu("PMDEVAFF1", 0), 0u);
    // PMCEID0-3 are the halves of PMCEID0/1_EL0.
    uint64_t ceid0 = 0, ceid1 = 0;
    pmvp_pmu_read(&core, 0, PMVP_PMCEID0_EL0, 0, 0, &ceid0);
    pmvp_pmu_read(&core, 0, PMVP_PMCEID1_EL0, 0, 0, &ceid1);
    EXPECT_EQ(pmu("PMCEID0", 0), ceid0 & 0xFFFFFFFF);
    EXPECT_EQ(pmu("PMCEID1", 0), ceid1 & 0xFFFFFFFF);
    EXPECT_EQ(pmu("PMCEID2", 0), ceid0 >> 32);
    EXPECT_EQ(pmu("PMCEID3", 0), ceid1 >> 32);
    // Read-only: writes are ignored.
    set_pmu("PMCFGR", 0, 0);
    EXPECT_EQ(effect, PMVP_EXT_IGNORED);
    EXPECT_EQ(pmu("PMCFGR", 0), 0xFF06u);

    cfg.pmu_ext_layout = PMVP_EXT64;
    init();
    EXPECT_EQ(pmu("PMDEVARCH", 0), 0x47702A26u);
    EXPECT_EQ(pmu("PMDEVAFF", 0, 0, 8), 0x81000100u);
}

// I5.3.1: PMAUTHSTATUS reports non-invasive debug, enabled or disabled.
TEST_F(Ext, I5_3_1_AuthenticationStatus)
{
    init();
    EXPECT_EQ(pmu("PMAUTHSTATUS", 0), 0x8Cu);  // SNID 0b10, NSNID 0b11
    pmvp_pmu_controls ctl = core.pe[0].pmu.ctl;
    ctl.secure_noninvasive_debug = true;
    ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
    EXPECT_EQ(pmu("PMAUTHSTATUS", 0), 0xCCu);
    cfg.feat_debugv8p4 = false;
    init();
    ctl = core.pe[0].pmu.ctl;
    ctl.noninvasive_debug = false;
    ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
    EXPECT_EQ(pmu("PMAUTHSTATUS", 0), 0x88u);
}

// Every register reads its table reset value after reset, in both layouts
// of both frames.
TEST_F(Ext, TableResetValues)
{
    for (pmvp_ext_layout layout : { PMVP_EXT32, PMVP_EXT64 }) {
        cfg.pmu_ext_layout = cfg.amu_ext_layout = layout;
        cfg.amu_num_aux = 4;
        init();
        unsigned checked = 0;
        for (size_t i = 0; i < pmvp_ext_reg_count(); i++) {
            const pmvp_ext_reg *r = pmvp_ext_reg_at(i);
            if (!pmvp_ext_reg_present(&core, r) || r->derived)
                continue;
            for (unsigned n = 0; n < pmvp_ext_reg_instances(&core, r); n++) {
                uint64_t v = 1;
                uint32_t off = r->offset + n * r->stride;
                ASSERT_EQ(
                    pmvp_ext_debug_read(&core, 0, (pmvp_frame)r->frame, off, pmvp_ext_reg_width(&core, r) / 8, 0, &v),
                    PMVP_OK);
                EXPECT_EQ(v, r->reset) << r->name << " " << n;
                checked++;
            }
        }
        EXPECT_GT(checked, 40u);
    }
}

// I5.2, I5.4: reserved offsets, unimplemented counters, RAZ/WI.
TEST_F(Ext, I5_2_ReservedAndUnimplementedAreRazWi)
{
    init();
    for (uint32_t off : { 0x300u, 0xA00u, 0xB00u, 0xD80u, 0xE38u, 0xE80u, 0xF04u }) {
        wr(PMVP_FRAME_PMU, off, ~0u, 0);
        EXPECT_EQ(effect, PMVP_EXT_RAZ_WI) << std::hex << off;
        EXPECT_EQ(rd(PMVP_FRAME_PMU, off, 0), 0u);
    }
    // PMEVCNTR6 and PMEVTYPER6 do not exist with N = 6.
    wr(PMVP_FRAME_PMU, at(PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", 6), 5, 0);
    EXPECT_EQ(effect, PMVP_EXT_RAZ_WI);
    EXPECT_EQ(pmu("PMEVTYPER<n>_EL0", 0, 6), 0u);
    EXPECT_EQ(effect, PMVP_EXT_RAZ_WI);
    // PMSWINC is OPTIONAL in EXT32; not configured, its offset is reserved.
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0xCA0, 0), 0u);
    EXPECT_EQ(effect, PMVP_EXT_RAZ_WI);
    // Two reserved words make a RAZ/WI 8-byte access.
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x300, 0, 8), 0u);
}

// Sizes and alignment the frame does not support, and offsets outside it.
TEST_F(Ext, UnsupportedSizesAndOffsetsAreErrors)
{
    init();
    uint64_t v;
    for (unsigned size : { 0u, 1u, 2u, 3u, 16u })
        EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0x0F8, size, &kNonSecure, 0, &v, nullptr), PMVP_ERR_SIZE);
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0x0FA, 4, &kNonSecure, 0, &v, nullptr), PMVP_ERR_SIZE);
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0x0FC, 8, &kNonSecure, 0, &v, nullptr), PMVP_ERR_SIZE);
    // 8 bytes over two 32-bit registers.
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0xFB0, 8, &kNonSecure, 0, &v, nullptr), PMVP_ERR_SIZE);
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0x1000, 4, &kNonSecure, 0, &v, nullptr), PMVP_ERR_ADDRESS);
    EXPECT_EQ(pmvp_ext_read(&core, 0, (pmvp_frame)2, 0, 4, &kNonSecure, 0, &v, nullptr), PMVP_ERR_VALUE);
    pmvp_ext_access bad{ 7, false };
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0, 4, &bad, 0, &v, nullptr), PMVP_ERR_VALUE);
    EXPECT_EQ(pmvp_ext_read(&core, 1, PMVP_FRAME_PMU, 0, 4, &kNonSecure, 0, &v, nullptr), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0, 4, nullptr, 0, &v, nullptr), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0, 4, &kNonSecure, 0, nullptr, nullptr), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_sync(&core, kMs), PMVP_OK);
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0, 4, &kNonSecure, 0, &v, nullptr), PMVP_ERR_PAST);
    cfg.feat_amuv1 = cfg.feat_amuv1p1 = false;
    init();
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_AMU, 0, 4, &kNonSecure, 0, &v, nullptr), PMVP_ERR_ADDRESS);
}

// I3.1.4 (Tables I3-1, I3-2): Off, DLK, OSLK and EPMAD give error responses
// for Core-domain registers; management registers answer while off unless
// FEAT_DoPD; a refused access changes nothing.
TEST_F(Ext, I3_1_4_AccessErrors)
{
    init();
    uint64_t v = 0;
    auto read = [&](uint32_t off, const pmvp_ext_access &a = kNonSecure) {
        pmvp_core before;
        std::memcpy(&before, &core, sizeof core);
        int err = pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, off, 4, &a, core.last_call, &v, nullptr);
        if (err) {
            EXPECT_EQ(std::memcmp(&before, &core, sizeof core), 0) << "a refused access changed the core";
        }
        return err;
    };
    state(0, PMVP_PE_OFF, 0);
    EXPECT_EQ(read(0x0F8), PMVP_ERR_PE_OFF);
    EXPECT_EQ(read(0xE00), PMVP_ERR_PE_OFF);
    EXPECT_EQ(read(0xFBC), PMVP_OK);  // PMDEVARCH: Debug power domain
    EXPECT_EQ(v, 0x47702A16u);
    state(0, PMVP_PE_RUN, 0);

    debug_controls(false, true);
    EXPECT_EQ(read(0x0F8), PMVP_ERR_LOCKED);
    debug_controls(true, false);
    EXPECT_EQ(read(0x0F8), PMVP_ERR_LOCKED);
    EXPECT_EQ(read(0xFE0), PMVP_OK);  // the OS Lock does not apply to management registers
    debug_controls(false, false, PMVP_MDCR_EL3_EPMAD);
    EXPECT_EQ(read(0x0F8), PMVP_ERR_DENIED);
    EXPECT_EQ(read(0x0F8, kSecure), PMVP_OK);  // a Most secure access is always allowed
    debug_controls(false, false);
    EXPECT_EQ(read(0x0F8), PMVP_OK);

    // Before FEAT_Debugv8p4: NIDEN gates every access, SPNIDEN the Secure view.
    cfg.feat_debugv8p4 = false;
    init();
    pmvp_pmu_controls ctl = core.pe[0].pmu.ctl;
    ctl.noninvasive_debug = false;
    ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
    EXPECT_EQ(read(0x0F8, kSecure), PMVP_ERR_DENIED);
    ctl.noninvasive_debug = true;
    ctl.mdcr_el3 = PMVP_MDCR_EL3_EPMAD;
    ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
    EXPECT_EQ(read(0x0F8, kSecure), PMVP_ERR_DENIED);
    ctl.secure_noninvasive_debug = true;
    ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
    EXPECT_EQ(read(0x0F8), PMVP_OK);

    cfg.feat_debugv8p4 = true;
    cfg.feat_dopd = true;
    init();
    state(0, PMVP_PE_OFF, 0);
    EXPECT_EQ(read(0xFBC), PMVP_ERR_PE_OFF);
}

// I5.3.40, I5.3.41: the Software Lock ignores memory-mapped writes until
// PMLAR receives the key; a debugger is not affected.
TEST_F(Ext, I5_3_40_SoftwareLock)
{
    cfg.pmu_software_lock = true;
    init();
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0xFB4, 0), PMVP_PMLSR_SLI | PMVP_PMLSR_SLK);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0xFB4, 0, 4, kDebugger), 0u);
    wr(PMVP_FRAME_PMU, 0x0F8, 77, 0);
    EXPECT_EQ(effect, PMVP_EXT_IGNORED);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x0F8, 0), 0u);
    wr(PMVP_FRAME_PMU, 0x0F8, 77, 0, 4, kDebugger);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x0F8, 0), 77u);
    wr(PMVP_FRAME_PMU, 0xFB0, PMVP_PMLAR_KEY, 0);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0xFB4, 0), PMVP_PMLSR_SLI);
    wr(PMVP_FRAME_PMU, 0x0F8, 78, 0);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0x0F8, 0), 78u);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0xFB0, 0), 0u);  // PMLAR is write-only
    wr(PMVP_FRAME_PMU, 0xFB0, 0, 0);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0xFB4, 0), PMVP_PMLSR_SLI | PMVP_PMLSR_SLK);
    // Not implemented: PMLSR reads zero and PMLAR does nothing.
    cfg.pmu_software_lock = false;
    init();
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0xFB4, 0), 0u);
    // Impossible with EXT64 or FEAT_DoPD.
    cfg.pmu_software_lock = true;
    cfg.pmu_ext_layout = PMVP_EXT64;
    EXPECT_EQ(pmvp_core_init(&core, &cfg), PMVP_ERR_CONFIG);
}

// I3.1.2: the OPTIONAL external PMSWINC_EL0 increments SW_INCR counters.
TEST_F(Ext, I3_1_2_ExternalSoftwareIncrement)
{
    cfg.pmu_ext_pmswinc = true;
    init();
    program(0, 1, PMVP_EV_SW_INCR);
    wr(PMVP_FRAME_PMU, 0xCA0, 0x2, 0);
    wr(PMVP_FRAME_PMU, 0xCA0, 0x3, 0);
    EXPECT_EQ(counter(0, 1, 0), 2u);
    EXPECT_EQ(rd(PMVP_FRAME_PMU, 0xCA0, 0), 0u);
    cfg.pmu_ext_layout = PMVP_EXT64;
    EXPECT_EQ(pmvp_core_init(&core, &cfg), PMVP_ERR_CONFIG);
}

// I4.1, I5.4: the AMU frame is a read-only view of the AMU in both layouts.
TEST_F(Ext, I5_4_AmuFrameIsAReadOnlyView)
{
    for (pmvp_ext_layout layout : { PMVP_EXT32, PMVP_EXT64 }) {
        SCOPED_TRACE(layout == PMVP_EXT64 ? "EXT64" : "EXT32");
        cfg.amu_ext_layout = layout;
        cfg.amu_num_aux = 2;
        cfg.processor_hz = 2 * kGHz;
        init();
        ASSERT_EQ(pmvp_amu_write(&core, 0, PMVP_AMCNTENSET0_EL0, 0, 0x3, 0), PMVP_OK);
        ASSERT_EQ(pmvp_amu_write(&core, 0, PMVP_AMCNTENSET1_EL0, 0, 0x2, 0), PMVP_OK);
        ASSERT_EQ(pmvp_amu_write(&core, 0, PMVP_AMCR_EL0, 0, PMVP_AMCR_EL0_HDBG, 0), PMVP_OK);
        EXPECT_EQ(rd(PMVP_FRAME_AMU, 0x000, kMs, 8), 2000000u);  // AMEVCNTR0<0>
        EXPECT_EQ(rd(PMVP_FRAME_AMU, 0x008, kMs), 100000u);      // AMEVCNTR0<1>, low word
        EXPECT_EQ(rd(PMVP_FRAME_AMU, 0x108, kMs, 8), 2000000u);  // AMEVCNTR1<1>: CPU_CYCLES
        EXPECT_EQ(rd(PMVP_FRAME_AMU, 0x110, kMs, 8), 0u);        // AMEVCNTR1<2>: not implemented
        EXPECT_EQ(effect, PMVP_EXT_RAZ_WI);
        uint32_t stride = layout == PMVP_EXT64 ? 8 : 4;
        EXPECT_EQ(rd(PMVP_FRAME_AMU, 0x400 + 1 * stride, kMs), 0x4004u);  // AMEVTYPER0<1>
        EXPECT_EQ(rd(PMVP_FRAME_AMU, (layout == PMVP_EXT64 ? 0x500 : 0x480) + stride, kMs), 0x0011u);
        if (layout == PMVP_EXT64) {
            EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xC00, kMs, 8), 0x200000003u);  // AMCNTENSET
            EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xC10, kMs, 8), 0x200000003u);  // AMCNTEN
            EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xE10, kMs, 8), PMVP_AMCR_EL0_HDBG);
            EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xFBC, kMs), 0x47700A67u);
        } else {
            EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xC04, kMs), 0x2u);  // AMCNTENSET1
            EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xC24, kMs), 0x2u);  // AMCNTENCLR1
            EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xE04, kMs), PMVP_AMCR_EL0_HDBG);
            EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xFBC, kMs), 0x47700A66u);
        }
        EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xCE0, kMs), 0x0204u);      // AMCGCR
        EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xE00, kMs), 0x11003F05u);  // AMCFGR
        EXPECT_EQ(rd(PMVP_FRAME_AMU, 0xFCC, kMs), 0x16u);
        // Writes are ignored, counters and controls alike.
        wr(PMVP_FRAME_AMU, 0x000, 0, kMs, 8);
        EXPECT_EQ(effect, PMVP_EXT_IGNORED);
        wr(PMVP_FRAME_AMU, 0xC20, 0xF, kMs);
        EXPECT_EQ(rd(PMVP_FRAME_AMU, 0x000, 2 * kMs, 8), 4000000u);
        // I4.1.3: with the AMU in the Core power domain, reads while off are zero.
        state(0, PMVP_PE_OFF, 2 * kMs);
        EXPECT_EQ(rd(PMVP_FRAME_AMU, 0x000, 3 * kMs, 8), 0u);
        EXPECT_EQ(effect, PMVP_EXT_RAZ_WI);
        uint64_t v = 0;
        ASSERT_EQ(pmvp_ext_debug_read(&core, 0, PMVP_FRAME_AMU, 0x000, 8, 3 * kMs, &v), PMVP_OK);
        EXPECT_EQ(v, 4000000u);
    }
    cfg.amu_always_on = true;
    init();
    ASSERT_EQ(pmvp_amu_write(&core, 0, PMVP_AMCNTENSET0_EL0, 0, 0x1, 0), PMVP_OK);
    state(0, PMVP_PE_OFF, kMs);
    EXPECT_EQ(rd(PMVP_FRAME_AMU, 0x000, 2 * kMs, 8), 2000000u);
}

// The debug path changes nothing but the addressed register's value, and
// answers while the PE is off or locked.
TEST_F(Ext, DebugPathHasNoSideEffects)
{
    cfg.pmu_ext_pmswinc = true;
    init();
    program(0, 0, PMVP_EV_SW_INCR);
    program(0, 1, PMVP_EV_CPU_CYCLES);
    auto dump = [&](pmvp_time t) {
        std::vector<std::pair<uint32_t, uint64_t>> out;
        pmvp_ext_dump(
            &core, 0, PMVP_FRAME_PMU, t,
            [](void *u, const pmvp_ext_reg *, unsigned, uint32_t off, uint64_t v) {
                static_cast<std::vector<std::pair<uint32_t, uint64_t>> *>(u)->push_back({ off, v });
            },
            &out);
        return out;
    };
    auto before = dump(kUs);
    ASSERT_EQ(pmvp_ext_debug_write(&core, 0, PMVP_FRAME_PMU, 0xE04, 4,
                                   PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_P | PMVP_PMCR_EL0_C, kUs),
              PMVP_OK);
    ASSERT_EQ(pmvp_ext_debug_write(&core, 0, PMVP_FRAME_PMU, 0xCA0, 4, 0x1, kUs), PMVP_OK);
    ASSERT_EQ(pmvp_ext_debug_write(&core, 0, PMVP_FRAME_PMU, 0xE00, 4, 0, kUs), PMVP_OK);
    ASSERT_EQ(pmvp_ext_debug_write(&core, 0, PMVP_FRAME_PMU, at(PMVP_FRAME_PMU, "PMEVTYPER<n>_EL0", 2), 4, 0x8, kUs),
              PMVP_OK);
    auto after = dump(kUs);
    ASSERT_EQ(before.size(), after.size());
    for (size_t i = 0; i < before.size(); i++) {
        if (before[i].first == at(PMVP_FRAME_PMU, "PMEVTYPER<n>_EL0", 2))
            EXPECT_EQ(after[i].second, 0x8u);
        else
            EXPECT_EQ(after[i], before[i]) << std::hex << before[i].first;
    }
    EXPECT_EQ(counter(0, 1, kUs), 1000u);  // not reset by the debug PMCR.P
    state(0, PMVP_PE_OFF, kUs);
    debug_controls(true, true);
    uint64_t v = 0;
    EXPECT_EQ(pmvp_ext_debug_read(&core, 0, PMVP_FRAME_PMU, 0xE04, 4, kUs, &v), PMVP_OK);
    EXPECT_EQ(v, PMVP_PMCR_EL0_E);
}

// A debug read is a pure query: it shows the value at a later instant and
// leaves the core's present where it was, so an input for an earlier
// instant is still taken, and then shows in the next read.
TEST_F(Ext, DebugReadLeavesThePresentAlone)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    program(0, 1, PMVP_EV_CPU_CYCLES);
    const pmvp_time present = core.last_call;
    uint64_t v = 0;
    uint32_t cycles = at(PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", 1), insts = at(PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", 0);
    ASSERT_EQ(pmvp_ext_debug_read(&core, 0, PMVP_FRAME_PMU, cycles, 8, kUs, &v), PMVP_OK);
    EXPECT_EQ(v, 1000u);  // 1 GHz for 1 us
    EXPECT_EQ(core.last_call, present);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 7, kUs / 2), PMVP_OK);  // PMVP_ERR_PAST before
    ASSERT_EQ(pmvp_ext_debug_read(&core, 0, PMVP_FRAME_PMU, insts, 8, kUs, &v), PMVP_OK);
    EXPECT_EQ(v, 7u);
    // Reads for earlier instants than the core's present are still refused.
    EXPECT_EQ(pmvp_ext_debug_read(&core, 0, PMVP_FRAME_PMU, insts, 8, kUs / 4, &v), PMVP_ERR_PAST);
    // The dump is a query too.
    ASSERT_EQ(pmvp_ext_dump(
                  &core, 0, PMVP_FRAME_PMU, 2 * kUs, [](void *, const pmvp_ext_reg *, unsigned, uint32_t, uint64_t) {},
                  nullptr),
              PMVP_OK);
    EXPECT_EQ(core.last_call, kUs / 2);
}

// The dump walks the frame in offset order with the table's names.
TEST_F(Ext, DumpListsEveryImplementedRegister)
{
    cfg.num_counters = 2;
    init();
    std::vector<std::string> names;
    ASSERT_EQ(pmvp_ext_dump(
                  &core, 0, PMVP_FRAME_PMU, 0,
                  [](void *u, const pmvp_ext_reg *r, unsigned n, uint32_t, uint64_t) {
                      std::string s = r->name;
                      if (r->stride)
                          s += "[" + std::to_string(n) + "]";
                      static_cast<std::vector<std::string> *>(u)->push_back(s);
                  },
                  &names),
              PMVP_OK);
    std::vector<std::string> head(names.begin(), names.begin() + 6);
    EXPECT_EQ(head, (std::vector<std::string>{ "PMEVCNTR<n>_EL0[0]", "PMEVCNTR<n>_EL0[1]", "PMCCNTR_EL0",
                                               "PMEVTYPER<n>_EL0[0]", "PMEVTYPER<n>_EL0[1]", "PMCCFILTR_EL0" }));
    EXPECT_EQ(names.back(), "PMCIDR3");
    EXPECT_EQ(names.size(), 38u);
    uint32_t off;
    EXPECT_EQ(pmvp_ext_find(&core, PMVP_FRAME_PMU, "PMCNTEN", 0, &off), PMVP_ERR_REGISTER);  // EXT64 only
    EXPECT_EQ(pmvp_ext_find(&core, PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", 31, &off), PMVP_ERR_COUNTER);
}

// The outcome of a read of every register of both frames of PE p from each
// security state, and of a write of PMCCNTR_EL0 with the value it holds, by
// a debugger or not: (error, effect) in order.
std::vector<std::pair<int, int>> access_outcomes(pmvp_core *c, unsigned p, pmvp_time t)
{
    std::vector<std::pair<int, int>> out;
    uint32_t pmccntr = 0;
    EXPECT_EQ(pmvp_ext_find(c, PMVP_FRAME_PMU, "PMCCNTR_EL0", 0, &pmccntr), PMVP_OK);
    for (uint8_t s = PMVP_NONSECURE; s <= PMVP_ROOT; s++)
        for (bool debugger : { false, true }) {
            const pmvp_ext_access a{ s, debugger };
            for (size_t i = 0; i < pmvp_ext_reg_count(); i++) {
                const pmvp_ext_reg *r = pmvp_ext_reg_at(i);
                if (!pmvp_ext_reg_present(c, r))
                    continue;
                uint64_t v = 0;
                pmvp_ext_effect e = PMVP_EXT_DONE;
                int err = pmvp_ext_peek(c, p, (pmvp_frame)r->frame, r->offset, 4, &a, t, &v, &e);
                out.emplace_back(err, err ? -1 : (int)e);
            }
            uint64_t v = 0;
            EXPECT_EQ(pmvp_ext_debug_read(c, p, PMVP_FRAME_PMU, pmccntr, 8, t, &v), PMVP_OK);
            pmvp_ext_effect e = PMVP_EXT_DONE;
            int err = pmvp_ext_write(c, p, PMVP_FRAME_PMU, pmccntr, 8, v, &a, t, &e);
            out.emplace_back(err, err ? -1 : (int)e);
        }
    return out;
}

// The frames' access checks are kept per PE (the permission word): after
// every change of an input they follow (power, locks, authentication,
// MDCR_EL3.EPMAD, PMCCR.OSLO, the Software Lock, a PMU reset), each access
// has the outcome it has once every cache is dropped and computed afresh.
TEST_F(Ext, AccessChecksFollowEveryInputTheyDependOn)
{
    std::mt19937_64 rng(20261127);
    for (int round = 0; round < 8; round++) {
        cfg.num_pes = 2;
        cfg.pmu_ext_layout = PMVP_EXT32;
        cfg.pmu_software_lock = round & 1;
        cfg.feat_dopd = !cfg.pmu_software_lock && (round & 2);
        cfg.feat_debugv8p4 = round & 4;
        cfg.feat_pmuv3_extpmn = true;
        cfg.amu_always_on = round % 3 == 0;
        init();
        uint32_t pmlar = 0, pmccr = 0;
        ASSERT_EQ(pmvp_ext_find(&core, PMVP_FRAME_PMU, "PMLAR", 0, &pmlar), PMVP_OK);
        ASSERT_EQ(pmvp_ext_find(&core, PMVP_FRAME_PMU, "PMCCR", 0, &pmccr), PMVP_OK);
        pmvp_time t = 0;
        for (int step = 0; step < 60; step++) {
            t += kNs;
            const unsigned p = (unsigned)(rng() % 2);
            const pmvp_ext_access a{ (uint8_t)(rng() % 4), false };
            pmvp_pmu_controls ctl = core.pe[p].pmu.ctl;
            switch (rng() % 5) {
            case 0:
                ctl.os_lock = rng() % 2;
                ctl.os_double_lock = rng() % 4 == 0;
                ctl.noninvasive_debug = rng() % 2;
                ctl.secure_noninvasive_debug = rng() % 2;
                ctl.mdcr_el3 = rng() % 2 ? PMVP_MDCR_EL3_EPMAD : 0;
                ASSERT_EQ(pmvp_core_set_controls(&core, p, &ctl, t), PMVP_OK);
                break;
            case 1: ASSERT_EQ(pmvp_core_set_pe_state(&core, p, (pmvp_pe_state)(rng() % 4), t), PMVP_OK); break;
            case 2:
                (void)pmvp_ext_write(&core, p, PMVP_FRAME_PMU, pmlar, 4, rng() % 2 ? PMVP_PMLAR_KEY : rng(), &a, t,
                                     nullptr);
                break;
            case 3: (void)pmvp_ext_write(&core, p, PMVP_FRAME_PMU, pmccr, 4, rng(), &a, t, nullptr); break;
            default: ASSERT_EQ(pmvp_pmu_reset(&core, p, t), PMVP_OK); break;
            }
            for (unsigned q = 0; q < 2; q++) {
                auto kept = access_outcomes(&core, q, t);
                ASSERT_EQ(pmvp_core_drop_caches(&core), PMVP_OK);
                ASSERT_EQ(access_outcomes(&core, q, t), kept) << "round " << round << ", step " << step;
            }
        }
    }
}

// Random accesses through both frames in both layouts, under random power,
// lock and authentication states: nothing crashes, every access has one of
// the documented outcomes, and a refused access changes nothing.
TEST_F(Ext, FuzzEveryAccessHasADocumentedOutcome)
{
    std::mt19937_64 rng(20261121);
    const std::set<int> errors = { PMVP_ERR_PE_OFF,  PMVP_ERR_LOCKED, PMVP_ERR_DENIED, PMVP_ERR_SIZE,
                                   PMVP_ERR_ADDRESS, PMVP_ERR_VALUE,  PMVP_ERR_PE };
    unsigned outcomes[3] = {}, refused = 0;
    for (int round = 0; round < 16; round++) {
        cfg.pmu_ext_layout = round & 1 ? PMVP_EXT64 : PMVP_EXT32;
        cfg.amu_ext_layout = round & 2 ? PMVP_EXT64 : PMVP_EXT32;
        cfg.pmu_software_lock = cfg.pmu_ext_layout == PMVP_EXT32 && (round & 4);
        cfg.feat_dopd = !cfg.pmu_software_lock && (round & 8);
        cfg.feat_debugv8p4 = round % 3 != 0;
        cfg.num_pes = 2;
        cfg.amu_num_aux = (unsigned)(round % 5);
        init();
        pmvp_time t = 0;
        for (int i = 0; i < 3000; i++) {
            t += rng() % 1000;
            unsigned pe = rng() % 3;  // 2 is out of range
            if (rng() % 16 == 0 && pe < 2) {
                pmvp_pmu_controls ctl = core.pe[pe].pmu.ctl;
                ctl.os_lock = rng() % 4 == 0;
                ctl.os_double_lock = rng() % 8 == 0;
                ctl.noninvasive_debug = rng() % 2;
                ctl.secure_noninvasive_debug = rng() % 2;
                ctl.mdcr_el3 = rng() % 2 ? PMVP_MDCR_EL3_EPMAD : 0;
                ASSERT_EQ(pmvp_core_set_controls(&core, pe, &ctl, t), PMVP_OK);
                ASSERT_EQ(pmvp_core_set_pe_state(&core, pe, (pmvp_pe_state)(rng() % 4), t), PMVP_OK);
            }
            pmvp_frame f = (pmvp_frame)(rng() % (PMVP_NUM_FRAMES + 1));  // PMVP_NUM_FRAMES is not a frame
            uint32_t off = rng() % 5 == 0 ? (uint32_t)rng() % 0x1100 : (uint32_t)(rng() % 1024) * 4;
            static const unsigned sizes[] = { 1, 2, 4, 4, 8, 8, 3, 16 };
            unsigned size = sizes[rng() % 8];
            pmvp_ext_access a{ (uint8_t)(rng() % 5), rng() % 2 == 0 };
            uint64_t v = rng();
            pmvp_ext_effect e = (pmvp_ext_effect)-1;
            pmvp_core before;
            std::memcpy(&before, &core, sizeof core);
            int err;
            switch (rng() % 4) {
            case 0: err = pmvp_ext_read(&core, pe, f, off, size, &a, t, &v, &e); break;
            case 1: err = pmvp_ext_write(&core, pe, f, off, size, v, &a, t, &e); break;
            case 2:
                err = pmvp_ext_debug_read(&core, pe, f, off, size, t, &v);
                e = PMVP_EXT_DONE;
                break;
            default:
                err = pmvp_ext_debug_write(&core, pe, f, off, size, v, t);
                e = PMVP_EXT_DONE;
                break;
            }
            if (err == PMVP_OK) {
                ASSERT_TRUE(e == PMVP_EXT_DONE || e == PMVP_EXT_RAZ_WI || e == PMVP_EXT_IGNORED);
                outcomes[e]++;
            } else {
                ASSERT_TRUE(errors.count(err)) << pmvp_strerror(err);
                ASSERT_EQ(std::memcmp(&before, &core, sizeof core), 0) << "refused access changed state";
                refused++;
            }
        }
    }
    // The fuzz reached every outcome.
    EXPECT_GT(outcomes[PMVP_EXT_DONE], 100u);
    EXPECT_GT(outcomes[PMVP_EXT_RAZ_WI], 100u);
    EXPECT_GT(outcomes[PMVP_EXT_IGNORED], 10u);
    EXPECT_GT(refused, 100u);
}

}  // namespace
}  // namespace pmvp::test
