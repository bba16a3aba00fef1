// SPDX-License-Identifier: Apache-2.0
//
// The command line's overrides of a scenario (apply_overrides), and the
// checks a scenario gets once its duration is final.
#include "scenario_reader.h"

#include <fstream>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cmath>
#include <memory>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "a64_events.h"
#include "firmware_image.h"
#include "pmvp/config/core_file.h"
#include "pmvp/config/json_text.h"
#include "pmvp/config/units.h"

extern "C" {
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/fields.h"
}


namespace pmvp::soc {

using reading::core_refusal;

namespace {

// A run whose cost grows with the number of some step (a quantum, an SoEMT
// thread switch, a retired instruction of the SEBEP platform) is refused
// when it would take more than this many of them: past it, a mistyped
// "1 ps" turns a run of a second into hours (docs/PMVP-SOC.md).
constexpr uint64_t kMaxSteps = 100000000;

void check_steps(const Scenario &s, const std::string &field, pmvp_time step, const char *what)
{
    uint64_t n = s.duration / step;
    if (n > kMaxSteps)
        throw ScenarioError(field + ": " + time_text(step) + " over " + time_text(s.duration) + " is " +
                            std::to_string(n) + " " + what + ", more than the " + std::to_string(kMaxSteps) +
                            " pmvp-soc runs (hours of host time): make it longer or the run shorter");
}

}  // namespace


// D13.8, D24.5.12: the threshold fields of a counter the firmware programs,
// against a cluster's PMU. The reserved combinations (RMRPVL) are
// CONSTRAINED UNPREDICTABLE, so refused. Empty when they fit.
static std::string threshold_refusal(const CounterSetup &c, const pmvp_core_config &cfg)
{
    if (!c.threshold)
        return "";
    uint64_t v = c.evtyper, width = PMVP_FIELD_GET(PMVP_PMMIR_EL1_THWIDTH, cfg.pmmir);
    uint64_t edge = PMVP_FIELD_GET(PMVP_PMMIR_EL1_EDGE, cfg.pmmir);
    uint64_t tc = PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_TC, v), tlc = PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_TLC, v);
    bool te = v & PMVP_PMEVTYPER_EL0_TE;
    if (!width)
        return "TC: no FEAT_PMUv3_TH in this PMU (pmmir THWIDTH, which needs feat_pmuv3p7)";
    if (PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_TH, v) >> width)
        return "TH: at most 2^THWIDTH - 1 = " + std::to_string((1u << width) - 1) + " (pmmir THWIDTH " +
               std::to_string(width) + ")";
    if (te && edge < 1)
        return "TE: no FEAT_PMUv3_EDGE in this PMU (pmmir EDGE 1 or 2)";
    if (tlc && (edge < 2 || c.counter % 2 == 0))
        return "TLC: linking needs FEAT_PMUv3_TH2 (pmmir EDGE 2) and an odd counter";
    if ((tc % 2 == 1 && !te && tlc == 2) || (te && tlc == 1) || (te && tc % 4 == 0))
        return "TC: {TC, TE, TLC} is a reserved combination (D13.8 RMRPVL: CONSTRAINED UNPREDICTABLE)";
    return "";
}

// The machine's overrides, then what the machine needs of the scenario.
static void apply_machine(Scenario &s, const Overrides &o)
{
    Machine &m = s.machine;
    if (o.machine >= 0)
        m.kind = (Machine::Kind)o.machine;
    if (o.memory)
        m.memory = o.memory;
    if (o.has_append)
        m.append = o.append;
    if (!o.initrd.empty())
        m.initrd = o.initrd;
    if (m.kind != Machine::VIRT && (o.memory || o.has_append || !o.initrd.empty()))
        throw ScenarioError(std::string(o.memory       ? "--memory"
                                        : o.has_append ? "--append"
                                                       : "--initrd") +
                            ": only the virt machine takes it (--machine virt, or the scenario's machine.type)");
    std::vector<Cluster *> iss;
    for (Cluster &c : s.clusters)
        if (c.iss())
            iss.push_back(&c);
    if (m.kind == Machine::VIRT && iss.empty())
        throw ScenarioError("machine: the virt machine's PEs are the ISS clusters' and this scenario has none "
                            "(a cluster's cpu.model \"iss\")");
    if (!o.kernel.empty() && iss.empty())
        throw ScenarioError("--kernel: this scenario has no ISS cluster to run it (a cluster's cpu.model \"iss\")");
    if (o.smp) {
        if (iss.size() != 1)
            throw ScenarioError("--smp: it sets the PEs of the one ISS cluster, and this scenario has " +
                                std::to_string(iss.size()));
        if (o.smp % iss[0]->config.num_pes)
            throw ScenarioError("--smp " + std::to_string(o.smp) + ": the ISS cluster's cores have " +
                                std::to_string(iss[0]->config.num_pes) + " threads each");
        iss[0]->cores = o.smp / iss[0]->config.num_pes;
    }
    unsigned pes = 0;
    for (size_t i = 0; i < s.clusters.size(); i++) {
        Cluster &c = s.clusters[i];
        if (!c.iss())
            continue;
        if (!o.kernel.empty())
            c.cpu.firmware = o.kernel;
        pes += c.cores * c.config.num_pes;
    }
    if (m.kind == Machine::VIRT && pes > 8)
        throw ScenarioError("machine: the virt machine's GICv2 has 8 CPU interfaces and the ISS clusters have " +
                            std::to_string(pes) + " PEs");
}

// --cores, --threads, --mt and --frequency on a SEBEP scenario's core.
static void override_sebep(Scenario &s, const Overrides &o)
{
    check_steps(s, "sebep.instruction_time", s.sebep->instruction_time, "retired instructions");
    if (o.cores || o.threads || o.mt_policy >= 0)
        throw ScenarioError("sebep: --cores, --threads and --mt apply to Arm clusters only");
    if (o.hz)
        s.sebep->hz = o.hz;
}

// The same on an x86 scenario's core, which the kernel must take.
static void override_x86(Scenario &s, const Overrides &o)
{
    if (o.cores || o.threads || o.mt_policy >= 0)
        throw ScenarioError("x86: --cores, --threads and --mt apply to Arm clusters only");
    if (o.hz)
        s.x86->config.core_hz = o.hz;
    pmvp_x86_core probe;
    const char *why = nullptr;
    if (int err = pmvp_x86_init_why(&probe, &s.x86->config, &why))
        throw ScenarioError(std::string("x86: the clock counters refuse this core: ") +
                            (why ? why : pmvp_strerror(err)));
}

// The same on every Arm cluster, each of which the kernel must take.
static void override_clusters(Scenario &s, const Overrides &o)
{
    for (size_t i = 0; i < s.clusters.size(); i++) {
        Cluster &c = s.clusters[i];
        std::string where = "clusters[" + std::to_string(i) + "]";
        if (o.cores)
            c.cores = o.cores;
        if (o.threads)
            c.config.num_pes = o.threads;
        if (o.mt_policy >= 0) {
            c.config.mt_policy = (pmvp_mt_policy)o.mt_policy;
            if (c.config.mt_policy == PMVP_MT_SOEMT && c.soemt_switch == 0)
                c.soemt_switch = 1000000;
        }
        if (o.hz)
            c.config.processor_hz = o.hz;
        if (c.config.mt_policy == PMVP_MT_SOEMT)
            check_steps(s, where + ".soemt_switch", c.soemt_switch, "thread switches per core");
        std::string refused = core_refusal(c.config);
        if (!refused.empty())
            throw ScenarioError(where + ": the PMU refuses this core: " + refused);
    }
}

// Settings that the run's duration makes moot: said, not refused (a shorter
// --time is a normal use of a longer scenario). Found again at each
// application: the last duration is the run's.
static void warn_moot(Scenario &s)
{
    s.warnings.clear();
    for (size_t i = 0; i < s.clusters.size(); i++) {
        const Cluster &c = s.clusters[i];
        std::string where = "clusters[" + std::to_string(i) + "]";
        for (size_t k = 0; k < c.dvfs.size(); k++)
            if (c.dvfs[k].at >= s.duration)
                s.warnings.push_back(where + ".dvfs[" + std::to_string(k) + "]: at " + time_text(c.dvfs[k].at) +
                                     ", not before the end of the run (" + time_text(s.duration) +
                                     "): it does not apply");
        bool clock_runs = c.config.processor_hz > 0;
        for (const DvfsStep &d : c.dvfs)
            clock_runs = clock_runs || (d.hz > 0 && d.at < s.duration);
        if (!clock_runs)
            s.warnings.push_back(where + ".frequency: 0 Hz, and no DVFS step starts the clock before the end of "
                                         "the run: its cores count no cycle");
        for (size_t w = 0; w < c.workloads.size(); w++) {
            const Workload &wl = c.workloads[w];
            if (wl.phases.size() > 1 && wl.phases[0].duration >= s.duration)
                s.warnings.push_back(where + ".workloads[" + std::to_string(w) + "].phases[0]: lasts " +
                                     time_text(wl.phases[0].duration) + ", as long as the run (" +
                                     time_text(s.duration) + "): the later phases never run");
        }
    }
    if (!s.clusters.empty() && s.system_counter_hz == 0)
        s.warnings.push_back("system_counter: 0 Hz: CNT_CYCLES never counts, and no effective frequency can be "
                             "derived from the AMU");
    for (size_t i = 0; i < s.firmware.counters.size(); i++)
        if (s.firmware.counters[i].event == PMVP_EV_BUS_CYCLES && s.bus_hz == 0)
            s.warnings.push_back("firmware.counters[" + std::to_string(i) +
                                 "]: BUS_CYCLES with bus_clock 0 Hz: it never counts");
    if (s.has_analytic() && s.firmware.irq_latency >= s.duration)
        s.warnings.push_back("firmware.irq_latency: " + time_text(s.firmware.irq_latency) + ", as long as the run (" +
                             time_text(s.duration) + "): no interrupt is serviced");
}

// Every counter the firmware agent programs must exist on every analytic
// core it programs, with the threshold fields it is given; what the
// analytic model cannot show a threshold is said.
static void check_agent_counters(Scenario &s)
{
    for (size_t i = 0; i < s.firmware.counters.size(); i++)
        for (size_t k = 0; k < s.clusters.size(); k++) {
            if (s.clusters[k].iss())
                continue;
            const CounterSetup &c = s.firmware.counters[i];
            std::string where = "firmware.counters[" + std::to_string(i) + "]";
            if (c.counter >= s.clusters[k].config.num_counters)
                throw ScenarioError(where + ".counter: cluster " + s.clusters[k].name + " has only " +
                                    std::to_string(s.clusters[k].config.num_counters) + " event counters");
            if (c.external && !s.clusters[k].config.feat_pmuv3_extpmn)
                throw ScenarioError(where + ".external: cluster " + s.clusters[k].name +
                                    " has no third range (FEAT_PMUv3_EXTPMN: feat_pmuv3_extpmn)");
            std::string why = threshold_refusal(c, s.clusters[k].config);
            if (!why.empty())
                throw ScenarioError(where + "." + why + " (cluster " + s.clusters[k].name + ")");
            const pmvp_event_info *e = pmvp_event_find(c.event);
            // What the analytic CPU model cannot show a threshold: it
            // reports no occurrence event but INST_RETIRED, and under FGMT
            // spreads a thread's instructions over every cycle of the core.
            const std::string cluster = " (cluster " + s.clusters[k].name + ")";
            if (c.threshold && (!e || e->cls == PMVP_EVCLASS_OCCURRENCE) && c.event != PMVP_EV_INST_RETIRED)
                s.warnings.push_back(where + ": the analytic CPU model reports no " +
                                     (e ? std::string(e->name) : "such event") +
                                     ", so its threshold sees 0 on every cycle" + cluster);
            if (c.threshold && c.event == PMVP_EV_INST_RETIRED && s.clusters[k].config.mt_policy == PMVP_MT_FGMT)
                s.warnings.push_back(where +
                                     ": the analytic CPU model spreads a barrel thread's instructions over "
                                     "every cycle of the core, not its own cycles only" +
                                     cluster);
        }
}

// The command line's overrides (docs/PMVP-SOC.md), checked as the scenario's
// own keys are.
void apply_overrides(Scenario &s, const Overrides &o)
{
    if (o.duration)
        s.duration = o.duration;
    if (o.quantum)
        s.quantum = o.quantum;
    // The CPU models work per quantum while a thread runs (an ISS always).
    bool runs = s.has_iss();
    for (const Cluster &c : s.clusters)
        for (const Workload &w : c.workloads)
            for (const Phase &p : w.phases)
                runs = runs || p.kind == Phase::RUN;
    if (runs)
        check_steps(s, "quantum", s.quantum, "quanta");
    const bool machine_given =
        o.machine >= 0 || !o.kernel.empty() || o.has_append || !o.initrd.empty() || o.memory || o.smp;
    if ((s.sebep || s.x86) && machine_given)
        throw ScenarioError(std::string(s.x86 ? "x86" : "sebep") +
                            ": --machine, --kernel, --append, --initrd, --memory and --smp apply to ISS clusters only");
    if (o.no_fast_forward && !s.has_iss())
        throw ScenarioError("--no-fast-forward: no cluster runs the ISS, whose polling loops it concerns");
    for (Cluster &c : s.clusters)
        c.cpu.fast_forward_polling = c.cpu.fast_forward_polling && !o.no_fast_forward;
    if (s.sebep)
        return override_sebep(s, o);
    if (s.x86)
        return override_x86(s, o);
    override_clusters(s, o);
    apply_machine(s, o);
    warn_moot(s);
    check_agent_counters(s);
}

}  // namespace pmvp::soc
