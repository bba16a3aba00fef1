// SPDX-License-Identifier: Apache-2.0
//
// The generic timer (D12): the System Counter, and each PE's EL1 physical
// and virtual timers.

#include "aarch64_iss.h"

namespace pmvp::soc {

namespace {

constexpr uint64_t kCntCtlEnable = 1, kCntCtlImask = 2, kCntCtlIstatus = 4;

}  // namespace

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
