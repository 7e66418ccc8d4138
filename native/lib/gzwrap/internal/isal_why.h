/* internal/isal_why.h — an igzip error status in zlib's words, for both ISA-L inflaters.
 * Included after an igzip_lib.h (the system's or the bundled one: the same statuses). */
#ifndef GZWRAP_INTERNAL_ISAL_WHY_H
#define GZWRAP_INTERNAL_ISAL_WHY_H

static inline const char *gzw_isal_why(int ret) {
    switch (ret) {
    case ISAL_INVALID_BLOCK: return "invalid block";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    default: return "invalid deflate data";
    }
}

#endif
