// SPDX-License-Identifier: Apache-2.0
// pmvp::sc::Monitors and pmvp::sc::X86Monitors in a SystemC simulation. SystemC elaborates once per
// process, so every test runs its simulation in a child process.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <cstring>
#include <memory>
#include <regex>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "pmvp/systemc/monitors.h"
#include "pmvp/systemc/x86_monitors.h"

extern "C" {
#include "pmvp/checkpoint.h"
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/fields.h"
}

namespace pmvp::sc::test {
namespace {

using namespace sc_core;

// A bus master with one socket per frame of each PE, bound to the
// monitors' sc_vectors of sockets at once.
struct Initiator : sc_module {
    using socket = tlm_utils::simple_initiator_socket<Initiator>;
    sc_vector<socket> pmu, amu;

    Initiator(const sc_module_name &n, Monitors &m) : sc_module(n), pmu("pmu", m.num_pes()), amu("amu", m.num_pes())
    {
        pmu.bind(m.pmu_socket);
        amu.bind(m.amu_socket);
    }

    socket &of(unsigned pe, pmvp_frame f) { return f == PMVP_FRAME_PMU ? pmu[pe] : amu[pe]; }

    // A single access of `len` bytes from or to `data`.
    static void fill(tlm::tlm_generic_payload &gp, tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len)
    {
        gp.set_command(cmd);
        gp.set_address(addr);
        gp.set_data_ptr(static_cast<unsigned char *>(data));
        gp.set_data_length(len);
        gp.set_streaming_width(len);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    }

    tlm::tlm_response_status access(tlm::tlm_command cmd, unsigned pe, pmvp_frame f, uint64_t addr, uint64_t &v,
                                    unsigned len = 4, sc_time delay = SC_ZERO_TIME)
    {
        tlm::tlm_generic_payload gp;
        fill(gp, cmd, addr, &v, len);
        of(pe, f)->b_transport(gp, delay);
        return gp.get_response_status();
    }
    uint64_t read(unsigned pe, pmvp_frame f, uint64_t addr, unsigned len = 4, sc_time delay = SC_ZERO_TIME)
    {
        uint64_t v = 0;
        EXPECT_EQ(access(tlm::TLM_READ_COMMAND, pe, f, addr, v, len, delay), tlm::TLM_OK_RESPONSE);
        return v;
    }
    void write(unsigned pe, pmvp_frame f, uint64_t addr, uint64_t v, unsigned len = 4)
    {
        EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, pe, f, addr, v, len), tlm::TLM_OK_RESPONSE);
    }
    unsigned debug(tlm::tlm_command cmd, unsigned pe, pmvp_frame f, uint64_t addr, uint64_t &v, unsigned len = 4)
    {
        tlm::tlm_generic_payload gp;
        fill(gp, cmd, addr, &v, len);
        return of(pe, f)->transport_dbg(gp);
    }
};

// Offsets of the default (EXT32) PMU frame used below.
constexpr uint64_t kPmevcntr0 = 0x000, kPmccntr = 0x0F8, kPmevtyper0 = 0x400, kPmcntenset = 0xC00, kPmintenset = 0xC40,
                   kPmovsclr = 0xC80, kPmcr = 0xE04;

// Records in `rose` the instant `line` last rose (a method process).
void when_it_rises(sc_signal<bool> &line, sc_time &rose)
{
    sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&line.posedge_event());
    sc_spawn([&rose] { rose = sc_time_stamp(); }, "watch", &o);
}

// Every instant at which `line` rises, in `rises`.
void record_rises(sc_signal<bool> &line, std::vector<sc_time> &rises)
{
    sc_spawn([&line, &rises] {
        for (;;) {
            wait(line.posedge_event());
            rises.push_back(sc_time_stamp());
        }
    });
}

// Runs a whole simulation in a child process; the test passes if the child
// finished with no failed expectation. The child collects its failures and
// prints them to stderr, where the parent shows them (a death-test child
// reports nothing by itself). With PMVP_TEST_IN_PROCESS set, the simulation
// runs in the test process instead, for a debugger (one test at a time).
void in_child(const std::function<void()> &simulation)
{
    if (std::getenv("PMVP_TEST_IN_PROCESS")) {
        simulation();
        return;
    }
    EXPECT_EXIT(
        {
            ::testing::TestPartResultArray results;
            {
                ::testing::ScopedFakeTestPartResultReporter collect(
                    ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
                simulation();
            }
            int failed = 0;
            for (int i = 0; i < results.size(); i++) {
                const ::testing::TestPartResult &r = results.GetTestPartResult(i);
                if (r.failed()) {
                    std::fprintf(stderr, "%s:%d: %s\n", r.file_name() ? r.file_name() : "?", r.line_number(),
                                 r.message());
                    failed = 1;
                }
            }
            std::exit(failed);
        },
        ::testing::ExitedWithCode(0), "");
}

pmvp_core_config config(unsigned pes = 1, uint64_t hz = 1000000000)
{
    pmvp_core_config c;
    pmvp_core_config_default(&c);
    c.num_pes = pes;
    c.processor_hz = hz;
    return c;
}

// Enables PMCCNTR (PMCR.LC, no divider) and PMCR.E over TLM.
void enable_cycle_counter(Initiator &bus, unsigned pe)
{
    bus.write(pe, PMVP_FRAME_PMU, kPmcntenset, PMVP_PMU_C);
    bus.write(pe, PMVP_FRAME_PMU, kPmcr, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LC);
}

// Event counter 0 of PE pe counts CPU_CYCLES (MT = 0), enabled over TLM.
void count_cpu_cycles(Initiator &bus, unsigned pe)
{
    bus.write(pe, PMVP_FRAME_PMU, kPmevtyper0, PMVP_EV_CPU_CYCLES);
    bus.write(pe, PMVP_FRAME_PMU, kPmcntenset, 0x1);
    bus.write(pe, PMVP_FRAME_PMU, kPmcr, PMVP_PMCR_EL0_E);
}

TEST(Monitors, PmccntrOverTlmAfter1msAt2GHz)
{
    in_child([] {
        Monitors m("m", config(1, 2000000000));
        Initiator bus("bus", m);
        sc_spawn([&] {
            enable_cycle_counter(bus, 0);
            wait(1, SC_MS);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmccntr, 8), 2000000u);
            // Under temporal decoupling the read is evaluated at now + delay.
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmccntr, 8, sc_time(1, SC_US)), 2002000u);
            // ... and leaves the present alone.
            EXPECT_EQ(m.peek(0, PMVP_FRAME_PMU, "PMCCNTR_EL0"), 2000000u);
            // An access latency: the read is made at now + delay, and the
            // delay comes back longer by the latency.
            m.access_latency = sc_time(10, SC_NS);
            tlm::tlm_generic_payload gp;
            uint64_t v = 0;
            Initiator::fill(gp, tlm::TLM_READ_COMMAND, kPmccntr, &v, 8);
            sc_time delay(1, SC_US);
            bus.of(0, PMVP_FRAME_PMU)->b_transport(gp, delay);
            EXPECT_EQ(v, 2002000u);
            EXPECT_EQ(delay, sc_time(1010, SC_NS));
            m.access_latency = SC_ZERO_TIME;
            // A PE or a register the core does not have is an error, not 0:
            // counter 9 of 6 too, which the frame reserves a slot for.
            EXPECT_THROW(m.peek(1, PMVP_FRAME_PMU, "PMCCNTR_EL0"), std::invalid_argument);
            EXPECT_THROW(m.peek(0, PMVP_FRAME_PMU, "PMCCNTR"), std::invalid_argument);
            for (unsigned n : { 9u, 40u })
                try {
                    m.peek(0, PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", n);
                    ADD_FAILURE() << "counter " << n << " of 6 was peeked";
                } catch (const std::invalid_argument &e) {
                    EXPECT_NE(std::string(e.what()).find("no register PMEVCNTR<n>_EL0 with n = " + std::to_string(n)),
                              std::string::npos)
                        << e.what();
                }
            EXPECT_EQ(m.peek(0, PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", 5), 0u);
        });
        sc_start();
    });
}

// Each refusal of an event says why, in words of the argument: the three
// that share PMVP_ERR_EVENT are told apart.
TEST(Monitors, EventRefusalsSayWhy)
{
    in_child([] {
        Monitors m("m", config());
        sc_spawn([&] {
            const pmvp_share cycles{ 0, PMVP_EV_CPU_CYCLES, 1 };
            EXPECT_EQ(m.report(0, 0x3FFF, 1), PMVP_ERR_EVENT);
            EXPECT_STREQ(m.event_why(0x3FFF, false), "event: no event of the catalogue has this number");
            EXPECT_EQ(m.report(0, PMVP_EV_CPU_CYCLES, 1), PMVP_ERR_EVENT);
            EXPECT_EQ(m.report_shares(&cycles, 1, SC_ZERO_TIME), PMVP_ERR_EVENT);
            EXPECT_STREQ(m.event_why(PMVP_EV_CPU_CYCLES, false),
                         "event: it counts a clock's cycles, which the core's clocks give: nothing to report");
            EXPECT_EQ(m.set_level(0, PMVP_EV_INST_RETIRED, 1), PMVP_ERR_EVENT);
            EXPECT_STREQ(m.event_why(PMVP_EV_INST_RETIRED, true),
                         "event: not a level (stall, condition or per-cycle) event: report it");
            EXPECT_EQ(m.report(0, PMVP_EV_STALL_BACKEND, 1), PMVP_ERR_EVENT);
            EXPECT_STREQ(m.event_why(PMVP_EV_STALL_BACKEND, false), "event: a level event: set_level, not report");
            EXPECT_EQ(m.event_why(PMVP_EV_INST_RETIRED, false), nullptr);
            EXPECT_EQ(m.event_why(PMVP_EV_STALL_BACKEND, true), nullptr);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 1), PMVP_OK);
            // since after offset: the window ends at offset.
            const pmvp_share insts{ 0, PMVP_EV_INST_RETIRED, 1 };
            EXPECT_EQ(m.report_shares(&insts, 1, sc_time(2, SC_NS), sc_time(1, SC_NS)), PMVP_ERR_VALUE);
        });
        sc_start();
    });
}

// A configuration the kernel refuses is refused by the constructor, with
// the field and the rule.
TEST(Monitors, RefusedConfigurationNamesTheField)
{
    in_child([] {
        pmvp_core_config c = config();
        c.num_pes = 0;
        try {
            Monitors m("m", c);
            ADD_FAILURE() << "constructed";
        } catch (const std::invalid_argument &e) {
            EXPECT_STREQ(e.what(), "pmvp::sc::Monitors: num_pes: from 1 to PMVP_MAX_PES (8) PEs per core");
        }
    });
}

TEST(Monitors, DvfsThroughTheFrequencySignal)
{
    in_child([] {
        sc_signal<uint64_t> hz("hz", 1000000000);
        Monitors m("m", config(1, 1000000000));
        m.processor_hz(hz);
        Initiator bus("bus", m);
        sc_spawn([&] {
            enable_cycle_counter(bus, 0);
            wait(1, SC_MS);
            hz.write(3000000000);
            wait(1, SC_MS);
            hz.write(0);  // clock stopped
            wait(1, SC_MS);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmccntr, 8), 4000000u);
        });
        sc_start();
    });
}

// A CPU model that owns the clock tells its changes ahead of simulated
// time; reads for instants on either side of a change kept for later see
// the frequency of their instant, and a bound port leaves the call refused.
TEST(Monitors, ClockChangesToldAheadOfTime)
{
    in_child([] {
        Monitors m("m", config(1, 1000000000));
        Initiator bus("bus", m);
        sc_spawn([&] {
            const sc_time us(1, SC_US);
            enable_cycle_counter(bus, 0);
            EXPECT_EQ(m.set_clock(3000000000, 2 * us), PMVP_OK);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmccntr, 8, 1 * us), 1000u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmccntr, 8, 3 * us), 5000u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmccntr, 8, 2 * us), 2000u);  // back, before the change
            EXPECT_EQ(m.set_clock(0, 4 * us), PMVP_OK);                          // stopped from 4 us
            EXPECT_EQ(m.set_clock(uint64_t(2e12), 5 * us), PMVP_ERR_VALUE);      // above 1 THz: refused
            wait(10, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmccntr, 8), 8000u);
        });
        sc_start();
    });
    in_child([] {
        sc_signal<uint64_t> hz("hz", 1000000000);
        Monitors m("m", config(1, 1000000000));
        m.processor_hz(hz);
        sc_spawn([&] { EXPECT_EQ(m.set_clock(2000000000), PMVP_ERR_CONFIG); });
        sc_start();
    });
}

TEST(Monitors, WfiOnOneOfTwoSmtThreads)
{
    in_child([] {
        sc_signal<bool> wfi1("wfi1");
        Monitors m("m", config(2));
        m.wfi[1](wfi1);
        Initiator bus("bus", m);
        sc_spawn([&] {
            for (unsigned pe = 0; pe < 2; pe++)
                count_cpu_cycles(bus, pe);
            wait(500, SC_US);
            wfi1.write(true);
            wait(500, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 1000000u);
            EXPECT_EQ(bus.read(1, PMVP_FRAME_PMU, kPmevcntr0, 8), 500000u);
            EXPECT_EQ(m.kernel().pe[1].state, PMVP_PE_WFI);
        });
        sc_start();
    });
}

// PMUIRQ rises at the exact picosecond the counter wraps past 2^32, and
// falls when PMOVSCLR is written over TLM.
TEST(Monitors, OverflowRaisesPmuirqAtTheExactInstant)
{
    in_child([] {
        sc_signal<bool> irq("irq");
        Monitors m("m", config(1, 1000000000));
        m.pmuirq[0](irq);
        Initiator bus("bus", m);
        std::vector<std::pair<sc_time, bool>> edges;
        sc_spawn_options o;
        o.spawn_method();
        o.dont_initialize();
        o.set_sensitivity(&irq.value_changed_event());
        sc_spawn([&] { edges.push_back({ sc_time_stamp(), irq.read() }); }, "watch", &o);
        sc_spawn([&] {
            wait(10, SC_NS);
            bus.write(0, PMVP_FRAME_PMU, kPmevtyper0, PMVP_EV_CPU_CYCLES);
            bus.write(0, PMVP_FRAME_PMU, kPmevcntr0, 0xFFFFFFFFull - 999, 8);
            bus.write(0, PMVP_FRAME_PMU, kPmintenset, 0x1);
            bus.write(0, PMVP_FRAME_PMU, kPmcntenset, 0x1);
            bus.write(0, PMVP_FRAME_PMU, kPmcr, PMVP_PMCR_EL0_E);
            wait(2, SC_US);
            bus.write(0, PMVP_FRAME_PMU, kPmovsclr, 0x1);
            wait(1, SC_US);
        });
        sc_start(5, SC_US);
        ASSERT_EQ(edges.size(), 2u);
        // Enabled at 10 ns; the 1000th cycle ends at 1010 ns.
        EXPECT_EQ(edges[0].first, sc_time(1010, SC_NS));
        EXPECT_TRUE(edges[0].second);
        EXPECT_EQ(edges[1].first, sc_time(2010, SC_NS));
        EXPECT_FALSE(edges[1].second);
    });
}

// Freeze on overflow (FEAT_PMUv3p7, PMCR.FZO): a CPU model reporting in
// batches learns where cycles freeze counters (next_freeze), and no
// interrupt is predicted for a counter the freeze stops first.
TEST(Monitors, NextFreezeIsWhereCyclesFreezeCounters)
{
    in_child([] {
        pmvp_core_config c = config(1, 1000000000);
        c.feat_pmuv3p7 = true;
        Monitors m("m", c);
        Initiator bus("bus", m);
        sc_spawn([&] {
            wait(10, SC_NS);
            bus.write(0, PMVP_FRAME_PMU, kPmevtyper0, PMVP_EV_CPU_CYCLES);
            bus.write(0, PMVP_FRAME_PMU, kPmevtyper0 + 4, PMVP_EV_CPU_CYCLES);
            bus.write(0, PMVP_FRAME_PMU, kPmevcntr0, 0xFFFFFFFFull - 999, 8);
            bus.write(0, PMVP_FRAME_PMU, kPmevcntr0 + 8, 0xFFFFFFFFull - 1999, 8);
            bus.write(0, PMVP_FRAME_PMU, kPmintenset, 0x2);
            bus.write(0, PMVP_FRAME_PMU, kPmcntenset, 0x3);
            bus.write(0, PMVP_FRAME_PMU, kPmcr, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_FZO);
            pmvp_time when = 0;
            ASSERT_EQ(m.next_freeze(when), PMVP_OK);
            EXPECT_EQ(when, 1010000u);  // enabled at 10 ns, the 1000th cycle
            ASSERT_EQ(m.next_interrupt(when), PMVP_OK);
            EXPECT_EQ(when, PMVP_TIME_NEVER);  // counter 1 would overflow at 2010 ns, frozen from 1010 ns
            wait(3, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0 + 8, 8), 0xFFFFFFFFull - 999);
            ASSERT_EQ(m.next_freeze(when), PMVP_OK);
            EXPECT_EQ(when, PMVP_TIME_NEVER);
        });
        sc_start(5, SC_US);
    });
}

// The instruction counter (FEAT_PMUv3_ICNTR) through the CPU-model
// interface and TLM together: programmed over the bus (PMCNTENSET.F0 at
// 0xC04 in the EXT32 frame, PMICNTR_EL0 at 0x100), it counts the reported
// INST_RETIRED, and the report that wraps it past 2^64 raises PMUIRQ at its
// instant; events_to_interrupt said which occurrence that would be.
TEST(Monitors, InstructionCounterOverTlmRaisesPmuirq)
{
    in_child([] {
        pmvp_core_config c = config(1, 1000000000);
        c.feat_pmuv3_icntr = true;
        sc_signal<bool> irq("irq");
        Monitors m("m", c);
        m.pmuirq[0](irq);
        Initiator bus("bus", m);
        sc_time rose = SC_ZERO_TIME;
        when_it_rises(irq, rose);
        sc_spawn([&] {
            wait(10, SC_NS);
            bus.write(0, PMVP_FRAME_PMU, 0x100, ~0ull - 99, 8);  // PMICNTR_EL0
            bus.write(0, PMVP_FRAME_PMU, kPmintenset + 4, 0x1);  // PMINTENSET_EL1[63:32]: F0
            bus.write(0, PMVP_FRAME_PMU, kPmcntenset + 4, 0x1);
            bus.write(0, PMVP_FRAME_PMU, kPmcr, PMVP_PMCR_EL0_E);
            uint64_t left = 0;
            ASSERT_EQ(m.events_to_interrupt(0, PMVP_EV_INST_RETIRED, left), PMVP_OK);
            EXPECT_EQ(left, 100u);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 60, sc_time(100, SC_NS)), PMVP_OK);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 50, sc_time(200, SC_NS)), PMVP_OK);
            wait(1, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, 0x100, 8), 10u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmovsclr + 4), 1u);  // PMOVSCLR_EL0[63:32]: F0
        });
        sc_start(2, SC_US);
        EXPECT_EQ(rose, sc_time(210, SC_NS));  // the second report's instant
    });
}

// A snapshot (FEAT_PMUv3_SS) requested from outside for a later instant
// (snapshot_request with an offset) captures the counters at that instant,
// not at the call's: read over TLM at 0x600 and 0x6F8.
TEST(Monitors, SnapshotRequestCapturesAtItsInstant)
{
    in_child([] {
        pmvp_core_config c = config(1, 1000000000);
        c.feat_pmuv3_ss = true;
        Monitors m("m", c);
        Initiator bus("bus", m);
        sc_spawn([&] {
            wait(10, SC_NS);
            pmvp_pmu_controls ctl{};
            ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, c.num_counters);
            ctl.mdcr_el3 = PMVP_FIELD_PREP(PMVP_MDCR_EL3_PMSSE, 3);  // Capture events allowed
            ctl.noninvasive_debug = true;
            ASSERT_EQ(m.set_controls(0, ctl), PMVP_OK);
            bus.write(0, PMVP_FRAME_PMU, kPmevtyper0, PMVP_EV_CPU_CYCLES);
            bus.write(0, PMVP_FRAME_PMU, kPmcntenset, 0x1 | PMVP_PMU_C);
            bus.write(0, PMVP_FRAME_PMU, kPmcr, PMVP_PMCR_EL0_E);
            wait(1, SC_US);
            ASSERT_EQ(m.snapshot_request(0, sc_time(2, SC_US)), PMVP_OK);  // at 3010 ns
            wait(5, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, 0x600, 8), 3000u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, 0x6F8, 8), 3000u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, 0xE30, 8), 0u);  // PMSSCR_EL1: captured
        });
        sc_start(10, SC_US);
    });
}

// Threshold counting (D13.8) through the bindings: the fields written in
// PMEVTYPER0's top half at 0xA00 of the EXT32 frame, and reports at local
// offsets (temporal decoupling) that fall in one processor cycle adding up
// to its V_B: greater-or-equal 2, count, counts that cycle and not the next.
// A 1 GHz core with FEAT_PMUv3_TH (a 4-bit TH).
pmvp_core_config threshold_config()
{
    pmvp_core_config c = config(1, 1000000000);
    c.feat_pmuv3p7 = true;
    c.pmmir = PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, 4);
    return c;
}

// Counter 0 of PE 0 set to count, through the EXT32 frame, the cycles on
// which at least two instructions retire (TC 0b101, TH 2, in PMEVTYPER0's
// top half at 0xA00), with `more` bits of PMEVTYPER0; its PMEVTYPER0 value.
uint64_t count_cycles_with_two_instructions(Initiator &bus, uint64_t more = 0)
{
    uint64_t type = PMVP_EV_INST_RETIRED | PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_TC, 0b101) |
                    PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_TH, 2) | more;
    bus.write(0, PMVP_FRAME_PMU, 0xA00, type >> 32);
    bus.write(0, PMVP_FRAME_PMU, kPmevtyper0, type & 0xFFFFFFFF);
    bus.write(0, PMVP_FRAME_PMU, kPmcntenset, 0x1);
    bus.write(0, PMVP_FRAME_PMU, kPmcr, PMVP_PMCR_EL0_E);
    return type;
}

TEST(Monitors, ThresholdCountingOfReportsAtTheirOffsets)
{
    in_child([] {
        Monitors m("m", threshold_config());
        Initiator bus("bus", m);
        sc_spawn([&] {
            wait(10, SC_NS);
            uint64_t type = count_cycles_with_two_instructions(bus);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 1, sc_time(200, SC_PS)), PMVP_OK);   // cycle 11
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 1, sc_time(700, SC_PS)), PMVP_OK);   // cycle 11
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 1, sc_time(1200, SC_PS)), PMVP_OK);  // cycle 12
            wait(1, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 1u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, 0xA00, 4), type >> 32);
        });
        sc_start(2, SC_US);
    });
}

// A batch spread over cycles through the bindings, at a local offset ahead
// of simulated time (kept, then made in time order): 1500 instructions over
// the 1000 cycles before 1010 ns are 500 cycles of 2, which greater-or-equal
// 2 counts; a second spread reaching back before the first is refused.
TEST(Monitors, ReportSpreadAtALocalOffset)
{
    in_child([] {
        Monitors m("m", threshold_config());
        Initiator bus("bus", m);
        sc_spawn([&] {
            count_cycles_with_two_instructions(bus);
            wait(10, SC_NS);
            EXPECT_EQ(m.report_spread(0, PMVP_EV_INST_RETIRED, 1500, 1000, sc_time(1000, SC_NS)), PMVP_OK);
            EXPECT_EQ(m.report_spread(0, PMVP_EV_INST_RETIRED, 10, 10, sc_time(1005, SC_NS)), PMVP_ERR_PAST);
            EXPECT_EQ(m.report_spread(0, PMVP_EV_INST_RETIRED, 10, 0, sc_time(2000, SC_NS)), PMVP_ERR_VALUE);
            wait(2, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 500u);
        });
        sc_start(3, SC_US);
    });
}

// Two SMT threads' instructions over the same cycles, given by instants
// ahead of simulated time: PE 0 retires 1000 and PE 1 500 between 10 ns
// and 1010 ns, 1000 cycles. PE 0's MT == 1 counter sees 2 on the 500
// cycles where both retire one. A window that ends before it starts is
// refused.
TEST(Monitors, ReportSharesOfTwoThreadsAtLocalOffsets)
{
    in_child([] {
        pmvp_core_config c = threshold_config();
        c.num_pes = 2;
        Monitors m("m", c);
        Initiator bus("bus", m);
        sc_spawn([&] {
            EXPECT_EQ(m.set_control(0, Monitors::Control::MDCR_EL3, PMVP_MDCR_EL3_MTPME),
                      PMVP_OK);  // FEAT_MTPMU enabled
            wait(10, SC_NS);
            count_cycles_with_two_instructions(bus, PMVP_PMEVTYPER_EL0_MT);
            const pmvp_share s[] = { { 0, PMVP_EV_INST_RETIRED, 1000 }, { 1, PMVP_EV_INST_RETIRED, 500 } };
            EXPECT_EQ(m.report_shares(s, 2, SC_ZERO_TIME, sc_time(1000, SC_NS)), PMVP_OK);
            // Reaching back into the first's window: it starts after the first, at
            // 1010 ns, with 100 cycles of 10 + 5.
            EXPECT_EQ(m.report_shares(s, 2, sc_time(900, SC_NS), sc_time(1100, SC_NS)), PMVP_OK);
            EXPECT_EQ(m.report_shares(s, 2, sc_time(1200, SC_NS), sc_time(1100, SC_NS)), PMVP_ERR_VALUE);
            EXPECT_EQ(m.report_shares(s, 0, sc_time(1000, SC_NS), sc_time(1100, SC_NS)), PMVP_ERR_VALUE);
            EXPECT_EQ(m.report_shares(nullptr, 1, sc_time(1000, SC_NS), sc_time(1100, SC_NS)), PMVP_ERR_NULL);
            wait(2, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 600u);
        });
        sc_start(3, SC_US);
    });
}

// A CPU model tells a stretch's shares and the stall that ends with it as
// one input, and the stalls that start together as another: 2 PEs at
// 1 GHz, both stalling (STALL_BACKEND) from 10 ns; PE 0's stall ends at
// 110 ns, PE 1's at 410 ns, where the two stretches' instructions are told.
// What each call refuses it refuses whole, with nothing made.
TEST(Monitors, AStretchsSharesAndItsStallEndAsOneInput)
{
    in_child([] {
        Monitors m("m", config(2));
        Initiator bus("bus", m);
        sc_spawn([&] {
            wait(10, SC_NS);
            for (unsigned pe = 0; pe < 2; pe++) {
                ASSERT_EQ(m.pmu_write(pe, PMVP_PMEVTYPER_EL0, 0, PMVP_EV_STALL_BACKEND), PMVP_OK);
                ASSERT_EQ(m.pmu_write(pe, PMVP_PMEVTYPER_EL0, 1, PMVP_EV_INST_RETIRED), PMVP_OK);
                ASSERT_EQ(m.pmu_write(pe, PMVP_PMCNTENSET_EL0, 0, 0x3), PMVP_OK);
                ASSERT_EQ(m.pmu_write(pe, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E), PMVP_OK);
            }
            const sc_time ns(1, SC_NS);
            const pmvp_level_change on[] = { { 0, PMVP_EV_STALL_BACKEND, 1 }, { 1, PMVP_EV_STALL_BACKEND, 1 } };
            const pmvp_level_change off0[] = { { 0, PMVP_EV_STALL_BACKEND, 0 } };
            const pmvp_level_change off1[] = { { 1, PMVP_EV_STALL_BACKEND, 0 } };
            const pmvp_share first[] = { { 0, PMVP_EV_INST_RETIRED, 300 }, { 1, PMVP_EV_INST_RETIRED, 100 } };
            const pmvp_share second[] = { { 0, PMVP_EV_INST_RETIRED, 200 } };
            EXPECT_EQ(m.set_levels(on, 2), PMVP_OK);
            EXPECT_EQ(m.report_shares(first, 2, SC_ZERO_TIME, 100 * ns, off0, 1), PMVP_OK);
            EXPECT_EQ(m.report_shares(second, 1, 100 * ns, 400 * ns, off1, 1), PMVP_OK);

            // Refused whole: a level change of a PE the core has not, of an
            // event that is no level, too many, none, or NULL.
            const pmvp_level_change no_pe[] = { { 0, PMVP_EV_STALL_BACKEND, 1 }, { 2, PMVP_EV_STALL_BACKEND, 1 } };
            const pmvp_level_change no_level[] = { { 1, PMVP_EV_INST_RETIRED, 1 } };
            const pmvp_level_change wide_pe[] = { { 0x10000, PMVP_EV_STALL_BACKEND, 1 } };
            pmvp_level_change many[Monitors::kMaxLevelChanges + 1];
            std::fill(std::begin(many), std::end(many), on[0]);
            EXPECT_EQ(m.report_shares(second, 1, 400 * ns, 500 * ns, no_pe, 2), PMVP_ERR_PE);
            EXPECT_EQ(m.report_shares(second, 1, 400 * ns, 500 * ns, no_level, 1), PMVP_ERR_EVENT);
            EXPECT_EQ(m.report_shares(second, 1, 400 * ns, 500 * ns, wide_pe, 1), PMVP_ERR_PE);
            EXPECT_EQ(m.report_shares(second, 1, 400 * ns, 500 * ns, many, Monitors::kMaxLevelChanges + 1),
                      PMVP_ERR_VALUE);
            EXPECT_EQ(m.report_shares(second, 1, 400 * ns, 500 * ns, nullptr, 1), PMVP_ERR_NULL);
            EXPECT_EQ(m.set_levels(no_pe, 2, 500 * ns), PMVP_ERR_PE);
            EXPECT_EQ(m.set_levels(no_level, 1, 500 * ns), PMVP_ERR_EVENT);
            EXPECT_EQ(m.set_levels(on, 0, 500 * ns), PMVP_ERR_VALUE);
            EXPECT_EQ(m.set_levels(many, Monitors::kMaxLevelChanges + 1, 500 * ns), PMVP_ERR_VALUE);
            EXPECT_EQ(m.set_levels(nullptr, 1, 500 * ns), PMVP_ERR_NULL);
            EXPECT_EQ(m.set_levels(many, Monitors::kMaxLevelChanges, 500 * ns), PMVP_OK);  // the most, at once
            EXPECT_EQ(m.set_levels(off0, 1, 500 * ns), PMVP_OK);

            // Ahead of time, the future view holds the kept steps.
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8, 50 * ns), 50u);
            EXPECT_EQ(bus.read(1, PMVP_FRAME_PMU, kPmevcntr0, 8, 400 * ns), 400u);
            wait(1, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 100u);  // 10 ns to 110 ns
            EXPECT_EQ(bus.read(1, PMVP_FRAME_PMU, kPmevcntr0, 8), 400u);  // 10 ns to 410 ns
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0 + 8, 8), 500u);
            EXPECT_EQ(bus.read(1, PMVP_FRAME_PMU, kPmevcntr0 + 8, 8), 100u);
            // Made now, refused whole too: the shares count nothing.
            EXPECT_EQ(m.report_shares(second, 1, SC_ZERO_TIME, SC_ZERO_TIME, no_pe, 2), PMVP_ERR_PE);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0 + 8, 8), 500u);
        });
        sc_start(2, SC_US);
    });
}

TEST(Monitors, AmuOverTlm)
{
    in_child([] {
        Monitors m("m", config(1, 2000000000));
        Initiator bus("bus", m);
        sc_spawn([&] {
            EXPECT_EQ(m.amu_write(0, PMVP_AMCNTENSET0_EL0, 0, 0xF), PMVP_OK);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 1000, sc_time(10, SC_US)), PMVP_OK);
            wait(1, SC_MS);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_AMU, 0x000, 8), 2000000u);  // CPU_CYCLES
            EXPECT_EQ(bus.read(0, PMVP_FRAME_AMU, 0x008, 8), 100000u);   // CNT_CYCLES
            EXPECT_EQ(bus.read(0, PMVP_FRAME_AMU, 0x010, 8), 1000u);     // INST_RETIRED
            uint64_t v = 5;
            EXPECT_EQ(bus.access(tlm::TLM_WRITE_COMMAND, 0, PMVP_FRAME_AMU, 0x000, v, 8), tlm::TLM_OK_RESPONSE);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_AMU, 0x000, 8), 2000000u);  // read-only frame
        });
        sc_start();
    });
}

TEST(Monitors, DebugAccessesChangeNothing)
{
    in_child([] {
        sc_signal<bool> on("on", true);
        Monitors m("m", config());
        m.power[0](on);
        Initiator bus("bus", m);
        sc_spawn([&] {
            enable_cycle_counter(bus, 0);
            wait(1, SC_US);
            uint64_t v = 0;
            // A debug write of PMCR.C does not reset the cycle counter.
            uint64_t pmcr = PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LC | PMVP_PMCR_EL0_C;
            EXPECT_EQ(bus.debug(tlm::TLM_WRITE_COMMAND, 0, PMVP_FRAME_PMU, kPmcr, pmcr), 4u);
            EXPECT_EQ(bus.debug(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8), 8u);
            EXPECT_EQ(v, 1000u);
            // Debug reads answer while the PE is off, when bus reads are refused.
            on.write(false);
            wait(1, SC_US);
            EXPECT_EQ(bus.debug(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8), 8u);
            EXPECT_EQ(v, 1000u);  // no cycles while off
            EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8),
                      tlm::TLM_GENERIC_ERROR_RESPONSE);
        });
        sc_start();
    });
}

// Controls set for a later instant take effect at that instant: an input
// signal that changes before it re-applies the controls in force, not the
// later ones (the OS Lock set for +100 ns does not lock the frame at 20 ns
// after a WFI toggle at 10 ns; it does from 100 ns on).
TEST(Monitors, ControlsForALaterInstantWaitForIt)
{
    in_child([] {
        sc_signal<bool> wfi("wfi");
        Monitors m("m", config());
        m.wfi[0](wfi);
        Initiator bus("bus", m);
        sc_spawn([&] {
            const sc_time ns(1, SC_NS);
            // The bound wfi port is the PE's state's only source.
            EXPECT_EQ(m.set_state(0, PMVP_PE_WFI), PMVP_ERR_CONFIG);
            EXPECT_EQ(m.kernel().pe[0].state, PMVP_PE_RUN);
            pmvp_pmu_controls locked = m.kernel().pe[0].pmu.ctl;
            locked.os_lock = true;
            EXPECT_EQ(m.set_controls(0, locked, 100 * ns), PMVP_OK);
            wait(10 * ns);
            wfi.write(true);
            wait(10 * ns);
            EXPECT_FALSE(m.kernel().pe[0].pmu.ctl.os_lock);
            uint64_t v = 0;
            EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8), tlm::TLM_OK_RESPONSE);
            wait(80 * ns);
            EXPECT_TRUE(m.kernel().pe[0].pmu.ctl.os_lock);
            EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8),
                      tlm::TLM_GENERIC_ERROR_RESPONSE);
            wfi.write(false);  // and a later signal change keeps them
            wait(10 * ns);
            EXPECT_TRUE(m.kernel().pe[0].pmu.ctl.os_lock);
        });
        sc_start();
    });
}

// One field at a time, as EL2/EL3 software and the OS Lock change them: each
// keeps the fields others set, whether made now or kept for later and in
// any order, and a signal change between them keeps them all; the OS Lock
// set through its field refuses bus accesses from its instant on. A field
// there is not, a flag that is not 0 or 1, and a PE there is not are
// refused, changing nothing.
TEST(Monitors, ControlsOneFieldAtATime)
{
    in_child([] {
        using C = Monitors::Control;
        sc_signal<bool> wfi("wfi");
        Monitors m("m", config(2));
        m.wfi[0](wfi);
        Initiator bus("bus", m);
        sc_spawn([&] {
            const sc_time ns(1, SC_NS);
            const uint64_t hpmn3 = 3, sccd = PMVP_MDCR_EL3_SCCD;
            const uint64_t reset_mdcr_el2 = m.kernel().pe[0].pmu.ctl.mdcr_el2;  // HPMN = N
            ASSERT_NE(reset_mdcr_el2, hpmn3);
            EXPECT_EQ(m.set_control(0, C::MDCR_EL3, sccd), PMVP_OK);
            EXPECT_EQ(m.set_control(0, C::MDCR_EL2, hpmn3, 20 * ns), PMVP_OK);
            EXPECT_EQ(m.set_control(0, C::OS_LOCK, 1, 10 * ns), PMVP_OK);  // before the kept one
            EXPECT_EQ(m.set_control(0, C::OS_LOCK, 2), PMVP_ERR_VALUE);
            EXPECT_EQ(m.set_control(0, (C)99, 0), PMVP_ERR_VALUE);
            EXPECT_EQ(m.set_control(2, C::MDCR_EL2, 0), PMVP_ERR_PE);
            wait(5 * ns);
            wfi.write(true);  // a signal between them
            wait(SC_ZERO_TIME);
            const pmvp_pmu_controls &k = m.kernel().pe[0].pmu.ctl;
            EXPECT_EQ(k.mdcr_el3, sccd);
            EXPECT_FALSE(k.os_lock);
            uint64_t v = 0;
            EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8), tlm::TLM_OK_RESPONSE);
            wait(10 * ns);  // 15 ns: the OS Lock is set
            EXPECT_TRUE(m.kernel().pe[0].pmu.ctl.os_lock);
            EXPECT_EQ(m.kernel().pe[0].pmu.ctl.mdcr_el2, reset_mdcr_el2);
            EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8),
                      tlm::TLM_GENERIC_ERROR_RESPONSE);
            wait(10 * ns);  // 25 ns: and MDCR_EL2 beside it
            EXPECT_EQ(m.kernel().pe[0].pmu.ctl.mdcr_el2, hpmn3);
            EXPECT_TRUE(m.kernel().pe[0].pmu.ctl.os_lock);
            EXPECT_EQ(m.kernel().pe[0].pmu.ctl.mdcr_el3, sccd);
            EXPECT_EQ(m.kernel().pe[1].pmu.ctl.mdcr_el3, 0u);  // the other PE's are its own
            EXPECT_EQ(m.set_control(0, C::OS_LOCK, 0), PMVP_OK);
            EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8), tlm::TLM_OK_RESPONSE);
            EXPECT_EQ(m.kernel().pe[0].pmu.ctl.mdcr_el2, hpmn3);
        });
        sc_start();
    });
}

// Monitors saved at 1 us and restored at 1 us into other monitors of the
// same configuration go on as the saved ones: the same counts, and PMUIRQ
// at the same instant. Saved at 0 with a report for 0.5 us still kept
// (a CPU model ahead of simulated time), restored at 0: the report is kept
// again and counted at 0.5 us. A restore at another instant, a truncated or
// corrupt checkpoint and one without the module's part are refused with why.
TEST(Monitors, SaveAndRestore)
{
    in_child([] {
        sc_signal<bool> irq_a("irq_a"), irq_b("irq_b"), irq_c("irq_c");
        Monitors a("a", config()), b("b", config()), c("c", config()), other("other", config(1, 2000000000));
        a.pmuirq[0](irq_a);
        b.pmuirq[0](irq_b);
        c.pmuirq[0](irq_c);
        Initiator bus_a("bus_a", a), bus_b("bus_b", b), bus_c("bus_c", c);
        sc_time rose_a = SC_ZERO_TIME, rose_b = SC_ZERO_TIME, rose_c = SC_ZERO_TIME;
        sc_spawn([&] {
            for (;;) {
                wait(irq_a.posedge_event() | irq_b.posedge_event() | irq_c.posedge_event());
                if (irq_a.read() && rose_a == SC_ZERO_TIME)
                    rose_a = sc_time_stamp();
                if (irq_b.read() && rose_b == SC_ZERO_TIME)
                    rose_b = sc_time_stamp();
                if (irq_c.read() && rose_c == SC_ZERO_TIME)
                    rose_c = sc_time_stamp();
            }
        });
        sc_spawn([&] {
            const sc_time us(1, SC_US);
            enable_cycle_counter(bus_a, 0);
            // Counter 0 counts INST_RETIRED and interrupts 100 below its overflow.
            ASSERT_EQ(a.pmu_write(0, PMVP_PMEVTYPER_EL0, 0, PMVP_EV_INST_RETIRED), PMVP_OK);
            ASSERT_EQ(a.pmu_write(0, PMVP_PMEVCNTR_EL0, 0, 0xFFFFFFFFu - 99), PMVP_OK);
            ASSERT_EQ(a.pmu_write(0, PMVP_PMINTENSET_EL1, 0, 1), PMVP_OK);
            ASSERT_EQ(a.pmu_write(0, PMVP_PMCNTENSET_EL0, 0, 1 | PMVP_PMU_C), PMVP_OK);
            ASSERT_EQ(a.report(0, PMVP_EV_INST_RETIRED, 40, us / 2), PMVP_OK);
            std::vector<uint8_t> early = a.save();  // the report at 0.5 us is kept in it
            c.restore(early);
            uint64_t v = 0;
            ASSERT_EQ(c.pmu_read(0, PMVP_PMEVCNTR_EL0, 0, v, us / 2), PMVP_OK);  // the future view has it
            EXPECT_EQ(v, 0xFFFFFFFFu - 59);
            wait(us);
            ASSERT_EQ(c.pmu_read(0, PMVP_PMEVCNTR_EL0, 0, v), PMVP_OK);
            EXPECT_EQ(v, 0xFFFFFFFFu - 59);  // and the kernel took it at 0.5 us
            std::vector<uint8_t> ck = a.save();
            auto refused = [&](const std::vector<uint8_t> &bad, const char *why) {
                try {
                    b.restore(bad);
                    ADD_FAILURE() << "restored a checkpoint that should say: " << why;
                } catch (const std::invalid_argument &e) {
                    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
                }
            };
            refused(std::vector<uint8_t>(ck.begin(), ck.end() - 1), "truncated");
            std::vector<uint8_t> corrupt = ck;
            corrupt[ck.size() - 12] ^= 1;
            refused(corrupt, "corrupt");
            refused(std::vector<uint8_t>(ck.begin(), ck.begin() + (long)pmvp_core_checkpoint_size(&a.kernel())),
                    "no part of the SystemC module");
            // Asked before a platform runs to the checkpoint's instant: the
            // kernel's part of another configuration's checkpoint is refused
            // (at any instant), a good one taken, nothing changed.
            EXPECT_NO_THROW(b.check_restore(ck));
            try {
                other.check_restore(ck);
                ADD_FAILURE() << "another configuration's checkpoint passed the check";
            } catch (const std::invalid_argument &e) {
                EXPECT_STREQ(e.what(), "other: restore: a checkpoint of a core with another configuration");
            }
            b.restore(ck);
            EXPECT_EQ(bus_b.read(0, PMVP_FRAME_PMU, kPmccntr, 8), 1000u);
            for (Monitors *m : { &a, &b, &c })
                ASSERT_EQ(m->report(0, PMVP_EV_INST_RETIRED, 60, us), PMVP_OK);  // the overflow at 2 us
            wait(3 * us);
            EXPECT_EQ(bus_a.read(0, PMVP_FRAME_PMU, kPmccntr, 8), 4000u);
            EXPECT_EQ(bus_b.read(0, PMVP_FRAME_PMU, kPmccntr, 8), 4000u);
            EXPECT_EQ(bus_c.read(0, PMVP_FRAME_PMU, kPmccntr, 8), 4000u);
            EXPECT_EQ(rose_a, 2 * us);
            EXPECT_EQ(rose_b, 2 * us);
            EXPECT_EQ(rose_c, 2 * us);
            try {
                b.restore(ck);
                ADD_FAILURE() << "restored at 4 us a checkpoint of 1 us";
            } catch (const std::invalid_argument &e) {
                EXPECT_STREQ(e.what(), "b: restore: the checkpoint was saved at 1000000 ps and simulated time is "
                                       "4000000 ps: restore at the instant of the save");
            }
            EXPECT_EQ(bus_b.read(0, PMVP_FRAME_PMU, kPmccntr, 8), 4000u);  // unchanged
            sc_stop();
        });
        sc_start();
    });
}

// PE 0's counter 0 counts INST_RETIRED, `before` short of overflowing at
// 2^32, with its interrupt enabled, through the frame.
void arm_instructions_to_interrupt(Initiator &bus, uint64_t before)
{
    bus.write(0, PMVP_FRAME_PMU, kPmevtyper0, PMVP_EV_INST_RETIRED);
    bus.write(0, PMVP_FRAME_PMU, kPmevcntr0, 0x100000000ull - before, 8);
    bus.write(0, PMVP_FRAME_PMU, kPmintenset, 0x1);
    bus.write(0, PMVP_FRAME_PMU, kPmcntenset, 0x1);
    bus.write(0, PMVP_FRAME_PMU, kPmcr, PMVP_PMCR_EL0_E);
}

// A one-PE module with its bus and PMUIRQ on a line whose rising edges are
// recorded: what the tests of kept occurrences start from.
struct RisesBench {
    sc_signal<bool> irq{ "irq" };
    Monitors m{ "m", config() };
    Initiator bus{ "bus", m };
    std::vector<sc_time> rises;
    RisesBench()
    {
        m.pmuirq[0](irq);
        record_rises(irq, rises);
    }
};

// A stall started by a kept step raises PMUIRQ where its counter
// overflows: 50 cycles short, the stall told for 100 ns ahead, at 1 GHz, as
// set_levels and as the level change of report_shares.
TEST(Monitors, AKeptStepsStallRaisesPmuirqWhereItsCounterOverflows)
{
    for (bool with_shares : { false, true })
        in_child([with_shares] {
            RisesBench b;
            sc_spawn([&] {
                b.bus.write(0, PMVP_FRAME_PMU, kPmevtyper0, PMVP_EV_STALL_BACKEND);
                b.bus.write(0, PMVP_FRAME_PMU, kPmevcntr0, 0x100000000ull - 50, 8);
                b.bus.write(0, PMVP_FRAME_PMU, kPmintenset, 0x1);
                b.bus.write(0, PMVP_FRAME_PMU, kPmcntenset, 0x1);
                b.bus.write(0, PMVP_FRAME_PMU, kPmcr, PMVP_PMCR_EL0_E);
                const pmvp_level_change on[] = { { 0, PMVP_EV_STALL_BACKEND, 1 } };
                const pmvp_share share[] = { { 0, PMVP_EV_INST_RETIRED, 10 } };
                const sc_time at(100, SC_NS);
                EXPECT_EQ(with_shares ? b.m.report_shares(share, 1, SC_ZERO_TIME, at, on, 1)
                                      : b.m.set_levels(on, 1, at),
                          PMVP_OK);
            });
            sc_start(1, SC_US);
            ASSERT_EQ(b.rises.size(), 1u) << (with_shares ? "report_shares" : "set_levels");
            EXPECT_EQ(b.rises[0], sc_time(150, SC_NS));
        });
}

// A CPU model reporting ahead of simulated time does not show its future to
// an initiator reading now; the report counts, and raises PMUIRQ, when
// simulated time reaches it.
TEST(Monitors, ReportsAheadOfTimeTakeEffectAtTheirInstant)
{
    in_child([] {
        sc_signal<bool> irq("irq");
        Monitors m("m", config());
        m.pmuirq[0](irq);
        Initiator bus("bus", m);
        sc_time rose = SC_ZERO_TIME;
        when_it_rises(irq, rose);
        sc_spawn([&] {
            arm_instructions_to_interrupt(bus, 100);
            // The CPU model, 5 us ahead in its quantum, retires 100 instructions.
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 100, sc_time(5, SC_US)), PMVP_OK);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 0xFFFFFFFFull - 99);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8, sc_time(5, SC_US)), 0x100000000ull);
            wait(4, SC_US);
            EXPECT_FALSE(irq.read());
            wait(2, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 0x100000000ull);
        });
        sc_start();
        EXPECT_EQ(rose, sc_time(5, SC_US));
    });
}

// Kept reports and shares that cannot reach the interrupt wake nothing, yet
// PMUIRQ rises at the instant of the one that makes the count reach it: 100
// instructions short, 30 at 1 us, 30 (as shares) at 2 us, 50 at 3 us rise
// at 3 us. Interleaved with a write ahead of them that brings the overflow
// nearer (10 short at 4.5 us), the report of 20 at 5 us raises it at 5 us.
TEST(Monitors, KeptOccurrencesBelowTheInterruptRaisePmuirqWhereTheyReachIt)
{
    in_child([] {
        RisesBench b;
        Monitors &m = b.m;
        Initiator &bus = b.bus;
        sc_spawn([&] {
            arm_instructions_to_interrupt(bus, 100);
            const pmvp_share thirty = { 0, PMVP_EV_INST_RETIRED, 30 };
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 30, sc_time(1, SC_US)), PMVP_OK);
            EXPECT_EQ(m.report_shares(&thirty, 1, sc_time(1, SC_US), sc_time(2, SC_US)), PMVP_OK);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 50, sc_time(3, SC_US)), PMVP_OK);
            wait(4, SC_US);
            EXPECT_TRUE(b.irq.read());
            bus.write(0, PMVP_FRAME_PMU, kPmovsclr, 0x1);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 20, sc_time(1, SC_US)), PMVP_OK);  // at 5 us
            uint64_t ten_short = 0xFFFFFFFFull - 9;
            EXPECT_EQ(
                bus.access(tlm::TLM_WRITE_COMMAND, 0, PMVP_FRAME_PMU, kPmevcntr0, ten_short, 8, sc_time(500, SC_NS)),
                tlm::TLM_OK_RESPONSE);  // at 4.5 us
            wait(2, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 0x100000000ull + 10);
        });
        sc_start(10, SC_US);
        ASSERT_EQ(b.rises.size(), 2u);
        EXPECT_EQ(b.rises[0], sc_time(3, SC_US));
        EXPECT_EQ(b.rises[1], sc_time(5, SC_US));
    });
}

// The wake-up test keeps the kernel's count of what can be reported before
// the interrupt while the kernel's present stays as it was: a write made now
// between two kept shares changes it. Counter 0 100 short; shares of 10 kept
// for 1 us; then the counter written to 25 short now; shares of 10 for 2 us
// and 3 us: the third reaches the interrupt, which rises at 3 us.
TEST(Monitors, WhatChangesThePresentBetweenKeptSharesBringsTheInterruptNearer)
{
    in_child([] {
        RisesBench b;
        Monitors &m = b.m;
        Initiator &bus = b.bus;
        sc_spawn([&] {
            arm_instructions_to_interrupt(bus, 100);
            const pmvp_share ten = { 0, PMVP_EV_INST_RETIRED, 10 };
            EXPECT_EQ(m.report_shares(&ten, 1, SC_ZERO_TIME, sc_time(1, SC_US)), PMVP_OK);
            bus.write(0, PMVP_FRAME_PMU, kPmevcntr0, 0x100000000ull - 25, 8);
            EXPECT_EQ(m.report_shares(&ten, 1, sc_time(1, SC_US), sc_time(2, SC_US)), PMVP_OK);
            EXPECT_EQ(m.report_shares(&ten, 1, sc_time(2, SC_US), sc_time(3, SC_US)), PMVP_OK);
            wait(4, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 0x100000000ull + 5);
        });
        sc_start(5, SC_US);
        ASSERT_EQ(b.rises.size(), 1u);
        EXPECT_EQ(b.rises[0], sc_time(3, SC_US));
    });
    // Kept shares applied when simulated time reaches them change it too:
    // 100 short, 60 kept for 1 us; at 1.5 us, 50 kept for 2 us cross it.
    in_child([] {
        RisesBench b;
        Monitors &m = b.m;
        Initiator &bus = b.bus;
        sc_spawn([&] {
            arm_instructions_to_interrupt(bus, 100);
            const pmvp_share sixty = { 0, PMVP_EV_INST_RETIRED, 60 }, fifty = { 0, PMVP_EV_INST_RETIRED, 50 };
            EXPECT_EQ(m.report_shares(&sixty, 1, SC_ZERO_TIME, sc_time(1, SC_US)), PMVP_OK);
            wait(1500, SC_NS);
            EXPECT_EQ(m.report_shares(&fifty, 1, SC_ZERO_TIME, sc_time(500, SC_NS)), PMVP_OK);
            wait(1, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 0x100000000ull + 10);
        });
        sc_start(3, SC_US);
        ASSERT_EQ(b.rises.size(), 1u);
        EXPECT_EQ(b.rises[0], sc_time(2, SC_US));
    });
}

// What kept reports and shares carry stops counting toward the wake-up test
// once simulated time reaches them and they are made. A CPU model tells 10
// instructions a quantum ahead, 60 quanta in a row, with 1000 left before
// the interrupt: no call schedules a wake-up (the next activity is past the
// change's instant) and PMUIRQ never rises. Were made occurrences still
// counted as kept, they would pass what is left before the interrupt after
// about 50 quanta, and each call from then on would wake the process.
TEST(Monitors, KeptOccurrencesStopCountingOnceMade)
{
    for (bool as_report : { false, true })
        in_child([as_report] {
            RisesBench b;
            sc_spawn([&] {
                arm_instructions_to_interrupt(b.bus, 1000);
                wait(1, SC_US);
                const pmvp_share ten = { 0, PMVP_EV_INST_RETIRED, 10 };
                for (int q = 0; q < 60; q++) {
                    int err = as_report ? b.m.report(0, PMVP_EV_INST_RETIRED, 10, sc_time(1, SC_US))
                                        : b.m.report_shares(&ten, 1, SC_ZERO_TIME, sc_time(1, SC_US));
                    ASSERT_EQ(err, PMVP_OK);
                    ASSERT_GT(sc_time_to_pending_activity(), sc_time(1, SC_US)) << "quantum " << q;
                    wait(1, SC_US);
                }
                EXPECT_EQ(b.bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 0x100000000ull - 1000 + 600);
            });
            sc_start(100, SC_US);
            EXPECT_TRUE(b.rises.empty());
        });
}

// FEAT_SEBEP through the CPU-model interface: the instruction that overflows
// a counter in synchronous mode sets PSTATE.PPEND, now or ahead in the
// quantum, and PMUIRQ stays low while the PMU exception is enabled.
TEST(Monitors, RetiringInstructionSetsPpendOnSynchronousOverflow)
{
    in_child([] {
        pmvp_core_config cfg = config();
        cfg.feat_ebep = true;
        cfg.feat_sebep = true;
        Monitors m("m", cfg);
        Initiator bus("bus", m);
        sc_signal<bool> irq;
        m.pmuirq[0](irq);
        sc_spawn([&] {
            // EL3 and EL2 leave the choice to PMECR_EL1 (RGWLVY), which
            // enables the exception at EL1, unmasked for EL0 and EL1.
            pmvp_pmu_controls ctl{};
            ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, cfg.num_counters) |
                           PMVP_FIELD_PREP(PMVP_MDCR_EL2_PMEE, PMVP_PMEE_LOWER);
            ctl.mdcr_el3 = PMVP_FIELD_PREP(PMVP_MDCR_EL3_PMEE, PMVP_PMEE_LOWER);
            ctl.noninvasive_debug = true;
            EXPECT_EQ(m.set_controls(0, ctl), PMVP_OK);
            EXPECT_EQ(m.pmu_write(0, PMVP_PMECR_EL1, 0, PMVP_PMECR_EL1_KPME | PMVP_PMEE_ENABLED), PMVP_OK);
            pmvp_pmu_exception state{};
            EXPECT_EQ(m.pmu_exception(0, state), PMVP_OK);
            EXPECT_EQ(state.state, PMVP_PMUEXC_UNMASKED);
            EXPECT_EQ(state.target_el, 1u);
            // SYNC is bit 58: beyond the 32-bit EXT32 view, so an MSR sets it.
            EXPECT_EQ(m.pmu_write(0, PMVP_PMEVTYPER_EL0, 0, PMVP_EV_INST_RETIRED | PMVP_PMEVTYPER_EL0_SYNC), PMVP_OK);
            bus.write(0, PMVP_FRAME_PMU, kPmevcntr0, 0xFFFFFFFFull - 1, 8);
            bus.write(0, PMVP_FRAME_PMU, kPmintenset, 0x1);
            bus.write(0, PMVP_FRAME_PMU, kPmcntenset, 0x1);
            bus.write(0, PMVP_FRAME_PMU, kPmcr, PMVP_PMCR_EL0_E);
            pmvp_retire_result r{ 99, true };
            EXPECT_EQ(m.retire(0, PMVP_EV_INST_RETIRED, 1, 0x4000, r), PMVP_OK);
            EXPECT_EQ(r.overflows, 0u);
            EXPECT_FALSE(r.ppend);
            EXPECT_EQ(m.retire(0, PMVP_EV_INST_RETIRED, 1, 0x4004, r, sc_time(2, SC_US)), PMVP_OK);
            EXPECT_EQ(r.overflows, 1u);  // the second instruction overflows counter 0
            EXPECT_TRUE(r.ppend);
            wait(3, SC_US);
            EXPECT_FALSE(irq.read());  // the exception, not PMUIRQ (Table D13-1)
            uint64_t pmiar = 0;
            EXPECT_EQ(m.pmu_read(0, PMVP_PMIAR_EL1, 0, pmiar), PMVP_OK);
            EXPECT_EQ(pmiar, 0x4004u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 0x100000000ull);
            EXPECT_EQ(m.retire(0, PMVP_EV_INST_RETIRED, 2, 0x4008, r), PMVP_OK);
            EXPECT_EQ(r.overflows, 1u);  // PMOVSSET.P0 still 1: observed again, overshoot 2
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 0x100000002ull);
            // Disabling the exception in PMECR_EL1 gives PMUIRQ back.
            EXPECT_EQ(m.pmu_write(0, PMVP_PMECR_EL1, 0, PMVP_PMEE_IRQ), PMVP_OK);
            wait(SC_ZERO_TIME);
            wait(SC_ZERO_TIME);
            EXPECT_TRUE(irq.read());
        });
        sc_start();
    });
}

// Changes kept for later instants, given in any order and mixed with
// changes made now: every read sees exactly the changes up to its instant
// (the bindings' view of the future is rebuilt when a call goes back in
// time or the kernel changes now).
TEST(Monitors, ChangesForLaterInstantsInAnyOrder)
{
    in_child([] {
        Monitors m("m", config());
        sc_spawn([&] {
            const sc_time us(1, SC_US);
            uint64_t v = 0;
            auto at = [&](double t) {
                EXPECT_EQ(m.pmu_read(0, PMVP_PMEVCNTR_EL0, 0, v, t * us), PMVP_OK);
                return v;
            };
            EXPECT_EQ(m.pmu_write(0, PMVP_PMEVTYPER_EL0, 0, PMVP_EV_INST_RETIRED), PMVP_OK);
            EXPECT_EQ(m.pmu_write(0, PMVP_PMCNTENSET_EL0, 0, 1), PMVP_OK);
            EXPECT_EQ(m.pmu_write(0, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E), PMVP_OK);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 10, 3 * us), PMVP_OK);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 20, 1 * us), PMVP_OK);  // earlier than the last
            EXPECT_EQ(at(2), 20u);
            EXPECT_EQ(at(3), 30u);
            EXPECT_EQ(at(0.5), 0u);  // back again
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 5, 4 * us), PMVP_OK);
            EXPECT_EQ(at(4), 35u);
            EXPECT_EQ(m.pmu_write(0, PMVP_PMEVCNTR_EL0, 0, 1000), PMVP_OK);  // now
            EXPECT_EQ(at(5), 1035u);
            EXPECT_EQ(at(0), 1000u);
            EXPECT_EQ(at(1), 1020u);
            EXPECT_EQ(at(4), 1035u);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 1, 2 * us), PMVP_OK);  // before what the view holds
            EXPECT_EQ(at(4), 1036u);
            EXPECT_EQ(at(3.5), 1031u);
            wait(3, SC_US);  // 1, 2 and 3 us applied
            EXPECT_EQ(at(0), 1031u);
            EXPECT_EQ(at(1), 1036u);
            wait(2, SC_US);
            EXPECT_EQ(at(0), 1036u);
        });
        sc_start();
    });
}

// A report kept for a later instant is accepted or refused as the PE's power
// state at that instant says, changes kept before it included: a report or
// level is kept on the kernel's own answer (nothing copied) only while no
// other kind of change is kept, since one such as a power-state change
// could alter the answer.
TEST(Monitors, ReportsAheadAreRefusedAsThePowerStateThenSays)
{
    in_child([] {
        Monitors m("m", config());
        sc_spawn([&] {
            const sc_time us(1, SC_US);
            uint64_t v = 0;
            EXPECT_EQ(m.pmu_write(0, PMVP_PMEVTYPER_EL0, 0, PMVP_EV_INST_RETIRED), PMVP_OK);
            EXPECT_EQ(m.pmu_write(0, PMVP_PMCNTENSET_EL0, 0, 1), PMVP_OK);
            EXPECT_EQ(m.pmu_write(0, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E), PMVP_OK);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 1, 1 * us), PMVP_OK);
            EXPECT_EQ(m.report(0, 0x3FFF, 1, 1 * us), PMVP_ERR_EVENT);
            EXPECT_EQ(m.set_level(0, PMVP_EV_INST_RETIRED, 1, 1 * us), PMVP_ERR_EVENT);  // not a level
            EXPECT_EQ(m.set_level(9, PMVP_EV_STALL_BACKEND, 1, 1 * us), PMVP_ERR_PE);
            EXPECT_EQ(m.set_state(0, PMVP_PE_OFF, 2 * us), PMVP_OK);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 10, 3 * us), PMVP_ERR_PE_OFF);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 100, 1.5 * us), PMVP_OK);
            EXPECT_EQ(m.set_state(0, PMVP_PE_RUN, 4 * us), PMVP_OK);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 1000, 5 * us), PMVP_OK);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 10, 3.5 * us), PMVP_ERR_PE_OFF);
            wait(6, SC_US);
            // Now nothing is kept, and the PE is on: a report ahead is kept on
            // the kernel's answer again.
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 10000, 1 * us), PMVP_OK);
            EXPECT_EQ(m.pmu_read(0, PMVP_PMEVCNTR_EL0, 0, v), PMVP_OK);
            EXPECT_EQ(v, 1101u);
            EXPECT_EQ(m.pmu_read(0, PMVP_PMEVCNTR_EL0, 0, v, 1 * us), PMVP_OK);
            EXPECT_EQ(v, 11101u);
            // A query ahead builds the view without the reports kept on the
            // kernel's answer; once the kernel has one of them, the view is
            // built again.
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 5, 3 * us), PMVP_OK);
            pmvp_pmu_exception st{};
            EXPECT_EQ(m.pmu_exception(0, st, 0.5 * us), PMVP_OK);
            wait(2, SC_US);
            EXPECT_EQ(m.pmu_read(0, PMVP_PMEVCNTR_EL0, 0, v, 1.5 * us), PMVP_OK);
            EXPECT_EQ(v, 11106u);
        });
        sc_start();
    });
}

// A read for a later instant is the kernel's pure query when no change is
// kept before it: it shows that instant and leaves the kernel's present
// where it was. With a change kept for an earlier instant, the read shows
// it; a read before that instant does not; and once simulated time passes
// the change, reads at the present show it.
TEST(Monitors, ReadsAheadAreQueriesThatMoveNothing)
{
    in_child([] {
        Monitors m("m", config());
        Initiator bus("bus", m);
        sc_spawn([&] {
            const sc_time us(1, SC_US);
            uint64_t v = 0;
            enable_cycle_counter(bus, 0);
            bus.write(0, PMVP_FRAME_PMU, kPmevtyper0, PMVP_EV_INST_RETIRED);
            bus.write(0, PMVP_FRAME_PMU, kPmcntenset, 0x1);
            EXPECT_EQ(m.amu_write(0, PMVP_AMCNTENSET0_EL0, 0, 0x1), PMVP_OK);  // CPU_CYCLES
            EXPECT_EQ(m.pmu_read(0, PMVP_PMCCNTR_EL0, 0, v, 5 * us), PMVP_OK);
            EXPECT_EQ(v, 5000u);
            EXPECT_EQ(m.amu_read(0, PMVP_AMEVCNTR0_EL0, 0, v, 3 * us), PMVP_OK);
            EXPECT_EQ(v, 3000u);
            EXPECT_EQ(m.kernel().last_call, 0u);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 7, 2 * us), PMVP_OK);
            EXPECT_EQ(m.pmu_read(0, PMVP_PMEVCNTR_EL0, 0, v, 1 * us), PMVP_OK);
            EXPECT_EQ(v, 0u);
            EXPECT_EQ(m.pmu_read(0, PMVP_PMEVCNTR_EL0, 0, v, 3 * us), PMVP_OK);
            EXPECT_EQ(v, 7u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 4, 3 * us), 7u);
            wait(1, SC_US);
            EXPECT_EQ(m.peek(0, PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", 0), 0u);
            EXPECT_EQ(m.peek(0, PMVP_FRAME_PMU, "PMCCNTR_EL0"), 1000u);
            EXPECT_EQ(m.pmu_read(0, PMVP_PMEVCNTR_EL0, 0, v, 1 * us), PMVP_OK);
            EXPECT_EQ(v, 7u);
            wait(2, SC_US);
            EXPECT_EQ(m.peek(0, PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", 0), 7u);
            EXPECT_EQ(m.amu_read(0, PMVP_AMEVCNTR0_EL0, 0, v), PMVP_OK);
            EXPECT_EQ(v, 3000u);
            // A read refused now (a counter the core does not have) changes
            // nothing but the kernel's present, brought to now as any read
            // now brings it (time moved since its last call).
            wait(1, SC_US);
            auto before = std::make_unique<pmvp_core>(m.kernel());
            EXPECT_LT(before->last_call, 4'000'000u);
            EXPECT_EQ(pmvp_core_sync(before.get(), 4'000'000), PMVP_OK);
            EXPECT_EQ(m.pmu_read(0, PMVP_PMEVCNTR_EL0, 30, v), PMVP_ERR_COUNTER);
            EXPECT_EQ(std::memcmp(before.get(), &m.kernel(), sizeof *before), 0);
        });
        sc_start();
    });
}

// Warm reset resets the PMU; cold reset the whole core, AMU included.
TEST(Monitors, WarmAndColdReset)
{
    in_child([] {
        sc_signal<bool> warm("warm"), cold("cold");
        Monitors m("m", config());
        m.warm_reset(warm);
        m.cold_reset(cold);
        Initiator bus("bus", m);
        sc_spawn([&] {
            enable_cycle_counter(bus, 0);
            EXPECT_EQ(m.amu_write(0, PMVP_AMCNTENSET0_EL0, 0, 0x1), PMVP_OK);
            wait(1, SC_US);
            warm.write(true);
            wait(1, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmccntr, 8), 0u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmcr), 0u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_AMU, 0x000, 8), 2000u);  // the AMU keeps counting
            cold.write(true);
            wait(1, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_AMU, 0x000, 8), 0u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_AMU, 0xC00), 0u);  // AMCNTENSET0
        });
        sc_start();
    });
}

// The configuration's lists are the module's own: a cold reset after the
// caller's arrays are gone initialises the core with the same lists. An
// empty list of events is no event (NULL would be every event).
TEST(Monitors, ColdResetKeepsTheConfiguredListsOfEvents)
{
    in_child([] {
        sc_signal<bool> cold("cold");
        auto events =
            std::make_unique<std::vector<uint16_t>>(std::vector<uint16_t>{ PMVP_EV_CPU_CYCLES, PMVP_EV_INST_RETIRED });
        pmvp_core_config c = config();
        c.events = events->data();
        c.num_events = 2;
        Monitors m("m", c);
        m.cold_reset(cold);
        std::fill(events->begin(), events->end(), 0xFFFF);
        events.reset();
        const uint16_t nothing = 0;
        c.events = &nothing;
        c.num_events = 0;
        Monitors none("none", c);
        sc_spawn([&] {
            cold.write(true);
            wait(1, SC_US);
            uint64_t v = 0;
            EXPECT_EQ(m.pmu_read(0, PMVP_PMCEID0_EL0, 0, v), PMVP_OK);
            EXPECT_EQ(v, (1u << PMVP_EV_CPU_CYCLES) | (1u << PMVP_EV_INST_RETIRED));
            EXPECT_EQ(none.pmu_read(0, PMVP_PMCEID0_EL0, 0, v), PMVP_OK);
            EXPECT_EQ(v, 0u);
        });
        sc_start();
    });
}

// SoEMT through the CPU-model interface: CPU_CYCLES with MT = 0 counts the
// active thread's cycles only.
TEST(Monitors, SoemtThreadSwitch)
{
    in_child([] {
        pmvp_core_config c = config(2);
        c.mt_policy = PMVP_MT_SOEMT;
        Monitors m("m", c);
        Initiator bus("bus", m);
        sc_spawn([&] {
            for (unsigned pe = 0; pe < 2; pe++)
                count_cpu_cycles(bus, pe);
            EXPECT_EQ(m.set_active_thread(1, sc_time(300, SC_NS)), PMVP_OK);
            wait(1, SC_US);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmevcntr0, 8), 300u);
            EXPECT_EQ(bus.read(1, PMVP_FRAME_PMU, kPmevcntr0, 8), 700u);
        });
        sc_start();
    });
}

// sc_trace writes the monitors' values into a VCD file.
TEST(Monitors, TraceToVcd)
{
    in_child([] {
        Monitors m("m", config());
        Initiator bus("bus", m);
        sc_trace_file *tf = sc_create_vcd_trace_file("pmvp_trace_test");
        m.trace(tf);
        sc_spawn([&] {
            enable_cycle_counter(bus, 0);
            wait(1, SC_US);
            EXPECT_EQ(m.report(0, PMVP_EV_INST_RETIRED, 1), PMVP_OK);  // the monitor acts: a sample
            wait(1, SC_US);
        });
        sc_start();
        sc_close_vcd_trace_file(tf);
        std::ifstream vcd("pmvp_trace_test.vcd");
        std::string text((std::istreambuf_iterator<char>(vcd)), std::istreambuf_iterator<char>());
        EXPECT_NE(text.find("PMCCNTR_EL0"), std::string::npos);
        EXPECT_NE(text.find("PMUIRQ"), std::string::npos);
        EXPECT_NE(text.find("b1111101000 "), std::string::npos);  // PMCCNTR = 1000 at 1 us
    });
}

// A PMUIRQ pulse that a handler ends at the instant it rises has no width
// in a VCD; PMUIRQ_rises counts it.
TEST(Monitors, TraceCountsPmuirqPulsesOfNoWidth)
{
    in_child([] {
        Monitors m("m", config());
        Initiator bus("bus", m);
        sc_signal<bool> irq("irq");
        m.pmuirq[0](irq);
        sc_trace_file *tf = sc_create_vcd_trace_file("pmvp_trace_pulse");
        m.trace(tf);
        unsigned handled = 0;
        sc_spawn(
            [&] {
                for (;;) {
                    wait(irq.posedge_event());
                    bus.write(0, PMVP_FRAME_PMU, kPmovsclr, 1u << 31);  // at once: no time passes
                    handled++;
                }
            },
            nullptr, nullptr);
        sc_spawn([&] {
            bus.write(0, PMVP_FRAME_PMU, kPmccntr, ~0ull - 999, 8);  // overflows at 1 us (PMCR.LC 1)
            bus.write(0, PMVP_FRAME_PMU, kPmintenset, 1u << 31);
            enable_cycle_counter(bus, 0);
            wait(2, SC_US);
            sc_stop();
        });
        sc_start();
        sc_close_vcd_trace_file(tf);
        EXPECT_EQ(handled, 1u);
        std::ifstream vcd("pmvp_trace_pulse.vcd");
        std::string text((std::istreambuf_iterator<char>(vcd)), std::istreambuf_iterator<char>());
        // "$var wire 64 <id> PMUIRQ_rises [63:0] $end" in scope m.pe0, then "b1 <id>".
        std::smatch var;
        ASSERT_TRUE(std::regex_search(text, var, std::regex("\\$var wire +64 +(\\S+) +PMUIRQ_rises ")))
            << text.substr(0, 2000);
        EXPECT_NE(text.find("\nb1 " + var[1].str() + "\n"), std::string::npos) << text;
    });
}

// The kernel's reports of CONSTRAINED UNPREDICTABLE programming become
// SystemC warnings of type pmvp/guest.
TEST(Monitors, GuestOdditiesAreSystemCReports)
{
    in_child([] {
        sc_report_handler::set_actions("pmvp/guest", SC_DO_NOTHING);
        Monitors m("m", config());
        sc_spawn([&] {
            pmvp_pmu_controls ctl = m.kernel().pe[0].pmu.ctl;
            ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 20);  // HPMN > N = 6
            EXPECT_EQ(m.set_controls(0, ctl), PMVP_OK);
        });
        sc_start();
        EXPECT_EQ(sc_report_handler::get_count("pmvp/guest"), 1);
    });
}

// The NIDEN input gates external PMU access before FEAT_Debugv8p4.
TEST(Monitors, AuthenticationSignal)
{
    in_child([] {
        sc_report_handler::set_actions("pmvp/guest", SC_DO_NOTHING);
        pmvp_core_config c = config();
        c.feat_debugv8p4 = false;
        sc_signal<bool> niden("niden", false);
        Monitors m("m", c);
        m.niden(niden);
        Initiator bus("bus", m);
        sc_spawn([&] {
            uint64_t v = 0;
            wait(SC_ZERO_TIME);
            EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8),
                      tlm::TLM_GENERIC_ERROR_RESPONSE);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, 0xFB8), 0x88u);  // PMAUTHSTATUS: NSNID disabled
            niden.write(true);
            wait(SC_ZERO_TIME);
            EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8), tlm::TLM_OK_RESPONSE);
        });
        sc_start();
    });
}

TEST(Monitors, ErrorResponses)
{
    in_child([] {
        sc_report_handler::set_actions("pmvp/guest", SC_DO_NOTHING);
        Monitors m("m", config());
        Initiator bus("bus", m);
        sc_spawn([&] {
            uint64_t v = 0;
            auto status = [&](uint64_t addr, unsigned len) {
                return bus.access(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, addr, v, len);
            };
            EXPECT_EQ(status(kPmccntr, 2), tlm::TLM_BURST_ERROR_RESPONSE);
            EXPECT_EQ(status(kPmccntr, 16), tlm::TLM_BURST_ERROR_RESPONSE);
            EXPECT_EQ(status(0xFB0, 8), tlm::TLM_BURST_ERROR_RESPONSE);  // over two 32-bit registers
            EXPECT_EQ(status(0x1000, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
            EXPECT_EQ(status(0x0FA, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
            EXPECT_EQ(status(0x300, 4), tlm::TLM_OK_RESPONSE);  // reserved: RAZ/WI

            tlm::tlm_generic_payload gp;
            unsigned char data[8] = {}, be[8] = { 0xFF, 0xFF, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
            sc_time delay = SC_ZERO_TIME;
            Initiator::fill(gp, tlm::TLM_READ_COMMAND, kPmccntr, data, 8);
            gp.set_byte_enable_ptr(be);
            gp.set_byte_enable_length(8);
            bus.pmu[0]->b_transport(gp, delay);
            EXPECT_EQ(gp.get_response_status(), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
            gp.set_byte_enable_ptr(nullptr);
            gp.set_streaming_width(4);
            bus.pmu[0]->b_transport(gp, delay);
            EXPECT_EQ(gp.get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE);
            gp.set_streaming_width(8);
            gp.set_command(tlm::TLM_IGNORE_COMMAND);
            bus.pmu[0]->b_transport(gp, delay);
            EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
            tlm::tlm_dmi dmi;
            EXPECT_FALSE(bus.pmu[0]->get_direct_mem_ptr(gp, dmi));

            // Refused by the spec: OS Lock, then authentication.
            pmvp_pmu_controls ctl = m.kernel().pe[0].pmu.ctl;
            ctl.os_lock = true;
            EXPECT_EQ(m.set_controls(0, ctl), PMVP_OK);
            EXPECT_EQ(status(kPmccntr, 8), tlm::TLM_GENERIC_ERROR_RESPONSE);
            ctl.os_lock = false;
            ctl.mdcr_el3 = PMVP_MDCR_EL3_EPMAD;
            EXPECT_EQ(m.set_controls(0, ctl), PMVP_OK);
            EXPECT_EQ(status(kPmccntr, 8), tlm::TLM_GENERIC_ERROR_RESPONSE);
            AccessExtension secure({ PMVP_SECURE, false });
            tlm::tlm_generic_payload sgp;
            Initiator::fill(sgp, tlm::TLM_READ_COMMAND, kPmccntr, data, 8);
            sgp.set_extension(&secure);
            bus.pmu[0]->b_transport(sgp, delay);
            EXPECT_EQ(sgp.get_response_status(), tlm::TLM_OK_RESPONSE);  // a Secure access is allowed
            sgp.clear_extension(&secure);
        });
        sc_start();
    });
}

// A payload with no data pointer, and an annotated delay that would put the
// access beyond the representable time (2^64 - 1 ps), are answered with an
// error response and change nothing; the next ordinary access sees the
// counter as if they had not happened.
// An approximately-timed initiator's request completes in the call (early
// completion): the value and the response status as a blocking access
// gives them, the access latency on the delay; a phase of no transaction in
// flight is an error, and DMI is denied for every address.
TEST(Monitors, NonblockingRequestsCompleteAtOnce)
{
    in_child([] {
        Monitors m("m", config());
        Initiator bus("bus", m);
        m.access_latency = sc_time(5, SC_NS);
        sc_spawn([&] {
            enable_cycle_counter(bus, 0);
            wait(1, SC_US);
            tlm::tlm_generic_payload gp;
            uint64_t v = 0;
            Initiator::fill(gp, tlm::TLM_READ_COMMAND, kPmccntr, &v, 8);
            tlm::tlm_phase phase = tlm::BEGIN_REQ;
            sc_time delay = SC_ZERO_TIME;
            EXPECT_EQ(bus.pmu[0]->nb_transport_fw(gp, phase, delay), tlm::TLM_COMPLETED);
            EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
            EXPECT_EQ(v, 1000u);
            EXPECT_EQ(delay, sc_time(5, SC_NS));
            Initiator::fill(gp, tlm::TLM_READ_COMMAND, 0xFFFC, &v, 4);  // beyond the frame
            phase = tlm::BEGIN_REQ;
            EXPECT_EQ(bus.pmu[0]->nb_transport_fw(gp, phase, delay), tlm::TLM_COMPLETED);
            EXPECT_EQ(gp.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
            Initiator::fill(gp, tlm::TLM_READ_COMMAND, kPmccntr, &v, 8);
            phase = tlm::END_RESP;
            EXPECT_EQ(bus.pmu[0]->nb_transport_fw(gp, phase, delay), tlm::TLM_COMPLETED);
            EXPECT_EQ(gp.get_response_status(), tlm::TLM_GENERIC_ERROR_RESPONSE);
            tlm::tlm_dmi dmi;
            dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
            dmi.set_end_address(0x1000);
            EXPECT_FALSE(bus.amu[0]->get_direct_mem_ptr(gp, dmi));
            EXPECT_EQ(dmi.get_granted_access(), tlm::tlm_dmi::DMI_ACCESS_NONE);
            EXPECT_EQ(dmi.get_start_address(), 0u);
            EXPECT_EQ(dmi.get_end_address(), ~(sc_dt::uint64)0);
        });
        sc_start(2, SC_US);
    });
}

// A debugger dumps a whole frame in one debug transport: every word as a
// 4-byte debug read gives it (PMCCNTR's count, PMDEVARCH), zero where the
// frame has no register, nothing changed; a range past the frame's end is
// cut there, and an unaligned one is read too.
TEST(Monitors, ADebuggerDumpsAWholeFrame)
{
    in_child([] {
        Monitors m("m", config());
        Initiator bus("bus", m);
        sc_spawn([&] {
            enable_cycle_counter(bus, 0);
            wait(sc_time(100, SC_NS));
            std::vector<unsigned char> frame(PMVP_FRAME_SIZE, 0xAA);
            tlm::tlm_generic_payload gp;
            Initiator::fill(gp, tlm::TLM_READ_COMMAND, 0, frame.data(), PMVP_FRAME_SIZE);
            gp.set_streaming_width(PMVP_FRAME_SIZE);
            uint64_t synced = 0;  // the kernel brought to the present, as any read does
            bus.debug(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, synced, 4);
            const pmvp_core before = m.kernel();
            ASSERT_EQ(bus.pmu[0]->transport_dbg(gp), PMVP_FRAME_SIZE);
            EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
            EXPECT_EQ(std::memcmp(&before, &m.kernel(), sizeof before), 0);  // no side effect
            unsigned nonzero = 0;
            for (uint64_t w = 0; w < PMVP_FRAME_SIZE; w += 4) {
                uint32_t word;
                std::memcpy(&word, &frame[w], 4);
                uint64_t v = 0;
                bus.debug(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, w, v, 4);
                EXPECT_EQ(word, (uint32_t)v) << "offset " << w;
                nonzero += word != 0;
            }
            EXPECT_GT(nonzero, 10u);
            uint32_t ccnt;
            std::memcpy(&ccnt, &frame[kPmccntr], 4);
            EXPECT_EQ(ccnt, 100u);  // 100 ns at 1 GHz
            // 16 bytes from 6 bytes before the end, and 6 bytes at an odd address.
            std::vector<unsigned char> tail(16, 0xAA);
            Initiator::fill(gp, tlm::TLM_READ_COMMAND, PMVP_FRAME_SIZE - 6, tail.data(), 16);
            gp.set_streaming_width(16);
            EXPECT_EQ(bus.pmu[0]->transport_dbg(gp), 6u);
            EXPECT_EQ(std::memcmp(tail.data(), &frame[PMVP_FRAME_SIZE - 6], 6), 0);
            Initiator::fill(gp, tlm::TLM_READ_COMMAND, kPmccntr + 1, tail.data(), 6);
            gp.set_streaming_width(6);
            EXPECT_EQ(bus.pmu[0]->transport_dbg(gp), 6u);
            EXPECT_EQ(std::memcmp(tail.data(), &frame[kPmccntr + 1], 6), 0);
        });
        sc_start();
    });
}

TEST(Monitors, NoDataPointerAndAnEndlessDelayAreRefused)
{
    in_child([] {
        sc_report_handler::set_actions("pmvp/guest", SC_DO_NOTHING);
        Monitors m("m", config());
        Initiator bus("bus", m);
        sc_spawn([&] {
            enable_cycle_counter(bus, 0);
            wait(sc_time(100, SC_NS));
            for (tlm::tlm_command cmd : { tlm::TLM_READ_COMMAND, tlm::TLM_WRITE_COMMAND }) {
                tlm::tlm_generic_payload gp;
                Initiator::fill(gp, cmd, kPmccntr, nullptr, 8);
                sc_time delay = SC_ZERO_TIME;
                bus.pmu[0]->b_transport(gp, delay);
                EXPECT_EQ(gp.get_response_status(), tlm::TLM_GENERIC_ERROR_RESPONSE);
                Initiator::fill(gp, cmd, kPmccntr, nullptr, 8);
                EXPECT_EQ(bus.pmu[0]->transport_dbg(gp), 0u);
                EXPECT_EQ(gp.get_response_status(), tlm::TLM_GENERIC_ERROR_RESPONSE);
            }
            uint64_t v = 7;
            const sc_time endless = sc_time::from_value(UINT64_MAX - 10);
            EXPECT_EQ(bus.access(tlm::TLM_READ_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8, endless),
                      tlm::TLM_GENERIC_ERROR_RESPONSE);
            EXPECT_EQ(v, 7u);
            EXPECT_EQ(bus.access(tlm::TLM_WRITE_COMMAND, 0, PMVP_FRAME_PMU, kPmccntr, v, 8, endless),
                      tlm::TLM_GENERIC_ERROR_RESPONSE);
            // 100 ns at 1 GHz, then 10 ns later: nothing was written.
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmccntr, 8), 100u);
            EXPECT_EQ(bus.read(0, PMVP_FRAME_PMU, kPmccntr, 8, sc_time(10, SC_NS)), 110u);
        });
        sc_start();
    });
}

// ------------------------------------------------------------- X86Monitors

pmvp_x86_config x86_config()
{
    pmvp_x86_config c;
    pmvp_x86_config_default(&c);
    c.core_hz = 2000000000;
    c.tsc_hz = 3000000000;
    return c;
}

// The signals drive halt and P-state; the CPU model reads over RDMSR/RDPMC.
// Saved at 10 us, restored at 10 us into another module: the same calls
// then give the same counts. Saved at 0 with a report for 2 us kept,
// restored at 0: the report is counted at 2 us. A restore at another
// instant is refused.
TEST(X86Monitors, SaveAndRestore)
{
    in_child([] {
        X86Monitors a("a", x86_config()), b("b", x86_config()), c("c", x86_config());
        sc_spawn([&] {
            for (unsigned lp = 0; lp < 2; lp++) {
                EXPECT_EQ(a.wrmsr(lp, PMVP_MSR_IA32_FIXED_CTR_CTRL, 0x333), PMVP_OK);
                EXPECT_EQ(a.wrmsr(lp, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 7ull << 32), PMVP_OK);
            }
            uint64_t v = 0;
            EXPECT_EQ(a.report(0, PMVP_X86_INST_RETIRED_ANY, 5, sc_time(2, SC_US)), PMVP_OK);  // kept for 2 us
            c.restore(a.save());
            wait(10, SC_US);
            EXPECT_EQ(c.rdmsr(0, PMVP_MSR_IA32_FIXED_CTR0, v), PMVP_OK);
            EXPECT_EQ(v, 5u);  // the report kept in the checkpoint of 0 us, counted at 2 us
            std::vector<uint8_t> ck = a.save();
            b.restore(ck);
            EXPECT_EQ(c.set_state(1, PMVP_X86_HALT), PMVP_OK);
            EXPECT_EQ(b.set_state(1, PMVP_X86_HALT), PMVP_OK);
            EXPECT_EQ(a.set_state(1, PMVP_X86_HALT), PMVP_OK);
            wait(10, SC_US);
            for (X86Monitors *m : { &a, &b, &c }) {
                EXPECT_EQ(m->rdmsr(0, PMVP_MSR_IA32_FIXED_CTR0 + 1, v), PMVP_OK);
                EXPECT_EQ(v, 40000u);  // 20 us at 2 GHz
                EXPECT_EQ(m->rdmsr(1, PMVP_MSR_IA32_FIXED_CTR0 + 1, v), PMVP_OK);
                EXPECT_EQ(v, 20000u);  // halted from 10 us
            }
            EXPECT_THROW(b.restore(ck), std::invalid_argument);  // 20 us is not 10 us
        });
        sc_start(30, SC_US);
    });
}

// A change for a later instant, then a signal before that instant, then a
// read: the halt signal at 5 us counts from 5 us, and the clock change told
// for 8 us counts from 8 us, whatever the order they came in.
TEST(X86Monitors, ALaterChangeThenASignalThenARead)
{
    in_child([] {
        sc_signal<bool> halt0("halt0");
        X86Monitors m("x86", x86_config());  // 2 GHz core clock
        m.halt[0](halt0);
        sc_spawn([&] {
            EXPECT_EQ(m.wrmsr(0, PMVP_MSR_IA32_FIXED_CTR_CTRL, 0x333), PMVP_OK);
            EXPECT_EQ(m.wrmsr(0, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 7ull << 32), PMVP_OK);
            EXPECT_EQ(m.set_core_clock(1000000000, sc_time(8, SC_US)), PMVP_OK);  // kept for 8 us
            wait(5, SC_US);
            halt0.write(true);
            wait(1, SC_US);
            halt0.write(false);  // unhalted again from 6 us
            wait(4, SC_US);
            uint64_t v = 0;
            EXPECT_EQ(m.rdmsr(0, PMVP_MSR_IA32_FIXED_CTR0 + 1, v), PMVP_OK);
            // 5 us + 2 us at 2 GHz, then 2 us at 1 GHz: 14,000 + 2,000.
            EXPECT_EQ(v, 16000u);
        });
        sc_start(20, SC_US);
    });
}

TEST(X86Monitors, HaltAndPStateSignals)
{
    in_child([] {
        sc_signal<bool> halt1("halt1");
        sc_signal<uint64_t> hz("hz");
        X86Monitors m("x86", x86_config());
        m.halt[1](halt1);
        m.core_hz(hz);
        hz.write(2000000000);
        sc_spawn([&] {
            for (unsigned lp = 0; lp < 2; lp++) {
                EXPECT_EQ(m.wrmsr(lp, PMVP_MSR_IA32_FIXED_CTR_CTRL, 0x333), PMVP_OK);
                EXPECT_EQ(m.wrmsr(lp, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 7ull << 32), PMVP_OK);
            }
            wait(10, SC_US);
            halt1.write(true);
            wait(10, SC_US);
            hz.write(1000000000);
            wait(10, SC_US);
            halt1.write(false);
            wait(10, SC_US);
            uint64_t v = 0;
            EXPECT_EQ(m.rdmsr(0, PMVP_MSR_IA32_FIXED_CTR0 + 1, v), PMVP_OK);
            EXPECT_EQ(v, 60000u);  // 20 us at 2 GHz + 20 us at 1 GHz
            EXPECT_EQ(m.rdpmc(1, 1u << 30 | 1, v), PMVP_OK);
            EXPECT_EQ(v, 30000u);  // LP 1 halted 10..30 us
            EXPECT_EQ(m.rdpmc(1, 1u << 30 | 2, v), PMVP_OK);
            EXPECT_EQ(v, 60000u);  // REF_TSC: 20 us unhalted at 3 GHz
            EXPECT_EQ(m.rdtsc(0, v), PMVP_OK);
            EXPECT_EQ(v, 120000u);
            EXPECT_EQ(m.rdmsr(0, 0x1234, v), PMVP_ERR_GP);
            // Calls ahead of simulated time (the policy of Monitors): a report
            // for 1 us later is kept; a read now does not see it, a read for
            // 1 us later does, and simulated time reaching it applies it.
            EXPECT_EQ(m.rdmsr(0, PMVP_MSR_IA32_FIXED_CTR0, v), PMVP_OK);
            const uint64_t before = v;
            EXPECT_EQ(m.report(0, PMVP_X86_INST_RETIRED_ANY, 7, sc_time(1, SC_US)), PMVP_OK);
            EXPECT_EQ(m.rdmsr(0, PMVP_MSR_IA32_FIXED_CTR0, v), PMVP_OK);
            EXPECT_EQ(v, before);
            EXPECT_EQ(m.rdmsr(0, PMVP_MSR_IA32_FIXED_CTR0, v, sc_time(1, SC_US)), PMVP_OK);
            EXPECT_EQ(v, before + 7);
            EXPECT_EQ(m.rdmsr(0, PMVP_MSR_IA32_TSC, v), PMVP_OK);  // the present is still readable
            wait(2, SC_US);
            EXPECT_EQ(m.rdmsr(0, PMVP_MSR_IA32_FIXED_CTR0, v), PMVP_OK);
            EXPECT_EQ(v, before + 7);
            // An offset beyond the representable time is refused, not wrapped.
            EXPECT_EQ(m.rdmsr(0, PMVP_MSR_IA32_TSC, v, sc_time::from_value(UINT64_MAX - 10)), PMVP_ERR_VALUE);
        });
        sc_start(50, SC_US);
    });
}

TEST(X86Monitors, OverflowRaisesPmiAtTheExactInstant)
{
    in_child([] {
        sc_signal<bool> pmi("pmi");
        X86Monitors m("x86", x86_config());
        m.pmi[0](pmi);
        std::vector<std::pair<sc_time, bool>> edges;
        sc_spawn_options o;
        o.spawn_method();
        o.dont_initialize();
        o.set_sensitivity(&pmi.value_changed_event());
        sc_spawn([&] { edges.push_back({ sc_time_stamp(), pmi.read() }); }, "watch", &o);
        sc_spawn([&] {
            wait(10, SC_NS);
            EXPECT_EQ(m.wrmsr(0, PMVP_MSR_IA32_FIXED_CTR0 + 1, (1ull << 48) - 1000), PMVP_OK);
            EXPECT_EQ(m.wrmsr(0, PMVP_MSR_IA32_FIXED_CTR_CTRL, 0xB0), PMVP_OK);  // FIXED_CTR1: OS, USR, PMI
            EXPECT_EQ(m.wrmsr(0, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 33), PMVP_OK);
            wait(2, SC_US);
            EXPECT_EQ(m.wrmsr(0, PMVP_MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1ull << 33), PMVP_OK);
        });
        sc_start(5, SC_US);
        ASSERT_EQ(edges.size(), 2u);
        EXPECT_EQ(edges[0].first, sc_time(510, SC_NS));  // 1000 cycles at 2 GHz after 10 ns
        EXPECT_TRUE(edges[0].second);
        EXPECT_EQ(edges[1].first, sc_time(2010, SC_NS));
        EXPECT_FALSE(edges[1].second);
    });
}


// docs/INTEGRATION.md's table of common offsets, held to the model's: each
// row's offsets of instances 0 and 1 in an EXT32 and an EXT64 core.
TEST(IntegrationGuide, OffsetsTableIsTheModels)
{
    std::ifstream f(std::string(PMVP_DOCS) + "/INTEGRATION.md");
    ASSERT_TRUE(f) << "docs/INTEGRATION.md";
    pmvp_core_config c32 = config(), c64 = config();
    c32.pmu_ext_layout = PMVP_EXT32;
    c64.pmu_ext_layout = PMVP_EXT64;
    c32.amu_ext_layout = PMVP_EXT32;
    c64.amu_ext_layout = PMVP_EXT64;
    auto k32 = std::make_unique<pmvp_core>(), k64 = std::make_unique<pmvp_core>();
    ASSERT_EQ(pmvp_core_init(k32.get(), &c32), PMVP_OK);
    ASSERT_EQ(pmvp_core_init(k64.get(), &c64), PMVP_OK);
    // "0x400 + 4n" at n
    auto at = [](const std::string &cell, unsigned n) {
        size_t plus = cell.find('+');
        uint32_t base = (uint32_t)std::stoul(cell, nullptr, 16);
        return plus == std::string::npos ? base : base + (uint32_t)std::stoul(cell.substr(plus + 1)) * n;
    };
    std::string line;
    unsigned rows = 0;
    while (std::getline(f, line)) {
        if (line.rfind("| PMU | `", 0) != 0 && line.rfind("| AMU | `", 0) != 0)
            continue;
        std::vector<std::string> cells;
        std::stringstream row(line.substr(1));
        for (std::string cell; std::getline(row, cell, '|');)
            cells.push_back(
                cell.substr(cell.find_first_not_of(' '), cell.find_last_not_of(' ') - cell.find_first_not_of(' ') + 1));
        ASSERT_GE(cells.size(), 4u) << line;
        pmvp_frame frame = cells[0] == "AMU" ? PMVP_FRAME_AMU : PMVP_FRAME_PMU;
        std::string name = cells[1].substr(1, cells[1].size() - 2);
        for (unsigned n = 0; n < (name.find("<n>") == std::string::npos ? 1u : 2u); n++) {
            uint32_t off32 = 0, off64 = 0;
            ASSERT_EQ(pmvp_ext_find(k32.get(), frame, name.c_str(), n, &off32), PMVP_OK) << name;
            ASSERT_EQ(pmvp_ext_find(k64.get(), frame, name.c_str(), n, &off64), PMVP_OK) << name;
            EXPECT_EQ(off32, at(cells[2], n)) << name << " " << n << " EXT32";
            EXPECT_EQ(off64, at(cells[3], n)) << name << " " << n << " EXT64";
        }
        rows++;
    }
    EXPECT_EQ(rows, 11u);
}

}  // namespace
}  // namespace pmvp::sc::test

// A death-test child run under LeakSanitizer exits with status 1 and no
// report (seen with GoogleTest 1.12 and clang/GCC's LSan), so the children
// run without it; CTest runs each test in its own process, in-process
// (PMVP_TEST_IN_PROCESS), with LeakSanitizer on (tests/CMakeLists.txt).
extern "C" const char *__asan_default_options()
{
    return "detect_leaks=0";
}

// SystemC's library provides main() and calls sc_main().
int sc_main(int argc, char **argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
