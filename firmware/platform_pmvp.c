/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime on the pmvp platform: everything goes through the
 * system-control device, banked per PE (docs/FIRMWARE.md), and PE 0 reaches
 * the others through a mailbox and their doorbells.
 */
#include "runtime.h"
#include "sysctl.h"

static uint32_t sysctl_read(unsigned off)
{
    return mmio_read32(SYSCTL_BASE + off);
}
static void sysctl_write(unsigned off, uint32_t v)
{
    mmio_write32(SYSCTL_BASE + off, v);
}

const char *rt_platform_name(void)
{
    return "pmvp";
}
unsigned rt_num_pes(void)
{
    return sysctl_read(SYSCTL_NUM_PES);
}
unsigned rt_threads(void)
{
    return sysctl_read(SYSCTL_THREADS);
}
uint64_t rt_core_hz(void)
{
    return sysctl_read(SYSCTL_CORE_HZ);
}
uint64_t rt_cpi(void)
{
    return sysctl_read(SYSCTL_CPI);
}
uint64_t rt_syscnt_hz(void)
{
    return sysctl_read(SYSCTL_SYSCNT_HZ);
}
bool rt_has_frames(void)
{
    return true;
}
uint32_t rt_wfx_choices(void)
{
    return sysctl_read(SYSCTL_WFX);
}
uint64_t rt_pe_index(void)
{
    return sysctl_read(SYSCTL_PE);
}
unsigned rt_soc_pe(void)
{
    return sysctl_read(SYSCTL_SOC_PE);
}

void rt_putc(char c)
{
    sysctl_write(SYSCTL_CONSOLE, (uint8_t)c);
}

void rt_exit(unsigned status)
{
    sysctl_write(SYSCTL_EXIT, status);
    for (;;)
        __asm__ volatile("wfi");
}

void rt_irq_enable(uint32_t lines)
{
    sysctl_write(SYSCTL_IRQ_ENABLE, lines);
}
uint32_t rt_irq_status(void)
{
    return sysctl_read(SYSCTL_IRQ_STATUS);
}

/* The device needs no acknowledgement: the handler clears the source. */
void rt_irq_take(void)
{
    rt_irq_handle();
}

/* ---- the mailbox: one slot per PE, written by PE 0 */
static struct {
    volatile rt_job fn;
    volatile uint64_t arg;
    volatile uint32_t started;
    volatile uint32_t done;
    volatile uint32_t stop;
} mailbox[8];

void rt_start_on(unsigned pe, rt_job fn, uint64_t arg)
{
    mailbox[pe].fn = fn;
    mailbox[pe].arg = arg;
    mailbox[pe].started = 0;
    mailbox[pe].done = 0;
    __asm__ volatile("dsb sy" : : : "memory");
    sysctl_write(SYSCTL_DOORBELL_SET, pe);
    while (!mailbox[pe].started)
        ;
}

void rt_wait_on(unsigned pe)
{
    while (!mailbox[pe].done)
        ;
}

void rt_run_on(unsigned pe, rt_job fn, uint64_t arg)
{
    rt_start_on(pe, fn, arg);
    rt_wait_on(pe);
}

void rt_stop_others(void)
{
    unsigned n = rt_num_pes();
    for (unsigned pe = 1; pe < n && pe < 8; pe++) {
        mailbox[pe].stop = 1;
        __asm__ volatile("dsb sy" : : : "memory");
        sysctl_write(SYSCTL_DOORBELL_SET, pe);
    }
}

/* A PE other than 0 sleeps in WFI with its interrupts masked (WFI still
 * wakes on the doorbell) and runs what the mailbox holds. */
void rt_secondary(unsigned pe)
{
    rt_irq_enable(IRQ_DOORBELL);
    for (;;) {
        while (!(rt_irq_status() & IRQ_DOORBELL))
            __asm__ volatile("wfi");
        sysctl_write(SYSCTL_DOORBELL_CLEAR, 1);
        if (mailbox[pe].stop)
            rt_exit(0);
        rt_job fn = mailbox[pe].fn;
        if (fn) {
            mailbox[pe].started = 1;
            __asm__ volatile("dsb sy" : : : "memory");
            fn(mailbox[pe].arg);
            mailbox[pe].fn = 0;
            __asm__ volatile("dsb sy" : : : "memory");
            mailbox[pe].done = 1;
        }
    }
}
