// SPDX-License-Identifier: Apache-2.0
//
// QEMU's command line for the virt machine (qemu_cli.h): each option a
// handler that says what it means on pmvp, or why it is refused.
#include "qemu_cli.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmvp/config/core_file.h"

extern "C" {
#include "pmvp/version.h"
}

namespace pmvp::soc {

namespace {

// QEMU's -icount shift=N takes 2^N ns an instruction; at pmvp's 1 GHz that
// is a CPI of 2^N, which a scenario holds up to 1000.
constexpr unsigned kMaxShift = 9;
constexpr unsigned kMaxCpus = 8;  // the GICv2's CPU interfaces
constexpr const char *kDefaultTime = "100 s";

// An option's refusal: the option named, as QEMU's errors name it.
struct Refusal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// "a=1,b,c=2" as QEMU's option lists write them: the first item may be a
// bare value (the "implied" key, e.g. -machine virt).
std::vector<std::pair<std::string, std::string>> items(const std::string &list, const char *implied)
{
    std::vector<std::pair<std::string, std::string>> out;
    std::stringstream ss(list);
    std::string item;
    bool first = true;
    while (std::getline(ss, item, ',')) {
        size_t eq = item.find('=');
        if (eq != std::string::npos)
            out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
        else if (first && implied)
            out.emplace_back(implied, item);
        else
            out.emplace_back(item, "on");
        first = false;
    }
    return out;
}

bool is_help(const std::string &v)
{
    return v == "help" || v == "?";
}

bool on_off(const std::string &option, const std::string &key, const std::string &v)
{
    if (v == "on" || v == "yes" || v == "true")
        return true;
    if (v == "off" || v == "no" || v == "false")
        return false;
    throw Refusal(option + " " + key + "=" + v + ": expected on or off");
}

unsigned number(const std::string &option, const std::string &v, unsigned lo, unsigned hi)
{
    char *end = nullptr;
    errno = 0;
    unsigned long n = std::strtoul(v.c_str(), &end, 10);
    if (v.empty() || v[0] == '-' || *end || errno || n < lo || n > hi)
        throw Refusal(option + " " + v + ": expected a number from " + std::to_string(lo) + " to " +
                      std::to_string(hi));
    return (unsigned)n;
}

void help_exit(const std::string &text)
{
    std::fputs(text.c_str(), stdout);
    std::exit(0);
}

// The command line read option by option into the run it describes.
class QemuCommandLine {
public:
    explicit QemuCommandLine(Options &o) : o_(o) {}
    void parse(int argc, char **argv);
    void finish();  // the options against one another; the scenario made

private:
    using Handler = std::function<void(const std::string &)>;
    struct Option {
        bool valued;
        Handler take;
    };
    std::map<std::string, Option> table();
    void machine(const std::string &v);
    void smp(const std::string &v);
    void memory(const std::string &v);
    void cpu(const std::string &v);
    void icount(const std::string &v);
    void accel(const std::string &v);
    void device(const std::string &v);
    void chardev(const std::string &v);
    void semihosting_config(const std::string &v);
    void output(const std::string &option, const std::string &v, const char *const *taken);
    std::string scenario() const;

    Options &o_;
    std::string core_ = "max", scenario_path_, dumpdtb_, dtb_, semihosting_dir_;
    unsigned cpi_ = 1, threads_ = 0, gic_version_ = 2;
    bool semihosting_ = false, serial_bus_ = false, pci_testdev_ = false;
    std::string console_chardev_;                 // -device virtconsole,chardev=ID
    std::map<std::string, std::string> chardev_;  // ID -> backend
};

const char kUsage[] =
    "QEMU emulator version 7.2.0 command line, as pmvp-qemu-system-aarch64 (pmvp %s) takes it for pmvp's virt "
    "machine\n"
    "usage: pmvp-qemu-system-aarch64 [options] (docs/FIRMWARE.md, \"QEMU's command line\")\n"
    "-machine virt[,gic-version=2|3|max][,dumpdtb=FILE][,highmem=on|off]  the virt board (also -M)\n"
    "-cpu max|CORE        the core (-cpu help lists pmvp's core presets)\n"
    "-smp N|cpus=N[,cores=C][,threads=T]  the PEs (up to 8)\n"
    "-m SIZE              the RAM (128M by default)\n"
    "-kernel FILE -initrd FILE -append ARGS -dtb FILE  direct kernel boot, as QEMU's\n"
    "-icount [shift=]N    2^N ns an instruction: a CPI of 2^N at 1 GHz (0 to 9)\n"
    "-semihosting, -semihosting-config enable=on  HLT #0xF000 is a semihosting call\n"
    "-device virtio-serial-device -device virtconsole,chardev=ID -chardev testdev|stdio,id=ID\n"
    "-device pci-testdev  QEMU's PCI test device on the PCI Express bus\n"
    "-nographic -display none -serial stdio -nodefaults -no-reboot -accel tcg  as QEMU's\n"
    "pmvp's own: -pmvp-scenario FILE (the cores' and monitors' configuration), -pmvp-report FILE|- (the\n"
    "readable report; - for standard error), -pmvp-json FILE, -pmvp-time T (the simulated time the guest may\n"
    "run, default 100 s), -pmvp-semihosting-dir DIR (the host files semihosting gives the guest: DIR's)\n";

std::map<std::string, QemuCommandLine::Option> QemuCommandLine::table()
{
    auto flag = [](Handler h) { return Option{ false, [h](const std::string &v) { h(v); } }; };
    auto valued = [](Handler h) { return Option{ true, std::move(h) }; };
    auto nothing = [](const std::string &) {};
    static const char *const serial[] = { "stdio", "mon:stdio", nullptr };
    static const char *const display[] = { "none", nullptr };
    return {
        { "machine", valued([this](const std::string &v) { machine(v); }) },
        { "M", valued([this](const std::string &v) { machine(v); }) },
        { "cpu", valued([this](const std::string &v) { cpu(v); }) },
        { "smp", valued([this](const std::string &v) { smp(v); }) },
        { "m", valued([this](const std::string &v) { memory(v); }) },
        { "kernel", valued([this](const std::string &v) { o_.overrides.kernel = v; }) },
        { "initrd", valued([this](const std::string &v) { o_.overrides.initrd = v; }) },
        { "append", valued([this](const std::string &v) {
              o_.overrides.has_append = true;
              o_.overrides.append = v;
          }) },
        { "dtb", valued([this](const std::string &v) { dtb_ = v; }) },
        { "icount", valued([this](const std::string &v) { icount(v); }) },
        { "accel", valued([this](const std::string &v) { accel(v); }) },
        { "device", valued([this](const std::string &v) { device(v); }) },
        { "chardev", valued([this](const std::string &v) { chardev(v); }) },
        { "semihosting", flag([this](const std::string &) { semihosting_ = true; }) },
        { "semihosting-config", valued([this](const std::string &v) { semihosting_config(v); }) },
        { "serial", valued([this](const std::string &v) { output("-serial", v, serial); }) },
        { "display", valued([this](const std::string &v) { output("-display", v, display); }) },
        { "nographic", flag(nothing) },   // the console is on standard output, and there is no display
        { "nodefaults", flag(nothing) },  // the virt machine has no default device beyond its board's
        { "no-reboot", flag([this](const std::string &) { o_.qemu.no_reboot = true; }) },
        { "pmvp-scenario", valued([this](const std::string &v) { scenario_path_ = v; }) },
        { "pmvp-semihosting-dir", valued([this](const std::string &v) { semihosting_dir_ = v; }) },
        { "pmvp-no-fast-forward", flag([this](const std::string &) { o_.overrides.no_fast_forward = true; }) },
        { "pmvp-json", valued([this](const std::string &v) { o_.json_path = v; }) },
        { "pmvp-report", valued([this](const std::string &v) {
              if (v == "-") {
                  o_.qemu.report = stderr;
              } else if (!(o_.qemu.report = std::fopen(v.c_str(), "w"))) {
                  throw Refusal("-pmvp-report " + v + ": cannot be written: " + std::strerror(errno));
              }
          }) },
        { "pmvp-time", valued([this](const std::string &v) {
              try {
                  o_.overrides.duration = parse_time(v);
              } catch (const std::invalid_argument &e) {
                  throw Refusal("-pmvp-time " + v + ": " + e.what());
              }
              if (!o_.overrides.duration)
                  throw Refusal("-pmvp-time " + v + ": must be longer than 0 ps");
          }) },
    };
}

void QemuCommandLine::parse(int argc, char **argv)
{
    const std::map<std::string, Option> options = table();
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (arg == "-h" || arg == "-help" || arg == "--help")
            help_exit(std::string(kUsage).replace(std::string(kUsage).find("%s"), 2, pmvp_version()));
        if (arg == "-version" || arg == "--version")
            help_exit(std::string("QEMU emulator version 7.2.0 command line (pmvp-qemu-system-aarch64, pmvp ") +
                      pmvp_version() + ")\n");
        if (arg.size() < 2 || arg[0] != '-')
            throw Refusal(arg + ": an option was expected (QEMU's options begin with -)");
        std::string name = arg.substr(arg[1] == '-' ? 2 : 1);  // QEMU takes -opt and --opt alike
        auto it = options.find(name);
        if (it == options.end())
            throw Refusal("-" + name +
                          ": pmvp's virt machine does not take this QEMU option (-help lists those it "
                          "takes)");
        if (it->second.valued && i + 1 >= argc)
            throw Refusal("-" + name + ": requires an argument");
        it->second.take(it->second.valued ? std::string(argv[++i]) : std::string());
    }
}

void QemuCommandLine::machine(const std::string &v)
{
    if (is_help(v))
        help_exit("Supported machines are:\n"
                  "virt                 ARM Virtual Machine, QEMU's virt board as pmvp models it (default)\n");
    for (const auto &[key, value] : items(v, "type")) {
        if (key == "type") {
            if (value != "virt")
                throw Refusal("-machine " + value + ": pmvp's machine is virt, QEMU's ARM Virtual Machine");
        } else if (key == "help" || key == "?") {
            help_exit("virt options:\n"
                      "  dumpdtb=<string>     - Dump current dtb to a file and quit\n"
                      "  gic-version=<string> - Set GIC version. Valid values are 2, 3 and max (3)\n"
                      "  highmem=<bool>       - on or off: pmvp's virt machine places nothing above 4 GiB\n"
                      "  accel=tcg, mte=off, secure=off, virtualization=off, its=off\n");
        } else if (key == "gic-version") {
            if (value != "2" && value != "3" && value != "max")
                throw Refusal("-machine gic-version=" + value +
                              ": pmvp's virt machine has a GICv2 or a GICv3 (2, 3, "
                              "max: 3)");
            gic_version_ = value == "2" ? 2 : 3;
        } else if (key == "dumpdtb") {
            dumpdtb_ = value;
        } else if (key == "highmem" || key == "its") {
            on_off("-machine", key, value);  // nothing is placed above 4 GiB; no ITS either way
        } else if (key == "accel") {
            accel(value);
        } else if (key == "mte" || key == "secure" || key == "virtualization") {
            if (on_off("-machine", key, value))
                throw Refusal("-machine " + key + "=on: pmvp's virt machine has no " +
                              (key == "mte" ? std::string("MTE")
                                            : std::string(key == "secure" ? "EL3 or Secure state" : "EL2") +
                                                  " (its guests run at EL1)"));
        } else {
            throw Refusal("-machine " + key + ": pmvp's virt machine does not take this property");
        }
    }
}

void QemuCommandLine::smp(const std::string &v)
{
    unsigned cpus = 0, cores = 0, threads = 1, maxcpus = 0;
    for (const auto &[key, value] : items(v, "cpus")) {
        unsigned n = number("-smp " + key + "=", value, 1, 1024);
        if (key == "cpus")
            cpus = n;
        else if (key == "cores")
            cores = n;
        else if (key == "threads")
            threads = n;
        else if (key == "maxcpus")
            maxcpus = n;
        else if ((key == "sockets" || key == "clusters" || key == "dies") && n == 1)
            continue;
        else
            throw Refusal("-smp " + key + "=" + value + ": pmvp's virt machine has one socket of one cluster");
    }
    if (!cpus)
        cpus = (cores ? cores : 1) * threads;
    if (cpus > kMaxCpus)
        throw Refusal("-smp " + std::to_string(cpus) + ": Number of SMP CPUs requested (" + std::to_string(cpus) +
                      ") exceeds max CPUs supported by machine 'virt' (" + std::to_string(kMaxCpus) + ")");
    if ((cores && cores * threads != cpus) || cpus % threads)
        throw Refusal("-smp " + v + ": cpus must be cores x threads");
    if (maxcpus && maxcpus != cpus)
        throw Refusal("-smp maxcpus=" + std::to_string(maxcpus) + ": pmvp's PEs are not hot-plugged (maxcpus = cpus)");
    o_.overrides.smp = cpus;
    threads_ = threads;
}

void QemuCommandLine::memory(const std::string &v)
{
    std::string size = v;
    for (const auto &[key, value] : items(v, "size")) {
        if (key != "size")
            throw Refusal("-m " + key + ": pmvp's virt machine has its RAM only (no slots, no maxmem)");
        size = value;
    }
    try {
        o_.overrides.memory = parse_memory(size);
    } catch (const std::invalid_argument &e) {
        throw Refusal("-m " + v + ": " + e.what());
    }
}

void QemuCommandLine::cpu(const std::string &v)
{
    const std::vector<std::string> presets = config::CoreDescription::presets();
    if (is_help(v)) {
        std::string list = "Available CPUs:\n  max (the virt scenario's core: every PMU feature pmvp models)\n";
        for (const std::string &p : presets)
            list += "  " + p + "\n";
        help_exit(list);
    }
    auto props = items(v, "model");
    const std::string model = props.empty() ? "" : props[0].second;
    if (props.size() > 1)
        throw Refusal("-cpu " + v +
                      ": pmvp takes a core by name, without properties (a core description "
                      "file, -pmvp-scenario, sets the rest)");
    if (model == "host")
        throw Refusal("-cpu host: the host's CPU is KVM's; pmvp runs its guest on its own ISS (-cpu help)");
    if (model != "max" && std::find(presets.begin(), presets.end(), model) == presets.end())
        throw Refusal("-cpu " + model + ": not a core pmvp has (-cpu help lists them)");
    core_ = model;
}

void QemuCommandLine::icount(const std::string &v)
{
    for (const auto &[key, value] : items(v, "shift")) {
        if (key == "shift") {
            if (value == "auto")
                throw Refusal("-icount shift=auto: pmvp's instructions take a fixed time (shift=0 to 9)");
            cpi_ = 1u << number("-icount shift=", value, 0, kMaxShift);
        } else if (key == "sleep") {
            on_off("-icount", key, value);  // pmvp never waits for host time
        } else if (key == "align") {
            if (on_off("-icount", key, value))
                throw Refusal("-icount align=on: pmvp does not pace simulated time to host time");
        } else {
            throw Refusal("-icount " + key + ": pmvp takes shift, sleep and align=off");
        }
    }
}

void QemuCommandLine::accel(const std::string &v)
{
    for (const auto &[key, value] : items(v, "accel")) {
        if (key == "accel" && value != "tcg")
            throw Refusal("-accel " + value + ": pmvp runs its guest on its own ISS, as QEMU's tcg");
        if (key != "accel" && key != "thread" && key != "tb-size")
            throw Refusal("-accel " + key + ": pmvp takes tcg, thread and tb-size");
    }
}

void QemuCommandLine::device(const std::string &v)
{
    if (is_help(v))
        help_exit("name \"virtio-serial-device\", bus virtio-bus\n"
                  "name \"virtconsole\", bus virtio-serial-bus\n"
                  "name \"pci-testdev\", bus PCI, desc \"PCI Test Device\"\n");
    auto props = items(v, "driver");
    const std::string driver = props.empty() ? "" : props[0].second;
    for (size_t i = 1; i < props.size(); i++) {
        const auto &[key, value] = props[i];
        if (driver == "virtconsole" && key == "chardev")
            console_chardev_ = value;
        else if (key != "id" && !(driver == "virtconsole" && key == "name"))
            throw Refusal("-device " + driver + "," + key + ": pmvp's " + driver + " does not take this property");
    }
    if (driver == "virtio-serial-device") {
        if (serial_bus_)
            throw Refusal("-device virtio-serial-device: pmvp's virt machine has one");
        serial_bus_ = true;
    } else if (driver == "virtconsole") {
        if (console_chardev_.empty())
            throw Refusal("-device virtconsole: Property 'virtconsole.chardev' is required");
    } else if (driver == "pci-testdev") {
        pci_testdev_ = true;
    } else {
        throw Refusal("-device " + driver +
                      ": pmvp's virt machine has virtio-serial-device, virtconsole and pci-testdev "
                      "(-device help)");
    }
}

void QemuCommandLine::chardev(const std::string &v)
{
    if (is_help(v))
        help_exit("Available chardev backend types:\n  stdio\n  testdev\n");
    auto props = items(v, "backend");
    const std::string backend = props.empty() ? "" : props[0].second;
    std::string id;
    for (size_t i = 1; i < props.size(); i++) {
        if (props[i].first != "id")
            throw Refusal("-chardev " + backend + "," + props[i].first + ": pmvp's chardevs take an id only");
        id = props[i].second;
    }
    if (backend != "testdev" && backend != "stdio")
        throw Refusal("-chardev " + backend + ": pmvp's chardevs are testdev and stdio (-chardev help)");
    if (id.empty())
        throw Refusal("-chardev " + backend + ": chardev: no id specified");
    chardev_[id] = backend;
}

void QemuCommandLine::semihosting_config(const std::string &v)
{
    for (const auto &[key, value] : items(v, "enable")) {
        if (key == "enable")
            semihosting_ = on_off("-semihosting-config", key, value);
        else if (key == "target" && (value == "native" || value == "auto"))
            continue;  // the machine serves the calls itself
        else
            throw Refusal("-semihosting-config " + key + "=" + value + ": pmvp takes enable and target=native");
    }
}

// -serial and -display: the console is on standard output, and pmvp has no
// display; the values that say so are taken.
void QemuCommandLine::output(const std::string &option, const std::string &v, const char *const *taken)
{
    for (; *taken; taken++)
        if (v == *taken)
            return;
    throw Refusal(option + " " + v + ": pmvp's console goes to standard output (" + option + " " +
                  (option == "-serial" ? "stdio" : "none") + ")");
}

// The run's scenario: the virt scenario (or -pmvp-scenario's), its ISS
// clusters given the -cpu core and the -icount CPI, its machine QEMU's
// devices.
std::string QemuCommandLine::scenario() const
{
    std::string text = kVirtScenario;
    if (!scenario_path_.empty()) {
        std::ifstream f(scenario_path_);
        if (!f)
            throw Refusal("-pmvp-scenario " + scenario_path_ + ": cannot be read: " + std::strerror(errno));
        std::stringstream ss;
        ss << f.rdbuf();
        text = ss.str();
    }
    nlohmann::ordered_json j;
    try {
        j = nlohmann::ordered_json::parse(text, nullptr, true, true);
    } catch (const nlohmann::json::exception &e) {
        throw Refusal("-pmvp-scenario " + scenario_path_ + ": not a scenario: " + e.what());
    }
    if (!j.is_object() || !j["clusters"].is_array())
        throw Refusal("-pmvp-scenario " + scenario_path_ + ": not a scenario (no clusters)");
    auto &m = j["machine"];
    if (!m.is_object())
        m = nlohmann::ordered_json::object();
    m["type"] = "virt";
    m["semihosting"] = semihosting_;
    m["gic_version"] = gic_version_;
    m["pci_testdev"] = pci_testdev_;
    m["virtconsole"] = console_chardev_.empty()                     ? "none"
                       : chardev_.at(console_chardev_) == "testdev" ? "testdev"
                                                                    : "console";
    if (!dtb_.empty())
        m["dtb"] = dtb_;
    if (!semihosting_dir_.empty())
        m["semihosting_dir"] = semihosting_dir_;
    for (auto &c : j["clusters"]) {
        if (!c.is_object() || !c["cpu"].is_object() || c["cpu"].value("model", "") != "iss")
            continue;
        if (core_ != "max")
            c["core"] = core_;
        if (cpi_ != 1)
            c["cpu"]["cpi"] = cpi_;
        if (threads_ > 1) {
            c["num_pes"] = threads_;
            c["mt_policy"] = "smt";
        }
    }
    return j.dump(2);
}

void QemuCommandLine::finish()
{
    if (!console_chardev_.empty()) {
        if (!serial_bus_)
            throw Refusal("-device virtconsole: No 'virtio-serial-bus' bus found (-device virtio-serial-device)");
        if (!chardev_.count(console_chardev_))
            throw Refusal("-device virtconsole,chardev=" + console_chardev_ +
                          ": Property 'virtconsole.chardev' "
                          "can't find value '" +
                          console_chardev_ + "'");
    }
    if (!o_.overrides.duration)
        o_.overrides.duration = parse_time(kDefaultTime);
    o_.dumpdtb_path = dumpdtb_;
    o_.qemu.scenario = scenario();
    o_.quiet = !o_.qemu.report;
    if (o_.dumpdtb_path.empty() && o_.overrides.kernel.empty())
        throw Refusal("-kernel: pmvp's virt machine boots an image it is given (no firmware, no disk)");
}

}  // namespace

bool called_as_qemu(const char *argv0)
{
    const char *base = std::strrchr(argv0, '/');
    return std::strstr(base ? base + 1 : argv0, "qemu-system-aarch64") != nullptr;
}

Options parse_qemu_options(int argc, char **argv)
{
    Options o;
    o.qemu.on = true;
    o.overrides.machine = Machine::VIRT;
    QemuCommandLine line(o);
    try {
        line.parse(argc, argv);
        line.finish();
    } catch (const Refusal &e) {
        std::fprintf(stderr, "%s: %s\n", o.qemu.program.c_str(), e.what());
        std::exit(2);
    }
    // As QEMU says it (kvm-unit-tests' runner looks for these words).
    const std::string &kernel = o.overrides.kernel;
    if (!kernel.empty() && access(kernel.c_str(), R_OK) != 0) {
        std::fprintf(stderr, "%s: could not load kernel '%s': %s\n", o.qemu.program.c_str(), kernel.c_str(),
                     std::strerror(errno));
        std::exit(1);
    }
    return o;
}

}  // namespace pmvp::soc
