/* SPDX-License-Identifier: Apache-2.0 */
/* The AMUv1 register file of a PE (D24.6), over the counting rules in count.c. */
#include "pmvp/amu.h"

#include "regfile.h"
#include "pmvp/error.h"
#include "pmvp/sysreg.h"

static uint32_t aux_mask(const pmvp_core *c)
{
    unsigned aux = c->cfg.amu_num_aux;
    return aux ? (uint32_t)PMVP_BITS(aux - 1, 0) : 0;
}

static const uint32_t arch_mask = (1u << PMVP_AMU_ARCH_COUNTERS) - 1;

/* AMEVTYPER1<n>.evtCount, and its event decoded. */
static void set_evtyper1(const pmvp_core *c, pmvp_amu *a, unsigned n, uint16_t event)
{
    a->evtyper1[n] = event;
    a->event1[n] = k_decode_event(c, event, true);
}

/* The bracket of an access (regfile.h), for this file's registers. */
static int begin_access(pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, bool write, pmvp_time now)
{
    return k_access_begin(c, p, PMVP_SYSREG_AMU, (unsigned)reg, n, write, now);
}

int k_amu_look(const pmvp_core *c, const pmvp_pe *pe, enum pmvp_amu_reg reg, unsigned n, uint64_t *value)
{
    const pmvp_amu *a = &pe->amu;
    unsigned aux = c->cfg.amu_num_aux;
    switch (reg) {
    case PMVP_AMCR_EL0: *value = a->amcr; break;
    case PMVP_AMCFGR_EL0:
        /* N counts every counter of both groups, minus one; HDBG is mandatory. */
        *value = PMVP_FIELD_PREP(AMCFGR_EL0_N, PMVP_AMU_ARCH_COUNTERS + aux - 1) |
                 AMCFGR_EL0_SIZE | AMCFGR_EL0_HDBG |
                 PMVP_FIELD_PREP(AMCFGR_EL0_NCG, aux ? 1 : 0);
        break;
    case PMVP_AMCGCR_EL0:
        *value = PMVP_FIELD_PREP(AMCGCR_EL0_CG0NC, PMVP_AMU_ARCH_COUNTERS) |
                 PMVP_FIELD_PREP(AMCGCR_EL0_CG1NC, aux);
        break;
    case PMVP_AMUSERENR_EL0: *value = a->amuserenr; break;
    case PMVP_AMCNTENSET0_EL0: case PMVP_AMCNTENCLR0_EL0: *value = a->cntenset0; break;
    case PMVP_AMCNTENSET1_EL0: case PMVP_AMCNTENCLR1_EL0: *value = a->cntenset1; break;
    case PMVP_AMCG1IDR_EL0: *value = aux_mask(c); break;
    case PMVP_AMEVCNTR0_EL0: *value = a->cnt0[n]; break;
    case PMVP_AMEVTYPER0_EL0: *value = k_amu_architected_event(n); break;
    case PMVP_AMEVCNTR1_EL0: *value = a->cnt1[n]; break;
    case PMVP_AMEVTYPER1_EL0: *value = a->evtyper1[n]; break;
    default: return PMVP_ERR_REGISTER;
    }
    return PMVP_OK;
}

int k_amu_write(pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, uint64_t value)
{
    pmvp_amu *a = &c->pe[p].amu;
    uint32_t bits = (uint32_t)value;
    switch (reg) {
    case PMVP_AMCR_EL0:
        a->amcr = value & (AMCR_EL0_HDBG | (c->cfg.feat_amuv1p1 ? AMCR_EL0_CG1RZ : 0));
        break;
    case PMVP_AMUSERENR_EL0: a->amuserenr = bits & (uint32_t)AMUSERENR_EL0_EN; break;
    case PMVP_AMCNTENSET0_EL0: a->cntenset0 |= bits & arch_mask; break;
    case PMVP_AMCNTENCLR0_EL0: a->cntenset0 &= ~(bits & arch_mask); break;
    case PMVP_AMCNTENSET1_EL0: a->cntenset1 |= bits & aux_mask(c); break;
    case PMVP_AMCNTENCLR1_EL0: a->cntenset1 &= ~(bits & aux_mask(c)); break;
    case PMVP_AMEVCNTR0_EL0: a->cnt0[n] = value; break;
    case PMVP_AMEVCNTR1_EL0: a->cnt1[n] = value; break;
    case PMVP_AMEVTYPER1_EL0:
        set_evtyper1(c, a, n, (uint16_t)PMVP_FIELD_GET(AMEVTYPER_EL0_evtCount, value));
        if (!k_amu_can_count(c, a->evtyper1[n]))
            k_log(c, p, "AMEVTYPER1<n>: event this AMU cannot count; the counter counts nothing");
        break;
    default: return PMVP_ERR_REGISTER;
    }
    /* Enables, event types and AMCR.HDBG decide which counters a report
     * reaches; the counters and AMUSERENR do not. */
    if (reg != PMVP_AMEVCNTR0_EL0 && reg != PMVP_AMEVCNTR1_EL0 && reg != PMVP_AMUSERENR_EL0)
        k_routes_stale(c);
    return PMVP_OK;
}

int pmvp_amu_read(pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, pmvp_time now,
                  uint64_t *value)
{
    if (!value)
        return PMVP_ERR_NULL;
    int err = begin_access(c, p, reg, n, false, now);
    return err ? err : k_amu_look(c, &c->pe[p], reg, n, value);
}

int pmvp_amu_peek(const pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, pmvp_time t,
                  uint64_t *value)
{
    if (!value)
        return PMVP_ERR_NULL;
    int err = k_look_begin(c, p, PMVP_SYSREG_AMU, (unsigned)reg, n, t);
    if (err)
        return err;
    pmvp_pe at;
    k_pe_at(c, p, t, &at);
    return k_amu_look(c, &at, reg, n, value);
}

int pmvp_amu_write(pmvp_core *c, unsigned p, enum pmvp_amu_reg reg, unsigned n, uint64_t value,
                   pmvp_time now)
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
    *a = (pmvp_amu){ 0 };
    for (unsigned n = 0; n < c->cfg.amu_num_aux; n++)
        set_evtyper1(c, a, n, c->cfg.amu_aux_event[n]);
    k_routes_stale(c);
    return PMVP_OK;
}
