/* SPDX-License-Identifier: Apache-2.0 */
#include "pmvp/clock.h"

#include "clocks.h"
#include "u128.h"

/* The last instant at which phase + (t - t0) * hz is within 2^62. */
static pmvp_time anchor_until(const pmvp_clock *c)
{
    if (c->hz == 0)
        return PMVP_TIME_NEVER; /* stopped: the numerator does not grow */
    uint64_t room = ((UINT64_C(1) << 62) - c->phase) / c->hz;
    return room > PMVP_TIME_NEVER - c->t0 ? PMVP_TIME_NEVER : c->t0 + room;
}

void pmvp_clock_init(pmvp_clock *c, uint64_t hz, pmvp_time origin)
{
    c->hz = hz;
    c->t0 = origin;
    c->cycles0 = 0;
    c->phase = 0;
    c->anchor_until = anchor_until(c);
}

/* Phase numerator (ps*Hz) accumulated from t0 to t: phase + (t - t0) * hz. */
static pmvp_u128 accumulated(const pmvp_clock *c, pmvp_time t)
{
    return (pmvp_u128)c->phase + (pmvp_u128)(t - c->t0) * c->hz;
}

bool k_clock_plausible(const pmvp_clock *c)
{
    return c->hz <= PMVP_MAX_CLOCK_HZ && c->phase < PMVP_PS_PER_SECOND && c->anchor_until == anchor_until(c);
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
    c->anchor_until = anchor_until(c);
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
