/*
 * exec.c - the exec family of a program run under libprofreport-malloc.so. exec ends a
 * process image as exit does, but runs no destructor: without these wrappers every fork child
 * that execs (each command of a shell script) would leave its run as an orphan part. The run of
 * the image is written before the exec, and recording resumes in a new run if the exec fails.
 *
 * The real functions are looked up once, at load (dlsym may allocate and take the loader's
 * lock, neither of which a fork child of a threaded program may do). The variadic forms build
 * their argument vector on the stack, as glibc does, and call the vector forms.
 */
#define _GNU_SOURCE
#include "run.h" /* prof_exec_begin, prof_exec_failed: private, not installed */

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

static execve_fn real_execve;
static execvpe_fn real_execvpe;
static fexecve_fn real_fexecve;
static execveat_fn real_execveat;

/* At load: the C library's exec functions. */
__attribute__((constructor)) static void exec_init(void)
{
    real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
    real_execvpe = (execvpe_fn)dlsym(RTLD_NEXT, "execvpe");
    real_fexecve = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
    real_execveat = (execveat_fn)dlsym(RTLD_NEXT, "execveat");
}

/* The run is written before the exec; the exec's errno survives the resumption. */
#define AROUND_EXEC(call)                                                                          \
    do {                                                                                           \
        int finished_ = prof_exec_begin();                                                         \
        int rc_ = (call);                                                                          \
        int errno_ = errno;                                                                        \
        prof_exec_failed(finished_);                                                               \
        errno = errno_;                                                                            \
        return rc_;                                                                                \
    } while (0)

/* A real function that was not found: the exec cannot be made. */
#define NEED(fn)                                                                                   \
    do {                                                                                           \
        if (!(fn)) {                                                                               \
            errno = ENOSYS;                                                                        \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

/* execve. */
EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    NEED(real_execve);
    AROUND_EXEC(real_execve(path, argv, envp));
}

/* execv: execve with this environment. */
EXPORT int execv(const char *path, char *const argv[])
{
    NEED(real_execve);
    AROUND_EXEC(real_execve(path, argv, environ));
}

/* execvpe: the PATH search is glibc's. */
EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    NEED(real_execvpe);
    AROUND_EXEC(real_execvpe(file, argv, envp));
}

/* execvp: execvpe with this environment. */
EXPORT int execvp(const char *file, char *const argv[])
{
    NEED(real_execvpe);
    AROUND_EXEC(real_execvpe(file, argv, environ));
}

/* fexecve. */
EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    NEED(real_fexecve);
    AROUND_EXEC(real_fexecve(fd, argv, envp));
}

/* execveat. */
EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
    NEED(real_execveat);
    AROUND_EXEC(real_execveat(dirfd, path, argv, envp, flags));
}

/* The arguments of a variadic exec after arg0, up to the NULL, counted. */
static size_t count_args(va_list ap)
{
    size_t n = 1;
    while (va_arg(ap, const char *))
        n++;
    return n;
}

/* execl, execlp and execle: the vector on the stack, then the vector form. */
#define VECTOR_FROM_ARGS(arg0, last, envp_out)                                                     \
    va_list ap_;                                                                                   \
    va_start(ap_, arg0);                                                                           \
    size_t n_ = count_args(ap_);                                                                   \
    va_end(ap_);                                                                                   \
    char *argv_[n_ + 1];                                                                           \
    va_start(ap_, arg0);                                                                           \
    argv_[0] = (char *)(arg0);                                                                     \
    for (size_t i_ = 1; i_ <= n_; i_++)                                                            \
        argv_[i_] = va_arg(ap_, char *);                                                           \
    if (last)                                                                                      \
        envp_out = va_arg(ap_, char *const *);                                                     \
    va_end(ap_)

/* execl. */
EXPORT int execl(const char *path, const char *arg, ...)
{
    char *const *envp = environ;
    VECTOR_FROM_ARGS(arg, 0, envp);
    return execve(path, argv_, envp);
}

/* execle: the environment follows the NULL. */
EXPORT int execle(const char *path, const char *arg, ...)
{
    char *const *envp = NULL;
    VECTOR_FROM_ARGS(arg, 1, envp);
    return execve(path, argv_, envp);
}

/* execlp. */
EXPORT int execlp(const char *file, const char *arg, ...)
{
    char *const *envp = environ;
    VECTOR_FROM_ARGS(arg, 0, envp);
    return execvpe(file, argv_, envp);
}
