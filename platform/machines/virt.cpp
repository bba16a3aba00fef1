// SPDX-License-Identifier: Apache-2.0
//
// The virt machine's devices (virt.h).
#include "virt.h"
#include "pci.h"
#include "virtio.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <tuple>


extern "C" {
#include <libfdt.h>
}

namespace pmvp::soc::virt {

// ------------------------------------------------------------------ GICv2

namespace {
// Distributor and CPU interface register offsets (IHI 0048B, 4.1.2, 4.1.3).
enum : uint64_t {
    GICD_CTLR = 0x000,
    GICD_TYPER = 0x004,
    GICD_IIDR = 0x008,
    GICD_ISENABLER = 0x100,
    GICD_ICENABLER = 0x180,
    GICD_ISPENDR = 0x200,
    GICD_ICPENDR = 0x280,
    GICD_ISACTIVER = 0x300,
    GICD_ICACTIVER = 0x380,
    GICD_IPRIORITYR = 0x400,
    GICD_ITARGETSR = 0x800,
    GICD_ICFGR = 0xC00,
    GICD_SGIR = 0xF00,
    GICD_CPENDSGIR = 0xF10,
    GICD_SPENDSGIR = 0xF20,
    GICD_PIDR2 = 0xFE8,
    GICC_CTLR = 0x00,
    GICC_PMR = 0x04,
    GICC_BPR = 0x08,
    GICC_IAR = kGiccIar,
    GICC_EOIR = 0x10,
    GICC_RPR = 0x14,
    GICC_HPPIR = 0x18,
    GICC_IIDR = 0xFC,
    GICC_DIR = 0x1000,
};
constexpr unsigned kSpurious = 1023;
constexpr uint32_t kIidr = 0x0200043B;  // Arm, GICv2 (as GIC-400 reports)
constexpr uint32_t kCpuIidr = 0x0202143B;
constexpr uint8_t kIdle = 0xFF;  // running priority with nothing active
}  // namespace

Gic::Gic(unsigned cpus, unsigned version, std::vector<uint64_t> mpidr)
    : cpus_(cpus), version_(version), mpidr_(std::move(mpidr)), banked_(cpus), spi_(kIntids - 32), cpu_(cpus)
{
    if (cpus == 0 || cpus > kMaxCpus)
        throw std::invalid_argument("a GIC here has 1 to 8 CPU interfaces");
    if (version != 2 && version != 3)
        throw std::invalid_argument("a GIC here is a GICv2 or a GICv3");
    mpidr_.resize(cpus);
    for (auto &b : banked_)
        for (unsigned id = 0; id < 16; id++) {
            b[id].edge = true;             // SGIs are edge-triggered
            b[id].enabled = version == 2;  // and, as on GIC-400, always enabled; GICv3's are enabled by GICR_ISENABLER0
        }
    if (version == 3) {
        for (CpuIf &c : cpu_)
            c.bpr = 1;  // ICC_BPR1_EL1's minimum, BPR0's plus one
        for (Irq &q : spi_)
            route(q);  // GICD_IROUTER 0: the PE of affinity 0.0.0.0
    }
}

bool Gic::pending(const Irq &q, pmvp_time at) const
{
    return (q.latched || q.line) && q.since <= at;
}

uint8_t Gic::running_priority(unsigned cpu) const
{
    return cpu_[cpu].running.empty() ? kIdle : cpu_[cpu].running.back();
}

// The group priority bits (IHI 0048B 3.3.3): an interrupt preempts only
// with a higher group priority than the running one.
uint8_t Gic::group_mask(unsigned cpu) const
{
    const CpuIf &c = cpu_[cpu];
    if (version_ == 3)  // Group 1's field is [7:BPR1], or [7:BPR0 + 1] with ICC_CTLR_EL1.CBPR
        return (uint8_t)(0xFF << (c.cbpr ? c.bpr0 + 1 : c.bpr));
    return (uint8_t)(0xFF << (c.bpr + 1));
}

unsigned Gic::highest(unsigned cpu, pmvp_time at, uint32_t *iar) const
{
    unsigned best = kSpurious;
    unsigned best_prio = 0x100;
    uint32_t best_iar = kSpurious;
    if (!(dctlr_ & (version_ == 3 ? 2 : 1)))  // GICv3: EnableGrp1
        return kSpurious;
    for (unsigned id = 0; id < kIntids; id++) {
        const Irq &q = irq(cpu, id);
        if (!q.enabled || q.active || !pending(q, at) || q.priority >= best_prio)
            continue;
        if ((id >= 32 && !(q.targets & (1u << cpu))) || (version_ == 3 && !q.group1))
            continue;
        uint32_t v = id;
        if (id < 16 && version_ == 2) {  // the lowest-numbered sender first
            unsigned src = 0;
            while (!(q.sources & (1u << src)))
                src++;
            v |= src << 10;
        }
        best = id;
        best_prio = q.priority;
        best_iar = v;
    }
    if (iar)
        *iar = best_iar;
    return best;
}

bool Gic::signalled(unsigned cpu, pmvp_time at) const
{
    const CpuIf &c = cpu_[cpu];
    if (!(c.ctlr & 1))
        return false;
    unsigned id = highest(cpu, at, nullptr);
    if (id == kSpurious)
        return false;
    uint8_t p = irq(cpu, id).priority;
    return p < c.pmr && (p & group_mask(cpu)) < (running_priority(cpu) & group_mask(cpu));
}

bool Gic::would_signal(unsigned cpu, unsigned intid) const
{
    const CpuIf &c = cpu_[cpu];
    const Irq &q = irq(cpu, intid);
    return (dctlr_ & (version_ == 3 ? 2 : 1)) && (c.ctlr & 1) && q.enabled && !q.active && q.priority < c.pmr &&
           (version_ == 2 || q.group1) && (q.priority & group_mask(cpu)) < (running_priority(cpu) & group_mask(cpu));
}

pmvp_time Gic::next_pending(unsigned cpu, pmvp_time at) const
{
    pmvp_time next = PMVP_TIME_NEVER;
    for (unsigned id = 0; id < kIntids; id++) {
        const Irq &q = irq(cpu, id);
        if ((q.latched || q.line) && q.since > at && (id < 32 || (q.targets & (1u << cpu))))
            next = std::min(next, q.since);
    }
    return next;
}

void Gic::set_line(unsigned cpu, unsigned intid, bool high, pmvp_time at)
{
    if (intid < 16 || intid >= kIntids)
        return;  // an SGI has no line (software makes it pending); no such INTID
    Irq &q = irq(cpu, intid);
    if (high && !q.line)
        q.since = q.latched ? std::min(q.since, at) : at;
    q.line = high;
}

uint32_t Gic::bits(unsigned cpu, uint64_t base, uint64_t off, bool Irq::*field) const
{
    unsigned first = (unsigned)(off - base) * 8;
    uint32_t v = 0;
    for (unsigned i = 0; i < 32 && first + i < kIntids; i++) {
        const Irq &q = irq(cpu, first + i);
        bool b = q.*field;
        if (field == &Irq::latched)
            b = q.latched || q.line;  // the pending state, whatever made it
        v |= (uint32_t)b << i;
    }
    return v;
}

void Gic::set_bits(unsigned cpu, unsigned first, uint32_t v, bool set, bool Irq::*field, pmvp_time at)
{
    for (unsigned i = 0; i < 32 && first + i < kIntids; i++) {
        if (!(v & (1u << i)))
            continue;
        unsigned id = first + i;
        if (id < 16 && field != &Irq::active && version_ == 2)
            continue;  // GICv2's SGIs: their own registers set and clear them
        Irq &q = irq(cpu, id);
        if (field == &Irq::latched) {
            if (set && !q.latched)
                q.since = q.line ? std::min(q.since, at) : at;
            q.latched = set;  // clearing a level line's pending state lasts while the line is high
            if (id < 16)
                q.sources = set ? (uint8_t)(q.sources | 1) : 0;  // GICv3's SGIs: pending or not
        } else {
            q.*field = set;
        }
    }
}

uint64_t Gic::dist_read(unsigned cpu, uint64_t off, unsigned size) const
{
    if (uint64_t v = 0; version_ == 3 && dist3_read(off, size, &v))
        return v;
    auto in = [&](uint64_t base, uint64_t bytes) { return off >= base && off < base + bytes; };
    const uint64_t word = off & ~3ull;
    if (in(GICD_IPRIORITYR, kIntids) || in(GICD_ITARGETSR, kIntids)) {
        bool prio = in(GICD_IPRIORITYR, kIntids);
        unsigned first = (unsigned)(off - (prio ? GICD_IPRIORITYR : GICD_ITARGETSR));
        uint64_t v = 0;
        for (unsigned b = 0; b < size && first + b < kIntids; b++) {
            unsigned id = first + b;
            uint8_t x = prio ? irq(cpu, id).priority : id < 32 ? (uint8_t)(1u << cpu) : irq(cpu, id).targets;
            v |= (uint64_t)x << (8 * b);
        }
        return v;
    }
    if (in(GICD_ICFGR, kIntids / 4)) {
        unsigned first = (unsigned)(word - GICD_ICFGR) * 4;
        uint32_t v = 0;
        for (unsigned i = 0; i < 16 && first + i < kIntids; i++)
            v |= (irq(cpu, first + i).edge ? 2u : 0u) << (2 * i);
        return v;
    }
    if (in(GICD_ISENABLER, kIntids / 8) || in(GICD_ICENABLER, kIntids / 8))
        return bits(cpu, in(GICD_ISENABLER, kIntids / 8) ? GICD_ISENABLER : GICD_ICENABLER, word, &Irq::enabled);
    if (in(GICD_ISPENDR, kIntids / 8) || in(GICD_ICPENDR, kIntids / 8))
        return bits(cpu, in(GICD_ISPENDR, kIntids / 8) ? GICD_ISPENDR : GICD_ICPENDR, word, &Irq::latched);
    if (in(GICD_ISACTIVER, kIntids / 8) || in(GICD_ICACTIVER, kIntids / 8))
        return bits(cpu, in(GICD_ISACTIVER, kIntids / 8) ? GICD_ISACTIVER : GICD_ICACTIVER, word, &Irq::active);
    if (in(GICD_CPENDSGIR, 16) || in(GICD_SPENDSGIR, 16)) {
        unsigned first = (unsigned)(word - (in(GICD_CPENDSGIR, 16) ? GICD_CPENDSGIR : GICD_SPENDSGIR));
        uint32_t v = 0;
        for (unsigned b = 0; b < 4; b++)
            v |= (uint32_t)irq(cpu, first + b).sources << (8 * b);
        return v;
    }
    switch (word) {
    case GICD_CTLR: return dctlr_;
    case GICD_TYPER: return (kIntids / 32 - 1) | (cpus_ - 1) << 5;
    case GICD_IIDR: return kIidr;
    case GICD_PIDR2: return 0x2B;  // ArchRev 2
    default: return 0;             // reserved: RAZ
    }
}

// A write to the distributor: one case per register group of GICv2's
// GICD map, long as the map is.
uint32_t Gic::dist_write(unsigned cpu, uint64_t off, unsigned size, uint64_t value64, pmvp_time at)
{
    if (version_ == 3 && dist3_write(off, size, value64))
        return 0;
    const uint32_t value = (uint32_t)value64;
    auto in = [&](uint64_t base, uint64_t bytes) { return off >= base && off < base + bytes; };
    const uint64_t word = off & ~3ull;
    if (in(GICD_IPRIORITYR, kIntids) || in(GICD_ITARGETSR, kIntids)) {
        bool prio = in(GICD_IPRIORITYR, kIntids);
        unsigned first = (unsigned)(off - (prio ? GICD_IPRIORITYR : GICD_ITARGETSR));
        for (unsigned b = 0; b < size && first + b < kIntids; b++) {
            uint8_t x = (uint8_t)(value64 >> (8 * b));  // (a doubleword access: eight priorities)
            unsigned id = first + b;
            if (prio)
                irq(cpu, id).priority = x;
            else if (id >= 32)  // the banked targets are read-only
                irq(cpu, id).targets = (uint8_t)(x & ((1u << cpus_) - 1));
        }
        return 0;
    }
    if (in(GICD_ICFGR, kIntids / 4)) {
        unsigned first = (unsigned)(word - GICD_ICFGR) * 4;
        for (unsigned i = 0; i < 16 && first + i < kIntids; i++)
            if (first + i >= 32)  // SGIs and PPIs: fixed
                irq(cpu, first + i).edge = (value >> (2 * i + 1)) & 1;
        return 0;
    }
    for (auto [base, field, set] :
         { std::tuple{ GICD_ISENABLER, &Irq::enabled, true }, std::tuple{ GICD_ICENABLER, &Irq::enabled, false },
           std::tuple{ GICD_ISPENDR, &Irq::latched, true }, std::tuple{ GICD_ICPENDR, &Irq::latched, false },
           std::tuple{ GICD_ISACTIVER, &Irq::active, true }, std::tuple{ GICD_ICACTIVER, &Irq::active, false } })
        if (in(base, kIntids / 8)) {
            set_bits(cpu, (unsigned)(word - base) * 8, value, set, field, at);
            return 0;
        }
    if (in(GICD_CPENDSGIR, 16) || in(GICD_SPENDSGIR, 16)) {
        bool set = in(GICD_SPENDSGIR, 16);
        unsigned first = (unsigned)(word - (set ? GICD_SPENDSGIR : GICD_CPENDSGIR));
        for (unsigned b = 0; b < 4; b++) {
            Irq &q = irq(cpu, first + b);
            uint8_t m = (uint8_t)(value >> (8 * b));
            if (set && m && !q.latched)
                q.since = at;
            q.sources = set ? (uint8_t)(q.sources | m) : (uint8_t)(q.sources & ~m);
            q.latched = q.sources != 0;
        }
        return 0;
    }
    if (word == GICD_CTLR) {
        dctlr_ = value & 1;
    } else if (word == GICD_SGIR) {
        uint32_t targets = 0;
        switch ((value >> 24) & 3) {
        case 0: targets = (value >> 16) & 0xFF; break;
        case 1: targets = ((1u << cpus_) - 1) & ~(1u << cpu); break;
        case 2: targets = 1u << cpu; break;
        default: return 0;  // reserved: no SGI
        }
        targets &= (1u << cpus_) - 1;
        for (unsigned t = 0; t < cpus_; t++)
            if (targets & (1u << t))
                send_sgi(t, cpu, value & 0xF, at);
        return targets;
    }
    return 0;  // read-only and reserved: WI
}

uint32_t Gic::cpu_read(unsigned cpu, uint64_t off, pmvp_time at)
{
    CpuIf &c = cpu_[cpu];
    switch (off) {
    case GICC_CTLR: return c.ctlr;
    case GICC_PMR: return c.pmr;
    case GICC_BPR: return c.bpr;
    case GICC_RPR: return running_priority(cpu);
    case GICC_HPPIR: {
        uint32_t iar = kSpurious;
        highest(cpu, at, &iar);
        return iar;
    }
    case GICC_IIDR: return kCpuIidr;
    case GICC_IAR: return acknowledge(cpu, at);
    default: return 0;
    }
}

uint32_t Gic::acknowledge(unsigned cpu, pmvp_time at)
{
    uint32_t iar = kSpurious;
    if (!signalled(cpu, at))
        return kSpurious;
    unsigned id = highest(cpu, at, &iar);
    Irq &q = irq(cpu, id);
    if (id < 16) {  // GICv2: that sender's request is taken; another sender's stays pending
        q.sources &= version_ == 2 ? (uint8_t) ~(1u << ((iar >> 10) & 7)) : 0;
        q.latched = q.sources != 0;
    } else if (q.edge || !q.line) {
        q.latched = false;
    }
    q.active = true;
    CpuIf &c = cpu_[cpu];
    c.running.push_back(q.priority);
    c.acked.push_back(iar);
    return iar;
}

// The priority drop of the most recent acknowledgement of this interrupt;
// with EOImode 0 its deactivation too.
void Gic::end_of_interrupt(unsigned cpu, uint32_t iar)
{
    CpuIf &c = cpu_[cpu];
    auto it = std::find(c.acked.rbegin(), c.acked.rend(), iar);
    if (it == c.acked.rend())
        return;  // not active here: UNPREDICTABLE, ignored
    size_t i = (size_t)(c.acked.rend() - it) - 1;
    c.acked.erase(c.acked.begin() + (long)i);
    c.running.erase(c.running.begin() + (long)i);
    if (!(c.ctlr & 0x200))
        deactivate(cpu, iar);
}

// SGI `id` from CPU `cpu` pending on CPU `target` from `at`.
void Gic::send_sgi(unsigned target, unsigned cpu, unsigned id, pmvp_time at)
{
    Irq &q = irq(target, id);
    if (!q.latched)
        q.since = at;
    q.latched = true;
    q.sources |= (uint8_t)(1u << cpu);
}

void Gic::deactivate(unsigned cpu, uint32_t iar)
{
    unsigned id = iar & 0x3FF;
    if (id < kIntids)
        irq(cpu, id).active = false;
}

void Gic::cpu_write(unsigned cpu, uint64_t off, uint32_t value, pmvp_time)
{
    CpuIf &c = cpu_[cpu];
    switch (off) {
    case GICC_CTLR: c.ctlr = value & 0x201; break;  // Enable, EOImodeNS
    case GICC_PMR: c.pmr = value & 0xFF; break;
    case GICC_BPR: c.bpr = std::max<uint32_t>(value & 7, 2); break;  // the minimum value is 2 with 8 priority bits
    case GICC_EOIR: end_of_interrupt(cpu, value & 0x1FFF); break;
    case GICC_DIR: deactivate(cpu, value); break;
    default: break;
    }
}

// ------------------------------------------------------------------ PL011

namespace {
enum : uint64_t { UARTDR = 0x00, UARTFR = 0x18, UARTPeriphID0 = 0xFE0 };
constexpr uint32_t kFrRxfe = 1u << 4, kFrTxfe = 1u << 7;
// UARTPeriphID0-3, UARTPCellID0-3 (DDI 0183G 3.3.14-15).
constexpr uint8_t kIds[8] = { 0x11, 0x10, 0x14, 0x00, 0x0D, 0xF0, 0x05, 0xB1 };
}  // namespace

uint32_t Pl011::read(uint64_t off) const
{
    if (off == UARTDR)
        return 0;  // nothing received
    if (off == UARTFR)
        return kFrRxfe | kFrTxfe;  // receive FIFO empty, transmit FIFO empty
    if (off >= UARTPeriphID0 && off < UARTPeriphID0 + 32 && off % 4 == 0)
        return kIds[(off - UARTPeriphID0) / 4];
    return off / 4 < regs_.size() && off % 4 == 0 ? regs_[off / 4] : 0;
}

bool Pl011::write(uint64_t off, uint32_t value, char *c)
{
    if (off == UARTDR) {
        *c = (char)(value & 0xFF);
        return true;
    }
    if (off != UARTFR && off / 4 < regs_.size() && off % 4 == 0)
        regs_[off / 4] = value;
    return false;
}

// ------------------------------------------------------------- device tree

namespace {
// A libfdt call that must succeed.
void ok(int err, const char *what)
{
    if (err < 0)
        throw std::runtime_error(std::string("the device tree: ") + what + ": " + fdt_strerror(err));
}

// A property of 32-bit cells, big-endian.
void cells(void *fdt, const char *name, std::initializer_list<uint32_t> v)
{
    std::vector<fdt32_t> be;
    for (uint32_t x : v)
        be.push_back(cpu_to_fdt32(x));
    ok(fdt_property(fdt, name, be.data(), (int)(be.size() * sizeof(fdt32_t))), name);
}

void reg64(void *fdt, uint64_t base, uint64_t size)
{
    cells(fdt, "reg", { (uint32_t)(base >> 32), (uint32_t)base, (uint32_t)(size >> 32), (uint32_t)size });
}

// A string list property ("a\0b\0").
void strings(void *fdt, const char *name, std::initializer_list<const char *> v)
{
    std::string all;
    for (const char *s : v)
        all.append(s).push_back('\0');
    ok(fdt_property(fdt, name, all.data(), (int)all.size()), name);
}

std::string hex(uint64_t v)
{
    char b[24];
    std::snprintf(b, sizeof b, "%llx", (unsigned long long)v);
    return b;
}

constexpr uint32_t kGicPhandle = 1, kClockPhandle = 2;
constexpr uint32_t kGicPpi = 1, kIrqLevelHigh = 4, kIrqLevelLow = 8;  // the GIC binding's interrupt cells

// The CPUs, one node per MPIDR, and PSCI, their enable method.
void add_cpus(void *fdt, const std::vector<uint64_t> &mpidr)
{
    ok(fdt_begin_node(fdt, "cpus"), "cpus");
    cells(fdt, "#address-cells", { 2 });
    cells(fdt, "#size-cells", { 0 });
    for (uint64_t m : mpidr) {
        uint64_t id = m & 0xFF00FFFFFFull;  // the affinity fields
        ok(fdt_begin_node(fdt, ("cpu@" + hex(id)).c_str()), "cpu");
        ok(fdt_property_string(fdt, "device_type", "cpu"), "cpu");
        strings(fdt, "compatible", { "arm,cortex-a72", "arm,armv8" });
        cells(fdt, "reg", { (uint32_t)(id >> 32), (uint32_t)id });
        ok(fdt_property_string(fdt, "enable-method", "psci"), "cpu");
        ok(fdt_end_node(fdt), "cpu");
    }
    ok(fdt_end_node(fdt), "cpus");

    ok(fdt_begin_node(fdt, "psci"), "psci");
    strings(fdt, "compatible", { "arm,psci-1.0", "arm,psci-0.2", "arm,psci" });
    ok(fdt_property_string(fdt, "method", "hvc"), "psci");
    cells(fdt, "cpu_suspend", { virt::psci::kCpuSuspend });
    cells(fdt, "cpu_off", { virt::psci::kCpuOff });
    cells(fdt, "cpu_on", { virt::psci::kCpuOn });
    ok(fdt_end_node(fdt), "psci");
}

// The PL011 UART and its 24 MHz clock.
void add_uart(void *fdt)
{
    ok(fdt_begin_node(fdt, "apb-pclk"), "clock");
    strings(fdt, "compatible", { "fixed-clock" });
    cells(fdt, "#clock-cells", { 0 });
    cells(fdt, "clock-frequency", { 24000000 });
    ok(fdt_property_string(fdt, "clock-output-names", "clk24mhz"), "clock");
    cells(fdt, "phandle", { kClockPhandle });
    ok(fdt_end_node(fdt), "clock");

    ok(fdt_begin_node(fdt, ("pl011@" + hex(kUart)).c_str()), "pl011");
    strings(fdt, "compatible", { "arm,pl011", "arm,primecell" });
    reg64(fdt, kUart, kUartSize);
    cells(fdt, "interrupts", { 0, 1, kIrqLevelHigh });  // SPI 1, as on QEMU (never raised here)
    cells(fdt, "clocks", { kClockPhandle, kClockPhandle });
    strings(fdt, "clock-names", { "uartclk", "apb_pclk" });
    ok(fdt_end_node(fdt), "pl011");
}

// The GICv2, and the PPIs of the timer and (if present) the PMU.
void add_interrupts(void *fdt, const DtbSpec &spec)
{
    const bool v3 = spec.gic_version == 3;
    // The GICv2 binding's CPU mask in a PPI's flags (the GICv3 binding has none).
    const uint32_t ppi_mask = v3 ? 0 : (uint32_t)((1u << spec.mpidr.size()) - 1) << 8;
    ok(fdt_begin_node(fdt, ("intc@" + hex(kGicDist)).c_str()), "gic");
    strings(fdt, "compatible", { v3 ? "arm,gic-v3" : "arm,cortex-a15-gic" });
    cells(fdt, "#interrupt-cells", { 3 });
    ok(fdt_property(fdt, "interrupt-controller", nullptr, 0), "gic");
    if (v3) {
        const uint32_t redist = (uint32_t)(spec.mpidr.size() * Gic::kRedistSize);
        cells(fdt, "reg", { 0, (uint32_t)kGicDist, 0, (uint32_t)kGicDistSize, 0, (uint32_t)kGicRedist, 0, redist });
        cells(fdt, "#redistributor-regions", { 1 });
    } else {
        cells(fdt, "reg",
              { 0, (uint32_t)kGicDist, 0, (uint32_t)kGicDistSize, 0, (uint32_t)kGicCpu, 0, (uint32_t)kGicCpuSize });
    }
    cells(fdt, "#address-cells", { 2 });
    cells(fdt, "#size-cells", { 2 });
    cells(fdt, "phandle", { kGicPhandle });
    ok(fdt_end_node(fdt), "gic");

    ok(fdt_begin_node(fdt, "timer"), "timer");
    strings(fdt, "compatible", { "arm,armv8-timer" });
    ok(fdt_property(fdt, "always-on", nullptr, 0), "timer");
    // Secure, non-secure physical, virtual, hypervisor physical: PPIs 13, 14, 11, 10.
    cells(fdt, "interrupts",
          { kGicPpi, 13, ppi_mask | kIrqLevelLow, kGicPpi, 14, ppi_mask | kIrqLevelLow, kGicPpi, 11,
            ppi_mask | kIrqLevelLow, kGicPpi, 10, ppi_mask | kIrqLevelLow });
    ok(fdt_end_node(fdt), "timer");

    if (spec.pmu) {
        ok(fdt_begin_node(fdt, "pmu"), "pmu");
        strings(fdt, "compatible", { "arm,armv8-pmuv3" });
        cells(fdt, "interrupts", { kGicPpi, kIntidPmu - 16, ppi_mask | kIrqLevelHigh });
        ok(fdt_end_node(fdt), "pmu");
    }
}

// The virtio-mmio transports, lowest address first as in QEMU's tree; each
// on its SPI, edge-triggered as QEMU describes them.
void add_virtio(void *fdt)
{
    constexpr uint32_t kGicSpi = 0, kIrqEdgeRising = 1;
    for (unsigned slot = 0; slot < kVirtioSlots; slot++) {
        const uint64_t base = kVirtioBase + slot * kVirtioSlotSize;
        ok(fdt_begin_node(fdt, ("virtio_mmio@" + hex(base)).c_str()), "virtio_mmio");
        ok(fdt_property(fdt, "dma-coherent", nullptr, 0), "virtio_mmio");
        cells(fdt, "interrupts", { kGicSpi, kVirtioFirstSpi + slot, kIrqEdgeRising });
        reg64(fdt, base, kVirtioSlotSize);
        strings(fdt, "compatible", { "virtio,mmio" });
        ok(fdt_end_node(fdt), "virtio_mmio");
    }
}

// The PCI Express host bridge (the pci-host-ecam-generic binding): its ECAM,
// buses, and windows (I/O from PCI address 0; memory at the same address
// on both sides).
void add_pcie(void *fdt)
{
    constexpr uint32_t kIoSpace = 0x01000000, kMem32Space = 0x02000000;
    ok(fdt_begin_node(fdt, ("pcie@" + hex(kPcieEcam)).c_str()), "pcie");
    strings(fdt, "compatible", { "pci-host-ecam-generic" });
    ok(fdt_property_string(fdt, "device_type", "pci"), "pcie");
    cells(fdt, "#address-cells", { 3 });
    cells(fdt, "#size-cells", { 2 });
    reg64(fdt, kPcieEcam, kPcieEcamSize);
    cells(fdt, "bus-range", { 0, (uint32_t)(kPcieEcamSize >> 20) - 1 });
    cells(fdt, "linux,pci-domain", { 0 });
    ok(fdt_property(fdt, "dma-coherent", nullptr, 0), "pcie");
    cells(fdt, "ranges",
          { kIoSpace, 0, 0, 0, (uint32_t)kPciePio, 0, (uint32_t)kPciePioSize,  //
            kMem32Space, 0, (uint32_t)kPcieMmio, 0, (uint32_t)kPcieMmio, 0, (uint32_t)kPcieMmioSize });
    ok(fdt_end_node(fdt), "pcie");
}

}  // namespace

// The nodes in the order of the tree, as QEMU's virt board lays it out.
std::vector<uint8_t> build_dtb(const DtbSpec &spec)
{
    std::vector<uint8_t> buf(64 * 1024 + spec.mpidr.size() * 256 + spec.bootargs.size());
    void *fdt = buf.data();
    ok(fdt_create(fdt, (int)buf.size()), "create");
    ok(fdt_finish_reservemap(fdt), "reserve map");
    ok(fdt_begin_node(fdt, ""), "root");
    strings(fdt, "compatible", { "linux,dummy-virt" });
    ok(fdt_property_string(fdt, "model", "pmvp virt"), "model");
    cells(fdt, "#address-cells", { 2 });
    cells(fdt, "#size-cells", { 2 });
    cells(fdt, "interrupt-parent", { kGicPhandle });

    ok(fdt_begin_node(fdt, "chosen"), "chosen");
    ok(fdt_property_string(fdt, "bootargs", spec.bootargs.c_str()), "bootargs");
    if (spec.initrd_end > spec.initrd_start) {
        ok(fdt_property_u64(fdt, "linux,initrd-start", spec.initrd_start), "linux,initrd-start");
        ok(fdt_property_u64(fdt, "linux,initrd-end", spec.initrd_end), "linux,initrd-end");
    }
    ok(fdt_property_string(fdt, "stdout-path", ("/pl011@" + hex(kUart)).c_str()), "stdout-path");
    ok(fdt_end_node(fdt), "chosen");

    ok(fdt_begin_node(fdt, ("memory@" + hex(0x40000000)).c_str()), "memory");
    ok(fdt_property_string(fdt, "device_type", "memory"), "memory");
    reg64(fdt, 0x40000000, spec.memory);
    ok(fdt_end_node(fdt), "memory");

    add_cpus(fdt, spec.mpidr);
    add_uart(fdt);
    add_virtio(fdt);
    add_pcie(fdt);
    add_interrupts(fdt, spec);
    ok(fdt_end_node(fdt), "root");
    ok(fdt_finish(fdt), "finish");
    buf.resize(fdt_totalsize(fdt));
    return buf;
}

}  // namespace pmvp::soc::virt

namespace pmvp::soc::virt {

std::vector<uint8_t> patch_dtb(const std::vector<uint8_t> &blob, const DtbSpec &spec)
{
    if (blob.size() < sizeof(fdt_header) || fdt_check_header(blob.data()) != 0 ||
        fdt_totalsize(blob.data()) > blob.size())
        throw std::runtime_error("the device tree: not a flattened device tree blob");
    std::vector<uint8_t> buf(fdt_totalsize(blob.data()) + 4096 + spec.bootargs.size());
    void *fdt = buf.data();
    ok(fdt_open_into(blob.data(), fdt, (int)buf.size()), "open");
    int chosen = fdt_path_offset(fdt, "/chosen");
    if (chosen == -FDT_ERR_NOTFOUND)
        chosen = fdt_add_subnode(fdt, 0, "chosen");
    ok(chosen, "/chosen");
    if (!spec.bootargs.empty())
        ok(fdt_setprop_string(fdt, chosen, "bootargs", spec.bootargs.c_str()), "bootargs");
    if (spec.initrd_end > spec.initrd_start) {
        ok(fdt_setprop_u64(fdt, chosen, "linux,initrd-start", spec.initrd_start), "linux,initrd-start");
        ok(fdt_setprop_u64(fdt, chosen, "linux,initrd-end", spec.initrd_end), "linux,initrd-end");
    }
    ok(fdt_pack(fdt), "pack");
    buf.resize(fdt_totalsize(fdt));
    return buf;
}

}  // namespace pmvp::soc::virt
