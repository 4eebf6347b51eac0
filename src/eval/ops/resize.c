/* Resize (opsets 10, 11, 13, 18, 19) and Upsample (7, 9). Interpolation is separable:
 * each resized axis gets a table of taps (input index and weight per output index), built
 * with the coordinate transformation and coefficient formulas of the ONNX reference
 * (onnx/reference/ops/op_resize.py), and applied one axis at a time in double. Nearest
 * mode is a pure gather, so it works for every element type. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval/kernel.h"
#include "eval/move.h"


enum { NEAREST, LINEAR, CUBIC };
enum { HALF_PIXEL, HALF_PIXEL_SYMMETRIC, PYTORCH_HALF_PIXEL, ALIGN_CORNERS, ASYMMETRIC, TF_HALF_PIXEL_FOR_NN,
       TF_CROP_AND_RESIZE };
/* SIMPLE: Resize-10 and Upsample: floor when upsampling, ceil when downsampling. */
enum { ROUND_PREFER_FLOOR, ROUND_PREFER_CEIL, FLOOR, CEIL, SIMPLE };

typedef struct params {
	int mode, ctm, nearest;
	double cubic_a, extrapolation;
	bool exclude_outside, antialias;
} params;

/* The taps of one axis: for output index o, ntap pairs (idx, w) at o * ntap, or the
 * extrapolation value when extra[o] is set. */
typedef struct taps {
	int64_t in, out, ntap;
	int64_t *idx;
	double *w;
	bool *extra;
	bool identity;
} taps;

/* ---- attributes ------------------------------------------------------------------- */

static int pick(ox_k *k, const char *attr, const char *def, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (names[i] && ox_attr_str_is(k, attr, def, names[i]))
			return i;
	size_t len;
	const char *v = ox_attr_str(k, attr, def, &len);
	return ox_kfail(k, "%s '%.*s' is not supported", attr, (int)len, v);
}

/* What differs between Resize's versions: 10 takes scales as input 1 and samples like
 * Upsample (asymmetric, nearest rounding down); 11 adds roi and sizes and the coordinate
 * transformations, with tf_half_pixel_for_nn until 13 and half_pixel_symmetric from 19
 * (axes and keep_aspect_ratio_policy, from 18, are attributes the session refuses before). */
enum { RESIZE_10, RESIZE_11, RESIZE_13, RESIZE_19 };

static int read_params(ox_k *k, int ver, params *p)
{
	static const char *const modes[] = {"nearest", "linear", "cubic"};
	static const char *const ctms[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
					   "align_corners", "asymmetric", "tf_half_pixel_for_nn",
					   "tf_crop_and_resize"};
	static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
	memset(p, 0, sizeof *p);
	if ((p->mode = pick(k, "mode", "nearest", modes, 3)) < 0)
		return -1;
	if (ver == RESIZE_10) {
		p->ctm = ASYMMETRIC, p->nearest = SIMPLE;
		return 0;
	}
	if ((p->ctm = pick(k, "coordinate_transformation_mode", "half_pixel", ctms, 7)) < 0 ||
	    (p->nearest = pick(k, "nearest_mode", "round_prefer_floor", nms, 4)) < 0)
		return -1;
	/* the message names the opset, which the user chose */
	if ((p->ctm == HALF_PIXEL_SYMMETRIC && ver < RESIZE_19) || (p->ctm == TF_HALF_PIXEL_FOR_NN && ver >= RESIZE_13))
		return ox_kfail(k, "coordinate_transformation_mode is not available at opset %lld", (long long)k->version);
	p->cubic_a = ox_attr_float(k, "cubic_coeff_a", -0.75f);
	p->extrapolation = ox_attr_float(k, "extrapolation_value", 0.0f);
	p->exclude_outside = ox_attr_int(k, "exclude_outside", 0) != 0;
	p->antialias = ox_attr_int(k, "antialias", 0) != 0 && p->mode != NEAREST;
	return 0;
}

/* ---- taps ------------------------------------------------------------------------- */

/* The input coordinate of output index o (the spec's coordinate transformations). */
static double source_coord(const params *p, int64_t o, double scale, int64_t in, int64_t out, const double *roi)
{
	double x = (double)o, len = scale * (double)in;
	switch (p->ctm) {
	case HALF_PIXEL: return (x + 0.5) / scale - 0.5;
	case HALF_PIXEL_SYMMETRIC: {
		double adj = (double)out / len, offset = (double)in / 2 * (1 - adj);
		return offset + (x + 0.5) / scale - 0.5;
	}
	case PYTORCH_HALF_PIXEL: return out > 1 ? (x + 0.5) / scale - 0.5 : 0;
	case ALIGN_CORNERS: return out == 1 || len == 1 ? 0 : x * (double)(in - 1) / (len - 1);
	case ASYMMETRIC: return x / scale;
	case TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / scale;
	default:
		if (out == 1)
			return 0.5 * (roi[0] + roi[1]) * (double)(in - 1);
		return roi[0] * (double)(in - 1) + x * (roi[1] - roi[0]) * (double)(in - 1) / (len - 1);
	}
}

static double cubic(double x, double a)
{
	x = fabs(x);
	if (x <= 1)
		return ((a + 2) * x - (a + 3)) * x * x + 1;
	if (x < 2)
		return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
	return 0;
}

/* The first tap's offset from b and the number of taps (the filter's support, stretched
 * by 1 / scale when antialiasing a downscale). */
static int64_t tap_start(const params *p, double scale, int64_t *n)
{
	double s = p->antialias && scale < 1 ? scale : 1;
	double start = floor((p->mode == LINEAR ? -1 : -2) / s) + 1;
	start = start < -(double)((int64_t)1 << 30) ? -(double)((int64_t)1 << 30) : start; /* too many; refused */
	*n = 2 - 2 * (int64_t)start;
	return (int64_t)start;
}

/* Weights of taps b + start + t for the source coordinate b + r, r in (0, 1]. */
static void tap_weights(const params *p, double r, double scale, int64_t start, int64_t n, double *w)
{
	double s = p->antialias && scale < 1 ? scale : 1, sum = 0;
	for (int64_t t = 0; t < n; t++) {
		double d = ((double)(start + t) - r) * s;
		w[t] = p->mode == LINEAR ? fmax(0, 1 - fabs(d)) : cubic(d, p->cubic_a);
		sum += w[t];
	}
	if (p->antialias)
		for (int64_t t = 0; t < n; t++)
			w[t] /= sum;
}

static int64_t nearest_index(const params *p, double x, double scale)
{
	double b = ceil(x) - 1, r = x - b;
	bool up;
	switch (p->nearest) {
	case ROUND_PREFER_FLOOR: up = r > 0.5; break;
	case ROUND_PREFER_CEIL: up = r >= 0.5; break;
	case FLOOR: up = r == 1; break;
	case CEIL: up = true; break;
	default: up = scale < 1 || r == 1; break;
	}
	return (int64_t)(up ? b + 1 : b);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Taps of output index o. */
static void taps_one(const params *p, taps *T, int64_t o, double scale, const double *roi)
{
	double x = source_coord(p, o, scale, T->in, T->out, roi);
	int64_t *idx = T->idx + o * T->ntap;
	double *w = T->w + o * T->ntap;
	T->extra[o] = p->ctm == TF_CROP_AND_RESIZE && (x < 0 || x > (double)(T->in - 1));
	if (p->mode == NEAREST) {
		idx[0] = clamp64(nearest_index(p, x, scale), 0, T->in - 1), w[0] = 1;
		return;
	}
	double b = ceil(x) - 1, sum = 0;
	int64_t n, start = tap_start(p, scale, &n);
	tap_weights(p, x - b, scale, start, n, w);
	for (int64_t t = 0; t < n; t++) {
		int64_t i = (int64_t)b + start + t;
		if (p->exclude_outside && (i < 0 || i >= T->in))
			w[t] = 0;
		sum += w[t];
		idx[t] = clamp64(i, 0, T->in - 1);
	}
	for (int64_t t = 0; p->exclude_outside && sum != 0 && t < n; t++)
		w[t] /= sum;
}

static int taps_build(ox_k *k, const params *p, taps *T, int64_t in, int64_t out, double scale, const double *roi)
{
	memset(T, 0, sizeof *T);
	T->in = in, T->out = out;
	if (p->mode == NEAREST)
		T->ntap = 1;
	else
		tap_start(p, scale, &T->ntap);
	if (in == 0)
		return out ? ox_kfail(k, "cannot resize an empty axis to %lld", (long long)out) : 0;
	if (T->ntap > (int64_t)1 << 20)
		return ox_kfail(k, "scale %g needs too many taps", scale);
	if (!(T->idx = ox_scratch(k, out * T->ntap, sizeof *T->idx, "taps")) ||
	    !(T->w = ox_scratch(k, out * T->ntap, sizeof *T->w, "taps")) ||
	    !(T->extra = ox_scratch(k, out, sizeof *T->extra, "taps")))
		return -1;
	T->identity = in == out;
	for (int64_t o = 0; o < out; o++) {
		taps_one(p, T, o, scale, roi);
		bool id = !T->extra[o];
		for (int64_t t = 0; t < T->ntap; t++)
			id = id && (T->idx[o * T->ntap + t] == o ? T->w[o * T->ntap + t] == 1 : T->w[o * T->ntap + t] == 0);
		T->identity = T->identity && id;
	}
	return 0;
}

static void taps_free(taps *T)
{
	free(T->idx), free(T->w), free(T->extra);
}

/* ---- applying taps ---------------------------------------------------------------- */

/* dst (outer, T->out, inner) from src (outer, T->in, inner) along one axis. */
static void apply_axis(const taps *T, const double *src, double *dst, int64_t outer, int64_t inner, double extra)
{
	for (int64_t a = 0; a < outer; a++)
		for (int64_t o = 0; o < T->out; o++) {
			double *d = dst + (a * T->out + o) * inner;
			if (T->extra[o]) {
				for (int64_t i = 0; i < inner; i++)
					d[i] = extra;
				continue;
			}
			for (int64_t i = 0; i < inner; i++)
				d[i] = 0;
			for (int64_t t = 0; t < T->ntap; t++) {
				double w = T->w[o * T->ntap + t];
				const double *s = src + (a * T->in + T->idx[o * T->ntap + t]) * inner;
				for (int64_t i = 0; w != 0 && i < inner; i++)
					d[i] += w * s[i];
			}
		}
}

/* Linear and cubic: one pass per axis that is not the identity. */
static int interpolate(ox_k *k, const ox_val *x, ox_val *y, const taps *T, double extra)
{
	double *cur = ox_load_f64(k, x, "input");
	int64_t dims[OX_MAX_RANK];
	memcpy(dims, x->dims, sizeof dims);
	for (int d = 0; cur && d < x->rank; d++) {
		if (T[d].identity)
			continue;
		int64_t outer = 1, inner = 1;
		for (int i = 0; i < d; i++)
			outer *= dims[i];
		for (int i = d + 1; i < x->rank; i++)
			inner *= dims[i];
		dims[d] = T[d].out;
		int64_t n = ox_shape_count(x->rank, dims);
		double *next = n < 0 ? NULL : ox_scratch(k, n, sizeof *next, "intermediate");
		if (next)
			apply_axis(&T[d], cur, next, outer, inner, extra);
		else if (n < 0)
			ox_kfail(k, "an intermediate result would have too many elements");
		free(cur);
		cur = next;
	}
	if (cur)
		ox_store_f64(y, cur);
	free(cur);
	return cur ? 0 : -1;
}

/* Nearest: y[o] = x[idx(o)] through every axis at once; any element type. */
static int gather(ox_k *k, const ox_val *x, ox_val *y, const taps *T, double extra)
{
	int64_t xst[OX_MAX_RANK], o[OX_MAX_RANK] = {0};
	size_t es = ox_elem_size(x->type);
	ox_strides(x->rank, x->dims, xst);
	for (int64_t i = 0; i < y->count; i++) {
		int64_t off = 0;
		bool ex = false;
		for (int d = 0; d < x->rank; d++) {
			ex = ex || T[d].extra[o[d]];
			off += T[d].idx[o[d]] * xst[d];
		}
		if (ex)
			ox_set_f64(y, i, extra);
		else if (x->type == OX_STRING) {
			const ox_str *s = &((const ox_str *)x->data)[off];
			if (!ox_str_set(&((ox_str *)y->data)[i], s->p, s->n))
				return ox_kfail(k, "out of memory");
		} else
			memcpy((char *)y->data + (size_t)i * es, (const char *)x->data + (size_t)off * es, es);
		for (int d = x->rank - 1; d >= 0 && ++o[d] == y->dims[d]; d--)
			o[d] = 0;
	}
	return 0;
}

/* ---- sizes and scales -------------------------------------------------------------- */

typedef struct plan {
	int rank;
	int64_t out[OX_MAX_RANK];
	double scale[OX_MAX_RANK];
	double roi[2 * OX_MAX_RANK]; /* start[d], then end[d] at OX_MAX_RANK + d */
} plan;

/* The axes of version 18: ax[i] is the dim of the i-th value of roi, scales and sizes. */
static int read_axes(ox_k *k, int rank, int *ax)
{
	const int64_t *v;
	int64_t n = ox_attr_ints(k, "axes", &v);
	if (n < 0) {
		for (int i = 0; i < rank; i++)
			ax[i] = i;
		return rank;
	}
	if (n > rank)
		return ox_kfail(k, "axes has %lld values for an input of rank %d", (long long)n, rank);
	for (int64_t i = 0; i < n; i++) {
		if ((ax[i] = ox_axis(k, v[i], rank)) < 0)
			return -1;
		for (int64_t j = 0; j < i; j++)
			if (ax[j] == ax[i])
				return ox_kfail(k, "axis %lld is repeated in axes", (long long)v[i]);
	}
	return (int)n;
}

static int read_roi(ox_k *k, const ox_val *roi, const int *ax, int nax, plan *P)
{
	for (int d = 0; d < P->rank; d++)
		P->roi[d] = 0, P->roi[OX_MAX_RANK + d] = 1;
	if (!roi || roi->count == 0)
		return 0;
	if (!ox_elem_is_float(roi->type) || roi->count != 2 * nax)
		return ox_kfail(k, "roi must be a float tensor of %d values (starts, then ends), not %lld %s values",
				2 * nax, (long long)roi->count, ox_elem_label(roi->type));
	for (int i = 0; i < nax; i++) {
		P->roi[ax[i]] = ox_get_f64(roi, i);
		P->roi[OX_MAX_RANK + ax[i]] = ox_get_f64(roi, nax + i);
	}
	return 0;
}

static int from_scales(ox_k *k, const ox_val *x, const ox_val *s, const int *ax, int nax, plan *P)
{
	if (s->type != OX_FLOAT || s->count != nax)
		return ox_kfail(k, "scales must be %d float values, not %lld %s values", nax, (long long)s->count,
				ox_elem_label(s->type));
	for (int i = 0; i < nax; i++) {
		double sc = ((const float *)s->data)[i];
		if (!(sc > 0) || isinf(sc))
			return ox_kfail(k, "scales[%d] is %g; scales must be positive", i, sc);
		double out = floor(sc * (double)x->dims[ax[i]]);
		if (out > (double)OX_MAX_ELEMENTS)
			return ox_kfail(k, "scales[%d] (%g) makes the output too large", i, sc);
		P->scale[ax[i]] = sc;
		P->out[ax[i]] = (int64_t)out;
	}
	return 0;
}

static int from_sizes(ox_k *k, const ox_val *x, const ox_val *s, const int *ax, int nax, plan *P)
{
	if (s->type != OX_INT64 || s->count != nax)
		return ox_kfail(k, "sizes must be %d int64 values, not %lld %s values", nax, (long long)s->count,
				ox_elem_label(s->type));
	static const char *const policies[] = {"stretch", "not_larger", "not_smaller"};
	int policy = pick(k, "keep_aspect_ratio_policy", "stretch", policies, 3);
	if (policy < 0)
		return -1;
	double keep = policy == 1 ? INFINITY : 0;
	for (int i = 0; i < nax; i++) {
		int64_t sz = ((const int64_t *)s->data)[i], in = x->dims[ax[i]];
		if (sz < 0)
			return ox_kfail(k, "sizes[%d] is %lld; sizes must not be negative", i, (long long)sz);
		P->out[ax[i]] = sz;
		P->scale[ax[i]] = in ? (double)sz / (double)in : 1;
		keep = policy == 1 ? fmin(keep, P->scale[ax[i]]) : fmax(keep, P->scale[ax[i]]);
	}
	for (int i = 0; policy && i < nax; i++) {
		double out = keep * (double)x->dims[ax[i]] + 0.5;
		if (out > (double)OX_MAX_ELEMENTS)
			return ox_kfail(k, "keep_aspect_ratio_policy makes dimension %d too large", ax[i]);
		P->scale[ax[i]] = keep;
		P->out[ax[i]] = (int64_t)out;
	}
	return 0;
}

/* Output dims and per-axis scales from scales or sizes (exactly one must be given). */
static int make_plan(ox_k *k, const ox_val *x, const ox_val *roi, const ox_val *sc, const ox_val *sz, plan *P)
{
	int ax[OX_MAX_RANK];
	int nax = read_axes(k, x->rank, ax);
	if (nax < 0)
		return -1;
	P->rank = x->rank;
	for (int d = 0; d < x->rank; d++)
		P->out[d] = x->dims[d], P->scale[d] = 1;
	bool has_sc = sc && sc->count > 0, has_sz = sz && sz->count > 0;
	if (has_sc == has_sz)
		return ox_kfail(k, "exactly one of scales and sizes must be given");
	if (read_roi(k, roi, ax, nax, P) < 0)
		return -1;
	return has_sc ? from_scales(k, x, sc, ax, nax, P) : from_sizes(k, x, sz, ax, nax, P);
}

/* ---- the kernels ------------------------------------------------------------------ */

static int resample(ox_k *k, const ox_val *x, const params *p, const plan *P)
{
	if (p->mode != NEAREST && !ox_elem_is_float(x->type) && !ox_elem_is_int(x->type))
		return ox_kfail(k, "%s interpolation needs a numeric input, not %s",
				p->mode == LINEAR ? "linear" : "cubic", ox_elem_label(x->type));
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, P->out);
	if (!y)
		return -1;
	if (y->count == 0)
		return 0;
	taps T[OX_MAX_RANK];
	int built = 0, rc = 0;
	for (; rc == 0 && built < x->rank; built++)
		rc = taps_build(k, p, &T[built], x->dims[built], P->out[built], P->scale[built],
				(double[2]){P->roi[built], P->roi[OX_MAX_RANK + built]});
	if (rc == 0)
		rc = p->mode == NEAREST ? gather(k, x, y, T, p->extrapolation) : interpolate(k, x, y, T, p->extrapolation);
	for (int d = 0; d < built; d++)
		taps_free(&T[d]);
	return rc;
}

static int resize(ox_k *k, int ver)
{
	params p;
	plan P;
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || read_params(k, ver, &p) < 0)
		return -1;
	ox_val *roi = NULL, *sc, *sz = NULL;
	if (ver == RESIZE_10) {
		sc = ox_in_tensor(k, 1, true);
	} else {
		roi = ox_in_tensor(k, 1, false);
		sc = ox_in_tensor(k, 2, false);
		sz = ox_in_tensor(k, 3, false);
	}
	if ((ver == RESIZE_10 && !sc) || (ox_in(k, 1) && !ox_in_tensor(k, 1, false)) ||
	    (ox_in(k, 2) && !sc) || (ox_in(k, 3) && !sz))
		return -1;
	if (make_plan(k, x, roi, sc, sz, &P) < 0)
		return -1;
	return resample(k, x, &p, &P);
}

OX_KERNEL(ox_op_Resize_10, resize(k, RESIZE_10))
OX_KERNEL(ox_op_Resize_11, resize(k, RESIZE_11))
OX_KERNEL(ox_op_Resize_13, resize(k, RESIZE_13))
OX_KERNEL(ox_op_Resize_19, resize(k, RESIZE_19))

/* Where Upsample's scales come from: version 1 (experimental) has height_scale and
 * width_scale for a 4-D input, 7 the attribute scales, 9 input 1. */
enum { SCALES_HW, SCALES_ATTR, SCALES_INPUT };

static int upsample(ox_k *k, int from)
{
	params p = {0};
	plan P;
	static const char *const modes[] = {"nearest", "linear", "bilinear"};
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || (p.mode = pick(k, "mode", "nearest", modes, 3)) < 0)
		return -1;
	p.mode = p.mode ? LINEAR : NEAREST, p.ctm = ASYMMETRIC, p.nearest = SIMPLE;
	P.rank = x->rank;
	for (int d = 0; d < x->rank; d++)
		P.roi[d] = 0, P.roi[OX_MAX_RANK + d] = 1;
	const float *s;
	int64_t n;
	ox_val *st = NULL;
	float hw[4] = {1, 1, ox_attr_float(k, "height_scale", 0), ox_attr_float(k, "width_scale", 0)};
	if (from == SCALES_HW) {
		if (!ox_attr(k, "height_scale") || !ox_attr(k, "width_scale"))
			return ox_kfail(k, "attributes height_scale and width_scale are required");
		if (x->rank != 4)
			return ox_kfail(k, "input X has rank %d; Upsample-1 takes a 4-D (N, C, H, W) tensor", x->rank);
		n = 4, s = hw;
	} else if (from == SCALES_ATTR) {
		n = ox_attr_floats(k, "scales", &s);
	} else {
		if (!(st = ox_in_tensor(k, 1, true)))
			return -1;
		if (st->type != OX_FLOAT)
			return ox_kfail(k, "scales must be float, not %s", ox_elem_label(st->type));
		n = st->count, s = st->data;
	}
	if (n != x->rank)
		return ox_kfail(k, "scales has %lld values; expected one per input dimension (%d)", (long long)n, x->rank);
	for (int d = 0; d < x->rank; d++) {
		if (!(s[d] >= 1) || isinf(s[d]))
			return ox_kfail(k, "scales[%d] is %g; Upsample scales must be at least 1", d, (double)s[d]);
		double out = floor((double)s[d] * (double)x->dims[d]);
		if (out > (double)OX_MAX_ELEMENTS)
			return ox_kfail(k, "scales[%d] (%g) makes the output too large", d, (double)s[d]);
		P.scale[d] = s[d];
		P.out[d] = (int64_t)out;
	}
	return resample(k, x, &p, &P);
}

OX_KERNEL(ox_op_Upsample_1, upsample(k, SCALES_HW))
OX_KERNEL(ox_op_Upsample_7, upsample(k, SCALES_ATTR))
OX_KERNEL(ox_op_Upsample_9, upsample(k, SCALES_INPUT))
