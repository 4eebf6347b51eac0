/* The float32 hot loops of the elementwise kernels: a portable scalar reference, and AVX2
 * and AVX-512 variants built from one template (elementwise_vec.inc) with a thin layer of
 * macros over the intrinsics of each level. */
#include <math.h>
#include <string.h>

#include "cpu.h"
#include "eval/ops/elementwise.h"

/* ---- scalar reference ------------------------------------------------------------- */

/* The expressions are shared with the vector tails, so a vector loop and its scalar
 * twin agree bit for bit wherever the operation is exact. */
#define ADD(A, B) ((A) + (B))
#define SUB(A, B) ((A) - (B))
#define MUL(A, B) ((A) * (B))
#define DIV(A, B) ((A) / (B))
/* NaN-propagating, and the same choice as the SSE/AVX max/min instructions otherwise */
#define MAX(A, B) ((A) != (A) ? (A) : (A) > (B) ? (A) : (B))
#define MIN(A, B) ((A) != (A) ? (A) : (A) < (B) ? (A) : (B))
#define PRELU(A, B) ((A) < 0 ? (A) * (B) : (A))

#define SCALAR_BINARY(name, OP)                                                          \
	static void name##_scalar(float *y, const float *a, const float *b, size_t n, int sa, \
				  int sb)                                                \
	{                                                                                \
		if (sa && sb) {                                                          \
			for (size_t i = 0; i < n; i++)                                   \
				y[i] = OP(a[i], b[i]);                                   \
		} else if (sa) {                                                         \
			float B = b[0];                                                  \
			for (size_t i = 0; i < n; i++)                                   \
				y[i] = OP(a[i], B);                                      \
		} else if (sb) {                                                         \
			float A = a[0];                                                  \
			for (size_t i = 0; i < n; i++)                                   \
				y[i] = OP(A, b[i]);                                      \
		} else {                                                                 \
			float v = OP(a[0], b[0]);                                        \
			for (size_t i = 0; i < n; i++)                                   \
				y[i] = v;                                                \
		}                                                                        \
	}

SCALAR_BINARY(add, ADD)
SCALAR_BINARY(sub, SUB)
SCALAR_BINARY(mul, MUL)
SCALAR_BINARY(div, DIV)
SCALAR_BINARY(max, MAX)
SCALAR_BINARY(min, MIN)
SCALAR_BINARY(prelu, PRELU)

/* Relu keeps NaN and -0 as the vector max(0, x) does. */
static float relu1(float x, const float *p) { return x < 0 ? 0.0f : x; }
static float leaky1(float x, const float *p) { return x < 0 ? x * p[0] : x; }
static float exp1(float x, const float *p) { return expf(x); }
static float tanh1(float x, const float *p) { return tanhf(x); }
static float abs1(float x, const float *p) { return fabsf(x); }
static float neg1(float x, const float *p) { return -x; }
static float sqrt1(float x, const float *p) { return sqrtf(x); }

/* exp(-|x|) never overflows, and the form for x < 0 keeps full relative precision where
 * the result is tiny. */
static float sigmoid1(float x, const float *p)
{
	float e = expf(-fabsf(x));
	return (x >= 0 ? 1.0f : e) / (1.0f + e);
}

/* max(min, x) then min(max, x) as the vector instructions order them: NaN stays NaN,
 * and min > max gives max everywhere, as Clip-13 specifies. */
static float clip1(float x, const float *p)
{
	float t = p[0] > x ? p[0] : x;
	return p[1] < t ? p[1] : t;
}

#define SCALAR_UNARY(name, F)                                                             \
	static void name##_scalar(float *y, const float *x, size_t n, const float *p)     \
	{                                                                                 \
		for (size_t i = 0; i < n; i++)                                            \
			y[i] = F(x[i], p);                                                \
	}

SCALAR_UNARY(relu, relu1)
SCALAR_UNARY(leaky_relu, leaky1)
SCALAR_UNARY(sigmoid, sigmoid1)
SCALAR_UNARY(tanh, tanh1)
SCALAR_UNARY(exp, exp1)
SCALAR_UNARY(clip, clip1)
SCALAR_UNARY(abs, abs1)
SCALAR_UNARY(neg, neg1)
SCALAR_UNARY(sqrt, sqrt1)

static void f16_to_f32_scalar(float *y, const uint16_t *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = ox_f16_to_f32(x[i]);
}

static void f32_to_f16_scalar(uint16_t *y, const float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = ox_f32_to_f16(x[i]);
}

#define LOOPS(level, S)                                                                   \
	{                                                                                 \
		level, add_##S, sub_##S, mul_##S, div_##S, max_##S, min_##S, prelu_##S,  \
			relu_##S, leaky_relu_##S, sigmoid_##S, tanh_##S, exp_##S, clip_##S, \
			abs_##S, neg_##S, sqrt_##S, f16_to_f32_##S, f32_to_f16_##S        \
	}

static const ox_f32_loops scalar_loops = LOOPS(OX_CPU_SCALAR, scalar);

/* ---- x86-64: AVX2 and AVX-512 ----------------------------------------------------- */

#if OX_X86
#include <immintrin.h>

#define TARGET OX_TARGET_AVX2
#define S(name) name##_avx2
#define W 8
#define V __m256
#define VM __m256 /* comparison results: lane masks */
#define VI __m256i
#define VLD(p) _mm256_loadu_ps(p)
#define VST(p, v) _mm256_storeu_ps(p, v)
#define VSTREAM(p, v) _mm256_stream_ps(p, v)
#define VSET(x) _mm256_set1_ps(x)
#define VADD _mm256_add_ps
#define VSUB _mm256_sub_ps
#define VMUL _mm256_mul_ps
#define VDIV _mm256_div_ps
#define VMAXI _mm256_max_ps /* a > b ? a : b, b when either is NaN */
#define VMINI _mm256_min_ps
#define VFMA _mm256_fmadd_ps
#define VFNMA _mm256_fnmadd_ps
#define VSQRT _mm256_sqrt_ps
#define VAND _mm256_and_ps
#define VOR _mm256_or_ps
#define VXOR _mm256_xor_ps
#define VANDNOT _mm256_andnot_ps
#define VLT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define VGE(a, b) _mm256_cmp_ps(a, b, _CMP_GE_OQ)
#define VNAN(a) _mm256_cmp_ps(a, a, _CMP_UNORD_Q)
#define VSEL(m, a, b) _mm256_blendv_ps(a, b, m) /* b where m */
#define VROUND(a) _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VCVTI _mm256_cvtps_epi32
#define VISRA _mm256_srai_epi32
#define VISUB _mm256_sub_epi32
#define VIADD _mm256_add_epi32
#define VISET _mm256_set1_epi32
#define VISLL _mm256_slli_epi32
#define VIASF _mm256_castsi256_ps
#define VLDH(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p)))
#define VSTH(p, v) _mm_storeu_si128((__m128i *)(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT))
#include "elementwise_vec.inc"
#undef TARGET
#undef S
#undef W
#undef V
#undef VM
#undef VI
#undef VLD
#undef VST
#undef VSTREAM
#undef VSET
#undef VADD
#undef VSUB
#undef VMUL
#undef VDIV
#undef VMAXI
#undef VMINI
#undef VFMA
#undef VFNMA
#undef VSQRT
#undef VAND
#undef VOR
#undef VXOR
#undef VANDNOT
#undef VLT
#undef VGE
#undef VNAN
#undef VSEL
#undef VROUND
#undef VCVTI
#undef VISRA
#undef VISUB
#undef VIADD
#undef VISET
#undef VISLL
#undef VIASF
#undef VLDH
#undef VSTH

#define TARGET OX_TARGET_AVX512
#define S(name) name##_avx512
#define W 16
#define V __m512
#define VM __mmask16
#define VI __m512i
#define VLD(p) _mm512_loadu_ps(p)
#define VST(p, v) _mm512_storeu_ps(p, v)
#define VSTREAM(p, v) _mm512_stream_ps(p, v)
#define VSET(x) _mm512_set1_ps(x)
#define VADD _mm512_add_ps
#define VSUB _mm512_sub_ps
#define VMUL _mm512_mul_ps
#define VDIV _mm512_div_ps
#define VMAXI _mm512_max_ps
#define VMINI _mm512_min_ps
#define VFMA _mm512_fmadd_ps
#define VFNMA _mm512_fnmadd_ps
#define VSQRT _mm512_sqrt_ps
#define VAND _mm512_and_ps
#define VOR _mm512_or_ps
#define VXOR _mm512_xor_ps
#define VANDNOT _mm512_andnot_ps
#define VLT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)
#define VGE(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ)
#define VNAN(a) _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q)
#define VSEL(m, a, b) _mm512_mask_blend_ps(m, a, b)
#define VROUND(a) _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VCVTI _mm512_cvtps_epi32
#define VISRA _mm512_srai_epi32
#define VISUB _mm512_sub_epi32
#define VIADD _mm512_add_epi32
#define VISET _mm512_set1_epi32
#define VISLL _mm512_slli_epi32
#define VIASF _mm512_castsi512_ps
#define VLDH(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define VSTH(p, v) _mm256_storeu_si256((__m256i *)(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT))
#include "elementwise_vec.inc"

static const ox_f32_loops avx2_loops = LOOPS(OX_CPU_AVX2, avx2);
static const ox_f32_loops avx512_loops = LOOPS(OX_CPU_AVX512, avx512);
#endif

const ox_f32_loops *ox_f32_loops_at(int level)
{
	switch (level) {
	case OX_CPU_SCALAR: return &scalar_loops;
#if OX_X86
	case OX_CPU_AVX2: return &avx2_loops;
	case OX_CPU_AVX512: return &avx512_loops;
#endif
	default: return NULL;
	}
}

const ox_f32_loops *ox_f32_loops_best(void)
{
	const ox_f32_loops *l = ox_f32_loops_at(ox_cpu_level());
	return l ? l : &scalar_loops;
}
