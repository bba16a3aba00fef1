// SPDX-License-Identifier: Apache-2.0
//
// pmvp-soc's --vcd (vcd_trace.h).
#include "vcd_trace.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include "cli.h"

namespace pmvp::soc {

std::string vcd_base(const std::string &path)
{
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".vcd") == 0)
        return path.substr(0, path.size() - 4);
    return path;
}

namespace {

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

}  // namespace

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

}  // namespace pmvp::soc
