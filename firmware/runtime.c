/* SPDX-License-Identifier: Apache-2.0 */
/* The bare-metal runtime (runtime.h). */
#include "runtime.h"

void rt_putc(char c) { sysctl_write(SYSCTL_CONSOLE, (uint8_t)c); }

void rt_puts(const char *s)
{
    while (*s)
        rt_putc(*s++);
}

void rt_put_dec(uint64_t v)
{
    char b[21];
    int i = 20;
    b[i] = 0;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    rt_puts(&b[i]);
}

void rt_put_hex(uint64_t v)
{
    rt_puts("0x");
    for (int s = 60; s >= 0; s -= 4) {
        unsigned d = (unsigned)(v >> s) & 0xF;
        if (d || s == 0 || v >> s)
            rt_putc((char)(d < 10 ? '0' + d : 'a' + d - 10));
    }
}

void rt_exit(unsigned status)
{
    sysctl_write(SYSCTL_EXIT, status);
    for (;;)
        __asm__ volatile("wfi");
}

uint64_t rt_pe_index(void) { return sysctl_read(SYSCTL_PE); }

static rt_irq_handler irq_handler;
static rt_sync_handler sync_handler;

void rt_set_irq_handler(rt_irq_handler h) { irq_handler = h; }
void rt_set_sync_handler(rt_sync_handler h) { sync_handler = h; }

/* Called from the vectors (start.S) with the vector's number. */
void rt_exception(unsigned kind)
{
    if (kind == 5 && irq_handler) {
        irq_handler();
        return;
    }
    uint64_t esr = SYSREG_READ(esr_el1);
    if (kind == 4 && sync_handler && sync_handler(esr)) {
        SYSREG_WRITE(elr_el1, SYSREG_READ(elr_el1) + 4);
        return;
    }
    rt_puts("unexpected exception: vector ");
    rt_put_dec(kind);
    rt_puts(" ESR_EL1 ");
    rt_put_hex(esr);
    rt_puts(" ELR_EL1 ");
    rt_put_hex(SYSREG_READ(elr_el1));
    rt_putc('\n');
    rt_exit(99);
}

/* ---- the mailbox: one slot per PE, written by PE 0 */
static struct {
    volatile rt_job fn;
    volatile uint64_t arg;
    volatile uint32_t done;
    volatile uint32_t stop;
} mailbox[8];

void rt_run_on(unsigned pe, rt_job fn, uint64_t arg)
{
    mailbox[pe].fn = fn;
    mailbox[pe].arg = arg;
    mailbox[pe].done = 0;
    __asm__ volatile("dsb sy" : : : "memory");
    sysctl_write(SYSCTL_DOORBELL_SET, pe);
    while (!mailbox[pe].done)
        ;
}

void rt_stop_others(void)
{
    unsigned n = sysctl_read(SYSCTL_NUM_PES);
    for (unsigned pe = 1; pe < n && pe < 8; pe++) {
        mailbox[pe].stop = 1;
        __asm__ volatile("dsb sy" : : : "memory");
        sysctl_write(SYSCTL_DOORBELL_SET, pe);
    }
}

/* A PE other than 0 sleeps in WFI with its interrupts masked (WFI still
 * wakes on the doorbell) and runs what the mailbox holds. */
static void secondary(unsigned pe)
{
    sysctl_write(SYSCTL_IRQ_ENABLE, IRQ_DOORBELL);
    for (;;) {
        while (!(sysctl_read(SYSCTL_IRQ_STATUS) & IRQ_DOORBELL))
            __asm__ volatile("wfi");
        sysctl_write(SYSCTL_DOORBELL_CLEAR, 1);
        if (mailbox[pe].stop)
            rt_exit(0);
        if (mailbox[pe].fn) {
            mailbox[pe].fn(mailbox[pe].arg);
            mailbox[pe].fn = 0;
            __asm__ volatile("dsb sy" : : : "memory");
            mailbox[pe].done = 1;
        }
    }
}

extern char __bss_start[], __bss_end[];

void rt_main(unsigned pe)
{
    rt_irq_mask();
    if (pe != 0)
        secondary(pe);
    for (char *p = __bss_start; p < __bss_end; p++)
        *p = 0;
    int failed = suite_main();
    rt_stop_others();
    rt_exit(failed ? 1 : 0);
}
