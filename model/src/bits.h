/* SPDX-License-Identifier: Apache-2.0 */
/* Internal: what the hot paths ask of the compiler. Walking a mask of
 * counters, lowest first (the order CHAIN needs: a counter takes the carries
 * of the one below it), one step per set bit, not per position: inputs and
 * syncs walk these masks on every call. And keeping a rare path out of line,
 * so that the common path it branches from saves no registers for it. */
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

/* The index of the highest set bit of *m (*m != 0), which it clears. */
static inline unsigned pmvp_take_highest(uint32_t *m)
{
    unsigned n = 31u - (unsigned)__builtin_clz(*m);
    *m &= ~(UINT32_C(1) << n);
    return n;
}

/* A function called on a rare path (GCC and Clang). */
#define PMVP_COLD __attribute__((cold, noinline))

/* A step of a hot path that several paths share, made part of each: its
 * call would cost as much as its work. */
#define PMVP_INLINE inline __attribute__((always_inline))

/* A function kept out of a hot path's frame: its own is large. */
#define PMVP_OUT_OF_LINE __attribute__((noinline))

#endif
