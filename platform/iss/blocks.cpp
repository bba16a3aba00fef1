// SPDX-License-Identifier: Apache-2.0
//
// The block hook: each translated block counted as it is entered, its
// instructions' events classified once (iss_events.h), and a run ended
// before a block that would pass its limit or an occurrence that interrupts.

#include "aarch64_iss.h"

namespace pmvp::soc {

namespace {

// PSTATE.I is clear. Every instruction that can clear it ends its
// translated block (MSR DAIFClr, MSR DAIF and the other System-register
// writes, ERET, an exception entry), so the block hook sees the change
// before the next instruction runs.
bool irq_unmasked(const Aarch64Iss::Thread &t)
{
    uint64_t pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    return !(pstate & kPstateI);
}

// Where a block's instructions are now (IssBlockCache::Locate): in the
// guest's RAM when its physical address is there (one page of it with the
// MMU on), or read.
const uint32_t *locate_code(void *ctx, uint64_t pc, unsigned n, uint32_t *buf)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(ctx);
    const Guest &g = t.iss->guest_;
    uc_arm64_cp_reg sctlr{ 1, 0, 3, 0, 0, 0 };
    uc_reg_read(t.uc, UC_ARM64_REG_CP_REG, &sctlr);
    const bool mmu = sctlr.val & 1;
    const uint64_t pa = mmu ? translate(t.uc, pc) : pc, bytes = 4ull * n;
    if (pa != UINT64_MAX && pa >= kRamBase && pa - kRamBase <= g.ram_size - bytes &&
        (!mmu || (pc & 0xFFF) + bytes <= 0x1000))
        return reinterpret_cast<const uint32_t *>(g.ram + (pa - kRamBase));
    if (!read_virtual(t.uc, pc, buf, bytes))
        std::memset(buf, 0, bytes);  // it ran, so it is there: not reached
    return buf;
}

// The block would pass an occurrence of a watched event (Thread::watch).
// A conditional branch at its end is taken as taken.
bool passes_watch(const Aarch64Iss::Thread &t, const IssBlock &b)
{
    for (unsigned i = 0; i < t.watching; i++) {
        const auto &w = t.watch[i];
        const uint64_t c = b.count[w.event] + (w.event == a64::PC_WRITE_RETIRED && b.conditional_last);
        if (w.left == 0 || c > w.left)
            return true;
    }
    return false;
}

// Block b's code changed since it last ran. Unicorn drops a translation when
// its own engine writes the code, not when another PE's does: the
// translation it is about to run may be of the old code. The run stops
// before it, and the next drops it first (Aarch64Iss::drop_stale), even if
// no block ran (the next finds the block current: no loop).
__attribute__((noinline)) void stop_recoded(Aarch64Iss::Thread &t, IssBlock &b)
{
    b.recoded = false;
    t.recoded_pc = b.pc;
    t.recoded_size = b.size;
    t.stopping = true;
    t.stopped_before = b.pc;
    uc_emu_stop(t.uc);
}

// Whether the run stops before block b of n instructions: a stop asked for
// elsewhere in the previous block, or the block passes the run's limit or
// an occurrence that interrupts, or the previous block unmasked a pending
// interrupt or changed PSTATE.D while software step is configured (at least
// one block per run). Out of the block hook's way.
__attribute__((noinline)) bool stops_before(Aarch64Iss::Thread &t, const IssBlock &b, uint64_t n)
{
    if (!t.stopping &&
        !(t.ran_block && (t.retired + n > t.limit || passes_watch(t, b) || (t.watch_unmask && irq_unmasked(t)) ||
                          (t.step_configured && Aarch64Iss::step_flags_stale(t)))))
        return false;
    t.stopping = true;
    t.stopped_before = b.pc;
    uc_emu_stop(t.uc);
    return true;
}

// The watched events' occurrences left, after block b.
__attribute__((noinline)) void watch_block(Aarch64Iss::Thread &t, const IssBlock &b)
{
    for (unsigned i = 0; i < t.watching; i++) {
        auto &w = t.watch[i];
        w.left -= std::min<uint64_t>(w.left, b.count[w.event]);
    }
}

}  // namespace

// The block after an exception return: the PE's Exception level may have
// changed at the ERET, the previous block's last instruction.
__attribute__((noinline)) void returned(Aarch64Iss::Thread &t)
{
    uint64_t pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    t.iss->sync_el(t, pstate, t.retired);
}

// The block hook. A detached core classifies its blocks too: it is the same
// CPU model, producing the same inputs, given to no monitors.
void on_block(uc_engine *, uint64_t address, uint32_t size, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    const uint64_t n = size / 4;
    IssBlock &b = t.blocks.get(address, size, locate_code, &t, t.pending);
    if (__builtin_expect(b.recoded, 0)) {
        stop_recoded(t, b);
        return;
    }
    // The common case decided with one test: no stop asked for, the limit
    // not passed, nothing watched.
    if (__builtin_expect(t.stopping | (t.ran_block & ((t.retired + n > t.limit) | (t.watching != 0) | t.watch_unmask |
                                                      t.step_configured)),
                         0) &&
        stops_before(t, b, n))
        return;
    const IssBlock *prev = t.block;
    t.iss->close_block(t, address);
    if (prev && prev->returns_last)
        returned(t);
    t.ran_block = true;
    t.sysreg_pc = UINT64_MAX;
    t.block_pc = address;
    t.block_start = t.retired;
    t.block_size = size;
    t.retired += n;
    t.block = &b;
    t.block_told = 0;
    t.block_retires = (unsigned)n;
    if (t.watching)
        watch_block(t, b);
}

}  // namespace pmvp::soc
