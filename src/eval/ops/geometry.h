/* Window geometry of convolutions and pooling, read from a node's attributes: the
 * integer lists (kernel_shape, strides, dilations, pads), auto_pad and output sizes. */
#ifndef OX_EVAL_GEOMETRY_H
#define OX_EVAL_GEOMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "conv.h"
#include "eval/kernel.h"
#include "window.h"

/* Window attribute values beyond this are refused, which keeps every size product of a
 * convolution below 2^63. */
#define OX_WINDOW_MAX (INT64_C(1) << 24)

/* The n values of INTS attribute name, each in [lo, OX_WINDOW_MAX], into out; def for
 * every value when the attribute is absent or empty. -1 after failing. */
int ox_window_ints(ox_k *k, const char *name, int n, int64_t lo, int64_t def, int64_t *out);

enum ox_auto_pad { OX_PAD_NOTSET, OX_PAD_SAME_UPPER, OX_PAD_SAME_LOWER, OX_PAD_VALID };
/* The node's auto_pad (NOTSET when absent), or -1 after failing. */
int ox_auto_pad(ox_k *k);

/* A convolution's window from X [N, C, in...] and W [M, C/group, kernel...]: g->nsp,
 * in, kernel, strides, dilations and pads (kernel_shape must agree with W). */
int ox_conv_attrs(ox_k *k, const ox_val *x, const ox_val *w, ox_conv_geom *g);
/* Conv's output size, and its pads when auto_pad chooses them. */
int ox_conv_out(ox_k *k, ox_conv_geom *g);

#endif
