/*
 * test_part.c - unit tests of part.c: chunks written whole and read back, damage detected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../collector/internal.h"

/* Chunks come back with their type and payload, in order, then the end. */
static void chunks_read_back_in_order(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    int fd = fileno(f);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_HEADER, "k\0v", 4), 0);
    assert_int_equal(prof_part_write2(fd, PROF_CHUNK_EVENTS, "abcd", 4, "efgh", 4), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "", 0), 0);
    rewind(f);
    struct prof_part_reader r = {f, NULL, 0, 0};
    uint32_t type;
    const unsigned char *p;
    size_t len;
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 1);
    assert_int_equal(type, PROF_CHUNK_HEADER);
    assert_int_equal(len, 4);
    assert_memory_equal(p, "k\0v", 4);
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 1);
    assert_int_equal(type, PROF_CHUNK_EVENTS);
    assert_int_equal(len, 8);
    assert_memory_equal(p, "abcdefgh", 8);
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 1);
    assert_int_equal(type, PROF_CHUNK_END);
    assert_int_equal(len, 0);
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 0);
    assert_false(r.truncated);
    prof_part_reader_release(&r);
    fclose(f);
}

/* Type codes are the ASCII names read as little-endian words. */
static void chunk_types_spell_their_names(void **state)
{
    (void)state;
    uint32_t t = PROF_CHUNK_EVENTS;
    assert_memory_equal(&t, "PRFE", 4);
    t = PROF_CHUNK_HEADER;
    assert_memory_equal(&t, "PRFH", 4);
}

/* A chunk cut short (killed mid-write) ends the part and is flagged, for every cut point. */
static void cut_chunk_is_detected(void **state)
{
    (void)state;
    for (long cut = 1; cut < 8 + 16; cut++) {
        FILE *f = tmpfile();
        int fd = fileno(f);
        prof_part_write(fd, PROF_CHUNK_HEADER, "h", 1);
        off_t keep = lseek(fd, 0, SEEK_CUR);
        prof_part_write(fd, PROF_CHUNK_EVENTS, "0123456789abcdef", 16);
        assert_int_equal(ftruncate(fd, keep + cut), 0);
        rewind(f);
        struct prof_part_reader r = {f, NULL, 0, 0};
        uint32_t type;
        const unsigned char *p;
        size_t len;
        assert_int_equal(prof_part_next(&r, &type, &p, &len), 1);
        assert_int_equal(prof_part_next(&r, &type, &p, &len), 0);
        assert_true(r.truncated);
        prof_part_reader_release(&r);
        fclose(f);
    }
}

/* A length beyond any real chunk is treated as damage, not as a huge allocation. */
static void absurd_length_is_damage(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    uint32_t head[2] = {PROF_CHUNK_EVENTS, 0xfffffff0u};
    fwrite(head, 1, sizeof head, f);
    rewind(f);
    struct prof_part_reader r = {f, NULL, 0, 0};
    uint32_t type;
    const unsigned char *p;
    size_t len;
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 0);
    assert_true(r.truncated);
    prof_part_reader_release(&r);
    fclose(f);
}

/* Writing to a closed descriptor reports the errno instead of crashing. */
static void write_error_is_returned(void **state)
{
    (void)state;
    assert_int_equal(prof_part_write(-1, PROF_CHUNK_END, "", 0), EBADF);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunks_read_back_in_order),
        cmocka_unit_test(chunk_types_spell_their_names),
        cmocka_unit_test(cut_chunk_is_detected),
        cmocka_unit_test(absurd_length_is_damage),
        cmocka_unit_test(write_error_is_returned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
