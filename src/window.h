/* The arithmetic of convolution and pooling windows along one axis, shared by the evaluator's
 * kernels (src/eval/ops/geometry.c, pool.c, conv.c) and shape inference, so that run-time and
 * static shapes cannot disagree. */
#ifndef OX_WINDOW_H
#define OX_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

/* SAME_UPPER / SAME_LOWER along one axis of in elements, stride s and dilated kernel
 * extent ext: the output is ceil(in / s), and the padding it needs is split in two, the
 * odd element at the end (upper) or at the start (lower). Returns the output size. */
int64_t ox_same_pads(int64_t in, int64_t s, int64_t ext, bool lower, int64_t *pad0, int64_t *pad1);

/* The dilated extent of a kernel of k taps and dilation d. */
static inline int64_t ox_window_extent(int64_t k, int64_t d)
{
	return (k - 1) * d + 1;
}

/* Windows of extent ext and stride s over in elements padded by pad0 and pad1 (explicit or
 * VALID pads): floor((in + pads - ext) / s) + 1, or with ceil_mode rounded up (but no window
 * may start in the end padding). -1 when the padded input is shorter than ext. */
int64_t ox_window_out(int64_t in, int64_t pad0, int64_t pad1, int64_t ext, int64_t s, bool ceil_mode);

/* ConvTranspose's full output along one axis before its pads: s * (in - 1) + opad + ext. */
static inline int64_t ox_window_transpose_full(int64_t in, int64_t s, int64_t ext, int64_t opad)
{
	return s * (in - 1) + opad + ext;
}

#endif
