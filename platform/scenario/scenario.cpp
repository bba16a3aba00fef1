// SPDX-License-Identifier: Apache-2.0
//
// Scenarios: the types' own functions, and parse_scenario (the reader in
// scenario_reader.cpp, the overrides in scenario_overrides.cpp).
#include "scenario.h"
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

using json = nlohmann::json;

const char *mt_policy_name(pmvp_mt_policy p)
{
    switch (p) {
    case PMVP_MT_SMT: return "smt";
    case PMVP_MT_FGMT: return "fgmt";
    case PMVP_MT_SOEMT: return "soemt";
    }
    return "?";
}

int parse_mt_policy(const std::string &text)
{
    for (pmvp_mt_policy p : { PMVP_MT_SMT, PMVP_MT_FGMT, PMVP_MT_SOEMT })
        if (text == mt_policy_name(p))
            return p;
    return -1;
}

int parse_machine(const std::string &text)
{
    return text == "pmvp" ? Machine::PMVP : text == "virt" ? Machine::VIRT : -1;
}

uint64_t Machine::ram() const
{
    return kind == PMVP ? kRamSize : memory ? memory : kVirtRamSize;
}

uint64_t parse_memory(const std::string &text)
{
    const char *expected = "expected a RAM size from 16 MiB to 4 GiB in MiB, such as 256M or \"1 GiB\"";
    char *end = nullptr;
    errno = 0;
    unsigned long long n = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || !std::isdigit((unsigned char)text[0]) || errno)
        throw std::invalid_argument(expected);
    std::string unit = end;
    unit.erase(0, unit.find_first_not_of(' '));
    static const std::pair<const char *, unsigned> kUnits[] = {
        { "", 20 },    { "M", 20 },  { "MiB", 20 }, { "MB", 20 },  { "G", 30 },
        { "GiB", 30 }, { "GB", 30 }, { "K", 10 },   { "KiB", 10 }, { "KB", 10 },
    };
    for (const auto &[name, shift] : kUnits)
        if (unit == name) {
            if (n > (4ull << 30) >> shift || (n << shift) < (16u << 20) || (n << shift) % 4096)
                throw std::invalid_argument(std::string(expected) + " (a whole number of 4 KiB pages)");
            return n << shift;
        }
    throw std::invalid_argument(expected);
}

// The built-in scenario of `pmvp-soc --machine virt --kernel IMAGE`.
const char *const kVirtScenario = R"({
  "name": "virt",
  "description": "QEMU's virt board on the AArch64 ISS: one core at 1 GHz, one instruction per cycle, whose clock runs in WFI as QEMU's does, booting the image --kernel names",
  "duration": "10 s",
  "quantum": "10 us",
  "machine": { "type": "virt" },
  "clusters": [
    {
      "name": "cpu",
      "cores": 1,
      "processor_hz": "1 GHz",
      "cpu": { "model": "iss" },
      "clock_stops_in_wfx": false, "wfx_thread_active": true, "cpu_cycles_in_wfx": true
    }
  ]
})";

const DvfsStep *Cluster::next_step(pmvp_time t) const
{
    auto it = std::upper_bound(dvfs.begin(), dvfs.end(), t, [](pmvp_time x, const DvfsStep &d) { return x < d.at; });
    return it == dvfs.end() ? nullptr : &*it;
}

uint64_t Cluster::hz_at(pmvp_time t) const
{
    const DvfsStep *next = next_step(t);
    const size_t before = next ? (size_t)(next - dvfs.data()) : dvfs.size();  // the steps at or before t
    return before ? dvfs[before - 1].hz : config.processor_hz;
}

unsigned Scenario::num_cores() const
{
    unsigned n = 0;
    for (const Cluster &c : clusters)
        n += c.cores;
    return n;
}

bool Scenario::has_iss() const
{
    return std::any_of(clusters.begin(), clusters.end(), [](const Cluster &c) { return c.iss(); });
}

bool Scenario::has_analytic() const
{
    return std::any_of(clusters.begin(), clusters.end(), [](const Cluster &c) { return !c.iss(); });
}

unsigned Scenario::num_pes() const
{
    unsigned n = 0;
    for (const Cluster &c : clusters)
        n += c.cores * c.config.num_pes;
    return n;
}

namespace reading {

// Why the kernel refuses a core's configuration (the field of
// pmvp_core_config and the rule), or "" when it takes it.
std::string core_refusal(const pmvp_core_config &cfg)
{
    pmvp_core probe;
    const char *why = nullptr;
    int err = pmvp_core_init_why(&probe, &cfg, &why);
    return err == PMVP_OK ? std::string() : why ? std::string(why) : std::string(pmvp_strerror(err));
}

}  // namespace reading

namespace {


// Where a number JSON cannot hold (1e400) stands: nlohmann names the number,
// not its place, so the text is searched for it and the key before it.
std::string place_of_number(const std::string &text, const std::string &what)
{
    size_t a = what.find('\''), b = a == std::string::npos ? a : what.find('\'', a + 1);
    if (b == std::string::npos)
        return "";
    std::string number = what.substr(a + 1, b - a - 1);
    size_t at = text.find(number);
    if (number.empty() || at == std::string::npos)
        return "";
    std::string place = "line " + std::to_string(1 + std::count(text.begin(), text.begin() + (long)at, '\n'));
    size_t colon = text.rfind(':', at), quote = colon == std::string::npos ? colon : text.rfind('"', colon);
    size_t open = quote == std::string::npos || quote == 0 ? std::string::npos : text.rfind('"', quote - 1);
    if (open != std::string::npos)
        place = "field \"" + text.substr(open + 1, quote - open - 1) + "\", " + place;
    return " (" + place + ")";
}

}  // namespace

Scenario parse_scenario(const std::string &text, const std::string &source)
{
    json root;
    try {
        root = config::parse_json_text(text);
    } catch (const std::invalid_argument &e) {  // a key given twice
        throw ScenarioError(source + ": " + e.what());
    } catch (const json::out_of_range &e) {  // a number out of range, such as 1e400
        throw ScenarioError(source + ": not valid JSON: " + e.what() + place_of_number(text, e.what()));
    } catch (const json::exception &e) {
        throw ScenarioError(source + ": not valid JSON: " + e.what());
    }
    Scenario s;
    try {
        s = reading::Reader(source).scenario(root);
    } catch (const json::exception &e) {  // the reader checks types first: this is a last resort
        throw ScenarioError(source + ": " + e.what());
    }
    try {
        apply_overrides(s, Overrides{});
    } catch (const ScenarioError &e) {
        throw ScenarioError(source + ": " + e.what());
    }
    return s;
}

}  // namespace pmvp::soc
