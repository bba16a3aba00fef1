// SPDX-License-Identifier: Apache-2.0
//
// The ISS platform (iss_platform.h, docs/FIRMWARE.md).
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
//   doorbell, as enabled in the system-control device) is high.
#include "iss_platform.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <unicorn/unicorn.h>

#include "pmvp/systemc/monitors.h"

extern "C" {
#include "pmvp/error.h"
}
#include "iss_events.h"
#include "report.h"
#include "soc.h"

// Unicorn 2.0.1 does not free the code bitmap QEMU makes for a page whose
// translated code the guest writes over (tb_invalidate_phys_page_fast) when
// the engine is closed: a sanitizer build's LeakSanitizer is told so, and
// still reports every other leak.
#if defined(__SANITIZE_ADDRESS__)  // gcc
#define PMVP_ASAN 1
#elif defined(__has_feature)  // clang
#if __has_feature(address_sanitizer)
#define PMVP_ASAN 1
#endif
#endif
#ifdef PMVP_ASAN
extern "C" const char *__lsan_default_suppressions()
{
    return "leak:tb_invalidate_phys_page_fast_aarch64\n";
}
#endif

namespace pmvp::soc {

using sc_core::sc_time;
__extension__ typedef unsigned __int128 u128;  // exact instants of instruction counts

bool IssResult::all_exited() const
{
    return std::all_of(pes.begin(), pes.end(), [](const IssPeResult &p) { return p.exited; });
}

bool IssResult::all_passed() const
{
    return std::all_of(pes.begin(), pes.end(), [](const IssPeResult &p) { return p.exited && p.status == 0; });
}

// ------------------------------------------------------------------ the ISS

namespace {

// The system-control device (docs/FIRMWARE.md): offsets.
enum : uint64_t {
    SYSCTL_CONSOLE = 0x00,
    SYSCTL_EXIT = 0x04,
    SYSCTL_PE = 0x08,
    SYSCTL_NUM_PES = 0x0C,
    SYSCTL_THREAD = 0x10,
    SYSCTL_CORE_HZ = 0x14,
    SYSCTL_CPI = 0x18,
    SYSCTL_SYSCNT_HZ = 0x1C,
    SYSCTL_IRQ_STATUS = 0x20,
    SYSCTL_IRQ_ENABLE = 0x24,
    SYSCTL_DOORBELL_SET = 0x28,
    SYSCTL_DOORBELL_CLEAR = 0x2C,
    SYSCTL_THREADS = 0x30,
    SYSCTL_WFX = 0x34,
    SYSCTL_SOC_PE = 0x38,
    SYSCTL_SOC_PES = 0x3C,
    SYSCTL_TIME = 0x40,
    SYSCTL_SELECT = 0x48,
    SYSCTL_SELECTED_MODEL = 0x4C,
    SYSCTL_SELECTED_HZ = 0x50,
};
constexpr uint32_t kModelAnalytic = 0, kModelIss = 1, kNoSuchPe = 0xFFFFFFFF;
constexpr uint32_t kIrqPmu = 1, kIrqDoorbell = 2;
constexpr uint32_t kWfi = 0xD503207F;
// Exception vectors: VBAR_EL1 + the offset of where the exception comes
// from (vector_base) + the offset of its kind.
constexpr uint64_t kVectorSync = 0x000, kVectorIrq = 0x080;
constexpr uint64_t kPstateEl1hMasked = 0x3C5;
constexpr uint64_t kPstateI = 1u << 7;
// The alias regions an engine makes at most (on_unmapped): each is a
// region Unicorn searches on an access.
constexpr unsigned kMaxAliases = 16384;
constexpr uint64_t kCntCtlEnable = 1, kCntCtlImask = 2, kCntCtlIstatus = 4;
// The generic timer's PPIs on the virt machine: the EL1 physical timer
// (Non-secure), the virtual timer.
constexpr unsigned kTimerIntid[2] = { 30, 27 };
constexpr uint64_t kScrNs = 1u << 0, kScrRw = 1u << 10, kHcrRw = 1ull << 31;
// The longest stretch an SMT thread runs before its siblings catch up
// (Aarch64Iss::quantum): the default quantum's.
constexpr pmvp_time kSmtSlice = 10000000;  // 10 us

// The CPU's own values of the ID registers whose monitor fields pmvp sets:
// Unicorn's default CPU is Cortex-A72-like, and these are the Cortex-A72
// TRM's reset values (debug, trace and breakpoint fields kept).
struct IdBase {
    unsigned crm, op2;
    uint64_t value;
};
constexpr IdBase kIdBase[] = {
    { 4, 0, 0x0000000000002222 },  // ID_AA64PFR0_EL1
    { 5, 0, 0x0000000010305106 },  // ID_AA64DFR0_EL1
    { 5, 1, 0x0000000000000000 },  // ID_AA64DFR1_EL1
    { 1, 0, 0x0000000000000131 },  // ID_PFR0_EL1
    { 1, 2, 0x0000000003010066 },  // ID_DFR0_EL1
    { 3, 5, 0x0000000000000000 },  // ID_DFR1_EL1
};

// The vector table's quarter for an exception taken to EL1 from PSTATE
// `pstate`: the current EL with SP_EL0 or SP_EL1, or a lower EL in AArch64.
uint64_t vector_base(uint64_t pstate)
{
    if (((pstate >> 2) & 3) == 0)
        return 0x400;
    return (pstate & 1) ? 0x200 : 0x000;
}

unsigned rt_index(uc_arm64_reg rt)
{
    if (rt >= UC_ARM64_REG_X0 && rt <= UC_ARM64_REG_X28)
        return (unsigned)(rt - UC_ARM64_REG_X0);
    if (rt == UC_ARM64_REG_X29)
        return 29;
    if (rt == UC_ARM64_REG_X30)
        return 30;
    return 31;  // XZR
}

}  // namespace

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
        // The run may read PMCCNTR_EL0 before telling the monitors of the
        // instructions before the read (cycle_reads_first). Not saved: a
        // run's own.
        bool cycle_reads_first = false;
        // Asleep in WFI from this instant, and advanced past it to the
        // quantum's end: a doorbell rung later in the quantum by a thread
        // that ran after it wakes it from max(slept_from, the ring's
        // instant) (Guest::ring). Not saved: a quantum's own.
        pmvp_time slept_from = 0;
        uint64_t limit = 0;                  // the run stops before a block that would pass it
        uint64_t interrupt_at = UINT64_MAX;  // the retired count at which PMUIRQ is expected
        bool ran_block = false, stopping = false, wfi = false, exited = false;
        // Powered off (virt: a PE PSCI has not turned on, or CPU_OFF): asleep
        // until a CPU_ON, its monitors told PMVP_PE_OFF.
        bool off = false;
        uint64_t mpidr = 0;    // virt: MPIDR_EL1 (the device tree's cpu reg)
        unsigned aliases = 0;  // the engine's alias regions (on_unmapped); not saved: remade
        // The generic timer's EL1 physical and virtual timers (CNTP_*,
        // CNTV_*; CNTVOFF is 0), on the System Counter.
        struct Timer {
            uint64_t ctl = 0, cval = 0;  // CNTx_CTL_EL0.{ENABLE, IMASK}, CNTx_CVAL_EL0
        } timer[2];
        uint64_t fault_address = 0;  // the last access where nothing is (on_unmapped); a run's own
        uint32_t irq_enable = 0;
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
    bool irq_line(Thread &t, pmvp_time at);
    // The System Counter (the generic timer's, the AMU's CNT_CYCLES'): its
    // count at instant `at`, and the first instant it holds `count`.
    uint64_t counter_at(pmvp_time at) const;
    pmvp_time counter_reaches(uint64_t count) const;
    // The generic timer's registers (D12.8): true if `cp` is one, served.
    bool timer_access(Thread &t, bool write, const uc_arm64_cp_reg *cp, uint64_t pc, uint64_t &value);
    // The instant timer k of PE t fires (its condition holds and it is
    // enabled and not masked), PMVP_TIME_NEVER if it never does as set.
    pmvp_time timer_fires(const Thread &t, unsigned k) const;
    pmvp_time next_timer(const Thread &t, pmvp_time after) const;  // virt: one that would be signalled
    void enter_exception(Thread &t, uint64_t vector, uint64_t elr, const uint64_t *esr);
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
    void power(Thread &t, bool on, pmvp_time at);  // a PSCI power change of PE t
    // virt: a fetch where nothing is modelled (the run stopped with the PC
    // at it): a synchronous external abort on the fetch, as on QEMU.
    void instruction_abort(Thread &t);
    Thread *pe_of_mpidr(uint64_t mpidr);
    // The instructions from t.now up to the first that retires at or after
    // `when` (at least 1); `at_or_before`: those that retire at or before it.
    uint64_t instructions_until(const Thread &t, pmvp_time when, bool at_or_before = false) const;

    Soc &soc_;
    Guest &guest_;
    const Cluster &cluster_;
    pmvp::sc::Monitors *monitors_;  // null when detached
    pmvp::sc::TimeBase time_;

    void checkpoint(Saver &a) override { state(a); }
    void checkpoint(Loader &a) override { state(a); }

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
    void open_engine(Thread &t);
    void boot(Thread &t);
    uint64_t take_pending_irq(Thread &t);
    pmvp_time start_run(Thread &t, pmvp_time until);
    uint64_t run_length(Thread &t, pmvp_time until);
    void ended_run(Thread &t, uc_err err);
    size_t clock_told_ = 0;          // the DVFS steps told to the monitors
    uint32_t pmccntr_ = UINT32_MAX;  // PMCCNTR_EL0's offset in the PMU frame (attached)
};

namespace {

// ---- Unicorn callbacks

// PSTATE.I is clear. Every instruction that can clear it ends its
// translated block (MSR DAIFClr, MSR DAIF and the other System-register
// writes, ERET, an exception entry), so the block hook sees the change
// before the next instruction runs.
bool irq_unmasked(const Aarch64Iss::Thread &t)
{
    uint64_t pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    return !(pstate & kPstateI);
}

uint64_t translate(uc_engine *uc, uint64_t va);  // the guest's stage 1 tables (below)

// Where a block's instructions are now (IssBlockCache::Locate): in the
// guest's RAM when its physical address is there (one page of it with the
// MMU on), or read.
IssBlockCache::Code locate_code(void *ctx, uint64_t pc, unsigned n, uint32_t *buf)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(ctx);
    const Guest &g = t.iss->guest_;
    uc_arm64_cp_reg sctlr{ 1, 0, 3, 0, 0, 0 };
    uc_reg_read(t.uc, UC_ARM64_REG_CP_REG, &sctlr);
    const bool mmu = sctlr.val & 1;
    const uint64_t pa = mmu ? translate(t.uc, pc) : pc, bytes = 4ull * n;
    if (pa != UINT64_MAX && pa >= kRamBase && pa - kRamBase <= g.ram_size - bytes &&
        (!mmu || (pc & 0xFFF) + bytes <= 0x1000))
        return { reinterpret_cast<const uint32_t *>(g.ram + (pa - kRamBase)), true };
    if (uc_mem_read(t.uc, pc, buf, bytes) != UC_ERR_OK)
        std::memset(buf, 0, bytes);  // it ran, so it is there: not reached
    return { buf, false };
}

// The block would pass an occurrence of a watched event (Thread::watch).
// A conditional branch at its end is taken as taken.
bool passes_watch(const Aarch64Iss::Thread &t, const IssBlock &b)
{
    for (unsigned i = 0; i < t.watching; i++) {
        const auto &w = t.watch[i];
        const uint64_t c = b.count[w.event] + (w.event == a64::PC_WRITE_RETIRED && b.conditional_last);
        if (w.left == 0 || c > w.left)
            return true;
    }
    return false;
}

// Whether the run stops before block b of n instructions: a stop asked for
// elsewhere in the previous block, or the block passes the run's limit or
// an occurrence that interrupts, or the previous block unmasked a pending
// interrupt (at least one block per run). Out of the block hook's way.
__attribute__((noinline)) bool stops_before(Aarch64Iss::Thread &t, const IssBlock &b, uint64_t n)
{
    if (!t.stopping &&
        !(t.ran_block && (t.retired + n > t.limit || passes_watch(t, b) || (t.watch_unmask && irq_unmasked(t)))))
        return false;
    t.stopping = true;
    uc_emu_stop(t.uc);
    return true;
}

// The watched events' occurrences left, after block b.
__attribute__((noinline)) void watch_block(Aarch64Iss::Thread &t, const IssBlock &b)
{
    for (unsigned i = 0; i < t.watching; i++) {
        auto &w = t.watch[i];
        w.left -= std::min<uint64_t>(w.left, b.count[w.event]);
    }
}

// The block hook. A detached core classifies its blocks too: it is the same
// CPU model, producing the same inputs, given to no monitors.
void on_block(uc_engine *, uint64_t address, uint32_t size, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    const uint64_t n = size / 4;
    IssBlock &b = t.blocks.get(address, size, locate_code, &t, t.pending);
    // The common case decided with one test: no stop asked for, the limit
    // not passed, nothing watched.
    if (__builtin_expect(t.stopping | (t.ran_block & ((t.retired + n > t.limit) | (t.watching != 0) | t.watch_unmask)),
                         0) &&
        stops_before(t, b, n))
        return;
    t.iss->close_block(t, address);
    t.ran_block = true;
    t.sysreg_pc = UINT64_MAX;
    t.block_pc = address;
    t.block_start = t.retired;
    t.block_size = size;
    t.retired += n;
    t.block = &b;
    t.block_told = 0;
    t.block_retires = (unsigned)n;
    if (t.watching)
        watch_block(t, b);
}

// A refused access, or an access QEMU does not know (which ends its block
// with an UNDEFINED that would otherwise run again): the PC is moved only
// when the access is the last instruction of its block: Unicorn 2.0.1, after
// a hook that handled such an access, restarts the block from its start.
bool last_in_block(const Aarch64Iss::Thread &t, uint64_t pc)
{
    return pc + 4 == t.block_pc + t.block_size;
}

// The System registers the platform answers itself: MPIDR_EL1 on the virt
// machine, the generic timer, the PMU and AMU fields of the ID registers.
// True when `cp` is one of them, answered.
bool platform_sysreg(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, Aarch64Iss::Thread &t, bool write,
                     uint64_t pc)
{
    Aarch64Iss &iss = *t.iss;
    uint64_t fields = 0, mask = 0;
    if (!write && iss.virt() && cp->op0 == 3 && cp->op1 == 0 && cp->crn == 0 && cp->crm == 0 && cp->op2 == 5) {
        if (rt != UC_ARM64_REG_XZR)  // MPIDR_EL1: each engine is CPU 0 to Unicorn
            uc_reg_write(uc, rt, &t.mpidr);
        return true;
    }
    if (uint64_t v = write ? cp->val : 0; iss.timer_access(t, write, cp, pc, v)) {
        if (!write && rt != UC_ARM64_REG_XZR)
            uc_reg_write(uc, rt, &v);
        return true;
    }
    if (!write && pmvp_id_fields_a64(&iss.cluster_.config, cp->op0, cp->op1, cp->crn, cp->crm, cp->op2, &fields,
                                     &mask) == PMVP_OK) {
        uint64_t v = fields;
        for (const IdBase &b : kIdBase)
            if (b.crm == cp->crm && b.op2 == cp->op2)
                v = (b.value & ~mask) | fields;
        if (rt != UC_ARM64_REG_XZR)
            uc_reg_write(uc, rt, &v);
        return true;
    }
    return false;
}

// An MRS or MSR of a PMU or AMU register at `pc`, made by the monitors after
// the instructions before it: permitted, it completes; refused, the
// exception it takes is entered (or, in mid-block, QEMU is left to refuse it).
uint32_t monitors_sysreg(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, Aarch64Iss::Thread &t, bool write,
                         uint64_t pc, const pmvp_sysreg &r)
{
    Aarch64Iss &iss = *t.iss;
    uint64_t before = iss.retired_before(t, pc);
    const bool cycles = !write && r.family == PMVP_SYSREG_PMU && r.reg == PMVP_PMCCNTR_EL0;
    if (!(cycles && t.cycle_reads_first))
        iss.tell_retired(t, before);
    pmvp_time at = iss.time_of(t, before);
    uint64_t value = write ? cp->val : 0;
    pmvp_sysreg_execution out{ PMVP_SYSREG_UNDEFINED, 1, 0x02000000 };  // detached: UNDEFINED
    if (iss.monitors_) {
        const pmvp_sysreg_a64 insn = { write, cp->op0, cp->op1, cp->crn, cp->crm, cp->op2, rt_index(rt) };
        int err = iss.monitors_->execute(t.pe, insn, nullptr, value, out, iss.offset(at));
        if (err != PMVP_OK)
            SC_REPORT_ERROR("pmvp/iss",
                            (std::string("a System-register access failed: ") + pmvp_strerror(err)).c_str());
    }
    if (out.verdict == PMVP_SYSREG_PERMITTED) {
        if (!write && rt != UC_ARM64_REG_XZR)
            uc_reg_write(uc, rt, &value);
        if (last_in_block(t, pc)) {
            uint64_t next = pc + 4;
            uc_reg_write(uc, UC_ARM64_REG_PC, &next);
        }
        if (write)
            iss.stop(t);  // what counts and what interrupts may have changed: limits anew
        return 1;
    }
    if (!last_in_block(t, pc)) {
        // The PC cannot be moved in the middle of a block: leave the
        // instruction to QEMU, which refuses it too or executes its own.
        t.result.console += "[pmvp: a refused System-register access in mid-block was left to the ISS]\n";
        return 0;
    }
    iss.retire_before(t, pc);  // not executed
    iss.enter_exception(t, kVectorSync, pc, &out.esr);
    return 1;
}

uint32_t on_sysreg(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, void *user, bool write)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    uint64_t pc = 0;
    uc_reg_read(uc, UC_ARM64_REG_PC, &pc);
    t.sysreg_pc = pc;  // the hook synchronised the PC here
    // SCTLR_EL1, TTBR0_EL1, TTBR1_EL1, TCR_EL1: the blocks' code may move.
    if (write && cp->op0 == 3 && cp->op1 == 0 && cp->crm == 0 &&
        ((cp->crn == 1 && cp->op2 == 0) || (cp->crn == 2 && cp->op2 <= 2)))
        t.blocks.clear();
    // The monitors' registers first (a guest reading a counter in a loop):
    // none of them is one the platform answers.
    pmvp_sysreg r;
    if (pmvp_sysreg_decode_a64(write, cp->op0, cp->op1, cp->crn, cp->crm, cp->op2, &r) == PMVP_OK)
        return monitors_sysreg(uc, rt, cp, t, write, pc, r);
    return platform_sysreg(uc, rt, cp, t, write, pc) ? 1 : 0;  // else QEMU executes it
}

// SYS: an instruction cache invalidation (IC IALLUIS, IC IALLU, IC IVAU)
// makes changed code visible, a TLB invalidation a changed translation:
// the blocks are checked against their code again (IssBlockCache). QEMU
// executes the instruction.
uint32_t on_sys(uc_engine *, uc_arm64_reg, const uc_arm64_cp_reg *cp, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    if ((cp->crn == 7 && (cp->crm == 1 || cp->crm == 5) && cp->op2 <= 1) || cp->crn == 8)
        t.blocks.clear();
    return 0;
}

uint32_t on_mrs(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, void *user)
{
    return on_sysreg(uc, rt, cp, user, false);
}

uint32_t on_msr(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, void *user)
{
    return on_sysreg(uc, rt, cp, user, true);
}

void on_interrupt(uc_engine *uc, uint32_t intno, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    uint64_t pc = 0;
    uc_reg_read(uc, UC_ARM64_REG_PC, &pc);
    // QEMU's exception numbers: 1 UNDEFINED (PC at the instruction), 2 SVC (PC after it).
    // The instructions before it are told with the run's others (at the
    // next access or the run's end): a guest that takes exceptions in a
    // loop makes no input of the monitors per exception.
    if (t.iss->virt() && t.iss->firmware_call(t, pc))
        return;
    uint64_t esr;
    if (intno == 1) {
        esr = 0x02000000;             // EC 0x00, IL
        t.iss->retire_before(t, pc);  // not executed
    } else if (intno == 2) {
        uint32_t svc = 0;  // the SVC before the PC: its imm16 goes to ESR.ISS
        uc_mem_read(uc, pc - 4, &svc, 4);
        esr = 0x15ull << 26 | 0x02000000 | ((svc >> 5) & 0xFFFF);  // EC 0x15 SVC from AArch64
    } else {
        t.result.console += "[pmvp: exception " + std::to_string(intno) + " the platform does not model: PE stopped]\n";
        t.exited = true;
        t.result.status = 0xE0 + intno;
        t.iss->stop(t);
        return;
    }
    t.iss->enter_exception(t, kVectorSync, pc, &esr);
}

// The PMU and AMU frames: 1 to 8 byte loads and stores, each one TLM access
// through the bus (their RAM shadow only carries the value to the load).
void on_frame_access(uc_engine *uc, uc_mem_type type, uint64_t address, int size, int64_t value, void *user);

// An access to an address where Unicorn has no region: with the guest's MMU
// on, an address the guest's tables map to RAM gets an alias region there
// (unicorn_alias), as Unicorn 2.0.1 looks its regions up by the virtual
// address before it translates it.
bool on_unmapped(uc_engine *uc, uc_mem_type type, uint64_t address, int size, int64_t value, void *user);

uint64_t on_sysctl_read(uc_engine *uc, uint64_t off, unsigned size, void *user);
void on_sysctl_write(uc_engine *uc, uint64_t off, unsigned size, uint64_t value, void *user);
// The virt machine's devices.
uint64_t on_uart_read(uc_engine *uc, uint64_t off, unsigned size, void *user);
void on_uart_write(uc_engine *uc, uint64_t off, unsigned size, uint64_t value, void *user);
uint64_t on_gicd_read(uc_engine *uc, uint64_t off, unsigned size, void *user);
void on_gicd_write(uc_engine *uc, uint64_t off, unsigned size, uint64_t value, void *user);
uint64_t on_gicc_read(uc_engine *uc, uint64_t off, unsigned size, void *user);
void on_gicc_write(uc_engine *uc, uint64_t off, unsigned size, uint64_t value, void *user);

}  // namespace

// ------------------------------------------------------------- Aarch64Iss

Aarch64Iss::Aarch64Iss(const sc_core::sc_module_name &name, Soc &soc, const Cluster &cluster, unsigned index,
                       unsigned cluster_index, unsigned core_in_cluster, unsigned first_pe, bool attached)
    : Core(name, cluster, index, first_pe), soc_(soc), guest_(*soc.guest), cluster_(cluster)
{
    if (attached) {
        // The clock is the ISS's: it tells the monitors each DVFS step (tell_clock).
        monitors =
            std::make_unique<pmvp::sc::Monitors>("monitors", core_config(cluster, cluster_index, core_in_cluster));
        for (unsigned p = 0; p < cluster.config.num_pes; p++) {
            monitors->pmuirq[p](pmuirq[p]);
            check(monitors->set_controls(p, cluster.controls), "set_controls");
        }
    }
    monitors_ = monitors.get();
    if (monitors_)
        check(pmvp_ext_find(&monitors_->kernel(), PMVP_FRAME_PMU, "PMCCNTR_EL0", 0, &pmccntr_), "pmvp_ext_find");
    guest_.cores.push_back(this);
    threads.resize(cluster.config.num_pes);
    for (unsigned p = 0; p < threads.size(); p++) {
        Thread &t = threads[p];
        t.iss = this;
        t.pe = p;
        t.g = first_pe + p;
        t.image_pe = guest_.image_pes++;
        t.result.pe = t.g;
        t.result.cluster = cluster_index;
        t.result.core = index;
        t.result.thread = p;
        open_engine(t);
        boot(t);
    }
}

namespace {
// A Unicorn call's result: an exception naming what failed.
void unicorn_ok(uc_err e, const char *what)
{
    if (e != UC_ERR_OK)
        throw std::runtime_error(std::string("Unicorn: ") + what + ": " + uc_strerror(e));
}
}  // namespace

// Thread t's engine: the RAM, the frames of every PE (`frames` bytes) and
// the machine's devices mapped, every hook added.
void Aarch64Iss::open_engine(Thread &t)
{
    const uint64_t frames = guest_.frames_size;
    auto ok = unicorn_ok;
    ok(uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &t.uc), "uc_open");
    uc_hook h;
    ok(uc_mem_map_ptr(t.uc, kRamBase, guest_.ram_size, UC_PROT_ALL, guest_.ram), "map RAM");
    ok(uc_mem_map_ptr(t.uc, kFramesBase, frames, UC_PROT_READ | UC_PROT_WRITE, guest_.frames), "map the frames");
    if (virt()) {
        ok(uc_mmio_map(t.uc, virt::kUart, virt::kUartSize, on_uart_read, &t, on_uart_write, &t), "map the UART");
        ok(uc_mmio_map(t.uc, virt::kGicDist, virt::kGicDistSize, on_gicd_read, &t, on_gicd_write, &t),
           "map the GIC distributor");
        ok(uc_mmio_map(t.uc, virt::kGicCpu, virt::kGicCpuSize, on_gicc_read, &t, on_gicc_write, &t),
           "map the GIC CPU interface");
    } else {
        ok(uc_mmio_map(t.uc, kSysctlBase, 0x1000, on_sysctl_read, &t, on_sysctl_write, &t), "map sysctl");
    }
    // Hooks before any code is translated: Unicorn 2.0.1 does not apply a
    // hook to blocks translated before it was added.
    ok(uc_hook_add(t.uc, &h, UC_HOOK_BLOCK, (void *)on_block, &t, 1, 0), "block hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_INSN, (void *)on_mrs, &t, 1, 0, UC_ARM64_INS_MRS), "MRS hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_INSN, (void *)on_msr, &t, 1, 0, UC_ARM64_INS_MSR), "MSR hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_INSN, (void *)on_sys, &t, 1, 0, UC_ARM64_INS_SYS), "SYS hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_INTR, (void *)on_interrupt, &t, 1, 0), "interrupt hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_MEM_UNMAPPED, (void *)on_unmapped, &t, 1, 0), "unmapped hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, (void *)on_frame_access, &t, kFramesBase,
                   kFramesBase + frames - 1),
       "frame hook");
    // Unicorn's CPU has EL2 and EL3 and leaves SCR_EL3.RW and
    // HCR_EL2.RW clear, so its translation regime of EL1 is AArch32 and
    // an MMU the guest enables faults on every access: EL1 is made
    // Non-secure AArch64, as on a machine without EL2 and EL3.
    uc_arm64_cp_reg scr{ 1, 1, 3, 6, 0, kScrNs | kScrRw }, hcr{ 1, 1, 3, 4, 0, kHcrRw };
    ok(uc_reg_write(t.uc, UC_ARM64_REG_CP_REG, &scr), "SCR_EL3");
    ok(uc_reg_write(t.uc, UC_ARM64_REG_CP_REG, &hcr), "HCR_EL2");
}

// Thread t at the image's entry, at EL1 with interrupts masked; on the virt
// machine as QEMU's direct kernel boot leaves it.
void Aarch64Iss::boot(Thread &t)
{
    uint64_t pc = guest_.image.entry, pstate = kPstateEl1hMasked;
    uc_reg_write(t.uc, UC_ARM64_REG_PC, &pc);
    uc_reg_write(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    if (virt()) {
        // QEMU's direct kernel boot: x0 the DTB's address, x1-x3 zero;
        // the other PEs wait for PSCI CPU_ON.
        t.mpidr = guest_.mpidr[t.image_pe];
        t.off = t.image_pe != 0;
        uc_reg_write(t.uc, UC_ARM64_REG_X0, &guest_.dtb_at);
        if (t.off && monitors_)
            check(monitors_->set_state(t.pe, PMVP_PE_OFF, sc_core::SC_ZERO_TIME), "set_state");
    }
}

Aarch64Iss::~Aarch64Iss()
{
    for (Thread &t : threads)
        if (t.uc)
            uc_close(t.uc);
}

void Aarch64Iss::tell_retired(Thread &t, uint64_t upto)
{
    if (upto > t.step_n)
        tell_clock(t.step_at);  // a step past the quantum's end, passed by the run's last block
    upto = std::max(upto, t.reported);
    if (t.block && upto > t.block_start + t.block_told) {
        const unsigned to = (unsigned)(upto - t.block_start);
        t.pending.add(*t.block, t.block_told, to);
        t.block_told = to;
    }
    t.blocks.drain(t.pending);
    if (upto == t.reported && t.pending.empty())
        return;
    // The instructions retired in (since, time_of(upto)], and their events,
    // told as shares spread evenly over those cycles
    // (Monitors::report_shares): with one instruction every CPI cycles, a
    // threshold sees the same per-cycle values as instruction by
    // instruction, in another order.
    pmvp_time last = t.reported_at_n == t.reported && t.reported > t.run_n0 ? t.reported_at
                     : t.reported > t.run_n0                                ? time_of(t, t.reported)
                                                                            : t.run_t0;
    pmvp_time since = std::max(last, time_.now()), at = time_of(t, upto);
    if (upto == t.reported)  // events of no instruction (an interrupt taken after a WFI): at the PE's present
        at = std::max({ at, since, t.now });
    t.result.instructions += upto - t.reported;
    t.reported = t.reported_at_n = upto;
    t.reported_at = at;
    IssTally &p = t.pending;
    if (!monitors_) {  // detached: told to no one
        p.clear();
        return;
    }
    if (p.touched & (a64::bit(a64::MEM_ACCESS_RD) | a64::bit(a64::MEM_ACCESS_WR)))
        p.add(a64::MEM_ACCESS, p.n[a64::MEM_ACCESS_RD] + p.n[a64::MEM_ACCESS_WR]);
    // At most PMVP_MAX_BATCHES shares a call: a later call's shares are
    // told at the window's end (a64::Event puts the most used first).
    pmvp_share shares[PMVP_MAX_BATCHES];
    unsigned num = 0;
    for (a64::Mask m = p.touched; m; m &= m - 1) {
        const unsigned e = __builtin_ctzll(m);
        t.result.events[e] += p.n[e];
        if (p.n[e])
            shares[num++] = { t.pe, a64::kNumber[e], p.n[e] };
        if (num == PMVP_MAX_BATCHES || ((m & (m - 1)) == 0 && num)) {
            int err = monitors_->report_shares(shares, num, offset(since), offset(at));
            if (err != PMVP_OK)
                SC_REPORT_ERROR("pmvp/iss", (std::string("the ISS's events refused: ") + pmvp_strerror(err)).c_str());
            num = 0;
        }
    }
    p.clear();
}

namespace {

uint64_t xreg(uc_engine *uc, unsigned n)
{
    if (n == 31)
        return 0;  // XZR
    uint64_t v = 0;
    uc_reg_read(uc,
                n <= 28   ? (int)UC_ARM64_REG_X0 + (int)n
                : n == 29 ? (int)UC_ARM64_REG_X29
                          : (int)UC_ARM64_REG_X30,
                &v);
    return v;
}

// ConditionHolds() of the A64 pseudocode, on PSTATE.{N, Z, C, V} in `nzcv`'s bits 31:28.
bool condition_holds(unsigned cond, uint64_t nzcv)
{
    const bool n = (nzcv >> 31) & 1, z = (nzcv >> 30) & 1, c = (nzcv >> 29) & 1, v = (nzcv >> 28) & 1;
    bool r = true;
    switch (cond >> 1) {
    case 0: r = z; break;
    case 1: r = c; break;
    case 2: r = n; break;
    case 3: r = v; break;
    case 4: r = c && !z; break;
    case 5: r = n == v; break;
    case 6: r = n == v && !z; break;
    default: break;
    }
    return (cond & 1) && cond != 0xF ? !r : r;
}

// Whether conditional branch `insn`, the last of its block, whose target
// is the next instruction, was taken: its condition, on the registers as it
// left them (as it was last, those it read).
bool branch_taken(uc_engine *uc, uint32_t insn)
{
    const bool test = (insn & 0x7E000000) == 0x36000000, compare = (insn & 0x7E000000) == 0x34000000;
    if (compare || test) {  // CBZ, CBNZ, TBZ, TBNZ: bit 24 the non-zero form
        const uint64_t x = xreg(uc, insn & 31);
        const bool zero =
            compare ? ((insn >> 31) ? x : (uint32_t)x) == 0 : !((x >> ((insn >> 31) << 5 | ((insn >> 19) & 31))) & 1);
        return zero != (bool)((insn >> 24) & 1);
    }
    uint64_t nzcv = 0;  // B.cond, BC.cond
    uc_reg_read(uc, UC_ARM64_REG_NZCV, &nzcv);
    return condition_holds(insn & 0xF, nzcv);
}

}  // namespace

void Aarch64Iss::close_branch(Thread &t, const IssBlock &b, uint64_t next_pc)
{
    if (b.target != IssBlock::kNoTarget ? next_pc == b.target : branch_taken(t.uc, b.words.back()))
        occur(t, a64::PC_WRITE_RETIRED);
}

void Aarch64Iss::retire_before(Thread &t, uint64_t pc)
{
    const uint64_t n = retired_before(t, pc);
    if (pc < t.block_pc || pc >= t.block_pc + t.block_size || n < t.reported)
        return;  // not the current block's, or told already (not reached: no access tells its own instruction)
    t.retired = n;
    t.block_retires = (unsigned)(n - t.block_start);
}

void Aarch64Iss::occur(Thread &t, a64::Event e)
{
    t.pending.add(e);
    for (unsigned i = 0; i < t.watching; i++)
        if (t.watch[i].event == e && t.watch[i].left && --t.watch[i].left == 0)
            stop(t);
}

bool Aarch64Iss::irq_line(Thread &t, pmvp_time at)
{
    if (virt()) {
        sync_pmu_line(t, at);
        return guest_.gic->signalled(t.image_pe, at);
    }
    bool pmu = false;
    if ((t.irq_enable & kIrqPmu) && monitors_)
        check(monitors_->irq_level(t.pe, pmu, offset(at)), "irq_level");
    const Guest::Doorbell &bell = guest_.doorbell[t.image_pe];
    return pmu || ((t.irq_enable & kIrqDoorbell) && bell.rung && bell.at <= at);
}

void Aarch64Iss::enter_exception(Thread &t, uint64_t vector, uint64_t elr, const uint64_t *esr)
{
    uint64_t pstate = 0, vbar = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    uc_reg_read(t.uc, UC_ARM64_REG_VBAR_EL1, &vbar);
    uc_arm64_cp_reg spsr{ 4, 0, 3, 0, 0, pstate };  // SPSR_EL1
    uc_reg_write(t.uc, UC_ARM64_REG_CP_REG, &spsr);
    uc_reg_write(t.uc, UC_ARM64_REG_ELR_EL1, &elr);
    if (esr) {
        uc_reg_write(t.uc, UC_ARM64_REG_ESR_EL1, esr);
        t.result.exceptions++;
    }
    // EXC_TAKEN and the kind: an IRQ, an SVC, an Instruction Abort, or
    // another synchronous exception (an UNDEFINED instruction, a trap).
    const uint64_t ec = esr ? *esr >> 26 : 0;
    occur(t, a64::EXC_TAKEN);
    occur(t, !esr                       ? a64::EXC_IRQ
             : ec == 0x15               ? a64::EXC_SVC
             : ec == 0x20 || ec == 0x21 ? a64::EXC_PABORT
                                        : a64::EXC_UNDEF);
    uint64_t masked = kPstateEl1hMasked, pc = vbar + vector_base(pstate) + vector;
    // The engine's SP is the one PSTATE selected: from EL0 or EL1t it is
    // SP_EL0's value, kept there, and EL1h runs on SP_EL1 (a PSTATE write
    // alone does not switch them).
    const bool on_sp_el0 = !(pstate & 1) || ((pstate >> 2) & 3) == 0;
    uint64_t sp = 0;
    if (on_sp_el0) {
        uc_reg_read(t.uc, UC_ARM64_REG_SP, &sp);
        uc_reg_write(t.uc, UC_ARM64_REG_SP_EL0, &sp);
        uc_reg_read(t.uc, UC_ARM64_REG_SP_EL1, &sp);
    }
    uc_reg_write(t.uc, UC_ARM64_REG_PSTATE, &masked);
    if (on_sp_el0)
        uc_reg_write(t.uc, UC_ARM64_REG_SP, &sp);
    uc_reg_write(t.uc, UC_ARM64_REG_PC, &pc);
}

// A WFI on the pmvp machine ends when the PE's line rises: by a doorbell,
// or by an overflow of a counter of cycles at its instant.
pmvp_time Aarch64Iss::wfi_wake_pmvp(Thread &t)
{
    if (irq_line(t, t.now))
        return t.now;
    if (guest_.doorbell[t.image_pe].rung && (t.irq_enable & kIrqDoorbell))
        return std::max(t.now, guest_.doorbell[t.image_pe].at);
    pmvp_time wake = PMVP_TIME_NEVER;
    if ((t.irq_enable & kIrqPmu) && monitors_)
        check(monitors_->next_interrupt(wake, offset(t.now)), "next_interrupt");
    return wake;
}

// A WFI on the virt machine ends when the GIC signals the PE (whatever
// PSTATE.I): at once, when an interrupt another PE made pending becomes
// visible, or when PMUIRQ rises if its PPI would be signalled.
pmvp_time Aarch64Iss::wfi_wake_virt(Thread &t)
{
    if (irq_line(t, t.now))
        return t.now;
    pmvp_time wake = std::min(guest_.gic->next_pending(t.image_pe, t.now), next_timer(t, t.now));
    if (monitors_ && guest_.gic->would_signal(t.image_pe, virt::kIntidPmu)) {
        pmvp_time w = PMVP_TIME_NEVER;
        check(monitors_->next_interrupt(w, offset(t.now)), "next_interrupt");
        wake = std::min(wake, w);
    }
    return wake;
}

void Aarch64Iss::sync_pmu_line(Thread &t, pmvp_time at)
{
    bool pmu = false;
    if (monitors_)
        check(monitors_->irq_level(t.pe, pmu, offset(at)), "irq_level");
    guest_.gic->set_line(t.image_pe, virt::kIntidPmu, pmu, at);
    for (unsigned k = 0; k < 2; k++)
        guest_.gic->set_line(t.image_pe, kTimerIntid[k], timer_fires(t, k) <= at, at);
}

uint64_t Aarch64Iss::counter_at(pmvp_time at) const
{
    return (uint64_t)((u128)at * soc_.scenario.system_counter_hz / 1000000000000ull);
}

pmvp_time Aarch64Iss::counter_reaches(uint64_t count) const
{
    if (soc_.scenario.system_counter_hz == 0)
        return PMVP_TIME_NEVER;
    u128 t = ((u128)count * 1000000000000ull + soc_.scenario.system_counter_hz - 1) / soc_.scenario.system_counter_hz;
    return t >= PMVP_TIME_NEVER ? PMVP_TIME_NEVER : (pmvp_time)t;
}

pmvp_time Aarch64Iss::timer_fires(const Thread &t, unsigned k) const
{
    const Thread::Timer &tm = t.timer[k];
    return (tm.ctl & kCntCtlEnable) && !(tm.ctl & kCntCtlImask) ? counter_reaches(tm.cval) : PMVP_TIME_NEVER;
}

pmvp_time Aarch64Iss::next_timer(const Thread &t, pmvp_time after) const
{
    pmvp_time next = PMVP_TIME_NEVER;
    for (unsigned k = 0; k < 2; k++)
        if (pmvp_time f = timer_fires(t, k); f > after && guest_.gic->would_signal(t.image_pe, kTimerIntid[k]))
            next = std::min(next, f);
    return next;
}

// CNTFRQ_EL0, CNTPCT_EL0, CNTVCT_EL0, CNTP_{TVAL,CTL,CVAL}_EL0 and
// CNTV_{TVAL,CTL,CVAL}_EL0 (op0 3, op1 3, CRn 14). The counter is the
// System Counter at the access's instant; CNTFRQ_EL0 reads its frequency
// and ignores writes (the platform sets it); the rest as D12.8 says.
bool Aarch64Iss::timer_access(Thread &t, bool write, const uc_arm64_cp_reg *cp, uint64_t pc, uint64_t &value)
{
    if (cp->op0 != 3 || cp->op1 != 3 || cp->crn != 14)
        return false;
    const uint64_t before = retired_before(t, pc);
    const uint64_t now = counter_at(time_of(t, before));
    if (cp->crm == 0 && cp->op2 <= 2) {  // CNTFRQ, CNTPCT, CNTVCT
        if (!write)
            value = cp->op2 == 0 ? soc_.scenario.system_counter_hz : now;
        return true;
    }
    if ((cp->crm != 2 && cp->crm != 3) || cp->op2 > 2)
        return false;
    Thread::Timer &tm = t.timer[cp->crm - 2];  // CRm 2: physical, 3: virtual
    switch (cp->op2) {
    case 0:  // TVAL: CVAL - count, a signed 32-bit value
        if (write)
            tm.cval = now + (uint64_t)(int64_t)(int32_t)(uint32_t)value;
        else
            value = (uint64_t)(uint32_t)(tm.cval - now);
        break;
    case 1:  // CTL: ISTATUS read-only
        if (write)
            tm.ctl = value & (kCntCtlEnable | kCntCtlImask);
        else
            value = tm.ctl | ((tm.ctl & kCntCtlEnable) && now >= tm.cval ? kCntCtlIstatus : 0);
        break;
    default:  // CVAL
        if (write)
            tm.cval = value;
        else
            value = tm.cval;
        break;
    }
    if (write) {
        tell_retired(t, before);  // the timer's line changes from here
        stop(t);
    }
    return true;
}

Aarch64Iss::Thread *Aarch64Iss::pe_of_mpidr(uint64_t mpidr)
{
    for (Aarch64Iss *core : guest_.cores)
        for (Thread &t : core->threads)
            if ((t.mpidr & 0xFF00FFFFFFull) == (mpidr & 0xFF00FFFFFFull))
                return &t;
    return nullptr;
}

// HVC #0 and SMC #0 (PSCI: the DT's method is hvc, and QEMU takes both),
// HLT #0xF000 (semihosting): Unicorn reports each as an exception at the
// instruction (EL2 and EL3 absent, no semihosting of its own); the machine
// serves it as the firmware would and the guest goes on after it.
bool Aarch64Iss::firmware_call(Thread &t, uint64_t pc)
{
    uint32_t insn = 0;
    if (uc_mem_read(t.uc, pc, &insn, 4) != UC_ERR_OK)
        return false;
    if (insn != virt::kHvc0 && insn != virt::kSmc0 && insn != virt::semihosting::kHlt)
        return false;
    uint64_t before = retired_before(t, pc);
    tell_retired(t, before);
    pmvp_time at = time_of(t, before);
    if (insn == virt::semihosting::kHlt)
        semihosting(t, at);
    else
        psci(t, at);
    uint64_t next = pc + 4;
    uc_reg_write(t.uc, UC_ARM64_REG_PC, &next);
    return true;
}

void Aarch64Iss::psci(Thread &t, pmvp_time at)
{
    namespace p = virt::psci;
    uint64_t x[4] = {};
    for (int i = 0; i < 4; i++)
        uc_reg_read(t.uc, UC_ARM64_REG_X0 + i, &x[i]);
    int64_t ret = p::kNotSupported;
    switch ((uint32_t)x[0]) {
    case p::kVersion: ret = (int64_t)p::kVersion1_0; break;
    case p::kMigrateInfoType: ret = 2; break;  // no Trusted OS
    case p::kFeatures: {
        const uint32_t known[] = { p::kVersion,      p::kCpuOff,         p::kCpuOn,           p::kCpuOn32,
                                   p::kAffinityInfo, p::kAffinityInfo32, p::kMigrateInfoType, p::kSystemOff,
                                   p::kSystemReset,  p::kFeatures };
        ret = std::find(std::begin(known), std::end(known), (uint32_t)x[1]) != std::end(known) ? p::kSuccess
                                                                                               : p::kNotSupported;
        break;
    }
    case p::kCpuOn:
    case p::kCpuOn32: {
        Thread *target = pe_of_mpidr(x[1]);
        if (!target) {
            ret = p::kInvalidParameters;
        } else if (!target->off) {
            ret = p::kAlreadyOn;
        } else {
            uint64_t pstate = kPstateEl1hMasked;
            uc_reg_write(target->uc, UC_ARM64_REG_PC, &x[2]);
            uc_reg_write(target->uc, UC_ARM64_REG_X0, &x[3]);
            uc_reg_write(target->uc, UC_ARM64_REG_PSTATE, &pstate);
            target->iss->power(*target, true, at);
            ret = p::kSuccess;
        }
        break;
    }
    case p::kCpuOff:
        // The HVC retires; the PE is off after it.
        tell_retired(t, t.retired);
        power(t, false, time_of(t, t.retired));
        ret = p::kSuccess;  // not seen: the PE is off
        break;
    case p::kAffinityInfo:
    case p::kAffinityInfo32: {
        Thread *target = pe_of_mpidr(x[1]);
        ret = !target || x[2] != 0 ? p::kInvalidParameters : target->off ? p::kOff : p::kOn;
        break;
    }
    case p::kSystemOff: guest_.end_all(at, 0, "PSCI SYSTEM_OFF"); break;
    case p::kSystemReset: guest_.end_all(at, 0, "PSCI SYSTEM_RESET (the run ends: no reboot)"); break;
    default: break;
    }
    uint64_t r = (uint64_t)ret;
    uc_reg_write(t.uc, UC_ARM64_REG_X0, &r);
}

void Aarch64Iss::instruction_abort(Thread &t)
{
    uint64_t pc = 0, pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    const uint64_t ec = ((pstate >> 2) & 3) == 0 ? 0x20 : 0x21;  // Instruction Abort from a lower EL / the same EL
    const uint64_t esr = ec << 26 | 0x02000000 | 0x10;           // IL, FSC: synchronous external abort
    uc_reg_write(t.uc, UC_ARM64_REG_FAR_EL1, &pc);
    enter_exception(t, kVectorSync, pc, &esr);
    t.result.aborts++;
}

void Aarch64Iss::power(Thread &t, bool on, pmvp_time at)
{
    t.off = !on;
    if (on) {
        t.wfi = false;
        t.now = at;  // from the call on, whether this PE's core ran this quantum before the caller's or not
    } else {
        t.now = at;
        stop(t);
    }
    if (monitors_)
        check(monitors_->set_state(t.pe, on ? PMVP_PE_RUN : PMVP_PE_OFF, offset(t.now)), "set_state");
}

void Aarch64Iss::semihosting(Thread &t, pmvp_time at)
{
    namespace sh = virt::semihosting;
    uint64_t op = 0, arg = 0, ret = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_X0, &op);
    uc_reg_read(t.uc, UC_ARM64_REG_X1, &arg);
    auto byte = [&](uint64_t a) {
        uint8_t c = 0;
        return uc_mem_read(t.uc, a, &c, 1) == UC_ERR_OK ? (int)c : -1;
    };
    switch (op) {
    case sh::kSysWritec:
        if (int c = byte(arg); c >= 0)
            t.result.console += (char)c;
        break;
    case sh::kSysWrite0:
        for (uint64_t a = arg, n = 0; n < (1u << 16); a++, n++) {  // at most 64 KiB of one string
            int c = byte(a);
            if (c <= 0)
                break;
            t.result.console += (char)c;
        }
        break;
    case sh::kSysExit:
    case sh::kSysExitExtended: {
        // AArch64: x1 points to {reason, subcode}; an application's exit
        // gives its status, any other reason 1 (as QEMU).
        uint64_t block[2] = {};
        uc_mem_read(t.uc, arg, block, sizeof block);
        uint32_t status = block[0] == sh::kApplicationExit ? (uint32_t)block[1] : 1;
        guest_.end_all(at, status, op == sh::kSysExit ? "semihosting SYS_EXIT" : "semihosting SYS_EXIT_EXTENDED");
        break;
    }
    default:
        ret = (uint64_t)-1;  // not implemented
        t.result.console += "[pmvp: semihosting operation " + std::to_string(op) + " is not implemented]\n";
        break;
    }
    uc_reg_write(t.uc, UC_ARM64_REG_X0, &ret);
}

uint64_t Aarch64Iss::instructions_until(const Thread &t, pmvp_time when, bool at_or_before) const
{
    if (when <= t.now)
        return at_or_before ? 0 : 1;
    u128 ps_per_instr_num = (u128)cluster_.cpu.cpi * 1000000000000ull;
    u128 n = ((u128)(when - t.now) * t.hz + (at_or_before ? 0 : ps_per_instr_num - 1)) / ps_per_instr_num;
    return n > UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)std::max<u128>(n, at_or_before ? 0 : 1);
}

// In a quantum, every thread runs up to its end (the monitors order what
// the threads tell them by instant); a thread woken by a doorbell after it
// had slept to the end (Guest::ring) runs again from its wake-up.
void Aarch64Iss::quantum(pmvp_time until)
{
    tell_clock(until - 1);
    // The threads of an SMT core take turns in slices of at most kSmtSlice,
    // so what they tell the monitors comes in time order but within a
    // slice: the monitors keep an input for an earlier instant than those
    // already kept at a cost that grows with those, so a thread told after
    // a whole quantum of its sibling's would cost the square of the quantum.
    pmvp_time from = until;  // the earliest thread still running (none behind: nothing to do)
    for (const Thread &t : threads)
        if (!t.exited)
            from = std::min(from, std::max(t.now, time_.now()));
    for (pmvp_time end = from; end < until;) {
        end = threads.size() == 1 || until - end <= kSmtSlice ? until : end + kSmtSlice;
        for (Thread &t : threads)
            if (!t.exited && t.now < end)
                advance(t, end);
    }
}

bool Aarch64Iss::behind(pmvp_time until) const
{
    return std::any_of(threads.begin(), threads.end(), [&](const Thread &t) { return !t.exited && t.now < until; });
}

bool Aarch64Iss::live() const
{
    return std::any_of(threads.begin(), threads.end(), [](const Thread &t) { return !t.exited; });
}

// The engine's state as named registers (whatever the host's byte order):
// the general-purpose and SIMD&FP registers, PC, PSTATE, the stack
// pointers, and the EL1 System registers bare-metal firmware uses. PSTATE
// goes before the stack pointers: the live SP is the one PSTATE.SP selects,
// the banked SP_ELx hold what they held. Long as the list is: one line per
// register.
template <class A> void Aarch64Iss::registers(A &a, Thread &t)
{
    auto reg = [&](const char *what, int id, void *v) {
        uc_err e = A::loading ? uc_reg_write(t.uc, id, v) : uc_reg_read(t.uc, id, v);
        if (e != UC_ERR_OK)
            throw CheckpointError(std::string("the ISS cannot ") + (A::loading ? "write" : "read") + " its " + what +
                                  ": " + uc_strerror(e));
    };
    auto x = [&](const char *what, int id) {
        uint64_t v = 0;
        if constexpr (!A::loading)
            reg(what, id, &v);
        a(what, v);
        if constexpr (A::loading)
            reg(what, id, &v);
    };
    for (int n = 0; n <= 28; n++)
        x("X<n>", UC_ARM64_REG_X0 + n);
    x("X29", UC_ARM64_REG_X29);
    x("X30", UC_ARM64_REG_X30);
    x("PSTATE", UC_ARM64_REG_PSTATE);
    x("SP_EL0", UC_ARM64_REG_SP_EL0);
    x("SP_EL1", UC_ARM64_REG_SP_EL1);
    x("SP", UC_ARM64_REG_SP);
    x("PC", UC_ARM64_REG_PC);
    for (int n = 0; n <= 31; n++) {
        uint64_t q[2] = {};  // Unicorn 2.0's layout of a Q register: the low half, then the high
        if constexpr (!A::loading)
            reg("Q<n>", UC_ARM64_REG_Q0 + n, &q);
        a("Q<n>", q[0]);
        a("Q<n>", q[1]);
        if constexpr (A::loading)
            reg("Q<n>", UC_ARM64_REG_Q0 + n, &q);
    }
    x("FPCR", UC_ARM64_REG_FPCR);
    x("FPSR", UC_ARM64_REG_FPSR);
    x("ELR_EL1", UC_ARM64_REG_ELR_EL1);
    x("ESR_EL1", UC_ARM64_REG_ESR_EL1);
    x("FAR_EL1", UC_ARM64_REG_FAR_EL1);
    x("VBAR_EL1", UC_ARM64_REG_VBAR_EL1);
    x("TPIDR_EL0", UC_ARM64_REG_TPIDR_EL0);
    x("TPIDRRO_EL0", UC_ARM64_REG_TPIDRRO_EL0);
    x("TPIDR_EL1", UC_ARM64_REG_TPIDR_EL1);
    x("CPACR_EL1", UC_ARM64_REG_CPACR_EL1);
    x("TTBR0_EL1", UC_ARM64_REG_TTBR0_EL1);
    x("TTBR1_EL1", UC_ARM64_REG_TTBR1_EL1);
    x("MAIR_EL1", UC_ARM64_REG_MAIR_EL1);
    x("PAR_EL1", UC_ARM64_REG_PAR_EL1);
    // By encoding: crn, crm, op0, op1, op2.
    const struct {
        const char *name;
        uc_arm64_cp_reg enc;
    } kCp[] = {
        { "SPSR_EL1", { 4, 0, 3, 0, 0, 0 } },
        { "SCTLR_EL1", { 1, 0, 3, 0, 0, 0 } },
        { "TCR_EL1", { 2, 0, 3, 0, 2, 0 } },
    };
    for (const auto &c : kCp) {
        uc_arm64_cp_reg r = c.enc;
        if constexpr (!A::loading)
            reg(c.name, UC_ARM64_REG_CP_REG, &r);
        a(c.name, r.val);
        if constexpr (A::loading)
            reg(c.name, UC_ARM64_REG_CP_REG, &r);
    }
}

template <class A> void Aarch64Iss::state(A &a)
{
    monitors_state(a);
    a("ended", ended);
    a.below("DVFS steps told", clock_told_, cluster_.dvfs.size() + 1);
    a.count("threads", threads.size());
    for (Thread &t : threads) {
        a("SYSCTL_SELECT", t.selected);
        a("local time", t.now);
        a("run start", t.run_t0);
        a("run start count", t.run_n0);
        a("run frequency", t.hz);
        a("instructions retired", t.retired);
        a("instructions reported", t.reported);
        a("block PC", t.block_pc);
        a("block start", t.block_start);
        a("block size", t.block_size);
        a("run limit", t.limit);
        a("interrupt expected at", t.interrupt_at);
        a("ran a block", t.ran_block);
        a("stopping", t.stopping);
        a("in WFI", t.wfi);
        a("exited", t.exited);
        a("powered off", t.off);
        for (Thread::Timer &tm : t.timer) {
            a("CNTx_CTL_EL0", tm.ctl);
            a("CNTx_CVAL_EL0", tm.cval);
        }
        a("SYSCTL_IRQ_ENABLE", t.irq_enable);
        IssPeResult &r = t.result;
        a("console", r.console);
        a("exit written", r.exited);
        a("exit status", r.status);
        a("ended by", r.ended_by);
        a("exit time", r.exit_time);
        a("instructions at exit", r.exit_instructions);
        a("instructions told", r.instructions);
        a("interrupts taken", r.interrupts);
        a("exceptions taken", r.exceptions);
        a("bus errors", r.bus_errors);
        a("external aborts", r.aborts);
        a("largest skid", r.max_skid);
        for (unsigned e = 0; e < a64::kNumEvents; e++)
            a(a64::name((a64::Event)e), r.events[e]);
        registers(a, t);
    }
}

// The monitors learn each DVFS step up to `through` at its instant, once:
// the steps of a quantum when it starts, and the next step of a run before
// the run (its last block may pass it); the threads' runs of a quantum, in
// any order, then count at the frequency of their instants.
void Aarch64Iss::tell_clock(pmvp_time through)
{
    for (; clock_told_ < cluster_.dvfs.size() && cluster_.dvfs[clock_told_].at <= through; clock_told_++) {
        const DvfsStep &d = cluster_.dvfs[clock_told_];
        if (monitors_ && d.at >= time_.now()) {
            int err = monitors_->set_clock(d.hz, offset(d.at));
            if (err != PMVP_OK)
                SC_REPORT_ERROR("pmvp/iss", (std::string("a DVFS step was refused: ") + pmvp_strerror(err)).c_str());
        }
    }
}

void Aarch64Iss::advance(Thread &t, pmvp_time until)
{
    t.now = std::max(t.now, time_.now());
    while (t.now < until && !t.exited) {
        if (t.off) {  // until a CPU_ON (psci), which sets its instant
            t.now = until;
            return;
        }
        if (t.wfi) {
            pmvp_time wake = virt() ? wfi_wake_virt(t) : wfi_wake_pmvp(t);
            if (wake >= until) {
                t.slept_from = t.now;
                t.now = until;
                return;
            }
            t.now = wake;
            t.wfi = false;
            if (monitors_)
                check(monitors_->set_state(t.pe, PMVP_PE_RUN, offset(t.now)), "set_state");
        }
        run_slice(t, until);
    }
}

// Whether a read of PMCCNTR_EL0 may come before the instructions before it
// are told, which are then told with the run's next report: PMCCNTR counts
// cycles, not them, and while the cycle of an occurrence matters to no
// counter (Monitors::cycle_values_matter: no threshold, no freeze on
// overflow, which could stop PMCCNTR) they count the same told later over a
// longer stretch. Nothing else changes the core while the run lasts (its
// writes end it), so the answer holds for the run. A read that can be
// delayed (the inaccuracy profile's read delay) is told first.
bool Aarch64Iss::cycle_reads_first(const Thread &t)
{
    bool matter = true;
    check(monitors_->cycle_values_matter(matter, offset(t.now)), "cycle_values_matter");
    return !matter && cluster_.config.inaccuracy.read_delay_cycles == 0;
}

// Whether a load at `address` reads PMU.PMCCNTR_EL0 (or a half of it) in
// the frame of one of this core's PEs, which cycle_reads_first may read
// before the instructions before it are told, as it lets an MRS.
bool Aarch64Iss::reads_own_pmccntr(uint64_t address) const
{
    const uint64_t first = kFramesBase + threads.front().g * kPeWindow;
    if (!monitors_ || address < first || address >= first + threads.size() * kPeWindow)
        return false;
    const uint32_t in_frame = (uint32_t)((address - first) % kPeWindow);  // the PMU frame leads the window
    return in_frame == pmccntr_ || in_frame == pmccntr_ + 4;
}

uint64_t Aarch64Iss::watch_events(Thread &t)
{
    uint64_t left[a64::kNumEvents];
    check(monitors_->events_to_interrupt(t.pe, a64::kNumber, a64::kNumEvents, left, offset(t.now)),
          "events_to_interrupt");
    t.watching = 0;
    for (unsigned e = 0; e < a64::kNumEvents; e++)
        if (e != a64::INST_RETIRED && left[e] != PMVP_EVENTS_NEVER)  // INST_RETIRED: the run's limit
            t.watch[t.watching++] = { (a64::Event)e, left[e] };
    return left[a64::INST_RETIRED];
}

// One run of thread t's guest, from its local time to `until` at most: a
// pending interrupt taken first, then as many instructions as the clock,
// the next interrupt or freeze and the timers allow.
void Aarch64Iss::run_slice(Thread &t, pmvp_time until)
{
    uint64_t pc = take_pending_irq(t);
    t.hz = cluster_.hz_at(t.now);
    if (t.hz == 0) {  // the clock is stopped: nothing executes
        t.now = until;
        return;
    }
    until = start_run(t, until);
    t.limit = t.retired + run_length(t, until);
    t.ran_block = t.stopping = false;
    // No end address: `until` is an address at which the engine stops, and
    // no instruction is at UINT64_MAX (they are 4-byte aligned), where 0
    // would stop a guest that jumps to 0 before it faults there.
    uc_err err = uc_emu_start(t.uc, pc, UINT64_MAX, 0, 0);
    uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
    close_block(t, pc);
    ended_run(t, err);
}

// An interrupt between blocks: taken if the line is high and PSTATE.I
// clear. The interrupt request is a level (D13.3.1): one pending while
// masked is taken where the guest unmasks it, so the run ends there. The
// PC the run starts at.
uint64_t Aarch64Iss::take_pending_irq(Thread &t)
{
    uint64_t pstate = 0, pc = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
    const bool line = irq_line(t, t.now);
    if (!(pstate & kPstateI) && line) {
        if (t.interrupt_at != UINT64_MAX)
            t.result.max_skid = std::max(t.result.max_skid, t.retired - t.interrupt_at);
        t.interrupt_at = UINT64_MAX;
        t.result.interrupts++;
        enter_exception(t, kVectorIrq, pc, nullptr);
        uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
        tell_retired(t, t.retired);  // EXC_TAKEN, EXC_IRQ, before the run's watches
    }
    t.watch_unmask = line;
    return pc;
}

// A run keeps one frequency: it ends at the next DVFS step. But it runs at
// least one block and ends after the block that reaches its end, so the
// instructions of that block past the step (one before the quantum's end,
// or just after it) take the new clock (time_of), which the monitors learn
// before they hear of those instructions (tell_retired). The run's end.
pmvp_time Aarch64Iss::start_run(Thread &t, pmvp_time until)
{
    t.run_t0 = t.now;
    t.run_n0 = t.retired;
    t.step_n = UINT64_MAX;
    if (const DvfsStep *step = cluster_.next_step(t.now)) {
        until = std::min(until, step->at);
        pmvp_clock_init(&t.step_clock, t.hz, t.run_t0);
        pmvp_clock_set_hz(&t.step_clock, step->hz, step->at);
        t.step_n = t.run_n0 + pmvp_clock_cycles(&t.step_clock, step->at) / cluster_.cpu.cpi;
        t.step_at = step->at;
    }
    return until;
}

// The instructions the run may retire: up to `until`, to the one that
// raises PMUIRQ, to a freeze, or to a timer's interrupt.
uint64_t Aarch64Iss::run_length(Thread &t, pmvp_time until)
{
    uint64_t n = instructions_until(t, until);
    if (monitors_) {
        const uint64_t events = watch_events(t);
        t.cycle_reads_first = cycle_reads_first(t);
        pmvp_time when = PMVP_TIME_NEVER, freeze = PMVP_TIME_NEVER;
        check(monitors_->next_interrupt(when, offset(t.now)), "next_interrupt");
        check(monitors_->next_freeze(freeze, offset(t.now)), "next_freeze");
        uint64_t to_interrupt = std::min(events, when == PMVP_TIME_NEVER ? UINT64_MAX : instructions_until(t, when));
        if (to_interrupt <= n) {
            n = to_interrupt;
            t.interrupt_at = t.retired + to_interrupt;
        }
        if (freeze != PMVP_TIME_NEVER)  // those up to a freeze are told at their instant, before it
            n = std::min(n, std::max<uint64_t>(1, instructions_until(t, freeze, true)));
    }
    if (virt()) {  // a timer's interrupt is taken between blocks, as PMUIRQ's
        pmvp_time fires = next_timer(t, t.now);
        if (fires != PMVP_TIME_NEVER)
            n = std::min(n, instructions_until(t, fires));
    }
    return n;
}

// After the run: a fault the ISS cannot take ends the guest; the retired
// instructions told; a WFI that ended the run, or the guest's exit, puts
// the PE to sleep.
void Aarch64Iss::ended_run(Thread &t, uc_err err)
{
    uint64_t pc = 0;
    if (err == UC_ERR_FETCH_UNMAPPED && virt()) {
        instruction_abort(t);
        err = UC_ERR_OK;
    } else if (err != UC_ERR_OK) {
        uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
        char where[64];
        std::snprintf(where, sizeof where, " at PC 0x%llx", (unsigned long long)pc);
        std::string what = uc_strerror(err) + std::string(where);
        if (err == UC_ERR_READ_UNMAPPED || err == UC_ERR_WRITE_UNMAPPED) {
            // Unicorn 2.0.1 leaves the PC at its block's last synchronised
            // instruction here, so no precise data abort can be taken.
            std::snprintf(where, sizeof where, " (address 0x%llx; PC of its block)",
                          (unsigned long long)t.fault_address);
            what = uc_strerror(err) + std::string(where);
        }
        t.result.console += "[pmvp: the ISS stopped: " + what + "]\n";
        t.exited = true;
        t.result.status = 0xEE;
    }
    tell_retired(t, t.retired);
    t.now = time_of(t, t.retired);
    if (err == UC_ERR_OK && !t.exited && t.ran_block) {
        // WFI returns from the run with the PC after it, at the end of its
        // block (it ends the block); it is no exception and no hook sees it.
        uint32_t insn = 0;
        uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
        uc_mem_read(t.uc, pc - 4, &insn, 4);
        if (insn == kWfi && pc == t.block_pc + t.block_size) {
            t.wfi = true;
            if (monitors_)
                check(monitors_->set_state(t.pe, PMVP_PE_WFI, offset(t.now)), "set_state");
        }
    }
    if (t.exited && monitors_)
        check(monitors_->set_state(t.pe, PMVP_PE_WFI, offset(t.now)), "set_state");  // the PE sleeps from its exit on
    // A run that retired nothing (an exception entry, taken by the host)
    // still takes an instruction's time, so a guest that faults forever
    // costs the host no more per simulated µs than one that computes.
    if (t.now <= t.run_t0 && !t.wfi && !t.exited)
        t.now = std::max(t.run_t0 + 1, time_of(t, t.run_n0 + 1));
}

namespace {

void on_frame_access(uc_engine *, uc_mem_type type, uint64_t address, int size, int64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    uint64_t before = iss.retired_before_access(t);
    bool write = type == UC_MEM_WRITE;
    if (!(t.cycle_reads_first && !write && iss.reads_own_pmccntr(address)))
        iss.tell_retired(t, before);
    // One beat on the platform's bus (BUS_ACCESS), told with its
    // instruction's events.
    iss.occur(t, a64::BUS_ACCESS);
    iss.occur(t, write ? a64::BUS_ACCESS_WR : a64::BUS_ACCESS_RD);
    uint64_t data = write ? (uint64_t)value : 0;
    tlm::tlm_generic_payload &gp = iss.frame_gp;  // one for every access: no construction each time
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(address);
    gp.set_data_ptr(reinterpret_cast<unsigned char *>(&data));
    gp.set_data_length((unsigned)size);
    gp.set_streaming_width((unsigned)size);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = iss.offset(iss.time_of(t, before));
    if (iss.monitors_)
        iss.guest_.bus->b_transport(gp, delay);
    if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
        t.result.bus_errors++;  // an error response reads as zero; a write is lost
        data = 0;
    }
    const uint64_t at = address - kFramesBase;
    if (!write && at + (uint64_t)size <= iss.guest_.frames_size) {  // (one reaching beyond faults)
        if (size == 4)  // a register's 32 bits, the common case, as one move
            std::memcpy(iss.guest_.frames + at, &data, 4);
        else
            std::memcpy(iss.guest_.frames + at, &data, (size_t)size);
    } else if (write)
        iss.stop(t);  // the monitors changed: limits anew
}

uint64_t on_sysctl_read(uc_engine *, uint64_t off, unsigned size, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    const Scenario &s = iss.soc_.scenario;
    auto access_time = [&] { return iss.time_of(t, iss.retired_before_access(t)); };
    switch (off) {
    case SYSCTL_PE: return t.image_pe;
    case SYSCTL_NUM_PES: return iss.guest_.doorbell.size();
    case SYSCTL_SOC_PE: return t.g;
    case SYSCTL_SOC_PES: return s.num_pes();
    case SYSCTL_TIME: {  // 64 bits, or its low or high half
        pmvp_time now = access_time();
        return size == 8 ? now : (uint32_t)now;
    }
    case SYSCTL_TIME + 4: return size == 4 ? access_time() >> 32 : 0;
    case SYSCTL_SELECT: return t.selected;
    case SYSCTL_SELECTED_MODEL:
        if (t.selected >= iss.soc_.pes.size())
            return kNoSuchPe;
        return iss.soc_.pes[t.selected].iss ? kModelIss : kModelAnalytic;
    case SYSCTL_SELECTED_HZ:
        if (t.selected >= iss.soc_.pes.size())
            return 0;
        return (uint32_t)iss.soc_.core_of(t.selected).cluster.hz_at(access_time());
    case SYSCTL_THREAD: return t.pe;
    case SYSCTL_THREADS: return iss.threads.size();
    case SYSCTL_CORE_HZ: return (uint32_t)iss.cluster_.hz_at(access_time());
    case SYSCTL_CPI: return iss.cluster_.cpu.cpi;
    case SYSCTL_SYSCNT_HZ: return (uint32_t)s.system_counter_hz;
    case SYSCTL_WFX: {  // the core's WFx choices, so the firmware knows what to expect
        const pmvp_core_config &c = iss.cluster_.config;
        return (c.clock_stops_in_wfx ? 1u : 0u) | (c.pmccntr_counts_in_wfx ? 2u : 0u) |
               (c.wfx_thread_active ? 4u : 0u) | (c.cpu_cycles_in_wfx ? 8u : 0u);
    }
    case SYSCTL_IRQ_ENABLE: return t.irq_enable;
    case SYSCTL_IRQ_STATUS: {
        iss.tell_retired(t, iss.retired_before_access(t));  // PMUIRQ after the instructions before it
        pmvp_time at = access_time();
        bool pmu = false;
        if (iss.monitors_)
            iss.check(iss.monitors_->irq_level(t.pe, pmu, iss.offset(at)), "irq_level");
        const Guest::Doorbell &bell = iss.guest_.doorbell[t.image_pe];
        return (pmu ? kIrqPmu : 0) | (bell.rung && bell.at <= at ? kIrqDoorbell : 0);
    }
    default: return 0;  // write-only and reserved offsets read as zero
    }
}

void on_sysctl_write(uc_engine *, uint64_t off, unsigned, uint64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    const uint64_t before = iss.retired_before_access(t);
    pmvp_time at = iss.time_of(t, before);
    switch (off) {
    case SYSCTL_CONSOLE: t.result.console += (char)value; break;
    case SYSCTL_EXIT:
        iss.tell_retired(t, before);
        t.exited = true;
        t.result.exited = true;
        t.result.exit_instructions = before;
        t.result.status = (uint32_t)value;
        t.result.exit_time = at;
        t.result.ended_by = "SYSCTL_EXIT";
        iss.stop(t);
        break;
    case SYSCTL_IRQ_ENABLE:
        t.irq_enable = (uint32_t)value & (kIrqPmu | kIrqDoorbell);
        iss.stop(t);
        break;
    case SYSCTL_DOORBELL_SET:
        if (value < iss.guest_.doorbell.size())
            iss.guest_.ring((unsigned)value, at);
        break;
    case SYSCTL_SELECT: t.selected = (uint32_t)value; break;
    case SYSCTL_DOORBELL_CLEAR: iss.guest_.doorbell[t.image_pe].rung = false; break;
    default: break;  // read-only and reserved offsets ignore writes
    }
}

// ---- Virtual addresses Unicorn 2.0.1 refuses before it translates them

// The physical address the guest's EL1&0 stage 1 tables give `va`
// (VMSAv8-64, D8.2: 4, 16 or 64 KiB granules, TTBR0 or TTBR1 by bit 55),
// or UINT64_MAX: a fault. Only to decide whether to alias: the access itself
// is translated by the engine, which faults as the architecture says.
uint64_t translate(uc_engine *uc, uint64_t va)
{
    uc_arm64_cp_reg sctlr{ 1, 0, 3, 0, 0, 0 }, tcr{ 2, 0, 3, 0, 2, 0 };
    uc_reg_read(uc, UC_ARM64_REG_CP_REG, &sctlr);
    if (!(sctlr.val & 1))
        return UINT64_MAX;  // MMU off: the address is physical, and not mapped
    uc_reg_read(uc, UC_ARM64_REG_CP_REG, &tcr);
    const bool upper = (va >> 55) & 1;
    const unsigned tsz = (unsigned)(tcr.val >> (upper ? 16 : 0)) & 0x3F;
    const unsigned tg = (unsigned)(tcr.val >> (upper ? 30 : 14)) & 3;
    // TG0: 0 4K, 1 64K, 2 16K; TG1: 1 16K, 2 4K, 3 64K.
    unsigned grain = upper ? (tg == 1 ? 14 : tg == 3 ? 16 : 12) : (tg == 1 ? 16 : tg == 2 ? 14 : 12);
    if ((tcr.val >> (upper ? 23 : 7)) & 1)
        return UINT64_MAX;  // EPDn: walks disabled
    const unsigned inputsize = 64 - tsz, stride = grain - 3;
    uint64_t ttbr = 0;
    uc_reg_read(uc, upper ? UC_ARM64_REG_TTBR1_EL1 : UC_ARM64_REG_TTBR0_EL1, &ttbr);
    uint64_t table = ttbr & 0x0000FFFFFFFFFFFEull & ~((1ull << 12) - 1);
    const int start = 4 - (int)((inputsize - 4) / stride);  // the walk's first level (D8.2.6)
    for (int level = start; level <= 3; level++) {
        const unsigned shift = grain + (unsigned)(3 - level) * stride;
        const unsigned bits = level == start ? inputsize - shift : stride;
        const uint64_t index = (va >> shift) & ((1ull << bits) - 1);
        uint64_t d = 0;
        if (uc_mem_read(uc, table + index * 8, &d, 8) != UC_ERR_OK || !(d & 1))
            return UINT64_MAX;
        const uint64_t out = d & 0x0000FFFFFFFFFFFFull & ~((1ull << grain) - 1);
        if (level == 3 || !(d & 2))  // a page, or a block
            return (level == 3 ? out : d & 0x0000FFFFFFFFFFFFull & ~((1ull << shift) - 1)) |
                   (va & ((1ull << shift) - 1));
        table = out;
    }
    return UINT64_MAX;
}

bool on_unmapped(uc_engine *uc, uc_mem_type, uint64_t address, int, int64_t, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Guest &g = t.iss->guest_;
    t.fault_address = address;
    constexpr uint64_t kPage = 4096;
    const uint64_t va = address & ~(kPage - 1), pa = translate(uc, va);
    if (pa == UINT64_MAX || pa < kRamBase || pa - kRamBase >= g.ram_size || t.aliases >= kMaxAliases)
        return false;  // the engine stops the PE (docs/FIRMWARE.md)
    if (uc_mem_map_ptr(uc, va, kPage, UC_PROT_ALL, g.ram + (pa & ~(kPage - 1)) - kRamBase) != UC_ERR_OK)
        return false;
    t.aliases++;
    return true;
}

// ---- The virt machine's devices: each access at its instruction's instant.

uint64_t on_uart_read(uc_engine *, uint64_t off, unsigned, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    return t.iss->guest_.uart.read(off);
}

void on_uart_write(uc_engine *, uint64_t off, unsigned, uint64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    char c = 0;
    if (t.iss->guest_.uart.write(off, (uint32_t)value, &c))
        t.result.console += c;
}

// The instant of the access the guest makes now, the instructions before it
// told to the monitors (so PMUIRQ is as they leave it).
pmvp_time access_instant(Aarch64Iss::Thread &t)
{
    Aarch64Iss &iss = *t.iss;
    uint64_t before = iss.retired_before_access(t);
    iss.tell_retired(t, before);
    return iss.time_of(t, before);
}

uint64_t on_gicd_read(uc_engine *, uint64_t off, unsigned size, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    iss.sync_pmu_line(t, access_instant(t));  // GICD_ISPENDR shows the PPI's line
    return iss.guest_.gic->dist_read(t.image_pe, off, size);
}

void on_gicd_write(uc_engine *, uint64_t off, unsigned size, uint64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    pmvp_time at = access_instant(t);
    uint32_t sgi = iss.guest_.gic->dist_write(t.image_pe, off, size, (uint32_t)value, at);
    for (unsigned pe = 0; pe < virt::Gicv2::kMaxCpus; pe++)
        if (sgi & (1u << pe))
            iss.guest_.wake(pe, at);
    iss.stop(t);  // what the GIC signals may have changed: the line anew
}

uint64_t on_gicc_read(uc_engine *, uint64_t off, unsigned, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    pmvp_time at = access_instant(t);
    iss.sync_pmu_line(t, at);
    if (off == virt::kGiccIar)  // an acknowledgement changes the running priority
        iss.stop(t);
    return iss.guest_.gic->cpu_read(t.image_pe, off, at);
}

void on_gicc_write(uc_engine *, uint64_t off, unsigned, uint64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    pmvp_time at = access_instant(t);
    iss.guest_.gic->cpu_write(t.image_pe, off, (uint32_t)value, at);
    iss.stop(t);
}

}  // namespace

// ----------------------------------------------------------------- Guest

Guest::Guest(const sc_core::sc_module_name &name, Soc &soc)
    : sc_module(name), machine(soc.scenario.machine), ram_size(machine.ram()),
      frames_size((soc.scenario.num_pes() * kPeWindow + 0xFFF) & ~0xFFFull), bus("bus"), soc_(soc)
{
    const Scenario &s = soc.scenario;
    for (const Cluster &c : s.clusters)
        if (c.iss())
            doorbell.resize(doorbell.size() + (size_t)c.cores * c.config.num_pes);
    for (size_t i = 0; i < s.clusters.size(); i++)
        if (const Cluster &c = s.clusters[i]; c.iss() && c.cpu.firmware.empty())
            throw ScenarioError("clusters[" + std::to_string(i) +
                                "].cpu.firmware: missing (the image the ISS runs; "
                                "or give --kernel IMAGE)");
    for (const Cluster &c : s.clusters)
        if (c.iss()) {
            // One image for every ISS cluster (parse_scenario).
            image = machine.kind == Machine::VIRT ? load_kernel(c.cpu.firmware, ram_size)
                                                  : load_firmware(c.cpu.firmware, ram_size);
            path_ = c.cpu.firmware;
            break;
        }
    ram = static_cast<uint8_t *>(std::aligned_alloc(4096, ram_size));
    if (!ram)
        throw std::runtime_error("cannot allocate the guest RAM");
    std::memset(ram, 0, ram_size);
    load_ram(ram);
    frames = static_cast<uint8_t *>(std::aligned_alloc(4096, frames_size));
    if (!frames)
        throw std::runtime_error("cannot allocate the frames' memory");
    if (machine.kind == Machine::VIRT) {
        mpidr = virt_mpidrs(s);
        gic = std::make_unique<virt::Gicv2>((unsigned)mpidr.size());
        dtb = machine_dtb(s);
        dtb_at = dtb_address(image, ram_size, dtb.size());
        if (dtb_at)
            std::memcpy(ram + (dtb_at - kRamBase), dtb.data(), dtb.size());
    }
    SC_THREAD(run);
}

// The RAM as loaded: the image, and the device tree where it goes.
void Guest::load_ram(uint8_t *to) const
{
    for (const FirmwareImage::Segment &seg : image.segments)
        std::memcpy(to + (seg.address - kRamBase), seg.bytes.data(), seg.bytes.size());
    if (dtb_at)
        std::memcpy(to + (dtb_at - kRamBase), dtb.data(), dtb.size());
}

Guest::~Guest()
{
    std::free(ram);
    std::free(frames);
}

// One quantum after another, the ISS cores in the SoC's order: a guest sees
// another's stores and doorbells in an order that does not depend on the
// simulator's choice among processes (nor on a restore). A core's run ends
// when every thread of it has exited, with the scenario, or when the SoC's
// run ends early (Soc::interrupt). A restored run goes on from the
// quantum's end the process waited for at the checkpoint.
void Guest::run()
{
    const pmvp_time end = soc_.scenario.duration, quantum = soc_.scenario.quantum;
    bool go = soc_.resume_at ? pause_until(wake_) : true;
    while (go) {
        wake_ = std::min(end, time_.now() + quantum);
        // Every core to the quantum's end; again for a core whose sleeping
        // thread a later core's doorbell woke before that end (ring).
        for (bool again = true; again;) {
            for (Aarch64Iss *core : cores)
                if (!core->ended)
                    core->quantum(wake_);
            again = std::any_of(cores.begin(), cores.end(),
                                [&](const Aarch64Iss *c) { return !c->ended && c->behind(wake_); });
        }
        bool running = false;
        for (Aarch64Iss *core : cores) {
            if (core->ended)
                continue;
            if (core->live() && wake_ < end && !soc_.ended_early) {
                running = true;
            } else {
                core->ended = true;
                soc_.iss_core_ended();
            }
        }
        go = running && pause_until(wake_);
    }
    for (Aarch64Iss *core : cores)
        if (!core->ended) {  // the SoC's run ended early
            core->ended = true;
            soc_.iss_core_ended();
        }
}

// A doorbell rung at `at` (the earliest instant counts while it stays
// rung). Its PE, if it slept in WFI past `at` because it ran before the
// ringing thread in this quantum, is woken at the ring's instant, or at
// its sleep's start if that came later: it slept past nothing but time.
void Guest::ring(unsigned pe, pmvp_time at)
{
    Doorbell &bell = doorbell[pe];
    bell.at = bell.rung ? std::min(bell.at, at) : at;
    bell.rung = true;
    wake(pe, bell.at);
}

void Guest::wake(unsigned pe, pmvp_time at)
{
    for (Aarch64Iss *core : cores)
        for (Aarch64Iss::Thread &t : core->threads)
            if (t.image_pe == pe && t.wfi && !t.exited && t.now > at)
                t.now = std::max(at, t.slept_from);
}

void Guest::end_all(pmvp_time at, uint32_t status, const std::string &by)
{
    for (Aarch64Iss *core : cores)
        for (Aarch64Iss::Thread &t : core->threads) {
            if (t.exited)
                continue;
            t.exited = t.result.exited = true;
            t.result.status = status;
            t.result.exit_time = at;
            t.result.exit_instructions = t.reported;
            t.result.ended_by = by;
            core->stop(t);
        }
}

// Waits for instant t (or the end of the SoC's run); false if the run ended.
bool Guest::pause_until(pmvp_time t)
{
    wait(time_.to_sc(t - time_.now()), soc_.end_event());
    return !soc_.ended_early;
}

// The doorbells, and the RAM's pages that differ from the image as loaded
// (the image itself is the scenario's: a checkpoint taken with another one
// is refused).
template <class A> void Guest::state(A &a)
{
    a("quantum end", wake_);
    if (std::any_of(cores.begin(), cores.end(), [](const Aarch64Iss *c) { return !c->ended; }))
        a.not_before("quantum end", wake_, soc_.resume_at);  // (cores, loaded before the guest, say)
    a.count("PEs that run the image", doorbell.size());
    for (Doorbell &d : doorbell) {
        a("doorbell rung", d.rung);
        a("doorbell instant", d.at);
    }
    if (gic)
        gic->state(a);
    uart.state(a);
    std::vector<uint8_t> loaded(ram_size, 0);
    load_ram(loaded.data());
    uint64_t fingerprint = pmvp::sc::fnv1a(loaded.data(), loaded.size()), saved = fingerprint;
    a("firmware image", saved);
    if (saved != fingerprint)
        throw CheckpointError("the checkpoint was taken with another firmware image than " + path_);
    constexpr size_t kPage = 4096;
    std::vector<uint64_t> pages;
    if constexpr (!A::loading)
        for (size_t p = 0; p < ram_size / kPage; p++)
            if (std::memcmp(ram + p * kPage, loaded.data() + p * kPage, kPage) != 0)
                pages.push_back(p);
    a("RAM pages written", pages);
    for (uint64_t p : pages) {
        if (p >= ram_size / kPage)
            throw CheckpointError("the checkpoint has a RAM page outside the guest's RAM");
        std::vector<uint8_t> bytes;
        if constexpr (!A::loading)
            bytes.assign(ram + p * kPage, ram + (p + 1) * kPage);
        a("RAM page", bytes);
        if (bytes.size() != kPage)
            throw CheckpointError("the checkpoint has a RAM page of " + std::to_string(bytes.size()) + " bytes");
        std::memcpy(ram + p * kPage, bytes.data(), kPage);
    }
}
template void Guest::state(Saver &);
template void Guest::state(Loader &);

std::unique_ptr<Core> make_iss_core(const sc_core::sc_module_name &name, Soc &soc, const Cluster &cluster,
                                    unsigned index, unsigned cluster_index, unsigned core_in_cluster, unsigned first_pe,
                                    bool attached)
{
    return std::make_unique<Aarch64Iss>(name, soc, cluster, index, cluster_index, core_in_cluster, first_pe, attached);
}

std::vector<uint64_t> virt_mpidrs(const Scenario &s)
{
    constexpr uint64_t kRes1 = 1ull << 31, kMt = 1ull << 24;
    std::vector<uint64_t> m;
    unsigned cluster = 0;
    for (const Cluster &c : s.clusters) {
        if (!c.iss())
            continue;
        const unsigned threads = c.config.num_pes;
        for (unsigned core = 0; core < c.cores; core++)
            for (unsigned t = 0; t < threads; t++)
                m.push_back(threads > 1 ? kRes1 | kMt | (uint64_t)cluster << 16 | (uint64_t)core << 8 | t
                                        : kRes1 | (uint64_t)cluster << 8 | core);
        cluster++;
    }
    return m;
}

std::vector<uint8_t> machine_dtb(const Scenario &s)
{
    virt::DtbSpec spec;
    spec.memory = s.machine.ram();
    spec.mpidr = virt_mpidrs(s);
    spec.bootargs = s.machine.append;
    return virt::build_dtb(spec);
}

IssResult iss_result(const Soc &soc, double host_seconds)
{
    IssResult r;
    r.host_seconds = host_seconds;
    for (const auto &core : soc.cores) {
        const auto *iss = dynamic_cast<const Aarch64Iss *>(core.get());
        if (!iss)
            continue;
        r.attached = iss->monitors != nullptr;
        for (const Aarch64Iss::Thread &t : iss->threads) {
            IssPeResult pr = t.result;
            if (pmvp::sc::Monitors *m = iss->monitors.get()) {
                pr.pmccntr = m->peek(t.pe, PMVP_FRAME_PMU, "PMCCNTR_EL0");
                pr.pmovsset = m->peek(t.pe, PMVP_FRAME_PMU, "PMOVSSET_EL0");
                pr.has_amu = iss->cluster.config.feat_amuv1;
                for (unsigned n = 0; pr.has_amu && n < PMVP_AMU_ARCH_COUNTERS; n++)
                    pr.amu[n] = m->peek(t.pe, PMVP_FRAME_AMU, "AMEVCNTR0<n>", n);
            }
            r.pes.push_back(pr);
        }
    }
    return r;
}

// ----------------------------------------------------------------- report

namespace {
// The ISS clusters' image (one for all, parse_scenario).
const std::string &image_of(const Scenario &s)
{
    for (const Cluster &c : s.clusters)
        if (c.iss())
            return c.cpu.firmware;
    throw std::logic_error("a scenario without ISS clusters has no image");
}
}  // namespace

void print_iss_report(FILE *out, const Scenario &s, const IssResult &r)
{
    std::fprintf(out, "pmvp-soc: %s: %zu PE%s ran %s on the AArch64 ISS for up to %s (%.2f s host)\n", s.name.c_str(),
                 r.pes.size(), r.pes.size() == 1 ? "" : "s", image_of(s).c_str(), time_text(s.duration).c_str(),
                 r.host_seconds);
    for (const IssPeResult &p : r.pes) {
        std::fprintf(out, "\nPE %u (cluster %s, core %u, thread %u): ", p.pe, s.clusters[p.cluster].name.c_str(),
                     p.core, p.thread);
        if (p.exited)
            std::fprintf(out, "exited with status %u at %s (%s)\n", p.status, time_text(p.exit_time).c_str(),
                         p.ended_by.c_str());
        else
            std::fprintf(out, "still running at the end of the scenario (stopped)\n");
        std::fprintf(out,
                     "  %llu instructions, %llu interrupts (largest skid %llu instructions), %llu exceptions, "
                     "%llu bus errors, %llu external aborts\n",
                     (unsigned long long)p.instructions, (unsigned long long)p.interrupts,
                     (unsigned long long)p.max_skid, (unsigned long long)p.exceptions, (unsigned long long)p.bus_errors,
                     (unsigned long long)p.aborts);
        if (r.attached && p.has_amu)
            std::fprintf(out,
                         "  PMCCNTR %llu, PMOVSSET 0x%llx, AMU CPU_CYCLES %llu CNT_CYCLES %llu INST_RETIRED %llu "
                         "STALL_BACKEND_MEM %llu\n",
                         (unsigned long long)p.pmccntr, (unsigned long long)p.pmovsset, (unsigned long long)p.amu[0],
                         (unsigned long long)p.amu[1], (unsigned long long)p.amu[2], (unsigned long long)p.amu[3]);
        else if (r.attached)
            std::fprintf(out, "  PMCCNTR %llu, PMOVSSET 0x%llx, no AMU\n", (unsigned long long)p.pmccntr,
                         (unsigned long long)p.pmovsset);
        else
            std::fprintf(out, "  (no monitors: --detached)\n");
        if (r.attached) {
            std::string told;
            for (unsigned e = 0; e < a64::kNumEvents; e++)
                if (p.events[e])
                    told += (told.empty() ? "" : ", ") + std::string(a64::name((a64::Event)e)) + " " +
                            std::to_string(p.events[e]);
            std::fprintf(out, "  events told: %s\n", told.empty() ? "none" : told.c_str());
        }
        if (!p.console.empty()) {
            std::fprintf(out, "  console:\n");
            size_t a = 0;
            while (a < p.console.size()) {
                size_t b = p.console.find('\n', a);
                if (b == std::string::npos)
                    b = p.console.size();
                std::fprintf(out, "  | %s\n", p.console.substr(a, b - a).c_str());
                a = b + 1;
            }
        }
    }
}

nlohmann::ordered_json iss_report_json(const Scenario &s, const IssResult &r)
{
    nlohmann::ordered_json j;
    j["scenario"] = s.name;
    j["firmware"] = image_of(s);
    j["duration_ps"] = s.duration;
    j["all_exited"] = r.all_exited();
    j["all_passed"] = r.all_passed();
    for (const IssPeResult &p : r.pes) {
        nlohmann::ordered_json e;
        e["pe"] = p.pe;
        e["cluster"] = s.clusters[p.cluster].name;
        e["core"] = p.core;
        e["thread"] = p.thread;
        e["exited"] = p.exited;
        e["status"] = p.status;
        e["ended_by"] = p.ended_by;
        e["exit_time_ps"] = p.exit_time;
        e["exit_instructions"] = p.exit_instructions;
        e["instructions"] = p.instructions;
        e["interrupts"] = p.interrupts;
        e["max_skid"] = p.max_skid;
        e["exceptions"] = p.exceptions;
        e["bus_errors"] = p.bus_errors;
        e["aborts"] = p.aborts;
        e["pmccntr"] = p.pmccntr;
        e["pmovsset"] = p.pmovsset;
        if (r.attached) {
            nlohmann::ordered_json told;
            for (unsigned k = 0; k < a64::kNumEvents; k++)
                told[a64::name((a64::Event)k)] = p.events[k];
            e["events"] = told;
        }
        if (p.has_amu)
            e["amu"] = { { "CPU_CYCLES", p.amu[0] },
                         { "CNT_CYCLES", p.amu[1] },
                         { "INST_RETIRED", p.amu[2] },
                         { "STALL_BACKEND_MEM", p.amu[3] } };
        else
            e["amu"] = nullptr;  // no AMU
        e["console"] = p.console;
        j["pes"].push_back(e);
    }
    return j;
}

}  // namespace pmvp::soc
