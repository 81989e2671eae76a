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
};

/* The function entries of one libdwfl module sorted by address: the fast path. */
struct sym_index {
    Dwfl_Module *mod;
    struct sym_entry *entries; /* NULL when the module has none, or memory ran out */
    size_t count;
    struct sym_index *next;
};

/* One address range of a compile unit, in the process's addresses. */
struct cu_range {
    Dwarf_Addr lo, hi;
    Dwarf_Die *cu; /* libdwfl's, valid while the Dwfl is */
};

/* A module's compile units by address, for a module whose DWARF has no .debug_aranges. */
struct cu_index {
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
struct decl_index {
    Dwarf_Die *cu;
    struct decl *decls; /* sorted by entry */
    size_t n, cap;
    struct decl_index *next;
};

struct prof_symbolizer {
    Dwfl *dwfl;
    char *exe;                 /* the main program's path */
    struct sym_index *indexes; /* one per module looked up */
    struct cu_index *cus;
    size_t ncus;
    struct decl_index *decls; /* the unit looked up last first */
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
    if (prof_program_path()[0])
        s->exe = strdup(prof_program_path());
    return s;
}

/* Close a symbolizer. */
void prof_sym_close(struct prof_symbolizer *s)
{
    if (!s)
        return;
    dwfl_end(s->dwfl);
    for (size_t i = 0; i < s->ncus; i++)
        free(s->cus[i].ranges);
    while (s->decls) {
        struct decl_index *next = s->decls->next;
        free(s->decls->decls);
        free(s->decls);
        s->decls = next;
    }
    free(s->cus);
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
            idx->entries[idx->count++] = (struct sym_entry){raw[i].addr, raw[i].size, raw[i].name};
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
 * symbol's code from addr on (0: not known).
 */
static const char *symbol_name(struct prof_symbolizer *s, Dwfl_Module *m, uintptr_t addr, int entry,
                               uint64_t *size)
{
    const struct sym_entry *e = entry ? index_entry(s, m, addr) : NULL;
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

/* A function's file: a relative name (clang writes the path the compiler was given, where
   gcc's declarations name the whole path) joined to its unit's compilation folder, so both
   compilers' builds name one file alike; a copy, or NULL when memory runs out. */
static char *in_unit_dir(Dwarf_Die *cu, const char *file)
{
    Dwarf_Attribute at;
    const char *dir =
        file[0] != '/' && cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at)) : NULL;
    if (!dir || dir[0] != '/')
        return strdup(file);
    size_t n = strlen(dir) + strlen(file) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, file);
    return p;
}

static int range_order(const void *a, const void *b)
{
    const struct cu_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every compile unit's address ranges of module m (dwarf_ranges), sorted; built once per
   module. NULL when memory runs out. */
static const struct cu_index *cu_index_of(struct prof_symbolizer *s, Dwfl_Module *m)
{
    for (size_t i = 0; i < s->ncus; i++)
        if (s->cus[i].mod == m)
            return &s->cus[i];
    struct cu_index *grown = realloc(s->cus, (s->ncus + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    s->cus = grown;
    struct cu_index *x = &s->cus[s->ncus++];
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
static Dwarf_Die *cu_of(struct prof_symbolizer *s, Dwfl_Module *m, uintptr_t addr, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = dwfl_module_addrdie(m, addr, bias);
    if (cu)
        return cu;
    const struct cu_index *x = cu_index_of(s, m);
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
static int decl_add(struct decl_index *x, Dwarf_Addr entry, const char *file, int line)
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
static int note_decl(Dwarf_Die *fn, struct decl_index *x)
{
    Dwarf_Addr entry, base, lo, hi;
    int line = 0;
    const char *file = dwarf_decl_file(fn);
    if (!file || dwarf_decl_line(fn, &line) != 0)
        file = NULL;
    if (dwarf_lowpc(fn, &entry) == 0)
        return decl_add(x, entry, file, line);
    if (dwarf_ranges(fn, 0, &base, &lo, &hi) > 0 && lo < hi)
        return decl_add(x, lo, file, line);
    return 0;
}

/* Note the functions defined among die's children, and in the namespaces among them: a
   function's definition (the entry with its code) is a child of its unit or of a namespace,
   never inside a class (whose members are declarations). -1 when memory runs out. */
static int walk_defs(Dwarf_Die *die, struct decl_index *x, int depth)
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
static struct decl_index *decls_of(struct prof_symbolizer *s, Dwarf_Die *cu)
{
    struct decl_index **p = &s->decls, *x = NULL;
    for (; *p; p = &(*p)->next)
        if ((*p)->cu == cu) {
            x = *p; /* to the front: a program's next calls are nearby */
            *p = x->next;
            x->next = s->decls;
            s->decls = x;
            return x;
        }
    if (!(x = calloc(1, sizeof *x)))
        return NULL;
    x->cu = cu;
    x->next = s->decls;
    s->decls = x;
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
static int listed_decl(struct prof_symbolizer *s, Dwarf_Die *cu, Dwarf_Addr bias, uintptr_t addr,
                       const char **file, int *line)
{
    const struct decl_index *x = decls_of(s, cu);
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
static int declared_at(struct prof_symbolizer *s, Dwarf_Die *cu, Dwarf_Addr bias, uintptr_t addr,
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

/* What the units' lists alone say of addr's declaration (listed_decl), for the tests: -1 also
   when no module or unit holds addr. */
int prof_sym_fast_decl(struct prof_symbolizer *s, const void *addr, const char **file, int *line)
{
    const char *path = NULL;
    uintptr_t bias = 0;
    Dwfl_Module *m = s ? module_of(s, (uintptr_t)addr, &path, &bias) : NULL;
    Dwarf_Addr cu_bias = 0;
    Dwarf_Die *cu = m ? cu_of(s, m, (uintptr_t)addr, &cu_bias) : NULL;
    return cu ? listed_decl(s, cu, cu_bias, (uintptr_t)addr, file, line) : -1;
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
        sym = symbol_name(s, m, a, !at_line, &out->size);
        int lineno = 0;
        const char *file = NULL;
        Dwarf_Addr cu_bias = 0;
        Dwarf_Die *cu = cu_of(s, m, a, &cu_bias);
        if (at_line || !declared_at(s, cu, cu_bias, a, &file, &lineno)) {
            /* No subprogram entry: the line table's line for the first instruction. */
            Dwfl_Line *line = dwfl_module_getsrc(m, a);
            file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
            Dwarf_Line *unit_line = !file && cu ? dwarf_getsrc_die(cu, a - cu_bias) : NULL;
            if (unit_line) {
                file = dwarf_linesrc(unit_line, NULL, NULL);
                if (dwarf_lineno(unit_line, &lineno) != 0)
                    lineno = 0;
            }
        }
        if (file) {
            out->file = at_line ? strdup(file) : in_unit_dir(cu, file);
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
