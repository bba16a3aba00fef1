// SPDX-License-Identifier: Apache-2.0
//
// A naive per-tick reference model of Intel-style clock counting (Intel SDM
// Vol. 3B 18.20), kept apart from the kernel's code (model/src/x86.c): it
// walks every edge of the core, TSC and bus clocks in time order and asks
// of each counter "does this tick count, and by how much". Table 18-30 is
// looked up cell by cell, as printed. It shares the kernel's configuration
// struct and MSR/field constants, never a rule.
#pragma once

#include <cstdint>
#include <vector>

#include "pmvp/x86.h"
#include "reference_pmu.h"

namespace pmvp::ref {

class X86Core {
public:
    explicit X86Core(const pmvp_x86_config &cfg);

    void set_core_clock(uint64_t hz, pmvp_time now);
    void set_state(unsigned t, pmvp_x86_state st, pmvp_time now);
    void set_cpl(unsigned t, uint8_t cpl, pmvp_time now);
    void report(unsigned t, uint16_t event, uint64_t count, pmvp_time now);
    void report_core(uint16_t event, uint64_t count, pmvp_time now);
    // Valid writes only (the tests check the #GP cases against the kernel
    // directly): PERFEVTSELx, IA32_A_PMCx / FIXED_CTRx (full width),
    // IA32_FIXED_CTR_CTRL, IA32_PERF_GLOBAL_CTRL, IA32_PERF_GLOBAL_OVF_CTRL.
    void wrmsr(unsigned t, uint32_t msr, uint64_t value, pmvp_time now);

    uint64_t counter(unsigned t, unsigned id, pmvp_time now);  // id: x or 32 + x
    uint64_t status(unsigned t, pmvp_time now);
    bool pmi(unsigned t, pmvp_time now);
    uint64_t tsc(pmvp_time now);
    uint64_t aperf(unsigned t, pmvp_time now);
    uint64_t mperf(unsigned t, pmvp_time now);

    // The first instant after `from` at which a status bit whose interrupt
    // is enabled rose on a clock tick; PMVP_TIME_NEVER if none.
    pmvp_time first_pmi_rise_since(pmvp_time from) const;

    void advance(pmvp_time now);

private:
    struct Thread {
        pmvp_x86_state state = PMVP_X86_C0;
        uint8_t cpl = 0;
        uint64_t evtsel[PMVP_X86_MAX_GP] = {};
        uint64_t fixed_ctrl = 0, global_ctrl = 0, status = 0;
        uint64_t value[64] = {};
        bool prev[64] = {};
        uint64_t aperf = 0, mperf = 0;
    };
    enum Tick { CORE, TSC, XCLK };

    std::vector<unsigned> ids() const;
    bool enabled(unsigned t, unsigned id) const;
    bool os_bit(unsigned t, unsigned id) const;
    bool usr_bit(unsigned t, unsigned id) const;
    bool any_bit(unsigned t, unsigned id) const;
    uint16_t event_of(unsigned t, unsigned id) const;
    bool at_selected_cpl(unsigned owner, unsigned id, unsigned u) const;
    void count(unsigned t, unsigned id, uint64_t increment, bool on_tick);
    void tick(Tick which, pmvp_time at);

    pmvp_x86_config cfg_;
    Clock core_, tsc_clock_, xclk_;
    pmvp_time now_ = 0;
    uint64_t tsc_ = 0;
    Thread th_[PMVP_X86_MAX_THREADS];
    std::vector<pmvp_time> pmi_rises_;
};

}  // namespace pmvp::ref
