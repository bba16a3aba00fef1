// SPDX-License-Identifier: Apache-2.0
//
// What the monitors are told: the instructions retired and their events,
// lazily (tell_retired), a conditional branch's PC_WRITE_RETIRED, the
// occurrences that are no instruction's own.

#include "aarch64_iss.h"

namespace pmvp::soc {

void Aarch64Iss::tell_retired(Thread &t, uint64_t upto)
{
    if (upto > t.step_n)
        tell_clock(t.step_at);  // a step past the quantum's end, passed by the run's last block
    upto = std::max(upto, t.reported);
    if (t.block && upto > t.block_start + t.block_told) {
        const unsigned to = (unsigned)(upto - t.block_start);
        t.pending.add(*t.block, t.block_told, to);
        t.block_told = to;
    }
    t.blocks.drain(t.pending);
    if (upto == t.reported && t.pending.empty())
        return;
    // The instructions retired in (since, time_of(upto)], and their events,
    // told as shares spread evenly over those cycles
    // (Monitors::report_shares): with one instruction every CPI cycles, a
    // threshold sees the same per-cycle values as instruction by
    // instruction, in another order.
    pmvp_time last = t.reported_at_n == t.reported && t.reported > t.run_n0 ? t.reported_at
                     : t.reported > t.run_n0                                ? time_of(t, t.reported)
                                                                            : t.run_t0;
    pmvp_time since = std::max(last, time_.now()), at = time_of(t, upto);
    if (upto == t.reported)  // events of no instruction (an interrupt taken after a WFI): at the PE's present
        at = std::max({ at, since, t.now });
    t.result.instructions += upto - t.reported;
    t.reported = t.reported_at_n = upto;
    t.reported_at = at;
    IssTally &p = t.pending;
    if (!monitors_) {  // detached: told to no one
        p.clear();
        return;
    }
    if (p.touched & (a64::bit(a64::MEM_ACCESS_RD) | a64::bit(a64::MEM_ACCESS_WR)))
        p.add(a64::MEM_ACCESS, p.n[a64::MEM_ACCESS_RD] + p.n[a64::MEM_ACCESS_WR]);
    // At most PMVP_MAX_BATCHES shares a call: a later call's shares are
    // told at the window's end (a64::Event puts the most used first).
    pmvp_share shares[PMVP_MAX_BATCHES];
    unsigned num = 0;
    for (a64::Mask m = p.touched; m; m &= m - 1) {
        const unsigned e = __builtin_ctzll(m);
        t.result.events[e] += p.n[e];
        if (p.n[e])
            shares[num++] = { t.pe, a64::kNumber[e], p.n[e] };
        if (num == PMVP_MAX_BATCHES || ((m & (m - 1)) == 0 && num)) {
            int err = monitors_->report_shares(shares, num, offset(since), offset(at));
            if (err != PMVP_OK)
                SC_REPORT_ERROR("pmvp/iss", (std::string("the ISS's events refused: ") + pmvp_strerror(err)).c_str());
            num = 0;
        }
    }
    p.clear();
}

namespace {

// Whether conditional branch `insn`, the last of its block, whose target
// is the next instruction, was taken: its condition, on the registers as it
// left them (as it was last, those it read).
bool branch_taken(uc_engine *uc, uint32_t insn)
{
    const bool test = (insn & 0x7E000000) == 0x36000000, compare = (insn & 0x7E000000) == 0x34000000;
    if (compare || test) {  // CBZ, CBNZ, TBZ, TBNZ: bit 24 the non-zero form
        const uint64_t x = xreg(uc, insn & 31);
        const bool zero =
            compare ? ((insn >> 31) ? x : (uint32_t)x) == 0 : !((x >> ((insn >> 31) << 5 | ((insn >> 19) & 31))) & 1);
        return zero != (bool)((insn >> 24) & 1);
    }
    uint64_t nzcv = 0;  // B.cond, BC.cond
    uc_reg_read(uc, UC_ARM64_REG_NZCV, &nzcv);
    return a64::condition_holds(insn & 0xF, nzcv);
}

}  // namespace

uint64_t xreg(uc_engine *uc, unsigned n)
{
    if (n == 31)
        return 0;  // XZR
    uint64_t v = 0;
    uc_reg_read(uc,
                n <= 28   ? (int)UC_ARM64_REG_X0 + (int)n
                : n == 29 ? (int)UC_ARM64_REG_X29
                          : (int)UC_ARM64_REG_X30,
                &v);
    return v;
}

void Aarch64Iss::close_branch(Thread &t, const IssBlock &b, uint64_t next_pc)
{
    if (b.target != IssBlock::kNoTarget ? next_pc == b.target : branch_taken(t.uc, b.words.back()))
        occur(t, a64::PC_WRITE_RETIRED);
}

void Aarch64Iss::retire_before(Thread &t, uint64_t pc)
{
    const uint64_t n = retired_before(t, pc);
    if (pc < t.block_pc || pc >= t.block_pc + t.block_size || n < t.reported)
        return;  // not the current block's, or told already (not reached: no access tells its own instruction)
    t.retired = n;
    t.block_retires = (unsigned)(n - t.block_start);
}

void Aarch64Iss::occur(Thread &t, a64::Event e)
{
    t.pending.add(e);
    for (unsigned i = 0; i < t.watching; i++)
        if (t.watch[i].event == e && t.watch[i].left && --t.watch[i].left == 0)
            stop(t);
}

}  // namespace pmvp::soc
