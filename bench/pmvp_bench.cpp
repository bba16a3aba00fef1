// SPDX-License-Identifier: Apache-2.0
//
// pmvp-bench: micro-benchmarks of the kernel and the bindings (Google
// Benchmark), whole-process runs of pmvp-soc and of the clocked baseline
// (pmvp-bench-clocked), then a table of the figures docs/PERFORMANCE.md
// records, each measured in this one run, beside its target. Nothing here
// is asserted: the figures are measured and reported.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "pmvp/systemc/monitors.h"

extern "C" {
#include "pmvp/core.h"
#include "pmvp/events.h"
#include "pmvp/ext.h"
#include "pmvp/fields.h"
#include "pmvp/pmu.h"
#include "pmvp/x86.h"
}

namespace {

// ----------------------------------------------------------- the kernel

// A 2-thread core with 6 event counters enabled, filters set (EL3 and EL2
// excluded, as a Non-secure profiler programs them) and the cycle counter on.
struct CountingCore {
    pmvp_core core{};
    CountingCore()
    {
        pmvp_core_config cfg;
        pmvp_core_config_default(&cfg);
        cfg.num_pes = 2;
        cfg.processor_hz = 2000000000;
        pmvp_core_init(&core, &cfg);
        static const uint16_t ev[6] = { PMVP_EV_INST_RETIRED, PMVP_EV_CPU_CYCLES, PMVP_EV_STALL_BACKEND,
                                        PMVP_EV_INST_RETIRED, PMVP_EV_BUS_CYCLES, PMVP_EV_STALL_BACKEND_MEM };
        for (unsigned p = 0; p < 2; p++) {
            for (unsigned n = 0; n < 6; n++)
                pmvp_pmu_write(&core, p, PMVP_PMEVTYPER_EL0, n, ev[n] | (n == 3 ? PMVP_PMEVTYPER_EL0_U : 0), 0);
            pmvp_pmu_write(&core, p, PMVP_PMCNTENSET_EL0, 0, 0x3F | PMVP_PMU_C, 0);
            pmvp_pmu_write(&core, p, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LC, 0);
        }
    }
};

void BM_IncrementLoop(benchmark::State &state)
{
    uint64_t x = 0;
    for (auto _ : state) {
        x++;
        benchmark::DoNotOptimize(x);
    }
}
BENCHMARK(BM_IncrementLoop)->Unit(benchmark::kNanosecond);

// One event reported at the same instant as the previous one (a CPU model
// reporting a batch), and one 1 ns later (time moves between reports).
void BM_ReportEvent(benchmark::State &state)
{
    CountingCore c;
    pmvp_time now = 0;
    const pmvp_time step = (pmvp_time)state.range(0);
    for (auto _ : state) {
        now += step;
        benchmark::DoNotOptimize(pmvp_core_report(&c.core, 0, PMVP_EV_INST_RETIRED, 1, now));
    }
}
BENCHMARK(BM_ReportEvent)->Arg(0)->Arg(1000)->Unit(benchmark::kNanosecond);

// A level change: STALL_BACKEND on, then off, 1 ns apart on PE 0, on the
// 2 x 6-counter core above (arg 0), or on a 2 x 31-counter core of which two
// counters of each PE count STALL_BACKEND and the rest INST_RETIRED (arg 1).
// The cost should follow the counters the change concerns, not the core.
void BM_LevelChange(benchmark::State &state)
{
    CountingCore six;
    pmvp_core *core = &six.core;
    static pmvp_core wide;
    if (state.range(0) == 1) {
        pmvp_core_config cfg;
        pmvp_core_config_default(&cfg);
        cfg.num_pes = 2;
        cfg.num_counters = 31;
        cfg.processor_hz = 2000000000;
        pmvp_core_init(&wide, &cfg);
        for (unsigned p = 0; p < 2; p++) {
            pmvp_pmu_controls ctl{};
            ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 31);
            pmvp_core_set_controls(&wide, p, &ctl, 0);
            for (unsigned n = 0; n < 31; n++)
                pmvp_pmu_write(&wide, p, PMVP_PMEVTYPER_EL0, n, n < 2 ? PMVP_EV_STALL_BACKEND : PMVP_EV_INST_RETIRED,
                               0);
            pmvp_pmu_write(&wide, p, PMVP_PMCNTENSET_EL0, 0, 0x7FFFFFFF | PMVP_PMU_C, 0);
            pmvp_pmu_write(&wide, p, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LC, 0);
        }
        core = &wide;
    }
    pmvp_time now = 0;
    uint32_t level = 0;
    for (auto _ : state) {
        now += 1000;
        level ^= 1;
        benchmark::DoNotOptimize(pmvp_core_set_level(core, 0, PMVP_EV_STALL_BACKEND, level, now));
    }
}
BENCHMARK(BM_LevelChange)->Arg(0)->Arg(1)->Unit(benchmark::kNanosecond);

// How the cost of a level change grows with what the core holds: STALL_BACKEND
// toggled on PE 0 of a core with `pes` PEs of `counters` counters each, of
// which counter 0 counts STALL_BACKEND, counter 1 (if any) CPU_CYCLES, and
// the rest INST_RETIRED (counted from reports: no rate); the cycle counter
// on. docs/PERFORMANCE.md's scale table.
void BM_LevelChangeScale(benchmark::State &state)
{
    const unsigned counters = (unsigned)state.range(0), pes = (unsigned)state.range(1);
    static pmvp_core core;
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.num_pes = pes;
    cfg.num_counters = counters;
    cfg.processor_hz = 2000000000;
    pmvp_core_init(&core, &cfg);
    for (unsigned p = 0; p < pes; p++) {
        pmvp_pmu_controls ctl{};
        ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, counters);
        pmvp_core_set_controls(&core, p, &ctl, 0);
        for (unsigned n = 0; n < counters; n++)
            pmvp_pmu_write(&core, p, PMVP_PMEVTYPER_EL0, n,
                           n == 0   ? PMVP_EV_STALL_BACKEND
                           : n == 1 ? PMVP_EV_CPU_CYCLES
                                    : PMVP_EV_INST_RETIRED,
                           0);
        pmvp_pmu_write(&core, p, PMVP_PMCNTENSET_EL0, 0, 0x7FFFFFFF | PMVP_PMU_C, 0);
        pmvp_pmu_write(&core, p, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LC, 0);
    }
    pmvp_time now = 0;
    uint32_t level = 0;
    for (auto _ : state) {
        now += 1000;
        level ^= 1;
        benchmark::DoNotOptimize(pmvp_core_set_level(&core, 0, PMVP_EV_STALL_BACKEND, level, now));
    }
}
BENCHMARK(BM_LevelChangeScale)->ArgsProduct({ { 1, 6, 31 }, { 1, 2, 4, 8 } })->Unit(benchmark::kNanosecond);

// x86 clock counting: an RDMSR of CPU_CLK_UNHALTED.THREAD after each step of
// simulated time (1 ns or 1 s), both hyper-threads running, every fixed
// counter and four PERFEVTSEL clock counters enabled. The cost is the same
// whatever the step: no work per cycle.
void BM_X86ReadAfterStep(benchmark::State &state)
{
    pmvp_x86_config cfg;
    pmvp_x86_config_default(&cfg);
    pmvp_x86_core core;
    pmvp_x86_init(&core, &cfg);
    const uint64_t both = PMVP_X86_EVTSEL_EN | PMVP_X86_EVTSEL_OS | PMVP_X86_EVTSEL_USR;
    for (unsigned lp = 0; lp < 2; lp++) {
        pmvp_x86_wrmsr(&core, lp, PMVP_MSR_IA32_FIXED_CTR_CTRL, 0x333, 0);
        pmvp_x86_wrmsr(&core, lp, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 7ull << 32 | 0xF, 0);
        const uint16_t events[] = { PMVP_X86_CPU_CLK_UNHALTED_THREAD_P, PMVP_X86_CPU_CLK_UNHALTED_THREAD_P,
                                    PMVP_X86_CPU_CLK_UNHALTED_REF_XCLK, PMVP_X86_CPU_CLK_UNHALTED_ONE_THREAD_ACTIVE };
        for (unsigned x = 0; x < 4; x++)
            pmvp_x86_wrmsr(&core, lp, PMVP_MSR_IA32_PERFEVTSEL0 + x,
                           events[x] | both | (x == 1 ? PMVP_X86_EVTSEL_ANY : 0), 0);
    }
    pmvp_time now = 0;
    const pmvp_time step = (pmvp_time)state.range(0);
    uint64_t v = 0;
    for (auto _ : state) {
        now += step;
        benchmark::DoNotOptimize(pmvp_x86_rdmsr(&core, 0, PMVP_MSR_IA32_FIXED_CTR0 + 1, now, &v));
    }
}
BENCHMARK(BM_X86ReadAfterStep)->Arg(1000)->Arg(1000000000000)->Unit(benchmark::kNanosecond);

// A debugger's read of PMCCNTR 1 us after the core's present (the pure
// query: the present stays where it is), on the 2 x 6-counter core.
void BM_DebugReadAhead(benchmark::State &state)
{
    CountingCore c;
    uint64_t v = 0;
    for (auto _ : state)
        benchmark::DoNotOptimize(pmvp_ext_debug_read(&c.core, 0, PMVP_FRAME_PMU, 0x0F8, 8, 1000000, &v));
}
BENCHMARK(BM_DebugReadAhead)->Unit(benchmark::kNanosecond);

// The kernel's share of a bus read of PMU.PMCCNTR_EL0 (BM_TlmReadPmccntr):
// a Non-secure guest's read at the core's present (the pure query, then the
// sync to that instant that the bindings make after a read now).
void BM_ExtReadNow(benchmark::State &state)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    static pmvp_core core;
    pmvp_core_init(&core, &cfg);
    const pmvp_ext_access bus{ PMVP_NONSECURE, false };
    uint64_t v = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(pmvp_ext_peek(&core, 0, PMVP_FRAME_PMU, 0x0F8, 8, &bus, 0, &v, nullptr));
        benchmark::DoNotOptimize(pmvp_core_sync(&core, 0));
    }
}
BENCHMARK(BM_ExtReadNow)->Unit(benchmark::kNanosecond);

// ---------------------------------------------------------- the bindings

struct EmptyTarget : sc_core::sc_module {
    tlm_utils::simple_target_socket<EmptyTarget> socket;
    explicit EmptyTarget(const sc_core::sc_module_name &n) : sc_module(n), socket("socket")
    {
        socket.register_b_transport(this, &EmptyTarget::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &) { gp.set_response_status(tlm::TLM_OK_RESPONSE); }
};

// The least a TLM model of a register whose value depends on the instant
// of its read costs, with the socket of EmptyTarget: the base protocol's
// rules the monitors' frames apply to an access (command, data pointer,
// byte enables, streaming width, length, alignment), the simulated time
// read, and the value placed: the cycles of a fixed 1 GHz clock. No
// decode, no access checks, no counter that filters or stops: the floor
// of figure 2.
struct ClockRegister : sc_core::sc_module {
    tlm_utils::simple_target_socket<ClockRegister> socket;
    explicit ClockRegister(const sc_core::sc_module_name &n) : sc_module(n), socket("socket")
    {
        socket.register_b_transport(this, &ClockRegister::b_transport);
    }
    static tlm::tlm_response_status check(const tlm::tlm_generic_payload &gp)
    {
        const unsigned len = gp.get_data_length();
        if (!gp.get_data_ptr())
            return tlm::TLM_GENERIC_ERROR_RESPONSE;
        if (const unsigned char *be = gp.get_byte_enable_ptr()) {
            const unsigned be_len = gp.get_byte_enable_length();
            for (unsigned i = 0; i < len; i++)
                if (be_len == 0 || be[i % be_len] != TLM_BYTE_ENABLED)
                    return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
        }
        if (gp.get_streaming_width() < len || (len != 4 && len != 8))
            return tlm::TLM_BURST_ERROR_RESPONSE;
        if (gp.get_address() >= 4096 || gp.get_address() % len)
            return tlm::TLM_ADDRESS_ERROR_RESPONSE;
        return tlm::TLM_OK_RESPONSE;
    }
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
    {
        tlm::tlm_response_status s = gp.is_read() ? check(gp) : tlm::TLM_COMMAND_ERROR_RESPONSE;
        if (s == tlm::TLM_OK_RESPONSE) {
            const uint64_t cycles = (sc_core::sc_time_stamp() + delay).value() / period.value();
            std::memcpy(gp.get_data_ptr(), &cycles, gp.get_data_length() == 8 ? 8 : 4);
        }
        gp.set_response_status(s);
    }
    const sc_core::sc_time period{ 1, sc_core::SC_NS };
};

// Reuses one payload, as an initiator that cares for speed does, so that
// what is timed is the b_transport call and not the payload's construction.
struct Initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Initiator> socket;
    tlm::tlm_generic_payload gp;
    explicit Initiator(const sc_core::sc_module_name &n) : sc_module(n), socket("socket") {}
    uint64_t read(uint64_t address)
    {
        uint64_t v = 0;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_address(address);
        gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
        gp.set_data_length(8);
        gp.set_streaming_width(8);
        socket->b_transport(gp, delay);
        return v;
    }
};

Initiator *to_monitors, *to_empty, *to_clock;

void BM_TlmReadPmccntr(benchmark::State &state)
{
    for (auto _ : state)
        benchmark::DoNotOptimize(to_monitors->read(0x0F8));  // PMU.PMCCNTR_EL0
}
BENCHMARK(BM_TlmReadPmccntr)->Unit(benchmark::kNanosecond);

void BM_TlmReadEmptyTarget(benchmark::State &state)
{
    for (auto _ : state)
        benchmark::DoNotOptimize(to_empty->read(0x0F8));
}
BENCHMARK(BM_TlmReadEmptyTarget)->Unit(benchmark::kNanosecond);

void BM_TlmReadClockRegister(benchmark::State &state)
{
    for (auto _ : state)
        benchmark::DoNotOptimize(to_clock->read(0x0F8));
}
BENCHMARK(BM_TlmReadClockRegister)->Unit(benchmark::kNanosecond);

pmvp::sc::Monitors *the_monitors;

// A CPU model ahead in its quantum: an event reported now (a change of the
// kernel), then PMCCNTR read 100 ns ahead (Timeline::look, no copy of the
// kernel while no change is kept for before that instant).
void BM_MonitorsReadAheadAfterAChange(benchmark::State &state)
{
    const sc_core::sc_time ahead(100, sc_core::SC_NS);
    uint64_t v = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(the_monitors->report(0, PMVP_EV_INST_RETIRED, 1));
        benchmark::DoNotOptimize(the_monitors->pmu_read(0, PMVP_PMCCNTR_EL0, 0, v, ahead));
    }
}
BENCHMARK(BM_MonitorsReadAheadAfterAChange)->Unit(benchmark::kNanosecond);

// A CPU model's quantum of 1 us as large-soc's memory-bound thread tells it:
// STALL_BACKEND and STALL_BACKEND_MEM on at its start, off 500 and 600 ns
// into it, the instructions retired at its end, all told at its start with
// offsets; then simulated time reaches the quantum's end. Counters 0-3 count
// CPU_CYCLES, INST_RETIRED (interrupt enabled, as a sampling profiler sets
// it), STALL_BACKEND and STALL_BACKEND_MEM. Time per input (5 per quantum):
// what the bindings add to the kernel's level changes and report, and the
// process's wake-ups.
void BM_MonitorsQuantum(benchmark::State &state)
{
    pmvp::sc::Monitors &m = *the_monitors;
    const uint16_t events[] = { PMVP_EV_CPU_CYCLES, PMVP_EV_INST_RETIRED, PMVP_EV_STALL_BACKEND,
                                PMVP_EV_STALL_BACKEND_MEM };
    bool ok = true;
    for (unsigned n = 0; n < 4; n++)
        ok = ok && m.pmu_write(0, PMVP_PMEVTYPER_EL0, n, events[n]) == PMVP_OK;
    ok = ok && m.pmu_write(0, PMVP_PMINTENSET_EL1, 0, 1u << 1) == PMVP_OK &&
         m.pmu_write(0, PMVP_PMCNTENSET_EL0, 0, 0xF) == PMVP_OK &&
         m.pmu_write(0, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E) == PMVP_OK;
    if (!ok) {
        state.SkipWithError("the monitors refused the counters' set-up");
        return;
    }
    using sc_core::SC_NS;
    using sc_core::sc_time;
    const sc_time quantum(1, sc_core::SC_US), at500(500, SC_NS), at600(600, SC_NS);
    for (auto _ : state) {
        ok = m.set_level(0, PMVP_EV_STALL_BACKEND_MEM, 1) == PMVP_OK &&
             m.set_level(0, PMVP_EV_STALL_BACKEND, 1) == PMVP_OK &&
             m.set_level(0, PMVP_EV_STALL_BACKEND_MEM, 0, at500) == PMVP_OK &&
             m.set_level(0, PMVP_EV_STALL_BACKEND, 0, at600) == PMVP_OK &&
             m.report(0, PMVP_EV_INST_RETIRED, 500, quantum) == PMVP_OK;
        if (!ok) {
            state.SkipWithError("the monitors refused an input");
            return;
        }
        sc_core::sc_start(quantum);
    }
    state.counters["ns_per_input"] =
        benchmark::Counter(5.0 * (double)state.iterations(), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_MonitorsQuantum)->Unit(benchmark::kNanosecond);

pmvp::sc::Monitors *the_smt_monitors;

// A core-quantum of 1 us of large-soc's core as pmvp-soc's analytic CPU
// model tells it, both threads running: thread 0 stalls (STALL_BACKEND) for
// the first 100 ns, thread 1 for 600 ns of which 500 ns on memory
// (STALL_BACKEND_MEM); the instructions of both threads as shares of each
// stretch between those instants. Each step is one instant: the shares of
// the stretch that ends there, then the stall levels that change there.
// Each thread's counters 0-3 count CPU_CYCLES, INST_RETIRED (interrupt
// enabled), STALL_BACKEND and STALL_BACKEND_MEM.
struct SmtStep {
    uint64_t at_ns, since_ns;  // since_ns: the shares' window's start
    uint64_t retired[2];       // the shares of threads 0 and 1 (INST_RETIRED); none at 0
    unsigned num_levels;
    pmvp_level_change levels[3];
};
constexpr uint16_t kStall = PMVP_EV_STALL_BACKEND, kMem = PMVP_EV_STALL_BACKEND_MEM;
constexpr SmtStep kSmtQuantum[] = {
    { 0, 0, { 0, 0 }, 3, { { 0, kStall, 1 }, { 1, kStall, 1 }, { 1, kMem, 1 } } },
    { 100, 0, { 200, 50 }, 1, { { 0, kStall, 0 } } },
    { 500, 100, { 800, 200 }, 1, { { 1, kMem, 0 } } },
    { 600, 500, { 200, 50 }, 1, { { 1, kStall, 0 } } },
    { 1000, 600, { 800, 200 }, 0, {} },
};
constexpr unsigned kSmtSteps = sizeof kSmtQuantum / sizeof kSmtQuantum[0];
constexpr uint16_t kSmtEvents[] = { PMVP_EV_CPU_CYCLES, PMVP_EV_INST_RETIRED, kStall, kMem };

// The quantum's shares (the calls of report_shares) and level changes.
constexpr unsigned smt_count(bool levels)
{
    unsigned n = 0;
    for (const SmtStep &s : kSmtQuantum)
        n += levels ? s.num_levels : s.retired[0] != 0;
    return n;
}
constexpr unsigned kSmtShares = smt_count(false), kSmtLevels = smt_count(true);

unsigned smt_shares(const SmtStep &s, pmvp_share shares[2])
{
    for (unsigned t = 0; t < 2; t++)
        shares[t] = { t, PMVP_EV_INST_RETIRED, s.retired[t] };
    return s.retired[0] ? 2 : 0;
}

// That quantum through pmvp::sc::Monitors, told at its start with offsets,
// then simulated time brought to its end. state.range(0) == 1: each step
// as one input (report_shares with its level changes, or set_levels), as
// pmvp-soc tells it; 0: each share and level change as an input of its own
// (report_shares, set_level), as pmvp-soc told it before.
void BM_MonitorsSmtQuantum(benchmark::State &state)
{
    pmvp::sc::Monitors &m = *the_smt_monitors;
    const bool steps = state.range(0) == 1;
    bool ok = true;
    for (unsigned pe = 0; pe < 2; pe++) {
        for (unsigned n = 0; n < 4; n++)
            ok = ok && m.pmu_write(pe, PMVP_PMEVTYPER_EL0, n, kSmtEvents[n]) == PMVP_OK;
        ok = ok && m.pmu_write(pe, PMVP_PMINTENSET_EL1, 0, 1u << 1) == PMVP_OK &&
             m.pmu_write(pe, PMVP_PMCNTENSET_EL0, 0, 0xF) == PMVP_OK &&
             m.pmu_write(pe, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E) == PMVP_OK;
    }
    if (!ok) {
        state.SkipWithError("the monitors refused the counters' set-up");
        return;
    }
    using sc_core::sc_time;
    sc_time at[kSmtSteps], since[kSmtSteps];  // (made once: a CPU model has its offsets)
    for (unsigned i = 0; i < kSmtSteps; i++) {
        at[i] = sc_time((double)kSmtQuantum[i].at_ns, sc_core::SC_NS);
        since[i] = sc_time((double)kSmtQuantum[i].since_ns, sc_core::SC_NS);
    }
    for (auto _ : state) {
        for (unsigned i = 0; i < kSmtSteps; i++) {
            const SmtStep &s = kSmtQuantum[i];
            pmvp_share shares[2];
            unsigned n = smt_shares(s, shares);
            if (steps) {
                ok = ok && (n ? m.report_shares(shares, n, since[i], at[i], s.levels, s.num_levels)
                              : m.set_levels(s.levels, s.num_levels, at[i])) == PMVP_OK;
                continue;
            }
            ok = ok && (n == 0 || m.report_shares(shares, n, since[i], at[i]) == PMVP_OK);
            for (unsigned k = 0; k < s.num_levels; k++)
                ok = ok && m.set_level(s.levels[k].pe, s.levels[k].event, s.levels[k].level, at[i]) == PMVP_OK;
        }
        if (!ok) {
            state.SkipWithError("the monitors refused an input");
            return;
        }
        sc_core::sc_start(sc_time(1, sc_core::SC_US));
    }
    unsigned inputs = steps ? kSmtSteps : kSmtShares + kSmtLevels;
    state.counters["ns_per_input"] = benchmark::Counter((double)inputs * (double)state.iterations(),
                                                        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_MonitorsSmtQuantum)->Arg(0)->Arg(1)->Unit(benchmark::kNanosecond);

// The 2-PE kernel of BM_MonitorsSmtQuantum, counters set up as there, on
// the C API: false if the kernel refused the set-up.
bool set_up_smt_kernel(pmvp_core &core)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.num_pes = 2;
    bool ok = pmvp_core_init(&core, &cfg) == PMVP_OK;
    for (unsigned pe = 0; pe < 2; pe++) {
        for (unsigned n = 0; n < 4; n++)
            ok = ok && pmvp_pmu_write(&core, pe, PMVP_PMEVTYPER_EL0, n, kSmtEvents[n], 0) == PMVP_OK;
        ok = ok && pmvp_pmu_write(&core, pe, PMVP_PMINTENSET_EL1, 0, 1u << 1, 0) == PMVP_OK &&
             pmvp_pmu_write(&core, pe, PMVP_PMCNTENSET_EL0, 0, 0xF, 0) == PMVP_OK &&
             pmvp_pmu_write(&core, pe, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E, 0) == PMVP_OK;
    }
    return ok;
}

// The same quantum made on the kernel itself (the C API: each step's
// shares, then its level changes at once), quantum after quantum: the
// kernel's part of BM_MonitorsSmtQuantum, with no keeping for later, no
// wake-up and no simulation kernel.
void BM_KernelSmtQuantum(benchmark::State &state)
{
    static pmvp_core core;
    bool ok = set_up_smt_kernel(core);
    pmvp_time start = 0;
    for (auto _ : state) {
        for (const SmtStep &s : kSmtQuantum) {
            pmvp_share shares[2];
            unsigned n = smt_shares(s, shares);
            pmvp_time at = start + s.at_ns * 1000;
            ok = ok && (n == 0 || pmvp_core_report_shares(&core, shares, n, start + s.since_ns * 1000, at) == PMVP_OK);
            ok = ok && (s.num_levels == 0 || pmvp_core_set_levels(&core, s.levels, s.num_levels, at) == PMVP_OK);
        }
        start += 1000000;
    }
    if (!ok)
        state.SkipWithError("the kernel refused the set-up or an input");
}
BENCHMARK(BM_KernelSmtQuantum)->Unit(benchmark::kNanosecond);

// The floor of the bindings' part of a core-quantum: the least a SystemC
// wrapper costs that keeps a CPU model's steps told ahead of simulated time
// and makes them on the kernel once simulated time reaches them. Each call
// reads the simulated time, copies its step into a list (in the order told:
// one CPU model tells its steps in time order) and makes the steps now due,
// in that order. It tells no refusal at the call, wakes no process to raise
// an interrupt between two calls, answers no read ahead of the present and
// saves no checkpoint: what pmvp::sc::Monitors does beyond it.
class KeepAndReplay {
public:
    explicit KeepAndReplay(pmvp_core &core) : core_(core) {}
    int step(const SmtStep &s, const pmvp_share *shares, unsigned num_shares, const sc_core::sc_time &since,
             const sc_core::sc_time &at)
    {
        const pmvp_time now = sc_core::sc_time_stamp().value();  // in ps: the bench's resolution
        Kept k{ now + at.value(), now + since.value(), num_shares, s.num_levels, {}, {} };
        std::copy_n(shares, num_shares, k.shares);
        std::copy_n(s.levels, s.num_levels, k.levels);
        kept_.push_back(k);
        return make_due(now);
    }

private:
    struct Kept {
        pmvp_time at, since;
        unsigned num_shares, num_levels;
        pmvp_share shares[2];
        pmvp_level_change levels[3];
    };
    int make_due(pmvp_time now)
    {
        int err = PMVP_OK;
        size_t i = 0;
        for (; i < kept_.size() && kept_[i].at <= now; i++) {
            const Kept &k = kept_[i];
            if (k.num_shares && !err)
                err = pmvp_core_report_shares(&core_, k.shares, k.num_shares, k.since, k.at);
            if (k.num_levels && !err)
                err = pmvp_core_set_levels(&core_, k.levels, k.num_levels, k.at);
        }
        kept_.erase(kept_.begin(), kept_.begin() + (std::ptrdiff_t)i);
        return err;
    }
    pmvp_core &core_;
    std::vector<Kept> kept_;
};

// BM_MonitorsSmtQuantum/1's quantum through KeepAndReplay: the floor of
// its bindings' part (the difference with BM_KernelSmtQuantum and
// BM_EmptyQuantum, as for the bindings).
void BM_KeepAndReplayQuantum(benchmark::State &state)
{
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
        state.SkipWithError("the time resolution is not 1 ps");
        return;
    }
    static pmvp_core core;
    bool ok = set_up_smt_kernel(core);
    // The kernel starts at the present instant, as the monitors' does.
    ok = ok && pmvp_core_sync(&core, sc_core::sc_time_stamp().value()) == PMVP_OK;
    if (!ok) {
        state.SkipWithError("the kernel refused the counters' set-up");
        return;
    }
    KeepAndReplay wrapper(core);
    using sc_core::sc_time;
    sc_time at[kSmtSteps], since[kSmtSteps];
    for (unsigned i = 0; i < kSmtSteps; i++) {
        at[i] = sc_time((double)kSmtQuantum[i].at_ns, sc_core::SC_NS);
        since[i] = sc_time((double)kSmtQuantum[i].since_ns, sc_core::SC_NS);
    }
    for (auto _ : state) {
        for (unsigned i = 0; i < kSmtSteps; i++) {
            pmvp_share shares[2];
            unsigned n = smt_shares(kSmtQuantum[i], shares);
            ok = ok && wrapper.step(kSmtQuantum[i], shares, n, since[i], at[i]) == PMVP_OK;
        }
        if (!ok) {
            state.SkipWithError("the kernel refused an input");
            return;
        }
        sc_core::sc_start(sc_time(1, sc_core::SC_US));
    }
}
BENCHMARK(BM_KeepAndReplayQuantum)->Unit(benchmark::kNanosecond);

// An empty quantum: simulated time alone, for BM_MonitorsQuantum's share of
// the simulation kernel.
void BM_EmptyQuantum(benchmark::State &state)
{
    for (auto _ : state)
        sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
}
BENCHMARK(BM_EmptyQuantum)->Unit(benchmark::kNanosecond);

// ------------------------------------------------------ whole processes

// One run of a program: its standard output, wall time and peak RSS.
struct Process {
    std::string out;
    double seconds = 0;
    long max_rss_kib = 0;
    int status = -1;  // the exit status; -1 if it did not exit
    bool ok = false;  // it exited with status 0
};

// Runs args[0] with its arguments; says so on stderr if it fails, unless
// `quiet` (the caller decides what a failure is).
Process run(const std::vector<std::string> &args, bool quiet = false)
{
    Process r;
    int fd[2];
    if (pipe(fd) != 0)
        return r;
    auto start = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        std::vector<char *> argv;
        for (const std::string &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    close(fd[1]);
    char buf[4096];
    for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;)
        r.out.append(buf, (size_t)n);
    close(fd[0]);
    int status = 0;
    struct rusage ru {};
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
        return r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.max_rss_kib = ru.ru_maxrss;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.ok = r.status == 0;
    if (!r.ok && !quiet)
        std::fprintf(stderr, "pmvp-bench: %s failed\n", args[0].c_str());
    return r;
}

// The number after `key` in `text`, or -1.
double number_after(const std::string &text, const std::string &key)
{
    size_t at = text.find(key);
    return at == std::string::npos ? -1 : std::strtod(text.c_str() + at + key.size(), nullptr);
}

// The text after `key` up to the end of its line.
std::string line_after(const std::string &text, const std::string &key)
{
    size_t at = text.find(key);
    if (at == std::string::npos)
        return "";
    at += key.size();
    return text.substr(at, text.find('\n', at) - at);
}

// A whole-process figure: the fastest of its runs. This machine's noise only
// adds time, and it comes by whole processes: the same pmvp-soc binary has
// taken 0.48 s or 0.80 s for one run of iss-mrs.json, about half its runs
// each way, so a median of five follows the coin.
double fastest(const std::vector<double> &v)
{
    return v.empty() ? -1 : *std::min_element(v.begin(), v.end());
}

double median(std::vector<double> v)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// `runs` runs of each of `commands`, alternating (a slow spell of the
// machine falls on every command alike): each command's median host time,
// -1 where a run failed.
std::vector<double> alternated_medians(const std::vector<std::vector<std::string>> &commands, int runs)
{
    std::vector<std::vector<double>> v(commands.size());
    std::vector<bool> failed(commands.size());
    for (int i = 0; i < runs; i++)
        for (size_t k = 0; k < commands.size(); k++)
            if (!failed[k]) {
                Process p = run(commands[k]);
                failed[k] = !p.ok;
                v[k].push_back(p.seconds);
            }
    std::vector<double> m(commands.size());
    for (size_t k = 0; k < commands.size(); k++)
        m[k] = failed[k] ? -1 : median(v[k]);
    return m;
}

constexpr int kRuns = 5;                  // whole-process figures: the fastest of this many runs
constexpr int kMedianRuns = 7;            // figures 8 and 9 against QEMU: the median of this many
constexpr double kLargeSocQuanta = 1000;  // large-soc: 1 ms in quanta of 1 us

// Figure 1: pmvp-soc's own measure of simulation host time (sc_start only)
// for the idle 16 x 2 SoC over 1 s and over 1000 s of simulated time. The
// runs are well under a millisecond, so more of them are taken, the two
// kinds alternating so that neither gets a warmer machine.
struct Idle {
    double short_run = -1, long_run = -1;
};

Idle idle_soc()
{
    std::vector<double> v[2];
    for (int i = 0; i < 8 * kRuns; i++) {
        const char *time = i % 2 ? "1000s" : "1s";
        Process p = run({ PMVP_SOC, PMVP_BENCH_SCENARIOS "/idle-16x2.json", "--time", time, "--json", "-", "--quiet" });
        if (p.ok)
            v[i % 2].push_back(number_after(p.out, "\"host_seconds\":"));
    }
    return { fastest(v[0]), fastest(v[1]) };
}

// Figure 4 and 6: pmvp-soc runs: the fastest wall time, and the largest peak
// RSS seen.
struct SocRuns {
    double seconds = -1;
    long max_rss_kib = 0;
};

// kRuns runs of pmvp-soc with each of `variants` (its arguments after the
// program), alternating, so that a slow spell of the machine falls on each
// side of a ratio alike: one SocRuns per variant (seconds -1 where a run
// failed).
std::vector<SocRuns> soc_runs(const std::vector<std::vector<std::string>> &variants)
{
    std::vector<std::vector<double>> v(variants.size());
    std::vector<SocRuns> r(variants.size());
    std::vector<bool> failed(variants.size());
    for (int i = 0; i < kRuns; i++)
        for (size_t k = 0; k < variants.size(); k++) {
            if (failed[k])
                continue;
            std::vector<std::string> args = { PMVP_SOC };
            args.insert(args.end(), variants[k].begin(), variants[k].end());
            Process p = run(args);
            failed[k] = !p.ok;
            v[k].push_back(p.seconds);
            r[k].max_rss_kib = std::max(r[k].max_rss_kib, p.max_rss_kib);
        }
    for (size_t k = 0; k < variants.size(); k++)
        r[k].seconds = failed[k] ? -1 : fastest(v[k]);
    return r;
}

// `scenario` with the monitors attached and --detached, `options` added.
std::pair<SocRuns, SocRuns> attached_and_detached(const std::string &scenario,
                                                  const std::vector<std::string> &options = {})
{
    std::vector<std::string> on = { scenario, "--quiet" };
    on.insert(on.end(), options.begin(), options.end());
    std::vector<std::string> off = on;
    off.push_back("--detached");
    std::vector<SocRuns> r = soc_runs({ on, off });
    return { r[0], r[1] };
}

// Figure 5: the clocked baseline once (it is slow), pmvp kRuns times; the
// simulation time each reports, and whether their counts agree.
struct Baseline {
    double clocked = -1, lazy = -1;
    bool same_counts = false;
    std::string counts;
};

Baseline clocked_baseline()
{
    Baseline b;
    Process c = run({ PMVP_BENCH_CLOCKED, "clocked" });
    if (!c.ok)
        return b;
    b.clocked = number_after(c.out, "seconds ");
    b.counts = line_after(c.out, "counts ");
    std::vector<double> v;
    b.same_counts = !b.counts.empty();
    for (int i = 0; i < kRuns; i++) {
        Process p = run({ PMVP_BENCH_CLOCKED, "pmvp" });
        if (!p.ok)
            return b;
        v.push_back(number_after(p.out, "seconds "));
        b.same_counts = b.same_counts && line_after(p.out, "counts ") == b.counts;
    }
    b.lazy = fastest(v);
    return b;
}

// Figures 7 and 8: the AArch64 ISS running firmware/bench_loop.c (built
// with the firmware; its images and iteration counts in firmware/
// CMakeLists.txt). 7: iss-loop's guest instructions per host second with the
// monitors attached and --detached. 8: one guest MRS PMCCNTR_EL0's host time,
// (iss-mrs - iss-alu) / the MRS it executes, and one MSR PMCCNTR_EL0's
// (iss-msr), on pmvp and on QEMU TCG (the same loops built for QEMU's virt
// machine), when QEMU is installed. 9: one load of a device register
// (iss-load), likewise.
constexpr double kLoopInstructions = 100e6 * 18;  // iss-loop: 10^8 iterations of 18 instructions
constexpr double kMrsExecuted = 250e3 * 16;       // iss-mrs: 250,000 iterations of 16 MRS
constexpr double kShortMrsExecuted = 25e3 * 16;   // iss-mrs-short.elf: 25,000 of them

struct Iss {
    SocRuns loop_on, loop_off;
    SocRuns events_on, events_off;  // iss-loop-events: every event counter counting the ISS's events
    double pmvp_mrs_ns = -1, qemu_mrs_ns = -1, qemu_icount_mrs_ns = -1;
    double floor_mrs_ns = -1;                     // Unicorn alone, its hook answering a constant
    double pmvp_msr_ns = -1, qemu_msr_ns = -1;    // one MSR PMCCNTR_EL0
    double floor_msr_ns = -1;                     // Unicorn alone, its hook taking the write
    double pmvp_load_ns = -1, qemu_load_ns = -1;  // one load of a device register
    double floor_load_ns = -1;                    // Unicorn alone, its read hook placing a constant
};

// The fastest of kRuns pmvp-bench-unicorn-floor runs of `loop` (mrs, load or alu),
// as it measures its run; -1 if one failed.
double unicorn_floor_seconds(const char *loop, const char *iterations)
{
    std::vector<double> v;
    for (int i = 0; i < kRuns; i++) {
        Process p = run({ PMVP_UNICORN_FLOOR, loop, iterations });
        if (!p.ok)
            return -1;
        v.push_back(number_after(p.out, "seconds "));
    }
    return fastest(v);
}

// `name` found on PATH, or "".
std::string on_path(const std::string &name)
{
    const char *path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    for (size_t at = 0; at <= dirs.size();) {
        size_t end = dirs.find(':', at);
        if (end == std::string::npos)
            end = dirs.size();
        std::string candidate = dirs.substr(at, end - at) + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0)
            return candidate;
        at = end + 1;
    }
    return "";
}

// QEMU's command line for one of the bench's images built for its virt
// machine, `extra` arguments added.
std::vector<std::string> qemu_command(const std::string &qemu, const std::string &image,
                                      const std::vector<std::string> &extra = {})
{
    std::vector<std::string> args = { qemu,
                                      "-M",
                                      "virt",
                                      "-cpu",
                                      "max",
                                      "-smp",
                                      "1",
                                      "-nographic",
                                      "-no-reboot",
                                      "-semihosting-config",
                                      "enable=on,target=native",
                                      "-kernel",
                                      image };
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

// The fastest host time of QEMU running `image`, `extra` arguments added.
double qemu_seconds(const std::string &qemu, const std::string &image, const std::vector<std::string> &extra)
{
    std::vector<double> v;
    for (int i = 0; i < kRuns; i++) {
        Process p = run(qemu_command(qemu, image, extra));
        if (!p.ok)
            return -1;
        v.push_back(p.seconds);
    }
    return fastest(v);
}

Iss iss_runs()
{
    Iss r;
#ifdef PMVP_HAVE_FIRMWARE
    const std::string dir = PMVP_BENCH_SCENARIOS;
    std::tie(r.loop_on, r.loop_off) = attached_and_detached(dir + "/iss-loop.json");
    std::tie(r.events_on, r.events_off) = attached_and_detached(dir + "/iss-loop-events.json");
    // Figures 8 and 9 against QEMU: medians of kMedianRuns runs, pmvp's and
    // QEMU's alternating, where the machine's spells would tip the fastest.
    const std::string fw = PMVP_FIRMWARE_DIR, qemu = on_path("qemu-system-aarch64");
    std::vector<std::vector<std::string>> commands;
    // Each kind of loop, in this order, on pmvp and then on QEMU.
    enum { MRS, MSR, ALU, LOAD, KINDS };
    const char *kinds[KINDS] = { "mrs", "msr", "alu", "load" };
    for (const char *k : kinds)
        commands.push_back({ PMVP_SOC, dir + "/iss-" + k + ".json", "--quiet" });
    if (!qemu.empty())
        for (const char *k : kinds)
            commands.push_back(qemu_command(qemu, fw + "/iss-" + k + "-virt.elf"));
    const std::vector<double> m = alternated_medians(commands, kMedianRuns);
    // The host time of one access: a loop's median less the ALU loop's, on
    // pmvp (at = 0) or on QEMU (at = KINDS).
    auto per_access = [&](size_t at, int access) {
        const double a = m[at + access], alu = m[at + ALU];
        return a > 0 && alu > 0 ? (a - alu) / kMrsExecuted * 1e9 : -1;
    };
    r.pmvp_mrs_ns = per_access(0, MRS);
    r.pmvp_msr_ns = per_access(0, MSR);
    r.pmvp_load_ns = per_access(0, LOAD);
    if (!qemu.empty()) {
        r.qemu_mrs_ns = per_access(KINDS, MRS);
        r.qemu_msr_ns = per_access(KINDS, MSR);
        r.qemu_load_ns = per_access(KINDS, LOAD);
    }
    const double floor_alu = unicorn_floor_seconds("alu", "250000");
    auto floor_ns = [&](const char *loop) {
        const double s = unicorn_floor_seconds(loop, "250000");
        return s > 0 && floor_alu > 0 ? (s - floor_alu) / kMrsExecuted * 1e9 : -1;
    };
    r.floor_mrs_ns = floor_ns("mrs");
    r.floor_msr_ns = floor_ns("msr");
    r.floor_load_ns = floor_ns("load");
    if (!qemu.empty()) {
        double q_mrs = qemu_seconds(qemu, fw + "/iss-mrs-virt.elf", { "-icount", "shift=0" });
        double q_alu = qemu_seconds(qemu, fw + "/iss-alu-virt.elf", { "-icount", "shift=0" });
        if (q_mrs > 0 && q_alu > 0)
            r.qemu_icount_mrs_ns = (q_mrs - q_alu) / kMrsExecuted * 1e9;
    }
#endif
    return r;
}

// Figure 10: Debian's Linux on the virt machine, from reset to the power-off
// after /init's perf commands (the image set of scripts/linux-image.sh, at
// PMVP_LINUX_IMAGES; one PE, 512 MiB), in host time: pmvp attached and
// --detached, QEMU TCG without icount and with -icount shift=0,sleep=off
// (it does not wait in real time while the guest idles). Each the median of
// kLinuxRuns runs, the four alternating.
constexpr int kLinuxRuns = 5;

struct Linux {
    double pmvp_on = -1, pmvp_off = -1, qemu = -1, qemu_icount = -1;
    // The guest instructions of each pmvp run (its report's): detached, the
    // machine has no PMU, so perf's events are not supported and perf
    // record does not run the workload.
    double instructions_on = -1, instructions_off = -1;
};

// The instructions a pmvp-soc report says PE 0 retired ("N instructions,").
double reported_instructions(const std::string &report)
{
    const size_t end = report.find(" instructions, ");
    size_t begin = end;
    while (begin != std::string::npos && begin > 0 && std::isdigit((unsigned char)report[begin - 1]))
        begin--;
    return end == std::string::npos || begin == end ? -1 : std::stod(report.substr(begin, end - begin));
}

// The image set's runs, the kernel's command line naming /init's benchmark
// (firmware/linux/init: `pmvp.bench=NAME`; empty: its boot with perf), with
// QEMU's -icount run too if `icount`.
Linux linux_runs(const std::string &bench = "", bool icount = true)
{
    Linux r;
    // (The environment's PMVP_LINUX_IMAGES names another set: one made by
    // scripts/linux-image.sh OUT.)
    const char *set = std::getenv("PMVP_LINUX_IMAGES");
    const std::string images = set ? set : PMVP_LINUX_IMAGES, kernel = images + "/Image",
                      initrd = images + "/initrd.cpio.gz";
    const std::string append = "console=ttyAMA0 panic=-1" + (bench.empty() ? "" : " pmvp.bench=" + bench);
    if (access(kernel.c_str(), R_OK) != 0 || access(initrd.c_str(), R_OK) != 0) {
        std::fprintf(stderr, "pmvp-bench: no Linux image set at %s (bash scripts/linux-image.sh makes it)\n",
                     images.c_str());
        return r;
    }
    std::vector<std::string> pmvp = { PMVP_SOC,   "--machine", "virt",     "--kernel", kernel,   "--initrd", initrd,
                                      "--memory", "512M",      "--append", append,     "--time", "60s" };
    std::vector<std::vector<std::string>> variants = { pmvp, pmvp };
    variants[1].push_back("--detached");
    const std::string qemu = on_path("qemu-system-aarch64");
    if (!qemu.empty()) {
        std::vector<std::string> q = { qemu,   "-M",      "virt", "-cpu",       "max",        "-smp",
                                       "1",    "-m",      "512",  "-nographic", "-no-reboot", "-kernel",
                                       kernel, "-initrd", initrd, "-append",    append };
        variants.push_back(q);
        q.insert(q.end(), { "-icount", "shift=0,sleep=off" });
        if (icount)
            variants.push_back(q);
    }
    std::vector<std::vector<double>> seconds(variants.size());
    for (int i = 0; i < kLinuxRuns; i++)
        for (size_t k = 0; k < variants.size(); k++)
            if (Process p = run(variants[k], true); p.ok) {
                seconds[k].push_back(p.seconds);
                if (k < 2)
                    (k == 0 ? r.instructions_on : r.instructions_off) = reported_instructions(p.out);
            }
    double *out[] = { &r.pmvp_on, &r.pmvp_off, &r.qemu, &r.qemu_icount };
    for (size_t k = 0; k < variants.size(); k++)
        if (seconds[k].size() == (size_t)kLinuxRuns)
            *out[k] = median(seconds[k]);
    return r;
}

// Figure 11: perf's own workloads on the image set, each alone
// (firmware/linux/init's pmvp.bench=): `perf stat` of `perf bench sched
// pipe` (a context switch at every operation, and the PMU driver's
// reprogramming with it), `perf stat -I 10` of 100 runs of the workload, and
// `perf record -c 20000` of it (an overflow interrupt every 20,000
// instructions). A workload's figure is its run less the run that powers
// off as soon as /init starts (pmvp.bench=none), in host time and in guest
// instructions, so the boot they share cancels.
struct PerfWorkload {
    const char *bench, *figure;
    Linux run;
};

std::vector<PerfWorkload> perf_workloads(Linux &none)
{
    std::vector<PerfWorkload> w = { { "sched-pipe", "11. perf stat of perf bench sched pipe", {} },
                                    { "stat-interval", "11. perf stat -I 10", {} },
                                    { "record", "11. perf record -c 20000", {} } };
    none = linux_runs("none", false);
    for (PerfWorkload &k : w)
        k.run = linux_runs(k.bench, false);
    return w;
}

// ------------------------------------------------- counted instructions

// Host instructions as Valgrind's callgrind counts them: the same figure on
// every run of the same build, where this machine's timings swing by tens
// of percent. `--instructions` adds them to the table (valgrind on the PATH).

// callgrind's total of the instructions `program` executed while it
// collected (`options`: which functions); -1 if valgrind or the program
// failed (exited other than with status 0, or `cut_short`: 0 or 1, the
// status of a pmvp-soc run whose firmware --time stops before it exits).
double callgrind(const std::string &valgrind, const std::vector<std::string> &program,
                 const std::vector<std::string> &options = {}, bool cut_short = false)
{
    const std::string file = "/tmp/pmvp-bench-callgrind." + std::to_string(getpid());
    std::vector<std::string> args = { valgrind, "-q", "--tool=callgrind", "--callgrind-out-file=" + file };
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), program.begin(), program.end());
    Process p = run(args, true);
    std::string text;
    if (FILE *f = std::fopen(file.c_str(), "r")) {
        char buf[4096];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
            text.append(buf, n);
        std::fclose(f);
        std::remove(file.c_str());
    }
    double total = number_after(text, "\ntotals: ");
    if (p.ok || (cut_short && p.status == 1))
        return total;
    std::fprintf(stderr, "pmvp-bench: %s under callgrind failed\n", program[0].c_str());
    return -1;
}

// The micro-benchmarks counted, by their name in Google Benchmark's output.
struct Counted {
    const char *name;
    void (*fn)(benchmark::State &);
    int64_t arg;  // its argument; -1: none
};
const Counted kCounted[] = {
    { "BM_TlmReadPmccntr", BM_TlmReadPmccntr, -1 },
    { "BM_TlmReadEmptyTarget", BM_TlmReadEmptyTarget, -1 },
    { "BM_TlmReadClockRegister", BM_TlmReadClockRegister, -1 },
    { "BM_ReportEvent/0", BM_ReportEvent, 0 },
    { "BM_ReportEvent/1000", BM_ReportEvent, 1000 },
    { "BM_LevelChange/0", BM_LevelChange, 0 },
    { "BM_LevelChange/1", BM_LevelChange, 1 },
    { "BM_X86ReadAfterStep/1000", BM_X86ReadAfterStep, 1000 },
    { "BM_MonitorsSmtQuantum/1", BM_MonitorsSmtQuantum, 1 },
    { "BM_KernelSmtQuantum", BM_KernelSmtQuantum, -1 },
    { "BM_KeepAndReplayQuantum", BM_KeepAndReplayQuantum, -1 },
    { "BM_EmptyQuantum", BM_EmptyQuantum, -1 },
};

// `--count NAME ITERATIONS`: registers micro-benchmark NAME to run exactly
// ITERATIONS times, alone (under callgrind, by instructions_per_iteration).
// False if NAME is not counted.
bool register_count(const std::string &name, long iterations)
{
    for (const Counted &b : kCounted)
        if (name == b.name) {
            benchmark::internal::Benchmark *r = benchmark::RegisterBenchmark(("count:" + name).c_str(), b.fn);
            if (b.arg >= 0)
                r->Arg(b.arg);
            r->Iterations(iterations);
            return true;
        }
    return false;
}

// One iteration's instructions of micro-benchmark b: pmvp-bench under
// callgrind, collecting inside b's function only, run for 1,000 and for
// 2,000 iterations; the difference cancels the set-up.
double instructions_per_iteration(const std::string &valgrind, const std::string &self, const Counted &b)
{
    std::string function = b.name;
    function = "--toggle-collect=*" + function.substr(0, function.find('/')) + "(*";
    double total[2];
    for (int k = 0; k < 2; k++)
        total[k] = callgrind(valgrind,
                             { self, "--count", b.name, std::to_string(1000 * (k + 1)), "--benchmark_filter=^count:" },
                             { "--collect-atstart=no", function });
    return total[0] > 0 && total[1] > 0 ? (total[1] - total[0]) / 1000 : -1;
}

// ------------------------------------------------------------ reporting

// Keeps each benchmark's median real time per iteration (ns) as it prints.
struct Collector : benchmark::ConsoleReporter {
    std::map<std::string, double> ns;
    void ReportRuns(const std::vector<Run> &runs) override
    {
        for (const Run &r : runs)
            if (r.run_type == Run::RT_Iteration || r.aggregate_name == "median")
                ns[r.run_name.str()] = r.GetAdjustedRealTime();
        ConsoleReporter::ReportRuns(runs);
    }
};

void row(const char *figure, const std::string &measured, const char *target, bool met)
{
    std::printf("| %-56s | %-40s | %-10s | %-4s |\n", figure, measured.c_str(), target, met ? "met" : "MISS");
}

std::string fmt(const char *f, double a, double b = 0)
{
    char buf[96];
    std::snprintf(buf, sizeof buf, f, a, b);
    return buf;
}

// The table's head.
void print_table_head()
{
    std::printf("\n| %-56s | %-40s | %-10s | %-4s |\n", "figure", "measured", "target", "");
    std::printf("|%s|%s|%s|%s|\n", std::string(58, '-').c_str(), std::string(42, '-').c_str(),
                std::string(12, '-').c_str(), std::string(6, '-').c_str());
}

// A row with no target: a figure shown beside the others.
void note(const char *figure, const std::string &measured)
{
    std::printf("| %-56s | %-40s | %-10s | %-4s |\n", figure, measured.c_str(), "", "");
}

// Figure 10's rows: Linux's boot with perf, host seconds against host seconds.
void print_linux_boot(const Linux &linux_boot)
{
    auto seconds_row = [](const char *figure, double a, double b, double target) {
        if (a > 0 && b > 0)
            row(figure, fmt("%.1f s / %.1f s", a, b) + fmt(" = %.2fx", a / b), fmt("<= %.1fx", target).c_str(),
                a <= target * b);
    };
    seconds_row("10. Linux + perf to power-off: pmvp / QEMU TCG", linux_boot.pmvp_on, linux_boot.qemu, 1.5);
    if (linux_boot.instructions_on > 0 && linux_boot.instructions_off > 0) {
        const double on = linux_boot.pmvp_on / linux_boot.instructions_on * 1e9,
                     off = linux_boot.pmvp_off / linux_boot.instructions_off * 1e9;
        row("10. the same: pmvp attached / detached, per instruction",
            fmt("%.2f ns / %.2f ns", on, off) + fmt(" = %.3fx", on / off), "<= 1.1x", on <= 1.1 * off);
    }
    if (linux_boot.qemu_icount > 0)
        note("10. the same on QEMU TCG -icount shift=0,sleep=off", fmt("%.1f s", linux_boot.qemu_icount));
}

// Figure 11's rows: each workload's host time attached against detached,
// per guest instruction (the target's figure: detached, perf's events are
// not supported, so the guest does less, and perf record does not run the
// workload at all) and whole, and against QEMU TCG.
void print_perf_workloads(const std::vector<PerfWorkload> &w, const Linux &none)
{
    for (const PerfWorkload &k : w) {
        const Linux &r = k.run;
        const double on = r.pmvp_on - none.pmvp_on, off = r.pmvp_off - none.pmvp_off;
        const double n_on = r.instructions_on - none.instructions_on,
                     n_off = r.instructions_off - none.instructions_off;
        if (r.pmvp_on <= 0 || r.pmvp_off <= 0 || none.pmvp_on <= 0 || none.pmvp_off <= 0 || n_on <= 0 || n_off <= 0)
            continue;
        const double ns_on = on / n_on * 1e9, ns_off = off / n_off * 1e9;
        row((std::string(k.figure) + ": attached / detached, per insn").c_str(),
            fmt("%.1f ns / %.1f ns", ns_on, ns_off) + fmt(" = %.2fx", ns_on / ns_off), "<= 1.1x",
            ns_on <= 1.1 * ns_off);
        note((std::string(k.figure) + ": the same, whole").c_str(),
             fmt("%.2f s / %.2f s", on, off) + fmt(" = %.2fx", on / off));
        if (r.qemu > 0 && none.qemu > 0)
            note((std::string(k.figure) + ": pmvp attached / QEMU TCG").c_str(),
                 fmt("%.2f s / %.2f s", on, r.qemu - none.qemu) + fmt(" = %.2fx", on / (r.qemu - none.qemu)));
    }
}

// Whole pmvp-soc runs counted under callgrind: `scenario` (a path) with the
// monitors attached and --detached, `options` added (`cut_short`: a --time
// that stops the firmware before it exits).
std::pair<double, double> counted_attached_and_detached(const std::string &valgrind, const std::string &scenario,
                                                        const std::vector<std::string> &options = {},
                                                        bool cut_short = false)
{
    std::vector<std::string> on = { PMVP_SOC, scenario, "--quiet" };
    on.insert(on.end(), options.begin(), options.end());
    std::vector<std::string> off = on;
    off.push_back("--detached");
    return { callgrind(valgrind, on, {}, cut_short), callgrind(valgrind, off, {}, cut_short) };
}

// The figures of the table in host instructions (--instructions): the
// micro-benchmarks per iteration, pmvp-soc's runs whole. Figure 7's runs
// are cut to 2 ms of simulated time (2 x 10^6 guest instructions), figure
// 8's are the 25,000-iteration images (400,000 MRS). `whole`: the whole-process
// figures too.
void print_counted(const std::string &valgrind, bool whole)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return;
    self[len] = 0;
    std::fflush(stdout);  // the time table whole before the progress line, in a log of both
    std::fprintf(stderr, "pmvp-bench: counting host instructions under callgrind...\n");
    std::map<std::string, double> per;
    for (const Counted &b : kCounted)
        per[b.name] = instructions_per_iteration(valgrind, self, b);
    std::printf("\nHost instructions (callgrind; the same on every run of this build):\n\n");
    std::printf("| %-56s | %-40s | %-10s | %-4s |\n", "figure", "instructions", "target", "");
    std::printf("|%s|%s|%s|%s|\n", std::string(58, '-').c_str(), std::string(42, '-').c_str(),
                std::string(12, '-').c_str(), std::string(6, '-').c_str());
    auto ratio_row = [](const char *figure, double a, double b, double target, const char *of) {
        if (a > 0 && b > 0)
            row(figure, fmt("%.0f / %.0f", a, b) + fmt(" = %.2fx", a / b) + of, fmt("<= %.2fx", target).c_str(),
                a / b <= target);
    };
    auto info = [](const char *figure, double v, const char *unit) {
        if (v > 0)
            std::printf("| %-56s | %-40s | %-10s | %-4s |\n", figure, (fmt("%.0f ", v) + unit).c_str(), "", "");
    };
    auto ratio_info = [](const char *figure, double a, double b) {
        if (a > 0 && b > 0)
            std::printf("| %-56s | %-40s | %-10s | %-4s |\n", figure,
                        (fmt("%.0f / %.0f", a, b) + fmt(" = %.2fx", a / b)).c_str(), "", "");
    };
    ratio_row("2. TLM read of PMU.PMCCNTR_EL0 / empty target", per["BM_TlmReadPmccntr"], per["BM_TlmReadEmptyTarget"],
              3, "");
    ratio_info("2. the floor: a TLM register of a fixed clock / empty", per["BM_TlmReadClockRegister"],
               per["BM_TlmReadEmptyTarget"]);
    info("3. event report, 6 counters, filtering (same instant)", per["BM_ReportEvent/0"], "a report");
    info("3. event report, time advancing 1 ns per report", per["BM_ReportEvent/1000"], "a report");
    info("3. level change, 2 PEs x 6 counters", per["BM_LevelChange/0"], "a change");
    info("3. level change, 2 PEs x 31 counters, 2 count it", per["BM_LevelChange/1"], "a change");
    info("3. x86 counter read after a time step", per["BM_X86ReadAfterStep/1000"], "a read");
    double monitors = per["BM_MonitorsSmtQuantum/1"], kernel = per["BM_KernelSmtQuantum"];
    double bindings = monitors - per["BM_EmptyQuantum"] - kernel;
    ratio_row("4. large-soc core-quantum: the bindings' / the kernel's", bindings, kernel, 1, " (sc_start apart)");
    if (double keep = per["BM_KeepAndReplayQuantum"]; keep > 0)
        ratio_info("4. the floor: a wrapper that only keeps and replays / kernel",
                   keep - per["BM_EmptyQuantum"] - kernel, kernel);
    if (!whole)
        return;
    auto [large_on, large_off] = counted_attached_and_detached(valgrind, PMVP_SCENARIOS "/large-soc.json");
    ratio_info("4. pmvp-soc large-soc, monitors attached / detached", large_on, large_off);
    auto [dflt_on, dflt_off] = counted_attached_and_detached(valgrind, PMVP_SCENARIOS "/default.json");
    ratio_info("4. pmvp-soc default, monitors attached / detached", dflt_on, dflt_off);
#ifdef PMVP_HAVE_FIRMWARE
    const std::string dir = PMVP_BENCH_SCENARIOS, fw = PMVP_FIRMWARE_DIR;
    auto [loop_on, loop_off] =
        counted_attached_and_detached(valgrind, dir + "/iss-loop.json", { "--time", "2ms" }, true);
    ratio_row("7. ISS loop 2 ms, attached / detached", loop_on, loop_off, 1.03, "");
    auto [events_on, events_off] =
        counted_attached_and_detached(valgrind, dir + "/iss-loop-events.json", { "--time", "2ms" }, true);
    ratio_row("7. the same, 31 counters counting the ISS's events", events_on, events_off, 1.05, "");
    double mrs =
        callgrind(valgrind, { PMVP_SOC, dir + "/iss-mrs.json", "--quiet", "--kernel", fw + "/iss-mrs-short.elf" });
    double alu =
        callgrind(valgrind, { PMVP_SOC, dir + "/iss-alu.json", "--quiet", "--kernel", fw + "/iss-alu-short.elf" });
    if (mrs > 0 && alu > 0)
        info("8. one guest MRS PMCCNTR_EL0 on pmvp's ISS", (mrs - alu) / kShortMrsExecuted, "");
    double msr =
        callgrind(valgrind, { PMVP_SOC, dir + "/iss-msr.json", "--quiet", "--kernel", fw + "/iss-msr-short.elf" });
    if (msr > 0 && alu > 0)
        info("8. one guest MSR PMCCNTR_EL0 on pmvp's ISS", (msr - alu) / kShortMrsExecuted, "");
    double load =
        callgrind(valgrind, { PMVP_SOC, dir + "/iss-load.json", "--quiet", "--kernel", fw + "/iss-load-short.elf" });
    if (load > 0 && alu > 0)
        info("9. one guest load of PMU.PMCCNTR_EL0 on pmvp's ISS", (load - alu) / kShortMrsExecuted, "");
#endif
    const double floor_alu = callgrind(valgrind, { PMVP_UNICORN_FLOOR, "alu", "25000" });
    auto floor_row = [&](const char *figure, const char *loop) {
        const double n = callgrind(valgrind, { PMVP_UNICORN_FLOOR, loop, "25000" });
        if (n > 0 && floor_alu > 0)
            info(figure, (n - floor_alu) / kShortMrsExecuted, "");
    };
    floor_row("8. the floor: Unicorn, its MRS hook answering a constant", "mrs");
    floor_row("8. the floor: Unicorn, its MSR hook taking the write", "msr");
    floor_row("9. the floor: Unicorn, its MMIO read answering a constant", "load");
}

// Takes option `name` and the `values` arguments after it out of argv:
// them, or nothing if it is absent.
std::vector<std::string> take_option(int &argc, char **argv, const char *name, int values)
{
    for (int i = 1; i < argc; i++)
        if (std::string(argv[i]) == name && i + values < argc) {
            std::vector<std::string> taken(argv + i, argv + i + values + 1);
            std::copy(argv + i + values + 1, argv + argc + 1, argv + i);  // argv[argc] is null
            argc -= values + 1;
            return taken;
        }
    return {};
}

}  // namespace

int sc_main(int argc, char **argv)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    pmvp::sc::Monitors monitors("monitors", cfg);
    pmvp_core_config smt = cfg;
    smt.num_pes = 2;
    pmvp::sc::Monitors smt_monitors("smt_monitors", smt);
    EmptyTarget empty("empty");
    ClockRegister clock("clock");
    Initiator a("a"), b("b"), d("d");
    a.socket.bind(monitors.pmu_socket[0]);
    b.socket.bind(empty.socket);
    d.socket.bind(clock.socket);
    to_monitors = &a;
    to_empty = &b;
    to_clock = &d;
    the_monitors = &monitors;
    the_smt_monitors = &smt_monitors;
    sc_core::sc_start(sc_core::SC_ZERO_TIME);

    // --micro: the micro-benchmarks alone, without the whole-process runs
    // and the table (to compare two builds of the kernel or the bindings).
    // --instructions: the table's figures in host instructions too.
    // --count NAME N: one micro-benchmark, N iterations (for --instructions).
    const bool micro = take_option(argc, argv, "--micro", 0).size() == 1;
    const bool instructions = take_option(argc, argv, "--instructions", 0).size() == 1;
    // --linux: figures 10 and 11 alone (the image set's runs).
    if (take_option(argc, argv, "--linux", 0).size() == 1) {
        Linux linux_boot = linux_runs(), linux_none;
        std::vector<PerfWorkload> workloads = perf_workloads(linux_none);
        print_table_head();
        print_linux_boot(linux_boot);
        print_perf_workloads(workloads, linux_none);
        return 0;
    }
    std::vector<std::string> count = take_option(argc, argv, "--count", 2);
    if (count.size() == 3 && !register_count(count[1], std::atol(count[2].c_str()))) {
        std::fprintf(stderr, "pmvp-bench: --count: %s is not a counted benchmark\n", count[1].c_str());
        return 2;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 2;
    Collector c;
    benchmark::RunSpecifiedBenchmarks(&c);
    if (count.size() == 3)
        return 0;
    const std::string valgrind = instructions ? on_path("valgrind") : "";
    if (instructions && valgrind.empty())
        std::fprintf(stderr, "pmvp-bench: --instructions: valgrind is not on the PATH\n");
    if (micro) {
        if (!valgrind.empty())
            print_counted(valgrind, false);
        return 0;
    }

    std::fprintf(stderr, "pmvp-bench: whole-process runs (pmvp-soc, pmvp-bench-clocked)...\n");
    Idle idle = idle_soc();
    double idle1 = idle.short_run, idle1000 = idle.long_run;
    const std::string large = PMVP_SCENARIOS "/large-soc.json", dflt = PMVP_SCENARIOS "/default.json";
    auto [large_on, large_off] = attached_and_detached(large);
    auto [dflt_on, dflt_off] = attached_and_detached(dflt);
    Baseline base = clocked_baseline();
    Iss iss = iss_runs();
    Linux linux_boot = linux_runs(), linux_none;
    std::vector<PerfWorkload> workloads = perf_workloads(linux_none);

    print_table_head();
    if (idle1 > 0 && idle1000 > 0)
        row("1. idle 16 x 2 SoC, host time 1000 s / 1 s simulated",
            fmt("%.3f ms / %.3f ms", idle1000 * 1e3, idle1 * 1e3) + fmt(" = %.2fx", idle1000 / idle1), "<= 1.05x",
            idle1000 / idle1 <= 1.05);
    double tlm = c.ns["BM_TlmReadPmccntr"], tlm0 = c.ns["BM_TlmReadEmptyTarget"];
    if (tlm > 0 && tlm0 > 0)
        row("2. TLM read of PMU.PMCCNTR_EL0 / empty target",
            fmt("%.1f ns / %.1f ns", tlm, tlm0) + fmt(" = %.2fx", tlm / tlm0), "<= 3x", tlm / tlm0 <= 3);
    double clock_reg = c.ns["BM_TlmReadClockRegister"];
    if (clock_reg > 0 && tlm0 > 0)
        std::printf("| %-56s | %-40s | %-10s | %-4s |\n", "2. the floor: a TLM register of a fixed clock / empty",
                    (fmt("%.1f ns / %.1f ns", clock_reg, tlm0) + fmt(" = %.2fx", clock_reg / tlm0)).c_str(), "", "");
    double inc = c.ns["BM_IncrementLoop"];
    double report = c.ns["BM_ReportEvent/0"], report_t = c.ns["BM_ReportEvent/1000"];
    if (inc > 0 && report > 0)
        row("3. event report, 6 counters, filtering (same instant)",
            fmt("%.1f ns = %.0fx a 64-bit increment", report, report / inc), "<= 5 ns", report <= 5);
    if (inc > 0 && report_t > 0)
        row("3. event report, time advancing 1 ns per report",
            fmt("%.1f ns = %.0fx a 64-bit increment", report_t, report_t / inc), "<= 5 ns", report_t <= 5);
    double level6 = c.ns["BM_LevelChange/0"], level31 = c.ns["BM_LevelChange/1"];
    if (level6 > 0)
        row("3. level change, 2 PEs x 6 counters", fmt("%.1f ns", level6), "<= 20 ns", level6 <= 20);
    if (level31 > 0)
        row("3. level change, 2 PEs x 31 counters, 2 count it", fmt("%.1f ns", level31), "<= 20 ns", level31 <= 20);
    double x86 = c.ns["BM_X86ReadAfterStep/1000"];
    if (x86 > 0)
        row("3. x86 counter read after a time step", fmt("%.1f ns", x86), "<= 30 ns", x86 <= 30);
    // pmvp-soc whole, without a target: its analytic CPU model does almost
    // no work of its own, so the ratio weighs the monitors against a toy;
    // the bindings' share of a core-quantum (instructions) is the target.
    auto soc_row = [](const char *figure, const SocRuns &on, const SocRuns &off) {
        if (on.seconds > 0 && off.seconds > 0)
            std::printf(
                "| %-56s | %-40s | %-10s | %-4s |\n", figure,
                (fmt("%.3f s / %.3f s", on.seconds, off.seconds) + fmt(" = %.2fx", on.seconds / off.seconds)).c_str(),
                "", "");
    };
    soc_row("4. pmvp-soc large-soc, monitors attached / detached", large_on, large_off);
    soc_row("4. pmvp-soc default, monitors attached / detached", dflt_on, dflt_off);
    if (base.clocked > 0 && base.lazy > 0)
        row(base.same_counts ? "5. clocked baseline / pmvp, 1e7 cycles, 2 threads, same counts"
                             : "5. clocked baseline / pmvp: THE COUNTS DIFFER",
            fmt("%.3f s / %.6f s", base.clocked, base.lazy) + fmt(" = %.0fx", base.clocked / base.lazy), ">= 1000x",
            base.same_counts && base.clocked / base.lazy >= 1000);
    row("6. model state per PE (pmvp_pe: PMU + AMU + levels)", fmt("%.0f B", (double)sizeof(pmvp_pe)), "<= 4096 B",
        sizeof(pmvp_pe) <= 4096);
    std::printf("| %-56s | %-40s | %-10s | %-4s |\n", "6. a core (pmvp_core, room for 8 PEs)",
                fmt("%.0f B", (double)sizeof(pmvp_core)).c_str(), "", "");
    if (large_on.max_rss_kib > 0)
        std::printf("| %-56s | %-40s | %-10s | %-4s |\n", "6. peak RSS, pmvp-soc large-soc (64 cores x 2 threads)",
                    fmt("%.1f MiB", (double)large_on.max_rss_kib / 1024).c_str(), "", "");
    // Figure 7's rows: guest instructions per host second, attached and detached.
    auto iss_row = [&](const char *figure, const SocRuns &on, const SocRuns &off, double target) {
        if (on.seconds > 0 && off.seconds > 0)
            row(figure,
                fmt("%.0f M / %.0f M", kLoopInstructions / on.seconds / 1e6, kLoopInstructions / off.seconds / 1e6) +
                    fmt(" = %.3fx slower", on.seconds / off.seconds),
                fmt("<= %.2fx", target).c_str(), on.seconds / off.seconds <= target);
    };
    iss_row("7. ISS loop, guest instructions per host s, attached/detached", iss.loop_on, iss.loop_off, 1.03);
    iss_row("7. the same, 31 counters counting the ISS's events", iss.events_on, iss.events_off, 1.05);
    double quantum = c.ns["BM_MonitorsQuantum"], empty_quantum = c.ns["BM_EmptyQuantum"];
    if (quantum > 0 && empty_quantum > 0)
        note("4. a quantum of 5 inputs through the bindings, per input",
             fmt("%.1f ns (%.0f ns a quantum, ", quantum / 5, quantum) + fmt("%.0f ns of it sc_start)", empty_quantum));
    double smt_alone = c.ns["BM_MonitorsSmtQuantum/0"], smt_steps = c.ns["BM_MonitorsSmtQuantum/1"];
    double smt_kernel = c.ns["BM_KernelSmtQuantum"];
    if (smt_alone > 0 && smt_steps > 0 && empty_quantum > 0 && smt_kernel > 0)
        note("4. a 2-thread core-quantum (pmvp-soc's), through the bindings",
             fmt("%.0f ns as %.0f steps, ", smt_steps, kSmtSteps) +
                 fmt("%.0f ns as %.0f inputs; ", smt_alone, kSmtShares + kSmtLevels) +
                 fmt("the kernel's part %.0f ns, sc_start %.0f ns", smt_kernel, empty_quantum));
    if (double keep = c.ns["BM_KeepAndReplayQuantum"]; keep > 0)
        note("4. the same through a wrapper that only keeps and replays", fmt("%.0f ns", keep));
    // Scale with the cores of a SoC: large-soc's four clusters of 1, 16 and
    // 64 cores. The monitors' host time (attached minus detached) per core
    // and quantum (1 us) of simulated time: the cost of that core's inputs.
    for (const auto &[per_cluster, cores] :
         std::vector<std::pair<std::string, int>>{ { "1", 4 }, { "16", 64 }, { "64", 256 } }) {
        auto [on, off] = attached_and_detached(large, { "--cores", per_cluster });
        if (on.seconds > 0 && off.seconds > 0)
            note(fmt("4. large-soc with %.0f cores: monitors per core-quantum", cores).c_str(),
                 fmt("%.2f us", (on.seconds - off.seconds) / (cores * kLargeSocQuanta) * 1e6) +
                     fmt(" (%.3f s / %.3f s)", on.seconds, off.seconds));
    }
    if (iss.pmvp_mrs_ns > 0)
        note("8. host time of one guest MRS PMCCNTR_EL0: pmvp's ISS", fmt("%.0f ns", iss.pmvp_mrs_ns));
    if (iss.floor_mrs_ns > 0)
        note("8. the floor: Unicorn, its MRS hook answering a constant", fmt("%.0f ns", iss.floor_mrs_ns));
    // pmvp's host time of one guest access against QEMU's, as a ratio row.
    auto versus_qemu = [](const char *figure, double pmvp, double qemu, double target) {
        if (pmvp > 0 && qemu > 0)
            row(figure, fmt("%.0f ns / %.0f ns", pmvp, qemu) + fmt(" = %.2fx", pmvp / qemu),
                fmt("<= %.1fx", target).c_str(), pmvp <= target * qemu);
    };
    versus_qemu("8. one guest MRS PMCCNTR_EL0: pmvp's ISS / QEMU TCG", iss.pmvp_mrs_ns, iss.qemu_mrs_ns, 1.0);
    if (iss.qemu_mrs_ns > 0)
        note("8. the same on QEMU TCG", fmt("%.0f ns", iss.qemu_mrs_ns));
    if (iss.qemu_icount_mrs_ns > 0)
        note("8. the same on QEMU TCG -icount shift=0", fmt("%.0f ns", iss.qemu_icount_mrs_ns));
    versus_qemu("8. one guest MSR PMCCNTR_EL0: pmvp's ISS / QEMU TCG", iss.pmvp_msr_ns, iss.qemu_msr_ns, 1.0);
    if (iss.floor_msr_ns > 0)
        note("8. the floor: Unicorn, its MSR hook taking the write", fmt("%.0f ns", iss.floor_msr_ns));
    versus_qemu("9. one guest load of PMU.PMCCNTR / of QEMU's UART (MMIO)", iss.pmvp_load_ns, iss.qemu_load_ns, 1.0);
    if (iss.floor_load_ns > 0)
        note("9. the floor: Unicorn, its MMIO read answering a constant", fmt("%.0f ns", iss.floor_load_ns));
    print_linux_boot(linux_boot);
    print_perf_workloads(workloads, linux_none);
    if (!base.same_counts)
        std::printf("\nclocked baseline counts: %s\n", base.counts.c_str());
    if (!valgrind.empty())
        print_counted(valgrind, true);
    return 0;
}
