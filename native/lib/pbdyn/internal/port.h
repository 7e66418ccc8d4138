/* Compiler and architecture macros of the pbdyn library, all in one place.
 *
 * Tail calls: PBDYN_MUSTTAIL is 1 where clang's musttail attribute exists and
 * the build did not ask for the portable path (-DPBDYN_TAILCALL=0). Then the
 * fast decoder chains its field functions with guaranteed tail calls (a
 * `jmp`, no stack growth). Otherwise each field function returns to a
 * trampoline loop: slower, but correct with any C11 compiler (gcc-12).
 * -DPBDYN_TAILCALL=2 makes a missing musttail a compile error.
 *
 * Calling convention: with musttail, the field functions use clang's
 * preserve_none where available (-DPBDYN_PRESERVE_NONE=0 turns it off): no
 * callee-saved registers, so a field function that calls out (to grow an
 * array, to decode a sub-message) saves only what it needs, and the 6
 * decoder-state arguments stay in registers across the whole chain. */
#ifndef PBDYN_INTERNAL_PORT_H
#define PBDYN_INTERNAL_PORT_H

#include <stdint.h>
#include <string.h>

/* Everything declared after this point is internal to the library: hidden,
 * so that calls and tail calls between its functions are direct (in a
 * shared library they would otherwise go through the PLT). */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define PBDYN_LIKELY(x) __builtin_expect(!!(x), 1)
#define PBDYN_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PBDYN_INLINE static inline __attribute__((always_inline))
/* A slow path kept out of its caller, whose fast path then needs no frame. */
#define PBDYN_NOINLINE __attribute__((noinline))

/* A loop that must stay a loop (register pressure in frameless code). */
#if defined(__clang__)
#define PBDYN_NOUNROLL _Pragma("clang loop unroll(disable)")
#elif defined(__GNUC__)
#define PBDYN_NOUNROLL _Pragma("GCC unroll 1")
#else
#define PBDYN_NOUNROLL
#endif

/* A loop that must stay scalar: clang's SSE2 vectorisation of a per-word
 * count is slower than the plain loop (no popcnt, no 64-bit multiply). */
#if defined(__clang__)
#define PBDYN_SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define PBDYN_SCALAR_LOOP
#endif

#ifndef __has_attribute
#define __has_attribute(x) 0
#endif

#ifndef PBDYN_TAILCALL
#define PBDYN_TAILCALL 1
#endif

#if PBDYN_TAILCALL && defined(__clang__) && __has_attribute(musttail)
#define PBDYN_MUSTTAIL 1
#define PBDYN_MUSTTAIL_ATTR __attribute__((musttail))
#else
#if PBDYN_TAILCALL == 2
#error "PBDYN_TAILCALL=2 (force) but this compiler has no musttail attribute"
#endif
#define PBDYN_MUSTTAIL 0
#define PBDYN_MUSTTAIL_ATTR
#endif

#ifndef __has_feature
#define __has_feature(x) 0
#endif

/* clang 19's backend cannot combine preserve_none with AddressSanitizer's
 * stack instrumentation ("stack realignment ... not supported with this
 * calling convention"): sanitized builds keep musttail, drop preserve_none. */
#ifndef PBDYN_PRESERVE_NONE
#if __has_feature(address_sanitizer) || defined(__SANITIZE_ADDRESS__)
#define PBDYN_PRESERVE_NONE 0
#else
#define PBDYN_PRESERVE_NONE 1
#endif
#endif

#if PBDYN_MUSTTAIL && PBDYN_PRESERVE_NONE && __has_attribute(preserve_none) && \
    defined(__x86_64__)
#define PBDYN_CC __attribute__((preserve_none))
#else
#define PBDYN_CC
#endif

/* Unaligned little-endian loads. Every supported target is little-endian;
 * the wire format is too, so fixed-width values are copied as they are. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pbdyn assumes a little-endian target"
#endif

PBDYN_INLINE uint16_t pbdyn__load16(const char *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}
PBDYN_INLINE uint32_t pbdyn__load32(const char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
PBDYN_INLINE uint64_t pbdyn__load64(const char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

#define PBDYN_PTR_AT(base, off, type) ((type *)((char *)(base) + (off)))
#define PBDYN_CPTR_AT(base, off, type) ((const type *)((const char *)(base) + (off)))

#endif /* PBDYN_INTERNAL_PORT_H */
