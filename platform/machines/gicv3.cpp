// SPDX-License-Identifier: Apache-2.0
//
// The GIC as a GICv3 (virt.h, Arm IHI 0069): its distributor's own
// registers, the redistributors, and the CPU interface's System registers.
// The interrupts' state, their priorities, acknowledgement and end of
// interrupt are the GIC's whatever its version (virt.cpp).
#include "virt.h"

#include <algorithm>

namespace pmvp::soc::virt {

namespace {
// Distributor (IHI 0069, 12.9) and redistributor (12.10, 12.11) offsets.
enum : uint64_t {
    GICD_CTLR = 0x0000,
    GICD_TYPER = 0x0004,
    GICD_IIDR = 0x0008,
    GICD_IGROUPR = 0x0080,
    GICD_ISENABLER = 0x0100,
    GICD_ICACTIVER_END = 0x0400,
    GICD_IPRIORITYR = 0x0400,
    GICD_ICFGR = 0x0C00,
    GICD_IROUTER = 0x6000,
    GICD_PIDR2 = 0xFFE8,
    GICR_CTLR = 0x0000,
    GICR_IIDR = 0x0004,
    GICR_TYPER = 0x0008,
    GICR_WAKER = 0x0014,
    GICR_PIDR2 = 0xFFE8,
    GICR_SGI_BASE = 0x10000,
    GICR_IGROUPR0 = 0x0080,
    GICR_ISENABLER0 = 0x0100,
    GICR_ICENABLER0 = 0x0180,
    GICR_ISPENDR0 = 0x0200,
    GICR_ICPENDR0 = 0x0280,
    GICR_ISACTIVER0 = 0x0300,
    GICR_ICACTIVER0 = 0x0380,
    GICR_IPRIORITYR = 0x0400,
    GICR_ICFGR0 = 0x0C00,
    GICR_ICFGR1 = 0x0C04,
};
constexpr uint32_t kDistCtlrAre = 1u << 4, kDistCtlrDs = 1u << 6;  // RAO/WI: affinity routing, one Security state
constexpr uint32_t kIidr = 0x0300043B;                             // Arm, GICv3
constexpr uint32_t kPidr2 = 0x3B;                                  // ArchRev 3
constexpr uint32_t kSpurious = 1023;
constexpr uint64_t kIroutIrm = 1ull << 31;
constexpr uint32_t kWakerProcessorSleep = 2, kWakerChildrenAsleep = 4;
constexpr uint64_t kSgiIrm = 1ull << 40;

// A 64-bit register's bytes an access of `size` at `off` reads.
uint64_t part(uint64_t reg, uint64_t off, unsigned size)
{
    uint64_t v = reg >> (8 * (off & 7));
    return size >= 8 ? v : v & ((1ull << (8 * size)) - 1);
}

// `reg` with the bytes an access of `size` at `off` writes.
uint64_t merge(uint64_t reg, uint64_t off, unsigned size, uint64_t value)
{
    const unsigned shift = 8 * (unsigned)(off & 7);
    const uint64_t mask = (size >= 8 ? ~0ull : (1ull << (8 * size)) - 1) << shift;
    return (reg & ~mask) | ((value << shift) & mask);
}

// The affinity fields of an MPIDR_EL1 as GICD_IROUTER and GICR_TYPER lay
// them out (Aff3 at [39:32], Aff2 to Aff0 at [23:0]).
uint64_t affinity(uint64_t mpidr)
{
    return mpidr & 0xFF00FFFFFFull;
}
}  // namespace

void Gic::route(Irq &q)
{
    q.targets = 0;
    for (unsigned c = 0; c < cpus_; c++)
        if ((q.route & kIroutIrm) || affinity(mpidr_[c]) == (q.route & 0xFF00FFFFFFull))
            q.targets |= (uint8_t)(1u << c);
}

// GICv3's own distributor registers, and GICv2's that affinity routing
// makes RAZ/WI: those of INTIDs 0 to 31 (the redistributors' now),
// GICD_ITARGETSR, GICD_SGIR and the SGI pending registers.
bool Gic::dist3_read(uint64_t off, unsigned size, uint64_t *v) const
{
    const uint64_t word = off & ~3ull;
    const bool spi_range = (off >= GICD_ISENABLER && off < GICD_ICACTIVER_END && (off & 0x7F) >= 4) ||
                           (off >= GICD_IPRIORITYR + 32 && off < GICD_IPRIORITYR + kIntids) ||
                           (off >= GICD_ICFGR + 8 && off < GICD_ICFGR + kIntids / 4);
    if (spi_range)
        return false;  // as GICv2's
    *v = 0;
    if (off >= GICD_IGROUPR + 4 && off < GICD_IGROUPR + kIntids / 8) {
        *v = bits(0, GICD_IGROUPR, word, &Irq::group1);
    } else if (off >= GICD_IROUTER + 8 * 32 && off < GICD_IROUTER + 8 * kIntids) {
        *v = part(spi_[(off - GICD_IROUTER) / 8 - 32].route, off, size);
    } else if (word == GICD_CTLR) {
        *v = dctlr_ | kDistCtlrAre | kDistCtlrDs;
    } else if (word == GICD_TYPER) {
        *v = (kIntids / 32 - 1) | 15u << 19;  // ITLinesNumber, IDbits (16 bits); no LPIs, no security
    } else if (word == GICD_IIDR) {
        *v = kIidr;
    } else if (word == GICD_PIDR2) {
        *v = kPidr2;
    }
    return true;  // the rest: RAZ
}

bool Gic::dist3_write(uint64_t off, unsigned size, uint64_t value)
{
    uint64_t ignored = 0;
    if (!dist3_read(off, size, &ignored))
        return false;  // as GICv2's
    const uint64_t word = off & ~3ull;
    if (off >= GICD_IGROUPR + 4 && off < GICD_IGROUPR + kIntids / 8) {
        set_bits(0, (unsigned)(word - GICD_IGROUPR) * 8, (uint32_t)value, true, &Irq::group1, 0);
        set_bits(0, (unsigned)(word - GICD_IGROUPR) * 8, ~(uint32_t)value, false, &Irq::group1, 0);
    } else if (off >= GICD_IROUTER + 8 * 32 && off < GICD_IROUTER + 8 * kIntids) {
        Irq &q = spi_[(off - GICD_IROUTER) / 8 - 32];
        q.route = merge(q.route, off, size, value) & (0xFF00FFFFFFull | kIroutIrm);
        route(q);
    } else if (word == GICD_CTLR) {
        dctlr_ = (uint32_t)value & 3;  // EnableGrp0, EnableGrp1
    }
    return true;  // the rest: WI
}

uint64_t Gic::redist_read(unsigned rd, uint64_t off, unsigned size, pmvp_time) const
{
    const uint64_t word = off & ~3ull;
    const CpuIf &c = cpu_[rd];
    if (off < GICR_SGI_BASE) {
        if (off >= GICR_TYPER && off < GICR_TYPER + 8) {  // Affinity_Value, Processor_Number, Last
            uint64_t typer = affinity(mpidr_[rd]) << 32 | (uint64_t)rd << 8 | (rd + 1 == cpus_ ? 1u << 4 : 0);
            return part(typer, off - GICR_TYPER, size);
        }
        switch (word) {
        case GICR_IIDR: return kIidr;
        case GICR_WAKER: return c.waker;
        case GICR_PIDR2: return kPidr2;
        default: return 0;  // GICR_CTLR (no LPIs) and the rest: RAZ
        }
    }
    const uint64_t sgi = off - GICR_SGI_BASE, sgi_word = sgi & ~3ull;
    if (sgi >= GICR_IPRIORITYR && sgi < GICR_IPRIORITYR + 32) {
        uint64_t v = 0;
        for (unsigned b = 0; b < size && sgi - GICR_IPRIORITYR + b < 32; b++)
            v |= (uint64_t)irq(rd, (unsigned)(sgi - GICR_IPRIORITYR) + b).priority << (8 * b);
        return v;
    }
    switch (sgi_word) {
    case GICR_IGROUPR0: return bits(rd, GICR_IGROUPR0, GICR_IGROUPR0, &Irq::group1);
    case GICR_ISENABLER0:
    case GICR_ICENABLER0: return bits(rd, sgi_word, sgi_word, &Irq::enabled);
    case GICR_ISPENDR0:
    case GICR_ICPENDR0: return bits(rd, sgi_word, sgi_word, &Irq::latched);
    case GICR_ISACTIVER0:
    case GICR_ICACTIVER0: return bits(rd, sgi_word, sgi_word, &Irq::active);
    case GICR_ICFGR0: return 0xAAAAAAAA;  // SGIs: edge-triggered
    default: return 0;                    // GICR_ICFGR1 (PPIs: level), GICR_IGRPMODR0 (one Security state)
    }
}

void Gic::redist_write(unsigned rd, uint64_t off, unsigned size, uint64_t value, pmvp_time at)
{
    CpuIf &c = cpu_[rd];
    if (off < GICR_SGI_BASE) {
        if ((off & ~3ull) == GICR_WAKER)  // ChildrenAsleep follows ProcessorSleep at once
            c.waker = value & kWakerProcessorSleep ? kWakerProcessorSleep | kWakerChildrenAsleep : 0;
        return;  // the rest: read-only or RAZ/WI
    }
    const uint64_t sgi = off - GICR_SGI_BASE, sgi_word = sgi & ~3ull;
    const uint32_t v = (uint32_t)value;
    if (sgi >= GICR_IPRIORITYR && sgi < GICR_IPRIORITYR + 32) {
        for (unsigned b = 0; b < size && sgi - GICR_IPRIORITYR + b < 32; b++)
            irq(rd, (unsigned)(sgi - GICR_IPRIORITYR) + b).priority = (uint8_t)(value >> (8 * b));
        return;
    }
    switch (sgi_word) {
    case GICR_IGROUPR0:
        set_bits(rd, 0, v, true, &Irq::group1, at);
        set_bits(rd, 0, ~v, false, &Irq::group1, at);
        break;
    case GICR_ISENABLER0: set_bits(rd, 0, v, true, &Irq::enabled, at); break;
    case GICR_ICENABLER0: set_bits(rd, 0, v, false, &Irq::enabled, at); break;
    case GICR_ISPENDR0: set_bits(rd, 0, v, true, &Irq::latched, at); break;
    case GICR_ICPENDR0: set_bits(rd, 0, v, false, &Irq::latched, at); break;
    case GICR_ISACTIVER0: set_bits(rd, 0, v, true, &Irq::active, at); break;
    case GICR_ICACTIVER0: set_bits(rd, 0, v, false, &Irq::active, at); break;
    default: break;  // read-only (GICR_ICFGR0) or fixed (GICR_ICFGR1): WI
    }
}

bool Gic::icc_register(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, bool write, Icc *reg)
{
    using I = Icc;
    static const I crm8[] = { I::IAR0, I::EOIR0, I::HPPIR0, I::BPR0, I::AP0R0, I::AP0R1, I::AP0R2, I::AP0R3 };
    static const I crm9[] = { I::AP1R0, I::AP1R1, I::AP1R2, I::AP1R3 };
    static const I crm12[] = { I::IAR1, I::EOIR1, I::HPPIR1, I::BPR1, I::CTLR, I::SRE, I::IGRPEN0, I::IGRPEN1 };
    if (op0 != 3 || op1 != 0 || op2 > 7)
        return false;
    I r;
    if (crn == 4 && crm == 6 && op2 == 0)
        r = I::PMR;
    else if (crn != 12)
        return false;
    else if (crm == 8)
        r = crm8[op2];
    else if (crm == 9 && op2 < 4)
        r = crm9[op2];
    else if (crm == 11 && (op2 == 1 || op2 == 3 || op2 >= 5))
        r = op2 == 1 ? I::DIR : op2 == 3 ? I::RPR : op2 == 5 ? I::SGI1R : op2 == 6 ? I::ASGI1R : I::SGI0R;
    else if (crm == 12)
        r = crm12[op2];
    else
        return false;
    // The write-only and read-only registers: the other access is UNDEFINED.
    const bool write_only =
        r == I::EOIR0 || r == I::EOIR1 || r == I::DIR || r == I::SGI1R || r == I::ASGI1R || r == I::SGI0R;
    const bool read_only = r == I::IAR0 || r == I::IAR1 || r == I::HPPIR0 || r == I::HPPIR1 || r == I::RPR;
    if ((write && read_only) || (!write && write_only))
        return false;
    *reg = r;
    return true;
}

uint64_t Gic::icc_read(unsigned cpu, Icc reg, pmvp_time at)
{
    const CpuIf &c = cpu_[cpu];
    switch (reg) {
    case Icc::PMR: return c.pmr;
    case Icc::IAR1: return acknowledge(cpu, at);
    case Icc::HPPIR1: {
        uint32_t iar = kSpurious;
        highest(cpu, at, &iar);
        return iar;
    }
    case Icc::IAR0:
    case Icc::HPPIR0: return kSpurious;  // no Group 0 interrupt is signalled
    case Icc::BPR0: return c.bpr0;
    case Icc::BPR1: return c.cbpr ? std::min<uint32_t>(c.bpr0 + 1, 7) : c.bpr;
    case Icc::AP1R0:
    case Icc::AP1R1:
    case Icc::AP1R2:
    case Icc::AP1R3: {  // a bit for each active group priority (7 bits: 128 of them over four registers)
        const unsigned n = (unsigned)reg - (unsigned)Icc::AP1R0;
        uint64_t v = 0;
        for (uint8_t p : c.running)
            if (unsigned bit = (p & group_mask(cpu)) >> 1; bit / 32 == n)
                v |= 1ull << (bit % 32);
        return v;
    }
    case Icc::RPR: return running_priority(cpu);
    case Icc::CTLR: return c.cbpr | (c.ctlr & 0x200 ? 2u : 0) | 7u << 8 | 1u << 15;  // PRIbits 8, A3V
    case Icc::SRE: return 7;                                                         // SRE, DFB, DIB: RAO/WI
    case Icc::IGRPEN0: return c.igrpen0;
    case Icc::IGRPEN1: return c.ctlr & 1;
    default: return 0;  // ICC_AP0R<n>_EL1: no Group 0 interrupt is active
    }
}

uint32_t Gic::icc_write(unsigned cpu, Icc reg, uint64_t value, pmvp_time at)
{
    CpuIf &c = cpu_[cpu];
    switch (reg) {
    case Icc::PMR: c.pmr = value & 0xFF; break;
    case Icc::EOIR1: end_of_interrupt(cpu, value & 0xFFFFFF); break;
    case Icc::DIR: deactivate(cpu, value & 0xFFFFFF); break;
    case Icc::BPR0: c.bpr0 = value & 7; break;
    case Icc::BPR1:
        if (!c.cbpr)
            c.bpr = std::max<uint32_t>(value & 7, 1);  // the minimum is 1 with 8 priority bits
        break;
    case Icc::CTLR:
        c.cbpr = value & 1;
        c.ctlr = (c.ctlr & ~0x200u) | (value & 2 ? 0x200u : 0);  // EOImode
        break;
    case Icc::IGRPEN0: c.igrpen0 = value & 1; break;
    case Icc::IGRPEN1: c.ctlr = (c.ctlr & ~1u) | (value & 1); break;
    case Icc::SGI1R: return sgi_by_affinity(cpu, value, true, at);
    case Icc::SGI0R:
    case Icc::ASGI1R: return sgi_by_affinity(cpu, value, false, at);
    default: break;  // ICC_EOIR0_EL1 (nothing of Group 0 is acknowledged), ICC_SRE_EL1, ICC_AP<n>R<m>_EL1: WI
    }
    return 0;
}

// ICC_SGI1R_EL1 and the like (IHI 0069, 12.2.22): the PEs the affinity and
// target list (or IRM, all but the sender) name, if the SGI is of the
// register's group there.
uint32_t Gic::sgi_by_affinity(unsigned cpu, uint64_t value, bool group1, pmvp_time at)
{
    const unsigned id = (value >> 24) & 0xF, rs = (value >> 44) & 0xF;
    const uint64_t upper = ((value >> 16) & 0xFF) << 8 | ((value >> 32) & 0xFF) << 16 | ((value >> 48) & 0xFF) << 32;
    uint32_t sent = 0;
    for (unsigned t = 0; t < cpus_; t++) {
        const uint64_t aff = affinity(mpidr_[t]), aff0 = aff & 0xFF;
        const bool named =
            value & kSgiIrm ? t != cpu : (aff & ~0xFFull) == upper && aff0 / 16 == rs && (value >> (aff0 % 16)) & 1;
        if (!named || irq(t, id).group1 != group1)
            continue;
        send_sgi(t, cpu, id, at);
        sent |= 1u << t;
    }
    return sent;
}

}  // namespace pmvp::soc::virt
