/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What counts when: enables, prohibition, filtering, multithreading (D13.5,
 * D13.6, D13.7, D14.4), the lazy advance of every counter over a stretch of
 * time in which nothing changed, and the prediction of the next overflow.
 *
 * Between two calls the state of the core is constant, so each counter
 * increments at a constant rate per cycle of one clock (the processor clock,
 * every T-th processor cycle for a barrel thread, the bus clock or the System
 * Counter). Advancing a counter is one multiplication, predicting its overflow
 * one division: no loop runs per cycle.
 */
#include <stddef.h>
#include <string.h>

#include "clocks.h"
#include "count.h"

/* ------------------------------------------------------------ small rules */

static bool is_v3p1(const pmvp_core *c)
{
    return c->cfg.pmu_version >= PMVP_PMUV3P1;
}
static bool is_v3p5(const pmvp_core *c)
{
    return c->cfg.pmu_version >= PMVP_PMUV3P5;
}

/* The event counter ranges (D13.1.1): the first [0, hpmn), the second
 * [hpmn, epmn), the third [epmn, N). */

unsigned k_epmn_of(const pmvp_core_config *cfg, uint64_t pmccr)
{
    if (!cfg->feat_pmuv3_extpmn)
        return cfg->num_counters; /* no third range */
    unsigned e = (unsigned)PMVP_FIELD_GET(PMVP_PMCCR_EPMN, pmccr);
    /* EPMN > N is reserved, its Effective value CONSTRAINED UNPREDICTABLE
     * (at most N): pmvp takes N. */
    return e > cfg->num_counters ? cfg->num_counters : e;
}

unsigned k_epmn(const pmvp_core *c, const pmvp_pe *pe)
{
    return k_epmn_of(&c->cfg, pe->ext.pmccr);
}

unsigned k_hpmn_of(const pmvp_core_config *cfg, uint64_t mdcr_el2, unsigned epmn)
{
    if (!cfg->have_el2)
        return epmn; /* no second range */
    unsigned h = (unsigned)PMVP_FIELD_GET(PMVP_MDCR_EL2_HPMN, mdcr_el2);
    /* MFYQC: above EPMN, the Effective value is EPMN. Without
     * FEAT_PMUv3_EXTPMN, HPMN > N is CONSTRAINED UNPREDICTABLE; pmvp treats
     * it as N (logged by pmvp_core_set_controls). HPMN == 0 without
     * FEAT_HPMN0 is used as 0. */
    return h > epmn ? epmn : h;
}

unsigned k_hpmn(const pmvp_core *c, const pmvp_pe *pe)
{
    return k_hpmn_of(&c->cfg, pe->pmu.ctl.mdcr_el2, k_epmn(c, pe));
}

unsigned k_range_of(const pmvp_core *c, const pmvp_pe *pe, unsigned n)
{
    return n >= k_epmn(c, pe) ? 2 : n >= k_hpmn(c, pe) ? 1 : 0;
}

uint16_t k_counter_event(const pmvp_pe *pe, unsigned n)
{
    return (uint16_t)PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_evtCount, pe->pmu.counter[n].evtyper);
}

/* EL3 (and, without FEAT_RME, every Secure EL) is "Secure state" for the
 * prohibition and cycle-counter rules written before FEAT_RME. */
static bool in_secure_state(const pmvp_core *c, const pmvp_context *x)
{
    return x->security == PMVP_SECURE || (x->el == 3 && !c->cfg.feat_rme);
}

bool k_el2_enabled(const pmvp_core_config *cfg, unsigned security, uint64_t scr_el3)
{
    if (!cfg->have_el2)
        return false;
    if (!cfg->have_el3)
        return true;
    switch (security) {
    case PMVP_NONSECURE:
    case PMVP_REALM: return true;
    case PMVP_SECURE: return cfg->feat_sel2 && !cfg->el3_aarch32 && (scr_el3 & PMVP_SCR_EL3_EEL2);
    default: return false;
    }
}

bool k_pe_el2_enabled(const pmvp_core *c, unsigned p)
{
    const pmvp_pe *pe = &c->pe[p];
    return k_el2_enabled(&c->cfg, pe->ctx.security, pe->pmu.ctl.scr_el3);
}

unsigned k_counters_accessible(const pmvp_core_config *cfg, unsigned el, bool el2_enabled, uint64_t mdcr_el2,
                               uint64_t pmccr)
{
    unsigned epmn = k_epmn_of(cfg, pmccr);
    return el <= 1 && el2_enabled ? k_hpmn_of(cfg, mdcr_el2, epmn) : epmn;
}

/* Counting of events Attributable to `x` is prohibited by the controls of
 * the counting PE (D13.5.4: RJRYNM, RJDWFF, RGNGCW, RMMZLZ). */
static bool prohibited(const pmvp_core *c, const pmvp_pmu_controls *ctl, bool second_range, const pmvp_context *x)
{
    const pmvp_core_config *cfg = &c->cfg;
    bool at_el3 = x->el == 3;

    if (cfg->have_el3 && (at_el3 || x->security == PMVP_SECURE)) {
        bool spme = ctl->mdcr_el3 & PMVP_MDCR_EL3_SPME;
        bool suniden =
            x->el == 0 && (cfg->el3_aarch32 || cfg->el1_aarch32) && (ctl->sder32_el3 & PMVP_SDER32_EL3_SUNIDEN);
        bool allowed;
        if (cfg->feat_pmuv3p7 && !cfg->el3_aarch32) {
            /* RGNGCW with EL3 using AArch64. */
            bool mpmx = ctl->mdcr_el3 & PMVP_MDCR_EL3_MPMX;
            if (at_el3)
                allowed = spme && (!mpmx || second_range);
            else
                allowed = spme || mpmx || suniden;
        } else {
            /* RJRYNM (authentication interface) before FEAT_Debugv8p2;
             * RJDWFF after it; RGNGCW with EL3 using AArch32. */
            bool auth = !cfg->feat_pmuv3p7 && !cfg->feat_debugv8p2 && ctl->secure_noninvasive_debug;
            allowed = spme || suniden || auth;
        }
        if (!allowed)
            return true;
    }
    /* RMMZLZ: EL2, unless the counter is in the second range. Secure EL2 is
     * allowed only when both Secure state and EL2 are, which the two checks
     * together give. */
    if (cfg->have_el2 && x->el == 2 && is_v3p1(c) && (ctl->mdcr_el2 & PMVP_MDCR_EL2_HPMD) && !second_range)
        return true;
    return false;
}

/* PMEVTYPER<n> or PMCCFILTR filters out context `x` (D24.5.1, D24.5.12).
 * Unimplemented filter bits are kept 0, which makes each formula hold for
 * every configuration (e.g. NSU is 0 without EL3, so U alone decides). */
static bool filtered(uint64_t f, const pmvp_context *x)
{
    bool p = f & PMVP_PMEVTYPER_EL0_P, u = f & PMVP_PMEVTYPER_EL0_U;
    bool nsk = f & PMVP_PMEVTYPER_EL0_NSK, nsu = f & PMVP_PMEVTYPER_EL0_NSU;
    bool nsh = f & PMVP_PMEVTYPER_EL0_NSH, m = f & PMVP_PMEVTYPER_EL0_M;
    bool sh = f & PMVP_PMEVTYPER_EL0_SH;
    bool rlk = f & PMVP_PMEVTYPER_EL0_RLK, rlu = f & PMVP_PMEVTYPER_EL0_RLU, rlh = f & PMVP_PMEVTYPER_EL0_RLH;

    switch (x->el) {
    case 0: return x->security == PMVP_SECURE ? u : x->security == PMVP_REALM ? u != rlu : u != nsu;
    case 1: return x->security == PMVP_SECURE ? p : x->security == PMVP_REALM ? p != rlk : p != nsk;
    case 2: return x->security == PMVP_SECURE ? nsh == sh : x->security == PMVP_REALM ? nsh == rlh : !nsh;
    default: return m != p;
    }
}

/* Table D13-4: PMCNTENSET.P<n> and the global enable of n's range. */
static bool counter_enabled(const pmvp_core *c, const pmvp_pe *pe, unsigned n)
{
    if (!(pe->pmu.cntenset >> n & 1))
        return false;
    switch (k_range_of(c, pe, n)) {
    case 0: return pe->pmu.pmcr & PMVP_PMCR_EL0_E;
    case 1: return pe->pmu.ctl.mdcr_el2 & PMVP_MDCR_EL2_HPME;
    default: return pe->ext.pmccr & PMVP_PMCCR_EPME;
    }
}

bool k_counts(const pmvp_core *c, unsigned p, unsigned n, const pmvp_context *src)
{
    const pmvp_pe *pe = &c->pe[p];
    if (pe->state == PMVP_PE_OFF || !counter_enabled(c, pe, n))
        return false;
    if (src->halted) /* Table D13-3: Debug state */
        return false;
    if (pe->frozen >> n & 1) /* D13.5.2.1 */
        return false;
    /* D13.5.4: MDCR_EL3.SPME, MPMX and MDCR_EL2.HPMD do not prohibit the
     * third range, which observes every Security state. */
    unsigned range = k_range_of(c, pe, n);
    if (range < 2 && prohibited(c, &pe->pmu.ctl, range == 1, src))
        return false;
    return !filtered(pe->pmu.counter[n].evtyper, src);
}

bool k_cycle_counter_counts(const pmvp_core *c, unsigned p)
{
    const pmvp_pe *pe = &c->pe[p];
    const pmvp_context *x = &pe->ctx;
    const pmvp_pmu_controls *ctl = &pe->pmu.ctl;

    if (pe->state == PMVP_PE_OFF)
        return false;
    if ((pe->state == PMVP_PE_WFI || pe->state == PMVP_PE_WFE) && !c->cfg.pmccntr_counts_in_wfx)
        return false;
    if (!(pe->pmu.pmcr & PMVP_PMCR_EL0_E) || !(pe->pmu.cntenset & PMVP_PMU_C) || x->halted)
        return false;
    /* PMCR.DP: disabled where first-range event counting is prohibited, and
     * while it is frozen (k_frozen sets bit 31 only with DP). */
    if ((pe->pmu.pmcr & PMVP_PMCR_EL0_DP) && prohibited(c, ctl, false, x))
        return false;
    if (pe->frozen & PMVP_PMU_C)
        return false;
    if (is_v3p5(c)) {
        if (c->cfg.have_el3 && in_secure_state(c, x) && (ctl->mdcr_el3 & PMVP_MDCR_EL3_SCCD))
            return false;
        if (c->cfg.have_el2 && x->el == 2 && (ctl->mdcr_el2 & PMVP_MDCR_EL2_HCCD))
            return false;
    }
    if (c->cfg.feat_pmuv3p7 && x->el == 3 && !c->cfg.el3_aarch32 &&
        (ctl->mdcr_el3 & (PMVP_MDCR_EL3_SCCD | PMVP_MDCR_EL3_MCCD)))
        return false;
    return !filtered(pe->pmu.pmccfiltr, x);
}

/* Whether the instruction counter of PE p counts the instructions it
 * retires in context `src` (FEAT_PMUv3_ICNTR): PMCR.E and PMCNTENSET.F0
 * enable it (D13.5.1.3); it is prohibited as the first range is (RCSRMB),
 * frozen with it (RMZPBW) and filtered by PMICFILTR_EL0 as PMEVTYPER<n>
 * filters (D24.5.14). It counts only its own PE's instructions. */
bool k_instruction_counter_counts(const pmvp_core *c, unsigned p, const pmvp_context *src)
{
    const pmvp_pe *pe = &c->pe[p];
    if (pe->state == PMVP_PE_OFF || !(pe->pmu.pmcr & PMVP_PMCR_EL0_E) || !(pe->pmu.cntenset & PMVP_PMU_F0))
        return false;
    if (src->halted || (pe->frozen & PMVP_PMU_F0))
        return false;
    return !prohibited(c, &pe->pmu.ctl, false, src) && !filtered(pe->pmu.pmicfiltr, src);
}

/* FEAT_MTPMU enabled for PE p: MDCR_EL3.MTPME if EL3, else MDCR_EL2.MTPME if
 * EL2 (D13.6). */
static bool mtpmu_enabled_on(const pmvp_core *c, const pmvp_pe *pe)
{
    if (c->cfg.have_el3)
        return pe->pmu.ctl.mdcr_el3 & PMVP_MDCR_EL3_MTPME;
    if (c->cfg.have_el2)
        return pe->pmu.ctl.mdcr_el2 & PMVP_MDCR_EL2_MTPME;
    return true;
}

bool k_effective_mt(const pmvp_core *c, unsigned p, unsigned n)
{
    if (!(c->pe[p].pmu.counter[n].evtyper & PMVP_PMEVTYPER_EL0_MT))
        return false; /* also RES0 without FEAT_MTPMU */
    if (!c->cfg.mtpmu_disable_core_wide)
        return mtpmu_enabled_on(c, &c->pe[p]);
    for (unsigned q = 0; q < c->cfg.num_pes; q++)
        if (!mtpmu_enabled_on(c, &c->pe[q]))
            return false;
    return true;
}

bool k_counter_is_long(const pmvp_core *c, const pmvp_pe *pe, unsigned n)
{
    if (!is_v3p5(c))
        return false;
    switch (k_range_of(c, pe, n)) {
    case 0: return pe->pmu.pmcr & PMVP_PMCR_EL0_LP;
    case 1: return pe->pmu.ctl.mdcr_el2 & PMVP_MDCR_EL2_HLP;
    default: return true; /* D13.3: the third range overflows at bit 63 */
    }
}

uint64_t k_enabled_counters(const pmvp_core *c, const pmvp_pe *pe)
{
    uint64_t m = 0;
    for (unsigned n = 0; n < c->cfg.num_counters; n++)
        if (counter_enabled(c, pe, n))
            m |= UINT32_C(1) << n;
    if (pe->pmu.pmcr & PMVP_PMCR_EL0_E)
        m |= pe->pmu.cntenset & (PMVP_PMU_C | PMVP_PMU_F0);
    return m;
}

uint64_t k_sync_mode(const pmvp_core *c, const pmvp_pe *pe)
{
    uint64_t m = 0;
    for (unsigned n = 0; n < c->cfg.num_counters; n++)
        if (pe->pmu.counter[n].evtyper & PMVP_PMEVTYPER_EL0_SYNC) /* RES0 without FEAT_SEBEP */
            m |= UINT64_C(1) << n;
    if (pe->pmu.pmicfiltr & PMVP_PMEVTYPER_EL0_SYNC) /* likewise; 0 without FEAT_PMUv3_ICNTR */
        m |= PMVP_PMU_F0;
    return m;
}

/* ------------------------------------------------------ freeze on overflow */

/* D13.5.2.1 (RMZPBW), FEAT_PMUv3p7: with PMCR.FZO set, an overflow flag of
 * the first range (of a counter not in synchronous mode, IDKYFT) freezes
 * the first range, and PMCCNTR with PMCR.DP; with MDCR_EL2.HPMFZO, one of
 * the second range freezes the second. The ranges are HPMN's whether or not
 * EL2 is enabled. The spec leaves it CONSTRAINED UNPREDICTABLE whether what
 * happens at about the instant of the overflow is counted; pmvp counts
 * what happens with it (every clock edge of its instant, on every counter;
 * the CHAIN counter above the one that overflowed; every counter of the
 * same report) and freezes the rest: an input (a report, a write) at the
 * instant of a clock edge comes after the edge. pmvp_pe.frozen holds the
 * freeze, so that the advance over a stretch reads the one of its start. */

/* The event counters of the first range (below HPMN) and of the second
 * (HPMN to EPMN); the freeze of the first range also holds the instruction
 * counter (F0), whose flag is one of the first range's freezing flags
 * (RMZPBW). The third range neither freezes nor is frozen (D13.5.2.1). */
static uint32_t first_range(const pmvp_core *c, const pmvp_pe *pe)
{
    return (uint32_t)((UINT64_C(1) << k_hpmn(c, pe)) - 1) & k_counters_mask(c);
}

static uint32_t second_range(const pmvp_core *c, const pmvp_pe *pe)
{
    return (uint32_t)((UINT64_C(1) << k_epmn(c, pe)) - 1) & ~first_range(c, pe);
}

/* The ranges whose freeze control is set: bit 0 the first (PMCR.FZO), bit
 * 1 the second (MDCR_EL2.HPMFZO). */
static unsigned freeze_controls(const pmvp_core *c, const pmvp_pe *pe)
{
    if (!c->cfg.feat_pmuv3p7)
        return 0;
    return ((pe->pmu.pmcr & PMVP_PMCR_EL0_FZO) ? 1u : 0u) |
           (c->cfg.have_el2 && (pe->pmu.ctl.mdcr_el2 & PMVP_MDCR_EL2_HPMFZO) ? 2u : 0u);
}

/* The counters of each range (index as freeze_controls' bits) whose flag
 * freezes it: those not in synchronous mode. */
static void freezing_flags(const pmvp_core *c, const pmvp_pe *pe, uint64_t range[2])
{
    uint64_t asynchronous = ~k_sync_mode(c, pe), first = first_range(c, pe);
    range[0] = (first | k_instruction_counter(c)) & asynchronous;
    range[1] = second_range(c, pe) & asynchronous;
}

uint64_t k_frozen(const pmvp_core *c, const pmvp_pe *pe)
{
    unsigned on = freeze_controls(c, pe);
    if (!on)
        return 0;
    uint64_t range[2], first = first_range(c, pe) | k_instruction_counter(c), frozen = 0;
    freezing_flags(c, pe, range);
    if ((on & 1) && (pe->pmu.ovsset & range[0]))
        frozen |= first | ((pe->pmu.pmcr & PMVP_PMCR_EL0_DP) ? PMVP_PMU_C : 0);
    if ((on & 2) && (pe->pmu.ovsset & range[1]))
        frozen |= second_range(c, pe);
    return frozen;
}

/* The counters of PE state pe whose overflow would freeze a range not yet
 * frozen ("armed"). */
static uint64_t freeze_sources(const pmvp_core *c, const pmvp_pe *pe)
{
    unsigned on = freeze_controls(c, pe);
    if (!on)
        return 0;
    uint64_t range[2], sources = 0;
    freezing_flags(c, pe, range);
    for (unsigned r = 0; r < 2; r++)
        if ((on >> r & 1) && !(pe->pmu.ovsset & range[r]))
            sources |= range[r];
    return sources;
}

void k_freeze_update(pmvp_core *c, unsigned p)
{
    pmvp_pe *pe = &c->pe[p];
    uint64_t frozen = k_frozen(c, pe);
    if (frozen == pe->frozen)
        return;
    pe->frozen = frozen;
    k_routes_stale(c);
}

/* Whether the rate of a counter of event d, counted with effective MT `mt`,
 * follows level input `level`: its own level, and for a STALL event counted
 * with MT == 1, the stall condition's too (any_pe_condition). With MT == 0
 * the stall condition decides nothing (counter_rate, amu_rate). */
static uint64_t levels_followed(const pmvp_event_decoded *d, bool mt)
{
    switch (d->cls) {
    case PMVP_EVCLASS_CONDITION:
    case PMVP_EVCLASS_PER_CYCLE: return UINT64_C(1) << d->level;
    case PMVP_EVCLASS_STALL: return UINT64_C(1) << d->level | (mt ? UINT64_C(1) << d->stall : 0);
    default: return 0;
    }
}

static bool follows_level(const pmvp_event_decoded *d, unsigned level, bool mt)
{
    return levels_followed(d, mt) >> level & 1;
}

/* The counters whose overflow can request PMUIRQ or the PMU exception
 * (D13.3.1, RKBPMJ): PMINTENSET, and the global enable of their range
 * (bit 31: PMCCNTR; bit 32: PMICNTR, enabled by PMCR.E). */
static uint64_t interrupt_requesters(const pmvp_core *c, const pmvp_pe *pe)
{
    uint32_t first = first_range(c, pe), second = second_range(c, pe);
    uint64_t ranges = 0;

    if (pe->pmu.pmcr & PMVP_PMCR_EL0_E)
        ranges |= first | PMVP_PMU_C | k_instruction_counter(c);
    if (pe->pmu.ctl.mdcr_el2 & PMVP_MDCR_EL2_HPME)
        ranges |= second;
    if (pe->ext.pmccr & PMVP_PMCCR_EPME)
        ranges |= k_counters_mask(c) & ~(first | second);
    return pe->pmu.intenset & ranges;
}

uint64_t k_overflow_requests(const pmvp_core *c, const pmvp_pe *pe)
{
    return pe->pmu.ovsset & interrupt_requesters(c, pe);
}

/* pmvp_core.levels_watched and events_watched, from every PE's counters
 * that can request an interrupt. */
static void watch_interrupts(pmvp_core *c)
{
    k_caches(c)->levels_watched = k_caches(c)->events_watched = 0;
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        const pmvp_pe *pe = &c->pe[p];
        uint64_t requesters = interrupt_requesters(c, pe);
        if (requesters & PMVP_PMU_F0)
            k_caches(c)->events_watched |= UINT64_C(1) << PMVP_EV_INST_RETIRED % 64;
        uint32_t req = (uint32_t)requesters & ~PMVP_PMU_C;
        /* An even counter feeds the CHAIN counter above it (D14.3). */
        for (uint32_t m = req | (req >> 1 & UINT32_C(0x55555555)); m;) {
            unsigned n = pmvp_take_lowest(&m);
            k_caches(c)->events_watched |= UINT64_C(1) << k_counter_event(pe, n) % 64;
            k_caches(c)->levels_watched |= levels_followed(&pe->pmu.event[n], k_effective_mt(c, p, n));
        }
    }
    k_caches(c)->watch_valid = true;
}

bool k_input_may_interrupt(pmvp_core *c, uint16_t event, int level)
{
    if (!k_caches(c)->watch_valid)
        watch_interrupts(c);
    return (level < 0 ? k_caches(c)->events_watched >> event % 64 : k_caches(c)->levels_watched >> level) & 1;
}

/* Table D13-1: what an overflow of PE p raises in its current context
 * (FEAT_EBEP, D13.3.2). */
int k_pmu_exception_of(const pmvp_core *c, unsigned p, uint8_t *target_el)
{
    if (target_el)
        *target_el = 0;
    if (!c->cfg.feat_ebep)
        return PMVP_PMUEXC_IRQ;
    const pmvp_pe *pe = &c->pe[p];
    const pmvp_context *x = &pe->ctx;
    const pmvp_pmu_controls *ctl = &pe->pmu.ctl;
    bool el2 = k_pe_el2_enabled(c, p);
    /* RGWLVY: a missing or disabled EL2, or EL3, leaves the choice below. */
    unsigned el3_pmee = c->cfg.have_el3 ? (unsigned)PMVP_FIELD_GET(PMVP_MDCR_EL3_PMEE, ctl->mdcr_el3) : PMVP_PMEE_LOWER;
    unsigned el2_pmee = el2 ? (unsigned)PMVP_FIELD_GET(PMVP_MDCR_EL2_PMEE, ctl->mdcr_el2) : PMVP_PMEE_LOWER;
    unsigned pmee, target;
    if (el3_pmee != PMVP_PMEE_LOWER) {
        pmee = el3_pmee;
        target = 3;
    } else if (el2_pmee != PMVP_PMEE_LOWER) {
        pmee = el2_pmee;
        target = 2;
    } else {
        pmee = (unsigned)PMVP_FIELD_GET(PMVP_PMECR_EL1_PMEE, pe->pmu.pmecr);
        target = el2 && (ctl->hcr_el2 & PMVP_HCR_EL2_TGE) ? 2 : 1;
        if (pmee == PMVP_PMEE_LOWER) /* reserved in PMECR_EL1: pmvp reads it as 0b00 */
            pmee = PMVP_PMEE_IRQ;
    }
    if (pmee == PMVP_PMEE_IRQ)
        return PMVP_PMUEXC_IRQ;
    if (pmee == PMVP_PMEE_DISABLED)
        return PMVP_PMUEXC_DISABLED;
    if (target_el)
        *target_el = (uint8_t)target;
    /* RSCBDZ */
    bool masked = x->halted || x->el > target || (x->el == 2 && target == 2 && el2_pmee != PMVP_PMEE_ENABLED) ||
                  (x->el == target && (x->pm || !(pe->pmu.pmecr & PMVP_PMECR_EL1_KPME)));
    return masked ? PMVP_PMUEXC_MASKED : PMVP_PMUEXC_UNMASKED;
}

bool k_irq_level(const pmvp_core *c, unsigned p, const pmvp_pe *pe)
{
    return k_overflow_requests(c, pe) && k_pmu_exception_of(c, p, NULL) == PMVP_PMUEXC_IRQ;
}

/* ------------------------------------------------------------- increments */

static void chain_feed(const pmvp_core *c, unsigned p, pmvp_pe *to, unsigned n, pmvp_u128 wraps);

void k_counter_carry(const pmvp_core *c, unsigned p, pmvp_pe *to, unsigned n, uint64_t old, pmvp_u128 inc)
{
    if (n == PMVP_ICNTR_SLOT) { /* RFBGFH: PMICNTR overflows at 2^64 only, into F0; no CHAIN */
        if (((pmvp_u128)old + inc) >> 64 != 0)
            to->pmu.ovsset |= PMVP_PMU_F0;
        return;
    }
    pmvp_u128 wraps32 = ((pmvp_u128)(old & UINT32_MAX) + inc) >> 32;
    if (!k_counter_is_long(c, to, n) || ((pmvp_u128)old + inc) >> 64 != 0)
        to->pmu.ovsset |= UINT32_C(1) << n;
    if (n % 2 == 0 && n + 1 < c->cfg.num_counters)
        chain_feed(c, p, to, n + 1, wraps32);
}

/* CHAIN (D14.3): odd counter n counts the [31:0] overflows of counter n-1,
 * unless n-1 overflows at bit 63 (PMUv3p5 with LP or HLP set). The counter
 * is enabled, prohibited and filtered as usual, with the counting PE's own
 * context; MT does not apply. */
static bool chain_counts(const pmvp_core *c, unsigned p, unsigned n)
{
    const pmvp_pe *pe = &c->pe[p];
    return n % 2 == 1 && k_counter_event(pe, n) == PMVP_EV_CHAIN && k_supported_class(c, PMVP_EV_CHAIN) >= 0 &&
           !k_counter_is_long(c, pe, n - 1) && k_counts(c, p, n, &pe->ctx);
}

static void chain_feed(const pmvp_core *c, unsigned p, pmvp_pe *to, unsigned n, pmvp_u128 wraps)
{
    /* `to` may be k_pe_at's copy, frozen after a split of its stretch. */
    if (!(to->frozen >> n & 1) && chain_counts(c, p, n))
        k_counter_add(c, p, to, n, wraps);
}

/* A counter's value before an add of `count` is its value after it less
 * `count`, in its width; the add carried out of bit 31 when the 32 bits it
 * left are below those of `count`, or when `count` has more. */
void k_counters_carried(pmvp_core *c, unsigned p, uint32_t which, uint64_t count)
{
    pmvp_pe *pe = &c->pe[p];
    while (which) {
        unsigned n = pmvp_take_lowest(&which);
        uint64_t now = pe->pmu.counter[n].value;
        if (count > UINT32_MAX || (uint32_t)now < (uint32_t)count)
            k_counter_carry(c, p, pe, n, (now - count) & c->counter_mask, count);
    }
}

void k_cycle_counter_add(pmvp_pe *pe, pmvp_u128 inc)
{
    uint64_t old = pe->pmu.pmccntr;
    bool overflow = (pe->pmu.pmcr & PMVP_PMCR_EL0_LC) ? ((pmvp_u128)old + inc) >> 64 != 0
                                                      : ((pmvp_u128)(old & UINT32_MAX) + inc) >> 32 != 0;
    pe->pmu.pmccntr = (uint64_t)(old + inc);
    if (overflow)
        pe->pmu.ovsset |= PMVP_PMU_C;
}

/* ------------------------------------------------------------------ rates */

/* Which clock a counter's increments follow during a constant stretch. */
enum source { SRC_NONE, SRC_PROC, SRC_PROC_SLOT, SRC_BUS, SRC_SYSCNT };

/* A rate as count.c computes it; k_packed_rate is its packed form in the caches. */
typedef struct rate {
    uint8_t src;     /* enum source */
    uint8_t slot;    /* SRC_PROC_SLOT's barrel thread */
    uint64_t weight; /* increments a counted cycle brings: below 2^37 */
} rate;

static const rate no_rate = { SRC_NONE, 0, 0 };

static k_packed_rate packed_rate(rate r)
{
    return (k_packed_rate){ r.weight << 16 | (uint64_t)r.slot << 8 | r.src };
}

static rate cached_rate(k_packed_rate p)
{
    return (rate){ (uint8_t)p.packed, (uint8_t)(p.packed >> 8), p.packed >> 16 };
}

static bool in_wfx(const pmvp_pe *pe)
{
    return pe->state == PMVP_PE_WFI || pe->state == PMVP_PE_WFE;
}

/* Processor cycles on which PE p is active and CPU_CYCLES with MT == 0
 * counts (D14.4.1). */
static rate active_cycles(const pmvp_core *c, unsigned p)
{
    const pmvp_pe *pe = &c->pe[p];
    if (pe->state == PMVP_PE_OFF)
        return no_rate;
    if (in_wfx(pe) && !(c->cfg.wfx_thread_active && c->cfg.cpu_cycles_in_wfx))
        return no_rate;
    switch (c->cfg.mt_policy) {
    case PMVP_MT_FGMT: return (rate){ SRC_PROC_SLOT, p, 1 };
    case PMVP_MT_SOEMT: return p == c->active_thread ? (rate){ SRC_PROC, 0, 1 } : no_rate;
    default: return (rate){ SRC_PROC, 0, 1 };
    }
}

/* MT == 1 (D14.4.1): does some PE q, not in WFI/WFE, satisfy event d (and
 * counter n of PE p count events Attributable to q)? For STALL events, the
 * stall condition must in addition hold on every such PE. */
static bool any_pe_condition(const pmvp_core *c, unsigned p, unsigned n, const pmvp_event_decoded *d)
{
    bool any = false;
    for (unsigned q = 0; q < c->cfg.num_pes; q++) {
        const pmvp_pe *pq = &c->pe[q];
        if (pq->state != PMVP_PE_RUN)
            continue;
        if (d->cls == PMVP_EVCLASS_STALL && !pq->level[d->stall])
            return false;
        bool holds = d->cls == PMVP_EVCLASS_CPU_CYCLES || pq->level[d->level];
        if (holds && k_counts(c, p, n, &pq->ctx))
            any = true;
    }
    return any;
}

/* Whether event counter n of PE p counts in p's own context: from the cache
 * while it is valid, so that a level change, which computes its followers'
 * rates again, does not evaluate their filters again. */
static bool counts_own(const pmvp_core *c, unsigned p, unsigned n)
{
    const pmvp_pe *pe = &c->pe[p];
    return k_caches(c)->own_counts_valid ? k_pe_caches(pe)->own_counts >> n & 1 : k_counts(c, p, n, &pe->ctx);
}

/* The occurrences of `event` that PE q's batches put on each processor
 * cycle now (pmvp_core_report_batches). */
static uint64_t spread_of(const pmvp_core *c, unsigned q, uint16_t event)
{
    uint64_t w = 0;
    for (unsigned i = 0; i < k_caches(c)->num_spread; i++)
        if (k_caches(c)->spread[i].pe == q && k_caches(c)->spread[i].event == event)
            w += k_caches(c)->spread[i].per_cycle;
    return w;
}

/* Batches' spreads (pmvp_core_report_batches): occurrences on every
 * processor cycle, counted as a PER_CYCLE level of their PE is: by its own
 * counters of the event, and with MT == 1 by the others' that count in its
 * context, summed over the PEs. */
static rate spread_rate(const pmvp_core *c, unsigned p, unsigned n)
{
    if (!k_caches(c)->num_spread)
        return no_rate;
    uint16_t event = k_counter_event(&c->pe[p], n);
    bool mt = k_effective_mt(c, p, n);
    uint64_t w = 0;
    for (unsigned q = 0; q < c->cfg.num_pes; q++) {
        uint64_t v = q == p || mt ? spread_of(c, q, event) : 0;
        if (v && (q == p ? counts_own(c, p, n) : k_counts(c, p, n, &c->pe[q].ctx)))
            w += v;
    }
    return w ? (rate){ SRC_PROC, 0, w } : no_rate;
}

/* The rate of event counter n of PE p, counted with MT == 0, on the
 * cycles its event holds: CPU_CYCLES', or a level event's with its level at
 * 1 (level_rate). */
static rate held_rate(const pmvp_core *c, unsigned p, unsigned n)
{
    const pmvp_pe *pe = &c->pe[p];
    if (!counts_own(c, p, n))
        return no_rate;
    if (pe->pmu.event[n].cls == PMVP_EVCLASS_PER_CYCLE)
        return pe->state != PMVP_PE_OFF ? (rate){ SRC_PROC, 0, 1 } : no_rate;
    return active_cycles(c, p);
}

/* The rate of a counter of a level event of its own PE, counted with
 * MT == 0, while the level's value is `value`, from its held_rate: a
 * CONDITION or STALL event counts each cycle on which it holds, a PER_CYCLE
 * event its value a cycle (D14.4.1). A level change's followers keep their
 * held rates (level_followers). */
static rate level_rate(rate held, bool per_cycle, uint32_t value)
{
    if (!value || !held.weight)
        return no_rate;
    return per_cycle ? (rate){ held.src, held.slot, held.weight * value } : held;
}

static rate counter_rate(const pmvp_core *c, unsigned p, unsigned n)
{
    const pmvp_pe *pe = &c->pe[p];
    const pmvp_event_decoded *d = &pe->pmu.event[n];
    bool mt = k_effective_mt(c, p, n);

    switch (d->cls) {
    case PMVP_EVCLASS_CPU_CYCLES:
    case PMVP_EVCLASS_CONDITION:
    case PMVP_EVCLASS_STALL:
        if (mt)
            return any_pe_condition(c, p, n, d) ? (rate){ SRC_PROC, 0, 1 } : no_rate;
        if (d->cls == PMVP_EVCLASS_CPU_CYCLES)
            return held_rate(c, p, n);
        return level_rate(held_rate(c, p, n), false, pe->level[d->level]);
    case PMVP_EVCLASS_PER_CYCLE: {
        if (!mt)
            return level_rate(held_rate(c, p, n), true, pe->level[d->level]);
        uint64_t w = 0;
        for (unsigned q = 0; q < c->cfg.num_pes; q++) {
            const pmvp_pe *pq = &c->pe[q];
            if (pq->state != PMVP_PE_OFF && (q == p ? counts_own(c, p, n) : k_counts(c, p, n, &pq->ctx)))
                w += pq->level[d->level];
        }
        return w ? (rate){ SRC_PROC, 0, w } : no_rate;
    }
    case PMVP_EVCLASS_BUS_CLOCK: return counts_own(c, p, n) ? (rate){ SRC_BUS, 0, 1 } : no_rate;
    case PMVP_EVCLASS_SYSTEM_COUNTER: return counts_own(c, p, n) ? (rate){ SRC_SYSCNT, 0, 1 } : no_rate;
    case PMVP_EVCLASS_OCCURRENCE: return spread_rate(c, p, n); /* else counted from reports */
    default: return no_rate;                                   /* not supported */
    }
}

/* Processor cycles k in [1, x] that belong to barrel thread s of T. */
static uint64_t slot_cycles_upto(uint64_t x, unsigned s, unsigned t)
{
    return x > s ? (x - s - 1) / t + 1 : 0;
}

/* The instructions that batches' spreads of INST_RETIRED put on each
 * processor cycle for the instruction counter of PE p, which counts its own
 * PE's instructions while enabled and not frozen
 * (k_instruction_counter_counts): 0 when it counts none. */
static uint64_t icntr_spread(const pmvp_core *c, unsigned p)
{
    if (!k_caches(c)->num_spread || !c->cfg.feat_pmuv3_icntr || !k_instruction_counter_counts(c, p, &c->pe[p].ctx))
        return 0;
    return spread_of(c, p, PMVP_EV_INST_RETIRED);
}

/* Stretch of time being advanced: cycles of each clock. */
typedef struct stretch {
    uint64_t k0, dk; /* processor cycles before, and in, the stretch */
    uint64_t db, ds; /* bus-clock and System Counter cycles in it */
    uint64_t edges;  /* processor clock edges at its end, counted or not */
} stretch;

static pmvp_u128 increments(const pmvp_core *c, rate r, const stretch *s)
{
    uint64_t cycles;
    switch (r.src) {
    case SRC_PROC: cycles = s->dk; break;
    case SRC_PROC_SLOT:
        cycles =
            slot_cycles_upto(s->k0 + s->dk, r.slot, c->cfg.num_pes) - slot_cycles_upto(s->k0, r.slot, c->cfg.num_pes);
        break;
    case SRC_BUS: cycles = s->db; break;
    case SRC_SYSCNT: cycles = s->ds; break;
    default: return 0;
    }
    return (pmvp_u128)cycles * r.weight;
}

/* Stretch s as a counter ahead of the core sees it (pmvp_pe.ahead): from
 * `since`, where its rate's source stood when a level change brought it up
 * to date, to the end of s. */
static stretch stretch_since(const pmvp_core *c, rate r, const stretch *s, uint64_t since)
{
    stretch own = *s;
    switch (r.src) {
    case SRC_BUS: own.db = c->bus_edges + s->db - since; break;
    case SRC_SYSCNT: own.ds = c->syscnt_edges + s->ds - since; break;
    default:
        own.k0 = since;
        own.dk = s->k0 + s->dk - since;
        break;
    }
    return own;
}

/* Where source `src` stands at the end of stretch s, in its units:
 * processor cycles counted, or the bus clock's or System Counter's edges. */
static uint64_t source_at(const pmvp_core *c, unsigned src, const stretch *s)
{
    switch (src) {
    case SRC_BUS: return c->bus_edges + s->db;
    case SRC_SYSCNT: return c->syscnt_edges + s->ds;
    default: return s->k0 + s->dk;
    }
}

/* The increments over stretch s of a counter with rate r that stands at the
 * core's sync, or, `ahead`, at `since`. */
static pmvp_u128 increments_from(const pmvp_core *c, rate r, const stretch *s, bool ahead, uint64_t since)
{
    if (!ahead)
        return increments(c, r, s);
    stretch own = stretch_since(c, r, s, since);
    return increments(c, r, &own);
}

/* The processor clock stops while every PE is off, or, if so configured,
 * while every PE is in WFI, WFE or off (D14.4). */
bool k_clock_stopped(const pmvp_core *c)
{
    bool all_off = true, all_idle = true;
    for (unsigned q = 0; q < c->cfg.num_pes; q++) {
        all_off &= c->pe[q].state == PMVP_PE_OFF;
        all_idle &= c->pe[q].state != PMVP_PE_RUN;
    }
    return all_off || (c->cfg.clock_stops_in_wfx && all_idle);
}

static bool divided(const pmvp_core *c, const pmvp_pe *pe)
{
    return c->cfg.have_aarch32 && !(pe->pmu.pmcr & PMVP_PMCR_EL0_LC) && (pe->pmu.pmcr & PMVP_PMCR_EL0_D);
}

/* PMCCNTR over a stretch of dk processor cycles, through the PMCR.D divider. */
static void advance_cycle_counter(const pmvp_core *c, pmvp_pe *pe, uint64_t dk, bool counts)
{
    if (!divided(c, pe)) {
        if (counts)
            k_cycle_counter_add(pe, dk);
        return;
    }
    uint64_t advance = c->cfg.divider_mode == PMVP_DIVIDER_ALL_CYCLES ? dk : counts ? dk : 0;
    pmvp_u128 total = (pmvp_u128)pe->pmu.divider + advance;
    if (counts)
        k_cycle_counter_add(pe, total / 64);
    pe->pmu.divider = (uint32_t)(total % 64);
}

/* ------------------------------------------- threshold and edge (D13.8) */

/* With FEAT_PMUv3_TH a counter counts, on each processor cycle on which
 * counting is allowed, V[n]: a function of V_B[n], the value it would count
 * on that cycle without the threshold function, of the threshold condition
 * C_T[n] on the cycle before (C_P, for edges) and, for an odd counter
 * linked by TLC (FEAT_PMUv3_TH2), of V[n-1] on the same cycle.
 *
 * Lazily and exactly: between two inputs, a counter's V_B is the same on
 * every processor cycle of a class (with FGMT, the cycles of its PE's
 * barrel slot and the others; otherwise every cycle is of one class), but
 * for the cycle in progress at the stretch's start, which adds the
 * occurrences reported in it so far (pmvp_pmu_counter.pending: a report
 * belongs to the cycle in progress at its instant, and an input at the
 * instant of a clock edge comes after the edge). C_P follows from the
 * class of the cycle before. So a stretch has a first cycle, a second one
 * (whose C_P is the first's C_T) and then cycles of four kinds, by the
 * classes of the cycle and of the one before; V is the same on cycles of
 * one kind, and the count over the stretch is a sum of products. */

/* The Effective threshold controls of a counter. */
typedef struct th_controls {
    bool on;          /* the threshold function is enabled (RHVGCV, TLC) */
    bool te;          /* edge counting (RSGLNM) */
    unsigned tc, tlc; /* TC; TLC (0 but for odd counters with FEAT_PMUv3_TH2) */
    uint64_t th;
} th_controls;

/* Whether the threshold function applies to a counter of `event`, decoded
 * as d: not to an event the PMU does not support, of which no events are
 * counted (D24.5.12, evtCount, with FEAT_PMUv3p8); nor, pmvp's choice
 * (README), to the events of another clock than the processor's
 * (BUS_CYCLES, CNT_CYCLES), whose V_B on a processor cycle pmvp does not
 * model, or to CHAIN, whose V_B is the overflow of the counter below: such
 * a counter counts as without it. */
static bool th_applies(const pmvp_event_decoded *d, uint16_t event)
{
    return d->cls >= 0 && d->cls != PMVP_EVCLASS_BUS_CLOCK && d->cls != PMVP_EVCLASS_SYSTEM_COUNTER &&
           event != PMVP_EV_CHAIN;
}

/* Counter n's controls from its PMEVTYPER (its writable bits only, so the
 * fields a feature lacks are 0). The reserved combinations of RMRPVL are
 * CONSTRAINED UNPREDICTABLE; pmvp reads them as TE and TLC 0, the
 * threshold counting of TC and TH alone. */
static th_controls th_of(const pmvp_pmu *u, unsigned n)
{
    uint64_t v = u->counter[n].evtyper;
    th_controls t = { .te = v & PMVP_PMEVTYPER_EL0_TE,
                      .tc = (unsigned)PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_TC, v),
                      .tlc = (unsigned)PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_TLC, v),
                      .th = PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_TH, v) };
    bool reserved =
        t.tlc == 3 || (t.tc % 2 == 1 && !t.te && t.tlc == 2) || (t.te && t.tlc == 1) || (t.te && t.tc % 4 == 0);
    if (reserved)
        t.te = false, t.tlc = 0;
    t.on =
        (t.tc || t.th || t.tlc) && th_applies(&u->event[n], (uint16_t)PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_evtCount, v));
    return t;
}

/* STALL_SLOT with MT == 1 (D14.3): "for every cycle, the counter counts
 * all Slots not occupied by any instruction or operation for any PE". A PE
 * reports its own STALL_SLOT, the Slots it does not occupy on a cycle on
 * which it is active (MT == 0's count), so on a cycle on which k PEs are
 * active the Slots none of them occupies are the sum of their values less
 * (k - 1) x SLOTS, and SLOTS with none active. Such a counter's per-cycle
 * value is followed, as with the threshold function, with PMMIR_EL1.SLOTS
 * known (else it counts the sum, as any MT == 1 counter of occurrences).
 * pmvp's readings (docs/SEMANTICS.md): the PEs are those the counter counts events of
 * (its filter in their context), active when neither in WFI/WFE nor off;
 * with FGMT or SoEMT one PE at most issues on a cycle. */
static bool slot_rule(const pmvp_core *c, unsigned p, unsigned n)
{
    return PMVP_FIELD_GET(PMVP_PMMIR_EL1_SLOTS, c->cfg.pmmir) != 0 &&
           k_counter_event(&c->pe[p], n) == PMVP_EV_STALL_SLOT && c->pe[p].pmu.event[n].cls >= 0 &&
           k_effective_mt(c, p, n);
}

/* V_B under slot_rule, from the sum `v` of the counted PEs' STALL_SLOT on
 * the cycle. */
static uint64_t slot_vb(const pmvp_core *c, unsigned p, unsigned n, uint64_t v)
{
    uint64_t slots = PMVP_FIELD_GET(PMVP_PMMIR_EL1_SLOTS, c->cfg.pmmir);
    unsigned k = 0;
    for (unsigned q = 0; q < c->cfg.num_pes; q++)
        k += c->pe[q].state == PMVP_PE_RUN && k_counts(c, p, n, &c->pe[q].ctx);
    if (c->cfg.mt_policy != PMVP_MT_SMT && k > 1)
        k = 1;
    if (k == 0)
        return v + slots;
    uint64_t occupied_by_others = (k - 1) * slots;
    return v > occupied_by_others ? v - occupied_by_others : 0;
}

bool k_threshold_on(const pmvp_core *c, unsigned p, unsigned n)
{
    return th_of(&c->pe[p].pmu, n).on || slot_rule(c, p, n);
}

bool k_threshold_tracked(const pmvp_core *c, unsigned p, unsigned n)
{
    const pmvp_pe *pe = &c->pe[p];
    if (k_threshold_on(c, p, n))
        return true;
    /* n is the counter n + 1 links to */
    if (n % 2 == 1 || n + 1 >= c->cfg.num_counters)
        return false;
    th_controls up = th_of(&pe->pmu, n + 1);
    return up.on && up.tlc;
}

void k_occurrence_add(pmvp_core *c, unsigned p, unsigned n, uint64_t count)
{
    pmvp_pe *pe = &c->pe[p];
    if (k_threshold_tracked(c, p, n))
        pe->pmu.counter[n].pending += count;
    if (!k_threshold_on(c, p, n))
        k_counter_add(c, p, pe, n, count);
}

/* C_T (RQVYDV): TC[2:1] chooses the comparison of V_B with TH, unsigned. */
static bool th_condition(const th_controls *t, uint64_t vb)
{
    switch (t->tc >> 1) {
    case 0: return vb != t->th;
    case 1: return vb == t->th;
    case 2: return vb >= t->th;
    default: return vb < t->th;
    }
}

/* V[n] (RHBWBB; Tables D13-5 to D13-8) on a cycle on which counting is
 * allowed, from V_B, V[n-1] (`link`, read with TLC only) and C_P. */
static uint64_t th_value(const th_controls *t, uint64_t vb, uint64_t link, bool cp)
{
    if (!t->on)
        return vb;
    bool ct = th_condition(t, vb);
    if (t->te) { /* C_E (RNXPYM): TC[0] 1, a change to C_T true; 0, any change */
        bool ce = t->tc % 2 ? ct && !cp : ct != cp;
        return ce ? (t->tlc == 2 ? link : 1) : 0;
    }
    if (t->tlc == 2)
        return ct ? link : 0;
    if (ct)
        return t->tc % 2 ? 1 : vb;
    return t->tlc == 1 ? link : 0;
}

/* The cycle kinds after the second cycle of a stretch: bit 1 the class of
 * the cycle before, bit 0 the cycle's own (1: its PE's barrel slot). */
enum { TH_KINDS = 4 };

/* Counter n's V over a stretch from processor cycle k0 (exclusive). */
typedef struct th_run {
    bool allowed;            /* counting is allowed over the stretch */
    uint64_t first, second;  /* V on cycles k0 + 1 and k0 + 2 */
    uint64_t kind[TH_KINDS]; /* V on each later cycle, by its kind */
    bool ct_first;           /* C_T on cycle k0 + 1 */
    bool ct_class[2];        /* C_T on any later cycle, by its class */
} th_run;

/* Whether processor cycles fall into two classes for PE p: with FGMT and
 * more than one thread, its slot's and the others (D14.4.1). */
static bool th_two_classes(const pmvp_core *c)
{
    return c->cfg.mt_policy == PMVP_MT_FGMT && c->cfg.num_pes > 1;
}

/* The class of processor cycle k (>= 1) for PE p. */
static unsigned th_class(const pmvp_core *c, unsigned p, uint64_t k)
{
    return th_two_classes(c) ? (k - 1) % c->cfg.num_pes == p : 1;
}

/* Counter n's run: r its rate without the threshold function (the one
 * that gives V_B on each class of cycle), `allowed` whether counting is
 * allowed over the stretch, `pe` its PE's state (pending, C_P), `link` the
 * run of n - 1 when n links to it. */
static th_run th_run_of(const pmvp_core *c, unsigned p, const pmvp_pe *pe, unsigned n, rate r, bool allowed,
                        const th_run *link, uint64_t k0)
{
    th_run run = { .allowed = allowed };
    if (!allowed)
        return run;
    th_controls t = th_of(&pe->pmu, n);
    uint64_t vb[2];
    vb[1] = r.src == SRC_PROC || r.src == SRC_PROC_SLOT ? r.weight : 0;
    vb[0] = r.src == SRC_PROC ? r.weight : 0;
    if (!th_two_classes(c))
        vb[0] = vb[1];
    static const th_run none;
    const th_run *l = link && t.tlc ? link : &none;
    unsigned c1 = th_class(c, p, k0 + 1), c2 = th_class(c, p, k0 + 2);
    uint64_t vb1 = vb[c1] + pe->pmu.counter[n].pending;
    if (slot_rule(c, p, n)) {
        t.on = true;
        vb1 = slot_vb(c, p, n, vb1);
        for (unsigned cls = 0; cls < 2; cls++)
            vb[cls] = slot_vb(c, p, n, vb[cls]);
    }
    run.ct_first = th_condition(&t, vb1);
    run.first = th_value(&t, vb1, l->first, pe->th_cp >> n & 1);
    run.second = th_value(&t, vb[c2], l->second, run.ct_first);
    for (unsigned cls = 0; cls < 2; cls++)
        run.ct_class[cls] = th_condition(&t, vb[cls]);
    for (unsigned kind = 0; kind < TH_KINDS; kind++)
        run.kind[kind] = th_value(&t, vb[kind & 1], l->kind[kind], run.ct_class[kind >> 1]);
    return run;
}

/* The cycles of each kind among processor cycles (a, b] of PE p (a >= 1). */
static void th_kinds(const pmvp_core *c, unsigned p, uint64_t a, uint64_t b, uint64_t count[TH_KINDS])
{
    memset(count, 0, TH_KINDS * sizeof count[0]);
    if (!th_two_classes(c)) {
        count[3] = b - a;
        return;
    }
    unsigned t = c->cfg.num_pes;
    uint64_t slot = slot_cycles_upto(b, p, t) - slot_cycles_upto(a, p, t);          /* cycle in the slot */
    uint64_t after = slot_cycles_upto(b - 1, p, t) - slot_cycles_upto(a - 1, p, t); /* the one before is */
    count[1] = slot;
    count[2] = after;
    count[0] = b - a - slot - after;
}

/* What counter n's run counts over the first m processor cycles. */
static pmvp_u128 th_total(const pmvp_core *c, unsigned p, const th_run *run, uint64_t k0, uint64_t m)
{
    if (m == 0)
        return 0;
    pmvp_u128 total = run->first;
    if (m >= 2)
        total += run->second;
    if (m >= 3) {
        uint64_t count[TH_KINDS];
        th_kinds(c, p, k0 + 2, k0 + m, count);
        for (unsigned kind = 0; kind < TH_KINDS; kind++)
            total += (pmvp_u128)count[kind] * run->kind[kind];
    }
    return total;
}

/* D13.8's "counting allowed" for counter n of PE p: it counts events in
 * its PE's context, or, with MT == 1, in that of some PE that is not off
 * (pmvp's reading for MT == 1, README). */
static bool th_counting_allowed(const pmvp_core *c, unsigned p, unsigned n)
{
    if (!k_effective_mt(c, p, n))
        return counts_own(c, p, n);
    for (unsigned q = 0; q < c->cfg.num_pes; q++)
        if (c->pe[q].state != PMVP_PE_OFF && k_counts(c, p, n, &c->pe[q].ctx))
            return true;
    return false;
}

/* Counter n's run over the stretch from processor cycle k0, PE p being in
 * state `from` (c->pe[p], or a copy being advanced, whose freeze applies);
 * with n - 1's run first when n links to it. */
static th_run th_run_from(const pmvp_core *c, unsigned p, const pmvp_pe *from, unsigned n, uint64_t k0)
{
    bool cached = k_caches(c)->rates_valid;
    const pmvp_pe *pe = &c->pe[p];
    th_run link, *l = NULL;
    if (n % 2 == 1 && th_of(&from->pmu, n).tlc) {
        link = th_run_from(c, p, from, n - 1, k0);
        l = &link;
    }
    bool allowed =
        (cached ? k_pe_caches(pe)->th_allowed >> n & 1 : th_counting_allowed(c, p, n)) && !(from->frozen >> n & 1);
    return th_run_of(c, p, from, n, cached ? cached_rate(k_pe_caches(pe)->rate[n]) : counter_rate(c, p, n), allowed, l,
                     k0);
}

/* The counters of PE p whose threshold function is on (*on) and whose
 * per-cycle value is followed (*tracked), from the caches when valid. A
 * counter no longer followed that holds occurrences of the cycle in
 * progress, from when it was, counts as followed until an edge drops them. */
static void th_masks(const pmvp_core *c, unsigned p, uint32_t *on, uint32_t *tracked)
{
    const pmvp_pe *pe = &c->pe[p];
    if (k_caches(c)->rates_valid) {
        *on = k_pe_caches(pe)->th_on;
        *tracked = k_pe_caches(pe)->th_tracked;
        return;
    }
    *on = *tracked = 0;
    for (unsigned n = 0; n < c->cfg.num_counters; n++) {
        if (k_threshold_on(c, p, n))
            *on |= UINT32_C(1) << n;
        if (k_threshold_tracked(c, p, n) || pe->pmu.counter[n].pending)
            *tracked |= UINT32_C(1) << n;
    }
}

/* The counters of PE p whose per-cycle value is followed, over stretch s,
 * in `to`: those whose threshold function is on count their runs; each
 * keeps C_T of the stretch's last cycle as C_P (0 if counting was not
 * allowed on it) and drops the occurrences of the cycle in progress at the
 * stretch's start, which closed. From the top down, so that the run of an
 * odd counter reads the counter below it as it was at the start. */
static void th_advance(const pmvp_core *c, unsigned p, const stretch *s, pmvp_pe *to)
{
    if (!s->dk)
        return;
    uint32_t on, tracked;
    th_masks(c, p, &on, &tracked);
    while (tracked) {
        unsigned n = pmvp_take_highest(&tracked);
        if (on >> n & 1) {
            th_run run = th_run_from(c, p, to, n, s->k0);
            bool last = run.allowed && (s->dk == 1 ? run.ct_first : run.ct_class[th_class(c, p, s->k0 + s->dk)]);
            to->th_cp = last ? to->th_cp | UINT32_C(1) << n : to->th_cp & ~(UINT32_C(1) << n);
            pmvp_u128 inc = th_total(c, p, &run, s->k0, s->dk);
            if (inc)
                k_counter_add(c, p, to, n, inc);
        }
        to->pmu.counter[n].pending = 0;
    }
}

/* ------------------------------------------------------ Activity Monitors */

void k_amu_occurrence_counters(const pmvp_core *c, unsigned p, uint16_t event, uint32_t *arch, uint32_t *aux)
{
    const pmvp_pe *pe = &c->pe[p];
    const pmvp_amu *a = &pe->amu;
    *arch = *aux = 0;
    if (!c->cfg.feat_amuv1 || (pe->ctx.halted && (a->amcr & PMVP_AMCR_EL0_HDBG)))
        return;
    int n0 = k_amu_architected_index(event);
    if (n0 >= 0 && (a->cntenset0 >> n0 & 1) && pmvp_event_find(event)->cls == PMVP_EVCLASS_OCCURRENCE)
        *arch = UINT32_C(1) << n0;
    for (unsigned n = 0; n < c->cfg.amu_num_aux; n++)
        if (a->evtyper1[n] == event && (a->cntenset1 >> n & 1))
            *aux |= UINT32_C(1) << n;
}

/* The rate of an AMU counter counting event d on PE pe (amu.h, D16.2,
 * D16.3): time-based counts only while the PE runs, never under AMCR.HDBG in
 * Debug state; no authentication, prohibition or filter applies. */
static rate amu_rate(const pmvp_pe *pe, const pmvp_event_decoded *d)
{
    if (pe->state != PMVP_PE_RUN || (pe->ctx.halted && (pe->amu.amcr & PMVP_AMCR_EL0_HDBG)))
        return no_rate;
    switch (d->cls) {
    case PMVP_EVCLASS_CPU_CYCLES: return (rate){ SRC_PROC, 0, 1 };
    case PMVP_EVCLASS_CONDITION:
    case PMVP_EVCLASS_STALL:
    case PMVP_EVCLASS_PER_CYCLE: {
        uint32_t level = pe->level[d->level];
        return level ? (rate){ SRC_PROC, 0, level } : no_rate;
    }
    case PMVP_EVCLASS_BUS_CLOCK: return (rate){ SRC_BUS, 0, 1 };
    case PMVP_EVCLASS_SYSTEM_COUNTER: return (rate){ SRC_SYSCNT, 0, 1 };
    default: return no_rate; /* counted from reports, or not countable */
    }
}

/* An AMU counter of PE p counting occurrence event `event` during
 * batches' spreads of PE p (pmvp_core_report_batches), as its reports
 * count. */
static rate amu_spread_rate(const pmvp_core *c, unsigned p, uint16_t event)
{
    const pmvp_pe *pe = &c->pe[p];
    uint64_t w = spread_of(c, p, event);
    if (!w || (pe->ctx.halted && (pe->amu.amcr & PMVP_AMCR_EL0_HDBG)))
        return no_rate;
    return (rate){ SRC_PROC, 0, w };
}

/* The rate of AMU counter n of PE p (group 0, then group 1 from
 * PMVP_AMU_ARCH_COUNTERS): nothing unless enabled. */
static rate amu_counter_rate(const pmvp_core *c, unsigned p, unsigned n)
{
    const pmvp_pe *pe = &c->pe[p];
    const pmvp_event_decoded *d;
    uint16_t event;
    if (n < PMVP_AMU_ARCH_COUNTERS) {
        if (!(pe->amu.cntenset0 >> n & 1))
            return no_rate;
        d = &c->amu_event0[n];
        event = k_amu_architected_event(n);
    } else {
        n -= PMVP_AMU_ARCH_COUNTERS;
        if (!(pe->amu.cntenset1 >> n & 1))
            return no_rate;
        d = &pe->amu.event1[n];
        event = pe->amu.evtyper1[n];
    }
    return d->cls == PMVP_EVCLASS_OCCURRENCE ? amu_spread_rate(c, p, event) : amu_rate(pe, d);
}

/* ----------------------------------------------------- the rates' caches */

/* A counter's rate changes only with what decides what counts, so each PE
 * keeps its counters' rates: k_routes_stale drops them all, to be computed
 * again at the next sync; a level change updates only the rates that follow
 * the level (k_set_level). The pure query, which changes nothing, reads
 * the caches when they are valid and computes the rates otherwise. */

/* Caches rate r of counter n in rates[n], and whether it counts in bit n
 * of *counting: the event counters' (rate, counting) or the AMU's
 * (amu_rate, amu_counting). */
static void cache_rate(k_packed_rate *rates, uint32_t *counting, unsigned n, rate r)
{
    rates[n] = packed_rate(r);
    *counting = r.weight ? *counting | UINT32_C(1) << n : *counting & ~(UINT32_C(1) << n);
}

static bool level_class(const pmvp_event_decoded *d)
{
    return d->cls == PMVP_EVCLASS_CONDITION || d->cls == PMVP_EVCLASS_STALL || d->cls == PMVP_EVCLASS_PER_CYCLE;
}

/* Event counter n of PE p's entries in its PE's rate caches, own_counts
 * apart (refresh_rates fills those first). */
static void refresh_counter(pmvp_core *c, unsigned p, unsigned n)
{
    pmvp_pe *pe = &c->pe[p];
    k_pe_caches *pc = k_pe_caches(pe);
    uint32_t bit = UINT32_C(1) << n;
    cache_rate(pc->rate, &pc->counting, n, counter_rate(c, p, n));
    pc->level_driven = level_class(&pe->pmu.event[n]) ? pc->level_driven | bit : pc->level_driven & ~bit;
    pc->th_on = k_threshold_on(c, p, n) ? pc->th_on | bit : pc->th_on & ~bit;
    pc->th_tracked &= ~bit;
    pc->th_allowed &= ~bit;
    if (k_threshold_tracked(c, p, n)) {
        pc->th_tracked |= bit;
        if (th_counting_allowed(c, p, n))
            pc->th_allowed |= bit;
    } else if (pe->pmu.counter[n].pending) {
        pc->th_tracked |= bit; /* no longer followed: the next edge drops them */
    }
}

/* The core's flags that follow from every PE's rate caches: threshold
 * counting anywhere, and freeze on overflow armed and timed. */
static void refresh_core_flags(pmvp_core *c)
{
    k_core_caches *cc = k_caches(c);
    cc->th_any = cc->freeze_armed = cc->freeze_timed = false;
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        const pmvp_pe *pe = &c->pe[p];
        const k_pe_caches *pc = k_pe_caches(pe);
        cc->th_any |= pc->th_tracked != 0;
        /* Freeze on overflow: armed, and timed when a source counts at a
         * rate, or is the CHAIN counter above one that does. A counter
         * whose threshold function is on may count cycles whatever its
         * rate (V[n] of V_B == 0 may be 1). */
        uint64_t sources = freeze_sources(c, pe);
        cc->freeze_armed |= sources != 0;
        uint32_t timed = pc->counting | (pc->th_on & pc->th_allowed);
        cc->freeze_timed |= (sources & (timed | timed << 1)) != 0;
    }
}

static void refresh_rates(pmvp_core *c)
{
    k_core_caches *cc = k_caches(c);
    if (cc->rates_valid)
        return;
    /* First what each counter counts in its own PE's context (own_counts),
     * which the rates then read. */
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        pmvp_pe *pe = &c->pe[p];
        k_pe_caches *pc = k_pe_caches(pe);
        pc->own_counts = 0;
        for (unsigned n = 0; n < c->cfg.num_counters; n++)
            if (k_counts(c, p, n, &pe->ctx))
                pc->own_counts |= UINT32_C(1) << n;
    }
    cc->own_counts_valid = true;
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        pmvp_pe *pe = &c->pe[p];
        k_pe_caches *pc = k_pe_caches(pe);
        pc->cycles_count = k_cycle_counter_counts(c, p);
        pc->counting = pc->amu_counting = pc->level_driven = 0;
        pc->th_on = pc->th_tracked = pc->th_allowed = 0;
        for (unsigned n = 0; n < c->cfg.num_counters; n++)
            refresh_counter(c, p, n);
        if (c->cfg.feat_amuv1)
            for (unsigned n = 0; n < PMVP_AMU_ARCH_COUNTERS + c->cfg.amu_num_aux; n++)
                cache_rate(pc->amu_rate, &pc->amu_counting, n, amu_counter_rate(c, p, n));
    }
    refresh_core_flags(c);
    cc->rates_valid = true;
}

void k_rates_retyped(pmvp_core *c, unsigned p, unsigned n, bool were_valid)
{
    k_core_caches *cc = k_caches(c);
    if (!were_valid || cc->rates_valid)
        return;
    k_pe_caches *pc = k_pe_caches(&c->pe[p]);
    uint32_t bit = UINT32_C(1) << n;
    pc->own_counts = k_counts(c, p, n, &c->pe[p].ctx) ? pc->own_counts | bit : pc->own_counts & ~bit;
    cc->own_counts_valid = true;
    /* n's own, and its pair's: the even counter of a pair follows its odd
     * one's threshold link (TLC). */
    for (unsigned m = n > 0 ? n - 1 : 0; m <= n + 1 && m < c->cfg.num_counters; m++)
        refresh_counter(c, p, m);
    refresh_core_flags(c);
    cc->rates_valid = true;
}

bool k_freeze_timed(pmvp_core *c)
{
    refresh_rates(c);
    return k_caches(c)->freeze_timed;
}

bool k_threshold_any(pmvp_core *c)
{
    refresh_rates(c);
    return k_caches(c)->th_any;
}

/* AMU counter n of PE state `a`, group 0 then group 1. */
static uint64_t *amu_counter(pmvp_amu *a, unsigned n)
{
    return n < PMVP_AMU_ARCH_COUNTERS ? &a->cnt0[n] : &a->cnt1[n - PMVP_AMU_ARCH_COUNTERS];
}

/* Fills f with the followers of level input `level` of PE q (level_followers). */
static PMVP_OUT_OF_LINE void find_followers(pmvp_core *c, k_followers *f, unsigned q, unsigned level)
{
    *f = (k_followers){ .generation = k_caches(c)->generation, .pe = (uint8_t)q, .level = (uint8_t)level };
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        const pmvp_pe *pe = &c->pe[p];
        for (uint32_t m = k_pe_caches(pe)->level_driven; m;) {
            unsigned n = pmvp_take_lowest(&m);
            bool mt = k_effective_mt(c, p, n);
            if (!(p == q || mt) || !follows_level(&pe->pmu.event[n], level, mt))
                continue;
            f->pmu[p] |= UINT32_C(1) << n;
            f->first_pe = f->end_pe ? f->first_pe : (uint8_t)p;
            f->end_pe = (uint8_t)(p + 1);
            if (!mt) { /* q's own: its rate follows this level alone */
                f->own |= UINT32_C(1) << n;
                f->held[n] = packed_rate(held_rate(c, q, n));
            }
        }
    }
    if (!c->cfg.feat_amuv1)
        return;
    const pmvp_pe *pe = &c->pe[q];
    for (unsigned n = 0; n < PMVP_AMU_ARCH_COUNTERS + c->cfg.amu_num_aux; n++) {
        const pmvp_event_decoded *d =
            n < PMVP_AMU_ARCH_COUNTERS ? &c->amu_event0[n] : &pe->amu.event1[n - PMVP_AMU_ARCH_COUNTERS];
        if (follows_level(d, level, false)) /* an AMU counts its own PE's events */
            f->amu |= UINT32_C(1) << n;
    }
}

/* The counters whose rate follows level input `level` of PE q: each PE's
 * event counters (its own, and with MT == 1 the others'), and q's AMU
 * counters. Found once per generation of what decides them (the events,
 * MT, the controls: k_routes_stale), with the rates valid; found again out
 * of the level change's path. */
static inline const k_followers *level_followers(pmvp_core *c, unsigned q, unsigned level)
{
    k_followers *f = &k_caches(c)->followers[(level ^ q * 5u) % K_FOLLOWERS];
    if (f->generation != k_caches(c)->generation || f->pe != q || f->level != level)
        find_followers(c, f, q, level);
    return f;
}

/* Counter n (of `rates`) takes rate r; with stretch s (a level change
 * ahead of the core's sync) it stands at the end of s, ahead if it counts. */
static void take_rate(const pmvp_core *c, k_packed_rate *rates, uint32_t *counting, uint32_t *ahead, uint64_t *since,
                      unsigned n, rate r, const stretch *s)
{
    cache_rate(rates, counting, n, r);
    uint32_t bit = UINT32_C(1) << n;
    if (s && r.weight) {
        since[n] = source_at(c, r.src, s);
        *ahead |= bit;
    } else {
        *ahead &= ~bit;
    }
}

/* The followers take their new rates (take_rate), the level now `value`:
 * PE q's own with MT == 0 from their held rates, the others as counter_rate
 * finds them. */
static void follow_level(pmvp_core *c, unsigned q, const k_followers *f, uint32_t value, const stretch *s)
{
    for (unsigned p = f->first_pe; p < f->end_pe; p++) {
        pmvp_pe *pe = &c->pe[p];
        for (uint32_t m = f->pmu[p]; m;) {
            unsigned n = pmvp_take_lowest(&m);
            rate r = p == q && (f->own >> n & 1)
                         ? level_rate(cached_rate(f->held[n]), pe->pmu.event[n].cls == PMVP_EVCLASS_PER_CYCLE, value)
                         : counter_rate(c, p, n);
            take_rate(c, k_pe_caches(pe)->rate, &k_pe_caches(pe)->counting, &pe->ahead, pe->since, n, r, s);
        }
    }
    pmvp_pe *pe = &c->pe[q];
    for (uint32_t m = f->amu; m;) {
        unsigned n = pmvp_take_lowest(&m);
        take_rate(c, k_pe_caches(pe)->amu_rate, &k_pe_caches(pe)->amu_counting, &pe->amu_ahead, pe->amu_since, n,
                  amu_counter_rate(c, q, n), s);
    }
}

void k_spread_changed(pmvp_core *c)
{
    /* Without valid rates the next sync computes them all; with a freeze
     * armed, a spread may time it (refresh_rates), which the report routes
     * must see: both as any change of what counts. */
    if (!k_caches(c)->rates_valid || k_caches(c)->freeze_armed) {
        k_routes_stale(c);
        return;
    }
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        pmvp_pe *pe = &c->pe[p];
        for (unsigned n = 0; n < c->cfg.num_counters; n++)
            if (pe->pmu.event[n].cls == PMVP_EVCLASS_OCCURRENCE)
                take_rate(c, k_pe_caches(pe)->rate, &k_pe_caches(pe)->counting, &pe->ahead, pe->since, n,
                          counter_rate(c, p, n), NULL);
        for (unsigned n = 0; c->cfg.feat_amuv1 && n < PMVP_AMU_ARCH_COUNTERS + c->cfg.amu_num_aux; n++) {
            const pmvp_event_decoded *d =
                n < PMVP_AMU_ARCH_COUNTERS ? &c->amu_event0[n] : &pe->amu.event1[n - PMVP_AMU_ARCH_COUNTERS];
            if (d->cls == PMVP_EVCLASS_OCCURRENCE)
                take_rate(c, k_pe_caches(pe)->amu_rate, &k_pe_caches(pe)->amu_counting, &pe->amu_ahead, pe->amu_since,
                          n, amu_counter_rate(c, p, n), NULL);
        }
    }
}

/* The AMU counters of PE p over a stretch, in `to`; they wrap at 64 bits
 * (D16.2.1). */
static void advance_amu(const pmvp_core *c, unsigned p, pmvp_pe *to, const stretch *s)
{
    pmvp_amu *a = &to->amu;
    const pmvp_pe *pe = &c->pe[p];
    bool cached = k_caches(c)->rates_valid;
    uint32_t counting =
        cached ? k_pe_caches(pe)->amu_counting : (UINT32_C(1) << (PMVP_AMU_ARCH_COUNTERS + c->cfg.amu_num_aux)) - 1;
    while (counting) {
        unsigned n = pmvp_take_lowest(&counting);
        rate r = cached ? cached_rate(k_pe_caches(pe)->amu_rate[n]) : amu_counter_rate(c, p, n);
        *amu_counter(a, n) += (uint64_t)increments_from(c, r, s, pe->amu_ahead >> n & 1, pe->amu_since[n]);
    }
    to->amu_ahead = 0;
}

/* The stretch from the core's last sync to `now` (> c->sync_time), of the
 * processor clock only (no bus-clock or System Counter edge in it). */
static inline stretch processor_stretch_to(const pmvp_core *c, pmvp_time now)
{
    uint64_t edges = k_clock_cycles(&c->clock, now);
    return (stretch){ .k0 = c->proc_cycles, .dk = k_clock_stopped(c) ? 0 : edges - c->clock_edges, .edges = edges };
}

/* The stretch from the core's last sync to `now` (> c->sync_time). */
static inline stretch stretch_to(const pmvp_core *c, pmvp_time now)
{
    stretch s = processor_stretch_to(c, now);
    s.db = k_clock_cycles(&c->bus_clock, now) - c->bus_edges;
    s.ds = k_clock_cycles(&c->system_counter, now) - c->syscnt_edges;
    return s;
}

/* PE p over stretch s, written to `to`: c->pe[p] itself (k_sync) or a copy
 * of it (k_pe_at). The rates are read from c; no rate depends on what the
 * advance changes (counter values, overflow flags, the divider), except
 * through a freeze, which `to`'s frozen masks (advance_pe). */
static inline void advance_stretch(const pmvp_core *c, unsigned p, const stretch *s, pmvp_pe *to)
{
    const pmvp_pe *pe = &c->pe[p];
    bool cached = k_caches(c)->rates_valid;
    if (s->dk)
        advance_cycle_counter(c, to, s->dk,
                              !(to->frozen & PMVP_PMU_C) &&
                                  (cached ? k_pe_caches(pe)->cycles_count : k_cycle_counter_counts(c, p)));
    /* In counter order: a CHAIN counter takes the carries of the one below.
     * The counters whose threshold function is on count their runs. */
    uint32_t on = 0, tracked = 0;
    if (!cached || k_caches(c)->th_any)
        th_masks(c, p, &on, &tracked);
    if (tracked)
        th_advance(c, p, s, to);
    uint32_t counting = (cached ? k_pe_caches(pe)->counting : k_counters_mask(c)) & ~(uint32_t)to->frozen & ~on;
    while (counting) {
        unsigned n = pmvp_take_lowest(&counting);
        rate r = cached ? cached_rate(k_pe_caches(pe)->rate[n]) : counter_rate(c, p, n);
        pmvp_u128 inc = increments_from(c, r, s, pe->ahead >> n & 1, pe->since[n]);
        if (inc)
            k_counter_add(c, p, to, n, inc);
    }
    to->ahead = 0;
    uint64_t icntr = s->dk && !(to->frozen & PMVP_PMU_F0) ? icntr_spread(c, p) : 0;
    if (icntr)
        k_counter_add(c, p, to, PMVP_ICNTR_SLOT, (pmvp_u128)s->dk * icntr);
    if (c->cfg.feat_amuv1)
        advance_amu(c, p, to, s);
}

/* The part of a stretch from the core's sync that follows its part `a`,
 * up to its part `b` (both from the sync). */
static stretch stretch_between(const stretch *a, const stretch *b)
{
    return (stretch){
        .k0 = a->k0 + a->dk, .dk = b->dk - a->dk, .db = b->db - a->db, .ds = b->ds - a->ds, .edges = b->edges
    };
}

static void freeze_times(const pmvp_core *c, unsigned p, pmvp_time tf[2]);

/* PE p over stretch s from the core's sync to `end`, in `to` (as
 * advance_stretch). A range that an overflow in the stretch freezes
 * (freeze_times) splits it: the part up to the overflow's instant counts as
 * before, the rest without the frozen counters. No counter is ahead of the
 * sync while a freeze is armed (k_set_level), so the split reads the values
 * at the sync. */
static void advance_pe(const pmvp_core *c, unsigned p, const stretch *s, pmvp_time end, pmvp_pe *to)
{
    if (!freeze_sources(c, &c->pe[p])) {
        advance_stretch(c, p, s, to);
        return;
    }
    pmvp_time tf[2];
    freeze_times(c, p, tf);
    if (tf[1] < tf[0]) {
        pmvp_time t = tf[0];
        tf[0] = tf[1];
        tf[1] = t;
    }
    stretch done = { .k0 = s->k0, .edges = c->clock_edges };
    for (unsigned i = 0; i < 2; i++) {
        if (tf[i] >= end || (i && tf[1] == tf[0]))
            continue;
        stretch upto = stretch_to(c, tf[i]);
        stretch part = stretch_between(&done, &upto);
        advance_stretch(c, p, &part, to);
        to->frozen = k_frozen(c, to);
        done = upto;
    }
    stretch rest = stretch_between(&done, s);
    advance_stretch(c, p, &rest, to);
}

/* Keeps each clock's conversion a 64-bit division (pmvp_clock_reanchor):
 * at any instant reached, since no edge moves. */
static void reanchor_clocks(pmvp_core *c, pmvp_time now)
{
    pmvp_clock_reanchor(&c->clock, now);
    pmvp_clock_reanchor(&c->bus_clock, now);
    pmvp_clock_reanchor(&c->system_counter, now);
}

void k_sync(pmvp_core *c, pmvp_time now)
{
    if (now <= c->sync_time)
        return;
    refresh_rates(c);
    stretch s = stretch_to(c, now);
    bool froze = false;
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        pmvp_pe *pe = &c->pe[p];
        uint64_t before = pe->frozen;
        advance_pe(c, p, &s, now, pe);
        /* An overflow in the stretch, at its end included, froze counters:
         * the freeze is held, and what counts changed. */
        if (k_caches(c)->freeze_armed) {
            pe->frozen = k_frozen(c, pe);
            froze |= pe->frozen != before;
        }
    }
    if (froze)
        k_routes_stale(c);
    reanchor_clocks(c, now);
    c->proc_cycles += s.dk;
    c->clock_edges = s.edges;
    c->bus_edges += s.db;
    c->syscnt_edges += s.ds;
    c->sync_time = now;
}

int k_set_level(pmvp_core *c, unsigned q, unsigned level, uint32_t value, pmvp_time now)
{
    if (now < c->last_call)
        return PMVP_ERR_PAST;
    c->last_call = now;
    if (!k_caches(c)->rates_valid || now <= c->sync_time || k_caches(c)->freeze_armed || k_caches(c)->th_any) {
        /* The whole core to now (no time to advance, or the next sync
         * computes every rate anyway, or a freeze is armed: its split of a
         * stretch reads every counter at the sync, so none may be ahead; or
         * a counter's per-cycle value is followed, which its run reads at
         * the sync too). */
        k_sync(c, now);
        c->pe[q].level[level] = value;
        if (k_caches(c)->rates_valid && k_caches(c)->freeze_armed)
            k_routes_stale(c); /* the report routes too: they are cached only while no freeze is timed */
        else if (k_caches(c)->rates_valid)
            follow_level(c, q, level_followers(c, q, level), value, NULL);
        return PMVP_OK;
    }
    /* Only the counters whose rate the level decides are brought to now,
     * with the rate they had; the others keep counting from the core's sync.
     * Those rates are per processor cycle, before and after (a level event
     * counts cycles on which it holds, D14.4.1; the AMU's likewise): the
     * stretch of the processor clock is all they need. */
    stretch s = processor_stretch_to(c, now);
    const k_followers *f = level_followers(c, q, level);
    for (unsigned p = f->first_pe; p < f->end_pe; p++) {
        pmvp_pe *pe = &c->pe[p];
        for (uint32_t m = f->pmu[p] & k_pe_caches(pe)->counting; m;) {
            unsigned n = pmvp_take_lowest(&m);
            pmvp_u128 inc =
                increments_from(c, cached_rate(k_pe_caches(pe)->rate[n]), &s, pe->ahead >> n & 1, pe->since[n]);
            if (inc)
                k_counter_add(c, p, pe, n, inc);
        }
    }
    pmvp_pe *pe = &c->pe[q];
    for (uint32_t m = f->amu & k_pe_caches(pe)->amu_counting; m;) {
        unsigned n = pmvp_take_lowest(&m);
        *amu_counter(&pe->amu, n) += (uint64_t)increments_from(c, cached_rate(k_pe_caches(pe)->amu_rate[n]), &s,
                                                               pe->amu_ahead >> n & 1, pe->amu_since[n]);
    }
    pe->level[level] = value;
    follow_level(c, q, f, value, &s);
    pmvp_clock_reanchor(&c->clock, now);
    return PMVP_OK;
}

_Static_assert(offsetof(pmvp_pe, caches) + sizeof((pmvp_pe *)0)->caches == sizeof(pmvp_pe),
               "k_pe_at copies the members before the caches: the PE's state");

const pmvp_pe *k_pe_at(const pmvp_core *c, unsigned p, pmvp_time t, pmvp_pe *scratch)
{
    if (t <= c->sync_time)
        return &c->pe[p]; /* nothing to advance: the PE as it is */
    /* The state without the rate caches, which the advance reads from c. */
    memcpy(scratch, &c->pe[p], offsetof(pmvp_pe, caches));
    stretch s = stretch_to(c, t);
    advance_pe(c, p, &s, t, scratch);
    return scratch;
}

/* ------------------------------------------------------------- prediction */

/* The instant of edge `edges + m` of clock `clk`, if representable. */
static pmvp_time edge_after(const pmvp_clock *clk, uint64_t edges, pmvp_u128 m)
{
    pmvp_u128 e = (pmvp_u128)edges + m;
    return e > UINT64_MAX ? PMVP_TIME_NEVER : pmvp_clock_edge_time(clk, (uint64_t)e);
}

/* The instant of the m-th counted cycle after the sync instant (m >= 1). */
static pmvp_time counted_cycle_time(const pmvp_core *c, rate r, pmvp_u128 m)
{
    switch (r.src) {
    case SRC_PROC: return k_clock_stopped(c) ? PMVP_TIME_NEVER : edge_after(&c->clock, c->clock_edges, m);
    case SRC_PROC_SLOT: {
        if (k_clock_stopped(c))
            return PMVP_TIME_NEVER;
        /* The j-th cycle of barrel thread s is processor cycle s + 1 + (j-1)*T. */
        unsigned t = c->cfg.num_pes;
        pmvp_u128 j = (pmvp_u128)slot_cycles_upto(c->proc_cycles, r.slot, t) + m;
        pmvp_u128 k = r.slot + 1 + (j - 1) * t;
        return edge_after(&c->clock, c->clock_edges, k - c->proc_cycles);
    }
    case SRC_BUS: return edge_after(&c->bus_clock, c->bus_edges, m);
    case SRC_SYSCNT: return edge_after(&c->system_counter, c->syscnt_edges, m);
    default: return PMVP_TIME_NEVER;
    }
}

/* The instant at which counter n of PE p, whose threshold function is on,
 * has counted `need` more, if no input comes first: the first m with the
 * run over m processor cycles reaching it, by bisection (the total grows
 * with m). */
static pmvp_time th_reaches(const pmvp_core *c, unsigned p, unsigned n, pmvp_u128 need)
{
    if (k_clock_stopped(c) || need == PMVP_U128_NEVER)
        return PMVP_TIME_NEVER;
    uint64_t k0 = c->proc_cycles;
    th_run run = th_run_from(c, p, &c->pe[p], n, k0);
    uint64_t lo = 1, hi = UINT64_MAX - k0;
    if (th_total(c, p, &run, k0, hi) < need)
        return PMVP_TIME_NEVER;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (th_total(c, p, &run, k0, mid) >= need)
            hi = mid;
        else
            lo = mid + 1;
    }
    return edge_after(&c->clock, c->clock_edges, lo);
}

static pmvp_u128 ceil_div(pmvp_u128 a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Increments that take counter n from its value to its next overflow. */
static pmvp_u128 to_overflow(const pmvp_core *c, const pmvp_pe *pe, unsigned n)
{
    uint64_t v = pe->pmu.counter[n].value;
    return k_counter_is_long(c, pe, n) ? ((pmvp_u128)1 << 64) - v : ((pmvp_u128)1 << 32) - (v & UINT32_MAX);
}

/* Increments of even counter n - 1 that take CHAIN counter n to its next
 * overflow: its own distance in [31:0] wraps of the counter below. */
static pmvp_u128 chain_to_overflow(const pmvp_core *c, const pmvp_pe *pe, unsigned n)
{
    pmvp_u128 first_wrap = ((pmvp_u128)1 << 32) - (pe->pmu.counter[n - 1].value & UINT32_MAX);
    pmvp_u128 wraps = to_overflow(c, pe, n);
    if (wraps > ((pmvp_u128)1 << 64))
        return PMVP_U128_NEVER;
    return first_wrap + (wraps - 1) * ((pmvp_u128)1 << 32);
}

static pmvp_time event_counter_overflow_time(const pmvp_core *c, unsigned p, unsigned n)
{
    const pmvp_pe *pe = &c->pe[p];
    if (k_threshold_on(c, p, n))
        return th_reaches(c, p, n, to_overflow(c, pe, n));
    rate r = counter_rate(c, p, n);
    if (r.src != SRC_NONE)
        return counted_cycle_time(c, r, ceil_div(to_overflow(c, pe, n), r.weight));

    /* A CHAIN counter overflows after its own distance in [31:0] wraps of the
     * even counter below it, if that one counts cycles. */
    if (!chain_counts(c, p, n))
        return PMVP_TIME_NEVER;
    if (k_threshold_on(c, p, n - 1))
        return th_reaches(c, p, n - 1, chain_to_overflow(c, pe, n));
    rate low = counter_rate(c, p, n - 1);
    if (low.src == SRC_NONE)
        return PMVP_TIME_NEVER;
    return counted_cycle_time(c, low, ceil_div(chain_to_overflow(c, pe, n), low.weight));
}

/* The next overflow of event counter n of PE p, unless a freeze of tf[]
 * (freeze_times: the instants its ranges freeze) stops it first: its own
 * range's, or for a CHAIN counter at HPMN or EPMN, fed by the top counter
 * of the range below, that range's. A freeze at the overflow's instant
 * does not stop it (what happens at that instant counts). The third range
 * does not freeze. */
static pmvp_time overflow_before_freeze(const pmvp_core *c, unsigned p, unsigned n, const pmvp_time tf[2])
{
    const pmvp_pe *pe = &c->pe[p];
    pmvp_time t = event_counter_overflow_time(c, p, n);
    unsigned range = k_range_of(c, pe, n), below = n ? k_range_of(c, pe, n - 1) : range;
    if ((range < 2 && t > tf[range]) || (below != range && t > tf[below] && chain_counts(c, p, n)))
        return PMVP_TIME_NEVER;
    return t;
}

/* The instants at which PE p's first and second ranges freeze if no input
 * comes (PMVP_TIME_NEVER: not armed, or no source overflows): the first
 * overflow of one of its sources. The first range's cannot wait for the
 * second's (no counter of the first range is fed by one of the second). */
static void freeze_times(const pmvp_core *c, unsigned p, pmvp_time tf[2])
{
    const pmvp_pe *pe = &c->pe[p];
    /* The instruction counter counts no time: only event counters here. */
    uint32_t sources = (uint32_t)freeze_sources(c, pe) & k_counters_mask(c), first = first_range(c, pe);
    tf[0] = tf[1] = PMVP_TIME_NEVER;
    for (uint32_t m = sources & first; m;) {
        pmvp_time t = event_counter_overflow_time(c, p, pmvp_take_lowest(&m));
        tf[0] = t < tf[0] ? t : tf[0];
    }
    /* F0, when batches' spreads feed the instruction counter. */
    uint64_t icntr = freeze_sources(c, pe) & PMVP_PMU_F0 ? icntr_spread(c, p) : 0;
    if (icntr) {
        pmvp_u128 need = ((pmvp_u128)1 << 64) - pe->pmu.counter[PMVP_ICNTR_SLOT].value;
        pmvp_time t = counted_cycle_time(c, (rate){ SRC_PROC, 0, 1 }, ceil_div(need, icntr));
        tf[0] = t < tf[0] ? t : tf[0];
    }
    pmvp_time second = PMVP_TIME_NEVER;
    for (uint32_t m = sources & second_range(c, pe); m;) {
        pmvp_time t = overflow_before_freeze(c, p, pmvp_take_lowest(&m), tf);
        second = t < second ? t : second;
    }
    tf[1] = second;
}

uint32_t k_interrupt_candidates(const pmvp_core *c, unsigned p)
{
    const pmvp_pe *pe = &c->pe[p];
    uint64_t watched = (pe->pmu.intenset | freeze_sources(c, pe)) & ~pe->pmu.ovsset;
    uint32_t events = (uint32_t)watched & ((UINT32_C(1) << c->cfg.num_counters) - 1);
    /* n itself, or the CHAIN counter n + 1 its overflows feed */
    uint32_t candidates = events | events >> 1;
    return watched & PMVP_PMU_F0 ? candidates | UINT32_C(1) << PMVP_ICNTR_SLOT : candidates;
}

pmvp_u128 k_increments_to_interrupt(const pmvp_core *c, unsigned p, unsigned n)
{
    const pmvp_pe *pe = &c->pe[p];
    uint64_t watched = (pe->pmu.intenset | freeze_sources(c, pe)) & ~pe->pmu.ovsset;
    if (n == PMVP_ICNTR_SLOT)
        return (watched & PMVP_PMU_F0) ? ((pmvp_u128)1 << 64) - pe->pmu.counter[n].value : PMVP_U128_NEVER;
    pmvp_u128 best = PMVP_U128_NEVER;
    if (watched >> n & 1)
        best = to_overflow(c, pe, n);
    if (n + 1 < c->cfg.num_counters && (watched >> (n + 1) & 1) && chain_counts(c, p, n + 1)) {
        pmvp_u128 chained = chain_to_overflow(c, pe, n + 1);
        best = chained < best ? chained : best;
    }
    return best;
}

static pmvp_time cycle_counter_overflow_time(const pmvp_core *c, unsigned p)
{
    const pmvp_pe *pe = &c->pe[p];
    if (!k_cycle_counter_counts(c, p))
        return PMVP_TIME_NEVER;
    uint64_t v = pe->pmu.pmccntr;
    pmvp_u128 need =
        (pe->pmu.pmcr & PMVP_PMCR_EL0_LC) ? ((pmvp_u128)1 << 64) - v : ((pmvp_u128)1 << 32) - (v & UINT32_MAX);
    if (divided(c, pe))
        need = (need - 1) * 64 + (64 - pe->pmu.divider);
    return counted_cycle_time(c, (rate){ SRC_PROC, 0, 1 }, need);
}

/* ------------------------------------------------------------ the bracket */

int k_begin(pmvp_core *c, pmvp_time now)
{
    if (now < c->last_call)
        return PMVP_ERR_PAST;
    c->last_call = now;
    k_sync(c, now);
    return PMVP_OK;
}

int k_begin_pe(pmvp_core *c, unsigned pe, pmvp_time now)
{
    int err = k_check_pe(c, pe);
    return err ? err : k_begin(c, now);
}

_Static_assert(offsetof(pmvp_core, pe) + sizeof((pmvp_core *)0)->pe == sizeof(pmvp_core),
               "pmvp_core_copy relies on pe[] being the last member");

int pmvp_core_copy(pmvp_core *dst, const pmvp_core *src)
{
    if (!dst || !src)
        return PMVP_ERR_NULL;
    if (dst != src)
        memcpy(dst, src, offsetof(pmvp_core, pe) + src->cfg.num_pes * sizeof src->pe[0]);
    return PMVP_OK;
}

void k_rebuild_caches(pmvp_core *c)
{
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        pmvp_pe *pe = &c->pe[p];
        pe->pmu.pmcr &= c->pmcr_mask;
        pe->pmu.pmccfiltr &= c->ccfiltr_mask;
        pe->pmu.pmicfiltr &= c->icfiltr_mask;
        pe->ext.pmccr &= c->cfg.feat_pmuv3_extpmn ? (uint32_t)(PMVP_PMCCR_OSLO | PMVP_PMCCR_EPME | PMVP_PMCCR_EPMN) : 0;
        pe->pmu.cntenset &= k_counter_bits(c);
        pe->pmu.intenset &= k_counter_bits(c);
        pe->pmu.ovsset &= k_counter_bits(c);
        for (unsigned n = 0; n < c->cfg.num_counters; n++) {
            pmvp_pmu_counter *k = &pe->pmu.counter[n];
            k->evtyper &= k_evtyper_writable(c, n);
            pe->pmu.event[n] =
                k_decode_event(c, (uint16_t)PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_evtCount, k->evtyper), false);
        }
        for (unsigned n = 0; n < c->cfg.amu_num_aux; n++)
            pe->amu.event1[n] = k_decode_event(c, pe->amu.evtyper1[n], true);
        pe->frozen = k_frozen(c, pe);
    }
    k_routes_stale(c);
}

/* What an instant predicted is of: an overflow whose flag is not yet set,
 * one whose interrupt request is enabled too, or a freeze. */
enum next_kind { NEXT_OVERFLOW, NEXT_INTERRUPT, NEXT_FREEZE };

/* The next instant of `kind` on PE p, or PMVP_TIME_NEVER. */
static pmvp_time pe_next(const pmvp_core *c, unsigned p, enum next_kind kind)
{
    const pmvp_pe *pe = &c->pe[p];
    pmvp_time tf[2];
    freeze_times(c, p, tf);
    if (kind == NEXT_FREEZE)
        return tf[0] < tf[1] ? tf[0] : tf[1];
    uint64_t watched = ~pe->pmu.ovsset & (kind == NEXT_INTERRUPT ? pe->pmu.intenset : UINT64_MAX);
    pmvp_time best = PMVP_TIME_NEVER;
    if (watched & PMVP_PMU_C) {
        pmvp_time t = cycle_counter_overflow_time(c, p);
        if ((pe->pmu.pmcr & PMVP_PMCR_EL0_DP) && (freeze_controls(c, pe) & 1) && t > tf[0])
            t = PMVP_TIME_NEVER; /* frozen with the first range first */
        best = t < best ? t : best;
    }
    for (uint32_t m = watched & k_counters_mask(c); m;) {
        pmvp_time t = overflow_before_freeze(c, p, pmvp_take_lowest(&m), tf);
        best = t < best ? t : best;
    }
    return best;
}

/* The next instant of `kind` on any PE of the core, after the bracket. */
static int next_instant(pmvp_core *c, pmvp_time now, enum next_kind kind, pmvp_time *when)
{
    if (!c || !when)
        return PMVP_ERR_NULL;
    int err = k_begin(c, now);
    if (err)
        return err;
    pmvp_time best = PMVP_TIME_NEVER;
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        pmvp_time t = pe_next(c, p, kind);
        best = t < best ? t : best;
    }
    *when = best;
    return PMVP_OK;
}

int pmvp_core_next_event(pmvp_core *c, pmvp_time now, pmvp_time *when)
{
    return next_instant(c, now, NEXT_OVERFLOW, when);
}

int pmvp_core_next_interrupt(pmvp_core *c, pmvp_time now, pmvp_time *when)
{
    return next_instant(c, now, NEXT_INTERRUPT, when);
}

int pmvp_core_next_freeze(pmvp_core *c, pmvp_time now, pmvp_time *when)
{
    return next_instant(c, now, NEXT_FREEZE, when);
}
