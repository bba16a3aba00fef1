/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Converting an instant to a clock's edges on the hot paths (ground floor,
 * clock.c): every sync converts it for each clock.
 */
#ifndef PMVP_CLOCKS_H
#define PMVP_CLOCKS_H

#include <stdbool.h>

#include "pmvp/clock.h"

/* pmvp_clock_cycles(c, t), inline up to c->anchor_until, where the phase
 * numerator phase + (t - t0) * hz is within 2^62 (the syncs keep it there,
 * pmvp_clock_reanchor): a 64-bit product and a division by a constant. */
static inline uint64_t k_clock_cycles(const pmvp_clock *c, pmvp_time t)
{
    if (t <= c->t0)
        return c->cycles0;
    if (t <= c->anchor_until)
        return c->cycles0 + (c->phase + (t - c->t0) * c->hz) / PMVP_PS_PER_SECOND;
    return pmvp_clock_cycles(c, t);
}

/* Whether `c` is a clock pmvp_clock_init and pmvp_clock_set_hz could have
 * made (a restored one is checked): at most PMVP_MAX_CLOCK_HZ, a phase
 * under one cycle, the anchor its fields imply. */
bool k_clock_plausible(const pmvp_clock *c);

#endif
