/*
 * dwdecl.c - where a function's source declares it, from its module's DWARF (libdw): the
 * compile unit holding an address, then the unit's functions listed once by entry address.
 *
 * dwarf_getscopes walks a unit's entries from the top at every call, and on a C++ program's
 * units that made most of a short run's cost; here each unit is walked once, at its first
 * lookup, and any address the lists do not answer (not an entry, or one two functions share)
 * is still asked of dwarf_getscopes: libdw stays the source of truth.
 */
#define _GNU_SOURCE
#include "dwdecl.h"
#include "fileutil.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One address range of a compile unit, in the Dwfl's addresses. */
struct cu_range {
    Dwarf_Addr lo, hi;
    Dwarf_Die *cu; /* libdwfl's, valid while the Dwfl is */
};

/* A module's compile units by address, for a module whose DWARF has no .debug_aranges. */
struct prof_cu_index {
    Dwfl_Module *mod;
    Dwarf_Addr bias;
    struct cu_range *ranges; /* sorted by lo */
    size_t n;
};

/* A function's entry address and the declaration's file and line of its subprogram entry. */
struct decl {
    Dwarf_Addr entry; /* in the unit's own addresses (no bias) */
    const char *file; /* libdw's string, valid while the Dwfl is */
    int line;
};

/* The functions of one compile unit by entry address, built at the first lookup in it. */
struct prof_decl_index {
    Dwarf_Die *cu;
    struct decl *decls; /* sorted by entry */
    size_t n, cap;
    struct prof_decl_index *next;
};

/* No search for a module's ELF file: every module is reported with its path or descriptor. */
static int find_elf_none(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                         char **file_name, Elf **elfp)
{
    (void)mod;
    (void)userdata;
    (void)modname;
    (void)base;
    (void)file_name;
    *elfp = NULL;
    return -1;
}

const Dwfl_Callbacks prof_dw_callbacks = {
    .find_elf = find_elf_none,
    .find_debuginfo = dwfl_build_id_find_debuginfo, /* no network, unlike the standard one */
    .section_address = dwfl_offline_section_address,
};

size_t prof_dw_build_id(Dwfl_Module *m, char *hex)
{
    const unsigned char *bits = NULL;
    GElf_Addr vaddr;
    int n = dwfl_module_build_id(m, &bits, &vaddr);
    if (n <= 0 || n > (PROF_DW_BUILD_ID_MAX - 1) / 2)
        n = 0;
    for (int i = 0; i < n; i++) {
        hex[2 * i] = "0123456789abcdef"[bits[i] >> 4];
        hex[2 * i + 1] = "0123456789abcdef"[bits[i] & 15];
    }
    hex[2 * n] = 0;
    return (size_t)n * 2;
}

void prof_decls_init(struct prof_decls *d) { memset(d, 0, sizeof *d); }

void prof_decls_free(struct prof_decls *d)
{
    for (size_t i = 0; i < d->ncus; i++)
        free(d->cus[i].ranges);
    free(d->cus);
    while (d->units) {
        struct prof_decl_index *next = d->units->next;
        free(d->units->decls);
        free(d->units);
        d->units = next;
    }
    memset(d, 0, sizeof *d);
}

/* A function's file: a relative name (clang writes the path the compiler was given, where
   gcc's declarations name the whole path) joined to its unit's compilation folder, so both
   compilers' builds name one file alike, cleaned (prof_path_clean: a header one unit includes
   as "../common/error.h" from lib/compress/ is the lib/common/error.h another unit names, so a
   static function copied into both is seen as one, functions.c); a copy, or NULL when memory
   runs out. */
static char *in_unit_dir(Dwarf_Die *cu, const char *file)
{
    Dwarf_Attribute at;
    const char *dir =
        file[0] != '/' && cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at)) : NULL;
    char *p;
    if (!dir || dir[0] != '/') {
        p = strdup(file);
    } else {
        size_t n = strlen(dir) + strlen(file) + 2;
        if ((p = malloc(n)))
            snprintf(p, n, "%s/%s", dir, file);
    }
    if (p)
        prof_path_clean(p);
    return p;
}

static int range_order(const void *a, const void *b)
{
    const struct cu_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every compile unit's address ranges of module m (dwarf_ranges), sorted; built once per
   module. NULL when memory runs out. */
static const struct prof_cu_index *cu_index_of(struct prof_decls *s, Dwfl_Module *m)
{
    for (size_t i = 0; i < s->ncus; i++)
        if (s->cus[i].mod == m)
            return &s->cus[i];
    struct prof_cu_index *grown = realloc(s->cus, (s->ncus + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    s->cus = grown;
    struct prof_cu_index *x = &s->cus[s->ncus++];
    memset(x, 0, sizeof *x);
    x->mod = m;
    size_t cap = 0;
    Dwarf_Addr bias = 0;
    for (Dwarf_Die *cu = NULL; (cu = dwfl_module_nextcu(m, cu, &bias)) != NULL;) {
        x->bias = bias;
        Dwarf_Addr base, lo, hi;
        for (ptrdiff_t off = 0; (off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0;) {
            if (lo >= hi)
                continue;
            if (x->n == cap) {
                cap = cap ? cap * 2 : 64;
                struct cu_range *r = realloc(x->ranges, cap * sizeof *r);
                if (!r)
                    return x; /* the ranges so far */
                x->ranges = r;
            }
            x->ranges[x->n++] = (struct cu_range){lo + bias, hi + bias, cu};
        }
    }
    if (x->n)
        qsort(x->ranges, x->n, sizeof *x->ranges, range_order);
    return x;
}

/*
 * The compile unit holding addr, and the module's DWARF bias. libdwfl finds it through the
 * .debug_aranges section, which clang writes only when asked (-gdwarf-aranges): without it
 * elfutils 0.188 finds no unit, and a clang program's functions had no file or line. Then the
 * units' own address ranges, read once per module, answer.
 */
static Dwarf_Die *cu_of(struct prof_decls *s, Dwfl_Module *m, uintptr_t addr, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = dwfl_module_addrdie(m, addr, bias);
    if (cu)
        return cu;
    const struct prof_cu_index *x = cu_index_of(s, m);
    if (!x)
        return NULL;
    size_t lo = 0, hi = x->n; /* the last range starting at or below addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->ranges[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* ranges may nest (a unit's whole span around another's pieces): look back a little */
    for (size_t i = lo, k = 0; i > 0 && k < 8; i--, k++)
        if (addr >= x->ranges[i - 1].lo && addr < x->ranges[i - 1].hi) {
            *bias = x->bias;
            return x->ranges[i - 1].cu;
        }
    return NULL;
}

/* Add one entry to the unit's list; -1 when memory runs out. */
static int decl_add(struct prof_decl_index *x, Dwarf_Addr entry, const char *file, int line)
{
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 64;
        struct decl *d = realloc(x->decls, cap * sizeof *d);
        if (!d)
            return -1;
        x->decls = d;
        x->cap = cap;
    }
    x->decls[x->n++] = (struct decl){entry, file, line};
    return 0;
}

/* Note a defined function's entry and declaration: its low address, or when its code lies in
   several ranges (gcc moves a function's cold part to .text.unlikely) the start of the first,
   its main part, which gcc lists first (were it not the entry, the entry would just not be
   listed). A declaration (no code) is not noted; a function without a declared place (gcc's
   artificial static initializers) is, with none. -1 when memory runs out. */
static int note_decl(Dwarf_Die *fn, struct prof_decl_index *x)
{
    Dwarf_Addr entry, base, lo, hi;
    /* The code first: a C++ unit's namespaces hold thousands of declarations, whose file and
       line would only be read to be dropped. */
    if (dwarf_lowpc(fn, &entry) != 0) {
        if (dwarf_ranges(fn, 0, &base, &lo, &hi) <= 0 || lo >= hi)
            return 0;
        entry = lo;
    }
    int line = 0;
    const char *file = dwarf_decl_file(fn);
    if (!file || dwarf_decl_line(fn, &line) != 0)
        file = NULL;
    return decl_add(x, entry, file, line);
}

/* Note the functions defined among die's children, and in the namespaces among them: a
   function's definition (the entry with its code) is a child of its unit or of a namespace,
   never inside a class (whose members are declarations). -1 when memory runs out. */
static int walk_defs(Dwarf_Die *die, struct prof_decl_index *x, int depth)
{
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram) {
            if (note_decl(&child, x) != 0)
                return -1;
        } else if (tag == DW_TAG_namespace && depth < 64) {
            if (walk_defs(&child, x, depth + 1) != 0)
                return -1;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

static int decl_order(const void *a, const void *b)
{
    const struct decl *x = a, *y = b;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Unit cu's function entries, listed at its first lookup; NULL when memory runs out. */
static struct prof_decl_index *decls_of(struct prof_decls *s, Dwarf_Die *cu)
{
    struct prof_decl_index **p = &s->units, *x = NULL;
    for (; *p; p = &(*p)->next)
        if ((*p)->cu == cu) {
            x = *p; /* to the front: a program's next calls are nearby */
            *p = x->next;
            x->next = s->units;
            s->units = x;
            return x;
        }
    if (!(x = calloc(1, sizeof *x)))
        return NULL;
    x->cu = cu;
    x->next = s->units;
    s->units = x;
    if (walk_defs(cu, x, 0) != 0) {
        free(x->decls); /* stopped by a failed allocation: an index with holes would differ */
        x->decls = NULL;
        x->n = 0;
    }
    if (x->n)
        qsort(x->decls, x->n, sizeof *x->decls, decl_order);
    return x;
}

/*
 * The declaration of the function whose entry is addr, from its unit's list: 1 with file and
 * line, 0 when the function has no declared place (a unit's or namespace's function: no other
 * function encloses it, so dwarf_getscopes would find none either), -1 when the list does not
 * answer (not an entry, or one two functions share).
 */
static int listed_decl(struct prof_decls *s, Dwarf_Die *cu, Dwarf_Addr bias, uintptr_t addr,
                       const char **file, int *line)
{
    const struct prof_decl_index *x = decls_of(s, cu);
    size_t lo = 0, hi = x ? x->n : 0;
    Dwarf_Addr want = addr - bias;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->decls[mid].entry < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!x || lo == x->n || x->decls[lo].entry != want ||
        (lo + 1 < x->n && x->decls[lo + 1].entry == want))
        return -1;
    *file = x->decls[lo].file;
    *line = x->decls[lo].line;
    return *file != NULL;
}

/*
 * The declaration's file and line of the function holding addr, from its DWARF subprogram
 * entry (the line with the function's name, as a debugger shows it). 0 when there is none.
 * A function's entry is looked up among its unit's functions, listed once per unit
 * (dwarf_getfuncs): dwarf_getscopes walks the unit's entries from the top at every call, and
 * on a C++ program's units that made most of a short run's cost. Any other address (and an
 * entry two functions share) is asked of dwarf_getscopes.
 */
static int declared_at(struct prof_decls *s, Dwarf_Die *cu, Dwarf_Addr bias, uintptr_t addr,
                       const char **file, int *line)
{
    if (!cu)
        return 0;
    int listed = listed_decl(s, cu, bias, addr, file, line);
    if (listed >= 0)
        return listed;
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(cu, addr - bias, &scopes), found = 0;
    for (int i = 0; i < n && !found; i++) {
        if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
            continue;
        *file = dwarf_decl_file(&scopes[i]);
        found = *file && dwarf_decl_line(&scopes[i], line) == 0;
    }
    free(scopes);
    return found;
}

int prof_decls_fast(struct prof_decls *d, Dwfl_Module *m, uintptr_t addr, const char **file,
                    int *line)
{
    Dwarf_Addr cu_bias = 0;
    Dwarf_Die *cu = m ? cu_of(d, m, addr, &cu_bias) : NULL;
    return cu ? listed_decl(d, cu, cu_bias, addr, file, line) : -1;
}

/* The line table's file (libdw's string) and line of the instruction at addr, or NULL. */
static const char *line_of(Dwfl_Module *m, Dwarf_Die *cu, Dwarf_Addr cu_bias, uintptr_t addr,
                           int *lineno)
{
    Dwfl_Line *l = dwfl_module_getsrc(m, addr);
    const char *where = l ? dwfl_lineinfo(l, NULL, lineno, NULL, NULL, NULL) : NULL;
    Dwarf_Line *unit_line = !where && cu ? dwarf_getsrc_die(cu, addr - cu_bias) : NULL;
    if (unit_line) {
        where = dwarf_linesrc(unit_line, NULL, NULL);
        if (dwarf_lineno(unit_line, lineno) != 0)
            *lineno = 0;
    }
    return where;
}

int prof_decls_locate(struct prof_decls *d, Dwfl_Module *m, uintptr_t addr, char **file,
                      unsigned *line)
{
    *file = NULL;
    *line = 0;
    int lineno = 0;
    const char *where = NULL;
    Dwarf_Addr cu_bias = 0;
    Dwarf_Die *cu = cu_of(d, m, addr, &cu_bias);
    /* No subprogram entry: the line table's line for the first instruction. */
    if (!declared_at(d, cu, cu_bias, addr, &where, &lineno))
        where = line_of(m, cu, cu_bias, addr, &lineno);
    if (!where)
        return 0;
    *file = in_unit_dir(cu, where);
    *line = lineno > 0 ? (unsigned)lineno : 0;
    return *file ? 1 : -1;
}

int prof_decls_line(struct prof_decls *d, Dwfl_Module *m, uintptr_t addr, char **file,
                    unsigned *line)
{
    *file = NULL;
    *line = 0;
    int lineno = 0;
    Dwarf_Addr cu_bias = 0;
    Dwarf_Die *cu = cu_of(d, m, addr, &cu_bias);
    const char *where = line_of(m, cu, cu_bias, addr, &lineno);
    if (!where)
        return 0;
    *file = strdup(where);
    *line = lineno > 0 ? (unsigned)lineno : 0;
    return *file ? 1 : -1;
}
