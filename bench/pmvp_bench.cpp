// SPDX-License-Identifier: Apache-2.0
//
// pmvp-bench: micro-benchmarks of the kernel and the bindings (Google
// Benchmark), then a table of the figures docs/PERFORMANCE.md records, each
// a ratio measured in this one run, beside its target. Nothing here is
// asserted: the figures are measured and reported.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "pmvp/systemc/monitors.h"

extern "C" {
#include "pmvp/core.h"
#include "pmvp/events.h"
#include "pmvp/fields.h"
#include "pmvp/pmu.h"
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
                pmvp_pmu_write(&core, p, PMVP_PMEVTYPER_EL0, n, ev[n] | (n == 3 ? PMEVTYPER_EL0_U : 0), 0);
            pmvp_pmu_write(&core, p, PMVP_PMCNTENSET_EL0, 0, 0x3F | PMVP_PMU_C, 0);
            pmvp_pmu_write(&core, p, PMVP_PMCR_EL0, 0, PMCR_EL0_E | PMCR_EL0_LC, 0);
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

// ---------------------------------------------------------- the bindings

struct EmptyTarget : sc_core::sc_module {
    tlm_utils::simple_target_socket<EmptyTarget> socket;
    explicit EmptyTarget(const sc_core::sc_module_name &n) : sc_module(n), socket("socket")
    {
        socket.register_b_transport(this, &EmptyTarget::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &) { gp.set_response_status(tlm::TLM_OK_RESPONSE); }
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

Initiator *to_monitors, *to_empty;

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
    std::printf("| %-52s | %-28s | %-14s | %-4s |\n", figure, measured.c_str(), target, met ? "met" : "MISS");
}

std::string fmt(const char *f, double a, double b = 0)
{
    char buf[96];
    std::snprintf(buf, sizeof buf, f, a, b);
    return buf;
}

}  // namespace

int sc_main(int argc, char **argv)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    pmvp::sc::Monitors monitors("monitors", cfg);
    EmptyTarget empty("empty");
    Initiator a("a"), b("b");
    a.socket.bind(*monitors.pmu_socket[0]);
    b.socket.bind(empty.socket);
    to_monitors = &a;
    to_empty = &b;
    sc_core::sc_start(sc_core::SC_ZERO_TIME);

    benchmark::Initialize(&argc, argv);
    Collector c;
    benchmark::RunSpecifiedBenchmarks(&c);

    std::printf("\n| %-52s | %-28s | %-14s | %-4s |\n", "figure", "measured", "target", "");
    std::printf("|%s|%s|%s|%s|\n", std::string(54, '-').c_str(), std::string(30, '-').c_str(),
                std::string(16, '-').c_str(), std::string(6, '-').c_str());
    double inc = c.ns["BM_IncrementLoop"];
    double report = c.ns["BM_ReportEvent/0"], report_t = c.ns["BM_ReportEvent/1000"];
    double tlm = c.ns["BM_TlmReadPmccntr"], tlm0 = c.ns["BM_TlmReadEmptyTarget"];
    if (inc > 0 && report > 0)
        row("3. event report, 6 counters, filtering (same instant)",
            fmt("%.1f ns = %.0fx increment", report, report / inc), "<= 10 ns", report <= 10);
    if (inc > 0 && report_t > 0)
        row("3. event report, time advancing 1 ns per report", fmt("%.1f ns = %.0fx increment", report_t, report_t / inc),
            "<= 10 ns", report_t <= 10);
    if (tlm > 0 && tlm0 > 0)
        row("2. TLM read of PMU.PMCCNTR_EL0 / empty target",
            fmt("%.1f ns / %.1f ns", tlm, tlm0) + fmt(" = %.2fx", tlm / tlm0), "<= 1.3x", tlm / tlm0 <= 1.3);
    size_t per_pe = sizeof(pmvp_pe);
    row("6. model state per PE (PMU + AMU + levels)", fmt("%.0f B", (double)per_pe), "<= 4096 B", per_pe <= 4096);
    return 0;
}
