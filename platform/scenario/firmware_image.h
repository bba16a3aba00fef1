// SPDX-License-Identifier: Apache-2.0
//
// A firmware image for the ISS (docs/FIRMWARE.md): an ELF64 AArch64
// executable whose loadable segments fit the guest's RAM, or, on the virt
// machine, a kernel as QEMU's `-kernel` takes it (an ELF, an arm64 Linux
// Image or a raw binary). Without SystemC or Unicorn, so that the loader is
// tested and fuzzed on its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pmvp::soc {

// The guest's RAM: its base on both machines, its size on the pmvp machine
// (the virt machine's is the scenario's, machine.memory).
constexpr uint64_t kRamBase = 0x40000000;
constexpr uint64_t kRamSize = 16u << 20;
constexpr uint64_t kVirtRamSize = 128u << 20;  // the virt machine's default, as QEMU's

// The image: its loadable segments, checked against the RAM map.
struct FirmwareImage {
    // How it was read: QEMU boots an ELF as bare-metal code (its DTB at the
    // RAM's base if the image leaves room) and the others as Linux kernels
    // (the DTB after the image, 2 MiB aligned).
    enum Format { ELF, ARM64_IMAGE, RAW } format = ELF;
    uint64_t entry = 0;
    uint64_t low = 0, high = 0;  // the first byte the image takes and the first after it
    struct Segment {
        uint64_t address;
        std::vector<uint8_t> bytes;  // file bytes, then zeroes up to the memory size
    };
    std::vector<Segment> segments;
};

// Reads an ELF64 image for AArch64. Throws ScenarioError naming the file if
// it is missing, not an ELF64 AArch64 executable, or does not fit the RAM
// of `ram_size` bytes at kRamBase.
FirmwareImage load_firmware(const std::string &path, uint64_t ram_size = kRamSize);
// The same for the file's bytes, `path` naming it in a refusal.
FirmwareImage parse_firmware(const std::vector<uint8_t> &bytes, const std::string &path, uint64_t ram_size = kRamSize);

// A kernel for the virt machine, read as QEMU's virt board reads `-kernel`
// (hw/arm/boot.c): an ELF file at its addresses; an arm64 Linux Image
// ("ARM\x64" at byte 56) at the RAM's base plus its text_offset (plus 2 MiB
// if that offset is under 4 KiB); any other file as a raw binary at the
// RAM's base + 0x80000. Throws ScenarioError naming the file.
FirmwareImage load_kernel(const std::string &path, uint64_t ram_size);
FirmwareImage parse_kernel(const std::vector<uint8_t> &bytes, const std::string &path, uint64_t ram_size);

// Where the virt machine puts an initrd for Linux image or raw binary `img`
// (QEMU's -initrd): at the first page at or after both the image's end and
// the RAM's middle (at most 128 MiB in).
uint64_t initrd_address(const FirmwareImage &img, uint64_t ram_size);
// Where the virt machine puts the device tree for `img` (QEMU's rule): for
// an ELF, at the RAM's base if the image does not start at or below it and
// end above it; for a Linux image, at the first 2 MiB boundary at or after
// the initrd's end (`initrd_end`, 0 if none), or the place an initrd would
// go. 0: no room (the DTB of `dtb_size` bytes would not fit).
uint64_t dtb_address(const FirmwareImage &img, uint64_t ram_size, uint64_t dtb_size, uint64_t initrd_end = 0);

}  // namespace pmvp::soc
