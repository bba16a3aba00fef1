/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register files: the second floor of the kernel (CONTRIBUTING.md, "The
 * floors"). pmu.c and amu.c read and write the registers of a PE over the
 * engine's state; sysreg.c (the System-register interface) and ext.c (the
 * external frames) decode an access, check it and reach those files. Each
 * access begins once: the public entry validates it and calls k_begin, and
 * the calls below (k_pmu_read, ...) take the core as begun, at `now`.
 */
#ifndef PMVP_REGFILE_H
#define PMVP_REGFILE_H

#include "engine.h"
#include "regtable.h"

/* Register `reg` (instance n) of PE p, validated (k_reg_access) and begun
 * at `now`: its value as a direct read sees it (`direct`: a guest's access,
 * inaccuracy knob (c)) or as it is (the debug path). PMVP_ERR_REGISTER for
 * a register the file does not hold. */
int k_pmu_read(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, pmvp_time now, bool direct,
               uint64_t *value);
/* Writes it, with the side effects the register has (D24.5). */
int k_pmu_write(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, uint64_t value);
/* The same for the AMU (D24.6). */
int k_amu_read(const pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, uint64_t *value);
int k_amu_write(pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, uint64_t value);

/* PMCR_EL0.P written as 1 (D24.5.8): the event counters accessible in the
 * writer's view (k_counters_accessible) are reset to zero. The caller has
 * begun the access. */
void k_pmcr_p_reset(pmvp_core *c, unsigned p, unsigned accessible);

/* PMIAR_EL1.ADDRESS of virtual address va (D24.5.13). */
uint64_t k_pmiar_address(uint64_t va);

/* ext.c: fills c->ext_row from the configuration (pmvp_core_init). */
void k_ext_map(pmvp_core *c);

#endif
