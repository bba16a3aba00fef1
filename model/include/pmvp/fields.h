/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Register fields, named as in the Arm ARM with pmvp's prefix
 * (PMVP_REGISTER_FIELD, e.g. PMVP_PMCR_EL0_E), so that none enters a user's
 * namespace bare. A field is its mask; the shift is derived from it. The
 * masks are made from registers.def (pmvp/register_fields.h), where each
 * field is described once; this file adds what is not a field: values of
 * fields and the positions of the fine-grained trap bits.
 */
#ifndef PMVP_FIELDS_H
#define PMVP_FIELDS_H

#include <stdint.h>

/* Bits [hi:lo] as a 64-bit mask, and a single bit. */
#define PMVP_BITS(hi, lo) ((~UINT64_C(0) >> (63 - (hi))) & (~UINT64_C(0) << (lo)))
#define PMVP_BIT(n) (UINT64_C(1) << (n))

/* The value of field `mask` in `reg`, and `val` placed in field `mask`. The
 * lowest set bit of the mask, (mask & -mask), is the field's unit. */
#define PMVP_FIELD_GET(mask, reg) (((reg) & (mask)) / ((mask) & (~(mask) + 1)))
#define PMVP_FIELD_PREP(mask, val) (((uint64_t)(val) * ((mask) & (~(mask) + 1))) & (mask))

/* The fields, from the PMVP_FIELD lines of registers.def. */
#include "pmvp/register_fields.h"

/* The PMEE fields of MDCR_EL3, MDCR_EL2 and PMECR_EL1 (D24.5.9, D13.3.2). */
#define PMVP_PMEE_IRQ 0x0      /* PMUIRQ asserted on overflow, PMU exception disabled */
#define PMVP_PMEE_LOWER 0x1    /* MDCR_EL3/EL2: the lower level's control decides */
#define PMVP_PMEE_DISABLED 0x2 /* PMUIRQ deasserted, PMU exception disabled */
#define PMVP_PMEE_ENABLED 0x3  /* PMUIRQ deasserted, PMU exception enabled */

/* The PMLAR key that clears the Software Lock (PMLSR.SLK). */
#define PMVP_PMLAR_KEY UINT32_C(0xC5ACCE55)

/* FEAT_FGT trap bits: HDFGRTR_EL2 (reads) and HDFGWTR_EL2 (writes) share
 * the positions of the PMU's; HAFGRTR_EL2 holds the AMU's. */
#define PMVP_HDFGxTR_EL2_PMEVCNTRn_EL0 12
#define PMVP_HDFGxTR_EL2_PMEVTYPERn_EL0 13
#define PMVP_HDFGxTR_EL2_PMCCFILTR_EL0 14
#define PMVP_HDFGxTR_EL2_PMCCNTR_EL0 15
#define PMVP_HDFGxTR_EL2_PMCNTEN 16
#define PMVP_HDFGxTR_EL2_PMINTEN 17
#define PMVP_HDFGxTR_EL2_PMOVS 18
#define PMVP_HDFGxTR_EL2_PMSELR_EL0 19
#define PMVP_HDFGWTR_EL2_PMSWINC_EL0 20
#define PMVP_HDFGWTR_EL2_PMCR_EL0 21
#define PMVP_HDFGRTR_EL2_PMMIR_EL1 22
#define PMVP_HDFGxTR_EL2_PMUSERENR_EL0 57
#define PMVP_HDFGRTR_EL2_PMCEIDn_EL0 58
#define PMVP_HAFGRTR_EL2_AMCNTEN0 0
#define PMVP_HAFGRTR_EL2_AMEVCNTR0n_EL0 1 /* + n */
#define PMVP_HAFGRTR_EL2_AMCNTEN1 17
#define PMVP_HAFGRTR_EL2_AMEVCNTR1n_EL0 18  /* + 2n */
#define PMVP_HAFGRTR_EL2_AMEVTYPER1n_EL0 19 /* + 2n */

/* FEAT_FGT2 trap bits of HDFGRTR2_EL2 (reads) and HDFGWTR2_EL2 (writes): the
 * "n" bits trap when 0, as does SCR_EL3.FGTEn2 == 0 all of them. */
#define PMVP_HDFGxTR2_EL2_nPMECR_EL1 0
#define PMVP_HDFGxTR2_EL2_nPMIAR_EL1 1
#define PMVP_HDFGxTR2_EL2_nPMICNTR_EL0 2
#define PMVP_HDFGxTR2_EL2_nPMICFILTR_EL0 3
#define PMVP_HDFGxTR2_EL2_nPMUACR_EL1 4
#define PMVP_HDFGRTR2_EL2_nPMSSDATA 6
#define PMVP_HDFGxTR2_EL2_nPMSSCR_EL1 7
#define PMVP_HDFGWTR2_EL2_nPMZR_EL0 21

#endif
