// SPDX-License-Identifier: Apache-2.0
// The event catalogue (D14.3) and the classes that drive counting.
#include <gtest/gtest.h>

#include <string>

#include "pmvp/events.h"

namespace {

TEST(Events, CatalogueIsSortedAndHasEveryCommonEventOfD14_3)
{
    ASSERT_EQ(pmvp_event_count(), 1198u);
    for (size_t i = 1; i < pmvp_event_count(); i++)
        EXPECT_LT(pmvp_event_at(i - 1)->number, pmvp_event_at(i)->number);
    EXPECT_EQ(pmvp_event_at(pmvp_event_count()), nullptr);
}

TEST(Events, NumbersAndMnemonicsAgreeWithTheArmArm)
{
    EXPECT_STREQ(pmvp_event_find(0x0011)->name, "CPU_CYCLES");
    EXPECT_STREQ(pmvp_event_find(0x0008)->name, "INST_RETIRED");
    EXPECT_STREQ(pmvp_event_find(0x001E)->name, "CHAIN");
    EXPECT_STREQ(pmvp_event_find(0x4004)->name, "CNT_CYCLES");
    EXPECT_STREQ(pmvp_event_find(0x8159)->name, "STALL_FRONTEND_L1I");
    EXPECT_STREQ(pmvp_event_find(0x001C)->name, "TTBR_WRITE_RETIRED");
    EXPECT_EQ(pmvp_event_find(0x4007), nullptr); // reserved common number
    EXPECT_EQ(pmvp_event_index(0x0000), 0);
}

TEST(Events, ClassesFollowTheEventDefinitions)
{
    EXPECT_EQ(pmvp_event_find(0x0011)->cls, PMVP_EVCLASS_CPU_CYCLES);
    EXPECT_EQ(pmvp_event_find(0x0008)->cls, PMVP_EVCLASS_OCCURRENCE);
    EXPECT_EQ(pmvp_event_find(0x0000)->cls, PMVP_EVCLASS_SOFTWARE_INCREMENT);
    EXPECT_EQ(pmvp_event_find(0x001E)->cls, PMVP_EVCLASS_CHAIN);
    EXPECT_EQ(pmvp_event_find(0x001D)->cls, PMVP_EVCLASS_BUS_CLOCK);
    EXPECT_EQ(pmvp_event_find(0x4004)->cls, PMVP_EVCLASS_SYSTEM_COUNTER);
    EXPECT_EQ(pmvp_event_find(0x8380)->cls, PMVP_EVCLASS_CONDITION);   // ZA_ACTIVE
    EXPECT_EQ(pmvp_event_find(0x8320)->cls, PMVP_EVCLASS_PER_CYCLE);   // L1D_CACHE_REFILL_PERCYC
    EXPECT_EQ(pmvp_event_find(0x400D)->cls, PMVP_EVCLASS_PMU_OVERFLOW);
}

TEST(Events, StallEventsNameTheirStallCondition)
{
    // D14.4.1: for STALL_FRONTEND_L1I the stall condition is STALL_FRONTEND.
    EXPECT_EQ(pmvp_event_find(0x8159)->cls, PMVP_EVCLASS_STALL);
    EXPECT_EQ(pmvp_event_find(0x8159)->stall, PMVP_EV_STALL_FRONTEND);
    EXPECT_EQ(pmvp_event_find(0x4005)->stall, PMVP_EV_STALL_BACKEND);
    EXPECT_EQ(pmvp_event_find(0x003C)->stall, PMVP_EV_STALL);
    EXPECT_EQ(pmvp_event_find(0x0024)->stall, PMVP_EV_STALL_BACKEND);
    // Every stall condition is itself a level input (the kernel indexes its
    // level bits by it).
    for (size_t i = 0; i < pmvp_event_count(); i++) {
        const pmvp_event_info *e = pmvp_event_at(i);
        if (e->cls == PMVP_EVCLASS_STALL) {
            EXPECT_GE(pmvp_event_level_index(e->stall), 0) << e->name;
        }
    }
}

TEST(Events, LevelEventsHaveDenseIndices)
{
    int n = pmvp_event_level_count();
    EXPECT_EQ(n, 43);
    EXPECT_GE(pmvp_event_level_index(0x0023), 0);
    EXPECT_LT(pmvp_event_level_index(0x8380), n);
    EXPECT_EQ(pmvp_event_level_index(0x0011), -1);
}

// The lookups by number find every event of the catalogue and nothing else,
// for every 16-bit number, as a scan of the catalogue does; the level
// indices are dense and in catalogue order.
TEST(Events, LookupsFindEveryNumberAsAScanDoes)
{
    int levels = 0;
    for (unsigned number = 0; number <= 0xFFFF; number++) {
        int scanned = -1;
        for (size_t i = 0; i < pmvp_event_count(); i++)
            if (pmvp_event_at(i)->number == number)
                scanned = (int)i;
        ASSERT_EQ(pmvp_event_index((uint16_t)number), scanned) << number;
        const pmvp_event_info *e = scanned < 0 ? nullptr : pmvp_event_at(scanned);
        bool level = e && (e->cls == PMVP_EVCLASS_CONDITION || e->cls == PMVP_EVCLASS_STALL ||
                           e->cls == PMVP_EVCLASS_PER_CYCLE);
        ASSERT_EQ(pmvp_event_level_index((uint16_t)number), level ? levels : -1) << number;
        levels += level;
    }
    EXPECT_EQ(levels, pmvp_event_level_count());
}

} // namespace
