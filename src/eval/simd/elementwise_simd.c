/* The float32 hot loops of the elementwise kernels: a portable scalar reference, and AVX2
 * and AVX-512 variants built from one template (elementwise_vec.inc) over the SIMD macro
 * layer (simd_avx2.h, simd_avx512.h). */
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

#include "simd_avx2.h"
#include "elementwise_vec.inc"
#include "simd_end.h"

#include "simd_avx512.h"
#include "elementwise_vec.inc"
#include "simd_end.h"

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
