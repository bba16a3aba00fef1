/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register files: the second floor of the kernel (CONTRIBUTING.md, "The
 * floors"). pmu.c and amu.c read and write the registers of a PE over the
 * engine's state; sysreg.c (the System-register interface) and ext.c (the
 * external frames) decode an access, check it and reach those files. Each
 * access begins once: the public entry validates it and calls k_begin, and
 * the calls below (k_pmu_read, ...) take the core as begun, at `now`. A
 * pure query (a peek, the debug path's reads) begins nothing: it reads a
 * copy of the PE brought to its instant (k_pe_at) with the same files.
 */
#ifndef PMVP_REGFILE_H
#define PMVP_REGFILE_H

#include "accuracy.h"
#include "count.h"
#include "routes.h"
#include "regtable.h"

/* The bracket of an access to register `reg` (instance n, family enum
 * pmvp_sysreg_family) of PE p: validates it (k_reg_access) and begins it at
 * `now` (k_begin_pe). */
static inline int k_access_begin(pmvp_core *c, unsigned p, unsigned family, unsigned reg, unsigned n, bool write,
                                 pmvp_time now)
{
    int err = c ? k_reg_access(&c->cfg, family, reg, n, write) : PMVP_OK;
    return err ? err : k_begin_pe(c, p, now);
}

/* The same for a pure query (a read) at t: validates it and refuses an
 * instant before the core's present; the core is left as it is. */
static inline int k_look_begin(const pmvp_core *c, unsigned p, unsigned family, unsigned reg, unsigned n, pmvp_time t)
{
    int err = c ? k_reg_access(&c->cfg, family, reg, n, false) : PMVP_OK;
    return err ? err : k_look_pe(c, p, t);
}

/* FEAT_PMUv3_SS (D13.9): a Capture event requested of PE p now, by a write
 * of 1 to PMSSCR_EL1.SS or by the external request (pmu.c). Ignored while
 * Capture events are disabled; captures the counters into the snapshot
 * registers when they are allowed and sets PMSSCR_EL1.{NC, SS} to {0, 0}
 * (then generates PMU_SNAPSHOT), else to {1, 0}. The core is begun at its
 * instant. */
void k_capture(pmvp_core *c, unsigned p);

/* ---- the registers' state (regstate.c), from their PMVP_REG_STATE lines */

/* Whether a register of `kind` keeps its own state (a CLEAR register
 * changes the state of its SET register). */
#define K_OWNS_VALUE 1
#define K_OWNS_SET 1
#define K_OWNS_CLEAR 0

/* The value register `reg` (family enum pmvp_sysreg_family, instance n)
 * holds in `pe`; false if it holds none (its read is computed). */
bool k_state_read(const pmvp_pe *pe, unsigned family, unsigned reg, unsigned n, uint64_t *value);
/* Stores a write of `value` as the register's kind says, through its
 * writable bits in c's configuration; false if it holds no value. */
bool k_state_write(const pmvp_core *c, pmvp_pe *pe, unsigned family, unsigned reg, unsigned n, uint64_t value);
/* Every register of `family` in `pe` to its reset value. */
void k_state_reset(const pmvp_core *c, pmvp_pe *pe, unsigned family);

/* ---- the register files */

/* Register `reg` (instance n) of PE p, validated: its value in `pe`, the
 * state of PE p as it is (c->pe[p] begun at the access's instant, or a copy
 * of it from k_pe_at). PMVP_ERR_REGISTER for a register the file does not
 * hold. */
int k_pmu_look(const pmvp_core *c, unsigned p, const pmvp_pe *pe, enum pmvp_pmu_reg reg, unsigned n, uint64_t *value);
int k_amu_look(const pmvp_core *c, const pmvp_pe *pe, enum pmvp_amu_reg reg, unsigned n, uint64_t *value);
/* A direct read (a guest's) of it, begun at `now`: the value as k_pmu_look
 * gives it, through inaccuracy knob (c) for a counter. */
int k_pmu_read(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, pmvp_time now, uint64_t *value);
/* Writes it, with the side effects the register has (D24.5). */
int k_pmu_write(pmvp_core *c, unsigned p, enum pmvp_pmu_reg reg, unsigned n, uint64_t value);
/* The same for the AMU (D24.6). */
int k_amu_write(pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, uint64_t value);

/* PMCR_EL0.P written as 1 (D24.5.8): the event counters accessible in the
 * writer's view (k_counters_accessible) are reset to zero. The caller has
 * begun the access. */
void k_pmcr_p_reset(pmvp_core *c, unsigned p, unsigned accessible);

/* PMCCR (FEAT_PMUv3_EXTPMN, I5.3.47) written by the external agent: the
 * event counter ranges change. The caller has begun the access. */
void k_pmccr_write(pmvp_core *c, unsigned p, uint64_t value);

/* PMIAR_EL1.ADDRESS of virtual address va (D24.5.13). */
uint64_t k_pmiar_address(uint64_t va);

/* ext.c: fills c->ext_row from the configuration (pmvp_core_init). */
void k_ext_map(pmvp_core *c);

/* A permission: what the access checks of I3.1.4 (PMU) and I4.1.3 (AMU)
 * decide for a non-debug access from one security state to the registers
 * of one domain. The low bits: permitted (its effect) or refused (the
 * error); K_SOFTWARE_LOCKED: a write by an agent that is not a debugger is
 * ignored (I3.1.4 SLK). */
enum {
    K_PERMIT,
    K_PERMIT_RAZ_WI,
    K_REFUSE_OFF,
    K_REFUSE_LOCKED,
    K_REFUSE_DENIED,
    K_OUTCOME = 7,
    K_SOFTWARE_LOCKED = 8
};

/* A Most secure access (I3.1.4), by its security state: ext_checks.c. */
bool k_ext_most_secure(const pmvp_core *c, const pmvp_ext_access *a);

/* ext_checks.c: PE p's permission word, computed again: after any change of what
 * the frames' access checks (I3.1.4, I4.1.3) follow, which is whether the
 * PE is Off, its controls (locks, authentication, MDCR_EL3.EPMAD),
 * PMCCR.OSLO and the Software Lock, and after a restore. */
void k_ext_permissions(pmvp_core *c, unsigned p);

#endif
