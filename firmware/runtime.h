/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bare-metal runtime: console, exit, this PE's identity, interrupts,
 * and the mailbox through which PE 0 asks the other PEs to run code.
 * The platform devices are described in docs/FIRMWARE.md.
 */
#ifndef PMVP_FW_RUNTIME_H
#define PMVP_FW_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

/* ---- the pmvp platform's system-control device (banked per PE) */
#define SYSCTL_BASE 0x0A000000ul
#define SYSCTL_CONSOLE 0x00        /* W: one character to this PE's console */
#define SYSCTL_EXIT 0x04           /* W: exit status; this PE stops */
#define SYSCTL_PE 0x08             /* R: this PE's index in the SoC */
#define SYSCTL_NUM_PES 0x0C        /* R */
#define SYSCTL_THREAD 0x10         /* R: this PE's thread in its core */
#define SYSCTL_CORE_HZ 0x14        /* R: the core's clock now, Hz */
#define SYSCTL_CPI 0x18            /* R: processor cycles per instruction */
#define SYSCTL_SYSCNT_HZ 0x1C      /* R: the System Counter's frequency, Hz */
#define SYSCTL_IRQ_STATUS 0x20     /* R: bit 0 PMUIRQ, bit 1 doorbell */
#define SYSCTL_IRQ_ENABLE 0x24     /* RW: the same bits */
#define SYSCTL_DOORBELL_SET 0x28   /* W: ring the doorbell of PE <value> */
#define SYSCTL_DOORBELL_CLEAR 0x2C /* W: clear this PE's doorbell */
#define SYSCTL_THREADS 0x30        /* R: threads per core */
#define IRQ_PMU 1u
#define IRQ_DOORBELL 2u

/* The PMU and AMU frames of PE g (the platform's memory map). */
#define FRAMES_BASE 0x10000000ul
#define FRAME_STRIDE 0x2000ul
#define PMU_FRAME(g) (FRAMES_BASE + (uint64_t)(g) * FRAME_STRIDE)
#define AMU_FRAME(g) (PMU_FRAME(g) + 0x1000ul)

static inline uint32_t mmio_read32(uint64_t a) { return *(volatile uint32_t *)a; }
static inline void mmio_write32(uint64_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline uint64_t mmio_read64(uint64_t a) { return *(volatile uint64_t *)a; }
static inline void mmio_write64(uint64_t a, uint64_t v) { *(volatile uint64_t *)a = v; }
static inline uint32_t sysctl_read(unsigned off) { return mmio_read32(SYSCTL_BASE + off); }
static inline void sysctl_write(unsigned off, uint32_t v) { mmio_write32(SYSCTL_BASE + off, v); }

/* `name` may be a macro standing for an S<op0>_<op1>_C<n>_C<m>_<op2> encoding. */
#define RT_STR_(x) #x
#define RT_STR(x) RT_STR_(x)
#define SYSREG_READ(name) ({ uint64_t v_; __asm__ volatile("mrs %0, " RT_STR(name) : "=r"(v_)); v_; })
#define SYSREG_WRITE(name, v) __asm__ volatile("msr " RT_STR(name) ", %0" : : "r"((uint64_t)(v)) : "memory")
#define ISB() __asm__ volatile("isb" : : : "memory")

void rt_putc(char c);
void rt_puts(const char *s);
void rt_put_dec(uint64_t v);
void rt_put_hex(uint64_t v);
void rt_exit(unsigned status) __attribute__((noreturn));
uint64_t rt_pe_index(void);

/* Interrupts: the handler the runtime calls for an IRQ (NULL: none), with
 * PSTATE.I cleared by rt_irq_unmask. */
typedef void (*rt_irq_handler)(void);
void rt_set_irq_handler(rt_irq_handler h);
static inline void rt_irq_unmask(void) { __asm__ volatile("msr daifclr, #2" : : : "memory"); }
static inline void rt_irq_mask(void) { __asm__ volatile("msr daifset, #2" : : : "memory"); }

/* A synchronous exception the tests provoke: the handler gets ESR_EL1 and
 * returns whether to skip the faulting instruction. */
typedef bool (*rt_sync_handler)(uint64_t esr);
void rt_set_sync_handler(rt_sync_handler h);

/* The mailbox: PE 0 runs `fn` on PE `pe` (parked in WFI) and waits for it. */
typedef void (*rt_job)(uint64_t arg);
void rt_run_on(unsigned pe, rt_job fn, uint64_t arg);
/* Tells every other PE to stop; PE 0 then exits with rt_exit. */
void rt_stop_others(void);

/* The suite's entry on PE 0 (pmu_suite.c). */
int suite_main(void);

#endif
