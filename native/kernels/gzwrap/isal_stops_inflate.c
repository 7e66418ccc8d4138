/* isal_stops_inflate.c — the plain inflates of the ISA-L that gzwrap bundles (the igzip
 * that stops at block boundaries, tools/build_isal_stops.sh of native/lib/gzwrap), for
 * gzwrap_bench.c: its floor must include the inflater gzwrap itself runs on. In a file of
 * its own because its igzip_lib.h and the system's declare the same names differently.
 * With no stops (GZWRAP_HAVE_ISAL_STOPS unset), isal_stops_present() says 0.
 */
#include <stddef.h>
#include <stdint.h>

#include "isal_stops_inflate.h"

#ifdef GZWRAP_HAVE_ISAL_STOPS
#include <isal-stops/renamed.h>
#include <isal-stops/igzip_lib.h>

int isal_stops_present(void) { return 1; }

uint64_t isal_stops_inflate(const uint8_t *p, size_t n, int gzip_members, uint8_t *chunk,
                            size_t chunk_cap, isal_stops_sink sink, void *sink_arg) {
    struct inflate_state s;
    isal_inflate_init(&s); /* reset leaves crc_flag and hist_bits, which only init sets */
    s.crc_flag = gzip_members ? ISAL_GZIP : ISAL_DEFLATE;
    s.next_in = (uint8_t *)p;
    s.avail_in = (uint32_t)n;
    uint64_t made = 0;
    do { /* a raw stream once; gzip members one after another, each checked by igzip */
        isal_inflate_reset(&s);
        do {
            s.next_out = chunk;
            s.avail_out = (uint32_t)chunk_cap;
            if (isal_inflate(&s) != ISAL_DECOMP_OK)
                return UINT64_MAX;
            size_t got = chunk_cap - s.avail_out;
            if (sink)
                sink(sink_arg, chunk, got);
            made += got;
        } while (s.block_state != ISAL_BLOCK_FINISH);
    } while (gzip_members && s.avail_in > 0);
    return made;
}
#else
int isal_stops_present(void) { return 0; }

uint64_t isal_stops_inflate(const uint8_t *p, size_t n, int gzip_members, uint8_t *chunk,
                            size_t chunk_cap, isal_stops_sink sink, void *sink_arg) {
    (void)p, (void)n, (void)gzip_members, (void)chunk, (void)chunk_cap, (void)sink,
        (void)sink_arg;
    return UINT64_MAX;
}
#endif
