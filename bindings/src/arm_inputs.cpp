// SPDX-License-Identifier: Apache-2.0
//
// What each input of Monitors does when it is made on a kernel
// (arm_inputs.h). `m.core_` is the present kernel: an input made on it (not
// on a replay's view) takes its occurrences off the kept ones, and an
// input's results go to the caller of the call being made (m.results_),
// not to a replay's.
#include <algorithm>

#include "arm_inputs.h"

namespace pmvp::sc {

int Monitors::Input::Report::apply(Monitors &m, pmvp_core *c, pmvp_time t) const
{
    if (c == m.core_.get())
        m.no_longer_kept(count);
    return pmvp_core_report(c, pe, event, count, t);
}

// Refused or not by the kernel's configuration and the PE's power state
// alone (pmvp_core_report_refusal).
bool Monitors::Input::Report::decide(const pmvp_core &c, int *err) const
{
    *err = pmvp_core_report_refusal(&c, pe, event);
    return true;
}

unsigned Monitors::Input::Report::occurrences(pmvp_share *shares) const
{
    shares[0] = { pe, event, count };
    return 1;
}

int Monitors::Input::ReportSpread::apply(Monitors &, pmvp_core *c, pmvp_time t) const
{
    return pmvp_core_report_spread(c, pe, event, count, cycles, t);
}

Monitors::Input::Step::Step(pmvp_time since, const pmvp_share *shares, unsigned num_shares,
                            const pmvp_level_change *levels, unsigned num_levels)
    : since(since), num_shares(num_shares), num_levels(num_levels)
{
    std::copy_n(shares, std::min<unsigned>(num_shares, PMVP_MAX_BATCHES), this->shares);
    std::copy_n(levels, std::min<unsigned>(num_levels, kMaxLevelChanges), this->levels);
}

auto Monitors::Input::Step::operator=(const Step &o) -> Step &
{
    since = o.since;
    num_shares = o.num_shares;
    num_levels = o.num_levels;
    std::copy_n(o.shares, std::min<unsigned>(num_shares, PMVP_MAX_BATCHES), shares);
    std::copy_n(o.levels, std::min<unsigned>(num_levels, kMaxLevelChanges), levels);
    return *this;
}

// Refused as a whole: with shares, the level changes' refusals first,
// which depend on nothing the shares change (pmvp_core_set_level_refusal);
// alone, pmvp_core_set_levels refuses them whole itself.
int Monitors::Input::Step::apply(Monitors &m, pmvp_core *c, pmvp_time t) const
{
    if (!valid())
        return PMVP_ERR_VALUE;
    if (c == m.core_.get())
        m.no_longer_kept(total(shares, num_shares));
    int err = PMVP_OK;
    for (unsigned i = 0; i < num_levels && num_shares && !err; i++)
        err = pmvp_core_set_level_refusal(c, levels[i].pe, levels[i].event);
    if (!err && num_shares)
        err = pmvp_core_report_shares(c, shares, num_shares, since, t);
    if (!err && num_levels)
        err = pmvp_core_set_levels(c, levels, num_levels, t);
    return err;
}

// Each share is decided as a report, unless one could put more on a cycle
// than a run holds; the level changes, as levels.
bool Monitors::Input::Step::decide(const pmvp_core &c, int *err) const
{
    if (!valid())
        return false;
    for (unsigned i = 0; i < num_shares; i++)
        if (shares[i].count > UINT32_MAX)
            return false;
    *err = PMVP_OK;
    for (unsigned i = 0; i < num_levels && !*err; i++)
        *err = pmvp_core_set_level_refusal(&c, levels[i].pe, levels[i].event);
    for (unsigned i = 0; i < num_shares && !*err; i++)
        *err = pmvp_core_report_refusal(&c, shares[i].pe, shares[i].event);
    return true;
}

unsigned Monitors::Input::Step::occurrences(pmvp_share *out) const
{
    if (!valid())
        return 0;
    std::copy_n(shares, num_shares, out);
    return num_shares;
}

auto Monitors::Input::Step::wake(pmvp_core &c) const -> Wake
{
    if (!valid())
        return Wake::ALWAYS;  // a corrupt one
    for (unsigned i = 0; i < num_levels; i++)
        if (pmvp_core_input_may_interrupt(&c, levels[i].event, true))
            return Wake::ALWAYS;
    return num_shares ? Wake::BY_OCCURRENCES : Wake::NEVER;
}

int Monitors::Input::Retire::apply(Monitors &m, pmvp_core *c, pmvp_time t) const
{
    pmvp_retire_result ignored{};
    return pmvp_core_retire(c, pe, event, count, pc, t, m.results_.retire ? m.results_.retire : &ignored);
}

int Monitors::Input::Level::apply(Monitors &, pmvp_core *c, pmvp_time t) const
{
    return pmvp_core_set_level(c, pe, event, level, t);
}

bool Monitors::Input::Level::decide(const pmvp_core &c, int *err) const
{
    *err = pmvp_core_set_level_refusal(&c, pe, event);
    return true;
}

auto Monitors::Input::Level::wake(pmvp_core &c) const -> Wake
{
    return pmvp_core_input_may_interrupt(&c, event, true) ? Wake::ALWAYS : Wake::NEVER;
}

int Monitors::Input::PeCall::apply(Monitors &, pmvp_core *c, pmvp_time t) const
{
    switch (what) {
    case CONTEXT_SYNC: return pmvp_core_context_sync(c, pe, t);
    case ACTIVE_THREAD: return pmvp_core_set_active_thread(c, pe, t);
    case SNAPSHOT_REQUEST: return pmvp_core_snapshot_request(c, pe, t);
    }
    return PMVP_ERR_VALUE;  // a corrupt checkpoint's
}

int Monitors::Input::Context::apply(Monitors &, pmvp_core *c, pmvp_time t) const
{
    return pmvp_core_set_context(c, pe, &ctx, t);
}

// The controls become the PE's when the input takes effect on the kernel,
// not when it is made: until an input for a later instant is reached, an
// input signal's change re-applies the controls in force
// (Monitors::inputs_changed), not these. The authentication fields are
// those of the signals at the instant it takes effect.
int Monitors::Input::Controls::apply(Monitors &m, pmvp_core *c, pmvp_time t) const
{
    return m.put_controls(c, pe, ctl, t);
}

bool Monitors::Input::Control::set(pmvp_pmu_controls &ctl) const
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

// One field, the others as they are in force at the input's instant (the
// CPU model's on the kernel; on the future view, those the kept inputs
// before it left).
int Monitors::Input::Control::apply(Monitors &m, pmvp_core *c, pmvp_time t) const
{
    if (pe >= c->cfg.num_pes)
        return PMVP_ERR_PE;
    pmvp_pmu_controls ctl = c == m.core_.get() ? m.controls_[pe] : c->pe[pe].pmu.ctl;
    return set(ctl) ? m.put_controls(c, pe, ctl, t) : PMVP_ERR_VALUE;
}

int Monitors::Input::SysregWrite::apply(Monitors &m, pmvp_core *c, pmvp_time t) const
{
    pmvp_sysreg_execution ignored{};
    uint64_t v = value;
    // The memo serves the kept view and the present alike: the decision
    // follows from the configuration, which they share, and the context.
    return pmvp_sysreg_execute_memo(c, pe, &insn, &higher, t, &v, m.results_.sysreg ? m.results_.sysreg : &ignored,
                                    &m.sysreg_memo_);
}

int Monitors::Input::PeState::apply(Monitors &, pmvp_core *c, pmvp_time t) const
{
    return pmvp_core_set_pe_state(c, pe, state, t);
}

int Monitors::Input::Clock::apply(Monitors &, pmvp_core *c, pmvp_time t) const
{
    return pmvp_core_set_clock(c, hz, t);
}

int Monitors::Input::PmuWrite::apply(Monitors &, pmvp_core *c, pmvp_time t) const
{
    return pmvp_pmu_write(c, pe, reg, n, value, t);
}

int Monitors::Input::AmuWrite::apply(Monitors &, pmvp_core *c, pmvp_time t) const
{
    return pmvp_amu_write(c, pe, reg, n, value, t);
}

int Monitors::Input::FrameWrite::apply(Monitors &, pmvp_core *c, pmvp_time t) const
{
    if (debug)
        return pmvp_ext_debug_write(c, pe, frame, offset, len, value, t);
    return pmvp_ext_write(c, pe, frame, offset, len, value, &bus, t, nullptr);
}

}  // namespace pmvp::sc
