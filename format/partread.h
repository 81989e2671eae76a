/*
 * partread.h - read a part file's chunks (partread.c; the chunk types are in format.h).
 *
 * The FILE is the caller's; the payload buffer is the reader's, valid until the next call, and
 * prof_part_reader_release frees it.
 */
#ifndef PROF_PARTREAD_H
#define PROF_PARTREAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Reads a part file chunk by chunk. */
struct prof_part_reader {
    FILE *f;
    unsigned char *payload;
    size_t cap;
    int truncated; /* set when the last chunk was cut short (killed run) */
    /* Optional: chunks of type skip_type are counted (seen), and those outside
       [keep_from, keep_to) of that count are passed over unread, with a seek. 0: none. */
    uint32_t skip_type;
    uint64_t keep_from, keep_to, seen;
};

/* Read the next chunk: 1 and type/payload/len set, 0 at the end, -1 on a read error. */
int prof_part_next(struct prof_part_reader *r, uint32_t *type, const unsigned char **payload,
                   size_t *len);
void prof_part_reader_release(struct prof_part_reader *r);

#endif /* PROF_PARTREAD_H */
