// SPDX-License-Identifier: Apache-2.0
//
// What the modules of the bindings share: ports a platform may leave
// unbound, the conversion between SystemC time and kernel time (integer
// picoseconds) for any SystemC time resolution, and the policy for calls
// made ahead of simulated time (Timeline).
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include <systemc>

extern "C" {
#include "pmvp/clock.h"
#include "pmvp/error.h"
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

// The one policy of both modules for calls made ahead of simulated time (a
// CPU model running in a quantum, a bus access with a delay):
// - the kernel (`present`) never runs ahead of simulated time;
// - a change for a later instant is kept and applied to the kernel, in time
//   order, when simulated time reaches it (catch_up), so a decoupled
//   initiator's future does not reorder the present of the others;
// - a call for a later instant is evaluated on the future view (`view`):
//   the kernel with the kept changes up to that instant applied. The view
//   stays valid while it holds the kernel plus every kept change, so a CPU
//   model moving forward through its quantum costs one evaluation per call;
//   a call for an instant before one the view has reached, or after the
//   kernel itself changed (invalidate), rebuilds it.
// Core is pmvp_core or pmvp_x86_core; `copy` copies one into the other.
template <class Core> class Timeline {
public:
    using Op = std::function<int(Core *, pmvp_time)>;
    Timeline(Core &present, Core &view, void (*copy)(Core *, const Core *))
        : present_(present), view_(view), copy_(copy)
    {
    }

    // Applies, in time order, the changes kept for instants up to `now`;
    // `failed` hears of a kept change the kernel refused when it came.
    template <class Report> void catch_up(pmvp_time now, const Report &failed)
    {
        if (pending_.empty())
            return;
        auto end = pending_.upper_bound(now);
        for (auto it = pending_.begin(); it != end; ++it)
            if (int err = it->second(&present_, it->first))
                failed(err);
        pending_.erase(pending_.begin(), end);
    }

    // Runs `op` at instant t (now: the present). A change (`changes`) for
    // a later instant that the view accepts is kept; *kept says so.
    template <class F> int at(pmvp_time now, pmvp_time t, bool changes, const F &op, bool *kept)
    {
        *kept = false;
        if (t == now) {
            int err = op(&present_, now);
            if (changes)
                valid_ = false;
            return err;
        }
        if (!valid_ || t < view_.last_call) {
            copy_(&view_, &present_);
            auto it = pending_.begin();
            for (; it != pending_.end() && it->first <= t; ++it)
                it->second(&view_, it->first);
            valid_ = it == pending_.end();
        }
        int err = op(&view_, t);
        if (changes && err == PMVP_OK) {
            pending_.emplace(t, Op(op));
            *kept = true;
        }
        return err;
    }

    bool pending() const { return !pending_.empty(); }
    pmvp_time next_pending() const { return pending_.empty() ? PMVP_TIME_NEVER : pending_.begin()->first; }
    // The kernel changed other than through at(): the view must be rebuilt.
    void invalidate() { valid_ = false; }
    // Forgets the kept changes (a reset or a restore replaces the kernel).
    void clear()
    {
        pending_.clear();
        valid_ = false;
    }

private:
    Core &present_, &view_;
    void (*copy_)(Core *, const Core *);
    std::multimap<pmvp_time, Op> pending_;
    bool valid_ = false;
};

}  // namespace pmvp::sc
