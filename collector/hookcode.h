/*
 * hookcode.h - the instrumented program's code around its calls of the function hooks
 * (hookcode.c), as the sampler needs to know it: where the calls go, and which function's
 * code an interrupted instruction is when the thread's context says otherwise.
 *
 * A function built with -finstrument-functions saves its registers, calls the enter hook,
 * runs, calls the exit hook, restores its registers and returns. Its prologue (before the
 * enter hook made it the thread's context) and its epilogue (after the exit hook closed it)
 * are its own code, but they run while its caller is the context: charged there, they made a
 * caller such as Lua's luaV_execute 7 ms (8 points) heavier than perf's samples of the plain
 * build, and the small functions it calls as much lighter (issue 24). The sampler gives them
 * to the function (sample.c). The PLT stub a call of a hook jumps through, if the hooks live
 * in a shared library, is the collector's cost like the hooks themselves.
 *
 * Classifying more as the collector's (the hooks' argument setup, the instruction a hook
 * returns to) was measured and left out: those instructions' samples also carry the stalls of
 * the function's own work that the hooks' latency hides, and taking them out made yaml-cpp's
 * regex matcher 35 % lighter than perf's samples of the plain build.
 *
 * The hooks learn where the program calls them (prof_hookcode_learn, from their general
 * paths, which each calling context takes at its first calls). Ownership: one process-wide
 * table of call targets, appended to by the hooks (lock-free readers, at most
 * PROF_HOOKCODE_TARGETS), read by signal handlers; never freed.
 */
#ifndef PROF_HOOKCODE_H
#define PROF_HOOKCODE_H

#include <stdint.h>

/* Call targets remembered: a hook itself (a static link), a PLT stub for it, or the GOT slot a
   -fno-plt call reads, for each hook in each instrumented module. */
#define PROF_HOOKCODE_TARGETS 64u

/* Bytes from a function's entry to the end of its enter hook's call, at most: the registers
   it saves, the arguments it keeps from the hook, the hook's two arguments and the call. */
#define PROF_HOOKCODE_PROLOGUE_BYTES 64u
/* Bytes from the end of the exit hook's call to the function's return, at most. */
#define PROF_HOOKCODE_EPILOGUE_BYTES 16u

/* Which hook a call goes to. */
enum prof_hookcode_kind { PROF_HOOKCODE_ENTER = 1, PROF_HOOKCODE_EXIT = 2 };

/*
 * A hook of kind was called by an instruction that returns to ret (the hook's
 * __builtin_return_address(0), in the instrumented function): remember what that call
 * targets. Not for a hook the compiler jumped to (a tail call: ret is then in the caller).
 * Cheap when the target is known already.
 */
void prof_hookcode_learn(uintptr_t ret, enum prof_hookcode_kind kind);

/* What an interrupted instruction is (prof_hookcode_at). */
enum prof_hookcode_place {
    PROF_HOOKCODE_NONE,     /* nothing known: the code of the thread's context, or a prologue */
    PROF_HOOKCODE_STUB,     /* a PLT stub of a hook: the collector's cost */
    PROF_HOOKCODE_EPILOGUE, /* after the exit hook's call, up to the return: the code of the
                               function whose frame the hook just closed */
};

/* What the instruction at pc is (async-signal-safe; reads only the 4 KiB block of memory that
   holds pc). PROF_HOOKCODE_NONE on other architectures than x86-64 and i386. */
enum prof_hookcode_place prof_hookcode_at(uintptr_t pc);

/* Whether a call of the enter hook lies between pc and end (it starts at or after pc and ends
   by end): pc is in a function's prologue, before its enter hook ran (async-signal-safe; reads
   only pc's 4 KiB block). */
int prof_hookcode_enter_ahead(uintptr_t pc, uintptr_t end);

/* Whether the instruction ending at end, whose bytes from lo on are readable, calls a hook
   the hooks have learnt (async-signal-safe): such a return address left on the stack is the
   collector's, never a program function's call of a library. */
int prof_hookcode_calls_hook(uintptr_t lo, uintptr_t end);

/* Forget every target (tests). */
void prof_hookcode_reset(void);

#endif /* PROF_HOOKCODE_H */
