/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Checkpoint and restore (pmvp/checkpoint.h).
 *
 * One walk over the state, walk_core(), is the format: saving writes each
 * field it visits, restoring reads them back in the same order, and sizing
 * counts them. The configuration's fingerprint is a second walk, hashing
 * every configuration field (the state's meaning depends on all of them).
 * Caches (event routes, decoded events, masks) are not saved: a restore
 * rebuilds them from the restored registers.
 */
#include "pmvp/checkpoint.h"

#include "clocks.h"

#include <string.h>

#include "clocks.h"
#include "inputs.h"
#include "pmvp/error.h"
#include "pmvp/sysreg.h"
#include "pmvp/x86.h"

static const char kMagic[8] = { 'P', 'M', 'V', 'P', 'C', 'K', 'P', 'T' };
enum { HEADER = 8 + 4 + 8 + 8, TRAILER = 8 };

/* ------------------------------------------------------------ the stream */

typedef enum { SIZING, SAVING, RESTORING } mode;

typedef struct stream {
    mode mode;
    uint8_t *out;      /* SAVING */
    const uint8_t *in; /* RESTORING */
    size_t pos;
} stream;

static void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Visits one field: every field is stored as a u64. */
static uint64_t field(stream *s, uint64_t v)
{
    if (s->mode == SAVING)
        put_le(s->out + s->pos, v, 8);
    else if (s->mode == RESTORING)
        v = get_le(s->in + s->pos, 8);
    s->pos += 8;
    return v;
}

static void f64(stream *s, uint64_t *v)
{
    *v = field(s, *v);
}
static void f32(stream *s, uint32_t *v)
{
    *v = (uint32_t)field(s, *v);
}
static void f16(stream *s, uint16_t *v)
{
    *v = (uint16_t)field(s, *v);
}
static void f8(stream *s, uint8_t *v)
{
    *v = (uint8_t)field(s, *v);
}
static void fbool(stream *s, bool *v)
{
    *v = field(s, *v) != 0;
}
static void funsigned(stream *s, unsigned *v)
{
    *v = (unsigned)field(s, *v);
}

/* ------------------------------------------------------------ the state */

static void walk_clock(stream *s, pmvp_clock *k)
{
    f64(s, &k->hz);
    f64(s, &k->t0);
    f64(s, &k->cycles0);
    f64(s, &k->phase);
    f64(s, &k->anchor_until);
}

static void walk_controls(stream *s, pmvp_pmu_controls *ctl)
{
    f64(s, &ctl->mdcr_el2);
    f64(s, &ctl->mdcr_el3);
    f64(s, &ctl->hcr_el2);
    f64(s, &ctl->scr_el3);
    f64(s, &ctl->sder32_el3);
    fbool(s, &ctl->secure_noninvasive_debug);
    fbool(s, &ctl->noninvasive_debug);
    fbool(s, &ctl->os_lock);
    fbool(s, &ctl->os_double_lock);
}

/* An unsigned integer field of `size` bytes (a register's state). */
static void fsized(stream *s, void *p, size_t size)
{
    switch (size) {
    case 1: f8(s, p); return;
    case 2: f16(s, p); return;
    case 4: f32(s, p); return;
    default: f64(s, p); return;
    }
}

static void walk_pe(stream *s, const pmvp_core *c, pmvp_pe *pe)
{
    f8(s, &pe->state);
    f8(s, &pe->ctx.el);
    f8(s, &pe->ctx.security);
    fbool(s, &pe->ctx.aarch32);
    fbool(s, &pe->ctx.halted);
    fbool(s, &pe->ctx.pm);
    for (int i = 0; i < pmvp_event_level_count(); i++)
        f32(s, &pe->level[i]);

        /* Every register that holds a value, where its PMVP_REG_STATE line
     * says it lives (a CLEAR register's state is its SET register's). */
#define PMVP_REG_STATE(fam, id, kind, state, writable, reset)                                                      \
    if (K_OWNS_##kind)                                                                                             \
        for (unsigned n = 0, end = k_reg_instances(&c->cfg, k_reg_of(PMVP_SYSREG_##fam, PMVP_##id)); n < end; n++) \
            fsized(s, &(state), sizeof(state));
#include "pmvp/registers.def"

    /* What is not a register: the knobs' state, the divider, the EL2/EL3
     * controls, FEAT_SEBEP's precise set, the external frame's own state. */
    pmvp_pmu *u = &pe->pmu;
    f32(s, &u->precise);
    f32(s, &u->shadowed);
    for (unsigned n = 0; n <= PMVP_MAX_COUNTERS; n++) {
        pmvp_slack *k = &u->slack[n];
        f64(s, &k->base);
        f64(s, &k->shown);
        f64(s, &k->shown_until);
        f64(s, &k->shadow_until);
        f32(s, &u->shadow_left[n]);
    }
    f32(s, &u->divider);
    walk_controls(s, &u->ctl);
    f32(s, &pe->ext.pmitctrl);
    fbool(s, &pe->ext.software_locked);
    f32(s, &pe->ext.pmccr);
    /* Threshold and edge counting (count.c): C_P, and the occurrences of
     * the cycle in progress. */
    f32(s, &pe->th_cp);
    for (unsigned n = 0; n < PMVP_MAX_COUNTERS; n++)
        f64(s, &u->counter[n].pending);
    /* Counters a level change brought ahead of the core's sync (count.c). */
    f32(s, &pe->ahead);
    f32(s, &pe->amu_ahead);
    for (unsigned n = 0; n < PMVP_MAX_COUNTERS; n++)
        f64(s, &pe->since[n]);
    for (unsigned n = 0; n < PMVP_AMU_ARCH_COUNTERS + PMVP_AMU_MAX_AUX; n++)
        f64(s, &pe->amu_since[n]);
}

static void walk_core(stream *s, pmvp_core *c)
{
    walk_clock(s, &c->clock);
    walk_clock(s, &c->bus_clock);
    walk_clock(s, &c->system_counter);
    f64(s, &c->last_call);
    f64(s, &c->sync_time);
    f64(s, &c->proc_cycles);
    f64(s, &c->clock_edges);
    f64(s, &c->bus_edges);
    f64(s, &c->syscnt_edges);
    funsigned(s, &c->active_thread);
    f64(s, &c->rng);
    for (unsigned p = 0; p < c->cfg.num_pes; p++)
        walk_pe(s, c, &c->pe[p]);
}

/* How many instances each MSR has (x86_msrs.def), for the walk below. */
enum { X86_ONE, X86_GP, X86_FIXED };
enum {
#define PMVP_X86_MSR(id, address, instances, ...) X86_INSTANCES_OF_##id = X86_##instances,
#include "pmvp/x86_msrs.def"
};

static unsigned x86_instances(const pmvp_x86_core *c, int kind)
{
    return kind == X86_GP ? c->cfg.num_gp : kind == X86_FIXED ? PMVP_X86_NUM_FIXED : 1;
}

/* An MSR's value, where its PMVP_X86_MSR_STATE line says it lives: the
 * core's lines in the core's pass, the logical processors' in theirs. */
#define WALK_MSR(id, state)                                                \
    for (unsigned x = 0; x < x86_instances(c, X86_INSTANCES_OF_##id); x++) \
        f64(s, &(state));
#define WALK_CORE_CORE WALK_MSR
#define WALK_CORE_THREAD(id, state)
#define WALK_CORE_ALIAS(id, state)
#define WALK_THREAD_CORE(id, state)
#define WALK_THREAD_THREAD WALK_MSR
#define WALK_THREAD_ALIAS(id, state)

static void walk_x86(stream *s, pmvp_x86_core *c)
{
    walk_clock(s, &c->core_clock);
    walk_clock(s, &c->tsc_clock);
    walk_clock(s, &c->xclk);
    f64(s, &c->last_call);
    f64(s, &c->sync_time);
    f64(s, &c->core_edges);
    f64(s, &c->tsc_edges);
    f64(s, &c->xclk_edges);
#define PMVP_X86_MSR_STATE(id, owner, state) WALK_CORE_##owner(id, state)
#include "pmvp/x86_msrs.def"
    for (unsigned t = 0; t < c->cfg.num_threads; t++) {
        pmvp_x86_thread *th = &c->thread[t];
        f8(s, &th->state);
        f8(s, &th->ctx.cpl);
        fbool(s, &th->ctx.cr4_pce);
        fbool(s, &th->ctx.cr4_tsd);
#define PMVP_X86_MSR_STATE(id, owner, state) WALK_THREAD_##owner(id, state)
#include "pmvp/x86_msrs.def"
        /* Not an MSR: each counter's edge detector. */
        for (unsigned n = 0; n < c->cfg.num_gp; n++)
            fbool(s, &th->gp[n].last_condition);
        for (unsigned n = 0; n < PMVP_X86_NUM_FIXED; n++)
            fbool(s, &th->fixed[n].last_condition);
    }
}

/* --------------------------------------------------- the configuration */

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001B3);
    }
    return h;
}
#define FNV_BASIS UINT64_C(0xCBF29CE484222325)

static uint64_t mix(uint64_t h, uint64_t v)
{
    uint8_t b[8];
    put_le(b, v, 8);
    return fnv(h, b, 8);
}

/* Every configuration field, in declaration order; the event lists the core
 * copied at init stand for cfg->events, sync_events and the thresholds
 * (init drops those pointers). The log callback is no configuration of the
 * state. */
enum { ARM_CORE = 'A', X86_CORE = 'X' }; /* the kind of core, first in a fingerprint */

static uint64_t fingerprint(const pmvp_core *c)
{
    const pmvp_core_config *g = &c->cfg;
    uint64_t h = mix(FNV_BASIS, ARM_CORE);
    const uint64_t scalars[] = {
        g->num_pes,
        (uint64_t)g->mt_policy,
        g->num_counters,
        (uint64_t)g->pmu_version,
        g->feat_pmuv3p7,
        g->feat_pmuv3_icntr,
        g->feat_pmuv3p9,
        g->feat_pmuv3_ss,
        g->feat_pmuv3_extpmn,
        g->extpmn_reserved,
        g->ss_capture_in_debug,
        g->feat_mtpmu,
        g->feat_hpmn0,
        g->feat_debugv8p2,
        g->have_el2,
        g->have_el3,
        g->feat_sel2,
        g->feat_rme,
        g->have_aarch32,
        g->el3_aarch32,
        g->el1_aarch32,
        g->el2_aarch32,
        g->feat_fgt,
        g->feat_fgt2,
        g->pmcr_imp,
        g->pmcr_idcode,
        g->feat_ebep,
        g->feat_sebep,
        g->sebep_headroom,
        g->num_sebep_thresholds,
        g->processor_hz,
        g->bus_hz,
        g->system_counter_hz,
        g->clock_stops_in_wfx,
        g->pmccntr_counts_in_wfx,
        g->wfx_thread_active,
        g->cpu_cycles_in_wfx,
        g->mtpmu_disable_core_wide,
        (uint64_t)g->divider_mode,
        g->el3_sdd_undef_priority,
        (uint64_t)g->counter_access_unpredictable,
        g->feat_amuv1,
        g->feat_amuv1p1,
        g->amu_num_aux,
        g->amu_aux_offsets,
        g->amu_aux_programmable,
        g->amu_always_on,
        (uint64_t)g->pmu_ext_layout,
        (uint64_t)g->amu_ext_layout,
        g->feat_debugv8p4,
        g->feat_dopd,
        g->pmu_software_lock,
        g->pmu_ext_pmswinc,
        g->pmiidr,
        g->amiidr,
        g->pmmir,
        g->mpidr,
        g->inaccuracy.seed,
        (uint64_t)g->inaccuracy.draw,
        g->inaccuracy.shadow_events,
        g->inaccuracy.shadow_time,
        g->inaccuracy.boundary_events,
        g->inaccuracy.read_delay_cycles,
        g->inaccuracy.drop_ppm,
    };
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        h = mix(h, scalars[i]);
    for (unsigned n = 0; n < PMVP_AMU_MAX_AUX; n++)
        h = mix(h, g->amu_aux_event[n]);
    for (size_t i = 0; i < sizeof c->supported / sizeof c->supported[0]; i++)
        h = mix(mix(h, c->supported[i]), c->synchronous[i]);
    for (unsigned k = 0; k < c->num_impdef_events; k++)
        h = mix(h, c->impdef_event[k]);
    for (unsigned k = 0; k < g->num_sebep_thresholds; k++)
        h = mix(mix(h, c->threshold[k].event), c->threshold[k].headroom);
    return h;
}

static uint64_t x86_fingerprint(const pmvp_x86_core *c)
{
    const pmvp_x86_config *g = &c->cfg;
    const uint64_t scalars[] = { g->num_threads, g->num_gp, g->gp_width, g->fixed_width,   g->full_width_writes,
                                 g->core_hz,     g->tsc_hz, g->xclk_hz,  g->tsc_invariant, (uint64_t)g->cpl_mode };
    uint64_t h = mix(FNV_BASIS, X86_CORE);
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        h = mix(h, scalars[i]);
    return h;
}

/* ------------------------------------------------------------------ API */

/* What the framing below needs of one kind of core: its walk, its
 * configuration's fingerprint, how a restored one is checked against the
 * kernel's invariants (NULL, or why not), copied, and made ready (its
 * caches rebuilt), and where it is read into before the caller's changes. */
typedef struct kind {
    void (*walk)(stream *s, void *core);
    uint64_t (*print)(const void *core);
    const char *(*implausible)(const void *core);
    void (*copy)(void *dst, const void *src);
    void (*ready)(void *core);
    void *(*scratch)(void);
} kind;

static size_t payload_size(const kind *k, const void *c)
{
    stream s = { SIZING, NULL, NULL, 0 };
    k->walk(&s, (void *)c); /* sizing reads nothing and writes nothing */
    return s.pos;
}

static size_t checkpoint_size(const kind *k, const void *c)
{
    return c ? HEADER + payload_size(k, c) + TRAILER : 0;
}

static int save(const kind *k, const void *c, void *buf, size_t size)
{
    if (!c || !buf)
        return PMVP_ERR_NULL;
    size_t payload = payload_size(k, c);
    if (size < HEADER + payload + TRAILER)
        return PMVP_ERR_SIZE;
    uint8_t *b = buf;
    memcpy(b, kMagic, 8);
    put_le(b + 8, PMVP_CHECKPOINT_VERSION, 4);
    put_le(b + 12, k->print(c), 8);
    put_le(b + 20, payload, 8);
    stream s = { SAVING, b + HEADER, NULL, 0 };
    k->walk(&s, (void *)c); /* saving only reads the core */
    put_le(b + HEADER + payload, fnv(FNV_BASIS, b, HEADER + payload), 8);
    return PMVP_OK;
}

/* Why the frame of a checkpoint is refused for a core whose payload is
 * `payload` bytes and whose configuration has fingerprint `print`, or NULL. */
static const char *check_frame(const uint8_t *b, size_t size, size_t payload, uint64_t print)
{
    if (size < 8 || memcmp(b, kMagic, 8) != 0)
        return "not a pmvp checkpoint";
    if (size < HEADER)
        return "a truncated checkpoint";
    if (get_le(b + 8, 4) != PMVP_CHECKPOINT_VERSION)
        return "a checkpoint of another format version";
    if (get_le(b + 20, 8) != payload)
        return "a checkpoint of a core with other dimensions";
    if (size < HEADER + payload + TRAILER)
        return "a truncated checkpoint";
    if (get_le(b + HEADER + payload, 8) != fnv(FNV_BASIS, b, HEADER + payload))
        return "a corrupt checkpoint (its checksum does not match)";
    if (get_le(b + 12, 8) != print)
        return "a checkpoint of a core with another configuration";
    return NULL;
}

/* Reads the checkpoint into the kind's scratch core, checks it, and only
 * then makes the caller's core the restored one. */
static int restore(const kind *k, void *c, const void *buf, size_t size, const char **why)
{
    if (why)
        *why = NULL;
    if (!c || !buf)
        return PMVP_ERR_NULL;
    const char *refused = check_frame(buf, size, payload_size(k, c), k->print(c));
    if (!refused) {
        void *scratch = k->scratch();
        k->copy(scratch, c);
        stream s = { RESTORING, NULL, (const uint8_t *)buf + HEADER, 0 };
        k->walk(&s, scratch);
        if (!(refused = k->implausible(scratch))) {
            k->copy(c, scratch);
            k->ready(c);
            return PMVP_OK;
        }
    }
    if (why)
        *why = refused;
    return PMVP_ERR_CHECKPOINT;
}

/* ---- the Arm core */

static void walk_arm(stream *s, void *c)
{
    walk_core(s, c);
}
static uint64_t arm_print(const void *c)
{
    return fingerprint(c);
}
static void arm_copy(void *dst, const void *src)
{
    pmvp_core_copy(dst, src);
}
static void arm_ready(void *c)
{
    pmvp_core *core = c;
    k_rebuild_caches(core);
    for (unsigned p = 0; p < core->cfg.num_pes; p++)
        k_ext_permissions(core, p);
}

/* The clocks as pmvp_core_init and the calls leave them, and the edges the
 * core counted up to its sync where its clocks put them: counting and the
 * prediction of the next overflow start from there. */
static const char *clocks_implausible(const pmvp_clock *const clocks[3], const uint64_t edges[3], pmvp_time sync)
{
    for (unsigned i = 0; i < 3; i++) {
        if (!k_clock_plausible(clocks[i]))
            return "a clock is out of range (above 1 THz, or a phase of a cycle or more)";
        /* A clock changed after the sync (a change that syncs only what
         * follows it) counted its edges up to its change: no fewer. */
        if (clocks[i]->t0 <= sync ? edges[i] != k_clock_cycles(clocks[i], sync) : edges[i] > clocks[i]->cycles0)
            return "a clock's edges disagree with the edges the core counted";
    }
    return NULL;
}

static const char *arm_implausible(const void *core)
{
    const pmvp_core *c = core;
    if (c->active_thread >= c->cfg.num_pes)
        return "the active thread is not a PE of the core";
    if (c->sync_time > c->last_call)
        return "the counters are synchronised beyond the core's present";
    const pmvp_clock *clocks[] = { &c->clock, &c->bus_clock, &c->system_counter };
    const uint64_t edges[] = { c->clock_edges, c->bus_edges, c->syscnt_edges };
    const char *why = clocks_implausible(clocks, edges, c->sync_time);
    if (why)
        return why;
    if (c->proc_cycles > c->clock_edges)
        return "more processor cycles than the clock's edges";
    for (unsigned p = 0; p < c->cfg.num_pes; p++) {
        const pmvp_pe *pe = &c->pe[p];
        if (pe->state > PMVP_PE_OFF || pe->ctx.el > 3 || pe->ctx.security > PMVP_ROOT)
            return "a PE's state, Exception level or Security state is out of range";
        if (pe->pmu.divider > 63)
            return "a PMCR.D prescaler is out of range";
    }
    return NULL;
}

/* A restore's scratch core (sizeof(pmvp_core), 43 KB): one per host thread. */
static void *arm_scratch(void)
{
    static _Thread_local pmvp_core scratch;
    return &scratch;
}

static const kind arm = { walk_arm, arm_print, arm_implausible, arm_copy, arm_ready, arm_scratch };

size_t pmvp_core_checkpoint_size(const pmvp_core *c)
{
    return checkpoint_size(&arm, c);
}
int pmvp_core_save(const pmvp_core *c, void *buf, size_t size)
{
    return save(&arm, c, buf, size);
}

int pmvp_core_restore(pmvp_core *c, const void *buf, size_t size, const char **why)
{
    return restore(&arm, c, buf, size, why);
}

/* ---- the x86 core */

static void walk_x86_core(stream *s, void *c)
{
    walk_x86(s, c);
}
static uint64_t x86_print(const void *c)
{
    return x86_fingerprint(c);
}
static void x86_copy(void *dst, const void *src)
{
    *(pmvp_x86_core *)dst = *(const pmvp_x86_core *)src;
}
static void x86_ready(void *c)
{
    ((pmvp_x86_core *)c)->ticks_valid = false; /* a cache of the restored controls */
}

static const char *x86_implausible(const void *core)
{
    const pmvp_x86_core *c = core;
    if (c->sync_time > c->last_call)
        return "the counters are synchronised beyond the core's present";
    const pmvp_clock *clocks[] = { &c->core_clock, &c->tsc_clock, &c->xclk };
    const uint64_t edges[] = { c->core_edges, c->tsc_edges, c->xclk_edges };
    const char *why = clocks_implausible(clocks, edges, c->sync_time);
    if (why)
        return why;
    for (unsigned t = 0; t < c->cfg.num_threads; t++)
        if (c->thread[t].state > PMVP_X86_DEEP_SLEEP || c->thread[t].ctx.cpl > 3)
            return "a logical processor's C-state or CPL is out of range";
    return NULL;
}

static void *x86_scratch(void)
{
    static _Thread_local pmvp_x86_core scratch;
    return &scratch;
}

static const kind x86 = { walk_x86_core, x86_print, x86_implausible, x86_copy, x86_ready, x86_scratch };

size_t pmvp_x86_checkpoint_size(const pmvp_x86_core *c)
{
    return checkpoint_size(&x86, c);
}
int pmvp_x86_save(const pmvp_x86_core *c, void *buf, size_t size)
{
    return save(&x86, c, buf, size);
}

int pmvp_x86_restore(pmvp_x86_core *c, const void *buf, size_t size, const char **why)
{
    return restore(&x86, c, buf, size, why);
}
