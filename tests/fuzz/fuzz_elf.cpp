// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the ISS's firmware image loader (platform/scenario/
// firmware_image.cpp), as the pmvp machine reads an image (ELF) and as the
// virt machine reads a kernel (ELF, arm64 Image or raw), with the device
// tree's place. Invariants (tests/fuzz/README.md): any bytes are an image or
// a ScenarioError naming the file, never another exception, a crash or a
// read outside the bytes; an image it takes has an entry point and segments
// inside the guest's RAM, each no larger than its room, and a device tree
// placed inside the RAM without overlapping the image; a Linux image's or
// raw binary's initrd goes after the image, and the device tree after it.
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

namespace {

void check_image(const pmvp::soc::FirmwareImage &img, uint64_t ram)
{
    using namespace pmvp::soc;
    if (img.entry < kRamBase || img.entry - kRamBase >= ram)
        broken("an entry point outside the RAM");
    if (img.segments.empty())
        broken("an image without a segment");
    for (const FirmwareImage::Segment &s : img.segments)
        if (s.address < kRamBase || s.bytes.size() > ram || s.address - kRamBase > ram - s.bytes.size())
            broken("a segment outside the RAM");
    const uint64_t dtb_size = 0x2000, at = dtb_address(img, ram, dtb_size);
    if (at && (at < kRamBase || at - kRamBase > ram - dtb_size))
        broken("a device tree outside the RAM");
    if (at && at < img.high && img.low < at + dtb_size)
        broken("a device tree over the image");
    if (img.format == FirmwareImage::ELF)
        return;
    const uint64_t initrd = initrd_address(img, ram), initrd_size = 0x10000;
    if (initrd < img.high || (initrd & 0xFFF))
        broken("an initrd over the image, or not on a page");
    const uint64_t after = dtb_address(img, ram, dtb_size, initrd + initrd_size);
    if (after && after < initrd + initrd_size)
        broken("a device tree over the initrd");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace pmvp::soc;
    const std::vector<uint8_t> bytes(data, data + size);
    for (bool kernel : { false, true }) {
        const uint64_t ram = kernel ? 32u << 20 : kRamSize;
        try {
            check_image(kernel ? parse_kernel(bytes, "fuzz.elf", ram) : parse_firmware(bytes, "fuzz.elf"), ram);
        } catch (const ScenarioError &e) {
            if (std::string(e.what()).rfind("fuzz.elf: ", 0) != 0)
                broken("a refusal that does not name the file");
        }
    }
    return 0;
}
