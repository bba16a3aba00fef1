/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Intel-style clock counting (Intel SDM Vol. 3B, 18.20 "Counting Clocks",
 * with the architectural performance monitoring, version 3, that programs
 * it): one processor core of 1 or 2 logical processors (Hyper-Threading),
 * each with
 *   - IA32_FIXED_CTR0 INST_RETIRED.ANY, IA32_FIXED_CTR1 CPU_CLK_UNHALTED.THREAD
 *     and IA32_FIXED_CTR2 CPU_CLK_UNHALTED.REF_TSC, controlled by
 *     IA32_FIXED_CTR_CTRL;
 *   - general-purpose counters IA32_PMCx programmed by IA32_PERFEVTSELx
 *     (event select, umask, USR, OS, E, INT, ANY, EN, INV, CMASK);
 *   - IA32_PERF_GLOBAL_CTRL, IA32_PERF_GLOBAL_STATUS and
 *     IA32_PERF_GLOBAL_OVF_CTRL, and a PMI on overflow;
 *   - IA32_MPERF and IA32_APERF;
 * and the core's time-stamp counter.
 *
 * Clocks. Three clock domains of the kernel's clock model (clock.h), so all
 * counts are exact: the core clock (its frequency is the P-state: it changes
 * with pmvp_x86_set_core_clock), the TSC/reference clock (constant: TSC,
 * REF_TSC, MPERF) and the bus clock XCLK (REF_XCLK, ONE_THREAD_ACTIVE).
 * Time and laziness follow core.h: every call takes `now` in picoseconds,
 * calls come in non-decreasing time (an earlier one fails with
 * PMVP_ERR_PAST and changes nothing), a change at t takes effect after the
 * clock edges at or before t, and no work is done per cycle.
 *
 * Counting rules (18.20):
 *   - A logical processor that is halted (HLT, MWAIT C1, or a deeper MWAIT
 *     C-state) does not count unhalted cycles. The counters of the core are
 *     powered down, and count nothing, only while every logical processor
 *     of the core is halted.
 *   - A P-state change changes the core-clock rate, not the TSC or
 *     reference rates.
 *   - The TSC counts at the TSC rate whatever the P-state and halt state,
 *     except that a TSC that is not invariant stops while every logical
 *     processor of the core is in a deep sleep state.
 *   - APERF counts core cycles and MPERF TSC-rate cycles while the logical
 *     processor is in C0 (unhalted), whatever its CPL.
 *
 * Clock events (programmable: event 0x3C; fixed counters 1 and 2), per tick
 * of the clock each counts:
 *   THREAD / THREAD_P (umask 0x00)  core clock  LP unhalted
 *   REF_TSC (fixed counter 2)       TSC clock   LP unhalted
 *   REF_XCLK (umask 0x01)           XCLK        LP unhalted
 *   ONE_THREAD_ACTIVE (umask 0x02)  XCLK        LP unhalted, the other LP halted
 * With AnyThread (PERFEVTSEL.ANY, IA32_FIXED_CTR_CTRL.AnyThread) a tick
 * counts once when the condition holds for any logical processor of the
 * core (THREAD_ANY: a core cycle with any thread unhalted); an occurrence
 * event with AnyThread counts the occurrences of every logical processor.
 *
 * CPL qualification. OS counts at CPL 0, USR at CPL 1-3; a tick or
 * occurrence is counted when the logical processor it belongs to is at a
 * CPL the counter selects. Ticks outside the qualification are not seen by
 * the counter at all (not even as zero-increment ticks for INV). Two modes
 * (pmvp_x86_cpl_mode) decide whose OS/USR bits qualify what:
 *   PMVP_X86_CPL_PER_THREAD   architectural: a counter's own OS/USR bits
 *       qualify every logical processor it counts (its own, or all with
 *       AnyThread). An event the CPU model reports for the core as a whole
 *       (pmvp_x86_report_core: thread-independent) counts when a logical
 *       processor the counter counts is at a CPL it selects.
 *   PMVP_X86_CPL_T0_T1   the shared event-selection control of Table 18-30
 *       ("Effect of Logical Processor and CPL Qualification for
 *       Non-logical-Processor-specific (TI) Events"): counter x of the core
 *       has T0_OS/T0_USR and T1_OS/T1_USR, which are the OS/USR bits that
 *       logical processor 0 and 1 hold in their own control of counter x.
 *       Thread-specific events of logical processor u are qualified by
 *       T<u>_OS/T<u>_USR. A thread-independent event counts when some
 *       logical processor is at CPL 0 and some T<u>_OS is set, or some
 *       logical processor is at CPL 1-3 and some T<u>_USR is set: exactly the
 *       table ("zero count" when all four bits are 0; "counts irrespective
 *       of CPL, T0, T1" when an OS and a USR bit are set).
 *
 * E, INV and CMASK. For a clock event the increment of a tick is 0 or 1;
 * for an occurrence event, a report is one cycle's increment (a CPU model
 * that wants INV to see cycles without occurrences reports them with a
 * count of 0). With CMASK = 0 the counter adds the increment (INV inverts
 * the CMASK comparison, so it has no effect then). With CMASK = c > 0 it
 * adds 1 when (increment >= c) XOR INV. With E it adds 1 only when that
 * condition (increment != 0 when CMASK = 0) is true and was false on the
 * previous tick or report the counter saw.
 *
 * Overflow. A counter of width W wraps to 0 after 2^W - 1 and sets its bit
 * in IA32_PERF_GLOBAL_STATUS (PMCx: bit x; FIXED_CTRx: bit 32 + x). The PMI
 * of a logical processor (pmvp_x86_pmi) is high while a status bit is set
 * whose counter has its interrupt enabled (PERFEVTSEL.INT,
 * IA32_FIXED_CTR_CTRL.PMI); IA32_PERF_GLOBAL_OVF_CTRL clears status bits.
 * Freezing counters on a PMI (IA32_DEBUGCTL) is not modelled.
 *
 * MSR access outcomes. An MSR this core does not have, a reserved bit set
 * in a write, a write to a read-only MSR, RDPMC with an invalid counter or
 * at CPL > 0 without CR4.PCE, and RDTSC at CPL > 0 with CR4.TSD, return
 * PMVP_ERR_GP (the #GP(0) the instruction raises) and change nothing.
 */
#ifndef PMVP_X86_H
#define PMVP_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmvp/clock.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

#define PMVP_X86_MAX_THREADS 2
#define PMVP_X86_MAX_GP 8
#define PMVP_X86_NUM_FIXED 3
#define PMVP_X86_FIXED_BASE 32 /* FIXED_CTRx is counter 32 + x (GLOBAL_CTRL/STATUS bit) */

/* MSR addresses (of instance 0 where there are several: + x), from
 * x86_msrs.def, where each MSR is described once. */
enum pmvp_x86_msr {
#define PMVP_X86_MSR(id, address, ...) PMVP_MSR_##id = address,
#include "pmvp/x86_msrs.def"
};

/* One MSR of the table, for tools that show registers. */
typedef struct pmvp_x86_msr_info {
    const char *name;      /* "IA32_PERFEVTSEL0" */
    uint32_t address;      /* of instance 0 */
    const char *instances; /* "1", "num_gp" or "3" (the fixed counters) */
    const char *needs;     /* "" or the configuration field that enables it */
    const char *access;    /* "RW", "RO" or "RW, bits are actions (reads 0)" */
    const char *title;
    const char *state; /* where its value lives ("th->mperf": th is the
                               logical processor's pmvp_x86_thread, c the
                               core), or NULL: it holds none */
} pmvp_x86_msr_info;

/* Every MSR of the table, in address order; NULL beyond the last. */
size_t pmvp_x86_msr_count(void);
const pmvp_x86_msr_info *pmvp_x86_msr_at(size_t i);

/* IA32_PERFEVTSELx fields. Bit 19 (PC, pin control) and bits 63:32 are
 * reserved in this model: writing them is #GP. */
#define PMVP_X86_EVTSEL_EVENT UINT64_C(0xFF)
#define PMVP_X86_EVTSEL_UMASK_SHIFT 8
#define PMVP_X86_EVTSEL_USR (UINT64_C(1) << 16)
#define PMVP_X86_EVTSEL_OS (UINT64_C(1) << 17)
#define PMVP_X86_EVTSEL_E (UINT64_C(1) << 18)
#define PMVP_X86_EVTSEL_INT (UINT64_C(1) << 20)
#define PMVP_X86_EVTSEL_ANY (UINT64_C(1) << 21)
#define PMVP_X86_EVTSEL_EN (UINT64_C(1) << 22)
#define PMVP_X86_EVTSEL_INV (UINT64_C(1) << 23)
#define PMVP_X86_EVTSEL_CMASK_SHIFT 24

/* IA32_FIXED_CTR_CTRL: four bits per fixed counter x, at 4x. */
#define PMVP_X86_FIXED_OS 0x1u  /* enable: count at CPL 0 */
#define PMVP_X86_FIXED_USR 0x2u /* enable: count at CPL > 0 */
#define PMVP_X86_FIXED_ANY 0x4u /* AnyThread */
#define PMVP_X86_FIXED_PMI 0x8u

/* IA32_PERF_CAPABILITIES.FW_WRITE: IA32_A_PMCx exist (bit 13). */
#define PMVP_X86_PERF_CAP_FW_WRITE (UINT64_C(1) << 13)

/* Events, as umask << 8 | event select. */
#define PMVP_X86_INST_RETIRED_ANY 0x00C0u          /* fixed counter 0 */
#define PMVP_X86_CPU_CLK_UNHALTED_THREAD_P 0x003Cu /* fixed counter 1 counts it too */
#define PMVP_X86_CPU_CLK_UNHALTED_REF_XCLK 0x013Cu
#define PMVP_X86_CPU_CLK_UNHALTED_ONE_THREAD_ACTIVE 0x023Cu
#define PMVP_X86_EVENT(select, umask) ((uint16_t)(((umask) << 8) | (select)))

enum pmvp_x86_cpl_mode { PMVP_X86_CPL_PER_THREAD, PMVP_X86_CPL_T0_T1 };

typedef struct pmvp_x86_config {
    unsigned num_threads; /* logical processors of the core: 1 or 2 */
    unsigned num_gp;      /* general-purpose counters per LP: 0..8 */
    unsigned gp_width;    /* their width in bits: 32..48 */
    unsigned fixed_width; /* the fixed counters' width in bits: 32..48 */
    /* IA32_PERF_CAPABILITIES.FW_WRITE: the full-width aliases IA32_A_PMCx
     * exist. Writes to IA32_PMCx always set bits 31:0 and sign-extend bit 31. */
    bool full_width_writes;
    uint64_t core_hz;   /* initial core clock (the P-state's frequency) */
    uint64_t tsc_hz;    /* TSC and reference clock: REF_TSC, MPERF */
    uint64_t xclk_hz;   /* bus clock: REF_XCLK, ONE_THREAD_ACTIVE */
    bool tsc_invariant; /* CPUID.80000007H:EDX[8]: the TSC never stops */
    enum pmvp_x86_cpl_mode cpl_mode;
} pmvp_x86_config;

/* Defaults: 2 logical processors, 4 general-purpose counters, 48-bit
 * counters, full-width writes, 2 GHz core, 2 GHz TSC, 100 MHz XCLK,
 * invariant TSC, PMVP_X86_CPL_PER_THREAD. */
void pmvp_x86_config_default(pmvp_x86_config *cfg);

/* C-state of a logical processor. */
enum pmvp_x86_state {
    PMVP_X86_C0,        /* executing (unhalted) */
    PMVP_X86_HALT,      /* HLT or MWAIT C1 */
    PMVP_X86_DEEP_SLEEP /* a deeper MWAIT C-state: a non-invariant TSC stops in it */
};

typedef struct pmvp_x86_context {
    uint8_t cpl;  /* current privilege level 0..3 */
    bool cr4_pce; /* RDPMC allowed at CPL > 0 */
    bool cr4_tsd; /* RDTSC refused at CPL > 0 */
} pmvp_x86_context;

typedef struct pmvp_x86_counter {
    uint64_t value;      /* as of the core's sync instant */
    bool last_condition; /* E: the condition on the last tick or report seen */
} pmvp_x86_counter;

typedef struct pmvp_x86_thread {
    uint8_t state; /* enum pmvp_x86_state */
    pmvp_x86_context ctx;
    uint64_t evtsel[PMVP_X86_MAX_GP];
    uint64_t fixed_ctrl, global_ctrl, global_status;
    pmvp_x86_counter gp[PMVP_X86_MAX_GP], fixed[PMVP_X86_NUM_FIXED];
    uint64_t aperf, mperf;
} pmvp_x86_thread;

/* A counter that a tick of a clock changes in the present state (x86.c's
 * sync): without edge detection, by one each tick; with it, by the edge of
 * its condition on the tick's clock input. */
typedef struct pmvp_x86_tick {
    uint8_t thread, id, kind;
    uint8_t increment; /* the clock input of a tick: 0 or 1 */
    bool edge, inv;
    uint8_t cmask;
} pmvp_x86_tick;

typedef struct pmvp_x86_core {
    pmvp_x86_config cfg;
    pmvp_clock core_clock, tsc_clock, xclk;
    pmvp_time last_call, sync_time;
    uint64_t core_edges, tsc_edges, xclk_edges; /* edges up to sync_time */
    uint64_t tsc;                               /* as of sync_time */
    pmvp_x86_thread thread[PMVP_X86_MAX_THREADS];
    /* A cache of the counters of clock ticks, derived from the controls,
     * C-states and contexts and rebuilt after an input that changes one
     * (not part of a checkpoint). */
    pmvp_x86_tick ticks[PMVP_X86_MAX_THREADS * (PMVP_X86_MAX_GP + PMVP_X86_NUM_FIXED)];
    uint8_t num_ticks;
    bool ticks_valid;
} pmvp_x86_core;

/* Validates *cfg and sets the core to its state after reset at time 0:
 * every logical processor in C0 at CPL 0, counters and controls 0 except
 * IA32_PERF_GLOBAL_CTRL, whose general-purpose enable bits are 1. */
int pmvp_x86_init(pmvp_x86_core *core, const pmvp_x86_config *cfg);
/* The same; on PMVP_ERR_CONFIG, *why names the field and the rule. */
int pmvp_x86_init_why(pmvp_x86_core *core, const pmvp_x86_config *cfg, const char **why);

/* Core clock from `now` on (a P-state change; 0 stops the core clock).
 * PMVP_ERR_VALUE above PMVP_MAX_CLOCK_HZ (1 THz). */
int pmvp_x86_set_core_clock(pmvp_x86_core *core, uint64_t hz, pmvp_time now);
int pmvp_x86_set_state(pmvp_x86_core *core, unsigned thread, enum pmvp_x86_state st, pmvp_time now);
int pmvp_x86_set_context(pmvp_x86_core *core, unsigned thread, const pmvp_x86_context *ctx, pmvp_time now);

/* Logical processor `thread` generated `count` occurrences of `event`
 * (umask << 8 | event select) at `now`: a thread-specific event.
 * PMVP_ERR_EVENT for the clock events (0x3C umask 0x00-0x02), which the
 * kernel derives itself. */
int pmvp_x86_report(pmvp_x86_core *core, unsigned thread, uint16_t event, uint64_t count, pmvp_time now);
/* The core generated `count` occurrences of a thread-independent event. */
int pmvp_x86_report_core(pmvp_x86_core *core, uint16_t event, uint64_t count, pmvp_time now);

/* RDMSR / WRMSR by logical processor `thread` at `now`. */
int pmvp_x86_rdmsr(pmvp_x86_core *core, unsigned thread, uint32_t msr, pmvp_time now, uint64_t *value);
int pmvp_x86_wrmsr(pmvp_x86_core *core, unsigned thread, uint32_t msr, uint64_t value, pmvp_time now);
/* RDPMC with ECX = `ecx` (bit 30: fixed counter ECX[29:0]; else PMCx). */
int pmvp_x86_rdpmc(pmvp_x86_core *core, unsigned thread, uint32_t ecx, pmvp_time now, uint64_t *value);
int pmvp_x86_rdtsc(pmvp_x86_core *core, unsigned thread, pmvp_time now, uint64_t *value);

/* Whether the PMI of `thread` is requested (as of the last call). */
bool pmvp_x86_pmi(const pmvp_x86_core *core, unsigned thread);

/* The next instant after `now` at which some counter whose interrupt is
 * enabled overflows if nothing else changes, or PMVP_TIME_NEVER. Reported
 * events overflow only when reported: the caller checks pmvp_x86_pmi after
 * each report. */
int pmvp_x86_next_interrupt(pmvp_x86_core *core, pmvp_time now, pmvp_time *when);

/* Brings every counter up to `now` without changing anything else. */
int pmvp_x86_sync(pmvp_x86_core *core, pmvp_time now);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
