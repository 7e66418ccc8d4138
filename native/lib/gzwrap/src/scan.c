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
static int canonical(const uint8_t *lens, unsigned nsym, unsigned next[16], int one_bit_ok,
                     int *complete) {
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
    *complete = left == 0;
    next[1] = 0;
    for (int l = 1; l < 15; l++)
        next[l + 1] = code = (code + count[l]) << 1;
    return max;
}

/* Code c of length l <= 15 as it arrives: its bits reversed. */
static unsigned reversed(unsigned c, unsigned l) {
    unsigned x = c << (16 - l);
    x = (x & 0x5555) << 1 | (x >> 1 & 0x5555);
    x = (x & 0x3333) << 2 | (x >> 2 & 0x3333);
    x = (x & 0x0f0f) << 4 | (x >> 4 & 0x0f0f);
    return (x << 8 | x >> 8) & 0xffff;
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
    int complete, max = canonical(lens, nsym, next, 1, &complete);
    if (max < 0 || (max == 0 && !dist))
        return -1;
    unsigned psize = 1u << pbits, sbits = max > pbits ? (unsigned)(max - pbits) : 0;
    /* a complete code fills every slot; a long code looks for its slot's subtable */
    for (unsigned i = 0; i < psize && !(complete && sbits == 0); i++)
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
    /* literals in a row: a literal's entry takes on the entry of the bits after it when
     * that is a literal (run) too and fits; entries below i are final already, so runs
     * grow through them, with no branch to mispredict (the chained loop this replaced
     * spent a tenth of a bgzip conversion here) */
    if (!dist)
        for (unsigned i = 0; i < psize; i++) {
            uint32_t e = table[i];
            unsigned k = SKIP(e);
            uint32_t e2 = table[i >> k];
            unsigned k2 = k + SKIP(e2);
            int more = (KIND(e) == LIT) & (KIND(e2) == LIT) & (k2 <= (unsigned)pbits);
            table[i] = more ? ENTRY(LIT, k2) : e;
        }
    return (int)sbits;
}

/* Where walking a block stopped: `why` the reason when the input ran out before the block
 * did (MORE: not an error while more input may come) or the block is invalid (BAD). */
typedef struct stop {
    gzw_scan_status status;
    const char *why;
} stop;

static gzw_scan_status halt(stop *st, gzw_scan_status status, const char *why) {
    st->status = status, st->why = why;
    return status;
}

#define MORE(st, why) halt(st, GZW_SCAN_MORE, why)
#define BAD(st, why) halt(st, GZW_SCAN_BAD, why)

/* One entry for the next input bits: a primary entry, or the subtable's it points to. */
static inline uint32_t lookup(const uint32_t *t, int pbits, int sbits, uint64_t buf) {
    uint32_t e = t[buf & ((1u << pbits) - 1)];
    if (KIND(e) == SUB)
        e = t[SUBTABLE(e) + (buf >> pbits & ((1u << sbits) - 1))];
    return e;
}

/* The codes of one Huffman block, to its end-of-block code. The bit buffer lives in
 * locals here (the loop's dependency chain is lookup, shift, lookup: no trip through
 * memory), and goes back to *b on the way out. An invalid entry read where the input has
 * ended may only be the missing bits: that is MORE, not BAD. */
static gzw_scan_status codes(bits *b, const uint32_t *lit, int lsub, const uint32_t *dst,
                             int dsub, int no_dist, stop *st) {
    bits l = *b;
    gzw_scan_status r = GZW_SCAN_OK;
    for (;;) {
        if (l.cnt < 48)
            refill(&l);
        uint32_t e = lookup(lit, LIT_BITS, lsub, l.buf);
        unsigned k = SKIP(e);
        int short_input = l.pos == l.n && l.cnt < 15;
        if (KIND(e) == BAD || k > l.cnt) {
            r = KIND(e) != BAD || short_input ? MORE(st, "the input ends inside a block")
                                              : BAD(st, "invalid literal/length code");
            break;
        }
        l.buf >>= k, l.cnt -= k;
        if (KIND(e) == LIT)
            continue;
        if (KIND(e) == EOB)
            break;
        if (no_dist) {
            r = BAD(st, "a match in a block without distance codes");
            break;
        }
        e = lookup(dst, DIST_BITS, dsub, l.buf);
        k = SKIP(e);
        short_input = l.pos == l.n && l.cnt < 15;
        if (KIND(e) == BAD || k > l.cnt) {
            r = KIND(e) != BAD || short_input ? MORE(st, "the input ends inside a block")
                                              : BAD(st, "invalid distance code");
            break;
        }
        l.buf >>= k, l.cnt -= k;
    }
    *b = l;
    return r;
}

/* A dynamic block's header: the code length code, then both codes' lengths. */
static gzw_scan_status dynamic(bits *b, uint32_t *lit, int *lsub, uint32_t *dst, int *dsub,
                               int *no_dist, stop *st) {
    static const uint8_t ORDER[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                      11, 4, 12, 3, 13, 2, 14, 1, 15};
    const char *cut = "the input ends inside a block header";
    uint32_t hlit, hdist, hclen, v;
    if (take(b, 5, &hlit) || take(b, 5, &hdist) || take(b, 4, &hclen))
        return MORE(st, cut);
    hlit += 257, hdist += 1, hclen += 4;
    if (hlit > 286 || hdist > 30)
        return BAD(st, "too many length or distance symbols");
    uint8_t cl[19] = {0}, lens[286 + 30];
    for (unsigned i = 0; i < hclen; i++) {
        if (take(b, 3, &v))
            return MORE(st, cut);
        cl[ORDER[i]] = (uint8_t)v;
    }
    /* the code length code, with its symbols in the table instead of skip counts */
    unsigned next[16];
    int complete, max = canonical(cl, 19, next, 0, &complete);
    if (max <= 0)
        return BAD(st, "invalid code lengths set");
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
            return MORE(st, cut);
        b->buf >>= l, b->cnt -= l;
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        }
        static const unsigned EXTRA[3] = {2, 3, 7}, BASE[3] = {3, 3, 11};
        if (sym == 16 && i == 0)
            return BAD(st, "invalid bit length repeat");
        if (take(b, EXTRA[sym - 16], &v))
            return MORE(st, cut);
        unsigned rep = BASE[sym - 16] + v;
        if (i + rep > hlit + hdist)
            return BAD(st, "invalid bit length repeat");
        memset(lens + i, sym == 16 ? lens[i - 1] : 0, rep);
        i += rep;
    }
    if (lens[256] == 0)
        return BAD(st, "invalid code -- missing end-of-block");
    if ((*lsub = build(lit, LIT_BITS, lens, hlit, 0)) < 0)
        return BAD(st, "invalid literal/lengths set");
    if ((*dsub = build(dst, DIST_BITS, lens + hlit, hdist, 1)) < 0)
        return BAD(st, "invalid distances set");
    *no_dist = 1;
    for (unsigned i = 0; i < hdist; i++)
        *no_dist &= lens[hlit + i] == 0;
    return GZW_SCAN_OK;
}

gzw_scan_status gzw_scan_block(const uint8_t *p, size_t n, uint64_t at, uint32_t *tables,
                               gzw_scan_block_result *res) {
    uint32_t *lit = tables, *dst = tables + GZW_SCAN_TABLES / 2;
    bits b = {p, n, (size_t)(at / 8), 0, 0};
    stop st = {GZW_SCAN_OK, ""};
    memset(res, 0, sizeof *res);
    refill(&b);
    uint32_t hdr, skip;
    gzw_scan_status r = GZW_SCAN_OK;
    if (take(&b, (unsigned)(at % 8), &skip) || take(&b, 3, &hdr)) {
        r = MORE(&st, "the input ends before a block header");
    } else {
        res->final = hdr & 1;
        switch (hdr >> 1) {
        case 0: { /* stored: to the byte boundary, LEN, NLEN, LEN bytes */
            uint32_t drop = b.cnt % 8, len, nlen;
            b.buf >>= drop, b.cnt -= drop;
            if (take(&b, 16, &len) || take(&b, 16, &nlen)) {
                r = MORE(&st, "the input ends inside a stored block");
                break;
            }
            if ((len ^ nlen) != 0xffff) {
                r = BAD(&st, "invalid stored block lengths");
                break;
            }
            size_t data = (size_t)(bit_offset(&b) / 8); /* byte-aligned now */
            if (len > n - data) {
                r = MORE(&st, "the input ends inside a stored block");
                break;
            }
            b.pos = data + len, b.buf = 0, b.cnt = 0;
            break;
        }
        case 1: { /* the fixed codes (RFC 1951 3.2.6), with distance symbols 30 and 31 */
            uint8_t lens[288 + 32];
            memset(lens, 8, 144), memset(lens + 144, 9, 112);
            memset(lens + 256, 7, 24), memset(lens + 280, 8, 8);
            memset(lens + 288, 5, 32);
            int lsub = build(lit, LIT_BITS, lens, 288, 0);
            int dsub = build(dst, DIST_BITS, lens + 288, 32, 1);
            r = codes(&b, lit, lsub, dst, dsub, 0, &st);
            break;
        }
        case 2: {
            int lsub, dsub, no_dist;
            r = dynamic(&b, lit, &lsub, dst, &dsub, &no_dist, &st);
            if (r == GZW_SCAN_OK)
                r = codes(&b, lit, lsub, dst, dsub, no_dist, &st);
            break;
        }
        default:
            r = BAD(&st, "invalid block type");
        }
    }
    if (r == GZW_SCAN_OK)
        res->next = bit_offset(&b);
    res->stopped_at = b.pos < b.n ? bit_offset(&b) / 8 : b.n;
    res->why = st.why;
    return r;
}
