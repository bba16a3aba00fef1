// SPDX-License-Identifier: Apache-2.0
// The lazy kernel against the per-cycle reference model, count for count.
#include <gtest/gtest.h>

#include <cstdlib>

#include "differential.h"

#ifndef PMVP_DIFF_FIRST_SEED
#define PMVP_DIFF_FIRST_SEED 1
#endif
#ifndef PMVP_DIFF_SCENARIOS
#define PMVP_DIFF_SCENARIOS 10000
#endif

namespace {

uint64_t env_or(const char *name, uint64_t fallback)
{
    const char *v = std::getenv(name);
    return v ? std::strtoull(v, nullptr, 0) : fallback;
}

TEST(Differential, LazyKernelMatchesPerCycleReference)
{
    // PMVP_DIFF_SEED / PMVP_DIFF_COUNT choose another range of scenarios.
    const uint64_t seed = env_or("PMVP_DIFF_SEED", PMVP_DIFF_FIRST_SEED);
    const uint64_t count = env_or("PMVP_DIFF_COUNT", PMVP_DIFF_SCENARIOS);
    uint64_t checks = 0, frozen = 0;
    for (uint64_t i = 0; i < count; i++) {
        pmvp::ref::ScenarioResult r = pmvp::ref::run_scenario(seed + i);
        checks += r.checks;
        frozen += r.frozen;
        ASSERT_TRUE(r.ok) << r.failure;
    }
    RecordProperty("comparisons", std::to_string(checks));
    RecordProperty("frozen_check_points", std::to_string(frozen));
    EXPECT_GT(checks, count * 10);
    // The scenarios reach freeze on overflow (D13.5.2.1), not only its controls.
    EXPECT_GT(frozen, count / 100);
}

}  // namespace
