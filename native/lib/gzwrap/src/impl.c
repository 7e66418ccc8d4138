/* impl.c — which inflater and which checksums a conversion uses: the one place.
 *
 * AUTO takes the first implementation of each list that this build has. The order is
 * what `cpulab run gzwrap` measured on the development VM (AMD EPYC, 2 vCPUs; gcc -O2;
 * 100 MB of man-page text, gzip -6, 256 KiB output chunks, GB/s of uncompressed data):
 *
 *   inflate   ISA-L 1.5   libdeflate 0.9 (whole buffer; not streaming)   zlib 0.6
 *   CRC-32    ISA-L 12    libdeflate 12                                  zlib 3.7
 *   Adler-32  libdeflate 16   ISA-L 14                                   zlib 3.1
 *
 * libdeflate decompresses only whole buffers into a whole output buffer, so it cannot be
 * the constant-memory inflater: it serves checksums. zlib is always built in and is the
 * fallback for every role.
 */
#include <string.h>
#include <zlib.h>

#include "internal/adler32.h"
#include "internal/cpu.h"
#include "internal/crc32.h"
#include "internal/impl.h"

#ifdef GZWRAP_HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif
#ifdef GZWRAP_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

static const gzwrap_impl ORDER_INFLATE[] = {GZWRAP_IMPL_ISAL, GZWRAP_IMPL_ZLIB};
static const gzwrap_impl ORDER_CRC32[] = {GZWRAP_IMPL_AVX512, GZWRAP_IMPL_ISAL,
                                          GZWRAP_IMPL_LIBDEFLATE, GZWRAP_IMPL_ZLIB};
static const gzwrap_impl ORDER_ADLER32[] = {
    GZWRAP_IMPL_AVX512_VNNI, GZWRAP_IMPL_AVX512, GZWRAP_IMPL_AVX2, GZWRAP_IMPL_LIBDEFLATE,
    GZWRAP_IMPL_ISAL, GZWRAP_IMPL_PORTABLE, GZWRAP_IMPL_ZLIB};

uint32_t gzw_crc32_zlib(uint32_t v, const uint8_t *b, size_t n) {
    /* zlib's length is a uInt: feed it in pieces below 4 GiB */
    while (n > 0) {
        size_t k = n > (1u << 30) ? (1u << 30) : n;
        v = (uint32_t)crc32(v, b, (uInt)k);
        b += k, n -= k;
    }
    return v;
}

uint32_t gzw_adler32_zlib(uint32_t v, const uint8_t *b, size_t n) {
    while (n > 0) {
        size_t k = n > (1u << 30) ? (1u << 30) : n;
        v = (uint32_t)adler32(v, b, (uInt)k);
        b += k, n -= k;
    }
    return v;
}

uint32_t gzw_crc32_combine(uint32_t a, uint32_t b, uint64_t len_b) {
    return (uint32_t)crc32_combine(a, b, (z_off_t)len_b);
}

uint32_t gzw_adler32_combine(uint32_t a, uint32_t b, uint64_t len_b) {
    return (uint32_t)adler32_combine(a, b, (z_off_t)len_b);
}

#ifdef GZWRAP_HAVE_ISAL
uint32_t gzw_crc32_isal(uint32_t v, const uint8_t *b, size_t n) {
    return crc32_gzip_refl(v, b, n);
}
uint32_t gzw_adler32_isal(uint32_t v, const uint8_t *b, size_t n) {
    return isal_adler32(v, b, n);
}
#endif

#ifdef GZWRAP_HAVE_LIBDEFLATE
uint32_t gzw_crc32_libdeflate(uint32_t v, const uint8_t *b, size_t n) {
    return libdeflate_crc32(v, b, n);
}
uint32_t gzw_adler32_libdeflate(uint32_t v, const uint8_t *b, size_t n) {
    return libdeflate_adler32(v, b, n);
}
#endif

const gzw_inflater_ops *gzw_inflater_ops_of(gzwrap_impl impl) {
    switch (impl) {
    case GZWRAP_IMPL_ZLIB: return &gzw_inflater_zlib;
#if defined(GZWRAP_HAVE_ISAL_STOPS) /* the same decoder, telling block boundaries */
    case GZWRAP_IMPL_ISAL: return &gzw_inflater_isal_stops;
#elif defined(GZWRAP_HAVE_ISAL)
    case GZWRAP_IMPL_ISAL: return &gzw_inflater_isal;
#endif
    default: return NULL;
    }
}

const gzw_inflater_ops *gzw_inflater_ops_for(gzwrap_impl impl, gzwrap_format from) {
#if defined(GZWRAP_HAVE_ISAL_STOPS) && defined(GZWRAP_HAVE_ISAL)
    /* Only joins of gzip members need to know where blocks start; one stream takes the
     * system's ISA-L, which does not return at every block's end. zlib -> gzip against
     * the fastest plain inflate in the same process, on an Intel Xeon, three runs each:
     * 1 MiB of text 0.868-0.914x -> 0.891-0.907x, of shared libraries 0.909-0.910x ->
     * 0.909-0.930x, 16 MiB of text 0.907-0.930x -> 0.925-0.934x. */
    if (impl == GZWRAP_IMPL_ISAL && from != GZWRAP_FORMAT_GZIP)
        return &gzw_inflater_isal;
#endif
    (void)from;
    return gzw_inflater_ops_of(impl);
}

gzw_checksum_fn gzw_checksum_of(gzwrap_impl impl, gzwrap_role role) {
    int crc = role == GZWRAP_ROLE_CRC32;
    if (role != GZWRAP_ROLE_CRC32 && role != GZWRAP_ROLE_ADLER32)
        return NULL;
    switch (impl) {
    case GZWRAP_IMPL_ZLIB: return crc ? gzw_crc32_zlib : gzw_adler32_zlib;
#ifdef GZWRAP_HAVE_ISAL
    case GZWRAP_IMPL_ISAL: return crc ? gzw_crc32_isal : gzw_adler32_isal;
#endif
#ifdef GZWRAP_HAVE_LIBDEFLATE
    case GZWRAP_IMPL_LIBDEFLATE: return crc ? gzw_crc32_libdeflate : gzw_adler32_libdeflate;
#endif
    case GZWRAP_IMPL_PORTABLE: return crc ? NULL : gzw_adler32_portable;
#if defined(__x86_64__)
    case GZWRAP_IMPL_AVX2:
        return !crc && gzw_cpu_has(GZW_CPU_AVX2) ? gzw_adler32_avx2 : NULL;
    case GZWRAP_IMPL_AVX512:
        if (crc)
            return gzw_cpu_has(GZW_CPU_VPCLMUL) ? gzw_crc32_avx512 : NULL;
        return gzw_cpu_has(GZW_CPU_AVX512BW) ? gzw_adler32_avx512 : NULL;
    case GZWRAP_IMPL_AVX512_VNNI:
        return !crc && gzw_cpu_has(GZW_CPU_AVX512VNNI) ? gzw_adler32_avx512_vnni : NULL;
#endif
    default: return NULL;
    }
}

gzw_checksums_fn gzw_checksums_of(gzwrap_impl crc32, gzwrap_impl adler32) {
#if defined(__x86_64__)
    if (crc32 == GZWRAP_IMPL_AVX512 && gzw_cpu_has(GZW_CPU_VPCLMUL)) {
        if (adler32 == GZWRAP_IMPL_AVX512_VNNI && gzw_cpu_has(GZW_CPU_AVX512VNNI))
            return gzw_crc32_adler32_avx512_vnni;
        if (adler32 == GZWRAP_IMPL_AVX512)
            return gzw_crc32_adler32_avx512;
    }
#endif
    (void)crc32, (void)adler32;
    return NULL;
}

static int present(gzwrap_impl impl, gzwrap_role role) {
    if (role == GZWRAP_ROLE_INFLATE)
        return gzw_inflater_ops_of(impl) != NULL;
    return gzw_checksum_of(impl, role) != NULL;
}

gzwrap_impl gzwrap_impl_resolve(gzwrap_impl impl, gzwrap_role role) {
    const gzwrap_impl *order;
    size_t n;
    switch (role) {
    case GZWRAP_ROLE_INFLATE: order = ORDER_INFLATE, n = sizeof ORDER_INFLATE / sizeof *order; break;
    case GZWRAP_ROLE_CRC32: order = ORDER_CRC32, n = sizeof ORDER_CRC32 / sizeof *order; break;
    case GZWRAP_ROLE_ADLER32: order = ORDER_ADLER32, n = sizeof ORDER_ADLER32 / sizeof *order; break;
    default: return GZWRAP_IMPL_AUTO;
    }
    if (impl != GZWRAP_IMPL_AUTO)
        return present(impl, role) ? impl : GZWRAP_IMPL_AUTO;
    for (size_t i = 0; i < n; i++)
        if (present(order[i], role))
            return order[i];
    return GZWRAP_IMPL_AUTO; /* unreachable: zlib is always present */
}

int gzwrap_impl_available(gzwrap_impl impl, gzwrap_role role) {
    if (impl == GZWRAP_IMPL_AUTO)
        return role <= GZWRAP_ROLE_ADLER32;
    return gzwrap_impl_resolve(impl, role) == impl;
}

static const char *const IMPL_NAMES[] = {"auto",     "zlib", "isal",   "libdeflate",
                                          "portable", "avx2", "avx512", "avx512-vnni"};

const char *gzwrap_impl_name(gzwrap_impl impl) {
    return (unsigned)impl < sizeof IMPL_NAMES / sizeof *IMPL_NAMES ? IMPL_NAMES[impl] : NULL;
}

gzwrap_status gzwrap_impl_parse(const char *name, gzwrap_impl *out) {
    if (!name || !out)
        return GZWRAP_ERR_ARG;
    for (unsigned i = 0; i < sizeof IMPL_NAMES / sizeof *IMPL_NAMES; i++)
        if (strcmp(name, IMPL_NAMES[i]) == 0)
            return *out = (gzwrap_impl)i, GZWRAP_OK;
    return GZWRAP_ERR_ARG;
}

gzwrap_status gzwrap_checksum_update(gzwrap_impl impl, gzwrap_role role, uint32_t *value,
                                     const void *buf, size_t len) {
    if (!value || (role != GZWRAP_ROLE_CRC32 && role != GZWRAP_ROLE_ADLER32) ||
        (!buf && len) || (unsigned)impl > GZWRAP_IMPL_LAST)
        return GZWRAP_ERR_ARG;
    gzwrap_impl r = gzwrap_impl_resolve(impl, role);
    if (r == GZWRAP_IMPL_AUTO)
        return GZWRAP_ERR_UNAVAILABLE;
    *value = gzw_checksum_of(r, role)(*value, buf, len);
    return GZWRAP_OK;
}

gzwrap_status gzwrap_checksums_update(gzwrap_impl crc32_impl, gzwrap_impl adler32_impl,
                                      uint32_t *crc32, uint32_t *adler32, const void *buf,
                                      size_t len) {
    if (!crc32 || !adler32 || (!buf && len) || (unsigned)crc32_impl > GZWRAP_IMPL_LAST ||
        (unsigned)adler32_impl > GZWRAP_IMPL_LAST)
        return GZWRAP_ERR_ARG;
    gzwrap_impl c = gzwrap_impl_resolve(crc32_impl, GZWRAP_ROLE_CRC32);
    gzwrap_impl a = gzwrap_impl_resolve(adler32_impl, GZWRAP_ROLE_ADLER32);
    if (c == GZWRAP_IMPL_AUTO || a == GZWRAP_IMPL_AUTO)
        return GZWRAP_ERR_UNAVAILABLE;
    gzw_checksums_fn both = gzw_checksums_of(c, a);
    if (both) {
        both(crc32, adler32, buf, len, NULL, 0);
    } else {
        *crc32 = gzw_checksum_of(c, GZWRAP_ROLE_CRC32)(*crc32, buf, len);
        *adler32 = gzw_checksum_of(a, GZWRAP_ROLE_ADLER32)(*adler32, buf, len);
    }
    return GZWRAP_OK;
}
