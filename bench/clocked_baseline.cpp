// SPDX-License-Identifier: Apache-2.0
//
// pmvp-bench-clocked: one workload on a 2-thread core, counted by one of two
// SystemC models of the same monitors, or both side by side, chosen by the
// first argument:
//
//   clocked  the deliberately naive baseline: an sc_clock at the processor
//            frequency and a method that runs on every rising edge and steps
//            the per-cycle reference model (tests/reference), which applies
//            the counting rules cycle by cycle;
//   pmvp     pmvp::sc::Monitors, which counts lazily;
//   both     the two in one simulation: exit status 1 if their counts differ
//            (a test runs this on a short workload).
//
// Every model gets the same inputs at the same instants from the same
// CPU-model thread. The program prints the final counts of each model and
// the host time the simulation took (sc_start only, not process start-up);
// pmvp-bench runs it each way alone, checks that the counts are identical
// and reports the ratio.
//
// usage: pmvp-bench-clocked clocked|pmvp|both [processor cycles, default 10000000]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "pmvp/systemc/monitors.h"
#include "reference_pmu.h"

extern "C" {
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/fields.h"
}

namespace {

constexpr unsigned kPes = 2;
constexpr uint64_t kHz = 2000000000;  // 500 ps per cycle
constexpr pmvp_time kCyclePs = 500;
constexpr pmvp_time kStep = 10000000;  // the CPU model's quantum: 10 us

pmvp_time now_ps()
{
    return sc_core::sc_time_stamp().value();
}

// What the CPU model can tell either model.
class Sink {
public:
    virtual ~Sink() = default;
    virtual void write(unsigned pe, pmvp_pmu_reg reg, unsigned n, uint64_t v) = 0;
    virtual uint64_t read(unsigned pe, pmvp_pmu_reg reg, unsigned n) = 0;
    virtual void report(unsigned pe, uint16_t event, uint64_t count) = 0;
    virtual void level(unsigned pe, uint16_t event, uint32_t level) = 0;
    virtual void context(unsigned pe, const pmvp_context &ctx) = 0;
    virtual void wfi(unsigned pe, bool in_wfi) = 0;
};

[[noreturn]] void fail(const char *what, int err)
{
    std::fprintf(stderr, "pmvp-bench-clocked: %s: %s\n", what, pmvp_strerror(err));
    std::exit(3);
}

// The naive clocked model: every processor cycle is a SystemC activation.
class Clocked : public sc_core::sc_module, public Sink {
public:
    sc_core::sc_in<bool> clk;
    SC_HAS_PROCESS(Clocked);
    Clocked(const sc_core::sc_module_name &name, const pmvp_core_config &cfg) : sc_module(name), ref_(cfg)
    {
        SC_METHOD(edge);
        sensitive << clk.pos();
        dont_initialize();
    }
    void write(unsigned pe, pmvp_pmu_reg reg, unsigned n, uint64_t v) override { ref_.write(pe, reg, n, v, now_ps()); }
    uint64_t read(unsigned pe, pmvp_pmu_reg reg, unsigned n) override { return ref_.read(pe, reg, n, now_ps()); }
    void report(unsigned pe, uint16_t ev, uint64_t count) override { ref_.report(pe, ev, count, now_ps()); }
    void level(unsigned pe, uint16_t ev, uint32_t v) override { ref_.set_level(pe, ev, v, now_ps()); }
    void context(unsigned pe, const pmvp_context &ctx) override { ref_.set_context(pe, ctx, now_ps()); }
    void wfi(unsigned pe, bool in_wfi) override { ref_.set_pe_state(pe, in_wfi ? PMVP_PE_WFI : PMVP_PE_RUN, now_ps()); }

private:
    void edge() { ref_.advance(now_ps()); }
    pmvp::ref::Core ref_;
};

// pmvp: the monitors module, WFI through its signal.
class Lazy : public sc_core::sc_module, public Sink {
public:
    Lazy(const sc_core::sc_module_name &name, const pmvp_core_config &cfg)
        : sc_module(name), monitors_("monitors", cfg), wfi_("wfi", kPes)
    {
        for (unsigned p = 0; p < kPes; p++)
            monitors_.wfi[p](wfi_[p]);
    }
    void write(unsigned pe, pmvp_pmu_reg reg, unsigned n, uint64_t v) override
    {
        check(monitors_.pmu_write(pe, reg, n, v), "pmu_write");
    }
    uint64_t read(unsigned pe, pmvp_pmu_reg reg, unsigned n) override
    {
        uint64_t v = 0;
        check(monitors_.pmu_read(pe, reg, n, v), "pmu_read");
        return v;
    }
    void report(unsigned pe, uint16_t ev, uint64_t count) override { check(monitors_.report(pe, ev, count), "report"); }
    void level(unsigned pe, uint16_t ev, uint32_t v) override { check(monitors_.set_level(pe, ev, v), "set_level"); }
    void context(unsigned pe, const pmvp_context &ctx) override
    {
        check(monitors_.set_context(pe, ctx), "set_context");
    }
    // The monitors see a signal a delta cycle after it is written.
    void wfi(unsigned pe, bool in_wfi) override { wfi_[pe].write(in_wfi); }

private:
    static void check(int err, const char *what)
    {
        if (err)
            fail(what, err);
    }
    pmvp::sc::Monitors monitors_;
    sc_core::sc_vector<sc_core::sc_signal<bool>> wfi_;
};

// The CPU model: programs six counters and the cycle counter, then every
// quantum retires instructions on each running thread, moves the backend
// stall condition, switches thread 0 between EL1 and EL0, and puts thread 1
// in and out of WFI; at the end it reads every counter.
class Cpu : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(Cpu);
    Cpu(const sc_core::sc_module_name &name, std::vector<Sink *> sinks, pmvp_time end)
        : sc_module(name), counts(sinks.size()), sinks_(std::move(sinks)), end_(end)
    {
        SC_THREAD(run);
    }
    std::vector<std::string> counts;  // by sink: PMCCNTR and the event counters of each PE

private:
    // Tells every model the same thing.
    template <class F> void each(const F &f)
    {
        for (Sink *s : sinks_)
            f(*s);
    }

private:
    void run()
    {
        static const uint64_t evtyper[] = {
            PMVP_EV_CPU_CYCLES,
            PMVP_EV_INST_RETIRED,
            PMVP_EV_STALL_BACKEND,
            PMVP_EV_CPU_CYCLES | PMVP_PMEVTYPER_EL0_MT,
            PMVP_EV_INST_RETIRED | PMVP_PMEVTYPER_EL0_U,
            PMVP_EV_BUS_CYCLES,
        };
        const unsigned num = sizeof evtyper / sizeof evtyper[0];
        for (unsigned p = 0; p < kPes; p++) {
            each([&](Sink &s) {
                for (unsigned n = 0; n < num; n++)
                    s.write(p, PMVP_PMEVTYPER_EL0, n, evtyper[n]);
                s.write(p, PMVP_PMCNTENSET_EL0, 0, ((1u << num) - 1) | PMVP_PMU_C);
                s.write(p, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LC);
            });
        }
        bool asleep = false;
        for (uint64_t k = 0; now_ps() + kStep <= end_; k++) {
            wait(sc_core::sc_time((double)kStep, sc_core::SC_PS));
            bool sleep = (k / 10) % 2 == 1;
            if (sleep != asleep) {
                asleep = sleep;
                each([&](Sink &s) { s.wfi(1, sleep); });
            }
            pmvp_context ctx{ (uint8_t)((k / 5) % 2 ? 0 : 1), PMVP_NONSECURE, false, false, false };
            each([&](Sink &s) { s.context(0, ctx); });
            for (unsigned p = 0; p < kPes; p++) {
                if (p == 1 && asleep)
                    continue;
                each([&](Sink &s) {
                    s.report(p, PMVP_EV_INST_RETIRED, 15000 + 7 * k + p);
                    s.level(p, PMVP_EV_STALL_BACKEND, (k + p) % 3 == 0);
                });
            }
        }
        if (end_ > now_ps())
            wait(sc_core::sc_time((double)(end_ - now_ps()), sc_core::SC_PS));
        for (size_t i = 0; i < sinks_.size(); i++)
            for (unsigned p = 0; p < kPes; p++) {
                counts[i] += std::to_string(sinks_[i]->read(p, PMVP_PMCCNTR_EL0, 0));
                for (unsigned n = 0; n < num; n++)
                    counts[i] += " " + std::to_string(sinks_[i]->read(p, PMVP_PMEVCNTR_EL0, n));
                counts[i] += p + 1 < kPes ? " " : "";
            }
        sc_core::sc_stop();
    }
    std::vector<Sink *> sinks_;
    pmvp_time end_;
};

}  // namespace

int sc_main(int argc, char **argv)
{
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);  // "stopped by user"
    const std::string mode = argc >= 2 ? argv[1] : "";
    if ((mode != "clocked" && mode != "pmvp" && mode != "both") || argc > 3) {
        std::fprintf(stderr, "usage: pmvp-bench-clocked clocked|pmvp|both [processor cycles]\n");
        return 2;
    }
    char *end = nullptr;
    uint64_t cycles = argc == 3 ? std::strtoull(argv[2], &end, 10) : 10000000;
    if (cycles == 0 || cycles > UINT64_MAX / kCyclePs || (end && *end) || (argc == 3 && argv[2][0] == '-')) {
        std::fprintf(stderr, "pmvp-bench-clocked: processor cycles: expected 1 to %llu\n",
                     (unsigned long long)(UINT64_MAX / kCyclePs));
        return 2;
    }
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
        std::fprintf(stderr, "pmvp-bench-clocked: SystemC's time resolution must be 1 ps\n");
        return 2;
    }
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.num_pes = kPes;
    cfg.processor_hz = kHz;

    // The clock exists only in the clocked model: an sc_clock toggles every
    // half period whether or not anything listens.
    std::unique_ptr<sc_core::sc_clock> clk;
    std::unique_ptr<Clocked> naive;
    std::unique_ptr<Lazy> lazy;
    std::vector<Sink *> sinks;
    if (mode != "pmvp") {
        clk = std::make_unique<sc_core::sc_clock>("clk", sc_core::sc_time((double)kCyclePs, sc_core::SC_PS));
        naive = std::make_unique<Clocked>("clocked", cfg);
        naive->clk(*clk);
        sinks.push_back(naive.get());
    }
    if (mode != "clocked") {
        lazy = std::make_unique<Lazy>("pmvp", cfg);
        sinks.push_back(lazy.get());
    }
    Cpu cpu("cpu", sinks, cycles * kCyclePs);

    auto start = std::chrono::steady_clock::now();
    sc_core::sc_start();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const std::string &c : cpu.counts)
        std::printf("counts %s\n", c.c_str());
    std::printf("seconds %.9f\n", seconds);
    if (mode == "both" && cpu.counts[0] != cpu.counts[1]) {
        std::fprintf(stderr, "pmvp-bench-clocked: the clocked model and pmvp counted differently\n");
        return 1;
    }
    return 0;
}
