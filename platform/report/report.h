// SPDX-License-Identifier: Apache-2.0
//
// What the monitors saw, as pmvp-soc reports it: a readable report in the
// spirit of `perf stat`, and JSON (schema in docs/PMVP-SOC.md).
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "journal.h"
#include "soc.h"

namespace pmvp::soc {

struct RunInfo {
    double host_seconds = 0;
    bool checked = false;
    std::vector<CheckResult> checks;  // by core, when checked
    bool interrupted = false;         // by SIGINT, at the scenario's (shortened) duration
};

enum class Detail { AUTO, PE, CORE, SOC };

// An event's catalogue name, or its number ("0x4001") when it has none.
std::string event_name(uint16_t number);
// A frequency in GHz, MHz, kHz or Hz ("2 GHz", "100 MHz").
std::string hz_text(double hz);

// The report at `detail`: readable, or CSV with the separator `csv` when
// it is not empty (pmvp-soc -x).
void print_report(std::FILE *out, const Soc &soc, const RunInfo &run, Detail detail, const std::string &csv = "");
// The --check verdict alone (print_report includes it), for --quiet runs;
// each line after `prefix`.
void print_check(std::FILE *out, const RunInfo &run, const char *prefix = "");
// The start every JSON report shares, Arm, x86 and SEBEP: the schema, the
// pmvp version, the scenario (name, description, kind, duration), the
// host seconds the run took.
nlohmann::ordered_json report_header(const Scenario &s, double host_seconds);
nlohmann::ordered_json report_json(const Soc &soc, const RunInfo &run);
// A cluster's core as it runs: its effective configuration (every key of a
// core description, docs/CORE.md) and the identification registers it implies.
nlohmann::ordered_json core_json(const Cluster &c);

// pmvp-soc --interval: what the monitors counted in every interval, printed
// as each ends (readable, like perf stat -I, or CSV) and kept for the JSON
// and the plot. The counts are read through the debug path (nothing on the
// bus, nothing changed), so a run counts the same with and without it; the
// last interval ends at the run's end and comes from the firmware's final
// read, so the intervals add up to the report.
class IntervalReport {
public:
    // `out` null: nothing printed; `csv` not empty: CSV with that separator;
    // `keep`: keep every interval, for json() and plot().
    IntervalReport(const Soc &soc, Detail detail, pmvp_time interval, std::FILE *out, std::string csv, bool keep);
    ~IntervalReport();
    // Soc::sample_every's call: the counts at `t`. A restored run's first
    // call, at its start, is where its first interval starts.
    void sample(pmvp_time t);
    // The last interval, to the end of the run (the scenario's duration,
    // shortened when the run was interrupted).
    void finish();
    // {"interval_ps": ..., "intervals": [{"start_ps", "end_ps", "scopes": [...]}]}
    nlohmann::ordered_json json() const;
    // A picture of the intervals (counter rates, IPC, PMUIRQ per interval
    // over simulated time) in `path`, .png, .svg or .pdf, drawn by gnuplot.
    // Returns why it could not, or "" (no exception: it runs after the
    // simulation, where an exception unwinding past SystemC's coroutine
    // stacks confuses the address sanitizer).
    std::string plot(const std::string &path) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace pmvp::soc
