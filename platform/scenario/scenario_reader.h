// SPDX-License-Identifier: Apache-2.0
//
// What the scenario's files share (scenario.cpp, scenario_reader.cpp,
// scenario_x86_sebep.cpp, scenario_overrides.cpp; private to them): the
// reader of a scenario's JSON, every object's keys checked, and the
// kernel's verdict on a core.
#pragma once

#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmvp/config/core_file.h"
#include "pmvp/config/json_text.h"
#include "scenario.h"

namespace pmvp::soc::reading {

using json = nlohmann::json;

// Named bits of a register, as a scenario lists them ("filter": ["P", "U"]).
using BitNames = std::vector<std::pair<const char *, uint64_t>>;

// Why the kernel refuses a core's configuration (the field of
// pmvp_core_config and the rule), or "" when it takes it.
std::string core_refusal(const pmvp_core_config &cfg);

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

}  // namespace pmvp::soc::reading
