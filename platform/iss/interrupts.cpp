// SPDX-License-Identifier: Apache-2.0
//
// The PE's interrupt line on each machine, taking a pending IRQ between
// blocks, and when a PE in WFI wakes.

#include "aarch64_iss.h"

namespace pmvp::soc {

bool Aarch64Iss::gic_access(Thread &t, bool write, const uc_arm64_cp_reg *cp, uint64_t pc, uint64_t &value)
{
    virt::Gic::Icc reg;
    if (!virt() || guest_.gic->version() != 3 ||
        !virt::Gic::icc_register(cp->op0, cp->op1, cp->crn, cp->crm, cp->op2, write, &reg))
        return false;
    const uint64_t before = retired_before(t, pc);
    tell_retired(t, before);
    const pmvp_time at = time_of(t, before);
    sync_pmu_line(t, at);  // ICC_IAR1_EL1 and ICC_HPPIR1_EL1 see the PPI's line
    if (!write) {
        value = guest_.gic->icc_read(t.image_pe, reg, at);
        if (reg == virt::Gic::Icc::IAR1)
            stop(t);  // an acknowledgement changes the running priority
        return true;
    }
    const uint32_t sgi = guest_.gic->icc_write(t.image_pe, reg, value, at);
    for (unsigned pe = 0; pe < virt::Gic::kMaxCpus; pe++)
        if (sgi & (1u << pe))
            guest_.wake(pe, at);
    stop(t);  // what the GIC signals may have changed: the line anew
    return true;
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

// An interrupt between blocks: taken if the line is high and PSTATE.I
// clear. The interrupt request is a level (D13.3.1): one pending while
// masked is taken where the guest unmasks it, so the run ends there. The
// PC the run starts at.
uint64_t Aarch64Iss::take_pending_irq(Thread &t)
{
    uint64_t pstate = 0, pc = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
    sync_el(t, pstate, t.retired);  // an exception return that ended the last run
    const bool line = irq_line(t, t.now);
    // The skid of PMUIRQ: the instructions from the one that raised it to
    // the interrupt, taken at the first run after it. An interrupt taken
    // before that one is another source's (PMUIRQ is still to come); one
    // the guest held masked past it has a latency of the guest's, no skid.
    if (t.interrupt_at != UINT64_MAX && t.retired >= t.interrupt_at) {
        if (!(pstate & kPstateI) && line)
            t.result.max_skid = std::max(t.result.max_skid, t.retired - t.interrupt_at);
        t.interrupt_at = UINT64_MAX;
    }
    if (!(pstate & kPstateI) && line) {
        t.result.interrupts++;
        enter_exception(t, kVectorIrq, pc, nullptr);
        uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
        tell_retired(t, t.retired);  // EXC_TAKEN, EXC_IRQ, before the run's watches
    }
    t.watch_unmask = line;
    return pc;
}

}  // namespace pmvp::soc
