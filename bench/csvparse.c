/*
 * csvparse.c - the reporter benchmark's floor: a bare libcsv parse of a file that only counts
 * fields and records (bench/README.md).
 */

/*
 *   csvparse [--no-trim] FILE
 *
 * Reads FILE in 64 KiB blocks, as the reporter does, and feeds them to csv_parse with the
 * reporter's options. The callbacks only count fields, field bytes and records. By default
 * libcsv's own space test runs (spaces and tabs are trimmed from unquoted fields); --no-trim
 * installs a space function that says no byte is a space, as the reporter does for input that
 * holds spaces or tabs (reporter/read/runfile.c), and libcsv then calls it for every byte of an
 * unquoted field. Prints "records N fields N bytes N".
 */
#include <csv.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (64 * 1024)
/* reporter/read/runfile.c's RUNFILE_CSV_OPTS. */
#define OPTS (CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_REPALL_NL)

struct counts {
    uint64_t records, fields, bytes;
};

static void on_field(void *s, size_t len, void *data)
{
    struct counts *c = data;
    (void)s;
    c->fields++;
    c->bytes += len;
}

static void on_record(int ch, void *data)
{
    struct counts *c = data;
    (void)ch;
    c->records++;
}

/* No byte is a space: unquoted fields keep every byte. */
static int no_space(unsigned char c)
{
    (void)c;
    return 0;
}

int main(int argc, char **argv)
{
    int no_trim = argc == 3 && strcmp(argv[1], "--no-trim") == 0;
    if (argc != 2 + no_trim || argv[argc - 1][0] == '-') {
        fprintf(stderr, "usage: csvparse [--no-trim] FILE\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "csvparse: %s: %s\n", path, strerror(errno));
        return 1;
    }
    struct csv_parser p;
    if (csv_init(&p, OPTS) != 0) {
        fprintf(stderr, "csvparse: cannot initialize libcsv\n");
        return 1;
    }
    if (no_trim)
        csv_set_space_func(&p, no_space);
    csv_set_blk_size(&p, 4096);
    struct counts c = {0, 0, 0};
    static char buf[BLOCK];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (csv_parse(&p, buf, n, on_field, on_record, &c) != n) {
            fprintf(stderr, "csvparse: %s: %s\n", path, csv_strerror(csv_error(&p)));
            return 1;
        }
    }
    if (ferror(f) || csv_fini(&p, on_field, on_record, &c) != 0) {
        fprintf(stderr, "csvparse: %s: read or parse error\n", path);
        return 1;
    }
    csv_free(&p);
    fclose(f);
    printf("records %llu fields %llu bytes %llu\n", (unsigned long long)c.records,
           (unsigned long long)c.fields, (unsigned long long)c.bytes);
    return 0;
}
