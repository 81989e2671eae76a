/*
 * test_gnuplot.c - unit tests of gnuplot.c: each template renders PNG and SVG, hostile region
 * names execute nothing, and gnuplot failures, time-outs and absence are reported.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "out/gnuplot.h"
#include "files.h"
#include "base/util.h"

/* Each test's private folders: data files, chart output, and templates of its own. */
struct fixture {
    char work[64], out[64], tpl[64];
    char templates[4096]; /* the project's templates/ */
    char base[160];       /* out/chart */
    char marker[20][64];  /* files a hostile label would create if it ran */
};

/* The project's templates folder: from $PROF_TEST_TEMPLATES, else beside tests/unit/. */
static void find_templates(char *dir, size_t size)
{
    const char *env = getenv("PROF_TEST_TEMPLATES");
    if (env) {
        snprintf(dir, size, "%s", env);
        return;
    }
    /* __FILE__ is tests/unit/test_charts.c relative to the folder make runs in (or absolute). */
    const char *self = __FILE__;
    const char *tail = strstr(self, "tests/unit/test_charts.c");
    int prefix = tail ? (int)(tail - self) : 0;
    snprintf(dir, size, "%.*stemplates", prefix, self);
}

/* Fresh folders and marker names for one test. */
static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    strcpy(f->work, "/tmp/prof-charts-work-XXXXXX");
    strcpy(f->out, "/tmp/prof-charts-out-XXXXXX");
    strcpy(f->tpl, "/tmp/prof-charts-tpl-XXXXXX");
    if (!mkdtemp(f->work) || !mkdtemp(f->out) || !mkdtemp(f->tpl))
        return -1;
    find_templates(f->templates, sizeof f->templates);
    snprintf(f->base, sizeof f->base, "%s/chart", f->out);
    for (int i = 0; i < 20; i++) {
        snprintf(f->marker[i], sizeof f->marker[i], "/tmp/prof-pwned-%ld-%d", (long)getpid(), i);
        unlink(f->marker[i]);
    }
    *state = f;
    return 0;
}

/* Remove every file in dir, then dir itself (the fixture's folders hold no subfolders). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Remove the test's folders and any marker a failed test left. */
static int teardown(void **state)
{
    struct fixture *f = *state;
    remove_dir(f->work);
    remove_dir(f->out);
    remove_dir(f->tpl);
    for (int i = 0; i < 20; i++)
        unlink(f->marker[i]);
    free(f);
    return 0;
}

/* The environment for the project's templates, with a time limit generous for CI. */
static struct chart_env env_of(const struct fixture *f)
{
    struct chart_env env = {
        .templates_dir = f->templates, .gnuplot = NULL, .work_dir = f->work, .timeout_s = 20};
    return env;
}

/* Write text to dir/name (a template of a test's own), optionally executable. */
static void write_file(const char *dir, const char *name, const char *text, int executable)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
    if (executable)
        assert_int_equal(chmod(path, 0755), 0);
}

/* The whole of a file as a string (caller frees), or NULL when it cannot be read. */
static char *read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        cap = cap ? cap * 2 : 4096;
        buf = realloc(buf, cap + 1);
        n += fread(buf + n, 1, cap - n, fp);
        if (n < cap)
            break;
    }
    fclose(fp);
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

/* Check that base.png is a non-empty PNG and base.svg a non-empty SVG document. */
static void assert_png_and_svg(const char *base)
{
    char path[256];
    size_t len;
    snprintf(path, sizeof path, "%s.png", base);
    char *png = read_all(path, &len);
    assert_non_null(png);
    assert_true(len > 8);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    free(png);
    snprintf(path, sizeof path, "%s.svg", base);
    char *svg = read_all(path, &len);
    assert_non_null(svg);
    assert_true(len > 0);
    assert_true(strncmp(svg, "<?xml", 5) == 0 || strncmp(svg, "<svg", 4) == 0);
    free(svg);
}

/* Processes whose command line mentions text (a test's private folder), from /proc. */
static int processes_mentioning(const char *text)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        size_t len;
        char *cmd = read_all(path, &len);
        if (!cmd)
            continue;
        for (size_t i = 0; i < len; i++)
            if (cmd[i] == 0)
                cmd[i] = ' ';
        n += strstr(cmd, text) != NULL;
        free(cmd);
    }
    closedir(d);
    return n;
}

/* Processes mentioning text once SIGKILL has had up to 3 s to take effect (a killed process
   runs on until the kernel next schedules it, later still on a busy machine). */
static int processes_left(const char *text)
{
    int n = processes_mentioning(text);
    for (int i = 0; i < 300 && n > 0; i++) {
        usleep(10000);
        n = processes_mentioning(text);
    }
    return n;
}

/* Nonzero when path exists. */
static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Render table t with the named template into f->base; returns gnuplot_render's result. */
static int render(const struct fixture *f, const struct chart_env *env, const char *name,
                  const struct chart_table *t, struct rep_error *why)
{
    struct chart_request req = {.template_name = name,
                                .output_base = f->base,
                                .title = "Test chart",
                                .ylabel = "ns per call",
                                .data = t};
    return gnuplot_render(env, &req, why);
}

static const char *const three_labels[] = {"main", "parse_config", "io_read"};

/* callcost: label, mean, low, high. */
static void callcost_renders_png_and_svg(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    static const char *const cols[] = {"mean", "low", "high"};
    static const double v[] = {1.2e8, 1.1e8, 1.3e8, 3000, 2500, 3500, 45, 40, 50};
    struct chart_table t = {3, 3, three_labels, v, cols, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "callcost", &t, &why), 0);
    assert_png_and_svg(f->base);
    /* The data file is gone and no temporary output is left: just chart.png and chart.svg. */
    assert_int_equal(dir_entries(f->work), 0);
    assert_int_equal(dir_entries(f->out), 2);
}

/* compare: label, change %, low, high, verdict; growth, shrinkage, and no interval. */
static void compare_renders_png_and_svg(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    static const char *const cols[] = {"change", "low", "high", "verdict"};
    static const double v[] = {98.5, 92.1, 104.2, 1, -23.4, -30.1, -15, -1, 0.8, NAN, NAN, 0};
    struct chart_table t = {3, 4, three_labels, v, cols, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "compare", &t, &why), 0);
    assert_png_and_svg(f->base);
    /* The changes are written past their bars, with their sign. */
    char path[256];
    snprintf(path, sizeof path, "%s.svg", f->base);
    char *svg = read_all(path, NULL);
    assert_non_null(strstr(svg, "+98.5%"));
    assert_non_null(strstr(svg, "-23.4%"));
    assert_non_null(strstr(svg, "+0.8%"));
    free(svg);
}

/* hitcount: label, calls. */
static void hitcount_renders_png_and_svg(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    static const char *const cols[] = {"calls"};
    static const double v[] = {1, 1234567, 40000};
    struct chart_table t = {3, 1, three_labels, v, cols, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "hitcount", &t, &why), 0);
    assert_png_and_svg(f->base);
}

/* distribution: label, min, p25, median, p75, max (log scale: 20 ns to 0.2 s). */
static void distribution_renders_png_and_svg(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    static const char *const cols[] = {"min", "p25", "median", "p75", "max"};
    static const double v[] = {1e8,  1.1e8, 1.2e8, 1.3e8, 2e8, 1000, 2000, 3000,
                               5000, 90000, 20,    22,    23,  25,   30};
    struct chart_table t = {3, 5, three_labels, v, cols, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "distribution", &t, &why), 0);
    assert_png_and_svg(f->base);
}

/* distribution on a linear scale (max / min < 100). */
static void distribution_renders_narrow_range(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    static const char *const cols[] = {"min", "p25", "median", "p75", "max"};
    static const double v[] = {100, 120, 130, 150, 400, 90, 95, 100, 105, 300, 50, 60, 70, 80, 90};
    struct chart_table t = {3, 5, three_labels, v, cols, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "distribution", &t, &why), 0);
    assert_png_and_svg(f->base);
}

/* trend: one block per region, rows of label, run, mean. */
static void trend_renders_one_line_per_block(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    static const char *const labels[] = {"main", "main", "main", "io_read", "io_read", "io_read"};
    static const char *const cols[] = {"run", "mean"};
    static const double v[] = {1, 1.2e8, 2, 1.25e8, 3, 1.1e8, 1, 50, 2, NAN, 3, 52};
    static const size_t ends[] = {3, 6};
    struct chart_table t = {6, 2, labels, v, cols, ends, 2};
    struct rep_error why;
    assert_int_equal(render(f, &env, "trend", &t, &why), 0);
    assert_png_and_svg(f->base);
    /* Each block's label is its line's title in the key. */
    char path[256];
    snprintf(path, sizeof path, "%s.svg", f->base);
    char *svg = read_all(path, NULL);
    assert_non_null(strstr(svg, ">main<"));
    assert_non_null(strstr(svg, ">io_read<"));
    free(svg);
}

/* The hostile labels: each would create f->marker[i] if gnuplot ran it as a command. */
static void hostile_labels(const struct fixture *f, char out[][160])
{
    snprintf(out[0], 160, "`touch %s`", f->marker[0]);
    snprintf(out[1], 160, "'.system(\"touch %s\").'", f->marker[1]);
    snprintf(out[2], 160, "x\nsystem \"touch %s\"\n", f->marker[2]);
    snprintf(out[3], 160, "@ARG1 @ARG4");
    snprintf(out[4], 160, "\"; !touch %s", f->marker[4]);
    snprintf(out[5], 160, "\"\t1\n\"; system(\"touch %s\") #", f->marker[5]);
    snprintf(out[6], 160, "<touch %s", f->marker[6]);
    snprintf(out[7], 160, "|touch %s", f->marker[7]);
    snprintf(out[8], 160, "a\\\"; system(\"touch %s\"); \\", f->marker[8]);
    snprintf(out[9], 160, "\r\n! touch %s\n", f->marker[9]);
}

/* gnuplot runs system() in this environment: the markers below would appear if it ran ours. */
static void control_gnuplot_can_create_markers(void **state)
{
    struct fixture *f = *state;
    char text[256];
    snprintf(text, sizeof text,
             "system(\"touch %s\")\nset terminal svg\nset output ARG2\nplot 1 notitle\n",
             f->marker[19]);
    write_file(f->tpl, "control.gp", text, 0);
    struct chart_env env = env_of(f);
    env.templates_dir = f->tpl;
    static const char *const labels[] = {"a"};
    static const double v[] = {1};
    struct chart_table t = {1, 1, labels, v, NULL, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "control", &t, &why), 0);
    assert_true(exists(f->marker[19]));
}

/* Every template draws hostile labels (and a hostile title) as text and executes nothing. */
static void hostile_labels_execute_nothing(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    char hostile[10][160];
    hostile_labels(f, hostile);
    /* Ten regions with 1, 3 and 5 columns; for trend, two runs each, one block per region. */
    const char *labels[10], *trend_labels[20];
    double v1[10], v2[20], v3[30], v4[40], v5[50], trend[40], flame[40], band[80];
    size_t ends[10];
    for (int i = 0; i < 10; i++) {
        v2[2 * i] = i + 1;
        v2[2 * i + 1] = (i + 1) / 55.0;
        /* flame: one full-width row per depth, so every label has room */
        flame[4 * i] = 0;
        flame[4 * i + 1] = 1;
        flame[4 * i + 2] = i;
        flame[4 * i + 3] = 0xe08040;
        for (int r = 0; r < 2; r++) { /* trendband: run, median, p10, p90 */
            band[8 * i + 4 * r] = 20 * r + 10;
            band[8 * i + 4 * r + 1] = i + 10;
            band[8 * i + 4 * r + 2] = i + 9;
            band[8 * i + 4 * r + 3] = i + 12;
        }
        labels[i] = trend_labels[2 * i] = trend_labels[2 * i + 1] = hostile[i];
        v1[i] = i + 1;
        for (int c = 0; c < 3; c++)
            v3[3 * i + c] = 10 * (i + 1) + c;
        for (int c = 0; c < 5; c++)
            v5[5 * i + c] = 10 * (i + 1) + c;
        for (int c = 0; c < 4; c++)
            v4[4 * i + c] = c == 3 ? i % 3 - 1 : 10 * (i - 5) + c;
        trend[4 * i] = 1;
        trend[4 * i + 1] = i + 10;
        trend[4 * i + 2] = 2;
        trend[4 * i + 3] = i + 12;
        ends[i] = 2 * (size_t)i + 2;
    }
    char title[256];
    snprintf(title, sizeof title, "`touch %s` @ARG1 '.system(\"touch %s\").'", f->marker[10],
             f->marker[11]);
    const struct chart_table tables[] = {
        {10, 3, labels, v3, NULL, NULL, 0},          {10, 1, labels, v1, NULL, NULL, 0},
        {10, 5, labels, v5, NULL, NULL, 0},          {10, 4, labels, v4, NULL, NULL, 0},
        {10, 2, labels, v2, NULL, NULL, 0},          {10, 4, labels, flame, NULL, NULL, 0},
        {20, 4, trend_labels, band, NULL, ends, 10}, {20, 2, trend_labels, trend, NULL, ends, 10}};
    static const char *const names[] = {"callcost", "hitcount", "distribution", "compare",
                                        "selftime", "flame",    "trendband",    "trend"};
    for (int n = 0; n < 8; n++) {
        struct chart_request req = {names[n], f->base, title, title, &tables[n]};
        struct rep_error why;
        if (gnuplot_render(&env, &req, &why) != 0)
            fail_msg("%s: %s", names[n], why.msg);
        assert_png_and_svg(f->base);
    }
    for (int i = 0; i < 12; i++) {
        if (exists(f->marker[i]))
            fail_msg("hostile text ran a command: %s exists", f->marker[i]);
    }
    /* The labels were drawn as text: the last SVG (trend's key) shows them. */
    char path[256];
    snprintf(path, sizeof path, "%s.svg", f->base);
    char *svg = read_all(path, NULL);
    assert_non_null(strstr(svg, "`touch /tmp/prof-pwned-"));
    assert_non_null(strstr(svg, "@ARG1 @ARG4"));
    free(svg);
}

/* A template that prints each label as gnuplot read it, between brackets, one per line. */
static const char echo_template[] =
    "set datafile separator \"\\t\"\n"
    "s = \"\"\n"
    "stats ARG1 using (s = s . \"[\" . strcol(1) . \"]\\n\", 0) nooutput\n"
    "set print ARG2\n"
    "print s\n"
    "unset print\n";

/* Render labels with the echo template; returns what gnuplot read (caller frees). */
static char *echo_labels(const struct fixture *f, const char *const *labels, size_t n)
{
    write_file(f->tpl, "echo.gp", echo_template, 0);
    struct chart_env env = env_of(f);
    env.templates_dir = f->tpl;
    double *v = calloc(n, sizeof *v);
    struct chart_table t = {n, 1, labels, v, NULL, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "echo", &t, &why), 0);
    free(v);
    char path[256];
    snprintf(path, sizeof path, "%s.png", f->base);
    return read_all(path, NULL);
}

/* Tabs, line breaks, quotes and invalid UTF-8 cannot split or break out of a label's field. */
static void labels_reach_gnuplot_as_one_field_each(void **state)
{
    struct fixture *f = *state;
    static const char *const labels[] = {"a\tb\nc\rd",
                                         "say \"hi\"",
                                         "back\\slash\\",
                                         "#not a comment",
                                         "  spaced  ",
                                         "",
                                         "@ARG1",
                                         "\xff bad",
                                         "x^2_{i} & @y",
                                         "\x01\x7f"
                                         "ctl",
                                         "\xef\xbf\xbe",
                                         "\\\"\\t"};
    char *got = echo_labels(f, labels, sizeof labels / sizeof *labels);
    assert_non_null(got);
    /* Expected by the rules of docs/TEMPLATES.md, worked out by hand. */
    /* Controls are written as C escapes: \t, \n, \r, \x01, \x7f. */
    const char *expected = "[a\\tb\\nc\\rd]\n"
                           "[say 'hi']\n"
                           "[back\\slash\\]\n"
                           "[#not a comment]\n"
                           "[  spaced  ]\n"
                           "[]\n"
                           "[@ARG1]\n"
                           "[\xef\xbf\xbd bad]\n"
                           "[x^2_{i} & @y]\n"
                           "[\\x01\\x7fctl]\n"
                           "[\xef\xbf\xbd]\n"
                           "[\\'\\t]\n"
                           "\n"; /* print's own line end */
    assert_string_equal(got, expected);
    free(got);
}

/* Labels longer than 48 characters keep their tail after an ellipsis (a short name's function
   and arguments), whole characters; a C++ name drops leading scopes first. */
static void long_labels_are_cut(void **state)
{
    struct fixture *f = *state;
    char ascii[101], accents[121];
    memset(ascii, 'a', 30);
    memset(ascii + 30, 'b', 30);
    memset(ascii + 60, 'c', 40);
    ascii[100] = 0;
    for (int i = 0; i < 60; i++)
        memcpy(accents + 2 * i, "\xc3\xa9", 2); /* é */
    accents[120] = 0;
    const char *const labels[] = {ascii, accents};
    char *got = echo_labels(f, labels, 2);
    assert_non_null(got);
    /* The ellipsis and the last 47 characters: 47 bytes of the ASCII label, 94 of the
       accented one. */
    char expected[512];
    snprintf(expected, sizeof expected, "[\xe2\x80\xa6%s]\n[\xe2\x80\xa6%s]\n\n", ascii + 53,
             accents + 26);
    assert_string_equal(got, expected);
    free(got);
}

/* NaN values are missing data: partly and wholly missing tables render with every template. */
static void nan_values_are_accepted(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    static const char *const names[] = {"callcost", "hitcount", "distribution", "trend",
                                        "compare",  "selftime", "trendband"};
    static const size_t ncols[] = {3, 1, 5, 2, 4, 2, 4};
    for (int n = 0; n < 7; n++) {
        for (int all = 0; all < 2; all++) {
            double v[15];
            for (size_t i = 0; i < 3 * ncols[n]; i++)
                v[i] = all || i % 2 ? NAN : 100.0 + (double)i;
            if (n == 3 || n == 6) /* trend, trendband: the run numbers are known */
                for (int r = 0; r < 3; r++)
                    v[ncols[n] * (size_t)r] = r + 1;
            struct chart_table t = {3, ncols[n], three_labels, v, NULL, NULL, 0};
            struct rep_error why;
            if (render(f, &env, names[n], &t, &why) != 0)
                fail_msg("%s (%s NaN): %s", names[n], all ? "all" : "some", why.msg);
            assert_png_and_svg(f->base);
        }
    }
}

/* A fake gnuplot that leaves a marker when run, to prove a refusal ran nothing. */
static void install_fake_gnuplot(const struct fixture *f, struct chart_env *env, char *path)
{
    char text[256];
    snprintf(text, sizeof text, "#!/bin/sh\ntouch %s\n", f->marker[18]);
    write_file(f->tpl, "fake-gnuplot", text, 1);
    sprintf(path, "%s/fake-gnuplot", f->tpl);
    env->gnuplot = path;
}

/* Output paths gnuplot would open as a pipe, or with a line break, are refused unrun. */
static void pipe_output_paths_are_refused(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    char fake[128];
    install_fake_gnuplot(f, &env, fake);
    static const char *const cols[] = {"calls"};
    static const double v[] = {1, 2, 3};
    struct chart_table t = {3, 1, three_labels, v, cols, NULL, 0};
    static const char *const bad[] = {"|cat > /tmp/x", "<x", " |x", "/tmp/a\nb", ""};
    for (int i = 0; i < 5; i++) {
        struct chart_request req = {"hitcount", bad[i], "t", "y", &t};
        struct rep_error why;
        assert_int_equal(gnuplot_render(&env, &req, &why), -1);
        assert_non_null(strstr(why.msg, "refused"));
    }
    assert_false(exists(f->marker[18]));
    /* Control: with a good path the fake gnuplot does run (and fails: it draws nothing). */
    struct rep_error why;
    assert_int_equal(render(f, &env, "hitcount", &t, &why), -1);
    assert_true(exists(f->marker[18]));
    assert_non_null(strstr(why.msg, "does not work like gnuplot"));
}

/* A template that does not exist fails with its path in the message. */
static void missing_template_fails_with_message(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    static const double v[] = {1, 2, 3};
    struct chart_table t = {3, 1, three_labels, v, NULL, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "nosuch", &t, &why), -1);
    assert_non_null(strstr(why.msg, "nosuch.gp"));
    assert_int_equal(dir_entries(f->out), 0);
}

/* Template names are plain names: no path separators, nothing to climb out of the folder. */
static void template_names_with_paths_are_refused(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    static const double v[] = {1, 2, 3};
    struct chart_table t = {3, 1, three_labels, v, NULL, NULL, 0};
    static const char *const bad[] = {"../templates/hitcount", "/etc/passwd", "", "a b"};
    for (int i = 0; i < 4; i++) {
        struct rep_error why;
        assert_int_equal(render(f, &env, bad[i], &t, &why), -1);
        assert_non_null(strstr(why.msg, "template name"));
    }
}

/* A template that never ends is killed at the time limit. */
static void endless_template_is_killed_at_time_limit(void **state)
{
    struct fixture *f = *state;
    write_file(f->tpl, "loop.gp", "while (1) { }\n", 0);
    struct chart_env env = env_of(f);
    env.templates_dir = f->tpl;
    env.timeout_s = 1;
    static const double v[] = {1, 2, 3};
    struct chart_table t = {3, 1, three_labels, v, NULL, NULL, 0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct rep_error why;
    assert_int_equal(render(f, &env, "loop", &t, &why), -1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(s >= 0.9 && s < 5);
    assert_non_null(strstr(why.msg, "time limit"));
    assert_int_equal(dir_entries(f->out), 0);
    assert_int_equal(dir_entries(f->work), 0);
    /* Killed, not left running: no process is still reading the test's template. */
    assert_int_equal(processes_left(f->tpl), 0);
}

/* What a template starts in the background is killed with it and does not hold up the chart. */
static void background_processes_are_killed(void **state)
{
    struct fixture *f = *state;
    char text[512];
    /* The sleep keeps gnuplot's output pipe open; its command line names the test's folder. */
    snprintf(text, sizeof text,
             "system(\"sh -c 'sleep 30' %s &\")\n"
             "set terminal svg\nset output ARG2\nplot 1 notitle\n",
             f->tpl);
    write_file(f->tpl, "background.gp", text, 0);
    struct chart_env env = env_of(f);
    env.templates_dir = f->tpl;
    static const double v[] = {1, 2, 3};
    struct chart_table t = {3, 1, three_labels, v, NULL, NULL, 0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct rep_error why;
    assert_int_equal(render(f, &env, "background", &t, &why), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true(t1.tv_sec - t0.tv_sec < 10);
    assert_int_equal(processes_left(f->tpl), 0);
}

/* A template that fails for SVG after drawing the PNG leaves neither picture behind. */
static void svg_failure_leaves_no_png(void **state)
{
    struct fixture *f = *state;
    write_file(f->tpl, "pngonly.gp",
               "if (ARG3 eq \"svg\") { print \"no svg today\"; exit status 3 }\n"
               "set terminal pngcairo\nset output ARG2\nplot 1 notitle\n",
               0);
    struct chart_env env = env_of(f);
    env.templates_dir = f->tpl;
    static const double v[] = {1, 2, 3};
    struct chart_table t = {3, 1, three_labels, v, NULL, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "pngonly", &t, &why), -1);
    assert_non_null(strstr(why.msg, "no svg today"));
    assert_int_equal(dir_entries(f->out), 0);
}

/* A template gnuplot rejects fails with gnuplot's own message. */
static void failing_template_reports_gnuplot_message(void **state)
{
    struct fixture *f = *state;
    write_file(f->tpl, "broken.gp",
               "set terminal svg\nset output ARG2\nplot undefined_variable_xyz notitle\n", 0);
    struct chart_env env = env_of(f);
    env.templates_dir = f->tpl;
    static const double v[] = {1, 2, 3};
    struct chart_table t = {3, 1, three_labels, v, NULL, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "broken", &t, &why), -1);
    assert_non_null(strstr(why.msg, "undefined variable: undefined_variable_xyz"));
    /* No half-written chart is left behind. */
    assert_int_equal(dir_entries(f->out), 0);
}

/* A template that exits cleanly but draws nothing is a failure, not an empty picture. */
static void template_without_output_fails(void **state)
{
    struct fixture *f = *state;
    write_file(f->tpl, "silent.gp", "print \"nothing to see\"\n", 0);
    struct chart_env env = env_of(f);
    env.templates_dir = f->tpl;
    static const double v[] = {1, 2, 3};
    struct chart_table t = {3, 1, three_labels, v, NULL, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "silent", &t, &why), -1);
    assert_non_null(strstr(why.msg, "no png chart"));
}

/* Without gnuplot, gnuplot_render says it is not found and leaves nothing behind. */
static void missing_gnuplot_is_reported(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    env.gnuplot = "/nonexistent/gnuplot";
    struct rep_error why;
    static const double v[] = {1, 2, 3};
    struct chart_table t = {3, 1, three_labels, v, NULL, NULL, 0};
    assert_int_equal(render(f, &env, "hitcount", &t, &why), -1);
    assert_non_null(strstr(why.msg, "gnuplot not found"));
    assert_int_equal(dir_entries(f->out), 0);
    assert_int_equal(dir_entries(f->work), 0);
}

/* A program that runs but is not gnuplot (it fails before the script's first line) is named
   as such, with what it said; it is run once for both pictures. */
static void program_that_is_not_gnuplot_is_reported(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    char text[256], fake[128];
    snprintf(text, sizeof text, "#!/bin/sh\necho run >> %s\necho 'usage: plotter FILE'\nexit 1\n",
             f->marker[18]);
    write_file(f->tpl, "not-gnuplot", text, 1);
    snprintf(fake, sizeof fake, "%s/not-gnuplot", f->tpl);
    env.gnuplot = fake;
    static const double v[] = {1, 2, 3};
    struct chart_table t = {3, 1, three_labels, v, NULL, NULL, 0};
    struct rep_error why;
    assert_int_equal(render(f, &env, "hitcount", &t, &why), -1);
    assert_non_null(strstr(why.msg, "does not work like gnuplot"));
    assert_non_null(strstr(why.msg, "usage: plotter FILE"));
    FILE *runs = fopen(f->marker[18], "r");
    assert_non_null(runs);
    char line[16];
    int n = 0;
    while (fgets(line, sizeof line, runs))
        n++;
    fclose(runs);
    assert_int_equal(n, 1);
    assert_int_equal(dir_entries(f->out), 0);
    assert_int_equal(dir_entries(f->work), 0);
}

/* Empty tables and block ends that do not partition the rows are refused. */
static void bad_tables_are_refused(void **state)
{
    struct fixture *f = *state;
    struct chart_env env = env_of(f);
    static const double v[] = {1, 2, 3};
    struct rep_error why;
    struct chart_table empty = {0, 1, three_labels, v, NULL, NULL, 0};
    assert_int_equal(render(f, &env, "hitcount", &empty, &why), -1);
    assert_non_null(strstr(why.msg, "no data"));
    /* Inclusive ends (the last is nrows - 1) and repeated ends. */
    static const size_t inclusive[] = {0, 2}, repeated[] = {1, 1, 3};
    struct chart_table t1 = {3, 1, three_labels, v, NULL, inclusive, 2};
    assert_int_equal(render(f, &env, "hitcount", &t1, &why), -1);
    struct chart_table t2 = {3, 1, three_labels, v, NULL, repeated, 3};
    assert_int_equal(render(f, &env, "hitcount", &t2, &why), -1);
    assert_int_equal(dir_entries(f->work), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(callcost_renders_png_and_svg, setup, teardown),
        cmocka_unit_test_setup_teardown(compare_renders_png_and_svg, setup, teardown),
        cmocka_unit_test_setup_teardown(hitcount_renders_png_and_svg, setup, teardown),
        cmocka_unit_test_setup_teardown(distribution_renders_png_and_svg, setup, teardown),
        cmocka_unit_test_setup_teardown(distribution_renders_narrow_range, setup, teardown),
        cmocka_unit_test_setup_teardown(trend_renders_one_line_per_block, setup, teardown),
        cmocka_unit_test_setup_teardown(control_gnuplot_can_create_markers, setup, teardown),
        cmocka_unit_test_setup_teardown(hostile_labels_execute_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(labels_reach_gnuplot_as_one_field_each, setup, teardown),
        cmocka_unit_test_setup_teardown(long_labels_are_cut, setup, teardown),
        cmocka_unit_test_setup_teardown(nan_values_are_accepted, setup, teardown),
        cmocka_unit_test_setup_teardown(pipe_output_paths_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_template_fails_with_message, setup, teardown),
        cmocka_unit_test_setup_teardown(template_names_with_paths_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(endless_template_is_killed_at_time_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(background_processes_are_killed, setup, teardown),
        cmocka_unit_test_setup_teardown(svg_failure_leaves_no_png, setup, teardown),
        cmocka_unit_test_setup_teardown(failing_template_reports_gnuplot_message, setup, teardown),
        cmocka_unit_test_setup_teardown(template_without_output_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_gnuplot_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(program_that_is_not_gnuplot_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_tables_are_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
