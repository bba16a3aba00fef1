/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pmvp platform's contract with its firmware (docs/FIRMWARE.md, "The
 * platform the firmware sees" and "What the ISS does"), checked by a guest:
 *
 * - irq-on-unmask: an interrupt pending while PSTATE.I masks it is taken
 *   where the guest unmasks it (MSR DAIFClr, MSR DAIF, ERET), before the
 *   next instruction: the interrupt request is a level (D13.3.1).
 * - access-timing: a load right after an MRS is timed at its own
 *   instruction, whichever register the MRS read (PMU or AMU).
 * - smt-doorbell-wake: a doorbell rung by the sibling thread wakes a WFI at
 *   the instant of the ring.
 * - dvfs-split: across a DVFS step, the instructions after it retire on
 *   the new clock, so a loop at CPI c takes exactly c cycles an instruction
 *   on either side of the step (run it with the scenario's `dvfs`).
 *
 * Every instant is an instruction's: the loads this suite times come right
 * after an MRS, which the ISS times exactly.
 */
#include "expect.h"
#include "runtime.h"
#include "sysctl.h"

#define PMCR_E (1u << 0)
#define PMCR_C (1u << 2)
#define PMU_C (1u << 31)
#define EV_SW_INCR 0x00
#define EV_INST_RETIRED 0x08
#define AMCNTENSET0_EL0 S3_3_C13_C2_5
#define AMCNTENCLR0_EL0 S3_3_C13_C2_4
#define AMEVCNTR00_EL0 S3_3_C13_C4_0 /* CPU_CYCLES */
#define AMEVCNTR01_EL0 S3_3_C13_C4_1 /* CNT_CYCLES */
/* The EXT64 PMU frame and the AMU frame. */
#define PMU_PMCCNTR 0x0F8u
#define AMU_AMEVCNTR00 0x000u
#define TIME (SYSCTL_BASE + SYSCTL_TIME)
#define PSTATE_EL1H_I_CLEAR 0x345u /* EL1h, D, A and F masked, I clear */

static uint64_t cpi, instruction_ps;

static void pmu_reset(void)
{
    SYSREG_WRITE(pmcntenclr_el0, ~0ull);
    SYSREG_WRITE(pmintenclr_el1, ~0ull);
    SYSREG_WRITE(pmovsclr_el0, ~0ull);
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_C);
    ISB();
}

/* ---- irq-on-unmask */

static volatile uint64_t irq_count, irq_elr;

static void record_irq(void)
{
    irq_count++;
    irq_elr = SYSREG_READ(elr_el1);
    SYSREG_WRITE(pmovsclr_el0, 1); /* PMUIRQ falls */
    ISB();
}

/* PMUIRQ high with PSTATE.I set: SW_INCR counter 0 wraps with its
 * interrupt enabled. */
static void raise_masked_pmuirq(void)
{
    pmu_reset();
    SYSREG_WRITE(pmselr_el0, 0);
    SYSREG_WRITE(pmxevtyper_el0, EV_SW_INCR);
    SYSREG_WRITE(pmxevcntr_el0, 0xFFFFFFFFu);
    SYSREG_WRITE(pmintenset_el1, 1);
    SYSREG_WRITE(pmcntenset_el0, 1);
    SYSREG_WRITE(pmswinc_el0, 1);
    ISB();
    irq_count = 0;
    irq_elr = 0;
}

#define TWO_HUNDRED_NOPS ".rept 200\n\tnop\n\t.endr\n\t"

static void irq_on_unmask(void)
{
    const char *name = "irq-on-unmask";
    bool ok = true;
    uint64_t after;
    rt_set_irq_handler(record_irq);
    rt_irq_enable(IRQ_PMU);

    raise_masked_pmuirq();
    EXPECT_EQ(rt_irq_status() & IRQ_PMU, IRQ_PMU, "PMUIRQ is high while masked");
    EXPECT_EQ(irq_count, 0, "nothing is taken while PSTATE.I is set");
    __asm__ volatile("adr %0, 1f\n\tmsr daifclr, #2\n1:\t" TWO_HUNDRED_NOPS "msr daifset, #2"
                     : "=&r"(after)
                     :
                     : "memory");
    EXPECT_EQ(irq_count, 1, "MSR DAIFClr: taken once");
    EXPECT_EQ(irq_elr, after, "MSR DAIFClr: taken before the next instruction");

    raise_masked_pmuirq();
    __asm__ volatile("adr %0, 1f\n\tmsr daif, xzr\n1:\t" TWO_HUNDRED_NOPS "msr daifset, #15"
                     : "=&r"(after)
                     :
                     : "memory");
    EXPECT_EQ(irq_count, 1, "MSR DAIF: taken once");
    EXPECT_EQ(irq_elr, after, "MSR DAIF: taken before the next instruction");

    raise_masked_pmuirq();
    __asm__ volatile("adr %0, 1f\n\tmsr elr_el1, %0\n\tmov x9, %1\n\tmsr spsr_el1, x9\n\teret\n1:\t" TWO_HUNDRED_NOPS
                     "msr daifset, #2"
                     : "=&r"(after)
                     : "i"(PSTATE_EL1H_I_CLEAR)
                     : "x9", "memory");
    EXPECT_EQ(irq_count, 1, "ERET: taken once");
    EXPECT_EQ(irq_elr, after, "ERET: taken at its target, before its first instruction");

    rt_irq_enable(0);
    rt_set_irq_handler(0);
    pmu_reset();
    report(name, ok);
}

/* ---- access-timing */

static bool has_amu(void)
{
    return (SYSREG_READ(id_aa64pfr0_el1) >> 44 & 0xF) != 0;
}

static void access_timing(void)
{
    const char *name = "access-timing";
    bool ok = true;
    const unsigned g = rt_soc_pe();
    pmu_reset();
    SYSREG_WRITE(pmcntenset_el0, PMU_C);
    ISB();
    uint64_t mrs, load;
    __asm__ volatile("mrs %0, pmccntr_el0\n\tldr %1, [%2]"
                     : "=&r"(mrs), "=&r"(load)
                     : "r"(PMU_FRAME(g) + PMU_PMCCNTR)
                     : "memory");
    EXPECT_EQ(load - mrs, cpi, "PMU.PMCCNTR_EL0 loaded right after MRS PMCCNTR_EL0: one instruction later");
    if (!has_amu()) {
        rt_puts("SKIP access-timing (AMU): ID_AA64PFR0_EL1.AMU is 0\n");
        report(name, ok);
        return;
    }
    SYSREG_WRITE(AMCNTENSET0_EL0, 1); /* CPU_CYCLES */
    ISB();
    __asm__ volatile("mrs %0, " RT_STR(AMEVCNTR00_EL0) "\n\tldr %1, [%2]"
                     : "=&r"(mrs), "=&r"(load)
                     : "r"(AMU_FRAME(g) + AMU_AMEVCNTR00)
                     : "memory");
    EXPECT_EQ(load - mrs, cpi, "AMU.AMEVCNTR00 loaded right after MRS AMEVCNTR00_EL0: one instruction later");
    uint64_t t1, t2;
    __asm__ volatile("mrs xzr, pmccntr_el0\n\tldr %0, [%2]\n\tmrs xzr, " RT_STR(AMEVCNTR01_EL0) "\n\tldr %1, [%2]"
                     : "=&r"(t1), "=&r"(t2)
                     : "r"(TIME)
                     : "memory");
    EXPECT_EQ(t2 - t1, 2 * instruction_ps, "TIME after MRS PMCCNTR_EL0, then after MRS AMEVCNTR01_EL0");
    SYSREG_WRITE(AMCNTENCLR0_EL0, 1);
    rt_puts("  ");
    rt_put_dec(load - mrs);
    rt_puts(" cycles from an MRS to the load after it, TIME loads ");
    rt_put_dec(t2 - t1);
    rt_puts(" ps apart\n");
    report(name, ok);
}

/* ---- smt-doorbell-wake */

static void spin(uint64_t n)
{
    __asm__ volatile("1:\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
}

static volatile uint64_t rang_at;

/* On the sibling: after `delay` loop iterations (PE 0 is asleep by then),
 * ring PE 0's doorbell; the TIME load and the store each follow an MRS, so
 * the ring is at TIME + 2 instructions. */
static void ring_pe0(uint64_t delay)
{
    spin(delay);
    uint64_t t;
    __asm__ volatile("mrs xzr, pmccntr_el0\n\tldr %0, [%1]\n\tmrs xzr, pmccntr_el0\n\tstr wzr, [%2]"
                     : "=&r"(t)
                     : "r"(TIME), "r"(SYSCTL_BASE + SYSCTL_DOORBELL_SET)
                     : "memory");
    rang_at = t + 2 * instruction_ps;
}

static void smt_doorbell_wake(void)
{
    const char *name = "smt-doorbell-wake";
    bool ok = true;
    if (rt_threads() < 2 || rt_num_pes() < 2) {
        rt_puts("SKIP smt-doorbell-wake: no sibling thread\n");
        return;
    }
    for (uint64_t delay = 25000; delay <= 45000; delay += 10000) { /* past PE 0's WFI */
        rt_irq_enable(IRQ_DOORBELL);
        mmio_write32(SYSCTL_BASE + SYSCTL_DOORBELL_CLEAR, 1);
        rt_start_on(1, ring_pe0, delay); /* thread 1 of this core */
        uint64_t woke;
        /* WFI, then TIME one instruction after the wake-up's first. */
        __asm__ volatile("wfi\n\tmrs xzr, pmccntr_el0\n\tldr %0, [%1]" : "=&r"(woke) : "r"(TIME) : "memory");
        rt_wait_on(1);
        mmio_write32(SYSCTL_BASE + SYSCTL_DOORBELL_CLEAR, 1);
        rt_irq_enable(0);
        EXPECT_EQ(woke, rang_at + instruction_ps, "woken at the ring's instant");
        rt_puts("  rang at ");
        rt_put_dec(rang_at);
        rt_puts(" ps, woke at ");
        rt_put_dec(woke - instruction_ps);
        rt_puts(" ps\n");
    }
    report(name, ok);
}

/* ---- dvfs-split */

/* n iterations of one 32-instruction block. */
static void block_loop(uint64_t n)
{
    __asm__ volatile("1:\t.rept 30\n\tadd x9, x9, #1\n\t.endr\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "x9", "cc");
}

static void dvfs_split(void)
{
    const char *name = "dvfs-split";
    bool ok = true;
    unsigned steps = 0;
    for (; steps < 2; steps++) {
        pmu_reset();
        SYSREG_WRITE(pmselr_el0, 0);
        SYSREG_WRITE(pmxevtyper_el0, EV_INST_RETIRED);
        SYSREG_WRITE(pmcntenset_el0, PMU_C | 1);
        ISB();
        const uint64_t hz = rt_core_hz();
        uint64_t c0, i0, c1, i1;
        __asm__ volatile("mrs %0, pmccntr_el0\n\tmrs %1, pmevcntr0_el0" : "=&r"(c0), "=&r"(i0));
        unsigned rounds = 0;
        while (rt_core_hz() == hz && rounds++ < 1000)
            block_loop(100);
        __asm__ volatile("mrs %0, pmccntr_el0\n\tmrs %1, pmevcntr0_el0" : "=&r"(c1), "=&r"(i1));
        if (rounds > 1000)
            break;
        EXPECT_EQ(c1 - c0, (i1 - i0) * cpi, "cycles across the step: CPI a retired instruction");
        rt_puts("  ");
        rt_put_dec(hz);
        rt_puts(" -> ");
        rt_put_dec(rt_core_hz());
        rt_puts(" Hz: ");
        rt_put_dec(i1 - i0);
        rt_puts(" instructions, ");
        rt_put_dec(c1 - c0);
        rt_puts(" cycles\n");
    }
    pmu_reset();
    if (steps == 0) {
        rt_puts("SKIP dvfs-split: the core's clock did not change within 3.2 million instructions\n");
        return;
    }
    report(name, ok);
}

int suite_main(void)
{
    cpi = rt_cpi();
    instruction_ps = cpi * 1000000000000ull / rt_core_hz();
    rt_banner("pmvp platform contract");
    irq_on_unmask();
    access_timing();
    smt_doorbell_wake();
    dvfs_split();
    return expect_summary();
}
