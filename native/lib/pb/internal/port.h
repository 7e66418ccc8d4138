/* Compiler and architecture macros of the pb library, all in one place.
 *
 * Tail calls: PB_MUSTTAIL is 1 where clang's musttail attribute exists and
 * the build did not ask for the portable path (-DPB_TAILCALL=0). Then the
 * fast decoder chains its field functions with guaranteed tail calls (a
 * `jmp`, no stack growth). Otherwise each field function returns to a
 * trampoline loop: slower, but correct with any C11 compiler (gcc-12).
 * -DPB_TAILCALL=2 makes a missing musttail a compile error.
 *
 * Calling convention: with musttail, the field functions use clang's
 * preserve_none where available (-DPB_PRESERVE_NONE=0 turns it off): no
 * callee-saved registers, so a field function that calls out (to grow an
 * array, to decode a sub-message) saves only what it needs, and the 6
 * decoder-state arguments stay in registers across the whole chain. */
#ifndef PB_INTERNAL_PORT_H
#define PB_INTERNAL_PORT_H

#include <stdint.h>
#include <string.h>

/* Everything declared after this point is internal to the library: hidden,
 * so that calls and tail calls between its functions are direct (in a
 * shared library they would otherwise go through the PLT). */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define PB_LIKELY(x) __builtin_expect(!!(x), 1)
#define PB_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PB_INLINE static inline __attribute__((always_inline))

/* A loop that must stay a loop (register pressure in frameless code). */
#if defined(__clang__)
#define PB_NOUNROLL _Pragma("clang loop unroll(disable)")
#elif defined(__GNUC__)
#define PB_NOUNROLL _Pragma("GCC unroll 1")
#else
#define PB_NOUNROLL
#endif

/* A loop that must stay scalar: clang's SSE2 vectorisation of a per-word
 * count is slower than the plain loop (no popcnt, no 64-bit multiply). */
#if defined(__clang__)
#define PB_SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define PB_SCALAR_LOOP
#endif

#ifndef __has_attribute
#define __has_attribute(x) 0
#endif

#ifndef PB_TAILCALL
#define PB_TAILCALL 1
#endif

#if PB_TAILCALL && defined(__clang__) && __has_attribute(musttail)
#define PB_MUSTTAIL 1
#define PB_MUSTTAIL_ATTR __attribute__((musttail))
#else
#if PB_TAILCALL == 2
#error "PB_TAILCALL=2 (force) but this compiler has no musttail attribute"
#endif
#define PB_MUSTTAIL 0
#define PB_MUSTTAIL_ATTR
#endif

#ifndef __has_feature
#define __has_feature(x) 0
#endif

/* clang 19's backend cannot combine preserve_none with AddressSanitizer's
 * stack instrumentation ("stack realignment ... not supported with this
 * calling convention"): sanitized builds keep musttail, drop preserve_none. */
#ifndef PB_PRESERVE_NONE
#if __has_feature(address_sanitizer) || defined(__SANITIZE_ADDRESS__)
#define PB_PRESERVE_NONE 0
#else
#define PB_PRESERVE_NONE 1
#endif
#endif

#if PB_MUSTTAIL && PB_PRESERVE_NONE && __has_attribute(preserve_none) && \
    defined(__x86_64__)
#define PB_CC __attribute__((preserve_none))
#else
#define PB_CC
#endif

/* Unaligned little-endian loads. Every supported target is little-endian;
 * the wire format is too, so fixed-width values are copied as they are. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pb assumes a little-endian target"
#endif

PB_INLINE uint16_t pb_load16(const char *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}
PB_INLINE uint32_t pb_load32(const char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
PB_INLINE uint64_t pb_load64(const char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

#define PB_PTR_AT(base, off, type) ((type *)((char *)(base) + (off)))
#define PB_CPTR_AT(base, off, type) ((const type *)((const char *)(base) + (off)))

#endif /* PB_INTERNAL_PORT_H */
