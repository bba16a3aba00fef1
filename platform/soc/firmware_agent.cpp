// SPDX-License-Identifier: Apache-2.0
//
// The firmware agent (soc.h): the scenario's firmware section, played on
// every analytic PE through the bus: counters programmed, overflows
// serviced, the counts read at the end.
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

// ---------------------------------------------------------------- Firmware

namespace {

// The external frame's name of a PMU register ("PMEVCNTR<n>_EL0").
std::string ext_name(pmvp_pmu_reg reg)
{
    std::string n = pmvp_pmu_reg_name(reg);
    if (pmvp_pmu_reg_indexed(reg))
        n.insert(n.rfind("_EL"), "<n>");
    return n;
}

}  // namespace

Firmware::Firmware(const sc_core::sc_module_name &name, Soc &soc) : sc_module(name), bus("bus"), soc_(soc)
{
    const FirmwareSetup &f = soc.scenario.firmware;
    readout.resize(soc.scenario.num_pes());
    auto r = readout.begin();  // PEs numbered cluster by cluster (the memory map)
    for (const Cluster &c : soc.scenario.clusters)
        for (unsigned k = 0; k < c.cores * c.config.num_pes; k++, r++) {
            r->evcntr.resize(f.counters.size());
            r->counted.resize(f.counters.size() + 1);
            r->samples.resize(f.counters.size() + 1);
            r->aux.resize(c.config.feat_amuv1 ? c.config.amu_num_aux : 0);
        }
    SC_THREAD(run);
}

// Before the final read, what the agent knows is the samples it took.
template <class A> void Firmware::state(A &a)
{
    a.count("PEs", readout.size());
    for (PeReadout &r : readout) {
        a.count("sampled counters", r.samples.size());
        for (uint64_t &n : r.samples)
            a("samples", n);
    }
    a("interrupts deferred", deferred);
    a("PEs waiting to be on", waiting_);
    for (unsigned g : waiting_)
        if (g >= readout.size())
            throw CheckpointError("the checkpoint has PE " + std::to_string(g) +
                                  " waiting for power, which the run does not have");
    a("handler instant", serve_at_);
    a.not_before("handler instant", serve_at_, soc_.resume_at);
}
template void Firmware::state(Saver &);  // (Soc::state saves the agent with the SoC)
template void Firmware::state(Loader &);

uint64_t Firmware::access(unsigned g, pmvp_frame f, const std::string &name, unsigned n, bool write, uint64_t v,
                          bool debug, bool top, bool agent)
{
    const pmvp_core &k = soc_.core_of(g).monitors->kernel();
    uint32_t offset = 0;
    unsigned inst = 0, word = 0;
    int err = PMVP_ERR_REGISTER;
    if (!top) {
        err = pmvp_ext_find(&k, f, name.c_str(), n, &offset);
    } else {
        for (size_t i = 0; i < pmvp_ext_reg_count() && err; i++) {
            const pmvp_ext_reg *t = pmvp_ext_reg_at(i);
            if (t->frame == f && t->half && name == t->name && pmvp_ext_reg_present(&k, t) && n < t->slots) {
                offset = t->offset + n * t->stride;
                err = PMVP_OK;
            }
        }
    }
    const pmvp_ext_reg *r = err ? nullptr : pmvp_ext_decode(&k, f, offset, &inst, &word);
    if (!r) {
        SC_REPORT_ERROR("pmvp-soc", ("firmware: no " + name + " in the frame of PE " + std::to_string(g)).c_str());
        return 0;
    }
    unsigned size = pmvp_ext_reg_width(&k, r) / 8;
    tlm::tlm_generic_payload gp;
    sc_time delay = sc_core::SC_ZERO_TIME;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(kFramesBase + g * kPeWindow + (f == PMVP_FRAME_AMU ? PMVP_FRAME_SIZE : 0) + offset);
    gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));  // little-endian host
    gp.set_data_length(size);
    gp.set_streaming_width(size);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    // I3.1.4: a Most secure access is Root with FEAT_RME, else Secure.
    pmvp::sc::AccessExtension most_secure({ (uint8_t)(k.cfg.feat_rme ? PMVP_ROOT : PMVP_SECURE), false });
    if (agent)
        gp.set_extension(&most_secure);
    if (debug) {
        if (bus->transport_dbg(gp) != size)
            SC_REPORT_ERROR("pmvp-soc", ("firmware: debug access to " + name + " refused").c_str());
        return v;
    }
    bus->b_transport(gp, delay);
    if (agent)
        gp.clear_extension(&most_secure);
    if (gp.is_response_error())
        SC_REPORT_ERROR("pmvp-soc", ("firmware: " + std::string(write ? "write to " : "read of ") + name + " of PE " +
                                     std::to_string(g) + ": " + gp.get_response_string())
                                        .c_str());
    return v;
}

void Firmware::journal(unsigned g, Input::Kind kind, unsigned reg, unsigned n, uint64_t value)
{
    Input in;
    in.t = now_ps();
    in.kind = kind;
    in.pe = soc_.thread_of(g);
    in.reg = reg;
    in.n = n;
    in.value = value;
    soc_.core_of(g).journal.add(in);
}

uint64_t Firmware::pmu_read(unsigned g, pmvp_pmu_reg reg, unsigned n, bool agent)
{
    uint64_t v = access(g, PMVP_FRAME_PMU, ext_name(reg), n, false, 0, false, false, agent);
    journal(g, Input::PMU_READ, reg, n, v);
    return v;
}

uint64_t Firmware::pmu_read_debug(unsigned g, pmvp_pmu_reg reg, unsigned n)
{
    uint64_t v = access(g, PMVP_FRAME_PMU, ext_name(reg), n, false, 0, true);
    journal(g, Input::PMU_READ, reg, n, v);
    return v;
}

void Firmware::pmu_write(unsigned g, pmvp_pmu_reg reg, unsigned n, uint64_t value, bool agent)
{
    access(g, PMVP_FRAME_PMU, ext_name(reg), n, true, value, false, false, agent);
    journal(g, Input::PMU_WRITE, reg, n, value);
}

uint64_t Firmware::amu_read(unsigned g, pmvp_amu_reg reg, unsigned n, bool debug)
{
    uint64_t v =
        access(g, PMVP_FRAME_AMU, reg == PMVP_AMEVCNTR1_EL0 ? "AMEVCNTR1<n>" : "AMEVCNTR0<n>", n, false, 0, debug);
    journal(g, Input::AMU_READ, reg, n, v);
    return v;
}

// Where a counter overflows: 2^64 for a 64-bit counter (PMCR.LC for the
// cycle counter; PMCR.LP with FEAT_PMUv3p5 for event counters), else 2^32;
// 0 stands for 2^64.
uint64_t Firmware::overflow_modulus(unsigned g, bool cycle_counter) const
{
    const pmvp_core_config &cfg = soc_.core_of(g).cluster.config;
    uint64_t pmcr = soc_.scenario.firmware.pmcr;
    bool wide =
        cycle_counter ? (pmcr & PMVP_PMCR_EL0_LC) : (cfg.pmu_version >= PMVP_PMUV3P5 && (pmcr & PMVP_PMCR_EL0_LP));
    return wide ? 0 : UINT64_C(1) << 32;
}

// A counter that overflowed and now holds `value` (the bits above the
// overflow bit included, for a 64-bit counter that overflows at 2^32), set
// one period before its next overflow with what it counted since. A handler
// slower than a period finds whole periods counted since the overflow:
// *missed gets them (samples in their own right), and the counter keeps
// only the rest, so that it is never set past its overflow.
uint64_t Firmware::rearmed(unsigned g, bool cycle_counter, uint64_t value, uint64_t period, uint64_t *missed) const
{
    uint64_t mod = overflow_modulus(g, cycle_counter);
    uint64_t since = mod ? value % mod : value;
    *missed = since / period;
    return mod - period + since % period;
}

// What a counter programmed with `period` (0: not sampling) counted in all,
// given its value and the overflows taken.
uint64_t Firmware::counted(unsigned g, bool cycle_counter, uint64_t value, uint64_t period, uint64_t samples) const
{
    if (!period)
        return value;
    uint64_t mod = overflow_modulus(g, cycle_counter);
    uint64_t since_armed = value + period - mod;  // modulo 2^64
    return samples * period + (mod ? since_armed % mod : since_armed);
}

void Firmware::program(unsigned g)
{
    const FirmwareSetup &f = soc_.scenario.firmware;
    uint64_t cnten = 0, inten = 0, agent_cnten = 0;
    // The external agent first reserves its counters, [EPMN, N), and
    // enables the third range (PMCCR, I5.3.47).
    if (f.epmn != PMVP_MAX_COUNTERS) {
        uint64_t pmccr = PMVP_FIELD_PREP(PMVP_PMCCR_EPMN, f.epmn) | PMVP_PMCCR_EPME;
        access(g, PMVP_FRAME_PMU, "PMCCR", 0, true, pmccr, false, false, true);
        journal(g, Input::PMCCR_WRITE, 0, 0, pmccr);
    }
    for (const CounterSetup &c : f.counters) {
        // In the EXT32 view PMEVTYPER<n>'s threshold fields are in its top
        // half at 0xA00 + 4n, written first.
        if (c.evtyper >> 32 && soc_.core_of(g).cluster.config.pmu_ext_layout == PMVP_EXT32)
            access(g, PMVP_FRAME_PMU, ext_name(PMVP_PMEVTYPER_EL0), c.counter, true, c.evtyper >> 32, false, true,
                   c.external);
        pmu_write(g, PMVP_PMEVTYPER_EL0, c.counter, c.evtyper, c.external);
        if (c.sample_period) {
            pmu_write(g, PMVP_PMEVCNTR_EL0, c.counter, overflow_modulus(g, false) - c.sample_period);
            inten |= UINT64_C(1) << c.counter;
        }
        (c.external ? agent_cnten : cnten) |= UINT64_C(1) << c.counter;
    }
    if (agent_cnten)
        pmu_write(g, PMVP_PMCNTENSET_EL0, 0, agent_cnten, true);
    if (f.cycle_counter) {
        pmu_write(g, PMVP_PMCCFILTR_EL0, 0, f.pmccfiltr);
        if (f.cycle_sample_period) {
            pmu_write(g, PMVP_PMCCNTR_EL0, 0, overflow_modulus(g, true) - f.cycle_sample_period);
            inten |= PMVP_PMU_C;
        }
        cnten |= PMVP_PMU_C;
    }
    if (inten)
        pmu_write(g, PMVP_PMINTENSET_EL1, 0, inten);
    pmu_write(g, PMVP_PMCNTENSET_EL0, 0, cnten);
    pmu_write(g, PMVP_PMCR_EL0, 0, f.pmcr | PMVP_PMCR_EL0_E);
}

// The PMUIRQ handler of a profiler: take the overflows of the sampling
// counters, count a sample for each, and re-arm each counter one period
// before its next overflow, keeping what it counted since it overflowed.
void Firmware::service(unsigned g)
{
    const FirmwareSetup &f = soc_.scenario.firmware;
    uint64_t sampling = 0;
    for (const CounterSetup &c : f.counters)
        if (c.sample_period)
            sampling |= UINT64_C(1) << c.counter;
    if (f.cycle_counter && f.cycle_sample_period)
        sampling |= PMVP_PMU_C;
    uint64_t ovs = pmu_read(g, PMVP_PMOVSSET_EL0) & sampling;
    if (!ovs)
        return;
    pmu_write(g, PMVP_PMOVSCLR_EL0, 0, ovs);
    PeReadout &r = readout[g];
    for (size_t i = 0; i < f.counters.size(); i++) {
        const CounterSetup &c = f.counters[i];
        if (!(ovs >> c.counter & 1))
            continue;
        uint64_t v = pmu_read(g, PMVP_PMEVCNTR_EL0, c.counter), missed = 0;
        pmu_write(g, PMVP_PMEVCNTR_EL0, c.counter, rearmed(g, false, v, c.sample_period, &missed));
        r.samples[i] += 1 + missed;
    }
    if (ovs & PMVP_PMU_C) {
        uint64_t v = pmu_read(g, PMVP_PMCCNTR_EL0), missed = 0;
        pmu_write(g, PMVP_PMCCNTR_EL0, 0, rearmed(g, true, v, f.cycle_sample_period, &missed));
        r.samples.back() += 1 + missed;
    }
}

// Whether PE g is on, as power-management firmware knows.
bool Firmware::powered(unsigned g)
{
    return soc_.analytic_core_of(g).power[soc_.thread_of(g)].read();
}

void Firmware::final_read(unsigned g)
{
    const FirmwareSetup &f = soc_.scenario.firmware;
    Core &core = soc_.core_of(g);
    PeReadout &r = readout[g];
    // A PE that is off has its PMU frame refuse access: a debugger reads it.
    r.off_at_end = !powered(g);
    auto read = [&](pmvp_pmu_reg reg, unsigned n, bool agent = false) {
        return r.off_at_end ? pmu_read_debug(g, reg, n) : pmu_read(g, reg, n, agent);
    };
    r.pmccntr = read(PMVP_PMCCNTR_EL0, 0);
    r.counted.back() = counted(g, true, r.pmccntr, f.cycle_sample_period, r.samples.back());
    for (size_t i = 0; i < f.counters.size(); i++) {
        const CounterSetup &c = f.counters[i];
        r.evcntr[i] = read(PMVP_PMEVCNTR_EL0, c.counter, c.external);
        r.counted[i] = counted(g, false, r.evcntr[i], c.sample_period, r.samples[i]);
    }
    r.pmovsset = read(PMVP_PMOVSSET_EL0, 0);
    if (core.cluster.config.feat_amuv1) {
        for (unsigned n = 0; n < PMVP_AMU_ARCH_COUNTERS; n++)
            r.amu[n] = amu_read(g, PMVP_AMEVCNTR0_EL0, n, r.off_at_end);
        for (unsigned n = 0; n < r.aux.size(); n++)
            r.aux[n] = amu_read(g, PMVP_AMEVCNTR1_EL0, n, r.off_at_end);
    }
}

Firmware::PeCounts Firmware::counts_now(unsigned g) const
{
    const FirmwareSetup &f = soc_.scenario.firmware;
    const PeReadout &r = readout[g];
    pmvp::sc::Monitors &m = *soc_.core_of(g).monitors;
    unsigned t = soc_.thread_of(g);
    PeCounts c = r;  // the samples taken so far
    c.counted.back() =
        counted(g, true, m.peek(t, PMVP_FRAME_PMU, "PMCCNTR_EL0"), f.cycle_sample_period, r.samples.back());
    for (size_t i = 0; i < f.counters.size(); i++)
        c.counted[i] = counted(g, false, m.peek(t, PMVP_FRAME_PMU, "PMEVCNTR<n>_EL0", f.counters[i].counter),
                               f.counters[i].sample_period, r.samples[i]);
    if (soc_.core_of(g).cluster.config.feat_amuv1) {
        for (unsigned n = 0; n < PMVP_AMU_ARCH_COUNTERS; n++)
            c.amu[n] = m.peek(t, PMVP_FRAME_AMU, "AMEVCNTR0<n>", n);
        for (unsigned n = 0; n < c.aux.size(); n++)
            c.aux[n] = m.peek(t, PMVP_FRAME_AMU, "AMEVCNTR1<n>", n);
    }
    return c;
}

void Firmware::run()
{
    if (soc_.resume_at) {
        // A restored run: a handler in progress at the checkpoint runs at
        // its instant; otherwise the agent waits for work, as it did.
        wait(ps(soc_.resume_at));
        drain();
    } else {
        for (const PeId &p : soc_.pes)
            if (!p.iss)
                program(p.global);
    }
    while (wait_for_work()) {
        take_waiting();
        drain();
    }
    // The last instant's delta cycles first: a PMUIRQ that rises at the
    // end is written by the monitors' process and seen by the interrupt
    // collector a delta cycle later, which the report counts.
    while (sc_core::sc_pending_activity_at_current_time())
        wait(sc_core::SC_ZERO_TIME);
    for (const PeId &p : soc_.pes)
        if (!p.iss)
            final_read(p.global);
    finished = now_ps();
    sc_core::sc_stop();
}

// An interrupt deferred while its PE was off is taken when the PE is on
// again, if its line is still high then.
void Firmware::take_waiting()
{
    auto &irq = *soc_.interrupts;
    for (size_t i = 0; i < waiting_.size();) {
        unsigned g = waiting_[i];
        if (!powered(g)) {
            i++;
            continue;
        }
        waiting_.erase(waiting_.begin() + (long)i);
        if (irq.irq[g].read())
            irq.pending.push_back(g);
    }
}

// Runs the handler of every interrupt taken, in order, each irq_latency
// after it was taken. The one being handled leaves the queue when its
// handler has run, so a checkpoint taken while it waits holds it.
void Firmware::drain()
{
    const Scenario &s = soc_.scenario;
    auto &irq = *soc_.interrupts;
    while (!irq.pending.empty()) {
        unsigned g = irq.pending.front();
        if (serve_at_ == PMVP_TIME_NEVER) {
            // A guest takes its own; a handler that would start after the end does not run.
            if (soc_.pes[g].iss || now_ps() + s.firmware.irq_latency >= s.duration) {
                irq.pending.pop_front();
                continue;
            }
            serve_at_ = now_ps() + s.firmware.irq_latency;
        }
        if (serve_at_ > now_ps())
            wait(ps(serve_at_ - now_ps()));
        irq.pending.pop_front();
        serve_at_ = PMVP_TIME_NEVER;
        if (powered(g)) {
            service(g);
        } else {
            waiting_.push_back(g);
            deferred++;
        }
    }
}

// Waits for an interrupt, a PE powered on, or the end; false at the end.
bool Firmware::wait_for_work()
{
    const Scenario &s = soc_.scenario;
    if (now_ps() >= s.duration)
        return false;
    if (soc_.ended_early) {
        wait(sc_core::SC_ZERO_TIME);  // the cores' threads end first (Soc::interrupt)
        return false;
    }
    wait(ps(s.duration - now_ps()), soc_.interrupts->taken | soc_.powered_on | soc_.end_event());
    return true;
}

}  // namespace pmvp::soc
