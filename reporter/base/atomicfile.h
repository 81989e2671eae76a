/*
 * atomicfile.h - output files that appear whole or not at all: a unique temporary file in the
 * target's folder, renamed over the target once written, removed on any failure, at exit and
 * when SIGINT, SIGTERM or SIGHUP ends the command.
 *
 * Ownership: a struct atomicfile owns its strings and its descriptor; atomicfile_commit or
 * atomicfile_discard releases them. While a temporary exists its path is in a registry that
 * a signal handler and an atexit handler read.
 */
#ifndef PROFREPORT_ATOMICFILE_H
#define PROFREPORT_ATOMICFILE_H

#include "base/rep_error.h"

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct atomicfile {
    char *target; /* as given (atomicfile_open_at: dir/name) */
    char *tmp;    /* the temporary's path, NULL once committed or discarded */
    /* The folder the temporary and the target are in: AT_FDCWD when they are named by path,
       or atomicfile_open_at's descriptor (borrowed); their names relative to it point into
       tmp and target. */
    int dirfd;
    const char *tmp_at, *target_at;
    int fd;    /* open on tmp, or -1 once closed or handed to a FILE */
    dev_t dev; /* the temporary as created: a swapped one is never renamed into place */
    ino_t ino;
    int slot; /* its place in the registry of live temporaries, or -1 */
};

/*
 * Install the handlers once per process: SIGINT, SIGTERM and SIGHUP remove the live
 * temporaries (and registered folders) and end the process by the same signal; SIGXFSZ is
 * ignored, so a write past RLIMIT_FSIZE fails with EFBIG and is reported as an error; and the
 * temporaries still registered at exit are removed.
 */
void atomicfile_signals_init(void);

/*
 * Refuse a target that exists and is not a regular file (or a symbolic link to one): a
 * rename would replace a device, FIFO or folder. 0, or -1 with "cannot write 'T': ..." in err.
 */
int atomicfile_target_check(const char *target, struct rep_error *err);

/*
 * Check the target, then create its temporary beside it, named .<name>.XXXXXX, with O_EXCL
 * and O_NOFOLLOW (so a planted symbolic link is never followed) and the mode a new file gets
 * under the umask. a->fd is open for writing; a->tmp may also be reopened by name (by a
 * library that writes to a file name), which is safe because the name is unique and ours.
 * 0, or -1 with err ("cannot write 'T': reason", REP_ERR_OUTPUT) and nothing created.
 */
int atomicfile_open(struct atomicfile *a, const char *target, struct rep_error *err);

/*
 * atomicfile_open for the file name in the folder open as dirfd (shown as dir in messages and
 * in a->target): the temporary is created (O_EXCL, O_NOFOLLOW) and renamed relative to dirfd,
 * so a folder opened without following a link (atomicfile_dir_open) is the one written,
 * whatever its path leads to meanwhile. dirfd must stay open until commit or discard.
 */
int atomicfile_open_at(struct atomicfile *a, int dirfd, const char *dir, const char *name,
                       struct rep_error *err);

/*
 * Open the existing folder dir for atomicfile_open_at without following a symbolic link at
 * its name (trailing slashes are dropped first: they would make open follow one). A
 * descriptor, or -1 with err ("cannot write WHAT to 'DIR': not a folder (a symbolic link
 * there is not followed)", or the system's reason; REP_ERR_OUTPUT).
 */
int atomicfile_dir_open(const char *dir, const char *what, struct rep_error *err);

/* a->fd as a stdio stream ("w"); the stream then owns the descriptor (a->fd is -1). NULL
   with errno on failure (a->fd stays open). */
FILE *atomicfile_stream(struct atomicfile *a);

/*
 * Close a->fd if still open, check the temporary is the file created and the target still
 * acceptable, and rename it over the target. 0; or -1 with err, the temporary removed.
 * Either way a is released.
 */
int atomicfile_commit(struct atomicfile *a, struct rep_error *err);

/* atomicfile_commit for a target that must not exist: a file that took its name since the
   caller checked stays as it is, and the error says "cannot write 'T': it exists (not
   replaced)". */
int atomicfile_commit_new(struct atomicfile *a, struct rep_error *err);

/* Remove the temporary (unless committed) and release a. Safe on a released a, and on a
   zeroed one (its fd 0 is not closed: nothing is open without a temporary). */
void atomicfile_discard(struct atomicfile *a);

/* Copy the file from into target through an atomic file. 0, or -1 with err. */
int atomicfile_copy(const char *from, const char *target, struct rep_error *err);

/* atomicfile_copy into the file name of the folder open as dirfd (shown as dir), through
   atomicfile_open_at. 0, or -1 with err. */
int atomicfile_copy_at(const char *from, int dirfd, const char *dir, const char *name,
                       struct rep_error *err);

/* Register a private folder to be emptied and removed on a signal or at exit (its files are
   all ours); atomicfile_remove_dir removes it now and forgets it. */
void atomicfile_register_dir(const char *dir);
void atomicfile_remove_dir(const char *dir);

#endif /* PROFREPORT_ATOMICFILE_H */
