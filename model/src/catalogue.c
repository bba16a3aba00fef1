/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The register catalogue (catalogue.h), from each register's block in
 * registers.def: its title and section of D24.5 or D24.6, the feature its
 * gate names, the fields pmvp implements with the masks of fields.h, and
 * its PMVP_REG_STATE line as written.
 */
#include "pmvp/catalogue.h"

#include "regtable.h"

/* The feature that implements a register, by its gate: FEAT_PMUv3 for the
 * PMU's registers that need no later feature. */
#define FEATURE_ALWAYS "FEAT_PMUv3"
#define FEATURE_PMUV3P4 "FEAT_PMUv3p4"
#define FEATURE_EBEP "FEAT_EBEP"
#define FEATURE_SEBEP "FEAT_SEBEP"
#define FEATURE_AMUV1 "FEAT_AMUv1"
#define FEATURE_AMUV1P1 "FEAT_AMUv1p1"
#define FEATURE_ICNTR "FEAT_PMUv3_ICNTR"
#define FEATURE_PMUV3P9 "FEAT_PMUv3p9"
#define FEATURE_SS "FEAT_PMUv3_SS"
#define FEATURE_SS_ICNTR "FEAT_PMUv3_SS and FEAT_PMUv3_ICNTR"
#define FEATURE_EBEP_OR_SS "FEAT_EBEP or FEAT_PMUv3_SS"


static const pmvp_reg_desc desc[2][K_FAMILY_REGS] = {
#define PMVP_REG(family, id, instances, gate, title_, section_)                                             \
    [PMVP_SYSREG_##family][PMVP_##id].title = title_, [PMVP_SYSREG_##family][PMVP_##id].section = section_, \
    [PMVP_SYSREG_##family][PMVP_##id].feature = FEATURE_##gate,
#define PMVP_FIELD(reg, name, hi, lo, note) \
    {                                       \
#name, PMVP_BITS(hi, lo), note      \
    }
#define PMVP_FIELD_SHOWN(reg, name, shown, hi, lo, note) \
    {                                                    \
        shown, PMVP_BITS(hi, lo), note                   \
    }
#define PMVP_REG_FIELDS(family, id, ...)                                                \
    [PMVP_SYSREG_##family][PMVP_##id].fields = (const pmvp_reg_field[]){ __VA_ARGS__ }, \
    [PMVP_SYSREG_##family][PMVP_##id].num_fields =                                      \
        sizeof((const pmvp_reg_field[]){ __VA_ARGS__ }) / sizeof(pmvp_reg_field),
#define PMVP_REG_STATE(family, id, kind, state_, writable_, reset_)                                     \
    [PMVP_SYSREG_##family][PMVP_##id].state = #state_, [PMVP_SYSREG_##family][PMVP_##id].write = #kind, \
    [PMVP_SYSREG_##family][PMVP_##id].writable = #writable_, [PMVP_SYSREG_##family][PMVP_##id].reset = #reset_,
#include "pmvp/registers.def"
};

const pmvp_reg_desc *pmvp_reg_desc_of(enum pmvp_sysreg_family family, unsigned reg)
{
    return k_reg_of(family, reg) ? &desc[family][reg] : NULL;
}
