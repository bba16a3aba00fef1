// SPDX-License-Identifier: Apache-2.0
#include "report.h"

extern "C" {
#include "pmvp/version.h"
}

#include <cinttypes>

extern "C" {
#include "pmvp/events.h"
#include "pmvp/fields.h"
}

namespace pmvp::soc {

namespace {

const char *const kAmuNames[PMVP_AMU_ARCH_COUNTERS] = { "CPU_CYCLES", "CNT_CYCLES", "INST_RETIRED",
                                                        "STALL_BACKEND_MEM" };
enum { AMU_CPU_CYCLES, AMU_CNT_CYCLES, AMU_INST_RETIRED, AMU_STALL_BACKEND_MEM };

std::string event_name(uint16_t number)
{
    const pmvp_event_info *e = pmvp_event_find(number);
    if (e)
        return e->name;
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%04X", number);
    return buf;
}

// What one PE, or a sum over PEs, counted (a sampling counter's periods
// included).
struct Tally {
    unsigned pes = 0;
    bool amu = false;
    uint64_t pmccntr = 0, interrupts = 0, cycle_samples = 0;
    std::vector<uint64_t> evcntr, samples;
    uint64_t am[PMVP_AMU_ARCH_COUNTERS] = {};
    unsigned off_at_end = 0;

    void add(const Soc &soc, unsigned g)
    {
        const Firmware::PeReadout &r = soc.firmware->readout[g];
        size_t n = r.evcntr.size();
        evcntr.resize(n);
        samples.resize(n);
        pes++;
        amu = soc.cores[soc.pes[g].core]->cluster.config.feat_amuv1 || amu;
        pmccntr += r.counted.back();
        interrupts += soc.interrupts->raised[g];
        cycle_samples += r.samples.back();
        off_at_end += r.off_at_end;
        for (size_t i = 0; i < n; i++) {
            evcntr[i] += r.counted[i];
            samples[i] += r.samples[i];
        }
        for (unsigned k = 0; k < PMVP_AMU_ARCH_COUNTERS; k++)
            am[k] += r.amu[k];
    }
};

// The row of the report a metric is shown on, as perf stat shows "insn per
// cycle" on its instructions line: an event counter the firmware programmed
// (its index in firmware.counters), an AMU architected counter, or none.
struct Row {
    enum { NONE, COUNTER, AMU } kind = NONE;
    size_t index = 0;
};

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

struct Metric {
    const char *name;   // its JSON key
    double value;
    Row row;            // where the readable report shows it
    const char *label;  // what it is, after its value there
};

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
        double ticks = (double)s.duration * (double)s.system_counter_hz / 1e12 * t.pes;
        if (ticks > 0)
            m.push_back({ "utilisation", (double)t.am[AMU_CNT_CYCLES] / ticks, { Row::AMU, AMU_CNT_CYCLES },
                          "utilisation (running time)" });
        if (t.am[AMU_CNT_CYCLES])
            m.push_back({ "effective_frequency_hz",
                          (double)t.am[AMU_CPU_CYCLES] / (double)t.am[AMU_CNT_CYCLES] * (double)s.system_counter_hz,
                          { Row::AMU, AMU_CPU_CYCLES }, "effective frequency (while running)" });
    }
    return m;
}

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

void print_block(std::FILE *out, const Soc &soc, const std::string &title, const Tally &t)
{
    const FirmwareSetup &fw = soc.scenario.firmware;
    std::fprintf(out, "\n %s:\n\n", title.c_str());
    const std::vector<Metric> shown = metrics(soc, t);
    // "# 2.00 insn per cycle" after the row's event, as perf stat shows it.
    auto note = [&](Row r) {
        std::string text;
        for (const Metric &m : shown)
            if (m.row.kind == r.kind && m.row.index == r.index) {
                char buf[96];
                if (std::string(m.name) == "effective_frequency_hz")
                    std::snprintf(buf, sizeof buf, "%s %s", hz_text(m.value).c_str(), m.label);
                else if (std::string(m.name).find("share") != std::string::npos || std::string(m.name) == "utilisation")
                    std::snprintf(buf, sizeof buf, "%.2f %% %s", 100 * m.value, m.label);
                else
                    std::snprintf(buf, sizeof buf, "%.2f %s", m.value, m.label);
                text += std::string(text.empty() ? "" : ", ") + buf;
            }
        return text;
    };
    auto row = [&](uint64_t v, const std::string &name, const std::string &what, Row r = {}) {
        std::string metric = r.kind == Row::NONE ? "" : note(r);
        if (metric.empty())
            std::fprintf(out, "  %20s  %-18s %s\n", grouped(v).c_str(), name.c_str(), what.c_str());
        else
            std::fprintf(out, "  %20s  %-18s %-44s # %s\n", grouped(v).c_str(), name.c_str(), what.c_str(),
                         metric.c_str());
    };
    if (fw.cycle_counter)
        row(t.pmccntr, "PMCCNTR_EL0",
            fw.cycle_sample_period ? "cycle counter, sampled every " + grouped(fw.cycle_sample_period)
                                   : "cycle counter");
    for (size_t i = 0; i < fw.counters.size(); i++) {
        const CounterSetup &c = fw.counters[i];
        std::string what = event_name(c.event);
        if (c.evtyper & PMEVTYPER_EL0_MT)
            what += " (MT)";
        if (c.evtyper & ~(uint64_t)(PMEVTYPER_EL0_evtCount | PMEVTYPER_EL0_MT))
            what += " (filtered)";
        if (c.sample_period)
            what += ", sampled every " + grouped(c.sample_period);
        row(t.evcntr[i], "PMEVCNTR" + std::to_string(c.counter) + "_EL0", what, { Row::COUNTER, i });
    }
    if (t.amu)
        for (unsigned k = 0; k < PMVP_AMU_ARCH_COUNTERS; k++)
            row(t.am[k], "AMEVCNTR0" + std::to_string(k) + "_EL0", std::string(kAmuNames[k]) + " (AMU)",
                { Row::AMU, k });
    uint64_t samples = t.cycle_samples;
    for (uint64_t s : t.samples)
        samples += s;
    row(t.interrupts, "PMUIRQ", std::string(t.interrupts == 1 ? "interrupt, " : "interrupts, ") +
                                    counted_noun(samples, "sample") + " taken");
    if (t.off_at_end)
        std::fprintf(out, "  (%u PE%s off at the end: read through the debug path)\n", t.off_at_end,
                     t.off_at_end > 1 ? "s" : "");
}

}  // namespace

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

void print_report(std::FILE *out, const Soc &soc, const RunInfo &run, Detail detail)
{
    const Scenario &s = soc.scenario;
    unsigned pes = s.num_pes(), cores = s.num_cores();
    if (detail == Detail::AUTO)
        detail = pes <= 8 ? Detail::PE : cores <= 16 ? Detail::CORE : Detail::SOC;

    std::fprintf(out, "pmvp-soc: %s: %zu cluster%s, %u core%s, %u PE%s, %s simulated in %.2f s%s\n", s.name.c_str(),
                 s.clusters.size(), s.clusters.size() > 1 ? "s" : "", cores, cores > 1 ? "s" : "", pes,
                 pes > 1 ? "s" : "", time_text(s.duration).c_str(), run.host_seconds,
                 run.interrupted ? " (interrupted)" : "");
    if (!s.description.empty())
        std::fprintf(out, "  %s\n", s.description.c_str());
    for (const Cluster &c : s.clusters)
        std::fprintf(out, "  cluster %s: %u x %s core%s at %s%s\n", c.name.c_str(), c.cores,
                     c.config.num_pes > 1 ? (std::to_string(c.config.num_pes) + "-thread " +
                                             mt_policy_name(c.config.mt_policy)).c_str()
                                          : "single-thread",
                     c.cores > 1 ? "s" : "", hz_text((double)c.config.processor_hz).c_str(),
                     (std::string(c.dvfs.empty() ? "" : " (DVFS)") + (c.iss() ? ", on the AArch64 ISS" : "")).c_str());

    // The ISS clusters' PEs have a report of their own (print_iss_report).
    unsigned analytic_pes = 0, analytic_cores = 0;
    for (const PeId &p : soc.pes)
        analytic_pes += !p.iss;
    for (const auto &core : soc.cores)
        analytic_cores += !core->cluster.iss();
    if (detail == Detail::PE)
        for (const PeId &p : soc.pes) {
            if (p.iss)
                continue;
            Tally t;
            t.add(soc, p.global);
            print_block(out, soc,
                        "PE " + std::to_string(p.global) + " (cluster " + s.clusters[p.cluster].name + ", core " +
                            std::to_string(p.core) + ", thread " + std::to_string(p.thread) + ")",
                        t);
        }
    if (detail != Detail::SOC && !(detail == Detail::PE && analytic_pes == analytic_cores))
        for (const auto &core : soc.cores) {
            if (core->cluster.iss())
                continue;
            Tally t;
            for (unsigned k = 0; k < core->cluster.config.num_pes; k++)
                t.add(soc, core->first_pe + k);
            print_block(out, soc,
                        "core " + std::to_string(core->index) + " (cluster " + core->cluster.name +
                            "), sum over its " + counted_noun(t.pes, "PE"),
                        t);
        }
    if (analytic_cores > 1 || detail == Detail::SOC) {
        Tally t;
        for (const PeId &p : soc.pes)
            if (!p.iss)
                t.add(soc, p.global);
        print_block(out, soc,
                    s.has_iss() ? "SoC, sum over its " + counted_noun(analytic_pes, "PE") + " of analytic cores"
                                : "SoC, sum over " + counted_noun(pes, "PE"),
                    t);
    }
    if (run.checked) {
        std::fprintf(out, "\n");
        print_check(out, run);
    }
    std::fprintf(out, "\n");
}

void print_check(std::FILE *out, const RunInfo &run)
{
    uint64_t compared = 0, bad = 0;
    for (const CheckResult &c : run.checks) {
        compared += c.compared;
        bad += c.num_disagreements;
    }
    std::fprintf(out, " check: %s values read compared with the per-cycle reference model: %s\n",
                 grouped(compared).c_str(), bad ? (grouped(bad) + " DISAGREE").c_str() : "all agree");
    for (size_t k = 0; k < run.checks.size(); k++)
        for (const std::string &d : run.checks[k].disagreements)
            std::fprintf(out, "   core %zu: %s\n", k, d.c_str());
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
                 { "kind", s.x86 ? "x86" : s.sebep ? "sebep" : "arm" },
                 { "duration_ps", s.duration } } },
             { "host_seconds", host_seconds } };
}

nlohmann::ordered_json report_json(const Soc &soc, const RunInfo &run)
{
    using json = nlohmann::ordered_json;
    const Scenario &s = soc.scenario;
    const FirmwareSetup &fw = soc.scenario.firmware;
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

    auto counts = [&](const Tally &t) {
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
        o["interrupts"] = t.interrupts;
        json m = json::object();
        for (const Metric &metric : metrics(soc, t))
            m[metric.name] = metric.value;
        o["metrics"] = m;
        return o;
    };

    // The analytic clusters' PEs; the ISS clusters' are under "iss" (iss_report_json).
    j["pes"] = json::array();
    for (const PeId &p : soc.pes) {
        if (p.iss)
            continue;
        Tally t;
        t.add(soc, p.global);
        json o = { { "pe", p.global }, { "cluster", p.cluster }, { "core", p.core }, { "thread", p.thread } };
        o.update(counts(t));
        const Firmware::PeReadout &r = soc.firmware->readout[p.global];
        // The registers as read at the end (a sampling counter's value is
        // its count since it was last re-armed).
        o["registers"]["PMCCNTR_EL0"] = r.pmccntr;
        for (size_t i = 0; i < fw.counters.size(); i++)
            o["registers"]["PMEVCNTR" + std::to_string(fw.counters[i].counter) + "_EL0"] = r.evcntr[i];
        o["registers"]["PMOVSSET_EL0"] = r.pmovsset;
        o["off_at_end"] = r.off_at_end;
        j["pes"].push_back(o);
    }
    j["cores"] = json::array();
    for (const auto &core : soc.cores) {
        if (core->cluster.iss())
            continue;
        Tally t;
        for (unsigned k = 0; k < core->cluster.config.num_pes; k++)
            t.add(soc, core->first_pe + k);
        json o = { { "core", core->index }, { "cluster", core->cluster.name }, { "first_pe", core->first_pe },
                   { "pes", t.pes } };
        o.update(counts(t));
        j["cores"].push_back(o);
    }
    Tally all;
    for (const PeId &p : soc.pes)
        if (!p.iss)
            all.add(soc, p.global);
    j["soc"] = counts(all);
    j["firmware"] = { { "deferred_interrupts", soc.firmware->deferred } };
    if (run.checked) {
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
        j["check"] = c;
    }
    return j;
}

}  // namespace pmvp::soc
