/* scan.c — a deflate stream's block structure, by decoding its codes without the data.
 *
 * Joining gzip members needs the bit where each member's final block starts (src/join.c),
 * which the fast inflater does not report. Inflating again to find it costs as much as
 * the first inflate; most of that is producing the data (match copies, the window), so
 * this walk decodes only the codes: one table lookup per literal, two per match, each
 * table entry giving the bits to skip (code and extra bits together).
 *
 * Tables are indexed by the next input bits (deflate sends Huffman codes starting with
 * their most significant bit, so a code's table slots are its bits reversed, below every
 * value of the bits above it): 11 bits for literals and lengths, 8 for distances, and a
 * subtable for the bits of longer codes, as zlib and libdeflate do.
 */
#include <string.h>

#include "internal/scan.h"

enum { LIT = 0, LEN = 1, EOB = 2, BAD = 3, SUB = 4 };
/* An entry: kind, the bits to skip (code and extra bits, or for SUB the primary bits),
 * and for SUB where its subtable starts. */
#define ENTRY(kind, skip) ((uint32_t)(kind) << 24 | (uint32_t)(skip) << 16)
#define KIND(e) ((e) >> 24)
#define SKIP(e) ((e) >> 16 & 0xff)
#define SUBTABLE(e) ((e)&0xffff)
#define LIT_BITS 11 /* primary table index bits: 8 KiB, in L1 */
#define DIST_BITS 8

typedef struct bits {
    const uint8_t *p;
    size_t n, pos; /* bytes loaded into buf so far */
    uint64_t buf;
    unsigned cnt;  /* valid bits in buf */
} bits;

/* At least 56 valid bits in the buffer, or all that is left of the input. */
static inline void refill(bits *b) {
    if (b->pos + 8 <= b->n) {
        uint64_t w;
        memcpy(&w, b->p + b->pos, 8);
        b->buf |= w << b->cnt;
        b->pos += (63 - b->cnt) >> 3;
        b->cnt |= 56;
        return;
    }
    while (b->cnt <= 56 && b->pos < b->n)
        b->buf |= (uint64_t)b->p[b->pos++] << b->cnt, b->cnt += 8;
}

static inline uint64_t bit_offset(const bits *b) { return (uint64_t)b->pos * 8 - b->cnt; }

/* Take k <= 32 bits (refilled); -1 when the input ends first. */
static inline int take(bits *b, unsigned k, uint32_t *v) {
    if (b->cnt < k) {
        refill(b);
        if (b->cnt < k)
            return -1;
    }
    *v = (uint32_t)(b->buf & ((1ull << k) - 1));
    b->buf >>= k, b->cnt -= k;
    return 0;
}

static const uint8_t LEN_EXTRA[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint8_t DIST_EXTRA[30] = {0, 0, 0, 0, 1, 1, 2,  2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* The canonical code of lengths lens[0, nsym) (RFC 1951 3.2.2), checked as zlib checks
 * it: next[l] becomes the first code of length l. Returns the longest length (0 when no
 * symbol has a code), or -1 for a set that is over-subscribed, or incomplete other than
 * by one code of one bit where `one_bit_ok` allows that (zlib: literal/length and
 * distance codes, never the code length code). */
static int canonical(const uint8_t *lens, unsigned nsym, unsigned next[16], int one_bit_ok) {
    unsigned count[16] = {0}, code = 0;
    for (unsigned s = 0; s < nsym; s++)
        count[lens[s]]++;
    int left = 1, max = 0;
    for (int l = 1; l <= 15; l++) {
        left = left * 2 - (int)count[l];
        if (left < 0)
            return -1;
        if (count[l])
            max = l;
    }
    if (max > 0 && left > 0 && !(one_bit_ok && max == 1))
        return -1;
    next[1] = 0;
    for (int l = 1; l < 15; l++)
        next[l + 1] = code = (code + count[l]) << 1;
    return max;
}

/* Code c of length l as it arrives: its bits reversed. */
static unsigned reversed(unsigned c, unsigned l) {
    unsigned r = 0;
    for (unsigned i = 0; i < l; i++)
        r |= (c >> i & 1) << (l - 1 - i);
    return r;
}

/* A code's lookup tables from its lengths: a primary table of `pbits` index bits, and
 * for the primary slots of longer codes a subtable of the bits above, all in `table`.
 * Each entry gives the bits to skip: code length plus extra bits (lengths and distances);
 * a primary entry holds as many literal codes in a row as fit its bits, so runs of
 * literals take one lookup per few. `dist`: a distance code (symbols 30, 31 invalid),
 * else literal/length (286, 287 invalid). Returns the subtable index bits (0: none), or
 * -1 for a code zlib refuses (over-subscribed; incomplete unless one code of one bit;
 * no literal/length code). */
static int build(uint32_t *table, int pbits, const uint8_t *lens, unsigned nsym, int dist) {
    unsigned next[16];
    int max = canonical(lens, nsym, next, 1);
    if (max < 0 || (max == 0 && !dist))
        return -1;
    unsigned psize = 1u << pbits, sbits = max > pbits ? (unsigned)(max - pbits) : 0;
    for (unsigned i = 0; i < psize; i++)
        table[i] = ENTRY(BAD, 0);
    unsigned subs = psize; /* where the next subtable goes */
    for (unsigned s = 0; s < nsym; s++) {
        unsigned l = lens[s];
        if (!l)
            continue;
        unsigned r = reversed(next[l]++, l);
        uint32_t e;
        if (dist)
            e = s < 30 ? ENTRY(LIT, l + DIST_EXTRA[s]) : ENTRY(BAD, 0);
        else if (s < 256)
            e = ENTRY(LIT, l);
        else if (s == 256)
            e = ENTRY(EOB, l);
        else
            e = s < 286 ? ENTRY(LEN, l + LEN_EXTRA[s - 257]) : ENTRY(BAD, 0);
        if ((int)l <= pbits) {
            for (unsigned i = r; i < psize; i += 1u << l)
                table[i] = e;
            continue;
        }
        /* a longer code: its primary slot points at a subtable of the sbits above */
        uint32_t *slot = &table[r & (psize - 1)];
        if (KIND(*slot) != SUB) {
            *slot = ENTRY(SUB, pbits) | subs;
            for (unsigned i = 0; i < 1u << sbits; i++)
                table[subs + i] = ENTRY(BAD, 0);
            subs += 1u << sbits;
        }
        uint32_t *sub = &table[SUBTABLE(*slot)];
        for (unsigned i = r >> pbits; i < 1u << sbits; i += 1u << (l - pbits))
            sub[i] = e;
    }
    if (!dist) /* literals in a row: add the next code's bits while it is a literal too */
        for (unsigned i = 0; i < psize; i++) {
            uint32_t e = table[i];
            unsigned k = SKIP(e);
            for (int n = 1; KIND(e) == LIT && n < 4; n++) {
                uint32_t e2 = table[i >> k];
                if (KIND(e2) != LIT || k + SKIP(e2) > (unsigned)pbits)
                    break;
                k += SKIP(e2);
            }
            if (KIND(e) == LIT)
                table[i] = ENTRY(LIT, k);
        }
    return (int)sbits;
}

static int fail(bits *b, gzw_scan_result *res, const char **why, const char *what) {
    res->error_at = b->pos < b->n ? bit_offset(b) / 8 : b->n;
    *why = what;
    return -1;
}

/* One entry for the next input bits: a primary entry, or the subtable's it points to. */
static inline uint32_t lookup(const uint32_t *t, int pbits, int sbits, uint64_t buf) {
    uint32_t e = t[buf & ((1u << pbits) - 1)];
    if (KIND(e) == SUB)
        e = t[SUBTABLE(e) + (buf >> pbits & ((1u << sbits) - 1))];
    return e;
}

/* The codes of one Huffman block, to its end-of-block code. The bit buffer lives in
 * locals here (the loop's dependency chain is lookup, shift, lookup: no trip through
 * memory), and goes back to *b on the way out. */
static int codes(bits *b, const uint32_t *lit, int lsub, const uint32_t *dst, int dsub,
                 int no_dist, gzw_scan_result *res, const char **why) {
    bits l = *b;
    const char *err = NULL;
    for (;;) {
        if (l.cnt < 48)
            refill(&l);
        uint32_t e = lookup(lit, LIT_BITS, lsub, l.buf);
        unsigned k = SKIP(e);
        if (KIND(e) == BAD || k > l.cnt) {
            err = KIND(e) == BAD ? "invalid literal/length code" : "the input ends inside a block";
            break;
        }
        l.buf >>= k, l.cnt -= k;
        if (KIND(e) == LIT)
            continue;
        if (KIND(e) == EOB)
            break;
        if (no_dist) {
            err = "a match in a block without distance codes";
            break;
        }
        e = lookup(dst, DIST_BITS, dsub, l.buf);
        k = SKIP(e);
        if (KIND(e) == BAD || k > l.cnt) {
            err = KIND(e) == BAD ? "invalid distance code" : "the input ends inside a block";
            break;
        }
        l.buf >>= k, l.cnt -= k;
    }
    *b = l;
    return err ? fail(b, res, why, err) : 0;
}

/* A dynamic block's header: the code length code, then both codes' lengths. */
static int dynamic(bits *b, uint32_t *lit, int *lsub, uint32_t *dst, int *dsub, int *no_dist,
                   gzw_scan_result *res, const char **why) {
    static const uint8_t ORDER[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                      11, 4, 12, 3, 13, 2, 14, 1, 15};
    uint32_t hlit, hdist, hclen, v;
    if (take(b, 5, &hlit) || take(b, 5, &hdist) || take(b, 4, &hclen))
        return fail(b, res, why, "the input ends inside a block header");
    hlit += 257, hdist += 1, hclen += 4;
    if (hlit > 286 || hdist > 30)
        return fail(b, res, why, "too many length or distance symbols");
    uint8_t cl[19] = {0}, lens[286 + 30];
    for (unsigned i = 0; i < hclen; i++) {
        if (take(b, 3, &v))
            return fail(b, res, why, "the input ends inside a block header");
        cl[ORDER[i]] = (uint8_t)v;
    }
    /* the code length code, with its symbols in the table instead of skip counts */
    unsigned next[16];
    int max = canonical(cl, 19, next, 0);
    if (max <= 0)
        return fail(b, res, why, "invalid code lengths set");
    uint16_t clt[128];
    for (unsigned s = 0; s < 19; s++) {
        unsigned l = cl[s];
        if (!l)
            continue;
        for (unsigned i = reversed(next[l]++, l); i < (1u << max); i += 1u << l)
            clt[i] = (uint16_t)(s << 8 | l);
    }
    for (unsigned i = 0; i < hlit + hdist;) {
        if (b->cnt < 16)
            refill(b);
        uint16_t e = clt[b->buf & ((1u << max) - 1)];
        unsigned l = e & 0xff, sym = e >> 8;
        if (l > b->cnt)
            return fail(b, res, why, "the input ends inside a block header");
        b->buf >>= l, b->cnt -= l;
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        }
        uint8_t fill = 0;
        unsigned rep;
        if (sym == 16) {
            if (i == 0)
                return fail(b, res, why, "invalid bit length repeat");
            fill = lens[i - 1];
            if (take(b, 2, &v))
                return fail(b, res, why, "the input ends inside a block header");
            rep = 3 + v;
        } else if (sym == 17) {
            if (take(b, 3, &v))
                return fail(b, res, why, "the input ends inside a block header");
            rep = 3 + v;
        } else {
            if (take(b, 7, &v))
                return fail(b, res, why, "the input ends inside a block header");
            rep = 11 + v;
        }
        if (i + rep > hlit + hdist)
            return fail(b, res, why, "invalid bit length repeat");
        memset(lens + i, fill, rep);
        i += rep;
    }
    if (lens[256] == 0)
        return fail(b, res, why, "invalid code -- missing end-of-block");
    if ((*lsub = build(lit, LIT_BITS, lens, hlit, 0)) < 0)
        return fail(b, res, why, "invalid literal/lengths set");
    if ((*dsub = build(dst, DIST_BITS, lens + hlit, hdist, 1)) < 0)
        return fail(b, res, why, "invalid distances set");
    *no_dist = 1;
    for (unsigned i = 0; i < hdist; i++)
        *no_dist &= lens[hlit + i] == 0;
    return 0;
}

int gzw_scan_blocks(const uint8_t *p, size_t n, uint32_t *tables, gzw_scan_result *res,
                    const char **why) {
    uint32_t *lit = tables, *dst = tables + GZW_SCAN_TABLES / 2;
    bits b = {p, n, 0, 0, 0};
    memset(res, 0, sizeof *res);
    for (;;) {
        uint64_t start = bit_offset(&b);
        uint32_t hdr;
        if (take(&b, 3, &hdr))
            return fail(&b, res, why, "the input ends before the final block");
        res->blocks++;
        int final = hdr & 1;
        if (final)
            res->final_start = start;
        switch (hdr >> 1) {
        case 0: { /* stored: to the byte boundary, LEN, NLEN, LEN bytes */
            uint32_t drop = b.cnt % 8, len, nlen;
            b.buf >>= drop, b.cnt -= drop;
            if (take(&b, 16, &len) || take(&b, 16, &nlen))
                return fail(&b, res, why, "the input ends inside a stored block");
            if ((len ^ nlen) != 0xffff)
                return fail(&b, res, why, "invalid stored block lengths");
            /* byte-aligned now: the data starts at the next unread byte */
            size_t at = (size_t)(bit_offset(&b) / 8);
            if (len > n - at)
                return fail(&b, res, why, "the input ends inside a stored block");
            b.pos = at + len, b.buf = 0, b.cnt = 0;
            break;
        }
        case 1: { /* the fixed codes (RFC 1951 3.2.6), with distance symbols 30 and 31 */
            uint8_t lens[288 + 32];
            memset(lens, 8, 144), memset(lens + 144, 9, 112);
            memset(lens + 256, 7, 24), memset(lens + 280, 8, 8);
            memset(lens + 288, 5, 32);
            int lsub = build(lit, LIT_BITS, lens, 288, 0);
            int dsub = build(dst, DIST_BITS, lens + 288, 32, 1);
            if (codes(&b, lit, lsub, dst, dsub, 0, res, why))
                return -1;
            break;
        }
        case 2: {
            int lsub, dsub, no_dist;
            if (dynamic(&b, lit, &lsub, dst, &dsub, &no_dist, res, why) ||
                codes(&b, lit, lsub, dst, dsub, no_dist, res, why))
                return -1;
            break;
        }
        default:
            return fail(&b, res, why, "invalid block type");
        }
        if (final) {
            res->end = bit_offset(&b);
            return 0;
        }
    }
}
