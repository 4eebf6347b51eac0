/* The direct float convolution of Conv at the vector levels: no im2col. A register tile
 * holds a few output positions of one row (broadcast straight from the input) by a few
 * vectors of output channels (weights packed once, channels innermost), summed over the
 * whole depth, then turned round in registers and stored with the bias, a residual and
 * the activation applied. Shallow sums over rows whose neighbours are adjacent go
 * straight instead: positions in the lanes, weights broadcast, whole lines stored. */
#ifndef OX_EVAL_DCONV_H
#define OX_EVAL_DCONV_H

#include <stdbool.h>
#include <stdint.h>

/* One image and group. Output position p = r * len + j (row r < rows, j < len) reads, at
 * depth k, x[pos[r] + j * stride + off[k]]. x must be readable for ox_dconv_slack floats
 * past the last element a position reads when len is shorter than ox_dconv_min_len
 * (tiles then run past the row). */
typedef struct ox_dconv {
	const float *x;
	const int64_t *off, *pos;
	int64_t depth, rows, len, stride;
	const float *w;    /* the group's weights packed by ox_dconv_pack */
	int64_t cout;      /* the group's output channels */
	const float *bias; /* cout values, or NULL */
	const float *res;  /* added to the output (its layout), or NULL */
	float *y;          /* cout x (rows * len) */
	bool relu;         /* Relu after the residual */
} ox_dconv;

/* Whether the direct convolution runs at level (clamped to the CPU): the vector levels. */
int ox_dconv_available(int level);
/* Rows shorter than this read past their end, by up to ox_dconv_slack(level, stride). */
int64_t ox_dconv_min_len(int level);
int64_t ox_dconv_slack(int level, int64_t stride);

/* Whether c (its shape: depth, rows, len, stride, cout) is read straight at level:
 * positions in the lanes, whole lines stored, which wants a row's positions adjacent
 * (stride 1). */
bool ox_dconv_straight(int level, const ox_dconv *c);

/* Row x (len floats) put at column p0 of a padded row split into its even columns (e)
 * and its odd ones (o): column q is e[q / 2] or o[q / 2]. The same floats at any level. */
void ox_dconv_split_row(int level, const float *x, int64_t len, int64_t p0, float *e, float *o);

/* Floats of cout x depth weights packed at level, and the packing (64-byte aligned dst):
 * channels in slabs of the level's vector width, zero beyond cout, each row of W
 * multiplied by scale[c] as it is packed when scale is given. */
int64_t ox_dconv_packed_floats(int level, int64_t cout, int64_t depth);
void ox_dconv_pack(int level, const float *w, int64_t cout, int64_t depth, const float *scale, float *dst);

/* Y of one image and group, spread over the current pool's threads. Every output goes
 * through the same instructions whatever the thread count. */
void ox_dconv_run(int level, const ox_dconv *c);
/* c[0..n) at once, convolutions of one shape (the groups of a grouped convolution) in one
 * parallel region: groups each too small to be worth splitting are spread over the
 * threads, and the threads meet once, not once per group. The same bits as ox_dconv_run
 * of each. */
void ox_dconv_run_groups(int level, const ox_dconv *c, int64_t n);

#endif
