// SPDX-License-Identifier: Apache-2.0
//
// MRS, MSR and SYS: the monitors' registers through their one-call access
// (Monitors::execute), the registers the platform answers itself, and the
// invalidations that make the block cache check its code again.

#include "aarch64_iss.h"

namespace pmvp::soc {

namespace {

// The CPU's own values of the ID registers whose monitor fields pmvp sets:
// Unicorn's default CPU is Cortex-A72-like, and these are the Cortex-A72
// TRM's reset values (debug, trace and breakpoint fields kept).
struct IdBase {
    unsigned crm, op2;
    uint64_t value;
};
constexpr IdBase kIdBase[] = {
    { 4, 0, 0x0000000000002222 },  // ID_AA64PFR0_EL1
    { 5, 0, 0x0000000010305106 },  // ID_AA64DFR0_EL1: BRPs 5 (kBreakpoints 6), WRPs 3 (4)
    { 5, 1, 0x0000000000000000 },  // ID_AA64DFR1_EL1
    { 1, 0, 0x0000000000000131 },  // ID_PFR0_EL1
    { 1, 2, 0x0000000003010066 },  // ID_DFR0_EL1
    { 3, 5, 0x0000000000000000 },  // ID_DFR1_EL1
};

unsigned rt_index(uc_arm64_reg rt)
{
    if (rt >= UC_ARM64_REG_X0 && rt <= UC_ARM64_REG_X28)
        return (unsigned)(rt - UC_ARM64_REG_X0);
    if (rt == UC_ARM64_REG_X29)
        return 29;
    if (rt == UC_ARM64_REG_X30)
        return 30;
    return 31;  // XZR
}

// A refused access, or an access QEMU does not know (which ends its block
// with an UNDEFINED that would otherwise run again): the PC is moved only
// when the access is the last instruction of its block: Unicorn 2.0.1, after
// a hook that handled such an access, restarts the block from its start.
bool last_in_block(const Aarch64Iss::Thread &t, uint64_t pc)
{
    return pc + 4 == t.block_pc + t.block_size;
}

// DBGBVR<n>_EL1 and DBGBCR<n>_EL1 (op0 2, op1 0, CRn 0, CRm n, op2 4 and 5),
// n below kBreakpoints: the platform holds them (Unicorn 2.1's translator
// crashes the host at a breakpoint QEMU arms) and arms them (debug.cpp)
// when the run ends, after this block. True if `cp` is one, served.
bool breakpoint_access(Aarch64Iss::Thread &t, bool write, const uc_arm64_cp_reg *cp, uint64_t &value)
{
    if (cp->op0 != 2 || cp->op1 != 0 || cp->crn != 0 || cp->crm >= Aarch64Iss::kBreakpoints ||
        (cp->op2 != 4 && cp->op2 != 5))
        return false;
    uint64_t &reg = cp->op2 == 4 ? t.dbgbvr[cp->crm] : t.dbgbcr[cp->crm];
    if (!write) {
        value = reg;
        return true;
    }
    reg = value;
    t.debug_changed = true;
    t.iss->stop(t);
    return true;
}

// The System registers the platform answers itself: MPIDR_EL1 on the virt
// machine, the generic timer, the breakpoint registers, the PMU and AMU
// fields of the ID registers.
// True when `cp` is one of them, answered.
bool platform_sysreg(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, Aarch64Iss::Thread &t, bool write,
                     uint64_t pc)
{
    Aarch64Iss &iss = *t.iss;
    uint64_t fields = 0, mask = 0;
    if (!write && iss.virt() && cp->op0 == 3 && cp->op1 == 0 && cp->crn == 0 && cp->crm == 0 && cp->op2 == 5) {
        if (rt != UC_ARM64_REG_XZR)  // MPIDR_EL1: each engine is CPU 0 to Unicorn
            uc_reg_write(uc, rt, &t.mpidr);
        return true;
    }
    if (!write && cp->op0 == 3 && cp->op1 == 3 && cp->crn == 14 && cp->crm == 0 && (cp->op2 == 1 || cp->op2 == 2))
        iss.fast_forward_poll(t, pc, rt_index(rt));  // CNTPCT_EL0, CNTVCT_EL0
    if (uint64_t v = write ? cp->val : 0; iss.timer_access(t, write, cp, pc, v) ||
                                          iss.gic_access(t, write, cp, pc, v) || breakpoint_access(t, write, cp, v)) {
        if (!write && rt != UC_ARM64_REG_XZR)
            uc_reg_write(uc, rt, &v);
        return true;
    }
    if (!write && pmvp_id_fields_a64(&iss.cluster_.config, cp->op0, cp->op1, cp->crn, cp->crm, cp->op2, &fields,
                                     &mask) == PMVP_OK) {
        // Detached, the core has no PMU and no AMU: their fields read 0.
        const uint64_t own = iss.monitors_ ? fields : 0;
        uint64_t v = own;
        for (const IdBase &b : kIdBase)
            if (b.crm == cp->crm && b.op2 == cp->op2)
                v = (b.value & ~mask) | own;
        if (cp->crm == 4 && cp->op2 == 0 && iss.virt() && iss.guest_.gic->version() == 3)
            v |= 1ull << 24;  // ID_AA64PFR0_EL1.GIC: the GICv3 CPU interface's System registers
        if (rt != UC_ARM64_REG_XZR)
            uc_reg_write(uc, rt, &v);
        return true;
    }
    return false;
}

// An MRS or MSR of a PMU or AMU register at `pc`, made by the monitors after
// the instructions before it: permitted, it completes; refused, the
// exception it takes is entered (or, in mid-block, QEMU is left to refuse it).
uint32_t monitors_sysreg(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, Aarch64Iss::Thread &t, bool write,
                         uint64_t pc, const pmvp_sysreg &r)
{
    Aarch64Iss &iss = *t.iss;
    uint64_t before = iss.retired_before(t, pc);
    const bool cycles = !write && r.family == PMVP_SYSREG_PMU && r.reg == PMVP_PMCCNTR_EL0;
    if (!(cycles && t.cycle_reads_first))
        iss.tell_retired(t, before);
    pmvp_time at = iss.time_of(t, before);
    uint64_t value = write ? cp->val : 0;
    pmvp_sysreg_execution out{ PMVP_SYSREG_UNDEFINED, 1, 0x02000000 };  // detached: UNDEFINED
    if (iss.monitors_) {
        const pmvp_sysreg_a64 insn = { write, cp->op0, cp->op1, cp->crn, cp->crm, cp->op2, rt_index(rt) };
        int err = iss.monitors_->execute(t.pe, insn, nullptr, value, out, iss.offset(at));
        if (err != PMVP_OK)
            SC_REPORT_ERROR("pmvp/iss",
                            (std::string("a System-register access failed: ") + pmvp_strerror(err)).c_str());
    }
    if (out.verdict == PMVP_SYSREG_PERMITTED) {
        if (!write && rt != UC_ARM64_REG_XZR)
            uc_reg_write(uc, rt, &value);
        if (last_in_block(t, pc)) {
            uint64_t next = pc + 4;
            uc_reg_write(uc, UC_ARM64_REG_PC, &next);
        }
        if (write)
            iss.stop(t);  // what counts and what interrupts may have changed: limits anew
        return 1;
    }
    if (!last_in_block(t, pc)) {
        // The PC cannot be moved in the middle of a block: leave the
        // instruction to QEMU, which refuses it too or executes its own.
        t.result.console += "[pmvp: a refused System-register access in mid-block was left to the ISS]\n";
        return 0;
    }
    iss.retire_before(t, pc);  // not executed
    iss.enter_exception(t, kVectorSync, pc, &out.esr);
    return 1;
}

uint32_t on_sysreg(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, void *user, bool write)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    uint64_t pc = 0;
    uc_reg_read(uc, UC_ARM64_REG_PC, &pc);
    t.sysreg_pc = pc;  // the hook synchronised the PC here
    // SCTLR_EL1, TTBR0_EL1, TTBR1_EL1, TCR_EL1: the blocks' code may move
    // (TTBR0_EL1: that of the lower half only).
    if (write && cp->op0 == 3 && cp->op1 == 0 && cp->crm == 0 &&
        ((cp->crn == 1 && cp->op2 == 0) || (cp->crn == 2 && cp->op2 <= 2)))
        t.blocks.clear(cp->crn == 2 && cp->op2 == 0 ? IssBlockCache::kLower : IssBlockCache::kBoth);
    // MDSCR_EL1 (op0 2, op1 0, CRn 0, CRm 2, op2 2): QEMU writes it; software
    // step's flags follow it (debug.cpp).
    if (write && cp->op0 == 2 && cp->op1 == 0 && cp->crn == 0 && cp->crm == 2 && cp->op2 == 2)
        t.iss->configure_step(t, xreg(uc, rt_index(rt)));
    // DBGWVR<n>_EL1, DBGWCR<n>_EL1 (op2 6 and 7): QEMU holds them; the
    // watchpoints are armed anew when the run ends (debug.cpp).
    if (write && cp->op0 == 2 && cp->op1 == 0 && cp->crn == 0 && (cp->op2 == 6 || cp->op2 == 7)) {
        t.debug_changed = true;
        t.iss->stop(t);
    }
    // The generic timer's first (a guest waiting on the counter reads it in
    // a loop), then the monitors' (a guest reading a counter in a loop):
    // none of them is one the platform answers otherwise.
    pmvp_sysreg r;
    const bool timer = cp->op0 == 3 && cp->op1 == 3 && cp->crn == 14 && cp->crm < 4;  // (CRm 8-15: PMEVCNTR<n>)
    if (!timer && pmvp_sysreg_decode_a64(write, cp->op0, cp->op1, cp->crn, cp->crm, cp->op2, &r) == PMVP_OK)
        return monitors_sysreg(uc, rt, cp, t, write, pc, r);
    if (!platform_sysreg(uc, rt, cp, t, write, pc))
        return 0;  // QEMU executes it
    // A register QEMU does not have (GICv3's ICC_*_EL1) ends its block, and
    // the skipped instruction leaves the PC on itself: past it, as QEMU
    // would have gone.
    if (last_in_block(t, pc)) {
        const uint64_t next = pc + 4;
        uc_reg_write(uc, UC_ARM64_REG_PC, &next);
    }
    return 1;
}

}  // namespace

// SYS: an instruction cache invalidation makes changed code visible, a
// TLB invalidation a changed translation: the PE's blocks are checked
// against their code again (IssBlockCache), and a block found changed has
// its translation dropped (on_block). Each PE is an engine of its own, which
// QEMU runs as its only CPU: the broadcast forms (IC IVAU, IC IALLUIS, TLBI
// but for its local forms, CRm 4, 6 and 7) are made to reach the others
// here (Aarch64Iss::broadcast). QEMU executes the instruction.
uint32_t on_sys(uc_engine *, uc_arm64_reg, const uc_arm64_cp_reg *cp, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    const bool ic_ivau = cp->crn == 7 && cp->op1 == 3 && cp->crm == 5 && cp->op2 == 1;
    const bool ic_iallu = cp->crn == 7 && cp->op1 == 0 && (cp->crm == 1 || cp->crm == 5) && cp->op2 == 0;
    if (ic_ivau || ic_iallu) {
        t.blocks.clear();
        if (ic_ivau || cp->crm == 1)
            t.iss->broadcast(t, false);
    } else if (cp->crn == 8) {
        t.blocks.clear();
        if (cp->crm != 4 && cp->crm != 6 && cp->crm != 7)
            t.iss->broadcast(t, true);
    }
    return 0;
}

uint32_t on_mrs(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, void *user)
{
    return on_sysreg(uc, rt, cp, user, false);
}

uint32_t on_msr(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, void *user)
{
    return on_sysreg(uc, rt, cp, user, true);
}

}  // namespace pmvp::soc
