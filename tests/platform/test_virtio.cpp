// SPDX-License-Identifier: Apache-2.0
//
// The virt machine's virtio-mmio transport and console (platform/machines/
// virtio.cpp), as a legacy driver sets a queue up in guest RAM, and QEMU's
// chr-testdev behind it.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "virtio.h"

namespace {

using pmvp::soc::virt::DmaWindow;
using pmvp::soc::virt::TestDev;
using pmvp::soc::virt::VirtioMmio;

// Legacy register offsets (virtio 1.0, 4.2.4).
constexpr uint64_t kMagic = 0x000, kVersion = 0x004, kDeviceId = 0x008, kVendor = 0x00c, kPageSize = 0x028,
                   kQueueSel = 0x030, kQueueNumMax = 0x034, kQueueNum = 0x038, kQueueAlign = 0x03c, kQueuePfn = 0x040,
                   kNotify = 0x050, kIsr = 0x060, kAck = 0x064, kStatus = 0x070;
constexpr uint64_t kRam = 0x40000000;
// Queue 1 of 8 entries at page 0x40001: the descriptors at 0x40001000, the
// available ring right after them (0x40001080), the used ring at the next
// 4 KiB boundary (0x40002000); the buffers from 0x40003000.
constexpr uint64_t kDesc = 0x1000, kAvail = 0x1080, kUsed = 0x2000, kBuf = 0x3000;

struct Guest {
    std::vector<uint8_t> ram = std::vector<uint8_t>(64 * 1024);
    VirtioMmio dev{ VirtioMmio::kConsole };
    std::string out;
    uint16_t next_desc = 0, avail = 0;
    uint64_t next_buf = kBuf;
    DmaWindow window() { return { ram.data(), kRam, ram.size() }; }
    void reg(uint64_t off, uint32_t v)
    {
        dev.write(off, 4, v, window(), [&](char c) { out.push_back(c); });
    }
    template <class T> void put(uint64_t at, T v) { std::memcpy(&ram[at], &v, sizeof v); }
    template <class T> T get(uint64_t at) const
    {
        T v;
        std::memcpy(&v, &ram[at], sizeof v);
        return v;
    }
    void setup()
    {
        reg(kPageSize, 4096);
        reg(kQueueSel, 1);
        reg(kQueueNum, 8);
        reg(kQueueAlign, 4096);
        reg(kQueuePfn, (uint32_t)((kRam + kDesc) / 4096));
    }
    // A chain of buffers, one per part, made available (not notified).
    void offer(const std::vector<std::string> &parts, uint64_t addr_of_first = 0)
    {
        const uint16_t head = next_desc;
        for (size_t i = 0; i < parts.size(); i++) {
            const uint64_t d = kDesc + 16 * (uint64_t)(next_desc % 8);
            std::memcpy(&ram[next_buf], parts[i].data(), parts[i].size());
            put<uint64_t>(d, i == 0 && addr_of_first ? addr_of_first : kRam + next_buf);
            put<uint32_t>(d + 8, (uint32_t)parts[i].size());
            put<uint16_t>(d + 12, i + 1 < parts.size() ? 1 : 0);  // NEXT
            put<uint16_t>(d + 14, (uint16_t)((next_desc + 1) % 8));
            next_buf += 64;
            next_desc++;
        }
        put<uint16_t>(kAvail + 4 + 2 * (avail % 8), head);
        put<uint16_t>(kAvail + 2, ++avail);
    }
};

}  // namespace

TEST(VirtioMmio, AnEmptyTransportReadsAsQemusUnpluggedOnes)
{
    VirtioMmio empty;
    EXPECT_EQ(empty.read(kMagic, 4), 0x74726976u) << "\"virt\"";
    EXPECT_EQ(empty.read(kVersion, 4), 1u) << "legacy";
    EXPECT_EQ(empty.read(kDeviceId, 4), 0u);
    EXPECT_EQ(empty.read(kVendor, 4), 0x554D4551u) << "\"QEMU\"";
    EXPECT_EQ(empty.read(kQueueNumMax, 4), 0u);
    VirtioMmio console(VirtioMmio::kConsole);
    EXPECT_EQ(console.read(kDeviceId, 4), 3u);
    EXPECT_EQ(console.read(kQueueNumMax, 4), 128u);
    EXPECT_EQ(console.read(kMagic, 1), 0u) << "the registers are words";
}

// A chain transmitted whole at the notification, returned to the used ring;
// the interrupt until InterruptACK; a buffer the guest asks no interrupt for
// is used silently; a notification of the receive queue does nothing.
TEST(VirtioMmio, TransmittedBuffersAreUsedInOrderAndInterruptUnlessSuppressed)
{
    Guest g;
    g.setup();
    EXPECT_EQ(g.dev.read(kQueuePfn, 4), 0x40001u);
    g.offer({ "he", "llo" });
    EXPECT_EQ(g.out, "") << "not before the notification";
    g.reg(kNotify, 0);
    EXPECT_EQ(g.out, "") << "the receive queue";
    g.reg(kNotify, 1);
    EXPECT_EQ(g.out, "hello");
    EXPECT_EQ(g.get<uint16_t>(kUsed + 2), 1u) << "the used index";
    EXPECT_EQ(g.get<uint32_t>(kUsed + 4), 0u) << "the chain's head descriptor";
    EXPECT_TRUE(g.dev.interrupt());
    EXPECT_EQ(g.dev.read(kIsr, 4), 1u) << "a used buffer";
    g.reg(kAck, 1);
    EXPECT_FALSE(g.dev.interrupt());
    g.put<uint16_t>(kAvail, 1);  // VIRTQ_AVAIL_F_NO_INTERRUPT
    g.offer({ "!" });
    g.offer({ "?" });
    g.reg(kNotify, 1);
    EXPECT_EQ(g.out, "hello!?") << "both, in the ring's order";
    EXPECT_EQ(g.get<uint16_t>(kUsed + 2), 3u);
    EXPECT_EQ(g.get<uint32_t>(kUsed + 4 + 8 * 2), 3u) << "the third head: descriptor 3";
    EXPECT_FALSE(g.dev.interrupt()) << "suppressed";
    g.reg(kNotify, 1);
    EXPECT_EQ(g.get<uint16_t>(kUsed + 2), 3u) << "nothing new: nothing used again";
}

// A buffer outside the RAM stops the device (DEVICE_NEEDS_RESET): later
// buffers are not used until a reset, after which the queue is set up anew.
TEST(VirtioMmio, ABufferOutsideTheRamNeedsAReset)
{
    Guest g;
    g.setup();
    g.reg(kStatus, 0x0F);
    g.offer({ "x" }, 0x10000000);  // not RAM
    g.reg(kNotify, 1);
    EXPECT_EQ(g.dev.read(kStatus, 4), 0x4Fu) << "DEVICE_NEEDS_RESET";
    EXPECT_EQ(g.get<uint16_t>(kUsed + 2), 0u);
    g.offer({ "y" });
    g.reg(kNotify, 1);
    EXPECT_EQ(g.out, "") << "stopped";
    g.reg(kStatus, 0);
    EXPECT_EQ(g.dev.read(kStatus, 4), 0u);
    EXPECT_EQ(g.dev.read(kQueuePfn, 4), 0u) << "the queue forgotten";
}

// chr-testdev: a number and 'q' end the machine with (N << 1) | 1, whether
// they come in one buffer or across several.
TEST(VirtioMmio, TheTestdevExitsWithQemusStatusAcrossNotifications)
{
    TestDev t;
    uint32_t status = 0;
    EXPECT_FALSE(t.put('4', &status));  // one buffer
    EXPECT_FALSE(t.put('2', &status));  // the next
    EXPECT_TRUE(t.put('q', &status));
    EXPECT_EQ(status, (42u << 1) | 1);
    for (char c : std::string(" 7 "))
        EXPECT_FALSE(t.put(c, &status)) << "spaces around the number are skipped";
    EXPECT_TRUE(t.put('q', &status));
    EXPECT_EQ(status, (7u << 1) | 1);
    EXPECT_FALSE(t.put('x', &status)) << "another command: nothing";
    EXPECT_TRUE(t.put('q', &status));
    EXPECT_EQ(status, 1u) << "no number: 0, so status 1";
}
