/* SPDX-License-Identifier: Apache-2.0 */
/* Core set-up, time discipline and the inputs a CPU model drives. */
#include <stddef.h>
#include <string.h>

#include "clocks.h"
#include "inputs.h"
#include "levels.h"
#include "pmvp/amu.h"
#include "pmvp/error.h"
#include "pmvp/pmu.h"

void pmvp_core_config_default(pmvp_core_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->num_pes = 1;
    cfg->mt_policy = PMVP_MT_SMT;
    cfg->num_counters = 6;
    cfg->pmu_version = PMVP_PMUV3P5;
    cfg->feat_mtpmu = true;
    cfg->feat_hpmn0 = true;
    cfg->feat_debugv8p2 = true;
    cfg->have_el2 = true;
    cfg->have_el3 = true;
    cfg->have_aarch32 = true;
    cfg->processor_hz = UINT64_C(1000000000);
    cfg->bus_hz = UINT64_C(1000000000);
    cfg->system_counter_hz = UINT64_C(100000000);
    cfg->clock_stops_in_wfx = true;
    cfg->pmccntr_counts_in_wfx = true;
    cfg->divider_mode = PMVP_DIVIDER_COUNTED_CYCLES;
    cfg->feat_amuv1 = true;
    cfg->feat_amuv1p1 = true;
    cfg->amu_aux_programmable = true;
    for (unsigned n = 0; n < PMVP_AMU_MAX_AUX; n++)
        cfg->amu_aux_event[n] = PMVP_EV_CPU_CYCLES;
    cfg->pmu_ext_layout = PMVP_EXT32;
    cfg->amu_ext_layout = PMVP_EXT32;
    cfg->feat_debugv8p4 = true;
    cfg->pmiidr = 0x43B;
    cfg->amiidr = 0x43B;
    cfg->mpidr = PMVP_MPIDR_EL1_RES1;
    cfg->sebep_headroom = 1;
}

static bool in_common_range(uint16_t ev)
{
    return ev <= 0x003F || (ev >= 0x4000 && ev <= 0x403F);
}

/* The configuration checks return NULL, or why the configuration is
 * refused: the field and the rule (pmvp_core_init_why). */

/* FEAT_SEBEP: the synchronous events, once the supported ones are known. */
static const char *init_sync_events(pmvp_core *c, const pmvp_core_config *cfg)
{
    if (!cfg->feat_sebep)
        return NULL;
    if (!cfg->sync_events) {
        for (size_t i = 0; i < pmvp_event_count(); i++) {
            const pmvp_event_info *e = pmvp_event_at(i);
            if (e->cls == PMVP_EVCLASS_OCCURRENCE && k_bit(c->supported, (int)i) &&
                pmvp_event_sync_kind(e->number) != PMVP_SYNC_NONE)
                k_set_bit(c->synchronous, (int)i);
        }
        return NULL;
    }
    for (unsigned k = 0; k < cfg->num_sync_events; k++) {
        uint16_t ev = cfg->sync_events[k];
        int i = pmvp_event_index(ev);
        if (i < 0 || !k_bit(c->supported, i) || pmvp_event_at((size_t)i)->cls != PMVP_EVCLASS_OCCURRENCE ||
            pmvp_event_sync_kind(ev) == PMVP_SYNC_NONE)
            return "sync_events: an event that is not a supported occurrence event counted at retirement "
                   "(FEAT_SEBEP, D13.2.2)";
        k_set_bit(c->synchronous, i);
    }
    return NULL;
}

static const char *init_events(pmvp_core *c, const pmvp_core_config *cfg)
{
    uint16_t max_event = cfg->pmu_version >= PMVP_PMUV3P1 ? 0xFFFF : 0x03FF;
    if (pmvp_event_count() > PMVP_MAX_CATALOGUE_EVENTS || pmvp_event_level_count() > PMVP_MAX_LEVEL_EVENTS)
        return "the event catalogue is larger than this build of pmvp holds (PMVP_MAX_CATALOGUE_EVENTS)";
    if (!cfg->events) {
        /* Every event the version can number, which are the catalogue's
         * first, but the AMU's own. */
        size_t n = k_events_up_to(max_event);
        for (size_t w = 0; w < n / 64; w++)
            c->supported[w] = UINT64_MAX;
        if (n % 64)
            c->supported[n / 64] = (UINT64_C(1) << n % 64) - 1;
        for (size_t k = 0; k < k_num_amu_only_events; k++) {
            int i = pmvp_event_index(k_amu_only_events[k]);
            if (i >= 0 && (size_t)i < n)
                c->supported[i / 64] &= ~(UINT64_C(1) << i % 64);
        }
        return NULL;
    }
    for (unsigned k = 0; k < cfg->num_events; k++) {
        uint16_t ev = cfg->events[k];
        int i = pmvp_event_index(ev);
        if (ev > max_event)
            return "events: an event number above 0x3FF, which PMUv3 (before PMUv3p1) cannot count";
        if (i >= 0) {
            if (pmvp_event_at((size_t)i)->cls == PMVP_EVCLASS_PMU_OVERFLOW)
                return "events: PMU_OVERFLOW is counted by the AMU only (D16.2)";
            k_set_bit(c->supported, i);
        } else if (in_common_range(ev)) {
            return "events: a common event (0x0000-0x003F, 0x4000-0x403F) that the catalogue does not define";
        } else if (c->num_impdef_events == PMVP_MAX_IMPDEF_EVENTS) {
            return "events: more IMPLEMENTATION DEFINED events than PMVP_MAX_IMPDEF_EVENTS (32)";
        } else {
            c->impdef_event[c->num_impdef_events++] = ev;
        }
    }
    return NULL;
}

/* Features of an architecture version later than a PMU version. A PE of
 * Armv8.1 or later that implements FEAT_PMUv3 implements the PMU extension
 * of its version (FEAT_PMUv3p1 from Armv8.1, FEAT_PMUv3p4 from Armv8.4,
 * FEAT_PMUv3p5 from Armv8.5), so a feature introduced in Armv8.x needs at
 * least the PMU version of Armv8.x. A feature of Armv8.6 or later needs
 * PMUv3p5, the latest pmu_version pmvp models. The EXT64 frames
 * (FEAT_PMUv3_EXT64, FEAT_AMU_EXT64) are such features too: they are in
 * later_layouts. pmvp_core_config_limit_to_version() turns off every one a
 * version does not have. */
static const struct later_feature {
    size_t field; /* offsetof the bool in pmvp_core_config */
    enum pmvp_pmu_version needs;
    const char *refusal;
} later_features[] = {
/* The way out, for code that set pmu_version after the defaults. */
#define LIMIT_HINT " (pmvp_core_config_limit_to_version() turns off every feature pmu_version lacks)"
#define LATER(field, version, why)                                             \
    {                                                                          \
        offsetof(pmvp_core_config, field), version, #field ": " why LIMIT_HINT \
    }
    LATER(feat_debugv8p2, PMVP_PMUV3P1, "FEAT_Debugv8p2 (Armv8.2) needs pmu_version PMUv3p1 or later"),
    LATER(feat_debugv8p4, PMVP_PMUV3P4, "FEAT_Debugv8p4 (Armv8.4) needs pmu_version PMUv3p4 or later"),
    LATER(feat_sel2, PMVP_PMUV3P4, "FEAT_SEL2 (Armv8.4) needs pmu_version PMUv3p4 or later"),
    LATER(feat_amuv1, PMVP_PMUV3P4, "FEAT_AMUv1 (Armv8.4) needs pmu_version PMUv3p4 or later"),
    LATER(feat_amuv1p1, PMVP_PMUV3P5, "FEAT_AMUv1p1 (Armv8.6) needs pmu_version PMUv3p5"),
    LATER(feat_mtpmu, PMVP_PMUV3P5, "FEAT_MTPMU (Armv8.6) needs pmu_version PMUv3p5"),
    LATER(feat_fgt, PMVP_PMUV3P5, "FEAT_FGT (Armv8.6) needs pmu_version PMUv3p5"),
    LATER(feat_fgt2, PMVP_PMUV3P5, "FEAT_FGT2 (Armv8.9) needs pmu_version PMUv3p5"),
    LATER(feat_pmuv3p7, PMVP_PMUV3P5, "FEAT_PMUv3p7 (Armv8.7) needs pmu_version PMUv3p5"),
    LATER(feat_hpmn0, PMVP_PMUV3P5, "FEAT_HPMN0 (Armv8.8) needs pmu_version PMUv3p5"),
    LATER(feat_rme, PMVP_PMUV3P5, "FEAT_RME (Armv9.2) needs pmu_version PMUv3p5"),
    LATER(feat_ebep, PMVP_PMUV3P5, "FEAT_EBEP (Armv8.9) needs pmu_version PMUv3p5"),
    LATER(feat_sebep, PMVP_PMUV3P5, "FEAT_SEBEP (Armv8.9) needs pmu_version PMUv3p5"),
    LATER(feat_pmuv3_icntr, PMVP_PMUV3P5, "FEAT_PMUv3_ICNTR (Armv8.9) needs pmu_version PMUv3p5"),
    LATER(feat_pmuv3p9, PMVP_PMUV3P5, "FEAT_PMUv3p9 (Armv8.9) needs pmu_version PMUv3p5"),
    LATER(feat_pmuv3_ss, PMVP_PMUV3P5, "FEAT_PMUv3_SS (Armv8.9) needs pmu_version PMUv3p5"),
    LATER(feat_pmuv3_extpmn, PMVP_PMUV3P5,
          "FEAT_PMUv3_EXTPMN needs pmu_version PMUv3p5 (its third range overflows at bit 63)"),
#undef LATER
};

static const struct later_layout {
    size_t field; /* offsetof the enum pmvp_ext_layout */
    const char *refusal;
} later_layouts[] = {
    { offsetof(pmvp_core_config, pmu_ext_layout),
      "pmu_ext_layout: EXT64 (FEAT_PMUv3_EXT64, Armv8.8) needs pmu_version PMUv3p5" LIMIT_HINT },
    { offsetof(pmvp_core_config, amu_ext_layout),
      "amu_ext_layout: EXT64 (FEAT_AMU_EXT64, Armv8.8) needs pmu_version PMUv3p5" LIMIT_HINT },
};

void pmvp_core_config_limit_to_version(pmvp_core_config *cfg)
{
    for (size_t i = 0; i < sizeof later_features / sizeof later_features[0]; i++)
        if (cfg->pmu_version < later_features[i].needs)
            *(bool *)((char *)cfg + later_features[i].field) = false;
    if (cfg->pmu_version < PMVP_PMUV3P5) {
        for (size_t i = 0; i < sizeof later_layouts / sizeof later_layouts[0]; i++)
            *(enum pmvp_ext_layout *)((char *)cfg + later_layouts[i].field) = PMVP_EXT32;
        /* FEAT_PMUv3_TH (Armv8.8), as PMMIR shows it */
        cfg->pmmir &= ~(PMVP_PMMIR_EL1_THWIDTH | PMVP_PMMIR_EL1_EDGE);
    }
}

static const char *check_versions(const pmvp_core_config *cfg)
{
    const char *base = (const char *)cfg;
    for (size_t i = 0; i < sizeof later_features / sizeof later_features[0]; i++)
        if (*(const bool *)(base + later_features[i].field) && cfg->pmu_version < later_features[i].needs)
            return later_features[i].refusal;
    for (size_t i = 0; i < sizeof later_layouts / sizeof later_layouts[0]; i++)
        if (*(const enum pmvp_ext_layout *)(base + later_layouts[i].field) == PMVP_EXT64 &&
            cfg->pmu_version < PMVP_PMUV3P5)
            return later_layouts[i].refusal;
    return NULL;
}

static const char *check_config(const pmvp_core_config *cfg)
{
    if (cfg->num_pes < 1 || cfg->num_pes > PMVP_MAX_PES)
        return "num_pes: from 1 to PMVP_MAX_PES (8) PEs per core";
    if (cfg->num_counters > PMVP_MAX_COUNTERS)
        return "num_counters: at most 31 event counters (PMCR_EL0.N, D13.1)";
    if (cfg->processor_hz > PMVP_MAX_CLOCK_HZ || cfg->bus_hz > PMVP_MAX_CLOCK_HZ ||
        cfg->system_counter_hz > PMVP_MAX_CLOCK_HZ)
        return "processor_hz, bus_hz, system_counter_hz: at most PMVP_MAX_CLOCK_HZ (1 THz)";
    switch (cfg->pmu_version) {
    case PMVP_PMUV3:
    case PMVP_PMUV3P1:
    case PMVP_PMUV3P4:
    case PMVP_PMUV3P5: break;
    default: return "pmu_version: PMUv3, PMUv3p1, PMUv3p4 or PMUv3p5";
    }
    if ((unsigned)cfg->mt_policy > PMVP_MT_SOEMT)
        return "mt_policy: SMT, FGMT or SoEMT";
    if ((unsigned)cfg->divider_mode > PMVP_DIVIDER_ALL_CYCLES)
        return "divider_mode: not one of enum pmvp_divider_mode";
    const char *later = check_versions(cfg);
    if (later)
        return later;
    /* Values no register would show are refused rather than ignored. */
    if ((cfg->pmcr_imp || cfg->pmcr_idcode) && cfg->feat_pmuv3p7)
        return "pmcr_imp, pmcr_idcode: with FEAT_PMUv3p7 PMCR.IMP and PMCR.IDCODE are RAZ (PMIIDR identifies the "
               "PMU: pmiidr)";
    if (cfg->pmcr_idcode && !cfg->pmcr_imp)
        return "pmcr_idcode: PMCR.IDCODE is RES0 while PMCR.IMP is 0 (set pmcr_imp)";
    if ((cfg->feat_sel2 || cfg->feat_rme) && !(cfg->have_el2 && cfg->have_el3))
        return "feat_sel2, feat_rme: Secure EL2 and the Realm Management Extension need have_el2 and have_el3";
    if ((cfg->el3_aarch32 && !cfg->have_el3) || (cfg->el2_aarch32 && !cfg->have_el2))
        return "el3_aarch32, el2_aarch32: an Exception level that is not implemented cannot use AArch32";
    if ((cfg->el3_aarch32 || cfg->el2_aarch32 || cfg->el1_aarch32) && !cfg->have_aarch32)
        return "el1_aarch32, el2_aarch32, el3_aarch32: AArch32 needs have_aarch32";
    if ((cfg->el3_aarch32 && cfg->have_el2 && !cfg->el2_aarch32) ||
        ((cfg->el3_aarch32 || cfg->el2_aarch32) && !cfg->el1_aarch32))
        return "el1_aarch32, el2_aarch32, el3_aarch32: an Exception level using AArch32 has only AArch32 levels "
               "below it";
    if ((unsigned)cfg->counter_access_unpredictable > PMVP_COUNTER_ACCESS_UNDEFINED)
        return "counter_access_unpredictable: not one of enum pmvp_counter_access";
    if (cfg->num_counters == 0 && cfg->have_el2 && !cfg->feat_hpmn0)
        return "num_counters: no event counters with EL2 needs FEAT_HPMN0 (feat_hpmn0, D13.1)";
    if (cfg->amu_num_aux > PMVP_AMU_MAX_AUX)
        return "amu_num_aux: at most 16 auxiliary counters (D16.1)";
    if (cfg->feat_amuv1p1 && !cfg->feat_amuv1)
        return "feat_amuv1p1: FEAT_AMUv1p1 needs feat_amuv1";
    if (cfg->amu_aux_offsets && !cfg->feat_amuv1p1)
        return "amu_aux_offsets: virtual offsets need FEAT_AMUv1p1 (feat_amuv1p1)";
    if (cfg->amu_aux_offsets >> cfg->amu_num_aux)
        return "amu_aux_offsets: an offset for an auxiliary counter that is not implemented (n >= amu_num_aux)";
    if ((unsigned)cfg->pmu_ext_layout > PMVP_EXT64 || (unsigned)cfg->amu_ext_layout > PMVP_EXT64)
        return "pmu_ext_layout, amu_ext_layout: EXT32 or EXT64";
    if (cfg->pmu_software_lock && (cfg->pmu_ext_layout != PMVP_EXT32 || cfg->feat_dopd))
        return "pmu_software_lock: the Software Lock exists only in the EXT32 view and not with FEAT_DoPD (I5.3.40)";
    if (cfg->extpmn_reserved && !cfg->feat_pmuv3_extpmn)
        return "extpmn_reserved: reserving counters for an external agent needs FEAT_PMUv3_EXTPMN (feat_pmuv3_extpmn)";
    if (cfg->extpmn_reserved > cfg->num_counters)
        return "extpmn_reserved: more counters than num_counters";
    if (cfg->ss_capture_in_debug && !cfg->feat_pmuv3_ss)
        return "ss_capture_in_debug: Capture events need FEAT_PMUv3_SS (feat_pmuv3_ss)";
    if (cfg->feat_pmuv3p9 && !cfg->feat_pmuv3p7)
        return "feat_pmuv3p9: FEAT_PMUv3p9 needs feat_pmuv3p7 (it implies FEAT_PMUv3p8 and FEAT_PMUv3p7)";
    if (cfg->pmu_ext_pmswinc && cfg->feat_pmuv3p9)
        return "pmu_ext_pmswinc: FEAT_PMUv3p9 does not permit the external PMSWINC (I5.2): PMZR_EL0 is at 0xCA0";
    if (cfg->pmu_ext_pmswinc && cfg->pmu_ext_layout != PMVP_EXT32)
        return "pmu_ext_pmswinc: PMSWINC is not in the EXT64 view (I3.1.2)";
    if (cfg->feat_fgt2 && !cfg->feat_fgt)
        return "feat_fgt2: FEAT_FGT2 needs feat_fgt";
    if (cfg->feat_sebep && !cfg->feat_ebep)
        return "feat_sebep: FEAT_SEBEP needs feat_ebep";
    /* PMMIR.THWIDTH and EDGE say which of FEAT_PMUv3_TH, EDGE and TH2 the
     * PMU has (D24.5.19): the configuration's value is the features. */
    unsigned thwidth = (unsigned)PMVP_FIELD_GET(PMVP_PMMIR_EL1_THWIDTH, cfg->pmmir);
    unsigned edge = (unsigned)PMVP_FIELD_GET(PMVP_PMMIR_EL1_EDGE, cfg->pmmir);
    if (thwidth > 12)
        return "pmmir: THWIDTH above 0b1100 is reserved (PMEVTYPER<n>_EL0.TH has at most 12 bits, D24.5.19)";
    if (edge > 2)
        return "pmmir: EDGE above 0b0010 is reserved (D24.5.19)";
    if (edge && !thwidth)
        return "pmmir: EDGE nonzero (FEAT_PMUv3_EDGE) needs FEAT_PMUv3_TH (THWIDTH nonzero)";
    if (thwidth && !cfg->feat_pmuv3p7)
        return "pmmir: THWIDTH nonzero (FEAT_PMUv3_TH, Armv8.8) needs feat_pmuv3p7";
    if (cfg->num_sebep_thresholds > PMVP_MAX_THRESHOLDS)
        return "num_sebep_thresholds: at most PMVP_MAX_THRESHOLDS (16)";
    if (cfg->num_sebep_thresholds && !cfg->sebep_thresholds)
        return "sebep_thresholds: NULL with num_sebep_thresholds above 0";
    const pmvp_inaccuracy *a = &cfg->inaccuracy;
    if ((unsigned)a->draw > PMVP_DRAW_BOUND)
        return "inaccuracy.draw: not one of enum pmvp_inaccuracy_draw";
    if (a->drop_ppm > PMVP_MAX_DROP_PPM)
        return "inaccuracy.drop_ppm: at most PMVP_MAX_DROP_PPM (10000, 1 %)";
    /* The shadow effect is a FEAT_SEBEP behaviour; asking for it without
     * the feature would be a knob that does nothing. */
    if ((a->shadow_events || a->shadow_time) && !cfg->feat_sebep)
        return "inaccuracy.shadow_events, shadow_time: the shadow effect is FEAT_SEBEP's (feat_sebep)";
    if (a->shadow_time && !a->shadow_events)
        return "inaccuracy.shadow_time: needs shadow_events";
    return NULL;
}

/* Writable bits of PMEVTYPER (with_event) or PMCCFILTR in this configuration. */
static uint64_t filter_mask(const pmvp_core_config *cfg, bool with_event)
{
    uint64_t m = PMVP_PMEVTYPER_EL0_P | PMVP_PMEVTYPER_EL0_U;
    if (cfg->have_el3)
        m |= PMVP_PMEVTYPER_EL0_NSK | PMVP_PMEVTYPER_EL0_NSU | PMVP_PMEVTYPER_EL0_M;
    if (cfg->have_el2)
        m |= PMVP_PMEVTYPER_EL0_NSH;
    if (cfg->feat_sel2)
        m |= PMVP_PMEVTYPER_EL0_SH;
    if (cfg->feat_rme)
        m |= PMVP_PMEVTYPER_EL0_RLK | PMVP_PMEVTYPER_EL0_RLU | PMVP_PMEVTYPER_EL0_RLH;
    if (with_event) {
        m |= cfg->pmu_version >= PMVP_PMUV3P1 ? PMVP_PMEVTYPER_EL0_evtCount : PMVP_PMEVTYPER_EL0_evtCount_9_0;
        if (cfg->feat_mtpmu)
            m |= PMVP_PMEVTYPER_EL0_MT;
        if (cfg->feat_sebep)
            m |= PMVP_PMEVTYPER_EL0_SYNC;
        /* D24.5.12: TC and TH[THWIDTH-1:0] with FEAT_PMUv3_TH, TE with
         * FEAT_PMUv3_EDGE, TLC with FEAT_PMUv3_TH2 (odd counters only:
         * k_evtyper_writable). */
        unsigned thwidth = (unsigned)PMVP_FIELD_GET(PMVP_PMMIR_EL1_THWIDTH, cfg->pmmir);
        unsigned edge = (unsigned)PMVP_FIELD_GET(PMVP_PMMIR_EL1_EDGE, cfg->pmmir);
        if (thwidth)
            m |= PMVP_PMEVTYPER_EL0_TC | PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_TH, (UINT64_C(1) << thwidth) - 1);
        if (edge >= 1)
            m |= PMVP_PMEVTYPER_EL0_TE;
        if (edge >= 2)
            m |= PMVP_PMEVTYPER_EL0_TLC;
    }
    return m;
}

static uint64_t pmcr_mask(const pmvp_core_config *cfg)
{
    uint64_t m = PMVP_PMCR_EL0_E;
    if (cfg->have_aarch32)
        m |= PMVP_PMCR_EL0_D | PMVP_PMCR_EL0_LC;
    if (cfg->have_el3 || (cfg->pmu_version >= PMVP_PMUV3P1 && cfg->have_el2) || cfg->feat_pmuv3p7)
        m |= PMVP_PMCR_EL0_DP;
    if (cfg->pmu_version >= PMVP_PMUV3P5)
        m |= PMVP_PMCR_EL0_LP;
    if (cfg->feat_pmuv3p7)
        m |= PMVP_PMCR_EL0_FZO; /* RES0 without FEAT_PMUv3p7 (I5.3.11 PMCFGR.FZO) */
    /* PMCR.X: no PMU event export bus is modelled, so X is RAZ/WI. */
    return m;
}

int pmvp_core_init(pmvp_core *c, const pmvp_core_config *cfg)
{
    return pmvp_core_init_why(c, cfg, NULL);
}

int pmvp_core_init_why(pmvp_core *c, const pmvp_core_config *cfg, const char **why)
{
    if (why)
        *why = NULL;
    if (!c || !cfg)
        return PMVP_ERR_NULL;
    const char *refused = check_config(cfg);
    if (refused) {
        if (why)
            *why = refused;
        return PMVP_ERR_CONFIG;
    }
    memset(c, 0, sizeof *c);
    c->cfg = *cfg;
    c->cfg.events = NULL; /* copied below; the caller's array need not live on */
    c->cfg.num_events = 0;
    c->cfg.sync_events = NULL;
    c->cfg.num_sync_events = 0;
    c->cfg.sebep_thresholds = NULL;
    for (unsigned i = 0; i < cfg->num_sebep_thresholds; i++)
        c->threshold[i] = cfg->sebep_thresholds[i];
    k_inaccuracy_init(c);
    refused = init_events(c, cfg);
    if (!refused)
        refused = init_sync_events(c, cfg);
    for (unsigned n = 0; !refused && cfg->feat_amuv1 && n < cfg->amu_num_aux; n++)
        if (!k_amu_can_count(c, cfg->amu_aux_event[n]))
            refused = "amu_aux_event: an event the AMU cannot count in this configuration (D16.3)";
    if (refused) {
        memset(c, 0, sizeof *c);
        if (why)
            *why = refused;
        return PMVP_ERR_CONFIG;
    }
    c->evtyper_mask = filter_mask(cfg, true);
    c->ccfiltr_mask = filter_mask(cfg, false);
    /* PMICFILTR: no MT, no threshold; SYNC with FEAT_SEBEP (D24.5.14) */
    c->icfiltr_mask =
        cfg->feat_pmuv3_icntr ? filter_mask(cfg, false) | (cfg->feat_sebep ? PMVP_PMEVTYPER_EL0_SYNC : 0) : 0;
    c->pmcr_mask = pmcr_mask(cfg);
    c->counter_mask = cfg->pmu_version >= PMVP_PMUV3P5 ? UINT64_MAX : UINT32_MAX;
    k_caches(c)->generation = 1; /* the zeroed routes are stale (the caches' flags are false) */
    _Static_assert(PMVP_MAX_LEVEL_EVENTS <= 64, "reportable_levels has a bit per level event");
    c->reportable_levels = 0;
    for (int level = 0; level < pmvp_event_level_count(); level++) {
        /* k_reportable_class of each level event (all are in the
         * catalogue): a supported event, or one the AMU counts
         * architecturally. */
        uint16_t number = k_level_events[level];
        if (k_bit(c->supported, pmvp_event_index(number)) || (cfg->feat_amuv1 && k_amu_architected_index(number) >= 0))
            c->reportable_levels |= UINT64_C(1) << level;
    }
    for (unsigned n = 0; n < PMVP_AMU_ARCH_COUNTERS; n++)
        c->amu_event0[n] = k_decode_event(c, k_amu_architected_event(n), true);
    pmvp_clock_init(&c->clock, cfg->processor_hz, 0);
    pmvp_clock_init(&c->bus_clock, cfg->bus_hz, 0);
    pmvp_clock_init(&c->system_counter, cfg->system_counter_hz, 0);
    k_ext_map(c);

    for (unsigned p = 0; p < cfg->num_pes; p++) {
        pmvp_pe *pe = &c->pe[p];
        pe->state = PMVP_PE_RUN;
        pe->ctx.el = 1;
        pe->ctx.security = PMVP_NONSECURE;
        pe->pmu.ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, cfg->num_counters);
        pe->pmu.ctl.noninvasive_debug = true;
        pmvp_pmu_reset(c, p, 0);
        pmvp_amu_reset(c, p, 0);
        /* PMCCR's Cold reset, EPMN = N, with the counters the IMPLEMENTATION
         * DEFINED mechanism reserves (HVGXL); the third range disabled. */
        if (cfg->feat_pmuv3_extpmn)
            pe->ext.pmccr = (uint32_t)PMVP_FIELD_PREP(PMVP_PMCCR_EPMN, cfg->num_counters - cfg->extpmn_reserved);
        k_ext_permissions(c, p);
    }
    return PMVP_OK;
}

int pmvp_core_drop_caches(pmvp_core *c)
{
    if (!c)
        return PMVP_ERR_NULL;
    k_routes_stale(c);
    for (unsigned p = 0; p < c->cfg.num_pes; p++)
        k_ext_permissions(c, p);
    return PMVP_OK;
}

int pmvp_core_sync(pmvp_core *c, pmvp_time now)
{
    return c ? k_begin(c, now) : PMVP_ERR_NULL;
}

enum core_clock { PROCESSOR_CLOCK, BUS_CLOCK, SYSTEM_COUNTER };

/* A clock of the core changes frequency at `now`: counts up to `now` follow
 * the old frequency. */
static int set_frequency(pmvp_core *c, enum core_clock which, uint64_t hz, pmvp_time now)
{
    if (hz > PMVP_MAX_CLOCK_HZ)
        return c ? PMVP_ERR_VALUE : PMVP_ERR_NULL;
    int err = c ? k_begin(c, now) : PMVP_ERR_NULL;
    if (err)
        return err;
    pmvp_clock *clk = which == PROCESSOR_CLOCK ? &c->clock : which == BUS_CLOCK ? &c->bus_clock : &c->system_counter;
    pmvp_clock_set_hz(clk, hz, now);
    return PMVP_OK;
}

int pmvp_core_set_clock(pmvp_core *c, uint64_t hz, pmvp_time now)
{
    return set_frequency(c, PROCESSOR_CLOCK, hz, now);
}

int pmvp_core_set_bus_clock(pmvp_core *c, uint64_t hz, pmvp_time now)
{
    return set_frequency(c, BUS_CLOCK, hz, now);
}

int pmvp_core_set_system_counter(pmvp_core *c, uint64_t hz, pmvp_time now)
{
    return set_frequency(c, SYSTEM_COUNTER, hz, now);
}

int pmvp_core_set_pe_state(pmvp_core *c, unsigned pe, enum pmvp_pe_state st, pmvp_time now)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    if ((unsigned)st > PMVP_PE_OFF)
        return PMVP_ERR_VALUE;
    if ((err = k_begin(c, now)))
        return err;
    const bool was_off = c->pe[pe].state == PMVP_PE_OFF;
    c->pe[pe].state = (uint8_t)st;
    if (was_off != (st == PMVP_PE_OFF))
        k_ext_permissions(c, pe);
    k_routes_stale(c);
    return PMVP_OK;
}

/* A context that this configuration can be in. */
static bool valid_context(const pmvp_core_config *cfg, const pmvp_context *x)
{
    if (x->el > 3 || x->security > PMVP_ROOT)
        return false;
    if ((x->el == 2 && !cfg->have_el2) || (x->el == 3 && !cfg->have_el3))
        return false;
    if (x->el == 3)
        return x->security == (cfg->feat_rme ? PMVP_ROOT : PMVP_SECURE) && !(x->aarch32 && !cfg->el3_aarch32);
    if (x->security == PMVP_ROOT || (x->security == PMVP_REALM && !cfg->feat_rme))
        return false;
    if (x->el == 2 && x->security == PMVP_SECURE && !cfg->feat_sel2)
        return false;
    return !x->aarch32 || cfg->have_aarch32;
}

int pmvp_core_set_context(pmvp_core *c, unsigned pe, const pmvp_context *ctx, pmvp_time now)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    if (!ctx)
        return PMVP_ERR_NULL;
    if (!valid_context(&c->cfg, ctx))
        return PMVP_ERR_VALUE;
    if ((err = k_begin(c, now)))
        return err;
    bool security_change = c->pe[pe].ctx.security != ctx->security;
    c->pe[pe].ctx = *ctx;
    k_routes_stale(c);
    if (security_change)
        k_boundary(c, pe, k_enabled_counters(c, &c->pe[pe]));
    return PMVP_OK;
}

int pmvp_core_set_active_thread(pmvp_core *c, unsigned pe, pmvp_time now)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    if (c->cfg.mt_policy != PMVP_MT_SOEMT)
        return PMVP_ERR_CONFIG;
    if ((err = k_begin(c, now)))
        return err;
    c->active_thread = pe;
    k_routes_stale(c); /* the threads' CPU_CYCLES rates follow it */
    return PMVP_OK;
}

int pmvp_core_set_controls(pmvp_core *c, unsigned pe, const pmvp_pmu_controls *ctl, pmvp_time now)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    if (!ctl)
        return PMVP_ERR_NULL;
    if ((err = k_begin(c, now)))
        return err;
    unsigned hpmn = (unsigned)PMVP_FIELD_GET(PMVP_MDCR_EL2_HPMN, ctl->mdcr_el2);
    if (c->cfg.have_el2 && hpmn > c->cfg.num_counters)
        k_log(c, pe, "MDCR_EL2.HPMN > PMCR.N is CONSTRAINED UNPREDICTABLE: treated as PMCR.N");
    if (c->cfg.have_el2 && hpmn == 0 && !c->cfg.feat_hpmn0)
        k_log(c, pe, "MDCR_EL2.HPMN == 0 without FEAT_HPMN0 is CONSTRAINED UNPREDICTABLE: used as 0");
    uint64_t enabled = k_enabled_counters(c, &c->pe[pe]);
    c->pe[pe].pmu.ctl = *ctl;
    k_ext_permissions(c, pe);
    k_routes_stale(c);
    k_freeze_update(c, pe); /* MDCR_EL2.HPMFZO and HPMN */
    k_boundary(c, pe, enabled ^ k_enabled_counters(c, &c->pe[pe]));
    k_reads_catch_up(c, pe);
    return PMVP_OK;
}

int pmvp_core_set_control(pmvp_core *c, unsigned pe, enum pmvp_control which, uint64_t value, pmvp_time now)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    pmvp_pmu_controls ctl = c->pe[pe].pmu.ctl;
    switch (which) {
    case PMVP_CTL_MDCR_EL2: ctl.mdcr_el2 = value; break;
    case PMVP_CTL_MDCR_EL3: ctl.mdcr_el3 = value; break;
    case PMVP_CTL_HCR_EL2: ctl.hcr_el2 = value; break;
    case PMVP_CTL_SCR_EL3: ctl.scr_el3 = value; break;
    case PMVP_CTL_SDER32_EL3: ctl.sder32_el3 = value; break;
    case PMVP_CTL_SECURE_NONINVASIVE_DEBUG: ctl.secure_noninvasive_debug = value != 0; break;
    case PMVP_CTL_NONINVASIVE_DEBUG: ctl.noninvasive_debug = value != 0; break;
    case PMVP_CTL_OS_LOCK: ctl.os_lock = value != 0; break;
    case PMVP_CTL_OS_DOUBLE_LOCK: ctl.os_double_lock = value != 0; break;
    default: return PMVP_ERR_VALUE;
    }
    return pmvp_core_set_controls(c, pe, &ctl, now);
}

int pmvp_core_controls(const pmvp_core *c, unsigned pe, pmvp_pmu_controls *ctl)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    if (!ctl)
        return PMVP_ERR_NULL;
    *ctl = c->pe[pe].pmu.ctl;
    return PMVP_OK;
}

int pmvp_core_context(const pmvp_core *c, unsigned pe, pmvp_context *ctx)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    if (!ctx)
        return PMVP_ERR_NULL;
    *ctx = c->pe[pe].ctx;
    return PMVP_OK;
}

/* Where the route of `event` reported by `pe` is cached: a multiplicative
 * hash that gives the 47 events an instruction-set simulator tells or
 * counts (the ISS's and the cycle, CHAIN and stall events) 47 slots of 64. */
static unsigned route_slot(unsigned pe, uint16_t event)
{
    return ((event * 1799u) >> 7 ^ pe * 5u) % K_ROUTES;
}

/* Whether its slot holds that route, of the current generation. */
static bool route_known(const pmvp_core *c, unsigned pe, uint16_t event)
{
    const k_route *r = &k_caches(c)->route[route_slot(pe, event)];
    return r->generation == k_caches(c)->generation && r->event == event && r->pe == pe;
}

/* The refusals of a report by PE `pe` of the core that its instant does not
 * decide; `known`: the event's route is cached (only a reportable event has
 * one). */
static int report_refusal(const pmvp_core *c, unsigned pe, uint16_t event, bool known)
{
    if (!known && k_reportable_class(c, event) != PMVP_EVCLASS_OCCURRENCE)
        return PMVP_ERR_EVENT;
    return c->pe[pe].state == PMVP_PE_OFF ? PMVP_ERR_PE_OFF : PMVP_OK;
}

int pmvp_core_report_refusal(const pmvp_core *c, unsigned pe, uint16_t event)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    return report_refusal(c, pe, event, route_known(c, pe, event));
}

/* AMU counters wrap at 64 bits and have no overflow flag (D16.2.1). */
static void add_occurrences(uint64_t *amu_counter, uint32_t which, uint64_t count)
{
    while (which)
        amu_counter[pmvp_take_lowest(&which)] += count;
}

/* The carries of count_on_route's adds. Out of line, as is the first
 * report of a route, so that a report's common case calls nothing: its
 * registers are its own and it pushes none. */
static PMVP_COLD int carry_on_route(pmvp_core *c, const k_route *r, uint64_t count)
{
    for (unsigned p = 0; p < c->cfg.num_pes; p++)
        k_counters_carried(c, p, r->pmu[p], count);
    /* A freeze that an overflow causes holds from the report's instant on,
     * after all its counters counted it (count.c, "freeze on overflow"):
     * the counters that count cycles, which the report did not bring to its
     * instant, get there unfrozen first. */
    bool freezes = false;
    for (unsigned p = 0; p < c->cfg.num_pes; p++)
        freezes |= r->pmu[p] && k_frozen(c, &c->pe[p]) != c->pe[p].frozen;
    if (freezes) {
        k_sync(c, c->last_call);
        for (unsigned p = 0; p < c->cfg.num_pes; p++)
            k_freeze_update(c, p);
    }
    return PMVP_OK;
}

/* count_on_route for a route with AMU counters or other PEs' event
 * counters. Out of line, so that the common case keeps few registers. */
static PMVP_OUT_OF_LINE int count_on_whole_route(pmvp_core *c, const k_route *r, unsigned pe, uint64_t count)
{
    add_occurrences(c->pe[pe].amu.cnt0, r->amu_arch, count);
    add_occurrences(c->pe[pe].amu.cnt1, r->amu_aux, count);
    bool carried = false;
    const uint32_t *which = r->pmu;
    for (pmvp_pe *to = c->pe, *end = c->pe + c->cfg.num_pes; to != end; to++, which++)
        carried |= k_counters_add(c, to, *which, count);
    return carried ? carry_on_route(c, r, count) : PMVP_OK;
}

/* Adds `count` occurrences reported by PE pe to the counters of route r. */
static inline int count_on_route(pmvp_core *c, const k_route *r, unsigned pe, uint64_t count)
{
    /* The common case first: the reporting PE's own event counters. */
    if (r->own_only)
        return k_counters_add(c, &c->pe[pe], r->pmu[pe], count) ? carry_on_route(c, r, count) : PMVP_OK;
    return count_on_whole_route(c, r, pe, count);
}

/* count_on_route for a core in which some counter's per-cycle value is
 * followed: each counter of the route through k_occurrence_add. */
static void count_with_thresholds(pmvp_core *c, const k_route *r, unsigned pe, uint64_t count)
{
    add_occurrences(c->pe[pe].amu.cnt0, r->amu_arch, count);
    add_occurrences(c->pe[pe].amu.cnt1, r->amu_aux, count);
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        for (uint32_t m = r->pmu[p] & ~(UINT32_C(1) << PMVP_ICNTR_SLOT); m;)
            k_occurrence_add(c, p, pmvp_take_lowest(&m), count);
        if (r->pmu[p] >> PMVP_ICNTR_SLOT & 1)
            k_counter_add(c, p, &c->pe[p], PMVP_ICNTR_SLOT, count);
        k_freeze_update(c, p); /* an overflow may freeze counters */
    }
}

/* Counts `count` occurrences of `event` on PE `pe`; *counting, if not NULL,
 * gets the event counters of `pe` that count it. `may_drop`: inaccuracy
 * knob (d) applies. */
static int count_occurrences(pmvp_core *c, unsigned pe, uint16_t event, uint64_t count, pmvp_time now, bool may_drop,
                             uint32_t *counting)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    k_route *r = &k_caches(c)->route[route_slot(pe, event)];
    bool known = route_known(c, pe, event);
    if ((err = report_refusal(c, pe, event, known)))
        return err;
    if (now < c->last_call)
        return PMVP_ERR_PAST;
    /* Occurrences change only counters that count them, and those do not
     * depend on cycles: no sync needed, unless the cycles before `now` may
     * have frozen some of them (k_freeze_timed), or a counter takes them
     * into the V_B of the cycle in progress at `now` (k_threshold_any). */
    bool threshold = !known && k_threshold_any(c);
    if (!known && (k_freeze_timed(c) || threshold))
        k_sync(c, now);
    if (!known)
        k_derive_route(c, r, pe, event);
    c->last_call = now;
    if (may_drop && c->cfg.inaccuracy.drop_ppm)
        count = k_after_drop(c, event, count);
    if (threshold)
        count_with_thresholds(c, r, pe, count);
    else
        count_on_route(c, r, pe, count);
    if (counting)
        *counting = r->pmu[pe];
    return PMVP_OK;
}

static PMVP_COLD int report_first_or_refused(pmvp_core *c, unsigned pe, uint16_t event, uint64_t count, pmvp_time now)
{
    return count_occurrences(c, pe, event, count, now, true, NULL);
}

int pmvp_core_snapshot_request(pmvp_core *c, unsigned pe, pmvp_time now)
{
    uint64_t pmsscr = 0;
    int err = pmvp_pmu_read(c, pe, PMVP_PMSSCR_EL1, 0, now, &pmsscr);
    return err ? err : pmvp_pmu_write(c, pe, PMVP_PMSSCR_EL1, 0, pmsscr | PMVP_PMSSCR_EL1_SS, now);
}

int pmvp_core_report(pmvp_core *c, unsigned pe, uint16_t event, uint64_t count, pmvp_time now)
{
    /* The common case without the refusals' calls: the route is known, so
     * the PE was not off when it was derived and its state has not changed
     * since (a change makes every route stale), and knob (d) drops nothing
     * (k_derive_route); time does not go back. */
    if (c && pe < c->cfg.num_pes && route_known(c, pe, event) && now >= c->last_call) {
        c->last_call = now;
        return count_on_route(c, &k_caches(c)->route[route_slot(pe, event)], pe, count);
    }
    return report_first_or_refused(c, pe, event, count, now);
}

/* The refusals of a report of `event` by PE `pe` (k_check_pe too). */
static int share_refusal(const pmvp_core *c, unsigned pe, uint16_t event)
{
    int err = k_check_pe(c, pe);
    return err ? err : report_refusal(c, pe, event, route_known(c, pe, event));
}

/* The refusals of batch b alone (pmvp_core_report_runs), and its cycles. */
static int batch_refusal(const pmvp_core *c, const pmvp_batch *b, uint64_t *total)
{
    if (b->pe < c->cfg.num_pes && !b->runs)
        return PMVP_ERR_NULL;
    int err = share_refusal(c, b->pe, b->event);
    if (err)
        return err;
    *total = 0;
    for (unsigned i = 0; i < b->num_runs; i++) {
        if (b->runs[i].cycles > UINT64_MAX - *total)
            return PMVP_ERR_VALUE;
        *total += b->runs[i].cycles;
    }
    return *total ? PMVP_OK : PMVP_ERR_VALUE;
}

/* Whether, on this core now, the cycle on which an occurrence falls within
 * a batch's window changes nothing that the call's instant or a later one
 * shows: no counter follows a cycle's value (threshold and edge counting,
 * th_any) and no overflow can freeze counters (freeze_armed), as the rate
 * caches know when valid (false when not). Then a batch is a report at the
 * window's end. */
static bool quiet_known(const pmvp_core *c)
{
    return k_caches(c)->rates_valid && !k_caches(c)->th_any && !k_caches(c)->freeze_armed;
}

/* quiet_known, filling the rate caches first. */
static bool quiet_window(pmvp_core *c)
{
    k_threshold_any(c);
    return quiet_known(c);
}

bool pmvp_core_cycle_values_matter(pmvp_core *c)
{
    return c && !quiet_window(c);
}

int pmvp_core_report_batches(pmvp_core *c, const pmvp_batch *batches, unsigned num_batches, pmvp_time now)
{
    if (!c || !batches)
        return PMVP_ERR_NULL;
    if (num_batches == 0 || num_batches > PMVP_MAX_BATCHES)
        return PMVP_ERR_VALUE;
    if (now < c->last_call)
        return PMVP_ERR_PAST;
    /* Batch i's window is processor cycles (end - total, end]: cycle k ends
     * with edge k. Its first cycle must end after the last input, so that
     * nothing but the batches changes in it. */
    uint64_t end = k_clock_cycles(&c->clock, now), last = k_clock_cycles(&c->clock, c->last_call);
    uint64_t next[PMVP_MAX_BATCHES]; /* the edge that opens batch i's next run */
    unsigned run[PMVP_MAX_BATCHES];  /* that run; num_runs: the window's end */
    for (unsigned i = 0; i < num_batches; i++) {
        uint64_t total;
        int err = batch_refusal(c, &batches[i], &total);
        if (!err && k_clock_stopped(c))
            err = PMVP_ERR_VALUE;
        if (!err && end - last < total)
            err = PMVP_ERR_PAST;
        if (err)
            return err; /* nothing changed yet */
        next[i] = end - total;
        run[i] = 0;
    }
    /* Taken: the routes of the batches' events, so that the next refusal
     * of each asks no catalogue. */
    for (unsigned i = 0; i < num_batches; i++)
        if (!route_known(c, batches[i].pe, batches[i].event))
            k_derive_route(c, &k_caches(c)->route[route_slot(batches[i].pe, batches[i].event)], batches[i].pe,
                           batches[i].event);
    /* A quiet window: each batch counts as a report at `now`, without the
     * walk's syncs. */
    if (quiet_window(c)) {
        uint64_t totals[PMVP_MAX_BATCHES];
        bool fits = true;
        for (unsigned i = 0; i < num_batches && fits; i++) {
            pmvp_u128 total = 0;
            for (unsigned r = 0; r < batches[i].num_runs && fits; r++) {
                total += (pmvp_u128)batches[i].runs[r].cycles * batches[i].runs[r].per_cycle;
                fits = total <= UINT64_MAX;
            }
            totals[i] = (uint64_t)total;
        }
        for (unsigned i = 0; i < num_batches && fits; i++)
            k_count_retired(c, batches[i].pe, batches[i].event, totals[i], now, NULL);
        if (fits)
            return PMVP_OK;
    }
    /* Each run is a level from the edge that opens its first cycle (an
     * input at an edge's instant comes after it), as a PER_CYCLE level
     * input is; the core is brought to each edge where a run starts or a
     * window ends with the runs before it in force. */
    for (unsigned i = 0; i < num_batches; i++) {
        k_caches(c)->spread[i].per_cycle = 0;
        k_caches(c)->spread[i].event = batches[i].event;
        k_caches(c)->spread[i].pe = (uint8_t)batches[i].pe;
    }
    k_caches(c)->num_spread = (uint8_t)num_batches;
    for (;;) {
        uint64_t edge = UINT64_MAX;
        for (unsigned i = 0; i < num_batches; i++)
            if (run[i] <= batches[i].num_runs && next[i] < edge)
                edge = next[i];
        if (edge == UINT64_MAX)
            break;
        /* An edge at or before the last input (a window's first may be) is
         * passed: the run starts there. */
        k_begin(c, edge > last ? pmvp_clock_edge_time(&c->clock, edge) : c->last_call);
        for (unsigned i = 0; i < num_batches; i++)
            for (const pmvp_batch *b = &batches[i]; run[i] <= b->num_runs && next[i] == edge; run[i]++) {
                bool in = run[i] < b->num_runs;
                k_caches(c)->spread[i].per_cycle = in ? b->runs[run[i]].per_cycle : 0;
                next[i] += in ? b->runs[run[i]].cycles : 0;
            }
        k_spread_changed(c);
    }
    k_caches(c)->num_spread = 0;
    c->last_call = now;
    return PMVP_OK;
}

int pmvp_core_report_runs(pmvp_core *c, unsigned pe, uint16_t event, const pmvp_run *runs, unsigned num_runs,
                          pmvp_time now)
{
    pmvp_batch b = { pe, event, runs, num_runs };
    return pmvp_core_report_batches(c, &b, 1, now);
}

int pmvp_even_runs(uint64_t count, uint64_t cycles, pmvp_run runs[2])
{
    if (!runs)
        return PMVP_ERR_NULL;
    if (cycles == 0 || count / cycles + (count % cycles != 0) > UINT32_MAX)
        return PMVP_ERR_VALUE;
    runs[0] = (pmvp_run){ count % cycles, (uint32_t)(count / cycles + 1) };
    runs[1] = (pmvp_run){ cycles - count % cycles, (uint32_t)(count / cycles) };
    return PMVP_OK;
}

int pmvp_core_report_spread(pmvp_core *c, unsigned pe, uint16_t event, uint64_t count, uint64_t cycles, pmvp_time now)
{
    if (!c)
        return PMVP_ERR_NULL;
    pmvp_run runs[2];
    int err = pmvp_even_runs(count, cycles, runs);
    return err ? err : pmvp_core_report_runs(c, pe, event, runs, 2, now);
}

int pmvp_core_cycles_between(const pmvp_core *c, pmvp_time since, pmvp_time now, uint64_t *cycles)
{
    if (!c || !cycles)
        return PMVP_ERR_NULL;
    if (since < c->last_call)
        return PMVP_ERR_PAST;
    if (now < since)
        return PMVP_ERR_VALUE;
    *cycles = k_clock_cycles(&c->clock, now) - k_clock_cycles(&c->clock, since);
    return PMVP_OK;
}

int pmvp_core_report_shares(pmvp_core *c, const pmvp_share *shares, unsigned num_shares, pmvp_time since, pmvp_time now)
{
    if (!c || !shares)
        return PMVP_ERR_NULL;
    if (num_shares == 0 || num_shares > PMVP_MAX_BATCHES)
        return PMVP_ERR_VALUE;
    if (now < c->last_call)
        return PMVP_ERR_PAST;
    if (since > now)
        return PMVP_ERR_VALUE;
    /* Refused whole or taken whole, as batches are; and by what refuses a
     * report alone, so that a caller can decide a share ahead of its
     * instant (pmvp_core_report_refusal). */
    for (unsigned i = 0; i < num_shares; i++) {
        int err = share_refusal(c, shares[i].pe, shares[i].event);
        if (err)
            return err;
    }
    /* Where the cycle of an occurrence matters to no counter, each share is
     * a report at `now`, at once; known without filling the rate caches
     * (quiet_known), which a refused call must leave as they were, and
     * taken only where the even split cannot refuse (no share above
     * UINT32_MAX). */
    bool quiet = quiet_known(c);
    for (unsigned i = 0; quiet && i < num_shares; i++)
        quiet = shares[i].count <= UINT32_MAX;
    /* The cycles before the last input were counted, by it, without the
     * shares: the window starts after it. A stopped processor clock (every
     * PE in WFI/WFE, or off, since that input) runs none. */
    uint64_t cycles = 0;
    if (!quiet && !k_clock_stopped(c))
        pmvp_core_cycles_between(c, since > c->last_call ? since : c->last_call, now, &cycles);
    pmvp_run runs[PMVP_MAX_BATCHES][2];
    pmvp_batch batches[PMVP_MAX_BATCHES];
    for (unsigned i = 0; cycles && i < num_shares; i++) {
        int err = pmvp_even_runs(shares[i].count, cycles, runs[i]);
        if (err)
            return err;
        batches[i] = (pmvp_batch){ shares[i].pe, shares[i].event, runs[i], 2 };
    }
    if (cycles)
        return pmvp_core_report_batches(c, batches, num_shares, now);
    for (unsigned i = 0; i < num_shares; i++)
        k_count_retired(c, shares[i].pe, shares[i].event, shares[i].count, now, NULL); /* knob (d) does not apply */
    return PMVP_OK;
}

int k_count_retired(pmvp_core *c, unsigned pe, uint16_t event, uint64_t count, pmvp_time now, uint32_t *counting)
{
    return count_occurrences(c, pe, event, count, now, false, counting);
}

/* The fewest increments that make one of the counters in pmu[] (by PE, a
 * route's masks) overflow where that requests an interrupt or freezes
 * counters, as a count of occurrences (PMVP_EVENTS_NEVER: none); only the
 * counters in candidates[] (k_interrupt_candidates, by PE) can. The counters
 * a report reaches do not depend on cycles: their values are current without
 * a sync, as in count_occurrences. */
static uint64_t fewest_to_interrupt(const pmvp_core *c, const uint32_t pmu[PMVP_MAX_PES],
                                    const uint32_t candidates[PMVP_MAX_PES])
{
    pmvp_u128 best = PMVP_U128_NEVER;
    for (unsigned p = 0; p < c->cfg.num_pes; p++)
        for (uint32_t m = pmu[p] & candidates[p]; m;) {
            pmvp_u128 k = k_increments_to_interrupt(c, p, pmvp_take_lowest(&m));
            best = k < best ? k : best;
        }
    return best >= PMVP_EVENTS_NEVER ? PMVP_EVENTS_NEVER : (uint64_t)best;
}

/* Whether a route's masks name any counter: most of an ISS's events reach
 * none, and are answered without the search. */
static inline bool reaches_counters(const pmvp_core *c, const uint32_t pmu[PMVP_MAX_PES])
{
    uint32_t any = 0;
    for (unsigned p = 0; p < c->cfg.num_pes; p++)
        any |= pmu[p];
    return any != 0;
}

/* Every PE's k_interrupt_candidates, for the queries of one instant. */
static void interrupt_candidates(const pmvp_core *c, uint32_t candidates[PMVP_MAX_PES])
{
    for (unsigned p = 0; p < c->cfg.num_pes; p++)
        candidates[p] = k_interrupt_candidates(c, p);
}

/* The route of a report of `event` by PE `pe`, derived where its slot does
 * not hold it (`known`: it does). */
static const k_route *route_of(pmvp_core *c, unsigned pe, uint16_t event, bool known)
{
    k_route *r = &k_caches(c)->route[route_slot(pe, event)];
    if (!known)
        k_derive_route(c, r, pe, event);
    return r;
}

/* The refusals of pmvp_core_events_to_interrupt_any. */
static int interrupt_query_refusal(const pmvp_core *c, uint16_t event, bool known, pmvp_time now, uint64_t *count)
{
    if (!count)
        return PMVP_ERR_NULL;
    if (!known && k_reportable_class(c, event) != PMVP_EVCLASS_OCCURRENCE)
        return PMVP_ERR_EVENT;
    return now < c->last_call ? PMVP_ERR_PAST : PMVP_OK;
}

/* The answer of pmvp_core_events_to_interrupt for `event` of PE pe, its
 * call's refusals checked: *count, or PMVP_ERR_EVENT. `off`: pe is off;
 * candidates[]: every PE's interrupt_candidates, `any` whether one has any
 * (no counter can interrupt: no search). */
static inline int answer_events_to_interrupt(pmvp_core *c, unsigned pe, bool off, uint16_t event,
                                             const uint32_t candidates[PMVP_MAX_PES], bool any, uint64_t *count)
{
    k_route *r = &k_caches(c)->route[route_slot(pe, event)]; /* route_known and route_of: the slot found once */
    if (r->generation != k_caches(c)->generation || r->event != event || r->pe != pe) {
        if (k_reportable_class(c, event) != PMVP_EVCLASS_OCCURRENCE)
            return PMVP_ERR_EVENT;
        /* A PE that is off reports nothing; and a route derived now would
         * let pmvp_core_report's fast path count for it. */
        if (!off)
            k_derive_route(c, r, pe, event);
    }
    *count =
        off || !any || !reaches_counters(c, r->pmu) ? PMVP_EVENTS_NEVER : fewest_to_interrupt(c, r->pmu, candidates);
    return PMVP_OK;
}

int pmvp_core_events_to_interrupt_each(pmvp_core *c, unsigned pe, const uint16_t *events, unsigned num, pmvp_time now,
                                       uint64_t *counts)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    if (!events || !counts)
        return PMVP_ERR_NULL;
    if (now < c->last_call)
        return PMVP_ERR_PAST;
    uint32_t candidates[PMVP_MAX_PES], any = 0;
    interrupt_candidates(c, candidates);
    for (unsigned p = 0; p < c->cfg.num_pes; p++)
        any |= candidates[p];
    const bool off = c->pe[pe].state == PMVP_PE_OFF;
    for (unsigned i = 0; i < num; i++)
        if ((err = answer_events_to_interrupt(c, pe, off, events[i], candidates, any != 0, &counts[i])))
            return err;
    return PMVP_OK;
}

int pmvp_core_events_to_interrupt(pmvp_core *c, unsigned pe, uint16_t event, pmvp_time now, uint64_t *count)
{
    return pmvp_core_events_to_interrupt_each(c, pe, &event, 1, now, count);
}

int pmvp_core_events_to_interrupt_any(pmvp_core *c, uint16_t event, pmvp_time now, uint64_t *count)
{
    if (!c)
        return PMVP_ERR_NULL;
    int err = interrupt_query_refusal(c, event, route_known(c, 0, event), now, count);
    if (err)
        return err;
    /* The least over the PEs is the least over the counters any of them
     * reaches: each counter is asked once. */
    uint32_t pmu[PMVP_MAX_PES] = { 0 };
    for (unsigned q = 0; q < c->cfg.num_pes; q++) {
        if (c->pe[q].state == PMVP_PE_OFF)
            continue;
        const k_route *r = route_of(c, q, event, route_known(c, q, event));
        for (unsigned p = 0; p < c->cfg.num_pes; p++)
            pmu[p] |= r->pmu[p];
    }
    uint32_t candidates[PMVP_MAX_PES];
    interrupt_candidates(c, candidates);
    *count = fewest_to_interrupt(c, pmu, candidates);
    return PMVP_OK;
}

/* The index of level event `event` in the level table, if the core reports
 * it; else -1. */
static int level_index(const pmvp_core *c, uint16_t event)
{
    int index = k_level_index(event);
    return index >= 0 && (c->reportable_levels >> index & 1) ? index : -1;
}

/* pmvp_core_set_level_refusal, for the calls of this file. */
static int level_refusal(const pmvp_core *c, unsigned pe, uint16_t event)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    return level_index(c, event) < 0 ? PMVP_ERR_EVENT : PMVP_OK;
}

int pmvp_core_set_level(pmvp_core *c, unsigned pe, uint16_t event, uint32_t level, pmvp_time now)
{
    int err = k_check_pe(c, pe);
    if (err)
        return err;
    int index = level_index(c, event);
    if (index < 0)
        return PMVP_ERR_EVENT;
    return k_set_level(c, pe, (unsigned)index, level, now);
}

int pmvp_core_set_levels(pmvp_core *c, const pmvp_level_change *levels, unsigned num_levels, pmvp_time now)
{
    if (!c || !levels)
        return PMVP_ERR_NULL;
    if (num_levels == 0)
        return PMVP_ERR_VALUE;
    /* Every refusal first, so that a refused call changes nothing: after
     * the first change, the others are at the present instant. Each
     * change's own refusal comes before the past, as pmvp_core_set_level
     * checks them, so the first change's refusal is the call's. */
    for (unsigned i = 0; i < num_levels; i++) {
        int err = level_refusal(c, levels[i].pe, levels[i].event);
        if (!err && now < c->last_call)
            err = PMVP_ERR_PAST;
        if (err)
            return err;
    }
    for (unsigned i = 0; i < num_levels; i++) /* (k_set_level refuses only the past) */
        (void)k_set_level(c, levels[i].pe, (unsigned)level_index(c, levels[i].event), levels[i].level, now);
    return PMVP_OK;
}

int pmvp_core_set_level_refusal(const pmvp_core *c, unsigned pe, uint16_t event)
{
    return level_refusal(c, pe, event);
}

const char *pmvp_core_event_why(const pmvp_core *c, uint16_t event, bool level)
{
    if (!c)
        return "core: NULL";
    if (!pmvp_event_find(event))
        return "event: no event of the catalogue has this number";
    int cls = k_reportable_class(c, event);
    if (cls < 0)
        return "event: this core does not implement it (its configuration's events and PMU version)";
    if (level)
        return level_index(c, event) >= 0  ? NULL
               : k_level_index(event) >= 0 ? "event: a level event this core has no use for"
                                           : "event: not a level (stall, condition or per-cycle) event: report it";
    switch (cls) {
    case PMVP_EVCLASS_OCCURRENCE: return NULL;
    case PMVP_EVCLASS_CPU_CYCLES:
    case PMVP_EVCLASS_BUS_CLOCK:
    case PMVP_EVCLASS_SYSTEM_COUNTER:
        return "event: it counts a clock's cycles, which the core's clocks give: nothing to report";
    case PMVP_EVCLASS_CONDITION:
    case PMVP_EVCLASS_STALL:
    case PMVP_EVCLASS_PER_CYCLE: return "event: a level event: set_level, not report";
    default: return "event: the PMU generates it itself (SW_INCR, CHAIN, an overflow): nothing to report";
    }
}

bool pmvp_core_input_may_interrupt(pmvp_core *c, uint16_t event, bool level)
{
    if (!c)
        return false;
    if (!level)
        return k_input_may_interrupt(c, event, -1);
    int index = level_index(c, event);
    return index >= 0 && k_input_may_interrupt(c, event, index);
}
