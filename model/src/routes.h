/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Report routes (routes.c): which counters a report of an event reaches,
 * derived from the state and kept while it holds. It stands on count.h.
 */
#ifndef PMVP_ROUTES_H
#define PMVP_ROUTES_H

#include <stdint.h>

#include "pmvp/core.h"
#include "caches.h"

/* Derives route *r of a report of `event` by PE `pe` (D14.4: a counter of
 * PE p counts an event of PE pe if p == pe or its effective MT is 1, and it
 * counts in pe's context) from the present state. A route that may not be
 * kept gets an older generation, which is never current. */
void k_derive_route(pmvp_core *c, k_route *r, unsigned pe, uint16_t event);

/* Event counter n of PE p was given a new PMEVTYPER (event, filter, MT,
 * threshold), which made every route stale (k_routes_stale) when the
 * core's generation was `before`. Nothing else a route holds depends on
 * that register, so the routes of generation `before` are kept, bit n of
 * PE p derived again in each, unless something else changed since (the
 * generation moved on further: a freeze) or routes may no longer be kept
 * (a freeze timed, a threshold followed: routes.c's routes_kept). */
void k_routes_retyped(pmvp_core *c, unsigned p, unsigned n, uint64_t before);

#endif
