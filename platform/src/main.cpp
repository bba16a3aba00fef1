// SPDX-License-Identifier: Apache-2.0
//
// pmvp-soc: builds the example SoC from a scenario, runs it, and reports what
// the monitors saw. `pmvp-soc --help` lists the options; docs/PMVP-SOC.md
// describes scenarios, the memory map and the outputs.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <systemc>

#include <CLI/CLI.hpp>

#include "options.h"
#include "progress.h"
#include "qemu_cli.h"
#include "report.h"
#include "scenario.h"
#include "soc.h"
#include "iss.h"
#include "sebep_platform.h"
#include "x86_platform.h"

extern "C" {
#include "pmvp/fields.h"
#include "pmvp/version.h"
}

namespace pmvp::soc {
extern const char *const kDefaultScenario;  // platform/scenarios/default.json, embedded
}

using namespace pmvp::soc;

namespace {

// Below the generated list of options in --help.
const char kFooter[] = "Options take their value as --time 500us or --time=500us. --config FILE reads\n"
                       "them from a file, one per line (\"time = \\\"500us\\\"\", \"quiet = true\"), which\n"
                       "the command line overrides.\n"
                       "\n"
                       "Exit status: 0 success, 1 the reference model disagrees or the firmware failed,\n"
                       "2 bad arguments or scenario, 3 the simulation failed (or gnuplot, for --plot),\n"
                       "130 interrupted (SIGINT): the report covers the run up to the interruption.";


// The file name SystemC is given for a VCD: without its extension, which it adds.
std::string vcd_base(const std::string &path)
{
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".vcd") == 0)
        return path.substr(0, path.size() - 4);
    return path;
}

// The most intervals --interval prints.
constexpr pmvp_time kMaxIntervals = 10000;

// A GTKWave save file for the VCD: every traced signal, the 64-bit ones
// (counters, frequency) as analog step traces three rows high, the others
// as levels. Opened with `gtkwave FILE.gtkw`. False if it cannot be written.
bool write_gtkwave_save(const std::string &path, const std::string &vcd,
                        const std::vector<pmvp::sc::Monitors::TracedSignal> &signals)
{
    // GTKWave's trace flags: decimal, right-justified; analog step; a
    // blank row that stretches the analog trace above it.
    constexpr unsigned kDec = 0x4, kBin = 0x8, kRight = 0x20, kAnalogStep = 0x8000, kStretch = 0x20000;
    std::ofstream f(path);
    f << "[*] pmvp-soc: the monitors' signals, counters as analog traces\n";
    f << "[dumpfile] \"" << std::filesystem::absolute(vcd).string() << "\"\n";
    for (const auto &sig : signals) {
        // SystemC's VCD writer puts every signal under the scope SystemC.
        if (sig.bits == 1) {
            f << "@" << std::hex << (kRight | kBin) << std::dec << "\nSystemC." << sig.name << "\n";
            continue;
        }
        f << "@" << std::hex << (kAnalogStep | kRight | kDec) << std::dec << "\nSystemC." << sig.name << "[63:0]\n";
        f << "@" << std::hex << kStretch << std::dec << "\n-\n-\n";
    }
    return (bool)f;
}

// SystemC writes a timestep's values to a VCD when time advances past it;
// the run stops at its last instant (the firmware's final read) without
// that, so the values there (Monitors::sample_trace) are added here: each
// traced signal under its identifier in the file's header. False if the file
// cannot be read or written.
bool append_final_values(const std::string &path, pmvp_time at,
                         const std::vector<pmvp::sc::Monitors::TracedSignal> &signals)
{
    std::map<std::string, std::string> code;  // full name -> VCD identifier
    std::vector<std::string> scopes;
    {
        std::ifstream f(path);
        std::string line;
        while (std::getline(f, line) && line.find("$enddefinitions") == std::string::npos) {
            std::istringstream w(line);
            std::string kw, a, b, c, d;
            w >> kw;
            if (kw == "$scope" && (w >> a >> b))
                scopes.push_back(b);
            else if (kw == "$upscope" && !scopes.empty())
                scopes.pop_back();
            else if (kw == "$var" && (w >> a >> b >> c >> d)) {
                std::string name;
                for (size_t i = 1; i < scopes.size(); i++)  // below the scope SystemC
                    name += scopes[i] + ".";
                code[name + d] = c;
            }
        }
        if (!f)
            return false;
    }
    // SystemC's closing of the file may have written the instant already.
    std::string tail;
    {
        std::ifstream f(path, std::ios::binary | std::ios::ate);
        std::streamoff size = f.tellg();
        f.seekg(std::max<std::streamoff>(0, size - 256));
        tail.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    size_t last = tail.rfind("\n#");
    std::ofstream out(path, std::ios::app);
    if (last == std::string::npos || std::strtoull(tail.c_str() + last + 2, nullptr, 10) != at)
        out << "#" << at << "\n";
    for (const auto &sig : signals) {
        auto it = code.find(sig.name);
        if (it == code.end())
            return false;
        uint64_t v = sig.sampled();
        if (sig.bits == 1) {
            out << (v ? "1" : "0") << it->second << "\n";
            continue;
        }
        std::string bits;
        for (; v; v >>= 1)
            bits.insert(bits.begin(), char('0' + (v & 1)));
        out << "b" << (bits.empty() ? "0" : bits) << " " << it->second << "\n";
    }
    return (bool)out;
}

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
            !v.initrd.empty() || v.memory || v.smp)
            usage_error("--restore: the checkpoint holds the run's scenario and overrides: give no scenario file, "
                        "--cores, --threads, --mt, --frequency, --time, --quantum, --machine, --kernel, --append, "
                        "--initrd, --memory or --smp with it");
        if (o.check)
            usage_error("--check: the per-cycle reference model replays a run's inputs from its start, which a "
                        "checkpoint does not hold; it does not apply with --restore");
        if (o.detached)
            usage_error("--detached: a checkpoint holds the monitors' state; it does not apply with --restore");
    }
}

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

// The start of a checkpoint: the pmvp version that wrote it (whose
// platform's state follows), what a restored run needs to build the
// platform (the scenario's text and the overrides it ran with), the instant.
template <class A> void run_header(A &a, std::string &text, std::string &source, Overrides &ov, pmvp_time &at)
{
    std::string version = pmvp_version();
    a("pmvp version", version);
    if (version != pmvp_version())
        throw CheckpointError("the checkpoint was taken by pmvp-soc " + version + "; this is pmvp-soc " +
                              pmvp_version() + ", whose platform keeps other state");
    a("scenario", text);
    a("scenario source", source);
    a("--cores", ov.cores);
    a("--threads", ov.threads);
    a("--mt", ov.mt_policy);
    a("--frequency", ov.hz);
    a("--time", ov.duration);
    a("--quantum", ov.quantum);
    a("--machine", ov.machine);
    a("--kernel", ov.kernel);
    a("--append given", ov.has_append);
    a("--append", ov.append);
    a("--initrd", ov.initrd);
    a("--memory", ov.memory);
    a("--smp", ov.smp);
    a("instant", at);
}

// The run to make: its scenario, and what it does with checkpoints.
struct Run {
    Scenario s;
    std::string text, source;
    bool from_file = false;  // source is the path of a scenario file
    Overrides overrides;
    std::unique_ptr<Loader> resume;  // --restore: the checkpoint, its header read
    pmvp_time resume_at = 0;
    CheckpointPlan plan(const Options &o);
};

CheckpointPlan Run::plan(const Options &o)
{
    CheckpointPlan p;
    p.resume = resume.get();
    p.resume_at = resume_at;
    p.save_at = o.save_at;
    p.save_path = o.save_path;
    p.header = [this, at = o.save_at](Saver &a) {
        pmvp_time instant = at;
        // A scenario file's path as an absolute one: a firmware image it
        // names is found from it, wherever the restored run starts.
        std::string from = source;
        if (from_file)
            from = std::filesystem::absolute(source).string();
        run_header(a, text, from, overrides, instant);
    };
    return p;
}

Run load(const Options &o)
{
    Run r;
    r.text = kDefaultScenario;
    r.source = "default scenario";
    r.overrides = o.overrides;
    if (!o.restore_path.empty()) {
        try {
            r.resume = std::make_unique<Loader>(read_file(o.restore_path));
            run_header(*r.resume, r.text, r.source, r.overrides, r.resume_at);
            r.from_file = !r.source.empty() && r.source.front() == '/';
        } catch (const CheckpointError &e) {
            throw ScenarioError(o.restore_path + ": " + e.what());
        }
    } else if (o.qemu.on) {
        r.text = o.qemu.scenario;
        r.source = "the QEMU command line's scenario";
    } else if (o.scenario_path.empty() && (o.overrides.machine == Machine::VIRT || !o.overrides.kernel.empty())) {
        r.text = kVirtScenario;
        r.source = "virt scenario";
    } else if (!o.scenario_path.empty()) {
        struct stat st {};
        if (stat(o.scenario_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            throw ScenarioError(o.scenario_path + ": is a directory, not a scenario file");
        std::ifstream f(o.scenario_path);
        if (!f)
            throw ScenarioError(o.scenario_path + ": cannot be read: " + std::strerror(errno));
        std::stringstream ss;
        ss << f.rdbuf();
        r.text = ss.str();
        r.source = o.scenario_path;
        r.from_file = true;
    }
    r.s = parse_scenario(r.text, r.source);
    try {
        apply_overrides(r.s, r.overrides);
    } catch (const ScenarioError &e) {
        throw ScenarioError(std::string("with the command line's overrides, ") + e.what());
    }
    if (r.resume && r.resume_at >= r.s.duration)
        throw ScenarioError(o.restore_path + ": the checkpoint's instant is not before the end of its run");
    if (o.save_at && (o.save_at <= r.resume_at || o.save_at >= r.s.duration))
        throw ScenarioError("--save-at " + time_text(o.save_at) + ": the instant must be after " +
                            (r.resume ? "the restored checkpoint's, " + time_text(r.resume_at) : "0 ps") +
                            ", and before the end of the run, " + time_text(r.s.duration));
    return r;
}

// The reference model's work: every processor cycle of every core.
uint64_t reference_cycles(const Scenario &s)
{
    long double cycles = 0;
    for (const Cluster &c : s.clusters) {
        uint64_t hz = c.config.processor_hz;
        for (const DvfsStep &d : c.dvfs)
            hz = std::max(hz, d.hz);
        cycles += (long double)s.duration * hz / 1e12L * c.cores;
    }
    return cycles > 1.8e19L ? UINT64_MAX : (uint64_t)cycles;
}

// The readable report goes to standard output, unless the JSON does
// (--json -): then standard output holds the JSON alone, for a pipe.
FILE *report_stream(const Options &o)
{
    if (o.qemu.on)
        return o.qemu.report ? o.qemu.report : stderr;  // (stderr: only a --check verdict, which it has not)
    return o.json_path == "-" ? stderr : stdout;
}

// Writes `text` to the --json destination; false if it cannot.
bool write_json(const Options &o, const std::string &text)
{
    if (o.json_path == "-") {
        std::fputs(text.c_str(), stdout);
        return true;
    }
    std::ofstream f(o.json_path);
    f << text;
    if (!f)
        say("%s: cannot be written\n", o.json_path.c_str());
    return (bool)f;
}

// Where a run that SIGINT ended stopped: the report and the JSON describe
// the run up to there.
void cut_short(Scenario &s)
{
    pmvp_time at = sc_core::sc_time_stamp().value();
    say("interrupted at %s of %s: the report covers the run up to there\n", time_text(at).c_str(),
        time_text(s.duration).c_str());
    s.duration = at;
}

// A scenario of its own kind (x86, SEBEP): run it, print its report, write
// its JSON. The Arm cluster options do not apply.
template <class Result> int run_standalone(Run &job, const Options &o,
                                           Result (*run)(const Scenario &, const CheckpointPlan &),
                                           void (*print)(FILE *, const Scenario &, const Result &),
                                           nlohmann::json (*to_json)(const Scenario &, const Result &))
{
    if (o.check || o.detached || !o.vcd_path.empty() || o.detail != Detail::AUTO || o.interval ||
        !o.plot_path.empty() || !o.csv.empty())
        usage_error("--check, --detached, --vcd, --detail, --interval, --plot and -x apply to Arm cluster "
                    "scenarios only");
    Scenario &s = job.s;
    Result result;
    auto start = std::chrono::steady_clock::now();
    catch_interrupts(true);
    try {
        result = run(s, job.plan(o));
    } catch (const CheckpointError &e) {
        say("%s: %s\n", o.restore_path.empty() ? o.save_path.c_str() : o.restore_path.c_str(), e.what());
        return 2;
    } catch (const std::exception &e) {
        say("the simulation failed: %s\n", e.what());
        return 3;
    }
    catch_interrupts(false);
    const bool interrupted = interrupt_requested() && sc_core::sc_time_stamp().value() < s.duration;
    if (interrupted)
        cut_short(s);
    if (!o.quiet)
        print(report_stream(o), s, result);
    double host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!o.json_path.empty()) {
        nlohmann::ordered_json j = report_header(s, host_seconds);
        const nlohmann::json body = to_json(s, result);
        j["interrupted"] = interrupted;
        for (const auto &[key, value] : body.items())
            j[key] = value;
        if (!write_json(o, j.dump(2) + "\n"))
            return 2;
    }
    return interrupted ? 130 : 0;
}

// --dumpdtb: the virt machine's device tree to `path`, as QEMU's
// -machine dumpdtb=; pmvp-soc's exit status.
int dump_dtb(const Scenario &s, const std::string &path)
{
    if (s.machine.kind != Machine::VIRT)
        usage_error("--dumpdtb: the pmvp machine has no device tree; the virt machine has (--machine virt)");
    std::vector<uint8_t> dtb = virt_boot(s, iss_image(s)).dtb;
    FILE *f = std::fopen(path.c_str(), "wb");
    bool written = f && std::fwrite(dtb.data(), 1, dtb.size(), f) == dtb.size();
    if (f)
        written = std::fclose(f) == 0 && written;
    if (!written) {
        say("%s: cannot be written: %s\n", path.c_str(), std::strerror(errno));
        return 2;
    }
    return 0;
}

// Stage 2 of pmvp-soc: the run's scenario (a file, the default, or a
// checkpoint's), its warnings, and the output files, which are found
// unwritable before the run rather than after it; 0, or the exit status.
int load_run(const Options &o, Run &job)
{
    try {
        job = load(o);
    } catch (const ScenarioError &e) {
        say("%s\n", e.what());
        return 2;
    }
    for (const std::string &w : job.s.warnings)
        say("warning: %s\n", w.c_str());
    for (const std::string &path :
         { o.json_path == "-" ? std::string() : o.json_path,
           o.vcd_path.empty() ? std::string() : vcd_base(o.vcd_path) + ".vcd",
           o.vcd_path.empty() ? std::string() : vcd_base(o.vcd_path) + ".gtkw", o.save_path, o.plot_path }) {
        if (path.empty())
            continue;
        FILE *f = std::fopen(path.c_str(), "a");
        if (!f) {
            say("%s: cannot be written: %s\n", path.c_str(), std::strerror(errno));
            return 2;
        }
        std::fclose(f);
    }
    return 0;
}

// --show-config: each Arm cluster's core as it would run, as JSON.
int show_config(const Scenario &s)
{
    if (s.clusters.empty())
        usage_error("--show-config: this scenario has no Arm clusters, whose cores it shows");
    nlohmann::ordered_json j;
    j["schema"] = "pmvp-soc-config/1";
    for (const Cluster &c : s.clusters)
        j["clusters"].push_back({ { "name", c.name }, { "cores", c.cores }, { "core", core_json(c) } });
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
}

// The options that apply to some SoCs only, against this one; --interval
// made from --plot's default. Exits with status 2 for one that does not apply.
void check_soc_options(Options &o, const Run &job)
{
    const Scenario &s = job.s;
    // The ISS's inputs are not journalled, and a guest's accesses to the
    // analytic cores' frames are not the firmware agent's: --check compares
    // the analytic model alone.
    if (o.check && s.has_iss())
        usage_error("--check: this scenario has ISS clusters, whose inputs the per-cycle reference model does "
                    "not see; it applies to scenarios of analytic clusters only");
    if (o.detail != Detail::AUTO && !s.has_analytic())
        usage_error("--detail: the report of this scenario's ISS clusters is per PE; the levels apply to "
                    "analytic clusters");
    if ((o.interval || !o.plot_path.empty() || !o.csv.empty()) && !s.has_analytic())
        usage_error("--interval, --plot and -x: the counters they show are the analytic clusters' (the firmware "
                    "agent programs them); this scenario's ISS clusters have their guests' report");
    if (!o.plot_path.empty() && !o.interval)
        o.interval = std::max<pmvp_time>(1, s.duration / 100);
    if (o.interval) {
        const pmvp_time run = s.duration - job.resume_at;
        if (o.interval > run)
            usage_error("--interval: " + time_text(o.interval) + " is longer than the run (" + time_text(run) + ")");
        if (run / o.interval > kMaxIntervals)
            usage_error("--interval: " + time_text(o.interval) + " makes " + std::to_string(run / o.interval) +
                        " intervals of a " + time_text(run) + " run; at most " + std::to_string(kMaxIntervals) +
                        " are printed (a longer interval, or --time)");
    }
    if (o.check && reference_cycles(s) > o.check_limit) {
        std::fprintf(stderr,
                     "pmvp-soc: --check: this run is %llu processor cycles, more than the per-cycle reference "
                     "model is allowed (--check-limit %llu); shorten it with --time or raise the limit\n",
                     (unsigned long long)reference_cycles(s), (unsigned long long)o.check_limit);
        std::exit(2);
    }
}

// --vcd: the counters, PMUIRQ and WFx of every core to a VCD file (and a
// GTKWave save file beside it), which stops growing past --vcd-limit.
class VcdTrace {
public:
    VcdTrace(const Options &o, Soc &soc) : o_(o), soc_(soc) {}
    ~VcdTrace()
    {
        if (file_)
            sc_core::sc_close_vcd_trace_file(file_);
    }
    // Opens the file and names the traced signals; false if the GTKWave
    // file cannot be written.
    bool open(const Scenario &s);
    // Called as the run goes: stops tracing past the size limit.
    void watch();
    // Closes the file, with the values at the end of the run; false if they
    // cannot be added.
    bool close();

private:
    std::string vcd() const { return vcd_base(o_.vcd_path) + ".vcd"; }
    const Options &o_;
    Soc &soc_;
    sc_core::sc_trace_file *file_ = nullptr;
    std::vector<pmvp::sc::Monitors::TracedSignal> signals_;
    bool capped_ = false;
};

bool VcdTrace::open(const Scenario &s)
{
    file_ = sc_core::sc_create_vcd_trace_file(vcd_base(o_.vcd_path).c_str());
    for (auto &core : soc_.cores) {
        // The analytic cores' counters are named after the events the
        // firmware agent programs into them; the ISS cores' guests program
        // theirs.
        if (!core->cluster.iss()) {
            std::vector<std::string> events(core->cluster.config.num_counters);
            for (const CounterSetup &c : s.firmware.counters)
                if (c.counter < events.size())
                    events[c.counter] = event_name(c.event) + (c.evtyper & PMVP_PMEVTYPER_EL0_MT ? "_MT" : "");
            core->monitors->name_traced_counters(events);
        }
        core->monitors->trace(file_);
        const auto &traced = core->monitors->traced_signals();
        signals_.insert(signals_.end(), traced.begin(), traced.end());
    }
    std::string gtkw = vcd_base(o_.vcd_path) + ".gtkw";
    if (write_gtkwave_save(gtkw, vcd(), signals_))
        return true;
    say("%s: cannot be written: %s\n", gtkw.c_str(), std::strerror(errno));
    return false;
}

void VcdTrace::watch()
{
    struct stat st {};
    if (!file_ || capped_ || !o_.vcd_limit_mib || stat(vcd().c_str(), &st) != 0 ||
        (uint64_t)st.st_size <= o_.vcd_limit_mib * 1024 * 1024)
        return;
    capped_ = true;
    for (auto &core : soc_.cores)
        core->monitors->stop_tracing();
    say("%s passed %llu MiB at %s of simulated time: tracing stops there (--vcd-limit)\n", o_.vcd_path.c_str(),
        (unsigned long long)o_.vcd_limit_mib, time_text(sc_core::sc_time_stamp().value()).c_str());
}

bool VcdTrace::close()
{
    sc_core::sc_close_vcd_trace_file(file_);
    file_ = nullptr;
    if (capped_)
        return true;
    for (auto &core : soc_.cores)
        core->monitors->sample_trace();
    if (append_final_values(vcd(), sc_core::sc_time_stamp().value(), signals_))
        return true;
    say("%s: the values at the end of the run could not be added\n", o_.vcd_path.c_str());
    return false;
}

// --check: every core's journal replayed into the per-cycle reference model.
void check_cores(Soc &soc, RunInfo &run)
{
    run.checked = true;
    // The per-cycle replay is slow: its progress, core by core.
    Progress shown(0, soc.cores.size(), [&](uint64_t done) {
        return "--check: " + std::to_string(done) + " of " + std::to_string(soc.cores.size()) + " cores replayed";
    });
    for (auto &core : soc.cores) {
        run.checks.push_back(check_against_reference(core->monitors->kernel().cfg, core->journal));
        shown.at(run.checks.size());
    }
}

// The readable report of a finished SoC run, and its JSON; 0, or the exit status.
int write_soc_outputs(const Options &o, const Scenario &s, Soc &soc, const RunInfo &run,
                      const std::optional<IssResult> &iss, IntervalReport *intervals)
{
    FILE *out = report_stream(o);
    if (!o.quiet) {
        if (s.has_analytic())
            print_report(out, soc, run, o.detail, o.csv);
        else if (run.checked)
            print_check(out, run);
        if (iss)
            print_iss_report(out, s, *iss);
    } else if (run.checked) {
        print_check(out, run);  // the verdict is what --check was asked for
    }
    if (!o.json_path.empty()) {
        nlohmann::ordered_json j;
        if (s.has_analytic()) {
            j = report_json(soc, run);
            if (intervals)
                j.update(intervals->json());
            if (iss)
                j["iss"] = iss_report_json(s, *iss);
        } else {
            j = iss_report_json(s, *iss);
        }
        if (!write_json(o, j.dump(2) + "\n"))
            return 2;
    }
    // After the JSON: a picture that fails costs no data.
    if (!o.plot_path.empty()) {
        if (std::string why = intervals->plot(o.plot_path); !why.empty()) {
            say("--plot: %s\n", why.c_str());
            return 3;
        }
    }
    return 0;
}

// A --detached run's short report; its exit status.
int finish_detached(const Options &o, const Scenario &s, Soc &soc, const RunInfo &run,
                    const std::optional<IssResult> &iss)
{
    if (run.interrupted)
        return 130;
    FILE *out = report_stream(o);
    if (!o.quiet && s.has_analytic())
        std::fprintf(out, "pmvp-soc: %s: %zu PEs, %s simulated without monitors in %.2f s\n", s.name.c_str(),
                     soc.pes.size(), time_text(s.duration).c_str(), run.host_seconds);
    if (!o.quiet && iss)
        print_iss_report(out, s, *iss);
    return sc_core::sc_time_stamp().value() == s.duration || soc.ended_early ? 0 : 3;
}

// The exit status of a finished run that wrote its outputs: the firmware's
// or the reference model's verdict, or the interruption.
int verdict(const RunInfo &run, const std::optional<IssResult> &iss)
{
    for (const CheckResult &c : run.checks)
        if (c.num_disagreements)
            return 1;
    if (run.interrupted)
        return 130;
    if (iss && !iss->all_exited())
        say("the firmware of some PE did not exit by the end of the scenario\n");
    return iss && !iss->all_passed() ? 1 : 0;
}

// The exit status QEMU gives for the machine's end: the semihosting exit's
// status, chr-testdev's (N << 1) | 1, 0 after PSCI SYSTEM_OFF or (with
// -no-reboot) SYSTEM_RESET. A guest that did not end the machine is said.
int qemu_status(const Options &o, const Scenario &s, const Guest &guest, const RunInfo &run)
{
    if (run.interrupted)
        return 130;
    if (!guest.ended) {
        say("the guest did not end the machine (PSCI SYSTEM_OFF, semihosting SYS_EXIT, chr-testdev) within %s of "
            "simulated time (-pmvp-time)\n",
            time_text(s.duration).c_str());
        return 1;
    }
    if (guest.reset_asked && !o.qemu.no_reboot)
        say("the guest asked for a reset (PSCI SYSTEM_RESET): the machine does not reboot; it ended as with "
            "-no-reboot\n");
    return (int)(guest.end_status & 0xFF);
}

// The simulation of the SoC, with SIGINT ending it where it is; its host
// time in `run`. 0, or the exit status of a run that failed.
int simulate_soc(const Options &o, Run &job, Soc &soc, RunInfo &run)
{
    catch_interrupts(true);
    auto start = std::chrono::steady_clock::now();
    try {
        simulate(soc, job.plan(o));
    } catch (const CheckpointError &e) {
        say("%s: %s\n", o.restore_path.empty() ? o.save_path.c_str() : o.restore_path.c_str(), e.what());
        return 2;
    } catch (const sc_core::sc_report &e) {
        // A platform component refused to go on (the message says which).
        say("the simulation failed: %s\n", e.what());
        return 3;
    }
    catch_interrupts(false);
    run.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return 0;
}

// The SoC the scenario describes; null, said, for one that cannot be made
// (a firmware image that cannot be loaded).
std::unique_ptr<Soc> make_soc(const Options &o, Run &job)
{
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS)) {
        say("SystemC's time resolution must be 1 ps\n");
        return nullptr;
    }
    try {
        auto soc = std::make_unique<Soc>("soc", job.s, o.check, !o.detached, job.resume_at);
        soc->progress = !o.qemu.on;  // QEMU's standard error stays empty
        if (o.qemu.on)
            soc->guest->console_stream = stdout;
        return soc;
    } catch (const ScenarioError &e) {
        say("%s\n", e.what());
        return nullptr;
    }
}

// Stage 3 for an SoC of Arm clusters (analytic, ISS, the virt machine):
// the platform, the run (SIGINT ends it where it is, with a report of what
// was counted), the outputs; the exit status.
int run_soc(Options &o, Run &job)
{
    check_soc_options(o, job);
    Scenario &s = job.s;
    std::unique_ptr<Soc> soc_holder = make_soc(o, job);
    if (!soc_holder)
        return 2;
    Soc &soc = *soc_holder;
    VcdTrace vcd(o, soc);
    if (!o.vcd_path.empty() && !vcd.open(s))
        return 2;
    soc.watch = [&] {
        if (interrupt_requested())
            soc.interrupt();
        vcd.watch();
    };
    std::unique_ptr<IntervalReport> intervals;
    if (o.interval) {
        intervals = std::make_unique<IntervalReport>(soc, o.detail, o.interval, o.quiet ? nullptr : report_stream(o),
                                                     o.csv, !o.json_path.empty() || !o.plot_path.empty());
        soc.sample_every(o.interval, [&](pmvp_time t) { intervals->sample(t); });
    }
    RunInfo run;
    if (int status = simulate_soc(o, job, soc, run))
        return status;
    if (!o.vcd_path.empty() && !vcd.close())
        return 3;
    if (soc.interrupted) {
        cut_short(s);
        run.interrupted = true;
    }
    std::optional<IssResult> iss;
    if (s.has_iss())
        iss = iss_result(soc, run.host_seconds);
    if (o.detached)
        return finish_detached(o, s, soc, run, iss);
    // The run ends at the scenario's end, or earlier when SIGINT came or
    // every guest exited (and nothing else runs).
    if (!soc.ended_early && soc.firmware->finished != s.duration) {
        say("the simulation stopped before the end of the scenario\n");
        return 3;
    }
    if (intervals)
        intervals->finish();
    if (o.check)
        check_cores(soc, run);
    if (int status = write_soc_outputs(o, s, soc, run, iss, intervals.get()))
        return status;
    return o.qemu.on ? qemu_status(o, s, *soc.guest, run) : verdict(run, iss);
}

}  // namespace

// pmvp-soc in stages: the options, the run's scenario, then the platform
// of its kind, which runs it and writes its outputs.
int sc_main(int argc, char **argv)
{
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);  // "stopped by user" & co
    const bool qemu = called_as_qemu(argv[0]);
    if (qemu)
        program = "pmvp-qemu-system-aarch64";
    Options o = qemu ? parse_qemu_options(argc, argv) : parse_options(argc, argv);
    Run job;
    if (int status = load_run(o, job))
        return status;
    if (!o.dumpdtb_path.empty())
        return dump_dtb(job.s, o.dumpdtb_path);
    if (o.show_config)
        return show_config(job.s);
    if (job.s.x86)
        return run_standalone(job, o, run_x86, print_x86_report, x86_report_json);
    if (job.s.sebep)
        return run_standalone(job, o, run_sebep, print_sebep_report, sebep_report_json);
    return run_soc(o, job);
}
