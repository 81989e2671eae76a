/*
 * gnuplot.c - the gnuplot engine of the charts: a chart's request checked, its numbers and
 * labels written to a data file, and gnuplot processes run on templates, without a shell and
 * under a time limit, one per CPU for a report's charts.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np */
#include "out/gnuplot.h"
#include "base/atomicfile.h"
#include "base/cpus.h"
#include "base/util.h"
#include "fileutil.h"
#include "model/shortname.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PROF_TEMPLATES_DIR
#define PROF_TEMPLATES_DIR "templates"
#endif

/* Longest label written to a data file, in bytes, ellipsis included. */
#define LABEL_MAX 48
/* Bytes of gnuplot's output kept for messages: its diagnostics are a few lines. */
#define CAPTURE_MAX 16384
/* The pictures of a chart: PNG and SVG. */
#define PICTURES 2
/* Time limit when the caller gives none. */
#define DEFAULT_TIMEOUT_S 30
/* gnuplot processes drawing a report's charts at most (chart_workers). */
#define CHART_WORKERS_MAX 4

extern char **environ;

/* Concatenation of a, b and c in a fresh string. */
static char *concat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = xmalloc(la + lb + lc + 1);
    memcpy(s, a, la);
    memcpy(s + la, b, lb);
    memcpy(s + la + lb, c, lc + 1);
    return s;
}

/*
 * The label as written to the data file: valid UTF-8 on one line, fitted to LABEL_MAX
 * characters by its tail (a short name's function and arguments; shortname_fit), then quoted
 * for gnuplot's data reader. Caller frees.
 */
static char *label_field(const char *label)
{
    /* Tabs and line ends would split the row; other controls are invalid in SVG. */
    char *s = text_visible(label, strlen(label), 1);
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        if (s[i] == '"') /* gnuplot ends a quoted field at any double quote, escaped or not */
            s[i] = '\'';
    if (n > LABEL_MAX) {
        /* The distinguishing tail stays: leading scopes, then leading characters, give way
           (shortname_fit). */
        char *fit = shortname_fit(s, LABEL_MAX);
        free(s);
        s = fit;
        n = strlen(s);
    }
    /* gnuplot reads "" as the rest of the line: an empty label is an empty, unquoted field. */
    if (n == 0)
        return s;
    /* Inside quotes gnuplot reads backslash escapes: double each backslash to keep it. */
    char *q = xmalloc(2 * n + 3);
    size_t o = 0;
    q[o++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\')
            q[o++] = '\\';
        q[o++] = s[i];
    }
    q[o++] = '"';
    q[o] = 0;
    free(s);
    return q;
}

/* Write a column name for the header comment: it must stay on that one comment line. */
static void put_column_name(FILE *f, const char *name)
{
    for (const char *p = name ? name : ""; *p; p++)
        fputc((unsigned char)*p < 0x20 ? ' ' : *p, f);
}

/* Check that the table can be written: rows, and block ends that partition them. */
static int table_check(const struct chart_table *t, struct rep_error *e)
{
    if (!t || t->nrows == 0) {
        rep_fail(e, REP_ERR_CHART, "no data to chart");
        return -1;
    }
    if (t->ncols > 0 && !t->values) {
        rep_fail(e, REP_ERR_CHART, "chart table has columns but no values");
        return -1;
    }
    if (t->block_ends && t->nblocks > 0) {
        for (size_t b = 0; b < t->nblocks; b++) {
            size_t prev = b ? t->block_ends[b - 1] : 0;
            if (t->block_ends[b] <= prev || t->block_ends[b] > t->nrows) {
                rep_fail(e, REP_ERR_CHART, "chart blocks must end at increasing row indexes");
                return -1;
            }
        }
        /* Ends are exclusive: the last block ends at nrows, which catches inclusive ends. */
        if (t->block_ends[t->nblocks - 1] != t->nrows) {
            rep_fail(e, REP_ERR_CHART, "the last chart block must end at row %zu", t->nrows);
            return -1;
        }
    }
    return 0;
}

/* Write the table as gnuplot reads it (docs/TEMPLATES.md) to the open file f. */
static void table_write(FILE *f, const struct chart_table *t)
{
    fputs("# label", f);
    for (size_t c = 0; c < t->ncols; c++) {
        fputc('\t', f);
        put_column_name(f, t->columns ? t->columns[c] : "");
    }
    fputc('\n', f);
    size_t block = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        char *field = label_field(t->labels && t->labels[r] ? t->labels[r] : "");
        fputs(field, f);
        free(field);
        for (size_t c = 0; c < t->ncols; c++) {
            double v = t->values[r * t->ncols + c];
            /* gnuplot reads NaN as a missing value; infinities would wreck autoscaling. */
            if (isfinite(v))
                fprintf(f, "\t%.17g", v);
            else
                fputs("\tNaN", f);
        }
        fputc('\n', f);
        /* Two blank lines end a block: gnuplot's "index" counts blocks this way. */
        if (t->block_ends && block < t->nblocks && r + 1 == t->block_ends[block]) {
            block++;
            if (r + 1 < t->nrows)
                fputs("\n\n", f);
        }
    }
}

/*
 * Create a new file named <name>-<n><ext> in work_dir and open it for writing; returns the
 * stream with *path set (caller frees), or NULL with e set. Names come from ours, never from
 * labels.
 */
static FILE *work_file_create(const char *work_dir, const char *name, const char *ext,
                              char **path_out, struct rep_error *e)
{
    /* Names unique within the process; O_EXCL skips any left from elsewhere. */
    static unsigned counter;
    char *path = NULL;
    int fd = -1;
    for (int tries = 0; tries < 1000 && fd < 0; tries++) {
        free(path);
        char suffix[32];
        snprintf(suffix, sizeof suffix, "-%u%s", ++counter, ext);
        char *dir = concat3(work_dir, "/", name);
        path = concat3(dir, suffix, "");
        free(dir);
        fd = prof_file_create(path, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        rep_fail(e, REP_ERR_CHART, "cannot create '%s': %s", path, strerror(errno));
        free(path);
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        rep_fail(e, REP_ERR_CHART, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
        unlink(path);
        free(path);
        return NULL;
    }
    errno = 0;
    *path_out = path;
    return f;
}

/* Close f, written to path by work_file_create; 0, or -1 with e set and the file removed. */
static int work_file_close(FILE *f, const char *path, struct rep_error *e)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        rep_fail(e, REP_ERR_CHART, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
        unlink(path);
        return -1;
    }
    return 0;
}

/*
 * Write the table to a new file with a fixed name in work_dir; returns its path (caller
 * frees) or NULL with e set. The name comes from the template name, never from labels.
 */
static char *data_file_write(const char *work_dir, const char *template_name,
                             const struct chart_table *t, struct rep_error *e)
{
    char *path;
    FILE *f = work_file_create(work_dir, template_name, ".tsv", &path, e);
    if (!f)
        return NULL;
    table_write(f, t);
    if (work_file_close(f, path, e) != 0) {
        free(path);
        return NULL;
    }
    return path;
}

/* Milliseconds from now until the deadline on the monotonic clock (negative once past). */
static long ms_left(const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(deadline->tv_sec - now.tv_sec) * 1000 +
           (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/*
 * Append what can be read now from fd to buf, keeping the last CAPTURE_MAX bytes (gnuplot's
 * fatal error comes last); returns 1 at end of file.
 */
static int drain(int fd, char *buf, size_t *len)
{
    for (;;) {
        char chunk[4096];
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n > 0) {
            size_t add = (size_t)n;
            if (*len + add > CAPTURE_MAX) {
                size_t drop = *len + add - CAPTURE_MAX;
                memmove(buf, buf + drop, *len - drop);
                *len -= drop;
            }
            memcpy(buf + *len, chunk, add);
            *len += add;
        } else if (n == 0) {
            return 1;
        } else if (errno != EINTR) {
            /* EAGAIN: nothing more for now. Other errors: treat as the end. */
            return errno != EAGAIN && errno != EWOULDBLOCK;
        }
    }
}

/* How a run of gnuplot ended. */
enum proc_result { PROC_DONE, PROC_NOT_STARTED, PROC_TIMED_OUT };

/* One program being run: its process (and group), its output pipe and what it has said. */
struct gnuplot_proc {
    pid_t pid;               /* also its process group id; 0 when not started */
    int fd;                  /* read end of the output pipe, -1 once closed */
    int exited;              /* it has exited (still a zombie, unless SIGCHLD is ignored) */
    int status;              /* wait status, for PROC_DONE */
    int err;                 /* errno, for PROC_NOT_STARTED */
    enum proc_result result; /* set by proc_start on failure, by proc_finish otherwise */
    size_t len;              /* bytes in out */
    char *out;               /* stdout and stderr, NUL-terminated, CAPTURE_MAX + 1 bytes */
};

/*
 * Start argv (argv[0] looked up in PATH) with stdin from /dev/null and stdout and stderr into
 * a pipe, in its own process group; returns 0, or -1 with r->err set and r->result
 * PROC_NOT_STARTED. No shell is involved: posix_spawnp execs the program itself.
 */
static int proc_start(struct gnuplot_proc *r, char *const argv[], char *out)
{
    *r = (struct gnuplot_proc){.pid = 0, .fd = -1, .result = PROC_NOT_STARTED, .out = out};
    out[0] = 0;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        r->err = errno;
        return -1;
    }
    /* Only the read end is non-blocking: gnuplot writes to a normal, blocking pipe. */
    fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) & ~O_NONBLOCK);

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* The caller's open files (the workbook, another gnuplot's pipe...) are none of this
       gnuplot's business. */
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    posix_spawnattr_init(&attr);
    /* Own process group, so a timeout kills whatever the template started too; default
       signal handling and mask, whatever the caller set for itself. */
    sigset_t none, reset;
    sigemptyset(&none);
    sigemptyset(&reset);
    sigaddset(&reset, SIGPIPE);
    sigaddset(&reset, SIGINT);
    sigaddset(&reset, SIGTERM);
    sigaddset(&reset, SIGHUP);
    sigaddset(&reset, SIGXFSZ); /* ignored by profreport itself (atomicfile.c) */
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &reset);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        r->err = rc;
        return -1;
    }
    r->pid = pid;
    r->fd = fds[0];
    return 0;
}

/* Nonzero once r has exited, or was never started: nothing more to wait for. */
static int proc_over(struct gnuplot_proc *r)
{
    if (r->pid <= 0 || r->exited)
        return 1;
    /* WNOWAIT: the process stays a zombie, so its group id cannot be reused before the kill
       in proc_finish. */
    siginfo_t si;
    si.si_pid = 0;
    int w = waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT);
    /* ECHILD: the caller ignores SIGCHLD, so the process was reaped for us and its status is
       lost; the output file check is then all there is. */
    if ((w == 0 && si.si_pid == r->pid) || (w < 0 && errno == ECHILD))
        r->exited = 1;
    return r->exited;
}

/*
 * Collect the rest of r's output, then kill its process group and reap it; r->result says
 * whether it had exited by itself.
 */
static void proc_finish(struct gnuplot_proc *r)
{
    if (r->pid <= 0)
        return;
    if (r->fd >= 0) {
        drain(r->fd, r->out, &r->len);
        close(r->fd);
        r->fd = -1;
    }
    r->out[r->len] = 0;
    r->result = r->exited ? PROC_DONE : PROC_TIMED_OUT;
    /* The whole group: a looping template, or anything gnuplot left behind. */
    kill(-r->pid, SIGKILL);
    while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
        ;
}

/*
 * Capture the output of the n started runs until all have exited or timeout_s seconds have
 * passed, then kill and reap every one of them, each in its process group.
 */
static void proc_wait(struct gnuplot_proc *procs, size_t n, int timeout_s)
{
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_s > 0 ? timeout_s : DEFAULT_TIMEOUT_S;
    int nap = 1;
    struct pollfd *p = xmalloc((n ? n : 1) * sizeof *p);
    size_t *owner = xmalloc((n ? n : 1) * sizeof *owner);
    for (;;) {
        int all_over = 1;
        for (size_t i = 0; i < n; i++)
            all_over &= proc_over(&procs[i]);
        if (all_over)
            break;
        long left = ms_left(&deadline);
        if (left <= 0)
            break;
        nfds_t np = 0;
        for (size_t i = 0; i < n && np < n; i++) {
            if (procs[i].fd >= 0) {
                p[np] = (struct pollfd){.fd = procs[i].fd, .events = POLLIN};
                owner[np++] = i;
            }
        }
        /* Short polls: gnuplot may exit while something it started keeps the pipe open. Once
           the pipes have closed gnuplot is usually exiting: wait 1 ms, then longer. */
        int wait_ms = np > 0 ? 20 : nap;
        if (np == 0 && nap < 20)
            nap *= 2;
        poll(p, np, left < wait_ms ? (int)left : wait_ms);
        for (nfds_t k = 0; k < np; k++) {
            struct gnuplot_proc *r = &procs[owner[k]];
            if (drain(r->fd, r->out, &r->len)) {
                close(r->fd);
                r->fd = -1;
            }
        }
    }
    free(p);
    free(owner);
    for (size_t i = 0; i < n; i++)
        proc_finish(&procs[i]);
}

/* The line of gnuplot's output that says what went wrong, as "message" or "message (warning)". */
static void gnuplot_message(const char *out, char *msg, size_t size)
{
    const char *last = NULL, *warning = NULL;
    size_t last_len = 0, warning_len = 0;
    for (const char *p = out; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        /* Skip blank lines and the caret line under an echoed command. */
        if (n > 0 && strspn(p, " \t^\r") < n) {
            last = p;
            last_len = n;
            if (!warning && memmem(p, n, "warning:", 8)) {
                warning = p;
                warning_len = n;
            }
        }
        p = end ? end + 1 : p + n;
    }
    if (!last)
        snprintf(msg, size, "no message");
    else if (warning && warning != last)
        snprintf(msg, size, "%.*s (after %.*s)", (int)last_len, last, (int)warning_len, warning);
    else
        snprintf(msg, size, "%.*s", (int)last_len, last);
}

/* The gnuplot program to run. */
static const char *gnuplot_program(const struct chart_env *env)
{
    return env && env->gnuplot && env->gnuplot[0] ? env->gnuplot : "gnuplot";
}

/* Nonzero when name is a plain template name: letters, digits, '_' and '-'. */
static int template_name_ok(const char *name)
{
    if (!name || !name[0] || strlen(name) > 64)
        return 0;
    for (const char *p = name; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-'))
            return 0;
    }
    return 1;
}

/*
 * Nonzero when gnuplot would treat path as a file: it runs a command for a data or script
 * name starting with '<' and an output name starting with '|'.
 */
static int path_ok(const char *path)
{
    if (!path || !path[0] || strpbrk(path, "\n\r"))
        return 0;
    /* Leading blanks too, should a gnuplot version skip them before looking. */
    const char *p = path + strspn(path, " \t");
    return *p != '|' && *p != '<';
}

/* The pictures of a chart, in the order they are drawn. */
static const char *const terminals[PICTURES] = {"png", "svg"};

/*
 * Check how the gnuplot run for one terminal ended and that it wrote its temporary file tmp.
 * Returns 0, or -1 with e set.
 */
static int picture_check(const struct chart_env *env, const struct gnuplot_proc *r,
                         const char *terminal, const char *template_path, const char *tmp,
                         struct rep_error *e)
{
    const char *prog = gnuplot_program(env);
    int timeout = env->timeout_s > 0 ? env->timeout_s : DEFAULT_TIMEOUT_S;
    struct stat st;
    if (r->result == PROC_NOT_STARTED && r->err == ENOENT) {
        rep_fail(e, REP_ERR_CHART, "gnuplot not found (install gnuplot-nox): '%s'", prog);
    } else if (r->result == PROC_NOT_STARTED) {
        rep_fail(e, REP_ERR_CHART, "cannot run '%s': %s", prog, strerror(r->err));
    } else if (r->result == PROC_TIMED_OUT) {
        rep_fail(e, REP_ERR_CHART,
                 "gnuplot did not finish '%s' within the time limit of %d s: killed", template_path,
                 timeout);
    } else if (WIFSIGNALED(r->status)) {
        rep_fail(e, REP_ERR_CHART, "gnuplot was killed by signal %d running '%s'",
                 WTERMSIG(r->status), template_path);
    } else if (!WIFEXITED(r->status) || WEXITSTATUS(r->status) != 0) {
        char msg[600];
        gnuplot_message(r->out, msg, sizeof msg);
        rep_fail(e, REP_ERR_CHART, "gnuplot failed on '%s' (exit status %d): %s", template_path,
                 WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1, msg);
    } else if (stat(tmp, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        rep_fail(e, REP_ERR_CHART, "gnuplot wrote no %s chart with '%s'", terminal, template_path);
    } else {
        return 0;
    }
    return -1;
}

/*
 * Check req (paths, template, table) and write its data file into env->work_dir. Returns 0
 * with *p filled (gnuplot_release frees it), or -1 with e set.
 */
int gnuplot_prepare(const struct chart_env *env, const struct chart_request *req,
                    struct gnuplot_chart *p, struct rep_error *e)
{
    memset(p, 0, sizeof *p);
    if (!path_ok(req->output_base)) {
        rep_fail(e, REP_ERR_CHART,
                 "refused chart output path '%s': it must not start with '|' or '<' or "
                 "contain a line break",
                 req->output_base ? req->output_base : "");
        return -1;
    }
    if (!template_name_ok(req->template_name)) {
        rep_fail(e, REP_ERR_CHART, "bad chart template name '%s'",
                 req->template_name ? req->template_name : "");
        return -1;
    }
    const char *dir = env->templates_dir ? env->templates_dir : PROF_TEMPLATES_DIR;
    char *name = concat3("/", req->template_name, ".gp");
    char *template_path = concat3(dir, name, "");
    free(name);
    if (!path_ok(template_path) || !env->work_dir || !path_ok(env->work_dir)) {
        rep_fail(e, REP_ERR_CHART, "refused chart template or work folder path");
        free(template_path);
        return -1;
    }
    if (access(template_path, R_OK) != 0) {
        rep_fail(e, REP_ERR_CHART, "cannot read chart template '%s': %s", template_path,
                 strerror(errno));
        free(template_path);
        return -1;
    }
    if (table_check(req->data, e) != 0) {
        free(template_path);
        return -1;
    }
    char *data_path = data_file_write(env->work_dir, req->template_name, req->data, e);
    if (!data_path) {
        free(template_path);
        return -1;
    }
    p->template_path = template_path;
    p->data_path = data_path;
    p->base = xstrdup(req->output_base);
    /* The title and axis label reach the SVG too (--title may hold anything). */
    const char *title = req->title ? req->title : "", *ylabel = req->ylabel ? req->ylabel : "";
    p->title = text_visible(title, strlen(title), 1);
    p->ylabel = text_visible(ylabel, strlen(ylabel), 1);
    return 0;
}

/* Remove the data file and free what p holds. */
void gnuplot_release(struct gnuplot_chart *p)
{
    if (p->data_path)
        unlink(p->data_path);
    free(p->template_path);
    free(p->data_path);
    free(p->base);
    free(p->title);
    free(p->ylabel);
    memset(p, 0, sizeof *p);
}

/* Write s as a gnuplot single-quoted string: inside one gnuplot expands nothing (no
   backslash escapes, no @macros, no backquotes) and reads '' as one quote. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* Nonzero when picture j is one of worker w's among k: whole charts, dealt out in turn, so a
   chart's PNG and SVG share their gnuplot's warm font cache. */
static int worker_owns(size_t j, size_t w, size_t nw) { return j / PICTURES % nw == w; }

/*
 * Write the script that draws worker w's pictures (of nw workers) from..nr-1 in one gnuplot
 * (picture j is terminal j % PICTURES of chart j / PICTURES; charts whose ret is not 0 are
 * left out). Before each
 * picture it prints "<tag> j", then calls the template with the arguments `gnuplot -c` would
 * give it, closes the picture and resets the session (variables, functions and settings), so
 * each template starts as in a gnuplot of its own; "<tag> done" at the end. Returns the
 * script's path (caller frees), or NULL with e set.
 */
static char *driver_write(const char *work_dir, const char *tag, const struct gnuplot_chart *p,
                          const struct atomicfile *pic, const int *ret, size_t from, size_t nr,
                          size_t w, size_t nw, struct rep_error *e)
{
    char *path;
    FILE *f = work_file_create(work_dir, "charts", ".gp", &path, e);
    if (!f)
        return NULL;
    for (size_t j = from; j < nr; j++) {
        size_t i = j / PICTURES;
        if (ret[i] != 0 || !worker_owns(j, w, nw))
            continue;
        fprintf(f, "print '%s %zu'\ncall ", tag, j);
        put_quoted(f, p[i].template_path);
        /* Labels are in the data file; title and axis label are ARG4 and ARG5 string values
           (text_visible left no line break in them). */
        const char *args[] = {p[i].data_path, pic[j].tmp, terminals[j % PICTURES], p[i].title,
                              p[i].ylabel};
        for (size_t a = 0; a < sizeof args / sizeof *args; a++) {
            fputc(' ', f);
            put_quoted(f, args[a]);
        }
        /* reset session keeps the output, a multiplot, the print destination (where the
           progress lines go) and the encoding: undone by hand. */
        fputs("\nunset multiplot\nunset output\nset print\nreset session\n"
              "set encoding default\n",
              f);
    }
    fprintf(f, "print '%s done'\n", tag);
    if (work_file_close(f, path, e) != 0) {
        free(path);
        return NULL;
    }
    return path;
}

/*
 * The picture the driver script was drawing when its gnuplot ended: the number in the last
 * complete "<tag> j" line of out, or -1 when there is none. *done is set when the script
 * printed "<tag> done"; *after points past the last such line (gnuplot's own words follow).
 */
static long driver_progress(const char *out, const char *tag, int *done, const char **after)
{
    size_t tl = strlen(tag);
    long last = -1;
    *done = 0;
    *after = out;
    for (const char *m = out; (m = strstr(m, tag)) != NULL; m += tl) {
        const char *q = m + tl, *eol = strchr(q, '\n');
        if ((m != out && m[-1] != '\n') || *q != ' ' || !eol)
            continue;
        q++;
        char *end;
        unsigned long j = strtoul(q, &end, 10);
        if (strncmp(q, "done\n", 5) == 0)
            *done = 1;
        else if (end != eol || end == q)
            continue;
        else
            last = (long)j;
        *after = eol + 1;
    }
    return last;
}

/*
 * Say in e why the program run as gnuplot (r) drew nothing at all: it is missing, cannot be
 * run, or is not gnuplot (it never got to the script's first line).
 */
static void gnuplot_unusable(const struct chart_env *env, const struct gnuplot_proc *r,
                             struct rep_error *e)
{
    const char *prog = gnuplot_program(env);
    char msg[600];
    if (r->result == PROC_NOT_STARTED && r->err == ENOENT) {
        rep_fail(e, REP_ERR_CHART, "gnuplot not found (install gnuplot-nox): '%s'", prog);
    } else if (r->result == PROC_NOT_STARTED) {
        rep_fail(e, REP_ERR_CHART, "cannot run '%s': %s", prog, strerror(r->err));
    } else if (r->result == PROC_TIMED_OUT) {
        rep_fail(e, REP_ERR_CHART, "'%s' did not start within the time limit of %d s: killed", prog,
                 env->timeout_s > 0 ? env->timeout_s : DEFAULT_TIMEOUT_S);
    } else {
        gnuplot_message(r->out, msg, sizeof msg);
        rep_fail(e, REP_ERR_CHART, "'%s' does not work like gnuplot (it ran no chart script): %s",
                 prog, msg);
    }
}

/* How many gnuplot processes draw a report's n charts: one per CPU profreport may use
   (PROFREPORT_THREADS, else the CPUs it may run on), at most CHART_WORKERS_MAX, at most n. */
static size_t chart_workers(size_t n)
{
    size_t nw = (size_t)rep_threads();
    if (nw > CHART_WORKERS_MAX)
        nw = CHART_WORKERS_MAX;
    if (nw > n)
        nw = n;
    return nw ? nw : 1;
}

/* Fail every picture from `from` on that worker w of nw owns with why. */
static void fail_rest(int *ret, struct rep_error *e, size_t from, size_t nr, size_t w, size_t nw,
                      const struct rep_error *why)
{
    for (size_t j = from; j < nr; j++)
        if (ret[j / PICTURES] == 0 && worker_owns(j, w, nw)) {
            ret[j / PICTURES] = -1;
            e[j / PICTURES] = *why;
        }
}

/*
 * After worker w's gnuplot r ended, check the pictures it went through from `from` on and
 * return where its next gnuplot starts (nr when all are done). Returns SIZE_MAX when not one
 * line of its script ran: gnuplot is missing or is not gnuplot, said in *why.
 */
static size_t worker_done(const struct chart_env *env, const struct gnuplot_chart *p,
                          const struct atomicfile *pic, int *ret, struct rep_error *e,
                          const char *tag, const struct gnuplot_proc *r, size_t from, size_t nr,
                          size_t w, size_t nw, struct rep_error *why)
{
    int done = 0;
    const char *after = r->out;
    long cur = r->result == PROC_NOT_STARTED ? -1 : driver_progress(r->out, tag, &done, &after);
    if (cur < 0 && !done && (r->result == PROC_NOT_STARTED || r->len < CAPTURE_MAX)) {
        gnuplot_unusable(env, r, why);
        return SIZE_MAX;
    }
    /* A template that said more than was kept hides the progress lines: blame the first
       picture, whose gnuplot is then run again for the rest. */
    if (!done && (cur < (long)from || cur >= (long)nr || !worker_owns((size_t)cur, w, nw)))
        cur = (long)from;
    /* A picture drawn by a gnuplot that went on to fail later is as good as any. */
    struct gnuplot_proc drawn = {.result = PROC_DONE, .status = 0, .out = (char *)""};
    size_t end = done ? nr : (size_t)cur;
    for (size_t j = from; j < end; j++)
        if (ret[j / PICTURES] == 0 && worker_owns(j, w, nw))
            ret[j / PICTURES] =
                picture_check(env, &drawn, terminals[j % PICTURES], p[j / PICTURES].template_path,
                              pic[j].tmp, &e[j / PICTURES]);
    if (done)
        return nr;
    /* The picture being drawn when gnuplot ended: the message is what gnuplot said after its
       progress line. */
    size_t i = (size_t)cur / PICTURES;
    struct gnuplot_proc last = *r;
    last.out = (char *)after;
    if (ret[i] == 0)
        ret[i] = picture_check(env, &last, terminals[cur % PICTURES], p[i].template_path,
                               pic[cur].tmp, &e[i]);
    return (size_t)cur + 1;
}

/*
 * Draw n prepared charts, both pictures of each, in a few gnuplot processes (chart_workers:
 * one per CPU), each drawing its share of the charts one after the other: gnuplot's start-up
 * (loading fonts and terminals) costs more than most charts, and is paid once per process.
 * Each picture is written to a temporary name beside its chart's base; only when both pictures
 * of a chart succeed are they renamed to base.png and base.svg. When a gnuplot fails, times
 * out or exits partway, the picture it was drawing fails with that error and a new gnuplot
 * draws the rest of its share. ret[i] is 0, or -1 with e[i] set. Returns nonzero when gnuplot
 * could not be used at all (missing, or not gnuplot): every chart then failed with that error.
 */
int gnuplot_draw(const struct chart_env *env, const struct gnuplot_chart *p, size_t n, int *ret,
                 struct rep_error *e)
{
    size_t nr = n * PICTURES;
    struct atomicfile *pic = xcalloc(nr ? nr : 1, sizeof *pic);
    char **final = xcalloc(nr ? nr : 1, sizeof *final);
    int *opened = xcalloc(nr ? nr : 1, sizeof *opened);
    for (size_t i = 0; i < n; i++) {
        ret[i] = 0;
        for (size_t k = 0; k < PICTURES; k++) {
            size_t j = i * PICTURES + k;
            final[j] = concat3(p[i].base, ".", terminals[k]);
            /* gnuplot writes to a file name: it reopens the unique temporary made here. */
            if (ret[i] == 0 && atomicfile_open(&pic[j], final[j], &e[i]) == 0) {
                close(pic[j].fd);
                pic[j].fd = -1;
                opened[j] = 1;
            } else {
                ret[i] = -1;
            }
        }
    }
    /* The progress lines carry a tag no template prints by chance. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    char tag[64];
    snprintf(tag, sizeof tag, "profreport-chart-%lx-%lx", (unsigned long)getpid(),
             (unsigned long)ts.tv_nsec);
    size_t nw = chart_workers(n);
    struct gnuplot_proc procs[CHART_WORKERS_MAX];
    size_t from[CHART_WORKERS_MAX];
    char *out[CHART_WORKERS_MAX], *script[CHART_WORKERS_MAX];
    for (size_t w = 0; w < nw; w++) {
        from[w] = 0;
        out[w] = xmalloc(CAPTURE_MAX + 1);
    }
    struct rep_error why_unusable;
    int unusable = 0;
    /* Rounds: every worker with pictures left starts a gnuplot, then all are waited for. */
    while (!unusable) {
        size_t started = 0;
        for (size_t w = 0; w < nw; w++) {
            procs[w] = (struct gnuplot_proc){
                .pid = 0, .fd = -1, .result = PROC_NOT_STARTED, .out = out[w]};
            out[w][0] = 0;
            script[w] = NULL;
            while (from[w] < nr && (ret[from[w] / PICTURES] != 0 || !worker_owns(from[w], w, nw)))
                from[w]++;
            if (from[w] == nr)
                continue;
            struct rep_error why;
            script[w] = driver_write(env->work_dir, tag, p, pic, ret, from[w], nr, w, nw, &why);
            if (!script[w]) {
                fail_rest(ret, e, from[w], nr, w, nw, &why);
                from[w] = nr;
                continue;
            }
            char *argv[] = {(char *)gnuplot_program(env), (char *)"-d", script[w], NULL};
            /* On failure proc_start leaves procs[w] not started, with its errno. gnuplot reads
               the script as it goes: it is removed once the round is over. */
            proc_start(&procs[w], argv, out[w]);
            started++;
        }
        if (started == 0)
            break;
        proc_wait(procs, nw, env->timeout_s);
        for (size_t w = 0; w < nw; w++) {
            if (!script[w])
                continue;
            unlink(script[w]);
            free(script[w]);
            size_t next =
                worker_done(env, p, pic, ret, e, tag, &procs[w], from[w], nr, w, nw, &why_unusable);
            if (next == SIZE_MAX)
                unusable = 1;
            else
                from[w] = next;
        }
    }
    if (unusable) /* no use trying the other charts */
        for (size_t w = 0; w < nw; w++)
            fail_rest(ret, e, from[w], nr, w, nw, &why_unusable);
    for (size_t w = 0; w < nw; w++)
        free(out[w]);

    for (size_t i = 0; i < n; i++) {
        /* Both pictures or neither: a PNG alone would be embedded as if all went well. */
        size_t renamed = 0;
        while (ret[i] == 0 && renamed < PICTURES) {
            if (atomicfile_commit(&pic[i * PICTURES + renamed], &e[i]) != 0)
                ret[i] = -1;
            renamed++;
        }
        for (size_t k = 0; k < PICTURES; k++) {
            size_t j = i * PICTURES + k;
            if (ret[i] != 0 && k + 1 < renamed)
                unlink(final[j]);
            if (opened[j])
                atomicfile_discard(&pic[j]);
            free(final[j]);
        }
    }
    free(pic);
    free(final);
    free(opened);
    return unusable;
}

/*
 * Render one chart as output_base.png and output_base.svg. Returns 0, or -1 with e set
 * (static storage) when the data file cannot be written or gnuplot fails or times out.
 */
int gnuplot_render(const struct chart_env *env, const struct chart_request *req,
                   struct rep_error *e)
{
    struct gnuplot_chart p;
    if (gnuplot_prepare(env, req, &p, e) != 0)
        return -1;
    int ret;
    gnuplot_draw(env, &p, 1, &ret, e);
    gnuplot_release(&p);
    return ret;
}
