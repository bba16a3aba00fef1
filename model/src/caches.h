/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the kernel derives from a core's state and keeps until an input
 * changes it: report routes, follower sets, rates, the frames' decode.
 * Private to the library: the installed core.h gives them storage of a
 * published size (pmvp_core.caches, pmvp_pe.caches), so that a caller owns
 * the whole core while a cache can change without changing the ABI.
 *
 * Ground under the floors: types and their storage, no calls.
 */
#ifndef PMVP_CACHES_H
#define PMVP_CACHES_H

#include <stdbool.h>
#include <stdint.h>

#include "pmvp/core.h"
#include "pmvp/ext.h"

/* The storage is declared as words; these views of it are exempt from
 * type-based alias analysis, as any view of raw storage must be. */
#define K_CACHE_VIEW __attribute__((may_alias))

/* The rate of a counter while nothing that decides what it counts changes
 * (count.c), packed in 8 bytes to keep the caches small: bits [7:0] the
 * clock its increments follow (count.c's enum source), [15:8] the barrel
 * thread for FGMT's slot cycles, [63:16] the increments a counted cycle
 * brings (0: it does not count). Those are at most 8 PEs' levels or 16
 * batches' occurrences a cycle, each below 2^32, so they fit in 48 bits. */
typedef struct k_packed_rate {
    uint64_t packed;
} k_packed_rate;

/* A PE's caches, valid while k_core_caches.rates_valid: each counter's
 * rate, the event counters whose rate is not zero, the event counters that
 * count events in the PE's own context (its filters and prohibitions pass;
 * valid while k_core_caches.own_counts_valid), and whether PMCCNTR counts
 * processor cycles. */
typedef struct K_CACHE_VIEW k_pe_caches {
    k_packed_rate rate[PMVP_MAX_COUNTERS];
    k_packed_rate amu_rate[PMVP_AMU_ARCH_COUNTERS + PMVP_AMU_MAX_AUX]; /* group 0, then group 1 */
    uint32_t counting;
    uint32_t amu_counting; /* AMU counters whose rate is not zero, as amu_rate */
    uint32_t level_driven; /* event counters whose event is reported as a level */
    uint32_t own_counts;
    /* Threshold and edge counting (count.c): the counters whose threshold
     * function is enabled, those whose per-cycle value is followed (those,
     * and the counter n-1 an odd one links to), and those of them allowed
     * to count (D13.8's "counting allowed"). */
    uint32_t th_on, th_tracked, th_allowed;
    bool cycles_count;
    /* The external frames' access checks (ext.c's permission word), by the
     * access's security state and the register's enum pmvp_ext_domain:
     * always valid, recomputed by k_ext_permissions whenever an input they
     * follow changes (not dropped with the rates). */
    uint8_t permission[PMVP_ROOT + 1][PMVP_EXT_MOST_SECURE + 1];
} k_pe_caches;

/* Where a report of one event by one PE goes (pmvp_core_report): the counters
 * it increments, derived from the state and kept until the next input that
 * may change that state. Every such input passes the core's time discipline,
 * which advances `generation`; a route of an older generation is stale. */
typedef struct k_route {
    uint64_t generation;
    uint16_t event;
    uint8_t pe;
    bool own_only;              /* only event counters of `pe`: no AMU counter, no other PE's */
    uint8_t amu_arch;           /* AMU architected counters, by n */
    uint32_t amu_aux;           /* AMU auxiliary counters, by n */
    uint32_t pmu[PMVP_MAX_PES]; /* event counters of each PE, by n; bit PMVP_ICNTR_SLOT:
                                   the reporting PE's instruction counter */
} k_route;

#define K_ROUTES 64 /* routes kept per core (direct-mapped): an ISS tells some 40 events */

/* The counters whose rate follows level input `level` (pmvp_event_level_index)
 * of PE `pe` (count.c): each PE's event counters, and pe's AMU counters, by n.
 * Of pe's own, those counted with MT == 0 (`own`) follow that level alone:
 * their rate on a cycle it holds (count.c's held_rate, by n) is kept with
 * them. Kept as routes are, while their generation is the core's. */
typedef struct k_followers {
    uint64_t generation;
    uint8_t pe;
    uint8_t level;
    uint8_t first_pe, end_pe; /* the PEs with event counters among them: first_pe <= p < end_pe */
    uint32_t amu;
    uint32_t pmu[PMVP_MAX_PES];
    uint32_t own;
    k_packed_rate held[PMVP_MAX_COUNTERS];
} k_followers;

#define K_FOLLOWERS 8 /* follower sets kept per core (direct-mapped) */

/* A core's caches. */
typedef struct K_CACHE_VIEW k_core_caches {
    uint64_t generation;   /* advanced by every input that may change what counts */
    bool rates_valid;      /* the PEs' rate caches hold the present state's rates */
    bool own_counts_valid; /* their own_counts do (filled first: the rates read them) */
    /* Freeze on overflow, valid with the rates: some PE has a counter whose
     * overflow would freeze counters (armed), and one of those counts
     * cycles, so time alone can freeze (timed). */
    bool freeze_armed, freeze_timed;
    /* Threshold and edge counting, valid with the rates: some PE follows
     * a counter's per-cycle value (th_tracked), so a report must come at
     * its instant and a level change brings the whole core. */
    bool th_any;
    /* What an input must concern to matter to an interrupt
     * (pmvp_core_input_may_interrupt), valid while watch_valid: the level
     * inputs (by pmvp_event_level_index) and the events (by number mod 64, so
     * a superset) of the counters whose overflow can request one. Dropped
     * with the routes and by a write of PMINTENSET or PMINTENCLR. */
    bool watch_valid;
    uint64_t levels_watched, events_watched;
    /* Batches spread over processor cycles (pmvp_core_report_batches),
     * set only within that call: on every processor cycle, PE spread[i].pe
     * generates spread[i].per_cycle occurrences of spread[i].event (0:
     * none on these cycles), counted as the level of a PER_CYCLE event is
     * (count.c). num_spread is 0 outside the call. */
    uint8_t num_spread;
    struct {
        uint32_t per_cycle;
        uint16_t event;
        uint8_t pe;
    } spread[PMVP_MAX_BATCHES];
    k_route route[K_ROUTES];
    k_followers followers[K_FOLLOWERS];
    /* The external frames' decode (ext.c), by frame and 32-bit word of the
     * 4 KiB frame: 1 + the index of the register table's row there, or 0
     * for reserved space. Follows from the configuration, at init. */
    uint8_t ext_row[2][4096 / 4];
} k_core_caches;

_Static_assert(sizeof(k_pe_caches) <= sizeof((pmvp_pe *)0)->caches, "PMVP_PE_CACHE_WORDS holds a PE's caches");
_Static_assert(sizeof(k_core_caches) <= sizeof((pmvp_core *)0)->caches, "PMVP_CORE_CACHE_WORDS holds a core's caches");

/* A core's caches (k_caches) and a PE's (k_pe_caches), const for a const
 * core or PE. */
static inline k_core_caches *k_core_caches_rw(pmvp_core *c)
{
    return (k_core_caches *)(void *)c->caches;
}
static inline const k_core_caches *k_core_caches_ro(const pmvp_core *c)
{
    return (const k_core_caches *)(const void *)c->caches;
}
static inline k_pe_caches *k_pe_caches_rw(pmvp_pe *pe)
{
    return (k_pe_caches *)(void *)pe->caches;
}
static inline const k_pe_caches *k_pe_caches_ro(const pmvp_pe *pe)
{
    return (const k_pe_caches *)(const void *)pe->caches;
}
#define k_caches(c) _Generic((c), const pmvp_core * : k_core_caches_ro, default : k_core_caches_rw)(c)
#define k_pe_caches(pe) _Generic((pe), const pmvp_pe * : k_pe_caches_ro, default : k_pe_caches_rw)(pe)

#endif
