/*
 * fuzz_runfile.c - libFuzzer target: any bytes as a run file (docs/FORMAT.md 1), read by
 * runfile.c from memory. Checks every callback's promises (fuzz.c) and that a second read of
 * the same bytes tells the same story (the parser keeps no state between files).
 */
#include "fuzz.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse the input twice; both readings must agree. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_runlog a = {0}, b = {0};
    enum run_status first = fuzz_parse(data, size, &a);
    enum run_status second = fuzz_parse(data, size, &b);
    FUZZ_CHECK(first == second);
    FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);
    return 0;
}
