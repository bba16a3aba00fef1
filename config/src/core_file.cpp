// SPDX-License-Identifier: Apache-2.0
#include "pmvp/config/core_file.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <utility>

#include "embedded.h"  // generated: the presets and the schema (config/CMakeLists.txt)
#include "pmvp/config/json_text.h"
#include "pmvp/config/units.h"
#include "schema.h"

extern "C" {
#include "pmvp/error.h"
#include "pmvp/amu.h"
#include "pmvp/ext.h"
#include "pmvp/pmu.h"
#include "pmvp/sysreg.h"
}

namespace pmvp::config {

using json = nlohmann::json;

// The keys of a description and how each reads and writes its field. A
// value reaching `read` has passed the schema, so only what the schema
// cannot say (an event's name, a frequency's text) is refused there, with
// std::invalid_argument.
struct CoreFields {
    struct Field {
        const char *key;  // "inaccuracy.seed": a member of a nested object
        std::function<void(CoreDescription &, const json &)> read;
        std::function<json(const CoreDescription &)> write;
    };
    static const std::vector<Field> &all();
    static pmvp_core_config &cfg(CoreDescription &d) { return d.cfg_; }
    static const pmvp_core_config &cfg(const CoreDescription &d) { return d.cfg_; }
    static std::vector<uint16_t> &events(CoreDescription &d) { return d.events_; }
    static std::vector<uint16_t> &sync_events(CoreDescription &d) { return d.sync_events_; }
    static std::vector<pmvp_sebep_threshold> &thresholds(CoreDescription &d) { return d.thresholds_; }
};

namespace {

using Field = CoreFields::Field;
using Cfg = pmvp_core_config;

// Where an empty list of events points: not NULL, which means every event.
const uint16_t kNoEvent = 0;

// The JSON pointer of a key: "inaccuracy.seed" is /inaccuracy/seed.
std::string pointer_of(const char *key)
{
    std::string p = std::string("/") + key;
    for (char &c : p)
        c = c == '.' ? '/' : c;
    return p;
}

uint64_t number(const json &v)
{
    return v.is_string() ? std::stoull(v.get<std::string>().substr(2), nullptr, 16) : v.get<uint64_t>();
}

std::string hex(uint64_t value, int digits)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%0*llX", digits, (unsigned long long)value);
    return buf;
}

uint16_t event(const json &v)
{
    return v.is_string() ? event_number(v.get<std::string>()) : (uint16_t)v.get<uint64_t>();
}

json event_list(const uint16_t *events, unsigned n)
{
    if (!events)
        return nullptr;
    json list = json::array();
    for (unsigned i = 0; i < n; i++)
        list.push_back(event_text(events[i]));
    return list;
}

// Each maker below reads and writes one kind of value through an accessor,
// a lambda from a configuration to one of its fields (AT).
template <typename At> Field boolean(const char *key, At at)
{
    return { key, [at](CoreDescription &d, const json &v) { at(CoreFields::cfg(d)) = v.get<bool>(); },
             [at](const CoreDescription &d) { return json(at(CoreFields::cfg(d))); } };
}

template <typename At> Field integer(const char *key, At at)
{
    using T = std::remove_reference_t<decltype(at(std::declval<Cfg &>()))>;  // the field's type
    return { key, [at](CoreDescription &d, const json &v) { at(CoreFields::cfg(d)) = (T)number(v); },
             [at](const CoreDescription &d) { return json((uint64_t)at(CoreFields::cfg(d))); } };
}

// A register value, written in hexadecimal with `digits` digits.
template <typename At> Field hexadecimal(const char *key, int digits, At at)
{
    using T = std::remove_reference_t<decltype(at(std::declval<Cfg &>()))>;  // the field's type
    return { key, [at](CoreDescription &d, const json &v) { at(CoreFields::cfg(d)) = (T)number(v); },
             [at, digits](const CoreDescription &d) { return json(hex((uint64_t)at(CoreFields::cfg(d)), digits)); } };
}

template <typename At> Field frequency(const char *key, At at)
{
    return { key,
             [at](CoreDescription &d, const json &v) {
                 at(CoreFields::cfg(d)) = v.is_string() ? parse_hz(v.get<std::string>()) : v.get<uint64_t>();
             },
             [at](const CoreDescription &d) { return json(hz_exact_text(at(CoreFields::cfg(d)))); } };
}

template <typename At> Field duration(const char *key, At at)
{
    return { key,
             [at](CoreDescription &d, const json &v) {
                 at(CoreFields::cfg(d)) = v.is_string() ? parse_time(v.get<std::string>()) : v.get<uint64_t>();
             },
             [at](const CoreDescription &d) {
                 pmvp_time t = at(CoreFields::cfg(d));
                 std::string text = time_text(t);  // exact, or the number of ps
                 return parse_time(text) == t ? json(text) : json(t);
             } };
}

template <typename E, typename At> Field choice(const char *key, std::vector<std::pair<const char *, E>> names, At at)
{
    return { key,
             [at, names](CoreDescription &d, const json &v) {
                 for (const auto &[n, e] : names)
                     if (v.get<std::string>() == n)
                         at(CoreFields::cfg(d)) = e;
             },
             [at, names](const CoreDescription &d) {
                 for (const auto &[n, e] : names)
                     if (at(CoreFields::cfg(d)) == e)
                         return json(n);
                 return json(nullptr);  // not a value of the enum: the kernel refuses it
             } };
}

// A list of events or null (every event): `list` is the description's
// vector that holds it, `at` the configuration's pointer to it, `count`
// its length (own_arrays() points the pointer at the vector).
template <typename List, typename At, typename Count>
Field events_or_every(const char *key, List list, At at, Count count)
{
    return { key,
             [list, at](CoreDescription &d, const json &v) {
                 std::vector<uint16_t> &held = list(d);
                 held.clear();
                 at(CoreFields::cfg(d)) = nullptr;
                 if (v.is_null())
                     return;
                 for (const json &e : v)
                     held.push_back(event(e));
                 at(CoreFields::cfg(d)) = &kNoEvent;  // a list, maybe empty
             },
             [at, count](const CoreDescription &d) {
                 return event_list(at(CoreFields::cfg(d)), count(CoreFields::cfg(d)));
             } };
}

// A field of a configuration, const or not.
#define AT(member)        \
    [](auto &c) -> auto & \
    {                     \
        return c.member;  \
    }

const std::vector<std::pair<const char *, pmvp_ext_layout>> kLayouts = { { "EXT32", PMVP_EXT32 },
                                                                         { "EXT64", PMVP_EXT64 } };

}  // namespace

const std::vector<Field> &CoreFields::all()
{
    static const std::vector<Field> fields = {
        { "description", [](CoreDescription &d, const json &v) { d.description_ = v.get<std::string>(); },
          [](const CoreDescription &d) { return json(d.description_); } },
        integer("num_pes", AT(num_pes)),
        choice<pmvp_mt_policy>("mt_policy",
                               { { "smt", PMVP_MT_SMT }, { "fgmt", PMVP_MT_FGMT }, { "soemt", PMVP_MT_SOEMT } },
                               AT(mt_policy)),
        integer("num_counters", AT(num_counters)),
        choice<pmvp_pmu_version>("pmu_version",
                                 { { "PMUv3", PMVP_PMUV3 },
                                   { "PMUv3p1", PMVP_PMUV3P1 },
                                   { "PMUv3p4", PMVP_PMUV3P4 },
                                   { "PMUv3p5", PMVP_PMUV3P5 } },
                                 AT(pmu_version)),
        boolean("feat_pmuv3p7", AT(feat_pmuv3p7)),
        boolean("feat_pmuv3_icntr", AT(feat_pmuv3_icntr)),
        boolean("feat_pmuv3p9", AT(feat_pmuv3p9)),
        boolean("feat_pmuv3_ss", AT(feat_pmuv3_ss)),
        boolean("feat_pmuv3_extpmn", AT(feat_pmuv3_extpmn)),
        integer("extpmn_reserved", AT(extpmn_reserved)),
        boolean("ss_capture_in_debug", AT(ss_capture_in_debug)),
        boolean("feat_mtpmu", AT(feat_mtpmu)),
        boolean("feat_hpmn0", AT(feat_hpmn0)),
        boolean("feat_debugv8p2", AT(feat_debugv8p2)),
        boolean("feat_debugv8p4", AT(feat_debugv8p4)),
        boolean("have_el2", AT(have_el2)),
        boolean("have_el3", AT(have_el3)),
        boolean("feat_sel2", AT(feat_sel2)),
        boolean("feat_rme", AT(feat_rme)),
        boolean("have_aarch32", AT(have_aarch32)),
        boolean("el1_aarch32", AT(el1_aarch32)),
        boolean("el2_aarch32", AT(el2_aarch32)),
        boolean("el3_aarch32", AT(el3_aarch32)),
        boolean("feat_fgt", AT(feat_fgt)),
        boolean("feat_fgt2", AT(feat_fgt2)),
        hexadecimal("pmcr_imp", 2, AT(pmcr_imp)),
        hexadecimal("pmcr_idcode", 2, AT(pmcr_idcode)),
        boolean("feat_ebep", AT(feat_ebep)),
        boolean("feat_sebep", AT(feat_sebep)),
        events_or_every(
            "sync_events", [](CoreDescription & d) -> auto & { return sync_events(d); }, AT(sync_events),
            AT(num_sync_events)),
        integer("sebep_headroom", AT(sebep_headroom)),
        { "sebep_thresholds",
          [](CoreDescription &d, const json &v) {
              auto &list = thresholds(d);
              list.clear();
              for (const json &t : v)
                  list.push_back({ event(t["event"]), number(t["headroom"]) });
          },
          [](const CoreDescription &d) {
              json list = json::array();
              for (unsigned i = 0; i < cfg(d).num_sebep_thresholds; i++)
                  list.push_back({ { "event", event_text(cfg(d).sebep_thresholds[i].event) },
                                   { "headroom", cfg(d).sebep_thresholds[i].headroom } });
              return list;
          } },
        events_or_every(
            "events", [](CoreDescription & d) -> auto & { return events(d); }, AT(events), AT(num_events)),
        frequency("processor_hz", AT(processor_hz)),
        frequency("bus_hz", AT(bus_hz)),
        frequency("system_counter_hz", AT(system_counter_hz)),
        boolean("clock_stops_in_wfx", AT(clock_stops_in_wfx)),
        boolean("pmccntr_counts_in_wfx", AT(pmccntr_counts_in_wfx)),
        boolean("wfx_thread_active", AT(wfx_thread_active)),
        boolean("cpu_cycles_in_wfx", AT(cpu_cycles_in_wfx)),
        boolean("mtpmu_disable_core_wide", AT(mtpmu_disable_core_wide)),
        choice<pmvp_divider_mode>(
            "divider_mode",
            { { "counted_cycles", PMVP_DIVIDER_COUNTED_CYCLES }, { "all_cycles", PMVP_DIVIDER_ALL_CYCLES } },
            AT(divider_mode)),
        boolean("el3_sdd_undef_priority", AT(el3_sdd_undef_priority)),
        choice<pmvp_counter_access>(
            "counter_access_unpredictable",
            { { "raz_wi", PMVP_COUNTER_ACCESS_RAZ_WI }, { "undefined", PMVP_COUNTER_ACCESS_UNDEFINED } },
            AT(counter_access_unpredictable)),
        boolean("feat_amuv1", AT(feat_amuv1)),
        boolean("feat_amuv1p1", AT(feat_amuv1p1)),
        integer("amu_num_aux", AT(amu_num_aux)),
        hexadecimal("amu_aux_offsets", 4, AT(amu_aux_offsets)),
        boolean("amu_aux_programmable", AT(amu_aux_programmable)),
        { "amu_aux_event",
          [](CoreDescription &d, const json &v) {
              for (size_t n = 0; n < v.size(); n++)
                  cfg(d).amu_aux_event[n] = event(v[n]);
          },
          [](const CoreDescription &d) {
              json list = json::array();
              for (unsigned n = 0; n < cfg(d).amu_num_aux && n < PMVP_AMU_MAX_AUX; n++)
                  list.push_back(event_text(cfg(d).amu_aux_event[n]));
              return list;
          } },
        boolean("amu_always_on", AT(amu_always_on)),
        choice<pmvp_ext_layout>("pmu_ext_layout", kLayouts, AT(pmu_ext_layout)),
        choice<pmvp_ext_layout>("amu_ext_layout", kLayouts, AT(amu_ext_layout)),
        boolean("feat_dopd", AT(feat_dopd)),
        boolean("pmu_software_lock", AT(pmu_software_lock)),
        boolean("pmu_ext_pmswinc", AT(pmu_ext_pmswinc)),
        hexadecimal("pmiidr", 8, AT(pmiidr)),
        hexadecimal("amiidr", 8, AT(amiidr)),
        hexadecimal("pmmir", 16, AT(pmmir)),
        hexadecimal("mpidr", 16, AT(mpidr)),
        integer("inaccuracy.seed", AT(inaccuracy.seed)),
        choice<pmvp_inaccuracy_draw>(
            "inaccuracy.draw", { { "seeded", PMVP_DRAW_SEEDED }, { "bound", PMVP_DRAW_BOUND } }, AT(inaccuracy.draw)),
        integer("inaccuracy.shadow_events", AT(inaccuracy.shadow_events)),
        duration("inaccuracy.shadow_time", AT(inaccuracy.shadow_time)),
        integer("inaccuracy.boundary_events", AT(inaccuracy.boundary_events)),
        integer("inaccuracy.read_delay_cycles", AT(inaccuracy.read_delay_cycles)),
        integer("inaccuracy.drop_ppm", AT(inaccuracy.drop_ppm)),
    };
    return fields;
}

#undef AT

// ------------------------------------------------------------ the object

CoreDescription::CoreDescription()
{
    pmvp_core_config_default(&cfg_);
}

CoreDescription::CoreDescription(const pmvp_core_config &cfg) : cfg_(cfg)
{
    if (cfg.events)
        events_.assign(cfg.events, cfg.events + cfg.num_events);
    if (cfg.sync_events)
        sync_events_.assign(cfg.sync_events, cfg.sync_events + cfg.num_sync_events);
    if (cfg.sebep_thresholds)
        thresholds_.assign(cfg.sebep_thresholds, cfg.sebep_thresholds + cfg.num_sebep_thresholds);
    own_arrays();
}

CoreDescription::CoreDescription(const CoreDescription &other)
    : cfg_(other.cfg_), description_(other.description_), events_(other.events_), sync_events_(other.sync_events_),
      thresholds_(other.thresholds_)
{
    own_arrays();
}

CoreDescription &CoreDescription::operator=(const CoreDescription &other)
{
    cfg_ = other.cfg_;
    description_ = other.description_;
    events_ = other.events_;
    sync_events_ = other.sync_events_;
    thresholds_ = other.thresholds_;
    own_arrays();
    return *this;
}

// The configuration's pointers to this object's lists. A NULL list (every
// event) stays NULL; an empty one is not NULL (no event).
void CoreDescription::own_arrays()
{
    if (cfg_.events) {
        cfg_.events = events_.empty() ? &kNoEvent : events_.data();
        cfg_.num_events = (unsigned)events_.size();
    }
    if (cfg_.sync_events) {
        cfg_.sync_events = sync_events_.empty() ? &kNoEvent : sync_events_.data();
        cfg_.num_sync_events = (unsigned)sync_events_.size();
    }
    cfg_.sebep_thresholds = thresholds_.empty() ? nullptr : thresholds_.data();
    cfg_.num_sebep_thresholds = (unsigned)thresholds_.size();
}

// A feature turned off takes with it the features that need it, unless the
// description names them too (which the kernel then refuses, naming both):
// "feat_amuv1": false alone is a core without an AMU.
void CoreDescription::drop_dependents(const json &j)
{
    const std::pair<bool pmvp_core_config::*, std::pair<const char *, bool pmvp_core_config::*>> needs[] = {
        { &pmvp_core_config::feat_amuv1, { "feat_amuv1p1", &pmvp_core_config::feat_amuv1p1 } },
        { &pmvp_core_config::feat_fgt, { "feat_fgt2", &pmvp_core_config::feat_fgt2 } },
        { &pmvp_core_config::feat_ebep, { "feat_sebep", &pmvp_core_config::feat_sebep } },
    };
    for (const auto &[feature, dependent] : needs)
        if (!(cfg_.*feature) && !j.contains(dependent.first))
            cfg_.*dependent.second = false;
}

CoreDescription CoreDescription::from_json(const json &j, const std::string &source)
{
    std::string why = schema_violation(schema(), j);
    if (!why.empty())
        throw Error(source + ": " + why);
    CoreDescription d;
    // The version first: what the other keys leave out is the default of a
    // core of that version.
    if (j.contains("pmu_version")) {
        for (const Field &f : CoreFields::all())
            if (std::string(f.key) == "pmu_version")
                f.read(d, j["pmu_version"]);
        pmvp_core_config_limit_to_version(&d.cfg_);
    }
    for (const Field &f : CoreFields::all()) {
        json::json_pointer ptr(pointer_of(f.key));
        if (!j.contains(ptr))
            continue;
        try {
            f.read(d, j[ptr]);
        } catch (const std::invalid_argument &e) {
            throw Error(source + ": " + f.key + ": " + e.what());
        }
    }
    d.drop_dependents(j);
    d.own_arrays();
    if (j.contains("amu_aux_event") && j["amu_aux_event"].size() > d.cfg_.amu_num_aux)
        throw Error(source + ": amu_aux_event: " + std::to_string(j["amu_aux_event"].size()) +
                    " events for amu_num_aux " + std::to_string(d.cfg_.amu_num_aux) + " auxiliary counters");
    pmvp_core probe;
    const char *refusal = nullptr;
    if (int err = pmvp_core_init_why(&probe, &d.cfg_, &refusal))
        throw Error(source + ": " + (refusal ? refusal : pmvp_strerror(err)));
    return d;
}

CoreDescription CoreDescription::parse(const std::string &text, const std::string &source)
{
    json j;
    try {
        j = parse_json_text(text);
    } catch (const std::invalid_argument &e) {
        throw Error(source + ": " + e.what());
    } catch (const json::exception &e) {
        throw Error(source + ": not valid JSON: " + e.what());
    }
    return from_json(j, source);
}

// The text of a preset or a file, and the name a refusal gives it.
static std::pair<std::string, std::string> description_text(const std::string &preset_or_path)
{
    std::string text = CoreDescription::preset_text(preset_or_path);
    if (!text.empty())
        return { text, "preset " + preset_or_path };
    std::ifstream in(preset_or_path);
    if (!in) {
        std::string known;
        for (const std::string &p : CoreDescription::presets())
            known += (known.empty() ? "" : ", ") + p;
        throw Error(preset_or_path + ": no such file, nor a preset (" + known + ")");
    }
    std::stringstream buf;
    buf << in.rdbuf();
    return { buf.str(), preset_or_path };
}

CoreDescription CoreDescription::load(const std::string &preset_or_path)
{
    auto [text, source] = description_text(preset_or_path);
    return parse(text, source);
}

json CoreDescription::load_json(const std::string &preset_or_path)
{
    auto [text, source] = description_text(preset_or_path);
    try {
        return parse_json_text(text);
    } catch (const std::invalid_argument &e) {
        throw Error(source + ": " + e.what());
    } catch (const json::exception &e) {
        throw Error(source + ": not valid JSON: " + e.what());
    }
}

nlohmann::ordered_json CoreDescription::to_json() const
{
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const Field &f : CoreFields::all()) {
        json v = f.write(*this);
        if (std::string(f.key) == "description" && v.get<std::string>().empty())
            continue;
        j[nlohmann::ordered_json::json_pointer(pointer_of(f.key))] = v;
    }
    return j;
}

nlohmann::ordered_json CoreDescription::id_registers() const
{
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    pmvp_core core;
    if (pmvp_core_init(&core, &cfg_) != PMVP_OK)
        return out;
    // The System registers as a PE reads them, then what only the external
    // frames show.
    static const std::pair<pmvp_pmu_reg, const char *> pmu[] = {
        { PMVP_PMCR_EL0, "PMCR_EL0" },
        { PMVP_PMCEID0_EL0, "PMCEID0_EL0" },
        { PMVP_PMCEID1_EL0, "PMCEID1_EL0" },
        { PMVP_PMMIR_EL1, "PMMIR_EL1" },
    };
    for (const auto &[reg, name] : pmu) {
        uint64_t value = 0;
        if (pmvp_pmu_peek(&core, 0, reg, 0, 0, &value) == PMVP_OK)
            out[name] = hex(value, reg == PMVP_PMCR_EL0 ? 8 : 16);
    }
    static const std::pair<pmvp_amu_reg, const char *> amu[] = {
        { PMVP_AMCFGR_EL0, "AMCFGR_EL0" },
        { PMVP_AMCGCR_EL0, "AMCGCR_EL0" },
        { PMVP_AMCG1IDR_EL0, "AMCG1IDR_EL0" },
    };
    for (const auto &[reg, name] : amu) {
        uint64_t value = 0;
        if (cfg_.feat_amuv1 && pmvp_amu_peek(&core, 0, reg, 0, 0, &value) == PMVP_OK)
            out[name] = hex(value, 8);
    }
    static const std::pair<pmvp_frame, const char *> external[] = {
        { PMVP_FRAME_PMU, "PMCFGR" }, { PMVP_FRAME_PMU, "PMIIDR" },    { PMVP_FRAME_PMU, "PMDEVARCH" },
        { PMVP_FRAME_AMU, "AMIIDR" }, { PMVP_FRAME_AMU, "AMDEVARCH" },
    };
    for (const auto &[frame, name] : external) {
        uint32_t offset = 0;
        uint64_t value = 0;
        if ((frame == PMVP_FRAME_PMU || cfg_.feat_amuv1) && pmvp_ext_find(&core, frame, name, 0, &offset) == PMVP_OK &&
            pmvp_ext_debug_read(&core, 0, frame, offset, 4, 0, &value) == PMVP_OK)
            out[name] = hex(value, 8);
    }
    static const std::pair<const char *, unsigned> id[] = {
        // name, CRm << 3 | op2 (op0 3, op1 0, CRn 0)
        { "ID_AA64DFR0_EL1", 5 << 3 | 0 }, { "ID_AA64DFR1_EL1", 5 << 3 | 1 }, { "ID_AA64PFR0_EL1", 4 << 3 | 0 },
        { "ID_DFR0_EL1", 1 << 3 | 2 },     { "ID_DFR1_EL1", 3 << 3 | 5 },     { "ID_PFR0_EL1", 1 << 3 | 0 },
    };
    for (const auto &[name, enc] : id) {
        uint64_t fields = 0, mask = 0;
        if (pmvp_id_fields_a64(&cfg_, 3, 0, 0, enc >> 3, enc & 7, &fields, &mask) == PMVP_OK)
            out[name] = { { "fields", hex(fields, 16) }, { "mask", hex(mask, 16) } };
    }
    return out;
}

std::vector<std::string> CoreDescription::presets()
{
    std::vector<std::string> names;
    for (const auto &[name, text] : embedded_presets())
        names.push_back(name);
    return names;
}

std::string CoreDescription::preset_text(const std::string &name)
{
    for (const auto &[n, text] : embedded_presets())
        if (n == name)
            return text;
    return "";
}

const json &CoreDescription::schema()
{
    static const json s = json::parse(embedded_schema());
    return s;
}

}  // namespace pmvp::config
