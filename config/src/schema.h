// SPDX-License-Identifier: Apache-2.0
//
// The part of JSON Schema (2020-12) that pmvp's schemas use, checked: a
// value against a schema, with the first violation as "<path>: <reason>".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pmvp::config {

// "" when `value` satisfies `schema`, else where and why it does not
// ("num_pes: 9 is above the maximum 8"; the path is empty for the whole
// value). Keywords: type, enum, minimum, maximum, pattern, properties,
// additionalProperties (false), required, items, minItems, maxItems and
// $ref to "#/$defs/<name>" in the same document; the annotations $schema,
// $id, $defs, title, description and default. A schema with any other
// keyword is refused with std::logic_error, so no rule of it is ignored.
std::string schema_violation(const nlohmann::json &schema, const nlohmann::json &value);

}  // namespace pmvp::config
