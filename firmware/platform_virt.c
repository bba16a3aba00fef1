/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime on a `virt` machine, pmvp's (pmvp-soc --machine virt) or
 * QEMU's (scripts/compare-qemu.sh): the PL011 UART for the console,
 * semihosting for the exit status, the GICv2 for the PMU's interrupt (PPI
 * 7, INTID 23), PSCI over HVC to start another PE. The image runs on one PE
 * (rt_num_pes); rt_start_on turns PE n (MPIDR_EL1 affinity n) on for one
 * job, after which it turns itself off. On QEMU the timing facts hold under
 * `-icount shift=0`, where an instruction takes one virtual nanosecond and
 * QEMU's PMU counts cycles at a fixed 1 GHz.
 */
#include "runtime.h"

#define UART_DR 0x09000000ul
#define GICD 0x08000000ul
#define GICD_CTLR (GICD + 0x000)
#define GICD_ISENABLER0 (GICD + 0x100)
#define GICD_ICENABLER0 (GICD + 0x180)
#define GICD_ISPENDR0 (GICD + 0x200)
#define GICD_IPRIORITYR(n) (GICD + 0x400 + (n))
#define GICC 0x08010000ul
#define GICC_CTLR (GICC + 0x00)
#define GICC_PMR (GICC + 0x04)
#define GICC_IAR (GICC + 0x0C)
#define GICC_EOIR (GICC + 0x10)
#define INTID_PMU 23u

#define SEMIHOSTING_SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

const char *rt_platform_name(void)
{
    return "virt";
}
unsigned rt_num_pes(void)
{
    return 1;
}
unsigned rt_threads(void)
{
    return 1;
}
uint64_t rt_core_hz(void)
{
    return 1000000000u;
}
uint64_t rt_cpi(void)
{
    return 1;
}
uint64_t rt_syscnt_hz(void)
{
    return SYSREG_READ(cntfrq_el0);
}
bool rt_has_frames(void)
{
    return false;
}
/* QEMU counts cycles as virtual time, whatever the PE does. */
uint32_t rt_wfx_choices(void)
{
    return RT_WFX_PMCCNTR_COUNTS | RT_WFX_THREAD_ACTIVE | RT_WFX_CPU_CYCLES;
}
uint64_t rt_pe_index(void)
{
    return SYSREG_READ(mpidr_el1) & 0xFF;
}
unsigned rt_soc_pe(void)
{
    return (unsigned)rt_pe_index();
}

void rt_putc(char c)
{
    mmio_write32(UART_DR, (uint8_t)c);
}

void rt_exit(unsigned status)
{
    static volatile uint64_t block[2];
    block[0] = ADP_STOPPED_APPLICATION_EXIT;
    block[1] = status;
    register uint64_t x0 __asm__("x0") = SEMIHOSTING_SYS_EXIT;
    register uint64_t x1 __asm__("x1") = (uint64_t)block;
    __asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
    for (;;)
        __asm__ volatile("wfi");
}

void rt_irq_enable(uint32_t lines)
{
    if (lines & ~IRQ_PMU) {
        rt_puts("rt_irq_enable: QEMU virt has no doorbell\n");
        rt_exit(98);
    }
    mmio_write32(GICD_CTLR, 1);
    mmio_write32(GICC_PMR, 0xFF);
    mmio_write32(GICC_CTLR, 1);
    *(volatile uint8_t *)GICD_IPRIORITYR(INTID_PMU) = 0x80;
    mmio_write32((lines & IRQ_PMU) ? GICD_ISENABLER0 : GICD_ICENABLER0, 1u << INTID_PMU);
}

uint32_t rt_irq_status(void)
{
    return (mmio_read32(GICD_ISPENDR0) >> INTID_PMU) & 1 ? IRQ_PMU : 0;
}

void rt_irq_take(void)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3FF) >= 1020)
        return; /* spurious */
    rt_irq_handle();
    mmio_write32(GICC_EOIR, iar);
}

#define PSCI_CPU_OFF 0x84000002ul
#define PSCI_CPU_ON 0xC4000003ul
#define PSCI_AFFINITY_INFO 0xC4000004ul

static uint64_t psci(uint64_t fn, uint64_t a1, uint64_t a2)
{
    register uint64_t x0 __asm__("x0") = fn, x1 __asm__("x1") = a1, x2 __asm__("x2") = a2;
    __asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2) : : "x3", "memory");
    return x0;
}

/* One job per PE that PE 0 starts (the image's other PEs are off). */
static volatile struct {
    rt_job fn;
    uint64_t arg;
    bool done;
} mailbox[8];

extern char _start[];

void rt_start_on(unsigned pe, rt_job fn, uint64_t arg)
{
    if (pe == 0 || pe >= 8) {
        rt_puts("rt_start_on: no PE ");
        rt_put_dec(pe);
        rt_putc('\n');
        rt_exit(98);
    }
    mailbox[pe].fn = fn;
    mailbox[pe].arg = arg;
    mailbox[pe].done = false;
    __asm__ volatile("dsb sy" : : : "memory");
    uint64_t r = psci(PSCI_CPU_ON, pe, (uint64_t)_start);
    if (r != 0) {
        rt_puts("rt_start_on: PSCI CPU_ON refused: ");
        rt_put_hex(r);
        rt_putc('\n');
        rt_exit(98);
    }
}

/* Until the PE finished its job and PSCI reports it off. */
void rt_wait_on(unsigned pe)
{
    while (!mailbox[pe].done || psci(PSCI_AFFINITY_INFO, pe, 0) != 1)
        __asm__ volatile("yield" : : : "memory");
}

void rt_run_on(unsigned pe, rt_job fn, uint64_t arg)
{
    rt_start_on(pe, fn, arg);
    rt_wait_on(pe);
}

void rt_stop_others(void) {}

void rt_secondary(unsigned pe)
{
    mailbox[pe].fn(mailbox[pe].arg);
    __asm__ volatile("dsb sy" : : : "memory");
    mailbox[pe].done = true;
    __asm__ volatile("dsb sy" : : : "memory");
    psci(PSCI_CPU_OFF, 0, 0);
    for (;;)
        __asm__ volatile("wfi");
}
