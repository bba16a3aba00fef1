// SPDX-License-Identifier: Apache-2.0
//
// What the modules of the bindings share: ports a platform may leave
// unbound, and the conversion between SystemC time and kernel time (integer
// picoseconds) for any SystemC time resolution.
#pragma once

#include <cstdint>

#include <systemc>

extern "C" {
#include "pmvp/clock.h"
}

namespace pmvp::sc {

template <typename T>
using optional_in = sc_core::sc_port<sc_core::sc_signal_in_if<T>, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
template <typename T>
using optional_out = sc_core::sc_port<sc_core::sc_signal_inout_if<T>, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

class TimeBase {
public:
    // Reads the simulation's time resolution: construct during elaboration.
    TimeBase();
    // Picoseconds, saturated at PMVP_TIME_NEVER (beyond any instant).
    pmvp_time to_ps(const sc_core::sc_time &t) const;
    // The instant `offset` after now, or PMVP_TIME_NEVER when it lies beyond
    // the representable time (an annotated delay near 2^64 ps): the callers
    // refuse such an access rather than let the instant wrap into the past.
    pmvp_time after(const sc_core::sc_time &offset) const;
    // The SystemC time of `ps` picoseconds, rounded up to a whole tick so
    // that an event never fires before the instant it stands for.
    sc_core::sc_time to_sc(pmvp_time ps) const;
    pmvp_time now() const { return to_ps(sc_core::sc_time_stamp()); }

private:
    uint64_t ps_per_tick_ = 1, ticks_per_ps_ = 1;
};

}  // namespace pmvp::sc
