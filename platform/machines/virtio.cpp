// SPDX-License-Identifier: Apache-2.0
//
// The virtio-mmio transport and its console (virtio.h).
#include "virtio.h"

#include <cstring>

namespace pmvp::soc::virt {

namespace {
// Legacy register offsets (virtio 1.0, 4.2.4).
enum : uint64_t {
    kMagic = 0x000,
    kVersion = 0x004,
    kDeviceId = 0x008,
    kVendorId = 0x00c,
    kHostFeatures = 0x010,
    kHostFeaturesSel = 0x014,
    kGuestFeatures = 0x020,
    kGuestFeaturesSel = 0x024,
    kGuestPageSize = 0x028,
    kQueueSel = 0x030,
    kQueueNumMax = 0x034,
    kQueueNum = 0x038,
    kQueueAlign = 0x03c,
    kQueuePfn = 0x040,
    kQueueNotify = 0x050,
    kInterruptStatus = 0x060,
    kInterruptAck = 0x064,
    kStatus = 0x070,
};
constexpr uint32_t kMagicValue = 0x74726976;  // "virt"
constexpr uint32_t kVendor = 0x554D4551;      // "QEMU", as QEMU's transports read
constexpr uint32_t kUsedBuffer = 1;           // InterruptStatus: a used buffer was added
constexpr uint16_t kDescNext = 1, kDescWrite = 2, kAvailNoInterrupt = 1;
constexpr unsigned kTransmitQueue = 1;

uint16_t get16(const uint8_t *p)
{
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}
}  // namespace

uint32_t VirtioMmio::read(uint64_t off, unsigned size) const
{
    if (size != 4)
        return 0;  // the registers are words (the console's configuration is empty)
    switch (off) {
    case kMagic: return kMagicValue;
    case kVersion: return 1;
    case kVendorId: return kVendor;
    default: break;
    }
    if (device_ == kNone)
        return 0;
    switch (off) {
    case kDeviceId: return device_;
    case kHostFeatures: return 0;  // no feature offered
    case kQueueNumMax: return queue_sel_ < kQueues ? kQueueSizeMax : 0;
    case kQueuePfn: return queue_sel_ < kQueues ? queues_[queue_sel_].pfn : 0;
    case kInterruptStatus: return isr_;
    case kStatus: return status_;
    default: return 0;
    }
}

void VirtioMmio::reset()
{
    status_ = isr_ = queue_sel_ = 0;
    for (Queue &q : queues_)
        q = Queue{};
}

void VirtioMmio::write(uint64_t off, unsigned size, uint32_t value, const DmaWindow &ram,
                       const std::function<void(char)> &out)
{
    if (device_ == kNone || size != 4)
        return;
    Queue *q = queue_sel_ < kQueues ? &queues_[queue_sel_] : nullptr;
    switch (off) {
    // No feature is offered: the feature words and their selectors hold nothing.
    case kGuestPageSize: page_size_ = value; break;
    case kQueueSel: queue_sel_ = value; break;
    case kQueueNum:
        if (q)
            q->num = value <= kQueueSizeMax ? value : 0;
        break;
    case kQueueAlign:
        if (q)
            q->align = value;
        break;
    case kQueuePfn:
        if (q) {
            q->pfn = value;
            q->last_avail = 0;
        }
        break;
    case kQueueNotify: notify(value, ram, out); break;
    case kInterruptAck: isr_ &= ~value; break;
    case kStatus:
        if (value == 0)
            reset();
        else
            status_ = value;
        break;
    default: break;
    }
}

void VirtioMmio::notify(unsigned index, const DmaWindow &ram, const std::function<void(char)> &out)
{
    if (index != kTransmitQueue || (status_ & kNeedsReset))
        return;  // the receive queue waits for input, which never comes
    Queue &q = queues_[index];
    if (!q.pfn || !q.num)
        return;
    if (!transmit(q, ram, out))
        fail();
}

// The guest's transmitted buffers, from the next available one: their
// bytes out, each returned to the used ring; the interrupt unless the guest
// asked for none. False where the rings or a buffer leave the RAM.
bool VirtioMmio::transmit(Queue &q, const DmaWindow &ram, const std::function<void(char)> &out)
{
    const uint64_t desc = (uint64_t)q.pfn * page_size_, avail = desc + 16ull * q.num;
    const uint64_t align = q.align && !(q.align & (q.align - 1)) ? q.align : 4096;
    const uint64_t used = (avail + 2ull * (3 + q.num) + align - 1) & ~(align - 1);
    uint8_t *a = ram.at(avail, 2ull * (3 + q.num)), *u = ram.at(used, 6 + 8ull * q.num);
    uint8_t *d = ram.at(desc, 16ull * q.num);
    if (!a || !u || !d)
        return false;
    const uint16_t avail_idx = get16(a + 2);
    uint16_t used_idx = get16(u + 2);
    bool added = false;
    for (; q.last_avail != avail_idx; q.last_avail++) {
        uint16_t head = get16(a + 4 + 2 * (q.last_avail % q.num));
        uint32_t chain = 0;
        for (uint16_t i = head;; chain++) {
            if (i >= q.num || chain >= q.num)
                return false;  // a descriptor past the table, or a loop
            uint64_t addr;
            uint32_t len;
            uint16_t flags, next;
            std::memcpy(&addr, d + 16 * i, 8);
            std::memcpy(&len, d + 16 * i + 8, 4);
            flags = get16(d + 16 * i + 12);
            next = get16(d + 16 * i + 14);
            const uint8_t *bytes = ram.at(addr, len);
            if (!bytes)
                return false;
            if (!(flags & kDescWrite))
                for (uint32_t k = 0; k < len; k++)
                    out((char)bytes[k]);
            if (!(flags & kDescNext))
                break;
            i = next;
        }
        uint8_t *entry = u + 4 + 8 * (used_idx % q.num);
        const uint32_t id = head, written = 0;
        std::memcpy(entry, &id, 4);
        std::memcpy(entry + 4, &written, 4);
        used_idx++;
        added = true;
    }
    std::memcpy(u + 2, &used_idx, 2);
    if (added && !(get16(a) & kAvailNoInterrupt))
        isr_ |= kUsedBuffer;
    return true;
}

bool TestDev::put(char c, uint32_t *status)
{
    if (c >= '0' && c <= '9') {
        arg_ = arg_ * 10 + (uint32_t)(c - '0');
        return false;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        return false;  // spaces around the number, as QEMU skips them
    bool quit = c == 'q';
    if (quit)
        *status = (arg_ << 1) | 1;
    arg_ = 0;
    return quit;
}

}  // namespace pmvp::soc::virt
