/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bare-metal runtime: console, exit, this PE's identity, interrupts,
 * and the mailbox through which PE 0 asks the other PEs to run code.
 * The platforms' devices are described in docs/FIRMWARE.md.
 */
#ifndef PMVP_FW_RUNTIME_H
#define PMVP_FW_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

/* ---- the memory-mapped helpers */
static inline uint32_t mmio_read32(uint64_t a)
{
    return *(volatile uint32_t *)a;
}
static inline void mmio_write32(uint64_t a, uint32_t v)
{
    *(volatile uint32_t *)a = v;
}
static inline uint64_t mmio_read64(uint64_t a)
{
    return *(volatile uint64_t *)a;
}
static inline void mmio_write64(uint64_t a, uint64_t v)
{
    *(volatile uint64_t *)a = v;
}

/* The PMU and AMU frames of the SoC's PE g on the pmvp platform (rt_has_frames()). */
#define FRAMES_BASE 0x10000000ul
#define FRAME_STRIDE 0x2000ul
#define PMU_FRAME(g) (FRAMES_BASE + (uint64_t)(g)*FRAME_STRIDE)
#define AMU_FRAME(g) (PMU_FRAME(g) + 0x1000ul)

/* `name` may be a macro standing for an S<op0>_<op1>_C<n>_C<m>_<op2> encoding. */
#define RT_STR_(x) #x
#define RT_STR(x) RT_STR_(x)
#define SYSREG_READ(name)                                     \
    ({                                                        \
        uint64_t v_;                                          \
        __asm__ volatile("mrs %0, " RT_STR(name) : "=r"(v_)); \
        v_;                                                   \
    })
#define SYSREG_WRITE(name, v) __asm__ volatile("msr " RT_STR(name) ", %0" : : "r"((uint64_t)(v)) : "memory")
#define ISB() __asm__ volatile("isb" : : : "memory")

/* ---- what the platform is. Two builds of the runtime: the pmvp platform
 * (platform_pmvp.c: its system-control device, docs/FIRMWARE.md) and QEMU's
 * `virt` machine (platform_virt.c: PL011, GICv2, semihosting), chosen by
 * firmware/CMakeLists.txt. */
const char *rt_platform_name(void);
unsigned rt_num_pes(void);   /* PEs that run this image */
unsigned rt_threads(void);   /* PEs per core */
uint64_t rt_core_hz(void);   /* the core's clock now */
uint64_t rt_cpi(void);       /* processor cycles per instruction */
uint64_t rt_syscnt_hz(void); /* the System Counter's frequency */
bool rt_has_frames(void);    /* the external PMU and AMU frames are mapped */
/* The IMPLEMENTATION DEFINED WFI/WFE choices of the core (pmvp_core_config). */
#define RT_WFX_CLOCK_STOPS 1u    /* the clock stops while every PE of the core sleeps */
#define RT_WFX_PMCCNTR_COUNTS 2u /* PMCCNTR counts cycles a sleeping PE is clocked */
#define RT_WFX_THREAD_ACTIVE 4u  /* a thread in WFI/WFE is active */
#define RT_WFX_CPU_CYCLES 8u     /* CPU_CYCLES (MT = 0) counts an active sleeping thread */
uint32_t rt_wfx_choices(void);

/* "<title> on <platform>, PE <i> of <n>, CPI <c>": a suite's first line. */
void rt_banner(const char *title);
void rt_putc(char c);
void rt_puts(const char *s);
void rt_put_dec(uint64_t v);
void rt_put_hex(uint64_t v);
void rt_exit(unsigned status) __attribute__((noreturn));
/* This PE among the PEs that run this image (0 to rt_num_pes() - 1: the
 * mailbox's index), and in the SoC, whose PEs may run other CPU models (the
 * index of its frames, PMU_FRAME). */
uint64_t rt_pe_index(void);
unsigned rt_soc_pe(void);

/* Interrupts: the handler the runtime calls for an IRQ (NULL: none), with
 * PSTATE.I cleared by rt_irq_unmask. rt_irq_enable chooses which lines
 * interrupt (and wake a WFI, whatever PSTATE.I); rt_irq_status reads them. */
#define IRQ_PMU 1u
#define IRQ_DOORBELL 2u
typedef void (*rt_irq_handler)(void);
void rt_set_irq_handler(rt_irq_handler h);
void rt_irq_enable(uint32_t lines);
uint32_t rt_irq_status(void);
static inline void rt_irq_unmask(void)
{
    __asm__ volatile("msr daifclr, #2" : : : "memory");
}
static inline void rt_irq_mask(void)
{
    __asm__ volatile("msr daifset, #2" : : : "memory");
}

/* A synchronous exception the tests provoke: the handler gets ESR_EL1 and
 * returns whether to skip the faulting instruction. */
typedef bool (*rt_sync_handler)(uint64_t esr);
void rt_set_sync_handler(rt_sync_handler h);
/* A synchronous exception from EL0 (AArch64): the handler gets ESR_EL1 and
 * may set ELR_EL1 and SPSR_EL1 for the exception return. */
typedef void (*rt_lower_handler)(uint64_t esr);
void rt_set_lower_handler(rt_lower_handler h);

/* The mailbox: PE 0 runs `fn` on PE `pe` (parked in WFI): rt_start_on
 * returns once the PE has started it, rt_wait_on once it has finished;
 * rt_run_on does both. */
typedef void (*rt_job)(uint64_t arg);
void rt_start_on(unsigned pe, rt_job fn, uint64_t arg);
void rt_wait_on(unsigned pe);
void rt_run_on(unsigned pe, rt_job fn, uint64_t arg);
/* Tells every other PE to stop; PE 0 then exits with rt_exit. */
void rt_stop_others(void);

/* Between runtime.c and the platform files: the platform takes an IRQ
 * (acknowledging it where its interrupt controller asks) around
 * rt_irq_handle(), which calls the handler; a PE other than 0 goes to
 * rt_secondary() after start-up. */
void rt_irq_take(void);
void rt_irq_handle(void);
void rt_secondary(unsigned pe) __attribute__((noreturn));

/* The suite's entry on PE 0 (pmu_suite.c). */
int suite_main(void);

#endif
