/*
 * symbols.c - the name, module and build id of a code address in this process, read from the
 * module's ELF symbols by elfutils' libdwfl, C++ names demangled by libiberty; its source file
 * and line from DWARF (dwdecl.c) only when asked: the reporter reads those from the module.
 *
 * Only libprofreport-auto contains this file: the plain library never needs libdw. Modules are
 * found with dl_iterate_phdr (no /proc needed) and reported to libdwfl one by one at their load
 * bias, so a library loaded by dlopen after the first lookup is found too.
 */
#define _GNU_SOURCE
#include "symbols.h"

#include "dwdecl.h"
#include "program.h"

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
    GElf_Addr addr, size;
    const char *name; /* libdwfl's string, alive as long as the module */
    const char *unit; /* a local symbol's source file (the STT_FILE before it), or NULL */
    int weak;         /* a weak symbol: C++'s inline functions and templates, one per program */
};

/* The function entries of one libdwfl module sorted by address: the fast path. */
struct sym_index {
    Dwfl_Module *mod;
    struct sym_entry *entries; /* NULL when the module has none, or memory ran out */
    size_t count;
    struct sym_index *next;
};

struct prof_symbolizer {
    Dwfl *dwfl;
    char *exe;                 /* the main program's path */
    struct sym_index *indexes; /* one per module looked up */
    struct prof_decls decls;   /* source declarations, read only when asked (prof_sym_locate) */
};

/* Open a symbolizer for this process; NULL when libdwfl cannot start. */
struct prof_symbolizer *prof_sym_open(void)
{
    struct prof_symbolizer *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->dwfl = dwfl_begin(&prof_dw_callbacks); /* never the network (dwdecl.h) */
    if (!s->dwfl) {
        free(s);
        return NULL;
    }
    if (prof_program_path()[0])
        s->exe = strdup(prof_program_path());
    return s;
}

/* Close a symbolizer. */
void prof_sym_close(struct prof_symbolizer *s)
{
    if (!s)
        return;
    prof_decls_free(&s->decls);
    dwfl_end(s->dwfl);
    free(s->exe);
    while (s->indexes) {
        struct sym_index *next = s->indexes->next;
        free(s->indexes->entries);
        free(s->indexes);
        s->indexes = next;
    }
    free(s);
}

/* What dl_iterate_phdr is asked about and what it answers. */
struct find {
    uintptr_t addr;
    const char *name; /* "" for the main program */
    uintptr_t bias;
    uintptr_t low; /* the lowest address of its loaded segments: it names the module */
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
            f->low = UINTPTR_MAX;
            for (int k = 0; k < info->dlpi_phnum; k++)
                if (info->dlpi_phdr[k].p_type == PT_LOAD &&
                    info->dlpi_addr + info->dlpi_phdr[k].p_vaddr < f->low)
                    f->low = info->dlpi_addr + info->dlpi_phdr[k].p_vaddr;
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
    struct find f = {addr, NULL, 0, 0, 0};
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
    const char *name, *unit;
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
    const char *unit = NULL; /* the local symbols after an STT_FILE symbol are its file's */
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);
        int type = GELF_ST_TYPE(sym.st_info);
        if (type == STT_FILE)
            unit = name && name[0] ? name : NULL;
        /* The symbols dwfl_module_addrinfo considers: named, defined, not a section, file or
           thread-local one. */
        if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
            type == STT_FILE || type == STT_TLS)
            continue;
        int bind = GELF_ST_BIND(sym.st_info);
        raw[k++] = (struct sym_raw){addr, sym.st_size,     name, bind == STB_LOCAL ? unit : NULL, i,
                                    bind, type == STT_FUNC};
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
            idx->entries[idx->count++] = (struct sym_entry){raw[i].addr, raw[i].size, raw[i].name,
                                                            raw[i].unit, raw[i].bind == STB_WEAK};
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

/* The entry of the function starting exactly at addr, when the index knows it; else NULL. */
static const struct sym_entry *index_entry(struct prof_symbolizer *s, Dwfl_Module *m,
                                           uintptr_t addr)
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
    return idx && lo < idx->count && idx->entries[lo].addr == addr ? &idx->entries[lo] : NULL;
}

/* The name of the function starting exactly at addr, when the index knows it; else NULL. */
static const char *index_name(struct prof_symbolizer *s, Dwfl_Module *m, uintptr_t addr)
{
    const struct sym_entry *e = index_entry(s, m, addr);
    return e ? e->name : NULL;
}

/*
 * The symbol name libdwfl gives addr's function, or NULL: the index's when it has it. Only an
 * entry (a function's first call) is looked for in the index: a call site (the memory checks'
 * sites, inside their functions) would only pay for building it. *size: the bytes of the
 * symbol's code from addr on (0: not known); *unit and *weak as the index says (NULL, 0 else).
 */
static const char *symbol_name(struct prof_symbolizer *s, Dwfl_Module *m, uintptr_t addr, int entry,
                               uint64_t *size, const char **unit, int *weak)
{
    const struct sym_entry *e = entry ? index_entry(s, m, addr) : NULL;
    *unit = e ? e->unit : NULL;
    *weak = e ? e->weak : 0;
    if (e) {
        *size = e->size;
        return e->name;
    }
    GElf_Off off = 0;
    GElf_Sym es;
    const char *name = dwfl_module_addrinfo(m, addr, &off, &es, NULL, NULL, NULL);
    *size = name && es.st_size > off ? es.st_size - off : 0;
    return name;
}

/* The name the fast path alone gives addr, or NULL when it leaves addr to libdwfl. */
const char *prof_sym_fast_name(struct prof_symbolizer *s, const void *addr)
{
    const char *path = NULL;
    uintptr_t bias = 0;
    Dwfl_Module *m = s ? module_of(s, (uintptr_t)addr, &path, &bias) : NULL;
    return m ? index_name(s, m, (uintptr_t)addr) : NULL;
}

uintptr_t prof_sym_module_key(const void *addr)
{
    struct find f = {(uintptr_t)addr, NULL, 0, 0, 0};
    dl_iterate_phdr(find_module, &f);
    return f.found ? f.low : 0;
}

/* Whether a symbol of the collector's own module is the collector's: its interface, its
   hooks (the rest of its code runs inside them or its slow paths, whose samples are its
   overhead before they are looked up, sample.c). */
static int collector_symbol(const char *name)
{
    return strncmp(name, "prof_", 5) == 0 || strncmp(name, "PROFILER_", 9) == 0 ||
           strncmp(name, "__cyg_profile_", 14) == 0;
}

size_t prof_sym_module_spans(struct prof_symbolizer *s, const void *addr, struct prof_sym_span *out,
                             size_t cap)
{
    uintptr_t key = prof_sym_module_key(addr);
    if (!s || !key)
        return 0;
    /* libprofreport-auto linked statically into the program: its functions are there too */
    int own = key == prof_sym_module_key((const void *)prof_sym_module_spans);
    const char *path = NULL;
    uintptr_t bias = 0;
    Dwfl_Module *m = module_of(s, (uintptr_t)addr, &path, &bias);
    struct sym_index *idx = m ? index_of(s, m) : NULL;
    if (!idx)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < idx->count; i++) {
        if (own && collector_symbol(idx->entries[i].name))
            continue;
        const char *name = idx->entries[i].name;
        /* a cold part runs in its function's frame; profreport.h's code compiled into the
           program (its scope guards, prof_mem_free_off) is the collector's region calls; a
           program function of its own named prof_... is the program's */
        int part = strstr(name, ".cold") || strstr(name, "prof_scope_guard") ||
                   strstr(name, "prof_api_guard") || strcmp(name, "prof_mem_free_off") == 0;
        if (n < cap)
            out[n] = (struct prof_sym_span){idx->entries[i].addr, idx->entries[i].size, part};
        n++;
    }
    return n;
}

/* The last path component. */
static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* What the units' lists alone say of addr's declaration (dwdecl.h), for the tests: -1 also
   when no module or unit holds addr. */
int prof_sym_fast_decl(struct prof_symbolizer *s, const void *addr, const char **file, int *line)
{
    const char *path = NULL;
    uintptr_t bias = 0;
    Dwfl_Module *m = s ? module_of(s, (uintptr_t)addr, &path, &bias) : NULL;
    return m ? prof_decls_fast(&s->decls, m, (uintptr_t)addr, file, line) : -1;
}

/* Demangle a C++ name; a C name (or one libiberty cannot read) comes back as a copy. */
char *prof_sym_demangle(const char *name)
{
    char *d = NULL;
    if (name[0] == '_' && name[1] == 'Z')
        d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
    return d ? d : strdup(name);
}

/* The hexadecimal build id of module m, or NULL when it has none (or memory ran out). */
static char *build_id_of(Dwfl_Module *m)
{
    char hex[PROF_DW_BUILD_ID_MAX];
    return prof_dw_build_id(m, hex) ? strdup(hex) : NULL;
}

/*
 * Describe the code address addr: its function's name (or module+0xoffset when the module has
 * no symbol for it), module path, the module's build id, and the offset from the module's load
 * bias; entry: addr is a function's entry (symbol_name). No DWARF is read: the source place is
 * prof_sym_locate's. Returns PROF_OK, PROF_ERR_NOMEM, or PROF_ERR_ARGUMENT when no loaded
 * module holds the address.
 */
static enum prof_error lookup(struct prof_symbolizer *s, const void *addr, struct prof_fn *out,
                              int entry)
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
    const char *sym = NULL, *unit = NULL;
    if (m) {
        sym = symbol_name(s, m, a, entry, &out->size, &unit, &out->weak);
        out->build_id = build_id_of(m);
        if (unit && !(out->unit = strdup(unit))) {
            prof_fn_release(out);
            return PROF_ERR_NOMEM;
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
    if (!out->name) {
        prof_fn_release(out);
        return PROF_ERR_NOMEM;
    }
    return PROF_OK;
}

enum prof_error prof_sym_lookup(struct prof_symbolizer *s, const void *addr, struct prof_fn *out)
{
    return lookup(s, addr, out, 1);
}

int prof_sym_locate(struct prof_symbolizer *s, const void *addr, char **file, unsigned *line)
{
    *file = NULL;
    *line = 0;
    const char *path = NULL;
    uintptr_t bias = 0;
    Dwfl_Module *m = s ? module_of(s, (uintptr_t)addr, &path, &bias) : NULL;
    return m ? prof_decls_locate(&s->decls, m, (uintptr_t)addr, file, line) : 0;
}

enum prof_error prof_sym_lookup_line(struct prof_symbolizer *s, const void *addr,
                                     struct prof_fn *out)
{
    enum prof_error err = lookup(s, addr, out, 0);
    Dwfl_Module *m = NULL;
    if (err == PROF_OK) {
        const char *path = NULL;
        uintptr_t bias = 0;
        m = module_of(s, (uintptr_t)addr, &path, &bias);
    }
    if (m && prof_decls_line(&s->decls, m, (uintptr_t)addr, &out->file, &out->line) < 0) {
        prof_fn_release(out);
        return PROF_ERR_NOMEM;
    }
    return err;
}

/* Free what prof_sym_lookup filled in. */
void prof_fn_release(struct prof_fn *fn)
{
    free(fn->name);
    free(fn->file);
    free(fn->module);
    free(fn->build_id);
    free(fn->unit);
    free(fn->decl_file);
    memset(fn, 0, sizeof *fn);
}
