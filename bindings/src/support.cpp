// SPDX-License-Identifier: Apache-2.0
#include "pmvp/systemc/support.h"

#include <cmath>

namespace pmvp::sc {

TimeBase::TimeBase()
{
    // SystemC counts ticks of its time resolution (1 ps by default, where
    // the two are the same).
    double ps = sc_core::sc_get_time_resolution().to_seconds() * 1e12;
    if (ps >= 1) {
        ps_per_tick_ = (uint64_t)std::llround(ps);
        max_ticks_ = PMVP_TIME_NEVER / ps_per_tick_;
    } else {
        ticks_per_ps_ = (uint64_t)std::llround(1 / ps);
    }
}

sc_core::sc_time TimeBase::to_sc(pmvp_time ps) const
{
    uint64_t ticks = (ps * ticks_per_ps_ + ps_per_tick_ - 1) / ps_per_tick_;
    return sc_core::sc_time::from_value(ticks);
}

}  // namespace pmvp::sc
