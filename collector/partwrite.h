/*
 * partwrite.h - the collector's writes of part-file chunks (partwrite.c; the chunk types are in
 * format.h). Payloads are the caller's.
 */
#ifndef PROF_PARTWRITE_H
#define PROF_PARTWRITE_H

#include <stddef.h>
#include <stdint.h>

/* Write one chunk with a single writev; returns 0 or an errno value. */
int prof_part_write(int fd, uint32_t type, const void *payload, size_t len);
/* Write two payload pieces as one chunk (one writev); returns 0 or an errno value. */
int prof_part_write2(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen);

#endif /* PROF_PARTWRITE_H */
