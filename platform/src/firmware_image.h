// SPDX-License-Identifier: Apache-2.0
//
// A firmware image for the ISS (docs/FIRMWARE.md): an ELF64 AArch64
// executable whose loadable segments fit the guest's RAM. Without SystemC
// or Unicorn, so that the loader is tested and fuzzed on its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pmvp::soc {

// The guest's RAM.
constexpr uint64_t kRamBase = 0x40000000;
constexpr uint64_t kRamSize = 16u << 20;

// The image: its loadable segments, checked against the RAM map.
struct FirmwareImage {
    uint64_t entry = 0;
    struct Segment {
        uint64_t address;
        std::vector<uint8_t> bytes;  // file bytes, then zeroes up to the memory size
    };
    std::vector<Segment> segments;
};

// Reads an ELF64 image for AArch64. Throws ScenarioError naming the file if
// it is missing, not an ELF64 AArch64 executable, or does not fit the RAM.
FirmwareImage load_firmware(const std::string &path);
// The same for the file's bytes, `path` naming it in a refusal.
FirmwareImage parse_firmware(const std::vector<uint8_t> &bytes, const std::string &path);

}  // namespace pmvp::soc
