/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: walking a mask of counters, lowest first (the order CHAIN needs:
 * a counter takes the carries of the one below it). One step per set bit,
 * not per position: inputs and syncs walk these masks on every call. */
#ifndef PMVP_BITS_H
#define PMVP_BITS_H

#include <stdint.h>

/* The index of the lowest set bit of *m (*m != 0), which it clears. */
static inline unsigned pmvp_take_lowest(uint32_t *m)
{
    unsigned n = (unsigned)__builtin_ctz(*m);
    *m &= *m - 1;
    return n;
}

#endif
