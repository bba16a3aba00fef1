// SPDX-License-Identifier: Apache-2.0
//
// A guest polling the System Counter (a delay loop: read CNTVCT_EL0 or
// CNTPCT_EL0, compare with a deadline, go round again), recognised at the
// read so that the iterations that would go the same way are retired at
// once, each with the events it would have counted
// (Aarch64Iss::fast_forward_poll; docs/FIRMWARE.md, "Polling loops").
//
// An iteration is worked out from the read round to it with the counter's
// value as an unknown c. It may hold only instructions whose results are
// c + k, k - c or k (64-bit ADD, SUB, ADDS, SUBS, CMP, CMN, MOV), the
// branches B, B.cond, CBZ and CBNZ, and NOP, YIELD and ISB: no load, no
// store, no other System register. Each flag and each register a branch
// tests can then change only where one of those values crosses 0 or 2^63,
// so every iteration whose read is below the first such crossing after
// this read's value goes the same way. And a register the iteration writes
// must be written before any branch whose way depends on c, and not read
// before it is written, so that skipping iterations leaves nothing stale:
// the registers an iteration reads are the same in all of them.
#pragma once

#include <cstdint>

#include "a64_events.h"

namespace pmvp::soc::poll {

// What the analysis reads of the PE: an instruction (false: none there),
// and general-purpose register Xn (n < 31).
struct Code {
    bool (*fetch)(void *ctx, uint64_t pc, uint32_t &insn);
    uint64_t (*x)(void *ctx, unsigned n);
    void *ctx;
};

struct Loop {
    unsigned length = 0;  // the instructions of one iteration, from the read round to it
    // Every iteration whose read is below this value goes as the one
    // analysed did (UINT64_MAX: every one).
    uint64_t below = 0;
    uint32_t count[a64::kNumEvents] = {};  // the events one iteration counts
};

// The polling loop whose read of the counter, into Xrt (31: XZR), is the
// instruction at `pc`, which reads `c0`: true, with `loop`, if the
// iteration that read comes back to it and every instruction on its way is
// one the analysis knows.
bool analyse(const Code &code, uint64_t pc, unsigned rt, uint64_t c0, Loop &loop);

}  // namespace pmvp::soc::poll
