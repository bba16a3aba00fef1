// SPDX-License-Identifier: Apache-2.0
//
// What the monitors saw, as pmvp-soc reports it: a readable report in the
// spirit of `perf stat`, and JSON (schema in docs/PMVP-SOC.md).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "journal.h"
#include "soc.h"

namespace pmvp::soc {

struct RunInfo {
    double host_seconds = 0;
    bool checked = false;
    std::vector<CheckResult> checks;   // by core, when checked
    bool interrupted = false;          // by SIGINT, at the scenario's (shortened) duration
};

enum class Detail { AUTO, PE, CORE, SOC };

// A frequency in GHz, MHz, kHz or Hz ("2 GHz", "100 MHz").
std::string hz_text(double hz);

void print_report(std::FILE *out, const Soc &soc, const RunInfo &run, Detail detail);
// The --check verdict alone (print_report includes it), for --quiet runs.
void print_check(std::FILE *out, const RunInfo &run);
// The start every JSON report shares, Arm, x86 and SEBEP: the schema, the
// pmvp version, the scenario (name, description, kind, duration), the
// host seconds the run took.
nlohmann::ordered_json report_header(const Scenario &s, double host_seconds);
nlohmann::ordered_json report_json(const Soc &soc, const RunInfo &run);
// A cluster's core as it runs: its effective configuration (every key of a
// core description, docs/CORE.md) and the identification registers it implies.
nlohmann::ordered_json core_json(const Cluster &c);

}  // namespace pmvp::soc
