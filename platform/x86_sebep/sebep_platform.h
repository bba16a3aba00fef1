// SPDX-License-Identifier: Apache-2.0
//
// The synchronous-sampling side of pmvp-soc (Scenario::sebep; format in
// docs/PMVP-SOC.md): per profile of the permitted inaccuracy, one PE with
// FEAT_SEBEP whose CPU model retires instructions one by one and takes the
// PMU exception when an instruction sets PSTATE.PPEND; the handler records
// the sample and re-arms the counter. What a profiler sees: how far each
// sample lies from the instruction that overflowed the counter.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "checkpoint.h"
#include "scenario.h"

namespace pmvp::soc {

// The samples of one profile.
struct SebepSamples {
    // Per sample: instructions from the one that overflowed the counter to
    // the one that set PPEND (0: no shadow), as the CPU model counted them,
    // and the overshoot the handler read in the counter.
    std::vector<uint64_t> shift, overshoot;
    std::vector<uint64_t> pmiar;  // PMIAR_EL1 as the handler read it
};

// Runs the scenario in SystemC (call from sc_main, once per process),
// restoring and saving checkpoints as `plan` says. Throws
// std::runtime_error if a kernel call fails, CheckpointError for a
// checkpoint it cannot take or use.
std::vector<SebepSamples> run_sebep(const Scenario &s, const CheckpointPlan &plan);

void print_sebep_report(FILE *out, const Scenario &s, const std::vector<SebepSamples> &samples);
nlohmann::json sebep_report_json(const Scenario &s, const std::vector<SebepSamples> &samples);

}  // namespace pmvp::soc
