/* Helpers shared by the kernels of quant.c, resize.c, einsum.c, signal.c, random.c,
 * attention.c and misc.c: tensors as arrays of double, checked scratch buffers, and the
 * element-type checks their error messages need. */
#ifndef OX_EVAL_MOREUTIL_H
#define OX_EVAL_MOREUTIL_H

#include "eval/kernel.h"

/* A malloc'd buffer of n elements of size bytes (never NULL for n == 0); NULL after
 * failing with a message naming what when n * size overflows or exceeds OX_MAX_BYTES. */
void *ox_more_alloc(ox_k *k, int64_t n, size_t size, const char *what);

/* The elements of a numeric tensor as doubles (the real part of complex ones), in a
 * buffer from ox_more_alloc; NULL after failing. */
double *ox_more_load(ox_k *k, const ox_val *t, const char *what);
/* Stores src[0..t->count) into t: rounding to nearest for float types, truncation toward
 * zero saturated to the type's range for integer types, nonzero for bool. */
void ox_more_store(ox_val *t, const double *src);

/* float, double, float16 or bfloat16: the types most floating-point kernels accept. */
bool ox_more_is_real(int type);
/* Fails unless input i (named what) has one of the element types of the 0-terminated list. */
int ox_more_check_type(ox_k *k, const ox_val *t, const char *what, const int *types);

/* The scalar value of a one-element tensor as a double or int64. */
double ox_more_scalar_f64(const ox_val *t);
int64_t ox_more_scalar_i64(const ox_val *t);

/* Input i as one integer (a scalar or one-element int32/int64 tensor); -1 after failing. */
int ox_more_in_int(ox_k *k, int i, int64_t *v, const char *what);

/* a * b for non-negative a and b, or -1 when it exceeds OX_MAX_ELEMENTS. */
int64_t ox_more_mul(int64_t a, int64_t b);

/* Row-major strides of dims (in elements). */
void ox_more_strides(int rank, const int64_t *dims, int64_t *strides);

#endif
