/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ISS benchmarks' guest (bench/README.md): BENCH_ITERATIONS iterations
 * of a loop of 16 instructions plus the loop's own two. BENCH_MRS makes the
 * 16 MRS PMCCNTR_EL0 (with the cycle counter enabled), BENCH_MSR 16 MSR
 * PMCCNTR_EL0 (each setting the counting cycle counter to 0), otherwise they
 * are ALU instructions: the two images retire the same instructions, so the
 * difference of their host times is the cost of the access. BENCH_EVENTS
 * enables, before the loop, every event counter the PMU has (PMCR_EL0.N)
 * and the cycle counter, the event counters counting the ISS's events of
 * instructions (docs/FIRMWARE.md, "Events") in turn. BENCH_LOAD=ADDRESS
 * makes them 32-bit loads from a device register at ADDRESS (the PMU
 * frame's PMCCNTR_EL0 on pmvp, a UART register on QEMU's virt machine).
 */
#include "runtime.h"

#ifdef BENCH_MRS
#define BODY_INSN "mrs x10, pmccntr_el0\n\t"
#elif defined(BENCH_MSR)
#define BODY_INSN "msr pmccntr_el0, x10\n\t"
#elif defined(BENCH_LOAD)
#define BODY_INSN "ldr w10, [x11]\n\t"
#else
#define BODY_INSN "add x10, x10, #1\n\t"
#endif
#define BODY4 BODY_INSN BODY_INSN BODY_INSN BODY_INSN

#ifdef BENCH_EVENTS
static const uint16_t events[] = { 0x08, 0x1B, 0x3A, 0x3B, 0x66, 0x67, 0x13, 0x06, 0x07, 0x70, 0x71,
                                   0x72, 0x21, 0x0D, 0x0E, 0x0C, 0x78, 0x79, 0x7A, 0x76, 0x73, 0x74,
                                   0x75, 0x77, 0x7C, 0x7D, 0x7E, 0x6C, 0x6F, 0x0B, 0x1C };

static void count_every_event(void)
{
    const unsigned n = (SYSREG_READ(pmcr_el0) >> 11) & 31;
    for (unsigned i = 0; i < n; i++) {
        SYSREG_WRITE(pmselr_el0, i);
        ISB();
        SYSREG_WRITE(pmxevtyper_el0, events[i % (sizeof events / sizeof events[0])]);
    }
    SYSREG_WRITE(pmcntenset_el0, (1u << 31) | ((1u << n) - 1));
    SYSREG_WRITE(pmcr_el0, 1u);
    ISB();
}
#endif

int suite_main(void)
{
#ifdef BENCH_EVENTS
    count_every_event();
#endif
#if defined(BENCH_MRS) || defined(BENCH_MSR) || defined(BENCH_LOAD)
    SYSREG_WRITE(pmcntenset_el0, 1u << 31);
    SYSREG_WRITE(pmcr_el0, 1u);
    ISB();
#endif
#ifndef BENCH_LOAD
#define BENCH_LOAD 0
#endif
    __asm__ volatile("mov x9, %0\n\tmov x11, %1\n\tmov x10, xzr\n1:\t" BODY4 BODY4 BODY4 BODY4
                     "subs x9, x9, #1\n\tb.ne 1b"
                     :
                     : "r"((uint64_t)BENCH_ITERATIONS), "r"((uint64_t)BENCH_LOAD)
                     : "x9", "x10", "x11", "cc", "memory");
    rt_puts("iterations ");
    rt_put_dec(BENCH_ITERATIONS);
    rt_putc('\n');
    return 0;
}
