// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the scenario parser and its units. Invariants
// (tests/fuzz/README.md): any text is a scenario or a ScenarioError, never
// another exception or a crash; a time or frequency parses to exactly the
// value exact arithmetic gives, or is refused.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <fuzzer/FuzzedDataProvider.h>

#include "scenario.h"

namespace {

using u128 = unsigned __int128;

[[noreturn]] void broken(const char *what, const std::string &text)
{
    std::fprintf(stderr, "invariant broken: %s: \"%s\"\n", what, text.c_str());
    std::abort();
}

// "W.F unit" with W and F of up to 25 digits: exact in 128 bits.
void units(FuzzedDataProvider &in)
{
    struct Unit {
        const char *name;
        uint64_t scale;
        bool time;
    };
    static const Unit kUnits[] = {
        { "s", 1000000000000ull, true }, { "ms", 1000000000ull, true }, { "us", 1000000ull, true },
        { "ns", 1000ull, true },         { "ps", 1ull, true },          { "GHz", 1000000000ull, false },
        { "MHz", 1000000ull, false },    { "kHz", 1000ull, false },     { "Hz", 1ull, false }
    };
    const Unit &u = kUnits[in.ConsumeIntegralInRange<size_t>(0, sizeof kUnits / sizeof kUnits[0] - 1)];
    std::string w, f;
    size_t wn = in.ConsumeIntegralInRange<size_t>(1, 25), fn = in.ConsumeIntegralInRange<size_t>(0, 25);
    for (size_t i = 0; i < wn; i++)
        w += (char)('0' + in.ConsumeIntegralInRange<int>(0, 9));
    for (size_t i = 0; i < fn; i++)
        f += (char)('0' + in.ConsumeIntegralInRange<int>(0, 9));
    std::string text = w + (fn ? "." + f : "") + (in.ConsumeBool() ? " " : "") + u.name;
    u128 whole = 0, frac = 0, scale = 1;
    for (char c : w)
        whole = whole * 10 + (unsigned)(c - '0');
    for (char c : f) {
        frac = frac * 10 + (unsigned)(c - '0');
        scale *= 10;
    }
    // whole < 10^25 and frac * unit < 10^37: no overflow in 128 bits.
    bool exact = frac * u.scale % scale == 0;
    u128 want = whole * u.scale + frac * u.scale / scale;
    bool fits = exact && want <= UINT64_MAX && (u.time || want <= 1000000000000ull);
    try {
        uint64_t got = u.time ? pmvp::soc::parse_time(text) : pmvp::soc::parse_hz(text);
        if (!fits || got != (uint64_t)want)
            broken("a quantity parsed to another value than exact arithmetic", text);
    } catch (const std::invalid_argument &) {
        if (fits)
            broken("an exact quantity in range was refused", text);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzedDataProvider in(data, size);
    if (in.ConsumeBool()) {
        units(in);
        return 0;
    }
    std::string text = in.ConsumeRemainingBytesAsString();
    try {
        pmvp::soc::parse_scenario(text, "fuzz");
    } catch (const pmvp::soc::ScenarioError &) {
        // refused, with a message: the outcome a bad scenario must have
    }
    return 0;
}
