// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the ISS's firmware image loader (platform/src/
// firmware_image.cpp). Invariants (tests/fuzz/README.md): any bytes are an
// image or a ScenarioError naming the file, never another exception, a
// crash or a read outside the bytes; an image it takes has an entry point
// and segments inside the guest's RAM, each no larger than its room.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "firmware_image.h"
#include "scenario.h"

namespace {

[[noreturn]] void broken(const char *what)
{
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace pmvp::soc;
    FirmwareImage img;
    try {
        img = parse_firmware(std::vector<uint8_t>(data, data + size), "fuzz.elf");
    } catch (const ScenarioError &e) {
        if (std::string(e.what()).rfind("fuzz.elf: ", 0) != 0)
            broken("a refusal that does not name the file");
        return 0;
    }
    if (img.entry < kRamBase || img.entry >= kRamBase + kRamSize)
        broken("an entry point outside the RAM");
    if (img.segments.empty())
        broken("an image without a segment");
    for (const FirmwareImage::Segment &s : img.segments)
        if (s.address < kRamBase || s.bytes.size() > kRamSize || s.address - kRamBase > kRamSize - s.bytes.size())
            broken("a segment outside the RAM");
    return 0;
}
