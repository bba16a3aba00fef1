// SPDX-License-Identifier: Apache-2.0
//
// PSCI (Arm DEN 0022) as the virt machine's firmware gives it: version,
// features, CPU_ON, CPU_OFF, AFFINITY_INFO, SYSTEM_OFF and SYSTEM_RESET.

#include "aarch64_iss.h"

namespace pmvp::soc {

Aarch64Iss::Thread *Aarch64Iss::pe_of_mpidr(uint64_t mpidr)
{
    for (Aarch64Iss *core : guest_.cores)
        for (Thread &t : core->threads)
            if ((t.mpidr & 0xFF00FFFFFFull) == (mpidr & 0xFF00FFFFFFull))
                return &t;
    return nullptr;
}

void Aarch64Iss::psci(Thread &t, pmvp_time at)
{
    namespace p = virt::psci;
    uint64_t x[4] = {};
    for (int i = 0; i < 4; i++)
        uc_reg_read(t.uc, UC_ARM64_REG_X0 + i, &x[i]);
    int64_t ret = p::kNotSupported;
    switch ((uint32_t)x[0]) {
    case p::kVersion: ret = (int64_t)p::kVersion1_0; break;
    case p::kMigrateInfoType: ret = 2; break;  // no Trusted OS
    case p::kFeatures: {
        const uint32_t known[] = { p::kVersion,      p::kCpuOff,         p::kCpuOn,           p::kCpuOn32,
                                   p::kAffinityInfo, p::kAffinityInfo32, p::kMigrateInfoType, p::kSystemOff,
                                   p::kSystemReset,  p::kFeatures };
        ret = std::find(std::begin(known), std::end(known), (uint32_t)x[1]) != std::end(known) ? p::kSuccess
                                                                                               : p::kNotSupported;
        break;
    }
    case p::kCpuOn:
    case p::kCpuOn32: {
        Thread *target = pe_of_mpidr(x[1]);
        if (!target) {
            ret = p::kInvalidParameters;
        } else if (!target->off) {
            ret = p::kAlreadyOn;
        } else {
            uint64_t pstate = kPstateEl1hMasked;
            uc_reg_write(target->uc, UC_ARM64_REG_PC, &x[2]);
            uc_reg_write(target->uc, UC_ARM64_REG_X0, &x[3]);
            uc_reg_write(target->uc, UC_ARM64_REG_PSTATE, &pstate);
            target->iss->power(*target, true, at);
            ret = p::kSuccess;
        }
        break;
    }
    case p::kCpuOff:
        // The HVC retires; the PE is off after it.
        tell_retired(t, t.retired);
        power(t, false, time_of(t, t.retired));
        ret = p::kSuccess;  // not seen: the PE is off
        break;
    case p::kAffinityInfo:
    case p::kAffinityInfo32: {
        Thread *target = pe_of_mpidr(x[1]);
        ret = !target || x[2] != 0 ? p::kInvalidParameters : target->off ? p::kOff : p::kOn;
        break;
    }
    case p::kSystemOff: guest_.end_all(at, 0, "PSCI SYSTEM_OFF"); break;
    case p::kSystemReset:
        guest_.reset_asked = !guest_.ended;
        guest_.end_all(at, 0, "PSCI SYSTEM_RESET (the run ends: no reboot)");
        break;
    default: break;
    }
    uint64_t r = (uint64_t)ret;
    uc_reg_write(t.uc, UC_ARM64_REG_X0, &r);
}

void Aarch64Iss::power(Thread &t, bool on, pmvp_time at)
{
    t.off = !on;
    if (on) {
        t.wfi = false;
        t.now = at;  // from the call on, whether this PE's core ran this quantum before the caller's or not
    } else {
        t.now = at;
        stop(t);
    }
    if (monitors_)
        check(monitors_->set_state(t.pe, on ? PMVP_PE_RUN : PMVP_PE_OFF, offset(t.now)), "set_state");
}

}  // namespace pmvp::soc
