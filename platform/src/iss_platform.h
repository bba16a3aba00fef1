// SPDX-License-Identifier: Apache-2.0
//
// The example SoC with real AArch64 firmware (docs/FIRMWARE.md): every core
// of the scenario's clusters is a pmvp::sc::Monitors with one Unicorn engine
// per PE thread (Aarch64Iss), executing a bare-metal ELF image at EL1. The
// engines share the RAM; each PE has the platform's system-control device
// (console, exit, its identity, a small interrupt controller with a doorbell)
// and reaches every PE's PMU and AMU frame through the TLM bus.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario.h"

namespace pmvp::soc {

// Platform memory map of an ISS scenario (the PMU and AMU frames are at
// kFramesBase as in every scenario).
constexpr uint64_t kRamBase = 0x40000000;
constexpr uint64_t kRamSize = 16u << 20;
constexpr uint64_t kSysctlBase = 0x0A000000;

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

struct IssPeResult {
    unsigned cluster = 0, core = 0, thread = 0;
    std::string console;           // what the guest wrote
    bool exited = false;           // the guest wrote its exit status
    uint32_t status = 0;
    pmvp_time exit_time = 0;
    uint64_t exit_instructions = 0; // retired before the exit write
    uint64_t instructions = 0;     // retired, as told to the monitors
    uint64_t interrupts = 0;       // IRQ exceptions taken
    uint64_t exceptions = 0;       // synchronous exceptions taken (UNDEFINED, traps, SVC)
    uint64_t bus_errors = 0;       // frame accesses the bus refused (read as zero)
    uint64_t max_skid = 0;         // instructions from a PMUIRQ-raising overflow to the IRQ
    uint64_t pmccntr = 0, pmovsset = 0;
    uint64_t amu[PMVP_AMU_ARCH_COUNTERS] = {};
};

struct IssResult {
    std::vector<IssPeResult> pes;  // by global PE
    double host_seconds = 0;
    bool attached = true;          // false: no monitors, so no counts to report
    bool all_exited() const;
    bool all_passed() const;       // every PE exited with status 0
};

// Runs the scenario; `attached` false runs the same engines with no
// monitors, for measuring their cost: the guest's PMU and AMU accesses then
// get no answer from pmvp (UNDEFINED, or Unicorn's own register where an
// access cannot be refused, docs/FIRMWARE.md).
IssResult run_iss(const Scenario &s, bool attached = true);
void print_iss_report(FILE *out, const Scenario &s, const IssResult &r);
nlohmann::json iss_report_json(const Scenario &s, const IssResult &r);

}  // namespace pmvp::soc
