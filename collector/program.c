/*
 * program.c - the running program's own file.
 *
 * /proc/self/exe names it, except when the program was started through the dynamic loader
 * (`/lib64/ld-linux-x86-64.so.2 ./prog`, as wrappers and relocatable bundles do): the kernel
 * then ran the loader, and /proc/self/exe names the loader, whose symbols would name every
 * function of the program wrongly. That case is told by the loader being the program's own
 * interpreter (its PT_INTERP); the program's path is then the argv[0] the loader passed on, as
 * the loader opened it: relative to the folder the process started in, so it is resolved
 * while the library loads, before the program can change folder.
 */
#define _GNU_SOURCE /* program_invocation_name */
#include "program.h"

#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[PATH_MAX];

/* dl_iterate_phdr callback: the first module is the main program; its interpreter's path. */
static int main_interpreter(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_INTERP)
            *(const char **)data = (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    return 1;
}

/* Whether two paths name one file. */
static int same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

__attribute__((constructor)) static void find_program(void)
{
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    path[n > 0 ? n : 0] = 0;
    const char *interp = NULL;
    dl_iterate_phdr(main_interpreter, &interp);
    if (!path[0] || !interp || !same_file(path, interp))
        return;
    char real[PATH_MAX];
    const char *arg0 = program_invocation_name;
    if (arg0 && realpath(arg0, real) && !same_file(real, interp))
        memcpy(path, real, strlen(real) + 1);
    else
        path[0] = 0; /* the loader's symbols are not the program's: better none */
}

const char *prof_program_path(void) { return path; }
