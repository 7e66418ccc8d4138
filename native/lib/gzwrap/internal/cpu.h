/* internal/cpu.h — what this CPU and OS can run, decided once (src/cpu.c). */
#ifndef GZWRAP_INTERNAL_CPU_H
#define GZWRAP_INTERNAL_CPU_H

typedef enum gzw_cpu_feature {
    GZW_CPU_AVX2 = 0,
    GZW_CPU_AVX512BW,   /* AVX-512 F and BW */
    GZW_CPU_AVX512VNNI, /* and VNNI */
    GZW_CPU_VPCLMUL,    /* AVX-512 F, BW, VL and VPCLMULQDQ (with PCLMULQDQ) */
} gzw_cpu_feature;

/* 1 if the CPU has the feature and the OS saves its registers, else 0. */
int gzw_cpu_has(gzw_cpu_feature f);

#endif
