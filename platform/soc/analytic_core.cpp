// SPDX-License-Identifier: Apache-2.0
//
// The cores of the SoC (soc.h): what every core has (its monitors, their
// checkpoint), and the analytic CPU model, whose threads run the
// scenario's workload timelines.
#include "soc.h"

#include "iss.h"
#include "progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

extern "C" {
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/ext.h"
#include "pmvp/fields.h"
}

namespace pmvp::soc {

using sc_core::SC_PS;
using sc_core::sc_time;

// -------------------------------------------------------------------- Core

namespace {

bool same_context(const pmvp_context &x, const pmvp_context &y)
{
    return x.el == y.el && x.security == y.security && x.aarch32 == y.aarch32 && x.halted == y.halted;
}

}  // namespace

pmvp_core_config core_config(const Cluster &c, unsigned cluster, unsigned core_in_cluster)
{
    pmvp_core_config cfg = c.config;
    // Aff0: the thread (the kernel adds it), Aff1: the core, Aff2: the cluster.
    cfg.mpidr = PMVP_MPIDR_EL1_RES1 | (uint64_t)(core_in_cluster & 0xFF) << 8 | (uint64_t)(cluster & 0xFF) << 16;
    return cfg;
}

// A PE thread's progress through its workload.
struct AnalyticCore::Thread {
    const Workload *w = nullptr;
    size_t phase = 0;
    pmvp_time phase_end = 0;
    Phase::Kind state = Phase::RUN;  // as the monitors were last told
    pmvp_context ctx{ 1, PMVP_NONSECURE, false, false, false };
    bool stall = false, stall_mem = false;
    double retired = 0;  // instructions, with the fraction not yet reported
    uint64_t reported = 0;
    const Phase &now() const { return w->phases[phase]; }
};

Core::Core(const sc_core::sc_module_name &name, const Cluster &c, unsigned index, unsigned first_pe)
    : sc_module(name), pmuirq("pmuirq", c.config.num_pes), cluster(c), index(index), first_pe(first_pe)
{}

AnalyticCore::AnalyticCore(const sc_core::sc_module_name &name, Soc &soc, const Cluster &c, unsigned index,
                           unsigned cluster_index, unsigned core_in_cluster, unsigned first_pe,
                           sc_core::sc_signal<uint64_t> &clock, bool attached)
    : Core(name, c, index, first_pe), wfi("wfi", c.config.num_pes), wfe("wfe", c.config.num_pes),
      power("power", c.config.num_pes, [](const char *n, size_t) { return new sc_core::sc_signal<bool>(n, true); }),
      soc_(soc), th_(c.config.num_pes)
{
    for (unsigned t = 0; t < th_.size(); t++) {
        th_[t].w = &c.workloads[t % c.workloads.size()];
        th_[t].phase_end = th_[t].now().duration;
    }
    if (attached) {
        monitors = std::make_unique<pmvp::sc::Monitors>("monitors", core_config(c, cluster_index, core_in_cluster));
        monitors->processor_hz(clock);
        for (unsigned t = 0; t < c.config.num_pes; t++) {
            monitors->wfi[t](wfi[t]);
            monitors->wfe[t](wfe[t]);
            monitors->power[t](power[t]);
            monitors->pmuirq[t](pmuirq[t]);
        }
    }
    SC_THREAD(run);
}

void Core::check(int err, const char *what) const
{
    if (err)
        SC_REPORT_ERROR("pmvp-soc", (std::string(name()) + ": " + what + ": " + pmvp_strerror(err)).c_str());
}

template <class A> void Core::monitors_state(A &a)
{
    monitors_field(a, *monitors, monitors_checkpoint_);
    a.count("PEs in a core", pmuirq.size());
    for (auto &line : pmuirq)
        a.signal("PMUIRQ", line);
}
template void Core::monitors_state(Saver &);
template void Core::monitors_state(Loader &);

void Core::restore_monitors()
{
    pmvp::soc::restore_monitors(*monitors, monitors_checkpoint_);
}

// Brings the CPU model to instant t: it waits for t. An interrupted run
// (Soc::interrupt) waits no more: the thread ends where it is, so nothing is
// left on its stack.
void AnalyticCore::sync_to(pmvp_time t)
{
    if (t > now_ps() && !soc_.ended_early)
        wait(ps(t - now_ps()), soc_.end_event());
}

void AnalyticCore::give(const Input &in)
{
    if (in.kind != Input::STATE) {
        if (monitors)  // detached: the CPU model's work is done; nobody listens
            tell(in);
        return;
    }
    // Signals act now: the caller has synchronised.
    auto st = (pmvp_pe_state)in.value;
    wfi[in.pe].write(st == PMVP_PE_WFI);
    wfe[in.pe].write(st == PMVP_PE_WFE);
    power[in.pe].write(st != PMVP_PE_OFF);
    journal.add(in);
}

void AnalyticCore::tell(const Input &in)
{
    const pmvp_time now = now_ps();
    if (in.t < now || (in.kind == Input::STEP && in.shares.count && in.since < now))
        SC_REPORT_ERROR("pmvp-soc", (std::string(name()) + ": the CPU model fell behind simulated time").c_str());
    journal.add(in);
    pmvp::sc::Monitors &m = *monitors;
    sc_time off = ps(in.t - now);
    int err = PMVP_OK;
    switch (in.kind) {
    case Input::CONTEXT: err = m.set_context(in.pe, in.ctx, off); break;
    case Input::ACTIVE: err = m.set_active_thread(in.pe, off); break;
    case Input::CONTROLS: err = m.set_controls(in.pe, in.ctl, off); break;
    case Input::STEP:
        err = in.shares.count ? m.report_shares(in.shares.of, in.shares.count, ps(in.since - now), off, in.levels.of,
                                                in.levels.count)
                              : m.set_levels(in.levels.of, in.levels.count, off);
        break;
    case Input::AMU_WRITE: err = m.amu_write(in.pe, (pmvp_amu_reg)in.reg, in.n, in.value, off); break;
    default: SC_REPORT_ERROR("pmvp-soc", "not a CPU-model input");
    }
    check(err, "the monitors refused an input of the CPU model");
}

namespace {

// A STEP input at instant t, carrying nothing yet.
Input step_at(pmvp_time t)
{
    Input in;
    in.t = t;
    in.kind = Input::STEP;
    return in;
}

}  // namespace

// Thread t's stall levels from `step`'s instant on: a level change in
// `step` for each that changes (most calls change none).
void AnalyticCore::set_levels(unsigned t, Thread &th, bool stall, bool mem, Input &step)
{
    auto set = [&](bool &level, bool value, uint16_t event) {
        if (level != value)
            step.levels.of[step.levels.count++] = { t, event, value };
        level = value;
    };
    set(th.stall, stall, PMVP_EV_STALL_BACKEND);
    set(th.stall_mem, mem, PMVP_EV_STALL_BACKEND_MEM);
}

// A step is one input to the monitors, for whatever it carries.
void AnalyticCore::give_step(const Input &step)
{
    if (step.shares.count || step.levels.count)
        give(step);
}

// The CPU model: a loosely-timed ISS for every thread of the core. It runs
// ahead of simulated time up to the end of each quantum, telling the
// monitors what happened with local-time offsets, and synchronises at the
// end of the quantum and wherever a PE's WFI/WFE/power signal must change.
template <class A> void AnalyticCore::state(A &a)
{
    monitors_state(a);
    a("time", a_);
    a.not_before("time", a_, soc_.resume_at);
    a.below("active thread", active_, th_.size());
    a("next SoEMT switch", next_switch_);
    a.count("threads", th_.size());
    for (unsigned t = 0; t < th_.size(); t++) {
        Thread &x = th_[t];
        a.below("phase", x.phase, x.w->phases.size());
        a("phase end", x.phase_end);
        a.below("thread state", x.state, Phase::OFF + 1);
        a.below("EL", x.ctx.el, 4);
        a.below("Security state", x.ctx.security, PMVP_ROOT + 1);
        a("AArch32", x.ctx.aarch32);
        a("halted", x.ctx.halted);
        a("PSTATE.PM", x.ctx.pm);
        a("STALL_BACKEND", x.stall);
        a("STALL_BACKEND_MEM", x.stall_mem);
        a("instructions retired", x.retired);
        a("instructions reported", x.reported);
        a.signal("WFI", wfi[t]);
        a.signal("WFE", wfe[t]);
        a.signal("power", power[t]);
    }
}

// Boot: EL3 and EL2 software set MDCR_EL3/MDCR_EL2 and enable the AMU's
// architected and auxiliary counters, on every PE.
void AnalyticCore::boot()
{
    const unsigned T = cluster.config.num_pes;
    for (unsigned t = 0; t < T; t++) {
        Input in;
        in.pe = t;
        in.kind = Input::CONTROLS;
        in.ctl = cluster.controls;
        give(in);
        if (cluster.config.feat_amuv1) {
            in.kind = Input::AMU_WRITE;
            in.reg = PMVP_AMCNTENSET0_EL0;
            in.value = (1u << PMVP_AMU_ARCH_COUNTERS) - 1;
            give(in);
            if (cluster.config.amu_num_aux) {
                in.reg = PMVP_AMCNTENSET1_EL0;
                in.value = (UINT64_C(1) << cluster.config.amu_num_aux) - 1;
                give(in);
            }
        }
    }
    active_ = 0;
    next_switch_ = cluster.soemt_switch;
}

void AnalyticCore::run()
{
    const Scenario &s = soc_.scenario;
    // A restored run goes on from the instant the process waited for when
    // the checkpoint was taken: every state it keeps is a member, and a
    // segment started again from its beginning does only what it had not
    // done (segment()).
    if (soc_.resume_at)
        sync_to(a_);
    else
        boot();
    while (a_ < s.duration && !soc_.ended_early) {
        const pmvp_time a = a_;
        pmvp_time b = s.duration;
        bool running = false;
        for (Thread &x : th_) {
            while (a >= x.phase_end) {
                if (x.phase + 1 < x.w->phases.size() || x.w->repeat) {
                    x.phase = (x.phase + 1) % x.w->phases.size();
                    x.phase_end += x.now().duration;
                } else {
                    x.phase_end = PMVP_TIME_NEVER;  // the last phase holds
                }
            }
            b = std::min(b, x.phase_end);
            running = running || x.now().kind == Phase::RUN;
        }
        // Only running threads have anything to report: a stretch in which
        // every thread sleeps or is off is one step, however long.
        if (running) {
            b = std::min(b, (a / s.quantum + 1) * s.quantum);
            // A switch due while every thread slept happens now (segment()).
            if (cluster.config.mt_policy == PMVP_MT_SOEMT)
                b = std::min(b, next_switch_ > a ? next_switch_ : a + cluster.soemt_switch);
        }
        if (const DvfsStep *d = cluster.next_step(a))
            b = std::min(b, d->at);
        segment(a, b);
        a_ = b;
        if (a_ % s.quantum == 0)
            sync_to(a_);
    }
    sync_to(s.duration);
}

// The process waits (sync_to) only in step 1, before the first PE state
// change of the segment, and what it did before that wait (the stall
// conditions of that thread dropped) it does not do again: so a segment
// started again from its beginning, after a restore, goes on as it would have.
// One segment [a, b) of the workloads' phases: the PE states, then the
// active SoEMT thread, then what each running thread retires and stalls.
void AnalyticCore::segment(pmvp_time a, pmvp_time b)
{
    change_states(a);
    switch_soemt(a);
    retire(a, b);
}

// PE states: a thread that stops running drops its stall conditions; the
// state signals change at `a`, and the monitors see them a delta cycle
// later, before anything else the CPU model tells them.
void AnalyticCore::change_states(pmvp_time a)
{
    std::vector<Thread> &th = th_;
    static const pmvp_pe_state of_kind[] = { PMVP_PE_RUN, PMVP_PE_WFI, PMVP_PE_WFE, PMVP_PE_OFF };
    bool signalled = false, woke = false;
    for (unsigned t = 0; t < (unsigned)th.size(); t++) {
        Phase::Kind k = th[t].now().kind;
        if (k == th[t].state)
            continue;
        Input drop = step_at(a);
        set_levels(t, th[t], false, false, drop);
        give_step(drop);
        sync_to(a);
        Input in;
        in.t = a;
        in.kind = Input::STATE;
        in.pe = t;
        in.value = of_kind[k];
        give(in);
        woke = woke || th[t].state == Phase::OFF;
        th[t].state = k;
        signalled = true;
    }
    if (signalled && !soc_.ended_early)
        wait(sc_core::SC_ZERO_TIME);
    if (woke)
        soc_.powered_on.notify(sc_core::SC_ZERO_TIME);
}

// SoEMT: a long-latency event every soemt_switch, or the active thread
// stopping, switches the core to the next running thread.
void AnalyticCore::switch_soemt(pmvp_time a)
{
    std::vector<Thread> &th = th_;
    const unsigned T = (unsigned)th.size();
    if (cluster.config.mt_policy == PMVP_MT_SOEMT) {
        bool expired = a >= next_switch_;
        if (expired || th[active_].state != Phase::RUN) {
            for (unsigned i = 1; i <= T; i++) {
                unsigned t = (active_ + i) % T;
                if (th[t].state == Phase::RUN) {
                    if (t != active_) {
                        Input in;
                        in.t = a;
                        in.kind = Input::ACTIVE;
                        in.pe = t;
                        give(in);
                        active_ = t;
                    }
                    break;
                }
            }
            next_switch_ = a + cluster.soemt_switch;
        }
    }
}

// Each executing thread retires instructions and stalls for its share of
// the segment's processor cycles. The stalls take the first part of the
// segment, memory stalls first; the instructions retire evenly over its
// cycles. The monitors are told them stretch by stretch, a stretch ending
// wherever a thread's stall ends (or at b), as one batch of every thread's
// instructions spread over the stretch's cycles
// (pmvp_core_report_shares): a threshold on INST_RETIRED sees each cycle's
// count, an MT == 1 counter the sum of the threads'.
void AnalyticCore::retire(pmvp_time a, pmvp_time b)
{
    Plan plan[PMVP_MAX_PES];
    pmvp_time cuts[2 * PMVP_MAX_PES + 1];
    unsigned num_cuts = plan_threads(a, b, plan, cuts);
    cuts[num_cuts++] = b;
    std::sort(cuts, cuts + num_cuts);
    num_cuts = (unsigned)(std::unique(cuts, cuts + num_cuts) - cuts);
    pmvp_time from = a;
    for (unsigned k = 0; k < num_cuts; k++) {
        tell_stretch(a, b, from, cuts[k], plan);
        from = cuts[k];
    }
}

// Each running thread's plan for [a, b), its context and the stall levels
// at a told; the instants inside (a, b) where a stall ends, in `cuts`, and
// their number.
unsigned AnalyticCore::plan_threads(pmvp_time a, pmvp_time b, Plan *plan, pmvp_time *cuts)
{
    std::vector<Thread> &th = th_;
    const unsigned T = (unsigned)th.size();
    const double cycles = (double)(b - a) * (double)cluster.hz_at(a) / 1e12;
    unsigned num_cuts = 0;
    Input start = step_at(a);  // the stall levels at a, every thread's
    for (unsigned t = 0; t < T; t++) {
        Thread &x = th[t];
        if (x.state != Phase::RUN)
            continue;
        const Phase &p = x.now();
        if (!same_context(p.ctx, x.ctx)) {
            Input in;
            in.t = a;
            in.kind = Input::CONTEXT;
            in.pe = t;
            in.ctx = p.ctx;
            give(in);
            x.ctx = p.ctx;
        }
        double share = 1.0;
        if (cluster.config.mt_policy == PMVP_MT_FGMT)
            share = 1.0 / T;
        else if (cluster.config.mt_policy == PMVP_MT_SOEMT && t != active_)
            share = 0.0;
        if (share == 0.0) {
            set_levels(t, x, false, false, start);
            continue;
        }
        Plan &q = plan[t];
        q.retired_at_a = x.retired;
        q.retires = p.ipc * cycles * share;
        q.stall_end = a + (pmvp_time)std::llround((double)(b - a) * p.stall_backend);
        q.mem_end = a + (pmvp_time)std::llround((double)(b - a) * p.stall_backend_mem);
        set_levels(t, x, q.stall_end > a, q.mem_end > a, start);
        for (pmvp_time end : { q.stall_end, q.mem_end })
            if (end > a && end < b)
                cuts[num_cuts++] = end;
    }
    give_step(start);
    return num_cuts;
}

// The stretch [from, cut) of segment [a, b): every thread's instructions
// as shares of its cycles, and the stall levels that end at its end.
void AnalyticCore::tell_stretch(pmvp_time a, pmvp_time b, pmvp_time from, pmvp_time cut, const Plan *plan)
{
    std::vector<Thread> &th = th_;
    const unsigned T = (unsigned)th.size();
    Input told = step_at(cut);
    told.since = from;
    auto &shares = told.shares;
    for (unsigned t = 0; t < T; t++) {
        Thread &x = th[t];
        const Plan &q = plan[t];
        if (q.retires == 0.0)
            continue;
        // At b exactly what the segment retires, whatever the rounding of the stretches.
        x.retired = q.retired_at_a + (cut == b ? q.retires : q.retires * (double)(cut - a) / (double)(b - a));
        auto whole = (uint64_t)std::floor(x.retired);
        if (whole > x.reported) {
            shares.of[shares.count++] = { t, PMVP_EV_INST_RETIRED, whole - x.reported };
            x.reported = whole;
        }
    }
    for (unsigned t = 0; cut < b && t < T; t++) {  // (a thread without a plan has its ends at 0 < cut)
        const Plan &q = plan[t];
        if (q.mem_end == cut)
            set_levels(t, th[t], q.stall_end > cut, false, told);
        if (q.stall_end == cut)
            set_levels(t, th[t], false, false, told);
    }
    give_step(told);
}

}  // namespace pmvp::soc
