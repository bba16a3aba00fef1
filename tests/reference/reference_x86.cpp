// SPDX-License-Identifier: Apache-2.0
#include "reference_x86.h"

#include <algorithm>

namespace pmvp::ref {

namespace {

// Table 18-30, as printed: rows T0_OS/T0_USR and columns T1_OS/T1_USR, both
// in the order 00, 01, 11, 10.
enum Cell { ZERO, USR_EITHER, OS_EITHER, ALWAYS };
constexpr Cell kTable18_30[4][4] = {
    { ZERO, USR_EITHER, ALWAYS, OS_EITHER },
    { USR_EITHER, USR_EITHER, ALWAYS, ALWAYS },
    { ALWAYS, ALWAYS, ALWAYS, ALWAYS },
    { OS_EITHER, ALWAYS, ALWAYS, OS_EITHER },
};
int printed_position(bool os, bool usr)
{
    static constexpr int kPos[2][2] = { { 0, 1 }, { 3, 2 } };  // [os][usr]
    return kPos[os][usr];
}

constexpr unsigned kFixed = PMVP_X86_FIXED_BASE;

}  // namespace

X86Core::X86Core(const pmvp_x86_config &cfg) : cfg_(cfg)
{
    core_.hz = cfg.core_hz;
    tsc_clock_.hz = cfg.tsc_hz;
    xclk_.hz = cfg.xclk_hz;
    for (unsigned t = 0; t < cfg.num_threads; t++)
        th_[t].global_ctrl = (1ull << cfg.num_gp) - 1;
}

std::vector<unsigned> X86Core::ids() const
{
    std::vector<unsigned> v;
    for (unsigned x = 0; x < cfg_.num_gp; x++)
        v.push_back(x);
    for (unsigned x = 0; x < PMVP_X86_NUM_FIXED; x++)
        v.push_back(kFixed + x);
    return v;
}

bool X86Core::enabled(unsigned t, unsigned id) const
{
    if (!(th_[t].global_ctrl >> id & 1))
        return false;
    if (id >= kFixed)
        return (th_[t].fixed_ctrl >> (4 * (id - kFixed)) & 3) != 0;
    return th_[t].evtsel[id] >> 22 & 1;
}

bool X86Core::os_bit(unsigned t, unsigned id) const
{
    return id >= kFixed ? th_[t].fixed_ctrl >> (4 * (id - kFixed)) & 1 : th_[t].evtsel[id] >> 17 & 1;
}

bool X86Core::usr_bit(unsigned t, unsigned id) const
{
    return id >= kFixed ? th_[t].fixed_ctrl >> (4 * (id - kFixed) + 1) & 1 : th_[t].evtsel[id] >> 16 & 1;
}

bool X86Core::any_bit(unsigned t, unsigned id) const
{
    return id >= kFixed ? th_[t].fixed_ctrl >> (4 * (id - kFixed) + 2) & 1 : th_[t].evtsel[id] >> 21 & 1;
}

uint16_t X86Core::event_of(unsigned t, unsigned id) const
{
    static constexpr uint16_t kFixedEvents[] = { 0x00C0, 0x003C, 0xFFFF /* REF_TSC: no PERFEVTSEL code */ };
    return id >= kFixed ? kFixedEvents[id - kFixed] : (uint16_t)(th_[t].evtsel[id] & 0xFFFF);
}

// Whether LP u's CPL is one that counter `id` of LP `owner` selects, the
// bits being the owner's (architectural) or LP u's (T<u>_OS/T<u>_USR).
bool X86Core::at_selected_cpl(unsigned owner, unsigned id, unsigned u) const
{
    unsigned bits = cfg_.cpl_mode == PMVP_X86_CPL_T0_T1 ? u : owner;
    return th_[u].cpl == 0 ? os_bit(bits, id) : usr_bit(bits, id);
}

void X86Core::count(unsigned t, unsigned id, uint64_t increment, bool on_tick)
{
    uint64_t e = id < kFixed ? th_[t].evtsel[id] : 0;
    bool edge = e >> 18 & 1, inv = e >> 23 & 1;
    unsigned cmask = e >> 24 & 0xFF;
    bool cond = cmask ? ((increment >= cmask) != inv) : increment > 0;
    uint64_t add = edge ? (cond && !th_[t].prev[id]) : cmask ? cond : increment;
    th_[t].prev[id] = cond;
    unsigned width = id >= kFixed ? cfg_.fixed_width : cfg_.gp_width;
    uint64_t top = (1ull << width) - 1;
    // One increment at a time, as the counter sees them.
    for (uint64_t i = 0; i < add; i++) {
        if (th_[t].value[id] == top) {
            th_[t].value[id] = 0;
            uint64_t bit = 1ull << id;
            bool interrupt = id >= kFixed ? th_[t].fixed_ctrl >> (4 * (id - kFixed) + 3) & 1 : e >> 20 & 1;
            if (on_tick && interrupt && !(th_[t].status & bit))
                pmi_rises_.push_back(now_);
            th_[t].status |= bit;
        } else {
            th_[t].value[id]++;
        }
    }
}

void X86Core::tick(Tick which, pmvp_time at)
{
    now_ = at;
    unsigned n = cfg_.num_threads;
    bool all_deep = true, all_halted = true;
    for (unsigned u = 0; u < n; u++) {
        all_deep &= th_[u].state == PMVP_X86_DEEP_SLEEP;
        all_halted &= th_[u].state != PMVP_X86_C0;
    }
    if (which == TSC && (cfg_.tsc_invariant || !all_deep))
        tsc_++;
    for (unsigned u = 0; u < n; u++) {
        if (th_[u].state != PMVP_X86_C0)
            continue;
        if (which == CORE)
            th_[u].aperf++;
        if (which == TSC)
            th_[u].mperf++;
    }
    if (all_halted)
        return;  // the core's counters are powered down
    for (unsigned t = 0; t < n; t++) {
        for (unsigned id : ids()) {
            if (!enabled(t, id))
                continue;
            uint16_t ev = event_of(t, id);
            Tick clock;
            bool one_thread = false;
            if (id == kFixed + 1 || (id < kFixed && ev == 0x003C))
                clock = CORE;
            else if (id == kFixed + 2)
                clock = TSC;
            else if (id < kFixed && (ev == 0x013C || ev == 0x023C))
                clock = XCLK, one_thread = ev == 0x023C;
            else
                continue;
            if (clock != which)
                continue;
            bool seen = false, unhalted_one = false;
            for (unsigned u = 0; u < n; u++) {
                if (u != t && !any_bit(t, id))
                    continue;
                if (!at_selected_cpl(t, id, u))
                    continue;
                seen = true;
                bool runs = th_[u].state == PMVP_X86_C0;
                if (one_thread)
                    for (unsigned v = 0; v < n; v++)
                        runs = runs && (v == u || th_[v].state != PMVP_X86_C0);
                unhalted_one = unhalted_one || runs;
            }
            if (seen)
                count(t, id, unhalted_one ? 1 : 0, true);
        }
    }
}

void X86Core::advance(pmvp_time now)
{
    for (;;) {
        pmvp_time c = core_.next_edge(), s = tsc_clock_.next_edge(), x = xclk_.next_edge();
        pmvp_time first = std::min({ c, s, x });
        if (first == PMVP_TIME_NEVER || first > now)
            break;
        if (c == first) {
            core_.since++;
            tick(CORE, first);
        }
        if (s == first) {
            tsc_clock_.since++;
            tick(TSC, first);
        }
        if (x == first) {
            xclk_.since++;
            tick(XCLK, first);
        }
    }
    now_ = now;
}

void X86Core::set_core_clock(uint64_t hz, pmvp_time now)
{
    advance(now);
    core_.set_hz(hz, now);
}

void X86Core::set_state(unsigned t, pmvp_x86_state st, pmvp_time now)
{
    advance(now);
    th_[t].state = st;
}

void X86Core::set_cpl(unsigned t, uint8_t cpl, pmvp_time now)
{
    advance(now);
    th_[t].cpl = cpl;
}

void X86Core::report(unsigned from, uint16_t event, uint64_t n, pmvp_time now)
{
    advance(now);
    for (unsigned t = 0; t < cfg_.num_threads; t++)
        for (unsigned id : ids())
            if (enabled(t, id) && id != kFixed + 1 && id != kFixed + 2 && event_of(t, id) == event &&
                (from == t || any_bit(t, id)) && at_selected_cpl(t, id, from))
                count(t, id, n, false);
}

void X86Core::report_core(uint16_t event, uint64_t n, pmvp_time now)
{
    advance(now);
    for (unsigned t = 0; t < cfg_.num_threads; t++) {
        for (unsigned id : ids()) {
            if (!enabled(t, id) || id == kFixed + 1 || id == kFixed + 2 || event_of(t, id) != event)
                continue;
            bool counts = false;
            if (cfg_.cpl_mode == PMVP_X86_CPL_PER_THREAD) {
                for (unsigned u = 0; u < cfg_.num_threads; u++)
                    counts = counts || ((u == t || any_bit(t, id)) && at_selected_cpl(t, id, u));
            } else {
                bool t1_os = cfg_.num_threads > 1 && os_bit(1, id), t1_usr = cfg_.num_threads > 1 && usr_bit(1, id);
                Cell cell =
                    kTable18_30[printed_position(os_bit(0, id), usr_bit(0, id))][printed_position(t1_os, t1_usr)];
                bool t0_usr = th_[0].cpl != 0, t1_in_usr = cfg_.num_threads > 1 && th_[1].cpl != 0;
                bool t0_os = th_[0].cpl == 0, t1_in_os = cfg_.num_threads > 1 && th_[1].cpl == 0;
                counts = cell == ALWAYS || (cell == USR_EITHER && (t0_usr || t1_in_usr)) ||
                         (cell == OS_EITHER && (t0_os || t1_in_os));
            }
            if (counts)
                count(t, id, n, false);
        }
    }
}

void X86Core::wrmsr(unsigned t, uint32_t msr, uint64_t v, pmvp_time now)
{
    advance(now);
    if (msr >= PMVP_MSR_IA32_PERFEVTSEL0 && msr < PMVP_MSR_IA32_PERFEVTSEL0 + cfg_.num_gp) {
        th_[t].evtsel[msr - PMVP_MSR_IA32_PERFEVTSEL0] = v;
        th_[t].prev[msr - PMVP_MSR_IA32_PERFEVTSEL0] = false;
    } else if (msr >= PMVP_MSR_IA32_A_PMC0 && msr < PMVP_MSR_IA32_A_PMC0 + cfg_.num_gp) {
        th_[t].value[msr - PMVP_MSR_IA32_A_PMC0] = v;
    } else if (msr >= PMVP_MSR_IA32_FIXED_CTR0 && msr < PMVP_MSR_IA32_FIXED_CTR0 + PMVP_X86_NUM_FIXED) {
        th_[t].value[kFixed + msr - PMVP_MSR_IA32_FIXED_CTR0] = v;
    } else if (msr == PMVP_MSR_IA32_FIXED_CTR_CTRL) {
        th_[t].fixed_ctrl = v;
    } else if (msr == PMVP_MSR_IA32_PERF_GLOBAL_CTRL) {
        th_[t].global_ctrl = v;
    } else if (msr == PMVP_MSR_IA32_PERF_GLOBAL_OVF_CTRL) {
        th_[t].status &= ~v;
    }
}

uint64_t X86Core::counter(unsigned t, unsigned id, pmvp_time now)
{
    advance(now);
    return th_[t].value[id];
}

uint64_t X86Core::status(unsigned t, pmvp_time now)
{
    advance(now);
    return th_[t].status;
}

bool X86Core::pmi(unsigned t, pmvp_time now)
{
    advance(now);
    for (unsigned id : ids()) {
        bool interrupt = id >= kFixed ? th_[t].fixed_ctrl >> (4 * (id - kFixed) + 3) & 1 : th_[t].evtsel[id] >> 20 & 1;
        if (interrupt && (th_[t].status >> id & 1))
            return true;
    }
    return false;
}

uint64_t X86Core::tsc(pmvp_time now)
{
    advance(now);
    return tsc_;
}

uint64_t X86Core::aperf(unsigned t, pmvp_time now)
{
    advance(now);
    return th_[t].aperf;
}

uint64_t X86Core::mperf(unsigned t, pmvp_time now)
{
    advance(now);
    return th_[t].mperf;
}

pmvp_time X86Core::first_pmi_rise_since(pmvp_time from) const
{
    for (pmvp_time t : pmi_rises_)
        if (t > from)
            return t;
    return PMVP_TIME_NEVER;
}

}  // namespace pmvp::ref
