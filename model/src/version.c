/* SPDX-License-Identifier: Apache-2.0 */
#include "pmvp/version.h"

const char *pmvp_version(void)
{
    return PMVP_VERSION_STRING;
}
