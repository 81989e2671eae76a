/*
 * filter.c - PROFILER_INCLUDE and PROFILER_EXCLUDE's function filters (filter.h).
 */
#define _GNU_SOURCE /* strndup */
#include "filter.h"

#include "cxxname.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The whole of the regular file fd (at most PROF_FILTER_FILE_MAX bytes), NUL-terminated; NULL
   with *err set. */
static char *read_whole(int fd, size_t *len, int *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *err = errno;
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        *err = EINVAL;
        return NULL;
    }
    if ((uintmax_t)st.st_size > PROF_FILTER_FILE_MAX) {
        *err = EFBIG;
        return NULL;
    }
    /* one byte more than the limit: a file that grew since fstat is told apart */
    char *buf = malloc(PROF_FILTER_FILE_MAX + 2);
    if (!buf) {
        *err = ENOMEM;
        return NULL;
    }
    size_t n = 0;
    while (n <= PROF_FILTER_FILE_MAX) {
        ssize_t r = read(fd, buf + n, PROF_FILTER_FILE_MAX + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *err = errno;
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (n > PROF_FILTER_FILE_MAX) {
        *err = EFBIG;
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

char *prof_filter_file(const char *path, int *err)
{
    /* O_NONBLOCK: a FIFO named by mistake is refused (not a regular file), not waited on */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        *err = errno;
        return NULL;
    }
    size_t len = 0;
    char *text = read_whole(fd, &len, err);
    close(fd);
    if (!text)
        return NULL;
    if (memchr(text, 0, len)) {
        free(text);
        *err = EILSEQ;
        return NULL;
    }
    /* Each kept line, then a comma: in place, the output never passes the input. */
    char *out = text;
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        char *next = end ? end + 1 : line + strlen(line);
        if (!end)
            end = next;
        while (end > line && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
            end--;
        const char *first = line;
        while (first < end && (*first == ' ' || *first == '\t'))
            first++;
        if (first < end && *first != '#') {
            size_t n = (size_t)(end - first);
            if (out != text)
                *out++ = ',';
            memmove(out, first, n);
            out += n;
        }
        line = next;
    }
    *out = 0;
    return text;
}
