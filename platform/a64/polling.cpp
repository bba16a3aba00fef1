// SPDX-License-Identifier: Apache-2.0
//
// The polling loop's analysis (polling.h): one iteration interpreted on the
// counter's value as an unknown.

#include "polling.h"

#include <initializer_list>

namespace pmvp::soc::poll {

namespace {

constexpr unsigned kMaxLength = 32;  // instructions in an iteration
constexpr uint64_t kSign = 1ull << 63;

// a x c + k (modulo 2^64), a in {-1, 0, 1}: a register's value as a
// function of the counter's value c.
struct Value {
    int a = 0;
    uint64_t k = 0;
    uint64_t at(uint64_t c) const { return a > 0 ? c + k : a < 0 ? k - c : k; }
};

// The flags as the last ADDS or SUBS set them: from n + m or n - m.
struct Flags {
    bool add = false;
    Value n, m;
};

// PSTATE.{N, Z, C, V} in bits 31:28, after n + m (add) or n - m, as
// AddWithCarry() of the A64 pseudocode sets them.
uint64_t nzcv(bool add, uint64_t n, uint64_t m)
{
    const uint64_t r = add ? n + m : n - m;
    const bool c = add ? r < n : n >= m;
    const bool v = add ? (~(n ^ m) & (n ^ r)) >> 63 : ((n ^ m) & (n ^ r)) >> 63;
    return (r >> 63) << 31 | (uint64_t)(r == 0) << 30 | (uint64_t)c << 29 | (uint64_t)v << 28;
}

bool is(uint32_t insn, uint32_t mask, uint32_t value)
{
    return (insn & mask) == value;
}

class Iteration {
public:
    Iteration(const Code &code, uint64_t c0) : code_(code), c0_(c0) {}

    // The instruction at `pc` executed on the values (its PC_WRITE_RETIRED
    // counted if it is a conditional branch taken): false if the analysis
    // does not know it, or it breaks the rules (polling.h).
    bool step(uint32_t insn, uint64_t pc, uint64_t &next, Loop &loop);
    bool write(unsigned n, Value v);
    uint64_t below() const { return below_; }

private:
    const Code &code_;
    uint64_t c0_;
    Value reg_[31];
    uint32_t known_ = 0, written_ = 0;  // registers read (then known) or written so far
    bool flags_set_ = false;
    Flags flags_;
    bool exit_seen_ = false;  // a branch whose way depends on c was passed
    uint64_t below_ = UINT64_MAX;

    Value read(unsigned n);
    bool arithmetic(uint32_t insn, Value x, Value y, unsigned rd);
    bool conditional(bool taken_at_c0, uint64_t target, uint64_t pc, uint64_t &next, Loop &loop);
    void crossings(Value v);
};

Value Iteration::read(unsigned n)
{
    if (n == 31)
        return {};  // XZR
    if (!(known_ & (1u << n))) {
        reg_[n] = { 0, code_.x(code_.ctx, n) };
        known_ |= 1u << n;
    }
    return reg_[n];
}

// A register first written after it was read, or after a branch that
// depends on c, would carry one iteration's value into the next, or out of
// the loop: refused.
bool Iteration::write(unsigned n, Value v)
{
    if (n == 31)
        return true;  // XZR
    const uint32_t b = 1u << n;
    if (!(written_ & b) && ((known_ & b) || exit_seen_))
        return false;
    written_ |= b;
    known_ |= b;
    reg_[n] = v;
    return true;
}

// The counter values at which `v` comes next to 0 or 2^63 (one below, at,
// one above, and the value after each), the first above c0 kept.
void Iteration::crossings(Value v)
{
    if (v.a == 0)
        return;
    for (uint64_t edge : { uint64_t{ 0 }, kSign })
        for (uint64_t d : { ~uint64_t{ 0 }, uint64_t{ 0 }, uint64_t{ 1 } }) {
            const uint64_t c = v.a > 0 ? edge + d - v.k : v.k - (edge + d);
            for (uint64_t x : { c, c + 1 })
                if (x > c0_ && x < below_)
                    below_ = x;
        }
}

// ADD, SUB, ADDS, SUBS (CMP, CMN) of x and y into Xrd.
bool Iteration::arithmetic(uint32_t insn, Value x, Value y, unsigned rd)
{
    const bool sub = (insn >> 30) & 1, s = (insn >> 29) & 1;
    const int a = sub ? x.a - y.a : x.a + y.a;
    if (a < -1 || a > 1)
        return false;  // 2c: not a value the analysis follows
    if (s) {
        if (!flags_set_ && exit_seen_)
            return false;
        flags_set_ = true;
        flags_ = { !sub, x, y };
    }
    return write(rd, { a, sub ? x.k - y.k : x.k + y.k });
}

bool Iteration::conditional(bool taken_at_c0, uint64_t target, uint64_t pc, uint64_t &next, Loop &loop)
{
    next = taken_at_c0 ? target : pc + 4;
    loop.count[a64::PC_WRITE_RETIRED] += taken_at_c0;
    return true;
}

bool Iteration::step(uint32_t insn, uint64_t pc, uint64_t &next, Loop &loop)
{
    next = pc + 4;
    const unsigned rd = insn & 31, rn = (insn >> 5) & 31, rm = (insn >> 16) & 31;
    if (insn == 0xD503201F || insn == 0xD503203F || is(insn, 0xFFFFF0FF, 0xD50330DF))  // NOP, YIELD, ISB
        return true;
    if (is(insn, 0xFC000000, 0x14000000)) {  // B
        next = pc + (uint64_t)((int64_t)((uint64_t)insn << 38) >> 36);
        return true;
    }
    if (is(insn, 0x9F800000, 0x91000000)) {  // ADD, ADDS, SUB, SUBS (immediate), 64-bit
        const bool s = (insn >> 29) & 1;
        if (rn == 31 || (rd == 31 && !s))
            return false;  // SP
        const uint64_t imm = (uint64_t)((insn >> 10) & 0xFFF) << ((insn >> 22) & 1 ? 12 : 0);
        return arithmetic(insn, read(rn), { 0, imm }, rd);
    }
    if (is(insn, 0x9F20FC00, 0x8B000000) && ((insn >> 22) & 3) != 3)  // ... (shifted register, by 0), 64-bit
        return arithmetic(insn, read(rn), read(rm), rd);
    if (is(insn, 0xFF20FFE0, 0xAA0003E0))  // MOV (ORR with XZR, shifted by 0), 64-bit
        return write(rd, read(rm));
    if (is(insn, 0xFF000010, 0x54000000)) {  // B.cond
        const unsigned cond = insn & 15;
        if (cond >= 14)
            return conditional(true, a64::branch_target(insn, pc), pc, next, loop);
        if (!flags_set_)
            return false;  // the flags an earlier iteration, or the code before the loop, set
        const Value &n = flags_.n, &m = flags_.m;
        if (n.a || m.a) {
            const int a = flags_.add ? n.a + m.a : n.a - m.a;
            crossings(n);
            crossings(m);
            crossings({ a, flags_.add ? n.k + m.k : n.k - m.k });
            exit_seen_ = true;
        }
        const bool taken = a64::condition_holds(cond, nzcv(flags_.add, n.at(c0_), m.at(c0_)));
        return conditional(taken, a64::branch_target(insn, pc), pc, next, loop);
    }
    if (is(insn, 0xFE000000, 0xB4000000)) {  // CBZ, CBNZ, 64-bit
        const Value v = read(rd);
        if (v.a) {
            crossings(v);
            exit_seen_ = true;
        }
        const bool taken = (v.at(c0_) == 0) != (bool)((insn >> 24) & 1);
        return conditional(taken, a64::branch_target(insn, pc), pc, next, loop);
    }
    return false;
}

// MRS Xt, CNTPCT_EL0 or CNTVCT_EL0.
bool reads_counter(uint32_t insn, unsigned rt)
{
    return insn == (0xD53BE020 | rt) || insn == (0xD53BE040 | rt);
}

}  // namespace

bool analyse(const Code &code, uint64_t pc, unsigned rt, uint64_t c0, Loop &loop)
{
    loop = Loop{};
    Iteration it(code, c0);
    uint32_t insn = 0;
    if (rt > 31 || !code.fetch(code.ctx, pc, insn) || !reads_counter(insn, rt) || !it.write(rt, { 1, 0 }))
        return false;
    uint64_t at = pc, next = pc + 4;
    for (unsigned n = 0;; n++) {
        if (n > 0 && (!code.fetch(code.ctx, at, insn) || !it.step(insn, at, next, loop)))
            return false;
        for (a64::Mask m = a64::classify(insn).events; m; m &= m - 1)
            loop.count[__builtin_ctzll(m)]++;
        at = next;
        if (at == pc) {
            loop.length = n + 1;
            loop.below = it.below();
            return true;
        }
        if (n + 1 == kMaxLength)
            return false;
    }
}

}  // namespace pmvp::soc::poll
