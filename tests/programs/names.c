/*
 * names.c - region ids and a thread name that need CSV quoting.
 *
 * The ids below (also listed in tests/functional/test_collector.py) are opened as a chain, each
 * inside the previous one, with a "leaf" inside the last, so every id is also some row's Parent.
 * Then each id is recorded once more at depth 0, and last an id with bytes that are not UTF-8
 * ("bad \xff\xfe utf8"), written byte for byte. The main thread is named NAME, 99 bytes with a
 * comma and double quotes, of which the run file keeps the first 63.
 */
#include <profreport.h>

#include <stdio.h>

#define NAME                                                                                       \
    "\"quoted\", with comma "                                                                      \
    "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"

static const char *const ids[] = {
    "comma, inside",
    "quote \"q\" and \"\"",
    "line\nbreak",
    "cr\r\nlf",
    "caf\xc3\xa9 \xe2\x98\x83",
    "\"",
    ",",
    " padded ",
    "plain",
};

#define COUNT (sizeof ids / sizeof ids[0])

int main(void)
{
    PROFILER_THREAD_NAME(NAME);
    for (size_t i = 0; i < COUNT; i++)
        PROFILER_START(ids[i]);
    PROFILER_START("leaf");
    PROFILER_STOP();
    for (size_t i = 0; i < COUNT; i++)
        PROFILER_STOP();
    for (size_t i = 0; i < COUNT; i++) {
        PROFILER_START(ids[i]);
        PROFILER_STOP();
    }
    PROFILER_START("bad \xff\xfe utf8");
    PROFILER_STOP();
    printf("names: %zu ids\n", COUNT);
    return 0;
}
