/*
 * corpus.h - for unit tests that go over the fuzz corpora (tests/fuzz/corpus/): every file of
 * some folders, read whole. Include it after cmocka.h; paths are relative to the top of the
 * source tree, where `make unit` runs the tests.
 */
#ifndef PROFREPORT_TEST_CORPUS_H
#define PROFREPORT_TEST_CORPUS_H

#include "files.h"

#include <dirent.h>
#include <stdio.h>

/* Called with each file's path and whole text (text is "" for an empty file). */
typedef void (*corpus_fn)(const char *path, const char *text, size_t len, void *ctx);

/* Call fn with every file (names starting with '.' aside) of the folders dirs[0..ndirs);
   returns how many there were. */
static inline size_t corpus_each(const char *const *dirs, size_t ndirs, corpus_fn fn, void *ctx)
{
    size_t files = 0;
    for (size_t d = 0; d < ndirs; d++) {
        DIR *dir = opendir(dirs[d]);
        assert_non_null(dir);
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[d], e->d_name);
            struct prof_sbuf text = {0};
            file_read_into(path, &text);
            fn(path, text.data ? text.data : "", text.len, ctx);
            prof_sbuf_release(&text);
            files++;
        }
        closedir(dir);
    }
    return files;
}

#endif /* PROFREPORT_TEST_CORPUS_H */
