/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Exception-based event profiling (D13.3.2, FEAT_EBEP) and synchronous
 * exception-based event profiling (D13.3.3, FEAT_SEBEP), with the shadow
 * effect and threshold of D13.2.2.
 */
#include "pmvp/ebep.h"

#include "inputs.h"

int pmvp_core_pmu_exception(pmvp_core *c, unsigned pe, pmvp_time now, pmvp_pmu_exception *out)
{
    if (!out)
        return PMVP_ERR_NULL;
    *out = (pmvp_pmu_exception){ 0 };
    int err = k_begin_pe(c, pe, now);
    if (err)
        return err;
    out->state = (uint8_t)k_pmu_exception_of(c, pe, &out->target_el);
    /* RKBPMJ: counters with SYNC == 1 leave their overflows to RNZLVW. */
    out->async_pending =
        out->state == PMVP_PMUEXC_UNMASKED && (k_overflow_requests(c, &c->pe[pe]) & ~k_sync_mode(c, &c->pe[pe]));
    return PMVP_OK;
}

/* ------------------------------------------------------------ threshold */

static uint64_t headroom(const pmvp_core *c, uint16_t event)
{
    for (unsigned i = 0; i < c->cfg.num_sebep_thresholds; i++)
        if (c->threshold[i].event == event)
            return c->threshold[i].headroom;
    return c->cfg.sebep_headroom;
}

/* D13.2.2: the unsigned value of counter n is at or above its
 * IMPLEMENTATION SPECIFIC threshold (expressed as a headroom). */
static bool at_threshold(const pmvp_core *c, const pmvp_pe *pe, unsigned n)
{
    uint64_t h = headroom(c, k_counter_event(pe, n));
    uint64_t v = pe->pmu.counter[n].value;
    if (h == 0)
        return false;
    if (k_counter_is_long(c, pe, n))
        return v >= (uint64_t)0 - h;
    return h > UINT32_MAX || (v & UINT32_MAX) >= (UINT64_C(1) << 32) - h;
}

int pmvp_core_context_sync(pmvp_core *c, unsigned pe, pmvp_time now)
{
    int err = k_begin_pe(c, pe, now);
    if (err || !c->cfg.feat_sebep)
        return err;
    pmvp_pmu *u = &c->pe[pe].pmu;
    u->precise = u->ovsset & k_counters_mask(c);
    for (unsigned n = 0; n < c->cfg.num_counters; n++)
        if (at_threshold(c, &c->pe[pe], n))
            u->precise |= UINT32_C(1) << n;
    return PMVP_OK;
}

/* ------------------------------------------------------------ shadow */

/* Knob (a): counters `overflowed` of PE p have just overflowed; those not
 * precise draw how many further occurrences miss the overflow. */
static void start_shadows(pmvp_core *c, unsigned p, uint32_t overflowed, pmvp_time now)
{
    pmvp_pmu *u = &c->pe[p].pmu;
    const pmvp_inaccuracy *a = &c->cfg.inaccuracy;
    for (unsigned n = 0; n < c->cfg.num_counters; n++) {
        if (!(overflowed >> n & 1))
            continue;
        uint32_t left = (uint32_t)k_draw(c, a->shadow_events);
        if (!left)
            continue;
        u->shadowed |= UINT32_C(1) << n;
        u->shadow_left[n] = left;
        u->slack[n].shadow_until =
            a->shadow_time && now <= PMVP_TIME_NEVER - a->shadow_time ? now + a->shadow_time : PMVP_TIME_NEVER;
    }
}

/* Knob (a): an instruction generating `count` more occurrences reaches
 * counters `pending`, whose overflow happened before it: the shadow of each
 * ends after its drawn number of occurrences or at its time limit. */
static void shorten_shadows(pmvp_core *c, unsigned p, uint32_t pending, uint64_t count, pmvp_time now)
{
    pmvp_pmu *u = &c->pe[p].pmu;
    for (unsigned n = 0; n < c->cfg.num_counters; n++) {
        if (!(pending >> n & 1))
            continue;
        uint32_t *left = &u->shadow_left[n];
        *left = count >= *left ? 0 : *left - (uint32_t)count;
        if (*left == 0 || now >= u->slack[n].shadow_until)
            u->shadowed &= ~(UINT32_C(1) << n);
    }
}

int pmvp_core_retire(pmvp_core *c, unsigned pe, uint16_t event, uint64_t count, uint64_t pc, pmvp_time now,
                     pmvp_retire_result *out)
{
    if (!out)
        return PMVP_ERR_NULL;
    *out = (pmvp_retire_result){ 0 };
    if (!c)
        return PMVP_ERR_NULL;
    if (pe >= c->cfg.num_pes)
        return PMVP_ERR_PE;
    pmvp_pmu *u = &c->pe[pe].pmu;
    uint64_t before = u->ovsset;
    uint32_t slots;
    int err = k_count_retired(c, pe, event, count, now, &slots);
    if (err)
        return err;
    /* The counters that counted the instruction's events, as PMOVSSET
     * numbers them: the route's slot PMVP_ICNTR_SLOT is F0. */
    uint64_t counting = (slots & k_counters_mask(c)) | ((slots >> PMVP_ICNTR_SLOT & 1) ? PMVP_PMU_F0 : 0);
    /* RSSVKV: an event counter counting the event with SYNC == 1 is in
     * synchronous mode if the event is synchronous; the instruction counter
     * with PMICFILTR_EL0.SYNC == 1 is, whatever the events' list says. */
    if (!k_event_synchronous(c, event))
        counting &= PMVP_PMU_F0;
    uint64_t sync_mode = counting & k_sync_mode(c, &c->pe[pe]);
    if (!sync_mode)
        return PMVP_OK;
    /* The shadow effect (knob (a)) is the event counters'; the instruction
     * counter's overflow is always precise, as an implementation may make it. */
    uint32_t events = (uint32_t)(sync_mode & k_counters_mask(c));
    uint32_t overflowed = (uint32_t)(u->ovsset & ~before) & events;
    shorten_shadows(c, pe, u->shadowed & events & ~overflowed, count, now);
    if (c->cfg.inaccuracy.shadow_events)
        start_shadows(c, pe, overflowed & ~u->precise, now);
    /* RNZLVW */
    out->overflows = sync_mode & u->intenset & u->ovsset & ~(uint64_t)u->shadowed;
    out->ppend = out->overflows && k_pmu_exception_of(c, pe, NULL) == PMVP_PMUEXC_UNMASKED;
    if (out->ppend)
        u->pmiar = k_pmiar_address(pc);
    return PMVP_OK;
}
