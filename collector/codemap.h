/*
 * codemap.h - the functions of the program's own modules, for the sampling signal handler
 * (codemap.c): which function's code an interrupted address is in, and whether that function
 * has hooks. A sample in a function compiled without them (gcc's
 * -finstrument-functions-exclude-file-list leaves a header's templates out; a file built
 * without the flag; no_instrument_function) used to be its caller's time; now it goes to that
 * function, on a row of its own whose calls are not counted, as a left-out function's does
 * (leftout.h gives it a number on its first sample, docs/FORMAT.md 1.4).
 *
 * A module is published here when its first instrumented function is described
 * (functions.c): its function symbols with their sizes, sorted, as symbols.c's index of the
 * module has them. Each function's state says what a sample in it is: not known yet (no
 * hook has described it: uninstrumented, or not called yet), hooked (its samples are its
 * calling context's, sample.c), or a left-out range's number.
 *
 * Ownership: the process-wide table owns the published arrays; they live as long as the
 * process (a signal handler may be reading one), a forgotten module's are skipped.
 */
#ifndef PROF_CODEMAP_H
#define PROF_CODEMAP_H

#include "compiler.h"

#include <stddef.h>
#include <stdint.h>

/* Modules published per process (the rest are not looked at). */
#define PROF_CODEMAP_MODULES 256u

/* A function's state besides a left-out range's number. */
#define PROF_CODE_UNKNOWN 0u
#define PROF_CODE_HOOKED 0xffffffffu /* described by its hooks: its samples follow the tree */
#define PROF_CODE_NONE 0xfffffffeu   /* claimed by another sample, or no range left for it */
/* A part of another function's code (gcc's foo.cold) or the collector's scope guards: its
   samples are as a hooked function's, but no hook in it is another function's copy. */
#define PROF_CODE_PART 0xfffffffdu

/* One function of a module: its code [lo, lo + size). */
struct prof_code_fn {
    uintptr_t lo;
    uint32_t size;
    uint32_t state; /* PROF_CODE_*, or a left-out range's number */
};

/* Whether the module keyed key (its load bias and first function) is published. Callers
   serialise the publishing (functions.c's lock). */
int prof_codemap_has(uintptr_t key);
/* Publish a module keyed key: fns sorted by lo, not overlapping, n of them, allocated with
   prof_codemap_alloc; the table owns them from now on. -1 when the table is full (fns
   freed). */
int prof_codemap_add(uintptr_t key, struct prof_code_fn *fns, size_t n);
/* Room for n functions (zeroed), or NULL. */
struct prof_code_fn *prof_codemap_alloc(size_t n);
/* Set the state of the function whose entry is addr, if published; its old state, or
   PROF_CODE_NONE when it is not in the table. Callers serialise. */
uint32_t prof_codemap_mark(uintptr_t addr, uint32_t state);
/*
 * What a sample at pc is charged to (async-signal-safe): a left-out range's number when the
 * function holding pc was left out by the filters or has no hooks (an uninstrumented function
 * gets its range at its first sample here); PROF_CODE_HOOKED when pc is in a hooked function,
 * or in one whose range could not be made (its calling context's time, as before); 0 when pc
 * is in no published function (the left-out ranges may still know it: prof_leftout_at).
 */
uint32_t prof_codemap_leftout(uintptr_t pc);
/* As prof_codemap_leftout, and when pc is in a published function, its code in span's lo and
   size (span's state is left alone). */
uint32_t prof_codemap_place(uintptr_t pc, struct prof_code_fn *span);
/*
 * For a sample outside the program's functions (in the C library, say): the left-out range
 * number of the program function that called the code pc is in, when it has no hooks of its
 * own, as prof_codemap_leftout says; PROF_CODE_HOOKED when that caller is hooked (the time is
 * its context's), 0 when no caller was found. The candidates are the words from sp up (at most
 * PROF_CODEMAP_SCAN, within sp's page, which the interrupted code uses, and below limit: the
 * innermost open frame's stack position, above which lie its own and its callers' frames)
 * that are an address in a published function right after a call of code outside the
 * published functions (a direct call of a PLT stub or a library, not of a hook) or an indirect
 * call (through the GOT or a function pointer): the return address a leaf such as memcpy finds
 * at sp, or a function such as malloc a few frames above it.
 *
 * Words below the live frames are stale: the return addresses of calls made and returned
 * before, which malloc's frames, reaching deeper than a leaf's, leave unwritten. On yaml-cpp a
 * quarter of the candidates that came first were such (an earlier memcpy's return put 3.7 %
 * of the run, malloc's time, on a function that was not running). So when home, an address in
 * the innermost open frame's function (its enter hook's return address; 0 when there is none),
 * is in a published function and limit is that frame's position, the caller is the first
 * candidate that is live: in home, or in a function without hooks from which the words above
 * (up to limit, at most PROF_CODEMAP_CHAIN of them) hold a chain of return addresses, each
 * after a call of the function that holds the one before, up to home (at most
 * PROF_CODEMAP_LINKS links; an indirect call links to any function). The first candidate when
 * none is. Async-signal-safe; x86-64 and i386 only (0 elsewhere).
 */
#define PROF_CODEMAP_SCAN 64u
#define PROF_CODEMAP_CHAIN 1024u
#define PROF_CODEMAP_LINKS 16u
uint32_t prof_codemap_caller(const uintptr_t *sp, uintptr_t limit, uintptr_t home);
/*
 * Whether an enter hook of the function whose code is [fn, fn + size), returning to ret, was
 * called from the code of another function: a copy gcc inlined there with its hooks, whose
 * samples are that function's (sample.c). ret lies outside fn's code and in a published
 * function that is not a part (PROF_CODE_PART: a hook in foo.cold may be foo's own, and a
 * sample there stays with the copy). 0 when size is 0 (fn's code is not known) or ret is in
 * no published function. No side effect: no range is made.
 */
int prof_codemap_inlined(uintptr_t ret, uintptr_t fn, uint64_t size);
/* Forget every module (one was unloaded: its addresses may be another's). */
void prof_codemap_forget(void);

#endif /* PROF_CODEMAP_H */
