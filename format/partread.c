/*
 * partread.c - read a part file back chunk by chunk (docs/FORMAT.md 3). A chunk cut short (a
 * killed run) ends the file; a damaged length never makes the reader allocate what is not there.
 */
#include "partread.h"

#include <stdlib.h>
#include <sys/stat.h>

/* Largest payload a reader accepts: far above what the collector writes (256 KiB buffers). */
#define PART_MAX_PAYLOAD (1u << 30)
/* From input of unknown size, the payload buffer grows by at most this much beyond the bytes
   that have arrived, so a damaged length cannot make the reader allocate what is not there. */
#define PART_READ_STEP (64u * 1024)

/* Bytes left in the reader's file after its position, or SIZE_MAX when unknown (a pipe). */
static size_t bytes_left(FILE *f)
{
    int fd = fileno(f);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return SIZE_MAX;
    off_t pos = ftello(f);
    if (pos < 0)
        return SIZE_MAX;
    return pos < st.st_size ? (size_t)(st.st_size - pos) : 0;
}

/*
 * Read len payload bytes into the reader's buffer: 1 when all came, 0 when the input ended
 * first, -1 on a read error. The buffer grows only as the bytes arrive (a chunk's length is
 * untrusted: the file may be damaged), except where the file's size already vouches for them.
 */
static int read_payload(struct prof_part_reader *r, size_t len, size_t left)
{
    size_t have = 0;
    while (have < len) {
        size_t want = len;
        if (left == SIZE_MAX && want - have > PART_READ_STEP)
            want = have + (have > PART_READ_STEP ? have : PART_READ_STEP);
        if (want > len) /* doubling must not read into the next chunk */
            want = len;
        if (want > r->cap) {
            unsigned char *p = realloc(r->payload, want);
            if (!p)
                return -1;
            r->payload = p;
            r->cap = want;
        }
        size_t got = fread(r->payload + have, 1, want - have, r->f);
        have += got;
        if (have < want)
            return ferror(r->f) ? -1 : 0;
    }
    return 1;
}

/* Read the next chunk into the reader's buffer, passing over those the window leaves out. */
int prof_part_next(struct prof_part_reader *r, uint32_t *type, const unsigned char **payload,
                   size_t *len)
{
    uint32_t head[2];
    size_t left;
    for (;;) {
        size_t got = fread(head, 1, sizeof head, r->f);
        if (got < sizeof head) {
            if (ferror(r->f))
                return -1;
            if (got > 0)
                r->truncated = 1;
            return 0;
        }
        left = bytes_left(r->f);
        if (head[1] > PART_MAX_PAYLOAD || (left != SIZE_MAX && head[1] > left)) {
            r->truncated = 1;
            return 0;
        }
        if (!r->skip_type || head[0] != r->skip_type)
            break;
        uint64_t k = r->seen++;
        if (k >= r->keep_from && k < r->keep_to)
            break;
        if (fseeko(r->f, (off_t)head[1], SEEK_CUR) != 0)
            return -1;
    }
    int rc = read_payload(r, head[1], left);
    if (rc <= 0) {
        if (rc == 0)
            r->truncated = 1;
        return rc;
    }
    *type = head[0];
    *payload = r->payload;
    *len = head[1];
    return 1;
}

/* Free the reader's buffer (the FILE is the caller's). */
void prof_part_reader_release(struct prof_part_reader *r)
{
    free(r->payload);
    r->payload = NULL;
    r->cap = 0;
}
