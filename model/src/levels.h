/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The catalogue's tables for the kernel (ground floor, events.c): the
 * level events (CONDITION, STALL, PER_CYCLE) by dense index, and the lookup
 * from an event's number to its index, inline for the level inputs' path
 * (pmvp_core_set_level), which takes it on every call; and what a core's
 * default set of events is made from (pmvp_core_init), without a walk of the
 * whole catalogue per core.
 */
#ifndef PMVP_LEVELS_H
#define PMVP_LEVELS_H

#include <stddef.h>
#include <stdint.h>

/* The level events, by index (pmvp_event_level_index). */
extern const uint16_t k_level_events[];

/* A level event's index in one probe rather than a search: slot
 * K_LEVEL_HASH(number) holds 1 + the index of the level event of that
 * number, 0 if none. The hash (the top 7 bits of the 16-bit product with
 * an odd multiplier) is collision-free for the catalogue's level events. */
#define K_LEVEL_SLOTS 128
#define K_LEVEL_HASH(num) ((uint16_t)((num)*461u) >> 9)
extern const uint8_t k_level_slot[K_LEVEL_SLOTS];

/* The index of level event `number`, or -1 if it is not one. */
static inline int k_level_index(uint16_t number)
{
    int i = k_level_slot[K_LEVEL_HASH(number)] - 1;
    return i >= 0 && k_level_events[i] == number ? i : -1;
}

/* The number of catalogue events numbered `number` or below: the catalogue
 * is sorted by number, so they are its indexes 0 to the result - 1. */
size_t k_events_up_to(uint16_t number);

/* The events of class PMU_OVERFLOW, which the AMU counts and a PMU does not
 * (D16.2). */
extern const uint16_t k_amu_only_events[];
extern const size_t k_num_amu_only_events;

#endif
