// SPDX-License-Identifier: Apache-2.0
//
// Monitors's CPU-model interface: each call builds its input
// (arm_inputs.h) or asks the kernel, at its local-time offset.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "monitors_private.h"

namespace pmvp::sc {

using sc_core::sc_time;

int Monitors::report(unsigned pe, uint16_t event, uint64_t count, const sc_time &offset)
{
    return change(offset, Input::Report{ {}, pe, event, count });
}

const char *Monitors::event_why(uint16_t event, bool level) const
{
    return pmvp_core_event_why(core_.get(), event, level);
}

int Monitors::report_spread(unsigned pe, uint16_t event, uint64_t count, uint64_t cycles, const sc_time &offset)
{
    return change(offset, Input::ReportSpread{ {}, pe, event, count, cycles });
}

int Monitors::report_shares(const pmvp_share *shares, unsigned num_shares, const sc_time &since, const sc_time &offset)
{
    return report_shares(shares, num_shares, since, offset, nullptr, 0);
}

int Monitors::report_shares(const pmvp_share *shares, unsigned num_shares, const sc_time &since, const sc_time &offset,
                            const pmvp_level_change *levels, unsigned num_levels)
{
    if (!shares || (!levels && num_levels))
        return PMVP_ERR_NULL;
    if (num_shares == 0 || num_shares > PMVP_MAX_BATCHES || num_levels > kMaxLevelChanges)
        return PMVP_ERR_VALUE;
    pmvp_time now = time_.now(), from = time_.after(now, since);
    if (from == PMVP_TIME_NEVER || from > time_.after(now, offset))
        return PMVP_ERR_VALUE;
    return change(now, offset, Input(std::in_place_type<Input::Step>, from, shares, num_shares, levels, num_levels));
}

int Monitors::set_levels(const pmvp_level_change *levels, unsigned num_levels, const sc_time &offset)
{
    if (!levels)
        return PMVP_ERR_NULL;
    if (num_levels == 0 || num_levels > kMaxLevelChanges)
        return PMVP_ERR_VALUE;
    return change(offset, Input(std::in_place_type<Input::Step>, 0, nullptr, 0, levels, num_levels));
}

int Monitors::retire(unsigned pe, uint16_t event, uint64_t count, uint64_t pc, pmvp_retire_result &result,
                     const sc_time &offset)
{
    result = pmvp_retire_result{};
    results_.retire = &result;
    int err = change(offset, Input::Retire{ {}, pe, event, count, pc });
    results_.retire = nullptr;
    return err;
}

int Monitors::context_sync(unsigned pe, const sc_time &offset)
{
    return change(offset, Input::PeCall{ {}, pe, Input::PeCall::CONTEXT_SYNC });
}

int Monitors::pmu_exception(unsigned pe, pmvp_pmu_exception &state, const sc_time &offset)
{
    return query(offset, [&](pmvp_core *c, pmvp_time t) { return pmvp_core_pmu_exception(c, pe, t, &state); });
}

int Monitors::set_level(unsigned pe, uint16_t event, uint32_t level, const sc_time &offset)
{
    return change(offset, Input::Level{ {}, pe, event, level });
}

int Monitors::set_context(unsigned pe, const pmvp_context &ctx, const sc_time &offset)
{
    return change(offset, Input::Context{ {}, pe, ctx });
}

int Monitors::set_active_thread(unsigned pe, const sc_time &offset)
{
    return change(offset, Input::PeCall{ {}, pe, Input::PeCall::ACTIVE_THREAD });
}

int Monitors::snapshot_request(unsigned pe, const sc_time &offset)
{
    return change(offset, Input::PeCall{ {}, pe, Input::PeCall::SNAPSHOT_REQUEST });
}

int Monitors::set_controls(unsigned pe, const pmvp_pmu_controls &ctl, const sc_time &offset)
{
    if (pe >= num_pes())
        return PMVP_ERR_PE;
    return change(offset, Input::Controls{ {}, pe, ctl });
}

int Monitors::set_control(unsigned pe, Control field, uint64_t value, const sc_time &offset)
{
    if (pe >= num_pes())
        return PMVP_ERR_PE;
    Input::Control input{ {}, pe, field, value };
    pmvp_pmu_controls probe{};
    if (!input.set(probe))
        return PMVP_ERR_VALUE;
    return change(offset, input);
}

int Monitors::execute(unsigned pe, const pmvp_sysreg_a64 &insn, const pmvp_sysreg_context *higher, uint64_t &value,
                      pmvp_sysreg_execution &out, const sc_time &offset)
{
    static const pmvp_sysreg_context none{};  // no higher level's control set
    const pmvp_sysreg_context &h = higher ? *higher : none;
    if (!insn.write && !direct_reads_draw())
        return timeline_->look(offset, [&](const pmvp_core *c, pmvp_time t) {
            return pmvp_sysreg_peek_execute_memo(c, pe, &insn, &h, t, &value, &out, &sysreg_memo_);
        });
    if (!insn.write)
        return query(offset, [&](pmvp_core *c, pmvp_time t) {
            return pmvp_sysreg_execute_memo(c, pe, &insn, &h, t, &value, &out, &sysreg_memo_);
        });
    out = pmvp_sysreg_execution{};
    results_.sysreg = &out;
    int err = change(offset, Input::SysregWrite{ {}, pe, insn, value, h });
    results_.sysreg = nullptr;
    return err;
}

int Monitors::execute_a64(unsigned pe, bool write, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                          unsigned rt, const pmvp_sysreg_context *higher, uint64_t &value, pmvp_sysreg_execution &out,
                          const sc_time &offset)
{
    return execute(pe, pmvp_sysreg_a64{ write, op0, op1, crn, crm, op2, rt }, higher, value, out, offset);
}

int Monitors::events_to_interrupt(unsigned pe, uint16_t event, uint64_t &count, const sc_time &offset)
{
    return query(offset,
                 [&](pmvp_core *c, pmvp_time t) { return pmvp_core_events_to_interrupt(c, pe, event, t, &count); });
}

int Monitors::events_to_interrupt(unsigned pe, const uint16_t *events, unsigned num, uint64_t *counts,
                                  const sc_time &offset)
{
    if (!events || !counts)
        return PMVP_ERR_NULL;
    return query(offset, [&](pmvp_core *c, pmvp_time t) {
        return pmvp_core_events_to_interrupt_each(c, pe, events, num, t, counts);
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

int Monitors::cycle_values_matter(bool &matter, const sc_time &offset)
{
    return query(offset, [&](pmvp_core *c, pmvp_time) {
        matter = pmvp_core_cycle_values_matter(c);
        return (int)PMVP_OK;
    });
}

int Monitors::irq_level(unsigned pe, bool &level, const sc_time &offset)
{
    return timeline_->look(offset,
                           [&](const pmvp_core *c, pmvp_time t) { return pmvp_pmu_irq_peek(c, pe, t, &level); });
}

int Monitors::set_state(unsigned pe, pmvp_pe_state state, const sc_time &offset)
{
    // A PE with a bound wfi, wfe or power port follows its signals: they
    // are its state's only source (as processor_hz is the clock's).
    if (pe < num_pes() && (wfi[pe].size() || wfe[pe].size() || power[pe].size()))
        return PMVP_ERR_CONFIG;
    return change(offset, Input::PeState{ {}, pe, state });
}

int Monitors::set_clock(uint64_t hz, const sc_time &offset)
{
    if (processor_hz.size())
        return PMVP_ERR_CONFIG;
    return change(offset, Input::Clock{ {}, hz });
}

int Monitors::pmu_read(unsigned pe, pmvp_pmu_reg reg, unsigned n, uint64_t &value, const sc_time &offset)
{
    if (!direct_reads_draw())
        return timeline_->look(
            offset, [&](const pmvp_core *c, pmvp_time t) { return pmvp_pmu_peek(c, pe, reg, n, t, &value); });
    return query(offset, [&](pmvp_core *c, pmvp_time t) { return pmvp_pmu_read(c, pe, reg, n, t, &value); });
}

int Monitors::pmu_write(unsigned pe, pmvp_pmu_reg reg, unsigned n, uint64_t value, const sc_time &offset)
{
    return change(offset, Input::PmuWrite{ {}, pe, reg, n, value });
}

int Monitors::amu_read(unsigned pe, pmvp_amu_reg reg, unsigned n, uint64_t &value, const sc_time &offset)
{
    return timeline_->look(offset,
                           [&](const pmvp_core *c, pmvp_time t) { return pmvp_amu_peek(c, pe, reg, n, t, &value); });
}

int Monitors::amu_write(unsigned pe, pmvp_amu_reg reg, unsigned n, uint64_t value, const sc_time &offset)
{
    return change(offset, Input::AmuWrite{ {}, pe, reg, n, value });
}

}  // namespace pmvp::sc
