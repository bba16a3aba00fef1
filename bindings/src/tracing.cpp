// SPDX-License-Identifier: Apache-2.0
//
// Monitors's values for sc_trace, sampled at each wake-up while a trace
// file follows them.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "monitors_private.h"

namespace pmvp::sc {

using sc_core::sc_time;

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

void Monitors::stop_tracing()
{
    traced_->on = false;
}

void Monitors::sample_trace()
{
    pmvp_time now = time_.now();
    timeline_->catch_up(now);
    sample(now);
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

const std::vector<Monitors::TracedSignal> &Monitors::traced_signals() const
{
    return traced_->signals;
}

void Monitors::name_traced_counters(const std::vector<std::string> &events)
{
    Traced &tr = *traced_;
    for (unsigned n = 0; n < config_.num_counters; n++)
        tr.counter_events[n] = n < events.size() ? events[n] : "";
}

}  // namespace pmvp::sc
