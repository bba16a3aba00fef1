// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the kernel's input API, its register file, the external
// frames and the System-register interface, driven by one op sequence per
// input on a core whose configuration the first bytes choose. Invariants
// (tests/fuzz/README.md):
// - a refused call leaves the core byte for byte as it was;
// - a debug read changes no register's value (at the same instant);
// - with no inaccuracy knob, a counter never goes back except by a write,
//   a reset or a wrap that sets its overflow flag;
// - pmvp_core_next_event is never in the past and is exact: no new overflow
//   flag before it, a new one at it;
// - a checkpoint restores to the same counts; one with a byte changed and
//   its checksum made right again is taken or refused, never a crash.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "checkpoint_bytes.h"

extern "C" {
#include "pmvp/checkpoint.h"
#include "pmvp/core.h"
#include "pmvp/ebep.h"
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/ext.h"
#include "pmvp/fields.h"
#include "pmvp/pmu.h"
#include "pmvp/sysreg.h"
}

namespace {

[[noreturn]] void broken(const char *what)
{
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

// The values software sees of every counter of every PE at `t`, and PMOVSSET.
struct Counts {
    std::vector<uint64_t> v;
    std::vector<uint64_t> ovs;
};

Counts counts(const pmvp_core *c, pmvp_time t)
{
    Counts k;
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        uint64_t x = 0;
        for (unsigned n = 0; n < c->cfg.num_counters; n++) {
            if (pmvp_pmu_peek(c, p, PMVP_PMEVCNTR_EL0, n, t, &x) != PMVP_OK)
                broken("peek of an implemented counter failed");
            k.v.push_back(x);
        }
        pmvp_pmu_peek(c, p, PMVP_PMCCNTR_EL0, 0, t, &x);
        k.v.push_back(x);
        pmvp_pmu_peek(c, p, PMVP_PMOVSSET_EL0, 0, t, &x);
        k.ovs.push_back(x);
    }
    return k;
}

const uint16_t kEvents[] = { PMVP_EV_SW_INCR,
                             PMVP_EV_INST_RETIRED,
                             PMVP_EV_CPU_CYCLES,
                             PMVP_EV_BUS_CYCLES,
                             PMVP_EV_CHAIN,
                             0x0009,
                             0x0021,
                             0x0023,
                             0x0024,
                             0x003A,
                             0x4004,
                             0x4005,
                             0x1234 };

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzedDataProvider in(data, size);
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.num_pes = in.ConsumeIntegralInRange<unsigned>(1, 3);
    cfg.num_counters = in.ConsumeIntegralInRange<unsigned>(0, 31);
    cfg.pmu_version = in.PickValueInArray({ PMVP_PMUV3, PMVP_PMUV3P1, PMVP_PMUV3P4, PMVP_PMUV3P5 });
    cfg.feat_sebep = cfg.feat_ebep = in.ConsumeBool();
    cfg.pmu_ext_layout = in.ConsumeBool() ? PMVP_EXT64 : PMVP_EXT32;
    cfg.feat_pmuv3_icntr = in.ConsumeBool();                    // with SEBEP: PMICFILTR_EL0.SYNC
    if (in.ConsumeBool() && cfg.pmu_version == PMVP_PMUV3P5) {  // threshold and edge counting (D13.8)
        cfg.feat_pmuv3p7 = true;
        cfg.pmmir = PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, in.ConsumeIntegralInRange<unsigned>(0, 12)) |
                    PMVP_FIELD_PREP(PMVP_PMMIR_EL1_EDGE, in.ConsumeIntegralInRange<unsigned>(0, 2));
    }
    pmvp_core_config_limit_to_version(&cfg);  // no feature of a later version than the PMU's
    cfg.processor_hz = in.ConsumeIntegralInRange<uint64_t>(0, PMVP_MAX_CLOCK_HZ);
    bool knobs = in.ConsumeIntegralInRange<int>(0, 3) == 0;
    if (knobs) {
        cfg.inaccuracy.boundary_events = in.ConsumeIntegralInRange<uint32_t>(0, 8);
        cfg.inaccuracy.read_delay_cycles = in.ConsumeIntegralInRange<uint32_t>(0, 100);
        cfg.inaccuracy.seed = in.ConsumeIntegral<uint64_t>();
    }
    static pmvp_core core, before;
    if (pmvp_core_init(&core, &cfg) != PMVP_OK)
        return 0;  // an impossible configuration is refused: nothing to run
    pmvp_time now = 0;
    bool crafted_state = false;
    Counts last = counts(&core, 0);
    while (in.remaining_bytes() > 0) {
        // Mostly forward, sometimes the same instant, rarely the past.
        pmvp_time t = now;
        switch (in.ConsumeIntegralInRange<int>(0, 9)) {
        case 0: t = now > 100 ? now - in.ConsumeIntegralInRange<pmvp_time>(1, 100) : now; break;
        case 1:
        case 2: break;
        default:
            t = now + in.ConsumeIntegralInRange<pmvp_time>(0, (pmvp_time)1 << in.ConsumeIntegralInRange<int>(0, 40));
            break;
        }
        unsigned pe = in.ConsumeIntegralInRange<unsigned>(0, 3);  // 3 may be out of range
        std::memcpy(&before, &core, sizeof core);
        bool writes = false, debug_read = false;
        uint64_t v = in.ConsumeIntegral<uint64_t>();
        int err = PMVP_OK;
        switch (in.ConsumeIntegralInRange<int>(0, 15)) {
        case 0: {
            uint16_t ev = in.PickValueInArray(kEvents);
            if (v >> 60 == 0) {  // a batch spread over the cycles before t, in up to three runs
                const pmvp_run runs[3] = { { v % 7, (uint32_t)(v >> 8) % 5 },
                                           { v >> 16 & 0xFF, (uint32_t)(v >> 24) % 3 },
                                           { v >> 32 & 0xFFFF, (uint32_t)(v >> 48 & 0xFFF) } };
                err = pmvp_core_report_runs(&core, pe, ev, runs, (unsigned)(v >> 56 & 3), t);
            } else if (v >> 60 == 1) {
                err = pmvp_core_report_spread(&core, pe, ev, v & 0xFFFFF, v >> 20 & 0xFFFF, t);
            } else if (v >> 60 == 2) {  // two PEs' batches over overlapping cycles
                const pmvp_run runs[2] = { { v % 9, (uint32_t)(v >> 8) % 4 },
                                           { v >> 16 & 0xFF, (uint32_t)(v >> 24) % 3 } };
                const pmvp_batch b[2] = { { pe, ev, runs, 2 },
                                          { (pe + 1) % 4, in.PickValueInArray(kEvents), runs + 1, 1 } };
                err = pmvp_core_report_batches(&core, b, 1 + (unsigned)(v >> 56 & 1), t);
            } else if (v >> 60 == 3) {  // two PEs' shares of the cycles since an instant before t
                const pmvp_share s[2] = { { pe, ev, v & 0xFFFF },
                                          { (pe + 1) % 4, in.PickValueInArray(kEvents), v >> 16 & 0xFF } };
                pmvp_time since = t - std::min<pmvp_time>(t, v >> 24 & 0xFFFFF);
                err = pmvp_core_report_shares(&core, s, 1 + (unsigned)(v >> 56 & 1), since, t);
            } else {
                err = pmvp_core_report(&core, pe, ev, v % 1000, t);
            }
            break;
        }
        case 1: err = pmvp_core_set_pe_state(&core, pe, (pmvp_pe_state)(v % 5), t); break;
        case 2: {
            pmvp_context x{ (uint8_t)(v % 5), (uint8_t)(v >> 8 & 7), (bool)(v >> 16 & 1), (bool)(v >> 17 & 1),
                            (bool)(v >> 18 & 1) };
            err = pmvp_core_set_context(&core, pe, &x, t);
            break;
        }
        case 3: err = pmvp_core_set_clock(&core, v % 4 ? v % 4000000000u : v, t); break;
        case 4:
            err = pmvp_pmu_write(&core, pe, (pmvp_pmu_reg)(in.ConsumeIntegralInRange<int>(0, PMVP_PMU_NUM_REGS)),
                                 in.ConsumeIntegralInRange<unsigned>(0, 32), v, t);
            writes = true;
            break;
        case 5: {
            uint64_t x;
            err = pmvp_pmu_read(&core, pe, (pmvp_pmu_reg)(in.ConsumeIntegralInRange<int>(0, PMVP_PMU_NUM_REGS)),
                                in.ConsumeIntegralInRange<unsigned>(0, 32), t, &x);
            break;
        }
        case 6:
        case 7: {
            pmvp_ext_access a{ (uint8_t)(v % 5), (bool)(v >> 3 & 1) };
            pmvp_frame f = in.ConsumeBool() ? PMVP_FRAME_PMU : PMVP_FRAME_AMU;
            uint32_t off = in.ConsumeIntegralInRange<uint32_t>(0, 0x1003) & ~3u;
            unsigned sz = in.PickValueInArray({ 1u, 2u, 4u, 8u });
            uint64_t w = in.ConsumeIntegral<uint64_t>();
            switch (in.ConsumeIntegralInRange<int>(0, 3)) {
            case 0: err = pmvp_ext_read(&core, pe, f, off, sz, &a, t, &w, nullptr); break;
            case 1:
                err = pmvp_ext_write(&core, pe, f, off, sz, w, &a, t, nullptr);
                writes = true;
                break;
            case 2:
                err = pmvp_ext_debug_read(&core, pe, f, off, sz, t, &w);
                debug_read = true;
                break;
            default:
                err = pmvp_ext_debug_write(&core, pe, f, off, sz, w, t);
                writes = true;
                break;
            }
            break;
        }
        case 8:
        case 9: {
            bool write = in.ConsumeBool();
            unsigned op1 = in.ConsumeIntegralInRange<unsigned>(0, 7), crn = in.ConsumeIntegralInRange<unsigned>(9, 15);
            unsigned crm = in.ConsumeIntegralInRange<unsigned>(0, 15), op2 = in.ConsumeIntegralInRange<unsigned>(0, 7);
            pmvp_sysreg_execution out{};
            uint64_t x = v;
            if (in.ConsumeBool()) {
                const pmvp_sysreg_a64 insn = { write, 3, op1, crn, crm, op2, 1 };
                err = pmvp_sysreg_execute(&core, pe, &insn, nullptr, t, &x, &out);
            } else {  // the access alone, in a context of the fuzzer's choosing
                pmvp_sysreg r;
                pmvp_sysreg_context ctx{};
                if (pmvp_sysreg_decode_a64(write, 3, op1, crn, crm, op2, &r) != PMVP_OK ||
                    pmvp_sysreg_context_of(&core, pe < core.cfg.num_pes ? pe : 0, &ctx) != PMVP_OK)
                    continue;
                ctx.el = (uint8_t)in.ConsumeIntegralInRange<int>(0, 3);
                err =
                    write ? pmvp_sysreg_write(&core, pe, &r, &ctx, x, t) : pmvp_sysreg_read(&core, pe, &r, &ctx, t, &x);
            }
            writes = write;
            break;
        }
        case 10: {
            pmvp_retire_result r;
            err = pmvp_core_retire(&core, pe, in.PickValueInArray(kEvents), v % 4, v, t, &r);
            break;
        }
        case 11: err = pmvp_core_context_sync(&core, pe, t); break;
        case 12: {
            pmvp_pmu_controls ctl = core.pe[pe < core.cfg.num_pes ? pe : 0].pmu.ctl;
            ctl.mdcr_el2 ^= v & 0xFFFFF;
            ctl.mdcr_el3 ^= v >> 20 & 0xFFFFFFFF;
            err = pmvp_core_set_controls(&core, pe, &ctl, t);
            writes = true;  // HPMN and the prohibitions change what counts
            break;
        }
        case 14:
        case 15: {
            std::vector<uint8_t> ck(pmvp_core_checkpoint_size(&core));
            if (pmvp_core_save(&core, ck.data(), ck.size()) != PMVP_OK)
                broken("a checkpoint could not be saved");
            bool crafted = in.ConsumeBool();
            if (crafted) {  // one payload byte changed, the checksum made right again
                size_t at = 28 + v % (ck.size() - 36);
                ck[at] = (uint8_t)(v >> 32);
                make_checksum_good(ck);
            }
            const char *why = nullptr;
            err = pmvp_core_restore(&core, ck.data(), ck.size(), &why);
            if (!crafted && err != PMVP_OK) {
                std::fprintf(stderr, "refused: %s\n", why ? why : "?");
                broken("a core's own checkpoint was refused");
            }
            if (!crafted && !(counts(&core, core.last_call).v == counts(&before, core.last_call).v))
                broken("a restored core counts otherwise");
            // A crafted state need keep no invariant of a run: the calls
            // that follow must still neither crash nor misbehave in UBSan.
            crafted_state = crafted_state || (crafted && err == PMVP_OK);
            break;
        }
        default:
            if (in.ConsumeBool()) {  // two at once, the second's PE as the input chooses: all or none
                pmvp_level_change two[2] = { { pe, in.PickValueInArray(kEvents), (uint32_t)(v % 3) },
                                             { in.ConsumeIntegralInRange<unsigned>(0, 8), in.PickValueInArray(kEvents),
                                               (uint32_t)(v >> 8 & 3) } };
                err = pmvp_core_set_levels(&core, two, 2, t);
            } else {
                err = pmvp_core_set_level(&core, pe, in.PickValueInArray(kEvents), (uint32_t)(v % 3), t);
            }
            break;
        }
        if (err != PMVP_OK) {
            if (std::memcmp(&before, &core, sizeof core) != 0)
                broken("a refused call changed the core");
            continue;
        }
        if (core.last_call > now)
            now = core.last_call;
        if (crafted_state)
            continue;
        if (debug_read && std::memcmp(&before, &core, sizeof core) != 0)
            broken("a debug read changed the core");
        Counts k = counts(&core, now);
        {  // The pure query at a later instant is what a core brought there
            // shows, its rates computed afresh rather than from the caches.
            static pmvp_core synced;
            pmvp_time ahead = now + (v & 0xFFFFFF);
            pmvp_core_copy(&synced, &core);
            pmvp_core_drop_caches(&synced);
            if (pmvp_core_sync(&synced, ahead) != PMVP_OK)
                broken("a sync to a later instant failed");
            Counts peeked = counts(&core, ahead), there = counts(&synced, ahead);
            if (peeked.v != there.v || peeked.ovs != there.ovs)
                broken("a peek at a later instant differs from the core brought there");
        }
        // A write may set anything, and so may the PMU's controls; otherwise
        // counters only go up or wrap with their flag.
        if (!writes && !knobs)
            for (size_t i = 0; i < k.v.size(); i++) {
                size_t per_pe = core.cfg.num_counters + 1, p = i / per_pe, n = i % per_pe;
                uint32_t bit = n == core.cfg.num_counters ? PMVP_PMU_C : UINT32_C(1) << n;
                if (k.v[i] < last.v[i] && !(k.ovs[p] & bit))
                    broken("a counter went back without a write or an overflow");
            }
        last = k;
        pmvp_time when = 0;
        if (pmvp_core_next_event(&core, now, &when) != PMVP_OK)
            broken("next_event failed at the present");
        if (when != PMVP_TIME_NEVER) {
            if (when <= now)
                broken("next_event is not after the present");
            Counts a = counts(&core, when - 1), b = counts(&core, when);
            for (size_t p = 0; p < k.ovs.size(); p++) {
                if ((a.ovs[p] & ~k.ovs[p]) != 0)
                    broken("an overflow flag was set before next_event");
            }
            bool any = false;
            for (size_t p = 0; p < k.ovs.size(); p++)
                any = any || (b.ovs[p] & ~k.ovs[p]) != 0;
            if (!any)
                broken("no overflow flag was set at next_event");
        }
    }
    return 0;
}
