/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine's ground (support.c): which events this configuration
 * supports and how a counter counts each, the AMU's architected events, and
 * the log of guest-visible oddities. It reads the configuration and the
 * state's bitmaps of pmvp_core and asks no other file of the engine;
 * count.h, the rest of the engine, stands on it.
 */
#ifndef PMVP_SUPPORT_H
#define PMVP_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "pmvp/amu.h"
#include "pmvp/core.h"
#include "pmvp/events.h"

/* Bit i of a bitmap of catalogue indexes (pmvp_core.supported, .synchronous). */
static inline bool k_bit(const uint64_t *bits, int i)
{
    return bits[i / 64] >> (i % 64) & 1;
}
static inline void k_set_bit(uint64_t *bits, int i)
{
    bits[i / 64] |= UINT64_C(1) << (i % 64);
}

/* Reports a guest-visible oddity through the configured callback. */
void k_log(const pmvp_core *c, unsigned pe, const char *msg);

/* The class of event `number` if this configuration supports it, else -1. */
int k_supported_class(const pmvp_core *c, uint16_t number);

/* Whether event `number` is synchronous in this configuration (RXLMVX). */
bool k_event_synchronous(const pmvp_core *c, uint16_t number);

/* The class of event `number` as the CPU model may report it: supported by
 * the PMU, or one of the AMU's architected events when the AMU exists. */
int k_reportable_class(const pmvp_core *c, uint16_t number);

/* Event `number` as a PMU counter (amu false) or an AMU counter of this
 * configuration counts it. */
pmvp_event_decoded k_decode_event(const pmvp_core *c, uint16_t number, bool amu);

/* The event of AMU architected counter n (AMEVTYPER0<n>), and
 * which architected counter counts `event`, or -1 (D16.3.1). */
uint16_t k_amu_architected_event(unsigned n);
int k_amu_architected_index(uint16_t event);
/* Whether an AMU auxiliary counter can count `event` in this configuration. */
bool k_amu_can_count(const pmvp_core *c, uint16_t event);

#endif
