/* The one interface the protobuf kernels (pb_bench.c, pb_print.c) drive every
 * decoder and printer through: the pbdyn library's builds, upb and Google's protobuf C++ each come as
 * a shared library exporting these functions, and the kernel loads them all
 * with dlopen into one process, so that every implementation is measured in
 * the same run, interleaved (A B A B ...).
 *
 * A context is one (message type, options) pair, opened outside the timed
 * region; bench_decode is the timed work: parse one serialized message into
 * a fresh or a reused arena, as the options say. */
#ifndef BENCH_ADAPTER_H
#define BENCH_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_ctx bench_ctx;

/* What this library is, e.g. "pbdyn musttail clang-19", "upb fasttable ...",
 * "protobuf-c++ 3.21.12 table-driven"; the first word (pbdyn, upb, anything
 * else: C++) tells the kernel which options it takes. */
const char *bench_name(void);

/* Open a context for messages of `type` (full name) from a serialized
 * FileDescriptorSet. `options` is a comma-separated list of key=value:
 *   decoder=fast|switch|generic   (pbdyn only)
 *   alias=0|1                     (pbdyn and upb: strings point into the input)
 *   reuse=0|1                     (reuse one arena, reset between messages)
 *   heap=1                        (C++ only: one message on the heap, Clear()
 *                                  before each parse, no arena)
 * Returns NULL and a message in err when the type or an option is unknown. */
bench_ctx *bench_open(const char *schema, size_t schema_len, const char *type,
                      const char *options, char *err, size_t errlen);

/* Decode buf[0..n) as one message. Returns 0 on success; the message is
 * kept until the next call (or bench_close), so that the work is not dead. */
int bench_decode(bench_ctx *c, const char *buf, size_t n);

/* A digest of the last decoded message (its re-encoding's length and a
 * checksum of it), to check that implementations agree on the payload. */
uint64_t bench_digest(bench_ctx *c);

void bench_close(bench_ctx *c);

/* Printing, for the printing kernel (pb_print.c); optional: a library that
 * cannot print a format lacks its symbol. Each prints the last decoded
 * message (bench_decode) with the library's default options (present fields
 * only, JSON names, enums by name, no spaces) and returns the output, valid
 * until the next call, its length in *n; NULL on failure. Output buffers are
 * kept from call to call, so that a warm print allocates as little as the
 * library allows. */
const char *bench_json(bench_ctx *c, size_t *n); /* proto3 JSON */
const char *bench_text(bench_ctx *c, size_t *n); /* the text format */

#ifdef __cplusplus
}
#endif

#endif /* BENCH_ADAPTER_H */
