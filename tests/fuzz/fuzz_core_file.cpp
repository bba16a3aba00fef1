// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the core description reader (config/). Invariants
// (tests/fuzz/README.md): any text is a description or a config::Error,
// never another exception or a crash; a description it takes is one the
// kernel initialises; what it writes reads back to the same description.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pmvp/config/core_file.h"

extern "C" {
#include "pmvp/error.h"
}

namespace {

[[noreturn]] void broken(const char *what, const std::string &text)
{
    std::fprintf(stderr, "invariant broken: %s: \"%s\"\n", what, text.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    pmvp::config::CoreDescription d;
    try {
        d = pmvp::config::CoreDescription::parse(text, "fuzz");
    } catch (const pmvp::config::Error &) {
        return 0;  // refused, with its reason
    }
    static pmvp_core core;
    if (pmvp_core_init(&core, &d.config()) != PMVP_OK)
        broken("a description the reader took is one the kernel refuses", text);
    const std::string once = d.to_json().dump();
    try {
        if (pmvp::config::CoreDescription::parse(once, "written").to_json().dump() != once)
            broken("what the writer wrote reads back to another description", text);
    } catch (const pmvp::config::Error &e) {
        broken(e.what(), text);
    }
    return 0;
}
