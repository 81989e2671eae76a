/*
 * fuzz_part.c - libFuzzer target: the input as the .part files of one killed run (pieces
 * joined by FUZZ_SEPARATOR, docs/FORMAT.md 3), recovered by prof_recover exactly as the
 * reporter does (part.c's chunks, replay.c's event words, assemble.c's two passes), from
 * memory-backed files. Whatever prof_recover accepts must be a run file the reporter reads:
 * never skipped and, for events from the collector's own chunks, without a malformed row.
 */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz.h"

#include <profreport.h>

#include "internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether a piece holds a PRFS or PRFP (snapshot) chunk: their CSV text goes into the run file
   as it is, so only without one is every row the assembler's own. */
static int has_summary_chunk(const struct fuzz_piece *p)
{
    size_t off = 0;
    while (p->size - off >= 8) {
        uint32_t head[2];
        memcpy(head, p->data + off, sizeof head);
        if (head[1] > p->size - off - 8)
            break;
        if (head[0] == PROF_CHUNK_SUMMARY || head[0] == PROF_CHUNK_SNAPSHOT)
            return 1;
        off += 8 + head[1];
    }
    return 0;
}

/* Recover the pieces as one run and read the result. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_piece pieces[FUZZ_MAX_PIECES];
    size_t n = fuzz_split(data, size, pieces);
    const char *const *paths = fuzz_part_paths(pieces, n);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    FUZZ_CHECK(f != NULL);
    enum prof_error e = prof_recover(paths, n, f);
    FUZZ_CHECK(fclose(f) == 0);
    /* The files are there and memory is plenty: only the contents can be refused. */
    FUZZ_CHECK(e == PROF_OK || e == PROF_ERR_FORMAT);
    if (e == PROF_OK) {
        int own_rows = 1;
        for (size_t i = 0; i < n; i++)
            own_rows &= !has_summary_chunk(&pieces[i]);
        struct fuzz_runlog log = {0};
        enum run_status st = fuzz_parse((const uint8_t *)out, len, &log);
        FUZZ_CHECK(st != RUNFILE_SKIPPED);
        if (own_rows && log.kind == RUN_EVENTS)
            FUZZ_CHECK(st == RUNFILE_OK && log.problems == 0);
    }
    free(out);
    return 0;
}
