// SPDX-License-Identifier: Apache-2.0
//
// pmvp-qemu-system-aarch64, QEMU's command line for the virt machine: the
// probes kvm-unit-tests' runner makes, the options it takes and refuses,
// and a guest's console and exit status as QEMU gives them.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include <gtest/gtest.h>

#include "soc_run.h"

namespace {

// Runs the front end with `args`, as a shell would.
SocRun qemu(const std::string &args)
{
    const std::string out = temp_file("qemu.out"), err = temp_file("qemu.err");
    SocRun r;
    int rc = std::system((std::string(PMVP_QEMU) + " " + args + " >" + out + " 2>" + err + " </dev/null").c_str());
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

// Writes "hi\n" to the PL011 and exits by semihosting SYS_EXIT with status 5.
const std::vector<uint32_t> kHiExit5 = { 0xd2a12001, 0x52800d02, 0xb9000022, 0x52800d22, 0xb9000022, 0x52800142,
                                         0xb9000022, 0xd2800300, 0x10000081, 0xd45e0000, 0x14000000, 0xd503201f,
                                         0x00020026, 0x00000000, 0x00000005, 0x00000000 };

}  // namespace

// What kvm-unit-tests' arm/run and scripts/arch-run.bash look for before
// they start a test, each answered as QEMU answers it.
TEST(QemuCommandLine, TheProbesOfKvmUnitTestsAreAnsweredAsQemuAnswers)
{
    const std::pair<const char *, const char *> probes[] = {
        { "--help", "QEMU" },                            // search_qemu_binary
        { "-machine '?'", "ARM Virtual Machine" },       // mach-virt
        { "-machine virt,\\?", "gic-version" },          // gic-version
        { "-machine virt -device '?'", "virtconsole" },  // chr-testdev's console
        { "-machine virt -chardev '?'", "testdev" },     // chr-testdev
        { "-cpu help", "cortex-a53" },                   // the core presets
    };
    for (const auto &[args, says] : probes) {
        SocRun r = qemu(args);
        EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
        EXPECT_NE(r.out.find(says), std::string::npos) << args << "\n" << r.out;
        EXPECT_EQ(r.err, "") << args;
    }
    // The version line, as arch-run.bash splits it into QEMU_MAJOR and so on.
    SocRun r = qemu("-h");
    EXPECT_EQ(r.out.rfind("QEMU emulator version 7.2.0 ", 0), 0u) << r.out;
    // The premature-failure probe: a kernel that is not there, said as QEMU
    // says it, once every other option was taken.
    r = qemu("-nodefaults -machine virt -accel tcg -cpu max -device virtio-serial-device -device "
             "virtconsole,chardev=ctd -chardev testdev,id=ctd -display none -serial stdio -kernel _NO_FILE_4Uhere_ "
             "-smp 2 -append 'a b' -m 256");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("could not load kernel '_NO_FILE_4Uhere_'"), std::string::npos) << r.err;
}

TEST(QemuCommandLine, AnOptionItDoesNotTakeIsRefusedByName)
{
    struct Case {
        std::string args, says;
    };
    const std::string k = " -kernel " + std::string(PMVP_SCENARIOS) + "/default.json";
    const Case cases[] = {
        { "-foo" + k, "-foo: pmvp's virt machine does not take this QEMU option" },
        { "-machine sbsa-ref" + k, "-machine sbsa-ref: pmvp's machine is virt" },
        { "-machine virt,gic-version=host" + k, "-machine gic-version=host:" },
        { "-machine virt,mte=on" + k, "-machine mte=on: pmvp's virt machine has no MTE" },
        { "-machine virt,virtualization=on" + k, "no EL2" },
        { "-machine virt,iommu=smmuv3" + k, "-machine iommu: pmvp's virt machine does not take this property" },
        { "-cpu host" + k, "-cpu host: the host's CPU is KVM's" },
        { "-cpu cortex-x9" + k, "-cpu cortex-x9: not a core pmvp has" },
        { "-cpu max,sve=off" + k, "without properties" },
        { "-smp 9" + k, "exceeds max CPUs supported by machine 'virt' (8)" },
        { "-smp 4,sockets=2" + k, "-smp sockets=2: pmvp's virt machine has one socket" },
        { "-smp cpus=4,cores=3" + k, "cpus must be cores x threads" },
        { "-smp 2,maxcpus=4" + k, "not hot-plugged" },
        { "-m 1G,slots=2" + k, "-m slots: pmvp's virt machine has its RAM only" },
        { "-m 8M" + k, "-m 8M: expected a RAM size" },
        { "-icount shift=auto" + k, "-icount shift=auto:" },
        { "-icount shift=12" + k, "-icount shift= 12: expected a number from 0 to 9" },
        { "-icount align=on" + k, "-icount align=on:" },
        { "-accel kvm" + k, "-accel kvm:" },
        { "-device e1000" + k,
          "-device e1000: pmvp's virt machine has virtio-serial-device, virtconsole and pci-testdev" },
        { "-device virtconsole" + k, "Property 'virtconsole.chardev' is required" },
        { "-device virtconsole,chardev=c -chardev testdev,id=c" + k, "No 'virtio-serial-bus' bus found" },
        { "-device virtio-serial-device -device virtconsole,chardev=c" + k, "can't find value 'c'" },
        { "-chardev socket,id=c" + k, "-chardev socket: pmvp's chardevs are testdev and stdio" },
        { "-chardev testdev" + k, "no id specified" },
        { "-serial tcp::4444" + k, "-serial tcp::4444: pmvp's console goes to standard output" },
        { "-display gtk" + k, "-display gtk:" },
        { "-semihosting-config enable=on,arg=x" + k, "-semihosting-config arg=x:" },
        { "-pmvp-time 0s" + k, "-pmvp-time 0s: must be longer than 0 ps" },
        { "-pmvp-time soon" + k, "-pmvp-time soon:" },
        { "-pmvp-semihosting-dir /nonexistent" + k, "machine.semihosting_dir: /nonexistent is not a directory" },
        { "-pmvp-report /nonexistent/dir/r.txt" + k, "-pmvp-report /nonexistent/dir/r.txt: cannot be written" },
        { "-machine virt -m", "-m: requires an argument" },
        { "-machine virt", "-kernel: pmvp's virt machine boots an image it is given" },
        { "stray" + k, "stray: an option was expected" },
    };
    for (const Case &c : cases) {
        SocRun r = qemu(c.args);
        EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_EQ(r.out, "") << c.args;
    }
}

// The guest's console alone on standard output, byte for byte; nothing on
// standard error; QEMU's exit status.
TEST(QemuCommandLine, TheConsoleIsRawAndTheExitStatusIsTheGuests)
{
    const std::string image = raw_image("hi-exit-5", kHiExit5);
    SocRun r = qemu("-M virt -cpu max -nographic -semihosting -kernel " + image);
    EXPECT_EQ(r.status, 5) << "the semihosting exit's status";
    EXPECT_EQ(r.out, "hi\n");
    EXPECT_EQ(r.err, "");
    // Without -semihosting, HLT #0xF000 is UNDEFINED, as on QEMU: the guest
    // (no vectors) never ends the machine, which is said when time runs out.
    r = qemu("-M virt -nographic -kernel " + image + " -pmvp-time 1ms");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "hi\n");
    EXPECT_NE(r.err.find("the guest did not end the machine"), std::string::npos) << r.err;
    // The report on request, to a file, and the JSON beside it.
    const std::string report = temp_file("report.txt"), js = temp_file("report.json");
    r = qemu("-M virt -semihosting -kernel " + image + " -pmvp-report " + report + " -pmvp-json " + js);
    EXPECT_EQ(r.status, 5);
    EXPECT_EQ(r.out, "hi\n");
    EXPECT_NE(slurp(report).find("semihosting SYS_EXIT"), std::string::npos) << slurp(report);
    json j = json::parse(slurp(js), nullptr, false);
    EXPECT_EQ(j["pes"][0]["instructions"], 10) << "through the HLT";
    EXPECT_EQ(j["pes"][0]["status"], 5);
}

// -machine dumpdtb= writes the machine's tree, which -dtb boots with: the
// guest finds it in x0 (the DTB probe exits with its address's bits
// [63:24]). A file that is not a tree is refused, named.
TEST(QemuCommandLine, DumpdtbAndDtbAsQemus)
{
    const std::string dtb = temp_file("virt.dtb"), image = raw_image("dtb-probe", kDtbProbe);
    SocRun r = qemu("-M virt,dumpdtb=" + dtb + " -m 256M");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(slurp(dtb).substr(0, 4), std::string("\xd0\x0d\xfe\xed", 4));
    r = qemu("-M virt -semihosting -dtb " + dtb + " -append 'x y' -kernel " + image);
    EXPECT_EQ(r.status, 0x44) << "the tree at 0x44000000 (128 MiB of RAM)" << r.err;
    r = qemu("-M virt -semihosting -dtb " + image + " -kernel " + image);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(image + ": the device tree: not a flattened device tree blob"), std::string::npos) << r.err;
}

// -icount shift=N: 2^N ns an instruction, so the exit comes 2^N times later.
TEST(QemuCommandLine, IcountShiftSetsTheTimeOfAnInstruction)
{
    const std::string image = raw_image("hi-exit-5", kHiExit5), js = temp_file("icount.json");
    for (unsigned shift : { 0u, 3u }) {
        SocRun r = qemu("-M virt -semihosting -icount shift=" + std::to_string(shift) + " -kernel " + image +
                        " -pmvp-json " + js);
        EXPECT_EQ(r.status, 5);
        json j = json::parse(slurp(js), nullptr, false);
        EXPECT_EQ(j["pes"][0]["exit_time_ps"], (9 * 1000) << shift) << "the HLT after 9 instructions";
    }
}

#ifdef PMVP_HAVE_FIRMWARE
// The firmware suite for the virt machine through QEMU's options: its
// console on standard output as pmvp-soc reports it, its exit status 0.
TEST(QemuCommandLine, TheVirtMachinesFirmwareRunsThroughQemusOptions)
{
    const std::string image = std::string(PMVP_FIRMWARE_DIR) + "/virt-machine.elf";
    SocRun r = qemu("-M virt,gic-version=2 -cpu max -smp 2 -m 128M -nographic -nodefaults -no-reboot -accel tcg "
                    "-semihosting-config enable=on,target=native -append 'semihosting line' "
                    "-pmvp-semihosting-dir " PMVP_SCENARIOS " -kernel " +
                    image);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("\n13 passed, 0 failed\n"), std::string::npos) << r.out;
    SocRun soc = pmvp_soc(scenario("firmware-virt-machine"));  // the same machine, as a scenario
    std::string console = soc.result["console"];
    for (const json &pe : soc.result["pes"])
        console += pe["console"].get<std::string>();  // semihosting's output, after the PL011's here
    std::string sorted_out = r.out, sorted_console = console;
    std::sort(sorted_out.begin(), sorted_out.end());
    std::sort(sorted_console.begin(), sorted_console.end());
    EXPECT_EQ(sorted_out, sorted_console) << "the same bytes, the raw console in instant order";
}
#endif
