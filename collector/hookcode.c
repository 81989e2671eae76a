/*
 * hookcode.c - the program's code around its calls of the function hooks (hookcode.h), told
 * from the code bytes near an interrupted instruction and the call targets the hooks saw.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "hookcode.h"

#include <link.h>
#include <string.h>

/* A remembered call target: its address (0: free slot) and kind, the kind written first. */
static uintptr_t targets[PROF_HOOKCODE_TARGETS];
static unsigned char kinds[PROF_HOOKCODE_TARGETS];
/* PROF_HOOKCODE_SLOT in kinds: the address is a GOT slot read by `call *slot(%rip)`. */
#define PROF_HOOKCODE_SLOT 4u
/* The loaded segments that hold the instrumented code the hooks were called from ([lo, hi),
   hi written last; 0: free slot): the only memory whose bytes the signal handler reads. A
   page the program mapped itself may be execute-only (x86 protection keys), and reading it
   would fault. */
static uintptr_t seg_lo[PROF_HOOKCODE_TARGETS], seg_hi[PROF_HOOKCODE_TARGETS];
/* A PLT stub's size on x86-64 (.plt and .plt.sec entries alike). */
#define PLT_STUB 16u
/* The block of memory around an interrupted instruction that is surely mapped: the smallest
   page holding it. */
#define BLOCK 4096u

#if defined(__x86_64__) || defined(__i386__)

static int32_t rel32(const unsigned char *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The kinds of target a (0 if it is no hook target), as a call of the given form reaches it. */
static unsigned kind_of(uintptr_t a, unsigned slot)
{
    for (unsigned i = 0; i < PROF_HOOKCODE_TARGETS; i++) {
        uintptr_t v = __atomic_load_n(&targets[i], __ATOMIC_ACQUIRE);
        if (!v)
            return 0;
        if (v == a && (kinds[i] & PROF_HOOKCODE_SLOT) == slot)
            return kinds[i] & (PROF_HOOKCODE_ENTER | PROF_HOOKCODE_EXIT);
    }
    return 0;
}

/* dl_iterate_phdr callback: the readable loaded segment that holds f[0], into f[1] and f[2]. */
static int segment_of(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t *f = data;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && f[0] >= lo &&
            f[0] - lo < ph->p_memsz) {
            f[1] = lo;
            f[2] = lo + ph->p_memsz;
            return 1;
        }
    }
    return 0;
}

/* Whether pc lies in a segment of seg_lo/seg_hi. */
static int known_code(uintptr_t pc)
{
    for (unsigned i = 0; i < PROF_HOOKCODE_TARGETS; i++) {
        uintptr_t hi = __atomic_load_n(&seg_hi[i], __ATOMIC_ACQUIRE);
        if (!hi)
            return 0;
        if (pc >= seg_lo[i] && pc < hi)
            return 1;
    }
    return 0;
}

/* Remember target a of kind (with PROF_HOOKCODE_SLOT for a GOT slot), called from code at
   site, and the loaded segment that holds site. The hooks' general paths may learn on several
   threads at once, or in a signal handler that interrupted one: whoever finds the table taken
   leaves it, and learns at a later call. */
static void remember(uintptr_t a, unsigned kind, uintptr_t site)
{
    static int taken;
    if (__atomic_exchange_n(&taken, 1, __ATOMIC_ACQUIRE))
        return;
    if (!known_code(site)) {
        uintptr_t f[3] = {site, 0, 0};
        if (dl_iterate_phdr(segment_of, f))
            for (unsigned i = 0; i < PROF_HOOKCODE_TARGETS; i++)
                if (!seg_hi[i]) {
                    seg_lo[i] = f[1];
                    __atomic_store_n(&seg_hi[i], f[2], __ATOMIC_RELEASE);
                    break;
                }
    }
    for (unsigned i = 0; i < PROF_HOOKCODE_TARGETS; i++) {
        uintptr_t v = __atomic_load_n(&targets[i], __ATOMIC_RELAXED);
        if (v == a && kinds[i] == kind)
            break;
        if (!v) {
            /* The kind first: a reader that sees the address sees its kind. */
            __atomic_store_n(&kinds[i], (unsigned char)kind, __ATOMIC_RELAXED);
            __atomic_store_n(&targets[i], a, __ATOMIC_RELEASE);
            break;
        }
    }
    __atomic_store_n(&taken, 0, __ATOMIC_RELEASE);
}

void prof_hookcode_learn(uintptr_t ret, enum prof_hookcode_kind kind)
{
    /* The instruction that called the hook ends at ret: a direct call (e8 rel32), the PLT's
       way and a static link's, or `call *slot(%rip)` (ff 15 disp32) under -fno-plt. Both read
       only the call's own bytes. */
    const unsigned char *r = (const unsigned char *)ret;
    if (r[-5] == 0xe8) {
        uintptr_t target = ret + (uintptr_t)(intptr_t)rel32(r - 4);
        if (kind_of(target, 0) != (unsigned)kind || !known_code(ret))
            remember(target, kind, ret);
    } else if (r[-6] == 0xff && r[-5] == 0x15) {
#if defined(__x86_64__)
        uintptr_t slot = ret + (uintptr_t)(intptr_t)rel32(r - 4);
#else
        uintptr_t slot = (uintptr_t)(uint32_t)rel32(r - 4); /* i386: an absolute address */
#endif
        if (kind_of(slot, PROF_HOOKCODE_SLOT) != (unsigned)kind || !known_code(ret))
            remember(slot, kind | PROF_HOOKCODE_SLOT, ret);
    }
}

/* The kinds of hook the direct call (e8 rel32) ending at end reaches; 0 if none. */
static unsigned direct_call(uintptr_t end)
{
    const unsigned char *e = (const unsigned char *)end;
    return e[-5] == 0xe8 ? kind_of(end + (uintptr_t)(intptr_t)rel32(e - 4), 0) : 0;
}

/* The kinds of hook the GOT call (ff 15 disp32) ending at end reaches; 0 if none. */
static unsigned got_call(uintptr_t end)
{
    const unsigned char *e = (const unsigned char *)end;
    if (e[-6] != 0xff || e[-5] != 0x15)
        return 0;
#if defined(__x86_64__)
    return kind_of(end + (uintptr_t)(intptr_t)rel32(e - 4), PROF_HOOKCODE_SLOT);
#else
    return kind_of((uintptr_t)(uint32_t)rel32(e - 4), PROF_HOOKCODE_SLOT);
#endif
}

/* The kinds of hook called by an instruction ending at end, whose bytes from lo on are
   readable. */
static unsigned call_before(uintptr_t lo, uintptr_t end)
{
    unsigned k = end - lo >= 5 ? direct_call(end) : 0;
    return k ? k : end - lo >= 6 ? got_call(end) : 0;
}

int prof_hookcode_calls_hook(uintptr_t lo, uintptr_t end)
{
    return __atomic_load_n(&targets[0], __ATOMIC_ACQUIRE) && call_before(lo, end) != 0;
}

enum prof_hookcode_place prof_hookcode_at(uintptr_t pc)
{
    if (!pc || !__atomic_load_n(&targets[0], __ATOMIC_ACQUIRE))
        return PROF_HOOKCODE_NONE;
    /* Inside a PLT stub that jumps to a hook. */
    for (unsigned i = 0; i < PROF_HOOKCODE_TARGETS; i++) {
        uintptr_t v = __atomic_load_n(&targets[i], __ATOMIC_ACQUIRE);
        if (!v)
            break;
        if (!(kinds[i] & PROF_HOOKCODE_SLOT) && pc >= v && pc - v < PLT_STUB)
            return PROF_HOOKCODE_STUB;
    }
    if (!known_code(pc))
        return PROF_HOOKCODE_NONE;
    /* After the exit hook's call: it ended at most PROF_HOOKCODE_EPILOGUE_BYTES bytes before
       pc, with no return instruction (c3) in between, and a return follows within as many
       bytes of it. gcc also calls the hooks of the copies of functions it inlines, and such
       a copy's exit call is followed by more of its caller's body, not by a return. */
    uintptr_t lo = pc & ~(uintptr_t)(BLOCK - 1), hi = lo + BLOCK;
    for (uintptr_t back = 0; back <= PROF_HOOKCODE_EPILOGUE_BYTES && pc - back >= lo; back++) {
        uintptr_t end = pc - back;
        if (back && ((const unsigned char *)end)[0] == 0xc3)
            break;
        if (!(call_before(lo, end) & PROF_HOOKCODE_EXIT))
            continue;
        for (uintptr_t r = pc; r <= end + PROF_HOOKCODE_EPILOGUE_BYTES && r < hi; r++)
            if (((const unsigned char *)r)[0] == 0xc3)
                return PROF_HOOKCODE_EPILOGUE;
        break;
    }
    return PROF_HOOKCODE_NONE;
}

int prof_hookcode_enter_ahead(uintptr_t pc, uintptr_t end)
{
    if (!known_code(pc))
        return 0;
    uintptr_t hi = (pc & ~(uintptr_t)(BLOCK - 1)) + BLOCK;
    if (end > hi)
        end = hi;
    const unsigned char *p = (const unsigned char *)pc;
    for (uintptr_t k = 0; pc + k + 5 <= end; k++)
        if ((p[k] == 0xe8 && (direct_call(pc + k + 5) & PROF_HOOKCODE_ENTER)) ||
            (p[k] == 0xff && pc + k + 6 <= end && (got_call(pc + k + 6) & PROF_HOOKCODE_ENTER)))
            return 1;
    return 0;
}

#else

int prof_hookcode_enter_ahead(uintptr_t pc, uintptr_t end)
{
    (void)pc;
    (void)end;
    return 0;
}

void prof_hookcode_learn(uintptr_t ret, enum prof_hookcode_kind kind)
{
    (void)ret;
    (void)kind;
}

enum prof_hookcode_place prof_hookcode_at(uintptr_t pc)
{
    (void)pc;
    return PROF_HOOKCODE_NONE;
}

int prof_hookcode_calls_hook(uintptr_t lo, uintptr_t end)
{
    (void)lo;
    (void)end;
    return 0;
}

#endif

void prof_hookcode_reset(void)
{
    for (unsigned i = 0; i < PROF_HOOKCODE_TARGETS; i++) {
        __atomic_store_n(&targets[i], 0, __ATOMIC_RELAXED);
        kinds[i] = 0;
        __atomic_store_n(&seg_hi[i], 0, __ATOMIC_RELAXED);
        seg_lo[i] = 0;
    }
}
