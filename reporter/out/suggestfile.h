/*
 * suggestfile.h - suggestfile.c: a suggestion (model/suggest.h) as a gcc options file for
 * `gcc @FILE` (--suggest-exclude FILE), as the PROFILER_EXCLUDE setting that leaves the same
 * functions out at run time, and as the terminal's account of both.
 *
 * gcc reads an options file with libiberty's rules: arguments split at white space, a
 * backslash escapes the next character, and nothing marks a comment; so the file holds the
 * option alone and the reasons go to the terminal.
 *
 * Ownership: the texts returned are the caller's to free.
 */
#ifndef PROFREPORT_SUGGESTFILE_H
#define PROFREPORT_SUGGESTFILE_H

#include "base/rep_error.h"
#include "model/suggest.h"

#include <stdio.h>

/* The options file's text: one -finstrument-functions-exclude-function-list option naming the
   kept names (gcc's own list items, commas written "\,"), then the items gcc can be told of,
   each name once, and a newline; "" when there is none. */
char *suggest_options_text(const struct suggestion *s, const char *const *kept, size_t nkept);
/* The names an options file of ours lists (gcc's list items, commas still written "\,"), in
   order, n of them; an empty or blank text lists none. NULL when the text is anything else
   (another option, a second argument). Free with suggest_names_free. */
char **suggest_options_parse(const char *text, size_t *n);
void suggest_names_free(char **v, size_t n);
/* PROFILER_EXCLUDE='glob,...' for a shell, every item's glob. */
char *suggest_env_text(const struct suggestion *s);
/* Whether path can take a suggestion: a regular file of ours, or nothing yet (checked before
   any work). 0, or -1 with err. */
int suggest_check(const char *path, struct rep_error *err);
/* Write the options file at path (replaced atomically). The names a file of ours there already
   lists are kept first (*kept of them): their functions ran without hooks, so this run cannot
   judge them, and each round adds to the one file. A file there that is not ours is left as it
   is. 0, or -1 with err. */
int suggest_write(const char *path, const struct suggestion *s, size_t *kept,
                  struct rep_error *err);
/* The terminal's account of the file written at path (with kept names from before): how to use
   it, the PROFILER_EXCLUDE line, then one line per function (calls per run, time per call,
   share of the time). */
void suggest_print(FILE *out, const struct suggestion *s, const char *path, size_t kept);
/* One line saying that a suggestion exists and how to get it, when its functions make at
   least SUGGEST_HINT_CALL_SHARE of the calls and their hooks cost SUGGEST_HINT_COST_SHARE of
   the time; nothing otherwise. */
void suggest_hint(FILE *out, const struct suggestion *s);

#endif /* PROFREPORT_SUGGESTFILE_H */
