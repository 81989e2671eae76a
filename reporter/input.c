/*
 * input.c - turn the command line's paths into the list of runs to read, and read each one:
 * run files through the parser, a killed run's .part files through prof_recover first.
 */
#include "report.h"

#include <profreport.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Whether name ends with suffix. */
static int ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && strcmp(name + n - s, suffix) == 0;
}

/* The run a part belongs to: its path up to ".<thread>.part" (caller frees), or NULL. */
static char *part_run(const char *path)
{
    if (!ends_with(path, ".part"))
        return NULL;
    size_t n = strlen(path) - 5;
    size_t d = n;
    while (d > 0 && path[d - 1] >= '0' && path[d - 1] <= '9')
        d--;
    if (d == n || d == 0 || path[d - 1] != '.')
        return NULL;
    return xstrndup(path, d - 1);
}

/* Add a run file input. */
static void add_file(struct input **v, size_t *n, const char *path)
{
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    struct input *in = &(*v)[(*n)++];
    memset(in, 0, sizeof *in);
    in->path = xstrdup(path);
    in->display = xstrdup(path);
}

/* Add a part to the input of its run, creating it on first sight. */
static void add_part(struct input **v, size_t *n, const char *path, const char *run)
{
    struct input *in = NULL;
    for (size_t i = 0; i < *n; i++)
        if (!(*v)[i].path && strcmp((*v)[i].display, run) == 0)
            in = &(*v)[i];
    if (!in) {
        *v = xrealloc(*v, (*n + 1) * sizeof **v);
        in = &(*v)[(*n)++];
        memset(in, 0, sizeof *in);
        in->display = xstrdup(run);
    }
    in->parts = xrealloc(in->parts, (in->nparts + 1) * sizeof *in->parts);
    in->parts[in->nparts++] = xstrdup(path);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add a folder's run files and parts, in name order. */
static void add_dir(struct input **v, size_t *n, const char *dir, struct model *m)
{
    DIR *d = opendir(dir);
    if (!d) {
        model_warn(m, dir, "unreadable", 1, "cannot open folder: %s", strerror(errno));
        warn_msg("cannot open '%s': %s", dir, strerror(errno));
        return;
    }
    char **names = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue; /* also skips a run file being written (.profiling_...csv.tmp) */
        if (!ends_with(e->d_name, ".csv") && !ends_with(e->d_name, ".part"))
            continue;
        names = xrealloc(names, (count + 1) * sizeof *names);
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[count] = xmalloc(len);
        snprintf(names[count], len, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name);
        count++;
    }
    closedir(d);
    if (count)
        qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        char *run = part_run(names[i]);
        if (run) {
            /* A run file of the same run means its merge finished: the part is left over. */
            size_t len = strlen(run) + 5;
            char *csv = xmalloc(len);
            snprintf(csv, len, "%s.csv", run);
            struct stat st;
            if (stat(csv, &st) != 0)
                add_part(v, n, names[i], run);
            free(csv);
            free(run);
        } else {
            add_file(v, n, names[i]);
        }
        free(names[i]);
    }
    free(names);
}

/* The runs named by the paths. */
size_t inputs_collect(const char *const *paths, size_t npaths, struct input **out, struct model *m)
{
    struct input *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < npaths; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            model_warn(m, paths[i], "unreadable", 1, "cannot open: %s", strerror(errno));
            warn_msg("cannot open '%s': %s", paths[i], strerror(errno));
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            add_dir(&v, &n, paths[i], m);
            continue;
        }
        char *run = part_run(paths[i]);
        if (run)
            add_part(&v, &n, paths[i], run);
        else
            add_file(&v, &n, paths[i]);
        free(run);
    }
    *out = v;
    return n;
}

/* Free the inputs. */
void inputs_free(struct input *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(in[i].path);
        free(in[i].display);
        for (size_t k = 0; k < in[i].nparts; k++)
            free(in[i].parts[k]);
        free(in[i].parts);
    }
    free(in);
}

/* Read one input into the model. */
enum run_status input_read(const struct input *in, struct model *m)
{
    if (in->path) {
        FILE *f = fopen(in->path, "rb");
        if (!f) {
            model_warn(m, in->path, "skipped", 1, "file skipped: %s", strerror(errno));
            warn_msg("cannot open '%s': %s", in->path, strerror(errno));
            return RUNFILE_IO_ERROR;
        }
        enum run_status st = model_add_run(m, f, in->path, 0);
        fclose(f);
        return st;
    }
    /* A killed run: the library rebuilds its run file in memory-backed temporary storage. */
    FILE *f = tmpfile();
    if (!f)
        die_msg("cannot create a temporary file: %s", strerror(errno));
    enum prof_error e = prof_recover((const char *const *)in->parts, in->nparts, f);
    if (e != PROF_OK) {
        model_warn(m, in->display, "skipped", 1, "parts of a killed run skipped: %s",
                   prof_strerror(e));
        fclose(f);
        return RUNFILE_SKIPPED;
    }
    rewind(f);
    char name[4096];
    snprintf(name, sizeof name, "%s (%zu part%s of a killed run)", in->display, in->nparts,
             in->nparts == 1 ? "" : "s");
    enum run_status st = model_add_run(m, f, name, 1);
    fclose(f);
    return st;
}
