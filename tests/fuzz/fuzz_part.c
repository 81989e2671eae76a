/*
 * fuzz_part.c - libFuzzer target: the input as the .part files of one killed run (pieces
 * joined by FUZZ_SEPARATOR, docs/FORMAT.md 3), from memory-backed files, read both ways the
 * format allows: written as a run file by csvwrite.c (as the recover tool does) and parsed by
 * runfile.c, and read straight into a handler by partfile.c (as profreport does). Whatever the
 * writer accepts must be a run file the reporter reads without a malformed row, and both ways
 * must hand the reporter the same records.
 */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz.h"

#include "csvwrite.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write the pieces' run file, read it back, and read the pieces directly. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_piece pieces[FUZZ_MAX_PIECES];
    size_t n = fuzz_split(data, size, pieces);
    const char *const *paths = fuzz_part_paths(pieces, n);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    FUZZ_CHECK(f != NULL);
    enum prof_error e = prof_assemble(paths, n, f, NULL);
    FUZZ_CHECK(fclose(f) == 0);
    /* The files are there and memory is plenty: only the contents can be refused. */
    FUZZ_CHECK(e == PROF_OK || e == PROF_ERR_FORMAT);
    struct fuzz_runlog direct;
    enum run_status ds = fuzz_read_parts(paths, n, &direct);
    if (e == PROF_OK) {
        struct fuzz_runlog log = {0};
        enum run_status st = fuzz_parse((const uint8_t *)out, len, &log);
        /* Every row is the writer's own, summary rows included (threads write binary records). */
        FUZZ_CHECK(st == RUNFILE_OK && log.problems == 0);
        FUZZ_CHECK(ds == RUNFILE_OK && direct.problems == 0);
        FUZZ_CHECK(direct.kind == log.kind && direct.metas == log.metas &&
                   direct.events == log.events && direct.summaries == log.summaries &&
                   direct.memory == log.memory && direct.unterminated == log.unterminated &&
                   direct.tick_sum == log.tick_sum && direct.region_hash == log.region_hash);
    } else {
        FUZZ_CHECK(ds == RUNFILE_SKIPPED);
    }
    free(out);
    return 0;
}
