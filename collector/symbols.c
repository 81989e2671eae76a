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

struct prof_symbolizer {
    Dwfl *dwfl;
    char *exe; /* the main program's path */
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
    free(s->exe);
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

/* The last path component. */
static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/*
 * The declaration's file and line of the function holding addr, from its DWARF subprogram
 * entry (the line with the function's name, as a debugger shows it). 0 when there is none.
 */
static int declared_at(Dwfl_Module *m, uintptr_t addr, const char **file, int *line)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(m, addr, &bias);
    if (!cu)
        return 0;
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
        GElf_Off off = 0;
        GElf_Sym es;
        sym = dwfl_module_addrinfo(m, a, &off, &es, NULL, NULL, NULL);
        int lineno = 0;
        const char *file = NULL;
        if (at_line || !declared_at(m, a, &file, &lineno)) {
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
