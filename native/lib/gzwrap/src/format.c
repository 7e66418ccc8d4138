/* format.c — names, statuses, and telling the four formats apart by their first bytes.
 *
 * gzip starts 1F 8B; zlib with CMF FLG where CM = 8, CINFO <= 7 and CMF*256 + FLG is a
 * multiple of 31 (RFC 1950 2.2); COMPRESS() with a 4-byte length and then such a pair.
 * About 1 in 1,000 COMPRESS() lengths have low 16 bits that are themselves a valid zlib
 * header (40,056 bytes gives 78 9C 00 00 78 9C): then the zlib reading must also begin
 * with a well-formed deflate block (not BTYPE 11; a stored block's LEN = ~NLEN), and a
 * COMPRESS() length has its top two bits clear (MariaDB masks 30 bits). What survives
 * both readings is reported as ambiguous rather than guessed.
 */
#include <string.h>

#include "internal/conv.h"

static const char *const STATUS[] = {
    [GZWRAP_OK] = "ok",
    [GZWRAP_ERR_ARG] = "invalid argument",
    [GZWRAP_ERR_FORMAT] = "not the expected format",
    [GZWRAP_ERR_AMBIGUOUS] = "ambiguous format",
    [GZWRAP_ERR_HEADER] = "bad header",
    [GZWRAP_ERR_TRUNCATED] = "truncated input",
    [GZWRAP_ERR_DATA] = "corrupt deflate data",
    [GZWRAP_ERR_CHECKSUM] = "checksum mismatch",
    [GZWRAP_ERR_LENGTH] = "length mismatch",
    [GZWRAP_ERR_TRAILING] = "trailing data",
    [GZWRAP_ERR_UNSUPPORTED] = "unsupported",
    [GZWRAP_ERR_TOO_LARGE] = "too large for the target",
    [GZWRAP_ERR_NEEDS_SEEK] = "output must be seekable",
    [GZWRAP_ERR_UNAVAILABLE] = "implementation not available",
    [GZWRAP_ERR_READ] = "read error",
    [GZWRAP_ERR_WRITE] = "write error",
    [GZWRAP_ERR_NOMEM] = "out of memory",
    [GZWRAP_ERR_OUTPUT_FULL] = "output buffer too small",
};

const char *gzwrap_status_str(gzwrap_status status) {
    if ((unsigned)status < sizeof STATUS / sizeof *STATUS && STATUS[status])
        return STATUS[status];
    return "unknown status";
}

static const char *const FORMATS[] = {"auto", "gzip", "zlib", "deflate", "mysql"};

const char *gzwrap_format_name(gzwrap_format format) {
    return (unsigned)format < sizeof FORMATS / sizeof *FORMATS ? FORMATS[format] : NULL;
}

gzwrap_status gzwrap_format_parse(const char *name, gzwrap_format *out) {
    if (!name || !out)
        return GZWRAP_ERR_ARG;
    if (strcmp(name, "compress") == 0)
        return *out = GZWRAP_FORMAT_MYSQL, GZWRAP_OK;
    for (unsigned i = 0; i < sizeof FORMATS / sizeof *FORMATS; i++)
        if (strcmp(name, FORMATS[i]) == 0)
            return *out = (gzwrap_format)i, GZWRAP_OK;
    return GZWRAP_ERR_ARG;
}

int gzw_zlib_header_valid(unsigned cmf, unsigned flg) {
    return (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && (cmf * 256 + flg) % 31 == 0;
}

/* Whether the zlib reading's first deflate block (from byte 2) is impossible. */
static int zlib_reading_broken(const uint8_t *b, size_t len) {
    unsigned btype = (b[2] >> 1) & 3;
    if (btype == 3)
        return 1;
    if (btype == 0 && len >= 7) {
        unsigned n = b[3] | (unsigned)b[4] << 8, nn = b[5] | (unsigned)b[6] << 8;
        return n != (~nn & 0xffff);
    }
    return 0;
}

gzwrap_status gzwrap_format_detect(const void *head, size_t len, int at_eof,
                                   gzwrap_format *out) {
    const uint8_t *b = head;
    if ((!b && len) || !out)
        return GZWRAP_ERR_ARG;
    if (len == 0) /* COMPRESS('') is '', but an empty input is more likely a mistake */
        return at_eof ? GZWRAP_ERR_FORMAT : GZWRAP_ERR_TRUNCATED;
    if (len < 7 && !at_eof)
        return GZWRAP_ERR_TRUNCATED;
    if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return *out = GZWRAP_FORMAT_GZIP, GZWRAP_OK;
    int z0 = len >= 3 && gzw_zlib_header_valid(b[0], b[1]);
    int z4 = len >= 7 && gzw_zlib_header_valid(b[4], b[5]);
    if (z0 && z4) {
        if (b[3] > 0x3f)
            z4 = 0;
        else if (zlib_reading_broken(b, len))
            z0 = 0;
        else
            return GZWRAP_ERR_AMBIGUOUS;
    }
    if (z0)
        return *out = GZWRAP_FORMAT_ZLIB, GZWRAP_OK;
    if (z4)
        return *out = GZWRAP_FORMAT_MYSQL, GZWRAP_OK;
    return GZWRAP_ERR_FORMAT;
}
