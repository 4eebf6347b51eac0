/* The float32 vector kernels of pooling, normalization and reductions (pool.c, norm.c,
 * reduce.c), in simd/nn_simd.c: one table per CPU level, the scalar table the reference. */
#ifndef OX_EVAL_NN_H
#define OX_EVAL_NN_H

#include <stdint.h>

#include "eval/kernel.h"

/* ---- float32 vector kernels -------------------------------------------------------- */

/* One 2-D pooling plane: input ih x iw, output oh x ow, kernel kh x kw with strides,
 * dilations and the pads at the top, left, bottom and right. */
enum { OX_POOL_MAX, OX_POOL_AVG, OX_POOL_AVG_PAD };
typedef struct ox_pool2d {
	int64_t ih, iw, oh, ow;
	int64_t kh, kw, sh, sw, dh, dw;
	int64_t pt, pl, pb, pr;
	int mode; /* AVG counts only input elements, AVG_PAD also the pads (not beyond them) */
} ox_pool2d;

/* Max and min propagate NaN; over no elements they give -inf and +inf. */
typedef struct ox_nn_vec {
	float (*sum)(const float *x, int64_t n);
	float (*max)(const float *x, int64_t n);
	float (*min)(const float *x, int64_t n);
	void (*acc_add)(float *acc, const float *x, int64_t n); /* acc[i] += x[i] */
	void (*acc_max)(float *acc, const float *x, int64_t n);
	void (*acc_min)(float *acc, const float *x, int64_t n);
	/* y[i] = exp(x[i] - m), returning the sum of the y[i] */
	float (*exp_shift)(float *y, const float *x, float m, int64_t n);
	/* y[i] = exp(x[i] - m[i]); sum[i] += y[i] */
	void (*exp_shift_v)(float *y, const float *x, const float *m, float *sum, int64_t n);
	void (*affine)(float *y, const float *x, float a, float b, int64_t n); /* x * a + b */
	void (*affine_v)(float *y, const float *x, const float *a, const float *b, int64_t n);
	void (*mul_v)(float *y, const float *x, const float *a, int64_t n); /* x[i] * a[i] */
	void (*add_v)(float *y, const float *x, const float *b, int64_t n); /* x[i] + b[i] */
	void (*exp)(float *y, const float *x, int64_t n);
	/* planes planes one after the other in x (ih x iw each) and y (oh x ow) */
	void (*pool2d)(const ox_pool2d *p, const float *x, float *y, int64_t planes);
	void (*sq_acc)(float *acc, const float *x, int64_t n); /* acc[i] = fma(x[i], x[i], acc[i]) */
	/* LRN with beta 0.75: y[i] = x[i] / (r * sqrt(r)), r = sqrt(fma(s[i], a, b)) */
	void (*lrn75)(float *y, const float *x, const float *s, float a, float b, int64_t n);
} ox_nn_vec;

/* The table for the CPU level in use (ox_cpu_level(), unless tests override it). */
const ox_nn_vec *ox_nn_vec_get(void);
/* The table of a level, or NULL when this build or this CPU lacks it. */
const ox_nn_vec *ox_nn_vec_level(int level);
/* Tests: make ox_nn_vec_get() use this level (-1: back to ox_cpu_level()). */
void ox_nn_vec_force(int level);

#endif
