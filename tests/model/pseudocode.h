// SPDX-License-Identifier: Apache-2.0
// An evaluator for the accessibility pseudocode of the Arm ARM's System
// registers (tests/data/sysreg_access.txt): the test oracle for
// pmvp_sysreg_check. It knows the small part of the language those texts
// use -- if/elsif/else chains, boolean and comparison operators, bit-string
// literals with don't-care bits, field lists such as PMUSERENR_EL0.<CR,EN>
// -- and asks the test for the value of every name and function call.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <string>
#include <vector>

namespace pseudocode {

// A value: an integer (levels, exception classes, UInt()), a bit string
// ("0110"), or a boolean.
struct Value {
    enum Kind { INT, BITS, BOOL } kind = INT;
    int64_t i = 0;
    std::string bits;
    static Value integer(int64_t v)
    {
        Value x;
        x.i = v;
        return x;
    }
    static Value boolean(bool b)
    {
        Value x;
        x.kind = BOOL;
        x.i = b;
        return x;
    }
    static Value bitstring(std::string b)
    {
        Value x;
        x.kind = BITS;
        x.bits = std::move(b);
        return x;
    }
};

// How an accessor ends.
struct Outcome {
    enum Kind { PERMITTED, UNDEFINED, TRAP, UNPREDICTABLE } kind = PERMITTED;
    int el = 0;            // TRAP: target Exception level
    int ec = 0;            // TRAP: exception class
    bool zero = false;     // PERMITTED read returning Zeros()
    bool ignored = false;  // PERMITTED write that returns without writing
};

// What the text asks of the world: a name ("PSTATE.EL", "MDCR_EL2.TPM",
// "EL2", "m", "IMPLEMENTATION_DEFINED:<text>") or a call ("HaveEL",
// "IsFeatureImplemented", "EL2Enabled", ...) with evaluated arguments.
struct World {
    std::function<Value(const std::string &)> name;
    std::function<Value(const std::string &, const std::vector<Value> &)> call;
};

struct Node;

// One accessor (the text of an MRS, MSR, MRC, MCR, MRRC or MCRR), parsed once.
class Program {
public:
    explicit Program(const std::string &text);  // throws std::runtime_error on a syntax error
    ~Program();
    Program(Program &&) noexcept;
    Outcome run(const World &w) const;  // throws if the text falls off its end
    // The outcomes (the text's terminal statements) no run has reached yet,
    // each with the conditions on its path, and how many there are: how
    // completely a walk covered the text.
    std::vector<std::pair<Outcome, std::string>> unreached() const;
    size_t terminal_count() const;

private:
    std::vector<std::unique_ptr<Node>> body_;
};

}  // namespace pseudocode
