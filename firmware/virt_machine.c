/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The virt machine's devices as a guest sees them (docs/FIRMWARE.md, "The
 * virt machine"), each count or instant stated and checked: the PL011, the
 * GICv2 (an SGI to itself, the generic timer's PPI at its instant through
 * WFI and IAR/EOIR), PSCI (CPU_ON of PE 1, AFFINITY_INFO, CPU_OFF) and a
 * fetch from an address where nothing is (a synchronous external abort),
 * a round trip to EL0 (ERET, SVC) counted by counters filtered to EL0
 * and to EL1, code one PE rewrites while another runs it, a
 * translation one PE changes while another uses it, a breakpoint,
 * software step and a watchpoint at EL1, interrupt traffic (the PMU's,
 * the timer's, SGIs), and semihosting.
 * Built with platform_virt.c; run by platform/scenarios/firmware-virt-machine.json
 * (2 PEs, 1 GHz, one instruction per cycle, a 100 MHz System Counter).
 */
#include "expect.h"
#include "runtime.h"

#define UART 0x09000000ul
#define UARTFR (UART + 0x18)
#define UARTPERIPHID0 (UART + 0xFE0)
#define GICD 0x08000000ul
#define GICD_TYPER (GICD + 0x004)
#define GICD_ISENABLER0 (GICD + 0x100)
#define GICD_ICENABLER0 (GICD + 0x180)
#define GICD_ISPENDR0 (GICD + 0x200)
#define GICD_IPRIORITYR(n) (GICD + 0x400 + (n))
#define GICD_SGIR (GICD + 0xF00)
#define GICD_CTLR (GICD + 0x000)
#define GICC 0x08010000ul
#define GICC_CTLR (GICC + 0x00)
#define GICC_PMR (GICC + 0x04)
#define GICC_IAR (GICC + 0x0C)
#define GICC_EOIR (GICC + 0x10)
#define GICC_RPR (GICC + 0x14)
#define GICC_HPPIR (GICC + 0x18)
#define INTID_VTIMER 27u
#define SPURIOUS 1023u

#define PSCI_AFFINITY_INFO 0xC4000004ul
#define PSCI_CPU_ON 0xC4000003ul
#define PSCI_CPU_OFF 0x84000002ul
#define PSCI_VERSION 0x84000000ul

static uint64_t psci(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
    register uint64_t x0 __asm__("x0") = fn, x1 __asm__("x1") = a1, x2 __asm__("x2") = a2, x3 __asm__("x3") = a3;
    __asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : : "memory");
    return x0;
}

/* The PL011 as a driver probes it: its PrimeCell identity, a transmit FIFO
 * that never fills and an empty receive FIFO. */
static void uart_probe(void)
{
    const char *name = "virt-uart-probe";
    bool ok = true;
    const uint8_t ids[8] = { 0x11, 0x10, 0x14, 0x00, 0x0D, 0xF0, 0x05, 0xB1 };
    for (unsigned i = 0; i < 8; i++)
        EXPECT_EQ(mmio_read32(UARTPERIPHID0 + 4 * i), ids[i], "UARTPeriphID/PCellID");
    EXPECT_EQ(mmio_read32(UARTFR) & 0xB0, 0x90, "UARTFR: TXFE and RXFE set, TXFF clear");
    report(name, ok);
}

/* An SGI to this PE (GICD_SGIR TargetListFilter 0b10): pending at once,
 * acknowledged with its sender in IAR, the running priority its priority
 * until EOIR, then idle again. Interrupts stay masked: the GIC is polled. */
static void gic_sgi_self(void)
{
    const char *name = "virt-gic-sgi-self";
    bool ok = true;
    EXPECT_EQ(mmio_read32(GICD_TYPER) & 0x1F, 8, "GICD_TYPER.ITLinesNumber: 288 INTIDs");
    *(volatile uint8_t *)GICD_IPRIORITYR(5) = 0x40;
    mmio_write32(GICD_SGIR, 2u << 24 | 5);
    EXPECT_EQ(mmio_read32(GICC_HPPIR), 5, "GICC_HPPIR: SGI 5 from CPU 0");
    uint32_t iar = mmio_read32(GICC_IAR);
    EXPECT_EQ(iar, 5, "GICC_IAR: SGI 5, sender CPU 0");
    EXPECT_EQ(mmio_read32(GICC_RPR), 0x40, "GICC_RPR while SGI 5 is active");
    EXPECT_EQ(mmio_read32(GICC_IAR), SPURIOUS, "GICC_IAR: nothing else pending");
    mmio_write32(GICC_EOIR, iar);
    EXPECT_EQ(mmio_read32(GICC_RPR), 0xFF, "GICC_RPR after EOIR: idle");
    report(name, ok);
}

/* The virtual timer's interrupt at its instant: CNTV_CVAL 2,000 ticks (20 us
 * at 100 MHz) ahead, a WFI with PSTATE.I set wakes when the GIC signals
 * PPI 27, and the PE reads the counter right after: CVAL, the tick the
 * timer fired at (a tick is 10 instructions here, the reads take fewer). */
static void timer_at_its_instant(void)
{
    const char *name = "virt-timer-instant";
    bool ok = true;
    *(volatile uint8_t *)GICD_IPRIORITYR(INTID_VTIMER) = 0x80;
    mmio_write32(GICD_ISENABLER0, 1u << INTID_VTIMER);
    uint64_t cval = SYSREG_READ(cntvct_el0) + 2000;
    SYSREG_WRITE(cntv_cval_el0, cval);
    SYSREG_WRITE(cntv_ctl_el0, 1); /* ENABLE, not masked */
    ISB();
    EXPECT_EQ(mmio_read32(GICD_ISPENDR0) >> INTID_VTIMER & 1, 0, "PPI 27 not pending before CVAL");
    __asm__ volatile("wfi" : : : "memory");
    uint64_t woke = SYSREG_READ(cntvct_el0);
    EXPECT_EQ(woke, cval, "CNTVCT_EL0 right after the wake: the timer's tick");
    EXPECT_EQ(SYSREG_READ(cntv_ctl_el0), 5, "CNTV_CTL_EL0: ENABLE and ISTATUS");
    uint32_t iar = mmio_read32(GICC_IAR);
    EXPECT_EQ(iar, INTID_VTIMER, "GICC_IAR: the virtual timer's PPI");
    SYSREG_WRITE(cntv_ctl_el0, 0);
    ISB();
    mmio_write32(GICC_EOIR, iar);
    EXPECT_EQ(mmio_read32(GICD_ISPENDR0) >> INTID_VTIMER & 1, 0, "PPI 27 not pending once the timer is off");
    mmio_write32(GICD_ICENABLER0, 1u << INTID_VTIMER);
    report(name, ok);
}

static volatile uint64_t pe1_ran, pe1_mpidr;

static void on_pe1(uint64_t arg)
{
    pe1_mpidr = SYSREG_READ(mpidr_el1);
    pe1_ran = arg;
}

/* PSCI: PE 1 is off until CPU_ON, runs its job on its own stack, and is off
 * again after its CPU_OFF (rt_secondary). */
static void psci_cpu_on(void)
{
    const char *name = "virt-psci-cpu-on";
    bool ok = true;
    EXPECT_EQ(psci(PSCI_VERSION, 0, 0, 0) >> 16, 1, "PSCI_VERSION: 1.x");
    EXPECT_EQ(psci(PSCI_AFFINITY_INFO, 1, 0, 0), 1, "AFFINITY_INFO of PE 1 before CPU_ON: OFF");
    rt_start_on(1, on_pe1, 42);
    rt_wait_on(1);
    EXPECT_EQ(pe1_ran, 42, "PE 1 ran its job");
    EXPECT_EQ(pe1_mpidr & 0xFFFFFF, 1, "PE 1's MPIDR_EL1 affinity");
    EXPECT_EQ(psci(PSCI_AFFINITY_INFO, 1, 0, 0), 1, "AFFINITY_INFO of PE 1 after its CPU_OFF: OFF");
    EXPECT_EQ(psci(PSCI_AFFINITY_INFO, 7, 0, 0), (uint64_t)-2, "AFFINITY_INFO of no PE: INVALID_PARAMETERS");
    report(name, ok);
}

static volatile uint64_t abort_esr, abort_far, resume_at;

static bool on_abort(uint64_t esr)
{
    abort_esr = esr;
    abort_far = SYSREG_READ(far_el1);
    SYSREG_WRITE(elr_el1, resume_at - 4); /* the runtime adds 4 */
    return true;
}

/* A branch to an address where nothing is: a synchronous external abort
 * on the instruction fetch, ELR and FAR the address. */
static void fetch_from_nothing(void)
{
    const char *name = "virt-fetch-abort";
    bool ok = true;
    rt_set_sync_handler(on_abort);
    const uint64_t nowhere = 0x0E000000; /* nothing here, on QEMU's virt either */
    __asm__ volatile("adr x9, 1f\n\t"
                     "str x9, %0\n\t"
                     "br %1\n"
                     "1:"
                     : "=m"(resume_at)
                     : "r"(nowhere)
                     : "x9", "memory");
    rt_set_sync_handler(0);
    EXPECT_EQ(abort_esr >> 26, 0x21, "ESR_EL1.EC: Instruction Abort from the same EL");
    EXPECT_EQ(abort_esr & 0x3F, 0x10, "ESR_EL1.IFSC: synchronous external abort");
    EXPECT_EQ(abort_far, nowhere, "FAR_EL1");
    report(name, ok);
}

/* The EL0 side of the round trip: x0 iterations of a 4-instruction loop,
 * then SVC #7: 4 x N + 1 instructions at EL0. el0_call(n, code, stack)
 * enters it at EL0t by an exception return, keeping the callee-saved
 * registers on its own stack, and returns where on_el0 sends the SVC's
 * exception back to (el0_back, at EL1h). */
__asm__(".text\n"
        ".balign 4\n"
        "el0_loop:\n"
        "1:  add x1, x1, #1\n"
        "    add x2, x2, #1\n"
        "    subs x0, x0, #1\n"
        "    b.ne 1b\n"
        "el0_svc:\n"
        "    svc #7\n"
        "    b .\n"
        ".balign 4\n"
        "el0_call:\n"
        "    stp x29, x30, [sp, #-96]!\n"
        "    stp x19, x20, [sp, #16]\n"
        "    stp x21, x22, [sp, #32]\n"
        "    stp x23, x24, [sp, #48]\n"
        "    stp x25, x26, [sp, #64]\n"
        "    stp x27, x28, [sp, #80]\n"
        "    msr sp_el0, x2\n"
        "    msr elr_el1, x1\n"
        "    mov x3, #0x3c0\n" /* EL0t, DAIF masked */
        "    msr spsr_el1, x3\n"
        "    eret\n"
        "el0_back:\n"
        "    ldp x19, x20, [sp, #16]\n"
        "    ldp x21, x22, [sp, #32]\n"
        "    ldp x23, x24, [sp, #48]\n"
        "    ldp x25, x26, [sp, #64]\n"
        "    ldp x27, x28, [sp, #80]\n"
        "    ldp x29, x30, [sp], #96\n"
        "    ret\n");
extern char el0_loop[], el0_svc[], el0_back[];
void el0_call(uint64_t n, void *code, void *stack);

static volatile uint64_t el0_esr, el0_elr, el0_spsr;
static uint64_t el0_stack[64] __attribute__((aligned(16)));

static void on_el0(uint64_t esr)
{
    el0_esr = esr;
    el0_elr = SYSREG_READ(elr_el1);
    el0_spsr = SYSREG_READ(spsr_el1);
    SYSREG_WRITE(elr_el1, (uint64_t)el0_back);
    SYSREG_WRITE(spsr_el1, 0x3C5); /* EL1h, DAIF masked */
}

/* ERET to EL0, a loop, SVC back to EL1: INST_RETIRED filtered to EL0
 * (PMEVTYPER.P) counts the loop and the SVC exactly, the cycle counter so
 * filtered (PMCCFILTR_EL0.P) their cycles, and INST_RETIRED filtered to
 * EL1 (PMEVTYPER.U) none of them; the SVC's syndrome and return address. */
static void el0_round_trip(void)
{
    const char *name = "virt-el0-round-trip";
    bool ok = true;
    const uint64_t n = 1000, at_el0 = 4 * n + 1, inst_retired = 0x08, p = 1ull << 31, u = 1ull << 30;
    rt_set_lower_handler(on_el0);
    SYSREG_WRITE(pmevtyper0_el0, inst_retired | p);
    SYSREG_WRITE(pmevtyper1_el0, inst_retired | u);
    SYSREG_WRITE(pmccfiltr_el0, p);
    SYSREG_WRITE(pmcntenset_el0, 0x80000003ul);
    SYSREG_WRITE(pmcr_el0, SYSREG_READ(pmcr_el0) | 7); /* E, P, C: enabled, counters reset */
    ISB();
    el0_call(n, el0_loop, el0_stack + 64);
    SYSREG_WRITE(pmcr_el0, SYSREG_READ(pmcr_el0) & ~1ull);
    ISB();
    rt_set_lower_handler(0);
    EXPECT_EQ(SYSREG_READ(pmevcntr0_el0), at_el0, "INST_RETIRED at EL0: the loop and the SVC");
    EXPECT_EQ(SYSREG_READ(pmccntr_el0), at_el0 * rt_cpi(), "PMCCNTR at EL0: their cycles");
    uint64_t at_el1 = SYSREG_READ(pmevcntr1_el0);
    EXPECT_TRUE(at_el1 > 0 && at_el1 < 200, "INST_RETIRED at EL1: the code around the trip only");
    EXPECT_EQ(el0_esr, 0x56000007ul, "ESR_EL1: SVC #7 from AArch64 (EC 0x15, IL)");
    EXPECT_EQ(el0_elr, (uint64_t)el0_svc + 4, "ELR_EL1: the instruction after the SVC");
    EXPECT_EQ(el0_spsr & 0xF, 0, "SPSR_EL1.M: EL0t");
    report(name, ok);
}

/* Code one PE writes and another runs. Each PE is an engine with its own
 * translations: PE 0 rewrites a function PE 1 is calling in a loop, makes
 * the change visible as the architecture asks (DC CVAU, DSB ISH, IC IVAU,
 * DSB ISH, then PE 1's ISB), and PE 1 must run the new code. */
#define MOVZ_W0(imm) (0x52800000u | (uint32_t)(imm) << 5)
#define RET 0xd65f03c0u
static uint32_t shared_code[16] __attribute__((aligned(64)));
static volatile uint64_t code_calls, code_patched, code_before, code_after;

/* PE 1 runs `job` (counting its rounds in `rounds`) until `*changed`; PE 0
 * waits for its 100th round, makes `change` and sets `*changed`. */
static void change_under_pe1(rt_job job, volatile uint64_t *rounds, void (*change)(void), volatile uint64_t *changed)
{
    rt_start_on(1, job, 0);
    while (*rounds < 100) /* PE 1 has translated and run the old */
        ;
    change();
    *changed = 1;
    rt_wait_on(1);
}

static void make_visible(volatile uint32_t *at)
{
    __asm__ volatile("dc cvau, %0\n dsb ish\n ic ivau, %0\n dsb ish\n isb" : : "r"(at) : "memory");
}

static void call_until_patched(uint64_t arg)
{
    uint64_t (*f)(void) = (uint64_t(*)(void))(uintptr_t)shared_code;
    (void)arg;
    while (!code_patched) {
        uint64_t r = f();
        if (code_calls++ == 0)
            code_before = r; /* later calls may see the change as it is made */
    }
    ISB();
    code_after = f();
}

static void patch_code(void)
{
    shared_code[0] = MOVZ_W0(2);
    make_visible(shared_code);
}

static void code_across_pes(void)
{
    const char *name = "virt-code-across-pes";
    bool ok = true;
    volatile uint32_t *code = shared_code;
    code[0] = MOVZ_W0(1);
    code[1] = RET;
    make_visible(code);
    change_under_pe1(call_until_patched, &code_calls, patch_code, &code_patched);
    EXPECT_EQ(code_before, 1, "PE 1's first call: the old code");
    EXPECT_EQ(code_after, 2, "PE 1 after PE 0's patch and its own ISB: the new code");
    report(name, ok);
}

/* A translation one PE changes while another uses it. PE 1 turns its MMU on
 * (one level-1 table: the devices' gigabyte, RAM's, and VA 0x80000000's
 * 2 MiB through a level-2 table) and reads VA 0x80000000 in a loop; PE 0,
 * its MMU off, points that block at other RAM and invalidates with TLBI
 * VAE1IS, which reaches every PE: PE 1 must then read the new page. */
#define TEST_VA 0x80000000ul
#define BLOCK_X 0x42000000ul /* 2 MiB blocks of RAM past the image */
#define BLOCK_Y 0x42200000ul
#define ATTR_DEVICE (0ul << 2)
#define ATTR_NORMAL ((1ul << 2) | (3ul << 8)) /* MAIR index 1, Inner Shareable */
#define BLOCK_AF ((1ul << 10) | 1)            /* Access flag, a block descriptor */
static uint64_t level1[512] __attribute__((aligned(4096)));
static uint64_t level2[512] __attribute__((aligned(4096)));
static volatile uint64_t tlb_reads, tlb_patched, tlb_before, tlb_after;

static void read_through_mmu(uint64_t arg)
{
    volatile uint64_t *at = (volatile uint64_t *)TEST_VA;
    (void)arg;
    SYSREG_WRITE(mair_el1, 0xFF00ul);                        /* 0: Device-nGnRnE, 1: Normal write-back */
    SYSREG_WRITE(tcr_el1, 25ul | (1ul << 23) | (2ul << 32)); /* T0SZ 25 (level 1 first), EPD1, 40-bit PA */
    SYSREG_WRITE(ttbr0_el1, (uint64_t)level1);
    __asm__ volatile("dsb ish\n tlbi vmalle1\n dsb ish\n isb" : : : "memory");
    SYSREG_WRITE(sctlr_el1, SYSREG_READ(sctlr_el1) | 1);
    ISB();
    while (!tlb_patched) {
        uint64_t r = *at;
        if (tlb_reads++ == 0)
            tlb_before = r; /* later reads may see the change as it is made */
    }
    ISB();
    tlb_after = *at;
    SYSREG_WRITE(sctlr_el1, SYSREG_READ(sctlr_el1) & ~1ul);
    ISB();
}

static void repoint_block(void)
{
    level2[0] = BLOCK_Y | ATTR_NORMAL | BLOCK_AF;
    __asm__ volatile("dsb ish\n tlbi vae1is, %0\n dsb ish\n isb" : : "r"(TEST_VA >> 12) : "memory");
}

static void translation_across_pes(void)
{
    const char *name = "virt-tlbi-across-pes";
    bool ok = true;
    *(volatile uint64_t *)BLOCK_X = 0x1111;
    *(volatile uint64_t *)BLOCK_Y = 0x2222;
    level1[0] = 0x00000000ul | ATTR_DEVICE | BLOCK_AF;
    level1[1] = 0x40000000ul | ATTR_NORMAL | BLOCK_AF;
    level1[2] = (uint64_t)level2 | 3; /* a table descriptor */
    level2[0] = BLOCK_X | ATTR_NORMAL | BLOCK_AF;
    __asm__ volatile("dsb ish" : : : "memory");
    change_under_pe1(read_through_mmu, &tlb_reads, repoint_block, &tlb_patched); /* PE 1's TLB held X */
    EXPECT_EQ(tlb_before, 0x1111, "PE 1's first read: block X");
    EXPECT_EQ(tlb_after, 0x2222, "PE 1 after PE 0's TLBI VAE1IS: block Y");
    report(name, ok);
}

/* Self-hosted debug at EL1 (MDSCR_EL1.KDE, PSTATE.D clear): a breakpoint
 * in mid-block and software step, each exception's syndrome and return
 * address; the handler returns with SPSR_EL1.D (breakpoint: the
 * instruction then runs) or SPSR_EL1.SS (step: one instruction runs). */
#define MDSCR_SS 1ul
#define MDSCR_KDE (1ul << 13)
#define MDSCR_MDE (1ul << 15)
#define SPSR_D (1ul << 9)
#define SPSR_SS (1ul << 21)
static volatile uint64_t dbg_esr[4], dbg_elr[4], dbg_n, dbg_spsr_set, dbg_before;

/* Debug off again: MDSCR_EL1, breakpoint 0, watchpoint 0, no handler. */
static void debug_off(void)
{
    SYSREG_WRITE(mdscr_el1, 0);
    SYSREG_WRITE(dbgbcr0_el1, 0);
    SYSREG_WRITE(dbgwcr0_el1, 0);
    ISB();
    rt_set_sync_handler(0);
}

/* The OS Lock is set at reset (OSLSR_EL1.OSLK): debug exceptions wait for
 * its clearing. */
static void os_unlock(void)
{
    SYSREG_WRITE(oslar_el1, 0);
    ISB();
}

static bool on_debug(uint64_t esr)
{
    if (dbg_n < 4) {
        dbg_esr[dbg_n] = esr;
        dbg_elr[dbg_n] = SYSREG_READ(elr_el1);
    }
    dbg_n++;
    SYSREG_WRITE(spsr_el1, SYSREG_READ(spsr_el1) | dbg_spsr_set);
    SYSREG_WRITE(elr_el1, SYSREG_READ(elr_el1) - 4); /* the runtime adds 4: back to the instruction */
    return true;
}

extern char bp_site[], step0[], step1[], step2[];

/* x9 += 1, 2, 4 with a breakpoint on the second ADD: the breakpoint at its
 * PMC's Exception levels only. */
static __attribute__((noinline)) uint64_t run_breakpoint_block(uint64_t bcr)
{
    uint64_t x = 0;
    dbg_n = 0;
    SYSREG_WRITE(dbgbvr0_el1, (uint64_t)bp_site);
    SYSREG_WRITE(dbgbcr0_el1, bcr);
    SYSREG_WRITE(mdscr_el1, MDSCR_KDE | MDSCR_MDE);
    ISB();
    __asm__ volatile("msr daifclr, #8\n"
                     "add %0, %0, #1\n"
                     ".globl bp_site\nbp_site:\n"
                     "add %0, %0, #2\n"
                     "add %0, %0, #4\n"
                     "msr daifset, #8"
                     : "+r"(x)
                     :
                     : "memory");
    SYSREG_WRITE(mdscr_el1, 0);
    ISB();
    return x;
}

static void breakpoint(void)
{
    const char *name = "virt-breakpoint";
    bool ok = true;
    const uint64_t e = 1, pmc_el1 = 1ul << 1, pmc_el0 = 2ul << 1, bas = 0xFul << 5;
    os_unlock();
    rt_set_sync_handler(on_debug);
    dbg_spsr_set = SPSR_D;
    uint64_t x = run_breakpoint_block(bas | pmc_el1 | e); /* once: EXPECT_EQ reads its value twice */
    EXPECT_EQ(x, 7, "every ADD ran once");
    EXPECT_EQ(dbg_n, 1, "one Breakpoint exception");
    EXPECT_EQ(dbg_esr[0], 0xC6000022ul, "ESR_EL1: EC 0x31 (same EL), IL, IFSC 0x22 (debug)");
    EXPECT_EQ(dbg_elr[0], (uint64_t)bp_site, "ELR_EL1: the instruction, not executed");
    x = run_breakpoint_block(bas | pmc_el0 | e);
    EXPECT_EQ(x, 7, "PMC EL0 only: every ADD ran once");
    EXPECT_EQ(dbg_n, 0, "PMC EL0 only: no Breakpoint exception at EL1");
    debug_off();
    report(name, ok);
}

/* MDSCR_EL1.SS with PSTATE.SS clear: the step is pending before the first
 * instruction after the unmask (ESR.ISV 0); each return with SPSR.SS runs
 * one instruction and steps after it (ISV 1); after the MSR that sets
 * PSTATE.D no step is taken. */
static __attribute__((noinline)) void software_step(void)
{
    const char *name = "virt-software-step";
    bool ok = true;
    uint64_t x = 0;
    os_unlock();
    rt_set_sync_handler(on_debug);
    dbg_spsr_set = SPSR_SS;
    dbg_n = 0;
    SYSREG_WRITE(mdscr_el1, MDSCR_KDE | MDSCR_SS);
    ISB();
    __asm__ volatile("msr daifclr, #8\n"
                     ".globl step0\nstep0:\n"
                     "add %0, %0, #1\n"
                     ".globl step1\nstep1:\n"
                     "add %0, %0, #2\n"
                     ".globl step2\nstep2:\n"
                     "msr daifset, #8\n"
                     "add %0, %0, #4"
                     : "+r"(x)
                     :
                     : "memory");
    debug_off();
    EXPECT_EQ(x, 7, "every ADD ran once");
    EXPECT_EQ(dbg_n, 3, "three Software Step exceptions");
    EXPECT_EQ(dbg_esr[0], 0xCE000022ul, "ESR_EL1 of the pending step: EC 0x33, IL, ISV 0, IFSC 0x22");
    EXPECT_EQ(dbg_elr[0], (uint64_t)step0, "ELR_EL1 of the pending step: the first instruction");
    EXPECT_EQ(dbg_esr[1], 0xCF000022ul, "ESR_EL1 of a completed step: ISV 1, EX 0");
    EXPECT_EQ(dbg_elr[1], (uint64_t)step1, "ELR_EL1: the instruction after the one stepped");
    EXPECT_EQ(dbg_elr[2], (uint64_t)step2, "ELR_EL1: the next");
    report(name, ok);
}

/* A watchpoint on one byte for stores at EL1 (DBGWCR: E, PAC EL1, LSC
 * store, BAS the byte): a store to it takes the Watchpoint exception before
 * the store (the handler returns with SPSR_EL1.D and the store then runs),
 * a load of it and a store to the next byte do not. */
static volatile uint8_t watched[16] __attribute__((aligned(8)));
static uint64_t dbg_far;

static bool on_watchpoint(uint64_t esr)
{
    dbg_far = SYSREG_READ(far_el1);
    dbg_esr[0] = esr;
    dbg_elr[0] = SYSREG_READ(elr_el1);
    dbg_before = watched[3];
    dbg_n++;
    SYSREG_WRITE(spsr_el1, SYSREG_READ(spsr_el1) | SPSR_D);
    SYSREG_WRITE(elr_el1, SYSREG_READ(elr_el1) - 4); /* the runtime adds 4: back to the store */
    return true;
}

extern char watched_store[];

static __attribute__((noinline)) void watchpoint(void)
{
    const char *name = "virt-watchpoint";
    bool ok = true;
    const uint64_t e = 1, pac_el1 = 1ul << 1, lsc_store = 2ul << 3, bas_byte3 = 1ul << (5 + 3);
    os_unlock();
    rt_set_sync_handler(on_watchpoint);
    dbg_n = 0;
    watched[3] = 0x11;
    SYSREG_WRITE(dbgwvr0_el1, (uint64_t)watched);
    SYSREG_WRITE(dbgwcr0_el1, bas_byte3 | lsc_store | pac_el1 | e);
    SYSREG_WRITE(mdscr_el1, MDSCR_KDE | MDSCR_MDE);
    ISB();
    uint8_t loaded;
    __asm__ volatile("msr daifclr, #8\n"
                     "ldrb %w0, [%1, #3]\n" /* a load: LSC is store only */
                     "strb %w2, [%1, #4]\n" /* the next byte: not in BAS */
                     ".globl watched_store\nwatched_store:\n"
                     "strb %w2, [%1, #3]\n"
                     "msr daifset, #8"
                     : "=&r"(loaded)
                     : "r"(watched), "r"(0x22)
                     : "memory");
    debug_off();
    EXPECT_EQ(loaded, 0x11, "the load, not watched");
    EXPECT_EQ(dbg_n, 1, "one Watchpoint exception");
    EXPECT_EQ(dbg_esr[0], 0xD6000062ul, "ESR_EL1: EC 0x35 (same EL), IL, WnR, DFSC 0x22 (debug)");
    EXPECT_EQ(dbg_elr[0], (uint64_t)watched_store, "ELR_EL1: the store");
    EXPECT_EQ(dbg_far, (uint64_t)&watched[3], "FAR_EL1: the byte stored to");
    EXPECT_EQ(dbg_before, 0x11, "the store had not happened at the exception");
    EXPECT_EQ(watched[3], 0x22, "it ran after the return");
    report(name, ok);
}

/* Interrupt traffic: the PMU's overflow of an INST_RETIRED counter preset
 * a random distance below it, the virtual timer at random instants and
 * SGIs to itself, all taken through the GIC while the PE works and makes
 * PSCI calls between. Each source is served where the handler finds it
 * (PMOVSSET, CNTV_CTL.ISTATUS) and rearmed at random; the PE's report then
 * holds the largest skid, which the test checks. */
#define INTID_SGI 1u
static uint64_t traffic_seed = 0x9E3779B97F4A7C15ul;
static volatile uint64_t pmu_taken, timer_taken, sgi_sent;

static uint64_t next_random(void)
{
    traffic_seed ^= traffic_seed << 13;
    traffic_seed ^= traffic_seed >> 7;
    traffic_seed ^= traffic_seed << 17;
    return traffic_seed;
}

static void rearm_pmu(void)
{
    SYSREG_WRITE(pmevcntr0_el0, 0x100000000ul - 200 - next_random() % 3000);
}

static void rearm_timer(void)
{
    SYSREG_WRITE(cntv_cval_el0, SYSREG_READ(cntvct_el0) + 20 + next_random() % 400);
    SYSREG_WRITE(cntv_ctl_el0, 1);
}

static void on_traffic(void)
{
    if (SYSREG_READ(pmovsset_el0) & 1) {
        SYSREG_WRITE(pmovsclr_el0, 1);
        pmu_taken++;
        rearm_pmu();
    }
    if (SYSREG_READ(cntv_ctl_el0) & 4) { /* ISTATUS */
        timer_taken++;
        rearm_timer();
    }
    ISB();
}

static __attribute__((noinline)) void interrupt_traffic(void)
{
    const char *name = "virt-interrupt-traffic";
    bool ok = true;
    const uint64_t inst_retired = 0x08;
    rt_irq_enable(IRQ_PMU);
    *(volatile uint8_t *)GICD_IPRIORITYR(INTID_VTIMER) = 0x80;
    *(volatile uint8_t *)GICD_IPRIORITYR(INTID_SGI) = 0x80;
    mmio_write32(GICD_ISENABLER0, 1u << INTID_VTIMER | 1u << INTID_SGI);
    rt_set_irq_handler(on_traffic);
    SYSREG_WRITE(pmevtyper0_el0, inst_retired);
    rearm_pmu();
    SYSREG_WRITE(pmintenset_el1, 1);
    SYSREG_WRITE(pmcntenset_el0, 1);
    SYSREG_WRITE(pmcr_el0, SYSREG_READ(pmcr_el0) | 1);
    rearm_timer();
    ISB();
    rt_irq_unmask();
    volatile uint64_t work = 0;
    for (unsigned i = 0; i < 3000; i++) {
        for (uint64_t n = next_random() % 300; n; n--)
            work += n;
        switch (next_random() % 8) {
        case 0:
            mmio_write32(GICD_SGIR, 2u << 24 | INTID_SGI);
            sgi_sent++;
            break;
        case 1: psci(PSCI_VERSION, 0, 0, 0); break;
        case 2: psci(PSCI_AFFINITY_INFO, 1, 0, 0); break;
        case 3:
            rt_irq_mask();
            for (uint64_t n = next_random() % 100; n; n--)
                work += n;
            rt_irq_unmask();
            break;
        default: break;
        }
    }
    rt_irq_mask();
    SYSREG_WRITE(pmcr_el0, SYSREG_READ(pmcr_el0) & ~1ul);
    SYSREG_WRITE(pmcntenclr_el0, 1);
    SYSREG_WRITE(pmintenclr_el1, 1);
    SYSREG_WRITE(pmovsclr_el0, 1);
    SYSREG_WRITE(cntv_ctl_el0, 0);
    ISB();
    mmio_write32(GICD_ICENABLER0, 1u << INTID_VTIMER | 1u << INTID_SGI | 1u << 23);
    rt_set_irq_handler(0);
    EXPECT_TRUE(pmu_taken > 50, "PMU overflows taken");
    EXPECT_TRUE(timer_taken > 50, "timer interrupts taken");
    EXPECT_TRUE(sgi_sent > 50, "SGIs sent");
    report(name, ok);
}

/* Semihosting as newlib's rdimon uses it (each call made once: EXPECT_EQ
 * reads its value twice): the console's handles from
 * SYS_OPEN(":tt"), no host file, the command line (the scenario's
 * `append`), the heap and stack, and the clocks in simulated time. */
#define SYS_OPEN 0x01ul
#define SYS_CLOSE 0x02ul
#define SYS_WRITE 0x05ul
#define SYS_READ 0x06ul
#define SYS_ISTTY 0x09ul
#define SYS_SEEK 0x0Aul
#define SYS_FLEN 0x0Cul
#define SYS_CLOCK 0x10ul
#define SYS_TIME 0x11ul
#define SYS_ERRNO 0x13ul
#define SYS_GET_CMDLINE 0x15ul
#define SYS_HEAPINFO 0x16ul
#define SYS_ELAPSED 0x30ul
#define SYS_TICKFREQ 0x31ul
#define RAM_TOP (0x40000000ul + (128ul << 20))

static uint64_t semihost(uint64_t op, volatile void *arg)
{
    register uint64_t x0 __asm__("x0") = op;
    register uint64_t x1 __asm__("x1") = (uint64_t)arg;
    __asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
    return x0;
}

extern char __bss_end[];

/* A host file of the machine's semihosting_dir (the scenario's folder):
 * the scenario itself, read, sought, measured and closed. (EXPECT_EQ reads
 * its argument twice: each call's result is kept first.) */
static bool semihosting_file(bool ok, char *byte)
{
    const char *name = "virt-semihosting";
    static volatile uint64_t block[4];
    block[0] = (uint64_t) "firmware-virt-machine.json", block[1] = 1 /* rb */, block[2] = 26;
    const uint64_t f = semihost(SYS_OPEN, block);
    EXPECT_TRUE(f >= 4 && f != (uint64_t)-1, "SYS_OPEN of a file of the semihosting directory: a handle");
    block[0] = f;
    uint64_t r = semihost(SYS_ISTTY, block);
    EXPECT_EQ(r, 0, "SYS_ISTTY of a file");
    const uint64_t length = semihost(SYS_FLEN, block);
    EXPECT_TRUE(length > 100 && length < 4096, "SYS_FLEN: the scenario's length");
    block[0] = f, block[1] = (uint64_t)byte, block[2] = 1;
    r = semihost(SYS_READ, block);
    EXPECT_EQ(r, 0, "SYS_READ: the one byte read");
    EXPECT_EQ(byte[0], '{', "SYS_READ: the scenario's first byte");
    block[0] = f, block[1] = length - 2;
    r = semihost(SYS_SEEK, block);
    EXPECT_EQ(r, 0, "SYS_SEEK");
    block[0] = f, block[1] = (uint64_t)byte, block[2] = 4;
    r = semihost(SYS_READ, block);
    EXPECT_EQ(r, 2, "SYS_READ 2 bytes from the end: 2 of 4 not read");
    EXPECT_TRUE(byte[0] == '}' && byte[1] == '\n', "SYS_READ: the scenario's last bytes");
    block[0] = f;
    r = semihost(SYS_CLOSE, block);
    EXPECT_EQ(r, 0, "SYS_CLOSE of the file");
    r = semihost(SYS_CLOSE, block);
    EXPECT_EQ(r, (uint64_t)-1, "SYS_CLOSE again: a bad handle");
    r = semihost(SYS_ERRNO, 0);
    EXPECT_EQ(r, 9, "SYS_ERRNO: EBADF");
    return ok;
}

static __attribute__((noinline)) void semihosting_calls(void)
{
    const char *name = "virt-semihosting";
    bool ok = true;
    static volatile uint64_t block[4];
    static char text[] = "semihosting\n", line[64];
    block[0] = (uint64_t) ":tt", block[1] = 4, block[2] = 3;
    uint64_t r;
    const uint64_t out = semihost(SYS_OPEN, block);
    EXPECT_EQ(out, 2, "SYS_OPEN(\":tt\", w): the console's output handle");
    block[0] = out, block[1] = (uint64_t)text, block[2] = sizeof text - 1;
    r = semihost(SYS_WRITE, block);
    EXPECT_EQ(r, 0, "SYS_WRITE: every byte written");
    r = semihost(SYS_ISTTY, block);
    EXPECT_EQ(r, 1, "SYS_ISTTY: the console");
    block[0] = 1, block[1] = (uint64_t)line, block[2] = 8;
    r = semihost(SYS_READ, block);
    EXPECT_EQ(r, 8, "SYS_READ of the console: no input, end of file");
    block[0] = out;
    r = semihost(SYS_CLOSE, block);
    EXPECT_EQ(r, 0, "SYS_CLOSE");
    block[0] = (uint64_t) "/etc/passwd", block[1] = 0, block[2] = 11;
    r = semihost(SYS_OPEN, block);
    EXPECT_EQ(r, (uint64_t)-1, "SYS_OPEN of a host file outside the machine's semihosting_dir: refused");
    r = semihost(SYS_ERRNO, 0);
    EXPECT_EQ(r, 13, "SYS_ERRNO: EACCES");
    block[0] = (uint64_t) "../README.md", block[1] = 0, block[2] = 12;
    r = semihost(SYS_OPEN, block);
    EXPECT_EQ(r, (uint64_t)-1, "SYS_OPEN of \"..\": refused");
    ok = semihosting_file(ok, line);
    block[0] = (uint64_t)line, block[1] = sizeof line;
    r = semihost(SYS_GET_CMDLINE, block);
    EXPECT_EQ(r, 0, "SYS_GET_CMDLINE");
    EXPECT_EQ(block[1], 16, "SYS_GET_CMDLINE: the length of the scenario's append");
    EXPECT_TRUE(line[0] == 's' && line[15] == 'e' && line[16] == 0, "SYS_GET_CMDLINE: \"semihosting line\"");
    static volatile uint64_t info[4];
    block[0] = (uint64_t)info;
    r = semihost(SYS_HEAPINFO, block);
    EXPECT_EQ(r, 0, "SYS_HEAPINFO");
    EXPECT_TRUE(info[0] >= (uint64_t)__bss_end, "heap base: after the image");
    EXPECT_EQ(info[1], RAM_TOP - (1ul << 20), "heap limit: the stack's limit");
    EXPECT_EQ(info[2], RAM_TOP, "stack base: the RAM's top");
    EXPECT_EQ(info[3], RAM_TOP - (1ul << 20), "stack limit: 1 MiB below");
    r = semihost(SYS_TICKFREQ, 0);
    EXPECT_EQ(r, 100000000, "SYS_TICKFREQ: the System Counter's 100 MHz");
    const uint64_t before = SYSREG_READ(cntvct_el0);
    static volatile uint64_t ticks;
    r = semihost(SYS_ELAPSED, &ticks);
    EXPECT_EQ(r, 0, "SYS_ELAPSED");
    const uint64_t clock = semihost(SYS_CLOCK, 0), after = SYSREG_READ(cntvct_el0);
    EXPECT_TRUE(before <= ticks && ticks <= after, "SYS_ELAPSED: the System Counter");
    EXPECT_TRUE(before / 1000000 <= clock && clock <= after / 1000000, "SYS_CLOCK: centiseconds of simulated time");
    r = semihost(SYS_TIME, 0);
    EXPECT_EQ(r, after / 100000000, "SYS_TIME: seconds since the reset");
    report(name, ok);
}

int suite_main(void)
{
    rt_banner("pmvp virt machine");
    mmio_write32(GICD_CTLR, 1); /* the distributor and this CPU interface on, no priority masked */
    mmio_write32(GICC_PMR, 0xFF);
    mmio_write32(GICC_CTLR, 1);
    uart_probe();
    gic_sgi_self();
    timer_at_its_instant();
    psci_cpu_on();
    fetch_from_nothing();
    el0_round_trip();
    code_across_pes();
    translation_across_pes();
    breakpoint();
    software_step();
    watchpoint();
    interrupt_traffic();
    semihosting_calls();
    return expect_summary();
}
