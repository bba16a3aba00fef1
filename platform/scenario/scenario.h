// SPDX-License-Identifier: Apache-2.0
//
// A scenario: the SoC to build, what each PE thread does, what the firmware
// programs, and for how long. Read from JSON (format in
// platform/scenarios/README.md); every error names the field and the reason.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pmvp/config/core_file.h"
#include "pmvp/config/units.h"

extern "C" {
#include "pmvp/core.h"
#include "pmvp/events.h"
#include "pmvp/x86.h"
}

namespace pmvp::soc {

// A bad scenario: `what()` is "<source>: <field path>: <reason>".
struct ScenarioError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What a PE thread does for a while (its workload timeline).
struct Phase {
    enum Kind { RUN, WFI, WFE, OFF } kind = RUN;
    pmvp_time duration = 0;  // ps
    // RUN: instructions retired per processor cycle the thread executes,
    // and the shares of those cycles stalled in the backend and, of them,
    // stalled on memory (STALL_BACKEND, STALL_BACKEND_MEM).
    double ipc = 1.0, stall_backend = 0.0, stall_backend_mem = 0.0;
    pmvp_context ctx{ 1, PMVP_NONSECURE, false, false, false };  // RUN: where it executes
};

struct Workload {
    std::vector<Phase> phases;
    bool repeat = true;  // start again after the last phase
};

// A processor-clock frequency from an instant on.
struct DvfsStep {
    pmvp_time at = 0;
    uint64_t hz = 0;
};

// The CPU model of a cluster's cores: the analytic one (its threads run
// `workloads`), or the AArch64 instruction-set simulator running a firmware
// image (docs/FIRMWARE.md).
struct CpuModel {
    enum Kind { ANALYTIC, ISS } kind = ANALYTIC;
    std::string firmware;  // ISS: the image, as found (an ELF file for AArch64)
    uint64_t cpi = 1;      // ISS: processor cycles per instruction
    // ISS: a loop polling the System Counter retires at once the iterations
    // that go the same way (docs/FIRMWARE.md, "Polling loops").
    bool fast_forward_polling = true;
};

struct Cluster {
    std::string name;
    CpuModel cpu;
    bool iss() const { return cpu.kind == CpuModel::ISS; }
    unsigned cores = 1;
    pmvp_core_config config{};  // one core: its PEs (threads), PMU, AMU, clock
    // The core description the cluster named, which holds the arrays
    // `config` points to (its supported events, ...); null when none.
    std::shared_ptr<const config::CoreDescription> core;
    std::vector<DvfsStep> dvfs;
    // The processor clock's frequency at instant t (DVFS steps included).
    uint64_t hz_at(pmvp_time t) const;
    // The first DVFS step after instant t, or nullptr (a binary search: a
    // run's cost grows with its steps, not their square).
    const DvfsStep *next_step(pmvp_time t) const;
    // SoEMT: the active thread runs this long before a long-latency event
    // switches the core to its next running thread.
    pmvp_time soemt_switch = 0;
    std::vector<Workload> workloads;  // thread t runs workloads[t % size]
    pmvp_pmu_controls controls{};     // MDCR_EL2/EL3 as EL2/EL3 software sets them
};

// One event counter the firmware programs on every PE.
struct CounterSetup {
    unsigned counter = 0;
    uint16_t event = 0;
    uint64_t evtyper = 0;        // PMEVTYPER<n> as written: event, filter bits, MT
    uint64_t sample_period = 0;  // > 0: overflow interrupt every this many counts
    bool threshold = false;      // TC, TE, TLC or TH given (D13.8): in evtyper's top half
    // The external agent's (FEAT_PMUv3_EXTPMN): in the third range, which
    // the agent reserves (PMCCR.EPMN: the lowest such counter) and programs
    // and reads by Most secure accesses.
    bool external = false;
};

struct FirmwareSetup {
    std::vector<CounterSetup> counters;
    // The lowest counter of the external agent (PMCCR.EPMN it writes), or
    // PMVP_MAX_COUNTERS: no external counter.
    unsigned epmn = PMVP_MAX_COUNTERS;
    bool cycle_counter = true;  // PMCNTENSET.C
    uint64_t pmccfiltr = 0;
    uint64_t pmcr = 0;  // bits written with PMCR.E
    uint64_t cycle_sample_period = 0;
    pmvp_time irq_latency = 0;  // from PMUIRQ rising to the handler's first access
};

// An x86 core (docs/PMVP-SOC.md, "x86 scenarios"): what each logical
// processor does, and the P-state steps.
struct X86Phase {
    enum Kind { RUN, HLT, MWAIT } kind = RUN;  // MWAIT: a deep C-state
    pmvp_time duration = 0;
    uint64_t ipc_milli = 1000;  // RUN: instructions per 1000 core cycles
    uint8_t cpl = 0;            // RUN: privilege level
};

struct X86Setup {
    pmvp_x86_config config{};
    std::vector<DvfsStep> pstates;               // core-clock frequency from an instant on
    std::vector<std::vector<X86Phase>> threads;  // each LP's timeline; halted after its end
};

// A synchronous-sampling run (docs/PMVP-SOC.md, "SEBEP scenarios"): one PE
// retiring instructions one by one while a profiler samples `event` every
// `sample_period` of them with synchronous PMU exceptions, once per profile
// of the permitted inaccuracy.
struct SebepProfile {
    std::string name;
    pmvp_inaccuracy inaccuracy{};  // the shadow-effect knob (a)
    uint64_t headroom = 1;         // the threshold of the sampled event
};

struct SebepSetup {
    uint64_t hz = 2000000000;
    pmvp_time instruction_time = 500;  // between two retired instructions
    uint16_t event = PMVP_EV_INST_RETIRED;
    // The sampling counter: event counter 0 (PMEVTYPER0_EL0.SYNC), or the
    // instruction counter (PMICFILTR_EL0.SYNC, FEAT_PMUv3_ICNTR).
    bool instruction_counter = false;
    uint64_t sample_period = 0;
    pmvp_time handler_time = 0;  // from PPEND to the exception return
    std::vector<SebepProfile> profiles;
};

// The machine the ISS clusters' PEs make (docs/FIRMWARE.md): pmvp's own
// (its system-control device) or one compatible with QEMU's `virt` board.
struct Machine {
    enum Kind { PMVP, VIRT } kind = PMVP;
    uint64_t memory = 0;  // virt: the RAM's size in bytes (0: 128 MiB)
    std::string append;   // virt: the kernel's command line (/chosen/bootargs)
    std::string initrd;   // virt: the initial RAM disk's file (empty: none), as QEMU's -initrd
    std::string dtb;      // virt: a device tree file to boot with instead of the machine's own, as QEMU's -dtb
    // virt: the virtio console on the last virtio-mmio transport, and where
    // its output goes: none, QEMU's chr-testdev (its exit protocol), or the
    // machine's console.
    enum Virtconsole { NO_VIRTCONSOLE, TESTDEV, CONSOLE } virtconsole = NO_VIRTCONSOLE;
    unsigned gic_version = 2;  // virt: a GICv2 or a GICv3, as QEMU's -machine gic-version
    bool semihosting = true;
    bool pci_testdev = false;  // virt: QEMU's pci-testdev on the PCI Express bus, as -device pci-testdev
    // virt: the host directory whose files semihosting gives the guest
    // (empty: none).
    std::string semihosting_dir;
    uint64_t ram() const;  // the RAM's size the machine has
};

struct Scenario {
    std::string name, description;
    Machine machine;
    pmvp_time duration = 0;
    // An x86 scenario has this and no clusters or firmware.
    std::optional<X86Setup> x86;
    // A SEBEP scenario has this and no clusters or firmware.
    std::optional<SebepSetup> sebep;
    pmvp_time quantum = 0;  // how far a workload runs ahead between synchronisations
    uint64_t system_counter_hz = 0, bus_hz = 0;
    std::vector<Cluster> clusters;
    FirmwareSetup firmware;
    // What the run will not do that the scenario asks for (a DVFS step after
    // the end, ...), found by apply_overrides once the duration is final.
    std::vector<std::string> warnings;

    // Whether some cluster runs firmware on the ISS, and whether some runs
    // the analytic CPU model (the two mix: docs/PMVP-SOC.md).
    bool has_iss() const;
    bool has_analytic() const;
    unsigned num_cores() const;
    unsigned num_pes() const;
};

// Parses a scenario; `source` names it in errors.
Scenario parse_scenario(const std::string &text, const std::string &source);

// The command line's overrides, applied to every cluster.
struct Overrides {
    unsigned cores = 0, threads = 0;  // 0: keep
    int mt_policy = -1;               // enum pmvp_mt_policy, -1: keep
    uint64_t hz = 0;                  // initial processor frequency (DVFS steps kept)
    pmvp_time duration = 0;
    pmvp_time quantum = 0;    // how far the CPU models run ahead (0: keep)
    int machine = -1;         // Machine::Kind, -1: keep
    std::string kernel;       // every ISS cluster's image (empty: keep)
    bool has_append = false;  // append: the virt machine's command line
    std::string append;
    std::string initrd;            // the virt machine's initial RAM disk (empty: keep)
    uint64_t memory = 0;           // the virt machine's RAM (0: keep)
    unsigned smp = 0;              // the ISS PEs, in the one ISS cluster (0: keep)
    bool no_fast_forward = false;  // every ISS cluster's polling loops run iteration by iteration
};
// Applies them, then checks the result again; throws ScenarioError.
void apply_overrides(Scenario &s, const Overrides &o);

// Times, frequencies and events as scenarios and the command line write them.
using config::parse_hz;
using config::parse_time;
using config::time_text;
const char *mt_policy_name(pmvp_mt_policy p);
int parse_mt_policy(const std::string &text);  // -1 if unknown
int parse_machine(const std::string &text);    // Machine::Kind, -1 if unknown
// A RAM size as QEMU's -m writes it: a number with a K, M or G suffix
// (KiB, MiB, GiB; "MiB" and the like too), MiB without one. Throws
// std::invalid_argument saying what is expected.
uint64_t parse_memory(const std::string &text);
// A scenario for the virt machine alone (pmvp-soc --machine virt without a
// scenario file): one ISS cluster of one core, its image given by --kernel.
extern const char *const kVirtScenario;

}  // namespace pmvp::soc
