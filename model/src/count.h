/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine: the first floor of the kernel (CONTRIBUTING.md, "The
 * floors"). It knows time, clocks, rates, the lazy advance of every counter,
 * the rules that decide what counts (enables, prohibition, filtering,
 * multithreading), overflow, its prediction and PMUIRQ, and the permitted
 * inaccuracy. It reads the architectural state (pmvp_core) but knows no
 * register: how a register is encoded, reached, checked, read or written is
 * the register files' (regfile.h), which stand on it; the inputs (core.c,
 * ebep.c) stand on both.
 *
 * A header for each of its files: support.h (which events the
 * configuration supports; the engine's ground), this one (count.c: the
 * bracket, the lazy advance, what counts when, overflow and PMUIRQ, and the
 * inlines every floor above uses), routes.h (report routes) and accuracy.h
 * (the permitted inaccuracy), the last two standing on this one.
 *
 * Its functions carry the prefix k_ (the public API's is pmvp_) and are
 * hidden from the library's exports; the test kernel.symbols holds both
 * rules, the test kernel.floors the floors.
 */
#ifndef PMVP_COUNT_H
#define PMVP_COUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "pmvp/core.h"
#include "pmvp/ebep.h"
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/fields.h"
#include "pmvp/amu.h"
#include "pmvp/pmu.h"
#include "bits.h"
#include "caches.h"
#include "support.h"
#include "u128.h"

/* ---- the bracket (count.c): every access and input begins with it */

/* Rejects a call from the past and brings every counter up to `now`; then
 * the call may read or change the state at `now`. It changes nothing a
 * report route depends on: a caller that does calls k_routes_stale. */
int k_begin(pmvp_core *c, pmvp_time now);

/* PMVP_ERR_NULL without a core, PMVP_ERR_PE when `pe` is not one of its PEs.
 * Inline: every report begins with it. */
static inline int k_check_pe(const pmvp_core *c, unsigned pe)
{
    if (!c)
        return PMVP_ERR_NULL;
    return pe < c->cfg.num_pes ? PMVP_OK : PMVP_ERR_PE;
}

/* As k_begin, after k_check_pe. */
int k_begin_pe(pmvp_core *c, unsigned pe, pmvp_time now);

/* The bracket of a pure query of PE pe at t: k_check_pe, and PMVP_ERR_PAST
 * for an instant before the core's present. It changes nothing. */
static inline int k_look_pe(const pmvp_core *c, unsigned pe, pmvp_time t)
{
    int err = k_check_pe(c, pe);
    return err ? err : t < c->last_call ? PMVP_ERR_PAST : PMVP_OK;
}

/* Brings every counter of the core up to `now` (now >= c->sync_time), those
 * a level change left ahead of sync_time (pmvp_pe.ahead) included. */
void k_sync(pmvp_core *c, pmvp_time now);

/* The pure query's engine: PE p as it is at t (>= c->sync_time) if no
 * input comes before t: c->pe[p] itself when there is nothing to advance,
 * else *scratch, a copy of its state (not of its rate caches) advanced over
 * the stretch. The core is left as it was. */
const pmvp_pe *k_pe_at(const pmvp_core *c, unsigned p, pmvp_time t, pmvp_pe *scratch);

/* What decides what counts (enables, filters, context, controls, events,
 * MT, PE states, the SoEMT active thread, the AMU's enables) changed: every
 * cached report route and every cached rate is stale. */
static inline void k_routes_stale(pmvp_core *c)
{
    k_core_caches *cc = k_caches(c);
    cc->generation++;
    cc->rates_valid = cc->own_counts_valid = cc->watch_valid = false;
}

/* A write of PE p's PMEVTYPER<n> made the rate caches stale
 * (k_routes_stale): while they held the state before it (`were_valid`),
 * only counter n's entries and its pair's are computed again, and they are
 * valid once more. Setting up many counters, and Linux reprogramming them at
 * each context switch, then costs a few counters' rates a write, not
 * every counter's. */
void k_rates_retyped(pmvp_core *c, unsigned p, unsigned n, bool were_valid);

/* The batches' spreads (pmvp_core.spread) changed on a core synced to the
 * instant: the counters of occurrence events take their rates again, the
 * others keep theirs (pmvp_core_report_batches). */
void k_spread_changed(pmvp_core *c);

/* Level input `level` (pmvp_event_level_index) of PE pe takes `value` at
 * `now`: the bracket of a level change. Only the counters whose rate follows
 * it are brought to now (they are then ahead of the core's sync, each from
 * where its clock stood: pmvp_pe.ahead); the next sync of the whole core
 * brings the others. PMVP_ERR_PAST before the last call. */
int k_set_level(pmvp_core *c, unsigned pe, unsigned level, uint32_t value, pmvp_time now);

/* Rebuilds what is derived from the state (the decoded events of the
 * counters, writable-bit masks applied) and makes every report route stale:
 * after a restore (checkpoint.c). */
void k_rebuild_caches(pmvp_core *c);

/* ---- what counts when, overflow and PMUIRQ (count.c) */

/* The AMU counters of PE p that count occurrences of `event` now: bitmaps of
 * architected and auxiliary counters. */
void k_amu_occurrence_counters(const pmvp_core *c, unsigned p, uint16_t event, uint32_t *arch, uint32_t *aux);

/* The event counted by counter n of PE p (evtCount). */
uint16_t k_counter_event(const pmvp_pe *pe, unsigned n);

/* Whether the processor clock is stopped: every PE off, or every PE in
 * WFI/WFE with clock_stops_in_wfx (D14.4). */
bool k_clock_stopped(const pmvp_core *c);

/* Effective PMCCR.EPMN: the first counter of the third range (D13.1.1),
 * N without FEAT_PMUv3_EXTPMN; and the same from a PMCCR image. */
unsigned k_epmn(const pmvp_core *c, const pmvp_pe *pe);
unsigned k_epmn_of(const pmvp_core_config *cfg, uint64_t pmccr);
/* Effective MDCR_EL2.HPMN: the first counter of the second range (D13.1.1),
 * at most EPMN (MFYQC); and the same from an MDCR_EL2 (or HDCR) image and
 * an Effective EPMN. */
unsigned k_hpmn(const pmvp_core *c, const pmvp_pe *pe);
unsigned k_hpmn_of(const pmvp_core_config *cfg, uint64_t mdcr_el2, unsigned epmn);
/* The range of event counter n of PE state pe: 0 the first, 1 the second,
 * 2 the third (reserved for an external agent). */
unsigned k_range_of(const pmvp_core *c, const pmvp_pe *pe, unsigned n);

/* Whether counter n of PE p counts an event Attributable to context `src`
 * now: enabled, not prohibited, not filtered (D13.5, D13.7). The one place
 * that decides it for event counters. */
bool k_counts(const pmvp_core *c, unsigned p, unsigned n, const pmvp_context *src);

/* Effective value of PMEVTYPER<n>.MT of PE p (D13.6). */
bool k_effective_mt(const pmvp_core *c, unsigned p, unsigned n);

/* Whether the cycle counter of PE p counts processor cycles now (D13.5.4). */
bool k_cycle_counter_counts(const pmvp_core *c, unsigned p);

/* Counter n of PE p went from `old` up by `inc` with a carry out of bit 31:
 * sets its overflow flag (D13.3) and feeds a CHAIN counter above it; for
 * PMVP_ICNTR_SLOT, sets F0 if it passed 2^64. `to`
 * is the state of PE p being changed: c->pe[p], or a copy of it being
 * advanced by k_pe_at; the rules are read from c. */
void k_counter_carry(const pmvp_core *c, unsigned p, pmvp_pe *to, unsigned n, uint64_t old, pmvp_u128 inc);

/* Adds `inc` increments to event counter n of PE p, in `to` (as
 * k_counter_carry). Without a carry out of bit 31 there is no overflow at
 * bit 31 or at bit 63 and nothing for a CHAIN counter: that common case is
 * inline, the rest is k_counter_carry. */
static inline void k_counter_add(const pmvp_core *c, unsigned p, pmvp_pe *to, unsigned n, pmvp_u128 inc)
{
    pmvp_pmu_counter *k = &to->pmu.counter[n];
    uint64_t old = k->value;
    k->value = (uint64_t)(old + inc) & c->counter_mask;
    if (inc > UINT32_MAX - (old & UINT32_MAX)) /* a carry out of bit 31; 64-bit when inc is */
        k_counter_carry(c, p, to, n, old, inc);
}

/* Adds `count` to each event counter of PE state `to` in `which`, as
 * k_counter_add does but without the carries: true when an add carried out
 * of bit 31, and then k_counters_carried must follow. Split so that the
 * loop of a report calls nothing (its registers stay its own). The counters
 * of a report count an occurrence event, so none of them is a CHAIN counter
 * that another's carry feeds: their carries may follow all the adds. Bit
 * PMVP_ICNTR_SLOT adds to the instruction counter, 64 bits wide as every
 * counter is with PMUv3p5, which FEAT_PMUv3_ICNTR needs. */
static inline bool k_counters_add(const pmvp_core *c, pmvp_pe *to, uint32_t which, uint64_t count)
{
    bool carried = false;
    while (which) {
        pmvp_pmu_counter *k = &to->pmu.counter[pmvp_take_lowest(&which)];
        uint64_t old = k->value;
        k->value = (old + count) & c->counter_mask;
        carried |= count > UINT32_MAX - (old & UINT32_MAX);
    }
    return carried;
}

/* The carries of k_counters_add(c, &c->pe[p], which, count), after it:
 * k_counter_carry for each counter of `which` whose add carried. */
void k_counters_carried(pmvp_core *c, unsigned p, uint32_t which, uint64_t count);

/* The writable bits of PMEVTYPER<n>: TLC only in odd counters (D24.5.12). */
static inline uint64_t k_evtyper_writable(const pmvp_core *c, unsigned n)
{
    return n % 2 ? c->evtyper_mask : c->evtyper_mask & ~PMVP_PMEVTYPER_EL0_TLC;
}

/* Threshold and edge counting (D13.8, count.c). Whether counter n of PE
 * state `pe` counts through its threshold function (on), and whether its
 * per-cycle value is followed: on, or the counter n + 1 links to (TLC). */
bool k_threshold_on(const pmvp_core *c, unsigned p, unsigned n);
bool k_threshold_tracked(const pmvp_core *c, unsigned p, unsigned n);
/* Whether some counter of the core is followed so (the rates made valid). */
bool k_threshold_any(pmvp_core *c);
/* `count` occurrences of its event for counter n of PE p, at the core's
 * present (after the bracket): counted, or part of the V_B of the cycle
 * in progress if its per-cycle value is followed (both for a counter
 * linked to, whose own count has no threshold function). */
void k_occurrence_add(pmvp_core *c, unsigned p, unsigned n, uint64_t count);

/* Whether PE p's instruction counter (FEAT_PMUv3_ICNTR) counts an
 * instruction it retires in context `src` now. The one place that decides it. */
bool k_instruction_counter_counts(const pmvp_core *c, unsigned p, const pmvp_context *src);

/* Adds `inc` to PMCCNTR of PE p, setting PMOVSSET.C on overflow. */
void k_cycle_counter_add(pmvp_pe *pe, pmvp_u128 inc);

#define PMVP_U128_NEVER (~(pmvp_u128)0)
/* Increments of event counter n of PE p after which a counter whose
 * overflow flag is clear and whose interrupt request is enabled, or whose
 * overflow freezes counters, overflows: n itself, or the CHAIN counter n + 1
 * it feeds; n == PMVP_ICNTR_SLOT: the instruction counter. PMVP_U128_NEVER:
 * none. */
pmvp_u128 k_increments_to_interrupt(const pmvp_core *c, unsigned p, unsigned n);
/* The slots of PE p's counters (by n, the instruction counter at
 * PMVP_ICNTR_SLOT) for which k_increments_to_interrupt may be finite: those
 * whose overflow requests an interrupt or freezes counters, and the counters
 * below such a CHAIN counter. The others' answer is PMVP_U128_NEVER. */
uint32_t k_interrupt_candidates(const pmvp_core *c, unsigned p);

/* Whether counter n's overflow is at bit 63 rather than 31 (PMCR.LP, HLP). */
bool k_counter_is_long(const pmvp_core *c, const pmvp_pe *pe, unsigned n);

/* The counters of PE state `pe` whose overflow requests PMUIRQ or the PMU
 * exception (D13.3.1, RKBPMJ): PMOVSSET, PMINTENSET and the global enable
 * of their range (bit 31: PMCCNTR). */
uint64_t k_overflow_requests(const pmvp_core *c, const pmvp_pe *pe);

/* The counters of PE state `pe` whose SYNC bit is set (FEAT_SEBEP): event
 * counters by PMEVTYPER<n>.SYNC, the instruction counter (F0, bit 32) by
 * PMICFILTR_EL0.SYNC. */
uint64_t k_sync_mode(const pmvp_core *c, const pmvp_pe *pe);

/* Freeze on overflow (D13.5.2.1): the counters that the overflow flags and
 * their controls of PE state `pe` freeze (bit 31: PMCCNTR, bit 32: PMICNTR). */
uint64_t k_frozen(const pmvp_core *c, const pmvp_pe *pe);
/* After a change of PE p's overflow flags or of their controls at the
 * core's present: holds its freeze (pmvp_pe.frozen); when that changed,
 * what counts did, and the routes are stale. */
void k_freeze_update(pmvp_core *c, unsigned p);
/* Whether an overflow due to time alone can freeze counters (a source of a
 * freeze counts at a rate): a report must then bring the core to its
 * instant first, and its route is not cached. */
bool k_freeze_timed(pmvp_core *c);

/* Whether a report of `event` (level < 0) or a change of level input
 * `level` (its index in the level table) can change when a counter whose
 * overflow can request an interrupt overflows: one counts it, or feeds such a
 * counter through CHAIN (pmvp_core_input_may_interrupt; for a report, true
 * may be conservative). */
bool k_input_may_interrupt(pmvp_core *c, uint16_t event, int level);

/* PMUIRQ of PE p in state `pe` (c->pe[p], or k_pe_at's copy of it)
 * (D13.3.1): the one function that computes it. */
bool k_irq_level(const pmvp_core *c, unsigned p, const pmvp_pe *pe);

/* The counters of PE p that are enabled (Table D13-4), bit 31: PMCCNTR,
 * bit 32: PMICNTR. */
uint64_t k_enabled_counters(const pmvp_core *c, const pmvp_pe *pe);

/* EL2Enabled() of the Arm ARM's pseudocode, the one definition every rule
 * uses: EL2 is implemented and enabled in Security state `security` (enum
 * pmvp_security); with EL3, Secure EL2 needs FEAT_SEL2, an AArch64 EL3 and
 * SCR_EL3.EEL2 (`scr_el3`), and Root has none. */
bool k_el2_enabled(const pmvp_core_config *cfg, unsigned security, uint64_t scr_el3);
/* The same for PE p's current context, with its SCR_EL3 as the CPU model set it. */
bool k_pe_el2_enabled(const pmvp_core *c, unsigned p);
/* GetNumEventCountersAccessible(): the event counters a System register
 * access at `el` sees, HPMN at EL0 and EL1 when EL2 is enabled, else EPMN
 * (GetNumEventCountersSelfHosted(): all of them without
 * FEAT_PMUv3_EXTPMN); also the counters PMCR_EL0.P resets (D24.5.8) and
 * what PMCR_EL0.N reads (NNBYQ, ZCCDD). */
unsigned k_counters_accessible(const pmvp_core_config *cfg, unsigned el, bool el2_enabled, uint64_t mdcr_el2,
                               uint64_t pmccr);

/* Table D13-1 (FEAT_EBEP) for PE p in its current context: what an overflow
 * raises; *target_el (if not NULL) gets the target Exception level when the
 * exception is enabled. */
int k_pmu_exception_of(const pmvp_core *c, unsigned p, uint8_t *target_el);

/* Bitmaps of the AMU's architected and implemented auxiliary counters. */
static inline uint32_t k_amu_arch_mask(void)
{
    return (UINT32_C(1) << PMVP_AMU_ARCH_COUNTERS) - 1;
}
static inline uint32_t k_amu_aux_mask(const pmvp_core *c)
{
    return c->cfg.amu_num_aux ? (uint32_t)PMVP_BITS(c->cfg.amu_num_aux - 1, 0) : 0;
}

/* F0, the instruction counter's bit, if the configuration has it. */
static inline uint64_t k_instruction_counter(const pmvp_core *c)
{
    return c->cfg.feat_pmuv3_icntr ? PMVP_PMU_F0 : 0;
}

/* Bitmap of implemented event counters P<n>. */
static inline uint32_t k_counters_mask(const pmvp_core *c)
{
    return c->cfg.num_counters ? (uint32_t)(PMVP_BITS(c->cfg.num_counters - 1, 0)) : 0;
}

/* The implemented bits of PMCNTENSET, PMINTENSET, PMOVSSET and their CLR
 * registers: P<n>, C, and F0 with the instruction counter. */
static inline uint64_t k_counter_bits(const pmvp_core *c)
{
    return k_counters_mask(c) | PMVP_PMU_C | k_instruction_counter(c);
}

#endif
