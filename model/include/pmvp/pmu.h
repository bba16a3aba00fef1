/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PMUv3 registers of one PE, as the PE itself sees them with a permitted
 * access (D24.5). Access checks (traps, UNDEFINED, EL0 enables) and the views
 * that depend on the accessing Exception level (PMCR.N reading HPMN at EL1)
 * belong to the system-register layer, not here.
 *
 * Reads have no side effects beyond bringing counts up to `now`. PMCR.P and
 * PMSWINC act for the PE's current context (Exception level, Security state).
 */
#ifndef PMVP_PMU_H
#define PMVP_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "pmvp/core.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

/* The PMU's System registers, in the order of their blocks in registers.def,
 * where each is described once. Indexed ones take a counter index n. */
enum pmvp_pmu_reg {
#define PMVP_REG(family, id, ...) PMVP_PMU_REG_##family(id)
#define PMVP_PMU_REG_PMU(id) PMVP_##id,
#define PMVP_PMU_REG_AMU(id)
#include "pmvp/registers.def"
#undef PMVP_PMU_REG_PMU
#undef PMVP_PMU_REG_AMU
    PMVP_PMU_NUM_REGS
};

/* "PMCR_EL0", ...; NULL for an unknown id. */
const char *pmvp_pmu_reg_name(enum pmvp_pmu_reg reg);
/* Whether `reg` takes a counter index. */
bool pmvp_pmu_reg_indexed(enum pmvp_pmu_reg reg);

/* Reads register `reg` (counter `n` for indexed ones) of PE `pe` at `now`.
 * Errors: PMVP_ERR_NULL, PMVP_ERR_PAST, PMVP_ERR_PE, PMVP_ERR_REGISTER,
 * PMVP_ERR_COUNTER. Write-only fields read as zero; PMMIR_EL1 reads cfg.pmmir.
 * A register whose feature (its gate in registers.def) the configuration
 * lacks is PMVP_ERR_REGISTER: PMMIR_EL1 before FEAT_PMUv3p4, PMECR_EL1
 * without FEAT_EBEP, PMIAR_EL1 without FEAT_SEBEP, PMICNTR_EL0 and
 * PMICFILTR_EL0 without FEAT_PMUv3_ICNTR, PMUACR_EL1 and PMZR_EL0 without
 * FEAT_PMUv3p9. A read of a counter is a direct read:
 * with the inaccuracy knob (c) it may not yet show the latest increments. */
int pmvp_pmu_read(pmvp_core *core, unsigned pe, enum pmvp_pmu_reg reg, unsigned n, pmvp_time now, uint64_t *value);

/* The pure query: register `reg` as it is at `t`, for a debugger, a trace
 * or a CPU model looking ahead, changing nothing. `t` is at or after the
 * core's present (the latest instant of a call that changed it; else
 * PMVP_ERR_PAST): the value is what a read at `t` would see if no input
 * came before it, counter values and overflow flags (PMOVSSET) included,
 * with no delay of the inaccuracy knob (c). The core's present stays where
 * it was, so an input for an instant before `t` is still taken; nothing is
 * copied but the PE's state. Errors as for pmvp_pmu_read. */
int pmvp_pmu_peek(const pmvp_core *core, unsigned pe, enum pmvp_pmu_reg reg, unsigned n, pmvp_time t, uint64_t *value);

/* Writes `value`; bits that are read-only, RES0 or not implemented in this
 * configuration are ignored, as the architecture ignores them. A write
 * that enables or disables a counter is a boundary (inaccuracy knob (b));
 * after any write, reads see every increment (knob (c)). Errors as for
 * pmvp_pmu_read, and PMVP_ERR_READ_ONLY for PMCEID0/1 and PMMIR. */
int pmvp_pmu_write(pmvp_core *core, unsigned pe, enum pmvp_pmu_reg reg, unsigned n, uint64_t value, pmvp_time now);

/* The PMU overflow interrupt request (PMUIRQ) of PE `pe` at `now`:
 * level-sensitive, as D13.3.1 defines it. */
int pmvp_pmu_irq(pmvp_core *core, unsigned pe, pmvp_time now, bool *level);
/* The same as a pure query (as pmvp_pmu_peek): PMUIRQ at `t`, at or after
 * the core's present, if no input comes before it; nothing changes. */
int pmvp_pmu_irq_peek(const pmvp_core *core, unsigned pe, pmvp_time t, bool *level);

/* Warm reset of PE `pe`'s PMU at `now`: registers back to their reset values,
 * with the state of its external frame (PMITCTRL, PMLSR.SLK). */
int pmvp_pmu_reset(pmvp_core *core, unsigned pe, pmvp_time now);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
