// SPDX-License-Identifier: Apache-2.0
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

namespace {

// The simulation runs at SystemC's default resolution of 1 ps, the kernel's
// unit of time (sc_main refuses to start otherwise).
pmvp_time now_ps()
{
    return sc_core::sc_time_stamp().value();
}
// (From ticks: exact beyond the 2^53 ps a double holds, and cheap.)
sc_time ps(pmvp_time t)
{
    return sc_time::from_value(t);
}

}  // namespace

// ------------------------------------------------------------------ Router

Router::Router(const sc_core::sc_module_name &name, unsigned num_pes)
    : sc_module(name), target("target"), frames("frames"), num_pes_(num_pes)
{
    target.register_b_transport(this, &Router::b_transport);
    target.register_transport_dbg(this, &Router::transport_dbg);
}

bool Router::decode(tlm::tlm_generic_payload &gp, unsigned &index, uint64_t &offset) const
{
    uint64_t a = gp.get_address();
    if (a < kFramesBase || a - kFramesBase >= (uint64_t)num_pes_ * kPeWindow)
        return false;
    uint64_t rel = a - kFramesBase;
    index = (unsigned)(rel / kPeWindow * 2 + (rel % kPeWindow) / PMVP_FRAME_SIZE);
    offset = rel % PMVP_FRAME_SIZE;
    return true;
}

void Router::b_transport(int, tlm::tlm_generic_payload &gp, sc_time &delay)
{
    unsigned index;
    uint64_t offset, address = gp.get_address();
    if (!decode(gp, index, offset)) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    gp.set_address(offset);
    frames[index]->b_transport(gp, delay);
    gp.set_address(address);
}

unsigned int Router::transport_dbg(int, tlm::tlm_generic_payload &gp)
{
    unsigned index;
    uint64_t offset, address = gp.get_address();
    if (!decode(gp, index, offset))
        return 0;
    gp.set_address(offset);
    unsigned int n = frames[index]->transport_dbg(gp);
    gp.set_address(address);
    return n;
}

// ------------------------------------------------------ InterruptCollector

InterruptCollector::InterruptCollector(const sc_core::sc_module_name &name, unsigned num_pes)
    : sc_module(name), irq("irq", num_pes), raised(num_pes), seen_(num_pes)
{
    SC_METHOD(edge);
    for (auto &line : irq)
        sensitive << line;
    dont_initialize();
}

void InterruptCollector::edge()
{
    bool rose = false;
    for (unsigned g = 0; g < irq.size(); g++) {
        bool level = irq[g].read();
        if (level && !seen_[g]) {
            raised[g]++;
            pending.push_back(g);
            rose = true;
        }
        seen_[g] = level;
    }
    if (rose)
        taken.notify(sc_core::SC_ZERO_TIME);
}

template <class A> void InterruptCollector::state(A &a)
{
    a.count("PMUIRQ lines", irq.size());
    for (unsigned g = 0; g < irq.size(); g++) {
        a("interrupts raised", raised[g]);
        a.below("PMUIRQ level seen", seen_[g], 2);
    }
    std::vector<unsigned> queue(pending.begin(), pending.end());
    a("interrupts pending", queue);
    for (unsigned g : queue)
        if (g >= irq.size())
            throw CheckpointError("the checkpoint has an interrupt pending from PE " + std::to_string(g) +
                                  ", which the run does not have");
    pending.assign(queue.begin(), queue.end());
}

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

// ---------------------------------------------------------------- Firmware

namespace pmvp::soc {

namespace {

// The external frame's name of a PMU register ("PMEVCNTR<n>_EL0").
std::string ext_name(pmvp_pmu_reg reg)
{
    std::string n = pmvp_pmu_reg_name(reg);
    if (pmvp_pmu_reg_indexed(reg))
        n.insert(n.rfind("_EL"), "<n>");
    return n;
}

}  // namespace

Firmware::Firmware(const sc_core::sc_module_name &name, Soc &soc) : sc_module(name), bus("bus"), soc_(soc)
{
    const FirmwareSetup &f = soc.scenario.firmware;
    readout.resize(soc.scenario.num_pes());
    auto r = readout.begin();  // PEs numbered cluster by cluster (the memory map)
    for (const Cluster &c : soc.scenario.clusters)
        for (unsigned k = 0; k < c.cores * c.config.num_pes; k++, r++) {
            r->evcntr.resize(f.counters.size());
            r->counted.resize(f.counters.size() + 1);
            r->samples.resize(f.counters.size() + 1);
            r->aux.resize(c.config.feat_amuv1 ? c.config.amu_num_aux : 0);
        }
    SC_THREAD(run);
}

// Before the final read, what the agent knows is the samples it took.
template <class A> void Firmware::state(A &a)
{
    a.count("PEs", readout.size());
    for (PeReadout &r : readout) {
        a.count("sampled counters", r.samples.size());
        for (uint64_t &n : r.samples)
            a("samples", n);
    }
    a("interrupts deferred", deferred);
    a("PEs waiting to be on", waiting_);
    for (unsigned g : waiting_)
        if (g >= readout.size())
            throw CheckpointError("the checkpoint has PE " + std::to_string(g) +
                                  " waiting for power, which the run does not have");
    a("handler instant", serve_at_);
    a.not_before("handler instant", serve_at_, soc_.resume_at);
}

uint64_t Firmware::access(unsigned g, pmvp_frame f, const std::string &name, unsigned n, bool write, uint64_t v,
                          bool debug, bool top, bool agent)
{
    const pmvp_core &k = soc_.core_of(g).monitors->kernel();
    uint32_t offset = 0;
    unsigned inst = 0, word = 0;
    int err = PMVP_ERR_REGISTER;
    if (!top) {
        err = pmvp_ext_find(&k, f, name.c_str(), n, &offset);
    } else {
        for (size_t i = 0; i < pmvp_ext_reg_count() && err; i++) {
            const pmvp_ext_reg *t = pmvp_ext_reg_at(i);
            if (t->frame == f && t->half && name == t->name && pmvp_ext_reg_present(&k, t) && n < t->slots) {
                offset = t->offset + n * t->stride;
                err = PMVP_OK;
            }
        }
    }
    const pmvp_ext_reg *r = err ? nullptr : pmvp_ext_decode(&k, f, offset, &inst, &word);
    if (!r) {
        SC_REPORT_ERROR("pmvp-soc", ("firmware: no " + name + " in the frame of PE " + std::to_string(g)).c_str());
        return 0;
    }
    unsigned size = pmvp_ext_reg_width(&k, r) / 8;
    tlm::tlm_generic_payload gp;
    sc_time delay = sc_core::SC_ZERO_TIME;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(kFramesBase + g * kPeWindow + (f == PMVP_FRAME_AMU ? PMVP_FRAME_SIZE : 0) + offset);
    gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));  // little-endian host
    gp.set_data_length(size);
    gp.set_streaming_width(size);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    // I3.1.4: a Most secure access is Root with FEAT_RME, else Secure.
    pmvp::sc::AccessExtension most_secure({ (uint8_t)(k.cfg.feat_rme ? PMVP_ROOT : PMVP_SECURE), false });
    if (agent)
        gp.set_extension(&most_secure);
    if (debug) {
        if (bus->transport_dbg(gp) != size)
            SC_REPORT_ERROR("pmvp-soc", ("firmware: debug access to " + name + " refused").c_str());
        return v;
    }
    bus->b_transport(gp, delay);
    if (agent)
        gp.clear_extension(&most_secure);
    if (gp.is_response_error())
        SC_REPORT_ERROR("pmvp-soc", ("firmware: " + std::string(write ? "write to " : "read of ") + name + " of PE " +
                                     std::to_string(g) + ": " + gp.get_response_string())
                                        .c_str());
    return v;
}

void Firmware::journal(unsigned g, Input::Kind kind, unsigned reg, unsigned n, uint64_t value)
{
    Input in;
    in.t = now_ps();
    in.kind = kind;
    in.pe = soc_.thread_of(g);
    in.reg = reg;
    in.n = n;
    in.value = value;
    soc_.core_of(g).journal.add(in);
}

uint64_t Firmware::pmu_read(unsigned g, pmvp_pmu_reg reg, unsigned n, bool agent)
{
    uint64_t v = access(g, PMVP_FRAME_PMU, ext_name(reg), n, false, 0, false, false, agent);
    journal(g, Input::PMU_READ, reg, n, v);
    return v;
}

uint64_t Firmware::pmu_read_debug(unsigned g, pmvp_pmu_reg reg, unsigned n)
{
    uint64_t v = access(g, PMVP_FRAME_PMU, ext_name(reg), n, false, 0, true);
    journal(g, Input::PMU_READ, reg, n, v);
    return v;
}

void Firmware::pmu_write(unsigned g, pmvp_pmu_reg reg, unsigned n, uint64_t value, bool agent)
{
    access(g, PMVP_FRAME_PMU, ext_name(reg), n, true, value, false, false, agent);
    journal(g, Input::PMU_WRITE, reg, n, value);
}

uint64_t Firmware::amu_read(unsigned g, pmvp_amu_reg reg, unsigned n, bool debug)
{
    uint64_t v =
        access(g, PMVP_FRAME_AMU, reg == PMVP_AMEVCNTR1_EL0 ? "AMEVCNTR1<n>" : "AMEVCNTR0<n>", n, false, 0, debug);
    journal(g, Input::AMU_READ, reg, n, v);
    return v;
}

// Where a counter overflows: 2^64 for a 64-bit counter (PMCR.LC for the
// cycle counter; PMCR.LP with FEAT_PMUv3p5 for event counters), else 2^32;
// 0 stands for 2^64.
uint64_t Firmware::overflow_modulus(unsigned g, bool cycle_counter) const
{
    const pmvp_core_config &cfg = soc_.core_of(g).cluster.config;
    uint64_t pmcr = soc_.scenario.firmware.pmcr;
    bool wide =
        cycle_counter ? (pmcr & PMVP_PMCR_EL0_LC) : (cfg.pmu_version >= PMVP_PMUV3P5 && (pmcr & PMVP_PMCR_EL0_LP));
    return wide ? 0 : UINT64_C(1) << 32;
}

// A counter that overflowed and now holds `value` (the bits above the
// overflow bit included, for a 64-bit counter that overflows at 2^32), set
// one period before its next overflow with what it counted since. A handler
// slower than a period finds whole periods counted since the overflow:
// *missed gets them (samples in their own right), and the counter keeps
// only the rest, so that it is never set past its overflow.
uint64_t Firmware::rearmed(unsigned g, bool cycle_counter, uint64_t value, uint64_t period, uint64_t *missed) const
{
    uint64_t mod = overflow_modulus(g, cycle_counter);
    uint64_t since = mod ? value % mod : value;
    *missed = since / period;
    return mod - period + since % period;
}

// What a counter programmed with `period` (0: not sampling) counted in all,
// given its value and the overflows taken.
uint64_t Firmware::counted(unsigned g, bool cycle_counter, uint64_t value, uint64_t period, uint64_t samples) const
{
    if (!period)
        return value;
    uint64_t mod = overflow_modulus(g, cycle_counter);
    uint64_t since_armed = value + period - mod;  // modulo 2^64
    return samples * period + (mod ? since_armed % mod : since_armed);
}

void Firmware::program(unsigned g)
{
    const FirmwareSetup &f = soc_.scenario.firmware;
    uint64_t cnten = 0, inten = 0, agent_cnten = 0;
    // The external agent first reserves its counters, [EPMN, N), and
    // enables the third range (PMCCR, I5.3.47).
    if (f.epmn != PMVP_MAX_COUNTERS) {
        uint64_t pmccr = PMVP_FIELD_PREP(PMVP_PMCCR_EPMN, f.epmn) | PMVP_PMCCR_EPME;
        access(g, PMVP_FRAME_PMU, "PMCCR", 0, true, pmccr, false, false, true);
        journal(g, Input::PMCCR_WRITE, 0, 0, pmccr);
    }
    for (const CounterSetup &c : f.counters) {
        // In the EXT32 view PMEVTYPER<n>'s threshold fields are in its top
        // half at 0xA00 + 4n, written first.
        if (c.evtyper >> 32 && soc_.core_of(g).cluster.config.pmu_ext_layout == PMVP_EXT32)
            access(g, PMVP_FRAME_PMU, ext_name(PMVP_PMEVTYPER_EL0), c.counter, true, c.evtyper >> 32, false, true,
                   c.external);
        pmu_write(g, PMVP_PMEVTYPER_EL0, c.counter, c.evtyper, c.external);
        if (c.sample_period) {
            pmu_write(g, PMVP_PMEVCNTR_EL0, c.counter, overflow_modulus(g, false) - c.sample_period);
            inten |= UINT64_C(1) << c.counter;
        }
        (c.external ? agent_cnten : cnten) |= UINT64_C(1) << c.counter;
    }
    if (agent_cnten)
        pmu_write(g, PMVP_PMCNTENSET_EL0, 0, agent_cnten, true);
    if (f.cycle_counter) {
        pmu_write(g, PMVP_PMCCFILTR_EL0, 0, f.pmccfiltr);
        if (f.cycle_sample_period) {
            pmu_write(g, PMVP_PMCCNTR_EL0, 0, overflow_modulus(g, true) - f.cycle_sample_period);
            inten |= PMVP_PMU_C;
        }
        cnten |= PMVP_PMU_C;
    }
    if (inten)
        pmu_write(g, PMVP_PMINTENSET_EL1, 0, inten);
    pmu_write(g, PMVP_PMCNTENSET_EL0, 0, cnten);
    pmu_write(g, PMVP_PMCR_EL0, 0, f.pmcr | PMVP_PMCR_EL0_E);
}

// The PMUIRQ handler of a profiler: take the overflows of the sampling
// counters, count a sample for each, and re-arm each counter one period
// before its next overflow, keeping what it counted since it overflowed.
void Firmware::service(unsigned g)
{
    const FirmwareSetup &f = soc_.scenario.firmware;
    uint64_t sampling = 0;
    for (const CounterSetup &c : f.counters)
        if (c.sample_period)
            sampling |= UINT64_C(1) << c.counter;
    if (f.cycle_counter && f.cycle_sample_period)
        sampling |= PMVP_PMU_C;
    uint64_t ovs = pmu_read(g, PMVP_PMOVSSET_EL0) & sampling;
    if (!ovs)
        return;
    pmu_write(g, PMVP_PMOVSCLR_EL0, 0, ovs);
    PeReadout &r = readout[g];
    for (size_t i = 0; i < f.counters.size(); i++) {
        const CounterSetup &c = f.counters[i];
        if (!(ovs >> c.counter & 1))
            continue;
        uint64_t v = pmu_read(g, PMVP_PMEVCNTR_EL0, c.counter), missed = 0;
        pmu_write(g, PMVP_PMEVCNTR_EL0, c.counter, rearmed(g, false, v, c.sample_period, &missed));
        r.samples[i] += 1 + missed;
    }
    if (ovs & PMVP_PMU_C) {
        uint64_t v = pmu_read(g, PMVP_PMCCNTR_EL0), missed = 0;
        pmu_write(g, PMVP_PMCCNTR_EL0, 0, rearmed(g, true, v, f.cycle_sample_period, &missed));
        r.samples.back() += 1 + missed;
    }
}

// Whether PE g is on, as power-management firmware knows.
bool Firmware::powered(unsigned g)
{
    return soc_.analytic_core_of(g).power[soc_.thread_of(g)].read();
}

void Firmware::final_read(unsigned g)
{
    const FirmwareSetup &f = soc_.scenario.firmware;
    Core &core = soc_.core_of(g);
    PeReadout &r = readout[g];
    // A PE that is off has its PMU frame refuse access: a debugger reads it.
    r.off_at_end = !powered(g);
    auto read = [&](pmvp_pmu_reg reg, unsigned n, bool agent = false) {
        return r.off_at_end ? pmu_read_debug(g, reg, n) : pmu_read(g, reg, n, agent);
    };
    r.pmccntr = read(PMVP_PMCCNTR_EL0, 0);
    r.counted.back() = counted(g, true, r.pmccntr, f.cycle_sample_period, r.samples.back());
    for (size_t i = 0; i < f.counters.size(); i++) {
        const CounterSetup &c = f.counters[i];
        r.evcntr[i] = read(PMVP_PMEVCNTR_EL0, c.counter, c.external);
        r.counted[i] = counted(g, false, r.evcntr[i], c.sample_period, r.samples[i]);
    }
    r.pmovsset = read(PMVP_PMOVSSET_EL0, 0);
    if (core.cluster.config.feat_amuv1) {
        for (unsigned n = 0; n < PMVP_AMU_ARCH_COUNTERS; n++)
            r.amu[n] = amu_read(g, PMVP_AMEVCNTR0_EL0, n, r.off_at_end);
        for (unsigned n = 0; n < r.aux.size(); n++)
            r.aux[n] = amu_read(g, PMVP_AMEVCNTR1_EL0, n, r.off_at_end);
    }
}

Firmware::PeCounts Firmware::counts_now(unsigned g) const
{
    const FirmwareSetup &f = soc_.scenario.firmware;
    const PeReadout &r = readout[g];
    pmvp::sc::Monitors &m = *soc_.core_of(g).monitors;
    unsigned t = soc_.thread_of(g);
    PeCounts c = r;  // the samples taken so far
    c.counted.back() =
        counted(g, true, m.peek(t, PMVP_FRAME_PMU, "PMCCNTR_EL0"), f.cycle_sample_period, r.samples.back());
    for (size_t i = 0; i < f.counters.size(); i++)
        c.counted[i] = counted(g, false, m.peek(t, PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", f.counters[i].counter),
                               f.counters[i].sample_period, r.samples[i]);
    if (soc_.core_of(g).cluster.config.feat_amuv1) {
        for (unsigned n = 0; n < PMVP_AMU_ARCH_COUNTERS; n++)
            c.amu[n] = m.peek(t, PMVP_FRAME_AMU, "AMEVCNTR0<n>", n);
        for (unsigned n = 0; n < c.aux.size(); n++)
            c.aux[n] = m.peek(t, PMVP_FRAME_AMU, "AMEVCNTR1<n>", n);
    }
    return c;
}

void Firmware::run()
{
    if (soc_.resume_at) {
        // A restored run: a handler in progress at the checkpoint runs at
        // its instant; otherwise the agent waits for work, as it did.
        wait(ps(soc_.resume_at));
        drain();
    } else {
        for (const PeId &p : soc_.pes)
            if (!p.iss)
                program(p.global);
    }
    while (wait_for_work()) {
        take_waiting();
        drain();
    }
    // The last instant's delta cycles first: a PMUIRQ that rises at the
    // end is written by the monitors' process and seen by the interrupt
    // collector a delta cycle later, which the report counts.
    while (sc_core::sc_pending_activity_at_current_time())
        wait(sc_core::SC_ZERO_TIME);
    for (const PeId &p : soc_.pes)
        if (!p.iss)
            final_read(p.global);
    finished = now_ps();
    sc_core::sc_stop();
}

// An interrupt deferred while its PE was off is taken when the PE is on
// again, if its line is still high then.
void Firmware::take_waiting()
{
    auto &irq = *soc_.interrupts;
    for (size_t i = 0; i < waiting_.size();) {
        unsigned g = waiting_[i];
        if (!powered(g)) {
            i++;
            continue;
        }
        waiting_.erase(waiting_.begin() + (long)i);
        if (irq.irq[g].read())
            irq.pending.push_back(g);
    }
}

// Runs the handler of every interrupt taken, in order, each irq_latency
// after it was taken. The one being handled leaves the queue when its
// handler has run, so a checkpoint taken while it waits holds it.
void Firmware::drain()
{
    const Scenario &s = soc_.scenario;
    auto &irq = *soc_.interrupts;
    while (!irq.pending.empty()) {
        unsigned g = irq.pending.front();
        if (serve_at_ == PMVP_TIME_NEVER) {
            // A guest takes its own; a handler that would start after the end does not run.
            if (soc_.pes[g].iss || now_ps() + s.firmware.irq_latency >= s.duration) {
                irq.pending.pop_front();
                continue;
            }
            serve_at_ = now_ps() + s.firmware.irq_latency;
        }
        if (serve_at_ > now_ps())
            wait(ps(serve_at_ - now_ps()));
        irq.pending.pop_front();
        serve_at_ = PMVP_TIME_NEVER;
        if (powered(g)) {
            service(g);
        } else {
            waiting_.push_back(g);
            deferred++;
        }
    }
}

// Waits for an interrupt, a PE powered on, or the end; false at the end.
bool Firmware::wait_for_work()
{
    const Scenario &s = soc_.scenario;
    if (now_ps() >= s.duration)
        return false;
    if (soc_.ended_early) {
        wait(sc_core::SC_ZERO_TIME);  // the cores' threads end first (Soc::interrupt)
        return false;
    }
    wait(ps(s.duration - now_ps()), soc_.interrupts->taken | soc_.powered_on | soc_.end_event());
    return true;
}

// --------------------------------------------------------------------- Soc

Soc::Soc(const sc_core::sc_module_name &name, const Scenario &s, bool journalling, bool attached, pmvp_time resume_at)
    : sc_module(name), scenario(s), resume_at(resume_at)
{
    if (attached) {
        router = std::make_unique<Router>("bus", s.num_pes());
        interrupts = std::make_unique<InterruptCollector>("interrupts", s.num_pes());
        firmware = std::make_unique<Firmware>("firmware", *this);
    }
    if (s.has_iss()) {
        guest = std::make_unique<Guest>("guest", *this, attached);
        if (attached)
            guest->bus.bind(router->target);
    }
    unsigned g = 0;
    for (unsigned ci = 0; ci < s.clusters.size(); ci++) {
        const Cluster &c = s.clusters[ci];
        clocks_.emplace_back(
            new sc_core::sc_signal<uint64_t>(("clock_" + std::to_string(ci)).c_str(), c.config.processor_hz));
        for (unsigned k = 0; k < c.cores; k++) {
            unsigned index = (unsigned)cores.size();
            std::string name = (c.iss() ? "cpu" : "core") + std::to_string(index);
            if (c.iss()) {
                cores.push_back(make_iss_core(name.c_str(), *this, c, index, ci, k, g, attached));
                iss_cores_running_++;
            } else {
                cores.emplace_back(
                    new AnalyticCore(name.c_str(), *this, c, index, ci, k, g, *clocks_.back(), attached));
            }
            Core &core = *cores.back();
            core.journal.enabled = journalling;
            for (unsigned t = 0; t < c.config.num_pes; t++, g++) {
                pes.push_back(PeId{ ci, index, t, g, c.iss() });
                if (attached) {
                    router->frames.bind(core.monitors->pmu_socket[t]);
                    router->frames.bind(core.monitors->amu_socket[t]);
                    interrupts->irq[g](core.pmuirq[t]);
                }
            }
        }
        if (!c.dvfs.empty())
            sc_core::sc_spawn(sc_bind(&Soc::dvfs, this, ci), ("dvfs_" + std::to_string(ci)).c_str());
    }
    if (attached)
        firmware->bus.bind(router->target);
    SC_THREAD(show_progress);
}

Soc::~Soc()
{
    // The ISS engines go before the guest RAM they map. Last made, first
    // gone: SystemC's registry finds a port it removes by searching from its
    // newest, and the cores' ports are the newest (in order, 64 cores'
    // ports were a search through all of them each).
    while (!cores.empty())
        cores.pop_back();
}

template <class A> void Soc::state(A &a)
{
    if (!firmware)
        throw CheckpointError("a run without monitors (--detached) has no checkpoint");
    a.count("PEs", pes.size());
    a.count("clusters", clocks_.size());
    for (auto &clock : clocks_)
        a.signal("processor clock", *clock);
    interrupts->state(a);
    firmware->state(a);
    a.count("cores", cores.size());
    for (auto &core : cores)
        core->checkpoint(a);
    if (guest)
        guest->state(a);
}

void Soc::save(Saver &a)
{
    if (ended_early || firmware->finished)
        throw CheckpointError("the run ended at " + time_text(now_ps()) + ", before the checkpoint's instant");
    state(a);
}

void Soc::load(Loader &a)
{
    state(a);
}

void Soc::restore_monitors()
{
    for (auto &core : cores)
        core->restore_monitors();
}

void Soc::dvfs(unsigned ci)
{
    const Cluster &c = scenario.clusters[ci];
    for (const DvfsStep &d : c.dvfs) {
        if (d.at >= scenario.duration)
            break;
        if (d.at < resume_at)
            continue;  // before the checkpoint: its clock is the one it restored
        if (d.at > now_ps())
            wait(ps(d.at - now_ps()));
        clocks_[ci]->write(d.hz);
        Input in;
        in.t = d.at;
        in.kind = Input::CLOCK;
        in.value = d.hz;
        for (auto &core : cores)
            if (&core->cluster == &c)
                core->journal.add(in);
    }
}

// The cores' threads and the firmware wake in this evaluation phase (an
// immediate notification); the simulation stops a delta cycle later (the
// firmware, having read the counters, or show_progress when detached), so
// that a core thread in a zero-time wait ends too and nothing is left on a
// thread's stack.
void Soc::interrupt()
{
    interrupted = true;
    end_now();
}

void Soc::iss_core_ended()
{
    if (--iss_cores_running_ == 0 && !scenario.has_analytic())
        end_now();
}

void Soc::end_now()
{
    ended_early = true;
    end_.notify();
}

void Soc::sample_every(pmvp_time interval, std::function<void(pmvp_time)> sample)
{
    sc_core::sc_spawn(sc_bind(&Soc::sample_intervals, this, interval, std::move(sample)), "intervals");
}

// A restored run's start first (its monitors restored), then the multiples
// of the interval after it and before the end.
void Soc::sample_intervals(pmvp_time interval, std::function<void(pmvp_time)> sample)
{
    if (resume_at) {
        wait(ps(resume_at));
        sample(resume_at);
    }
    pmvp_time t = resume_at - resume_at % interval;
    while (scenario.duration - t > interval) {
        t += interval;
        wait(ps(t - now_ps()), end_);
        if (ended_early)
            return;
        sample(t);
    }
}

// Every thousandth of the run: the command's watch, and its progress
// (progress.h; a restored run's pace counts from its checkpoint).
void Soc::show_progress()
{
    const pmvp_time step = std::max<pmvp_time>(1, scenario.duration / 1000);
    Progress shown(resume_at, scenario.duration, share_of_simulated_time(scenario.duration));
    for (pmvp_time t = std::max(step, (resume_at + step - 1) / step * step); t < scenario.duration; t += step) {
        wait(ps(t - now_ps()), end_);
        if (!ended_early && watch)
            watch();
        if (ended_early) {
            if (!firmware) {  // detached: nothing to read
                wait(sc_core::SC_ZERO_TIME);
                sc_core::sc_stop();
            }
            break;
        }
        if (progress)
            shown.at(t);
    }
}

}  // namespace pmvp::soc
