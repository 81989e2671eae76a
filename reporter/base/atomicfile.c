/*
 * atomicfile.c - the one way profreport writes an output file: a unique temporary beside the
 * target, created as fileutil.c creates every file (O_EXCL, O_NOFOLLOW), renamed into place,
 * removed on failure, at exit and on SIGINT, SIGTERM or SIGHUP (through a registry the signal
 * handler can read).
 */
#define _GNU_SOURCE /* getdents64 */
#include "base/atomicfile.h"
#include "fileutil.h"
#include "base/rep_error.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the registry of live temporaries ---- */

/* More than the command ever has at once (a workbook, nine exports, two pictures, a copy). */
#define LIVE_MAX 64

/* Paths to remove on a signal; a slot is written only with the signals blocked, and a path
   stays allocated while it is in a slot. */
static const char *volatile live[LIVE_MAX];
static volatile sig_atomic_t live_is_dir[LIVE_MAX];

/* The signals whose handler reads the registry. */
static void cleanup_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

/* Block the cleanup signals while the registry changes; old receives the previous mask. */
static void registry_lock(sigset_t *old)
{
    sigset_t set;
    cleanup_signals(&set);
    sigprocmask(SIG_BLOCK, &set, old);
}

static void registry_unlock(const sigset_t *old) { sigprocmask(SIG_SETMASK, old, NULL); }

/* Put path in a free slot (called with the registry locked); its index, or -1 when full
   (the file is then still removed on failure, only not on a signal). */
static int registry_add(const char *path, int is_dir)
{
    for (int i = 0; i < LIVE_MAX; i++)
        if (!live[i]) {
            live_is_dir[i] = is_dir;
            live[i] = path;
            return i;
        }
    return -1;
}

/*
 * Empty and remove a folder of our own with system calls only (async-signal-safe): the
 * entries are read with getdents64, unlinked, and the listing read again in case removing
 * entries while reading skipped some.
 */
static void remove_dir_now(const char *dir)
{
    for (int pass = 0; pass < 4; pass++) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return;
        char buf[4096] __attribute__((aligned(8)));
        ssize_t n;
        while ((n = getdents64(fd, buf, sizeof buf)) > 0)
            for (ssize_t off = 0; off < n;) {
                const struct dirent64 *e = (const struct dirent64 *)(void *)(buf + off);
                off += e->d_reclen;
                if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                    unlinkat(fd, e->d_name, 0);
            }
        close(fd);
        if (rmdir(dir) == 0 || errno != ENOTEMPTY)
            return;
    }
}

/* Remove everything registered, last registered first (a folder after its files). */
static void remove_all_live(void)
{
    for (int i = LIVE_MAX; i-- > 0;) {
        const char *p = live[i];
        if (!p)
            continue;
        if (live_is_dir[i])
            remove_dir_now(p);
        else
            unlink(p);
    }
}

/* SIGINT, SIGTERM, SIGHUP: remove the temporaries, then die of the same signal (the handler
   was installed with SA_RESETHAND, so the raised signal takes the default action as soon as
   the handler returns). */
static void on_signal(int sig)
{
    int saved = errno;
    remove_all_live();
    raise(sig);
    errno = saved;
}

/* At exit (die_nomem, usage errors, any early return): nothing of ours may stay behind. */
static void on_exit_cleanup(void)
{
    sigset_t old;
    registry_lock(&old);
    remove_all_live();
    for (int i = 0; i < LIVE_MAX; i++)
        live[i] = NULL;
    registry_unlock(&old);
}

/* Install the handlers (see atomicfile.h). */
void atomicfile_signals_init(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    cleanup_signals(&sa.sa_mask);
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        /* A signal ignored by whoever started us (nohup) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
    signal(SIGXFSZ, SIG_IGN);
    atexit(on_exit_cleanup);
}

/* ---- files ---- */

/* Refuse a target a rename would wrongly replace: name in the folder dirfd, shown as target. */
static int target_check_at(int dirfd, const char *name, const char *target, struct rep_error *e)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, 0) == 0 && !S_ISREG(st.st_mode)) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': not a regular file", target);
        return -1;
    }
    return 0;
}

/* Refuse a target a rename would wrongly replace (see atomicfile.h). */
int atomicfile_target_check(const char *target, struct rep_error *e)
{
    return target_check_at(AT_FDCWD, target, target, e);
}

/* dir/name, without a second '/' when dir ends with one. The caller frees it. */
static char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir), len = n + strlen(name) + 2;
    char *p = xmalloc(len);
    snprintf(p, len, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
    return p;
}

/*
 * Create a's temporary for a->target (already set, as its target_at and dirfd): in the folder
 * dir by path when dirfd is AT_FDCWD (name is then the target's base name), else named
 * relative to dirfd (dir only makes its path). 0, or -1 with e and a released.
 */
static int open_temp(struct atomicfile *a, const char *dir, const char *name, struct rep_error *e)
{
    int by_path = a->dirfd == AT_FDCWD;
    /* Registered before a signal can come between its creation and its registration. The
       mode is a new file's under the umask: an output is as readable as any other. */
    sigset_t old;
    registry_lock(&old);
    char *tmp = NULL;
    int fd = prof_file_create_temp_at(a->dirfd, by_path ? dir : NULL, name, "", 0666, &tmp);
    int err = errno;
    if (fd >= 0) {
        a->tmp = by_path ? tmp : path_join(dir, tmp);
        a->tmp_at = by_path ? a->tmp : a->tmp + strlen(a->tmp) - strlen(tmp);
        if (!by_path)
            free(tmp);
        a->slot = registry_add(a->tmp, 0);
    }
    registry_unlock(&old);
    if (fd < 0) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': %s", a->target, strerror(err));
        atomicfile_discard(a);
        return -1;
    }
    a->fd = fd;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': %s", a->target, strerror(errno));
        atomicfile_discard(a);
        return -1;
    }
    a->dev = st.st_dev;
    a->ino = st.st_ino;
    return 0;
}

/* Create the temporary beside target (see atomicfile.h). */
int atomicfile_open(struct atomicfile *a, const char *target, struct rep_error *e)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    a->slot = -1;
    a->dirfd = AT_FDCWD;
    if (atomicfile_target_check(target, e) != 0)
        return -1;
    a->target = xstrdup(target);
    a->target_at = a->target;
    char *d = xstrdup(target), *b = xstrdup(target);
    int rc = open_temp(a, dirname(d), basename(b), e);
    free(d);
    free(b);
    return rc;
}

/* Create the temporary for name in the folder open as dirfd (see atomicfile.h). */
int atomicfile_open_at(struct atomicfile *a, int dirfd, const char *dir, const char *name,
                       struct rep_error *e)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    a->slot = -1;
    a->dirfd = dirfd;
    char *target = path_join(dir, name);
    if (target_check_at(dirfd, name, target, e) != 0) {
        free(target);
        return -1;
    }
    a->target = target;
    a->target_at = target + strlen(target) - strlen(name);
    return open_temp(a, dir, name, e);
}

/* Open dir without following a link at its name (see atomicfile.h). */
int atomicfile_dir_open(const char *dir, const char *what, struct rep_error *e)
{
    char *d = xstrdup(dir);
    for (size_t n = strlen(d); n > 1 && d[n - 1] == '/'; n--)
        d[n - 1] = 0;
    int fd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    free(d);
    if (fd >= 0)
        return fd;
    if (err == ELOOP || err == ENOTDIR)
        rep_fail(e, REP_ERR_OUTPUT,
                 "cannot write %s to '%s': not a folder (a symbolic link there is not followed)",
                 what, dir);
    else
        rep_fail(e, REP_ERR_OUTPUT, "cannot write %s to '%s': %s", what, dir, strerror(err));
    return -1;
}

/* The descriptor as a stream that owns it. */
FILE *atomicfile_stream(struct atomicfile *a)
{
    FILE *f = fdopen(a->fd, "w");
    if (f)
        a->fd = -1;
    return f;
}

/* Rename the temporary into place, over the target when replace is set. */
static int commit(struct atomicfile *a, int replace, struct rep_error *e)
{
    if (!a->tmp) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': not open", a->target ? a->target : "");
        atomicfile_discard(a);
        return -1;
    }
    if (a->fd >= 0) {
        int bad = close(a->fd) != 0;
        a->fd = -1;
        if (bad) {
            rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': %s", a->target, strerror(errno));
            atomicfile_discard(a);
            return -1;
        }
    }
    struct stat st;
    if (fstatat(a->dirfd, a->tmp_at, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_dev != a->dev || st.st_ino != a->ino) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': its temporary file '%s' was replaced",
                 a->target, a->tmp);
        atomicfile_discard(a);
        return -1;
    }
    if (target_check_at(a->dirfd, a->target_at, a->target, e) != 0) {
        atomicfile_discard(a);
        return -1;
    }
    sigset_t old;
    registry_lock(&old);
    if ((replace ? renameat(a->dirfd, a->tmp_at, a->dirfd, a->target_at)
                 : prof_file_publish_at(a->dirfd, a->tmp_at, a->target_at)) != 0) {
        int err = errno;
        registry_unlock(&old);
        if (err == EEXIST)
            rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': it exists (not replaced)", a->target);
        else
            rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': %s", a->target, strerror(err));
        atomicfile_discard(a);
        return -1;
    }
    if (a->slot >= 0)
        live[a->slot] = NULL;
    a->slot = -1;
    registry_unlock(&old);
    free(a->tmp);
    a->tmp = NULL;
    atomicfile_discard(a);
    return 0;
}

/* Rename the temporary over the target (see atomicfile.h). */
int atomicfile_commit(struct atomicfile *a, struct rep_error *e) { return commit(a, 1, e); }

/* Give the temporary the target's name unless a file has it (see atomicfile.h). */
int atomicfile_commit_new(struct atomicfile *a, struct rep_error *e) { return commit(a, 0, e); }

/* Remove what was not committed and release a. */
void atomicfile_discard(struct atomicfile *a)
{
    if (a->tmp && a->fd >= 0)
        close(a->fd);
    a->fd = -1;
    if (a->tmp) {
        sigset_t old;
        registry_lock(&old);
        unlinkat(a->dirfd, a->tmp_at, 0);
        if (a->slot >= 0)
            live[a->slot] = NULL;
        registry_unlock(&old);
    }
    a->slot = -1;
    free(a->tmp);
    free(a->target);
    a->tmp = a->target = NULL;
    a->tmp_at = a->target_at = NULL;
}

/* Copy the file open as in into a's temporary and commit it; in is closed. 0, or -1 with e. */
static int copy_into(int in, struct atomicfile *a, struct rep_error *e)
{
    char buf[65536];
    ssize_t r;
    int err = 0;
    while (!err && (r = read(in, buf, sizeof buf)) != 0) {
        if (r < 0) {
            if (errno != EINTR)
                err = errno;
            continue;
        }
        err = prof_write_all(a->fd, buf, (size_t)r);
    }
    close(in);
    if (err) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': %s", a->target, strerror(err));
        atomicfile_discard(a);
        return -1;
    }
    return atomicfile_commit(a, e);
}

/* from opened for reading, or -1 with "cannot read 'FROM': ..." in e. */
static int open_source(const char *from, struct rep_error *e)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        rep_fail(e, REP_ERR_OUTPUT, "cannot read '%s': %s", from, strerror(errno));
    return in;
}

/* Copy from into target. */
int atomicfile_copy(const char *from, const char *target, struct rep_error *e)
{
    int in = open_source(from, e);
    if (in < 0)
        return -1;
    struct atomicfile a;
    if (atomicfile_open(&a, target, e) != 0) {
        close(in);
        return -1;
    }
    return copy_into(in, &a, e);
}

/* Copy from into the file name of the folder open as dirfd (shown as dir). */
int atomicfile_copy_at(const char *from, int dirfd, const char *dir, const char *name,
                       struct rep_error *e)
{
    struct atomicfile a;
    if (atomicfile_open_at(&a, dirfd, dir, name, e) != 0)
        return -1;
    int in = open_source(from, e);
    if (in < 0) {
        atomicfile_discard(&a);
        return -1;
    }
    return copy_into(in, &a, e);
}

/* ---- private folders ---- */

/* Register a folder for removal on a signal or at exit. */
void atomicfile_register_dir(const char *dir)
{
    char *copy = xstrdup(dir);
    sigset_t old;
    registry_lock(&old);
    int slot = registry_add(copy, 1);
    registry_unlock(&old);
    if (slot < 0)
        free(copy);
}

/* Remove a registered folder now and forget it. */
void atomicfile_remove_dir(const char *dir)
{
    sigset_t old;
    registry_lock(&old);
    remove_dir_now(dir);
    char *copy = NULL;
    for (int i = 0; i < LIVE_MAX; i++)
        if (live[i] && live_is_dir[i] && strcmp(live[i], dir) == 0) {
            copy = (char *)(uintptr_t)live[i];
            live[i] = NULL;
        }
    registry_unlock(&old);
    free(copy);
}
