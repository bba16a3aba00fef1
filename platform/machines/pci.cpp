// SPDX-License-Identifier: Apache-2.0
//
// The virt machine's PCI Express bus (pci.h).
#include "pci.h"

#include <cstring>

namespace pmvp::soc::virt {

namespace {
// Type 0 configuration header registers (PCI Local Bus 3.0, 6.1).
enum : unsigned {
    kId = 0x00,
    kCommandStatus = 0x04,
    kClassRev = 0x08,
    kHeader = 0x0C,
    kBar0 = 0x10,
    kInterrupt = 0x3C
};
constexpr uint16_t kCommandIo = 1, kCommandMemory = 2, kCommandMaster = 4;
constexpr unsigned kBusShift = 20, kDeviceShift = 15, kFunctionShift = 12;

// pci-testdev's header at the start of each BAR (QEMU's docs/specs/
// pci-testdev): the test (written), its access width, offset and data
// (read), the writes it saw, its name.
enum : uint32_t { kTest = 0, kWidth = 1, kOffset = 4, kData = 8, kCount = 12, kName = 16 };
struct TestDevTest {
    uint8_t width;
    uint32_t offset, data;
    const char *name;
};
constexpr TestDevTest kTests[] = {
    { 1, 0x80, 0x5A, "byte write" },
    { 2, 0x84, 0xA55A, "halfword write" },
    { 4, 0x88, 0x5AA5A55A, "word write" },
};
constexpr unsigned kNumTests = sizeof kTests / sizeof kTests[0];
constexpr uint32_t kTestDevMemSize = 4096, kTestDevIoSize = 256;
}  // namespace

PciBus::PciBus(bool testdev)
{
    Function host;  // the host bridge
    host.vendor = kVendorRedHat;
    host.device = kHostBridge;
    host.class_rev = 0x06000000;  // bridge, host
    functions_.push_back(host);
    if (testdev) {
        Function t;
        t.vendor = kVendorRedHat;
        t.device = kTestDev;
        t.class_rev = 0x00ff0000;  // unclassified: other
        t.bars[0].size = kTestDevMemSize;
        t.bars[1].size = kTestDevIoSize;
        t.bars[1].io = true;
        functions_.push_back(t);
    }
}

uint32_t PciBus::config_dword(const Function &f, unsigned reg) const
{
    if (reg >= kBar0 && reg < kBar0 + 24) {
        const Bar &b = f.bars[(reg - kBar0) / 4];
        return b.size ? (b.base | (b.io ? 1u : 0u)) : 0;  // memory: 32-bit, not prefetchable
    }
    switch (reg) {
    case kId: return (uint32_t)f.device << 16 | f.vendor;
    case kCommandStatus: return f.command;
    case kClassRev: return f.class_rev;
    case kHeader: return 0;                    // type 0, one function
    case kInterrupt: return f.interrupt_line;  // pin 0: no INTx
    default: return 0;
    }
}

uint32_t PciBus::config_read(uint64_t off, unsigned size) const
{
    const unsigned bus = (unsigned)(off >> kBusShift), device = (unsigned)(off >> kDeviceShift) & 31;
    const unsigned function = (unsigned)(off >> kFunctionShift) & 7, reg = (unsigned)off & 0xFFF;
    const uint32_t mask = size >= 4 ? ~0u : (1u << (8 * size)) - 1;
    if (bus != 0 || function != 0 || device >= functions_.size())
        return mask;  // no function there
    return (config_dword(functions_[device], reg & ~3u) >> (8 * (reg & 3))) & mask;
}

void PciBus::config_write(uint64_t off, unsigned size, uint32_t value)
{
    const unsigned bus = (unsigned)(off >> kBusShift), device = (unsigned)(off >> kDeviceShift) & 31;
    const unsigned function = (unsigned)(off >> kFunctionShift) & 7, reg = (unsigned)off & 0xFFF;
    if (bus != 0 || function != 0 || device >= functions_.size())
        return;
    Function &f = functions_[device];
    // The written bytes merged into the register's dword.
    const unsigned shift = 8 * (reg & 3);
    const uint32_t mask = (size >= 4 ? ~0u : (1u << (8 * size)) - 1) << shift;
    const uint32_t v = (config_dword(f, reg & ~3u) & ~mask) | ((value << shift) & mask);
    if ((reg & ~3u) == kCommandStatus) {
        f.command = (uint16_t)(v & (kCommandIo | kCommandMemory | kCommandMaster));
    } else if ((reg & ~3u) >= kBar0 && (reg & ~3u) < kBar0 + 24) {
        Bar &b = f.bars[((reg & ~3u) - kBar0) / 4];
        if (b.size)  // the low bits of a BAR's size read as zero: writing ones sizes it
            b.base = v & ~(b.size - 1) & (b.io ? ~3u : ~15u);
    } else if ((reg & ~3u) == kInterrupt) {
        f.interrupt_line = (uint8_t)v;
    }
}

bool PciBus::decode(bool io, uint64_t addr, unsigned *device, unsigned *bar, uint32_t *off) const
{
    for (unsigned d = 0; d < functions_.size(); d++) {
        const Function &f = functions_[d];
        if (!(f.command & (io ? kCommandIo : kCommandMemory)))
            continue;
        for (unsigned i = 0; i < f.bars.size(); i++) {
            const Bar &b = f.bars[i];
            if (b.size && b.io == io && addr >= b.base && addr - b.base < b.size) {
                *device = d;
                *bar = i;
                *off = (uint32_t)(addr - b.base);
                return true;
            }
        }
    }
    return false;
}

uint64_t PciBus::read(bool io, uint64_t addr, unsigned size) const
{
    unsigned device = 0, bar = 0;
    uint32_t off = 0;
    if (!decode(io, addr, &device, &bar, &off) || functions_[device].device != kTestDev)
        return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;  // nothing answers: all ones
    return testdev_read(bar, off, size);
}

void PciBus::write(bool io, uint64_t addr, unsigned size, uint64_t value)
{
    unsigned device = 0, bar = 0;
    uint32_t off = 0;
    if (decode(io, addr, &device, &bar, &off) && functions_[device].device == kTestDev)
        testdev_write(bar, off, size, value);
}

uint64_t PciBus::testdev_read(unsigned bar, uint32_t off, unsigned size) const
{
    const TestBar &t = test_[bar];
    const TestDevTest *test = t.test < kNumTests ? &kTests[t.test] : nullptr;
    uint8_t header[kName + 32] = {};
    header[kTest] = t.test;
    header[kWidth] = test ? test->width : 0;  // not a test: the guest stops there
    if (test) {
        std::memcpy(header + kOffset, &test->offset, 4);
        std::memcpy(header + kData, &test->data, 4);
        std::memcpy(header + kCount, &t.count, 4);
        std::memcpy(header + kName, test->name, std::strlen(test->name) + 1);
    }
    uint64_t v = 0;
    for (unsigned b = 0; b < size && b < 8; b++)
        if (off + b < sizeof header)
            v |= (uint64_t)header[off + b] << (8 * b);
    return v;
}

// Writing the test register chooses a test and clears its count; a write of
// the test's width and data at its offset is counted.
void PciBus::testdev_write(unsigned bar, uint32_t off, unsigned size, uint64_t value)
{
    TestBar &t = test_[bar];
    if (off == kTest) {
        t.test = (uint8_t)value;
        t.count = 0;
        return;
    }
    if (t.test >= kNumTests)
        return;
    const TestDevTest &test = kTests[t.test];
    const uint64_t mask = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
    if (off == test.offset && size == test.width && (value & mask) == test.data)
        t.count++;
}

}  // namespace pmvp::soc::virt
