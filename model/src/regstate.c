/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The state of the registers that hold a value, from their PMVP_REG_STATE
 * lines in registers.def: where each keeps it, what a write stores and what
 * a reset leaves. The register files add what a write does beyond storing.
 */
#include "regfile.h"
#include "pmvp/sysreg.h"

/* One case label per register of either family. */
#define KEY(family, reg) ((unsigned)(family) * (unsigned)K_FAMILY_REGS + (unsigned)(reg))

/* A write's bits `v` (already masked by the register's writable bits). */
#define K_STORE_VALUE(state, v) ((state) = (v))
#define K_STORE_SET(state, v) ((state) |= (v))
#define K_STORE_CLEAR(state, v) ((state) &= ~(v))

bool k_state_read(const pmvp_pe *pe, unsigned family, unsigned reg, unsigned n, uint64_t *value)
{
    (void)n; /* only the indexed registers' lines name it */
    switch (KEY(family, reg)) {
#define PMVP_REG_STATE(fam, id, kind, state, writable, reset) \
    case KEY(PMVP_SYSREG_##fam, PMVP_##id):                   \
        *value = (state);                                     \
        return true;
#include "pmvp/registers.def"
    default: return false;
    }
}

bool k_state_write(const pmvp_core *c, pmvp_pe *pe, unsigned family, unsigned reg, unsigned n, uint64_t value)
{
    (void)n;
    switch (KEY(family, reg)) {
#define PMVP_REG_STATE(fam, id, kind, state, writable, reset) \
    case KEY(PMVP_SYSREG_##fam, PMVP_##id):                   \
        K_STORE_##kind(state, value &(writable));             \
        return true;
#include "pmvp/registers.def"
    default: return false;
    }
}

void k_state_reset(const pmvp_core *c, pmvp_pe *pe, unsigned family)
{
#define PMVP_REG_STATE(fam, id, kind, state, writable, reset)                                                      \
    if (PMVP_SYSREG_##fam == family && K_OWNS_##kind)                                                              \
        for (unsigned n = 0, end = k_reg_instances(&c->cfg, k_reg_of(PMVP_SYSREG_##fam, PMVP_##id)); n < end; n++) \
            (state) = (reset);
#include "pmvp/registers.def"
}
