/*
 * symbols.c - the name, source file and line of a code address in this process, read from the
 * module's ELF symbols and DWARF by elfutils' libdwfl, C++ names demangled by libiberty.
 *
 * Only libprofreport-auto contains this file: the plain library never needs libdw. Modules are
 * found with dl_iterate_phdr (no /proc needed) and reported to libdwfl one by one at their load
 * bias, so a library loaded by dlopen after the first lookup is found too.
 */
#define _GNU_SOURCE
#include "symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libiberty/demangle.h>

#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A function symbol that alone names its address (see index_build). */
struct sym_entry {
    GElf_Addr addr;
    const char *name; /* libdwfl's string, alive as long as the module */
};

/* The function entries of one libdwfl module sorted by address: the fast path. */
struct sym_index {
    Dwfl_Module *mod;
    struct sym_entry *entries; /* NULL when the module has none, or memory ran out */
    size_t count;
    struct sym_index *next;
};

/* One address range of a compile unit's top-level DIE (see cu_build). */
struct cu_range {
    Dwarf_Addr start, end;
    Dwarf_Addr reach; /* the furthest end of this range and those sorted before it */
    size_t die;       /* index in the unit's dies */
};

/* The top-level DIEs with addresses of one compile unit, their ranges by address. */
struct cu_index {
    const void *cu; /* the unit DIE's place in the debug data: its identity */
    Dwarf_Die *dies;
    struct cu_range *ranges;
    size_t count;
    int unusable; /* an imported unit, an unreadable range or no memory: ask libdw */
    struct cu_index *next;
};

struct prof_symbolizer {
    Dwfl *dwfl;
    char *exe;                 /* the main program's path */
    struct sym_index *indexes; /* one per module looked up */
    struct cu_index *units;    /* one per compile unit looked up */
};

/*
 * Never the network: libdwfl's standard callbacks end with a query to the debuginfod servers in
 * $DEBUGINFOD_URLS (set by default on several distributions), which stalls the profiled program
 * for as long as a server takes to answer, and makes a setuid program create debuginfod's cache
 * folder. Here a module's own file is reported by path (module_of), so no ELF is searched for,
 * and separate debug info is found by build id under the debug folders on this machine
 * (/usr/lib/debug/.build-id, where distributions' debug packages put it). Debug info from a
 * server belongs in the reporter, asked for by the user.
 */

/* No search for a module's ELF file: every module is reported with its path. */
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

static const Dwfl_Callbacks callbacks = {
    .find_elf = find_elf_none,
    .find_debuginfo = dwfl_build_id_find_debuginfo, /* no network, unlike the standard one */
    .section_address = dwfl_offline_section_address,
};

/* Open a symbolizer for this process; NULL when libdwfl cannot start. */
struct prof_symbolizer *prof_sym_open(void)
{
    struct prof_symbolizer *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->dwfl = dwfl_begin(&callbacks);
    if (!s->dwfl) {
        free(s);
        return NULL;
    }
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        s->exe = strdup(buf);
    }
    return s;
}

/* Close a symbolizer. */
void prof_sym_close(struct prof_symbolizer *s)
{
    if (!s)
        return;
    dwfl_end(s->dwfl);
    free(s->exe);
    while (s->indexes) {
        struct sym_index *next = s->indexes->next;
        free(s->indexes->entries);
        free(s->indexes);
        s->indexes = next;
    }
    while (s->units) {
        struct cu_index *next = s->units->next;
        free(s->units->dies);
        free(s->units->ranges);
        free(s->units);
        s->units = next;
    }
    free(s);
}

/* What dl_iterate_phdr is asked about and what it answers. */
struct find {
    uintptr_t addr;
    const char *name; /* "" for the main program */
    uintptr_t bias;
    int found;
};

/* dl_iterate_phdr callback: stop at the module with a loaded segment holding the address. */
static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct find *f = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (f->addr >= lo && f->addr - lo < ph->p_memsz) {
            f->name = info->dlpi_name ? info->dlpi_name : "";
            f->bias = info->dlpi_addr;
            f->found = 1;
            return 1;
        }
    }
    return 0;
}

/* The libdwfl module holding addr, reporting its file first if it is new. */
static Dwfl_Module *module_of(struct prof_symbolizer *s, uintptr_t addr, const char **path,
                              uintptr_t *bias)
{
    struct find f = {addr, NULL, 0, 0};
    dl_iterate_phdr(find_module, &f);
    if (!f.found)
        return NULL;
    *path = f.name[0] ? f.name : s->exe;
    *bias = f.bias;
    if (!*path)
        return NULL;
    Dwfl_Module *m = dwfl_addrmodule(s->dwfl, addr);
    if (m)
        return m;
    dwfl_report_begin_add(s->dwfl);
    m = dwfl_report_elf(s->dwfl, *path, *path, -1, f.bias, true);
    dwfl_report_end(s->dwfl, NULL, NULL);
    return m;
}

/*
 * The fast path for a function's entry address: dwfl_module_addrinfo searches the whole
 * symbol table on every call (a function's first call, for every function), which made most
 * of a short program's cost. libdwfl stays the source of truth: the index holds only the
 * addresses where its choice is plain, those where no other symbol's range covers the address
 * and either one sized symbol it would consider starts, or several of one size and one binding
 * do (a C++ constructor's C1 and C2 names), of which it keeps the first in table order. Any
 * other address, and any address of a module whose index could not be built, is asked of
 * dwfl_module_addrinfo (tests/unit/test_symbols.c holds the two to agree).
 */

/* A symbol of the table, as far as the index needs it. */
struct sym_raw {
    GElf_Addr addr, size;
    const char *name;
    int ndx; /* in the table: libdwfl's search order */
    unsigned char bind, func;
};

/* qsort order of symbols: by address, then in table order. */
static int raw_cmp(const void *a, const void *b)
{
    const struct sym_raw *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return (x->ndx > y->ndx) - (x->ndx < y->ndx);
}

/* Whether the symbols raw[i..j) starting at one address all have one size and one binding. */
static int alike(const struct sym_raw *raw, size_t i, size_t j)
{
    for (size_t t = i + 1; t < j; t++)
        if (raw[t].size != raw[i].size || raw[t].bind != raw[i].bind)
            return 0;
    return 1;
}

/* Fill idx with the module's function symbols that alone name their address. */
static void index_build(Dwfl_Module *m, struct sym_index *idx)
{
    int n = dwfl_module_getsymtab(m);
    if (n <= 1)
        return;
    struct sym_raw *raw = malloc((size_t)n * sizeof *raw);
    if (!raw)
        return;
    size_t k = 0;
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);
        int type = GELF_ST_TYPE(sym.st_info);
        /* The symbols dwfl_module_addrinfo considers: named, defined, not a section, file or
           thread-local one. */
        if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
            type == STT_FILE || type == STT_TLS)
            continue;
        raw[k++] = (struct sym_raw){
            addr, sym.st_size, name, i, GELF_ST_BIND(sym.st_info), type == STT_FUNC};
    }
    qsort(raw, k, sizeof *raw, raw_cmp);
    idx->entries = malloc((k ? k : 1) * sizeof *idx->entries);
    if (!idx->entries) {
        free(raw);
        return;
    }
    GElf_Addr covered = 0; /* the end of the furthest-reaching range that starts below */
    for (size_t i = 0, j; i < k; i = j) {
        for (j = i + 1; j < k && raw[j].addr == raw[i].addr; j++)
            ;
        if (raw[i].func && raw[i].size > 0 && covered <= raw[i].addr && alike(raw, i, j))
            idx->entries[idx->count++] = (struct sym_entry){raw[i].addr, raw[i].name};
        for (size_t t = i; t < j; t++)
            if (raw[t].addr + raw[t].size > covered)
                covered = raw[t].addr + raw[t].size;
    }
    free(raw);
}

/* The index of module m, built at its first use; NULL when memory runs out. */
static struct sym_index *index_of(struct prof_symbolizer *s, Dwfl_Module *m)
{
    for (struct sym_index *idx = s->indexes; idx; idx = idx->next)
        if (idx->mod == m)
            return idx;
    struct sym_index *idx = calloc(1, sizeof *idx);
    if (!idx)
        return NULL;
    idx->mod = m;
    index_build(m, idx);
    idx->next = s->indexes;
    s->indexes = idx;
    return idx;
}

/* The name of the function starting exactly at addr, when the index knows it; else NULL. */
static const char *index_name(struct prof_symbolizer *s, Dwfl_Module *m, uintptr_t addr)
{
    struct sym_index *idx = index_of(s, m);
    size_t lo = 0, hi = idx ? idx->count : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (idx->entries[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return idx && lo < idx->count && idx->entries[lo].addr == addr ? idx->entries[lo].name : NULL;
}

/*
 * The symbol name libdwfl gives addr's function, or NULL: the index's when it has it. Only an
 * entry (a function's first call) is looked for in the index: a call site (the memory checks'
 * sites, inside their functions) would only pay for building it.
 */
static const char *symbol_name(struct prof_symbolizer *s, Dwfl_Module *m, uintptr_t addr, int entry)
{
    const char *name = entry ? index_name(s, m, addr) : NULL;
    if (name)
        return name;
    GElf_Off off = 0;
    GElf_Sym es;
    return dwfl_module_addrinfo(m, addr, &off, &es, NULL, NULL, NULL);
}

/* The name the fast path alone gives addr, or NULL when it leaves addr to libdwfl. */
const char *prof_sym_fast_name(struct prof_symbolizer *s, const void *addr)
{
    const char *path = NULL;
    uintptr_t bias = 0;
    Dwfl_Module *m = s ? module_of(s, (uintptr_t)addr, &path, &bias) : NULL;
    return m ? index_name(s, m, (uintptr_t)addr) : NULL;
}

/* The last path component. */
static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/*
 * The fast path for a function's declaration. dwarf_getscopes walks the compile unit's
 * top-level DIEs from the first on every call, asking each for its ranges: with a C++ unit of
 * thousands of functions, and a function described at its first call, that walk was most of a
 * program's cost. Here the top-level DIEs' ranges are read once per unit and sorted, the one
 * top-level DIE holding the address is found by binary search, and below it the scopes are
 * followed as dwarf_getscopes follows them (the first child holding the address, into the
 * tags libdw descends into). libdw stays the source of truth: whenever its answer could
 * depend on more than that (an imported unit, an address in two top-level DIEs or inside an
 * inlined call, whose scopes libdw takes from the inlined function's abstract definition, a
 * range it cannot read), dwarf_getscopes answers (tests/unit/test_symbols.c holds them equal).
 */

/* The deepest chain of scopes the fast path follows before leaving the address to libdw. */
#define SCOPES_MAX 64

/* qsort order of ranges: by start. */
static int range_cmp(const void *a, const void *b)
{
    const struct cu_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Read the ranges of the unit cu's top-level DIEs into ci, or mark it unusable. */
static void cu_build(Dwarf_Die *cu, struct cu_index *ci)
{
    size_t ndies = 0, capdies = 0, cap = 0;
    Dwarf_Die child;
    int rc = dwarf_child(cu, &child);
    for (; rc == 0; rc = dwarf_siblingof(&child, &child)) {
        if (dwarf_tag(&child) == DW_TAG_imported_unit) {
            ci->unusable = 1; /* its children count as the unit's own, in place */
            return;
        }
        Dwarf_Addr base, start, end;
        ptrdiff_t off = 0;
        int added = 0;
        while ((off = dwarf_ranges(&child, off, &base, &start, &end)) > 0) {
            if (!added) {
                if (ndies == capdies) {
                    capdies = capdies ? capdies * 2 : 64;
                    Dwarf_Die *d = realloc(ci->dies, capdies * sizeof *d);
                    if (!d) {
                        ci->unusable = 1;
                        return;
                    }
                    ci->dies = d;
                }
                ci->dies[ndies++] = child;
                added = 1;
            }
            if (ci->count == cap) {
                cap = cap ? cap * 2 : 64;
                struct cu_range *r = realloc(ci->ranges, cap * sizeof *r);
                if (!r) {
                    ci->unusable = 1;
                    return;
                }
                ci->ranges = r;
            }
            ci->ranges[ci->count++] = (struct cu_range){start, end, 0, ndies - 1};
        }
        if (off < 0) {
            ci->unusable = 1;
            return;
        }
    }
    if (rc < 0) {
        ci->unusable = 1;
        return;
    }
    if (ci->count)
        qsort(ci->ranges, ci->count, sizeof *ci->ranges, range_cmp);
    Dwarf_Addr reach = 0;
    for (size_t i = 0; i < ci->count; i++) {
        if (ci->ranges[i].end > reach)
            reach = ci->ranges[i].end;
        ci->ranges[i].reach = reach;
    }
}

/* The index of the unit cu, read at its first use; NULL when memory runs out. */
static struct cu_index *unit_of(struct prof_symbolizer *s, Dwarf_Die *cu)
{
    for (struct cu_index *ci = s->units; ci; ci = ci->next)
        if (ci->cu == cu->addr)
            return ci;
    struct cu_index *ci = calloc(1, sizeof *ci);
    if (!ci)
        return NULL;
    ci->cu = cu->addr;
    cu_build(cu, ci);
    ci->next = s->units;
    s->units = ci;
    return ci;
}

/* Whether libdw descends into a DIE of this tag looking for scopes (libdw_visit_scopes.c). */
static int may_have_scopes(int tag)
{
    switch (tag) {
    case DW_TAG_compile_unit:
    case DW_TAG_module:
    case DW_TAG_lexical_block:
    case DW_TAG_with_stmt:
    case DW_TAG_catch_block:
    case DW_TAG_try_block:
    case DW_TAG_entry_point:
    case DW_TAG_inlined_subroutine:
    case DW_TAG_subprogram:
    case DW_TAG_namespace:
    case DW_TAG_class_type:
    case DW_TAG_structure_type:
        return 1;
    default:
        return 0;
    }
}

/* 1 when one of die's ranges holds pc, 0 when none does, -1 when they cannot be read. */
static int holds(Dwarf_Die *die, Dwarf_Addr pc)
{
    Dwarf_Addr base, start, end;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
        if (pc >= start && pc < end)
            return 1;
    return off < 0 ? -1 : 0;
}

/*
 * The scopes holding pc in the unit cu, innermost first, as dwarf_getscopes gives them but
 * without the unit itself: their number (0: no DIE holds pc), or -1 when the answer is left
 * to dwarf_getscopes.
 */
static int unit_scopes(struct prof_symbolizer *s, Dwarf_Die *cu, Dwarf_Addr pc,
                       Dwarf_Die scopes[SCOPES_MAX])
{
    struct cu_index *ci = unit_of(s, cu);
    if (!ci || ci->unusable)
        return -1;
    /* The last range starting at or below pc; any range before it reaching past pc is a
       second top-level DIE (or range) holding pc, which the fast path leaves to libdw. */
    size_t lo = 0, hi = ci->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ci->ranges[mid].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    const struct cu_range *r = &ci->ranges[lo - 1];
    if (lo >= 2 && ci->ranges[lo - 2].reach > pc)
        return -1;
    if (r->end <= pc)
        return 0;
    /* Down from the top-level DIE: at each level the first child holding pc. */
    Dwarf_Die path[SCOPES_MAX];
    int n = 0;
    path[n++] = ci->dies[r->die];
    for (;;) {
        Dwarf_Die *d = &path[n - 1];
        int tag = dwarf_tag(d);
        if (tag == DW_TAG_inlined_subroutine)
            return -1; /* libdw's scopes come from the abstract definition then */
        if (!may_have_scopes(tag) || dwarf_haschildren(d) <= 0)
            break;
        Dwarf_Die child;
        int rc = dwarf_child(d, &child), in = 0;
        for (; rc == 0; rc = dwarf_siblingof(&child, &child)) {
            if (dwarf_tag(&child) == DW_TAG_imported_unit)
                return -1;
            in = holds(&child, pc);
            if (in != 0)
                break;
        }
        if (rc < 0 || in < 0)
            return -1;
        if (!in)
            break;
        if (n == SCOPES_MAX)
            return -1;
        path[n++] = child;
    }
    for (int i = 0; i < n; i++)
        scopes[i] = path[n - 1 - i];
    return n;
}

/* The declaration of the innermost of n scopes that is a function and has one. */
static int first_declared(Dwarf_Die *scopes, int n, const char **file, int *line)
{
    int found = 0;
    for (int i = 0; i < n && !found; i++) {
        if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
            continue;
        *file = dwarf_decl_file(&scopes[i]);
        found = *file && dwarf_decl_line(&scopes[i], line) == 0;
    }
    return found;
}

/*
 * The declaration's file and line of the function holding addr, from its DWARF subprogram
 * entry (the line with the function's name, as a debugger shows it). 0 when there is none.
 */
static int declared_at(struct prof_symbolizer *s, Dwfl_Module *m, uintptr_t addr, const char **file,
                       int *line)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(m, addr, &bias);
    if (!cu)
        return 0;
    Dwarf_Die path[SCOPES_MAX];
    int n = unit_scopes(s, cu, addr - bias, path);
    if (n >= 0)
        return first_declared(path, n, file, line);
    Dwarf_Die *scopes = NULL;
    n = dwarf_getscopes(cu, addr - bias, &scopes);
    int found = first_declared(scopes, n, file, line);
    free(scopes);
    return found;
}

/* declared_at by the fast path alone: -1 when it leaves addr to dwarf_getscopes. */
int prof_sym_declared_fast(struct prof_symbolizer *s, const void *addr, const char **file,
                           int *line)
{
    const char *path = NULL;
    uintptr_t bias = 0;
    Dwfl_Module *m = s ? module_of(s, (uintptr_t)addr, &path, &bias) : NULL;
    Dwarf_Addr cubias = 0;
    Dwarf_Die *cu = m ? dwfl_module_addrdie(m, (uintptr_t)addr, &cubias) : NULL;
    if (!cu)
        return -1;
    Dwarf_Die scopes[SCOPES_MAX];
    int n = unit_scopes(s, cu, (uintptr_t)addr - cubias, scopes);
    return n < 0 ? -1 : first_declared(scopes, n, file, line);
}

/* Demangle a C++ name; a C name (or one libiberty cannot read) comes back as a copy. */
char *prof_sym_demangle(const char *name)
{
    char *d = NULL;
    if (name[0] == '_' && name[1] == 'Z')
        d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
    return d ? d : strdup(name);
}

/*
 * Describe the code address addr: its function's name (or module+0xoffset when the module has
 * no symbol for it), source file and line (when DWARF line data covers it: the function's
 * declaration, or with at_line the instruction's own line), module path and offset from the
 * module's load bias. Returns PROF_OK, PROF_ERR_NOMEM, or PROF_ERR_ARGUMENT when no loaded
 * module holds the address.
 */
static enum prof_error lookup(struct prof_symbolizer *s, const void *addr, struct prof_fn *out,
                              int at_line)
{
    memset(out, 0, sizeof *out);
    out->addr = addr;
    if (!s)
        return PROF_ERR_ARGUMENT;
    const char *path = NULL;
    uintptr_t bias = 0, a = (uintptr_t)addr;
    Dwfl_Module *m = module_of(s, a, &path, &bias);
    if (!path)
        return PROF_ERR_ARGUMENT;
    out->offset = a - bias;
    out->module = strdup(path);
    if (!out->module)
        return PROF_ERR_NOMEM;
    const char *sym = NULL;
    if (m) {
        sym = symbol_name(s, m, a, !at_line);
        int lineno = 0;
        const char *file = NULL;
        if (at_line || !declared_at(s, m, a, &file, &lineno)) {
            /* No subprogram entry: the line table's line for the first instruction. */
            Dwfl_Line *line = dwfl_module_getsrc(m, a);
            file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
        }
        if (file) {
            out->file = strdup(file);
            out->line = lineno > 0 ? (unsigned)lineno : 0;
            if (!out->file)
                goto nomem;
        }
    }
    if (sym && sym[0]) {
        out->name = prof_sym_demangle(sym);
    } else {
        char buf[64];
        snprintf(buf, sizeof buf, "+0x%" PRIx64, out->offset);
        size_t n = strlen(base_name(path)) + strlen(buf) + 1;
        out->name = malloc(n);
        if (out->name)
            snprintf(out->name, n, "%s%s", base_name(path), buf);
    }
    if (!out->name)
        goto nomem;
    return PROF_OK;
nomem:
    prof_fn_release(out);
    return PROF_ERR_NOMEM;
}

/* Describe addr by its function's declaration. */
enum prof_error prof_sym_lookup(struct prof_symbolizer *s, const void *addr, struct prof_fn *out)
{
    return lookup(s, addr, out, 0);
}

/* Describe addr by its own line. */
enum prof_error prof_sym_lookup_line(struct prof_symbolizer *s, const void *addr,
                                     struct prof_fn *out)
{
    return lookup(s, addr, out, 1);
}

/* Free what prof_sym_lookup filled in. */
void prof_fn_release(struct prof_fn *fn)
{
    free(fn->name);
    free(fn->file);
    free(fn->module);
    memset(fn, 0, sizeof *fn);
}
