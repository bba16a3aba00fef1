// SPDX-License-Identifier: Apache-2.0
//
// The generic timer (D12): the System Counter, and each PE's EL1 physical
// and virtual timers.

#include "aarch64_iss.h"
#include "polling.h"

namespace pmvp::soc {

namespace {

constexpr uint64_t kCntCtlEnable = 1, kCntCtlImask = 2, kCntCtlIstatus = 4;

// The code a polling loop's analysis reads: the current block's words as
// classified, and past them the guest's memory through its translation.
bool fetch_word(void *ctx, uint64_t pc, uint32_t &insn)
{
    const auto &t = *static_cast<const Aarch64Iss::Thread *>(ctx);
    if (t.block && pc >= t.block_pc && pc < t.block_pc + t.block_size) {
        insn = t.block->words[(pc - t.block_pc) / 4];
        return true;
    }
    return read_virtual(t.uc, pc, &insn, 4);
}

uint64_t read_x(void *ctx, unsigned n)
{
    return xreg(static_cast<const Aarch64Iss::Thread *>(ctx)->uc, n);
}

}  // namespace

void Aarch64Iss::fast_forward_poll(Thread &t, uint64_t pc, unsigned rt)
{
    // Not where a hook watches instructions one by one (a breakpoint, a
    // watchpoint, software step), or the run is to stop at this block's end.
    if (!cluster_.cpu.fast_forward_polling || t.stopping || t.step_configured || !t.debug_hooks.empty() || !t.block ||
        pc < t.block_pc || pc >= t.block_pc + t.block_size || t.retired >= t.limit)
        return;
    const uint64_t before = retired_before(t, pc);
    poll::Loop loop;
    const poll::Code code{ fetch_word, read_x, &t };
    if (!poll::analyse(code, pc, rt, counter_at(time_of(t, before)), loop))
        return;
    // The run's limit holds the current block: as many whole iterations as
    // fit after it, and fewer than would reach a watched occurrence.
    uint64_t most = (t.limit - t.retired) / loop.length;
    for (unsigned i = 0; i < t.watching; i++)
        if (const uint64_t n = loop.count[t.watch[i].event])
            most = std::min(most, t.watch[i].left ? (t.watch[i].left - 1) / n : 0);
    // The first iteration to read `below` or more (the counter never goes
    // back) runs, and those before it are skipped.
    uint64_t lo = 1, hi = most + 1;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (counter_at(time_of(t, before + mid * loop.length)) >= loop.below)
            hi = mid;
        else
            lo = mid + 1;
    }
    const uint64_t skipped = std::min(lo, most), n = skipped * loop.length;
    if (n == 0)
        return;
    t.retired += n;
    t.block_start += n;
    for (unsigned e = 0; e < a64::kNumEvents; e++)
        if (loop.count[e])
            t.pending.add((a64::Event)e, skipped * loop.count[e]);
    for (unsigned i = 0; i < t.watching; i++)
        t.watch[i].left -= skipped * loop.count[t.watch[i].event];
    t.result.fast_forwarded += n;
}

uint64_t Aarch64Iss::counter_at(pmvp_time at) const
{
    // A frequency that divides 1 THz (100 MHz: 10,000 ps a tick) needs no
    // 128-bit division, which a guest polling the counter would pay each read.
    const uint64_t hz = soc_.scenario.system_counter_hz;
    if (hz && 1000000000000ull % hz == 0)
        return at / (1000000000000ull / hz);
    return (uint64_t)((u128)at * hz / 1000000000000ull);
}

pmvp_time Aarch64Iss::counter_reaches(uint64_t count) const
{
    if (soc_.scenario.system_counter_hz == 0)
        return PMVP_TIME_NEVER;
    u128 t = ((u128)count * 1000000000000ull + soc_.scenario.system_counter_hz - 1) / soc_.scenario.system_counter_hz;
    return t >= PMVP_TIME_NEVER ? PMVP_TIME_NEVER : (pmvp_time)t;
}

pmvp_time Aarch64Iss::timer_fires(const Thread &t, unsigned k) const
{
    const Thread::Timer &tm = t.timer[k];
    return (tm.ctl & kCntCtlEnable) && !(tm.ctl & kCntCtlImask) ? counter_reaches(tm.cval) : PMVP_TIME_NEVER;
}

pmvp_time Aarch64Iss::next_timer(const Thread &t, pmvp_time after) const
{
    pmvp_time next = PMVP_TIME_NEVER;
    for (unsigned k = 0; k < 2; k++)
        if (pmvp_time f = timer_fires(t, k); f > after && guest_.gic->would_signal(t.image_pe, kTimerIntid[k]))
            next = std::min(next, f);
    return next;
}

// CNTFRQ_EL0, CNTPCT_EL0, CNTVCT_EL0, CNTP_{TVAL,CTL,CVAL}_EL0 and
// CNTV_{TVAL,CTL,CVAL}_EL0 (op0 3, op1 3, CRn 14). The counter is the
// System Counter at the access's instant; CNTFRQ_EL0 reads its frequency
// and ignores writes (the platform sets it); the rest as D12.8 says.
bool Aarch64Iss::timer_access(Thread &t, bool write, const uc_arm64_cp_reg *cp, uint64_t pc, uint64_t &value)
{
    if (cp->op0 != 3 || cp->op1 != 3 || cp->crn != 14)
        return false;
    const uint64_t before = retired_before(t, pc);
    const uint64_t now = counter_at(time_of(t, before));
    if (cp->crm == 0 && cp->op2 <= 2) {  // CNTFRQ, CNTPCT, CNTVCT
        if (!write)
            value = cp->op2 == 0 ? soc_.scenario.system_counter_hz : now;
        return true;
    }
    if ((cp->crm != 2 && cp->crm != 3) || cp->op2 > 2)
        return false;
    Thread::Timer &tm = t.timer[cp->crm - 2];  // CRm 2: physical, 3: virtual
    switch (cp->op2) {
    case 0:  // TVAL: CVAL - count, a signed 32-bit value
        if (write)
            tm.cval = now + (uint64_t)(int64_t)(int32_t)(uint32_t)value;
        else
            value = (uint64_t)(uint32_t)(tm.cval - now);
        break;
    case 1:  // CTL: ISTATUS read-only
        if (write)
            tm.ctl = value & (kCntCtlEnable | kCntCtlImask);
        else
            value = tm.ctl | ((tm.ctl & kCntCtlEnable) && now >= tm.cval ? kCntCtlIstatus : 0);
        break;
    default:  // CVAL
        if (write)
            tm.cval = value;
        else
            value = tm.cval;
        break;
    }
    if (write) {
        tell_retired(t, before);  // the timer's line changes from here
        stop(t);
    }
    return true;
}

}  // namespace pmvp::soc
