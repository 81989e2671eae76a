/*
 * filter.c - PROFILER_INCLUDE and PROFILER_EXCLUDE's function filters (filter.h).
 */
#define _GNU_SOURCE /* strndup */
#include "filter.h"

#include "cxxname.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/*
 * Whether name matches one of the comma-separated globs ("\," is a comma inside a pattern):
 * the whole name, the name without its parameters, or either without a template function's
 * return type, so "std::*" matches "bool std::operator==<char>(...)".
 */
static int matches(const char *name, const char *patterns)
{
    size_t bare = prof_cxx_bare_length(name);
    size_t from = prof_cxx_qualified_start(name, bare);
    char *short_name = strndup(name, bare);
    const char *names[] = {name, short_name, from ? name + from : NULL,
                           from && short_name ? short_name + from : NULL};
    char pat[1024];
    int hit = 0;
    for (const char *p = patterns; *p && !hit;) {
        size_t n = 0;
        for (; *p && *p != ','; p++) {
            if (*p == '\\' && p[1] == ',')
                p++;
            if (n < sizeof pat - 1)
                pat[n++] = *p;
        }
        if (*p == ',')
            p++;
        pat[n] = 0;
        while (n > 0 && pat[n - 1] == ' ')
            pat[--n] = 0;
        const char *q = pat;
        while (*q == ' ')
            q++;
        if (!*q)
            continue;
        for (size_t i = 0; i < sizeof names / sizeof names[0] && !hit; i++)
            hit = names[i] && fnmatch(q, names[i], 0) == 0;
    }
    free(short_name);
    return hit;
}

int prof_filter_selected(const char *name, const char *incl, const char *excl)
{
    if (incl && !matches(name, incl))
        return 0;
    return !(excl && matches(name, excl));
}
