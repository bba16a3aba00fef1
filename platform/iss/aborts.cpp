// SPDX-License-Identifier: Apache-2.0
//
// Precise aborts (D8.15, D24.2.41 ESR_ELx): Unicorn's walk of the guest's
// tables refuses an access and reports it with the PC at the instruction,
// but neither the faulting address nor the fault's kind. The platform reads
// the instruction, computes the address it accesses as it would, walks the
// guest's tables there (walk_stage1) for the fault's kind and level, and
// takes the Data or Instruction Abort with FAR_EL1 and ESR_EL1 as the
// architecture gives them (ESR.ISV 0: no instruction syndrome).

#include "aarch64_iss.h"

namespace pmvp::soc {

namespace {

// The address register of a load or store: SP for register 31.
uint64_t xn_or_sp(uc_engine *uc, unsigned n)
{
    uint64_t v = 0;
    if (n == 31)
        uc_reg_read(uc, UC_ARM64_REG_SP, &v);
    else
        v = xreg(uc, n);
    return v;
}

int64_t sign_extend(uint64_t v, unsigned bits)
{
    return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

// The data access an instruction makes: its first byte, its size, whether it
// writes.
struct Access {
    uint64_t va = 0;
    uint64_t bytes = 1;
    bool write = false;
    bool aligned = false;  // it must be aligned to its size (exclusive, ordered, atomic)
};

// The offset a load or store register (register offset) adds: Rm extended
// as option says (UXTW, LSL, SXTW, SXTX), scaled by the access size if S.
uint64_t register_offset(uc_engine *uc, uint32_t insn, unsigned scale)
{
    uint64_t m = xreg(uc, (insn >> 16) & 31);
    const unsigned option = (insn >> 13) & 7;
    if (option == 2)
        m = (uint32_t)m;
    else if (option == 6)
        m = (uint64_t)(int64_t)(int32_t)(uint32_t)m;
    return m << (((insn >> 12) & 1) ? scale : 0);
}

// The Loads and Stores group's single-register classes (op0 xx11, op2 0x):
// the immediate, register-offset and atomic forms.
bool register_access(uc_engine *uc, uint32_t insn, Access &a)
{
    const bool simd = (insn >> 26) & 1;
    const unsigned size = insn >> 30, opc = (insn >> 22) & 3;
    const unsigned scale = simd && (opc & 2) ? 4 : size;
    if (!simd && size == 3 && opc == 2)
        return false;  // PRFM, PRFUM: no access
    const uint64_t base = xn_or_sp(uc, (insn >> 5) & 31);
    a.bytes = 1ull << scale;
    a.write = simd ? !(opc & 1) : opc == 0;
    if ((insn >> 24) & 1) {  // unsigned immediate
        a.va = base + ((uint64_t)((insn >> 10) & 0xFFF) << scale);
        return true;
    }
    const unsigned kind = (insn >> 10) & 3;
    if (!((insn >> 21) & 1)) {  // unscaled, post-indexed, unprivileged, pre-indexed
        a.va = kind == 1 ? base : base + (uint64_t)sign_extend((insn >> 12) & 0x1FF, 9);
        return true;
    }
    if (kind == 0) {  // atomic memory operations: read and write
        a.va = base;
        a.write = a.aligned = true;
        return true;
    }
    if (kind == 2) {
        a.va = base + register_offset(uc, insn, scale);
        return true;
    }
    return false;  // LDRAA, LDRAB (FEAT_PAuth, not implemented)
}

// The access of A64 load or store `insn` at `pc` (the Loads and Stores
// group's classes, C4.1.66), or of DC ZVA; false for any other instruction.
bool data_access(uc_engine *uc, uint32_t insn, uint64_t pc, Access &a)
{
    if ((insn & 0xFFFFFFE0) == 0xD50B7420) {  // DC ZVA, Xt: the block of DCZID_EL0.BS words
        uc_arm64_cp_reg dczid{ 0, 0, 3, 3, 7, 0 };
        uc_reg_read(uc, UC_ARM64_REG_CP_REG, &dczid);
        a.bytes = 4ull << (dczid.val & 0xF);
        a.va = xreg(uc, insn & 31) & ~(a.bytes - 1);
        a.write = true;
        return true;
    }
    if (((insn >> 25) & 5) != 4)
        return false;  // not a load or store
    const uint64_t base = xn_or_sp(uc, (insn >> 5) & 31);
    const unsigned size = insn >> 30;
    switch ((insn >> 24) & 0x3B) {
    case 0x08:  // exclusive and ordered, compare and swap (bits 29:24 0b001000)
        a = { base, 1ull << size, !((insn >> 22) & 1) || (((insn >> 23) & 1) && ((insn >> 21) & 1)), true };
        return true;
    case 0x0C:  // Advanced SIMD structures (bits 29:24 0b001100, 0b001101): their first element
    case 0x0D: a = { base, 1, !((insn >> 22) & 1) }; return true;
    case 0x18:  // load register (literal); PRFM (literal) accesses nothing
        a = { pc + (uint64_t)(sign_extend((insn >> 5) & 0x7FFFF, 19) * 4), 4ull << (size & 1), false };
        return size != 3;
    case 0x19:  // LDAPR, STLUR (unscaled, RCpc)
        a = { base + (uint64_t)sign_extend((insn >> 12) & 0x1FF, 9), 1ull << size, ((insn >> 22) & 3) == 0 };
        return true;
    case 0x28:  // pairs (bits 29:27 0b101): no-allocate, post-indexed, offset, pre-indexed
    case 0x29: {
        const bool simd = (insn >> 26) & 1;
        const unsigned scale = simd ? 2 + size : 2 + (size >> 1);
        const uint64_t offset = (uint64_t)(sign_extend((insn >> 15) & 0x7F, 7) * (int64_t)(1ull << scale));
        a = { ((insn >> 23) & 3) == 1 ? base : base + offset, 2ull << scale, !((insn >> 22) & 1) };
        return true;
    }
    case 0x38:
    case 0x39: return register_access(uc, insn, a);
    default: return false;
    }
}

// ESR's fault status code for what the walk found (D24.2.41): a
// translation, access flag or, where the tables map the address, permission
// fault, at the walk's level; a synchronous external abort on the walk; an
// alignment fault where nothing else faults (the MMU off, or an access that
// must be aligned and is not).
uint64_t fault_status(const Stage1 &w, const Access &a)
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

// The page of an access that faulted is the first, unless its tables map it
// and those of the access's last byte, in another page, do not.
void Aarch64Iss::abort(Thread &t, bool fetch)
{
    uint64_t pc = 0, pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    Access a{ pc, 4, false };
    uint32_t insn = 0;
    if (!fetch && !(read_virtual(t.uc, pc, &insn, 4) && data_access(t.uc, insn, pc, a))) {
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
