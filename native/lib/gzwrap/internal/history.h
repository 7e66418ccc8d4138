/* internal/history.h — the last 32 KiB of data a deflate stream produced, for an inflater
 * that starts inside the stream (its matches reach back that far).
 *
 * Stored blocks are checksummed where they lie in the input window, never copied; their
 * data is kept only as runs (window offsets), and the bytes are gathered into the history
 * when they are about to be lost (before a refill moves the window, or when the run list
 * is full) or needed (when an inflater takes over). That costs at most 32 KiB of copying
 * per window, not a copy of the data.
 */
#ifndef GZWRAP_INTERNAL_HISTORY_H
#define GZWRAP_INTERNAL_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#define GZW_HISTORY (32u * 1024u)
#define GZW_HISTORY_RUNS 64u

typedef struct gzw_history {
    uint8_t buf[GZW_HISTORY];
    size_t len;                 /* valid bytes at the end of buf[] */
    struct {
        size_t at, len;         /* window offset and length of a run of data */
    } runs[GZW_HISTORY_RUNS];
    unsigned nruns;
} gzw_history;

/* Forget everything: a new stream starts. */
void gzw_history_reset(gzw_history *h);

/* Data bytes window[at, at + len) follow the data so far. Gathers the runs first when the
 * list is full (`window` must then still hold them). */
void gzw_history_add(gzw_history *h, const uint8_t *window, size_t at, size_t len);

/* Copy the runs' bytes from `window` into the history and drop the runs: before the
 * window moves, and before the history is read. */
void gzw_history_gather(gzw_history *h, const uint8_t *window);

/* The history: the last min(32 KiB, all) data bytes, oldest first. */
static inline const uint8_t *gzw_history_bytes(const gzw_history *h) {
    return h->buf + GZW_HISTORY - h->len;
}

#endif
