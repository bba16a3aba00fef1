// SPDX-License-Identifier: Apache-2.0
//
// The scenario reader (scenario_reader.h): the SoC's clusters, their cores,
// controls and CPU models, the machine, the firmware's counters, and the
// scenario as a whole.
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


namespace pmvp::soc::reading {

namespace {

// The events an ISS core implements, so PMCEID advertises them and no
// guest counts an event that would stay at zero: those the ISS tells
// (a64_events.h), and those the monitors make (SW_INCR, the cycles,
// CHAIN). From PMUv3p1 (`v3p1`), CNT_CYCLES (0x4004: PMUv3 counts no
// event above 0x3FF) and the STALL_FRONTEND and STALL_BACKEND the
// architecture requires: at CPI 1 (`cpi1`) an instruction issues every
// cycle, so the ISS's timing defines both, and both count nothing; at a
// higher CPI it has no model of which cycles stall, and they are not
// advertised (docs/FIRMWARE.md).
const std::vector<uint16_t> &iss_events(bool cpi1, bool v3p1)
{
    static std::vector<uint16_t> lists[2][2];
    std::vector<uint16_t> &l = lists[cpi1][v3p1];
    if (l.empty()) {
        l = { PMVP_EV_SW_INCR, PMVP_EV_CPU_CYCLES, PMVP_EV_BUS_CYCLES, PMVP_EV_CHAIN };
        l.insert(l.end(), pmvp::soc::a64::kNumber, pmvp::soc::a64::kNumber + pmvp::soc::a64::kNumEvents);
        if (v3p1)
            l.push_back(PMVP_EV_CNT_CYCLES);
        if (v3p1 && cpi1)
            l.insert(l.end(), { PMVP_EV_STALL_FRONTEND, PMVP_EV_STALL_BACKEND });
    }
    return l;
}

const BitNames &filter_bits()
{
    static const BitNames b = { { "P", PMVP_PMEVTYPER_EL0_P },     { "U", PMVP_PMEVTYPER_EL0_U },
                                { "NSK", PMVP_PMEVTYPER_EL0_NSK }, { "NSU", PMVP_PMEVTYPER_EL0_NSU },
                                { "NSH", PMVP_PMEVTYPER_EL0_NSH }, { "M", PMVP_PMEVTYPER_EL0_M },
                                { "SH", PMVP_PMEVTYPER_EL0_SH },   { "RLK", PMVP_PMEVTYPER_EL0_RLK },
                                { "RLU", PMVP_PMEVTYPER_EL0_RLU }, { "RLH", PMVP_PMEVTYPER_EL0_RLH } };
    return b;
}

const BitNames &pmcr_bits()
{
    // E is the firmware's to set last; P and C are actions, not settings.
    static const BitNames b = { { "D", PMVP_PMCR_EL0_D },   { "X", PMVP_PMCR_EL0_X },   { "DP", PMVP_PMCR_EL0_DP },
                                { "LC", PMVP_PMCR_EL0_LC }, { "LP", PMVP_PMCR_EL0_LP }, { "FZO", PMVP_PMCR_EL0_FZO } };
    return b;
}

const BitNames &mdcr_el2_bits()
{
    static const BitNames b = { { "HPME", PMVP_MDCR_EL2_HPME },   { "HPMD", PMVP_MDCR_EL2_HPMD },
                                { "HCCD", PMVP_MDCR_EL2_HCCD },   { "HLP", PMVP_MDCR_EL2_HLP },
                                { "MTPME", PMVP_MDCR_EL2_MTPME }, { "HPMFZO", PMVP_MDCR_EL2_HPMFZO },
                                { "PMSSE0", PMVP_BIT(30) },       { "PMSSE1", PMVP_BIT(31) } };
    return b;
}

const BitNames &mdcr_el3_bits()
{
    static const BitNames b = { { "SPME", PMVP_MDCR_EL3_SPME },     { "SCCD", PMVP_MDCR_EL3_SCCD },
                                { "MTPME", PMVP_MDCR_EL3_MTPME },   { "MCCD", PMVP_MDCR_EL3_MCCD },
                                { "MPMX", PMVP_MDCR_EL3_MPMX },     { "EnPM2", PMVP_MDCR_EL3_EnPM2 },
                                { "EnPMSS", PMVP_MDCR_EL3_EnPMSS }, { "PMSSE0", PMVP_BIT(30) },
                                { "PMSSE1", PMVP_BIT(31) } };
    return b;
}

// Control bits that exist only with a feature: without it the bit is RES0
// (or not there at all), so asking for it is refused rather than lost.
struct BitNeed {
    uint64_t bit;
    const char *name;   // the bit, and what it is for
    const char *needs;  // the scenario key that gives the feature
    bool (*has)(const pmvp_core_config &);
};
using BitNeeds = std::vector<BitNeed>;

bool has_pmuv3p1(const pmvp_core_config &c)
{
    return c.pmu_version >= PMVP_PMUV3P1;
}
bool has_pmuv3p5(const pmvp_core_config &c)
{
    return c.pmu_version >= PMVP_PMUV3P5;
}
bool has_snapshots(const pmvp_core_config &c)
{
    return c.feat_pmuv3_ss;
}

const BitNeeds &pmcr_needs()
{
    static const BitNeeds b = {
        { PMVP_PMCR_EL0_FZO, "FZO (freeze on overflow)", "feat_pmuv3p7",
          [](const pmvp_core_config &c) { return c.feat_pmuv3p7; } },
        { PMVP_PMCR_EL0_LP, "LP (event counters overflow at bit 63)", "pmu_version PMUv3p5", has_pmuv3p5 },
        { PMVP_PMCR_EL0_D, "D (the cycle counter's divider)", "have_aarch32",
          [](const pmvp_core_config &c) { return c.have_aarch32; } },
        { PMVP_PMCR_EL0_DP, "DP (the cycle counter disabled where counting is prohibited)",
          "have_el3, or have_el2 from PMUv3p1, or feat_pmuv3p7",
          [](const pmvp_core_config &c) { return c.have_el3 || (has_pmuv3p1(c) && c.have_el2) || c.feat_pmuv3p7; } },
    };
    return b;
}

const BitNeeds &mdcr_el2_needs()
{
    static const BitNeeds b = {
        { PMVP_MDCR_EL2_HPMFZO, "HPMFZO (freeze on overflow)", "feat_pmuv3p7",
          [](const pmvp_core_config &c) { return c.feat_pmuv3p7; } },
        { PMVP_MDCR_EL2_HPMD, "HPMD (EL2 prohibited)", "pmu_version PMUv3p1 or later", has_pmuv3p1 },
        { PMVP_MDCR_EL2_PMSSE, "PMSSE0, PMSSE1 (PMU snapshots)", "feat_pmuv3_ss", has_snapshots },
        { PMVP_MDCR_EL2_HCCD, "HCCD (no cycle counting at EL2)", "pmu_version PMUv3p5", has_pmuv3p5 },
        { PMVP_MDCR_EL2_HLP, "HLP (the second range overflows at bit 63)", "pmu_version PMUv3p5", has_pmuv3p5 },
        { PMVP_MDCR_EL2_MTPME, "MTPME (PMEVTYPER.MT enabled)", "feat_mtpmu",
          [](const pmvp_core_config &c) { return c.feat_mtpmu; } },
    };
    return b;
}

const BitNeeds &mdcr_el3_needs()
{
    static const BitNeeds b = {
        { PMVP_MDCR_EL3_EnPM2, "EnPM2 (PMICNTR, PMUACR, PMECR and PMIAR below EL3)",
          "feat_pmuv3_icntr, feat_pmuv3p9 or feat_ebep",
          [](const pmvp_core_config &c) { return c.feat_pmuv3_icntr || c.feat_pmuv3p9 || c.feat_ebep; } },
        { PMVP_MDCR_EL3_SCCD, "SCCD (no cycle counting in Secure state)", "pmu_version PMUv3p5", has_pmuv3p5 },
        { PMVP_MDCR_EL3_EnPMSS | PMVP_MDCR_EL3_PMSSE, "EnPMSS, PMSSE0, PMSSE1 (PMU snapshots)", "feat_pmuv3_ss",
          has_snapshots },
        { PMVP_MDCR_EL3_MCCD, "MCCD (no cycle counting at EL3)", "feat_pmuv3p7",
          [](const pmvp_core_config &c) { return c.feat_pmuv3p7; } },
        { PMVP_MDCR_EL3_MPMX, "MPMX (EL3 counting)", "feat_pmuv3p7",
          [](const pmvp_core_config &c) { return c.feat_pmuv3p7; } },
        { PMVP_MDCR_EL3_MTPME, "MTPME (PMEVTYPER.MT enabled)", "feat_mtpmu",
          [](const pmvp_core_config &c) { return c.feat_mtpmu; } },
    };
    return b;
}

// The first bit of `value` whose feature `cfg` lacks, or nullptr.
const BitNeed *lacking(uint64_t value, const BitNeeds &needs, const pmvp_core_config &cfg)
{
    for (const BitNeed &n : needs)
        if ((value & n.bit) && !n.has(cfg))
            return &n;
    return nullptr;
}


}  // namespace

// An event by its catalogue name (any case), perf's generic name, or number.
uint16_t Reader::event(Object &o, const std::string &key) const
{
    const json &v = o.need(key);
    if (v.is_number_unsigned() && v.get<uint64_t>() <= 0xFFFF)
        return (uint16_t)v.get<uint64_t>();
    if (v.is_string()) {
        try {
            return config::event_number(v.get<std::string>());
        } catch (const std::invalid_argument &e) {
            fail(o.sub(key), e.what());
        }
    }
    fail(o.sub(key), "expected an event name (\"CPU_CYCLES\", or perf's \"cycles\") or number (0-65535)");
}

void Reader::phase(Object &o, Phase &p, const pmvp_core_config &cfg, pmvp_core *probe)
{
    static const std::pair<const char *, Phase::Kind> kinds[] = {
        { "run", Phase::RUN }, { "wfi", Phase::WFI }, { "wfe", Phase::WFE }, { "off", Phase::OFF }
    };
    int count = 0;
    for (const auto &[key, kind] : kinds)
        if (o.has(key)) {
            p.kind = kind;
            p.duration = o.time(key, 0);
            count++;
        }
    if (count != 1)
        fail(o.path(), "expected exactly one of \"run\", \"wfi\", \"wfe\", \"off\" with its duration");
    if (p.duration == 0)
        fail(o.path(), "a phase must last longer than 0 ps");
    if (p.kind != Phase::RUN)
        return;
    p.ipc = o.real("ipc", p.ipc, 0, 64);
    p.stall_backend = o.real("stall_backend", 0, 0, 1);
    p.stall_backend_mem = o.real("stall_backend_mem", 0, 0, 1);
    if (p.stall_backend_mem > p.stall_backend)
        fail(o.sub("stall_backend_mem"), "a memory stall is a backend stall: it cannot exceed stall_backend");
    p.ctx.el = (uint8_t)o.integer("el", 1, 0, 3);
    std::string sec = o.str("security", p.ctx.el == 3 ? (cfg.feat_rme ? "root" : "secure") : "non-secure");
    static const std::pair<const char *, pmvp_security> states[] = {
        { "non-secure", PMVP_NONSECURE }, { "secure", PMVP_SECURE }, { "realm", PMVP_REALM }, { "root", PMVP_ROOT }
    };
    bool found = false;
    for (const auto &[n, st] : states)
        if (sec == n) {
            p.ctx.security = st;
            found = true;
        }
    if (!found)
        fail(o.sub("security"), "expected non-secure, secure, realm or root");
    // The kernel knows which contexts this core has (a core made once for
    // the workload's phases: nothing here grows faster than the phases).
    if (probe && pmvp_core_set_context(probe, 0, &p.ctx, 0) != PMVP_OK)
        fail(o.path(), "this core cannot execute at EL" + std::to_string(p.ctx.el) + " in " + sec +
                           " state (EL3 is Secure, or Root with FEAT_RME; Secure EL2 needs FEAT_SEL2; "
                           "Realm needs FEAT_RME)");
}

void Reader::workload(Object &o, Workload &w, const pmvp_core_config &cfg)
{
    w.repeat = o.boolean("repeat", true);
    const json &phases = o.need("phases");
    if (!phases.is_array() || phases.empty())
        fail(o.sub("phases"), "expected a non-empty list of phases");
    w.phases.resize(phases.size());
    auto probe = std::make_unique<pmvp_core>();
    const bool made = pmvp_core_init(probe.get(), &cfg) == PMVP_OK;
    for (size_t i = 0; i < phases.size(); i++) {
        Object po(*this, phases[i], o.sub("phases") + "[" + std::to_string(i) + "]");
        phase(po, w.phases[i], cfg, made ? probe.get() : nullptr);
    }
}

// A cluster (docs/PMVP-SOC.md, "clusters"): its core, its clocks, its
// controls, then its CPU model's workload.
void Reader::cluster(Object &o, Cluster &c, const Scenario &s, size_t index)
{
    c.name = o.str("name", "cluster" + std::to_string(index));
    c.cores = (unsigned)o.integer("cores", 1, 1, 1024);
    refuse_old_keys(o);
    json::object_t given = core_keys(o);
    core(o, c, s);
    clocks(o, c);
    controls(o, c);
    if (!iss_cpu(o, c, given))
        workloads(o, c);
}

// The keys a cluster had before it took the core description's names: each
// refused with the keys that now say the same.
void Reader::refuse_old_keys(const Object &o) const
{
    static const std::pair<const char *, const char *> renamed[] = {
        { "threads", "num_pes" },
        { "multithreading", "mt_policy" },
        { "frequency", "processor_hz" },
        { "pmu", "num_counters, pmu_version, feat_pmuv3p7, feat_pmuv3_icntr, feat_pmuv3p9, feat_pmuv3_ss, "
                 "feat_pmuv3_extpmn, extpmn_reserved, feat_mtpmu, pmu_ext_layout or pmmir (THWIDTH, EDGE)" },
        { "amu", "feat_amuv1, amu_always_on or amu_ext_layout" },
        { "features", "the feature's own key (\"feat_sel2\": true) in the cluster" },
        { "implementation", "the choice's own key (\"clock_stops_in_wfx\": false, \"divider_mode\") in the cluster" },
    };
    for (const auto &[old, now] : renamed)
        if (o.has(old))
            fail(o.sub(old), std::string("a cluster's core takes the core description's keys (docs/CORE.md): did you "
                                         "mean ") +
                                 now + "?");
}

// The cluster's keys that are the core description's (docs/CORE.md), as given.
json::object_t Reader::core_keys(Object &o) const
{
    json::object_t given;
    for (const auto &[key, schema] : config::CoreDescription::schema()["properties"].items())
        if (key != "description")
            if (const json *v = o.get(key))  // (asked for even when absent: a misspelt key finds it)
                given[key] = *v;
    return given;
}

// The cluster's core: the core description "core" names or is, with the
// cluster's own keys of the core description's over it; the SoC's bus and
// System Counter clocks.
void Reader::core(Object &o, Cluster &c, const Scenario &s)
{
    json description = json::object();
    if (const json *v = o.get("core")) {
        try {
            description = v->is_string() ? config::CoreDescription::load_json(find_core(v->get<std::string>())) : *v;
        } catch (const config::Error &e) {
            fail(o.sub("core"), e.what());
        }
        if (!description.is_object())
            fail(o.sub("core"), "expected a preset's name, a file or a core description (an object)");
    } else if (!o.has("processor_hz")) {
        fail(o.sub("processor_hz"), "missing: the cluster's clock, unless a \"core\" description gives it");
    }
    for (const char *key : { "bus_hz", "system_counter_hz" })
        if (o.has(key))
            fail(o.sub(key), "the SoC's clocks are the scenario's \"bus_clock\" and \"system_counter\"");
    for (const auto &[key, value] : core_keys(o))
        description[key] = value;
    try {
        c.core = std::make_shared<const config::CoreDescription>(
            config::CoreDescription::from_json(description, source_ + ": " + o.path()));
    } catch (const config::Error &e) {
        throw ScenarioError(e.what());
    }
    c.config = c.core->config();
    // The SoC's clocks, whatever a core description says (docs/CORE.md).
    c.config.bus_hz = s.bus_hz;
    c.config.system_counter_hz = s.system_counter_hz;
}

// The cluster's DVFS steps and SoEMT switch.
void Reader::clocks(Object &o, Cluster &c)
{
    const pmvp_core_config &cfg = c.config;
    if (const json *v = o.get("dvfs")) {
        if (!v->is_array())
            fail(o.sub("dvfs"), "expected a list of {\"at\", \"frequency\"} steps");
        for (size_t i = 0; i < v->size(); i++) {
            Object so(*this, (*v)[i], o.sub("dvfs") + "[" + std::to_string(i) + "]");
            DvfsStep d;
            d.at = so.time("at", 0, true);
            d.hz = so.hz("frequency", 0, true);
            if (!c.dvfs.empty() && d.at <= c.dvfs.back().at)
                fail(so.sub("at"), "steps must come in increasing time");
            c.dvfs.push_back(d);
        }
    }
    c.soemt_switch = o.time("soemt_switch", cfg.mt_policy == PMVP_MT_SOEMT ? 1000000 : 0);
    if (cfg.mt_policy == PMVP_MT_SOEMT && c.soemt_switch == 0)
        fail(o.sub("soemt_switch"), "must be longer than 0 ps");
}

// The kernel's refusal of the core, if any, said after `what`.
void Reader::refuse_core(Object &o, const pmvp_core_config &cfg, const std::string &what)
{
    std::string refused = core_refusal(cfg);
    if (!refused.empty())
        fail(o.path(), what + refused);
}

// "controls": EL2 and EL3 software's settings; HPMN stays N.
void Reader::controls(Object &o, Cluster &c)
{
    const pmvp_core_config &cfg = c.config;
    c.controls.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, cfg.num_counters);
    c.controls.noninvasive_debug = true;
    if (const json *v = o.get("controls")) {
        Object co(*this, *v, o.sub("controls"));
        c.controls.mdcr_el2 |= co.bits("MDCR_EL2", mdcr_el2_bits());
        c.controls.mdcr_el3 = co.bits("MDCR_EL3", mdcr_el3_bits());
        c.controls.scr_el3 = co.bits("SCR_EL3", { { "EEL2", PMVP_SCR_EL3_EEL2 } });
        if ((c.controls.scr_el3 & PMVP_SCR_EL3_EEL2) && !cfg.feat_sel2)
            fail(co.sub("SCR_EL3"), "EEL2 enables Secure EL2, which needs feat_sel2");
        const std::pair<const char *, std::pair<uint64_t, const BitNeeds *>> registers[] = {
            { "MDCR_EL2", { c.controls.mdcr_el2, &mdcr_el2_needs() } },
            { "MDCR_EL3", { c.controls.mdcr_el3, &mdcr_el3_needs() } },
        };
        for (const auto &[name, reg] : registers)
            if (const BitNeed *n = lacking(reg.first, *reg.second, cfg))
                fail(co.sub(name), std::string(n->name) + " needs " + n->needs + "; without it the bit is RES0");
    }
}

// "cpu": an ISS's firmware, which is then the workload (true), or the
// analytic model (false).
bool Reader::iss_cpu(Object &o, Cluster &c, const json::object_t &given)
{
    pmvp_core_config &cfg = c.config;
    const json *v = o.get("cpu");
    if (!v)
        return false;
    Object mo(*this, *v, o.sub("cpu"));
    std::string model = mo.str("model", "analytic");
    if (model == "iss") {
        c.cpu.kind = CpuModel::ISS;
        // (or given by --kernel: the platform refuses a run without one)
        if (mo.has("firmware"))
            c.cpu.firmware = find_firmware(mo.str("firmware", ""));
        else
            mo.get("firmware");
        c.cpu.cpi = mo.integer("cpi", 1, 1, 1000);
        c.cpu.fast_forward_polling = mo.boolean("fast_forward_polling", true);
        // Unicorn runs its guest at EL1 and has no usable EL2 or EL3: the
        // cores have none, so EL1 is the highest Exception level, and
        // nothing may say otherwise.
        for (const char *key : { "have_el2", "have_el3", "feat_sel2", "feat_rme" })
            if (given.count(key) && given.at(key) == true)
                fail(o.sub(key), "an ISS cluster has no EL2 or EL3 (Unicorn runs EL1 only)");
        if (o.has("controls"))
            fail(o.sub("controls"), "an ISS cluster has no EL2 or EL3 whose controls these would be");
        c.config.have_el2 = c.config.have_el3 = false;
        c.config.feat_sel2 = c.config.feat_rme = false;
        const std::vector<uint16_t> &events = iss_events(c.cpu.cpi == 1, cfg.pmu_version >= PMVP_PMUV3P1);
        c.config.events = events.data();
        c.config.num_events = (unsigned)events.size();
        c.controls = pmvp_pmu_controls{};
        c.controls.noninvasive_debug = true;
        refuse_core(o, cfg, "the PMU refuses this core without EL2 and EL3: ");
        return true;  // the firmware is the workload
    }
    if (model != "analytic")
        fail(mo.sub("model"), "expected analytic or iss");
    return false;
}

// "workloads": the analytic model's, thread t running workload t modulo
// their number.
void Reader::workloads(Object &o, Cluster &c)
{
    const json &w = o.need("workloads");
    if (!w.is_array() || w.empty())
        fail(o.sub("workloads"), "expected a non-empty list (thread t runs workload t modulo its length)");
    c.workloads.resize(w.size());
    for (size_t i = 0; i < w.size(); i++) {
        Object wo(*this, w[i], o.sub("workloads") + "[" + std::to_string(i) + "]");
        workload(wo, c.workloads[i], c.config);
    }
}

void Reader::machine(Object &&o, Machine &m)
{
    int kind = parse_machine(o.str("type", "pmvp"));
    if (kind < 0)
        fail(o.sub("type"), "expected pmvp (the platform's own system-control device) or virt (QEMU's virt board)");
    m.kind = (Machine::Kind)kind;
    if (const json *v = o.get("memory")) {
        if (m.kind != Machine::VIRT)
            fail(o.sub("memory"), "the pmvp machine's RAM is 16 MiB; memory is the virt machine's");
        if (!v->is_string())
            fail(o.sub("memory"), "expected a string such as \"256 MiB\"");
        try {
            m.memory = parse_memory(v->get<std::string>());
        } catch (const std::invalid_argument &e) {
            fail(o.sub("memory"), e.what());
        }
    }
    if (o.has("append") && m.kind != Machine::VIRT)
        fail(o.sub("append"), "only the virt machine gives its image a command line");
    m.append = o.str("append", "");
    if (o.has("initrd") && m.kind != Machine::VIRT)
        fail(o.sub("initrd"), "only the virt machine loads an initial RAM disk");
    m.initrd = find_firmware(o.str("initrd", ""));
    for (const char *key : { "dtb", "virtconsole", "semihosting", "gic_version", "semihosting_dir", "pci_testdev" })
        if (o.has(key) && m.kind != Machine::VIRT)
            fail(o.sub(key), "only the virt machine has it");
    m.dtb = find_firmware(o.str("dtb", ""));
    static const std::pair<const char *, Machine::Virtconsole> consoles[] = { { "none", Machine::NO_VIRTCONSOLE },
                                                                              { "testdev", Machine::TESTDEV },
                                                                              { "console", Machine::CONSOLE } };
    const std::string console = o.str("virtconsole", "none");
    bool known = false;
    for (const auto &[name, kind] : consoles)
        if (console == name) {
            m.virtconsole = kind;
            known = true;
        }
    if (!known)
        fail(o.sub("virtconsole"), "expected none, testdev (QEMU's chr-testdev) or console (the machine's console)");
    m.semihosting = o.boolean("semihosting", true);
    m.gic_version = (unsigned)o.integer("gic_version", 2, 2, 3);
    m.pci_testdev = o.boolean("pci_testdev", false);
    m.semihosting_dir = find_firmware(o.str("semihosting_dir", ""));
    struct stat st {};
    if (!m.semihosting_dir.empty() && (stat(m.semihosting_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)))
        fail(o.sub("semihosting_dir"), m.semihosting_dir + " is not a directory");
}

void Reader::firmware(Object &o, FirmwareSetup &f)
{
    if (const json *v = o.get("counters")) {
        if (!v->is_array())
            fail(o.sub("counters"), "expected a list of counters");
        std::set<unsigned> seen;
        for (size_t i = 0; i < v->size(); i++) {
            Object co(*this, (*v)[i], o.sub("counters") + "[" + std::to_string(i) + "]");
            CounterSetup c;
            c.counter = (unsigned)co.integer("counter", i, 0, PMVP_MAX_COUNTERS - 1);
            if (!seen.insert(c.counter).second)
                fail(co.sub("counter"), "counter " + std::to_string(c.counter) + " is programmed twice");
            c.event = event(co, "event");
            c.evtyper = c.event | co.bits("filter", filter_bits());
            if (co.boolean("mt", false))
                c.evtyper |= PMVP_PMEVTYPER_EL0_MT;
            c.sample_period = co.integer("sample_period", 0, 0, UINT32_MAX);
            // D13.8: PMEVTYPER<n>.{TC, TE, TLC, TH}, checked against each
            // cluster's PMU once the clusters are read (check_threshold).
            c.threshold = co.has("TC") || co.has("TE") || co.has("TLC") || co.has("TH");
            c.evtyper |= PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_TC, co.integer("TC", 0, 0, 7)) |
                         (co.boolean("TE", false) ? PMVP_PMEVTYPER_EL0_TE : 0) |
                         PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_TLC, co.integer("TLC", 0, 0, 2)) |
                         PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_TH, co.integer("TH", 0, 0, 0xFFF));
            c.external = co.boolean("external", false);
            if (c.external && c.sample_period)
                fail(co.sub("sample_period"), "the external agent's counters do not sample: their overflow "
                                              "interrupt goes to the PE's software, which cannot see them");
            f.counters.push_back(c);
        }
        // The third range is [EPMN, N): the external agent's counters are
        // above every other.
        unsigned top_own = 0;
        bool own = false;
        for (const CounterSetup &c : f.counters) {
            if (c.external)
                f.epmn = std::min(f.epmn, c.counter);
            else
                top_own = std::max(top_own, c.counter), own = true;
        }
        if (f.epmn != PMVP_MAX_COUNTERS && own && top_own >= f.epmn)
            fail(o.sub("counters"), "counter " + std::to_string(top_own) + " is below the external agent's counter " +
                                        std::to_string(f.epmn) +
                                        ": the third range (external: true) is the top one, "
                                        "[EPMN, N)");
    }
    if (const json *v = o.get("cycle_counter")) {
        Object co(*this, *v, o.sub("cycle_counter"));
        f.cycle_counter = co.boolean("enabled", true);
        f.pmccfiltr = co.bits("filter", filter_bits());
        f.cycle_sample_period = co.integer("sample_period", 0, 0, UINT32_MAX);
    }
    f.pmcr = o.bits("PMCR", pmcr_bits());
    f.irq_latency = o.time("irq_latency", 0);
}

// The scenario's top-level keys, in the order of the format
// (docs/PMVP-SOC.md): each group read by its own function.
Scenario Reader::scenario(const json &root)
{
    Scenario s;
    Object o(*this, root, "");
    s.name = o.str("name", "unnamed");
    s.description = o.str("description", "");
    s.duration = o.time("duration", 0, true);
    if (s.duration == 0)
        fail("duration", "must be longer than 0 ps");
    if (const json *v = o.get("x86")) {
        Object xo(*this, *v, "x86");
        x86(xo, s.x86.emplace(), s.duration);
        return s;
    }
    if (const json *v = o.get("sebep")) {
        Object xo(*this, *v, "sebep");
        sebep(xo, s.sebep.emplace());
        return s;
    }
    s.quantum = o.time("quantum", 1000000);
    if (s.quantum == 0)
        fail("quantum", "must be longer than 0 ps");
    s.system_counter_hz = o.hz("system_counter", 100000000);
    s.bus_hz = o.hz("bus_clock", 500000000);
    if (const json *v = o.get("machine"))
        machine(Object(*this, *v, "machine"), s.machine);
    const json &cl = o.need("clusters");
    if (!cl.is_array() || cl.empty())
        fail("clusters", "expected a non-empty list of clusters");
    s.clusters.resize(cl.size());
    for (size_t i = 0; i < cl.size(); i++) {
        Object co(*this, cl[i], "clusters[" + std::to_string(i) + "]");
        cluster(co, s.clusters[i], s, i);
    }
    // The ISS clusters share one RAM, so one image.
    const Cluster *first_iss = nullptr;
    for (size_t i = 0; i < s.clusters.size(); i++) {
        const Cluster &c = s.clusters[i];
        if (!c.iss())
            continue;
        if (first_iss && c.cpu.firmware != first_iss->cpu.firmware && !c.cpu.firmware.empty() &&
            !first_iss->cpu.firmware.empty())
            fail("clusters[" + std::to_string(i) + "].cpu.firmware",
                 "the ISS clusters share one RAM and so run one image: " + first_iss->cpu.firmware);
        first_iss = first_iss ? first_iss : &c;
    }
    if (const json *v = o.get("firmware")) {
        if (!s.has_analytic())
            fail("firmware", "the firmware agent programs the analytic clusters and this scenario has none: "
                             "its ISS clusters run their image (cpu.firmware)");
        Object fo(*this, *v, "firmware");
        firmware(fo, s.firmware);
        for (size_t i = 0; i < s.clusters.size(); i++)
            if (const BitNeed *n =
                    s.clusters[i].iss() ? nullptr : lacking(s.firmware.pmcr, pmcr_needs(), s.clusters[i].config))
                fail("firmware.PMCR", std::string(n->name) + " needs " + n->needs +
                                          " on every analytic cluster, and "
                                          "clusters[" +
                                          std::to_string(i) + "] has none: the bit would be RES0 there");
    }
    return s;
}

}  // namespace pmvp::soc::reading
