// SPDX-License-Identifier: Apache-2.0
//
// pmvp-soc's own command line (docs/PMVP-SOC.md, "Options"), and the way
// both of its command lines (this one and QEMU's, qemu_cli.h) speak.
#pragma once

#include <string>

#include "options.h"

namespace pmvp::soc {

// The program's name as its messages begin: pmvp-soc, or the QEMU front
// end's.
extern const char *program;
// A message on standard error, after the program's name.
__attribute__((format(printf, 1, 2))) void say(const char *format, ...);
// A refused command line: the reason, where the options are listed; exit 2.
[[noreturn]] void usage_error(const std::string &msg);

// The run pmvp-soc's options describe. Exits after --help, --version and
// --presets, and with status 2, naming the option, for one refused.
Options parse_options(int argc, char **argv);

}  // namespace pmvp::soc
