/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The firmware tests' checks: inside a test, `bool ok = true` and `name`
 * in scope; each EXPECT prints why it failed; report() prints "PASS name"
 * or "FAIL name" and counts it; expect_summary() prints "N passed, N
 * failed" and returns the failures.
 */
#ifndef PMVP_FW_EXPECT_H
#define PMVP_FW_EXPECT_H

#include <stdbool.h>
#include <stdint.h>

bool check(bool ok, const char *name, const char *why, uint64_t got, const char *relation, uint64_t want);
#define EXPECT_EQ(got, want, why) (ok &= check((uint64_t)(got) == (uint64_t)(want), name, why, got, "", want))
#define EXPECT_LT(got, limit, why) (ok &= check((uint64_t)(got) < (uint64_t)(limit), name, why, got, "< ", limit))
#define EXPECT_TRUE(c, why) (ok &= check((c), name, why, (c), "", 1))

void report(const char *name, bool ok);
int expect_summary(void);

#endif
