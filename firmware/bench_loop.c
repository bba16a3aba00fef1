/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ISS benchmarks' guest (bench/README.md): BENCH_ITERATIONS iterations
 * of a loop of 16 instructions plus the loop's own two. BENCH_MRS makes the
 * 16 MRS PMCCNTR_EL0 (with the cycle counter enabled), otherwise they are
 * ALU instructions: the two images retire the same instructions, so the
 * difference of their host times is the cost of the MRS.
 */
#include "runtime.h"

#ifdef BENCH_MRS
#define BODY_INSN "mrs x10, pmccntr_el0\n\t"
#else
#define BODY_INSN "add x10, x10, #1\n\t"
#endif
#define BODY4 BODY_INSN BODY_INSN BODY_INSN BODY_INSN

int suite_main(void)
{
#ifdef BENCH_MRS
    SYSREG_WRITE(pmcntenset_el0, 1u << 31);
    SYSREG_WRITE(pmcr_el0, 1u);
    ISB();
#endif
    __asm__ volatile("mov x9, %0\n1:\t" BODY4 BODY4 BODY4 BODY4 "subs x9, x9, #1\n\tb.ne 1b"
                     : : "r"((uint64_t)BENCH_ITERATIONS) : "x9", "x10", "cc");
    rt_puts("iterations ");
    rt_put_dec(BENCH_ITERATIONS);
    rt_putc('\n');
    return 0;
}
