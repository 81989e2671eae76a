/*
 * partfile.h - the profreport command's reader of a killed run's part files (partfile.c): the
 * records of format/assemble.h handed to a run_handler as runfile.c hands over a run file's,
 * without writing the run file in between.
 *
 * The paths are the caller's and must outlive the partfile.
 */
#ifndef PROFREPORT_PARTFILE_H
#define PROFREPORT_PARTFILE_H

#include "read/runfile.h"

#include <profreport.h>

#include <stddef.h>

struct prof_parts;

/* A killed run's parts, read once for their metadata (partfile_open), then as a run_reader. */
struct partfile {
    struct prof_parts *parts;
};

/* Read the parts' metadata: PROF_OK, PROF_ERR_FORMAT when none of them is a readable part, or
   PROF_ERR_NOMEM. */
enum prof_error partfile_open(struct partfile *pf, const char *const *paths, size_t count);
/* A run_reader (src: a struct partfile): hand the run's records to h. RUNFILE_OK, or
   RUNFILE_IO_ERROR with why (REP_ERR_NO_INPUT) when a part went away since partfile_open. */
enum run_status partfile_read(void *src, const struct run_handler *h, struct rep_error *why,
                              unsigned long *line);
void partfile_close(struct partfile *pf);

#endif /* PROFREPORT_PARTFILE_H */
