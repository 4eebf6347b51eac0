/* The float convolutions behind Conv and ConvTranspose, callable without a node (tests
 * and benchmarks) at a chosen CPU level. */
#ifndef OX_EVAL_CONV_H
#define OX_EVAL_CONV_H

#include <stdint.h>

#include "eval/value.h"

/* The shape of one convolution. For Conv, in is X's spatial shape and out Y's; for
 * ConvTranspose the same (so out is the larger). pad0/pad1 are the pads at the start
 * and end of each spatial axis (for ConvTranspose they are cut from the output). */
typedef struct ox_conv_geom {
	int nsp; /* spatial axes */
	int64_t batch, cin, cout, group;
	int64_t in[OX_MAX_RANK], out[OX_MAX_RANK], kernel[OX_MAX_RANK];
	int64_t stride[OX_MAX_RANK], dil[OX_MAX_RANK], pad0[OX_MAX_RANK], pad1[OX_MAX_RANK];
} ox_conv_geom;

/* Y = Conv(X, W) + bias (bias may be NULL): X is [batch, cin, in...], W is
 * [cout, cin/group, kernel...], Y is [batch, cout, out...]. Returns 0, or -1 when scratch
 * memory cannot be allocated. */
int ox_conv_f32(int level, const ox_conv_geom *g, const float *x, const float *w, const float *bias, float *y);
/* The same with weights packed beforehand by ox_conv_prepack (NULL: packed as it goes;
 * ignored when packed for another level or shape), and a residual res (Y's shape, or
 * NULL) added and an activation (OX_ACT_* of kernel.h) applied to the output as soon as
 * it is computed: the bits of Conv, then Add, then the activation. */
int ox_conv_f32_packed(int level, const ox_conv_geom *g, const float *x, const float *w, const void *packed,
		       const float *bias, const float *res, float *y, int act);
/* W (cout x depth floats, depth = cin/group * taps) packed for the GEMM of each group at
 * level: a malloc'd block for ox_conv_f32_packed (free() it), or NULL when out of memory.
 * With scale (cout floats), output channel c's weights are multiplied by scale[c] as
 * they are packed (a BatchNormalization folded in, without a scaled copy of W); such a
 * block is then the only form of those weights: ox_conv_f32_packed fails (-1) for a
 * convolution it does not fit, and depthwise ones (cin == group) are refused. */
void *ox_conv_prepack(int level, const float *w, int64_t cout, int64_t group, int64_t depth, const float *scale);

/* Y = ConvTranspose(X, W) + bias: X is [batch, cin, in...], W is [cin, cout/group, kernel...],
 * Y is [batch, cout, out...]. */
int ox_conv_transpose_f32(int level, const ox_conv_geom *g, const float *x, const float *w, const float *bias,
			  float *y);

#endif
