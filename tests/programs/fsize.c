/*
 * fsize.c - a program under a file-size limit (ulimit -f), which the caller sets.
 *
 *   fsize N PATH
 *
 * Records N regions "r", then checks that its signal state is its own: SIGXFSZ not blocked,
 * its action the default. Then it handles SIGXFSZ itself, writes 1 MiB to PATH, and prints
 * "blocked 0 default 1 wrote W efbig 1 caught 1" (W the bytes the limit let through) and
 * exits with status 5, with SIGXFSZ's default action restored. The limit, not profreport, must
 * decide what its own write does.
 */
#include <profreport.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t caught;

static void on_xfsz(int sig)
{
    (void)sig;
    caught++;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    long n = atol(argv[1]);
    for (long i = 0; i < n; i++) {
        PROFILER_START("r");
        PROFILER_STOP();
    }
    sigset_t mask;
    sigprocmask(SIG_BLOCK, NULL, &mask);
    struct sigaction sa;
    sigaction(SIGXFSZ, NULL, &sa);
    int blocked = sigismember(&mask, SIGXFSZ);
    int dfl = sa.sa_handler == SIG_DFL;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_xfsz;
    sigaction(SIGXFSZ, &sa, NULL);
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 2;
    static char block[1 << 20];
    long wrote = 0;
    int efbig = 0;
    while (wrote < (long)sizeof block) {
        ssize_t w = write(fd, block + wrote, sizeof block - (size_t)wrote);
        if (w < 0) {
            efbig = errno == EFBIG;
            break;
        }
        wrote += w;
    }
    close(fd);
    printf("blocked %d default %d wrote %ld efbig %d caught %d\n", blocked, dfl, wrote, efbig,
           (int)caught);
    /* The default action again: a SIGXFSZ at exit (the run file's write) would end us. */
    signal(SIGXFSZ, SIG_DFL);
    return 5;
}
