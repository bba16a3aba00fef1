/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register catalogue (catalogue.h): titles and sections of D24.5 and
 * D24.6, and the fields pmvp implements, with the masks of fields.h. The
 * notes say what the configuration or the model decides about a field.
 */
#include "pmvp/catalogue.h"

#include "pmvp/fields.h"

#define FIELDS(...) (const pmvp_reg_field[]){ __VA_ARGS__ }, \
    sizeof((const pmvp_reg_field[]){ __VA_ARGS__ }) / sizeof(pmvp_reg_field)

/* PMEVTYPER<n>_EL0 and PMCCFILTR_EL0 share their filter fields. */
#define FILTER_FIELDS                                                               \
    { "P", PMEVTYPER_EL0_P, NULL },                                                 \
    { "U", PMEVTYPER_EL0_U, NULL },                                                 \
    { "NSK", PMEVTYPER_EL0_NSK, "RES0 without EL3" },                               \
    { "NSU", PMEVTYPER_EL0_NSU, "RES0 without EL3" },                               \
    { "NSH", PMEVTYPER_EL0_NSH, "RES0 without EL2" },                               \
    { "M", PMEVTYPER_EL0_M, "RES0 without EL3" }

#define FILTER_FIELDS_LOW                                                           \
    { "SH", PMEVTYPER_EL0_SH, "RES0 without FEAT_SEL2" },                           \
    { "RLK", PMEVTYPER_EL0_RLK, "RES0 without FEAT_RME" },                          \
    { "RLU", PMEVTYPER_EL0_RLU, "RES0 without FEAT_RME" },                          \
    { "RLH", PMEVTYPER_EL0_RLH, "RES0 without FEAT_RME" }

#define EVTYPER_FIELDS                                                              \
    { "SYNC", PMEVTYPER_EL0_SYNC, "RES0 without FEAT_SEBEP" },                      \
    FILTER_FIELDS,                                                                  \
    { "MT", PMEVTYPER_EL0_MT, "RES0 without FEAT_MTPMU" },                          \
    FILTER_FIELDS_LOW,                                                              \
    { "evtCount", PMEVTYPER_EL0_evtCount, "[9:0] before FEAT_PMUv3p1" }

#define ENABLE_FIELDS                                                               \
    { "C", PMVP_PMU_C, "the cycle counter" },                                       \
    { "P<n>", PMVP_PMU_P, "event counter n; RAZ/WI for n >= PMCR.N" }

#define PMU_FEATURE "FEAT_PMUv3"
#define AMU_FEATURE "FEAT_AMUv1"

static const pmvp_reg_desc pmu_desc[PMVP_PMU_NUM_REGS] = {
    [PMVP_PMCR_EL0] = { "Performance Monitors Control Register", "D24.5.8", PMU_FEATURE, FIELDS(
        { "IMP", PMCR_EL0_IMP, "pmcr_imp; RAZ with FEAT_PMUv3p7" },
        { "IDCODE", PMCR_EL0_IDCODE, "pmcr_idcode when IMP is not 0" },
        { "N", PMCR_EL0_N, "read-only: num_counters; MDCR_EL2.HPMN at EL0 and EL1" },
        { "FZO", PMCR_EL0_FZO, "RAZ/WI: freeze on overflow is not modelled" },
        { "LP", PMCR_EL0_LP, "RES0 before FEAT_PMUv3p5" },
        { "LC", PMCR_EL0_LC, "RES1 without AArch32" },
        { "DP", PMCR_EL0_DP, "RES0 without EL3, without EL2 and FEAT_PMUv3p1, and without FEAT_PMUv3p7" },
        { "X", PMCR_EL0_X, "RAZ/WI: no event export bus is modelled" },
        { "D", PMCR_EL0_D, "RES0 without AArch32" },
        { "C", PMCR_EL0_C, "write-only: writing 1 zeroes PMCCNTR_EL0" },
        { "P", PMCR_EL0_P, "write-only: writing 1 zeroes the event counters" },
        { "E", PMCR_EL0_E, NULL }) },
    [PMVP_PMCNTENSET_EL0] = { "Performance Monitors Count Enable Set Register", "D24.5.7", PMU_FEATURE, FIELDS(ENABLE_FIELDS) },
    [PMVP_PMCNTENCLR_EL0] = { "Performance Monitors Count Enable Clear Register", "D24.5.6", PMU_FEATURE, FIELDS(ENABLE_FIELDS) },
    [PMVP_PMINTENSET_EL1] = { "Performance Monitors Interrupt Enable Set Register", "D24.5.18", PMU_FEATURE, FIELDS(ENABLE_FIELDS) },
    [PMVP_PMINTENCLR_EL1] = { "Performance Monitors Interrupt Enable Clear Register", "D24.5.17", PMU_FEATURE, FIELDS(ENABLE_FIELDS) },
    [PMVP_PMOVSSET_EL0] = { "Performance Monitors Overflow Flag Status Set Register", "D24.5.21", PMU_FEATURE, FIELDS(ENABLE_FIELDS) },
    [PMVP_PMOVSCLR_EL0] = { "Performance Monitors Overflow Flag Status Clear Register", "D24.5.20", PMU_FEATURE, FIELDS(ENABLE_FIELDS) },
    [PMVP_PMSWINC_EL0] = { "Performance Monitors Software Increment Register", "D24.5.24", PMU_FEATURE, FIELDS(
        { "P<n>", PMVP_PMU_P, "write-only: increments event counter n if it counts SW_INCR" }) },
    [PMVP_PMSELR_EL0] = { "Performance Monitors Event Counter Selection Register", "D24.5.22", PMU_FEATURE, FIELDS(
        { "SEL", PMSELR_EL0_SEL, "31 selects PMCCFILTR_EL0 for PMXEVTYPER_EL0" }) },
    [PMVP_PMCEID0_EL0] = { "Performance Monitors Common Event Identification Register 0", "D24.5.4", PMU_FEATURE, FIELDS(
        { "IDhi<n>", PMCEID_EL0_IDhi, "event 0x4000 + n; RES0 before FEAT_PMUv3p1" },
        { "ID<n>", PMCEID_EL0_ID, "event n" }) },
    [PMVP_PMCEID1_EL0] = { "Performance Monitors Common Event Identification Register 1", "D24.5.5", PMU_FEATURE, FIELDS(
        { "IDhi<n>", PMCEID_EL0_IDhi, "event 0x4020 + n; RES0 before FEAT_PMUv3p1" },
        { "ID<n>", PMCEID_EL0_ID, "event 0x0020 + n" }) },
    [PMVP_PMCCNTR_EL0] = { "Performance Monitors Cycle Count Register", "D24.5.2", PMU_FEATURE, FIELDS(
        { "CCNT", PMCCNTR_EL0_CCNT, NULL }) },
    [PMVP_PMCCFILTR_EL0] = { "Performance Monitors Cycle Count Filter Register", "D24.5.1", PMU_FEATURE, FIELDS(
        FILTER_FIELDS, FILTER_FIELDS_LOW) },
    [PMVP_PMXEVTYPER_EL0] = { "Performance Monitors Selected Event Type Register", "D24.5.28", PMU_FEATURE, FIELDS(
        EVTYPER_FIELDS) },
    [PMVP_PMXEVCNTR_EL0] = { "Performance Monitors Selected Event Count Register", "D24.5.27", PMU_FEATURE, FIELDS(
        { "PMEVCNTR<n>", PMEVCNTR_EL0_EVCNT, "[31:0] before FEAT_PMUv3p5; RAZ/WI when SEL selects no counter" }) },
    [PMVP_PMUSERENR_EL0] = { "Performance Monitors User Enable Register", "D24.5.26", PMU_FEATURE, FIELDS(
        { "ER", PMUSERENR_EL0_ER, NULL },
        { "CR", PMUSERENR_EL0_CR, NULL },
        { "SW", PMUSERENR_EL0_SW, NULL },
        { "EN", PMUSERENR_EL0_EN, NULL }) },
    [PMVP_PMMIR_EL1] = { "Performance Monitors Machine Identification Register", "D24.5.19", "FEAT_PMUv3p4", FIELDS(
        { "EDGE", PMMIR_EL1_EDGE, "the configured pmmir" },
        { "THWIDTH", PMMIR_EL1_THWIDTH, "the configured pmmir" },
        { "BUS_WIDTH", PMMIR_EL1_BUS_WIDTH, "the configured pmmir" },
        { "BUS_SLOTS", PMMIR_EL1_BUS_SLOTS, "the configured pmmir" },
        { "SLOTS", PMMIR_EL1_SLOTS, "the configured pmmir" }) },
    [PMVP_PMECR_EL1] = { "Performance Monitors Extended Control Register", "D24.5.9", "FEAT_EBEP", FIELDS(
        { "KPME", PMECR_EL1_KPME, NULL },
        { "PMEE", PMECR_EL1_PMEE, "0b01 (reserved) is read as 0b00" }) },
    [PMVP_PMIAR_EL1] = { "Performance Monitors Instruction Address Register", "D24.5.13", "FEAT_SEBEP", FIELDS(
        { "ADDRESS", PMIAR_EL1_ADDRESS, "[1:0] RES0, [63:48] RESS; set by an instruction that sets PSTATE.PPEND" }) },
    [PMVP_PMEVCNTR_EL0] = { "Performance Monitors Event Count Registers", "D24.5.10", PMU_FEATURE, FIELDS(
        { "EVCNT", PMEVCNTR_EL0_EVCNT, "[31:0] before FEAT_PMUv3p5" }) },
    [PMVP_PMEVTYPER_EL0] = { "Performance Monitors Event Type Registers", "D24.5.12", PMU_FEATURE, FIELDS(
        EVTYPER_FIELDS) },
};

static const pmvp_reg_desc amu_desc[PMVP_AMU_NUM_REGS] = {
    [PMVP_AMCR_EL0] = { "Activity Monitors Control Register", "D24.6.8", AMU_FEATURE, FIELDS(
        { "CG1RZ", AMCR_EL0_CG1RZ, "RES0 without FEAT_AMUv1p1" },
        { "HDBG", AMCR_EL0_HDBG, NULL }) },
    [PMVP_AMCFGR_EL0] = { "Activity Monitors Configuration Register", "D24.6.1", AMU_FEATURE, FIELDS(
        { "NCG", AMCFGR_EL0_NCG, "1 with auxiliary counters, else 0" },
        { "HDBG", AMCFGR_EL0_HDBG, NULL },
        { "SIZE", AMCFGR_EL0_SIZE, "63: 64-bit counters" },
        { "N", AMCFGR_EL0_N, "counters minus 1" }) },
    [PMVP_AMCGCR_EL0] = { "Activity Monitors Counter Group Configuration Register", "D24.6.3", AMU_FEATURE, FIELDS(
        { "CG1NC", AMCGCR_EL0_CG1NC, "amu_num_aux" },
        { "CG0NC", AMCGCR_EL0_CG0NC, "4" }) },
    [PMVP_AMUSERENR_EL0] = { "Activity Monitors User Enable Register", "D24.6.15", AMU_FEATURE, FIELDS(
        { "EN", AMUSERENR_EL0_EN, NULL }) },
    [PMVP_AMCNTENSET0_EL0] = { "Activity Monitors Count Enable Set Register 0", "D24.6.6", AMU_FEATURE, FIELDS(
        { "P<n>", AMCNTEN0_EL0_P, NULL }) },
    [PMVP_AMCNTENCLR0_EL0] = { "Activity Monitors Count Enable Clear Register 0", "D24.6.4", AMU_FEATURE, FIELDS(
        { "P<n>", AMCNTEN0_EL0_P, NULL }) },
    [PMVP_AMCNTENSET1_EL0] = { "Activity Monitors Count Enable Set Register 1", "D24.6.7", AMU_FEATURE, FIELDS(
        { "P<n>", AMCNTEN1_EL0_P, "RAZ/WI for n >= amu_num_aux" }) },
    [PMVP_AMCNTENCLR1_EL0] = { "Activity Monitors Count Enable Clear Register 1", "D24.6.5", AMU_FEATURE, FIELDS(
        { "P<n>", AMCNTEN1_EL0_P, "RAZ/WI for n >= amu_num_aux" }) },
    [PMVP_AMCG1IDR_EL0] = { "Activity Monitors Counter Group 1 Identification Register", "D24.6.2", "FEAT_AMUv1p1", FIELDS(
        { "AMEVCNTOFF1<n>_EL2", AMCG1IDR_EL0_CG1VOFF, "0: virtual offsets are not modelled" },
        { "AMEVCNTR1<n>_EL0", AMCG1IDR_EL0_CG1IMP, "1 for n < amu_num_aux" }) },
    [PMVP_AMEVCNTR0_EL0] = { "Activity Monitors Event Counter Registers 0", "D24.6.9", AMU_FEATURE, FIELDS(
        { "ACNT", AMEVCNTR_EL0_ACNT, NULL }) },
    [PMVP_AMEVTYPER0_EL0] = { "Activity Monitors Event Type Registers 0", "D24.6.13", AMU_FEATURE, FIELDS(
        { "evtCount", AMEVTYPER_EL0_evtCount, "read-only: the architected event of counter n" }) },
    [PMVP_AMEVCNTR1_EL0] = { "Activity Monitors Event Counter Registers 1", "D24.6.10", AMU_FEATURE, FIELDS(
        { "ACNT", AMEVCNTR_EL0_ACNT, NULL }) },
    [PMVP_AMEVTYPER1_EL0] = { "Activity Monitors Event Type Registers 1", "D24.6.14", AMU_FEATURE, FIELDS(
        { "evtCount", AMEVTYPER_EL0_evtCount, "read-only when amu_aux_programmable is false" }) },
};

const pmvp_reg_desc *pmvp_reg_desc_of(enum pmvp_sysreg_family family, unsigned reg)
{
    if (family == PMVP_SYSREG_PMU && reg < PMVP_PMU_NUM_REGS)
        return &pmu_desc[reg];
    if (family == PMVP_SYSREG_AMU && reg < PMVP_AMU_NUM_REGS)
        return &amu_desc[reg];
    return NULL;
}
