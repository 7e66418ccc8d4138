/* Compiler and build macros of the vm library, all in one place.
 *
 * Tail calls: VM_HAVE_MUSTTAIL is 1 with clang's musttail (clang >= 13); the
 * techniques `tail` and `tail-pn` exist only then. gcc 12 has no musttail, so
 * a gcc build keeps `trampoline`, the same one-function-per-instruction
 * design returning to a loop after every instruction.
 * preserve_none (clang >= 19, x86-64 and AArch64) makes every register an
 * argument or scratch register: a handler saves nothing it does not use, so
 * the six VM-state arguments stay in registers along the whole chain.
 * preserve_most (clang) is the opposite, for cold callees: the callee saves
 * almost everything, so the rare call from a hot handler costs the handler
 * no spills. The tail techniques use it for their cold paths with
 * -DVM_TAIL_COLD_CALL=1; the default reaches them by a tail call to a
 * fallback handler instead (upb's design), because a handler with a call in
 * it gets a push/pop on its hot path too (see tail.inc).
 *
 * Build selection: -DVM_ONLY=1 -DVM_ONLY_<TECH>=1 keeps one technique (a
 * benchmark binary per technique); -DVM_TRACE=1 records dispatches.
 */
#ifndef VM_INTERNAL_PORT_H
#define VM_INTERNAL_PORT_H

#define VM_LIKELY(x) __builtin_expect(!!(x), 1)
#define VM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define VM_INLINE static inline __attribute__((always_inline))
#define VM_NOINLINE __attribute__((noinline))
/* Internal functions shared between files: not exported from a shared build,
 * so calls to them are direct (no PLT) and cannot be interposed. */
#define VM_HIDDEN __attribute__((visibility("hidden")))

#ifndef __has_attribute
#define __has_attribute(x) 0
#endif

#if defined(__clang__) && __has_attribute(musttail)
#define VM_HAVE_MUSTTAIL 1
#define VM_MUSTTAIL __attribute__((musttail))
#else
#define VM_HAVE_MUSTTAIL 0
#define VM_MUSTTAIL
#endif

#if VM_HAVE_MUSTTAIL && __has_attribute(preserve_none) && \
    (defined(__x86_64__) || defined(__aarch64__))
#define VM_HAVE_PRESERVE_NONE 1
#define VM_PRESERVE_NONE __attribute__((preserve_none))
#else
#define VM_HAVE_PRESERVE_NONE 0
#define VM_PRESERVE_NONE
#endif

#if defined(__clang__) && __has_attribute(preserve_most) && defined(__x86_64__)
#define VM_PRESERVE_MOST __attribute__((preserve_most))
#else
#define VM_PRESERVE_MOST
#endif

/* sqrt of a non-negative double without libm: `sqrt` may set errno, so
 * compilers keep a call to it on some path (clang 19 does even after an
 * x >= 0 test), and a call in a tail-call handler costs it a frame. */
#if defined(__x86_64__)
#include <emmintrin.h>
#define VM_SQRT(x) _mm_cvtsd_f64(_mm_sqrt_sd(_mm_set_sd(x), _mm_set_sd(x)))
#else
#define VM_SQRT(x) __builtin_sqrt(x)
#endif

#ifndef VM_TAIL_COLD_CALL
#define VM_TAIL_COLD_CALL 0
#endif

#ifndef VM_TRACE
#define VM_TRACE 0
#endif

/* Which techniques this build compiles (VM_ONLY restricts to one). */
#ifndef VM_ONLY
#define VM_ONLY 0
#endif
#define VM_BUILD_SWITCH (!VM_ONLY || VM_ONLY_SWITCH)
#define VM_BUILD_GOTO_SHARED (!VM_ONLY || VM_ONLY_GOTO_SHARED)
#define VM_BUILD_GOTO_REPLICATED (!VM_ONLY || VM_ONLY_GOTO_REPLICATED)
#define VM_BUILD_CALL (!VM_ONLY || VM_ONLY_CALL)
#define VM_BUILD_TAIL ((!VM_ONLY || VM_ONLY_TAIL) && VM_HAVE_MUSTTAIL)
#define VM_BUILD_TAIL_PN ((!VM_ONLY || VM_ONLY_TAIL_PN) && VM_HAVE_PRESERVE_NONE)
#define VM_BUILD_TRAMPOLINE (!VM_ONLY || VM_ONLY_TRAMPOLINE)

#endif /* VM_INTERNAL_PORT_H */
