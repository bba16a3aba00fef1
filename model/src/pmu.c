/* SPDX-License-Identifier: Apache-2.0 */
/* The PMUv3 register file of a PE (D24.5), over the counting rules. */
#include "pmvp/pmu.h"

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
    unsigned sel = (unsigned)PMVP_FIELD_GET(PMSELR_EL0_SEL, pe->pmu.pmselr);
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

/* PMEVTYPER<n> (D24.5.12): its implemented bits, and its event decoded. */
static void set_evtyper(pmvp_core *c, pmvp_pmu_counter *k, uint64_t value)
{
    k->evtyper = value & c->evtyper_mask;
    k->event = k_decode_event(c, (uint16_t)PMVP_FIELD_GET(PMEVTYPER_EL0_evtCount, k->evtyper), false);
}

static uint64_t read_pmcr(const pmvp_core *c, const pmvp_pe *pe)
{
    uint64_t v = pe->pmu.pmcr | PMVP_FIELD_PREP(PMCR_EL0_N, c->cfg.num_counters);
    if (!c->cfg.have_aarch32)
        v |= PMCR_EL0_LC; /* RES1 without AArch32 */
    if (!c->cfg.feat_pmuv3p7) { /* IMP RAZ from PMUv3p7 */
        v |= PMVP_FIELD_PREP(PMCR_EL0_IMP, c->cfg.pmcr_imp);
        if (c->cfg.pmcr_imp)
            v |= PMVP_FIELD_PREP(PMCR_EL0_IDCODE, c->cfg.pmcr_idcode);
    }
    return v;
}

int k_pmu_look(const pmvp_core *c, unsigned p, const pmvp_pe *pe, enum pmvp_pmu_reg reg, unsigned n,
               uint64_t *value)
{
    const pmvp_pmu *u = &pe->pmu;
    int sel;
    switch (reg) {
    case PMVP_PMECR_EL1: *value = u->pmecr; break;
    case PMVP_PMIAR_EL1: *value = u->pmiar; break;
    case PMVP_PMCR_EL0: *value = read_pmcr(c, pe); break;
    case PMVP_PMCNTENSET_EL0: case PMVP_PMCNTENCLR_EL0: *value = u->cntenset; break;
    case PMVP_PMINTENSET_EL1: case PMVP_PMINTENCLR_EL1: *value = u->intenset; break;
    case PMVP_PMOVSSET_EL0: case PMVP_PMOVSCLR_EL0: *value = u->ovsset; break;
    case PMVP_PMSWINC_EL0: *value = 0; break; /* WO/RAZ */
    case PMVP_PMSELR_EL0: *value = u->pmselr; break;
    case PMVP_PMCEID0_EL0: *value = pmceid(c, 0x00); break;
    case PMVP_PMCEID1_EL0: *value = pmceid(c, 0x20); break;
    case PMVP_PMCCNTR_EL0: *value = u->pmccntr; break;
    case PMVP_PMCCFILTR_EL0: *value = u->pmccfiltr; break;
    case PMVP_PMUSERENR_EL0: *value = u->pmuserenr; break;
    case PMVP_PMMIR_EL1: *value = c->cfg.pmmir; break;
    case PMVP_PMEVCNTR_EL0: *value = u->counter[n].value; break;
    case PMVP_PMEVTYPER_EL0: *value = u->counter[n].evtyper; break;
    case PMVP_PMXEVTYPER_EL0:
        sel = selected(c, p, pe, true);
        *value = sel < 0 ? 0 : sel == PMVP_CYCLE_COUNTER ? u->pmccfiltr : u->counter[sel].evtyper;
        break;
    case PMVP_PMXEVCNTR_EL0:
        sel = selected(c, p, pe, false);
        *value = sel < 0 ? 0 : u->counter[sel].value;
        break;
    default: return PMVP_ERR_REGISTER;
    }
    return PMVP_OK;
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

/* A direct write of counter `which` (31: PMCCNTR) starts a new stretch
 * for the inaccuracy knobs. */
static void set_counter(pmvp_core *c, unsigned p, unsigned which, uint64_t value)
{
    pmvp_pmu *u = &c->pe[p].pmu;
    if (which == PMVP_CYCLE_COUNTER) {
        u->pmccntr = value;
        u->divider = 0;
    } else {
        u->counter[which].value = value & c->counter_mask;
    }
    u->slack[which].base = which == PMVP_CYCLE_COUNTER ? u->pmccntr : u->counter[which].value;
}

/* PMIAR_EL1.ADDRESS: [1:0] RES0, [63:48] RESS (no FEAT_LVA). */
uint64_t k_pmiar_address(uint64_t va)
{
    uint64_t low = va & PMVP_BITS(47, 2);
    return (va >> 47 & 1) ? low | PMVP_BITS(63, 48) : low;
}

int pmvp_pmu_read(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, pmvp_time now,
                  uint64_t *value)
{
    if (!value)
        return PMVP_ERR_NULL;
    int err = begin_access(c, p, reg, n, false, now);
    return err ? err : k_pmu_read(c, p, reg, n, now, value);
}

int pmvp_pmu_peek(const pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, pmvp_time t,
                  uint64_t *value)
{
    if (!value)
        return PMVP_ERR_NULL;
    int err = k_look_begin(c, p, PMVP_SYSREG_PMU, (unsigned)reg, n, t);
    if (err)
        return err;
    pmvp_pe at;
    k_pe_at(c, p, t, &at);
    return k_pmu_look(c, p, &at, reg, n, value);
}

void k_pmcr_p_reset(pmvp_core *c, unsigned p, unsigned accessible)
{
    for (unsigned n = 0; n < accessible; n++)
        set_counter(c, p, n, 0);
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
        if ((bits >> n & 1) && k_counter_event(pe, n) == PMVP_EV_SW_INCR &&
            k_counts(c, p, n, &pe->ctx))
            k_counter_add(c, p, pe, n, 1);
    }
}

/* The registers whose writes change which counters a report reaches:
 * enables and event types (D13.5). */
static bool routes_depend_on(enum pmvp_pmu_reg reg)
{
    switch (reg) {
    case PMVP_PMCR_EL0: case PMVP_PMCNTENSET_EL0: case PMVP_PMCNTENCLR_EL0:
    case PMVP_PMEVTYPER_EL0: case PMVP_PMXEVTYPER_EL0:
        return true;
    default:
        return false;
    }
}

int k_pmu_write(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, uint64_t value)
{
    pmvp_pmu *u = &c->pe[p].pmu;
    uint32_t bits = ((uint32_t)value & k_counters_mask(c)) | ((uint32_t)value & (uint32_t)PMVP_PMU_C);
    uint32_t enabled = k_enabled_counters(c, &c->pe[p]);
    int sel;
    switch (reg) {
    case PMVP_PMCR_EL0:
        u->pmcr = value & c->pmcr_mask;
        if (value & PMCR_EL0_P) {  /* in the view of the PE's context */
            const pmvp_pe *pe = &c->pe[p];
            k_pmcr_p_reset(c, p, k_counters_accessible(&c->cfg, pe->ctx.el, k_pe_el2_enabled(c, p),
                                                       pe->pmu.ctl.mdcr_el2));
        }
        if (value & PMCR_EL0_C) /* the divider restarts with the counter (a pmvp choice) */
            set_counter(c, p, PMVP_CYCLE_COUNTER, 0);
        break;
    case PMVP_PMCNTENSET_EL0: u->cntenset |= bits; break;
    case PMVP_PMCNTENCLR_EL0: u->cntenset &= ~bits; break;
    case PMVP_PMINTENSET_EL1: u->intenset |= bits; break;
    case PMVP_PMINTENCLR_EL1: u->intenset &= ~bits; break;
    case PMVP_PMOVSSET_EL0: u->ovsset |= bits; break;
    case PMVP_PMOVSCLR_EL0:
        u->ovsset &= ~bits;
        u->shadowed &= ~bits; /* knob (a): the overflow software cleared has no shadow left */
        break;
    case PMVP_PMSWINC_EL0: software_increment(c, p, value); break;
    case PMVP_PMSELR_EL0: u->pmselr = (uint32_t)(value & PMSELR_EL0_SEL); break;
    case PMVP_PMCCNTR_EL0: set_counter(c, p, PMVP_CYCLE_COUNTER, value); break;
    case PMVP_PMCCFILTR_EL0: u->pmccfiltr = value & c->ccfiltr_mask; break;
    case PMVP_PMUSERENR_EL0: u->pmuserenr = value & (PMUSERENR_EL0_EN | PMUSERENR_EL0_SW | PMUSERENR_EL0_CR | PMUSERENR_EL0_ER); break;
    case PMVP_PMEVCNTR_EL0: set_counter(c, p, n, value); break;
    case PMVP_PMEVTYPER_EL0: set_evtyper(c, &u->counter[n], value); break;
    case PMVP_PMXEVTYPER_EL0:
        sel = selected(c, p, &c->pe[p], true);
        if (sel == PMVP_CYCLE_COUNTER)
            u->pmccfiltr = value & c->ccfiltr_mask;
        else if (sel >= 0)
            set_evtyper(c, &u->counter[sel], value);
        break;
    case PMVP_PMXEVCNTR_EL0:
        sel = selected(c, p, &c->pe[p], false);
        if (sel >= 0)
            set_counter(c, p, (unsigned)sel, value);
        break;
    case PMVP_PMECR_EL1: u->pmecr = value & (PMECR_EL1_PMEE | PMECR_EL1_KPME); break;
    case PMVP_PMIAR_EL1: u->pmiar = k_pmiar_address(value); break;
    default: return PMVP_ERR_REGISTER;
    }
    if (routes_depend_on(reg))
        k_routes_stale(c);
    k_boundary(c, p, enabled ^ k_enabled_counters(c, &c->pe[p]));
    k_reads_catch_up(c, p);
    return PMVP_OK;
}

int pmvp_pmu_write(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, uint64_t value,
                   pmvp_time now)
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
    *level = k_irq_level(c, p);
    return PMVP_OK;
}

int pmvp_pmu_reset(pmvp_core *c, unsigned p, pmvp_time now)
{
    int err = k_begin_pe(c, p, now);
    if (err)
        return err;
    pmvp_pmu *u = &c->pe[p].pmu;
    pmvp_pmu_controls keep = u->ctl; /* EL2/EL3 controls are not PMU registers */
    *u = (pmvp_pmu){ .ctl = keep };
    for (unsigned n = 0; n < c->cfg.num_counters; n++)
        set_evtyper(c, &u->counter[n], 0);
    /* The external frame's own state: PMLSR.SLK resets to locked (I5.3.41). */
    c->pe[p].ext = (pmvp_pmu_ext){ .software_locked = c->cfg.pmu_software_lock };
    k_routes_stale(c);
    return PMVP_OK;
}
