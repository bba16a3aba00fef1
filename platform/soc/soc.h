// SPDX-License-Identifier: Apache-2.0
//
// The example SoC: built from a Scenario, it has per cluster a processor
// clock with its DVFS schedule, per core a pmvp::sc::Monitors with a CPU
// model (the workload of each of its PE threads), one bus with a router that
// maps every PE's PMU and AMU frames, an interrupt collector on the PMUIRQ
// lines, and one firmware agent that programs, services and reads the PMUs
// through the bus.
//
// Memory map (docs/PMVP-SOC.md): PE g (numbered cluster by cluster, core by
// core, thread by thread) has its PMU frame at kFramesBase + g * kPeWindow
// and its AMU frame 4 KiB above it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "checkpoint.h"
#include "journal.h"
#include "pmvp/systemc/monitors.h"
#include "scenario.h"

namespace pmvp::soc {

// A STEP input is one input to the monitors.
static_assert(2 * PMVP_MAX_PES <= pmvp::sc::Monitors::kMaxLevelChanges);

// The simulation runs at SystemC's default resolution of 1 ps, the kernel's
// unit of time (sc_main refuses to start otherwise): the present, and t ps
// as an sc_time (from ticks: exact beyond the 2^53 ps a double holds, and
// cheap).
inline pmvp_time now_ps()
{
    return sc_core::sc_time_stamp().value();
}
inline sc_core::sc_time ps(pmvp_time t)
{
    return sc_core::sc_time::from_value(t);
}

constexpr uint64_t kFramesBase = 0x10000000;
constexpr uint64_t kPeWindow = 0x2000;

// Where a PE sits.
struct PeId {
    unsigned cluster, core, thread;  // core: index in the SoC
    unsigned global;                 // g of the memory map
    bool iss;                        // its cluster runs firmware on the ISS
};

// The bus: one target socket for every initiator (the firmware agent, the
// ISS cores' loads and stores), one initiator binding per frame (2g: PMU
// frame of PE g, 2g + 1: its AMU frame). An address outside every frame
// gets TLM_ADDRESS_ERROR_RESPONSE.
class Router : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<Router> target;
    tlm_utils::multi_passthrough_initiator_socket<Router> frames;
    Router(const sc_core::sc_module_name &name, unsigned num_pes);

private:
    bool decode(tlm::tlm_generic_payload &gp, unsigned &index, uint64_t &offset) const;
    void b_transport(int initiator, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    unsigned int transport_dbg(int initiator, tlm::tlm_generic_payload &gp);
    unsigned num_pes_;
};

// Counts the rising edges of every PE's PMUIRQ and queues them for the
// firmware. An edge is a line seen high that was last seen low: so a line a
// restored run drives to the level it had at the checkpoint is no new edge.
class InterruptCollector : public sc_core::sc_module {
public:
    sc_core::sc_vector<sc_core::sc_in<bool>> irq;
    SC_HAS_PROCESS(InterruptCollector);
    InterruptCollector(const sc_core::sc_module_name &name, unsigned num_pes);
    std::vector<uint64_t> raised;  // rising edges per PE
    std::deque<unsigned> pending;  // PEs whose line rose, not yet taken
    sc_core::sc_event taken;       // notified when `pending` grows
    template <class A> void state(A &a);

private:
    void edge();
    std::vector<uint8_t> seen_;  // each line's level when last looked at
};

class Soc;

// The kernel configuration of core `core_in_cluster` of cluster `cluster`:
// the cluster's, with the core's MPIDR_EL1.
pmvp_core_config core_config(const Cluster &c, unsigned cluster, unsigned core_in_cluster);

// What every core has, whatever its CPU model: its monitors (null when
// detached), its PMUIRQ lines, where it sits, and the journal of the inputs
// its CPU model gave the monitors (kept by the analytic model for --check).
class Core : public sc_core::sc_module {
public:
    Core(const sc_core::sc_module_name &name, const Cluster &cluster, unsigned index, unsigned first_pe);
    // A call to the monitors that failed ends the run: the message names the
    // core, the call and the kernel's error.
    void check(int err, const char *what) const;
    // Checkpoint (checkpoint.h): the monitors' state and PMUIRQ levels, then
    // the CPU model's. A loaded core's monitors take their state when the
    // restored run reaches the checkpoint's instant (restore_monitors).
    virtual void checkpoint(Saver &a) = 0;
    virtual void checkpoint(Loader &a) = 0;
    void restore_monitors();
    std::unique_ptr<pmvp::sc::Monitors> monitors;
    sc_core::sc_vector<sc_core::sc_signal<bool>> pmuirq;
    Journal journal;
    const Cluster &cluster;
    const unsigned index, first_pe;

protected:
    template <class A> void monitors_state(A &a);

private:
    std::vector<uint8_t> monitors_checkpoint_;  // loaded, until restore_monitors
};

// A core of the analytic CPU model: the PE signals, and the workloads of its
// threads. Every input it gives the monitors is journalled. Without monitors
// (`attached` false) it runs the same workloads and produces the same
// inputs, given to no one: the platform's cost without the monitors, for
// comparison.
class AnalyticCore : public Core {
public:
    SC_HAS_PROCESS(AnalyticCore);
    AnalyticCore(const sc_core::sc_module_name &name, Soc &soc, const Cluster &cluster, unsigned index,
                 unsigned cluster_index, unsigned core_in_cluster, unsigned first_pe,
                 sc_core::sc_signal<uint64_t> &clock, bool attached);
    sc_core::sc_vector<sc_core::sc_signal<bool>> wfi, wfe, power;
    void checkpoint(Saver &a) override { state(a); }
    void checkpoint(Loader &a) override { state(a); }

private:
    struct Thread;
    template <class A> void state(A &a);
    void run();
    void boot();
    void segment(pmvp_time a, pmvp_time b);
    void change_states(pmvp_time a);
    void switch_soemt(pmvp_time a);
    void retire(pmvp_time a, pmvp_time b);
    // A running thread's part of a segment: its count at a and what it
    // retires by b; the instants its stalls end.
    struct Plan {
        double retired_at_a = 0, retires = 0;
        pmvp_time stall_end = 0, mem_end = 0;
    };
    unsigned plan_threads(pmvp_time a, pmvp_time b, Plan *plan, pmvp_time *cuts);
    void tell_stretch(pmvp_time a, pmvp_time b, pmvp_time from, pmvp_time cut, const Plan *plan);
    // An input for the monitors: told at once, or for a STATE input written
    // to the signals. The model gives its inputs in time order (each segment
    // from its start on, each stretch's after the one before), which costs
    // the monitors least: a call for an instant before one they have
    // evaluated rebuilds their view of the future.
    void give(const Input &in);
    // Journals an input and gives it to the monitors.
    void tell(const Input &in);
    void set_levels(unsigned t, Thread &th, bool stall, bool mem, Input &step);
    void give_step(const Input &step);
    void sync_to(pmvp_time t);
    Soc &soc_;
    // The model's state, all of it between two instants (a checkpoint):
    // its threads, and where it is in time (the start of the next segment,
    // which is also the instant its process waits for).
    std::vector<Thread> th_;
    pmvp_time a_ = 0;
    unsigned active_ = 0;        // SoEMT: the active thread
    pmvp_time next_switch_ = 0;  // SoEMT: the next long-latency event
};

// The firmware agent: a bus initiator that programs the PMU of every PE of
// the analytic clusters at time 0, takes their PMUIRQ (reads PMOVSSET,
// clears it, re-arms sampling counters), and reads their counters when the
// scenario ends. The PEs of ISS clusters are their guest firmware's.
class Firmware : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<Firmware> bus;
    SC_HAS_PROCESS(Firmware);
    Firmware(const sc_core::sc_module_name &name, Soc &soc);

    // What a PE's counters counted up to an instant.
    struct PeCounts {
        // What each counter counted: for a sampling counter, the periods
        // sampled and the count since the last re-arm; last: cycle counter.
        std::vector<uint64_t> counted;
        std::vector<uint64_t> samples;  // overflows taken, by entry; last: cycle counter
        uint64_t amu[PMVP_AMU_ARCH_COUNTERS] = {};
        std::vector<uint64_t> aux;  // the AMU's auxiliary counters, AMEVCNTR1<n>
    };
    // The final read: the counts, and the registers as read.
    struct PeReadout : PeCounts {
        uint64_t pmccntr = 0, pmovsset = 0;
        std::vector<uint64_t> evcntr;  // by firmware.counters entry
        bool off_at_end = false;       // read through the debug path instead
    };
    std::vector<PeReadout> readout;  // by global PE
    // PE g's counts now, as the final read would find them, through the
    // monitors' debug path: no access on the bus, nothing journalled,
    // nothing changed (pmvp-soc --interval).
    PeCounts counts_now(unsigned g) const;
    pmvp_time finished = 0;
    uint64_t deferred = 0;  // interrupts taken late: their PE was off
    template <class A> void state(A &a);

private:
    void run();
    void take_waiting();
    void drain();
    bool wait_for_work();
    void program(unsigned g);
    void service(unsigned g);
    bool powered(unsigned g);
    void final_read(unsigned g);
    // An access to `name` (instance n) of PE g's frame f; `top`: its
    // [63:32] row of the EXT32 view (I5.2 note d), for a 64-bit register;
    // `agent`: the external agent's, a Most secure access (else Non-secure).
    uint64_t access(unsigned g, pmvp_frame f, const std::string &name, unsigned n, bool write, uint64_t v,
                    bool debug = false, bool top = false, bool agent = false);
    uint64_t overflow_modulus(unsigned g, bool cycle_counter) const;
    uint64_t rearmed(unsigned g, bool cycle_counter, uint64_t value, uint64_t period, uint64_t *missed) const;
    uint64_t counted(unsigned g, bool cycle_counter, uint64_t value, uint64_t period, uint64_t samples) const;
    uint64_t pmu_read(unsigned g, pmvp_pmu_reg reg, unsigned n = 0, bool agent = false);
    void pmu_write(unsigned g, pmvp_pmu_reg reg, unsigned n, uint64_t value, bool agent = false);
    uint64_t amu_read(unsigned g, pmvp_amu_reg reg, unsigned n, bool debug);
    uint64_t pmu_read_debug(unsigned g, pmvp_pmu_reg reg, unsigned n);
    void journal(unsigned g, Input::Kind kind, unsigned reg, unsigned n, uint64_t value);
    Soc &soc_;
    // PMUIRQ is level-sensitive: an interrupt from a PE that is off when its
    // handler would run waits until the PE is on again, if its line is
    // still high then.
    std::vector<unsigned> waiting_;
    // The instant the handler of the interrupt at the front of the
    // collector's queue runs (irq_latency after it was taken), or NEVER.
    pmvp_time serve_at_ = PMVP_TIME_NEVER;
};

class Guest;

class Soc : public sc_core::sc_module, public Checkpointed {
public:
    SC_HAS_PROCESS(Soc);
    // `journalling`: keep every input of every core for --check.
    // `attached` false: no monitors, and so no bus, interrupts or firmware
    // agent; the CPU models alone. Throws ScenarioError for a firmware image
    // it cannot load (load_firmware).
    // `resume_at` above 0: a restored run (checkpoint.h). load() gives every
    // component the state it had at that instant before the simulation
    // starts; every process then waits for it, doing nothing before; when
    // simulated time is there, restore_monitors() gives the monitors theirs.
    Soc(const sc_core::sc_module_name &name, const Scenario &scenario, bool journalling, bool attached = true,
        pmvp_time resume_at = 0);
    ~Soc() override;

    // Checkpoint: the state of every component at the current instant, with
    // no process in the middle of it (the simulation paused between two
    // instants: sc_start(T)). Throws CheckpointError when it cannot be.
    void save(Saver &a) override;
    void load(Loader &a) override;
    void restore_monitors() override;

    const Scenario &scenario;
    const pmvp_time resume_at;  // above 0: a restored run, from that instant
    std::vector<PeId> pes;
    std::vector<std::unique_ptr<Core>> cores;  // analytic and ISS, in the scenario's order
    std::unique_ptr<Router> router;            // these three null when detached
    std::unique_ptr<InterruptCollector> interrupts;
    std::unique_ptr<Firmware> firmware;
    std::unique_ptr<Guest> guest;  // what the ISS cores share; null without ISS clusters
    bool progress = false;         // report progress on stderr after a few seconds
    sc_core::sc_event powered_on;  // a PE came out of power-off (the monitors see it)
    // Called every thousandth of the run's simulated time: where the command
    // looks at what happened outside the simulation (a SIGINT, the VCD's size).
    std::function<void()> watch;
    // Calls `sample` with the instant at every multiple of `interval` before
    // the end of the run, and first at a restored run's start (pmvp-soc
    // --interval). Before the simulation starts.
    void sample_every(pmvp_time interval, std::function<void(pmvp_time)> sample);
    // Ends the run at the current instant: the firmware agent reads the
    // counters there and stops the simulation (a partial report follows).
    void interrupt();
    bool interrupted = false;
    // An ISS core whose PEs have all exited. When every core is an ISS core
    // and all have ended, the run ends there: nothing is left to run.
    void iss_core_ended();
    bool ended_early = false;  // by interrupt() or by the guests' exits
    const sc_core::sc_event &end_event() const { return end_; }

    Core &core_of(unsigned g) { return *cores[pes[g].core]; }
    AnalyticCore &analytic_core_of(unsigned g) { return static_cast<AnalyticCore &>(*cores[pes[g].core]); }
    unsigned thread_of(unsigned g) const { return pes[g].thread; }

private:
    template <class A> void state(A &a);
    void end_now();
    void dvfs(unsigned cluster);
    void show_progress();
    void sample_intervals(pmvp_time interval, std::function<void(pmvp_time)> sample);
    std::vector<std::unique_ptr<sc_core::sc_signal<uint64_t>>> clocks_;
    sc_core::sc_event end_;
    unsigned iss_cores_running_ = 0;
};

}  // namespace pmvp::soc
