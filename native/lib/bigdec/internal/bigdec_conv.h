/* bigdec_conv.h — the conversion's parts: digit emission, basecase, powers, D&C (private).
 *
 * Conversion writes digits left to right. A part of a number is converted either with
 * "variable" width (no leading zeros; only the most significant part of the whole
 * number) or with a fixed width (exactly `width` digits, zero padded), which is what
 * every lower part produced by a split at 10^w is.
 */
#ifndef BIGDEC_INTERNAL_CONV_H
#define BIGDEC_INTERNAL_CONV_H

#include "internal/bigdec_mpn.h"

#define BIGDEC__CHUNK_DIGITS 19                  /* 10^19 < 2^64 <= 10^20 */
#define BIGDEC__TEN19 UINT64_C(10000000000000000000)
/* floor((2^128 - 1) / 10^19) - 2^64, the reciprocal div_2by1 needs */
#define BIGDEC__TEN19_INV UINT64_C(0xd83c94fb6d2ac34a)

/* Numbers up to this many limbs are converted by the basecase (quadratic, but with
 * small constants); above it by divide and conquer. With Barrett splits only, 128
 * was best (timed against GMP's mpz_get_str on an AMD family 26: at 48 limbs 4096
 * bits ran 1.05x GMP's speed, at 128 limbs 1.24x). With schoolbook splits by the
 * power's odd part a split costs less than the basecase's quadratic work above 64
 * (callgrind, warm, gcc 12 -O2: 8192 bits 2.01e5 instructions at 128, 1.59e5 at 64;
 * 16,384 bits 5.87e5 and 5.02e5; 4096 bits, 64 limbs, unchanged); with the division
 * by divide and conquer and the ADX rows, above 48 where the power is cached (timed,
 * medians of 5, gcc 12 -O2, us, threshold 64 against 48: 3100 bits 1.9 / 1.7, 3500
 * bits 2.3 / 2.0, 4096 bits 3.1 / 2.5). A whole number of up to
 * BIGDEC__DC_COLD_THRESHOLD limbs whose top power is not cached yet keeps to the
 * basecase in a first conversion: building the power costs more than one split saves
 * (cold 3100 bits 1.9 against 2.3 us, 3900 bits 2.8 against 3.0); a second builds it. */
#ifndef BIGDEC__DC_THRESHOLD
#define BIGDEC__DC_THRESHOLD 48
#endif
#ifndef BIGDEC__DC_COLD_THRESHOLD
#define BIGDEC__DC_COLD_THRESHOLD 64
#endif

/* Splits by powers of at most this many limbs divide by the power's odd part 5^w (no
 * inverse), by divide and conquer (bigdec__divrem_dc, schoolbook below 20 limbs); larger
 * powers use a Newton inverse for Barrett's division. Each choice below has a value for
 * the scalar transforms and one for the IFMA ones (bigdec__ntt_fast()), whose products
 * from ~256 limbs cost 0.4-0.55 of Toom-3's. Timed warm against Barrett with the cached
 * inverse (AMD family 26, gcc 12 -O2, medians of 5), scalar: 65,536 bits 296 us at 256
 * limbs, 264 at 512; 131,072 bits 901 at 512, 831 at 1024, 829 at 2048; 262,144 bits
 * 2148 at 1024, 2591 at 2048 (its top split then takes a longer quotient by division
 * rather than Barrett's split by the next power). IFMA (with the tree from 19 * 2^11
 * digits and inverses as below): 32,768 / 65,536 / 131,072 bits 49.9 / 117 / 281 us at
 * 128, 55.4 / 131 / 282 at 256, 165 us at 512 and 489 at 1024 for 65,536 / 131,072
 * bits; cold alike at 128 and 256. */
#ifndef BIGDEC__DIV_ODD_MAX
#define BIGDEC__DIV_ODD_MAX 1024
#endif
#ifndef BIGDEC__DIV_ODD_MAX_IFMA
#define BIGDEC__DIV_ODD_MAX_IFMA 128
#endif
/* A top split may take a quotient up to 1/8 longer than the power, by the odd part,
 * rather than build the next level, for powers up to this many limbs (bigdec_dc.c). */
#ifndef BIGDEC__DIV_LONG_MAX
#define BIGDEC__DIV_LONG_MAX 2048
#endif
/* ... and so do larger powers in a conversion that is the first to ask for their
 * inverse, unless the power has at least BIGDEC__DIV_INV_MIN limbs (where Barrett's
 * products go to the NTT with kept transforms) and the conversion splits by it at least
 * BIGDEC__DIV_INV_SPLITS times (a k-limb power splits ~n/2k times in an n-limb
 * conversion, and the inverse costs a few products). Cold, timed with the ADX rows
 * (medians of 3, us), 262,144 / 524,288 / 1,048,576 / 2,097,152 / 10^6 digits: from 4
 * splits at any size 1704 / 6239 / 17,578 / 47,180 / 83,176; 6 splits 1700 / 5511 /
 * 16,623 / 46,651 / 81,744; never 1654 / 5531 / 16,181 / 46,965 / 85,436; 6 splits
 * from 3000 limbs 1667 / 5488 / 16,064 / 46,177 / 81,246; from 6000 limbs 1659 / 5489 /
 * 16,054 / 46,508 / 83,259. With the IFMA transforms an inverse pays at its first use
 * from a few hundred limbs, 65,536 / 262,144 / 1,048,576 bits / 10^6 digits cold: 174 /
 * 1074 / 4906 / 18,391 us from 300 limbs and 1 split; from 150 limbs and 3 splits 183 /
 * 1041 / 5770 / 20,745; 5 splits 179 / 1192 / 6727 / 24,311. */
#ifndef BIGDEC__DIV_INV_SPLITS
#define BIGDEC__DIV_INV_SPLITS 6
#endif
#ifndef BIGDEC__DIV_INV_MIN
#define BIGDEC__DIV_INV_MIN 3000
#endif
#ifndef BIGDEC__DIV_INV_SPLITS_IFMA
#define BIGDEC__DIV_INV_SPLITS_IFMA 1
#endif
#ifndef BIGDEC__DIV_INV_MIN_IFMA
#define BIGDEC__DIV_INV_MIN_IFMA 300
#endif
/* ... and so does a split whose quotient has at most 1 / this of the power's limbs
 * (a top split just above a power's square: 16,384 bits divide by a 253-limb power
 * with a 3-limb quotient). */
#ifndef BIGDEC__DIV_ODD_QUOTIENT
#define BIGDEC__DIV_ODD_QUOTIENT 8
#endif

/* Fixed-width parts of at least 19 * 2^bigdec__srt_min_log digits go to the scaled
 * remainder tree (bigdec_dc.c says why that many); 0 leaves the choice to the CPU's
 * transforms, and a test may lower it, before any conversion, to reach the tree with
 * smaller numbers. */
extern unsigned bigdec__srt_min_log;

/* ---- bigdec_digits.c ---- */

/* Write c < 10^19 as exactly 19 digits (leading zeros kept). */
void bigdec__chunk_fixed(char *out, uint64_t c);
/* Write v without leading zeros ("0" for 0), 1 to 20 digits; returns their count. */
size_t bigdec__u64(char *out, uint64_t v);

/* ---- bigdec_basecase.c ---- */

/* Convert x (n <= BIGDEC__DC_COLD_THRESHOLD limbs, high zeros allowed). width == 0:
 * variable width, writes nothing for 0; width > 0: exactly `width` digits, x < 10^width,
 * width a multiple of 19. Returns the digits written. */
size_t bigdec__basecase(char *out, const bigdec__limb *x, size_t n, size_t width);

/* ---- bigdec_pow.c ---- */

/* 10^(19 * 2^i), prepared for division: p = 10^(19 * 2^i) << shift, normalised (top bit
 * of p[n-1] set), and its inverse y ~ B^(2n) / p (n + 1 limbs). Immutable once built. */
typedef struct bigdec__pow {
    size_t digits;   /* 19 * 2^i */
    size_t n;        /* limbs of p */
    unsigned shift;  /* bits p is shifted left by */
    bigdec__limb *p; /* n limbs */
    bigdec__limb *y; /* n + 1 limbs, set once y_built (bigdec__pow_inverse) */
    int y_built;     /* read with acquire loads */
    unsigned long y_asked; /* the conversion that first asked for y (0: none) */
    /* the conversion that first split by this power with a quotient longer than it,
     * where the next level would have been its first use (0: none) */
    unsigned long next_asked;
    bigdec__limb *raw; /* 10^(19 * 2^i) unshifted, rawn limbs (the tree's products) */
    /* 5^(19 * 2^i) << poshift, normalised, pon limbs: splits without an inverse divide
     * by the odd part of the power (30% fewer limbs) and take the low bits of x as they
     * are; level i + 1 squares it */
    bigdec__limb *po;
    size_t pon;
    unsigned poshift;
    size_t rawn;
    /* From BIGDEC__NTT_THRESHOLD limbs: the forward transforms of y (length 2^ylog, for
     * Barrett's y * n_top with an (n + 1)-limb quotient) and of p (cyclic, 2^dlog, for
     * q p), built on first use by bigdec__pow_transform and never changed after. */
    unsigned ylog, dlog;
    uint64_t *ty, *td; /* NULL until built (read with acquire loads) */
    uint64_t *tr;      /* raw's, cyclic, 2^ylog: the scaled remainder tree's products */
    /* floor(B^(2n + G) / p), bigdec__srt_inverse_limbs(n) limbs: the scaled remainder
     * tree's entry; NULL until built by bigdec__pow_inverse_long */
    bigdec__limb *yl;
    unsigned long yl_asked; /* the conversion that first asked for yl (0: none) */
    /* the forward transform (2^ylog) of yl's top n + 1 + tyl_guard limbs: the entry's
     * product; NULL until built by bigdec__pow_transform_long */
    uint64_t *tyl;
    size_t tyl_guard;
} bigdec__pow;

#define BIGDEC__POW_LEVELS 48

/* Make sure levels 0..level exist (building the missing ones under a lock) and return
 * level `level`; NULL when memory ran out (the cache is left as it was). */
const bigdec__pow *bigdec__pow_get(unsigned level);
/* Level `level` if it is built, else NULL; builds nothing. */
const bigdec__pow *bigdec__pow_peek(unsigned level);
/* Whether an earlier conversion (since the cache was last released) converted by the
 * basecase a number that a cached power would have split; records this one's. */
int bigdec__pow_small_wanted(void);

/* Whether level `level` + 1 is built, or an earlier conversion wanted it in place of a
 * longer quotient by `w` (level `level`); else this conversion's wish is recorded, so
 * that the next one builds it. */
int bigdec__pow_next_wanted(const bigdec__pow *w, unsigned level);

void bigdec__pow_release(void);

/* w's inverse y, built (under the cache's lock) if it is not yet: now, or (now == 0)
 * when a second conversion asks for it. NULL before, or if it cannot be had: the
 * caller then divides by schoolbook, which needs no memory. */
const bigdec__limb *bigdec__pow_inverse(const bigdec__pow *w, int now);

/* w's transform of y (which = 0), of p (which = 1) or of raw (which = 2, length
 * 2^ylog), built now if this is its first use (under the cache's lock); NULL below the
 * threshold or if it cannot be had. */
const uint64_t *bigdec__pow_transform(const bigdec__pow *w, int which);

/* w's long inverse (see bigdec__pow.yl), built (under the cache's lock) when a second
 * conversion asks for it; NULL before, or if it cannot be had. */
const bigdec__limb *bigdec__pow_inverse_long(const bigdec__pow *w);
/* Number the calling thread's conversion (for bigdec__pow_inverse_long). */
void bigdec__pow_conversion_begin(void);

/* The transform of the top n + 1 + guard limbs of w's long inverse, of length 2^ylog,
 * built on first use; NULL where it cannot be had (or was built for another guard). */
const uint64_t *bigdec__pow_transform_long(const bigdec__pow *w, size_t guard);

/* ---- bigdec_srt.c ---- */

/* Convert r (rn limbs, r < 10^width) in exactly `width` digits by the scaled remainder
 * tree. 0: done; 1: an ambiguous leaf (digits near a block edge: the caller converts r
 * exactly, out may hold garbage); 2: not tried (a width that is not 19 * 2^K, out of
 * the tree's range, or the long inverse cannot be had); -1: internal error. Scratch:
 * bigdec__srt_scratch(n) for r's power's n. */
int bigdec__srt(char *out, const bigdec__limb *r, size_t rn, size_t width, bigdec__arena *ar);
size_t bigdec__srt_scratch(size_t n);
/* The long inverse of w: yl (bigdec__srt_inverse_limbs(w->n) limbs) = floor(B^(2n+G)/p).
 * Scratch: 4 n + 2 G + 8 + bigdec__mul_scratch(n + 1). 0, or -1 if y was far off. */
size_t bigdec__srt_inverse_limbs(size_t n);
int bigdec__srt_inverse(bigdec__limb *yl, const bigdec__pow *w, bigdec__arena *ar);

/* ---- bigdec_dc.c ---- */

/* Convert x (n limbs) in width `width` (0: variable) at out; returns digits written,
 * or (size_t)-1 on an internal error. Scratch from `ar` (bigdec__dc_scratch(n)). */
size_t bigdec__dc(char *out, const bigdec__limb *x, size_t n, size_t width, bigdec__arena *ar);
size_t bigdec__dc_scratch(size_t n);

/* The largest level the D&C of a `bits`-bit number uses: its top split's. Builds the
 * levels up to it (all that the conversion needs), so a conversion fails, if memory runs
 * out, before it writes a digit. NULL's level is returned as well: pow_get tells. */
unsigned bigdec__dc_top_level(size_t bits);
/* Whether the power the top split of a `bits`-bit number divides by is cached (a
 * shorter level that would split it with a longer quotient counts); builds nothing and
 * records no wish. */
int bigdec__dc_top_cached(size_t bits);

#endif
