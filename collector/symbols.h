/*
 * symbols.h - the description of a code address (symbols.c): demangled name, module, build id
 * and offset, read with elfutils' libdwfl, and on demand its source file and line. In
 * libprofreport-auto only; the plain library uses struct prof_fn as a type and never calls these
 * functions.
 *
 * Ownership: a struct prof_fn owns its strings (prof_fn_release frees them, not the struct);
 * prof_sym_demangle's result is the caller's to free.
 */
#ifndef PROF_SYMBOLS_H
#define PROF_SYMBOLS_H

#include "compiler.h"
#include "profreport.h"

#include <stddef.h>
#include <stdint.h>

/*
 * A function compiled with -finstrument-functions (auto.c, functions.c): described once per
 * process, at its first call, and never freed while the process lives.
 */
struct prof_fn {
    const void *addr;
    char *name; /* the region id: demangled, made unique among different functions */
    /* source file and line, written into the run; NULL unless read at run time
       (PROFILER_SOURCE_LINES=run, or a name two functions share: functions.c) */
    char *file;
    unsigned line;
    char *module;   /* the ELF file holding it */
    char *build_id; /* the module's build id in hexadecimal, or NULL when it has none */
    char *unit;     /* a file-local symbol's source file, as the symbol table names it, or NULL */
    int weak;       /* its symbol is weak: a C++ inline function or template instance, whose
                       copies in several modules are one function (the one-definition rule) */
    /* functions.c's, under its lock: where DWARF declares it, read when first needed
       (decl_known), decl_file NULL when DWARF does not say */
    char *decl_file;
    unsigned decl_line;
    int decl_known;
    uint64_t offset;    /* addr minus the module's load bias */
    uint64_t size;      /* its code's bytes from addr on, from its symbol (0: not known) */
    int skip;           /* left out by PROFILER_INCLUDE / PROFILER_EXCLUDE */
    uint32_t leftout;   /* skip or uninstrumented: its number in the left-out ranges (leftout.h),
                           0 if none */
    int uninstrumented; /* no hooks: described from a sample in its code (codemap.h) */
    int inlined;        /* gcc inlined copies of it, with their hooks, into other functions: their
                           samples are those functions' (functions.h, prof_fn_hook_seen); atomic */
};

struct prof_symbolizer;
/* Open a symbolizer for this process's code; NULL when libdwfl cannot start. */
struct prof_symbolizer *prof_sym_open(void);
void prof_sym_close(struct prof_symbolizer *s);
/* Describe the code at addr (name, module, build id, offset; no file or line) into out. */
enum prof_error prof_sym_lookup(struct prof_symbolizer *s, const void *addr, struct prof_fn *out);
/* The same, with file and line those of the instruction at addr (the line table's: where a
   call is, for the memory checks' sites). */
enum prof_error prof_sym_lookup_line(struct prof_symbolizer *s, const void *addr,
                                     struct prof_fn *out);
/* Where the function whose entry is addr is declared, from its module's DWARF (dwdecl.h): 1
   with *file (malloc'd) and *line, 0 when DWARF does not say, -1 when memory runs out. */
int prof_sym_locate(struct prof_symbolizer *s, const void *addr, char **file, unsigned *line);
/* The symbol name of the function starting at addr as the symbolizer's index of its module
   has it, or NULL when that address is left to libdwfl (for tests: the two must agree). */
const char *prof_sym_fast_name(struct prof_symbolizer *s, const void *addr);
/* What the per-unit lists of function entries alone say of the declaration of the function
   whose entry is addr: 1 with its file and line, 0 when it has no declared place, -1 when the
   lists leave addr to dwarf_getscopes (the tests hold the two to agree). */
int prof_sym_fast_decl(struct prof_symbolizer *s, const void *addr, const char **file, int *line);
/* A function's code as a module's symbol table gives it. */
struct prof_sym_span {
    uintptr_t lo;
    uint64_t size;
    int part; /* its samples are its caller's context's: a part of another function's code
                 (gcc's foo.cold: its blocks run in foo), or profreport.h's scope guards */
};
/* What names the module holding addr while it is loaded (its lowest loaded address); 0 when
   no module holds addr. */
uintptr_t prof_sym_module_key(const void *addr);
/* The functions of the module holding addr whose symbols alone name their code (sized, not
   overlapping), sorted by address, but the collector's own (prof_*, PROFILER_*, the hooks:
   libprofreport-auto linked statically): how many there are, the first cap of them in out;
   0 for a module without symbols. */
size_t prof_sym_module_spans(struct prof_symbolizer *s, const void *addr, struct prof_sym_span *out,
                             size_t cap);
/* A C++ symbol demangled, anything else copied; NULL when memory runs out. */
char *prof_sym_demangle(const char *name);
/* Free the strings of a description. */
void prof_fn_release(struct prof_fn *fn);

#endif /* PROF_SYMBOLS_H */
