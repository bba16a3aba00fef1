// SPDX-License-Identifier: Apache-2.0
//
// The inputs Monitors takes from a CPU model and the bus, one type each.
// A call of the CPU-model interface builds one value; the same value is
// made on the kernel, or kept for its instant (timeline.h), or saved in a
// checkpoint (by its tag, input_codec.h). Each type says:
//   tag, fields(self, f)     what a checkpoint holds of it
//   apply(m, c, t)           makes it on kernel c at instant t (the
//                            present kernel, a replay, or the future view)
// and, where it differs from the default (Plain):
//   decide(c, err)           whether the present kernel's configuration and
//                            state decide its refusal alone, so that a kept
//                            one need not be made on the future view
//   occurrences(shares)      the event occurrences it carries
//   wake(c)                  whether the module's process must wake at its
//                            instant to publish what it changes (Monitors::wakes)
// Adding an input: its type here, its apply in arm_inputs.cpp, its
// alternative in Input::Kind, and the call that builds it (CONTRIBUTING.md).
#pragma once

#include <utility>
#include <variant>

#include "pmvp/systemc/monitors.h"

extern "C" {
#include "pmvp/amu.h"
#include "pmvp/core.h"
#include "pmvp/ext.h"
#include "pmvp/pmu.h"
#include "pmvp/sysreg.h"
}

namespace pmvp::sc {

struct Monitors::Input {
    // When the process must wake for an input made or kept: always, never,
    // or as its occurrences decide (Monitors::wakes).
    enum class Wake { ALWAYS, NEVER, BY_OCCURRENCES };

    // The defaults: refused or not only as the view says, no occurrences,
    // and a wake-up at its instant.
    struct Plain {
        bool decide(const pmvp_core &, int *) const { return false; }
        unsigned occurrences(pmvp_share *) const { return 0; }
        Wake wake(pmvp_core &) const { return Wake::ALWAYS; }
    };

    // pmvp_core_report.
    struct Report : Plain {
        static constexpr const char *tag = "report";
        unsigned pe;
        uint16_t event;
        uint64_t count;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.event), f(s.count); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
        bool decide(const pmvp_core &c, int *err) const;
        unsigned occurrences(pmvp_share *shares) const;
        Wake wake(pmvp_core &) const { return Wake::BY_OCCURRENCES; }
    };

    // pmvp_core_report_spread.
    struct ReportSpread : Plain {
        static constexpr const char *tag = "report_spread";
        unsigned pe;
        uint16_t event;
        uint64_t count, cycles;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.event), f(s.count), f(s.cycles); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // A CPU model's step: shares of the cycles since `since`
    // (pmvp_core_report_shares), then level changes of the same instant
    // (pmvp_core_set_levels), refused as a whole. Either may be empty.
    struct Step : Plain {
        static constexpr const char *tag = "step";
        pmvp_time since;
        unsigned num_shares, num_levels;
        pmvp_share shares[PMVP_MAX_BATCHES];
        pmvp_level_change levels[kMaxLevelChanges];
        Step() = default;
        // Shares since `since` (at most PMVP_MAX_BATCHES), then level
        // changes (at most kMaxLevelChanges), as a call gives them.
        Step(pmvp_time since, const pmvp_share *shares, unsigned num_shares, const pmvp_level_change *levels,
             unsigned num_levels);
        // A copy is of the entries held (most steps have one or two).
        Step(const Step &o) { *this = o; }
        Step &operator=(const Step &o);
        template <class S, class F> static void fields(S &s, F &&f)
        {
            f(s.since), f(s.num_shares), f(s.num_levels);
            for (unsigned i = 0; i < s.num_shares && i < PMVP_MAX_BATCHES; i++)
                f(s.shares[i]);
            for (unsigned i = 0; i < s.num_levels && i < kMaxLevelChanges; i++)
                f(s.levels[i]);
        }
        // Whether it holds something, within its arrays (not so in a
        // corrupt checkpoint): else it is refused.
        bool valid() const
        {
            return num_shares + num_levels > 0 && num_shares <= PMVP_MAX_BATCHES && num_levels <= kMaxLevelChanges;
        }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
        bool decide(const pmvp_core &c, int *err) const;
        unsigned occurrences(pmvp_share *out) const;
        Wake wake(pmvp_core &c) const;
    };

    // pmvp_core_retire: its result goes to the caller of Monitors::retire.
    struct Retire : Plain {
        static constexpr const char *tag = "retire";
        unsigned pe;
        uint16_t event;
        uint64_t count, pc;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.event), f(s.count), f(s.pc); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // pmvp_core_set_level.
    struct Level : Plain {
        static constexpr const char *tag = "level";
        unsigned pe;
        uint16_t event;
        uint32_t level;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.event), f(s.level); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
        bool decide(const pmvp_core &c, int *err) const;
        Wake wake(pmvp_core &c) const;
    };

    // One PE's call that takes nothing else: pmvp_core_context_sync,
    // pmvp_core_set_active_thread, pmvp_core_snapshot_request.
    struct PeCall : Plain {
        enum What : uint8_t { CONTEXT_SYNC, ACTIVE_THREAD, SNAPSHOT_REQUEST };
        static constexpr const char *tag = "pe_call";
        unsigned pe;
        What what;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.what); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // pmvp_core_set_context.
    struct Context : Plain {
        static constexpr const char *tag = "context";
        unsigned pe;
        pmvp_context ctx;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.ctx); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // The CPU model's PMU controls, whole (Monitors::set_controls).
    struct Controls : Plain {
        static constexpr const char *tag = "controls";
        unsigned pe;
        pmvp_pmu_controls ctl;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.ctl); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // One field of them (Monitors::set_control).
    struct Control : Plain {
        static constexpr const char *tag = "control";
        unsigned pe;
        Monitors::Control field;
        uint64_t value;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.field), f(s.value); }
        // Sets the field in `ctl`; false for a field there is not, or a
        // value a flag cannot hold.
        bool set(pmvp_pmu_controls &ctl) const;
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // An MSR to a PMU or AMU register (pmvp_sysreg_execute): its syndrome
    // goes to the caller of Monitors::execute.
    struct SysregWrite : Plain {
        static constexpr const char *tag = "sysreg_write";
        unsigned pe;
        pmvp_sysreg_a64 insn;
        uint64_t value;
        pmvp_sysreg_context higher;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.insn), f(s.value), f(s.higher); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // pmvp_core_set_pe_state.
    struct PeState : Plain {
        static constexpr const char *tag = "pe_state";
        unsigned pe;
        pmvp_pe_state state;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.state); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // pmvp_core_set_clock.
    struct Clock : Plain {
        static constexpr const char *tag = "clock";
        uint64_t hz;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.hz); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // pmvp_pmu_write.
    struct PmuWrite : Plain {
        static constexpr const char *tag = "pmu_write";
        unsigned pe;
        pmvp_pmu_reg reg;
        unsigned n;
        uint64_t value;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.reg), f(s.n), f(s.value); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // pmvp_amu_write.
    struct AmuWrite : Plain {
        static constexpr const char *tag = "amu_write";
        unsigned pe;
        pmvp_amu_reg reg;
        unsigned n;
        uint64_t value;
        template <class S, class F> static void fields(S &s, F &&f) { f(s.pe), f(s.reg), f(s.n), f(s.value); }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    // A bus write to a frame (pmvp_ext_write), or a debugger's
    // (pmvp_ext_debug_write).
    struct FrameWrite : Plain {
        static constexpr const char *tag = "frame_write";
        unsigned pe;
        pmvp_frame frame;
        uint32_t offset;
        unsigned len;
        uint64_t value;
        pmvp_ext_access bus;
        bool debug;
        template <class S, class F> static void fields(S &s, F &&f)
        {
            f(s.pe), f(s.frame), f(s.offset), f(s.len), f(s.value), f(s.bus), f(s.debug);
        }
        int apply(Monitors &m, pmvp_core *c, pmvp_time t) const;
    };

    using Kind = std::variant<Report, ReportSpread, Step, Retire, Level, PeCall, Context, Controls, Control,
                              SysregWrite, PeState, Clock, PmuWrite, AmuWrite, FrameWrite>;
    Kind kind;

    Input() = default;
    template <class T> Input(const T &x) : kind(x) {}
    // Built in place: a step's arrays are not copied from a temporary.
    template <class T, class... A> explicit Input(std::in_place_type_t<T> type, A &&...args)
        : kind(type, std::forward<A>(args)...)
    {}

    int apply(Monitors &m, pmvp_core *c, pmvp_time t) const
    {
        return std::visit([&](const auto &x) { return x.apply(m, c, t); }, kind);
    }
    bool decide(const pmvp_core &c, int *err) const
    {
        return std::visit([&](const auto &x) { return x.decide(c, err); }, kind);
    }
    unsigned occurrences(pmvp_share *shares) const
    {
        return std::visit([&](const auto &x) { return x.occurrences(shares); }, kind);
    }
    Wake wake(pmvp_core &c) const
    {
        return std::visit([&](const auto &x) { return x.wake(c); }, kind);
    }
};

}  // namespace pmvp::sc
