/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PMU and AMU System registers as the register files see them: each
 * one's name, instances, feature gate and instructions, from its block in
 * registers.def; and the feature gates, decided here for every file that
 * asks (the register files, the access checks, the external frames).
 */
#include "regtable.h"
#include "pmvp/amu.h"
#include "pmvp/error.h"
#include "pmvp/pmu.h"
#include "pmvp/sysreg.h"

/* [family][reg]: PMVP_REG gives the name, instances and gate; PMVP_REG_ACCESS
 * which instructions exist. */
static const k_reg rows[2][K_FAMILY_REGS] = {
#define PMVP_REG(family, id, instances_, gate_, title, section)                                                 \
    [PMVP_SYSREG_##family][PMVP_##id].name = #id, [PMVP_SYSREG_##family][PMVP_##id].instances = K_##instances_, \
    [PMVP_SYSREG_##family][PMVP_##id].gate = PMVP_GATE_##gate_,
#define PMVP_REG_ACCESS(family, id, read_, write_, ...)         \
    [PMVP_SYSREG_##family][PMVP_##id].read = PMVP_GATE_##read_, \
    [PMVP_SYSREG_##family][PMVP_##id].write = PMVP_GATE_##write_,
#include "pmvp/registers.def"
};

static const unsigned num_regs[2] = { PMVP_PMU_NUM_REGS, PMVP_AMU_NUM_REGS };

const k_reg *k_reg_of(unsigned family, unsigned reg)
{
    return family <= PMVP_SYSREG_AMU && reg < num_regs[family] ? &rows[family][reg] : NULL;
}

unsigned k_reg_instances(const pmvp_core_config *cfg, const k_reg *r)
{
    switch (r->instances) {
    case K_EVENT_COUNTERS: return cfg->num_counters;
    case K_AMU_ARCH:
    case K_AMU_ARCH_OFFSETS: return PMVP_AMU_ARCH_COUNTERS;
    case K_AMU_AUX:
    case K_AMU_AUX_OFFSETS: return cfg->amu_num_aux;
    default: return 1;
    }
}

bool k_reg_has_instance(const pmvp_core_config *cfg, const k_reg *r, unsigned n)
{
    if (n >= k_reg_instances(cfg, r))
        return false;
    switch (r->instances) {
    case K_AMU_ARCH_OFFSETS: return n != 1; /* CNT_CYCLES counts without an offset (D16.2) */
    case K_AMU_AUX_OFFSETS: return cfg->amu_aux_offsets >> n & 1;
    default: return true;
    }
}

int k_reg_access(const pmvp_core_config *cfg, unsigned family, unsigned reg, unsigned n, bool write)
{
    const k_reg *r = k_reg_of(family, reg);
    if (!r)
        return PMVP_ERR_REGISTER;
    if (write && !pmvp_gate_open(cfg, r->write))
        return PMVP_ERR_READ_ONLY;
    if (!pmvp_gate_open(cfg, r->gate))
        return PMVP_ERR_REGISTER;
    if (r->instances != K_ONE && !k_reg_has_instance(cfg, r, n))
        return PMVP_ERR_COUNTER;
    return PMVP_OK;
}

bool pmvp_gate_open(const pmvp_core_config *cfg, enum pmvp_gate gate)
{
    enum pmvp_pmu_version v = cfg->pmu_version;
    switch (gate) {
    case PMVP_GATE_ALWAYS: return true;
    case PMVP_GATE_NEVER: return false;
    case PMVP_GATE_PMUV3P1: return v >= PMVP_PMUV3P1;
    case PMVP_GATE_PMUV3P4: return v >= PMVP_PMUV3P4;
    case PMVP_GATE_PMUV3P5: return v >= PMVP_PMUV3P5;
    case PMVP_GATE_NOT_PMUV3P5: return v < PMVP_PMUV3P5;
    case PMVP_GATE_EXT_PMSWINC: return cfg->pmu_ext_pmswinc;
    case PMVP_GATE_EBEP: return cfg->feat_ebep;
    case PMVP_GATE_SEBEP: return cfg->feat_sebep;
    case PMVP_GATE_AMUV1: return cfg->feat_amuv1;
    case PMVP_GATE_AMUV1P1: return cfg->feat_amuv1 && cfg->feat_amuv1p1;
    case PMVP_GATE_AMU_AUX_PROGRAMMABLE: return cfg->amu_aux_programmable;
    case PMVP_GATE_ICNTR: return cfg->feat_pmuv3_icntr;
    case PMVP_GATE_PMUV3P9: return cfg->feat_pmuv3p9;
    case PMVP_GATE_PMUV3P4_NOT_P9: return cfg->pmu_version >= PMVP_PMUV3P4 && !cfg->feat_pmuv3p9;
    case PMVP_GATE_SS: return cfg->feat_pmuv3_ss;
    case PMVP_GATE_SS_ICNTR: return cfg->feat_pmuv3_ss && cfg->feat_pmuv3_icntr;
    case PMVP_GATE_EBEP_OR_SS: return cfg->feat_ebep || cfg->feat_pmuv3_ss;
    case PMVP_GATE_TOP_HALVES: return PMVP_FIELD_GET(PMVP_PMMIR_EL1_THWIDTH, cfg->pmmir) != 0 || cfg->feat_pmuv3p9;
    case PMVP_GATE_EXTPMN: return cfg->feat_pmuv3_extpmn;
    case PMVP_GATE_WIDE_BITMAPS: return cfg->feat_pmuv3_icntr || cfg->feat_pmuv3p9;
    case PMVP_GATE_NARROW_BITMAPS: return !cfg->feat_pmuv3_icntr && !cfg->feat_pmuv3p9;
    }
    return false;
}

const char *pmvp_gate_name(enum pmvp_gate gate)
{
    static const char *const names[] = {
        [PMVP_GATE_ALWAYS] = "",
        [PMVP_GATE_NEVER] = "never",
        [PMVP_GATE_PMUV3P1] = "FEAT_PMUv3p1",
        [PMVP_GATE_PMUV3P4] = "FEAT_PMUv3p4",
        [PMVP_GATE_PMUV3P5] = "FEAT_PMUv3p5",
        [PMVP_GATE_NOT_PMUV3P5] = "not FEAT_PMUv3p5",
        [PMVP_GATE_EXT_PMSWINC] = "pmu_ext_pmswinc",
        [PMVP_GATE_EBEP] = "FEAT_EBEP",
        [PMVP_GATE_SEBEP] = "FEAT_SEBEP",
        [PMVP_GATE_AMUV1] = "FEAT_AMUv1",
        [PMVP_GATE_AMUV1P1] = "FEAT_AMUv1p1",
        [PMVP_GATE_AMU_AUX_PROGRAMMABLE] = "amu_aux_programmable",
        [PMVP_GATE_ICNTR] = "FEAT_PMUv3_ICNTR",
        [PMVP_GATE_PMUV3P9] = "FEAT_PMUv3p9",
        [PMVP_GATE_PMUV3P4_NOT_P9] = "FEAT_PMUv3p4 without FEAT_PMUv3p9",
        [PMVP_GATE_TOP_HALVES] = "FEAT_PMUv3_TH or FEAT_PMUv3p8",
        [PMVP_GATE_SS] = "FEAT_PMUv3_SS",
        [PMVP_GATE_SS_ICNTR] = "FEAT_PMUv3_SS and FEAT_PMUv3_ICNTR",
        [PMVP_GATE_EBEP_OR_SS] = "FEAT_EBEP or FEAT_PMUv3_SS",
        [PMVP_GATE_EXTPMN] = "FEAT_PMUv3_EXTPMN",
        [PMVP_GATE_WIDE_BITMAPS] = "FEAT_PMUv3_ICNTR or FEAT_PMUv3p9",
        [PMVP_GATE_NARROW_BITMAPS] = "neither FEAT_PMUv3_ICNTR nor FEAT_PMUv3p9",
    };
    return (unsigned)gate < sizeof names / sizeof names[0] ? names[gate] : NULL;
}

static const char *name_of(unsigned family, unsigned reg)
{
    const k_reg *r = k_reg_of(family, reg);
    return r ? r->name : NULL;
}

static bool indexed(unsigned family, unsigned reg)
{
    const k_reg *r = k_reg_of(family, reg);
    return r && r->instances != K_ONE;
}

const char *pmvp_pmu_reg_name(enum pmvp_pmu_reg reg)
{
    return name_of(PMVP_SYSREG_PMU, (unsigned)reg);
}
bool pmvp_pmu_reg_indexed(enum pmvp_pmu_reg reg)
{
    return indexed(PMVP_SYSREG_PMU, (unsigned)reg);
}
const char *pmvp_amu_reg_name(enum pmvp_amu_reg reg)
{
    return name_of(PMVP_SYSREG_AMU, (unsigned)reg);
}
bool pmvp_amu_reg_indexed(enum pmvp_amu_reg reg)
{
    return indexed(PMVP_SYSREG_AMU, (unsigned)reg);
}
