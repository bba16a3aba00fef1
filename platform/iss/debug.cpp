// SPDX-License-Identifier: Apache-2.0
//
// Self-hosted debug exceptions taken to EL1: Breakpoint, Watchpoint and
// Software Step. Unicorn cannot deliver them as the architecture does:
// - its translator crashes the host at a breakpoint QEMU arms, so the
//   platform holds DBGBVR<n>_EL1 and DBGBCR<n>_EL1 (sysregs.cpp) and arms
//   each enabled breakpoint as a code hook of its own at its address;
// - it builds QEMU without watchpoints (cpu_watchpoint_insert is empty),
//   and a memory hook runs before an access it cannot then prevent: while
//   a watchpoint is enabled, a code hook on every instruction computes the
//   access a load or store is about to make (a64::data_access) and takes
//   the Watchpoint exception before it;
// - QEMU reports a Software Step as an UNDEFINED instruction, and Unicorn
//   gives no syndrome: the platform tells it apart by MDSCR_EL1.SS and
//   PSTATE.SS, and writes the syndrome.
// Enabled as for a debug exception taken to EL1 from the current Exception
// level: the OS Lock clear (QEMU's OS Double Lock is never set: OSDLR_EL1
// ignores writes), and from EL1 itself
// MDSCR_EL1.KDE set and PSTATE.D clear. Breakpoints and watchpoints also
// need MDSCR_EL1.MDE; each matches at the Exception levels its PMC/PAC
// field selects. Linked, context-matching and address-mismatch breakpoints
// (DBGBCR.BT other than 0) never match.

#include "aarch64_iss.h"

namespace pmvp::soc {

namespace {

constexpr uint64_t kMdscrSs = 1, kMdscrKde = 1u << 13, kMdscrMde = 1u << 15;
constexpr uint64_t kPstateD = 1u << 9, kPstateSs = 1u << 21;
constexpr uint64_t kIl = 1u << 25, kDebugStatus = 0x22;  // ESR.IL; IFSC/DFSC: a debug exception
constexpr unsigned kWatchpoints = 4;                     // ID_AA64DFR0_EL1.WRPs + 1 (sysregs.cpp)

uint64_t debug_reg(uc_engine *uc, uint32_t crn, uint32_t crm, uint32_t op2)
{
    uc_arm64_cp_reg r{ crn, crm, 2, 0, op2, 0 };  // op0 2, op1 0: the debug registers
    uc_reg_read(uc, UC_ARM64_REG_CP_REG, &r);
    return r.val;
}

unsigned current_el(uint64_t pstate)
{
    return (unsigned)((pstate >> 2) & 3);
}

// Debug exceptions from the current Exception level are enabled; `need`:
// the MDSCR_EL1 bits the kind of exception also needs.
bool enabled(uc_engine *uc, uint64_t pstate, uint64_t need)
{
    const uint64_t mdscr = debug_reg(uc, 0, 2, 2);
    if ((mdscr & need) != need || (debug_reg(uc, 1, 1, 4) & 2))
        return false;  // OSLSR_EL1.OSLK
    return current_el(pstate) == 0 || ((mdscr & kMdscrKde) && !(pstate & kPstateD));
}

// A privilege field (DBGBCR.PMC, DBGWCR.PAC) selects EL `el`: bit 0 EL1,
// bit 1 EL0.
bool selects(uint64_t field, unsigned el)
{
    return (field >> (el == 0 ? 1 : 0)) & 1;
}

uint64_t exception_class(unsigned lower, unsigned same, uint64_t pstate)
{
    return (uint64_t)(current_el(pstate) == 0 ? lower : same) << 26;
}

// Watchpoint n's control selects access `a` at EL `el`: enabled, its PAC
// and LSC, and a byte of it in the bytes it watches (DBGWVR's doubleword
// and the BAS bytes of it, or with MASK the 2^MASK bytes at DBGWVR).
bool watches(uint64_t wvr, uint64_t wcr, const a64::Access &a, unsigned el)
{
    if (!(wcr & 1) || !selects(wcr >> 1 & 3, el) || !((wcr >> 3 & 3) & (a.write ? 2 : 1)))
        return false;
    const unsigned mask = (unsigned)(wcr >> 24 & 31);
    if (mask) {
        const uint64_t base = wvr & ~((1ull << mask) - 1);
        return a.va < base + (1ull << mask) && base < a.va + a.bytes;
    }
    uint64_t bas = wcr >> 5 & 0xFF;
    if (wvr & 4)  // a word: BAS[3:0] select its bytes
        bas = (bas & 0xF) << 4;
    const uint64_t base = wvr & ~7ull;
    for (uint64_t b = std::max(a.va, base); b < a.va + a.bytes && b < base + 8; b++)
        if (bas >> (b - base) & 1)
            return true;
    return false;
}

// A breakpoint's code hook: the instruction at `address` has not executed.
void on_breakpoint(uc_engine *uc, uint64_t address, uint32_t, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    uint64_t pstate = 0;
    uc_reg_read(uc, UC_ARM64_REG_PSTATE, &pstate);
    if (!t.iss->breakpoint_hits(t, address, pstate))
        return;
    const uint64_t esr = exception_class(0x30, 0x31, pstate) | kIl | kDebugStatus;
    t.iss->retire_before(t, address);
    t.iss->enter_exception(t, kVectorSync, address, &esr);
}

// While a watchpoint is enabled, before every instruction: a load or store
// about to access what one watches takes the Watchpoint exception instead.
void on_watched_code(uc_engine *uc, uint64_t address, uint32_t, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    uint32_t insn = 0;
    if (t.block && address >= t.block_pc && address - t.block_pc < t.block_size)
        insn = t.block->words[(address - t.block_pc) / 4];
    else if (!read_virtual(uc, address, &insn, 4))
        return;
    a64::Access a{};
    if (a64::may_access_memory(insn) && a64::data_access(insn, address, engine_registers(uc), a))
        t.iss->watchpoint(t, a, address);
}

bool any_watchpoint(uc_engine *uc)
{
    for (unsigned n = 0; n < kWatchpoints; n++)
        if (debug_reg(uc, 0, n, 7) & 1)
            return true;
    return false;
}

}  // namespace

bool Aarch64Iss::breakpoint_hits(const Thread &t, uint64_t address, uint64_t pstate) const
{
    if (!enabled(t.uc, pstate, kMdscrMde))
        return false;
    for (unsigned n = 0; n < kBreakpoints; n++) {
        const uint64_t bcr = t.dbgbcr[n];
        if ((bcr & 1) && (bcr >> 20 & 0xF) == 0 && selects(bcr >> 1 & 3, current_el(pstate)) &&
            (t.dbgbvr[n] & ~3ull) == address)
            return true;
    }
    return false;
}

// A hook for each distinct address of an enabled breakpoint, and one on
// every instruction while a watchpoint is enabled; the blocks translated
// before have no call to them, so the engine translates anew.
void Aarch64Iss::arm_debug(Thread &t)
{
    if (!t.debug_changed)
        return;
    t.debug_changed = false;
    for (uc_hook h : t.debug_hooks)
        uc_hook_del(t.uc, h);
    t.debug_hooks.clear();
    for (unsigned n = 0; n < kBreakpoints; n++) {
        const uint64_t at = t.dbgbvr[n] & ~3ull;
        bool first = true;
        for (unsigned m = 0; m < n; m++)
            first &= !((t.dbgbcr[m] & 1) && (t.dbgbvr[m] & ~3ull) == at);
        if (!(t.dbgbcr[n] & 1) || !first)
            continue;
        uc_hook h;
        unicorn_ok(uc_hook_add(t.uc, &h, UC_HOOK_CODE, (void *)on_breakpoint, &t, at, at), "breakpoint hook");
        t.debug_hooks.push_back(h);
    }
    if (any_watchpoint(t.uc)) {
        uc_hook h;
        unicorn_ok(uc_hook_add(t.uc, &h, UC_HOOK_CODE, (void *)on_watched_code, &t, 1, 0), "watchpoint hook");
        t.debug_hooks.push_back(h);
    }
    // (A hook deleted drops the blocks it was in itself; a flush where no
    // hook was added would cost a PE that never debugs: Unicorn clears its
    // whole code buffer.)
    if (!t.debug_hooks.empty())
        unicorn_ok(uc_ctl_flush_tb(t.uc), "flush the translated code");
}

// A watchpoint's exception, if one watches access `a` of the instruction at
// `pc` and debug exceptions are enabled. FAR_EL1: the access's address.
bool Aarch64Iss::watchpoint(Thread &t, const a64::Access &a, uint64_t pc)
{
    uint64_t pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    if (!enabled(t.uc, pstate, kMdscrMde))
        return false;
    bool hit = false;
    for (unsigned n = 0; n < kWatchpoints && !hit; n++)
        hit = watches(debug_reg(t.uc, 0, n, 6), debug_reg(t.uc, 0, n, 7), a, current_el(pstate));
    // Taken where the access itself would not fault, as QEMU orders them.
    const Stage1 w = hit ? walk_stage1(t.uc, a.va) : Stage1{};
    if (!hit || (w.fault != Stage1::kMapped && w.fault != Stage1::kOff))
        return false;
    const uint64_t esr = exception_class(0x34, 0x35, pstate) | kIl | (a.write ? 1u << 6 : 0) | kDebugStatus;
    uc_reg_write(t.uc, UC_ARM64_REG_FAR_EL1, &a.va);
    retire_before(t, pc);  // not executed
    enter_exception(t, kVectorSync, pc, &esr);
    return true;
}

// QEMU's UNDEFINED with MDSCR_EL1.SS set and PSTATE.SS clear: the step of
// the instruction before `pc` completed (its block, of that one
// instruction, ran: ESR.ISV 1, EX 0), or the step was pending before the
// instruction at `pc` (the block's first: ISV 0, and it did not execute).
// With PSTATE.SS set the instruction itself was UNDEFINED. QEMU decides
// that software step is active from flags it caches, which an MSR to
// PSTATE.D does not update: where the step is not in fact enabled, no
// exception is taken, and the run ends to have the flags rebuilt
// (prepare_step).
bool Aarch64Iss::software_step(Thread &t, uint64_t pc)
{
    uint64_t pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    if ((pstate & kPstateSs) || !(debug_reg(t.uc, 0, 2, 2) & kMdscrSs))
        return false;
    const bool stepped = pc != t.block_pc;
    if (!stepped)
        retire_before(t, pc);
    if (!enabled(t.uc, pstate, kMdscrSs)) {
        stop(t);
        return true;
    }
    const uint64_t esr = exception_class(0x32, 0x33, pstate) | kIl | (stepped ? 1u << 24 : 0) | kDebugStatus;
    enter_exception(t, kVectorSync, pc, &esr);
    return true;
}

// Before a run with MDSCR_EL1.SS set: QEMU's cached flags rebuilt (by a
// System-register write, MDSCR_EL1's own value) for the PSTATE.D of now,
// which the block hook then watches (step_flags_stale).
void Aarch64Iss::prepare_step(Thread &t)
{
    const uint64_t mdscr = debug_reg(t.uc, 0, 2, 2);
    configure_step(t, mdscr);
    if (!t.step_configured)
        return;
    uc_arm64_cp_reg r{ 0, 2, 2, 0, 2, mdscr };
    uc_reg_write(t.uc, UC_ARM64_REG_CP_REG, &r);
}

void Aarch64Iss::configure_step(Thread &t, uint64_t mdscr)
{
    uint64_t pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    t.step_configured = mdscr & kMdscrSs;
    t.step_d = pstate & kPstateD;
}

bool Aarch64Iss::step_flags_stale(const Thread &t)
{
    uint64_t pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    return (pstate & kPstateD) != t.step_d;
}

}  // namespace pmvp::soc
