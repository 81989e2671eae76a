/*
 * prologue.c - a function whose prologue and epilogue run long. spin(n), written in assembly
 * for x86-64 the way a compiler lays out an instrumented function, counts down n before it
 * calls the enter hook, n between its hooks and n after its exit hook, before it returns: the
 * first and the last third run while its caller is the thread's calling context, and all three
 * are spin()'s own code.
 *
 *   prologue N   outer() calls spin(1), then spin(N), after warm(), whose hooks run their
 *                general paths before spin() runs (the sampler learns from them where the
 *                program calls the hooks)
 *
 * Elsewhere than x86-64, spin() is plain C counting down 3 N between its hooks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void spin(unsigned long n);

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl spin\n"
        ".type spin, @function\n"
        "spin:\n"
        "    push %rbx\n"
        "    mov %rdi, %rbx\n"
        "    mov %rdi, %rcx\n"
        "1:  dec %rcx\n" /* the prologue's n */
        "    jnz 1b\n"
        "    mov 8(%rsp), %rsi\n"
        "    lea spin(%rip), %rdi\n"
        "    call __cyg_profile_func_enter@PLT\n"
        "    mov %rbx, %rcx\n"
        "2:  dec %rcx\n" /* the body's n */
        "    jnz 2b\n"
        "    mov 8(%rsp), %rsi\n"
        "    lea spin(%rip), %rdi\n"
        "    call __cyg_profile_func_exit@PLT\n"
        "    mov %rbx, %rcx\n"
        "3:  dec %rcx\n" /* the epilogue's n */
        "    jnz 3b\n"
        "    pop %rbx\n"
        "    ret\n"
        ".size spin, . - spin\n");
#else
void spin(unsigned long n)
{
    for (volatile unsigned long i = 3 * n; i > 0; i--) {
    }
}
#endif

static __attribute__((noinline)) int warm(int x) { return x + 1; }

/* spin(1) first: the calling context (outer > spin) the sampler finds spin()'s prologue in is
   made by its first call. */
static __attribute__((noinline)) void outer(unsigned long n)
{
    spin(1);
    spin(n);
}

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "prologue") != 0) {
        fprintf(stderr, "usage: prologue prologue N\n");
        return 2;
    }
    unsigned long n = strtoul(argv[2], NULL, 10);
    if (warm(0) != 1)
        return 1;
    outer(n);
    return 0;
}
