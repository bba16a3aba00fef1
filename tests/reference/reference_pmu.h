// SPDX-License-Identifier: Apache-2.0
//
// A deliberately naive per-cycle reference model of a core's PMUs, written
// straight from the rules of the Arm ARM (D13.3, D13.5-D13.7, D14.4) and kept
// apart from the kernel's code: it walks every edge of every clock, one at a
// time, and asks of each counter "does it count this cycle, and by how much".
// It shares only data with the kernel (the configuration struct, the event
// catalogue and register field masks), never a rule.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "pmvp/amu.h"
#include "pmvp/core.h"
#include "pmvp/events.h"
#include "pmvp/fields.h"
#include "pmvp/pmu.h"

namespace pmvp::ref {

// One clock, stepped edge by edge.
struct Clock {
    uint64_t hz = 0;
    pmvp_time t0 = 0;     // instant of the last frequency change
    uint64_t phase0 = 0;  // elapsed fraction of a cycle at t0, in ps*Hz (< 10^12)
    uint64_t since = 0;   // edges since t0

    // The instant of the next edge, or PMVP_TIME_NEVER.
    pmvp_time next_edge() const;
    void set_hz(uint64_t new_hz, pmvp_time now);
};

class Core {
public:
    explicit Core(const pmvp_core_config &cfg);

    // Inputs, mirroring the kernel API. Each first advances to `now`.
    void set_clock(uint64_t hz, pmvp_time now);
    void set_bus_clock(uint64_t hz, pmvp_time now);
    void set_pe_state(unsigned pe, pmvp_pe_state st, pmvp_time now);
    void set_context(unsigned pe, const pmvp_context &ctx, pmvp_time now);
    void set_active_thread(unsigned pe, pmvp_time now);
    void set_controls(unsigned pe, const pmvp_pmu_controls &ctl, pmvp_time now);
    // PMCCR written by the external agent (FEAT_PMUv3_EXTPMN, I5.3.47).
    void set_pmccr(unsigned pe, uint64_t value, pmvp_time now);
    void report(unsigned pe, uint16_t event, uint64_t count, pmvp_time now);
    // Batches spread over the last processor cycles completed by `now`,
    // run by run (pmvp_core_report_batches): each cycle of a run generates
    // its per_cycle occurrences in that cycle. The caller has checked that
    // every window lies after the last input (spread_window_fits).
    struct Batch {
        unsigned pe;
        uint16_t event;
        std::vector<pmvp_run> runs;
    };
    void report_batches(const std::vector<Batch> &batches, pmvp_time now);
    // Shares over the processor cycles of (since, now], since taken as the
    // last input's instant when earlier, each spread evenly with its extra
    // occurrences first; with no cycle there, reports at `now`
    // (pmvp_core_report_shares).
    void report_shares(const pmvp_share *shares, unsigned n, pmvp_time since, pmvp_time now);
    // Whether `cycles` processor cycles complete between the last input and
    // `now`, with the processor clock running.
    bool spread_window_fits(uint64_t cycles, pmvp_time now) const;
    void set_level(unsigned pe, uint16_t event, uint32_t level, pmvp_time now);
    void write(unsigned pe, pmvp_pmu_reg reg, unsigned n, uint64_t value, pmvp_time now);
    uint64_t read(unsigned pe, pmvp_pmu_reg reg, unsigned n, pmvp_time now);
    bool irq(unsigned pe, pmvp_time now);
    // The AMU of a PE (D16), through the registers the kernel's AMU API has.
    void amu_write(unsigned pe, pmvp_amu_reg reg, unsigned n, uint64_t value, pmvp_time now);
    uint64_t amu_read(unsigned pe, pmvp_amu_reg reg, unsigned n, pmvp_time now);

    // A call that changes nothing at `now`, as a query of the kernel's next
    // event is: a later batch spread may not reach back before it.
    void query(pmvp_time now) { input(now); }
    // Walks every clock edge up to and including `now`; not an input, so a
    // later batch spread (report_runs) may reach back before `now`.
    void advance(pmvp_time now);

    // The first instant, at or after `from`, at which an overflow flag rose
    // because of a clock edge, as observed by advance(); PMVP_TIME_NEVER if none.
    // `interrupting`: only the flags whose PMINTENSET bit was set.
    pmvp_time first_rise_since(pmvp_time from, bool interrupting = false) const;
    // Whether freeze on overflow stops some counter of some PE now.
    bool any_frozen() const;

    bool supported(uint16_t event) const;
    // Whether the CPU model may report the event: supported, or counted by
    // the AMU's architected counters.
    bool reportable(uint16_t event) const;
    pmvp_pe_state state(unsigned pe) const { return pe_[pe].state; }

private:
    struct Counter {
        uint64_t value = 0, evtyper = 0;
        // D13.8: the occurrences reported in the processor cycle in
        // progress (part of its V_B), and C_P, the threshold condition of
        // the last cycle if counting was allowed on it.
        uint64_t pending = 0;
        bool cp = false;
    };
    // The Effective threshold controls of a counter (D13.8, D24.5.12).
    struct Threshold {
        bool on = false, te = false;
        unsigned tc = 0, tlc = 0;
        uint64_t th = 0;
        uint64_t slots = 0;  // STALL_SLOT with MT == 1: PMMIR.SLOTS, its V_B the unoccupied Slots
    };
    struct Pe {
        pmvp_pe_state state = PMVP_PE_RUN;
        pmvp_context ctx{};
        std::map<uint16_t, uint32_t> level;
        pmvp_pmu_controls ctl{};
        uint64_t pmcr = 0, pmccfiltr = 0, pmccntr = 0, pmuserenr = 0;
        uint64_t cnten = 0, inten = 0, ovs = 0;  // P<n>, C (31), F0 (32)
        uint64_t pmccr = 0;                      // FEAT_PMUv3_EXTPMN: EPMN, EPME, OSLO
        uint32_t pmselr = 0;
        // The overflow flags as the instant began: a freeze on overflow
        // takes effect after the instant of the overflow (pmvp's choice of
        // what D13.5.2.1 leaves CONSTRAINED UNPREDICTABLE).
        uint64_t ovs_at_instant = 0;
        // FEAT_PMUv3_ICNTR: the instruction counter and its filter.
        uint64_t pmicntr = 0, pmicfiltr = 0;
        // FEAT_PMUv3_SS: PMECR_EL1 (its SSE), PMSSCR_EL1 (NC resets to 1)
        // and the snapshot registers.
        uint64_t pmecr = 0, pmsscr = PMVP_PMSSCR_EL1_NC, evsvr[PMVP_MAX_COUNTERS] = {}, ccsvr = 0, icsvr = 0;
        unsigned divider = 0;
        Counter c[PMVP_MAX_COUNTERS];
        // AMU: group 0 (architected) and group 1 (auxiliary) counters.
        uint64_t amcr = 0, am0[4] = {}, am1[16] = {};
        uint32_t amen0 = 0, amen1 = 0;
        uint16_t amtype1[16] = {};
    };

    void processor_edge(pmvp_time t);
    void clock_edge(pmvp_event_class cls, pmvp_time t);
    uint64_t weight_this_cycle(unsigned p, unsigned n) const;
    bool cycle_counter_counts_this_cycle(unsigned p) const;
    bool counter_counts(unsigned p, unsigned n, const pmvp_context &src) const;
    bool instruction_counter_counts(unsigned p, const pmvp_context &src) const;
    bool frozen(const Pe &pe, unsigned n) const;
    // The inputs of an instant are over: its flags are those the next sees.
    void instant_over();
    bool prohibited(const Pe &pe, bool second_range, const pmvp_context &x) const;
    bool filtered(uint64_t f, const pmvp_context &x) const;
    unsigned hpmn(const Pe &pe) const;
    unsigned epmn(const Pe &pe) const;
    // 1, 2 or 3: the range of counter n (D13.1.1).
    int range(const Pe &pe, unsigned n) const;
    bool long_counter(const Pe &pe, unsigned n) const;
    bool mt(unsigned p, unsigned n) const;
    bool active(unsigned p) const;
    bool clock_stopped() const;
    int event_class(uint16_t ev) const;
    void add(unsigned p, unsigned n, uint64_t inc, pmvp_time t, bool from_edge);
    Threshold threshold(unsigned p, unsigned n) const;
    // Whether counter n's per-cycle value is followed: its threshold
    // function is on, or counter n + 1 links to it.
    bool tracked(unsigned p, unsigned n) const;
    uint64_t unoccupied_slots(unsigned p, unsigned n, uint64_t slots, uint64_t v) const;
    // D13.8's "counting allowed" on the current cycle.
    bool allowed(unsigned p, unsigned n) const;
    // `count` occurrences for counter n, counted now or part of V_B.
    void occur(unsigned p, unsigned n, uint64_t count, pmvp_time t);
    void afresh(unsigned p, unsigned n);
    // The event counters of every PE that count `count` occurrences of
    // `event` generated by PE pe (MT == 1 for the others').
    void count_occurrences(unsigned pe, uint16_t event, uint64_t count, pmvp_time now);
    // D13.9: a Capture event requested of PE p.
    void capture(unsigned p, pmvp_time now);
    void add_cycle_counter(unsigned p, uint64_t inc, pmvp_time t);
    void flag(unsigned p, uint64_t bit, pmvp_time t, bool from_edge);
    // How much an AMU counter counting `ev` on PE p gains from one edge of a
    // clock whose events are of class `edge`.
    uint64_t amu_gain(unsigned p, uint16_t ev, pmvp_event_class edge) const;
    void amu_edge(pmvp_event_class edge);
    uint32_t counters_mask() const;
    int selected(unsigned p, bool cycle_allowed) const;

    // The occurrences report_batches puts on the cycle being walked, by
    // batch.
    struct Spread {
        unsigned pe = 0;
        uint16_t event = 0;
        uint32_t per_cycle = 0;
    };
    std::vector<Spread> spread_;
    // The occurrences of `ev` that PE q's batches put on this cycle.
    uint64_t spread_of(unsigned q, uint16_t ev) const;
    // The instant of the k-th processor clock edge after now_ (k >= 1).
    pmvp_time edge_after_now(uint64_t k) const;
    // Walks every clock edge up to and including `now`.
    void walk(pmvp_time now);
    // An input at `now`: walks there, which is now the last input's instant.
    void input(pmvp_time now);
    // The model as it was at the last input, once advance() walked past it.
    std::shared_ptr<const Core> at_input_;

    pmvp_core_config cfg_;
    std::vector<uint16_t> events_;
    Clock proc_, bus_, syscnt_;
    uint64_t k_ = 0;  // processor cycles that have happened
    unsigned active_thread_ = 0;
    pmvp_time now_ = 0;
    std::vector<pmvp_time> rises_, interrupting_rises_;
    Pe pe_[PMVP_MAX_PES];
};

}  // namespace pmvp::ref
