/*
 * programs.h - programs.c: runs that don't belong together. Which program a report is of when
 * the inputs hold runs of several (their Program records), and what to say of runs that came
 * from different hosts, clocks or tick rates.
 *
 * Ownership: the strings returned are the caller's to free.
 */
#ifndef PROFREPORT_PROGRAMS_H
#define PROFREPORT_PROGRAMS_H

#include "model/model.h"
#include "base/rep_error.h"

#include <stddef.h>
#include <stdio.h>

/* Tick rates of runs on the same clock that differ by more than this share are flagged: one
   machine measures its own rate within about 0.1 % from run to run. */
#define PROGRAMS_RATE_SPREAD 0.01

/*
 * The program to report among the n programs of v (runs counted per Program record): with want
 * NULL, the one whose runs took the most time in all (their Durations), then the one with the
 * most runs, then the first met; else the one whose Program is
 * want, or failing that the only one whose last path component is. Sets *out to its index and
 * returns 0, or returns -1 with e: REP_ERR_NO_INPUT when none matches (v is empty, or want names
 * none; the message lists the programs), REP_ERR_USAGE when want names several.
 */
int programs_choose(const struct program_count *v, size_t n, const char *want, size_t *out,
                    struct rep_error *e);

/* "/usr/bin/zstd (8 runs, 1.31 s), /usr/bin/lua (1 run, 109 ms)": the programs of v that
   which selects, in the order programs_choose prefers them, with their runs and the time those
   took (when they say it); "(no Program record)" for the runs without one. */
char *programs_list(const struct program_count *v, size_t n, int which);

/* The Summary's account of the programs met: the one reported, or the ones merged, and those
   left out with how to report them. */
char *programs_summary(const struct model *m);

/* What makes the model's runs unlike each other, "; "-separated (different hosts, clocks, or
   tick rates on the same clock), or NULL when nothing does. */
char *programs_mixed(const struct model *m);

/* The terminal's note of the two above, nothing when the runs are of one program alike. */
void programs_print(FILE *out, const struct model *m);

#endif /* PROFREPORT_PROGRAMS_H */
