/*
 * rowscan.h - the run-file reader's fastest path (rowscan.c): a table row in the exact form the
 * collector writes it, read in one pass over its bytes, with no split into fields first.
 *
 * It takes only rows that the general path (plain_split or libcsv, then the row's checks in
 * runfile.c) accepts as they are, and gives the values that path gives; for any other line it
 * returns 0 and the caller hands the line to that path. So it adds no rule of its own: an empty
 * Ticks, a 20-digit number, a CR before the line end, a missing or extra field all go the
 * general way, with its messages.
 */
#ifndef PROFREPORT_ROWSCAN_H
#define PROFREPORT_ROWSCAN_H

#include <stddef.h>
#include <stdint.h>

/* The fields of an events row (FORMAT.md 1.3), as runfile.c hands them on. */
struct scanned_event {
    const char *region, *parent; /* NUL-terminated where the comma after them was */
    size_t region_len, parent_len;
    uint64_t ticks, self, start;
    unsigned thread, depth;
    int nested;
};

/*
 * Read the events row at line: Region,Ticks,Thread,Parent,Depth,Self,Start,Nested and '\n',
 * every number plain digits (Thread and Depth at most 9 of them, the others at most 19, so none
 * can overflow), Nested 0 or 1, and no '\r' or '\n' inside a field. Returns the bytes of the
 * line with its '\n', or 0 when it is not such a row. The line must hold no '"' and end with a
 * '\n' before end, the end of the caller's data (the bytes up to end may be read); the commas after
 * Region and Parent become NULs when it is taken.
 */
size_t rowscan_event(char *line, const char *end, struct scanned_event *e);

/*
 * Read the seed-form row at line: an id (not empty, no '\r' or '\n'), a comma, a delta of 1 to
 * 19 digits and '\n'. Returns the bytes of the line with its '\n', or 0; as rowscan_event, with
 * the comma after the id made a NUL.
 */
size_t rowscan_seed(char *line, const char *end, const char **id, size_t *id_len, uint64_t *delta);

#endif /* PROFREPORT_ROWSCAN_H */
