// SPDX-License-Identifier: Apache-2.0
// sc_spawn, for processes sensitive only to the ports a platform binds.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "pmvp/systemc/x86_monitors.h"

#include "timeline.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <variant>

extern "C" {
#include "pmvp/checkpoint.h"
#include "pmvp/error.h"
}

namespace pmvp::sc {

using sc_core::sc_time;

X86Monitors::X86Monitors(const sc_core::sc_module_name &name, const pmvp_x86_config &config)
    : sc_module(name), halt("halt", config.num_threads), deep_sleep("deep_sleep", config.num_threads),
      pmi("pmi", config.num_threads),
      timeline_(std::make_unique<Timeline<pmvp_x86_core, X86Monitors>>(core_, view_, *this, time_))
{
    const char *why = nullptr;
    int err = pmvp_x86_init_why(&core_, &config, &why);
    if (err != PMVP_OK)
        throw std::invalid_argument(std::string("pmvp::sc::X86Monitors: ") + (why ? why : pmvp_strerror(err)));
    level_.assign(config.num_threads, false);
}

X86Monitors::~X86Monitors() = default;

// The inputs of the module, one type each, as Monitors's (arm_inputs.h
// says what each member is for): made on the kernel, kept for their
// instant (timeline.h), or saved in a checkpoint by their tag.
struct X86Monitors::Input {
    struct Wrmsr {
        static constexpr const char *tag = "wrmsr";
        unsigned lp;
        uint32_t msr;
        uint64_t value;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.lp), f(s.msr), f(s.value); }
        int apply(pmvp_x86_core *c, pmvp_time t) const { return pmvp_x86_wrmsr(c, lp, msr, value, t); }
    };
    struct Context {
        static constexpr const char *tag = "context";
        unsigned lp;
        pmvp_x86_context ctx;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.lp), f(s.ctx); }
        int apply(pmvp_x86_core *c, pmvp_time t) const { return pmvp_x86_set_context(c, lp, &ctx, t); }
    };
    struct State {
        static constexpr const char *tag = "state";
        unsigned lp;
        pmvp_x86_state state;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.lp), f(s.state); }
        int apply(pmvp_x86_core *c, pmvp_time t) const { return pmvp_x86_set_state(c, lp, state, t); }
    };
    struct CoreClock {
        static constexpr const char *tag = "core_clock";
        uint64_t hz;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.hz); }
        int apply(pmvp_x86_core *c, pmvp_time t) const { return pmvp_x86_set_core_clock(c, hz, t); }
    };
    struct Report {
        static constexpr const char *tag = "report";
        unsigned lp;
        uint16_t event;
        uint64_t count;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.lp), f(s.event), f(s.count); }
        int apply(pmvp_x86_core *c, pmvp_time t) const { return pmvp_x86_report(c, lp, event, count, t); }
    };
    struct ReportCore {
        static constexpr const char *tag = "report_core";
        uint16_t event;
        uint64_t count;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.event), f(s.count); }
        int apply(pmvp_x86_core *c, pmvp_time t) const { return pmvp_x86_report_core(c, event, count, t); }
    };
    using Kind = std::variant<Wrmsr, Context, State, CoreClock, Report, ReportCore>;
    Kind kind;

    Input() = default;
    template <class T> Input(const T &x) : kind(x) {}
};

// A change kept for later that the kernel refused when it came (Timeline).
void X86Monitors::failed(int err)
{
    SC_REPORT_WARNING("pmvp/x86", (std::string(name()) + ": deferred call failed: " + pmvp_strerror(err)).c_str());
}

// Makes input `in` on kernel c at instant t (the present, a replay, or the
// future view).
int X86Monitors::apply(pmvp_x86_core *c, pmvp_time t, const Input &in)
{
    return std::visit([&](const auto &x) { return x.apply(c, t); }, in.kind);
}

// Runs `op`, which changes nothing, at sc_time_stamp() + offset by the
// policy of Timeline (support.h).
template <class F> int X86Monitors::query(const sc_time &offset, const F &op)
{
    return timeline_->query(offset, op);
}

// Makes change `ch` at sc_time_stamp() + offset, then publishes what
// changed: now, or at the instant of a change kept for later.
int X86Monitors::change(const sc_time &offset, const Input &ch)
{
    pmvp_time acts = PMVP_TIME_NEVER, now = time_.now();
    int err = timeline_->change(offset, ch, &acts);
    if (acts == now)
        update();
    else if (acts != PMVP_TIME_NEVER)
        wake_.notify(time_.to_sc(acts - now));
    return err;
}

int X86Monitors::rdmsr(unsigned lp, uint32_t msr, uint64_t &value, const sc_time &offset)
{
    return query(offset, [&](pmvp_x86_core *c, pmvp_time t) { return pmvp_x86_rdmsr(c, lp, msr, t, &value); });
}

int X86Monitors::wrmsr(unsigned lp, uint32_t msr, uint64_t value, const sc_time &offset)
{
    return change(offset, Input::Wrmsr{ lp, msr, value });
}

int X86Monitors::rdpmc(unsigned lp, uint32_t ecx, uint64_t &value, const sc_time &offset)
{
    return query(offset, [&](pmvp_x86_core *c, pmvp_time t) { return pmvp_x86_rdpmc(c, lp, ecx, t, &value); });
}

int X86Monitors::rdtsc(unsigned lp, uint64_t &value, const sc_time &offset)
{
    return query(offset, [&](pmvp_x86_core *c, pmvp_time t) { return pmvp_x86_rdtsc(c, lp, t, &value); });
}

int X86Monitors::set_context(unsigned lp, const pmvp_x86_context &ctx, const sc_time &offset)
{
    return change(offset, Input::Context{ lp, ctx });
}

int X86Monitors::set_state(unsigned lp, pmvp_x86_state st, const sc_time &offset)
{
    return change(offset, Input::State{ lp, st });
}

int X86Monitors::set_core_clock(uint64_t hz, const sc_time &offset)
{
    return change(offset, Input::CoreClock{ hz });
}

int X86Monitors::report(unsigned lp, uint16_t event, uint64_t count, const sc_time &offset)
{
    return change(offset, Input::Report{ lp, event, count });
}

int X86Monitors::report_core(uint16_t event, uint64_t count, const sc_time &offset)
{
    return change(offset, Input::ReportCore{ event, count });
}

std::vector<uint8_t> X86Monitors::save()
{
    return timeline_->checkpoint();
}

void X86Monitors::check_restore(const std::vector<uint8_t> &checkpoint) const
{
    std::string why;
    if (!timeline_->kernel_takes(checkpoint, &why))
        throw std::invalid_argument(std::string(name()) + ": restore: " + why);
}

void X86Monitors::restore(const std::vector<uint8_t> &checkpoint)
{
    std::string why;
    if (!timeline_->restore(checkpoint, &why))
        throw std::invalid_argument(std::string(name()) + ": restore: " + why);
    redrive_ = true;    // PMI as the restored flags make it, whatever the line shows now
    signals_changed();  // the bound signals apply as they are
}

// After a call or a signal change: a PMI level that changed is written by
// the wake process (a signal has one driver), in the next delta cycle;
// otherwise the wake process waits for the next overflow.
void X86Monitors::update()
{
    for (unsigned lp = 0; lp < num_threads(); lp++) {
        if (redrive_ || pmvp_x86_pmi(&core_, lp) != level_[lp]) {
            wake_.notify(sc_core::SC_ZERO_TIME);
            return;
        }
    }
    pmvp_time when = PMVP_TIME_NEVER;
    pmvp_x86_next_interrupt(&core_, core_.last_call, &when);
    when = std::min(when, timeline_->next_pending());
    if (when != PMVP_TIME_NEVER)
        wake_.notify(time_.to_sc(when - time_.now()));
}

// Brings the kernel to the present, writes the PMI levels that changed and
// waits for the next overflow.
void X86Monitors::wake()
{
    pmvp_time now = time_.now();
    timeline_->catch_up(now);
    pmvp_x86_sync(&core_, now);
    for (unsigned lp = 0; lp < num_threads(); lp++) {
        bool level = pmvp_x86_pmi(&core_, lp);
        if (level != level_[lp] || redrive_) {
            level_[lp] = level;
            if (pmi[lp].size())
                pmi[lp]->write(level);
        }
    }
    redrive_ = false;
    update();
}

void X86Monitors::signals_changed()
{
    pmvp_time now = time_.now();
    timeline_->catch_up(now);
    timeline_->invalidate();
    if (core_hz.size() && core_hz->read() != core_.core_clock.hz &&
        pmvp_x86_set_core_clock(&core_, core_hz->read(), now) != PMVP_OK)
        SC_REPORT_WARNING("pmvp/clock", (std::string(name()) + ": core_hz = " + std::to_string(core_hz->read()) +
                                         " Hz is above the 1 THz pmvp accepts: the clock keeps its frequency")
                                            .c_str());
    for (unsigned lp = 0; lp < num_threads(); lp++) {
        bool h = halt[lp].size() && halt[lp]->read();
        bool d = deep_sleep[lp].size() && deep_sleep[lp]->read();
        auto st = d ? PMVP_X86_DEEP_SLEEP : h ? PMVP_X86_HALT : PMVP_X86_C0;
        if (st != core_.thread[lp].state)
            pmvp_x86_set_state(&core_, lp, st, now);
    }
    update();
}

void X86Monitors::end_of_elaboration()
{
    // Only bound ports can make a process sensitive; the process also runs
    // once at start, for the initial values.
    sc_core::sc_spawn_options inputs;
    inputs.spawn_method();
    auto watch = [&](auto &port) {
        if (port.size())
            inputs.set_sensitivity(&port->value_changed_event());
    };
    watch(core_hz);
    for (unsigned lp = 0; lp < num_threads(); lp++) {
        watch(halt[lp]);
        watch(deep_sleep[lp]);
    }
    sc_core::sc_spawn([this] { signals_changed(); }, sc_core::sc_gen_unique_name("signals"), &inputs);

    sc_core::sc_spawn_options timer;
    timer.spawn_method();
    timer.dont_initialize();
    timer.set_sensitivity(&wake_);
    sc_core::sc_spawn([this] { wake(); }, sc_core::sc_gen_unique_name("wake"), &timer);
}

}  // namespace pmvp::sc
