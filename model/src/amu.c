/* SPDX-License-Identifier: Apache-2.0 */
/* The AMUv1 register file of a PE (D24.6), over the counting rules in count.c. */
#include "pmvp/amu.h"

#include "regfile.h"
#include "pmvp/error.h"
#include "pmvp/sysreg.h"

/* AMEVTYPER1<n>'s event as auxiliary counter n counts it. */
static void decode_event1(const pmvp_core *c, pmvp_amu *a, unsigned n)
{
    a->event1[n] = k_decode_event(c, a->evtyper1[n], true);
}

/* The bracket of an access (regfile.h), for this file's registers. */
static int begin_access(pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, bool write, pmvp_time now)
{
    return k_access_begin(c, p, PMVP_SYSREG_AMU, (unsigned)reg, n, write, now);
}

int k_amu_look(const pmvp_core *c, const pmvp_pe *pe, enum pmvp_amu_reg reg, unsigned n, uint64_t *value)
{
    unsigned aux = c->cfg.amu_num_aux;
    switch (reg) { /* the registers whose read is not a value they hold */
    case PMVP_AMCFGR_EL0:
        /* N counts every counter of both groups, minus one; HDBG is mandatory. */
        *value = PMVP_FIELD_PREP(PMVP_AMCFGR_EL0_N, PMVP_AMU_ARCH_COUNTERS + aux - 1) | PMVP_AMCFGR_EL0_SIZE |
                 PMVP_AMCFGR_EL0_HDBG | PMVP_FIELD_PREP(PMVP_AMCFGR_EL0_NCG, aux ? 1 : 0);
        return PMVP_OK;
    case PMVP_AMCGCR_EL0:
        *value = PMVP_FIELD_PREP(PMVP_AMCGCR_EL0_CG0NC, PMVP_AMU_ARCH_COUNTERS) |
                 PMVP_FIELD_PREP(PMVP_AMCGCR_EL0_CG1NC, aux);
        return PMVP_OK;
    case PMVP_AMCG1IDR_EL0:
        *value = k_amu_aux_mask(c) | PMVP_FIELD_PREP(PMVP_AMCG1IDR_EL0_CG1VOFF, c->cfg.amu_aux_offsets);
        return PMVP_OK;
    case PMVP_AMEVTYPER0_EL0: *value = k_amu_architected_event(n); return PMVP_OK;
    default: return k_state_read(pe, PMVP_SYSREG_AMU, reg, n, value) ? PMVP_OK : PMVP_ERR_REGISTER;
    }
}

int k_amu_write(pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, uint64_t value)
{
    pmvp_amu *a = &c->pe[p].amu;
    if (!k_state_write(c, &c->pe[p], PMVP_SYSREG_AMU, reg, n, value))
        return PMVP_ERR_REGISTER;
    if (reg == PMVP_AMEVTYPER1_EL0) { /* what a write does beyond storing its value */
        decode_event1(c, a, n);
        if (!k_amu_can_count(c, a->evtyper1[n]))
            k_log(c, p, "AMEVTYPER1<n>: event this AMU cannot count; the counter counts nothing");
    }
    /* Enables, event types and AMCR.HDBG decide which counters a report
     * reaches; the counters and AMUSERENR do not. */
    if (reg != PMVP_AMEVCNTR0_EL0 && reg != PMVP_AMEVCNTR1_EL0 && reg != PMVP_AMUSERENR_EL0)
        k_routes_stale(c);
    return PMVP_OK;
}

int pmvp_amu_read(pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, pmvp_time now, uint64_t *value)
{
    if (!value)
        return PMVP_ERR_NULL;
    int err = begin_access(c, p, reg, n, false, now);
    return err ? err : k_amu_look(c, &c->pe[p], reg, n, value);
}

int pmvp_amu_peek(const pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, pmvp_time t, uint64_t *value)
{
    if (!value)
        return PMVP_ERR_NULL;
    int err = k_look_begin(c, p, PMVP_SYSREG_AMU, (unsigned)reg, n, t);
    if (err)
        return err;
    pmvp_pe scratch;
    return k_amu_look(c, k_pe_at(c, p, t, &scratch), reg, n, value);
}

int pmvp_amu_write(pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, uint64_t value, pmvp_time now)
{
    int err = begin_access(c, p, reg, n, true, now);
    return err ? err : k_amu_write(c, p, reg, n, value);
}

int pmvp_amu_reset(pmvp_core *c, unsigned p, pmvp_time now)
{
    int err = k_begin_pe(c, p, now);
    if (err)
        return err;
    pmvp_amu *a = &c->pe[p].amu;
    k_state_reset(c, &c->pe[p], PMVP_SYSREG_AMU);
    for (unsigned n = 0; n < c->cfg.amu_num_aux; n++)
        decode_event1(c, a, n);
    k_routes_stale(c);
    return PMVP_OK;
}
