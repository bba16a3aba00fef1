// SPDX-License-Identifier: Apache-2.0
//
// The scenario reader's x86 and SEBEP scenarios (scenario_reader.h).
#include "scenario_reader.h"

#include <fstream>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cmath>
#include <memory>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "a64_events.h"
#include "firmware_image.h"
#include "pmvp/config/core_file.h"
#include "pmvp/config/json_text.h"
#include "pmvp/config/units.h"

extern "C" {
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/fields.h"
}


namespace pmvp::soc::reading {

void Reader::x86_phase(Object &o, X86Phase &p)
{
    static const char *const kKinds[] = { "run", "hlt", "mwait" };
    int kinds = 0;
    for (int k = 0; k < 3; k++) {
        if (o.has(kKinds[k])) {
            p.kind = (X86Phase::Kind)k;
            p.duration = o.time(kKinds[k], 0);
            kinds++;
        }
    }
    if (kinds != 1)
        fail(o.path(), "expected exactly one of run, hlt or mwait");
    if (p.kind == X86Phase::RUN) {
        p.ipc_milli = (uint64_t)std::llround(o.real("ipc", 1.0, 0, 8) * 1000);
        p.cpl = (uint8_t)o.integer("cpl", 0, 0, 3);
    }
}

void Reader::x86(Object &o, X86Setup &x, pmvp_time duration)
{
    pmvp_x86_config_default(&x.config);
    x.config.core_hz = o.hz("frequency", x.config.core_hz);
    x.config.tsc_hz = o.hz("tsc", x.config.tsc_hz);
    x.config.xclk_hz = o.hz("xclk", x.config.xclk_hz);
    x.config.tsc_invariant = o.boolean("tsc_invariant", true);
    std::string mode = o.str("cpl_qualification", "per-thread");
    if (mode == "t0-t1")
        x.config.cpl_mode = PMVP_X86_CPL_T0_T1;
    else if (mode != "per-thread")
        fail(o.sub("cpl_qualification"), "expected per-thread or t0-t1");
    if (const json *v = o.get("pstates")) {
        if (!v->is_array())
            fail(o.sub("pstates"), "expected a list of {at, frequency}");
        for (size_t i = 0; i < v->size(); i++) {
            Object po(*this, (*v)[i], o.sub("pstates") + "[" + std::to_string(i) + "]");
            DvfsStep d{ po.time("at", 0, true), po.hz("frequency", 0, true) };
            if (d.at >= duration || (!x.pstates.empty() && d.at <= x.pstates.back().at))
                fail(po.sub("at"), "steps must be in increasing time, within the duration");
            x.pstates.push_back(d);
        }
    }
    const json &th = o.need("threads");
    if (!th.is_array() || th.empty() || th.size() > PMVP_X86_MAX_THREADS)
        fail(o.sub("threads"), "expected a list of 1 or 2 logical processors");
    x.config.num_threads = (unsigned)th.size();
    for (size_t t = 0; t < th.size(); t++) {
        Object to(*this, th[t], o.sub("threads") + "[" + std::to_string(t) + "]");
        const json &ph = to.need("phases");
        if (!ph.is_array())
            fail(to.sub("phases"), "expected a list of phases");
        x.threads.emplace_back(ph.size());
        for (size_t i = 0; i < ph.size(); i++) {
            Object po(*this, ph[i], to.sub("phases") + "[" + std::to_string(i) + "]");
            x86_phase(po, x.threads.back()[i]);
        }
    }
}

void Reader::sebep(Object &o, SebepSetup &x)
{
    x.hz = o.hz("frequency", x.hz);
    x.instruction_time = o.time("instruction_time", x.instruction_time);
    if (x.instruction_time == 0)
        fail(o.sub("instruction_time"), "must be longer than 0 ps");
    if (o.has("event"))
        x.event = event(o, "event");
    if (pmvp_event_sync_kind(x.event) == PMVP_SYNC_NONE || pmvp_event_exceptional(x.event))
        fail(o.sub("event"), "expected an event D14.7 lists as synchronous");
    // The platform's CPU retires instructions and reports the event with
    // each (pmvp_core_retire): SW_INCR, the one synchronous event that is no
    // occurrence, counts only writes to PMSWINC_EL0, which it does not make.
    const pmvp_event_info *info = pmvp_event_find(x.event);
    if (!info || info->cls != PMVP_EVCLASS_OCCURRENCE)
        fail(o.sub("event"), "expected an event that instructions cause as they retire (SW_INCR counts writes to "
                             "PMSWINC_EL0, which this platform's CPU does not make)");
    std::string counter = o.str("counter", "event");
    if (counter == "instruction")
        x.instruction_counter = true;
    else if (counter != "event")
        fail(o.sub("counter"), "expected event (event counter 0) or instruction (PMICNTR_EL0)");
    if (x.instruction_counter && x.event != PMVP_EV_INST_RETIRED)
        fail(o.sub("event"), "the instruction counter counts INST_RETIRED only");
    o.need("sample_period");
    x.sample_period = o.integer("sample_period", 0, 1, UINT32_MAX);  // the 32-bit overflow
    x.handler_time = o.time("handler_time", 0);
    const json &pl = o.need("profiles");
    if (!pl.is_array() || pl.empty())
        fail(o.sub("profiles"), "expected a list of inaccuracy profiles");
    for (size_t i = 0; i < pl.size(); i++) {
        Object po(*this, pl[i], o.sub("profiles") + "[" + std::to_string(i) + "]");
        SebepProfile &p = x.profiles.emplace_back();
        p.name = po.str("name", "profile " + std::to_string(i));
        p.inaccuracy.shadow_events = (uint32_t)po.integer("shadow_events", 0, 0, UINT32_MAX);
        p.inaccuracy.shadow_time = po.time("shadow_time", 0);
        p.inaccuracy.seed = po.integer("seed", 0, 0, UINT64_MAX);
        std::string draw = po.str("draw", "seeded");
        if (draw == "bound")
            p.inaccuracy.draw = PMVP_DRAW_BOUND;
        else if (draw != "seeded")
            fail(po.sub("draw"), "expected seeded or bound");
        p.headroom = po.integer("headroom", 1, 0, UINT64_MAX);
        if (p.inaccuracy.shadow_time && !p.inaccuracy.shadow_events)
            fail(po.sub("shadow_time"), "needs shadow_events (the time only ends a shadow)");
        if (x.instruction_counter && p.inaccuracy.shadow_events)
            fail(po.sub("shadow_events"), "the shadow effect is the event counters' (the instruction counter's "
                                          "overflow is observed by the instruction that causes it)");
    }
}

}  // namespace pmvp::soc::reading
