// SPDX-License-Identifier: Apache-2.0
//
// The devices of the virt machine (docs/FIRMWARE.md, "The virt machine"):
// what QEMU's `virt` board gives a guest at the same addresses, so images
// built for `qemu-system-aarch64 -M virt` boot unchanged. Without SystemC or
// Unicorn: the ISS (platform/iss/machine_virt.cpp) maps them and calls them with each
// access's instant.
#pragma once

#include <array>
#include <stdexcept>
#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "pmvp/clock.h"
}

namespace pmvp::soc::virt {

// QEMU's virt memory map (hw/arm/virt.c).
constexpr uint64_t kGicDist = 0x08000000, kGicDistSize = 0x10000;
constexpr uint64_t kGicCpu = 0x08010000, kGicCpuSize = 0x10000;
constexpr uint64_t kGicRedist = 0x080A0000;  // GICv3: the redistributors, one Gic::kRedistSize frame pair a PE
constexpr uint64_t kUart = 0x09000000, kUartSize = 0x1000;
constexpr uint64_t kGiccIar = 0x0C;  // GICC_IAR's offset: reading it acknowledges

// The interrupts the platform wires (PPIs, as INTIDs).
constexpr unsigned kIntidPmu = 23, kIntidVirtTimer = 27, kIntidPhysTimer = 30;

// The GIC: a GICv2 (Arm IHI 0048B) or, built with version 3, a GICv3
// (Arm IHI 0069) as QEMU's virt gives it with gic-version=3. One CPU
// interface per PE (at most 8), 256 SPIs, 8 priority bits. Interrupts: SGIs
// are edge-triggered, PPIs level-sensitive (their lines set by the
// platform), SPIs as GICD_ICFGR says (a device's line, or made pending by
// software). Pending state set by software or a line remembers its
// instant: a PE that ran ahead of the writer in the quantum does not see
// it before then.
// - GICv2: security extensions absent, every interrupt in one group; the
//   distributor and the memory-mapped CPU interface.
// - GICv3: one Security state (GICD_CTLR.DS 1) and affinity routing
//   (ARE RAO/WI, as QEMU); the distributor (SPIs, GICD_IROUTER), a
//   redistributor per PE (its SGIs and PPIs, GICR_TYPER, GICR_WAKER), and the
//   CPU interface as ICC_* System registers (icc_read, icc_write). Group 1
//   interrupts are IRQs; a Group 0 interrupt would be an FIQ, which the
//   platform does not deliver: it is never signalled. No LPIs, no ITS.
class Gic {
public:
    static constexpr unsigned kIntids = 288, kMaxCpus = 8;
    // `mpidr`: each CPU interface's PE's affinity (GICv3 routes by it).
    explicit Gic(unsigned cpus, unsigned version = 2, std::vector<uint64_t> mpidr = {});
    unsigned cpus() const { return cpus_; }
    unsigned version() const { return version_; }

    // Register accesses of PE `cpu` at instant `at`: 1, 2 or 4 bytes (byte
    // access where the architecture allows it, the rest as words; GICv3's
    // 64-bit registers also as doublewords).
    uint64_t dist_read(unsigned cpu, uint64_t off, unsigned size) const;
    // Returns the CPU interfaces an SGI was sent to (bit n: CPU n).
    uint32_t dist_write(unsigned cpu, uint64_t off, unsigned size, uint64_t value, pmvp_time at);
    uint32_t cpu_read(unsigned cpu, uint64_t off, pmvp_time at);  // GICC_IAR acknowledges
    void cpu_write(unsigned cpu, uint64_t off, uint32_t value, pmvp_time at);

    // GICv3: redistributor `rd`'s frames (RD_base, then SGI_base 64 KiB up).
    static constexpr uint64_t kRedistSize = 0x20000;
    uint64_t redist_read(unsigned rd, uint64_t off, unsigned size, pmvp_time at) const;
    void redist_write(unsigned rd, uint64_t off, unsigned size, uint64_t value, pmvp_time at);
    // GICv3's CPU interface System registers (IHI 0069, 12.2).
    enum class Icc {
        PMR,
        IAR0,
        EOIR0,
        HPPIR0,
        BPR0,
        AP0R0,
        AP0R1,
        AP0R2,
        AP0R3,
        AP1R0,
        AP1R1,
        AP1R2,
        AP1R3,
        DIR,
        RPR,
        SGI1R,
        ASGI1R,
        SGI0R,
        IAR1,
        EOIR1,
        HPPIR1,
        BPR1,
        CTLR,
        SRE,
        IGRPEN0,
        IGRPEN1
    };
    // The register an MRS (MSR: `write`) encoding names; false for none of
    // them, and for a read of a write-only one or the reverse (UNDEFINED).
    static bool icc_register(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, bool write,
                             Icc *reg);
    uint64_t icc_read(unsigned cpu, Icc reg, pmvp_time at);  // ICC_IAR1_EL1 acknowledges
    // Returns the CPU interfaces an SGI was sent to (bit n: CPU n).
    uint32_t icc_write(unsigned cpu, Icc reg, uint64_t value, pmvp_time at);

    // A PPI's line on CPU `cpu` (level-sensitive), or an SPI's (`cpu`
    // ignored), from instant `at`; SGIs have none.
    void set_line(unsigned cpu, unsigned intid, bool high, pmvp_time at);
    // Whether the CPU interface signals an interrupt to PE `cpu` at `at`
    // (highest pending priority above the mask and the running priority).
    bool signalled(unsigned cpu, pmvp_time at) const;
    // The earliest instant after `at` at which software-made pending state
    // already written becomes visible to `cpu` (PMVP_TIME_NEVER: none).
    pmvp_time next_pending(unsigned cpu, pmvp_time at) const;
    // Whether PPI `intid` of `cpu`, once its line is high, is signalled
    // (enabled, priority above the mask and the running priority).
    bool would_signal(unsigned cpu, unsigned intid) const;

    template <class A> void state(A &a);  // checkpoint.h

private:
    struct Irq {  // one interrupt's state (an SGI or PPI: one per CPU interface)
        bool enabled = false, active = false, line = false, latched = false;
        uint8_t priority = 0, targets = 0, sources = 0;  // sources: SGI senders (bit n: CPU n)
        bool edge = false;
        bool group1 = false;  // GICv3: Group 1 (an IRQ), else Group 0 (an FIQ)
        uint64_t route = 0;   // GICv3: GICD_IROUTER (an SPI's)
        pmvp_time since = 0;  // the instant the latched or line pending state began
    };
    struct CpuIf {
        uint32_t ctlr = 0, pmr = 0, bpr = 2;  // GICv3: ctlr bit 0 ICC_IGRPEN1, bit 9 EOImode, bpr ICC_BPR1
        uint32_t bpr0 = 0, igrpen0 = 0, cbpr = 0, waker = 6;  // GICv3: ICC_BPR0, ICC_IGRPEN0, ICC_CTLR.CBPR, GICR_WAKER
        std::vector<uint8_t> running;                         // the priorities of active interrupts, by acknowledgement
        std::vector<uint32_t> acked;                          // their IAR values
    };
    Irq &irq(unsigned cpu, unsigned id) { return id < 32 ? banked_[cpu][id] : spi_[id - 32]; }
    const Irq &irq(unsigned cpu, unsigned id) const { return id < 32 ? banked_[cpu][id] : spi_[id - 32]; }
    bool pending(const Irq &q, pmvp_time at) const;
    // The highest-priority pending, enabled, inactive interrupt for `cpu`
    // (1023: none), its IAR value in *iar.
    unsigned highest(unsigned cpu, pmvp_time at, uint32_t *iar) const;
    uint8_t running_priority(unsigned cpu) const;
    uint8_t group_mask(unsigned cpu) const;
    uint32_t acknowledge(unsigned cpu, pmvp_time at);   // IAR's read: 1023 if nothing is signalled
    void end_of_interrupt(unsigned cpu, uint32_t iar);  // EOIR's write
    void deactivate(unsigned cpu, uint32_t iar);
    void send_sgi(unsigned target, unsigned cpu, unsigned id, pmvp_time at);
    uint32_t sgi_by_affinity(unsigned cpu, uint64_t value, bool group1, pmvp_time at);
    void route(Irq &q);  // GICv3: an SPI's targets from its GICD_IROUTER
    uint32_t bits(unsigned cpu, uint64_t base, uint64_t off, bool Irq::*field) const;
    void set_bits(unsigned cpu, unsigned first, uint32_t v, bool set, bool Irq::*field, pmvp_time at);
    bool dist3_read(uint64_t off, unsigned size, uint64_t *v) const;  // false: as GICv2's
    bool dist3_write(uint64_t off, unsigned size, uint64_t value);    // false: as GICv2's

    unsigned cpus_, version_;
    std::vector<uint64_t> mpidr_;
    uint32_t dctlr_ = 0;
    std::vector<std::array<Irq, 32>> banked_;
    std::vector<Irq> spi_;
    std::vector<CpuIf> cpu_;
};

// A PL011 UART (Arm DDI 0183): what a driver probes (its PrimeCell ID) and
// writes (UARTDR); its transmit FIFO never fills, its receive FIFO stays
// empty; the other registers read as written and do nothing.
class Pl011 {
public:
    uint32_t read(uint64_t off) const;
    // A write of UARTDR returns true with the character in *c.
    bool write(uint64_t off, uint32_t value, char *c);
    template <class A> void state(A &a);

private:
    std::array<uint32_t, 0x50 / 4> regs_{};
};

// PSCI (Arm DEN 0022, version 1.0) over HVC and SMC: the function IDs and
// return codes the machine implements.
namespace psci {
constexpr uint32_t kVersion = 0x84000000, kCpuSuspend = 0xC4000001, kCpuOff = 0x84000002, kCpuOn = 0xC4000003,
                   kAffinityInfo = 0xC4000004, kMigrateInfoType = 0x84000006, kSystemOff = 0x84000008,
                   kSystemReset = 0x84000009, kFeatures = 0x8400000A;
constexpr uint32_t kCpuOn32 = 0x84000003, kAffinityInfo32 = 0x84000004;
constexpr int64_t kSuccess = 0, kNotSupported = -1, kInvalidParameters = -2, kAlreadyOn = -4, kOnPending = -5;
constexpr uint64_t kVersion1_0 = 0x00010000;
constexpr int64_t kOn = 0, kOff = 1;  // AFFINITY_INFO
}  // namespace psci

// Arm semihosting (Arm IHI 0056, over HLT #0xF000 in AArch64): the
// operations the machine implements.
namespace semihosting {
constexpr uint32_t kHlt = 0xD45E0000;  // HLT #0xF000
constexpr uint64_t kSysOpen = 0x01, kSysClose = 0x02, kSysWritec = 0x03, kSysWrite0 = 0x04, kSysWrite = 0x05,
                   kSysRead = 0x06, kSysIstty = 0x09, kSysSeek = 0x0A, kSysFlen = 0x0C, kSysRemove = 0x0E,
                   kSysClock = 0x10, kSysTime = 0x11, kSysErrno = 0x13, kSysGetCmdline = 0x15, kSysHeapinfo = 0x16,
                   kSysExit = 0x18, kSysExitExtended = 0x20, kSysElapsed = 0x30, kSysTickfreq = 0x31;
constexpr uint64_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit
// The console's handles, as SYS_OPEN of ":tt" gives them: by mode, read
// (0-3), write (4-7), append (8-11).
constexpr uint64_t kTtyIn = 1, kTtyOut = 2, kTtyAppend = 3;
constexpr uint64_t kStackSize = 1u << 20;  // SYS_HEAPINFO: the stack below the RAM's top
// errno values (newlib's, as a guest reads them through SYS_ERRNO).
constexpr uint64_t kEnoent = 2, kEbadf = 9, kEacces = 13, kEinval = 22, kEspipe = 29;
}  // namespace semihosting

// What the device tree describes.
struct DtbSpec {
    uint64_t memory = 0;          // the RAM's size at 0x40000000
    std::vector<uint64_t> mpidr;  // one per PE, in the guest's order (CPU n of the GIC)
    std::string bootargs;
    uint64_t initrd_start = 0, initrd_end = 0;  // /chosen/linux,initrd-start and -end (none if equal)
    bool pmu = true;                            // the arm,armv8-pmuv3 node
    unsigned gic_version = 2;                   // arm,cortex-a15-gic or arm,gic-v3
};
// The DTB, built with libfdt. Throws std::runtime_error on a libfdt failure.
std::vector<uint8_t> build_dtb(const DtbSpec &spec);
// A device tree the user gives (QEMU's -dtb), with /chosen's bootargs (if
// any) and initrd set from `spec`, as QEMU sets them; the rest as given.
// Throws std::runtime_error for a blob that is not a device tree.
std::vector<uint8_t> patch_dtb(const std::vector<uint8_t> &blob, const DtbSpec &spec);

// Checkpoints (checkpoint.h's Saver and Loader).
template <class A> void Gic::state(A &a)
{
    a("GICD_CTLR", dctlr_);
    auto one = [&](Irq &q) {
        a("enabled", q.enabled);
        a("active", q.active);
        a("line", q.line);
        a("pending", q.latched);
        a("priority", q.priority);
        a("targets", q.targets);
        a("SGI sources", q.sources);
        a("edge", q.edge);
        a("group 1", q.group1);
        a("route", q.route);
        a("pending since", q.since);
    };
    for (auto &b : banked_)
        for (Irq &q : b)
            one(q);
    for (Irq &q : spi_)
        one(q);
    for (CpuIf &c : cpu_) {
        a("GICC_CTLR", c.ctlr);
        a("GICC_PMR", c.pmr);
        a("GICC_BPR", c.bpr);
        a("ICC_BPR0_EL1", c.bpr0);
        a("ICC_IGRPEN0_EL1", c.igrpen0);
        a("ICC_CTLR_EL1.CBPR", c.cbpr);
        a("GICR_WAKER", c.waker);
        a("running priorities", c.running);
        a("acknowledged", c.acked);
        if (c.running.size() != c.acked.size())
            throw std::runtime_error("the GIC's acknowledged interrupts and running priorities differ in number");
    }
}

template <class A> void Pl011::state(A &a)
{
    for (uint32_t &r : regs_)
        a("PL011 register", r);
}

// The HVC and SMC instructions with immediate 0 (PSCI's conduit).
constexpr uint32_t kHvc0 = 0xD4000002, kSmc0 = 0xD4000003;

}  // namespace pmvp::soc::virt
