/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Report routes (caches.h's k_route): which counters a report of an event
 * by a PE increments. core.c finds and follows them; they are derived here,
 * beside what counts, so that a register write can keep the routes it does
 * not touch (k_routes_retyped).
 */
#include "count.h"
#include "routes.h"

/* Whether a route derived now may be kept. While time alone can freeze
 * counters, or a counter's per-cycle value is followed (threshold and edge
 * counting), it is not: every report then takes count_occurrences, which
 * brings the core to its instant. Nor while knob (d) may drop occurrences,
 * which count_occurrences draws: the common case of a report then need not
 * ask. */
static bool routes_kept(pmvp_core *c)
{
    return !(k_freeze_timed(c) || k_threshold_any(c) || c->cfg.inaccuracy.drop_ppm);
}

/* Whether event counter n of PE p counts `event` reported by PE pe (D14.4:
 * if p == pe or its effective MT is 1, in pe's context). */
static bool counter_on_route(const pmvp_core *c, unsigned p, unsigned n, unsigned pe, uint16_t event)
{
    return k_counter_event(&c->pe[p], n) == event && (p == pe || k_effective_mt(c, p, n)) &&
           k_counts(c, p, n, &c->pe[pe].ctx);
}

/* Route r's own_only, from its counters. */
static void set_own_only(const pmvp_core *c, k_route *r)
{
    r->own_only = !r->amu_arch && !r->amu_aux;
    for (unsigned p = 0; p < c->cfg.num_pes; p++)
        r->own_only &= p == r->pe || !r->pmu[p];
}

void k_derive_route(pmvp_core *c, k_route *r, unsigned pe, uint16_t event)
{
    uint64_t generation = routes_kept(c) ? k_caches(c)->generation : k_caches(c)->generation - 1;
    *r = (k_route){ .generation = generation, .event = event, .pe = (uint8_t)pe };
    for (unsigned p = 0; p < c->cfg.num_pes; p++)
        for (unsigned n = 0; n < c->cfg.num_counters; n++)
            if (counter_on_route(c, p, n, pe, event))
                r->pmu[p] |= UINT32_C(1) << n;
    if (event == PMVP_EV_INST_RETIRED && c->cfg.feat_pmuv3_icntr && k_instruction_counter_counts(c, pe, &c->pe[pe].ctx))
        r->pmu[pe] |= UINT32_C(1) << PMVP_ICNTR_SLOT;
    uint32_t arch;
    k_amu_occurrence_counters(c, pe, event, &arch, &r->amu_aux);
    r->amu_arch = (uint8_t)arch;
    set_own_only(c, r);
}

void k_routes_retyped(pmvp_core *c, unsigned p, unsigned n, uint64_t before)
{
    k_core_caches *cc = k_caches(c);
    if (cc->generation != before + 1 || !routes_kept(c))
        return;
    uint32_t bit = UINT32_C(1) << n;
    for (k_route *r = cc->route; r != cc->route + K_ROUTES; r++) {
        if (r->generation != before)
            continue;
        r->generation = cc->generation;
        r->pmu[p] = counter_on_route(c, p, n, r->pe, r->event) ? r->pmu[p] | bit : r->pmu[p] & ~bit;
        set_own_only(c, r);
    }
}
