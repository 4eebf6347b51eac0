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
/* Y = ConvTranspose(X, W) + bias: X is [batch, cin, in...], W is [cin, cout/group, kernel...],
 * Y is [batch, cout, out...]. */
int ox_conv_transpose_f32(int level, const ox_conv_geom *g, const float *x, const float *w, const float *bias,
			  float *y);

#endif
