// SPDX-License-Identifier: Apache-2.0
//
// What the modules of the bindings share: ports a platform may leave
// unbound, and the conversion between SystemC time and kernel time (integer
// picoseconds) for any SystemC time resolution.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

// sc_spawn: the modules spawn their processes at the end of elaboration,
// and a platform including these headers may spawn its own.
#ifndef SC_INCLUDE_DYNAMIC_PROCESSES
#define SC_INCLUDE_DYNAMIC_PROCESSES
#endif
#include <systemc>

#include "pmvp/systemc/bytes.h"

extern "C" {
#include "pmvp/checkpoint.h"
#include "pmvp/clock.h"
#include "pmvp/core.h"
#include "pmvp/error.h"
#include "pmvp/x86.h"
}

namespace pmvp::sc {

template <typename T> using optional_in =
    sc_core::sc_port<sc_core::sc_signal_in_if<T>, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
template <typename T> using optional_out =
    sc_core::sc_port<sc_core::sc_signal_inout_if<T>, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

class TimeBase {
public:
    // Reads the simulation's time resolution: construct during elaboration.
    TimeBase();
    // Picoseconds, saturated at PMVP_TIME_NEVER (beyond any instant). Inline
    // and without a division: every access converts.
    pmvp_time to_ps(const sc_core::sc_time &t) const
    {
        if (ticks_per_ps_ != 1)
            return t.value() / ticks_per_ps_;
        return t.value() > max_ticks_ ? PMVP_TIME_NEVER : t.value() * ps_per_tick_;
    }
    // The instant `offset` after `now`, or PMVP_TIME_NEVER when it lies
    // beyond the representable time (an annotated delay near 2^64 ps): the
    // callers refuse such an access rather than let the instant wrap into
    // the past.
    pmvp_time after(pmvp_time now, const sc_core::sc_time &offset) const
    {
        if (offset.value() == 0)
            return now;
        pmvp_time d = to_ps(offset);
        return d >= PMVP_TIME_NEVER - now ? PMVP_TIME_NEVER : now + d;
    }
    // The SystemC time of `ps` picoseconds, rounded up to a whole tick so
    // that an event never fires before the instant it stands for.
    sc_core::sc_time to_sc(pmvp_time ps) const;
    pmvp_time now() const { return to_ps(sc_core::sc_time_stamp()); }

private:
    uint64_t ps_per_tick_ = 1, ticks_per_ps_ = 1;
    uint64_t max_ticks_ = PMVP_TIME_NEVER;  // the most ticks below PMVP_TIME_NEVER ps
};

// The policy for calls made ahead of simulated time, and the inputs kept
// for later instants (bindings/src/timeline.h): a module holds one.
template <class Core, class Module> class Timeline;

}  // namespace pmvp::sc
