/* mulpre internals: every compiler and architecture test of the library, in one place.
 *
 * MULPRE_HAVE_ASM     the generated src/mulpre_asm.S is assembled (x86-64 ELF, GNU as).
 * MULPRE_HAVE_INTRIN  src/mulpre_intrin.c compiles its BMI2/ADX functions (x86-64, gcc or
 *                     clang); they carry a target attribute, so the rest of the library
 *                     and its callers need no -mbmi2 -madx and still run on any x86-64.
 * MULPRE_TARGET_MULX  that attribute.
 * MULPRE_INTERNAL     hidden visibility: shared between the library's files, never exported
 *                     from libmulpre.so.
 * MULPRE_INLINE       forced inlining: the per-size functions are one generic body
 *                     instantiated with a constant n...
 * MULPRE_UNROLL       ...whose loops the compiler must unroll completely: without it gcc 12
 *                     and clang 19 keep the row loop at -O2 (gcc: 2 mul per N=4 body, the
 *                     rest a loop), and the running sum cannot live in registers.
 */
#ifndef MULPRE_INTERNAL_PORT_H
#define MULPRE_INTERNAL_PORT_H

#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define MULPRE_HAVE_ASM 1
#else
#define MULPRE_HAVE_ASM 0
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MULPRE_HAVE_INTRIN 1
#define MULPRE_TARGET_MULX __attribute__((target("bmi2,adx")))
#else
#define MULPRE_HAVE_INTRIN 0
#define MULPRE_TARGET_MULX
#endif

#define MULPRE_INTERNAL __attribute__((visibility("hidden")))
#define MULPRE_INLINE static inline __attribute__((always_inline))
#define MULPRE_UNROLL _Pragma("GCC unroll 16")

#if !defined(__SIZEOF_INT128__)
#error "mulpre's portable path needs unsigned __int128 (gcc or clang on a 64-bit target)"
#endif

#endif /* MULPRE_INTERNAL_PORT_H */
