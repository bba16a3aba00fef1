/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The permitted inaccuracy of D13.2.2 (pmvp_inaccuracy): the generator, and
 * knobs (b) boundaries, (c) delayed visibility and (d) drops. Knob (a), the
 * shadow effect, belongs to synchronous profiling (ebep.c).
 *
 * Every knob is off when its bound is 0, and then leaves the exact model's
 * state untouched: no draw is made, so the counts are the exact ones.
 */
#include "accuracy.h"
#include "count.h"

void k_inaccuracy_init(pmvp_core *c)
{
    c->rng = c->cfg.inaccuracy.seed;
}

/* SplitMix64: a small generator whose whole state is one word, so a core
 * stays a plain value that copies with its future draws. */
static uint64_t next_random(pmvp_core *c)
{
    uint64_t z = (c->rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t k_draw(pmvp_core *c, uint64_t bound)
{
    if (bound == 0)
        return 0;
    if (c->cfg.inaccuracy.draw == PMVP_DRAW_BOUND)
        return bound;
    return (uint64_t)(((pmvp_u128)next_random(c) * ((pmvp_u128)bound + 1)) >> 64);
}

/* Whether counter `which` of PE p (31: PMCCNTR) may be made inaccurate: not
 * when it counts an architectural exceptional circumstance. */
static bool may_deviate(const pmvp_pe *pe, unsigned which)
{
    return which == PMVP_CYCLE_COUNTER || !pmvp_event_exceptional(k_counter_event(pe, which));
}

static uint64_t value_of(const pmvp_pe *pe, unsigned which)
{
    return which == PMVP_CYCLE_COUNTER ? pe->pmu.pmccntr : pe->pmu.counter[which].value;
}

/* The part of a counter's value since its latest overflow point. */
static uint64_t since_overflow(const pmvp_core *c, const pmvp_pe *pe, unsigned which)
{
    bool long_counter =
        which == PMVP_CYCLE_COUNTER ? (pe->pmu.pmcr & PMVP_PMCR_EL0_LC) : k_counter_is_long(c, pe, which);
    uint64_t v = value_of(pe, which);
    return long_counter ? v : v & UINT32_MAX;
}

/* Knob (b), D13.2.2 "In exceptional circumstances, such as enabling or
 * disabling the counter, a change in Security state, or other boundary
 * condition, it is acceptable for the count to be inaccurate": a deviation
 * in [-lo, +K], where lo keeps the counter from losing more than it counted
 * since the previous boundary or going back past its latest overflow. An
 * absolute bound per boundary shrinks relative to a longer sampling period,
 * as the rule asks. */
void k_boundary(pmvp_core *c, unsigned p, uint64_t which)
{
    uint64_t k = c->cfg.inaccuracy.boundary_events;
    if (!k)
        return;
    pmvp_pe *pe = &c->pe[p];
    for (unsigned n = 0; n <= PMVP_CYCLE_COUNTER; n++) {
        if (!(which >> n & 1) || !may_deviate(pe, n))
            continue;
        pmvp_slack *s = &pe->pmu.slack[n];
        uint64_t mask = n == PMVP_CYCLE_COUNTER ? UINT64_MAX : c->counter_mask;
        uint64_t since = (value_of(pe, n) - s->base) & mask;
        uint64_t lo = since_overflow(c, pe, n);
        lo = lo < since ? lo : since;
        lo = lo < k ? lo : k;
        uint64_t d = k_draw(c, lo + k);
        if (d >= lo) {
            if (n == PMVP_CYCLE_COUNTER)
                k_cycle_counter_add(pe, d - lo);
            else
                k_counter_add(c, p, pe, n, d - lo);
        } else if (n == PMVP_CYCLE_COUNTER) {
            pe->pmu.pmccntr -= lo - d;
        } else {
            pe->pmu.counter[n].value -= lo - d;
        }
        s->base = value_of(pe, n);
    }
    k_freeze_update(c, p); /* a deviation may overflow a counter */
}

/* Knob (c), D13.2.2 "the architecture does not define the point in a
 * pipeline where the event counter is incremented, relative to the point
 * where a read of the event counters is made": a read shows the true value
 * and fixes it for up to D processor cycles; reads in that window see no
 * newer increment. An increment is therefore seen by every read made D
 * cycles after it. */
uint64_t k_direct_read(pmvp_core *c, unsigned p, unsigned which, uint64_t value, pmvp_time now)
{
    uint32_t d_max = c->cfg.inaccuracy.read_delay_cycles;
    pmvp_pe *pe = &c->pe[p];
    if (!d_max || !may_deviate(pe, which))
        return value;
    pmvp_slack *s = &pe->pmu.slack[which];
    if (now < s->shown_until)
        return s->shown;
    uint64_t d = k_draw(c, d_max);
    pmvp_u128 window = c->clock.hz ? (pmvp_u128)d * PMVP_PS_PER_SECOND / c->clock.hz : 0;
    s->shown = value;
    s->shown_until = window >= PMVP_TIME_NEVER - now ? PMVP_TIME_NEVER : now + (pmvp_time)window;
    return value;
}

void k_reads_catch_up(pmvp_core *c, unsigned p)
{
    if (!c->cfg.inaccuracy.read_delay_cycles)
        return;
    for (unsigned n = 0; n <= PMVP_CYCLE_COUNTER; n++)
        c->pe[p].pmu.slack[n].shown_until = 0;
}

/* Knob (d), D13.2.2 "Under very unusual, non-repeating pathological cases,
 * the counts can be inaccurate": a seeded draw per report, so no program
 * can trigger a drop systematically; never for exceptional events. */
uint64_t k_after_drop(pmvp_core *c, uint16_t event, uint64_t count)
{
    if (count == 0 || pmvp_event_exceptional(event))
        return count;
    return next_random(c) % 1000000 < c->cfg.inaccuracy.drop_ppm ? count - 1 : count;
}
