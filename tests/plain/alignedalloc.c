/*
 * alignedalloc.c - what aligned_alloc answers for alignments that are and are not powers of
 * two: one line each, "ALIGNMENT SIZE ok" or "ALIGNMENT SIZE errno N". The preload library must
 * print what the C library alone prints.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    static const size_t cases[][2] = {{3, 16}, {16, 16}, {24, 48}, {0, 16}, {4096, 10}, {5, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        errno = 0;
        void *p = aligned_alloc(cases[i][0], cases[i][1]);
        if (p)
            printf("%zu %zu ok\n", cases[i][0], cases[i][1]);
        else
            printf("%zu %zu errno %d\n", cases[i][0], cases[i][1], errno);
        free(p);
    }
    return 0;
}
