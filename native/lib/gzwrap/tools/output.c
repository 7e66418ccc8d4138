/* output.c — the gzwrap command's output destinations (output.h says which and why). */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *named_tmp; /* a named temporary to remove on failure and on signals */

static int fail(gzw_dest *d, const char *why) {
    if (!d->err) {
        d->err = errno ? errno : EIO;
        d->why = why;
    }
    return -1;
}

static int write_all(int fd, const char *p, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n, len -= (size_t)n;
    }
    return 0;
}

static int pread_all(int fd, char *p, size_t len, off_t off) {
    while (len > 0) {
        ssize_t n = pread(fd, p, len, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n == 0 ? (errno = EIO, -1) : -1;
        p += n, len -= (size_t)n, off += n;
    }
    return 0;
}

static int pwrite_all(int fd, const char *p, size_t len, off_t off) {
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n, len -= (size_t)n, off += n;
    }
    return 0;
}

/* ---- the temporary beside a regular file --------------------------------------------- */

static char *sibling_name(const char *target) {
    char *dcopy = strdup(target), *bcopy = strdup(target);
    const char *dir = dirname(dcopy), *base = basename(bcopy);
    size_t n = strlen(dir) + strlen(base) + 32;
    char *path = malloc(n);
    snprintf(path, n, "%s/.%s.gzwrap-XXXXXX", dir, base);
    free(dcopy), free(bcopy);
    return path;
}

static int open_beside(gzw_dest *d) {
    char *dcopy = strdup(d->target);
    mode_t mode = d->replacing ? d->old.st_mode & 07777 : 0666;
    d->fd = open(dirname(dcopy), O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
    free(dcopy);
    if (d->fd >= 0) {
        d->kind = GZW_DEST_UNNAMED;
        return 0;
    }
    /* no O_TMPFILE here (EOPNOTSUPP, EISDIR on old kernels): a named one, removed on
     * failure and on the signals that the handler sees */
    named_tmp = sibling_name(d->target);
    d->fd = mkostemp(named_tmp, O_CLOEXEC);
    if (d->fd < 0) {
        free(named_tmp);
        named_tmp = NULL;
        return fail(d, "cannot create a temporary file beside it");
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(d->fd, d->replacing ? mode : 0666 & ~mask);
    d->kind = GZW_DEST_NAMED;
    return 0;
}

int gzw_dest_open_path(gzw_dest *d, const char *path, int force) {
    memset(d, 0, sizeof *d);
    d->name = path;
    d->fd = d->out_fd = -1;
    struct stat st;
    size_t len = strlen(path);
    /* a name ending in / is a directory's, found or not: refused before any work */
    if (len > 0 && path[len - 1] == '/')
        return errno = EISDIR, fail(d, "cannot write it");
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return fail(d, "cannot look at it");
        d->target = strdup(path);
        return open_beside(d);
    }
    struct stat named; /* what a link leads to */
    if (stat(path, &named) == 0 && S_ISDIR(named.st_mode)) /* with or without -f */
        return errno = EISDIR, fail(d, "cannot write it");
    if (!force)
        return -2;
    /* a symbolic link is followed, as sed -i --follow-symlinks does: the file it names is
     * replaced and the link stays */
    d->target = S_ISLNK(st.st_mode) ? realpath(path, NULL) : strdup(path);
    if (!d->target)
        return fail(d, "a symbolic link to nothing, not replaced");
    if (stat(d->target, &st) != 0)
        return fail(d, "cannot look at it");
    if (S_ISDIR(st.st_mode))
        return errno = EISDIR, fail(d, "cannot write it");
    if (!S_ISREG(st.st_mode)) {
        /* a FIFO or device is written in place, never unlinked (-f -o /dev/null as root
         * must not replace /dev/null) */
        d->out_fd = open(d->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (d->out_fd < 0)
            return fail(d, "cannot open it for writing");
        d->kind = GZW_DEST_STREAM;
        return 0;
    }
    d->replacing = 1;
    d->old = st;
    return open_beside(d);
}

int gzw_dest_open_stdout(gzw_dest *d) {
    memset(d, 0, sizeof *d);
    d->name = "standard output";
    d->fd = -1;
    d->out_fd = STDOUT_FILENO;
    d->kind = GZW_DEST_STREAM;
    struct stat st;
    int fl = fcntl(STDOUT_FILENO, F_GETFL);
    off_t at;
    /* a regular file (not O_APPEND, where pwrite would append) is written in place; the
     * shell opens `>` write-only, so reading back needs a second, read-write descriptor */
    if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) && fl >= 0 && !(fl & O_APPEND) &&
        (at = lseek(STDOUT_FILENO, 0, SEEK_CUR)) >= 0) {
        int fd = open("/proc/self/fd/1", O_RDWR | O_CLOEXEC);
        struct stat again;
        if (fd >= 0 && fstat(fd, &again) == 0 && again.st_ino == st.st_ino &&
            again.st_dev == st.st_dev && lseek(fd, at, SEEK_SET) == at) {
            d->kind = GZW_DEST_IN_PLACE;
            d->fd = fd;
            d->base = (uint64_t)at;
            return 0;
        }
        if (fd >= 0)
            close(fd);
    }
    return 0;
}

/* ---- the spool of a stream ---------------------------------------------------------------- */

static int spool_open(gzw_dest *d) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    d->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (d->fd >= 0)
        return 0;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/gzwrap-XXXXXX", dir);
    d->fd = mkostemp(path, O_CLOEXEC);
    if (d->fd < 0)
        return fail(d, "cannot create a spool file in $TMPDIR");
    unlink(path);
    return 0;
}

/* Move what a stream holds in memory to a new spool, which takes every write after. */
static int hold_to_spool(gzw_dest *d) {
    if (spool_open(d) != 0)
        return -1;
    if (pwrite_all(d->fd, d->held, (size_t)(d->end - d->sent), (off_t)d->sent) != 0 ||
        lseek(d->fd, (off_t)d->end, SEEK_SET) != (off_t)d->end)
        return fail(d, "cannot write the spool");
    free(d->held);
    d->held = NULL, d->held_cap = 0;
    return 0;
}

/* Keep [end, end + len) in memory where it fits under GZW_HOLD_MAX: 1 when kept, 0 when
 * it must go to the spool, -1 when memory ran out. */
static int hold(gzw_dest *d, const void *buf, size_t len) {
    size_t have = (size_t)(d->end - d->sent);
    if (len > GZW_HOLD_MAX - have)
        return 0;
    if (have + len > d->held_cap) {
        size_t cap = d->held_cap ? d->held_cap : 1 << 18;
        while (cap < have + len)
            cap *= 2;
        char *p = realloc(d->held, cap);
        if (!p)
            return fail(d, "no memory to hold the output"), -1;
        d->held = p, d->held_cap = cap;
    }
    memcpy(d->held + have, buf, len);
    d->end += len;
    return 1;
}

/* Pass held bytes [sent, upto) on, then free their room (in $TMPDIR for a spool). */
static int stream_pass(gzw_dest *d, uint64_t upto) {
    static char buf[1 << 18];
    uint64_t from = d->sent;
    if (d->fd < 0) { /* held in memory */
        size_t n = (size_t)(upto - from), rest = (size_t)(d->end - upto);
        if (n == 0)
            return 0;
        if (write_all(d->out_fd, d->held, n) != 0)
            return fail(d, "cannot write it");
        memmove(d->held, d->held + n, rest);
        d->sent = upto;
        return 0;
    }
    while (d->sent < upto) {
        size_t n = upto - d->sent < sizeof buf ? (size_t)(upto - d->sent) : sizeof buf;
        if (pread_all(d->fd, buf, n, (off_t)d->sent) != 0)
            return fail(d, "cannot read the spool back");
        if (write_all(d->out_fd, buf, n) != 0)
            return fail(d, "cannot write it");
        d->sent += n;
    }
    if (upto > from) /* where holes cannot be punched the spool just keeps them */
        fallocate(d->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
                  (off_t)(upto - from));
    return 0;
}

static int dest_write(void *ctx, const void *buf, size_t len) {
    gzw_dest *d = ctx;
    if (d->kind == GZW_DEST_STREAM && d->fd < 0) {
        int kept = d->hold_all ? 0 : hold(d, buf, len);
        if (kept)
            return kept > 0 ? 0 : -1;
        if ((d->held ? hold_to_spool(d) : spool_open(d)) != 0)
            return -1;
    }
    if (write_all(d->fd, buf, len) != 0)
        return fail(d, d->kind == GZW_DEST_STREAM ? "cannot write the spool" : "cannot write it");
    d->end += len;
    return 0;
}

/* Whether [off, off + len) lies in what a stream holds in memory. */
static int in_memory(const gzw_dest *d, size_t len, uint64_t off) {
    return d->kind == GZW_DEST_STREAM && d->fd < 0 && off <= d->end && len <= d->end - off;
}

static int dest_pread(void *ctx, void *buf, size_t len, uint64_t off) {
    gzw_dest *d = ctx;
    if (off < d->sent)
        return errno = ESPIPE, fail(d, "already passed on");
    if (in_memory(d, len, off))
        return memcpy(buf, d->held + (off - d->sent), len), 0;
    return pread_all(d->fd, buf, len, (off_t)(d->base + off)) == 0
               ? 0 : fail(d, "cannot read the output back");
}

static int dest_pwrite(void *ctx, const void *buf, size_t len, uint64_t off) {
    gzw_dest *d = ctx;
    if (off < d->sent)
        return errno = ESPIPE, fail(d, "already passed on");
    if (in_memory(d, len, off))
        return memcpy(d->held + (off - d->sent), buf, len), 0;
    return pwrite_all(d->fd, buf, len, (off_t)(d->base + off)) == 0 ? 0 : fail(d, "cannot write it");
}

static int dest_truncate(void *ctx, uint64_t size) {
    gzw_dest *d = ctx;
    off_t at = (off_t)(d->base + size);
    if (size < d->sent)
        return errno = ESPIPE, fail(d, "already passed on");
    if (d->kind == GZW_DEST_STREAM && d->fd < 0) { /* held in memory, or nothing yet */
        if (size > d->end)
            return errno = EINVAL, fail(d, "cannot cut it short");
        d->end = size;
        return 0;
    }
    if (ftruncate(d->fd, at) != 0 || lseek(d->fd, at, SEEK_SET) != at)
        return fail(d, "cannot cut it short");
    d->end = size;
    return 0;
}

static int dest_settle(void *ctx, uint64_t off) {
    gzw_dest *d = ctx;
    return d->kind == GZW_DEST_STREAM && !d->hold_all ? stream_pass(d, off) : 0;
}

gzwrap_writer gzw_dest_writer(gzw_dest *d) {
    gzwrap_writer wr = {d, dest_write, dest_pread, dest_pwrite, dest_truncate, dest_settle};
    return wr;
}

int gzw_dest_reopen(gzw_dest *d) {
    if (d->kind == GZW_DEST_STREAM && (d->sent > 0 || d->fd < 0))
        return errno = ESPIPE, -1; /* passed on already (hold_all prevents it) */
    int fd = dup(d->fd); /* the offset is shared: nothing is written after this */
    if (fd >= 0 && lseek(fd, (off_t)d->base, SEEK_SET) != (off_t)d->base) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- success and failure ------------------------------------------------------------------- */

/* Link the unnamed temporary in at `path`; EEXIST when something is there. */
static int link_unnamed(int fd, const char *path) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

static int commit_file(gzw_dest *d) {
    if (d->replacing) {
        /* owner first: chown clears the set-user-ID and set-group-ID bits */
        if (geteuid() == 0)
            (void)fchown(d->fd, d->old.st_uid, d->old.st_gid);
        fchmod(d->fd, d->old.st_mode & 07777);
    }
    if (fsync(d->fd) != 0)
        return fail(d, "cannot write it");
    if (d->kind == GZW_DEST_UNNAMED) {
        if (!d->replacing) /* EEXIST: a file appeared meanwhile, and -f was not asked */
            return link_unnamed(d->fd, d->target) == 0 ? (close(d->fd), d->fd = -1, 0)
                                                       : fail(d, "cannot link the new file in");
        /* replacing: linkat cannot, so a name beside it for the moment of the rename */
        char *tmp = sibling_name(d->target);
        char *x = strstr(tmp, ".gzwrap-") + 8;
        for (unsigned tries = 0;; tries++) {
            unsigned long r = (unsigned long)getpid() * 2654435761u + (unsigned long)time(NULL) +
                              tries * 7919u;
            for (int i = 0; i < 6; i++, r /= 36)
                x[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[r % 36];
            named_tmp = tmp;
            if (link_unnamed(d->fd, tmp) == 0)
                break;
            named_tmp = NULL;
            if (errno != EEXIST || tries == 100) {
                free(tmp);
                return fail(d, "cannot link the new file in");
            }
        }
    }
    close(d->fd);
    d->fd = -1;
    if (rename(named_tmp, d->target) != 0)
        return fail(d, "cannot rename the new file over it");
    free(named_tmp);
    named_tmp = NULL;
    return 0;
}

int gzw_dest_commit(gzw_dest *d) {
    switch (d->kind) {
    case GZW_DEST_STREAM: {
        int r = stream_pass(d, d->end);
        free(d->held);
        d->held = NULL, d->held_cap = 0;
        return r;
    }
    case GZW_DEST_IN_PLACE:
        return 0;
    default:
        return commit_file(d);
    }
}

void gzw_dest_abort(gzw_dest *d) {
    if (d->kind == GZW_DEST_IN_PLACE)
        (void)ftruncate(d->fd, (off_t)d->base);
    if (named_tmp) {
        unlink(named_tmp);
        free(named_tmp);
        named_tmp = NULL;
    }
}

void gzw_dest_on_signal(void) {
    if (named_tmp)
        unlink(named_tmp);
}
