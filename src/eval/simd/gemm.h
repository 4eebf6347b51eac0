/* The single-precision GEMM core of MatMul, Gemm, Conv and ConvTranspose:
 *     C = alpha * A * B + beta * C,   A is M x K, B is K x N, C is M x N row-major,
 * with operands read through packers, so that transposes, strides and im2col all become
 * different ways of filling the same packed panels. */
#ifndef OX_EVAL_GEMM_H
#define OX_EVAL_GEMM_H

#include <stdbool.h>
#include <stdint.h>

/* An operand as the core sees it: a matrix of "rows" (M rows of A, N columns of B) by
 * "depth" (K). pack() copies rows [i0, i0 + ni) by depth [k0, k0 + kc) into dst as panels
 * of w rows: panel p holds, for each depth k in turn, the w elements of rows
 * i0 + p*w ... i0 + p*w + w - 1, zero beyond row i0 + ni. dst has room for
 * ceil(ni / w) * w * kc floats and is 64-byte aligned. Packers may use whatever the CPU
 * has (ox_cpu_level), whichever micro-kernel they pack for. */
typedef struct ox_gemm_src {
	void (*pack)(const struct ox_gemm_src *s, float *dst, int64_t i0, int64_t ni, int64_t k0, int64_t kc,
		     int w);
	const float *p;
	int64_t si, sk; /* element (i, k) is p[i*si + k*sk] for the strided packer */
	const void *ctx; /* for packers of their own, such as im2col */
	/* A packed once for all products (constant weights), by ox_gemm_prepack_a, or NULL;
	 * used when its layout matches the product's (the same level and M). */
	const struct ox_gemm_packed *packed;
} ox_gemm_src;

/* A whole A (M x K) in the packed layout of one variant: for each depth block of the
 * variant's KC, every panel of MR rows in turn. */
typedef struct ox_gemm_packed {
	int variant;
	int64_t m, k;
	float *data;
} ox_gemm_packed;

/* Floats that ox_gemm_prepack_a writes for an M x K A at level. */
int64_t ox_gemm_packed_floats(int level, int64_t m, int64_t k);
/* Packs all of a (M x K) into dst (64-byte aligned, ox_gemm_packed_floats of room) and
 * describes it in *out, for products at level with M rows. */
void ox_gemm_prepack_a(int level, int64_t m, int64_t k, const ox_gemm_src *a, float *dst, ox_gemm_packed *out);
/* Multiplies row i of a packed A by scale[i]: the packed form of diag(scale) * A, the same
 * bits as packing the product. */
void ox_gemm_packed_scale_rows(const ox_gemm_packed *q, const float *scale);

/* Strided operands: A (M x K, row stride lda, or K x M when transposed) and B (K x N, row
 * stride ldb, or N x K when transposed). */
ox_gemm_src ox_gemm_a(const float *a, int64_t lda, bool trans);
ox_gemm_src ox_gemm_b(const float *b, int64_t ldb, bool trans);
/* The strided packer, for packers that fall back to it. */
void ox_gemm_pack_strided(const ox_gemm_src *s, float *dst, int64_t i0, int64_t ni, int64_t k0, int64_t kc,
			  int w);

/* C = alpha * op(A) * op(B) + beta * C at the best CPU level. When beta is 0, C is only
 * written (it may hold garbage, even NaN). Returns 0, or -1 when scratch memory cannot
 * be allocated (C is then unspecified). */
int ox_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
	     const float *b, int64_t ldb, float beta, float *c, int64_t ldc);

/* The same with packers, at a given CPU level (clamped to what the CPU supports and this
 * build has); tests and benchmarks compare levels through it. */
int ox_sgemm_src(int level, int64_t m, int64_t n, int64_t k, float alpha, const ox_gemm_src *a,
		 const ox_gemm_src *b, float beta, float *c, int64_t ldc);

/* The register blocks of the micro-kernels, for tests that want edge cases around them. */
typedef struct ox_gemm_variant {
	const char *name;
	int level;
	int mr, nr;
} ox_gemm_variant;
/* The micro-kernels this build has (whatever the CPU supports): their count, and each. */
int ox_gemm_nvariants(void);
const ox_gemm_variant *ox_gemm_variant_info(int v);
/* The same GEMM forced to variant v (the caller checks that the CPU has its level). */
int ox_sgemm_variant(int v, int64_t m, int64_t n, int64_t k, float alpha, const ox_gemm_src *a,
		     const ox_gemm_src *b, float beta, float *c, int64_t ldc);

/* Double precision, portable and simply blocked, for double MatMul, Gemm and Conv. */
void ox_dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double *a, int64_t lda,
	      const double *b, int64_t ldb, double beta, double *c, int64_t ldc);

#endif
