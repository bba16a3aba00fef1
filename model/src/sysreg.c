/* SPDX-License-Identifier: Apache-2.0 */
/*
 * System-register access to the PMU and the AMU (sysreg.h): the encodings,
 * the accessibility rules of D24.5 and D24.6 and of the AArch32 registers,
 * and the views a lower Exception level gets.
 *
 * The accessibility pseudocode of every register is one ladder with a few
 * register-specific rungs: a rule per register (which instructions exist,
 * the PMUSERENR/AMUSERENR bits that open it to EL0, its fine-grained trap
 * bit, whether it names an event counter, PMCR's TPMCR, the AMU's
 * highest-EL-only writes) and one decision, decide(), that climbs the
 * ladder in the pseudocode's order.
 */
#include "pmvp/sysreg.h"

#include <stddef.h>
#include <string.h>

#include "regfile.h"

/* ---------------------------------------------------------------- encodings */

typedef pmvp_sysreg_encoding encoding;

/* MRS/MSR. */
static const encoding a64_encodings[] = {
#define PMVP_REG_A64(family, id, index, op0, op1, crn, crm, op2)                                     \
    { NULL, PMVP_SYSREG_##family, PMVP_##id, PMVP_PART_ALL, PMVP_SYSREG_##index, op0, op1, crn, crm, \
      op2,  PMVP_GATE_ALWAYS },
#include "pmvp/registers.def"
};

/* MRC/MCR: coproc 0b1111, opc1 0. Each moves bits [31:0] of its AArch64
 * register, or [63:32] for PMCEID2/3. */
static const encoding a32_encodings[] = {
#define PMVP_REG_A32(family, id, name, part, gate, index, opc1, crn, crm, opc2)                         \
    { name, PMVP_SYSREG_##family, PMVP_##id, PMVP_PART_##part, PMVP_SYSREG_##index, 15, opc1, crn, crm, \
      opc2, PMVP_GATE_##gate },
#include "pmvp/registers.def"
};

/* MRRC/MCRR: coproc 0b1111; the whole 64-bit register. crn is unused. */
static const encoding a32_64_encodings[] = {
#define PMVP_REG_A32_64(family, id, name, index, opc1, crm)                                                              \
    {                                                                                                                    \
        name, PMVP_SYSREG_##family, PMVP_##id, PMVP_PART_ALL, PMVP_SYSREG_##index, 15, opc1, 0, crm, 0, PMVP_GATE_ALWAYS \
    },
#include "pmvp/registers.def"
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Matches op0 (or coproc)/op1/crn/crm/op2 against table t; fills *out
 * (without op). */
static int find(const encoding *t, size_t count, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                pmvp_sysreg *out)
{
    for (size_t i = 0; i < count; i++) {
        const encoding *e = &t[i];
        unsigned n = 0, m_crm = crm, m_op1 = op1, m_op2 = op2;
        switch (e->index) {
        case PMVP_SYSREG_INDEX_CRM_OP2:
            n = (crm & 3) << 3 | op2;
            m_crm = crm & ~3u;
            m_op2 = 0;
            break;
        case PMVP_SYSREG_INDEX_CRM0_OP2:
            n = (crm & 1) << 3 | op2;
            m_crm = crm & ~1u;
            m_op2 = 0;
            break;
        case PMVP_SYSREG_INDEX_CRM0_OPC1:
            n = (crm & 1) << 3 | op1;
            m_crm = crm & ~1u;
            m_op1 = 0;
            break;
        default: break;
        }
        if (e->op0 != op0 || e->op1 != m_op1 || e->crn != crn || e->crm != m_crm || e->op2 != m_op2)
            continue;
        if (e->index == PMVP_SYSREG_INDEX_CRM_OP2 && n >= PMVP_MAX_COUNTERS)
            continue; /* n == 31 is PMCCFILTR's encoding, or unallocated */
        *out = (pmvp_sysreg){ .family = e->family, .reg = e->reg, .n = (uint8_t)n, .part = e->part };
        return PMVP_OK;
    }
    return PMVP_ERR_REGISTER;
}

/* An MRS/MSR encoding as one number, and the row of a64_encodings whose
 * encoding (for an indexed register, its first instance's) it is: a switch
 * the compiler makes a search of a few comparisons, where an access would
 * otherwise walk the table (an ISS decodes every MRS it executes). Two rows
 * with one encoding would be two equal cases: the build refuses them. */
#define A64_KEY(op0, op1, crn, crm, op2) ((unsigned)(op0) << 14 | (op1) << 11 | (crn) << 7 | (crm) << 3 | (op2))

static bool a64_row(unsigned key, encoding *e)
{
    switch (key) {
#define PMVP_REG_A64(family, id, index, op0, op1, crn, crm, op2)                                                       \
    case A64_KEY(op0, op1, crn, crm, op2):                                                                             \
        *e =                                                                                                           \
            (encoding){ NULL, PMVP_SYSREG_##family, PMVP_##id, PMVP_PART_ALL, PMVP_SYSREG_##index, op0, op1, crn, crm, \
                        op2,  PMVP_GATE_ALWAYS };                                                                      \
        return true;
#include "pmvp/registers.def"
    default: return false;
    }
}

/* The register an MRS/MSR encoding names, as find() would find it in
 * a64_encodings: the row of that very encoding, or of the first instance
 * of an indexed register whose instance n it is (n of CRm and op2, below
 * 31; CRm<0> and op2; CRm<0> and op1). */
static int find_a64(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2, pmvp_sysreg *out)
{
    encoding e;
    if (a64_row(A64_KEY(op0, op1, crn, crm, op2), &e) && e.index == PMVP_SYSREG_NOT_INDEXED) {
        *out = (pmvp_sysreg){ .family = e.family, .reg = e.reg, .n = 0, .part = e.part };
        return PMVP_OK;
    }
    const struct {
        enum pmvp_sysreg_index index;
        unsigned key, n;
    } instances[] = {
        { PMVP_SYSREG_INDEX_CRM_OP2, A64_KEY(op0, op1, crn, crm & ~3u, 0), (crm & 3) << 3 | op2 },
        { PMVP_SYSREG_INDEX_CRM0_OP2, A64_KEY(op0, op1, crn, crm & ~1u, 0), (crm & 1) << 3 | op2 },
        { PMVP_SYSREG_INDEX_CRM0_OPC1, A64_KEY(op0, 0, crn, crm & ~1u, op2), (crm & 1) << 3 | op1 },
    };
    for (size_t i = 0; i < COUNT(instances); i++) {
        if (!a64_row(instances[i].key, &e) || e.index != instances[i].index)
            continue;
        if (e.index == PMVP_SYSREG_INDEX_CRM_OP2 && instances[i].n >= PMVP_MAX_COUNTERS)
            continue; /* n == 31 is PMCCFILTR's encoding, or unallocated */
        *out = (pmvp_sysreg){ .family = e.family, .reg = e.reg, .n = (uint8_t)instances[i].n, .part = e.part };
        return PMVP_OK;
    }
    return PMVP_ERR_REGISTER;
}

int pmvp_sysreg_decode_a64(bool write, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                           pmvp_sysreg *out)
{
    if (!out)
        return PMVP_ERR_NULL;
    if (op0 > 3 || op1 > 7 || crn > 15 || crm > 15 || op2 > 7)
        return PMVP_ERR_VALUE;
    int err = find_a64(op0, op1, crn, crm, op2, out);
    out->op = write ? PMVP_MSR : PMVP_MRS;
    return err;
}

int pmvp_sysreg_decode_a32(bool write, unsigned coproc, unsigned opc1, unsigned crn, unsigned crm, unsigned opc2,
                           pmvp_sysreg *out)
{
    if (!out)
        return PMVP_ERR_NULL;
    if (coproc > 15 || opc1 > 7 || crn > 15 || crm > 15 || opc2 > 7)
        return PMVP_ERR_VALUE;
    int err = find(a32_encodings, COUNT(a32_encodings), coproc, opc1, crn, crm, opc2, out);
    out->op = write ? PMVP_MCR : PMVP_MRC;
    return err;
}

int pmvp_sysreg_decode_a32_64(bool write, unsigned coproc, unsigned opc1, unsigned crm, pmvp_sysreg *out)
{
    if (!out)
        return PMVP_ERR_NULL;
    if (coproc > 15 || opc1 > 15 || crm > 15)
        return PMVP_ERR_VALUE;
    int err = find(a32_64_encodings, COUNT(a32_64_encodings), coproc, opc1, 0, crm, 0, out);
    out->op = write ? PMVP_MCRR : PMVP_MRRC;
    return err;
}

static bool is_a32(const pmvp_sysreg *r)
{
    return r->op >= PMVP_MRC;
}
static bool is_write(const pmvp_sysreg *r)
{
    return r->op == PMVP_MSR || r->op == PMVP_MCR || r->op == PMVP_MCRR;
}
static bool is_64bit_a32(const pmvp_sysreg *r)
{
    return r->op == PMVP_MRRC || r->op == PMVP_MCRR;
}

const pmvp_sysreg_encoding *pmvp_sysreg_encodings(enum pmvp_sysreg_op op, size_t *count)
{
    switch (op) {
    case PMVP_MRS:
    case PMVP_MSR: *count = COUNT(a64_encodings); return a64_encodings;
    case PMVP_MRC:
    case PMVP_MCR: *count = COUNT(a32_encodings); return a32_encodings;
    case PMVP_MRRC:
    case PMVP_MCRR: *count = COUNT(a32_64_encodings); return a32_64_encodings;
    }
    *count = 0;
    return NULL;
}

/* The A64 encodings again, by family and register (each register has one
 * at most: a second would be an initializer overridden, which the build
 * refuses): found in O(1) for every MRS and MSR. op0 is 0 where there is
 * none (every A64 encoding here has op0 2 or 3). */
static const encoding a64_by_reg[2][K_FAMILY_REGS] = {
#define PMVP_REG_A64(family, id, index, op0, op1, crn, crm, op2)                                       \
    [PMVP_SYSREG_##family][PMVP_##id] = {                                                              \
        NULL, PMVP_SYSREG_##family, PMVP_##id, PMVP_PART_ALL, PMVP_SYSREG_##index, op0, op1, crn, crm, \
        op2,  PMVP_GATE_ALWAYS                                                                         \
    },
#include "pmvp/registers.def"
};

/* The encoding an access uses, or NULL if none: the table row of its register. */
static const encoding *encoding_of(const pmvp_sysreg *r)
{
    if (r->op == PMVP_MRS || r->op == PMVP_MSR) {
        if (r->family > PMVP_SYSREG_AMU || r->reg >= K_FAMILY_REGS || r->part != PMVP_PART_ALL)
            return NULL;
        const encoding *e = &a64_by_reg[r->family][r->reg];
        return e->op0 ? e : NULL;
    }
    size_t count;
    const encoding *t = pmvp_sysreg_encodings((enum pmvp_sysreg_op)r->op, &count);
    for (size_t i = 0; i < count; i++)
        if (t[i].family == r->family && t[i].reg == r->reg && t[i].part == r->part)
            return &t[i];
    return NULL;
}

const char *pmvp_sysreg_name(const pmvp_sysreg *r)
{
    const encoding *e = r && r->op <= PMVP_MCRR ? encoding_of(r) : NULL;
    if (!e)
        return NULL;
    if (e->name)
        return e->name;
    return r->family == PMVP_SYSREG_PMU ? pmvp_pmu_reg_name((enum pmvp_pmu_reg)r->reg)
                                        : pmvp_amu_reg_name((enum pmvp_amu_reg)r->reg);
}

/* ------------------------------------------------------------------- rules */

/* Which PMUSERENR (PMU) or AMUSERENR (AMU) bits open a register to EL0: any
 * one of them permits the access. */
enum {
    EL0_ALWAYS = 0, /* no enable: only the traps of higher levels apply */
    EN = 1,
    SW = 2,
    CR = 4,
    ER = 8,
    UEN = 16,            /* PMUSERENR_EL0 bit positions; AMUSERENR_EL0.EN is bit 0 */
    EL0_UNDEFINED = 0x80 /* a register of EL1 and above */
};

enum counter_kind {
    NO_COUNTER,
    INDEXED,    /* PMEVCNTR<n>, PMEVTYPER<n>: counter n */
    SELECTED,   /* PMXEVCNTR: counter PMSELR.SEL */
    SELECTED_CC /* PMXEVTYPER: counter PMSELR.SEL, or PMCCFILTR when SEL == 31 */
};

#define FGT(bit) ((bit) + 1) /* a fine-grained trap bit; 0 means none */
#define NO_FGT 0

enum {
    TPMCR = 1,
    HIGHEST_EL_WRITE = 2,
    EN_PM2 = 4,
    VIRTUAL_OFFSET = 8,
    UEN_TRAPS = 16,
    TID_TRAPS = 32,
    SNAPSHOT = 64,
    FGT2 = 128
}; /* rule.flags */

typedef struct rule {
    uint8_t el0_read, el0_write;
    uint8_t fgt_read, fgt_write; /* FGT(bit) in HDFGRTR/HDFGWTR_EL2 (AMU: HAFGRTR_EL2; FGT2:
                                    HDFGRTR2/HDFGWTR2_EL2) */
    uint8_t fgt_stride;          /* AMU: how far the read bit moves with n */
    uint8_t counter;             /* enum counter_kind */
    uint8_t flags;               /* TPMCR: MDCR_EL2.TPMCR traps it too; HIGHEST_EL_WRITE:
                                   AMU, written at the highest Exception level only;
                                   EN_PM2: MDCR_EL3.EnPM2 == 0 traps it to EL3 too;
                                   VIRTUAL_OFFSET: an AMU offset register of EL2,
                                   UNDEFINED at EL1 (no FEAT_NV), trapped to EL3 by
                                   SCR_EL3.AMVOFFEN == 0 too;
                                   UEN_TRAPS: PMUSERENR_EL0.UEN closes it to EL0 (PMCR);
                                   TID_TRAPS: PMUSERENR_EL0.TID traps EL0 reads (PMCEID);
                                   SNAPSHOT: FEAT_PMUv3_SS's, which MDCR_EL3.EnPMSS == 0
                                   traps to EL3 instead of TPM, MDCR_EL2.TPM not at all,
                                   and whose counter beyond PMCR.N or HPMN is always
                                   UNDEFINED or trapped to EL2;
                                   FGT2: the trap bits are FEAT_FGT2's */
} rule;

/* D24.5 and D24.6, each register's "Accessing" pseudocode: registers.def. */
static const rule rules[2][K_FAMILY_REGS] = {
#define PMVP_REG_ACCESS(family, id, read, write, el0_read, el0_write, fgt_read, fgt_write, fgt_stride, counter, flags) \
    [PMVP_SYSREG_##family][PMVP_##id] = { el0_read, el0_write, fgt_read, fgt_write, fgt_stride, counter, flags },
#include "pmvp/registers.def"
};

/* ------------------------------------------------------------------- check */

/* The facts one decision is made from. */
typedef struct check {
    const pmvp_core_config *cfg;
    const pmvp_sysreg *r;
    const pmvp_sysreg_context *x;
    const rule *rule;
    bool pmu, write, a32;
    bool el2_enabled, el2_a64, el3_a64;
    uint8_t ec; /* exception class of a trap of this instruction */
} check;

static pmvp_sysreg_outcome permitted(void)
{
    return (pmvp_sysreg_outcome){ PMVP_SYSREG_PERMITTED, 0, 0 };
}
static pmvp_sysreg_outcome undefined(void)
{
    return (pmvp_sysreg_outcome){ PMVP_SYSREG_UNDEFINED, 0, 0 };
}
static pmvp_sysreg_outcome trap(unsigned el, unsigned ec)
{
    return (pmvp_sysreg_outcome){ PMVP_SYSREG_TRAP, (uint8_t)el, (uint8_t)ec };
}

static unsigned highest_el(const pmvp_core_config *cfg)
{
    return cfg->have_el3 ? 3 : cfg->have_el2 ? 2 : 1;
}

static bool el2_enabled(const pmvp_core_config *cfg, const pmvp_sysreg_context *x)
{
    return k_el2_enabled(cfg, x->security, x->scr_el3);
}

/* PMUSERENR_EL0 as EL0's accesses see it: UEN and TID are RES0 without
 * FEAT_PMUv3p9, and UEN is treated as zero when EL1 is using AArch32
 * (D24.5.26). */
static uint64_t el0_enables(const pmvp_core_config *cfg, const pmvp_sysreg_context *x)
{
    uint64_t e = x->pmuserenr;
    if (!cfg->feat_pmuv3p9)
        e &= ~(PMVP_PMUSERENR_EL0_UEN | PMVP_PMUSERENR_EL0_TID);
    else if (cfg->el1_aarch32)
        e &= ~PMVP_PMUSERENR_EL0_UEN;
    return e;
}

/* HCR_EL2.{E2H, TGE} == {1, 1} with an AArch64 EL2: ELIsInHost(EL0). */
static bool el0_in_host(const check *k)
{
    uint64_t both = PMVP_HCR_EL2_E2H | PMVP_HCR_EL2_TGE;
    return k->el2_enabled && k->el2_a64 && (k->x->hcr_el2 & both) == both;
}

/* The counter an access names: n, PMSELR.SEL, or -1 for none (also for
 * PMXEVTYPER with SEL == 31, which selects PMCCFILTR). */
static int counter_of(const pmvp_sysreg *r, const rule *u, const pmvp_sysreg_context *x)
{
    unsigned sel = (unsigned)PMVP_FIELD_GET(PMVP_PMSELR_EL0_SEL, x->pmselr);
    switch (u->counter) {
    case INDEXED: return r->n;
    case SELECTED: return (int)sel;
    case SELECTED_CC: return sel == PMVP_CYCLE_COUNTER ? -1 : (int)sel;
    default: return -1;
    }
}

static unsigned accessible_counters(const pmvp_core_config *cfg, const pmvp_sysreg_context *x)
{
    return k_counters_accessible(cfg, x->el, el2_enabled(cfg, x), x->mdcr_el2, x->pmccr);
}

/* Unpredictable_PMUEVENTCOUNTER, as configured. */
static pmvp_sysreg_outcome counter_unpredictable(const check *k)
{
    return k->cfg->counter_access_unpredictable == PMVP_COUNTER_ACCESS_UNDEFINED ? undefined() : permitted();
}

/* The trap EL3 holds over this register: MDCR_EL3.TPM or CPTR_EL3.TAM, and
 * for the instruction counter's registers MDCR_EL3.EnPM2 == 0, for the AMU's
 * offset registers SCR_EL3.AMVOFFEN == 0: rungs next to TPM's or TAM's with
 * the same outcome. */
static bool el3_trap_bit(const check *k)
{
    if (!k->el3_a64)
        return false;
    if (!k->pmu)
        return (k->x->cptr_el3 & PMVP_CPTR_EL3_TAM) ||
               ((k->rule->flags & VIRTUAL_OFFSET) && !(k->x->scr_el3 & PMVP_SCR_EL3_AMVOFFEN));
    if (k->rule->flags & SNAPSHOT)
        return !(k->x->mdcr_el3 & PMVP_MDCR_EL3_EnPMSS);
    return (k->x->mdcr_el3 & PMVP_MDCR_EL3_TPM) ||
           ((k->rule->flags & EN_PM2) && !(k->x->mdcr_el3 & PMVP_MDCR_EL3_EnPM2));
}

static bool sdd(const check *k)
{
    return k->x->halted && k->x->edscr_sdd;
}

/* EL3SDDUndefPriority() && the EL3 trap: UNDEFINED before everything else. */
static bool el3_sdd_undefined_first(const check *k)
{
    return el3_trap_bit(k) && sdd(k) && k->cfg->el3_sdd_undef_priority;
}

/* The EL0 enable (PMUSERENR / AMUSERENR) is closed: the access is trapped
 * to EL1, to EL2 under HCR_EL2.TGE, or UNDEFINED under an AArch32 EL1. */
static pmvp_sysreg_outcome el0_disabled(const check *k)
{
    bool tge = k->el2_enabled && (k->x->hcr_el2 & PMVP_HCR_EL2_TGE);
    if (!k->cfg->el1_aarch32)
        return trap(tge ? 2 : 1, k->ec);
    if (tge)
        return trap(2, k->el2_a64 ? k->ec : PMVP_EC_UNKNOWN);
    return undefined();
}

/* HSTR_EL2.T<n> / HSTR.T<n>: AArch32 accesses from EL0 and EL1, by the
 * CRn of MRC/MCR or the CRm of MRRC/MCRR. */
static bool hstr_traps(const check *k)
{
    if (!k->a32 || !k->el2_enabled)
        return false;
    if (k->x->el == 0 && el0_in_host(k))
        return false;
    const encoding *e = encoding_of(k->r);
    unsigned t = is_64bit_a32(k->r) ? (unsigned)(e->crm | (k->r->n >> 3)) : e->crn;
    return (k->x->hstr_el2 >> t) & 1;
}

/* FEAT_FGT: the register's bit in HDFGRTR_EL2/HDFGWTR_EL2/HAFGRTR_EL2, which
 * SCR_EL3.FGTEn == 0 disables. FEAT_FGT2: its "n" bit in HDFGRTR2_EL2/
 * HDFGWTR2_EL2, trapping when 0, and SCR_EL3.FGTEn2 == 0 traps them all.
 * Only for an EL1 using AArch64, and not for EL0 in the EL2&0 host. */
static bool fgt_traps(const check *k)
{
    const rule *u = k->rule;
    unsigned bit = k->write ? u->fgt_write : u->fgt_read;
    bool fgt2 = u->flags & FGT2;
    if (!bit || !(fgt2 ? k->cfg->feat_fgt2 : k->cfg->feat_fgt) || !k->el2_enabled || k->cfg->el1_aarch32)
        return false;
    if (k->x->el == 0 && el0_in_host(k))
        return false;
    if (fgt2) {
        uint64_t reg = k->write ? k->x->hdfgwtr2_el2 : k->x->hdfgrtr2_el2;
        return (k->cfg->have_el3 && !(k->x->scr_el3 & PMVP_SCR_EL3_FGTEn2)) || !((reg >> (bit - 1)) & 1);
    }
    if (k->cfg->have_el3 && !(k->x->scr_el3 & PMVP_SCR_EL3_FGTEn))
        return false;
    bit = bit - 1 + (unsigned)u->fgt_stride * k->r->n;
    uint64_t reg = !k->pmu ? k->x->hafgrtr_el2 : k->write ? k->x->hdfgwtr_el2 : k->x->hdfgrtr_el2;
    return (reg >> bit) & 1;
}

/* EL2's own trap of the register: MDCR_EL2.TPM (and TPMCR for PMCR), or
 * CPTR_EL2.TAM. */
static bool el2_traps(const check *k)
{
    if (!k->el2_enabled || (k->rule->flags & SNAPSHOT))
        return false;
    if (!k->pmu)
        return k->x->cptr_el2 & PMVP_CPTR_EL2_TAM;
    return (k->x->mdcr_el2 & PMVP_MDCR_EL2_TPM) || ((k->rule->flags & TPMCR) && (k->x->mdcr_el2 & PMVP_MDCR_EL2_TPMCR));
}

/* The last rung: MDCR_EL3.TPM / CPTR_EL3.TAM, UNDEFINED in Debug state with
 * EDSCR.SDD == 1. */
static pmvp_sysreg_outcome el3_rung(const check *k)
{
    if (el3_trap_bit(k))
        return sdd(k) ? undefined() : trap(3, k->ec);
    return permitted();
}

/* The rungs below the EL0 enable, shared by EL0 and EL1. The PMU checks its
 * fine-grained trap before MDCR_EL2; the AMU, CPTR_EL2.TAM before its own. */
static pmvp_sysreg_outcome below_el2(const check *k)
{
    if (hstr_traps(k))
        return trap(2, k->ec);
    if (k->pmu ? fgt_traps(k) || el2_traps(k) : el2_traps(k) || fgt_traps(k))
        return trap(2, k->ec);
    int n = k->pmu ? counter_of(k->r, k->rule, k->x) : -1;
    if (n >= 0 && k->el2_enabled && (unsigned)n >= k_hpmn_of(k->cfg, k->x->mdcr_el2, k_epmn_of(k->cfg, k->x->pmccr)))
        return k->cfg->feat_fgt || (k->rule->flags & SNAPSHOT) ? trap(2, k->ec) : counter_unpredictable(k);
    return el3_rung(k);
}

/* Whether the register, this instruction on it, its encoding and the
 * counter it names exist here: the gates and instances of registers.def.
 * The PMU's counters beyond PMCR.N have rules of their own (decide()). */
static bool implemented(const check *k)
{
    const pmvp_core_config *cfg = k->cfg;
    const k_reg *row = k_reg_of(k->r->family, k->r->reg);
    return pmvp_gate_open(cfg, row->gate) && pmvp_gate_open(cfg, k->write ? row->write : row->read) &&
           pmvp_gate_open(cfg, encoding_of(k->r)->gate) && (k->pmu || k_reg_has_instance(cfg, row, k->r->n));
}

static pmvp_sysreg_outcome decide(const check *k)
{
    const pmvp_sysreg_context *x = k->x;
    if (!implemented(k))
        return undefined();
    int n = k->pmu ? counter_of(k->r, k->rule, x) : -1;
    /* GetNumEventCountersSelfHosted(): the counters below EPMN. */
    if (n >= 0 && (unsigned)n >= k_epmn_of(k->cfg, x->pmccr))
        return k->cfg->feat_fgt || (k->rule->flags & SNAPSHOT) ? undefined() : counter_unpredictable(k);
    if (k->write && (k->rule->flags & HIGHEST_EL_WRITE))
        return x->el == highest_el(k->cfg) ? permitted() : undefined();
    uint8_t el0 = k->write ? k->rule->el0_write : k->rule->el0_read;
    switch (x->el) {
    case 0: {
        if (el0 == EL0_UNDEFINED || el3_sdd_undefined_first(k))
            return undefined();
        uint64_t enable = k->pmu ? el0_enables(k->cfg, x) : x->amuserenr;
        if (el0 != EL0_ALWAYS && !(enable & el0))
            return el0_disabled(k);
        /* With FEAT_PMUv3p9, UEN closes PMCR to EL0, and TID traps the
         * reads of PMCEID<n>: rungs of the EL0 enable's kind. */
        if (((k->rule->flags & UEN_TRAPS) && (enable & PMVP_PMUSERENR_EL0_UEN)) ||
            ((k->rule->flags & TID_TRAPS) && (enable & PMVP_PMUSERENR_EL0_TID)))
            return el0_disabled(k);
        return below_el2(k);
    }
    case 1:
        if (k->rule->flags & VIRTUAL_OFFSET) /* EffectiveHCR_EL2_NVx() is 000 without FEAT_NV */
            return undefined();
        return el3_sdd_undefined_first(k) ? undefined() : below_el2(k);
    case 2: return el3_sdd_undefined_first(k) ? undefined() : el3_rung(k);
    default: return permitted();
    }
}

/* Whether the instruction can run at the context's Exception level, in its
 * Execution state, in this configuration. */
static bool possible(const pmvp_core_config *cfg, const pmvp_sysreg *r, const pmvp_sysreg_context *x)
{
    if (r->op > PMVP_MCRR || x->el > 3 || x->security > PMVP_ROOT)
        return false;
    if ((x->el == 2 && !cfg->have_el2) || (x->el == 3 && !cfg->have_el3))
        return false;
    bool using_a32[4] = { is_a32(r), cfg->el1_aarch32, cfg->el2_aarch32, cfg->el3_aarch32 };
    if (x->el == 0 && !is_a32(r) && cfg->el1_aarch32)
        return false; /* an AArch32 EL1 has only AArch32 EL0 */
    if (x->el == 0 && is_a32(r) && !cfg->have_aarch32)
        return false;
    if (using_a32[x->el] != is_a32(r))
        return false;
    const encoding *e = encoding_of(r);
    if (!e)
        return false;
    if (r->family == PMVP_SYSREG_PMU)
        return r->reg < PMVP_PMU_NUM_REGS &&
               (e->index == PMVP_SYSREG_NOT_INDEXED ? r->n == 0 : r->n < PMVP_MAX_COUNTERS);
    return r->reg < PMVP_AMU_NUM_REGS && (e->index == PMVP_SYSREG_NOT_INDEXED ? r->n == 0 : r->n < PMVP_AMU_MAX_AUX);
}

int pmvp_sysreg_check(const pmvp_core_config *cfg, const pmvp_sysreg *r, const pmvp_sysreg_context *x,
                      pmvp_sysreg_outcome *out)
{
    if (!cfg || !r || !x || !out)
        return PMVP_ERR_NULL;
    if (r->family > PMVP_SYSREG_AMU || !possible(cfg, r, x))
        return PMVP_ERR_VALUE;
    bool pmu = r->family == PMVP_SYSREG_PMU;
    check k = {
        .cfg = cfg,
        .r = r,
        .x = x,
        .rule = &rules[r->family][r->reg],
        .pmu = pmu,
        .write = is_write(r),
        .a32 = is_a32(r),
        .el2_enabled = el2_enabled(cfg, x),
        .el2_a64 = cfg->have_el2 && !cfg->el2_aarch32,
        .el3_a64 = cfg->have_el3 && !cfg->el3_aarch32,
        .ec = is_64bit_a32(r) ? PMVP_EC_MCRR_MRRC
              : is_a32(r)     ? PMVP_EC_MCR_MRC
                              : PMVP_EC_MSR_MRS,
    };
    *out = decide(&k);
    return PMVP_OK;
}

int pmvp_sysreg_context_of(const pmvp_core *c, unsigned pe, pmvp_sysreg_context *x)
{
    if (!c || !x)
        return PMVP_ERR_NULL;
    if (pe >= c->cfg.num_pes)
        return PMVP_ERR_PE;
    const pmvp_pe *p = &c->pe[pe];
    *x = (pmvp_sysreg_context){
        .el = p->ctx.el,
        .security = p->ctx.security,
        .halted = p->ctx.halted,
        .pmuserenr = p->pmu.pmuserenr,
        .pmuacr = p->pmu.pmuacr,
        .pmselr = p->pmu.pmselr,
        .amuserenr = p->amu.amuserenr,
        .mdcr_el2 = p->pmu.ctl.mdcr_el2,
        .mdcr_el3 = p->pmu.ctl.mdcr_el3,
        .scr_el3 = p->pmu.ctl.scr_el3,
        .hcr_el2 = p->pmu.ctl.hcr_el2,
        .pmccr = p->ext.pmccr,
    };
    return PMVP_OK;
}

/* ------------------------------------------------------------------ access */

/* FEAT_PMUv3p9 (D13.11.3, Table D13-12): the counters an AArch64 EL0
 * access reaches under an Effective PMUSERENR_EL0.UEN, by their P<n>, C
 * and F0 bits. A read reaches those PMUACR_EL1 opens; a write, those of
 * them PMUSERENR_EL0.ER (event counters), CR (PMCCNTR) and IR (PMICNTR) do
 * not make read-only. Every counter without UEN, and above EL0. PMSWINC's
 * bits follow SW rather than PMUACR where SW is set. The AArch32 registers'
 * pseudocode has no such view, so they have none. */
static uint64_t user_counters(const pmvp_core *c, const pmvp_sysreg *r, const pmvp_sysreg_context *x, bool write)
{
    uint64_t enables = el0_enables(&c->cfg, x);
    if (x->el != 0 || is_a32(r) || !(enables & PMVP_PMUSERENR_EL0_UEN))
        return UINT64_MAX;
    uint64_t open = x->pmuacr;
    if (r->family == PMVP_SYSREG_PMU && r->reg == PMVP_PMSWINC_EL0)
        return (enables & PMVP_PMUSERENR_EL0_SW) ? UINT64_MAX : open;
    if (write)
        open &= ~(((enables & PMVP_PMUSERENR_EL0_ER) ? PMVP_PMU_P : 0) |
                  ((enables & PMVP_PMUSERENR_EL0_CR) ? PMVP_PMU_C : 0) |
                  ((enables & PMVP_PMUSERENR_EL0_IR) ? PMVP_PMU_F0 : 0));
    return open;
}

/* The counters whose bits an access of a bitmap register (PMCNTEN,
 * PMINTEN, PMOVS, PMSWINC, PMZR, PMUACR) reaches: bits [accessible-1:0],
 * the cycle counter's C bit and, where the access may reach it, the
 * instruction counter's F0: RAZ/WI below EL3 while MDCR_EL3.EnPM2 is 0, and
 * at EL0 without an Effective PMUSERENR_EL0.UEN; and at EL0 under UEN, only
 * those user_counters opens. The AArch32 registers are [31:0], without F0. */
static uint64_t visible_counters(const pmvp_core *c, const pmvp_sysreg *r, const pmvp_sysreg_context *x, bool write)
{
    uint64_t v = (PMVP_BIT(accessible_counters(&c->cfg, x)) - 1) | PMVP_PMU_C;
    bool el3_closes = c->cfg.have_el3 && x->el != 3 && !(x->mdcr_el3 & PMVP_MDCR_EL3_EnPM2);
    if (c->cfg.feat_pmuv3_icntr && !el3_closes && (x->el != 0 || (el0_enables(&c->cfg, x) & PMVP_PMUSERENR_EL0_UEN)))
        v |= PMVP_PMU_F0;
    return v & user_counters(c, r, x, write);
}

/* The counter whose registers an access reaches, by its bit in the
 * bitmaps (P<n>, C, F0); 0 for a register of no one counter. `counter`:
 * as counter_of gives it. */
static uint64_t owner_of(unsigned reg, int counter)
{
    switch (reg) {
    case PMVP_PMCCNTR_EL0:
    case PMVP_PMCCFILTR_EL0: return PMVP_PMU_C;
    case PMVP_PMICNTR_EL0:
    case PMVP_PMICFILTR_EL0: return PMVP_PMU_F0;
    case PMVP_PMEVCNTR_EL0:
    case PMVP_PMEVTYPER_EL0:
    case PMVP_PMXEVCNTR_EL0:
    case PMVP_PMXEVTYPER_EL0:
        return counter < 0 ? PMVP_PMU_C : PMVP_BIT(counter); /* PMXEVTYPER with SEL 31: PMCCFILTR */
    default: return 0;
    }
}

/* The kernel register and counter an access reaches: PMXEVTYPER and
 * PMXEVCNTR resolve through the context's PMSELR. False when the access
 * reaches no counter the context can see, or one FEAT_PMUv3p9 closes to
 * this EL0 read or write (RAZ/WI, D13.11.3). */
static bool target(const pmvp_core *c, const pmvp_sysreg *r, const pmvp_sysreg_context *x, bool write, unsigned *reg,
                   unsigned *n)
{
    *reg = r->reg;
    *n = r->n;
    if (r->family != PMVP_SYSREG_PMU)
        return true;
    const rule *u = &rules[PMVP_SYSREG_PMU][r->reg];
    int counter = counter_of(r, u, x);
    if (u->counter == SELECTED_CC && counter < 0) {
        *reg = PMVP_PMCCFILTR_EL0;
    } else if (u->counter != NO_COUNTER) {
        if (u->counter != INDEXED)
            *reg = u->counter == SELECTED ? PMVP_PMEVCNTR_EL0 : PMVP_PMEVTYPER_EL0;
        *n = (unsigned)counter;
        if ((unsigned)counter >= accessible_counters(&c->cfg, x))
            return false;
    }
    uint64_t owner = owner_of(r->reg, counter);
    return (user_counters(c, r, x, write) & owner) == owner;
}

/* D24.6.9, D24.6.10: EL0 and EL1 read the AMU's counters less their
 * virtual offsets with FEAT_AMUv1p1, HCR_EL2.AMVOFFEN and SCR_EL3.AMVOFFEN
 * set, EL2 enabled and HCR_EL2.{E2H, TGE} not {1, 1}. */
static bool virtual_offsets_apply(const pmvp_core_config *cfg, const pmvp_sysreg_context *x)
{
    uint64_t host = PMVP_HCR_EL2_E2H | PMVP_HCR_EL2_TGE;
    /* The offsets and AMVOFFEN are an AArch64 EL2's. */
    return cfg->feat_amuv1p1 && x->el <= 1 && !cfg->el2_aarch32 && el2_enabled(cfg, x) &&
           (x->hcr_el2 & PMVP_HCR_EL2_AMVOFFEN) && (x->hcr_el2 & host) != host &&
           (!cfg->have_el3 || (x->scr_el3 & PMVP_SCR_EL3_AMVOFFEN));
}

/* The offset of counter n read through `reg`: its AMEVCNTVOFF0/1<n>_EL2, or
 * 0 for a counter without one (CNT_CYCLES; an auxiliary counter not in
 * amu_aux_offsets) and for any other register. */
static uint64_t virtual_offset(const pmvp_core_config *cfg, const pmvp_amu *a, unsigned reg, unsigned n)
{
    const k_reg *row =
        k_reg_of(PMVP_SYSREG_AMU, reg == PMVP_AMEVCNTR0_EL0 ? PMVP_AMEVCNTVOFF0_EL2 : PMVP_AMEVCNTVOFF1_EL2);
    if ((reg != PMVP_AMEVCNTR0_EL0 && reg != PMVP_AMEVCNTR1_EL0) || !k_reg_has_instance(cfg, row, n))
        return 0;
    return reg == PMVP_AMEVCNTR0_EL0 ? a->voff0[n] : a->voff1[n];
}

static bool is_bitmap(const pmvp_sysreg *r)
{
    if (r->family != PMVP_SYSREG_PMU)
        return false;
    switch (r->reg) {
    case PMVP_PMCNTENSET_EL0:
    case PMVP_PMCNTENCLR_EL0:
    case PMVP_PMINTENSET_EL1:
    case PMVP_PMINTENCLR_EL1:
    case PMVP_PMOVSSET_EL0:
    case PMVP_PMOVSCLR_EL0:
    case PMVP_PMSWINC_EL0:
    case PMVP_PMZR_EL0:
    case PMVP_PMUACR_EL1: return true;
    default: return false;
    }
}

/* The value register `reg` (instance n) holds at `now`, read on the core:
 * begun at `now`, a counter read directly (knob (c)). */
static int kernel_read(pmvp_core *c, unsigned pe, unsigned family, unsigned reg, unsigned n, pmvp_time now, uint64_t *v)
{
    int err = k_access_begin(c, pe, family, reg, n, false, now);
    if (err)
        return err;
    return family == PMVP_SYSREG_PMU ? k_pmu_read(c, pe, (enum pmvp_pmu_reg)reg, n, now, v)
                                     : k_amu_look(c, &c->pe[pe], (enum pmvp_amu_reg)reg, n, v);
}

/* The same as the pure query: on a copy of the PE brought to `now`. */
static int kernel_look(const pmvp_core *c, unsigned pe, unsigned family, unsigned reg, unsigned n, pmvp_time now,
                       uint64_t *v)
{
    int err = k_look_begin(c, pe, family, reg, n, now);
    if (err)
        return err;
    pmvp_pe scratch;
    const pmvp_pe *at = k_pe_at(c, pe, now, &scratch);
    return family == PMVP_SYSREG_PMU ? k_pmu_look(c, pe, at, (enum pmvp_pmu_reg)reg, n, v)
                                     : k_amu_look(c, at, (enum pmvp_amu_reg)reg, n, v);
}

/* Validates an access for reading or writing a value. It changes nothing:
 * the register file's call brings the core to `now`, so that a refused
 * access (write-only, read-only, a register or counter the configuration
 * lacks) leaves the core as it was, its present included. */
static int validate(const pmvp_core *c, unsigned pe, const pmvp_sysreg *r, const pmvp_sysreg_context *x, pmvp_time now)
{
    if (!c || !r || !x)
        return PMVP_ERR_NULL;
    if (pe >= c->cfg.num_pes)
        return PMVP_ERR_PE;
    if (r->family > PMVP_SYSREG_AMU || !possible(&c->cfg, r, x))
        return PMVP_ERR_VALUE;
    return now < c->last_call ? PMVP_ERR_PAST : PMVP_OK;
}

/* The register a read of r reaches (*reg, instance *n; *reads false for
 * a read that reaches none and reads 0), validated. It changes nothing. */
static int start_read(const pmvp_core *c, unsigned pe, const pmvp_sysreg *r, const pmvp_sysreg_context *x,
                      pmvp_time now, const uint64_t *value, unsigned *reg, unsigned *n, bool *reads)
{
    if (!value)
        return PMVP_ERR_NULL;
    int err = validate(c, pe, r, x, now);
    if (err)
        return err;
    if (!pmvp_gate_open(&c->cfg, k_reg_of(r->family, r->reg)->read))
        return PMVP_ERR_WRITE_ONLY; /* PMSWINC, PMZR */
    *reads = target(c, r, x, false, reg, n);
    return PMVP_OK;
}

/* What read r of context x returns of the value v the register holds
 * (instance n): the lower Exception level's view, then the part moved. */
static uint64_t view_of_read(const pmvp_core *c, unsigned pe, const pmvp_sysreg *r, const pmvp_sysreg_context *x,
                             unsigned n, uint64_t v)
{
    if (is_bitmap(r))
        v &= visible_counters(c, r, x, false);
    if (r->family == PMVP_SYSREG_PMU && r->reg == PMVP_PMCR_EL0) /* PMCR.N reads HPMN at EL0/EL1 */
        v = (v & ~PMVP_PMCR_EL0_N) | PMVP_FIELD_PREP(PMVP_PMCR_EL0_N, accessible_counters(&c->cfg, x));
    if (r->family == PMVP_SYSREG_AMU && r->reg == PMVP_AMEVCNTR1_EL0 && x->el != highest_el(&c->cfg) &&
        (c->pe[pe].amu.amcr & PMVP_AMCR_EL0_CG1RZ))
        v = 0; /* AMCR.CG1RZ: auxiliary counters read as zero below the highest EL */
    else if (r->family == PMVP_SYSREG_AMU && virtual_offsets_apply(&c->cfg, x))
        v -= virtual_offset(&c->cfg, &c->pe[pe].amu, r->reg, n);
    if (r->part == PMVP_PART_HIGH)
        v >>= 32;
    else if (r->part == PMVP_PART_LOW)
        v &= UINT32_MAX;
    return v;
}

int pmvp_sysreg_read(pmvp_core *c, unsigned pe, const pmvp_sysreg *r, const pmvp_sysreg_context *x, pmvp_time now,
                     uint64_t *value)
{
    unsigned reg = 0, n = 0;
    bool reads = false;
    int err = start_read(c, pe, r, x, now, value, &reg, &n, &reads);
    uint64_t v = 0;
    if (!err && reads)
        err = kernel_read(c, pe, r->family, reg, n, now, &v);
    if (!err)
        *value = view_of_read(c, pe, r, x, n, v);
    return err;
}

int pmvp_sysreg_peek(const pmvp_core *c, unsigned pe, const pmvp_sysreg *r, const pmvp_sysreg_context *x, pmvp_time t,
                     uint64_t *value)
{
    unsigned reg = 0, n = 0;
    bool reads = false;
    int err = start_read(c, pe, r, x, t, value, &reg, &n, &reads);
    uint64_t v = 0;
    if (!err && reads)
        err = kernel_look(c, pe, r->family, reg, n, t, &v);
    if (!err)
        *value = view_of_read(c, pe, r, x, n, v);
    return err;
}

int pmvp_sysreg_write(pmvp_core *c, unsigned pe, const pmvp_sysreg *r, const pmvp_sysreg_context *x, uint64_t value,
                      pmvp_time now)
{
    int err = validate(c, pe, r, x, now);
    if (err)
        return err;
    if (!pmvp_gate_open(&c->cfg, k_reg_of(r->family, r->reg)->write))
        return PMVP_ERR_READ_ONLY;
    unsigned reg, n;
    if (!target(c, r, x, true, &reg, &n))
        return PMVP_OK; /* a counter the context cannot see or write: WI */
    if ((err = k_access_begin(c, pe, r->family, reg, n, true, now)))
        return err;
    if (r->part == PMVP_PART_LOW) {
        /* The AArch32 register is bits [31:0]; a write leaves [63:32] alone.
         * Only the counters have meaningful upper bits to keep: their true
         * value, not what a direct read would see (inaccuracy knob (c)). */
        uint64_t old = 0;
        bool counter = reg == PMVP_PMCCNTR_EL0 || reg == PMVP_PMEVCNTR_EL0;
        if (r->family == PMVP_SYSREG_PMU && counter)
            k_pmu_look(c, pe, &c->pe[pe], (enum pmvp_pmu_reg)reg, n, &old);
        value = (old & ~(uint64_t)UINT32_MAX) | (value & UINT32_MAX);
    }
    if (is_bitmap(r))
        value &= visible_counters(c, r, x, true);
    bool reset_counters = r->family == PMVP_SYSREG_PMU && r->reg == PMVP_PMCR_EL0 && (value & PMVP_PMCR_EL0_P);
    if (reset_counters)
        value &= ~PMVP_PMCR_EL0_P;
    err = r->family == PMVP_SYSREG_PMU ? k_pmu_write(c, pe, (enum pmvp_pmu_reg)reg, n, value)
                                       : k_amu_write(c, pe, (enum pmvp_amu_reg)reg, n, value);
    /* PMCR.P, in the view of the access's context rather than the PE's. */
    if (reset_counters && !err)
        k_pmcr_p_reset(c, pe, accessible_counters(&c->cfg, x));
    return err;
}

/* -------------------------------------------------------- one call for an ISS */

/* ESR_ELx.IL: a 32-bit instruction (every A64 instruction). */
#define ESR_IL PMVP_BIT(25)
#define ESR_EC PMVP_BITS(31, 26)

uint64_t pmvp_sysreg_trap_esr(bool write, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                              unsigned rt)
{
    /* ISS of EC 0x18: Op0 [21:20], Op2 [19:17], Op1 [16:14], CRn [13:10],
     * Rt [9:5], CRm [4:1], Direction [0] (1: a read, MRS). */
    uint64_t iss = PMVP_FIELD_PREP(PMVP_BITS(21, 20), op0) | PMVP_FIELD_PREP(PMVP_BITS(19, 17), op2) |
                   PMVP_FIELD_PREP(PMVP_BITS(16, 14), op1) | PMVP_FIELD_PREP(PMVP_BITS(13, 10), crn) |
                   PMVP_FIELD_PREP(PMVP_BITS(9, 5), rt) | PMVP_FIELD_PREP(PMVP_BITS(4, 1), crm) | (write ? 0 : 1);
    return PMVP_FIELD_PREP(ESR_EC, PMVP_EC_MSR_MRS) | ESR_IL | iss;
}

/* Whether memo m holds the decision on instruction i in context x. */
/* Whether two contexts are the same, field by field (their padding aside). */
static bool same_context(const pmvp_sysreg_context *a, const pmvp_sysreg_context *b)
{
    /* A field added to the context is added here too: */
    _Static_assert(sizeof(pmvp_sysreg_context) == 8 + 17 * 8, "same_context compares every field");
    return a->el == b->el && a->security == b->security && a->halted == b->halted && a->edscr_sdd == b->edscr_sdd &&
           a->pmuserenr == b->pmuserenr && a->pmuacr == b->pmuacr && a->pmselr == b->pmselr &&
           a->amuserenr == b->amuserenr && a->mdcr_el2 == b->mdcr_el2 && a->mdcr_el3 == b->mdcr_el3 &&
           a->pmccr == b->pmccr && a->hcr_el2 == b->hcr_el2 && a->hstr_el2 == b->hstr_el2 &&
           a->cptr_el2 == b->cptr_el2 && a->cptr_el3 == b->cptr_el3 && a->scr_el3 == b->scr_el3 &&
           a->hdfgrtr_el2 == b->hdfgrtr_el2 && a->hdfgwtr_el2 == b->hdfgwtr_el2 && a->hafgrtr_el2 == b->hafgrtr_el2 &&
           a->hdfgrtr2_el2 == b->hdfgrtr2_el2 && a->hdfgwtr2_el2 == b->hdfgwtr2_el2;
}

static bool remembered(const pmvp_sysreg_memo *m, const pmvp_sysreg_a64 *i, const pmvp_sysreg_context *x)
{
    return m && m->valid && m->write == i->write && m->op0 == i->op0 && m->op1 == i->op1 && m->crn == i->crn &&
           m->crm == i->crm && m->op2 == i->op2 && same_context(&m->x, x);
}

/* The decision on MRS or MSR `i` of PE pe: decoded (*r), in the PE's
 * context with the higher levels' controls (*x), checked (*o); taken from
 * memo m when it holds it, else kept there (m may be NULL). */
static int decide_a64(const pmvp_core *c, unsigned pe, const pmvp_sysreg_a64 *i, const pmvp_sysreg_context *higher,
                      pmvp_sysreg *r, pmvp_sysreg_context *x, pmvp_sysreg_outcome *o, pmvp_sysreg_memo *m)
{
    if (!c || !i)
        return PMVP_ERR_NULL;
    if (i->rt > 31)
        return PMVP_ERR_VALUE;
    int err = pmvp_sysreg_context_of(c, pe, x);
    if (err)
        return err;
    if (higher) {
        x->halted = x->halted || higher->halted;
        x->edscr_sdd = higher->edscr_sdd;
        x->hcr_el2 = higher->hcr_el2;
        x->hstr_el2 = higher->hstr_el2;
        x->cptr_el2 = higher->cptr_el2;
        x->cptr_el3 = higher->cptr_el3;
        /* EEL2 is the PE's (its controls): EL2Enabled() has one answer for
         * counting and for access checks. */
        x->scr_el3 = (higher->scr_el3 & ~PMVP_SCR_EL3_EEL2) | (x->scr_el3 & PMVP_SCR_EL3_EEL2);
        x->hdfgrtr_el2 = higher->hdfgrtr_el2;
        x->hdfgwtr_el2 = higher->hdfgwtr_el2;
        x->hafgrtr_el2 = higher->hafgrtr_el2;
        x->hdfgrtr2_el2 = higher->hdfgrtr2_el2;
        x->hdfgwtr2_el2 = higher->hdfgwtr2_el2;
    }
    if (remembered(m, i, x)) {
        *r = m->r;
        *o = m->o;
        return PMVP_OK;
    }
    if ((err = pmvp_sysreg_decode_a64(i->write, i->op0, i->op1, i->crn, i->crm, i->op2, r)) ||
        (err = pmvp_sysreg_check(&c->cfg, r, x, o)))
        return err;
    if (m)
        *m = (pmvp_sysreg_memo){
            true, i->write, (uint8_t)i->op0, (uint8_t)i->op1, (uint8_t)i->crn, (uint8_t)i->crm, (uint8_t)i->op2, *r,
            *x,   *o
        };
    return PMVP_OK;
}

/* The exception a refused MRS or MSR `i` takes (*out), at `now`. */
static int refuse_a64(const pmvp_core *c, const pmvp_sysreg_a64 *i, const pmvp_sysreg_context *x,
                      const pmvp_sysreg_outcome *o, pmvp_time now, pmvp_sysreg_execution *out)
{
    if (now < c->last_call)
        return PMVP_ERR_PAST; /* a refusal is still an answer at `now` */
    if (o->verdict == PMVP_SYSREG_TRAP) {
        *out = (pmvp_sysreg_execution){ PMVP_SYSREG_TRAP, o->target_el,
                                        pmvp_sysreg_trap_esr(i->write, i->op0, i->op1, i->crn, i->crm, i->op2, i->rt) };
        return PMVP_OK;
    }
    /* An UNDEFINED exception is taken to the current Exception level, or from
     * EL0 to EL1, or to EL2 when HCR_EL2.TGE routes EL0's exceptions there. */
    unsigned el = x->el ? x->el : el2_enabled(&c->cfg, x) && (x->hcr_el2 & PMVP_HCR_EL2_TGE) ? 2 : 1;
    *out = (pmvp_sysreg_execution){ PMVP_SYSREG_UNDEFINED, (uint8_t)el, ESR_IL };
    return PMVP_OK;
}

int pmvp_sysreg_execute_memo(pmvp_core *c, unsigned pe, const pmvp_sysreg_a64 *i, const pmvp_sysreg_context *higher,
                             pmvp_time now, uint64_t *value, pmvp_sysreg_execution *out, pmvp_sysreg_memo *memo)
{
    if (!value || !out)
        return PMVP_ERR_NULL;
    pmvp_sysreg r;
    pmvp_sysreg_context x;
    pmvp_sysreg_outcome o;
    int err = decide_a64(c, pe, i, higher, &r, &x, &o, memo);
    if (err)
        return err;
    if (o.verdict != PMVP_SYSREG_PERMITTED)
        return refuse_a64(c, i, &x, &o, now, out);
    err = i->write ? pmvp_sysreg_write(c, pe, &r, &x, *value, now) : pmvp_sysreg_read(c, pe, &r, &x, now, value);
    if (!err)
        *out = (pmvp_sysreg_execution){ PMVP_SYSREG_PERMITTED, 0, 0 };
    return err;
}

int pmvp_sysreg_execute(pmvp_core *c, unsigned pe, const pmvp_sysreg_a64 *i, const pmvp_sysreg_context *higher,
                        pmvp_time now, uint64_t *value, pmvp_sysreg_execution *out)
{
    return pmvp_sysreg_execute_memo(c, pe, i, higher, now, value, out, NULL);
}

int pmvp_sysreg_peek_execute_memo(const pmvp_core *c, unsigned pe, const pmvp_sysreg_a64 *i,
                                  const pmvp_sysreg_context *higher, pmvp_time t, uint64_t *value,
                                  pmvp_sysreg_execution *out, pmvp_sysreg_memo *memo)
{
    if (!value || !out)
        return PMVP_ERR_NULL;
    if (i && i->write)
        return PMVP_ERR_VALUE; /* an MSR changes the core: pmvp_sysreg_execute */
    pmvp_sysreg r;
    pmvp_sysreg_context x;
    pmvp_sysreg_outcome o;
    int err = decide_a64(c, pe, i, higher, &r, &x, &o, memo);
    if (err)
        return err;
    if (o.verdict != PMVP_SYSREG_PERMITTED)
        return refuse_a64(c, i, &x, &o, t, out);
    err = pmvp_sysreg_peek(c, pe, &r, &x, t, value);
    if (!err)
        *out = (pmvp_sysreg_execution){ PMVP_SYSREG_PERMITTED, 0, 0 };
    return err;
}

int pmvp_sysreg_peek_execute(const pmvp_core *c, unsigned pe, const pmvp_sysreg_a64 *i,
                             const pmvp_sysreg_context *higher, pmvp_time t, uint64_t *value,
                             pmvp_sysreg_execution *out)
{
    return pmvp_sysreg_peek_execute_memo(c, pe, i, higher, t, value, out, NULL);
}

int pmvp_sysreg_execute_a64(pmvp_core *c, unsigned pe, bool write, unsigned op0, unsigned op1, unsigned crn,
                            unsigned crm, unsigned op2, unsigned rt, const pmvp_sysreg_context *higher, pmvp_time now,
                            uint64_t *value, pmvp_sysreg_execution *out)
{
    const pmvp_sysreg_a64 i = { write, op0, op1, crn, crm, op2, rt };
    return pmvp_sysreg_execute(c, pe, &i, higher, now, value, out);
}

int pmvp_sysreg_peek_a64(const pmvp_core *c, unsigned pe, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                         unsigned op2, unsigned rt, const pmvp_sysreg_context *higher, pmvp_time t, uint64_t *value,
                         pmvp_sysreg_execution *out)
{
    const pmvp_sysreg_a64 i = { false, op0, op1, crn, crm, op2, rt };
    return pmvp_sysreg_peek_execute(c, pe, &i, higher, t, value, out);
}

/* ------------------------------------------------------------ ID registers */

/* ID_AA64PFR0_EL1.EL<n>: not implemented, AArch64 only, AArch64 and AArch32. */
static uint64_t el_support(bool implemented, bool aarch32)
{
    return !implemented ? 0 : aarch32 ? 2 : 1;
}

/* PMUVer (ID_AA64DFR0_EL1) of the configuration; PerfMon (ID_DFR0_EL1)
 * numbers PMUv3 as 0b0011 and the later versions as PMUVer does. */
static uint64_t pmu_ver(const pmvp_core_config *cfg)
{
    return cfg->feat_pmuv3p9 ? 0x9 : cfg->feat_pmuv3p7 ? 0x7 : (uint64_t)cfg->pmu_version;
}

/* MTPMU: 0b0001 implemented; 0b1111 not implemented, PMEVTYPER<n>.MT RES0. */
static uint64_t mtpmu(const pmvp_core_config *cfg)
{
    return cfg->feat_mtpmu ? 0x1 : 0xF;
}

int pmvp_id_fields_a64(const pmvp_core_config *cfg, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                       unsigned op2, uint64_t *fields, uint64_t *mask)
{
    if (!cfg || !fields || !mask)
        return PMVP_ERR_NULL;
    if (op0 != 3 || op1 != 0 || crn != 0)
        return PMVP_ERR_REGISTER;
    uint64_t f, m;
    switch (crm << 3 | op2) {
    case 4 << 3 | 0: /* ID_AA64PFR0_EL1 */
        m = PMVP_BITS(15, 0) | PMVP_BITS(39, 36) | PMVP_BITS(47, 44) | PMVP_BITS(55, 52);
        f = el_support(true, cfg->have_aarch32) | el_support(true, cfg->el1_aarch32) << 4 |
            el_support(cfg->have_el2, cfg->el2_aarch32) << 8 | el_support(cfg->have_el3, cfg->el3_aarch32) << 12 |
            (uint64_t)cfg->feat_sel2 << 36 | (uint64_t)(cfg->feat_amuv1 ? (cfg->feat_amuv1p1 ? 2 : 1) : 0) << 44 |
            (uint64_t)cfg->feat_rme << 52;
        break;
    case 5 << 3 | 0: /* ID_AA64DFR0_EL1: DebugVer, PMUVer, PMSS [19:16], SEBEP, MTPMU, HPMN0 */
        m = PMVP_BITS(3, 0) | PMVP_BITS(11, 8) | PMVP_BITS(19, 16) | PMVP_BITS(27, 24) | PMVP_BITS(51, 48) |
            PMVP_BITS(63, 60);
        f = (uint64_t)(cfg->feat_debugv8p4   ? 0x9
                       : cfg->feat_debugv8p2 ? 0x8
                                             : 0x6) |
            pmu_ver(cfg) << 8 | (uint64_t)cfg->feat_pmuv3_ss << 16 | (uint64_t)cfg->feat_sebep << 24 |
            mtpmu(cfg) << 48 | (uint64_t)cfg->feat_hpmn0 << 60;
        break;
    case 5 << 3 | 1: /* ID_AA64DFR1_EL1: PMICNTR [39:36], EBEP [51:48] */
        m = PMVP_BITS(39, 36) | PMVP_BITS(51, 48);
        f = (uint64_t)cfg->feat_pmuv3_icntr << 36 | (uint64_t)cfg->feat_ebep << 48;
        break;
    case 1 << 3 | 0: /* ID_PFR0_EL1 */
        m = PMVP_BITS(23, 20);
        f = (uint64_t)(cfg->feat_amuv1 ? (cfg->feat_amuv1p1 ? 2 : 1) : 0) << 20;
        break;
    case 1 << 3 | 2: /* ID_DFR0_EL1 */
        m = PMVP_BITS(27, 24);
        f = (cfg->pmu_version == PMVP_PMUV3 ? 0x3 : pmu_ver(cfg)) << 24;
        break;
    case 3 << 3 | 5: /* ID_DFR1_EL1 */
        m = PMVP_BITS(11, 4);
        f = mtpmu(cfg) << 4 | (uint64_t)cfg->feat_hpmn0 << 8;
        break;
    default: return PMVP_ERR_REGISTER;
    }
    *fields = f;
    *mask = m;
    return PMVP_OK;
}
