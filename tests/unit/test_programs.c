/*
 * test_programs.c - unit tests of programs.c and of the model's pick of runs by program: which
 * program a report is of, the errors that name the programs present, and the notes on runs from
 * different hosts, clocks and tick rates. Runs are read from run files in memory.
 */
#define _GNU_SOURCE /* fmemopen, asprintf */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "read/input.h"
#include "model/programs.h"

/* Read a run of one "work" row into m: its Program (NULL: none, as the seed form), Host, Clock,
   Frequency and Duration in ticks (0: no Duration record). */
static void read_timed_run(struct model *m, const char *program, const char *host,
                           const char *clock, unsigned long long frequency,
                           unsigned long long duration)
{
    char *text, dur[64] = "";
    if (duration)
        snprintf(dur, sizeof dur, "Duration,%llu\n", duration);
    assert_true(asprintf(&text,
                         "Frequency,%llu\nFormat,profreport-run,3\nMode,events\n%s%s%s"
                         "Host,%s\nClock,%s\n%sThreads,1\nThread,1,7,main,exited\n"
                         "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                         "work,10,1,,0,10,0,0\n",
                         frequency, program ? "Program," : "", program ? program : "",
                         program ? "\n" : "", host, clock, dur) >= 0);
    FILE *f = fmemopen(text, strlen(text), "r");
    assert_non_null(f);
    assert_int_equal(input_add_run(m, f, "run.csv", 0), RUNFILE_OK);
    fclose(f);
    free(text);
}

static void read_run(struct model *m, const char *program, const char *host, const char *clock,
                     unsigned long long frequency)
{
    read_timed_run(m, program, host, clock, frequency, 0);
}

/* Runs of /a/zstd (2), /b/lua (3) and one without a Program record, as a first look counts
   them (PICK_NONE): no run is kept, every one is counted. */
static void first_look(struct model *m)
{
    model_init(m);
    model_pick(m, PICK_NONE, NULL);
    read_run(m, "/a/zstd", "h", "tsc", 1000);
    read_run(m, NULL, "h", "tsc", 1000);
    read_run(m, "/b/lua", "h", "tsc", 1000);
    read_run(m, "/a/zstd", "h", "tsc", 1000);
    read_run(m, "/b/lua", "h", "tsc", 1000);
    read_run(m, "/b/lua", "h", "tsc", 1000);
    assert_int_equal(m->nruns, 0);
    assert_int_equal(m->nprograms, 3);
    assert_string_equal(m->programs[0].name, "/a/zstd");
    assert_int_equal(m->programs[0].runs, 2);
    assert_null(m->programs[1].name);
    assert_int_equal(m->programs[2].runs, 3);
}

/* Without --program or Durations, the program with the most runs; runs that name none are never
   it. */
static void default_is_the_program_with_most_runs(void **state)
{
    (void)state;
    struct model m;
    first_look(&m);
    struct rep_error e;
    size_t k = 99;
    assert_int_equal(programs_choose(m.programs, m.nprograms, NULL, &k, &e), 0);
    assert_int_equal(k, 2);
    /* A tie goes to the first met. */
    m.programs[0].runs = 3;
    assert_int_equal(programs_choose(m.programs, m.nprograms, NULL, &k, &e), 0);
    assert_int_equal(k, 0);
    /* Runs naming no program are the choice only when alone. */
    m.programs[1].runs = 9;
    assert_int_equal(programs_choose(m.programs, m.nprograms, NULL, &k, &e), 0);
    assert_int_equal(k, 0);
    assert_int_equal(programs_choose(m.programs + 1, 1, NULL, &k, &e), 0);
    assert_int_equal(k, 0);
    model_release(&m);
}

/* With Durations, the program whose runs took the most time, though it has fewer runs: a
   configure script's conftest runs (a millisecond each) are not the program profiled. The list
   names them in that order, with their time. */
static void default_is_the_program_whose_runs_took_longest(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_pick(&m, PICK_NONE, NULL);
    for (int i = 0; i < 3; i++)
        read_timed_run(&m, "/b/conftest", "h", "tsc", 1000000000ull, 1200000ull); /* 1.2 ms */
    read_timed_run(&m, "/b/app", "h", "tsc", 2000000000ull, 1000000000ull);       /* 0.5 s */
    struct rep_error e;
    size_t k = 99;
    assert_int_equal(programs_choose(m.programs, m.nprograms, NULL, &k, &e), 0);
    assert_string_equal(m.programs[k].name, "/b/app");
    char *s = programs_list(m.programs, m.nprograms, 0);
    assert_string_equal(s, "/b/app (1 run, 500 ms), /b/conftest (3 runs, 3.60 ms)");
    free(s);
    /* Equal times: the most runs. */
    m.programs[0].ns = m.programs[1].ns;
    assert_int_equal(programs_choose(m.programs, m.nprograms, NULL, &k, &e), 0);
    assert_string_equal(m.programs[k].name, "/b/conftest");
    model_release(&m);
    /* Durations are in the run's ticks: 500 ticks at 1 kHz are half a second. */
    model_init(&m);
    model_pick(&m, PICK_NONE, NULL);
    read_timed_run(&m, "/b/app", "h", "tsc", 1000, 500);
    assert_true(m.programs[0].ns > 4.99e8 && m.programs[0].ns < 5.01e8);
    model_release(&m);
}

/* --program matches a whole path first, else the last path component of exactly one. */
static void program_is_found_by_path_or_name(void **state)
{
    (void)state;
    struct model m;
    first_look(&m);
    struct rep_error e;
    size_t k = 99;
    assert_int_equal(programs_choose(m.programs, m.nprograms, "lua", &k, &e), 0);
    assert_int_equal(k, 2);
    assert_int_equal(programs_choose(m.programs, m.nprograms, "/a/zstd", &k, &e), 0);
    assert_int_equal(k, 0);
    assert_false(model_program_is("/a/zstd", "a/zstd"));
    assert_false(model_program_is("/a/zstd", "zst"));
    assert_false(model_program_is(NULL, "zstd"));
    assert_true(model_program_is("zstd", "zstd"));
    model_release(&m);
}

/* An unknown name lists the programs present, most runs first; a name two programs share is a
   usage error that lists them. */
static void unknown_or_shared_names_are_errors(void **state)
{
    (void)state;
    struct model m;
    first_look(&m);
    struct rep_error e;
    size_t k = 99;
    assert_int_equal(programs_choose(m.programs, m.nprograms, "gcc", &k, &e), -1);
    assert_int_equal(e.code, REP_ERR_NO_INPUT);
    assert_string_equal(e.msg, "no run of program 'gcc' (--program); the runs are of: /b/lua "
                               "(3 runs), /a/zstd (2 runs), (no Program record) (1 run)");
    free(m.programs[2].name);
    m.programs[2].name = strdup("/b/zstd");
    assert_int_equal(programs_choose(m.programs, m.nprograms, "zstd", &k, &e), -1);
    assert_int_equal(e.code, REP_ERR_USAGE);
    assert_string_equal(e.msg, "--program 'zstd' names 2 programs: '/a/zstd', '/b/zstd'; give "
                               "its whole path");
    assert_int_equal(k, 99);
    model_release(&m);
}

/* The model keeps the program picked and the runs that name none; the Summary says which
   were left out and how to report them. */
static void pick_keeps_one_program_and_says_what_was_left(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_pick(&m, PICK_NAME, "lua");
    read_run(&m, "/a/zstd", "h", "tsc", 1000);
    read_run(&m, "/b/lua", "h", "tsc", 1000);
    read_run(&m, NULL, "h", "tsc", 1000);
    assert_int_equal(m.nruns, 2);
    assert_string_equal(m.runs[0].program, "/b/lua");
    assert_null(m.runs[1].program);
    assert_int_equal(m.nwarnings, 0); /* a run left out is no problem of its file */
    char *s = programs_summary(&m);
    assert_string_equal(s, "2 programs in the input; reported: /b/lua (1 run); left out: /a/zstd "
                           "(1 run) (--program NAME reports another, --all-programs merges "
                           "them); with 1 run that names no program (seed form)");
    free(s);
    model_release(&m);

    /* PICK_FIRST: the program of the first run with one. */
    model_init(&m);
    model_pick(&m, PICK_FIRST, NULL);
    read_run(&m, NULL, "h", "tsc", 1000);
    read_run(&m, "/a/zstd", "h", "tsc", 1000);
    read_run(&m, "/b/lua", "h", "tsc", 1000);
    read_run(&m, "/a/zstd", "h", "tsc", 1000);
    assert_int_equal(m.nruns, 3);
    s = programs_summary(&m);
    assert_string_equal(s, "2 programs in the input; reported: /a/zstd (2 runs); left out: /b/lua "
                           "(1 run) (--program NAME reports another, --all-programs merges "
                           "them); with 1 run that names no program (seed form)");
    free(s);
    model_release(&m);

    /* PICK_ALL: merged, and said so. */
    model_init(&m);
    read_run(&m, "/a/zstd", "h", "tsc", 1000);
    read_run(&m, "/b/lua", "h", "tsc", 1000);
    s = programs_summary(&m);
    assert_string_equal(s, "2 programs merged (--all-programs): /a/zstd (1 run), /b/lua (1 run)");
    free(s);
    model_release(&m);
}

/* Runs alike have nothing to say; other hosts, clocks, and tick rates of one clock more than
   1 % apart are named with their runs. */
static void mixed_runs_name_hosts_clocks_and_rates(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "/a/app", "h1", "tsc", 2000000000);
    read_run(&m, "/a/app", "h1", "tsc", 2019000000); /* 0.95 % apart: the same machine */
    char *s = programs_mixed(&m);
    assert_null(s);
    read_run(&m, "/a/app", "h2", "monotonic", 1000000000);
    read_run(&m, "/a/app", "h1", "tsc", 2040000000);
    s = programs_mixed(&m);
    assert_string_equal(s, "runs from different hosts: h1 (3 runs), h2 (1 run); different "
                           "clocks: tsc (3 runs), monotonic (1 run); tick rates of the tsc clock "
                           "differ by 2.0 % (2000000000 to 2040000000 Hz)");
    free(s);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_is_the_program_with_most_runs),
        cmocka_unit_test(default_is_the_program_whose_runs_took_longest),
        cmocka_unit_test(program_is_found_by_path_or_name),
        cmocka_unit_test(unknown_or_shared_names_are_errors),
        cmocka_unit_test(pick_keeps_one_program_and_says_what_was_left),
        cmocka_unit_test(mixed_runs_name_hosts_clocks_and_rates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
