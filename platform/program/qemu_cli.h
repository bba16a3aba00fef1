// SPDX-License-Identifier: Apache-2.0
//
// pmvp-qemu-system-aarch64: QEMU's command line for pmvp's virt machine
// (docs/FIRMWARE.md, "QEMU's command line"), so scripts that call
// qemu-system-aarch64 -M virt (kvm-unit-tests' runner, boot lines) run on
// pmvp unchanged. It takes the options of QEMU's virt board that have a
// meaning on pmvp, answers QEMU's help probes as QEMU lists, and refuses
// every other option by name (exit 2).
#pragma once

#include <string>

#include "options.h"

namespace pmvp::soc {

// Whether the program was called by the front end's name (argv[0]).
bool called_as_qemu(const char *argv0);

// The run QEMU's options describe; exits (0) after a help probe, and with
// status 2 naming the option for one refused.
Options parse_qemu_options(int argc, char **argv);

}  // namespace pmvp::soc
