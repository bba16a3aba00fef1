// SPDX-License-Identifier: Apache-2.0
//
// End-to-end tests of pmvp-soc: each shipped scenario is run as a user runs
// it, and its JSON output is held to the counts the architecture implies.
// Then the command line: overrides, outputs, and bad input.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "journal.h"
#include "soc_run.h"
#include "pmvp/version.h"
#include "scenario.h"

using nlohmann::json;

#ifndef PMVP_RANDOM_SCENARIOS
#define PMVP_RANDOM_SCENARIOS 40
#endif

namespace {

// The value counted by the counter the firmware set up as entry `i`.
uint64_t counted(const json &pe, size_t i)
{
    return pe["pmu"]["counters"][i]["counted"].get<uint64_t>();
}
uint64_t samples(const json &pe, size_t i)
{
    return pe["pmu"]["counters"][i]["samples"].get<uint64_t>();
}
uint64_t pmccntr(const json &pe)
{
    return pe["pmu"]["PMCCNTR_EL0"].get<uint64_t>();
}
uint64_t amu(const json &pe, const char *name)
{
    return pe["amu"][name].get<uint64_t>();
}

// A run whose reference-model check compared values and found them all equal.
void expect_checked(const SocRun &r)
{
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_TRUE(r.result.contains("check")) << r.out;
    EXPECT_GT(r.result["check"]["compared"].get<uint64_t>(), 0u);
    EXPECT_EQ(r.result["check"]["disagreements"].get<uint64_t>(), 0u) << r.result["check"]["first"].dump();
}

}  // namespace

// The README's main job: the default scenario, with no arguments.
TEST(PmvpSoc, DefaultScenario)
{
    SocRun r = pmvp_soc("--check");
    expect_checked(r);
    EXPECT_NE(r.out.find("PMCCNTR_EL0"), std::string::npos);
    const json &pe = r.result["pes"];
    ASSERT_EQ(pe.size(), 6u);
    // Big cores: 600 us at 2 GHz, then 400 us at 1.5 GHz = 1,800,000 cycles.
    // Thread 1 runs 150 us of every 200 us: 450 us at 2 GHz + 300 us at 1.5 GHz.
    EXPECT_EQ(pmccntr(pe[0]), 1800000u);
    EXPECT_EQ(counted(pe[0], 0), 1800000u);
    EXPECT_EQ(counted(pe[1], 0), 1350000u);  // CPU_CYCLES, MT=0: only while active
    EXPECT_EQ(counted(pe[1], 4), 1800000u);  // CPU_CYCLES, MT=1: thread 0 always runs
    EXPECT_EQ(counted(pe[0], 1), 3600000u);  // IPC 2
    EXPECT_EQ(counted(pe[1], 1), 675000u);   // IPC 0.5
    EXPECT_EQ(samples(pe[0], 1), 7u);        // floor(3,600,000 / 500,000)
    EXPECT_EQ(samples(pe[1], 1), 1u);
    EXPECT_EQ(counted(pe[1], 2), 810000u);        // STALL_BACKEND: 60 %
    EXPECT_EQ(counted(pe[1], 3), 540000u);        // STALL_BACKEND_MEM: 40 %
    EXPECT_EQ(amu(pe[1], "CNT_CYCLES"), 75000u);  // 750 us at 100 MHz
    // Little cores: 200 us of every 500 us at 1 GHz; the clock stops in WFI.
    EXPECT_EQ(pmccntr(pe[4]), 400000u);
    EXPECT_EQ(r.result["pes"][0]["interrupts"].get<uint64_t>(), 7u);
}

// D14.4.1: CPU_CYCLES with MT=0 counts the cycles the thread is active; MT=1
// the cycles on which any thread is not in WFI/WFE; the clock stops when
// every thread is in WFI.
TEST(PmvpSoc, SmtWithOneThreadInWfi)
{
    SocRun r = pmvp_soc(scenario("smt-wfi") + " --check");
    expect_checked(r);
    const json &pe = r.result["pes"];
    EXPECT_EQ(pmccntr(pe[0]), 1800000u);
    EXPECT_EQ(pmccntr(pe[1]), 1800000u);
    EXPECT_EQ(counted(pe[0], 0), 1800000u);
    EXPECT_EQ(counted(pe[1], 0), 1000000u);
    EXPECT_EQ(counted(pe[1], 1), 1800000u);
    EXPECT_EQ(counted(pe[0], 2), 2700000u);
    EXPECT_EQ(counted(pe[1], 2), 1500000u);
    EXPECT_EQ(amu(pe[0], "CNT_CYCLES"), 90000u);
}

// D14.4.1, FGMT: each of T threads is active on every T-th cycle.
TEST(PmvpSoc, FgmtBarrel)
{
    SocRun r = pmvp_soc(scenario("fgmt-barrel") + " --check");
    expect_checked(r);
    for (const json &pe : r.result["pes"]) {
        EXPECT_EQ(pmccntr(pe), 1000000u);
        EXPECT_EQ(counted(pe, 0), 250000u);   // MT=0: every 4th cycle
        EXPECT_EQ(counted(pe, 1), 1000000u);  // MT=1: every cycle
        EXPECT_EQ(counted(pe, 2), 250000u);   // IPC 1 on its own cycles
        EXPECT_EQ(counted(pe, 3), 1000000u);  // MT=1: all threads' instructions
        // The thread's IPC is the scenario's: its instructions over its own
        // cycles (MT=0 counters), not over the core's (the AMU's, 0.25).
        EXPECT_DOUBLE_EQ(pe["metrics"]["ipc"].get<double>(), 1.0);
    }
}

// D14.4.1, SoEMT: one active thread at a time.
TEST(PmvpSoc, SoemtSwitching)
{
    SocRun r = pmvp_soc(scenario("soemt-switch") + " --check");
    expect_checked(r);
    for (const json &pe : r.result["pes"]) {
        EXPECT_EQ(counted(pe, 0), 500000u);
        EXPECT_EQ(counted(pe, 1), 1000000u);
        EXPECT_EQ(counted(pe, 2), 1000000u);  // IPC 2 while active
        EXPECT_DOUBLE_EQ(pe["metrics"]["ipc"].get<double>(), 2.0);
    }
}

// PMCR.D: every 64th cycle, across frequency steps.
TEST(PmvpSoc, DvfsSteps)
{
    SocRun r = pmvp_soc(scenario("dvfs-steps") + " --check");
    expect_checked(r);
    const json &pe = r.result["pes"][0];
    EXPECT_EQ(counted(pe, 0), 1375000u);    // 500,000 + 250,000 + 125,000 + 500,000
    EXPECT_EQ(pmccntr(pe), 1375000u / 64);  // 21,484
}

// D16: the AMU's CPU_CYCLES / CNT_CYCLES ratio is the frequency while running.
TEST(PmvpSoc, AmuEffectiveFrequency)
{
    SocRun r = pmvp_soc(scenario("amu-effective-frequency") + " --check");
    expect_checked(r);
    const json &pe = r.result["pes"][0];
    EXPECT_EQ(amu(pe, "CPU_CYCLES"), 960000u);  // 200 us at 3 GHz + 300 us at 1.2 GHz
    EXPECT_EQ(amu(pe, "CNT_CYCLES"), 50000u);   // 500 us at 100 MHz
    EXPECT_EQ(amu(pe, "STALL_BACKEND_MEM"), 240000u);
    EXPECT_DOUBLE_EQ(pe["metrics"]["effective_frequency_hz"].get<double>(), 1.92e9);
    EXPECT_DOUBLE_EQ(pe["metrics"]["utilisation"].get<double>(), 0.5);
}

// D13.3.1 as a profiler uses it: overflow, PMUIRQ, re-arm; no count lost.
TEST(PmvpSoc, SamplingProfiler)
{
    SocRun r = pmvp_soc(scenario("sampling-profiler") + " --check");
    expect_checked(r);
    const json &pe = r.result["pes"];
    EXPECT_EQ(counted(pe[0], 0), 5000000u);
    EXPECT_EQ(samples(pe[0], 0), 41u);                     // floor(5,000,000 / 120,000)
    EXPECT_EQ(pe[0]["pmu"]["cycle_counter_samples"], 6u);  // floor(2,000,000 / 300,000)
    EXPECT_EQ(pe[0]["interrupts"], 46u);                   // both overflow together at 600 us
    EXPECT_EQ(pmccntr(pe[0]), 2000000u);
    EXPECT_EQ(counted(pe[1], 0), 1500000u);
    EXPECT_EQ(samples(pe[1], 0), 12u);
    EXPECT_EQ(pe[1]["interrupts"], 18u);
}

// A PMUIRQ rise at the run's last instant is a rise the report counts:
// 150,000 and 110,000 instructions in 100 us, sampled every 10,000, so the
// 15th and the 11th overflow fall exactly at the end. Their handlers would
// start after it (no sample), and PMOVSSET holds their flag.
TEST(PmvpSoc, ARiseAtTheLastInstantIsCounted)
{
    for (const auto &[ipc, rises] : { std::pair{ "1.5", 15u }, std::pair{ "1.1", 11u } }) {
        std::string path = temp_file("last-instant.json");
        std::ofstream(path) << R"({ "name": "last-instant", "duration": "100 us",
            "clusters": [ { "processor_hz": "1 GHz", "workloads": [ { "phases": [ { "run": "100 us", "ipc": )"
                            << ipc << R"( } ] } ] } ],
            "firmware": { "counters": [ { "counter": 0, "event": "INST_RETIRED", "sample_period": 10000 } ] } })";
        SocRun r = pmvp_soc(path + " --check");
        expect_checked(r);
        const json &pe = r.result["pes"][0];
        EXPECT_EQ(counted(pe, 0), rises * 10000u) << ipc;
        EXPECT_EQ(samples(pe, 0), rises - 1) << ipc;
        EXPECT_EQ(pe["interrupts"].get<unsigned>(), rises) << ipc;
        EXPECT_EQ(pe["registers"]["PMOVSSET_EL0"].get<uint64_t>(), 1u) << ipc;
    }
}

// D13.5.2.1 (FEAT_PMUv3p7): with PMCR.FZO and PMCR.DP the first range and
// the cycle counter stand still from each overflow of the sampled counter
// until its handler clears the flag, 200 ns (400 cycles) later. Overflow k
// comes at 300,000k counted cycles, 400(k - 1) cycles late: 6 in 1 ms.
TEST(PmvpSoc, FreezeOnOverflowSampling)
{
    SocRun r = pmvp_soc(scenario("freeze-sampling") + " --check");
    expect_checked(r);
    const json &pe = r.result["pes"][0];
    EXPECT_EQ(samples(pe, 0), 6u);
    EXPECT_EQ(counted(pe, 0), 2000000u - 6 * 400);
    EXPECT_EQ(pmccntr(pe), 2000000u - 6 * 400);
    EXPECT_EQ(amu(pe, "CPU_CYCLES"), 2000000u);  // the AMU does not freeze
}

// D13.8 (FEAT_PMUv3_TH, EDGE, TH2): a 1 GHz core stalls on the backend for
// 500 of the 1000 cycles of each quantum, on memory for 200. The counter
// linked to STALL_BACKEND (TLC 0b10, STALL_BACKEND_MEM == 0) counts the
// 300 others; the edge counters one start and one end of a stall a quantum.
// The firmware writes the threshold fields through the top halves at 0xA00.
TEST(PmvpSoc, ThresholdEdgeAndLinkedCounting)
{
    SocRun r = pmvp_soc(scenario("threshold-stalls") + " --check");
    expect_checked(r);
    const json &pe = r.result["pes"][0];
    EXPECT_EQ(counted(pe, 0), 500000u);
    EXPECT_EQ(counted(pe, 1), 300000u);
    EXPECT_EQ(counted(pe, 2), 200000u);
    EXPECT_EQ(counted(pe, 3), 1000u);
    EXPECT_EQ(counted(pe, 4), 1000u);
}

// D13.8 on instructions, "cycles with >= 2 instructions retired": the CPU
// model spreads each SMT thread's instructions evenly over the cycles of
// each stretch between its inputs (Monitors::report_shares). Thread 0
// retires 2 then 1 a cycle, thread 1 1 then 0, over each half of every
// stretch (a 200-cycle stall and an 800-cycle run a quantum). The MT=1
// counter sees the threads' sum, 3 on half the cycles; the edge counter
// one rising edge of "exactly 1" a stretch.
TEST(PmvpSoc, ThresholdOnInstructionsSeesEachCyclesShareAndTheThreadsSum)
{
    SocRun r = pmvp_soc(scenario("threshold-ipc") + " --check");
    expect_checked(r);
    const json &t0 = r.result["pes"][0], &t1 = r.result["pes"][1];
    const uint64_t expected[2][6] = { { 500000, 1000000, 500000, 500000, 2000, 1500000 },
                                      { 0, 0, 500000, 500000, 2000, 500000 } };
    for (unsigned n = 0; n < 6; n++) {
        EXPECT_EQ(counted(t0, n), expected[0][n]) << "thread 0, counter " << n;
        EXPECT_EQ(counted(t1, n), expected[1][n]) << "thread 1, counter " << n;
    }
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

// What the analytic CPU model cannot show a threshold is said: an
// occurrence event it never reports, and a barrel thread's instructions,
// which it spreads over every cycle of the core.
TEST(PmvpSoc, ThresholdsTheAnalyticModelCannotFeedAreWarnedOf)
{
    auto run_with = [&](const std::string &mt, const std::string &event) {
        std::string path = temp_file("thw.json");
        std::ofstream(path)
            << R"({ "name": "t", "duration": "1 us", "clusters": [ { "processor_hz": "1 GHz", "num_pes": 2,
            "mt_policy": ")"
            << mt << R"(", "feat_pmuv3p7": true, "pmmir": "0x400000",
            "workloads": [ { "phases": [ { "run": "1 us" } ] } ] } ],
            "firmware": { "counters": [ { "counter": 0, "event": ")"
            << event << R"(", "TC": 5, "TH": 2 } ] } })";
        return pmvp_soc(path, false);
    };
    SocRun r = run_with("smt", "BR_RETIRED");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(
        r.err.find("firmware.counters[0]: the analytic CPU model reports no BR_RETIRED, so its threshold sees 0 on "
                   "every cycle (cluster"),
        std::string::npos)
        << r.err;
    r = run_with("fgmt", "INST_RETIRED");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("firmware.counters[0]: the analytic CPU model spreads a barrel thread's instructions over "
                         "every cycle of the core"),
              std::string::npos)
        << r.err;
    r = run_with("smt", "INST_RETIRED");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

// The threshold fields are checked against each cluster's PMU, each refusal
// naming the field and the key that would allow it.
TEST(PmvpSoc, ThresholdFieldsACoreLacksAreRefused)
{
    auto run_with = [&](const std::string &pmu, const std::string &counter) {
        std::string path = temp_file("th.json");
        std::ofstream(path) << R"({ "name": "t", "duration": "1 us", "clusters": [ { "processor_hz": "1 GHz", )" << pmu
                            << R"(, "workloads": [ { "phases": [ { "run": "1 us" } ] } ] } ],
            "firmware": { "counters": [ )"
                            << counter << " ] } }";
        return pmvp_soc(path, false);
    };
    struct Case {
        const char *pmu, *counter, *refusal;
    } cases[] = {
        { R"("feat_pmuv3p7": true)", R"({ "counter": 1, "event": "CPU_CYCLES", "TC": 5, "TH": 2 })",
          "firmware.counters[0].TC: no FEAT_PMUv3_TH in this PMU (pmmir THWIDTH" },
        { R"("feat_pmuv3p7": true, "pmmir": "0x200000")", R"({ "counter": 1, "event": "CPU_CYCLES", "TH": 4 })",
          "firmware.counters[0].TH: at most 2^THWIDTH - 1 = 3" },
        { R"("feat_pmuv3p7": true, "pmmir": "0x200000")",
          R"({ "counter": 1, "event": "CPU_CYCLES", "TE": true, "TC": 1 })",
          "firmware.counters[0].TE: no FEAT_PMUv3_EDGE" },
        { R"("feat_pmuv3p7": true, "pmmir": "0x2200000")", R"({ "counter": 0, "event": "CPU_CYCLES", "TLC": 2 })",
          "firmware.counters[0].TLC: linking needs" },
        { R"("feat_pmuv3p7": true, "pmmir": "0x2200000")",
          R"({ "counter": 1, "event": "CPU_CYCLES", "TE": true, "TC": 4 })", "reserved combination" },
        { R"("pmmir": "0x200000")", R"({ "counter": 1, "event": "CPU_CYCLES" })", "needs feat_pmuv3p7" },
    };
    for (const Case &c : cases) {
        SocRun r = run_with(c.pmu, c.counter);
        EXPECT_EQ(r.status, 2) << c.refusal;
        EXPECT_NE(r.err.find(c.refusal), std::string::npos) << r.err;
    }
}

// Each control bit a cluster's PMU lacks is refused with its name, what it
// is for and the key that gives it, rather than lost as RES0.
TEST(PmvpSoc, ControlBitsACoreLacksAreRefused)
{
    auto run_with = [&](const std::string &cluster_extra, const std::string &pmcr) {
        std::string path = temp_file("bits.json");
        std::ofstream(path) << R"({ "name": "b", "duration": "1 us", "clusters": [ { "processor_hz": "1 GHz", )"
                            << cluster_extra << R"( "workloads": [ { "phases": [ { "run": "1 us" } ] } ] } ],
            "firmware": { "counters": [ { "event": "CPU_CYCLES" } ], "PMCR": [ )"
                            << pmcr << " ] } }";
        return pmvp_soc(path, false);
    };
    struct Case {
        const char *cluster, *pmcr, *refusal;
    } cases[] = {
        { "", R"("FZO")",
          "firmware.PMCR: FZO (freeze on overflow) needs feat_pmuv3p7 on every analytic cluster, and clusters[0] "
          "has none" },
        { R"("controls": { "MDCR_EL2": [ "HPME", "HPMFZO" ] },)", "",
          "clusters[0].controls.MDCR_EL2: HPMFZO (freeze on overflow) needs feat_pmuv3p7" },
        { R"("pmu_version": "PMUv3p4",)", R"("LP")",
          "firmware.PMCR: LP (event counters overflow at bit 63) needs pmu_version PMUv3p5 on every analytic "
          "cluster, and clusters[0] has none" },
        { R"("have_aarch32": false,)", R"("D")", "firmware.PMCR: D (the cycle counter's divider) needs have_aarch32" },
        { R"("controls": { "MDCR_EL3": [ "SPME", "MCCD" ] },)", "",
          "clusters[0].controls.MDCR_EL3: MCCD (no cycle counting at EL3) needs feat_pmuv3p7; without it the bit "
          "is RES0" },
        { R"("pmu_version": "PMUv3p4", "controls": { "MDCR_EL2": [ "HPME", "HCCD" ] },)", "",
          "clusters[0].controls.MDCR_EL2: HCCD (no cycle counting at EL2) needs pmu_version PMUv3p5" },
        { R"("controls": { "MDCR_EL3": [ "SPME", "EnPMSS" ] },)", "",
          "clusters[0].controls.MDCR_EL3: EnPMSS, PMSSE0, PMSSE1 (PMU snapshots) needs feat_pmuv3_ss" },
        { R"("controls": { "MDCR_EL2": [ "HPME", "PMSSE1" ] },)", "",
          "clusters[0].controls.MDCR_EL2: PMSSE0, PMSSE1 (PMU snapshots) needs feat_pmuv3_ss" },
    };
    for (const Case &c : cases) {
        SocRun r = run_with(c.cluster, c.pmcr);
        EXPECT_EQ(r.status, 2) << c.refusal;
        EXPECT_NE(r.err.find(c.refusal), std::string::npos) << r.err;
    }
    // With the features, the same bits run.
    SocRun r = run_with(R"("feat_pmuv3p7": true, "feat_pmuv3_ss": true,
                          "controls": { "MDCR_EL3": [ "SPME", "MCCD", "EnPMSS", "PMSSE0" ],
                          "MDCR_EL2": [ "HPME", "HCCD", "HPMFZO", "PMSSE0", "PMSSE1" ] },)",
                        R"("LP", "D", "FZO")");
    EXPECT_EQ(r.status, 0) << r.err;
}

// MDCR_EL3.EnPM2 asked of a core without a register it gates (the
// instruction counter, PMUv3p9's PMUACR, FEAT_EBEP's PMECR) is refused,
// the field named; with feat_pmuv3_icntr or feat_pmuv3p9 it is accepted, and
// feat_pmuv3_icntr before PMUv3p5 or feat_pmuv3p9 without feat_pmuv3p7 is the
// kernel's refusal.
TEST(PmvpSoc, EnPM2NeedsAFeatureThatHasIt)
{
    auto run_with = [&](const std::string &cluster_extra) {
        std::string path = temp_file("enpm2.json");
        std::ofstream(path) << R"({ "name": "e", "duration": "1 us", "clusters": [ { "processor_hz": "1 GHz", )"
                            << cluster_extra << R"( "workloads": [ { "phases": [ { "run": "1 us" } ] } ] } ] })";
        return pmvp_soc(path, false);
    };
    SocRun r = run_with(R"("controls": { "MDCR_EL3": [ "SPME", "EnPM2" ] },)");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("MDCR_EL3: EnPM2 (PMICNTR, PMUACR, PMECR and PMIAR below EL3) needs feat_pmuv3_icntr, "
                         "feat_pmuv3p9 or feat_ebep"),
              std::string::npos)
        << r.err;
    r = run_with(R"("feat_pmuv3_icntr": true, "controls": { "MDCR_EL3": [ "SPME", "EnPM2" ] },)");
    EXPECT_EQ(r.status, 0) << r.err;
    r = run_with(R"("pmu_version": "PMUv3p4", "feat_pmuv3_icntr": true,)");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("feat_pmuv3_icntr: FEAT_PMUv3_ICNTR (Armv8.9) needs pmu_version PMUv3p5"), std::string::npos)
        << r.err;
    // FEAT_PMUv3p9 has it too, and needs FEAT_PMUv3p7.
    r = run_with(R"("feat_pmuv3p7": true, "feat_pmuv3p9": true, "controls": { "MDCR_EL3": [ "SPME", "EnPM2" ] },)");
    EXPECT_EQ(r.status, 0) << r.err;
    r = run_with(R"("feat_pmuv3p9": true,)");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("feat_pmuv3p9: FEAT_PMUv3p9 needs feat_pmuv3p7"), std::string::npos) << r.err;
}

// D13.5: with MDCR_EL3.SPME == 0, counting is prohibited in Secure state;
// PMCR.DP disables the cycle counter there too. The AMU is not prohibited.
TEST(PmvpSoc, SecureStateExcludedByProhibition)
{
    SocRun r = pmvp_soc(scenario("secure-prohibited") + " --check");
    expect_checked(r);
    const json &pe = r.result["pes"];
    EXPECT_EQ(pmccntr(pe[0]), 600000u);
    EXPECT_EQ(counted(pe[0], 0), 600000u);
    EXPECT_EQ(counted(pe[0], 1), 600000u);
    EXPECT_EQ(amu(pe[0], "CPU_CYCLES"), 1000000u);
    EXPECT_EQ(pmccntr(pe[1]), 1000000u);
    EXPECT_EQ(counted(pe[1], 0), 1000000u);
}

// FEAT_PMUv3_EXTPMN: the external agent's counters 4 and 5 (third range,
// PMCCR.EPMN = 4, EPME) count the 400 us of Secure EL1 that MDCR_EL3.SPME ==
// 0 prohibits for the PE's own counters (D13.5.4); the journal's replay
// into the reference model (PMCCR included) agrees.
TEST(PmvpSoc, TheExternalAgentsCountersAreNotProhibitedInSecureState)
{
    SocRun r = pmvp_soc(scenario("external-agent") + " --check");
    expect_checked(r);
    const json &pe = r.result["pes"];
    EXPECT_EQ(pmccntr(pe[0]), 600000u);
    EXPECT_EQ(counted(pe[0], 0), 600000u);
    EXPECT_EQ(counted(pe[0], 1), 600000u);
    EXPECT_EQ(counted(pe[0], 2), 1000000u);
    EXPECT_EQ(counted(pe[0], 3), 1000000u);
    EXPECT_TRUE(pe[0]["pmu"]["counters"][2]["external"].get<bool>());
    EXPECT_FALSE(pe[0]["pmu"]["counters"][0]["external"].get<bool>());
    EXPECT_NE(r.out.find("the external agent's (third range)"), std::string::npos) << r.out;
}

// A PE that is off does not count; WFE with the clock running counts in
// PMCCNTR; EL2 is counted only where the filter's NSH says so (D13.5).
TEST(PmvpSoc, PowerOffWfeAndEl2Filtering)
{
    SocRun r = pmvp_soc(scenario("power-and-el2") + " --check");
    expect_checked(r);
    const json &pe = r.result["pes"];
    EXPECT_EQ(pmccntr(pe[0]), 700000u);  // 300 run + 100 WFE (thread 1 runs) + 300 run
    EXPECT_EQ(counted(pe[0], 0), 600000u);
    EXPECT_EQ(samples(pe[0], 0), 6u);
    EXPECT_EQ(counted(pe[1], 0), 0u);       // EL2, NSH == 0
    EXPECT_EQ(counted(pe[1], 2), 500000u);  // EL2, NSH == 1
    EXPECT_EQ(pmccntr(pe[1]), 500000u);
    EXPECT_FALSE(pe[0]["off_at_end"].get<bool>());
    EXPECT_TRUE(pe[1]["off_at_end"].get<bool>());
    EXPECT_EQ(amu(pe[1], "CPU_CYCLES"), 500000u);
}

// 64 cores x 2 threads.
TEST(PmvpSoc, LargeSoc)
{
    SocRun r = pmvp_soc(scenario("large-soc"));
    ASSERT_EQ(r.status, 0) << r.err;
    const json &pe = r.result["pes"];
    ASSERT_EQ(pe.size(), 128u);
    ASSERT_EQ(r.result["cores"].size(), 64u);
    // Cluster k holds PEs 32k .. 32k+31. Thread 0 runs all the time, thread
    // 1 100 us of every 200 us: in cluster "mid", 300 us at 2 GHz and 200 us
    // at 1 GHz.
    static const uint64_t all[4] = { 2500000, 2500000, 1500000, 1000000 };
    static const uint64_t half[4] = { 1250000, 1250000, 800000, 500000 };
    for (unsigned g = 0; g < 128; g++) {
        unsigned k = g / 32;
        EXPECT_EQ(pmccntr(pe[g]), all[k]) << "PE " << g;
        EXPECT_EQ(counted(pe[g], 0), g % 2 ? half[k] : all[k]) << "PE " << g;
        EXPECT_EQ(counted(pe[g], 1), g % 2 ? half[k] / 2 : 2 * all[k]) << "PE " << g;  // IPC 0.5 and 2
    }
    // The same, shortened, against the reference model.
    expect_checked(pmvp_soc(scenario("large-soc") + " --time 20us --check"));
}

// Random scenarios, each run with --check: whatever the SoC, workloads and
// firmware do, every value the firmware reads agrees with the per-cycle
// reference model.
TEST(PmvpSoc, RandomScenariosAgreeWithTheReferenceModel)
{
    std::mt19937_64 rng(20261121);
    auto rnd = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
    auto ns = [&](uint64_t lo, uint64_t hi) { return std::to_string(lo + rnd(hi - lo + 1)) + " ns"; };
    const char *mts[] = { "smt", "fgmt", "soemt" };
    const char *events[] = { "CPU_CYCLES",        "INST_RETIRED", "STALL_BACKEND",
                             "STALL_BACKEND_MEM", "BUS_CYCLES",   "CNT_CYCLES" };
    const char *filters[] = { "P", "U", "NSK", "NSU", "NSH", "M", "SH" };
    const char *pmcr[] = { "D", "X", "DP", "LC", "LP" };
    std::string path = temp_file("random.json");
    for (int i = 0; i < PMVP_RANDOM_SCENARIOS; i++) {
        json s;
        s["name"] = "random" + std::to_string(i);
        s["duration"] = ns(20000, 60000);
        s["quantum"] = ns(300, 3000);
        for (uint64_t c = 0, n = 1 + rnd(2); c < n; c++) {
            json cl;
            cl["cores"] = 1 + rnd(2);
            cl["num_pes"] = 1 + rnd(4);
            cl["mt_policy"] = mts[rnd(3)];
            cl["soemt_switch"] = ns(200, 5000);
            cl["processor_hz"] = std::to_string(100 + rnd(2900)) + " MHz";
            if (rnd(2))
                cl["dvfs"] = json::array(
                    { { { "at", ns(1000, 15000) }, { "frequency", std::to_string(100 + rnd(2900)) + " MHz" } } });
            cl["pmu_ext_layout"] = rnd(2) ? "EXT32" : "EXT64";
            for (const char *choice :
                 { "clock_stops_in_wfx", "pmccntr_counts_in_wfx", "wfx_thread_active", "cpu_cycles_in_wfx" })
                cl[choice] = rnd(2) == 1;
            json el3 = json::array();
            for (const char *b : { "SPME", "MTPME", "SCCD" })
                if (rnd(2))
                    el3.push_back(b);
            cl["controls"] = { { "MDCR_EL3", el3 } };
            for (uint64_t w = 0, nw = 1 + rnd(2); w < nw; w++) {
                json phases = json::array();
                for (uint64_t p = 0, np = 1 + rnd(4); p < np; p++) {
                    static const char *kinds[] = { "run", "run", "wfi", "wfe", "off" };
                    std::string k = kinds[rnd(5)];
                    json ph = { { k, ns(500, 8000) } };
                    if (k == "run") {
                        double stall = rnd(5) / 4.0;
                        ph["ipc"] = rnd(9) / 4.0;
                        ph["stall_backend"] = stall;
                        ph["stall_backend_mem"] = stall * rnd(3) / 2;
                        ph["el"] = rnd(4);
                        if (ph["el"] < 2 && rnd(3) == 0)
                            ph["security"] = "secure";
                    }
                    phases.push_back(ph);
                }
                cl["workloads"].push_back({ { "repeat", rnd(4) != 0 }, { "phases", phases } });
            }
            s["clusters"].push_back(cl);
        }
        json fw;
        for (uint64_t c = 0, n = rnd(6); c < n; c++) {
            json ctr = { { "counter", c }, { "event", events[rnd(6)] }, { "mt", rnd(2) == 1 } };
            json f = json::array();
            for (const char *b : filters)
                if (rnd(4) == 0)
                    f.push_back(b);
            ctr["filter"] = f;
            if (rnd(2))
                ctr["sample_period"] = 1 + rnd(20000);
            fw["counters"].push_back(ctr);
        }
        fw["cycle_counter"] = { { "enabled", rnd(4) != 0 }, { "sample_period", rnd(2) ? 1 + rnd(30000) : 0 } };
        json bits = json::array();
        for (const char *b : pmcr)
            if (rnd(2))
                bits.push_back(b);
        fw["PMCR"] = bits;
        fw["irq_latency"] = ns(0, 300);
        s["firmware"] = fw;
        std::ofstream(path) << s.dump(2);
        SocRun r = pmvp_soc(path + " --check --quiet");
        SCOPED_TRACE(s.dump());
        expect_checked(r);
    }
}

// A handler slower than a period: at 1 GHz a CPU_CYCLES counter sampling
// every 100 cycles counts 250 more while the handler waits out its 250 ns
// latency. The handler takes the two whole periods it missed as samples
// with the overflow's own and re-arms with the 50 cycles left, so the
// counter overflows at 100 ns and every 300 ns after: 33 handlers (100 ns to
// 9.7 us) take 99 samples; the overflow at 10 us has no handler before the
// end. The counter counted all 10,000 cycles. (Before, the handler set the
// counter 150 past its overflow: one sample in all.)
TEST(PmvpSoc, AHandlerSlowerThanAPeriodKeepsTheCount)
{
    std::string path = temp_file("slow-handler.json");
    std::ofstream(path) << R"({ "name": "slow-handler", "duration": "10 us",
        "clusters": [ { "processor_hz": "1 GHz", "workloads": [ { "phases": [ { "run": "10 us", "ipc": 1 } ] } ] } ],
        "firmware": { "counters": [ { "counter": 0, "event": "CPU_CYCLES", "sample_period": 100 } ],
                      "irq_latency": "250 ns" } })";
    SocRun r = pmvp_soc(path + " --check");
    expect_checked(r);
    ASSERT_EQ(r.result["pes"].size(), 1u);
    EXPECT_EQ(counted(r.result["pes"][0], 0), 10000u);
    EXPECT_EQ(samples(r.result["pes"][0], 0), 99u);
}

// The architecture's options through "features" and SCR_EL3 through
// "controls": Secure EL2 enabled, a workload at Secure EL2 and Secure EL1,
// counters filtered by SH; the per-cycle reference model agrees with every
// value the firmware read, and the counts are the ones the filters imply.
TEST(PmvpSoc, SecureEl2ThroughFeaturesAndControls)
{
    std::string path = temp_file("sel2.json");
    std::ofstream(path) << R"({ "name": "sel2", "duration": "100 us",
        "clusters": [ { "processor_hz": "1 GHz", "feat_sel2": true,
          "controls": { "SCR_EL3": [ "EEL2" ], "MDCR_EL3": [ "SPME" ] },
          "workloads": [ { "phases": [ { "run": "10 us", "ipc": 1, "el": 2, "security": "secure" },
                                       { "run": "10 us", "ipc": 1, "el": 1, "security": "secure" } ] } ] } ],
        "firmware": { "counters": [ { "counter": 0, "event": "CPU_CYCLES", "filter": [ "SH" ] },
                                    { "counter": 1, "event": "CPU_CYCLES" } ] } })";
    SocRun r = pmvp_soc(path + " --check");
    expect_checked(r);
    ASSERT_EQ(r.result["pes"].size(), 1u);
    const json &pe = r.result["pes"][0];
    // MDCR_EL3.SPME permits Secure counting. Without SH a counter does not
    // count at Secure EL2 (D24.5.12): counter 1 counts the Secure EL1 half,
    // 50 us at 1 GHz; counter 0, with SH, both halves.
    EXPECT_EQ(counted(pe, 1), 50000u);
    EXPECT_EQ(counted(pe, 0), 100000u);
}

TEST(PmvpSoc, CommandLineOverrides)
{
    SocRun r = pmvp_soc(scenario("smt-wfi") + " --cores 2 --threads 4 --mt fgmt --frequency 1GHz --time 100us --check");
    expect_checked(r);
    ASSERT_EQ(r.result["pes"].size(), 8u);
    EXPECT_EQ(r.result["scenario"]["duration_ps"], 100000000u);
    for (const json &pe : r.result["pes"]) {
        EXPECT_EQ(pmccntr(pe), 100000u);
        EXPECT_EQ(counted(pe, 0), 25000u);  // FGMT, 4 threads, all running for 100 us
    }
}

// What a shorter run makes moot is said on stderr, once, and the run goes
// on: DVFS steps after the end, a first phase as long as the run, an
// interrupt latency as long as the run.
TEST(PmvpSoc, MootSettingsAreSaid)
{
    SocRun r = pmvp_soc(scenario("dvfs-steps") + " --time 300us", false);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("dvfs[0]"), std::string::npos) << r.err;  // 250 us: applies
    EXPECT_NE(r.err.find("pmvp-soc: warning: clusters[0].dvfs[1]: at 500 us, not before the end of the run "
                         "(300 us): it does not apply\n"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("dvfs[1]"), r.err.rfind("dvfs[1]")) << r.err;  // said once
    std::string path = temp_file("moot.json");
    std::ofstream(path) << R"({ "name": "moot", "duration": "10 us", "clusters": [ { "processor_hz": "1 GHz",
        "workloads": [ { "phases": [ { "run": "10 us" }, { "wfi": "1 us" } ] } ] } ],
        "firmware": { "irq_latency": "20 us" } })";
    r = pmvp_soc(path, false);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("clusters[0].workloads[0].phases[0]: lasts 10 us, as long as the run (10 us): the later "
                         "phases never run"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("firmware.irq_latency: 20 us, as long as the run (10 us): no interrupt is serviced"),
              std::string::npos)
        << r.err;
    // Clocks that never tick: a cluster at 0 Hz with no DVFS step starting
    // it in time, a System Counter at 0 Hz, BUS_CYCLES on a 0 Hz bus.
    std::ofstream(path) << R"({ "name": "still", "duration": "10 us", "system_counter": "0 Hz",
        "bus_clock": "0 Hz", "clusters": [
          { "processor_hz": "0 Hz", "workloads": [ { "phases": [ { "run": "10 us" } ] } ] },
          { "processor_hz": "0 Hz", "dvfs": [ { "at": "5 us", "frequency": "1 GHz" } ],
            "workloads": [ { "phases": [ { "run": "10 us" } ] } ] } ],
        "firmware": { "counters": [ { "event": "BUS_CYCLES" } ] } })";
    r = pmvp_soc(path, false);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("clusters[0].frequency: 0 Hz, and no DVFS step starts the clock before the end of the "
                         "run: its cores count no cycle"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("clusters[1].frequency"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("system_counter: 0 Hz: CNT_CYCLES never counts"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("firmware.counters[0]: BUS_CYCLES with bus_clock 0 Hz: it never counts"), std::string::npos)
        << r.err;
}

// The scenario format's example in docs/PMVP-SOC.md, comments and all, is a
// scenario pmvp-soc reads.
TEST(PmvpSoc, TheGuidesExampleScenarioParses)
{
    std::ifstream f(std::string(PMVP_DOCS) + "/PMVP-SOC.md");
    std::stringstream text;
    text << f.rdbuf();
    const std::string doc = text.str();
    size_t start = doc.find("```json\n{\n  \"name\": \"example\"");
    ASSERT_NE(start, std::string::npos);
    start += 8;
    size_t end = doc.find("\n```", start);
    ASSERT_NE(end, std::string::npos);
    std::string example = doc.substr(start, end - start);
    std::string path = temp_file("example.json");
    std::ofstream(path) << example;
    SocRun r = pmvp_soc(path + " --show-config", false);
    EXPECT_EQ(r.status, 0) << r.err << example;
}

// --quantum changes how far the CPU models run ahead, and nothing counted:
// large-soc with a 100 us quantum gives the counts of its 1 us one.
TEST(PmvpSoc, QuantumChangesNoCount)
{
    SocRun fine = pmvp_soc(scenario("large-soc") + " --time 200us --quiet");
    SocRun coarse = pmvp_soc(scenario("large-soc") + " --time 200us --quantum 100us --quiet");
    ASSERT_EQ(fine.status, 0) << fine.err;
    ASSERT_EQ(coarse.status, 0) << coarse.err;
    EXPECT_EQ(fine.result["soc"], coarse.result["soc"]);
    EXPECT_EQ(fine.result["pes"], coarse.result["pes"]);
}

// --detached runs the CPU models alone (pmvp-bench's attached/detached
// figure): it simulates the whole scenario and has nothing to report.
TEST(PmvpSoc, DetachedRunsWithoutMonitors)
{
    SocRun r = pmvp_soc(scenario("large-soc") + " --time 20us --detached", false);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("large-soc: 128 PEs, 20 us simulated without monitors"), std::string::npos) << r.out;
    for (const char *other : { "--check", "--json x.json", "--vcd x.vcd" }) {
        SocRun bad = pmvp_soc(std::string("--detached ") + other, false);
        EXPECT_EQ(bad.status, 2) << other;
        EXPECT_NE(bad.err.find("--detached runs no monitors"), std::string::npos) << bad.err;
    }
}

namespace {

// A VCD file read back: each signal's changes by its full name below the
// scope SystemC ("soc.core0.monitors.pe0.PMCCNTR_EL0").
struct Vcd {
    std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> changes;  // (instant, value)

    explicit Vcd(const std::string &text)
    {
        std::map<std::string, std::string> name_of;  // identifier -> name
        std::vector<std::string> scopes;
        std::istringstream in(text);
        std::string line;
        uint64_t t = 0;
        bool header = true;
        while (std::getline(in, line)) {
            std::istringstream w(line);
            std::string kw, a, b, c, d;
            w >> kw;
            if (header) {
                if (kw == "$scope" && (w >> a >> b))
                    scopes.push_back(b);
                else if (kw == "$upscope")
                    scopes.pop_back();
                else if (kw == "$var" && (w >> a >> b >> c >> d)) {
                    std::string name;
                    for (size_t i = 1; i < scopes.size(); i++)
                        name += scopes[i] + ".";
                    name_of[c] = name + d;
                } else if (kw == "$enddefinitions")
                    header = false;
            } else if (kw.size() > 1 && kw[0] == '#') {
                t = std::stoull(kw.substr(1));
            } else if (kw.size() > 1 && kw[0] == 'b' && (w >> a)) {
                changes[name_of.at(a)].push_back({ t, std::stoull(kw.substr(1), nullptr, 2) });
            } else if (kw.size() > 1 && (kw[0] == '0' || kw[0] == '1')) {
                changes[name_of.at(kw.substr(1))].push_back({ t, (uint64_t)(kw[0] - '0') });
            }
        }
    }
    // The last change of a signal: (instant, value).
    std::pair<uint64_t, uint64_t> last(const std::string &name) const
    {
        auto it = changes.find(name);
        return it == changes.end() || it->second.empty() ? std::make_pair(UINT64_MAX, UINT64_MAX) : it->second.back();
    }
};

}  // namespace

// The VCD of the default scenario holds the truth at the end of the run
// (the values the report gives, at its last instant), names the event
// counters by their events, traces the clock's frequency and each PE's
// power, and comes with a GTKWave save file that shows them all.
TEST(PmvpSoc, VcdEndsWithTheReportsValues)
{
    std::string vcd = temp_file("end.vcd"), gtkw = temp_file("end.gtkw");
    SocRun r = pmvp_soc("--quiet --vcd " + vcd);
    ASSERT_EQ(r.status, 0) << r.err;
    Vcd v(slurp(vcd));
    const std::string pe0 = "soc.core0.monitors.pe0.";
    EXPECT_EQ(v.last(pe0 + "PMCCNTR_EL0"), (std::pair<uint64_t, uint64_t>(1000000000, 1800000)));
    EXPECT_EQ(v.last(pe0 + "PMEVCNTR0_EL0_CPU_CYCLES").second, 1800000u);
    EXPECT_EQ(v.last(pe0 + "PMEVCNTR4_EL0_CPU_CYCLES_MT").second, 1800000u);
    EXPECT_TRUE(v.changes.count("soc.core1.monitors.pe1.PMEVCNTR1_EL0_INST_RETIRED"));
    EXPECT_TRUE(v.changes.count(pe0 + "PMEVCNTR5_EL0"));  // not programmed: the register's name alone
    EXPECT_EQ(v.last(pe0 + "PMUIRQ_rises").second, 7u);
    // The big cluster's DVFS step, 2 GHz to 1.5 GHz at 600 us.
    const auto &hz = v.changes[std::string("soc.core0.monitors.processor_hz")];
    ASSERT_GE(hz.size(), 2u);
    EXPECT_EQ(hz.front().second, 2000000000u);
    EXPECT_TRUE(std::find(hz.begin(), hz.end(), std::pair<uint64_t, uint64_t>(600000000, 1500000000)) != hz.end());
    EXPECT_EQ(v.last(pe0 + "powered").second, 1u);

    std::string save = slurp(gtkw);
    EXPECT_NE(save.find("[dumpfile] \"" + std::filesystem::absolute(vcd).string() + "\""), std::string::npos) << save;
    EXPECT_NE(save.find("@8024\nSystemC." + pe0 + "PMCCNTR_EL0[63:0]\n"), std::string::npos) << save;
    EXPECT_NE(save.find("SystemC." + pe0 + "PMUIRQ\n"), std::string::npos) << save;
    // Every signal of the save file is in the VCD.
    std::istringstream lines(save);
    std::string line;
    unsigned listed = 0;
    while (std::getline(lines, line))
        if (line.rfind("SystemC.", 0) == 0) {
            std::string name =
                line.substr(8, line.find('[') == std::string::npos ? std::string::npos : line.find('[') - 8);
            EXPECT_TRUE(v.changes.count(name)) << name;
            listed++;
        }
    EXPECT_EQ(listed, v.changes.size());
}

TEST(PmvpSoc, VcdTrace)
{
    std::string vcd = temp_file("trace.vcd");
    std::remove(vcd.c_str());
    SocRun r = pmvp_soc(scenario("sampling-profiler") + " --quiet --vcd " + vcd, false);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.empty());
    std::string text = slurp(vcd);
    EXPECT_NE(text.find("$var"), std::string::npos);
    EXPECT_NE(text.find("PMCCNTR"), std::string::npos);
    EXPECT_NE(text.find("PMUIRQ"), std::string::npos);
}

// Bad input: a clear message naming the field, and exit status 2.
// The x86 core with two hyper-threads: 3 GHz until 500 us, then 1.6 GHz;
// TSC 2.4 GHz; XCLK 100 MHz. LP0 runs 0..900 us; LP1 runs 0..300 and
// 700..900 us; both end in MWAIT.
TEST(PmvpSoc, X86HyperThreads)
{
    SocRun r = pmvp_soc(scenario("x86-hyperthreads"));
    ASSERT_EQ(r.status, 0) << r.err;
    const json &lp = r.result["x86"]["logical_processors"];
    ASSERT_EQ(lp.size(), 2u);
    auto v = [&](unsigned t, const char *name) { return lp[t][name].get<uint64_t>(); };
    // LP0: 500 us * 3 GHz + 400 us * 1.6 GHz core cycles; 900 us of TSC cycles.
    EXPECT_EQ(v(0, "CPU_CLK_UNHALTED.THREAD"), 2140000u);
    EXPECT_EQ(v(0, "CPU_CLK_UNHALTED.THREAD_P"), 2140000u);
    EXPECT_EQ(v(0, "CPU_CLK_UNHALTED.REF_TSC"), 2160000u);
    EXPECT_EQ(v(0, "CPU_CLK_UNHALTED.REF_XCLK"), 90000u);
    EXPECT_EQ(v(0, "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE"), 40000u);  // alone 300..700 us
    EXPECT_EQ(v(0, "INST_RETIRED.ANY"), 3210000u);                  // IPC 1.5
    // LP1: 300 us * 3 GHz + 200 us * 1.6 GHz; 500 us of TSC cycles.
    EXPECT_EQ(v(1, "CPU_CLK_UNHALTED.THREAD"), 1220000u);
    EXPECT_EQ(v(1, "CPU_CLK_UNHALTED.REF_TSC"), 1200000u);
    EXPECT_EQ(v(1, "CPU_CLK_UNHALTED.REF_XCLK"), 50000u);
    EXPECT_EQ(v(1, "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE"), 0u);
    EXPECT_EQ(v(1, "INST_RETIRED.ANY"), 1220000u);
    for (unsigned t = 0; t < 2; t++) {
        EXPECT_EQ(v(t, "CPU_CLK_UNHALTED.THREAD_ANY"), 2140000u);  // either LP unhalted: 0..900 us
        EXPECT_EQ(v(t, "TSC"), 2400000u);                          // invariant: the whole 1 ms
        EXPECT_EQ(v(t, "IA32_APERF"), v(t, "CPU_CLK_UNHALTED.THREAD"));
        EXPECT_EQ(v(t, "IA32_MPERF"), v(t, "CPU_CLK_UNHALTED.REF_TSC"));
    }
    EXPECT_NE(r.out.find("CPU_CLK_UNHALTED.THREAD_ANY"), std::string::npos) << r.out;

    // The command line's frequency and time apply; Arm-only options do not.
    SocRun f = pmvp_soc(scenario("x86-hyperthreads") + " --frequency 1GHz --time 200us");
    ASSERT_EQ(f.status, 0) << f.err;
    EXPECT_EQ(f.result["x86"]["logical_processors"][1]["CPU_CLK_UNHALTED.THREAD"].get<uint64_t>(), 200000u);
    SocRun bad = pmvp_soc(scenario("x86-hyperthreads") + " --cores 2", false);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("apply to Arm clusters only"), std::string::npos) << bad.err;
    bad = pmvp_soc(scenario("x86-hyperthreads") + " --check", false);
    EXPECT_EQ(bad.status, 2);
}

// Synchronous sampling of INST_RETIRED every 2000 instructions, one every
// 500 ps, handler 200 ns: a sample every 1.2 us without shadow (1.204 us
// with 8 instructions of shadow), 166 in 200 us either way. The loop is 64
// instructions from 0x400000: PMIAR_EL1 is 0x400000 + 4 * (the number of
// instructions before the sampled one, mod 64).
TEST(PmvpSoc, SebepSamplesShiftByTheShadowBound)
{
    SocRun r = pmvp_soc(scenario("sebep-sampling"));
    ASSERT_EQ(r.status, 0) << r.err;
    const json &p = r.result["sebep"]["profiles"];
    ASSERT_EQ(p.size(), 4u);
    auto shifts = [&](unsigned i) { return p[i]["shift"].get<std::vector<uint64_t>>(); };
    for (unsigned i = 0; i < 4; i++) {
        EXPECT_EQ(p[i]["samples"].get<uint64_t>(), 166u) << i;
        EXPECT_TRUE(p[i]["overshoot_equals_shift"].get<bool>()) << i;
    }
    // exact: every sample on the overflowing instruction.
    EXPECT_EQ(shifts(0), std::vector<uint64_t>(166, 0));
    // shadow of 8 at its bound: every sample exactly 8 instructions later.
    EXPECT_EQ(shifts(1), std::vector<uint64_t>(166, 8));
    // seeded: within [0, 8], and not one value throughout.
    std::vector<uint64_t> seeded = shifts(2);
    EXPECT_EQ(*std::min_element(seeded.begin(), seeded.end()), 0u);
    EXPECT_EQ(*std::max_element(seeded.begin(), seeded.end()), 8u);
    // threshold headroom 2000: the re-armed counter is at its threshold at the
    // exception return, so the shadow never applies.
    EXPECT_EQ(shifts(3), std::vector<uint64_t>(166, 0));
    // PMIAR_EL1: instruction 1999 is at 0x400000 + 4 * (1999 mod 64); the
    // next sample is 2000 instructions later, and 8 more with the shadow.
    EXPECT_EQ(p[0]["pmiar"][0].get<uint64_t>(), 0x400000u + 4 * (1999 % 64));
    EXPECT_EQ(p[0]["pmiar"][1].get<uint64_t>(), 0x400000u + 4 * (3999 % 64));
    EXPECT_EQ(p[1]["pmiar"][0].get<uint64_t>(), 0x400000u + 4 * (2007 % 64));
    EXPECT_EQ(p[1]["pmiar"][1].get<uint64_t>(), 0x400000u + 4 * (4015 % 64));
    EXPECT_NE(r.out.find("shadow-bound"), std::string::npos) << r.out;
    SocRun bad = pmvp_soc(scenario("sebep-sampling") + " --threads 2", false);
    EXPECT_EQ(bad.status, 2);
}

// The same profiler on the instruction counter in synchronous mode
// (PMICFILTR_EL0.SYNC, RSSVKV): PMICNTR re-armed 2,000 short of 2^64 wraps
// on the 2,000th instruction, which observes F0: 166 samples in 200 us, each
// with shift 0 and PMIAR_EL1 on the overflowing instruction, as the exact
// profile of sebep-sampling.
TEST(PmvpSoc, SebepOnTheInstructionCounterSamplesTheOverflowingInstruction)
{
    SocRun r = pmvp_soc(scenario("sebep-instruction-counter"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.result["sebep"]["counter"], "instruction");
    const json &p = r.result["sebep"]["profiles"];
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0]["samples"].get<uint64_t>(), 166u);
    EXPECT_TRUE(p[0]["overshoot_equals_shift"].get<bool>());
    EXPECT_EQ(p[0]["shift"].get<std::vector<uint64_t>>(), std::vector<uint64_t>(166, 0));
    EXPECT_EQ(p[0]["pmiar"][0].get<uint64_t>(), 0x400000u + 4 * (1999 % 64));
    EXPECT_EQ(p[0]["pmiar"][1].get<uint64_t>(), 0x400000u + 4 * (3999 % 64));
    EXPECT_NE(r.out.find("by the instruction counter"), std::string::npos) << r.out;
}

// A cluster takes its core from a core description: a preset, a file beside
// the scenario or an object; its own keys override it. The run's JSON and
// --show-config show the core as it runs, with its ID registers.
TEST(PmvpSoc, ClustersTakeTheirCoreFromACoreDescription)
{
    std::string dir = temp_file("dir");
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/tiny.json") << R"(// two counters, PMUv3p4, no EL3
        { "pmu_version": "PMUv3p4", "num_counters": 2, "have_el3": false, "pmcr_imp": "0x41", "pmcr_idcode": "0x2A",
          "processor_hz": "1 GHz", "amu_num_aux": 1, "amu_aux_event": ["INST_RETIRED"] })";
    std::ofstream(dir + "/s.json") << R"({
        "duration": "100 us",
        "clusters": [
          { "name": "a53", "core": "cortex-a53", "processor_hz": "2 GHz",
            "workloads": [{ "phases": [{ "run": "10 us" }] }] },
          { "name": "tiny", "core": "tiny.json", "num_pes": 2,
            "workloads": [{ "phases": [{ "run": "10 us" }] }] },
          { "name": "inline", "core": { "num_counters": 3, "pmcr_imp": "0x41" },
            "processor_hz": "1 GHz", "workloads": [{ "phases": [{ "run": "10 us" }] }] }
        ],
        "firmware": { "counters": [{ "event": "CPU_CYCLES" }] } })";
    SocRun r = pmvp_soc(dir + "/s.json --quiet");
    ASSERT_EQ(r.status, 0) << r.err;
    const json &cl = r.result["scenario"]["clusters"];
    ASSERT_EQ(cl.size(), 3u);
    EXPECT_EQ(cl[0]["core"]["configuration"]["pmu_version"], "PMUv3");
    EXPECT_EQ(cl[0]["core"]["configuration"]["processor_hz"], "2 GHz");  // the cluster's key wins
    EXPECT_EQ(cl[0]["core"]["id_registers"]["PMCR_EL0"], "0x41033000");
    EXPECT_EQ(cl[1]["core"]["configuration"]["num_pes"], 2);
    EXPECT_EQ(cl[1]["core"]["configuration"]["processor_hz"], "1 GHz");  // the description's
    EXPECT_EQ(cl[1]["core"]["id_registers"]["PMCR_EL0"], "0x412A1000");  // IMP 0x41, IDCODE 0x2A, N 2
    EXPECT_EQ(cl[1]["core"]["id_registers"]["AMCGCR_EL0"], "0x00000104");
    EXPECT_EQ(cl[2]["core"]["id_registers"]["PMCR_EL0"], "0x41001800");
    // 100 us at 2 GHz on the Cortex-A53 cluster's PE.
    EXPECT_EQ(counted(r.result["pes"][0], 0), 200000u);

    SocRun show = pmvp_soc(dir + "/s.json --show-config", false);
    ASSERT_EQ(show.status, 0) << show.err;
    json shown = json::parse(show.out);
    EXPECT_EQ(shown["clusters"][1]["core"], cl[1]["core"]);

    SocRun bad = pmvp_soc(dir + "/s.json --show-config", false);
    std::ofstream(dir + "/bad.json") << R"({"duration": "1 ms", "clusters": [{"core": {"pmu_version": "PMUv3",
        "feat_mtpmu": true}, "processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us"}]}]}]})";
    bad = pmvp_soc(dir + "/bad.json", false);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("clusters[0]: feat_mtpmu: FEAT_MTPMU (Armv8.6) needs pmu_version PMUv3p5"),
              std::string::npos)
        << bad.err;
    std::ofstream(dir + "/bad.json") << R"({"duration": "1 ms", "clusters": [{"core": "cortex-a35",
        "workloads": [{"phases": [{"run": "1 us"}]}]}]})";
    bad = pmvp_soc(dir + "/bad.json", false);
    EXPECT_NE(bad.err.find("no such file, nor a preset (cortex-a53, cortex-a76)"), std::string::npos) << bad.err;

    SocRun presets = pmvp_soc("--presets", false);
    EXPECT_EQ(presets.status, 0);
    EXPECT_NE(presets.out.find("cortex-a76       Arm Cortex-A76"), std::string::npos) << presets.out;
}

// Arm, x86 and SEBEP runs write JSON that starts alike: the schema, the
// pmvp version, the scenario with its kind, the host time.
TEST(PmvpSoc, EveryJsonReportStartsAlike)
{
    for (const auto &[name, kind] : { std::pair<const char *, const char *>{ "default", "arm" },
                                      { "x86-hyperthreads", "x86" },
                                      { "sebep-sampling", "sebep" } }) {
        SocRun r = pmvp_soc(scenario(name) + " --quiet");
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.result["schema"], "pmvp-soc/1") << name;
        EXPECT_FALSE(r.result["pmvp_version"].get<std::string>().empty()) << name;
        EXPECT_EQ(r.result["scenario"]["name"], name);
        EXPECT_EQ(r.result["scenario"]["kind"], kind);
        EXPECT_GT(r.result["scenario"]["duration_ps"].get<uint64_t>(), 0u) << name;
        EXPECT_GT(r.result["host_seconds"].get<double>(), 0.0) << name;
        EXPECT_TRUE(r.result.contains(std::string(kind) == "arm" ? "pes" : kind)) << name;
    }
}

TEST(PmvpSoc, BadScenarios)
{
    struct Case {
        const char *json, *message;
    } cases[] = {
        { "{", "not valid JSON" },
        { R"({"duration": "1 ms", "quantm": "1 us", "clusters": [{"processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us"}]}]}]})",
          "quantm: unknown field" },
        { R"({"duration": "1 ms", "clusers": []})", "clusters: missing" },
        { R"({"clusters": []})", "duration: missing" },
        { R"({"duration": "1 mss", "clusters": []})", "duration: unknown unit" },
        { R"({"duration": "0.5 ps", "clusters": []})", "duration: time is not a whole number of ps" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "num_pes": 9, "workloads": []}]})",
          "clusters[0]: num_pes: 9 is above the maximum 8" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "mt_policy": "hmt", "workloads": []}]})",
          "clusters[0]: mt_policy: " },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us", "wfi": "1 us"}]}]}]})",
          "clusters[0].workloads[0].phases[0]: expected exactly one of" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us", "stall_backend": 0.1, "stall_backend_mem": 0.2}]}]}]})",
          "stall_backend_mem: a memory stall is a backend stall" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us", "el": 2, "security": "root"}]}]}]})",
          "phases[0]: this core cannot execute at EL2 in root state" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us", "el": 2, "security": "secure"}]}]}]})",
          "phases[0]: this core cannot execute at EL2 in secure state" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us"}]}]}],
              "firmware": {"counters": [{"counter": 7, "event": "CPU_CYCLES"}]}})",
          "firmware.counters[0].counter: cluster cluster0 has only 6 event counters" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us"}]}]}],
              "firmware": {"counters": [{"event": "CPU_CYCLS"}]}})",
          "firmware.counters[0].event: no event named \"CPU_CYCLS\" in the catalogue (did you mean CPU_CYCLES?)" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us"}]}]}],
              "firmware": {"PMCR": ["E"]}})",
          "firmware.PMCR[0]: expected one of D, X, DP, LC, LP" },
        { R"({"duration": "1 ms", "x86": {"threads": [{"phases": []}, {"phases": []}, {"phases": []}]}})",
          "x86.threads: expected a list of 1 or 2 logical processors" },
        { R"({"duration": "1 ms", "x86": {"threads": [{"phases": [{"run": "1 us", "hlt": "1 us"}]}]}})",
          "x86.threads[0].phases[0]: expected exactly one of run, hlt or mwait" },
        { R"({"duration": "1 ms", "x86": {"threads": [{"phases": [{"run": "1 us", "cpl": 4}]}]}})",
          "x86.threads[0].phases[0].cpl: expected an integer from 0 to 3" },
        { R"({"duration": "1 ms", "x86": {"tsc": "0 Hz", "threads": [{"phases": []}]}})",
          "x86: the clock counters refuse this core: tsc_hz: the TSC's frequency is invariant and above 0 Hz" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "feat_sel2": true, "have_el3": false,
              "workloads": [{"phases": [{"run": "1 us"}]}]}]})",
          "clusters[0]: feat_sel2, feat_rme: Secure EL2 and the Realm Management "
          "Extension need have_el2 and have_el3" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "feat_sle2": true,
              "workloads": [{"phases": [{"run": "1 us"}]}]}]})",
          "clusters[0].feat_sle2: unknown field (did you mean feat_sel2?)" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "controls": {"SCR_EL3": ["EEL2"]},
              "workloads": [{"phases": [{"run": "1 us"}]}]}]})",
          "clusters[0].controls.SCR_EL3: EEL2 enables Secure EL2, which needs feat_sel2" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "have_el2": true,
              "cpu": {"model": "iss", "firmware": "/nonexistent.elf"}}]})",
          "clusters[0].have_el2: an ISS cluster has no EL2 or EL3 (Unicorn runs EL1 only)" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "controls": {"MDCR_EL3": ["SPME"]},
              "cpu": {"model": "iss", "firmware": "/nonexistent.elf"}}]})",
          "clusters[0].controls: an ISS cluster has no EL2 or EL3 whose controls these would be" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "pmu_version": "PMUv3p4", "feat_pmuv3p7": true,
              "workloads": [{"phases": [{"run": "1 us"}]}]}]})",
          "clusters[0]: feat_pmuv3p7: FEAT_PMUv3p7 (Armv8.7) needs pmu_version PMUv3p5" },
        // The AMU turned off takes FEAT_AMUv1p1 with it, unless the scenario asks for both.
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "feat_amuv1": false,
              "feat_amuv1p1": true, "workloads": [{"phases": [{"run": "1 us"}]}]}]})",
          "clusters[0]: feat_amuv1p1: FEAT_AMUv1p1 needs feat_amuv1" },
        { R"({"duration": "1 ms", "sebep": {"profiles": [{}]}})", "sebep.sample_period: missing" },
        { R"({"duration": "1 ms", "sebep": {"sample_period": 0, "profiles": [{}]}})",
          "sebep.sample_period: expected an integer from 1 to 4294967295" },
        { R"({"duration": "1 ms", "sebep": {"sample_period": 10, "event": "CPU_CYCLES", "profiles": [{}]}})",
          "sebep.event: expected an event D14.7 lists as synchronous" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us"}]}]}], "firmware": {"counters": [{"counter": 4, "event": "CPU_CYCLES", "external": true}]}})",
          "firmware.counters[0].external: cluster cluster0 has no third range (FEAT_PMUv3_EXTPMN: feat_pmuv3_extpmn)" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "feat_pmuv3_extpmn": true, "workloads": [{"phases": [{"run": "1 us"}]}]}], "firmware": {"counters": [{"counter": 4, "event": "CPU_CYCLES", "external": true}, {"counter": 5, "event": "CPU_CYCLES"}]}})",
          "firmware.counters: counter 5 is below the external agent's counter 4" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "feat_pmuv3_extpmn": true, "workloads": [{"phases": [{"run": "1 us"}]}]}], "firmware": {"counters": [{"counter": 4, "event": "CPU_CYCLES", "external": true, "sample_period": 100}]}})",
          "firmware.counters[0].sample_period: the external agent's counters do not sample" },
        { R"({"duration": "1 ms", "sebep": {"sample_period": 10, "counter": "cycle", "profiles": [{}]}})",
          "sebep.counter: expected event (event counter 0) or instruction (PMICNTR_EL0)" },
        { R"({"duration": "1 ms", "sebep": {"counter": "instruction", "event": "BR_RETIRED", "sample_period": 10, "profiles": [{}]}})",
          "sebep.event: the instruction counter counts INST_RETIRED only" },
        { R"({"duration": "1 ms", "sebep": {"counter": "instruction", "sample_period": 10, "profiles": [{"shadow_events": 2}]}})",
          "sebep.profiles[0].shadow_events: the shadow effect is the event counters'" },
        { R"({"duration": "1 ms", "sebep": {"sample_period": 10, "profiles": [{"draw": "worst"}]}})",
          "sebep.profiles[0].draw: expected seeded or bound" },
        { R"({"duration": "1 ms", "sebep": {"sample_period": 10, "profiles": [{"shadow_time": "1 us"}]}})",
          "sebep.profiles[0].shadow_time: needs shadow_events" },
        { R"({"duration": "1 ms", "sebep": {"sample_period": 10, "profiles": []}})",
          "sebep.profiles: expected a list of inaccuracy profiles" },
        { R"({"duration": "1 ms", "x86": {"pstates": [{"at": "2 ms", "frequency": "1 GHz"}], "threads": [{"phases": []}]}})",
          "x86.pstates[0].at: steps must be in increasing time" },
        { R"({"duration": "1 ms", "x86": {"threads": [{"phases": []}]}, "clusters": []})", "clusters: unknown field" },
        { R"({"duration": "1 ms", "duration": "2 ms", "clusters": []})", "\"duration\" appears twice in one object" },
        // A number JSON cannot hold is a scenario error naming its field.
        { R"({"duration": "1 ms", "clusters": [{"cores": 1e400, "processor_hz": "1 GHz", "workloads": []}]})",
          "number overflow parsing '1e400' (field \"cores\", line 1)" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1500 GHz", "workloads": []}]})",
          "clusters[0]: processor_hz: frequency above 1 THz" },
        // The parser refuses what the run cannot do.
        { R"({"duration": "1 ms", "sebep": {"sample_period": 10, "event": "SW_INCR", "profiles": [{}]}})",
          "sebep.event: expected an event that instructions cause as they retire" },
        // Steps that would make the run take hours.
        { R"({"duration": "1 ms", "sebep": {"sample_period": 10, "instruction_time": "1 ps", "profiles": [{}]}})",
          "sebep.instruction_time: 1 ps over 1 ms is 1000000000 retired instructions, more than the 100000000" },
        { R"({"duration": "1 ms", "clusters": [{"processor_hz": "1 GHz", "num_pes": 2, "mt_policy": "soemt", "soemt_switch": "1 ps", "workloads": [{"phases": [{"run": "1 us"}]}]}]})",
          "clusters[0].soemt_switch: 1 ps over 1 ms is 1000000000 thread switches per core" },
        { R"({"duration": "1 s", "quantum": "1 ns", "clusters": [{"processor_hz": "1 GHz", "workloads": [{"phases": [{"run": "1 us"}]}]}]})",
          "quantum: 1 ns over 1 s is 1000000000 quanta" },
    };
    std::string path = temp_file("bad_scenario.json");
    for (const Case &c : cases) {
        std::ofstream(path) << c.json;
        SocRun r = pmvp_soc(path, false);
        EXPECT_EQ(r.status, 2) << c.json;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << "for " << c.json << "\ngot: " << r.err;
        EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    }
}

TEST(PmvpSoc, Version)
{
    SocRun r = pmvp_soc("--version", false);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string("pmvp-soc ") + PMVP_VERSION_STRING + "\n");
}

TEST(PmvpSoc, BadCommandLines)
{
    struct Case {
        const char *args, *message;
    } cases[] = {
        { "/nonexistent/scenario.json", "cannot be read" },
        { "--threads 9", "--threads: expected an integer from 1 to 8" },
        { "--mt barrel", "--mt: expected smt, fgmt or soemt" },
        { "--frequency 2GHzz", "--frequency: unknown unit" },
        { "--time", "--time: 1 required T missing" },
        { "--bogus", "unknown option --bogus\n" },
        { "--tme=1ms", "unknown option --tme (did you mean --time?)" },
        { "a.json b.json", "more than one scenario file (a.json, b.json)" },
        { "--save-at 0ps out.ckpt", "--save-at: the instant must be after 0 ps" },
        { "--check --check-limit 1000", "--check: this run is" },
        { "--check-limit lots", "--check-limit: expected an integer" },
        { "--frequency 0Hz", "--frequency: must be above 0 Hz" },
        { "--frequency 18446744073.8GHz", "--frequency: frequency too large" },
        { "--frequency 1000.000000001GHz", "--frequency: frequency above 1 THz" },
        { "--time 18446744.1s", "--time: time too large (a time is at most 18446744073709551615 ps)" },
        { "--time 1000s", "quantum: 1 us over 1000 s is 1000000000 quanta" },
        { "--quantum 0us", "--quantum: must be longer than 0 ps" },
        { "--quantum 1ps", "quantum: 1 ps over 1 ms is 1000000000 quanta" },
    };
    for (const Case &c : cases) {
        SocRun r = pmvp_soc(c.args, false);
        EXPECT_EQ(r.status, 2) << c.args;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << "for " << c.args << "\ngot: " << r.err;
    }
}

// The command line as CLI11 reads it: --opt=value, short options, a
// --config file that the command line overrides, generated help.
TEST(PmvpSoc, CommandLineForms)
{
    SocRun r = pmvp_soc("--time=100us -q");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.result["scenario"]["duration_ps"], 100000000u);
    EXPECT_TRUE(r.out.empty()) << r.out;  // -q
    std::string config = temp_file("options.toml");
    std::ofstream(config) << "time = \"200us\"\nquiet = true\nthreads = 1\n";
    r = pmvp_soc("--config " + config);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.result["scenario"]["duration_ps"], 200000000u);
    EXPECT_EQ(r.result["scenario"]["clusters"][0]["threads"], 1);
    r = pmvp_soc("--config " + config + " -t 50us");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.result["scenario"]["duration_ps"], 50000000u);
    r = pmvp_soc("--help", false);
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("-t,--time T"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Exit status"), std::string::npos) << r.out;
}

// Output faults: an output that cannot be written is refused before the
// run; a directory is no scenario; a VCD stops growing at its limit.
TEST(PmvpSoc, OutputsAreCheckedBeforeTheRunAndTheVcdIsBounded)
{
    SocRun r = pmvp_soc("--json /nonexistent-dir/out.json --quiet", false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("/nonexistent-dir/out.json: cannot be written"), std::string::npos) << r.err;
    r = pmvp_soc("--vcd /nonexistent-dir/trace.vcd --quiet", false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("/nonexistent-dir/trace.vcd: cannot be written"), std::string::npos) << r.err;
    r = pmvp_soc(std::string(PMVP_SCENARIOS) + " --quiet", false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("is a directory, not a scenario file"), std::string::npos) << r.err;

    std::string vcd = temp_file("bounded.vcd");
    r = pmvp_soc("--time 5ms --vcd " + vcd + " --vcd-limit 1 --quiet", false);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("passed 1 MiB at"), std::string::npos) << r.err;
    std::string text = slurp(vcd);
    EXPECT_LT(text.size(), 2u * 1024 * 1024);  // one thousandth of the run past the limit at most
    EXPECT_EQ(text.back(), '\n');
}

// Event names in any case and perf's generic names: the default scenario
// with "cycles", "instructions", "stalled-cycles-backend" and a lower-case
// catalogue name counts exactly as with the catalogue's names.
TEST(PmvpSoc, EventNamesInAnyCaseAndPerfAliases)
{
    std::string text = slurp(scenario("default"));
    for (const auto &[from, to] : { std::pair<std::string, std::string>{ "\"CPU_CYCLES\"", "\"cycles\"" },
                                    { "\"INST_RETIRED\"", "\"instructions\"" },
                                    { "\"STALL_BACKEND\"", "\"stalled-cycles-backend\"" },
                                    { "\"STALL_BACKEND_MEM\"", "\"stall_backend_mem\"" } }) {
        size_t at = text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
    }
    std::string path = temp_file("aliases.json");
    std::ofstream(path) << text;
    SocRun aliased = pmvp_soc(path + " --time 100us --quiet"), named = pmvp_soc("--time 100us --quiet");
    ASSERT_EQ(aliased.status, 0) << aliased.err;
    ASSERT_EQ(named.status, 0) << named.err;
    ASSERT_EQ(named.result["pes"].size(), 6u);
    EXPECT_EQ(aliased.result["pes"], named.result["pes"]);
}

// The readable report's counts agree with their nouns.
TEST(PmvpSoc, ReportGrammar)
{
    SocRun r = pmvp_soc("--time 200us --detail pe", false);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("interrupt, 1 sample taken"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(" 1 samples"), std::string::npos) << r.out;
    r = pmvp_soc("--time 20us --detail core", false);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("sum over its 1 PE:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("sum over its 2 PEs:"), std::string::npos) << r.out;
}

// --quiet drops the readable report but not the --check verdict.
TEST(PmvpSoc, CheckVerdictEvenWhenQuiet)
{
    SocRun r = pmvp_soc("--time 20us --check --quiet", false);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("values read compared with the per-cycle reference model: all agree"), std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("cluster"), std::string::npos) << r.out;  // no report
}

// --json - leaves standard output to the JSON alone, for a pipe; the
// readable report goes to standard error.
TEST(PmvpSoc, JsonOnStandardOutputIsAloneThere)
{
    for (const std::string &args : { std::string("--time 20us"), scenario("x86-hyperthreads") + " --time 20us" }) {
        SocRun r = pmvp_soc(args + " --json -", false);
        ASSERT_EQ(r.status, 0) << r.err;
        json j = json::parse(r.out);  // throws, failing the test, if anything else is there
        EXPECT_TRUE(j.contains("scenario")) << r.out;
        EXPECT_NE(r.err.find("pmvp-soc: "), std::string::npos) << r.err;
    }
}

// SIGINT ends the run where it is: the report and the JSON cover the run up
// to there, the VCD is closed whole, and the exit status is 130.
namespace {

// pmvp-soc with `args` interrupted by SIGINT after a second: it exits with
// 130 and says where, and its JSON says it was interrupted before `duration`
// ps; the JSON is returned, the readable report in *out.
json interrupted_run(const std::string &args, uint64_t duration, std::string *out)
{
    std::string js = temp_file("interrupted.json"), out_file = temp_file("out"), err = temp_file("err");
    std::string cmd = "timeout -s INT --preserve-status 1 " + std::string(PMVP_SOC) + " " + args + " --json " + js +
                      " >" + out_file + " 2>" + err;
    int rc = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(rc));
    EXPECT_EQ(WEXITSTATUS(rc), 130) << slurp(err);
    EXPECT_NE(slurp(err).find("interrupted at"), std::string::npos) << slurp(err);
    json result = json::parse(slurp(js), nullptr, false);
    EXPECT_TRUE(result.value("interrupted", false)) << result.dump();
    uint64_t until = result.is_object() ? result["scenario"].value("duration_ps", UINT64_C(0)) : 0;
    EXPECT_GT(until, 0u);
    EXPECT_LT(until, duration);
    *out = slurp(out_file);
    return result;
}

}  // namespace

TEST(PmvpSoc, AnInterruptedRunReportsWhatItCounted)
{
    std::string vcd = temp_file("interrupted.vcd"), out;
    interrupted_run("--time 10s --vcd " + vcd + " --vcd-limit 1", 10000000000000u, &out);
    std::string text = slurp(vcd);
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n');
}

// SIGINT ends a SEBEP run as it does an Arm one: a report of the samples
// taken up to the instant reached.
TEST(PmvpSoc, AnInterruptedSebepRunReportsItsSamples)
{
    std::string out;
    json result = interrupted_run(scenario("sebep-sampling") + " --time 45ms", 45000000000u, &out);
    uint64_t until = result["scenario"]["duration_ps"].get<uint64_t>();
    EXPECT_NE(out.find(pmvp::soc::time_text(until) + " simulated"), std::string::npos) << out;
}

// Units are exact decimal quantities.
TEST(Scenario, TimesAndFrequenciesAreExact)
{
    using pmvp::soc::parse_hz;
    using pmvp::soc::parse_time;
    EXPECT_EQ(parse_time("1.5 us"), 1500000u);
    EXPECT_EQ(parse_time("1ms"), 1000000000u);
    EXPECT_EQ(parse_time("0.001 ns"), 1u);
    EXPECT_EQ(parse_hz("2.7 GHz"), 2700000000u);
    EXPECT_EQ(parse_hz("32768 Hz"), 32768u);
    EXPECT_THROW(parse_time("0.0001 ns"), std::invalid_argument);
    EXPECT_THROW(parse_time("1 minute"), std::invalid_argument);
    EXPECT_THROW(parse_time("ms"), std::invalid_argument);
    EXPECT_THROW(parse_hz("99999999999999999999 Hz"), std::invalid_argument);
    // Exact in 128 bits: no intermediate product overflows, no sum wraps.
    EXPECT_EQ(parse_time("1.123456789s"), 1123456789000u);
    EXPECT_EQ(parse_time("18446744.073709551615 s"), UINT64_MAX);
    EXPECT_THROW(parse_time("18446744.073709551616 s"), std::invalid_argument);
    EXPECT_THROW(parse_time("18446744.1s"), std::invalid_argument);
    EXPECT_EQ(parse_time("1.50000000000000000000000000 us"), 1500000u);  // trailing zeros
    EXPECT_THROW(parse_time("0.0000000000000000000001 s"), std::invalid_argument);
    EXPECT_EQ(parse_hz("1000 GHz"), 1000000000000u);  // 1 THz, the most
    EXPECT_THROW(parse_hz("1000.000000001 GHz"), std::invalid_argument);
    EXPECT_THROW(parse_hz("18446744073.8GHz"), std::invalid_argument);
}

// --check can fail: a value the reference model does not produce is reported.
TEST(Check, ReportsADisagreement)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.processor_hz = 1000000000;
    pmvp::soc::Journal j;
    j.enabled = true;
    pmvp::soc::Input in;
    in.kind = pmvp::soc::Input::PMU_WRITE;
    in.reg = PMVP_PMCNTENSET_EL0;
    in.value = 1u << 31;
    j.add(in);
    in.reg = PMVP_PMCR_EL0;
    in.value = 1;  // E
    j.add(in);
    in.kind = pmvp::soc::Input::PMU_READ;
    in.reg = PMVP_PMCCNTR_EL0;
    in.t = 1000000;  // 1 us: 1000 cycles
    in.value = 1000;
    j.add(in);
    in.value = 999;
    j.add(in);
    pmvp::soc::CheckResult r = pmvp::soc::check_against_reference(cfg, j);
    EXPECT_EQ(r.compared, 2u);
    EXPECT_EQ(r.num_disagreements, 1u);
    ASSERT_EQ(r.disagreements.size(), 1u);
    EXPECT_NE(r.disagreements[0].find("PMCCNTR_EL0 read 999, reference model 1000"), std::string::npos);
}

// ---- firmware on the AArch64 ISS (docs/FIRMWARE.md)

#ifdef PMVP_HAVE_FIRMWARE
// The conformance suite, as a user runs it: every test passes on PE 0 and
// the monitors' own counts agree with what the guest did.
TEST(PmvpSoc, FirmwarePmuSuitePassesOnTheIss)
{
    SocRun r = pmvp_soc(scenario("firmware-pmu-suite"));
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    ASSERT_TRUE(r.result["all_passed"].get<bool>());
    const json &pes = r.result["pes"];
    ASSERT_EQ(pes.size(), 4u);  // 2 cores x 2 SMT threads
    const std::string console = pes[0]["console"];
    EXPECT_NE(console.find("\n21 passed, 0 failed\n"), std::string::npos) << console;
    // FEAT_PMUv3_TH2 with an 8-bit TH: CPU_CYCLES >= 1 counts the 2001
    // cycles of the loop (CPI 1), < 1 none; three enablings, three rising
    // edges; the counter linked to SW_INCR counts its five increments.
    EXPECT_NE(console.find("threshold: THWIDTH 8, EDGE 2; CPU_CYCLES >= 1: 2001, < 1: 0; rising edges 3; "
                           "linked to SW_INCR 5\n"),
              std::string::npos)
        << console;
    // FEAT_PMUv3_SS: MSR PMSSCR_EL1 captures the counters (MRS of op0 0b10 on the ISS).
    EXPECT_NE(console.find("snapshot: PMEVCNTSVR0 = 1234, PMEVCNTSVR1 = 5678, PMCCNTSVR = 999\n"), std::string::npos)
        << console;
    // FEAT_PMUv3p9: PMZR_EL0 zeroes counters 0 and 2 and leaves counter 1;
    // PMUACR_EL1 holds P0..P5, C and F0.
    EXPECT_NE(console.find("after PMZR_EL0 = P0|P2|C|F0: PMEVCNTR0..2 = 0, 1001, 0; PMUACR_EL1 = 0x18000003f\n"),
              std::string::npos)
        << console;
    // The instruction counter (FEAT_PMUv3_ICNTR) counts the loop as an
    // INST_RETIRED event counter does.
    EXPECT_NE(console.find("PMICNTR = 2001 instructions, PMEVCNTR0 (INST_RETIRED) = 2001\n"), std::string::npos)
        << console;
    // Freeze on overflow (FEAT_PMUv3p7): the ISS tells its instructions
    // spread over their cycles (one a cycle at CPI 1), so the counters
    // freeze on the cycle of the overflowing instruction, the 100th, which
    // they count; and on the 100th cycle, whose edge overflows a counter of
    // CPU_CYCLES, and whose instruction counts too.
    EXPECT_NE(console.find("PMEVCNTR1 = 100 of 2001 instructions, PMCCNTR = 100\n"), std::string::npos) << console;
    EXPECT_NE(console.find("PMEVCNTR1 = 100 instructions until the 100th cycle\n"), std::string::npos) << console;
    EXPECT_EQ(console.find("FAIL"), std::string::npos) << console;
    // The overflow interrupt was taken, at the block of the overflowing
    // instruction (its 2-instruction loop block): no instruction of skid.
    EXPECT_EQ(pes[0]["interrupts"].get<uint64_t>(), 1u);
    EXPECT_EQ(pes[0]["max_skid"].get<uint64_t>(), 0u);
    // Two deliberate UNDEFINED accesses reached the guest's vector.
    EXPECT_EQ(pes[0]["exceptions"].get<uint64_t>(), 2u);
    // The AMU counted every instruction PE 0 retired while it was enabled,
    // and the sibling (PE 1) ran its 10,000-iteration loop for the MT=1 test.
    EXPECT_GT(pes[1]["instructions"].get<uint64_t>(), 20000u);
    for (unsigned g = 0; g < 4; g++)
        EXPECT_EQ(pes[g]["status"].get<uint64_t>(), 0u) << g;
    // At 1 GHz and CPI 1, instruction k retires at k ns, and PE 0 sleeps once:
    // in pmu-wfi-cycle-counter, from its WFI's retirement to the cycle
    // counter's overflow 20,000 cycles after the MSR before it, 19,998 ns.
    // So it exits at the instant of the instructions before its exit write
    // plus that sleep.
    EXPECT_NE(console.find("slept 19998 cycles; CPU_CYCLES 3\n"), std::string::npos) << console;
    EXPECT_EQ(pes[0]["exit_time_ps"].get<uint64_t>(), (pes[0]["exit_instructions"].get<uint64_t>() + 19998) * 1000);
    EXPECT_GT(pes[0]["exit_instructions"].get<uint64_t>(), 50000u);
}

// The platform's contract with its guest (firmware/platform_contract.c):
// a PMUIRQ pending while PSTATE.I masks it is taken before the instruction
// after MSR DAIFClr, MSR DAIF or ERET unmasks it; a load right after an MRS
// of a PMU or an AMU register is timed one instruction after it; a doorbell
// rung by thread 1 wakes thread 0 from WFI at the ring's instant, wherever
// in the quantum; a loop across a DVFS step up and a step down takes one
// cycle an instruction at CPI 1, the step falling inside a translated block.
TEST(PmvpSoc, FirmwarePlatformContractHoldsOnTheIss)
{
    SocRun r = pmvp_soc(scenario("firmware-platform-contract"));
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const json &pes = r.result["pes"];
    ASSERT_EQ(pes.size(), 2u);
    const std::string console = pes[0]["console"];
    for (const char *test : { "irq-on-unmask", "access-timing", "smt-doorbell-wake", "dvfs-split" })
        EXPECT_NE(console.find(std::string("PASS ") + test + "\n"), std::string::npos) << test << "\n" << console;
    EXPECT_NE(console.find("\n4 passed, 0 failed\n"), std::string::npos) << console;
    EXPECT_NE(console.find("1 cycles from an MRS to the load after it, TIME loads 2000 ps apart\n"), std::string::npos)
        << console;
    EXPECT_NE(console.find("1000000000 -> 2000000000 Hz: "), std::string::npos) << console;
    EXPECT_NE(console.find("2000000000 -> 500000000 Hz: "), std::string::npos) << console;
    // Three interrupts, each taken where it was unmasked: no skid.
    EXPECT_EQ(pes[0]["interrupts"].get<uint64_t>(), 3u);
    EXPECT_EQ(pes[0]["max_skid"].get<uint64_t>(), 0u);
    // CPI 3 and steps inside a quantum, off the instructions' grid (the
    // last at 2003.5 us, a 2 GHz edge but no instruction's instant): each
    // instruction still retires CPI edges after the one before.
    std::string path = temp_file("contract-cpi3.json");
    std::ofstream(path) << R"({ "name": "contract-cpi3", "duration": "10 ms", "quantum": "10 us",
        "clusters": [ { "cores": 1, "num_pes": 2, "mt_policy": "smt", "processor_hz": "1 GHz",
          "dvfs": [ { "at": "1005 us", "frequency": "2 GHz" }, { "at": "2003.5 us", "frequency": "500 MHz" } ],
          "cpu": { "model": "iss", "firmware": ")"
                        << PMVP_FIRMWARE_DIR << R"(/platform-contract.elf", "cpi": 3 },
          "num_counters": 6, "pmu_ext_layout": "EXT64" } ] })";
    r = pmvp_soc(path);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const std::string cpi3 = r.result["pes"][0]["console"];
    EXPECT_NE(cpi3.find("\n4 passed, 0 failed\n"), std::string::npos) << cpi3;
    EXPECT_NE(cpi3.find("3 cycles from an MRS to the load after it, TIME loads 6000 ps apart\n"), std::string::npos)
        << cpi3;
}

// An ISS core advertises what its configuration counts: PMUv3 (the
// cortex-a53 preset, or the version alone) counts no event above 0x3FF, so
// not CNT_CYCLES, and a core without an AMU is reported without one.
TEST(PmvpSoc, IssClustersOfAnyPmuVersionWithOrWithoutAmu)
{
    const std::string image = std::string(PMVP_FIRMWARE_DIR) + "/platform-contract.elf";
    for (const char *core : { R"("pmu_version": "PMUv3")", R"("core": "cortex-a53")", R"("pmu_version": "PMUv3p1")",
                              R"("feat_amuv1": false)" }) {
        std::string path = temp_file("iss-version.json");
        std::ofstream(path) << R"({ "name": "iss-version", "duration": "5 ms", "quantum": "10 us",
            "clusters": [ { "processor_hz": "1 GHz", )"
                            << core << R"(, "cpu": { "model": "iss", "firmware": ")" << image << R"(" } } ] })";
        SocRun r = pmvp_soc(path);
        ASSERT_EQ(r.status, 0) << core << "\n" << r.out << r.err;
        const json &pe = r.result["pes"][0];
        EXPECT_TRUE(pe["amu"].is_null()) << core;
        const std::string console = pe["console"];
        EXPECT_NE(console.find("PASS irq-on-unmask\n"), std::string::npos) << console;
        EXPECT_NE(console.find("SKIP access-timing (AMU): ID_AA64PFR0_EL1.AMU is 0\n"), std::string::npos) << console;
        SocRun text = pmvp_soc(path, false);
        EXPECT_NE(text.out.find(", no AMU\n"), std::string::npos) << text.out;
    }
}

// The ISS benchmark's guest (bench/scenarios/iss-alu.json) runs to its end
// with the monitors and without, retiring the same instructions: 250,000
// iterations of 18 instructions and the runtime's start-up and exit.
TEST(PmvpSoc, IssBenchmarkGuestRunsAttachedAndDetached)
{
    const std::string alu = std::string(PMVP_BENCH_SCENARIOS) + "/iss-alu.json";
    SocRun on = pmvp_soc(alu);
    ASSERT_EQ(on.status, 0) << on.out << on.err;
    const json &pe = on.result["pes"][0];
    EXPECT_EQ(pe["console"].get<std::string>(), "iterations 250000\n");
    uint64_t instructions = pe["instructions"].get<uint64_t>();
    EXPECT_GT(instructions, 250000u * 18);
    EXPECT_LT(instructions, 250000u * 18 + 2000);
    SocRun off = pmvp_soc(alu + " --detached", false);
    ASSERT_EQ(off.status, 0) << off.out << off.err;
    EXPECT_NE(off.out.find("  " + std::to_string(instructions) + " instructions,"), std::string::npos) << off.out;
    EXPECT_NE(off.out.find("(no monitors: --detached)"), std::string::npos) << off.out;
    EXPECT_EQ(off.out.find("PMCCNTR"), std::string::npos) << off.out;
}

// The ISS's report reads the counters at the instant the guest ended, not
// at the start of the quantum it ended in: iss-mrs.json's PMCCNTR_EL0, on
// from the guest's PMCR_EL0.E write early in its start-up to its exit, is
// the same whatever the quantum (1 GHz, CPI 1: a cycle an instruction).
TEST(PmvpSoc, IssReportReadsTheCountersAtTheExit)
{
    const std::string mrs = std::string(PMVP_BENCH_SCENARIOS) + "/iss-mrs.json";
    uint64_t first = 0;
    for (const char *quantum : { "100us", "7us", "1ms" }) {
        SocRun r = pmvp_soc(mrs + " --quantum " + quantum);
        ASSERT_EQ(r.status, 0) << r.out << r.err;
        const json &pe = r.result["pes"][0];
        const uint64_t exit = pe["exit_instructions"].get<uint64_t>(), cycles = pe["pmccntr"].get<uint64_t>();
        EXPECT_EQ(pe["exit_time_ps"].get<uint64_t>(), exit * 1000) << quantum;
        EXPECT_LT(cycles, exit) << quantum;
        EXPECT_GT(cycles, exit - 2000) << quantum;  // the start-up before the write: under 2,000 instructions
        if (!first)
            first = cycles;
        EXPECT_EQ(cycles, first) << quantum;
    }
}

// Both CPU models in one SoC: the system-control processor's firmware on
// the ISS reads the analytic cores' frames through the shared bus, each
// value exact at the instant of its load, while the firmware agent
// programs, samples and reads those cores; the run lasts the scenario (the
// analytic cores run on after the guest's exit).
TEST(PmvpSoc, MixedSocGuestWatchesAnalyticCores)
{
    SocRun r = pmvp_soc(scenario("mixed-soc"));
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    // The analytic clusters' report: their 4 PEs, 1.5 GHz x 2 ms each.
    const json &pes = r.result["pes"];
    ASSERT_EQ(pes.size(), 4u);
    for (unsigned g = 0; g < 4; g++) {
        EXPECT_EQ(pes[g]["pe"].get<unsigned>(), g);
        EXPECT_EQ(pes[g]["registers"]["PMCCNTR_EL0"].get<uint64_t>(), 3000000u) << g;
        EXPECT_EQ(pes[g]["amu"]["CNT_CYCLES"].get<uint64_t>(), 200000u) << g;  // 100 MHz x 2 ms
    }
    EXPECT_EQ(r.result["scenario"]["clusters"][1]["cpu"].get<std::string>(), "iss");
    // The ISS cluster's: one PE, SoC PE 4 (after the analytic cluster), the
    // image's PE 0, and every check of every watched PE passed.
    const json &iss = r.result["iss"];
    ASSERT_TRUE(iss["all_passed"].get<bool>()) << r.out;
    ASSERT_EQ(iss["pes"].size(), 1u);
    EXPECT_EQ(iss["pes"][0]["pe"].get<unsigned>(), 4u);
    const std::string console = iss["pes"][0]["console"];
    EXPECT_NE(console.find("soc-watch on SoC PE 4 of 5\n"), std::string::npos) << console;
    for (const char *test : { "pe0-cycle-counter", "pe1-cnt-cycles", "pe2-frame-identity", "pe3-cycle-counter" })
        EXPECT_NE(console.find(std::string("PASS ") + test + "\n"), std::string::npos) << test << "\n" << console;
    EXPECT_NE(console.find("\n12 passed, 0 failed\n"), std::string::npos) << console;
    EXPECT_EQ(console.find("SKIP"), std::string::npos) << console;
    // The guest's own load of PE 0's cycle counter, at 1.5 GHz: the value
    // is the clock's edges up to the instant the guest printed for it.
    size_t at = console.find("PE 0 at 1500 MHz: PMCCNTR ");
    ASSERT_NE(at, std::string::npos) << console;
    unsigned long long value = 0, instant = 0;
    ASSERT_EQ(std::sscanf(console.c_str() + at, "PE 0 at 1500 MHz: PMCCNTR %llu at %llu ps", &value, &instant), 2);
    EXPECT_GE(instant, 50000000u);  // after the watcher's boot wait
    EXPECT_EQ(value, instant * 3 / 2000);
    // The readable report keeps the two apart.
    SocRun text = pmvp_soc(scenario("mixed-soc"), false);
    EXPECT_NE(text.out.find("cluster scp: 1 x single-thread core at 1 GHz, on the AArch64 ISS"), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("SoC, sum over its 4 PEs of analytic cores:"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("1 PE ran "), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find(" PE 4 (cluster scp, core 2, thread 0):\n"), std::string::npos) << text.out;
}

// FEAT_PMUv3_EXTPMN from the guest: two of six counters reserved before
// the firmware runs (extpmn_reserved). The ISS has no Secure state,
// so the guest's accesses to the frame are Most secure: as the external
// agent it counts the 2000 instructions of a loop in counter 4 with
// PMCCR.EPME while PMCR.E is 0 (the AMU's INST_RETIRED around the loop
// reads 2004: two MRS, two loads, a mov); as the PE's software it sees
// PMCR.N = 4 and counter 4 RAZ/WI. The rest of the suite passes on the
// four counters it has.
TEST(PmvpSoc, FirmwareIsTheExternalAgentWithoutSecureState)
{
    std::string path = temp_file("third-range.json");
    std::ofstream(path) << R"({ "name": "suite-third-range", "duration": "20 ms", "quantum": "10 us",
        "clusters": [ { "cores": 1, "processor_hz": "1 GHz",
          "cpu": { "model": "iss", "firmware": ")"
                        << PMVP_FIRMWARE_DIR << R"(/pmu-suite.elf" },
          "num_counters": 6, "pmu_ext_layout": "EXT64", "feat_pmuv3_icntr": true, "feat_pmuv3_extpmn": true, "extpmn_reserved": 2 } ] })";
    SocRun r = pmvp_soc(path);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const std::string console = r.result["pes"][0]["console"];
    EXPECT_NE(console.find("PASS pmu-third-range"), std::string::npos) << console;
    EXPECT_NE(console.find("third range: EPMN 4 of 6, PMCR.N 4; PMEVCNTR4 counted the loop's 2000 instructions "
                           "with PMCR.E 0 (AMU: 2004 around it)\n"),
              std::string::npos)
        << console;
    EXPECT_EQ(console.find("FAIL"), std::string::npos) << console;
    // Without the feature the test is skipped.
    SocRun plain = pmvp_soc(scenario("firmware-pmu-suite"));
    EXPECT_NE(plain.result["pes"][0]["console"].get<std::string>().find("SKIP pmu-third-range: PMDEVID.EXTPMN is 0"),
              std::string::npos);
}

// An ISS cluster's DVFS steps reach its monitors at their instants: the
// suite, whose counts are in cycles of instructions, passes across steps
// to 2 GHz, 500 MHz and back (the cycle counter's WFI test fails if the
// monitors keep the first frequency).
TEST(PmvpSoc, FirmwarePmuSuitePassesAcrossDvfsSteps)
{
    std::string path = temp_file("dvfs.json");
    std::ofstream(path) << R"({ "name": "suite-dvfs", "duration": "20 ms", "quantum": "10 us",
        "clusters": [ { "cores": 2, "num_pes": 2, "mt_policy": "smt", "processor_hz": "1 GHz",
          "dvfs": [ { "at": "50 us", "frequency": "2 GHz" }, { "at": "150 us", "frequency": "500 MHz" },
                    { "at": "400 us", "frequency": "1 GHz" } ],
          "cpu": { "model": "iss", "firmware": ")"
                        << PMVP_FIRMWARE_DIR << R"(/pmu-suite.elf" },
          "num_counters": 6, "pmu_ext_layout": "EXT64" } ] })";
    SocRun r = pmvp_soc(path);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const std::string console = r.result["pes"][0]["console"];
    // Without FEAT_PMUv3p7 the freeze test is skipped, and without
    // FEAT_PMUv3_ICNTR the instruction counter's, without FEAT_PMUv3p9 PMZR's,
    // without FEAT_PMUv3_SS the snapshot's, without FEAT_PMUv3_TH the
    // threshold test.
    EXPECT_NE(console.find("\n16 passed, 0 failed\n"), std::string::npos) << console;
    EXPECT_NE(console.find("SKIP pmu-instruction-counter: ID_AA64DFR1_EL1.PMICNTR is 0"), std::string::npos) << console;
    EXPECT_NE(console.find("SKIP pmu-zero-with-mask: ID_AA64DFR0_EL1.PMUVer is below 0b1001"), std::string::npos)
        << console;
    EXPECT_NE(console.find("SKIP pmu-snapshot: ID_AA64DFR0_EL1.PMSS is 0"), std::string::npos) << console;
    EXPECT_NE(console.find("SKIP pmu-threshold: PMMIR_EL1.THWIDTH is 0"), std::string::npos) << console;
    EXPECT_NE(console.find("SKIP pmu-freeze-on-overflow: PMCR_EL0.FZO is RES0"), std::string::npos) << console;
    // The suite outlasts the last step: it ran at every frequency.
    EXPECT_GT(r.result["pes"][0]["exit_time_ps"].get<uint64_t>(), 400000000u);
}

// Which scenarios mixing the models are refused, and why.
TEST(PmvpSoc, MixedScenarioErrors)
{
    auto run_with = [&](const std::string &clusters, const std::string &rest = "") {
        std::string path = temp_file("mixed.json");
        std::ofstream(path) << R"({ "name": "m", "duration": "1 us", "clusters": [ )" << clusters << " ]" << rest
                            << " }";
        return pmvp_soc(path, false);
    };
    const std::string analytic = R"({ "processor_hz": "1 GHz", "workloads": [ { "phases": [ { "run": "1 us" } ] } ] })";
    auto iss = [](const std::string &image) {
        return R"({ "processor_hz": "1 GHz", "cpu": { "model": "iss", "firmware": ")" + std::string(PMVP_FIRMWARE_DIR) +
               "/" + image + R"(" } })";
    };
    SocRun r = run_with(iss("soc-watch.elf") + ", " + iss("pmu-suite.elf"));
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("clusters[1].cpu.firmware: the ISS clusters share one RAM and so run one image"),
              std::string::npos)
        << r.err;
    r = run_with(iss("soc-watch.elf"), R"(, "firmware": { "counters": [ { "event": "CPU_CYCLES" } ] })");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("firmware: the firmware agent programs the analytic clusters and this scenario has none"),
              std::string::npos)
        << r.err;
    // Accepted, and run: 1 us is too short for the watcher, which waits 50 us.
    r = run_with(analytic + ", " + iss("soc-watch.elf"));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("the firmware of some PE did not exit by the end of the scenario"), std::string::npos)
        << r.err;
    std::string args = scenario("mixed-soc") + " --check";
    r = pmvp_soc(args, false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--check: this scenario has ISS clusters"), std::string::npos) << r.err;
    r = pmvp_soc(scenario("firmware-pmu-suite") + " --detail pe", false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--detail: the report of this scenario's ISS clusters is per PE"), std::string::npos) << r.err;
}

// A runaway guest is stopped at the scenario's end and reported, not waited for.
TEST(PmvpSoc, FirmwareThatDoesNotExitIsStoppedAtTheEnd)
{
    SocRun r = pmvp_soc(scenario("firmware-pmu-suite") + " --time 30us");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("did not exit by the end of the scenario"), std::string::npos) << r.err;
    EXPECT_FALSE(r.result["all_exited"].get<bool>());
}
#else
TEST(PmvpSoc, FirmwarePmuSuitePassesOnTheIss)
{
    GTEST_SKIP() << "aarch64-linux-gnu-gcc was not found when pmvp was configured: no firmware image";
}
#endif

namespace {
void put64(std::string &h, size_t at, uint64_t v)
{
    std::memcpy(&h[at], &v, 8);
}

// An ELF64 AArch64 executable's header, entry at the RAM's base, with one
// program header (PT_LOAD, all zero) at file offset `phoff`.
std::string elf_header(uint64_t phoff = 64)
{
    std::string h(64 + 56, '\0');
    h.replace(0, 4, "\177ELF");
    h[4] = 2;   // ELFCLASS64
    h[5] = 1;   // little-endian
    h[16] = 2;  // ET_EXEC
    h[18] = (char)183;
    put64(h, 24, 0x40000000);  // e_entry
    put64(h, 32, phoff);       // e_phoff
    h[54] = 56;                // e_phentsize
    h[56] = 1;                 // e_phnum
    h[64] = 1;                 // PT_LOAD
    return h;
}

// A minimal image: `code` at the RAM's base, its entry.
std::string tiny_image(const std::vector<uint32_t> &code)
{
    std::string h = elf_header();
    put64(h, 64 + 8, 64 + 56);  // p_offset
    put64(h, 64 + 16, 0x40000000);
    put64(h, 64 + 32, code.size() * 4);
    put64(h, 64 + 40, code.size() * 4);
    for (uint32_t w : code)
        h.append(reinterpret_cast<const char *>(&w), 4);
    return h;
}
}  // namespace

// A firmware image that is missing, not for AArch64, or too big for the RAM:
// a scenario error naming the file, exit 2.
TEST(PmvpSoc, BadFirmwareImages)
{
    auto run_with = [&](const std::string &image) {
        std::string path = temp_file("fw_scenario.json");
        std::ofstream(path) << R"({ "name": "bad-image", "duration": "1 us", "clusters": [ { "processor_hz": "1 GHz",
            "cpu": { "model": "iss", "firmware": ")"
                            << image << R"(" } } ] })";
        return pmvp_soc(path, false);
    };
    SocRun r = run_with("/nonexistent/pmu-suite.elf");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("/nonexistent/pmu-suite.elf: the firmware image cannot be read"), std::string::npos) << r.err;

    std::string text = temp_file("text.elf");
    std::ofstream(text) << "not an image";
    r = run_with(text);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(text + ": not a firmware image for pmvp: not an ELF file"), std::string::npos) << r.err;

    // An x86-64 ELF header (e_machine 62).
    std::string x86 = temp_file("x86.elf");
    {
        std::string h(64, '\0');
        h.replace(0, 4, "\177ELF");
        h[4] = 2;
        h[5] = 1;
        h[18] = 62;
        std::ofstream(x86, std::ios::binary) << h;
    }
    r = run_with(x86);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("an ELF file for machine 62, not AArch64 (183)"), std::string::npos) << r.err;

    // An AArch64 ELF whose one segment is 32 MiB at the RAM base.
    std::string big = temp_file("big.elf");
    {
        std::string h = elf_header();
        put64(h, 64 + 16, 0x40000000);
        put64(h, 64 + 40, 32u << 20);  // p_memsz
        std::ofstream(big, std::ios::binary) << h;
    }
    r = run_with(big);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(big + ": segment 0 (33554432 bytes at 1073741824) does not fit the RAM"), std::string::npos)
        << r.err;

    // Program headers at an offset near 2^64, which a sum of offset and
    // size wraps to a small number: refused, not read before the buffer.
    for (uint64_t phoff : { ~uint64_t(0) - 7, ~uint64_t(0) - 55, uint64_t(1) << 63 }) {
        std::string wrap = temp_file("wrap.elf");
        std::ofstream(wrap, std::ios::binary) << elf_header(phoff);
        r = run_with(wrap);
        EXPECT_EQ(r.status, 2) << phoff;
        EXPECT_NE(r.err.find(wrap + ": not a firmware image for pmvp: its program headers lie outside the file"),
                  std::string::npos)
            << r.err;
    }
}

// A guest that takes an UNDEFINED exception in a loop, on both threads of
// an SMT core with a 100 us quantum: each thread retires one instruction a
// nanosecond, 3 to set VBAR_EL1 and then 5 an exception (the branch back,
// the handler's four; the UDF is not executed, so it does not retire): the
// exceptions come after the 3rd, the 8th, ..., the 99,998th instruction,
// 20,000 of them. The run's last block, the handler's MRS, ADD and MSR
// (Unicorn ends the block before ERET), starts before the end and runs
// whole: 100,001 instructions.
// (Its inputs to the monitors no longer grow with the square of the
// quantum: the threads take turns in 10 us slices, and an exception is no
// input.)
TEST(PmvpSoc, AGuestThatFaultsForeverRunsAtItsPace)
{
    std::vector<uint32_t> code = { 0x10004001 /* adr x1, +0x800 */, 0xD518C001 /* msr vbar_el1, x1 */,
                                   0xD5033FDF /* isb */, 0x00000000 /* udf #0 */, 0x17FFFFFF /* b -4 */ };
    code.resize((0x800 + 0x200) / 4, 0xD503201F /* nop */);
    for (uint32_t w : { 0xD5384020u /* mrs x0, elr_el1 */, 0x91001000u /* add x0, x0, #4 */,
                        0xD5184020u /* msr elr_el1, x0 */, 0xD69F03E0u /* eret */ })
        code.push_back(w);
    std::string image = temp_file("faults.elf"), path = temp_file("faults.json");
    std::ofstream(image, std::ios::binary) << tiny_image(code);
    std::ofstream(path) << R"({ "name": "faults", "duration": "100 us", "quantum": "100 us", "clusters": [
        { "processor_hz": "1 GHz", "num_pes": 2, "cpu": { "model": "iss", "firmware": ")"
                        << image << R"(" } } ] })";
    SocRun r = pmvp_soc(path);
    EXPECT_EQ(r.status, 1) << r.err;  // it never exits
    for (const json &pe : r.result["pes"]) {
        EXPECT_EQ(pe["instructions"].get<uint64_t>(), 100001u);
        EXPECT_EQ(pe["exceptions"].get<uint64_t>(), 20000u);
        EXPECT_EQ(pe["amu"]["INST_RETIRED"].get<uint64_t>(), 0u);  // the guest never enabled its AMU
    }
}

// Guests of random words, on a 2-thread core: each runs until it is
// stopped (an exception the platform does not model, a fetch from nowhere)
// or the scenario ends, and is reported; none crashes or hangs the host
// (each is given 60 s of host time for 200 us).
TEST(PmvpSoc, RandomGuestsAreStoppedOrRunToTheEnd)
{
    std::mt19937 rng(48);
    for (int i = 0; i < 24; i++) {
        std::vector<uint32_t> code(256);
        for (uint32_t &w : code)
            w = rng();
        std::string image = temp_file("random.elf"), path = temp_file("random.json"), js = temp_file("random-run.json");
        std::ofstream(image, std::ios::binary) << tiny_image(code);
        std::ofstream(path) << R"({ "name": "random", "duration": "200 us", "clusters": [
            { "processor_hz": "1 GHz", "num_pes": 2, "cpu": { "model": "iss", "firmware": ")"
                            << image << R"(" } } ] })";
        int rc = std::system(("timeout 60 " + std::string(PMVP_SOC) + " " + path + " --quiet --json " + js).c_str());
        ASSERT_TRUE(WIFEXITED(rc)) << "guest " << i;
        EXPECT_EQ(WEXITSTATUS(rc), 1) << "guest " << i;  // 124: the host hung
        json run = json::parse(slurp(js), nullptr, false);
        ASSERT_FALSE(run.is_discarded()) << "guest " << i;
        EXPECT_EQ(run["pes"].size(), 2u) << "guest " << i;
    }
}

// A guest that jumps to address 0 is stopped there (nothing is mapped at
// 0), and reported, at once: it neither hangs the host nor passes.
TEST(PmvpSoc, AGuestThatJumpsToZeroIsStopped)
{
    std::string image = temp_file("jump-zero.elf"), path = temp_file("jump-zero.json");
    std::ofstream(image, std::ios::binary) << tiny_image({ 0xD2800000 /* movz x0, #0 */, 0xD61F0000 /* br x0 */ });
    std::ofstream(path) << R"({ "name": "jump-zero", "duration": "20 ms", "clusters": [ { "processor_hz": "1 GHz",
        "cpu": { "model": "iss", "firmware": ")"
                        << image << R"(" } } ] })";
    SocRun r = pmvp_soc("--time 20ms " + path);  // 2 hours of host time when it hung
    EXPECT_EQ(r.status, 1) << r.err;
    const json &pe = r.result["pes"][0];
    EXPECT_EQ(pe["status"].get<unsigned>(), 0xEEu);
    EXPECT_EQ(pe["instructions"].get<uint64_t>(), 2u);
    EXPECT_NE(pe["console"].get<std::string>().find("[pmvp: the ISS stopped: "), std::string::npos)
        << pe["console"].get<std::string>();
    EXPECT_NE(pe["console"].get<std::string>().find(" at PC 0x0]"), std::string::npos) << pe["console"];
}

// ---------------------------------------------------- checkpoint and restore

namespace {

// A run's JSON without what the host's speed decides.
json without_host_time(json j)
{
    if (j.is_object()) {
        j.erase("host_seconds");
        for (auto &[key, value] : j.items())
            value = without_host_time(value);
    } else if (j.is_array()) {
        for (auto &value : j)
            value = without_host_time(value);
    }
    return j;
}

// Saves a checkpoint of `run` (pmvp-soc's arguments) at `at` ps, then
// restores it: the saving run and the restored one report exactly what the
// uninterrupted run `whole` reported.
void expect_resumes_exactly(const std::string &run, const SocRun &whole, pmvp_time at)
{
    std::string ck = temp_file("checkpoint");
    SocRun saving = pmvp_soc(run + " --quiet --save-at " + std::to_string(at) + "ps " + ck);
    ASSERT_EQ(saving.status, whole.status) << saving.err;
    EXPECT_EQ(without_host_time(saving.result), without_host_time(whole.result)) << "saving at " << at << " ps";
    SocRun restored = pmvp_soc("--quiet --restore " + ck);
    ASSERT_EQ(restored.status, whole.status) << "restored at " << at << " ps: " << restored.err;
    EXPECT_EQ(without_host_time(restored.result), without_host_time(whole.result)) << "restored at " << at << " ps";
}

std::string test_scenario(const std::string &name)
{
    return std::string(PMVP_TEST_DATA) + "/scenarios/" + name + ".json";
}

}  // namespace

// Every shipped scenario, saved at 3/7 of its run (of its first 700 us:
// the guests of firmware-pmu-suite exit before 500 us) and restored.
class SavedAndRestored : public ::testing::TestWithParam<const char *> {};

TEST_P(SavedAndRestored, CountsAsTheUninterruptedRun)
{
    const std::string path = scenario(GetParam());
    pmvp::soc::Scenario s = pmvp::soc::parse_scenario(slurp(path), path);
    SocRun whole = pmvp_soc(path + " --quiet");
    ASSERT_EQ(whole.status, 0) << whole.err;
    expect_resumes_exactly(path, whole, std::min<pmvp_time>(s.duration, 700000000) * 3 / 7);
}

// Every shipped scenario; the firmware ones only where the firmware is built.
const char *const kSavedScenarios[] = {
    "amu-effective-frequency",
    "default",
    "dvfs-steps",
    "fgmt-barrel",
    "freeze-sampling",
    "large-soc",
    "power-and-el2",
    "sampling-profiler",
    "secure-prohibited",
    "smt-wfi",
    "soemt-switch",
    "sebep-sampling",
    "sebep-instruction-counter",
    "threshold-stalls",
    "threshold-ipc",
    "x86-hyperthreads",
    "external-agent",
#ifdef PMVP_HAVE_FIRMWARE
    "firmware-pmu-suite",
    "mixed-soc",
#endif
};

INSTANTIATE_TEST_SUITE_P(PmvpSoc, SavedAndRestored, ::testing::ValuesIn(kSavedScenarios),
                         [](const ::testing::TestParamInfo<const char *> &p) {
                             std::string n = p.param;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

// Checkpoints taken where the platform's processes are in the middle of
// something: a handler waiting out its 20 us latency, an interrupt deferred
// while its PE is off, a thread asleep or off, a SoEMT switch, the instant
// of a DVFS step and the picoseconds around it, quantum boundaries.
TEST(PmvpSoc, CheckpointsLandingInTheMiddleOfThings)
{
    const std::string path = test_scenario("checkpoint-interleavings");
    SocRun whole = pmvp_soc(path + " --quiet");
    ASSERT_EQ(whole.status, 0) << whole.err;
    std::vector<pmvp_time> at = { 1, 7000000, 70000000, 249999999, 250000000, 250000001, 599999999 };
    std::mt19937_64 rng(2026);
    for (int i = 0; i < 16; i++)
        at.push_back(1 + rng() % 599999999);
    for (pmvp_time t : at)
        expect_resumes_exactly(path, whole, t);
}

// A restored run can save again, and that checkpoint restores too; a run
// saved under command-line overrides restores with them.
TEST(PmvpSoc, CheckpointsChainAndKeepTheOverrides)
{
    const std::string run = scenario("default") + " --quantum 3us --frequency 1.5GHz --time 400us";
    SocRun whole = pmvp_soc(run + " --quiet");
    ASSERT_EQ(whole.status, 0) << whole.err;
    std::string first = temp_file("first"), second = temp_file("second");
    ASSERT_EQ(pmvp_soc(run + " --quiet --save-at 100us " + first).status, 0);
    SocRun again = pmvp_soc("--quiet --restore " + first + " --save-at 250us " + second);
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_EQ(without_host_time(again.result), without_host_time(whole.result));
    SocRun last = pmvp_soc("--quiet --restore " + second);
    ASSERT_EQ(last.status, 0) << last.err;
    EXPECT_EQ(without_host_time(last.result), without_host_time(whole.result));
}

// A checkpoint that cannot be used, or a request that cannot be met, is
// refused before anything runs, saying why (exit status 2).
TEST(PmvpSoc, CheckpointRefusals)
{
    std::string ck = temp_file("checkpoint"), bad = temp_file("bad");
    ASSERT_EQ(pmvp_soc(scenario("default") + " --quiet --save-at 300us " + ck).status, 0);
    std::string bytes = slurp(ck);
    ASSERT_GT(bytes.size(), 1000u);
    auto write = [&](const std::string &content) { std::ofstream(bad, std::ios::binary) << content; };
    auto refused = [&](const std::string &args, const std::string &why) {
        SocRun r = pmvp_soc(args, false);
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_NE(r.err.find(why), std::string::npos) << args << ": " << r.err;
    };
    std::string flipped = bytes;
    flipped[bytes.size() / 2] ^= 0x10;
    write(flipped);
    refused("--restore " + bad, "corrupt");
    write(bytes.substr(0, bytes.size() - 100));
    refused("--restore " + bad, "corrupt or truncated");
    write(bytes.substr(0, 12));
    refused("--restore " + bad, "truncated");
    write(slurp(scenario("default")));
    refused("--restore " + bad, "not a pmvp-soc checkpoint");
    refused("--restore " + temp_file("missing"), "cannot be read");
    refused("--restore " + ck + " " + scenario("default"), "the checkpoint holds the run's scenario");
    refused("--restore " + ck + " --time 2ms", "the checkpoint holds the run's scenario");
    refused("--restore " + ck + " --check", "--check");
    refused("--restore " + ck + " --save-at 200us " + bad, "after the restored checkpoint's, 300 us");
    refused(scenario("default") + " --save-at 1ms " + bad, "before the end of the run, 1 ms");
    refused(scenario("default") + " --save-at 0us " + bad, "after 0 ps");
    refused(scenario("default") + " --detached --save-at 10us " + bad, "--detached");
    refused(scenario("default") + " --save-at 10us /nonexistent/dir/ck", "cannot be written");
#ifdef PMVP_HAVE_FIRMWARE
    // Its guests all exit at about 491 us, and its run ends there.
    refused(scenario("firmware-pmu-suite") + " --save-at 600us " + bad, "the run ended at");
#endif
}

namespace {

// The scope of an interval's JSON by name ("PE 0", "core 1", "SoC").
const json &interval_scope(const json &interval, const std::string &name)
{
    for (const json &s : interval["scopes"])
        if (s["scope"] == name)
            return s;
    ADD_FAILURE() << "no scope " << name << " in " << interval.dump();
    static const json none = json::object();
    return none;
}

// Every count of a scope's JSON (PMU counters, samples, AMU, interrupts),
// flattened in one order, for sums.
std::vector<uint64_t> all_counts(const json &scope)
{
    std::vector<uint64_t> v;
    if (scope["pmu"].contains("PMCCNTR_EL0"))
        v.push_back(scope["pmu"]["PMCCNTR_EL0"].get<uint64_t>());
    for (const json &c : scope["pmu"]["counters"]) {
        v.push_back(c["counted"].get<uint64_t>());
        v.push_back(c["samples"].get<uint64_t>());
    }
    if (scope.contains("amu"))
        for (const auto &[name, value] : scope["amu"].items())
            v.push_back(value.get<uint64_t>());
    v.push_back(scope["interrupts"].get<uint64_t>());
    return v;
}

// The intervals of a run at --detail pe add up to its report, PE by PE.
void expect_intervals_add_up(const SocRun &r)
{
    for (const json &pe : r.result["pes"]) {
        std::string name = "PE " + std::to_string(pe["pe"].get<unsigned>());
        std::vector<uint64_t> sum(all_counts(pe).size());
        for (const json &k : r.result["intervals"]) {
            std::vector<uint64_t> c = all_counts(interval_scope(k, name));
            ASSERT_EQ(c.size(), sum.size());
            for (size_t i = 0; i < c.size(); i++)
                sum[i] += c[i];
        }
        EXPECT_EQ(sum, all_counts(pe)) << name;
    }
}

}  // namespace

// perf stat -I: the default scenario in intervals of 100 us. Each interval
// counts what the scenario makes of its 100 us, and the intervals add up to
// the report, count for count, PE by PE, with the interval sampling leaving
// the run as it was (--check agrees, the final counts are unchanged).
TEST(PmvpSoc, IntervalsCountEachSpanAndAddUpToTheReport)
{
    SocRun plain = pmvp_soc("--quiet");
    ASSERT_EQ(plain.status, 0) << plain.err;
    SocRun r = pmvp_soc("-I 100us --check");
    expect_checked(r);
    EXPECT_EQ(r.result["pes"], plain.result["pes"]);
    ASSERT_EQ(r.result["interval_ps"].get<uint64_t>(), 100000000u);
    const json &iv = r.result["intervals"];
    ASSERT_EQ(iv.size(), 10u);
    for (size_t k = 0; k < iv.size(); k++) {
        EXPECT_EQ(iv[k]["start_ps"].get<uint64_t>(), k * 100000000u);
        EXPECT_EQ(iv[k]["end_ps"].get<uint64_t>(), (k + 1) * 100000000u);
    }
    // PE 0: 100 us at 2 GHz until the DVFS step at 600 us, then at 1.5 GHz.
    EXPECT_EQ(pmccntr(interval_scope(iv[0], "PE 0")), 200000u);
    EXPECT_EQ(pmccntr(interval_scope(iv[6], "PE 0")), 150000u);
    // PE 1 runs 150 us of every 200: 100 us in [0, 100), 50 us in [100, 200).
    EXPECT_EQ(counted(interval_scope(iv[0], "PE 1"), 0), 200000u);
    EXPECT_EQ(counted(interval_scope(iv[1], "PE 1"), 0), 100000u);
    // PE 4 (little, 1 GHz) runs 200 us of every 500: none of [200, 300).
    EXPECT_EQ(pmccntr(interval_scope(iv[1], "PE 4")), 100000u);
    EXPECT_EQ(pmccntr(interval_scope(iv[2], "PE 4")), 0u);
    EXPECT_DOUBLE_EQ(interval_scope(iv[0], "PE 0")["metrics"]["ipc"].get<double>(), 2.0);

    expect_intervals_add_up(r);
    // Intervals that do not divide the run, a handler 200 ns late (an
    // interval can end between an overflow and its handler), PEs off.
    for (const char *name : { "sampling-profiler", "power-and-el2" }) {
        SocRun odd = pmvp_soc(scenario(name) + " --quiet --detail pe -I 7us");
        ASSERT_EQ(odd.status, 0) << odd.err;
        ASSERT_EQ(odd.result["intervals"].size(), 143u) << name;  // the last one 6 us long
        expect_intervals_add_up(odd);
    }
    // The readable lines, one interval after another, like perf stat -I.
    EXPECT_NE(r.out.find("    0.000100000  PE 0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("    0.001000000  SoC"), std::string::npos) << r.out;
    EXPECT_LT(r.out.find("0.000100000"), r.out.find("0.000200000"));
}

// Intervals of a restored run start at its checkpoint, and from the first
// multiple of the interval on are those of the uninterrupted run; an
// interrupted run's last interval ends where it was interrupted.
TEST(PmvpSoc, IntervalsOfARestoredRun)
{
    SocRun whole = pmvp_soc("--quiet -I 100us");
    ASSERT_EQ(whole.status, 0) << whole.err;
    std::string ck = temp_file("checkpoint");
    SocRun saving = pmvp_soc("--quiet --save-at 450us " + ck);
    ASSERT_EQ(saving.status, 0) << saving.err;
    SocRun restored = pmvp_soc("--quiet -I 100us --restore " + ck);
    ASSERT_EQ(restored.status, 0) << restored.err;
    const json &iv = restored.result["intervals"];
    ASSERT_EQ(iv.size(), 6u);
    EXPECT_EQ(iv[0]["start_ps"].get<uint64_t>(), 450000000u);
    EXPECT_EQ(iv[0]["end_ps"].get<uint64_t>(), 500000000u);
    EXPECT_EQ(pmccntr(interval_scope(iv[0], "PE 0")), 100000u);  // 50 us at 2 GHz
    for (size_t k = 1; k < iv.size(); k++)
        EXPECT_EQ(iv[k], whole.result["intervals"][k + 4]) << k;
}

// -x: the report and the intervals as CSV, a header row first, a field
// holding the separator quoted; metrics in the unit the readable report
// shows them in.
TEST(PmvpSoc, CsvOutput)
{
    SocRun r = pmvp_soc("-x, --detail soc", false);
    ASSERT_EQ(r.status, 0) << r.err;
    std::istringstream lines(r.out);
    std::string header, line;
    std::getline(lines, header);
    EXPECT_EQ(header, "scope,value,register,event,metric_value,metric_unit");
    // 4 big PEs x 1,800,000 cycles + 2 little ones x 400,000.
    EXPECT_NE(r.out.find("SoC,8000000,PMCCNTR_EL0,cycle counter,,\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"INST_RETIRED, sampled every 500000\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(",% of cycles stalled in the backend\n"), std::string::npos) << r.out;
    unsigned rows = 0;
    while (std::getline(lines, line))
        rows++;
    EXPECT_EQ(rows, 11u);  // cycle counter, 5 counters, 4 AMU counters, PMUIRQ

    r = pmvp_soc("-x ';' -I 500us --detail core", false);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("time_s;scope;value;register;event;metric_value;metric_unit\n", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("0.000500000;core 0;2000000;PMCCNTR_EL0;cycle counter;;\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("0.001000000;core 3;"), std::string::npos) << r.out;

    r = pmvp_soc("-x '\"' --quiet", false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--field-separator: expected a separator"), std::string::npos) << r.err;
}

// --plot: a picture of the intervals, drawn by gnuplot; the picture's kind
// and gnuplot's presence are checked before the run.
TEST(PmvpSoc, PlotOfTheIntervals)
{
    std::string png = temp_file("plot.png"), svg = temp_file("plot.svg");
    SocRun r = pmvp_soc("--quiet --plot " + png);
    ASSERT_EQ(r.status, 0) << r.err;
    std::string picture = slurp(png);
    ASSERT_GT(picture.size(), 1000u);
    EXPECT_EQ(picture.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(r.result["intervals"].size(), 100u);  // 100 intervals without -I

    r = pmvp_soc("--quiet -I 250us --plot " + svg);
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = slurp(svg);
    EXPECT_NE(text.find("<svg"), std::string::npos);
    EXPECT_NE(text.find("PMEVCNTR1_EL0 (INST_RETIRED)"), std::string::npos);
    EXPECT_NE(text.find("insn per cycle"), std::string::npos);

    r = pmvp_soc("--quiet --plot " + temp_file("plot.jpg"), false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("must end in .png, .svg or .pdf"), std::string::npos) << r.err;
    {
        std::string out = temp_file("out"), err = temp_file("err");
        int rc = std::system(
            ("PATH=/nonexistent " + std::string(PMVP_SOC) + " --quiet --plot " + png + " >" + out + " 2>" + err)
                .c_str());
        EXPECT_EQ(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 2);
        EXPECT_NE(slurp(err).find("gnuplot draws the picture and is not installed"), std::string::npos) << slurp(err);
    }
}

// A picture with nothing to draw in a panel leaves the panel empty, with a
// word; a picture gnuplot fails to draw (exit 3) still leaves the run's
// JSON whole, written before it.
TEST(PmvpSoc, PlotWithoutIpcAndAFailedPlotKeepTheData)
{
    std::string path = temp_file("no-ipc.json"), svg = temp_file("no-ipc.svg");
    std::ofstream(path) << R"({ "name": "no-ipc", "duration": "100 us",
        "clusters": [ { "processor_hz": "1 GHz", "feat_amuv1": false,
          "workloads": [ { "phases": [ { "run": "100 us", "ipc": 1.5 } ] } ] } ],
        "firmware": { "counters": [ { "counter": 0, "event": "INST_RETIRED" } ] } })";
    SocRun r = pmvp_soc(path + " --quiet --plot " + svg);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(slurp(svg).find("no IPC: no counter of CPU_CYCLES and no AMU"), std::string::npos);
    EXPECT_EQ(r.result["intervals"].size(), 100u);
    EXPECT_EQ(r.err, "");  // nor a word of gnuplot's
    // A gnuplot that fails.
    std::string bin = temp_file("failing-gnuplot");
    std::filesystem::create_directories(bin);
    std::ofstream(bin + "/gnuplot") << "#!/bin/sh\nexit 1\n";
    std::filesystem::permissions(bin + "/gnuplot", std::filesystem::perms::owner_all);
    std::string js = temp_file("kept.json"), err = temp_file("err");
    int rc = std::system(("PATH=" + bin + ":$PATH " + std::string(PMVP_SOC) + " " + path + " --quiet --plot " + svg +
                          " --json " + js + " 2>" + err)
                             .c_str());
    EXPECT_EQ(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 3);
    EXPECT_NE(slurp(err).find("pmvp-soc: --plot: gnuplot failed"), std::string::npos) << slurp(err);
    json kept = json::parse(slurp(js), nullptr, false);
    ASSERT_FALSE(kept.is_discarded());
    EXPECT_EQ(counted(kept["pes"][0], 0), 150000u);
}

TEST(PmvpSoc, IntervalRefusals)
{
    struct Case {
        const char *args, *says;
    } cases[] = {
        { "-I 0ps", "--interval: must be longer than 0 ps" },
        { "-I 2ms", "--interval: 2 ms is longer than the run (1 ms)" },
        { "-I 1ns", "at most 10000 are printed" },
        { "-I 100us --detached", "nothing to --check, --json, --vcd, --save-at, --interval or --plot" },
    };
    for (const Case &c : cases) {
        SocRun r = pmvp_soc(std::string(c.args) + " --quiet", false);
        EXPECT_EQ(r.status, 2) << c.args;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << ": " << r.err;
    }
    SocRun r = pmvp_soc(scenario("x86-hyperthreads") + " -I 100us --quiet", false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("apply to Arm cluster scenarios only"), std::string::npos) << r.err;
}

// A core description with two AMU auxiliary counters, in a scenario: the
// firmware at boot enables them (AMCNTENSET1_EL0) and the report gives
// what they counted, per PE and summed where every PE counts the same
// events (not over the SoC, whose other cluster has none); the reference
// model agrees, and the intervals carry them too.
TEST(PmvpSoc, AmuAuxiliaryCountersOfACoreDescription)
{
    std::string path = temp_file("aux.json");
    std::ofstream(path) << R"({
  "name": "aux", "duration": "100 us",
  "clusters": [
    { "name": "aux", "cores": 1, "num_pes": 2, "processor_hz": "1 GHz",
      "core": { "pmu_version": "PMUv3p4", "num_pes": 2, "amu_num_aux": 2,
                "amu_aux_event": [ "INST_RETIRED", "STALL_BACKEND_MEM" ] },
      "workloads": [ { "phases": [ { "run": "100 us", "ipc": 1.5, "stall_backend": 0.4, "stall_backend_mem": 0.25 } ] } ] },
    { "name": "plain", "cores": 1, "num_pes": 1, "processor_hz": "1 GHz",
      "workloads": [ { "phases": [ { "run": "100 us", "ipc": 1 } ] } ] } ],
  "firmware": { "counters": [ { "counter": 0, "event": "INST_RETIRED" } ], "cycle_counter": { "enabled": true } }
})";
    SocRun r = pmvp_soc(path + " --check -I 30us --detail pe");
    expect_checked(r);
    const json &pe0 = r.result["pes"][0];
    ASSERT_EQ(pe0["amu_aux"].size(), 2u) << pe0.dump();
    EXPECT_EQ(pe0["amu_aux"][0]["event"], "INST_RETIRED");
    EXPECT_EQ(pe0["amu_aux"][0]["counted"].get<uint64_t>(), 150000u);  // 100 us at 1 GHz, IPC 1.5
    EXPECT_EQ(pe0["amu_aux"][1]["counted"].get<uint64_t>(), 25000u);   // 25 % of 100,000 cycles
    EXPECT_FALSE(r.result["pes"][2].contains("amu_aux"));
    EXPECT_EQ(r.result["cores"][0]["amu_aux"][0]["counted"].get<uint64_t>(), 300000u);
    EXPECT_FALSE(r.result["soc"].contains("amu_aux"));  // the clusters' auxiliary counters differ
    EXPECT_NE(r.out.find("AMEVCNTR11_EL0     STALL_BACKEND_MEM (AMU auxiliary)"), std::string::npos) << r.out;
    uint64_t sum = 0;
    for (const json &k : r.result["intervals"])
        sum += interval_scope(k, "PE 1")["amu_aux"][0]["counted"].get<uint64_t>();
    EXPECT_EQ(sum, r.result["pes"][1]["amu_aux"][0]["counted"].get<uint64_t>());
}
