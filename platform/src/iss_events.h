// SPDX-License-Identifier: Apache-2.0
//
// The ISS's events, block by block (docs/FIRMWARE.md, "Events"): each
// translated block is classified once (a64_events.h) and kept with the
// events its instructions generate; a PE's tally holds the events of the
// instructions and exceptions not yet told to the monitors.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "a64_events.h"

namespace pmvp::soc {

// A translated block as classified: its instructions and their events.
struct IssBlock {
    uint64_t pc = 0;
    uint32_t size = 0;                 // bytes
    std::vector<uint32_t> words;       // the instructions it was classified from
    std::vector<a64::Mask> masks;      // each instruction's events
    std::vector<std::pair<a64::Event, uint32_t>> totals;  // the block's events, each with its count
    uint32_t count[a64::kNumEvents] = {};                 // the same, by event, with MEM_ACCESS
    bool conditional_last = false;     // it ends with a conditional branch
    // Where its instructions are in the guest's RAM, to check them against
    // at each execution (self-modifying code); null: read them each time.
    const uint32_t *code = nullptr;
    unsigned instructions() const { return (unsigned)masks.size(); }
};

// The occurrences of each event not yet told.
struct IssTally {
    uint64_t n[a64::kNumEvents] = {};
    void add(a64::Mask m);
    void add(const IssBlock &b);
    // Instructions [from, to) of block b.
    void add(const IssBlock &b, unsigned from, unsigned to);
    bool empty() const;
};

// One engine's classified blocks (its translation cache's shadow), by
// address. Unicorn translates by virtual address and may retranslate a
// block (its code changed, its cache was cleared): a block is checked
// against its code at each execution and classified again when it differs.
class IssBlockCache {
public:
    // Where the `n` instructions at `pc` are now: a pointer into the guest's
    // RAM where they lie in one mapping (kept to check the block against),
    // or `buf` (n words) filled by reading them.
    struct Code {
        const uint32_t *words;
        bool in_ram;
    };
    using Locate = Code (*)(void *ctx, uint64_t pc, unsigned n, uint32_t *buf);
    const IssBlock &get(uint64_t pc, uint32_t size, Locate locate, void *ctx);
    // The guest changed its translation (TTBRn, TCR, SCTLR): the pointers
    // into RAM may no longer be where the addresses are.
    void clear();
    uint64_t classified() const { return classified_; }  // blocks classified so far (first or again)

private:
    static constexpr unsigned kFront = 1024;  // a direct-mapped front to the map
    IssBlock *front_[kFront] = {};
    std::unordered_map<uint64_t, IssBlock> blocks_;
    std::vector<uint32_t> buf_;
    uint64_t classified_ = 0;
    static void classify(IssBlock &b, const uint32_t *words, unsigned n);
};

}  // namespace pmvp::soc
