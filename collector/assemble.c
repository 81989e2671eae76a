/*
 * assemble.c - merge a run's part files into its run file (docs/FORMAT.md): the path taken at
 * exit by prof_finish and, for a killed run's leftovers, by prof_recover.
 *
 * Two passes over the parts: the first learns what the metadata section must say (threads,
 * warnings, completeness), the second writes the rows. Memory stays O(ids + depth) per part.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNTERMINATED_NAMES 5

/* Run-level metadata, from the first part's header. */
struct meta {
    char *frequency, *mode, *program, *command, *pid, *ppid, *host, *start, *clock, *format;
};

/* What pass one learns about one part. */
struct part_info {
    char *number, *tid, *name;
    char *state; /* from the end chunk: "exited" or "running"; NULL when missing */
    int damaged; /* truncated or malformed */
    uint64_t stray, unterminated, clock;
    char *unterminated_names[UNTERMINATED_NAMES];
    size_t nnames;
    struct prof_sbuf warnings; /* Warning records from PRFW chunks, already CSV */
};

/* A part's id table while it is being read: each id raw and as a CSV field. */
struct ids {
    char **s, **csv;
    size_t *len, *csv_len;
    uint32_t *canon; /* index -> first index with the same text */
    uint32_t *table; /* open addressing over texts: index + 1, 0 = empty */
    uint32_t n, cap, mask;
};

/* The Function records of a run, one per function name (threads repeat them). */
struct functions {
    struct prof_sbuf records;
    char **names; /* open addressing, mask + 1 slots */
    size_t n, mask;
};

/* What the row writer needs. */
struct writer {
    FILE *out;
    struct prof_sbuf buf;
    const struct ids *ids;
    const char *thread;
    size_t thread_len;
    struct part_info *info;      /* pass one: collects unterminated names */
    struct functions *functions; /* pass one: collects Function records */
    struct prof_sbuf mem;        /* pass two: region-bytes rows of the memory section */
};

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static void ids_release(struct ids *ids)
{
    for (uint32_t i = 0; i < ids->n; i++) {
        free(ids->s[i]);
        free(ids->csv[i]);
    }
    free(ids->s);
    free(ids->csv);
    free(ids->len);
    free(ids->csv_len);
    free(ids->canon);
    free(ids->table);
    memset(ids, 0, sizeof *ids);
}

/* FNV-1a over an id's bytes. */
static uint32_t text_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* The first index whose text equals that of index i, entering i if it is the first. */
static uint32_t ids_find_or_add(struct ids *ids, uint32_t i)
{
    uint32_t h = text_hash(ids->s[i], ids->len[i]) & ids->mask;
    for (;; h = (h + 1) & ids->mask) {
        uint32_t e = ids->table[h];
        if (e == 0) {
            ids->table[h] = i + 1;
            return i;
        }
        e--;
        if (ids->len[e] == ids->len[i] && memcmp(ids->s[e], ids->s[i], ids->len[i]) == 0)
            return e;
    }
}

/* Rebuild the text table with size slots (a power of two, at least twice the ids). */
static enum prof_error ids_rehash(struct ids *ids, uint32_t size)
{
    uint32_t *t = calloc(size, sizeof *t);
    if (!t)
        return PROF_ERR_NOMEM;
    free(ids->table);
    ids->table = t;
    ids->mask = size - 1;
    for (uint32_t i = 0; i < ids->n; i++)
        if (ids->canon[i] == i)
            ids_find_or_add(ids, i);
    return PROF_OK;
}

/* Add the definitions of a PRFI chunk; indexes must arrive in order. */
static enum prof_error ids_add(struct ids *ids, const unsigned char *p, size_t len)
{
    size_t off = 0;
    while (off < len) {
        uint32_t hdr[2];
        if (len - off < sizeof hdr)
            return PROF_ERR_FORMAT;
        memcpy(hdr, p + off, sizeof hdr);
        off += sizeof hdr;
        if (hdr[0] != ids->n || hdr[1] > len - off)
            return PROF_ERR_FORMAT;
        if (ids->n == ids->cap) {
            uint32_t cap = ids->cap ? ids->cap * 2 : 64;
            char **s = realloc(ids->s, cap * sizeof *s);
            if (s)
                ids->s = s;
            char **c = realloc(ids->csv, cap * sizeof *c);
            if (c)
                ids->csv = c;
            size_t *l = realloc(ids->len, cap * sizeof *l);
            if (l)
                ids->len = l;
            size_t *cl = realloc(ids->csv_len, cap * sizeof *cl);
            if (cl)
                ids->csv_len = cl;
            uint32_t *cn = realloc(ids->canon, cap * sizeof *cn);
            if (cn)
                ids->canon = cn;
            if (!s || !c || !l || !cl || !cn || ids_rehash(ids, cap * 2) != PROF_OK)
                return PROF_ERR_NOMEM;
            ids->cap = cap;
        }
        struct prof_sbuf field = {0};
        prof_sbuf_field(&field, (const char *)p + off, hdr[1]);
        char *s = dup_n((const char *)p + off, hdr[1]);
        if (!s || field.failed) {
            free(s);
            prof_sbuf_release(&field);
            return PROF_ERR_NOMEM;
        }
        ids->s[ids->n] = s;
        ids->len[ids->n] = hdr[1];
        ids->csv[ids->n] = field.data ? field.data : dup_n("", 0);
        ids->csv_len[ids->n] = field.len;
        ids->canon[ids->n] = ids_find_or_add(ids, ids->n);
        ids->n++;
        if (!ids->csv[ids->n - 1])
            return PROF_ERR_NOMEM;
        off += hdr[1];
    }
    return PROF_OK;
}

/* Whether name has a Function record already; if not, remember it. -1: out of memory. */
static int functions_seen(struct functions *fs, const char *name)
{
    if ((fs->n + 1) * 2 > fs->mask + 1) {
        size_t size = fs->mask ? (fs->mask + 1) * 2 : 64;
        char **t = calloc(size, sizeof *t);
        if (!t)
            return -1;
        for (size_t i = 0; fs->mask && i <= fs->mask; i++)
            if (fs->names[i]) {
                size_t h = text_hash(fs->names[i], strlen(fs->names[i])) & (size - 1);
                while (t[h])
                    h = (h + 1) & (size - 1);
                t[h] = fs->names[i];
            }
        free(fs->names);
        fs->names = t;
        fs->mask = size - 1;
    }
    size_t h = text_hash(name, strlen(name)) & fs->mask;
    for (; fs->names[h]; h = (h + 1) & fs->mask)
        if (strcmp(fs->names[h], name) == 0)
            return 1;
    fs->names[h] = dup_n(name, strlen(name));
    if (!fs->names[h])
        return -1;
    fs->n++;
    return 0;
}

static void functions_release(struct functions *fs)
{
    for (size_t i = 0; fs->mask && i <= fs->mask; i++)
        free(fs->names[i]);
    free(fs->names);
    prof_sbuf_release(&fs->records);
    memset(fs, 0, sizeof *fs);
}

/* Next NUL-ended string of a payload at *off, or NULL when the payload ends first. */
static const char *next_cstr(const unsigned char *p, size_t len, size_t *off)
{
    if (*off >= len)
        return NULL;
    const char *s = (const char *)p + *off;
    size_t n = strnlen(s, len - *off);
    if (*off + n >= len)
        return NULL;
    *off += n + 1;
    return s;
}

static void field(struct prof_sbuf *b, const char *s);

/* A PRFL chunk: Function records (docs/FORMAT.md 1.2) for the functions among the ids. */
static enum prof_error locations_add(struct functions *fs, const struct ids *ids,
                                     const unsigned char *p, size_t len)
{
    size_t off = 0;
    while (off < len) {
        uint32_t idx;
        if (len - off < sizeof idx)
            return PROF_ERR_FORMAT;
        memcpy(&idx, p + off, sizeof idx);
        off += sizeof idx;
        const char *file = next_cstr(p, len, &off), *line = next_cstr(p, len, &off);
        const char *module = next_cstr(p, len, &off), *offset = next_cstr(p, len, &off);
        if (!offset || idx >= ids->n)
            return PROF_ERR_FORMAT;
        int seen = functions_seen(fs, ids->s[idx]);
        if (seen < 0)
            return PROF_ERR_NOMEM;
        if (seen)
            continue;
        struct prof_sbuf *b = &fs->records;
        prof_sbuf_str(b, "Function,");
        prof_sbuf_add(b, ids->csv[idx], ids->csv_len[idx]);
        prof_sbuf_char(b, ',');
        field(b, file);
        prof_sbuf_char(b, ',');
        field(b, line);
        prof_sbuf_char(b, ',');
        field(b, module);
        prof_sbuf_char(b, ',');
        field(b, offset);
        prof_sbuf_char(b, '\n');
    }
    return PROF_OK;
}

/* Whether s is a decimal number of 1 to 20 digits (NULL is not). */
static int is_number(const char *s)
{
    if (!s)
        return 0;
    size_t n = strspn(s, "0123456789");
    return n > 0 && n <= 20 && s[n] == 0;
}

/* Whether s is a decimal number from low to high: what the run file's reader accepts for the
   field the part's header gives (a Thread number is 32 bits, a Frequency is not 0). */
static int is_number_in(const char *s, uint64_t low, uint64_t high)
{
    if (!is_number(s))
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    return errno == 0 && v >= low && v <= high;
}

/*
 * Walk the NUL-separated key/value pairs of a header or warning payload:
 * returns the value of key, or NULL.
 */
static const char *kv_get(const unsigned char *p, size_t len, const char *key)
{
    size_t off = 0;
    while (off < len) {
        const char *k = (const char *)p + off;
        size_t kl = strnlen(k, len - off);
        if (off + kl + 1 >= len)
            return NULL;
        const char *v = k + kl + 1;
        size_t vl = strnlen(v, len - off - kl - 1);
        if (off + kl + 1 + vl >= len)
            return NULL;
        if (strcmp(k, key) == 0)
            return v;
        off += kl + vl + 2;
    }
    return NULL;
}

static char *kv_dup(const unsigned char *p, size_t len, const char *key)
{
    const char *v = kv_get(p, len, key);
    return v ? dup_n(v, strlen(v)) : NULL;
}

/* Take the run-level metadata from header pairs. */
static void meta_from(struct meta *m, const unsigned char *p, size_t len)
{
    m->format = kv_dup(p, len, "Format");
    m->frequency = kv_dup(p, len, "Frequency");
    m->mode = kv_dup(p, len, "Mode");
    m->program = kv_dup(p, len, "Program");
    m->command = kv_dup(p, len, "Command");
    m->pid = kv_dup(p, len, "Pid");
    m->ppid = kv_dup(p, len, "ParentPid");
    m->host = kv_dup(p, len, "Host");
    m->start = kv_dup(p, len, "Start");
    m->clock = kv_dup(p, len, "Clock");
}

static void meta_release(struct meta *m)
{
    char **f[] = {&m->frequency, &m->mode, &m->program, &m->command, &m->pid,
                  &m->ppid,      &m->host, &m->start,   &m->clock,   &m->format};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        free(*f[i]);
        *f[i] = NULL;
    }
}

static void info_release(struct part_info *pi)
{
    free(pi->number);
    free(pi->tid);
    free(pi->name);
    free(pi->state);
    for (size_t i = 0; i < pi->nnames; i++)
        free(pi->unterminated_names[i]);
    prof_sbuf_release(&pi->warnings);
    memset(pi, 0, sizeof *pi);
}

/* Append one CSV field from a NUL-terminated string (NULL writes an empty field). */
static void field(struct prof_sbuf *b, const char *s)
{
    if (s)
        prof_sbuf_field(b, s, strlen(s));
}

/* Row callback, pass two: one events-table record, formatted straight into the buffer. */
static void write_row(void *ctx, const struct prof_row *row)
{
    struct writer *w = ctx;
    struct prof_sbuf *b = &w->buf;
    const struct ids *ids = w->ids;
    size_t idl = ids->csv_len[row->id], pl = row->depth > 0 ? ids->csv_len[row->parent] : 0;
    char *p = prof_sbuf_grow(b, idl + pl + w->thread_len + 4 * 20 + 16);
    if (!p)
        return;
    memcpy(p, ids->csv[row->id], idl);
    p += idl;
    *p++ = ',';
    if (row->stopped)
        p = prof_u64_put(p, row->ticks);
    *p++ = ',';
    memcpy(p, w->thread, w->thread_len);
    p += w->thread_len;
    *p++ = ',';
    memcpy(p, ids->csv[row->parent], pl);
    p += pl;
    *p++ = ',';
    p = prof_u64_put(p, row->depth);
    *p++ = ',';
    if (row->stopped)
        p = prof_u64_put(p, row->self);
    *p++ = ',';
    p = prof_u64_put(p, row->start);
    memcpy(p, row->nested ? ",1\n" : ",0\n", 3);
    b->len = (size_t)(p + 3 - b->data);
    if (b->len >= 1u << 16) {
        fwrite(b->data, 1, b->len, w->out);
        b->len = 0;
    }
}

/* Row callback, pass one: remember the names of regions that never stopped. */
static void note_row(void *ctx, const struct prof_row *row)
{
    struct writer *w = ctx;
    struct part_info *pi = w->info;
    if (row->stopped || pi->nnames == UNTERMINATED_NAMES)
        return;
    char *s = dup_n(w->ids->s[row->id], w->ids->len[row->id]);
    if (s)
        pi->unterminated_names[pi->nnames++] = s;
}

/* Pass two: a PRFM chunk as region-bytes rows, one per region text (FORMAT.md 1.5 and 3). */
static enum prof_error memory_rows(struct writer *w, const struct ids *ids, const unsigned char *p,
                                   size_t len)
{
    enum { REC = 20 };
    if (len % REC != 0)
        return PROF_ERR_FORMAT;
    size_t n = len / REC;
    /* Ids with the same text are one region: add their counts into the first such record. */
    uint64_t *sum = calloc(n ? 2 * n : 1, sizeof *sum);
    uint32_t *key = calloc(n ? n : 1, sizeof *key);
    enum prof_error err = sum && key ? PROF_OK : PROF_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n && err == PROF_OK; i++) {
        uint32_t idx;
        uint64_t count, bytes;
        memcpy(&idx, p + i * REC, 4);
        memcpy(&count, p + i * REC + 4, 8);
        memcpy(&bytes, p + i * REC + 12, 8);
        if (idx != UINT32_MAX && idx >= ids->n) {
            err = PROF_ERR_FORMAT;
            break;
        }
        uint32_t c = idx == UINT32_MAX ? idx : ids->canon[idx];
        size_t j = 0;
        while (j < k && key[j] != c)
            j++;
        if (j == k)
            key[k++] = c;
        sum[2 * j] += count;
        sum[2 * j + 1] += bytes;
    }
    for (size_t j = 0; j < k && err == PROF_OK; j++) {
        prof_sbuf_str(&w->mem, "region-bytes,");
        prof_sbuf_add(&w->mem, w->thread, w->thread_len);
        prof_sbuf_char(&w->mem, ',');
        if (key[j] != UINT32_MAX)
            prof_sbuf_add(&w->mem, ids->csv[key[j]], ids->csv_len[key[j]]);
        prof_sbuf_str(&w->mem, ",,");
        prof_sbuf_u64(&w->mem, sum[2 * j]);
        prof_sbuf_char(&w->mem, ',');
        prof_sbuf_u64(&w->mem, sum[2 * j + 1]);
        prof_sbuf_str(&w->mem, ",,,,\n");
    }
    free(sum);
    free(key);
    return err;
}

/*
 * Read one part. Pass one (m and pi set) fills the metadata and part info; pass two (w->out
 * set) writes its rows. A damaged part is read up to the damage.
 */
static enum prof_error read_part(const char *path, struct meta *m, struct part_info *pi,
                                 struct writer *w)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return PROF_ERR_IO;
    struct prof_part_reader rd = {f, NULL, 0, 0};
    struct ids ids = {0};
    struct prof_replay rp;
    enum prof_error err = PROF_OK;
    w->ids = &ids;
    prof_replay_init(&rp, pi ? note_row : write_row, w);

    uint32_t type;
    const unsigned char *p;
    size_t len;
    int first = 1, r, summary_final = 0;
    char *thread = NULL;
    struct prof_sbuf snapshot = {0}; /* the last PRFP chunk: used when no PRFS follows */
    while ((r = prof_part_next(&rd, &type, &p, &len)) == 1) {
        if (first) {
            const char *fmt = kv_get(p, len, "Format");
            if (type != PROF_CHUNK_HEADER || !fmt || strcmp(fmt, "profreport-part,1") != 0 ||
                !is_number_in(kv_get(p, len, "Thread"), 0, UINT32_MAX) ||
                !is_number_in(kv_get(p, len, "Frequency"), 1, UINT64_MAX)) {
                err = PROF_ERR_FORMAT;
                break;
            }
            first = 0;
            if (m && !m->format)
                meta_from(m, p, len);
            if (pi) {
                pi->number = kv_dup(p, len, "Thread");
                pi->tid = kv_dup(p, len, "Tid");
                pi->name = kv_dup(p, len, "Name");
            } else {
                const char *n = kv_get(p, len, "Thread");
                thread = dup_n(n, strlen(n));
                if (!thread) {
                    err = PROF_ERR_NOMEM;
                    break;
                }
                w->thread = thread;
                w->thread_len = strlen(thread);
            }
            continue;
        }
        if (type == PROF_CHUNK_IDS) {
            err = ids_add(&ids, p, len);
            rp.nids = ids.n;
            rp.canon = ids.canon;
        } else if (type == PROF_CHUNK_EVENTS) {
            if (len % 4 != 0)
                err = PROF_ERR_FORMAT;
            else
                err = prof_replay_words(&rp, (const uint32_t *)(const void *)p, len / 4);
        } else if (type == PROF_CHUNK_LOCATIONS && pi && w->functions) {
            err = locations_add(w->functions, &ids, p, len);
        } else if (type == PROF_CHUNK_NAME && pi) {
            free(pi->name);
            pi->name = dup_n((const char *)p, strnlen((const char *)p, len));
        } else if (type == PROF_CHUNK_WARNING && pi) {
            const char *kind = kv_get(p, len, "kind"), *count = kv_get(p, len, "count");
            const char *msg = kv_get(p, len, "message");
            if (kind && count) {
                prof_sbuf_str(&pi->warnings, "Warning,");
                field(&pi->warnings, kind);
                prof_sbuf_char(&pi->warnings, ',');
                field(&pi->warnings, pi->number);
                prof_sbuf_char(&pi->warnings, ',');
                field(&pi->warnings, count);
                prof_sbuf_char(&pi->warnings, ',');
                field(&pi->warnings, msg);
                prof_sbuf_char(&pi->warnings, '\n');
            }
        } else if (type == PROF_CHUNK_MEMORY && !pi) {
            err = memory_rows(w, &ids, p, len);
        } else if (type == PROF_CHUNK_SUMMARY && !pi) {
            prof_sbuf_add(&w->buf, (const char *)p, len);
            summary_final = 1;
        } else if (type == PROF_CHUNK_SNAPSHOT && !pi) {
            snapshot.len = 0; /* each snapshot holds every row so far */
            prof_sbuf_add(&snapshot, (const char *)p, len);
            if (snapshot.failed)
                err = PROF_ERR_NOMEM;
        } else if (type == PROF_CHUNK_END && pi) {
            free(pi->state);
            pi->state = dup_n((const char *)p, strnlen((const char *)p, len));
        }
        if (err != PROF_OK)
            break;
    }
    if (first && err == PROF_OK)
        err = PROF_ERR_FORMAT; /* empty file: not even a header */
    if (r < 0)
        err = PROF_ERR_IO;
    if (pi && (rd.truncated || (err != PROF_OK && !first)))
        pi->damaged = 1;
    /* Damage after a valid header loses the rest of the part, not the run. */
    if (!first && (err == PROF_ERR_FORMAT || err == PROF_ERR_IO))
        err = PROF_OK;
    if (err == PROF_OK) {
        prof_replay_finish(&rp);
        if (pi) {
            pi->stray = rp.stray;
            pi->unterminated = rp.unterminated;
            pi->clock = rp.clock;
        }
    }
    if (!pi && !summary_final && snapshot.len)
        prof_sbuf_add(&w->buf, snapshot.data, snapshot.len);
    prof_sbuf_release(&snapshot);
    if (!pi && w->buf.len && !w->buf.failed) {
        fwrite(w->buf.data, 1, w->buf.len, w->out);
        w->buf.len = 0;
    }
    free(thread);
    w->thread = NULL;
    prof_replay_release(&rp);
    ids_release(&ids);
    prof_part_reader_release(&rd);
    fclose(f);
    return err;
}

/* One metadata record "Key,value" with value as a CSV field. */
static void meta_line(struct prof_sbuf *b, const char *key, const char *value)
{
    if (!value)
        return;
    prof_sbuf_str(b, key);
    prof_sbuf_char(b, ',');
    field(b, value);
    prof_sbuf_char(b, '\n');
}

/* The Warning records pass one found for part pi, after those the collector wrote. */
static void part_warnings(struct prof_sbuf *b, const struct part_info *pi)
{
    prof_sbuf_add(b, pi->warnings.data, pi->warnings.len);
    if (pi->unterminated) {
        struct prof_sbuf msg = {0};
        prof_sbuf_str(&msg,
                      pi->unterminated == 1 ? "region never stopped: " : "regions never stopped: ");
        for (size_t i = 0; i < pi->nnames; i++) {
            if (i)
                prof_sbuf_str(&msg, ", ");
            prof_sbuf_str(&msg, pi->unterminated_names[i]);
        }
        if (pi->unterminated > pi->nnames)
            prof_sbuf_str(&msg, ", ...");
        prof_sbuf_char(&msg, 0);
        prof_sbuf_str(b, "Warning,unterminated,");
        field(b, pi->number);
        prof_sbuf_char(b, ',');
        prof_sbuf_u64(b, pi->unterminated);
        prof_sbuf_char(b, ',');
        if (!msg.failed)
            field(b, msg.data);
        prof_sbuf_char(b, '\n');
        prof_sbuf_release(&msg);
    }
    if (pi->stray) {
        prof_sbuf_str(b, "Warning,stray-stop,");
        field(b, pi->number);
        prof_sbuf_char(b, ',');
        prof_sbuf_u64(b, pi->stray);
        prof_sbuf_str(b, ",a stop with no region open\n");
    }
    if (!pi->state || pi->damaged) {
        prof_sbuf_str(b, "Warning,incomplete,");
        field(b, pi->number);
        prof_sbuf_str(b,
                      ",1,the thread's data ends early (the run was killed or a write failed)\n");
    }
}

/* A part's thread number (checked to be a decimal number of 32 bits), or UINT64_MAX for none. */
static uint64_t thread_number(const struct part_info *p)
{
    return p->number ? strtoull(p->number, NULL, 10) : UINT64_MAX;
}

/* Whether part a's thread number is smaller than b's. */
static int thread_before(const struct part_info *a, const struct part_info *b)
{
    return thread_number(a) < thread_number(b);
}

/* Merge the parts into a run file written to out. */
enum prof_error prof_assemble(const char *const *paths, size_t count, FILE *out,
                              const struct prof_run_override *ov)
{
    if ((!paths && count) || !out)
        return PROF_ERR_ARGUMENT;
    struct meta m = {0};
    size_t *order = NULL;
    struct part_info *info = calloc(count ? count : 1, sizeof *info);
    if (!info)
        return PROF_ERR_NOMEM;
    enum prof_error err = PROF_OK;
    struct writer w = {0};
    struct functions fs = {0};
    w.out = out;
    w.functions = &fs;
    if (ov && ov->header)
        meta_from(&m, (const unsigned char *)ov->header, ov->header_len);

    /* Pass one. A part that cannot be read at all spoils a recovery only if it is the only one. */
    size_t usable = 0;
    for (size_t i = 0; i < count; i++) {
        w.info = &info[i];
        enum prof_error e = read_part(paths[i], &m, &info[i], &w);
        if (e == PROF_ERR_NOMEM) {
            err = e;
            goto done;
        }
        if (e != PROF_OK) {
            info_release(&info[i]);
            info[i].damaged = -1; /* skipped */
        } else {
            usable++;
        }
    }
    if (count > 0 && usable == 0) {
        err = PROF_ERR_FORMAT;
        goto done;
    }

    /* Threads in the order of their numbers, whatever order the paths came in. */
    order = malloc((count ? count : 1) * sizeof *order);
    if (!order) {
        err = PROF_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < count; i++)
        order[i] = i;
    for (size_t i = 1; i < count; i++) /* insertion sort: few threads, usually in order */
        for (size_t j = i; j > 0 && thread_before(&info[order[j]], &info[order[j - 1]]); j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }

    /* Two parts of one thread number cannot come from one run (a folder of mixed or damaged
       files): the first is kept, and the run file's reader is not given two threads 2. */
    for (size_t k = 1, last = SIZE_MAX; k < count; k++) {
        if (info[order[k - 1]].damaged >= 0)
            last = order[k - 1];
        struct part_info *pi = &info[order[k]];
        if (pi->damaged >= 0 && last != SIZE_MAX &&
            thread_number(pi) == thread_number(&info[last])) {
            info_release(pi);
            pi->damaged = -1;
            usable--;
        }
    }

    int complete = ov ? ov->complete : 1;
    uint64_t duration = 0;
    for (size_t i = 0; i < count; i++) {
        if (info[i].damaged < 0)
            continue;
        if (!info[i].state || info[i].damaged)
            complete = 0;
        if (info[i].clock > duration)
            duration = info[i].clock;
    }
    if (ov && ov->duration > duration)
        duration = ov->duration;

    struct prof_sbuf *b = &w.buf;
    prof_sbuf_str(b, "Frequency,");
    if (ov && ov->frequency)
        prof_sbuf_u64(b, ov->frequency);
    else
        prof_sbuf_str(b, m.frequency ? m.frequency : "1000000000");
    prof_sbuf_str(b, "\nFormat,profreport-run,2\n");
    int summary = m.mode && strcmp(m.mode, "summary") == 0;
    prof_sbuf_str(b, summary ? "Mode,summary\n" : "Mode,events\n");
    meta_line(b, "Program", m.program);
    meta_line(b, "Command", m.command);
    meta_line(b, "Pid", m.pid);
    meta_line(b, "ParentPid", m.ppid);
    meta_line(b, "Host", m.host);
    meta_line(b, "Start", m.start);
    meta_line(b, "Clock", m.clock);
    prof_sbuf_str(b, "Duration,");
    prof_sbuf_u64(b, duration);
    prof_sbuf_str(b, complete ? "\nComplete,yes\n" : "\nComplete,no\n");
    prof_sbuf_str(b, "Threads,");
    prof_sbuf_u64(b, usable);
    prof_sbuf_char(b, '\n');
    for (size_t k = 0; k < count; k++) {
        struct part_info *pi = &info[order[k]];
        if (pi->damaged < 0)
            continue;
        prof_sbuf_str(b, "Thread,");
        field(b, pi->number);
        prof_sbuf_char(b, ',');
        field(b, pi->tid);
        prof_sbuf_char(b, ',');
        field(b, pi->name);
        prof_sbuf_char(b, ',');
        prof_sbuf_str(b, pi->damaged || !pi->state ? "incomplete" : pi->state);
        prof_sbuf_char(b, '\n');
    }
    for (size_t k = 0; k < count; k++)
        if (info[order[k]].damaged >= 0)
            part_warnings(b, &info[order[k]]);
    prof_sbuf_add(b, fs.records.data, fs.records.len);
    if (fs.records.failed)
        b->failed = 1;
    prof_sbuf_str(b, summary ? "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram\n"
                             : "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n");
    if (b->failed) {
        err = PROF_ERR_NOMEM;
        goto done;
    }
    fwrite(b->data, 1, b->len, out);
    b->len = 0;

    /* Pass two. */
    w.info = NULL;
    for (size_t k = 0; k < count && err == PROF_OK; k++) {
        if (info[order[k]].damaged < 0)
            continue;
        err = read_part(paths[order[k]], NULL, NULL, &w);
        if (w.buf.failed)
            err = PROF_ERR_NOMEM;
    }
    /* The memory section: the run's findings, then each thread's bytes per region. */
    if (err == PROF_OK && w.mem.failed)
        err = PROF_ERR_NOMEM;
    if (err == PROF_OK && ((ov && ov->memory_len) || w.mem.len)) {
        fputs("Table,memory\nKind,Thread,Region,Site,Count,Bytes,AllocKind,FreeKind,"
              "OtherThread,OtherSite\n",
              out);
        if (ov && ov->memory_len)
            fwrite(ov->memory, 1, ov->memory_len, out);
        fwrite(w.mem.data, 1, w.mem.len, out);
    }
    if (err == PROF_OK && (fflush(out) != 0 || ferror(out)))
        err = PROF_ERR_IO;

done:
    free(order);
    for (size_t i = 0; i < count; i++)
        info_release(&info[i]);
    free(info);
    meta_release(&m);
    functions_release(&fs);
    prof_sbuf_release(&w.buf);
    prof_sbuf_release(&w.mem);
    return err;
}

/* Recover a killed run's parts into one run file marked incomplete. */
enum prof_error prof_recover(const char *const *paths, size_t count, FILE *out)
{
    if (!paths || count == 0 || !out)
        return PROF_ERR_ARGUMENT;
    return prof_assemble(paths, count, out, NULL);
}
