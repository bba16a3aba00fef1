// SPDX-License-Identifier: Apache-2.0
//
// What a pmvp-soc run is asked to do, as its command line says it: by
// pmvp-soc's own options (main.cpp) or by QEMU's (qemu_cli.h).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "report.h"
#include "scenario.h"

namespace pmvp::soc {

// The run as QEMU runs it (qemu_cli.h): the machine's console on standard
// output, nothing else there, and QEMU's exit status.
struct QemuRun {
    bool on = false;
    std::string program = "pmvp-qemu-system-aarch64";  // the name errors begin with
    std::string scenario;                              // the run's scenario, made from QEMU's options
    FILE *report = nullptr;                            // -pmvp-report: where the readable report goes (null: none)
    bool no_reboot = false;                            // -no-reboot
};

struct Options {
    std::string scenario_path, json_path, vcd_path, save_path, restore_path, plot_path, dumpdtb_path;
    std::string csv;  // -x: the CSV separator; empty: readable
    pmvp_time save_at = 0, interval = 0;
    Overrides overrides;
    Detail detail = Detail::AUTO;
    bool check = false, quiet = false, detached = false, show_config = false;
    uint64_t check_limit = 400000000;
    uint64_t vcd_limit_mib = 1024;
    QemuRun qemu;
};

}  // namespace pmvp::soc
