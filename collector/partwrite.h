/*
 * partwrite.h - the collector's writes of part-file chunks (partwrite.c; the chunk types are in
 * format.h), and the identity of a part's descriptor: the program may close a descriptor of
 * ours and get its number back for a file of its own, so a part is written, read back and
 * closed only while its descriptor is still the file the collector made. Payloads are the
 * caller's.
 */
#ifndef PROF_PARTWRITE_H
#define PROF_PARTWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Write one chunk with a single writev; returns 0 or an errno value. */
int prof_part_write(int fd, uint32_t type, const void *payload, size_t len);
/* Write two payload pieces as one chunk (one writev); returns 0 or an errno value. */
int prof_part_write2(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen);

/* The file a part's descriptor was opened on (fstat's device and inode at creation), and once
   the part is closed its final size and time of last change: the inode number of a removed
   part is soon given to a new file. */
struct prof_part_id {
    dev_t dev;
    ino_t ino;
    int sealed; /* size and mtime are set */
    off_t size;
    long long mtime_ns;
};
/* Note which file fd is; 0 or an errno value. */
int prof_part_identify(int fd, struct prof_part_id *id);
/* Note the part's final size and time of last change (fd: the part, all written). */
void prof_part_seal(int fd, struct prof_part_id *id);
/* Whether fd is still the regular file id names (not closed, not another file's number). */
int prof_part_is(int fd, const struct prof_part_id *id);
/* Close *fd if it is still the file of id (never the program's file under a reused number),
   and set it to -1. */
void prof_part_close(int *fd, const struct prof_part_id *id);
/* Open name in the folder dirfd for reading, only when it is still the regular file of id: no
   link followed, and a FIFO put in its place neither blocks nor is read. A descriptor, or -1
   with errno set (ENOENT: removed; ESTALE: another file now has the name). */
int prof_part_reopen(int dirfd, const char *name, const struct prof_part_id *id);

#endif /* PROF_PARTWRITE_H */
