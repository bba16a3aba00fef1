// SPDX-License-Identifier: Apache-2.0
//
// Classifying A64 instructions by the events they generate (a64_events.h).
// Each rule names the encoding class of the Arm ARM's A64 instruction set
// encoding it decodes, and the event definitions of D14.3 it applies.
#include "a64_events.h"

namespace pmvp::soc::a64 {

const uint16_t kNumber[kNumEvents] = {
    0x08, 0x1B, 0x3A, 0x3B,        // INST_RETIRED, INST_SPEC, OP_RETIRED, OP_SPEC
    0x66, 0x67, 0x13,              // MEM_ACCESS_RD, MEM_ACCESS_WR, MEM_ACCESS
    0x06, 0x07, 0x70, 0x71, 0x72,  // LD_RETIRED, ST_RETIRED, LD_SPEC, ST_SPEC, LDST_SPEC
    0x21, 0x0D, 0x0E, 0x0C,        // BR_RETIRED, BR_IMMED_RETIRED, BR_RETURN_RETIRED, PC_WRITE_RETIRED
    0x78, 0x79, 0x7A, 0x76,        // BR_IMMED_SPEC, BR_RETURN_SPEC, BR_INDIRECT_SPEC, PC_WRITE_SPEC
    0x73, 0x74, 0x75, 0x77,        // DP_SPEC, ASE_SPEC, VFP_SPEC, CRYPTO_SPEC
    0x7C, 0x7D, 0x7E, 0x6C, 0x6F,  // ISB_SPEC, DSB_SPEC, DMB_SPEC, LDREX_SPEC, STREX_SPEC
    0x0B, 0x1C, 0x0A,              // CID_WRITE_RETIRED, TTBR_WRITE_RETIRED, EXC_RETURN
    0x09, 0x81, 0x82, 0x83, 0x84,  // EXC_TAKEN, EXC_UNDEF, EXC_SVC, EXC_PABORT, EXC_DABORT
    0x86,                          // EXC_IRQ
    0x19, 0x60, 0x61,              // BUS_ACCESS, BUS_ACCESS_RD, BUS_ACCESS_WR
};

const char *name(Event e)
{
    static const char *const kName[kNumEvents] = {
        "INST_RETIRED",
        "INST_SPEC",
        "OP_RETIRED",
        "OP_SPEC",
        "MEM_ACCESS_RD",
        "MEM_ACCESS_WR",
        "MEM_ACCESS",
        "LD_RETIRED",
        "ST_RETIRED",
        "LD_SPEC",
        "ST_SPEC",
        "LDST_SPEC",
        "BR_RETIRED",
        "BR_IMMED_RETIRED",
        "BR_RETURN_RETIRED",
        "PC_WRITE_RETIRED",
        "BR_IMMED_SPEC",
        "BR_RETURN_SPEC",
        "BR_INDIRECT_SPEC",
        "PC_WRITE_SPEC",
        "DP_SPEC",
        "ASE_SPEC",
        "VFP_SPEC",
        "CRYPTO_SPEC",
        "ISB_SPEC",
        "DSB_SPEC",
        "DMB_SPEC",
        "LDREX_SPEC",
        "STREX_SPEC",
        "CID_WRITE_RETIRED",
        "TTBR_WRITE_RETIRED",
        "EXC_RETURN",
        "EXC_TAKEN",
        "EXC_UNDEF",
        "EXC_SVC",
        "EXC_PABORT",
        "EXC_DABORT",
        "EXC_IRQ",
        "BUS_ACCESS",
        "BUS_ACCESS_RD",
        "BUS_ACCESS_WR",
    };
    return e < kNumEvents ? kName[e] : "?";
}

namespace {

int64_t sign_extend(uint64_t v, unsigned bits)
{
    return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

// The offset a load or store register (register offset) adds: Rm extended
// as option says (UXTW, LSL, SXTW, SXTX), scaled by the access size if S.
uint64_t register_offset(const Registers &r, uint32_t insn, unsigned scale)
{
    uint64_t m = r.x(r.ctx, (insn >> 16) & 31, false);
    const unsigned option = (insn >> 13) & 7;
    if (option == 2)
        m = (uint32_t)m;
    else if (option == 6)
        m = (uint64_t)(int64_t)(int32_t)(uint32_t)m;
    return m << (((insn >> 12) & 1) ? scale : 0);
}

// The Loads and Stores group's single-register classes (op0 xx11, op2 0x):
// the immediate, register-offset and atomic forms.
bool register_access(const Registers &r, uint32_t insn, Access &a)
{
    const bool simd = (insn >> 26) & 1;
    const unsigned size = insn >> 30, opc = (insn >> 22) & 3;
    const unsigned scale = simd && (opc & 2) ? 4 : size;
    if (!simd && size == 3 && opc == 2)
        return false;  // PRFM, PRFUM: no access
    const uint64_t base = r.x(r.ctx, (insn >> 5) & 31, true);
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
        a.va = base + register_offset(r, insn, scale);
        return true;
    }
    return false;  // LDRAA, LDRAB (FEAT_PAuth, not implemented)
}


// Every executed instruction: INST_RETIRED, and, as the ISS speculates
// nothing and each instruction is one operation, INST_SPEC, OP_RETIRED
// and OP_SPEC.
constexpr Mask kExecuted = bit(INST_RETIRED) | bit(INST_SPEC) | bit(OP_RETIRED) | bit(OP_SPEC);
// Integer data processing (DP_SPEC): every operation that is no load or
// store, no Software change of the PC, and no floating-point, SIMD or
// cryptographic data processing; so also System instructions, hints,
// barriers and exception-generating instructions.
constexpr Mask kDp = kExecuted | bit(DP_SPEC);
// A Memory-reading instruction (LD_RETIRED, LD_SPEC, LDST_SPEC) making one
// Memory-read operation; a Memory-writing one likewise.
constexpr Mask kLoad = kExecuted | bit(LD_RETIRED) | bit(LD_SPEC) | bit(LDST_SPEC) | bit(MEM_ACCESS_RD);
constexpr Mask kStore = kExecuted | bit(ST_RETIRED) | bit(ST_SPEC) | bit(LDST_SPEC) | bit(MEM_ACCESS_WR);
constexpr Mask kAtomic = kLoad | kStore;  // a read-modify-write: one operation of each
// Branches (BR_RETIRED counts unconditional direct branches and exception
// returns, as FEAT_PMUv3p9 requires; PC_WRITE_SPEC counts a branch whether
// or not it is taken, as FEAT_PMUv3p8 requires).
constexpr Mask kBranch = kExecuted | bit(BR_RETIRED) | bit(PC_WRITE_RETIRED) | bit(PC_WRITE_SPEC);
constexpr Mask kImmediate = kBranch | bit(BR_IMMED_RETIRED) | bit(BR_IMMED_SPEC);
constexpr Mask kIndirect = kBranch | bit(BR_INDIRECT_SPEC);
constexpr Mask kReturn = kIndirect | bit(BR_RETURN_RETIRED) | bit(BR_RETURN_SPEC);

bool is(uint32_t insn, uint32_t mask, uint32_t value)
{
    return (insn & mask) == value;
}

// Branches, exception generating and System instructions (op0 101x).
Insn branch_or_system(uint32_t insn)
{
    if (is(insn, 0x7C000000, 0x14000000))  // B, BL
        return { kImmediate };
    if (is(insn, 0xFE000000, 0x54000000) || is(insn, 0x7C000000, 0x34000000))  // B.cond, BC.cond; CB(N)Z, TB(N)Z
        return { kImmediate & ~bit(PC_WRITE_RETIRED), true };
    if (is(insn, 0xFE000000, 0xD6000000)) {  // Unconditional branch (register)
        switch ((insn >> 21) & 0xF) {
        case 0x0:
        case 0x1:
        case 0x8:
        case 0x9:  // BR, BLR and their pointer-authenticating forms
            return { kIndirect };
        case 0x2:  // RET, RETAA, RETAB
            return { kReturn };
        case 0x4:  // ERET, ERETAA, ERETAB
            return { kIndirect | bit(EXC_RETURN) };
        default: return { kDp };
        }
    }
    if (is(insn, 0xFFFFF01F, 0xD503301F)) {  // Barriers: op2 selects
        switch ((insn >> 5) & 7) {
        case 1:
        case 4:  // DSB (nXS), DSB (with SSBB and PSSBB)
            return { kDp | bit(DSB_SPEC) };
        case 5: return { kDp | bit(DMB_SPEC) };
        case 6: return { kDp | bit(ISB_SPEC) };
        default:  // CLREX, SB
            return { kDp };
        }
    }
    if (is(insn, 0xFFFFFFE0, 0xD5182000) || is(insn, 0xFFFFFFE0, 0xD5182020))  // MSR TTBR0_EL1, TTBR1_EL1
        return { kDp | bit(TTBR_WRITE_RETIRED) };
    if (is(insn, 0xFFFFFFE0, 0xD518D020))  // MSR CONTEXTIDR_EL1
        return { kDp | bit(CID_WRITE_RETIRED) };
    if (is(insn, 0xFFFFFFE0, 0xD50B7420))  // DC ZVA writes a block of zeros
        return { kStore };
    return { kDp };  // exception generation, hints, MSR/MRS, SYS
}

// The load/store register classes (op0 xx111, bits 29:27 = 111, bit 25 = 0):
// unscaled, pre- and post-indexed, unprivileged, register offset, unsigned
// offset, atomic memory operations and pointer-authenticated loads.
Insn load_store_register(uint32_t insn)
{
    const unsigned size = insn >> 30, opc = (insn >> 22) & 3;
    const bool simd = (insn >> 26) & 1, unsigned_offset = (insn >> 24) & 1;
    if (!unsigned_offset && ((insn >> 21) & 1) && !simd) {
        const unsigned op4 = (insn >> 10) & 3;
        if (op4 & 1)  // LDRAA, LDRAB
            return { kLoad };
        if (op4 == 0) {  // Atomic memory operations: o3 and opc
            const unsigned o3 = (insn >> 15) & 1, aopc = (insn >> 12) & 7;
            if (!o3 || aopc == 0)  // LD<op>, ST<op> (Rt XZR: still a read and a write), SWP
                return { kAtomic };
            return { aopc == 4 || aopc == 5 ? kLoad : kStore };  // LDAPR, LD64B; ST64B*
        }
    }
    if (simd)
        return { (opc & 1) ? kLoad : kStore };  // opc 10, 11: STR, LDR of a Q register
    if (size == 3 && opc == 2)                  // PRFM, PRFUM: a NOP here (a64_events.h)
        return { kDp };
    return { opc == 0 ? kStore : kLoad };
}

// Loads and stores (op0 x1x0).
Insn load_store(uint32_t insn)
{
    const bool load_bit = (insn >> 22) & 1;
    if (is(insn, 0xBE000000, 0x0C000000))  // Advanced SIMD load/store multiple or single structures
        return { load_bit ? kLoad : kStore };
    if (is(insn, 0x3F000000, 0x08000000)) {  // Load/store exclusive, ordered, compare and swap
        const bool o2 = (insn >> 23) & 1, o1 = (insn >> 21) & 1;
        if (o1 && (o2 || !(insn >> 31)))  // CAS, CASP
            return { kAtomic };
        if (!o2)  // LDXR, LDAXR, LDXP, LDAXP; STXR, STLXR, STXP, STLXP
            return { load_bit ? kLoad | bit(LDREX_SPEC) : kStore | bit(STREX_SPEC) };
        return { load_bit ? kLoad : kStore };  // LDAR, LDLAR; STLR, STLLR
    }
    if (is(insn, 0x3F200C00, 0x19000000))  // LDAPUR*, STLUR (RCpc, unscaled)
        return { (insn >> 22) & 3 ? kLoad : kStore };
    if (is(insn, 0x3B000000, 0x18000000))  // Load register (literal): opc 11 with V 0 is PRFM
        return { is(insn, 0xC4000000, 0xC0000000) ? kDp : kLoad };
    if (is(insn, 0x3A000000, 0x28000000))  // Load/store register pair (and STGP)
        return { load_bit ? kLoad : kStore };
    if (is(insn, 0x3A000000, 0x38000000))
        return load_store_register(insn);
    return { kDp };  // memory tags and unallocated: UNDEFINED on the ISS's core
}

// Data processing, SIMD and floating point (op0 x111).
Insn simd_fp(uint32_t insn)
{
    if (is(insn, 0xFF3E0C00, 0x4E280800) || is(insn, 0xFF208C00, 0x5E000000) || is(insn, 0xFF3E0C00, 0x5E280800) ||
        is(insn, 0xFF000000, 0xCE000000))  // AES; SHA1/SHA256 three- and two-register; SHA512, SHA3, SM3, SM4
        return { kExecuted | bit(CRYPTO_SPEC) };
    if (is(insn, 0x5F000000, 0x1E000000))  // scalar floating point, conversions to and from integers
        return { kExecuted | bit(VFP_SPEC) };
    return { kExecuted | bit(ASE_SPEC) };  // Advanced SIMD, scalar and vector
}

}  // namespace

uint64_t branch_target(uint32_t insn, uint64_t pc)
{
    const bool test = is(insn, 0x7E000000, 0x36000000);  // TBZ, TBNZ: imm14; the others imm19
    const unsigned bits = test ? 14 : 19;
    const int64_t imm = (int64_t)((uint64_t)((insn >> 5) & ((1u << bits) - 1)) << (64 - bits)) >> (64 - bits);
    return pc + 4 * (uint64_t)imm;
}

bool condition_holds(unsigned cond, uint64_t nzcv)
{
    const bool n = (nzcv >> 31) & 1, z = (nzcv >> 30) & 1, c = (nzcv >> 29) & 1, v = (nzcv >> 28) & 1;
    bool r = true;
    switch (cond >> 1) {
    case 0: r = z; break;
    case 1: r = c; break;
    case 2: r = n; break;
    case 3: r = v; break;
    case 4: r = c && !z; break;
    case 5: r = n == v; break;
    case 6: r = n == v && !z; break;
    default: break;
    }
    return (cond & 1) && cond != 0xF ? !r : r;
}

bool may_access_memory(uint32_t insn)
{
    const unsigned op0 = (insn >> 25) & 0xF;
    if ((op0 & 0x5) == 0x4 || op0 == 0x0 || op0 == 0x2)
        return true;
    return (insn & 0xFFF80000) == 0xD5080000;  // SYS (DC, IC, AT, TLBI)
}

bool data_access(uint32_t insn, uint64_t pc, const Registers &r, Access &a)
{
    if ((insn & 0xFFFFFFE0) == 0xD50B7420) {  // DC ZVA, Xt: the block of DCZID_EL0.BS words
        a.bytes = 4ull << r.dczid_bs;
        a.va = r.x(r.ctx, insn & 31, false) & ~(a.bytes - 1);
        a.write = true;
        return true;
    }
    if (((insn >> 25) & 5) != 4)
        return false;  // not a load or store
    const uint64_t base = r.x(r.ctx, (insn >> 5) & 31, true);
    const unsigned size = insn >> 30;
    if ((insn & 0xBE000000) == 0x0C000000) {  // Advanced SIMD structures (bits 29:25 0b00110): the first element
        a = { base, 1, !((insn >> 22) & 1) };
        return true;
    }
    switch ((insn >> 24) & 0x3B) {  // bits 29:24 with V (bit 26) aside
    case 0x08:                      // exclusive and ordered, compare and swap (bits 29:24 0b001000)
        a = { base, 1ull << size, !((insn >> 22) & 1) || (((insn >> 23) & 1) && ((insn >> 21) & 1)), true };
        return true;
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
    case 0x39: return register_access(r, insn, a);
    default: return false;
    }
}

Insn classify(uint32_t insn)
{
    const unsigned op0 = (insn >> 25) & 0xF;
    if ((op0 & 0xE) == 0xA)
        return branch_or_system(insn);
    if ((op0 & 0x5) == 0x4)
        return load_store(insn);
    if ((op0 & 0x7) == 0x7)
        return simd_fp(insn);
    return { kDp };  // data processing (immediate, register), and the rest: UNDEFINED here
}

}  // namespace pmvp::soc::a64
