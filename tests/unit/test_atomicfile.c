/*
 * test_atomicfile.c - unit tests of atomicfile.c: a temporary beside the target renamed into
 * place, nothing left on discard, targets that are not regular files refused, a symbolic link
 * never followed, a swapped temporary never renamed, private folders removed whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/atomicfile.h"
#include "files.h"
#include "base/util.h"

/* A fresh empty folder under /tmp for one test (the caller removes it). */
static char *fresh_dir(void)
{
    char *d = strdup("/tmp/test_atomicfile-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

/* dir/name in a static buffer (one at a time). */
static const char *in(const char *dir, const char *name)
{
    static char buf[2][512];
    static int k;
    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* Remove the test folder d with everything in it, and free d. */
static void remove_tree(char *d)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
    free(d);
}

/* The whole content of a small file. */
static char *slurp(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* The temporary is in the target's folder; the target appears only on commit. */
static void commit_renames_the_temporary_over_the_target(void **state)
{
    (void)state;
    char *d = fresh_dir();
    char *target = strdup(in(d, "out.txt"));
    FILE *old = fopen(target, "w");
    fputs("old", old);
    fclose(old);
    struct atomicfile a;
    struct rep_error why;
    assert_int_equal(atomicfile_open(&a, target, &why), 0);
    const char *prefix = in(d, ".out.txt.");
    assert_int_equal(strncmp(a.tmp, prefix, strlen(prefix)), 0);
    assert_int_equal(write(a.fd, "new", 3), 3);
    assert_string_equal(slurp(target), "old");
    assert_int_equal(atomicfile_commit(&a, &why), 0);
    assert_string_equal(slurp(target), "new");
    assert_int_equal(dir_entries(d), 1);
    free(target);
    atomicfile_remove_dir(d);
    free(d);
}

/* Discarding removes the temporary and leaves the target as it was. */
static void commit_new_never_replaces_a_file(void **state)
{
    (void)state;
    char *d = fresh_dir();
    char *target = strdup(in(d, "out.txt"));
    struct atomicfile a;
    struct rep_error why;
    assert_int_equal(atomicfile_open(&a, target, &why), 0);
    assert_int_equal(write(a.fd, "new", 3), 3);
    /* Another process takes the name between the caller's check and the commit. */
    FILE *other = fopen(target, "w");
    fputs("other", other);
    fclose(other);
    assert_int_equal(atomicfile_commit_new(&a, &why), -1);
    assert_int_equal(why.code, REP_ERR_OUTPUT);
    assert_non_null(strstr(why.msg, "it exists (not replaced)"));
    assert_string_equal(slurp(target), "other");
    assert_int_equal(dir_entries(d), 1); /* the temporary is gone */
    unlink(target);
    assert_int_equal(atomicfile_open(&a, target, &why), 0);
    assert_int_equal(write(a.fd, "new", 3), 3);
    assert_int_equal(atomicfile_commit_new(&a, &why), 0);
    assert_string_equal(slurp(target), "new");
    assert_int_equal(dir_entries(d), 1);
    free(target);
    atomicfile_remove_dir(d);
    free(d);
}

static void discard_leaves_nothing(void **state)
{
    (void)state;
    char *d = fresh_dir();
    struct atomicfile a;
    struct rep_error why;
    assert_int_equal(atomicfile_open(&a, in(d, "x"), &why), 0);
    FILE *f = atomicfile_stream(&a);
    assert_non_null(f);
    assert_int_equal(a.fd, -1);
    fputs("half", f);
    fclose(f);
    atomicfile_discard(&a);
    atomicfile_discard(&a); /* twice is harmless */
    assert_int_equal(dir_entries(d), 0);
    atomicfile_remove_dir(d);
    free(d);
}

/* A FIFO or folder at the target is refused before anything is created. */
static void non_regular_target_is_refused(void **state)
{
    (void)state;
    char *d = fresh_dir();
    const char *fifo = in(d, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    struct atomicfile a;
    struct rep_error why;
    assert_int_equal(atomicfile_open(&a, fifo, &why), -1);
    char want[600];
    snprintf(want, sizeof want, "cannot write '%s': not a regular file", fifo);
    assert_string_equal(why.msg, want);
    assert_int_equal(atomicfile_open(&a, d, &why), -1);
    assert_non_null(strstr(why.msg, "not a regular file"));
    struct stat st;
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(dir_entries(d), 1);
    atomicfile_remove_dir(d);
    free(d);
}

/* A target turned into a FIFO while the output was being written is not replaced. */
static void target_checked_again_at_commit(void **state)
{
    (void)state;
    char *d = fresh_dir();
    const char *target = in(d, "t");
    struct atomicfile a;
    struct rep_error why;
    assert_int_equal(atomicfile_open(&a, target, &why), 0);
    assert_int_equal(mkfifo(target, 0600), 0);
    assert_int_equal(atomicfile_commit(&a, &why), -1);
    assert_non_null(strstr(why.msg, "not a regular file"));
    assert_int_equal(dir_entries(d), 1); /* the FIFO; the temporary is gone */
    atomicfile_remove_dir(d);
    free(d);
}

/* A temporary replaced by a symbolic link (to a victim) is not renamed into place. */
static void swapped_temporary_is_not_committed(void **state)
{
    (void)state;
    char *d = fresh_dir();
    const char *victim = in(d, "victim");
    FILE *v = fopen(victim, "w");
    fputs("precious", v);
    fclose(v);
    struct atomicfile a;
    struct rep_error why;
    assert_int_equal(atomicfile_open(&a, in(d, "out"), &why), 0);
    close(a.fd);
    a.fd = -1;
    assert_int_equal(unlink(a.tmp), 0);
    assert_int_equal(symlink(victim, a.tmp), 0);
    assert_int_equal(atomicfile_commit(&a, &why), -1);
    assert_non_null(strstr(why.msg, "was replaced"));
    assert_string_equal(slurp(victim), "precious");
    assert_int_equal(access(in(d, "out"), F_OK), -1);
    atomicfile_remove_dir(d);
    free(d);
}

/* atomicfile_copy writes the same bytes; a missing source is an error naming it. */
static void copy_copies_and_reports_a_missing_source(void **state)
{
    (void)state;
    char *d = fresh_dir();
    FILE *f = fopen(in(d, "src"), "w");
    fputs("picture", f);
    fclose(f);
    struct rep_error why;
    assert_int_equal(atomicfile_copy(in(d, "src"), in(d, "dst"), &why), 0);
    assert_string_equal(slurp(in(d, "dst")), "picture");
    assert_int_equal(atomicfile_copy(in(d, "none"), in(d, "dst2"), &why), -1);
    assert_non_null(strstr(why.msg, "cannot read"));
    assert_int_equal(dir_entries(d), 2);
    atomicfile_remove_dir(d);
    free(d);
}

/* atomicfile_copy_at writes into the folder its descriptor holds, even when the folder's path
   has since been swapped for a link to another folder: that one gets nothing. */
static void copy_at_writes_into_the_folder_opened(void **state)
{
    (void)state;
    char *d = fresh_dir();
    FILE *f = fopen(in(d, "src"), "w");
    fputs("picture", f);
    fclose(f);
    assert_int_equal(mkdir(in(d, "charts"), 0777), 0);
    assert_int_equal(mkdir(in(d, "elsewhere"), 0777), 0);
    int dir = open(in(d, "charts"), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    assert_true(dir >= 0);
    assert_int_equal(rename(in(d, "charts"), in(d, "moved")), 0);
    assert_int_equal(symlink(in(d, "elsewhere"), in(d, "charts")), 0);
    struct rep_error why;
    char shown[600];
    snprintf(shown, sizeof shown, "%s", in(d, "charts"));
    assert_int_equal(atomicfile_copy_at(in(d, "src"), dir, shown, "a.png", &why), 0);
    assert_string_equal(slurp(in(d, "moved/a.png")), "picture");
    assert_int_equal(dir_entries(in(d, "elsewhere")), 0);
    assert_int_equal(dir_entries(in(d, "moved")), 1); /* no temporary left */
    /* A missing source is an error naming it, and leaves nothing. */
    assert_int_equal(atomicfile_copy_at(in(d, "none"), dir, shown, "b.png", &why), -1);
    assert_non_null(strstr(why.msg, "cannot read"));
    assert_int_equal(dir_entries(in(d, "moved")), 1);
    close(dir);
    remove_tree(d);
}

/* atomicfile_dir_open refuses a symbolic link at the folder's name (with or without a
   trailing slash) and a file; atomicfile_open_at then writes, commits and discards relative
   to the folder opened, even once its path leads elsewhere. */
static void dir_open_refuses_a_link_and_open_at_stays_in_the_folder_opened(void **state)
{
    (void)state;
    char *d = fresh_dir();
    assert_int_equal(mkdir(in(d, "csv"), 0777), 0);
    assert_int_equal(mkdir(in(d, "elsewhere"), 0777), 0);
    assert_int_equal(symlink(in(d, "elsewhere"), in(d, "link")), 0);
    struct rep_error why;
    char shown[600];
    snprintf(shown, sizeof shown, "%s/", in(d, "link"));
    const char *refused[] = {in(d, "link"), shown};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(atomicfile_dir_open(refused[i], "CSV files", &why), -1);
        assert_int_equal(why.code, REP_ERR_OUTPUT);
        assert_non_null(strstr(why.msg, "not a folder (a symbolic link there is not followed)"));
        assert_non_null(strstr(why.msg, refused[i]));
    }
    FILE *f = fopen(in(d, "file"), "w");
    fclose(f);
    assert_int_equal(atomicfile_dir_open(in(d, "file"), "CSV files", &why), -1);
    snprintf(shown, sizeof shown, "%s", in(d, "csv"));
    int dir = atomicfile_dir_open(shown, "CSV files", &why);
    assert_true(dir >= 0);
    assert_int_equal(rename(in(d, "csv"), in(d, "moved")), 0);
    assert_int_equal(symlink(in(d, "elsewhere"), in(d, "csv")), 0);
    struct atomicfile a, b;
    assert_int_equal(atomicfile_open_at(&a, dir, shown, "a.csv", &why), 0);
    assert_string_equal(a.target, in(d, "csv/a.csv"));
    assert_int_equal(write(a.fd, "new", 3), 3);
    assert_int_equal(atomicfile_open_at(&b, dir, shown, "b.csv", &why), 0);
    assert_int_equal(dir_entries(in(d, "moved")), 2); /* two temporaries */
    atomicfile_discard(&b);
    assert_int_equal(atomicfile_commit_new(&a, &why), 0);
    assert_string_equal(slurp(in(d, "moved/a.csv")), "new");
    assert_int_equal(dir_entries(in(d, "moved")), 1);
    assert_int_equal(dir_entries(in(d, "elsewhere")), 0);
    close(dir);
    remove_tree(d);
}

/* A registered private folder is removed with everything in it. */
static void private_folder_is_removed_whole(void **state)
{
    (void)state;
    char *d = fresh_dir();
    atomicfile_register_dir(d);
    char name[32];
    for (int i = 0; i < 300; i++) { /* more than one getdents64 buffer */
        snprintf(name, sizeof name, "file-with-a-long-name-%d", i);
        FILE *f = fopen(in(d, name), "w");
        assert_non_null(f);
        fclose(f);
    }
    atomicfile_remove_dir(d);
    assert_int_equal(access(d, F_OK), -1);
    free(d);
}

int main(void)
{
    atomicfile_signals_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(commit_renames_the_temporary_over_the_target),
        cmocka_unit_test(commit_new_never_replaces_a_file),
        cmocka_unit_test(discard_leaves_nothing),
        cmocka_unit_test(non_regular_target_is_refused),
        cmocka_unit_test(target_checked_again_at_commit),
        cmocka_unit_test(swapped_temporary_is_not_committed),
        cmocka_unit_test(copy_copies_and_reports_a_missing_source),
        cmocka_unit_test(copy_at_writes_into_the_folder_opened),
        cmocka_unit_test(dir_open_refuses_a_link_and_open_at_stays_in_the_folder_opened),
        cmocka_unit_test(private_folder_is_removed_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
