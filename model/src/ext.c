/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The external PMU and AMU frames (I3, I4, I5), driven by the PMVP_REG_EXT
 * rows of registers.def. Registers that are views of PMU or AMU System registers
 * go through the PMU and AMU register files, so every rule of those lives
 * in one place; this file adds decoding, the external access checks and the
 * registers that exist only in the external view.
 */
#include "pmvp/ext.h"

#include <string.h>

#include "regfile.h"
#include "pmvp/amu.h"
#include "pmvp/error.h"
#include "pmvp/pmu.h"

/* What a row shows (pmvp_ext_reg.view). */
enum view {
    V_PMEVCNTR,
    V_PMEVTYPER,
    V_PMCCNTR,
    V_PMCCFILTR,
    V_PMICNTR,
    V_PMICFILTR,
    V_PMCGCR0,
    V_PMEVCNTSVR,
    V_PMCCNTSVR,
    V_PMICNTSVR,
    V_PMSSCR,
    V_PMCNTEN,
    V_PMINTEN,
    V_PMOVS,
    V_PMSWINC,
    V_PMZR,
    V_PMCFGR,
    V_PMCR,
    V_PMCEID,
    V_PMMIR,
    V_PMITCTRL,
    V_PMLAR,
    V_PMLSR,
    V_PMAUTHSTATUS,
    V_AMEVCNTR,
    V_AMEVTYPER,
    V_AMCNTEN,
    V_AMCGCR,
    V_AMCFGR,
    V_AMCR,
    V_IIDR,
    V_DEVAFF,
    V_DEVARCH,
    V_PIDR,
    V_PMCCR,
    V_PMDEVID,
    V_CONST
};

#define L32 PMVP_EXT_LAYOUT_BIT(PMVP_EXT32)
#define L64 PMVP_EXT_LAYOUT_BIT(PMVP_EXT64)
#define LALL (L32 | L64)
#define ONES32 UINT64_C(0xFFFFFFFF)
#define ONES64 UINT64_MAX

static const pmvp_ext_reg table[] = {
#define PMVP_REG_EXT(fr, nm, lay, off, str, sl, w, h, k, d, g, der, rst, wm, v, a) \
    { nm, PMVP_FRAME_##fr, lay, off, str, sl, w, h, PMVP_EXT_##k, PMVP_EXT_##d, PMVP_GATE_##g, der, rst, wm, V_##v, a },
#include "pmvp/registers.def"
};

#define TABLE_SIZE (sizeof table / sizeof table[0])

/* The decode divides by a row's stride with a shift: every stride is 0 or a
 * power of two. */
#define PMVP_REG_EXT(fr, nm, lay, off, str, sl, w, h, k, d, g, der, rst, wm, v, a) \
    _Static_assert(((str) & ((str)-1)) == 0, "the stride of " nm " is a power of two");
#include "pmvp/registers.def"

size_t pmvp_ext_reg_count(void)
{
    return TABLE_SIZE;
}

const pmvp_ext_reg *pmvp_ext_reg_at(size_t i)
{
    return i < TABLE_SIZE ? &table[i] : NULL;
}

/* ------------------------------------------------------------ the layout */

static enum pmvp_ext_layout layout_of(const pmvp_core *c, unsigned frame)
{
    return frame == PMVP_FRAME_PMU ? c->cfg.pmu_ext_layout : c->cfg.amu_ext_layout;
}

bool pmvp_ext_reg_present(const pmvp_core *c, const pmvp_ext_reg *r)
{
    if (r->frame == PMVP_FRAME_AMU && !c->cfg.feat_amuv1)
        return false;
    return (r->layouts & PMVP_EXT_LAYOUT_BIT(layout_of(c, r->frame))) &&
           pmvp_gate_open(&c->cfg, (enum pmvp_gate)r->gate);
}

unsigned pmvp_ext_reg_width(const pmvp_core *c, const pmvp_ext_reg *r)
{
    return r->width ? r->width : layout_of(c, r->frame) == PMVP_EXT64 ? 64 : 32;
}

unsigned pmvp_ext_reg_instances(const pmvp_core *c, const pmvp_ext_reg *r)
{
    if (!r->stride)
        return 1;
    if (r->frame == PMVP_FRAME_PMU)
        return c->cfg.num_counters;
    return r->arg == 0 ? PMVP_AMU_ARCH_COUNTERS : c->cfg.amu_num_aux;
}

_Static_assert(TABLE_SIZE < 255, "ext_row holds 1 + a row's index in a byte");
_Static_assert(sizeof((k_core_caches *)0)->ext_row[0] == PMVP_FRAME_SIZE / 4, "a map entry per word of a frame");

/* Every word of a frame the configuration's registers occupy, the first
 * row in the table's order winning (rows of the two layouts may share
 * offsets; only the configuration's layout is present). Reading the map is
 * the decode: an access costs no walk of the table. */
void k_ext_map(pmvp_core *c)
{
    memset(k_caches(c)->ext_row, 0, sizeof k_caches(c)->ext_row);
    for (size_t i = 0; i < TABLE_SIZE; i++) {
        const pmvp_ext_reg *r = &table[i];
        if (!pmvp_ext_reg_present(c, r))
            continue;
        unsigned words = pmvp_ext_reg_width(c, r) / 32;
        for (unsigned k = 0; k < r->slots; k++)
            for (unsigned w = 0; w < words; w++) {
                uint32_t at = (r->offset + k * r->stride) / 4 + w;
                if (at < PMVP_FRAME_SIZE / 4 && !k_caches(c)->ext_row[r->frame][at])
                    k_caches(c)->ext_row[r->frame][at] = (uint8_t)(i + 1);
            }
    }
}

/* Where an access lands: the register, its instance, and the word. */
typedef struct target {
    const pmvp_ext_reg *reg; /* NULL: reserved */
    unsigned n, word;
} target;

/* The decode of `offset` in frame f (both valid), by the frame's map. */
static inline target decode(const pmvp_core *c, enum pmvp_frame f, uint32_t offset)
{
    unsigned i = k_caches(c)->ext_row[f][offset / 4];
    if (!i)
        return (target){ NULL, 0, 0 };
    const pmvp_ext_reg *r = &table[i - 1];
    uint32_t rel = offset - r->offset;
    if (!r->stride)
        return (target){ r, 0, rel / 4 };
    unsigned shift = (unsigned)__builtin_ctz(r->stride);
    return (target){ r, rel >> shift, (rel & (r->stride - 1u)) / 4 };
}

const pmvp_ext_reg *pmvp_ext_decode(const pmvp_core *c, enum pmvp_frame f, uint32_t offset, unsigned *n, unsigned *word)
{
    if ((unsigned)f > PMVP_FRAME_AMU || offset >= PMVP_FRAME_SIZE)
        return NULL;
    target t = decode(c, f, offset);
    if (t.reg) {
        *n = t.n;
        *word = t.word;
    }
    return t.reg;
}

int pmvp_ext_find(const pmvp_core *c, enum pmvp_frame f, const char *name, unsigned n, uint32_t *offset)
{
    if (!c || !name || !offset)
        return PMVP_ERR_NULL;
    for (size_t i = 0; i < TABLE_SIZE; i++) {
        const pmvp_ext_reg *r = &table[i];
        if (r->frame != f || strcmp(r->name, name) != 0 || !pmvp_ext_reg_present(c, r))
            continue;
        if (n >= r->slots)
            return PMVP_ERR_COUNTER;
        *offset = r->offset + n * r->stride;
        return PMVP_OK;
    }
    return PMVP_ERR_REGISTER;
}

/* ----------------------------------------------------- external-only views */

/* MPIDR_EL1 of PE p, which PMDEVAFF and AMDEVAFF copy (configuration). */
static uint64_t mpidr(const pmvp_core *c, unsigned p)
{
    uint64_t m = c->cfg.mpidr | PMVP_MPIDR_EL1_RES1;
    m = (m & ~PMVP_MPIDR_EL1_Aff0) | PMVP_FIELD_PREP(PMVP_MPIDR_EL1_Aff0, PMVP_FIELD_GET(PMVP_MPIDR_EL1_Aff0, m) + p);
    return c->cfg.num_pes > 1 ? m | PMVP_MPIDR_EL1_MT : m;
}

static uint32_t iidr(const pmvp_core *c, unsigned frame)
{
    return frame == PMVP_FRAME_PMU ? c->cfg.pmiidr : c->cfg.amiidr;
}

/* PIDR0-4 repeat the IIDR fields in the CoreSight peripheral ID scheme
 * (I5.5.24: PART, DES, REVISION, REVAND), with JEDEC = 1 and SIZE = 0. */
static uint32_t pidr(uint32_t id, unsigned i)
{
    uint32_t product = (uint32_t)PMVP_FIELD_GET(PMVP_PMIIDR_ProductID, id);
    uint32_t designer = (uint32_t)PMVP_FIELD_GET(PMVP_PMIIDR_Implementer, id);
    switch (i) {
    case 0: return product & 0xFF;
    case 1: return (designer & 0xF) << 4 | (product >> 8 & 0xF);
    case 2: return (uint32_t)PMVP_FIELD_GET(PMVP_PMIIDR_Variant, id) << 4 | 1u << 3 | (designer >> 4 & 0x7);
    case 3: return (uint32_t)PMVP_FIELD_GET(PMVP_PMIIDR_Revision, id) << 4;
    default: return designer >> 8 & 0xF;
    }
}

/* PMDEVARCH/AMDEVARCH: ARCHITECT Arm (0x23B), PRESENT, and the ARCHID of
 * the layout (I5.3.25, I5.5.18). */
static uint32_t devarch(const pmvp_core *c, unsigned frame)
{
    bool ext64 = layout_of(c, frame) == PMVP_EXT64;
    uint32_t archid = frame == PMVP_FRAME_PMU ? (ext64 ? 0x2A26 : 0x2A16) : (ext64 ? 0x0A67 : 0x0A66);
    return 0x23Bu << 21 | 1u << 20 | archid;
}

/* The event counters an access reaches (Table I3-3): with
 * FEAT_PMUv3_EXTPMN, those below EPMN unless it is a Most secure access;
 * every one on the debug path (`a` NULL), the integrator's view. */
static unsigned reachable_counters(const pmvp_core *c, const pmvp_pe *pe, const pmvp_ext_access *a)
{
    if (!c->cfg.feat_pmuv3_extpmn || !a || k_ext_most_secure(c, a))
        return c->cfg.num_counters;
    return k_epmn(c, pe);
}

/* PMCFGR (I5.3.11): N is the number of counters the access reaches minus
 * one (the event counters, the cycle counter and, with FEAT_PMUv3_ICNTR,
 * the instruction counter); 64-bit counters; dedicated cycle counter; CCD
 * with AArch32; no export (PMCR.X RAZ/WI), freeze-on-overflow with
 * FEAT_PMUv3p7 (PMCR.FZO); one counter group, two with the instruction
 * counter (group 1). */
static uint64_t pmcfgr(const pmvp_core *c, unsigned reachable)
{
    bool icntr = c->cfg.feat_pmuv3_icntr;
    return PMVP_FIELD_PREP(PMVP_PMCFGR_N, reachable + icntr) | PMVP_PMCFGR_SIZE | PMVP_PMCFGR_CC |
           (c->cfg.have_aarch32 ? PMVP_PMCFGR_CCD : 0) | (c->cfg.feat_pmuv3p7 ? PMVP_PMCFGR_FZO : 0) |
           PMVP_FIELD_PREP(PMVP_PMCFGR_NCG, icntr);
}

/* PMCGCR0 (I5.3.10), FEAT_PMUv3_ICNTR: group 0 holds the event counters the
 * access reaches and the cycle counter, group 1 the instruction counter. */
static uint64_t pmcgcr0(unsigned reachable)
{
    return PMVP_FIELD_PREP(PMVP_PMCGCR0_CG0NC, reachable + 1) | PMVP_FIELD_PREP(PMVP_PMCGCR0_CG1NC, 1);
}

/* PMDEVID (I5.3.26): FEAT_PMUv3_EXTPMN, FEAT_PMUv3_SS; no PC sampling. */
static uint64_t pmdevid(const pmvp_core *c)
{
    return PMVP_FIELD_PREP(PMVP_PMDEVID_EXTPMN, c->cfg.feat_pmuv3_extpmn) |
           PMVP_FIELD_PREP(PMVP_PMDEVID_PMSS, c->cfg.feat_pmuv3_ss);
}

/* PMAUTHSTATUS (I5.3.1): the PMU is non-invasive, so the invasive fields
 * read "not implemented"; NSNID and SNID say whether non-invasive debug is
 * enabled (0b11) or disabled (0b10), SNID only when Secure state exists.
 * Realm and Root fields are not modelled (0b00). */
static uint32_t pmauthstatus(const pmvp_core *c, const pmvp_pmu_controls *ctl)
{
    uint32_t ns = c->cfg.feat_debugv8p4 || ctl->noninvasive_debug ? 3 : 2;
    uint32_t s = c->cfg.have_el3 ? (ctl->secure_noninvasive_debug ? 3 : 2) : 0;
    return (uint32_t)(PMVP_FIELD_PREP(PMVP_PMAUTHSTATUS_NSNID, ns) | PMVP_FIELD_PREP(PMVP_PMAUTHSTATUS_SNID, s));
}

/* --------------------------------------------------------- reading a view */

static uint64_t pmu_reg(const pmvp_core *c, unsigned p, const pmvp_pe *pe, enum pmvp_pmu_reg reg, unsigned n)
{
    uint64_t v = 0;
    k_pmu_look(c, p, pe, reg, n, &v); /* the row names a register the file holds */
    return v;
}

static uint64_t amu_reg(const pmvp_core *c, const pmvp_pe *pe, enum pmvp_amu_reg reg, unsigned n)
{
    uint64_t v = 0;
    k_amu_look(c, pe, reg, n, &v); /* the row names a register the file holds */
    return v;
}

/* The value of the state row r shows, for instance n (the whole view, before
 * selecting a half), in `pe`: PE p as it is (c->pe[p] begun at the access's
 * instant, or k_pe_at's copy). `a` is NULL on the debug path. A guest's
 * read of a counter goes on through knob (c) (direct_read). */
static uint64_t view_read(const pmvp_core *c, unsigned p, const pmvp_pe *pe, const pmvp_ext_reg *r, unsigned n,
                          const pmvp_ext_access *a)
{
    switch (r->view) {
    case V_PMEVCNTR: return pmu_reg(c, p, pe, PMVP_PMEVCNTR_EL0, n);
    case V_PMEVTYPER: return pmu_reg(c, p, pe, PMVP_PMEVTYPER_EL0, n);
    case V_PMCCNTR: return pmu_reg(c, p, pe, PMVP_PMCCNTR_EL0, 0);
    case V_PMCCFILTR: return pmu_reg(c, p, pe, PMVP_PMCCFILTR_EL0, 0);
    case V_PMICNTR: return pmu_reg(c, p, pe, PMVP_PMICNTR_EL0, 0);
    case V_PMICFILTR: return pmu_reg(c, p, pe, PMVP_PMICFILTR_EL0, 0);
    case V_PMCGCR0: return pmcgcr0(reachable_counters(c, pe, a));
    case V_PMEVCNTSVR: return pmu_reg(c, p, pe, PMVP_PMEVCNTSVR_EL1, n);
    case V_PMCCNTSVR: return pmu_reg(c, p, pe, PMVP_PMCCNTSVR_EL1, 0);
    case V_PMICNTSVR: return pmu_reg(c, p, pe, PMVP_PMICNTSVR_EL1, 0);
    case V_PMSSCR: return pmu_reg(c, p, pe, PMVP_PMSSCR_EL1, 0);
    case V_PMCNTEN: return pmu_reg(c, p, pe, PMVP_PMCNTENSET_EL0, 0);
    case V_PMINTEN: return pmu_reg(c, p, pe, PMVP_PMINTENSET_EL1, 0);
    case V_PMOVS: return pmu_reg(c, p, pe, PMVP_PMOVSSET_EL0, 0);
    case V_PMCFGR: return pmcfgr(c, reachable_counters(c, pe, a));
    /* Only PMCR[10:0] map to the System register: N, IDCODE, IMP read 0. */
    case V_PMCR: return pmu_reg(c, p, pe, PMVP_PMCR_EL0, 0) & PMVP_BITS(10, 0);
    case V_PMCEID: return pmu_reg(c, p, pe, r->arg ? PMVP_PMCEID1_EL0 : PMVP_PMCEID0_EL0, 0);
    case V_PMMIR: return c->cfg.pmmir;
    case V_PMITCTRL: return pe->ext.pmitctrl;
    case V_PMLSR:
        /* SLI and SLK only for a memory-mapped access (I5.3.41). */
        if (!c->cfg.pmu_software_lock || !a || a->debugger)
            return 0;
        return PMVP_PMLSR_SLI | (pe->ext.software_locked ? PMVP_PMLSR_SLK : 0);
    case V_PMAUTHSTATUS: return pmauthstatus(c, &pe->pmu.ctl);
    case V_AMEVCNTR: return amu_reg(c, pe, r->arg ? PMVP_AMEVCNTR1_EL0 : PMVP_AMEVCNTR0_EL0, n);
    case V_AMEVTYPER: return amu_reg(c, pe, r->arg ? PMVP_AMEVTYPER1_EL0 : PMVP_AMEVTYPER0_EL0, n);
    /* AMCNTENSET/CLR 0 and 1 as one 64-bit register (I4.1). */
    case V_AMCNTEN: return (uint64_t)pe->amu.cntenset1 << 32 | pe->amu.cntenset0;
    case V_AMCGCR: return amu_reg(c, pe, PMVP_AMCGCR_EL0, 0);
    case V_AMCFGR: return amu_reg(c, pe, PMVP_AMCFGR_EL0, 0);
    case V_AMCR: return amu_reg(c, pe, PMVP_AMCR_EL0, 0);
    case V_IIDR: return iidr(c, r->frame);
    case V_DEVAFF: return mpidr(c, p);
    case V_DEVARCH: return devarch(c, r->frame);
    case V_PIDR: return pidr(iidr(c, r->frame), r->arg);
    case V_PMCCR: return pe->ext.pmccr;
    case V_PMDEVID: return pmdevid(c);
    case V_CONST: return r->reset;
    default: return 0; /* V_PMSWINC, V_PMZR, V_PMLAR: write-only */
    }
}

/* A guest's read of a counter view is a direct read (inaccuracy knob (c)). */
static uint64_t direct_read(pmvp_core *c, unsigned p, const pmvp_ext_reg *r, unsigned n, uint64_t v, pmvp_time now)
{
    switch (r->view) {
    case V_PMEVCNTR: return k_direct_read(c, p, n, v, now);
    case V_PMCCNTR: return k_direct_read(c, p, PMVP_CYCLE_COUNTER, v, now);
    default: return v;
    }
}

/* ------------------------------------------------------- writing a view */

/* A set/clear pair of the PMU register file, for views that accept W1S,
 * W1C or a plain value. */
static void pmu_set_clear(pmvp_core *c, unsigned p, unsigned kind, enum pmvp_pmu_reg set, enum pmvp_pmu_reg clr,
                          uint64_t v)
{
    if (kind != PMVP_EXT_W1C)
        k_pmu_write(c, p, set, 0, v);
    if (kind != PMVP_EXT_W1S)
        k_pmu_write(c, p, clr, 0, kind == PMVP_EXT_W1C ? v : ~v);
}

/* Writes value v (the whole view; masked by the row) to the state row r
 * shows. `a` is NULL on the debug path, which writes values only. */
static void view_write(pmvp_core *c, unsigned p, const pmvp_ext_reg *r, unsigned n, uint64_t v,
                       const pmvp_ext_access *a)
{
    pmvp_pe *pe = &c->pe[p];
    switch (r->view) {
    case V_PMEVCNTR: k_pmu_write(c, p, PMVP_PMEVCNTR_EL0, n, v); break;
    case V_PMEVTYPER: k_pmu_write(c, p, PMVP_PMEVTYPER_EL0, n, v); break;
    case V_PMCCNTR: k_pmu_write(c, p, PMVP_PMCCNTR_EL0, 0, v); break;
    case V_PMCCFILTR: k_pmu_write(c, p, PMVP_PMCCFILTR_EL0, 0, v); break;
    case V_PMICNTR: k_pmu_write(c, p, PMVP_PMICNTR_EL0, 0, v); break;
    case V_PMICFILTR: k_pmu_write(c, p, PMVP_PMICFILTR_EL0, 0, v); break;
    case V_PMCNTEN: pmu_set_clear(c, p, r->kind, PMVP_PMCNTENSET_EL0, PMVP_PMCNTENCLR_EL0, v); break;
    case V_PMINTEN: pmu_set_clear(c, p, r->kind, PMVP_PMINTENSET_EL1, PMVP_PMINTENCLR_EL1, v); break;
    case V_PMOVS: pmu_set_clear(c, p, r->kind, PMVP_PMOVSSET_EL0, PMVP_PMOVSCLR_EL0, v); break;
    case V_PMSWINC:
        if (a)
            k_pmu_write(c, p, PMVP_PMSWINC_EL0, 0, v);
        break;
    case V_PMZR: /* an action, as PMSWINC: not on the debug path */
        if (a)
            k_pmu_write(c, p, PMVP_PMZR_EL0, 0, v);
        break;
    case V_PMCR:
        /* P and C are actions, not values: the debug path leaves them out.
         * An external P resets the event counters the access reaches
         * (I5.3.21), whatever the PE's Exception level. */
        k_pmu_write(c, p, PMVP_PMCR_EL0, 0, a ? v & ~PMVP_PMCR_EL0_P : v & ~(PMVP_PMCR_EL0_P | PMVP_PMCR_EL0_C));
        if (a && (v & PMVP_PMCR_EL0_P))
            k_pmcr_p_reset(c, p, reachable_counters(c, pe, a));
        break;
    case V_PMCCR: k_pmccr_write(c, p, v); break;
    case V_PMITCTRL:
        pe->ext.pmitctrl = (uint32_t)v;
        if (v)
            k_log(c, p, "PMITCTRL.IME = 1: integration mode is not modelled");
        break;
    case V_PMLAR:
        /* The key unlocks, any other value locks; memory-mapped only (I5.3.40). */
        if (a && !a->debugger && c->cfg.pmu_software_lock) {
            pe->ext.software_locked = (uint32_t)v != PMVP_PMLAR_KEY;
            k_ext_permissions(c, p);
        }
        break;
    default: break; /* read-only views: the table's kind stops writes earlier */
    }
}

/* ------------------------------------------------------------- accesses */

/* One access to a frame: PE p's frame f, `size` bytes at `offset`, by a
 * bus access `a` or the debug path, a read or a write, at `now`. */
typedef struct frame_access {
    unsigned p;
    enum pmvp_frame f;
    uint32_t offset;
    unsigned size;
    const pmvp_ext_access *a; /* NULL on the debug path */
    bool debug, write;
    pmvp_time now;
} frame_access;

/* Validates arguments, size and alignment, and decodes the access. */
static PMVP_INLINE int locate(const pmvp_core *c, const frame_access *x, target *t)
{
    const unsigned p = x->p, size = x->size;
    const enum pmvp_frame f = x->f;
    const uint32_t offset = x->offset;
    const pmvp_ext_access *a = x->a;
    if (!c || (!a && !x->debug))
        return PMVP_ERR_NULL;
    if (p >= c->cfg.num_pes)
        return PMVP_ERR_PE;
    if ((unsigned)f > PMVP_FRAME_AMU || (a && a->security > PMVP_ROOT))
        return PMVP_ERR_VALUE;
    if (offset >= PMVP_FRAME_SIZE || (f == PMVP_FRAME_AMU && !c->cfg.feat_amuv1))
        return PMVP_ERR_ADDRESS;
    if ((size != 4 && size != 8) || offset & (size - 1))
        return PMVP_ERR_SIZE;
    if (x->now < c->last_call)
        return PMVP_ERR_PAST;
    *t = decode(c, f, offset);
    if (size == 8) {
        /* A 64-bit access is to the whole of a 64-bit register, or to
         * reserved space. */
        bool whole = t->reg && t->word == 0 && pmvp_ext_reg_width(c, t->reg) == 64;
        if (!whole && (t->reg || decode(c, f, offset + 4).reg))
            return PMVP_ERR_SIZE;
    }
    return PMVP_OK;
}

/* Views of one event counter's registers, and views with a bit per event
 * counter: what Table I3-3 and RDQYGL hide of the third range. */
static bool of_one_event_counter(const pmvp_ext_reg *r)
{
    return r->view == V_PMEVCNTR || r->view == V_PMEVTYPER || r->view == V_PMEVCNTSVR;
}

static bool by_event_counter(const pmvp_ext_reg *r)
{
    switch (r->view) {
    case V_PMCNTEN:
    case V_PMINTEN:
    case V_PMOVS:
    case V_PMSWINC:
    case V_PMZR: return true;
    default: return false;
    }
}

/* The bits of a bitmap view that are RAZ/WI to access `a` (RDQYGL). */
static uint64_t hidden_bits(const pmvp_core *c, unsigned p, const pmvp_ext_reg *r, const pmvp_ext_access *a)
{
    if (!c->cfg.feat_pmuv3_extpmn || !by_event_counter(r))
        return 0;
    return (PMVP_BIT(c->cfg.num_counters) - 1) & ~(PMVP_BIT(reachable_counters(c, &c->pe[p], a)) - 1);
}

/* ------------------------------------------------------ the access checks */

/* The access checks for a non-debug access to register r: an error, or the
 * effect the access has. */
static PMVP_INLINE int check(const pmvp_core *c, unsigned p, const pmvp_ext_reg *r, const pmvp_ext_access *a,
                             bool write, enum pmvp_ext_effect *effect)
{
    const uint8_t w = k_pe_caches(&c->pe[p])->permission[a->security][r->domain];
    switch (w & K_OUTCOME) {
    case K_REFUSE_OFF: return PMVP_ERR_PE_OFF;
    case K_REFUSE_LOCKED: return PMVP_ERR_LOCKED;
    case K_REFUSE_DENIED: return PMVP_ERR_DENIED;
    case K_PERMIT_RAZ_WI: *effect = PMVP_EXT_RAZ_WI; return PMVP_OK;
    default: break;
    }
    *effect = write && (((w & K_SOFTWARE_LOCKED) && !a->debugger) || r->kind == PMVP_EXT_RO) ? PMVP_EXT_IGNORED
                                                                                             : PMVP_EXT_DONE;
    return PMVP_OK;
}

/* Decodes and checks access x: an error, or where it lands (*t) and the
 * effect it has (*e). It changes nothing. */
static PMVP_INLINE int resolve(const pmvp_core *c, const frame_access *x, target *t, enum pmvp_ext_effect *e)
{
    int err = locate(c, x, t);
    if (err)
        return err;
    const pmvp_ext_reg *r = t->reg;
    const unsigned p = x->p;
    *e = PMVP_EXT_DONE;
    if (r && !x->debug && (err = check(c, p, r, x->a, x->write, e)))
        return err;
    if (r && x->debug && x->write && r->kind == PMVP_EXT_RO)
        *e = PMVP_EXT_IGNORED;
    if (!r || t->n >= pmvp_ext_reg_instances(c, r))
        *e = PMVP_EXT_RAZ_WI;
    else if (of_one_event_counter(r) && t->n >= reachable_counters(c, &c->pe[p], x->debug ? NULL : x->a))
        *e = PMVP_EXT_RAZ_WI; /* Table I3-3: the third range, to an access not Most secure */
    return PMVP_OK;
}

/* The bits of a register's whole view that an access of `size` bytes to
 * word t->word reaches, and where they start. */
typedef struct lane {
    unsigned shift;
    uint64_t mask;
} lane;

static lane lane_of(const target *t, unsigned size)
{
    unsigned shift = t->reg->half ? 32 : 32 * t->word;
    return (lane){ shift, size == 8 ? ONES64 : ONES32 << shift };
}

static uint64_t lane_read(lane l, uint64_t view)
{
    return (view & l.mask) >> l.shift;
}

/* view_read of PE p as it will be at `now`, after the core's sync_time (the
 * pure query), on a copy (k_pe_at): out of line, so that a read at the
 * present, which reads the PE itself, does not make room for one. */
static PMVP_OUT_OF_LINE uint64_t view_ahead(const pmvp_core *c, unsigned p, const target *t, const pmvp_ext_access *a,
                                            pmvp_time now)
{
    pmvp_pe scratch;
    return view_read(c, p, k_pe_at(c, p, now, &scratch), t->reg, t->n, a);
}

/* The start of read x: decoded and checked, *effect and *value set (0 for
 * a read that reads nothing). *reads: whether it reads a register, at *t. */
static int start_read(const pmvp_core *c, const frame_access *x, uint64_t *value, enum pmvp_ext_effect *effect,
                      target *t, bool *reads)
{
    if (!value)
        return PMVP_ERR_NULL;
    enum pmvp_ext_effect e;
    int err = resolve(c, x, t, &e);
    if (err)
        return err;
    if (effect)
        *effect = e;
    *value = 0;
    *reads = e == PMVP_EXT_DONE && t->reg->kind != PMVP_EXT_WO;
    return PMVP_OK;
}

/* A read as the pure query, by a guest (x->a) or through the debug path:
 * the PE as it will be at x->now (on a copy when that is after the core's
 * present), the core left as it is. */
static int read_query(const pmvp_core *c, const frame_access *x, uint64_t *value, enum pmvp_ext_effect *effect)
{
    target t;
    bool reads;
    int err = start_read(c, x, value, effect, &t, &reads);
    if (err || !reads)
        return err;
    uint64_t v = x->now <= c->sync_time ? view_read(c, x->p, &c->pe[x->p], t.reg, t.n, x->a)
                                        : view_ahead(c, x->p, &t, x->a, x->now);
    *value = lane_read(lane_of(&t, x->size), v & ~hidden_bits(c, x->p, t.reg, x->a));
    return PMVP_OK;
}

/* A guest's read made on the core: begun at x->now, a counter's value going
 * through inaccuracy knob (c). */
static int read_commit(pmvp_core *c, const frame_access *x, uint64_t *value, enum pmvp_ext_effect *effect)
{
    target t;
    bool reads;
    int err = start_read(c, x, value, effect, &t, &reads);
    if (err || !reads)
        return err;
    k_begin(c, x->now);
    uint64_t v = view_read(c, x->p, &c->pe[x->p], t.reg, t.n, x->a) & ~hidden_bits(c, x->p, t.reg, x->a);
    *value = lane_read(lane_of(&t, x->size), direct_read(c, x->p, t.reg, t.n, v, x->now));
    return PMVP_OK;
}

int pmvp_ext_read(pmvp_core *c, unsigned p, enum pmvp_frame f, uint32_t offset, unsigned size, const pmvp_ext_access *a,
                  pmvp_time now, uint64_t *value, enum pmvp_ext_effect *effect)
{
    const frame_access x = { p, f, offset, size, a, false, false, now };
    return a ? read_commit(c, &x, value, effect) : PMVP_ERR_NULL;
}

int pmvp_ext_peek(const pmvp_core *c, unsigned p, enum pmvp_frame f, uint32_t offset, unsigned size,
                  const pmvp_ext_access *a, pmvp_time t, uint64_t *value, enum pmvp_ext_effect *effect)
{
    const frame_access x = { p, f, offset, size, a, false, false, t };
    return a ? read_query(c, &x, value, effect) : PMVP_ERR_NULL;
}

int pmvp_ext_debug_read(const pmvp_core *c, unsigned p, enum pmvp_frame f, uint32_t offset, unsigned size,
                        pmvp_time now, uint64_t *value)
{
    const frame_access x = { p, f, offset, size, NULL, true, false, now };
    return read_query(c, &x, value, NULL);
}

/* Write x of `value`, by a guest (x->a) or through the debug path. */
static int write(pmvp_core *c, const frame_access *x, uint64_t value, enum pmvp_ext_effect *effect)
{
    target t;
    enum pmvp_ext_effect e;
    int err = resolve(c, x, &t, &e);
    if (err)
        return err;
    if (effect)
        *effect = e;
    if (e != PMVP_EXT_DONE)
        return PMVP_OK;
    const unsigned p = x->p;
    const pmvp_ext_access *a = x->a;
    k_begin(c, x->now);
    const pmvp_ext_reg *r = t.reg;
    lane l = lane_of(&t, x->size);
    uint64_t v = (value << l.shift) & l.mask;
    /* A write to part of a value register keeps the rest of it (the
     * PMCCNTR_EL0 rule), as it is, not as a direct read would see it
     * (inaccuracy knob (c)): hence the debug view. W1S, W1C and write-only
     * bits outside the write are 0, which does nothing. */
    if (l.mask != ONES64 && r->kind == PMVP_EXT_RW)
        v |= view_read(c, p, &c->pe[p], r, t.n, NULL) & ~l.mask;
    /* Bits RAZ/WI to this access: a value keeps them, W1S and W1C leave them. */
    uint64_t hidden = hidden_bits(c, p, r, a);
    v &= ~hidden;
    if (r->kind == PMVP_EXT_RW)
        v |= view_read(c, p, &c->pe[p], r, t.n, NULL) & hidden;
    view_write(c, p, r, t.n, v & r->wmask, a);
    return PMVP_OK;
}

int pmvp_ext_write(pmvp_core *c, unsigned p, enum pmvp_frame f, uint32_t offset, unsigned size, uint64_t value,
                   const pmvp_ext_access *a, pmvp_time now, enum pmvp_ext_effect *effect)
{
    const frame_access x = { p, f, offset, size, a, false, true, now };
    return write(c, &x, value, effect);
}

int pmvp_ext_debug_write(pmvp_core *c, unsigned p, enum pmvp_frame f, uint32_t offset, unsigned size, uint64_t value,
                         pmvp_time now)
{
    const frame_access x = { p, f, offset, size, NULL, true, true, now };
    return write(c, &x, value, NULL);
}

int pmvp_ext_dump(const pmvp_core *c, unsigned p, enum pmvp_frame f, pmvp_time now, pmvp_ext_dump_fn fn, void *user)
{
    if (!fn)
        return PMVP_ERR_NULL;
    target t;
    const frame_access x = { p, f, 0, 4, NULL, true, false, now };
    int err = locate(c, &x, &t);
    if (err)
        return err;
    pmvp_pe scratch; /* the frame as the pure query sees it, brought to `now` once */
    const pmvp_pe *at = k_pe_at(c, p, now, &scratch);
    for (uint32_t off = 0; off < PMVP_FRAME_SIZE; off += 4) {
        t.reg = pmvp_ext_decode(c, f, off, &t.n, &t.word);
        if (!t.reg || t.word != 0 || t.n >= pmvp_ext_reg_instances(c, t.reg))
            continue;
        uint64_t v = 0;
        if (t.reg->kind != PMVP_EXT_WO)
            v = lane_read(lane_of(&t, pmvp_ext_reg_width(c, t.reg) / 8), view_read(c, p, at, t.reg, t.n, NULL));
        fn(user, t.reg, t.n, off, v);
    }
    return PMVP_OK;
}
