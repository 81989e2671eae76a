/*
 * fuzz.h - what the libFuzzer harnesses of tests/fuzz share: an input as a FILE or as files
 * that need no disk, an input cut into several files, and a run_handler that checks the
 * promises runfile.c makes to its callers (report.h) on every callback.
 *
 * Ownership: pieces point into the fuzzer's input; fuzz_part_paths' files and names live until
 * the process ends (they are reused from input to input).
 */
#ifndef PROFREPORT_FUZZ_H
#define PROFREPORT_FUZZ_H

#include "model/cct.h"
#include "out/export.h"
#include "read/input.h"
#include "model/model.h"
#include "format.h"
#include "hist.h"
#include "read/partfile.h"
#include "read/runfile.h"
#include "base/util.h"
#include "out/workbook.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A broken promise: the message names the check; libFuzzer saves the input as a crash. */
#define FUZZ_CHECK(cond) fuzz_check((cond) != 0, #cond, __FILE__, __LINE__)
void fuzz_check(int ok, const char *what, const char *file, int line);

/* Several files in one input are joined by this line (the dictionaries know it). */
#define FUZZ_SEPARATOR "==next==\n"
#define FUZZ_MAX_PIECES 8

struct fuzz_piece {
    const uint8_t *data;
    size_t size;
};

/* Cut data at each FUZZ_SEPARATOR into at most FUZZ_MAX_PIECES pieces (the last takes the
   rest, separators included); returns how many (at least 1). */
size_t fuzz_split(const uint8_t *data, size_t size, struct fuzz_piece *out);

/* data as a FILE open for reading, without a copy (fmemopen; close it with fclose). */
FILE *fuzz_open(const uint8_t *data, size_t size);

/*
 * Put each piece in a memory-backed file (memfd) and return paths that open them
 * ("/proc/self/fd/N"), for code that only takes paths, such as prof_assemble. No file is
 * created on disk; the same descriptors serve every input.
 */
const char *const *fuzz_part_paths(const struct fuzz_piece *pieces, size_t n);

/* The same as fuzz_part_paths, for a single piece in slot (0 to FUZZ_MAX_PIECES - 1). */
const char *fuzz_part_path(size_t slot, const uint8_t *data, size_t size);

/* What the checking handler saw while a run file was parsed. */
struct fuzz_runlog {
    unsigned long lines; /* the input's lines: no problem is reported past them */
    int begun;           /* begin was called */
    enum run_kind kind;  /* begin's kind */
    size_t metas, events, summaries, memory, problems, unterminated;
    int summary_section;        /* an events run's summary section began (PROFILER_MAX_EVENTS) */
    uint64_t tick_sum;          /* of the rows that have ticks (wrapping) */
    uint64_t region_hash;       /* FNV-1a over the rows' region ids, in order */
    uint64_t problem_hash;      /* over the problems' lines, in order */
    unsigned long last_problem; /* line of the last problem: they come in file order */
};

/* Parse text with runfile_parse through a handler that checks every callback into log. The
   status is checked against what the log saw (a readable file always began its table). */
enum run_status fuzz_parse(const uint8_t *text, size_t size, struct fuzz_runlog *log);

/* Read the parts of one killed run with partfile.c (as profreport does, without a run file)
   through the same checking handler; RUNFILE_SKIPPED when none is a readable part. */
enum run_status fuzz_read_parts(const char *const *paths, size_t n, struct fuzz_runlog *log);

/* FNV-1a of s[0..n) continuing from h. */
uint64_t fuzz_hash(uint64_t h, const void *s, size_t n);
#define FUZZ_HASH_START 14695981039346656037ull

#endif /* PROFREPORT_FUZZ_H */
