// SPDX-License-Identifier: Apache-2.0
//
// The SoC (soc.h): its bus router, its interrupt collector, and the Soc
// that builds the cores of every cluster and the firmware agent, with
// their DVFS steps and checkpoints.
#include "soc.h"

#include "iss.h"
#include "progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

extern "C" {
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/ext.h"
#include "pmvp/fields.h"
}

namespace pmvp::soc {

using sc_core::SC_PS;
using sc_core::sc_time;

// ------------------------------------------------------------------ Router

Router::Router(const sc_core::sc_module_name &name, unsigned num_pes)
    : sc_module(name), target("target"), frames("frames"), num_pes_(num_pes)
{
    target.register_b_transport(this, &Router::b_transport);
    target.register_transport_dbg(this, &Router::transport_dbg);
}

bool Router::decode(tlm::tlm_generic_payload &gp, unsigned &index, uint64_t &offset) const
{
    uint64_t a = gp.get_address();
    if (a < kFramesBase || a - kFramesBase >= (uint64_t)num_pes_ * kPeWindow)
        return false;
    uint64_t rel = a - kFramesBase;
    index = (unsigned)(rel / kPeWindow * 2 + (rel % kPeWindow) / PMVP_FRAME_SIZE);
    offset = rel % PMVP_FRAME_SIZE;
    return true;
}

void Router::b_transport(int, tlm::tlm_generic_payload &gp, sc_time &delay)
{
    unsigned index;
    uint64_t offset, address = gp.get_address();
    if (!decode(gp, index, offset)) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    gp.set_address(offset);
    frames[index]->b_transport(gp, delay);
    gp.set_address(address);
}

unsigned int Router::transport_dbg(int, tlm::tlm_generic_payload &gp)
{
    unsigned index;
    uint64_t offset, address = gp.get_address();
    if (!decode(gp, index, offset))
        return 0;
    gp.set_address(offset);
    unsigned int n = frames[index]->transport_dbg(gp);
    gp.set_address(address);
    return n;
}

// ------------------------------------------------------ InterruptCollector

InterruptCollector::InterruptCollector(const sc_core::sc_module_name &name, unsigned num_pes)
    : sc_module(name), irq("irq", num_pes), raised(num_pes), seen_(num_pes)
{
    SC_METHOD(edge);
    for (auto &line : irq)
        sensitive << line;
    dont_initialize();
}

void InterruptCollector::edge()
{
    bool rose = false;
    for (unsigned g = 0; g < irq.size(); g++) {
        bool level = irq[g].read();
        if (level && !seen_[g]) {
            raised[g]++;
            pending.push_back(g);
            rose = true;
        }
        seen_[g] = level;
    }
    if (rose)
        taken.notify(sc_core::SC_ZERO_TIME);
}

template <class A> void InterruptCollector::state(A &a)
{
    a.count("PMUIRQ lines", irq.size());
    for (unsigned g = 0; g < irq.size(); g++) {
        a("interrupts raised", raised[g]);
        a.below("PMUIRQ level seen", seen_[g], 2);
    }
    std::vector<unsigned> queue(pending.begin(), pending.end());
    a("interrupts pending", queue);
    for (unsigned g : queue)
        if (g >= irq.size())
            throw CheckpointError("the checkpoint has an interrupt pending from PE " + std::to_string(g) +
                                  ", which the run does not have");
    pending.assign(queue.begin(), queue.end());
}


// --------------------------------------------------------------------- Soc

Soc::Soc(const sc_core::sc_module_name &name, const Scenario &s, bool journalling, bool attached, pmvp_time resume_at)
    : sc_module(name), scenario(s), resume_at(resume_at)
{
    if (attached) {
        router = std::make_unique<Router>("bus", s.num_pes());
        interrupts = std::make_unique<InterruptCollector>("interrupts", s.num_pes());
        firmware = std::make_unique<Firmware>("firmware", *this);
    }
    if (s.has_iss()) {
        guest = std::make_unique<Guest>("guest", *this, attached);
        if (attached)
            guest->bus.bind(router->target);
    }
    unsigned g = 0;
    for (unsigned ci = 0; ci < s.clusters.size(); ci++) {
        const Cluster &c = s.clusters[ci];
        clocks_.emplace_back(
            new sc_core::sc_signal<uint64_t>(("clock_" + std::to_string(ci)).c_str(), c.config.processor_hz));
        for (unsigned k = 0; k < c.cores; k++) {
            unsigned index = (unsigned)cores.size();
            std::string name = (c.iss() ? "cpu" : "core") + std::to_string(index);
            if (c.iss()) {
                cores.push_back(make_iss_core(name.c_str(), *this, c, index, ci, k, g, attached));
                iss_cores_running_++;
            } else {
                cores.emplace_back(
                    new AnalyticCore(name.c_str(), *this, c, index, ci, k, g, *clocks_.back(), attached));
            }
            Core &core = *cores.back();
            core.journal.enabled = journalling;
            for (unsigned t = 0; t < c.config.num_pes; t++, g++) {
                pes.push_back(PeId{ ci, index, t, g, c.iss() });
                if (attached) {
                    router->frames.bind(core.monitors->pmu_socket[t]);
                    router->frames.bind(core.monitors->amu_socket[t]);
                    interrupts->irq[g](core.pmuirq[t]);
                }
            }
        }
        if (!c.dvfs.empty())
            sc_core::sc_spawn(sc_bind(&Soc::dvfs, this, ci), ("dvfs_" + std::to_string(ci)).c_str());
    }
    if (attached)
        firmware->bus.bind(router->target);
    SC_THREAD(show_progress);
}

Soc::~Soc()
{
    // The ISS engines go before the guest RAM they map. Last made, first
    // gone: SystemC's registry finds a port it removes by searching from its
    // newest, and the cores' ports are the newest (in order, 64 cores'
    // ports were a search through all of them each).
    while (!cores.empty())
        cores.pop_back();
}

template <class A> void Soc::state(A &a)
{
    if (!firmware)
        throw CheckpointError("a run without monitors (--detached) has no checkpoint");
    a.count("PEs", pes.size());
    a.count("clusters", clocks_.size());
    for (auto &clock : clocks_)
        a.signal("processor clock", *clock);
    interrupts->state(a);
    firmware->state(a);
    a.count("cores", cores.size());
    for (auto &core : cores)
        core->checkpoint(a);
    if (guest)
        guest->state(a);
}

void Soc::save(Saver &a)
{
    if (ended_early || firmware->finished)
        throw CheckpointError("the run ended at " + time_text(now_ps()) + ", before the checkpoint's instant");
    state(a);
}

void Soc::load(Loader &a)
{
    state(a);
}

void Soc::restore_monitors()
{
    for (auto &core : cores)
        core->restore_monitors();
}

void Soc::dvfs(unsigned ci)
{
    const Cluster &c = scenario.clusters[ci];
    for (const DvfsStep &d : c.dvfs) {
        if (d.at >= scenario.duration)
            break;
        if (d.at < resume_at)
            continue;  // before the checkpoint: its clock is the one it restored
        if (d.at > now_ps())
            wait(ps(d.at - now_ps()));
        clocks_[ci]->write(d.hz);
        Input in;
        in.t = d.at;
        in.kind = Input::CLOCK;
        in.value = d.hz;
        for (auto &core : cores)
            if (&core->cluster == &c)
                core->journal.add(in);
    }
}

// The cores' threads and the firmware wake in this evaluation phase (an
// immediate notification); the simulation stops a delta cycle later (the
// firmware, having read the counters, or show_progress when detached), so
// that a core thread in a zero-time wait ends too and nothing is left on a
// thread's stack.
void Soc::interrupt()
{
    interrupted = true;
    end_now();
}

void Soc::iss_core_ended()
{
    if (--iss_cores_running_ == 0 && !scenario.has_analytic())
        end_now();
}

void Soc::end_now()
{
    ended_early = true;
    end_.notify();
}

void Soc::sample_every(pmvp_time interval, std::function<void(pmvp_time)> sample)
{
    sc_core::sc_spawn(sc_bind(&Soc::sample_intervals, this, interval, std::move(sample)), "intervals");
}

// A restored run's start first (its monitors restored), then the multiples
// of the interval after it and before the end.
void Soc::sample_intervals(pmvp_time interval, std::function<void(pmvp_time)> sample)
{
    if (resume_at) {
        wait(ps(resume_at));
        sample(resume_at);
    }
    pmvp_time t = resume_at - resume_at % interval;
    while (scenario.duration - t > interval) {
        t += interval;
        wait(ps(t - now_ps()), end_);
        if (ended_early)
            return;
        sample(t);
    }
}

// Every thousandth of the run: the command's watch, and its progress
// (progress.h; a restored run's pace counts from its checkpoint).
void Soc::show_progress()
{
    const pmvp_time step = std::max<pmvp_time>(1, scenario.duration / 1000);
    Progress shown(resume_at, scenario.duration, share_of_simulated_time(scenario.duration));
    for (pmvp_time t = std::max(step, (resume_at + step - 1) / step * step); t < scenario.duration; t += step) {
        wait(ps(t - now_ps()), end_);
        if (!ended_early && watch)
            watch();
        if (ended_early) {
            if (!firmware) {  // detached: nothing to read
                wait(sc_core::SC_ZERO_TIME);
                sc_core::sc_stop();
            }
            break;
        }
        if (progress)
            shown.at(t);
    }
}

}  // namespace pmvp::soc
