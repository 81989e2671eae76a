/*
 * input.h - input.c: which files the command line names, and reading each into the model
 * (a killed run's .part files recovered first).
 *
 * Ownership: inputs_collect's array owns its strings; inputs_free frees both.
 */
#ifndef PROFREPORT_INPUT_H
#define PROFREPORT_INPUT_H

#include "model/model.h"

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* One run to read: a run file, or the .part files of a killed run. */
struct input {
    char *path;    /* the run file, or NULL for parts */
    char *display; /* name shown in messages and the Runs sheet */
    char **parts;  /* parts of a killed run */
    size_t nparts;
    int stream; /* a pipe named on the command line: read as it comes (other inputs that are
                   not regular files are skipped with a warning) */
};

/*
 * The runs named by the command line's paths: files as given, folders' run files (*.csv, not
 * hidden) and killed runs' parts (grouped by run, skipped when the run file exists), sorted by
 * name. Unreadable paths, and files that are neither regular files nor (named on the command
 * line) pipes, become warnings in m. Returns the number of inputs (*out owns them).
 */
size_t inputs_collect(const char *const *paths, size_t npaths, struct input **out, struct model *m);
void inputs_free(struct input *in, size_t n);
/* A run file input's descriptor, open for reading; -1 (with a warning in m) when it cannot
   be opened or is not a regular file (or a named pipe). */
int input_open(const struct input *in, struct model *m);
/* input_open without a word to anyone (for a thread that must not touch the model): the
   descriptor, or -1 with *err the errno, or *err 0 and *mode the mode of a file that is not a
   regular one. */
int input_open_quiet(const struct input *in, int *err, mode_t *mode);
/* The warnings input_open gives for what input_open_quiet returned in err and mode. */
void input_open_failed(const struct input *in, struct model *m, int err, mode_t mode);
/*
 * Read one run file, open as f, into the model. name is shown in messages; recovered marks a
 * run rebuilt from .part files. Returns the parser's status; problems become warnings.
 */
enum run_status input_add_run(struct model *m, FILE *f, const char *name, int recovered);
/* Read one input into the model (a killed run's parts through partfile.h). */
enum run_status input_read(const struct input *in, struct model *m);

/* Told of the bytes read from run files as they are read (a progress bar). */
struct input_progress {
    void (*add)(void *ctx, size_t bytes);
    void *ctx;
};
/* The bytes of the inputs' files (run files and parts), for a progress bar's end. */
off_t inputs_size(const struct input *in, size_t n);
/* input_read, telling p of each run file's bytes as they are read (parts are not counted). */
enum run_status input_read_counted(const struct input *in, struct model *m,
                                   const struct input_progress *p);

#endif /* PROFREPORT_INPUT_H */
