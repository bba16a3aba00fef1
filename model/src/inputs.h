/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The inputs: the top floor of the kernel (CONTRIBUTING.md, "The floors"):
 * what a CPU model drives (core.c: configuration, clocks, PE states,
 * context, controls, reports and levels; ebep.c: retirement with
 * exception-based profiling) and checkpoint.c. They stand on the register
 * files and the engine; what they share among themselves is here.
 */
#ifndef PMVP_INPUTS_H
#define PMVP_INPUTS_H

#include "regfile.h"

/* Counts `count` occurrences of `event` that an instruction of PE `pe`
 * generated as it retired: pmvp_core_report without knob (d); *counting
 * gets the event counters of `pe` that count it. */
int k_count_retired(pmvp_core *c, unsigned pe, uint16_t event, uint64_t count, pmvp_time now, uint32_t *counting);

#endif
