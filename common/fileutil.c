/*
 * fileutil.c - files in folders other people may write, folders made with their parents,
 * writes that must not hurt the host (file-size limits, closed pipes), and error texts safe to
 * build inside an allocation.
 */
#define _GNU_SOURCE /* renameat2, strerrordesc_np */
#include "fileutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Create name in the folder dirfd (AT_FDCWD: name is a path) for reading and writing, as a new
   file: O_EXCL refuses any existing name, a dangling symbolic link included, and O_NOFOLLOW
   says the same for a link once more. */
int prof_file_create_at(int dirfd, const char *name, mode_t mode)
{
    return openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

/* prof_file_create_at relative to the working folder. */
int prof_file_create(const char *path, mode_t mode)
{
    return prof_file_create_at(AT_FDCWD, path, mode);
}

/* Create a new file under a name nobody can plant in advance: the suffix is random. */
int prof_file_create_temp_at(int dirfd, const char *dir, const char *base, const char *ext,
                             mode_t mode, char **path)
{
    size_t len = (dir ? strlen(dir) : 0) + strlen(base) + strlen(ext) + 16;
    char *p = malloc(len);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    for (int attempt = 0; attempt < 16; attempt++) {
        snprintf(p, len, "%s%s.%s.%08x%s", dir ? dir : "", dir ? "/" : "", base,
                 (unsigned)prof_random32(), ext);
        int fd = prof_file_create_at(dirfd, p, mode);
        if (fd >= 0) {
            *path = p;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(p);
    errno = e;
    return -1;
}

/* prof_file_create_temp_at in the folder dir, by path. */
int prof_file_create_temp(const char *dir, const char *base, const char *ext, mode_t mode,
                          char **path)
{
    return prof_file_create_temp_at(AT_FDCWD, dir, base, ext, mode, path);
}

/* Clean an absolute path lexically, in place (fileutil.h). */
void prof_path_clean(char *p)
{
    if (p[0] != '/')
        return;
    /* Each step kept is written as "/step" at out, never past where it was read from: the
       slash before a step is always behind it. */
    char *out = p;
    for (const char *in = p; *in;) {
        while (*in == '/')
            in++;
        const char *step = in;
        while (*in && *in != '/')
            in++;
        size_t n = (size_t)(in - step);
        if (n == 0 || (n == 1 && step[0] == '.'))
            continue;
        if (n == 2 && step[0] == '.' && step[1] == '.') {
            while (out > p && *--out != '/') /* back over the last step kept */
                ;
            continue;
        }
        *out++ = '/';
        memmove(out, step, n);
        out += n;
    }
    if (out == p)
        *out++ = '/';
    *out = 0;
}

/* mkdir -p: each prefix of dir that ends at a '/' in turn, then dir itself. Mode 0755: a
   folder nobody else may write, whatever the umask (a setuid program's umask is its
   caller's). */
int prof_mkdirs(const char *dir)
{
    char *p = strdup(dir);
    if (!p)
        return ENOMEM;
    int err = 0;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != 0)
            continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            err = errno;
            break;
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return err;
}

/* Rename without replacing: renameat2 where the file system has it, else link and unlink (a
   link never replaces either). Only a file system with neither gets a plain rename. */
int prof_file_publish_at(int dirfd, const char *from, const char *to)
{
    if (renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return -1;
    if (linkat(dirfd, from, dirfd, to, 0) == 0) {
        unlinkat(dirfd, from, 0);
        return 0;
    }
    if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP)
        return -1;
    return renameat(dirfd, from, dirfd, to);
}

/* prof_file_publish_at with paths. */
int prof_file_publish(const char *from, const char *to)
{
    return prof_file_publish_at(AT_FDCWD, from, to);
}

/* 32 random bits. Without getrandom the time, the pid and this library's address still differ
   between two images of one process (exec) and between two copies of the library in one. */
uint32_t prof_random32(void)
{
    uint32_t v;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) == (ssize_t)sizeof v)
        return v;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
                 (uint64_t)(uintptr_t)&prof_random32;
    x *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32);
}

/* The signals a write of ours may raise: SIGXFSZ past a file-size limit, SIGPIPE on a pipe
   whose reader is gone (stderr piped into head). Both kill the program by default. */
static const int held_signals[] = {SIGXFSZ, SIGPIPE};
#define NHELD (sizeof held_signals / sizeof held_signals[0])

/* The set of held_signals. */
static void held_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < NHELD; i++)
        sigaddset(set, held_signals[i]);
}

/*
 * Block SIGXFSZ and SIGPIPE in this thread, noting which were pending already (the host's,
 * then: a signal of the same number pending twice is delivered once, so ours must not be taken).
 */
void prof_signals_hold(struct prof_signal_guard *g)
{
    sigset_t held, pending;
    held_set(&held);
    pthread_sigmask(SIG_BLOCK, &held, &g->old);
    g->was_pending = 0;
    if (sigpending(&pending) != 0) {
        g->was_pending = ~0u; /* unknown: take nothing */
        return;
    }
    for (size_t i = 0; i < NHELD; i++)
        if (sigismember(&pending, held_signals[i]) == 1)
            g->was_pending |= 1u << i;
}

/*
 * Take the SIGXFSZ or SIGPIPE our write raised, if any, then restore the mask. The kernel sends
 * them to the writing thread only when the write fails (EFBIG, EPIPE), so one that became
 * pending while we held it blocked is ours (a kill(2) by someone else landing in those
 * microseconds is the only other source, and a signal of that number would most likely have
 * ended the program anyway).
 */
void prof_signals_release(const struct prof_signal_guard *g)
{
    sigset_t pending;
    if (sigpending(&pending) == 0) {
        for (size_t i = 0; i < NHELD; i++) {
            if ((g->was_pending & (1u << i)) || sigismember(&pending, held_signals[i]) != 1)
                continue;
            sigset_t one;
            sigemptyset(&one);
            sigaddset(&one, held_signals[i]);
            const struct timespec zero = {0, 0};
            while (sigtimedwait(&one, NULL, &zero) < 0 && errno == EINTR)
                ;
        }
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* One write(), so lines of different threads do not interleave. */
void prof_write_stderr(const char *line, size_t len)
{
    int saved = errno;
    struct prof_signal_guard g;
    prof_signals_hold(&g);
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
    prof_signals_release(&g);
    errno = saved;
}

/* strerrordesc_np: the untranslated text, from a table, with no lock. */
const char *prof_errno_text(int err)
{
    const char *s = strerrordesc_np(err);
    return s ? s : "unknown error";
}

/* Write the iovecs completely; see fileutil.h. */
int prof_writev_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (w == 0)
            return EIO;
        size_t left = (size_t)w;
        while (n > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + left;
            iov->iov_len -= left;
        }
    }
    return 0;
}

/* Write all n bytes of buf; see fileutil.h. */
int prof_write_all(int fd, const void *buf, size_t n)
{
    struct iovec iov = {(void *)(uintptr_t)buf, n};
    return prof_writev_all(fd, &iov, 1);
}
