/*
 * test_regions.c - unit tests of regions.c through the public API: a scope token names its own
 * region, records its own address and keeps its reserved room zero, a scope a longjmp left is
 * closed as unwound at the next region event, a module's region opens only at the outermost
 * entry and its outermost exit forgets entries a longjmp left, and a name given before
 * recording reaches the part.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profreport.h>

static char dir[64];

/* A fresh folder, and a run recording into it. */
static void begin(void)
{
    strcpy(dir, "/tmp/prof-regions-XXXXXX");
    assert_non_null(mkdtemp(dir));
    assert_int_equal(prof_init(dir), PROF_OK);
}

/* Finish the run; return its run file's text (the caller frees) and remove the folder. */
static char *finish(void)
{
    assert_int_equal(prof_finish(), PROF_OK);
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *text = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        free(text);
        text = calloc(1, (size_t)n + 1);
        assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
        fclose(f);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
    assert_non_null(text);
    return text;
}

/* Lines of text that start with prefix. */
static int lines_starting(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += strncmp(p, prefix, strlen(prefix)) == 0;
    return n;
}

/* Whether text has one events-table row of region, at depth 0 of thread 1. */
static int top_level(const char *text, const char *region)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "\n%s,", region);
    const char *row = strstr(text, prefix);
    if (!row || strstr(row + 1, prefix))
        return 0;
    const char *end = strchr(row + 1, '\n'), *at = strstr(row, ",1,,0,");
    return at && end && at < end;
}

static void scope_token_names_its_region_and_keeps_reserved_room_zero(void **state)
{
    (void)state;
    /* The size 0.2.0 gave it: two pointers beyond the depth and the instance. */
    assert_int_equal(sizeof(struct prof_scope), 2 * sizeof(unsigned) + 2 * sizeof(void *));
    begin();
    prof_start("outer");
    struct prof_scope tok = prof_scope_begin("inner");
    assert_int_equal(tok.depth, 1);
    assert_null(tok.where); /* the 0.2.0 entry point: the token's address is unknown */
    assert_null(tok.reserved[0]);
    prof_start("left-open"); /* closed by the scope's end, with a scope-mismatch warning */
    prof_scope_end(&tok);
    prof_stop(); /* outer */
    char *text = finish();
    assert_int_equal(lines_starting(text, "Warning,scope-mismatch,1,1,"), 1);
    assert_int_equal(lines_starting(text, "Warning,stray-stop"), 0);
    free(text);
}

static void scope_token_records_its_own_address(void **state)
{
    (void)state;
    begin();
    struct prof_scope tok = prof_scope_begin_at("s", &tok);
    assert_int_equal(tok.depth, 0);
    assert_ptr_equal(tok.where, &tok);
    assert_null(tok.reserved[0]);
    prof_scope_end(&tok);
    char *text = finish();
    assert_int_equal(lines_starting(text, "Warning,"), 0);
    free(text);
}

static jmp_buf escape;

/* A scope that longjmps out of itself: its end never runs. */
static __attribute__((noinline)) void leave_scope_open(void)
{
    PROFILER_SCOPE("left");
    longjmp(escape, 1);
}

static void scope_left_by_longjmp_closes_at_the_next_start(void **state)
{
    (void)state;
    begin();
    if (setjmp(escape) == 0)
        leave_scope_open();
    prof_start("next"); /* from higher up the stack than "left"'s token: closes it first */
    prof_stop();
    char *text = finish();
    assert_int_equal(lines_starting(text, "Warning,unwound,1,1,"), 1);
    /* Events table rows (Region,Ticks,Thread,Parent,Depth,...): both at the top level. */
    assert_true(top_level(text, "left"));
    assert_true(top_level(text, "next"));
    free(text);
}

static void module_outermost_exit_forgets_entries_a_longjmp_left(void **state)
{
    (void)state;
    static const struct prof_api api = {"mod"};
    unsigned nesting = 0;
    begin();
    struct prof_api_scope outer = prof_api_enter_at(&api, &nesting, &outer);
    assert_ptr_equal(outer.scope.where, &outer);
    struct prof_api_scope inner = prof_api_enter_at(&api, &nesting, &inner);
    assert_null(inner.scope.where); /* no region of its own */
    /* inner's exit never runs (a longjmp back into the outer call) */
    prof_api_leave(&outer);
    assert_int_equal(nesting, 0);
    struct prof_api_scope again = prof_api_enter_at(&api, &nesting, &again);
    assert_int_equal(again.scope.depth, 0); /* a region of its own again */
    prof_api_leave(&again);
    char *text = finish();
    assert_int_equal(lines_starting(text, "mod,"), 2);
    free(text);
}

static void module_region_opens_only_at_the_outermost_entry(void **state)
{
    (void)state;
    static const struct prof_api api = {"alloc"};
    unsigned nesting = 0;
    begin();
    struct prof_api_scope outer = prof_api_enter(&api, &nesting);
    struct prof_api_scope inner = prof_api_enter(&api, &nesting);
    assert_int_equal(nesting, 2);
    assert_int_equal(outer.scope.depth, 0);
    assert_int_equal(inner.scope.depth, ~0u); /* no second region */
    assert_null(outer.reserved[0]);
    prof_api_leave(&inner);
    prof_api_leave(&outer);
    assert_int_equal(nesting, 0);
    char *text = finish();
    /* One row of the events table (Region,Ticks,Thread,Parent,Depth,...): one instance. */
    assert_int_equal(lines_starting(text, "alloc,"), 1);
    free(text);
}

static void name_given_before_recording_reaches_the_part(void **state)
{
    (void)state;
    prof_thread_name("named-early");
    begin();
    prof_start("r");
    prof_stop();
    char *text = finish();
    assert_non_null(strstr(text, "named-early"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scope_token_names_its_region_and_keeps_reserved_room_zero),
        cmocka_unit_test(scope_token_records_its_own_address),
        cmocka_unit_test(scope_left_by_longjmp_closes_at_the_next_start),
        cmocka_unit_test(module_outermost_exit_forgets_entries_a_longjmp_left),
        cmocka_unit_test(module_region_opens_only_at_the_outermost_entry),
        cmocka_unit_test(name_given_before_recording_reaches_the_part),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
