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

void on_interrupt(uc_engine *uc, uint32_t intno, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    uint64_t pc = 0;
    uc_reg_read(uc, UC_ARM64_REG_PC, &pc);
    // QEMU's exception numbers: 1 UNDEFINED (PC at the instruction), 2 SVC (PC after it).
    // The instructions before it are told with the run's others (at the
    // next access or the run's end): a guest that takes exceptions in a
    // loop makes no input of the monitors per exception.
    if (t.iss->virt() && t.iss->firmware_call(t, pc))
        return;
    uint64_t esr;
    if (intno == 1) {
        esr = 0x02000000;             // EC 0x00, IL
        t.iss->retire_before(t, pc);  // not executed
    } else if (intno == 2) {
        uint32_t svc = 0;  // the SVC before the PC: its imm16 goes to ESR.ISS
        uc_mem_read(uc, pc - 4, &svc, 4);
        esr = 0x15ull << 26 | 0x02000000 | ((svc >> 5) & 0xFFFF);  // EC 0x15 SVC from AArch64
    } else {
        t.result.console += "[pmvp: exception " + std::to_string(intno) + " the platform does not model: PE stopped]\n";
        t.exited = true;
        t.result.status = 0xE0 + intno;
        t.iss->stop(t);
        return;
    }
    t.iss->enter_exception(t, kVectorSync, pc, &esr);
}

void Aarch64Iss::enter_exception(Thread &t, uint64_t vector, uint64_t elr, const uint64_t *esr)
{
    uint64_t pstate = 0, vbar = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    uc_reg_read(t.uc, UC_ARM64_REG_VBAR_EL1, &vbar);
    uc_arm64_cp_reg spsr{ 4, 0, 3, 0, 0, pstate };  // SPSR_EL1
    uc_reg_write(t.uc, UC_ARM64_REG_CP_REG, &spsr);
    uc_reg_write(t.uc, UC_ARM64_REG_ELR_EL1, &elr);
    if (esr) {
        uc_reg_write(t.uc, UC_ARM64_REG_ESR_EL1, esr);
        t.result.exceptions++;
    }
    // EXC_TAKEN and the kind: an IRQ, an SVC, an Instruction Abort, or
    // another synchronous exception (an UNDEFINED instruction, a trap).
    const uint64_t ec = esr ? *esr >> 26 : 0;
    occur(t, a64::EXC_TAKEN);
    occur(t, !esr                       ? a64::EXC_IRQ
             : ec == 0x15               ? a64::EXC_SVC
             : ec == 0x20 || ec == 0x21 ? a64::EXC_PABORT
                                        : a64::EXC_UNDEF);
    uint64_t masked = kPstateEl1hMasked, pc = vbar + vector_base(pstate) + vector;
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
    uc_reg_write(t.uc, UC_ARM64_REG_PC, &pc);
}

// HVC #0 and SMC #0 (PSCI: the DT's method is hvc, and QEMU takes both),
// HLT #0xF000 (semihosting): Unicorn reports each as an exception at the
// instruction (EL2 and EL3 absent, no semihosting of its own); the machine
// serves it as the firmware would and the guest goes on after it.
bool Aarch64Iss::firmware_call(Thread &t, uint64_t pc)
{
    uint32_t insn = 0;
    if (uc_mem_read(t.uc, pc, &insn, 4) != UC_ERR_OK)
        return false;
    if (insn != virt::kHvc0 && insn != virt::kSmc0 && insn != virt::semihosting::kHlt)
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
