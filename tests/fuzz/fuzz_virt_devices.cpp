// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the virt machine's devices (platform/machines/) as a
// guest drives them: a GICv2 or GICv3 of 1 to 8 CPU interfaces, a
// virtio console on a transport and the PCI Express bus with pci-testdev, through any register accesses (any offset
// and size, any value) at instants mostly forward, lines raised and
// lowered, and rings the guest lays out anywhere in its RAM. Invariants
// (tests/fuzz/README.md): no crash and no access outside the RAM window the
// device is given; an interface the GIC says is signalled acknowledges an
// interrupt (not 1023); the transport's interrupt line is its
// InterruptStatus.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pci.h"
#include "virt.h"
#include "virtio.h"

namespace {

[[noreturn]] void broken(const char *what)
{
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

// The input as a stream of bytes, zero past its end.
struct Input {
    const uint8_t *p;
    size_t n;
    uint64_t take(unsigned bytes)
    {
        uint64_t v = 0;
        for (unsigned i = 0; i < bytes && n; i++, p++, n--)
            v |= (uint64_t)*p << (8 * i);
        return v;
    }
    bool more() const { return n > 0; }
};

using pmvp::soc::virt::Gic;

void gic_step(Gic &g, Input &in, uint64_t &now)
{
    const unsigned op = (unsigned)in.take(1) % 8, cpu = (unsigned)in.take(1) % g.cpus();
    const unsigned size = 1u << (in.take(1) % 4);
    now += in.take(1) % 4 == 0 ? 0 : in.take(2);
    const uint64_t at = now - (in.take(1) % 8 == 0 ? in.take(1) : 0);  // sometimes in the past
    switch (op) {
    case 0: g.dist_read(cpu, in.take(2), size); break;
    case 1: g.dist_write(cpu, in.take(2), size, in.take(8), at); break;
    case 2:
        if (g.version() == 2)
            g.cpu_write(cpu, in.take(2) & 0x1FFF, (uint32_t)in.take(4), at);
        else
            g.redist_write(cpu, in.take(3) % Gic::kRedistSize, size, in.take(8), at);
        break;
    case 3:
        if (g.version() == 2)
            g.cpu_read(cpu, in.take(2) & 0x1FFF, at);
        else
            g.redist_read(cpu, in.take(3) % Gic::kRedistSize, size, at);
        break;
    case 4: g.set_line(cpu, (unsigned)(in.take(2) % Gic::kIntids), in.take(1) & 1, at); break;
    case 5: {
        Gic::Icc reg;
        const bool write = in.take(1) & 1;
        if (g.version() == 3 &&
            Gic::icc_register(3, 0, 12, 8 + (unsigned)in.take(1) % 5, (unsigned)in.take(1) % 8, write, &reg)) {
            if (write)
                g.icc_write(cpu, reg, in.take(8), at);
            else
                g.icc_read(cpu, reg, at);
        }
        break;
    }
    default: {  // what the GIC signals: an acknowledgement takes an interrupt
        g.next_pending(cpu, at);
        g.would_signal(cpu, 16 + (unsigned)in.take(1) % 16);
        if (!g.signalled(cpu, at))
            break;
        uint64_t iar = g.version() == 2 ? g.cpu_read(cpu, 0x0C, at) : g.icc_read(cpu, Gic::Icc::IAR1, at);
        if ((iar & 0x3FF) >= 1020)
            broken("a signalled interface acknowledged no interrupt");
        break;
    }
    }
}

void virtio_step(pmvp::soc::virt::VirtioMmio &dev, Input &in, std::vector<uint8_t> &ram, std::vector<char> &out)
{
    const pmvp::soc::virt::DmaWindow window{ ram.data(), 0x40000000, ram.size() };
    const unsigned op = (unsigned)in.take(1) % 4;
    if (op == 0) {  // the guest writes its RAM (rings, descriptors, buffers)
        const uint64_t at = in.take(2) % ram.size();
        ram[at] = (uint8_t)in.take(1);
    } else if (op == 1) {
        dev.read(in.take(2) % pmvp::soc::virt::kVirtioSlotSize, 1u << (in.take(1) % 3));
    } else {
        static const uint64_t regs[] = { 0x028, 0x030, 0x038, 0x03c, 0x040, 0x050, 0x064, 0x070 };
        const uint64_t off = op == 2 ? regs[in.take(1) % 8] : in.take(2) % pmvp::soc::virt::kVirtioSlotSize;
        uint32_t value = (uint32_t)in.take(4);
        if (off == 0x040)
            value = 0x40000 + value % 16;  // a PFN in the RAM (page size 4 KiB), mostly
        dev.write(off, 4, value, window, [&](char c) { out.push_back(c); });
    }
    if (dev.interrupt() != (dev.read(0x060, 4) != 0))
        broken("the transport's line is not its InterruptStatus");
}

// The PCI Express bus: configuration accesses anywhere in the ECAM, and
// accesses in its windows, decoded by what the guest programmed.
void pci_step(pmvp::soc::virt::PciBus &bus, Input &in)
{
    const unsigned op = (unsigned)in.take(1) % 4, size = 1u << (in.take(1) % 4);
    const uint64_t off = in.take(3) % pmvp::soc::virt::kPcieEcamSize;
    const bool io = in.take(1) & 1;
    const uint64_t addr = io ? in.take(2) : pmvp::soc::virt::kPcieMmio + in.take(4) % pmvp::soc::virt::kPcieMmioSize;
    switch (op) {
    case 0: bus.config_read(off, size); break;
    case 1: bus.config_write(off, size, (uint32_t)in.take(4)); break;
    case 2: bus.read(io, addr, size); break;
    default: bus.write(io, addr, size, in.take(8)); break;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Input in{ data, size };
    const unsigned version = in.take(1) & 1 ? 3 : 2, cpus = 1 + (unsigned)in.take(1) % 8;
    std::vector<uint64_t> mpidr;
    for (unsigned c = 0; c < cpus; c++)
        mpidr.push_back(0x80000000u | (uint64_t)in.take(1) << 8 | (uint64_t)in.take(1));
    Gic g(cpus, version, mpidr);
    pmvp::soc::virt::VirtioMmio dev(pmvp::soc::virt::VirtioMmio::kConsole);
    std::vector<uint8_t> ram(64 * 1024);  // the guest's RAM at 0x40000000 (ASan bounds it)
    std::vector<char> out;
    pmvp::soc::virt::PciBus pci(true);
    uint64_t now = 0;
    while (in.more()) {
        const unsigned device = (unsigned)in.take(1) % 3;
        if (device == 0)
            gic_step(g, in, now);
        else if (device == 1)
            virtio_step(dev, in, ram, out);
        else
            pci_step(pci, in);
    }
    return 0;
}
