/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register table (pmvp/registers.def) as the kernel looks it up
 * (registers.c): ground under the floors, for any of them. It holds no
 * state and asks no other kernel file.
 */
#ifndef PMVP_REGTABLE_H
#define PMVP_REGTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "pmvp/amu.h"
#include "pmvp/core.h"
#include "pmvp/fields.h"
#include "pmvp/pmu.h"

/* A PMU or AMU System register, from its block in registers.def
 * (registers.c). */
enum k_instances {
    K_ONE,
    K_EVENT_COUNTERS,
    K_AMU_ARCH,
    K_AMU_AUX,
    K_AMU_ARCH_OFFSETS, /* AMEVCNTVOFF0<n>_EL2: n = 0, 2, 3 (counter 1 has none) */
    K_AMU_AUX_OFFSETS   /* AMEVCNTVOFF1<n>_EL2: the auxiliary counters cfg.amu_aux_offsets names */
};
/* Room for either family's registers: tables indexed [family][reg]. */
#define K_FAMILY_REGS \
    ((int)PMVP_PMU_NUM_REGS > (int)PMVP_AMU_NUM_REGS ? (int)PMVP_PMU_NUM_REGS : (int)PMVP_AMU_NUM_REGS)
typedef struct k_reg {
    const char *name;    /* "PMEVCNTR_EL0" */
    uint8_t instances;   /* enum k_instances: how many, if indexed */
    uint8_t gate;        /* enum pmvp_gate: the feature it needs */
    uint8_t read, write; /* enum pmvp_gate: whether each instruction exists */
} k_reg;

/* Register `reg` of family `family` (enum pmvp_sysreg_family), or NULL. */
const k_reg *k_reg_of(unsigned family, unsigned reg);
/* The span of the register's instances: instance n is below it (some of
 * the span may be missing: k_reg_has_instance). */
unsigned k_reg_instances(const pmvp_core_config *cfg, const k_reg *r);
/* Whether the configuration implements instance n of the register. */
bool k_reg_has_instance(const pmvp_core_config *cfg, const k_reg *r, unsigned n);
/* Whether the register file can take this access: PMVP_ERR_REGISTER (no
 * such register, or its feature is not implemented), PMVP_ERR_READ_ONLY (a
 * write with no write instruction), PMVP_ERR_COUNTER (n beyond its
 * instances), else PMVP_OK. */
int k_reg_access(const pmvp_core_config *cfg, unsigned family, unsigned reg, unsigned n, bool write);

#endif
