/*
 * cli.h - cli.c: profreport's command line (profreport(1)): the options, parsed once into a
 * struct options that the stages read; bad usage ends the command with EXIT_USAGE.
 *
 * Ownership: the strings of a struct options are argv's; cli_release frees the arrays
 * cli_parse made (args, baseline, include, exclude).
 */
#ifndef PROFREPORT_CLI_H
#define PROFREPORT_CLI_H

#include "base/rep_error.h"
#include "model/model.h"
#include "out/export.h"

#include <stddef.h>
#include <stdint.h>

/* The command line, parsed. */
struct options {
    const char *output, *charts_dir, *templates, *unit, *title;
    const char *program; /* --program, or NULL */
    int no_gnuplot, quiet, all_programs;
    size_t top;
    enum model_sort sort;
    const char **include, **exclude;
    size_t ninclude, nexclude;
    char **paths;
    size_t npaths;
    char **args;     /* the copy of argv that getopt reads (owned) */
    char **baseline; /* --baseline OLD... --: the array is owned, the strings are argv's */
    size_t nbaseline;
    double noise;
    uint64_t seed;
    int noise_set, seed_set;
    int fail_on_regression; /* --fail-on-regression */
    struct export_options ex;
    const char *compact;      /* --compact DIR, or NULL */
    int output_given;         /* -o was given */
    const char *suggest;      /* --suggest-exclude FILE, or NULL */
    const char *suggest_list; /* --suggest-list FILE, or NULL */
    double suggest_max_cost;  /* --suggest-max-cost, ns; 0: from the hooks' cost */
};

/* Parse argv into o, or exit with EXIT_USAGE (--help and --version exit with EXIT_OK). */
void cli_parse(int argc, char **argv, struct options *o);
/* Free the arrays cli_parse made. */
void cli_release(struct options *o);
/* Refuse an output path that looks like a pipe or a redirection to a shell-minded tool (what
   names it in the message). 0, or -1 with e (REP_ERR_USAGE). */
int cli_check_output(const char *what, const char *path, struct rep_error *e);
/* The command line as one string, for the Summary sheet (the caller frees it). */
char *cli_join_args(int argc, char **argv);

#endif /* PROFREPORT_CLI_H */
