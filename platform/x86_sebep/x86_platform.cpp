// SPDX-License-Identifier: Apache-2.0
#include "x86_platform.h"
#include "progress.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "pmvp/systemc/x86_monitors.h"
#include "report.h"

extern "C" {
#include "pmvp/error.h"
}

namespace pmvp::soc {

namespace {

using sc_core::sc_time;

// The counters the firmware programs on every logical processor.
constexpr unsigned kThreadP = 0, kThreadAny = 1, kRefXclk = 2, kOneThreadActive = 3;
constexpr unsigned kCountersNeeded = 4;

// The x86 core with its CPU models, P-state control and firmware.
struct X86Platform : sc_core::sc_module, Checkpointed {
    SC_HAS_PROCESS(X86Platform);

    // resume_at above 0: a restored run (Checkpointed).
    X86Platform(const sc_core::sc_module_name &n, const Scenario &s, pmvp_time resume_at)
        : sc_module(n), s_(s), resume_at_(resume_at), monitors_("monitors", s.x86->config),
          halt_("halt", s.x86->config.num_threads), deep_("deep_sleep", s.x86->config.num_threads),
          lp_(s.x86->config.num_threads)
    {
        monitors_.core_hz(core_hz_);
        core_hz_.write(s.x86->config.core_hz);
        for (unsigned lp = 0; lp < num_threads(); lp++) {
            monitors_.halt[lp](halt_[lp]);
            monitors_.deep_sleep[lp](deep_[lp]);
            sc_core::sc_spawn([this, lp] { cpu(lp); }, ("cpu" + std::to_string(lp)).c_str());
        }
        SC_THREAD(firmware);
        SC_THREAD(pstates);
        counts.resize(num_threads());
    }

    unsigned num_threads() const { return s_.x86->config.num_threads; }

    // A kernel call that must succeed: the scenario is the platform's own.
    static void must(int err, const char *what)
    {
        if (err != PMVP_OK)
            throw std::runtime_error(std::string("x86: ") + what + ": " + pmvp_strerror(err));
    }

    // Programs the clock counters at 0, reads everything at the end.
    void firmware()
    {
        if (!resume_at_)
            program();
        sc_core::wait(sc_time::from_value(s_.duration) - sc_core::sc_time_stamp());
        sc_core::wait(sc_core::SC_ZERO_TIME);  // after the CPU models' reports at the same instant
        read_all();
        finished = true;
        sc_core::sc_stop();
    }

    // What the firmware reads at the end, or where an interrupt stopped the run.
    void read_all()
    {
        for (unsigned lp = 0; lp < num_threads(); lp++) {
            X86Counts &c = counts[lp];
            auto rd = [&](uint32_t msr, uint64_t &v) { must(monitors_.rdmsr(lp, msr, v), "RDMSR"); };
            rd(PMVP_MSR_IA32_FIXED_CTR0 + 0, c.inst_retired);
            rd(PMVP_MSR_IA32_FIXED_CTR0 + 1, c.thread);
            rd(PMVP_MSR_IA32_FIXED_CTR0 + 2, c.ref_tsc);
            rd(PMVP_MSR_IA32_PMC0 + kThreadP, c.thread_p);
            rd(PMVP_MSR_IA32_PMC0 + kThreadAny, c.thread_any);
            rd(PMVP_MSR_IA32_PMC0 + kRefXclk, c.ref_xclk);
            rd(PMVP_MSR_IA32_PMC0 + kOneThreadActive, c.one_thread_active);
            rd(PMVP_MSR_IA32_TSC, c.tsc);
            rd(PMVP_MSR_IA32_APERF, c.aperf);
            rd(PMVP_MSR_IA32_MPERF, c.mperf);
        }
    }

    void program()
    {
        for (unsigned lp = 0; lp < num_threads(); lp++) {
            const uint64_t both = PMVP_X86_EVTSEL_EN | PMVP_X86_EVTSEL_OS | PMVP_X86_EVTSEL_USR;
            const uint64_t sel[kCountersNeeded] = {
                PMVP_X86_CPU_CLK_UNHALTED_THREAD_P | both,
                PMVP_X86_CPU_CLK_UNHALTED_THREAD_P | both | PMVP_X86_EVTSEL_ANY,
                PMVP_X86_CPU_CLK_UNHALTED_REF_XCLK | both,
                PMVP_X86_CPU_CLK_UNHALTED_ONE_THREAD_ACTIVE | both,
            };
            for (unsigned x = 0; x < kCountersNeeded; x++)
                must(monitors_.wrmsr(lp, PMVP_MSR_IA32_PERFEVTSEL0 + x, sel[x]), "PERFEVTSEL");
            must(monitors_.wrmsr(lp, PMVP_MSR_IA32_FIXED_CTR_CTRL, 0x333), "IA32_FIXED_CTR_CTRL");
            must(monitors_.wrmsr(lp, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 7ull << 32 | 0xF), "IA32_PERF_GLOBAL_CTRL");
        }
    }

    void pstates()
    {
        for (const DvfsStep &d : s_.x86->pstates) {
            if (d.at < resume_at_)
                continue;  // before the checkpoint: the clock is the one it restored
            sc_core::wait(sc_time::from_value(d.at) - sc_core::sc_time_stamp());
            core_hz_.write(d.hz);
        }
    }

    // Logical processor `lp` runs its timeline, reporting the instructions
    // of each run phase when it ends: ipc times the core cycles it spent in
    // C0 (APERF, which counts exactly those). A restored run goes on at the
    // end of the phase the checkpoint found it in.
    void cpu(unsigned lp)
    {
        Lp &x = lp_[lp];
        const std::vector<X86Phase> &phases = s_.x86->threads[lp];
        if (!resume_at_)
            sc_core::wait(sc_core::SC_ZERO_TIME);  // after the firmware's set-up
        else if (x.phase < phases.size() && x.start < s_.duration)
            end_phase(lp);
        while (x.phase < phases.size() && x.start < s_.duration) {
            const X86Phase &p = phases[x.phase];
            halt_[lp].write(p.kind == X86Phase::HLT);
            deep_[lp].write(p.kind == X86Phase::MWAIT);
            if (p.kind == X86Phase::RUN) {
                must(monitors_.set_context(lp, pmvp_x86_context{ p.cpl, false, false }), "set_context");
                must(monitors_.rdmsr(lp, PMVP_MSR_IA32_APERF, x.aperf0), "RDMSR APERF");
            }
            end_phase(lp);
        }
        halt_[lp].write(true);
        deep_[lp].write(false);
    }

    // Waits for the end of the current phase, and reports its instructions.
    void end_phase(unsigned lp)
    {
        Lp &x = lp_[lp];
        const X86Phase &p = s_.x86->threads[lp][x.phase];
        pmvp_time end = x.start + std::min(p.duration, s_.duration - x.start);
        sc_core::wait(sc_time::from_value(end) - sc_core::sc_time_stamp());
        if (p.kind == X86Phase::RUN) {
            uint64_t aperf1 = 0;
            must(monitors_.rdmsr(lp, PMVP_MSR_IA32_APERF, aperf1), "RDMSR APERF");
            x.carry += (aperf1 - x.aperf0) * p.ipc_milli;
            must(monitors_.report(lp, PMVP_X86_INST_RETIRED_ANY, x.carry / 1000), "report");
            x.carry %= 1000;
        }
        x.start = end;
        x.phase++;
    }

    std::vector<X86Counts> counts;
    bool finished = false;

    // Checkpoint (checkpoint.h): the monitors, the clock, each logical
    // processor's CPU model and its HLT/MWAIT lines.
    template <class A> void state(A &a)
    {
        monitors_field(a, monitors_, monitors_checkpoint_);
        a.signal("core clock", core_hz_);
        a.count("logical processors", lp_.size());
        for (unsigned lp = 0; lp < lp_.size(); lp++) {
            Lp &x = lp_[lp];
            a.below("phase", x.phase, s_.x86->threads[lp].size() + 1);
            a("phase start", x.start);
            a("APERF at the phase's start", x.aperf0);
            a("instructions' carry", x.carry);
            const std::vector<X86Phase> &phases = s_.x86->threads[lp];
            if (x.phase < phases.size() && x.start < s_.duration)  // in a phase: it waits for its end
                a.not_before("phase start + duration",
                             x.start + std::min(phases[x.phase].duration, s_.duration - x.start), resume_at_);
            a.signal("HLT", halt_[lp]);
            a.signal("MWAIT", deep_[lp]);
        }
    }
    void save(Saver &a) override { state(a); }
    void load(Loader &a) override { state(a); }
    void restore_monitors() override { pmvp::soc::restore_monitors(monitors_, monitors_checkpoint_); }

private:
    const Scenario &s_;
    const pmvp_time resume_at_;
    pmvp::sc::X86Monitors monitors_;
    sc_core::sc_signal<uint64_t> core_hz_{ "core_hz" };
    sc_core::sc_vector<sc_core::sc_signal<bool>> halt_, deep_;
    // A logical processor's CPU model: the phase it is in, the instant it
    // began, APERF then, and the thousandths of an instruction not yet reported.
    struct Lp {
        size_t phase = 0;
        pmvp_time start = 0;
        uint64_t aperf0 = 0, carry = 0;
    };
    std::vector<Lp> lp_;
    std::vector<uint8_t> monitors_checkpoint_;  // loaded, until restore_monitors
};

}  // namespace

std::vector<X86Counts> run_x86(const Scenario &s, const CheckpointPlan &plan)
{
    if (s.x86->config.num_gp < kCountersNeeded)
        throw std::runtime_error("x86: the firmware needs 4 general-purpose counters");
    X86Platform platform("x86", s, plan.resume_at);
    spawn_watch(plan.resume_at, s.duration);
    simulate(platform, plan);
    if (!platform.finished && interrupt_requested())
        platform.read_all();  // the report covers the run up to the interruption
    else if (!platform.finished)
        throw std::runtime_error("x86: the simulation stopped before the end of the scenario");
    return platform.counts;
}

namespace {

struct Row {
    const char *name;
    uint64_t X86Counts::*field;
};
const Row kRows[] = {
    { "INST_RETIRED.ANY", &X86Counts::inst_retired },
    { "CPU_CLK_UNHALTED.THREAD", &X86Counts::thread },
    { "CPU_CLK_UNHALTED.THREAD_P", &X86Counts::thread_p },
    { "CPU_CLK_UNHALTED.THREAD_ANY", &X86Counts::thread_any },
    { "CPU_CLK_UNHALTED.REF_TSC", &X86Counts::ref_tsc },
    { "CPU_CLK_UNHALTED.REF_XCLK", &X86Counts::ref_xclk },
    { "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", &X86Counts::one_thread_active },
    { "TSC", &X86Counts::tsc },
    { "IA32_APERF", &X86Counts::aperf },
    { "IA32_MPERF", &X86Counts::mperf },
};

}  // namespace

void print_x86_report(FILE *out, const Scenario &s, const std::vector<X86Counts> &counts)
{
    const pmvp_x86_config &c = s.x86->config;
    std::fprintf(out, "pmvp-soc: %s: x86 core, %u logical processor%s, %s simulated\n", s.name.c_str(), c.num_threads,
                 c.num_threads > 1 ? "s" : "", time_text(s.duration).c_str());
    std::fprintf(out, "  core clock %s", hz_text((double)c.core_hz).c_str());
    for (const DvfsStep &d : s.x86->pstates)
        std::fprintf(out, ", %s from %s", hz_text((double)d.hz).c_str(), time_text(d.at).c_str());
    std::fprintf(out, "; TSC %s (%s); XCLK %s\n\n", hz_text((double)c.tsc_hz).c_str(),
                 c.tsc_invariant ? "invariant" : "stops in deep sleep", hz_text((double)c.xclk_hz).c_str());
    std::fprintf(out, "  %-36s", "");
    for (unsigned lp = 0; lp < counts.size(); lp++)
        std::fprintf(out, "%16s", ("LP" + std::to_string(lp)).c_str());
    std::fprintf(out, "\n");
    for (const Row &r : kRows) {
        std::fprintf(out, "  %-36s", r.name);
        for (const X86Counts &k : counts)
            std::fprintf(out, "%16llu", (unsigned long long)(k.*r.field));
        std::fprintf(out, "\n");
    }
    // APERF/MPERF: the average frequency while in C0, relative to the TSC's.
    std::fprintf(out, "  %-36s", "APERF/MPERF x TSC (avg C0 clock)");
    for (const X86Counts &k : counts)
        std::fprintf(out, "%16s", k.mperf ? hz_text((double)((long double)k.aperf / k.mperf * c.tsc_hz)).c_str() : "-");
    std::fprintf(out, "\n");
}

nlohmann::json x86_report_json(const Scenario &, const std::vector<X86Counts> &counts)
{
    nlohmann::json lps = nlohmann::json::array();
    for (const X86Counts &k : counts) {
        nlohmann::json lp;
        for (const Row &r : kRows)
            lp[r.name] = k.*r.field;
        lps.push_back(lp);
    }
    return { { "x86", { { "logical_processors", lps } } } };
}

}  // namespace pmvp::soc
