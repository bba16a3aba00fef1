/* SPDX-License-Identifier: Apache-2.0 */
/*
 * soc-watch: the firmware of a system-control processor. It runs on an ISS
 * cluster of a SoC whose other clusters run the analytic CPU model
 * (platform/scenarios/mixed-soc.json) and watches their PEs through the
 * external PMU and AMU frames, as power-management firmware does. For every
 * PE of an analytic core:
 *
 *  peG-frame-identity   PMU.PMDEVARCH names an Arm PMU of the EXT64 layout
 *                       (the scenario's) and AMU.AMDEVARCH an Arm AMU
 *                       (I5.3.25, I5.5.18).
 *  peG-cycle-counter    between loads of PMU.PMCCNTR_EL0 at instants t1 < t2
 *                       it advances by the processor-clock edges in (t1, t2]:
 *                       floor(t2 f) - floor(t1 f), f the core's clock.
 *  peG-cnt-cycles       AMU.AMEVCNTR01_EL0 (CNT_CYCLES) advances by the
 *                       System Counter's edges in (t1, t2].
 *
 * The counts hold for a PE that runs throughout, unfiltered, with its cycle
 * counter enabled and PMCR.D clear, at a frequency that does not change
 * over the window (the scenario's set-up); a counter that is disabled or
 * divided is reported SKIP, not guessed at.
 *
 * Timing: the platform times a load at the last instruction whose PC the
 * ISS has synchronised (docs/FIRMWARE.md); an MRS is one, exactly. So each
 * measurement is: an MRS, the load of the system-control TIME register, an
 * MRS, the frame load. The TIME load reads instant T (of its MRS, or its
 * own one instruction later if the platform timed loads exactly), and the
 * frame is read at T + 2 instructions either way.
 */
#include "expect.h"
#include "runtime.h"
#include "sysctl.h"

/* The EXT64 PMU frame and the AMU frame (I5.1, I5.5; the AMU's counters
 * are 64-bit registers at the same offsets in both of its layouts). */
#define PMU_PMCCNTR 0x0F8u
#define PMU_PMCNTENSET 0xC00u
#define PMU_PMCR 0xE10u
#define PMU_PMDEVARCH 0xFBCu
#define AMU_AMEVCNTR01 0x008u
#define AMU_AMCNTENSET0 0xC00u
#define AMU_AMDEVARCH 0xFBCu

#define DEVARCH_ARM_PRESENT (0x23Bu << 21 | 1u << 20)
#define DEVARCH_ARCHID 0xFFFFu
#define ARCHID_PMU_EXT64 0x2A26u
#define ARCHID_AMU_EXT32 0x0A66u
#define ARCHID_AMU_EXT64 0x0A67u
#define PMCR_E (1u << 0)
#define PMCR_D (1u << 3)
#define PMU_C (1u << 31)
#define AMU_CNT_CYCLES (1u << 1)

static uint64_t instruction_ps; /* this PE's CPI / f, in ps */

/* One measurement: the instant (ps) and the 64-bit value of a frame
 * register loaded right after it. */
struct sample {
    uint64_t at, value;
};

static struct sample sample(uint64_t address)
{
    uint64_t t, v;
    __asm__ volatile("mrs xzr, pmccntr_el0\n\tldr %0, [%2]\n\tmrs xzr, pmccntr_el0\n\tldr %1, [%3]"
                     : "=&r"(t), "=&r"(v)
                     : "r"(SYSCTL_BASE + SYSCTL_TIME), "r"(address)
                     : "memory");
    return (struct sample){ t + 2 * instruction_ps, v };
}

/* The edges of a clock of `mhz` MHz in (0, t ps] (the watched clocks are
 * whole numbers of MHz: the scenario's). */
static uint64_t edges(uint64_t t, uint64_t mhz)
{
    return t * mhz / 1000000u;
}

static void spin(uint64_t n)
{
    __asm__ volatile("1:\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
}

/* "pe<g><suffix>", the name of a test of PE g (g below 100). */
static const char *test_name(unsigned g, const char *suffix)
{
    static char buf[48];
    unsigned i = 0;
    buf[i++] = 'p';
    buf[i++] = 'e';
    if (g >= 10)
        buf[i++] = (char)('0' + g / 10);
    buf[i++] = (char)('0' + g % 10);
    while (*suffix && i < sizeof buf - 1)
        buf[i++] = *suffix++;
    buf[i] = 0;
    return buf;
}

static void skip(const char *name, const char *why)
{
    rt_puts("SKIP ");
    rt_puts(name);
    rt_puts(": ");
    rt_puts(why);
    rt_putc('\n');
}

/* Test `name`: from sample a to sample b a counter of the edges of a
 * `mhz` clock advanced by the edges between their instants; SKIP when the
 * counter does not count (`why_not`). */
static void advanced(const char *name, bool counting, const char *why_not, struct sample a, struct sample b,
                     uint64_t mhz, const char *why)
{
    if (!counting) {
        skip(name, why_not);
        return;
    }
    bool ok = true;
    EXPECT_EQ(b.value - a.value, edges(b.at, mhz) - edges(a.at, mhz), why);
    report(name, ok);
}

static void watch(unsigned g)
{
    uint64_t pmu = PMU_FRAME(g), amu = AMU_FRAME(g);
    {
        const char *name = test_name(g, "-frame-identity");
        bool ok = true;
        EXPECT_EQ(mmio_read32(pmu + PMU_PMDEVARCH), DEVARCH_ARM_PRESENT | ARCHID_PMU_EXT64, "PMU.PMDEVARCH");
        uint32_t amdevarch = mmio_read32(amu + AMU_AMDEVARCH);
        EXPECT_EQ(amdevarch & ~DEVARCH_ARCHID, DEVARCH_ARM_PRESENT, "AMU.AMDEVARCH: Arm, present");
        EXPECT_TRUE((amdevarch & DEVARCH_ARCHID) == ARCHID_AMU_EXT32 ||
                        (amdevarch & DEVARCH_ARCHID) == ARCHID_AMU_EXT64,
                    "AMU.AMDEVARCH.ARCHID: an AMU");
        report(name, ok);
    }

    mmio_write32(SYSCTL_BASE + SYSCTL_SELECT, g);
    uint64_t mhz = mmio_read32(SYSCTL_BASE + SYSCTL_SELECTED_HZ) / 1000000, syscnt_mhz = rt_syscnt_hz() / 1000000;
    uint64_t pmcr = mmio_read64(pmu + PMU_PMCR);
    bool cycles = (pmcr & PMCR_E) && !(pmcr & PMCR_D) && (mmio_read32(pmu + PMU_PMCNTENSET) & PMU_C);
    bool cnt = mmio_read32(amu + AMU_AMCNTENSET0) & AMU_CNT_CYCLES;

    struct sample c1 = sample(pmu + PMU_PMCCNTR), a1 = sample(amu + AMU_AMEVCNTR01);
    spin(20000);
    struct sample c2 = sample(pmu + PMU_PMCCNTR), a2 = sample(amu + AMU_AMEVCNTR01);
    rt_puts("  PE ");
    rt_put_dec(g);
    rt_puts(" at ");
    rt_put_dec(mhz);
    rt_puts(" MHz: PMCCNTR ");
    rt_put_dec(c1.value);
    rt_puts(" at ");
    rt_put_dec(c1.at);
    rt_puts(" ps, ");
    rt_put_dec(c2.value);
    rt_puts(" at ");
    rt_put_dec(c2.at);
    rt_puts(" ps; CNT_CYCLES ");
    rt_put_dec(a1.value);
    rt_puts(", ");
    rt_put_dec(a2.value);
    rt_putc('\n');

    advanced(test_name(g, "-cycle-counter"), cycles,
             "its cycle counter is disabled or divided (PMCR.E, PMCNTENSET.C, PMCR.D)", c1, c2, mhz,
             "PMCCNTR_EL0 advanced by the clock's edges");
    advanced(test_name(g, "-cnt-cycles"), cnt, "AMCNTENSET0.CNT_CYCLES is clear", a1, a2, syscnt_mhz,
             "AMEVCNTR01_EL0 advanced by the System Counter's edges");
}

/* The application cores' software enables their counters at boot, at
 * instant 0; the watcher starts later, like a system-control processor
 * that waits for the cores it manages to boot, so that what it reads does
 * not depend on the order in which the platform runs the cores of one
 * quantum (docs/FIRMWARE.md). */
#define BOOT_PS 50000000ull /* 50 us */

int suite_main(void)
{
    uint64_t hz = rt_core_hz();
    instruction_ps = rt_cpi() * 1000000000000ull / hz;
    unsigned self = rt_soc_pe(), n = mmio_read32(SYSCTL_BASE + SYSCTL_SOC_PES), watched = 0;
    rt_puts("soc-watch on SoC PE ");
    rt_put_dec(self);
    rt_puts(" of ");
    rt_put_dec(n);
    rt_putc('\n');
    if (rt_cpi() * 1000000000000ull % hz) {
        rt_puts("the instruction time is not a whole number of ps: nothing is timed exactly\n");
        return 1;
    }
    while (mmio_read64(SYSCTL_BASE + SYSCTL_TIME) < BOOT_PS)
        spin(1000);
    for (unsigned g = 0; g < n && g < 100; g++) {
        mmio_write32(SYSCTL_BASE + SYSCTL_SELECT, g);
        if (mmio_read32(SYSCTL_BASE + SYSCTL_SELECTED_MODEL) != SYSCTL_MODEL_ANALYTIC)
            continue;
        watch(g);
        watched++;
    }
    rt_puts("watched ");
    rt_put_dec(watched);
    rt_puts(" PEs of analytic cores\n");
    return expect_summary();
}
