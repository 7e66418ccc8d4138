/* inflate_whole.c — a small deflate stream that lies whole in memory, inflated at once by
 * libdeflate (GZWRAP_HAVE_LIBDEFLATE).
 *
 * libdeflate has no streaming inflate, but into an output buffer that stays in the caches
 * it is faster than ISA-L's streaming inflate into 256 KiB pieces. A gzip -> zlib
 * conversion on an Intel Xeon VM (2 MiB L2), this way against streaming: 1.10-1.13x as
 * fast on 1 MiB of text or shared libraries, 1.07x and 1.05x on 2 and 3 MiB of text; at
 * 4 MiB, the buffer no longer in L2, from the same to 1.07x in two sets of runs.
 * On AMD Zen 5, libdeflate's whole-buffer inflate was still 3% faster than ISA-L's at
 * 16 MiB. So the conversion takes this path for data of at most GZW_WHOLE_MAX bytes whose
 * size it knows beforehand (a gzip member's ISIZE, a COMPRESS() length), and the
 * streaming inflater for everything else.
 */
#include <stdlib.h>

#include "internal/impl.h"

#ifdef GZWRAP_HAVE_LIBDEFLATE
#include <libdeflate.h>

/* One decompressor kept between conversions: a new one builds the fixed Huffman codes'
 * tables at its first fixed block, about 2 us, ten times the inflate of a 100-byte value.
 * A conversion takes it (or makes one while another thread holds it) and puts it back
 * where the slot is empty, else frees it. */
static struct libdeflate_decompressor *kept;

static struct libdeflate_decompressor *take(void) {
    struct libdeflate_decompressor *d = __atomic_exchange_n(&kept, NULL, __ATOMIC_ACQUIRE);
    return d ? d : libdeflate_alloc_decompressor();
}

static void give_back(struct libdeflate_decompressor *d) {
    struct libdeflate_decompressor *none = NULL;
    if (d && !__atomic_compare_exchange_n(&kept, &none, d, 0, __ATOMIC_RELEASE,
                                          __ATOMIC_RELAXED))
        libdeflate_free_decompressor(d);
}

/* At exit or when the library is unloaded: nothing left behind. */
__attribute__((destructor)) static void drop_kept(void) {
    libdeflate_free_decompressor(__atomic_exchange_n(&kept, NULL, __ATOMIC_ACQUIRE));
}

int gzw_inflate_whole(const uint8_t *in, size_t n, size_t size, uint8_t **data, size_t *used,
                      size_t *made) {
    struct libdeflate_decompressor *d = take();
    uint8_t *out = malloc(size);
    int ok = d && out &&
             libdeflate_deflate_decompress_ex(d, in, n, out, size, used, made) ==
                 LIBDEFLATE_SUCCESS;
    give_back(d);
    if (!ok) {
        free(out);
        return 0;
    }
    *data = out;
    return 1;
}
#else
int gzw_inflate_whole(const uint8_t *in, size_t n, size_t size, uint8_t **data, size_t *used,
                      size_t *made) {
    (void)in, (void)n, (void)size, (void)data, (void)used, (void)made;
    return 0;
}
#endif
