// SPDX-License-Identifier: Apache-2.0
//
// An ISS core's and the guest's state in a checkpoint (checkpoint.h).

#include "aarch64_iss.h"

namespace pmvp::soc {

// The engine's state as named registers (whatever the host's byte order):
// the general-purpose and SIMD&FP registers, PC, PSTATE, the stack
// pointers, and the EL1 System registers bare-metal firmware uses. PSTATE
// goes before the stack pointers: the live SP is the one PSTATE.SP selects,
// the banked SP_ELx hold what they held. Long as the list is: one line per
// register.
template <class A> void Aarch64Iss::registers(A &a, Thread &t)
{
    auto reg = [&](const char *what, int id, void *v) {
        uc_err e = A::loading ? uc_reg_write(t.uc, id, v) : uc_reg_read(t.uc, id, v);
        if (e != UC_ERR_OK)
            throw CheckpointError(std::string("the ISS cannot ") + (A::loading ? "write" : "read") + " its " + what +
                                  ": " + uc_strerror(e));
    };
    auto x = [&](const char *what, int id) {
        uint64_t v = 0;
        if constexpr (!A::loading)
            reg(what, id, &v);
        a(what, v);
        if constexpr (A::loading)
            reg(what, id, &v);
    };
    for (int n = 0; n <= 28; n++)
        x("X<n>", UC_ARM64_REG_X0 + n);
    x("X29", UC_ARM64_REG_X29);
    x("X30", UC_ARM64_REG_X30);
    x("PSTATE", UC_ARM64_REG_PSTATE);
    x("SP_EL0", UC_ARM64_REG_SP_EL0);
    x("SP_EL1", UC_ARM64_REG_SP_EL1);
    x("SP", UC_ARM64_REG_SP);
    x("PC", UC_ARM64_REG_PC);
    for (int n = 0; n <= 31; n++) {
        uint64_t q[2] = {};  // Unicorn 2.0's layout of a Q register: the low half, then the high
        if constexpr (!A::loading)
            reg("Q<n>", UC_ARM64_REG_Q0 + n, &q);
        a("Q<n>", q[0]);
        a("Q<n>", q[1]);
        if constexpr (A::loading)
            reg("Q<n>", UC_ARM64_REG_Q0 + n, &q);
    }
    x("FPCR", UC_ARM64_REG_FPCR);
    x("FPSR", UC_ARM64_REG_FPSR);
    x("ELR_EL1", UC_ARM64_REG_ELR_EL1);
    x("ESR_EL1", UC_ARM64_REG_ESR_EL1);
    x("FAR_EL1", UC_ARM64_REG_FAR_EL1);
    x("VBAR_EL1", UC_ARM64_REG_VBAR_EL1);
    x("TPIDR_EL0", UC_ARM64_REG_TPIDR_EL0);
    x("TPIDRRO_EL0", UC_ARM64_REG_TPIDRRO_EL0);
    x("TPIDR_EL1", UC_ARM64_REG_TPIDR_EL1);
    x("CPACR_EL1", UC_ARM64_REG_CPACR_EL1);
    x("TTBR0_EL1", UC_ARM64_REG_TTBR0_EL1);
    x("TTBR1_EL1", UC_ARM64_REG_TTBR1_EL1);
    x("MAIR_EL1", UC_ARM64_REG_MAIR_EL1);
    x("PAR_EL1", UC_ARM64_REG_PAR_EL1);
    // By encoding: crn, crm, op0, op1, op2.
    const struct {
        const char *name;
        uc_arm64_cp_reg enc;
    } kCp[] = {
        { "SPSR_EL1", { 4, 0, 3, 0, 0, 0 } },
        { "SCTLR_EL1", { 1, 0, 3, 0, 0, 0 } },
        { "TCR_EL1", { 2, 0, 3, 0, 2, 0 } },
    };
    for (const auto &c : kCp) {
        uc_arm64_cp_reg r = c.enc;
        if constexpr (!A::loading)
            reg(c.name, UC_ARM64_REG_CP_REG, &r);
        a(c.name, r.val);
        if constexpr (A::loading)
            reg(c.name, UC_ARM64_REG_CP_REG, &r);
    }
}

template <class A> void Aarch64Iss::state(A &a)
{
    monitors_state(a);
    a("ended", ended);
    a.below("DVFS steps told", clock_told_, cluster_.dvfs.size() + 1);
    a.count("threads", threads.size());
    for (Thread &t : threads) {
        a("SYSCTL_SELECT", t.selected);
        a("local time", t.now);
        a("run start", t.run_t0);
        a("run start count", t.run_n0);
        a("run frequency", t.hz);
        a("instructions retired", t.retired);
        a("instructions reported", t.reported);
        a("block PC", t.block_pc);
        a("block start", t.block_start);
        a("block size", t.block_size);
        a("run limit", t.limit);
        a("interrupt expected at", t.interrupt_at);
        a("ran a block", t.ran_block);
        a("stopping", t.stopping);
        a("in WFI", t.wfi);
        a("exited", t.exited);
        a("powered off", t.off);
        a("semihosting errno", t.semihosting_errno);
        for (Thread::Timer &tm : t.timer) {
            a("CNTx_CTL_EL0", tm.ctl);
            a("CNTx_CVAL_EL0", tm.cval);
        }
        a("SYSCTL_IRQ_ENABLE", t.irq_enable);
        a.below("Exception level told", t.el, 4);
        for (unsigned n = 0; n < 16; n++) {
            a("DBGBVR<n>_EL1", t.dbgbvr[n]);
            a("DBGBCR<n>_EL1", t.dbgbcr[n]);
        }
        t.debug_changed = true;
        IssPeResult &r = t.result;
        a("console", r.console);
        a("exit written", r.exited);
        a("exit status", r.status);
        a("ended by", r.ended_by);
        a("exit time", r.exit_time);
        a("instructions at exit", r.exit_instructions);
        a("instructions told", r.instructions);
        a("interrupts taken", r.interrupts);
        a("exceptions taken", r.exceptions);
        a("bus errors", r.bus_errors);
        a("external aborts", r.aborts);
        a("largest skid", r.max_skid);
        a("instructions fast-forwarded", r.fast_forwarded);
        for (unsigned e = 0; e < a64::kNumEvents; e++)
            a(a64::name((a64::Event)e), r.events[e]);
        registers(a, t);
    }
}

void Aarch64Iss::checkpoint(Saver &a)
{
    state(a);
}

void Aarch64Iss::checkpoint(Loader &a)
{
    state(a);
}

// The doorbells, and the RAM's pages that differ from the image as loaded
// (the image itself is the scenario's: a checkpoint taken with another one
// is refused).
template <class A> void Guest::state(A &a)
{
    a("quantum end", wake_);
    if (std::any_of(cores.begin(), cores.end(), [](const Aarch64Iss *c) { return !c->ended; }))
        a.not_before("quantum end", wake_, soc_.resume_at);  // (cores, loaded before the guest, say)
    a.count("PEs that run the image", doorbell.size());
    for (Doorbell &d : doorbell) {
        a("doorbell rung", d.rung);
        a("doorbell instant", d.at);
    }
    if (gic)
        gic->state(a);
    uart.state(a);
    a.count("virtio-mmio transports", virtio.size());
    for (virt::VirtioMmio &v : virtio)
        v.state(a);
    testdev.state(a);
    if (pci)
        pci->state(a);
    if (files && files->any_open())
        throw CheckpointError("the guest has a semihosting file open, which a checkpoint cannot hold");
    a("PL011 output", uart_out);
    a("PL011 output instants", uart_at);
    if (uart_at.size() != uart_out.size())
        throw CheckpointError("the checkpoint's PL011 output and its instants differ in length");
    std::vector<uint8_t> loaded(ram_size, 0);
    load_ram(loaded.data());
    uint64_t fingerprint = pmvp::sc::fnv1a(loaded.data(), loaded.size()), saved = fingerprint;
    a("firmware image", saved);
    if (saved != fingerprint)
        throw CheckpointError("the checkpoint was taken with another firmware image than " + path_);
    constexpr size_t kPage = 4096;
    std::vector<uint64_t> pages;
    if constexpr (!A::loading)
        for (size_t p = 0; p < ram_size / kPage; p++)
            if (std::memcmp(ram + p * kPage, loaded.data() + p * kPage, kPage) != 0)
                pages.push_back(p);
    a("RAM pages written", pages);
    for (uint64_t p : pages) {
        if (p >= ram_size / kPage)
            throw CheckpointError("the checkpoint has a RAM page outside the guest's RAM");
        std::vector<uint8_t> bytes;
        if constexpr (!A::loading)
            bytes.assign(ram + p * kPage, ram + (p + 1) * kPage);
        a("RAM page", bytes);
        if (bytes.size() != kPage)
            throw CheckpointError("the checkpoint has a RAM page of " + std::to_string(bytes.size()) + " bytes");
        std::memcpy(ram + p * kPage, bytes.data(), kPage);
    }
}
template void Guest::state(Saver &);
template void Guest::state(Loader &);

}  // namespace pmvp::soc
