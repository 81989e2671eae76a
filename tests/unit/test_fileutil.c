/*
 * test_fileutil.c - unit tests of common/fileutil.c: the one way the collector and the
 * profreport command create files in folders other people may write, and make folders.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fileutil.h"

/* A fresh private folder for one test; the caller removes what it made, then the folder. */
static char *scratch(void)
{
    char *d = strdup("/tmp/prof-fileutil-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

/* path = dir/name in buf. */
static const char *in(char *buf, size_t n, const char *dir, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
    return buf;
}

/* A new file is made with the mode asked, less the umask; an existing name is never reused. */
static void create_makes_a_new_file_with_the_mode_asked(void **state)
{
    (void)state;
    char *d = scratch(), p[256];
    mode_t old = umask(022);
    int fd = prof_file_create(in(p, sizeof p, d, "a"), 0666);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    close(fd);
    errno = 0;
    assert_int_equal(prof_file_create(p, 0666), -1);
    assert_int_equal(errno, EEXIST);
    umask(old);
    unlink(p);
    rmdir(d);
    free(d);
}

/* A symbolic link planted at the name, dangling or not, is refused and its target untouched. */
static void create_never_follows_a_planted_link(void **state)
{
    (void)state;
    char *d = scratch(), link[256], victim[256];
    in(victim, sizeof victim, d, "victim");
    in(link, sizeof link, d, "link");
    assert_int_equal(symlink(victim, link), 0); /* dangling */
    assert_int_equal(prof_file_create(link, 0644), -1);
    assert_int_equal(access(victim, F_OK), -1); /* not created through the link */
    int fd = open(victim, O_WRONLY | O_CREAT, 0644);
    assert_int_equal(write(fd, "keep", 4), 4);
    close(fd);
    assert_int_equal(prof_file_create(link, 0644), -1);
    struct stat st;
    assert_int_equal(stat(victim, &st), 0);
    assert_int_equal(st.st_size, 4);
    unlink(link);
    unlink(victim);
    rmdir(d);
    free(d);
}

/* A temporary is named .<base>.<8 hex digits><ext> in the folder, and two are never the same. */
static void temporaries_have_unpredictable_distinct_names(void **state)
{
    (void)state;
    char *d = scratch(), *a = NULL, *b = NULL;
    int fa = prof_file_create_temp(d, "report.xlsx", "", 0600, &a);
    int fb = prof_file_create_temp(d, "report.xlsx", "", 0600, &b);
    assert_true(fa >= 0 && fb >= 0);
    assert_string_not_equal(a, b);
    size_t dl = strlen(d);
    assert_memory_equal(a, d, dl);
    assert_memory_equal(a + dl, "/.report.xlsx.", 14);
    assert_int_equal(strlen(a + dl + 14), 8);
    assert_true(strspn(a + dl + 14, "0123456789abcdef") == 8);
    close(fa);
    close(fb);
    unlink(a);
    unlink(b);
    free(a);
    free(b);
    char *c = NULL;
    errno = 0;
    assert_int_equal(prof_file_create_temp("/nonexistent-folder", "x", ".tmp", 0600, &c), -1);
    assert_int_equal(errno, ENOENT);
    assert_null(c);
    rmdir(d);
    free(d);
}

/* mkdirs makes every missing level, accepts what exists, and says why it cannot go on. */
static void mkdirs_makes_the_missing_parents(void **state)
{
    (void)state;
    char *d = scratch(), p[256], q[256];
    assert_int_equal(prof_mkdirs(in(p, sizeof p, d, "a/b/c")), 0);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(prof_mkdirs(p), 0); /* all there already */
    assert_int_equal(prof_mkdirs(in(q, sizeof q, d, "a/b/")), 0);
    int fd = open(in(q, sizeof q, d, "file"), O_WRONLY | O_CREAT, 0644);
    close(fd);
    assert_int_equal(prof_mkdirs(in(p, sizeof p, d, "file/sub")), ENOTDIR);
    unlink(q);
    rmdir(in(p, sizeof p, d, "a/b/c"));
    rmdir(in(p, sizeof p, d, "a/b"));
    rmdir(in(p, sizeof p, d, "a"));
    rmdir(d);
    free(d);
}

/* Folders are made 0755 whatever the umask: never writable by others. */
static void mkdirs_never_makes_a_folder_others_can_write(void **state)
{
    (void)state;
    char *d = scratch(), p[256];
    mode_t old = umask(0);
    assert_int_equal(prof_mkdirs(in(p, sizeof p, d, "x/y")), 0);
    umask(old);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0755);
    assert_int_equal(stat(in(p, sizeof p, d, "x"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0755);
    rmdir(in(p, sizeof p, d, "x/y"));
    rmdir(in(p, sizeof p, d, "x"));
    rmdir(d);
    free(d);
}

/* Files made relative to a folder's descriptor stay in that folder when its name is given to
   a link to another folder; publishing there replaces nothing either. */
static void files_made_at_a_folder_descriptor_follow_the_folder_not_its_name(void **state)
{
    (void)state;
    char *d = scratch(), p[256], q[256], r[256];
    assert_int_equal(mkdir(in(p, sizeof p, d, "runs"), 0755), 0);
    assert_int_equal(mkdir(in(q, sizeof q, d, "elsewhere"), 0755), 0);
    int dirfd = open(p, O_RDONLY | O_DIRECTORY);
    assert_true(dirfd >= 0);
    assert_int_equal(rename(p, in(r, sizeof r, d, "moved")), 0);
    assert_int_equal(symlink(q, p), 0);
    char *tmp = NULL;
    int fd = prof_file_create_temp_at(dirfd, NULL, "run", ".tmp", 0600, &tmp);
    assert_true(fd >= 0);
    assert_null(strchr(tmp, '/'));
    close(fd);
    assert_int_equal(prof_file_publish_at(dirfd, tmp, "run.csv"), 0);
    fd = prof_file_create_at(dirfd, "again", 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(prof_file_publish_at(dirfd, "again", "run.csv"), -1);
    assert_int_equal(errno, EEXIST);
    char f[300];
    snprintf(f, sizeof f, "%s/run.csv", r);
    assert_int_equal(access(f, F_OK), 0);
    snprintf(f, sizeof f, "%s/run.csv", q);
    assert_int_equal(access(f, F_OK), -1);
    unlinkat(dirfd, "run.csv", 0);
    unlinkat(dirfd, "again", 0);
    close(dirfd);
    free(tmp);
    unlink(p);
    rmdir(q);
    rmdir(r);
    rmdir(d);
    free(d);
}

/* A write to a pipe whose reader is gone fails with EPIPE under the guard, the SIGPIPE it
   raised is taken away and the mask restored; a SIGPIPE pending before stays the caller's. */
static void closed_pipe_raises_no_sigpipe_under_the_guard(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    close(fds[0]);
    sigset_t pipe_set, before, after, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_SETMASK, NULL, &before);
    struct prof_signal_guard g;
    prof_signals_hold(&g);
    assert_int_equal(prof_write_all(fds[1], "x", 1), EPIPE);
    prof_signals_release(&g);
    pthread_sigmask(SIG_SETMASK, NULL, &after);
    assert_int_equal(sigismember(&after, SIGPIPE), sigismember(&before, SIGPIPE));
    assert_int_equal(sigpending(&pending), 0);
    assert_false(sigismember(&pending, SIGPIPE));

    /* The program's own SIGPIPE, pending (blocked) before the write, is not taken. */
    pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
    pthread_kill(pthread_self(), SIGPIPE);
    prof_signals_hold(&g);
    assert_int_equal(prof_write_all(fds[1], "x", 1), EPIPE);
    prof_signals_release(&g);
    assert_int_equal(sigpending(&pending), 0);
    assert_true(sigismember(&pending, SIGPIPE));
    const struct timespec zero = {0, 0};
    assert_int_equal(sigtimedwait(&pipe_set, NULL, &zero), SIGPIPE);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    close(fds[1]);
}

/* Publishing gives the file its final name but never replaces one already there. */
static void publish_never_replaces(void **state)
{
    (void)state;
    char *d = scratch(), from[256], to[256];
    int fd = prof_file_create(in(from, sizeof from, d, ".tmp"), 0644);
    close(fd);
    assert_int_equal(prof_file_publish(from, in(to, sizeof to, d, "run.csv")), 0);
    assert_int_equal(access(from, F_OK), -1);
    assert_int_equal(access(to, F_OK), 0);
    fd = prof_file_create(from, 0644);
    close(fd);
    errno = 0;
    assert_int_equal(prof_file_publish(from, to), -1);
    assert_int_equal(errno, EEXIST);
    assert_int_equal(access(from, F_OK), 0); /* still there for the caller to retry */
    unlink(from);
    unlink(to);
    rmdir(d);
    free(d);
}

/* The reader of a pipe, taking what prof_writev_all writes a little at a time. */
static void *drain(void *arg)
{
    int fd = *(int *)arg;
    static char got[1 << 20];
    size_t n = 0;
    ssize_t r;
    while ((r = read(fd, got + n, n + 777 <= sizeof got ? 777 : sizeof got - n)) != 0) {
        if (r > 0)
            n += (size_t)r;
        usleep(20); /* slow: the writer waits, and the timer's signal cuts its writes short */
    }
    return n == sizeof got ? got : NULL; /* exactly 1 MiB arrived */
}

/* A signal's handler, doing nothing: it only interrupts. */
static void on_alarm(int sig) { (void)sig; }

/* Writes far larger than a pipe holds, interrupted every millisecond by a signal (without
   SA_RESTART), come out short or fail with EINTR; every byte still arrives, in order, across
   the iovecs' boundaries. A closed reader is an error value (EPIPE), not a signal. */
static void writes_are_complete_across_short_writes(void **state)
{
    (void)state;
    static char data[1 << 20];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)(i * 7 + i / 251);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alarm, NULL); /* the reader thread takes none */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, drain, &fds[0]), 0);
    pthread_sigmask(SIG_UNBLOCK, &alarm, NULL);
    struct sigaction sa = {.sa_handler = on_alarm}, old_sa;
    sigaction(SIGALRM, &sa, &old_sa);
    struct itimerval every_ms = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &every_ms, NULL);
    struct iovec iov[3] = {{data, 1}, {data + 1, 300000}, {data + 300001, sizeof data - 300001}};
    assert_int_equal(prof_writev_all(fds[1], iov, 3), 0);
    setitimer(ITIMER_REAL, &off, NULL);
    sigaction(SIGALRM, &old_sa, NULL);
    close(fds[1]);
    void *got;
    assert_int_equal(pthread_join(t, &got), 0);
    assert_non_null(got);
    assert_memory_equal(got, data, sizeof data);
    close(fds[0]);

    assert_int_equal(pipe(fds), 0);
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    assert_int_equal(prof_write_all(fds[1], data, 10), EPIPE);
    signal(SIGPIPE, SIG_DFL);
    close(fds[1]);
}

/* Paths lose their "." and "name/.." steps and doubled slashes, lexically; relative ones stay. */
static void paths_are_cleaned_lexically(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"/src/lib/compress/../common/error.h", "/src/lib/common/error.h"},
        {"/tmp/x/shared_lib.c", "/tmp/x/shared_lib.c"},
        {"/a/b/../../../c", "/c"},
        {"/a/./b//c/../../d", "/a/d"},
        {"/a/b/", "/a/b"},
        {"/..", "/"},
        {"/a/../..", "/"},
        {"/", "/"},
        {"//x/.../y", "/x/.../y"},
        {"/a/..b/c", "/a/..b/c"},
        {"rel/../x.h", "rel/../x.h"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* the text ends at its NUL, with other bytes behind it, as in a reused allocation */
        char buf[64];
        memset(buf, 'X', sizeof buf);
        memcpy(buf, cases[i][0], strlen(cases[i][0]) + 1);
        prof_path_clean(buf);
        assert_string_equal(buf, cases[i][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths_are_cleaned_lexically),
        cmocka_unit_test(create_makes_a_new_file_with_the_mode_asked),
        cmocka_unit_test(create_never_follows_a_planted_link),
        cmocka_unit_test(temporaries_have_unpredictable_distinct_names),
        cmocka_unit_test(mkdirs_makes_the_missing_parents),
        cmocka_unit_test(mkdirs_never_makes_a_folder_others_can_write),
        cmocka_unit_test(files_made_at_a_folder_descriptor_follow_the_folder_not_its_name),
        cmocka_unit_test(publish_never_replaces),
        cmocka_unit_test(closed_pipe_raises_no_sigpipe_under_the_guard),
        cmocka_unit_test(writes_are_complete_across_short_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
