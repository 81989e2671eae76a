/*
 * util.c - messages, allocation that cannot fail silently, UTF-8 repair and a growable string
 * buffer for the profreport command.
 */
#include "base/exitcode.h"
#include "base/util.h"

#include "hash.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int util_quiet;

/* Print "profreport: message" on stderr. */
static void vmessage(const char *fmt, va_list ap)
{
    fputs("profreport: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

/* Say what went wrong and stop with EXIT_INTERNAL (only die_nomem does: memory ran out). */
__attribute__((format(printf, 1, 2), noreturn)) static void die_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    exit(EXIT_INTERNAL);
}

/* Memory ran out: end the command. */
void die_nomem(const char *what)
{
    if (what)
        die_msg("out of memory: %s", what);
    die_msg("out of memory");
}

/* A warning on stderr, unless -q. */
void warn_msg(const char *fmt, ...)
{
    if (util_quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

/* Allocation failures end the command: it has no partial result worth keeping. */
void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die_nomem(NULL);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        die_nomem(NULL);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die_nomem(NULL);
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0 when it is not valid. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t len;
    unsigned cp;
    if ((s[0] & 0xe0) == 0xc0) {
        len = 2;
        cp = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        len = 3;
        cp = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* Overlong forms, surrogates and values past U+10FFFF are invalid too. */
    static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return len;
}

/* How text_clean treats what it copies. */
enum clean_mode {
    CLEAN_UTF8,    /* valid UTF-8: invalid bytes and NUL become U+FFFD */
    CLEAN_VISIBLE, /* and valid XML, controls as C escapes; tab, LF, CR kept */
    CLEAN_ONE_LINE /* the same, tab, LF and CR escaped too */
};

/* A copy of s[0..n) cleaned as mode says (see utf8_repair and text_visible in util.h). */
static char *text_clean(const char *s, size_t n, enum clean_mode mode)
{
    const unsigned char *u = (const unsigned char *)s;
    char *out = xmalloc(n * 4 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        size_t len = c ? utf8_sequence(u + i, n - i) : mode == CLEAN_UTF8 ? 0 : 1;
        int keep =
            mode == CLEAN_UTF8 ||
            (c == '\t' || c == '\n' || c == '\r' ? mode == CLEAN_VISIBLE : c >= 0x20 && c != 0x7f);
        if (len == 1 && !keep) {
            /* As C writes it. Not U+2400's control pictures: common fonts (DejaVu Sans) lack
               them, and gnuplot's fallback glyph covered half the chart. */
            static const char hex[] = "0123456789abcdef";
            out[o++] = '\\';
            if (c == '\t' || c == '\n' || c == '\r') {
                out[o++] = c == '\t' ? 't' : c == '\n' ? 'n' : 'r';
            } else {
                out[o++] = 'x';
                out[o++] = hex[c >> 4];
                out[o++] = hex[c & 15];
            }
            i++;
        } else if (len == 0 || (mode != CLEAN_UTF8 && len == 3 && c == 0xef && u[i + 1] == 0xbf &&
                                u[i + 2] >= 0xbe)) {
            /* an invalid byte; in XML also the noncharacters U+FFFE and U+FFFF */
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i += len ? len : 1;
        } else {
            memcpy(out + o, s + i, len);
            o += len;
            i += len;
        }
    }
    out[o] = 0;
    return out;
}

/* A copy of s[0..n) with nothing XML 1.0 refuses and no invisible control (see util.h). */
char *text_visible(const char *s, size_t n, int one_line)
{
    return text_clean(s, n, one_line ? CLEAN_ONE_LINE : CLEAN_VISIBLE);
}

/* The bytes a region id is shown as: REGION_EMPTY for the empty id, which would otherwise
   vanish (a folded line " 500", a callgrind "fn=" with no name). */
const char *region_text(const char *s, size_t n, size_t *len)
{
    if (n == 0) {
        *len = sizeof REGION_EMPTY - 1;
        return REGION_EMPTY;
    }
    *len = n;
    return s;
}

/* A region's display name: region_text, repaired to valid UTF-8. */
char *region_display(const char *s, size_t n)
{
    size_t len;
    const char *t = region_text(s, n, &len);
    return utf8_repair(t, len);
}

/* A copy of s[0..n) that is valid UTF-8: each invalid byte becomes U+FFFD; NUL bytes too. */
char *utf8_repair(const char *s, size_t n) { return text_clean(s, n, CLEAN_UTF8); }

/* The buffer's text, NUL-terminated; running out of memory while it grew ends the command. */
const char *sbuf_text(struct prof_sbuf *b)
{
    const char *t = prof_sbuf_cstr(b);
    if (!t)
        die_nomem(NULL);
    return t;
}

/* The buffer's text as a string of the caller's, the buffer left empty. */
char *sbuf_take(struct prof_sbuf *b)
{
    sbuf_text(b);
    char *t = b->data ? b->data : xstrdup("");
    memset(b, 0, sizeof *b);
    return t;
}

/* Bisection over an increasing array. */
size_t u32_lower_bound(const uint32_t *a, size_t n, uint32_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Make room for index i in a zero-filled array of *cap elements of size elem. */
void *xgrow_zeroed(void *arr, size_t *cap, size_t i, size_t elem)
{
    if (i < *cap)
        return arr;
    size_t n = *cap ? *cap : 64;
    while (n <= i)
        n *= 2;
    arr = xrealloc(arr, n * elem);
    memset((char *)arr + *cap * elem, 0, (n - *cap) * elem);
    *cap = n;
    return arr;
}

void *xgrow_doubling(void *arr, size_t n, size_t elem)
{
    if (n & (n - 1)) /* room up to the next power of two: made when n was the last one */
        return arr;
    return xrealloc(arr, (n ? 2 * n : 1) * elem);
}

/* The slot of s in x: its entry, or the empty slot where it would go. */
static size_t *str_slot(const struct str_index *x, char *const *v, const char *s)
{
    size_t h = (size_t)prof_hash_str(s) & x->mask;
    while (x->slot[h] && strcmp(v[x->slot[h] - 1], s) != 0)
        h = (h + 1) & x->mask;
    return &x->slot[h];
}

/* The position of s in v, or SIZE_MAX. */
size_t str_index_find(const struct str_index *x, char *const *v, const char *s)
{
    if (!x->slot)
        return SIZE_MAX;
    size_t e = *str_slot(x, v, s);
    return e ? e - 1 : SIZE_MAX;
}

/* Enter v[x->n]; the table doubles at half full. */
void str_index_add(struct str_index *x, char *const *v)
{
    if ((x->n + 1) * 2 > (x->slot ? x->mask + 1 : 0)) {
        size_t size = x->slot ? (x->mask + 1) * 2 : 64;
        free(x->slot);
        x->slot = xcalloc(size, sizeof *x->slot);
        x->mask = size - 1;
        /* In the order they were added: what str_index_drop_last relies on. */
        for (size_t i = 0; i < x->n; i++)
            *str_slot(x, v, v[i]) = i + 1;
    }
    *str_slot(x, v, v[x->n]) = x->n + 1;
    x->n++;
}

/* Take v[x->n - 1] out. Clearing its slot is enough: every entry still in was placed before
   it, when its slot was empty, so no other entry's probe passes over that slot. */
void str_index_drop_last(struct str_index *x, char *const *v)
{
    if (!x->n)
        return;
    size_t *e = str_slot(x, v, v[x->n - 1]);
    if (*e == x->n)
        *e = 0;
    x->n--;
}

/* Free the index. */
void str_index_release(struct str_index *x)
{
    free(x->slot);
    memset(x, 0, sizeof *x);
}

/* Hash of a region id: 8 bytes at a time (this runs once per row of input). */
uint64_t id_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    /* The last n - i bytes: a load of the id's last 8 bytes shifted so that only they remain
       (a copy of a variable length is a call to memcpy), or byte by byte for short ids. */
    uint64_t w = 0;
    size_t r = n - i;
    if (r && n >= 8) {
        memcpy(&w, s + n - 8, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        w >>= 8 * (8 - r);
#else
        w <<= 8 * (8 - r);
#endif
    } else {
        for (size_t k = 0; k < r; k++)
            w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
    }
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    /* A multiply's low bits depend only on its operands' low bits, and the table is indexed
       by the low bits: one more xor-shift and multiply spreads every byte over them (ids like
       "render::region_017" took 3 probes a row without it, 1.2 with it). */
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}
