/*
 * filter.h - which functions PROFILER_INCLUDE and PROFILER_EXCLUDE leave out (filter.c). One
 * definition for the collector, which skips their calls (collector/functions.c), and the
 * reporter, which knows a left-out function's rows from the run's Include and Exclude records
 * (their calls were not counted, docs/FORMAT.md 1.4).
 */
#ifndef PROF_FILTER_H
#define PROF_FILTER_H

/*
 * Whether a function of this name is recorded under the given filters, each a list of
 * comma-separated globs ("\," is a comma inside one; NULL: no filter). A glob matches the
 * whole name, the name without its parameters, or either without a template function's return
 * type, so "std::*" matches "bool std::operator==<char>(...)".
 */
int prof_filter_selected(const char *name, const char *include, const char *exclude);

/* The largest filter file prof_filter_file reads. */
#define PROF_FILTER_FILE_MAX (1u << 20)

/*
 * The patterns of a filter file (PROFILER_EXCLUDE=@FILE): one or more comma-separated globs a
 * line; blank lines and lines whose first non-blank character is '#' are skipped. Returns them
 * joined by commas (malloc'd, the caller frees; "" for a file without patterns), or NULL with
 * *err set: the file's open or read error, EINVAL when it is not a regular file, EFBIG when it
 * holds more than PROF_FILTER_FILE_MAX bytes, EILSEQ when it holds a NUL byte.
 */
char *prof_filter_file(const char *path, int *err);

#endif /* PROF_FILTER_H */
