// SPDX-License-Identifier: Apache-2.0
//
// PCI Express on the virt machine (docs/FIRMWARE.md, "PCI Express"): the
// generic ECAM host bridge QEMU's virt has (pci-host-ecam-generic), bus 0
// with the host bridge at device 0 and, when the machine has one, QEMU's
// pci-testdev at device 1. Its I/O window and ECAM are where QEMU's virt
// puts them; its memory window starts at 0x20000000, above pmvp's frames
// (QEMU's starts at 0x10000000, where the monitors' frames are here); the
// device tree says where. No device raises an interrupt (no INTx, no MSI).
// Without SystemC or Unicorn: the ISS maps the windows and calls the bus.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace pmvp::soc::virt {

constexpr uint64_t kPciePio = 0x3eff0000, kPciePioSize = 0x10000;
constexpr uint64_t kPcieEcam = 0x3f000000, kPcieEcamSize = 0x1000000;  // buses 0 to 15
constexpr uint64_t kPcieMmio = 0x20000000, kPcieMmioSize = 0x1eff0000;

class PciBus {
public:
    explicit PciBus(bool testdev = false);
    // ECAM: bus << 20 | device << 15 | function << 12 | register. A
    // function that is not there reads all ones.
    uint32_t config_read(uint64_t off, unsigned size) const;
    void config_write(uint64_t off, unsigned size, uint32_t value);
    // An access in the I/O window (`io`: its offset, the port) or the
    // memory window (the address): the device whose BAR holds it, decoding
    // as its Command register says. None: reads all ones, writes nothing.
    uint64_t read(bool io, uint64_t addr, unsigned size) const;
    void write(bool io, uint64_t addr, unsigned size, uint64_t value);

    template <class A> void state(A &a);  // checkpoint.h

    static constexpr uint16_t kVendorRedHat = 0x1b36, kHostBridge = 0x0008, kTestDev = 0x0005;

private:
    struct Bar {
        uint32_t size = 0;  // 0: none
        bool io = false;
        uint32_t base = 0;
    };
    struct Function {
        uint16_t vendor = 0, device = 0;
        uint32_t class_rev = 0;  // class code and revision (register 0x08)
        uint16_t command = 0;
        std::array<Bar, 6> bars{};
        uint8_t interrupt_line = 0;
    };
    // pci-testdev's BARs (0: memory, 1: I/O): the test chosen, its writes.
    struct TestBar {
        uint8_t test = 0;
        uint32_t count = 0;
    };
    uint32_t config_dword(const Function &f, unsigned reg) const;
    // The device and BAR an access in a window falls in; false for none.
    bool decode(bool io, uint64_t addr, unsigned *device, unsigned *bar, uint32_t *off) const;
    uint64_t testdev_read(unsigned bar, uint32_t off, unsigned size) const;
    void testdev_write(unsigned bar, uint32_t off, unsigned size, uint64_t value);

    std::vector<Function> functions_;  // by device number on bus 0
    std::array<TestBar, 2> test_{};
};

template <class A> void PciBus::state(A &a)
{
    for (Function &f : functions_) {
        a("PCI Command", f.command);
        for (Bar &b : f.bars)
            a("PCI BAR", b.base);
        a("PCI Interrupt Line", f.interrupt_line);
    }
    for (TestBar &t : test_) {
        a("pci-testdev test", t.test);
        a("pci-testdev count", t.count);
    }
}

}  // namespace pmvp::soc::virt
