// SPDX-License-Identifier: Apache-2.0
//
// A SystemC platform whose core comes from a core description
// (docs/CORE.md) instead of C: the file or preset named on the command line,
// the Cortex-A53 preset without one. It prints the configuration's
// identification registers as a guest reads them and checks that PMCR_EL0
// shows the description's IMP, IDCODE and N; it exits non-zero if not, and
// with 2 and the reason if the description is refused.
#include <cstdio>
#include <string>

#include <systemc>

#include "pmvp/config/core_file.h"
#include "pmvp/systemc/monitors.h"

extern "C" {
#include "pmvp/error.h"
#include "pmvp/fields.h"
#include "pmvp/pmu.h"
}

int sc_main(int argc, char **argv)
{
    const std::string name = argc > 1 ? argv[1] : "cortex-a53";
    pmvp::config::CoreDescription core;
    try {
        core = pmvp::config::CoreDescription::load(name);
    } catch (const pmvp::config::Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    pmvp::sc::Monitors monitors("monitors", core.config());
    int status = 1;
    sc_core::sc_spawn([&] {
        uint64_t pmcr = 0;
        if (monitors.pmu_read(0, PMVP_PMCR_EL0, 0, pmcr) != PMVP_OK)
            return;
        const pmvp_core_config &c = core.config();
        std::printf("%s: %u PE(s), %u event counters; PMCR_EL0 = 0x%08llX\n%s\n", name.c_str(), c.num_pes,
                    c.num_counters, (unsigned long long)pmcr, core.id_registers().dump(2).c_str());
        bool as_described = PMVP_FIELD_GET(PMVP_PMCR_EL0_N, pmcr) == c.num_counters &&
                            (c.feat_pmuv3p7 || (PMVP_FIELD_GET(PMVP_PMCR_EL0_IMP, pmcr) == c.pmcr_imp &&
                                                PMVP_FIELD_GET(PMVP_PMCR_EL0_IDCODE, pmcr) == c.pmcr_idcode));
        status = as_described ? 0 : 1;
    });
    sc_core::sc_start();
    return status;
}
