/*
 * suggestfile.h - suggestfile.c: a suggestion (model/suggest.h) as a gcc options file for
 * `gcc @FILE` (--suggest-exclude FILE), as a list file for PROFILER_EXCLUDE=@FILE
 * (--suggest-list FILE), as the PROFILER_EXCLUDE setting that leaves the same functions out at
 * run time, and as the terminal's account of them.
 *
 * gcc reads an options file with libiberty's rules: arguments split at white space, a
 * backslash escapes the next character, and nothing marks a comment; so the file holds the
 * option alone and the reasons go to the terminal. The collector reads a list file a line at a
 * time (common/filter.h): one glob a line, '#' lines are comments, so ours begins with one
 * that says what it is, which is also how a later --suggest-list knows the file is its own.
 *
 * Ownership: the texts returned are the caller's to free.
 */
#ifndef PROFREPORT_SUGGESTFILE_H
#define PROFREPORT_SUGGESTFILE_H

#include "base/atomicfile.h"
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
/* The list file's text: a comment head, then one glob a line: the kept ones, the runs' own
   left-out patterns, then each item's glob, each once (a pattern with a line break in it is
   left out; one that begins with '#' is written "\#..."). */
char *suggest_list_text(const struct suggestion *s, const char *const *kept, size_t nkept);
/* The patterns a list file of ours holds, in order, each once (a line's comma-separated
   patterns each, trimmed, "\," kept as written), n of them; an empty or blank text holds none.
   NULL when the text does not begin with our head. Free with suggest_names_free. */
char **suggest_list_parse(const char *text, size_t *n);
/* PROFILER_EXCLUDE='glob,...' for a shell, every item's glob. */
char *suggest_env_text(const struct suggestion *s);
/* Which file: gcc's options (--suggest-exclude) or PROFILER_EXCLUDE's list (--suggest-list). */
enum suggest_file { SUGGEST_FILE_OPTIONS, SUGGEST_FILE_LIST };

/* Before any work: check that path can take a suggestion (a regular file of ours, or nothing
   yet) and create its temporary in a (atomicfile.h), so that a place that cannot be written
   fails before the report is. 0, or -1 with err and nothing created. */
int suggest_open(struct atomicfile *a, const char *path, enum suggest_file kind,
                 struct rep_error *err);
/* Write the file's text into a's temporary (opened by suggest_open; the caller commits it with
   the report's other outputs, or discards it). The names a file of ours at the target already
   lists are kept first (*kept of them): their functions ran without hooks, so this run cannot
   judge them, and each round adds to the one file. A file there that is not ours is left as it
   is. 0, or -1 with err. */
int suggest_fill(struct atomicfile *a, enum suggest_file kind, const struct suggestion *s,
                 size_t *kept, struct rep_error *err);

/* The files written (NULL: not asked for), and how many names each kept from before. */
struct suggest_files {
    const char *options, *list;
    size_t options_kept, list_kept;
};
/* The terminal's account of the suggestion and the files written: how to use each, the
   PROFILER_EXCLUDE line when no list was written, then one line per function (calls per run,
   time per call, share of the time). */
void suggest_print(FILE *out, const struct suggestion *s, const struct suggest_files *w);
/* One line saying that a suggestion exists and how to get it, when its functions make at
   least SUGGEST_HINT_CALL_SHARE of the calls and their hooks cost SUGGEST_HINT_COST_SHARE of
   the time; nothing otherwise. */
void suggest_hint(FILE *out, const struct suggestion *s);

#endif /* PROFREPORT_SUGGESTFILE_H */
