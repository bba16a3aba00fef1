/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The external frames' access checks (I3.1.4 for the PMU, I4.1.3 for the
 * AMU): what a non-debug access from each security state gets from the
 * registers of each domain, kept per PE as its permission word
 * (k_pe_caches.permission) and computed again whenever an input the checks
 * follow changes, so that an access (ext.c) reads its answer in O(1).
 */
#include <stdbool.h>

#include "regfile.h"

/* A Most secure access (I3.1.4): Root with FEAT_RME, else Secure when
 * Secure state exists, else any access. */
bool k_ext_most_secure(const pmvp_core *c, const pmvp_ext_access *a)
{
    if (c->cfg.feat_rme)
        return a->security == PMVP_ROOT;
    return !c->cfg.have_el3 || a->security == PMVP_SECURE;
}

/* AllowExternalPMUAccess(): with FEAT_Debugv8p4 a Most secure access is
 * always allowed; otherwise NIDEN must be asserted and SPNIDEN decides for
 * Secure. A Non-secure access is then allowed unless MDCR_EL3.EPMAD
 * disables it. */
static bool allow_external_pmu_access(const pmvp_core *c, const pmvp_pmu_controls *ctl, const pmvp_ext_access *a)
{
    if (!c->cfg.feat_debugv8p4 && !ctl->noninvasive_debug)
        return false;
    bool allow_secure = c->cfg.feat_debugv8p4 ? k_ext_most_secure(c, a) : ctl->secure_noninvasive_debug;
    if (allow_secure)
        return true;
    return !c->cfg.have_el3 || !(ctl->mdcr_el3 & PMVP_MDCR_EL3_EPMAD);
}

/* The checks, in the spec's order, for PE p, an access from `security`
 * and registers of `domain`. */
static uint8_t permission(const pmvp_core *c, unsigned p, enum pmvp_security security, enum pmvp_ext_domain domain)
{
    const pmvp_pe *pe = &c->pe[p];
    const pmvp_pmu_controls *ctl = &pe->pmu.ctl;
    const pmvp_ext_access a = { (uint8_t)security, false };
    const bool off = pe->state == PMVP_PE_OFF;
    switch (domain) {
    case PMVP_EXT_CORE:
    case PMVP_EXT_SNAPSHOT:
        if (off)
            return K_REFUSE_OFF;
        if (ctl->os_double_lock)
            return K_REFUSE_LOCKED;
        if (!allow_external_pmu_access(c, ctl, &a))
            return K_REFUSE_DENIED;
        /* PMCCR.OSLO: a Most secure access ignores the OS Lock (I3.1.4). */
        if (ctl->os_lock && domain == PMVP_EXT_CORE && !((pe->ext.pmccr & PMVP_PMCCR_OSLO) && k_ext_most_secure(c, &a)))
            return K_REFUSE_LOCKED;
        return c->cfg.pmu_software_lock && pe->ext.software_locked ? K_PERMIT | K_SOFTWARE_LOCKED : K_PERMIT;
    case PMVP_EXT_MOST_SECURE: /* PMCCR (I5.3.47) */
        if (off)
            return K_REFUSE_OFF;
        if (ctl->os_double_lock)
            return K_REFUSE_LOCKED;
        return k_ext_most_secure(c, &a) ? K_PERMIT : K_PERMIT_RAZ_WI;
    case PMVP_EXT_MGMT: return off && c->cfg.feat_dopd ? K_REFUSE_OFF : K_PERMIT;
    default: /* PMVP_EXT_AMU */ return off && !c->cfg.amu_always_on ? K_PERMIT_RAZ_WI : K_PERMIT;
    }
}

/* The permission word: the checks change only with the inputs
 * k_ext_permissions follows, so each PE keeps their outcome for every
 * security state and domain, and an access reads it in O(1). */
void k_ext_permissions(pmvp_core *c, unsigned p)
{
    k_pe_caches *pc = k_pe_caches(&c->pe[p]);
    for (unsigned s = PMVP_NONSECURE; s <= PMVP_ROOT; s++)
        for (unsigned d = PMVP_EXT_CORE; d <= PMVP_EXT_MOST_SECURE; d++)
            pc->permission[s][d] = permission(c, p, (enum pmvp_security)s, (enum pmvp_ext_domain)d);
}
