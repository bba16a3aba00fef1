// SPDX-License-Identifier: Apache-2.0
#include "reference_pmu.h"

#include <algorithm>

namespace pmvp::ref {

namespace {
constexpr uint64_t kPsPerSecond = 1000000000000ULL;
__extension__ typedef unsigned __int128 u128;

bool bit(uint64_t v, uint64_t mask)
{
    return (v & mask) != 0;
}
bool wfx(pmvp_pe_state s)
{
    return s == PMVP_PE_WFI || s == PMVP_PE_WFE;
}
}  // namespace

// Edge n after t0 is at the first instant t with phase0 + (t - t0)*hz >= n*10^12.
pmvp_time Clock::next_edge() const
{
    if (hz == 0)
        return PMVP_TIME_NEVER;
    u128 need = (u128)(since + 1) * kPsPerSecond - phase0;
    u128 dt = (need + hz - 1) / hz;
    u128 t = t0 + dt;
    return t >= PMVP_TIME_NEVER ? PMVP_TIME_NEVER : (pmvp_time)t;
}

void Clock::set_hz(uint64_t new_hz, pmvp_time now)
{
    if (hz != 0) {
        u128 acc = (u128)phase0 + (u128)(now - t0) * hz;
        phase0 = (uint64_t)(acc - (u128)since * kPsPerSecond);
    }
    t0 = now;
    since = 0;
    hz = new_hz;
}

Core::Core(const pmvp_core_config &cfg) : cfg_(cfg)
{
    if (cfg.events)
        events_.assign(cfg.events, cfg.events + cfg.num_events);
    cfg_.events = nullptr;
    proc_.hz = cfg.processor_hz;
    bus_.hz = cfg.bus_hz;
    syscnt_.hz = cfg.system_counter_hz;
    for (unsigned p = 0; p < cfg.num_pes; p++) {
        pe_[p].ctx.el = 1;
        pe_[p].ctx.security = PMVP_NONSECURE;
        pe_[p].ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, cfg.num_counters);
        // Cold reset: EPMN = N less the counters reserved before software runs.
        pe_[p].pmccr = cfg.feat_pmuv3_extpmn ? cfg.num_counters - cfg.extpmn_reserved : 0;
        for (unsigned n = 0; n < cfg.amu_num_aux; n++)
            pe_[p].amtype1[n] = cfg.amu_aux_event[n];
    }
}

namespace {
// The four architected AMU events, by counter (D16.3.1).
constexpr uint16_t kAmuArchitected[4] = { 0x0011, 0x4004, 0x0008, 0x4005 };
}  // namespace

bool Core::reportable(uint16_t ev) const
{
    return supported(ev) || (cfg_.feat_amuv1 && std::find(std::begin(kAmuArchitected), std::end(kAmuArchitected), ev) !=
                                                    std::end(kAmuArchitected));
}

// D16.3: cycle events count while the PE is running, not in WFI/WFE or
// off; nothing counts in Debug state with AMCR.HDBG; no filter applies.
uint64_t Core::amu_gain(unsigned p, uint16_t ev, pmvp_event_class edge) const
{
    const Pe &pe = pe_[p];
    if ((pe.ctx.halted && bit(pe.amcr, PMVP_AMCR_EL0_HDBG)) || !reportable(ev))
        return 0;
    // A spread's occurrences of this PE, as its reports count (whatever its state).
    if (edge == PMVP_EVCLASS_CPU_CYCLES && spread_of(p, ev))
        return spread_of(p, ev);
    if (pe.state != PMVP_PE_RUN)
        return 0;
    const pmvp_event_info *e = pmvp_event_find(ev);
    pmvp_event_class cls = e ? e->cls : PMVP_EVCLASS_OCCURRENCE;
    if (edge == PMVP_EVCLASS_CPU_CYCLES) {
        if (cls == PMVP_EVCLASS_CPU_CYCLES)
            return 1;
        if (cls == PMVP_EVCLASS_CONDITION || cls == PMVP_EVCLASS_STALL || cls == PMVP_EVCLASS_PER_CYCLE) {
            auto it = pe.level.find(ev);
            return it == pe.level.end() ? 0 : it->second;
        }
        return 0;
    }
    return cls == edge ? 1 : 0;
}

void Core::amu_edge(pmvp_event_class edge)
{
    if (!cfg_.feat_amuv1)
        return;
    for (unsigned p = 0; p < cfg_.num_pes; p++) {
        Pe &pe = pe_[p];
        for (unsigned n = 0; n < 4; n++)
            if (pe.amen0 >> n & 1)
                pe.am0[n] += amu_gain(p, kAmuArchitected[n], edge);
        for (unsigned n = 0; n < cfg_.amu_num_aux; n++)
            if (pe.amen1 >> n & 1)
                pe.am1[n] += amu_gain(p, pe.amtype1[n], edge);
    }
}

void Core::amu_write(unsigned p, pmvp_amu_reg reg, unsigned n, uint64_t v, pmvp_time now)
{
    input(now);
    Pe &pe = pe_[p];
    uint32_t aux = cfg_.amu_num_aux ? (1u << cfg_.amu_num_aux) - 1 : 0;
    switch (reg) {
    case PMVP_AMCR_EL0: pe.amcr = v & (PMVP_AMCR_EL0_HDBG | (cfg_.feat_amuv1p1 ? PMVP_AMCR_EL0_CG1RZ : 0)); break;
    case PMVP_AMCNTENSET0_EL0: pe.amen0 |= (uint32_t)v & 0xF; break;
    case PMVP_AMCNTENCLR0_EL0: pe.amen0 &= ~((uint32_t)v & 0xF); break;
    case PMVP_AMCNTENSET1_EL0: pe.amen1 |= (uint32_t)v & aux; break;
    case PMVP_AMCNTENCLR1_EL0: pe.amen1 &= ~((uint32_t)v & aux); break;
    case PMVP_AMEVCNTR0_EL0: pe.am0[n] = v; break;
    case PMVP_AMEVCNTR1_EL0: pe.am1[n] = v; break;
    case PMVP_AMEVTYPER1_EL0: pe.amtype1[n] = (uint16_t)v; break;
    default: break;
    }
}

uint64_t Core::amu_read(unsigned p, pmvp_amu_reg reg, unsigned n, pmvp_time now)
{
    input(now);
    const Pe &pe = pe_[p];
    switch (reg) {
    case PMVP_AMCR_EL0: return pe.amcr;
    case PMVP_AMCNTENSET0_EL0:
    case PMVP_AMCNTENCLR0_EL0: return pe.amen0;
    case PMVP_AMCNTENSET1_EL0:
    case PMVP_AMCNTENCLR1_EL0: return pe.amen1;
    case PMVP_AMEVCNTR0_EL0: return pe.am0[n];
    case PMVP_AMEVCNTR1_EL0: return pe.am1[n];
    case PMVP_AMEVTYPER1_EL0: return pe.amtype1[n];
    default: return 0;
    }
}

bool Core::supported(uint16_t ev) const
{
    const pmvp_event_info *e = pmvp_event_find(ev);
    if (cfg_.pmu_version < PMVP_PMUV3P1 && ev > 0x3FF)
        return false;
    if (events_.empty() && e)
        return e->cls != PMVP_EVCLASS_PMU_OVERFLOW;
    return std::find(events_.begin(), events_.end(), ev) != events_.end();
}

int Core::event_class(uint16_t ev) const
{
    if (!supported(ev))
        return -1;
    const pmvp_event_info *e = pmvp_event_find(ev);
    return e ? e->cls : PMVP_EVCLASS_OCCURRENCE;
}

uint32_t Core::counters_mask() const
{
    return (uint32_t)((1ULL << cfg_.num_counters) - 1);
}

// ---------------------------------------------------------------- rules

// PMCCR.EPMN, N without FEAT_PMUv3_EXTPMN (a reserved value above N: N).
unsigned Core::epmn(const Pe &pe) const
{
    if (!cfg_.feat_pmuv3_extpmn)
        return cfg_.num_counters;
    return std::min((unsigned)(pe.pmccr & PMVP_PMCCR_EPMN), cfg_.num_counters);
}

// MDCR_EL2.HPMN, at most EPMN (MFYQC).
unsigned Core::hpmn(const Pe &pe) const
{
    if (!cfg_.have_el2)
        return epmn(pe);
    unsigned h = (unsigned)(pe.ctl.mdcr_el2 & PMVP_MDCR_EL2_HPMN);
    return std::min(h, epmn(pe));
}

int Core::range(const Pe &pe, unsigned n) const
{
    if (n >= epmn(pe))
        return 3;
    return n >= hpmn(pe) ? 2 : 1;
}

bool Core::long_counter(const Pe &pe, unsigned n) const
{
    if (cfg_.pmu_version < PMVP_PMUV3P5)
        return false;
    switch (range(pe, n)) {
    case 1: return bit(pe.pmcr, PMVP_PMCR_EL0_LP);
    case 2: return bit(pe.ctl.mdcr_el2, PMVP_MDCR_EL2_HLP);
    default: return true;  // D13.3: the third range overflows at bit 63
    }
}

// D13.5.4, rule by rule.
bool Core::prohibited(const Pe &pe, bool second_range, const pmvp_context &x) const
{
    bool spme = bit(pe.ctl.mdcr_el3, PMVP_MDCR_EL3_SPME);
    bool mpmx = bit(pe.ctl.mdcr_el3, PMVP_MDCR_EL3_MPMX);
    bool suniden =
        x.el == 0 && (cfg_.el3_aarch32 || cfg_.el1_aarch32) && bit(pe.ctl.sder32_el3, PMVP_SDER32_EL3_SUNIDEN);
    if (cfg_.have_el3) {
        if (!cfg_.feat_pmuv3p7) {
            // RJRYNM / RJDWFF: Secure state, EL3 included.
            bool secure = x.security == PMVP_SECURE || x.el == 3;
            bool auth = !cfg_.feat_debugv8p2 && pe.ctl.secure_noninvasive_debug;
            if (secure && !(spme || suniden || auth))
                return true;
        } else if (cfg_.el3_aarch32) {
            // RGNGCW, EL3 using AArch32: SDCR.SPME.
            if (x.el == 3 && !spme)
                return true;
            if (x.el < 3 && x.security == PMVP_SECURE && !(spme || suniden))
                return true;
        } else {
            // RGNGCW, EL3 using AArch64.
            if (x.el == 3 && !((spme && !mpmx) || (spme && mpmx && second_range)))
                return true;
            if (x.el < 3 && x.security == PMVP_SECURE && !(spme || mpmx || suniden))
                return true;
        }
    }
    // RMMZLZ.
    if (cfg_.have_el2 && x.el == 2 && cfg_.pmu_version >= PMVP_PMUV3P1 && bit(pe.ctl.mdcr_el2, PMVP_MDCR_EL2_HPMD) &&
        !second_range)
        return true;
    return false;
}

// D24.5.12 field by field.
bool Core::filtered(uint64_t f, const pmvp_context &x) const
{
    bool P = bit(f, PMVP_PMEVTYPER_EL0_P), U = bit(f, PMVP_PMEVTYPER_EL0_U);
    if (x.el == 0) {
        if (x.security == PMVP_NONSECURE)
            return U != bit(f, PMVP_PMEVTYPER_EL0_NSU);
        if (x.security == PMVP_REALM)
            return U != bit(f, PMVP_PMEVTYPER_EL0_RLU);
        return U;
    }
    if (x.el == 1) {
        if (x.security == PMVP_NONSECURE)
            return P != bit(f, PMVP_PMEVTYPER_EL0_NSK);
        if (x.security == PMVP_REALM)
            return P != bit(f, PMVP_PMEVTYPER_EL0_RLK);
        return P;
    }
    if (x.el == 2) {
        bool NSH = bit(f, PMVP_PMEVTYPER_EL0_NSH);
        if (x.security == PMVP_NONSECURE)
            return !NSH;
        if (x.security == PMVP_REALM)
            return NSH == bit(f, PMVP_PMEVTYPER_EL0_RLH);
        return NSH == bit(f, PMVP_PMEVTYPER_EL0_SH);
    }
    return bit(f, PMVP_PMEVTYPER_EL0_M) != P;
}

// D13.5.2.1 (RMZPBW): whether freeze on overflow stops counter n (31:
// PMCCNTR, 32: PMICNTR) of pe, from the flags of the instant's start.
// PMOVSSET.F0 is a flag of the first range's freeze, and PMICNTR is frozen
// with the first range.
bool Core::frozen(const Pe &pe, unsigned n) const
{
    if (!cfg_.feat_pmuv3p7)
        return false;
    // The third range's flags freeze nothing and its counters are not frozen.
    auto flag_in = [&](int r) {
        for (unsigned m = 0; m < cfg_.num_counters; m++)
            if (range(pe, m) == r && (pe.ovs_at_instant >> m & 1))
                return true;
        return r == 1 && cfg_.feat_pmuv3_icntr && (pe.ovs_at_instant >> 32 & 1);
    };
    if (n == 31)
        return bit(pe.pmcr, PMVP_PMCR_EL0_DP) && bit(pe.pmcr, PMVP_PMCR_EL0_FZO) && flag_in(1);
    if (n == 32 || range(pe, n) == 1)
        return bit(pe.pmcr, PMVP_PMCR_EL0_FZO) && flag_in(1);
    if (range(pe, n) == 3)
        return false;
    return cfg_.have_el2 && bit(pe.ctl.mdcr_el2, PMVP_MDCR_EL2_HPMFZO) && flag_in(2);
}

void Core::instant_over()
{
    for (unsigned p = 0; p < cfg_.num_pes; p++)
        pe_[p].ovs_at_instant = pe_[p].ovs;
}

bool Core::counter_counts(unsigned p, unsigned n, const pmvp_context &src) const
{
    const Pe &pe = pe_[p];
    if (pe.state == PMVP_PE_OFF || !(pe.cnten >> n & 1) || src.halted || frozen(pe, n))
        return false;
    switch (range(pe, n)) {
    case 1: return bit(pe.pmcr, PMVP_PMCR_EL0_E) && !prohibited(pe, false, src) && !filtered(pe.c[n].evtyper, src);
    case 2:
        return bit(pe.ctl.mdcr_el2, PMVP_MDCR_EL2_HPME) && !prohibited(pe, true, src) &&
               !filtered(pe.c[n].evtyper, src);
    default:  // PMCCR.EPME; SPME, MPMX and HPMD do not prohibit the third range (D13.5.4)
        return bit(pe.pmccr, PMVP_PMCCR_EPME) && !filtered(pe.c[n].evtyper, src);
    }
}

// D13.5.1.3, RCSRMB, D24.5.14: PMCR.E and F0, the first range's
// prohibition, PMICFILTR_EL0; the PE's own instructions only.
bool Core::instruction_counter_counts(unsigned p, const pmvp_context &src) const
{
    const Pe &pe = pe_[p];
    if (!cfg_.feat_pmuv3_icntr || pe.state == PMVP_PE_OFF || !(pe.cnten >> 32 & 1) || !bit(pe.pmcr, PMVP_PMCR_EL0_E))
        return false;
    return !src.halted && !frozen(pe, 32) && !prohibited(pe, false, src) && !filtered(pe.pmicfiltr, src);
}

bool Core::mt(unsigned p, unsigned n) const
{
    auto enabled = [&](const Pe &pe) {
        if (cfg_.have_el3)
            return bit(pe.ctl.mdcr_el3, PMVP_MDCR_EL3_MTPME);
        if (cfg_.have_el2)
            return bit(pe.ctl.mdcr_el2, PMVP_MDCR_EL2_MTPME);
        return true;
    };
    if (!bit(pe_[p].c[n].evtyper, PMVP_PMEVTYPER_EL0_MT))
        return false;
    if (!cfg_.mtpmu_disable_core_wide)
        return enabled(pe_[p]);
    for (unsigned q = 0; q < cfg_.num_pes; q++)
        if (!enabled(pe_[q]))
            return false;
    return true;
}

// D14.4.1: is PE p active on the current processor cycle k_ (1-based)?
bool Core::active(unsigned p) const
{
    const Pe &pe = pe_[p];
    if (pe.state == PMVP_PE_OFF)
        return false;
    if (wfx(pe.state) && !cfg_.wfx_thread_active)
        return false;
    switch (cfg_.mt_policy) {
    case PMVP_MT_FGMT: return (k_ - 1) % cfg_.num_pes == p;
    case PMVP_MT_SOEMT: return p == active_thread_;
    default: return true;
    }
}

bool Core::clock_stopped() const
{
    unsigned off = 0, idle = 0;
    for (unsigned q = 0; q < cfg_.num_pes; q++) {
        off += pe_[q].state == PMVP_PE_OFF;
        idle += pe_[q].state != PMVP_PE_RUN;
    }
    return off == cfg_.num_pes || (cfg_.clock_stops_in_wfx && idle == cfg_.num_pes);
}

// How much counter n of PE p increments on the current processor cycle.
uint64_t Core::weight_this_cycle(unsigned p, unsigned n) const
{
    const Pe &pe = pe_[p];
    uint16_t ev = (uint16_t)(pe.c[n].evtyper & PMVP_PMEVTYPER_EL0_evtCount);
    int cls = event_class(ev);
    auto lvl = [&](const Pe &q, uint16_t e) {
        auto it = q.level.find(e);
        return it == q.level.end() ? 0u : it->second;
    };
    bool is_mt = mt(p, n);
    if (cls == PMVP_EVCLASS_CPU_CYCLES || cls == PMVP_EVCLASS_CONDITION || cls == PMVP_EVCLASS_STALL) {
        if (!is_mt) {
            bool cpu_cycle = active(p) && (!wfx(pe.state) || cfg_.cpu_cycles_in_wfx);
            bool cond = cls == PMVP_EVCLASS_CPU_CYCLES || lvl(pe, ev) != 0;
            return cpu_cycle && cond && counter_counts(p, n, pe.ctx);
        }
        // MT == 1: over the PEs not in WFI/WFE (and not off).
        std::vector<unsigned> running;
        for (unsigned q = 0; q < cfg_.num_pes; q++)
            if (pe_[q].state == PMVP_PE_RUN)
                running.push_back(q);
        if (cls == PMVP_EVCLASS_STALL) {
            uint16_t stall = pmvp_event_find(ev)->stall;
            for (unsigned q : running)
                if (!lvl(pe_[q], stall))
                    return 0;
        }
        for (unsigned q : running) {
            bool cond = cls == PMVP_EVCLASS_CPU_CYCLES || lvl(pe_[q], ev) != 0;
            if (cond && counter_counts(p, n, pe_[q].ctx))
                return 1;
        }
        return 0;
    }
    if (cls == PMVP_EVCLASS_PER_CYCLE) {
        uint64_t w = 0;
        for (unsigned q = 0; q < cfg_.num_pes; q++)
            if ((q == p || is_mt) && pe_[q].state != PMVP_PE_OFF && counter_counts(p, n, pe_[q].ctx))
                w += lvl(pe_[q], ev);
        return w;
    }
    // The occurrences batches put on this cycle, counted as reports of
    // them in it would be: with MT == 1, every PE's that the counter counts.
    uint64_t w = 0;
    for (unsigned q = 0; cls == PMVP_EVCLASS_OCCURRENCE && q < cfg_.num_pes; q++)
        if ((q == p || is_mt) && counter_counts(p, n, pe_[q].ctx))
            w += spread_of(q, ev);
    return w;
}

bool Core::cycle_counter_counts_this_cycle(unsigned p) const
{
    const Pe &pe = pe_[p];
    const pmvp_context &x = pe.ctx;
    if (pe.state == PMVP_PE_OFF || (wfx(pe.state) && !cfg_.pmccntr_counts_in_wfx))
        return false;
    if (!bit(pe.pmcr, PMVP_PMCR_EL0_E) || !(pe.cnten >> 31 & 1) || x.halted)
        return false;
    if (bit(pe.pmcr, PMVP_PMCR_EL0_DP) && prohibited(pe, false, x))
        return false;
    if (frozen(pe, 31))
        return false;
    bool secure = x.security == PMVP_SECURE || (x.el == 3 && !cfg_.feat_rme);
    if (cfg_.pmu_version >= PMVP_PMUV3P5 && cfg_.have_el3 && secure && bit(pe.ctl.mdcr_el3, PMVP_MDCR_EL3_SCCD))
        return false;
    if (cfg_.pmu_version >= PMVP_PMUV3P5 && cfg_.have_el2 && x.el == 2 && bit(pe.ctl.mdcr_el2, PMVP_MDCR_EL2_HCCD))
        return false;
    if (cfg_.feat_pmuv3p7 && x.el == 3 && !cfg_.el3_aarch32 &&
        (bit(pe.ctl.mdcr_el3, PMVP_MDCR_EL3_SCCD) || bit(pe.ctl.mdcr_el3, PMVP_MDCR_EL3_MCCD)))
        return false;
    return !filtered(pe.pmccfiltr, x);
}

// --------------------------------------------------------------- counting

void Core::flag(unsigned p, uint64_t b, pmvp_time t, bool from_edge)
{
    if (from_edge && !(pe_[p].ovs & b)) {
        rises_.push_back(t);
        if (pe_[p].inten & b)
            interrupting_rises_.push_back(t);
    }
    pe_[p].ovs |= b;
}

void Core::add(unsigned p, unsigned n, uint64_t inc, pmvp_time t, bool from_edge)
{
    // One increment at a time, as the counter would see them.
    Pe &pe = pe_[p];
    uint64_t mask = cfg_.pmu_version >= PMVP_PMUV3P5 ? ~0ULL : 0xFFFFFFFFULL;
    for (uint64_t i = 0; i < inc; i++) {
        uint64_t old = pe.c[n].value;
        uint64_t next = (old + 1) & mask;
        pe.c[n].value = next;
        bool wrap32 = (old & 0xFFFFFFFF) == 0xFFFFFFFF;
        bool overflow = long_counter(pe, n) ? old == ~0ULL : wrap32;
        if (overflow)
            flag(p, 1ull << n, t, from_edge);
        // CHAIN on the odd counter above.
        if (wrap32 && n % 2 == 0 && n + 1 < cfg_.num_counters && !long_counter(pe, n) &&
            (pe.c[n + 1].evtyper & PMVP_PMEVTYPER_EL0_evtCount) == PMVP_EV_CHAIN && supported(PMVP_EV_CHAIN) &&
            counter_counts(p, n + 1, pe.ctx))
            add(p, n + 1, 1, t, from_edge);
    }
}

// D13.8, D24.5.12 (TC, TE, TLC, TH): the Effective values. TH is as wide as
// written (its writable bits are PMMIR.THWIDTH's), TLC is kept 0 in even
// counters. A reserved combination (RMRPVL) is read as TE and TLC 0, and the
// threshold function does not apply to the events of another clock or to
// CHAIN: pmvp's choices (docs/SEMANTICS.md).
Core::Threshold Core::threshold(unsigned p, unsigned n) const
{
    uint64_t v = pe_[p].c[n].evtyper;
    Threshold t;
    t.tc = (unsigned)(v >> 61);
    t.te = v >> 60 & 1;
    t.tlc = (unsigned)(v >> 54 & 3);
    t.th = v >> 32 & 0xFFF;
    if (t.tlc == 3 || (t.tc % 2 == 1 && !t.te && t.tlc == 2) || (t.te && t.tlc == 1) || (t.te && t.tc % 4 == 0)) {
        t.te = false;
        t.tlc = 0;
    }
    uint16_t ev = (uint16_t)(v & PMVP_PMEVTYPER_EL0_evtCount);
    int cls = event_class(ev);
    // D24.5.12: of an event the PMU does not support no events are counted.
    t.on = (t.tc || t.th || t.tlc) && cls >= 0 && cls != PMVP_EVCLASS_BUS_CLOCK && cls != PMVP_EVCLASS_SYSTEM_COUNTER &&
           ev != PMVP_EV_CHAIN;
    // STALL_SLOT with MT == 1 (D14.3) is followed cycle by cycle too.
    t.slots = ev == PMVP_EV_STALL_SLOT && cls >= 0 && mt(p, n) ? (cfg_.pmmir & 0xFF) : 0;
    t.on = t.on || t.slots;
    return t;
}

// D14.3, STALL_SLOT with MT == 1: the Slots no PE occupies on this cycle,
// from the sum `v` of the STALL_SLOT the PEs it counts put on it, each
// active PE occupying SLOTS less its own; one PE at most issues a cycle
// under FGMT or SoEMT (pmvp's reading, README).
uint64_t Core::unoccupied_slots(unsigned p, unsigned n, uint64_t slots, uint64_t v) const
{
    unsigned active = 0;
    for (unsigned q = 0; q < cfg_.num_pes; q++)
        if (pe_[q].state == PMVP_PE_RUN && counter_counts(p, n, pe_[q].ctx))
            active++;
    if (cfg_.mt_policy != PMVP_MT_SMT)
        active = std::min(active, 1u);
    int64_t left = (int64_t)v + (int64_t)slots - (int64_t)active * (int64_t)slots;
    return left > 0 ? (uint64_t)left : 0;
}

bool Core::tracked(unsigned p, unsigned n) const
{
    if (threshold(p, n).on)
        return true;
    if (n % 2 == 1 || n + 1 >= cfg_.num_counters)
        return false;
    Threshold up = threshold(p, n + 1);
    return up.on && up.tlc != 0;
}

bool Core::allowed(unsigned p, unsigned n) const
{
    if (!mt(p, n))
        return counter_counts(p, n, pe_[p].ctx);
    for (unsigned q = 0; q < cfg_.num_pes; q++)
        if (pe_[q].state != PMVP_PE_OFF && counter_counts(p, n, pe_[q].ctx))
            return true;
    return false;
}

void Core::occur(unsigned p, unsigned n, uint64_t count, pmvp_time t)
{
    if (tracked(p, n))
        pe_[p].c[n].pending += count;
    if (!threshold(p, n).on)
        add(p, n, count, t, false);
}

void Core::afresh(unsigned p, unsigned n)
{
    pe_[p].c[n].cp = false;
    pe_[p].c[n].pending = 0;
    if (n % 2 == 1)
        pe_[p].c[n - 1].pending = 0;
}

void Core::add_cycle_counter(unsigned p, uint64_t inc, pmvp_time t)
{
    Pe &pe = pe_[p];
    for (uint64_t i = 0; i < inc; i++) {
        uint64_t old = pe.pmccntr++;
        bool overflow = bit(pe.pmcr, PMVP_PMCR_EL0_LC) ? old == ~0ULL : (old & 0xFFFFFFFF) == 0xFFFFFFFF;
        if (overflow)
            flag(p, 1ull << 31, t, true);
    }
}

void Core::processor_edge(pmvp_time t)
{
    if (clock_stopped())
        return;
    k_++;
    // Decide every counter's increment on this cycle first, then apply them,
    // so that all counters see the same state.
    uint64_t w[PMVP_MAX_PES][PMVP_MAX_COUNTERS] = {};
    bool cc[PMVP_MAX_PES] = {};
    for (unsigned p = 0; p < cfg_.num_pes; p++) {
        cc[p] = cycle_counter_counts_this_cycle(p);
        for (unsigned n = 0; n < cfg_.num_counters; n++)
            w[p][n] = weight_this_cycle(p, n);
    }
    for (unsigned p = 0; p < cfg_.num_pes; p++) {
        Pe &pe = pe_[p];
        bool div = cfg_.have_aarch32 && !bit(pe.pmcr, PMVP_PMCR_EL0_LC) && bit(pe.pmcr, PMVP_PMCR_EL0_D);
        if (!div) {
            if (cc[p])
                add_cycle_counter(p, 1, t);
        } else if (cc[p] || cfg_.divider_mode == PMVP_DIVIDER_ALL_CYCLES) {
            // Every 64th (counted, or any) cycle.
            if (++pe.divider == 64) {
                pe.divider = 0;
                if (cc[p])
                    add_cycle_counter(p, 1, t);
            }
        }
        // D13.8 cycle by cycle, in counter order: V[n-1] first. A counter
        // without the threshold function counts V_B; its V for a counter
        // linked to it is V_B with the occurrences of the cycle.
        uint64_t v[PMVP_MAX_COUNTERS] = {};
        for (unsigned n = 0; n < cfg_.num_counters; n++) {
            Counter &k = pe.c[n];
            Threshold th = threshold(p, n);
            bool ok = allowed(p, n);
            uint64_t vb = w[p][n] + k.pending;
            k.pending = 0;
            if (th.slots)
                vb = unoccupied_slots(p, n, th.slots, vb);
            if (!th.on) {
                v[n] = ok ? vb : 0;
                if (w[p][n])
                    add(p, n, w[p][n], t, true);
                continue;
            }
            if (!ok) {
                k.cp = false;
                continue;
            }
            bool ct;
            switch (th.tc >> 1) {
            case 0: ct = vb != th.th; break;
            case 1: ct = vb == th.th; break;
            case 2: ct = vb >= th.th; break;
            default: ct = vb < th.th; break;
            }
            uint64_t link = n % 2 == 1 ? v[n - 1] : 0;
            if (th.te) {
                bool ce = th.tc % 2 ? ct && !k.cp : ct != k.cp;  // RNXPYM
                v[n] = ce ? (th.tlc == 2 ? link : 1) : 0;        // Tables D13-6, D13-8
            } else if (th.tlc == 2) {
                v[n] = ct ? link : 0;  // Table D13-5 (E)
            } else if (ct) {
                v[n] = th.tc % 2 ? 1 : vb;  // (A), (B), (C), (D)
            } else {
                v[n] = th.tlc == 1 ? link : 0;
            }
            k.cp = ct;
            if (v[n])
                add(p, n, v[n], t, true);
        }
        // The instruction counter counts the batches' instructions of its PE.
        uint64_t instructions = spread_of(p, PMVP_EV_INST_RETIRED);
        if (instructions && instruction_counter_counts(p, pe.ctx))
            for (uint64_t i = 0; i < instructions; i++)
                if (++pe.pmicntr == 0)
                    flag(p, 1ull << 32, t, true);
    }
    amu_edge(PMVP_EVCLASS_CPU_CYCLES);
}

void Core::clock_edge(pmvp_event_class cls, pmvp_time t)
{
    amu_edge(cls);
    for (unsigned p = 0; p < cfg_.num_pes; p++)
        for (unsigned n = 0; n < cfg_.num_counters; n++) {
            uint16_t ev = (uint16_t)(pe_[p].c[n].evtyper & PMVP_PMEVTYPER_EL0_evtCount);
            if (event_class(ev) == (int)cls && counter_counts(p, n, pe_[p].ctx))
                add(p, n, 1, t, true);
        }
}

void Core::advance(pmvp_time now)
{
    // Kept, so that a batch spread over cycles walked since can walk them again.
    if (!at_input_ && now > now_)
        at_input_ = std::make_shared<const Core>(*this);
    walk(now);
}

void Core::input(pmvp_time now)
{
    walk(now);
    at_input_.reset();
}

void Core::walk(pmvp_time now)
{
    for (;;) {
        pmvp_time tp = proc_.next_edge(), tb = bus_.next_edge(), ts = syscnt_.next_edge();
        pmvp_time t = std::min({ tp, tb, ts });
        if (t > now || t == PMVP_TIME_NEVER)
            break;
        instant_over();
        if (tp == t) {
            proc_.since++;
            processor_edge(t);
        }
        if (tb == t) {
            bus_.since++;
            clock_edge(PMVP_EVCLASS_BUS_CLOCK, t);
        }
        if (ts == t) {
            syscnt_.since++;
            clock_edge(PMVP_EVCLASS_SYSTEM_COUNTER, t);
        }
    }
    instant_over();
    now_ = now;
}

pmvp_time Core::first_rise_since(pmvp_time from, bool interrupting) const
{
    for (pmvp_time t : interrupting ? interrupting_rises_ : rises_)
        if (t >= from)
            return t;
    return PMVP_TIME_NEVER;
}

bool Core::any_frozen() const
{
    for (unsigned p = 0; p < cfg_.num_pes; p++)
        for (unsigned n = 0; n < cfg_.num_counters; n++)
            if (frozen(pe_[p], n))
                return true;
    return false;
}

// ----------------------------------------------------------------- inputs

void Core::set_clock(uint64_t hz, pmvp_time now)
{
    input(now);
    proc_.set_hz(hz, now);
}
void Core::set_bus_clock(uint64_t hz, pmvp_time now)
{
    input(now);
    bus_.set_hz(hz, now);
}
void Core::set_pe_state(unsigned pe, pmvp_pe_state st, pmvp_time now)
{
    input(now);
    pe_[pe].state = st;
}
void Core::set_context(unsigned pe, const pmvp_context &ctx, pmvp_time now)
{
    input(now);
    pe_[pe].ctx = ctx;
}
void Core::set_active_thread(unsigned pe, pmvp_time now)
{
    input(now);
    active_thread_ = pe;
}
void Core::set_controls(unsigned pe, const pmvp_pmu_controls &ctl, pmvp_time now)
{
    input(now);
    pe_[pe].ctl = ctl;
}

void Core::set_pmccr(unsigned pe, uint64_t value, pmvp_time now)
{
    input(now);
    pe_[pe].pmccr = value & (PMVP_PMCCR_OSLO | PMVP_PMCCR_EPME | PMVP_PMCCR_EPMN);
}

void Core::set_level(unsigned pe, uint16_t event, uint32_t level, pmvp_time now)
{
    input(now);
    pe_[pe].level[event] = level;
}

void Core::count_occurrences(unsigned pe, uint16_t event, uint64_t count, pmvp_time now)
{
    for (unsigned p = 0; p < cfg_.num_pes; p++)
        for (unsigned n = 0; n < cfg_.num_counters; n++) {
            if ((pe_[p].c[n].evtyper & PMVP_PMEVTYPER_EL0_evtCount) != event)
                continue;
            if ((p == pe || mt(p, n)) && counter_counts(p, n, pe_[pe].ctx))
                occur(p, n, count, now);
        }
}

// D13.9, Table D13-10 row by row: MDCR_EL3.PMSSE (with EL3), MDCR_EL2.PMSSE
// (with EL2), PMECR_EL1.SSE, each 0b01 passing the choice down.
void Core::capture(unsigned p, pmvp_time now)
{
    Pe &pe = pe_[p];
    unsigned el3 = cfg_.have_el3 ? (unsigned)PMVP_FIELD_GET(PMVP_MDCR_EL3_PMSSE, pe.ctl.mdcr_el3) : 1;
    unsigned el2 = cfg_.have_el2 ? (unsigned)PMVP_FIELD_GET(PMVP_MDCR_EL2_PMSSE, pe.ctl.mdcr_el2) : 1;
    unsigned sse = (unsigned)PMVP_FIELD_GET(PMVP_PMECR_EL1_SSE, pe.pmecr);
    bool disabled = el3 == 0 || (el3 == 1 && el2 == 0) || (el3 == 1 && el2 == 1 && sse == 0);
    bool allowed = el3 == 3 || (el3 == 1 && el2 == 3) || (el3 == 1 && el2 == 1 && sse == 3);
    if (pe.state == PMVP_PE_OFF || disabled)
        return;
    if (!allowed || pe.ctl.os_lock || (pe.ctx.halted && !cfg_.ss_capture_in_debug)) {
        pe.pmsscr = PMVP_PMSSCR_EL1_NC;
        return;
    }
    for (unsigned n = 0; n < cfg_.num_counters; n++)
        pe.evsvr[n] = pe.c[n].value;
    pe.ccsvr = pe.pmccntr;
    pe.icsvr = pe.pmicntr;
    pe.pmsscr = 0;
    if (!pe.ctx.halted && supported(PMVP_EV_PMU_SNAPSHOT))
        count_occurrences(p, PMVP_EV_PMU_SNAPSHOT, 1, now);
}

void Core::report(unsigned pe, uint16_t event, uint64_t count, pmvp_time now)
{
    input(now);
    count_occurrences(pe, event, count, now);
    Pe &src = pe_[pe];
    if (event == PMVP_EV_INST_RETIRED && instruction_counter_counts(pe, src.ctx))
        for (uint64_t i = 0; i < count; i++)
            if (++src.pmicntr == 0)  // RFBGFH: unsigned overflow of [63:0]
                flag(pe, 1ull << 32, now, false);
    if (!cfg_.feat_amuv1 || (src.ctx.halted && bit(src.amcr, PMVP_AMCR_EL0_HDBG)))
        return;
    if (event == 0x0008 && (src.amen0 >> 2 & 1))
        src.am0[2] += count;
    for (unsigned n = 0; n < cfg_.amu_num_aux; n++)
        if (src.amtype1[n] == event && (src.amen1 >> n & 1))
            src.am1[n] += count;
    instant_over();
}

pmvp_time Core::edge_after_now(uint64_t k) const
{
    Clock c = proc_;
    pmvp_time t = now_;
    for (uint64_t i = 0; i < k; i++) {
        t = c.next_edge();
        c.since++;
    }
    return t;
}

bool Core::spread_window_fits(uint64_t cycles, pmvp_time now) const
{
    const Core &last = at_input_ ? *at_input_ : *this;
    if (last.clock_stopped() || cycles == 0)
        return false;
    pmvp_time t = last.edge_after_now(cycles);
    return t != PMVP_TIME_NEVER && t <= now;
}

uint64_t Core::spread_of(unsigned q, uint16_t ev) const
{
    uint64_t w = 0;
    for (const Spread &s : spread_)
        if (s.pe == q && s.event == ev)
            w += s.per_cycle;
    return w;
}

void Core::report_batches(const std::vector<Batch> &batches, pmvp_time now)
{
    // Back to the last input: the window's cycles are walked again with the spread.
    if (at_input_) {
        std::shared_ptr<const Core> last = at_input_;
        *this = *last;
    }
    // The edges after the last input up to now; each window is the last of them.
    uint64_t edges = 0;
    for (Clock c = proc_; c.next_edge() <= now; c.since++)
        edges++;
    // Cycle by cycle: on each, every batch's occurrences on it.
    for (uint64_t j = 1; j <= edges; j++) {
        spread_.clear();
        for (const Batch &b : batches) {
            uint64_t total = 0;
            for (const pmvp_run &r : b.runs)
                total += r.cycles;
            uint64_t from_end = edges - j;  // cycles of the window after this one
            if (from_end >= total)
                continue;
            uint64_t at = total - 1 - from_end;  // this cycle's place in the window
            for (const pmvp_run &r : b.runs) {
                if (at < r.cycles) {
                    spread_.push_back({ b.pe, b.event, r.per_cycle });
                    break;
                }
                at -= r.cycles;
            }
        }
        walk(edge_after_now(1));
    }
    spread_.clear();
    input(now);
}

void Core::report_shares(const pmvp_share *shares, unsigned n, pmvp_time since, pmvp_time now)
{
    const Core &last = at_input_ ? *at_input_ : *this;
    since = std::max(since, last.now_);
    uint64_t cycles = 0;
    for (Clock c = last.proc_; !last.clock_stopped() && c.next_edge() <= now; c.since++)
        cycles += c.next_edge() > since;
    if (cycles == 0) {
        for (unsigned i = 0; i < n; i++)
            report(shares[i].pe, shares[i].event, shares[i].count, now);
        return;
    }
    std::vector<Batch> batches;
    for (unsigned i = 0; i < n; i++) {
        uint64_t base = shares[i].count / cycles, extra = shares[i].count % cycles;
        batches.push_back(
            { shares[i].pe, shares[i].event, { { extra, (uint32_t)(base + 1) }, { cycles - extra, (uint32_t)base } } });
    }
    report_batches(batches, now);
}

int Core::selected(unsigned p, bool cycle_allowed) const
{
    unsigned sel = pe_[p].pmselr & 31;
    if (sel < cfg_.num_counters || (sel == 31 && cycle_allowed))
        return (int)sel;
    return -1;
}

void Core::write(unsigned p, pmvp_pmu_reg reg, unsigned n, uint64_t v, pmvp_time now)
{
    input(now);
    Pe &pe = pe_[p];
    // Implemented bits, from the field descriptions of D24.5.
    uint64_t filt = PMVP_PMEVTYPER_EL0_P | PMVP_PMEVTYPER_EL0_U;
    if (cfg_.have_el3)
        filt |= PMVP_PMEVTYPER_EL0_NSK | PMVP_PMEVTYPER_EL0_NSU | PMVP_PMEVTYPER_EL0_M;
    if (cfg_.have_el2)
        filt |= PMVP_PMEVTYPER_EL0_NSH;
    if (cfg_.feat_sel2)
        filt |= PMVP_PMEVTYPER_EL0_SH;
    if (cfg_.feat_rme)
        filt |= PMVP_PMEVTYPER_EL0_RLK | PMVP_PMEVTYPER_EL0_RLU | PMVP_PMEVTYPER_EL0_RLH;
    uint64_t type =
        filt | (cfg_.pmu_version >= PMVP_PMUV3P1 ? 0xFFFFu : 0x3FFu) | (cfg_.feat_mtpmu ? PMVP_PMEVTYPER_EL0_MT : 0);
    // D13.8: TC and TH[THWIDTH-1:0] (PMMIR.THWIDTH), TE with EDGE >= 1,
    // TLC (odd counters) with EDGE == 2.
    unsigned thwidth = (unsigned)(cfg_.pmmir >> 20 & 0xF), edge = (unsigned)(cfg_.pmmir >> 24 & 0xF);
    if (thwidth)
        type |= 7ull << 61 | ((1ull << thwidth) - 1) << 32;
    if (edge >= 1)
        type |= 1ull << 60;
    auto type_of = [&](unsigned i) { return i % 2 == 1 && edge >= 2 ? type | 3ull << 54 : type; };
    uint64_t cmask = cfg_.pmu_version >= PMVP_PMUV3P5 ? ~0ULL : 0xFFFFFFFFULL;
    uint64_t bits = (v & counters_mask()) | (v & 0x80000000u) | (cfg_.feat_pmuv3_icntr ? v & (1ull << 32) : 0);
    int sel;
    switch (reg) {
    case PMVP_PMCR_EL0: {
        uint64_t m = PMVP_PMCR_EL0_E;
        if (cfg_.have_aarch32)
            m |= PMVP_PMCR_EL0_D | PMVP_PMCR_EL0_LC;
        if (cfg_.have_el3 || (cfg_.pmu_version >= PMVP_PMUV3P1 && cfg_.have_el2) || cfg_.feat_pmuv3p7)
            m |= PMVP_PMCR_EL0_DP;
        if (cfg_.pmu_version >= PMVP_PMUV3P5)
            m |= PMVP_PMCR_EL0_LP;
        if (cfg_.feat_pmuv3p7)
            m |= PMVP_PMCR_EL0_FZO;
        pe.pmcr = v & m;
        if (v & PMVP_PMCR_EL0_P) {
            // EL2Enabled(): with EL3, Non-secure and Realm have EL2, Secure
            // only with FEAT_SEL2 enabled by an AArch64 EL3's SCR_EL3.EEL2.
            bool secure_el2 = cfg_.feat_sel2 && !cfg_.el3_aarch32 && bit(pe.ctl.scr_el3, PMVP_SCR_EL3_EEL2);
            bool el2_enabled =
                cfg_.have_el2 && (!cfg_.have_el3 || pe.ctx.security == PMVP_NONSECURE ||
                                  pe.ctx.security == PMVP_REALM || (pe.ctx.security == PMVP_SECURE && secure_el2));
            unsigned last = (!el2_enabled || pe.ctx.el >= 2) ? epmn(pe) : hpmn(pe);
            for (unsigned i = 0; i < last; i++)
                pe.c[i].value = 0;
        }
        if (v & PMVP_PMCR_EL0_C) {
            pe.pmccntr = 0;
            pe.divider = 0;
        }
        break;
    }
    case PMVP_PMCNTENSET_EL0: pe.cnten |= bits; break;
    case PMVP_PMCNTENCLR_EL0: pe.cnten &= ~bits; break;
    case PMVP_PMINTENSET_EL1: pe.inten |= bits; break;
    case PMVP_PMINTENCLR_EL1: pe.inten &= ~bits; break;
    case PMVP_PMOVSSET_EL0: pe.ovs |= bits; break;
    case PMVP_PMOVSCLR_EL0: pe.ovs &= ~bits; break;
    case PMVP_PMSWINC_EL0:
        if (!supported(PMVP_EV_SW_INCR))
            break;
        for (unsigned i = 0; i < cfg_.num_counters; i++)
            if ((v >> i & 1) && (pe.c[i].evtyper & PMVP_PMEVTYPER_EL0_evtCount) == PMVP_EV_SW_INCR &&
                counter_counts(p, i, pe.ctx))
                occur(p, i, 1, now);
        break;
    case PMVP_PMSELR_EL0: pe.pmselr = (uint32_t)(v & 31); break;
    case PMVP_PMCCNTR_EL0:
        pe.pmccntr = v;
        pe.divider = 0;
        break;
    case PMVP_PMCCFILTR_EL0: pe.pmccfiltr = v & filt; break;
    case PMVP_PMUSERENR_EL0:  // IR with ICNTR, UEN and TID with PMUv3p9
        pe.pmuserenr = v & (0xF | (cfg_.feat_pmuv3_icntr ? 0x20 : 0) | (cfg_.feat_pmuv3p9 ? 0x50 : 0));
        break;
    case PMVP_PMZR_EL0:  // D24.5.29: each counter whose bit is 1 is zeroed
        for (unsigned i = 0; i < cfg_.num_counters; i++)
            if (v >> i & 1)
                pe.c[i].value = 0;
        if (v >> 31 & 1) {
            pe.pmccntr = 0;
            pe.divider = 0;
        }
        if (cfg_.feat_pmuv3_icntr && (v >> 32 & 1))
            pe.pmicntr = 0;
        break;
    case PMVP_PMICNTR_EL0: pe.pmicntr = v; break;
    case PMVP_PMECR_EL1:
        pe.pmecr = v & ((cfg_.feat_ebep ? PMVP_PMECR_EL1_PMEE | PMVP_PMECR_EL1_KPME : 0) |
                        (cfg_.feat_pmuv3_ss ? PMVP_PMECR_EL1_SSE : 0));
        break;
    case PMVP_PMSSCR_EL1:
        pe.pmsscr = v & PMVP_PMSSCR_EL1_NC;
        if (v & PMVP_PMSSCR_EL1_SS)
            capture(p, now);
        break;
    case PMVP_PMICFILTR_EL0: pe.pmicfiltr = v & filt; break;  // no MT, no SYNC
    case PMVP_PMEVCNTR_EL0: pe.c[n].value = v & cmask; break;
    case PMVP_PMEVTYPER_EL0:
        pe.c[n].evtyper = v & type_of(n);
        afresh(p, n);
        break;
    case PMVP_PMXEVTYPER_EL0:
        sel = selected(p, true);
        if (sel == 31) {
            pe.pmccfiltr = v & filt;
        } else if (sel >= 0) {
            pe.c[sel].evtyper = v & type_of((unsigned)sel);
            afresh(p, (unsigned)sel);
        }
        break;
    case PMVP_PMXEVCNTR_EL0:
        sel = selected(p, false);
        if (sel >= 0)
            pe.c[sel].value = v & cmask;
        break;
    default: break;
    }
    instant_over();
}

uint64_t Core::read(unsigned p, pmvp_pmu_reg reg, unsigned n, pmvp_time now)
{
    input(now);
    const Pe &pe = pe_[p];
    int sel;
    switch (reg) {
    case PMVP_PMCR_EL0: {
        uint64_t v = pe.pmcr | ((uint64_t)cfg_.num_counters << 11);
        if (!cfg_.have_aarch32)
            v |= PMVP_PMCR_EL0_LC;
        if (!cfg_.feat_pmuv3p7 && cfg_.pmcr_imp)
            v |= (uint64_t)cfg_.pmcr_imp << 24 | (uint64_t)cfg_.pmcr_idcode << 16;
        return v;
    }
    case PMVP_PMCNTENSET_EL0:
    case PMVP_PMCNTENCLR_EL0: return pe.cnten;
    case PMVP_PMINTENSET_EL1:
    case PMVP_PMINTENCLR_EL1: return pe.inten;
    case PMVP_PMOVSSET_EL0:
    case PMVP_PMOVSCLR_EL0: return pe.ovs;
    case PMVP_PMSELR_EL0: return pe.pmselr;
    case PMVP_PMCEID0_EL0:
    case PMVP_PMCEID1_EL0: {
        uint16_t base = reg == PMVP_PMCEID0_EL0 ? 0 : 0x20;
        uint64_t v = 0;
        for (unsigned i = 0; i < 32; i++) {
            v |= (uint64_t)supported((uint16_t)(base + i)) << i;
            if (cfg_.pmu_version >= PMVP_PMUV3P1)
                v |= (uint64_t)supported((uint16_t)(0x4000 + base + i)) << (32 + i);
        }
        return v;
    }
    case PMVP_PMCCNTR_EL0: return pe.pmccntr;
    case PMVP_PMCCFILTR_EL0: return pe.pmccfiltr;
    case PMVP_PMUSERENR_EL0: return pe.pmuserenr;
    case PMVP_PMICNTR_EL0: return pe.pmicntr;
    case PMVP_PMICFILTR_EL0: return pe.pmicfiltr | PMVP_EV_INST_RETIRED;
    case PMVP_PMECR_EL1: return pe.pmecr;
    case PMVP_PMSSCR_EL1: return pe.pmsscr;
    case PMVP_PMEVCNTSVR_EL1: return pe.evsvr[n];
    case PMVP_PMCCNTSVR_EL1: return pe.ccsvr;
    case PMVP_PMICNTSVR_EL1: return pe.icsvr;
    case PMVP_PMEVCNTR_EL0: return pe.c[n].value;
    case PMVP_PMEVTYPER_EL0: return pe.c[n].evtyper;
    case PMVP_PMXEVTYPER_EL0:
        sel = selected(p, true);
        return sel < 0 ? 0 : sel == 31 ? pe.pmccfiltr : pe.c[sel].evtyper;
    case PMVP_PMXEVCNTR_EL0: sel = selected(p, false); return sel < 0 ? 0 : pe.c[sel].value;
    default: return 0;
    }
}

// D13.3.1.
bool Core::irq(unsigned p, pmvp_time now)
{
    input(now);
    const Pe &pe = pe_[p];
    for (unsigned n = 0; n < cfg_.num_counters; n++) {
        int r = range(pe, n);
        bool global = bit(r == 1   ? pe.pmcr
                          : r == 2 ? pe.ctl.mdcr_el2
                                   : pe.pmccr,
                          r == 1   ? PMVP_PMCR_EL0_E
                          : r == 2 ? PMVP_MDCR_EL2_HPME
                                   : PMVP_PMCCR_EPME);
        if (global && (pe.ovs >> n & 1) && (pe.inten >> n & 1))
            return true;
    }
    // PMCCNTR and PMICNTR: PMCR.E.
    return bit(pe.pmcr, PMVP_PMCR_EL0_E) && (pe.ovs & pe.inten & (3ull << 31));
}

}  // namespace pmvp::ref
