/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A processor (core): 1..PMVP_MAX_PES PE threads sharing one processor clock,
 * each PE with its PMUv3 (D13, D14.4, D24.5).
 *
 * The caller owns the memory: a pmvp_core is a plain value, set up once by
 * pmvp_core_init() and never reallocated. Nothing is global: any number of
 * cores can live side by side.
 *
 * Time. Every call that can change or observe a count takes `now` (integer
 * picoseconds). Calls to one core must come in non-decreasing time; a call
 * from the past fails with PMVP_ERR_PAST and changes nothing. A state change
 * at instant t takes effect after the processor-clock edges at or before t:
 * those edges are counted under the state that held before the call.
 *
 * Laziness. No work is done per cycle. Counter values are brought up to date
 * when a call needs them, in time proportional to the number of counters,
 * whatever the length of simulated time since the previous call.
 */
#ifndef PMVP_CORE_H
#define PMVP_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "pmvp/clock.h"
#include "pmvp/error.h" /* every call returns PMVP_OK or a PMVP_ERR_* (pmvp_strerror) */

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

#define PMVP_MAX_PES 8
/* The batches one pmvp_core_report_batches call can carry: two events of
 * every PE. */
#define PMVP_MAX_BATCHES (2 * PMVP_MAX_PES)
#define PMVP_MAX_COUNTERS 31  /* NUM_PMU_COUNTERS is 0..31 (D13.1) */
#define PMVP_CYCLE_COUNTER 31 /* index of PMCCNTR in the P<n>/C bitmaps */
/* Where pmvp_pmu.counter[] keeps PMICNTR, and its bit in a route's event
 * counters: past the last event counter, so that a report
 * counts it in the same loop as them. */
#define PMVP_ICNTR_SLOT PMVP_MAX_COUNTERS
#define PMVP_MAX_LEVEL_EVENTS 64 /* room for the catalogue's level events */
#define PMVP_MAX_IMPDEF_EVENTS 32
#define PMVP_MAX_CATALOGUE_EVENTS 1280 /* room for the catalogue (pmvp_event_count()) */
#define PMVP_AMU_ARCH_COUNTERS 4       /* AMUv1 architected counters, group 0 (D16.3.1) */
#define PMVP_AMU_MAX_AUX 16            /* auxiliary counters, group 1: 0..16 (D16.1) */
/* The storage of the kernel's private caches in a pmvp_pe and a pmvp_core,
 * in 64-bit words: room for what they hold today and to spare, so that a
 * change of a cache leaves the size of the structures, and the ABI, as
 * they are. */
#define PMVP_PE_CACHE_WORDS 64
#define PMVP_CORE_CACHE_WORDS 1152

/* ---------------------------------------------------------------- config */

/* PMU architecture version, numbered as ID_AA64DFR0_EL1.PMUVer. */
enum pmvp_pmu_version { PMVP_PMUV3 = 0x1, PMVP_PMUV3P1 = 0x4, PMVP_PMUV3P4 = 0x5, PMVP_PMUV3P5 = 0x6 };

/* Multithreading type of the core (D14.4.1). */
enum pmvp_mt_policy {
    PMVP_MT_SMT,  /* every running thread is active on every processor cycle */
    PMVP_MT_FGMT, /* barrel: processor cycle k (1-based) belongs to thread (k-1) mod T */
    PMVP_MT_SOEMT /* one active thread, chosen by pmvp_core_set_active_thread() */
};

/* What the PMCR.D divider counts (the IMPLEMENTATION DEFINED
 * HasElapsed64Cycles() of the pseudocode). */
enum pmvp_divider_mode {
    /* Every processor cycle on which the cycle counter would count without
     * the divider; PMCCNTR increments on every 64th of them. */
    PMVP_DIVIDER_COUNTED_CYCLES,
    /* Every processor cycle of the core's clock; PMCCNTR increments on a
     * 64th cycle when it is one the cycle counter counts. */
    PMVP_DIVIDER_ALL_CYCLES
};

/* The behaviour pmvp gives a CONSTRAINED UNPREDICTABLE access to an event
 * counter that is not accessible (two of the behaviours D24.5.10 permits). */
enum pmvp_counter_access {
    PMVP_COUNTER_ACCESS_RAZ_WI,   /* reads as zero, writes are ignored */
    PMVP_COUNTER_ACCESS_UNDEFINED /* the access is UNDEFINED */
};

/* Layout of an external register frame (I3.1, I4.1): FEAT_PMUv3_EXT32 /
 * FEAT_AMU_EXT32 or FEAT_PMUv3_EXT64 / FEAT_AMU_EXT64. */
enum pmvp_ext_layout { PMVP_EXT32, PMVP_EXT64 };

/* Reports of guest-visible oddities (CONSTRAINED UNPREDICTABLE programming,
 * accesses to unimplemented counters). `msg` is a static string. */
typedef void (*pmvp_log_fn)(void *user, unsigned pe, const char *msg);

#define PMVP_MAX_THRESHOLDS 16

/* The FEAT_SEBEP threshold of one event (see sebep_headroom below). */
typedef struct pmvp_sebep_threshold {
    uint16_t event;
    uint64_t headroom;
} pmvp_sebep_threshold;

/* How the inaccuracy knobs choose each deviation. */
enum pmvp_inaccuracy_draw {
    /* Uniformly in [0, bound], from a generator seeded by `seed`: the same
     * seed and the same calls give the same counts. */
    PMVP_DRAW_SEEDED,
    /* Always the bound itself (the worst case a knob allows), for testing
     * software against the limit. Drops (d) stay seeded. */
    PMVP_DRAW_BOUND
};

/* An opt-in profile of the inaccuracy D13.2.2 permits, one knob per
 * permission. All zero (the default) is the exact model. Each knob's bound
 * and rule are in docs/ACCURACY.md. Events that count architectural
 * exceptional circumstances (the EXC_* events) are never made inaccurate. */
typedef struct pmvp_inaccuracy {
    uint64_t seed;
    enum pmvp_inaccuracy_draw draw;
    /* (a) Shadow effect (needs FEAT_SEBEP): an overflow of a counter in
     * synchronous mode is observed (PSTATE.PPEND) up to `shadow_events`
     * occurrences of its event after the one that overflowed it, and no
     * later than the first instruction generating it `shadow_time` ps
     * after the overflow (0: no time limit). Not for a counter at or above
     * its threshold at the latest context synchronization event. */
    uint32_t shadow_events;
    pmvp_time shadow_time;
    /* (b) Boundaries: at each enable, disable or change of Security state
     * a counter (PMCCNTR included) is off by up to `boundary_events`, more or
     * fewer, never fewer than it counted since the previous boundary. */
    uint32_t boundary_events;
    /* (c) A direct read of a counter need not see increments of the last
     * `read_delay_cycles` processor-clock cycles: reads after a read return
     * its value until up to that many cycles have passed. */
    uint32_t read_delay_cycles;
    /* (d) Each pmvp_core_report() call drops one occurrence with probability
     * `drop_ppm` per million (at most PMVP_MAX_DROP_PPM: rare). */
    uint32_t drop_ppm;
} pmvp_inaccuracy;

#define PMVP_MAX_DROP_PPM 10000

typedef struct pmvp_core_config {
    /* --- shape */
    unsigned num_pes; /* T: 1..PMVP_MAX_PES */
    enum pmvp_mt_policy mt_policy;
    unsigned num_counters; /* NUM_PMU_COUNTERS: 0..31 */

    /* --- architecture features */
    enum pmvp_pmu_version pmu_version;
    bool feat_pmuv3p7; /* MDCR_EL3.{MCCD,MPMX}; PMCR.IMP RAZ; freeze on overflow
                              (PMCR.FZO, MDCR_EL2.HPMFZO, D13.5.2.1). Requires PMUv3p5 (as
                              every feature after Armv8.5: pmvp_core_config_limit_to_version). */
    /* FEAT_PMUv3_ICNTR (Armv8.9, OPTIONAL): the instruction counter
     * PMICNTR_EL0 with its filter PMICFILTR_EL0, bit F0 (32) of the enable,
     * interrupt-enable and overflow registers, MDCR_EL3.EnPM2 and
     * PMUSERENR_EL0.IR (D13.1, D13.5.1.3). It counts the INST_RETIRED
     * occurrences its PE reports. Requires PMUv3p5. Default false. */
    bool feat_pmuv3_icntr;
    /* FEAT_PMUv3p9 (Armv8.9, with FEAT_PMUv3p8 before it): PMUACR_EL1's
     * per-counter EL0 access under PMUSERENR_EL0.UEN, PMUSERENR_EL0.TID,
     * PMZR_EL0 (also in the external frame at 0xCA0, where PMSWINC may not
     * be), the external bitmaps 64 bits wide (D13.11.3, D24.5.25,
     * D24.5.29, I5.2). ID_AA64DFR0_EL1.PMUVer reads 0b1001. Requires
     * feat_pmuv3p7. Default false. */
    bool feat_pmuv3p9;
    /* FEAT_PMUv3_SS (Armv8.9, OPTIONAL): PMU snapshots (D13.9). A Capture
     * event (PMSSCR_EL1.SS written 1, or pmvp_core_snapshot_request, the
     * IMPLEMENTATION DEFINED external request) copies the counters into
     * PMEVCNTSVR<n>_EL1, PMCCNTSVR_EL1 and PMICNTSVR_EL1 at its instant.
     * Adds PMECR_EL1.SSE, MDCR_EL2.PMSSE, MDCR_EL3.PMSSE and EnPMSS.
     * Requires PMUv3p5. Default false. */
    bool feat_pmuv3_ss;
    /* FEAT_PMUv3_EXTPMN (OPTIONAL): the third range of event counters,
     * reserved for an external agent (D13.1.1): PMCCR in the external frame
     * (0xE58) with EPMN, EPME and OSLO, which only a Most secure access
     * reaches. Counters [EPMN, N) are then inaccessible to the PE's own
     * software, enabled by PMCCR.EPME, never prohibited by MDCR_EL3.SPME,
     * MPMX or MDCR_EL2.HPMD, never frozen, and overflow at 2^64. EPMN
     * clamps MDCR_EL2.HPMN and what PMCR.N reads. Requires PMUv3p5.
     * Default false. */
    bool feat_pmuv3_extpmn;
    /* With FEAT_PMUv3_EXTPMN: the event counters an IMPLEMENTATION DEFINED
     * mechanism reserves for the external agent before the PE's software
     * runs (D13.1.1 HVGXL), so that PMCCR.EPMN reads N - extpmn_reserved
     * after a Cold reset (EPME still 0). Default 0: EPMN = N, as PMCCR's
     * Cold reset says. At most num_counters. */
    unsigned extpmn_reserved;
    /* Whether the PE allows Capture events in Debug state (D13.9,
     * IMPLEMENTATION DEFINED). Default false. */
    bool ss_capture_in_debug;
    bool feat_mtpmu;     /* FEAT_MTPMU: PMEVTYPER.MT implemented (else RES0, D13.6) */
    bool feat_hpmn0;     /* FEAT_HPMN0: MDCR_EL2.HPMN == 0 is permitted */
    bool feat_debugv8p2; /* FEAT_Debugv8p2: no authentication-interface override (RJDWFF) */
    bool have_el2, have_el3;
    bool feat_sel2;                /* Secure EL2 (needs EL2 and EL3) */
    bool feat_rme;                 /* Realm and Root states (needs EL2 and EL3) */
    bool have_aarch32;             /* FEAT_AA32 at some EL: PMCR.LC and PMCR.D implemented */
    bool el3_aarch32;              /* EL3 uses AArch32: SDCR, not MDCR_EL3 (no MPMX/MCCD) */
    bool el1_aarch32;              /* EL1 uses AArch32 (SDER32_EL3.SUNIDEN applies at EL0) */
    bool el2_aarch32;              /* EL2 uses AArch32 (HDCR, HSTR, HCPTR). Requires el1_aarch32. */
    bool feat_fgt2;                /* FEAT_FGT2 (needs feat_fgt): HDFGRTR2_EL2, HDFGWTR2_EL2 trap the
                              registers of FEAT_EBEP, SEBEP, PMUv3_ICNTR, PMUv3p9 and PMUv3_SS
                              (sysreg.h). Default false. */
    bool feat_fgt;                 /* FEAT_FGT: HDFGRTR_EL2, HDFGWTR_EL2, HAFGRTR_EL2; an access to an
                              event counter that is not accessible is UNDEFINED or trapped */
    uint8_t pmcr_imp, pmcr_idcode; /* PMCR.IMP, PMCR.IDCODE (IMPLEMENTATION DEFINED) */
    /* FEAT_EBEP (D13.3.2): the PMU Profiling exception, PMECR_EL1 and the
     * PMEE fields of MDCR_EL2/EL3; enabling the exception disables PMUIRQ
     * (ebep.h). Default false. */
    bool feat_ebep;
    /* FEAT_SEBEP (D13.3.3), requires FEAT_EBEP: PMEVTYPER<n>.SYNC and
     * PMIAR_EL1 are implemented and pmvp_core_retire() sets PSTATE.PPEND.
     * Default false. */
    bool feat_sebep;
    /* With FEAT_SEBEP, the synchronous events (RXLMVX: IMPLEMENTATION
     * DEFINED). NULL: every supported event D14.7 lists, required or
     * recommended (pmvp_event_sync_kind), but SW_INCR. Each must be a
     * supported OCCURRENCE-class catalogue event D14.7 lists: only events
     * counted at retirement can be synchronous. Read only by pmvp_core_init(). */
    const uint16_t *sync_events;
    unsigned num_sync_events;
    /* With FEAT_SEBEP, the IMPLEMENTATION SPECIFIC threshold of D13.2.2 as a
     * headroom: a counter is at or above the threshold when at most
     * `headroom` increments remain before it overflows (the spec's threshold
     * value is 2^64 - headroom for a counter that overflows at bit 63; for
     * one that overflows at bit 31 it applies to bits [31:0]). Headroom 1 is
     * the spec's maximum threshold; 0 means no value reaches the threshold.
     * sebep_headroom applies to every event without an entry in
     * sebep_thresholds (at most PMVP_MAX_THRESHOLDS entries, copied by
     * pmvp_core_init()). Default 1. */
    uint64_t sebep_headroom;
    const pmvp_sebep_threshold *sebep_thresholds;
    unsigned num_sebep_thresholds;

    /* Events this PMU supports, by number; NULL means every catalogue event
     * the kernel can count (all but PMU_OVFS and PMU_HOVFS). A number outside
     * the catalogue is an IMPLEMENTATION DEFINED occurrence event (at most
     * PMVP_MAX_IMPDEF_EVENTS of them); one in the common ranges 0x0000-0x003F
     * and 0x4000-0x403F must be a catalogue event. Read only by
     * pmvp_core_init(). PMCEID0-3 are derived from this set. */
    const uint16_t *events;
    unsigned num_events;

    /* --- clocks */
    uint64_t processor_hz;      /* initial processor clock frequency (0 = stopped) */
    uint64_t bus_hz;            /* BUS_CYCLES clock (0 = BUS_CYCLES never counts) */
    uint64_t system_counter_hz; /* System Counter, constant (CNT_CYCLES) */

    /* --- IMPLEMENTATION SPECIFIC / DEFINED choices of D14.4 and D13 */
    /* The processor clock stops while every PE is in WFI or WFE (or off).
     * Default true. (The clock always stops when every PE is off.) */
    bool clock_stops_in_wfx;
    /* PMCCNTR counts processor cycles on which its PE is in WFI/WFE, when the
     * clock runs (CONSTRAINED UNPREDICTABLE, D24.5.2). Default true: the cycle
     * counter counts every processor cycle (D14.4.1 Note). */
    bool pmccntr_counts_in_wfx;
    /* A thread in WFI/WFE is active (D14.4.1). Default false. */
    bool wfx_thread_active;
    /* CPU_CYCLES with MT == 0 counts cycles on which the thread is active and
     * in WFI/WFE (D14.4.1). Default false. Only matters if wfx_thread_active. */
    bool cpu_cycles_in_wfx;
    /* FEAT_MTPMU disabled on one PE (MTPME == 0) disables it on every PE of
     * the core (D13.6). Default false: each PE follows its own MTPME. */
    bool mtpmu_disable_core_wide;
    /* PMCR.D divider. Default PMVP_DIVIDER_COUNTED_CYCLES. */
    enum pmvp_divider_mode divider_mode;
    /* The boolean IMPLEMENTATION DEFINED "EL3 trap priority when SDD == '1'":
     * in Debug state with EDSCR.SDD == 1, an access that EL3 would trap is
     * UNDEFINED before any lower-priority trap is considered. Default false. */
    bool el3_sdd_undef_priority;
    /* Without FEAT_FGT, a System-register access to an event counter that is
     * not accessible (PMEVCNTR<n>, PMEVTYPER<n>, PMXEVCNTR, PMXEVTYPER with
     * n >= N, or n >= HPMN at EL0/EL1) is CONSTRAINED UNPREDICTABLE (D24.5.10).
     * Default PMVP_COUNTER_ACCESS_RAZ_WI. */
    enum pmvp_counter_access counter_access_unpredictable;

    /* --- Activity Monitors (D16): one AMU per PE */
    bool feat_amuv1;      /* FEAT_AMUv1. Default true. */
    bool feat_amuv1p1;    /* FEAT_AMUv1p1: AMCR.CG1RZ, AMCG1IDR_EL0 and the virtual
                              offsets AMEVCNTVOFF0<n>_EL2 (n = 0, 2, 3) and
                              AMEVCNTVOFF1<n>_EL2. Default true. */
    unsigned amu_num_aux; /* auxiliary counters (group 1): 0..16. Default 0. */
    /* The auxiliary counters that have a virtual offset AMEVCNTVOFF1<n>_EL2
     * (AMCG1IDR_EL0.CG1VOFF; IMPLEMENTATION DEFINED), bit n for counter n.
     * Needs FEAT_AMUv1p1; only implemented counters. Default 0. */
    uint16_t amu_aux_offsets;
    /* Whether AMEVTYPER1<n> is writable (programmable events) or read-only
     * (fixed events) (D16.2.2). Default true. */
    bool amu_aux_programmable;
    /* Event counted by auxiliary counter n after reset: its fixed event, or
     * the reset value pmvp chooses for the UNKNOWN AMEVTYPER1<n>. Each must
     * be an event the AMU can count (see amu.h). */
    uint16_t amu_aux_event[PMVP_AMU_MAX_AUX];
    /* The AMU power domain stays on while the PE is off, so external reads
     * return the preserved counts; otherwise (the AMU domain is the Core
     * power domain) they read as zero without error (I4.1.3). Default false. */
    bool amu_always_on;

    /* --- external register frames (I3, I4, I5) */
    enum pmvp_ext_layout pmu_ext_layout; /* default PMVP_EXT32 */
    enum pmvp_ext_layout amu_ext_layout; /* default PMVP_EXT32 */
    /* FEAT_Debugv8p4: a Most secure external access is always allowed and
     * NIDEN no longer gates external PMU access (AllowExternalPMUAccess()).
     * Default true. */
    bool feat_debugv8p4;
    /* FEAT_DoPD: the CoreSight management registers are in the Core power
     * domain (errors while it is off) and there is no Software Lock. Default false. */
    bool feat_dopd;
    /* The OPTIONAL Software Lock (PMLAR/PMLSR); EXT32 without FEAT_DoPD only.
     * Default false. */
    bool pmu_software_lock;
    /* The OPTIONAL PMSWINC_EL0 at 0xCA0 of the EXT32 frame. Default false. */
    bool pmu_ext_pmswinc;
    uint32_t pmiidr; /* PMIIDR; PMPIDR0-4 are derived from it. Default 0x0000043B. */
    uint32_t amiidr; /* AMIIDR; AMPIDR0-4 are derived from it. Default 0x0000043B. */
    /* PMMIR (FEAT_PMUv3p4; IMPLEMENTATION DEFINED). Default 0. Its THWIDTH
     * [23:20] and EDGE [27:24] fields are the threshold features (D13.8):
     * THWIDTH 1..12 implements FEAT_PMUv3_TH with a TH field that wide, EDGE
     * 1 adds FEAT_PMUv3_EDGE, 2 also FEAT_PMUv3_TH2. They need
     * feat_pmuv3p7. */
    uint64_t pmmir;
    /* MPIDR_EL1 of PE 0, which PMDEVAFF/AMDEVAFF copy. PE p has Aff0 + p, and
     * MPIDR.MT is 1 when the core has more than one PE. Default 0x80000000. */
    uint64_t mpidr;

    /* --- D13.2.2: the permitted inaccuracy, off (exact) by default */
    pmvp_inaccuracy inaccuracy;

    pmvp_log_fn log;
    void *log_user;
} pmvp_core_config;

/* Fills *cfg with the defaults above: 1 PE, SMT, 6 counters, PMUv3p5,
 * FEAT_MTPMU, FEAT_HPMN0, FEAT_Debugv8p2, EL2 and EL3 (AArch64), AArch32 at
 * EL0, 1 GHz processor and bus clocks, 100 MHz System Counter. */
void pmvp_core_config_default(pmvp_core_config *cfg);
/* Turns off every feature of a later architecture version than
 * cfg->pmu_version, and makes its frames EXT32: after
 * pmvp_core_config_default() and a change of pmu_version, the defaults of a
 * core of that version. pmvp_core_init() refuses such a feature on an earlier
 * PMU: a PE that implements FEAT_PMUv3 implements the PMU extension of its
 * architecture version (FEAT_PMUv3p1 from Armv8.1, FEAT_PMUv3p4 from
 * Armv8.4, FEAT_PMUv3p5 from Armv8.5), and a feature of Armv8.6 or later
 * (FEAT_MTPMU, FEAT_FGT, FEAT_AMUv1p1, FEAT_HPMN0, FEAT_PMUv3p7, FEAT_EBEP,
 * FEAT_SEBEP, FEAT_RME, the EXT64 frames) needs PMUv3p5, the latest version
 * pmvp models. */
void pmvp_core_config_limit_to_version(pmvp_core_config *cfg);

/* A feature a register (or one of its encodings or instructions) needs in
 * the configuration: the gate column of registers.def. */
enum pmvp_gate {
    PMVP_GATE_ALWAYS,
    PMVP_GATE_NEVER,
    PMVP_GATE_PMUV3P1,
    PMVP_GATE_PMUV3P4,
    PMVP_GATE_PMUV3P5,
    PMVP_GATE_NOT_PMUV3P5,
    PMVP_GATE_EXT_PMSWINC, /* the OPTIONAL external PMSWINC_EL0 */
    PMVP_GATE_EBEP,
    PMVP_GATE_SEBEP,
    PMVP_GATE_AMUV1,
    PMVP_GATE_AMUV1P1,
    PMVP_GATE_AMU_AUX_PROGRAMMABLE, /* cfg.amu_aux_programmable */
    PMVP_GATE_ICNTR,                /* FEAT_PMUv3_ICNTR */
    PMVP_GATE_PMUV3P9,
    PMVP_GATE_PMUV3P4_NOT_P9, /* PMMIR's 32-bit external row: 64 bits with FEAT_PMUv3p9 */
    PMVP_GATE_SS,             /* FEAT_PMUv3_SS */
    PMVP_GATE_SS_ICNTR,       /* FEAT_PMUv3_SS and FEAT_PMUv3_ICNTR: PMICNTSVR_EL1 */
    PMVP_GATE_EBEP_OR_SS,     /* PMECR_EL1 */
    PMVP_GATE_TOP_HALVES,     /* FEAT_PMUv3_TH or FEAT_PMUv3p8 (FEAT_PMUv3p9's): 0xA00 */
    PMVP_GATE_EXTPMN,         /* FEAT_PMUv3_EXTPMN: PMCCR */
    /* The external bitmaps (PMCNTEN, PMINTEN, PMOVS) are 64 bits wide with
     * FEAT_PMUv3_ICNTR or FEAT_PMUv3p9 (I5.3), 32 in EXT32 without them. */
    PMVP_GATE_WIDE_BITMAPS,
    PMVP_GATE_NARROW_BITMAPS
};

/* Whether `cfg` opens `gate`; false for an unknown gate. */
bool pmvp_gate_open(const pmvp_core_config *cfg, enum pmvp_gate gate);
/* "FEAT_PMUv3p4", "not FEAT_PMUv3p5", "pmu_ext_pmswinc", ...; "" for
 * PMVP_GATE_ALWAYS, "never" for PMVP_GATE_NEVER; NULL for an unknown gate. */
const char *pmvp_gate_name(enum pmvp_gate gate);

/* ------------------------------------------------------------ PE context */

enum pmvp_pe_state { PMVP_PE_RUN, PMVP_PE_WFI, PMVP_PE_WFE, PMVP_PE_OFF };

enum pmvp_security { PMVP_NONSECURE, PMVP_SECURE, PMVP_REALM, PMVP_ROOT };

typedef struct pmvp_context {
    uint8_t el;       /* Exception level 0..3 */
    uint8_t security; /* enum pmvp_security */
    bool aarch32;     /* current Execution state is AArch32 */
    bool halted;      /* in Debug state: Attributable events not counted */
    bool pm;          /* PSTATE.PM (FEAT_EBEP): masks the PMU exception at its target EL */
} pmvp_context;

/* Controls that higher Exception levels and the debug authentication
 * interface hold over the PMU of one PE. */
typedef struct pmvp_pmu_controls {
    uint64_t mdcr_el2;             /* or HDCR: HPMN, HPME, HPMD, HCCD, HLP, MTPME, PMEE */
    uint64_t mdcr_el3;             /* or SDCR: SPME, SCCD, MTPME, MCCD, MPMX, PMEE */
    uint64_t hcr_el2;              /* TGE (where the PMU exception is taken) */
    uint64_t scr_el3;              /* EEL2: Secure EL2 is enabled (FEAT_SEL2; EL2Enabled()) */
    uint64_t sder32_el3;           /* SUNIDEN */
    bool secure_noninvasive_debug; /* ExternalSecureNoninvasiveDebugEnabled() (SPNIDEN) */
    /* The debug logic's inputs to the external frames (I3.1.4). */
    bool noninvasive_debug; /* ExternalNoninvasiveDebugEnabled() (NIDEN); before FEAT_Debugv8p4 */
    bool os_lock;           /* OSLSR_EL1.OSLK: the OS Lock is locked */
    bool os_double_lock;    /* DoubleLockStatus() */
} pmvp_pmu_controls;

/* ----------------------------------------------------------------- state */

/* An event as a counter of this configuration counts it: looked up in the
 * catalogue once, when the counter is programmed, not on every advance. */
typedef struct pmvp_event_decoded {
    int8_t cls;    /* enum pmvp_event_class, or -1: not countable */
    uint8_t level; /* CONDITION, STALL, PER_CYCLE: its level input (pmvp_pe.level) */
    uint8_t stall; /* STALL: the level input of the stall condition it requires */
} pmvp_event_decoded;

typedef struct pmvp_pmu_counter {
    uint64_t value;   /* PMEVCNTR<n>, as of the core's sync instant */
    uint64_t evtyper; /* PMEVTYPER<n>, implemented bits only */
    /* Threshold and edge counting (D13.8, count.c): the occurrences
     * reported in the processor cycle in progress, part of its V_B, which
     * the cycle's closing edge applies. Kept for the counters whose
     * per-cycle value matters (pmvp_pe.th_tracked), zero for the others. */
    uint64_t pending;
} pmvp_pmu_counter;

/* The permitted-inaccuracy state of one counter (pmvp_inaccuracy). */
typedef struct pmvp_slack {
    uint64_t base;          /* (b) the value at the previous boundary */
    uint64_t shown;         /* (c) the value the latest direct read returned */
    pmvp_time shown_until;  /* (c) direct reads before this instant return `shown` */
    pmvp_time shadow_until; /* (a) the instant the shadow ends; pmvp_pmu.shadow_left
                                 holds the occurrences still in it */
} pmvp_slack;

typedef struct pmvp_pmu {
    uint64_t pmcr;   /* writable bits of PMCR_EL0 */
    uint64_t pmecr;  /* PMECR_EL1 (FEAT_EBEP) */
    uint64_t pmiar;  /* PMIAR_EL1 (FEAT_SEBEP) */
    uint64_t pmsscr; /* PMSSCR_EL1 (FEAT_PMUv3_SS): NC, SS */
    /* The snapshot registers (FEAT_PMUv3_SS): PMEVCNTSVR<n>_EL1,
     * PMCCNTSVR_EL1, PMICNTSVR_EL1. */
    uint64_t evcntsvr[PMVP_MAX_COUNTERS], ccntsvr, icntsvr;
    uint32_t precise;                            /* counters at or above their threshold at the latest
                                 context synchronization event (FEAT_SEBEP) */
    uint32_t shadowed;                           /* counters whose overflow is in the shadow (a) */
    pmvp_slack slack[PMVP_MAX_COUNTERS + 1];     /* by P<n>/C bit: 31 is PMCCNTR */
    uint32_t shadow_left[PMVP_MAX_COUNTERS + 1]; /* (a) occurrences still in the shadow, as slack */
    uint64_t cntenset, intenset, ovsset;         /* P<n>, C (bit 31), F0 (bit 32) */
    uint32_t pmselr;
    uint64_t pmccfiltr;
    uint64_t pmccntr;   /* as of the core's sync instant */
    uint64_t pmicfiltr; /* PMICFILTR_EL0, implemented bits only (evtCount reads 0x0008) */
    uint32_t divider;   /* PMCR.D prescaler: 0..63 cycles towards the next increment */
    uint64_t pmuserenr; /* stored for the system-register layer */
    uint64_t pmuacr;    /* PMUACR_EL1 (FEAT_PMUv3p9): for the system-register layer */
    pmvp_pmu_controls ctl;
    pmvp_pmu_counter counter[PMVP_MAX_COUNTERS + 1]; /* [PMVP_ICNTR_SLOT].value: PMICNTR_EL0 */
    /* Each counter's evtyper event, as the PMU counts it (apart from the
     * counters, which would pad each by 5 bytes). */
    pmvp_event_decoded event[PMVP_MAX_COUNTERS];
} pmvp_pmu;

/* The AMUv1 of a PE (D16.2, D24.6). Counters wrap at 64 bits. */
typedef struct pmvp_amu {
    uint64_t amcr; /* HDBG, CG1RZ */
    uint32_t cntenset0, cntenset1;
    uint32_t amuserenr;                    /* stored for the system-register layer */
    uint64_t cnt0[PMVP_AMU_ARCH_COUNTERS]; /* as of the core's sync instant */
    uint64_t cnt1[PMVP_AMU_MAX_AUX];
    uint16_t evtyper1[PMVP_AMU_MAX_AUX];
    /* FEAT_AMUv1p1's virtual offsets, AMEVCNTVOFF0<n>_EL2 and
     * AMEVCNTVOFF1<n>_EL2: EL2 registers that change only what EL0 and EL1
     * read through the System registers. */
    uint64_t voff0[PMVP_AMU_ARCH_COUNTERS], voff1[PMVP_AMU_MAX_AUX];
    pmvp_event_decoded event1[PMVP_AMU_MAX_AUX]; /* evtyper1's events, as the AMU counts them */
} pmvp_amu;

/* State of a PE's external PMU frame that is not a System register. */
typedef struct pmvp_pmu_ext {
    uint32_t pmitctrl;    /* IME: stored; integration mode is not modelled */
    bool software_locked; /* PMLSR.SLK */
    /* PMCCR (FEAT_PMUv3_EXTPMN): OSLO, EPME, EPMN as written; reset by a
     * Cold reset only (I5.3.47). */
    uint32_t pmccr;
} pmvp_pmu_ext;

typedef struct pmvp_pe {
    uint8_t state; /* enum pmvp_pe_state */
    pmvp_context ctx;
    uint32_t level[PMVP_MAX_LEVEL_EVENTS]; /* by pmvp_event_level_index() */
    pmvp_pmu pmu;
    pmvp_amu amu;
    pmvp_pmu_ext ext;
    /* The counters frozen by an overflow (D13.5.2.1; bit 31: PMCCNTR,
     * bit 32: PMICNTR), as
     * count.c's k_frozen derives them from the overflow flags and their
     * controls. Held, not derived on demand, so that an advance over a
     * stretch sees the freeze of its start: a flag that rises in it freezes
     * from the next instant on (count.c, "freeze on overflow"). */
    uint64_t frozen;
    /* C_P of D13.8 for each event counter: the threshold condition C_T of
     * the last processor cycle, if counting was allowed on it; 0 otherwise. */
    uint32_t th_cp;
    /* Counters a level change brought to an instant after the core's
     * sync_time (count.c): each counts on from where its rate's source stood
     * then (processor cycles counted, or bus-clock or System Counter edges),
     * not from sync_time. None after a sync of the whole core. */
    uint32_t ahead;     /* event counters */
    uint32_t amu_ahead; /* AMU counters, as amu_rate */
    uint64_t since[PMVP_MAX_COUNTERS];
    uint64_t amu_since[PMVP_AMU_ARCH_COUNTERS + PMVP_AMU_MAX_AUX];
    /* The kernel's caches of what follows from this state (rates, and
     * which counters count): private to the library, in storage of a
     * published size. */
    uint64_t caches[PMVP_PE_CACHE_WORDS];
} pmvp_pe;

typedef struct pmvp_core {
    pmvp_core_config cfg;
    uint64_t supported[(PMVP_MAX_CATALOGUE_EVENTS + 63) / 64];   /* by catalogue index */
    uint64_t synchronous[(PMVP_MAX_CATALOGUE_EVENTS + 63) / 64]; /* FEAT_SEBEP, by catalogue index */
    uint16_t impdef_event[PMVP_MAX_IMPDEF_EVENTS];
    unsigned num_impdef_events;
    uint64_t evtyper_mask, ccfiltr_mask, icfiltr_mask, pmcr_mask; /* writable bits */
    uint64_t counter_mask;                                        /* all-ones of the event counters' width */
    pmvp_event_decoded amu_event0[PMVP_AMU_ARCH_COUNTERS];        /* the AMU's architected events */

    pmvp_clock clock; /* processor clock (ungated) */
    pmvp_clock bus_clock;
    pmvp_clock system_counter;

    pmvp_time last_call;  /* latest `now` seen */
    pmvp_time sync_time;  /* counters are up to date to this instant (those
                                 ahead of it: pmvp_pe.ahead) */
    uint64_t proc_cycles; /* processor cycles (clock running, not stopped by WFx) so far */
    uint64_t clock_edges; /* processor clock edges up to sync_time */
    uint64_t bus_edges, syscnt_edges;
    unsigned active_thread; /* SoEMT */
    uint64_t rng;           /* the inaccuracy profile's generator */
    pmvp_sebep_threshold threshold[PMVP_MAX_THRESHOLDS];
    uint64_t reportable_levels; /* by pmvp_event_level_index: level events a CPU model may report */
    /* The kernel's caches of what follows from the state (report routes,
     * follower sets, the frames' decode, whether the PEs' rates are valid):
     * private to the library, in storage of a published size. */
    uint64_t caches[PMVP_CORE_CACHE_WORDS];

    pmvp_pe pe[PMVP_MAX_PES];
} pmvp_core;

/* -------------------------------------------------------------- core API */

/* Validates *cfg and sets *core to the state after a cold reset at time 0:
 * every PE running in Non-secure EL1, AArch64; PMU registers at their reset
 * values (architecturally UNKNOWN values are 0); MDCR_EL2.HPMN = N and every
 * other control 0. PMVP_ERR_CONFIG if the configuration is impossible. */
int pmvp_core_init(pmvp_core *core, const pmvp_core_config *cfg);
/* The same; on PMVP_ERR_CONFIG, *why (when `why` is not NULL) names the
 * field and the rule that refuse the configuration, as a static string
 * ("feat_mtpmu: FEAT_MTPMU (Armv8.6) needs pmu_version PMUv3p5"); NULL otherwise. */
int pmvp_core_init_why(pmvp_core *core, const pmvp_core_config *cfg, const char **why);

/* Processor clock frequency from `now` on (0 stops the clock). These three
 * refuse a frequency above PMVP_MAX_CLOCK_HZ (1 THz) with PMVP_ERR_VALUE;
 * pmvp_core_init refuses one in the configuration. */
int pmvp_core_set_clock(pmvp_core *core, uint64_t hz, pmvp_time now);
/* Bus clock (BUS_CYCLES) frequency from `now` on. */
int pmvp_core_set_bus_clock(pmvp_core *core, uint64_t hz, pmvp_time now);
/* System Counter frequency from `now` on (CNT_CYCLES, AMU CNT_CYCLES). The
 * architecture wants it constant; a platform may still change it. */
int pmvp_core_set_system_counter(pmvp_core *core, uint64_t hz, pmvp_time now);

int pmvp_core_set_pe_state(pmvp_core *core, unsigned pe, enum pmvp_pe_state st, pmvp_time now);
int pmvp_core_set_context(pmvp_core *core, unsigned pe, const pmvp_context *ctx, pmvp_time now);
/* SoEMT: the active thread from `now` on. PMVP_ERR_CONFIG for other policies. */
int pmvp_core_set_active_thread(pmvp_core *core, unsigned pe, pmvp_time now);
int pmvp_core_set_controls(pmvp_core *core, unsigned pe, const pmvp_pmu_controls *ctl, pmvp_time now);

/* One of the controls, so that a caller changing one field (say MDCR_EL3)
 * keeps the others as they are (MDCR_EL2.HPMN among them). */
enum pmvp_control {
    PMVP_CTL_MDCR_EL2,
    PMVP_CTL_MDCR_EL3,
    PMVP_CTL_HCR_EL2,
    PMVP_CTL_SCR_EL3,
    PMVP_CTL_SDER32_EL3,
    PMVP_CTL_SECURE_NONINVASIVE_DEBUG,
    PMVP_CTL_NONINVASIVE_DEBUG,
    PMVP_CTL_OS_LOCK,
    PMVP_CTL_OS_DOUBLE_LOCK
};
/* Sets control `which` of PE `pe` to `value` from `now` on (a boolean
 * control: value != 0), the others unchanged. PMVP_ERR_VALUE for an unknown
 * control, otherwise as pmvp_core_set_controls. */
int pmvp_core_set_control(pmvp_core *core, unsigned pe, enum pmvp_control which, uint64_t value, pmvp_time now);

/* FEAT_PMUv3_SS: the IMPLEMENTATION DEFINED external snapshot request of
 * PE `pe` at `now` (D13.9, RSCLCQ), which "indirectly writes 1 to
 * PMSSCR_EL1.SS": a Capture event at that instant, where Capture events are
 * enabled. PMVP_ERR_REGISTER without FEAT_PMUv3_SS; otherwise as
 * pmvp_pmu_write. */
int pmvp_core_snapshot_request(pmvp_core *core, unsigned pe, pmvp_time now);

/* What the PE's controls and context are (the values last set). */
int pmvp_core_controls(const pmvp_core *core, unsigned pe, pmvp_pmu_controls *ctl);
int pmvp_core_context(const pmvp_core *core, unsigned pe, pmvp_context *ctx);

/* PE `pe` generated `count` occurrences of OCCURRENCE-class event `event` at
 * `now`, Attributable to its current context. PMVP_ERR_EVENT if the event is
 * not supported or not of that class; PMVP_ERR_PE_OFF if the PE is off. */
int pmvp_core_report(pmvp_core *core, unsigned pe, uint16_t event, uint64_t count, pmvp_time now);

/* A batch report that says how its occurrences spread over processor
 * cycles, for the counters to which the cycle matters (threshold and edge
 * counting, D13.8; and the instant of every count, overflow and freeze):
 * PE `pe` generated OCCURRENCE-class event `event`, over the last processor
 * cycles completed by `now`, runs[0].cycles cycles with runs[0].per_cycle
 * occurrences each, then runs[1], ..., the last run ending with the last
 * cycle completed at or before `now`. Every counter, AMU counter and the
 * instruction counter counts them cycle by cycle, exactly as a CPU model
 * reporting each cycle's occurrences in that cycle would have them count;
 * MT == 1 counters of the other PEs too. The window must have nothing else
 * in it: its first cycle ends after the last input to the core
 * (PMVP_ERR_PAST otherwise, and for `now` before the last input), and
 * processor cycles run (PMVP_ERR_VALUE if the processor clock is stopped
 * by WFI/WFE). PMVP_ERR_VALUE for no run, runs of 0 cycles in all or more
 * than 2^64 - 1; PMVP_ERR_NULL for runs NULL; PMVP_ERR_EVENT and
 * PMVP_ERR_PE_OFF as pmvp_core_report. Inaccuracy knob (d) does not apply.
 * The core is brought to the window's end; an overflow in the window sets
 * its flag there, so its interrupt request is seen from the call on. */
typedef struct pmvp_run {
    uint64_t cycles;
    uint32_t per_cycle;
} pmvp_run;
int pmvp_core_report_runs(pmvp_core *core, unsigned pe, uint16_t event, const pmvp_run *runs, unsigned num_runs,
                          pmvp_time now);

/* Several such batches over cycles that overlap, each with its own PE,
 * event and runs, every window ending with the last cycle completed at or
 * before `now`: what several PEs of the core (SMT threads), or one PE for
 * several events, generated over the same cycles. Each cycle's occurrences
 * are the sum of every batch's on that cycle, so an MT == 1 counter sees,
 * on each cycle, the sum over the PEs that it counts (D13.8's V_B of that
 * cycle). 1 to PMVP_MAX_BATCHES batches (PMVP_ERR_VALUE otherwise,
 * PMVP_ERR_NULL for batches NULL); each is refused as pmvp_core_report_runs
 * would refuse it alone, and a refused call changes nothing. */
typedef struct pmvp_batch {
    unsigned pe;
    uint16_t event;
    const pmvp_run *runs;
    unsigned num_runs;
} pmvp_batch;
int pmvp_core_report_batches(pmvp_core *core, const pmvp_batch *batches, unsigned num_batches, pmvp_time now);

/* `count` occurrences over the last `cycles` processor cycles as evenly as
 * whole numbers allow, the extra ones first: count mod cycles cycles of
 * count / cycles + 1, then the others of count / cycles (two runs of
 * pmvp_core_report_runs). PMVP_ERR_VALUE for cycles 0 or more than
 * UINT32_MAX occurrences on a cycle. */
int pmvp_core_report_spread(pmvp_core *core, unsigned pe, uint16_t event, uint64_t count, uint64_t cycles,
                            pmvp_time now);

/* The two runs of pmvp_core_report_spread's even spread, in runs[2].
 * PMVP_ERR_VALUE as pmvp_core_report_spread. */
int pmvp_even_runs(uint64_t count, uint64_t cycles, pmvp_run runs[2]);

/* The processor cycles completed in (since, now]: the window a CPU model
 * that knows instants rather than edges gives a batch. `since` must not
 * precede the last input to the core, whose clock is then the one in force
 * over the whole stretch (PMVP_ERR_PAST), nor follow `now`
 * (PMVP_ERR_VALUE). */
int pmvp_core_cycles_between(const pmvp_core *core, pmvp_time since, pmvp_time now, uint64_t *cycles);

/* For a CPU model that knows instants rather than clock edges: batches of
 * several PEs or events over the processor cycles completed in
 * (since, now] (pmvp_core_cycles_between), each share's `count` spread as
 * evenly as whole numbers allow, the extra ones first (pmvp_even_runs;
 * pmvp_core_report_batches). A `since` before the last input to the core
 * is taken as that input's instant: the cycles before it were counted, by
 * that input (a register read, say), without the shares, which spread over
 * the cycles after it. When no cycle completes in the window, all of it
 * lies in the cycle in progress at `now`, and each share is a report at
 * `now` (pmvp_core_report), which puts it there; so is it when the
 * processor clock is stopped (every PE in WFI/WFE), and where the cycle of
 * an occurrence matters to no counter (pmvp_core_cycle_values_matter).
 * Inaccuracy knob (d) does not apply. PMVP_ERR_NULL,
 * PMVP_ERR_VALUE for no share, more than PMVP_MAX_BATCHES, `since` after
 * `now` or more than UINT32_MAX occurrences on a cycle; PMVP_ERR_PAST for
 * `now` before the last input; otherwise a share is refused exactly when
 * pmvp_core_report_refusal refuses its PE and event, and the call then
 * changes nothing. A share of 0 occurrences counts nothing. */
typedef struct pmvp_share {
    unsigned pe;
    uint16_t event;
    uint64_t count;
} pmvp_share;
int pmvp_core_report_shares(pmvp_core *core, const pmvp_share *shares, unsigned num_shares, pmvp_time since,
                            pmvp_time now);

/* The occurrences of OCCURRENCE-class event `event` that PE `pe` can report
 * from `now` on, nothing else changing, up to and including the one that
 * makes a counter overflow whose overflow flag is clear and whose interrupt
 * request is enabled (PMINTENSET), or whose overflow freezes counters
 * (PMCR.FZO, MDCR_EL2.HPMFZO): a counter of `pe`, or with MT == 1 of
 * another PE of the core, counting the event in pe's context, the CHAIN
 * counter such a counter feeds, or for INST_RETIRED pe's instruction counter
 * (FEAT_PMUv3_ICNTR). *count >= 1, or PMVP_EVENTS_NEVER when no such
 * overflow is within 2^64 - 1 occurrences or the PE is off. An instruction-set simulator
 * ends its quantum there, so the overflow is seen at the instruction that
 * causes it, and the instructions after a freeze are not counted with it
 * (a report counts whole). Changes nothing. PMVP_ERR_EVENT as pmvp_core_report;
 * PMVP_ERR_PAST, PMVP_ERR_PE, PMVP_ERR_NULL. */
#define PMVP_EVENTS_NEVER UINT64_MAX
int pmvp_core_events_to_interrupt(pmvp_core *core, unsigned pe, uint16_t event, pmvp_time now, uint64_t *count);
/* pmvp_core_events_to_interrupt for each of the `num` events in events[],
 * counts[i] the answer for events[i], in one call: what an instruction-set
 * simulator asks before each run of a PE. PMVP_ERR_PE, PMVP_ERR_NULL (no
 * `events` or `counts`) and PMVP_ERR_PAST leave counts[] unchanged;
 * PMVP_ERR_EVENT for the first event refused, the answers for those before
 * it written. Changes nothing. */
int pmvp_core_events_to_interrupt_each(pmvp_core *core, unsigned pe, const uint16_t *events, unsigned num,
                                       pmvp_time now, uint64_t *counts);
/* The fewest occurrences of `event` that the core's PEs can report from
 * `now` on, in any mix, nothing else changing, up to and including one that
 * makes such an overflow: the least of pmvp_core_events_to_interrupt's
 * answers over the PEs (PMVP_EVENTS_NEVER when every one is). A caller that
 * holds back occurrences of several PEs (the SystemC bindings, their kept
 * reports) asks once for all of them. Changes nothing. PMVP_ERR_EVENT,
 * PMVP_ERR_PAST, PMVP_ERR_NULL as pmvp_core_events_to_interrupt. */
int pmvp_core_events_to_interrupt_any(pmvp_core *core, uint16_t event, pmvp_time now, uint64_t *count);

/* The condition of level-class event `event` on PE `pe` holds (level != 0;
 * for PER_CYCLE events, `level` is the number in progress) from `now` on. */
int pmvp_core_set_level(pmvp_core *core, unsigned pe, uint16_t event, uint32_t level, pmvp_time now);

/* Several level changes of one instant, in their order: as
 * pmvp_core_set_level each, or, where any would be refused, the first such
 * refusal and nothing changed. PMVP_ERR_VALUE for none, PMVP_ERR_NULL for
 * NULL. A CPU model whose threads change stall conditions together tells
 * them at once (the SystemC bindings keep them as one change). */
typedef struct pmvp_level_change {
    unsigned pe;
    uint16_t event;
    uint32_t level;
} pmvp_level_change;
int pmvp_core_set_levels(pmvp_core *core, const pmvp_level_change *levels, unsigned num_levels, pmvp_time now);

/* What pmvp_core_report (pmvp_core_set_level) of `event` by PE `pe` returns
 * when made at an instant not before the core's present, before which
 * nothing changes the PE's power state: PMVP_OK or the refusal. These
 * refusals depend only on the configuration, the event and that state; the
 * SystemC bindings keep a report or level for a later instant on this
 * answer without making it on a copy of the core. A pure query. */
int pmvp_core_report_refusal(const pmvp_core *core, unsigned pe, uint16_t event);
int pmvp_core_set_level_refusal(const pmvp_core *core, unsigned pe, uint16_t event);
/* Why `event` is refused by pmvp_core_report (level: by
 * pmvp_core_set_level) with PMVP_ERR_EVENT, as a sentence naming the
 * argument: not in the catalogue, not implemented by this core, or of a
 * class the call does not take (a clock's cycles, a level, an occurrence);
 * NULL when the call takes it. A pure query. */
const char *pmvp_core_event_why(const pmvp_core *core, uint16_t event, bool level);

/* Whether a report of `event` (level: a change of level input `event`) by
 * any PE of the core as it is can change a PMUIRQ level or the instant of
 * the next interrupt (pmvp_core_next_interrupt): false when no counter whose
 * overflow can request an interrupt (PMINTENSET, in an enabled range)
 * counts the event or follows the level, nor feeds such a counter through
 * CHAIN. Only a write of PMINTENSET, PMCR, PMEVTYPER or MDCR_EL2 (HPMN,
 * HPME) can make a false answer true. A query that changes no state (it
 * fills a cache, dropped by those writes): the SystemC bindings wake for a
 * report or a level change only when it is true. A true answer may be
 * conservative for a report (two events can share the cache's bit). */
bool pmvp_core_input_may_interrupt(pmvp_core *core, uint16_t event, bool level);

/* Whether, on the core as it is, the cycle on which an occurrence falls
 * changes what counts: some counter follows an event's per-cycle value
 * (threshold and edge counting, D13.8) or an overflow can freeze counters
 * (PMCR.FZO, MDCR_EL2.HPMFZO). When false, a batch spread over cycles
 * (pmvp_core_report_batches, _shares) counts exactly as a report of its
 * occurrences at its window's end, and pmvp_core_events_to_interrupt bounds
 * the occurrences that can be reported before an interrupt whatever their
 * instants. A query that changes no state (it fills the rate caches). */
bool pmvp_core_cycle_values_matter(pmvp_core *core);

/* The next instant after `now` at which a PMOVSSET bit of any PE of the core
 * becomes 1 (and so PMUIRQ may rise) if nothing else changes, or
 * PMVP_TIME_NEVER. */
int pmvp_core_next_event(pmvp_core *core, pmvp_time now, pmvp_time *when);

/* As pmvp_core_next_event, counting only the overflows whose interrupt
 * request is enabled (PMINTENSET): the next instant at which PMUIRQ of some
 * PE may rise. A simulator need not wake for the others: their PMOVSSET
 * bits are there whenever it reads them. */
int pmvp_core_next_interrupt(pmvp_core *core, pmvp_time now, pmvp_time *when);

/* The next instant after `now` at which an overflow due to the passage of
 * time (a counter of cycles or of a level) freezes counters of some PE
 * (D13.5.2.1: PMCR.FZO, MDCR_EL2.HPMFZO), nothing else changing, or
 * PMVP_TIME_NEVER. A CPU model that reports occurrences in batches ends a
 * batch there: a report counts at its instant, and the occurrences before
 * the freeze would otherwise be lost with it. */
int pmvp_core_next_freeze(pmvp_core *core, pmvp_time now, pmvp_time *when);

/* Brings every counter up to `now` without changing anything else. */
int pmvp_core_sync(pmvp_core *core, pmvp_time now);

/* Copies core `src` to `dst`: the same as assigning the struct, minus the
 * PE slots beyond cfg.num_pes, which are never used (what a simulator
 * evaluating on a scratch copy wants). */
int pmvp_core_copy(pmvp_core *dst, const pmvp_core *src);

/* Drops the kernel's caches of what follows from the core's state (report
 * routes, rates, follower sets), which the next call derives again. The
 * counts are the same with or without them: a test compares the two. */
int pmvp_core_drop_caches(pmvp_core *core);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
