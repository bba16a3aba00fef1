// SPDX-License-Identifier: Apache-2.0
#include "differential.h"

#include <algorithm>
#include <memory>
#include <random>
#include <sstream>
#include <vector>

#include "pmvp/amu.h"
#include "pmvp/checkpoint.h"
#include "pmvp/error.h"
#include "pmvp/ext.h"
#include "reference_pmu.h"

namespace pmvp::ref {

namespace {

class Scenario {
public:
    explicit Scenario(uint64_t seed) : seed_(seed), rng_(seed) {}
    ScenarioResult run();

private:
    uint64_t rnd(uint64_t n) { return n ? std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_) : 0; }
    bool coin(unsigned percent = 50) { return rnd(100) < percent; }
    template <typename T> T pick(const std::vector<T> &v) { return v[rnd(v.size())]; }

    void make_config();
    pmvp_context random_context();
    uint64_t near_overflow();
    uint64_t random_filter();
    void step();
    void write(unsigned pe, pmvp_pmu_reg r, unsigned n, uint64_t v);
    void arm_freeze();
    bool checkpoint_and_restore();
    void compare(const char *where);
    bool compare_amu(const char *where, unsigned p);
    bool fail(const std::string &what);

    uint64_t seed_;
    std::mt19937_64 rng_;
    pmvp_core_config cfg_{};
    std::vector<uint16_t> events_;
    pmvp_core core_{};
    std::unique_ptr<Core> ref_;
    pmvp_time now_ = 0;
    ScenarioResult result_;
    // A scenario about freeze on overflow (D13.5.2.1): FEAT_PMUv3p7, PMCR.FZO
    // mostly set, fewer filters, flags raised by overflows rather than
    // written, so that counters freeze in the middle of the stretches.
    bool freeze_ = false;
    bool snapshots_ = false;  // a scenario about PMU snapshots (FEAT_PMUv3_SS)
    // A scenario about threshold and edge counting (D13.8): small thresholds,
    // small reports, several in one processor cycle.
    bool threshold_ = false;
};

bool Scenario::fail(const std::string &what)
{
    if (result_.ok) {
        std::ostringstream s;
        s << "seed " << seed_ << " at t=" << now_ << " ps: " << what;
        result_.ok = false;
        result_.failure = s.str();
    }
    return false;
}

// Events an AMU auxiliary counter may count in every configuration drawn
// here: one of each class an AMU counts.
static const std::vector<uint16_t> &amu_aux_pool()
{
    static const std::vector<uint16_t> pool = { PMVP_EV_CPU_CYCLES, PMVP_EV_INST_RETIRED, PMVP_EV_STALL_BACKEND,
                                                PMVP_EV_STALL_BACKEND_MEM, PMVP_EV_CNT_CYCLES };
    return pool;
}

void Scenario::make_config()
{
    pmvp_core_config_default(&cfg_);
    cfg_.num_pes = 1 + (unsigned)rnd(4);
    cfg_.mt_policy = (pmvp_mt_policy)rnd(3);
    cfg_.pmu_version = pick<pmvp_pmu_version>({ PMVP_PMUV3, PMVP_PMUV3P1, PMVP_PMUV3P4, PMVP_PMUV3P5 });
    cfg_.feat_pmuv3p7 = cfg_.pmu_version == PMVP_PMUV3P5 && coin(80);
    cfg_.feat_pmuv3_icntr = coin(40); /* off before PMUv3p5: limit_to_version below */
    cfg_.feat_pmuv3p9 = cfg_.feat_pmuv3p7 && coin(40);
    snapshots_ = coin(20);
    cfg_.feat_pmuv3_ss = snapshots_ || coin(20); /* off before PMUv3p5: limit_to_version below */
    cfg_.feat_pmuv3_extpmn = coin(30);           /* likewise */
    if (snapshots_)
        cfg_.pmu_version = PMVP_PMUV3P5;
    cfg_.ss_capture_in_debug = coin();
    cfg_.have_el2 = coin(70);
    cfg_.have_el3 = coin(70);
    cfg_.feat_sel2 = cfg_.have_el2 && cfg_.have_el3 && coin(40);
    cfg_.feat_rme = cfg_.have_el2 && cfg_.have_el3 && coin(30);
    cfg_.have_aarch32 = coin(60);
    cfg_.el3_aarch32 = cfg_.have_el3 && cfg_.have_aarch32 && coin(20);
    cfg_.el2_aarch32 = cfg_.have_el2 && cfg_.have_aarch32 && (cfg_.el3_aarch32 || coin(15));
    cfg_.el1_aarch32 = cfg_.el3_aarch32 || cfg_.el2_aarch32 || (cfg_.have_aarch32 && coin(20));
    cfg_.feat_mtpmu = coin(70);
    cfg_.feat_hpmn0 = coin(50);
    cfg_.feat_debugv8p2 = coin(50);
    cfg_.num_counters = (unsigned)rnd(7);
    cfg_.extpmn_reserved = (unsigned)rnd(3); /* kept only with FEAT_PMUv3_EXTPMN, below */
    cfg_.clock_stops_in_wfx = coin();
    cfg_.pmccntr_counts_in_wfx = coin();
    cfg_.wfx_thread_active = coin();
    cfg_.cpu_cycles_in_wfx = coin();
    cfg_.mtpmu_disable_core_wide = coin(30);
    cfg_.divider_mode = coin() ? PMVP_DIVIDER_ALL_CYCLES : PMVP_DIVIDER_COUNTED_CYCLES;
    cfg_.processor_hz = pick<uint64_t>({ 0, 100000000, 333333333, 1000000000, 1500000000, 2000000000, 2700000000 });
    cfg_.bus_hz = pick<uint64_t>({ 0, 50000000, 250000000, 1000000000 });
    cfg_.system_counter_hz = pick<uint64_t>({ 1000000, 25000000, 100000000 });
    cfg_.feat_amuv1 = coin(80);
    cfg_.feat_amuv1p1 = cfg_.feat_amuv1 && coin();
    freeze_ = coin(20);
    if (freeze_) {
        cfg_.pmu_version = PMVP_PMUV3P5;
        cfg_.feat_pmuv3p7 = true;
        cfg_.feat_pmuv3_icntr = coin(60);
        cfg_.feat_pmuv3p9 = coin(40);
        cfg_.num_counters = 2 + (unsigned)rnd(5);
    }
    threshold_ = coin(20);
    if (threshold_) {
        cfg_.pmu_version = PMVP_PMUV3P5;
        cfg_.feat_pmuv3p7 = true;
        cfg_.num_counters = 2 + (unsigned)rnd(5);
    }
    if (cfg_.feat_pmuv3p7 && (threshold_ || coin(15))) /* THWIDTH 1..12, EDGE 0..2 */
        cfg_.pmmir = PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, pick<uint64_t>({ 1, 2, 3, 4, 8, 12 })) |
                     PMVP_FIELD_PREP(PMVP_PMMIR_EL1_EDGE, rnd(3));
    if (coin(40)) /* SLOTS: STALL_SLOT with MT == 1 counts the Slots no PE occupies */
        cfg_.pmmir |= PMVP_FIELD_PREP(PMVP_PMMIR_EL1_SLOTS, 1 + rnd(8));
    // A feature of a later architecture version than the PMU's is refused.
    pmvp_core_config_limit_to_version(&cfg_);
    cfg_.ss_capture_in_debug = cfg_.ss_capture_in_debug && cfg_.feat_pmuv3_ss;
    if (cfg_.num_counters == 0 && cfg_.have_el2 && !cfg_.feat_hpmn0)
        cfg_.num_counters = 2;
    if (!cfg_.feat_pmuv3_extpmn || cfg_.extpmn_reserved > cfg_.num_counters)
        cfg_.extpmn_reserved = 0;
    cfg_.amu_num_aux = cfg_.feat_amuv1 ? (unsigned)rnd(5) : 0;
    for (unsigned n = 0; n < cfg_.amu_num_aux; n++)
        cfg_.amu_aux_event[n] = pick(amu_aux_pool());
    if (coin(25)) {
        events_ = { PMVP_EV_CPU_CYCLES,
                    PMVP_EV_INST_RETIRED,
                    PMVP_EV_CHAIN,
                    PMVP_EV_SW_INCR,
                    PMVP_EV_STALL_BACKEND,
                    0x0004,
                    0x00C1 };
        cfg_.events = events_.data();
        cfg_.num_events = (unsigned)events_.size();
    }
}

pmvp_context Scenario::random_context()
{
    for (;;) {
        pmvp_context x{};
        x.el = (uint8_t)rnd(4);
        x.security = (uint8_t)rnd(4);
        x.aarch32 = cfg_.have_aarch32 && coin(20);
        x.halted = coin(5);
        if (x.el == 3) {
            x.security = cfg_.feat_rme ? PMVP_ROOT : PMVP_SECURE;
            x.aarch32 = cfg_.el3_aarch32 && x.aarch32;
        }
        pmvp_core probe{};
        if (pmvp_core_init(&probe, &cfg_) == PMVP_OK && pmvp_core_set_context(&probe, 0, &x, 0) == PMVP_OK)
            return x;
    }
}

uint64_t Scenario::near_overflow()
{
    uint64_t r = rnd(3000);
    switch (rnd(4)) {
    case 0: return rnd(1000);
    case 1: return 0xFFFFFFFFULL - r;
    case 2: return ~0ULL - r;
    default: return rng_();
    }
}

uint64_t Scenario::random_filter()
{
    uint64_t f = 0;
    if (freeze_ && coin(70))
        return f;
    for (uint64_t b : { PMVP_PMEVTYPER_EL0_P, PMVP_PMEVTYPER_EL0_U, PMVP_PMEVTYPER_EL0_NSK, PMVP_PMEVTYPER_EL0_NSU,
                        PMVP_PMEVTYPER_EL0_NSH, PMVP_PMEVTYPER_EL0_M, PMVP_PMEVTYPER_EL0_SH, PMVP_PMEVTYPER_EL0_RLK,
                        PMVP_PMEVTYPER_EL0_RLU, PMVP_PMEVTYPER_EL0_RLH })
        if (coin(25))
            f |= b;
    return f;
}

void Scenario::write(unsigned pe, pmvp_pmu_reg r, unsigned n, uint64_t v)
{
    pmvp_pmu_write(&core_, pe, r, n, v, now_);
    ref_->write(pe, r, n, v, now_);
}

// A freeze scenario's start: every PE's counters enabled, counting cycles
// or a level or reported event, a few thousand increments from overflow,
// with PMCR.FZO (and for some PMCR.DP) set, MDCR_EL2.HPMFZO for most, and some
// interrupt requests enabled.
void Scenario::arm_freeze()
{
    const std::vector<uint16_t> events = { PMVP_EV_CPU_CYCLES, PMVP_EV_CPU_CYCLES,    PMVP_EV_CHAIN,
                                           PMVP_EV_CHAIN,      PMVP_EV_STALL_BACKEND, PMVP_EV_INST_RETIRED,
                                           PMVP_EV_BUS_CYCLES };
    for (unsigned p = 0; p < cfg_.num_pes; p++) {
        if (cfg_.have_el2) { /* both ranges, often split between a counter and its CHAIN counter */
            pmvp_pmu_controls ctl{};
            ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, coin() ? 1 + 2 * rnd(3) : rnd(cfg_.num_counters + 1)) |
                           PMVP_MDCR_EL2_HPME | (coin(70) ? PMVP_MDCR_EL2_HPMFZO : 0);
            pmvp_core_set_controls(&core_, p, &ctl, now_);
            ref_->set_controls(p, ctl, now_);
        }
        write(p, PMVP_PMCNTENSET_EL0, 0, 0xFFFFFFFFu | PMVP_PMU_F0);
        write(p, PMVP_PMICNTR_EL0, 0, ~0ull - rnd(2000)); /* F0 may freeze the first range */
        write(p, PMVP_PMINTENSET_EL1, 0, rng_());         /* some overflows interrupt, some only freeze */
        write(p, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO | (coin() ? PMVP_PMCR_EL0_DP : 0));
        for (unsigned n = 0; n < cfg_.num_counters; n++) {
            write(p, PMVP_PMEVTYPER_EL0, n, pick(events));
            write(p, PMVP_PMEVCNTR_EL0, n, 0xFFFFFFFFull - rnd(20000));
        }
    }
}

void Scenario::step()
{
    unsigned pe = (unsigned)rnd(cfg_.num_pes);
    unsigned nc = cfg_.num_counters;
    const std::vector<uint16_t> type_pool = { PMVP_EV_CPU_CYCLES,
                                              PMVP_EV_CPU_CYCLES,
                                              PMVP_EV_INST_RETIRED,
                                              0x0004,
                                              0x0021,
                                              PMVP_EV_SW_INCR,
                                              PMVP_EV_CHAIN,
                                              PMVP_EV_CHAIN,
                                              PMVP_EV_STALL_FRONTEND,
                                              PMVP_EV_STALL_BACKEND,
                                              PMVP_EV_STALL,
                                              PMVP_EV_STALL_BACKEND_MEM,
                                              0x8159,
                                              0x8380,
                                              0x8320,
                                              PMVP_EV_BUS_CYCLES,
                                              PMVP_EV_CNT_CYCLES,
                                              0x00C1,
                                              0x0040,
                                              0x400D,
                                              PMVP_EV_PMU_SNAPSHOT,
                                              PMVP_EV_PMU_SNAPSHOT,
                                              PMVP_EV_STALL_SLOT,
                                              PMVP_EV_STALL_SLOT,
                                              PMVP_EV_STALL_SLOT,
                                              0x8320,
                                              0x8320 };
    const std::vector<uint16_t> level_pool = { PMVP_EV_STALL_FRONTEND,
                                               PMVP_EV_STALL_BACKEND,
                                               PMVP_EV_STALL,
                                               PMVP_EV_STALL_BACKEND_MEM,
                                               0x8159,
                                               0x8380,
                                               0x8320,
                                               0x8320 };
    const std::vector<uint16_t> report_pool = {
        PMVP_EV_INST_RETIRED, 0x0004, 0x0021, 0x00C1, PMVP_EV_CPU_CYCLES, PMVP_EV_STALL_SLOT, PMVP_EV_STALL_SLOT
    };

    switch (rnd(18)) {
    case 0: {
        uint64_t v = rng_() & (PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_D | PMVP_PMCR_EL0_X | PMVP_PMCR_EL0_DP |
                               PMVP_PMCR_EL0_LC | PMVP_PMCR_EL0_LP | PMVP_PMCR_EL0_FZO);
        v |= coin(80) ? PMVP_PMCR_EL0_E : 0;
        v |= coin(freeze_ ? 90 : 50) ? PMVP_PMCR_EL0_FZO : 0;
        v |= freeze_ ? PMVP_PMCR_EL0_E : 0;
        v |= coin(10) ? PMVP_PMCR_EL0_P : 0;
        v |= coin(10) ? PMVP_PMCR_EL0_C : 0;
        pmvp_pmu_write(&core_, pe, PMVP_PMCR_EL0, 0, v, now_);
        ref_->write(pe, PMVP_PMCR_EL0, 0, v, now_);
        break;
    }
    case 1: {
        static const pmvp_pmu_reg regs[] = { PMVP_PMCNTENSET_EL0, PMVP_PMCNTENSET_EL0, PMVP_PMCNTENCLR_EL0,
                                             PMVP_PMINTENSET_EL1, PMVP_PMINTENCLR_EL1, PMVP_PMOVSSET_EL0,
                                             PMVP_PMOVSCLR_EL0,   PMVP_PMOVSCLR_EL0,   PMVP_PMSWINC_EL0,
                                             PMVP_PMSELR_EL0,     PMVP_PMUSERENR_EL0 };
        pmvp_pmu_reg r = regs[rnd(sizeof regs / sizeof regs[0])];
        if (freeze_ && r == PMVP_PMOVSSET_EL0 && coin(80))
            r = PMVP_PMOVSCLR_EL0;
        if (cfg_.feat_pmuv3p9 && coin(15))
            r = PMVP_PMZR_EL0; /* zeroes a random set of counters, the cycle and instruction counters too */
        if (cfg_.feat_pmuv3_ss && coin(snapshots_ ? 70 : 20)) {
            /* Snapshots: who decides Capture events, a request from outside,
             * PMECR_EL1.SSE, a request by PMSSCR_EL1.SS. */
            int kind = (int)rnd(5);
            if (kind == 0) {
                pmvp_pmu_controls ctl{};
                pmvp_core_controls(&core_, pe, &ctl);
                ctl.mdcr_el3 =
                    (ctl.mdcr_el3 & ~PMVP_MDCR_EL3_PMSSE) | PMVP_FIELD_PREP(PMVP_MDCR_EL3_PMSSE, coin() ? 3 : rnd(4));
                ctl.mdcr_el2 =
                    (ctl.mdcr_el2 & ~PMVP_MDCR_EL2_PMSSE) | PMVP_FIELD_PREP(PMVP_MDCR_EL2_PMSSE, coin() ? 3 : rnd(4));
                pmvp_core_set_controls(&core_, pe, &ctl, now_);
                ref_->set_controls(pe, ctl, now_);
                break;
            }
            if (kind == 1) {
                uint64_t pmsscr = ref_->read(pe, PMVP_PMSSCR_EL1, 0, now_);
                pmvp_core_snapshot_request(&core_, pe, now_);
                ref_->write(pe, PMVP_PMSSCR_EL1, 0, pmsscr | PMVP_PMSSCR_EL1_SS, now_);
                break;
            }
            r = kind == 2 ? PMVP_PMECR_EL1 : PMVP_PMSSCR_EL1;
        }
        uint64_t v = r == PMVP_PMCNTENSET_EL0 ? rng_() | (coin() ? 0x80000000u : 0) : rng_();
        pmvp_pmu_write(&core_, pe, r, 0, v, now_);
        ref_->write(pe, r, 0, v, now_);
        break;
    }
    case 2:
    case 3: {
        if (nc == 0)
            break;
        unsigned n = (unsigned)rnd(nc);
        uint64_t v =
            pick(type_pool) | random_filter() | (coin(40) ? PMVP_PMEVTYPER_EL0_MT : 0) | (rng_() & 0xFFFF0000ull << 32);
        if (threshold_) /* TC, TE, TLC above; TH small, to meet the small values counted */
            v |= PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_TH, coin(80) ? rnd(4) : rnd(4096));
        pmvp_pmu_write(&core_, pe, PMVP_PMEVTYPER_EL0, n, v, now_);
        ref_->write(pe, PMVP_PMEVTYPER_EL0, n, v, now_);
        break;
    }
    case 4: {
        pmvp_pmu_reg r = coin() ? PMVP_PMCCNTR_EL0 : PMVP_PMEVCNTR_EL0;
        if (cfg_.feat_pmuv3_icntr && coin(30))
            r = PMVP_PMICNTR_EL0;
        if (r == PMVP_PMEVCNTR_EL0 && nc == 0)
            break;
        unsigned n = r == PMVP_PMEVCNTR_EL0 ? (unsigned)rnd(nc) : 0;
        uint64_t v = near_overflow();
        pmvp_pmu_write(&core_, pe, r, n, v, now_);
        ref_->write(pe, r, n, v, now_);
        break;
    }
    case 5: {
        pmvp_pmu_reg r = pick<pmvp_pmu_reg>({ PMVP_PMCCFILTR_EL0, PMVP_PMXEVTYPER_EL0, PMVP_PMXEVCNTR_EL0 });
        if (cfg_.feat_pmuv3_icntr && coin(30))
            r = PMVP_PMICFILTR_EL0;
        uint64_t v = r == PMVP_PMXEVCNTR_EL0 ? near_overflow() : random_filter() | pick(type_pool);
        pmvp_pmu_write(&core_, pe, r, 0, v, now_);
        ref_->write(pe, r, 0, v, now_);
        break;
    }
    case 6: {
        pmvp_pe_state st = (pmvp_pe_state)rnd(4);
        pmvp_core_set_pe_state(&core_, pe, st, now_);
        ref_->set_pe_state(pe, st, now_);
        break;
    }
    case 7: {
        pmvp_context x = random_context();
        pmvp_core_set_context(&core_, pe, &x, now_);
        ref_->set_context(pe, x, now_);
        break;
    }
    case 8: {
        uint64_t hz = pick<uint64_t>({ 0, 100000000, 333333333, 800000000, 1000000000, 2000000000, 3100000000 });
        if (coin(70)) {
            pmvp_core_set_clock(&core_, hz, now_);
            ref_->set_clock(hz, now_);
        } else {
            pmvp_core_set_bus_clock(&core_, hz, now_);
            ref_->set_bus_clock(hz, now_);
        }
        break;
    }
    case 9: {
        if (cfg_.feat_pmuv3_extpmn && coin(30)) {
            /* The external agent reserves counters: PMCCR, by a Most secure
             * access (EPMN at times reserved, above N). */
            uint64_t v = rnd(nc + 2) | (coin(70) ? PMVP_PMCCR_EPME : 0) | (coin(20) ? PMVP_PMCCR_OSLO : 0);
            pmvp_ext_access a{ (uint8_t)(cfg_.feat_rme ? PMVP_ROOT : PMVP_SECURE), true };
            int err = pmvp_ext_write(&core_, pe, PMVP_FRAME_PMU, 0xE58, 4, v, &a, now_, nullptr);
            if (err == PMVP_OK)
                ref_->set_pmccr(pe, v, now_);
            else if (err != PMVP_ERR_PE_OFF || ref_->state(pe) != PMVP_PE_OFF)
                fail("PMCCR write refused: " + std::string(pmvp_strerror(err)));
            break;
        }
        pmvp_pmu_controls ctl{};
        unsigned hpmn = (unsigned)rnd(nc + 2);
        ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, hpmn) | (freeze_ && coin(70) ? PMVP_MDCR_EL2_HPME : 0);
        for (uint64_t b : { PMVP_MDCR_EL2_HPME, PMVP_MDCR_EL2_HPMD, PMVP_MDCR_EL2_HCCD, PMVP_MDCR_EL2_HLP,
                            PMVP_MDCR_EL2_MTPME, PMVP_MDCR_EL2_HPMFZO })
            ctl.mdcr_el2 |= coin() ? b : 0;
        for (uint64_t b :
             { PMVP_MDCR_EL3_SPME, PMVP_MDCR_EL3_SCCD, PMVP_MDCR_EL3_MTPME, PMVP_MDCR_EL3_MCCD, PMVP_MDCR_EL3_MPMX })
            ctl.mdcr_el3 |= coin() ? b : 0;
        if (cfg_.feat_pmuv3_ss) { /* who decides Capture events (Table D13-10) */
            ctl.mdcr_el2 |= PMVP_FIELD_PREP(PMVP_MDCR_EL2_PMSSE, coin() ? 1 : rnd(4));
            ctl.mdcr_el3 |= PMVP_FIELD_PREP(PMVP_MDCR_EL3_PMSSE, coin() ? 1 : coin() ? 3 : rnd(4));
            ctl.os_lock = coin(10);
        }
        ctl.sder32_el3 = coin() ? PMVP_SDER32_EL3_SUNIDEN : 0;
        ctl.scr_el3 = coin() ? PMVP_SCR_EL3_EEL2 : 0;
        ctl.secure_noninvasive_debug = coin();
        pmvp_core_set_controls(&core_, pe, &ctl, now_);
        ref_->set_controls(pe, ctl, now_);
        break;
    }
    case 10:
    case 11: {
        uint16_t ev = pick(report_pool);
        if (coin(15)) { /* shares of the cycles since an instant, maybe before the last input */
            std::vector<pmvp_share> shares(1 + rnd(3));
            bool ok_expected = true;
            for (pmvp_share &sh : shares) {
                sh.pe = &sh == &shares[0] ? pe : rnd(cfg_.num_pes);
                sh.event = &sh == &shares[0] ? ev : pick(report_pool);
                sh.count = coin(70) ? rnd(8) : rnd(20000);
                const pmvp_event_info *e = pmvp_event_find(sh.event);
                ok_expected = ok_expected && ref_->reportable(sh.event) && (!e || e->cls == PMVP_EVCLASS_OCCURRENCE) &&
                              ref_->state(sh.pe) != PMVP_PE_OFF;
            }
            pmvp_time since = now_ - std::min<pmvp_time>(now_, coin(50) ? rnd(3000) : rnd(3000000));
            int err = pmvp_core_report_shares(&core_, shares.data(), (unsigned)shares.size(), since, now_);
            if ((err == PMVP_OK) != ok_expected)
                fail("report_shares of " + std::to_string(shares.size()) + " shares returned " + pmvp_strerror(err));
            else if (err == PMVP_OK)
                ref_->report_shares(shares.data(), (unsigned)shares.size(), since, now_);
            break;
        }
        if (coin(30)) { /* batches spread over the cycles since the last input, in runs */
            std::vector<Core::Batch> batches(coin(60) ? 1 : 2 + rnd(2));
            std::vector<pmvp_batch> call;
            bool ok_expected = true;
            uint64_t longest = 0;
            for (Core::Batch &b : batches) {
                b.pe = &b == &batches[0] ? pe : rnd(cfg_.num_pes);
                b.event = &b == &batches[0] ? ev : pick(report_pool);
                b.runs.resize(1 + rnd(3));
                uint64_t total = 0;
                for (pmvp_run &r : b.runs) {
                    r.cycles = coin(20) ? 0 : 1 + rnd(coin(80) ? 30 : 3000);
                    r.per_cycle = (uint32_t)(coin(70) ? rnd(4) : rnd(5000));
                    total += r.cycles;
                }
                const pmvp_event_info *e = pmvp_event_find(b.event);
                ok_expected = ok_expected && total && ref_->reportable(b.event) &&
                              (!e || e->cls == PMVP_EVCLASS_OCCURRENCE) && ref_->state(b.pe) != PMVP_PE_OFF;
                longest = std::max(longest, total);
                call.push_back({ b.pe, b.event, b.runs.data(), (unsigned)b.runs.size() });
            }
            int err = pmvp_core_report_batches(&core_, call.data(), (unsigned)call.size(), now_);
            ok_expected = ok_expected && ref_->spread_window_fits(longest, now_);
            if ((err == PMVP_OK) != ok_expected)
                fail("report_batches of " + std::to_string(call.size()) + " batches over up to " +
                     std::to_string(longest) + " cycles returned " + pmvp_strerror(err));
            else if (err == PMVP_OK)
                ref_->report_batches(batches, now_);
            break;
        }
        uint64_t count = threshold_ && coin(80) ? rnd(4) : coin(90) ? rnd(300) : rnd(100000);
        // A report of fewer occurrences than events_to_interrupt says raises
        // no flag whose interrupt request is enabled, on any PE.
        uint64_t to_interrupt = 0;
        std::vector<uint64_t> quiet(cfg_.num_pes);
        const bool asked = pmvp_core_events_to_interrupt(&core_, pe, ev, now_, &to_interrupt) == PMVP_OK;
        bool predicted = asked && count < to_interrupt;
        // Asked with the instruction counter's event in one call, the same.
        const uint16_t pair[2] = { ev, PMVP_EV_INST_RETIRED };
        uint64_t each[2] = { 0, 0 }, inst = 0;
        if (asked && pmvp_core_events_to_interrupt_each(&core_, pe, pair, 2, now_, each) == PMVP_OK &&
            pmvp_core_events_to_interrupt(&core_, pe, PMVP_EV_INST_RETIRED, now_, &inst) == PMVP_OK) {
            result_.checks++;
            if (each[0] != to_interrupt || each[1] != inst)
                fail("events_to_interrupt_each said " + std::to_string(each[0]) + ", " + std::to_string(each[1]) +
                     " for events " + std::to_string(ev) + " and INST_RETIRED, one at a time " +
                     std::to_string(to_interrupt) + ", " + std::to_string(inst));
        }
        for (unsigned p = 0; predicted && p < cfg_.num_pes; p++)
            quiet[p] = ref_->read(p, PMVP_PMOVSSET_EL0, 0, now_);
        // The answer for any PE is the least of the PEs' answers.
        uint64_t any = 0, least = PMVP_EVENTS_NEVER;
        bool answered = pmvp_core_events_to_interrupt_any(&core_, ev, now_, &any) == PMVP_OK;
        for (unsigned q = 0; answered && q < cfg_.num_pes; q++) {
            uint64_t n = 0;
            answered = pmvp_core_events_to_interrupt(&core_, q, ev, now_, &n) == PMVP_OK;
            least = std::min(least, n);
        }
        if (answered) {
            result_.checks++;
            if (any != least)
                fail("events_to_interrupt_any said " + std::to_string(any) + " for event " + std::to_string(ev) +
                     ", the least over the PEs is " + std::to_string(least));
        }
        int err = pmvp_core_report(&core_, pe, ev, count, now_);
        const pmvp_event_info *e = pmvp_event_find(ev);
        bool ok_expected =
            ref_->reportable(ev) && (!e || e->cls == PMVP_EVCLASS_OCCURRENCE) && ref_->state(pe) != PMVP_PE_OFF;
        if ((err == PMVP_OK) != ok_expected)
            fail(std::string("report returned ") + pmvp_strerror(err));
        else if (err == PMVP_OK)
            ref_->report(pe, ev, count, now_);
        for (unsigned p = 0; predicted && err == PMVP_OK && p < cfg_.num_pes; p++) {
            uint64_t rose =
                ref_->read(p, PMVP_PMOVSSET_EL0, 0, now_) & ~quiet[p] & ref_->read(p, PMVP_PMINTENSET_EL1, 0, now_);
            result_.checks++;
            if (rose) {
                std::ostringstream s;
                s << "events_to_interrupt said " << to_interrupt << " for " << count << " occurrences of event 0x"
                  << std::hex << ev << ", but PE " << p << " raised flags " << rose;
                fail(s.str());
            }
        }
        break;
    }
    case 12:
    case 13: {
        // Half the time a level one of the PE's counters counts, if any:
        // its followers take the rate of the new value.
        auto level_of = [&](unsigned p) {
            uint16_t ev = pick(level_pool);
            for (unsigned k = 0; k < 4 && cfg_.num_counters && coin(); k++) {
                unsigned n = (unsigned)rnd(cfg_.num_counters);
                uint16_t counted =
                    (uint16_t)PMVP_FIELD_GET(PMVP_PMEVTYPER_EL0_evtCount, ref_->read(p, PMVP_PMEVTYPER_EL0, n, now_));
                if (std::find(level_pool.begin(), level_pool.end(), counted) != level_pool.end())
                    return counted;
            }
            return ev;
        };
        // A third of the time, up to three changes of this instant, of any
        // PEs, at once (pmvp_core_set_levels): all made or none.
        pmvp_level_change changes[3];
        unsigned n = rnd(3) == 0 ? 1 + (unsigned)rnd(3) : 1;
        bool supported = true;
        for (unsigned k = 0; k < n; k++) {
            unsigned p = k == 0 ? pe : (unsigned)rnd(cfg_.num_pes);
            changes[k] = { p, level_of(p), (uint32_t)rnd(4) };
            supported = supported && ref_->reportable(changes[k].event);
        }
        int err = n == 1 ? pmvp_core_set_level(&core_, pe, changes[0].event, changes[0].level, now_)
                         : pmvp_core_set_levels(&core_, changes, n, now_);
        if (err == PMVP_OK && !supported)
            fail("set_levels took a level event the core does not report");
        else if (err == PMVP_OK)
            for (unsigned k = 0; k < n; k++)
                ref_->set_level(changes[k].pe, changes[k].event, changes[k].level, now_);
        if (err != PMVP_OK && supported)
            fail("set_level refused a supported level event");
        break;
    }
    case 16:
    case 17: {
        if (!cfg_.feat_amuv1)
            break;
        static const pmvp_amu_reg regs[] = { PMVP_AMCR_EL0,        PMVP_AMCNTENSET0_EL0, PMVP_AMCNTENSET0_EL0,
                                             PMVP_AMCNTENCLR0_EL0, PMVP_AMCNTENSET1_EL0, PMVP_AMCNTENCLR1_EL0,
                                             PMVP_AMEVCNTR0_EL0,   PMVP_AMEVCNTR1_EL0,   PMVP_AMEVTYPER1_EL0 };
        pmvp_amu_reg r = regs[rnd(sizeof regs / sizeof regs[0])];
        bool group1 = r == PMVP_AMEVCNTR1_EL0 || r == PMVP_AMEVTYPER1_EL0;
        if (group1 && cfg_.amu_num_aux == 0)
            break;
        unsigned n = (unsigned)rnd(group1 ? cfg_.amu_num_aux : 4);
        uint64_t v = r == PMVP_AMEVTYPER1_EL0                               ? pick(amu_aux_pool())
                     : (r == PMVP_AMEVCNTR0_EL0 || r == PMVP_AMEVCNTR1_EL0) ? near_overflow()
                                                                            : rng_();
        if (pmvp_amu_write(&core_, pe, r, n, v, now_) != PMVP_OK)
            fail(std::string("AMU write of ") + pmvp_amu_reg_name(r) + " refused");
        ref_->amu_write(pe, r, n, v, now_);
        break;
    }
    case 14:
        if (cfg_.mt_policy == PMVP_MT_SOEMT) {
            pmvp_core_set_active_thread(&core_, pe, now_);
            ref_->set_active_thread(pe, now_);
        }
        break;
    default: compare("check point"); break;
    }
}

bool Scenario::compare_amu(const char *where, unsigned p)
{
    struct Item {
        pmvp_amu_reg reg;
        unsigned n;
    };
    std::vector<Item> items = { { PMVP_AMCR_EL0, 0 }, { PMVP_AMCNTENSET0_EL0, 0 }, { PMVP_AMCNTENSET1_EL0, 0 } };
    for (unsigned n = 0; n < 4; n++)
        items.push_back({ PMVP_AMEVCNTR0_EL0, n });
    for (unsigned n = 0; n < cfg_.amu_num_aux; n++) {
        items.push_back({ PMVP_AMEVCNTR1_EL0, n });
        items.push_back({ PMVP_AMEVTYPER1_EL0, n });
    }
    for (const Item &i : items) {
        uint64_t k = 0;
        int err = pmvp_amu_read(&core_, p, i.reg, i.n, now_, &k);
        uint64_t e = ref_->amu_read(p, i.reg, i.n, now_);
        result_.checks++;
        if (err || k != e) {
            std::ostringstream s;
            s << where << ": PE " << p << " " << pmvp_amu_reg_name(i.reg) << "[" << i.n << "] kernel " << std::hex << k
              << " reference " << e << " (" << pmvp_strerror(err) << ")";
            return fail(s.str());
        }
    }
    return true;
}

void Scenario::compare(const char *where)
{
    std::vector<pmvp_pmu_reg> regs = {
        PMVP_PMCR_EL0,      PMVP_PMCNTENSET_EL0, PMVP_PMINTENSET_EL1, PMVP_PMOVSSET_EL0,
        PMVP_PMSELR_EL0,    PMVP_PMCEID0_EL0,    PMVP_PMCEID1_EL0,    PMVP_PMCCNTR_EL0,
        PMVP_PMCCFILTR_EL0, PMVP_PMXEVTYPER_EL0, PMVP_PMXEVCNTR_EL0,  PMVP_PMUSERENR_EL0
    };
    if (cfg_.feat_pmuv3_icntr)
        regs.insert(regs.end(), { PMVP_PMICNTR_EL0, PMVP_PMICFILTR_EL0 });
    if (cfg_.feat_pmuv3_ss)
        regs.insert(regs.end(), { PMVP_PMECR_EL1, PMVP_PMSSCR_EL1, PMVP_PMCCNTSVR_EL1 });
    if (cfg_.feat_pmuv3_ss && cfg_.feat_pmuv3_icntr)
        regs.push_back(PMVP_PMICNTSVR_EL1);
    if (ref_->any_frozen())
        result_.frozen++;
    // First the pure queries, while the kernel is still behind now_: they
    // advance a copy of a PE (k_pe_at), the reads the core itself.
    for (unsigned p = 0; p < cfg_.num_pes; p++)
        for (unsigned n = 0; n <= cfg_.num_counters; n++) {
            pmvp_pmu_reg r = n == cfg_.num_counters ? PMVP_PMCCNTR_EL0 : PMVP_PMEVCNTR_EL0;
            uint64_t k = 0;
            int err = pmvp_pmu_peek(&core_, p, r, n, now_, &k);
            uint64_t e = ref_->read(p, r, n, now_);
            result_.checks++;
            if (err || k != e) {
                std::ostringstream s;
                s << where << ": peek of PE " << p << " " << pmvp_pmu_reg_name(r) << "[" << n << "] kernel " << std::hex
                  << k << " reference " << e << " (" << pmvp_strerror(err) << ")";
                fail(s.str());
                return;
            }
        }
    for (unsigned p = 0; p < cfg_.num_pes; p++) {
        for (pmvp_pmu_reg r : regs) {
            uint64_t k = 0;
            int err = pmvp_pmu_read(&core_, p, r, 0, now_, &k);
            uint64_t e = ref_->read(p, r, 0, now_);
            result_.checks++;
            if (err || k != e) {
                std::ostringstream s;
                s << where << ": PE " << p << " " << pmvp_pmu_reg_name(r) << " kernel " << std::hex << k
                  << " reference " << e << " (" << pmvp_strerror(err) << ")";
                fail(s.str());
                return;
            }
        }
        for (unsigned n = 0; n < cfg_.num_counters; n++) {
            for (pmvp_pmu_reg r : { PMVP_PMEVCNTR_EL0, PMVP_PMEVTYPER_EL0, PMVP_PMEVCNTSVR_EL1 }) {
                if (r == PMVP_PMEVCNTSVR_EL1 && !cfg_.feat_pmuv3_ss)
                    continue;
                uint64_t k = 0;
                pmvp_pmu_read(&core_, p, r, n, now_, &k);
                uint64_t e = ref_->read(p, r, n, now_);
                result_.checks++;
                if (k != e) {
                    std::ostringstream s;
                    s << where << ": PE " << p << " " << pmvp_pmu_reg_name(r) << "[" << n << "] kernel " << std::hex
                      << k << " reference " << e;
                    fail(s.str());
                    return;
                }
            }
        }
        if (cfg_.feat_amuv1 && !compare_amu(where, p))
            return;
        bool level = false;
        pmvp_pmu_irq(&core_, p, now_, &level);
        result_.checks++;
        if (level != ref_->irq(p, now_)) {
            fail(std::string(where) + ": PMUIRQ of PE " + std::to_string(p) + " differs");
            return;
        }
    }
}

// The kernel goes on from its own checkpoint: saved, restored into a core
// initialised afresh, and that core replaces it. The reference model does
// not notice, so any state the checkpoint loses shows as a divergence.
bool Scenario::checkpoint_and_restore()
{
    std::vector<uint8_t> buf(pmvp_core_checkpoint_size(&core_));
    if (int err = pmvp_core_save(&core_, buf.data(), buf.size()))
        return fail(std::string("checkpoint: ") + pmvp_strerror(err));
    auto fresh = std::make_unique<pmvp_core>();
    if (int err = pmvp_core_init(fresh.get(), &cfg_))
        return fail(std::string("init for the restore: ") + pmvp_strerror(err));
    const char *why = nullptr;
    if (int err = pmvp_core_restore(fresh.get(), buf.data(), buf.size(), &why))
        return fail(std::string("restore: ") + (why ? why : pmvp_strerror(err)));
    pmvp_core_copy(&core_, fresh.get());
    return true;
}

ScenarioResult Scenario::run()
{
    make_config();
    if (int err = pmvp_core_init(&core_, &cfg_)) {
        fail(std::string("init: ") + pmvp_strerror(err));
        return result_;
    }
    ref_ = std::make_unique<Core>(cfg_);
    if (freeze_)
        arm_freeze();
    unsigned steps = 20 + (unsigned)rnd(60);
    for (unsigned i = 0; i < steps && result_.ok; i++) {
        step();
        if (rnd(8) == 0 && !checkpoint_and_restore())
            break;
        pmvp_time predicted = 0, predicted_irq = 0;
        pmvp_core_next_event(&core_, now_, &predicted);
        pmvp_core_next_interrupt(&core_, now_, &predicted_irq);
        ref_->query(now_); /* the kernel's present is now_ too */
        pmvp_time before = now_;
        switch (rnd(threshold_ ? 5 : 10)) {
        case 0: break;                    /* several changes at one instant */
        case 1: now_ += rnd(1000); break; /* or in one processor cycle */
        default: now_ += rnd(200000); break;
        }
        ref_->advance(now_);
        // The first overflow flag that an edge raised after `before` must be
        // the one predicted; none up to now_ means the prediction is later.
        for (bool interrupting : { false, true }) {
            pmvp_time rise = ref_->first_rise_since(before + 1, interrupting);
            pmvp_time p = interrupting ? predicted_irq : predicted;
            result_.checks++;
            if (result_.ok && (rise <= now_ ? p != rise : p <= now_)) {
                std::ostringstream s;
                s << (interrupting ? "next_interrupt" : "next_event") << " after t=" << before << " predicted " << p
                  << ", reference flag rose at " << rise;
                fail(s.str());
            }
        }
    }
    if (result_.ok)
        compare("end");
    return result_;
}

}  // namespace

ScenarioResult run_scenario(uint64_t seed)
{
    return Scenario(seed).run();
}

}  // namespace pmvp::ref
