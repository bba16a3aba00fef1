// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <sstream>

#include "journal.h"
#include "reference_pmu.h"

namespace pmvp::soc {

CheckResult check_against_reference(const pmvp_core_config &cfg, const Journal &journal)
{
    std::vector<Input> in = journal.inputs();
    std::stable_sort(in.begin(), in.end(), [](const Input &a, const Input &b) { return a.t < b.t; });
    pmvp::ref::Core ref(cfg);
    CheckResult r;
    for (const Input &i : in) {
        uint64_t expected = 0;
        switch (i.kind) {
        case Input::CLOCK: ref.set_clock(i.value, i.t); continue;
        case Input::STATE: ref.set_pe_state(i.pe, (pmvp_pe_state)i.value, i.t); continue;
        case Input::CONTEXT: ref.set_context(i.pe, i.ctx, i.t); continue;
        case Input::ACTIVE: ref.set_active_thread(i.pe, i.t); continue;
        case Input::CONTROLS: ref.set_controls(i.pe, i.ctl, i.t); continue;
        case Input::STEP:
            if (i.shares.count)
                ref.report_shares(i.shares.of, i.shares.count, i.since, i.t);
            for (unsigned k = 0; k < i.levels.count; k++)
                ref.set_level(i.levels.of[k].pe, i.levels.of[k].event, i.levels.of[k].level, i.t);
            continue;
        case Input::PMU_WRITE: ref.write(i.pe, (pmvp_pmu_reg)i.reg, i.n, i.value, i.t); continue;
        case Input::PMU_READ: expected = ref.read(i.pe, (pmvp_pmu_reg)i.reg, i.n, i.t); break;
        case Input::AMU_WRITE: ref.amu_write(i.pe, (pmvp_amu_reg)i.reg, i.n, i.value, i.t); continue;
        case Input::AMU_READ: expected = ref.amu_read(i.pe, (pmvp_amu_reg)i.reg, i.n, i.t); break;
        case Input::PMCCR_WRITE: ref.set_pmccr(i.pe, i.value, i.t); continue;
        }
        r.compared++;
        if (expected == i.value)
            continue;
        if (r.num_disagreements++ < 10) {
            std::ostringstream s;
            s << "PE " << i.pe << " at " << i.t << " ps: ";
            bool amu = i.kind == Input::AMU_READ;
            bool indexed = amu ? pmvp_amu_reg_indexed((pmvp_amu_reg)i.reg) : pmvp_pmu_reg_indexed((pmvp_pmu_reg)i.reg);
            s << (amu ? pmvp_amu_reg_name((pmvp_amu_reg)i.reg) : pmvp_pmu_reg_name((pmvp_pmu_reg)i.reg));
            if (indexed)
                s << "[" << i.n << "]";
            s << " read " << i.value << ", reference model " << expected;
            r.disagreements.push_back(s.str());
        }
    }
    return r;
}

}  // namespace pmvp::soc
