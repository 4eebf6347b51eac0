/* Internal interface of the elementwise kernels: the broadcasting engine, element type
 * conversion (Cast), and the float32 hot loops of every CPU level, exposed so that tests
 * can run each SIMD variant against its scalar twin. */
#ifndef OX_EVAL_ELEMENTWISE_H
#define OX_EVAL_ELEMENTWISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eval/value.h"

/* ---- float32 loops, one table per CPU level --------------------------------------- */

/* y[i] = a[i * sa] op b[i * sb] for i < n; sa and sb are 1 (walk the operand) or 0 (repeat
 * its first element). y may be the same array as an operand whose stride is 1. */
typedef void (*ox_f32_binary)(float *y, const float *a, const float *b, size_t n, int sa, int sb);
/* y[i] = f(x[i]) with the op's parameters p (LeakyRelu: alpha; Clip: min, max). y may be x. */
typedef void (*ox_f32_unary)(float *y, const float *x, size_t n, const float *p);

typedef struct ox_f32_loops {
	int level; /* OX_CPU_* */
	/* max and min return NaN when either operand is NaN; prelu is x < 0 ? x * slope : x
	 * with the slope as b. */
	ox_f32_binary add, sub, mul, div, max, min, prelu;
	ox_f32_unary relu, leaky_relu, sigmoid, tanh, exp, clip, abs, neg, sqrt;
	/* float16 <-> float32 (float16 as its bits), rounding to nearest even; exact as
	 * ox_f16_to_f32 and ox_f32_to_f16, but for the payload of signaling NaNs */
	void (*f16_to_f32)(float *y, const uint16_t *x, size_t n);
	void (*f32_to_f16)(uint16_t *y, const float *x, size_t n);
} ox_f32_loops;

/* The loops of one level, or NULL when that level is not compiled in (only x86-64 has
 * AVX2 and AVX-512 variants). Whether the CPU runs them is the caller's business. */
const ox_f32_loops *ox_f32_loops_at(int level);
/* The loops of the level ox_cpu_level() picks. */
const ox_f32_loops *ox_f32_loops_best(void);

/* Accuracy of the vectorized transcendental loops, measured over every 37th float (all
 * exponents, both signs; AVX2 and AVX-512 agree) against the exact value:
 *   exp      1.24 ulp  (Cephes-style polynomial on [-ln2/2, ln2/2]; the scale 2^n applied
 *                       in two steps, so results near overflow and subnormal ones round once)
 *   tanh     1.34 ulp  (x + x^3 P(x^2), P of degree 4 fitted here, for |x| < 0.625;
 *                       1 - 2 / (exp(2|x|) + 1) above)
 *   sigmoid  2.47 ulp  (exp(-|x|) / (1 + exp(-|x|)) or 1 / (1 + exp(-|x|)): no overflow)
 * The scalar twins call glibc's expf (0.50 ulp), tanhf (2.16 ulp) and the same sigmoid
 * formula (2.31 ulp); SIMD and scalar results differ by at most 1, 2 and 2 ulp. The bounds
 * below, which the tests check, leave one ulp for another libm. */
#define OX_F32_ULP_EXP 2
#define OX_F32_ULP_TANH 3
#define OX_F32_ULP_SIGMOID 3

/* Outputs of at least this many bytes are written with non-temporal stores by the
 * same-shape float32 binary loops and the unary loops: they would not stay in cache
 * anyway, and streaming them saves the read of every output line before its write.
 * Defining it (-DOX_STREAM_BYTES=...) lets a benchmark compare without streaming. */
#ifndef OX_STREAM_BYTES
#define OX_STREAM_BYTES ((size_t)8 << 20)
#endif

/* ---- the broadcasting engine ------------------------------------------------------ */

#define OX_EW_MAXIN 3

/* Inner loop: n output elements at y from inputs x[j], each walking (s[j] = 1) or
 * repeating its first element (s[j] = 0); ctx is the caller's. */
typedef void (*ox_ew_loop)(void *y, const void *const *x, const int *s, size_t n, const void *ctx);

/* Runs loop over every element of y, each input broadcast to y's shape by numpy rules
 * (the shapes must be compatible; y's shape is the broadcast one). Dimensions are merged
 * where every input is contiguous across them, so equal shapes, scalars and row or column
 * broadcasts each become a few long inner loops. */
void ox_ew_apply(ox_val *y, int nin, const ox_val *const *x, ox_ew_loop loop, const void *ctx);

/* ---- element type conversion ------------------------------------------------------ */

enum { OX_ROUND_UP, OX_ROUND_DOWN, OX_ROUND_NEAREST }; /* float8e8m0 targets (Cast-24) */

typedef struct ox_cast_opts {
	bool saturate;  /* float8 targets: Cast-19's table */
	int round_mode; /* float8e8m0 targets */
} ox_cast_opts;

/* Converts every element of src into dst (same count, any two types but complex): floats
 * to integers truncate toward zero, NaN becoming 0 and values beyond int64 saturating
 * before the integer wraps to the target's width; integers wrap (discarding high bits);
 * narrow floats round to nearest even once; numbers print as the shortest text that reads
 * back ("0.1", "1e+20", "NaN", "INF", "-INF"; bool as "1"/"0"); strings parse as decimal
 * or scientific numbers, "inf", "+INF", "-inf", "NaN" in any case. Returns 0, or -1 with
 * a message in msg (OX_MSG bytes) for a string that is not a number or out of memory. */
int ox_ew_convert(ox_val *dst, const ox_val *src, const ox_cast_opts *o, char *msg);

#endif
