// SPDX-License-Identifier: Apache-2.0
//
// The firmware image loader (firmware_image.h).
#include "firmware_image.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "scenario.h"

namespace pmvp::soc {

namespace {
constexpr uint16_t kEmAarch64 = 183;  // ELF e_machine of AArch64

template <class T> T field(const std::vector<uint8_t> &b, size_t at)
{
    T v;
    std::memcpy(&v, b.data() + at, sizeof v);
    return v;
}
}  // namespace

FirmwareImage load_firmware(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw ScenarioError(path + ": the firmware image cannot be read");
    return parse_firmware(std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()),
                          path);
}

FirmwareImage parse_firmware(const std::vector<uint8_t> &b, const std::string &path)
{
    auto bad = [&](const std::string &why) { return ScenarioError(path + ": not a firmware image for pmvp: " + why); };
    if (b.size() < 64 || std::memcmp(b.data(), "\177ELF", 4) != 0)
        throw bad("not an ELF file");
    if (b[4] != 2 || b[5] != 1)
        throw bad("not a 64-bit little-endian ELF file");
    if (field<uint16_t>(b, 18) != kEmAarch64)
        throw bad("an ELF file for machine " + std::to_string(field<uint16_t>(b, 18)) + ", not AArch64 (183)");
    FirmwareImage img;
    img.entry = field<uint64_t>(b, 24);
    uint64_t phoff = field<uint64_t>(b, 32);
    uint16_t phentsize = field<uint16_t>(b, 54), phnum = field<uint16_t>(b, 56);
    // Every bound below is checked without a sum that could wrap.
    if (phentsize < 56 || phoff > b.size() || (uint64_t)phnum * phentsize > b.size() - phoff)
        throw bad("its program headers lie outside the file");
    for (unsigned i = 0; i < phnum; i++) {
        size_t h = phoff + (size_t)i * phentsize;
        if (field<uint32_t>(b, h) != 1)  // PT_LOAD
            continue;
        uint64_t off = field<uint64_t>(b, h + 8), addr = field<uint64_t>(b, h + 16);
        uint64_t filesz = field<uint64_t>(b, h + 32), memsz = field<uint64_t>(b, h + 40);
        if (filesz > memsz || off > b.size() || filesz > b.size() - off)
            throw bad("segment " + std::to_string(i) + " lies outside the file");
        if (addr < kRamBase || memsz > kRamSize || addr - kRamBase > kRamSize - memsz)
            throw ScenarioError(path + ": segment " + std::to_string(i) + " (" + std::to_string(memsz) +
                                " bytes at " + std::to_string(addr) + ") does not fit the RAM (16 MiB at 0x40000000)");
        FirmwareImage::Segment s{ addr, std::vector<uint8_t>(b.begin() + (long)off, b.begin() + (long)(off + filesz)) };
        s.bytes.resize(memsz);
        img.segments.push_back(std::move(s));
    }
    if (img.segments.empty())
        throw bad("no loadable segment");
    if (img.entry < kRamBase || img.entry >= kRamBase + kRamSize)
        throw bad("its entry point is outside the RAM");
    return img;
}

}  // namespace pmvp::soc
