/*
 * program.h - the running program's own file (program.c), for the run file's Program line,
 * the symbolizer and the memory checker's reports.
 */
#ifndef PROF_PROGRAM_H
#define PROF_PROGRAM_H

#include "compiler.h"

/*
 * The path of the program's executable file, or "" when it cannot be known (no /proc, or the
 * program was started through the dynamic loader from a path that no longer resolves). Found
 * when the library is loaded; never changes.
 */
PROF_INTERNAL const char *prof_program_path(void);

#endif
