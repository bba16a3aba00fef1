// SPDX-License-Identifier: Apache-2.0
//
// The firmware image loader (firmware_image.h).
#include "firmware_image.h"

#include <algorithm>
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

std::vector<uint8_t> read_image(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw ScenarioError(path + ": the firmware image cannot be read");
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::string ram_text(uint64_t ram_size)
{
    return ram_size % (1u << 20) == 0 ? std::to_string(ram_size >> 20) + " MiB at 0x40000000"
                                      : std::to_string(ram_size) + " bytes at 0x40000000";
}

bool fits(uint64_t addr, uint64_t size, uint64_t ram_size)
{
    return addr >= kRamBase && size <= ram_size && addr - kRamBase <= ram_size - size;
}

constexpr uint64_t kMiB = 1u << 20;
constexpr uint64_t kRawOffset = 0x80000;  // QEMU's KERNEL64_LOAD_ADDR
constexpr size_t kArm64Magic = 56;        // "ARM\x64" in an arm64 Image's header
}  // namespace

FirmwareImage load_firmware(const std::string &path, uint64_t ram_size)
{
    return parse_firmware(read_image(path), path, ram_size);
}

FirmwareImage load_kernel(const std::string &path, uint64_t ram_size)
{
    return parse_kernel(read_image(path), path, ram_size);
}

FirmwareImage parse_kernel(const std::vector<uint8_t> &b, const std::string &path, uint64_t ram_size)
{
    if (b.size() >= 4 && std::memcmp(b.data(), "\177ELF", 4) == 0)
        return parse_firmware(b, path, ram_size);
    if (b.empty())
        throw ScenarioError(path + ": the kernel image is empty");
    FirmwareImage img;
    img.format = FirmwareImage::RAW;
    uint64_t offset = kRawOffset, size = b.size();
    if (b.size() > kArm64Magic + 4 && std::memcmp(b.data() + kArm64Magic, "ARM\x64", 4) == 0) {
        img.format = FirmwareImage::ARM64_IMAGE;
        uint64_t text_offset = field<uint64_t>(b, 8), image_size = field<uint64_t>(b, 16);
        if (image_size != 0) {  // text_offset is valid only with image_size
            offset = text_offset < 4096 ? text_offset + 2 * kMiB : text_offset;
            size = std::max<uint64_t>(image_size, b.size());
        }
    }
    if (offset > ram_size || !fits(kRamBase + offset, size, ram_size))
        throw ScenarioError(path + ": the kernel image (" + std::to_string(size) + " bytes at RAM + " +
                            std::to_string(offset) + ") does not fit the RAM (" + ram_text(ram_size) + ")");
    img.entry = img.low = kRamBase + offset;
    img.high = img.low + size;
    img.segments.push_back({ img.low, b });
    return img;
}

uint64_t initrd_address(const FirmwareImage &img, uint64_t ram_size)
{
    const uint64_t after = std::max(kRamBase + std::min(ram_size / 2, 128 * kMiB), img.high);
    return (after + 0xFFF) & ~0xFFFull;
}

uint64_t dtb_address(const FirmwareImage &img, uint64_t ram_size, uint64_t dtb_size, uint64_t initrd_end)
{
    uint64_t at = 0, limit = kRamBase + ram_size;
    if (img.format == FirmwareImage::ELF) {
        if (img.low > kRamBase) {
            at = kRamBase;
            limit = std::min(limit, img.low);
        } else if (img.high < kRamBase) {
            at = kRamBase;
        }
    } else {
        const uint64_t after = initrd_end ? initrd_end : initrd_address(img, ram_size);
        at = (after + 2 * kMiB - 1) & ~(2 * kMiB - 1);
    }
    return at && dtb_size <= limit && at <= limit - dtb_size ? at : 0;
}

FirmwareImage parse_firmware(const std::vector<uint8_t> &b, const std::string &path, uint64_t ram_size)
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
        if (!fits(addr, memsz, ram_size))
            throw ScenarioError(path + ": segment " + std::to_string(i) + " (" + std::to_string(memsz) + " bytes at " +
                                std::to_string(addr) + ") does not fit the RAM (" + ram_text(ram_size) + ")");
        FirmwareImage::Segment s{ addr, std::vector<uint8_t>(b.begin() + (long)off, b.begin() + (long)(off + filesz)) };
        s.bytes.resize(memsz);
        img.low = img.segments.empty() ? addr : std::min(img.low, addr);
        img.high = std::max(img.high, addr + memsz);
        img.segments.push_back(std::move(s));
    }
    if (img.segments.empty())
        throw bad("no loadable segment");
    if (img.entry < kRamBase || img.entry - kRamBase >= ram_size)
        throw bad("its entry point is outside the RAM");
    return img;
}

}  // namespace pmvp::soc
