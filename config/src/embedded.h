// SPDX-License-Identifier: Apache-2.0
//
// The files compiled into the library (config/CMakeLists.txt generates
// their definitions from config/presets/*.json and config/core.schema.json).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pmvp::config {

// (name, text) of every preset, by file name without ".json", sorted.
const std::vector<std::pair<std::string, std::string>> &embedded_presets();
const char *embedded_schema();

}  // namespace pmvp::config
