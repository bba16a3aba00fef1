// SPDX-License-Identifier: Apache-2.0
//
// A core description: every field of pmvp_core_config (model/include/pmvp/
// core.h) by its name, read from and written as JSON. The format is
// config/core.schema.json, which the reader checks every file against;
// docs/CORE.md lists the keys with their rules. Comments (// and /* */) are
// allowed, a key given twice is refused, and a key left out keeps pmvp's
// default for the PMU version the file gives (pmvp_core_config_limit_to_version).
//
//   pmvp::config::CoreDescription a53 = pmvp::config::CoreDescription::load("cortex-a53");
//   pmvp::sc::Monitors monitors("monitors", a53.config());
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern "C" {
#include "pmvp/core.h"
}

namespace pmvp::config {

// A refused description: what() is "<source>: <key>: <reason>", the key as
// a path ("inaccuracy.drop_ppm", "events[2]") or empty for the whole file.
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class CoreDescription {
public:
    // pmvp_core_config_default().
    CoreDescription();
    // A copy of `cfg` and of the arrays it points to (events, sync_events,
    // sebep_thresholds); log and log_user are kept as they are.
    explicit CoreDescription(const pmvp_core_config &cfg);
    CoreDescription(const CoreDescription &other);
    CoreDescription &operator=(const CoreDescription &other);

    // A preset by name (presets()), else a file. Refused when the file cannot
    // be read, is not JSON, breaks the schema, or describes a core the kernel
    // refuses (pmvp_core_init_why: the field and the rule).
    static CoreDescription load(const std::string &preset_or_path);
    // The JSON text of a description; `source` names it in refusals.
    static CoreDescription parse(const std::string &text, const std::string &source);
    // A description already parsed (a scenario's inline "core" object).
    static CoreDescription from_json(const nlohmann::json &j, const std::string &source);
    // The JSON of a preset or a file, not yet read as a description: a
    // scenario lays a cluster's keys over it before from_json. Refused as
    // load() refuses what cannot be read or is not JSON.
    static nlohmann::json load_json(const std::string &preset_or_path);

    // The configuration: its pointers point into this object, so it is
    // valid while this object lives (a copy of the object has its own).
    const pmvp_core_config &config() const { return cfg_; }
    // The file's "description" (what the core is, the sources of its facts).
    const std::string &description() const { return description_; }

    // Every key with its effective value, in the schema's order; parse()
    // reads it back to the same configuration.
    nlohmann::ordered_json to_json() const;

    // The identification registers this configuration implies, as PE 0 of
    // a core at reset shows them: PMCR_EL0, PMCEID0_EL0, PMCEID1_EL0,
    // PMMIR_EL1, AMCFGR_EL0, AMCGCR_EL0, AMCG1IDR_EL0 as System registers;
    // PMCFGR, PMIIDR, PMDEVARCH, AMIIDR, AMDEVARCH as the external frames
    // show them (each when implemented); and the fields pmvp decides of
    // ID_AA64DFR0_EL1, ID_AA64DFR1_EL1, ID_AA64PFR0_EL1, ID_DFR0_EL1,
    // ID_DFR1_EL1 and ID_PFR0_EL1 (their value and mask). Hexadecimal strings.
    nlohmann::ordered_json id_registers() const;

    static std::vector<std::string> presets();
    // The source text of a preset, or "" for an unknown name.
    static std::string preset_text(const std::string &name);
    // config/core.schema.json, as this build was made with it.
    static const nlohmann::json &schema();

private:
    friend struct CoreFields;  // the keys' readers and writers (core_file.cpp)
    void own_arrays();
    void drop_dependents(const nlohmann::json &j);
    pmvp_core_config cfg_;
    std::string description_;
    std::vector<uint16_t> events_, sync_events_;
    std::vector<pmvp_sebep_threshold> thresholds_;
};

}  // namespace pmvp::config
