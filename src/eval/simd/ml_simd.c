/* The ai.onnx.ml vector kernels (ml_simd.h): scalar, AVX2 and AVX-512, chosen at run time.
 * Floats widen to double before they multiply, so every level computes in double. */
#include <stddef.h>

#include "cpu.h"
#include "ml_simd.h"

#if OX_X86
#include <immintrin.h>
#endif

static double dot_scalar(const double *a, const float *b, int64_t n)
{
	double s = 0;
	for (int64_t i = 0; i < n; i++)
		s += a[i] * (double)b[i];
	return s;
}

static double sqdist_scalar(const double *a, const float *b, int64_t n)
{
	double s = 0;
	for (int64_t i = 0; i < n; i++) {
		double d = a[i] - (double)b[i];
		s += d * d;
	}
	return s;
}

static const ox_ml_vec scalar_table = {dot_scalar, sqdist_scalar};

#if OX_X86

static OX_TARGET_AVX2 double hsum4(__m256d v)
{
	__m128d lo = _mm256_castpd256_pd128(v), hi = _mm256_extractf128_pd(v, 1);
	lo = _mm_add_pd(lo, hi);
	return _mm_cvtsd_f64(_mm_add_sd(lo, _mm_unpackhi_pd(lo, lo)));
}

/* Two accumulators of four doubles: eight floats a step, then a scalar tail. */
static OX_TARGET_AVX2 double dot_avx2(const double *a, const float *b, int64_t n)
{
	__m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
	int64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256 f = _mm256_loadu_ps(b + i);
		s0 = _mm256_fmadd_pd(_mm256_loadu_pd(a + i), _mm256_cvtps_pd(_mm256_castps256_ps128(f)), s0);
		s1 = _mm256_fmadd_pd(_mm256_loadu_pd(a + i + 4), _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)), s1);
	}
	double s = hsum4(_mm256_add_pd(s0, s1));
	for (; i < n; i++)
		s += a[i] * (double)b[i];
	return s;
}

static OX_TARGET_AVX2 double sqdist_avx2(const double *a, const float *b, int64_t n)
{
	__m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
	int64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256 f = _mm256_loadu_ps(b + i);
		__m256d d0 = _mm256_sub_pd(_mm256_loadu_pd(a + i), _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
		__m256d d1 = _mm256_sub_pd(_mm256_loadu_pd(a + i + 4), _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
		s0 = _mm256_fmadd_pd(d0, d0, s0);
		s1 = _mm256_fmadd_pd(d1, d1, s1);
	}
	double s = hsum4(_mm256_add_pd(s0, s1));
	for (; i < n; i++) {
		double d = a[i] - (double)b[i];
		s += d * d;
	}
	return s;
}

static const ox_ml_vec table_avx2 = {dot_avx2, sqdist_avx2};

/* Sixteen floats a step in two accumulators of eight doubles. */
static OX_TARGET_AVX512 double dot_avx512(const double *a, const float *b, int64_t n)
{
	__m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
	int64_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m512 f = _mm512_loadu_ps(b + i);
		s0 = _mm512_fmadd_pd(_mm512_loadu_pd(a + i), _mm512_cvtps_pd(_mm512_castps512_ps256(f)), s0);
		s1 = _mm512_fmadd_pd(_mm512_loadu_pd(a + i + 8),
				     _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1))), s1);
	}
	double s = _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
	return s + dot_avx2(a + i, b + i, n - i);
}

static OX_TARGET_AVX512 double sqdist_avx512(const double *a, const float *b, int64_t n)
{
	__m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
	int64_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m512 f = _mm512_loadu_ps(b + i);
		__m512d d0 = _mm512_sub_pd(_mm512_loadu_pd(a + i), _mm512_cvtps_pd(_mm512_castps512_ps256(f)));
		__m512d d1 = _mm512_sub_pd(_mm512_loadu_pd(a + i + 8),
					   _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1))));
		s0 = _mm512_fmadd_pd(d0, d0, s0);
		s1 = _mm512_fmadd_pd(d1, d1, s1);
	}
	double s = _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
	return s + sqdist_avx2(a + i, b + i, n - i);
}

static const ox_ml_vec table_avx512 = {dot_avx512, sqdist_avx512};

#endif

const ox_ml_vec *ox_ml_vec_level(int level)
{
	if (level == OX_CPU_SCALAR)
		return &scalar_table;
#if OX_X86
	if (level == OX_CPU_AVX2 && ox_cpu_level() >= OX_CPU_AVX2)
		return &table_avx2;
	if (level == OX_CPU_AVX512 && ox_cpu_level() >= OX_CPU_AVX512)
		return &table_avx512;
#endif
	return NULL;
}

const ox_ml_vec *ox_ml_vec_get(void)
{
	const ox_ml_vec *t = ox_ml_vec_level(ox_cpu_level());
	return t ? t : &scalar_table;
}
