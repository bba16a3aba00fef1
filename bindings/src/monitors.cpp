// SPDX-License-Identifier: Apache-2.0
#include "pmvp/systemc/monitors.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "monitors_private.h"

extern "C" {
#include "pmvp/checkpoint.h"
#include "pmvp/error.h"
}

namespace pmvp::sc {

using sc_core::sc_time;

Monitors::Monitors(const sc_core::sc_module_name &name, const pmvp_core_config &config)
    : sc_module(name), pmu_socket("pmu_socket"), amu_socket("amu_socket"), processor_hz("processor_hz"),
      bus_hz("bus_hz"), system_counter_hz("system_counter_hz"), wfi("wfi"), wfe("wfe"), power("power"), niden("niden"),
      spniden("spniden"), cold_reset("cold_reset"), warm_reset("warm_reset"), pmuirq("pmuirq"), core_(new pmvp_core),
      scratch_(new pmvp_core),
      timeline_(std::make_unique<Timeline<pmvp_core, Monitors>>(*core_, *scratch_, *this, time_)), config_(config)
{
    // The kernel's reports of guest oddities become SystemC reports, unless
    // the platform took them itself.
    if (!config_.log) {
        config_.log = &Monitors::guest_log;
        config_.log_user = this;
    }
    // Keep the lists for a cold reset: the kernel does not keep the caller's
    // arrays. An empty list is not NULL (NULL: every event), and is never read.
    if (config.events && config.num_events) {
        events_.assign(config.events, config.events + config.num_events);
        config_.events = events_.data();
    }
    if (config.sync_events && config.num_sync_events) {
        sync_events_.assign(config.sync_events, config.sync_events + config.num_sync_events);
        config_.sync_events = sync_events_.data();
    }
    if (config.sebep_thresholds && config.num_sebep_thresholds) {
        thresholds_.assign(config.sebep_thresholds, config.sebep_thresholds + config.num_sebep_thresholds);
        config_.sebep_thresholds = thresholds_.data();
    }
    const char *why = nullptr;
    int err = pmvp_core_init_why(core_.get(), &config_, &why);
    if (err)
        throw std::invalid_argument(std::string("pmvp::sc::Monitors: ") + (why ? why : pmvp_strerror(err)));
    unsigned pes = config.num_pes;
    wfi.init(pes);
    wfe.init(pes);
    power.init(pes);
    pmuirq.init(pes);
    pmu_socket.init(pes);  // pmu_socket_0, ...
    amu_socket.init(pes);
    for (unsigned p = 0; p < pes; p++) {
        controls_.push_back(core_->pe[p].pmu.ctl);
        for (pmvp_frame f : { PMVP_FRAME_PMU, PMVP_FRAME_AMU }) {
            socket_type &socket = (f == PMVP_FRAME_PMU ? pmu_socket : amu_socket)[p];
            socket.serve(*this, (int)(2 * p + f));
        }
    }
    irq_.assign(pes, false);
    traced_ = std::make_unique<Traced>(pes, config.num_counters);
}

Monitors::~Monitors() = default;

void Monitors::guest_log(void *user, unsigned pe, const char *msg)
{
    auto *self = static_cast<Monitors *>(user);
    std::string text = std::string(self->name()) + ": PE " + std::to_string(pe) + ": " + msg;
    SC_REPORT_WARNING("pmvp/guest", text.c_str());
}

// The monitor's only process: at each wake-up, PMUIRQ levels and traced
// values are brought to the current time and the next instant an overflow
// can raise PMUIRQ is scheduled (other overflows need no wake-up: their
// flags are computed whenever they are read).
void Monitors::update()
{
    pmvp_time now = time_.now();
    timeline_->catch_up(now);
    timeline_->touched();  // the interrupt lines and the next wake-up below read the present
    for (unsigned p = 0; p < num_pes(); p++) {
        bool level = false;
        pmvp_pmu_irq(core_.get(), p, now, &level);
        if (level != irq_[p] || redrive_) {
            traced_->irq_rises[p] += level && !irq_[p];
            irq_[p] = level;
            if (pmuirq[p].size())
                pmuirq[p]->write(level);
        }
    }
    redrive_ = false;
    if (traced_->on)
        sample(now);
    // Next wake-up: the next interrupting overflow, or the next change kept for later.
    pmvp_time next = PMVP_TIME_NEVER;
    pmvp_core_next_interrupt(core_.get(), now, &next);
    next = std::min(next, timeline_->next_pending([&](const Input &ch) {
        pmvp_share shares[PMVP_MAX_BATCHES];
        return wakes(ch, shares, ch.occurrences(shares), true, now);
    }));
    if (next != PMVP_TIME_NEVER)
        wake_.notify(time_.to_sc(next - now));
}

// ----------------------------------------------------------------- signals

void Monitors::end_of_elaboration()
{
    // Only bound ports can make a process sensitive.
    sc_core::sc_spawn_options inputs;
    inputs.spawn_method();
    inputs.dont_initialize();
    bool any = false;
    auto watch = [&](auto &port) {
        if (port.size()) {
            inputs.set_sensitivity(&port->value_changed_event());
            any = true;
        }
    };
    watch(processor_hz);
    watch(bus_hz);
    watch(system_counter_hz);
    watch(niden);
    watch(spniden);
    for (unsigned p = 0; p < num_pes(); p++) {
        watch(wfi[p]);
        watch(wfe[p]);
        watch(power[p]);
    }
    if (any)
        sc_core::sc_spawn([this] { inputs_changed(); }, sc_core::sc_gen_unique_name("inputs"), &inputs);

    sc_core::sc_spawn_options resets;
    resets.spawn_method();
    resets.dont_initialize();
    bool resettable = false;
    for (auto *port : { &cold_reset, &warm_reset })
        if (port->size()) {
            resets.set_sensitivity(&(*port)->value_changed_event());
            resettable = true;
        }
    if (resettable)
        sc_core::sc_spawn([this] { reset_changed(); }, sc_core::sc_gen_unique_name("resets"), &resets);

    sc_core::sc_spawn_options wake;
    wake.spawn_method();
    wake.set_sensitivity(&wake_);  // also runs once at start: initial inputs and PMUIRQ
    sc_core::sc_spawn([this] { start_or_update(); }, sc_core::sc_gen_unique_name("update"), &wake);
}

void Monitors::start_or_update()
{
    if (!started_) {
        started_ = true;
        inputs_changed();
        return;
    }
    update();
}

pmvp_pe_state Monitors::state_of(bool on, bool in_wfi, bool in_wfe)
{
    return !on ? PMVP_PE_OFF : in_wfi ? PMVP_PE_WFI : in_wfe ? PMVP_PE_WFE : PMVP_PE_RUN;
}

// The authentication inputs, where bound, override the CPU model's copy.
void Monitors::apply_authentication(pmvp_pmu_controls &ctl)
{
    if (niden.size())
        ctl.noninvasive_debug = niden->read();
    if (spniden.size())
        ctl.secure_noninvasive_debug = spniden->read();
}

void Monitors::inputs_changed()
{
    pmvp_time now = time_.now();
    timeline_->catch_up(now);
    pmvp_core *c = core_.get();
    timeline_->invalidate();
    // A frequency the kernel refuses (above PMVP_MAX_CLOCK_HZ) leaves the
    // clock as it was, and says so.
    auto clock = [&](const char *port, int (*set)(pmvp_core *, uint64_t, pmvp_time), uint64_t hz) {
        if (set(c, hz, now) != PMVP_OK)
            SC_REPORT_WARNING("pmvp/clock", (std::string(name()) + ": " + port + " = " + std::to_string(hz) +
                                             " Hz is above the 1 THz pmvp accepts: the clock keeps its frequency")
                                                .c_str());
    };
    if (processor_hz.size() && processor_hz->read() != c->clock.hz)
        clock("processor_hz", pmvp_core_set_clock, processor_hz->read());
    if (bus_hz.size() && bus_hz->read() != c->bus_clock.hz)
        clock("bus_hz", pmvp_core_set_bus_clock, bus_hz->read());
    if (system_counter_hz.size() && system_counter_hz->read() != c->system_counter.hz)
        clock("system_counter_hz", pmvp_core_set_system_counter, system_counter_hz->read());
    for (unsigned p = 0; p < num_pes(); p++) {
        // A PE with none of these ports bound takes its state from set_state().
        if (power[p].size() || wfi[p].size() || wfe[p].size()) {
            bool on = !power[p].size() || power[p]->read();
            bool in_wfi = wfi[p].size() && wfi[p]->read();
            bool in_wfe = wfe[p].size() && wfe[p]->read();
            pmvp_pe_state st = state_of(on, in_wfi, in_wfe);
            if (st != c->pe[p].state)
                pmvp_core_set_pe_state(c, p, st, now);
        }
        pmvp_pmu_controls ctl = controls_[p];
        apply_authentication(ctl);
        if (std::memcmp(&ctl, &c->pe[p].pmu.ctl, sizeof ctl) != 0)
            pmvp_core_set_controls(c, p, &ctl, now);
    }
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// Cold reset: the whole core as configured, then the current inputs. Warm
// reset: each PE's PMU (the AMU keeps counting: its reset domain is the
// AMU reset, which cold reset covers).
void Monitors::reset_changed()
{
    bool cold = cold_reset.size() && cold_reset->read();
    bool warm = warm_reset.size() && warm_reset->read();
    pmvp_time now = time_.now();
    timeline_->catch_up(now);
    timeline_->invalidate();
    if (cold && !cold_) {
        timeline_->clear();  // what was reported for after the reset is gone with it
        kept_occurrences_ = 0;
        pmvp_core_init(core_.get(), &config_);
        sysreg_memo_ = pmvp_sysreg_memo{};
        pmvp_core_sync(core_.get(), now);  // nothing is enabled: this only moves time on
        for (unsigned p = 0; p < num_pes(); p++)
            controls_[p] = core_->pe[p].pmu.ctl;
        inputs_changed();
    } else if (warm && !warm_) {
        for (unsigned p = 0; p < num_pes(); p++)
            pmvp_pmu_reset(core_.get(), p, now);
    }
    cold_ = cold;
    warm_ = warm;
    wake_.notify(sc_core::SC_ZERO_TIME);
}

std::vector<uint8_t> Monitors::save()
{
    return timeline_->checkpoint();
}

void Monitors::check_restore(const std::vector<uint8_t> &checkpoint) const
{
    std::string why;
    if (!timeline_->kernel_takes(checkpoint, &why))
        throw std::invalid_argument(std::string(name()) + ": restore: " + why);
}

void Monitors::restore(const std::vector<uint8_t> &checkpoint)
{
    std::string why;
    if (!timeline_->restore(checkpoint, &why))
        throw std::invalid_argument(std::string(name()) + ": restore: " + why);
    sysreg_memo_ = pmvp_sysreg_memo{};
    kept_occurrences_ = 0;  // the restored changes' occurrences
    timeline_->next_pending([this](const Input &ch) {
        kept_occurrences_ = saturating_add(kept_occurrences_, count_occurrences(ch));
        return false;  // every kept change visited
    });
    for (unsigned p = 0; p < num_pes(); p++)
        controls_[p] = core_->pe[p].pmu.ctl;
    redrive_ = true;  // PMUIRQ as the restored flags make it, whatever the line shows now
    inputs_changed();
}

}  // namespace pmvp::sc
