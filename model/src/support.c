/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine's ground floor: which events this configuration supports and
 * how a counter counts each (its class and level), the AMU's architected
 * events (D16.3.1), and the log of guest-visible oddities. Every other
 * kernel file may ask it; it asks none of them.
 */
#include "support.h"

void k_log(const pmvp_core *c, unsigned pe, const char *msg)
{
    if (c->cfg.log)
        c->cfg.log(c->cfg.log_user, pe, msg);
}

int k_supported_class(const pmvp_core *c, uint16_t number)
{
    int i = pmvp_event_index(number);
    if (i >= 0)
        return k_bit(c->supported, i) ? (int)pmvp_event_at((size_t)i)->cls : -1;
    for (unsigned k = 0; k < c->num_impdef_events; k++)
        if (c->impdef_event[k] == number)
            return PMVP_EVCLASS_OCCURRENCE;
    return -1;
}

bool k_event_synchronous(const pmvp_core *c, uint16_t number)
{
    int i = pmvp_event_index(number);
    return c->cfg.feat_sebep && i >= 0 && k_bit(c->synchronous, i);
}

int k_reportable_class(const pmvp_core *c, uint16_t number)
{
    int cls = k_supported_class(c, number);
    if (cls < 0 && c->cfg.feat_amuv1 && k_amu_architected_index(number) >= 0)
        cls = (int)pmvp_event_find(number)->cls;
    return cls;
}

pmvp_event_decoded k_decode_event(const pmvp_core *c, uint16_t number, bool amu)
{
    int cls = amu ? k_reportable_class(c, number) : k_supported_class(c, number);
    int level = pmvp_event_level_index(number);
    pmvp_event_decoded d = { (int8_t)cls, (uint8_t)(level < 0 ? 0 : level), 0 };
    if (cls == PMVP_EVCLASS_STALL)
        d.stall = (uint8_t)pmvp_event_level_index(pmvp_event_find(number)->stall);
    return d;
}

/* AMEVTYPER0<n>.evtCount: the architected events, by counter (D16.3.1). */
static const uint16_t architected_event[PMVP_AMU_ARCH_COUNTERS] = { PMVP_EV_CPU_CYCLES, PMVP_EV_CNT_CYCLES,
                                                                    PMVP_EV_INST_RETIRED, PMVP_EV_STALL_BACKEND_MEM };

uint16_t k_amu_architected_event(unsigned n)
{
    return architected_event[n];
}

int k_amu_architected_index(uint16_t event)
{
    for (int n = 0; n < PMVP_AMU_ARCH_COUNTERS; n++)
        if (architected_event[n] == event)
            return n;
    return -1;
}

bool k_amu_can_count(const pmvp_core *c, uint16_t event)
{
    switch (k_reportable_class(c, event)) {
    case PMVP_EVCLASS_OCCURRENCE:
    case PMVP_EVCLASS_CPU_CYCLES:
    case PMVP_EVCLASS_CONDITION:
    case PMVP_EVCLASS_STALL:
    case PMVP_EVCLASS_PER_CYCLE:
    case PMVP_EVCLASS_BUS_CLOCK:
    case PMVP_EVCLASS_SYSTEM_COUNTER: return true;
    default: return false;
    }
}
