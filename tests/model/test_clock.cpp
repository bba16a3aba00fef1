// SPDX-License-Identifier: Apache-2.0
// Clock domains: exact picoseconds-to-cycles conversion (pmvp/clock.h).
#include <gtest/gtest.h>

#include "pmvp/clock.h"

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
    pmvp_clock_init(&c, 2000000000, 0); // 500 ps period
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
    EXPECT_EQ(pmvp_clock_cycles(&c, 1000000000000ull), 3000000000ull); // 1 s
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
    pmvp_clock_set_hz(&c, 0, 1200);            // 1.2 cycles
    EXPECT_EQ(pmvp_clock_cycles(&c, 999999), 1u);
    EXPECT_EQ(pmvp_clock_edge_time(&c, 2), PMVP_TIME_NEVER);
    pmvp_clock_set_hz(&c, 1000000000, 5000);  // 0.8 cycle left
    EXPECT_EQ(pmvp_clock_edge_time(&c, 2), 5800u);
}

TEST(Clock, EdgeBeyondRepresentableTimeIsNever)
{
    pmvp_clock c;
    pmvp_clock_init(&c, 1000000, 0); // 1 MHz: 10^6 ps per cycle
    EXPECT_EQ(pmvp_clock_edge_time(&c, UINT64_MAX), PMVP_TIME_NEVER);
}

} // namespace
