/* SPDX-License-Identifier: Apache-2.0 */
#include "pmvp/events.h"

#include "levels.h"

#include <string.h>

/* The stall column of a non-STALL event is not used. */
#define PMVP_EV_NONE 0

static const pmvp_event_info catalogue[] = {
#define PMVP_EVENT(num, name, cls, stall) { num, #name, PMVP_EVCLASS_##cls, PMVP_EV_##stall },
#include "pmu_events.def"
#undef PMVP_EVENT
};

/* The event classes reported as levels (D14.4.1: each cycle it holds): an
 * X-macro helper that keeps its arguments for those classes only. */
#define PMVP_IF_LEVEL_CONDITION(...) __VA_ARGS__
#define PMVP_IF_LEVEL_STALL(...) __VA_ARGS__
#define PMVP_IF_LEVEL_PER_CYCLE(...) __VA_ARGS__
#define PMVP_IF_LEVEL_OCCURRENCE(...)
#define PMVP_IF_LEVEL_CPU_CYCLES(...)
#define PMVP_IF_LEVEL_BUS_CLOCK(...)
#define PMVP_IF_LEVEL_SYSTEM_COUNTER(...)
#define PMVP_IF_LEVEL_SOFTWARE_INCREMENT(...)
#define PMVP_IF_LEVEL_CHAIN(...)
#define PMVP_IF_LEVEL_PMU_OVERFLOW(...)

/* Level-reported events get a dense index so that per-PE levels are a small
 * array rather than a map. */
const uint16_t k_level_events[] = {
#define PMVP_EVENT(num, name, cls, stall) PMVP_IF_LEVEL_##cls(num, )
#include "pmu_events.def"
#undef PMVP_EVENT
};

#define PMVP_IF_AMU_ONLY_PMU_OVERFLOW(...) __VA_ARGS__
#define PMVP_IF_AMU_ONLY_OCCURRENCE(...)
#define PMVP_IF_AMU_ONLY_CPU_CYCLES(...)
#define PMVP_IF_AMU_ONLY_CONDITION(...)
#define PMVP_IF_AMU_ONLY_STALL(...)
#define PMVP_IF_AMU_ONLY_PER_CYCLE(...)
#define PMVP_IF_AMU_ONLY_BUS_CLOCK(...)
#define PMVP_IF_AMU_ONLY_SYSTEM_COUNTER(...)
#define PMVP_IF_AMU_ONLY_SOFTWARE_INCREMENT(...)
#define PMVP_IF_AMU_ONLY_CHAIN(...)

const uint16_t k_amu_only_events[] = {
#define PMVP_EVENT(num, name, cls, stall) PMVP_IF_AMU_ONLY_##cls(num, )
#include "pmu_events.def"
#undef PMVP_EVENT
};
const size_t k_num_amu_only_events = sizeof k_amu_only_events / sizeof k_amu_only_events[0];

enum level_position {
#define PMVP_EVENT(num, name, cls, stall) PMVP_IF_LEVEL_##cls(LEVEL_POSITION_##name, )
#include "pmu_events.def"
#undef PMVP_EVENT
};

/* k_level_slot (levels.h): a level event that collides with another sets
 * a slot twice, which the build refuses (-Werror=override-init); another
 * odd multiplier of K_LEVEL_HASH is then needed. */
const uint8_t k_level_slot[K_LEVEL_SLOTS] = {
#define PMVP_EVENT(num, name, cls, stall) PMVP_IF_LEVEL_##cls([K_LEVEL_HASH(num)] = LEVEL_POSITION_##name + 1, )
#include "pmu_events.def"
#undef PMVP_EVENT
};

typedef struct sync_event {
    uint16_t number;
    uint8_t kind; /* enum pmvp_sync_kind */
} sync_event;

static const sync_event sync_events[] = {
#define PMVP_SYNC_EVENT(num, name, kind) { num, PMVP_SYNC_##kind },
#include "sync_events.def"
#undef PMVP_SYNC_EVENT
};

static const char *const class_names[] = {
    [PMVP_EVCLASS_OCCURRENCE] = "OCCURRENCE",
    [PMVP_EVCLASS_CPU_CYCLES] = "CPU_CYCLES",
    [PMVP_EVCLASS_CONDITION] = "CONDITION",
    [PMVP_EVCLASS_STALL] = "STALL",
    [PMVP_EVCLASS_PER_CYCLE] = "PER_CYCLE",
    [PMVP_EVCLASS_BUS_CLOCK] = "BUS_CLOCK",
    [PMVP_EVCLASS_SYSTEM_COUNTER] = "SYSTEM_COUNTER",
    [PMVP_EVCLASS_SOFTWARE_INCREMENT] = "SOFTWARE_INCREMENT",
    [PMVP_EVCLASS_CHAIN] = "CHAIN",
    [PMVP_EVCLASS_PMU_OVERFLOW] = "PMU_OVERFLOW",
};

const char *pmvp_event_class_name(enum pmvp_event_class cls)
{
    return (unsigned)cls < sizeof class_names / sizeof class_names[0] ? class_names[cls] : NULL;
}

size_t pmvp_event_count(void)
{
    return sizeof catalogue / sizeof catalogue[0];
}

const pmvp_event_info *pmvp_event_at(size_t i)
{
    return i < pmvp_event_count() ? &catalogue[i] : NULL;
}

#define KEY(keys, stride, i) (*(const uint16_t *)((const char *)(keys) + (i) * (stride)))

/* Among n sorted keys `stride` bytes apart (n > 0), the position of the
 * last key not above `number`, or 0 when every key is above it: found in
 * log2(n) halvings without a branch on the keys (a conditional move each):
 * level inputs look their event up on every call, and a mispredicted
 * branch per halving cost more than the compares. */
static size_t last_not_above(const uint16_t *keys, size_t stride, size_t n, uint16_t number)
{
    size_t lo = 0;
    while (n > 1) {
        size_t half = n / 2;
        lo += KEY(keys, stride, lo + half) <= number ? half : 0;
        n -= half;
    }
    return lo;
}

/* The index of `number` among n sorted keys `stride` bytes apart, or -1. */
static int search(const uint16_t *keys, size_t stride, size_t n, uint16_t number)
{
    if (n == 0)
        return -1;
    size_t i = last_not_above(keys, stride, n, number);
    return KEY(keys, stride, i) == number ? (int)i : -1;
}

size_t k_events_up_to(uint16_t number)
{
    size_t i = last_not_above(&catalogue[0].number, sizeof catalogue[0], pmvp_event_count(), number);
    return KEY(&catalogue[0].number, sizeof catalogue[0], i) <= number ? i + 1 : 0;
}

int pmvp_event_index(uint16_t number)
{
    return search(&catalogue[0].number, sizeof catalogue[0], pmvp_event_count(), number);
}

enum pmvp_sync_kind pmvp_event_sync_kind(uint16_t number)
{
    int i = search(&sync_events[0].number, sizeof sync_events[0], sizeof sync_events / sizeof sync_events[0], number);
    return i < 0 ? PMVP_SYNC_NONE : (enum pmvp_sync_kind)sync_events[i].kind;
}

const pmvp_event_info *pmvp_event_find(uint16_t number)
{
    int i = pmvp_event_index(number);
    return i < 0 ? NULL : &catalogue[i];
}

bool pmvp_event_exceptional(uint16_t number)
{
    const pmvp_event_info *e = pmvp_event_find(number);
    return e && strncmp(e->name, "EXC_", 4) == 0;
}

int pmvp_event_level_count(void)
{
    return (int)(sizeof k_level_events / sizeof k_level_events[0]);
}

int pmvp_event_level_index(uint16_t number)
{
    return k_level_index(number);
}
