/*
 * partwrite.c - write the chunks of a thread's part file (docs/FORMAT.md 3), each whole with
 * one writev, so that a run killed mid-write loses at most its last chunk; and make sure a
 * part's descriptor is still the part before it is written, read or closed.
 */
#include "partwrite.h"

#include "fileutil.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

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

/* Note which file fd is. */
int prof_part_identify(int fd, struct prof_part_id *id)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return errno;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    return 0;
}

/* Nanoseconds of a file's last change. */
static long long mtime_ns(const struct stat *st)
{
    return (long long)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Note the part's final size and time. */
void prof_part_seal(int fd, struct prof_part_id *id)
{
    struct stat st;
    id->sealed = fstat(fd, &st) == 0;
    if (id->sealed) {
        id->size = st.st_size;
        id->mtime_ns = mtime_ns(&st);
    }
}

/* Whether fd is still the regular file of id. */
int prof_part_is(int fd, const struct prof_part_id *id)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == id->dev &&
           st.st_ino == id->ino &&
           (!id->sealed || (st.st_size == id->size && mtime_ns(&st) == id->mtime_ns));
}

/* Close *fd when it is still ours. */
void prof_part_close(int *fd, const struct prof_part_id *id)
{
    if (prof_part_is(*fd, id))
        close(*fd);
    *fd = -1;
}

/* Open name for reading when it is still the part of id. */
int prof_part_reopen(int dirfd, const char *name, const struct prof_part_id *id)
{
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (!prof_part_is(fd, id)) {
        close(fd);
        errno = ESTALE;
        return -1;
    }
    return fd;
}
