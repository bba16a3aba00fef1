// SPDX-License-Identifier: Apache-2.0
//
// The x86 side of pmvp-soc: one x86 core of 1 or 2 hyper-threads with its
// clock counters (pmvp::sc::X86Monitors), a CPU model per logical processor
// running a timeline of run / hlt / mwait phases, P-state steps, and
// firmware that programs the clock counters and reads them at the end
// (Scenario::x86; format in docs/PMVP-SOC.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "checkpoint.h"
#include "scenario.h"

namespace pmvp::soc {

// What the firmware read from each logical processor at the end.
struct X86Counts {
    uint64_t inst_retired = 0, thread = 0, thread_p = 0, thread_any = 0, ref_tsc = 0, ref_xclk = 0,
             one_thread_active = 0, tsc = 0, aperf = 0, mperf = 0;
};

// Runs the scenario in SystemC (call from sc_main, once per process),
// restoring and saving checkpoints as `plan` says. Throws
// std::runtime_error if a kernel call fails, CheckpointError for a
// checkpoint it cannot take or use.
std::vector<X86Counts> run_x86(const Scenario &s, const CheckpointPlan &plan);

void print_x86_report(FILE *out, const Scenario &s, const std::vector<X86Counts> &counts);
nlohmann::json x86_report_json(const Scenario &s, const std::vector<X86Counts> &counts);

}  // namespace pmvp::soc
