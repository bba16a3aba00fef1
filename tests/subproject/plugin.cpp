// SPDX-License-Identifier: Apache-2.0
// A virtual platform's plugin (a shared library) holding pmvp's monitors,
// their core given by a core description.
#include <memory>

#include "pmvp/config/core_file.h"
#include "pmvp/systemc/monitors.h"

extern "C" void *make_monitors(const char *core)
{
    static pmvp::config::CoreDescription description;
    description = pmvp::config::CoreDescription::load(core);
    return new pmvp::sc::Monitors("monitors", description.config());
}
