// SPDX-License-Identifier: Apache-2.0
//
// The interval report (report.h): the counts of every interval as it ends,
// printed like perf stat -I, kept for the JSON, and drawn by gnuplot.

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "report_tally.h"

namespace pmvp::soc {

using namespace reporting;

struct IntervalReport::Impl {
    const Soc &soc;
    const pmvp_time interval;
    std::FILE *out;
    const std::string csv;
    const bool keep;
    const std::vector<Scope> shown;
    Scope all;     // every analytic PE, for the plot
    int decimals;  // of the instants, in seconds
    // The counts at the start of the current interval, by global PE.
    pmvp_time start = 0;
    std::vector<Firmware::PeCounts> at_start;
    std::vector<uint64_t> irqs_at_start;
    struct Kept {
        pmvp_time start, end;
        std::vector<Tally> scopes;  // as `shown`
        Tally all;
    };
    std::vector<Kept> kept;

    Impl(const Soc &soc, Detail detail, pmvp_time interval, std::FILE *out, std::string csv, bool keep)
        : soc(soc), interval(interval), out(out), csv(std::move(csv)), keep(keep), shown(scopes(soc, detail)),
          at_start(soc.pes.size()), irqs_at_start(soc.pes.size())
    {
        for (const PeId &p : soc.pes)
            if (!p.iss)
                all.pes.push_back(p.global);
        const size_t entries = soc.scenario.firmware.counters.size() + 1;
        for (size_t g = 0; g < at_start.size(); g++) {
            at_start[g].counted.assign(entries, 0);
            at_start[g].samples.assign(entries, 0);
            at_start[g].aux.assign(soc.firmware->readout[g].aux.size(), 0);
        }
        const pmvp_time ns = 1000;
        decimals = interval % ns == 0 && soc.resume_at % ns == 0 && soc.scenario.duration % ns == 0 ? 9 : 12;
        if (!out)
            return;
        if (!this->csv.empty())
            print_csv_header(out, this->csv, true);
        else
            std::fprintf(out, "#%*s  %-8s  %20s  %-18s %s\n", decimals + 5, "time", "scope", "counts", "register",
                         "event");
    }

    std::string seconds(pmvp_time t) const
    {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%*.*f", csv.empty() ? decimals + 6 : 0, decimals, (double)t / 1e12);
        // (exact to the digit shown: a double holds 15 significant digits)
        return buf;
    }

    // The interval that ends at `t`, whose counts at its end are `now`.
    void close(pmvp_time t, const std::vector<Firmware::PeCounts> &now, const std::vector<uint64_t> &irqs)
    {
        auto tally = [&](const Scope &sc) {
            Tally d(t - start);
            for (unsigned g : sc.pes) {
                Firmware::PeCounts c = now[g];
                const Firmware::PeCounts &b = at_start[g];
                for (size_t i = 0; i < c.counted.size(); i++) {
                    c.counted[i] -= b.counted[i];
                    c.samples[i] -= b.samples[i];
                }
                for (unsigned k = 0; k < PMVP_AMU_ARCH_COUNTERS; k++)
                    c.amu[k] -= b.amu[k];
                for (size_t k = 0; k < c.aux.size(); k++)
                    c.aux[k] -= b.aux[k];
                d.add(soc, g, c, irqs[g] - irqs_at_start[g]);
            }
            return d;
        };
        Kept k{ start, t, {}, tally(all) };
        for (const Scope &sc : shown)
            k.scopes.push_back(tally(sc));
        if (out) {
            std::string when = seconds(t);
            for (size_t i = 0; i < shown.size(); i++)
                for (const Line &l : lines(soc, k.scopes[i], csv.empty() ? grouped : plain)) {
                    if (csv.empty()) {
                        char prefix[96];
                        std::snprintf(prefix, sizeof prefix, "%s  %-8s", when.c_str(), shown[i].name.c_str());
                        print_line(out, prefix, l);
                    } else {
                        print_csv_line(out, csv, when, shown[i].name, l);
                    }
                }
            std::fflush(out);
        }
        if (keep)
            kept.push_back(std::move(k));
        start = t;
        at_start = now;
        irqs_at_start = irqs;
    }
};

IntervalReport::IntervalReport(const Soc &soc, Detail detail, pmvp_time interval, std::FILE *out, std::string csv,
                               bool keep)
    : impl_(std::make_unique<Impl>(soc, detail, interval, out, std::move(csv), keep))
{}

IntervalReport::~IntervalReport() = default;

void IntervalReport::sample(pmvp_time t)
{
    Impl &m = *impl_;
    std::vector<Firmware::PeCounts> now = m.at_start;
    std::vector<uint64_t> irqs = m.irqs_at_start;
    for (unsigned g : m.all.pes) {
        now[g] = m.soc.firmware->counts_now(g);
        irqs[g] = m.soc.interrupts->raised[g];
    }
    if (t == m.soc.resume_at) {  // a restored run's start: what it restored
        m.start = t;
        m.at_start = now;
        m.irqs_at_start = irqs;
        return;
    }
    m.close(t, now, irqs);
}

void IntervalReport::finish()
{
    Impl &m = *impl_;
    std::vector<Firmware::PeCounts> now = m.at_start;
    std::vector<uint64_t> irqs = m.irqs_at_start;
    for (unsigned g : m.all.pes) {
        now[g] = m.soc.firmware->readout[g];
        irqs[g] = m.soc.interrupts->raised[g];
    }
    if (m.soc.scenario.duration > m.start)
        m.close(m.soc.scenario.duration, now, irqs);
}

nlohmann::ordered_json IntervalReport::json() const
{
    const Impl &m = *impl_;
    nlohmann::ordered_json j = { { "interval_ps", m.interval }, { "intervals", nlohmann::ordered_json::array() } };
    for (const Impl::Kept &k : m.kept) {
        nlohmann::ordered_json o = { { "start_ps", k.start }, { "end_ps", k.end } };
        o["scopes"] = nlohmann::ordered_json::array();
        for (size_t i = 0; i < k.scopes.size(); i++) {
            nlohmann::ordered_json sc = { { "scope", m.shown[i].name } };
            sc.update(counts_json(m.soc, k.scopes[i]));
            o["scopes"].push_back(sc);
        }
        j["intervals"].push_back(o);
    }
    return j;
}

namespace {

// A string for gnuplot, in double quotes.
std::string gnuplot_string(const std::string &v)
{
    std::string q = "\"";
    for (char c : v)
        q += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return q + "\"";
}

}  // namespace

// gnuplot's terminal for a picture named `path` (.png, .svg or .pdf); empty
// for another name.
static std::string plot_terminal(const std::string &path)
{
    std::string ext = path.size() >= 4 ? path.substr(path.size() - 4) : "";
    return ext == ".png"   ? "pngcairo size 1200,900"
           : ext == ".svg" ? "svg size 1200,900"
           : ext == ".pdf" ? "pdfcairo size 8in,6in"
                           : "";
}

// The time axis's unit, in picoseconds, for a run that ends at `end`.
static std::pair<double, const char *> time_axis_unit(pmvp_time end)
{
    return end >= 10000000000000ull ? std::make_pair(1e12, "s")
           : end >= 10000000000ull  ? std::make_pair(1e9, "ms")
           : end >= 10000000ull     ? std::make_pair(1e6, "us")
                                    : std::make_pair(1e3, "ns");
}

// Runs gnuplot on `script`: "", or why it failed. A gnuplot that ends
// before reading everything is a failure to say, not a SIGPIPE that ends
// pmvp-soc.
static std::string run_gnuplot(const std::string &script)
{
    void (*was)(int) = std::signal(SIGPIPE, SIG_IGN);
    FILE *p = popen("gnuplot", "w");
    if (!p) {
        std::signal(SIGPIPE, was);
        return std::string("gnuplot could not be started: ") + std::strerror(errno);
    }
    std::fwrite(script.data(), 1, script.size(), p);
    int status = pclose(p);
    std::signal(SIGPIPE, was);
    if (status != 0)
        return "gnuplot failed (status " + std::to_string(status) + ")";
    return "";
}

// The intervals as one gnuplot script, written top to bottom in the order
// gnuplot reads it: the data (a row per interval), then its three panels
// (counter rates, IPC per scope, PMUIRQ). Long, and one piece: each panel
// names the data's columns.
std::string IntervalReport::plot(const std::string &path) const
{
    const Impl &m = *impl_;
    const Scenario &s = m.soc.scenario;
    const FirmwareSetup &fw = s.firmware;
    if (m.kept.empty())
        return "no interval to draw";
    const std::string terminal = plot_terminal(path);
    if (terminal.empty())
        return path + ": the picture's name must end in .png, .svg or .pdf";
    const pmvp_time end = m.kept.back().end;
    const std::pair<double, const char *> unit = time_axis_unit(end);
    // Columns: 1 start, 2 middle; then the SoC's rate of each counter (the
    // cycle counter first), the IPC of each scope shown, PMUIRQ.
    std::vector<std::string> rates;
    if (fw.cycle_counter)
        rates.push_back("PMCCNTR_EL0 (cycle counter)");
    for (const CounterSetup &c : fw.counters)
        rates.push_back("PMEVCNTR" + std::to_string(c.counter) + "_EL0 (" + event_name(c.event) +
                        (c.evtyper & PMVP_PMEVTYPER_EL0_MT ? ", MT" : "") + ")");
    std::string data;
    std::vector<bool> has_ipc(m.shown.size(), false);  // a scope with no IPC in any interval is left out
    auto row = [&](pmvp_time at, const Impl::Kept &k) {
        char buf[64];
        const double us = (double)(k.end - k.start) / 1e6;
        std::snprintf(buf, sizeof buf, "%.9g\t%.9g", (double)at / unit.first,
                      ((double)k.start + (double)(k.end - k.start) / 2) / unit.first);
        data += buf;
        auto cell = [&](double v) {
            std::snprintf(buf, sizeof buf, "\t%.9g", v);
            data += std::isfinite(v) ? buf : "\tNaN";
        };
        if (fw.cycle_counter)
            cell((double)k.all.pmccntr / us);
        for (uint64_t v : k.all.evcntr)
            cell((double)v / us);
        for (size_t i = 0; i < k.scopes.size(); i++) {
            double ipc = NAN;
            for (const Metric &mt : metrics(m.soc, k.scopes[i]))
                if (std::string(mt.name) == "ipc")
                    ipc = mt.value;
            has_ipc[i] = has_ipc[i] || std::isfinite(ipc);
            cell(ipc);
        }
        cell((double)k.all.interrupts);
        data += "\n";
    };
    for (const Impl::Kept &k : m.kept)
        row(k.start, k);
    row(m.kept.back().end, m.kept.back());  // where the last step ends
    std::string g = "set terminal " + terminal + " noenhanced\n";
    g += "set output " + gnuplot_string(path) + "\n";
    g += "$D << EOD\n" + data + "EOD\n";
    // One x axis for the three panels (margins fixed whatever the keys' widths),
    // and room above the highest step.
    g += "set datafile separator \"\\t\"\nset key outside right top\nset grid\n"
         "set lmargin at screen 0.09\nset rmargin at screen 0.66\nset yrange [0:*]\n"
         "set offsets graph 0, graph 0, graph 0.1, graph 0\n";
    g += "set xrange [" + std::to_string((double)m.kept.front().start / unit.first) + ":" +
         std::to_string((double)end / unit.first) + "]\n";
    g += "set multiplot layout 3,1 title " +
         gnuplot_string("pmvp-soc: " + s.name + ", intervals of " + time_text(m.interval)) + "\n";
    g += "set ylabel \"counts per us (SoC)\"\nplot ";
    for (size_t i = 0; i < rates.size(); i++)
        g += (i ? ", " : "") + std::string("$D using 1:") + std::to_string(3 + i) + " with steps title " +
             gnuplot_string(rates[i]);
    g += rates.empty() ? "NaN notitle\n" : "\n";
    // IPC needs CPU_CYCLES: a counter of it or the AMU's (metrics()).
    std::string ipc_plots;
    for (size_t i = 0; i < m.shown.size(); i++)
        if (has_ipc[i])
            ipc_plots += (ipc_plots.empty() ? "" : ", ") + std::string("$D using 1:") +
                         std::to_string(3 + rates.size() + i) + " with steps title " + gnuplot_string(m.shown[i].name);
    g += "set ylabel \"insn per cycle\"\n";
    if (ipc_plots.empty())
        g += "set yrange [0:1]\nset label 1 \"no IPC: no counter of CPU_CYCLES and no AMU\" at graph 0.5, graph 0.5 "
             "center\nplot NaN notitle\nunset label 1\nset yrange [0:*]\n";
    else
        g += "plot " + ipc_plots + "\n";
    g += std::string("set xlabel \"simulated time (") + unit.second + ")\"\nset ylabel \"PMUIRQ per interval\"\n";
    if (std::none_of(m.kept.begin(), m.kept.end(), [](const Impl::Kept &k) { return k.all.interrupts > 0; }))
        g += "set yrange [0:1]\n";  // no rise to draw: an empty panel, not gnuplot's warning
    g += "plot $D using 2:" + std::to_string(3 + rates.size() + m.shown.size()) +
         " with impulses lw 2 title \"PMUIRQ (SoC)\"\nunset multiplot\n";
    return run_gnuplot(g);
}

}  // namespace pmvp::soc
