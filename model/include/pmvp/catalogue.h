/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register catalogue: what each PMU and AMU System register is, which
 * feature it needs and which fields pmvp implements, for tools that show
 * registers (debugger views, the generated docs/REGISTERS.md). Encodings
 * are in sysreg.h (pmvp_sysreg_encodings), the external frames in ext.h
 * (pmvp_ext_reg_at), the events in events.h (pmvp_event_at).
 */
#ifndef PMVP_CATALOGUE_H
#define PMVP_CATALOGUE_H

#include <stddef.h>
#include <stdint.h>

#include "pmvp/sysreg.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

/* A field: its bits as a mask (a field of repeated bits, P<n>, is one mask). */
typedef struct pmvp_reg_field {
    const char *name; /* as the Arm ARM names it: "E", "P<n>", "evtCount" */
    uint64_t mask;
    const char *note; /* how pmvp implements it, when that needs saying; or NULL */
} pmvp_reg_field;

typedef struct pmvp_reg_desc {
    const char *title;            /* "Performance Monitors Control Register" */
    const char *section;          /* of the Arm ARM: "D24.5.8" */
    const char *feature;          /* the feature that implements it: "FEAT_PMUv3" */
    const pmvp_reg_field *fields; /* most significant first */
    size_t num_fields;
    /* Its PMVP_REG_STATE line (registers.def), as written there; NULL for a
     * register that holds no value of its own (its read is computed). */
    const char *state;    /* where instance n lives in the PE: "pe->pmu.pmcr" */
    const char *write;    /* "VALUE", "SET" or "CLEAR" */
    const char *writable; /* the bits a write stores, in core c: "c->pmcr_mask" */
    const char *reset;    /* its value after a reset: "0" */
} pmvp_reg_desc;

/* Register `reg` (enum pmvp_pmu_reg or enum pmvp_amu_reg) of `family`;
 * NULL for an unknown one. Every register of both families has one. */
const pmvp_reg_desc *pmvp_reg_desc_of(enum pmvp_sysreg_family family, unsigned reg);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
