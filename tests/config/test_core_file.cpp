// SPDX-License-Identifier: Apache-2.0
//
// The core description file (config/): every key reads and writes its field
// of pmvp_core_config, the schema and the reader agree, and every refusal
// names the key and the rule.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "pmvp/config/core_file.h"
#include "schema.h"

extern "C" {
#include "pmvp/amu.h"
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/pmu.h"
}

using pmvp::config::CoreDescription;
using json = nlohmann::json;

namespace {

// What the reader refuses `text` with, or "" when it takes it.
std::string refusal(const std::string &text)
{
    try {
        CoreDescription::parse(text, "core.json");
    } catch (const pmvp::config::Error &e) {
        return e.what();
    }
    return "";
}

// A description with every key away from its default (and a valid core).
const char kEverything[] = R"({
  "description": "every key",
  "num_pes": 4, "mt_policy": "fgmt", "num_counters": 31, "pmu_version": "PMUv3p5",
  "feat_pmuv3p7": false, "feat_pmuv3_icntr": false, "feat_pmuv3_extpmn": true, "extpmn_reserved": 2, "feat_mtpmu": false, "feat_hpmn0": false, "feat_debugv8p2": true, "feat_debugv8p4": false,
  "have_el2": true, "have_el3": true, "feat_sel2": true, "feat_rme": true, "have_aarch32": true,
  "el1_aarch32": false, "el2_aarch32": false, "el3_aarch32": false, "feat_fgt": true, "feat_fgt2": true,
  "pmcr_imp": "0x41", "pmcr_idcode": 17, "feat_ebep": true, "feat_sebep": true,
  "sync_events": ["INST_RETIRED", "BR_RETIRED"], "sebep_headroom": 5,
  "sebep_thresholds": [{ "event": "INST_RETIRED", "headroom": "0x100" }],
  "events": ["CPU_CYCLES", "instructions", 17, "0x0008", "SW_INCR", "BR_RETIRED", "0x00C1"],
  "processor_hz": "1500 kHz", "bus_hz": 250000000, "system_counter_hz": "25 MHz",
  "clock_stops_in_wfx": false, "pmccntr_counts_in_wfx": false, "wfx_thread_active": true,
  "cpu_cycles_in_wfx": true, "mtpmu_disable_core_wide": true, "divider_mode": "all_cycles",
  "el3_sdd_undef_priority": true, "counter_access_unpredictable": "undefined",
  "feat_amuv1": true, "feat_amuv1p1": false, "amu_num_aux": 3, "amu_aux_offsets": "0x0000", "amu_aux_programmable": false,
  "amu_aux_event": ["INST_RETIRED", "STALL_BACKEND_MEM"], "amu_always_on": true,
  "pmu_ext_layout": "EXT64", "amu_ext_layout": "EXT64", "feat_dopd": true, "pmu_software_lock": false,
  "pmu_ext_pmswinc": false, "pmiidr": "0x12345678", "amiidr": "0x0000043B", "pmmir": "0x1F",
  "mpidr": "0x0000000081000100",
  "inaccuracy": { "seed": 7, "draw": "bound", "shadow_events": 3, "shadow_time": "2 ns",
                  "boundary_events": 2, "read_delay_cycles": 4, "drop_ppm": 10 }
})";

// The keys of the schema, nested ones as "inaccuracy.seed".
std::set<std::string> schema_keys(const json &props, const std::string &prefix = "")
{
    std::set<std::string> keys;
    for (auto it = props.begin(); it != props.end(); ++it) {
        if (it.value().contains("properties"))
            for (const std::string &k : schema_keys(it.value()["properties"], prefix + it.key() + "."))
                keys.insert(k);
        else
            keys.insert(prefix + it.key());
    }
    return keys;
}

std::set<std::string> written_keys(const nlohmann::ordered_json &j, const std::string &prefix = "")
{
    std::set<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.value().is_object())
            for (const std::string &k : written_keys(it.value(), prefix + it.key() + "."))
                keys.insert(k);
        else
            keys.insert(prefix + it.key());
    }
    return keys;
}

}  // namespace

// Each key of the description sets the field of the same name.
TEST(CoreFile, EveryKeySetsItsField)
{
    const CoreDescription d = CoreDescription::parse(kEverything, "everything");
    const pmvp_core_config &c = d.config();
    EXPECT_EQ(c.num_pes, 4u);
    EXPECT_EQ(c.mt_policy, PMVP_MT_FGMT);
    EXPECT_EQ(c.num_counters, 31u);
    EXPECT_FALSE(c.feat_mtpmu);
    EXPECT_FALSE(c.feat_debugv8p4);
    EXPECT_TRUE(c.feat_rme && c.feat_sel2 && c.feat_fgt && c.feat_fgt2 && c.feat_pmuv3_extpmn);
    EXPECT_EQ(c.extpmn_reserved, 2u);
    EXPECT_EQ(c.pmcr_imp, 0x41);
    EXPECT_EQ(c.pmcr_idcode, 17);
    ASSERT_EQ(c.num_sync_events, 2u);
    EXPECT_EQ(c.sync_events[1], 0x0021 /* BR_RETIRED */);
    EXPECT_EQ(c.sebep_headroom, 5u);
    ASSERT_EQ(c.num_sebep_thresholds, 1u);
    EXPECT_EQ(c.sebep_thresholds[0].headroom, 0x100u);
    ASSERT_EQ(c.num_events, 7u);
    EXPECT_EQ(c.events[1], PMVP_EV_INST_RETIRED);  // perf's name
    EXPECT_EQ(c.events[2], 17);
    EXPECT_EQ(c.events[3], 8);
    EXPECT_EQ(c.processor_hz, 1500000u);
    EXPECT_EQ(c.bus_hz, 250000000u);
    EXPECT_EQ(c.system_counter_hz, 25000000u);
    EXPECT_FALSE(c.clock_stops_in_wfx);
    EXPECT_TRUE(c.cpu_cycles_in_wfx && c.wfx_thread_active && c.mtpmu_disable_core_wide);
    EXPECT_EQ(c.divider_mode, PMVP_DIVIDER_ALL_CYCLES);
    EXPECT_EQ(c.counter_access_unpredictable, PMVP_COUNTER_ACCESS_UNDEFINED);
    EXPECT_EQ(c.amu_num_aux, 3u);
    EXPECT_FALSE(c.amu_aux_programmable);
    EXPECT_EQ(c.amu_aux_event[1], PMVP_EV_STALL_BACKEND_MEM);
    EXPECT_EQ(c.amu_aux_event[2], PMVP_EV_CPU_CYCLES);  // not listed: the default
    EXPECT_EQ(c.pmu_ext_layout, PMVP_EXT64);
    EXPECT_EQ(c.pmiidr, 0x12345678u);
    EXPECT_EQ(c.pmmir, 0x1Fu);
    EXPECT_EQ(c.mpidr, 0x81000100u);
    EXPECT_EQ(c.inaccuracy.draw, PMVP_DRAW_BOUND);
    EXPECT_EQ(c.inaccuracy.shadow_time, 2000u);
    EXPECT_EQ(c.inaccuracy.drop_ppm, 10u);
}

// What to_json writes, parse reads back to the same configuration; and it
// writes every key of the schema, which has no key the reader lacks.
TEST(CoreFile, WhatIsWrittenReadsBackAndTheSchemaHasEveryKey)
{
    for (const std::string &text :
         { std::string(kEverything), std::string("{}"), std::string(R"({"pmu_version": "PMUv3", "num_counters": 0,
                                                     "have_el2": false})") }) {
        CoreDescription d = CoreDescription::parse(text, "written");
        nlohmann::ordered_json once = d.to_json();
        CoreDescription again = CoreDescription::parse(once.dump(), "again");
        EXPECT_EQ(again.to_json(), once) << text;
        EXPECT_EQ(again.id_registers(), d.id_registers()) << text;
        std::set<std::string> schema = schema_keys(CoreDescription::schema()["properties"]);
        std::set<std::string> written = written_keys(once);
        written.insert("description");
        EXPECT_EQ(written, schema);
    }
}

// The identification registers a preset implies hold its TRM's facts.
TEST(CoreFile, PresetsHoldTheirTrmFacts)
{
    ASSERT_EQ(CoreDescription::presets(), (std::vector<std::string>{ "cortex-a53", "cortex-a76" }));
    // PMCR_EL0: IMP [31:24], IDCODE [23:16], N [15:11].
    EXPECT_EQ(CoreDescription::load("cortex-a53").id_registers()["PMCR_EL0"], "0x41033000");
    EXPECT_EQ(CoreDescription::load("cortex-a76").id_registers()["PMCR_EL0"], "0x410B3000");
    const pmvp_core_config a53 = CoreDescription::load("cortex-a53").config();
    EXPECT_EQ(a53.pmu_version, PMVP_PMUV3);
    EXPECT_FALSE(a53.feat_amuv1);
    EXPECT_FALSE(a53.feat_mtpmu);  // the defaults of a PMUv3 core
    EXPECT_FALSE(CoreDescription::load("cortex-a76").id_registers().contains("AMCFGR_EL0"));
    EXPECT_NE(CoreDescription::load("cortex-a53").description().find("ARM DDI 0500D"), std::string::npos);
}

// A key the file leaves out keeps the default of a core of its PMU version.
TEST(CoreFile, LeftOutKeysTakeTheDefaultsOfTheVersion)
{
    const pmvp_core_config v3 = CoreDescription::parse(R"({"pmu_version": "PMUv3"})", "v3").config();
    EXPECT_FALSE(v3.feat_mtpmu || v3.feat_hpmn0 || v3.feat_debugv8p2 || v3.feat_debugv8p4 || v3.feat_amuv1);
    const pmvp_core_config v4 = CoreDescription::parse(R"({"pmu_version": "PMUv3p4"})", "v4").config();
    EXPECT_TRUE(v4.feat_amuv1 && v4.feat_debugv8p4);
    EXPECT_FALSE(v4.feat_amuv1p1 || v4.feat_mtpmu);
    const pmvp_core_config v5 = CoreDescription::parse("{}", "v5").config();
    EXPECT_TRUE(v5.feat_mtpmu && v5.feat_amuv1p1);
}

// Auxiliary activity monitors and their events, as AMEVTYPER1<n> shows them.
TEST(CoreFile, AmuAuxiliaryCountersAndTheirEvents)
{
    CoreDescription d =
        CoreDescription::parse(R"({"amu_num_aux": 2, "amu_aux_event": ["INST_RETIRED", "STALL_BACKEND"]})", "amu");
    pmvp_core core;
    ASSERT_EQ(pmvp_core_init(&core, &d.config()), PMVP_OK);
    uint64_t v = 0;
    ASSERT_EQ(pmvp_amu_peek(&core, 0, PMVP_AMEVTYPER1_EL0, 1, 0, &v), PMVP_OK);
    EXPECT_EQ(v, PMVP_EV_STALL_BACKEND);
    EXPECT_EQ(d.id_registers()["AMCGCR_EL0"], "0x00000204");  // CG1NC 2, CG0NC 4
    EXPECT_EQ(refusal(R"({"amu_num_aux": 1, "amu_aux_event": ["INST_RETIRED", "CPU_CYCLES"]})"),
              "core.json: amu_aux_event: 2 events for amu_num_aux 1 auxiliary counters");
}

// Every refusal names the key and the rule: the schema's, the reader's and
// the kernel's.
TEST(CoreFile, RefusalsNameTheKeyAndTheRule)
{
    EXPECT_EQ(refusal(R"({"num_pe": 2})"), "core.json: num_pe: unknown field");
    EXPECT_EQ(refusal(R"({"num_pes": "2"})"), "core.json: num_pes: expected integer, not string");
    EXPECT_EQ(refusal(R"({"num_pes": 9})"), "core.json: num_pes: 9 is above the maximum 8");
    EXPECT_EQ(refusal(R"({"mt_policy": "SMT"})"),
              "core.json: mt_policy: expected one of \"smt\", \"fgmt\", \"soemt\", not \"SMT\"");
    EXPECT_EQ(refusal(R"({"processor_hz": "2 GHZ"})"),
              "core.json: processor_hz: \"2 GHZ\" is not a frequency in Hz, or a string such as \"2.5 GHz\" (GHz, MHz, "
              "kHz or Hz)");
    // A value nested 100,000 deep under an enum key is named by its kind
    // (its dump recursed as deep and overflowed the stack).
    const std::string deep = "{\"mt_policy\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    EXPECT_EQ(refusal(deep), "core.json: mt_policy: expected one of \"smt\", \"fgmt\", \"soemt\", not an array");
    // A form is said in words, not as the schema's regular expression.
    EXPECT_EQ(refusal(R"({"pmcr_idcode": "0x143"})"),
              "core.json: pmcr_idcode: \"0x143\" is not an integer from 0 to 255, or a hexadecimal string of 1 or 2 "
              "digits such as \"0x2A\"");
    EXPECT_EQ(refusal(R"({"inaccuracy": {"drop_ppm": 20000}})"),
              "core.json: inaccuracy.drop_ppm: 20000 is above the maximum 10000");
    EXPECT_EQ(refusal(R"({"sebep_thresholds": [{"event": 8}]})"), "core.json: sebep_thresholds[0].headroom: missing");
    EXPECT_EQ(refusal(R"({"events": ["CPU_CYCLE"]})"),
              "core.json: events: no event named \"CPU_CYCLE\" in the catalogue (did you mean CPU_CYCLES?)");
    // The kernel's rules, by the field they concern.
    EXPECT_EQ(refusal(R"({"pmu_version": "PMUv3", "pmu_ext_layout": "EXT64"})"),
              "core.json: pmu_ext_layout: EXT64 (FEAT_PMUv3_EXT64, Armv8.8) needs pmu_version PMUv3p5"
              " (pmvp_core_config_limit_to_version() turns off every feature pmu_version lacks)");
    EXPECT_EQ(refusal(R"({"pmu_version": "PMUv3", "feat_mtpmu": true})"),
              "core.json: feat_mtpmu: FEAT_MTPMU (Armv8.6) needs pmu_version PMUv3p5"
              " (pmvp_core_config_limit_to_version() turns off every feature pmu_version lacks)");
    EXPECT_EQ(refusal(R"({"feat_sebep": true})"), "core.json: feat_sebep: FEAT_SEBEP needs feat_ebep");
    EXPECT_EQ(refusal(R"({"pmcr_idcode": "0x2A"})"),
              "core.json: pmcr_idcode: PMCR.IDCODE is RES0 while PMCR.IMP is 0 (set pmcr_imp)");
    EXPECT_EQ(refusal(R"({"feat_pmuv3p7": true, "pmcr_imp": "0x41"})")
                  .rfind("core.json: pmcr_imp, pmcr_idcode: with "
                         "FEAT_PMUv3p7",
                         0),
              0u);
    // Not JSON, a key twice; comments are fine.
    EXPECT_EQ(refusal(R"({"num_pes": 2,})").rfind("core.json: not valid JSON: ", 0), 0u);
    EXPECT_EQ(refusal(R"({"num_pes": 2, "num_pes": 3})"),
              "core.json: \"num_pes\" appears twice in one object: each field is given once");
    EXPECT_EQ(refusal("// a comment\n{ /* and another */ \"num_pes\": 2 }"), "");
    EXPECT_EQ(refusal("[]"), "core.json: expected object, not array");
}

TEST(CoreFile, AFileThatIsNeitherAPresetNorThereIsRefused)
{
    try {
        CoreDescription::load("/nonexistent/core.json");
        FAIL();
    } catch (const pmvp::config::Error &e) {
        EXPECT_STREQ(e.what(), "/nonexistent/core.json: no such file, nor a preset (cortex-a53, cortex-a76)");
    }
}

// A copy owns its lists: the original's end leaves them valid.
TEST(CoreFile, ACopyOwnsItsLists)
{
    auto original = std::make_unique<CoreDescription>(CoreDescription::parse(kEverything, "everything"));
    CoreDescription copy = *original;
    CoreDescription assigned;
    assigned = *original;
    original.reset();
    for (const CoreDescription *d : { &copy, &assigned }) {
        ASSERT_EQ(d->config().num_events, 7u);
        EXPECT_EQ(d->config().events[6], 0x00C1);
        EXPECT_EQ(d->config().sebep_thresholds[0].event, PMVP_EV_INST_RETIRED);
        pmvp_core core;
        EXPECT_EQ(pmvp_core_init(&core, &d->config()), PMVP_OK);
    }
    // An empty list is no event at all, not every event (NULL).
    CoreDescription none = CoreDescription::parse(R"({"events": []})", "none");
    EXPECT_NE(none.config().events, nullptr);
    EXPECT_EQ(none.config().num_events, 0u);
    EXPECT_EQ(none.to_json()["events"], nlohmann::ordered_json::array());
}

// The schema checker checks every rule it is given, and refuses a rule it
// does not know rather than ignore it.
TEST(CoreFile, TheSchemaCheckerRefusesAKeywordItDoesNotCheck)
{
    json schema = { { "type", "object" }, { "propertyNames", { { "pattern", "^a" } } } };
    EXPECT_THROW(pmvp::config::schema_violation(schema, json::object()), std::logic_error);
    json ref = { { "$ref", "#/$defs/none" } };
    EXPECT_THROW(pmvp::config::schema_violation(ref, 1), std::logic_error);
    json items = { { "type", "array" }, { "minItems", 2 }, { "items", { { "type", "integer" } } } };
    EXPECT_EQ(pmvp::config::schema_violation(items, json::array({ 1 })), "expected at least 2 items");
    EXPECT_EQ(pmvp::config::schema_violation(items, json::array({ 1, "x" })), "[1]: expected integer, not string");
    EXPECT_EQ(pmvp::config::schema_violation(items, json::array({ 1, 2 })), "");
}

// docs/CORE.md names every key of the schema, nested ones included.
TEST(CoreFile, TheGuideNamesEveryKey)
{
    std::ifstream f(std::string(PMVP_DOCS) + "/CORE.md");
    std::stringstream text;
    text << f.rdbuf();
    ASSERT_FALSE(text.str().empty());
    for (const std::string &key : schema_keys(CoreDescription::schema()["properties"])) {
        std::string last = key.substr(key.find_last_of('.') + 1);
        EXPECT_NE(text.str().find("`" + last + "`"), std::string::npos) << key;
    }
}
