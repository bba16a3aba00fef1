// SPDX-License-Identifier: Apache-2.0
#include "pmvp/systemc/support.h"

#include <cmath>

namespace pmvp::sc {

TimeBase::TimeBase()
{
    // SystemC counts ticks of its time resolution (1 ps by default, where
    // the two are the same).
    double ps = sc_core::sc_get_time_resolution().to_seconds() * 1e12;
    if (ps >= 1)
        ps_per_tick_ = (uint64_t)std::llround(ps);
    else
        ticks_per_ps_ = (uint64_t)std::llround(1 / ps);
}

pmvp_time TimeBase::to_ps(const sc_core::sc_time &t) const
{
    // Every access converts twice: spare the division when ticks are ps or coarser.
    if (ticks_per_ps_ != 1)
        return t.value() / ticks_per_ps_;
    return t.value() > PMVP_TIME_NEVER / ps_per_tick_ ? PMVP_TIME_NEVER : t.value() * ps_per_tick_;
}

pmvp_time TimeBase::after(const sc_core::sc_time &offset) const
{
    pmvp_time now = this->now(), d = to_ps(offset);
    return d >= PMVP_TIME_NEVER - now ? PMVP_TIME_NEVER : now + d;
}

sc_core::sc_time TimeBase::to_sc(pmvp_time ps) const
{
    uint64_t ticks = (ps * ticks_per_ps_ + ps_per_tick_ - 1) / ps_per_tick_;
    return sc_core::sc_time::from_value(ticks);
}

}  // namespace pmvp::sc
