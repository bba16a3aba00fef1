/* SPDX-License-Identifier: Apache-2.0 */
/* The PMUv3 register file of a PE (D24.5), over the counting rules. */
#include "pmvp/pmu.h"

#include <string.h>

#include "regfile.h"
#include "pmvp/error.h"
#include "pmvp/sysreg.h"

/* The bracket of an access (regfile.h), for this file's registers. */
static int begin_access(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, bool write, pmvp_time now)
{
    return k_access_begin(c, p, PMVP_SYSREG_PMU, (unsigned)reg, n, write, now);
}

/* PMCEID0/1_EL0 (D24.5.4, D24.5.5): bit i of the low half is common event
 * base+i; the high half (PMUv3p1) covers 0x4000+base+i. */
static uint64_t pmceid(const pmvp_core *c, uint16_t base)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 32; i++) {
        if (k_supported_class(c, (uint16_t)(base + i)) >= 0)
            v |= PMVP_BIT(i);
        if (c->cfg.pmu_version >= PMVP_PMUV3P1 && k_supported_class(c, (uint16_t)(0x4000 + base + i)) >= 0)
            v |= PMVP_BIT(32 + i);
    }
    return v;
}

/* PMSELR.SEL for PMXEVTYPER/PMXEVCNTR: a counter index, 31 for the cycle
 * counter, or -1 when it selects no implemented counter (then the access is
 * CONSTRAINED UNPREDICTABLE; pmvp makes it RAZ/WI: selected() logs it). */
static int selection(const pmvp_core *c, const pmvp_pe *pe, bool cycle_counter_allowed)
{
    unsigned sel = (unsigned)PMVP_FIELD_GET(PMVP_PMSELR_EL0_SEL, pe->pmu.pmselr);
    if (sel < c->cfg.num_counters || (sel == PMVP_CYCLE_COUNTER && cycle_counter_allowed))
        return (int)sel;
    return -1;
}

static int selected(const pmvp_core *c, unsigned p, const pmvp_pe *pe, bool cycle_counter_allowed)
{
    int sel = selection(c, pe, cycle_counter_allowed);
    if (sel < 0)
        k_log(c, p, "PMXEVTYPER/PMXEVCNTR with PMSELR.SEL selecting no counter: RAZ/WI");
    return sel;
}

/* PMEVTYPER<n>'s event as counter n counts it (D24.5.12). */
static void decode_event(const pmvp_core *c, pmvp_pmu *u, unsigned n)
{
    u->event[n] =
        k_decode_event(c, (uint16_t)PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_evtCount, u->counter[n].evtyper), false);
}

/* A write of PMEVTYPER<n> starts the threshold functions it concerns
 * afresh (pmvp's choice where D13.8 does not say what a cycle with a
 * change of controls counts): C_P of n is 0, and neither n nor the counter
 * n - 1 that an odd n may link to keeps the occurrences reported earlier
 * in the cycle in progress. */
static void threshold_afresh(pmvp_pe *pe, unsigned n)
{
    pe->th_cp &= ~(UINT32_C(1) << n);
    pe->pmu.counter[n].pending = 0;
    if (n % 2 == 1)
        pe->pmu.counter[n - 1].pending = 0;
}

/* The register PMXEVTYPER or PMXEVCNTR stands for with selection sel
 * (selected()): PMCCFILTR, PMEVTYPER<sel> or PMEVCNTR<sel>. */
static enum pmvp_pmu_reg selected_reg(enum pmvp_pmu_reg reg, int sel)
{
    if (reg == PMVP_PMXEVCNTR_EL0)
        return PMVP_PMEVCNTR_EL0;
    return sel == PMVP_CYCLE_COUNTER ? PMVP_PMCCFILTR_EL0 : PMVP_PMEVTYPER_EL0;
}

static uint64_t read_pmcr(const pmvp_core *c, const pmvp_pe *pe)
{
    uint64_t v = pe->pmu.pmcr | PMVP_FIELD_PREP(PMVP_PMCR_EL0_N, c->cfg.num_counters);
    if (!c->cfg.have_aarch32)
        v |= PMVP_PMCR_EL0_LC;  /* RES1 without AArch32 */
    if (!c->cfg.feat_pmuv3p7) { /* IMP RAZ from PMUv3p7 */
        v |= PMVP_FIELD_PREP(PMVP_PMCR_EL0_IMP, c->cfg.pmcr_imp);
        if (c->cfg.pmcr_imp)
            v |= PMVP_FIELD_PREP(PMVP_PMCR_EL0_IDCODE, c->cfg.pmcr_idcode);
    }
    return v;
}

int k_pmu_look(const pmvp_core *c, unsigned p, const pmvp_pe *pe, enum pmvp_pmu_reg reg, unsigned n, uint64_t *value)
{
    int sel;
    switch (reg) { /* the registers whose read is not the value they hold */
    case PMVP_PMCR_EL0: *value = read_pmcr(c, pe); return PMVP_OK;
    case PMVP_PMSWINC_EL0:
    case PMVP_PMZR_EL0: *value = 0; return PMVP_OK; /* WO/RAZ */
    case PMVP_PMCEID0_EL0: *value = pmceid(c, 0x00); return PMVP_OK;
    case PMVP_PMCEID1_EL0: *value = pmceid(c, 0x20); return PMVP_OK;
    case PMVP_PMMIR_EL1: *value = c->cfg.pmmir; return PMVP_OK;
    case PMVP_PMICFILTR_EL0: /* evtCount reads as INST_RETIRED (D24.5.14) */
        *value = pe->pmu.pmicfiltr | PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_evtCount, PMVP_EV_INST_RETIRED);
        return PMVP_OK;
    case PMVP_PMXEVTYPER_EL0:
    case PMVP_PMXEVCNTR_EL0:
        sel = selected(c, p, pe, reg == PMVP_PMXEVTYPER_EL0);
        *value = 0;
        return sel < 0 ? PMVP_OK : k_pmu_look(c, p, pe, selected_reg(reg, sel), (unsigned)sel, value);
    default: return k_state_read(pe, PMVP_SYSREG_PMU, reg, n, value) ? PMVP_OK : PMVP_ERR_REGISTER;
    }
}

/* The counter whose value a read of `reg` (instance n) returns: n, 31 for
 * PMCCNTR, the one PMSELR selects, or -1 (none). */
static int counter_read_by(const pmvp_core *c, const pmvp_pe *pe, enum pmvp_pmu_reg reg, unsigned n)
{
    switch (reg) {
    case PMVP_PMCCNTR_EL0: return PMVP_CYCLE_COUNTER;
    case PMVP_PMEVCNTR_EL0: return (int)n;
    case PMVP_PMXEVCNTR_EL0: return selection(c, pe, false);
    default: return -1;
    }
}

int k_pmu_read(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, pmvp_time now, uint64_t *value)
{
    const pmvp_pe *pe = &c->pe[p];
    int err = k_pmu_look(c, p, pe, reg, n, value);
    int which = err ? -1 : counter_read_by(c, pe, reg, n);
    if (which >= 0)
        *value = k_direct_read(c, p, (unsigned)which, *value, now);
    return err;
}

/* Counter `which` (31: PMCCNTR) was written: the divider restarts with
 * PMCCNTR, and a new stretch begins for the inaccuracy knobs. */
static void counter_written(pmvp_core *c, unsigned p, unsigned which)
{
    pmvp_pmu *u = &c->pe[p].pmu;
    if (which == PMVP_CYCLE_COUNTER)
        u->divider = 0;
    u->slack[which].base = which == PMVP_CYCLE_COUNTER ? u->pmccntr : u->counter[which].value;
}

/* Writes counter `which` (31: PMCCNTR) as its register would be written. */
static void set_counter(pmvp_core *c, unsigned p, unsigned which, uint64_t value)
{
    bool cycles = which == PMVP_CYCLE_COUNTER;
    k_state_write(c, &c->pe[p], PMVP_SYSREG_PMU, cycles ? PMVP_PMCCNTR_EL0 : PMVP_PMEVCNTR_EL0, which, value);
    counter_written(c, p, which);
}

/* PMIAR_EL1.ADDRESS: [1:0] RES0, [63:48] RESS (no FEAT_LVA). */
uint64_t k_pmiar_address(uint64_t va)
{
    uint64_t low = va & PMVP_BITS(47, 2);
    return (va >> 47 & 1) ? low | PMVP_BITS(63, 48) : low;
}

int pmvp_pmu_read(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, pmvp_time now, uint64_t *value)
{
    if (!value)
        return PMVP_ERR_NULL;
    int err = begin_access(c, p, reg, n, false, now);
    return err ? err : k_pmu_read(c, p, reg, n, now, value);
}

int pmvp_pmu_peek(const pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, pmvp_time t, uint64_t *value)
{
    if (!value)
        return PMVP_ERR_NULL;
    int err = k_look_begin(c, p, PMVP_SYSREG_PMU, (unsigned)reg, n, t);
    if (err)
        return err;
    pmvp_pe scratch;
    return k_pmu_look(c, p, k_pe_at(c, p, t, &scratch), reg, n, value);
}

void k_pmcr_p_reset(pmvp_core *c, unsigned p, unsigned accessible)
{
    for (unsigned n = 0; n < accessible; n++)
        set_counter(c, p, n, 0);
}

/* PMZR_EL0 (D24.5.29, FEAT_PMUv3p9): each counter whose bit is written
 * as 1 is set to zero, as a write of zero to its register would. The bits
 * a context cannot reach are the caller's to clear (sysreg.c). */
static void zero_counters(pmvp_core *c, unsigned p, uint64_t value)
{
    for (uint32_t m = (uint32_t)value & k_counters_mask(c); m;)
        set_counter(c, p, pmvp_take_lowest(&m), 0);
    if (value & PMVP_PMU_C)
        set_counter(c, p, PMVP_CYCLE_COUNTER, 0);
    if (value & k_instruction_counter(c))
        k_state_write(c, &c->pe[p], PMVP_SYSREG_PMU, PMVP_PMICNTR_EL0, 0, 0);
}

/* ---------------------------------------------------------- snapshots */

/* PMSSE and PMECR_EL1.SSE (D13.9, Table D13-10). */
enum { SSE_DISABLED = 0, SSE_LOWER = 1, SSE_PROHIBITED = 2, SSE_ALLOWED = 3 };

/* Who decides the Capture events (RYWLFL, RTSYTY): MDCR_EL3.PMSSE if EL3
 * is implemented, unless it leaves it to the level below (0b01); then
 * MDCR_EL2.PMSSE if EL2 is implemented, enabled in the current Security
 * state or not; then PMECR_EL1.SSE, where 0b01 (reserved) enables Capture
 * events without allowing them, as RYWLFL and RTSYTY read. */
static unsigned capture_control(const pmvp_core *c, const pmvp_pe *pe)
{
    unsigned v = SSE_LOWER;
    if (c->cfg.have_el3)
        v = (unsigned)PMVP_FIELD_GET(PMVP_MDCR_EL3_PMSSE, pe->pmu.ctl.mdcr_el3);
    if (v == SSE_LOWER && c->cfg.have_el2)
        v = (unsigned)PMVP_FIELD_GET(PMVP_MDCR_EL2_PMSSE, pe->pmu.ctl.mdcr_el2);
    if (v == SSE_LOWER)
        v = (unsigned)PMVP_FIELD_GET(PMVP_PMECR_EL1_SSE, pe->pmu.pmecr);
    return v == SSE_LOWER ? SSE_PROHIBITED : v;
}

/* PMU_SNAPSHOT, generated once the counters are captured (D13.9): counted
 * by the counters of p, and with MT == 1 of its sibling PEs, that count it
 * in p's context. */
static void snapshot_event(pmvp_core *c, unsigned p)
{
    if (k_supported_class(c, PMVP_EV_PMU_SNAPSHOT) < 0)
        return;
    const pmvp_context *src = &c->pe[p].ctx;
    for (unsigned q = 0; q < c->cfg.num_pes; q++)
        for (unsigned n = 0; n < c->cfg.num_counters; n++)
            if (k_counter_event(&c->pe[q], n) == PMVP_EV_PMU_SNAPSHOT && (q == p || k_effective_mt(c, q, n)) &&
                k_counts(c, q, n, src)) {
                k_occurrence_add(c, q, n, 1);
                k_freeze_update(c, q); /* its overflow may freeze counters */
            }
}

void k_capture(pmvp_core *c, unsigned p)
{
    pmvp_pe *pe = &c->pe[p];
    unsigned control = capture_control(c, pe);
    if (pe->state == PMVP_PE_OFF || control == SSE_DISABLED)
        return; /* RMFJWS: PMSSCR_EL1.SS ignores the write */
    bool allowed = control == SSE_ALLOWED && !pe->pmu.ctl.os_lock && (!pe->ctx.halted || c->cfg.ss_capture_in_debug);
    if (!allowed) {
        pe->pmu.pmsscr = PMVP_PMSSCR_EL1_NC; /* {NC, SS} = {1, 0}: completed, nothing captured */
        return;
    }
    /* The values a read at this instant returns, without the delay of the
     * inaccuracy knob (c): the counters' own. */
    for (unsigned n = 0; n < c->cfg.num_counters; n++)
        k_pmu_look(c, p, pe, PMVP_PMEVCNTR_EL0, n, &pe->pmu.evcntsvr[n]);
    k_pmu_look(c, p, pe, PMVP_PMCCNTR_EL0, 0, &pe->pmu.ccntsvr);
    if (c->cfg.feat_pmuv3_icntr)
        pe->pmu.icntsvr = pe->pmu.counter[PMVP_ICNTR_SLOT].value;
    pe->pmu.pmsscr = 0;
    if (!pe->ctx.halted) /* in Debug state, CONSTRAINED UNPREDICTABLE: pmvp generates none */
        snapshot_event(c, p);
}

/* PMSWINC (D24.5.24, D13.7.3.2): increments each selected counter that
 * counts SW_INCR, if it counts events in the PE's current context. */
static void software_increment(pmvp_core *c, unsigned p, uint64_t value)
{
    if (k_supported_class(c, PMVP_EV_SW_INCR) < 0)
        return;
    uint32_t bits = (uint32_t)value & k_counters_mask(c);
    for (unsigned n = 0; n < c->cfg.num_counters; n++) {
        pmvp_pe *pe = &c->pe[p];
        if ((bits >> n & 1) && k_counter_event(pe, n) == PMVP_EV_SW_INCR && k_counts(c, p, n, &pe->ctx))
            k_occurrence_add(c, p, n, 1);
    }
}

/* The registers whose writes change what counts: enables, event types and
 * filters (D13.5). */
static bool routes_depend_on(enum pmvp_pmu_reg reg)
{
    switch (reg) {
    case PMVP_PMCR_EL0:
    case PMVP_PMCNTENSET_EL0:
    case PMVP_PMCNTENCLR_EL0:
    case PMVP_PMEVTYPER_EL0:
    case PMVP_PMXEVTYPER_EL0:
    case PMVP_PMCCFILTR_EL0:
    case PMVP_PMICFILTR_EL0: return true;
    default: return false;
    }
}

int k_pmu_write(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, uint64_t value)
{
    pmvp_pe *pe = &c->pe[p];
    pmvp_pmu *u = &pe->pmu;
    uint64_t enabled = k_enabled_counters(c, pe);
    uint64_t generation = k_caches(c)->generation;
    bool rates_valid = k_caches(c)->rates_valid;
    int sel;
    bool holds = k_state_write(c, pe, PMVP_SYSREG_PMU, reg, n, value);
    switch (reg) { /* what a write does beyond storing its value */
    case PMVP_PMCR_EL0:
        if (value & PMVP_PMCR_EL0_P) /* in the view of the PE's context */
            k_pmcr_p_reset(
                c, p,
                k_counters_accessible(&c->cfg, pe->ctx.el, k_pe_el2_enabled(c, p), u->ctl.mdcr_el2, pe->ext.pmccr));
        if (value & PMVP_PMCR_EL0_C) /* the divider restarts with the counter (a pmvp choice) */
            set_counter(c, p, PMVP_CYCLE_COUNTER, 0);
        break;
    case PMVP_PMOVSCLR_EL0:
        /* knob (a): the overflow software cleared has no shadow left */
        u->shadowed &= ~(uint32_t)value;
        break;
    case PMVP_PMINTENSET_EL1:
    case PMVP_PMINTENCLR_EL1: k_caches(c)->watch_valid = false; break; /* the counters that request interrupts */
    case PMVP_PMSWINC_EL0: software_increment(c, p, value); break;
    case PMVP_PMZR_EL0: zero_counters(c, p, value); break;
    case PMVP_PMSSCR_EL1:
        if (value & PMVP_PMSSCR_EL1_SS)
            k_capture(c, p);
        break;
    case PMVP_PMCCNTR_EL0: counter_written(c, p, PMVP_CYCLE_COUNTER); break;
    case PMVP_PMEVCNTR_EL0: counter_written(c, p, n); break;
    case PMVP_PMEVTYPER_EL0:
        decode_event(c, u, n);
        threshold_afresh(pe, n);
        break;
    case PMVP_PMIAR_EL1: u->pmiar = k_pmiar_address(u->pmiar); break;
    case PMVP_PMXEVTYPER_EL0:
    case PMVP_PMXEVCNTR_EL0:
        sel = selected(c, p, pe, reg == PMVP_PMXEVTYPER_EL0);
        return sel < 0 ? PMVP_OK : k_pmu_write(c, p, selected_reg(reg, sel), (unsigned)sel, value);
    default:
        if (!holds)
            return PMVP_ERR_REGISTER;
        break;
    }
    if (routes_depend_on(reg))
        k_routes_stale(c);
    if (reg == PMVP_PMEVTYPER_EL0)
        k_rates_retyped(c, p, n, rates_valid);
    k_freeze_update(c, p); /* PMOVSSET/CLR, PMCR.FZO and DP, PMEVTYPER.SYNC, overflows of PMSWINC */
    k_boundary(c, p, enabled ^ k_enabled_counters(c, pe));
    k_reads_catch_up(c, p);
    if (reg == PMVP_PMEVTYPER_EL0)
        k_routes_retyped(c, p, n, generation);
    return PMVP_OK;
}

void k_pmccr_write(pmvp_core *c, unsigned p, uint64_t value)
{
    pmvp_pe *pe = &c->pe[p];
    uint64_t enabled = k_enabled_counters(c, pe);
    pe->ext.pmccr = (uint32_t)(value & (PMVP_PMCCR_OSLO | PMVP_PMCCR_EPME | PMVP_PMCCR_EPMN));
    k_ext_permissions(c, p); /* OSLO */
    k_routes_stale(c);       /* EPMN moves counters between ranges, EPME enables the third */
    k_freeze_update(c, p);   /* the third range neither freezes nor is frozen */
    k_boundary(c, p, enabled ^ k_enabled_counters(c, pe));
    k_reads_catch_up(c, p);
}

int pmvp_pmu_write(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, uint64_t value, pmvp_time now)
{
    int err = begin_access(c, p, reg, n, true, now);
    return err ? err : k_pmu_write(c, p, reg, n, value);
}

int pmvp_pmu_irq(pmvp_core *c, unsigned p, pmvp_time now, bool *level)
{
    if (!level)
        return PMVP_ERR_NULL;
    int err = k_begin_pe(c, p, now);
    if (err)
        return err;
    *level = k_irq_level(c, p, &c->pe[p]);
    return PMVP_OK;
}

int pmvp_pmu_irq_peek(const pmvp_core *c, unsigned p, pmvp_time t, bool *level)
{
    if (!level)
        return PMVP_ERR_NULL;
    int err = k_look_pe(c, p, t);
    if (err)
        return err;
    pmvp_pe scratch;
    *level = k_irq_level(c, p, k_pe_at(c, p, t, &scratch));
    return PMVP_OK;
}

/* With FEAT_PMUv3_EXTPMN, what a Warm reset leaves as it was (D24.5: these
 * fields reset "On a Cold reset, when FEAT_PMUv3_EXTPMN is implemented"),
 * so that the counters of an external agent survive the PE's reset: every
 * counter with its filter (and the divider PMCCNTR's count goes with), the
 * snapshot registers, and the P<n> and C bits of the enables and overflow
 * flags. F0 of those resets to 0, as do PMCR, PMSELR, PMUSERENR, PMUACR,
 * PMECR, PMIAR and PMSSCR. */
static void keep_cold_reset_state(pmvp_pmu *u, const pmvp_pmu *before)
{
    memcpy(u->counter, before->counter, sizeof u->counter); /* PMEVCNTR, PMEVTYPER, PMICNTR */
    u->pmccntr = before->pmccntr;
    u->divider = before->divider;
    u->pmccfiltr = before->pmccfiltr;
    u->pmicfiltr = before->pmicfiltr;
    memcpy(u->evcntsvr, before->evcntsvr, sizeof u->evcntsvr);
    u->ccntsvr = before->ccntsvr;
    u->icntsvr = before->icntsvr;
    u->cntenset = before->cntenset & ~PMVP_PMU_F0;
    u->intenset = before->intenset & ~PMVP_PMU_F0;
    u->ovsset = before->ovsset & ~PMVP_PMU_F0;
}

int pmvp_pmu_reset(pmvp_core *c, unsigned p, pmvp_time now)
{
    int err = k_begin_pe(c, p, now);
    if (err)
        return err;
    pmvp_pe *pe = &c->pe[p];
    const pmvp_pmu before = pe->pmu;
    /* What is not a register (the knobs' state, the divider) to zero; the
     * EL2/EL3 controls are not PMU registers and stay. */
    pe->pmu = (pmvp_pmu){ .ctl = pe->pmu.ctl };
    pe->th_cp = 0;
    k_state_reset(c, pe, PMVP_SYSREG_PMU);
    if (c->cfg.feat_pmuv3_extpmn)
        keep_cold_reset_state(&pe->pmu, &before);
    for (unsigned n = 0; n < c->cfg.num_counters; n++)
        decode_event(c, &pe->pmu, n);
    /* The external frame's own state: PMLSR.SLK resets to locked (I5.3.41);
     * PMCCR only on a Cold reset. */
    pe->ext = (pmvp_pmu_ext){ .software_locked = c->cfg.pmu_software_lock, .pmccr = pe->ext.pmccr };
    k_ext_permissions(c, p);
    pe->frozen = k_frozen(c, pe);
    k_routes_stale(c);
    return PMVP_OK;
}
