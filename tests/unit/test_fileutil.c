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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_makes_a_new_file_with_the_mode_asked),
        cmocka_unit_test(create_never_follows_a_planted_link),
        cmocka_unit_test(temporaries_have_unpredictable_distinct_names),
        cmocka_unit_test(mkdirs_makes_the_missing_parents),
        cmocka_unit_test(publish_never_replaces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
