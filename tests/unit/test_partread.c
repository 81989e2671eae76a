/*
 * test_partread.c - unit tests of collector/partwrite.c and format/partread.c: chunks written
 * whole and read back, damage detected, a part's descriptor told from what took its place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format.h"
#include "partwrite.h"
#include "strbuf.h"
#include "partread.h"

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
    struct prof_part_reader r = {.f = f};
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

/* With a window, chunks of its type outside it are passed over: the others, and those inside
   it, come back in order. */
static void chunks_outside_the_window_are_passed_over(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    int fd = fileno(f);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_HEADER, "k\0v", 4), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_EVENTS, "e0", 2), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_IDS, "i", 1), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_EVENTS, "e1", 2), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_EVENTS, "e2", 2), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_EVENTS, "e3", 2), 0);
    rewind(f);
    struct prof_part_reader r = {
        .f = f, .skip_type = PROF_CHUNK_EVENTS, .keep_from = 1, .keep_to = 3};
    const char *expect[] = {"k", "i", "e1", "e2"};
    uint32_t type;
    const unsigned char *p;
    size_t len;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(prof_part_next(&r, &type, &p, &len), 1);
        assert_memory_equal(p, expect[i], strlen(expect[i]));
    }
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 0);
    assert_int_equal(r.seen, 4);
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
        struct prof_part_reader r = {.f = f};
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
    struct prof_part_reader r = {.f = f};
    uint32_t type;
    const unsigned char *p;
    size_t len;
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 0);
    assert_true(r.truncated);
    prof_part_reader_release(&r);
    fclose(f);
}

/* A length within the limit but beyond what the file holds allocates no more than the file. */
static void length_beyond_the_file_allocates_nothing_big(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    uint32_t head[2] = {PROF_CHUNK_EVENTS, 512u << 20};
    fwrite(head, 1, sizeof head, f);
    fwrite("0123456789", 1, 10, f);
    rewind(f);
    struct prof_part_reader r = {.f = f};
    uint32_t type;
    const unsigned char *p;
    size_t len;
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 0);
    assert_true(r.truncated);
    assert_true(r.cap <= 10);
    prof_part_reader_release(&r);
    fclose(f);
}

/* From a pipe, whose size is unknown, the buffer grows only with the bytes that arrive. */
static void length_beyond_a_pipe_allocates_only_what_arrives(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    uint32_t head[2] = {PROF_CHUNK_EVENTS, 512u << 20};
    char data[1000];
    memset(data, 'x', sizeof data);
    assert_int_equal(write(fds[1], head, sizeof head), sizeof head);
    assert_int_equal(write(fds[1], data, sizeof data), sizeof data);
    close(fds[1]);
    FILE *f = fdopen(fds[0], "rb");
    struct prof_part_reader r = {.f = f};
    uint32_t type;
    const unsigned char *p;
    size_t len;
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 0);
    assert_true(r.truncated);
    assert_true(r.cap <= 128 * 1024);
    prof_part_reader_release(&r);
    fclose(f);
}

/* A whole chunk larger than the first step of growth still reads back from a pipe. */
static void large_chunk_reads_back_from_a_pipe(void **state)
{
    (void)state;
    enum { N = 300 * 1024 };
    static unsigned char data[N];
    for (size_t i = 0; i < N; i++)
        data[i] = (unsigned char)(i * 7);
    FILE *in = tmpfile();
    assert_int_equal(prof_part_write(fileno(in), PROF_CHUNK_EVENTS, data, N), 0);
    rewind(in);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        unsigned char buf[4096];
        size_t n;
        close(fds[0]);
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            if (write(fds[1], buf, n) != (ssize_t)n)
                _exit(1);
        _exit(0);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "rb");
    struct prof_part_reader r = {.f = f};
    uint32_t type;
    const unsigned char *p;
    size_t len;
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 1);
    assert_int_equal(type, PROF_CHUNK_EVENTS);
    assert_int_equal(len, N);
    assert_memory_equal(p, data, N);
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 0);
    assert_false(r.truncated);
    prof_part_reader_release(&r);
    fclose(f);
    fclose(in);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(status, 0);
}

/* From a pipe, a chunk whose length is not a doubling of the first step is read to its end and
   no further: the chunk after it comes back whole. */
static void chunk_after_an_odd_sized_one_reads_back_from_a_pipe(void **state)
{
    (void)state;
    enum { N = 200000 };
    static unsigned char data[N];
    for (size_t i = 0; i < N; i++)
        data[i] = (unsigned char)(i * 13);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        _exit(prof_part_write(fds[1], PROF_CHUNK_EVENTS, data, N) != 0 ||
              prof_part_write(fds[1], PROF_CHUNK_END, "exited", 6) != 0);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "rb");
    struct prof_part_reader r = {.f = f};
    uint32_t type;
    const unsigned char *p;
    size_t len;
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 1);
    assert_int_equal(len, N);
    assert_memory_equal(p, data, N);
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 1);
    assert_int_equal(type, PROF_CHUNK_END);
    assert_int_equal(len, 6);
    assert_memory_equal(p, "exited", 6);
    assert_int_equal(prof_part_next(&r, &type, &p, &len), 0);
    assert_false(r.truncated);
    prof_part_reader_release(&r);
    fclose(f);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(status, 0);
}

/* A part's descriptor is known for the file it was opened on: another file put over its
   number (dup2) is not it, and is not closed; a FIFO or another file at its name is not opened
   as it, and a FIFO never makes the opening wait. */
static void part_identity_tells_the_part_from_what_took_its_place(void **state)
{
    (void)state;
    char dir[] = "/tmp/prof-partid-XXXXXX";
    assert_non_null(mkdtemp(dir));
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
    int fd = openat(dirfd, "a.part", O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    struct prof_part_id id = {0};
    assert_int_equal(prof_part_identify(fd, &id), 0);
    assert_true(prof_part_is(fd, &id));
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "x", 1), 0);

    /* Read back by name while it is the same file; sealed, a write changes that. */
    int rd = prof_part_reopen(dirfd, "a.part", &id);
    assert_true(rd >= 0);
    close(rd);
    prof_part_seal(fd, &id);
    assert_true(prof_part_is(fd, &id));

    /* Another file over its number: not the part, and left open. */
    int other = openat(dirfd, "other", O_RDWR | O_CREAT, 0600);
    int saved = dup(fd);
    assert_int_equal(dup2(other, fd), fd);
    assert_false(prof_part_is(fd, &id));
    int n = fd;
    prof_part_close(&n, &id);
    assert_int_equal(n, -1);
    assert_int_equal(fcntl(fd, F_GETFD), 0); /* still the other file's */
    assert_int_equal(dup2(saved, fd), fd);
    close(saved);
    close(other);

    /* Replaced by a FIFO: refused at once, without waiting for a writer. */
    assert_int_equal(unlinkat(dirfd, "a.part", 0), 0);
    assert_int_equal(mkfifoat(dirfd, "a.part", 0600), 0);
    errno = 0;
    assert_int_equal(prof_part_reopen(dirfd, "a.part", &id), -1);
    assert_int_equal(errno, ESTALE);
    /* Replaced by a file with the same name: refused as well. */
    assert_int_equal(unlinkat(dirfd, "a.part", 0), 0);
    int planted = openat(dirfd, "a.part", O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_int_equal(write(planted, "not a part", 10), 10);
    close(planted);
    assert_int_equal(prof_part_reopen(dirfd, "a.part", &id), -1);
    /* Removed: ENOENT. */
    assert_int_equal(unlinkat(dirfd, "a.part", 0), 0);
    assert_int_equal(prof_part_reopen(dirfd, "a.part", &id), -1);
    assert_int_equal(errno, ENOENT);
    close(fd);
    unlinkat(dirfd, "other", 0);
    close(dirfd);
    rmdir(dir);
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
        cmocka_unit_test(chunks_outside_the_window_are_passed_over),
        cmocka_unit_test(chunk_types_spell_their_names),
        cmocka_unit_test(cut_chunk_is_detected),
        cmocka_unit_test(absurd_length_is_damage),
        cmocka_unit_test(length_beyond_the_file_allocates_nothing_big),
        cmocka_unit_test(length_beyond_a_pipe_allocates_only_what_arrives),
        cmocka_unit_test(large_chunk_reads_back_from_a_pipe),
        cmocka_unit_test(chunk_after_an_odd_sized_one_reads_back_from_a_pipe),
        cmocka_unit_test(part_identity_tells_the_part_from_what_took_its_place),
        cmocka_unit_test(write_error_is_returned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
