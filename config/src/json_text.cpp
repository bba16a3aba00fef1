// SPDX-License-Identifier: Apache-2.0
#include "pmvp/config/json_text.h"

#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

namespace pmvp::config {

using json = nlohmann::json;

namespace {

// The DOM parser's events, with the keys of each open object: a key twice
// in one object is refused. (nlohmann's callback parser would see the keys
// too, but scans an array's elements at the end of each object in it, so
// an array of n objects costs n^2.)
class OnceSax {
public:
    explicit OnceSax(json &result) : dom_(result, true) {}
    bool null() { return dom_.null(); }
    bool boolean(bool v) { return dom_.boolean(v); }
    bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
    bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
    bool number_float(json::number_float_t v, const json::string_t &s) { return dom_.number_float(v, s); }
    bool string(json::string_t &v) { return dom_.string(v); }
    bool binary(json::binary_t &v) { return dom_.binary(v); }
    bool start_array(std::size_t n) { return dom_.start_array(n); }
    bool end_array() { return dom_.end_array(); }
    bool start_object(std::size_t n)
    {
        keys_.emplace_back();
        return dom_.start_object(n);
    }
    bool key(json::string_t &k)
    {
        if (!keys_.back().insert(k).second)
            throw std::invalid_argument("\"" + k + "\" appears twice in one object: each field is given once");
        return dom_.key(k);
    }
    bool end_object()
    {
        keys_.pop_back();
        return dom_.end_object();
    }
    template <class Exception> bool parse_error(std::size_t at, const std::string &token, const Exception &e)
    {
        return dom_.parse_error(at, token, e);
    }

private:
    nlohmann::detail::json_sax_dom_parser<json> dom_;
    std::vector<std::unordered_set<std::string>> keys_;
};

}  // namespace

nlohmann::json parse_json_text(const std::string &text)
{
    // A key twice in one object is refused: JSON readers disagree on which
    // one counts, and a file must mean one thing.
    json result;
    OnceSax sax(result);
    json::sax_parse(text, &sax, json::input_format_t::json, true, true);
    return result;
}

}  // namespace pmvp::config
