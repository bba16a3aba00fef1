// SPDX-License-Identifier: Apache-2.0
//
// pmvp-soc's own command line (cli.h): CLI11 parses it, pmvp's parsers
// read each value and name the option they refuse.
#include "cli.h"

#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "pmvp/config/core_file.h"
#include "pmvp/config/units.h"

extern "C" {
#include "pmvp/version.h"
}

namespace pmvp::soc {

// The program's name as its messages begin: pmvp-soc, or the QEMU front end's.
const char *program = "pmvp-soc";

// A message on standard error, after the program's name.
__attribute__((format(printf, 1, 2))) void say(const char *format, ...)
{
    std::fprintf(stderr, "%s: ", program);
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
}

[[noreturn]] void usage_error(const std::string &msg)
{
    say("%s\n(%s --help lists the options)\n", msg.c_str(), program);
    std::exit(2);
}

namespace {

// Below the generated list of options in --help.
const char kFooter[] = "Options take their value as --time 500us or --time=500us. --config FILE reads\n"
                       "them from a file, one per line (\"time = \\\"500us\\\"\", \"quiet = true\"), which\n"
                       "the command line overrides.\n"
                       "\n"
                       "Exit status: 0 success, 1 the reference model disagrees or the firmware failed,\n"
                       "2 bad arguments or scenario, 3 the simulation failed (or gnuplot, for --plot),\n"
                       "130 interrupted (SIGINT): the report covers the run up to the interruption.";

// Whether an executable of that name is on PATH.
bool on_path(const std::string &name)
{
    const char *path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    for (size_t a = 0; a <= dirs.size();) {
        size_t b = std::min(dirs.find(':', a), dirs.size());
        std::string dir = b > a ? dirs.substr(a, b - a) : ".";
        if (access((dir + "/" + name).c_str(), X_OK) == 0)
            return true;
        a = b + 1;
    }
    return false;
}

// An integer from lo to hi, or why not.
uint64_t integer(const std::string &v, uint64_t lo, uint64_t hi)
{
    char *end = nullptr;
    errno = 0;
    unsigned long long n = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || v[0] == '-' || *end || errno || n < lo || n > hi)
        throw std::invalid_argument("expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    return n;
}

// An option whose value `take` reads; its refusal names the option.
class Valued {
public:
    explicit Valued(CLI::App &app) : app_(app) {}
    void operator()(const std::string &names, const char *type, const std::string &help,
                    std::function<void(const std::string &)> take) const
    {
        std::string name = names.substr(names.find("--"));
        app_.add_option_function<std::string>(
                names,
                [name, take](const std::string &v) {
                    try {
                        take(v);
                    } catch (const std::invalid_argument &e) {
                        throw std::invalid_argument(name + ": " + e.what());
                    }
                },
                help)
            ->type_name(type);
    }

private:
    CLI::App &app_;
};

uint64_t above_zero(uint64_t v, const char *what)
{
    if (!v)
        throw std::invalid_argument(what);
    return v;
}

// The options of the ISS's machine, QEMU's names for QEMU's meanings
// (docs/FIRMWARE.md, "The virt machine").
void machine_options(CLI::App &app, Options &o, const Valued &valued)
{
    valued("--machine", "MACHINE",
           "the machine the ISS clusters make: pmvp (its own devices) or virt (QEMU's virt board, so images built "
           "for qemu-system-aarch64 -M virt boot unchanged; without a scenario file, one core)",
           [&](const std::string &v) {
               o.overrides.machine = parse_machine(v);
               if (o.overrides.machine < 0)
                   throw std::invalid_argument("expected pmvp or virt");
           });
    valued("--kernel", "IMAGE",
           "the image every ISS cluster runs: an ELF file; on the virt machine also an arm64 Linux Image or a raw "
           "binary, loaded as QEMU's -kernel loads it",
           [&](const std::string &v) {
               if (v.empty())
                   throw std::invalid_argument("expected a file");
               o.overrides.kernel = v;
           });
    valued("--append", "ARGS", "the virt machine's kernel command line (/chosen/bootargs), as QEMU's -append",
           [&](const std::string &v) {
               o.overrides.has_append = true;
               o.overrides.append = v;
           });
    valued("--initrd", "FILE",
           "the virt machine's initial RAM disk, loaded as QEMU's -initrd loads it (after a Linux Image or raw "
           "binary, /chosen/linux,initrd-start and -end in the device tree)",
           [&](const std::string &v) {
               if (v.empty())
                   throw std::invalid_argument("expected a file");
               o.overrides.initrd = v;
           });
    valued("-m,--memory", "SIZE",
           "the virt machine's RAM, as QEMU's -m: 256M, 1G (MiB without a suffix; "
           "default 128M)",
           [&](const std::string &v) { o.overrides.memory = parse_memory(v); });
    valued("--smp", "N", "the PEs of the one ISS cluster (cores x its threads), as QEMU's -smp",
           [&](const std::string &v) { o.overrides.smp = (unsigned)integer(v, 1, 8); });
    app.add_option("--dumpdtb", o.dumpdtb_path,
                   "write the virt machine's device tree blob to FILE and exit without running, as QEMU's "
                   "-machine dumpdtb=FILE")
        ->type_name("FILE");
    app.add_flag("--no-fast-forward", o.overrides.no_fast_forward,
                 "run the ISS's loops that poll the System Counter iteration by iteration (the same counts, "
                 "slower)");
}

// The options that override the scenario's SoC.
void soc_options(Options &o, const Valued &valued)
{
    valued("--cores", "N", "cores per cluster",
           [&](const std::string &v) { o.overrides.cores = (unsigned)integer(v, 1, 1024); });
    valued("--threads", "T", "PE threads per core (1-8)",
           [&](const std::string &v) { o.overrides.threads = (unsigned)integer(v, 1, PMVP_MAX_PES); });
    valued("--mt", "POLICY", "smt, fgmt or soemt", [&](const std::string &v) {
        o.overrides.mt_policy = parse_mt_policy(v);
        if (o.overrides.mt_policy < 0)
            throw std::invalid_argument("expected smt, fgmt or soemt");
    });
    valued("-f,--frequency", "F", "initial processor clock of every cluster, e.g. 2GHz",
           [&](const std::string &v) { o.overrides.hz = above_zero(parse_hz(v), "must be above 0 Hz"); });
    valued("-t,--time", "T", "simulated time, e.g. 500us",
           [&](const std::string &v) { o.overrides.duration = above_zero(parse_time(v), "must be longer than 0 ps"); });
    valued("--quantum", "T",
           "how far the CPU models run ahead of simulated time (loosely timed; counts do not depend on it), "
           "e.g. 100us",
           [&](const std::string &v) { o.overrides.quantum = above_zero(parse_time(v), "must be longer than 0 ps"); });
    valued("--detail", "LEVEL", "pe, core or soc (default: by SoC size)", [&](const std::string &v) {
        static const std::pair<const char *, Detail> levels[] = { { "pe", Detail::PE },
                                                                  { "core", Detail::CORE },
                                                                  { "soc", Detail::SOC } };
        for (const auto &[n, d] : levels)
            if (v == n) {
                o.detail = d;
                return;
            }
        throw std::invalid_argument("expected pe, core or soc");
    });
}

// What the run writes, and how.
void output_options(CLI::App &app, Options &o, const Valued &valued)
{
    app.add_option("-j,--json", o.json_path,
                   "also write the results as JSON (- for stdout, the readable report then going to stderr)")
        ->type_name("FILE");
    valued("-I,--interval", "T",
           "also print the counts of every interval T of simulated time as it ends, like perf stat -I, e.g. 100us",
           [&](const std::string &v) { o.interval = above_zero(parse_time(v), "must be longer than 0 ps"); });
    valued("-x,--field-separator", "SEP",
           "print the report (and the intervals) as CSV with this separator, e.g. -x, (a header row first)",
           [&](const std::string &v) {
               if (v.empty() || v.find_first_of("\"\n\r") != std::string::npos)
                   throw std::invalid_argument("expected a separator that is not empty, a quote or a line end");
               o.csv = v;
           });
    app.add_option("--plot", o.plot_path,
                   "draw the intervals (counter rates, IPC, PMUIRQ) over simulated time to FILE (.png, .svg or "
                   ".pdf) with gnuplot; without -I, 100 intervals")
        ->type_name("FILE");
    app.add_option("--vcd", o.vcd_path, "trace counters, PMUIRQ and WFx to a VCD file")->type_name("FILE");
    valued("--vcd-limit", "MIB", "stop tracing when the VCD file passes this size (default 1024 MiB; 0: no limit)",
           [&](const std::string &v) { o.vcd_limit_mib = integer(v, 0, UINT64_MAX / (1024 * 1024)); });
    app.add_flag("--detached", o.detached,
                 "run the CPU models without the monitors (no bus, firmware or counts): the platform's own cost, "
                 "for comparison");
    app.add_flag("-q,--quiet", o.quiet, "no readable report (a --check verdict still prints)");
}

// --check and its limit, and the options that run no simulation.
void check_options(CLI::App &app, Options &o, const Valued &valued, bool &presets)
{
    app.add_flag("--check", o.check,
                 "run the per-cycle reference model beside the lazy model and compare every value the firmware read");
    valued("--check-limit", "N",
           "largest run --check accepts, in processor cycles summed over cores (default 400000000)",
           [&](const std::string &v) { o.check_limit = integer(v, 0, UINT64_MAX); });
    app.add_flag("--show-config", o.show_config,
                 "print each cluster's core as it would run (every key of a core description, docs/CORE.md) and "
                 "the ID registers it implies, as JSON, and exit without running");
    app.add_flag("--presets", presets, "list the core descriptions built in (a cluster's \"core\")");
}

// --save-at and --restore.
void checkpoint_options(CLI::App &app, Options &o, std::vector<std::string> &save)
{
    app.add_option("--save-at", save,
                   "T FILE: save a checkpoint of the run at simulated time T to FILE, and go on to the end")
        ->expected(2)
        ->type_name("ARG");
    app.add_option("--restore", o.restore_path,
                   "go on from the checkpoint in FILE: the run it was taken from (its scenario and overrides), "
                   "from its instant")
        ->type_name("FILE");
}

// What CLI11 left: a second scenario, or an unknown option, said with the
// nearest known one.
void refuse_extras(const CLI::App &app, const Options &o)
{
    for (const std::string &extra : app.remaining()) {
        if (extra.empty() || extra[0] != '-')
            usage_error("more than one scenario file (" + o.scenario_path + ", " + extra + ")");
        std::string option = extra.substr(0, extra.find('=')), nearest;
        size_t best = SIZE_MAX;
        for (const CLI::Option *known : app.get_options())
            for (const std::string &name : known->get_lnames())
                if (size_t d = pmvp::config::edit_distance(option, "--" + name); d < best) {
                    best = d;
                    nearest = "--" + name;
                }
        // A third of the name mistyped at most, so "--tme" finds --time and
        // "--bogus" nothing.
        usage_error("unknown option " + option + (best <= option.size() / 3 ? " (did you mean " + nearest + "?)" : ""));
    }
}

// The options against one another, once parsed; --save-at's pair read.
// Exits with status 2, naming the option, for a combination refused.
void check_combinations(Options &o, const std::vector<std::string> &save)
{
    if (!save.empty()) {
        try {
            o.save_at = parse_time(save[0]);
        } catch (const std::invalid_argument &e) {
            usage_error(std::string("--save-at: ") + e.what());
        }
        if (!o.save_at)
            usage_error("--save-at: the instant must be after 0 ps (nothing has run at 0)");
        o.save_path = save[1];
    }
    if (o.detached &&
        (o.check || !o.json_path.empty() || !o.vcd_path.empty() || o.save_at || o.interval || !o.plot_path.empty()))
        usage_error("--detached runs no monitors: nothing to --check, --json, --vcd, --save-at, --interval or --plot");
    if (!o.plot_path.empty()) {
        std::string ext = o.plot_path.size() >= 4 ? o.plot_path.substr(o.plot_path.size() - 4) : "";
        if (ext != ".png" && ext != ".svg" && ext != ".pdf")
            usage_error("--plot: " + o.plot_path + ": the picture's name must end in .png, .svg or .pdf");
        if (!on_path("gnuplot"))
            usage_error("--plot: gnuplot draws the picture and is not installed (on Debian: apt-get install "
                        "gnuplot-nox)");
    }
    if (!o.restore_path.empty()) {
        const Overrides none;
        const Overrides &v = o.overrides;
        if (!o.scenario_path.empty() || v.cores != none.cores || v.threads != none.threads ||
            v.mt_policy != none.mt_policy || v.hz != none.hz || v.duration != none.duration ||
            v.quantum != none.quantum || v.machine != none.machine || !v.kernel.empty() || v.has_append ||
            !v.initrd.empty() || v.memory || v.smp || v.no_fast_forward)
            usage_error("--restore: the checkpoint holds the run's scenario and overrides: give no scenario file, "
                        "--cores, --threads, --mt, --frequency, --time, --quantum, --machine, --kernel, --append, "
                        "--initrd, --memory, --smp or --no-fast-forward with it");
        if (o.check)
            usage_error("--check: the per-cycle reference model replays a run's inputs from its start, which a "
                        "checkpoint does not hold; it does not apply with --restore");
        if (o.detached)
            usage_error("--detached: a checkpoint holds the monitors' state; it does not apply with --restore");
    }
}

}  // namespace

// The command line, parsed by CLI11: --opt value, --opt=value, short
// options, a --config file. Every value is read by pmvp's own parsers,
// whose refusals name the option; an unknown option gets the nearest one.
Options parse_options(int argc, char **argv)
{
    Options o;
    CLI::App app("Runs a scenario on the example SoC and reports what its PMUs and AMUs saw. Without "
                 "SCENARIO.json, runs the built-in default scenario (docs/PMVP-SOC.md).",
                 "pmvp-soc");
    app.footer(kFooter);
    app.set_version_flag("-V,--version", std::string("pmvp-soc ") + pmvp_version(), "the pmvp version");
    app.set_config("--config", "", "read options from FILE (TOML or INI), before the command line's")
        ->type_name("FILE");
    app.allow_extras();  // an unknown option or a second scenario is said below, with a suggestion
    app.add_option("scenario", o.scenario_path, "a scenario file; without one, the built-in default")
        ->type_name("SCENARIO.json");
    const Valued valued(app);
    bool presets = false;
    std::vector<std::string> save;
    soc_options(o, valued);
    machine_options(app, o, valued);
    output_options(app, o, valued);
    check_options(app, o, valued, presets);
    checkpoint_options(app, o, save);
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success &e) {  // --help, --version
        std::exit(app.exit(e));
    } catch (const CLI::ParseError &e) {
        usage_error(e.what());
    } catch (const std::invalid_argument &e) {
        usage_error(e.what());
    }
    refuse_extras(app, o);
    if (presets) {
        for (const std::string &name : pmvp::config::CoreDescription::presets())
            std::printf("%-16s %s\n", name.c_str(), pmvp::config::CoreDescription::load(name).description().c_str());
        std::exit(0);
    }
    check_combinations(o, save);
    return o;
}

}  // namespace pmvp::soc
