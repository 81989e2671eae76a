/*
 * patch.h - taking the function hooks out of the calls of functions the filters leave out, and
 * of every function while recording is off (PROFILER_ENABLE=0) (patch.c), so that those calls
 * cost what they cost before instrumentation.
 *
 * A function PROFILER_EXCLUDE (or PROFILER_INCLUDE) leaves out still calls both hooks on
 * every call: the lean path finds it left out and returns, and that costs about what counting
 * a kept call costs (issue 24: 0.54 s instead of 0.60 s for SQLite's speedtest1 with its 23
 * hottest functions left out, against 0.29 s without hooks). The filters never change while
 * the process runs, so the first time a hook sees a left-out function's call from a given
 * instruction, that instruction (a `call` of the hook, 5 or 6 bytes) is overwritten with a
 * no-op of the same length, as uftrace's -P patching and XRay's sleds do: the function's
 * later calls do not reach the hooks at all. Each call instruction is found from the hook's
 * own return address and checked to reach the hook (directly, through a PLT stub, or through
 * a GOT slot) before a byte changes; anything else is left as it is, and the hooks go on
 * leaving that call out the slow way.
 *
 * Other threads may be running the very instruction. The patch follows the protocol that
 * makes cross-modifying code safe on x86 (the kernel's text_poke_bp, with a jump to itself in
 * place of a breakpoint): the first two bytes become `jmp .` (a thread arriving spins there),
 * every thread serializes (membarrier's SYNC_CORE), the rest of the bytes change, every thread
 * serializes, the first two bytes change. Without membarrier it patches only while the
 * process has one thread. PROFILER_PATCH=0 turns patching off.
 *
 * Ownership: one process-wide table of the call instructions tried, never freed.
 */
#ifndef PROF_PATCH_H
#define PROF_PATCH_H

#include <stdint.h>

/* Call instructions remembered as tried (patched or refused): beyond that, no more patches. */
#define PROF_PATCH_TRIED 4096u

/*
 * The hook at address hook (its entry, as the caller links it: the function itself) was
 * called by an instruction that returns to ret: make that instruction a no-op. Returns 1 when
 * it is one now (patched by this call or an earlier one), 0 when it stays a call (patching
 * is off, unsafe here, refused by the system, the instruction is not a call of hook, or it was
 * tried before: a call put back over a patch, by a debugger, is left alone). Not
 * for a hook the compiler jumped to (ret is then in the caller). Called from the hooks' slow
 * path, never from a signal handler of the collector.
 */
int prof_patch_call(uintptr_t ret, const void *hook);

/*
 * As prof_patch_call, for a call the hooks would pass over at no cost but their own (recording
 * off, PROFILER_ENABLE=0): patched at its PROF_PATCH_HOT_CALLS-th call, so that a call made
 * seldom does not pay a patch (two mprotects and three membarriers: about 20 us on this
 * project's virtual machine, where the hooks pass over a call in about 5 ns). Over a run
 * that costs at most about twice what the better of patching each call at once and never
 * patching would have (the ski rental's bound): a one-line yaml-cpp parse patched 420 calls
 * at once and took 13 ms instead of 5.
 */
#define PROF_PATCH_HOT_CALLS 2048u
int prof_patch_call_hot(uintptr_t ret, const void *hook);

/* The ticks (prof_ticks) the calling thread has spent patching calls so far: each patch's
   system calls and barriers (about 20 us on this project's virtual machine), which the
   hooks take out of the calls open meanwhile, as they do the time describing a function
   takes. A call answered from the table of those tried costs none. */
uint64_t prof_patch_ticks(void);

/* Call instructions patched so far in this process. */
unsigned prof_patch_count(void);

/* Forget which call instructions were tried: a module was unloaded, and another one loaded at
   its addresses has calls of its own there (the dlclose wrapper, auto.c). */
void prof_patch_forget(void);

#endif /* PROF_PATCH_H */
