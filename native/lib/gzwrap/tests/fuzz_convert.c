/* fuzz_convert.c — libFuzzer target: any bytes, any source and target format, each
 * inflater. The first byte picks the formats; the rest is the input.
 *
 * Properties: no crash, leak or undefined behaviour (ASan/UBSan); every error has a
 * message; a conversion with zlib's inflater that succeeds gives output that zlib's own
 * decoders accept, holding data of the length, CRC-32 and Adler-32 the conversion
 * computed; whatever zlib's inflater accepts ISA-L's accepts too, with byte-identical
 * output. The converse does not hold: ISA-L decodes some blocks whose code-length code
 * set is incomplete or over-subscribed, which zlib rejects ("invalid code lengths set";
 * corpus/isal-lenient-code-lengths). No encoder writes such blocks, and for gzip, zlib and
 * COMPRESS() input the data must still match its CRC-32 or Adler-32; this target only
 * checks that zlib then refuses with GZWRAP_ERR_DATA (README: guarantees). The last
 * inflater's conversion is made again into an output buffer of 8 MiB or more (stored
 * blocks then go there in the pass that checksums them): the same status and bytes. A
 * COMPRESS() target is made again with its length given beforehand: the same bytes, and
 * GZWRAP_ERR_LENGTH for a length one more. gzwrap's own choice of inflater (libdeflate's
 * whole-stream inflate where it serves) accepts what zlib's accepts, with the same bytes.
 * gzwrap_memory_convert, the input read in place and the output through a writer that can
 * patch (tests/settling_writer.h), gives the buffer conversion's status and bytes and
 * never touches what it said was final.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gzwrap.h>

#include "settling_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    gzwrap_options o;
    gzwrap_options_init(&o);
    o.from = (gzwrap_format)(data[0] % 5);      /* AUTO .. MYSQL */
    o.to = (gzwrap_format)(1 + (data[0] / 5) % 4);
    o.all_checksums = 1;
    const uint8_t *in = data + 1;
    size_t n = size - 1, cap = gzwrap_buffer_bound(n);
    uint8_t *out[2] = {malloc(cap), malloc(cap)};
    size_t out_n[2] = {0, 0};
    gzwrap_status st[2];
    gzwrap_report rep[2];
    gzwrap_impl impls[2] = {GZWRAP_IMPL_ZLIB, GZWRAP_IMPL_ISAL};
    int k = gzwrap_impl_available(GZWRAP_IMPL_ISAL, GZWRAP_ROLE_INFLATE) ? 2 : 1;
    for (int i = 0; i < k; i++) {
        o.inflater = impls[i];
        st[i] = gzwrap_buffer_convert(&o, in, n, out[i], cap, &out_n[i], &rep[i]);
        int lenient = i == 1 && st[0] == GZWRAP_ERR_DATA; /* ISA-L accepts more: see above */
        if (st[i] == GZWRAP_OK && !lenient) {
            gzwrap_check chk;
            gzwrap_report crep;
            if (gzwrap_buffer_check(o.to, out[i], out_n[i], &chk, &crep) != GZWRAP_OK ||
                chk.data_bytes != rep[i].data_bytes || chk.crc32 != rep[i].crc32 ||
                chk.adler32 != rep[i].adler32) {
                fprintf(stderr, "%s -> %s with %s: output rejected or different: %s\n",
                        gzwrap_format_name(rep[i].from), gzwrap_format_name(o.to),
                        gzwrap_impl_name(impls[i]), crep.error);
                abort();
            }
        } else if (st[i] != GZWRAP_OK && !rep[i].error[0]) {
            fprintf(stderr, "error %s without a message\n", gzwrap_status_str(st[i]));
            abort();
        }
    }
    if (k == 2 && (st[0] == GZWRAP_OK) != (st[1] == GZWRAP_OK) &&
        !(st[1] == GZWRAP_OK && st[0] == GZWRAP_ERR_DATA)) {
        fprintf(stderr, "zlib says %s (%s), ISA-L says %s (%s)\n", gzwrap_status_str(st[0]),
                rep[0].error, gzwrap_status_str(st[1]), rep[1].error);
        abort();
    }
    if (k == 2 && st[0] == GZWRAP_OK &&
        (out_n[0] != out_n[1] || memcmp(out[0], out[1], out_n[0]) != 0)) {
        fprintf(stderr, "zlib and ISA-L give different output\n");
        abort();
    }
    /* gzwrap's own choice, whole or streaming */
    gzwrap_options a = o;
    a.inflater = GZWRAP_IMPL_AUTO;
    uint8_t *auto_out = malloc(cap);
    size_t auto_n = 0;
    gzwrap_report arep;
    gzwrap_status ast = gzwrap_buffer_convert(&a, in, n, auto_out, cap, &auto_n, &arep);
    if (st[0] == GZWRAP_OK &&
        (ast != GZWRAP_OK || auto_n != out_n[0] || memcmp(auto_out, out[0], auto_n))) {
        fprintf(stderr, "zlib's inflater gives OK, gzwrap's choice (%s) %s (%s) or other bytes\n",
                gzwrap_impl_name(arep.inflater_impl), gzwrap_status_str(ast), arep.error);
        abort();
    }
    if (ast != GZWRAP_OK && !arep.error[0]) {
        fprintf(stderr, "error %s without a message\n", gzwrap_status_str(ast));
        abort();
    }
    /* the same choice from memory to a writer: the buffer's status and bytes */
    settling g = {0};
    gzwrap_writer gw = settling_writer(&g);
    gzwrap_report mrep;
    gzwrap_status mst = gzwrap_memory_convert(&a, in, n, &gw, &mrep);
    if (mst != ast || g.violations ||
        (mst == GZWRAP_OK && (g.len != auto_n || (auto_n && memcmp(g.p, auto_out, auto_n))))) {
        fprintf(stderr, "from memory to a writer: %s (%s), %d settle violations; into a "
                "buffer: %s, or other bytes\n", gzwrap_status_str(mst), mrep.error,
                g.violations, gzwrap_status_str(ast));
        abort();
    }
    free(g.p);
    free(auto_out);
    /* an output buffer of 8 MiB or more takes stored blocks in the checksum pass: the same
     * status and bytes as the small one, at a data-dependent alignment */
    static uint8_t *big;
    const size_t big_cap = (8u << 20) + 64;
    if (!big && !(big = malloc(big_cap)))
        abort();
    size_t at = size % 64, big_n = 0;
    gzwrap_report brep;
    gzwrap_status bst = gzwrap_buffer_convert(&o, in, n, big + at, big_cap - at, &big_n, &brep);
    if (cap < big_cap - at && (bst != st[k - 1] || (bst == GZWRAP_OK &&
                               (big_n != out_n[k - 1] || memcmp(big + at, out[k - 1], big_n))))) {
        fprintf(stderr, "a large output buffer gives %s, a small one %s, or other bytes\n",
                gzwrap_status_str(bst), gzwrap_status_str(st[k - 1]));
        abort();
    }
    /* COMPRESS() with its length given beforehand (written first, not patched): the same
     * bytes; a length one more fails with GZWRAP_ERR_LENGTH */
    if (o.to == GZWRAP_FORMAT_MYSQL && st[0] == GZWRAP_OK && rep[0].data_bytes > 0) {
        for (uint64_t extra = 0; extra < 2; extra++) {
            gzwrap_options g = o;
            g.inflater = impls[0];
            g.data_length = rep[0].data_bytes + extra;
            size_t g_n = 0;
            gzwrap_report grep;
            gzwrap_status gst = gzwrap_buffer_convert(&g, in, n, out[1], cap, &g_n, &grep);
            if (extra ? gst != GZWRAP_ERR_LENGTH
                      : gst != GZWRAP_OK || g_n != out_n[0] || memcmp(out[1], out[0], g_n)) {
                fprintf(stderr, "COMPRESS() with its length given (%s): %s, or other bytes\n",
                        extra ? "one more" : "right", gzwrap_status_str(gst));
                abort();
            }
        }
    }
    free(out[0]);
    free(out[1]);
    return 0;
}
