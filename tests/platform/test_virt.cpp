// SPDX-License-Identifier: Apache-2.0
//
// The virt machine (docs/FIRMWARE.md, "The virt machine"): its GICv2 rule by
// rule, its device tree and loading rules, and pmvp-soc --machine virt
// booting guests: the project's firmware, and tiny raw images that end the
// run with what they saw.
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

extern "C" {
#include <libfdt.h>
}

#include "firmware_image.h"
#include "scenario.h"
#include "soc_run.h"
#include "pci.h"
#include "virt.h"

namespace {

using pmvp::soc::FirmwareImage;
using pmvp::soc::virt::Gic;

// GICv2 register offsets the tests use.
constexpr uint64_t D_CTLR = 0x000, D_ISENABLER = 0x100, D_ISPENDR = 0x200, D_ICPENDR = 0x280, D_ISACTIVER = 0x300,
                   D_IPRIORITYR = 0x400, D_ITARGETSR = 0x800, D_SGIR = 0xF00;
constexpr uint64_t C_CTLR = 0x00, C_PMR = 0x04, C_IAR = 0x0C, C_EOIR = 0x10, C_RPR = 0x14, C_DIR = 0x1000;

// A GIC with the distributor and every CPU interface on, nothing masked.
Gic gic_on(unsigned cpus)
{
    Gic g(cpus);
    g.dist_write(0, D_CTLR, 4, 1, 0);
    for (unsigned c = 0; c < cpus; c++) {
        g.cpu_write(c, C_PMR, 0xFF, 0);
        g.cpu_write(c, C_CTLR, 1, 0);
    }
    return g;
}

void enable(Gic &g, unsigned cpu, unsigned id, uint8_t priority)
{
    g.dist_write(cpu, D_ISENABLER + id / 32 * 4, 4, 1u << (id % 32), 0);
    g.dist_write(cpu, D_IPRIORITYR + id, 1, priority, 0);
}

TEST(VirtGic, APpiLineIsSignalledFromItsInstantWhileEnabledAndAboveTheMask)
{
    Gic g = gic_on(1);
    g.set_line(0, 23, true, 1000);
    EXPECT_FALSE(g.signalled(0, 1000)) << "not enabled";
    enable(g, 0, 23, 0x80);
    EXPECT_FALSE(g.signalled(0, 999)) << "before the line rose";
    EXPECT_TRUE(g.signalled(0, 1000));
    g.cpu_write(0, C_PMR, 0x80, 0);
    EXPECT_FALSE(g.signalled(0, 1000)) << "priority 0x80 is not above the mask 0x80";
    g.cpu_write(0, C_PMR, 0x81, 0);
    EXPECT_TRUE(g.signalled(0, 1000));
    g.dist_write(0, D_CTLR, 4, 0, 0);
    EXPECT_FALSE(g.signalled(0, 1000)) << "distributor off";
}

TEST(VirtGic, ALevelPpiAcknowledgedStaysPendingWhileItsLineIsHigh)
{
    Gic g = gic_on(1);
    enable(g, 0, 23, 0x80);
    g.set_line(0, 23, true, 10);
    EXPECT_EQ(g.cpu_read(0, C_IAR, 10), 23u);
    EXPECT_EQ(g.cpu_read(0, C_RPR, 10), 0x80u);
    EXPECT_FALSE(g.signalled(0, 11)) << "active: not signalled again";
    EXPECT_EQ(g.dist_read(0, D_ISPENDR, 4) >> 23 & 1, 1u) << "active and pending";
    g.cpu_write(0, C_EOIR, 23, 12);
    EXPECT_EQ(g.cpu_read(0, C_RPR, 12), 0xFFu);
    EXPECT_TRUE(g.signalled(0, 12)) << "the line is still high";
    g.set_line(0, 23, false, 13);
    EXPECT_FALSE(g.signalled(0, 13));
    EXPECT_EQ(g.dist_read(0, D_ISPENDR, 4) >> 23 & 1, 0u);
}

TEST(VirtGic, OnlyAHigherGroupPriorityPreemptsTheRunningOne)
{
    Gic g = gic_on(1);
    enable(g, 0, 40, 0x80);
    enable(g, 0, 41, 0x84);  // the same group priority as 0x80 with BPR 2 (bits [7:3])
    enable(g, 0, 42, 0x40);
    g.dist_write(0, D_ITARGETSR + 40, 4, 0x01010101, 0);
    g.dist_write(0, D_ISPENDR + 4, 4, 1u << (40 - 32), 5);
    EXPECT_EQ(g.cpu_read(0, C_IAR, 5), 40u);
    g.dist_write(0, D_ISPENDR + 4, 4, 1u << (41 - 32), 6);
    EXPECT_FALSE(g.signalled(0, 6)) << "0x84 does not preempt 0x80";
    g.dist_write(0, D_ISPENDR + 4, 4, 1u << (42 - 32), 7);
    EXPECT_TRUE(g.signalled(0, 7));
    EXPECT_EQ(g.cpu_read(0, C_IAR, 7), 42u);
    EXPECT_EQ(g.cpu_read(0, C_RPR, 7), 0x40u);
    g.cpu_write(0, C_EOIR, 42, 8);
    EXPECT_EQ(g.cpu_read(0, C_RPR, 8), 0x80u) << "back to the preempted interrupt's priority";
    g.cpu_write(0, C_EOIR, 40, 9);
    EXPECT_EQ(g.cpu_read(0, C_IAR, 9), 41u);
}

TEST(VirtGic, WithEoiModeTheDeactivationWaitsForDir)
{
    Gic g = gic_on(1);
    g.cpu_write(0, C_CTLR, 0x201, 0);  // Enable, EOImodeNS
    enable(g, 0, 5, 0x10);
    g.dist_write(0, D_SGIR, 4, 2u << 24 | 5, 0);
    EXPECT_EQ(g.cpu_read(0, C_IAR, 0), 5u);
    g.cpu_write(0, C_EOIR, 5, 1);
    EXPECT_EQ(g.cpu_read(0, C_RPR, 1), 0xFFu) << "the priority dropped";
    EXPECT_EQ(g.dist_read(0, D_ISACTIVER, 4) & (1u << 5), 1u << 5) << "still active";
    g.cpu_write(0, C_DIR, 5, 2);
    EXPECT_EQ(g.dist_read(0, D_ISACTIVER, 4) & (1u << 5), 0u);
}

TEST(VirtGic, SgisCarryTheirSenderAndEachSendersRequestIsTakenOnce)
{
    Gic g = gic_on(3);
    enable(g, 0, 3, 0x20);
    EXPECT_EQ(g.dist_write(1, D_SGIR, 4, 1u << 16 | 3, 100), 1u) << "target list: CPU 0";
    EXPECT_EQ(g.dist_write(2, D_SGIR, 4, 1u << 24 | 3, 200), 0b011u) << "all but the sender";
    EXPECT_FALSE(g.signalled(0, 99)) << "not before it was sent";
    EXPECT_EQ(g.next_pending(0, 99), 100u);
    EXPECT_EQ(g.cpu_read(0, C_IAR, 200), 1u << 10 | 3) << "the lowest sender first";
    g.cpu_write(0, C_EOIR, 1u << 10 | 3, 201);
    EXPECT_EQ(g.cpu_read(0, C_IAR, 202), 2u << 10 | 3);
    g.cpu_write(0, C_EOIR, 2u << 10 | 3, 203);
    EXPECT_EQ(g.cpu_read(0, C_IAR, 204), 1023u) << "spurious";
}

TEST(VirtGic, ClearingASoftwarePendingStateLeavesALineHigh)
{
    Gic g = gic_on(1);
    enable(g, 0, 27, 0x80);
    g.dist_write(0, D_ISPENDR, 4, 1u << 27, 10);
    g.set_line(0, 27, true, 20);
    g.dist_write(0, D_ICPENDR, 4, 1u << 27, 30);
    EXPECT_TRUE(g.signalled(0, 30)) << "the line is high";
    g.set_line(0, 27, false, 40);
    EXPECT_FALSE(g.signalled(0, 40)) << "the line fell and the latch was cleared";
}

TEST(VirtGic, RefusesMoreThanEightCpuInterfaces)
{
    EXPECT_THROW(Gic(9), std::invalid_argument);
    EXPECT_THROW(Gic(0), std::invalid_argument);
}

// ---- the device tree

std::string prop_string(const void *fdt, const char *path, const char *name)
{
    int node = fdt_path_offset(fdt, path), len = 0;
    const char *v = node < 0 ? nullptr : static_cast<const char *>(fdt_getprop(fdt, node, name, &len));
    return v ? std::string(v, (size_t)len) : "(none)";
}

std::vector<uint32_t> prop_cells(const void *fdt, const char *path, const char *name)
{
    int node = fdt_path_offset(fdt, path), len = 0;
    const fdt32_t *v = node < 0 ? nullptr : static_cast<const fdt32_t *>(fdt_getprop(fdt, node, name, &len));
    std::vector<uint32_t> cells;
    for (int i = 0; v && i < len / 4; i++)
        cells.push_back(fdt32_to_cpu(v[i]));
    return cells;
}

TEST(VirtDtb, DescribesTheMachineAsQemusVirtDoes)
{
    pmvp::soc::virt::DtbSpec spec;
    spec.memory = 256u << 20;
    spec.mpidr = { 0x81000000, 0x81000001, 0x81000100, 0x81000101 };  // 2 SMT cores of 2 threads
    spec.bootargs = "pmu-sw-incr";
    std::vector<uint8_t> dtb = pmvp::soc::virt::build_dtb(spec);
    const void *fdt = dtb.data();
    ASSERT_EQ(fdt_check_header(fdt), 0);
    EXPECT_EQ(prop_string(fdt, "/chosen", "bootargs"), std::string("pmu-sw-incr\0", 12));
    EXPECT_EQ(prop_string(fdt, "/chosen", "stdout-path"), std::string("/pl011@9000000\0", 15));
    EXPECT_EQ(prop_cells(fdt, "/memory@40000000", "reg"), (std::vector<uint32_t>{ 0, 0x40000000, 0, 256u << 20 }));
    EXPECT_EQ(prop_cells(fdt, "/cpus/cpu@101", "reg"), (std::vector<uint32_t>{ 0, 0x101 }))
        << "MPIDR's affinity fields (core 1, thread 1), as QEMU's: MT and RES1 left out";
    EXPECT_EQ(prop_string(fdt, "/cpus/cpu@0", "enable-method"), std::string("psci\0", 5));
    EXPECT_EQ(prop_string(fdt, "/cpus/cpu@102", "enable-method"), "(none)") << "no third thread";
    EXPECT_EQ(prop_string(fdt, "/psci", "method"), std::string("hvc\0", 4));
    EXPECT_EQ(prop_string(fdt, "/pl011@9000000", "compatible"), std::string("arm,pl011\0arm,primecell\0", 24));
    EXPECT_EQ(prop_string(fdt, "/intc@8000000", "compatible"), std::string("arm,cortex-a15-gic\0", 19));
    EXPECT_EQ(prop_cells(fdt, "/intc@8000000", "reg"),
              (std::vector<uint32_t>{ 0, 0x08000000, 0, 0x10000, 0, 0x08010000, 0, 0x10000 }));
    EXPECT_EQ(prop_cells(fdt, "/pmu", "interrupts"), (std::vector<uint32_t>{ 1, 7, 0xF04 }))
        << "PPI 7 (INTID 23), the 4 CPUs' mask, level-high";
    EXPECT_EQ(prop_cells(fdt, "/timer", "interrupts")[4], 14u) << "the Non-secure physical timer: PPI 14 (INTID 30)";
}

TEST(VirtDtb, TheGicv3AndTheVirtioTransportsAreDescribedAsQemuDoes)
{
    pmvp::soc::virt::DtbSpec spec;
    spec.memory = 128u << 20;
    spec.mpidr = { 0x80000000, 0x80000001 };
    spec.gic_version = 3;
    std::vector<uint8_t> dtb = pmvp::soc::virt::build_dtb(spec);
    const void *fdt = dtb.data();
    ASSERT_EQ(fdt_check_header(fdt), 0);
    EXPECT_EQ(prop_string(fdt, "/intc@8000000", "compatible"), std::string("arm,gic-v3\0", 11));
    EXPECT_EQ(prop_cells(fdt, "/intc@8000000", "reg"),
              (std::vector<uint32_t>{ 0, 0x08000000, 0, 0x10000, 0, 0x080A0000, 0, 2 * 0x20000 }))
        << "the distributor, then one redistributor region of a frame pair a PE";
    EXPECT_EQ(prop_cells(fdt, "/pmu", "interrupts"), (std::vector<uint32_t>{ 1, 7, 4 })) << "no CPU mask with a GICv3";
    EXPECT_EQ(prop_cells(fdt, "/virtio_mmio@a000000", "interrupts"), (std::vector<uint32_t>{ 0, 16, 1 }));
    EXPECT_EQ(prop_cells(fdt, "/virtio_mmio@a003e00", "reg"), (std::vector<uint32_t>{ 0, 0x0a003e00, 0, 0x200 }))
        << "transport 31, where the first -device goes";
    EXPECT_EQ(prop_cells(fdt, "/virtio_mmio@a003e00", "interrupts"), (std::vector<uint32_t>{ 0, 47, 1 }));
}

// QEMU's -dtb: the user's tree, with /chosen's command line and initrd set.
TEST(VirtDtb, AGivenTreeGetsTheCommandLineAndTheInitrd)
{
    pmvp::soc::virt::DtbSpec given;
    given.memory = 64u << 20;
    given.mpidr = { 0x80000000 };
    given.bootargs = "old";
    pmvp::soc::virt::DtbSpec spec = given;
    spec.bootargs = "console=ttyAMA0 quiet";
    spec.initrd_start = 0x48000000;
    spec.initrd_end = 0x48100000;
    std::vector<uint8_t> dtb = pmvp::soc::virt::patch_dtb(pmvp::soc::virt::build_dtb(given), spec);
    const void *fdt = dtb.data();
    ASSERT_EQ(fdt_check_header(fdt), 0);
    EXPECT_EQ(prop_string(fdt, "/chosen", "bootargs"), std::string("console=ttyAMA0 quiet\0", 22));
    EXPECT_EQ(prop_cells(fdt, "/chosen", "linux,initrd-start"), (std::vector<uint32_t>{ 0, 0x48000000 }));
    EXPECT_EQ(prop_cells(fdt, "/chosen", "linux,initrd-end"), (std::vector<uint32_t>{ 0, 0x48100000 }));
    EXPECT_EQ(prop_cells(fdt, "/memory@40000000", "reg"), (std::vector<uint32_t>{ 0, 0x40000000, 0, 64u << 20 }))
        << "the rest as the file has it";
    spec.bootargs.clear();
    dtb = pmvp::soc::virt::patch_dtb(pmvp::soc::virt::build_dtb(given), spec);
    EXPECT_EQ(prop_string(dtb.data(), "/chosen", "bootargs"), std::string("old\0", 4)) << "no -append: kept";
    const std::vector<uint8_t> junk(100, 0xAB);
    EXPECT_THROW(pmvp::soc::virt::patch_dtb(junk, spec), std::runtime_error);
    EXPECT_THROW(pmvp::soc::virt::patch_dtb({}, spec), std::runtime_error);
}

// ---- loading as QEMU loads -kernel

TEST(VirtLoading, ImagesGoWhereQemusVirtPutsThem)
{
    using pmvp::soc::dtb_address;
    using pmvp::soc::parse_kernel;
    const uint64_t mib = 1u << 20;
    std::vector<uint8_t> raw(4096, 0x1F);
    FirmwareImage img = parse_kernel(raw, "raw.bin", 128 * mib);
    EXPECT_EQ(img.format, FirmwareImage::RAW);
    EXPECT_EQ(img.entry, 0x40080000u);
    EXPECT_EQ(dtb_address(img, 128 * mib, 8192), 0x44000000u) << "the RAM's middle, 2 MiB aligned";
    EXPECT_EQ(dtb_address(img, 1024 * mib, 8192), 0x48000000u) << "at most 128 MiB in";
    // An arm64 Image: text_offset 0x80000 and image_size 1 MiB.
    std::vector<uint8_t> image(4096, 0);
    uint64_t fields[2] = { 0x80000, mib };
    std::memcpy(image.data() + 8, fields, sizeof fields);
    std::memcpy(image.data() + 56, "ARM\x64", 4);
    img = parse_kernel(image, "Image", 128 * mib);
    EXPECT_EQ(img.format, FirmwareImage::ARM64_IMAGE);
    EXPECT_EQ(img.entry, 0x40080000u);
    EXPECT_EQ(img.high, 0x40180000u) << "image_size counts, not the file's length";
    fields[0] = 0;  // an offset under 4 KiB: 2 MiB further, past QEMU's boot stub
    std::memcpy(image.data() + 8, fields, sizeof fields);
    EXPECT_EQ(parse_kernel(image, "Image", 128 * mib).entry, 0x40200000u);
    fields[1] = 200 * mib;
    std::memcpy(image.data() + 16, &fields[1], 8);
    EXPECT_THROW(parse_kernel(image, "Image", 128 * mib), pmvp::soc::ScenarioError);
    EXPECT_THROW(parse_kernel({}, "empty", 128 * mib), pmvp::soc::ScenarioError);
    // An ELF leaves room for the DTB at the RAM's base only below itself.
    FirmwareImage elf;
    elf.low = 0x40000000;
    elf.high = 0x40010000;
    EXPECT_EQ(dtb_address(elf, 128 * mib, 8192), 0u);
    elf.low = 0x40100000;
    elf.high = 0x40200000;
    EXPECT_EQ(dtb_address(elf, 128 * mib, 8192), 0x40000000u);
    EXPECT_EQ(dtb_address(elf, 128 * mib, 2 * mib), 0u) << "the DTB would reach the image";
}

#ifdef PMVP_HAVE_FIRMWARE


TEST(VirtMachine, ARawImageFindsTheDeviceTreeInX0AndExitsBySemihosting)
{
    std::string image = raw_image("dtb-probe", kDtbProbe);
    SocRun r = pmvp_soc("--machine virt --kernel " + image + " -t 1ms");
    ASSERT_EQ(r.status, 1) << "a status other than 0: not all passed\n" << r.out << r.err;
    const json &pe = r.result["pes"][0];
    EXPECT_EQ(pe["status"], 0x44) << "the DTB at 0x44000000 with 128 MiB";
    EXPECT_EQ(pe["ended_by"], "semihosting SYS_EXIT");
    EXPECT_EQ(pe["instructions"], 10) << "through the HLT";
    r = pmvp_soc("--machine virt --memory 512M --kernel " + image + " -t 1ms");
    EXPECT_EQ(r.result["pes"][0]["status"], 0x48) << "128 MiB in with 512 MiB";
}

TEST(VirtMachine, PsciSystemOffEndsTheRunWithStatusZero)
{
    // ldr x0, =SYSTEM_OFF; hvc #0; b .
    std::string image = raw_image("system-off", { 0x58000080, 0xd4000002, 0x14000000, 0, 0x84000008, 0 });
    SocRun r = pmvp_soc("--machine virt --smp 2 --kernel " + image + " -t 1ms");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    for (const json &pe : r.result["pes"]) {
        EXPECT_EQ(pe["status"], 0);
        EXPECT_EQ(pe["ended_by"], "PSCI SYSTEM_OFF");
        EXPECT_EQ(pe["exit_time_ps"], 1000) << "the HVC, the second instruction, starts at 1 ns (1 GHz)";
    }
    EXPECT_EQ(r.result["pes"][1]["instructions"], 0) << "PE 1 was never turned on";
}

// Random words as a kernel, with VBAR_EL1 at the image so that each
// exception they take runs more of them (data and instruction aborts, BRK,
// HVC and SMC, System-register writes that turn the MMU on or arm
// breakpoints): each run ends by the scenario's end or by the guest (PSCI),
// never by a crash or a hang of the host, and its report is whole.
TEST(VirtMachine, RandomKernelsAreStoppedOrRunToTheEnd)
{
    std::mt19937 rng(63);
    for (int i = 0; i < 24; i++) {
        std::vector<uint32_t> code = { 0xd2a80100 /* mov x0, #0x40080000 */, 0xd518c000 /* msr vbar_el1, x0 */,
                                       0xd5033fdf /* isb */ };
        for (int w = 0; w < 1024; w++)
            code.push_back(rng());
        const std::string image = raw_image("random-" + std::to_string(i), code), js = temp_file("random.json");
        int rc = std::system(("timeout 60 " + std::string(PMVP_SOC) + " --machine virt --smp 2 -t 200us --kernel " +
                              image + " --quiet --json " + js + " 2>/dev/null")
                                 .c_str());
        ASSERT_TRUE(WIFEXITED(rc)) << "guest " << i;
        EXPECT_LE(WEXITSTATUS(rc), 1) << "guest " << i;  // 124: the host hung; 3: the simulation failed
        json run = json::parse(slurp(js), nullptr, false);
        ASSERT_FALSE(run.is_discarded()) << "guest " << i;
        EXPECT_EQ(run["pes"].size(), 2u) << "guest " << i;
    }
}

TEST(VirtMachine, ALoadWhereNothingIsStopsThePeAndSaysWhere)
{
    // mov x1, #0x0E000000; ldr w2, [x1]; b .
    std::string image = raw_image("nothing", { 0xd2a1c001, 0xb9400022, 0x14000000 });
    SocRun r = pmvp_soc("--machine virt --kernel " + image + " -t 1ms");
    ASSERT_EQ(r.status, 1) << r.out << r.err;
    const json &pe = r.result["pes"][0];
    EXPECT_EQ(pe["status"], 0xEE);
    EXPECT_NE(pe["console"].get<std::string>().find("address 0xe000000"), std::string::npos) << pe["console"];
}

TEST(VirtMachine, TheDevicesHoldTheirRulesForAGuest)
{
    SocRun r = pmvp_soc(scenario("firmware-virt-machine"));
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const std::string console = r.result["console"];  // the PL011's
    for (const char *test :
         { "virt-uart-probe", "virt-gic-sgi-self", "virt-timer-instant", "virt-psci-cpu-on", "virt-fetch-abort",
           "virt-el0-round-trip", "virt-code-across-pes", "virt-tlbi-across-pes", "virt-breakpoint",
           "virt-software-step", "virt-watchpoint", "virt-interrupt-traffic", "virt-semihosting" })
        EXPECT_NE(console.find(std::string("PASS ") + test + "\n"), std::string::npos) << test << "\n" << console;
    EXPECT_NE(console.find("\n13 passed, 0 failed\n"), std::string::npos) << console;
    EXPECT_EQ(r.result["pes"][0]["aborts"], 1);
    // virt-interrupt-traffic: PMUIRQ is taken between blocks, under one
    // block after its overflow (the firmware's blocks are shorter than 64
    // instructions); interrupts of the timer and SGIs taken before an
    // overflow, and one the guest held masked past it, are no skid.
    EXPECT_LT(r.result["pes"][0]["max_skid"].get<uint64_t>(), 64u);
}

// firmware/iss_events.c: each event's count per iteration of a loop of
// known instructions, the MEM_ACCESS overflow's interrupt at its block,
// PMCEID (docs/FIRMWARE.md, "Events").
TEST(VirtMachine, TheIssCountsEveryArchitecturalEventOfItsGuest)
{
    SocRun r = pmvp_soc(scenario("firmware-iss-events"));
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const json &pe = r.result["pes"][0];
    const std::string console = r.result["console"];
    for (const char *test :
         { "memory", "branches", "simd-fp", "barriers-exclusives-sysregs", "svc", "undefined", "code-written",
           "code-rewritten", "irq", "irq-after-wfi", "irq-after-wfi-count", "mem-access-overflow-interrupt", "pmceid" })
        EXPECT_NE(console.find(std::string("PASS iss-events-") + test + "\n"), std::string::npos) << test << "\n"
                                                                                                  << console;
    EXPECT_NE(console.find("\n13 passed, 0 failed\n"), std::string::npos) << console;
    // The events told: every instruction told once, of one class; every
    // access a read or a write; every exception of one kind.
    const json &ev = pe["events"];
    EXPECT_EQ(ev["INST_RETIRED"], pe["instructions"]);
    EXPECT_EQ(ev["DP_SPEC"].get<uint64_t>() + ev["ASE_SPEC"].get<uint64_t>() + ev["VFP_SPEC"].get<uint64_t>() +
                  ev["CRYPTO_SPEC"].get<uint64_t>() + ev["LDST_SPEC"].get<uint64_t>() +
                  ev["PC_WRITE_SPEC"].get<uint64_t>(),
              ev["INST_RETIRED"].get<uint64_t>());
    EXPECT_EQ(ev["MEM_ACCESS"].get<uint64_t>(),
              ev["MEM_ACCESS_RD"].get<uint64_t>() + ev["MEM_ACCESS_WR"].get<uint64_t>());
    EXPECT_EQ(ev["EXC_TAKEN"].get<uint64_t>(), ev["EXC_IRQ"].get<uint64_t>() + ev["EXC_SVC"].get<uint64_t>() +
                                                   ev["EXC_UNDEF"].get<uint64_t>() + ev["EXC_PABORT"].get<uint64_t>() +
                                                   ev["EXC_DABORT"].get<uint64_t>());
    EXPECT_EQ(ev["EXC_IRQ"], pe["interrupts"]);
    EXPECT_EQ(ev["EXC_SVC"].get<uint64_t>() + ev["EXC_UNDEF"].get<uint64_t>(), pe["exceptions"].get<uint64_t>());
}

namespace {

// Scenario `name` run whole, and saved at `at` then restored: each of its
// PEs' `keys` the same in both.
void restores_as_it_ran(const std::string &name, const std::string &at, std::initializer_list<const char *> keys)
{
    SocRun whole = pmvp_soc(scenario(name));
    ASSERT_EQ(whole.status, 0) << whole.out << whole.err;
    std::string ckpt = temp_file(name + ".ckpt");
    SocRun saved = pmvp_soc(scenario(name) + " --save-at " + at + " " + ckpt);
    ASSERT_EQ(saved.status, 0) << saved.err;
    SocRun restored = pmvp_soc("--restore " + ckpt);
    ASSERT_EQ(restored.status, 0) << restored.out << restored.err;
    ASSERT_EQ(restored.result["pes"].size(), whole.result["pes"].size());
    EXPECT_EQ(restored.result["console"], whole.result["console"]);
    for (size_t pe = 0; pe < whole.result["pes"].size(); pe++)
        for (const char *key : keys)
            EXPECT_EQ(restored.result["pes"][pe][key], whole.result["pes"][pe][key]) << "PE " << pe << " " << key;
}

}  // namespace

// A checkpoint in the middle of the events suite (300 us of its 1,400): the
// restored run tells the same events and passes the same tests; its blocks
// are classified again after the restore.
TEST(VirtMachine, ACheckpointInTheEventsSuiteGoesOnAsTheRunDid)
{
    restores_as_it_ran("firmware-iss-events", "300us",
                       { "instructions", "exit_time_ps", "console", "exceptions", "interrupts", "events" });
}

// At 20 us PE 0 has turned PE 1 on; the timer test, the SGI and the abort
// come before or after: the restored run ends as the whole one.
TEST(VirtMachine, ACheckpointInThePsciTestGoesOnAsTheRunDid)
{
    restores_as_it_ran("firmware-virt-machine", "20us",
                       { "instructions", "exit_time_ps", "console", "exceptions", "aborts", "ended_by", "events" });
}

TEST(VirtMachine, TheSuitesImageForQemuPassesOnPmvp)
{
    SocRun r = pmvp_soc(scenario("firmware-pmu-suite-virt"));
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const std::string console = r.result["console"];
    EXPECT_NE(console.find("PASS pmu-overflow-interrupt\n"), std::string::npos) << console;
    EXPECT_NE(console.find("PASS pmu-threshold\n"), std::string::npos) << console;
    EXPECT_NE(console.find("\n19 passed, 0 failed\n"), std::string::npos) << console;
    EXPECT_EQ(r.result["pes"][0]["ended_by"], "semihosting SYS_EXIT");
}

TEST(VirtMachine, DumpdtbWritesWhatDtcDecompiles)
{
    std::string dtb = temp_file("virt.dtb");
    SocRun r = pmvp_soc("--machine virt --smp 2 --append 'a b' --dumpdtb " + dtb, false);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    if (std::system("command -v dtc >/dev/null") != 0)
        GTEST_SKIP() << "dtc (device-tree-compiler) is not installed";
    std::string dts = temp_file("virt.dts");
    ASSERT_EQ(std::system(("dtc -q -I dtb -O dts -o " + dts + " " + dtb).c_str()), 0);
    std::string text = slurp(dts);
    for (const char *want : { "bootargs = \"a b\";", "cpu@1 {", "compatible = \"arm,armv8-pmuv3\";",
                              "method = \"hvc\";", "reg = <0x00 0x40000000 0x00 0x8000000>;" })
        EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

#endif  // PMVP_HAVE_FIRMWARE

TEST(VirtMachine, BadInputIsRefusedBeforeTheRunNamingTheField)
{
    struct Case {
        std::string args, says;
    };
    const Case cases[] = {
        { "--machine foo", "--machine: expected pmvp or virt" },
        { "--append x", "--append: only the virt machine takes it" },
        { "--machine virt --memory 8M", "--memory: expected a RAM size from 16 MiB to 4 GiB" },
        { "--machine virt --smp 9", "--smp: expected an integer from 1 to 8" },
        { "--machine virt --kernel /nonexistent.elf", "/nonexistent.elf: the firmware image cannot be read" },
        { "--dumpdtb x.dtb", "--dumpdtb: the pmvp machine has no device tree" },
        { "--machine virt", "cpu.firmware: missing" },
        { "--kernel " + std::string(PMVP_SCENARIOS) + "/default.json --machine virt --memory 16M -t 1ms",
          "" },  // a text file is a raw image: it loads and faults, no refusal
    };
    for (const Case &c : cases) {
        SocRun r = pmvp_soc(c.args, false);
        if (c.says.empty()) {
            EXPECT_NE(r.status, 2) << c.args << "\n" << r.err;
            continue;
        }
        EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
    }
    // The scenario's machine object.
    const std::pair<const char *, const char *> machines[] = {
        { R"({ "type": "qemu" })", "machine.type: expected pmvp" },
        { R"({ "memory": "1 GiB" })", "machine.memory: the pmvp machine's RAM is 16 MiB" },
        { R"({ "type": "virt", "memory": "3 MiB" })", "machine.memory: expected a RAM size" },
        { R"({ "type": "virt", "append": 5 })", "machine.append: expected a string" },
        { R"({ "type": "virt", "smp": 2 })", "machine.smp: unknown field" },
    };
    for (const auto &[machine, says] : machines) {
        std::string path = temp_file("machine.json");
        std::ofstream(path) << R"({ "name": "m", "duration": "1 ms", "machine": )" << machine
                            << R"(, "clusters": [ { "cpu": { "model": "iss", "firmware": "x.elf" } } ] })";
        SocRun r = pmvp_soc(path, false);
        EXPECT_EQ(r.status, 2) << machine << "\n" << r.err;
        EXPECT_NE(r.err.find(says), std::string::npos) << machine << "\n" << r.err;
    }
    SocRun analytic = pmvp_soc(scenario("default") + " --machine virt", false);
    EXPECT_EQ(analytic.status, 2);
    EXPECT_NE(analytic.err.find("the virt machine's PEs are the ISS clusters'"), std::string::npos) << analytic.err;
    // An image larger than the RAM.
    std::string big = temp_file("big.bin");
    std::ofstream(big, std::ios::binary).write(std::string(17u << 20, '\0').data(), 17u << 20);
    SocRun r = pmvp_soc("--machine virt --memory 16M --kernel " + big, false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("does not fit the RAM (16 MiB at 0x40000000)"), std::string::npos) << r.err;
}

}  // namespace

// ---- PCI Express (platform/machines/pci.cpp)

namespace {
// An ECAM offset of bus 0: device d, register r.
constexpr uint64_t ecam(unsigned d, unsigned r)
{
    return (uint64_t)d << 15 | r;
}
}  // namespace

TEST(VirtPci, TheBusHasTheHostBridgeAndThePciTestdevAsQemusVirt)
{
    using pmvp::soc::virt::PciBus;
    PciBus bus(true);
    EXPECT_EQ(bus.config_read(ecam(0, 0), 4), 0x00081b36u) << "the host bridge, 1b36:0008";
    EXPECT_EQ(bus.config_read(ecam(0, 0x0B), 1), 0x06u) << "class: bridge";
    EXPECT_EQ(bus.config_read(ecam(1, 0), 4), 0x00051b36u) << "pci-testdev, 1b36:0005";
    EXPECT_EQ(bus.config_read(ecam(1, 2), 2), 0x0005u);
    EXPECT_EQ(bus.config_read(ecam(2, 0), 4), 0xFFFFFFFFu) << "no device 2";
    EXPECT_EQ(bus.config_read(1u << 20, 2), 0xFFFFu) << "no bus 1";
    EXPECT_EQ(bus.config_read(ecam(1, 0) | 1u << 12, 4), 0xFFFFFFFFu) << "no function 1";
    EXPECT_EQ(PciBus(false).config_read(ecam(1, 0), 4), 0xFFFFFFFFu) << "no pci-testdev unless asked for";
    // BAR sizing: ones written, the size's low bits read as zero.
    bus.config_write(ecam(1, 0x10), 4, 0xFFFFFFFF);
    EXPECT_EQ(bus.config_read(ecam(1, 0x10), 4), 0xFFFFF000u) << "4 KiB of 32-bit memory";
    bus.config_write(ecam(1, 0x14), 4, 0xFFFFFFFF);
    EXPECT_EQ(bus.config_read(ecam(1, 0x14), 4), 0xFFFFFF01u) << "256 bytes of I/O";
    EXPECT_EQ(bus.config_read(ecam(1, 0x18), 4), 0u) << "no BAR 2";
    bus.config_write(ecam(1, 0x10), 4, 0x20003000);
    bus.config_write(ecam(1, 0x14), 4, 0x100);
    EXPECT_EQ(bus.read(false, 0x20003001, 1), 0xFFu) << "memory decoding off: nothing answers";
    bus.config_write(ecam(1, 0x04), 2, 3);  // I/O and memory decoding on
    EXPECT_EQ(bus.config_read(ecam(1, 0x04), 2), 3u);
    EXPECT_EQ(bus.read(false, 0x20003001, 1), 1u) << "test 0's width: a byte";
    EXPECT_EQ(bus.read(false, 0x20004000, 4), 0xFFFFFFFFu) << "past the BAR";
}

// QEMU's pci-testdev protocol: a test chosen, its writes counted.
TEST(VirtPci, ThePciTestdevCountsTheWritesOfItsTest)
{
    pmvp::soc::virt::PciBus bus(true);
    bus.config_write(ecam(1, 0x10), 4, 0x20000000);
    bus.config_write(ecam(1, 0x14), 4, 0x0);  // I/O port 0, as kvm-unit-tests assigns it
    bus.config_write(ecam(1, 0x04), 2, 3);
    for (bool io : { false, true }) {
        const uint64_t base = io ? 0 : 0x20000000;
        for (unsigned test = 0; test < 3; test++) {
            bus.write(io, base, 1, test);
            EXPECT_EQ(bus.read(io, base + 12, 4), 0u) << "the count starts at zero";
            const unsigned width = (unsigned)bus.read(io, base + 1, 1);
            EXPECT_EQ(width, 1u << test);
            const uint64_t data = bus.read(io, base + 8, 4), offset = bus.read(io, base + 4, 4);
            for (int i = 0; i < 16; i++)
                bus.write(io, base + offset, width, data);
            bus.write(io, base + offset, width, data ^ 1);  // other data: not counted
            bus.write(io, base + offset + 4, width, data);  // elsewhere: not counted
            EXPECT_EQ(bus.read(io, base + 12, 4), 16u) << io << " " << test;
            EXPECT_NE(bus.read(io, base + 16, 1), 0u) << "a name";
        }
        bus.write(io, base, 1, 3);
        EXPECT_EQ(bus.read(io, base + 1, 1), 0u) << "no test 3: width 0, where the guest stops";
    }
}
