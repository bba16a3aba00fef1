/* SPDX-License-Identifier: Apache-2.0 */
#include "pmvp/clock.h"

#include "u128.h"

void pmvp_clock_init(pmvp_clock *c, uint64_t hz, pmvp_time origin)
{
    c->hz = hz;
    c->t0 = origin;
    c->cycles0 = 0;
    c->phase = 0;
}

/* Phase numerator (ps*Hz) accumulated from t0 to t: phase + (t - t0) * hz. */
static pmvp_u128 accumulated(const pmvp_clock *c, pmvp_time t)
{
    return (pmvp_u128)c->phase + (pmvp_u128)(t - c->t0) * c->hz;
}

uint64_t pmvp_clock_cycles(const pmvp_clock *c, pmvp_time t)
{
    if (c->hz == 0 || t <= c->t0)
        return c->cycles0;
    pmvp_u128 acc = accumulated(c, t);
    /* The same quotient; a 64-bit division when the numerator fits (a few
     * seconds at GHz), which costs a fraction of a 128-bit one. */
    if ((acc >> 64) == 0)
        return c->cycles0 + (uint64_t)acc / PMVP_PS_PER_SECOND;
    return c->cycles0 + (uint64_t)(acc / PMVP_PS_PER_SECOND);
}

void pmvp_clock_set_hz(pmvp_clock *c, uint64_t hz, pmvp_time now)
{
    if (c->hz != 0 && now > c->t0) {
        pmvp_u128 acc = accumulated(c, now);
        c->cycles0 += (uint64_t)(acc / PMVP_PS_PER_SECOND);
        c->phase = (uint64_t)(acc % PMVP_PS_PER_SECOND);
    }
    c->t0 = now;
    c->hz = hz;
}

void pmvp_clock_reanchor(pmvp_clock *c, pmvp_time now)
{
    if (now > c->t0 && accumulated(c, now) >> 62)
        pmvp_clock_set_hz(c, c->hz, now);
}

pmvp_time pmvp_clock_edge_time(const pmvp_clock *c, uint64_t k)
{
    if (c->hz == 0 || k <= c->cycles0)
        return PMVP_TIME_NEVER;
    /* Smallest dt with phase + dt*hz >= (k - cycles0) * 10^12. */
    pmvp_u128 need = (pmvp_u128)(k - c->cycles0) * PMVP_PS_PER_SECOND - c->phase;
    pmvp_u128 dt = (need + c->hz - 1) / c->hz;
    if (dt > (pmvp_u128)(PMVP_TIME_NEVER - 1 - c->t0))
        return PMVP_TIME_NEVER;
    return c->t0 + (pmvp_time)dt;
}
