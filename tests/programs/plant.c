/*
 * plant.c - symbolic links planted at the names of a program's own run, as another user of a
 * shared output folder could plant them.
 *
 *   plant TARGET NAME...
 *
 * Records "first", finds its own part in $PROFILER_DIR (the one file
 * profiling_..._<pid>....1.part), and for each NAME plants a link to TARGET at that name of the
 * run: "tmp" the hidden temporary run file under its predictable name (.RUN.csv.tmp), "final" the
 * run file (RUN.csv), "part2" the part of the run's second thread (RUN.2.part). Then a second
 * thread records "second", and the program prints "planted N" and exits with status 3.
 */
#include <profreport.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The second thread's region. */
static void *second(void *arg)
{
    (void)arg;
    PROFILER_START("second");
    PROFILER_STOP();
    return NULL;
}

/* The run's name (without ".1.part"), found from this process's first part. */
static int own_run(const char *dir, char *run, size_t size)
{
    char pid[32];
    snprintf(pid, sizeof pid, "_%ld", (long)getpid());
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int found = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        const char *at = strstr(e->d_name, pid);
        if (e->d_name[0] != '.' && at && strchr("_.-", at[strlen(pid)]) && n > 7 &&
            strcmp(e->d_name + n - 7, ".1.part") == 0) {
            snprintf(run, size, "%.*s", (int)(n - 7), e->d_name);
            found = 0;
        }
    }
    closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *dir = getenv("PROFILER_DIR");
    PROFILER_START("first");
    PROFILER_STOP();
    char run[256], path[1024];
    if (!dir || own_run(dir, run, sizeof run) != 0) {
        fprintf(stderr, "plant: no part of this process in '%s'\n", dir ? dir : "");
        return 2;
    }
    int planted = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "tmp") == 0)
            snprintf(path, sizeof path, "%s/.%s.csv.tmp", dir, run);
        else if (strcmp(argv[i], "final") == 0)
            snprintf(path, sizeof path, "%s/%s.csv", dir, run);
        else if (strcmp(argv[i], "part2") == 0)
            snprintf(path, sizeof path, "%s/%s.2.part", dir, run);
        else
            return 2;
        if (symlink(argv[1], path) != 0) {
            perror("plant: symlink");
            return 2;
        }
        planted++;
    }
    pthread_t t;
    pthread_create(&t, NULL, second, NULL);
    pthread_join(t, NULL);
    printf("planted %d\n", planted);
    return 3;
}
