// SPDX-License-Identifier: Apache-2.0
//
// virtio over MMIO on the virt machine (docs/FIRMWARE.md, "virtio"): the
// transports where QEMU's virt board puts them, in the legacy register
// layout (version 1) QEMU's virt gives by default, and the console device
// kvm-unit-tests' chr-testdev and Linux's hvc driver talk to. Without
// SystemC or Unicorn: the ISS maps the transports and calls them with each
// access; the device reads and writes the guest RAM it is given.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pmvp::soc::virt {

// QEMU's virt: 32 transports of 0x200 bytes from 0x0a000000, transport n
// on SPI 16 + n. QEMU plugs the first -device into the last transport.
constexpr uint64_t kVirtioBase = 0x0a000000, kVirtioSlotSize = 0x200;
constexpr unsigned kVirtioSlots = 32, kVirtioFirstSpi = 16;
constexpr uint64_t kVirtioSize = kVirtioSlots * kVirtioSlotSize;
constexpr unsigned kVirtioConsoleSlot = kVirtioSlots - 1;
constexpr unsigned virtio_intid(unsigned slot)
{
    return 32 + kVirtioFirstSpi + slot;
}

// The guest's RAM as a device sees it (physical addresses).
struct DmaWindow {
    uint8_t *host = nullptr;
    uint64_t base = 0, size = 0;
    // The host bytes of [addr, addr + n), or null where they leave the RAM.
    uint8_t *at(uint64_t addr, uint64_t n) const
    {
        if (addr < base || n > size || addr - base > size - n)
            return nullptr;
        return host + (addr - base);
    }
};

// One virtio-mmio transport (virtio 1.0, 4.2.4 "Legacy interface"), empty
// (device ID 0, as QEMU's unplugged ones read) or holding a console
// (device ID 3) with no feature offered: port 0 only, queue 0 the guest's
// receive queue (which no input fills), queue 1 its transmit queue, whose
// bytes go to `out` as the guest notifies it. A buffer the device cannot
// reach (outside the RAM, a descriptor loop) sets DEVICE_NEEDS_RESET and
// stops the device, as a virtio device that meets an error.
class VirtioMmio {
public:
    enum Device : uint32_t { kNone = 0, kConsole = 3 };
    static constexpr unsigned kQueues = 2, kQueueSizeMax = 128;
    explicit VirtioMmio(Device device = kNone) : device_(device) {}
    Device device() const { return device_; }

    uint32_t read(uint64_t off, unsigned size) const;
    // A register write; its transmitted bytes to `out`.
    void write(uint64_t off, unsigned size, uint32_t value, const DmaWindow &ram, const std::function<void(char)> &out);
    // The interrupt line (InterruptStatus not zero).
    bool interrupt() const { return isr_ != 0; }

    template <class A> void state(A &a);  // checkpoint.h

private:
    struct Queue {
        uint32_t num = 0, align = 4096, pfn = 0;
        uint16_t last_avail = 0;
    };
    void reset();
    void notify(unsigned q, const DmaWindow &ram, const std::function<void(char)> &out);
    bool transmit(Queue &q, const DmaWindow &ram, const std::function<void(char)> &out);
    void fail() { status_ |= kNeedsReset; }
    static constexpr uint32_t kNeedsReset = 0x40;

    Device device_;
    uint32_t status_ = 0, isr_ = 0, page_size_ = 4096, queue_sel_ = 0;
    Queue queues_[kQueues];
};

// QEMU's chr-testdev (its `testdev` character device): the guest writes a
// number and a command letter; "Nq" ends the machine with exit status
// (N << 1) | 1, as QEMU exits.
class TestDev {
public:
    // One byte; true when it completes a "q": the status in *status.
    bool put(char c, uint32_t *status);
    template <class A> void state(A &a) { a("testdev number", arg_); }

private:
    uint32_t arg_ = 0;
};

template <class A> void VirtioMmio::state(A &a)
{
    a("virtio status", status_);
    a("virtio interrupt status", isr_);
    a("virtio guest page size", page_size_);
    a("virtio queue selected", queue_sel_);
    for (Queue &q : queues_) {
        a("virtio queue size", q.num);
        a("virtio queue align", q.align);
        a("virtio queue PFN", q.pfn);
        a("virtio queue next available", q.last_avail);
    }
}

}  // namespace pmvp::soc::virt
