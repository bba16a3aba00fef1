// SPDX-License-Identifier: Apache-2.0
//
// Exception entry to EL1 (D1.3): the synchronous exceptions Unicorn
// reports, the firmware calls a machine serves instead (PSCI, semihosting),
// the Instruction Abort of a fetch where nothing is.

#include "aarch64_iss.h"

namespace pmvp::soc {

namespace {

// The vector table's quarter for an exception taken to EL1 from PSTATE
// `pstate`: the current EL with SP_EL0 or SP_EL1, or a lower EL in AArch64.
uint64_t vector_base(uint64_t pstate)
{
    if (((pstate >> 2) & 3) == 0)
        return 0x400;
    return (pstate & 1) ? 0x200 : 0x000;
}

}  // namespace

// QEMU's exception numbers, as Unicorn's interrupt hook reports them, and
// where each leaves the PC.
enum : uint32_t {
    kExcpUdef = 1,           // UNDEFINED: at the instruction
    kExcpSwi = 2,            // SVC: after it
    kExcpPrefetchAbort = 3,  // at the instruction fetched
    kExcpDataAbort = 4,      // at the load or store
    kExcpBkpt = 7,           // BRK: at it
    kExcpHvc = 11,           // after it
    kExcpSmc = 13,           // after it
};

// The instructions before an exception are told with the run's others (at
// the next access or the run's end): a guest that takes exceptions in a
// loop makes no input of the monitors per exception.
void on_interrupt(uc_engine *uc, uint32_t intno, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    uint64_t pc = 0;
    uc_reg_read(uc, UC_ARM64_REG_PC, &pc);
    uint32_t insn = 0;          // an exception-generating instruction's: its imm16 goes to ESR.ISS
    uint64_t esr = 0x02000000;  // IL; EC 0x00, Unknown reason: an UNDEFINED instruction
    switch (intno) {
    case kExcpPrefetchAbort:
    case kExcpDataAbort: iss.abort(t, intno == kExcpPrefetchAbort); return;
    case kExcpHvc:
    case kExcpSmc:
        pc -= 4;  // at the instruction: served, the guest goes on after it; else UNDEFINED there
        [[fallthrough]];
    case kExcpUdef:
        if (intno == kExcpUdef && iss.software_step(t, pc))
            return;
        if (iss.virt() && iss.firmware_call(t, pc))
            return;
        iss.retire_before(t, pc);  // not executed
        break;
    case kExcpSwi:
        read_virtual(uc, pc - 4, &insn, 4);
        esr |= 0x15ull << 26 | ((insn >> 5) & 0xFFFF);  // EC 0x15: SVC from AArch64
        break;
    case kExcpBkpt:
        read_virtual(uc, pc, &insn, 4);
        esr |= 0x3Cull << 26 | ((insn >> 5) & 0xFFFF);  // EC 0x3C: BRK; not executed
        iss.retire_before(t, pc);
        break;
    default:
        t.result.console += "[pmvp: exception " + std::to_string(intno) + " the platform does not model: PE stopped]\n";
        t.exited = true;
        t.result.status = 0xE0 + intno;
        iss.stop(t);
        return;
    }
    iss.enter_exception(t, kVectorSync, pc, &esr);
}

void Aarch64Iss::enter_exception(Thread &t, uint64_t vector, uint64_t elr, const uint64_t *esr)
{
    uint64_t pstate = 0, vbar = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    uc_reg_read(t.uc, UC_ARM64_REG_VBAR_EL1, &vbar);
    uc_reg_write(t.uc, UC_ARM64_REG_ELR_EL1, &elr);
    if (esr) {
        uc_reg_write(t.uc, UC_ARM64_REG_ESR_EL1, esr);
        t.result.exceptions++;
    }
    // EXC_TAKEN and the kind: an IRQ, an SVC, an Instruction or Data Abort,
    // or another synchronous exception (an UNDEFINED instruction, a trap).
    const uint64_t ec = esr ? *esr >> 26 : 0;
    // The exception's events are those of the Exception level it is taken
    // from: they are told before the PE is at EL1.
    occur(t, a64::EXC_TAKEN);
    occur(t, !esr                       ? a64::EXC_IRQ
             : ec == 0x15               ? a64::EXC_SVC
             : ec == 0x20 || ec == 0x21 ? a64::EXC_PABORT
             : ec == 0x24 || ec == 0x25 ? a64::EXC_DABORT
                                        : a64::EXC_UNDEF);
    uint64_t masked = kPstateEl1hMasked, pc = vbar + vector_base(pstate) + vector;
    sync_el(t, masked, t.retired);
    // A second exception with no instruction retired since the first (a
    // vector that faults at its first fetch) ends the run: no block would
    // end it, and a run that retires nothing still takes an instruction's
    // time (ended_run), so the guest goes on at its pace.
    if (t.exception_at == t.retired) {
        stop(t);
        uc_emu_stop(t.uc);
    }
    t.exception_at = t.retired;
    // The engine's SP is the one PSTATE selected: from EL0 or EL1t it is
    // SP_EL0's value, kept there, and EL1h runs on SP_EL1 (a PSTATE write
    // alone does not switch them).
    const bool on_sp_el0 = !(pstate & 1) || ((pstate >> 2) & 3) == 0;
    uint64_t sp = 0;
    if (on_sp_el0) {
        uc_reg_read(t.uc, UC_ARM64_REG_SP, &sp);
        uc_reg_write(t.uc, UC_ARM64_REG_SP_EL0, &sp);
        uc_reg_read(t.uc, UC_ARM64_REG_SP_EL1, &sp);
    }
    uc_reg_write(t.uc, UC_ARM64_REG_PSTATE, &masked);
    if (on_sp_el0)
        uc_reg_write(t.uc, UC_ARM64_REG_SP, &sp);
    // SPSR_EL1 last: Unicorn rebuilds the translation flags it caches (the
    // current EL among them) after a System-register write, and not after a
    // PSTATE write, so the handler is translated for EL1 even when the
    // exception came from EL0.
    uc_arm64_cp_reg spsr{ 4, 0, 3, 0, 0, pstate };
    uc_reg_write(t.uc, UC_ARM64_REG_CP_REG, &spsr);
    uc_reg_write(t.uc, UC_ARM64_REG_PC, &pc);
}

void Aarch64Iss::sync_el(Thread &t, uint64_t pstate, uint64_t upto)
{
    const uint8_t el = (uint8_t)((pstate >> 2) & 3);
    if (el == t.el)
        return;
    t.el = el;
    if (!monitors_)
        return;
    tell_retired(t, upto);
    const pmvp_context ctx{ el, PMVP_NONSECURE, false, false, false };
    check(monitors_->set_context(t.pe, ctx, offset(std::max(time_of(t, upto), t.reported_at))), "set_context");
}

// HVC #0 and SMC #0 (PSCI: the DT's method is hvc, and QEMU takes both),
// HLT #0xF000 (semihosting), from EL1: Unicorn reports each as an
// exception (no semihosting of its own, and no EL2 or EL3 code); the
// machine serves it as the firmware would and the guest goes on after it.
bool Aarch64Iss::firmware_call(Thread &t, uint64_t pc)
{
    uint32_t insn = 0;
    uint64_t pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    if (((pstate >> 2) & 3) == 0 || !read_virtual(t.uc, pc, &insn, 4))
        return false;  // EL0: UNDEFINED, as on a machine whose firmware serves EL1 only
    if (insn != virt::kHvc0 && insn != virt::kSmc0 && (insn != virt::semihosting::kHlt || !guest_.machine.semihosting))
        return false;
    uint64_t before = retired_before(t, pc);
    tell_retired(t, before);
    pmvp_time at = time_of(t, before);
    if (insn == virt::semihosting::kHlt)
        semihosting(t, at);
    else
        psci(t, at);
    uint64_t next = pc + 4;
    uc_reg_write(t.uc, UC_ARM64_REG_PC, &next);
    return true;
}

void Aarch64Iss::instruction_abort(Thread &t)
{
    uint64_t pc = 0, pstate = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PC, &pc);
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    const uint64_t ec = ((pstate >> 2) & 3) == 0 ? 0x20 : 0x21;  // Instruction Abort from a lower EL / the same EL
    const uint64_t esr = ec << 26 | 0x02000000 | 0x10;           // IL, FSC: synchronous external abort
    uc_reg_write(t.uc, UC_ARM64_REG_FAR_EL1, &pc);
    enter_exception(t, kVectorSync, pc, &esr);
    t.result.aborts++;
}

}  // namespace pmvp::soc
