/*
 * partwrite.c - write the chunks of a thread's part file (docs/FORMAT.md 3), each whole with
 * one writev, so that a run killed mid-write loses at most its last chunk.
 */
#include "partwrite.h"

#include "fileutil.h"

#include <sys/uio.h>

/* Write one chunk whose payload is a followed by b; a file-size limit or a closed pipe is an
   error (EFBIG, EPIPE), never a signal to the host (fileutil.h). */
int prof_part_write2(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
    uint32_t head[2] = {type, (uint32_t)(alen + blen)};
    struct iovec iov[3] = {
        {head, sizeof head}, {(void *)(uintptr_t)a, alen}, {(void *)(uintptr_t)b, blen}};
    struct prof_signal_guard guard;
    prof_signals_hold(&guard);
    int err = prof_writev_all(fd, iov, blen ? 3 : (alen ? 2 : 1));
    prof_signals_release(&guard);
    return err;
}

/* Write one chunk. */
int prof_part_write(int fd, uint32_t type, const void *payload, size_t len)
{
    return prof_part_write2(fd, type, payload, len, NULL, 0);
}
