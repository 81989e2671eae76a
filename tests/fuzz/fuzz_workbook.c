/*
 * fuzz_workbook.c - libFuzzer target: the input as the files of one report (pieces joined by
 * FUZZ_SEPARATOR: run files, seed files, and .part files of killed runs, a run of consecutive
 * pieces that start with a PRFH chunk being one killed run), read by input_read as the
 * profreport command reads them, then written as a workbook and every export into a private
 * folder made once. gnuplot is not run (the workbook keeps its native charts).
 *
 * Checks: the model's counts agree with each other (every row read is one call or one
 * instance that never stopped, of one region, run and thread); every cell is written without
 * an error, numbers finite and strings valid UTF-8 (through the linker's --wrap of
 * libxlsxwriter's two write calls); the workbook and exports are written.
 */
#define _GNU_SOURCE /* mkdtemp */
#include "fuzz.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The folder every input's outputs go to, replaced input after input. */
static char workdir[64];

/* Remove the folder and what the last input left in it (the exports' CSV folder too). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR)
            remove_dir(path);
        else
            unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static void remove_workdir(void) { remove_dir(workdir); }

/* Make the private folder on first use. */
static void make_workdir(void)
{
    if (workdir[0])
        return;
    util_quiet = 1; /* input_read's warnings are the model's business here */
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, sizeof workdir, "%s/profreport-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    FUZZ_CHECK(strlen(workdir) < sizeof workdir - 1 && mkdtemp(workdir) != NULL);
    atexit(remove_workdir);
}

/* Whether s is valid UTF-8: shortest forms only, no surrogates, nothing above U+10FFFF. */
static int valid_utf8(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s, n = c < 0x80                ? 0
                             : c >= 0xc2 && c < 0xe0 ? 1
                             : c >= 0xe0 && c < 0xf0 ? 2
                             : c >= 0xf0 && c < 0xf5 ? 3
                                                     : 9;
        if (n == 9)
            return 0;
        unsigned cp = n == 0 ? c : c & (0x3f >> n);
        for (unsigned i = 1; i <= n; i++) {
            if ((s[i] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i] & 0x3f);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
            (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return 0;
        s += n + 1;
    }
    return 1;
}

/* The real calls, which --wrap renames. */
lxw_error __real_worksheet_write_number(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                                        double number, lxw_format *format);
lxw_error __real_worksheet_write_string(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                                        const char *string, lxw_format *format);
lxw_error __wrap_worksheet_write_number(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                                        double number, lxw_format *format);
lxw_error __wrap_worksheet_write_string(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                                        const char *string, lxw_format *format);

/* A number cell: never NaN or infinite (they corrupt the file), always accepted. */
lxw_error __wrap_worksheet_write_number(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                                        double number, lxw_format *format)
{
    FUZZ_CHECK(isfinite(number));
    lxw_error e = __real_worksheet_write_number(ws, row, col, number, format);
    FUZZ_CHECK(e == LXW_NO_ERROR);
    return e;
}

/* A text cell: valid UTF-8 within Excel's cell limit, always accepted. */
lxw_error __wrap_worksheet_write_string(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                                        const char *string, lxw_format *format)
{
    FUZZ_CHECK(string != NULL && valid_utf8((const unsigned char *)string));
    lxw_error e = __real_worksheet_write_string(ws, row, col, string, format);
    FUZZ_CHECK(e == LXW_NO_ERROR);
    return e;
}

/* Whether a piece is a part file: it starts with a header chunk. */
static int is_part(const struct fuzz_piece *p)
{
    return p->size >= 4 && !memcmp(p->data, "PRFH", 4);
}

/* The model's totals agree with one another. */
static void check_model(const struct model *m)
{
    uint64_t by_region = 0, by_run = 0, by_thread = 0;
    for (size_t i = 0; i < m->nregions; i++) {
        const struct region *r = &m->regions[i];
        by_region += r->cost.n + r->unterminated;
        FUZZ_CHECK(valid_utf8((const unsigned char *)r->display));
        FUZZ_CHECK(!r->excluded); /* no --include or --exclude here */
    }
    for (size_t k = 0; k < m->nruns; k++)
        by_run += m->runs[k].events;
    for (size_t t = 0; t < m->nthreads; t++) {
        by_thread += m->threads[t].events;
        FUZZ_CHECK(m->threads[t].run < m->nruns && m->threads[t].key < m->nkeys);
    }
    /* Counts wrap alike (summary rows can claim 2^64 - 1 calls). */
    FUZZ_CHECK(by_region == m->events);
    FUZZ_CHECK(by_run == m->events);
    FUZZ_CHECK(by_thread == m->events);
    for (size_t i = 0; i < m->nedges; i++)
        FUZZ_CHECK(m->edges[i].callee < m->nregions &&
                   (m->edges[i].caller == SIZE_MAX || m->edges[i].caller < m->nregions));
    for (size_t i = 0; i < m->nmem; i++)
        FUZZ_CHECK(m->mem[i].run < m->nruns && m->runs[m->mem[i].run].has_memory);
}

/* Read the pieces as the runs of one report and write the report. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_piece pieces[FUZZ_MAX_PIECES];
    size_t n = fuzz_split(data, size, pieces);
    make_workdir();
    char trace[128], folded[128], callgrind[128], csv[128], json[128], book[128];
    snprintf(trace, sizeof trace, "%s/trace.json", workdir);
    snprintf(folded, sizeof folded, "%s/folded.txt", workdir);
    snprintf(callgrind, sizeof callgrind, "%s/callgrind.out", workdir);
    snprintf(csv, sizeof csv, "%s/csv", workdir);
    snprintf(json, sizeof json, "%s/stats.json", workdir);
    snprintf(book, sizeof book, "%s/report.xlsx", workdir);

    struct model m;
    model_init(&m);
    struct export_options eo = {trace, folded, callgrind, csv, json, "profreport fuzz", 0};
    struct rep_error why;
    model_keep_paths(&m); /* the Call paths sheet, as the command does */
    struct exports *x = exports_open(&eo, &m, &why);
    FUZZ_CHECK(x != NULL);

    size_t ninputs = 0;
    for (size_t i = 0; i < n; ninputs++) {
        char *parts[FUZZ_MAX_PIECES];
        static char killed[] = "killed run";
        struct input in = {NULL, NULL, parts, 0, 0};
        if (is_part(&pieces[i])) {
            in.display = killed;
            while (i < n && is_part(&pieces[i])) {
                parts[in.nparts] = (char *)fuzz_part_path(i, pieces[i].data, pieces[i].size);
                in.nparts++;
                i++;
            }
        } else {
            in.path = (char *)fuzz_part_path(i, pieces[i].data, pieces[i].size);
            in.display = in.path;
            i++;
        }
        input_read(&in, &m);
    }
    check_model(&m);

    /* The command writes nothing when no run could be read. */
    if (m.nruns > 0) {
        struct report_info ri = {"fuzz",
                                 "profreport fuzz",
                                 "2026-01-01 00:00:00 UTC",
                                 "auto",
                                 15,
                                 ninputs,
                                 NULL,
                                 NULL,
                                 0,
                                 "no gnuplot charts: fuzzing",
                                 NULL};
        struct rep_error bad;
        unsigned long cut = 0;
        FUZZ_CHECK(workbook_write(book, &m, &ri, &cut, &bad) == 0);
        workbook_warn_cut(&m, cut);
        FUZZ_CHECK(exports_write(x, &m, &why) == 0);
        FUZZ_CHECK(exports_commit(x, &why) == 0);
    }
    exports_free(x);
    model_release(&m);
    return 0;
}
