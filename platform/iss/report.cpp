// SPDX-License-Identifier: Apache-2.0
//
// What the ISS PEs did: the results after a run, as text and as JSON.

#include "aarch64_iss.h"

namespace pmvp::soc {

bool IssResult::all_exited() const
{
    return std::all_of(pes.begin(), pes.end(), [](const IssPeResult &p) { return p.exited; });
}

bool IssResult::all_passed() const
{
    return std::all_of(pes.begin(), pes.end(), [](const IssPeResult &p) { return p.exited && p.status == 0; });
}

IssResult iss_result(const Soc &soc, double host_seconds)
{
    IssResult r;
    r.host_seconds = host_seconds;
    if (soc.guest && soc.guest->machine.kind == Machine::VIRT)
        r.console = soc.guest->uart_console();
    for (const auto &core : soc.cores) {
        const auto *iss = dynamic_cast<const Aarch64Iss *>(core.get());
        if (!iss)
            continue;
        r.attached = iss->monitors != nullptr;
        for (const Aarch64Iss::Thread &t : iss->threads) {
            IssPeResult pr = t.result;
            if (pmvp::sc::Monitors *m = iss->monitors.get()) {
                pr.pmccntr = m->peek(t.pe, PMVP_FRAME_PMU, "PMCCNTR_EL0");
                pr.pmovsset = m->peek(t.pe, PMVP_FRAME_PMU, "PMOVSSET_EL0");
                pr.has_amu = iss->cluster.config.feat_amuv1;
                for (unsigned n = 0; pr.has_amu && n < PMVP_AMU_ARCH_COUNTERS; n++)
                    pr.amu[n] = m->peek(t.pe, PMVP_FRAME_AMU, "AMEVCNTR0<n>", n);
            }
            r.pes.push_back(pr);
        }
    }
    return r;
}

// ----------------------------------------------------------------- report

namespace {
// Each line of `text`, indented under a bar.
void print_lines(FILE *out, const std::string &text)
{
    for (size_t a = 0; a < text.size();) {
        size_t b = text.find('\n', a);
        if (b == std::string::npos)
            b = text.size();
        std::fprintf(out, "  | %s\n", text.substr(a, b - a).c_str());
        a = b + 1;
    }
}
}  // namespace

void print_iss_report(FILE *out, const Scenario &s, const IssResult &r)
{
    std::fprintf(out, "pmvp-soc: %s: %zu PE%s ran %s on the AArch64 ISS for up to %s (%.2f s host)\n", s.name.c_str(),
                 r.pes.size(), r.pes.size() == 1 ? "" : "s", iss_image(s).c_str(), time_text(s.duration).c_str(),
                 r.host_seconds);
    for (const IssPeResult &p : r.pes) {
        std::fprintf(out, "\nPE %u (cluster %s, core %u, thread %u): ", p.pe, s.clusters[p.cluster].name.c_str(),
                     p.core, p.thread);
        if (p.exited)
            std::fprintf(out, "exited with status %u at %s (%s)\n", p.status, time_text(p.exit_time).c_str(),
                         p.ended_by.c_str());
        else
            std::fprintf(out, "still running at the end of the scenario (stopped)\n");
        std::fprintf(out,
                     "  %llu instructions, %llu interrupts (largest skid %llu instructions), %llu exceptions, "
                     "%llu bus errors, %llu external aborts\n",
                     (unsigned long long)p.instructions, (unsigned long long)p.interrupts,
                     (unsigned long long)p.max_skid, (unsigned long long)p.exceptions, (unsigned long long)p.bus_errors,
                     (unsigned long long)p.aborts);
        if (r.attached && p.has_amu)
            std::fprintf(out,
                         "  PMCCNTR %llu, PMOVSSET 0x%llx, AMU CPU_CYCLES %llu CNT_CYCLES %llu INST_RETIRED %llu "
                         "STALL_BACKEND_MEM %llu\n",
                         (unsigned long long)p.pmccntr, (unsigned long long)p.pmovsset, (unsigned long long)p.amu[0],
                         (unsigned long long)p.amu[1], (unsigned long long)p.amu[2], (unsigned long long)p.amu[3]);
        else if (r.attached)
            std::fprintf(out, "  PMCCNTR %llu, PMOVSSET 0x%llx, no AMU\n", (unsigned long long)p.pmccntr,
                         (unsigned long long)p.pmovsset);
        else
            std::fprintf(out, "  (no monitors: --detached)\n");
        if (r.attached) {
            std::string told;
            for (unsigned e = 0; e < a64::kNumEvents; e++)
                if (p.events[e])
                    told += (told.empty() ? "" : ", ") + std::string(a64::name((a64::Event)e)) + " " +
                            std::to_string(p.events[e]);
            std::fprintf(out, "  events told: %s\n", told.empty() ? "none" : told.c_str());
        }
        if (!p.console.empty()) {
            std::fprintf(out, "  console:\n");
            print_lines(out, p.console);
        }
    }
    if (r.console && !r.console->empty()) {
        std::fprintf(out, "\nconsole (the PL011's output, in time order):\n");
        print_lines(out, *r.console);
    }
}

nlohmann::ordered_json iss_report_json(const Scenario &s, const IssResult &r)
{
    nlohmann::ordered_json j;
    j["scenario"] = s.name;
    j["firmware"] = iss_image(s);
    j["duration_ps"] = s.duration;
    j["all_exited"] = r.all_exited();
    j["all_passed"] = r.all_passed();
    j["console"] = r.console ? nlohmann::ordered_json(*r.console) : nlohmann::ordered_json();  // virt's PL011
    for (const IssPeResult &p : r.pes) {
        nlohmann::ordered_json e;
        e["pe"] = p.pe;
        e["cluster"] = s.clusters[p.cluster].name;
        e["core"] = p.core;
        e["thread"] = p.thread;
        e["exited"] = p.exited;
        e["status"] = p.status;
        e["ended_by"] = p.ended_by;
        e["exit_time_ps"] = p.exit_time;
        e["exit_instructions"] = p.exit_instructions;
        e["instructions"] = p.instructions;
        e["interrupts"] = p.interrupts;
        e["max_skid"] = p.max_skid;
        e["fast_forwarded_instructions"] = p.fast_forwarded;
        e["exceptions"] = p.exceptions;
        e["bus_errors"] = p.bus_errors;
        e["aborts"] = p.aborts;
        e["pmccntr"] = p.pmccntr;
        e["pmovsset"] = p.pmovsset;
        if (r.attached) {
            nlohmann::ordered_json told;
            for (unsigned k = 0; k < a64::kNumEvents; k++)
                told[a64::name((a64::Event)k)] = p.events[k];
            e["events"] = told;
        }
        if (p.has_amu)
            e["amu"] = { { "CPU_CYCLES", p.amu[0] },
                         { "CNT_CYCLES", p.amu[1] },
                         { "INST_RETIRED", p.amu[2] },
                         { "STALL_BACKEND_MEM", p.amu[3] } };
        else
            e["amu"] = nullptr;  // no AMU
        e["console"] = p.console;
        j["pes"].push_back(e);
    }
    return j;
}

}  // namespace pmvp::soc
