// SPDX-License-Identifier: Apache-2.0
//
// The run loop: a quantum of every thread, a thread's runs between its
// WFIs, and one run of its engine, as long as the clock, the next interrupt
// or freeze and the timers allow.

#include "aarch64_iss.h"

namespace pmvp::soc {

namespace {

// The longest stretch an SMT thread runs before its siblings catch up
// (Aarch64Iss::quantum): the default quantum's.
constexpr pmvp_time kSmtSlice = 10000000;  // 10 us

}  // namespace

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

// What other PEs' maintenance, or a block found changed, left to do before
// the run, when the engine is not running: Unicorn drops translations only
// then. The block's code is where the PE stopped before it, at the same
// Exception level, so translating its address does not fault.
void Aarch64Iss::drop_stale(Thread &t)
{
    if (t.stale_tlb)
        unicorn_ok(uc_ctl_flush_tlb(t.uc), "flush the TLB");
    if (t.recoded_size)
        unicorn_ok(uc_ctl_remove_cache(t.uc, t.recoded_pc, t.recoded_pc + t.recoded_size),
                   "drop a changed block's translation");
    t.stale_tlb = false;
    t.recoded_size = 0;
}

void Aarch64Iss::broadcast(const Thread &from, bool tlb)
{
    for (Aarch64Iss *core : guest_.cores)
        for (Thread &t : core->threads)
            if (&t != &from) {
                t.blocks.clear();
                t.stale_tlb |= tlb;
            }
}

// One run of thread t's guest, from its local time to `until` at most: a
// pending interrupt taken first, then as many instructions as the clock,
// the next interrupt or freeze and the timers allow.
void Aarch64Iss::run_slice(Thread &t, pmvp_time until)
{
    t.exception_at = UINT64_MAX;
    drop_stale(t);
    arm_debug(t);
    prepare_step(t);
    uint64_t pc = take_pending_irq(t);
    t.hz = cluster_.hz_at(t.now);
    if (t.hz == 0) {  // the clock is stopped: nothing executes
        t.now = until;
        return;
    }
    until = start_run(t, until);
    t.limit = t.retired + run_length(t, until);
    t.ran_block = t.stopping = false;
    t.stopped_before = UINT64_MAX;
    // No end address: the engine uses exits, of which it has none
    // (open_engine), so `until` is ignored.
    uc_err err = uc_emu_start(t.uc, pc, UINT64_MAX, 0, 0);
    uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
    if (t.stopped_before != UINT64_MAX && pc != t.stopped_before) {
        // While a code hook exists (a breakpoint's), Unicorn leaves the PC
        // where the last hooked instruction set it when the block hook stops
        // the run: the run ended before the block at `stopped_before`.
        pc = t.stopped_before;
        uc_reg_write(t.uc, UC_ARM64_REG_PC, &pc);
    }
    // WFI ends its translated block, and the run returns with the PC after
    // it: the block that ran last says whether one did (no hook sees it).
    // (An empty block, QEMU's for a pending Software Step exception, has
    // none.)
    const bool wfi_last =
        t.block && !t.block->words.empty() && t.block->words.back() == kWfi && pc == t.block_pc + t.block_size;
    close_block(t, pc);
    ended_run(t, err, wfi_last);
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
        } else if (t.interrupt_at != UINT64_MAX && t.interrupt_at > t.retired) {
            t.interrupt_at = UINT64_MAX;  // expected no more (the counters changed): each run looks anew
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
// instructions told; a WFI that ended the run (`wfi_last`), or the guest's
// exit, puts the PE to sleep.
void Aarch64Iss::ended_run(Thread &t, uc_err err, bool wfi_last)
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
            // Unicorn leaves the PC at its block's last synchronised
            // instruction here (it ends the run without restoring the
            // state of the load or store), so no precise data abort can be
            // taken. The address is physical.
            std::snprintf(where, sizeof where, " (physical address 0x%llx; PC of its block)",
                          (unsigned long long)t.fault_address);
            what = uc_strerror(err) + std::string(where);
        }
        t.result.console += "[pmvp: the ISS stopped: " + what + "]\n";
        t.exited = true;
        t.result.status = 0xEE;
    }
    tell_retired(t, t.retired);
    t.now = time_of(t, t.retired);
    if (err == UC_ERR_OK && !t.exited && t.ran_block && wfi_last) {
        t.wfi = true;
        if (monitors_)
            check(monitors_->set_state(t.pe, PMVP_PE_WFI, offset(t.now)), "set_state");
    }
    if (t.exited && monitors_)
        check(monitors_->set_state(t.pe, PMVP_PE_WFI, offset(t.now)), "set_state");  // the PE sleeps from its exit on
    // A run that retired nothing (an exception entry, taken by the host)
    // still takes an instruction's time, so a guest that faults forever
    // costs the host no more per simulated µs than one that computes; one
    // that stopped before a changed block (stop_recoded) takes none.
    if (t.now <= t.run_t0 && !t.wfi && !t.exited && !t.recoded_size)
        t.now = std::max(t.run_t0 + 1, time_of(t, t.run_n0 + 1));
}

}  // namespace pmvp::soc
