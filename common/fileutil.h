/*
 * fileutil.h - files in folders other people may write (the one place that creates them: never
 * through a symbolic link, never over an existing file), folders made with their parents,
 * writes that must not hurt the host (file-size limits, closed pipes), and error texts safe to
 * build inside an allocation. Shared by the collector and the profreport command.
 *
 * Paths are the caller's; prof_file_create_temp returns a path the caller frees.
 */
#ifndef PROF_FILEUTIL_H
#define PROF_FILEUTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Create path for reading and writing as a new file (mode less the umask): never through a
   symbolic link and never over anything already there. A descriptor, or -1 with errno set. */
int prof_file_create(const char *path, mode_t mode);
/* prof_file_create for name in the folder open at dirfd (AT_FDCWD: the working folder), so
   that the folder cannot be swapped for a link under the caller. */
int prof_file_create_at(int dirfd, const char *name, mode_t mode);

/* Create a new file in dir named ".<base>.<8 random hex digits><ext>", as prof_file_create
   does, trying other names while one is taken. A descriptor and *path (the caller frees it), or
   -1 with errno set. */
int prof_file_create_temp(const char *dir, const char *base, const char *ext, mode_t mode,
                          char **path);
/* prof_file_create_temp in the folder open at dirfd: dir NULL gives a name relative to it in
 *path (dir, when given, is put in front, as with AT_FDCWD). */
int prof_file_create_temp_at(int dirfd, const char *dir, const char *base, const char *ext,
                             mode_t mode, char **path);

/* Create the folder dir and any missing parents (mkdir -p), mode 0755 less the umask: never
   writable by others. An existing folder is fine. 0, or an errno value. */
int prof_mkdirs(const char *dir);
/* An absolute path without its "." and "name/.." steps and doubled slashes, in place
   ("/src/lib/compress/../common/e.h" -> "/src/lib/common/e.h"; "/.." stays "/"). Lexical,
   as a compiler's include path is: a folder that is a symbolic link to elsewhere is not
   followed back. A relative path is left as it is. */
void prof_path_clean(char *p);

/* Give the file at from the name to, unless something already has that name (errno EEXIST).
   0, or -1 with errno set. */
int prof_file_publish(const char *from, const char *to);
/* prof_file_publish for two names in the folder open at dirfd. */
int prof_file_publish_at(int dirfd, const char *from, const char *to);

/* 32 unpredictable bits, from the kernel when it can give them. */
uint32_t prof_random32(void);

/*
 * Around a write: a file-size limit (ulimit -f) makes the write fail with EFBIG and also sends
 * SIGXFSZ; a pipe whose reader is gone (stderr piped into head) makes it fail with EPIPE and
 * sends SIGPIPE. The default action of both kills the program. The guard blocks both in the
 * calling thread for the write, and afterwards takes away one that became pending during it
 * (ours; one pending before is the host's and stays), then restores the thread's mask: the host
 * sees neither the signal nor a change.
 */
struct prof_signal_guard {
    sigset_t old;
    unsigned was_pending; /* bit i: held signal i was pending before the write */
};
void prof_signals_hold(struct prof_signal_guard *g);
void prof_signals_release(const struct prof_signal_guard *g);

/* Write the n iovecs completely, retrying after EINTR and short writes (iov is used up as it
   goes); 0 or an errno value. */
struct iovec;
int prof_writev_all(int fd, struct iovec *iov, int n);

/* Write all n bytes of buf, as prof_writev_all; 0 or an errno value. */
int prof_write_all(int fd, const void *buf, size_t n);

/* Write a whole line to stderr under the guard above. */
void prof_write_stderr(const char *line, size_t len);

/* The description of an errno value. Unlike strerror it takes no lock (strerror translates,
   and the locale lock may be held by the very setlocale call whose malloc we are in). */
const char *prof_errno_text(int err);

#endif
