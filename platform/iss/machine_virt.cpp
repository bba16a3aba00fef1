// SPDX-License-Identifier: Apache-2.0
//
// The virt machine's devices (virt.h) as the ISS's engines map them: each
// access at its instruction's instant; its PEs' MPIDRs and device tree.

#include "aarch64_iss.h"

#include <fstream>
#include <iterator>

namespace pmvp::soc {

namespace {

uint64_t on_uart_read(uc_engine *, uint64_t off, unsigned, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    return t.iss->guest_.uart.read(off);
}

void on_uart_write(uc_engine *, uint64_t off, unsigned, uint64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    char c = 0;
    if (iss.guest_.uart.write(off, (uint32_t)value, &c)) {
        const pmvp_time at = iss.time_of(t, iss.retired_before_access(t));
        iss.guest_.uart_out += c;
        iss.guest_.uart_at.push_back(at);
        iss.guest_.console_put(c, at);
    }
}

// The instant of the access the guest makes now, the instructions before it
// told to the monitors (so PMUIRQ is as they leave it).
pmvp_time access_instant(Aarch64Iss::Thread &t)
{
    Aarch64Iss &iss = *t.iss;
    uint64_t before = iss.retired_before_access(t);
    iss.tell_retired(t, before);
    return iss.time_of(t, before);
}

uint64_t on_gicd_read(uc_engine *, uint64_t off, unsigned size, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    iss.sync_pmu_line(t, access_instant(t));  // GICD_ISPENDR shows the PPI's line
    return iss.guest_.gic->dist_read(t.image_pe, off, size);
}

void on_gicd_write(uc_engine *, uint64_t off, unsigned size, uint64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    pmvp_time at = access_instant(t);
    uint32_t sgi = iss.guest_.gic->dist_write(t.image_pe, off, size, value, at);
    for (unsigned pe = 0; pe < virt::Gic::kMaxCpus; pe++)
        if (sgi & (1u << pe))
            iss.guest_.wake(pe, at);
    iss.stop(t);  // what the GIC signals may have changed: the line anew
}

uint64_t on_gicc_read(uc_engine *, uint64_t off, unsigned, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    pmvp_time at = access_instant(t);
    iss.sync_pmu_line(t, at);
    if (off == virt::kGiccIar)  // an acknowledgement changes the running priority
        iss.stop(t);
    return iss.guest_.gic->cpu_read(t.image_pe, off, at);
}

void on_gicc_write(uc_engine *, uint64_t off, unsigned, uint64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    pmvp_time at = access_instant(t);
    iss.guest_.gic->cpu_write(t.image_pe, off, (uint32_t)value, at);
    iss.stop(t);
}

uint64_t on_virtio_read(uc_engine *, uint64_t off, unsigned size, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    return t.iss->guest_.virtio[off / virt::kVirtioSlotSize].read(off % virt::kVirtioSlotSize, size);
}

// A transport's register written; its device's transmitted bytes to their
// backend and its interrupt line to the GIC, at the access's instant.
void on_virtio_write(uc_engine *, uint64_t off, unsigned size, uint64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    Guest &g = iss.guest_;
    const unsigned slot = (unsigned)(off / virt::kVirtioSlotSize);
    virt::VirtioMmio &dev = g.virtio[slot];
    const pmvp_time at = access_instant(t);
    const virt::DmaWindow ram{ g.ram, kRamBase, g.ram_size };
    const bool line = dev.interrupt();
    dev.write(off % virt::kVirtioSlotSize, size, (uint32_t)value, ram, [&](char c) { g.virtconsole_put(c, at); });
    if (dev.interrupt() != line) {
        g.gic->set_line(t.image_pe, virt::virtio_intid(slot), dev.interrupt(), at);
        iss.stop(t);  // what the GIC signals changed
    }
}

// GICv3's redistributors: the frames of PE off / Gic::kRedistSize.
uint64_t on_gicr_read(uc_engine *, uint64_t off, unsigned size, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    const pmvp_time at = access_instant(t);
    iss.sync_pmu_line(t, at);  // GICR_ISPENDR0 shows the PPI's line
    return iss.guest_.gic->redist_read((unsigned)(off / virt::Gic::kRedistSize), off % virt::Gic::kRedistSize, size,
                                       at);
}

void on_gicr_write(uc_engine *, uint64_t off, unsigned size, uint64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    iss.guest_.gic->redist_write((unsigned)(off / virt::Gic::kRedistSize), off % virt::Gic::kRedistSize, size, value,
                                 access_instant(t));
    iss.stop(t);  // what the GIC signals may have changed: the line anew
}

// The PCI Express bus's configuration space (ECAM) and its I/O and memory
// windows: no access there changes what the PEs are signalled.
uint64_t on_ecam_read(uc_engine *, uint64_t off, unsigned size, void *user)
{
    return static_cast<Aarch64Iss::Thread *>(user)->iss->guest_.pci->config_read(off, size);
}

void on_ecam_write(uc_engine *, uint64_t off, unsigned size, uint64_t value, void *user)
{
    static_cast<Aarch64Iss::Thread *>(user)->iss->guest_.pci->config_write(off, size, (uint32_t)value);
}

uint64_t on_pio_read(uc_engine *, uint64_t off, unsigned size, void *user)
{
    return static_cast<Aarch64Iss::Thread *>(user)->iss->guest_.pci->read(true, off, size);
}

void on_pio_write(uc_engine *, uint64_t off, unsigned size, uint64_t value, void *user)
{
    static_cast<Aarch64Iss::Thread *>(user)->iss->guest_.pci->write(true, off, size, value);
}

uint64_t on_pci_mmio_read(uc_engine *, uint64_t off, unsigned size, void *user)
{
    return static_cast<Aarch64Iss::Thread *>(user)->iss->guest_.pci->read(false, virt::kPcieMmio + off, size);
}

void on_pci_mmio_write(uc_engine *, uint64_t off, unsigned size, uint64_t value, void *user)
{
    static_cast<Aarch64Iss::Thread *>(user)->iss->guest_.pci->write(false, virt::kPcieMmio + off, size, value);
}

}  // namespace

void map_virt_devices(Aarch64Iss::Thread &t)
{
    auto ok = unicorn_ok;
    ok(uc_mmio_map(t.uc, virt::kUart, virt::kUartSize, on_uart_read, &t, on_uart_write, &t), "map the UART");
    ok(uc_mmio_map(t.uc, virt::kGicDist, virt::kGicDistSize, on_gicd_read, &t, on_gicd_write, &t),
       "map the GIC distributor");
    virt::Gic &gic = *t.iss->guest_.gic;
    if (gic.version() == 2)
        ok(uc_mmio_map(t.uc, virt::kGicCpu, virt::kGicCpuSize, on_gicc_read, &t, on_gicc_write, &t),
           "map the GIC CPU interface");
    else
        ok(uc_mmio_map(t.uc, virt::kGicRedist, gic.cpus() * virt::Gic::kRedistSize, on_gicr_read, &t, on_gicr_write,
                       &t),
           "map the GIC redistributors");
    ok(uc_mmio_map(t.uc, virt::kVirtioBase, virt::kVirtioSize, on_virtio_read, &t, on_virtio_write, &t),
       "map the virtio-mmio transports");
    ok(uc_mmio_map(t.uc, virt::kPcieEcam, virt::kPcieEcamSize, on_ecam_read, &t, on_ecam_write, &t),
       "map the PCI Express configuration space");
    ok(uc_mmio_map(t.uc, virt::kPciePio, virt::kPciePioSize, on_pio_read, &t, on_pio_write, &t),
       "map the PCI I/O window");
    ok(uc_mmio_map(t.uc, virt::kPcieMmio, virt::kPcieMmioSize, on_pci_mmio_read, &t, on_pci_mmio_write, &t),
       "map the PCI memory window");
}

std::vector<uint64_t> virt_mpidrs(const Scenario &s)
{
    constexpr uint64_t kRes1 = 1ull << 31, kMt = 1ull << 24;
    std::vector<uint64_t> m;
    unsigned cluster = 0;
    for (const Cluster &c : s.clusters) {
        if (!c.iss())
            continue;
        const unsigned threads = c.config.num_pes;
        for (unsigned core = 0; core < c.cores; core++)
            for (unsigned t = 0; t < threads; t++)
                m.push_back(threads > 1 ? kRes1 | kMt | (uint64_t)cluster << 16 | (uint64_t)core << 8 | t
                                        : kRes1 | (uint64_t)cluster << 8 | core);
        cluster++;
    }
    return m;
}

VirtBoot virt_boot(const Scenario &s, const std::string &image_path, bool pmu)
{
    const uint64_t ram_size = s.machine.ram();
    VirtBoot b;
    if (!image_path.empty())  // (none: a device tree without an image, --dumpdtb)
        b.image = load_kernel(image_path, ram_size);
    virt::DtbSpec spec;
    if (!s.machine.initrd.empty()) {
        const std::string &path = s.machine.initrd;
        if (image_path.empty())
            throw ScenarioError(path + ": an initrd goes with a kernel (--kernel)");
        if (b.image.format == FirmwareImage::ELF)
            throw ScenarioError(path + ": an initrd goes with a Linux Image or a raw binary, as QEMU loads it; " +
                                image_path + " is an ELF file");
        std::ifstream f(path, std::ios::binary);
        if (!f)
            throw ScenarioError(path + ": the initrd cannot be read");
        b.initrd.assign(std::istreambuf_iterator<char>(f), {});
        b.initrd_at = initrd_address(b.image, ram_size);
        if (b.initrd_at - kRamBase > ram_size || b.initrd.size() > ram_size - (b.initrd_at - kRamBase))
            throw ScenarioError(path + ": the initrd (" + std::to_string(b.initrd.size()) + " bytes at RAM + " +
                                std::to_string(b.initrd_at - kRamBase) +
                                ") does not fit the RAM: give the machine more (--memory)");
        spec.initrd_start = b.initrd_at;
        spec.initrd_end = b.initrd_at + b.initrd.size();
    }
    spec.memory = ram_size;
    spec.mpidr = virt_mpidrs(s);
    spec.bootargs = s.machine.append;
    spec.pmu = pmu;
    spec.gic_version = s.machine.gic_version;
    if (s.machine.dtb.empty()) {
        b.dtb = virt::build_dtb(spec);
    } else {
        std::ifstream f(s.machine.dtb, std::ios::binary);
        if (!f)
            throw ScenarioError(s.machine.dtb + ": the device tree cannot be read");
        try {
            b.dtb = virt::patch_dtb(std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {}), spec);
        } catch (const std::runtime_error &e) {
            throw ScenarioError(s.machine.dtb + ": " + e.what());
        }
    }
    b.dtb_at = dtb_address(b.image, ram_size, b.dtb.size(), spec.initrd_end);
    return b;
}

}  // namespace pmvp::soc
