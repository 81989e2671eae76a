/*
 * reportbench.c - the reporter benchmark: how fast profreport reads a 10-million-row seed-form
 * file and writes its workbook, next to datamash, pandas, mawk and a bare libcsv parse of the
 * same file (bench/README.md).
 */

/*
 *   reportbench --data FILE --rows N --profreport PATH --csvparse PATH --scripts DIR
 *               --work DIR [--python PATH] [--reps R]
 *
 * Every command runs as a child process; its wall time is taken around fork and wait4, and its
 * peak memory is wait4's ru_maxrss: the largest resident set of the child or of any process it
 * waited for (gnuplot under profreport, sort under datamash). Each repetition runs every tool
 * once, in turn, so a slow phase of the machine spreads over all of them. The table gives the
 * median time (and the minimum) and the largest peak over the repetitions.
 *
 * The exit status is 0 whether the targets are met or missed, and 1 only when profreport
 * itself cannot be measured (missing input, profreport fails). A peer that is not installed is
 * named and left out; a peer that fails is reported and left out.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 50
#define MAX_ARGS 24
#define NIDS 200
/* The targets for the default profreport run. */
#define TARGET_VS_DATAMASH 5.0
#define TARGET_VS_MAWK 2.0 /* mawk's time over profreport's */
#define TARGET_MB_S 250.0
#define TARGET_PEAK_MIB 64.0

/* The tools, in the order they run within a repetition and appear in the table. */
enum tool_id {
    T_PROF,
    T_PROF_NOGNUPLOT,
    T_DATAMASH,
    T_PANDAS,
    T_MAWK,
    T_CSV_TRIM,
    T_CSV_NOTRIM,
    T_N
};

/* How a tool's output is checked: its line count and the sum of its count column. */
struct check {
    char sep;    /* field separator of the output */
    int col;     /* 1-based column holding each id's row count */
    int header;  /* lines before the data */
    size_t want; /* data lines expected (one per id; fewer when there are fewer rows) */
};

struct tool {
    const char *key;   /* file names: <work>/reportbench-<key>.out and .err */
    const char *label; /* the table's row */
    char *argv[MAX_ARGS];
    int present;
    char missing[160]; /* why it is not measured */
    struct check check;
    int checked; /* 1: the output was right, -1: it was not (what was found in note) */
    int failed;  /* exited with an error: not run again, left out of the table */
    char note[256];
    unsigned nok;
    double secs[MAX_REPS];
    long rss_kib[MAX_REPS];
};

static struct tool tools[T_N];
static const char *work_dir;
static int verbose;
static unsigned charts_png; /* PNG charts of the first default run */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* <work>/reportbench-<key>.<ext> into out. */
static void work_path(char *out, size_t cap, const char *key, const char *ext)
{
    snprintf(out, cap, "%s/reportbench-%s.%s", work_dir, key, ext);
}

/* Whether a program is in PATH (or is a path that can be run). */
static int in_path(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char cand[4096];
        snprintf(cand, sizeof cand, "%.*s/%s", (int)n, n ? path : ".", prog);
        if (access(cand, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

/*
 * Run argv with stdin from /dev/null, stdout and stderr into the given files (NULL: /dev/null)
 * and LC_ALL=C. Returns the wait status, or -1 when it could not start; *secs and *rss_kib get
 * the wall time and the peak resident set.
 */
static int run(char *const argv[], const char *out, const char *err, double *secs, long *rss_kib)
{
    fflush(stdout);
    fflush(stderr);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || o < 0 || e < 0)
            _exit(126);
        dup2(in, 0);
        dup2(o, 1);
        dup2(e, 2);
        setenv("LC_ALL", "C", 1);
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            return -1;
    *secs = now_s() - t0;
    *rss_kib = ru.ru_maxrss;
    return status;
}

/* Run argv quietly; whether it exited with 0. */
static int succeeds(char *const argv[])
{
    double s;
    long k;
    int st = run(argv, NULL, NULL, &s, &k);
    return st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The first line of a file, without its line end ("" if none). */
static void first_line(const char *path, char *out, size_t cap)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(out, (int)cap, f))
        out[strcspn(out, "\n")] = 0;
    fclose(f);
}

/* Remove a folder of files (the chart folder); no recursion needed. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* Files in dir whose name ends with ext. */
static unsigned count_files(const char *dir, const char *ext)
{
    DIR *d = opendir(dir);
    unsigned n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    size_t el = strlen(ext);
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        n += l > el && strcmp(e->d_name + l - el, ext) == 0;
    }
    closedir(d);
    return n;
}

/*
 * Check a peer's output: one line per id, and the count column adds up to the row count.
 * Returns 1 or -1 and says what was found in note.
 */
static int check_output(struct tool *t, uint64_t rows)
{
    char path[4096], line[1024];
    work_path(path, sizeof path, t->key, "out");
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(t->note, sizeof t->note, "no output");
        return -1;
    }
    size_t lines = 0;
    uint64_t sum = 0;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (n++ < t->check.header)
            continue;
        lines++;
        const char *p = line;
        for (int c = 1; c < t->check.col && p; c++) {
            p = strchr(p, t->check.sep);
            p = p ? p + 1 : NULL;
        }
        if (p)
            sum += strtoull(p, NULL, 10);
    }
    fclose(f);
    size_t want = rows < t->check.want ? (size_t)rows : t->check.want;
    int ok = lines == want && sum == rows;
    snprintf(t->note, sizeof t->note, "%zu ids, %llu rows counted", lines, (unsigned long long)sum);
    if (!ok)
        snprintf(t->note + strlen(t->note), sizeof t->note - strlen(t->note),
                 " (expected %zu ids, %llu rows)", want, (unsigned long long)rows);
    return ok ? 1 : -1;
}

/* The bare parse prints "records N fields N bytes N": the Frequency line plus one per row. */
static int check_csvparse(struct tool *t, uint64_t rows)
{
    char path[4096], line[256];
    work_path(path, sizeof path, t->key, "out");
    first_line(path, line, sizeof line);
    unsigned long long rec = 0, fields = 0;
    int ok = sscanf(line, "records %llu fields %llu", &rec, &fields) == 2 && rec == rows + 1 &&
             fields == 2 * (rows + 1);
    snprintf(t->note, sizeof t->note, "%llu records, %llu fields", rec, fields);
    if (!ok)
        snprintf(t->note + strlen(t->note), sizeof t->note - strlen(t->note),
                 " (expected %llu records)", (unsigned long long)rows + 1);
    return ok ? 1 : -1;
}

/*
 * Check profreport's default run: the workbook's Call cost sheet lists every id and its Calls
 * add up to the rows (read with openpyxl when the Python has it; otherwise one more run without
 * -q, whose summary's first line gives the events and regions), and the charts are there.
 */
static int check_profreport(struct tool *t, const char *python, const char *scripts,
                            const char *data, const char *prof, const char *xlsx,
                            const char *charts, uint64_t rows)
{
    char script[4096], out[4096], line[512];
    unsigned png = count_files(charts, ".png"), svg = count_files(charts, ".svg");
    charts_png = png;
    unsigned long long regions = 0, calls = 0;
    const char *how;
    snprintf(script, sizeof script, "%s/check_workbook.py", scripts);
    char *imp[] = {(char *)python, (char *)"-c", (char *)"import openpyxl", NULL};
    work_path(out, sizeof out, "check", "out");
    int parsed = 0;
    if (python && succeeds(imp)) {
        char *argv[] = {(char *)python, script, (char *)xlsx, NULL};
        double s;
        long k;
        int st = run(argv, out, NULL, &s, &k);
        first_line(out, line, sizeof line);
        parsed = st == 0 && sscanf(line, "regions %llu calls %llu", &regions, &calls) == 2;
        how = "workbook read with openpyxl";
    } else {
        char check_xlsx[4096];
        work_path(check_xlsx, sizeof check_xlsx, "check", "xlsx");
        char *argv[] = {(char *)prof, (char *)data,           (char *)"-o",
                        check_xlsx,   (char *)"--no-gnuplot", NULL};
        double s;
        long k;
        int st = run(argv, out, NULL, &s, &k);
        first_line(out, line, sizeof line);
        unsigned long long nruns = 0, nthreads = 0;
        parsed = st == 0 && sscanf(line, "%llu run, %llu thread, %llu events, %llu regions", &nruns,
                                   &nthreads, &calls, &regions) == 4;
        how = "summary line of a --no-gnuplot run (no openpyxl)";
        unlink(check_xlsx);
    }
    unsigned long long want = rows < NIDS ? rows : NIDS; /* reportgen names every id first */
    int ok = parsed && regions == want && calls == rows;
    snprintf(t->note, sizeof t->note, "%llu regions, %llu calls (%s); charts: %u PNG, %u SVG",
             regions, calls, how, png, svg);
    if (!ok)
        snprintf(t->note + strlen(t->note), sizeof t->note - strlen(t->note),
                 " (expected %llu regions, %llu calls)", want, (unsigned long long)rows);
    if (png == 0)
        snprintf(t->note + strlen(t->note), sizeof t->note - strlen(t->note),
                 " (no gnuplot: this run measured no charts)");
    return ok ? 1 : -1;
}

/* Print the tail of a failed tool's stderr. */
static void show_error(const struct tool *t)
{
    char path[4096], line[512];
    work_path(path, sizeof path, t->key, "err");
    first_line(path, line, sizeof line);
    if (line[0])
        fprintf(stderr, "reportbench: %s: %s\n", t->label, line);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_secs(const struct tool *t)
{
    double v[MAX_REPS];
    memcpy(v, t->secs, t->nok * sizeof *v);
    qsort(v, t->nok, sizeof *v, cmp_double);
    return t->nok % 2 ? v[t->nok / 2] : (v[t->nok / 2 - 1] + v[t->nok / 2]) / 2;
}

static double min_secs(const struct tool *t)
{
    double m = INFINITY;
    for (unsigned i = 0; i < t->nok; i++)
        m = t->secs[i] < m ? t->secs[i] : m;
    return m;
}

static double peak_mib(const struct tool *t)
{
    long m = 0;
    for (unsigned i = 0; i < t->nok; i++)
        m = t->rss_kib[i] > m ? t->rss_kib[i] : m;
    return (double)m / 1024;
}

/* Set a tool's command line: the arguments up to a NULL. */
static void set_argv(struct tool *t, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    size_t n = 0;
    for (; arg && n < MAX_ARGS - 1; arg = va_arg(ap, const char *))
        t->argv[n++] = (char *)arg;
    t->argv[n] = NULL;
    va_end(ap);
}

static int measured(const struct tool *t) { return t->present && t->nok > 0 && !t->failed; }

static void usage(void)
{
    fprintf(stderr, "usage: reportbench --data FILE --rows N --profreport PATH --csvparse PATH\n"
                    "                   --scripts DIR --work DIR [--python PATH] [--reps R]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *data = NULL, *prof = NULL, *csvparse = NULL, *scripts = NULL;
    const char *python = "/usr/bin/python3";
    uint64_t rows = 0;
    unsigned reps = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (strcmp(a, "--data") == 0)
            data = v;
        else if (strcmp(a, "--rows") == 0)
            rows = strtoull(v, NULL, 10);
        else if (strcmp(a, "--profreport") == 0)
            prof = v;
        else if (strcmp(a, "--csvparse") == 0)
            csvparse = v;
        else if (strcmp(a, "--scripts") == 0)
            scripts = v;
        else if (strcmp(a, "--work") == 0)
            work_dir = v;
        else if (strcmp(a, "--python") == 0)
            python = *v ? v : NULL;
        else if (strcmp(a, "--reps") == 0)
            reps = (unsigned)strtoul(v, NULL, 10);
        else
            usage();
        i++;
    }
    if (!data || !prof || !csvparse || !scripts || !work_dir || rows == 0 || reps == 0 ||
        reps > MAX_REPS)
        usage();
    const char *env_verbose = getenv("REPORTBENCH_VERBOSE");
    verbose = env_verbose && *env_verbose && strcmp(env_verbose, "0") != 0;

    struct stat st;
    if (stat(data, &st) != 0) {
        fprintf(stderr, "reportbench: %s: %s\n", data, strerror(errno));
        return 1;
    }
    if (access(prof, X_OK) != 0) {
        fprintf(stderr, "reportbench: %s: %s\n", prof, strerror(errno));
        return 1;
    }

    char xlsx[4096], charts[4096], pandas_py[4096];
    snprintf(xlsx, sizeof xlsx, "%s/reportbench.xlsx", work_dir);
    snprintf(charts, sizeof charts, "%s/reportbench-charts", work_dir);
    snprintf(pandas_py, sizeof pandas_py, "%s/pandas_groupby.py", scripts);
    static const char datamash_sh[] =
        "tail -n +2 \"$1\" | datamash -t, -g 1 -s count 2 sum 2 mean 2 min 2 max 2 sstdev 2 "
        "median 2 perc:99 2";
    static const char mawk_prog[] = "NR>1{s[$1]+=$2;n[$1]++} END{for(k in s) print k,n[k],s[k]}";

    struct tool *t;
    t = &tools[T_PROF];
    *t = (struct tool){.key = "profreport", .label = "profreport", .present = 1};
    set_argv(t, prof, data, "-o", xlsx, "-q", NULL);
    t = &tools[T_PROF_NOGNUPLOT];
    *t = (struct tool){
        .key = "profreport-nognuplot", .label = "profreport --no-gnuplot", .present = 1};
    set_argv(t, prof, data, "-o", xlsx, "-q", "--no-gnuplot", NULL);
    t = &tools[T_DATAMASH];
    *t = (struct tool){.key = "datamash",
                       .label = "datamash -s (8 statistics)",
                       .present = in_path("datamash") && in_path("tail"),
                       .check = {',', 2, 0, NIDS}};
    set_argv(t, "/bin/sh", "-c", datamash_sh, "sh", data, NULL);
    snprintf(t->missing, sizeof t->missing, "datamash (Debian package datamash)");
    t = &tools[T_PANDAS];
    char *imp[] = {(char *)python, (char *)"-c", (char *)"import pandas", NULL};
    *t = (struct tool){.key = "pandas",
                       .label = "pandas (8 statistics)",
                       .present = python && succeeds(imp),
                       .check = {',', 2, 1, NIDS}};
    set_argv(t, python ? python : "python3", pandas_py, data, NULL);
    if (python)
        snprintf(t->missing, sizeof t->missing, "pandas for %s (Debian package python3-pandas)",
                 python);
    else
        snprintf(t->missing, sizeof t->missing, "pandas (no Python given: PYTHON is empty)");
    t = &tools[T_MAWK];
    *t = (struct tool){.key = "mawk",
                       .label = "mawk (count and sum)",
                       .present = in_path("mawk"),
                       .check = {' ', 2, 0, NIDS}};
    set_argv(t, "mawk", "-F,", mawk_prog, data, NULL);
    snprintf(t->missing, sizeof t->missing, "mawk (Debian package mawk)");
    t = &tools[T_CSV_TRIM];
    *t = (struct tool){.key = "csvparse", .label = "libcsv parse only", .present = 1};
    set_argv(t, csvparse, data, NULL);
    t = &tools[T_CSV_NOTRIM];
    *t = (struct tool){
        .key = "csvparse-notrim", .label = "libcsv parse only, no-trim", .present = 1};
    set_argv(t, csvparse, "--no-trim", data, NULL);

    double mb = (double)st.st_size / 1e6;
    printf("Reporter bench: %s, %.1f MB, %llu rows (%.1f bytes/row), %d ids; %u repetition%s\n",
           data, mb, (unsigned long long)rows, (double)st.st_size / (double)rows, NIDS, reps,
           reps == 1 ? "" : "s");

    /* The file in the page cache first, so that every tool reads it from memory. */
    {
        double t0 = now_s();
        int fd = open(data, O_RDONLY);
        static char buf[1 << 20];
        ssize_t r;
        while (fd >= 0 && (r = read(fd, buf, sizeof buf)) > 0)
            ;
        if (fd >= 0)
            close(fd);
        printf("File read once into the page cache: %.2f s\n", now_s() - t0);
    }

    printf("running:");
    double start = now_s();
    for (unsigned rep = 0; rep < reps; rep++) {
        printf(" %u", rep + 1);
        for (int i = 0; i < T_N; i++) {
            t = &tools[i];
            if (!t->present || t->failed)
                continue;
            if (i == T_PROF || i == T_PROF_NOGNUPLOT) {
                unlink(xlsx);
                remove_dir(charts);
            }
            char out[4096], err[4096];
            work_path(out, sizeof out, t->key, "out");
            work_path(err, sizeof err, t->key, "err");
            double secs;
            long kib;
            int status = run(t->argv, out, err, &secs, &kib);
            if (status != 0) {
                printf("\n");
                fprintf(stderr, "reportbench: %s failed (%s %d)\n", t->label,
                        status < 0 ? "could not start, errno" : "wait status", status);
                show_error(t);
                t->failed = 1;
                if (i == T_PROF)
                    return 1;
                continue;
            }
            if (verbose)
                fprintf(stderr, "\n  %-28s %7.3f s %8.1f MiB", t->label, secs, (double)kib / 1024);
            t->secs[t->nok] = secs;
            t->rss_kib[t->nok++] = kib;
            /* Each tool's output is checked once, after its first run. */
            if (rep == 0) {
                if (i == T_PROF)
                    t->checked =
                        check_profreport(t, python, scripts, data, prof, xlsx, charts, rows);
                else if (i == T_PROF_NOGNUPLOT)
                    t->checked = 0; /* the same reading as the default run */
                else if (i == T_CSV_TRIM || i == T_CSV_NOTRIM)
                    t->checked = check_csvparse(t, rows);
                else
                    t->checked = check_output(t, rows);
            }
        }
    }
    if (verbose)
        fprintf(stderr, "\n");
    printf(" (%.0f s)\n\n", now_s() - start);

    printf("Wall time: median (min) over the repetitions; peak: the largest resident set of the\n"
           "tool or a process it waited for, the highest over the repetitions. datamash/x: how\n"
           "many times faster than datamash; mawk/x: how many times faster than mawk.\n\n");
    printf("%-28s %16s %7s %9s %11s %7s\n", "tool", "seconds", "MB/s", "peak MiB", "datamash/x",
           "mawk/x");
    const struct tool *dm = &tools[T_DATAMASH], *mk = &tools[T_MAWK];
    double dm_med = measured(dm) ? median_secs(dm) : NAN,
           mk_med = measured(mk) ? median_secs(mk) : NAN;
    for (int i = 0; i < T_N; i++) {
        t = &tools[i];
        if (!measured(t))
            continue;
        double med = median_secs(t);
        char secs[32], vs_dm[16] = "-", vs_mk[16] = "-";
        snprintf(secs, sizeof secs, "%.3f (%.3f)", med, min_secs(t));
        if (isfinite(dm_med))
            snprintf(vs_dm, sizeof vs_dm, "%.2fx", dm_med / med);
        if (isfinite(mk_med))
            snprintf(vs_mk, sizeof vs_mk, "%.2fx", mk_med / med);
        printf("%-28s %16s %7.0f %9.1f %11s %7s%s\n", t->label, secs, mb / med, peak_mib(t), vs_dm,
               vs_mk, t->checked < 0 ? "  (output WRONG)" : "");
    }

    printf("\nChecks of the outputs (first repetition):\n");
    for (int i = 0; i < T_N; i++) {
        t = &tools[i];
        if (t->failed)
            printf("  %-28s FAILED: not measured (its error is above)\n", t->label);
        else if (t->present && t->checked != 0)
            printf("  %-28s %s: %s\n", t->label, t->checked > 0 ? "ok" : "WRONG", t->note);
    }
    int any_missing = 0;
    for (int i = 0; i < T_N; i++)
        any_missing |= !tools[i].present;
    if (any_missing) {
        printf("\nPeers not found (not measured):\n");
        for (int i = 0; i < T_N; i++)
            if (!tools[i].present)
                printf("  %s\n", tools[i].missing);
        printf("Install them for the full comparison (bench/README.md).\n");
    }

    const struct tool *p = &tools[T_PROF];
    double p_med = median_secs(p), p_peak = peak_mib(p);
    char m1[32] = "-", m2[32] = "-", m3[32], m4[32];
    const char *r1 = "n/a", *r2 = "n/a";
    if (isfinite(dm_med)) {
        snprintf(m1, sizeof m1, "%.2fx", dm_med / p_med);
        r1 = dm_med / p_med >= TARGET_VS_DATAMASH ? "PASS" : "MISS";
    }
    if (isfinite(mk_med)) {
        snprintf(m2, sizeof m2, "%.2fx", mk_med / p_med);
        r2 = mk_med / p_med >= TARGET_VS_MAWK ? "PASS" : "MISS";
    }
    snprintf(m3, sizeof m3, "%.1f MiB", p_peak);
    snprintf(m4, sizeof m4, "%.0f MB/s", mb / p_med);
    printf("\nTargets for profreport's default run (all statistics, the workbook and its gnuplot\n"
           "charts), informational:\n\n");
    printf("  %-44s %10s %10s %6s\n", "target", "goal", "measured", "result");
    printf("  %-44s %10s %10s %6s\n", "at least 5x faster than datamash (datamash/x)", ">= 5x", m1,
           r1);
    printf("  %-44s %10s %10s %6s\n", "at least 2x faster than mawk's sums (mawk/x)", ">= 2x", m2,
           r2);
    printf("  %-44s %10s %10s %6s\n", "throughput, end to end", ">= 250 MB/s", m4,
           mb / p_med >= TARGET_MB_S ? "PASS" : "MISS");
    printf("  %-44s %10s %10s %6s\n", "peak memory", "< 64 MiB", m3,
           p_peak < TARGET_PEAK_MIB ? "PASS" : "MISS");
    if (charts_png == 0)
        printf("\nNo gnuplot charts were drawn (is gnuplot installed?): the default run measured\n"
               "the workbook without them.\n");
    if (p->checked < 0)
        printf("\nprofreport's output check FAILED: %s\n", p->note);
    return 0;
}
