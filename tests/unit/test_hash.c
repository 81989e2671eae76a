/*
 * test_hash.c - unit tests of common/hash.h: 64-bit FNV-1a, checked against the published test
 * vectors of the algorithm (not against its own output).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hash.h"

/* The reference values of FNV-1a 64 (Fowler, Noll and Vo's test suite). */
static void known_vectors(void **state)
{
    (void)state;
    assert_true(prof_hash("", 0) == 0xcbf29ce484222325ull);
    assert_true(prof_hash("a", 1) == 0xaf63dc4c8601ec8cull);
    assert_true(prof_hash("foobar", 6) == 0x85944171f73967e8ull);
}

/* A string hashes as its bytes, and a hash continued piece by piece equals the whole one. */
static void forms_agree(void **state)
{
    (void)state;
    const char *s = "main;parse;token";
    assert_true(prof_hash_str(s) == prof_hash(s, strlen(s)));
    uint64_t h = prof_hash_more(PROF_HASH_INIT, s, 5);
    assert_true(prof_hash_more(h, s + 5, strlen(s) - 5) == prof_hash(s, strlen(s)));
    /* Bytes past a NUL count when a length is given: ids may hold NULs. */
    assert_true(prof_hash("a\0b", 3) != prof_hash("a", 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_vectors),
        cmocka_unit_test(forms_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
