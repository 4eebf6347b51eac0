/* The ai.onnx.ml vector kernels (ml_simd.h): scalar, AVX2 and AVX-512, chosen at run time.
 * Floats widen to double before they multiply, so every level computes in double. */
#include <stdbool.h>
#include <stddef.h>

#include "cpu.h"
#include "ml_simd.h"

#if OX_X86
#include <immintrin.h>
#endif

/* s plus the kernel over a row: the scalar kernels from 0, the AVX2 ones' tails. */
static double dot_from(double s, const double *a, const float *b, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		s += a[i] * (double)b[i];
	return s;
}

static double sqdist_from(double s, const double *a, const float *b, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		double d = a[i] - (double)b[i];
		s += d * d;
	}
	return s;
}

static double dot_scalar(const double *a, const float *b, int64_t n)
{
	return dot_from(0, a, b, n);
}

static double sqdist_scalar(const double *a, const float *b, int64_t n)
{
	return sqdist_from(0, a, b, n);
}

static int32_t walk_one(const ox_ml_trees *T, int32_t i, const double *x)
{
	for (int32_t steps = 0; T->t[i] >= 0; steps++) {
		if (steps > T->nnodes)
			return -1;
		double v = x[T->feat[i]], s = T->split[i];
		bool go = T->mode == 0 ? v <= s : T->mode == 1 ? v < s : T->mode == 2 ? v >= s : v > s;
		i = go || (v != v && T->nan_true[i]) ? T->t[i] : T->f[i];
	}
	return i;
}

static void walk_scalar(const ox_ml_trees *T, int32_t root, const double *x, int64_t n, int64_t c, int32_t *leaf)
{
	for (int64_t r = 0; r < n; r++)
		leaf[r] = walk_one(T, root, x + r * c);
}

static const ox_ml_vec scalar_table = {dot_scalar, sqdist_scalar, walk_scalar};

#if OX_X86

static OX_TARGET_AVX2 double hsum4(__m256d v)
{
	__m128d lo = _mm256_castpd256_pd128(v), hi = _mm256_extractf128_pd(v, 1);
	lo = _mm_add_pd(lo, hi);
	return _mm_cvtsd_f64(_mm_add_sd(lo, _mm_unpackhi_pd(lo, lo)));
}

/* dot_avx2, sqdist_avx2: the scalar kernel finishes the sum. */
#include "simd_avx2.h"
#define ML_REST(kernel, s, a, b, n) kernel##_from(hsum4(s), a, b, n)
#include "ml_simd_impl.h"
#undef ML_REST
#include "simd_end.h"

/* The comparison of mode as a mask of four 32-bit lanes (from four doubles). */
static OX_TARGET_AVX2 __m128i compare4(int mode, __m256d x, __m256d s)
{
	__m256d m = mode == 0 ? _mm256_cmp_pd(x, s, _CMP_LE_OQ)
		    : mode == 1 ? _mm256_cmp_pd(x, s, _CMP_LT_OQ)
		    : mode == 2 ? _mm256_cmp_pd(x, s, _CMP_GE_OQ)
				: _mm256_cmp_pd(x, s, _CMP_GT_OQ);
	__m256i lo = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(m), _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0));
	return _mm256_castsi256_si128(lo);
}

static OX_TARGET_AVX2 __m128i isnan4(__m256d x)
{
	__m256d m = _mm256_cmp_pd(x, x, _CMP_UNORD_Q);
	__m256i lo = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(m), _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0));
	return _mm256_castsi256_si128(lo);
}

/* Four rows at a time, each lane one row, gathering node fields and features; lanes that
 * reached a leaf stay there while the others go on. */
static OX_TARGET_AVX2 void walk_avx2(const ox_ml_trees *T, int32_t root, const double *x, int64_t n, int64_t c,
				     int32_t *leaf)
{
	int32_t ci = (int32_t)c;
	__m128i rows = _mm_setr_epi32(0, ci, 2 * ci, 3 * ci), none = _mm_set1_epi32(-1);
	int64_t r = 0;
	for (; r + 4 <= n; r += 4) {
		const double *xr = x + r * c;
		__m128i node = _mm_set1_epi32(root), done = _mm_setzero_si128();
		for (int32_t steps = 0; steps <= T->nnodes; steps++) {
			__m128i t = _mm_i32gather_epi32(T->t, node, 4);
			done = _mm_cmpeq_epi32(t, none);
			if (_mm_movemask_ps(_mm_castsi128_ps(done)) == 0xF)
				break;
			__m128i feat = _mm_i32gather_epi32(T->feat, node, 4);
			__m256d v = _mm256_i32gather_pd(xr, _mm_add_epi32(rows, feat), 8);
			__m128i go = compare4(T->mode, v, _mm256_i32gather_pd(T->split, node, 8));
			go = _mm_or_si128(go, _mm_and_si128(isnan4(v), _mm_i32gather_epi32(T->nan_true, node, 4)));
			__m128i next = _mm_blendv_epi8(_mm_i32gather_epi32(T->f, node, 4), t, go);
			node = _mm_blendv_epi8(next, node, done);
		}
		done = _mm_cmpeq_epi32(_mm_i32gather_epi32(T->t, node, 4), none);
		node = _mm_blendv_epi8(none, node, done); /* lanes still walking: a cycle */
		_mm_storeu_si128((__m128i *)(leaf + r), node);
	}
	walk_scalar(T, root, x + r * c, n - r, c, leaf + r);
}

static const ox_ml_vec table_avx2 = {dot_avx2, sqdist_avx2, walk_avx2};

/* dot_avx512, sqdist_avx512: the AVX2 kernel finishes the sum. */
#include "simd_avx512.h"
#define ML_REST(kernel, s, a, b, n) (_mm512_reduce_add_pd(s) + kernel##_avx2(a, b, n))
#include "ml_simd_impl.h"
#undef ML_REST
#include "simd_end.h"

static OX_TARGET_AVX512 __mmask8 compare8(int mode, __m512d x, __m512d s)
{
	return mode == 0 ? _mm512_cmp_pd_mask(x, s, _CMP_LE_OQ)
	       : mode == 1 ? _mm512_cmp_pd_mask(x, s, _CMP_LT_OQ)
	       : mode == 2 ? _mm512_cmp_pd_mask(x, s, _CMP_GE_OQ)
			   : _mm512_cmp_pd_mask(x, s, _CMP_GT_OQ);
}

/* Eight rows at a time, with mask registers. */
static OX_TARGET_AVX512 void walk_avx512(const ox_ml_trees *T, int32_t root, const double *x, int64_t n, int64_t c,
					 int32_t *leaf)
{
	int32_t ci = (int32_t)c;
	__m256i rows = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(ci));
	__m256i none = _mm256_set1_epi32(-1);
	int64_t r = 0;
	for (; r + 8 <= n; r += 8) {
		const double *xr = x + r * c;
		__m256i node = _mm256_set1_epi32(root);
		for (int32_t steps = 0; steps <= T->nnodes; steps++) {
			__m256i t = _mm256_i32gather_epi32(T->t, node, 4);
			__mmask8 walking = _mm256_cmpneq_epi32_mask(t, none);
			if (!walking)
				break;
			__m256i feat = _mm256_i32gather_epi32(T->feat, node, 4);
			__m512d v = _mm512_i32gather_pd(_mm256_add_epi32(rows, feat), xr, 8);
			__mmask8 go = compare8(T->mode, v, _mm512_i32gather_pd(node, T->split, 8));
			go |= _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q) &
			      _mm256_cmpneq_epi32_mask(_mm256_i32gather_epi32(T->nan_true, node, 4), _mm256_setzero_si256());
			__m256i next = _mm256_mask_blend_epi32(go, _mm256_i32gather_epi32(T->f, node, 4), t);
			node = _mm256_mask_blend_epi32(walking, node, next);
		}
		__mmask8 walking = _mm256_cmpneq_epi32_mask(_mm256_i32gather_epi32(T->t, node, 4), none);
		node = _mm256_mask_blend_epi32(walking, node, none); /* lanes still walking: a cycle */
		_mm256_storeu_si256((__m256i *)(leaf + r), node);
	}
	walk_avx2(T, root, x + r * c, n - r, c, leaf + r);
}

static const ox_ml_vec table_avx512 = {dot_avx512, sqdist_avx512, walk_avx512};

#endif

const ox_ml_vec *ox_ml_vec_level(int level)
{
	return ox_cpu_table(level, OX_CPU_TABLES(&scalar_table, &table_avx2, &table_avx512));
}

const ox_ml_vec *ox_ml_vec_get(void)
{
	const ox_ml_vec *t = ox_ml_vec_level(ox_cpu_level());
	return t ? t : &scalar_table;
}
