/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A PMUv3 and AMUv1 conformance suite for bare-metal AArch64 at EL1, in
 * the spirit of kvm-unit-tests' arm/pmu.c (the tests that share its names
 * check the same behaviour) plus what that suite does not cover: the PMCR.D
 * divider, AMU counters and the effective frequency, the external PMU frame
 * read by the guest, MT=1 counting across SMT threads, EL1 filtering,
 * UNDEFINED accesses and the counters reserved for an external agent. Each test prints "PASS name" or "FAIL name: why";
 * the suite ends with "N passed, N failed".
 *
 * Every expected count is exact: the instructions between two accesses are
 * written in assembly, and the platform retires one instruction every CPI
 * processor cycles (rt_cpi()), so a stretch of k instructions is k * CPI
 * cycles. An access sees the instructions retired before it. The suite
 * runs on the pmvp platform and on QEMU's `virt` machine (runtime.h); a test
 * the platform cannot run prints "SKIP name: why".
 */
#include "expect.h"
#include "runtime.h"

/* ---- the registers, by the Arm ARM's names */
#define PMCR_E (1u << 0)
#define PMCR_P (1u << 1)
#define PMCR_C (1u << 2)
#define PMCR_D (1u << 3)
#define PMCR_LC (1u << 6)
#define PMCR_LP (1u << 7)
#define PMCR_FZO (1u << 9) /* FEAT_PMUv3p7 */
#define PMCR_DP (1u << 5)
#define PMCR_N(v) (((v) >> 11) & 0x1F)
#define PMU_C (1u << 31)
#define PMU_F0 (1ull << 32) /* the instruction counter, FEAT_PMUv3_ICNTR */
#define PMEVTYPER_P (1ull << 31)

#define EV_SW_INCR 0x00
#define EV_INST_RETIRED 0x08
#define EV_CPU_CYCLES 0x11
#define EV_CHAIN 0x1E


/* FEAT_PMUv3_ICNTR's registers by encoding: the assembler knows neither. */
#define PMICNTR_EL0 S3_3_C9_C4_0
#define PMICFILTR_EL0 S3_3_C9_C6_0
/* FEAT_PMUv3p9's. */
#define PMUACR_EL1 S3_0_C9_C14_4
#define PMZR_EL0 S3_3_C9_C13_4
/* FEAT_PMUv3_SS's, and PMECR_EL1 for its SSE field. */
#define PMECR_EL1 S3_0_C9_C14_5
#define PMSSCR_EL1 S3_0_C9_C13_3
#define PMEVCNTSVR0_EL1 S2_0_C14_C8_0
#define PMEVCNTSVR1_EL1 S2_0_C14_C8_1
#define PMCCNTSVR_EL1 S2_0_C14_C11_7
#define PMECR_SSE(v) ((uint64_t)(v) << 3)
#define PMSSCR_NC (1ull << 32)

/* PMMIR_EL1 (FEAT_PMUv3p4) and PMEVTYPER<n>_EL0's threshold fields
 * (FEAT_PMUv3_TH, EDGE, TH2; D13.8). */
#define PMMIR_EL1 S3_0_C9_C14_6
#define PMEVTYPER_TC(v) ((uint64_t)(v) << 61)
#define PMEVTYPER_TE (1ull << 60)
#define PMEVTYPER_TLC(v) ((uint64_t)(v) << 54)
#define PMEVTYPER_TH(v) ((uint64_t)(v) << 32)

/* AMU registers by encoding (S3_3_C13_...): the assembler needs no AMU option. */
#define AMCR_EL0 S3_3_C13_C2_0
#define AMCFGR_EL0 S3_3_C13_C2_1
#define AMCNTENSET0_EL0 S3_3_C13_C2_5
#define AMCNTENCLR0_EL0 S3_3_C13_C2_4
#define AMEVCNTR00_EL0 S3_3_C13_C4_0 /* CPU_CYCLES */
#define AMEVCNTR01_EL0 S3_3_C13_C4_1 /* CNT_CYCLES */

/* The EXT64 PMU frame (I5.1): PMEVCNTR<n>_EL0 at 8n, PMCCNTR_EL0 at 0x0F8. */
#define PMU_PMEVCNTR(n) (8u * (n))
#define PMU_PMCCNTR 0x0F8u
#define PMU_PMCNTENSET 0xC00u
#define PMU_PMCNTENCLR 0xC20u
#define PMU_PMEVTYPER(n) (0x400u + 8u * (n))
#define PMU_PMCR 0xE10u /* EXT64: PMCR_EL0 is 64 bits at 0xE10 */
#define PMU_PMCFGR 0xE00u
#define PMU_PMCCR 0xE58u /* FEAT_PMUv3_EXTPMN */
#define PMU_PMDEVID 0xFC8u

static uint64_t cpi;

static void pmu_reset(void)
{
    SYSREG_WRITE(pmcntenclr_el0, ~0u);
    SYSREG_WRITE(pmintenclr_el1, ~0u);
    SYSREG_WRITE(pmovsclr_el0, ~0u);
    SYSREG_WRITE(pmcr_el0, PMCR_P | PMCR_C);
    SYSREG_WRITE(pmccfiltr_el0, 0);
    ISB();
}

static void set_evtyper(unsigned n, uint64_t v)
{
    SYSREG_WRITE(pmselr_el0, n);
    ISB();
    SYSREG_WRITE(pmxevtyper_el0, v);
}

static uint64_t evcntr(unsigned n)
{
    SYSREG_WRITE(pmselr_el0, n);
    ISB();
    return SYSREG_READ(pmxevcntr_el0);
}

static void set_evcntr(unsigned n, uint64_t v)
{
    SYSREG_WRITE(pmselr_el0, n);
    ISB();
    SYSREG_WRITE(pmxevcntr_el0, v);
}

/* Reads `reg` (an MRS name), runs 2n instructions, reads it again: 2n + 1
 * instructions retire between the two reads (the first read is one of them). */
#define AROUND_LOOP(reg, n, before, after)                                                \
    __asm__ volatile("mov x9, %2\n\tmrs %0, " #reg "\n1:\tsubs x9, x9, #1\n\tb.ne 1b\n\t" \
                     "mrs %1, " #reg                                                      \
                     : "=&r"(before), "=&r"(after)                                        \
                     : "r"((uint64_t)(n))                                                 \
                     : "x9", "cc", "memory")

/* Writes `set` to PMCNTENSET_EL0, runs 2n instructions, writes `set` to
 * PMCNTENCLR_EL0: the counters count the 2n + 1 instructions from the
 * enabling MSR (an MSR's own retirement follows its write) to the disabling one. */
static void count_loop(uint64_t set, uint64_t n)
{
    __asm__ volatile("mov x9, %1\n\tmsr pmcntenset_el0, %0\n1:\tsubs x9, x9, #1\n\tb.ne 1b\n\t"
                     "msr pmcntenclr_el0, %0"
                     :
                     : "r"((uint64_t)set), "r"(n)
                     : "x9", "cc", "memory");
}

/* ------------------------------------------------------------------ tests */

static void pmu_cycle_counter(void)
{
    const char *name = "pmu-cycle-counter";
    bool ok = true;
    pmu_reset();
    SYSREG_WRITE(pmcntenset_el0, PMU_C);
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LC);
    ISB();
    for (uint64_t n = 1; n <= 10000; n *= 10) {
        uint64_t a, b;
        AROUND_LOOP(pmccntr_el0, n, a, b);
        EXPECT_EQ(b - a, (2 * n + 1) * cpi, "PMCCNTR cycles over 2n + 1 instructions");
    }
    /* The instructions around reads of PMCCNTR count as any others: counter
     * 0 counts INST_RETIRED from the enabling MSR, through the two reads
     * and the 2n loop instructions between them, to the disabling MSR. */
    set_evtyper(0, EV_INST_RETIRED);
    uint64_t a, b;
    const uint64_t n = 500;
    __asm__ volatile("mov x9, %3\n\tmsr pmcntenset_el0, %2\n\tmrs %0, pmccntr_el0\n1:\tsubs x9, x9, #1\n\t"
                     "b.ne 1b\n\tmrs %1, pmccntr_el0\n\tmsr pmcntenclr_el0, %2"
                     : "=&r"(a), "=&r"(b)
                     : "r"((uint64_t)1), "r"(n)
                     : "x9", "cc", "memory");
    EXPECT_EQ(b - a, (2 * n + 1) * cpi, "PMCCNTR cycles over 2n + 1 instructions, INST_RETIRED counting");
    EXPECT_EQ(evcntr(0), 2 * n + 3, "INST_RETIRED across reads of PMCCNTR");
    /* PMCR.C resets it; a write sets it. */
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LC | PMCR_C);
    uint64_t after_reset = SYSREG_READ(pmccntr_el0);
    EXPECT_EQ(after_reset, 1 * cpi, "PMCCNTR one instruction after PMCR.C");
    SYSREG_WRITE(pmcr_el0, 0);
    SYSREG_WRITE(pmccntr_el0, 0x123456789ull);
    EXPECT_EQ(SYSREG_READ(pmccntr_el0), 0x123456789ull, "PMCCNTR written while disabled");
    report(name, ok);
}

static void pmu_event_introspection(void)
{
    const char *name = "pmu-event-introspection";
    bool ok = true;
    uint64_t dfr0 = SYSREG_READ(id_aa64dfr0_el1);
    unsigned pmuver = (dfr0 >> 8) & 0xF;
    EXPECT_TRUE(pmuver >= 1 && pmuver != 0xF, "ID_AA64DFR0_EL1.PMUVer is a PMUv3");
    uint64_t ceid0 = SYSREG_READ(pmceid0_el0);
    EXPECT_TRUE(ceid0 & (1u << EV_SW_INCR), "PMCEID0 SW_INCR");
    EXPECT_TRUE(ceid0 & (1u << EV_INST_RETIRED), "PMCEID0 INST_RETIRED");
    EXPECT_TRUE(ceid0 & (1u << EV_CPU_CYCLES), "PMCEID0 CPU_CYCLES");
    EXPECT_TRUE(ceid0 & (1u << EV_CHAIN), "PMCEID0 CHAIN");
    unsigned n = PMCR_N(SYSREG_READ(pmcr_el0));
    EXPECT_TRUE(n >= 2, "PMCR.N");
    rt_puts("  PMUVer ");
    rt_put_dec(pmuver);
    rt_puts(", PMCR.N ");
    rt_put_dec(n);
    rt_puts(", PMCEID0 ");
    rt_put_hex(ceid0);
    rt_putc('\n');
    report(name, ok);
}

static void pmu_event_counter_config(void)
{
    const char *name = "pmu-event-counter-config";
    bool ok = true;
    pmu_reset();
    unsigned n = PMCR_N(SYSREG_READ(pmcr_el0));
    for (unsigned i = 0; i < n; i++) {
        set_evtyper(i, EV_INST_RETIRED | (uint64_t)(i & 3) << 30); /* event, P and U */
        set_evcntr(i, 0x1000 + i);
    }
    for (unsigned i = 0; i < n; i++) {
        SYSREG_WRITE(pmselr_el0, i);
        ISB();
        EXPECT_EQ(SYSREG_READ(pmxevtyper_el0), EV_INST_RETIRED | (uint64_t)(i & 3) << 30, "PMEVTYPER read back");
        EXPECT_EQ(evcntr(i), 0x1000 + i, "PMEVCNTR read back");
    }
    EXPECT_EQ(SYSREG_READ(pmevcntr0_el0), 0x1000, "PMEVCNTR0_EL0 = PMXEVCNTR with SEL 0");
    /* PMSELR.SEL beyond N: PMXEVCNTR selects no counter and is RAZ/WI. */
    if (n < 31) {
        set_evcntr(n, 77);
        EXPECT_EQ(evcntr(n), 0, "PMXEVCNTR of an unimplemented counter");
    }
    /* PMCR.P resets the event counters, not PMCCNTR. */
    SYSREG_WRITE(pmccntr_el0, 5);
    SYSREG_WRITE(pmcr_el0, PMCR_P);
    EXPECT_EQ(evcntr(0), 0, "PMCR.P resets PMEVCNTR0");
    EXPECT_EQ(SYSREG_READ(pmccntr_el0), 5, "PMCR.P leaves PMCCNTR");
    report(name, ok);
}

static void pmu_basic_event_count(void)
{
    const char *name = "pmu-basic-event-count";
    bool ok = true;
    pmu_reset();
    set_evtyper(0, EV_INST_RETIRED);
    set_evtyper(1, EV_CPU_CYCLES);
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LC);
    ISB();
    const uint64_t n = 1000;
    count_loop(0x3, n);
    EXPECT_EQ(evcntr(0), 2 * n + 1, "INST_RETIRED");
    EXPECT_EQ(evcntr(1), (2 * n + 1) * cpi, "CPU_CYCLES");
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0, "no overflow");
    /* Preset near the top: the counter wraps and sets its overflow flag. */
    set_evcntr(0, 0xFFFFFFF0u);
    count_loop(0x1, 10);
    /* PMUv3p5: the counter is 64 bits wide; with PMCR.LP == 0 it overflows
     * at bit 31 and carries on into bit 32. */
    EXPECT_EQ(evcntr(0), 0xFFFFFFF0u + 21ull, "INST_RETIRED past bit 31");
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0x1, "PMOVSSET.P0");
    SYSREG_WRITE(pmovsclr_el0, 0x1);
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0, "PMOVSCLR clears it");
    report(name, ok);
}

static void pmu_sw_incr(void)
{
    const char *name = "pmu-sw-incr";
    bool ok = true;
    pmu_reset();
    set_evtyper(0, EV_SW_INCR);
    set_evtyper(1, EV_SW_INCR);
    SYSREG_WRITE(pmcr_el0, PMCR_E);
    SYSREG_WRITE(pmcntenset_el0, 0x1); /* counter 1 stays disabled */
    ISB();
    for (int i = 0; i < 100; i++)
        SYSREG_WRITE(pmswinc_el0, 0x3);
    EXPECT_EQ(evcntr(0), 100, "SW_INCR on an enabled counter");
    EXPECT_EQ(evcntr(1), 0, "SW_INCR on a disabled counter");
    /* A counter counting another event ignores PMSWINC. */
    SYSREG_WRITE(pmcntenclr_el0, 0x1);
    set_evtyper(0, EV_INST_RETIRED);
    set_evcntr(0, 0);
    SYSREG_WRITE(pmcntenset_el0, 0x1);
    SYSREG_WRITE(pmswinc_el0, 0x1);
    SYSREG_WRITE(pmcntenclr_el0, 0x1);
    /* It counts the instructions retired while enabled: the enabling MSR and
     * the MSR to PMSWINC_EL0. */
    EXPECT_EQ(evcntr(0), 2, "SW_INCR on a counter of INST_RETIRED");
    report(name, ok);
}

/* Counters 0 and 1 as a chained pair (INST_RETIRED, CHAIN), counter 0
 * 16 below the wrap of its low half, PMCR.E set, nothing enabled yet. */
static void chained_pair_near_wrap(void)
{
    pmu_reset();
    set_evtyper(0, EV_INST_RETIRED);
    set_evtyper(1, EV_CHAIN);
    set_evcntr(0, 0xFFFFFFF0u);
    SYSREG_WRITE(pmcr_el0, PMCR_E);
    ISB();
}

static void pmu_chained_counters(void)
{
    const char *name = "pmu-chained-counters";
    bool ok = true;
    chained_pair_near_wrap();
    count_loop(0x3, 10); /* 21 instructions: the low half wraps once */
    EXPECT_EQ(evcntr(0) & 0xFFFFFFFFu, 5, "low half");
    EXPECT_EQ(evcntr(1), 1, "CHAIN counts the wrap");
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0x1, "only the low half overflowed");
    /* The high half at its top: the pair overflows as one 64-bit counter. */
    SYSREG_WRITE(pmovsclr_el0, 0x3);
    set_evcntr(0, 0xFFFFFFF0u);
    set_evcntr(1, 0xFFFFFFFFu);
    count_loop(0x3, 10);
    EXPECT_EQ(evcntr(1) & 0xFFFFFFFFu, 0, "high half wraps");
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0x3, "both halves overflowed");
    report(name, ok);
}

static void pmu_chain_promotion(void)
{
    const char *name = "pmu-chain-promotion";
    bool ok = true;
    /* The CHAIN counter disabled while its low half wraps: no increment. */
    chained_pair_near_wrap();
    count_loop(0x1, 10);
    EXPECT_EQ(evcntr(1), 0, "a disabled CHAIN counter");
    /* With PMCR.LP the even counter is 64 bits wide and feeds no CHAIN. */
    SYSREG_WRITE(pmovsclr_el0, 0x3);
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LP);
    set_evcntr(0, 0xFFFFFFF0u);
    count_loop(0x3, 10);
    EXPECT_EQ(evcntr(0), 0x100000005ull, "64-bit counter carries into bit 32");
    EXPECT_EQ(evcntr(1), 0, "no CHAIN increment with PMCR.LP");
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0, "no overflow");
    report(name, ok);
}

static volatile uint64_t irq_count, irq_ovs, irq_value;

static void pmu_irq(void)
{
    irq_value = SYSREG_READ(pmevcntr0_el0);
    irq_ovs = SYSREG_READ(pmovsset_el0);
    SYSREG_WRITE(pmovsclr_el0, irq_ovs);
    irq_count++;
    ISB();
}

static void pmu_overflow_interrupt(void)
{
    const char *name = "pmu-overflow-interrupt";
    bool ok = true;
    pmu_reset();
    rt_set_irq_handler(pmu_irq);
    rt_irq_enable(IRQ_PMU);
    irq_count = 0;
    set_evtyper(0, EV_INST_RETIRED);
    set_evcntr(0, 0xFFFFFFFFu - 500);
    SYSREG_WRITE(pmintenset_el1, 0x1);
    SYSREG_WRITE(pmcr_el0, PMCR_E);
    ISB();
    rt_irq_unmask();
    count_loop(0x1, 1000);
    rt_irq_mask();
    EXPECT_EQ(irq_count, 1, "interrupts taken");
    EXPECT_EQ(irq_ovs, 0x1, "PMOVSSET in the handler");
    /* The handler's first MRS reads the instructions since the overflow:
     * the rest of the overflowing basic block (a 2-instruction loop) and
     * the vector's entry code. */
    EXPECT_LT(irq_value & 0xFFFFFFFFu, 64, "skid: PMEVCNTR0[31:0] in the handler, counted from the overflow");
    rt_puts("  PMEVCNTR0[31:0] = ");
    rt_put_dec(irq_value & 0xFFFFFFFFu);
    rt_puts(" in the handler\n");
    /* Masked (PMINTENCLR): the flag is set, no interrupt. */
    SYSREG_WRITE(pmintenclr_el1, 0x1);
    set_evcntr(0, 0xFFFFFFFFu - 10);
    rt_irq_unmask();
    count_loop(0x1, 100);
    rt_irq_mask();
    EXPECT_EQ(irq_count, 1, "no interrupt with PMINTENSET clear");
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0x1, "flag set without interrupt");
    rt_irq_enable(0);
    rt_set_irq_handler(0);
    report(name, ok);
}

static void pmu_64bit_overflows(void)
{
    const char *name = "pmu-64bit-overflows";
    bool ok = true;
    pmu_reset();
    set_evtyper(0, EV_INST_RETIRED);
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LP);
    set_evcntr(0, 0xFFFFFFFFFFFFFFF0ull);
    count_loop(0x1, 10);
    EXPECT_EQ(evcntr(0), 5, "wraps at 64 bits");
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0x1, "overflow at bit 63");
    /* The cycle counter with PMCR.LC. */
    SYSREG_WRITE(pmovsclr_el0, ~0u);
    SYSREG_WRITE(pmccntr_el0, 0xFFFFFFF0u);
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LC);
    count_loop(PMU_C, 10);
    EXPECT_EQ(SYSREG_READ(pmccntr_el0), 0xFFFFFFF0u + 21 * cpi, "PMCCNTR carries into bit 32 with LC");
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0, "no overflow at bit 31 with LC");
    report(name, ok);
}

/* D13.5.2.1, FEAT_PMUv3p7: with PMCR.FZO the first range stops counting
 * while one of its overflow flags is set, and PMCCNTR too with PMCR.DP. */
static void pmu_freeze_on_overflow(void)
{
    const char *name = "pmu-freeze-on-overflow";
    bool ok = true;
    pmu_reset();
    SYSREG_WRITE(pmcr_el0, PMCR_FZO);
    ISB();
    if (!(SYSREG_READ(pmcr_el0) & PMCR_FZO)) {
        rt_puts("SKIP pmu-freeze-on-overflow: PMCR_EL0.FZO is RES0 (no FEAT_PMUv3p7)\n");
        return;
    }
    set_evtyper(0, EV_INST_RETIRED);
    set_evtyper(1, EV_INST_RETIRED);
    set_evcntr(0, 0xFFFFFFFFu - 99); /* overflows on the 100th instruction */
    set_evcntr(1, 0);
    SYSREG_WRITE(pmccntr_el0, 0);
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LC | PMCR_FZO | PMCR_DP);
    ISB();
    count_loop(0x3 | PMU_C, 1000);
    uint64_t c0 = evcntr(0), c1 = evcntr(1), cycles = SYSREG_READ(pmccntr_el0);
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0x1, "PMOVSSET.P0");
    /* Both counters count the same instructions up to the freeze. */
    EXPECT_EQ(c1, c0 - (0xFFFFFFFFu - 99), "counter 1 counts what counter 0 counted");
    EXPECT_LT(c1 - 100, 64, "frozen after the overflow (the rest of its basic block at most)");
    rt_puts("  PMEVCNTR1 = ");
    rt_put_dec(c1);
    rt_puts(" of 2001 instructions, PMCCNTR = ");
    rt_put_dec(cycles);
    rt_putc('\n');
    /* ILMSFT: with the flag set, reads return the same value. */
    count_loop(0x3 | PMU_C, 1000);
    EXPECT_EQ(evcntr(1), c1, "PMEVCNTR1 frozen");
    EXPECT_EQ(SYSREG_READ(pmccntr_el0), cycles, "PMCCNTR frozen with PMCR.DP");
    /* Clearing the flag resumes counting. */
    SYSREG_WRITE(pmovsclr_el0, 0x1);
    SYSREG_WRITE(pmcntenset_el0, 0x2);
    ISB();
    uint64_t a, b;
    AROUND_LOOP(pmevcntr1_el0, 100, a, b);
    EXPECT_EQ(b - a, 201, "PMEVCNTR1 counts again once PMOVSCLR cleared the flag");
    /* A freeze due to cycles: counter 0 counts CPU_CYCLES and overflows on
     * the 100th cycle; INST_RETIRED stops with it. */
    SYSREG_WRITE(pmcntenclr_el0, ~0u);
    SYSREG_WRITE(pmovsclr_el0, ~0u);
    set_evtyper(0, EV_CPU_CYCLES);
    set_evcntr(0, 0xFFFFFFFFu - 99);
    set_evcntr(1, 0);
    count_loop(0x3, 1000);
    c1 = evcntr(1);
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0x1, "PMOVSSET.P0 from CPU_CYCLES");
    EXPECT_LT(c1 * cpi - 100 + cpi, 64 * cpi, "INST_RETIRED frozen by the 100th cycle");
    rt_puts("  PMEVCNTR1 = ");
    rt_put_dec(c1);
    rt_puts(" instructions until the 100th cycle\n");
    /* Without FZO an overflow freezes nothing. */
    set_evtyper(0, EV_INST_RETIRED);
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LC);
    SYSREG_WRITE(pmcntenclr_el0, ~0u);
    set_evcntr(0, 0xFFFFFFFFu - 99);
    set_evcntr(1, 0);
    count_loop(0x3, 1000);
    EXPECT_EQ(evcntr(1), 2001, "no freeze with PMCR.FZO == 0");
    report(name, ok);
}

/* FEAT_PMUv3_ICNTR: PMICNTR_EL0 counts the instructions an INST_RETIRED
 * event counter counts, filtered by PMICFILTR_EL0, left alone by PMCR.P,
 * overflowing at 2^64 into PMOVSSET.F0. */
static void pmu_instruction_counter(void)
{
    const char *name = "pmu-instruction-counter";
    bool ok = true;
    if (!(SYSREG_READ(id_aa64dfr1_el1) >> 36 & 0xF)) {
        rt_puts("SKIP pmu-instruction-counter: ID_AA64DFR1_EL1.PMICNTR is 0 (no FEAT_PMUv3_ICNTR)\n");
        return;
    }
    pmu_reset();
    set_evtyper(0, EV_INST_RETIRED);
    set_evcntr(0, 0);
    SYSREG_WRITE(PMICFILTR_EL0, 0);
    SYSREG_WRITE(PMICNTR_EL0, 0);
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LC);
    ISB();
    EXPECT_EQ(SYSREG_READ(PMICFILTR_EL0), EV_INST_RETIRED, "PMICFILTR_EL0.evtCount reads INST_RETIRED");
    count_loop(0x1 | PMU_F0, 1000);
    uint64_t icnt = SYSREG_READ(PMICNTR_EL0);
    EXPECT_EQ(icnt, evcntr(0), "PMICNTR counts what an INST_RETIRED counter counts");
    EXPECT_EQ(icnt, 2001, "the loop's 2001 instructions");
    rt_puts("  PMICNTR = ");
    rt_put_dec(icnt);
    rt_puts(" instructions, PMEVCNTR0 (INST_RETIRED) = ");
    rt_put_dec(evcntr(0));
    rt_putc('\n');
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LC | PMCR_P);
    ISB();
    EXPECT_EQ(SYSREG_READ(PMICNTR_EL0), icnt, "PMCR.P leaves PMICNTR alone");
    /* The suite runs at EL1: PMICFILTR_EL0.P filters it out. */
    SYSREG_WRITE(PMICFILTR_EL0, PMEVTYPER_P);
    count_loop(PMU_F0, 1000);
    EXPECT_EQ(SYSREG_READ(PMICNTR_EL0), icnt, "PMICFILTR_EL0.P filters EL1 out");
    /* RFBGFH: an unsigned overflow of [63:0] sets PMOVSSET.F0. */
    SYSREG_WRITE(PMICFILTR_EL0, 0);
    SYSREG_WRITE(PMICNTR_EL0, ~0ull - 99);
    count_loop(PMU_F0, 1000);
    EXPECT_EQ(SYSREG_READ(PMICNTR_EL0), 2001 - 100, "PMICNTR past 2^64");
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), PMU_F0, "PMOVSSET.F0");
    SYSREG_WRITE(pmovsclr_el0, PMU_F0);
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), 0, "PMOVSCLR.F0 clears it");
    report(name, ok);
}

/* FEAT_PMUv3p9: PMZR_EL0 zeroes the counters whose bits are written and
 * leaves the others; PMUACR_EL1 holds the bits of the counters there are
 * (D24.5.25, D24.5.29). The counters are disabled: nothing counts. */
static void pmu_zero_with_mask(void)
{
    const char *name = "pmu-zero-with-mask";
    bool ok = true;
    if (((SYSREG_READ(id_aa64dfr0_el1) >> 8) & 0xF) < 9) {
        rt_puts("SKIP pmu-zero-with-mask: ID_AA64DFR0_EL1.PMUVer is below 0b1001 (no FEAT_PMUv3p9)\n");
        return;
    }
    bool icntr = (SYSREG_READ(id_aa64dfr1_el1) >> 36 & 0xF) != 0;
    pmu_reset();
    unsigned n = PMCR_N(SYSREG_READ(pmcr_el0));
    for (unsigned i = 0; i < n; i++)
        set_evcntr(i, 1000 + i);
    SYSREG_WRITE(pmccntr_el0, 5000);
    if (icntr)
        SYSREG_WRITE(PMICNTR_EL0, 7);
    SYSREG_WRITE(PMZR_EL0, 0x5 | PMU_C | PMU_F0);
    ISB();
    EXPECT_EQ(evcntr(0), 0, "PMZR_EL0.P0 zeroes PMEVCNTR0");
    EXPECT_EQ(evcntr(1), 1001, "PMEVCNTR1 is left as it was");
    EXPECT_EQ(evcntr(2), 0, "PMZR_EL0.P2 zeroes PMEVCNTR2");
    EXPECT_EQ(SYSREG_READ(pmccntr_el0), 0, "PMZR_EL0.C zeroes PMCCNTR");
    if (icntr)
        EXPECT_EQ(SYSREG_READ(PMICNTR_EL0), 0, "PMZR_EL0.F0 zeroes PMICNTR");
    SYSREG_WRITE(PMUACR_EL1, ~0ull);
    ISB();
    uint64_t acr = SYSREG_READ(PMUACR_EL1);
    EXPECT_EQ(acr, ((1ull << n) - 1) | PMU_C | (icntr ? PMU_F0 : 0), "PMUACR_EL1 holds the counters' bits");
    rt_puts("  after PMZR_EL0 = P0|P2|C|F0: PMEVCNTR0..2 = ");
    for (unsigned i = 0; i < 3; i++) {
        rt_put_dec(evcntr(i));
        rt_puts(i < 2 ? ", " : "; PMUACR_EL1 = ");
    }
    rt_put_hex(acr);
    rt_putc('\n');
    SYSREG_WRITE(PMUACR_EL1, 0);
    report(name, ok);
}

/* FEAT_PMUv3_SS (D13.9): MSR PMSSCR_EL1 with SS = 1 is a Capture event
 * that copies the counters into the snapshot registers and reads back as
 * {NC, SS} = {0, 0}; prohibited (PMECR_EL1.SSE 0b10), it captures nothing
 * and reads {1, 0}. Without EL2 and EL3, PMECR_EL1.SSE decides. The
 * counters are disabled: nothing counts. */
static void pmu_snapshot(void)
{
    const char *name = "pmu-snapshot";
    bool ok = true;
    if (((SYSREG_READ(id_aa64dfr0_el1) >> 16) & 0xF) == 0) {
        rt_puts("SKIP pmu-snapshot: ID_AA64DFR0_EL1.PMSS is 0 (no FEAT_PMUv3_SS)\n");
        return;
    }
    pmu_reset();
    set_evcntr(0, 1234);
    set_evcntr(1, 5678);
    SYSREG_WRITE(pmccntr_el0, 999);
    SYSREG_WRITE(PMECR_EL1, PMECR_SSE(3));
    SYSREG_WRITE(PMSSCR_EL1, 1);
    ISB();
    EXPECT_EQ(SYSREG_READ(PMSSCR_EL1), 0, "PMSSCR_EL1.{NC, SS} = {0, 0}: captured");
    uint64_t sv0 = SYSREG_READ(PMEVCNTSVR0_EL1), sv1 = SYSREG_READ(PMEVCNTSVR1_EL1);
    uint64_t svc = SYSREG_READ(PMCCNTSVR_EL1);
    EXPECT_EQ(sv0, 1234, "PMEVCNTSVR0_EL1 holds PMEVCNTR0");
    EXPECT_EQ(sv1, 5678, "PMEVCNTSVR1_EL1 holds PMEVCNTR1");
    EXPECT_EQ(svc, 999, "PMCCNTSVR_EL1 holds PMCCNTR");
    set_evcntr(0, 1);
    EXPECT_EQ(SYSREG_READ(PMEVCNTSVR0_EL1), 1234, "the snapshot stays as the counter changes");
    SYSREG_WRITE(PMECR_EL1, PMECR_SSE(2));
    SYSREG_WRITE(PMSSCR_EL1, 1);
    ISB();
    EXPECT_EQ(SYSREG_READ(PMSSCR_EL1), PMSSCR_NC, "prohibited: {NC, SS} = {1, 0}");
    EXPECT_EQ(SYSREG_READ(PMEVCNTSVR0_EL1), 1234, "and nothing captured");
    rt_puts("  snapshot: PMEVCNTSVR0 = ");
    rt_put_dec(sv0);
    rt_puts(", PMEVCNTSVR1 = ");
    rt_put_dec(sv1);
    rt_puts(", PMCCNTSVR = ");
    rt_put_dec(svc);
    rt_putc('\n');
    SYSREG_WRITE(PMECR_EL1, 0);
    report(name, ok);
}

static uint64_t evtyper(unsigned n)
{
    SYSREG_WRITE(pmselr_el0, n);
    ISB();
    return SYSREG_READ(pmxevtyper_el0);
}

/* FEAT_PMUv3_TH, EDGE and TH2 (D13.8), as PMMIR_EL1.THWIDTH and EDGE say.
 * CPU_CYCLES is 1 on each cycle of a running PE: greater-or-equal 1,
 * count, counts what a plain counter counts, less-than 1 nothing; its
 * rising edges (TE, TC 0b001) are one per enabling, since C_P is 0 after
 * a cycle on which counting was not allowed; a counter linked to one
 * counting SW_INCR (TLC 0b10, CPU_CYCLES equal to 1) counts its
 * increments. */
static void pmu_threshold(void)
{
    const char *name = "pmu-threshold";
    bool ok = true;
    if (((SYSREG_READ(id_aa64dfr0_el1) >> 8) & 0xF) < 5 || !((SYSREG_READ(PMMIR_EL1) >> 20) & 0xF)) {
        rt_puts("SKIP pmu-threshold: PMMIR_EL1.THWIDTH is 0 (no FEAT_PMUv3_TH)\n");
        return;
    }
    uint64_t mmir = SYSREG_READ(PMMIR_EL1);
    unsigned width = (unsigned)(mmir >> 20 & 0xF), edge = (unsigned)(mmir >> 24 & 0xF);
    pmu_reset();
    /* TH is THWIDTH bits wide; TLC is RES0 in an even counter. */
    set_evtyper(0, EV_CPU_CYCLES | PMEVTYPER_TH(0xFFF) | PMEVTYPER_TLC(2));
    EXPECT_EQ(evtyper(0), EV_CPU_CYCLES | PMEVTYPER_TH((1u << width) - 1), "TH as wide as PMMIR_EL1.THWIDTH");
    set_evtyper(0, EV_CPU_CYCLES);
    set_evtyper(1, EV_CPU_CYCLES | PMEVTYPER_TC(0b101) | PMEVTYPER_TH(1));
    set_evtyper(2, EV_CPU_CYCLES | PMEVTYPER_TC(0b111) | PMEVTYPER_TH(1));
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LC);
    ISB();
    count_loop(0x7, 1000);
    uint64_t plain = evcntr(0), ge = evcntr(1), lt = evcntr(2);
    EXPECT_EQ(plain, 2001 * cpi, "CPU_CYCLES");
    EXPECT_EQ(ge, plain, "CPU_CYCLES >= 1, count: every cycle");
    EXPECT_EQ(lt, 0, "CPU_CYCLES < 1, count: no cycle while the PE runs");
    uint64_t edges = 0, linked = 0;
    if (edge >= 1) {
        set_evtyper(0, EV_CPU_CYCLES | PMEVTYPER_TE | PMEVTYPER_TC(0b001));
        set_evcntr(0, 0);
        for (int i = 0; i < 3; i++)
            count_loop(0x1, 100);
        edges = evcntr(0);
        EXPECT_EQ(edges, 3, "one rising edge of CPU_CYCLES per enabling");
    }
    if (edge >= 2) {
        set_evtyper(0, EV_SW_INCR);
        set_evtyper(1, EV_CPU_CYCLES | PMEVTYPER_TC(0b010) | PMEVTYPER_TH(1) | PMEVTYPER_TLC(0b10));
        set_evcntr(0, 0);
        set_evcntr(1, 0);
        SYSREG_WRITE(pmcntenset_el0, 0x3);
        ISB();
        for (int i = 0; i < 5; i++)
            SYSREG_WRITE(pmswinc_el0, 0x1);
        ISB();
        SYSREG_WRITE(pmcntenclr_el0, 0x3);
        ISB();
        linked = evcntr(1);
        EXPECT_EQ(evcntr(0), 5, "SW_INCR");
        EXPECT_EQ(linked, 5, "the counter linked to it: V[0] on every cycle of CPU_CYCLES == 1");
    }
    rt_puts("  threshold: THWIDTH ");
    rt_put_dec(width);
    rt_puts(", EDGE ");
    rt_put_dec(edge);
    rt_puts("; CPU_CYCLES >= 1: ");
    rt_put_dec(ge);
    rt_puts(", < 1: ");
    rt_put_dec(lt);
    rt_puts("; rising edges ");
    rt_put_dec(edges);
    rt_puts("; linked to SW_INCR ");
    rt_put_dec(linked);
    rt_putc('\n');
    report(name, ok);
}

static void pmu_divider(void)
{
    const char *name = "pmu-pmcr-d-divider";
    bool ok = true;
    pmu_reset();
    SYSREG_WRITE(pmcntenset_el0, PMU_C);
    /* PMCR.C restarts the prescaler; one increment per 64 cycles (LC == 0). */
    const uint64_t n = 6400;
    uint64_t a, b;
    __asm__ volatile("mov x9, %3\n\tmsr pmcr_el0, %2\n1:\tsubs x9, x9, #1\n\tb.ne 1b\n\tmrs %0, pmccntr_el0\n\t"
                     "mov %1, xzr"
                     : "=&r"(b), "=&r"(a)
                     : "r"((uint64_t)(PMCR_E | PMCR_C | PMCR_D)), "r"(n)
                     : "x9", "cc", "memory");
    EXPECT_EQ(b - a, (2 * n + 1) * cpi / 64, "PMCCNTR with PMCR.D");
    report(name, ok);
}

static void pmu_filter_el1(void)
{
    const char *name = "pmu-filter-el1";
    bool ok = true;
    pmu_reset();
    set_evtyper(0, EV_INST_RETIRED | PMEVTYPER_P); /* not at EL1 */
    set_evtyper(1, EV_INST_RETIRED);
    SYSREG_WRITE(pmccfiltr_el0, PMEVTYPER_P);
    SYSREG_WRITE(pmcr_el0, PMCR_E);
    ISB();
    count_loop(0x3 | PMU_C, 100);
    EXPECT_EQ(evcntr(0), 0, "PMEVTYPER.P filters EL1 out");
    EXPECT_EQ(evcntr(1), 201, "unfiltered counter");
    EXPECT_EQ(SYSREG_READ(pmccntr_el0), 0, "PMCCFILTR_EL0.P filters EL1 out");
    report(name, ok);
}

/* ---- SMT: PE 1 is thread 1 of PE 0's core, when there is one */
static bool has_sibling(void)
{
    return rt_threads() >= 2 && rt_num_pes() >= 2;
}

static void sibling_work(uint64_t n)
{
    __asm__ volatile("mov x9, %0\n1:\tsubs x9, x9, #1\n\tb.ne 1b" : : "r"(n) : "x9", "cc");
}

/* WFI: the cycle counter counts the cycles a sleeping PE is clocked, and its
 * overflow wakes the PE at its instant; CPU_CYCLES (MT = 0) counts them only
 * if the core makes a sleeping thread active and counts it (D14.4.1). The
 * clock of a core stops when all its threads sleep (if the core so
 * chooses), so a sibling thread then keeps it running. */
static void pmu_wfi_cycle_counter(void)
{
    const char *name = "pmu-wfi-cycle-counter";
    bool ok = true;
    uint32_t wfx = rt_wfx_choices();
    bool need_sibling = wfx & RT_WFX_CLOCK_STOPS;
    if (!(wfx & RT_WFX_PMCCNTR_COUNTS)) {
        rt_puts("SKIP pmu-wfi-cycle-counter: PMCCNTR does not count in WFI here, so it cannot wake the PE\n");
        return;
    }
    if (need_sibling && !has_sibling()) {
        rt_puts("SKIP pmu-wfi-cycle-counter: the clock stops when the only thread sleeps\n");
        return;
    }
    if (need_sibling)
        rt_start_on(1, sibling_work, 200000); /* 400,000 instructions */
    const uint64_t k = 20000;                 /* cycles from the enabling MSR to the overflow */
    pmu_reset();
    set_evtyper(0, EV_CPU_CYCLES);
    set_evtyper(1, EV_INST_RETIRED);
    SYSREG_WRITE(pmccntr_el0, (1ull << 32) - k); /* PMCR.LC == 0: overflows at bit 31 */
    SYSREG_WRITE(pmintenset_el1, PMU_C);
    SYSREG_WRITE(pmcr_el0, PMCR_E);
    rt_irq_enable(IRQ_PMU); /* PSTATE.I stays set: the line wakes the WFI, no exception */
    ISB();
    uint64_t cc;
    __asm__ volatile("msr pmcntenset_el0, %1\n\twfi\n\tmrs %0, pmccntr_el0\n\tmsr pmcntenclr_el0, %1"
                     : "=&r"(cc)
                     : "r"((uint64_t)(PMU_C | 0x3))
                     : "memory");
    /* The MSR and the WFI retire, the PE sleeps, the overflow wakes it at
     * its instant, and the MRS reads the counter there. */
    EXPECT_EQ(cc, 1ull << 32, "PMCCNTR at the wake: the overflow instant");
    EXPECT_EQ(SYSREG_READ(pmovsset_el0), PMU_C, "PMOVSSET.C");
    bool sleep_counts = (wfx & RT_WFX_THREAD_ACTIVE) && (wfx & RT_WFX_CPU_CYCLES);
    EXPECT_EQ(evcntr(0), sleep_counts ? k + cpi : 3 * cpi,
              "CPU_CYCLES (MT = 0): the MSR, the WFI, the MRS, and the sleep if counted");
    EXPECT_EQ(evcntr(1), 3, "INST_RETIRED: the MSR, the WFI and the MRS");
    rt_irq_enable(0);
    SYSREG_WRITE(pmintenclr_el1, PMU_C);
    SYSREG_WRITE(pmovsclr_el0, PMU_C);
    rt_puts("  slept ");
    rt_put_dec(k - 2 * cpi);
    rt_puts(" cycles; CPU_CYCLES ");
    rt_put_dec(evcntr(0));
    rt_putc('\n');
    if (need_sibling)
        rt_wait_on(1);
    report(name, ok);
}

static volatile uint64_t sync_esr;
static volatile unsigned sync_count;

static bool record_sync(uint64_t esr)
{
    sync_esr = esr;
    sync_count++;
    return true; /* skip the instruction */
}

static void pmu_undefined_access(void)
{
    const char *name = "pmu-undefined-access";
    bool ok = true;
    rt_set_sync_handler(record_sync);
    sync_count = 0;
    SYSREG_WRITE(S3_3_C9_C12_6, 0); /* MSR PMCEID0_EL0: a read-only register, UNDEFINED */
    EXPECT_EQ(sync_count, 1, "MSR PMCEID0_EL0 takes an exception");
    EXPECT_EQ(sync_esr >> 26, 0x00, "ESR_EL1.EC Unknown reason");
    EXPECT_EQ((sync_esr >> 25) & 1, 1, "ESR_EL1.IL");
    uint64_t v = 0;
    __asm__ volatile("mrs %0, S3_3_C9_C12_4" : "=r"(v)); /* MRS PMSWINC_EL0: write-only, UNDEFINED */
    EXPECT_EQ(sync_count, 2, "MRS PMSWINC_EL0 takes an exception");
    rt_set_sync_handler(0);
    report(name, ok);
}

static void ext_frame_read(void)
{
    const char *name = "ext-pmu-frame";
    bool ok = true;
    if (!rt_has_frames()) {
        rt_puts("SKIP ext-pmu-frame: no external PMU frame on this platform\n");
        return;
    }
    uint64_t frame = PMU_FRAME(rt_soc_pe());
    pmu_reset();
    set_evtyper(0, EV_INST_RETIRED);
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_LC);
    SYSREG_WRITE(pmcntenset_el0, PMU_C | 0x1);
    ISB();
    /* One 64-bit load of PMU.PMCCNTR_EL0 between two MRS, one instruction
     * apart on each side. The platform times a frame access at the last
     * instruction whose PC the ISS knows (docs/FIRMWARE.md): within the
     * two reads, not necessarily one CPI after the first. */
    uint64_t a, b, c;
    __asm__ volatile("mrs %0, pmccntr_el0\n\tldr %1, [%3]\n\tmrs %2, pmccntr_el0"
                     : "=&r"(a), "=&r"(b), "=&r"(c)
                     : "r"(frame + PMU_PMCCNTR)
                     : "memory");
    EXPECT_EQ(c - a, 2 * cpi, "two instructions between the MRS");
    EXPECT_TRUE(a <= b && b <= c, "PMU.PMCCNTR_EL0 between the two MRS");
    __asm__ volatile("mrs %0, pmevcntr0_el0\n\tldr %1, [%3]\n\tmrs %2, pmevcntr0_el0"
                     : "=&r"(a), "=&r"(b), "=&r"(c)
                     : "r"(frame + PMU_PMEVCNTR(0))
                     : "memory");
    EXPECT_EQ(c - a, 2, "INST_RETIRED: the MRS and the load");
    EXPECT_TRUE(a <= b && b <= c, "PMU.PMEVCNTR0_EL0 between the two MRS");
    /* A load first in its block, the block entered by a direct branch from
     * one with an MRS, twice: the load is timed at its own instruction,
     * one CPI before the MRS after it. */
    uint64_t pairs[4];
    uint64_t *to = pairs;
    __asm__ volatile("mov x9, #2\n"
                     "0:\tmrs x12, pmcr_el0\n\tb 1f\n"
                     "1:\tldr x10, [%1]\n\tmrs x11, pmccntr_el0\n\tstp x10, x11, [%0], #16\n\t"
                     "subs x9, x9, #1\n\tb.ne 0b"
                     : "+r"(to)
                     : "r"(frame + PMU_PMCCNTR)
                     : "x9", "x10", "x11", "x12", "cc", "memory");
    EXPECT_EQ(pairs[1] - pairs[0], cpi, "a load first in its block");
    EXPECT_EQ(pairs[3] - pairs[2], cpi, "a load first in its block, again");
    /* A load after three other instructions in its block, the block's only
     * access to memory (its results are stored in the next block), twice:
     * timed at its own instruction, one CPI before the MRS after it, not at
     * the block's first. */
    to = pairs;
    __asm__ volatile("mov x9, #2\n"
                     "0:\tmrs x12, pmcr_el0\n\tb 1f\n"
                     "1:\tadd x12, x12, #1\n\tadd x12, x12, #1\n\tadd x12, x12, #1\n\t"
                     "ldr x10, [%1]\n\tmrs x11, pmccntr_el0\n\tb 2f\n"
                     "2:\tstp x10, x11, [%0], #16\n\tsubs x9, x9, #1\n\tb.ne 0b"
                     : "+r"(to)
                     : "r"(frame + PMU_PMCCNTR)
                     : "x9", "x10", "x11", "x12", "cc", "memory");
    EXPECT_EQ(pairs[1] - pairs[0], cpi, "a load after three instructions, its block's only access");
    EXPECT_EQ(pairs[3] - pairs[2], cpi, "a load after three instructions, its block's only access, again");
    /* The same after a WFI, three times: the guest resumes at the branch
     * after it, whose block may go straight on to the load's (the PC last
     * known is then the branch's, outside the load's block), and the load
     * is still timed at its own instruction. The PMU's line (PMOVSSET.C
     * with its interrupt request enabled, PSTATE.I set) ends each WFI at
     * once. */
    uint64_t woken[6];
    to = woken;
    SYSREG_WRITE(pmovsset_el0, PMU_C);
    SYSREG_WRITE(pmintenset_el1, PMU_C);
    rt_irq_enable(IRQ_PMU);
    ISB();
    __asm__ volatile("mov x9, #3\n"
                     "0:\twfi\n\tb 1f\n"
                     "1:\tldr x10, [%1]\n\tmrs x11, pmccntr_el0\n\tstp x10, x11, [%0], #16\n\t"
                     "subs x9, x9, #1\n\tb.ne 0b"
                     : "+r"(to)
                     : "r"(frame + PMU_PMCCNTR)
                     : "x9", "x10", "x11", "cc", "memory");
    rt_irq_enable(0);
    SYSREG_WRITE(pmintenclr_el1, PMU_C);
    SYSREG_WRITE(pmovsclr_el0, PMU_C);
    for (unsigned i = 0; i < 3; i++)
        EXPECT_EQ(woken[2 * i + 1] - woken[2 * i], cpi, "a load first in its block, after a WFI");
    /* The instructions around loads of PMU.PMCCNTR_EL0 count as any others:
     * counter 0 counts INST_RETIRED from the enabling MSR through the n
     * loads and the loop's 2n instructions, as across MRS of PMCCNTR. */
    SYSREG_WRITE(pmcntenclr_el0, ~0u);
    SYSREG_WRITE(pmevcntr0_el0, 0);
    ISB();
    const uint64_t n = 300;
    __asm__ volatile("mov x9, %1\n\tmsr pmcntenset_el0, %0\n1:\tldr x10, [%2]\n\tsubs x9, x9, #1\n\t"
                     "b.ne 1b\n\tmsr pmcntenclr_el0, %0"
                     :
                     : "r"((uint64_t)1), "r"(n), "r"(frame + PMU_PMCCNTR)
                     : "x9", "x10", "cc", "memory");
    EXPECT_EQ(SYSREG_READ(pmevcntr0_el0), 3 * n + 1, "INST_RETIRED across loads of PMU.PMCCNTR_EL0");
    /* A store to the frame: PMU.PMEVCNTR0_EL0 written as one 64-bit value. */
    SYSREG_WRITE(pmcntenclr_el0, ~0u);
    mmio_write64(frame + PMU_PMEVCNTR(0), 0x0000000500000007ull);
    EXPECT_EQ(SYSREG_READ(pmevcntr0_el0), 0x0000000500000007ull, "64-bit store to the frame");
    report(name, ok);
}

/* FEAT_PMUv3_EXTPMN (D13.1.1, D13.5.1.1 Table D13-4, I5.3.47): counters
 * [EPMN, N) are the external agent's, and a Most secure access to the
 * frame is the agent's. Without Secure state every access is Most secure
 * (I3.1.4), so this software is the agent too: through the frame it finds
 * the counters reserved before it ran (PMCCR.EPMN), counts INST_RETIRED in
 * the first of them with PMCCR.EPME while PMCR.E is 0, and sees, through
 * the System registers, PMCR.N = EPMN and that counter RAZ/WI. */
static void pmu_third_range(void)
{
    const char *name = "pmu-third-range";
    bool ok = true;
    if (!rt_has_frames()) {
        rt_puts("SKIP pmu-third-range: no external PMU frame on this platform\n");
        return;
    }
    uint64_t frame = PMU_FRAME(rt_soc_pe());
    if (((mmio_read32(frame + PMU_PMDEVID) >> 8) & 0xF) == 0) {
        rt_puts("SKIP pmu-third-range: PMDEVID.EXTPMN is 0\n");
        return;
    }
    pmu_reset(); /* PMCR.E = 0 */
    unsigned epmn = mmio_read64(frame + PMU_PMCCR) & 0x1F;
    unsigned n = PMCR_N(SYSREG_READ(pmcr_el0));
    unsigned all = (mmio_read64(frame + PMU_PMCFGR) & 0xFF) - ((SYSREG_READ(id_aa64dfr1_el1) >> 36 & 0xF) != 0);
    EXPECT_EQ(n, epmn, "PMCR.N is PMCCR.EPMN (no EL2: ZCCDD)");
    if (epmn >= all) {
        rt_puts("SKIP pmu-third-range: no counter reserved (PMCCR.EPMN = N)\n");
        return;
    }
    /* The agent: INST_RETIRED in counter EPMN, enabled by PMCCR.EPME. */
    uint64_t c = frame + PMU_PMEVCNTR(epmn);
    mmio_write64(frame + PMU_PMEVTYPER(epmn), EV_INST_RETIRED);
    mmio_write64(c, 0);
    mmio_write64(frame + PMU_PMCNTENSET, 1ull << epmn | 1); /* and counter 0, the first range's */
    mmio_write64(frame + PMU_PMCCR, 0x80 | epmn);
    /* Two loads of PMU.PMEVCNTR<EPMN> around 2 * loop instructions, and
     * the AMU's INST_RETIRED (AMEVCNTR02, exact) read around both. The
     * platform times a frame access within the instructions around it
     * (docs/FIRMWARE.md), so the loads see at least the loop and at most
     * what the AMU saw. */
    uint64_t a, b, i0, i1;
    const uint64_t loop = 1000;
    SYSREG_WRITE(AMCNTENSET0_EL0, 0x4);
    ISB();
    __asm__ volatile("mrs %2, S3_3_C13_C4_2\n\tldr %0, [%4]\n\tmov x9, %5\n1:\tsubs x9, x9, #1\n\tb.ne 1b\n\t"
                     "ldr %1, [%4]\n\tmrs %3, S3_3_C13_C4_2"
                     : "=&r"(a), "=&r"(b), "=&r"(i0), "=&r"(i1)
                     : "r"(c), "r"(loop)
                     : "x9", "cc", "memory");
    SYSREG_WRITE(AMCNTENCLR0_EL0, 0x4);
    EXPECT_EQ(i1 - i0, 2 * loop + 4, "AMEVCNTR02: the MRS, two loads, the mov and the loop");
    EXPECT_TRUE(b - a >= 2 * loop && b - a <= i1 - i0, "the third range counts the loop with PMCR.E 0");
    EXPECT_EQ(SYSREG_READ(pmevcntr0_el0), 0, "the first range does not");
    /* The PE's own view of counter EPMN: RAZ/WI (PMSELR.SEL beyond PMCR.N). */
    EXPECT_EQ(evcntr(epmn), 0, "PMXEVCNTR with PMSELR.SEL = EPMN reads 0");
    set_evcntr(epmn, 5);
    EXPECT_TRUE(mmio_read64(c) > b, "and its write is ignored");
    EXPECT_EQ(SYSREG_READ(pmcntenset_el0) >> epmn & 1, 0, "PMCNTENSET_EL0.P<EPMN> reads 0");
    mmio_write64(frame + PMU_PMCCR, epmn); /* EPME 0: the agent is done */
    mmio_write64(frame + PMU_PMCNTENCLR, ~0ull);
    rt_puts("  third range: EPMN ");
    rt_put_dec(epmn);
    rt_puts(" of ");
    rt_put_dec(all);
    rt_puts(", PMCR.N ");
    rt_put_dec(n);
    rt_puts("; PMEVCNTR");
    rt_put_dec(epmn);
    rt_puts(" counted the loop's ");
    rt_put_dec(2 * loop);
    rt_puts(" instructions with PMCR.E 0 (AMU: ");
    rt_put_dec(i1 - i0);
    rt_puts(" around it)\n");
    report(name, ok);
}

static void amu_counters(void)
{
    const char *name = "amu-counters";
    bool ok = true;
    uint64_t pfr0 = SYSREG_READ(id_aa64pfr0_el1);
    if (((pfr0 >> 44) & 0xF) == 0) {
        rt_puts("SKIP amu-counters: ID_AA64PFR0_EL1.AMU is 0\n");
        return;
    }
    EXPECT_EQ(SYSREG_READ(AMCFGR_EL0) & 0xFF, 3, "AMCFGR_EL0.N: 4 architected counters, no auxiliary");
    SYSREG_WRITE(AMCNTENSET0_EL0, 0xF);
    ISB();
    uint64_t i0, i1, c0, c1, s0, s1;
    const uint64_t n = 5000;
    s0 = SYSREG_READ(AMEVCNTR01_EL0);
    __asm__ volatile("mov x9, %4\n\tmrs %0, S3_3_C13_C4_0\n\tmrs %1, S3_3_C13_C4_2\n"
                     "1:\tsubs x9, x9, #1\n\tb.ne 1b\n\tmrs %3, S3_3_C13_C4_2\n\tmrs %2, S3_3_C13_C4_0"
                     : "=&r"(c0), "=&r"(i0), "=&r"(c1), "=&r"(i1)
                     : "r"(n)
                     : "x9", "cc", "memory");
    s1 = SYSREG_READ(AMEVCNTR01_EL0);
    EXPECT_EQ(i1 - i0, 2 * n + 1, "AMEVCNTR02 INST_RETIRED");
    /* AMEVCNTR00 (CPU_CYCLES) is read one instruction before i0 and one after i1. */
    EXPECT_EQ(c1 - c0, (2 * n + 3) * cpi, "AMEVCNTR00 CPU_CYCLES");
    /* The effective frequency: CPU_CYCLES per System Counter tick is
     * core_hz / syscnt_hz, to one System Counter edge. */
    uint64_t hz = rt_core_hz(), sys = rt_syscnt_hz();
    uint64_t ticks = s1 - s0, cycles = c1 - c0;
    EXPECT_TRUE(cycles * sys >= (ticks - 1) * hz && cycles * sys <= (ticks + 1) * hz,
                "CPU_CYCLES / CNT_CYCLES is the core's frequency over the System Counter's");
    rt_puts("  effective frequency ");
    rt_put_dec(ticks ? cycles * sys / ticks : 0);
    rt_puts(" Hz (core ");
    rt_put_dec(hz);
    rt_puts(" Hz)\n");
    SYSREG_WRITE(AMCNTENCLR0_EL0, 0xF);
    report(name, ok);
}


static void smt_mt_counting(void)
{
    const char *name = "smt-mt1-counting";
    bool ok = true;
    if (!has_sibling()) {
        rt_puts("SKIP smt-mt1-counting: no sibling thread\n");
        return;
    }
    if (!rt_has_frames()) {
        rt_puts("SKIP smt-mt1-counting: no external PMU frame to set up the sibling\n");
        return;
    }
    const unsigned sibling = 1;                /* thread 1 of PE 0's core ... */
    uint64_t sib = PMU_FRAME(rt_soc_pe() + 1); /* ... the next PE of the SoC */
    pmu_reset();
    /* The sibling's own MT=0 INST_RETIRED counter, set up through its
     * external frame while it sleeps in WFI. */
    mmio_write64(sib + PMU_PMEVCNTR(0), 0);
    mmio_write32(sib + PMU_PMEVTYPER(0), EV_INST_RETIRED);
    mmio_write64(sib + PMU_PMCR, PMCR_E);
    mmio_write32(sib + PMU_PMCNTENSET, 0x1);
    /* PE 0: counter 0 MT=0, counter 1 MT=1 (PMEVTYPER.MT, bit 25). */
    set_evtyper(0, EV_INST_RETIRED);
    set_evtyper(1, EV_INST_RETIRED | (1u << 25));
    SYSREG_WRITE(pmcr_el0, PMCR_E);
    ISB();
    SYSREG_WRITE(pmcntenset_el0, 0x3);
    rt_run_on(sibling, sibling_work, 10000);
    SYSREG_WRITE(pmcntenclr_el0, 0x3);
    mmio_write32(sib + PMU_PMCNTENCLR, 0x1);
    uint64_t own = evcntr(0), all = evcntr(1);
    uint64_t theirs = mmio_read64(sib + PMU_PMEVCNTR(0));
    EXPECT_TRUE(theirs > 20000, "the sibling ran its loop");
    EXPECT_EQ(all - own, theirs, "MT=1 counts both threads' instructions");
    rt_puts("  PE 0 ");
    rt_put_dec(own);
    rt_puts(", sibling ");
    rt_put_dec(theirs);
    rt_puts(", MT=1 ");
    rt_put_dec(all);
    rt_putc('\n');
    report(name, ok);
}

int suite_main(void)
{
    cpi = rt_cpi();
    rt_banner("pmvp PMU suite");
    pmu_cycle_counter();
    pmu_event_introspection();
    pmu_event_counter_config();
    pmu_basic_event_count();
    pmu_sw_incr();
    pmu_chained_counters();
    pmu_chain_promotion();
    pmu_overflow_interrupt();
    pmu_64bit_overflows();
    pmu_freeze_on_overflow();
    pmu_instruction_counter();
    pmu_zero_with_mask();
    pmu_snapshot();
    pmu_threshold();
    pmu_divider();
    pmu_filter_el1();
    pmu_wfi_cycle_counter();
    pmu_undefined_access();
    ext_frame_read();
    pmu_third_range();
    amu_counters();
    smt_mt_counting();
    return expect_summary();
}
