/*
 * longjmp_calls.c - instrumented functions left by longjmp, as an interpreter's protected call
 * (Lua's pcall) leaves them on every error.
 *
 * Usage: longjmp_calls [iterations] (default 1000). Two loops of N protected calls each:
 *
 * 1. rec(3, 3): a recursive function that setjmps at its top call and recurses down to
 *    rec(0, 3), which longjmps back into rec(3, 3). That call then returns: the innermost frame
 *    is a rec's, but rec(0)'s, not its own, so the three deeper calls are closed as unwound
 *    first.
 * 2. protect() calls pcall_plain, which is not instrumented (a library built without the flag),
 *    setjmps and calls down(3), which recurses to down(0), which longjmps back. protect's
 *    return, from higher up the stack, closes the four down frames first.
 *
 * Expected, for N iterations: main 1, rec 4N, protect N, down 4N; the deepest paths are
 * main > rec > rec > rec > rec and main > protect > down > down > down > down; an unwound
 * warning counting 3N + 4N frames; no other warning.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static volatile int raise_error = 1; /* always: volatile, so the compiler sees a way back */

void rec(int k, int top);
void down(int k);
void protect(void);

/* Recurse from top down to 0, which longjmps back to the setjmp of the top call. */
__attribute__((noinline)) void rec(int k, int top)
{
    if (k == top && setjmp(env) != 0)
        return;
    if (k > 0)
        rec(k - 1, top);
    else if (raise_error)
        longjmp(env, 1);
}

/* Recurse down to 0, which longjmps out of every call. */
__attribute__((noinline)) void down(int k)
{
    if (k > 0)
        down(k - 1);
    else if (raise_error)
        longjmp(env, 1);
}

/* A protected call that is not instrumented (a library built without the flag). */
static __attribute__((noinline, no_instrument_function)) void pcall_plain(void)
{
    if (setjmp(env) == 0)
        down(3);
}

/* An instrumented function around the protected call. */
__attribute__((noinline)) void protect(void) { pcall_plain(); }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    for (int i = 0; i < n; i++)
        rec(3, 3);
    for (int i = 0; i < n; i++)
        protect();
    printf("longjmp_calls: %d protected calls of each kind\n", n);
    return 0;
}
