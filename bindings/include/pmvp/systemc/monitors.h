// SPDX-License-Identifier: Apache-2.0
//
// pmvp::sc::Monitors: the PMU and AMU of one core, as a SystemC/TLM-2.0
// module. It translates SystemC into calls of the C kernels (model/) and
// holds no architectural rule.
//
// - TLM-2.0 target sockets (base protocol), one PMU frame and one AMU frame
//   per PE: pmu_socket[p], amu_socket[p]. Addresses are offsets in the 4 KiB
//   frame (a router subtracts the frame's base). b_transport evaluates the
//   access at sc_time_stamp() + delay; transport_dbg goes through the
//   kernel's side-effect-free debug path, and reads any range of the frame
//   (a debugger's dump: zero where no register is); DMI is refused.
// - Signals, all optional (unbound ports keep their defaults): processor,
//   bus and System Counter frequencies (Hz; a change takes effect at the
//   current time; 0 stops the clock), per-PE WFI, WFE and power, the NIDEN
//   and SPNIDEN authentication inputs, cold and warm reset (active high,
//   acting on the rising edge), and per-PE PMUIRQ out (level-sensitive,
//   written only when its level changes).
// - The CPU-model interface (report, set_level, set_context, ...): each call
//   takes a local-time offset, so a loosely-timed CPU model need not
//   synchronise to report.
// - One timed sc_event per core raises PMUIRQ at the exact instant a counter
//   overflows; no process is clocked.
//
// Time: a call with a local-time offset or an annotated delay acts at
// sc_time_stamp() + offset. The kernel never runs ahead of simulated time:
// a read for a later instant is evaluated on a copy carrying every change
// made so far for instants up to it; a change for a later instant returns
// its result at once (evaluated the same way) and is applied when simulated
// time reaches it. So a CPU model running ahead in its quantum does not
// reorder what other initiators see at the present time; what they do later
// for earlier instants can, as always under temporal decoupling, differ from
// what the early reader was told. Calls in non-decreasing time are cheapest
// (one evaluation each); one for an instant before an instant already
// evaluated rebuilds the copy.
//
// Guest errors (a refused external access, a bad size) get the TLM response
// status documented at access(); refused accesses and the kernel's reports
// of CONSTRAINED UNPREDICTABLE programming (unless the configuration has
// its own log callback) are SC_REPORT_WARNINGs of type "pmvp/guest", whose
// actions the platform may set.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "pmvp/systemc/support.h"

extern "C" {
#include "pmvp/amu.h"
#include "pmvp/core.h"
#include "pmvp/ebep.h"
#include "pmvp/events.h"  // the event numbers report() and set_level() take
#include "pmvp/ext.h"
#include "pmvp/fields.h"  // the registers' fields (PMVP_PMCR_EL0_E, ...) a platform writes through the frames
#include "pmvp/pmu.h"
#include "pmvp/sysreg.h"
}

namespace pmvp::sc {

// Bus attributes of a TLM access (security, debugger or memory-mapped), as a
// generic-payload extension. Without it, an access has the module's
// `default_access`.
struct AccessExtension : tlm::tlm_extension<AccessExtension> {
    explicit AccessExtension(pmvp_ext_access a = { PMVP_NONSECURE, false }) : access(a) {}
    tlm::tlm_extension_base *clone() const override { return new AccessExtension(access); }
    void copy_from(const tlm::tlm_extension_base &other) override
    {
        access = static_cast<const AccessExtension &>(other).access;
    }
    pmvp_ext_access access;
};

class Monitors;

// The target socket of one frame: TLM's target socket, serving the
// monitors' blocking and debug transport itself, without the event queue
// and the conversion process of tlm_utils' simple sockets (the four of a
// 2-PE module were the largest part of its construction, in a platform of
// many cores). A nonblocking request
// completes in the call: nb_transport_fw at BEGIN_REQ makes the access and
// returns TLM_COMPLETED (the base protocol's early completion), the
// response status and the delay set as b_transport sets them; any other
// phase is answered TLM_COMPLETED with TLM_GENERIC_ERROR_RESPONSE, as no
// transaction is in flight. No DMI. Optional: a platform binds only the
// frames it maps.
class FrameSocket : public tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>,
                    private tlm::tlm_fw_transport_if<> {
public:
    explicit FrameSocket(const char *name);
    // The module and the frame (2 x PE + frame) it serves.
    void serve(Monitors &m, int id)
    {
        monitors_ = &m;
        id_ = id;
    }

private:
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay) override;
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase,
                                       sc_core::sc_time &delay) override;
    bool get_direct_mem_ptr(tlm::tlm_generic_payload &gp, tlm::tlm_dmi &dmi) override;
    unsigned int transport_dbg(tlm::tlm_generic_payload &gp) override;
    Monitors *monitors_ = nullptr;
    int id_ = 0;
};

class Monitors : public sc_core::sc_module {
public:
    using socket_type = FrameSocket;
    // The most level changes one input carries (set_levels, report_shares).
    static constexpr unsigned kMaxLevelChanges = 16;

    // `config` is the kernel's configuration (PEs, counters, features,
    // layouts, initial frequencies). Throws std::invalid_argument if the
    // kernel refuses it.
    Monitors(const sc_core::sc_module_name &name, const pmvp_core_config &config);
    ~Monitors() override;

    // ---- TLM: one PMU frame and one AMU frame per PE
    // sc_vectors, as the ports below: bound one by one (pmu_socket[p]) or
    // all at once (an initiator's sc_vector .bind(pmu_socket)).
    sc_core::sc_vector<socket_type> pmu_socket, amu_socket;

    // ---- signals
    optional_in<uint64_t> processor_hz, bus_hz, system_counter_hz;
    sc_core::sc_vector<optional_in<bool>> wfi, wfe, power;  // power: 1 = on (default when unbound)
    optional_in<bool> niden, spniden;                       // authentication interface
    optional_in<bool> cold_reset, warm_reset;
    sc_core::sc_vector<optional_out<bool>> pmuirq;

    // ---- the CPU-model interface. Each call acts at sc_time_stamp() +
    // offset and returns the kernel's result (PMVP_OK or a PMVP_ERR_*).
    [[nodiscard]] int report(unsigned pe, uint16_t event, uint64_t count,
                             const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // Why report (level: set_level) refuses `event` with PMVP_ERR_EVENT, in
    // a sentence naming the argument (pmvp_core_event_why); nullptr when
    // the call takes the event.
    const char *event_why(uint16_t event, bool level) const;
    // A batch that says how it spread: `count` occurrences over the last
    // `cycles` processor cycles completed by the call's instant, as evenly
    // as whole numbers allow, the extra ones first (pmvp_core_report_spread:
    // threshold and edge counting see each cycle's share). The cycles must
    // follow the PE's, and every other, last input to the monitors.
    [[nodiscard]] int report_spread(unsigned pe, uint16_t event, uint64_t count, uint64_t cycles,
                                    const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // Batches of several PEs (SMT threads) or events over the same cycles,
    // for a CPU model that knows instants: the processor cycles completed
    // between sc_time_stamp() + since and sc_time_stamp() + offset, each
    // share's count as evenly as whole numbers allow
    // (pmvp_core_report_shares: an MT == 1 counter sees each cycle's sum).
    // A window reaching back before another input to the monitors starts
    // after it. PMVP_ERR_VALUE for no share or more than PMVP_MAX_BATCHES,
    // and for `since` after `offset` (the window ends at `offset`);
    // PMVP_ERR_EVENT for a share's event as report() (event_why).
    [[nodiscard]] int report_shares(const pmvp_share *shares, unsigned num_shares, const sc_core::sc_time &since,
                                    const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // The same shares, then the level changes `levels` at `offset` in their
    // order (set_level each), as one input: one kept change, one wake-up
    // test, one application. What a CPU model tells at the end of a
    // stretch whose end is a stall's. Refused as a whole, nothing made,
    // where any part would be; up to kMaxLevelChanges levels (`levels` may
    // be NULL with none).
    [[nodiscard]] int report_shares(const pmvp_share *shares, unsigned num_shares, const sc_core::sc_time &since,
                                    const sc_core::sc_time &offset, const pmvp_level_change *levels,
                                    unsigned num_levels);
    // FEAT_SEBEP: the instruction at `pc` retired, generating `count` of
    // `event`; `result` says whether it sets PSTATE.PPEND, so that the CPU
    // model takes the PMU exception before the next instruction
    // (pmvp_core_retire).
    [[nodiscard]] int retire(unsigned pe, uint16_t event, uint64_t count, uint64_t pc, pmvp_retire_result &result,
                             const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // A Context synchronization event or an MSR to PSTATE.PM completed
    // (pmvp_core_context_sync: counters at their threshold lose the shadow).
    [[nodiscard]] int context_sync(unsigned pe, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // FEAT_EBEP: the PMU Profiling exception of the PE (enabled, masked,
    // target, an asynchronous one pending) for its current context.
    [[nodiscard]] int pmu_exception(unsigned pe, pmvp_pmu_exception &state,
                                    const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int set_level(unsigned pe, uint16_t event, uint32_t level,
                                const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // Level changes of one instant, in their order, as one input (as
    // set_level each; refused as a whole, nothing made, where any would be):
    // 1 to kMaxLevelChanges of them.
    [[nodiscard]] int set_levels(const pmvp_level_change *levels, unsigned num_levels,
                                 const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int set_context(unsigned pe, const pmvp_context &ctx,
                                  const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int set_active_thread(unsigned pe, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // FEAT_PMUv3_SS: the external snapshot request of the PE (the IMPLEMENTATION
    // DEFINED mechanism of D13.9, pmvp_core_snapshot_request): a Capture
    // event at its instant. PMVP_ERR_REGISTER without FEAT_PMUv3_SS.
    [[nodiscard]] int snapshot_request(unsigned pe, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // MDCR_EL2, MDCR_EL3, SDER32_EL3 and the OS Lock as the CPU model holds
    // them, all at once: every field of `ctl` replaces the PE's (so a
    // struct built afresh clears what another part of the CPU model set;
    // set_control changes one field). The authentication fields are taken
    // from niden/spniden when those ports are bound.
    [[nodiscard]] int set_controls(unsigned pe, const pmvp_pmu_controls &ctl,
                                   const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // One field of pmvp_pmu_controls, the others as they are in force at
    // the change's instant: what EL2/EL3 software's MSR to MDCR_EL2 does,
    // or the OS Lock's. A flag takes 0 or 1 (else PMVP_ERR_VALUE).
    enum class Control : uint8_t {
        MDCR_EL2,
        MDCR_EL3,
        HCR_EL2,
        SCR_EL3,
        SDER32_EL3,
        OS_LOCK,
        OS_DOUBLE_LOCK,
        NONINVASIVE_DEBUG,
        SECURE_NONINVASIVE_DEBUG,
    };
    [[nodiscard]] int set_control(unsigned pe, Control field, uint64_t value,
                                  const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // System-register accesses the CPU model has already checked (MRS/MSR).
    [[nodiscard]] int pmu_read(unsigned pe, pmvp_pmu_reg reg, unsigned n, uint64_t &value,
                               const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int pmu_write(unsigned pe, pmvp_pmu_reg reg, unsigned n, uint64_t value,
                                const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int amu_read(unsigned pe, pmvp_amu_reg reg, unsigned n, uint64_t &value,
                               const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    [[nodiscard]] int amu_write(unsigned pe, pmvp_amu_reg reg, unsigned n, uint64_t value,
                                const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);

    // ---- for an instruction-set simulator
    // An MRS or MSR `insn` executed by PE `pe`: decoded, checked in the
    // PE's context with the higher levels' controls `higher` (NULL: all
    // zero) and made if permitted (pmvp_sysreg_execute). `value` is the
    // MSR's value or gets the MRS's.
    [[nodiscard]] int execute(unsigned pe, const pmvp_sysreg_a64 &insn, const pmvp_sysreg_context *higher,
                              uint64_t &value, pmvp_sysreg_execution &out,
                              const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // The same with the instruction's fields as arguments.
    [[nodiscard]] int execute_a64(unsigned pe, bool write, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                                  unsigned op2, unsigned rt, const pmvp_sysreg_context *higher, uint64_t &value,
                                  pmvp_sysreg_execution &out, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // The occurrences of `event` PE `pe` can report up to the one that raises
    // PMUIRQ or freezes counters (pmvp_core_events_to_interrupt).
    [[nodiscard]] int events_to_interrupt(unsigned pe, uint16_t event, uint64_t &count,
                                          const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // The same for `num` events in one query: counts[i] for events[i] (a
    // CPU model that tells many events asks once a run). PMVP_ERR_NULL, or
    // the first event's refusal, counts[] then partly written
    // (pmvp_core_events_to_interrupt_each).
    [[nodiscard]] int events_to_interrupt(unsigned pe, const uint16_t *events, unsigned num, uint64_t *counts,
                                          const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // The next instant (ps) at which an overflow can raise PMUIRQ of some PE
    // if nothing else changes, or PMVP_TIME_NEVER (pmvp_core_next_interrupt).
    [[nodiscard]] int next_interrupt(pmvp_time &when, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // The next instant (ps) at which the passage of time freezes counters of
    // some PE (freeze on overflow), or PMVP_TIME_NEVER (pmvp_core_next_freeze):
    // where a CPU model reporting in batches ends one.
    [[nodiscard]] int next_freeze(pmvp_time &when, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // Whether, on the core at sc_time_stamp() + offset, the processor cycle
    // on which an occurrence falls changes what counts (threshold and edge
    // counting, freeze on overflow: pmvp_core_cycle_values_matter). While it
    // does not, occurrences told later over a longer stretch count as told
    // stretch by stretch, and PMCCNTR does not depend on them: a CPU model
    // may read PMCCNTR before telling its latest instructions.
    [[nodiscard]] int cycle_values_matter(bool &matter, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // PMUIRQ of PE `pe` at sc_time_stamp() + offset.
    [[nodiscard]] int irq_level(unsigned pe, bool &level, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // The PE's state (running, WFI, WFE, off) from sc_time_stamp() + offset
    // on, for a CPU model that runs ahead of simulated time. A PE whose wfi,
    // wfe and power ports are all unbound takes its state from these calls
    // only; one with a bound port follows its signals, and this call
    // returns PMVP_ERR_CONFIG for it.
    [[nodiscard]] int set_state(unsigned pe, pmvp_pe_state state,
                                const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);
    // The processor clock's frequency from sc_time_stamp() + offset on, for
    // a CPU model that runs ahead of simulated time and owns the clock (an
    // ISS cutting its runs at frequency changes). PMVP_ERR_CONFIG when the
    // processor_hz port is bound: the port is then the clock's only source.
    [[nodiscard]] int set_clock(uint64_t hz, const sc_core::sc_time &offset = sc_core::SC_ZERO_TIME);

    // ---- observability
    // A register of a frame by its Arm ARM name ("PMCCNTR_EL0",
    // "PMEVCNTR<n>_EL0" with n), read through the debug path now. Throws
    // std::invalid_argument for a PE or a register the core does not have,
    // std::runtime_error naming the kernel's error for a read it refuses.
    uint64_t peek(unsigned pe, pmvp_frame frame, const std::string &name, unsigned n = 0);
    // Adds the processor clock's frequency (processor_hz) and each PE's
    // PMCCNTR, event counters, AMU architected counters, PMUIRQ, the count
    // of PMUIRQ's rising edges (PMUIRQ_rises: a pulse a handler ends at the
    // instant it starts has no width, so the level alone does not show it),
    // WFx and power state to `tf`. Values are sampled whenever the monitor
    // acts (an input changes, a write, a report, an overflow whose
    // interrupt is enabled), and by sample_trace().
    // (sc_object::trace, overridden: the traced values are the module's
    // sampling state, not its observable state, hence const.)
    void trace(sc_core::sc_trace_file *tf) const override;
    // Stops sampling the traced values: they keep their last values, so a
    // trace file stops growing (pmvp-soc's --vcd-limit).
    void stop_tracing();
    // Samples the traced values now. SystemC writes a timestep's values to a
    // trace file only when time advances past it, so a run's last instant
    // is not in the file: sample there, and write them yourself
    // (traced_signals(); pmvp-soc appends them to its VCD).
    void sample_trace();
    // The events the platform's software programs into the event counters,
    // by counter, for the traced signals' names: PMEVCNTR1_EL0_INST_RETIRED
    // instead of PMEVCNTR1_EL0 (an empty name: the register's alone). Before
    // trace().
    void name_traced_counters(const std::vector<std::string> &events);
    // What trace() added, in its order: each signal's full name (as
    // sc_trace was given it), its width in bits (1 or 64), for a waveform
    // viewer's save file, and the value last sampled.
    struct TracedSignal {
        std::string name;
        unsigned bits;
        const void *value;  // a bool (1 bit) or a uint64_t (64), the monitors'
        uint64_t sampled() const { return bits == 1 ? *(const bool *)value : *(const uint64_t *)value; }
    };
    const std::vector<TracedSignal> &traced_signals() const;

    // ---- checkpoint and restore (pmvp/checkpoint.h)
    // The monitors' state at the current simulated time: the kernel's
    // checkpoint, then the changes kept for later instants (a CPU model
    // ahead of simulated time), in the format of Timeline::save (support.h).
    std::vector<uint8_t> save();
    // Restores the state `save` returned, from monitors of the same
    // configuration, at the simulated instant it was saved (a restored
    // platform runs to that instant first): the kept changes are kept again
    // and take effect at their instants; the bound input signals then apply
    // as they are, and PMUIRQ is driven as the restored overflow flags make
    // it. Throws std::invalid_argument naming what is wrong (the kernel's
    // refusal, the instant, a corrupt or truncated part, a kept change the
    // restored kernel refuses) and changes nothing.
    void restore(const std::vector<uint8_t> &checkpoint);
    // Throws std::invalid_argument as restore() would for the kernel's part
    // of `checkpoint` (another configuration, a corrupt or implausible
    // state), changing nothing: a restoring platform asks before it runs to
    // the checkpoint's instant.
    void check_restore(const std::vector<uint8_t> &checkpoint) const;

    // Attributes of accesses that carry no AccessExtension: Non-secure,
    // memory-mapped.
    pmvp_ext_access default_access{ PMVP_NONSECURE, false };
    // How long an access to a frame takes: added to the delay of every
    // b_transport (loosely timed), after the access is made at the instant
    // the delay it came with says. Default 0.
    sc_core::sc_time access_latency = sc_core::SC_ZERO_TIME;

    unsigned num_pes() const { return core_->cfg.num_pes; }
    // The kernel state, for inspection; not to be modified.
    const pmvp_core &kernel() const { return *core_; }

    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    unsigned int transport_dbg(int id, tlm::tlm_generic_payload &gp);
    unsigned int dump(unsigned pe, pmvp_frame f, tlm::tlm_generic_payload &gp);
    using sc_core::sc_module::dump;  // sc_object's dump(std::ostream &) stays callable

private:
    struct Traced;

    void end_of_elaboration() override;
    void start_or_update();
    void inputs_changed();
    void reset_changed();
    void update();
    // The inputs, one type each (bindings/src/arm_inputs.h), and the
    // module's part of the Timeline that keeps them (bindings/src/timeline.h).
    struct Input;
    friend class Timeline<pmvp_core, Monitors>;
    int apply(pmvp_core *c, pmvp_time t, const Input &in);
    static bool decide(const pmvp_core &c, const Input &in, int *err);
    void failed(int err);
    bool wakes(const Input &in, const pmvp_share *shares, unsigned num_shares, bool kept, pmvp_time now) const;
    static uint64_t count_occurrences(const Input &in);
    static uint64_t total(const pmvp_share *shares, unsigned n);
    void no_longer_kept(uint64_t occurrences);
    // At least the occurrences that kept reports and shares carry: what
    // they can add to a counter before the process wakes (wakes()).
    uint64_t kept_occurrences_ = 0;
    // wakes()'s last answer from pmvp_core_events_to_interrupt_any, for
    // `event`, while the present is at Timeline::present_epoch `epoch`.
    mutable struct {
        uint64_t epoch = UINT64_MAX, count = 0;
        uint16_t event = 0;
    } before_;
    template <class F> int query(const sc_core::sc_time &offset, const F &op);
    bool direct_reads_draw() const;
    int change(const sc_core::sc_time &offset, const Input &in);
    int change(pmvp_time now, const sc_core::sc_time &offset, const Input &in);
    void apply_authentication(pmvp_pmu_controls &ctl);
    int put_controls(pmvp_core *c, unsigned pe, const pmvp_pmu_controls &ctl, pmvp_time t);
    static pmvp_pe_state state_of(bool on, bool wfi, bool wfe);
    static void guest_log(void *user, unsigned pe, const char *msg);
    tlm::tlm_response_status access(unsigned pe, pmvp_frame f, tlm::tlm_generic_payload &gp,
                                    const sc_core::sc_time &delay, bool debug);
    void sample(pmvp_time now);

    std::unique_ptr<pmvp_core> core_, scratch_;  // scratch_: the future view (Timeline)
    TimeBase time_;
    std::unique_ptr<Timeline<pmvp_core, Monitors>> timeline_;
    pmvp_core_config config_;
    std::vector<uint16_t> events_, sync_events_;  // config_'s lists, for a cold reset
    std::vector<pmvp_sebep_threshold> thresholds_;
    std::vector<pmvp_pmu_controls> controls_;
    std::vector<bool> irq_;
    bool redrive_ = false;  // after a restore: update() writes every PMUIRQ line
    // The last decision on an MRS or MSR (execute(), a kept write made
    // anew), taken again for the same instruction in the same context (the
    // configuration never changes).
    pmvp_sysreg_memo sysreg_memo_{};
    struct {
        pmvp_retire_result *retire = nullptr;     // retire()'s caller's, while it runs
        pmvp_sysreg_execution *sysreg = nullptr;  // execute()'s, for a write
    } results_;
    sc_core::sc_event wake_;
    bool started_ = false, cold_ = false, warm_ = false;
    std::unique_ptr<Traced> traced_;
};

}  // namespace pmvp::sc
