/*
 * csvwrite.c - the run-file writer: the records of a run (assemble.h) as the CSV text of
 * docs/FORMAT.md 1. The only place where run-file text is made; the collector's threads write
 * binary chunks only.
 */
#define _GNU_SOURCE /* copy_file_range */
#include "csvwrite.h"

#include "cpuload.h"
#include "fileutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes of text kept before they are written out. */
#define CSV_FLUSH (1u << 16)
/* Bytes copy_field moves for any field up to that long. */
#define FIELD_COPY 16
/* The least bytes of parts on each side of the cut for PROF_SPLIT_AUTO to use two threads
   (about 1.4 M events): below it the thread's start and the copy cost about what they save. */
#define SPLIT_MIN_SIDE (8u << 20)

/* Append v with 17 significant digits. */
void prof_csv_double(struct prof_sbuf *b, double v)
{
    char tmp[32];
    int n = prof_snprintf_c(tmp, sizeof tmp, "%.17g", v); /* a decimal point, never a comma */
    if (n > 0)
        prof_sbuf_add(b, tmp, (size_t)n);
}

/* Write out what is buffered. */
static void flush(struct prof_csv_writer *w)
{
    if (w->buf.len && !w->buf.failed && fwrite(w->buf.data, 1, w->buf.len, w->out) != w->buf.len &&
        !w->write_errno)
        w->write_errno = errno ? errno : EIO;
    w->buf.len = 0;
}

/* Append a header record: names joined by commas. */
static void header_line(struct prof_sbuf *b, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            prof_sbuf_char(b, ',');
        prof_sbuf_str(b, names[i]);
    }
    prof_sbuf_char(b, '\n');
}

/* Sink: one metadata record. */
static void csv_meta(void *ctx, const char *const *fields, const size_t *lens, size_t n)
{
    struct prof_csv_writer *w = ctx;
    for (size_t i = 0; i < n; i++) {
        if (i)
            prof_sbuf_char(&w->buf, ',');
        prof_sbuf_csv(&w->buf, fields[i], lens[i]);
    }
    prof_sbuf_char(&w->buf, '\n');
}

/* Sink: the table's header. */
static void csv_table(void *ctx, int summary)
{
    struct prof_csv_writer *w = ctx;
    if (summary)
        header_line(&w->buf, prof_summary_columns, PROF_SU_N);
    else
        header_line(&w->buf, prof_event_columns, PROF_EV_N);
}

/* Sink: a new part; its ids start again from 0. */
static void csv_part(void *ctx, uint32_t thread)
{
    struct prof_csv_writer *w = ctx;
    w->ids.len = 0;
    w->nids = 0;
    w->thread_len = (size_t)(prof_u64_put(w->thread, thread) - w->thread);
}

/* Sink: keep an id as a CSV field for the rows that name it. */
static void csv_id(void *ctx, uint32_t id, const char *text, size_t len)
{
    struct prof_csv_writer *w = ctx;
    if (id != w->nids)
        return; /* assemble.c hands them over in order */
    if (w->nids == w->ids_cap) {
        uint32_t cap = w->ids_cap ? 2 * w->ids_cap : 64;
        size_t *o = realloc(w->id_off, cap * sizeof *o);
        if (o)
            w->id_off = o;
        size_t *l = realloc(w->id_len, cap * sizeof *l);
        if (l)
            w->id_len = l;
        if (!o || !l) {
            w->nomem = 1;
            return;
        }
        w->ids_cap = cap;
    }
    size_t off = w->ids.len;
    prof_sbuf_csv(&w->ids, text, len);
    prof_sbuf_grow(&w->ids, FIELD_COPY); /* room for copy_field to read past the last field */
    w->id_off[w->nids] = off;
    w->id_len[w->nids] = w->ids.len - off;
    w->nids++;
}

/* Copy an n-byte field to d, returning its end. A short one is copied as FIELD_COPY bytes,
   which both sides have room for: one fixed-size move instead of a call to memcpy. */
static inline char *copy_field(char *d, const char *s, size_t n)
{
    if (n <= FIELD_COPY)
        memcpy(d, s, FIELD_COPY);
    else
        memcpy(d, s, n);
    return d + n;
}

/* Sink: one events-table row, formatted straight into the buffer. */
static void csv_event(void *ctx, const struct prof_event_rec *e)
{
    struct prof_csv_writer *w = ctx;
    if (e->region_id >= w->nids || (e->depth > 0 && e->parent_id >= w->nids) || w->ids.failed) {
        w->nomem = 1; /* an id the writer could not keep */
        return;
    }
    struct prof_sbuf *b = &w->buf;
    const char *ids = w->ids.data;
    size_t idl = w->id_len[e->region_id], pl = e->depth > 0 ? w->id_len[e->parent_id] : 0;
    char *p = prof_sbuf_grow(b, idl + pl + w->thread_len + 3 * FIELD_COPY + 4 * 20 + 16);
    if (!p)
        return;
    p = copy_field(p, ids + w->id_off[e->region_id], idl);
    *p++ = ',';
    if (e->stopped)
        p = prof_u64_put(p, e->ticks);
    *p++ = ',';
    p = copy_field(p, w->thread, w->thread_len);
    *p++ = ',';
    if (pl)
        p = copy_field(p, ids + w->id_off[e->parent_id], pl);
    *p++ = ',';
    p = prof_u64_put(p, e->depth);
    *p++ = ',';
    if (e->stopped)
        p = prof_u64_put(p, e->self);
    *p++ = ',';
    p = prof_u64_put(p, e->start);
    memcpy(p, e->nested ? ",1\n" : ",0\n", 3);
    b->len = (size_t)(p + 3 - b->data);
    if (b->len >= CSV_FLUSH)
        flush(w);
}

/* Append one summary-table row (Region..Histogram, no line end). */
void prof_csv_summary_row(struct prof_sbuf *b, const struct prof_summary_rec *s)
{
    const uint64_t col[] = {s->thread, s->calls, s->ticks, s->self, s->min, s->max};
    prof_sbuf_csv(b, s->region, s->region_len);
    for (size_t i = 0; i < sizeof col / sizeof col[0]; i++) {
        prof_sbuf_char(b, ',');
        prof_sbuf_u64(b, col[i]);
    }
    prof_sbuf_char(b, ',');
    prof_csv_double(b, s->sumsq);
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, s->outer);
    prof_sbuf_char(b, ',');
    for (size_t i = 0; i < s->nhist; i++) {
        if (i)
            prof_sbuf_char(b, ';');
        prof_sbuf_u64(b, s->hist_bucket[i]);
        prof_sbuf_char(b, ':');
        prof_sbuf_u64(b, s->hist_count[i]);
    }
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, s->node);
    const uint64_t timing[] = {s->samples, s->timed, s->wall};
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, s->parent);
    for (size_t i = 0; i < sizeof timing / sizeof timing[0]; i++) {
        prof_sbuf_char(b, ',');
        prof_sbuf_u64(b, timing[i]);
    }
}

/* Sink: one summary-table row. */
static void csv_summary(void *ctx, const struct prof_summary_rec *s)
{
    struct prof_csv_writer *w = ctx;
    if (s->node == 0) {
        if (w->flat_thread != s->thread)
            w->flat_node = 0;
        w->flat_thread = s->thread;
        struct prof_summary_rec flat = *s;
        flat.node = ++w->flat_node;
        flat.parent = 0;
        prof_csv_summary_row(&w->buf, &flat);
    } else {
        prof_csv_summary_row(&w->buf, s);
    }
    prof_sbuf_char(&w->buf, '\n');
    if (w->buf.len >= CSV_FLUSH)
        flush(w);
}

/* Append a thread number, empty for 0 (unknown). */
static void thread_field(struct prof_sbuf *b, uint32_t n)
{
    if (n)
        prof_sbuf_u64(b, n);
}

/* Append a NUL-terminated text as a field (NULL: empty). */
static void text_field(struct prof_sbuf *b, const char *s)
{
    if (s)
        prof_sbuf_csv(b, s, strlen(s));
}

/* Sink: a section after the memory section (the summary section): its Table record and header. */
static void csv_section(void *ctx, const char *name)
{
    struct prof_csv_writer *w = ctx;
    prof_sbuf_str(&w->buf, "Table,");
    prof_sbuf_str(&w->buf, name);
    prof_sbuf_char(&w->buf, '\n');
    header_line(&w->buf, prof_summary_columns, PROF_SU_N);
}

/* Sink: one row of the memory section, after its Table record and header. */
static void csv_memory(void *ctx, const struct prof_memory_rec *m)
{
    struct prof_csv_writer *w = ctx;
    struct prof_sbuf *b = &w->buf;
    if (!w->memory_started) {
        w->memory_started = 1;
        prof_sbuf_str(b, "Table," PROF_MEMORY_SECTION "\n");
        header_line(b, prof_memory_columns, PROF_ME_N);
    }
    prof_sbuf_str(b, m->kind >= 0 && m->kind < PROF_MK_N ? prof_memory_kinds[m->kind] : "");
    prof_sbuf_char(b, ',');
    /* A thread's own bytes always name it; a finding's thread may be unknown (0). */
    if (m->kind == PROF_MK_REGION_BYTES)
        prof_sbuf_u64(b, m->thread);
    else
        thread_field(b, m->thread);
    prof_sbuf_char(b, ',');
    if (m->region)
        prof_sbuf_csv(b, m->region, m->region_len);
    prof_sbuf_char(b, ',');
    text_field(b, m->site);
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, m->count);
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, m->bytes);
    prof_sbuf_char(b, ',');
    prof_sbuf_str(b, prof_alloc_kind_name(m->alloc_kind));
    prof_sbuf_char(b, ',');
    prof_sbuf_str(b, prof_free_kind_name(m->free_kind));
    prof_sbuf_char(b, ',');
    thread_field(b, m->other_thread);
    prof_sbuf_char(b, ',');
    text_field(b, m->other_site);
    prof_sbuf_char(b, ',');
    text_field(b, m->function);
    prof_sbuf_char(b, ',');
    text_field(b, m->stack);
    prof_sbuf_char(b, '\n');
}

/* Sink: write out what is buffered and say whether anything failed so far. */
static enum prof_error csv_status(void *ctx)
{
    struct prof_csv_writer *w = ctx;
    if (w->nomem || w->buf.failed || w->ids.failed)
        return PROF_ERR_NOMEM;
    flush(w);
    return ferror(w->out) ? PROF_ERR_IO : PROF_OK;
}

/* The writer as a sink: records in, CSV text out to out. */
void prof_csv_writer_init(struct prof_csv_writer *w, struct prof_run_sink *sink, FILE *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    *sink = (struct prof_run_sink){w,         csv_meta,    csv_table,  csv_part,   csv_id,
                                   csv_event, csv_summary, csv_memory, csv_status, csv_section};
}

/* Write out what is left, say whether all went well, and free what the writer holds. */
enum prof_error prof_csv_writer_finish(struct prof_csv_writer *w)
{
    enum prof_error err = csv_status(w);
    if (err == PROF_OK && (fflush(w->out) != 0 || ferror(w->out))) {
        err = PROF_ERR_IO;
        if (!w->write_errno)
            w->write_errno = errno ? errno : EIO;
    }
    prof_sbuf_release(&w->buf);
    prof_sbuf_release(&w->ids);
    free(w->id_off);
    free(w->id_len);
    w->id_off = w->id_len = NULL;
    if (err == PROF_ERR_IO && w->write_errno)
        errno = w->write_errno;
    return err;
}

/* Merge the parts into a run file written to out. */
enum prof_error prof_assemble(const char *const *paths, size_t count, FILE *out,
                              const struct prof_run_override *ov)
{
    return prof_assemble_split(paths, count, out, ov, NULL);
}

/* A run file being written on two threads. */
struct split {
    struct prof_parts *parts;
    struct prof_parts_cut cut;
    const struct prof_split_opts *opts;
    struct prof_csv_writer *head; /* the calling thread's writer, to out */
    const struct prof_run_sink *head_sink;
    FILE *tmp;  /* the tail's text */
    int tmp_rd; /* the same file, for reading; -1 when there is none */
    pthread_t thread;
    int started, joined;
    enum prof_error tail_err;
};

/* The second thread: the rows after the cut, as CSV, into the temporary file. */
static void *tail_main(void *arg)
{
    struct split *s = arg;
    if (s->opts->thread_hook)
        s->opts->thread_hook(1);
    struct prof_csv_writer w;
    struct prof_run_sink sink;
    prof_csv_writer_init(&w, &sink, s->tmp);
    enum prof_error err = prof_parts_emit_tail(s->parts, &sink, &s->cut);
    enum prof_error fin = prof_csv_writer_finish(&w);
    s->tail_err = err != PROF_OK ? err : fin;
    if (s->opts->thread_hook)
        s->opts->thread_hook(0);
    return NULL;
}

/* Append the len bytes of from (from its start) at to's offset: in the kernel when it can
   (copy_file_range), else by read and write. 0, or -1 with errno set. */
static int append_file(int to, int from, off_t len, unsigned faults)
{
    if (faults & PROF_SPLIT_FAULT_APPEND) {
        errno = EIO;
        return -1;
    }
    off_t in = 0;
    int kernel = !(faults & PROF_SPLIT_FAULT_KERNEL_COPY);
    while (kernel && in < len) {
        ssize_t n = copy_file_range(from, &in, to, NULL, (size_t)(len - in), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 &&
            (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP) &&
            in == 0)
            kernel = 0; /* not between these files: copy by hand */
        else if (n <= 0)
            return n < 0 ? -1 : (errno = EIO, -1); /* the file is shorter than it said */
    }
    char buf[1 << 16];
    while (in < len) {
        size_t want = len - in < (off_t)sizeof buf ? (size_t)(len - in) : sizeof buf;
        ssize_t n = pread(from, buf, want, in);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -1 : (errno = EIO, -1);
        int err = prof_write_all(to, buf, (size_t)n);
        if (err != 0)
            return errno = err, -1;
        in += n;
    }
    return 0;
}

/* Where the head reaches the cut: wait for the tail and append its text, or (when the split
   failed anywhere) write the rows after the cut here. */
static enum prof_error join_tail(void *ctx)
{
    struct split *s = ctx;
    FILE *out = s->head->out;
    if (s->started) {
        pthread_join(s->thread, NULL);
        s->joined = 1;
    }
    enum prof_error err = s->head_sink->status(s->head_sink->ctx); /* out has the head's rows */
    if (err != PROF_OK)
        return err;
    if (fflush(out) != 0) {
        if (!s->head->write_errno)
            s->head->write_errno = errno ? errno : EIO;
        return PROF_ERR_IO;
    }
    off_t at = ftello(out);
    if (s->started && s->tail_err == PROF_OK && at >= 0) {
        struct stat st;
        if (fstat(s->tmp_rd, &st) == 0 &&
            append_file(fileno(out), s->tmp_rd, st.st_size, s->opts->faults) == 0 &&
            fseeko(out, at + st.st_size, SEEK_SET) == 0)
            return PROF_OK;
        /* Part of the tail may be in out: cut it off, and write the tail here. */
        if (ftruncate(fileno(out), at) != 0 || fseeko(out, at, SEEK_SET) != 0)
            return PROF_ERR_IO;
    }
    return prof_parts_emit_tail(s->parts, s->head_sink, &s->cut);
}

/* Whether the run file of parts should be written on two threads, and where the cut is. */
static int split_wanted(struct prof_parts *parts, FILE *out, const struct prof_split_opts *opts,
                        struct prof_parts_cut *cut)
{
    struct stat st;
    if (!opts || opts->mode == PROF_SPLIT_NEVER || !opts->dir || fileno(out) < 0 ||
        fstat(fileno(out), &st) != 0 || !S_ISREG(st.st_mode) || !prof_parts_cut(parts, cut))
        return 0;
    if (opts->mode == PROF_SPLIT_ALWAYS)
        return 1;
    if (cut->before < SPLIT_MIN_SIDE || cut->after < SPLIT_MIN_SIDE)
        return 0;
    /* A second thread pays only on an idle core: on a busy machine it waits for one, and the
       calling thread waits for it. */
    int cpus = prof_cpus_allowed();
    return cpus >= 2 && prof_runnable_now() < cpus;
}

/* Start the tail on a second thread writing to a new temporary file; on failure s->started
   stays 0 and the head writes the tail itself. */
static void split_start(struct split *s)
{
    char *path = NULL;
    int at = s->opts->dirfd ? *s->opts->dirfd : AT_FDCWD;
    int fd = prof_file_create_temp_at(at, s->opts->dirfd ? NULL : s->opts->dir, "runfile-tail",
                                      ".tmp", 0600, &path);
    if (fd < 0)
        return;
    /* The file is new and ours (created exclusively, never through a link); its second
       descriptor, to read it back, must be the same file. */
    struct stat a, b;
    s->tmp_rd = openat(at, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (s->tmp_rd >= 0 && (fstat(fd, &a) != 0 || fstat(s->tmp_rd, &b) != 0 ||
                           a.st_dev != b.st_dev || a.st_ino != b.st_ino)) {
        close(s->tmp_rd);
        s->tmp_rd = -1;
    }
    /* Nothing is left behind, whatever happens next. */
    unlinkat(at, path, 0);
    free(path);
    s->tmp = s->tmp_rd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!s->tmp) {
        close(fd);
        return;
    }
    if (s->opts->faults & PROF_SPLIT_FAULT_THREAD)
        return;
    /* The thread takes no signal of the host program's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    s->started = pthread_create(&s->thread, NULL, tail_main, s) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Merge the parts into a run file written to out, on two threads when it pays. */
enum prof_error prof_assemble_split(const char *const *paths, size_t count, FILE *out,
                                    const struct prof_run_override *ov,
                                    const struct prof_split_opts *opts)
{
    if ((!paths && count) || !out)
        return PROF_ERR_ARGUMENT;
    struct prof_parts *parts;
    enum prof_error err = prof_parts_open(paths, count, ov, &parts);
    if (err != PROF_OK)
        return err;
    struct prof_csv_writer w;
    struct prof_run_sink sink;
    prof_csv_writer_init(&w, &sink, out);
    struct split s = {.parts = parts, .opts = opts, .head = &w, .head_sink = &sink, .tmp_rd = -1};
    if (split_wanted(parts, out, opts, &s.cut)) {
        split_start(&s);
        err = prof_parts_emit_head(parts, &sink, &s.cut, join_tail, &s);
        if (s.started && !s.joined) /* the head failed before join_tail */
            pthread_join(s.thread, NULL);
        if (s.tmp)
            fclose(s.tmp);
        if (s.tmp_rd >= 0)
            close(s.tmp_rd);
    } else {
        err = prof_parts_emit(parts, &sink);
    }
    enum prof_error fin = prof_csv_writer_finish(&w);
    if (err == PROF_OK)
        err = fin;
    int e = errno; /* the failed write's, not what freeing the parts leaves */
    prof_parts_free(parts);
    errno = e;
    return err;
}
