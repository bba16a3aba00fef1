// SPDX-License-Identifier: Apache-2.0
// Intel-style clock counting (pmvp/x86.h): each counter across halts,
// P-state changes and Hyper-Threading with the counts 18.20 implies, every
// cell of Table 18-30, E/INV/CMASK, overflow and PMI, the MSR outcomes, and
// the lazy kernel held to the per-tick reference model (reference_x86.h).
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>

#include "pmvp/error.h"
#include "pmvp/x86.h"
#include "reference_x86.h"

namespace {

constexpr pmvp_time kNs = 1000;
constexpr pmvp_time kUs = 1000 * kNs;
constexpr uint64_t kGHz = 1000000000;
constexpr uint64_t kMHz = 1000000;
constexpr uint64_t kTop48 = (1ull << 48) - 1;

constexpr uint32_t kFixedCtr1 = PMVP_MSR_IA32_FIXED_CTR0 + 1;
constexpr uint32_t kFixedCtr2 = PMVP_MSR_IA32_FIXED_CTR0 + 2;
constexpr uint64_t kAllFixedOsUsr = 0x333;  // IA32_FIXED_CTR_CTRL: every fixed counter, OS and USR

// PERFEVTSEL for `event` (umask << 8 | select), enabled, OS and USR unless given.
uint64_t evtsel(uint16_t event, uint64_t extra = PMVP_X86_EVTSEL_OS | PMVP_X86_EVTSEL_USR)
{
    return event | PMVP_X86_EVTSEL_EN | extra;
}
uint64_t cmask(unsigned c)
{
    return (uint64_t)c << PMVP_X86_EVTSEL_CMASK_SHIFT;
}

class X86 : public ::testing::Test {
protected:
    void SetUp() override
    {
        pmvp_x86_config_default(&cfg);
        cfg.core_hz = 2 * kGHz;
        cfg.tsc_hz = 3 * kGHz;
        cfg.xclk_hz = 100 * kMHz;
    }
    void init() { ASSERT_EQ(pmvp_x86_init(&core, &cfg), PMVP_OK); }
    void wr(unsigned t, uint32_t msr, uint64_t v, pmvp_time now = 0)
    {
        ASSERT_EQ(pmvp_x86_wrmsr(&core, t, msr, v, now), PMVP_OK) << std::hex << msr;
    }
    uint64_t rd(unsigned t, uint32_t msr, pmvp_time now)
    {
        uint64_t v = 0;
        EXPECT_EQ(pmvp_x86_rdmsr(&core, t, msr, now, &v), PMVP_OK) << std::hex << msr;
        return v;
    }
    uint64_t pmc(unsigned t, unsigned x, pmvp_time now) { return rd(t, PMVP_MSR_IA32_PMC0 + x, now); }
    uint64_t fixed(unsigned t, unsigned x, pmvp_time now) { return rd(t, PMVP_MSR_IA32_FIXED_CTR0 + x, now); }
    void state(unsigned t, pmvp_x86_state st, pmvp_time now)
    {
        ASSERT_EQ(pmvp_x86_set_state(&core, t, st, now), PMVP_OK);
    }
    void cpl(unsigned t, uint8_t level, pmvp_time now)
    {
        pmvp_x86_context ctx{ level, false, false };
        ASSERT_EQ(pmvp_x86_set_context(&core, t, &ctx, now), PMVP_OK);
    }
    // Every fixed counter on, OS and USR; GLOBAL_CTRL enables every counter.
    void enable_all(unsigned t)
    {
        wr(t, PMVP_MSR_IA32_FIXED_CTR_CTRL, kAllFixedOsUsr);
        wr(t, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 0x70000000Full);
    }

    pmvp_x86_config cfg;
    pmvp_x86_core core;
};

// Two hyper-threads: LP 0 runs throughout; LP 1 halts from 10 to 30 us; the
// P-state drops from 2 GHz to 1 GHz at 20 us; TSC at 3 GHz, XCLK 100 MHz.
TEST_F(X86, ClocksAcrossHaltPStateAndHyperThreading)
{
    init();
    for (unsigned t = 0; t < 2; t++) {
        enable_all(t);
        wr(t, PMVP_MSR_IA32_PERFEVTSEL0 + 0, evtsel(PMVP_X86_CPU_CLK_UNHALTED_THREAD_P));
        wr(t, PMVP_MSR_IA32_PERFEVTSEL0 + 1,
           evtsel(PMVP_X86_CPU_CLK_UNHALTED_THREAD_P, PMVP_X86_EVTSEL_OS | PMVP_X86_EVTSEL_USR | PMVP_X86_EVTSEL_ANY));
        wr(t, PMVP_MSR_IA32_PERFEVTSEL0 + 2, evtsel(PMVP_X86_CPU_CLK_UNHALTED_REF_XCLK));
        wr(t, PMVP_MSR_IA32_PERFEVTSEL0 + 3, evtsel(PMVP_X86_CPU_CLK_UNHALTED_ONE_THREAD_ACTIVE));
    }
    state(1, PMVP_X86_HALT, 10 * kUs);
    ASSERT_EQ(pmvp_x86_set_core_clock(&core, 1 * kGHz, 20 * kUs), PMVP_OK);
    state(1, PMVP_X86_C0, 30 * kUs);

    const pmvp_time end = 40 * kUs;
    // LP 0: 20 us at 2 GHz + 20 us at 1 GHz of core cycles; 40 us of TSC.
    EXPECT_EQ(fixed(0, 1, end), 60000u);   // CPU_CLK_UNHALTED.THREAD
    EXPECT_EQ(fixed(0, 2, end), 120000u);  // REF_TSC: 40 us * 3 GHz, whatever the P-state
    EXPECT_EQ(pmc(0, 0, end), 60000u);     // THREAD_P
    EXPECT_EQ(pmc(0, 1, end), 60000u);     // THREAD_P, AnyThread: LP 0 always unhalted
    EXPECT_EQ(pmc(0, 2, end), 4000u);      // REF_XCLK: 40 us * 100 MHz
    EXPECT_EQ(pmc(0, 3, end), 2000u);      // ONE_THREAD_ACTIVE: 10..30 us alone
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_APERF, end), 60000u);
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_MPERF, end), 120000u);
    // LP 1: 10 us at 2 GHz + 10 us at 1 GHz unhalted.
    EXPECT_EQ(fixed(1, 1, end), 30000u);
    EXPECT_EQ(fixed(1, 2, end), 60000u);
    EXPECT_EQ(pmc(1, 0, end), 30000u);
    EXPECT_EQ(pmc(1, 1, end), 60000u);  // THREAD_ANY: a core cycle with any LP unhalted
    EXPECT_EQ(pmc(1, 2, end), 2000u);
    EXPECT_EQ(pmc(1, 3, end), 0u);
    EXPECT_EQ(rd(1, PMVP_MSR_IA32_APERF, end), 30000u);
    EXPECT_EQ(rd(1, PMVP_MSR_IA32_MPERF, end), 60000u);
    EXPECT_EQ(rd(1, PMVP_MSR_IA32_TSC, end), 120000u);

    // Both halted for 10 us: the counters power down, the invariant TSC runs on.
    state(0, PMVP_X86_HALT, end);
    state(1, PMVP_X86_HALT, end);
    const pmvp_time later = 50 * kUs;
    EXPECT_EQ(fixed(0, 1, later), 60000u);
    EXPECT_EQ(fixed(0, 2, later), 120000u);
    EXPECT_EQ(pmc(1, 1, later), 60000u);
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_APERF, later), 60000u);
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_TSC, later), 150000u);
    uint64_t tsc = 0;
    ASSERT_EQ(pmvp_x86_rdtsc(&core, 1, later, &tsc), PMVP_OK);
    EXPECT_EQ(tsc, 150000u);
}

// A TSC that is not invariant stops while every LP is in a deep sleep state,
// not in C1 and not while one LP is awake.
TEST_F(X86, TscStopsInDeepSleepOnlyWhenNotInvariant)
{
    for (bool invariant : { false, true }) {
        cfg.tsc_invariant = invariant;
        init();
        state(0, PMVP_X86_DEEP_SLEEP, 10 * kUs);
        state(1, PMVP_X86_HALT, 10 * kUs);        // C1 + deep: the TSC runs
        state(1, PMVP_X86_DEEP_SLEEP, 20 * kUs);  // both deep: it stops unless invariant
        state(0, PMVP_X86_C0, 30 * kUs);
        EXPECT_EQ(rd(0, PMVP_MSR_IA32_TSC, 40 * kUs), invariant ? 120000u : 90000u) << invariant;
        EXPECT_EQ(rd(0, PMVP_MSR_IA32_MPERF, 40 * kUs), 60000u);  // C0: 0..10 and 30..40 us
    }
}

TEST_F(X86, InstructionsRetiredByCplAndAnyThread)
{
    init();
    enable_all(0);
    enable_all(1);
    wr(0, PMVP_MSR_IA32_PERFEVTSEL0, evtsel(PMVP_X86_INST_RETIRED_ANY, PMVP_X86_EVTSEL_USR));
    wr(1, PMVP_MSR_IA32_FIXED_CTR_CTRL, kAllFixedOsUsr | PMVP_X86_FIXED_ANY);  // FIXED_CTR0 AnyThread
    ASSERT_EQ(pmvp_x86_report(&core, 0, PMVP_X86_INST_RETIRED_ANY, 100, 1 * kUs), PMVP_OK);
    cpl(0, 3, 2 * kUs);
    cpl(1, 3, 2 * kUs);
    ASSERT_EQ(pmvp_x86_report(&core, 0, PMVP_X86_INST_RETIRED_ANY, 50, 3 * kUs), PMVP_OK);
    ASSERT_EQ(pmvp_x86_report(&core, 1, PMVP_X86_INST_RETIRED_ANY, 70, 4 * kUs), PMVP_OK);
    EXPECT_EQ(fixed(0, 0, 5 * kUs), 150u);  // OS and USR
    EXPECT_EQ(pmc(0, 0, 5 * kUs), 50u);     // USR only
    EXPECT_EQ(fixed(1, 0, 5 * kUs), 220u);  // both LPs
    // The clock events are the kernel's to count.
    EXPECT_EQ(pmvp_x86_report(&core, 0, PMVP_X86_CPU_CLK_UNHALTED_REF_XCLK, 1, 5 * kUs), PMVP_ERR_EVENT);
}

// Table 18-30, "Effect of Logical Processor and CPL Qualification for
// Non-logical-Processor-specific (TI) Events", with its cells as printed:
// rows T0_OS/T0_USR, columns T1_OS/T1_USR, each in the order 00, 01, 11, 10.
const char *const kTable18_30[4][4] = {
    { "Zero count", "Counts while (a) T0 in USR or (b) T1 in USR", "Counts irrespective of CPL, T0, T1",
      "Counts while (a) T0 in OS or (b) T1 in OS" },
    { "Counts while (a) T0 in USR or (b) T1 in USR", "Counts while (a) T0 in USR or (b) T1 in USR",
      "Counts irrespective of CPL, T0, T1", "Counts irrespective of CPL, T0, T1" },
    { "Counts irrespective of CPL, T0, T1", "Counts irrespective of CPL, T0, T1", "Counts irrespective of CPL, T0, T1",
      "Counts irrespective of CPL, T0, T1" },
    { "Counts while (a) T0 in OS or (b) T1 in OS", "Counts irrespective of CPL, T0, T1",
      "Counts irrespective of CPL, T0, T1", "Counts while (a) T0 in OS or (b) T1 in OS" },
};
const char *const kOrder[4] = { "00", "01", "11", "10" };  // OS/USR

// What a cell's words say for LPs at CPL cpl0 and cpl1.
bool cell_counts(const std::string &cell, uint8_t cpl0, uint8_t cpl1)
{
    if (cell == "Zero count")
        return false;
    if (cell == "Counts irrespective of CPL, T0, T1")
        return true;
    if (cell == "Counts while (a) T0 in USR or (b) T1 in USR")
        return cpl0 != 0 || cpl1 != 0;
    if (cell == "Counts while (a) T0 in OS or (b) T1 in OS")
        return cpl0 == 0 || cpl1 == 0;
    ADD_FAILURE() << "unknown cell " << cell;
    return false;
}

TEST_F(X86, Table18_30EveryCell)
{
    cfg.cpl_mode = PMVP_X86_CPL_T0_T1;
    const uint16_t kTiEvent = PMVP_X86_EVENT(0x2E, 0x41);
    unsigned cells = 0;
    for (unsigned row = 0; row < 4; row++) {
        for (unsigned col = 0; col < 4; col++) {
            for (uint8_t cpl0 : { 0, 3 }) {
                for (uint8_t cpl1 : { 0, 2 }) {
                    init();
                    auto bits = [](const char *os_usr) {
                        return (os_usr[0] == '1' ? PMVP_X86_EVTSEL_OS : 0) |
                               (os_usr[1] == '1' ? PMVP_X86_EVTSEL_USR : 0);
                    };
                    wr(0, PMVP_MSR_IA32_PERFEVTSEL0, evtsel(kTiEvent, bits(kOrder[row])));
                    wr(1, PMVP_MSR_IA32_PERFEVTSEL0, evtsel(kTiEvent, bits(kOrder[col])));
                    cpl(0, cpl0, 0);
                    cpl(1, cpl1, 0);
                    ASSERT_EQ(pmvp_x86_report_core(&core, kTiEvent, 7, 1 * kUs), PMVP_OK);
                    uint64_t want = cell_counts(kTable18_30[row][col], cpl0, cpl1) ? 7 : 0;
                    std::string where = std::string("T0=") + kOrder[row] + " T1=" + kOrder[col] + " CPL " +
                                        std::to_string(cpl0) + "/" + std::to_string(cpl1);
                    // The counter of either LP is the core's shared counter 0.
                    EXPECT_EQ(pmc(0, 0, 2 * kUs), want) << where;
                    EXPECT_EQ(pmc(1, 0, 2 * kUs), want) << where;
                    cells++;
                }
            }
        }
    }
    EXPECT_EQ(cells, 64u);
}

// The architectural mode: a TI event counts when an LP the counter counts
// (its own; both with AnyThread) is at a CPL its own OS/USR selects.
TEST_F(X86, ThreadIndependentEventsPerThread)
{
    init();
    const uint16_t kTiEvent = PMVP_X86_EVENT(0x2E, 0x41);
    wr(0, PMVP_MSR_IA32_PERFEVTSEL0, evtsel(kTiEvent, PMVP_X86_EVTSEL_USR));
    wr(0, PMVP_MSR_IA32_PERFEVTSEL0 + 1, evtsel(kTiEvent, PMVP_X86_EVTSEL_USR | PMVP_X86_EVTSEL_ANY));
    cpl(1, 3, 0);
    ASSERT_EQ(pmvp_x86_report_core(&core, kTiEvent, 5, 1 * kUs), PMVP_OK);  // LP 0 at CPL 0, LP 1 at 3
    EXPECT_EQ(pmc(0, 0, 2 * kUs), 0u);
    EXPECT_EQ(pmc(0, 1, 2 * kUs), 5u);
}

// Thread-specific events with AnyThread: the other LP's occurrences are
// qualified by the counter's bits (architectural) or by that LP's own
// T1_OS/T1_USR (Table 18-30's shared control).
TEST_F(X86, ThreadSpecificQualificationModes)
{
    for (auto mode : { PMVP_X86_CPL_PER_THREAD, PMVP_X86_CPL_T0_T1 }) {
        cfg.cpl_mode = mode;
        init();
        wr(0, PMVP_MSR_IA32_PERFEVTSEL0, evtsel(PMVP_X86_INST_RETIRED_ANY, PMVP_X86_EVTSEL_OS | PMVP_X86_EVTSEL_ANY));
        wr(1, PMVP_MSR_IA32_PERFEVTSEL0, evtsel(PMVP_X86_INST_RETIRED_ANY, PMVP_X86_EVTSEL_USR));
        cpl(1, 3, 0);
        ASSERT_EQ(pmvp_x86_report(&core, 1, PMVP_X86_INST_RETIRED_ANY, 10, 1 * kUs), PMVP_OK);
        ASSERT_EQ(pmvp_x86_report(&core, 0, PMVP_X86_INST_RETIRED_ANY, 4, 1 * kUs), PMVP_OK);
        EXPECT_EQ(pmc(0, 0, 2 * kUs), mode == PMVP_X86_CPL_T0_T1 ? 14u : 4u) << mode;
        EXPECT_EQ(pmc(1, 0, 2 * kUs), 10u) << mode;
    }
}

// E, INV and CMASK on a clock event, at a constant 2 GHz: LP 1 halts from
// 10 to 30 us while LP 0 runs; from 40 to 50 us both are halted.
TEST_F(X86, EdgeInvertCmaskOnCycles)
{
    init();
    wr(1, PMVP_MSR_IA32_PERFEVTSEL0 + 0, evtsel(0x003C) | PMVP_X86_EVTSEL_INV | cmask(1));
    wr(1, PMVP_MSR_IA32_PERFEVTSEL0 + 1, evtsel(0x003C) | PMVP_X86_EVTSEL_E);
    wr(1, PMVP_MSR_IA32_PERFEVTSEL0 + 2, evtsel(0x003C) | cmask(2));
    wr(1, PMVP_MSR_IA32_PERFEVTSEL0 + 3, evtsel(0x003C) | PMVP_X86_EVTSEL_INV | cmask(1) | PMVP_X86_EVTSEL_E);
    state(1, PMVP_X86_HALT, 10 * kUs);
    state(1, PMVP_X86_C0, 30 * kUs);
    state(0, PMVP_X86_HALT, 40 * kUs);
    state(1, PMVP_X86_HALT, 40 * kUs);
    state(0, PMVP_X86_C0, 50 * kUs);
    const pmvp_time end = 60 * kUs;
    EXPECT_EQ(pmc(1, 0, end), 40000u + 20000u);  // halted cycles while the core runs: 10..30, 50..60 us
    EXPECT_EQ(pmc(1, 1, end), 2u);               // unhalted from the first cycle, and again at 30 us
    EXPECT_EQ(pmc(1, 2, end), 0u);               // a cycle counts at most 1
    // Halted from 10 us; 40..50 us is not seen, so the core waking at 50 us
    // with LP 1 still halted is a rise again.
    EXPECT_EQ(pmc(1, 3, end), 2u);
}

// On an occurrence event a report is one cycle's count.
TEST_F(X86, EdgeInvertCmaskOnReports)
{
    init();
    const uint16_t ev = PMVP_X86_EVENT(0xC2, 0x02);
    wr(0, PMVP_MSR_IA32_PERFEVTSEL0 + 0, evtsel(ev) | cmask(4));
    wr(0, PMVP_MSR_IA32_PERFEVTSEL0 + 1, evtsel(ev) | cmask(4) | PMVP_X86_EVTSEL_INV);
    wr(0, PMVP_MSR_IA32_PERFEVTSEL0 + 2, evtsel(ev) | cmask(4) | PMVP_X86_EVTSEL_E);
    wr(0, PMVP_MSR_IA32_PERFEVTSEL0 + 3, evtsel(ev) | PMVP_X86_EVTSEL_INV);  // INV without CMASK: plain count
    pmvp_time t = 0;
    for (uint64_t n : { 4, 5, 3, 0, 6 })
        ASSERT_EQ(pmvp_x86_report(&core, 0, ev, n, t += kNs), PMVP_OK);
    EXPECT_EQ(pmc(0, 0, t), 3u);  // 4, 5, 6
    EXPECT_EQ(pmc(0, 1, t), 2u);  // 3, 0
    EXPECT_EQ(pmc(0, 2, t), 2u);  // rises at 4 and at 6
    EXPECT_EQ(pmc(0, 3, t), 18u);
}

TEST_F(X86, OverflowStatusPmiAndNextInterrupt)
{
    init();
    wr(0, PMVP_MSR_IA32_FIXED_CTR_CTRL, 0x3u << 4 | PMVP_X86_FIXED_PMI << 4);  // FIXED_CTR1, PMI
    wr(0, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 33 | 1);
    wr(0, kFixedCtr1, kTop48 - 999);
    // PMC0 via the legacy alias: bits 31:0 of -2, sign-extended to 48 bits; no INT.
    wr(0, PMVP_MSR_IA32_PERFEVTSEL0, evtsel(0x003C));
    wr(0, PMVP_MSR_IA32_PMC0, 0xFFFFFFFEull);
    EXPECT_EQ(pmc(0, 0, 0), kTop48 - 1);

    pmvp_time when = 0;
    ASSERT_EQ(pmvp_x86_next_interrupt(&core, 0, &when), PMVP_OK);
    EXPECT_EQ(when, 500 * kNs);                                       // the 1000th edge at 2 GHz
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_PERF_GLOBAL_STATUS, 1 * kNs), 1u);  // PMC0 wrapped, no PMI
    EXPECT_FALSE(pmvp_x86_pmi(&core, 0));
    EXPECT_EQ(fixed(0, 1, when - 1), kTop48);
    EXPECT_FALSE(pmvp_x86_pmi(&core, 0));
    EXPECT_EQ(fixed(0, 1, when), 0u);
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_PERF_GLOBAL_STATUS, when), 1ull << 33 | 1);
    EXPECT_TRUE(pmvp_x86_pmi(&core, 0));
    EXPECT_FALSE(pmvp_x86_pmi(&core, 1));
    wr(0, PMVP_MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1ull << 33, when);
    EXPECT_FALSE(pmvp_x86_pmi(&core, 0));
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_PERF_GLOBAL_STATUS, when), 1u);
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_PERF_GLOBAL_OVF_CTRL, when), 0u);
}

TEST_F(X86, MsrOutcomes)
{
    cfg.full_width_writes = false;
    init();
    uint64_t v = 0;
    // Unknown MSRs, counters beyond num_gp, A_PMCx without FW_WRITE.
    for (uint32_t msr : { 0x0u, 0xC5u, 0x18Au, 0x30Cu, (uint32_t)PMVP_MSR_IA32_A_PMC0, 0xFFFFFFFFu }) {
        EXPECT_EQ(pmvp_x86_rdmsr(&core, 0, msr, 0, &v), PMVP_ERR_GP) << std::hex << msr;
        EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, msr, 0, 0), PMVP_ERR_GP) << std::hex << msr;
    }
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_PERF_CAPABILITIES, 0), 0u);
    // Reserved bits and read-only MSRs: #GP, nothing changes.
    EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, PMVP_MSR_IA32_PERFEVTSEL0, 1ull << 32, 0), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, PMVP_MSR_IA32_PERFEVTSEL0, 1ull << 19, 0), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, PMVP_MSR_IA32_FIXED_CTR_CTRL, 1ull << 12, 0), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 4, 0), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 35, 0), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, PMVP_MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1ull << 63, 0), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, kFixedCtr2, 1ull << 48, 0), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, PMVP_MSR_IA32_PERF_GLOBAL_STATUS, 0, 0), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, PMVP_MSR_IA32_PERF_CAPABILITIES, 0, 0), PMVP_ERR_GP);
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_PERFEVTSEL0, 0), 0u);
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_PERF_GLOBAL_CTRL, 0), 0xFu);  // reset: the PMCx enables
    // IA32_PMCx: bits 63:32 of the value are not written; bit 31 is sign-extended.
    wr(0, PMVP_MSR_IA32_PMC0, 0x1234567812345678ull);
    EXPECT_EQ(pmc(0, 0, 0), 0x12345678u);
    wr(0, PMVP_MSR_IA32_PMC0, 0x80000000ull);
    EXPECT_EQ(pmc(0, 0, 0), 0xFFFF80000000ull);

    // RDPMC: ECX[30] selects the fixed counters; bad index or CPL > 0 without CR4.PCE: #GP.
    wr(0, kFixedCtr2, 42);
    ASSERT_EQ(pmvp_x86_rdpmc(&core, 0, 1u << 30 | 2, 0, &v), PMVP_OK);
    EXPECT_EQ(v, 42u);
    EXPECT_EQ(pmvp_x86_rdpmc(&core, 0, 1u << 30 | 3, 0, &v), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_rdpmc(&core, 0, 4, 0, &v), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_rdpmc(&core, 0, 1u << 31, 0, &v), PMVP_ERR_GP);
    pmvp_x86_context user{ 3, false, true };
    ASSERT_EQ(pmvp_x86_set_context(&core, 0, &user, 0), PMVP_OK);
    EXPECT_EQ(pmvp_x86_rdpmc(&core, 0, 0, 0, &v), PMVP_ERR_GP);
    EXPECT_EQ(pmvp_x86_rdtsc(&core, 0, 0, &v), PMVP_ERR_GP);  // CR4.TSD
    user = { 3, true, false };
    ASSERT_EQ(pmvp_x86_set_context(&core, 0, &user, 0), PMVP_OK);
    EXPECT_EQ(pmvp_x86_rdpmc(&core, 0, 0, 0, &v), PMVP_OK);
    EXPECT_EQ(pmvp_x86_rdtsc(&core, 0, 0, &v), PMVP_OK);

    // Other bad input.
    EXPECT_EQ(pmvp_x86_rdmsr(&core, 2, PMVP_MSR_IA32_TSC, 0, &v), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_x86_rdmsr(&core, 0, PMVP_MSR_IA32_TSC, 0, nullptr), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_x86_set_state(&core, 0, (pmvp_x86_state)7, 0), PMVP_ERR_VALUE);
    pmvp_x86_context bad{ 4, false, false };
    EXPECT_EQ(pmvp_x86_set_context(&core, 0, &bad, 0), PMVP_ERR_VALUE);
    ASSERT_EQ(pmvp_x86_sync(&core, 10 * kUs), PMVP_OK);
    EXPECT_EQ(pmvp_x86_set_core_clock(&core, kGHz, 5 * kUs), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_x86_rdmsr(&core, 0, PMVP_MSR_IA32_TSC, 5 * kUs, &v), PMVP_ERR_PAST);
    EXPECT_EQ(rd(0, PMVP_MSR_IA32_TSC, 10 * kUs), 30000u);

    pmvp_x86_config bad_cfg = cfg;
    for (auto mutate : std::initializer_list<void (*)(pmvp_x86_config &)>{
             [](pmvp_x86_config &c) { c.num_threads = 0; }, [](pmvp_x86_config &c) { c.num_threads = 3; },
             [](pmvp_x86_config &c) { c.num_gp = 9; }, [](pmvp_x86_config &c) { c.gp_width = 31; },
             [](pmvp_x86_config &c) { c.fixed_width = 49; }, [](pmvp_x86_config &c) { c.tsc_hz = 0; },
             [](pmvp_x86_config &c) { c.cpl_mode = (pmvp_x86_cpl_mode)2; } }) {
        bad_cfg = cfg;
        mutate(bad_cfg);
        EXPECT_EQ(pmvp_x86_init(&core, &bad_cfg), PMVP_ERR_CONFIG);
    }
}

// ------------------------------------------------------- differential test

// One seeded run: the same random inputs to the kernel and the per-tick
// reference, every counter, status, PMI, TSC, APERF and MPERF compared at
// every step, and each predicted interrupt instant checked against the
// first PMI the reference raises.
std::string differential_run(uint64_t seed, uint64_t *checks)
{
    std::mt19937_64 rng(seed);
    auto pick = [&](uint64_t n) { return rng() % n; };
    pmvp_x86_config cfg;
    pmvp_x86_config_default(&cfg);
    cfg.num_threads = 1 + (unsigned)pick(2);
    cfg.num_gp = (unsigned)pick(5);
    cfg.gp_width = 32 + (unsigned)pick(17);
    cfg.fixed_width = 32 + (unsigned)pick(17);
    cfg.core_hz = 500 * kMHz + pick(2500) * kMHz + pick(1000);
    cfg.tsc_hz = 1 * kGHz + pick(2000) * kMHz;
    cfg.xclk_hz = pick(4) ? 100 * kMHz + pick(1000) : 0;
    cfg.tsc_invariant = pick(2);
    cfg.cpl_mode = pick(2) ? PMVP_X86_CPL_T0_T1 : PMVP_X86_CPL_PER_THREAD;
    pmvp_x86_core k;
    if (pmvp_x86_init(&k, &cfg) != PMVP_OK)
        return "init failed";
    pmvp::ref::X86Core r(cfg);

    const uint16_t kEvents[] = { 0x003C, 0x013C, 0x023C, 0x00C0, 0x412E, 0x02C2 };
    std::ostringstream fail;
    pmvp_time now = 0, predicted = PMVP_TIME_NEVER, predicted_at = 0;
    for (int step = 0; step < 400; step++) {
        pmvp_time next = now + (pick(5) == 0 ? pick(200) * kNs : pick(3000));
        // No input between now and next: the reference's first PMI is the prediction.
        pmvp_time rise = (r.advance(next), r.first_pmi_rise_since(predicted_at));
        pmvp_time want = predicted <= next ? predicted : PMVP_TIME_NEVER;
        if ((rise <= next ? rise : PMVP_TIME_NEVER) != want) {
            fail << "seed " << seed << " step " << step << ": next interrupt " << predicted << ", reference " << rise;
            return fail.str();
        }
        now = next;
        unsigned t = (unsigned)pick(cfg.num_threads);
        int err = PMVP_OK;
        switch (pick(10)) {
        case 0: {
            uint64_t hz = pick(8) ? 200 * kMHz + pick(4000) * kMHz + pick(999) : 0;
            err = pmvp_x86_set_core_clock(&k, hz, now);
            r.set_core_clock(hz, now);
            break;
        }
        case 1:
        case 2: {
            auto st = (pmvp_x86_state)pick(3);
            err = pmvp_x86_set_state(&k, t, st, now);
            r.set_state(t, st, now);
            break;
        }
        case 3: {
            pmvp_x86_context ctx{ (uint8_t)pick(4), false, false };
            err = pmvp_x86_set_context(&k, t, &ctx, now);
            r.set_cpl(t, ctx.cpl, now);
            break;
        }
        case 4: {
            uint16_t ev = kEvents[3 + pick(3)];
            uint64_t n = pick(6);
            if (pick(3)) {
                err = pmvp_x86_report(&k, t, ev, n, now);
                r.report(t, ev, n, now);
            } else {
                err = pmvp_x86_report_core(&k, ev, n, now);
                r.report_core(ev, n, now);
            }
            break;
        }
        case 5:
        case 6: {
            if (cfg.num_gp == 0)
                break;
            uint64_t v = kEvents[pick(6)] | (pick(2) ? PMVP_X86_EVTSEL_EN : 0) | (pick(3) ? PMVP_X86_EVTSEL_OS : 0) |
                         (pick(3) ? PMVP_X86_EVTSEL_USR : 0) | (pick(3) ? 0 : PMVP_X86_EVTSEL_ANY) |
                         (pick(4) ? 0 : PMVP_X86_EVTSEL_E) | (pick(4) ? 0 : PMVP_X86_EVTSEL_INV) |
                         (pick(3) ? 0 : cmask((unsigned)pick(4))) | (pick(2) ? PMVP_X86_EVTSEL_INT : 0);
            uint32_t msr = PMVP_MSR_IA32_PERFEVTSEL0 + (uint32_t)pick(cfg.num_gp);
            err = pmvp_x86_wrmsr(&k, t, msr, v, now);
            r.wrmsr(t, msr, v, now);
            break;
        }
        case 7: {
            uint64_t v = rng() & 0xFFF;
            err = pmvp_x86_wrmsr(&k, t, PMVP_MSR_IA32_FIXED_CTR_CTRL, v, now);
            r.wrmsr(t, PMVP_MSR_IA32_FIXED_CTR_CTRL, v, now);
            break;
        }
        case 8: {
            // A counter near its wrap point.
            bool fixed = cfg.num_gp == 0 || pick(2);
            unsigned width = fixed ? cfg.fixed_width : cfg.gp_width;
            uint64_t v = ((1ull << width) - 1) - pick(3000);
            uint32_t msr = fixed ? PMVP_MSR_IA32_FIXED_CTR0 + (uint32_t)pick(3)
                                 : PMVP_MSR_IA32_A_PMC0 + (uint32_t)pick(cfg.num_gp);
            err = pmvp_x86_wrmsr(&k, t, msr, v, now);
            r.wrmsr(t, msr, v, now);
            break;
        }
        case 9: {
            uint32_t msr = pick(2) ? PMVP_MSR_IA32_PERF_GLOBAL_CTRL : PMVP_MSR_IA32_PERF_GLOBAL_OVF_CTRL;
            uint64_t v = rng() & (((1ull << cfg.num_gp) - 1) | 7ull << 32);
            err = pmvp_x86_wrmsr(&k, t, msr, v, now);
            r.wrmsr(t, msr, v, now);
            break;
        }
        }
        if (err != PMVP_OK) {
            fail << "seed " << seed << " step " << step << ": kernel refused an input: " << pmvp_strerror(err);
            return fail.str();
        }
        // Compare everything.
        auto check = [&](const char *what, unsigned lp, uint64_t kv, uint64_t rv) {
            ++*checks;
            if (kv != rv && fail.str().empty())
                fail << "seed " << seed << " step " << step << " t=" << now << " LP " << lp << " " << what
                     << ": kernel " << kv << ", reference " << rv;
        };
        uint64_t v = 0;
        pmvp_x86_rdmsr(&k, 0, PMVP_MSR_IA32_TSC, now, &v);
        check("TSC", 0, v, r.tsc(now));
        for (unsigned lp = 0; lp < cfg.num_threads; lp++) {
            for (unsigned x = 0; x < cfg.num_gp; x++) {
                pmvp_x86_rdmsr(&k, lp, PMVP_MSR_IA32_PMC0 + x, now, &v);
                check(("PMC" + std::to_string(x)).c_str(), lp, v, r.counter(lp, x, now));
            }
            for (unsigned x = 0; x < 3; x++) {
                pmvp_x86_rdmsr(&k, lp, PMVP_MSR_IA32_FIXED_CTR0 + x, now, &v);
                check(("FIXED_CTR" + std::to_string(x)).c_str(), lp, v, r.counter(lp, 32 + x, now));
            }
            pmvp_x86_rdmsr(&k, lp, PMVP_MSR_IA32_PERF_GLOBAL_STATUS, now, &v);
            check("GLOBAL_STATUS", lp, v, r.status(lp, now));
            check("PMI", lp, pmvp_x86_pmi(&k, lp), r.pmi(lp, now));
            pmvp_x86_rdmsr(&k, lp, PMVP_MSR_IA32_APERF, now, &v);
            check("APERF", lp, v, r.aperf(lp, now));
            pmvp_x86_rdmsr(&k, lp, PMVP_MSR_IA32_MPERF, now, &v);
            check("MPERF", lp, v, r.mperf(lp, now));
        }
        if (!fail.str().empty())
            return fail.str();
        pmvp_x86_next_interrupt(&k, now, &predicted);
        predicted_at = now;
    }
    return "";
}

TEST(X86Differential, KernelMatchesPerTickReference)
{
    uint64_t checks = 0;
    for (uint64_t seed = 1; seed <= 150; seed++) {
        std::string failure = differential_run(seed, &checks);
        ASSERT_EQ(failure, "");
    }
    EXPECT_GT(checks, 100000u);
}

}  // namespace

namespace pmvp::test {
namespace {

// The MSR table (x86_msrs.def) drives decoding: every MSR is readable at
// each of its instances, the address after its last instance is another
// MSR or #GP, and IA32_A_PMCx exists only with full-width writes.
TEST_F(X86, EveryMsrOfTheTableDecodesAtEachInstance)
{
    cfg.num_gp = 4;
    for (bool full_width : { false, true }) {
        cfg.full_width_writes = full_width;
        init();
        ASSERT_EQ(pmvp_x86_msr_count(), 12u);
        for (size_t i = 0; i < pmvp_x86_msr_count(); i++) {
            const pmvp_x86_msr_info *m = pmvp_x86_msr_at(i);
            unsigned count = std::string(m->instances) == "num_gp" ? cfg.num_gp
                             : std::string(m->instances) == "3"    ? PMVP_X86_NUM_FIXED
                                                                   : 1;
            bool present = *m->needs == '\0' || full_width;
            uint64_t v = 0;
            for (unsigned x = 0; x < count; x++)
                EXPECT_EQ(pmvp_x86_rdmsr(&core, 0, m->address + x, 0, &v), present ? PMVP_OK : PMVP_ERR_GP)
                    << m->name << " + " << x;
            if (count > 1) {
                EXPECT_EQ(pmvp_x86_rdmsr(&core, 0, m->address + count, 0, &v), PMVP_ERR_GP) << m->name;
            }
        }
        EXPECT_EQ(pmvp_x86_msr_at(pmvp_x86_msr_count()), nullptr);
        uint64_t v = 0;
        EXPECT_EQ(pmvp_x86_wrmsr(&core, 0, PMVP_MSR_IA32_PERF_GLOBAL_STATUS, 0, 0), PMVP_ERR_GP);
        EXPECT_EQ(pmvp_x86_rdmsr(&core, 0, PMVP_MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0, &v), PMVP_OK);
        EXPECT_EQ(v, 0u);
    }
}

}  // namespace
}  // namespace pmvp::test
