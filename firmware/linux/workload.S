// SPDX-License-Identifier: Apache-2.0
//
// The Linux image set's workload (scripts/linux-image.sh): a static program
// of known instruction count, without a C library. From _start to its exit
// system call it retires
//
//     2 + 8 x ITERATIONS + 3 = 8,000,005 instructions
//
// at EL0 (the two MOVs of the count, eight a loop iteration, the three of
// the exit with its SVC), whatever the machine or the kernel: perf stat's
// instructions:u of it is that count, and its cycles:u that count x CPI on
// pmvp.
#define ITERATIONS 1000000

    .text
    .global _start
_start:
    movz    x0, #(ITERATIONS & 0xFFFF)
    movk    x0, #(ITERATIONS >> 16), lsl #16
1:  add     x1, x1, #1
    add     x2, x2, #1
    add     x3, x3, #1
    add     x4, x4, #1
    add     x5, x5, #1
    add     x6, x6, #1
    subs    x0, x0, #1
    b.ne    1b
    mov     x0, #0
    mov     x8, #93                 // exit
    svc     #0
