/*
 * suggestfile.c - the suggested exclusions as a gcc options file, a PROFILER_EXCLUDE list
 * file, a PROFILER_EXCLUDE line and the terminal's account of them (suggestfile.h).
 */
#include "out/suggestfile.h"

#include "base/atomicfile.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GCC_OPTION "-finstrument-functions-exclude-function-list="

/* A list file's first line: ours to replace. */
#define LIST_HEAD "# profreport --suggest-list: "

/* Room for any text made of the items: every character escaped, separators, the option. */
static char *text_alloc(const struct suggestion *s)
{
    size_t n = sizeof GCC_OPTION + 64;
    for (size_t i = 0; i < s->n; i++)
        n += 4 * (strlen(s->items[i].gcc_name) + strlen(s->items[i].glob)) + 8;
    for (size_t i = 0; i < s->nleft_out; i++)
        n += 4 * strlen(s->left_out[i]) + 8;
    return xmalloc(n);
}

/* Whether c is white space as libiberty's options-file reader splits at it. */
static int is_space(char c) { return c && strchr(" \t\n\r\f\v", c) != NULL; }

/* The names an options file of ours lists. */
char **suggest_options_parse(const char *text, size_t *n)
{
    *n = 0;
    while (is_space(*text))
        text++;
    char **v = xmalloc(sizeof *v);
    if (!*text)
        return v;
    size_t len = strlen(GCC_OPTION);
    if (strncmp(text, GCC_OPTION, len) != 0) {
        free(v);
        return NULL;
    }
    /* the argument with the file's escapes undone: gcc's own list */
    char *list = xmalloc(strlen(text) + 1), *w = list;
    const char *r = text + len;
    for (; *r && !is_space(*r); r++) {
        if (*r == '\\' && r[1])
            r++;
        *w++ = *r;
    }
    *w = 0;
    while (is_space(*r))
        r++;
    if (*r) { /* a second argument: not a file of ours */
        free(list);
        free(v);
        return NULL;
    }
    /* split at the commas gcc splits at: those not written "\," */
    char *start = list;
    for (char *c = list;; c++) {
        if (*c == '\\' && c[1] == ',') {
            c++;
            continue;
        }
        if (*c == ',' || !*c) {
            int last = !*c;
            *c = 0;
            if (*start) {
                v = xrealloc(v, (*n + 1) * sizeof *v);
                v[(*n)++] = xstrdup(start);
            }
            if (last)
                break;
            start = c + 1;
        }
    }
    free(list);
    return v;
}

/* Free what suggest_options_parse returned. */
void suggest_names_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* Add name to v (n of them) unless it is there: 1 when added. */
static int name_add(char **v, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(v[i], name) == 0)
            return 0;
    v[(*n)++] = xstrdup(name);
    return 1;
}

/* The patterns a list file of ours holds. */
char **suggest_list_parse(const char *text, size_t *n)
{
    *n = 0;
    const char *t = text;
    while (is_space(*t))
        t++;
    if (*t && strncmp(text, LIST_HEAD, strlen(LIST_HEAD)) != 0)
        return NULL;
    /* a pattern and the comma or line break after it take two characters at least */
    char **v = xmalloc((strlen(text) / 2 + 2) * sizeof *v);
    char *buf = xmalloc(strlen(text) + 1);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        const char *next = end ? end + 1 : line + strlen(line);
        if (!end)
            end = next;
        while (line < end && strchr(" \t", *line))
            line++;
        if (line < end && *line != '#') {
            /* the patterns of the line, split at the commas the collector splits at, each
               trimmed as it trims them; "\," stays as written */
            for (const char *p = line; p < end;) {
                size_t k = 0;
                for (; p < end && *p != ','; p++) {
                    if (*p == '\\' && p + 1 < end && p[1] == ',')
                        buf[k++] = *p++;
                    buf[k++] = *p;
                }
                if (p < end)
                    p++;
                while (k > 0 && strchr(" \t\r", buf[k - 1]))
                    k--;
                buf[k] = 0;
                const char *b = buf;
                while (*b == ' ' || *b == '\t')
                    b++;
                if (*b)
                    name_add(v, n, b);
            }
        }
        line = next;
    }
    free(buf);
    return v;
}

/* The list file's text. */
char *suggest_list_text(const struct suggestion *s, const char *const *kept, size_t nkept)
{
    size_t total = nkept + s->nleft_out + s->n, n = 0, room = 512;
    char **names = xmalloc((total + 1) * sizeof *names);
    for (size_t i = 0; i < total; i++) {
        const char *g = i < nkept                  ? kept[i]
                        : i < nkept + s->nleft_out ? s->left_out[i - nkept]
                                                   : s->items[i - nkept - s->nleft_out].glob;
        /* A line is one pattern or more: one with a line break in it cannot be written. A
           leading '#' would make the line a comment: "\#" is the same glob (and the same
           line as a kept one written so before). */
        if (strpbrk(g, "\n\r"))
            continue;
        char *line = xmalloc(strlen(g) + 2);
        sprintf(line, "%s%s", g[0] == '#' ? "\\" : "", g);
        if (name_add(names, &n, line))
            room += strlen(line) + 1;
        free(line);
    }
    char *out = xmalloc(room), *p = out;
    p += sprintf(p,
                 LIST_HEAD "PROFILER_EXCLUDE=@FILE leaves these functions out at run time\n"
                           "# (either compiler, no rebuild): one glob a line, the runs' own first, "
                           "then the hot,\n# tiny functions they found. Edit freely; "
                           "--suggest-list adds to the list it finds here.\n");
    for (size_t i = 0; i < n; i++) {
        p += sprintf(p, "%s\n", names[i]);
        free(names[i]);
    }
    free(names);
    return out;
}

/* The options file's text. */
char *suggest_options_text(const struct suggestion *s, const char *const *kept, size_t nkept)
{
    /* gcc's list: the kept names, then each new name once (a function template's
       instantiations share one) */
    size_t n = 0, room = 4 * sizeof GCC_OPTION;
    char **names = xmalloc((nkept + s->n + 1) * sizeof *names);
    for (size_t i = 0; i < nkept + s->n; i++) {
        char *e;
        if (i < nkept)
            e = xstrdup(kept[i]);
        else if (s->items[i - nkept].gcc == SUGGEST_GCC_OK)
            e = suggest_escape(s->items[i - nkept].gcc_name, 0);
        else
            continue;
        size_t j = 0;
        while (j < n && strcmp(names[j], e) != 0)
            j++;
        if (j < n) {
            free(e);
            continue;
        }
        names[n++] = e;
        room += 2 * strlen(e) + 1;
    }
    char *out = xmalloc(room), *p = out;
    for (size_t i = 0; i < n; i++) {
        if (i == 0) {
            strcpy(p, GCC_OPTION);
            p += strlen(p);
        } else {
            *p++ = ',';
        }
        /* libiberty's reading of an options file: a backslash keeps the next character */
        for (const char *c = names[i]; *c; c++) {
            if (is_space(*c) || strchr("'\"\\", *c))
                *p++ = '\\';
            *p++ = *c;
        }
        free(names[i]);
    }
    free(names);
    if (n)
        *p++ = '\n';
    *p = 0;
    return out;
}

/* PROFILER_EXCLUDE='...' for a shell: the patterns the runs left out already, then each
   suggested function's not among them. */
char *suggest_env_text(const struct suggestion *s)
{
    char *out = text_alloc(s), *p = out;
    p += sprintf(p, "PROFILER_EXCLUDE='");
    int first = 1;
    for (size_t i = 0; i < s->nleft_out + s->n; i++) {
        const char *glob = i < s->nleft_out ? s->left_out[i] : s->items[i - s->nleft_out].glob;
        int seen = 0;
        for (size_t k = 0; k < s->nleft_out && i >= s->nleft_out && !seen; k++)
            seen = strcmp(s->left_out[k], glob) == 0;
        if (seen)
            continue;
        if (!first)
            *p++ = ',';
        first = 0;
        for (const char *c = glob; *c; c++) {
            if (*c == '\'') {
                strcpy(p, "'\\''");
                p += 4;
            } else {
                *p++ = *c;
            }
        }
    }
    strcpy(p, "'");
    return out;
}

/* The text of the file at path (NULL with errno when it cannot be read; ENOENT: none). */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = 0, cap = 4096;
    char *t = xmalloc(cap);
    for (size_t got; (got = fread(t + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (cap - n < 2)
            t = xrealloc(t, cap *= 2);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(t);
        errno = EIO;
        return NULL;
    }
    t[n] = 0;
    return t;
}

/* The names of the file of ours at path, *n of them (none when there is no file): NULL with
   err when it cannot be read or is not ours. */
static char **names_at(const char *path, enum suggest_file kind, size_t *n, struct rep_error *err)
{
    *n = 0;
    char *before = read_text(path);
    if (!before && errno != ENOENT) {
        rep_fail(err, REP_ERR_OUTPUT, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    char **old = !before                        ? xmalloc(sizeof *old)
                 : kind == SUGGEST_FILE_OPTIONS ? suggest_options_parse(before, n)
                                                : suggest_list_parse(before, n);
    free(before);
    if (!old && kind == SUGGEST_FILE_OPTIONS)
        rep_fail(err, REP_ERR_OUTPUT,
                 "'%s' is not a --suggest-exclude file (one %s... option): not replaced", path,
                 GCC_OPTION);
    else if (!old)
        rep_fail(err, REP_ERR_OUTPUT,
                 "'%s' is not a --suggest-list file (its first line is not '%s...'): not "
                 "replaced",
                 path, LIST_HEAD);
    return old;
}

/* Check, before any work, that path can take a suggestion, and create its temporary. */
int suggest_open(struct atomicfile *a, const char *path, enum suggest_file kind,
                 struct rep_error *err)
{
    if (atomicfile_target_check(path, err) != 0)
        return -1;
    size_t n;
    char **old = names_at(path, kind, &n, err);
    if (!old)
        return -1;
    suggest_names_free(old, n);
    return atomicfile_open(a, path, err);
}

/* Write the file's text into its temporary, keeping the names a file of ours there lists. */
int suggest_fill(struct atomicfile *a, enum suggest_file kind, const struct suggestion *s,
                 size_t *kept, struct rep_error *err)
{
    const char *path = a->target;
    char **old = names_at(path, kind, kept, err);
    if (!old)
        return -1;
    char *text = kind == SUGGEST_FILE_OPTIONS
                     ? suggest_options_text(s, (const char *const *)old, *kept)
                     : suggest_list_text(s, (const char *const *)old, *kept);
    suggest_names_free(old, *kept);
    FILE *f = atomicfile_stream(a);
    int bad = !f || fputs(text, f) == EOF;
    int saved = errno;
    if (f && fclose(f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    free(text);
    if (bad)
        return rep_fail(err, REP_ERR_OUTPUT, "cannot write '%s': %s", path, strerror(saved));
    return 0;
}

/* A count per run in few digits: 15.4 M, 820 k, 96. */
static void count_text(char *buf, size_t size, double v)
{
    if (v >= 1e6)
        snprintf(buf, size, "%.1f M", v / 1e6);
    else if (v >= 1e4)
        snprintf(buf, size, "%.0f k", v / 1e3);
    else
        snprintf(buf, size, "%.0f", v);
}

/* What the terminal says of one file written: the names it kept, or that it has no more. */
static void file_print(FILE *out, const struct suggestion *s, const char *path, size_t kept,
                       const char *what)
{
    if (kept)
        fprintf(out, "suggest: %s: keeps the %zu %s%s it listed (left out of this run)\n", path,
                kept, what, kept == 1 ? "" : "s");
    if (!s->n)
        fprintf(out, "suggest: %s: %s\n", path,
                kept ? "nothing more to leave out" : "empty, nothing to leave out");
}

/* The terminal's account of the suggestion and the files written. */
void suggest_print(FILE *out, const struct suggestion *s, const struct suggest_files *w)
{
    size_t gcc = 0;
    for (size_t i = 0; i < s->n; i++)
        gcc += s->items[i].gcc == SUGGEST_GCC_OK;
    char hook[64] = "";
    if (s->hook_ns == s->hook_ns) /* not NaN: the threshold came from the runs' hook cost */
        snprintf(hook, sizeof hook, ", %.0f x the hooks' %.1f ns", SUGGEST_HOOK_FACTOR, s->hook_ns);
    if (s->cheap)
        fprintf(out,
                "suggest: %zu of %zu functions make many calls, each under %.1f ns%s, but their "
                "hooks cost under %.0f%% of the program's own time: nothing worth leaving out\n",
                s->cheap, s->functions, s->max_mean_ns, hook, 100 * SUGGEST_MIN_HOOKS_SHARE);
    else
        fprintf(out,
                "suggest: %zu of %zu functions make %.1f%% of the calls, each call under %.1f "
                "ns%s\n",
                s->n, s->functions, 100 * s->call_share, s->max_mean_ns, hook);
    if (s->n) {
        double own = 0;
        for (size_t i = 0; i < s->n; i++)
            own += s->items[i].self_share; /* self times: nested items count once */
        fprintf(out,
                "suggest: their hooks cost about %.0f%% of the program's own time; their own "
                "%.1f%% of the time stays theirs (calls not counted) when gcc or "
                "PROFILER_EXCLUDE leaves them out, with sampled timing (the default)\n",
                100 * s->hooks_share, 100 * own);
    }
    if (w->options)
        file_print(out, s, w->options, w->options_kept, "name");
    if (w->list)
        file_print(out, s, w->list, w->list_kept, "glob");
    if (!s->n)
        return;
    if (w->options && gcc)
        fprintf(out,
                "suggest: %s: %zu of them (%.1f%% of the calls) for gcc: rebuild with "
                "-finstrument-functions @%s\n",
                w->options, gcc, 100 * s->gcc_call_share, w->options);
    else if (w->options)
        fprintf(out, "suggest: %s: gcc cannot name these functions alone\n", w->options);
    if (w->list)
        fprintf(out,
                "suggest: %s: for either compiler, without rebuilding (each hook call patched "
                "out at its first call): PROFILER_EXCLUDE=@%s\n",
                w->list, w->list);
    if (!w->list) {
        char *env = suggest_env_text(s);
        fprintf(out,
                "suggest: at run time, without rebuilding (each hook call patched out at its "
                "first call)%s: %s\n",
                s->nleft_out ? ", with what these runs left out" : "", env);
        free(env);
    }
    fprintf(out, "suggest: %10s %10s %7s  %s\n", "calls/run", "ns/call", "time", "function");
    for (size_t i = 0; i < s->n; i++) {
        const struct suggest_item *it = &s->items[i];
        char calls[32];
        count_text(calls, sizeof calls, it->calls_per_run);
        /* the short name, as the profile above shows it: a C++ name in full ran to 1,900
           characters (the files hold the full names) */
        fprintf(out, "suggest: %10s %10.1f %6.1f%%  %s", calls, it->mean_ns, 100 * it->time_share,
                it->short_name ? it->short_name : it->name);
        /* gcc's limits are said with its file */
        if (w->options && it->gcc == SUGGEST_GCC_SPELLING)
            fprintf(out, "  (not for gcc: it spells the scope its own way)");
        else if (w->options && it->gcc == SUGGEST_GCC_CLASH)
            fprintf(out, "  (not for gcc: '%s' would also leave out %s)", it->gcc_name, it->clash);
        fputc('\n', out);
    }
}

/* One line when a suggestion is worth making. */
void suggest_hint(FILE *out, const struct suggestion *s)
{
    if (!s->n || s->call_share < SUGGEST_HINT_CALL_SHARE ||
        s->hooks_share < SUGGEST_HINT_COST_SHARE)
        return;
    fprintf(out,
            "hooks: %zu tiny function%s (under %.0f ns a call) make %.0f%% of the calls: "
            "--suggest-exclude FILE writes the gcc options that leave %s out, "
            "--suggest-list FILE a list for PROFILER_EXCLUDE=@FILE\n",
            s->n, s->n == 1 ? "" : "s", s->max_mean_ns, 100 * s->call_share,
            s->n == 1 ? "it" : "them");
}
