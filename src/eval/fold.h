/* Session-time rewrites of a plan that do not need the executor's internals: which
 * operators may be computed once from constants, and BatchNormalization folded into the
 * weights of the Conv before it. */
#ifndef OX_EVAL_FOLD_H
#define OX_EVAL_FOLD_H

#include <stdbool.h>

#include "value.h"

/* Whether the operator gives the same outputs for the same inputs (not the random ones),
 * so that its result on constants can be kept. */
bool ox_fold_deterministic(const char *domain, const char *op);

/* Conv's W [cout, ...] and B (NULL or [cout]) with an inference BatchNormalization
 * (scale, bias, mean, var, each [cout], and epsilon) applied to the Conv's output folded
 * in: the weights become W * a per output channel and the bias *b2 = B * a + (bias -
 * mean * a), with a = scale / sqrt(var + eps) in float as the BatchNormalization kernel
 * computes it. Fills a[0..cout) and *b2. All float tensors. False when the shapes do not
 * allow it or memory runs out. */
bool ox_fold_bn(const ox_val *w, const ox_val *b, ox_val *const bn[4], double eps, float *a, ox_val **b2);

/* W with output channel c's weights multiplied by a[c], as a new tensor (NULL: no memory). */
ox_val *ox_fold_scale_rows(const ox_val *w, const float *a);

#endif
