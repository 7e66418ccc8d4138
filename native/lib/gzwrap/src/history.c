/* history.c — the last 32 KiB of a stream's data, gathered lazily (internal/history.h). */
#include <string.h>

#include "internal/history.h"

void gzw_history_reset(gzw_history *h) {
    h->len = 0;
    h->nruns = 0;
}

void gzw_history_add(gzw_history *h, const uint8_t *window, size_t at, size_t len) {
    if (len == 0)
        return;
    if (h->nruns == GZW_HISTORY_RUNS)
        gzw_history_gather(h, window);
    h->runs[h->nruns].at = at;
    h->runs[h->nruns].len = len;
    h->nruns++;
}

void gzw_history_gather(gzw_history *h, const uint8_t *window) {
    size_t total = 0;
    for (unsigned i = 0; i < h->nruns; i++)
        total += h->runs[i].len;
    /* buf[] ends with the newest byte: the runs' last `take` bytes go to the end, and the
     * newest `keep` bytes of the old history just before them */
    size_t take = total < GZW_HISTORY ? total : GZW_HISTORY;
    size_t keep = h->len < GZW_HISTORY - take ? h->len : GZW_HISTORY - take;
    memmove(h->buf + GZW_HISTORY - take - keep, h->buf + GZW_HISTORY - keep, keep);
    size_t end = GZW_HISTORY, low = GZW_HISTORY - take;
    for (unsigned i = h->nruns; i-- > 0 && end > low;) {
        size_t n = h->runs[i].len < end - low ? h->runs[i].len : end - low;
        memcpy(h->buf + end - n, window + h->runs[i].at + h->runs[i].len - n, n);
        end -= n;
    }
    h->len = keep + take;
    h->nruns = 0;
}
