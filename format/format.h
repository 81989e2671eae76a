/*
 * format.h - the run-file and part-file formats (docs/FORMAT.md), defined once for both sides:
 * the collector writes them, the profreport command reads them. Chunk ids, event words, the
 * binary records of a part, the run file's column names and values, and the versions.
 *
 * Never installed. The tables are constant and live as long as the program.
 */
#ifndef PROF_FORMAT_H
#define PROF_FORMAT_H

#include "compiler.h"
#include "profreport.h"

#include <stdint.h>

/* ---- run file (FORMAT.md 1) ---- */

/* The Format record: "Format,profreport-run,<version>". */
#define PROF_RUN_FORMAT "profreport-run"
/* The version written (PROF_FORMAT_VERSION of the public header) and the oldest one read. */
#define PROF_RUN_VERSION PROF_FORMAT_VERSION
#define PROF_RUN_VERSION_MIN 1
/* The first version that may follow its table with sections ("Table,<name>", 1.5). */
#define PROF_RUN_VERSION_SECTIONS 2
/* The first version whose summary rows are calling-context nodes (Node and Parent, 1.4). */
#define PROF_RUN_VERSION_PATHS 3
/* The first version whose summary rows say how their time was measured (Samples, Timed, Wall,
   1.4) and whose metadata may have a Timing record. */
#define PROF_RUN_VERSION_TIMING 4
/* A run file's frequency when no part says it (cannot happen for a part the reader accepts). */
#define PROF_RUN_FREQUENCY_DEFAULT "1000000000"

/* The columns of an events table (1.3), of a summary table (1.4) and of the memory section
   (1.5), in their order; the names are in prof_event_columns and its siblings. */
enum prof_event_col {
    PROF_EV_REGION,
    PROF_EV_TICKS,
    PROF_EV_THREAD,
    PROF_EV_PARENT,
    PROF_EV_DEPTH,
    PROF_EV_SELF,
    PROF_EV_START,
    PROF_EV_NESTED,
    PROF_EV_N
};
enum prof_summary_col {
    PROF_SU_REGION,
    PROF_SU_THREAD,
    PROF_SU_CALLS,
    PROF_SU_TICKS,
    PROF_SU_SELF,
    PROF_SU_MIN,
    PROF_SU_MAX,
    PROF_SU_SUMSQ,
    PROF_SU_OUTER,
    PROF_SU_HIST,
    PROF_SU_NODE, /* version 3 on */
    PROF_SU_PARENT,
    PROF_SU_SAMPLES, /* version 4 on */
    PROF_SU_TIMED,
    PROF_SU_WALL,
    PROF_SU_N
};
/* A version 1 or 2 summary row's columns: no Node and Parent. */
#define PROF_SU_N_FLAT PROF_SU_NODE
/* A version 3 summary row's columns: no Samples, Timed and Wall. */
#define PROF_SU_N_PATHS PROF_SU_SAMPLES
enum prof_memory_col {
    PROF_ME_KIND,
    PROF_ME_THREAD,
    PROF_ME_REGION,
    PROF_ME_SITE,
    PROF_ME_COUNT,
    PROF_ME_BYTES,
    PROF_ME_ALLOC,
    PROF_ME_FREE,
    PROF_ME_OTHER_THREAD,
    PROF_ME_OTHER_SITE,
    PROF_ME_FUNCTION,
    PROF_ME_STACK,
    PROF_ME_N
};
/* The memory columns every memory section has; Function and Stack came later (FORMAT.md 1.5). */
#define PROF_ME_N_BASE PROF_ME_FUNCTION
extern PROF_INTERNAL const char *const prof_event_columns[PROF_EV_N];
extern PROF_INTERNAL const char *const prof_summary_columns[PROF_SU_N];
extern PROF_INTERNAL const char *const prof_memory_columns[PROF_ME_N];

/* The Function record's seventh field (1.2, 1.4) for a function of the program compiled
   without hooks whose samples have rows of their own: "Function,<region>,<file>,<line>,
   <module>,<offset>,uninstrumented". Its index among the record's fields, key included. */
#define PROF_FUNCTION_UNINSTRUMENTED "uninstrumented"
/* The seventh field for an instrumented function that gcc inlined copies of, with their hooks,
   into other functions: its calls are counted, their samples are those functions' (1.4). */
#define PROF_FUNCTION_INLINED "inlined"
#define PROF_FUNCTION_MARK_FIELD 6
/* Module,<path>,<build id> (FORMAT.md 1.2): the build id of a module holding Function records'
   code, which the reporter checks before it reads their source lines from the module. */
#define PROF_MODULE_RECORD "Module"

/* The record of a thread's CPU and wall time while it recorded (1.2):
   "ThreadCpu,<thread>,<cpu ns>,<wall ns>", after the Thread records. Older readers ignore it
   as an unknown key. */
#define PROF_THREAD_CPU_RECORD "ThreadCpu"
#define PROF_THREAD_CPU_FIELDS 4
/* Version 4, a thread of a sampled run: after the run-queue wait (empty when unknown), four
   more fields, the CPU-time samples the thread took, those that landed in the collector's own
   code (overhead), those outside every instrumented function, and what one call's hooks cost
   it (ps, taken out of Wall):
   "ThreadCpu,<n>,<cpu>,<wall>,<wait>,<samples>,<overhead>,<outside>,<hook ps>". */
#define PROF_THREAD_CPU_FIELDS_SAMPLED 9
/* In newer files, a tenth: what taking the samples cost the thread, ns of its CPU time
   (already taken out of the rows' sampled times). */
#define PROF_THREAD_CPU_FIELDS_COST 10
/* Newer: an eleventh and a twelfth, the samples a CPU-time timer took and its signals that took
   them (FORMAT.md 1.2). */
#define PROF_THREAD_CPU_FIELDS_TIMER 12
/* Newer: a thirteenth, the samples that measured the hook cost (its 95 % bound: 1.96 / sqrt of
   them, relative): the thread's overhead samples in the hooks' fast path, or the run's pool's
   where it had too few of its own. */
#define PROF_THREAD_CPU_FIELDS_HOOK 13

/* The record saying how a summary run's time was measured (1.2), version 4:
   "Timing,exact" or "Timing,sampled,<method>,<period ns>,<short ns>,<clock ns>": every call
   counted; Ticks, Self and Outer from CPU-time samples of period ns taken by method; a calling
   context's calls timed (Timed, Wall) until their mean proved below short ns; clock ns, one
   clock read, calibrated at start. */
#define PROF_TIMING_RECORD "Timing"
#define PROF_TIMING_WORD_EXACT "exact"
#define PROF_TIMING_WORD_SAMPLED "sampled"

/* The memory section's name in its "Table,memory" record. */
#define PROF_MEMORY_SECTION "memory"
/* The summary section's (1.6): an events run's instances past PROFILER_MAX_EVENTS. */
#define PROF_SUMMARY_SECTION "summary"

/* Values of the memory section's Kind column, findings first in the order the section lists
   them (the order of memtab.c's enum prof_mem_finding), then region-bytes. */
enum prof_memory_kind {
    PROF_MK_LEAK,
    PROF_MK_RUNTIME,
    PROF_MK_DOUBLE_FREE,
    PROF_MK_UNKNOWN_FREE,
    PROF_MK_MISMATCH,
    PROF_MK_CROSS_THREAD,
    PROF_MK_REGION_BYTES,
    PROF_MK_N
};
extern PROF_INTERNAL const char *const prof_memory_kinds[PROF_MK_N];
/* Values of AllocKind and FreeKind: [0] is the empty field (kind unknown), then one per
   enum prof_mem_kind, so the value of kind k is at [k + 1]. */
#define PROF_MEM_KIND_NAMES (PROF_MEM_KIND_LAST + 1)
extern PROF_INTERNAL const char *const prof_alloc_kinds[PROF_MEM_KIND_NAMES];
extern PROF_INTERNAL const char *const prof_free_kinds[PROF_MEM_KIND_NAMES];
/* The value for an allocation or deallocation kind, "" when it is not one. */
const char *prof_alloc_kind_name(int kind);
const char *prof_free_kind_name(int kind);

/* ---- part files (FORMAT.md 3) ---- */

/* The Format pair of a part's header chunk. */
#define PROF_PART_FORMAT "profreport-part,4"
/* The version of PROF_PART_FORMAT. */
#define PROF_PART_VERSION 4
/* Version 3 (profreport 0.2): summary records without samples, timed and wall
   (PROF_SUMMARY_HEAD_V3 bytes); its other chunks are as in version 4. */
#define PROF_PART_FORMAT_V3 "profreport-part,3"
/* Version 2 (profreport 0.2): summary records without node and parent (PROF_SUMMARY_HEAD_V2
   bytes), one per region text; its other chunks are as in version 3. */
#define PROF_PART_FORMAT_V2 "profreport-part,2"
/* Version 1 (profreport 0.1) held its summary statistics as CSV text in PRFS and PRFP chunks;
   its other chunks are as in version 2, so such a part is read without them. */
#define PROF_PART_FORMAT_V1 "profreport-part,1"

/* Chunk types: four ASCII letters read as a little-endian u32. */
#define PROF_CHUNK(a, b, c, d)                                                                     \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define PROF_CHUNK_HEADER PROF_CHUNK('P', 'R', 'F', 'H')
#define PROF_CHUNK_IDS PROF_CHUNK('P', 'R', 'F', 'I')
#define PROF_CHUNK_EVENTS PROF_CHUNK('P', 'R', 'F', 'E')
#define PROF_CHUNK_NAME PROF_CHUNK('P', 'R', 'F', 'N')
#define PROF_CHUNK_WARNING PROF_CHUNK('P', 'R', 'F', 'W')
#define PROF_CHUNK_SUMMARY PROF_CHUNK('P', 'R', 'F', 'S')
#define PROF_CHUNK_SNAPSHOT PROF_CHUNK('P', 'R', 'F', 'P')
#define PROF_CHUNK_END PROF_CHUNK('P', 'R', 'F', 'Z')
#define PROF_CHUNK_LOCATIONS PROF_CHUNK('P', 'R', 'F', 'L')
#define PROF_CHUNK_UNINSTRUMENTED PROF_CHUNK('P', 'R', 'F', 'U')
/* Functions gcc inlined copies of into others (FORMAT.md 3; PRFI is the ids): J for joined. */
#define PROF_CHUNK_INLINED PROF_CHUNK('P', 'R', 'F', 'J')
#define PROF_CHUNK_MEMORY PROF_CHUNK('P', 'R', 'F', 'M')
#define PROF_CHUNK_CPU PROF_CHUNK('P', 'R', 'F', 'C')
#define PROF_CHUNK_CRASH PROF_CHUNK('P', 'R', 'F', 'X')
/* The build ids of the modules of a PRFL chunk's functions (FORMAT.md 3). */
#define PROF_CHUNK_BUILD_IDS PROF_CHUNK('P', 'R', 'F', 'B')

/* A PRFX chunk's payload: signal:u32 thread:u32 (the number of the thread the signal came to, 0
   when it recorded nothing), then the signal's name, NUL-ended ("SIGSEGV"). */
#define PROF_CRASH_RECORD 8u
/* The run file's record of a crashed run (1.2): "Crash,<signal>,<name>,<thread>". */
#define PROF_CRASH_KEY "Crash"

/* Bytes of a PRFC chunk's payload: cpu_ns:u64 wall_ns:u64 (a reader takes the first 16 bytes
   of a longer one, for fields added later), then, when the kernel says it, wait_ns:u64 (the
   run-queue wait, PROF_CPU_RECORD_WAIT bytes in all). */
#define PROF_CPU_RECORD 16u
#define PROF_CPU_RECORD_WAIT 24u
/* A sampled thread's PRFC payload (part version 4): the wait always (UINT64_MAX: unknown),
   then samples:u64 overhead:u64 outside:u64, counted in sample periods, and hook_ps:u64, the
   measured cost of one call's hooks in ps. */
#define PROF_CPU_RECORD_SAMPLED 56u
/* Newer parts go on with sample_ns:u64, what taking the samples cost the thread in ns of
   its CPU time (taken out of the rows' sampled times). */
#define PROF_CPU_RECORD_SAMPLED_COST 64u
/* Newer still go on with timer_samples:u64 and timer_draws:u64, the samples a CPU-time timer
   took (all of them with that sampler; after a thread traded its perf event for it, those
   since) and the timer's signals that took them. */
#define PROF_CPU_RECORD_SAMPLED_TIMER 80u
/* Newer still go on with hook_samples:u64, the overhead samples that measured hook_ps. */
#define PROF_CPU_RECORD_SAMPLED_HOOK 88u

/* Event words of a PRFE chunk. */
#define PROF_W_EXIT 0x80000000u
#define PROF_W_LONG 0x7fffffffu
#define PROF_W_STRAY 0x7ffffffeu
#define PROF_W_HIDDEN 0x7ffffffdu /* then hi, lo: children's ticks not in the stream */
#define PROF_W_MAX_ID 0x7ffffff0u

/* The id index of a PRFM record counted outside any region. */
#define PROF_MEM_NO_REGION 0xffffffffu
/* Bytes of one PRFM record: index:u32 count:u64 bytes:u64. */
#define PROF_MEM_RECORD 20u

/*
 * One summary statistics record of a PRFS or PRFP chunk (all little-endian):
 *   index:u32 nhist:u32 calls:u64 ticks:u64 self:u64 min:u64 max:u64 outer:u64 sumsq:f64
 *   node:u32 parent:u32 (part version 3 on)
 *   samples:u64 timed:u64 wall:u64 (part version 4 on)
 * then nhist times bucket:u32 count:u64.
 */
#define PROF_SUMMARY_HEAD 96u
#define PROF_SUMMARY_HEAD_V3 72u
#define PROF_SUMMARY_HEAD_V2 64u
#define PROF_SUMMARY_PAIR 12u

#endif /* PROF_FORMAT_H */
