// SPDX-License-Identifier: Apache-2.0
#include "sebep_platform.h"
#include "progress.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "pmvp/systemc/monitors.h"
#include "report.h"

extern "C" {
#include "pmvp/error.h"
#include "pmvp/fields.h"
}

namespace pmvp::soc {

namespace {

using sc_core::sc_time;

// Event counter 0 overflows at 2^32 (PMCR.LP == 0), the instruction counter
// at 2^64 (RFBGFH), which a uint64_t holds as 0.
constexpr uint64_t kEventWrap = uint64_t{ 1 } << 32;
constexpr uint64_t kCodeBase = 0x400000;  // the sampled loop's first instruction
constexpr unsigned kLoopLength = 64;      // instructions in the loop

// One profile: the monitors of one PE and the CPU model that runs it.
struct SebepRun : sc_core::sc_module {
    SC_HAS_PROCESS(SebepRun);

    // resume_at above 0: a restored run (state()).
    SebepRun(const sc_core::sc_module_name &n, const Scenario &s, const SebepProfile &p, pmvp_time resume_at)
        : sc_module(n), s_(s), x_(*s.sebep), resume_at_(resume_at),
          monitors_("monitors", config(*s.sebep, p, thresholds_))
    {
        SC_THREAD(cpu);
    }

    static pmvp_core_config config(const SebepSetup &x, const SebepProfile &p, pmvp_sebep_threshold &t)
    {
        pmvp_core_config cfg;
        pmvp_core_config_default(&cfg);
        cfg.processor_hz = x.hz;
        cfg.feat_ebep = cfg.feat_sebep = true;
        cfg.feat_pmuv3_icntr = x.instruction_counter;
        cfg.inaccuracy = p.inaccuracy;
        t = { x.event, p.headroom };
        cfg.sebep_thresholds = &t;
        cfg.num_sebep_thresholds = 1;
        return cfg;
    }

    static void must(int err, const char *what)
    {
        if (err != PMVP_OK)
            throw std::runtime_error(std::string("sebep: ") + what + ": " + pmvp_strerror(err));
    }

    void context(uint8_t el, bool pm, const sc_time &at)
    {
        pmvp_context x{};
        x.el = el;
        x.pm = pm;
        must(monitors_.set_context(0, x, at), "set_context");
    }

    void write(pmvp_pmu_reg r, unsigned n, uint64_t v, const sc_time &at)
    {
        must(monitors_.pmu_write(0, r, n, v, at), pmvp_pmu_reg_name(r));
    }

    uint64_t read(pmvp_pmu_reg r, unsigned n, const sc_time &at)
    {
        uint64_t v = 0;
        must(monitors_.pmu_read(0, r, n, v, at), pmvp_pmu_reg_name(r));
        return v;
    }

    // The sampling counter: its register, its bit in PMOVS, PMINTEN and
    // PMCNTEN (P0 or F0), and where it overflows.
    pmvp_pmu_reg counter_reg() const { return x_.instruction_counter ? PMVP_PMICNTR_EL0 : PMVP_PMEVCNTR_EL0; }
    uint64_t counter_bit() const { return x_.instruction_counter ? PMVP_PMU_F0 : 1; }
    uint64_t wrap() const { return x_.instruction_counter ? 0 : kEventWrap; }

    // The handler's re-arm and its exception return, a Context
    // synchronization event (where the threshold is looked at).
    void arm(const sc_time &at)
    {
        write(PMVP_PMOVSCLR_EL0, 0, counter_bit(), at);
        write(counter_reg(), 0, wrap() - x_.sample_period, at);
        context(0, false, at);
        must(monitors_.context_sync(0, at), "context_sync");
    }

    // Firmware at EL1 enables the PMU exception at EL1 (EL3 and EL2 leave
    // it to PMECR_EL1) and the sampling counter in synchronous mode (counter
    // 0 by PMEVTYPER0_EL0.SYNC, the instruction counter by
    // PMICFILTR_EL0.SYNC), then the CPU model
    // retires instructions at EL0, synchronising every quantum. A restored
    // run goes on from the end of the quantum the checkpoint found it in.
    void cpu()
    {
        sc_time local = sc_core::SC_ZERO_TIME;
        if (resume_at_)
            sc_core::wait(sc_time::from_value(wake_));
        else
            set_up(local);
        const sc_time step = sc_time::from_value(x_.instruction_time);
        const sc_time quantum(1, sc_core::SC_US), end = sc_time::from_value(s_.duration);
        while (sc_core::sc_time_stamp() + local + step <= end) {
            local += step;
            uint64_t pc = kCodeBase + 4 * (next_++ % kLoopLength);
            pmvp_retire_result r{};
            must(monitors_.retire(0, x_.event, 1, pc, r, local), "retire");
            since_armed_++;
            if (r.ppend)
                take_sample(local);
            if (local >= quantum) {
                wake_ = (sc_core::sc_time_stamp() + local).value();
                sc_core::wait(local);
                local = sc_core::SC_ZERO_TIME;
            }
        }
        wake_ = (sc_core::sc_time_stamp() + local).value();
        sc_core::wait(local);
    }

    void set_up(sc_time &local)
    {
        pmvp_pmu_controls ctl{};
        ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 6) | PMVP_FIELD_PREP(PMVP_MDCR_EL2_PMEE, PMVP_PMEE_LOWER);
        ctl.mdcr_el3 = PMVP_FIELD_PREP(PMVP_MDCR_EL3_PMEE, PMVP_PMEE_LOWER);
        must(monitors_.set_controls(0, ctl), "set_controls");
        write(PMVP_PMECR_EL1, 0, PMVP_PMECR_EL1_KPME | PMVP_PMEE_ENABLED, local);
        if (x_.instruction_counter)
            write(PMVP_PMICFILTR_EL0, 0, PMVP_PMEVTYPER_EL0_SYNC, local);
        else
            write(PMVP_PMEVTYPER_EL0, 0, x_.event | PMVP_PMEVTYPER_EL0_SYNC, local);
        write(PMVP_PMINTENSET_EL1, 0, counter_bit(), local);
        write(PMVP_PMCNTENSET_EL0, 0, counter_bit(), local);
        write(PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E, local);
        arm(local);
    }

    // The PMU exception, taken before the next instruction: the handler at
    // EL1 (PSTATE.PM set on entry) records where the sample lies and re-arms.
    void take_sample(sc_time &local)
    {
        context(1, true, local);
        samples.shift.push_back(since_armed_ - x_.sample_period);
        samples.overshoot.push_back(read(counter_reg(), 0, local) - wrap());
        samples.pmiar.push_back(read(PMVP_PMIAR_EL1, 0, local));
        local += sc_time::from_value(x_.handler_time);
        arm(local);
        since_armed_ = 0;
    }

    SebepSamples samples;

    // Checkpoint (checkpoint.h): the monitors, where the CPU model is in
    // its loop, and the samples taken.
    template <class A> void state(A &a)
    {
        monitors_field(a, monitors_, monitors_checkpoint_);
        a("instructions retired", next_);
        a("instructions since the re-arm", since_armed_);
        a("quantum end", wake_);
        if (wake_ + x_.instruction_time <= s_.duration)  // else its loop is over
            a.not_before("quantum end", wake_, resume_at_);
        a("sample shifts", samples.shift);
        a("sample overshoots", samples.overshoot);
        a("sample PMIARs", samples.pmiar);
        if (samples.overshoot.size() != samples.shift.size() || samples.pmiar.size() != samples.shift.size())
            throw CheckpointError("the checkpoint's samples are not all of one length");
    }
    void restore_monitors() { pmvp::soc::restore_monitors(monitors_, monitors_checkpoint_); }

private:
    const Scenario &s_;
    const SebepSetup &x_;
    const pmvp_time resume_at_;
    pmvp_sebep_threshold thresholds_{};
    pmvp::sc::Monitors monitors_;
    uint64_t next_ = 0;                         // instructions retired so far (the next one's index)
    uint64_t since_armed_ = 0;                  // instructions since the counter was last armed
    pmvp_time wake_ = 0;                        // the instant the process waits for
    std::vector<uint8_t> monitors_checkpoint_;  // loaded, until restore_monitors
};

// Every profile, each a SebepRun.
struct SebepRuns : Checkpointed {
    std::vector<std::unique_ptr<SebepRun>> runs;
    void save(Saver &a) override { state(a); }
    void load(Loader &a) override { state(a); }
    void restore_monitors() override
    {
        for (auto &r : runs)
            r->restore_monitors();
    }
    template <class A> void state(A &a)
    {
        a.count("profiles", runs.size());
        for (auto &r : runs)
            r->state(a);
    }
};

}  // namespace

std::vector<SebepSamples> run_sebep(const Scenario &s, const CheckpointPlan &plan)
{
    SebepRuns platform;
    for (size_t i = 0; i < s.sebep->profiles.size(); i++)
        platform.runs.push_back(std::make_unique<SebepRun>(("profile" + std::to_string(i)).c_str(), s,
                                                           s.sebep->profiles[i], plan.resume_at));
    spawn_watch(plan.resume_at, s.duration);
    simulate(platform, plan);
    std::vector<SebepSamples> out;
    for (auto &r : platform.runs)
        out.push_back(std::move(r->samples));
    return out;
}

namespace {

struct Summary {
    uint64_t min = 0, max = 0, sum = 0;
    bool overshoot_agrees = true;  // the counter's overshoot equals the instructions counted
};

Summary summarise(const SebepSamples &k)
{
    Summary m;
    if (!k.shift.empty()) {
        m.min = *std::min_element(k.shift.begin(), k.shift.end());
        m.max = *std::max_element(k.shift.begin(), k.shift.end());
    }
    for (size_t i = 0; i < k.shift.size(); i++) {
        m.sum += k.shift[i];
        m.overshoot_agrees = m.overshoot_agrees && k.shift[i] == k.overshoot[i];
    }
    return m;
}

std::string bound_text(const SebepProfile &p)
{
    if (!p.inaccuracy.shadow_events)
        return "exact";
    std::string t = "shadow <= " + std::to_string(p.inaccuracy.shadow_events) + " events";
    if (p.inaccuracy.shadow_time)
        t += " or " + time_text(p.inaccuracy.shadow_time);
    t += p.inaccuracy.draw == PMVP_DRAW_BOUND ? ", at the bound" : ", seed " + std::to_string(p.inaccuracy.seed);
    return t + ", headroom " + std::to_string(p.headroom);
}

}  // namespace

void print_sebep_report(FILE *out, const Scenario &s, const std::vector<SebepSamples> &samples)
{
    const SebepSetup &x = *s.sebep;
    std::fprintf(out, "pmvp-soc: %s: synchronous sampling of %s every %llu by %s, %s simulated\n", s.name.c_str(),
                 pmvp_event_find(x.event) ? pmvp_event_find(x.event)->name : "event",
                 (unsigned long long)x.sample_period,
                 x.instruction_counter ? "the instruction counter" : "event counter 0", time_text(s.duration).c_str());
    std::fprintf(out, "  %s processor clock, one instruction every %s, handler %s\n\n", hz_text((double)x.hz).c_str(),
                 time_text(x.instruction_time).c_str(), time_text(x.handler_time).c_str());
    std::fprintf(out, "  %-14s %-48s %8s %10s %10s %10s  %s\n", "profile", "inaccuracy", "samples", "min shift",
                 "max shift", "mean", "overshoot = shift");
    for (size_t i = 0; i < samples.size(); i++) {
        Summary m = summarise(samples[i]);
        size_t n = samples[i].shift.size();
        std::fprintf(out, "  %-14s %-48s %8zu %10llu %10llu %10.2f  %s\n", x.profiles[i].name.c_str(),
                     bound_text(x.profiles[i]).c_str(), n, (unsigned long long)m.min, (unsigned long long)m.max,
                     n ? (double)m.sum / (double)n : 0.0, m.overshoot_agrees ? "yes" : "NO");
    }
}

nlohmann::json sebep_report_json(const Scenario &s, const std::vector<SebepSamples> &samples)
{
    nlohmann::json profiles = nlohmann::json::array();
    for (size_t i = 0; i < samples.size(); i++) {
        const SebepProfile &p = s.sebep->profiles[i];
        Summary m = summarise(samples[i]);
        profiles.push_back({ { "name", p.name },
                             { "shadow_events", p.inaccuracy.shadow_events },
                             { "shadow_time_ps", p.inaccuracy.shadow_time },
                             { "draw", p.inaccuracy.draw == PMVP_DRAW_BOUND ? "bound" : "seeded" },
                             { "seed", p.inaccuracy.seed },
                             { "headroom", p.headroom },
                             { "samples", samples[i].shift.size() },
                             { "min_shift", m.min },
                             { "max_shift", m.max },
                             { "overshoot_equals_shift", m.overshoot_agrees },
                             { "shift", samples[i].shift },
                             { "pmiar", samples[i].pmiar } });
    }
    return { { "sebep",
               { { "counter", s.sebep->instruction_counter ? "instruction" : "event" },
                 { "sample_period", s.sebep->sample_period },
                 { "profiles", profiles } } } };
}

}  // namespace pmvp::soc
