// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pmvp::config {

// JSON text as pmvp's files are written: comments (// and /* */) allowed, a
// key given twice in one object refused with std::invalid_argument. Text
// that is not JSON throws the parser's nlohmann::json::exception.
nlohmann::json parse_json_text(const std::string &text);

}  // namespace pmvp::config
