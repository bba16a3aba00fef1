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

struct Input {
    enum Kind { CLOCK, STATE, CONTEXT, ACTIVE, CONTROLS, SHARES, LEVEL, PMU_WRITE, PMU_READ, AMU_WRITE, AMU_READ,
                PMCCR_WRITE };
    pmvp_time t = 0;
    Kind kind = CLOCK;
    unsigned pe = 0;
    unsigned reg = 0, n = 0;     // PMU_*: enum pmvp_pmu_reg; AMU_*: enum pmvp_amu_reg
    uint16_t event = 0;          // LEVEL
    uint64_t value = 0;          // CLOCK: Hz; STATE: enum pmvp_pe_state;
                                 // LEVEL: level; PMU_*, AMU_*: the value written or read;
                                 // PMCCR_WRITE: the value the external agent wrote
    pmvp_context ctx{};
    pmvp_pmu_controls ctl{};
    // SHARES: what the threads generated over the processor cycles of
    // (since, t], each share spread evenly over them
    // (pmvp_core_report_shares).
    pmvp_time since = 0;
    struct Shares {
        unsigned count = 0;
        pmvp_share of[PMVP_MAX_PES];  // the first `count` are set
        // Made and copied by the shares held: every input carries room for
        // them, and most carry none.
        Shares() = default;
        Shares(const Shares &o) : count(o.count) { std::copy_n(o.of, o.count, of); }
        Shares &operator=(const Shares &o)
        {
            count = o.count;
            std::copy_n(o.of, o.count, of);
            return *this;
        }
    } shares;
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
    uint64_t compared = 0;                  // values read and compared
    std::vector<std::string> disagreements; // the first few, readable
    uint64_t num_disagreements = 0;
};

// Replays `journal` in instant order (inputs of one instant in the order
// they were given) into a reference model of a core configured as `cfg`.
CheckResult check_against_reference(const pmvp_core_config &cfg, const Journal &journal);

}  // namespace pmvp::soc
