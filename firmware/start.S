// SPDX-License-Identifier: Apache-2.0
// Start-up and exception vectors of the bare-metal runtime. Every PE starts
// at _start at EL1; each gets its own 16 KiB stack, PE 0 clears .bss, and
// all call rt_main(pe) (runtime.c).

    .section .text.start, "ax"
    .global _start
_start:
    bl      rt_pe_index                 // x0 = this PE's index (no stack needed)
    mov     x19, x0
    adrp    x1, __stacks_end
    add     x1, x1, :lo12:__stacks_end
    lsl     x2, x19, #14
    sub     x1, x1, x2
    mov     sp, x1
    adrp    x1, vectors
    add     x1, x1, :lo12:vectors
    msr     vbar_el1, x1
    isb
    mov     x0, x19
    bl      rt_main
1:  wfi
    b       1b

// One entry per 128 bytes: the runtime takes synchronous exceptions and
// IRQs from the current EL with SP_ELx; everything else is unexpected.
    .macro entry kind
    .balign 0x80
    sub     sp, sp, #(8 * 32)
    stp     x0, x1, [sp, #0]
    stp     x2, x3, [sp, #16]
    stp     x4, x5, [sp, #32]
    stp     x6, x7, [sp, #48]
    stp     x8, x9, [sp, #64]
    stp     x10, x11, [sp, #80]
    stp     x12, x13, [sp, #96]
    stp     x14, x15, [sp, #112]
    stp     x16, x17, [sp, #128]
    stp     x18, x30, [sp, #144]
    mov     x0, #\kind
    b       exception_common
    .endm

    .balign 0x800
vectors:
    entry 0     // current EL, SP_EL0: synchronous
    entry 1     //   IRQ
    entry 2     //   FIQ
    entry 3     //   SError
    entry 4     // current EL, SP_ELx: synchronous
    entry 5     //   IRQ
    entry 6
    entry 7
    entry 8     // lower EL, AArch64
    entry 9
    entry 10
    entry 11
    entry 12    // lower EL, AArch32
    entry 13
    entry 14
    entry 15

exception_common:
    bl      rt_exception                // rt_exception(kind)
    ldp     x0, x1, [sp, #0]
    ldp     x2, x3, [sp, #16]
    ldp     x4, x5, [sp, #32]
    ldp     x6, x7, [sp, #48]
    ldp     x8, x9, [sp, #64]
    ldp     x10, x11, [sp, #80]
    ldp     x12, x13, [sp, #96]
    ldp     x14, x15, [sp, #112]
    ldp     x16, x17, [sp, #128]
    ldp     x18, x30, [sp, #144]
    add     sp, sp, #(8 * 32)
    eret
