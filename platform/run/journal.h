// SPDX-License-Identifier: Apache-2.0
//
// Everything the platform gives one core's monitors (clock changes, PE
// states, contexts, controls, event reports and levels, register writes) and
// every register value the firmware read, with its instant. pmvp-soc --check
// replays a journal into the per-cycle reference model and compares each
// value read with the value the reference model has at that instant.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "pmvp/amu.h"
#include "pmvp/core.h"
#include "pmvp/pmu.h"
}

namespace pmvp::soc {

// Up to N of T, made and copied by those held: every input carries room
// for its shares and level changes, and most carry none or few.
template <class T, unsigned N> struct Held {
    unsigned count = 0;
    T of[N];  // the first `count` are set
    Held() = default;
    Held(const Held &o) : count(o.count) { std::copy_n(o.of, o.count, of); }
    Held &operator=(const Held &o)
    {
        count = o.count;
        std::copy_n(o.of, o.count, of);
        return *this;
    }
};

struct Input {
    enum Kind { CLOCK, STATE, CONTEXT, ACTIVE, CONTROLS, STEP, PMU_WRITE, PMU_READ, AMU_WRITE, AMU_READ, PMCCR_WRITE };
    pmvp_time t = 0;
    Kind kind = CLOCK;
    unsigned pe = 0;
    unsigned reg = 0, n = 0;  // PMU_*: enum pmvp_pmu_reg; AMU_*: enum pmvp_amu_reg
    uint64_t value = 0;       // CLOCK: Hz; STATE: enum pmvp_pe_state;
                              // PMU_*, AMU_*: the value written or read;
                              // PMCCR_WRITE: the value the external agent wrote
    pmvp_context ctx{};
    pmvp_pmu_controls ctl{};
    // STEP: what the threads generated over the processor cycles of
    // (since, t], each share spread evenly over them
    // (pmvp_core_report_shares), then the stall levels that change at t
    // (pmvp_core_set_level each, two a thread at most): one input to the
    // monitors (Monitors::report_shares, set_levels).
    pmvp_time since = 0;
    Held<pmvp_share, PMVP_MAX_PES> shares;
    Held<pmvp_level_change, 2 * PMVP_MAX_PES> levels;
};

class Journal {
public:
    bool enabled = false;
    void add(const Input &in)
    {
        if (enabled)
            inputs_.push_back(in);
    }
    const std::vector<Input> &inputs() const { return inputs_; }

private:
    std::vector<Input> inputs_;
};

struct CheckResult {
    uint64_t compared = 0;                   // values read and compared
    std::vector<std::string> disagreements;  // the first few, readable
    uint64_t num_disagreements = 0;
};

// Replays `journal` in instant order (inputs of one instant in the order
// they were given) into a reference model of a core configured as `cfg`.
CheckResult check_against_reference(const pmvp_core_config &cfg, const Journal &journal);

}  // namespace pmvp::soc
