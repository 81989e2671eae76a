/*
 * input.c - turn the command line's paths into the list of runs to read, and read each one:
 * run files through the parser, a killed run's .part files through partfile.c.
 */
#define _GNU_SOURCE /* fopencookie */
#include "read/input.h"
#include "model/model.h"
#include "base/util.h"

#include "read/partfile.h"
#include "read/runfile.h"

#include <profreport.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* What a file that is not a regular one is, for messages. */
static const char *file_kind(mode_t mode)
{
    return S_ISFIFO(mode)   ? "a FIFO"
           : S_ISDIR(mode)  ? "a folder"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
                            : "not a regular file";
}

/* Warn that path is skipped because it is not a regular file. */
static void skip_special(struct model *m, const char *path, mode_t mode)
{
    model_warn(m, path, "skipped", 1, "file skipped: not a regular file (%s)", file_kind(mode));
    warn_msg("skipping '%s': not a regular file (%s)", path, file_kind(mode));
}

/* The inputs collected so far: v[0..n), room for cap (grown by doubling: a fleet's folder
   may hold many thousands of runs). */
struct input_list {
    struct input *v;
    size_t n, cap;
};

/* A new, zeroed input at the end of the list. */
static struct input *input_new(struct input_list *l)
{
    l->v = xgrow_zeroed(l->v, &l->cap, l->n, sizeof *l->v);
    return &l->v[l->n++];
}

/* Add a run file input; stream: a pipe named on the command line, read as it comes. */
static void add_file(struct input_list *l, const char *path, int stream)
{
    struct input *in = input_new(l);
    in->path = xstrdup(path);
    in->display = xstrdup(path);
    in->stream = stream;
}

/* The killed runs met so far, by the name of their parts' run: a folder may hold the parts
   of many, and a scan along the inputs for each part would be quadratic. */
struct part_runs {
    struct str_index index; /* over names[0..n) */
    char **names;           /* not owned: the inputs' display names */
    size_t *at;             /* names[i]'s input */
    size_t n, cap;
};

/* Add a part to the input of its run, creating it on first sight. */
static void add_part(struct input_list *l, const char *path, const char *run,
                     struct part_runs *runs)
{
    size_t k = str_index_find(&runs->index, runs->names, run);
    struct input *in;
    if (k != SIZE_MAX) {
        in = &l->v[runs->at[k]];
    } else {
        in = input_new(l);
        in->display = xstrdup(run);
        if (runs->n == runs->cap) {
            runs->cap = runs->cap ? 2 * runs->cap : 16;
            runs->names = xrealloc(runs->names, runs->cap * sizeof *runs->names);
            runs->at = xrealloc(runs->at, runs->cap * sizeof *runs->at);
        }
        runs->names[runs->n] = in->display;
        runs->at[runs->n] = l->n - 1;
        str_index_add(&runs->index, runs->names);
        runs->n++;
    }
    in->parts = xgrow_doubling(in->parts, in->nparts, sizeof *in->parts);
    in->parts[in->nparts++] = xstrdup(path);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add a folder's run files and parts, in name order. */
static void add_dir(struct input_list *l, const char *dir, struct model *m, struct part_runs *runs)
{
    DIR *d = opendir(dir);
    if (!d) {
        model_warn(m, dir, "unreadable", 1, "cannot open folder: %s", strerror(errno));
        warn_msg("cannot open '%s': %s", dir, strerror(errno));
        return;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue; /* also skips a run file being written (.profiling_...csv.tmp) */
        if (!ends_with(e->d_name, ".csv") && !ends_with(e->d_name, ".part"))
            continue;
        names = xgrow_zeroed(names, &cap, count, sizeof *names);
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[count] = xmalloc(len);
        snprintf(names[count], len, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name);
        count++;
    }
    closedir(d);
    if (count)
        qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        /* A FIFO or device named like a run file would block the read or never end. */
        struct stat st;
        if (stat(names[i], &st) == 0 && !S_ISREG(st.st_mode)) {
            skip_special(m, names[i], st.st_mode);
            free(names[i]);
            continue;
        }
        char *run = part_run(names[i]);
        if (run) {
            /* A run file of the same run means its merge finished: the part is left over. */
            size_t len = strlen(run) + 5;
            char *csv = xmalloc(len);
            snprintf(csv, len, "%s.csv", run);
            if (stat(csv, &st) != 0)
                add_part(l, names[i], run, runs);
            free(csv);
            free(run);
        } else {
            add_file(l, names[i], 0);
        }
        free(names[i]);
    }
    free(names);
}

/* The runs named by the paths. */
size_t inputs_collect(const char *const *paths, size_t npaths, struct input **out, struct model *m)
{
    struct input_list l = {0};
    struct part_runs runs = {0};
    for (size_t i = 0; i < npaths; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            model_warn(m, paths[i], "unreadable", 1, "cannot open: %s", strerror(errno));
            warn_msg("cannot open '%s': %s", paths[i], strerror(errno));
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            add_dir(&l, paths[i], m, &runs);
            continue;
        }
        /* A pipe named on purpose (profreport <(zcat run.csv.gz)) is read; devices and
           sockets are not run files. */
        if (S_ISFIFO(st.st_mode)) {
            add_file(&l, paths[i], 1);
            continue;
        }
        if (!S_ISREG(st.st_mode)) {
            skip_special(m, paths[i], st.st_mode);
            continue;
        }
        char *run = part_run(paths[i]);
        if (run)
            add_part(&l, paths[i], run, &runs);
        else
            add_file(&l, paths[i], 0);
        free(run);
    }
    str_index_release(&runs.index);
    free(runs.names);
    free(runs.at);
    *out = l.v;
    return l.n;
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

/* Open a run file input for reading, telling nobody why it failed (see input.h). */
int input_open_quiet(const struct input *in, int *err, mode_t *mode)
{
    *err = 0;
    *mode = 0;
    /* Without O_NONBLOCK, opening a FIFO put in place of a file since it was listed would
       wait for a writer. */
    int fd = open(in->path, O_RDONLY | O_CLOEXEC | (in->stream ? 0 : O_NONBLOCK));
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *err = errno ? errno : EIO;
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!in->stream && !S_ISREG(st.st_mode)) {
        *mode = st.st_mode;
        close(fd);
        return -1;
    }
    if (!in->stream)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* The warnings of an input that input_open_quiet could not open. */
void input_open_failed(const struct input *in, struct model *m, int err, mode_t mode)
{
    if (err) {
        model_warn(m, in->path, "skipped", 1, "file skipped: %s", strerror(err));
        warn_msg("cannot open '%s': %s", in->path, strerror(err));
    } else {
        skip_special(m, in->path, mode);
    }
}

/* Open a run file input for reading (see input.h). */
int input_open(const struct input *in, struct model *m)
{
    int err;
    mode_t mode;
    int fd = input_open_quiet(in, &err, &mode);
    if (fd < 0)
        input_open_failed(in, m, err, mode);
    return fd;
}

/* The bytes of the inputs' files. */
off_t inputs_size(const struct input *in, size_t n)
{
    off_t total = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        for (size_t k = 0; k < (in[i].path ? 1 : in[i].nparts); k++)
            if (stat(in[i].path ? in[i].path : in[i].parts[k], &st) == 0)
                total += st.st_size;
    }
    return total;
}

/* A run file's descriptor and whom to tell of the bytes read from it. */
struct counted {
    int fd;
    const struct input_progress *p;
};

/* A run file's parser as a run_reader. */
static enum run_status read_runfile(void *f, const struct run_handler *h, struct rep_error *why,
                                    unsigned long *line)
{
    return runfile_parse(f, "", h, why, line);
}

/* Read one run file into the model. */
enum run_status input_add_run(struct model *m, FILE *f, const char *name, int recovered)
{
    return model_read_run(m, name, recovered, read_runfile, f);
}

/* fopencookie read function: the file's bytes, counted. */
static ssize_t counted_read(void *cookie, char *buf, size_t size)
{
    struct counted *c = cookie;
    ssize_t r = read(c->fd, buf, size);
    if (r > 0)
        c->p->add(c->p->ctx, (size_t)r);
    return r;
}

/* fopencookie close function. */
static int counted_close(void *cookie)
{
    struct counted *c = cookie;
    int r = close(c->fd);
    free(c);
    return r;
}

/* Read one run file input into the model, counting its bytes into p when not NULL. */
static enum run_status read_file(const struct input *in, struct model *m,
                                 const struct input_progress *p)
{
    int fd = input_open(in, m);
    if (fd < 0)
        return RUNFILE_IO_ERROR;
    FILE *f;
    if (p) {
        struct counted *c = xmalloc(sizeof *c);
        *c = (struct counted){fd, p};
        cookie_io_functions_t io = {counted_read, NULL, NULL, counted_close};
        f = fopencookie(c, "r", io);
        if (!f)
            free(c);
    } else {
        f = fdopen(fd, "rb");
    }
    /* A stream over an open descriptor fails only when its buffer cannot be allocated: out of
       memory, the one failure that ends the command (rep_error.h). */
    if (!f)
        die_nomem(NULL);
    enum run_status st = input_add_run(m, f, in->path, 0);
    fclose(f);
    return st;
}

/* Read one input into the model. */
enum run_status input_read(const struct input *in, struct model *m)
{
    return input_read_counted(in, m, NULL);
}

/* Read one input into the model, telling p of the bytes read from run files. */
enum run_status input_read_counted(const struct input *in, struct model *m,
                                   const struct input_progress *p)
{
    if (in->path)
        return read_file(in, m, p);
    /* A killed run: its parts are read straight into the model (format/assemble.h). */
    struct partfile pf;
    enum prof_error e = partfile_open(&pf, (const char *const *)in->parts, in->nparts);
    if (e != PROF_OK) {
        model_warn(m, in->display, "skipped", 1, "parts of a killed run skipped: %s",
                   prof_strerror(e));
        return RUNFILE_SKIPPED;
    }
    char name[4096];
    snprintf(name, sizeof name, "%s (%zu part%s of a killed run)", in->display, in->nparts,
             in->nparts == 1 ? "" : "s");
    enum run_status st = model_read_run(m, name, 1, partfile_read, &pf);
    partfile_close(&pf);
    return st;
}
