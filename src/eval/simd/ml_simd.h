/* Vector kernels of the ai.onnx.ml models: the dot products and squared distances of a row
 * of doubles with float coefficients or support vectors, over the features, and the walk
 * of many rows down one tree. The scalar versions are the reference; the SIMD dot products
 * sum in another order (within rounding), the walks reach the same leaves. */
#ifndef OX_EVAL_ML_SIMD_H
#define OX_EVAL_ML_SIMD_H

#include <stdint.h>

/* Trees flattened for walking: node i of an internal node compares feature feat[i] of a
 * row with split[i] by mode (the one mode of every node: 0 x <= split, 1 x < split,
 * 2 x >= split, 3 x > split) and goes to t[i] when true or when the feature is NaN and
 * nan_true[i] is -1, else to f[i]. A leaf has t[i] = -1 and feat[i] = 0. */
typedef struct ox_ml_trees {
	int mode;
	int32_t nnodes;
	const int32_t *feat, *t, *f, *nan_true;
	const double *split;
} ox_ml_trees;

typedef struct ox_ml_vec {
	double (*dot)(const double *a, const float *b, int64_t n);    /* sum a[i] * b[i] */
	double (*sqdist)(const double *a, const float *b, int64_t n); /* sum (a[i] - b[i])^2 */
	/* leaf[r] = the leaf row r of x (n rows of c >= 1 features, c < 2^28) reaches from
	 * node root, or -1 when the walk takes more than nnodes steps (a cycle). */
	void (*walk)(const ox_ml_trees *T, int32_t root, const double *x, int64_t n, int64_t c, int32_t *leaf);
} ox_ml_vec;

/* The kernels of a CPU level (ox_cpu_level's numbering), or NULL when this CPU or build
 * lacks it; and those of the best level (ONNXTXT_CPU lowers it). */
const ox_ml_vec *ox_ml_vec_level(int level);
const ox_ml_vec *ox_ml_vec_get(void);

#endif
