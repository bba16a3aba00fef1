// SPDX-License-Identifier: Apache-2.0
#include "pmvp/config/units.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

extern "C" {
#include "pmvp/events.h"
}

namespace pmvp::config {

namespace {

struct Unit {
    const char *name;
    uint64_t scale;
};

// A decimal number with a unit, exactly, as an integer count of the base
// unit: refused, with the range, when it is not a whole number of the base
// unit or does not fit in 64 bits (the largest unit is 10^12 of the base, so
// the arithmetic is exact in 128 bits).
uint64_t parse_quantity(const std::string &text, const std::vector<Unit> &units, const char *what)
{
    __extension__ typedef unsigned __int128 u128;  // GCC and Clang; exact, as said above
    const std::string &base = units.back().name;
    const std::string range = std::string("a ") + what + " is at most " + std::to_string(UINT64_MAX) + " " + base;
    size_t i = 0;
    u128 whole = 0;
    bool digits = false;
    while (i < text.size() && std::isdigit((unsigned char)text[i])) {
        whole = whole * 10 + (unsigned)(text[i++] - '0');
        if (whole > UINT64_MAX)
            throw std::invalid_argument(std::string(what) + " too large (" + range + ")");
        digits = true;
    }
    std::string decimals;
    if (i < text.size() && text[i] == '.') {
        i++;
        while (i < text.size() && std::isdigit((unsigned char)text[i])) {
            decimals += text[i++];
            digits = true;
        }
    }
    if (!digits)
        throw std::invalid_argument(std::string("expected a ") + what + ": a number and a unit");
    while (!decimals.empty() && decimals.back() == '0')
        decimals.pop_back();
    while (i < text.size() && text[i] == ' ')
        i++;
    std::string unit = text.substr(i);
    std::string known;
    for (const Unit &u : units) {
        if (unit == u.name) {
            // More decimals than 19 cannot be a whole number of the base unit
            // (no unit is 10^19 of it).
            if (decimals.size() > 19)
                throw std::invalid_argument(std::string(what) + " is not a whole number of " + base);
            u128 frac = 0, frac_scale = 1;
            for (char d : decimals) {
                frac = frac * 10 + (unsigned)(d - '0');
                frac_scale *= 10;
            }
            if (frac * u.scale % frac_scale)
                throw std::invalid_argument(std::string(what) + " is not a whole number of " + base);
            u128 total = whole * u.scale + frac * u.scale / frac_scale;
            if (total > UINT64_MAX)
                throw std::invalid_argument(std::string(what) + " too large (" + range + ")");
            return (uint64_t)total;
        }
        known += std::string(known.empty() ? "" : ", ") + (*u.name ? u.name : "(none)");
    }
    throw std::invalid_argument("unknown unit \"" + unit + "\" (one of " + known + ")");
}

const std::vector<Unit> &hz_units()
{
    static const std::vector<Unit> units = {
        { "GHz", 1000000000ull }, { "MHz", 1000000ull }, { "kHz", 1000ull }, { "Hz", 1ull }
    };
    return units;
}

std::string upper(std::string s)
{
    for (char &c : s)
        c = (char)std::toupper((unsigned char)c);
    return s;
}

// perf's generic hardware event names, as Linux maps them on a PMUv3 PE.
const std::pair<const char *, uint16_t> kPerfAliases[] = {
    { "CYCLES", PMVP_EV_CPU_CYCLES },
    { "CPU-CYCLES", PMVP_EV_CPU_CYCLES },
    { "INSTRUCTIONS", PMVP_EV_INST_RETIRED },
    { "BUS-CYCLES", PMVP_EV_BUS_CYCLES },
    { "BRANCH-MISSES", 0x0010 },
    { "CACHE-REFERENCES", 0x0004 },
    { "CACHE-MISSES", 0x0003 },
    { "STALLED-CYCLES-FRONTEND", 0x0023 },
    { "STALLED-CYCLES-BACKEND", 0x0024 },
};

}  // namespace

size_t edit_distance(const std::string &a, const std::string &b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); j++)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); j++) {
            size_t above = row[j];
            row[j] = std::min({ row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1]) });
            diagonal = above;
        }
    }
    return row[b.size()];
}

pmvp_time parse_time(const std::string &text)
{
    static const std::vector<Unit> units = {
        { "s", 1000000000000ull }, { "ms", 1000000000ull }, { "us", 1000000ull }, { "ns", 1000ull }, { "ps", 1ull }
    };
    return parse_quantity(text, units, "time");
}

std::string time_text(pmvp_time ps)
{
    static const std::pair<pmvp_time, const char *> units[] = {
        { 1000000000000ull, "s" }, { 1000000000ull, "ms" }, { 1000000ull, "us" }, { 1000ull, "ns" }
    };
    for (const auto &[scale, name] : units)
        if (ps >= scale && ps % scale == 0)
            return std::to_string(ps / scale) + " " + name;
    char buf[32];
    for (const auto &[scale, name] : units)
        if (ps >= scale) {
            std::snprintf(buf, sizeof buf, "%.6g %s", (double)ps / (double)scale, name);
            return buf;
        }
    return std::to_string(ps) + " ps";
}

uint64_t parse_hz(const std::string &text)
{
    uint64_t hz = parse_quantity(text, hz_units(), "frequency");
    if (hz > PMVP_MAX_CLOCK_HZ)
        throw std::invalid_argument("frequency above 1 THz, the most pmvp accepts (a clock's edges must fit in "
                                    "64 bits over all representable time)");
    return hz;
}

std::string hz_exact_text(uint64_t hz)
{
    for (const Unit &u : hz_units())
        if (hz >= u.scale && hz % u.scale == 0)
            return std::to_string(hz / u.scale) + " " + u.name;
    return "0 Hz";
}

uint16_t event_number(const std::string &text)
{
    const std::string name = upper(text);
    if (name.rfind("0X", 0) == 0 && name.size() > 2 && name.size() <= 6 &&
        name.find_first_not_of("0123456789ABCDEF", 2) == std::string::npos)
        return (uint16_t)std::stoul(name.substr(2), nullptr, 16);
    if (!name.empty() && name.size() <= 5 && name.find_first_not_of("0123456789") == std::string::npos &&
        std::stoul(name) <= 0xFFFF)
        return (uint16_t)std::stoul(name);
    std::string nearest;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < pmvp_event_count(); i++) {
        const pmvp_event_info *e = pmvp_event_at(i);
        if (name == e->name)
            return e->number;
        size_t d = edit_distance(name, e->name);
        if (d < best) {
            best = d;
            nearest = e->name;
        }
    }
    for (const auto &[alias, number] : kPerfAliases)
        if (name == alias)
            return number;
    std::string hint = best <= 3 ? " (did you mean " + nearest + "?)" : "";
    throw std::invalid_argument("no event named \"" + text + "\" in the catalogue" + hint);
}

std::string event_text(uint16_t number)
{
    if (const pmvp_event_info *e = pmvp_event_find(number))
        return e->name;
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%04X", number);
    return buf;
}

}  // namespace pmvp::config
