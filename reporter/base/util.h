/*
 * util.h - util.c: messages, allocation that ends the command when memory runs out, text
 * repair for display, the growable string buffer.
 *
 * Ownership: every char * returned here is a fresh copy the caller frees; a struct prof_sbuf
 * (common/strbuf.h) owns its text and prof_sbuf_release frees it.
 */
#ifndef PROFREPORT_UTIL_H
#define PROFREPORT_UTIL_H

#include "strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * "profreport: out of memory" (and ": " + what, when what is not NULL) on stderr, then exit
 * with EXIT_INTERNAL: the reporter's one way out when memory runs out, the one failure that is
 * not an error value (rep_error.h says why). For xmalloc and its kin, and for what allocates
 * out of their sight: libcsv's parser, a locale, a stream, the call-path tree's index space.
 */
void die_nomem(const char *what) __attribute__((noreturn));
/* A warning: "profreport: " + message on stderr, unless util_quiet (-q). */
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int util_quiet;

/* malloc/realloc/strdup that end the program with EXIT_INTERNAL when memory runs out. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* arr grown (doubling, new elements zeroed) so that index i fits; *cap is updated. */
void *xgrow_zeroed(void *arr, size_t *cap, size_t i, size_t elem);
/* arr with room for its element n, for an array grown only by this as each element is added
   (n: the count so far): doubled when n is 0 or a power of two, else as it was. */
void *xgrow_doubling(void *arr, size_t n, size_t elem);
/* The first place in the increasing a[0..n) whose value is not below key (n: none). */
size_t u32_lower_bound(const uint32_t *a, size_t n, uint32_t key);

/* The hash of region id s[0..n) for open addressing over its low bits (its high bits are as
   good): the model's region table and the batch recorder's id numbers (batch.h). Ids are then
   told apart by their bytes. */
uint64_t id_hash(const char *s, size_t n);

/* Whether ids a[0..n) and b[0..n) hold the same bytes: words compared in line (a call to
   memcmp costs more than the comparison for ids of a few words), as this runs for every row. */
static inline int id_same(const char *a, const char *b, size_t n)
{
    uint64_t x, y;
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            if (a[i] != b[i])
                return 0;
        return 1;
    }
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return 0;
    }
    /* The last 8 bytes, overlapping the words before when n is not a multiple of 8. */
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return x == y;
}

/*
 * An index over the strings v[0..n) of an array the caller keeps: a string's place is found in
 * time independent of n, where a scan along v makes a loop over many names (thread names,
 * compact targets, killed runs) quadratic. The index holds positions only: the strings stay
 * the caller's, and v may move between calls as long as v[0..n) are the strings entered.
 */
struct str_index {
    size_t *slot; /* open addressing: position + 1, 0 = empty; mask + 1 slots */
    size_t mask, n;
};
/* The position of s in v[0..x->n), or SIZE_MAX. */
size_t str_index_find(const struct str_index *x, char *const *v, const char *s);
/* Enter v[x->n], whose text is not in v[0..x->n) (checked with str_index_find first). */
void str_index_add(struct str_index *x, char *const *v);
/* Take v[x->n - 1], the entry added last, out again. */
void str_index_drop_last(struct str_index *x, char *const *v);
/* Free the index (not the strings). */
void str_index_release(struct str_index *x);

/* A copy of s[0..n) that is valid UTF-8: each invalid byte becomes U+FFFD. */
char *utf8_repair(const char *s, size_t n);

/*
 * A copy of s[0..n) fit to be shown anywhere text is displayed (workbook cells, charts,
 * document properties, gnuplot's SVG and PNG, the terminal, folded stacks and callgrind
 * names): valid UTF-8 that is also valid XML 1.0 text. Invalid bytes become U+FFFD; control
 * characters are written as C escapes (U+0001 -> \x01, ESC -> \x1b, DEL -> \x7f, tab -> \t,
 * line feed -> \n, carriage return -> \r), visible in any font, so different ids stay
 * different; the noncharacters U+FFFE and U+FFFF become U+FFFD. Tab, line feed and carriage
 * return are kept as they are unless one_line is set.
 */
char *text_visible(const char *s, size_t n, int one_line);

/*
 * How a region id is shown everywhere (workbook, terminal, charts, exports): the id itself,
 * or REGION_EMPTY for the empty id. The empty id stays a region of its own, apart from one
 * really named "(empty)" (regions are told apart by their bytes, not by how they are shown).
 * region_text gives the bytes to show (*len of them); region_display a repaired copy.
 */
#define REGION_EMPTY "(empty)"
const char *region_text(const char *s, size_t n, size_t *len);
char *region_display(const char *s, size_t n);

/*
 * The text of a string buffer (common/strbuf.h), NUL-terminated, valid until the next append.
 * A buffer that failed because memory ran out ends the command (rep_error.h's one exception).
 */
const char *sbuf_text(struct prof_sbuf *b);
/* The same text as a string the caller frees; the buffer is left empty. */
char *sbuf_take(struct prof_sbuf *b);

#endif /* PROFREPORT_UTIL_H */
