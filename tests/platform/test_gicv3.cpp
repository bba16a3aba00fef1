// SPDX-License-Identifier: Apache-2.0
//
// The virt machine's GIC as a GICv3 (platform/machines/gicv3.cpp), rule by
// rule as its GICv2 is tested (test_virt.cpp): the distributor, the
// redistributors and the ICC_*_EL1 CPU interface.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "virt.h"

namespace {

using pmvp::soc::virt::Gic;
using Icc = Gic::Icc;

// Distributor and redistributor offsets the tests use (IHI 0069, 12.9-12.11).
constexpr uint64_t D_CTLR = 0x0000, D_TYPER = 0x0004, D_IGROUPR = 0x0080, D_ISENABLER = 0x0100, D_ISPENDR = 0x0200,
                   D_IPRIORITYR = 0x0400, D_ITARGETSR = 0x0800, D_SGIR = 0x0F00, D_IROUTER = 0x6000, D_PIDR2 = 0xFFE8;
constexpr uint64_t R_TYPER = 0x0008, R_WAKER = 0x0014, R_PIDR2 = 0xFFE8, SGI = 0x10000, R_IGROUPR0 = SGI + 0x0080,
                   R_ISENABLER0 = SGI + 0x0100, R_ISPENDR0 = SGI + 0x0200, R_ICPENDR0 = SGI + 0x0280,
                   R_ISACTIVER0 = SGI + 0x0300, R_IPRIORITYR = SGI + 0x0400, R_ICFGR0 = SGI + 0x0C00;

// Three PEs: two of cluster 0, one of cluster 1.
const std::vector<uint64_t> kMpidr = { 0x80000000, 0x80000001, 0x80000100 };

// A GICv3 with Group 1 on in the distributor and every CPU interface,
// every interrupt in Group 1, nothing masked.
Gic gic_on(unsigned cpus)
{
    Gic g(cpus, 3, std::vector<uint64_t>(kMpidr.begin(), kMpidr.begin() + cpus));
    g.dist_write(0, D_CTLR, 4, 2, 0);  // EnableGrp1
    for (uint64_t off = D_IGROUPR + 4; off < D_IGROUPR + Gic::kIntids / 8; off += 4)
        g.dist_write(0, off, 4, ~0u, 0);
    for (unsigned c = 0; c < cpus; c++) {
        g.redist_write(c, R_IGROUPR0, 4, ~0u, 0);
        g.icc_write(c, Icc::PMR, 0xFF, 0);
        g.icc_write(c, Icc::IGRPEN1, 1, 0);
    }
    return g;
}

// An SGI or PPI on its redistributor, an SPI on the distributor.
void enable(Gic &g, unsigned cpu, unsigned id, uint8_t priority)
{
    if (id < 32) {
        g.redist_write(cpu, R_ISENABLER0, 4, 1u << id, 0);
        g.redist_write(cpu, R_IPRIORITYR + id, 1, priority, 0);
    } else {
        g.dist_write(cpu, D_ISENABLER + id / 32 * 4, 4, 1u << (id % 32), 0);
        g.dist_write(cpu, D_IPRIORITYR + id, 1, priority, 0);
    }
}

}  // namespace

TEST(VirtGicv3, APpiLineIsSignalledFromItsInstantWhileEnabledGroup1AndAboveTheMask)
{
    Gic g = gic_on(1);
    g.set_line(0, 23, true, 1000);
    EXPECT_FALSE(g.signalled(0, 1000)) << "not enabled";
    enable(g, 0, 23, 0x80);
    EXPECT_FALSE(g.signalled(0, 999)) << "before the line rose";
    EXPECT_TRUE(g.signalled(0, 1000));
    g.icc_write(0, Icc::PMR, 0x80, 0);
    EXPECT_FALSE(g.signalled(0, 1000)) << "priority 0x80 is not above the mask 0x80";
    g.icc_write(0, Icc::PMR, 0x81, 0);
    EXPECT_TRUE(g.signalled(0, 1000));
    g.icc_write(0, Icc::IGRPEN1, 0, 0);
    EXPECT_FALSE(g.signalled(0, 1000)) << "ICC_IGRPEN1_EL1 off";
    g.icc_write(0, Icc::IGRPEN1, 1, 0);
    g.dist_write(0, D_CTLR, 4, 1, 0);
    EXPECT_FALSE(g.signalled(0, 1000)) << "GICD_CTLR.EnableGrp1 off";
    g.dist_write(0, D_CTLR, 4, 2, 0);
    g.redist_write(0, R_IGROUPR0, 4, 0, 0);
    EXPECT_FALSE(g.signalled(0, 1000)) << "Group 0: an FIQ, never signalled here";
    EXPECT_EQ(g.icc_read(0, Icc::IAR0, 1000), 1023u);
    EXPECT_EQ(g.icc_read(0, Icc::IAR1, 1000), 1023u);
}

TEST(VirtGicv3, ALevelPpiAcknowledgedStaysPendingWhileItsLineIsHigh)
{
    Gic g = gic_on(1);
    enable(g, 0, 23, 0x80);
    g.set_line(0, 23, true, 10);
    EXPECT_EQ(g.icc_read(0, Icc::HPPIR1, 10), 23u);
    EXPECT_EQ(g.icc_read(0, Icc::IAR1, 10), 23u);
    EXPECT_EQ(g.icc_read(0, Icc::RPR, 10), 0x80u);
    EXPECT_FALSE(g.signalled(0, 11)) << "active: not signalled again";
    EXPECT_EQ(g.redist_read(0, R_ISPENDR0, 4, 11) >> 23 & 1, 1u) << "active and pending";
    EXPECT_EQ(g.redist_read(0, R_ISACTIVER0, 4, 11) >> 23 & 1, 1u);
    EXPECT_EQ(g.icc_read(0, Icc::AP1R0, 11), 0u);
    EXPECT_EQ(g.icc_read(0, Icc::AP1R2, 11), 1u) << "group priority 0x80 active: bit 0x80 >> 1 = 64, of AP1R2";
    g.icc_write(0, Icc::EOIR1, 23, 12);
    EXPECT_EQ(g.icc_read(0, Icc::RPR, 12), 0xFFu);
    EXPECT_TRUE(g.signalled(0, 12)) << "the line is still high";
    g.set_line(0, 23, false, 13);
    EXPECT_FALSE(g.signalled(0, 13));
    EXPECT_EQ(g.redist_read(0, R_ISPENDR0, 4, 13) >> 23 & 1, 0u);
}

TEST(VirtGicv3, OnlyAHigherGroupPriorityPreemptsTheRunningOne)
{
    Gic g = gic_on(1);
    g.icc_write(0, Icc::BPR1, 3, 0);  // Group 1's group priority: bits [7:3]
    EXPECT_EQ(g.icc_read(0, Icc::BPR1, 0), 3u);
    enable(g, 0, 40, 0x80);
    enable(g, 0, 41, 0x84);
    enable(g, 0, 42, 0x40);
    g.dist_write(0, D_ISPENDR + 4, 4, 1u << (40 - 32), 5);
    EXPECT_EQ(g.icc_read(0, Icc::IAR1, 5), 40u);
    g.dist_write(0, D_ISPENDR + 4, 4, 1u << (41 - 32), 6);
    EXPECT_FALSE(g.signalled(0, 6)) << "0x84 does not preempt 0x80";
    g.dist_write(0, D_ISPENDR + 4, 4, 1u << (42 - 32), 7);
    EXPECT_TRUE(g.signalled(0, 7));
    EXPECT_EQ(g.icc_read(0, Icc::IAR1, 7), 42u);
    EXPECT_EQ(g.icc_read(0, Icc::RPR, 7), 0x40u);
    g.icc_write(0, Icc::EOIR1, 42, 8);
    EXPECT_EQ(g.icc_read(0, Icc::RPR, 8), 0x80u) << "back to the preempted interrupt's priority";
    g.icc_write(0, Icc::EOIR1, 40, 9);
    EXPECT_EQ(g.icc_read(0, Icc::IAR1, 9), 41u);
    g.icc_write(0, Icc::BPR1, 0, 10);
    EXPECT_EQ(g.icc_read(0, Icc::BPR1, 10), 1u) << "the minimum with 8 priority bits";
}

TEST(VirtGicv3, WithEoiModeTheDeactivationWaitsForDir)
{
    Gic g = gic_on(1);
    g.icc_write(0, Icc::CTLR, 2, 0);  // EOImode
    EXPECT_EQ(g.icc_read(0, Icc::CTLR, 0) & 2, 2u);
    enable(g, 0, 5, 0x10);
    EXPECT_EQ(g.icc_write(0, Icc::SGI1R, 5ull << 24 | 1, 0), 1u) << "to PE 0 (Aff0 0 in the target list)";
    EXPECT_EQ(g.icc_read(0, Icc::IAR1, 0), 5u) << "no sender in a GICv3 INTID";
    g.icc_write(0, Icc::EOIR1, 5, 1);
    EXPECT_EQ(g.icc_read(0, Icc::RPR, 1), 0xFFu) << "the priority dropped";
    EXPECT_EQ(g.redist_read(0, R_ISACTIVER0, 4, 1) & (1u << 5), 1u << 5) << "still active";
    g.icc_write(0, Icc::DIR, 5, 2);
    EXPECT_EQ(g.redist_read(0, R_ISACTIVER0, 4, 2) & (1u << 5), 0u);
}

TEST(VirtGicv3, SgisGoByAffinityAndOneRequestIsTakenOnce)
{
    Gic g = gic_on(3);
    for (unsigned c = 0; c < 3; c++)
        enable(g, c, 3, 0x20);
    EXPECT_EQ(g.icc_write(0, Icc::SGI1R, 3ull << 24 | 0b10, 100), 0b010u) << "Aff1 0, Aff0 1: PE 1";
    EXPECT_EQ(g.icc_write(0, Icc::SGI1R, 3ull << 24 | 1ull << 16 | 1, 100), 0b100u) << "Aff1 1, Aff0 0: PE 2";
    EXPECT_EQ(g.icc_write(0, Icc::SGI1R, 3ull << 24 | 1ull << 44 | 1, 100), 0u) << "RS 1: Aff0 16, no PE";
    EXPECT_EQ(g.icc_write(1, Icc::SGI1R, 3ull << 24 | 1ull << 40, 200), 0b101u) << "IRM: all but the sender";
    EXPECT_FALSE(g.signalled(1, 99)) << "not before it was sent";
    EXPECT_EQ(g.next_pending(1, 99), 100u);
    EXPECT_EQ(g.icc_read(0, Icc::IAR1, 200), 3u);
    g.icc_write(0, Icc::EOIR1, 3, 201);
    EXPECT_EQ(g.icc_read(0, Icc::IAR1, 202), 1023u) << "one pending state, whoever sent it";
    g.redist_write(2, R_IGROUPR0, 4, ~(1u << 3), 0);  // SGI 3 in Group 0 on PE 2
    EXPECT_EQ(g.icc_write(0, Icc::SGI1R, 3ull << 24 | 1ull << 40, 300), 0b010u) << "Group 1 SGIs only";
    EXPECT_EQ(g.icc_write(0, Icc::SGI0R, 3ull << 24 | 1ull << 40, 300), 0b100u) << "Group 0 SGIs only";
}

TEST(VirtGicv3, AnSpiGoesWhereItsRouterSays)
{
    Gic g = gic_on(3);
    enable(g, 0, 48, 0x40);
    EXPECT_EQ(g.dist_read(0, D_IROUTER + 8 * 48, 8), 0u) << "reset: affinity 0.0.0.0, PE 0";
    g.set_line(0, 48, true, 10);  // an SPI's line (a device's)
    EXPECT_TRUE(g.signalled(0, 10));
    EXPECT_FALSE(g.signalled(2, 10));
    g.dist_write(0, D_IROUTER + 8 * 48, 8, 0x100, 11);  // Aff1 1, Aff0 0: PE 2
    EXPECT_EQ(g.dist_read(0, D_IROUTER + 8 * 48, 4), 0x100u);
    EXPECT_FALSE(g.signalled(0, 11));
    EXPECT_TRUE(g.signalled(2, 11));
    g.dist_write(0, D_IROUTER + 8 * 48, 4, 1u << 31, 12);  // IRM: any PE
    EXPECT_TRUE(g.signalled(0, 12));
    EXPECT_TRUE(g.signalled(1, 12));
    EXPECT_EQ(g.icc_read(1, Icc::IAR1, 12), 48u);
    EXPECT_FALSE(g.signalled(0, 12)) << "taken by PE 1: active";
    g.dist_write(0, D_IROUTER + 8 * 48 + 4, 4, 0x7, 13);  // Aff3 7: no PE
    EXPECT_EQ(g.dist_read(0, D_IROUTER + 8 * 48, 8), 0x7'8000'0000u);
}

TEST(VirtGicv3, ClearingASoftwarePendingStateLeavesALineHigh)
{
    Gic g = gic_on(1);
    enable(g, 0, 27, 0x80);
    g.redist_write(0, R_ISPENDR0, 4, 1u << 27, 10);
    g.set_line(0, 27, true, 20);
    g.redist_write(0, R_ICPENDR0, 4, 1u << 27, 30);
    EXPECT_TRUE(g.signalled(0, 30)) << "the line is high";
    g.set_line(0, 27, false, 40);
    EXPECT_FALSE(g.signalled(0, 40)) << "the line fell and the latch was cleared";
}

TEST(VirtGicv3, TheRegistersReadAsAGicv3WithOneSecurityStateAndAffinityRouting)
{
    Gic g(3, 3, kMpidr);
    EXPECT_EQ(g.dist_read(0, D_CTLR, 4), 0x50u) << "ARE and DS: RAO/WI";
    g.dist_write(0, D_CTLR, 4, 0xFF, 0);
    EXPECT_EQ(g.dist_read(0, D_CTLR, 4), 0x53u);
    EXPECT_EQ(g.dist_read(0, D_TYPER, 4), 8u | 15u << 19) << "288 INTIDs, 16 ID bits";
    EXPECT_EQ(g.dist_read(0, D_PIDR2, 4), 0x3Bu);
    // Affinity routing: the distributor's registers of INTIDs 0 to 31,
    // GICD_ITARGETSR and GICD_SGIR are RAZ/WI.
    for (uint64_t off : { D_IGROUPR, D_ISENABLER, D_ISPENDR, D_IPRIORITYR, D_ITARGETSR + 32, D_SGIR }) {
        g.dist_write(0, off, 4, ~0u, 0);
        EXPECT_EQ(g.dist_read(0, off, 4), 0u) << off;
    }
    EXPECT_EQ(g.redist_read(0, R_ISENABLER0, 4, 0), 0u) << "GICv3's SGIs start disabled";
    EXPECT_EQ(g.redist_read(2, R_TYPER, 8, 0), 0x100ull << 32 | 2u << 8 | 1u << 4) << "affinity, number, Last";
    EXPECT_EQ(g.redist_read(1, R_TYPER, 4, 0), 1u << 8);
    EXPECT_EQ(g.redist_read(1, R_TYPER + 4, 4, 0), 1u);
    EXPECT_EQ(g.redist_read(0, R_WAKER, 4, 0), 6u) << "asleep out of reset";
    g.redist_write(0, R_WAKER, 4, 0, 0);
    EXPECT_EQ(g.redist_read(0, R_WAKER, 4, 0), 0u) << "awake: ChildrenAsleep follows";
    EXPECT_EQ(g.redist_read(0, R_PIDR2, 4, 0), 0x3Bu);
    EXPECT_EQ(g.redist_read(0, R_ICFGR0, 4, 0), 0xAAAAAAAAu) << "SGIs edge-triggered";
    EXPECT_EQ(g.icc_read(0, Icc::SRE, 0), 7u);
    EXPECT_EQ(g.icc_read(0, Icc::CTLR, 0), 7u << 8 | 1u << 15) << "PRIbits 8, A3V";
    EXPECT_EQ(g.icc_read(0, Icc::RPR, 0), 0xFFu) << "idle";
}

TEST(VirtGicv3, TheCpuInterfaceRegistersAreNamedByTheirEncodings)
{
    Icc r{};
    EXPECT_TRUE(Gic::icc_register(3, 0, 4, 6, 0, true, &r) && r == Icc::PMR);
    EXPECT_TRUE(Gic::icc_register(3, 0, 12, 12, 0, false, &r) && r == Icc::IAR1);
    EXPECT_TRUE(Gic::icc_register(3, 0, 12, 11, 5, true, &r) && r == Icc::SGI1R);
    EXPECT_TRUE(Gic::icc_register(3, 0, 12, 12, 7, false, &r) && r == Icc::IGRPEN1);
    EXPECT_TRUE(Gic::icc_register(3, 0, 12, 9, 3, false, &r) && r == Icc::AP1R3);
    EXPECT_FALSE(Gic::icc_register(3, 0, 12, 12, 0, true, &r)) << "ICC_IAR1_EL1 is read-only";
    EXPECT_FALSE(Gic::icc_register(3, 0, 12, 11, 5, false, &r)) << "ICC_SGI1R_EL1 is write-only";
    EXPECT_FALSE(Gic::icc_register(3, 0, 12, 11, 0, false, &r)) << "not a register";
    EXPECT_FALSE(Gic::icc_register(3, 0, 9, 12, 0, false, &r)) << "PMCR_EL0";
    EXPECT_FALSE(Gic::icc_register(3, 6, 12, 12, 5, false, &r)) << "ICC_SRE_EL3: no EL3";
}

TEST(VirtGicv3, RefusesWhatItIsNot)
{
    EXPECT_THROW(Gic(9, 3), std::invalid_argument);
    EXPECT_THROW(Gic(1, 4), std::invalid_argument);
}
