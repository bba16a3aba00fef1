/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pmvp-register-fields: writes pmvp/register_fields.h, the field macros
 * (PMVP_PMCR_EL0_E, ...), from the PMVP_FIELD lines of registers.def, so
 * that each field is described once. Built and run by the build
 * (model/CMakeLists.txt). It refuses a field whose bits are out of order or
 * beyond bit 63, one macro given two different bit ranges, and a note that
 * would end the comment it is written in.
 *
 *     pmvp-register-fields OUTPUT
 */
#include <stdio.h>
#include <string.h>

typedef struct field {
    const char *reg, *name;
    unsigned hi, lo;
    const char *note;
} field;

/* The fields of a register of the table (title NULL: the PMVP_REG line's)
 * or of a PMVP_FIELDS block. */
typedef struct block {
    const char *id, *title;
    const field *fields;
    size_t num_fields;
} block;

typedef struct reg {
    const char *id, *title, *section;
} reg;

#define PMVP_FIELD(reg, name, hi, lo, note) \
    {                                       \
#reg, #name, hi, lo, note           \
    }
#define PMVP_FIELD_SHOWN(reg, name, shown, hi, lo, note) \
    {                                                    \
#reg, #name, hi, lo, note                        \
    }
#define FIELD_LIST(...) (const field[]){ __VA_ARGS__ }, sizeof((const field[]){ __VA_ARGS__ }) / sizeof(field)
#define PMVP_REG_FIELDS(family, id, ...) { #id, NULL, FIELD_LIST(__VA_ARGS__) },
#define PMVP_FIELDS(title, ...) { NULL, title, FIELD_LIST(__VA_ARGS__) },
static const block blocks[] = {
#include "pmvp/registers.def"
};

#define PMVP_REG(family, id, instances, gate, title, section) { #id, title, section },
static const reg regs[] = {
#include "pmvp/registers.def"
};

enum { MAX_MACROS = 512 };
static struct {
    char name[96];
    unsigned hi, lo;
} macros[MAX_MACROS];
static size_t num_macros;

/* 1: write the macro; 0: written before with the same bits; -1: refused. */
static int first_time(const field *f)
{
    char name[96];
    snprintf(name, sizeof name, "PMVP_%s_%s", f->reg, f->name);
    for (size_t i = 0; i < num_macros; i++) {
        if (strcmp(macros[i].name, name) != 0)
            continue;
        if (macros[i].hi == f->hi && macros[i].lo == f->lo)
            return 0;
        fprintf(stderr, "registers.def: %s is [%u:%u] and [%u:%u]\n", name, macros[i].hi, macros[i].lo, f->hi, f->lo);
        return -1;
    }
    if (f->hi > 63 || f->lo > f->hi) {
        fprintf(stderr, "registers.def: %s has bits [%u:%u]: not hi >= lo within 64 bits\n", name, f->hi, f->lo);
        return -1;
    }
    if (f->note && strstr(f->note, "*/")) {
        fprintf(stderr, "registers.def: the note of %s contains \"*/\"\n", name);
        return -1;
    }
    if (num_macros == MAX_MACROS) {
        fprintf(stderr, "registers.def: more than %d field macros\n", MAX_MACROS);
        return -1;
    }
    strcpy(macros[num_macros].name, name);
    macros[num_macros].hi = f->hi;
    macros[num_macros].lo = f->lo;
    num_macros++;
    return 1;
}

static void heading(FILE *out, const block *b)
{
    if (b->title) {
        fprintf(out, "\n/* %s. */\n", b->title);
        return;
    }
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        if (strcmp(regs[i].id, b->id) == 0) {
            fprintf(out, "\n/* %s: %s (%s). */\n", b->id, regs[i].title, regs[i].section);
            return;
        }
    fprintf(out, "\n/* %s. */\n", b->id);
}

/* The block's new macros, under its heading; -1 if one is refused. */
static int write_block(FILE *out, const block *b)
{
    int headed = 0;
    for (size_t i = 0; i < b->num_fields; i++) {
        const field *f = &b->fields[i];
        int first = first_time(f);
        if (first < 0)
            return -1;
        if (!first)
            continue;
        if (!headed++)
            heading(out, b);
        if (f->hi == f->lo)
            fprintf(out, "#define PMVP_%s_%s PMVP_BIT(%u)", f->reg, f->name, f->lo);
        else
            fprintf(out, "#define PMVP_%s_%s PMVP_BITS(%u, %u)", f->reg, f->name, f->hi, f->lo);
        fprintf(out, f->note ? " /* %s */\n" : "\n", f->note);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pmvp-register-fields OUTPUT\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "/* SPDX-License-Identifier: Apache-2.0 */\n"
                 "/*\n"
                 " * Register fields as masks, made from the PMVP_FIELD lines of\n"
                 " * pmvp/registers.def by the build: edit those, not this file.\n"
                 " * Included by pmvp/fields.h, which defines PMVP_BIT and PMVP_BITS.\n"
                 " */\n"
                 "#ifndef PMVP_REGISTER_FIELDS_H\n"
                 "#define PMVP_REGISTER_FIELDS_H\n");
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        if (write_block(out, &blocks[i]) < 0) {
            fclose(out);
            remove(argv[1]);
            return 1;
        }
    fprintf(out, "\n#endif\n");
    return fclose(out) == 0 ? 0 : 1;
}
