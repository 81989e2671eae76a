/*
 * test_symbols.c - unit tests of symbols.c's fast paths: for every function symbol of real
 * modules (this program, libc) the name its address index gives is the one libdwfl's own
 * dwfl_module_addrinfo gives, and the declaration its units' lists give is the one
 * dwarf_getscopes finds, read here through a libdwfl session of the test's own.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

/* Several symbols at one address, the case where libdwfl's preferences decide. */
int alias_target(int x);
__attribute__((noinline)) int alias_target(int x) { return x * 3 + 2; }
int alias_global(int x) __attribute__((alias("alias_target")));
int alias_weak(int x) __attribute__((weak, alias("alias_target")));
/* Two global names of one size, as a C++ constructor's C1 and C2: libdwfl keeps the first. */
int pair_first(int x);
__attribute__((noinline)) int pair_first(int x) { return x * 11 + 4; }
int pair_second(int x) __attribute__((alias("pair_first")));
static __attribute__((noinline, used)) int local_target(int x) { return x * 5 - 1; }
int local_weak(int x) __attribute__((weak, alias("local_target")));

#if defined(__x86_64__)
/* A local function inside a global one's range: libdwfl names its address after the global
   symbol, which it searches first and which covers it. */
__asm__(".text\n"
        ".globl covering_outer\n"
        ".type covering_outer, @function\n"
        "covering_outer:\n"
        "nop\n"
        ".type covered_inner, @function\n"
        "covered_inner:\n"
        "ret\n"
        ".size covered_inner, .-covered_inner\n"
        ".size covering_outer, .-covering_outer\n");
void covering_outer(void);
extern __attribute__((visibility("hidden"))) char covered_inner[];
#define HAS_COVERED 1
#endif

/* A function whose rare path gcc moves to .text.unlikely (split_in_two.cold: a path that
   calls a cold function): its code lies in two ranges. */
__attribute__((cold, noinline)) static void rarely(int x) { fprintf(stderr, "rarely: %d\n", x); }
int split_in_two(int x);
enum { SPLIT_LINE = __LINE__ + 1 }; /* split_in_two's line */
__attribute__((noinline)) int split_in_two(int x)
{
    int r = x * 7 + 1;
    if (x == 123456789) {
        rarely(x);
        r += x * 3;
        rarely(r);
    }
    return r;
}

/* A GNU C nested function: its entry in the DWARF is inside another function's. */
int with_nested(int x);
__attribute__((noinline)) int with_nested(int x)
{
    __attribute__((noinline)) int nested(int y) { return y * y + x; }
    return nested(x + 1) - 3;
}

/* What a module's comparison found. */
struct agreement {
    int functions; /* function symbols compared */
    int fast;      /* of them, named by the fast path */
    int shared;    /* addresses where more than one symbol starts */
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_build_id_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* A libdwfl session of the test's own holding the module at path loaded at bias. */
static Dwfl_Module *open_module(const char *path, uintptr_t bias, Dwfl **dwfl)
{
    *dwfl = dwfl_begin(&callbacks);
    assert_non_null(*dwfl);
    dwfl_report_begin(*dwfl);
    Dwfl_Module *m = dwfl_report_elf(*dwfl, path, path, -1, bias, true);
    dwfl_report_end(*dwfl, NULL, NULL);
    assert_non_null(m);
    return m;
}

/* Whether libdwfl's address search would consider this symbol (as symbols.c's index does). */
static int considered(const char *name, const GElf_Sym *sym)
{
    int type = GELF_ST_TYPE(sym->st_info);
    return name && name[0] && sym->st_shndx != SHN_UNDEF && type != STT_SECTION &&
           type != STT_FILE && type != STT_TLS;
}

/* qsort and bsearch order of addresses. */
static int addr_cmp(const void *a, const void *b)
{
    GElf_Addr x = *(const GElf_Addr *)a, y = *(const GElf_Addr *)b;
    return x < y ? -1 : x > y;
}

/*
 * Compare, for every function symbol of the module at path loaded at bias, the fast path's
 * name for its address with dwfl_module_addrinfo's in a libdwfl session of our own.
 */
static struct agreement compare_module(struct prof_symbolizer *s, const char *path, uintptr_t bias)
{
    struct agreement got = {0, 0, 0};
    Dwfl *dwfl;
    Dwfl_Module *m = open_module(path, bias, &dwfl);
    int n = dwfl_module_getsymtab(m);
    assert_true(n > 1);
    /* The addresses of all the symbols libdwfl considers, sorted, to count those sharing one. */
    GElf_Addr *starts = malloc((size_t)n * sizeof *starts);
    assert_non_null(starts);
    size_t nstarts = 0;
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);
        if (considered(name, &sym))
            starts[nstarts++] = addr;
    }
    qsort(starts, nstarts, sizeof *starts, addr_cmp);
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);
        if (!considered(name, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
            continue;
        GElf_Off off;
        GElf_Sym found;
        const char *expected = dwfl_module_addrinfo(m, addr, &off, &found, NULL, NULL, NULL);
        const char *fast = prof_sym_fast_name(s, (const void *)(uintptr_t)addr);
        GElf_Addr *at = bsearch(&addr, starts, nstarts, sizeof *starts, addr_cmp);
        assert_non_null(at);
        int shared =
            (at > starts && at[-1] == addr) || (at + 1 < starts + nstarts && at[1] == addr);
        got.functions++;
        got.shared += shared;
        if (!fast)
            continue;
        got.fast++;
        assert_non_null(expected);
        if (strcmp(fast, expected) != 0)
            fail_msg("%s: 0x%llx is '%s' by the fast path, '%s' by libdwfl", path,
                     (unsigned long long)addr, fast, expected);
    }
    free(starts);
    dwfl_end(dwfl);
    return got;
}

/* The path and load bias of the module holding fn. */
static void module_of(const void *fn, char *path, size_t size, uintptr_t *bias)
{
    Dl_info info;
    struct link_map *lm = NULL;
    assert_true(dladdr1(fn, &info, (void **)&lm, RTLD_DL_LINKMAP) != 0);
    assert_non_null(lm);
    *bias = lm->l_addr;
    if (lm->l_name && lm->l_name[0]) {
        snprintf(path, size, "%s", lm->l_name);
        return;
    }
    ssize_t n = readlink("/proc/self/exe", path, size - 1);
    assert_true(n > 0);
    path[n] = 0;
}

/* What a comparison of declarations found. */
struct declarations {
    int entries;    /* function entries compared */
    int fast;       /* of them, answered by the fast path */
    int inlined;    /* addresses where an inlined call starts */
    int inlined_to; /* of them, left to libdw */
};

/* The declaration dwarf_getscopes gives pc: the innermost function scope that has one. */
static int declared_by_libdw(Dwfl_Module *m, Dwarf_Addr pc, const char **file, int *line)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(m, pc, &bias);
    if (!cu)
        return 0;
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(cu, pc - bias, &scopes), found = 0;
    for (int i = 0; i < n && !found; i++) {
        if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
            continue;
        *file = dwarf_decl_file(&scopes[i]);
        found = *file && dwarf_decl_line(&scopes[i], line) == 0;
    }
    free(scopes);
    return found;
}

/* What declared_by_getfuncs looks for, and what it found. */
struct entry_search {
    Dwarf_Addr pc; /* in the unit's own addresses */
    const char *file;
    int line, found;
};

/* dwarf_getfuncs callback: stop at the function one of whose address ranges starts at pc. */
static int entry_at(Dwarf_Die *fn, void *arg)
{
    struct entry_search *e = arg;
    Dwarf_Addr base, lo, hi;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0;)
        if (lo == e->pc) {
            e->file = dwarf_decl_file(fn);
            e->found = e->file && dwarf_decl_line(fn, &e->line) == 0;
            return DWARF_CB_ABORT;
        }
    return DWARF_CB_OK;
}

/* The declaration of the function whose code starts at pc, by another road through libdw:
   every unit's function definitions (dwarf_getfuncs) and their address ranges. elfutils
   0.188's dwarf_getscopes finds no scope at the entry of some functions whose code lies in
   several ranges (seen under ASan: prof_file_create, its entry at one range's start). */
static int declared_by_getfuncs(Dwfl_Module *m, Dwarf_Addr pc, const char **file, int *line)
{
    Dwarf_Addr bias = 0;
    for (Dwarf_Die *cu = NULL; (cu = dwfl_module_nextcu(m, cu, &bias)) != NULL;) {
        struct entry_search e = {pc - bias, NULL, 0, 0};
        dwarf_getfuncs(cu, entry_at, &e, 0);
        if (e.found) {
            *file = e.file;
            *line = e.line;
            return 1;
        }
    }
    return 0;
}

/* Compare the fast path with libdw at pc: fail on a difference; 1 when the fast path answered. */
static int compare_declaration(struct prof_symbolizer *s, Dwfl_Module *m, Dwarf_Addr pc)
{
    const char *want = NULL, *got = NULL;
    int want_line = 0, got_line = 0;
    int expected = declared_by_libdw(m, pc, &want, &want_line);
    int fast = prof_sym_fast_decl(s, (const void *)(uintptr_t)pc, &got, &got_line);
    if (fast < 0)
        return 0;
    if (fast != expected || (fast && (strcmp(got, want) != 0 || got_line != want_line)))
        fail_msg("0x%llx is declared at %s:%d by the fast path, at %s:%d by libdw",
                 (unsigned long long)pc, fast ? got : "-", got_line, expected ? want : "-",
                 want_line);
    return 1;
}

/* Compare at the start (and one byte in) of every function, inlined call and block below die. */
static void compare_below(struct prof_symbolizer *s, Dwfl_Module *m, Dwarf_Die *die,
                          Dwarf_Addr bias, struct declarations *got)
{
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0)
        return;
    do {
        int tag = dwarf_tag(&child);
        Dwarf_Addr low;
        if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
             tag == DW_TAG_lexical_block) &&
            dwarf_lowpc(&child, &low) == 0) {
            int fast = compare_declaration(s, m, low + bias);
            compare_declaration(s, m, low + bias + 1);
            if (tag == DW_TAG_subprogram) {
                got->entries++;
                got->fast += fast;
            } else if (tag == DW_TAG_inlined_subroutine) {
                got->inlined++;
                got->inlined_to += !fast;
            }
        }
        compare_below(s, m, &child, bias, got);
    } while (dwarf_siblingof(&child, &child) == 0);
}

/* At the start and one byte into every function, inlined call and block of this program, the
   units' lists of entries say what dwarf_getscopes says, or leave the address to it; they
   answer for nearly every function. */
static void declarations_agree_with_libdw(void **state)
{
    (void)state;
    char path[4096];
    uintptr_t bias;
    module_of((const void *)alias_target, path, sizeof path, &bias);
    Dwfl *dwfl;
    Dwfl_Module *m = open_module(path, bias, &dwfl);
    struct prof_symbolizer *s = prof_sym_open();
    assert_non_null(s);
    struct declarations got = {0, 0, 0, 0};
    Dwarf_Die *cu = NULL;
    Dwarf_Addr cubias;
    while ((cu = dwfl_module_nextcu(m, cu, &cubias)) != NULL)
        compare_below(s, m, cu, cubias, &got);
    assert_true(got.entries > 20);
    assert_true(got.fast * 10 > got.entries * 9); /* the fast path answers nearly all */
    /* At an inlined call's start libdw's scopes come from its abstract definition. */
    assert_int_equal(got.inlined_to, got.inlined);
    prof_sym_close(s);
    dwfl_end(dwfl);
}

/* Every function of this program, its aliases included, is named as libdwfl names it. */
static void fast_path_agrees_on_this_program(void **state)
{
    (void)state;
    char path[4096];
    uintptr_t bias;
    module_of((const void *)alias_target, path, sizeof path, &bias);
    struct prof_symbolizer *s = prof_sym_open();
    assert_non_null(s);
    struct agreement got = compare_module(s, path, bias);
    assert_true(got.functions > 10);
    assert_true(got.fast * 2 > got.functions); /* the fast path does name most of them */
    assert_true(got.shared >= 6);              /* the aliases above */
    prof_sym_close(s);
}

/* Every function of libc, where aliases abound (malloc and __libc_malloc), too. */
static void fast_path_agrees_on_libc(void **state)
{
    (void)state;
    char path[4096];
    uintptr_t bias;
    module_of((const void *)getpid, path, sizeof path, &bias);
    struct prof_symbolizer *s = prof_sym_open();
    assert_non_null(s);
    struct agreement got = compare_module(s, path, bias);
    assert_true(got.functions > 500);
    assert_true(got.fast > 0);
    assert_true(got.shared > 10);
    prof_sym_close(s);
}

/* Where symbols of different bindings start, or one starts inside another's range, the address is
   left to libdwfl, whose choice the full lookup then gives. */
static void shared_addresses_are_left_to_libdwfl(void **state)
{
    (void)state;
    struct prof_symbolizer *s = prof_sym_open();
    assert_non_null(s);
    assert_null(prof_sym_fast_name(s, (const void *)alias_target));
    assert_null(prof_sym_fast_name(s, (const void *)local_target));
    struct prof_fn fn;
    assert_int_equal(prof_sym_lookup(s, (const void *)alias_target, &fn), PROF_OK);
    /* Two global symbols and a weak one: libdwfl keeps a global one. */
    assert_true(strcmp(fn.name, "alias_target") == 0 || strcmp(fn.name, "alias_global") == 0);
    prof_fn_release(&fn);
    assert_int_equal(prof_sym_lookup(s, (const void *)local_target, &fn), PROF_OK);
    assert_string_equal(fn.name, "local_weak"); /* the weak symbol before the local one */
    prof_fn_release(&fn);
    assert_null(prof_sym_fast_name(s, NULL));
#ifdef HAS_COVERED
    /* Where a symbol starts inside another's range, too. */
    assert_null(prof_sym_fast_name(s, covered_inner));
    assert_int_equal(prof_sym_lookup(s, covered_inner, &fn), PROF_OK);
    assert_string_equal(fn.name, "covering_outer");
    prof_fn_release(&fn);
#endif
    prof_sym_close(s);
}

/* Where several symbols of one size and binding start, the fast path names the address as
   libdwfl does. */
static void alike_aliases_are_named_as_libdwfl_does(void **state)
{
    (void)state;
    struct prof_symbolizer *s = prof_sym_open();
    assert_non_null(s);
    const char *fast = prof_sym_fast_name(s, (const void *)pair_first);
    assert_non_null(fast);
    struct prof_fn fn;
    assert_int_equal(prof_sym_lookup(s, (const void *)pair_first, &fn), PROF_OK);
    assert_string_equal(fn.name, fast);
    prof_fn_release(&fn);
    prof_sym_close(s);
}

/* A function's entry that only one symbol names is found by the fast path. */
static void unique_entry_is_found_by_the_fast_path(void **state)
{
    (void)state;
    struct prof_symbolizer *s = prof_sym_open();
    assert_non_null(s);
    const char *name = prof_sym_fast_name(s, (const void *)compare_module);
    assert_non_null(name);
    assert_string_equal(name, "compare_module");
    /* Not an entry: left to libdwfl. */
    assert_null(prof_sym_fast_name(s, (const char *)(uintptr_t)compare_module + 1));
    prof_sym_close(s);
}

/* For every function of this program, the units' lists of entries give the declaration
   dwarf_getscopes finds, or leave the address to it: a split function's entry is listed. */
static void unit_lists_agree_with_dwarf_getscopes(void **state)
{
    (void)state;
    char path[4096];
    uintptr_t bias;
    module_of((const void *)split_in_two, path, sizeof path, &bias);
    Dwfl *dwfl;
    Dwfl_Module *m = open_module(path, bias, &dwfl);
    struct prof_symbolizer *s = prof_sym_open();
    assert_non_null(s);
    int described = 0, cold = 0, listed = 0, n = dwfl_module_getsymtab(m);
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);
        if (!name || GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
            continue;
        const char *want_file = NULL, *file = NULL;
        int want_line = 0, line = 0;
        int want = declared_by_libdw(m, addr, &want_file, &want_line);
        int got = prof_sym_fast_decl(s, (const void *)(uintptr_t)addr, &file, &line);
        if (got > 0 && !want) /* a function's entry dwarf_getscopes misses: libdw's other road */
            want = declared_by_getfuncs(m, addr, &want_file, &want_line);
        described += want;
        if (got < 0) {
            /* only a function's cold part, not an entry, is left with a place to find */
            size_t len = strlen(name);
            if (want && !(len > 5 && strcmp(name + len - 5, ".cold") == 0))
                fail_msg("%s at 0x%llx: not in its unit's list", name, (unsigned long long)addr);
            cold += want;
            continue;
        }
        listed++;
        if (got != want || (want && (strcmp(file, want_file) != 0 || line != want_line)))
            fail_msg("%s at 0x%llx: the unit's list says %d %s:%d, dwarf_getscopes %d %s:%d", name,
                     (unsigned long long)addr, got, file ? file : "-", line, want,
                     want_file ? want_file : "-", want_line);
    }
    /* every function dwarf_getscopes describes is in its unit's list but cold parts (the
       nested function's code lies outside its container's, where neither looks) */
    assert_true(described > 20 && listed >= described - cold);
    assert_true(cold >= 1); /* split_in_two.cold */
    const char *file = NULL;
    int line = 0;
    assert_int_equal(prof_sym_fast_decl(s, (const void *)split_in_two, &file, &line), 1);
    assert_non_null(strstr(file, "test_symbols.c"));
    assert_int_equal(line, SPLIT_LINE);
    assert_int_equal(split_in_two(2), 15);
    assert_int_equal(with_nested(2), 9 + 2 - 3);
    prof_sym_close(s);
    dwfl_end(dwfl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fast_path_agrees_on_this_program),
        cmocka_unit_test(fast_path_agrees_on_libc),
        cmocka_unit_test(shared_addresses_are_left_to_libdwfl),
        cmocka_unit_test(alike_aliases_are_named_as_libdwfl_does),
        cmocka_unit_test(declarations_agree_with_libdw),
        cmocka_unit_test(unique_entry_is_found_by_the_fast_path),
        cmocka_unit_test(unit_lists_agree_with_dwarf_getscopes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
