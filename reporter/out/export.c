/*
 * export.c - the report's data for other tools: a Chrome trace (streamed while the runs are
 * read), folded stacks and callgrind (from the calling-context tree of cct.c), and the
 * statistics as CSV files and one JSON file. Formatting is pure and tested on its own; files
 * are written through atomicfile.c: temporaries beside their targets, renamed into place.
 *
 * Untrusted text (region ids, thread names, file contents) is repaired to valid UTF-8 and
 * escaped for each format; CSV text cells that a spreadsheet would take for a formula get a
 * leading single quote.
 */
#define _GNU_SOURCE /* qsort_r */
#include "base/atomicfile.h"
#include "model/cct.h"
#include "model/compare.h"
#include "out/export.h"
#include "model/model.h"
#include "model/tables.h"
#include "base/util.h"

#include <profreport.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One CSV text field, safe to open in a spreadsheet. */
void export_csv_text(struct prof_sbuf *b, const char *s)
{
    /* OWASP's CSV injection advice: a cell a spreadsheet would read as a formula starts with
       one of these; a leading ' makes it text and is not shown. It goes inside the quotes. */
    if (!s[0] || !strchr("=+-@\t\r", s[0])) {
        prof_sbuf_csv(b, s, strlen(s));
        return;
    }
    struct prof_sbuf guarded = {0};
    prof_sbuf_char(&guarded, '\'');
    prof_sbuf_str(&guarded, s);
    prof_sbuf_csv(b, sbuf_text(&guarded), guarded.len);
    prof_sbuf_release(&guarded);
}

/* A JSON string literal of s[0..n). */
void export_json_text(struct prof_sbuf *b, const char *s, size_t n)
{
    char *u = utf8_repair(s, n);
    prof_sbuf_add(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)u; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            prof_sbuf_add(b, e, 2);
        } else if (*p < 0x20) {
            prof_sbuf_addf(b, "\\u%04x", *p);
        } else {
            prof_sbuf_add(b, (const char *)p, 1);
        }
    }
    prof_sbuf_add(b, "\"", 1);
    free(u);
}

/* s[0..n) on one line, as text_visible shows it, and, when semi, ';' as ':'. */
static void plain_name(struct prof_sbuf *b, const char *s, size_t n, int semi)
{
    char *u = text_visible(s, n, 1);
    for (char *p = u; *p; p++)
        if (semi && *p == ';')
            *p = ':';
    prof_sbuf_add(b, u, strlen(u));
    free(u);
}

/* One frame of a folded stack: ';' separates frames there, and a line ends the stack. */
void export_folded_frame(struct prof_sbuf *b, const char *s, size_t n) { plain_name(b, s, n, 1); }

/* A callgrind name: the rest of its line. */
void export_callgrind_name(struct prof_sbuf *b, const char *s, size_t n) { plain_name(b, s, n, 0); }

/* ---- Chrome trace ---- */

/* A size in bytes as --trace-limit takes it: "1 GB", "500 MB", "1234 bytes". */
void export_size_text(char *out, size_t n, uint64_t bytes)
{
    static const struct {
        uint64_t k;
        const char *unit;
    } u[] = {{1000000000000ull, "TB"}, {1000000000ull, "GB"}, {1000000ull, "MB"}, {1000ull, "kB"}};
    for (size_t i = 0; i < sizeof u / sizeof *u; i++)
        if (bytes >= u[i].k && bytes % u[i].k == 0) {
            snprintf(out, n, "%llu %s", (unsigned long long)(bytes / u[i].k), u[i].unit);
            return;
        }
    snprintf(out, n, "%llu bytes", (unsigned long long)bytes);
}

/* Parse a --trace-limit size: digits and an optional k, M, G or T (powers of 1000, an optional
   B after it). 0, or -1 when s is not one. */
int export_size_parse(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    uint64_t k = 1;
    switch (*end) {
    case 'k':
    case 'K':
        k = 1000;
        break;
    case 'M':
        k = 1000000;
        break;
    case 'G':
        k = 1000000000;
        break;
    case 'T':
        k = 1000000000000ull;
        break;
    default:
        break;
    }
    if (k > 1)
        end++;
    if (*end == 'B')
        end++;
    if (*end || (v && k > UINT64_MAX / v))
        return -1;
    *out = v * k;
    return 0;
}

/* One trace event (see export.h). */
void export_trace_event(struct prof_sbuf *b, int first, const char *name_json, size_t pid,
                        unsigned tid, double start_ns, int stopped, double dur_ns, double self_ns,
                        unsigned depth, int nested)
{
    /* A trace holds millions of events: numbers go through the inline writers, not printf
       (prof_sbuf_fixed3 writes what "%.3f" would). */
    if (!first)
        prof_sbuf_add(b, ",\n", 2);
    prof_sbuf_str(b, "{\"name\":");
    prof_sbuf_str(b, name_json);
    prof_sbuf_str(b, stopped ? ",\"cat\":\"region\",\"ph\":\"X\",\"ts\":"
                             : ",\"cat\":\"region\",\"ph\":\"B\",\"ts\":");
    prof_sbuf_fixed3(b, start_ns / 1e3);
    if (stopped) {
        prof_sbuf_str(b, ",\"dur\":");
        prof_sbuf_fixed3(b, dur_ns / 1e3);
    }
    prof_sbuf_str(b, ",\"pid\":");
    prof_sbuf_u64(b, pid);
    prof_sbuf_str(b, ",\"tid\":");
    prof_sbuf_u64(b, tid);
    if (stopped) {
        prof_sbuf_str(b, ",\"args\":{\"self_us\":");
        prof_sbuf_fixed3(b, self_ns / 1e3);
        prof_sbuf_str(b, ",\"depth\":");
    } else {
        prof_sbuf_str(b, ",\"args\":{\"never_stopped\":1,\"depth\":");
    }
    prof_sbuf_u64(b, depth);
    prof_sbuf_str(b, nested ? ",\"nested\":1}}" : "}}");
}

/* A metadata ("M") event naming or ordering a process or a thread. */
static void trace_meta(struct prof_sbuf *b, int first, const char *what, size_t pid, unsigned tid,
                       const char *arg, const char *text, size_t sort)
{
    if (!first)
        prof_sbuf_add(b, ",\n", 2);
    prof_sbuf_addf(b,
                   "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%zu,\"tid\":%u,\"args\":{\"%s\":", what,
                   pid, tid, arg);
    if (text)
        export_json_text(b, text, strlen(text));
    else
        prof_sbuf_addf(b, "%zu", sort);
    prof_sbuf_add(b, "}}", 2);
}

/* ---- folded stacks ---- */

struct folded {
    FILE *f;
    struct prof_sbuf line;
    double deep_ns;  /* self ns of the paths below the prefix at the depth limit being walked */
    uint64_t folded; /* paths deeper than the limit */
};

/* One line: the frames of path[0..len), then EXPORT_FOLDED_DEEPER when deeper, and ns. */
static void folded_line(struct folded *x, const struct cct *t, const uint32_t *path, size_t len,
                        int deeper, double ns)
{
    x->line.len = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t name = t->nodes[path[i]].name;
        if (i)
            prof_sbuf_add(&x->line, ";", 1);
        size_t len_shown;
        const char *s = region_text(t->names[name], t->name_lens[name], &len_shown);
        export_folded_frame(&x->line, s, len_shown);
    }
    if (deeper)
        prof_sbuf_add(&x->line, ";" EXPORT_FOLDED_DEEPER, strlen(";" EXPORT_FOLDED_DEEPER));
    prof_sbuf_addf(&x->line, " %.0f\n", ns);
    fwrite(sbuf_text(&x->line), 1, x->line.len, x->f);
}

/* A path with self time becomes one line; one deeper than the limit adds to its prefix's. */
static void folded_visit(void *ctx, const struct cct *t, const uint32_t *path, size_t len)
{
    struct folded *x = ctx;
    const struct cct_node *n = &t->nodes[path[len - 1]];
    double self = llround(n->self_ns);
    if (len > EXPORT_FOLDED_MAX_DEPTH) {
        x->folded++;
        x->deep_ns += n->self_ns;
        return;
    }
    if (self >= 1)
        folded_line(x, t, path, len, 0, self);
}

/* After the children of a prefix at the depth limit: the line of the paths folded into it. */
static void folded_leave(void *ctx, const struct cct *t, const uint32_t *path, size_t len)
{
    struct folded *x = ctx;
    if (len != EXPORT_FOLDED_MAX_DEPTH)
        return;
    double ns = llround(x->deep_ns);
    x->deep_ns = 0;
    if (ns >= 1)
        folded_line(x, t, path, len, 1, ns);
}

/* Folded stacks, one line per path with at least 1 ns of self time. */
int export_folded_write(FILE *f, const struct cct *t, uint64_t *folded)
{
    struct folded x = {f, {0}, 0, 0};
    cct_walk(t, t->root, folded_visit, folded_leave, &x);
    prof_sbuf_release(&x.line);
    if (folded)
        *folded = x.folded;
    return ferror(f) ? -1 : 0;
}

/* ---- callgrind ---- */

struct callgrind {
    FILE *f;
    double *self, *incl; /* per node: whole ns, so that every sum is exact */
    char *named;         /* per name: its compressed id was defined */
    double total;
    struct prof_sbuf line;
    const struct export_source *src; /* per name, or NULL */
    uint32_t *file_of;               /* per name: its file's compressed id (1: "regions") */
    const char **files;              /* per file id: its name */
    char *file_named;                /* per file id: defined */
    uint32_t file;                   /* the file of the last fl= line, 0 before the first */
};

/* After a node's children: its whole-ns self time and inclusive time. */
static void callgrind_sum(void *ctx, const struct cct *t, const uint32_t *path, size_t len)
{
    struct callgrind *x = ctx;
    uint32_t i = path[len - 1];
    x->self[i] = fmax(0, llround(t->nodes[i].self_ns));
    x->incl[i] = x->self[i];
    for (uint32_t c = t->nodes[i].child; c != CCT_NONE; c = t->nodes[c].sibling)
        x->incl[i] += x->incl[c];
    x->total += x->self[i];
}

/* "(id)" and, the first time, the name after it. */
static void callgrind_ref(struct callgrind *x, const struct cct *t, uint32_t name)
{
    prof_sbuf_addf(&x->line, "(%u)", name + 1);
    if (!x->named[name]) {
        x->named[name] = 1;
        prof_sbuf_add(&x->line, " ", 1);
        size_t n;
        const char *s = region_text(t->names[name], t->name_lens[name], &n);
        export_callgrind_name(&x->line, s, n);
    }
    prof_sbuf_add(&x->line, "\n", 1);
}

/* A file's "(id)" and, the first time, its name: file names have ids of their own. */
static void callgrind_file_ref(struct callgrind *x, uint32_t file)
{
    prof_sbuf_addf(&x->line, "(%u)", file);
    if (!x->file_named[file]) {
        x->file_named[file] = 1;
        prof_sbuf_add(&x->line, " ", 1);
        export_callgrind_name(&x->line, x->files[file], strlen(x->files[file]));
    }
    prof_sbuf_add(&x->line, "\n", 1);
}

/* The source line of a name, 0 when unknown. */
static unsigned long callgrind_line(const struct callgrind *x, uint32_t name)
{
    return x->src && x->src[name].file ? x->src[name].line : 0;
}

/*
 * A child whose calls were not counted (a left-out function's context, FORMAT.md 1.4, or one
 * whose instances never stopped) gets a comment, not a call record. The format has no unknown
 * count, and each count it has says something false: callgrind_annotate adds the cost of a
 * calls=0 record to the caller's own cost, and calls=1 or more claims calls nobody counted. So
 * the child's time is only its own cost, in its fn= block, with its calls below it; the
 * comment says where it went.
 */
static void callgrind_uncounted(struct callgrind *x, const struct cct *t, const struct cct_node *k,
                                double incl)
{
    size_t n;
    const char *s = region_text(t->names[k->name], t->name_lens[k->name], &n);
    prof_sbuf_add(&x->line, "# not a call record: ", 21);
    export_callgrind_name(&x->line, s, n);
    prof_sbuf_addf(&x->line, ", %.0f ns inclusive, %s\n", incl,
                   k->uncounted ? model_left_out_text(2, (int)k->uncounted)
                                : "its instances never stopped: no count");
}

/* A node: its function's self cost, then one call record per child. Each function is in its
   own source file (fl=), a callee in another file is named by cfi=, and costs sit at the
   function's line; a call's cost at the caller's line, where the call site is not known. */
static void callgrind_node(void *ctx, const struct cct *t, const uint32_t *path, size_t len)
{
    struct callgrind *x = ctx;
    uint32_t i = path[len - 1];
    uint32_t name = t->nodes[i].name, file = x->file_of[name];
    unsigned long line = callgrind_line(x, name);
    x->line.len = 0;
    if (file != x->file) {
        prof_sbuf_add(&x->line, "fl=", 3);
        callgrind_file_ref(x, file);
        x->file = file;
    }
    prof_sbuf_add(&x->line, "fn=", 3);
    callgrind_ref(x, t, name);
    prof_sbuf_addf(&x->line, "%lu %.0f\n", line, x->self[i]);
    size_t nkids;
    uint32_t *kids = cct_sorted_children(t, i, &nkids);
    for (size_t j = 0; j < nkids; j++) {
        uint32_t c = kids[j];
        const struct cct_node *k = &t->nodes[c];
        if (k->calls + k->never == 0) {
            callgrind_uncounted(x, t, k, x->incl[c]);
            continue;
        }
        if (x->file_of[k->name] != file) {
            prof_sbuf_add(&x->line, "cfi=", 4);
            callgrind_file_ref(x, x->file_of[k->name]);
        }
        prof_sbuf_add(&x->line, "cfn=", 4);
        callgrind_ref(x, t, k->name);
        prof_sbuf_addf(&x->line, "calls=%llu %lu\n%lu %.0f\n",
                       (unsigned long long)(k->calls + k->never), callgrind_line(x, k->name), line,
                       x->incl[c]);
    }
    free(kids);
    fwrite(sbuf_text(&x->line), 1, x->line.len, x->f);
}

/* Sort order of names by their source file's name (qsort_r; ctx is the source array). */
static int by_file(const void *a, const void *b, void *ctx)
{
    const struct export_source *src = ctx;
    return strcmp(src[*(const uint32_t *)a].file, src[*(const uint32_t *)b].file);
}

/* Give each distinct source file an id from 2 up (1 is "regions", for the rest): the names
   sorted by file, one id per run of equal files. */
static void callgrind_files(struct callgrind *x, const struct cct *t)
{
    size_t nnames = t->nnames ? t->nnames : 1;
    x->file_of = xmalloc(nnames * sizeof *x->file_of);
    x->files = xcalloc(nnames + 2, sizeof *x->files);
    x->file_named = xcalloc(nnames + 2, 1);
    x->files[1] = "regions";
    uint32_t *order = xmalloc(nnames * sizeof *order);
    size_t n = 0;
    for (uint32_t i = 0; i < t->nnames; i++) {
        x->file_of[i] = 1;
        if (x->src && x->src[i].file && *x->src[i].file)
            order[n++] = i;
    }
    qsort_r(order, n, sizeof *order, by_file, (void *)(uintptr_t)x->src);
    uint32_t id = 1;
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || strcmp(x->src[order[k]].file, x->src[order[k - 1]].file) != 0)
            x->files[++id] = x->src[order[k]].file;
        x->file_of[order[k]] = id;
    }
    free(order);
}

/* The tree in callgrind format. */
int export_callgrind_write(FILE *f, const struct cct *t, const char *cmd, size_t nruns,
                           const struct export_source *src)
{
    struct callgrind x = {f, NULL, NULL, NULL, 0, {0}, src, NULL, NULL, NULL, 0};
    x.self = xcalloc(t->nnodes, sizeof *x.self);
    x.incl = xcalloc(t->nnodes, sizeof *x.incl);
    x.named = xcalloc(t->nnames ? t->nnames : 1, 1);
    callgrind_files(&x, t);
    cct_walk(t, t->root, NULL, callgrind_sum, &x);
    fprintf(f, "# callgrind format\nversion: 1\ncreator: profreport %s\n", prof_version());
    struct prof_sbuf b = {0};
    export_callgrind_name(&b, cmd ? cmd : "", cmd ? strlen(cmd) : 0);
    fprintf(f, "cmd: %s\n", sbuf_text(&b));
    prof_sbuf_release(&b);
    fprintf(f, "desc: Runs: %zu\ndesc: Unit: nanoseconds of region time\n", nruns);
    fprintf(f, "positions: line\nevents: ns\nsummary: %.0f\n\n", x.total);
    cct_walk(t, t->root, callgrind_node, NULL, &x);
    fprintf(f, "\ntotals: %.0f\n", x.total);
    free(x.self);
    free(x.incl);
    free(x.named);
    free(x.file_of);
    free(x.files);
    free(x.file_named);
    prof_sbuf_release(&x.line);
    return ferror(f) ? -1 : 0;
}

/* ---- statistics tables (tables.c), in ns ---- */

/* Exports show every time in ns. */
static const struct unit ns_unit = {"ns", 1};

/* A number as the shortest text that reads back as the same double. */
static void put_number(struct prof_sbuf *b, double v)
{
    char s[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, v);
        if (strtod(s, NULL) == v)
            break;
    }
    prof_sbuf_add(b, s, strlen(s));
}

/* One table as CSV. */
int export_csv_write(FILE *f, const struct model *m, enum table_id which)
{
    struct table tb;
    table_open(&tb, m, which);
    struct prof_sbuf b = {0};
    char head[96];
    for (size_t k = 0; k < tb.ncols; k++) {
        if (k)
            prof_sbuf_add(&b, ",", 1);
        export_csv_text(&b, column_header(head, sizeof head, &tb.cols[k], ns_unit, ns_unit));
    }
    prof_sbuf_add(&b, "\n", 1);
    struct cell c[TABLE_MAX_COLS];
    for (size_t i = 0; i < tb.nrows; i++) {
        table_row(&tb, i, c);
        for (size_t k = 0; k < tb.ncols; k++) {
            if (k)
                prof_sbuf_add(&b, ",", 1);
            if (c[k].kind == CELL_TEXT)
                export_csv_text(&b, c[k].s);
            else if (c[k].kind == CELL_NUM)
                put_number(&b, c[k].v);
            else if (c[k].kind == CELL_INT)
                prof_sbuf_addf(&b, "%llu", (unsigned long long)c[k].i);
        }
        prof_sbuf_add(&b, "\n", 1);
        fwrite(sbuf_text(&b), 1, b.len, f);
        b.len = 0;
    }
    if (b.len)
        fwrite(sbuf_text(&b), 1, b.len, f);
    prof_sbuf_release(&b);
    table_close(&tb);
    return ferror(f) ? -1 : 0;
}

/* Write b to f and free it: 0, or -1 when f has an error. */
static int sbuf_write_out(FILE *f, struct prof_sbuf *b)
{
    fwrite(sbuf_text(b), 1, b->len, f);
    prof_sbuf_release(b);
    return ferror(f) ? -1 : 0;
}

/* One cell as a CSV field: text quoted as needed, numbers exact, nothing when empty. */
static void csv_cell(struct prof_sbuf *b, const struct cell *c)
{
    if (c->kind == CELL_TEXT)
        export_csv_text(b, c->s);
    else if (c->kind == CELL_NUM)
        put_number(b, c->v);
    else if (c->kind == CELL_INT)
        prof_sbuf_addf(b, "%llu", (unsigned long long)c->i);
}

/* One cell as a JSON value: null when empty. */
static void json_cell(struct prof_sbuf *b, const struct cell *c)
{
    if (c->kind == CELL_TEXT)
        export_json_text(b, c->s, strlen(c->s));
    else if (c->kind == CELL_NUM)
        put_number(b, c->v);
    else if (c->kind == CELL_INT)
        prof_sbuf_addf(b, "%llu", (unsigned long long)c->i);
    else
        prof_sbuf_str(b, "null");
}

/* The comparison's table as CSV: the Comparison sheet's columns, times in ns. */
int export_compare_csv_write(FILE *f, const struct comparison *c)
{
    struct prof_sbuf b = {0};
    char head[96];
    for (size_t k = 0; k < COMPARE_NCOLS; k++) {
        if (k)
            prof_sbuf_str(&b, ",");
        export_csv_text(&b,
                        column_header(head, sizeof head, &compare_columns[k], ns_unit, ns_unit));
    }
    prof_sbuf_str(&b, "\n");
    struct cell cells[COMPARE_NCOLS];
    for (size_t i = 0; i < c->nrows; i++) {
        table_compare_row(c, i, cells);
        for (size_t k = 0; k < COMPARE_NCOLS; k++) {
            if (k)
                prof_sbuf_str(&b, ",");
            csv_cell(&b, &cells[k]);
        }
        prof_sbuf_str(&b, "\n");
    }
    return sbuf_write_out(f, &b);
}

/* The comparison's summary as CSV: a Key,Value header, then one line per value. */
int export_compare_summary_csv_write(FILE *f, const struct comparison *c)
{
    struct prof_sbuf b = {0};
    struct cell cells[COMPARE_NSUMMARY];
    table_compare_summary(c, cells);
    prof_sbuf_str(&b, "Key,Value\n");
    for (size_t k = 0; k < COMPARE_NSUMMARY; k++) {
        export_csv_text(&b, compare_summary_names[k]);
        prof_sbuf_str(&b, ",");
        csv_cell(&b, &cells[k]);
        prof_sbuf_str(&b, "\n");
    }
    return sbuf_write_out(f, &b);
}

/* The "comparison" member: {"summary": {name: value}, "regions": [{column: value}]}. */
static void json_comparison(struct prof_sbuf *b, const struct comparison *c)
{
    struct cell cells[COMPARE_NSUMMARY > COMPARE_NCOLS ? COMPARE_NSUMMARY : COMPARE_NCOLS];
    table_compare_summary(c, cells);
    prof_sbuf_str(b, ",\n\"comparison\": {\"summary\": {");
    for (size_t k = 0; k < COMPARE_NSUMMARY; k++) {
        prof_sbuf_str(b, k ? ",\n  " : "\n  ");
        export_json_text(b, compare_summary_names[k], strlen(compare_summary_names[k]));
        prof_sbuf_str(b, ": ");
        json_cell(b, &cells[k]);
    }
    prof_sbuf_str(b, "},\n\"regions\": [");
    char head[96];
    for (size_t i = 0; i < c->nrows; i++) {
        table_compare_row(c, i, cells);
        prof_sbuf_str(b, i ? ",\n  {" : "\n  {");
        for (size_t k = 0; k < COMPARE_NCOLS; k++) {
            if (k)
                prof_sbuf_str(b, ", ");
            column_header(head, sizeof head, &compare_columns[k], ns_unit, ns_unit);
            export_json_text(b, head, strlen(head));
            prof_sbuf_str(b, ": ");
            json_cell(b, &cells[k]);
        }
        prof_sbuf_str(b, "}");
    }
    prof_sbuf_str(b, c->nrows ? "\n]}" : "]}");
}

/* Every table as one JSON object, each an array of objects keyed by the column names, and
   the comparison when there is one. */
int export_json_write(FILE *f, const struct model *m, const char *command_line,
                      const struct comparison *cmp)
{
    struct prof_sbuf b = {0};
    prof_sbuf_addf(&b, "{\n\"generator\": \"profreport %s\",\n\"unit\": \"ns\",\n\"command\": ",
                   prof_version());
    export_json_text(&b, command_line ? command_line : "", command_line ? strlen(command_line) : 0);
    struct cell c[TABLE_MAX_COLS];
    char head[96];
    for (int which = 0; which < TABLE_COUNT; which++) {
        struct table tb;
        table_open(&tb, m, (enum table_id)which);
        prof_sbuf_addf(&b, ",\n\"%s\": [", table_names[which]);
        for (size_t i = 0; i < tb.nrows; i++) {
            table_row(&tb, i, c);
            prof_sbuf_add(&b, i ? ",\n  {" : "\n  {", i ? 5 : 4);
            for (size_t k = 0; k < tb.ncols; k++) {
                if (k)
                    prof_sbuf_add(&b, ", ", 2);
                column_header(head, sizeof head, &tb.cols[k], ns_unit, ns_unit);
                export_json_text(&b, head, strlen(head));
                prof_sbuf_add(&b, ": ", 2);
                if (c[k].kind == CELL_TEXT)
                    export_json_text(&b, c[k].s, strlen(c[k].s));
                else if (c[k].kind == CELL_NUM)
                    put_number(&b, c[k].v);
                else if (c[k].kind == CELL_INT)
                    prof_sbuf_addf(&b, "%llu", (unsigned long long)c[k].i);
                else
                    prof_sbuf_add(&b, "null", 4);
            }
            prof_sbuf_add(&b, "}", 1);
            fwrite(sbuf_text(&b), 1, b.len, f);
            b.len = 0;
        }
        prof_sbuf_add(&b, tb.nrows ? "\n]" : "]", tb.nrows ? 2 : 1);
        table_close(&tb);
    }
    if (cmp)
        json_comparison(&b, cmp);
    prof_sbuf_add(&b, "\n}\n", 3);
    return sbuf_write_out(f, &b);
}

/* ---- the files ---- */

/* One output file: its target and the temporary file it is written to first. */
struct out {
    char *target;
    struct atomicfile af;
    FILE *f;
    int committed;
};

struct exports {
    struct export_options o;
    struct out trace, folded, callgrind, json, csv[TABLE_COUNT];
    const struct comparison *cmp; /* exports_compare's, or NULL */
    struct out cmp_csv[2];        /* comparison.csv, comparison_summary.csv */
    int csv_fd;                   /* --csv's folder, opened without following a link, or -1 */
    /* trace */
    struct prof_sbuf buf;
    int first;
    size_t pid;   /* the trace's process id of the run being read (runs count from 1) */
    int in_run;   /* between run_begin and run_end */
    char **names; /* per model region: its JSON literal, made on first use */
    size_t nnames;
    struct prof_sbuf other; /* otherData members, written at the end */
    struct model_sink sink;
    /* --trace-limit: whole runs are kept while they fit */
    struct model *m;       /* where a run left out is warned about */
    uint64_t written;      /* bytes of the trace in its file (the buffer not counted) */
    uint64_t run_at;       /* where the run being read started in the file */
    int run_first;         /* x->first when it started */
    int run_out;           /* the run being read is left out */
    uint64_t run_events;   /* its events written so far */
    size_t kept, left_out; /* runs with events kept in the trace, and left out */
    char *first_left_out;  /* the first run left out, for the refusal's message */
    int trace_err;         /* errno of a failed ftruncate or fseeko, or 0 */
    /* seed-form runs: instances laid end to end */
    double seed_at; /* where the next instance of the run being read starts, ns */
    struct seed_open {
        const char *name; /* JSON literal, owned by names */
        unsigned tid;
    } * seed_open; /* its instances that never stopped, written at its end */
    size_t nseed_open;
    int seed_warned; /* stderr was told once */
};

/* The stream of o's temporary file, just created. 0, or -1 with e. */
static int out_stream(struct out *o, struct rep_error *e)
{
    o->target = xstrdup(o->af.target);
    o->f = atomicfile_stream(&o->af);
    if (!o->f) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': %s", o->target, strerror(errno));
        return -1;
    }
    return 0;
}

/* Create target's temporary file beside it (same folder, so rename is atomic). */
static int out_open(struct out *o, const char *target, struct rep_error *e)
{
    if (atomicfile_open(&o->af, target, e) != 0)
        return -1;
    return out_stream(o, e);
}

/* Create the temporary file of name in the folder open as dirfd (dir in messages). */
static int out_open_at(struct out *o, int dirfd, const char *dir, const char *name,
                       struct rep_error *e)
{
    if (atomicfile_open_at(&o->af, dirfd, dir, name, e) != 0)
        return -1;
    return out_stream(o, e);
}

/* Flush and close the temporary file; 0, or -1 with e. */
static int out_close(struct out *o, struct rep_error *e)
{
    if (!o->f)
        return 0;
    int bad = ferror(o->f);
    int err = fclose(o->f) != 0 ? errno : 0;
    o->f = NULL;
    if (bad || err) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': %s", o->target,
                 strerror(err     ? err
                          : errno ? errno
                                  : EIO));
        return -1;
    }
    return 0;
}

/* Forget an output, removing its temporary file unless it was renamed into place. */
static void out_free(struct out *o)
{
    if (o->f)
        fclose(o->f);
    atomicfile_discard(&o->af);
    free(o->target);
    memset(o, 0, sizeof *o);
}

/* The JSON literal of model region `region` (text s[0..n)), cached: the trace writes it per
   instance. */
static const char *trace_name(struct exports *x, size_t region, const char *s, size_t n)
{
    x->names = xgrow_zeroed(x->names, &x->nnames, region, sizeof *x->names);
    if (!x->names[region]) {
        struct prof_sbuf b = {0};
        s = region_text(s, n, &n);
        export_json_text(&b, s, n);
        x->names[region] = sbuf_take(&b);
    }
    return x->names[region];
}

/* Write the trace buffer out when it has grown. */
static void trace_flush(struct exports *x, int force)
{
    if (x->trace.f && (force || x->buf.len >= 1 << 16)) {
        fwrite(sbuf_text(&x->buf), 1, x->buf.len, x->trace.f);
        x->written += x->buf.len;
        x->buf.len = 0;
    }
}

/* A run's table starts: it is the trace's next process. */
static void sink_run_begin(void *ctx, const struct model *m, size_t run)
{
    struct exports *x = ctx;
    (void)m;
    (void)run;
    x->pid++;
    x->in_run = 1;
    trace_flush(x, 1);
    x->run_at = x->written;
    x->run_first = x->first;
    x->run_out = 0;
    x->run_events = 0;
    x->seed_at = 0;
    x->nseed_open = 0;
}

/* The run being read would pass --trace-limit: take its events back out of the trace. */
static void trace_leave_out(struct exports *x)
{
    x->buf.len = 0;
    fflush(x->trace.f);
    if (x->written > x->run_at && !x->trace_err &&
        (ftruncate(fileno(x->trace.f), (off_t)x->run_at) != 0 ||
         fseeko(x->trace.f, (off_t)x->run_at, SEEK_SET) != 0))
        x->trace_err = errno; /* exports_write reports it */
    x->written = x->run_at;
    x->first = x->run_first;
    x->run_out = 1;
}

/* One event into the trace, or the run left out when it would pass --trace-limit. */
static void trace_add(struct exports *x, const char *name_json, unsigned tid, double start_ns,
                      int stopped, double ns, double self_ns, unsigned depth, int nested)
{
    export_trace_event(&x->buf, x->first, name_json, x->pid, tid, start_ns, stopped, ns, self_ns,
                       depth, nested);
    x->first = 0;
    x->run_events++;
    if (x->o.trace_limit && x->written + x->buf.len > x->o.trace_limit) {
        trace_leave_out(x);
        return;
    }
    trace_flush(x, 0);
}

/* One row of an events table, or of the seed form: a trace event. */
static void sink_event(void *ctx, const struct model *m, size_t run, const struct thread_rec *t,
                       const struct prof_event_rec *e, size_t region, double ns, double self_ns,
                       double start_ns)
{
    struct exports *x = ctx;
    (void)t;
    enum run_kind kind = m->runs[run].kind;
    if (kind == RUN_SUMMARY || x->run_out)
        return;
    const char *name = trace_name(x, region, e->region, e->region_len);
    if (kind == RUN_SEED) {
        /* The seed form has no start times (FORMAT.md 2): its instances are laid end to end in
           file order. One that never stopped waits for the run's end, where no instance
           comes after it to look nested inside it. */
        if (!e->stopped) {
            x->seed_open = xrealloc(x->seed_open, (x->nseed_open + 1) * sizeof *x->seed_open);
            x->seed_open[x->nseed_open++] = (struct seed_open){name, e->thread};
            return;
        }
        start_ns = x->seed_at;
        x->seed_at += ns;
    }
    trace_add(x, name, e->thread, start_ns, e->stopped, ns, self_ns, e->depth, e->nested);
}

/* The end of a seed-form run in the trace: its unstopped instances, after the others. */
static void seed_run_end(struct exports *x, const struct model *m, size_t run)
{
    for (size_t i = 0; i < x->nseed_open && !x->run_out; i++)
        trace_add(x, x->seed_open[i].name, x->seed_open[i].tid, x->seed_at, 0, 0, 0, 0, 0);
    x->nseed_open = 0;
    if (x->run_out || !x->run_events)
        return;
    const char *why = "a seed-form run has no start times: in the trace its instances are laid "
                      "end to end in file order (instances that never stopped last), so their "
                      "times are durations, not moments";
    model_warn(x->m, m->runs[run].file, "trace-seed", 1, "%s", why);
    if (!x->seed_warned++)
        warn_msg("%s: %s", m->runs[run].file, why);
}

/* A run ends: name its process and threads in the trace, keep its facts for otherData. */
static void sink_run_end(void *ctx, const struct model *m, size_t run, int kept)
{
    struct exports *x = ctx;
    if (!x->in_run)
        return;
    x->in_run = 0;
    if (!kept) {
        trace_meta(&x->buf, x->first, "process_name", x->pid, 0, "name", "(skipped run)", 0);
        x->first = 0;
        trace_flush(x, 0);
        return;
    }
    const struct run_rec *r = &m->runs[run];
    int seed = r->kind == RUN_SEED;
    if (seed)
        seed_run_end(x, m, run);
    char label[64];
    snprintf(label, sizeof label, "run %zu", x->pid);
    struct prof_sbuf name = {0};
    if (x->run_out) {
        char limit[32];
        export_size_text(limit, sizeof limit, x->o.trace_limit);
        const char *why = "its region instances would make the trace larger than --trace-limit";
        model_warn(x->m, r->file, "trace-limit", 1, "left out of the trace: %s (%s)", why, limit);
        warn_msg("%s: left out of the trace: %s (%s)", r->file, why, limit);
        x->left_out++;
        if (!x->first_left_out)
            x->first_left_out = xstrdup(r->file);
        prof_sbuf_addf(&name, "%s: %s (left out: --trace-limit)", label,
                       r->program ? r->program : r->file);
    } else {
        x->kept += x->run_events > 0;
        prof_sbuf_addf(&name, "%s: %s%s", label, r->program ? r->program : r->file,
                       seed && x->run_events ? " (seed form: laid end to end, no start times)"
                                             : "");
    }
    trace_meta(&x->buf, x->first, "process_name", x->pid, 0, "name", sbuf_text(&name), 0);
    x->first = 0;
    trace_meta(&x->buf, 0, "process_sort_index", x->pid, 0, "sort_index", NULL, x->pid);
    name.len = 0;
    prof_sbuf_addf(&name, "%s, pid %s, host %s, %s", r->file, r->pid ? r->pid : "?",
                   r->host ? r->host : "?", r->start ? r->start : "?");
    trace_meta(&x->buf, 0, "process_labels", x->pid, 0, "labels", sbuf_text(&name), 0);
    for (size_t i = 0; i < m->nthreads; i++) {
        const struct thread_rec *t = &m->threads[i];
        if (t->run != run)
            continue;
        name.len = 0;
        if (t->name[0])
            prof_sbuf_addf(&name, "%s", t->name);
        else
            prof_sbuf_addf(&name, "thread %u", t->number);
        trace_meta(&x->buf, 0, "thread_name", x->pid, t->number, "name", sbuf_text(&name), 0);
        trace_meta(&x->buf, 0, "thread_sort_index", x->pid, t->number, "sort_index", NULL,
                   t->number);
    }
    prof_sbuf_release(&name);
    trace_flush(x, 0);
    /* otherData holds strings only: the trace viewers show it as a table. */
    const char *keys[] = {"file",  "program", "command", "pid",      "host",
                          "start", "clock",   "mode",    "complete", "crash"};
    const char *vals[] = {r->file,  r->program, r->command,
                          r->pid,   r->host,    r->start,
                          r->clock, r->mode,    r->complete ? "yes" : "no",
                          r->crash};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        if (!vals[k])
            continue;
        prof_sbuf_addf(&x->other, ",\n\"%s %s\": ", label, keys[k]);
        export_json_text(&x->other, vals[k], strlen(vals[k]));
    }
    prof_sbuf_addf(&x->other, ",\n\"%s frequency\": \"%llu Hz\"", label,
                   (unsigned long long)r->frequency);
    if (seed && !x->run_out && x->run_events)
        prof_sbuf_addf(&x->other,
                       ",\n\"%s note\": \"seed form: no start times; the instances are laid "
                       "end to end in file order, those that never stopped last\"",
                       label);
}

/* Create the exports' temporary files and attach the sink. */
struct exports *exports_open(const struct export_options *o, struct model *m, struct rep_error *e)
{
    struct exports *x = xcalloc(1, sizeof *x);
    x->o = *o;
    x->first = 1;
    x->m = m;
    x->csv_fd = -1;
    if (o->folded || o->callgrind)
        model_keep_paths(m);
    if ((o->trace && out_open(&x->trace, o->trace, e) != 0) ||
        (o->folded && out_open(&x->folded, o->folded, e) != 0) ||
        (o->callgrind && out_open(&x->callgrind, o->callgrind, e) != 0) ||
        (o->json && out_open(&x->json, o->json, e) != 0)) {
        exports_free(x);
        return NULL;
    }
    /* Only the trace needs rows as they are read; the call paths are the model's. */
    if (x->trace.f) {
        static const char head[] = "{\"traceEvents\":[\n";
        fputs(head, x->trace.f);
        x->written = sizeof head - 1;
        x->sink = (struct model_sink){x, sink_run_begin, sink_event, NULL, sink_run_end};
        m->sink = &x->sink;
    }
    return x;
}

/* Fill every export's temporary file. */
int exports_write(struct exports *x, const struct model *m, struct rep_error *e)
{
    if (x->trace.f && x->trace_err) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': %s", x->trace.target,
                 strerror(x->trace_err));
        return -1;
    }
    if (x->trace.f && x->left_out && !x->kept) {
        char limit[32];
        export_size_text(limit, sizeof limit, x->o.trace_limit);
        rep_fail(e, REP_ERR_OUTPUT,
                 "trace '%s' not written: '%s' alone would make it larger than --trace-limit "
                 "(%s), more than Perfetto's web UI loads; raise --trace-limit, or record fewer "
                 "region instances (PROFILER_MAX_EVENTS, PROFILER_MODE=summary)",
                 x->trace.target, x->first_left_out, limit);
        return -1;
    }
    if (x->trace.f) {
        trace_flush(x, 1);
        fprintf(x->trace.f,
                "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\n"
                "\"generator\": \"profreport %s\",\n\"command\": ",
                prof_version());
        struct prof_sbuf b = {0};
        const char *cl = x->o.command_line ? x->o.command_line : "";
        export_json_text(&b, cl, strlen(cl));
        prof_sbuf_addf(&b, ",\n\"runs\": \"%zu\"", x->pid);
        fwrite(sbuf_text(&b), 1, b.len, x->trace.f);
        prof_sbuf_release(&b);
        if (x->other.len)
            fwrite(sbuf_text(&x->other), 1, x->other.len, x->trace.f);
        fputs("\n}}\n", x->trace.f);
        if (out_close(&x->trace, e) != 0)
            return -1;
    }
    if (x->folded.f) {
        uint64_t folded;
        export_folded_write(x->folded.f, model_paths(m), &folded);
        if (folded)
            warn_msg("folded stacks: %" PRIu64 " call path%s deeper than %d frames folded into "
                     "their first %d frames and a frame '%s' ('%s')",
                     folded, folded == 1 ? "" : "s", EXPORT_FOLDED_MAX_DEPTH,
                     EXPORT_FOLDED_MAX_DEPTH, EXPORT_FOLDED_DEEPER, x->o.folded);
        if (out_close(&x->folded, e) != 0)
            return -1;
    }
    if (x->callgrind.f) {
        const char *cmd = NULL;
        for (size_t i = 0; i < m->nruns && !cmd; i++)
            cmd = m->runs[i].command ? m->runs[i].command : m->runs[i].program;
        const struct cct *t = model_paths(m);
        /* Each name of the tree where its region's Function record put it. */
        struct export_source *src = xcalloc(t->nnames ? t->nnames : 1, sizeof *src);
        for (size_t i = 0; i < t->nnames; i++) {
            size_t r = model_find(m, t->names[i], t->name_lens[i]);
            if (r != SIZE_MAX && m->regions[r].file)
                src[i] = (struct export_source){m->regions[r].file, m->regions[r].line};
        }
        export_callgrind_write(x->callgrind.f, t, cmd, m->nruns, src);
        free(src);
        if (out_close(&x->callgrind, e) != 0)
            return -1;
    }
    if (x->json.f) {
        export_json_write(x->json.f, m, x->o.command_line, x->cmp);
        if (out_close(&x->json, e) != 0)
            return -1;
    }
    if (x->o.csv_dir) {
        /* One level only: profreport(1) says its parent must exist. */
        int err = mkdir(x->o.csv_dir, 0777) != 0 && errno != EEXIST ? errno : 0;
        if (err) {
            rep_fail(e, REP_ERR_OUTPUT, "cannot create '%s': %s", x->o.csv_dir, strerror(err));
            return -1;
        }
        /* Written relative to the folder opened, as the charts are: a symbolic link planted
           at its name is refused, never followed into a folder the user did not name. */
        if ((x->csv_fd = atomicfile_dir_open(x->o.csv_dir, "CSV files", e)) < 0)
            return -1;
        for (int k = 0; k < TABLE_COUNT; k++) {
            char name[256];
            snprintf(name, sizeof name, "%s.csv", table_names[k]);
            if (out_open_at(&x->csv[k], x->csv_fd, x->o.csv_dir, name, e) != 0)
                return -1;
            export_csv_write(x->csv[k].f, m, (enum table_id)k);
            if (out_close(&x->csv[k], e) != 0)
                return -1;
        }
        for (int k = 0; x->cmp && k < 2; k++) {
            const char *name = k ? "comparison_summary.csv" : "comparison.csv";
            if (out_open_at(&x->cmp_csv[k], x->csv_fd, x->o.csv_dir, name, e) != 0)
                return -1;
            if (k)
                export_compare_summary_csv_write(x->cmp_csv[k].f, x->cmp);
            else
                export_compare_csv_write(x->cmp_csv[k].f, x->cmp);
            if (out_close(&x->cmp_csv[k], e) != 0)
                return -1;
        }
    }
    return 0;
}

/* Rename one written output into place. */
static int out_commit(struct out *o, struct rep_error *e)
{
    if (!o->af.tmp || o->committed)
        return 0;
    if (atomicfile_commit(&o->af, e) != 0)
        return -1;
    o->committed = 1;
    return 0;
}

/* Rename every export into place. */
int exports_commit(struct exports *x, struct rep_error *e)
{
    struct out *all[] = {&x->trace, &x->folded, &x->callgrind, &x->json};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (out_commit(all[i], e) != 0)
            return -1;
    for (int k = 0; k < TABLE_COUNT; k++)
        if (out_commit(&x->csv[k], e) != 0)
            return -1;
    for (int k = 0; k < 2; k++)
        if (out_commit(&x->cmp_csv[k], e) != 0)
            return -1;
    return 0;
}

/* The comparison to export with the statistics. */
void exports_compare(struct exports *x, const struct comparison *c) { x->cmp = c; }

/* Say where the exports went. */
void exports_print(const struct exports *x, FILE *out)
{
    if (x->trace.committed)
        fprintf(out, "trace:    %s\n", x->trace.target);
    if (x->folded.committed)
        fprintf(out, "folded:   %s\n", x->folded.target);
    if (x->callgrind.committed)
        fprintf(out, "callgrind: %s\n", x->callgrind.target);
    if (x->json.committed)
        fprintf(out, "json:     %s\n", x->json.target);
    if (x->csv[0].committed)
        fprintf(out, "csv:      %s/ (%d files)\n", x->o.csv_dir,
                TABLE_COUNT + (x->cmp_csv[0].committed ? 2 : 0));
}

/* Remove uncommitted temporary files and free everything. */
void exports_free(struct exports *x)
{
    if (!x)
        return;
    out_free(&x->trace);
    out_free(&x->folded);
    out_free(&x->callgrind);
    out_free(&x->json);
    for (int k = 0; k < TABLE_COUNT; k++)
        out_free(&x->csv[k]);
    for (int k = 0; k < 2; k++)
        out_free(&x->cmp_csv[k]);
    if (x->csv_fd >= 0)
        close(x->csv_fd);
    for (size_t i = 0; i < x->nnames; i++)
        free(x->names[i]);
    free(x->names);
    free(x->first_left_out);
    free(x->seed_open);
    prof_sbuf_release(&x->buf);
    prof_sbuf_release(&x->other);
    free(x);
}
