// SPDX-License-Identifier: Apache-2.0
//
// pmvp-soc: builds the example SoC from a scenario, runs it, and reports what
// the monitors saw. `pmvp-soc --help` lists the options; docs/PMVP-SOC.md
// describes scenarios, the memory map and the outputs.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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

#include "cli.h"
#include "options.h"
#include "progress.h"
#include "qemu_cli.h"
#include "vcd_trace.h"
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

// The most intervals --interval prints.
constexpr pmvp_time kMaxIntervals = 10000;

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
