/*
 * test_paths.c - unit tests of paths.c: the call paths with self time, heaviest first, and
 * their text. Expected values are worked out by hand from the rows below (1 tick = 1 ns).
 */
#define _GNU_SOURCE /* fmemopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/paths.h"
#include "runtext.h"

/* main(10, self 3) > {b(2), c(5)}; a top-level d(3): four paths with self time, heaviest
   first; equal self times keep the earlier node first. */
static void paths_come_heaviest_first_with_their_text(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    runtext_read(&m, "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                     "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                     "b,2,1,main,1,2,1,0\n"
                     "c,5,1,main,1,5,4,0\n"
                     "main,10,1,,0,3,0,0\n"
                     "d,3,1,,0,3,20,0\n");
    const struct cct *t = model_paths(&m);
    size_t n;
    double all;
    uint32_t *v = paths_heaviest(t, &n, &all);
    assert_int_equal(n, 4);
    assert_true(all == 13);
    static const char *const want[] = {"main > c", "main", "d", "main > b"};
    static const size_t depth_want[] = {2, 1, 1, 2};
    for (size_t i = 0; i < n; i++) {
        size_t depth;
        char *text = paths_text(t, v[i], NULL, &depth);
        assert_string_equal(text, want[i]);
        assert_int_equal(depth, depth_want[i]);
        free(text);
    }
    /* main and d have 3 ns each: main's node was made first */
    assert_true(v[1] < v[2]);
    free(v);
    model_release(&m);
}

/* Without a tree there is no path. */
static void no_tree_no_paths(void **state)
{
    (void)state;
    size_t n = 1;
    double all = 1;
    uint32_t *v = paths_heaviest(NULL, &n, &all);
    assert_int_equal(n, 0);
    assert_true(all == 0);
    free(v);
}

/* A path longer than PATH_TEXT_MAX keeps its innermost frames after "... > ". */
static void long_paths_keep_their_innermost_frames(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    /* 300 nested frames f000 .. f299, the innermost stopping first */
    size_t cap = 64 * 1024;
    char *text = malloc(cap), *p = text;
    p += sprintf(p, "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                    "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n");
    for (int d = 299; d >= 0; d--) {
        char parent[8] = "";
        if (d > 0)
            sprintf(parent, "f%03d", d - 1);
        p += sprintf(p, "f%03d,%d,1,%s,%d,1,%d,0\n", d, 300 - d, parent, d, d);
    }
    runtext_read(&m, text);
    free(text);
    const struct cct *t = model_paths(&m);
    size_t n;
    uint32_t *v = paths_heaviest(t, &n, NULL);
    assert_int_equal(n, 300);
    size_t depth;
    char *s = NULL;
    for (size_t i = 0; i < n && !s; i++) {
        size_t d;
        char *x = paths_text(t, v[i], NULL, &d);
        if (d == 300) {
            s = x;
            depth = d;
        } else {
            free(x);
        }
    }
    assert_non_null(s);
    assert_int_equal(depth, 300);
    assert_true(strlen(s) <= PATH_TEXT_MAX + 8);
    assert_memory_equal(s, "... > ", 6);
    assert_non_null(strstr(s, " > f299"));
    assert_null(strstr(s, "f000"));
    free(s);
    free(v);
    model_release(&m);
}

/* Recursion folds: a run of one frame repeated is "walk ×9", of a cycle of frames "[a > b] ×3";
   frames come from the names given (the short names) where there is one. */
static void recursion_folds_and_short_names_show(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    /* main > walk x9 > leaf, then main > a > b > a > b > a > b > c */
    char text[4096], *p = text;
    p += sprintf(p, "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                    "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                    "leaf,1,1,walk,10,1,9,0\n");
    for (int d = 9; d >= 1; d--)
        p += sprintf(p, "walk,%d,1,%s,%d,1,%d,%d\n", 11 - d, d > 1 ? "walk" : "main", d, d, d > 1);
    const char *cycle[] = {"a", "b", "a", "b", "a", "b"};
    p += sprintf(p, "c,1,1,b,7,1,26,0\n");
    for (int d = 6; d >= 1; d--)
        p += sprintf(p, "%s,%d,1,%s,%d,1,%d,%d\n", cycle[d - 1], 8 - d,
                     d > 1 ? cycle[d - 2] : "main", d, 20 + d, d > 2);
    p += sprintf(p, "main,40,1,,0,15,0,0\n");
    runtext_read(&m, text);
    const struct cct *t = model_paths(&m);
    size_t n;
    uint32_t *v = paths_heaviest(t, &n, NULL);
    int seen = 0;
    const char **names = calloc(t->nnames, sizeof *names);
    for (size_t i = 0; i < t->nnames; i++)
        if (strcmp(t->names[i], "leaf") == 0)
            names[i] = "the leaf";
    for (size_t i = 0; i < n; i++) {
        size_t d;
        char *x = paths_text(t, v[i], names, &d);
        if (strcmp(x, "main > walk \xc3\x97"
                      "9 > the leaf") == 0)
            seen += d == 11;
        else if (strcmp(x, "main > [a > b] \xc3\x97"
                           "3 > c") == 0)
            seen += d == 8;
        free(x);
    }
    assert_int_equal(seen, 2);
    free(names);
    free(v);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths_come_heaviest_first_with_their_text),
        cmocka_unit_test(no_tree_no_paths),
        cmocka_unit_test(recursion_folds_and_short_names_show),
        cmocka_unit_test(long_paths_keep_their_innermost_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
