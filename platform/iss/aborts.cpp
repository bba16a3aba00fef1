// SPDX-License-Identifier: Apache-2.0
//
// Precise aborts (D8.15, D24.2.41 ESR_ELx): Unicorn's walk of the guest's
// tables refuses an access and reports it with the PC at the instruction,
// but neither the faulting address nor the fault's kind. The platform reads
// the instruction, computes the address it accesses as it would
// (a64::data_access), walks the
// guest's tables there (walk_stage1) for the fault's kind and level, and
// takes the Data or Instruction Abort with FAR_EL1 and ESR_EL1 as the
// architecture gives them (ESR.ISV 0: no instruction syndrome).

#include "aarch64_iss.h"

namespace pmvp::soc {

namespace {

// The registers an address is computed from, as the engine holds them.
uint64_t engine_register(void *ctx, unsigned n, bool sp)
{
    auto *uc = static_cast<uc_engine *>(ctx);
    if (n == 31 && sp) {
        uint64_t v = 0;
        uc_reg_read(uc, UC_ARM64_REG_SP, &v);
        return v;
    }
    return xreg(uc, n);
}

// ESR's fault status code for what the walk found (D24.2.41): a
// translation, access flag or, where the tables map the address, permission
// fault, at the walk's level; a synchronous external abort on the walk; an
// alignment fault where nothing else faults (the MMU off, or an access that
// must be aligned and is not).
uint64_t fault_status(const Stage1 &w, const a64::Access &a)
{
    const uint64_t level = (uint64_t)(w.level & 3);
    if (w.fault == Stage1::kOff || (w.fault == Stage1::kMapped && a.aligned && a.va % a.bytes))
        return 0x21;
    switch (w.fault) {
    case Stage1::kTranslation: return 0x04 | level;
    case Stage1::kAccessFlag: return 0x08 | level;
    case Stage1::kExternal: return 0x14 | level;
    default: return 0x0C | level;
    }
}

}  // namespace

a64::Registers engine_registers(uc_engine *uc)
{
    uc_arm64_cp_reg dczid{ 0, 0, 3, 3, 7, 0 };  // DCZID_EL0.BS: DC ZVA's block
    uc_reg_read(uc, UC_ARM64_REG_CP_REG, &dczid);
    return a64::Registers{ engine_register, uc, (unsigned)(dczid.val & 0xF) };
}

// The page of an access that faulted is the first, unless its tables map it
// and those of the access's last byte, in another page, do not.
void Aarch64Iss::abort(Thread &t, bool fetch)
{
    uint64_t pc = 0, pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    a64::Access a{ pc, 4, false, false };
    uint32_t insn = 0;
    const a64::Registers regs = engine_registers(t.uc);
    if (!fetch && !(read_virtual(t.uc, pc, &insn, 4) && a64::data_access(insn, pc, regs, a))) {
        char what[96];
        std::snprintf(what, sizeof what, "[pmvp: a data abort at PC 0x%llx of no load or store: PE stopped]\n",
                      (unsigned long long)pc);
        t.result.console += what;
        t.exited = true;
        t.result.status = 0xEE;
        stop(t);
        return;
    }
    Stage1 w = walk_stage1(t.uc, a.va);
    const uint64_t last = a.va + a.bytes - 1;
    if ((w.fault == Stage1::kMapped || w.fault == Stage1::kOff) && (last >> 12) != (a.va >> 12)) {
        const Stage1 next = walk_stage1(t.uc, last & ~0xFFFull);
        if (next.fault != Stage1::kMapped && next.fault != Stage1::kOff) {
            w = next;
            a.va = last & ~0xFFFull;
        }
    }
    const bool lower = ((pstate >> 2) & 3) == 0;
    const uint64_t ec = fetch ? (lower ? 0x20 : 0x21) : (lower ? 0x24 : 0x25);
    const uint64_t esr = ec << 26 | 0x02000000 | (a.write && !fetch ? 1u << 6 : 0) | fault_status(w, a);
    uc_reg_write(t.uc, UC_ARM64_REG_FAR_EL1, &a.va);
    retire_before(t, pc);  // not executed
    enter_exception(t, kVectorSync, pc, &esr);
}

}  // namespace pmvp::soc
