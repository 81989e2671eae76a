/*
 * dwdecl.h - where a function's source declares it (file and line), read from its module's
 * DWARF with elfutils' libdw (dwdecl.c): the collector's symbolizer (PROFILER_SOURCE_LINES=run,
 * and names two functions share) and the reporter (a run's functions located at report time)
 * share this code. Not in the plain library: only libprofreport-auto and profreport link libdw.
 *
 * Ownership: a prof_decls holds its per-module and per-unit lists, which point into libdwfl's
 * data: free it (prof_decls_free) before dwfl_end. A located file is the caller's to free.
 */
#ifndef PROF_DWDECL_H
#define PROF_DWDECL_H

#include <elfutils/libdwfl.h>

#include <stddef.h>
#include <stdint.h>

/* The lists one Dwfl's lookups build as they go: its modules' compile units by address, and
   each unit looked up's functions by entry address. */
struct prof_decls {
    struct prof_cu_index *cus;
    size_t ncus;
    struct prof_decl_index *units; /* the unit looked up last first */
};

/* libdwfl's callbacks for modules reported by path or descriptor: no search for an ELF file,
   separate debug info found by build id on this machine (/usr/lib/debug/.build-id), never over
   the network (libdwfl's standard callbacks end with a query to the debuginfod servers in
   $DEBUGINFOD_URLS, which stalls for as long as a server takes to answer, and makes a setuid
   program create debuginfod's cache folder). */
extern const Dwfl_Callbacks prof_dw_callbacks;

/* Module m's build id in lowercase hexadecimal into hex (PROF_DW_BUILD_ID_MAX bytes): its
   length, 0 ("") when the module has none. */
#define PROF_DW_BUILD_ID_MAX 129
size_t prof_dw_build_id(Dwfl_Module *m, char *hex);

/* Empty lists. */
void prof_decls_init(struct prof_decls *d);
/* Free the lists (the Dwfl they were built from must still be open). */
void prof_decls_free(struct prof_decls *d);

/*
 * Where the function whose entry is addr (in the Dwfl's addresses) in module m is declared:
 * its subprogram entry's file and line (the line with its name, as a debugger shows it), or
 * the line table's line of its first instruction when DWARF has no such entry; a relative file
 * joined to its unit's compilation folder. 1 with *file (malloc'd) and *line (0 when not
 * known), 0 when DWARF does not say, -1 when memory runs out.
 */
int prof_decls_locate(struct prof_decls *d, Dwfl_Module *m, uintptr_t addr, char **file,
                      unsigned *line);

/* The line table's file (as the unit names it) and line of the instruction at addr in module m
   (where a call is): 1 with *file (malloc'd) and *line, 0 when DWARF does not say, -1 when
   memory runs out. */
int prof_decls_line(struct prof_decls *d, Dwfl_Module *m, uintptr_t addr, char **file,
                    unsigned *line);

/* What the per-unit lists of function entries alone say of the declaration of the function
   whose entry is addr: 1 with its file and line (libdw's strings), 0 when it has no declared
   place, -1 when the lists leave addr to dwarf_getscopes (the tests hold the two to agree). */
int prof_decls_fast(struct prof_decls *d, Dwfl_Module *m, uintptr_t addr, const char **file,
                    int *line);

#endif /* PROF_DWDECL_H */
