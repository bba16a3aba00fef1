/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The System-register interface of the PMU and the AMU: what an
 * instruction-set simulator needs when it executes MRS/MSR (AArch64) or
 * MRC/MCR/MRRC/MCRR (AArch32) on one of their registers.
 *
 * Three steps, kept apart:
 * 1. Decode: an instruction's encoding names a register (pmvp_sysreg), or
 *    is no PMU/AMU register (PMVP_ERR_REGISTER).
 * 2. Check: pmvp_sysreg_check() decides, from the configuration and a
 *    context the caller supplies, whether the access is permitted, UNDEFINED,
 *    or trapped (to which Exception level, with which exception class). It
 *    follows the accessibility pseudocode of D24.5 and D24.6 (AArch64) and
 *    of the AArch32 registers, branch by branch.
 * 3. Access: pmvp_sysreg_read()/pmvp_sysreg_write() move the value of a
 *    permitted access. They hold no permission logic; they apply the views
 *    the architecture gives a lower Exception level (PMCR.N reads HPMN at
 *    EL0/EL1, counters >= HPMN are RAZ/WI there, AMCR.CG1RZ), and the AArch32
 *    widths (a 32-bit access moves bits [31:0] and leaves [63:32] alone).
 *    With FEAT_PMUv3_EXTPMN the context's PMCCR.EPMN bounds what every
 *    Exception level has (GetNumEventCountersSelfHosted(); PMCR.N reads
 *    EPMN at EL2 and EL3, HPMN is at most EPMN): a counter above it is
 *    UNDEFINED with FEAT_FGT, and its bits are RAZ/WI.
 *    A read has no side effect but those of the inaccuracy knob (c), when
 *    it is on (docs/ACCURACY.md).
 *
 * PMECR_EL1 (FEAT_EBEP), PMIAR_EL1 (FEAT_SEBEP) and PMUACR_EL1
 * (FEAT_PMUv3p9) are UNDEFINED at EL0 and trapped by MDCR_EL2/EL3.TPM and
 * by MDCR_EL3.EnPM2 == 0, as are FEAT_PMUv3_ICNTR's PMICNTR_EL0 and
 * PMICFILTR_EL0. With FEAT_FGT2 (cfg.feat_fgt2) HDFGRTR2_EL2/HDFGWTR2_EL2
 * trap them to EL2, with PMZR_EL0, PMSSCR_EL1 and the snapshot registers
 * (nPMSSDATA), when their bit is 0 or SCR_EL3.FGTEn2 is 0: a context whose
 * FGT2 registers are zero traps them all, as on a PE whose EL2 has not
 * set them up. The rung comes before MDCR_EL2.TPM's, and for EL0 not in
 * the EL2&0 host only.
 *
 * FEAT_PMUv3p9 (D13.11.3): with PMUSERENR_EL0.UEN (Effective only with an
 * AArch64 EL1) EL0 reaches the PMU's registers but PMCR_EL0 (which UEN
 * traps), and each counter and its bits in the enable, overflow and PMZR
 * registers only where PMUACR_EL1 opens it (P<n>, C, F0): RAZ/WI else,
 * read-only with PMUSERENR_EL0.ER, CR or IR. PMUSERENR_EL0.TID traps EL0
 * reads of PMCEID<n>. pmvp_sysreg_read/write apply these views.
 *
 * Not modelled (their encodings decode to PMVP_ERR_REGISTER):
 * FEAT_SPMU, and FEAT_NV (so the AMU's offset
 * registers AMEVCNTVOFF0/1<n>_EL2 are UNDEFINED at EL1).
 *
 * FEAT_AMUv1p1's offsets change what EL0 and EL1 read of AMEVCNTR0<n> and
 * AMEVCNTR1<n> (D24.6.9, D24.6.10), with the context's HCR_EL2.AMVOFFEN
 * and SCR_EL3.AMVOFFEN: pmvp_sysreg_read and the ISS call apply them;
 * pmvp_amu_read, the register file, returns the physical count.
 */
#ifndef PMVP_SYSREG_H
#define PMVP_SYSREG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmvp/amu.h"
#include "pmvp/core.h"
#include "pmvp/pmu.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

/* The instruction. MRS/MSR run in AArch64, the others in AArch32; MRRC and
 * MCRR move 64 bits through two general-purpose registers. */
enum pmvp_sysreg_op { PMVP_MRS, PMVP_MSR, PMVP_MRC, PMVP_MCR, PMVP_MRRC, PMVP_MCRR };

enum pmvp_sysreg_family { PMVP_SYSREG_PMU, PMVP_SYSREG_AMU };

/* The bits of the register an access moves. */
enum pmvp_sysreg_part {
    PMVP_PART_ALL, /* the whole register (64 bits for MRS/MSR/MRRC/MCRR) */
    PMVP_PART_LOW, /* bits [31:0]: the 32-bit AArch32 view (MRC/MCR) */
    PMVP_PART_HIGH /* bits [63:32]: PMCEID2/PMCEID3, the AArch32 views of the top halves */
};

/* One access to one register. */
typedef struct pmvp_sysreg {
    uint8_t op;     /* enum pmvp_sysreg_op */
    uint8_t family; /* enum pmvp_sysreg_family */
    uint8_t reg;    /* enum pmvp_pmu_reg or enum pmvp_amu_reg */
    uint8_t n;      /* <n> of PMEVCNTR<n>, AMEVTYPER1<n> & co; 0 otherwise */
    uint8_t part;   /* enum pmvp_sysreg_part */
} pmvp_sysreg;

/* ------------------------------------------------------------------ decode */

/* MRS (write false) or MSR (write true) with encoding op0, op1, CRn, CRm, op2. */
int pmvp_sysreg_decode_a64(bool write, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                           pmvp_sysreg *out);
/* MRC (write false) or MCR (write true): coproc, opc1, CRn, CRm, opc2. */
int pmvp_sysreg_decode_a32(bool write, unsigned coproc, unsigned opc1, unsigned crn, unsigned crm, unsigned opc2,
                           pmvp_sysreg *out);
/* MRRC (write false) or MCRR (write true): coproc, opc1, CRm. */
int pmvp_sysreg_decode_a32_64(bool write, unsigned coproc, unsigned opc1, unsigned crm, pmvp_sysreg *out);
/* All three: PMVP_OK; PMVP_ERR_NULL; PMVP_ERR_VALUE if a field is wider than
 * its encoding; PMVP_ERR_REGISTER if the encoding is no PMU or AMU register
 * pmvp models. A decoded register may still be UNDEFINED in a configuration
 * (an unimplemented feature, an MSR to a read-only register): the check says. */

/* --------------------------------------------------------------- encodings */

/* Where <n> of an indexed register sits in its encoding. */
enum pmvp_sysreg_index {
    PMVP_SYSREG_NOT_INDEXED,
    PMVP_SYSREG_INDEX_CRM_OP2,  /* n = CRm<1:0>:op2<2:0>, 0..30 (PMU) */
    PMVP_SYSREG_INDEX_CRM0_OP2, /* n = CRm<0>:op2<2:0>, 0..15 (AMU) */
    PMVP_SYSREG_INDEX_CRM0_OPC1 /* MRRC/MCRR: n = CRm<0>:opc1<2:0>, 0..15 (AMU) */
};

/* One encoding: op0 is 0b11 for MRS/MSR (0b10 for the snapshot registers
 * of FEAT_PMUv3_SS), coproc (0b1111) for the AArch32 instructions (MRRC/MCRR
 * have no CRn or opc2: 0 here). For an indexed register the index bits of
 * crm and op2 (or op1) are zero. */
typedef struct pmvp_sysreg_encoding {
    const char *name;                /* AArch32 name; NULL: the AArch64 register's name */
    uint8_t family;                  /* enum pmvp_sysreg_family */
    uint8_t reg;                     /* enum pmvp_pmu_reg or enum pmvp_amu_reg */
    uint8_t part;                    /* enum pmvp_sysreg_part: the bits it moves */
    uint8_t index;                   /* enum pmvp_sysreg_index */
    uint8_t op0, op1, crn, crm, op2; /* op0: MRS/MSR's op0, or the AArch32 coproc */
    uint8_t gate;                    /* enum pmvp_gate: the feature the encoding needs beyond its
                          register's (PMCEID2/3: FEAT_PMUv3p1) */
} pmvp_sysreg_encoding;

/* The encodings of the instruction set of `op` (MRS/MSR, MRC/MCR or
 * MRRC/MCRR), *count of them; NULL for an unknown op. */
const pmvp_sysreg_encoding *pmvp_sysreg_encodings(enum pmvp_sysreg_op op, size_t *count);

/* The register's name as the instruction's state knows it: "PMCCNTR_EL0"
 * for MRS/MSR, "PMCCNTR" for MRC/MCR/MRRC/MCRR, "PMCEID2" for the top half
 * of PMCEID0_EL0, "PMOVSR" for PMOVSCLR_EL0. NULL for an invalid access. */
const char *pmvp_sysreg_name(const pmvp_sysreg *r);

/* ----------------------------------------------------------------- check */

/* The state an access is checked in. Register images hold the architectural
 * bit positions; an AArch32 register shares its AArch64 register's image
 * (HDCR as MDCR_EL2, HSTR as HSTR_EL2, HCPTR.TAM as CPTR_EL2.TAM, HCR as
 * HCR_EL2). The widths of EL1, EL2 and EL3 come from the configuration
 * (el1_aarch32, el2_aarch32, el3_aarch32); EL0's from the instruction. */
typedef struct pmvp_sysreg_context {
    uint8_t el;       /* PSTATE.EL */
    uint8_t security; /* enum pmvp_security */
    bool halted;      /* Halted(): the PE is in Debug state */
    bool edscr_sdd;   /* EDSCR.SDD */
    /* Registers of the PMU and the AMU (pmvp_sysreg_context_of fills them) */
    uint64_t pmuserenr; /* PMUSERENR_EL0: EN, SW, CR, ER, UEN, IR, TID */
    uint64_t pmuacr;    /* PMUACR_EL1 (FEAT_PMUv3p9): P<n>, C, F0 open to EL0 under UEN */
    uint64_t pmselr;    /* PMSELR_EL0.SEL, for PMXEVTYPER/PMXEVCNTR */
    uint64_t amuserenr; /* AMUSERENR_EL0.EN */
    uint64_t mdcr_el2;  /* MDCR_EL2 / HDCR: TPM, TPMCR, HPMN */
    uint64_t mdcr_el3;  /* MDCR_EL3.TPM, EnPM2 (an AArch32 EL3 has neither) */
    uint64_t pmccr;     /* PMCCR.EPMN (FEAT_PMUv3_EXTPMN): the counters self-hosted
                               software has; ignored without the feature */
    /* Controls of the higher Exception levels, supplied by the caller */
    uint64_t hcr_el2;      /* HCR_EL2 / HCR: TGE, E2H */
    uint64_t hstr_el2;     /* HSTR_EL2 / HSTR: T<n> */
    uint64_t cptr_el2;     /* CPTR_EL2 / HCPTR: TAM */
    uint64_t cptr_el3;     /* CPTR_EL3: TAM */
    uint64_t scr_el3;      /* SCR_EL3: EEL2, FGTEn, FGTEn2, AMVOFFEN */
    uint64_t hdfgrtr_el2;  /* FEAT_FGT: PMU read traps */
    uint64_t hdfgwtr_el2;  /* FEAT_FGT: PMU write traps */
    uint64_t hafgrtr_el2;  /* FEAT_FGT: AMU read traps */
    uint64_t hdfgrtr2_el2; /* FEAT_FGT2: read traps, each bit trapping when 0 */
    uint64_t hdfgwtr2_el2; /* FEAT_FGT2: write traps, each bit trapping when 0 */
} pmvp_sysreg_context;

/* Fills the PMU and AMU part of *x from PE `pe` of `core` (its context's EL
 * and Security state, PMUSERENR, PMSELR, AMUSERENR, MDCR_EL2, MDCR_EL3,
 * SCR_EL3 and HCR_EL2 from its controls) and zeroes the rest. PMVP_ERR_NULL,
 * PMVP_ERR_PE. */
int pmvp_sysreg_context_of(const pmvp_core *core, unsigned pe, pmvp_sysreg_context *x);

enum pmvp_sysreg_verdict { PMVP_SYSREG_PERMITTED, PMVP_SYSREG_UNDEFINED, PMVP_SYSREG_TRAP };

/* Exception classes of a trapped access (ESR_ELx.EC / HSR.EC). */
#define PMVP_EC_UNKNOWN 0x00   /* AArch32.TakeHypTrapException(0x00): EL0 access under HCR.TGE */
#define PMVP_EC_MCR_MRC 0x03   /* AArch32 MCR/MRC, coproc 0b1111 */
#define PMVP_EC_MCRR_MRRC 0x04 /* AArch32 MCRR/MRRC, coproc 0b1111 */
#define PMVP_EC_MSR_MRS 0x18   /* AArch64 MSR/MRS */

typedef struct pmvp_sysreg_outcome {
    uint8_t verdict;   /* enum pmvp_sysreg_verdict */
    uint8_t target_el; /* PMVP_SYSREG_TRAP: the Exception level taking it */
    uint8_t ec;        /* PMVP_SYSREG_TRAP: its exception class */
} pmvp_sysreg_outcome;

/* The architecture's decision for access *r in context *x. Pure: reads only
 * its arguments. CONSTRAINED UNPREDICTABLE cases (an event counter that is
 * not accessible, without FEAT_FGT) follow cfg->counter_access_unpredictable.
 * PMVP_ERR_NULL; PMVP_ERR_VALUE if the access or the context is impossible
 * in this configuration (an EL that is not implemented, an MRS at an EL using
 * AArch32, an MRC at an EL using AArch64, an EL0 in AArch64 under an AArch32
 * EL1, an unknown register or index). */
int pmvp_sysreg_check(const pmvp_core_config *cfg, const pmvp_sysreg *r, const pmvp_sysreg_context *x,
                      pmvp_sysreg_outcome *out);

/* ---------------------------------------------------------------- access */

/* The value a permitted read returns: bits [31:0] for MRC, the whole register
 * for MRS/MRRC, in the view of the context's Exception level. No side effect
 * but those of the inaccuracy knob (c), when it is on.
 * PMVP_ERR_WRITE_ONLY (PMSWINC), PMVP_ERR_VALUE (an access the check refuses
 * as impossible), and the kernel's errors (PMVP_ERR_PAST, PMVP_ERR_PE, ...). */
int pmvp_sysreg_read(pmvp_core *core, unsigned pe, const pmvp_sysreg *r, const pmvp_sysreg_context *x, pmvp_time now,
                     uint64_t *value);

/* The read as a pure query (as pmvp_pmu_peek, pmu.h): the value it would
 * return at `t` (at or after the core's present) if no input came before
 * it, with no delay of the inaccuracy knob (c); the core is left as it is.
 * Errors as for pmvp_sysreg_read. */
int pmvp_sysreg_peek(const pmvp_core *core, unsigned pe, const pmvp_sysreg *r, const pmvp_sysreg_context *x,
                     pmvp_time t, uint64_t *value);

/* A permitted write of `value` (bits [31:0] for MCR). PMVP_ERR_READ_ONLY
 * for a read-only register, otherwise as pmvp_sysreg_read. */
int pmvp_sysreg_write(pmvp_core *core, unsigned pe, const pmvp_sysreg *r, const pmvp_sysreg_context *x, uint64_t value,
                      pmvp_time now);

/* ------------------------------------------------- one call for an ISS */

/* What an instruction-set simulator does with an MRS or MSR: decode, check
 * and access in one call, with the syndrome of the exception a refused
 * access takes.
 *
 * `higher` holds the controls of the higher Exception levels and Debug state
 * (hcr_el2, hstr_el2, cptr_el2/el3, scr_el3, the FEAT_FGT registers, halted,
 * edscr_sdd; NULL: all zero); its PMU and AMU fields and SCR_EL3.EEL2 are
 * ignored and taken from PE `pe` of the core (pmvp_pmu_controls), as are the
 * Exception level and Security state.
 * `value` is the value an MSR writes, or gets the value an MRS reads.
 *
 * Returns PMVP_OK with out->verdict:
 * - PERMITTED: the access was made (*value read, or written);
 * - UNDEFINED: nothing changed; out->esr is the syndrome of the UNDEFINED
 *   exception (EC 0x00, IL 1) taken to EL1, or to EL2 when HCR_EL2.TGE
 *   routes EL0's exceptions there (out->target_el);
 * - TRAP: nothing changed; out->esr is the syndrome of the trap (EC 0x18,
 *   IL 1, ISS Op0, Op2, Op1, CRn, Rt, CRm, Direction) taken to
 *   out->target_el.
 * PMVP_ERR_REGISTER if the encoding is no PMU or AMU register pmvp models
 * (the ISS executes it as its own); PMVP_ERR_NULL, PMVP_ERR_VALUE (a field
 * wider than its encoding, rt > 31, a context the configuration cannot be
 * in), and the kernel's errors (PMVP_ERR_PAST, PMVP_ERR_PE, PMVP_ERR_PE_OFF).
 * A call that fails changes nothing. */
typedef struct pmvp_sysreg_execution {
    uint8_t verdict;   /* enum pmvp_sysreg_verdict */
    uint8_t target_el; /* UNDEFINED or TRAP: the Exception level taking the exception */
    uint64_t esr;      /* UNDEFINED or TRAP: ESR_ELx of that exception */
} pmvp_sysreg_execution;

/* An MRS or MSR instruction, as an ISS decodes it: its direction, its
 * encoding <op0, op1, CRn, CRm, op2> and its transfer register X<rt> (for
 * the syndrome). */
typedef struct pmvp_sysreg_a64 {
    bool write; /* MSR */
    unsigned op0, op1, crn, crm, op2, rt;
} pmvp_sysreg_a64;

int pmvp_sysreg_execute(pmvp_core *core, unsigned pe, const pmvp_sysreg_a64 *insn, const pmvp_sysreg_context *higher,
                        pmvp_time now, uint64_t *value, pmvp_sysreg_execution *out);

/* An MRS as a pure query: as pmvp_sysreg_execute, at `t` (at or after the
 * core's present), with no delay of the inaccuracy knob (c); the core is
 * left as it is. PMVP_ERR_VALUE for an MSR (insn->write). */
int pmvp_sysreg_peek_execute(const pmvp_core *core, unsigned pe, const pmvp_sysreg_a64 *insn,
                             const pmvp_sysreg_context *higher, pmvp_time t, uint64_t *value,
                             pmvp_sysreg_execution *out);

/* A caller's memory of its last decision: the decision on an MRS or MSR is
 * a pure function of the instruction's encoding and of the context, so the
 * _memo forms of the two calls above, given the same memo, take the answer
 * of an access with the same encoding in the same context again instead of
 * deciding anew (a guest reading a counter in a loop). Zero it before its
 * first use; use it with one core (its configuration decides too), and zero
 * it again when that core is initialised or restored anew. */
typedef struct pmvp_sysreg_memo {
    bool valid;
    bool write;
    uint8_t op0, op1, crn, crm, op2;
    pmvp_sysreg r;
    pmvp_sysreg_context x;
    pmvp_sysreg_outcome o;
} pmvp_sysreg_memo;

int pmvp_sysreg_execute_memo(pmvp_core *core, unsigned pe, const pmvp_sysreg_a64 *insn,
                             const pmvp_sysreg_context *higher, pmvp_time now, uint64_t *value,
                             pmvp_sysreg_execution *out, pmvp_sysreg_memo *memo);
int pmvp_sysreg_peek_execute_memo(const pmvp_core *core, unsigned pe, const pmvp_sysreg_a64 *insn,
                                  const pmvp_sysreg_context *higher, pmvp_time t, uint64_t *value,
                                  pmvp_sysreg_execution *out, pmvp_sysreg_memo *memo);

/* The same two with the instruction's fields as arguments. */
int pmvp_sysreg_execute_a64(pmvp_core *core, unsigned pe, bool write, unsigned op0, unsigned op1, unsigned crn,
                            unsigned crm, unsigned op2, unsigned rt, const pmvp_sysreg_context *higher, pmvp_time now,
                            uint64_t *value, pmvp_sysreg_execution *out);
int pmvp_sysreg_peek_a64(const pmvp_core *core, unsigned pe, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                         unsigned op2, unsigned rt, const pmvp_sysreg_context *higher, pmvp_time t, uint64_t *value,
                         pmvp_sysreg_execution *out);

/* The syndrome ESR_ELx of an MSR/MRS trapped with EC 0x18 (ISS encoding for
 * exceptions from MSR, MRS or System instruction execution). */
uint64_t pmvp_sysreg_trap_esr(bool write, unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2,
                              unsigned rt);

/* ------------------------------------------------------ ID registers */

/* The fields of an AArch64 ID register that the monitors' configuration
 * decides, for an ISS to merge into the rest of its CPU's value:
 * (cpu_value & ~*mask) | *fields.
 *   ID_AA64PFR0_EL1 (3,0,0,4,0): EL0, EL1, EL2, EL3 [15:0], SEL2 [39:36],
 *                                AMU [47:44], RME [55:52]
 *   ID_AA64DFR0_EL1 (3,0,0,5,0): DebugVer [3:0], PMUVer [11:8], SEBEP [27:24],
 *                                MTPMU [51:48], HPMN0 [63:60]
 *   ID_AA64DFR1_EL1 (3,0,0,5,1): EBEP [51:48]
 *   ID_PFR0_EL1     (3,0,0,1,0): AMU [23:20]
 *   ID_DFR0_EL1     (3,0,0,1,2): PerfMon [27:24]
 *   ID_DFR1_EL1     (3,0,0,3,5): MTPMU [7:4], HPMN0 [11:8]
 * PMVP_ERR_REGISTER for any other encoding; PMVP_ERR_NULL. */
int pmvp_id_fields_a64(const pmvp_core_config *cfg, unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                       unsigned op2, uint64_t *fields, uint64_t *mask);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
