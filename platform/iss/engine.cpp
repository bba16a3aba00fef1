// SPDX-License-Identifier: Apache-2.0
//
// An ISS core's construction: one Unicorn engine per PE thread, its
// memory, devices and hooks, and the state it boots in.

#include "aarch64_iss.h"

#include <memory>
#include <stdexcept>


// Unicorn 2.1.1 does not free two things when an engine is closed: a GArray
// of 32 bytes every engine makes (g_array_new, from the glib Unicorn carries
// inside it; pmvp uses none), and the code bitmap QEMU makes for a page
// whose translated code the guest writes over (tb_invalidate_phys_page_fast:
// firmware/iss_events.c's code-written tests). A sanitizer build's
// LeakSanitizer is told so, and still reports every other leak.
#if defined(__SANITIZE_ADDRESS__)  // gcc
#define PMVP_ASAN 1
#elif defined(__has_feature)  // clang
#if __has_feature(address_sanitizer)
#define PMVP_ASAN 1
#endif
#endif
#ifdef PMVP_ASAN
extern "C" const char *__lsan_default_suppressions()
{
    return "leak:g_array_new\n"
           "leak:tb_invalidate_phys_page_fast_aarch64\n";
}
// Without the summary of the suppressions used: QEMU's command line keeps
// standard error empty (a runner takes anything there for a failure).
extern "C" const char *__lsan_default_options()
{
    return "print_suppressions=0";
}
#endif

namespace pmvp::soc {

namespace {

constexpr uint64_t kScrNs = 1u << 0, kScrHce = 1u << 8, kScrRw = 1u << 10, kHcrRw = 1ull << 31;

}  // namespace

Aarch64Iss::Aarch64Iss(const sc_core::sc_module_name &name, Soc &soc, const Cluster &cluster, unsigned index,
                       unsigned cluster_index, unsigned core_in_cluster, unsigned first_pe, bool attached)
    : Core(name, cluster, index, first_pe), soc_(soc), guest_(*soc.guest), cluster_(cluster)
{
    if (attached) {
        // The clock is the ISS's: it tells the monitors each DVFS step (tell_clock).
        monitors =
            std::make_unique<pmvp::sc::Monitors>("monitors", core_config(cluster, cluster_index, core_in_cluster));
        for (unsigned p = 0; p < cluster.config.num_pes; p++) {
            monitors->pmuirq[p](pmuirq[p]);
            check(monitors->set_controls(p, cluster.controls), "set_controls");
        }
    }
    monitors_ = monitors.get();
    if (monitors_)
        check(pmvp_ext_find(&monitors_->kernel(), PMVP_FRAME_PMU, "PMCCNTR_EL0", 0, &pmccntr_), "pmvp_ext_find");
    guest_.cores.push_back(this);
    threads.resize(cluster.config.num_pes);
    for (unsigned p = 0; p < threads.size(); p++) {
        Thread &t = threads[p];
        t.iss = this;
        t.pe = p;
        t.g = first_pe + p;
        t.image_pe = guest_.image_pes++;
        t.result.pe = t.g;
        t.result.cluster = cluster_index;
        t.result.core = index;
        t.result.thread = p;
        open_engine(t);
        boot(t);
    }
}

// A Unicorn call's result: an exception naming what failed.
void unicorn_ok(uc_err e, const char *what)
{
    if (e != UC_ERR_OK)
        throw std::runtime_error(std::string("Unicorn: ") + what + ": " + uc_strerror(e));
}

// Thread t's engine: the RAM, the frames of every PE and the machine's
// devices mapped, every hook added (none on memory: a memory hook sends
// every load and store through Unicorn's slow path).
void Aarch64Iss::open_engine(Thread &t)
{
    auto ok = unicorn_ok;
    ok(uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &t.uc), "uc_open");
    // Exits instead of uc_emu_start's end address, and none set: a run ends
    // only when a hook stops it, and Unicorn does not drop the translation
    // at an end address each time a run starts.
    ok(uc_ctl_exits_enable(t.uc), "use exits");
    uc_hook h;
    ok(uc_mem_map_ptr(t.uc, kRamBase, guest_.ram_size, UC_PROT_ALL, guest_.ram), "map RAM");
    map_frames(t);
    if (virt())
        map_virt_devices(t);
    else
        map_pmvp_devices(t);
    // Hooks before any code is translated: Unicorn 2.0.1 does not apply a
    // hook to blocks translated before it was added.
    ok(uc_hook_add(t.uc, &h, UC_HOOK_BLOCK, (void *)on_block, &t, 1, 0), "block hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_INSN, (void *)on_mrs, &t, 1, 0, UC_ARM64_INS_MRS), "MRS hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_INSN, (void *)on_msr, &t, 1, 0, UC_ARM64_INS_MSR), "MSR hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_INSN, (void *)on_sys, &t, 1, 0, UC_ARM64_INS_SYS), "SYS hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_INTR, (void *)on_interrupt, &t, 1, 0), "interrupt hook");
    ok(uc_hook_add(t.uc, &h, UC_HOOK_MEM_UNMAPPED, (void *)on_unmapped, &t, 1, 0), "unmapped hook");
    // Unicorn's CPU has EL2 and EL3 and leaves SCR_EL3.RW and
    // HCR_EL2.RW clear, so its translation regime of EL1 is AArch32 and
    // an MMU the guest enables faults on every access: EL1 is made
    // Non-secure AArch64, as on a machine without EL2 and EL3. SCR_EL3.HCE
    // makes HVC an exception Unicorn reports (kExcpHvc), not UNDEFINED, for
    // the platform's PSCI.
    uc_arm64_cp_reg scr{ 1, 1, 3, 6, 0, kScrNs | kScrHce | kScrRw }, hcr{ 1, 1, 3, 4, 0, kHcrRw };
    ok(uc_reg_write(t.uc, UC_ARM64_REG_CP_REG, &scr), "SCR_EL3");
    ok(uc_reg_write(t.uc, UC_ARM64_REG_CP_REG, &hcr), "HCR_EL2");
}

// Thread t at the image's entry, at EL1 with interrupts masked; on the virt
// machine as QEMU's direct kernel boot leaves it.
void Aarch64Iss::boot(Thread &t)
{
    uint64_t pc = guest_.image.entry, pstate = kPstateEl1hMasked;
    uc_reg_write(t.uc, UC_ARM64_REG_PC, &pc);
    uc_reg_write(t.uc, UC_ARM64_REG_PSTATE, &pstate);
    if (virt()) {
        // QEMU's direct kernel boot: x0 the DTB's address, x1-x3 zero;
        // the other PEs wait for PSCI CPU_ON.
        t.mpidr = guest_.mpidr[t.image_pe];
        t.off = t.image_pe != 0;
        uc_reg_write(t.uc, UC_ARM64_REG_X0, &guest_.dtb_at);
        if (t.off && monitors_)
            check(monitors_->set_state(t.pe, PMVP_PE_OFF, sc_core::SC_ZERO_TIME), "set_state");
    }
}

Aarch64Iss::~Aarch64Iss()
{
    for (Thread &t : threads)
        if (t.uc)
            uc_close(t.uc);
}

std::unique_ptr<Core> make_iss_core(const sc_core::sc_module_name &name, Soc &soc, const Cluster &cluster,
                                    unsigned index, unsigned cluster_index, unsigned core_in_cluster, unsigned first_pe,
                                    bool attached)
{
    return std::make_unique<Aarch64Iss>(name, soc, cluster, index, cluster_index, core_in_cluster, first_pe, attached);
}

}  // namespace pmvp::soc
