/* Pad, CenterCropPad and Col2Im: ops that move a tensor's spatial window. Pad maps each
 * output position, axis by axis, to a source position (or to the fill value); negative
 * pads crop first, as onnxruntime does, and the modes then pad the cropped input. */
#include <stdlib.h>
#include <string.h>

#include "eval/move.h"

enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP };

/* The position in [0, len) that output offset i (relative to the first kept input
 * element) reads in mode, or -1 for the fill value. Reflect and wrap repeat
 * periodically when pads exceed the dim: reflect as numpy.pad does, wrap as the spec's
 * torus (numpy.pad's wrap, padding in rounds, departs from it when both sides exceed
 * the dim). */
static int64_t pad_src(int mode, int64_t i, int64_t len)
{
	if (i >= 0 && i < len)
		return i;
	int64_t p;
	switch (mode) {
	case PAD_EDGE:
		return i < 0 ? 0 : len - 1;
	case PAD_WRAP:
		i %= len;
		return i < 0 ? i + len : i;
	case PAD_REFLECT:
		if (len == 1)
			return 0;
		p = 2 * (len - 1);
		i %= p;
		if (i < 0)
			i += p;
		return i < len ? i : p - i;
	default:
		return -1;
	}
}

typedef struct pad_plan {
	int mode;
	int64_t begin[OX_MAX_RANK], end[OX_MAX_RANK]; /* may be negative: crop */
	char fill[16];                                /* one element of the output's type */
} pad_plan;

/* Fills map[0..out) with the source index of each output position along an axis. */
static int axis_map(ox_k *k, const pad_plan *p, int a, int64_t dim, int64_t *map, int64_t out)
{
	int64_t lo = p->begin[a] < 0 ? -p->begin[a] : 0, hi = p->end[a] < 0 ? -p->end[a] : 0;
	int64_t len = dim - lo - hi, pb = p->begin[a] > 0 ? p->begin[a] : 0;
	if (len <= 0 && p->mode != PAD_CONSTANT && out > 0)
		return ox_kfail(k, "axis %d has nothing left to pad from in mode %s", a,
				p->mode == PAD_EDGE ? "edge" : p->mode == PAD_WRAP ? "wrap" : "reflect");
	for (int64_t j = 0; j < out; j++) {
		int64_t s = pad_src(p->mode, j - pb, len);
		map[j] = s < 0 ? -1 : s + lo;
	}
	return 0;
}

/* Copies one output row: inner elements read through map from the source row src (NULL
 * when the whole row is fill), in runs of consecutive sources. */
static void pad_row(char *o, const char *src, const int64_t *map, int64_t n, size_t es, const char *fill)
{
	for (int64_t j = 0; j < n;) {
		if (!src || map[j] < 0) {
			memcpy(o + j * (int64_t)es, fill, es);
			j++;
			continue;
		}
		int64_t r = 1;
		while (j + r < n && map[j + r] == map[j] + r)
			r++;
		memcpy(o + j * (int64_t)es, src + map[j] * (int64_t)es, (size_t)r * es);
		j += r;
	}
}

static void pad_copy(ox_val *y, const ox_val *x, int64_t *const *maps, const char *fill)
{
	int r = x->rank;
	size_t es = ox_elem_size(x->type);
	int64_t istr[OX_MAX_RANK], idx[OX_MAX_RANK] = {0}, n = y->dims[r - 1];
	ox_strides(r, x->dims, istr);
	for (int64_t row = 0; row < y->count / n; row++) {
		int64_t off = 0;
		bool inside = true;
		for (int a = 0; a < r - 1; a++) {
			inside &= maps[a][idx[a]] >= 0;
			off += maps[a][idx[a]] * istr[a];
		}
		pad_row((char *)y->data + row * n * (int64_t)es, inside ? (const char *)x->data + off * (int64_t)es : NULL,
			maps[r - 1], n, es, fill);
		for (int a = r - 2; a >= 0 && ++idx[a] == y->dims[a]; a--)
			idx[a] = 0;
	}
}

/* Runs a planned pad of x into output 0. */
static int pad_run(ox_k *k, ox_val *x, const pad_plan *p)
{
	int64_t dims[OX_MAX_RANK], total = 0;
	for (int a = 0; a < x->rank; a++) {
		/* pads come from input data: the sum may not overflow, nor the axis grow past any
		 * tensor's size (which also keeps total in range) */
		if (__builtin_add_overflow(x->dims[a], p->begin[a], &dims[a]) ||
		    __builtin_add_overflow(dims[a], p->end[a], &dims[a]) || dims[a] > OX_MAX_ELEMENTS)
			return ox_kfail(k, "axis %d: pads %lld and %lld make its %lld elements more than the limit of 2^36",
					a, (long long)p->begin[a], (long long)p->end[a], (long long)x->dims[a]);
		if (dims[a] < 0)
			return ox_kfail(k, "axis %d: pads %lld and %lld crop more than its %lld elements", a,
					(long long)p->begin[a], (long long)p->end[a], (long long)x->dims[a]);
		total += dims[a];
	}
	if (x->rank == 0) {
		ox_out_set(k, 0, ox_val_ref(x));
		return 0;
	}
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	int64_t *buf = malloc((size_t)total * sizeof *buf), *maps[OX_MAX_RANK];
	if (!buf)
		return ox_kfail(k, "out of memory");
	int rc = 0;
	for (int a = 0; a < x->rank && rc == 0; a++) {
		maps[a] = a ? maps[a - 1] + dims[a - 1] : buf;
		rc = axis_map(k, p, a, x->dims[a], maps[a], dims[a]);
	}
	if (rc == 0) {
		pad_copy(y, x, maps, p->fill);
		rc = ox_out_own(k, y);
	}
	free(buf);
	return rc;
}

/* ---- Pad ------------------------------------------------------------------------- */

/* What differs between Pad's versions: the pads attribute is called paddings at 1; pads and
 * the fill value are attributes before 11, inputs from 11; input 3 (axes) comes at 18 and
 * mode wrap at 19. */
typedef struct pad_version {
	const char *pads;
	bool inputs, axes, wrap;
} pad_version;

static int pad_mode(ox_k *k, const pad_version *v, int *mode)
{
	static const char *const names[] = {"constant", "reflect", "edge", "wrap"};
	for (int m = 0; m < 4; m++)
		if (ox_attr_str_is(k, "mode", "constant", names[m])) {
			if (m == PAD_WRAP && !v->wrap) /* the opset only tells the user what they import */
				return ox_kfail(k, "mode 'wrap' needs opset 19 (the model imports %lld)", (long long)k->version);
			*mode = m;
			return 0;
		}
	return ox_kfail(k, "mode must be constant, reflect, edge%s", v->wrap ? " or wrap" : "");
}

/* The fill value: attribute 'value' (a float) before version 11, optional input 2 after;
 * zero (or "") by default. */
static int pad_fill(ox_k *k, const pad_version *ver, const ox_val *x, char *fill)
{
	memset(fill, 0, 16);
	if (!ver->inputs) {
		ox_val *t = ox_tensor_new(x->type, 0, NULL, NULL);
		if (!t)
			return ox_kfail(k, "out of memory");
		if (x->type != OX_STRING)
			ox_set_f64(t, 0, ox_attr_float(k, "value", 0));
		memcpy(fill, t->data, ox_elem_size(x->type));
		ox_val_unref(t);
		return 0;
	}
	if (!ox_in(k, 2))
		return 0;
	ox_val *v = ox_in_tensor(k, 2, true);
	if (!v)
		return -1;
	if (v->count == 0)
		return 0;
	if (v->type != x->type || v->count != 1)
		return ox_kfail(k, "constant_value must be one %s, not %lld %s", ox_elem_label(x->type), (long long)v->count,
				ox_elem_label(v->type));
	memcpy(fill, v->data, ox_elem_size(x->type));
	return 0;
}

/* pads: [begin of each axis..., end of each axis...] over the axes given (input 3 from
 * version 18) or all. */
static int pad_pads(ox_k *k, const pad_version *v, const ox_val *x, pad_plan *p)
{
	int64_t pads[2 * OX_MAX_RANK], axes[OX_MAX_RANK];
	bool seen[OX_MAX_RANK];
	int64_t n = ox_ints_arg(k, v->inputs, 1, v->pads, pads, 2 * OX_MAX_RANK);
	if (n == -2)
		return ox_kfail(k, v->inputs ? "input 1 (pads) is required" : "attribute 'pads' is required");
	int64_t na = v->axes ? ox_ints_arg(k, true, 3, "axes", axes, OX_MAX_RANK) : -2;
	if (n < 0 || na == -1)
		return -1;
	if (na == -2)
		for (na = 0; na < x->rank; na++)
			axes[na] = na;
	if (n != 2 * na)
		return ox_kfail(k, "pads has %lld values; expected %lld (2 per axis)", (long long)n, (long long)(2 * na));
	memset(seen, 0, sizeof seen);
	memset(p->begin, 0, sizeof p->begin);
	memset(p->end, 0, sizeof p->end);
	for (int64_t i = 0; i < na; i++) {
		int a = ox_axis(k, axes[i], x->rank);
		if (a < 0)
			return -1;
		if (seen[a])
			return ox_kfail(k, "axis %lld is given twice", (long long)axes[i]);
		seen[a] = true;
		if (pads[i] < -OX_MAX_ELEMENTS || pads[i] > OX_MAX_ELEMENTS || pads[i + na] < -OX_MAX_ELEMENTS ||
		    pads[i + na] > OX_MAX_ELEMENTS)
			return ox_kfail(k, "pads of axis %d are beyond the limits", a);
		p->begin[a] = pads[i];
		p->end[a] = pads[i + na];
	}
	return 0;
}

static int pad(ox_k *k, const pad_version *v)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	pad_plan p;
	if (!x || pad_mode(k, v, &p.mode) < 0 || pad_pads(k, v, x, &p) < 0 || pad_fill(k, v, x, p.fill) < 0)
		return -1;
	return pad_run(k, x, &p);
}

OX_KERNEL(ox_op_Pad_1, pad(k, &(const pad_version){"paddings", false, false, false}))
OX_KERNEL(ox_op_Pad_2, pad(k, &(const pad_version){"pads", false, false, false}))
OX_KERNEL(ox_op_Pad_11, pad(k, &(const pad_version){"pads", true, false, false}))
OX_KERNEL(ox_op_Pad_18, pad(k, &(const pad_version){"pads", true, true, false}))
OX_KERNEL(ox_op_Pad_19, pad(k, &(const pad_version){"pads", true, true, true}))

/* CenterCropPad: each axis cropped or zero-padded to the target size around its
 * center; an odd difference leaves the extra element at the end. */
int ox_op_CenterCropPad(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	int64_t shape[OX_MAX_RANK], axes[OX_MAX_RANK];
	int64_t n = ox_in_ints(k, 1, shape, OX_MAX_RANK, "input 1 (shape)");
	const int64_t *av;
	int64_t na = ox_attr_ints(k, "axes", &av);
	if (n < 0)
		return -1;
	if (na > OX_MAX_RANK)
		return ox_kfail(k, "attribute 'axes' has %lld values, more than the input's rank %d", (long long)na, x->rank);
	for (int64_t i = 0; i < (na < 0 ? x->rank : na); i++)
		axes[i] = na < 0 ? i : av[i];
	if (na < 0)
		na = x->rank;
	if (n != na)
		return ox_kfail(k, "shape has %lld values for %lld axes", (long long)n, (long long)na);
	pad_plan p = {PAD_CONSTANT, {0}, {0}, {0}};
	for (int64_t i = 0; i < na; i++) {
		int a = ox_axis(k, axes[i], x->rank);
		if (a < 0)
			return -1;
		if (shape[i] < 0)
			return ox_kfail(k, "shape[%lld] is negative (%lld)", (long long)i, (long long)shape[i]);
		int64_t d = x->dims[a], t = shape[i];
		p.begin[a] = t >= d ? (t - d) / 2 : -((d - t) / 2);
		p.end[a] = t - d - p.begin[a];
	}
	return pad_run(k, x, &p);
}

/* ---- Col2Im ---------------------------------------------------------------------- */

typedef struct c2i {
	int n;                                          /* spatial dims */
	int64_t img[OX_MAX_RANK], blk[OX_MAX_RANK], dil[OX_MAX_RANK], str[OX_MAX_RANK];
	int64_t pad[OX_MAX_RANK], nb[OX_MAX_RANK];      /* begin pads, blocks per dim */
	int64_t K, L;
} c2i;

/* An ints attribute of n values, or def for each when absent. */
static int spatial_attr(ox_k *k, const char *name, int64_t n, int64_t def, int64_t *out)
{
	const int64_t *v;
	int64_t m = ox_attr_ints(k, name, &v);
	if (m >= 0 && m != n)
		return ox_kfail(k, "attribute '%s' has %lld values; expected %lld", name, (long long)m, (long long)n);
	for (int64_t i = 0; i < n; i++)
		out[i] = m >= 0 ? v[i] : def;
	return 0;
}

static int c2i_plan(ox_k *k, const ox_val *x, c2i *c)
{
	int64_t n = ox_in_ints(k, 1, c->img, OX_MAX_RANK - 2, "input 1 (image_shape)");
	int64_t nb = n < 0 ? -1 : ox_in_ints(k, 2, c->blk, OX_MAX_RANK - 2, "input 2 (block_shape)");
	int64_t pads[2 * OX_MAX_RANK];
	if (nb < 0)
		return -1;
	if (nb != n || n < 1)
		return ox_kfail(k, "image_shape and block_shape must have one value per spatial dim (%lld, %lld)",
				(long long)n, (long long)nb);
	if (x->rank != 3)
		return ox_kfail(k, "input must have rank 3 (N, C * prod(block_shape), L), not %d", x->rank);
	if (spatial_attr(k, "dilations", n, 1, c->dil) < 0 || spatial_attr(k, "strides", n, 1, c->str) < 0 ||
	    spatial_attr(k, "pads", 2 * n, 0, pads) < 0)
		return -1;
	c->n = (int)n;
	c->K = c->L = 1;
	for (int i = 0; i < c->n; i++) {
		if (c->img[i] < 1 || c->blk[i] < 1 || c->dil[i] < 1 || c->str[i] < 1 || pads[i] < 0 || pads[i + n] < 0 ||
		    c->img[i] > OX_MAX_ELEMENTS || c->blk[i] > OX_MAX_ELEMENTS || pads[i] + pads[i + n] > OX_MAX_ELEMENTS ||
		    c->dil[i] > OX_MAX_ELEMENTS)
			return ox_kfail(k, "spatial dim %d: image, block, dilation and stride must be positive, pads not negative", i);
		c->pad[i] = pads[i];
		c->nb[i] = (c->img[i] + pads[i] + pads[i + n] - c->dil[i] * (c->blk[i] - 1) - 1) / c->str[i] + 1;
		if (c->nb[i] < 1)
			return ox_kfail(k, "spatial dim %d: the block does not fit the padded image", i);
		c->K *= c->blk[i];
		c->L *= c->nb[i];
		if (c->K > OX_MAX_ELEMENTS || c->L > OX_MAX_ELEMENTS)
			return ox_kfail(k, "too many blocks");
	}
	if (x->dims[1] % c->K)
		return ox_kfail(k, "input dim 1 (%lld) is not a multiple of prod(block_shape) (%lld)", (long long)x->dims[1],
				(long long)c->K);
	if (x->dims[2] != c->L)
		return ox_kfail(k, "input dim 2 is %lld, but the blocks number %lld", (long long)x->dims[2], (long long)c->L);
	return 0;
}

/* The image offset block position l at kernel position kp lands on, or -1 outside. */
static int64_t c2i_target(const c2i *c, int64_t kp, int64_t l)
{
	int64_t p[OX_MAX_RANK], off = 0;
	for (int i = c->n - 1; i >= 0; i--) { /* the last spatial dim varies fastest */
		p[i] = l % c->nb[i] * c->str[i] - c->pad[i] + kp % c->blk[i] * c->dil[i];
		kp /= c->blk[i];
		l /= c->nb[i];
		if (p[i] < 0 || p[i] >= c->img[i])
			return -1;
	}
	for (int i = 0; i < c->n; i++)
		off = off * c->img[i] + p[i];
	return off;
}

int ox_op_Col2Im(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	c2i c;
	if (!x || c2i_plan(k, x, &c) < 0)
		return -1;
	if (!ox_elem_is_float(x->type) && !ox_elem_is_int(x->type))
		return ox_kfail(k, "Col2Im does not take %s", ox_elem_label(x->type));
	int64_t dims[OX_MAX_RANK] = {x->dims[0], x->dims[1] / c.K};
	memcpy(dims + 2, c.img, (size_t)c.n * sizeof *dims);
	ox_val *y = ox_out_tensor(k, 0, x->type, c.n + 2, dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	memset(y->data, 0, (size_t)y->count * ox_elem_size(y->type));
	int64_t plane = y->count / (dims[0] * dims[1]);
	for (int64_t nc = 0; nc < dims[0] * dims[1]; nc++)
		for (int64_t kp = 0; kp < c.K; kp++)
			for (int64_t l = 0; l < c.L; l++) {
				int64_t t = c2i_target(&c, kp, l), i = (nc * c.K + kp) * c.L + l;
				if (t < 0)
					continue;
				t += nc * plane;
				if (x->type == OX_FLOAT)
					((float *)y->data)[t] += ((const float *)x->data)[i];
				else if (x->type == OX_DOUBLE)
					((double *)y->data)[t] += ((const double *)x->data)[i];
				else if (ox_elem_is_int(x->type))
					ox_set_i64(y, t, (int64_t)((uint64_t)ox_get_i64(y, t) + (uint64_t)ox_get_i64(x, i)));
				else
					ox_set_f64(y, t, ox_get_f64(y, t) + ox_get_f64(x, i));
			}
	return 0;
}
