/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Activity Monitors (AMUv1, D16) of one PE, as the PE itself sees them
 * with a permitted System register access (D24.6). Access checks (AMUSERENR,
 * CPTR_ELx.TAM, UNDEFINED below the highest EL) and the views that depend on
 * the accessing Exception level (AMCR.CG1RZ) belong to the system-register
 * layer, not here.
 *
 * What the counters count (D16.2, D16.3):
 * - AMEVCNTR0<0> CPU_CYCLES: every processor cycle on which the PE is
 *   running, that is not in WFI, WFE or powered off. Every cycle of the
 *   core's clock, whatever the multithreading policy: the AMU measures the
 *   PE's frequency, not its share of issue slots.
 * - AMEVCNTR0<1> CNT_CYCLES: every System Counter tick on which the PE is running.
 * - AMEVCNTR0<2> INST_RETIRED: the occurrences the CPU model reports for the PE.
 * - AMEVCNTR0<3> STALL_BACKEND_MEM: processor cycles on which the PE is
 *   running and the CPU model holds that stall condition on it.
 * - AMEVCNTR1<n>: the PMU event numbered AMEVTYPER1<n>.evtCount, counted for
 *   this PE alone by the same rules (cycle-based and clock-based events only
 *   while the PE runs). Events an AMU cannot count: SW_INCR, CHAIN, the PMU
 *   overflow events, and events this configuration does not support.
 * No authentication, prohibition or filtering applies (D16.2.1); AMCR.HDBG
 * stops every counter while the PE is halted in Debug state. Counters wrap
 * at 64 bits and have no overflow status or interrupt.
 */
#ifndef PMVP_AMU_H
#define PMVP_AMU_H

#include <stdbool.h>
#include <stdint.h>

#include "pmvp/core.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

/* The AMU's System registers, in the order of their blocks in registers.def,
 * where each is described once. Indexed ones take a counter index n. */
enum pmvp_amu_reg {
#define PMVP_REG(family, id, ...) PMVP_AMU_REG_##family(id)
#define PMVP_AMU_REG_AMU(id) PMVP_##id,
#define PMVP_AMU_REG_PMU(id)
#include "pmvp/registers.def"
#undef PMVP_AMU_REG_AMU
#undef PMVP_AMU_REG_PMU
    PMVP_AMU_NUM_REGS
};

/* "AMCR_EL0", ...; NULL for an unknown id. */
const char *pmvp_amu_reg_name(enum pmvp_amu_reg reg);
/* Whether `reg` takes a counter index. */
bool pmvp_amu_reg_indexed(enum pmvp_amu_reg reg);

/* Reads register `reg` (counter `n` for indexed ones) of PE `pe`'s AMU at
 * `now`. Errors: PMVP_ERR_NULL, PMVP_ERR_PAST, PMVP_ERR_PE,
 * PMVP_ERR_REGISTER (unknown, or not implemented in this configuration:
 * no FEAT_AMUv1, or AMCG1IDR_EL0 without FEAT_AMUv1p1), PMVP_ERR_COUNTER. */
int pmvp_amu_read(pmvp_core *core, unsigned pe, enum pmvp_amu_reg reg, unsigned n, pmvp_time now, uint64_t *value);

/* The pure query of the AMU: as pmvp_pmu_peek (pmu.h), register `reg` as
 * it is at `t` (at or after the core's present), changing nothing. Errors
 * as for pmvp_amu_read. */
int pmvp_amu_peek(const pmvp_core *core, unsigned pe, enum pmvp_amu_reg reg, unsigned n, pmvp_time t, uint64_t *value);

/* Writes `value`; read-only and RES0 bits are ignored. Errors as for
 * pmvp_amu_read, and PMVP_ERR_READ_ONLY for AMCFGR, AMCGCR, AMCG1IDR,
 * AMEVTYPER0 and, when its events are fixed, AMEVTYPER1. An AMEVTYPER1
 * event the AMU cannot count is stored, logged, and counts nothing. */
int pmvp_amu_write(pmvp_core *core, unsigned pe, enum pmvp_amu_reg reg, unsigned n, uint64_t value, pmvp_time now);

/* AMU reset of PE `pe` at `now` (D16.2.3): counters and enables to zero,
 * AMCR (UNKNOWN) to zero, AMEVTYPER1<n> to the configured events. */
int pmvp_amu_reset(pmvp_core *core, unsigned pe, pmvp_time now);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
