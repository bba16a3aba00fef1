/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmvp-regref: prints docs/REGISTERS.md, the register and event reference,
 * from the model's own tables: the register catalogue (catalogue.h), the
 * System-register encodings (sysreg.h), the external frames (ext.h) and the
 * event catalogue (events.h). Values after reset are read from a core
 * initialised with pmvp_core_config_default(), so the reference shows what
 * the model does, not what someone wrote down.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmvp/amu.h"
#include "pmvp/catalogue.h"
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/ext.h"
#include "pmvp/pmu.h"
#include "pmvp/sysreg.h"
#include "pmvp/x86.h"

static pmvp_core core;

static const char *reg_name(unsigned family, unsigned reg)
{
    return family == PMVP_SYSREG_PMU ? pmvp_pmu_reg_name((enum pmvp_pmu_reg)reg)
                                     : pmvp_amu_reg_name((enum pmvp_amu_reg)reg);
}

static bool reg_indexed(unsigned family, unsigned reg)
{
    return family == PMVP_SYSREG_PMU ? pmvp_pmu_reg_indexed((enum pmvp_pmu_reg)reg)
                                     : pmvp_amu_reg_indexed((enum pmvp_amu_reg)reg);
}

/* "PMEVCNTR_EL0" as the Arm ARM writes an indexed register: "PMEVCNTR<n>_EL0". */
static void print_reg(unsigned family, unsigned reg)
{
    const char *name = reg_name(family, reg);
    const char *el = strstr(name, "_EL");
    if (reg_indexed(family, reg) && el)
        printf("%.*s<n>%s", (int)(el - name), name, el);
    else
        printf("%s", name);
}

/* Bits [hi:lo] of a mask, or [n]. */
static void print_bits(uint64_t mask)
{
    unsigned lo = 0, hi = 63;
    while (!(mask >> lo & 1))
        lo++;
    while (!(mask >> hi & 1))
        hi--;
    if (hi == lo)
        printf("[%u]", lo);
    else
        printf("[%u:%u]", hi, lo);
}

static void print_binary(unsigned value, unsigned width)
{
    printf("0b");
    for (unsigned i = width; i-- > 0;)
        putchar('0' + (value >> i & 1));
}

/* CRm of an encoding, with the index bits of <n> named; `c` before a
 * plain number in the AArch32 syntax. */
static void print_crm(const pmvp_sysreg_encoding *e, const char *c)
{
    switch (e->index) {
    case PMVP_SYSREG_INDEX_CRM_OP2:
        print_binary(e->crm >> 2, 2);
        printf(":n[4:3]");
        break;
    case PMVP_SYSREG_INDEX_CRM0_OP2:
    case PMVP_SYSREG_INDEX_CRM0_OPC1:
        print_binary(e->crm >> 1, 3);
        printf(":n[3]");
        break;
    default: printf("%s%u", c, e->crm); break;
    }
}

static void print_op2(const pmvp_sysreg_encoding *e)
{
    if (e->index == PMVP_SYSREG_INDEX_CRM_OP2 || e->index == PMVP_SYSREG_INDEX_CRM0_OP2)
        printf("n[2:0]");
    else
        printf("%u", e->op2);
}

static void print_a64_encoding(unsigned family, unsigned reg)
{
    size_t count;
    const pmvp_sysreg_encoding *t = pmvp_sysreg_encodings(PMVP_MRS, &count);
    for (size_t i = 0; i < count; i++) {
        if (t[i].family != family || t[i].reg != reg)
            continue;
        printf("%u, %u, %u, ", t[i].op0, t[i].op1, t[i].crn);
        print_crm(&t[i], "");
        printf(", ");
        print_op2(&t[i]);
    }
}

/* Every AArch32 encoding of the register: MRC/MCR ones, then MRRC/MCRR. */
static void print_a32_encodings(unsigned family, unsigned reg)
{
    static const enum pmvp_sysreg_op ops[] = { PMVP_MRC, PMVP_MRRC };
    const char *sep = "";
    for (size_t k = 0; k < 2; k++) {
        size_t count;
        const pmvp_sysreg_encoding *t = pmvp_sysreg_encodings(ops[k], &count);
        for (size_t i = 0; i < count; i++) {
            const pmvp_sysreg_encoding *e = &t[i];
            if (e->family != family || e->reg != reg)
                continue;
            printf("%s`%s%s`", sep, e->name, e->index ? "<n>" : "");
            if (e->part == PMVP_PART_HIGH)
                printf(" = [63:32]");
            if (ops[k] == PMVP_MRC) {
                printf(": MRC/MCR p15, %u, c%u, ", e->op1, e->crn);
                print_crm(e, "c");
                printf(", ");
                print_op2(e);
            } else {
                printf(": MRRC/MCRR p15, ");
                if (e->index == PMVP_SYSREG_INDEX_CRM0_OPC1)
                    printf("n[2:0]");
                else
                    printf("%u", e->op1);
                printf(", ");
                print_crm(e, "c");
            }
            sep = "<br>";
        }
    }
    if (!*sep)
        printf("—");
}

/* The external row's name without "<n>", against the System register's
 * name with or without its "_EL0"/"_EL1" (the AMU frame drops it). */
static bool ext_names(const pmvp_ext_reg *r, unsigned family, unsigned reg)
{
    char ext[64], sys[64];
    const char *lt = strstr(r->name, "<n>");
    if (lt)
        snprintf(ext, sizeof ext, "%.*s%s", (int)(lt - r->name), r->name, lt + 3);
    else
        snprintf(ext, sizeof ext, "%s", r->name);
    snprintf(sys, sizeof sys, "%s", reg_name(family, reg));
    if (strcmp(ext, sys) == 0)
        return true;
    char *el = strstr(sys, "_EL");
    if (el)
        *el = '\0';
    return strcmp(ext, sys) == 0;
}

static void print_offset(const pmvp_ext_reg *r)
{
    printf("0x%03X", r->offset);
    if (r->stride)
        printf(" + %un", r->stride);
}

/* The offsets of the register in one layout of its frame. */
static void print_ext_offsets(unsigned family, unsigned reg, enum pmvp_ext_layout layout)
{
    enum pmvp_frame frame = family == PMVP_SYSREG_PMU ? PMVP_FRAME_PMU : PMVP_FRAME_AMU;
    int last = -1;
    for (size_t i = 0; i < pmvp_ext_reg_count(); i++) {
        const pmvp_ext_reg *r = pmvp_ext_reg_at(i);
        if (r->frame != frame || !(r->layouts & PMVP_EXT_LAYOUT_BIT(layout)) || !ext_names(r, family, reg))
            continue;
        if (r->offset == last)
            continue; /* one offset, two widths by feature (PMEVCNTR<n> in EXT32) */
        printf("%s", last < 0 ? "" : ", ");
        print_offset(r);
        last = r->offset;
    }
    if (last < 0)
        printf("—");
}

static void print_reset(unsigned family, unsigned reg)
{
    uint64_t v = 0;
    int err = family == PMVP_SYSREG_PMU ? pmvp_pmu_read(&core, 0, (enum pmvp_pmu_reg)reg, 0, 0, &v)
                                        : pmvp_amu_read(&core, 0, (enum pmvp_amu_reg)reg, 0, 0, &v);
    if (err)
        printf("— (no instance)");
    else
        printf("0x%" PRIX64, v);
}

/* Calls `row` for every PMU and AMU System register, in the order of their
 * enums. */
static void each_register(void (*row)(unsigned family, unsigned reg, const pmvp_reg_desc *d))
{
    for (unsigned family = PMVP_SYSREG_PMU; family <= PMVP_SYSREG_AMU; family++) {
        unsigned n = family == PMVP_SYSREG_PMU ? PMVP_PMU_NUM_REGS : PMVP_AMU_NUM_REGS;
        for (unsigned reg = 0; reg < n; reg++)
            row(family, reg, pmvp_reg_desc_of(family, reg));
    }
}

static void system_register_row(unsigned family, unsigned reg, const pmvp_reg_desc *d)
{
    printf("| [`");
    print_reg(family, reg);
    printf("`](#%s) | %s | 64 | ", reg_name(family, reg), d->feature);
    print_a64_encoding(family, reg);
    printf(" | ");
    print_a32_encodings(family, reg);
    printf(" | ");
    print_ext_offsets(family, reg, PMVP_EXT32);
    printf(" | ");
    print_ext_offsets(family, reg, PMVP_EXT64);
    printf(" | ");
    print_reset(family, reg);
    printf(" |\n");
}

static void system_registers(void)
{
    printf("## System registers\n\n");
    printf("| Register | Feature | Width | MRS/MSR: op0, op1, CRn, CRm, op2 | AArch32 | EXT32 offset "
           "| EXT64 offset | After reset |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    each_register(system_register_row);
    printf("\n");
}

/* Text as code in a table cell: its pipes escaped so they do not end it. */
static void print_code_cell(const char *text)
{
    printf(" `");
    for (const char *t = text; *t; t++)
        printf(*t == '|' ? "\\|" : "%c", *t);
    printf("` |");
}

static void register_state_row(unsigned family, unsigned reg, const pmvp_reg_desc *d)
{
    printf("| `");
    print_reg(family, reg);
    printf("` |");
    if (!d->state) {
        printf(" — (computed or selected) | | | |\n");
        return;
    }
    print_code_cell(d->state);
    printf(" %s |", d->write);
    print_code_cell(d->writable);
    print_code_cell(d->reset);
    printf("\n");
}

static void register_state(void)
{
    printf("## Where the registers' values live\n\n");
    printf("Each register's `PMVP_REG_STATE` line in `registers.def`, as written: the value of "
           "instance `n` in the PE's state (`pe`, a `pmvp_pe`), how a write stores it (VALUE: the "
           "writable bits; SET or CLEAR: 1 sets or clears those bits), the bits a write can change "
           "in core `c`'s configuration, and the value after a reset. The checkpoint, the reset and "
           "every plain write are made from these lines; a register without one holds no value of "
           "its own.\n\n");
    printf("| Register | Value in the PE | Write | Writable bits | After reset |\n");
    printf("|---|---|---|---|---|\n");
    each_register(register_state_row);
    printf("\n");
}

static void fields_row(unsigned family, unsigned reg, const pmvp_reg_desc *d)
{
    printf("<a id=\"%s\"></a>\n### `", reg_name(family, reg));
    print_reg(family, reg);
    printf("`: %s (%s)\n\n", d->title, d->section);
    printf("| Field | Bits | In pmvp |\n|---|---|---|\n");
    for (size_t i = 0; i < d->num_fields; i++) {
        const pmvp_reg_field *f = &d->fields[i];
        printf("| `%s` | ", f->name);
        print_bits(f->mask);
        printf(" | %s |\n", f->note ? f->note : "");
    }
    printf("\n");
}

static void fields(void)
{
    printf("## Fields\n\n");
    printf("Fields pmvp implements, most significant first; bits not listed are RES0 "
           "(RES1 where a note says so).\n\n");
    each_register(fields_row);
}

static const char *const frame_names[] = { [PMVP_FRAME_PMU] = "PMU", [PMVP_FRAME_AMU] = "AMU" };

static const char *const kind_names[] = {
    [PMVP_EXT_RW] = "RW",
    [PMVP_EXT_RO] = "RO",
    [PMVP_EXT_WO] = "WO",
    [PMVP_EXT_W1S] = "RW, write 1 to set",
    [PMVP_EXT_W1C] = "RW, write 1 to clear",
};

static const char *const domain_names[] = {
    [PMVP_EXT_CORE] = "Core power domain",
    [PMVP_EXT_MGMT] = "CoreSight management",
    [PMVP_EXT_AMU] = "AMU",
    [PMVP_EXT_SNAPSHOT] = "Core power domain, not the OS Lock",
    [PMVP_EXT_MOST_SECURE] = "Core power domain, Most secure accesses only (RAZ/WI to others)",
};

/* Rows by frame, then offset, then the order of registers.def. */
static int by_frame_and_offset(const void *a, const void *b)
{
    const pmvp_ext_reg *x = *(const pmvp_ext_reg *const *)a, *y = *(const pmvp_ext_reg *const *)b;
    if (x->frame != y->frame)
        return x->frame < y->frame ? -1 : 1;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return x < y ? -1 : x > y;
}

static void external_frames(void)
{
    printf("## External register frames\n\n");
    printf("Every row of the frames' table, by frame and offset (I5.2, I5.4). Width 32/64: 32 bits in "
           "EXT32, 64 in EXT64. Derived: the value follows from the configuration and other "
           "registers.\n\n");
    printf("| Frame | Register | EXT32 | EXT64 | Width | Access | Access checks | Needs | Reset |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    size_t count = pmvp_ext_reg_count();
    const pmvp_ext_reg **rows = malloc(count * sizeof *rows);
    if (!rows)
        return;
    for (size_t i = 0; i < count; i++)
        rows[i] = pmvp_ext_reg_at(i);
    qsort(rows, count, sizeof rows[0], by_frame_and_offset);
    for (size_t i = 0; i < count; i++) {
        const pmvp_ext_reg *r = rows[i];
        printf("| %s | `%s`%s | ", frame_names[r->frame], r->name, r->half ? " (bits [63:32])" : "");
        for (enum pmvp_ext_layout l = PMVP_EXT32; l <= PMVP_EXT64; l++) {
            if (r->layouts & PMVP_EXT_LAYOUT_BIT(l))
                print_offset(r);
            else
                printf("—");
            printf(" | ");
        }
        if (r->width)
            printf("%u", r->width);
        else if (r->layouts == PMVP_EXT_LAYOUT_BIT(PMVP_EXT32))
            printf("32");
        else if (r->layouts == PMVP_EXT_LAYOUT_BIT(PMVP_EXT64))
            printf("64");
        else
            printf("32/64");
        printf(" | %s | %s | %s | ", kind_names[r->kind], domain_names[r->domain],
               pmvp_gate_name((enum pmvp_gate)r->gate));
        if (r->derived)
            printf("derived");
        else
            printf("0x%" PRIX64, r->reset);
        printf(" |\n");
    }
    free(rows);
    printf("\n");
}

static void x86_msrs(void)
{
    printf("## x86 MSRs\n\n");
    printf("The MSRs of the Intel-style clock counters (x86.h), from model/include/pmvp/x86_msrs.def. "
           "Instances: MSRs at address + x. A read of an MSR the core does not have, or a write "
           "to a read-only one or with a reserved bit set, is #GP (`PMVP_ERR_GP`).\n\n");
    printf("| MSR | Address | Instances | Needs | Access | What | Value (`c` the core, `th` the logical "
           "processor, `x` the instance) |\n|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < pmvp_x86_msr_count(); i++) {
        const pmvp_x86_msr_info *m = pmvp_x86_msr_at(i);
        printf("| `%s` | 0x%03" PRIX32 " | %s | %s | %s | %s |", m->name, m->address, m->instances, m->needs, m->access,
               m->title);
        if (m->state)
            print_code_cell(m->state);
        else
            printf(" — (computed, or an action) |");
        printf("\n");
    }
    printf("\n");
}

/* How the CPU model tells the kernel about an event of the class. */
static const char *reported_as(enum pmvp_event_class cls)
{
    switch (cls) {
    case PMVP_EVCLASS_OCCURRENCE: return "count";
    case PMVP_EVCLASS_CONDITION:
    case PMVP_EVCLASS_STALL:
    case PMVP_EVCLASS_PER_CYCLE: return "level";
    default: return "not reported";
    }
}

static void events(void)
{
    printf("## Events\n\n");
    printf("Every event of the catalogue (D14.3), with the class that says how a counter counts "
           "it (events.h) and how the CPU model reports it. The default configuration supports "
           "all of them but the PMU_OVERFLOW class. AMU: the architected AMU counter that counts "
           "the event (`AMEVTYPER0<n>_EL0`). FEAT_SEBEP: whether D14.7 requires or recommends that the "
           "event supports synchronous mode.\n\n");
    printf("| Number | Name | Class | Reported as | AMU | FEAT_SEBEP |\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < pmvp_event_count(); i++) {
        const pmvp_event_info *e = pmvp_event_at(i);
        printf("| 0x%04X | `%s` | %s", e->number, e->name, pmvp_event_class_name(e->cls));
        if (e->cls == PMVP_EVCLASS_STALL)
            printf(" (with `%s`)", pmvp_event_find(e->stall)->name);
        printf(" | %s | ", reported_as(e->cls));
        for (unsigned n = 0; n < PMVP_AMU_ARCH_COUNTERS; n++) {
            uint64_t type = 0;
            if (pmvp_amu_read(&core, 0, PMVP_AMEVTYPER0_EL0, n, 0, &type) == PMVP_OK && type == e->number)
                printf("`AMEVCNTR0%u_EL0`", n);
        }
        static const char *const sync_kinds[] = {
            [PMVP_SYNC_NONE] = "",
            [PMVP_SYNC_REQUIRED] = "required",
            [PMVP_SYNC_RECOMMENDED] = "recommended",
        };
        printf(" | %s |\n", sync_kinds[pmvp_event_sync_kind(e->number)]);
    }
}

int main(void)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    if (pmvp_core_init(&core, &cfg) != PMVP_OK) {
        fprintf(stderr, "pmvp-regref: the default configuration does not initialise a core\n");
        return 1;
    }
    printf("# Register and event reference\n\n");
    printf("<!-- Generated by pmvp-regref (tools/regref.c) from the model's tables; do not edit. -->\n\n");
    printf("Generated from the model's own tables: the register table "
           "(model/include/pmvp/registers.def: titles, fields, encodings, external frames), "
           "the x86 MSR table (model/include/pmvp/x86_msrs.def) and the event catalogue (model/src/pmu_events.def). "
           "Regenerate it with `cmake --build build --target "
           "register-reference`; the test `docs.register_reference` fails when this file and the "
           "tables disagree.\n\n");
    printf("\"After reset\" is what PE 0 of a core initialised with `pmvp_core_config_default()` "
           "(core.h) reads: %u event counters, %u auxiliary AMU counters. The architecture leaves "
           "most of these fields UNKNOWN after a Warm reset; pmvp resets them to 0.\n\n",
           cfg.num_counters, cfg.amu_num_aux);
    system_registers();
    register_state();
    fields();
    external_frames();
    x86_msrs();
    events();
    return 0;
}
