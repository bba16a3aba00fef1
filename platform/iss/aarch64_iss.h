// SPDX-License-Identifier: Apache-2.0
//
// The ISS's CPU model (iss.h, docs/FIRMWARE.md), shared by the files of
// platform/iss/: each holds one part of it, named by the file.
//
// Aarch64Iss is one core's CPU model: a Unicorn engine per PE thread, run
// loosely timed in quanta by one SystemC process. Its rules:
// - Instruction k of a run (started at instant t0 with the core's clock at
//   f Hz) retires at t0 + k * CPI / f. Retired instructions are counted per
//   translated block (its size / 4, in the block hook), each block
//   classified once by the events its instructions generate
//   (iss_events.h), and told to the monitors with those events and the
//   exceptions and bus accesses between them, lazily: before any access
//   the guest makes to the monitors (so an access sees exactly the events
//   before it), at WFI and at the end of each run.
// - A run keeps one frequency: it ends at the cluster's next DVFS step,
//   which the core tells its monitors at its instant (the ISS owns the
//   clock, Monitors::set_clock).
// - A run ends at the quantum's end, or at the first block that would pass
//   the next occurrence that raises PMUIRQ or freezes counters
//   (pmvp_core_events_to_interrupt for each event the ISS counts,
//   pmvp_core_next_interrupt and pmvp_core_next_freeze for counters of
//   cycles): an interrupt is taken between blocks, so the skid is under one
//   block, and so is the count of a frozen counter past its freeze.
// - MRS/MSR go to the monitors' one-call access (Monitors::execute); a
//   refused access is taken by the guest as the exception the kernel names.
//   The ID registers' monitor fields come from the core's configuration.
// - WFI puts the PE's state to WFI until its interrupt line (PMUIRQ or the
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include <systemc>
#include <tlm>
#include <unicorn/unicorn.h>

#include "pmvp/systemc/monitors.h"

extern "C" {
#include "pmvp/error.h"
}
#include "iss.h"
#include "iss_events.h"
#include "soc.h"

namespace pmvp::soc {

using sc_core::sc_time;
__extension__ typedef unsigned __int128 u128;  // exact instants of instruction counts

// The interrupt sources of the pmvp machine's system-control device.
constexpr uint32_t kIrqPmu = 1, kIrqDoorbell = 2;
constexpr uint32_t kWfi = 0xD503207F;
// Exception vectors: VBAR_EL1 + the offset of where the exception comes
// from (vector_base) + the offset of its kind.
constexpr uint64_t kVectorSync = 0x000, kVectorIrq = 0x080;
constexpr uint64_t kPstateEl1hMasked = 0x3C5;
constexpr uint64_t kPstateI = 1u << 7;
// The generic timer's PPIs on the virt machine: the EL1 physical timer
// (Non-secure), the virtual timer.
constexpr unsigned kTimerIntid[2] = { 30, 27 };

class Aarch64Iss : public Core {
public:
    SC_HAS_PROCESS(Aarch64Iss);
    Aarch64Iss(const sc_core::sc_module_name &name, Soc &soc, const Cluster &cluster, unsigned index,
               unsigned cluster_index, unsigned core_in_cluster, unsigned first_pe, bool attached);
    ~Aarch64Iss() override;

    struct Thread {
        Aarch64Iss *iss = nullptr;
        uc_engine *uc = nullptr;
        unsigned pe = 0, g = 0;  // the PE in its core, and in the SoC (its frames)
        unsigned image_pe = 0;   // among the PEs that run the image (the mailbox's index)
        unsigned selected = 0;   // SYSCTL_SELECT
        pmvp_time now = 0;       // local time: the instant after the last retired instruction
        pmvp_time run_t0 = 0;    // the current run: its start and the clock it runs at
        uint64_t run_n0 = 0, hz = 1;
        // time_of's picoseconds an instruction at `ps_hz` (0: not a whole
        // number), kept: a guest reading the counter or a PMU register in a
        // loop would divide at each read. Not saved: made again from hz.
        mutable uint64_t ps_hz = 0, ps_per_insn = 0;
        uint64_t retired = 0, reported = 0;
        // time_of(reported) as the last tell computed it (a 128-bit division
        // saved), while reported_at_n == reported in the same run; not saved.
        pmvp_time reported_at = 0;
        uint64_t reported_at_n = UINT64_MAX;
        uint64_t block_pc = 0, block_start = 0, block_size = 0;
        // The events (docs/FIRMWARE.md, "Events"): the current block as
        // classified, with the instructions of it already in `pending` or
        // told (`block_told`) and those that retire (`block_retires`: fewer
        // than its instructions when one takes an exception); the events
        // not yet told; the blocks classified. None saved: a run tells all
        // its events before it ends, and blocks are classified again.
        IssBlock *block = nullptr;
        unsigned block_told = 0, block_retires = 0;
        unsigned watching = 0;  // the events in `watch` (below)
        // The next DVFS step, at `step_at`, which a run's last block may pass
        // (a run ends at a step, but runs whole blocks): the instructions
        // after the `step_n`th retire on the edges of `step_clock`, the
        // core's clock from the run's start, stepped. UINT64_MAX: no step
        // ahead. A run's own, set when it starts: not saved.
        uint64_t step_n = UINT64_MAX;
        pmvp_time step_at = 0;
        pmvp_clock step_clock{};
        // The PC of the last System-register access of the current block
        // (Unicorn synchronises the PC there and not at a load or store);
        // UINT64_MAX: none. Not saved: a block's own.
        uint64_t sysreg_pc = UINT64_MAX;
        // The interrupt line is high while PSTATE.I masks it: the run ends
        // at the first block after an instruction that clears PSTATE.I.
        // Not saved: a run's own.
        bool watch_unmask = false;
        // MDSCR_EL1.SS is set: the run ends where PSTATE.D changes
        // (prepare_step). A run's own; beside what the block hook reads.
        bool step_configured = false;
        // The run may read PMCCNTR_EL0 before telling the monitors of the
        // instructions before the read (cycle_reads_first). Not saved: a
        // run's own.
        bool cycle_reads_first = false;
        // Asleep in WFI from this instant, and advanced past it to the
        // quantum's end: a doorbell rung later in the quantum by a thread
        // that ran after it wakes it from max(slept_from, the ring's
        // instant) (Guest::ring). Not saved: a quantum's own.
        pmvp_time slept_from = 0;
        uint64_t limit = 0;  // the run stops before a block that would pass it
        // The block the block hook ended the run before (UINT64_MAX: it did
        // not). A run's own.
        uint64_t stopped_before = UINT64_MAX;
        // The retired count at the run's last exception entry (UINT64_MAX:
        // none yet). A run's own.
        uint64_t exception_at = UINT64_MAX;
        uint64_t interrupt_at = UINT64_MAX;  // the retired count at which PMUIRQ is expected
        bool ran_block = false, stopping = false, wfi = false, exited = false;
        // Powered off (virt: a PE PSCI has not turned on, or CPU_OFF): asleep
        // until a CPU_ON, its monitors told PMVP_PE_OFF.
        bool off = false;
        uint64_t semihosting_errno = 0;  // SYS_ERRNO's
        // Before the next run: the TLB to flush (another PE's broadcast TLB
        // invalidation), the translated code of a block found changed
        // (at `recoded_pc`, `recoded_size` bytes; 0: none) to drop. Not
        // saved: a restored engine has neither.
        bool stale_tlb = false;
        uint64_t recoded_pc = 0, recoded_size = 0;
        uint64_t mpidr = 0;  // virt: MPIDR_EL1 (the device tree's cpu reg)
        // The generic timer's EL1 physical and virtual timers (CNTP_*,
        // CNTV_*; CNTVOFF is 0), on the System Counter.
        struct Timer {
            uint64_t ctl = 0, cval = 0;  // CNTx_CTL_EL0.{ENABLE, IMASK}, CNTx_CVAL_EL0
        } timer[2];
        uint64_t fault_address = 0;  // the last access where nothing is (on_unmapped); a run's own
        uint32_t irq_enable = 0;
        uint8_t el = 1;  // the Exception level the monitors know the PE at (sync_el)
        // DBGBVR<n>_EL1 and DBGBCR<n>_EL1 (breakpoint_access): held here, so
        // that Unicorn never arms a breakpoint (its translator faults on
        // one: the host would crash).
        uint64_t dbgbvr[16] = {}, dbgbcr[16] = {};
        // The breakpoints' and watchpoints' hooks (arm_debug), to arm anew
        // before the next run when `debug_changed` (a DBGB* or DBGW* write).
        // Not saved: a restored PE arms them.
        bool debug_changed = true;
        // PSTATE.D when QEMU's flags were last built (prepare_step). A
        // run's own.
        uint64_t step_d = 0;
        std::vector<uc_hook> debug_hooks;
        // Large: after the fields the block hook reads.
        IssTally pending;
        IssBlockCache blocks;
        // The events whose next occurrences raise PMUIRQ or freeze counters
        // (pmvp_core_events_to_interrupt), each with the occurrences left
        // to it in the current run: the run ends before a block that would
        // pass one. A run's own.
        struct Watch {
            a64::Event event;
            uint64_t left;
        } watch[a64::kNumEvents];
        IssPeResult result;
    };
    std::vector<Thread> threads;

    // The instant at which instruction `retired` retires: instruction k of
    // the current run at t0 + k x CPI / f, or, past a DVFS step, on the
    // (k x CPI)th edge of the clock stepped there, as the monitors count
    // its edges (a clock the step stops holds them at the step).
    pmvp_time time_of(const Thread &t, uint64_t retired) const
    {
        if (retired > t.step_n) {
            pmvp_time e = pmvp_clock_edge_time(&t.step_clock, (retired - t.run_n0) * cluster_.cpu.cpi);
            return e == PMVP_TIME_NEVER ? t.step_at : e;
        }
        if (t.ps_hz != t.hz) {
            const uint64_t ps = cluster_.cpu.cpi * 1000000000000ull;  // (CPI <= 1000: no overflow)
            t.ps_hz = t.hz;
            t.ps_per_insn = ps % t.hz ? 0 : ps / t.hz;
        }
        if (uint64_t d; t.ps_per_insn && !__builtin_mul_overflow(retired - t.run_n0, t.ps_per_insn, &d))
            return t.run_t0 + d;
        return t.run_t0 + (pmvp_time)((u128)(retired - t.run_n0) * cluster_.cpu.cpi * 1000000000000ull / t.hz);
    }
    // The instructions retired before the one at `pc`, in the current block.
    uint64_t retired_before(const Thread &t, uint64_t pc) const
    {
        if (pc >= t.block_pc && pc < t.block_pc + t.block_size)
            return t.block_start + (pc - t.block_pc) / 4;
        return t.retired;
    }
    // The instructions retired before the load or store the guest makes
    // now: exact in a block with one instruction that may access memory
    // (IssBlock::single_access), which makes them all. Elsewhere, Unicorn's
    // PC would say no more than the ISS knows: QEMU's code generator
    // updates it at a System-register access and where a block is entered
    // other than by a chained direct branch, and not at a load or store.
    // So the access is timed at the instruction after the last
    // System-register access in its block, or at the block's first: it may
    // be timed some instructions early, never late, and a load right after
    // an MRS or MSR (any register) is timed exactly (docs/FIRMWARE.md,
    // "Time").
    uint64_t retired_before_access(const Thread &t) const
    {
        if (t.block && t.block->single_access != IssBlock::kNoSingleAccess)
            return t.block_start + t.block->single_access;
        return t.sysreg_pc != UINT64_MAX ? retired_before(t, t.sysreg_pc + 4) : t.block_start;
    }
    sc_time offset(pmvp_time t) const { return time_.to_sc(t - time_.now()); }
    // Tells the monitors the instructions retired up to `upto` (at least
    // those told) and every event pending: its instructions' and the
    // exceptions and bus accesses since the last tell.
    void tell_retired(Thread &t, uint64_t upto);
    bool reads_own_pmccntr(uint64_t address) const;
    tlm::tlm_generic_payload frame_gp;  // the frames' accesses' payload (on_frame_access)
    // The current block ran (the next one starts at `next_pc`): its events
    // not yet told become pending, with its conditional branch's
    // PC_WRITE_RETIRED if it was taken. In the block hook: the common case
    // (a block run whole, told nothing) inline.
    void close_block(Thread &t, uint64_t next_pc)
    {
        IssBlock *b = t.block;
        if (!b)
            return;
        t.block = nullptr;
        const bool whole = t.block_told == 0 && t.block_retires == b->instructions();
        if (whole)
            t.blocks.ran(*b);
        else
            t.pending.add(*b, t.block_told, t.block_retires);
        if (!b->conditional_last || t.block_retires != b->instructions())
            return;
        if (whole && b->target != IssBlock::kNoTarget && !t.watching)
            b->taken += next_pc == b->target;  // counted with its runs
        else
            close_branch(t, *b, next_pc);
    }
    void close_branch(Thread &t, const IssBlock &b, uint64_t next_pc);
    // The instruction at `pc` of the current block took an exception (an
    // UNDEFINED instruction, a refused access): it and those after it did
    // not retire.
    void retire_before(Thread &t, uint64_t pc);
    // An occurrence of `e` that is no instruction's own (an exception, a bus
    // access): pending, and the run ends after it if it interrupts.
    void occur(Thread &t, a64::Event e);
    // Ends the run before the next block. Only the block hook calls
    // uc_emu_stop: called from an MMIO callback it restarts the current
    // block from its start, so the block's accesses would run again.
    void stop(Thread &t) { t.stopping = true; }
    // A broadcast instruction cache (tlb false) or TLB invalidation by PE
    // `from`, made on every other PE: its blocks are checked against their
    // code again, and its TLB is flushed before its next run.
    void broadcast(const Thread &from, bool tlb);
    bool irq_line(Thread &t, pmvp_time at);
    // The System Counter (the generic timer's, the AMU's CNT_CYCLES'): its
    // count at instant `at`, and the first instant it holds `count`.
    uint64_t counter_at(pmvp_time at) const;
    pmvp_time counter_reaches(uint64_t count) const;
    // The generic timer's registers (D12.8): true if `cp` is one, served.
    bool timer_access(Thread &t, bool write, const uc_arm64_cp_reg *cp, uint64_t pc, uint64_t &value);
    // A read of the counter into Xrt at `pc` that polls it in a loop
    // (polling.h): the iterations that go as this one would, up to the
    // run's limit and short of an occurrence that interrupts, retired at
    // once with their events, so that the read is the next one's.
    void fast_forward_poll(Thread &t, uint64_t pc, unsigned rt);
    // GICv3's CPU interface (ICC_*_EL1) on the virt machine: true when `cp`
    // is one of its registers, accessed.
    bool gic_access(Thread &t, bool write, const uc_arm64_cp_reg *cp, uint64_t pc, uint64_t &value);
    // The instant timer k of PE t fires (its condition holds and it is
    // enabled and not masked), PMVP_TIME_NEVER if it never does as set.
    pmvp_time timer_fires(const Thread &t, unsigned k) const;
    pmvp_time next_timer(const Thread &t, pmvp_time after) const;  // virt: one that would be signalled
    void enter_exception(Thread &t, uint64_t vector, uint64_t elr, const uint64_t *esr);
    // The monitors learn the PE's Exception level (PSTATE.EL of `pstate`)
    // where it changed, after the instructions retired before the change
    // (`upto`): at an exception entry, and at the block after an exception
    // return.
    void sync_el(Thread &t, uint64_t pstate, uint64_t upto);
    bool virt() const { return guest_.machine.kind == Machine::VIRT; }
    // virt: the PMU's PPI follows PMUIRQ at `at` (the instructions before
    // it told first).
    void sync_pmu_line(Thread &t, pmvp_time at);
    // When a PE in WFI wakes, at or after t.now (PMVP_TIME_NEVER: not as
    // things stand), on each machine.
    pmvp_time wfi_wake_pmvp(Thread &t);
    pmvp_time wfi_wake_virt(Thread &t);
    // virt: the services of a firmware the machine plays (PSCI over HVC or
    // SMC #0, semihosting over HLT #0xF000) for the instruction at `pc`;
    // false if it is not one of them.
    bool firmware_call(Thread &t, uint64_t pc);
    void psci(Thread &t, pmvp_time at);
    void semihosting(Thread &t, pmvp_time at);
    uint64_t semihosting_call(Thread &t, uint64_t op, uint64_t arg, pmvp_time at);
    void semihosting_console(Thread &t, uint64_t from, uint64_t n, bool string, pmvp_time at);
    uint64_t semihosting_handles(Thread &t, uint64_t op, const uint64_t *w, unsigned words, pmvp_time at);
    bool read_string(Thread &t, uint64_t from, uint64_t n, std::string *s);
    uint64_t semihosting_transfer(Thread &t, uint64_t handle, uint64_t at_guest, uint64_t n, bool to_file);
    void power(Thread &t, bool on, pmvp_time at);  // a PSCI power change of PE t
    // virt: a fetch where nothing is modelled (the run stopped with the PC
    // at it): a synchronous external abort on the fetch, as on QEMU.
    void instruction_abort(Thread &t);
    // A Data Abort (an Instruction Abort if `fetch`) that Unicorn's walk of
    // the guest's tables raised at the PC (aborts.cpp).
    void abort(Thread &t, bool fetch);
    // Self-hosted debug (debug.cpp): breakpoint n of kBreakpoints
    // (ID_AA64DFR0_EL1.BRPs + 1) held in dbgbvr/dbgbcr, and the
    // watchpoints, armed before a run after a change; a Watchpoint
    // exception before access `a` of the instruction at `pc`, a Software
    // Step exception where QEMU reports an UNDEFINED instruction (true:
    // taken).
    static constexpr unsigned kBreakpoints = 6;
    bool breakpoint_hits(const Thread &t, uint64_t address, uint64_t pstate) const;
    void arm_debug(Thread &t);
    bool watchpoint(Thread &t, const a64::Access &a, uint64_t pc);
    bool software_step(Thread &t, uint64_t pc);
    void prepare_step(Thread &t);
    void configure_step(Thread &t, uint64_t mdscr);  // an MSR to MDSCR_EL1
    static bool step_flags_stale(const Thread &t);
    Thread *pe_of_mpidr(uint64_t mpidr);
    // The instructions from t.now up to the first that retires at or after
    // `when` (at least 1); `at_or_before`: those that retire at or before it.
    uint64_t instructions_until(const Thread &t, pmvp_time when, bool at_or_before = false) const;

    Soc &soc_;
    Guest &guest_;
    const Cluster &cluster_;
    pmvp::sc::Monitors *monitors_;  // null when detached
    pmvp::sc::TimeBase time_;

    void checkpoint(Saver &a) override;  // checkpoint.cpp
    void checkpoint(Loader &a) override;

    // Runs every thread up to `until`, the end of the current quantum.
    void quantum(pmvp_time until);
    bool behind(pmvp_time until) const;  // a thread has not reached `until` (rewound by a doorbell)
    bool live() const;                   // a thread has not exited
    bool ended = false;                  // the core's run is over (Soc::iss_core_ended told)

private:
    template <class A> void state(A &a);
    template <class A> static void registers(A &a, Thread &t);
    void tell_clock(pmvp_time through);
    // The events other than INST_RETIRED whose occurrences can interrupt in
    // the run about to start (Thread::watch), asked in one query with
    // INST_RETIRED, whose count it returns.
    uint64_t watch_events(Thread &t);
    bool cycle_reads_first(const Thread &t);
    void advance(Thread &t, pmvp_time until);
    void run_slice(Thread &t, pmvp_time until);
    void drop_stale(Thread &t);
    void open_engine(Thread &t);
    void boot(Thread &t);
    uint64_t take_pending_irq(Thread &t);
    pmvp_time start_run(Thread &t, pmvp_time until);
    uint64_t run_length(Thread &t, pmvp_time until);
    void ended_run(Thread &t, uc_err err, bool wfi_last);
    size_t clock_told_ = 0;          // the DVFS steps told to the monitors
    uint32_t pmccntr_ = UINT32_MAX;  // PMCCNTR_EL0's offset in the PMU frame (attached)
};

// A Unicorn call's result: an exception naming what failed.
void unicorn_ok(uc_err e, const char *what);

// The Unicorn hooks of every engine (open_engine), each in the file of
// what it serves: the block hook (blocks.cpp), the System-register
// instructions (sysregs.cpp), the exceptions Unicorn reports
// (exceptions.cpp), the frames (frames.cpp), and the accesses where
// Unicorn has no region (mmu.cpp).
void on_block(uc_engine *, uint64_t address, uint32_t size, void *user);
uint32_t on_mrs(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, void *user);
uint32_t on_msr(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, void *user);
uint32_t on_sys(uc_engine *, uc_arm64_reg, const uc_arm64_cp_reg *cp, void *user);
void on_interrupt(uc_engine *uc, uint32_t intno, void *user);
// The PMU and AMU frames of every PE mapped into thread t's engine
// (frames.cpp).
void map_frames(Aarch64Iss::Thread &t);

// An access to a physical address where Unicorn has no region (it looks its
// regions up after the guest's translation): the PE stops there, the
// address kept for the report.
bool on_unmapped(uc_engine *uc, uc_mem_type type, uint64_t address, int size, int64_t value, void *user);

// The guest's EL1&0 stage 1 translation of a virtual address (mmu.cpp):
// what its tables say of it (kOff: the MMU is off, the address physical),
// at which level, and the last descriptor read.
struct Stage1 {
    enum Fault { kMapped, kOff, kTranslation, kAccessFlag, kExternal } fault;
    int level;
    uint64_t pa;
    uint64_t descriptor;
};
Stage1 walk_stage1(uc_engine *uc, uint64_t va);
uint64_t translate(uc_engine *uc, uint64_t va);  // the physical address, or UINT64_MAX if not mapped
// Reads (writes) `n` bytes at virtual address `va` through the guest's
// tables (Unicorn's uc_mem_read and uc_mem_write take physical addresses);
// false if they do not map them all.
bool read_virtual(uc_engine *uc, uint64_t va, void *to, size_t n);
bool write_virtual(uc_engine *uc, uint64_t va, const void *from, size_t n);
// Xn, or XZR (0) for n = 31.
uint64_t xreg(uc_engine *uc, unsigned n);
// The registers an instruction's data address is computed from, as the
// engine holds them (aborts.cpp).
a64::Registers engine_registers(uc_engine *uc);

// Each machine's devices mapped into thread t's engine (machine_pmvp.cpp,
// machine_virt.cpp).
void map_pmvp_devices(Aarch64Iss::Thread &t);
void map_virt_devices(Aarch64Iss::Thread &t);

}  // namespace pmvp::soc
