/* output.h — where the gzwrap command's output goes, and how it appears only on success.
 *
 *   a new or replaced regular file   an unnamed temporary (O_TMPFILE) in the target's folder,
 *                                    linked in (linkat) or renamed over the target on success;
 *                                    a named `.NAME.gzwrap-XXXXXX` only where the file system
 *                                    has no O_TMPFILE. A replaced file keeps its mode and, as
 *                                    root, its owner. A symbolic link is followed.
 *   standard output, a regular file  written in place from its offset, cut back on failure
 *   a pipe, terminal, FIFO, device   streamed: bytes pass as soon as the library settles them
 *                                    (gzwrap_writer.settle); only what may still be patched
 *                                    waits (the current deflate block or gzip member; all of
 *                                    a COMPRESS() value read from a pipe, whose length comes
 *                                    first): in memory up to GZW_HOLD_MAX bytes, beyond that
 *                                    (and for --verify, which reads it all back) in a spool
 *                                    in $TMPDIR.
 *
 * Nothing that is not a regular file is ever unlinked or replaced.
 */
#ifndef GZWRAP_TOOLS_OUTPUT_H
#define GZWRAP_TOOLS_OUTPUT_H

#include <stdint.h>
#include <sys/stat.h>

#include <gzwrap.h>

/* The most output a stream holds in memory before it moves it to a spool file: a write
 * and a read back through $TMPDIR for every byte cost a pipe twice the CPU time of
 * igzip -dc on 16 MiB of random data, where what waits is one block at a time. */
#define GZW_HOLD_MAX ((size_t)8 << 20)

typedef enum gzw_dest_kind {
    GZW_DEST_UNNAMED,  /* O_TMPFILE beside the target */
    GZW_DEST_NAMED,    /* a named temporary beside the target */
    GZW_DEST_IN_PLACE, /* a seekable regular file written from `base` (standard output) */
    GZW_DEST_STREAM,   /* a pipe or device, through the spool */
} gzw_dest_kind;

typedef struct gzw_dest {
    gzw_dest_kind kind;
    const char *name;     /* for messages: the path as given, or "standard output" */
    char *target;         /* the regular file to create or replace (symbolic links resolved) */
    int replacing;        /* target exists: `old` holds its mode and owner */
    struct stat old;
    int fd;               /* the temporary, the file in place, or the spool */
    int out_fd;           /* GZW_DEST_STREAM: where settled bytes go */
    uint64_t base;        /* GZW_DEST_IN_PLACE: the file offset of output byte 0 */
    uint64_t end, sent;   /* GZW_DEST_STREAM: bytes written, bytes passed on */
    char *held;           /* GZW_DEST_STREAM without a spool (fd < 0): bytes [sent, end) */
    size_t held_cap;
    int hold_all;         /* GZW_DEST_STREAM: pass nothing on before gzw_dest_commit */
    int err;              /* errno of the first failed operation */
    const char *why;      /* what failed, for the message */
} gzw_dest;

/* Prepare `path` (-o): refuse an existing one without `force`, a directory, a dangling
 * link. 0, or -1 with d->why and d->err; -2 when it exists and `force` is not given. */
int gzw_dest_open_path(gzw_dest *d, const char *path, int force);

/* Prepare standard output. 0, or -1 with d->why and d->err. */
int gzw_dest_open_stdout(gzw_dest *d);

/* The writer over `d` for gzwrap_stream_convert. */
gzwrap_writer gzw_dest_writer(gzw_dest *d);

/* A file descriptor that reads the whole output back from offset 0 (for --verify), or -1. */
int gzw_dest_reopen(gzw_dest *d);

/* Success: pass on what is held, link or rename the file in. 0, or -1 with d->why, d->err. */
int gzw_dest_commit(gzw_dest *d);

/* Failure: remove the temporary, cut the file in place back. */
void gzw_dest_abort(gzw_dest *d);

/* From a signal handler: remove a named temporary, if any (async-signal-safe). */
void gzw_dest_on_signal(void);

#endif
