/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Clock domains: exact conversion between time (integer picoseconds) and
 * clock cycles, with frequency changes and stops at any instant.
 *
 * Cycle edges. A domain that runs at f Hz from instant t0 with accumulated
 * phase p (0 <= p < 10^12, in ps*Hz, i.e. the fraction p/10^12 of a cycle
 * already elapsed at t0) has its edges at the instants t where
 *     (p + (t - t0) * f) / 10^12
 * reaches a whole number. pmvp_clock_cycles(c, t) counts the edges at or
 * before t: an edge exactly at t belongs to t. A frequency change keeps the
 * phase, so a partly elapsed cycle is finished at the new rate; a stop
 * (f = 0) freezes the phase until the clock is started again.
 *
 * All arithmetic is integer with 128-bit intermediates: nothing is rounded.
 */
#ifndef PMVP_CLOCK_H
#define PMVP_CLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

/* Kernel time: picoseconds, SystemC's default resolution. */
typedef uint64_t pmvp_time;

/* "Never": returned for an instant that does not come (a stopped clock, or
 * an edge beyond the representable time). */
#define PMVP_TIME_NEVER UINT64_MAX

#define PMVP_PS_PER_SECOND UINT64_C(1000000000000)

/* The fastest clock pmvp accepts: 1 THz, one edge per picosecond, so that
 * the edges of any stretch of representable time (under 2^64 ps) fit in 64
 * bits. A faster frequency is refused where it enters: PMVP_ERR_CONFIG in a
 * configuration, PMVP_ERR_VALUE in a change. */
#define PMVP_MAX_CLOCK_HZ PMVP_PS_PER_SECOND

typedef struct pmvp_clock {
    uint64_t hz;            /* current frequency; 0 = stopped */
    pmvp_time t0;           /* start of the current constant-frequency stretch */
    uint64_t cycles0;       /* edges from the domain's origin up to t0 */
    uint64_t phase;         /* elapsed fraction of a cycle at t0, in ps*Hz */
    pmvp_time anchor_until; /* the last instant whose phase numerator is within
                               2^62 (pmvp_clock_reanchor) */
} pmvp_clock;

/* Starts a domain at `origin` with frequency `hz` (0 = stopped), no edge yet. */
void pmvp_clock_init(pmvp_clock *c, uint64_t hz, pmvp_time origin);

/* Edges at or before t (t >= c->t0). */
uint64_t pmvp_clock_cycles(const pmvp_clock *c, pmvp_time t);

/* Changes the frequency at `now` (now >= c->t0), keeping the phase. */
void pmvp_clock_set_hz(pmvp_clock *c, uint64_t hz, pmvp_time now);

/* Keeps the phase numerator of the stretch within 64 bits, so that
 * converting an instant to edges stays a 64-bit division: anchors the clock
 * again at `now` (at or after t0, at its own frequency) once the numerator
 * passes 2^62. No edge moves. Inline: the syncs call it for every clock. */
static inline void pmvp_clock_reanchor(pmvp_clock *c, pmvp_time now)
{
    if (now > c->anchor_until)
        pmvp_clock_set_hz(c, c->hz, now);
}

/* The instant of edge number k (1-based) for k > pmvp_clock_cycles(c, c->t0),
 * assuming the frequency does not change; PMVP_TIME_NEVER if the clock is
 * stopped or the instant does not fit in pmvp_time. */
pmvp_time pmvp_clock_edge_time(const pmvp_clock *c, uint64_t k);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
