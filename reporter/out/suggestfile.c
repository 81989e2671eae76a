/*
 * suggestfile.c - the suggested exclusions as a gcc options file, a PROFILER_EXCLUDE line and
 * the terminal's account of them (suggestfile.h).
 */
#include "out/suggestfile.h"

#include "base/atomicfile.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GCC_OPTION "-finstrument-functions-exclude-function-list="

/* Room for any text made of the items: every character escaped, separators, the option. */
static char *text_alloc(const struct suggestion *s)
{
    size_t n = sizeof GCC_OPTION + 64;
    for (size_t i = 0; i < s->n; i++)
        n += 4 * (strlen(s->items[i].gcc_name) + strlen(s->items[i].glob)) + 8;
    return xmalloc(n);
}

/* The options file's text. */
char *suggest_options_text(const struct suggestion *s)
{
    char *out = text_alloc(s), *p = out;
    size_t listed = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->items[i].gcc != SUGGEST_GCC_OK)
            continue;
        /* a function template's instantiations share one name: list it once */
        size_t j = 0;
        while (j < i && (s->items[j].gcc != SUGGEST_GCC_OK ||
                         strcmp(s->items[j].gcc_name, s->items[i].gcc_name) != 0))
            j++;
        if (j < i)
            continue;
        if (!listed++) {
            strcpy(p, GCC_OPTION);
            p += strlen(p);
        } else {
            *p++ = ',';
        }
        char *e = suggest_escape(s->items[i].gcc_name, 0);
        /* libiberty's reading of an options file: a backslash keeps the next character */
        for (const char *c = e; *c; c++) {
            if (strchr(" \t\n\r\f\v'\"\\", *c))
                *p++ = '\\';
            *p++ = *c;
        }
        free(e);
    }
    if (listed)
        *p++ = '\n';
    *p = 0;
    return out;
}

/* PROFILER_EXCLUDE='...' for a shell. */
char *suggest_env_text(const struct suggestion *s)
{
    char *out = text_alloc(s), *p = out;
    p += sprintf(p, "PROFILER_EXCLUDE='");
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            *p++ = ',';
        for (const char *c = s->items[i].glob; *c; c++) {
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

/* Write the options file. */
int suggest_write(const char *path, const struct suggestion *s, struct rep_error *err)
{
    struct atomicfile a;
    if (atomicfile_open(&a, path, err) != 0)
        return -1;
    char *text = suggest_options_text(s);
    FILE *f = atomicfile_stream(&a);
    int bad = !f || fputs(text, f) == EOF;
    int saved = errno;
    if (f && fclose(f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    free(text);
    if (bad) {
        atomicfile_discard(&a);
        return rep_fail(err, REP_ERR_OUTPUT, "cannot write '%s': %s", path, strerror(saved));
    }
    return atomicfile_commit(&a, err);
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

/* The terminal's account of the suggestion written at path. */
void suggest_print(FILE *out, const struct suggestion *s, const char *path)
{
    size_t gcc = 0;
    for (size_t i = 0; i < s->n; i++)
        gcc += s->items[i].gcc == SUGGEST_GCC_OK;
    char hook[64] = "";
    if (s->hook_ns == s->hook_ns) /* not NaN: the threshold came from the runs' hook cost */
        snprintf(hook, sizeof hook, ", %.0f x the hooks' %.1f ns", SUGGEST_HOOK_FACTOR, s->hook_ns);
    fprintf(out,
            "suggest: %zu of %zu functions make %.1f%% of the calls, each call under %.1f ns%s\n",
            s->n, s->functions, 100 * s->call_share, s->max_mean_ns, hook);
    if (s->n)
        fprintf(out, "suggest: their hooks cost about %.0f%% of the program's own time\n",
                100 * s->hooks_share);
    if (!s->n) {
        fprintf(out, "suggest: %s: empty, nothing to leave out\n", path);
        return;
    }
    if (gcc)
        fprintf(out,
                "suggest: %s: %zu of them (%.1f%% of the calls) for gcc: rebuild with "
                "-finstrument-functions @%s\n",
                path, gcc, 100 * s->gcc_call_share, path);
    else
        fprintf(out, "suggest: %s: empty, gcc cannot name these functions alone\n", path);
    char *env = suggest_env_text(s);
    fprintf(out, "suggest: at run time instead (a table lookup per call remains): %s\n", env);
    free(env);
    fprintf(out, "suggest: %10s %10s %7s  %s\n", "calls/run", "ns/call", "time", "function");
    for (size_t i = 0; i < s->n; i++) {
        const struct suggest_item *it = &s->items[i];
        char calls[32];
        count_text(calls, sizeof calls, it->calls_per_run);
        fprintf(out, "suggest: %10s %10.1f %6.1f%%  %s", calls, it->mean_ns, 100 * it->time_share,
                it->name);
        if (it->gcc == SUGGEST_GCC_SPELLING)
            fprintf(out, "  (not for gcc: it spells the scope its own way)");
        else if (it->gcc == SUGGEST_GCC_CLASH)
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
            "--suggest-exclude FILE writes the gcc options that leave %s out\n",
            s->n, s->n == 1 ? "" : "s", s->max_mean_ns, 100 * s->call_share,
            s->n == 1 ? "it" : "them");
}
