// SPDX-License-Identifier: Apache-2.0
#include "schema.h"

#include <regex>
#include <set>
#include <stdexcept>

namespace pmvp::config {

using json = nlohmann::json;

namespace {

std::string at(const std::string &path, const std::string &key)
{
    return path.empty() ? key : path + "." + key;
}

std::string type_of(const json &v)
{
    switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    default: return "object";
    }
}

bool has_type(const json &v, const std::string &type)
{
    std::string t = type_of(v);
    return t == type || (type == "number" && t == "integer");
}

// A value as a message shows it: a scalar as written, an array or an
// object by its kind alone (dumping one nested 10^5 deep would recurse as
// deep, and say nothing a user needs).
std::string shown(const json &v)
{
    return v.is_structured() ? std::string(v.is_array() ? "an array" : "an object") : v.dump();
}

class Checker {
public:
    explicit Checker(const json &root) : root_(root) {}

    // The first violation of `s` by `v` at `path`, or "".
    std::string check(const json &s, const json &v, const std::string &path) const
    {
        static const std::set<std::string> known = {
            "type",     "enum",  "minimum",     "maximum",  "pattern", "properties", "additionalProperties",
            "required", "items", "minItems",    "maxItems", "$ref",    "$schema",    "$id",
            "$defs",    "title", "description", "default"
        };
        for (auto it = s.begin(); it != s.end(); ++it)
            if (!known.count(it.key()))
                throw std::logic_error("schema keyword \"" + it.key() + "\" is not one pmvp checks");
        const std::string where = path.empty() ? "" : path + ": ";
        if (s.contains("$ref")) {
            const std::string ref = s["$ref"].get<std::string>();
            const std::string prefix = "#/$defs/";
            // (at(), not []: a const json's [] of a missing key is undefined.)
            const std::string name = ref.rfind(prefix, 0) == 0 ? ref.substr(prefix.size()) : "";
            if (name.empty() || !root_.contains("$defs") || !root_.at("$defs").contains(name))
                throw std::logic_error("schema reference \"" + ref + "\" is not one of this schema's $defs");
            std::string why = check(root_.at("$defs").at(name), v, path);
            if (!why.empty())
                return why;
        }
        if (s.contains("type")) {
            const json &t = s["type"];
            bool ok = false;
            std::string names;
            for (const json &one : t.is_array() ? t : json::array({ t })) {
                ok = ok || has_type(v, one.get<std::string>());
                names += std::string(names.empty() ? "" : " or ") + one.get<std::string>();
            }
            if (!ok)
                return where + "expected " + names + ", not " + type_of(v);
        }
        if (s.contains("enum")) {
            bool ok = false;
            std::string names;
            for (const json &one : s["enum"]) {
                ok = ok || one == v;
                names += std::string(names.empty() ? "" : ", ") + one.dump();
            }
            if (!ok)
                return where + "expected one of " + names + ", not " + shown(v);
        }
        if (v.is_number()) {
            if (s.contains("minimum") && v.get<double>() < s["minimum"].get<double>())
                return where + v.dump() + " is below the minimum " + s["minimum"].dump();
            if (s.contains("maximum") && (v.is_number_unsigned() && s["maximum"].is_number_unsigned()
                                              ? v.get<uint64_t>() > s["maximum"].get<uint64_t>()
                                              : v.get<double>() > s["maximum"].get<double>()))
                return where + v.dump() + " is above the maximum " + s["maximum"].dump();
        }
        if (v.is_string() && s.contains("pattern") &&
            !std::regex_search(v.get<std::string>(), std::regex(s["pattern"].get<std::string>())))
            return where + v.dump() + " is not " +
                   (s.contains("description") ? s["description"].get<std::string>()
                                              : "of the form " + s["pattern"].get<std::string>());
        if (v.is_array()) {
            if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>())
                return where + "expected at least " + s["minItems"].dump() + " items";
            if (s.contains("maxItems") && v.size() > s["maxItems"].get<size_t>())
                return where + "expected at most " + s["maxItems"].dump() + " items, not " + std::to_string(v.size());
            if (s.contains("items"))
                for (size_t i = 0; i < v.size(); i++) {
                    std::string why = check(s["items"], v[i], path + "[" + std::to_string(i) + "]");
                    if (!why.empty())
                        return why;
                }
        }
        if (v.is_object()) {
            if (s.contains("required"))
                for (const json &key : s["required"])
                    if (!v.contains(key.get<std::string>()))
                        return at(path, key.get<std::string>()) + ": missing";
            const json props = s.value("properties", json::object());
            for (auto it = v.begin(); it != v.end(); ++it) {
                if (props.contains(it.key())) {
                    std::string why = check(props[it.key()], it.value(), at(path, it.key()));
                    if (!why.empty())
                        return why;
                } else if (s.contains("additionalProperties")) {
                    if (s["additionalProperties"] != false)
                        throw std::logic_error("schema additionalProperties other than false");
                    return at(path, it.key()) + ": unknown field";
                }
            }
        }
        return "";
    }

private:
    const json &root_;
};

}  // namespace

std::string schema_violation(const json &schema, const json &value)
{
    return Checker(schema).check(schema, value, "");
}

}  // namespace pmvp::config
