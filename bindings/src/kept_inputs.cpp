// SPDX-License-Identifier: Apache-2.0
//
// Monitors's inputs: made on the kernel now, or kept for their instant by
// the Timeline (timeline.h), and whether the process must wake for them.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "monitors_private.h"

namespace pmvp::sc {

using sc_core::sc_time;

// An input made on kernel c at instant t: the present kernel, a replay of a
// kept input, or the future view (arm_inputs.cpp).
int Monitors::apply(pmvp_core *c, pmvp_time t, const Input &in)
{
    return in.apply(*this, c, t);
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

// Whether the present kernel decides input `in`'s refusal alone: then a
// kept one need not be made on the future view (arm_inputs.h, decide).
bool Monitors::decide(const pmvp_core &c, const Input &in, int *err)
{
    return in.decide(c, err);
}

// Makes change `ch` at sc_time_stamp() + offset, by the policy of Timeline;
// the monitor's process wakes at its instant if it has something to publish
// then (wakes), whether the change is made now or kept for later.
int Monitors::change(const sc_time &offset, const Input &ch)
{
    return change(time_.now(), offset, ch);
}

int Monitors::change(pmvp_time now, const sc_time &offset, const Input &ch)
{
    // The input's occurrences (a report's, shares'), read from it once.
    pmvp_share shares[PMVP_MAX_BATCHES];
    unsigned num_shares = ch.occurrences(shares);
    uint64_t occurrences = total(shares, num_shares);
    // Counted before the change is made: apply() takes them off again when
    // it is made on the present kernel, now or when kept until its instant.
    kept_occurrences_ = saturating_add(kept_occurrences_, occurrences);
    pmvp_time acts = PMVP_TIME_NEVER;
    int err = timeline_->change(now, offset, ch, &acts);
    if (acts == PMVP_TIME_NEVER)  // neither made nor kept
        no_longer_kept(occurrences);
    if (acts != PMVP_TIME_NEVER && wakes(ch, shares, num_shares, acts > now, now))
        wake_.notify(time_.to_sc(acts - now));
    return err;
}

// The occurrences a report or shares change carries, in all.
uint64_t Monitors::count_occurrences(const Input &ch)
{
    pmvp_share shares[PMVP_MAX_BATCHES];
    return total(shares, ch.occurrences(shares));
}

void Monitors::no_longer_kept(uint64_t occurrences)
{
    kept_occurrences_ -= std::min(kept_occurrences_, occurrences);
}

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
bool Monitors::wakes(const Input &ch, const pmvp_share *shares, unsigned n, bool kept, pmvp_time now) const
{
    if (traced_->on)
        return true;
    switch (ch.wake(*core_)) {
    case Input::Wake::ALWAYS: return true;
    case Input::Wake::NEVER: return false;
    case Input::Wake::BY_OCCURRENCES: break;
    }
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
        uint64_t epoch = timeline_->present_epoch();
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

}  // namespace pmvp::sc
