/* Run-time CPU feature levels for choosing SIMD kernels. Each SIMD kernel is compiled for
 * its level with a target attribute and picked once at run time; the scalar version is
 * the reference every SIMD variant is tested against. */
#ifndef OX_EVAL_CPU_H
#define OX_EVAL_CPU_H

enum {
	OX_CPU_SCALAR = 0,
	OX_CPU_AVX2 = 1,   /* x86-64 AVX2 + FMA + F16C */
	OX_CPU_AVX512 = 2, /* x86-64 AVX-512 F, BW, DQ, VL */
	OX_CPU_NEON = 3    /* reserved for AArch64 */
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define OX_X86 1
#define OX_TARGET_AVX2 __attribute__((target("avx2,fma,f16c")))
#define OX_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")))
#else
#define OX_X86 0
#endif

/* The best level this CPU supports, lowered by the environment variable ONNXTXT_CPU
 * ("scalar", "avx2" or "avx512") when set, so tests and benchmarks can compare levels. */
int ox_cpu_level(void);
const char *ox_cpu_level_name(int level);
/* A kernel family's table for a level, among its scalar, AVX2 and AVX-512 tables (the
 * latter two NULL where the build has no x86 code): NULL when the build or this CPU
 * lacks the level. */
const void *ox_cpu_table(int want, const void *scalar, const void *avx2, const void *avx512);
/* The three tables' arguments of ox_cpu_table, the SIMD ones named only where the build
 * has x86 code (elsewhere they are not compiled). */
#if OX_X86
#define OX_CPU_TABLES(scalar, avx2, avx512) (scalar), (avx2), (avx512)
#else
#define OX_CPU_TABLES(scalar, avx2, avx512) (scalar), NULL, NULL
#endif

#endif
