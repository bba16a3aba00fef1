// SPDX-License-Identifier: Apache-2.0
//
// What the reports' files share (report.cpp, report_intervals.cpp; private
// to them): the counts of a scope over a span, the metrics derived from
// them, and the rows the readable report and the CSV print.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report.h"
#include "soc.h"

namespace pmvp::soc::reporting {

// What one PE, or a sum over PEs, counted over a span of time (a sampling
// counter's periods included).
struct Tally {
    unsigned pes = 0;
    bool amu = false;
    pmvp_time span = 0;  // the time the counts cover, for the utilisation
    uint64_t pmccntr = 0, interrupts = 0, cycle_samples = 0;
    std::vector<uint64_t> evcntr, samples;
    uint64_t am[PMVP_AMU_ARCH_COUNTERS] = {};
    // The AMU's auxiliary counters, summed only over PEs whose cores count
    // the same events in them (aux_mixed otherwise: not shown).
    std::vector<uint64_t> aux;
    std::vector<uint16_t> aux_events;
    bool aux_mixed = false;
    unsigned off_at_end = 0;

    Tally(pmvp_time span) : span(span) {}
    void add(const Soc &soc, unsigned g, const Firmware::PeCounts &r, uint64_t irqs)
    {
        size_t n = r.counted.size() - 1;
        evcntr.resize(n);
        samples.resize(n);
        pes++;
        amu = soc.cores[soc.pes[g].core]->cluster.config.feat_amuv1 || amu;
        pmccntr += r.counted.back();
        interrupts += irqs;
        cycle_samples += r.samples.back();
        for (size_t i = 0; i < n; i++) {
            evcntr[i] += r.counted[i];
            samples[i] += r.samples[i];
        }
        for (unsigned k = 0; k < PMVP_AMU_ARCH_COUNTERS; k++)
            am[k] += r.amu[k];
        const pmvp_core_config &cfg = soc.cores[soc.pes[g].core]->cluster.config;
        std::vector<uint16_t> events(cfg.amu_aux_event, cfg.amu_aux_event + r.aux.size());
        if (pes == 1) {
            aux_events = events;
            aux.assign(events.size(), 0);
        }
        aux_mixed = aux_mixed || events != aux_events;
        for (size_t k = 0; k < aux.size() && !aux_mixed; k++)
            aux[k] += r.aux[k];
    }
    // PE g as the firmware read it at the end of the run.
    void add_final(const Soc &soc, unsigned g)
    {
        add(soc, g, soc.firmware->readout[g], soc.interrupts->raised[g]);
        off_at_end += soc.firmware->readout[g].off_at_end;
    }
};

// A set of PEs the report sums: one PE, a core or the SoC.
struct Scope {
    std::string name;   // short: "PE 3", "core 1", "SoC"
    std::string title;  // the readable report's heading
    std::vector<unsigned> pes;
};

// The row of the report a metric is shown on, as perf stat shows "insn per
// cycle" on its instructions line: an event counter the firmware programmed
// (its index in firmware.counters), an AMU architected counter, or none.
struct Row {
    enum { NONE, COUNTER, AMU } kind = NONE;
    size_t index = 0;
};

struct Metric {
    const char *name;  // its JSON key
    double value;
    Row row;            // where the readable report shows it
    const char *label;  // what it is, after its value there
};

// One row of a block: a value, the register it was read from, what it
// counts, and the metrics derived from it (shown after it, as perf stat
// shows "insn per cycle" on its instructions row).
struct Line {
    uint64_t value;
    std::string reg, what;
    std::vector<Metric> metrics;
};

// A number with thousands separators (1,234,567), and as it is.
std::string grouped(uint64_t v);
std::string plain(uint64_t v);
// The scopes a report at `detail` shows, in its order: the analytic
// clusters' PEs (the ISS clusters' have a report of their own).
std::vector<Scope> scopes(const Soc &soc, Detail detail);
// Derived metrics, in the order they are shown; only those the counts allow.
std::vector<Metric> metrics(const Soc &soc, const Tally &t);
// The rows of a scope's block, each number written by `number`.
std::vector<Line> lines(const Soc &soc, const Tally &t, std::string (*number)(uint64_t));
void print_line(std::FILE *out, const char *prefix, const Line &l);
// CSV: the header row (with a time column when `timed`), and one row.
void print_csv_header(std::FILE *out, const std::string &sep, bool timed);
void print_csv_line(std::FILE *out, const std::string &sep, const std::string &time, const std::string &scope,
                    const Line &l);
// A tally's counts as JSON.
nlohmann::ordered_json counts_json(const Soc &soc, const Tally &t);

}  // namespace pmvp::soc::reporting
