/* SPDX-License-Identifier: Apache-2.0 */
/* Intel-style clock counting (x86.h; Intel SDM Vol. 3B 18.20). */
#include "pmvp/x86.h"

#include <string.h>

#include "pmvp/error.h"

#include "clocks.h"

/* What a counter counts, decoded from its control. */
enum kind {
    K_OCCURRENCE,  /* reported by the CPU model */
    K_CORE_CYCLES, /* a core-clock tick, LP unhalted */
    K_REF_TSC,     /* a TSC-clock tick, LP unhalted */
    K_REF_XCLK,    /* an XCLK tick, LP unhalted */
    K_ONE_THREAD   /* an XCLK tick, LP unhalted and every other LP halted */
};

typedef struct selection {
    bool enabled;   /* local enable and IA32_PERF_GLOBAL_CTRL */
    uint8_t kind;   /* enum kind */
    uint16_t event; /* umask << 8 | event select */
    bool os, usr, any, edge, inv, pmi;
    uint8_t cmask;
} selection;

#define EVTSEL_RESERVED (~UINT64_C(0xFFFFFFFF) | (UINT64_C(1) << 19))

void pmvp_x86_config_default(pmvp_x86_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->num_threads = 2;
    cfg->num_gp = 4;
    cfg->gp_width = 48;
    cfg->fixed_width = 48;
    cfg->full_width_writes = true;
    cfg->core_hz = UINT64_C(2000000000);
    cfg->tsc_hz = UINT64_C(2000000000);
    cfg->xclk_hz = UINT64_C(100000000);
    cfg->tsc_invariant = true;
    cfg->cpl_mode = PMVP_X86_CPL_PER_THREAD;
}

/* ------------------------------------------------------------ counters */

/* Counters are named by their bit in IA32_PERF_GLOBAL_CTRL: PMCx is x,
 * FIXED_CTRx is 32 + x. The k-th counter of an LP, k < counters_per_lp(). */
static unsigned counters_per_lp(const pmvp_x86_core *c)
{
    return c->cfg.num_gp + PMVP_X86_NUM_FIXED;
}

static unsigned counter_id(const pmvp_x86_core *c, unsigned k)
{
    return k < c->cfg.num_gp ? k : PMVP_X86_FIXED_BASE + (k - c->cfg.num_gp);
}

static pmvp_x86_counter *counter_of(pmvp_x86_core *c, unsigned t, unsigned id)
{
    pmvp_x86_thread *th = &c->thread[t];
    return id >= PMVP_X86_FIXED_BASE ? &th->fixed[id - PMVP_X86_FIXED_BASE] : &th->gp[id];
}

static uint64_t width_mask(const pmvp_x86_core *c, unsigned id)
{
    unsigned w = id >= PMVP_X86_FIXED_BASE ? c->cfg.fixed_width : c->cfg.gp_width;
    return (UINT64_C(1) << w) - 1;
}

/* IA32_PERF_GLOBAL_CTRL / STATUS / OVF_CTRL bits that name a counter. */
static uint64_t counter_bits(const pmvp_x86_core *c)
{
    uint64_t gp = (UINT64_C(1) << c->cfg.num_gp) - 1;
    uint64_t fixed = ((UINT64_C(1) << PMVP_X86_NUM_FIXED) - 1) << PMVP_X86_FIXED_BASE;
    return gp | fixed;
}

static uint8_t clock_kind(uint16_t event)
{
    switch (event) {
    case PMVP_X86_CPU_CLK_UNHALTED_THREAD_P: return K_CORE_CYCLES;
    case PMVP_X86_CPU_CLK_UNHALTED_REF_XCLK: return K_REF_XCLK;
    case PMVP_X86_CPU_CLK_UNHALTED_ONE_THREAD_ACTIVE: return K_ONE_THREAD;
    default: return K_OCCURRENCE;
    }
}

static selection select_counter(const pmvp_x86_core *c, unsigned t, unsigned id)
{
    const pmvp_x86_thread *th = &c->thread[t];
    bool global = (th->global_ctrl >> id) & 1;
    selection s;
    memset(&s, 0, sizeof s);
    if (id >= PMVP_X86_FIXED_BASE) {
        static const uint8_t fixed_kind[PMVP_X86_NUM_FIXED] = { K_OCCURRENCE, K_CORE_CYCLES, K_REF_TSC };
        unsigned x = id - PMVP_X86_FIXED_BASE;
        unsigned f = (unsigned)(th->fixed_ctrl >> (4 * x)) & 0xF;
        s.os = f & PMVP_X86_FIXED_OS;
        s.usr = f & PMVP_X86_FIXED_USR;
        s.any = f & PMVP_X86_FIXED_ANY;
        s.pmi = f & PMVP_X86_FIXED_PMI;
        s.enabled = global && (s.os || s.usr);
        s.kind = fixed_kind[x];
        s.event = x == 0 ? PMVP_X86_INST_RETIRED_ANY : PMVP_X86_CPU_CLK_UNHALTED_THREAD_P;
    } else {
        uint64_t e = th->evtsel[id];
        s.event = (uint16_t)(e & 0xFFFF);
        s.kind = clock_kind(s.event);
        s.os = e & PMVP_X86_EVTSEL_OS;
        s.usr = e & PMVP_X86_EVTSEL_USR;
        s.any = e & PMVP_X86_EVTSEL_ANY;
        s.edge = e & PMVP_X86_EVTSEL_E;
        s.inv = e & PMVP_X86_EVTSEL_INV;
        s.pmi = e & PMVP_X86_EVTSEL_INT;
        s.cmask = (uint8_t)(e >> PMVP_X86_EVTSEL_CMASK_SHIFT);
        s.enabled = global && (e & PMVP_X86_EVTSEL_EN);
    }
    return s;
}

/* The OS/USR bits that qualify the activity of LP u for counter `id` of LP
 * t: the counter's own (architectural), or LP u's T<u>_OS/T<u>_USR (the
 * shared control of Table 18-30). */
static selection qualifier(const pmvp_x86_core *c, unsigned t, unsigned id, unsigned u)
{
    return select_counter(c, c->cfg.cpl_mode == PMVP_X86_CPL_T0_T1 ? u : t, id);
}

static bool cpl_selected(const selection *q, uint8_t cpl)
{
    return cpl == 0 ? q->os : q->usr;
}

/* A thread-specific tick or occurrence of LP u, for counter `id` of LP t. */
static bool counts_lp(const pmvp_x86_core *c, unsigned t, unsigned id, const selection *s, unsigned u)
{
    if (u != t && !s->any)
        return false;
    selection q = qualifier(c, t, id, u);
    return cpl_selected(&q, c->thread[u].ctx.cpl);
}

/* A thread-independent occurrence, for counter `id` of LP t. */
static bool counts_core(const pmvp_x86_core *c, unsigned t, unsigned id, const selection *s)
{
    unsigned n = c->cfg.num_threads;
    if (c->cfg.cpl_mode == PMVP_X86_CPL_PER_THREAD) {
        for (unsigned u = 0; u < n; u++)
            if (counts_lp(c, t, id, s, u))
                return true;
        return false;
    }
    /* Table 18-30: any T<u>_OS with any LP at CPL 0, any T<u>_USR with any
     * LP at CPL 1-3. */
    bool os = false, usr = false, at_os = false, at_usr = false;
    for (unsigned u = 0; u < n; u++) {
        selection q = select_counter(c, u, id);
        os |= q.os;
        usr |= q.usr;
        at_os |= c->thread[u].ctx.cpl == 0;
        at_usr |= c->thread[u].ctx.cpl != 0;
    }
    return (os && at_os) || (usr && at_usr);
}

static bool unhalted(const pmvp_x86_core *c, unsigned u)
{
    return c->thread[u].state == PMVP_X86_C0;
}

static bool powered_down(const pmvp_x86_core *c)
{
    for (unsigned u = 0; u < c->cfg.num_threads; u++)
        if (unhalted(c, u))
            return false;
    return true;
}

/* The clock condition of a cycle kind for LP u. */
static bool active(const pmvp_x86_core *c, uint8_t kind, unsigned u)
{
    if (!unhalted(c, u))
        return false;
    if (kind == K_ONE_THREAD)
        for (unsigned v = 0; v < c->cfg.num_threads; v++)
            if (v != u && unhalted(c, v))
                return false;
    return true;
}

/* E, INV, CMASK: the comparison's condition for an increment v. */
static bool condition(const selection *s, uint64_t v)
{
    return s->cmask ? ((v >= s->cmask) != s->inv) : v != 0;
}

/* What one tick or report with increment v adds, without E. */
static uint64_t per_tick(const selection *s, uint64_t v)
{
    return s->cmask ? condition(s, v) : v;
}

static void add(pmvp_x86_core *c, unsigned t, unsigned id, uint64_t n)
{
    pmvp_x86_counter *k = counter_of(c, t, id);
    uint64_t mask = width_mask(c, id);
    uint64_t sum = k->value + n;
    bool wrapped = sum < k->value || sum > mask;
    k->value = sum & mask;
    if (wrapped)
        c->thread[t].global_status |= UINT64_C(1) << id;
}

/* `ticks` ticks (or one report) with increment v each. */
static void apply(pmvp_x86_core *c, unsigned t, unsigned id, const selection *s, uint64_t ticks, uint64_t v)
{
    if (ticks == 0)
        return;
    pmvp_x86_counter *k = counter_of(c, t, id);
    if (s->edge) {
        bool now = condition(s, v);
        if (now && !k->last_condition)
            add(c, t, id, 1);
        k->last_condition = now;
    } else {
        add(c, t, id, ticks * per_tick(s, v));
    }
}

/* Whether counter `id` of LP t sees the current ticks of its clock at all,
 * and their increment (0 or 1). */
static bool clock_input(const pmvp_x86_core *c, unsigned t, unsigned id, const selection *s, uint64_t *v)
{
    bool gate = false;
    *v = 0;
    for (unsigned u = 0; u < c->cfg.num_threads; u++) {
        if (!counts_lp(c, t, id, s, u))
            continue;
        gate = true;
        if (active(c, s->kind, u))
            *v = 1;
    }
    return gate;
}

static const pmvp_clock *clock_of(const pmvp_x86_core *c, uint8_t kind, uint64_t *edges)
{
    switch (kind) {
    case K_CORE_CYCLES: *edges = c->core_edges; return &c->core_clock;
    case K_REF_TSC: *edges = c->tsc_edges; return &c->tsc_clock;
    default: *edges = c->xclk_edges; return &c->xclk;
    }
}

/* ---------------------------------------------------------------- time */

static bool all_in_deep_sleep(const pmvp_x86_core *c)
{
    for (unsigned u = 0; u < c->cfg.num_threads; u++)
        if (c->thread[u].state != PMVP_X86_DEEP_SLEEP)
            return false;
    return true;
}

/* The counters that their clock's ticks change now (c->ticks), decoded from
 * the controls, C-states and contexts once per change of them rather than
 * at every sync. One to which a tick adds nothing without edge detection
 * (its input 0, or CMASK and INV refusing it) is left out: a sync has
 * nothing to do for it. */
static void plan_ticks(pmvp_x86_core *c)
{
    c->num_ticks = 0;
    c->ticks_valid = true;
    if (powered_down(c))
        return;
    for (unsigned t = 0; t < c->cfg.num_threads; t++) {
        for (unsigned k = 0; k < counters_per_lp(c); k++) {
            unsigned id = counter_id(c, k);
            selection s = select_counter(c, t, id);
            uint64_t v;
            if (!s.enabled || s.kind == K_OCCURRENCE || !clock_input(c, t, id, &s, &v) ||
                (!s.edge && per_tick(&s, v) == 0))
                continue;
            c->ticks[c->num_ticks++] =
                (pmvp_x86_tick){ (uint8_t)t, (uint8_t)id, s.kind, (uint8_t)v, s.edge, s.inv, s.cmask };
        }
    }
}

/* Counts every tick from sync_time to now under the state that held. */
static void sync(pmvp_x86_core *c, pmvp_time now)
{
    uint64_t core = k_clock_cycles(&c->core_clock, now);
    uint64_t tsc = k_clock_cycles(&c->tsc_clock, now);
    uint64_t xclk = k_clock_cycles(&c->xclk, now);
    uint64_t d_core = core - c->core_edges, d_tsc = tsc - c->tsc_edges, d_xclk = xclk - c->xclk_edges;

    if (c->cfg.tsc_invariant || !all_in_deep_sleep(c))
        c->tsc += d_tsc;
    for (unsigned t = 0; t < c->cfg.num_threads; t++) {
        if (!unhalted(c, t))
            continue;
        c->thread[t].aperf += d_core;
        c->thread[t].mperf += d_tsc;
    }
    if (!c->ticks_valid)
        plan_ticks(c);
    for (unsigned i = 0; i < c->num_ticks; i++) {
        const pmvp_x86_tick *k = &c->ticks[i];
        uint64_t ticks = k->kind == K_CORE_CYCLES ? d_core : k->kind == K_REF_TSC ? d_tsc : d_xclk;
        if (ticks == 0)
            continue;
        if (k->edge) {
            selection s = { .kind = k->kind, .edge = true, .inv = k->inv, .cmask = k->cmask };
            apply(c, k->thread, k->id, &s, ticks, k->increment);
        } else {
            add(c, k->thread, k->id, ticks);
        }
    }
    c->core_edges = core;
    c->tsc_edges = tsc;
    c->xclk_edges = xclk;
    c->sync_time = now;
    pmvp_clock_reanchor(&c->core_clock, now);
    pmvp_clock_reanchor(&c->tsc_clock, now);
    pmvp_clock_reanchor(&c->xclk, now);
}

/* Every call passes here first: refuses the past, then counts up to now. */
static int begin(pmvp_x86_core *c, pmvp_time now)
{
    if (!c)
        return PMVP_ERR_NULL;
    if (now < c->last_call)
        return PMVP_ERR_PAST;
    c->last_call = now;
    sync(c, now);
    return PMVP_OK;
}

static int check_thread(const pmvp_x86_core *c, unsigned t)
{
    if (!c)
        return PMVP_ERR_NULL;
    return t < c->cfg.num_threads ? PMVP_OK : PMVP_ERR_PE;
}

/* The checks of a read into *value (RDMSR, RDPMC, RDTSC). */
static int check_read(const pmvp_x86_core *c, unsigned t, const uint64_t *value)
{
    int err = check_thread(c, t);
    return err ? err : value ? PMVP_OK : PMVP_ERR_NULL;
}

/* ---------------------------------------------------------------- API */

static bool valid_width(unsigned w)
{
    return w >= 32 && w <= 48;
}

/* NULL, or why the configuration is refused: the field and the rule. */
static const char *check_config(const pmvp_x86_config *cfg)
{
    if (cfg->num_threads < 1 || cfg->num_threads > PMVP_X86_MAX_THREADS)
        return "num_threads: 1 or 2 logical processors per core";
    if (cfg->num_gp > PMVP_X86_MAX_GP)
        return "num_gp: at most 8 general-purpose counters per logical processor";
    if (!valid_width(cfg->gp_width) || !valid_width(cfg->fixed_width))
        return "gp_width, fixed_width: counter widths from 32 to 48 bits";
    if (cfg->tsc_hz == 0)
        return "tsc_hz: the TSC's frequency is invariant and above 0 Hz";
    if (cfg->core_hz > PMVP_MAX_CLOCK_HZ || cfg->tsc_hz > PMVP_MAX_CLOCK_HZ || cfg->xclk_hz > PMVP_MAX_CLOCK_HZ)
        return "core_hz, tsc_hz, xclk_hz: at most PMVP_MAX_CLOCK_HZ (1 THz)";
    if (cfg->cpl_mode != PMVP_X86_CPL_PER_THREAD && cfg->cpl_mode != PMVP_X86_CPL_T0_T1)
        return "cpl_mode: not one of enum pmvp_x86_cpl_mode";
    return NULL;
}

int pmvp_x86_init(pmvp_x86_core *c, const pmvp_x86_config *cfg)
{
    return pmvp_x86_init_why(c, cfg, NULL);
}

int pmvp_x86_init_why(pmvp_x86_core *c, const pmvp_x86_config *cfg, const char **why)
{
    if (why)
        *why = NULL;
    if (!c || !cfg)
        return PMVP_ERR_NULL;
    const char *refused = check_config(cfg);
    if (refused) {
        if (why)
            *why = refused;
        return PMVP_ERR_CONFIG;
    }
    memset(c, 0, sizeof *c);
    c->cfg = *cfg;
    pmvp_clock_init(&c->core_clock, cfg->core_hz, 0);
    pmvp_clock_init(&c->tsc_clock, cfg->tsc_hz, 0);
    pmvp_clock_init(&c->xclk, cfg->xclk_hz, 0);
    for (unsigned t = 0; t < cfg->num_threads; t++)
        c->thread[t].global_ctrl = (UINT64_C(1) << cfg->num_gp) - 1;
    return PMVP_OK;
}

int pmvp_x86_sync(pmvp_x86_core *c, pmvp_time now)
{
    return begin(c, now);
}

int pmvp_x86_set_core_clock(pmvp_x86_core *c, uint64_t hz, pmvp_time now)
{
    if (c && hz > PMVP_MAX_CLOCK_HZ)
        return PMVP_ERR_VALUE;
    int err = begin(c, now);
    if (err)
        return err;
    pmvp_clock_set_hz(&c->core_clock, hz, now);
    return PMVP_OK;
}

int pmvp_x86_set_state(pmvp_x86_core *c, unsigned t, enum pmvp_x86_state st, pmvp_time now)
{
    int err = check_thread(c, t);
    if (err)
        return err;
    if (st != PMVP_X86_C0 && st != PMVP_X86_HALT && st != PMVP_X86_DEEP_SLEEP)
        return PMVP_ERR_VALUE;
    if ((err = begin(c, now)))
        return err;
    c->thread[t].state = (uint8_t)st;
    c->ticks_valid = false;
    return PMVP_OK;
}

int pmvp_x86_set_context(pmvp_x86_core *c, unsigned t, const pmvp_x86_context *ctx, pmvp_time now)
{
    int err = check_thread(c, t);
    if (err)
        return err;
    if (!ctx)
        return PMVP_ERR_NULL;
    if (ctx->cpl > 3)
        return PMVP_ERR_VALUE;
    if ((err = begin(c, now)))
        return err;
    c->thread[t].ctx = *ctx;
    c->ticks_valid = false;
    return PMVP_OK;
}

int pmvp_x86_report(pmvp_x86_core *c, unsigned from, uint16_t event, uint64_t count, pmvp_time now)
{
    int err = check_thread(c, from);
    if (err)
        return err;
    if (clock_kind(event) != K_OCCURRENCE)
        return PMVP_ERR_EVENT;
    if ((err = begin(c, now)))
        return err;
    for (unsigned t = 0; t < c->cfg.num_threads; t++) {
        for (unsigned k = 0; k < counters_per_lp(c); k++) {
            unsigned id = counter_id(c, k);
            selection s = select_counter(c, t, id);
            if (s.enabled && s.kind == K_OCCURRENCE && s.event == event && counts_lp(c, t, id, &s, from))
                apply(c, t, id, &s, 1, count);
        }
    }
    return PMVP_OK;
}

int pmvp_x86_report_core(pmvp_x86_core *c, uint16_t event, uint64_t count, pmvp_time now)
{
    if (!c)
        return PMVP_ERR_NULL;
    if (clock_kind(event) != K_OCCURRENCE)
        return PMVP_ERR_EVENT;
    int err = begin(c, now);
    if (err)
        return err;
    for (unsigned t = 0; t < c->cfg.num_threads; t++) {
        for (unsigned k = 0; k < counters_per_lp(c); k++) {
            unsigned id = counter_id(c, k);
            selection s = select_counter(c, t, id);
            if (s.enabled && s.kind == K_OCCURRENCE && s.event == event && counts_core(c, t, id, &s))
                apply(c, t, id, &s, 1, count);
        }
    }
    return PMVP_OK;
}

bool pmvp_x86_pmi(const pmvp_x86_core *c, unsigned t)
{
    if (check_thread(c, t))
        return false;
    const pmvp_x86_thread *th = &c->thread[t];
    uint64_t enabled = 0;
    for (unsigned k = 0; k < counters_per_lp(c); k++) {
        unsigned id = counter_id(c, k);
        if (select_counter(c, t, id).pmi)
            enabled |= UINT64_C(1) << id;
    }
    return (th->global_status & enabled) != 0;
}

int pmvp_x86_next_interrupt(pmvp_x86_core *c, pmvp_time now, pmvp_time *when)
{
    if (!when)
        return PMVP_ERR_NULL;
    int err = begin(c, now);
    if (err)
        return err;
    *when = PMVP_TIME_NEVER;
    if (powered_down(c))
        return PMVP_OK;
    for (unsigned t = 0; t < c->cfg.num_threads; t++) {
        for (unsigned k = 0; k < counters_per_lp(c); k++) {
            unsigned id = counter_id(c, k);
            selection s = select_counter(c, t, id);
            uint64_t v, edges;
            if (!s.enabled || !s.pmi || s.kind == K_OCCURRENCE || !clock_input(c, t, id, &s, &v))
                continue;
            const pmvp_x86_counter *ctr = counter_of(c, t, id);
            uint64_t to_wrap = width_mask(c, id) - ctr->value + 1;
            const pmvp_clock *clk = clock_of(c, s.kind, &edges);
            pmvp_time at = PMVP_TIME_NEVER;
            if (s.edge) {
                /* One increment at most, on the next tick. */
                if (to_wrap == 1 && condition(&s, v) && !ctr->last_condition)
                    at = pmvp_clock_edge_time(clk, edges + 1);
            } else if (per_tick(&s, v) == 1) {
                at = pmvp_clock_edge_time(clk, edges + to_wrap);
            }
            if (at < *when)
                *when = at;
        }
    }
    return PMVP_OK;
}

/* ----------------------------------------------------------------- MSRs */

/* The MSRs, from x86_msrs.def. */
enum msr_id {
#define PMVP_X86_MSR(id, ...) MSR_##id,
#include "pmvp/x86_msrs.def"
};
enum msr_instances { ONE, GP, FIXED };
enum msr_gate { ALWAYS, FULL_WIDTH_WRITES };
enum msr_access { RW, RO, ACTION };
enum msr_reserved { NONE, EVTSEL, FIXED_CTRL, COUNTER_BITS, COUNTER_WIDTH, SIGN_EXTENDED };

typedef struct msr_row {
    uint8_t id;        /* enum msr_id */
    uint8_t instances; /* enum msr_instances */
    uint8_t gate;      /* enum msr_gate */
    uint8_t access;    /* enum msr_access */
    uint8_t reserved;  /* enum msr_reserved */
} msr_row;

static const msr_row msrs[] = {
#define PMVP_X86_MSR(id, address, instances, gate, access, reserved, title) \
    { MSR_##id, instances, gate, access, reserved },
#include "pmvp/x86_msrs.def"
};

static const pmvp_x86_msr_info msr_info[] = {
#define PMVP_X86_MSR(id, address_, instances_, gate, access_, reserved, title_)                          \
    [MSR_##id].name = #id, [MSR_##id].address = address_, [MSR_##id].instances = INSTANCES_##instances_, \
    [MSR_##id].needs = NEEDS_##gate, [MSR_##id].access = ACCESS_##access_, [MSR_##id].title = title_,
#define PMVP_X86_MSR_STATE(id, owner, state_) [MSR_##id].state = #state_,
#define INSTANCES_ONE "1"
#define INSTANCES_GP "num_gp"
#define INSTANCES_FIXED "3"
#define NEEDS_ALWAYS ""
#define NEEDS_FULL_WIDTH_WRITES "full_width_writes"
#define ACCESS_RW "RW"
#define ACCESS_RO "RO"
#define ACCESS_ACTION "RW, bits are actions (reads 0)"
#include "pmvp/x86_msrs.def"
};

#define NUM_MSRS (sizeof msrs / sizeof msrs[0])

size_t pmvp_x86_msr_count(void)
{
    return NUM_MSRS;
}

const pmvp_x86_msr_info *pmvp_x86_msr_at(size_t i)
{
    return i < NUM_MSRS ? &msr_info[i] : NULL;
}

/* The row of MSR address `msr` in this configuration, and its instance x;
 * NULL for an MSR the core does not have. */
static const msr_row *decode_msr(const pmvp_x86_core *c, uint32_t msr, unsigned *x)
{
    for (size_t i = 0; i < NUM_MSRS; i++) {
        const msr_row *r = &msrs[i];
        uint32_t base = msr_info[i].address;
        unsigned count = r->instances == GP ? c->cfg.num_gp : r->instances == FIXED ? PMVP_X86_NUM_FIXED : 1;
        if (msr < base || msr - base >= count || (r->gate == FULL_WIDTH_WRITES && !c->cfg.full_width_writes))
            continue;
        *x = msr - base;
        return r;
    }
    return NULL;
}

/* The counter (PMVP_X86_FIXED_BASE + x for FIXED_CTRx) an MSR row holds, or -1. */
static int msr_counter(const msr_row *r, unsigned x)
{
    switch (r->id) {
    case MSR_IA32_PMC0:
    case MSR_IA32_A_PMC0: return (int)x;
    case MSR_IA32_FIXED_CTR0: return (int)(PMVP_X86_FIXED_BASE + x);
    default: return -1;
    }
}

/* The value instance x of MSR `id` holds for logical processor t, where its
 * PMVP_X86_MSR_STATE line says it lives; NULL for an MSR that holds none. */
static uint64_t *msr_state(pmvp_x86_core *c, unsigned t, unsigned id, unsigned x)
{
    pmvp_x86_thread *th = &c->thread[t];
    switch (id) {
// clang-format off
#define PMVP_X86_MSR_STATE(id_, owner, state) case MSR_##id_: return &(state);
#include "pmvp/x86_msrs.def"
        // clang-format on
    default: return NULL;
    }
}

int pmvp_x86_rdmsr(pmvp_x86_core *c, unsigned t, uint32_t msr, pmvp_time now, uint64_t *value)
{
    int err = check_read(c, t, value);
    if (err)
        return err;
    unsigned x;
    const msr_row *r = decode_msr(c, msr, &x);
    if (!r)
        return PMVP_ERR_GP;
    if ((err = begin(c, now)))
        return err;
    const uint64_t *state = msr_state(c, t, r->id, x);
    if (state)
        *value = *state;
    else if (r->id == MSR_IA32_PERF_CAPABILITIES)
        *value = c->cfg.full_width_writes ? PMVP_X86_PERF_CAP_FW_WRITE : 0;
    else
        *value = 0; /* an ACTION MSR holds nothing */
    return PMVP_OK;
}

/* Checks a write against the MSR's access and reserved bits (its row); the
 * value the MSR takes in *stored. PMVP_ERR_GP for a read-only or unknown
 * MSR or a reserved bit. */
static int check_write(const pmvp_x86_core *c, const msr_row *r, unsigned x, uint64_t value, uint64_t *stored)
{
    if (!r || r->access == RO)
        return PMVP_ERR_GP;
    *stored = value;
    uint64_t reserved = 0;
    switch (r->reserved) {
    case SIGN_EXTENDED: {
        /* IA32_PMCx: bits 31:0 written, bit 31 sign-extended to the width. */
        uint64_t low = value & UINT64_C(0xFFFFFFFF);
        uint64_t mask = width_mask(c, (unsigned)msr_counter(r, x));
        *stored = (low & (UINT64_C(1) << 31)) ? (low | ~UINT64_C(0xFFFFFFFF)) & mask : low;
        return PMVP_OK;
    }
    case COUNTER_WIDTH: reserved = ~width_mask(c, (unsigned)msr_counter(r, x)); break;
    case EVTSEL: reserved = EVTSEL_RESERVED; break;
    case FIXED_CTRL: reserved = ~((UINT64_C(1) << (4 * PMVP_X86_NUM_FIXED)) - 1); break;
    case COUNTER_BITS: reserved = ~counter_bits(c); break;
    default: break;
    }
    return (value & reserved) ? PMVP_ERR_GP : PMVP_OK;
}

int pmvp_x86_wrmsr(pmvp_x86_core *c, unsigned t, uint32_t msr, uint64_t value, pmvp_time now)
{
    int err = check_thread(c, t);
    if (err)
        return err;
    unsigned x = 0;
    const msr_row *r = decode_msr(c, msr, &x);
    uint64_t v;
    if ((err = check_write(c, r, x, value, &v)))
        return err;
    if ((err = begin(c, now)))
        return err;
    pmvp_x86_thread *th = &c->thread[t];
    uint64_t *state = msr_state(c, t, r->id, x);
    if (state)
        *state = v;
    /* What a write does beyond storing its value. */
    if (r->id == MSR_IA32_PERFEVTSEL0)
        th->gp[x].last_condition = false; /* a new selection starts its edge detector afresh */
    else if (r->id == MSR_IA32_PERF_GLOBAL_OVF_CTRL)
        th->global_status &= ~v;
    c->ticks_valid = false; /* a control may have changed what counts ticks */
    return PMVP_OK;
}

int pmvp_x86_rdpmc(pmvp_x86_core *c, unsigned t, uint32_t ecx, pmvp_time now, uint64_t *value)
{
    int err = check_read(c, t, value);
    if (err)
        return err;
    const pmvp_x86_context *ctx = &c->thread[t].ctx;
    if (ctx->cpl != 0 && !ctx->cr4_pce)
        return PMVP_ERR_GP;
    uint32_t index = ecx & 0x3FFFFFFFu;
    bool fixed = ecx & (1u << 30);
    if ((ecx & ~((1u << 30) | 0x3FFFFFFFu)) || index >= (fixed ? PMVP_X86_NUM_FIXED : c->cfg.num_gp))
        return PMVP_ERR_GP;
    if ((err = begin(c, now)))
        return err;
    *value = counter_of(c, t, fixed ? PMVP_X86_FIXED_BASE + index : index)->value;
    return PMVP_OK;
}

int pmvp_x86_rdtsc(pmvp_x86_core *c, unsigned t, pmvp_time now, uint64_t *value)
{
    int err = check_read(c, t, value);
    if (err)
        return err;
    const pmvp_x86_context *ctx = &c->thread[t].ctx;
    if (ctx->cpl != 0 && ctx->cr4_tsd)
        return PMVP_ERR_GP;
    if ((err = begin(c, now)))
        return err;
    *value = c->tsc;
    return PMVP_OK;
}
