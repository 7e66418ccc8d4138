/* bigdec.h — big unsigned (and sign-magnitude) integers to decimal strings.
 *
 * A number is an array of 64-bit limbs, least significant first (the layout of GMP's
 * mpn functions and of `int.to_bytes(..., "little")` read as uint64 words on a
 * little-endian machine). High zero limbs are allowed.
 *
 * How: up to 64 limbs (~1,233 digits), 19-digit chunks are peeled off by dividing by
 * 10^19 with a precomputed reciprocal (no `div` instruction) and written with a
 * two-digit table (no per-digit division). Above that, divide and conquer: x = q 10^w +
 * r with 10^w = 10^(19 2^i) near sqrt(x), both halves recursively; the powers and their
 * Newton inverses are cached for the process, divisions by powers up to 1024 limbs
 * divide by the power's odd part by divide and conquer and by larger ones Barrett (two
 * multiplications, with the inverse), and long fixed-width halves go
 * through a scaled remainder tree (one multiplication a split), so the cost grows like
 * n^1.5 rather than n^2.
 *
 * Sizes: bigdec_size() gives the buffer size for a number from its bit length alone:
 * floor(bits log10(2)) + 1 digits (exact for the largest number of that bit length,
 * and at most one more than the digits of any other) plus the terminating NUL, plus
 * one for the sign in the signed form. The functions write NUL-terminated text and
 * report the exact length.
 *
 * Errors: a status; on any error nothing is written to the buffer.
 * NULL pointers (the one rule of every cpulab header): a pointer argument may be NULL only
 * where its comment says so. Every function that returns a bigdec_status checks
 * the others and returns BIGDEC_ERR_ARG for a NULL one, writing nothing; limbs may be
 * NULL when n is 0. bigdec_size and bigdec_size_signed return 0 for a NULL limbs with
 * n > 0.
 *
 * Memory: the
 * conversion of an n-limb number above the basecase allocates ~13n limbs of scratch
 * with malloc (freed before returning) and grows the power cache; a failed allocation
 * is BIGDEC_ERR_NOMEM. Threads: every function may be called from several threads at
 * once, except bigdec_cache_release.
 */
#ifndef BIGDEC_H
#define BIGDEC_H

/* The version of this header and of the library built with it (semantic versioning).
 * BIGDEC_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, for use in #if. */
#define BIGDEC_VERSION_MAJOR 0
#define BIGDEC_VERSION_MINOR 2
#define BIGDEC_VERSION_PATCH 0
#define BIGDEC_VERSION (BIGDEC_VERSION_MAJOR * 10000 + BIGDEC_VERSION_MINOR * 100 + BIGDEC_VERSION_PATCH)
#define BIGDEC_VERSION_STRING "0.2.0"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bigdec_status {
    BIGDEC_OK = 0,
    BIGDEC_ERR_ARG = 1,      /**< a NULL pointer where one is needed, or too many limbs */
    BIGDEC_ERR_SPACE = 2,    /**< cap is smaller than bigdec_size() for this number */
    BIGDEC_ERR_NOMEM = 3,    /**< scratch or power-cache allocation failed */
    BIGDEC_ERR_INTERNAL = 4, /**< an internal consistency check failed (a bug; please report) */
} bigdec_status;

/** The most decimal digits a number of `bits` bits can have: floor(bits log10 2) + 1
 * (1 for bits = 0). Exact, computed in fixed point with 128 fractional bits (valid
 * for bits < 2^50, far beyond addressable memory). */
uint64_t bigdec_digits_max(uint64_t bits);

/** Bytes needed by bigdec_write for this number: bigdec_digits_max(bit length) + 1
 * (the NUL). 0 if limbs is NULL with n > 0 or the number is too large to address. */
size_t bigdec_size(const uint64_t *limbs, size_t n);

/** Bytes needed by bigdec_write_signed: bigdec_size() plus 1 for the '-' when
 * `negative` is nonzero (a negative zero is printed as "0" but sized with the sign). */
size_t bigdec_size_signed(int negative, const uint64_t *limbs, size_t n);

/** Write the decimal digits of the unsigned number limbs[0 .. n) and a NUL into buf.
 * cap must be at least bigdec_size(limbs, n) (BIGDEC_ERR_SPACE otherwise). *len, if len
 * is not NULL, receives the number of digits (strlen of the result). n = 0 is zero. */
bigdec_status bigdec_write(char *buf, size_t cap, const uint64_t *limbs, size_t n,
                           size_t *len);

/** As bigdec_write, for the integer (-1)^negative * limbs: a '-' in front when negative
 * and the magnitude is not zero. cap must be at least bigdec_size_signed(). */
bigdec_status bigdec_write_signed(char *buf, size_t cap, int negative, const uint64_t *limbs,
                                  size_t n, size_t *len);

/** Free the cached powers of ten. Not safe while another thread converts. The twiddle
 * tables of the multiplication's transforms stay: written once per process as far as
 * the longest product so far needed (96 bytes per limb of a transform's length, at
 * most 144 MB of address space reserved for them, of which only that much is touched). */
void bigdec_cache_release(void);

/** A short English description of a status ("ok", "buffer too small", ...). */
const char *bigdec_status_str(bigdec_status status);

#ifdef __cplusplus
}
#endif

#endif /* BIGDEC_H */
