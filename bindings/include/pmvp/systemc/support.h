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
    pmvp_time to_ps(const sc_core::sc_time &t) const;
    // The SystemC time of `ps` picoseconds, rounded up to a whole tick so
    // that an event never fires before the instant it stands for.
    sc_core::sc_time to_sc(pmvp_time ps) const;
    pmvp_time now() const { return to_ps(sc_core::sc_time_stamp()); }

private:
    uint64_t ps_per_tick_ = 1, ticks_per_ps_ = 1;
};

}  // namespace pmvp::sc
