/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Register fields, named as in the Arm ARM with pmvp's prefix
 * (PMVP_REGISTER_FIELD, e.g. PMVP_PMCR_EL0_E), so that none enters a user's
 * namespace bare. A field is its mask; the shift is derived from it, so each
 * field is defined exactly once.
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

/* PMCR_EL0 (D24.5.8). */
#define PMVP_PMCR_EL0_E PMVP_BIT(0)
#define PMVP_PMCR_EL0_P PMVP_BIT(1)
#define PMVP_PMCR_EL0_C PMVP_BIT(2)
#define PMVP_PMCR_EL0_D PMVP_BIT(3)
#define PMVP_PMCR_EL0_X PMVP_BIT(4)
#define PMVP_PMCR_EL0_DP PMVP_BIT(5)
#define PMVP_PMCR_EL0_LC PMVP_BIT(6)
#define PMVP_PMCR_EL0_LP PMVP_BIT(7)
#define PMVP_PMCR_EL0_FZO PMVP_BIT(9)
#define PMVP_PMCR_EL0_N PMVP_BITS(15, 11)
#define PMVP_PMCR_EL0_IDCODE PMVP_BITS(23, 16)
#define PMVP_PMCR_EL0_IMP PMVP_BITS(31, 24)

/* PMEVTYPER<n>_EL0 (D24.5.12) and PMCCFILTR_EL0 (D24.5.1) share the filter
 * bits; MT and evtCount are PMEVTYPER only. */
#define PMVP_PMEVTYPER_EL0_evtCount PMVP_BITS(15, 0)
#define PMVP_PMEVTYPER_EL0_evtCount_9_0 PMVP_BITS(9, 0)
#define PMVP_PMEVTYPER_EL0_RLH PMVP_BIT(20)
#define PMVP_PMEVTYPER_EL0_RLU PMVP_BIT(21)
#define PMVP_PMEVTYPER_EL0_RLK PMVP_BIT(22)
#define PMVP_PMEVTYPER_EL0_SH PMVP_BIT(24)
#define PMVP_PMEVTYPER_EL0_MT PMVP_BIT(25)
#define PMVP_PMEVTYPER_EL0_M PMVP_BIT(26)
#define PMVP_PMEVTYPER_EL0_NSH PMVP_BIT(27)
#define PMVP_PMEVTYPER_EL0_NSU PMVP_BIT(28)
#define PMVP_PMEVTYPER_EL0_NSK PMVP_BIT(29)
#define PMVP_PMEVTYPER_EL0_U PMVP_BIT(30)
#define PMVP_PMEVTYPER_EL0_P PMVP_BIT(31)
#define PMVP_PMEVTYPER_EL0_SYNC PMVP_BIT(58)
/* Threshold and edge counting (D13.8): FEAT_PMUv3_TH, EDGE, TH2. */
#define PMVP_PMEVTYPER_EL0_TH PMVP_BITS(43, 32)
#define PMVP_PMEVTYPER_EL0_TLC PMVP_BITS(55, 54)
#define PMVP_PMEVTYPER_EL0_TE PMVP_BIT(60)
#define PMVP_PMEVTYPER_EL0_TC PMVP_BITS(63, 61)

/* PMCNTENSET/CLR, PMINTENSET/CLR, PMOVSSET/CLR: P<n> at bit n, C at bit 31;
 * PMSWINC_EL0 has the P<n> bits alone. */
#define PMVP_PMU_P PMVP_BITS(30, 0)
#define PMVP_PMU_C PMVP_BIT(31)
#define PMVP_PMU_F0 PMVP_BIT(32) /* the instruction counter (FEAT_PMUv3_ICNTR) */

/* The counters (D24.5.2, D24.5.10); EVCNT is [31:0] before FEAT_PMUv3p5. */
#define PMVP_PMCCNTR_EL0_CCNT PMVP_BITS(63, 0)
#define PMVP_PMEVCNTR_EL0_EVCNT PMVP_BITS(63, 0)

/* PMCEID0/1_EL0 (D24.5.4, D24.5.5): ID<n> for common event base+n, IDhi<n>
 * (FEAT_PMUv3p1) for 0x4000+base+n. */
#define PMVP_PMCEID_EL0_ID PMVP_BITS(31, 0)
#define PMVP_PMCEID_EL0_IDhi PMVP_BITS(63, 32)

/* PMMIR_EL1 (D24.5.19): IMPLEMENTATION DEFINED, shown as configured. */
#define PMVP_PMMIR_EL1_SLOTS PMVP_BITS(7, 0)
#define PMVP_PMMIR_EL1_BUS_SLOTS PMVP_BITS(15, 8)
#define PMVP_PMMIR_EL1_BUS_WIDTH PMVP_BITS(19, 16)
#define PMVP_PMMIR_EL1_THWIDTH PMVP_BITS(23, 20)
#define PMVP_PMMIR_EL1_EDGE PMVP_BITS(27, 24)

/* PMSELR_EL0 (D24.5.22). */
#define PMVP_PMSELR_EL0_SEL PMVP_BITS(4, 0)

/* MDCR_EL2: the fields that control counting. */
#define PMVP_MDCR_EL2_HPMN PMVP_BITS(4, 0)
#define PMVP_MDCR_EL2_TPMCR PMVP_BIT(5)
#define PMVP_MDCR_EL2_TPM PMVP_BIT(6)
#define PMVP_MDCR_EL2_HPME PMVP_BIT(7)
#define PMVP_MDCR_EL2_HPMD PMVP_BIT(17)
#define PMVP_MDCR_EL2_HCCD PMVP_BIT(23)
#define PMVP_MDCR_EL2_HLP PMVP_BIT(26)
#define PMVP_MDCR_EL2_MTPME PMVP_BIT(28)
#define PMVP_MDCR_EL2_HPMFZO PMVP_BIT(29)     /* FEAT_PMUv3p7 */
#define PMVP_MDCR_EL2_PMSSE PMVP_BITS(31, 30) /* FEAT_PMUv3_SS */
#define PMVP_MDCR_EL2_PMEE PMVP_BITS(41, 40)  /* FEAT_EBEP */

/* MDCR_EL3 (with SDCR, its AArch32 counterpart, at the same positions for
 * SPME, SCCD and MTPME). */
#define PMVP_MDCR_EL3_TPM PMVP_BIT(6)
#define PMVP_MDCR_EL3_EnPM2 PMVP_BIT(7) /* FEAT_PMUv3_ICNTR (and FEAT_PMUv3p9) */
#define PMVP_MDCR_EL3_SPME PMVP_BIT(17)
#define PMVP_MDCR_EL3_EPMAD PMVP_BIT(21)
#define PMVP_MDCR_EL3_SCCD PMVP_BIT(23)
#define PMVP_MDCR_EL3_MTPME PMVP_BIT(28)
#define PMVP_MDCR_EL3_MCCD PMVP_BIT(34)
#define PMVP_MDCR_EL3_MPMX PMVP_BIT(35)
#define PMVP_MDCR_EL3_PMSSE PMVP_BITS(31, 30) /* FEAT_PMUv3_SS */
#define PMVP_MDCR_EL3_PMEE PMVP_BITS(41, 40)  /* FEAT_EBEP */
#define PMVP_MDCR_EL3_EnPMSS PMVP_BIT(44)     /* FEAT_PMUv3_SS: the snapshot registers below EL3 */

/* The PMEE fields of MDCR_EL3, MDCR_EL2 and PMECR_EL1 (D24.5.9, D13.3.2). */
#define PMVP_PMEE_IRQ 0x0      /* PMUIRQ asserted on overflow, PMU exception disabled */
#define PMVP_PMEE_LOWER 0x1    /* MDCR_EL3/EL2: the lower level's control decides */
#define PMVP_PMEE_DISABLED 0x2 /* PMUIRQ deasserted, PMU exception disabled */
#define PMVP_PMEE_ENABLED 0x3  /* PMUIRQ deasserted, PMU exception enabled */

/* PMECR_EL1 (D24.5.9), FEAT_EBEP. */
#define PMVP_PMECR_EL1_PMEE PMVP_BITS(1, 0)
#define PMVP_PMECR_EL1_KPME PMVP_BIT(2)
#define PMVP_PMECR_EL1_SSE PMVP_BITS(4, 3) /* FEAT_PMUv3_SS */

/* PMSSCR_EL1 (D24.5.23), FEAT_PMUv3_SS. */
#define PMVP_PMSSCR_EL1_SS PMVP_BIT(0)
#define PMVP_PMSSCR_EL1_NC PMVP_BIT(32)

/* PMIAR_EL1 (D24.5.13), FEAT_SEBEP: the address of the instruction that set
 * PSTATE.PPEND. */
#define PMVP_PMIAR_EL1_ADDRESS PMVP_BITS(63, 0)

/* AMCR_EL0 (D24.6.8) and AMUSERENR_EL0 (D24.6.15). */
#define PMVP_AMCR_EL0_HDBG PMVP_BIT(10)
#define PMVP_AMCR_EL0_CG1RZ PMVP_BIT(17)
#define PMVP_AMUSERENR_EL0_EN PMVP_BIT(0)

/* AMCFGR_EL0 (D24.6.1), AMCGCR_EL0 (D24.6.3), AMCG1IDR_EL0 (D24.6.2);
 * PMCFGR (I5.3.11) has the same NCG, SIZE and N positions. */
#define PMVP_AMCFGR_EL0_N PMVP_BITS(7, 0)
#define PMVP_AMCFGR_EL0_SIZE PMVP_BITS(13, 8)
#define PMVP_AMCFGR_EL0_HDBG PMVP_BIT(24)
#define PMVP_AMCFGR_EL0_NCG PMVP_BITS(31, 28)
#define PMVP_AMCGCR_EL0_CG0NC PMVP_BITS(7, 0)
#define PMVP_AMCGCR_EL0_CG1NC PMVP_BITS(15, 8)
#define PMVP_AMCG1IDR_EL0_CG1IMP PMVP_BITS(15, 0)
#define PMVP_AMCG1IDR_EL0_CG1VOFF PMVP_BITS(31, 16)
#define PMVP_AMEVTYPER_EL0_evtCount PMVP_BITS(15, 0)
/* AMCNTENSET0/CLR0_EL0 (D24.6.4, D24.6.6): P<n> for the architected
 * counters; AMCNTENSET1/CLR1_EL0 (D24.6.5, D24.6.7): for the auxiliary ones. */
#define PMVP_AMCNTEN0_EL0_P PMVP_BITS(3, 0)
#define PMVP_AMCNTEN1_EL0_P PMVP_BITS(15, 0)
#define PMVP_AMEVCNTR_EL0_ACNT PMVP_BITS(63, 0)

/* PMCFGR (I5.3.11). */
#define PMVP_PMCFGR_N PMVP_BITS(7, 0)
#define PMVP_PMCFGR_SIZE PMVP_BITS(13, 8)
#define PMVP_PMCFGR_CC PMVP_BIT(14)
#define PMVP_PMCFGR_CCD PMVP_BIT(15)
#define PMVP_PMCFGR_EX PMVP_BIT(16)
#define PMVP_PMCFGR_FZO PMVP_BIT(21)
#define PMVP_PMCFGR_NCG PMVP_BITS(31, 28)

/* PMCCR (I5.3.47), FEAT_PMUv3_EXTPMN. */
#define PMVP_PMCCR_OSLO PMVP_BIT(8)
#define PMVP_PMCCR_EPME PMVP_BIT(7)
#define PMVP_PMCCR_EPMN PMVP_BITS(4, 0)

/* PMDEVID (I5.3.26). */
#define PMVP_PMDEVID_EXTPMN PMVP_BITS(11, 8)
#define PMVP_PMDEVID_PMSS PMVP_BITS(7, 4)
#define PMVP_PMDEVID_PCSample PMVP_BITS(3, 0)

/* PMCGCR0 (I5.3.10), FEAT_PMUv3_ICNTR. */
#define PMVP_PMCGCR0_CG0NC PMVP_BITS(7, 0)
#define PMVP_PMCGCR0_CG1NC PMVP_BITS(15, 8)

/* PMLSR (I5.3.41), and the PMLAR key that clears the Software Lock. */
#define PMVP_PMLSR_SLI PMVP_BIT(0)
#define PMVP_PMLSR_SLK PMVP_BIT(1)
#define PMVP_PMLAR_KEY UINT32_C(0xC5ACCE55)

/* PMAUTHSTATUS (I5.3.1): 0b10 implemented and disabled, 0b11 enabled. */
#define PMVP_PMAUTHSTATUS_NSNID PMVP_BITS(3, 2)
#define PMVP_PMAUTHSTATUS_SNID PMVP_BITS(7, 6)

/* PMIIDR / AMIIDR, and the CoreSight peripheral ID registers derived from
 * them (I5.3.35, I5.5.24 to I5.5.29). */
#define PMVP_PMIIDR_Implementer PMVP_BITS(11, 0)
#define PMVP_PMIIDR_Revision PMVP_BITS(15, 12)
#define PMVP_PMIIDR_Variant PMVP_BITS(19, 16)
#define PMVP_PMIIDR_ProductID PMVP_BITS(31, 20)

/* MPIDR_EL1 fields that DEVAFF registers copy. */
#define PMVP_MPIDR_EL1_Aff0 PMVP_BITS(7, 0)
#define PMVP_MPIDR_EL1_MT PMVP_BIT(24)
#define PMVP_MPIDR_EL1_RES1 PMVP_BIT(31)

/* SDER32_EL3. */
#define PMVP_SDER32_EL3_SUNIDEN PMVP_BIT(1)

/* PMUSERENR_EL0 (D24.5.26) */
#define PMVP_PMUSERENR_EL0_EN PMVP_BIT(0)
#define PMVP_PMUSERENR_EL0_SW PMVP_BIT(1)
#define PMVP_PMUSERENR_EL0_CR PMVP_BIT(2)
#define PMVP_PMUSERENR_EL0_ER PMVP_BIT(3)
#define PMVP_PMUSERENR_EL0_UEN PMVP_BIT(4) /* FEAT_PMUv3p9 */
#define PMVP_PMUSERENR_EL0_IR PMVP_BIT(5)  /* FEAT_PMUv3_ICNTR */
#define PMVP_PMUSERENR_EL0_TID PMVP_BIT(6) /* FEAT_PMUv3p9 */

/* Controls of the higher Exception levels over System-register accesses
 * (the AArch32 HCR, HCPTR share these positions) */
#define PMVP_HCR_EL2_TGE PMVP_BIT(27)
#define PMVP_HCR_EL2_E2H PMVP_BIT(34)
#define PMVP_HCR_EL2_AMVOFFEN PMVP_BIT(51) /* FEAT_AMUv1p1 */
#define PMVP_CPTR_EL2_TAM PMVP_BIT(30)
#define PMVP_CPTR_EL3_TAM PMVP_BIT(30)
#define PMVP_SCR_EL3_EEL2 PMVP_BIT(18)
#define PMVP_SCR_EL3_FGTEn PMVP_BIT(27)
#define PMVP_SCR_EL3_AMVOFFEN PMVP_BIT(60) /* FEAT_AMUv1p1 */
#define PMVP_SCR_EL3_FGTEn2 PMVP_BIT(59)   /* FEAT_FGT2 */

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
