// SPDX-License-Identifier: Apache-2.0
//
// pmvp::sc::X86Monitors: the Intel-style clock counters of one x86 core
// (model/include/pmvp/x86.h) as a SystemC module. It translates SystemC into
// calls of the C kernel and holds no architectural rule.
//
// - Signals, all optional (unbound ports keep their defaults): the core
//   clock frequency (Hz; a P-state change at the current time; 0 stops the
//   core clock), per logical processor `halt` (HLT or MWAIT C1) and
//   `deep_sleep` (a deeper MWAIT C-state; it wins over `halt`), and per
//   logical processor `pmi` out (level-sensitive, written only when its
//   level changes).
// - The CPU-model interface: RDMSR, WRMSR, RDPMC and RDTSC as the core
//   executes them, the CPL and CR4 bits (set_context), C-states and P-states
//   by call for CPU models that do not use the signals, and event reports
//   (thread-specific: report; thread-independent: report_core). Each call
//   acts at sc_time_stamp() + offset and returns the kernel's result
//   (PMVP_OK, PMVP_ERR_GP for the #GP(0) the instruction raises, ...).
// - One timed sc_event raises `pmi` at the exact instant a clock-counting
//   counter with its interrupt enabled overflows; no process is clocked. A
//   reported event that overflows a counter raises `pmi` at once.
//
// Time: the policy of Monitors (Timeline, support.h): the kernel never runs
// ahead of simulated time; a change for a later instant (a CPU model ahead
// in its quantum) is kept and applied when simulated time reaches it, and a
// read for a later instant is evaluated on the future view, so calls may
// come in any order of their instants within the future.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>

#include "pmvp/systemc/support.h"

extern "C" {
#include "pmvp/x86.h"
}

namespace pmvp::sc {

class X86Monitors : public sc_core::sc_module {
public:
    // Throws std::invalid_argument if the kernel refuses `config`.
    X86Monitors(const sc_core::sc_module_name &name, const pmvp_x86_config &config);
    ~X86Monitors() override;

    // ---- signals
    optional_in<uint64_t> core_hz;
    sc_core::sc_vector<optional_in<bool>> halt, deep_sleep;
    sc_core::sc_vector<optional_out<bool>> pmi;

    // ---- the CPU-model interface
    [[nodiscard]] int rdmsr(unsigned lp, uint32_t msr, uint64_t &value,
                            const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int wrmsr(unsigned lp, uint32_t msr, uint64_t value,
                            const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int rdpmc(unsigned lp, uint32_t ecx, uint64_t &value,
                            const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int rdtsc(unsigned lp, uint64_t &value, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int set_context(unsigned lp, const pmvp_x86_context &ctx,
                                  const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int set_state(unsigned lp, pmvp_x86_state st, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int set_core_clock(uint64_t hz, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int report(unsigned lp, uint16_t event, uint64_t count,
                             const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int report_core(uint16_t event, uint64_t count,
                                  const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);

    // ---- checkpoint and restore (pmvp/checkpoint.h), as for Monitors: the
    // kernel's checkpoint and the changes kept for later instants; restore,
    // at the instant of the save, throws std::invalid_argument naming what
    // is wrong and changes nothing.
    std::vector<uint8_t> save();
    void restore(const std::vector<uint8_t> &checkpoint);
    // Throws std::invalid_argument as restore() would for the kernel's part
    // of `checkpoint` (another configuration, a corrupt or implausible
    // state), changing nothing: a restoring platform asks before it runs to
    // the checkpoint's instant.
    void check_restore(const std::vector<uint8_t> &checkpoint) const;

    unsigned num_threads() const { return core_.cfg.num_threads; }
    // The kernel state, for inspection; not to be modified.
    const pmvp_x86_core &kernel() const { return core_; }

private:
    void end_of_elaboration() override;
    void signals_changed();
    void wake();
    // The inputs, one type each, and the module's part of the Timeline that
    // keeps them (bindings/src/timeline.h). No input of this module is
    // decided on the present kernel alone: each is made on the future view.
    struct Input;
    friend class Timeline<pmvp_x86_core, X86Monitors>;
    int apply(pmvp_x86_core *c, pmvp_time t, const Input &in);
    static bool decide(const pmvp_x86_core &, const Input &, int *) { return false; }
    void failed(int err);
    template <class F> int query(const sc_core::sc_time &offset, const F &op);
    int change(const sc_core::sc_time &offset, const Input &in);
    void update();

    pmvp_x86_core core_, view_;  // view_: the future view (Timeline)
    TimeBase time_;
    std::unique_ptr<Timeline<pmvp_x86_core, X86Monitors>> timeline_;
    sc_core::sc_event wake_;
    std::vector<bool> level_;
    bool redrive_ = false;  // after a restore: wake() writes every PMI line
};

}  // namespace pmvp::sc
