/* Vector kernels of the ai.onnx.ml models: the dot products and squared distances of a row
 * of doubles with float coefficients or support vectors, over the features. The scalar
 * versions are the reference; the SIMD ones sum in another order (within rounding). */
#ifndef OX_EVAL_ML_SIMD_H
#define OX_EVAL_ML_SIMD_H

#include <stdint.h>

typedef struct ox_ml_vec {
	double (*dot)(const double *a, const float *b, int64_t n);    /* sum a[i] * b[i] */
	double (*sqdist)(const double *a, const float *b, int64_t n); /* sum (a[i] - b[i])^2 */
} ox_ml_vec;

/* The kernels of a CPU level (ox_cpu_level's numbering), or NULL when this CPU or build
 * lacks it; and those of the best level (ONNXTXT_CPU lowers it). */
const ox_ml_vec *ox_ml_vec_level(int level);
const ox_ml_vec *ox_ml_vec_get(void);

#endif
