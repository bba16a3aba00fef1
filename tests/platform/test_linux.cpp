// SPDX-License-Identifier: Apache-2.0
//
// Debian's own arm64 kernel and perf on the virt machine (docs/LINUX.md):
// the image set of scripts/linux-image.sh (CTest's fixture linux.image_set
// makes it) booted in platform/scenarios/linux-perf.json, Linux's PMU driver
// reading pmvp's PMU. perf's counts of the workload are held to the count
// its code implies.
#include <algorithm>
#include <cstdint>
#include <regex>
#include <string>

#include "soc_run.h"

namespace {

// The workload's EL0 instructions, from its source: two MOVs of the
// iteration count, eight instructions an iteration, three for the exit
// (firmware/linux/workload.S says so beside its code).
uint64_t workload_instructions()
{
    std::smatch m;
    const std::string source = slurp(PMVP_LINUX_WORKLOAD);
    if (!std::regex_search(source, m, std::regex("#define ITERATIONS ([0-9]+)")))
        return 0;
    return 2 + 8 * std::stoull(m[1]) + 3;
}

// perf stat -x,'s count of `event` (its CSV line "count,,event,...").
uint64_t perf_stat(const std::string &console, const std::string &event)
{
    std::smatch m;
    if (!std::regex_search(console, m, std::regex("\n([0-9]+),,(" + event + "),")))
        return 0;
    return std::stoull(m[1]);
}

}  // namespace

TEST(Linux, PerfCountsTheWorkloadExactlyThroughLinuxsDriver)
{
    const std::string images = PMVP_LINUX_IMAGES;
    SocRun r = pmvp_soc(scenario("linux-perf") + " --kernel " + images + "/Image --initrd " + images +
                        "/initrd.cpio.gz --quiet");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const json &s = json::parse(slurp(scenario("linux-perf")));
    const uint64_t cpi = s["clusters"][0]["cpu"]["cpi"], counters = s["clusters"][0]["num_counters"];
    std::string console = r.result["console"];
    console.erase(std::remove(console.begin(), console.end(), '\r'), console.end());  // the tty's CR LF
    // Linux brought every PE up, and warned of nothing.
    const json &cluster = s["clusters"][0];
    const unsigned cpus = cluster["cores"].get<unsigned>() * cluster.value("num_pes", 1u);
    EXPECT_NE(console.find("smp: Brought up 1 node, " + std::to_string(cpus) + " CPUs\n"), std::string::npos)
        << console;
    EXPECT_EQ(console.find("WARNING:"), std::string::npos) << console;
    // The driver found the scenario's event counters and the cycle counter.
    EXPECT_NE(console.find("hw perfevents: enabled with armv8_pmuv3 PMU driver, " + std::to_string(counters + 1) +
                           " counters available\n"),
              std::string::npos)
        << console;
    const uint64_t instructions = workload_instructions();
    ASSERT_EQ(instructions, 8000005u);
    EXPECT_EQ(perf_stat(console, "instructions:u"), instructions) << console;
    EXPECT_EQ(perf_stat(console, "cycles:u"), instructions * cpi) << console;
    // perf record -c 1000000: a sample at each millionth EL0 instruction,
    // all of them in the workload's _start.
    EXPECT_NE(console.find("Samples: " + std::to_string(instructions / 1000000) + "  of event 'instructions:u'"),
              std::string::npos)
        << console;
    EXPECT_NE(console.find("100.00%  workload  workload       [.] _start"), std::string::npos) << console;
    EXPECT_NE(console.find("== pmvp-linux: end\n"), std::string::npos) << console;
    for (const json &pe : r.result["pes"])
        EXPECT_EQ(pe["ended_by"], "PSCI SYSTEM_OFF") << pe["pe"];
}

// The same image set booted by a boot line written for QEMU, through
// pmvp-qemu-system-aarch64, on a GICv3: its console raw on standard output,
// Linux's GICv3 driver finding every redistributor, perf's count exact.
TEST(Linux, AQemuBootLineOnAGicv3RunsUnchanged)
{
    const std::string images = PMVP_LINUX_IMAGES, out = temp_file("qemu.out"), err = temp_file("qemu.err");
    const std::string line = std::string(PMVP_QEMU) +
                             " -M virt,gic-version=3 -cpu max -smp 4 -m 512M -nographic -kernel " + images +
                             "/Image -initrd " + images + "/initrd.cpio.gz -append 'console=ttyAMA0 panic=-1'";
    const int rc = std::system((line + " >" + out + " 2>" + err + " </dev/null").c_str());
    ASSERT_TRUE(WIFEXITED(rc));
    EXPECT_EQ(WEXITSTATUS(rc), 0) << "PSCI SYSTEM_OFF";
    EXPECT_EQ(slurp(err), "");
    std::string console = slurp(out);
    console.erase(std::remove(console.begin(), console.end(), '\r'), console.end());
    EXPECT_NE(console.find("GICv3: CPU3: found redistributor 3 region 0:0x0000000008100000\n"), std::string::npos)
        << console;
    EXPECT_NE(console.find("smp: Brought up 1 node, 4 CPUs\n"), std::string::npos) << console;
    EXPECT_EQ(console.find("WARNING:"), std::string::npos) << console;
    EXPECT_EQ(perf_stat(console, "instructions:u"), workload_instructions()) << console;
    EXPECT_EQ(perf_stat(console, "cycles:u"), workload_instructions()) << "CPI 1 at -cpu max" << console;
    EXPECT_NE(console.find("== pmvp-linux: end\n"), std::string::npos) << console;
}
