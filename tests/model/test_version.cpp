// SPDX-License-Identifier: Apache-2.0
// The version query: the library reports the version its header was
// generated with, "MAJOR.MINOR.PATCH" from the project version.
#include <gtest/gtest.h>

#include <string>

#include "pmvp/version.h"

TEST(Version, LibraryReportsTheProjectVersion)
{
    std::string v = pmvp_version();
    EXPECT_EQ(v, PMVP_VERSION_STRING);
    EXPECT_EQ(v, std::to_string(PMVP_VERSION_MAJOR) + "." + std::to_string(PMVP_VERSION_MINOR) + "." +
                     std::to_string(PMVP_VERSION_PATCH));
}
