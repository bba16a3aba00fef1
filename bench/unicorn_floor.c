/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmvp-bench-unicorn-floor: the floor under a guest's MRS or MSR of
 * PMCCNTR_EL0, or its load of a device register, on an ISS built on
 * Unicorn. The loop of iss-mrs (16 MRS PMCCNTR_EL0 and the loop's SUBS and
 * B.NE), of iss-msr (16 MSR PMCCNTR_EL0), of iss-load (16 32-bit loads from
 * one address) or of iss-alu (16 ADD instead), run by Unicorn with an MRS
 * hook that only writes a constant to the destination register, an MSR hook
 * that only takes the write, and an MMIO region (as pmvp's frames are) whose
 * read callback only answers a constant: what any Unicorn-based platform
 * pays for an access it answers itself, before it does any work to answer
 * it.
 *
 *   pmvp-bench-unicorn-floor mrs|msr|load|alu ITERATIONS
 *
 * Prints "seconds S" (host time of the run); exits 2 on bad arguments, 3 if
 * Unicorn fails.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unicorn/unicorn.h>

#define CODE_BASE 0x40000000u
#define DATA_BASE 0x50000000u
#define DATA_SIZE 0x1000u
#define BODY 16
#define MRS_X10_PMCCNTR 0xD53B9D0Au /* mrs x10, pmccntr_el0 */
#define MSR_PMCCNTR_X10 0xD51B9D0Au /* msr pmccntr_el0, x10 */
#define ADD_X10_1 0x9100054Au       /* add x10, x10, #1 */
#define LDR_W10_X11 0xB940016Au     /* ldr w10, [x11] */
#define SUBS_X1_1 0xF1000421u       /* subs x1, x1, #1 */
#define BNE(words_back) (0x54000001u | ((uint32_t)(-(int32_t)(words_back)) & 0x7FFFFu) << 5)

/* The hook: the constant, and the instruction done. */
static uint32_t on_mrs(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, void *user)
{
    (void)cp;
    (void)user;
    uint64_t v = 42;
    if (rt != UC_ARM64_REG_XZR)
        uc_reg_write(uc, rt, &v);
    return 1;
}

/* The MSR hook: the write taken, the instruction done. */
static uint32_t on_msr(uc_engine *uc, uc_arm64_reg rt, const uc_arm64_cp_reg *cp, void *user)
{
    (void)uc;
    (void)rt;
    *(uint64_t *)user = cp->val;
    return 1;
}

/* The MMIO read: the constant. */
static uint64_t on_read(uc_engine *uc, uint64_t offset, unsigned size, void *user)
{
    (void)uc;
    (void)offset;
    (void)size;
    (void)user;
    return 42;
}

static int fail(const char *what, uc_err e)
{
    fprintf(stderr, "pmvp-bench-unicorn-floor: %s: %s\n", what, uc_strerror(e));
    return 3;
}

int main(int argc, char **argv)
{
    const char *loop = argc == 3 ? argv[1] : "";
    uint32_t body = !strcmp(loop, "mrs")    ? MRS_X10_PMCCNTR
                    : !strcmp(loop, "msr")  ? MSR_PMCCNTR_X10
                    : !strcmp(loop, "load") ? LDR_W10_X11
                                            : ADD_X10_1;
    if (argc != 3 || (body == ADD_X10_1 && strcmp(loop, "alu")) || atol(argv[2]) <= 0) {
        fprintf(stderr, "usage: pmvp-bench-unicorn-floor mrs|msr|load|alu ITERATIONS\n");
        return 2;
    }
    uint32_t code[BODY + 2];
    for (unsigned i = 0; i < BODY; i++)
        code[i] = body;
    code[BODY] = SUBS_X1_1;
    code[BODY + 1] = BNE(BODY + 1);

    uc_engine *uc;
    uc_hook h;
    uc_err e;
    if ((e = uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &uc)))
        return fail("uc_open", e);
    if ((e = uc_mem_map(uc, CODE_BASE, 0x10000, UC_PROT_ALL)) || (e = uc_mem_write(uc, CODE_BASE, code, sizeof code)))
        return fail("map the code", e);
    if ((e = uc_hook_add(uc, &h, UC_HOOK_INSN, __extension__(void *) on_mrs, NULL, 1, 0, UC_ARM64_INS_MRS)))
        return fail("MRS hook", e);
    static uint64_t written;
    if ((e = uc_hook_add(uc, &h, UC_HOOK_INSN, __extension__(void *) on_msr, &written, 1, 0, UC_ARM64_INS_MSR)))
        return fail("MSR hook", e);
    if ((e = uc_mmio_map(uc, DATA_BASE, DATA_SIZE, on_read, NULL, NULL, NULL)))
        return fail("map the loads' page", e);
    uint64_t iterations = (uint64_t)atol(argv[2]), address = DATA_BASE;
    uc_reg_write(uc, UC_ARM64_REG_X1, &iterations);
    uc_reg_write(uc, UC_ARM64_REG_X11, &address);

    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    if ((e = uc_emu_start(uc, CODE_BASE, CODE_BASE + sizeof code, 0, 0)))
        return fail("run", e);
    clock_gettime(CLOCK_MONOTONIC, &b);
    uint64_t left = 1;
    uc_reg_read(uc, UC_ARM64_REG_X1, &left);
    uc_close(uc);
    if (left != 0) {
        fprintf(stderr, "pmvp-bench-unicorn-floor: the loop stopped with %llu iterations left\n",
                (unsigned long long)left);
        return 3;
    }
    printf("seconds %.9f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9);
    return 0;
}
