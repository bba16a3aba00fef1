// SPDX-License-Identifier: Apache-2.0
#include "report.h"
#include "report_tally.h"

extern "C" {
#include "pmvp/version.h"
}

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <csignal>
#include <cstring>
#include <stdexcept>

extern "C" {
#include "pmvp/events.h"
#include "pmvp/fields.h"
}

namespace pmvp::soc {

namespace reporting {

const char *const kAmuNames[PMVP_AMU_ARCH_COUNTERS] = { "CPU_CYCLES", "CNT_CYCLES", "INST_RETIRED",
                                                        "STALL_BACKEND_MEM" };
enum { AMU_CPU_CYCLES, AMU_CNT_CYCLES, AMU_INST_RETIRED, AMU_STALL_BACKEND_MEM };


std::string grouped(uint64_t v)
{
    std::string s = std::to_string(v);
    for (int i = (int)s.size() - 3; i > 0; i -= 3)
        s.insert((size_t)i, ",");
    return s;
}

// "1 sample", "2 samples": a count with its noun, grouped.
std::string counted_noun(uint64_t n, const std::string &noun)
{
    return grouped(n) + " " + noun + (n == 1 ? "" : "s");
}

// The scopes a report at `detail` shows, in its order: the analytic
// clusters' PEs (the ISS clusters' have a report of their own).
std::vector<Scope> scopes(const Soc &soc, Detail detail)
{
    const Scenario &s = soc.scenario;
    if (detail == Detail::AUTO)
        detail = s.num_pes() <= 8 ? Detail::PE : s.num_cores() <= 16 ? Detail::CORE : Detail::SOC;
    unsigned analytic_pes = 0, analytic_cores = 0;
    for (const PeId &p : soc.pes)
        analytic_pes += !p.iss;
    for (const auto &core : soc.cores)
        analytic_cores += !core->cluster.iss();
    std::vector<Scope> v;
    if (detail == Detail::PE)
        for (const PeId &p : soc.pes)
            if (!p.iss)
                v.push_back({ "PE " + std::to_string(p.global),
                              "PE " + std::to_string(p.global) + " (cluster " + s.clusters[p.cluster].name + ", core " +
                                  std::to_string(p.core) + ", thread " + std::to_string(p.thread) + ")",
                              { p.global } });
    if (detail != Detail::SOC && !(detail == Detail::PE && analytic_pes == analytic_cores))
        for (const auto &core : soc.cores) {
            if (core->cluster.iss())
                continue;
            Scope c{ "core " + std::to_string(core->index), "", {} };
            for (unsigned k = 0; k < core->cluster.config.num_pes; k++)
                c.pes.push_back(core->first_pe + k);
            c.title = "core " + std::to_string(core->index) + " (cluster " + core->cluster.name + "), sum over its " +
                      counted_noun(c.pes.size(), "PE");
            v.push_back(c);
        }
    if (analytic_cores > 1 || detail == Detail::SOC) {
        Scope all{ "SoC", "", {} };
        for (const PeId &p : soc.pes)
            if (!p.iss)
                all.pes.push_back(p.global);
        all.title = s.has_iss() ? "SoC, sum over its " + counted_noun(analytic_pes, "PE") + " of analytic cores"
                                : "SoC, sum over " + counted_noun(s.num_pes(), "PE");
        v.push_back(all);
    }
    return v;
}

// The counter the firmware programmed to count `event` with no filter and
// MT == 0, or none.
Row plain_counter(const Soc &soc, uint16_t event)
{
    const auto &c = soc.scenario.firmware.counters;
    for (size_t i = 0; i < c.size(); i++)
        if (c[i].evtyper == event)
            return { Row::COUNTER, i };
    return {};
}

double value_of(const Tally &t, Row r)
{
    return r.kind == Row::COUNTER ? (double)t.evcntr[r.index] : r.kind == Row::AMU ? (double)t.am[r.index] : -1;
}

// Derived metrics, in the order they are shown; only those the counts allow.
// IPC, CPI and the stall shares are per thread, as perf stat gives them: a
// thread's own instructions over its own cycles (unfiltered MT=0 counters,
// which count only while the thread is the active one on FGMT and SoEMT
// cores); the AMU's, which count every cycle of the core, stand in when the
// firmware did not program those.
std::vector<Metric> metrics(const Soc &soc, const Tally &t)
{
    std::vector<Metric> m;
    auto own_or_amu = [&](uint16_t event, unsigned amu) {
        Row own = plain_counter(soc, event);
        return own.kind != Row::NONE ? own : t.amu ? Row{ Row::AMU, amu } : Row{};
    };
    Row cycles = own_or_amu(PMVP_EV_CPU_CYCLES, AMU_CPU_CYCLES);
    Row inst = own_or_amu(PMVP_EV_INST_RETIRED, AMU_INST_RETIRED);
    Row stall = plain_counter(soc, PMVP_EV_STALL_BACKEND);
    Row mem = own_or_amu(PMVP_EV_STALL_BACKEND_MEM, AMU_STALL_BACKEND_MEM);
    double c = value_of(t, cycles), i = value_of(t, inst), sb = value_of(t, stall), sm = value_of(t, mem);
    if (c > 0 && i >= 0)
        m.push_back({ "ipc", i / c, inst, "insn per cycle" });
    if (c >= 0 && i > 0)
        m.push_back({ "cpi", c / i, cycles, "cycles per insn" });
    if (c > 0 && sb >= 0)
        m.push_back({ "stall_backend_share", sb / c, stall, "of cycles stalled in the backend" });
    if (c > 0 && sm >= 0)
        m.push_back({ "stall_backend_mem_share", sm / c, mem, "of cycles stalled on memory" });
    if (t.amu) {
        const Scenario &s = soc.scenario;
        double ticks = (double)t.span * (double)s.system_counter_hz / 1e12 * t.pes;
        if (ticks > 0)
            m.push_back({ "utilisation",
                          (double)t.am[AMU_CNT_CYCLES] / ticks,
                          { Row::AMU, AMU_CNT_CYCLES },
                          "utilisation (running time)" });
        if (t.am[AMU_CNT_CYCLES])
            m.push_back({ "effective_frequency_hz",
                          (double)t.am[AMU_CPU_CYCLES] / (double)t.am[AMU_CNT_CYCLES] * (double)s.system_counter_hz,
                          { Row::AMU, AMU_CPU_CYCLES },
                          "effective frequency (while running)" });
    }
    return m;
}

// A metric in the unit it is shown in: a share of cycles or of time in
// per cent, a frequency in Hz, a ratio as it is.
struct Shown {
    double value;
    const char *unit;  // "%", "Hz" or ""
};

Shown shown(const Metric &m)
{
    std::string name = m.name;
    if (name.find("share") != std::string::npos || name == "utilisation")
        return { 100 * m.value, "%" };
    return { m.value, name == "effective_frequency_hz" ? "Hz" : "" };
}

// A metric's value with its unit, as the readable report shows it.
std::string metric_value_text(const Metric &m)
{
    Shown v = shown(m);
    if (std::string(v.unit) == "Hz")
        return hz_text(v.value);
    char buf[48];
    std::snprintf(buf, sizeof buf, *v.unit ? "%.2f %s" : "%.2f%s", v.value, v.unit);
    return buf;
}

// The rows of one scope's block; `number` writes the numbers in the text
// (grouped for the readable report, plain in CSV).
std::vector<Line> lines(const Soc &soc, const Tally &t, std::string (*number)(uint64_t))
{
    const FirmwareSetup &fw = soc.scenario.firmware;
    const std::vector<Metric> shown = metrics(soc, t);
    std::vector<Line> v;
    auto row = [&](uint64_t value, const std::string &reg, const std::string &what, Row r = {}) {
        Line l{ value, reg, what, {} };
        if (r.kind != Row::NONE)
            for (const Metric &m : shown)
                if (m.row.kind == r.kind && m.row.index == r.index)
                    l.metrics.push_back(m);
        v.push_back(l);
    };
    if (fw.cycle_counter)
        row(t.pmccntr, "PMCCNTR_EL0",
            fw.cycle_sample_period ? "cycle counter, sampled every " + number(fw.cycle_sample_period)
                                   : "cycle counter");
    for (size_t i = 0; i < fw.counters.size(); i++) {
        const CounterSetup &c = fw.counters[i];
        std::string what = event_name(c.event);
        if (c.evtyper & PMVP_PMEVTYPER_EL0_MT)
            what += " (MT)";
        uint64_t thresholds =
            PMVP_PMEVTYPER_EL0_TC | PMVP_PMEVTYPER_EL0_TE | PMVP_PMEVTYPER_EL0_TLC | PMVP_PMEVTYPER_EL0_TH;
        if (c.evtyper & ~(uint64_t)(PMVP_PMEVTYPER_EL0_evtCount | PMVP_PMEVTYPER_EL0_MT | thresholds))
            what += " (filtered)";
        if (c.threshold) /* D13.8 */
            what += " (TC " + std::to_string(PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_TC, c.evtyper)) + ", TH " +
                    std::to_string(PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_TH, c.evtyper)) +
                    (c.evtyper & PMVP_PMEVTYPER_EL0_TE ? ", TE" : "") +
                    (c.evtyper & PMVP_PMEVTYPER_EL0_TLC
                         ? ", TLC " + std::to_string(PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_TLC, c.evtyper))
                         : std::string()) +
                    ")";
        if (c.sample_period)
            what += ", sampled every " + number(c.sample_period);
        if (c.external)
            what += ", the external agent's (third range)";
        row(t.evcntr[i], "PMEVCNTR" + std::to_string(c.counter) + "_EL0", what, { Row::COUNTER, i });
    }
    if (t.amu)
        for (unsigned k = 0; k < PMVP_AMU_ARCH_COUNTERS; k++)
            row(t.am[k], "AMEVCNTR0" + std::to_string(k) + "_EL0", std::string(kAmuNames[k]) + " (AMU)",
                { Row::AMU, k });
    for (size_t k = 0; k < t.aux.size() && !t.aux_mixed; k++)
        row(t.aux[k], "AMEVCNTR1" + std::to_string(k) + "_EL0", event_name(t.aux_events[k]) + " (AMU auxiliary)");
    uint64_t samples = t.cycle_samples;
    for (uint64_t n : t.samples)
        samples += n;
    row(t.interrupts, "PMUIRQ",
        std::string(t.interrupts == 1 ? "interrupt, " : "interrupts, ") + number(samples) +
            (samples == 1 ? " sample" : " samples") + " taken");
    return v;
}

std::string plain(uint64_t v)
{
    return std::to_string(v);
}

// A row of the readable report: "# 2.00 insn per cycle" after its event.
void print_line(std::FILE *out, const char *prefix, const Line &l)
{
    std::string metric;
    for (const Metric &m : l.metrics)
        metric += (metric.empty() ? "" : ", ") + metric_value_text(m) + " " + m.label;
    if (metric.empty())
        std::fprintf(out, "%s  %20s  %-18s %s\n", prefix, grouped(l.value).c_str(), l.reg.c_str(), l.what.c_str());
    else
        std::fprintf(out, "%s  %20s  %-18s %-44s # %s\n", prefix, grouped(l.value).c_str(), l.reg.c_str(),
                     l.what.c_str(), metric.c_str());
}

// A CSV field: quoted when it holds the separator, a quote or a line end.
std::string csv_field(const std::string &v, const std::string &sep)
{
    if (v.find(sep) == std::string::npos && v.find_first_of("\"\n") == std::string::npos)
        return v;
    std::string q = "\"";
    for (char c : v)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

const char *const kCsvColumns[] = { "scope", "value", "register", "event", "metric_value", "metric_unit" };

// The CSV header: the columns, after `time` in interval output.
void print_csv_header(std::FILE *out, const std::string &sep, bool timed)
{
    std::string h = timed ? "time_s" : "";
    for (const char *c : kCsvColumns)
        h += (h.empty() ? "" : sep) + c;
    std::fprintf(out, "%s\n", h.c_str());
}

// The CSV rows of a line: one per metric (the first with the value), or one.
void print_csv_line(std::FILE *out, const std::string &sep, const std::string &time, const std::string &scope,
                    const Line &l)
{
    auto emit = [&](const std::string &value, const std::string &reg, const std::string &what, const Metric *m) {
        char mv[32] = "";
        std::string unit;
        if (m) {
            Shown v = shown(*m);
            std::snprintf(mv, sizeof mv, "%.10g", v.value);
            unit = std::string(v.unit) + (*v.unit ? " " : "") + m->label;
        }
        std::string f[] = { scope, value, reg, what, mv, unit };
        std::string row = time.empty() ? "" : time + sep;
        for (size_t i = 0; i < 6; i++)
            row += (i ? sep : "") + csv_field(f[i], sep);
        std::fprintf(out, "%s\n", row.c_str());
    };
    if (l.metrics.empty())
        emit(std::to_string(l.value), l.reg, l.what, nullptr);
    for (size_t i = 0; i < l.metrics.size(); i++)
        i == 0 ? emit(std::to_string(l.value), l.reg, l.what, &l.metrics[0]) : emit("", "", "", &l.metrics[i]);
}

// A scope's tally over the whole run, from the firmware's final read.
Tally final_tally(const Soc &soc, const Scope &sc)
{
    Tally t(soc.scenario.duration);
    for (unsigned g : sc.pes)
        t.add_final(soc, g);
    return t;
}

// A tally as JSON: the counters the firmware programmed, the AMU's, the
// interrupts and the metrics.
nlohmann::ordered_json counts_json(const Soc &soc, const Tally &t)
{
    using json = nlohmann::ordered_json;
    const FirmwareSetup &fw = soc.scenario.firmware;
    json o;
    json pmu;
    if (fw.cycle_counter)
        pmu["PMCCNTR_EL0"] = t.pmccntr;
    pmu["counters"] = json::array();
    for (size_t i = 0; i < fw.counters.size(); i++)
        pmu["counters"].push_back({ { "counter", fw.counters[i].counter },
                                    { "event", event_name(fw.counters[i].event) },
                                    { "number", fw.counters[i].event },
                                    { "PMEVTYPER", fw.counters[i].evtyper },
                                    { "external", fw.counters[i].external },
                                    { "counted", t.evcntr[i] },
                                    { "samples", t.samples[i] } });
    if (fw.cycle_counter)
        pmu["cycle_counter_samples"] = t.cycle_samples;
    o["pmu"] = pmu;
    if (t.amu) {
        json amu;
        for (unsigned k = 0; k < PMVP_AMU_ARCH_COUNTERS; k++)
            amu[kAmuNames[k]] = t.am[k];
        o["amu"] = amu;
    }
    if (!t.aux.empty() && !t.aux_mixed)
        for (size_t k = 0; k < t.aux.size(); k++)
            o["amu_aux"].push_back(
                { { "counter", k }, { "event", event_name(t.aux_events[k]) }, { "counted", t.aux[k] } });
    o["interrupts"] = t.interrupts;
    json m = json::object();
    for (const Metric &metric : metrics(soc, t))
        m[metric.name] = metric.value;
    o["metrics"] = m;
    return o;
}

}  // namespace reporting

using namespace reporting;

std::string event_name(uint16_t number)
{
    const pmvp_event_info *e = pmvp_event_find(number);
    if (e)
        return e->name;
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%04X", number);
    return buf;
}

std::string hz_text(double hz)
{
    char buf[32];
    if (hz >= 1e9)
        std::snprintf(buf, sizeof buf, "%.4g GHz", hz / 1e9);
    else if (hz >= 1e6)
        std::snprintf(buf, sizeof buf, "%.4g MHz", hz / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.4g Hz", hz);
    return buf;
}

void print_report(std::FILE *out, const Soc &soc, const RunInfo &run, Detail detail, const std::string &csv)
{
    const Scenario &s = soc.scenario;
    if (!csv.empty()) {
        print_csv_header(out, csv, false);
        for (const Scope &sc : scopes(soc, detail))
            for (const Line &l : lines(soc, final_tally(soc, sc), plain))
                print_csv_line(out, csv, "", sc.name, l);
        if (run.checked)
            print_check(out, run, "#");
        return;
    }
    unsigned pes = s.num_pes(), cores = s.num_cores();
    std::fprintf(out, "pmvp-soc: %s: %zu cluster%s, %u core%s, %u PE%s, %s simulated in %.2f s%s\n", s.name.c_str(),
                 s.clusters.size(), s.clusters.size() > 1 ? "s" : "", cores, cores > 1 ? "s" : "", pes,
                 pes > 1 ? "s" : "", time_text(s.duration).c_str(), run.host_seconds,
                 run.interrupted ? " (interrupted)" : "");
    if (!s.description.empty())
        std::fprintf(out, "  %s\n", s.description.c_str());
    for (const Cluster &c : s.clusters)
        std::fprintf(out, "  cluster %s: %u x %s core%s at %s%s\n", c.name.c_str(), c.cores,
                     c.config.num_pes > 1
                         ? (std::to_string(c.config.num_pes) + "-thread " + mt_policy_name(c.config.mt_policy)).c_str()
                         : "single-thread",
                     c.cores > 1 ? "s" : "", hz_text((double)c.config.processor_hz).c_str(),
                     (std::string(c.dvfs.empty() ? "" : " (DVFS)") + (c.iss() ? ", on the AArch64 ISS" : "")).c_str());
    for (const Scope &sc : scopes(soc, detail)) {
        Tally t = final_tally(soc, sc);
        std::fprintf(out, "\n %s:\n\n", sc.title.c_str());
        for (const Line &l : lines(soc, t, grouped))
            print_line(out, "", l);
        if (t.off_at_end)
            std::fprintf(out, "  (%u PE%s off at the end: read through the debug path)\n", t.off_at_end,
                         t.off_at_end > 1 ? "s" : "");
    }
    if (run.checked) {
        std::fprintf(out, "\n");
        print_check(out, run);
    }
    std::fprintf(out, "\n");
}

void print_check(std::FILE *out, const RunInfo &run, const char *prefix)
{
    uint64_t compared = 0, bad = 0;
    for (const CheckResult &c : run.checks) {
        compared += c.compared;
        bad += c.num_disagreements;
    }
    std::fprintf(out, "%s check: %s values read compared with the per-cycle reference model: %s\n", prefix,
                 grouped(compared).c_str(), bad ? (grouped(bad) + " DISAGREE").c_str() : "all agree");
    for (size_t k = 0; k < run.checks.size(); k++)
        for (const std::string &d : run.checks[k].disagreements)
            std::fprintf(out, "%s   core %zu: %s\n", prefix, k, d.c_str());
}

nlohmann::ordered_json core_json(const Cluster &c)
{
    config::CoreDescription d(c.config);
    return { { "configuration", d.to_json() }, { "id_registers", d.id_registers() } };
}

nlohmann::ordered_json report_header(const Scenario &s, double host_seconds)
{
    return { { "schema", "pmvp-soc/1" },
             { "pmvp_version", pmvp_version() },
             { "scenario",
               { { "name", s.name },
                 { "description", s.description },
                 { "kind", s.x86     ? "x86"
                           : s.sebep ? "sebep"
                                     : "arm" },
                 { "duration_ps", s.duration } } },
             { "host_seconds", host_seconds } };
}

namespace {

using json = nlohmann::ordered_json;

// "pes": the analytic clusters' PEs, each with its registers as read at the
// end (a sampling counter's value is its count since it was last re-armed);
// the ISS clusters' are under "iss" (iss_report_json).
json pes_json(const Soc &soc)
{
    const Scenario &s = soc.scenario;
    json pes = json::array();
    for (const PeId &p : soc.pes) {
        if (p.iss)
            continue;
        Tally t(s.duration);
        t.add_final(soc, p.global);
        json o = { { "pe", p.global }, { "cluster", p.cluster }, { "core", p.core }, { "thread", p.thread } };
        o.update(counts_json(soc, t));
        const Firmware::PeReadout &r = soc.firmware->readout[p.global];
        o["registers"]["PMCCNTR_EL0"] = r.pmccntr;
        for (size_t i = 0; i < s.firmware.counters.size(); i++)
            o["registers"]["PMEVCNTR" + std::to_string(s.firmware.counters[i].counter) + "_EL0"] = r.evcntr[i];
        o["registers"]["PMOVSSET_EL0"] = r.pmovsset;
        o["off_at_end"] = r.off_at_end;
        pes.push_back(o);
    }
    return pes;
}

// "cores": the analytic cores, each its PEs' sum.
json cores_json(const Soc &soc)
{
    json cores = json::array();
    for (const auto &core : soc.cores) {
        if (core->cluster.iss())
            continue;
        Tally t(soc.scenario.duration);
        for (unsigned k = 0; k < core->cluster.config.num_pes; k++)
            t.add_final(soc, core->first_pe + k);
        json o = {
            { "core", core->index }, { "cluster", core->cluster.name }, { "first_pe", core->first_pe }, { "pes", t.pes }
        };
        o.update(counts_json(soc, t));
        cores.push_back(o);
    }
    return cores;
}

// "check": what --check compared, and its first disagreements.
json check_json(const RunInfo &run)
{
    json c = { { "compared", 0 }, { "disagreements", 0 }, { "first", json::array() } };
    uint64_t compared = 0, bad = 0;
    for (size_t k = 0; k < run.checks.size(); k++) {
        compared += run.checks[k].compared;
        bad += run.checks[k].num_disagreements;
        for (const std::string &d : run.checks[k].disagreements)
            c["first"].push_back("core " + std::to_string(k) + ": " + d);
    }
    c["compared"] = compared;
    c["disagreements"] = bad;
    return c;
}

}  // namespace

// The JSON report (docs/PMVP-SOC.md, "JSON output"), its members in the
// order of the schema.
nlohmann::ordered_json report_json(const Soc &soc, const RunInfo &run)
{
    const Scenario &s = soc.scenario;
    json j = report_header(s, run.host_seconds);
    j["scenario"]["system_counter_hz"] = s.system_counter_hz;
    j["interrupted"] = run.interrupted;
    for (const Cluster &c : s.clusters)
        j["scenario"]["clusters"].push_back({ { "name", c.name },
                                              { "cpu", c.iss() ? "iss" : "analytic" },
                                              { "cores", c.cores },
                                              { "threads", c.config.num_pes },
                                              { "multithreading", mt_policy_name(c.config.mt_policy) },
                                              { "frequency_hz", c.config.processor_hz },
                                              { "core", core_json(c) } });
    j["pes"] = pes_json(soc);
    j["cores"] = cores_json(soc);
    Tally all(s.duration);
    for (const PeId &p : soc.pes)
        if (!p.iss)
            all.add_final(soc, p.global);
    j["soc"] = counts_json(soc, all);
    j["firmware"] = { { "deferred_interrupts", soc.firmware->deferred } };
    if (run.checked)
        j["check"] = check_json(run);
    return j;
}

}  // namespace pmvp::soc
