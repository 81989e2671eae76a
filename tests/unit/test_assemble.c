/*
 * test_assemble.c - unit tests of format/assemble.c through the run-file writer (csvwrite.c):
 * hand-made part files merged into a run file, recovery of a killed run, and damaged input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assemble.h"
#include "csvwrite.h"
#include "files.h"
#include "format.h"
#include "partwrite.h"
#include "strbuf.h"
#include "summary.h"

/* Run-level pairs of a part header (split literals: "\0" followed by a digit is octal). */
static const char header[] = "Format\0profreport-part,2\0"
                             "Frequency\0"
                             "1000\0"
                             "Mode\0events\0"
                             "Program\0/bin/app\0"
                             "Pid\0"
                             "42\0"
                             "Host\0h\0"
                             "Start\0"
                             "2026-01-01T00:00:00Z\0"
                             "Clock\0tsc\0";

/* A part file in a fresh temporary path; returns the path (caller frees). */
static char *make_part(unsigned thread, const char *name, const char *const *ids, size_t nids,
                       const uint32_t *words, size_t nwords, const char *end)
{
    char *path = strdup("/tmp/prof-test-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    struct prof_sbuf h = {0};
    prof_sbuf_add(&h, header, sizeof header - 1);
    char num[16];
    snprintf(num, sizeof num, "%u", thread);
    prof_sbuf_add(&h, "Thread", 7);
    prof_sbuf_add(&h, num, strlen(num) + 1);
    prof_sbuf_add(&h, "Tid", 4);
    prof_sbuf_add(&h, "99", 3);
    prof_sbuf_add(&h, "Name", 5);
    prof_sbuf_add(&h, name, strlen(name) + 1);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_HEADER, h.data, h.len), 0);
    prof_sbuf_release(&h);
    struct prof_sbuf b = {0};
    for (uint32_t i = 0; i < nids; i++) {
        uint32_t hdr[2] = {i, (uint32_t)strlen(ids[i])};
        prof_sbuf_add(&b, (const char *)hdr, 8);
        prof_sbuf_add(&b, ids[i], hdr[1]);
    }
    if (nids)
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_IDS, b.data, b.len), 0);
    prof_sbuf_release(&b);
    if (nwords)
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_EVENTS, words, nwords * 4), 0);
    if (end)
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, end, strlen(end)), 0);
    close(fd);
    return path;
}

/* Assemble into memory; returns the text (caller frees) and the error through err. */
static char *assemble(const char *const *paths, size_t n, const struct prof_run_override *ov,
                      enum prof_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    *err = prof_assemble(paths, n, out, ov);
    fclose(out);
    return text;
}

/* Two threads' parts become one run file: metadata, threads, then each thread's rows. */
static void parts_merge_into_one_run_file(void **state)
{
    (void)state;
    const char *ids1[] = {"load", "parse,quoted"};
    uint32_t w1[] = {0, 10, 1, 5, PROF_W_EXIT | 20, PROF_W_EXIT | 5};
    const char *ids2[] = {"work"};
    uint32_t w2[] = {0, 100, PROF_W_EXIT | 7};
    char *p1 = make_part(1, "main", ids1, 2, w1, 6, "exited");
    char *p2 = make_part(2, "worker", ids2, 1, w2, 3, "exited");
    const char *paths[] = {p1, p2};
    struct prof_run_override ov = {2000, 500, 1, NULL, 0, NULL, 0, NULL};
    enum prof_error err;
    char *text = assemble(paths, 2, &ov, &err);
    assert_int_equal(err, PROF_OK);
    assert_string_equal(text, "Frequency,2000\n"
                              "Format,profreport-run,4\n"
                              "Mode,events\n"
                              "Program,/bin/app\n"
                              "Pid,42\n"
                              "Host,h\n"
                              "Start,2026-01-01T00:00:00Z\n"
                              "Clock,tsc\n"
                              "Duration,500\n"
                              "Complete,yes\n"
                              "Threads,2\n"
                              "Thread,1,99,main,exited\n"
                              "Thread,2,99,worker,exited\n"
                              "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                              "\"parse,quoted\",20,1,load,1,20,15,0\n"
                              "load,30,1,,0,10,10,0\n"
                              "work,7,2,,0,7,100,0\n");
    free(text);
    unlink(p1);
    unlink(p2);
    free(p1);
    free(p2);
}

/* A thread's last CPU chunk becomes its ThreadCpu record after the Thread records, whether
   the part ended cleanly or not, with the run-queue wait when the chunk has it (24 bytes); a
   thread without one (an older part) has none, and a chunk cut short is damage. */
static void cpu_chunks_become_thread_cpu_records(void **state)
{
    (void)state;
    const char *ids[] = {"work"};
    uint32_t w[] = {0, 100, PROF_W_EXIT | 7};
    char *p1 = make_part(1, "main", ids, 1, w, 3, NULL);
    char *p2 = make_part(2, "worker", ids, 1, w, 3, NULL);
    char *p3 = make_part(3, "old", ids, 1, w, 3, "exited");
    char *p5 = make_part(4, "killed", ids, 1, w, 3, NULL);
    /* 16 bytes, 24 with the wait, more (a later version's fields are ignored), then too
       short. */
    uint64_t cpu0[2] = {1, 2}, cpu1[2] = {1500000, 2000000};
    uint64_t cpu2[4] = {7, 18446744073709551615ull, 99, 5};
    int fd = open(p1, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CPU, cpu0, sizeof cpu0), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CPU, cpu1, sizeof cpu1), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
    close(fd);
    fd = open(p2, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CPU, cpu2, sizeof cpu2), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "running", 7), 0);
    close(fd);
    fd = open(p5, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CPU, cpu0, sizeof cpu0), 0);
    close(fd);
    const char *paths[] = {p3, p2, p1, p5};
    struct prof_run_override ov = {2000, 500, 1, NULL, 0, NULL, 0, NULL};
    enum prof_error err;
    char *text = assemble(paths, 4, &ov, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Thread,1,99,main,exited\n"
                                 "Thread,2,99,worker,running\n"
                                 "Thread,3,99,old,exited\n"
                                 "Thread,4,99,killed,incomplete\n"
                                 "ThreadCpu,1,1500000,2000000\n"
                                 "ThreadCpu,2,7,18446744073709551615,99\n"
                                 "ThreadCpu,4,1,2\n"
                                 "Warning,"));
    free(text);

    uint32_t short_cpu[3] = {1, 2, 3};
    char *p4 = make_part(1, "main", ids, 1, w, 3, NULL);
    fd = open(p4, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CPU, short_cpu, sizeof short_cpu), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
    close(fd);
    const char *one[] = {p4};
    text = assemble(one, 1, &ov, &err);
    assert_int_equal(err, PROF_OK);
    assert_null(strstr(text, "ThreadCpu"));
    assert_non_null(strstr(text, "Thread,1,99,main,incomplete\n"));
    free(text);
    char *all[] = {p1, p2, p3, p4, p5};
    for (size_t i = 0; i < 5; i++) {
        unlink(all[i]);
        free(all[i]);
    }
}

/* A sampled thread's CPU chunk: the wait always (unknown: an empty field), its samples,
   overhead, outside and hook cost (56 bytes), and in newer parts what taking the samples cost
   (64 bytes), the ThreadCpu record's tenth field, then the samples a CPU-time timer took and
   its signals that took them (80 bytes), the eleventh and twelfth, then the overhead samples
   that measured the hook cost (88 bytes), the thirteenth. */
static void sampled_cpu_chunks_keep_their_fields(void **state)
{
    (void)state;
    const char *ids[] = {"work"};
    uint32_t w[] = {0, 100, PROF_W_EXIT | 7};
    uint64_t older[7] = {10, 20, UINT64_MAX, 400, 150, 3, 8200};
    uint64_t newer[8] = {11, 21, 5, 401, 151, 4, 8100, 7000000};
    uint64_t newest[10] = {12, 22, 6, 402, 152, 5, 8000, 6000000, 380, 40};
    uint64_t hooked[11] = {13, 23, 7, 403, 153, 6, 7900, 5000000, 0, 0, 97};
    char *p1 = make_part(1, "main", ids, 1, w, 3, NULL);
    char *p2 = make_part(2, "worker", ids, 1, w, 3, NULL);
    char *p3 = make_part(3, "waker", ids, 1, w, 3, NULL);
    char *p4 = make_part(4, "sleeper", ids, 1, w, 3, NULL);
    int fd = open(p1, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CPU, older, PROF_CPU_RECORD_SAMPLED), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
    close(fd);
    fd = open(p2, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CPU, newer, PROF_CPU_RECORD_SAMPLED_COST), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
    close(fd);
    fd = open(p3, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CPU, newest, PROF_CPU_RECORD_SAMPLED_TIMER), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
    close(fd);
    fd = open(p4, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CPU, hooked, PROF_CPU_RECORD_SAMPLED_HOOK), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
    close(fd);
    const char *paths[] = {p1, p2, p3, p4};
    struct prof_run_override ov = {2000, 500, 1, NULL, 0, NULL, 0, NULL};
    enum prof_error err;
    char *text = assemble(paths, 4, &ov, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "ThreadCpu,1,10,20,,400,150,3,8200\n"
                                 "ThreadCpu,2,11,21,5,401,151,4,8100,7000000\n"
                                 "ThreadCpu,3,12,22,6,402,152,5,8000,6000000,380,40\n"
                                 "ThreadCpu,4,13,23,7,403,153,6,7900,5000000,0,0,97\n"));
    free(text);
    char *all[] = {p1, p2, p3, p4};
    for (size_t i = 0; i < 4; i++) {
        unlink(all[i]);
        free(all[i]);
    }
}

/* Write a PRFL chunk locating id idx, then, when mark is a chunk type (PRFU, PRFJ), a chunk of
   that type naming it, into the part at path, and end it. */
static void add_location(const char *path, uint32_t idx, const char *file, uint32_t mark)
{
    struct prof_sbuf b = {0};
    prof_sbuf_add(&b, (const char *)&idx, sizeof idx);
    prof_sbuf_add(&b, file, strlen(file) + 1);
    prof_sbuf_add(&b, "7", 2);
    prof_sbuf_add(&b, "/bin/app", 9);
    prof_sbuf_add(&b, "0x10", 5);
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_LOCATIONS, b.data, b.len), 0);
    if (mark)
        assert_int_equal(prof_part_write(fd, mark, &idx, sizeof idx), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
    close(fd);
    prof_sbuf_release(&b);
}

/* Remove and free the parts at paths[0..n). */
static void remove_parts(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
}

/* A chunk of type (PRFU, PRFJ) that names an id the part never defined, or is cut short, is
   damage: the thread's data ends there, and no Function record gets the chunk's word. */
static void a_bad_mark_is_damage(uint32_t type, const char *word)
{
    const char *ids[] = {"work", "plain"};
    uint32_t w[] = {0, 100, PROF_W_EXIT | 7};
    char *p = make_part(1, "main", ids, 2, w, 3, NULL);
    uint32_t bad = 5;
    int fd = open(p, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, type, &bad, sizeof bad), 0);
    assert_int_equal(prof_part_write(fd, type, &bad, 3), 0);
    close(fd);
    const char *one[] = {p};
    struct prof_run_override ov = {2000, 500, 1, NULL, 0, NULL, 0, NULL};
    enum prof_error err;
    char *text = assemble(one, 1, &ov, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Thread,1,99,main,incomplete\n"));
    assert_null(strstr(text, word));
    free(text);
    remove_parts(&p, 1);
}

/* Function records come from PRFL chunks, one per name over the threads; a PRFU chunk adds
   the uninstrumented mark as a seventh field (whichever thread's part says it), and one that
   names an id the part never defined, or is cut short, is damage. */
static void uninstrumented_functions_are_marked(void **state)
{
    (void)state;
    const char *ids[] = {"work", "plain"};
    uint32_t w[] = {0, 100, PROF_W_EXIT | 7};
    char *p1 = make_part(1, "main", ids, 2, w, 3, NULL);
    char *p2 = make_part(2, "worker", ids, 2, w, 3, NULL);
    add_location(p1, 0, "a.c", 0);
    add_location(p2, 1, "b.h", PROF_CHUNK_UNINSTRUMENTED);
    const char *paths[] = {p1, p2};
    struct prof_run_override ov = {2000, 500, 1, NULL, 0, NULL, 0, NULL};
    enum prof_error err;
    char *text = assemble(paths, 2, &ov, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Function,work,a.c,7,/bin/app,0x10\n"
                                 "Function,plain,b.h,7,/bin/app,0x10,uninstrumented\n"));
    free(text);
    char *all[] = {p1, p2};
    remove_parts(all, 2);
    a_bad_mark_is_damage(PROF_CHUNK_UNINSTRUMENTED, "uninstrumented");
}

/* A PRFJ chunk marks the functions gcc inlined copies of as "inlined" in the seventh field,
   whichever thread's part says it (an older reader skips the chunk); a function a PRFU chunk
   marks too keeps the word uninstrumented alone; a bad PRFJ is damage, as a bad PRFU is. */
static void inlined_functions_are_marked(void **state)
{
    (void)state;
    const char *ids[] = {"work", "copy", "plain"};
    uint32_t w[] = {0, 100, PROF_W_EXIT | 7};
    char *p[4];
    for (unsigned i = 0; i < 4; i++)
        p[i] = make_part(i + 1, i ? "worker" : "main", ids, 3, w, 3, NULL);
    add_location(p[0], 0, "a.c", 0);
    add_location(p[1], 1, "b.c", PROF_CHUNK_INLINED);
    add_location(p[2], 2, "c.h", PROF_CHUNK_UNINSTRUMENTED);
    add_location(p[3], 2, "c.h", PROF_CHUNK_INLINED);
    struct prof_run_override ov = {2000, 500, 1, NULL, 0, NULL, 0, NULL};
    enum prof_error err;
    char *text = assemble((const char *const *)p, 4, &ov, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Function,work,a.c,7,/bin/app,0x10\n"
                                 "Function,copy,b.c,7,/bin/app,0x10,inlined\n"
                                 "Function,plain,c.h,7,/bin/app,0x10,uninstrumented\n"));
    free(text);
    remove_parts(p, 4);
    a_bad_mark_is_damage(PROF_CHUNK_INLINED, ",inlined");
}

/* Write a PRFB chunk of the given payload (module and build id pairs) into the part at path. */
static void add_build_ids(const char *path, const char *payload, size_t len)
{
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_BUILD_IDS, payload, len), 0);
    close(fd);
}

/* PRFB chunks become one Module record per module after the Function records, the first
   build id said of a module kept (each thread's part says its own modules); a chunk whose
   pair is cut short, or has an empty path or id, is damage. */
static void build_ids_become_module_records(void **state)
{
    (void)state;
    const char *ids[] = {"work", "lib"};
    uint32_t w[] = {0, 100, PROF_W_EXIT | 7};
    char *p1 = make_part(1, "main", ids, 2, w, 3, NULL);
    char *p2 = make_part(2, "worker", ids, 2, w, 3, NULL);
    static const char one[] = "/bin/app\0aa01\0/lib/libx.so\0bb02";
    static const char two[] = "/lib/libx.so\0cc03\0/bin/app\0aa01";
    add_build_ids(p1, one, sizeof one);
    add_build_ids(p2, two, sizeof two);
    add_location(p1, 0, "", 0);
    add_location(p2, 1, "", 0);
    const char *paths[] = {p1, p2};
    struct prof_run_override ov = {2000, 500, 1, NULL, 0, NULL, 0, NULL};
    enum prof_error err;
    char *text = assemble(paths, 2, &ov, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Function,work,,7,/bin/app,0x10\n"
                                 "Function,lib,,7,/bin/app,0x10\n"
                                 "Module,/bin/app,aa01\n"
                                 "Module,/lib/libx.so,bb02\n"));
    assert_null(strstr(text, "cc03"));
    assert_non_null(strstr(text, "Thread,1,99,main,exited\n"));
    free(text);
    char *all[] = {p1, p2};
    remove_parts(all, 2);

    static const char *const bad[] = {"/bin/app\0aa01\0/lib/cut", "\0aa01", "/bin/app\0"};
    static const size_t bad_len[] = {sizeof "/bin/app\0aa01\0/lib/cut", sizeof "\0aa01",
                                     sizeof "/bin/app\0"};
    for (size_t i = 0; i < 3; i++) {
        char *p = make_part(1, "main", ids, 2, w, 3, NULL);
        add_build_ids(p, bad[i], bad_len[i] - (i == 0)); /* the first one without its NUL */
        const char *only[] = {p};
        text = assemble(only, 1, &ov, &err);
        assert_int_equal(err, PROF_OK);
        assert_non_null(strstr(text, "Thread,1,99,main,incomplete\n"));
        assert_null(strstr(text, "Module,"));
        free(text);
        remove_parts(&p, 1);
    }
}

/* A killed run (no end chunk, open regions) recovers as incomplete, with warnings. */
static void killed_run_recovers_incomplete(void **state)
{
    (void)state;
    const char *ids[] = {"outer", "inner"};
    uint32_t w[] = {0, 1, 1, 1, PROF_W_EXIT | 3, 1, 2, PROF_W_STRAY, 0};
    char *p = make_part(1, "main", ids, 2, w, 9, NULL);
    /* A chunk cut short at the end, as a kill in the middle of a write leaves it. */
    FILE *f = fopen(p, "ab");
    uint32_t head[2] = {PROF_CHUNK_EVENTS, 400};
    fwrite(head, 1, 8, f);
    fwrite("partial", 1, 7, f);
    fclose(f);
    const char *paths[] = {p};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_int_equal(prof_assemble(paths, 1, out, NULL), PROF_OK);
    fclose(out);
    assert_non_null(strstr(text, "Frequency,1000\n"));
    assert_non_null(strstr(text, "Complete,no\n"));
    assert_non_null(strstr(text, "Duration,7\n"));
    assert_non_null(strstr(text, "Thread,1,99,main,incomplete\n"));
    assert_non_null(
        strstr(text, "Warning,unterminated,1,2,\"regions never stopped: inner, outer\"\n"));
    assert_non_null(strstr(text, "Warning,stray-stop,1,1,"));
    assert_non_null(strstr(text, "Warning,incomplete,1,1,"));
    assert_non_null(strstr(text, "\ninner,3,1,outer,1,3,2,0\n"));
    assert_non_null(strstr(text, "\ninner,,1,outer,1,,7,0\nouter,,1,,0,,1,0\n"));
    free(text);
    unlink(p);
    free(p);
}

/* Append a crash chunk (signal, thread, name) to the part at path. */
static void add_crash(const char *path, uint32_t sig, uint32_t thread, const char *name)
{
    char payload[64];
    uint32_t head[2] = {sig, thread};
    memcpy(payload, head, sizeof head);
    size_t n = strlen(name) + 1;
    memcpy(payload + PROF_CRASH_RECORD, name, n);
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CRASH, payload, PROF_CRASH_RECORD + n), 0);
    close(fd);
}

/* A crashed run's parts (a crash chunk after their data, no end) give one Crash record after
   Complete, from the first part in thread order, and their incomplete warnings say where the
   data ends; a part that ended cleanly after its crash chunk (the program lived on) keeps its
   state and gives no Crash record. A crash chunk shorter than its record
   is damage: its part is incomplete as a killed one's, with no Crash record from it. */
static void crash_chunks_become_the_crash_record(void **state)
{
    (void)state;
    const char *ids[] = {"work"};
    uint32_t w[] = {0, 100, PROF_W_EXIT | 7};
    char *p1 = make_part(1, "main", ids, 1, w, 3, NULL);
    char *p2 = make_part(2, "worker", ids, 1, w, 3, NULL);
    char *p3 = make_part(3, "done", ids, 1, w, 3, NULL);
    add_crash(p3, 6, 3, "SIGABRT"); /* then it ended cleanly: the program lived on */
    int fd = open(p3, O_WRONLY | O_APPEND);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
    close(fd);
    add_crash(p2, 11, 1, "SIGSEGV");
    add_crash(p1, 11, 1, "SIGSEGV");
    const char *paths[] = {p3, p2, p1};
    enum prof_error err;
    char *text = assemble(paths, 3, NULL, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Complete,no\nCrash,11,SIGSEGV,1\nThreads,3\n"));
    assert_non_null(strstr(text, "Thread,1,99,main,incomplete\n"
                                 "Thread,2,99,worker,incomplete\n"
                                 "Thread,3,99,done,exited\n"));
    assert_non_null(
        strstr(text, "Warning,incomplete,1,1,the thread's data ends where the program crashed\n"
                     "Warning,incomplete,2,1,the thread's data ends where the program crashed\n"));
    assert_non_null(strstr(text, "\nwork,7,1,,0,7,100,0\n"));
    free(text);
    const char *lived[] = {p3};
    text = assemble(lived, 1, NULL, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Complete,yes\nThreads,1\n"));
    free(text);

    char *p4 = make_part(1, "main", ids, 1, w, 3, NULL);
    fd = open(p4, O_WRONLY | O_APPEND);
    uint32_t short_crash = 6;
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_CRASH, &short_crash, 4), 0);
    close(fd);
    const char *one[] = {p4};
    text = assemble(one, 1, NULL, &err);
    assert_int_equal(err, PROF_OK);
    assert_null(strstr(text, "Crash,"));
    assert_non_null(strstr(text, "Warning,incomplete,1,1,the thread's data ends early"));
    free(text);
    char *all[] = {p1, p2, p3, p4};
    for (size_t i = 0; i < 4; i++) {
        unlink(all[i]);
        free(all[i]);
    }
}

/* A file that is not a part, or of an unknown version, is refused. */
static void foreign_files_are_refused(void **state)
{
    (void)state;
    char path[] = "/tmp/prof-test-XXXXXX";
    int fd = mkstemp(path);
    assert_int_equal(write(fd, "Frequency,1000\nx,1\n", 19), 19);
    close(fd);
    const char *paths[] = {path};
    enum prof_error err;
    free(assemble(paths, 1, NULL, &err));
    assert_int_equal(err, PROF_ERR_FORMAT);

    fd = open(path, O_WRONLY | O_TRUNC);
    static const char v3[] = "Format\0profreport-part,3\0";
    prof_part_write(fd, PROF_CHUNK_HEADER, v3, sizeof v3 - 1);
    close(fd);
    free(assemble(paths, 1, NULL, &err));
    assert_int_equal(err, PROF_ERR_FORMAT);
    unlink(path);

    const char *missing[] = {"/nonexistent/part"};
    free(assemble(missing, 1, NULL, &err));
    assert_int_equal(err, PROF_ERR_FORMAT);
    assert_int_equal(prof_assemble(NULL, 1, stdout, NULL), PROF_ERR_ARGUMENT);
}

/* A part whose header gives a Thread number past 32 bits or a Frequency of 0 is refused: the
   run file's reader would refuse every row of the run made from it (found by fuzz_part). */
static void header_numbers_beyond_the_format_are_refused(void **state)
{
    (void)state;
    static const char big_thread[] = "Format\0profreport-part,2\0Frequency\0"
                                     "1000\0Thread\0"
                                     "4294967296\0";
    static const char zero_rate[] = "Format\0profreport-part,2\0Frequency\0"
                                    "0\0Thread\0"
                                    "1\0";
    static const char fine[] = "Format\0profreport-part,2\0Frequency\0"
                               "1000\0Thread\0"
                               "4294967295\0";
    const struct {
        const char *h;
        size_t len;
        enum prof_error want;
    } cases[] = {{big_thread, sizeof big_thread - 1, PROF_ERR_FORMAT},
                 {zero_rate, sizeof zero_rate - 1, PROF_ERR_FORMAT},
                 {fine, sizeof fine - 1, PROF_OK}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[] = "/tmp/prof-test-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_HEADER, cases[i].h, cases[i].len), 0);
        close(fd);
        const char *paths[] = {path};
        enum prof_error err;
        free(assemble(paths, 1, NULL, &err));
        assert_int_equal(err, cases[i].want);
        unlink(path);
    }
}

/* Two parts that give one thread number (a damaged or mixed folder) cannot both be thread 1
   of the run: the first is kept, so the run file has one Thread record per number (found by
   fuzz_part: the reader reported the second as a problem). */
static void parts_of_one_thread_number_keep_the_first(void **state)
{
    (void)state;
    const char *ids[] = {"a"}, *other[] = {"b"};
    uint32_t w[] = {0, 1, PROF_W_EXIT | 1};
    char *p1 = make_part(1, "main", ids, 1, w, 3, "exited");
    char *p2 = make_part(1, "again", other, 1, w, 3, "exited");
    const char *paths[] = {p1, p2};
    enum prof_error err;
    char *text = assemble(paths, 2, NULL, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Threads,1\nThread,1,99,main,exited\n"));
    assert_null(strstr(text, "again"));
    assert_non_null(strstr(text, "\na,1,1,,0,1,1,0\n"));
    assert_null(strstr(text, "\nb,"));
    free(text);
    unlink(p1);
    unlink(p2);
    free(p1);
    free(p2);
}

/* Damage in the middle of a part keeps what came before it and marks the thread. */
static void damage_keeps_the_rows_before_it(void **state)
{
    (void)state;
    const char *ids[] = {"a"};
    uint32_t w[] = {0, 1, PROF_W_EXIT | 1, 0x7ffffff3u, 0};
    char *p = make_part(1, "main", ids, 1, w, 5, "exited");
    const char *paths[] = {p};
    enum prof_error err;
    char *text = assemble(paths, 1, NULL, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "\na,1,1,,0,1,1,0\n"));
    assert_non_null(strstr(text, "Thread,1,99,main,incomplete\n"));
    assert_non_null(strstr(text, "Complete,no\n"));
    free(text);
    unlink(p);
    free(p);
}

/* A run with no parts (init, then finish without regions) is a valid empty run file. */
static void run_without_parts_is_empty(void **state)
{
    (void)state;
    struct prof_run_override ov = {1000, 5, 1, NULL, 0, NULL, 0, NULL};
    enum prof_error err;
    char *text = assemble(NULL, 0, &ov, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Threads,0\nRegion,Ticks,"));
    free(text);
}

/* Append a summary record for id index id: calls calls of ticks ticks each (all in one bucket),
   node `node` under `parent`; node 0: a version 2 record (no node and parent). */
static void summary_record(struct prof_sbuf *b, uint32_t id, uint64_t calls, uint64_t ticks,
                           uint32_t node, uint32_t parent)
{
    static uint64_t hist[PROF_HIST_BUCKETS];
    memset(hist, 0, sizeof hist);
    hist[prof_hist_bucket(ticks)] = calls;
    struct prof_summary_counts c = {.id = id,
                                    .calls = calls,
                                    .ticks = calls * ticks,
                                    .self = calls * ticks,
                                    .min = ticks,
                                    .max = ticks,
                                    .outer = ticks,
                                    .sumsq = (double)calls * (double)ticks * (double)ticks,
                                    .node = node,
                                    .parent = parent};
    size_t at = b->len;
    prof_summary_encode(b, &c, hist);
    /* Version 2 has no node and parent, version 3 no samples, timed and wall: the parts
       these tests write are of those versions. */
    size_t head = node == 0 ? PROF_SUMMARY_HEAD_V2 : PROF_SUMMARY_HEAD_V3;
    memmove(b->data + at + head, b->data + at + PROF_SUMMARY_HEAD, b->len - at - PROF_SUMMARY_HEAD);
    b->len -= PROF_SUMMARY_HEAD - head;
}

/* A version 2 summary part's binary records become the summary table's rows, each a top-level
   node of its own; without a final PRFS chunk (a killed run) the last PRFP snapshot is used. */
static void summary_records_become_rows(void **state)
{
    (void)state;
    static const char summary_header[] = "Format\0profreport-part,2\0"
                                         "Frequency\0"
                                         "1000\0"
                                         "Mode\0summary\0"
                                         "Thread\0"
                                         "3\0";
    const char *ids = "\0\0\0\0\4\0\0\0step\1\0\0\0\5\0\0\0a,\"b\"";
    char paths[2][32];
    for (int k = 0; k < 2; k++) {
        strcpy(paths[k], "/tmp/prof-test-XXXXXX");
        int fd = mkstemp(paths[k]);
        assert_int_equal(
            prof_part_write(fd, PROF_CHUNK_HEADER, summary_header, sizeof summary_header - 1), 0);
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_IDS, ids, 25), 0);
        struct prof_sbuf b = {0};
        summary_record(&b, 0, 2, 10, 0, 0);
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_SNAPSHOT, b.data, b.len), 0);
        summary_record(&b, 1, 1, 100, 0, 0);
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_SNAPSHOT, b.data, b.len), 0);
        if (k == 0) { /* the thread ended: its final rows */
            b.len = 0;
            summary_record(&b, 0, 3, 10, 0, 0);
            assert_int_equal(prof_part_write(fd, PROF_CHUNK_SUMMARY, b.data, b.len), 0);
            assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
        }
        prof_sbuf_release(&b);
        close(fd);
    }
    const char *ended[] = {paths[0]}, *killed[] = {paths[1]};
    enum prof_error err;
    char *text = assemble(ended, 1, NULL, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,"
                                 "Histogram,Node,Parent,Samples,Timed,Wall\n"
                                 "step,3,3,30,30,10,10,300,10,10:3,1,0,0,3,30\n"));
    assert_null(strstr(text, "a,"));
    free(text);
    text = assemble(killed, 1, NULL, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Complete,no\n"));
    assert_non_null(strstr(text, "Histogram,Node,Parent,Samples,Timed,Wall\n"
                                 "step,3,2,20,20,10,10,200,10,10:2,1,0,0,2,20\n"
                                 "\"a,\"\"b\"\"\",3,1,100,100,100,100,10000,100,36:1,2,0,0,1,"
                                 "100\n"));
    free(text);
    unlink(paths[0]);
    unlink(paths[1]);
}

/* A summary record that names an id the part never defined is damage: the thread is
   incomplete and its rows from there on are lost. */
static void summary_record_of_unknown_id_is_damage(void **state)
{
    (void)state;
    static const char summary_header[] = "Format\0profreport-part,3\0"
                                         "Frequency\0"
                                         "1000\0"
                                         "Mode\0summary\0"
                                         "Thread\0"
                                         "1\0";
    char path[] = "/tmp/prof-test-XXXXXX";
    int fd = mkstemp(path);
    prof_part_write(fd, PROF_CHUNK_HEADER, summary_header, sizeof summary_header - 1);
    struct prof_sbuf b = {0};
    summary_record(&b, 0, 1, 5, 1, 0); /* no PRFI chunk: id 0 is unknown */
    prof_part_write(fd, PROF_CHUNK_SUMMARY, b.data, b.len);
    prof_part_write(fd, PROF_CHUNK_END, "exited", 6);
    prof_sbuf_release(&b);
    close(fd);
    const char *paths[] = {path};
    enum prof_error err;
    char *text = assemble(paths, 1, NULL, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Thread,1,,,incomplete\n"));
    size_t len = strlen(text), tail = strlen("Histogram,Node,Parent,Samples,Timed,Wall\n");
    assert_true(len >= tail &&
                strcmp(text + len - tail, "Histogram,Node,Parent,Samples,Timed,Wall\n") ==
                    0); /* no row */
    free(text);
    unlink(path);
}

/* Write a version 3 summary part for thread 1 with ids "main" (0) and "step" (1) and the
   records of b, ended cleanly; its path goes to path. */
static void v3_summary_part(char *path, const struct prof_sbuf *b)
{
    static const char v3_header[] = "Format\0profreport-part,3\0"
                                    "Frequency\0"
                                    "1000\0"
                                    "Mode\0summary\0"
                                    "Thread\0"
                                    "1\0";
    int fd = mkstemp(path);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_HEADER, v3_header, sizeof v3_header - 1), 0);
    assert_int_equal(
        prof_part_write(fd, PROF_CHUNK_IDS, "\0\0\0\0\4\0\0\0main\1\0\0\0\4\0\0\0step", 24), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_SUMMARY, b->data, b->len), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
    close(fd);
}

/* Version 3 records are calling-context nodes: each row carries its Node and Parent, so step
   under main and step under main > step are two rows. */
static void v3_records_keep_their_paths(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    summary_record(&b, 0, 1, 500, 1, 0);
    summary_record(&b, 1, 4, 10, 2, 1);
    summary_record(&b, 1, 2, 3, 3, 2);
    char path[] = "/tmp/prof-test-XXXXXX";
    v3_summary_part(path, &b);
    prof_sbuf_release(&b);
    const char *paths[] = {path};
    enum prof_error err;
    char *text = assemble(paths, 1, NULL, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Histogram,Node,Parent,Samples,Timed,Wall\n"
                                 "main,1,1,500,500,500,500,250000,500,55:1,1,0,0,1,500\n"
                                 "step,1,4,40,40,10,10,400,10,10:4,2,1,0,4,40\n"
                                 "step,1,2,6,6,3,3,18,3,3:2,3,2,0,2,6\n"));
    /* the thread's role: the end of the chain of only children, main > step > step */
    assert_non_null(strstr(text, "Thread,1,,,exited,step\n"));
    free(text);
    unlink(path);
}

/* A record whose node is not its place in the chunk, or whose parent is not below it, is
   damage: the thread is incomplete and keeps the rows before it. */
static void v3_records_out_of_order_are_damage(void **state)
{
    (void)state;
    static const uint32_t bad[][2] = {{3, 0}, {2, 2}, {2, 5}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct prof_sbuf b = {0};
        summary_record(&b, 0, 1, 500, 1, 0);
        summary_record(&b, 1, 4, 10, bad[i][0], bad[i][1]);
        char path[] = "/tmp/prof-test-XXXXXX";
        v3_summary_part(path, &b);
        prof_sbuf_release(&b);
        const char *paths[] = {path};
        enum prof_error err;
        char *text = assemble(paths, 1, NULL, &err);
        assert_int_equal(err, PROF_OK);
        assert_non_null(strstr(text, "Thread,1,,,incomplete\n"));
        assert_null(strstr(text, "step,"));
        free(text);
        unlink(path);
    }
}

/* A part of format version 1 (profreport 0.1) held its summary statistics as CSV text: the
   part is still read, its thread ends as it did, and an old-format warning says its summary
   rows are missing instead of the thread being called incomplete. */
static void version_1_summary_chunks_are_named_not_damage(void **state)
{
    (void)state;
    static const char v1_header[] = "Format\0profreport-part,1\0"
                                    "Frequency\0"
                                    "1000\0"
                                    "Mode\0summary\0"
                                    "Thread\0"
                                    "1\0";
    char path[] = "/tmp/prof-test-XXXXXX";
    int fd = mkstemp(path);
    prof_part_write(fd, PROF_CHUNK_HEADER, v1_header, sizeof v1_header - 1);
    prof_part_write(fd, PROF_CHUNK_IDS, "\0\0\0\0\4\0\0\0step", 12);
    static const char text_rows[] = "step,1,3,30,30,10,10,300,10,10:3\n";
    prof_part_write(fd, PROF_CHUNK_SUMMARY, text_rows, sizeof text_rows - 1);
    prof_part_write(fd, PROF_CHUNK_END, "exited", 6);
    close(fd);
    const char *paths[] = {path};
    enum prof_error err;
    char *text = assemble(paths, 1, NULL, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "Thread,1,,,exited\n"));
    assert_non_null(strstr(text, "Warning,old-format,1,1,summary statistics written by an older "
                                 "profreport (part format 1) cannot be read"));
    assert_null(strstr(text, "\nstep,"));
    free(text);
    unlink(path);
}

/* The finishing process's memory findings come first in the memory section, then each thread's
   bytes per region (FORMAT.md 1.5). */
static void memory_findings_then_region_bytes(void **state)
{
    (void)state;
    const char *ids[] = {"load"};
    char *p = make_part(1, "main", ids, 1, NULL, 0, NULL);
    int fd = open(p, O_WRONLY | O_APPEND);
    unsigned char rec[2 * PROF_MEM_RECORD];
    uint32_t idx[2] = {0, PROF_MEM_NO_REGION};
    uint64_t v[4] = {2, 300, 1, 16};
    for (int i = 0; i < 2; i++) {
        memcpy(rec + i * PROF_MEM_RECORD, &idx[i], 4);
        memcpy(rec + i * PROF_MEM_RECORD + 4, &v[2 * i], 16);
    }
    prof_part_write(fd, PROF_CHUNK_MEMORY, rec, sizeof rec);
    prof_part_write(fd, PROF_CHUNK_END, "exited", 6);
    close(fd);
    struct prof_memory_rec finding = {.kind = PROF_MK_DOUBLE_FREE,
                                      .alloc_kind = PROF_MEM_MALLOC,
                                      .free_kind = PROF_MEM_MALLOC,
                                      .thread = 1,
                                      .other_thread = 1,
                                      .region = "load",
                                      .region_len = 4,
                                      .site = "app.c:7",
                                      .other_site = "x,y",
                                      .function = "load_all",
                                      .stack = "load_all (app.c:7) < main (app.c:20)",
                                      .count = 1,
                                      .bytes = 64};
    struct prof_run_override ov = {1000, 5, 1, NULL, 0, &finding, 1, NULL};
    const char *paths[] = {p};
    enum prof_error err;
    char *text = assemble(paths, 1, &ov, &err);
    assert_int_equal(err, PROF_OK);
    assert_non_null(strstr(text, "\nTable,memory\n"
                                 "Kind,Thread,Region,Site,Count,Bytes,AllocKind,FreeKind,"
                                 "OtherThread,OtherSite,Function,Stack\n"
                                 "double-free,1,load,app.c:7,1,64,malloc,free,1,\"x,y\",load_all,"
                                 "load_all (app.c:7) < main (app.c:20)\n"
                                 "region-bytes,1,load,,2,300,,,,,,\n"
                                 "region-bytes,1,,,1,16,,,,,,\n"));
    free(text);
    unlink(p);
    free(p);
}

/* The reference writer's CSV field: RFC 4180 done the plain way, a byte at a time. */
static void ref_field(struct prof_sbuf *b, const char *s, size_t n)
{
    int quote = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
            quote = 1;
    if (quote)
        prof_sbuf_char(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            prof_sbuf_char(b, '"');
        prof_sbuf_char(b, s[i]);
    }
    if (quote)
        prof_sbuf_char(b, '"');
}

/* The reference writer's number, through printf. */
static void ref_number(struct prof_sbuf *b, unsigned long long v) { prof_sbuf_addf(b, "%llu", v); }

/* Reference sink: a metadata record. */
static void ref_meta(void *ctx, const char *const *fields, const size_t *lens, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            prof_sbuf_char(ctx, ',');
        ref_field(ctx, fields[i], lens[i]);
    }
    prof_sbuf_char(ctx, '\n');
}

/* Reference sink: the events table's header. */
static void ref_table(void *ctx, int summary)
{
    assert_false(summary);
    for (size_t i = 0; i < PROF_EV_N; i++)
        prof_sbuf_addf(ctx, "%s%s", i ? "," : "", prof_event_columns[i]);
    prof_sbuf_char(ctx, '\n');
}

/* Reference sink: one events row, field by field as docs/FORMAT.md 1.3 lists them. */
static void ref_event(void *ctx, const struct prof_event_rec *e)
{
    struct prof_sbuf *b = ctx;
    ref_field(b, e->region, e->region_len);
    prof_sbuf_char(b, ',');
    if (e->stopped)
        ref_number(b, e->ticks);
    prof_sbuf_char(b, ',');
    ref_number(b, e->thread);
    prof_sbuf_char(b, ',');
    ref_field(b, e->parent, e->parent_len);
    prof_sbuf_char(b, ',');
    ref_number(b, e->depth);
    prof_sbuf_char(b, ',');
    if (e->stopped)
        ref_number(b, e->self);
    prof_sbuf_char(b, ',');
    ref_number(b, e->start);
    prof_sbuf_str(b, e->nested ? ",1\n" : ",0\n");
}

/* Random event words of one thread: nesting up to 12 deep, recursion, ids that share a text,
   64-bit gaps, stray stops, and regions left open at the end. */
static size_t random_words(uint32_t *w, size_t cap, uint32_t nids, uint64_t seed)
{
    size_t n = 0, depth = 0;
    while (n + 4 < cap) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(seed >> 33);
        if (r % 97 == 0) {
            w[n++] = PROF_W_LONG; /* a gap past 32 bits: starts of 11 and more digits */
            w[n++] = r % 5000;
            w[n++] = r;
        } else if (r % 89 == 0) {
            w[n++] = PROF_W_STRAY;
            w[n++] = r % 50;
        } else if (depth < 12 && (depth == 0 || r % 3)) {
            w[n++] = (r >> 8) % nids;
            w[n++] = r % 7 ? r % 300 : r % 2000000000;
            depth++;
        } else {
            w[n++] = PROF_W_EXIT | (r % 7 ? r % 1000 : r % 0x7fffffff);
            depth -= depth > 0;
        }
    }
    return n;
}

/* The run-file writer's fast paths (numbers and fields written in place, pass one that only
   counts) give, byte for byte, what a plain writer makes of the same records: several threads,
   each in several chunks cut inside records. */
static void writer_matches_a_plain_reference(void **state)
{
    (void)state;
    const char *ids[] = {
        "load", "parse,\"quoted\"", "a region name longer than sixteen bytes", "line\nfeed",
        "load", /* the same text as id 0: one region for Nested */
        "x"};
    const uint32_t numbers[] = {3, 1, 4000000000u};
    char *paths[3];
    static uint32_t w[30000];
    for (int t = 0; t < 3; t++) {
        paths[t] = make_part(numbers[t], "worker", ids, 6, NULL, 0, NULL);
        size_t n = random_words(w, sizeof w / sizeof w[0], 6, (uint64_t)t + 7);
        int fd = open(paths[t], O_WRONLY | O_APPEND);
        for (size_t off = 0; off < n; off += 4099) /* 4099: chunks end inside records */
            assert_int_equal(prof_part_write(fd, PROF_CHUNK_EVENTS, w + off,
                                             4 * (n - off < 4099 ? n - off : 4099)),
                             0);
        if (t != 1)
            assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
        close(fd);
    }
    struct prof_run_override ov = {2000, 123456789012ull, 1, NULL, 0, NULL, 0, NULL};
    enum prof_error err;
    char *text = assemble((const char *const *)paths, 3, &ov, &err);
    assert_int_equal(err, PROF_OK);

    struct prof_parts *parts;
    assert_int_equal(prof_parts_open((const char *const *)paths, 3, &ov, &parts), PROF_OK);
    struct prof_sbuf ref = {0};
    struct prof_run_sink sink = {
        .ctx = &ref, .meta = ref_meta, .table = ref_table, .event = ref_event};
    assert_int_equal(prof_parts_emit(parts, &sink), PROF_OK);
    prof_parts_free(parts);
    const char *expect = prof_sbuf_cstr(&ref);
    assert_non_null(expect);
    /* The input holds what the test is about. */
    assert_non_null(strstr(expect, "\"parse,\"\"quoted\"\"\","));
    assert_non_null(strstr(expect, ",4000000000,"));
    assert_non_null(strstr(expect, "Warning,unterminated,1,"));
    assert_non_null(strstr(expect, ",1\n"));          /* nested */
    assert_non_null(strstr(expect, ",,4000000000,")); /* never stopped (thread 4000000000) */
    assert_true(ref.len > 100000);
    assert_int_equal(strlen(text), ref.len);
    assert_string_equal(text, expect);
    prof_sbuf_release(&ref);
    free(text);
    for (int t = 0; t < 3; t++) {
        unlink(paths[t]);
        free(paths[t]);
    }
}

/* A part for the split: many chunks, regions open across its middle and never stopped, a stray
   stop, a hidden-children record, an id defined after the middle; bad_memory puts a damaged
   memory chunk in its second half, where the serial reading stops. Returns the path. */
static char *split_part(unsigned thread, uint64_t seed, size_t nwords, int bad_memory)
{
    const char *ids[] = {"main", "parse,\"q\"", "a region name longer than sixteen bytes", "load",
                         "load"};
    char *path = make_part(thread, "worker", ids, 5, NULL, 0, NULL);
    uint32_t *w = malloc(2 * nwords * sizeof *w + 64);
    assert_non_null(w);
    size_t n = 0;
    w[n++] = PROF_W_EXIT | 3; /* a stop with nothing open */
    w[n++] = 0;               /* main and load: open from here to the end */
    w[n++] = 1;
    w[n++] = 3;
    w[n++] = 2;
    n += random_words(w + n, nwords * 6 / 10, 5, seed);
    w[n++] = PROF_W_HIDDEN;
    w[n++] = 0;
    w[n++] = 77;
    size_t first = n;
    n += random_words(w + n, nwords - n, 6, seed + 1); /* uses id 5, defined after the middle */
    int fd = open(path, O_WRONLY | O_APPEND);
    for (size_t off = 0; off < first; off += 4099) /* chunks end inside records */
        assert_int_equal(prof_part_write(fd, PROF_CHUNK_EVENTS, w + off,
                                         4 * (first - off < 4099 ? first - off : 4099)),
                         0);
    uint32_t def[3] = {5, 1, 0};
    memcpy(&def[2], "x", 1);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_IDS, def, 9), 0);
    for (size_t off = first; off < n; off += 4099) {
        assert_int_equal(
            prof_part_write(fd, PROF_CHUNK_EVENTS, w + off, 4 * (n - off < 4099 ? n - off : 4099)),
            0);
        if (bad_memory && off - first >= 4 * 4099 && off - first < 5 * 4099)
            assert_int_equal(prof_part_write(fd, PROF_CHUNK_MEMORY, "short", 5), 0);
    }
    unsigned char rec[PROF_MEM_RECORD];
    uint32_t idx = 3;
    uint64_t cb[2] = {2, 300};
    memcpy(rec, &idx, 4);
    memcpy(rec + 4, cb, 16);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_MEMORY, rec, sizeof rec), 0);
    assert_int_equal(prof_part_write(fd, PROF_CHUNK_END, "exited", 6), 0);
    close(fd);
    free(w);
    return path;
}

/* Write the run file of paths into dir/run.csv, one thread (opts NULL) or as opts say; returns
   its text (caller frees) and removes it, leaving dir as it was. */
static char *write_run(const char *dir, const char *const *paths, size_t n,
                       const struct prof_split_opts *opts, size_t *len)
{
    char file[4200];
    snprintf(file, sizeof file, "%s/run.csv", dir);
    FILE *out = fopen(file, "wb");
    assert_non_null(out);
    struct prof_run_override ov = {2000, 5, 1, NULL, 0, NULL, 0, NULL};
    assert_int_equal(prof_assemble_split(paths, n, out, &ov, opts), PROF_OK);
    assert_int_equal(fclose(out), 0);
    /* Nothing of the second thread's is left beside the run file. */
    assert_int_equal(dir_entries(dir), 1);
    char *text = file_read(file, len);
    unlink(file);
    return text;
}

/* Sets of parts for the split: one part (cut inside it, regions open across the cut), three
   parts in no order of thread number (cut inside or between them), two alike (cut between
   them), and a part whose reading stops at damage after the cut. */
struct split_case {
    size_t n;
    unsigned thread[3];
    size_t words[3];
    int bad_memory[3];
};
static const struct split_case split_cases[] = {
    {1, {1}, {60000}, {0}},
    {3, {3, 1, 2}, {30000, 50000, 20000}, {0, 0, 0}},
    {2, {1, 2}, {40000, 40000}, {0, 0}},
    {2, {1, 2}, {20000, 60000}, {0, 1}},
    {1, {7}, {60000}, {1}},
};

/* Calls of the second thread's hook: each split that ran on two threads adds 2. */
static int hook_calls;
static void count_hook(int begin)
{
    (void)begin;
    __atomic_add_fetch(&hook_calls, 1, __ATOMIC_RELAXED);
}

/* Two threads write, byte for byte, the run file one thread writes, wherever the cut falls. */
static void split_writes_the_serial_bytes(void **state)
{
    (void)state;
    char dir[] = "/tmp/prof-split-XXXXXX";
    assert_non_null(mkdtemp(dir));
    for (size_t c = 0; c < sizeof split_cases / sizeof split_cases[0]; c++) {
        const struct split_case *sc = &split_cases[c];
        char *paths[3];
        for (size_t i = 0; i < sc->n; i++)
            paths[i] = split_part(sc->thread[i], 11 + c * 3 + i, sc->words[i], sc->bad_memory[i]);
        const char *const *pp = (const char *const *)paths;
        /* There is a place to cut: inside the part when there is one. */
        struct prof_parts *parts;
        struct prof_parts_cut cut;
        assert_int_equal(prof_parts_open(pp, sc->n, NULL, &parts), PROF_OK);
        assert_true(prof_parts_cut(parts, &cut));
        if (sc->n == 1)
            assert_true(cut.chunks > 0);
        if (c == 2)
            assert_true(cut.at == 1 && cut.chunks == 0);
        prof_parts_free(parts);

        size_t len1, len2;
        char *serial = write_run(dir, pp, sc->n, NULL, &len1);
        struct prof_split_opts opts = {PROF_SPLIT_ALWAYS, dir, count_hook, 0, NULL};
        __atomic_store_n(&hook_calls, 0, __ATOMIC_RELAXED);
        char *split = write_run(dir, pp, sc->n, &opts, &len2);
        assert_int_equal(__atomic_load_n(&hook_calls, __ATOMIC_RELAXED), 2); /* it ran */
        /* The input holds what the test is about. */
        assert_non_null(strstr(serial, "\nmain,,")); /* main, never stopped */
        assert_non_null(strstr(serial, "Warning,stray-stop,"));
        assert_non_null(strstr(serial, "\nx,")); /* the id defined after the middle */
        assert_non_null(strstr(serial, ",1\n")); /* nested */
        if (!sc->bad_memory[0])                  /* the memory section, after the rows */
            assert_non_null(strstr(serial, "region-bytes,"));
        else /* the damage hides the end of the part */
            assert_null(strstr(serial, "region-bytes,7,"));
        assert_true(len1 > 500000);
        assert_int_equal(len1, len2);
        assert_memory_equal(serial, split, len1);
        free(serial);
        free(split);
        for (size_t i = 0; i < sc->n; i++) {
            unlink(paths[i]);
            free(paths[i]);
        }
    }
    assert_int_equal(rmdir(dir), 0);
}

/* When the split fails (no second thread, no temporary file, no copy in the kernel, no copy at
   all) the run file is still the serial one, and nothing is left behind. */
static void split_failures_fall_back_to_one_thread(void **state)
{
    (void)state;
    char dir[] = "/tmp/prof-split-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *paths[2] = {split_part(1, 5, 50000, 0), split_part(2, 6, 30000, 0)};
    const char *const *pp = (const char *const *)paths;
    size_t len1, len2;
    char *serial = write_run(dir, pp, 2, NULL, &len1);
    const unsigned faults[] = {PROF_SPLIT_FAULT_THREAD, PROF_SPLIT_FAULT_KERNEL_COPY,
                               PROF_SPLIT_FAULT_APPEND, 0};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        /* The last: a folder for the temporary file that does not exist. */
        char missing[sizeof dir + 16];
        snprintf(missing, sizeof missing, "%s/missing", dir);
        struct prof_split_opts opts = {PROF_SPLIT_ALWAYS, faults[i] ? dir : missing, NULL,
                                       faults[i], NULL};
        char *split = write_run(dir, pp, 2, &opts, &len2);
        assert_int_equal(len1, len2);
        assert_memory_equal(serial, split, len1);
        free(split);
    }
    free(serial);
    for (int i = 0; i < 2; i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parts_merge_into_one_run_file),
        cmocka_unit_test(writer_matches_a_plain_reference),
        cmocka_unit_test(split_writes_the_serial_bytes),
        cmocka_unit_test(split_failures_fall_back_to_one_thread),
        cmocka_unit_test(killed_run_recovers_incomplete),
        cmocka_unit_test(cpu_chunks_become_thread_cpu_records),
        cmocka_unit_test(sampled_cpu_chunks_keep_their_fields),
        cmocka_unit_test(uninstrumented_functions_are_marked),
        cmocka_unit_test(inlined_functions_are_marked),
        cmocka_unit_test(build_ids_become_module_records),
        cmocka_unit_test(crash_chunks_become_the_crash_record),
        cmocka_unit_test(summary_records_become_rows),
        cmocka_unit_test(summary_record_of_unknown_id_is_damage),
        cmocka_unit_test(v3_records_keep_their_paths),
        cmocka_unit_test(v3_records_out_of_order_are_damage),
        cmocka_unit_test(memory_findings_then_region_bytes),
        cmocka_unit_test(foreign_files_are_refused),
        cmocka_unit_test(header_numbers_beyond_the_format_are_refused),
        cmocka_unit_test(parts_of_one_thread_number_keep_the_first),
        cmocka_unit_test(damage_keeps_the_rows_before_it),
        cmocka_unit_test(run_without_parts_is_empty),
        cmocka_unit_test(version_1_summary_chunks_are_named_not_damage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
