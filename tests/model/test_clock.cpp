// SPDX-License-Identifier: Apache-2.0
// Clock domains: exact picoseconds-to-cycles conversion (pmvp/clock.h).
#include <gtest/gtest.h>

#include <random>

#include "pmvp/clock.h"

#include "clocks.h"  // the kernel's inline conversion

namespace {

TEST(Clock, OneMillisecondAt2GHzIs2000000Cycles)
{
    pmvp_clock c;
    pmvp_clock_init(&c, 2000000000, 0);
    EXPECT_EQ(pmvp_clock_cycles(&c, 1000000000), 2000000u);
}

TEST(Clock, EdgeExactlyAtTheInstantBelongsToIt)
{
    pmvp_clock c;
    pmvp_clock_init(&c, 2000000000, 0);  // 500 ps period
    EXPECT_EQ(pmvp_clock_cycles(&c, 499), 0u);
    EXPECT_EQ(pmvp_clock_cycles(&c, 500), 1u);
    EXPECT_EQ(pmvp_clock_edge_time(&c, 1), 500u);
    EXPECT_EQ(pmvp_clock_edge_time(&c, 3), 1500u);
}

TEST(Clock, NonIntegerPeriodIsExact)
{
    // 3 GHz: a period of 333.33 ps. Edges at ceil(k * 1000 / 3).
    pmvp_clock c;
    pmvp_clock_init(&c, 3000000000, 0);
    EXPECT_EQ(pmvp_clock_edge_time(&c, 1), 334u);
    EXPECT_EQ(pmvp_clock_edge_time(&c, 3), 1000u);
    EXPECT_EQ(pmvp_clock_cycles(&c, 1000000000000ull), 3000000000ull);  // 1 s
}

TEST(Clock, FrequencyChangeKeepsThePhaseOfAPartCycle)
{
    // 1 GHz for 1500 ps (1.5 cycles), then 2 GHz: the half cycle left takes
    // 250 ps, so edge 2 is at 1750 ps and edge 3 at 2250 ps.
    pmvp_clock c;
    pmvp_clock_init(&c, 1000000000, 0);
    pmvp_clock_set_hz(&c, 2000000000, 1500);
    EXPECT_EQ(pmvp_clock_cycles(&c, 1500), 1u);
    EXPECT_EQ(pmvp_clock_edge_time(&c, 2), 1750u);
    EXPECT_EQ(pmvp_clock_cycles(&c, 2250), 3u);
}

TEST(Clock, StopFreezesPhaseUntilRestart)
{
    pmvp_clock c;
    pmvp_clock_init(&c, 1000000000, 0);
    pmvp_clock_set_hz(&c, 0, 1200);  // 1.2 cycles
    EXPECT_EQ(pmvp_clock_cycles(&c, 999999), 1u);
    EXPECT_EQ(pmvp_clock_edge_time(&c, 2), PMVP_TIME_NEVER);
    pmvp_clock_set_hz(&c, 1000000000, 5000);  // 0.8 cycle left
    EXPECT_EQ(pmvp_clock_edge_time(&c, 2), 5800u);
}

TEST(Clock, EdgeBeyondRepresentableTimeIsNever)
{
    pmvp_clock c;
    pmvp_clock_init(&c, 1000000, 0);  // 1 MHz: 10^6 ps per cycle
    EXPECT_EQ(pmvp_clock_edge_time(&c, UINT64_MAX), PMVP_TIME_NEVER);
}

// Anchoring a clock again moves no edge: at 3.000000001 GHz (a period of no
// whole number of picoseconds) a clock anchored again once its phase
// numerator passes 2^62 (about 1.5 ms) counts, and finds each edge's
// instant, as one never anchored again, over 20 s of random instants.
TEST(Clock, AnchoringAgainMovesNoEdge)
{
    pmvp_clock plain, anchored;
    pmvp_clock_init(&plain, 3000000001, 0);
    pmvp_clock_init(&anchored, 3000000001, 0);
    std::mt19937_64 rng(3);
    pmvp_time t = 0;
    unsigned moved = 0;
    for (int i = 0; i < 20000; i++) {
        t += rng() % 2000000000;  // up to 2 ms
        pmvp_time before = anchored.t0;
        pmvp_clock_reanchor(&anchored, t);
        moved += anchored.t0 != before;
        ASSERT_EQ(pmvp_clock_cycles(&anchored, t), pmvp_clock_cycles(&plain, t)) << t;
        uint64_t next = pmvp_clock_cycles(&plain, t) + 1;
        ASSERT_EQ(pmvp_clock_edge_time(&anchored, next), pmvp_clock_edge_time(&plain, next)) << t;
    }
    EXPECT_GT(moved, 1000u);
}

// The syncs' inline conversion (k_clock_cycles) agrees with pmvp_clock_cycles
// at every instant, inside the anchored window where it is a 64-bit product
// and past it where it hands over, after frequency changes at odd instants
// that leave a part cycle in the phase.
TEST(Clock, InlineConversionOfTheSyncsAgreesWithTheFullOne)
{
    std::mt19937_64 rng(11);
    unsigned inside = 0, beyond = 0;
    for (uint64_t hz : { UINT64_C(1), UINT64_C(32768), UINT64_C(333333333), UINT64_C(2700000000),
                         UINT64_C(999999999999), PMVP_MAX_CLOCK_HZ }) {
        pmvp_clock c;
        pmvp_clock_init(&c, hz, 0);
        pmvp_time t = 0;
        for (int i = 0; i < 2000; i++) {
            t += rng() % (i % 3 ? UINT64_C(5000000) : UINT64_C(50000000000000));
            if (i % 97 == 0)
                pmvp_clock_set_hz(&c, hz, t + rng() % 1000);
            for (pmvp_time at : { c.t0, t, c.anchor_until, c.anchor_until + 1 + rng() % 1000 }) {
                if (at < c.t0 || at == PMVP_TIME_NEVER)
                    continue;
                (at <= c.anchor_until ? inside : beyond)++;
                ASSERT_EQ(k_clock_cycles(&c, at), pmvp_clock_cycles(&c, at)) << hz << " Hz at " << at;
            }
        }
    }
    EXPECT_GT(inside, 10000u);
    EXPECT_GT(beyond, 5000u);
}

}  // namespace
