/*
 * plainsplit.h - the run-file reader's fast path (plainsplit.c): lines that hold no double
 * quote split on ',' and line ends, 8 bytes at a time, giving the fields and records libcsv gives.
 *
 * It is not a second CSV parser: the reader hands it only quote-free whole lines and keeps
 * libcsv for every line with a quote. Field pointers point into the caller's data.
 */
#ifndef PROFREPORT_PLAINSPLIT_H
#define PROFREPORT_PLAINSPLIT_H

#include <csv.h>
#include <stddef.h>

/* The libcsv options the run-file reader uses, which plain_split reproduces (with a space
   function that says no byte is a space). CSV_REPALL_NL makes libcsv report every line end
   outside a field, which is how lines are counted; CSV_STRICT_FINI makes a file cut inside a
   quoted field an error. */
#define PLAIN_CSV_OPTS (CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_REPALL_NL)

/* Called for each field: s[0..len) (not NUL-terminated; it may hold NULs). s[len], the comma
   or line end after the field, has been read: the callback may write over it (the run-file
   reader puts the field's NUL there, sparing a copy). */
typedef void (*plain_field_fn)(const char *s, size_t len, void *ctx);
/* Called at each record end and each line end between records: c is '\r' or '\n'. */
typedef void (*plain_record_fn)(int c, void *ctx);

/*
 * Split data, which holds no '"' and starts where libcsv would be between records, into the
 * fields and records libcsv with PLAIN_CSV_OPTS calls its callbacks with, in the same order.
 * Stops after the last '\r' or '\n' of data and returns the bytes used; the rest (a record
 * without its end) is the caller's to hand to libcsv.
 */
size_t plain_split(const char *data, size_t len, plain_field_fn field, plain_record_fn record,
                   void *ctx);

#endif /* PROFREPORT_PLAINSPLIT_H */
