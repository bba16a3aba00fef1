/* SPDX-License-Identifier: Apache-2.0 */
/* The bare-metal runtime's platform-independent part (runtime.h). */
#include "runtime.h"

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

void rt_banner(const char *title)
{
    rt_puts(title);
    rt_puts(" on ");
    rt_puts(rt_platform_name());
    rt_puts(", PE ");
    rt_put_dec(rt_pe_index());
    rt_puts(" of ");
    rt_put_dec(rt_num_pes());
    rt_puts(", CPI ");
    rt_put_dec(rt_cpi());
    rt_putc('\n');
}

static rt_irq_handler irq_handler;
static rt_sync_handler sync_handler;
static rt_lower_handler lower_handler;

void rt_set_irq_handler(rt_irq_handler h)
{
    irq_handler = h;
}
void rt_set_sync_handler(rt_sync_handler h)
{
    sync_handler = h;
}
void rt_set_lower_handler(rt_lower_handler h)
{
    lower_handler = h;
}

void rt_irq_handle(void)
{
    if (irq_handler)
        irq_handler();
}

/* Called from the vectors (start.S) with the vector's number. */
void rt_exception(unsigned kind)
{
    if (kind == 5 && irq_handler) {
        rt_irq_take();
        return;
    }
    uint64_t esr = SYSREG_READ(esr_el1);
    if (kind == 4 && sync_handler && sync_handler(esr)) {
        SYSREG_WRITE(elr_el1, SYSREG_READ(elr_el1) + 4);
        return;
    }
    if (kind == 8 && lower_handler) {
        lower_handler(esr);
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

extern char __bss_start[], __bss_end[];

void rt_main(unsigned pe)
{
    rt_irq_mask();
    if (pe != 0)
        rt_secondary(pe);
    for (char *p = __bss_start; p < __bss_end; p++)
        *p = 0;
    int failed = suite_main();
    rt_stop_others();
    rt_exit(failed ? 1 : 0);
}
