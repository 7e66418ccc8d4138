/* gzwrap.h — gzip, zlib, raw deflate and MySQL/MariaDB COMPRESS() re-wrapped without
 * recompression.
 *
 * All four formats carry the same thing, a deflate stream (RFC 1951), in different
 * wrappers:
 *
 *   gzip    (RFC 1952)  1F 8B 08 FLG MTIME[4] XFL OS [fields] deflate CRC-32[4 LE] ISIZE[4 LE]
 *                       one or more such members, one after the other
 *   zlib    (RFC 1950)  CMF FLG deflate Adler-32[4 BE]
 *   deflate             the bare stream
 *   mysql               COMPRESS(): length[4 LE] zlib-stream, plus "." when the zlib stream
 *                       ends in a space byte; the empty string for empty data. MariaDB and
 *                       MySQL read 30 bits of the length (`& 0x3FFFFFFF`).
 *
 * Converting between them copies the deflate bytes bit for bit. What the target needs and
 * the source lacks (the Adler-32 for zlib, the CRC-32 and ISIZE for gzip, the length for
 * COMPRESS()) is computed by inflating the stream once, streaming, in constant memory
 * (about 600 KiB whatever the size); the same pass checks the source's own checksum and
 * length. Multi-member gzip input (`cat a.gz b.gz`, pigz -i, bgzip) becomes one deflate
 * stream: each member's final-block bit is cleared and, where a member does not end on a
 * byte boundary, an empty stored block aligns the next one (RFC 1951 3.2.3-3.2.4).
 *
 * Inflating and checksumming use the fastest implementation present, chosen in one place
 * (src/impl.c): ISA-L's igzip and ISA-L/libdeflate checksums where they were found at build
 * time, zlib always (the portable path, which passes the same tests). libdeflate has no
 * streaming inflate: it provides checksums, and inflates a buffer conversion's stream of
 * at most 4 MiB of data whose size the source says (gzwrap_buffer_convert).
 *
 * Errors: every function returns a gzwrap_status; nothing exits, aborts or prints. A
 * conversion that fails fills the report's `error` with the input byte offset and what
 * was expected there. The library never leaves a half-written result behind on purpose,
 * but it writes through the caller's writer as it goes: callers that must not expose
 * partial output write to a temporary file and link it in on success (the gzwrap tool
 * does; to a pipe it passes on what the writer's `settle` says is final).
 *
 * Thread safety: no global state except the implementation table, which is constant;
 * conversions on different objects may run in parallel.
 *
 * NULL pointers (the one rule of every cpulab header): a pointer argument may be NULL only
 * where its comment says so. Every function that returns a gzwrap_status checks
 * the others and returns GZWRAP_ERR_ARG for a NULL one (a buffer may be NULL when its
 * length is 0); the functions that return no status do not check (a NULL there is
 * undefined behaviour), except gzwrap_options_init, which does nothing with NULL.
 */
#ifndef GZWRAP_H
#define GZWRAP_H

/* The version of this header and of the library built with it (semantic versioning).
 * GZWRAP_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, for use in #if. */
#define GZWRAP_VERSION_MAJOR 0
#define GZWRAP_VERSION_MINOR 2
#define GZWRAP_VERSION_PATCH 0
#define GZWRAP_VERSION (GZWRAP_VERSION_MAJOR * 10000 + GZWRAP_VERSION_MINOR * 100 + GZWRAP_VERSION_PATCH)
#define GZWRAP_VERSION_STRING "0.2.0"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gzwrap_status {
    GZWRAP_OK = 0,
    GZWRAP_ERR_ARG,         /* a NULL pointer, an unknown enum value, from == to == AUTO */
    GZWRAP_ERR_FORMAT,      /* not the expected format: wrong magic, unknown method */
    GZWRAP_ERR_AMBIGUOUS,   /* detection found two readings of the first bytes: use `from` */
    GZWRAP_ERR_HEADER,      /* a bad header: reserved flag bits, bad FCHECK or header CRC */
    GZWRAP_ERR_TRUNCATED,   /* the input ends early */
    GZWRAP_ERR_DATA,        /* the deflate stream is corrupt */
    GZWRAP_ERR_CHECKSUM,    /* the stored CRC-32 or Adler-32 differs from the data's */
    GZWRAP_ERR_LENGTH,      /* the stored ISIZE or COMPRESS() length differs */
    GZWRAP_ERR_TRAILING,    /* bytes after the end of the stream */
    GZWRAP_ERR_UNSUPPORTED, /* valid but not convertible: a zlib preset dictionary */
    GZWRAP_ERR_TOO_LARGE,   /* COMPRESS() cannot hold 2^30 bytes or more */
    GZWRAP_ERR_NEEDS_SEEK,  /* the writer cannot patch earlier bytes, and this needs it */
    GZWRAP_ERR_UNAVAILABLE, /* the implementation asked for is not in this build */
    GZWRAP_ERR_READ,        /* the reader failed */
    GZWRAP_ERR_WRITE,       /* the writer failed */
    GZWRAP_ERR_NOMEM,       /* an allocation failed */
    GZWRAP_ERR_OUTPUT_FULL, /* gzwrap_buffer_convert: the output buffer is too small */
} gzwrap_status;

/* A short English description of `status` ("truncated input", ...); never NULL. */
const char *gzwrap_status_str(gzwrap_status status);

typedef enum gzwrap_format {
    GZWRAP_FORMAT_AUTO = 0, /* as a source: detect (gzwrap_format_detect) */
    GZWRAP_FORMAT_GZIP,
    GZWRAP_FORMAT_ZLIB,
    GZWRAP_FORMAT_DEFLATE,
    GZWRAP_FORMAT_MYSQL,
} gzwrap_format;

/* "auto", "gzip", "zlib", "deflate", "mysql"; NULL for a value outside the enum. */
const char *gzwrap_format_name(gzwrap_format format);

/* The format named `name` (the names above; "compress" is taken for "mysql"). Returns
 * GZWRAP_ERR_ARG for any other name. */
gzwrap_status gzwrap_format_parse(const char *name, gzwrap_format *out);

/* The format of a stream from its first bytes: gzip (1F 8B), zlib (a valid CMF/FLG pair),
 * mysql (a zlib header after 4 bytes). Raw deflate has no magic and is never detected;
 * nor is an empty input (COMPRESS('') is '', but say so with from = mysql). `len` may be anything; fewer than 6 bytes are enough only
 * with `at_eof` set. When the first bytes read both as a zlib header and as a COMPRESS()
 * length followed by one, the zlib reading is tried further (its first deflate block
 * must be valid); if both remain possible, GZWRAP_ERR_AMBIGUOUS. Returns
 * GZWRAP_ERR_FORMAT for anything else, GZWRAP_ERR_TRUNCATED when more bytes are needed. */
gzwrap_status gzwrap_format_detect(const void *head, size_t len, int at_eof,
                                   gzwrap_format *out);

/* ---- implementations ---------------------------------------------------------------- */

typedef enum gzwrap_impl {
    GZWRAP_IMPL_AUTO = 0,    /* the fastest present (src/impl.c says why, with figures) */
    GZWRAP_IMPL_ZLIB,        /* always present: the portable path */
    GZWRAP_IMPL_ISAL,        /* Intel ISA-L (igzip inflate, crc32_gzip_refl, isal_adler32) */
    GZWRAP_IMPL_LIBDEFLATE,  /* checksums; no streaming inflate (AUTO's whole-stream one) */
    /* gzwrap's own checksums, by instruction set, where this CPU runs them (cpuid and
     * xgetbv, decided once). Where a conversion needs both sums and both are gzwrap's
     * AVX-512 paths, one pass over the data computes the two. */
    GZWRAP_IMPL_PORTABLE,    /* Adler-32 in plain C: every machine */
    GZWRAP_IMPL_AVX2,        /* Adler-32, 32 bytes per step */
    GZWRAP_IMPL_AVX512,      /* Adler-32, 64 bytes per step (AVX-512 BW); CRC-32 by
                              * VPCLMULQDQ, 256 bytes per step */
    GZWRAP_IMPL_AVX512_VNNI, /* Adler-32, the weighted sum in one vpdpbusd */
} gzwrap_impl;

/* The last value of gzwrap_impl. */
#define GZWRAP_IMPL_LAST GZWRAP_IMPL_AVX512_VNNI

typedef enum gzwrap_role {
    GZWRAP_ROLE_INFLATE = 0,
    GZWRAP_ROLE_CRC32,
    GZWRAP_ROLE_ADLER32,
} gzwrap_role;

/* "auto", "zlib", "isal", "libdeflate", "portable", "avx2", "avx512", "avx512-vnni";
 * NULL outside the enum. */
const char *gzwrap_impl_name(gzwrap_impl impl);

/* The implementation named `name` (as above). GZWRAP_ERR_ARG for any other name. */
gzwrap_status gzwrap_impl_parse(const char *name, gzwrap_impl *out);

/* 1 if `impl` can fill `role` in this build (AUTO always can), else 0. */
int gzwrap_impl_available(gzwrap_impl impl, gzwrap_role role);

/* The implementation that `impl` means for `role`: itself if available, the fastest
 * present for AUTO; GZWRAP_IMPL_AUTO when `impl` cannot fill the role here. */
gzwrap_impl gzwrap_impl_resolve(gzwrap_impl impl, gzwrap_role role);

/* Update a running CRC-32 (role CRC32, start from 0) or Adler-32 (role ADLER32, start
 * from 1) with `len` bytes, by `impl`. Returns GZWRAP_ERR_ARG for role INFLATE or a NULL
 * value, GZWRAP_ERR_UNAVAILABLE when `impl` cannot compute it here. */
gzwrap_status gzwrap_checksum_update(gzwrap_impl impl, gzwrap_role role, uint32_t *value,
                                     const void *buf, size_t len);

/* Update a running CRC-32 and Adler-32 with the same `len` bytes, by `crc32_impl` and
 * `adler32_impl` (AUTO: the fastest of each): in one pass over the bytes where the pair
 * has one (gzwrap's AVX-512 paths), else one after the other. Errors as above. */
gzwrap_status gzwrap_checksums_update(gzwrap_impl crc32_impl, gzwrap_impl adler32_impl,
                                      uint32_t *crc32, uint32_t *adler32, const void *buf,
                                      size_t len);

/* ---- I/O ------------------------------------------------------------------------------ */

/* Where input comes from: `read` fills up to `cap` bytes and returns how many (0 at end of
 * input) or -1 on error. */
typedef struct gzwrap_reader {
    void *ctx;
    long long (*read)(void *ctx, void *buf, size_t cap);
} gzwrap_reader;

/* Where output goes. `write` appends `len` bytes; `pread` reads back and `pwrite`
 * overwrites bytes written earlier at an output offset (0 = the first byte this
 * conversion wrote); `truncate` cuts the output to `size` bytes. Each returns 0 on
 * success and -1 on error. The last three may be NULL (a pipe); then the conversions that
 * must change bytes already written fail with GZWRAP_ERR_NEEDS_SEEK: the COMPRESS()
 * target at once (its length comes first but is known only at the end, and empty data
 * must give empty output), a gzip input when its second member shows up (each member's
 * final-block bit is found and cleared then). All other conversions work.
 * `settle` (may be NULL) says that the bytes before `offset` will never be read back or
 * rewritten, so that a writer that holds output back (to patch it for a pipe) can pass
 * them on: after every write when neither patch can happen (the source is not gzip and
 * the target not COMPRESS()), after each join of gzip members when the target is not
 * COMPRESS(), never for COMPRESS() (its length comes first). */
typedef struct gzwrap_writer {
    void *ctx;
    int (*write)(void *ctx, const void *buf, size_t len);
    int (*pread)(void *ctx, void *buf, size_t len, uint64_t offset);
    int (*pwrite)(void *ctx, const void *buf, size_t len, uint64_t offset);
    int (*truncate)(void *ctx, uint64_t size);
    int (*settle)(void *ctx, uint64_t offset);
} gzwrap_writer;

/* ---- conversion ------------------------------------------------------------------------ */

typedef struct gzwrap_options {
    gzwrap_format from;      /* GZWRAP_FORMAT_AUTO (default): detect from the first bytes */
    gzwrap_format to;        /* the target; default GZWRAP_FORMAT_ZLIB */
    gzwrap_impl inflater;    /* default AUTO */
    gzwrap_impl crc32;       /* default AUTO */
    gzwrap_impl adler32;     /* default AUTO */
    int all_checksums;       /* 1: compute both CRC-32 and Adler-32 of the data (for
                                checking the output afterwards); default 0: only those
                                that the source and target carry */
    int walk_blocks;         /* 1: walk each gzip member's blocks as it streams, so that
                                the writer is told everything before the current block is
                                final (`settle`) and a pipe gets it at once, for about as
                                much CPU time again as the inflate; default 0: a member is
                                held until the next one shows up or the input ends (its
                                final block is found then). Members after the first are
                                walked as they stream either way. */
    uint64_t data_length;    /* the data's length in bytes, where the caller knows it
                                before converting (from gzwrap_stream_check, say); default
                                0: unknown. With `to` mysql, COMPRESS()'s length, which
                                comes first, is then written at once and the output settles
                                as for zlib: a writer without pwrite and truncate will do,
                                and a pipe gets the value as it is made. Data of another
                                length fails with GZWRAP_ERR_LENGTH; 2^30 bytes or more
                                with GZWRAP_ERR_TOO_LARGE before anything is written. */
} gzwrap_options;

/* Fill `opt` with the defaults above. */
void gzwrap_options_init(gzwrap_options *opt);

/* Header fields of the gzip source that the target cannot carry (bit flags of a note). */
typedef enum gzwrap_field {
    GZWRAP_FIELD_FTEXT = 1 << 0,
    GZWRAP_FIELD_FHCRC = 1 << 1,
    GZWRAP_FIELD_FEXTRA = 1 << 2,
    GZWRAP_FIELD_FNAME = 1 << 3,
    GZWRAP_FIELD_FCOMMENT = 1 << 4,
    GZWRAP_FIELD_MTIME = 1 << 5,
    GZWRAP_FIELD_XFL = 1 << 6,
    GZWRAP_FIELD_OS = 1 << 7,
} gzwrap_field;

#define GZWRAP_NOTES_MAX 16
#define GZWRAP_TEXT_MAX 256

/* A field dropped from the output: which, in how many members, with an example. */
typedef struct gzwrap_note {
    gzwrap_field field;
    uint64_t members;           /* how many members' field of this kind was dropped */
    uint64_t first_member;      /* 1-based */
    char text[GZWRAP_TEXT_MAX]; /* "file name \"a.txt\" dropped: zlib cannot carry it" */
} gzwrap_note;

/* What a conversion found and did. Filled by every conversion, also on error. */
typedef struct gzwrap_report {
    gzwrap_format from, to;        /* `from` as detected */
    gzwrap_impl inflater_impl, crc32_impl, adler32_impl; /* the implementations used */
    uint64_t in_bytes;             /* input bytes read and accepted */
    uint64_t out_bytes;            /* bytes written */
    uint64_t data_bytes;           /* uncompressed length (exact, not modulo 2^32) */
    uint64_t payload_bytes;        /* deflate bytes copied from the input */
    uint64_t members;              /* gzip members (1 for the other formats) */
    uint64_t aligned;              /* empty stored blocks added between members */
    uint64_t blocks_walked;        /* deflate blocks whose codes were walked to find the
                                      members' final blocks (the cost of joining; none
                                      where the inflater tells where blocks start, as
                                      the bundled ISA-L does, and none for members of one
                                      block where it tells a stream's end to the bit) */
    uint32_t crc32, adler32;       /* of the data, when has_crc32 / has_adler32 */
    int has_crc32, has_adler32;
    /* the first gzip member's header, when the source is gzip */
    unsigned gzip_flags;           /* FLG */
    uint32_t gzip_mtime;
    unsigned gzip_xfl, gzip_os;
    size_t n_notes;                /* notes[0 .. n_notes-1]; the rest are not cleared */
    gzwrap_note notes[GZWRAP_NOTES_MAX];
    /* on error: the input byte offset at fault and what was expected there */
    gzwrap_status status;
    uint64_t error_offset;
    char error[GZWRAP_TEXT_MAX];
} gzwrap_report;

/* Convert the stream read from `in` into `opt->to`, written to `out`. `opt` may be NULL
 * (the defaults of gzwrap_options_init); `report` (may be NULL) receives what happened.
 * Constant memory (about 600 KiB, freed on return). Returns GZWRAP_OK or the first
 * error; on error, bytes already given to `out` are meaningless. */
gzwrap_status gzwrap_stream_convert(const gzwrap_options *opt, gzwrap_reader *in,
                                    gzwrap_writer *out, gzwrap_report *report);

/* The same between file descriptors. `out_fd` is patched with pread/pwrite when it is
 * seekable (a regular file), else it is a plain writer (see gzwrap_writer). */
gzwrap_status gzwrap_fd_convert(const gzwrap_options *opt, int in_fd, int out_fd,
                                gzwrap_report *report);

/* The largest output that converting `in_len` bytes into any format can give. */
size_t gzwrap_buffer_bound(size_t in_len);

/* The same between buffers: `out` has room for `out_cap` bytes (gzwrap_buffer_bound is
 * always enough), `*out_len` receives the output's length. GZWRAP_ERR_OUTPUT_FULL when
 * the output does not fit. With the inflater AUTO and libdeflate built in, a single gzip
 * member or a COMPRESS() value of at most 4 MiB of data is inflated at once, into a
 * buffer of its size, where libdeflate accepts it (the report's inflater_impl is then
 * GZWRAP_IMPL_LIBDEFLATE); else, and for zlib and deflate sources, it streams. */
gzwrap_status gzwrap_buffer_convert(const gzwrap_options *opt, const void *in, size_t in_len,
                                    void *out, size_t out_cap, size_t *out_len,
                                    gzwrap_report *report);

/* From a whole input in memory (read in place, as gzwrap_buffer_convert reads it: a
 * buffer, a mapped file) to a writer, in pieces, as gzwrap_stream_convert writes: the
 * output never needs room for all of it at once, and the deflate bytes are handed to
 * `out` from where they lie in `in`, not copied first. The input must stay unchanged
 * until it returns. Single members and COMPRESS() values of at most 4 MiB are inflated
 * at once as by gzwrap_buffer_convert. */
gzwrap_status gzwrap_memory_convert(const gzwrap_options *opt, const void *in, size_t in_len,
                                    gzwrap_writer *out, gzwrap_report *report);

/* ---- checking ----------------------------------------------------------------------------- */

/* What an independent decoder found in a stream. */
typedef struct gzwrap_check {
    uint64_t data_bytes;
    uint32_t crc32, adler32;
    uint64_t members;
} gzwrap_check;

/* Decode a whole stream of format `format` (not AUTO) with zlib's own decoders (inflate
 * with its gzip or zlib wrapper, not the implementation the conversion chose), verifying
 * its checksums, and give its data's length, CRC-32 and Adler-32. For --verify: convert
 * with all_checksums, then check the output and compare. `report` (may be NULL) receives
 * the error and its offset. */
gzwrap_status gzwrap_stream_check(gzwrap_format format, gzwrap_reader *in,
                                  gzwrap_check *result, gzwrap_report *report);

/* The same for a stream held in memory. */
gzwrap_status gzwrap_buffer_check(gzwrap_format format, const void *in, size_t in_len,
                                  gzwrap_check *result, gzwrap_report *report);

#ifdef __cplusplus
}
#endif
#endif /* GZWRAP_H */
