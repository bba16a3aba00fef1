/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ISS's architectural events as a guest counts them (docs/FIRMWARE.md,
 * "Events"): hand-written loops of known instructions, each event's count
 * per iteration stated and checked. A loop runs N and then 2N iterations
 * between the same enabling and disabling of the counters; the difference
 * of the two counts is N iterations' exactly, whatever the code around the
 * loop counts. Then an overflow of a MEM_ACCESS counter interrupts at the
 * block that makes it, code the guest rewrites counts as rewritten, and
 * PMCEID advertises the events.
 * Built with platform_virt.c; run by platform/scenarios/firmware-iss-events.json.
 */
#include "expect.h"
#include "runtime.h"

#define N 200u
#define MAX_GROUP 6u /* counters used at once */
#define PMCR_E 1u
#define PMCR_P 2u
#define GICD 0x08000000ul
#define GICD_ISENABLER0 (GICD + 0x100)
#define GICD_IPRIORITYR(n) (GICD + 0x400 + (n))
#define GICD_SGIR (GICD + 0xF00)
#define INTID_VTIMER 27u

/* The loops: x0 the iterations (at least 1), x1 a buffer of 32 bytes or the
 * address the loop needs. Their events per iteration are in the tables
 * below, instruction by instruction. */
void loop_memory(uint64_t n, void *arg);
void loop_branches(uint64_t n, void *arg);
void loop_simd_fp(uint64_t n, void *arg);
void loop_barriers(uint64_t n, void *arg);
void loop_svc(uint64_t n, void *arg);
void loop_udf(uint64_t n, void *arg);
void loop_sgi(uint64_t n, void *arg);
void loop_counted_loads(uint64_t n, void *arg);
__asm__(".arch armv8-a+crypto\n"
        ".text\n"
        ".global loop_memory\n"
        "loop_memory:\n"
        "1: ldr x3, [x1]\n"          /* load */
        "   str x3, [x1, #8]\n"      /* store */
        "   ldp x4, x5, [x1]\n"      /* load (one access) */
        "   stp x4, x5, [x1, #16]\n" /* store (one access) */
        "   subs x0, x0, #1\n"       /* integer data processing */
        "   b.ne 1b\n"               /* conditional, taken but for the last */
        "   ret\n"
        ".global loop_branches\n"
        "loop_branches:\n"
        "   mov x9, x30\n"
        "1: bl 2f\n" /* immediate, taken */
        "   adr x2, 3f\n"
        "   br x2\n"           /* indirect */
        "3: cbz x0, 4f\n"      /* conditional, not taken */
        "   tbz x0, #63, 5f\n" /* conditional, taken */
        "4: nop\n"             /* never executed */
        "5: cbnz x0, 6f\n"     /* conditional, taken to the next instruction */
        "6: cmp x0, #0\n"
        "   b.eq 7f\n" /* conditional, not taken, to the next instruction */
        "7: subs x0, x0, #1\n"
        "   b.ne 1b\n"
        "   mov x30, x9\n"
        "   ret\n"
        "2: ret\n" /* procedure return */
        ".global loop_simd_fp\n"
        "loop_simd_fp:\n"
        "1: fadd d0, d0, d1\n"         /* scalar floating point */
        "   scvtf d2, x0\n"            /* a conversion from an integer */
        "   add v3.4s, v4.4s, v5.4s\n" /* Advanced SIMD */
        "   aese v6.16b, v7.16b\n"     /* cryptographic */
        "   subs x0, x0, #1\n"
        "   b.ne 1b\n"
        "   ret\n"
        ".global loop_barriers\n"
        "loop_barriers:\n"
        "   mrs x6, ttbr0_el1\n"
        "   mrs x5, contextidr_el1\n"
        "1: isb\n"
        "   dsb sy\n"
        "   dmb ish\n"
        "   ldxr x3, [x1]\n"     /* Load-Exclusive */
        "   stxr w4, x3, [x1]\n" /* Store-Exclusive */
        "   msr contextidr_el1, x5\n"
        "   msr ttbr0_el1, x6\n"
        "   subs x0, x0, #1\n"
        "   b.ne 1b\n"
        "   ret\n"
        ".global loop_svc\n"
        "loop_svc:\n"
        "1: svc #0x51\n" /* the handler skips the NOP after it */
        "   nop\n"
        "   subs x0, x0, #1\n"
        "   b.ne 1b\n"
        "   ret\n"
        ".global loop_udf\n"
        "loop_udf:\n"
        "1: udf #0\n" /* the handler skips it */
        "   subs x0, x0, #1\n"
        "   b.ne 1b\n"
        "   ret\n"
        ".global loop_sgi\n"
        "loop_sgi:\n"
        "   mov w2, #0x02000000\n" /* SGI 0 to this PE */
        "1: str w2, [x1]\n"        /* GICD_SGIR: taken before the next block */
        "   subs x0, x0, #1\n"
        "   b.ne 1b\n"
        "   ret\n"
        ".global loop_counted_loads\n"
        "loop_counted_loads:\n"
        "1: ldr x3, [x1]\n" /* two accesses an iteration */
        "   add x3, x3, #1\n"
        "   str x3, [x1]\n"
        "   subs x0, x0, #1\n"
        "   b.ne 1b\n"
        "   ret\n");

typedef void (*loop_fn)(uint64_t n, void *arg);

struct per_iteration {
    uint16_t event;
    const char *name;
    uint64_t count;
};

/* The counts of events ev[0..k) over loop(n, arg), counted at EL1. */
static void count(const struct per_iteration *ev, unsigned k, loop_fn loop, uint64_t n, void *arg, uint64_t *out)
{
    const uint64_t used = (1u << k) - 1;
    SYSREG_WRITE(pmcntenclr_el0, 0xFFFFFFFFu);
    for (unsigned i = 0; i < k; i++) {
        SYSREG_WRITE(pmselr_el0, i);
        ISB();
        SYSREG_WRITE(pmxevtyper_el0, ev[i].event);
    }
    SYSREG_WRITE(pmcr_el0, PMCR_E | PMCR_P);
    ISB();
    SYSREG_WRITE(pmcntenset_el0, used);
    loop(n, arg);
    SYSREG_WRITE(pmcntenclr_el0, used);
    ISB();
    for (unsigned i = 0; i < k; i++) {
        SYSREG_WRITE(pmselr_el0, i);
        ISB();
        out[i] = SYSREG_READ(pmxevcntr_el0);
    }
}

/* Each event of `rows` counts its count per iteration, N times, over N
 * iterations of `loop`. */
static void check_loop(const char *name, loop_fn loop, void *arg, const struct per_iteration *rows, unsigned num)
{
    bool ok = true;
    for (unsigned g = 0; g < num; g += MAX_GROUP) {
        unsigned k = num - g < MAX_GROUP ? num - g : MAX_GROUP;
        uint64_t once[MAX_GROUP], twice[MAX_GROUP];
        count(rows + g, k, loop, N, arg, once);
        count(rows + g, k, loop, 2 * N, arg, twice);
        for (unsigned i = 0; i < k; i++)
            EXPECT_EQ(twice[i] - once[i], N * rows[g + i].count, rows[g + i].name);
    }
    report(name, ok);
}

#define COUNT(rows) (sizeof(rows) / sizeof((rows)[0]))

static uint64_t buffer[4];

/* LDR, STR, LDP, STP, SUBS, B.NE: each load and store one access. */
static void memory(void)
{
    static const struct per_iteration t1[] = { { 0x08, "INST_RETIRED", 6 },  { 0x1B, "INST_SPEC", 6 },
                                               { 0x3A, "OP_RETIRED", 6 },    { 0x06, "LD_RETIRED", 2 },
                                               { 0x07, "ST_RETIRED", 2 },    { 0x13, "MEM_ACCESS", 4 },
                                               { 0x66, "MEM_ACCESS_RD", 2 }, { 0x67, "MEM_ACCESS_WR", 2 },
                                               { 0x70, "LD_SPEC", 2 },       { 0x71, "ST_SPEC", 2 },
                                               { 0x72, "LDST_SPEC", 4 },     { 0x73, "DP_SPEC", 1 },
                                               { 0x21, "BR_RETIRED", 1 },    { 0x0C, "PC_WRITE_RETIRED", 1 },
                                               { 0x3B, "OP_SPEC", 6 },       { 0x19, "BUS_ACCESS", 0 } };
    check_loop("iss-events-memory", loop_memory, buffer, t1, COUNT(t1));
}

/* BL, RET, ADR, BR, CBZ (not taken), TBZ (taken), CBNZ (taken to the next
 * instruction), CMP, B.EQ (not taken, to the next instruction), SUBS, B.NE. */
static void branches(void)
{
    static const struct per_iteration t2[] = { { 0x08, "INST_RETIRED", 11 },    { 0x21, "BR_RETIRED", 8 },
                                               { 0x0D, "BR_IMMED_RETIRED", 6 }, { 0x0E, "BR_RETURN_RETIRED", 1 },
                                               { 0x0C, "PC_WRITE_RETIRED", 6 }, { 0x78, "BR_IMMED_SPEC", 6 },
                                               { 0x79, "BR_RETURN_SPEC", 1 },   { 0x7A, "BR_INDIRECT_SPEC", 2 },
                                               { 0x76, "PC_WRITE_SPEC", 8 },    { 0x73, "DP_SPEC", 3 },
                                               { 0x72, "LDST_SPEC", 0 } };
    check_loop("iss-events-branches", loop_branches, 0, t2, COUNT(t2));
}

/* FADD, SCVTF, ADD (vector), AESE, SUBS, B.NE. */
static void simd_fp(void)
{
    SYSREG_WRITE(cpacr_el1, SYSREG_READ(cpacr_el1) | 3u << 20); /* FPEN: no trap */
    ISB();
    static const struct per_iteration t3[] = { { 0x08, "INST_RETIRED", 6 }, { 0x75, "VFP_SPEC", 2 },
                                               { 0x74, "ASE_SPEC", 1 },     { 0x77, "CRYPTO_SPEC", 1 },
                                               { 0x73, "DP_SPEC", 1 },      { 0x72, "LDST_SPEC", 0 } };
    check_loop("iss-events-simd-fp", loop_simd_fp, 0, t3, COUNT(t3));
}

/* ISB, DSB, DMB, LDXR, STXR, MSR CONTEXTIDR_EL1, MSR TTBR0_EL1, SUBS, B.NE:
 * barriers and System register writes are integer data processing. */
static void barriers(void)
{
    static const struct per_iteration t4[] = { { 0x08, "INST_RETIRED", 9 },      { 0x7C, "ISB_SPEC", 1 },
                                               { 0x7D, "DSB_SPEC", 1 },          { 0x7E, "DMB_SPEC", 1 },
                                               { 0x6C, "LDREX_SPEC", 1 },        { 0x6F, "STREX_SPEC", 1 },
                                               { 0x06, "LD_RETIRED", 1 },        { 0x07, "ST_RETIRED", 1 },
                                               { 0x0B, "CID_WRITE_RETIRED", 1 }, { 0x1C, "TTBR_WRITE_RETIRED", 1 },
                                               { 0x73, "DP_SPEC", 6 },           { 0x13, "MEM_ACCESS", 2 } };
    check_loop("iss-events-barriers-exclusives-sysregs", loop_barriers, buffer, t4, COUNT(t4));
}

static bool skip(uint64_t esr)
{
    (void)esr;
    return true;
}

/* SVC, SUBS, B.NE (the NOP skipped) and the handler, whose instructions are
 * the compiler's: only the exceptions are stated. */
static void exceptions(void)
{
    rt_set_sync_handler(skip);
    static const struct per_iteration t5[] = { { 0x09, "EXC_TAKEN", 1 },
                                               { 0x82, "EXC_SVC", 1 },
                                               { 0x0A, "EXC_RETURN", 1 },
                                               { 0x81, "EXC_UNDEF", 0 },
                                               { 0x86, "EXC_IRQ", 0 } };
    check_loop("iss-events-svc", loop_svc, 0, t5, COUNT(t5));
    static const struct per_iteration t6[] = {
        { 0x09, "EXC_TAKEN", 1 }, { 0x81, "EXC_UNDEF", 1 }, { 0x0A, "EXC_RETURN", 1 }, { 0x82, "EXC_SVC", 0 }
    };
    check_loop("iss-events-undefined", loop_udf, 0, t6, COUNT(t6));
    rt_set_sync_handler(0);
}

/* Code the guest writes into RAM and makes visible as the architecture
 * requires (DC CVAU, DSB, IC IVAU, DSB, ISB): the ISS classifies it again,
 * and its events are the new code's. */
static uint32_t smc_code[4] __attribute__((aligned(64)));

static void publish(void)
{
    __asm__ volatile("dc cvau, %0\n\tdsb ish\n\tic ivau, %0\n\tdsb ish\n\tisb" : : "r"(smc_code) : "memory");
}

static void self_modifying(void)
{
    const loop_fn loop = (loop_fn)(uintptr_t)smc_code;
    smc_code[0] = 0xF9400023; /* ldr x3, [x1] */
    smc_code[1] = 0xF1000400; /* subs x0, x0, #1 */
    smc_code[2] = 0x54FFFFC1; /* b.ne the ldr */
    smc_code[3] = 0xD65F03C0; /* ret */
    publish();
    static const struct per_iteration loads[] = { { 0x08, "INST_RETIRED", 3 },
                                                  { 0x06, "LD_RETIRED", 1 },
                                                  { 0x07, "ST_RETIRED", 0 } };
    check_loop("iss-events-code-written", loop, buffer, loads, COUNT(loads));
    smc_code[0] = 0xF9000023; /* str x3, [x1] */
    publish();
    static const struct per_iteration stores[] = { { 0x08, "INST_RETIRED", 3 },
                                                   { 0x06, "LD_RETIRED", 0 },
                                                   { 0x07, "ST_RETIRED", 1 } };
    check_loop("iss-events-code-rewritten", loop, buffer, stores, COUNT(stores));
}

static volatile uint64_t sgis;
static void on_sgi(void)
{
    sgis++;
}

/* An SGI to itself each iteration, IRQs unmasked: one IRQ an iteration. */
static void irqs(void)
{
    rt_irq_enable(0); /* the distributor and the CPU interface on */
    *(volatile uint8_t *)GICD_IPRIORITYR(0) = 0x40;
    mmio_write32(GICD_ISENABLER0, 1u);
    rt_set_irq_handler(on_sgi);
    rt_irq_unmask();
    static const struct per_iteration t7[] = { { 0x09, "EXC_TAKEN", 1 },
                                               { 0x86, "EXC_IRQ", 1 },
                                               { 0x0A, "EXC_RETURN", 1 } };
    check_loop("iss-events-irq", loop_sgi, (void *)GICD_SGIR, t7, COUNT(t7));
    rt_irq_mask();
    rt_set_irq_handler(0);
}

/* The virtual timer wakes a WFI 200 ticks (2 us) on, IRQs unmasked: the
 * interrupt taken after the sleep is one EXC_TAKEN and one EXC_IRQ, told at
 * the wake-up (no instruction retires between the two). */
static volatile uint64_t timer_irqs;
static void on_timer(void)
{
    timer_irqs++;
    SYSREG_WRITE(cntv_ctl_el0, 0); /* the timer off: its level falls */
}

static void wfi_then_irq(uint64_t n, void *arg)
{
    (void)arg;
    for (uint64_t i = 0; i < n; i++) {
        SYSREG_WRITE(cntv_cval_el0, SYSREG_READ(cntvct_el0) + 200);
        SYSREG_WRITE(cntv_ctl_el0, 1); /* ENABLE, not masked */
        ISB();
        while (SYSREG_READ(cntv_ctl_el0) & 1)
            __asm__ volatile("wfi");
    }
}

static void irq_after_wfi(void)
{
    rt_irq_enable(0);
    *(volatile uint8_t *)GICD_IPRIORITYR(INTID_VTIMER) = 0x40;
    mmio_write32(GICD_ISENABLER0, 1u << INTID_VTIMER);
    rt_set_irq_handler(on_timer);
    rt_irq_unmask();
    static const struct per_iteration rows[] = { { 0x09, "EXC_TAKEN", 1 },
                                                 { 0x86, "EXC_IRQ", 1 },
                                                 { 0x0A, "EXC_RETURN", 1 } };
    check_loop("iss-events-irq-after-wfi", wfi_then_irq, 0, rows, COUNT(rows));
    rt_irq_mask();
    rt_set_irq_handler(0);
    const char *name = "iss-events-irq-after-wfi-count";
    bool ok = true;
    EXPECT_EQ(timer_irqs, 3 * N, "timer interrupts over the N and 2N runs");
    report(name, ok);
}

/* A MEM_ACCESS counter 100 accesses before its overflow, with its
 * interrupt enabled, over a loop of two accesses an iteration, one
 * translated block each: the interrupt is taken right after the block of
 * the 100th access, the 50th iteration's. */
static volatile uint64_t iterations_at_irq, overflows;
static uint64_t counted;
static void on_overflow(void)
{
    iterations_at_irq = counted;
    overflows = SYSREG_READ(pmovsclr_el0);
    SYSREG_WRITE(pmovsclr_el0, overflows);
    SYSREG_WRITE(pmintenclr_el1, 1u);
}

static void overflow_interrupt(void)
{
    const char *name = "iss-events-mem-access-overflow-interrupt";
    bool ok = true;
    counted = 0;
    rt_irq_enable(IRQ_PMU);
    rt_set_irq_handler(on_overflow);
    SYSREG_WRITE(pmcntenclr_el0, 0xFFFFFFFFu);
    SYSREG_WRITE(pmovsclr_el0, 0xFFFFFFFFu);
    SYSREG_WRITE(pmselr_el0, 0);
    ISB();
    SYSREG_WRITE(pmxevtyper_el0, 0x13);
    SYSREG_WRITE(pmxevcntr_el0, 0xFFFFFFFFu - 99);
    SYSREG_WRITE(pmintenset_el1, 1u);
    SYSREG_WRITE(pmcr_el0, PMCR_E);
    rt_irq_unmask();
    SYSREG_WRITE(pmcntenset_el0, 1u);
    loop_counted_loads(200, &counted);
    SYSREG_WRITE(pmcntenclr_el0, 1u);
    rt_irq_mask();
    EXPECT_EQ(overflows, 1, "PMOVSSET in the handler: counter 0");
    EXPECT_EQ(iterations_at_irq, 50, "iterations done when the interrupt was taken");
    EXPECT_EQ(counted, 200, "iterations");
    rt_set_irq_handler(0);
    report(name, ok);
}

/* PMCEID0 and PMCEID1 advertise the common events the ISS counts, and no
 * cache event, which it has no model of. */
static void introspection(void)
{
    const char *name = "iss-events-pmceid";
    bool ok = true;
    const uint64_t ceid0 = SYSREG_READ(pmceid0_el0), ceid1 = SYSREG_READ(pmceid1_el0);
    const unsigned counted[] = { 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D,
                                 0x0E, 0x13, 0x19, 0x1B, 0x1C, 0x21, 0x3A, 0x3B };
    for (unsigned i = 0; i < sizeof counted / sizeof counted[0]; i++) {
        const unsigned e = counted[i];
        EXPECT_EQ(((e < 0x20 ? ceid0 : ceid1) >> (e & 31)) & 1, 1, "PMCEID bit of an event the ISS counts");
    }
    EXPECT_EQ((ceid0 >> 0x04) & 1, 0, "PMCEID0 bit of L1D_CACHE: no cache model");
    EXPECT_EQ((ceid0 >> 0x10) & 1, 0, "PMCEID0 bit of BR_MIS_PRED: no branch predictor");
    report(name, ok);
}

int suite_main(void)
{
    rt_banner("pmvp ISS events");
    memory();
    branches();
    simd_fp();
    barriers();
    exceptions();
    self_modifying();
    irqs();
    irq_after_wfi();
    overflow_interrupt();
    introspection();
    return expect_summary();
}
