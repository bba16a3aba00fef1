// SPDX-License-Identifier: Apache-2.0
// The event catalogue (D14.3) and the classes that drive counting.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pmvp/core.h"
#include "pmvp/error.h"
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
    EXPECT_EQ(pmvp_event_find(0x4007), nullptr);  // reserved common number
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
    EXPECT_EQ(pmvp_event_find(0x8380)->cls, PMVP_EVCLASS_CONDITION);  // ZA_ACTIVE
    EXPECT_EQ(pmvp_event_find(0x8320)->cls, PMVP_EVCLASS_PER_CYCLE);  // L1D_CACHE_REFILL_PERCYC
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
        bool level =
            e && (e->cls == PMVP_EVCLASS_CONDITION || e->cls == PMVP_EVCLASS_STALL || e->cls == PMVP_EVCLASS_PER_CYCLE);
        ASSERT_EQ(pmvp_event_level_index((uint16_t)number), level ? levels : -1) << number;
        levels += level;
    }
    EXPECT_EQ(levels, pmvp_event_level_count());
}

// A core's events without a list (events NULL): every catalogue event its
// PMU version can number (0x3FF before PMUv3p1), but the AMU's own
// (PMU_OVERFLOW, D16.2); its reportable level events are those, and with
// FEAT_AMUv1 the level events the AMU counts architecturally. Checked by a
// scan of the catalogue against the core's bitmaps, which pmvp_core_init
// builds without one.
TEST(Events, TheDefaultSetIsEveryEventTheVersionNumbersButTheAmusOwn)
{
    struct Case {
        enum pmvp_pmu_version version;
        bool amu;
        std::vector<uint16_t> events;  // empty: the default set
    };
    const Case cases[] = {
        { PMVP_PMUV3, false, {} },
        { PMVP_PMUV3P5, false, {} },
        { PMVP_PMUV3P5, true, {} },
        // STALL_BACKEND_MEM not listed, but counted by AMU counter 3.
        { PMVP_PMUV3P5, true, { PMVP_EV_CPU_CYCLES, PMVP_EV_STALL_BACKEND } },
    };
    for (const Case &k : cases) {
        pmvp_core_config cfg;
        pmvp_core_config_default(&cfg);
        cfg.pmu_version = k.version;
        pmvp_core_config_limit_to_version(&cfg);
        cfg.feat_amuv1 = cfg.feat_amuv1p1 = k.amu;
        cfg.events = k.events.empty() ? nullptr : k.events.data();
        cfg.num_events = (unsigned)k.events.size();
        static pmvp_core core;
        const char *why = nullptr;
        ASSERT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_OK) << k.version << " " << (why ? why : "");
        unsigned max = k.version >= PMVP_PMUV3P1 ? 0xFFFF : 0x3FF, supported = 0;
        uint64_t levels = 0;
        for (size_t i = 0; i < pmvp_event_count(); i++) {
            const pmvp_event_info *e = pmvp_event_at(i);
            bool listed = k.events.empty() ? e->number <= max && e->cls != PMVP_EVCLASS_PMU_OVERFLOW
                                           : std::find(k.events.begin(), k.events.end(), e->number) != k.events.end();
            ASSERT_EQ(core.supported[i / 64] >> i % 64 & 1, listed) << k.version << " " << e->number;
            supported += listed;
            bool by_amu = k.amu && (e->number == PMVP_EV_CPU_CYCLES || e->number == PMVP_EV_CNT_CYCLES ||
                                    e->number == PMVP_EV_INST_RETIRED || e->number == PMVP_EV_STALL_BACKEND_MEM);
            int level = pmvp_event_level_index(e->number);
            if (level >= 0 && (listed || by_amu))
                levels |= UINT64_C(1) << level;
        }
        for (size_t w = (pmvp_event_count() + 63) / 64; w < sizeof core.supported / 8; w++)
            EXPECT_EQ(core.supported[w], 0u) << w;
        EXPECT_EQ(core.reportable_levels, levels) << k.version << " " << k.amu;
        if (k.events.empty()) {
            EXPECT_GT(supported, k.version >= PMVP_PMUV3P1 ? 1000u : 100u);
        }
    }
}

}  // namespace
