// SPDX-License-Identifier: Apache-2.0
#include "pmvp/config/json_text.h"

#include <set>
#include <stdexcept>
#include <vector>

namespace pmvp::config {

using json = nlohmann::json;

nlohmann::json parse_json_text(const std::string &text)
{
    // A key twice in one object is refused: JSON readers disagree on which
    // one counts, and a file must mean one thing. The parser's callback sees
    // every key of the object being read.
    std::vector<std::set<std::string>> keys;
    auto once = [&](int, json::parse_event_t event, json &parsed) {
        if (event == json::parse_event_t::object_start)
            keys.emplace_back();
        else if (event == json::parse_event_t::object_end && !keys.empty())
            keys.pop_back();
        else if (event == json::parse_event_t::key && !keys.back().insert(parsed.get<std::string>()).second)
            throw std::invalid_argument("\"" + parsed.get<std::string>() +
                                        "\" appears twice in one object: each field is given once");
        return true;
    };
    return json::parse(text, once, true, true);
}

}  // namespace pmvp::config
