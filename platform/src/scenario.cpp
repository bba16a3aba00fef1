// SPDX-License-Identifier: Apache-2.0
#include "scenario.h"

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
// Why the kernel refuses a core's configuration (the field of
// pmvp_core_config and the rule), or "" when it takes it.
std::string core_refusal(const pmvp_core_config &cfg)
{
    pmvp_core probe;
    const char *why = nullptr;
    int err = pmvp_core_init_why(&probe, &cfg, &why);
    return err == PMVP_OK ? std::string() : why ? std::string(why) : std::string(pmvp_strerror(err));
}
}  // namespace

unsigned Scenario::num_pes() const
{
    unsigned n = 0;
    for (const Cluster &c : clusters)
        n += c.cores * c.config.num_pes;
    return n;
}

// ---------------------------------------------------------------- reader

namespace {

// Named bits of a register, as a scenario lists them ("filter": ["P", "U"]).
using BitNames = std::vector<std::pair<const char *, uint64_t>>;

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

class Reader {
public:
    explicit Reader(std::string source) : source_(std::move(source)) {}
    // A firmware image named in the scenario: an absolute path as it is; a
    // relative one in the scenario's directory, else among the images this
    // build made (PMVP_FIRMWARE_DIR). The loader reports what is wrong with it.
    std::string find_firmware(const std::string &name) const
    {
        if (name.empty() || name[0] == '/')
            return name;
        std::string dir = source_.substr(0, source_.find_last_of('/') + 1);
        if (std::ifstream(dir + name).good())
            return dir + name;
        std::string built = std::string(PMVP_FIRMWARE_DIR) + "/" + name;
        return std::ifstream(built).good() ? built : dir + name;
    }

    // A core description named in the scenario: a preset by its name, else
    // a file, relative to the scenario's directory unless absolute.
    std::string find_core(const std::string &name) const
    {
        if (!config::CoreDescription::preset_text(name).empty() || name.empty() || name[0] == '/')
            return name;
        return source_.substr(0, source_.find_last_of('/') + 1) + name;
    }

    [[noreturn]] void fail(const std::string &path, const std::string &why) const
    {
        throw ScenarioError(source_ + ": " + (path.empty() ? "" : path + ": ") + why);
    }

    // A JSON object whose keys must all be among those read from it.
    class Object {
    public:
        Object(const Reader &r, const json &j, std::string path) : r_(r), j_(j), path_(std::move(path))
        {
            if (!j.is_object())
                r_.fail(path_, "expected an object");
        }
        ~Object() noexcept(false)
        {
            if (std::uncaught_exceptions())
                return;
            for (auto it = j_.begin(); it != j_.end(); ++it)
                if (!used_.count(it.key()))
                    r_.fail(sub(it.key()), "unknown field" + nearest_known(it.key()));
        }
        // " (did you mean K?)" for the known key K nearest to `key` (the keys
        // this object was asked for), when at most a third of it differs.
        std::string nearest_known(const std::string &key) const
        {
            std::string nearest;
            size_t best = SIZE_MAX;
            for (const std::string &known : used_)
                if (size_t d = config::edit_distance(key, known); d < best) {
                    best = d;
                    nearest = known;
                }
            return best <= key.size() / 3 ? " (did you mean " + nearest + "?)" : "";
        }
        std::string sub(const std::string &key) const { return path_.empty() ? key : path_ + "." + key; }
        const json *get(const std::string &key)
        {
            used_.insert(key);
            auto it = j_.find(key);
            return it == j_.end() ? nullptr : &*it;
        }
        bool has(const std::string &key) const { return j_.contains(key); }
        const json &need(const std::string &key)
        {
            const json *v = get(key);
            if (!v)
                r_.fail(sub(key), "missing");
            return *v;
        }
        std::string str(const std::string &key, const std::string &dflt)
        {
            const json *v = get(key);
            if (!v)
                return dflt;
            if (!v->is_string())
                r_.fail(sub(key), "expected a string");
            return v->get<std::string>();
        }
        bool boolean(const std::string &key, bool dflt)
        {
            const json *v = get(key);
            if (!v)
                return dflt;
            if (!v->is_boolean())
                r_.fail(sub(key), "expected true or false");
            return v->get<bool>();
        }
        uint64_t integer(const std::string &key, uint64_t dflt, uint64_t lo, uint64_t hi)
        {
            const json *v = get(key);
            if (!v)
                return dflt;
            if (!v->is_number_unsigned() || v->get<uint64_t>() < lo || v->get<uint64_t>() > hi)
                r_.fail(sub(key), "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
            return v->get<uint64_t>();
        }
        double real(const std::string &key, double dflt, double lo, double hi)
        {
            const json *v = get(key);
            if (!v)
                return dflt;
            if (!v->is_number() || !(v->get<double>() >= lo && v->get<double>() <= hi))
                r_.fail(sub(key), "expected a number from " + num(lo) + " to " + num(hi));
            return v->get<double>();
        }
        pmvp_time time(const std::string &key, pmvp_time dflt, bool required = false)
        {
            return r_.quantity<pmvp_time>(*this, key, dflt, required, parse_time, "a time such as \"1.5 us\"");
        }
        uint64_t hz(const std::string &key, uint64_t dflt, bool required = false)
        {
            return r_.quantity<uint64_t>(*this, key, dflt, required, parse_hz, "a frequency such as \"2 GHz\"");
        }
        uint64_t bits(const std::string &key, const BitNames &names)
        {
            const json *v = get(key);
            uint64_t value = 0;
            if (!v)
                return 0;
            if (!v->is_array())
                r_.fail(sub(key), "expected a list of field names");
            for (size_t i = 0; i < v->size(); i++) {
                const json &e = (*v)[i];
                std::string path = sub(key) + "[" + std::to_string(i) + "]";
                uint64_t bit = 0;
                std::string known;
                for (const auto &[n, b] : names) {
                    if (e.is_string() && e.get<std::string>() == n)
                        bit = b;
                    known += std::string(known.empty() ? "" : ", ") + n;
                }
                if (!bit)
                    r_.fail(path, "expected one of " + known);
                value |= bit;
            }
            return value;
        }
        const std::string &path() const { return path_; }

    private:
        static std::string num(double d)
        {
            std::string s = std::to_string(d);
            s.erase(s.find_last_not_of('0') + 1);
            if (s.back() == '.')
                s.pop_back();
            return s;
        }
        const Reader &r_;
        const json &j_;
        std::string path_;
        std::set<std::string> used_;
    };

    template <typename T> T quantity(Object &o, const std::string &key, T dflt, bool required,
                                     T (*parse)(const std::string &), const char *example) const
    {
        const json *v = required ? &o.need(key) : o.get(key);
        if (!v)
            return dflt;
        if (!v->is_string())
            fail(o.sub(key), std::string("expected ") + example);
        try {
            return parse(v->get<std::string>());
        } catch (const std::invalid_argument &e) {
            fail(o.sub(key), e.what());
        }
    }

    Scenario scenario(const json &root);

private:
    void cluster(Object &o, Cluster &c, const Scenario &s, size_t index);
    void refuse_old_keys(const Object &o) const;
    json::object_t core_keys(Object &o) const;
    void core(Object &o, Cluster &c, const Scenario &s);
    void clocks(Object &o, Cluster &c);
    void refuse_core(Object &o, const pmvp_core_config &cfg, const std::string &what);
    void controls(Object &o, Cluster &c);
    bool iss_cpu(Object &o, Cluster &c, const json::object_t &given);
    void workloads(Object &o, Cluster &c);
    void workload(Object &o, Workload &w, const pmvp_core_config &cfg);
    void phase(Object &o, Phase &p, const pmvp_core_config &cfg, pmvp_core *probe);
    void firmware(Object &o, FirmwareSetup &f);
    void machine(Object &&o, Machine &m);
    void x86(Object &o, X86Setup &x, pmvp_time duration);
    void x86_phase(Object &o, X86Phase &p);
    void sebep(Object &o, SebepSetup &x);
    uint16_t event(Object &o, const std::string &key) const;

    std::string source_;
};

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

void Reader::x86_phase(Object &o, X86Phase &p)
{
    static const char *const kKinds[] = { "run", "hlt", "mwait" };
    int kinds = 0;
    for (int k = 0; k < 3; k++) {
        if (o.has(kKinds[k])) {
            p.kind = (X86Phase::Kind)k;
            p.duration = o.time(kKinds[k], 0);
            kinds++;
        }
    }
    if (kinds != 1)
        fail(o.path(), "expected exactly one of run, hlt or mwait");
    if (p.kind == X86Phase::RUN) {
        p.ipc_milli = (uint64_t)std::llround(o.real("ipc", 1.0, 0, 8) * 1000);
        p.cpl = (uint8_t)o.integer("cpl", 0, 0, 3);
    }
}

void Reader::x86(Object &o, X86Setup &x, pmvp_time duration)
{
    pmvp_x86_config_default(&x.config);
    x.config.core_hz = o.hz("frequency", x.config.core_hz);
    x.config.tsc_hz = o.hz("tsc", x.config.tsc_hz);
    x.config.xclk_hz = o.hz("xclk", x.config.xclk_hz);
    x.config.tsc_invariant = o.boolean("tsc_invariant", true);
    std::string mode = o.str("cpl_qualification", "per-thread");
    if (mode == "t0-t1")
        x.config.cpl_mode = PMVP_X86_CPL_T0_T1;
    else if (mode != "per-thread")
        fail(o.sub("cpl_qualification"), "expected per-thread or t0-t1");
    if (const json *v = o.get("pstates")) {
        if (!v->is_array())
            fail(o.sub("pstates"), "expected a list of {at, frequency}");
        for (size_t i = 0; i < v->size(); i++) {
            Object po(*this, (*v)[i], o.sub("pstates") + "[" + std::to_string(i) + "]");
            DvfsStep d{ po.time("at", 0, true), po.hz("frequency", 0, true) };
            if (d.at >= duration || (!x.pstates.empty() && d.at <= x.pstates.back().at))
                fail(po.sub("at"), "steps must be in increasing time, within the duration");
            x.pstates.push_back(d);
        }
    }
    const json &th = o.need("threads");
    if (!th.is_array() || th.empty() || th.size() > PMVP_X86_MAX_THREADS)
        fail(o.sub("threads"), "expected a list of 1 or 2 logical processors");
    x.config.num_threads = (unsigned)th.size();
    for (size_t t = 0; t < th.size(); t++) {
        Object to(*this, th[t], o.sub("threads") + "[" + std::to_string(t) + "]");
        const json &ph = to.need("phases");
        if (!ph.is_array())
            fail(to.sub("phases"), "expected a list of phases");
        x.threads.emplace_back(ph.size());
        for (size_t i = 0; i < ph.size(); i++) {
            Object po(*this, ph[i], to.sub("phases") + "[" + std::to_string(i) + "]");
            x86_phase(po, x.threads.back()[i]);
        }
    }
}

void Reader::sebep(Object &o, SebepSetup &x)
{
    x.hz = o.hz("frequency", x.hz);
    x.instruction_time = o.time("instruction_time", x.instruction_time);
    if (x.instruction_time == 0)
        fail(o.sub("instruction_time"), "must be longer than 0 ps");
    if (o.has("event"))
        x.event = event(o, "event");
    if (pmvp_event_sync_kind(x.event) == PMVP_SYNC_NONE || pmvp_event_exceptional(x.event))
        fail(o.sub("event"), "expected an event D14.7 lists as synchronous");
    // The platform's CPU retires instructions and reports the event with
    // each (pmvp_core_retire): SW_INCR, the one synchronous event that is no
    // occurrence, counts only writes to PMSWINC_EL0, which it does not make.
    const pmvp_event_info *info = pmvp_event_find(x.event);
    if (!info || info->cls != PMVP_EVCLASS_OCCURRENCE)
        fail(o.sub("event"), "expected an event that instructions cause as they retire (SW_INCR counts writes to "
                             "PMSWINC_EL0, which this platform's CPU does not make)");
    std::string counter = o.str("counter", "event");
    if (counter == "instruction")
        x.instruction_counter = true;
    else if (counter != "event")
        fail(o.sub("counter"), "expected event (event counter 0) or instruction (PMICNTR_EL0)");
    if (x.instruction_counter && x.event != PMVP_EV_INST_RETIRED)
        fail(o.sub("event"), "the instruction counter counts INST_RETIRED only");
    o.need("sample_period");
    x.sample_period = o.integer("sample_period", 0, 1, UINT32_MAX);  // the 32-bit overflow
    x.handler_time = o.time("handler_time", 0);
    const json &pl = o.need("profiles");
    if (!pl.is_array() || pl.empty())
        fail(o.sub("profiles"), "expected a list of inaccuracy profiles");
    for (size_t i = 0; i < pl.size(); i++) {
        Object po(*this, pl[i], o.sub("profiles") + "[" + std::to_string(i) + "]");
        SebepProfile &p = x.profiles.emplace_back();
        p.name = po.str("name", "profile " + std::to_string(i));
        p.inaccuracy.shadow_events = (uint32_t)po.integer("shadow_events", 0, 0, UINT32_MAX);
        p.inaccuracy.shadow_time = po.time("shadow_time", 0);
        p.inaccuracy.seed = po.integer("seed", 0, 0, UINT64_MAX);
        std::string draw = po.str("draw", "seeded");
        if (draw == "bound")
            p.inaccuracy.draw = PMVP_DRAW_BOUND;
        else if (draw != "seeded")
            fail(po.sub("draw"), "expected seeded or bound");
        p.headroom = po.integer("headroom", 1, 0, UINT64_MAX);
        if (p.inaccuracy.shadow_time && !p.inaccuracy.shadow_events)
            fail(po.sub("shadow_time"), "needs shadow_events (the time only ends a shadow)");
        if (x.instruction_counter && p.inaccuracy.shadow_events)
            fail(po.sub("shadow_events"), "the shadow effect is the event counters' (the instruction counter's "
                                          "overflow is observed by the instruction that causes it)");
    }
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

}  // namespace

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
        s = Reader(source).scenario(root);
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
