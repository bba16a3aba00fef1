/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Exception-based event profiling (D13.3.2, FEAT_EBEP) and its synchronous
 * form (D13.3.3, FEAT_SEBEP): what the PMU tells a CPU model that executes
 * instructions, so that it can take the PMU Profiling exception.
 *
 * The CPU model owns PSTATE and takes exceptions; pmvp decides when the PMU
 * asks for one. It tells pmvp PSTATE.PM with the PE's context
 * (pmvp_context.pm), HCR_EL2.TGE and the MDCR_EL2/EL3.PMEE fields with its
 * controls (pmvp_pmu_controls), and software writes PMECR_EL1 and PMIAR_EL1
 * like any PMU register (pmu.h).
 */
#ifndef PMVP_EBEP_H
#define PMVP_EBEP_H

#include <stdbool.h>
#include <stdint.h>

#include "pmvp/core.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

/* The cells of Table D13-1: RGWLVY (enabled, and where to) and RSCBDZ
 * (masked) for the PE's current context. */
enum pmvp_pmu_exception_state {
    PMVP_PMUEXC_IRQ,      /* "IRQ": exception disabled, PMUIRQ enabled (also without FEAT_EBEP) */
    PMVP_PMUEXC_DISABLED, /* "Dis": exception disabled, PMUIRQ disabled */
    PMVP_PMUEXC_MASKED,   /* "Msk": enabled and masked */
    PMVP_PMUEXC_UNMASKED  /* "ELx": enabled, unmasked, taken to target_el */
};

typedef struct pmvp_pmu_exception {
    uint8_t state;     /* enum pmvp_pmu_exception_state */
    uint8_t target_el; /* 1..3 when enabled (MASKED, UNMASKED); else 0 */
    /* RKBPMJ: the exception is enabled and unmasked and an overflow of a
     * counter not in synchronous mode (or of PMCCNTR) requests it: the CPU
     * model takes it asynchronously, in finite time (RDKCTL). */
    bool async_pending;
} pmvp_pmu_exception;

/* The PMU Profiling exception of PE `pe` at `now`. Errors: PMVP_ERR_NULL,
 * PMVP_ERR_PE, PMVP_ERR_PAST. */
int pmvp_core_pmu_exception(pmvp_core *core, unsigned pe, pmvp_time now, pmvp_pmu_exception *out);

typedef struct pmvp_retire_result {
    /* The counters whose overflow the instruction observes (RNZLVW): bit n
     * when event counter n of the PE counted the event, is in synchronous
     * mode (RSSVKV), PMINTENSET_EL1.P<n> == 1, and PMOVSSET_EL0.P<n> == 1
     * once the instruction's events are counted, unless the overflow is
     * still in the shadow (inaccuracy knob (a)); bit 32 (PMVP_PMU_F0) for
     * the instruction counter, in synchronous mode with PMICFILTR_EL0.SYNC
     * (FEAT_PMUv3_ICNTR), which has no shadow. PMOVSSET stays 1 until
     * software clears it, so an overflow left pending (while the exception
     * was masked, say) is observed again, its overshoot in the count. */
    uint64_t overflows;
    /* The instruction sets PSTATE.PPEND: `overflows` is not 0 and the PMU
     * Profiling exception is enabled and unmasked. PMIAR_EL1 then holds
     * the instruction's address; the exception is taken before the next
     * instruction (RHLYTW). */
    bool ppend;
} pmvp_retire_result;

/* FEAT_SEBEP: PE `pe` retired, at `now`, an instruction at address `pc` that
 * generated `count` occurrences of OCCURRENCE-class event `event` without
 * generating an exception. They are counted as by pmvp_core_report (with no
 * drop: knob (d) leaves retired instructions exact, GQSRL) and *out says
 * what the instruction does to PSTATE.PPEND. An instruction that generates
 * several events is reported once per event; it sets PPEND if any call says
 * so. Without FEAT_SEBEP *out is all zero. Errors as for pmvp_core_report,
 * and PMVP_ERR_NULL. */
int pmvp_core_retire(pmvp_core *core, unsigned pe, uint16_t event, uint64_t count, uint64_t pc, pmvp_time now,
                     pmvp_retire_result *out);

/* A Context synchronization event (exception entry or return, ISB) or an
 * MSR write to PSTATE.PM completed on PE `pe` at `now`. A counter whose
 * overflow flag is set, or whose value is at or above its threshold (see
 * pmvp_core_config.sebep_headroom), overflows from then on with no shadow
 * effect (D13.2.2), until the next such call. Errors: PMVP_ERR_NULL,
 * PMVP_ERR_PE, PMVP_ERR_PAST. Without FEAT_SEBEP it only checks its arguments. */
int pmvp_core_context_sync(pmvp_core *core, unsigned pe, pmvp_time now);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
