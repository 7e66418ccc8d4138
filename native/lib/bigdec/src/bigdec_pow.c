/* bigdec_pow.c — the cache of powers 10^(19 * 2^i) and their inverses.
 *
 * Level i+1 is the square of level i (of its odd part), so building up to level L
 * costs about two multiplications of the top size (the squares shrink geometrically
 * below it), plus one Newton inverse per level (a few more). The cache lives for the
 * process and grows on demand: a program that converts many numbers of one size pays for
 * the powers once (GMP's mpz_get_str recomputes them on every call). Building is serialised by a
 * mutex; built levels are never modified or moved, so readers need no lock once
 * bigdec__pow_get has returned (the mutex release orders the writes before).
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal/bigdec_conv.h"

static bigdec__pow *bigdec__pows[BIGDEC__POW_LEVELS];
static pthread_mutex_t bigdec__pow_lock = PTHREAD_MUTEX_INITIALIZER;

/* Level i + 1 from level i by squaring the odd part 5^w (70% of 10^w's limbs, so ~60%
 * of the work of squaring 10^w), then 10^2w = 5^2w 2^2w by a shift. Cold, timed (medians
 * of 5, AMD family 26, gcc 12 -O2): 65,536 bits 214 -> 205 us, 262,144 bits 2370 -> 2082,
 * 1,048,576 bits 21.05 -> 20.59 ms. */
static bigdec__pow *bigdec__pow_build(const bigdec__pow *prev) {
    size_t on = prev ? 2 * prev->pon : 1; /* 5^w's limbs, at most */
    size_t rawn = on + (prev ? 2 * prev->digits : BIGDEC__CHUNK_DIGITS) / 64 + 1;
    bigdec__pow *w = calloc(1, sizeof *w);
    bigdec__limb *raw = malloc(rawn * sizeof *raw);
    /* p and the odd part in one block (n <= rawn limbs each); y comes when used */
    bigdec__limb *py = malloc(2 * rawn * sizeof *py);
    size_t scratch = (prev ? prev->pon : 0) + bigdec__mul_scratch(prev ? prev->pon : 1);
    bigdec__arena ar = {malloc(scratch * sizeof(bigdec__limb)), 0, scratch, 0};
    if (!w || !raw || !py || !ar.base) {
        free(w), free(raw), free(py), free(ar.base);
        return NULL;
    }
    w->po = py + rawn; /* 5^w, first unnormalised */
    if (prev) {
        bigdec__limb *odd = bigdec__alloc(&ar, prev->pon);
        if (odd) {
            bigdec__rshift(odd, prev->po, prev->pon, prev->poshift);
            bigdec__mul(w->po, odd, prev->pon, odd, prev->pon, &ar);
        }
        w->digits = 2 * prev->digits;
    } else {
        w->po[0] = UINT64_C(19073486328125); /* 5^19 */
        w->digits = BIGDEC__CHUNK_DIGITS;
    }
    on = bigdec__normlen(w->po, on);
    /* 10^w = 5^w 2^w */
    size_t zl = w->digits / 64;
    bigdec__zero(raw, zl);
    raw[zl + on] = bigdec__lshift(raw + zl, w->po, on, (unsigned)(w->digits % 64));
    rawn = bigdec__normlen(raw, zl + on + 1);
    unsigned s = (unsigned)__builtin_clzll(raw[rawn - 1]);
    w->raw = raw;
    w->rawn = rawn;
    w->n = rawn;
    w->shift = s;
    w->p = py;
    bigdec__lshift(w->p, raw, rawn, s);
    w->pon = on;
    w->poshift = (unsigned)__builtin_clzll(w->po[on - 1]);
    bigdec__lshift(w->po, w->po, on, w->poshift);
    int bad = ar.overflow;
    free(ar.base);
    for (w->ylog = 0; ((size_t)1 << w->ylog) < 2 * rawn + 2; w->ylog++)
        ;
    for (w->dlog = 0; ((size_t)1 << w->dlog) < rawn + 1; w->dlog++)
        ;
    if (bad) { /* scratch sizing bug: never hand out a wrong power */
        free(w), free(raw), free(py);
        return NULL;
    }
    return w;
}

const bigdec__pow *bigdec__pow_get(unsigned level) {
    if (level >= BIGDEC__POW_LEVELS)
        return NULL;
    pthread_mutex_lock(&bigdec__pow_lock);
    for (unsigned i = 0; i <= level; i++) {
        if (bigdec__pows[i])
            continue;
        bigdec__pow *w = bigdec__pow_build(i ? bigdec__pows[i - 1] : NULL);
        if (!w)
            break;
        __atomic_store_n(&bigdec__pows[i], w, __ATOMIC_RELEASE); /* next_wanted reads it */
    }
    const bigdec__pow *r = bigdec__pows[level];
    pthread_mutex_unlock(&bigdec__pow_lock);
    return r;
}

static int bigdec__pow_small_asked; /* reset with the cache */

int bigdec__pow_small_wanted(void) {
    return __atomic_exchange_n(&bigdec__pow_small_asked, 1, __ATOMIC_RELAXED);
}

const bigdec__pow *bigdec__pow_peek(unsigned level) {
    return level < BIGDEC__POW_LEVELS ? __atomic_load_n(&bigdec__pows[level], __ATOMIC_ACQUIRE)
                                      : NULL;
}

void bigdec__pow_release(void) {
    __atomic_store_n(&bigdec__pow_small_asked, 0, __ATOMIC_RELAXED);
    /* levels are built upwards from 0: none, nothing to free (and no lock to take) */
    if (!__atomic_load_n(&bigdec__pows[0], __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&bigdec__pow_lock);
    for (unsigned i = 0; i < BIGDEC__POW_LEVELS; i++) {
        if (bigdec__pows[i]) {
            free(bigdec__pows[i]->raw);
            free(bigdec__pows[i]->p);
            free(bigdec__pows[i]->y);
            free(bigdec__pows[i]->ty);
            free(bigdec__pows[i]->td);
            free(bigdec__pows[i]->yl);
            free(bigdec__pows[i]->tr);
            free(bigdec__pows[i]->tyl);
            free(bigdec__pows[i]);
            bigdec__pows[i] = NULL;
        }
    }
    pthread_mutex_unlock(&bigdec__pow_lock);
}

/* y, built under the lock by the first division that asks for it (not with the power:
 * schoolbook divisions and the scaled remainder tree's nodes never read it, and a cold
 * 16,384-bit conversion spent 60% of its instructions on inverses it did not use). */
static const bigdec__limb *bigdec__pow_inverse_locked(bigdec__pow *w) {
    if (w->y_built)
        return w->y;
    size_t cap = bigdec__invert_scratch(w->n);
    bigdec__arena ar = {malloc(cap * sizeof(bigdec__limb)), 0, cap, 0};
    bigdec__limb *y = malloc((w->n + 1) * sizeof *y);
    if (ar.base && y)
        bigdec__invert(y, w->p, w->n, &ar);
    int bad = !ar.base || !y || ar.overflow; /* overflow: a scratch sizing bug */
    free(ar.base);
    if (bad) {
        free(y);
        return NULL;
    }
    w->y = y;
    __atomic_store_n(&w->y_built, 1, __ATOMIC_RELEASE);
    return y;
}

/* Conversions are numbered (from 1) to tell one conversion's requests from the next's. */
static unsigned long bigdec__conversions;
static _Thread_local unsigned long bigdec__conversion;

void bigdec__pow_conversion_begin(void) {
    bigdec__conversion = __atomic_add_fetch(&bigdec__conversions, 1, __ATOMIC_RELAXED);
}

/* Whether a conversion before this one asked for the part whose request is *asked
 * (and if none did, this one's request is recorded). */
static int bigdec__pow_asked_before(unsigned long *asked) {
    unsigned long a = __atomic_load_n(asked, __ATOMIC_RELAXED);
    if (a == 0 || a == bigdec__conversion) {
        __atomic_store_n(asked, bigdec__conversion, __ATOMIC_RELAXED);
        return 0;
    }
    return 1;
}

const bigdec__limb *bigdec__pow_inverse(const bigdec__pow *cw, int now) {
    bigdec__pow *w = (bigdec__pow *)cw; /* only the lazily built parts change */
    if (__atomic_load_n(&w->y_built, __ATOMIC_ACQUIRE))
        return w->y;
    if (!now && !bigdec__pow_asked_before(&w->y_asked))
        return NULL;
    pthread_mutex_lock(&bigdec__pow_lock);
    const bigdec__limb *y = bigdec__pow_inverse_locked(w);
    pthread_mutex_unlock(&bigdec__pow_lock);
    return y;
}

int bigdec__pow_next_wanted(const bigdec__pow *cw, unsigned level) {
    bigdec__pow *w = (bigdec__pow *)cw; /* only next_asked changes */
    if (level + 1 < BIGDEC__POW_LEVELS &&
        __atomic_load_n(&bigdec__pows[level + 1], __ATOMIC_ACQUIRE))
        return 1;
    return bigdec__pow_asked_before(&w->next_asked);
}

/* The transforms are built where a division first asks for them, not with the power:
 * a cold conversion's top split uses its power once, often with a shorter quotient than
 * the transform is for, and building them with the power cost 2-5% more instructions
 * per cold conversion at 262,144 to 1,048,576 bits. Each costs what the product would
 * have spent on it; from the second division by the power on, it is saved (3 (2^ylog +
 * 2^dlog) words, about 4.5 times the power's own 2n). */
const uint64_t *bigdec__pow_transform(const bigdec__pow *cw, int which) {
    bigdec__pow *w = (bigdec__pow *)cw; /* only the lazily built transforms change */
    uint64_t **slot = which == 2 ? &w->tr : which ? &w->td : &w->ty;
    uint64_t *t = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (t || (which != 2 && w->n < bigdec__ntt_threshold()))
        return t;
    pthread_mutex_lock(&bigdec__pow_lock);
    t = *slot;
    if (!t && (which != 0 || bigdec__pow_inverse_locked(w))) {
        unsigned log = which == 1 ? w->dlog : w->ylog;
        const bigdec__limb *b = which == 2 ? w->raw : which ? w->p : w->y;
        t = aligned_alloc(64, BIGDEC__NTT_PRE_WORDS(log) * sizeof *t); /* as the NTT's own */
        if (t && bigdec__ntt_transform(t, b, which == 0 ? w->n + 1 : w->n, log) != 0) {
            free(t);
            t = NULL;
        }
        if (t)
            __atomic_store_n(slot, t, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&bigdec__pow_lock);
    return t;
}

/* Built when a second conversion asks for it, not the first: only levels that head a
 * scaled remainder tree need it, and building it with the transforms the tree keeps
 * cost a cold conversion 8-14% more instructions than the divisions it saves in that
 * one call (262,144 to 3,321,928 bits). So a program that converts once divides as
 * before, and one that converts again at that size pays for the tree once. */
const bigdec__limb *bigdec__pow_inverse_long(const bigdec__pow *cw) {
    bigdec__pow *w = (bigdec__pow *)cw; /* only the lazily built parts change */
    bigdec__limb *yl = __atomic_load_n(&w->yl, __ATOMIC_ACQUIRE);
    if (yl)
        return yl;
    if (!bigdec__pow_asked_before(&w->yl_asked)) /* the caller divides */
        return NULL;
    pthread_mutex_lock(&bigdec__pow_lock);
    yl = w->yl;
    if (!yl && bigdec__pow_inverse_locked(w)) {
        size_t cap = 4 * w->n + 256 + bigdec__mul_scratch(w->n + 1);
        bigdec__arena ar = {malloc(cap * sizeof(bigdec__limb)), 0, cap, 0};
        yl = malloc(bigdec__srt_inverse_limbs(w->n) * sizeof *yl);
        if (!ar.base || !yl || bigdec__srt_inverse(yl, w, &ar) != 0 || ar.overflow) {
            free(yl);
            yl = NULL;
        }
        free(ar.base);
        if (yl)
            __atomic_store_n(&w->yl, yl, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&bigdec__pow_lock);
    return yl;
}

const uint64_t *bigdec__pow_transform_long(const bigdec__pow *cw, size_t guard) {
    bigdec__pow *w = (bigdec__pow *)cw;
    uint64_t *t = __atomic_load_n(&w->tyl, __ATOMIC_ACQUIRE);
    if (t)
        return w->tyl_guard == guard ? t : NULL;
    const bigdec__limb *yl = bigdec__pow_inverse_long(w);
    if (!yl)
        return NULL;
    pthread_mutex_lock(&bigdec__pow_lock);
    t = w->tyl;
    if (!t) {
        size_t G = bigdec__srt_inverse_limbs(w->n) - w->n - 1, len = w->n + 1 + guard;
        t = guard <= G ? aligned_alloc(64, BIGDEC__NTT_PRE_WORDS(w->ylog) * sizeof *t) : NULL;
        if (t && bigdec__ntt_transform(t, yl + (G - guard), len, w->ylog) != 0) {
            free(t);
            t = NULL;
        }
        if (t) {
            w->tyl_guard = guard;
            __atomic_store_n(&w->tyl, t, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&bigdec__pow_lock);
    return t && w->tyl_guard == guard ? t : NULL;
}
