// SPDX-License-Identifier: Apache-2.0
//
// The ISS CPU model of the example SoC (docs/FIRMWARE.md): a core of an ISS
// cluster is a pmvp::sc::Monitors with one Unicorn engine per PE thread
// (Aarch64Iss), executing a bare-metal ELF image at EL1. The ISS cores of a
// SoC share the guest RAM (Guest); each PE has the platform's
// system-control device (console, exit, its identity, a small interrupt
// controller with a doorbell) and reaches every PE's PMU and AMU frame,
// those of the analytic cores included, through the SoC's TLM bus.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "a64_events.h"
#include "checkpoint.h"
#include "firmware_image.h"
#include "pmvp/systemc/support.h"
#include "scenario.h"
#include "virt.h"
#include "pci.h"
#include "semihosting_files.h"
#include "virtio.h"

namespace pmvp::soc {

// The guest's memory map: its RAM (firmware_image.h), the system-control
// device, and the PMU and AMU frames at kFramesBase as in every scenario.
constexpr uint64_t kSysctlBase = 0x0A000000;

struct IssPeResult {
    unsigned pe = 0, cluster = 0, core = 0, thread = 0;  // pe: the global PE
    std::string console;                                 // what the guest wrote
    bool exited = false;                                 // the guest wrote its exit status
    uint32_t status = 0;
    pmvp_time exit_time = 0;
    uint64_t exit_instructions = 0;  // retired before the exit write
    uint64_t instructions = 0;       // retired, as told to the monitors
    uint64_t interrupts = 0;         // IRQ exceptions taken
    uint64_t exceptions = 0;         // synchronous exceptions taken (UNDEFINED, traps, SVC)
    uint64_t bus_errors = 0;         // frame accesses the bus refused (read as zero)
    uint64_t max_skid = 0;           // instructions from a PMUIRQ-raising overflow to the IRQ
    uint64_t fast_forwarded = 0;     // of `instructions`, those retired by fast-forwarding polling loops
    std::string ended_by;  // what ended its run: "SYSCTL_EXIT", "PSCI SYSTEM_OFF", "semihosting SYS_EXIT", ...
    uint64_t aborts = 0;   // virt: instruction fetches where nothing is, taken as external aborts
    uint64_t pmccntr = 0, pmovsset = 0;
    // Each event the ISS told the monitors (a64_events.h), by a64::Event;
    // none when detached.
    uint64_t events[a64::kNumEvents] = {};
    bool has_amu = false;  // the core implements FEAT_AMUv1: amu[] holds its counters
    uint64_t amu[PMVP_AMU_ARCH_COUNTERS] = {};
};

struct IssResult {
    std::vector<IssPeResult> pes;  // the ISS clusters' PEs, by global PE
    // virt: what the PEs wrote to the PL011, in the order of its instants
    // (the PEs' own consoles hold what else each wrote: semihosting, the
    // platform's notes).
    std::optional<std::string> console;
    double host_seconds = 0;
    bool attached = true;  // false: no monitors, so no counts to report
    bool all_exited() const;
    bool all_passed() const;  // every PE exited with status 0
};

class Soc;
class Core;
class Aarch64Iss;

// What the ISS cores of a SoC share: the guest RAM holding the image, the
// port their loads and stores to the frames take to the SoC's bus, and the
// doorbell of each PE that runs the image (the guest numbers those PEs 0 to
// n - 1 in the SoC's order; their frames are those of their SoC PE).
class Guest : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(Guest);
    // Throws ScenarioError naming the image if it cannot be loaded.
    // Detached (`attached` false), the virt machine's device tree has no PMU.
    Guest(const sc_core::sc_module_name &name, Soc &soc, bool attached);
    ~Guest() override;
    FirmwareImage image;
    uint8_t *ram = nullptr;
    const Machine machine;
    const uint64_t ram_size;
    // The frames' window every engine maps at kFramesBase: those of the
    // SoC's PEs, each access made on the bus (frames.cpp).
    const uint64_t frames_size;
    // The virt machine's devices and device tree (null / empty on pmvp's).
    std::unique_ptr<virt::Gic> gic;
    virt::Pl011 uart;
    // virt: the characters written to the PL011, each with its instant
    // (in each PE's order; the PEs of a quantum run one after another).
    std::string uart_out;
    std::vector<pmvp_time> uart_at;
    std::string uart_console() const;  // uart_out in the order of the instants
    // virt: the virtio-mmio transports (the virtio console on the last when
    // the machine has one) and the chr-testdev behind it.
    std::vector<virt::VirtioMmio> virtio;
    virt::TestDev testdev;
    std::unique_ptr<virt::PciBus> pci;              // the PCI Express bus
    std::unique_ptr<virt::SemihostingFiles> files;  // semihosting's host files (the machine's semihosting_dir)
    // The machine's console as QEMU prints it (-serial stdio), when set: the
    // bytes of the PL011, of semihosting and of the virtio console, in the
    // order of their instants, written out as each quantum ends.
    FILE *console_stream = nullptr;
    void console_put(char c, pmvp_time at);
    // The bytes the virtio console transmitted at `at`, to its backend.
    void virtconsole_put(char c, pmvp_time at);
    std::vector<uint8_t> dtb;
    uint64_t dtb_at = 0;          // its address in RAM (0: none, as QEMU when the image leaves no room)
    std::vector<uint8_t> initrd;  // virt: the initial RAM disk, at initrd_at
    uint64_t initrd_at = 0;
    std::vector<uint64_t> mpidr;                             // virt: each PE's MPIDR_EL1, by PE of the image
    tlm_utils::simple_initiator_socket_optional<Guest> bus;  // unbound when detached
    struct Doorbell {
        bool rung = false;
        pmvp_time at = 0;  // the instant it was rung
    };
    std::vector<Doorbell> doorbell;        // by PE of the image (SYSCTL PE): one per ISS PE
    unsigned image_pes = 0;                // numbered so far, in the SoC's order
    std::vector<Aarch64Iss *> cores;       // the ISS cores, in the SoC's order: one process runs them all
    void ring(unsigned pe, pmvp_time at);  // DOORBELL_SET of the image's PE `pe`
    // Wakes the image's PE `pe` from a WFI it slept past `at` because it ran
    // earlier in the quantum (a doorbell, an SGI, a CPU_ON).
    void wake(unsigned pe, pmvp_time at);
    // The whole machine's run ends at `at` (PSCI SYSTEM_OFF, a semihosting
    // exit): every PE stops there with `status`.
    void end_all(pmvp_time at, uint32_t status, const std::string &by);
    bool ended = false;                   // end_all was called: the machine's run ended
    uint32_t end_status = 0;              // with this status
    bool reset_asked = false;             // by PSCI SYSTEM_RESET
    template <class A> void state(A &a);  // checkpoint.h

private:
    void run();
    bool pause_until(pmvp_time t);
    pmvp_time last_instant() const;
    void load_ram(uint8_t *to) const;
    void flush_console();
    std::vector<std::pair<pmvp_time, char>> console_pending_;  // console_stream's bytes not yet written
    Soc &soc_;
    pmvp::sc::TimeBase time_;
    std::string path_;    // the image's file
    pmvp_time wake_ = 0;  // the end of the current quantum, which the process waits for
};

// A core of ISS cluster `cluster` (its monitors null when not `attached`:
// its ID registers then say it has no PMU and no AMU, and the guest's
// accesses to their registers get no answer from pmvp, UNDEFINED, or
// Unicorn's own register where an access cannot be refused,
// docs/FIRMWARE.md).
std::unique_ptr<Core> make_iss_core(const sc_core::sc_module_name &name, Soc &soc, const Cluster &cluster,
                                    unsigned index, unsigned cluster_index, unsigned core_in_cluster, unsigned first_pe,
                                    bool attached);

// What the virt machine loads into its RAM for the scenario, where QEMU's
// direct kernel boot puts it: the image (load_kernel), the initial RAM disk
// (machine.initrd, after a Linux Image or raw binary: initrd_address), and
// the device tree (its RAM, the ISS PEs with their MPIDRs, the devices,
// /chosen's bootargs and initrd) at dtb_at (0: no room for it). Throws
// ScenarioError naming the file that cannot be loaded or does not fit.
struct VirtBoot {
    FirmwareImage image;
    std::vector<uint8_t> initrd;
    uint64_t initrd_at = 0;
    std::vector<uint8_t> dtb;
    uint64_t dtb_at = 0;
};
VirtBoot virt_boot(const Scenario &s, const std::string &image_path, bool pmu = true);
// The ISS clusters' image (one for all, parse_scenario): empty if none is
// given yet.
const std::string &iss_image(const Scenario &s);
// MPIDR_EL1 of each ISS PE on the virt machine, in the guest's order: Aff0
// the core and Aff1 the cluster, or, in a multithreaded core, Aff0 the
// thread, Aff1 the core, Aff2 the cluster with MT set.
std::vector<uint64_t> virt_mpidrs(const Scenario &s);

// What the ISS PEs of a SoC did, after its run.
IssResult iss_result(const Soc &soc, double host_seconds);
void print_iss_report(FILE *out, const Scenario &s, const IssResult &r);
nlohmann::ordered_json iss_report_json(const Scenario &s, const IssResult &r);

}  // namespace pmvp::soc
