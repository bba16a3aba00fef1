/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The external (memory-mapped) register frames of a PE: one 4 KiB PMU frame
 * (I3, I5.2, I5.3) and one 4 KiB AMU frame (I4, I5.4, I5.5), each in the
 * EXT32 or EXT64 layout chosen by the core's configuration. Every register
 * is described once, by its PMVP_REG_EXT rows in registers.def (beside the
 * System register it views, if any); decoding, access checks,
 * introspection and dumps are driven by them.
 *
 * Accesses are little-endian, 4 or 8 bytes, naturally aligned:
 * - a 4-byte access reads or writes a 32-bit register, or one half of a
 *   64-bit register; a write to one half leaves the other alone;
 * - an 8-byte access reads or writes a 64-bit register (in either layout),
 *   or two reserved words;
 * - any other size, a misaligned access, or an 8-byte access that would
 *   cover a 32-bit register fails with PMVP_ERR_SIZE.
 *
 * Outcomes of an access inside the frame (`effect`, when not NULL, says which):
 * - PMVP_EXT_DONE: the register was read or written.
 * - PMVP_EXT_RAZ_WI: a reserved offset, a register this configuration does
 *   not implement, an event counter n >= N, or an AMU frame whose Core power
 *   domain is off (I4.1.3): reads 0, writes ignored.
 * - PMVP_EXT_IGNORED: a write to a read-only register (the whole AMU frame
 *   is read-only, I5.4), or a memory-mapped write under the Software Lock.
 * - An error response, as I3.1.4 tables I3-1 and I3-2 say, for PMU registers
 *   in the Core power domain: PMVP_ERR_PE_OFF (the PE is off),
 *   PMVP_ERR_LOCKED (OS Double Lock, or OS Lock), PMVP_ERR_DENIED
 *   (AllowExternalPMUAccess() is FALSE). The CoreSight management registers
 *   (0xFA8-0xFFC) fail only with FEAT_DoPD while the PE is off.
 * Argument errors: PMVP_ERR_NULL, PMVP_ERR_PE, PMVP_ERR_PAST, PMVP_ERR_VALUE
 * (unknown frame or access security), PMVP_ERR_ADDRESS (offset >= 4 KiB, or
 * an AMU frame without FEAT_AMUv1). A failed access changes nothing.
 *
 * Not modelled, so their offsets are RAZ/WI: PC sampling (PMPCSR & co),
 * PMEVFILT2R<n> (OPTIONAL, IMPLEMENTATION DEFINED), AMSCR/AMROOTCR
 * (FEAT_AMU_EXTACR). PMCCR (FEAT_PMUv3_EXTPMN, 0xE58) is RW to a Most
 * secure access only, RAZ/WI to the others, which also see the third
 * range's registers and bits RAZ/WI (Table I3-3). The EXT32 top halves at
 * 0xA00 are there with FEAT_PMUv3_TH or FEAT_PMUv3p9 (which implies
 * FEAT_PMUv3p8); SME's (FEAT_PMUv3_SME) are not modelled.
 */
#ifndef PMVP_EXT_H
#define PMVP_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmvp/core.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library exports these declarations and hides everything else (it is
 * built with hidden visibility: model/CMakeLists.txt). */
#pragma GCC visibility push(default)

#define PMVP_FRAME_SIZE 4096u

/* PMVP_NUM_FRAMES is not a frame (a call given it returns PMVP_ERR_VALUE):
 * it makes every value below it one of the type's, in C++ too. */
enum pmvp_frame { PMVP_FRAME_PMU, PMVP_FRAME_AMU, PMVP_NUM_FRAMES };

/* The bus attributes of an external access. */
typedef struct pmvp_ext_access {
    uint8_t security; /* enum pmvp_security of the access */
    bool debugger;    /* through the external debug interface rather than a
                          memory-mapped access: the Software Lock does not apply */
} pmvp_ext_access;

enum pmvp_ext_effect { PMVP_EXT_DONE, PMVP_EXT_RAZ_WI, PMVP_EXT_IGNORED };

/* Access kinds of the table. */
enum pmvp_ext_kind {
    PMVP_EXT_RW,
    PMVP_EXT_RO,
    PMVP_EXT_WO,
    PMVP_EXT_W1S, /* reads the state; writing 1 sets a bit */
    PMVP_EXT_W1C  /* reads the state; writing 1 clears a bit */
};

/* Which access checks apply (I3.1.4, I4.1.3). */
enum pmvp_ext_domain {
    PMVP_EXT_CORE,       /* PMU, Core power domain: Off, DLK, OSLK, EPMAD errors; SLK */
    PMVP_EXT_MGMT,       /* CoreSight management: error only with FEAT_DoPD while off */
    PMVP_EXT_AMU,        /* read-only; RAZ while off unless the AMU domain is always on */
    PMVP_EXT_SNAPSHOT,   /* PMU snapshot registers: as CORE, but the OS Lock does not
                          affect them (D13.9, IKGJMV) */
    PMVP_EXT_MOST_SECURE /* PMCCR: Off and DLK errors; RAZ/WI to an access that is
                            not Most secure (I5.3.47) */
};

#define PMVP_EXT_LAYOUT_BIT(l) (1u << (l))

/* One row of the register table. */
typedef struct pmvp_ext_reg {
    const char *name; /* as the Arm ARM names it: "PMEVCNTR<n>_EL0" */
    uint8_t frame;    /* enum pmvp_frame */
    uint8_t layouts;  /* PMVP_EXT_LAYOUT_BIT()s of the layouts it is in */
    uint16_t offset;  /* of instance 0 */
    uint8_t stride;   /* bytes between instances <n>; 0 if not indexed */
    uint8_t slots;    /* instances the layout reserves space for */
    uint8_t width;    /* 32 or 64; 0: 32 in EXT32 and 64 in EXT64 */
    uint8_t half;     /* 1: this 32-bit register is bits [63:32] of its view */
    uint8_t kind;     /* enum pmvp_ext_kind */
    uint8_t domain;   /* enum pmvp_ext_domain */
    uint8_t gate;     /* enum pmvp_gate: the feature it needs beyond its layout */
    bool derived;     /* its value follows from the configuration and other
                              registers; `reset` does not apply */
    uint64_t reset;   /* value after a PMU/AMU reset (UNKNOWN values are 0) */
    uint64_t wmask;   /* bits the view can write; the configuration may
                              implement fewer (unimplemented counters, features) */
    uint8_t view;     /* internal: the state the register shows */
    uint8_t arg;      /* internal: which part of it */
} pmvp_ext_reg;

/* The table, every row of both frames and both layouts. */
size_t pmvp_ext_reg_count(void);
const pmvp_ext_reg *pmvp_ext_reg_at(size_t i);

/* Whether row `r` is in `core`'s frames (layout and feature gate), its width
 * there, and how many of its instances are implemented (the rest are RAZ/WI). */
bool pmvp_ext_reg_present(const pmvp_core *core, const pmvp_ext_reg *r);
unsigned pmvp_ext_reg_width(const pmvp_core *core, const pmvp_ext_reg *r);
unsigned pmvp_ext_reg_instances(const pmvp_core *core, const pmvp_ext_reg *r);

/* The register at `offset` of frame `f` in `core`'s configuration, with its
 * instance and the 32-bit word of it the offset falls in (0 or 1); NULL for
 * a reserved offset. */
const pmvp_ext_reg *pmvp_ext_decode(const pmvp_core *core, enum pmvp_frame f, uint32_t offset, unsigned *n,
                                    unsigned *word);

/* The offset of instance `n` of the register named `name` ("PMCCNTR_EL0",
 * "PMEVCNTR<n>_EL0") in frame `f`. PMVP_ERR_REGISTER if there is none in
 * this configuration, PMVP_ERR_COUNTER if n is not one of its slots. */
int pmvp_ext_find(const pmvp_core *core, enum pmvp_frame f, const char *name, unsigned n, uint32_t *offset);

/* A guest or debugger access of `size` bytes at `offset` of PE `pe`'s frame
 * `f`, at `now`, with the outcomes described above. */
int pmvp_ext_read(pmvp_core *core, unsigned pe, enum pmvp_frame f, uint32_t offset, unsigned size,
                  const pmvp_ext_access *access, pmvp_time now, uint64_t *value, enum pmvp_ext_effect *effect);
int pmvp_ext_write(pmvp_core *core, unsigned pe, enum pmvp_frame f, uint32_t offset, unsigned size, uint64_t value,
                   const pmvp_ext_access *access, pmvp_time now, enum pmvp_ext_effect *effect);
/* The guest's read as a pure query (as pmvp_pmu_peek, pmu.h): the value
 * and effect pmvp_ext_read would give at `t` (at or after the core's
 * present) if no input came before it, with the same access checks and
 * errors, but no delay of the inaccuracy knob (c); the core is left as it
 * is, its present included. */
int pmvp_ext_peek(const pmvp_core *core, unsigned pe, enum pmvp_frame f, uint32_t offset, unsigned size,
                  const pmvp_ext_access *access, pmvp_time t, uint64_t *value, enum pmvp_ext_effect *effect);

/* The debug path (a debugger's backdoor, TLM transport_dbg): no power, lock
 * or authentication check applies, and the access changes nothing but the
 * addressed register's value: writes to write-only registers (PMSWINC,
 * PMZR, PMLAR) and to PMCR_EL0.{P,C} do nothing, and read-only registers (the
 * whole AMU frame included) stay read-only. A debug read is a pure query:
 * it shows the value at `now` (at or after the core's latest call) and
 * leaves the core as it was, its present included, with no delay of the
 * inaccuracy knob (c) and no effect on what the guest's reads show. A debug
 * write is an input at `now` like any other (the core's present moves
 * there); one that enables or disables a counter is a boundary of knob (b).
 * Same sizes and argument errors as above. */
int pmvp_ext_debug_read(const pmvp_core *core, unsigned pe, enum pmvp_frame f, uint32_t offset, unsigned size,
                        pmvp_time now, uint64_t *value);
int pmvp_ext_debug_write(pmvp_core *core, unsigned pe, enum pmvp_frame f, uint32_t offset, unsigned size,
                         uint64_t value, pmvp_time now);

/* Calls `fn` for every implemented register instance of PE `pe`'s frame `f`,
 * in offset order, with its value read through the debug path at `now`. */
typedef void (*pmvp_ext_dump_fn)(void *user, const pmvp_ext_reg *r, unsigned n, uint32_t offset, uint64_t value);
int pmvp_ext_dump(const pmvp_core *core, unsigned pe, enum pmvp_frame f, pmvp_time now, pmvp_ext_dump_fn fn,
                  void *user);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
