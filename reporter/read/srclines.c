/*
 * srclines.c - the functions' source files and lines, read at report time from the modules
 * their runs name: the collector leaves DWARF alone (reading it was most of a short run's
 * cost), and says each function's module, offset and the module's build id instead.
 *
 * Each module is opened once, as a file (never a device or a pipe a run file might name), with
 * libdwfl (an offset is an address of the file, moved by libdwfl's bias), its build id compared
 * with the run's: a module rebuilt since the run would give other functions' lines. Separate debug
 * info is found by build id on this machine, never over the network (as in the collector).
 */
#define _GNU_SOURCE
#include "read/srclines.h"
#include "base/util.h"

#include "dwdecl.h"

#include <elfutils/libdwfl.h>

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most modules read: far more than any process maps; more is a run file that names
   anything, each a file to open. */
#define SRCLINES_MODULES 4096u

/* qsort order of the noted functions: by module, then as noted. */
static int by_module(const void *a, const void *b)
{
    const struct unlocated *x = a, *y = b;
    int c = strcmp(x->module, y->module);
    if (c)
        return c;
    return (x->region > y->region) - (x->region < y->region);
}

/* Open the module at path as libdwfl's only module of dwfl, or NULL with *why saying what
   stopped it. */
static Dwfl_Module *module_open(Dwfl *dwfl, const char *path, const char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *why = strerror(errno);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        *why = "not a regular file";
        close(fd);
        return NULL;
    }
    dwfl_report_begin(dwfl);
    Dwfl_Module *mod = dwfl_report_elf(dwfl, path, path, fd, 0, true);
    dwfl_report_end(dwfl, NULL, NULL);
    if (!mod) {
        close(fd); /* libdwfl takes the descriptor only when it succeeds */
        *why = "not an ELF file";
    }
    return mod;
}

/* Locate the functions u[0..n), all of one module. */
static void locate_module(struct model *m, const struct unlocated *u, size_t n)
{
    const char *path = u[0].module;
    Dwfl *dwfl = dwfl_begin(&prof_dw_callbacks);
    if (!dwfl)
        return;
    const char *why = NULL;
    Dwfl_Module *mod = module_open(dwfl, path, &why);
    if (!mod) {
        model_warn(m, path, "module not read", n, "%zu function%s without source file and line: %s",
                   n, n == 1 ? "" : "s", why);
        dwfl_end(dwfl);
        return;
    }
    char now[PROF_DW_BUILD_ID_MAX];
    prof_dw_build_id(mod, now);
    /* an offset is an address of the ELF file; libdwfl may place the module elsewhere */
    GElf_Addr bias = 0;
    if (!dwfl_module_getelf(mod, &bias))
        bias = 0;
    struct prof_decls decls;
    prof_decls_init(&decls);
    size_t changed = 0;
    const char *then = NULL;
    for (size_t i = 0; i < n; i++) {
        if (u[i].build_id && strcmp(u[i].build_id, now) != 0) {
            changed++;
            then = u[i].build_id;
            continue;
        }
        char *file = NULL;
        unsigned line = 0;
        if (prof_decls_locate(&decls, mod, (uintptr_t)(u[i].offset + bias), &file, &line) > 0) {
            struct region *r = &m->regions[u[i].region];
            r->file = utf8_repair(file, strlen(file));
            r->line = line;
        }
        free(file);
    }
    if (changed)
        model_warn(m, path, "module changed", changed,
                   "%zu function%s without source file and line: the module was rebuilt since "
                   "the run (build id %s, now %s)",
                   changed, changed == 1 ? "" : "s", then, now[0] ? now : "none");
    prof_decls_free(&decls);
    dwfl_end(dwfl);
}

void srclines_locate(struct model *m)
{
    if (!m->nunlocated)
        return;
    qsort(m->unlocated, m->nunlocated, sizeof *m->unlocated, by_module);
    size_t modules = 0, left = 0;
    for (size_t i = 0, j; i < m->nunlocated; i = j) {
        for (j = i + 1;
             j < m->nunlocated && strcmp(m->unlocated[j].module, m->unlocated[i].module) == 0; j++)
            ;
        if (modules++ < SRCLINES_MODULES)
            locate_module(m, m->unlocated + i, j - i);
        else
            left += j - i;
    }
    if (left)
        model_warn(m, "source lines", "modules not read", modules - SRCLINES_MODULES,
                   "%zu functions without source file and line: their runs name more than %u "
                   "modules, and only the first %u (by path) are read",
                   left, SRCLINES_MODULES, SRCLINES_MODULES);
    model_unlocated_clear(m);
}
