// SPDX-License-Identifier: Apache-2.0
//
// What the files of Monitors share (monitors.cpp: construction, signals
// and checkpoints; kept_inputs.cpp: the inputs made now or kept for later;
// cpu_interface.cpp: the CPU model's calls; frames.cpp: the TLM sockets;
// tracing.cpp: sc_trace): the inputs, the Timeline, the traced values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "arm_inputs.h"
#include "pmvp/systemc/monitors.h"
#include "timeline.h"

extern "C" {
#include "pmvp/checkpoint.h"
#include "pmvp/error.h"
}

namespace pmvp::sc {

// Values sampled for sc_trace, one entry per PE.
struct Monitors::Traced {
    explicit Traced(unsigned pes, unsigned counters)
        : pmccntr(pes), irq_rises(pes), evcntr(pes, std::vector<uint64_t>(counters)),
          amu(pes, std::vector<uint64_t>(4)), irq(new bool[pes]()), wfx(new bool[pes]()), powered(new bool[pes]()),
          counter_events(counters)
    {}
    // PMUIRQ's rising edges, which a VCD shows even when a handler lowers
    // the line at the instant it rose (a pulse of no width, invisible as a
    // level).
    std::vector<uint64_t> pmccntr, irq_rises;
    std::vector<std::vector<uint64_t>> evcntr, amu;
    std::unique_ptr<bool[]> irq, wfx, powered;  // sc_trace needs addressable bools
    uint64_t processor_hz = 0;
    std::vector<std::string> counter_events;      // name_traced_counters
    std::vector<Monitors::TracedSignal> signals;  // as traced
    bool on = false;                              // a trace file follows them

    template <class T> void add(sc_core::sc_trace_file *tf, const T &value, const std::string &name)
    {
        sc_core::sc_trace(tf, value, name);
        static_assert(std::is_same_v<T, bool> || std::is_same_v<T, uint64_t>);
        signals.push_back({ name, std::is_same_v<T, bool> ? 1u : 64u, &value });
    }
};

// Whether a guest's direct read of a counter changes the kernel: inaccuracy
// knob (c) draws its delay. Without it, every read is the kernel's pure
// query (Timeline::look); with it, a read is made on the kernel or the
// future view (query).
inline bool Monitors::direct_reads_draw() const
{
    return core_->cfg.inaccuracy.read_delay_cycles != 0;
}

// Runs `op`, which changes nothing, at sc_time_stamp() + offset, by the
// policy of Timeline (timeline.h).
template <class F> int Monitors::query(const sc_core::sc_time &offset, const F &op)
{
    return timeline_->query(offset, op);
}

inline uint64_t saturating_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace pmvp::sc
