/* gzip_header.c — a gzip member header (RFC 1952 2.3), parsed as it streams by.
 *
 *   ID1 ID2 CM FLG MTIME[4] XFL OS   then, as FLG says:
 *   FEXTRA: XLEN[2] and XLEN bytes of subfields; FNAME, FCOMMENT: zero-terminated
 *   (ISO 8859-1, any length); FHCRC: the low 16 bits of the CRC-32 of all bytes before it.
 *
 * Names and comments can be any length, so they are never held: their bytes are hashed
 * (for FHCRC) and, when the output keeps this header, copied as they go by. Only the first
 * 60 characters are kept, for the note that says a field was dropped.
 */
#include <stdio.h>
#include <string.h>

#include "internal/conv.h"

enum { FTEXT = 1, FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16, FRESERVED = 0xe0 };

typedef struct hdr_walk {
    gzw_conv *c;
    int copy;
    uint32_t crc; /* CRC-32 of the header so far (zlib's: headers are short) */
} hdr_walk;

/* Consume n available bytes: hash them, copy them if the output keeps this header. */
static gzwrap_status take(hdr_walk *w, size_t n) {
    gzw_in *in = &w->c->in;
    w->crc = gzw_crc32_zlib(w->crc, in->buf + in->pos, n);
    if (w->copy) {
        gzwrap_status st = gzw_out_write(w->c, in->buf + in->pos, n);
        if (st)
            return st;
    }
    in->pos += n;
    return GZWRAP_OK;
}

static gzwrap_status need(hdr_walk *w, size_t n, uint64_t member, const char *what) {
    gzwrap_status st = gzw_in_need(w->c, n);
    if (st == GZWRAP_ERR_TRUNCATED)
        return gzw_fail(w->c, st, w->c->in.base + w->c->in.len,
                        "unexpected end of input in gzip member %llu's header: expected %s",
                        (unsigned long long)member, what);
    return st;
}

/* A zero-terminated field: copy through the zero; keep a printable prefix in `shown`
 * and say in *cut whether it is shorter than the field. */
static gzwrap_status zstring(hdr_walk *w, uint64_t member, const char *what, char *shown,
                             size_t shown_cap, int *cut) {
    gzw_in *in = &w->c->in;
    size_t k = 0;
    uint64_t length = 0, kept = 0;
    for (;;) {
        gzwrap_status st = need(w, 1, member, what);
        if (st)
            return st;
        const uint8_t *p = in->buf + in->pos;
        size_t avail = gzw_in_avail(in);
        const uint8_t *z = memchr(p, 0, avail);
        size_t n = z ? (size_t)(z - p) + 1 : avail, chars = n - (z != NULL);
        for (size_t i = 0; i < chars && k + 5 < shown_cap; i++, kept++) {
            unsigned ch = p[i];
            if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
                shown[k++] = (char)ch;
            else
                k += (size_t)snprintf(shown + k, shown_cap - k, "\\x%02x", ch);
        }
        length += chars;
        st = take(w, n);
        if (st || z)
            break;
    }
    shown[k] = 0;
    *cut = length > kept;
    return w->c->rep->status;
}

static const char *os_name(unsigned os) {
    static const char *const names[] = {"FAT", "Amiga", "VMS", "Unix", "VM/CMS", "Atari TOS",
                                        "HPFS", "Macintosh", "Z-System", "CP/M", "TOPS-20",
                                        "NTFS", "QDOS", "Acorn RISCOS"};
    return os < sizeof names / sizeof *names ? names[os] : os == 255 ? "unknown" : "?";
}

gzwrap_status gzw_gzip_header_read(gzw_conv *c, uint64_t member, int copy,
                                   gzw_gzip_header *h) {
    hdr_walk w = {c, copy, 0};
    gzw_in *in = &c->in;
    uint64_t at = gzw_in_offset(in);
    gzwrap_status st = need(&w, 10, member, "the 10-byte fixed part");
    if (st)
        return st;
    const uint8_t *b = in->buf + in->pos;
    if (b[0] != 0x1f || b[1] != 0x8b)
        return gzw_fail(c, GZWRAP_ERR_FORMAT, at,
                        "expected the gzip magic 1F 8B, found %02X %02X", b[0], b[1]);
    if (b[2] != 8)
        return gzw_fail(c, GZWRAP_ERR_FORMAT, at + 2,
                        "expected compression method 8 (deflate), found %u", b[2]);
    if (b[3] & FRESERVED)
        return gzw_fail(c, GZWRAP_ERR_HEADER, at + 3,
                        "reserved flag bits set in FLG %02X (expected bits 5-7 clear)", b[3]);
    h->flg = b[3];
    h->mtime = b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
    h->xfl = b[8];
    h->os = b[9];
    st = take(&w, 10);
    if (st)
        return st;

    /* What the output drops: every field for a non-gzip target (zlib and COMPRESS() keep
     * XFL as the zlib header's level); the later members' fields for a gzip target. */
    const char *why = NULL;
    char buf[64];
    if (c->opt.to != GZWRAP_FORMAT_GZIP) { /* per member, so not snprintf */
        const char *name = gzwrap_format_name(c->opt.to), *tail = " cannot carry it";
        size_t n = strlen(name);
        memcpy(buf, name, n);
        memcpy(buf + n, tail, strlen(tail) + 1);
        why = buf;
    } else if (member > 1) {
        why = "one gzip member keeps the first member's header";
    }
    gzwrap_report *r = c->rep;
    if (member == 1) {
        r->gzip_flags = h->flg, r->gzip_mtime = h->mtime;
        r->gzip_xfl = h->xfl, r->gzip_os = h->os;
    }
    if (why) {
        if (h->flg & FTEXT)
            gzw_note(c, GZWRAP_FIELD_FTEXT, member, "text flag (FTEXT) dropped: %s", why);
        if (h->mtime && (member == 1 || h->mtime != r->gzip_mtime))
            gzw_note(c, GZWRAP_FIELD_MTIME, member, "modification time %lu dropped: %s",
                     (unsigned long)h->mtime, why);
        if (member == 1 ? h->os != 255 : h->os != r->gzip_os)
            gzw_note(c, GZWRAP_FIELD_OS, member, "operating system %u (%s) dropped: %s",
                     h->os, os_name(h->os), why);
        if (h->xfl && (member == 1 ? c->opt.to == GZWRAP_FORMAT_DEFLATE : h->xfl != r->gzip_xfl))
            gzw_note(c, GZWRAP_FIELD_XFL, member, "extra flags XFL %u dropped: %s", h->xfl, why);
    }

    if (h->flg & FEXTRA) {
        uint64_t xat = gzw_in_offset(in);
        if ((st = need(&w, 2, member, "the 2-byte extra field length XLEN")))
            return st;
        unsigned xlen = in->buf[in->pos] | (unsigned)in->buf[in->pos + 1] << 8;
        if ((st = take(&w, 2)))
            return st;
        if ((st = need(&w, xlen, member, "the extra field's XLEN bytes")))
            return st;
        /* subfield ids, for the note: SI1 SI2 LEN[2] data */
        char ids[40] = "";
        const uint8_t *x = in->buf + in->pos;
        for (unsigned i = 0, k = 0; i + 4 <= xlen && k + 4 < sizeof ids;) {
            unsigned len = x[i + 2] | (unsigned)x[i + 3] << 8;
            int printable = x[i] > 0x20 && x[i] < 0x7f && x[i + 1] > 0x20 && x[i + 1] < 0x7f;
            k += (unsigned)snprintf(ids + k, sizeof ids - k, "%s%c%c", k ? " " : "",
                                    printable ? x[i] : '?', printable ? x[i + 1] : '?');
            i += 4 + len;
        }
        if ((st = take(&w, xlen)))
            return st;
        if (why)
            gzw_note(c, GZWRAP_FIELD_FEXTRA, member,
                     "extra field FEXTRA (%u bytes at offset %llu%s%s) dropped: %s", xlen,
                     (unsigned long long)xat, *ids ? ", subfields " : "", ids, why);
    }
    if (h->flg & FNAME) {
        char shown[64];
        int cut;
        if ((st = zstring(&w, member, "the file name's terminating zero byte", shown,
                          sizeof shown, &cut)))
            return st;
        if (why)
            gzw_note(c, GZWRAP_FIELD_FNAME, member, "file name \"%s\"%s dropped: %s", shown,
                     cut ? "..." : "", why);
    }
    if (h->flg & FCOMMENT) {
        char shown[64];
        int cut;
        if ((st = zstring(&w, member, "the comment's terminating zero byte", shown,
                          sizeof shown, &cut)))
            return st;
        if (why)
            gzw_note(c, GZWRAP_FIELD_FCOMMENT, member, "comment \"%s\"%s dropped: %s", shown,
                     cut ? "..." : "", why);
    }
    if (h->flg & FHCRC) {
        uint64_t hat = gzw_in_offset(in);
        if ((st = need(&w, 2, member, "the 2-byte header CRC")))
            return st;
        unsigned stored = in->buf[in->pos] | (unsigned)in->buf[in->pos + 1] << 8;
        unsigned want = w.crc & 0xffff;
        if (stored != want)
            return gzw_fail(c, GZWRAP_ERR_HEADER, hat,
                            "bad header CRC: expected %04X (the low 16 bits of the header's "
                            "CRC-32), found %04X",
                            want, stored);
        if ((st = take(&w, 2)))
            return st;
        if (why)
            gzw_note(c, GZWRAP_FIELD_FHCRC, member, "header CRC FHCRC (checked) dropped: %s",
                     why);
    }
    return GZWRAP_OK;
}
