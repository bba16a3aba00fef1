// SPDX-License-Identifier: Apache-2.0
#include "iss_events.h"

#include <cstring>

namespace pmvp::soc {

void IssTally::add(a64::Mask m)
{
    touched |= m;
    while (m) {
        n[__builtin_ctzll(m)]++;
        m &= m - 1;
    }
}

void IssTally::add(const IssBlock &b, uint64_t times)
{
    for (const auto &[e, c] : b.totals)
        n[e] += c * times;
    touched |= b.events;
}

void IssTally::add_runs(IssBlock &b)
{
    add(b, b.runs);
    n[a64::PC_WRITE_RETIRED] += b.taken;  // in b.events if it can be taken
    b.runs = b.taken = 0;
}

void IssTally::add(const IssBlock &b, unsigned from, unsigned to)
{
    if (from == 0 && to == b.instructions()) {
        add(b);
        return;
    }
    for (unsigned i = from; i < to && i < b.instructions(); i++)
        add(b.masks[i]);
}

void IssTally::clear()
{
    for (a64::Mask m = touched; m; m &= m - 1)
        n[__builtin_ctzll(m)] = 0;
    touched = 0;
}

void IssBlockCache::classify(IssBlock &b, const uint32_t *words, unsigned n)
{
    b.words.assign(words, words + n);
    b.masks.resize(n);
    std::memset(b.count, 0, sizeof b.count);
    b.conditional_last = false;
    unsigned accesses = 0;
    for (unsigned i = 0; i < n; i++) {
        if (a64::may_access_memory(words[i]) && accesses++ == 0)
            b.single_access = i;
        const a64::Insn in = a64::classify(words[i]);
        b.masks[i] = in.events;
        for (a64::Mask m = in.events; m; m &= m - 1)
            b.count[__builtin_ctzll(m)]++;
        b.conditional_last = in.conditional_branch && i + 1 == n;
    }
    b.returns_last = n && (b.masks[n - 1] & a64::bit(a64::EXC_RETURN));
    if (accesses != 1)
        b.single_access = IssBlock::kNoSingleAccess;
    b.target = IssBlock::kNoTarget;
    if (b.conditional_last) {
        const uint64_t last = b.pc + 4ull * (n - 1), to = a64::branch_target(words[n - 1], last);
        if (to != last + 4)
            b.target = to;
    }
    b.totals.clear();
    b.events = 0;
    for (unsigned e = 0; e < a64::kNumEvents; e++)
        if (b.count[e]) {
            b.totals.emplace_back((a64::Event)e, b.count[e]);
            b.events |= a64::bit((a64::Event)e);
        }
    if (b.conditional_last)
        b.events |= a64::bit(a64::PC_WRITE_RETIRED);
    // MEM_ACCESS is told as MEM_ACCESS_RD + MEM_ACCESS_WR; its count here
    // is for the runs that watch it.
    b.count[a64::MEM_ACCESS] = b.count[a64::MEM_ACCESS_RD] + b.count[a64::MEM_ACCESS_WR];
}

IssBlock &IssBlockCache::lookup(uint64_t pc, uint32_t size, Locate locate, void *ctx, IssTally &pending)
{
    const unsigned n = size / 4;
    IssBlock *&slot = front_[(pc >> 2) % kFront];
    IssBlock *b = slot && slot->pc == pc ? slot : nullptr;
    if (!b) {
        b = &blocks_[pc];
        slot = b;
    }
    if (b->size == size && b->epoch == epoch_[half(pc)])
        return *b;  // the common case: classified, and not to be checked
    buf_.resize(n);
    const uint32_t *code = locate(ctx, pc, n, buf_.data());
    // (A new block's pc is 0: an empty block, QEMU's for a pending Software
    // Step exception, is classified too.)
    if (b->pc != pc || b->size != size || b->words.size() != n ||
        (size && std::memcmp(code, b->words.data(), size) != 0)) {
        pending.add_runs(*b);  // executed as it was (its entry in ran_ adds nothing more)
        b->recoded = !b->words.empty();
        b->pc = pc;
        b->size = size;
        classify(*b, code, n);
        classified_++;
    }
    b->epoch = epoch_[half(pc)];
    return *b;
}

void IssBlockCache::drain(IssTally &pending)
{
    for (IssBlock *b : ran_)
        pending.add_runs(*b);
    ran_.clear();
}

}  // namespace pmvp::soc
