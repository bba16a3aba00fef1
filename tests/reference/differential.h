// SPDX-License-Identifier: Apache-2.0
//
// Randomised differential testing: one seeded scenario drives the lazy
// kernel and the per-cycle reference model with the same configuration,
// state changes, event reports and register writes, and compares every
// counter value, overflow flag, interrupt level and predicted overflow
// instant at every check point.
#pragma once

#include <cstdint>
#include <string>

namespace pmvp::ref {

struct ScenarioResult {
    bool ok = true;
    std::string failure;  // first divergence, with the seed to replay it
    uint64_t checks = 0;  // values compared
    uint64_t frozen = 0;  // check points at which an overflow froze counters (D13.5.2.1)
};

ScenarioResult run_scenario(uint64_t seed);

}  // namespace pmvp::ref
