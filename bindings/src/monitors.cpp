// SPDX-License-Identifier: Apache-2.0
#include "pmvp/systemc/monitors.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "changes.h"

extern "C" {
#include "pmvp/checkpoint.h"
#include "pmvp/error.h"
}

namespace pmvp::sc {

using sc_core::sc_time;

// Values sampled for sc_trace, one entry per PE.
struct Monitors::Traced {
    explicit Traced(unsigned pes, unsigned counters)
        : pmccntr(pes), irq_rises(pes), evcntr(pes, std::vector<uint64_t>(counters)),
          amu(pes, std::vector<uint64_t>(4)), irq(new bool[pes]()), wfx(new bool[pes]()), powered(new bool[pes]()),
          counter_events(counters)
    {
    }
    // PMUIRQ's rising edges, which a VCD shows even when a handler lowers
    // the line at the instant it rose (a pulse of no width, invisible as a
    // level).
    std::vector<uint64_t> pmccntr, irq_rises;
    std::vector<std::vector<uint64_t>> evcntr, amu;
    std::unique_ptr<bool[]> irq, wfx, powered;  // sc_trace needs addressable bools
    uint64_t processor_hz = 0;
    std::vector<std::string> counter_events;    // name_traced_counters
    std::vector<Monitors::TracedSignal> signals;  // as traced
    bool on = false;                            // a trace file follows them

    template <class T> void add(sc_core::sc_trace_file *tf, const T &value, const std::string &name)
    {
        sc_core::sc_trace(tf, value, name);
        static_assert(std::is_same_v<T, bool> || std::is_same_v<T, uint64_t>);
        signals.push_back({ name, std::is_same_v<T, bool> ? 1u : 64u, &value });
    }
};

Monitors::Monitors(const sc_core::sc_module_name &name, const pmvp_core_config &config)
    : sc_module(name),
      pmu_socket("pmu_socket"),
      amu_socket("amu_socket"),
      processor_hz("processor_hz"),
      bus_hz("bus_hz"),
      system_counter_hz("system_counter_hz"),
      wfi("wfi"),
      wfe("wfe"),
      power("power"),
      niden("niden"),
      spniden("spniden"),
      cold_reset("cold_reset"),
      warm_reset("warm_reset"),
      pmuirq("pmuirq"),
      core_(new pmvp_core),
      scratch_(new pmvp_core),
      timeline_(*core_, *scratch_, *this, time_),
      config_(config)
{
    // The kernel's reports of guest oddities become SystemC reports, unless
    // the platform took them itself.
    if (!config_.log) {
        config_.log = &Monitors::guest_log;
        config_.log_user = this;
    }
    // Keep the lists for a cold reset: the kernel does not keep the caller's
    // arrays. An empty list is not NULL (NULL: every event), and is never read.
    if (config.events && config.num_events) {
        events_.assign(config.events, config.events + config.num_events);
        config_.events = events_.data();
    }
    if (config.sync_events && config.num_sync_events) {
        sync_events_.assign(config.sync_events, config.sync_events + config.num_sync_events);
        config_.sync_events = sync_events_.data();
    }
    if (config.sebep_thresholds && config.num_sebep_thresholds) {
        thresholds_.assign(config.sebep_thresholds, config.sebep_thresholds + config.num_sebep_thresholds);
        config_.sebep_thresholds = thresholds_.data();
    }
    const char *why = nullptr;
    int err = pmvp_core_init_why(core_.get(), &config_, &why);
    if (err)
        throw std::invalid_argument(std::string("pmvp::sc::Monitors: ") + (why ? why : pmvp_strerror(err)));
    unsigned pes = config.num_pes;
    wfi.init(pes);
    wfe.init(pes);
    power.init(pes);
    pmuirq.init(pes);
    pmu_socket.init(pes);  // pmu_socket_0, ...
    amu_socket.init(pes);
    for (unsigned p = 0; p < pes; p++) {
        controls_.push_back(core_->pe[p].pmu.ctl);
        for (pmvp_frame f : { PMVP_FRAME_PMU, PMVP_FRAME_AMU }) {
            socket_type &socket = (f == PMVP_FRAME_PMU ? pmu_socket : amu_socket)[p];
            socket.serve(*this, (int)(2 * p + f));
        }
    }
    irq_.assign(pes, false);
    traced_ = std::make_unique<Traced>(pes, config.num_counters);
}

Monitors::~Monitors() = default;

void Monitors::guest_log(void *user, unsigned pe, const char *msg)
{
    auto *self = static_cast<Monitors *>(user);
    std::string text = std::string(self->name()) + ": PE " + std::to_string(pe) + ": " + msg;
    SC_REPORT_WARNING("pmvp/guest", text.c_str());
}

// ------------------------------------------------------------------- time

// The kinds of change kept for a later instant (Timeline, support.h). Their
// numbers are in checkpoints: append, never renumber.
enum Monitors::ChangeKind : uint8_t {
    REPORT, RETIRE, CONTEXT_SYNC, LEVEL, CONTEXT, ACTIVE_THREAD, CONTROLS, SYSREG_WRITE, PE_STATE, CLOCK,
    PMU_WRITE, AMU_WRITE, EXT_WRITE, EXT_DEBUG_WRITE, CONTROL, SNAPSHOT_REQUEST, REPORT_SPREAD,
    SHARES_LEVELS,  // shares, then level changes (report_shares, set_levels)
};
static_assert(Change::kMaxArgs >= 2 + 2 * PMVP_MAX_BATCHES + Monitors::kMaxLevelChanges,
              "a Change holds report_shares's largest");

namespace {

// A SHARES_LEVELS change, read in place (every decision about the change
// reads it): the instant after which the shares' window starts, the number
// of shares, each share's PE and event in one argument and its count, then
// each level change in one argument, as write_step wrote them. A
// checkpoint of a version without level changes has none after its shares.
// !ok: a corrupt change.
struct StepView {
    explicit StepView(const Change &ch) : a(ch.arg)
    {
        if (ch.count < 2 || a[1] > PMVP_MAX_BATCHES || ch.count < 2 + 2 * a[1])
            return;
        num_shares = (unsigned)a[1];
        num_levels = ch.count - 2 - 2 * num_shares;
        ok = num_shares + num_levels > 0 && num_levels <= Monitors::kMaxLevelChanges;
    }
    pmvp_time since() const { return a[0]; }
    pmvp_share share(unsigned i) const
    {
        return { (unsigned)(a[2 + 2 * i] & 0xFFFFFFFF), (uint16_t)(a[2 + 2 * i] >> 32), a[3 + 2 * i] };
    }
    pmvp_level_change level(unsigned i) const
    {
        uint64_t l = a[2 + 2 * num_shares + i];
        return { (unsigned)(l & 0xFFFF), (uint16_t)(l >> 16), (uint32_t)(l >> 32) };
    }
    const uint64_t *a;
    unsigned num_shares = 0, num_levels = 0;
    bool ok = false;
};

// Writes what StepView reads into ch, a SHARES_LEVELS change; PMVP_ERR_PE
// for a level change of a PE beyond the argument's 16 bits (beyond any
// core's).
int write_step(Change &ch, pmvp_time since, const pmvp_share *shares, unsigned num_shares,
               const pmvp_level_change *levels, unsigned num_levels)
{
    ChangeWriter w{ ch };
    w << since << num_shares;
    for (unsigned i = 0; i < num_shares; i++)
        w << ((uint64_t)shares[i].event << 32 | shares[i].pe) << shares[i].count;
    for (unsigned i = 0; i < num_levels; i++) {
        if (levels[i].pe > 0xFFFF)
            return PMVP_ERR_PE;
        w << ((uint64_t)levels[i].level << 32 | (uint64_t)levels[i].event << 16 | levels[i].pe);
    }
    return PMVP_OK;
}

}  // namespace

namespace {

// Sets one field of the controls; false for a field there is not, or a
// value a flag cannot hold.
bool set_field(pmvp_pmu_controls &ctl, Monitors::Control field, uint64_t value)
{
    using C = Monitors::Control;
    bool *flag = nullptr;
    switch (field) {
    case C::MDCR_EL2: ctl.mdcr_el2 = value; return true;
    case C::MDCR_EL3: ctl.mdcr_el3 = value; return true;
    case C::HCR_EL2: ctl.hcr_el2 = value; return true;
    case C::SCR_EL3: ctl.scr_el3 = value; return true;
    case C::SDER32_EL3: ctl.sder32_el3 = value; return true;
    case C::OS_LOCK: flag = &ctl.os_lock; break;
    case C::OS_DOUBLE_LOCK: flag = &ctl.os_double_lock; break;
    case C::NONINVASIVE_DEBUG: flag = &ctl.noninvasive_debug; break;
    case C::SECURE_NONINVASIVE_DEBUG: flag = &ctl.secure_noninvasive_debug; break;
    }
    if (!flag || value > 1)
        return false;
    *flag = value;
    return true;
}

}  // namespace

// Makes change `ch` on kernel c at instant t: the present kernel, a replay
// of a kept change, or the future view. The results of a retirement or of a
// System-register write go to the caller of the call being made (results_),
// not to a replay's.
int Monitors::apply(pmvp_core *c, pmvp_time t, const Change &ch)
{
    // A report or shares made on the present kernel are no longer kept.
    const bool present = c == core_.get();
    ChangeReader r(ch);
    // Every change but a clock's and a step's is of one PE, its first argument.
    auto pe = ch.kind == CLOCK || ch.kind == SHARES_LEVELS ? 0u : r.next<unsigned>();
    int err = PMVP_ERR_VALUE;
    switch (ch.kind) {
    case REPORT: {
        auto event = r.next<uint16_t>();
        auto count = r.next<uint64_t>();
        if (r.ok()) {
            if (present)
                no_longer_kept(count);
            err = pmvp_core_report(c, pe, event, count, t);
        }
        break;
    }
    case REPORT_SPREAD: {
        auto event = r.next<uint16_t>();
        auto count = r.next<uint64_t>();
        auto cycles = r.next<uint64_t>();
        if (r.ok())
            err = pmvp_core_report_spread(c, pe, event, count, cycles, t);
        break;
    }
    case SHARES_LEVELS: {
        StepView v(ch);
        if (!v.ok)
            break;
        pmvp_share shares[PMVP_MAX_BATCHES];
        pmvp_level_change levels[kMaxLevelChanges];
        for (unsigned i = 0; i < v.num_shares; i++)
            shares[i] = v.share(i);
        if (present)
            no_longer_kept(total(shares, v.num_shares));
        // Refused as a whole: with shares, the level changes' refusals
        // first, which depend on nothing the shares change
        // (pmvp_core_set_level_refusal); alone, pmvp_core_set_levels
        // refuses them whole itself.
        err = PMVP_OK;
        for (unsigned i = 0; i < v.num_levels && !err; i++) {
            levels[i] = v.level(i);
            if (v.num_shares)
                err = pmvp_core_set_level_refusal(c, levels[i].pe, levels[i].event);
        }
        if (!err && v.num_shares)
            err = pmvp_core_report_shares(c, shares, v.num_shares, v.since(), t);
        if (!err && v.num_levels)
            err = pmvp_core_set_levels(c, levels, v.num_levels, t);
        break;
    }
    case RETIRE: {
        auto event = r.next<uint16_t>();
        auto count = r.next<uint64_t>();
        auto pc = r.next<uint64_t>();
        pmvp_retire_result ignored{};
        if (r.ok())
            err = pmvp_core_retire(c, pe, event, count, pc, t, results_.retire ? results_.retire : &ignored);
        break;
    }
    case CONTEXT_SYNC:
        if (r.ok())
            err = pmvp_core_context_sync(c, pe, t);
        break;
    case LEVEL: {
        auto event = r.next<uint16_t>();
        auto level = r.next<uint32_t>();
        if (r.ok())
            err = pmvp_core_set_level(c, pe, event, level, t);
        break;
    }
    case CONTEXT: {
        auto ctx = r.next<pmvp_context>();
        if (r.ok())
            err = pmvp_core_set_context(c, pe, &ctx, t);
        break;
    }
    case ACTIVE_THREAD:
        if (r.ok())
            err = pmvp_core_set_active_thread(c, pe, t);
        break;
    case SNAPSHOT_REQUEST:
        if (r.ok())
            err = pmvp_core_snapshot_request(c, pe, t);
        break;
    case CONTROLS: {
        // The controls become the PE's when the change takes effect on the
        // kernel, not when it is made: until a change for a later instant
        // is reached, an input signal's change re-applies the controls in
        // force (inputs_changed), not these. The authentication fields are
        // those of the signals at the instant the change takes effect.
        auto ctl = r.next<pmvp_pmu_controls>();
        if (r.ok())
            err = put_controls(c, pe, ctl, t);
        break;
    }
    case SYSREG_WRITE: {
        auto op0 = r.next<unsigned>(), op1 = r.next<unsigned>(), crn = r.next<unsigned>();
        auto crm = r.next<unsigned>(), op2 = r.next<unsigned>(), rt = r.next<unsigned>();
        auto value = r.next<uint64_t>();
        auto higher = r.next<pmvp_sysreg_context>();
        pmvp_sysreg_execution ignored{};
        if (r.ok())
            err = pmvp_sysreg_execute_a64(c, pe, true, op0, op1, crn, crm, op2, rt, &higher, t, &value,
                                          results_.sysreg ? results_.sysreg : &ignored);
        break;
    }
    case PE_STATE: {
        auto state = r.next<pmvp_pe_state>();
        if (r.ok())
            err = pmvp_core_set_pe_state(c, pe, state, t);
        break;
    }
    case CLOCK: {
        auto hz = r.next<uint64_t>();
        if (r.ok())
            err = pmvp_core_set_clock(c, hz, t);
        break;
    }
    case PMU_WRITE: {
        auto reg = r.next<pmvp_pmu_reg>();
        auto n = r.next<unsigned>();
        auto value = r.next<uint64_t>();
        if (r.ok())
            err = pmvp_pmu_write(c, pe, reg, n, value, t);
        break;
    }
    case AMU_WRITE: {
        auto reg = r.next<pmvp_amu_reg>();
        auto n = r.next<unsigned>();
        auto value = r.next<uint64_t>();
        if (r.ok())
            err = pmvp_amu_write(c, pe, reg, n, value, t);
        break;
    }
    case EXT_WRITE:
    case EXT_DEBUG_WRITE: {
        auto f = r.next<pmvp_frame>();
        auto off = r.next<uint32_t>();
        auto len = r.next<unsigned>();
        auto value = r.next<uint64_t>();
        auto bus = r.next<pmvp_ext_access>();
        if (r.ok())
            err = ch.kind == EXT_DEBUG_WRITE ? pmvp_ext_debug_write(c, pe, f, off, len, value, t)
                                             : pmvp_ext_write(c, pe, f, off, len, value, &bus, t, nullptr);
        break;
    }
    case CONTROL: {
        // One field, the others as they are in force at the change's
        // instant (the CPU model's on the kernel; on the future view, those
        // the kept changes before it left).
        auto field = r.next<Control>();
        auto value = r.next<uint64_t>();
        pmvp_pmu_controls ctl = c == core_.get() ? controls_[pe] : c->pe[pe].pmu.ctl;
        if (r.ok() && set_field(ctl, field, value))
            err = put_controls(c, pe, ctl, t);
        break;
    }
    default:
        break;  // a kind no change has (a corrupt checkpoint): refused
    }
    return err;
}

// A change kept for later that the kernel refused when it came (Timeline):
// the CPU model was told it was accepted, so it is a warning.
void Monitors::failed(int err)
{
    SC_REPORT_WARNING("pmvp/guest", (std::string(name()) + ": deferred call failed: " + pmvp_strerror(err)).c_str());
}

// The controls `ctl` of the CPU model, with the authentication signals'
// fields, on kernel c at t; on the present kernel they become the ones in
// force (controls_).
int Monitors::put_controls(pmvp_core *c, unsigned pe, const pmvp_pmu_controls &ctl, pmvp_time t)
{
    pmvp_pmu_controls effective = ctl;
    apply_authentication(effective);
    int err = pmvp_core_set_controls(c, pe, &effective, t);
    if (!err && c == core_.get())
        controls_[pe] = ctl;
    return err;
}

// A report or a level input is refused or not by the kernel's configuration
// and the PE's power state alone (pmvp_core_report_refusal): kept for a later
// instant, it need not be made on the future view. So are shares, each as a
// report, unless one could put more on a cycle than a run holds, and the
// level changes that follow them.
bool Monitors::decide(const pmvp_core &c, const Change &ch, int *err)
{
    unsigned pe = 0;
    uint16_t event = 0;
    if (ch.kind == SHARES_LEVELS) {
        StepView v(ch);
        if (!v.ok)
            return false;
        for (unsigned i = 0; i < v.num_shares; i++)
            if (v.share(i).count > UINT32_MAX)
                return false;
        *err = PMVP_OK;
        for (unsigned i = 0; i < v.num_levels && !*err; i++)
            *err = pmvp_core_set_level_refusal(&c, v.level(i).pe, v.level(i).event);
        for (unsigned i = 0; i < v.num_shares && !*err; i++)
            *err = pmvp_core_report_refusal(&c, v.share(i).pe, v.share(i).event);
        return true;
    }
    if (!report_or_level(ch, &pe, &event))
        return false;
    *err = ch.kind == REPORT ? pmvp_core_report_refusal(&c, pe, event) : pmvp_core_set_level_refusal(&c, pe, event);
    return true;
}

// The PE and event of a report or a level change; false for a change of
// another kind (or a corrupt one).
bool Monitors::report_or_level(const Change &ch, unsigned *pe, uint16_t *event)
{
    if (ch.kind != REPORT && ch.kind != LEVEL)
        return false;
    ChangeReader r(ch);
    *pe = r.next<unsigned>();
    *event = r.next<uint16_t>();
    (void)r.next<uint64_t>();  // the count, or the level
    return r.ok();
}

// Whether a guest's direct read of a counter changes the kernel: inaccuracy
// knob (c) draws its delay. Without it, every read is the kernel's pure
// query (Timeline::look); with it, a read is made on the kernel or the
// future view (query).
bool Monitors::direct_reads_draw() const { return core_->cfg.inaccuracy.read_delay_cycles != 0; }

// Runs `op`, which changes nothing, at sc_time_stamp() + offset, by the
// policy of Timeline (support.h).
template <class F> int Monitors::query(const sc_time &offset, const F &op)
{
    return timeline_.query(offset, op);
}

// Makes change `ch` at sc_time_stamp() + offset, by the policy of Timeline;
// the monitor's process wakes at its instant if it has something to publish
// then (wakes), whether the change is made now or kept for later.
namespace {
uint64_t saturating_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
}  // namespace

int Monitors::change(const sc_time &offset, const Change &ch) { return change(time_.now(), offset, ch); }

int Monitors::change(pmvp_time now, const sc_time &offset, const Change &ch)
{
    // The change's occurrences (a report's, shares'), read from it once.
    pmvp_share shares[PMVP_MAX_BATCHES];
    unsigned num_shares = occurrences_of(ch, shares);
    uint64_t occurrences = total(shares, num_shares);
    // Counted before the change is made: apply() takes them off again when
    // it is made on the present kernel, now or when kept until its instant.
    kept_occurrences_ = saturating_add(kept_occurrences_, occurrences);
    pmvp_time acts = PMVP_TIME_NEVER;
    int err = timeline_.change(now, offset, ch, &acts);
    if (acts == PMVP_TIME_NEVER)  // neither made nor kept
        no_longer_kept(occurrences);
    if (acts != PMVP_TIME_NEVER && wakes(ch, shares, num_shares, acts > now, now))
        wake_.notify(time_.to_sc(acts - now));
    return err;
}

// The occurrences a report or shares change carries, in all.
uint64_t Monitors::count_occurrences(const Change &ch)
{
    pmvp_share shares[PMVP_MAX_BATCHES];
    return total(shares, occurrences_of(ch, shares));
}

void Monitors::no_longer_kept(uint64_t occurrences) { kept_occurrences_ -= std::min(kept_occurrences_, occurrences); }

uint64_t Monitors::total(const pmvp_share *shares, unsigned n)
{
    uint64_t all = 0;
    for (unsigned i = 0; i < n; i++)
        all = saturating_add(all, shares[i].count);
    return all;
}

// Whether the process must wake at the instant of change ch, judged on the
// kernel's present at `now`: to publish what it changes. `shares`: the
// change's occurrences (occurrences_of). A report, shares or a level needs
// no wake-up when no counter that can request an interrupt follows it
// (pmvp_core_input_may_interrupt) and nothing is traced; the kernel takes it
// at the next call or wake-up. Only a change of the interrupt controls or of
// PMEVTYPER makes that answer true, and each wakes the process, which asks
// again for the changes still kept (update). A kept report or shares needs
// none either while every kept occurrence, its own among them, stays below
// what the PEs can report before an interrupt, in any mix
// (pmvp_core_events_to_interrupt_any), and the cycle of an occurrence
// matters to no counter (pmvp_core_cycle_values_matter): only such
// occurrences reach those counters before the next wake-up, and every other
// change that could bring the interrupt nearer (a counter's write, its
// controls) wakes it.
bool Monitors::wakes(const Change &ch, const pmvp_share *shares, unsigned n, bool kept, pmvp_time now) const
{
    unsigned pe = 0;
    uint16_t event = 0;
    if (traced_->on)
        return true;
    if (ch.kind == LEVEL)
        return !report_or_level(ch, &pe, &event) || pmvp_core_input_may_interrupt(core_.get(), event, true);
    if (ch.kind == SHARES_LEVELS) {
        StepView v(ch);
        if (!v.ok)
            return true;  // a corrupt change
        for (unsigned i = 0; i < v.num_levels; i++)
            if (pmvp_core_input_may_interrupt(core_.get(), v.level(i).event, true))
                return true;
        if (n == 0)
            return false;  // level changes alone
    }
    if (n == 0)
        return true;  // another kind of change
    // Each event once: the threads' shares are mostly of one event.
    uint16_t events[PMVP_MAX_BATCHES];
    unsigned num_events = 0;
    for (unsigned i = 0; i < n; i++)
        if (std::find(events, events + num_events, shares[i].event) == events + num_events)
            events[num_events++] = shares[i].event;
    bool may = false;
    for (unsigned i = 0; i < num_events && !may; i++)
        may = pmvp_core_input_may_interrupt(core_.get(), events[i], false);
    if (!may)
        return false;
    if (!kept || pmvp_core_cycle_values_matter(core_.get()))
        return true;
    for (unsigned i = 0; i < num_events; i++) {
        // The kernel's answer holds while its present stays as it was: a
        // CPU model keeping its quantum's shares asks once.
        uint64_t epoch = timeline_.present_epoch();
        if (before_.epoch != epoch || before_.event != events[i]) {
            if (pmvp_core_events_to_interrupt_any(core_.get(), events[i], now, &before_.count) != PMVP_OK)
                return true;
            before_.epoch = epoch;
            before_.event = events[i];
        }
        if (kept_occurrences_ >= before_.count)
            return true;
    }
    return false;
}

// The occurrences a report or shares change carries, as shares; 0 for a
// change of another kind, or a corrupt one.
unsigned Monitors::occurrences_of(const Change &ch, pmvp_share *shares)
{
    if (ch.kind == SHARES_LEVELS) {
        StepView v(ch);
        for (unsigned i = 0; v.ok && i < v.num_shares; i++)
            shares[i] = v.share(i);
        return v.ok ? v.num_shares : 0;
    }
    if (ch.kind != REPORT)
        return 0;
    ChangeReader r(ch);
    shares[0] = { r.next<unsigned>(), r.next<uint16_t>(), r.next<uint64_t>() };
    return r.ok() ? 1 : 0;
}

// The monitor's only process: at each wake-up, PMUIRQ levels and traced
// values are brought to the current time and the next instant an overflow
// can raise PMUIRQ is scheduled (other overflows need no wake-up: their
// flags are computed whenever they are read).
void Monitors::update()
{
    pmvp_time now = time_.now();
    timeline_.catch_up(now);
    timeline_.touched();  // the interrupt lines and the next wake-up below read the present
    for (unsigned p = 0; p < num_pes(); p++) {
        bool level = false;
        pmvp_pmu_irq(core_.get(), p, now, &level);
        if (level != irq_[p] || redrive_) {
            traced_->irq_rises[p] += level && !irq_[p];
            irq_[p] = level;
            if (pmuirq[p].size())
                pmuirq[p]->write(level);
        }
    }
    redrive_ = false;
    if (traced_->on)
        sample(now);
    // Next wake-up: the next interrupting overflow, or the next change kept for later.
    pmvp_time next = PMVP_TIME_NEVER;
    pmvp_core_next_interrupt(core_.get(), now, &next);
    next = std::min(next, timeline_.next_pending([&](const Change &ch) {
        pmvp_share shares[PMVP_MAX_BATCHES];
        return wakes(ch, shares, occurrences_of(ch, shares), true, now);
    }));
    if (next != PMVP_TIME_NEVER)
        wake_.notify(time_.to_sc(next - now));
}

// ----------------------------------------------------------------- signals

void Monitors::end_of_elaboration()
{
    // Only bound ports can make a process sensitive.
    sc_core::sc_spawn_options inputs;
    inputs.spawn_method();
    inputs.dont_initialize();
    bool any = false;
    auto watch = [&](auto &port) {
        if (port.size()) {
            inputs.set_sensitivity(&port->value_changed_event());
            any = true;
        }
    };
    watch(processor_hz);
    watch(bus_hz);
    watch(system_counter_hz);
    watch(niden);
    watch(spniden);
    for (unsigned p = 0; p < num_pes(); p++) {
        watch(wfi[p]);
        watch(wfe[p]);
        watch(power[p]);
    }
    if (any)
        sc_core::sc_spawn([this] { inputs_changed(); }, sc_core::sc_gen_unique_name("inputs"), &inputs);

    sc_core::sc_spawn_options resets;
    resets.spawn_method();
    resets.dont_initialize();
    bool resettable = false;
    for (auto *port : { &cold_reset, &warm_reset })
        if (port->size()) {
            resets.set_sensitivity(&(*port)->value_changed_event());
            resettable = true;
        }
    if (resettable)
        sc_core::sc_spawn([this] { reset_changed(); }, sc_core::sc_gen_unique_name("resets"), &resets);

    sc_core::sc_spawn_options wake;
    wake.spawn_method();
    wake.set_sensitivity(&wake_);  // also runs once at start: initial inputs and PMUIRQ
    sc_core::sc_spawn([this] { start_or_update(); }, sc_core::sc_gen_unique_name("update"), &wake);
}

void Monitors::start_or_update()
{
    if (!started_) {
        started_ = true;
        inputs_changed();
        return;
    }
    update();
}

pmvp_pe_state Monitors::state_of(bool on, bool in_wfi, bool in_wfe)
{
    return !on ? PMVP_PE_OFF : in_wfi ? PMVP_PE_WFI : in_wfe ? PMVP_PE_WFE : PMVP_PE_RUN;
}

// The authentication inputs, where bound, override the CPU model's copy.
void Monitors::apply_authentication(pmvp_pmu_controls &ctl)
{
    if (niden.size())
        ctl.noninvasive_debug = niden->read();
    if (spniden.size())
        ctl.secure_noninvasive_debug = spniden->read();
}

void Monitors::inputs_changed()
{
    pmvp_time now = time_.now();
    timeline_.catch_up(now);
    pmvp_core *c = core_.get();
    timeline_.invalidate();
    // A frequency the kernel refuses (above PMVP_MAX_CLOCK_HZ) leaves the
    // clock as it was, and says so.
    auto clock = [&](const char *port, int (*set)(pmvp_core *, uint64_t, pmvp_time), uint64_t hz) {
        if (set(c, hz, now) != PMVP_OK)
            SC_REPORT_WARNING("pmvp/clock", (std::string(name()) + ": " + port + " = " + std::to_string(hz) +
                                             " Hz is above the 1 THz pmvp accepts: the clock keeps its frequency")
                                                .c_str());
    };
    if (processor_hz.size() && processor_hz->read() != c->clock.hz)
        clock("processor_hz", pmvp_core_set_clock, processor_hz->read());
    if (bus_hz.size() && bus_hz->read() != c->bus_clock.hz)
        clock("bus_hz", pmvp_core_set_bus_clock, bus_hz->read());
    if (system_counter_hz.size() && system_counter_hz->read() != c->system_counter.hz)
        clock("system_counter_hz", pmvp_core_set_system_counter, system_counter_hz->read());
    for (unsigned p = 0; p < num_pes(); p++) {
        // A PE with none of these ports bound takes its state from set_state().
        if (power[p].size() || wfi[p].size() || wfe[p].size()) {
            bool on = !power[p].size() || power[p]->read();
            bool in_wfi = wfi[p].size() && wfi[p]->read();
            bool in_wfe = wfe[p].size() && wfe[p]->read();
            pmvp_pe_state st = state_of(on, in_wfi, in_wfe);
            if (st != c->pe[p].state)
                pmvp_core_set_pe_state(c, p, st, now);
        }
        pmvp_pmu_controls ctl = controls_[p];
        apply_authentication(ctl);
        if (std::memcmp(&ctl, &c->pe[p].pmu.ctl, sizeof ctl) != 0)
            pmvp_core_set_controls(c, p, &ctl, now);
    }
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// Cold reset: the whole core as configured, then the current inputs. Warm
// reset: each PE's PMU (the AMU keeps counting: its reset domain is the
// AMU reset, which cold reset covers).
void Monitors::reset_changed()
{
    bool cold = cold_reset.size() && cold_reset->read();
    bool warm = warm_reset.size() && warm_reset->read();
    pmvp_time now = time_.now();
    timeline_.catch_up(now);
    timeline_.invalidate();
    if (cold && !cold_) {
        timeline_.clear();  // what was reported for after the reset is gone with it
        kept_occurrences_ = 0;
        pmvp_core_init(core_.get(), &config_);
        pmvp_core_sync(core_.get(), now);  // nothing is enabled: this only moves time on
        for (unsigned p = 0; p < num_pes(); p++)
            controls_[p] = core_->pe[p].pmu.ctl;
        inputs_changed();
    } else if (warm && !warm_) {
        for (unsigned p = 0; p < num_pes(); p++)
            pmvp_pmu_reset(core_.get(), p, now);
    }
    cold_ = cold;
    warm_ = warm;
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// ------------------------------------------------------ CPU-model interface

int Monitors::report(unsigned pe, uint16_t event, uint64_t count, const sc_time &offset)
{
    return change(offset, make_change(REPORT, pe, event, count));
}

const char *Monitors::event_why(uint16_t event, bool level) const
{
    return pmvp_core_event_why(core_.get(), event, level);
}

int Monitors::report_spread(unsigned pe, uint16_t event, uint64_t count, uint64_t cycles, const sc_time &offset)
{
    return change(offset, make_change(REPORT_SPREAD, pe, event, count, cycles));
}

int Monitors::report_shares(const pmvp_share *shares, unsigned num_shares, const sc_time &since, const sc_time &offset)
{
    return report_shares(shares, num_shares, since, offset, nullptr, 0);
}

int Monitors::report_shares(const pmvp_share *shares, unsigned num_shares, const sc_time &since,
                            const sc_time &offset, const pmvp_level_change *levels, unsigned num_levels)
{
    if (!shares || (!levels && num_levels))
        return PMVP_ERR_NULL;
    if (num_shares == 0 || num_shares > PMVP_MAX_BATCHES || num_levels > kMaxLevelChanges)
        return PMVP_ERR_VALUE;
    pmvp_time now = time_.now(), from = time_.after(now, since);
    if (from == PMVP_TIME_NEVER || from > time_.after(now, offset))
        return PMVP_ERR_VALUE;
    Change ch(SHARES_LEVELS);
    int err = write_step(ch, from, shares, num_shares, levels, num_levels);
    return err ? err : change(now, offset, ch);
}

int Monitors::set_levels(const pmvp_level_change *levels, unsigned num_levels, const sc_time &offset)
{
    if (!levels)
        return PMVP_ERR_NULL;
    if (num_levels == 0 || num_levels > kMaxLevelChanges)
        return PMVP_ERR_VALUE;
    Change ch(SHARES_LEVELS);
    int err = write_step(ch, 0, nullptr, 0, levels, num_levels);
    return err ? err : change(offset, ch);
}

int Monitors::retire(unsigned pe, uint16_t event, uint64_t count, uint64_t pc, pmvp_retire_result &result,
                     const sc_time &offset)
{
    result = pmvp_retire_result{};
    results_.retire = &result;
    int err = change(offset, make_change(RETIRE, pe, event, count, pc));
    results_.retire = nullptr;
    return err;
}

int Monitors::context_sync(unsigned pe, const sc_time &offset)
{
    return change(offset, make_change(CONTEXT_SYNC, pe));
}

int Monitors::pmu_exception(unsigned pe, pmvp_pmu_exception &state, const sc_time &offset)
{
    return query(offset, [&](pmvp_core *c, pmvp_time t) { return pmvp_core_pmu_exception(c, pe, t, &state); });
}

int Monitors::set_level(unsigned pe, uint16_t event, uint32_t level, const sc_time &offset)
{
    return change(offset, make_change(LEVEL, pe, event, level));
}

int Monitors::set_context(unsigned pe, const pmvp_context &ctx, const sc_time &offset)
{
    return change(offset, make_change(CONTEXT, pe, ctx));
}

int Monitors::set_active_thread(unsigned pe, const sc_time &offset)
{
    return change(offset, make_change(ACTIVE_THREAD, pe));
}

int Monitors::snapshot_request(unsigned pe, const sc_time &offset)
{
    return change(offset, make_change(SNAPSHOT_REQUEST, pe));
}

int Monitors::set_controls(unsigned pe, const pmvp_pmu_controls &ctl, const sc_time &offset)
{
    if (pe >= num_pes())
        return PMVP_ERR_PE;
    return change(offset, make_change(CONTROLS, pe, ctl));
}

int Monitors::set_control(unsigned pe, Control field, uint64_t value, const sc_time &offset)
{
    if (pe >= num_pes())
        return PMVP_ERR_PE;
    pmvp_pmu_controls probe{};
    if (!set_field(probe, field, value))
        return PMVP_ERR_VALUE;
    return change(offset, make_change(CONTROL, pe, field, value));
}

int Monitors::execute_a64(unsigned pe, bool write, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                          unsigned op2, unsigned rt, const pmvp_sysreg_context *higher, uint64_t &value,
                          pmvp_sysreg_execution &out, const sc_time &offset)
{
    pmvp_sysreg_context h{};
    if (higher)
        h = *higher;
    if (!write && !direct_reads_draw())
        return timeline_.look(offset, [&](const pmvp_core *c, pmvp_time t) {
            return pmvp_sysreg_peek_a64(c, pe, op0, op1, crn, crm, op2, rt, &h, t, &value, &out);
        });
    if (!write)
        return query(offset, [&](pmvp_core *c, pmvp_time t) {
            return pmvp_sysreg_execute_a64(c, pe, false, op0, op1, crn, crm, op2, rt, &h, t, &value, &out);
        });
    out = pmvp_sysreg_execution{};
    results_.sysreg = &out;
    int err = change(offset, make_change(SYSREG_WRITE, pe, op0, op1, crn, crm, op2, rt, value, h));
    results_.sysreg = nullptr;
    return err;
}

int Monitors::events_to_interrupt(unsigned pe, uint16_t event, uint64_t &count, const sc_time &offset)
{
    return query(offset, [&](pmvp_core *c, pmvp_time t) {
        return pmvp_core_events_to_interrupt(c, pe, event, t, &count);
    });
}

int Monitors::events_to_interrupt(unsigned pe, const uint16_t *events, unsigned num, uint64_t *counts,
                                  const sc_time &offset)
{
    if (!events || !counts)
        return PMVP_ERR_NULL;
    return query(offset, [&](pmvp_core *c, pmvp_time t) {
        for (unsigned i = 0; i < num; i++)
            if (int err = pmvp_core_events_to_interrupt(c, pe, events[i], t, &counts[i]))
                return err;
        return (int)PMVP_OK;
    });
}

int Monitors::next_interrupt(pmvp_time &when, const sc_time &offset)
{
    return query(offset, [&](pmvp_core *c, pmvp_time t) { return pmvp_core_next_interrupt(c, t, &when); });
}

int Monitors::next_freeze(pmvp_time &when, const sc_time &offset)
{
    return query(offset, [&](pmvp_core *c, pmvp_time t) { return pmvp_core_next_freeze(c, t, &when); });
}

int Monitors::irq_level(unsigned pe, bool &level, const sc_time &offset)
{
    return timeline_.look(offset, [&](const pmvp_core *c, pmvp_time t) { return pmvp_pmu_irq_peek(c, pe, t, &level); });
}

int Monitors::set_state(unsigned pe, pmvp_pe_state state, const sc_time &offset)
{
    // A PE with a bound wfi, wfe or power port follows its signals: they
    // are its state's only source (as processor_hz is the clock's).
    if (pe < num_pes() && (wfi[pe].size() || wfe[pe].size() || power[pe].size()))
        return PMVP_ERR_CONFIG;
    return change(offset, make_change(PE_STATE, pe, state));
}

int Monitors::set_clock(uint64_t hz, const sc_time &offset)
{
    if (processor_hz.size())
        return PMVP_ERR_CONFIG;
    return change(offset, make_change(CLOCK, hz));
}

int Monitors::pmu_read(unsigned pe, pmvp_pmu_reg reg, unsigned n, uint64_t &value, const sc_time &offset)
{
    if (!direct_reads_draw())
        return timeline_.look(offset, [&](const pmvp_core *c, pmvp_time t) {
            return pmvp_pmu_peek(c, pe, reg, n, t, &value);
        });
    return query(offset, [&](pmvp_core *c, pmvp_time t) { return pmvp_pmu_read(c, pe, reg, n, t, &value); });
}

int Monitors::pmu_write(unsigned pe, pmvp_pmu_reg reg, unsigned n, uint64_t value, const sc_time &offset)
{
    return change(offset, make_change(PMU_WRITE, pe, reg, n, value));
}

int Monitors::amu_read(unsigned pe, pmvp_amu_reg reg, unsigned n, uint64_t &value, const sc_time &offset)
{
    return timeline_.look(offset, [&](const pmvp_core *c, pmvp_time t) { return pmvp_amu_peek(c, pe, reg, n, t, &value); });
}

int Monitors::amu_write(unsigned pe, pmvp_amu_reg reg, unsigned n, uint64_t value, const sc_time &offset)
{
    return change(offset, make_change(AMU_WRITE, pe, reg, n, value));
}

// --------------------------------------------------------------------- TLM

// TLM response for an external access, by the kernel's result.
static tlm::tlm_response_status status_of(int err)
{
    switch (err) {
    case PMVP_OK: return tlm::TLM_OK_RESPONSE;
    case PMVP_ERR_SIZE: return tlm::TLM_BURST_ERROR_RESPONSE;
    case PMVP_ERR_ADDRESS: return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    default: return tlm::TLM_GENERIC_ERROR_RESPONSE;  // refused: Off, locks, authentication
    }
}

// One access of `gp` to frame f of PE pe at time t:
// - TLM_IGNORE_COMMAND: TLM_OK_RESPONSE, nothing done;
// - no data pointer: TLM_GENERIC_ERROR_RESPONSE;
// - byte enables that do not enable every byte: TLM_BYTE_ENABLE_ERROR_RESPONSE;
// - a streaming width below the length, or a length other than 4 or 8:
//   TLM_BURST_ERROR_RESPONSE (also an 8-byte access over 32-bit registers);
// - an address outside the frame, or not aligned to the length:
//   TLM_ADDRESS_ERROR_RESPONSE;
// - an access the spec refuses (PE off, OS Lock, OS Double Lock,
//   authentication), or an annotated delay that puts it beyond the
//   representable time (2^64 - 1 ps): TLM_GENERIC_ERROR_RESPONSE;
// - otherwise TLM_OK_RESPONSE, RAZ/WI and ignored writes included.
tlm::tlm_response_status Monitors::access(unsigned pe, pmvp_frame f, tlm::tlm_generic_payload &gp,
                                          const sc_time &delay, bool debug)
{
    if (gp.get_command() == tlm::TLM_IGNORE_COMMAND)
        return tlm::TLM_OK_RESPONSE;
    if (!gp.get_data_ptr())
        return tlm::TLM_GENERIC_ERROR_RESPONSE;
    unsigned len = gp.get_data_length();
    if (const unsigned char *be = gp.get_byte_enable_ptr()) {
        unsigned be_len = gp.get_byte_enable_length();
        for (unsigned i = 0; i < len; i++)
            if (be_len == 0 || be[i % be_len] != TLM_BYTE_ENABLED)
                return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    }
    if (gp.get_streaming_width() < len || (len != 4 && len != 8))
        return tlm::TLM_BURST_ERROR_RESPONSE;
    uint64_t addr = gp.get_address();
    if (addr >= PMVP_FRAME_SIZE || addr % len)
        return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    uint32_t off = (uint32_t)addr;
    uint64_t value = 0;
    int err;
    const AccessExtension *ext = gp.get_extension<AccessExtension>();
    const pmvp_ext_access bus = ext ? ext->access : default_access;
    // Frames are little-endian, as is every host pmvp is built for (TLM
    // data are in host order).
    if (gp.is_read()) {
        if (debug)
            err = timeline_.look(delay, [&](const pmvp_core *c, pmvp_time t) {
                return pmvp_ext_debug_read(c, pe, f, off, len, t, &value);
            });
        else if (!direct_reads_draw())
            err = timeline_.look(delay, [&](const pmvp_core *c, pmvp_time t) {
                return pmvp_ext_peek(c, pe, f, off, len, &bus, t, &value, nullptr);
            });
        else
            err = query(delay, [&](pmvp_core *c, pmvp_time t) {
                return pmvp_ext_read(c, pe, f, off, len, &bus, t, &value, nullptr);
            });
        if (!err)
            std::memcpy(gp.get_data_ptr(), &value, len);
    } else {
        std::memcpy(&value, gp.get_data_ptr(), len);
        err = change(delay, make_change(debug ? EXT_DEBUG_WRITE : EXT_WRITE, pe, f, off, len, value, bus));
    }
    if (err && !debug)
        SC_REPORT_WARNING("pmvp/guest", (std::string(name()) + ": external access refused: " + pmvp_strerror(err)).c_str());
    return status_of(err);
}

void Monitors::b_transport(int id, tlm::tlm_generic_payload &gp, sc_time &delay)
{
    tlm::tlm_response_status s = access((unsigned)id / 2, (pmvp_frame)(id % 2), gp, delay, false);
    gp.set_response_status(s);
    gp.set_dmi_allowed(false);

    delay += access_latency;  // the access is made at its start; it takes this long
}

unsigned int Monitors::transport_dbg(int id, tlm::tlm_generic_payload &gp)
{
    const unsigned len = gp.get_data_length();
    // A read the one-register path does not serve (a length other than 4
    // or 8, or unaligned): the frame's bytes.
    if (gp.is_read() && gp.get_data_ptr() && !gp.get_byte_enable_ptr() && len &&
        ((len != 4 && len != 8) || gp.get_address() % len))
        return dump((unsigned)id / 2, (pmvp_frame)(id % 2), gp);
    tlm::tlm_response_status s = access((unsigned)id / 2, (pmvp_frame)(id % 2), gp, sc_core::SC_ZERO_TIME, true);
    gp.set_response_status(s);
    return s == tlm::TLM_OK_RESPONSE && gp.get_command() != tlm::TLM_IGNORE_COMMAND ? len : 0;
}

// A debugger's read of any range of the frame (a whole frame's dump): the
// bytes of each 32-bit word through the debug path, as a 4-byte access
// reads it, and zero where the frame has no register or the debug path
// refuses the word; no side effects. The range is cut at the frame's end.
unsigned int Monitors::dump(unsigned pe, pmvp_frame f, tlm::tlm_generic_payload &gp)
{
    const uint64_t from = gp.get_address();
    if (from >= PMVP_FRAME_SIZE) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    const uint64_t to = std::min<uint64_t>(PMVP_FRAME_SIZE, from + gp.get_data_length());
    unsigned char *data = gp.get_data_ptr();
    for (uint64_t word = from & ~3ull; word < to; word += 4) {
        uint64_t value = 0;
        if (timeline_.look(sc_core::SC_ZERO_TIME, [&](const pmvp_core *c, pmvp_time t) {
                return pmvp_ext_debug_read(c, pe, f, (uint32_t)word, 4, t, &value);
            }) != PMVP_OK)
            value = 0;
        for (uint64_t a = std::max(word, from); a < std::min(word + 4, to); a++)
            data[a - from] = (unsigned char)(value >> 8 * (a - word));
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return (unsigned)(to - from);
}

FrameSocket::FrameSocket(const char *name) : tlm_target_socket(name)
{
    bind(static_cast<tlm::tlm_fw_transport_if<> &>(*this));
}

void FrameSocket::b_transport(tlm::tlm_generic_payload &gp, sc_time &delay) { monitors_->b_transport(id_, gp, delay); }

tlm::tlm_sync_enum FrameSocket::nb_transport_fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase, sc_time &delay)
{
    if (phase == tlm::BEGIN_REQ)
        monitors_->b_transport(id_, gp, delay);
    else
        gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
}

// Denied, for the whole address range (tlm_dmi's initial values: no
// pointer, no access, from 0 to the highest address).
bool FrameSocket::get_direct_mem_ptr(tlm::tlm_generic_payload &, tlm::tlm_dmi &dmi)
{
    dmi.init();
    return false;
}

unsigned int FrameSocket::transport_dbg(tlm::tlm_generic_payload &gp) { return monitors_->transport_dbg(id_, gp); }

// ------------------------------------------------------------ observability

uint64_t Monitors::peek(unsigned pe, pmvp_frame frame, const std::string &reg, unsigned n)
{
    uint32_t off = 0;
    uint64_t v = 0;
    if (pe >= num_pes())
        throw std::invalid_argument("pmvp::sc::Monitors::peek: no PE " + std::to_string(pe) + " (the core has " +
                                    std::to_string(num_pes()) + ")");
    const std::string named = reg + (reg.find("<n>") != std::string::npos ? " with n = " + std::to_string(n) : "");
    if (pmvp_ext_find(core_.get(), frame, reg.c_str(), n, &off) != PMVP_OK)
        throw std::invalid_argument("pmvp::sc::Monitors::peek: no register " + named);
    unsigned instance, word;
    const pmvp_ext_reg *r = pmvp_ext_decode(core_.get(), frame, off, &instance, &word);
    // The frame reserves slots for counters the core does not implement
    // (RAZ/WI to a guest); peek names registers, and those are not the core's.
    if (instance >= pmvp_ext_reg_instances(core_.get(), r))
        throw std::invalid_argument("pmvp::sc::Monitors::peek: no register " + named + " (the core has " +
                                    std::to_string(pmvp_ext_reg_instances(core_.get(), r)) + ")");
    int err = timeline_.look(sc_core::SC_ZERO_TIME, [&](const pmvp_core *c, pmvp_time t) {
        return pmvp_ext_debug_read(c, pe, frame, off, pmvp_ext_reg_width(c, r) / 8, t, &v);
    });
    if (err != PMVP_OK)
        throw std::runtime_error("pmvp::sc::Monitors::peek: " + reg + " of PE " + std::to_string(pe) + ": " +
                                 pmvp_strerror(err));
    return v;
}

void Monitors::sample(pmvp_time now)
{
    Traced &tr = *traced_;
    for (unsigned p = 0; p < num_pes(); p++) {
        pmvp_pmu_peek(core_.get(), p, PMVP_PMCCNTR_EL0, 0, now, &tr.pmccntr[p]);
        for (unsigned n = 0; n < config_.num_counters; n++)
            pmvp_pmu_peek(core_.get(), p, PMVP_PMEVCNTR_EL0, n, now, &tr.evcntr[p][n]);
        if (config_.feat_amuv1)
            for (unsigned n = 0; n < 4; n++)
                pmvp_amu_read(core_.get(), p, PMVP_AMEVCNTR0_EL0, n, now, &tr.amu[p][n]);
        tr.irq[p] = irq_[p];
        tr.wfx[p] = core_->pe[p].state == PMVP_PE_WFI || core_->pe[p].state == PMVP_PE_WFE;
        tr.powered[p] = core_->pe[p].state != PMVP_PE_OFF;
    }
    tr.processor_hz = core_->clock.hz;
}

void Monitors::stop_tracing() { traced_->on = false; }

void Monitors::sample_trace()
{
    pmvp_time now = time_.now();
    timeline_.catch_up(now);
    sample(now);
}

std::vector<uint8_t> Monitors::save() { return timeline_.checkpoint(); }

void Monitors::check_restore(const std::vector<uint8_t> &checkpoint) const
{
    std::string why;
    if (!timeline_.kernel_takes(checkpoint, &why))
        throw std::invalid_argument(std::string(name()) + ": restore: " + why);
}

void Monitors::restore(const std::vector<uint8_t> &checkpoint)
{
    std::string why;
    if (!timeline_.restore(checkpoint, &why))
        throw std::invalid_argument(std::string(name()) + ": restore: " + why);
    kept_occurrences_ = 0;  // the restored changes' occurrences
    timeline_.next_pending([this](const Change &ch) {
        kept_occurrences_ = saturating_add(kept_occurrences_, count_occurrences(ch));
        return false;  // every kept change visited
    });
    for (unsigned p = 0; p < num_pes(); p++)
        controls_[p] = core_->pe[p].pmu.ctl;
    redrive_ = true;  // PMUIRQ as the restored flags make it, whatever the line shows now
    inputs_changed();
}

void Monitors::trace(sc_core::sc_trace_file *tf) const
{
    Traced &tr = *traced_;
    tr.on = true;
    std::string base = name();
    tr.add(tf, tr.processor_hz, base + ".processor_hz");
    for (unsigned p = 0; p < num_pes(); p++) {
        std::string pe = base + ".pe" + std::to_string(p) + ".";
        tr.add(tf, tr.pmccntr[p], pe + "PMCCNTR_EL0");
        for (unsigned n = 0; n < config_.num_counters; n++)
            tr.add(tf, tr.evcntr[p][n],
                   pe + "PMEVCNTR" + std::to_string(n) + "_EL0" +
                       (tr.counter_events[n].empty() ? "" : "_" + tr.counter_events[n]));
        if (config_.feat_amuv1)
            for (unsigned n = 0; n < 4; n++)
                tr.add(tf, tr.amu[p][n], pe + "AMEVCNTR0" + std::to_string(n));
        tr.add(tf, tr.irq[p], pe + "PMUIRQ");
        tr.add(tf, tr.irq_rises[p], pe + "PMUIRQ_rises");
        tr.add(tf, tr.wfx[p], pe + "WFx");
        tr.add(tf, tr.powered[p], pe + "powered");
    }
}

const std::vector<Monitors::TracedSignal> &Monitors::traced_signals() const { return traced_->signals; }

void Monitors::name_traced_counters(const std::vector<std::string> &events)
{
    Traced &tr = *traced_;
    for (unsigned n = 0; n < config_.num_counters; n++)
        tr.counter_events[n] = n < events.size() ? events[n] : "";
}

}  // namespace pmvp::sc
