// SPDX-License-Identifier: Apache-2.0
//
// Quantities and names as people write them in pmvp's JSON files and on
// the command line: times ("1.5 us"), frequencies ("2 GHz") and events
// ("CPU_CYCLES", perf's "cycles", 0x11). Every parse is exact or refused
// with std::invalid_argument saying why.
#pragma once

#include <cstdint>
#include <string>

extern "C" {
#include "pmvp/clock.h"
}

namespace pmvp::config {

// "1.5 us", "20ms", "100 ps": an exact number of picoseconds.
pmvp_time parse_time(const std::string &text);
// The shortest exact text for a time ("1 ms"), or a rounded one when no unit
// divides it ("1.5 us").
std::string time_text(pmvp_time ps);
// "2 GHz", "33.3 MHz", "100 Hz": an exact number of hertz, at most
// PMVP_MAX_CLOCK_HZ.
uint64_t parse_hz(const std::string &text);
// The exact text of a frequency in the largest unit that divides it ("2 GHz",
// "1500 kHz", "7 Hz"); parse_hz reads it back.
std::string hz_exact_text(uint64_t hz);

// Edits (insertions, deletions, substitutions) from a to b: how near a
// mistyped name is to a known one.
size_t edit_distance(const std::string &a, const std::string &b);

// An event by its catalogue name (any case), by perf's generic name
// ("cycles", "instructions"), or by its number ("0x11", "17"). Refused with
// the nearest catalogue name when there is one.
uint16_t event_number(const std::string &name);
// The catalogue name of an event, or its number as "0x%04X".
std::string event_text(uint16_t number);

}  // namespace pmvp::config
