// SPDX-License-Identifier: Apache-2.0
//
// The ISS's events, block by block (docs/FIRMWARE.md, "Events"): each
// translated block is classified once (a64_events.h) and kept with the
// events its instructions generate; a PE's tally holds the events of the
// instructions and exceptions not yet told to the monitors.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "a64_events.h"

namespace pmvp::soc {

// A translated block as classified: its instructions and their events.
struct IssBlock {
    uint64_t pc = 0;
    uint32_t size = 0;                                    // bytes
    std::vector<uint32_t> words;                          // the instructions it was classified from
    std::vector<a64::Mask> masks;                         // each instruction's events
    std::vector<std::pair<a64::Event, uint32_t>> totals;  // the block's events, each with its count
    uint32_t count[a64::kNumEvents] = {};                 // the same, by event, with MEM_ACCESS
    a64::Mask events = 0;                                 // the events it generates (its totals'), and
                                                          // PC_WRITE_RETIRED if it ends with a conditional branch
    bool conditional_last = false;                        // it ends with a conditional branch
    bool returns_last = false;                            // it ends with an exception return (ERET)
    // Classified again, its code having changed since it last ran: the
    // translation about to run may be of the old code (on_block).
    bool recoded = false;
    // That branch's target, where it is not the next instruction (so the
    // next block's address says whether it was taken); else kNoTarget.
    static constexpr uint64_t kNoTarget = UINT64_MAX;
    uint64_t target = kNoTarget;
    // The epoch of its half of the address space (IssBlockCache::clear) in
    // which it was last checked against its code: it is current while that
    // epoch lasts.
    uint64_t epoch = 0;
    // The one instruction of the block that may access data memory
    // (a64::may_access_memory), by index; kNoSingleAccess when it has none
    // or more than one. Every load or store in the block is then its.
    static constexpr unsigned kNoSingleAccess = UINT32_MAX;
    unsigned single_access = kNoSingleAccess;
    uint64_t runs = 0;   // whole executions not yet in a tally (IssBlockCache::ran)
    uint64_t taken = 0;  // of those, the ones whose conditional branch was taken
    unsigned instructions() const { return (unsigned)masks.size(); }
};

// The occurrences of each event not yet told, and which may be non-zero
// (so a tell visits those only).
struct IssTally {
    uint64_t n[a64::kNumEvents] = {};
    a64::Mask touched = 0;
    void add(a64::Mask m);
    void add(a64::Event e, uint64_t count = 1)
    {
        n[e] += count;
        touched |= a64::bit(e);
    }
    void add(const IssBlock &b, uint64_t times = 1);
    // Block b's executions not yet in a tally, and its branch's takings.
    void add_runs(IssBlock &b);
    // Instructions [from, to) of block b.
    void add(const IssBlock &b, unsigned from, unsigned to);
    bool empty() const { return touched == 0; }
    // Zeroes the events touched.
    void clear();
};

// One engine's classified blocks (its translation cache's shadow), by
// address, and the whole executions of each not yet in a tally: a block
// that runs again costs a lookup and an increment. Unicorn translates by
// virtual address and retranslates a block whose code changed: a block is
// checked against its code at its first execution after a clear() of its
// half of the address space (bit 55: TTBR0's or TTBR1's), which the ISS
// calls where the architecture makes changed code or a changed
// translation visible (an instruction cache invalidation, a TLB
// invalidation, a write to SCTLR_EL1, TCR_EL1 or TTBRn_EL1), and
// classified again if it differs. A clear costs the same however many
// blocks there are: each half has an epoch, and a block is current while
// it was checked in its half's present epoch.
class IssBlockCache {
public:
    // The `n` instructions at `pc` as they are now: a pointer into the
    // guest's RAM where they lie in one mapping, or `buf` (n words) filled
    // by reading them.
    using Locate = const uint32_t *(*)(void *ctx, uint64_t pc, unsigned n, uint32_t *buf);
    // The block at `pc` of `size` bytes; a block classified again first
    // adds its executions not yet told to `pending`.
    IssBlock &get(uint64_t pc, uint32_t size, Locate locate, void *ctx, IssTally &pending)
    {
        IssBlock *b = front_[(pc >> 2) % kFront];
        return b && b->pc == pc && b->size == size && b->epoch == epoch_[half(pc)]
                   ? *b
                   : lookup(pc, size, locate, ctx, pending);
    }
    // Block b ran whole once more.
    void ran(IssBlock &b)
    {
        if (b.runs++ == 0)
            ran_.push_back(&b);
    }
    // Adds every block's executions to `pending`.
    void drain(IssTally &pending);
    // Every block of the halves in `halves` (kLower: VA bit 55 clear, the
    // TTBR0 half; kUpper: set) is checked against its code at its next
    // execution.
    static constexpr unsigned kLower = 1, kUpper = 2, kBoth = 3;
    void clear(unsigned halves = kBoth)
    {
        epoch_[0] += halves & kLower;
        epoch_[1] += (halves & kUpper) >> 1;
    }
    uint64_t classified() const { return classified_; }  // blocks classified so far (first or again)

private:
    static constexpr unsigned kFront = 16384;  // a direct-mapped front to the map (not in line: the PE's
    std::unique_ptr<IssBlock *[]> front_ { new IssBlock *[kFront]() };  // hot fields stay close)
    std::unordered_map<uint64_t, IssBlock> blocks_;
    std::vector<IssBlock *> ran_;  // the blocks whose runs are not 0
    std::vector<uint32_t> buf_;
    uint64_t classified_ = 0;
    uint64_t epoch_[2] = { 1, 1 };  // each half's, as clear() advances it (a new block's is 0)
    static unsigned half(uint64_t pc) { return (pc >> 55) & 1; }
    static void classify(IssBlock &b, const uint32_t *words, unsigned n);
    IssBlock &lookup(uint64_t pc, uint32_t size, Locate locate, void *ctx, IssTally &pending);
};

}  // namespace pmvp::soc
