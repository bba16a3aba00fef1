// SPDX-License-Identifier: Apache-2.0
//
// Arm semihosting over HLT #0xF000 on the virt machine.

#include "aarch64_iss.h"

namespace pmvp::soc {

void Aarch64Iss::semihosting(Thread &t, pmvp_time at)
{
    namespace sh = virt::semihosting;
    uint64_t op = 0, arg = 0, ret = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_X0, &op);
    uc_reg_read(t.uc, UC_ARM64_REG_X1, &arg);
    auto byte = [&](uint64_t a) {
        uint8_t c = 0;
        return read_virtual(t.uc, a, &c, 1) ? (int)c : -1;
    };
    switch (op) {
    case sh::kSysWritec:
        if (int c = byte(arg); c >= 0)
            t.result.console += (char)c;
        break;
    case sh::kSysWrite0:
        for (uint64_t a = arg, n = 0; n < (1u << 16); a++, n++) {  // at most 64 KiB of one string
            int c = byte(a);
            if (c <= 0)
                break;
            t.result.console += (char)c;
        }
        break;
    case sh::kSysExit:
    case sh::kSysExitExtended: {
        // AArch64: x1 points to {reason, subcode}; an application's exit
        // gives its status, any other reason 1 (as QEMU).
        uint64_t block[2] = {};
        read_virtual(t.uc, arg, block, sizeof block);
        uint32_t status = block[0] == sh::kApplicationExit ? (uint32_t)block[1] : 1;
        guest_.end_all(at, status, op == sh::kSysExit ? "semihosting SYS_EXIT" : "semihosting SYS_EXIT_EXTENDED");
        break;
    }
    default:
        ret = (uint64_t)-1;  // not implemented
        t.result.console += "[pmvp: semihosting operation " + std::to_string(op) + " is not implemented]\n";
        break;
    }
    uc_reg_write(t.uc, UC_ARM64_REG_X0, &ret);
}

}  // namespace pmvp::soc
