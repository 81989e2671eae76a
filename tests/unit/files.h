/*
 * files.h - for unit tests that look at what was written: a file's bytes, a folder's entries.
 * Include it after cmocka.h.
 */
#ifndef PROFREPORT_TEST_FILES_H
#define PROFREPORT_TEST_FILES_H

#include "strbuf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append the file at path, whole, to b. */
static inline void file_read_into(const char *path, struct prof_sbuf *b)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        prof_sbuf_add(b, buf, n);
    fclose(f);
    assert_false(b->failed);
}

/* The file at path, whole, with a NUL after it (the caller frees it); its length in *len. */
static inline char *file_read(const char *path, size_t *len)
{
    struct prof_sbuf b = {0};
    file_read_into(path, &b);
    *len = b.len;
    prof_sbuf_char(&b, 0);
    assert_false(b.failed);
    return b.data;
}

/* The entries of folder dir besides . and .. */
static inline int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

#endif /* PROFREPORT_TEST_FILES_H */
