/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The permitted inaccuracy (accuracy.c): the knobs of the inaccuracy
 * profile (docs/ACCURACY.md), drawn from its seed. It stands on count.h.
 */
#ifndef PMVP_ACCURACY_H
#define PMVP_ACCURACY_H

#include <stdint.h>

#include "pmvp/core.h"

/* Sets the generator up from the profile's seed. */
void k_inaccuracy_init(pmvp_core *c);
/* A deviation in [0, bound] as the profile draws it. */
uint64_t k_draw(pmvp_core *c, uint64_t bound);
/* Knob (b): counters `which` of PE p (bit 31: PMCCNTR) pass a boundary.
 * It does not apply to the instruction counter (bit 32), nor does (c). */
void k_boundary(pmvp_core *c, unsigned p, uint64_t which);
/* Knob (c): what a direct read at `now` of counter `which` (31: PMCCNTR)
 * of PE p returns, its true value being `value`. */
uint64_t k_direct_read(pmvp_core *c, unsigned p, unsigned which, uint64_t value, pmvp_time now);
/* Knob (c): every increment of PE p becomes visible to direct reads (after
 * a direct write or a change of control). */
void k_reads_catch_up(pmvp_core *c, unsigned p);
/* Knob (d): `count` occurrences of `event`, less one if one is dropped. */
uint64_t k_after_drop(pmvp_core *c, uint16_t event, uint64_t count);

#endif
