// SPDX-License-Identifier: Apache-2.0
//
// Polling loops (platform/a64/polling.h): the analysis of an iteration, rule
// by rule, and the fast-forward end to end, held to the run that retires
// every iteration one by one (--no-fast-forward), report for report. The
// words are the GNU assembler's encodings of the instructions named beside
// them.
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "polling.h"
#include "soc_run.h"

using namespace pmvp::soc;

namespace {

// Guest code at given addresses and its registers, as the analysis reads them.
struct Fake {
    std::map<uint64_t, uint32_t> code;
    uint64_t x[31] = {};
    Fake(uint64_t at, const std::vector<uint32_t> &words)
    {
        for (uint32_t w : words) {
            code[at] = w;
            at += 4;
        }
    }
    poll::Code reader()
    {
        return { [](void *ctx, uint64_t pc, uint32_t &insn) {
                    auto &g = *static_cast<Fake *>(ctx);
                    auto it = g.code.find(pc);
                    if (it == g.code.end())
                        return false;
                    insn = it->second;
                    return true;
                },
                 [](void *ctx, unsigned n) { return static_cast<Fake *>(ctx)->x[n]; }, this };
    }
    bool analyse(uint64_t pc, unsigned rt, uint64_t c0, poll::Loop &loop)
    {
        return poll::analyse(reader(), pc, rt, c0, loop);
    }
};

// kvm-unit-tests' mdelay(), as GCC compiles it: x2 the start, x1 the ticks.
const std::vector<uint32_t> kMdelay = {
    0xd503203f,  // 0x738c yield
    0xd5033fdf,  //        isb
    0xd53be040,  // 0x7394 mrs x0, cntvct_el0
    0xcb020000,  //        sub x0, x0, x2
    0xeb00003f,  //        cmp x1, x0
    0x54ffff68,  //        b.hi 0x738c
};

TEST(PollingLoop, KvmUnitTestsDelayIsOneIterationOfSixInstructions)
{
    Fake g(0x738c, kMdelay);
    g.x[2] = 1000;
    g.x[1] = 500;
    poll::Loop loop;
    ASSERT_TRUE(g.analyse(0x7394, 0, 1200, loop));
    EXPECT_EQ(loop.length, 6u);
    EXPECT_EQ(loop.count[a64::INST_RETIRED], 6u);
    EXPECT_EQ(loop.count[a64::BR_RETIRED], 1u) << "B.HI";
    EXPECT_EQ(loop.count[a64::PC_WRITE_RETIRED], 1u) << "B.HI, taken";
    EXPECT_EQ(loop.count[a64::ISB_SPEC], 1u);
    EXPECT_EQ(loop.count[a64::LD_RETIRED], 0u);
    // cmp x1, x0 compares 500 with c - 1000: the flags stay as they are
    // until c - 1000 comes next to 500 (c 1499), and the loop ends at 1500.
    EXPECT_EQ(loop.below, 1499u);
    for (uint64_t c = 1200; c < loop.below; c++) {
        poll::Loop again;
        ASSERT_TRUE(g.analyse(0x7394, 0, c, again)) << c;
        EXPECT_EQ(again.length, 6u);
    }
    poll::Loop last;
    EXPECT_TRUE(g.analyse(0x7394, 0, 1499, last)) << "500 > 499: round again";
    EXPECT_FALSE(g.analyse(0x7394, 0, 1500, last)) << "500 > 500 fails: the loop is left";
}

TEST(PollingLoop, AStartAboveTheCounterWrapsAndIsFollowed)
{
    // sub x0, x0, x2 with x2 near 2^64: x0 = c + 10 passes 0 nowhere near.
    Fake g(0x738c, kMdelay);
    g.x[2] = ~uint64_t{ 0 } - 9;
    g.x[1] = 100;
    poll::Loop loop;
    ASSERT_TRUE(g.analyse(0x7394, 0, 5, loop));
    EXPECT_EQ(loop.below, 89u) << "c + 10 comes next to 100 at c 89";
    EXPECT_FALSE(g.analyse(0x7394, 0, 90, loop));
}

TEST(PollingLoop, CbnzOnTheCounterWaitsForAValue)
{
    // 0x1000: mrs x3, cntpct_el0; sub x4, x3, x5; cbnz x4, 0x1000 (round
    // until the counter holds x5)
    Fake g(0x1000, { 0xd53be023, 0xcb050064, 0xb5ffffc4 });
    g.x[5] = 5000;
    poll::Loop loop;
    ASSERT_TRUE(g.analyse(0x1000, 3, 10, loop));
    EXPECT_EQ(loop.length, 3u);
    EXPECT_EQ(loop.below, 4999u);
    EXPECT_EQ(loop.count[a64::PC_WRITE_RETIRED], 1u);
}

TEST(PollingLoop, ALoopWhoseWayDependsOnNoCounterRunsToTheLimit)
{
    // mrs xzr, cntvct_el0; b .-4: nothing depends on the counter
    Fake g(0x2000, { 0xd53be05f, 0x17ffffff });
    poll::Loop loop;
    ASSERT_TRUE(g.analyse(0x2000, 31, 7, loop));
    EXPECT_EQ(loop.length, 2u);
    EXPECT_EQ(loop.below, UINT64_MAX);
}

// What the analysis refuses, each with the rule it breaks.
TEST(PollingLoop, IterationsThatCarryStateOrTouchMemoryAreNotFastForwarded)
{
    struct Case {
        const char *why;
        std::vector<uint32_t> words;  // at 0x3000; the read first
    };
    const Case cases[] = {
        { "a load (ldr x5, [x6])", { 0xd53be040, 0xf94000c5, 0xcb020000, 0xeb00003f, 0x54ffff88 } },
        { "a register read, then written (add x7, x7, #1: an iteration count)",
          { 0xd53be040, 0x910004e7, 0xcb020000, 0xeb00003f, 0x54ffff88 } },
        { "the flags read before they are set (b.hi first)", { 0xd53be040, 0x54ffffe8 } },
        { "a 32-bit subtraction (sub w0, w0, w2)", { 0xd53be040, 0x4b020000, 0xeb00003f, 0x54ffffa8 } },
        { "a register first written after the exit branch (mov x8, x0)",
          { 0xd53be040, 0xcb020000, 0xeb00003f, 0x54000048, 0x14000002, 0xaa0003e8, 0x17fffffa } },
        { "another System register (mrs x9, tpidr_el0)",
          { 0xd53be040, 0xd53bd049, 0xcb020000, 0xeb00003f, 0x54ffff88 } },
        { "c + c (add x0, x0, x0)", { 0xd53be040, 0x8b000000, 0xeb00003f, 0x54ffffa8 } },
    };
    for (const Case &k : cases) {
        Fake g(0x3000, k.words);
        g.x[1] = 1000;
        poll::Loop loop;
        EXPECT_FALSE(g.analyse(0x3000, 0, 10, loop)) << k.why;
    }
    Fake far(0x4000, { 0xd53be040 });
    for (int i = 0; i < 40; i++)
        far.code[0x4004 + 4 * i] = 0xd503201f;  // 40 NOPs, then nothing: never back
    poll::Loop loop;
    EXPECT_FALSE(far.analyse(0x4000, 0, 10, loop));
    Fake wrong(0x5000, { 0xd53be041, 0x17ffffff });
    EXPECT_FALSE(wrong.analyse(0x5000, 0, 10, loop)) << "the word at the PC reads into X1, not X0";
}

// --- End to end: random polling loops, fast-forwarded and not ---

// A64 encodings of what the generator writes.
uint32_t movz(unsigned d, uint16_t imm, unsigned hw)
{
    return 0xd2800000 | hw << 21 | (uint32_t)imm << 5 | d;
}
uint32_t movk(unsigned d, uint16_t imm, unsigned hw)
{
    return 0xf2800000 | hw << 21 | (uint32_t)imm << 5 | d;
}
uint32_t msr(unsigned op1, unsigned crn, unsigned crm, unsigned op2, unsigned t)
{
    return 0xd5100000 | 1u << 19 | op1 << 16 | crn << 12 | crm << 8 | op2 << 5 | t;
}
uint32_t addsub_imm(bool sub, bool s, unsigned d, unsigned n, unsigned imm)
{
    return 0x91000000 | (uint32_t)sub << 30 | (uint32_t)s << 29 | imm << 10 | n << 5 | d;
}
uint32_t addsub_reg(bool sub, bool s, unsigned d, unsigned n, unsigned m)
{
    return 0x8b000000 | (uint32_t)sub << 30 | (uint32_t)s << 29 | m << 16 | n << 5 | d;
}
uint32_t b_cond(unsigned cond, int64_t words)
{
    return 0x54000000 | ((uint32_t)words & 0x7FFFF) << 5 | cond;
}
uint32_t b(int64_t words)
{
    return 0x14000000 | ((uint32_t)words & 0x3FFFFFF);
}
uint32_t cbz(bool nz, unsigned t, int64_t words)
{
    return 0xb4000000 | (uint32_t)nz << 24 | ((uint32_t)words & 0x7FFFF) << 5 | t;
}
uint32_t mrs_counter(bool virtual_count, unsigned t)
{
    return (virtual_count ? 0xd53be040 : 0xd53be020) | t;
}
constexpr uint32_t kNop = 0xd503201f, kYield = 0xd503203f, kIsb = 0xd5033fdf;

void mov64(std::vector<uint32_t> &c, unsigned d, uint64_t v)
{
    c.push_back(movz(d, (uint16_t)v, 0));
    for (unsigned hw = 1; hw < 4; hw++)
        c.push_back(movk(d, (uint16_t)(v >> (16 * hw)), hw));
}

// The PMU counting what a polling loop makes, each counter a few thousand
// counts from overflowing with its interrupt enabled (so the run watches
// the events that raise PMUIRQ): INST_RETIRED, BR_RETIRED,
// PC_WRITE_RETIRED, CPU_CYCLES, and PMCCNTR.
void program_pmu(std::vector<uint32_t> &c, std::mt19937_64 &rng)
{
    const uint16_t events[4] = { 0x08, 0x21, 0x0c, 0x11 };
    for (unsigned n = 0; n < 4; n++) {
        c.push_back(movz(0, events[n], 0));
        c.push_back(msr(3, 14, 12, n, 0));  // PMEVTYPER<n>_EL0
        mov64(c, 0, 0xFFFFFFFFull - rng() % 40000);
        c.push_back(msr(3, 14, 8, n, 0));  // PMEVCNTR<n>_EL0
    }
    c.push_back(movz(0, 0xF, 0));
    c.push_back(msr(0, 9, 14, 1, 0));  // PMINTENSET_EL1
    mov64(c, 0, 0x8000000F);
    c.push_back(msr(3, 9, 12, 1, 0));  // PMCNTENSET_EL0
    c.push_back(movz(0, 1, 0));
    c.push_back(msr(3, 9, 12, 0, 0));  // PMCR_EL0.E
}

// One polling loop: a start read, a deadline or random constants, a body of
// instructions the analysis knows (and, now and then, one it does not),
// and a conditional branch round again or out.
void polling_loop(std::vector<uint32_t> &c, std::mt19937_64 &rng)
{
    auto pick = [&](unsigned n) { return (unsigned)(rng() % n); };
    const bool vc = pick(2);
    c.push_back(kIsb);
    c.push_back(mrs_counter(vc, 2));  // x2: the start
    const uint64_t edges[] = { 0, 1ull << 63, ~uint64_t{ 0 } };
    for (unsigned r = 3; r <= 5; r++) {  // x3-x5: a deadline in ticks, or near an edge
        if (pick(3))
            mov64(c, r, 1 + rng() % 3000);
        else
            mov64(c, r, edges[pick(3)] + rng() % 64 - 32);
    }
    const size_t top = c.size();
    for (unsigned i = pick(3); i; i--)
        c.push_back(std::vector<uint32_t>{ kNop, kYield, kIsb }[pick(3)]);
    const unsigned rt = pick(2);  // x0 or x1
    c.push_back(mrs_counter(vc, rt));
    for (unsigned i = pick(3); i; i--) {
        const unsigned d = pick(6), n = pick(6), m = pick(6);
        switch (pick(7)) {
        case 0: c.push_back(addsub_imm(pick(2), false, d, n, pick(64))); break;
        case 1: c.push_back(addsub_reg(pick(2), false, d, n, m)); break;
        case 2: c.push_back(0xaa0003e0 | m << 16 | d); break;             // mov xd, xm
        case 3: c.push_back(0x4b000000 | m << 16 | n << 5 | d); break;    // sub wd, wn, wm: refused
        case 4: c.push_back(addsub_imm(false, false, 7, 7, 1)); break;    // add x7, x7, #1: refused
        default: c.push_back(addsub_reg(true, false, rt, rt, 2)); break;  // sub xrt, xrt, x2
        }
    }
    const unsigned cond = pick(14);
    if (pick(4) == 0) {
        c.push_back(cbz(pick(2), pick(6), (int64_t)top - (int64_t)c.size()));
    } else {
        c.push_back(addsub_reg(pick(2), true, 31, pick(6), pick(6)));  // cmp or cmn
        if (pick(2)) {
            c.push_back(b_cond(cond, (int64_t)top - (int64_t)c.size()));  // round while cond
        } else {
            c.push_back(b_cond(cond, 3));  // out when cond
            c.push_back(kYield);
            c.push_back(b((int64_t)top - (int64_t)c.size()));
        }
    }
}

// A raw image for the virt machine: the PMU programmed, then polling loops
// one after the other, the last followed by b . (the run ends at -t).
std::vector<uint32_t> polling_guest(std::mt19937_64 &rng)
{
    std::vector<uint32_t> c;
    program_pmu(c, rng);
    for (unsigned i = 0; i < 4; i++)
        polling_loop(c, rng);
    c.push_back(b(0));
    return c;
}

// A VCD trace's values, without its header (which dates it).
std::string trace(const std::string &path)
{
    const std::string vcd = slurp(path);
    const size_t body = vcd.find("$enddefinitions");
    return body == std::string::npos ? std::string() : vcd.substr(body);
}

// A report without what fast-forwarding itself changes.
json counts(json report)
{
    for (json &pe : report["pes"])
        pe.erase("fast_forwarded_instructions");
    return report;
}

TEST(PollingLoop, FastForwardedRunsReportWhatIterationByIterationRunsDo)
{
    std::mt19937_64 rng(66);
    const char *clocks[] = { "1GHz", "1.3GHz", "733MHz" };
    unsigned forwarded = 0;
    for (int i = 0; i < 40; i++) {
        const std::string image = raw_image("poll-" + std::to_string(i), polling_guest(rng));
        const std::string args =
            std::string("--machine virt -t 200us --quiet -f ") + clocks[i % 3] + " --kernel " + image;
        const std::string fast_vcd = temp_file("fast.vcd"), slow_vcd = temp_file("slow.vcd");
        SocRun fast = pmvp_soc(args + " --vcd " + fast_vcd),
               slow = pmvp_soc(args + " --vcd " + slow_vcd + " --no-fast-forward");
        ASSERT_EQ(fast.status, 1) << fast.err;  // the guest does not exit: the run ends at -t
        ASSERT_EQ(slow.status, 1) << slow.err;
        ASSERT_EQ(slow.result["pes"][0]["fast_forwarded_instructions"], 0);
        EXPECT_EQ(counts(fast.result), counts(slow.result)) << "guest " << i << " at " << clocks[i % 3];
        // The counters, PMUIRQ and the clock as they change, instant by instant.
        const std::string traced = trace(fast_vcd);
        EXPECT_FALSE(traced.empty());
        EXPECT_TRUE(traced == trace(slow_vcd)) << "guest " << i << " at " << clocks[i % 3];
        forwarded += fast.result["pes"][0]["fast_forwarded_instructions"] > 0;
    }
    EXPECT_GE(forwarded, 20u) << "the guests' loops were mostly fast-forwarded";
}

// The same, across DVFS steps (a run ends at each, and a block may pass
// one), at CPI 2 and 3 and with quanta that end mid-loop.
TEST(PollingLoop, FastForwardedRunsAcrossDvfsStepsReportWhatIterationByIterationRunsDo)
{
    std::mt19937_64 rng(67);
    unsigned forwarded = 0;
    for (int i = 0; i < 16; i++) {
        const std::string image = raw_image("poll-dvfs-" + std::to_string(i), polling_guest(rng)),
                          path = temp_file("dvfs.json");
        std::ofstream(path) << R"({ "name": "poll-dvfs", "duration": "300 us", "quantum": ")" << 3 + rng() % 9
                            << R"( us", "machine": { "type": "virt" }, "clusters": [ { "name": "cpu", )"
                            << R"("processor_hz": "1 GHz", "cpu": { "model": "iss", "cpi": )" << 2 + i % 2
                            << R"( }, "dvfs": [ { "at": ")" << 20 + rng() % 60
                            << R"( us", "frequency": "1.7 GHz" }, { "at": ")" << 100 + rng() % 60
                            << R"( us", "frequency": "300 MHz" }, { "at": "210 us", "frequency": "2 GHz" } ] } ] })";
        const std::string args = path + " --quiet --kernel " + image, fast_vcd = temp_file("fast.vcd"),
                          slow_vcd = temp_file("slow.vcd");
        SocRun fast = pmvp_soc(args + " --vcd " + fast_vcd),
               slow = pmvp_soc(args + " --vcd " + slow_vcd + " --no-fast-forward");
        ASSERT_EQ(fast.status, 1) << fast.err;
        ASSERT_EQ(slow.status, 1) << slow.err;
        EXPECT_EQ(counts(fast.result), counts(slow.result)) << "guest " << i;
        EXPECT_TRUE(trace(fast_vcd) == trace(slow_vcd)) << "guest " << i;
        forwarded += fast.result["pes"][0]["fast_forwarded_instructions"] > 0;
    }
    EXPECT_GE(forwarded, 8u);
}

TEST(PollingLoop, NoFastForwardIsRefusedWhereNoClusterRunsTheIss)
{
    SocRun r = pmvp_soc("--no-fast-forward -t 1us", false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--no-fast-forward: no cluster runs the ISS"), std::string::npos) << r.err;
}

}  // namespace
