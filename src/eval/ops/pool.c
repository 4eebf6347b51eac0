/* Pooling: MaxPool, AveragePool, LpPool and their Global forms, MaxRoiPool, RoiAlign and
 * MaxUnpool. float32 windows of one or two spatial dimensions go through the vector
 * kernels of nn.h; everything else is computed in double over N-D windows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "nn.h"
#include "eval/threads.h"

enum { LP = OX_POOL_AVG_PAD + 1 }; /* the other modes are nn.h's OX_POOL_* */

#define ATTR_MAX INT64_C(0x7fffffff) /* RoI pooling output sizes */
#define TAPS_MAX (INT64_C(1) << 40)

/* The geometry of a pooling node: planes of N * C, each pooled over nsp dimensions. */
typedef struct pool {
	int nsp;
	int64_t planes, isz, osz, taps; /* elements per input and output plane, kernel taps */
	int64_t in[OX_MAX_RANK], out[OX_MAX_RANK], k[OX_MAX_RANK], s[OX_MAX_RANK], d[OX_MAX_RANK];
	int64_t pb[OX_MAX_RANK], pe[OX_MAX_RANK]; /* pads at the beginning and the end */
} pool;

static void step(int64_t *pos, const int64_t *dims, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		if (++pos[i] < dims[i])
			return;
		pos[i] = 0;
	}
}

/* Output size and pads of spatial axis i from auto_pad and ceil_mode, by the formulas of
 * the MaxPool spec. */
static int axis_geometry(ox_k *k, pool *g, int i, int autopad, bool ceil_mode)
{
	int64_t in = g->in[i], s = g->s[i], ek = (g->k[i] - 1) * g->d[i] + 1;
	if (autopad == OX_PAD_SAME_UPPER || autopad == OX_PAD_SAME_LOWER) {
		g->out[i] = ox_same_pads(in, s, ek, autopad == OX_PAD_SAME_LOWER, &g->pb[i], &g->pe[i]);
		return 0;
	}
	if (autopad == OX_PAD_VALID)
		g->pb[i] = g->pe[i] = 0;
	bool up = ceil_mode && autopad == OX_PAD_NOTSET;
	g->out[i] = ox_window_out(in, g->pb[i], g->pe[i], ek, s, up);
	if (g->out[i] < 0)
		return ox_kfail(k, "the kernel spans %lld elements along spatial axis %d, more than the %lld of the padded input",
				(long long)ek, i, (long long)(in + g->pb[i] + g->pe[i]));
	return 0;
}

static int64_t product(const int64_t *v, int n)
{
	int64_t p = 1;
	for (int i = 0; i < n; i++)
		p = v[i] && p > INT64_MAX / v[i] ? INT64_MAX : p * v[i];
	return p;
}

/* The geometry of a windowed pooling node from its attributes. */
static int pool_geometry(ox_k *k, const ox_val *x, pool *g)
{
	if (x->rank < 3)
		return ox_kfail(k, "input X must have rank 3 or more (N x C x D1 ...), not %d", x->rank);
	int n = g->nsp = x->rank - 2;
	const int64_t *ks;
	if (ox_attr_ints(k, "kernel_shape", &ks) != n)
		return ox_kfail(k, "attribute 'kernel_shape' is required, with one value per spatial axis (%d)", n);
	int64_t pads[2 * OX_MAX_RANK];
	int ap = ox_auto_pad(k);
	if (ap < 0 || ox_window_ints(k, "kernel_shape", n, 1, 1, g->k) || ox_window_ints(k, "strides", n, 1, 1, g->s) ||
	    ox_window_ints(k, "dilations", n, 1, 1, g->d) || ox_window_ints(k, "pads", 2 * n, 0, 0, pads))
		return -1;
	g->taps = product(g->k, n);
	if (g->taps > TAPS_MAX)
		return ox_kfail(k, "the kernel has %lld taps, more than the 2^40 allowed", (long long)g->taps);
	bool ceil_mode = ox_attr_int(k, "ceil_mode", 0) != 0;
	for (int i = 0; i < n; i++) {
		g->in[i] = x->dims[i + 2];
		g->pb[i] = pads[i];
		g->pe[i] = pads[i + n];
		if (axis_geometry(k, g, i, ap, ceil_mode))
			return -1;
	}
	g->planes = product(x->dims, 2); /* saturates: an empty X may have huge N and C */
	g->isz = product(g->in, n);
	g->osz = product(g->out, n);
	return 0;
}

static ox_val *pool_output(ox_k *k, int i, const ox_val *x, const pool *g, int type)
{
	int64_t dims[OX_MAX_RANK] = {x->dims[0], x->dims[1]};
	memcpy(dims + 2, g->out, (size_t)g->nsp * sizeof *dims);
	return ox_out_tensor(k, i, type, x->rank, dims);
}

/* ---- the generic N-D window, in double --------------------------------------------- */

/* One output at opos of a plane xp: MAX (its plane offset in *arg), AVG, AVG_PAD or LP. */
static double pool_window(const pool *g, const double *xp, const int64_t *opos, int mode, double p, int64_t *arg)
{
	int64_t kpos[OX_MAX_RANK] = {0}, pos[OX_MAX_RANK], n = 0, npad = 0;
	double acc = 0;
	for (int64_t t = 0; t < g->taps; t++, step(kpos, g->k, g->nsp)) {
		bool in = true, pad = true;
		for (int i = 0; i < g->nsp; i++) {
			pos[i] = opos[i] * g->s[i] - g->pb[i] + kpos[i] * g->d[i];
			in = in && pos[i] >= 0 && pos[i] < g->in[i];
			pad = pad && pos[i] >= -g->pb[i] && pos[i] < g->in[i] + g->pe[i];
		}
		npad += pad;
		if (!in)
			continue;
		int64_t off = 0;
		for (int i = 0; i < g->nsp; i++)
			off = off * g->in[i] + pos[i];
		double v = xp[off];
		if (mode == OX_POOL_MAX && (n == 0 || v > acc)) {
			acc = v;
			*arg = off;
		} else if (mode == LP) {
			acc += p == 2 ? v * v : pow(fabs(v), p);
		} else if (mode != OX_POOL_MAX) {
			acc += v;
		}
		n++;
	}
	switch (mode) {
	case OX_POOL_MAX: return n ? acc : -INFINITY;
	case LP: return p == 2 ? sqrt(acc) : pow(acc, 1 / p);
	case OX_POOL_AVG: return acc / (double)n;
	default: return acc / (double)npad;
	}
}

/* A row-major offset in a plane as the column-major one (storage_order 1). */
static int64_t col_major(const pool *g, int64_t off)
{
	int64_t r = 0;
	for (int i = g->nsp - 1; i >= 0; i--) {
		int64_t pos = off % g->in[i];
		off /= g->in[i];
		r = r * g->in[i] + pos;
	}
	return r;
}

static int pool_generic(ox_k *k, const ox_val *x, const pool *g, ox_val *y, ox_val *ind, int mode, double p,
			bool colmajor)
{
	if (!y->count)
		return 0;
	double *xd = ox_load_f64(k, x, "input"), *yd = xd ? ox_scratch(k, y->count, sizeof(double), "scratch") : NULL;
	if (!yd) {
		free(xd);
		return -1;
	}
	int64_t *id = ind ? ind->data : NULL, o = 0;
	for (int64_t plane = 0; plane < g->planes; plane++) {
		int64_t opos[OX_MAX_RANK] = {0};
		for (int64_t j = 0; j < g->osz; j++, o++, step(opos, g->out, g->nsp)) {
			int64_t arg = -1;
			yd[o] = pool_window(g, xd + plane * g->isz, opos, mode, p, &arg);
			if (id)
				id[o] = arg < 0 ? -1 : plane * g->isz + (colmajor ? col_major(g, arg) : arg);
		}
	}
	ox_store_f64(y, yd);
	free(xd);
	free(yd);
	return 0;
}

typedef struct plane_job {
	const ox_pool2d *p;
	const ox_nn_vec *v;
	const float *x;
	float *y;
	int64_t isz, osz, planes, per;
} plane_job;

static void planes_task(void *ctx, int64_t t)
{
	const plane_job *J = ctx;
	int64_t plane = t * J->per, n = J->planes - plane < J->per ? J->planes - plane : J->per;
	J->v->pool2d(J->p, J->x + plane * J->isz, J->y + plane * J->osz, n);
}

/* float32 with one or two spatial axes: planes through the vector kernel (1-D as 1 x W),
 * spread over the session's threads. */
static bool pool_fast(const pool *g, const ox_val *x, ox_val *y, int mode)
{
	if (x->type != OX_FLOAT || g->nsp > 2 || !x->count) /* an empty X has no data to point into */
		return false;
	int a = g->nsp - 1; /* the row axis when 2-D */
	ox_pool2d p = {
		g->nsp == 2 ? g->in[0] : 1, g->in[a], g->nsp == 2 ? g->out[0] : 1, g->out[a],
		g->nsp == 2 ? g->k[0] : 1, g->k[a], g->nsp == 2 ? g->s[0] : 1, g->s[a],
		g->nsp == 2 ? g->d[0] : 1, g->d[a], g->nsp == 2 ? g->pb[0] : 0, g->pb[a],
		g->nsp == 2 ? g->pe[0] : 0, g->pe[a], mode,
	};
	plane_job J = {&p, ox_nn_vec_get(), x->data, y->data, g->isz, g->osz, g->planes, 1};
	/* planes are independent: a task per group of them, about 64k window taps each (a
	 * 3x3 pool on 7x7 planes is as much work as a 1x1 one on 21x21), in whole sixteens:
	 * AVX-512 pools small planes 16 at a time, the rest a row at a time, 4 times slower
	 * there (3x3 AveragePool of 576x14x14, 2 threads: groups of 38 planes, 0.023 ms; of 48,
	 * 0.016 ms) */
	int64_t per = g->osz ? (INT64_C(1) << 16) / (g->osz * (g->taps > 0 ? g->taps : 1)) + 1 : g->planes;
	J.per = ox_threads() > 1 ? (per + 15) / 16 * 16 : g->planes;
	ox_parallel_for((g->planes + J.per - 1) / J.per, planes_task, &J);
	return true;
}

/* ---- windowed pooling -------------------------------------------------------------- */

int ox_op_MaxPool(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	pool g;
	if (!x || pool_geometry(k, x, &g))
		return -1;
	if (!ox_elem_is_float(x->type) && x->type != OX_INT8 && x->type != OX_UINT8)
		return ox_kfail(k, "input X must be a float type, int8 or uint8, not %s", ox_elem_label(x->type));
	int64_t order = ox_attr_int(k, "storage_order", 0);
	if (order != 0 && order != 1)
		return ox_kfail(k, "storage_order must be 0 (row major) or 1 (column major), not %lld", (long long)order);
	ox_val *y = pool_output(k, 0, x, &g, x->type), *ind = NULL;
	if (!y || (ox_out_wanted(k, 1) && !(ind = pool_output(k, 1, x, &g, OX_INT64))))
		return -1;
	if (!ind && pool_fast(&g, x, y, OX_POOL_MAX))
		return 0;
	return pool_generic(k, x, &g, y, ind, OX_POOL_MAX, 0, order == 1);
}

int ox_op_AveragePool(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	pool g;
	if (!x || ox_need_real(k, x, "input X") || pool_geometry(k, x, &g))
		return -1;
	int mode = ox_attr_int(k, "count_include_pad", 0) ? OX_POOL_AVG_PAD : OX_POOL_AVG;
	ox_val *y = pool_output(k, 0, x, &g, x->type);
	if (!y)
		return -1;
	return pool_fast(&g, x, y, mode) ? 0 : pool_generic(k, x, &g, y, NULL, mode, 0, false);
}

/* p of LpPool and GlobalLpPool: a float before opset 2, an int since. */
static int lp_order(ox_k *k, double *p)
{
	const Onnx__AttributeProto *a = ox_attr(k, "p");
	*p = !a ? 2 : a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT ? a->f : (double)a->i;
	if (!(*p > 0) || isinf(*p))
		return ox_kfail(k, "p must be positive and finite, not %g", *p);
	return 0;
}

int ox_op_LpPool(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y;
	pool g;
	double p;
	if (!x || ox_need_real(k, x, "input X") || lp_order(k, &p) || pool_geometry(k, x, &g) ||
	    !(y = pool_output(k, 0, x, &g, x->type)))
		return -1;
	return pool_generic(k, x, &g, y, NULL, LP, p, false);
}

/* ---- global pooling -------------------------------------------------------------------- */

/* One plane of n values in double. */
static double global_plane(const double *q, int64_t n, int mode, double p)
{
	double acc = mode == OX_POOL_MAX ? -INFINITY : 0;
	for (int64_t j = 0; j < n; j++) {
		if (mode == LP)
			acc += pow(fabs(q[j]), p);
		else if (mode != OX_POOL_MAX)
			acc += q[j];
		else if (isnan(q[j]) || q[j] > acc) /* a NaN, once there, stays */
			acc = q[j];
	}
	return mode == LP ? pow(acc, 1 / p) : mode == OX_POOL_MAX ? acc : acc / (double)n;
}

static int global_pool(ox_k *k, int mode, double p)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || ox_need_real(k, x, "input X"))
		return -1;
	if (x->rank < 2)
		return ox_kfail(k, "input X must have rank 2 or more (N x C x D1 ...), not %d", x->rank);
	int64_t dims[OX_MAX_RANK];
	for (int i = 0; i < x->rank; i++)
		dims[i] = i < 2 ? x->dims[i] : 1;
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, dims);
	if (!y)
		return -1;
	int64_t planes = y->count, n = planes ? x->count / planes : 0;
	if (x->type == OX_FLOAT && mode != LP && x->count) {
		const ox_nn_vec *v = ox_nn_vec_get();
		const float *xf = x->data;
		float *yf = y->data;
		for (int64_t i = 0; i < planes; i++)
			yf[i] = mode == OX_POOL_MAX ? v->max(xf + i * n, n) : v->sum(xf + i * n, n) / (float)n;
		return 0;
	}
	double *xd = ox_load_f64(k, x, "input"), *yd = xd ? ox_scratch(k, planes, sizeof(double), "scratch") : NULL;
	for (int64_t i = 0; yd && i < planes; i++)
		yd[i] = global_plane(xd + i * n, n, mode, p);
	if (yd)
		ox_store_f64(y, yd);
	free(xd);
	free(yd);
	return yd ? 0 : -1;
}

OX_KERNEL(ox_op_GlobalAveragePool, global_pool(k, OX_POOL_AVG, 0))
OX_KERNEL(ox_op_GlobalMaxPool, global_pool(k, OX_POOL_MAX, 0))

int ox_op_GlobalLpPool(ox_k *k)
{
	double p;
	return lp_order(k, &p) ? -1 : global_pool(k, LP, p);
}

/* ---- regions of interest ------------------------------------------------------------- */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* v rounded half away from zero (C's round, as MaxRoiPool's Caffe origin), kept far
 * beyond any dimension so that what follows cannot overflow. */
static int64_t roi_round(double v)
{
	return isnan(v) ? 0 : (int64_t)fmax(-(double)TAPS_MAX, fmin((double)TAPS_MAX, round(v)));
}

/* Bin i of n over [start, start + len) of an axis of dim elements, as [*a, *b). Computed
 * in float unless dbl, like the reference, so that bins split at the same elements. */
static void roi_bin(int64_t i, int64_t n, int64_t start, int64_t len, int64_t dim, bool dbl, int64_t *a,
		    int64_t *b)
{
	double lo, hi;
	if (dbl) {
		double bin = (double)len / (double)n;
		lo = floor((double)i * bin);
		hi = ceil((double)(i + 1) * bin);
	} else {
		float bin = (float)len / (float)n;
		lo = floorf((float)i * bin);
		hi = ceilf((float)(i + 1) * bin);
	}
	*a = clamp64((int64_t)lo + start, 0, dim);
	*b = clamp64((int64_t)hi + start, 0, dim);
}

/* The max of one bin [ha, hb) x [wa, wb) of a plane of width w; 0 when empty. */
static double roi_bin_max(const double *plane, int64_t w, int64_t ha, int64_t hb, int64_t wa, int64_t wb)
{
	if (hb <= ha || wb <= wa)
		return 0;
	double m = plane[ha * w + wa];
	for (int64_t i = ha; i < hb && !isnan(m); i++)
		for (int64_t j = wa; j < wb; j++)
			if (isnan(plane[i * w + j]) || plane[i * w + j] > m)
				m = plane[i * w + j];
	return m;
}

/* Stores the RoI pooling output computed in yd when rc is 0, and frees the buffers. */
static int roi_finish(ox_val *y, int rc, double *xd, double *rd, double *yd)
{
	if (rc == 0)
		ox_store_f64(y, yd);
	free(xd);
	free(rd);
	free(yd);
	return rc;
}

/* One region (batch index, x1, y1, x2, y2) of MaxRoiPool into y (C x ph x pw). */
static int max_roi(ox_k *k, const ox_val *x, const double *xd, const double *roi, float scale, const int64_t *ps,
		   double *y)
{
	int64_t C = x->dims[1], H = x->dims[2], W = x->dims[3];
	if (!(roi[0] >= 0 && roi[0] < (double)x->dims[0]))
		return ox_kfail(k, "region batch index %g is out of range for a batch of %lld", roi[0],
				(long long)x->dims[0]);
	bool dbl = x->type == OX_DOUBLE;
	int64_t c[4];
	for (int i = 0; i < 4; i++)
		c[i] = roi_round(dbl ? roi[i + 1] * scale : (double)((float)roi[i + 1] * scale));
	int64_t rw = c[2] - c[0] + 1 > 1 ? c[2] - c[0] + 1 : 1, rh = c[3] - c[1] + 1 > 1 ? c[3] - c[1] + 1 : 1;
	const double *x0 = xd + (int64_t)roi[0] * C * H * W;
	for (int64_t ph = 0; ph < ps[0]; ph++) {
		int64_t ha, hb, wa, wb;
		roi_bin(ph, ps[0], c[1], rh, H, dbl, &ha, &hb);
		for (int64_t pw = 0; pw < ps[1]; pw++) {
			roi_bin(pw, ps[1], c[0], rw, W, dbl, &wa, &wb);
			for (int64_t ch = 0; ch < C; ch++)
				y[(ch * ps[0] + ph) * ps[1] + pw] = roi_bin_max(x0 + ch * H * W, W, ha, hb, wa, wb);
		}
	}
	return 0;
}

int ox_op_MaxRoiPool(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *rois = ox_in_tensor(k, 1, true);
	if (!x || !rois || ox_need_real(k, x, "input X") || ox_need_real(k, rois, "input rois"))
		return -1;
	if (x->rank != 4)
		return ox_kfail(k, "input X must have rank 4 (N x C x H x W), not %d", x->rank);
	if (rois->rank != 2 || rois->dims[1] != 5)
		return ox_kfail(k, "input rois must have shape (num_rois, 5)");
	const int64_t *ps;
	if (ox_attr_ints(k, "pooled_shape", &ps) != 2 || ps[0] < 1 || ps[1] < 1 || ps[0] > ATTR_MAX || ps[1] > ATTR_MAX)
		return ox_kfail(k, "attribute 'pooled_shape' must be two positive values (height, width)");
	int64_t dims[4] = {rois->dims[0], x->dims[1], ps[0], ps[1]};
	ox_val *y = ox_out_tensor(k, 0, x->type, 4, dims);
	double *xd = y ? ox_load_f64(k, x, "input") : NULL, *rd = xd ? ox_load_f64(k, rois, "input") : NULL;
	double *yd = rd ? ox_scratch(k, y->count, sizeof(double), "scratch") : NULL;
	int rc = yd ? 0 : -1;
	float scale = ox_attr_float(k, "spatial_scale", 1.0f);
	int64_t per = y ? y->count / (dims[0] ? dims[0] : 1) : 0;
	for (int64_t r = 0; rc == 0 && r < dims[0]; r++)
		rc = max_roi(k, x, xd, rd + r * 5, scale, ps, yd + r * per);
	return roi_finish(y, rc, xd, rd, yd);
}

/* RoiAlign: a bilinear sample as four weighted plane offsets, zero outside the map. */
typedef struct roi_tap {
	int64_t pos[4];
	double w[4];
	bool inside;
} roi_tap;

typedef struct roi_align {
	int64_t C, H, W, oh, ow, ratio;
	double scale;
	bool half, max;
} roi_align;

static void roi_sample(double y, double x, int64_t H, int64_t W, roi_tap *t)
{
	memset(t, 0, sizeof *t);
	if (y < -1.0 || y > (double)H || x < -1.0 || x > (double)W || H == 0 || W == 0)
		return;
	y = y < 0 ? 0 : y;
	x = x < 0 ? 0 : x;
	int64_t yl = (int64_t)y, xl = (int64_t)x, yh = yl + 1, xh = xl + 1;
	if (yl >= H - 1) {
		yl = yh = H - 1;
		y = (double)yl;
	}
	if (xl >= W - 1) {
		xl = xh = W - 1;
		x = (double)xl;
	}
	double ly = y - (double)yl, lx = x - (double)xl, hy = 1 - ly, hx = 1 - lx;
	*t = (roi_tap){{yl * W + xl, yl * W + xh, yh * W + xl, yh * W + xh}, {hy * hx, hy * lx, ly * hx, ly * lx}, true};
}

/* Samples per bin along an axis: sampling_ratio, or ceil(extent / bins) when it is 0. */
static int64_t roi_grid(ox_k *k, const roi_align *a, double extent, int64_t bins)
{
	if (a->ratio > 0)
		return a->ratio;
	double g = ceil(extent / (double)bins);
	if (g > 65536)
		return ox_kfail(k, "a region of extent %g would take %g samples per bin; at most 65536 are allowed", extent, g);
	return g > 0 ? (int64_t)g : 0;
}

static double roi_value(const roi_align *a, const double *plane, const roi_tap *t, int64_t n)
{
	double acc = 0;
	for (int64_t i = 0; i < n; i++) {
		double v[4] = {0, 0, 0, 0};
		for (int j = 0; j < 4 && t[i].inside; j++)
			v[j] = t[i].w[j] * plane[t[i].pos[j]];
		/* max mode takes the largest weighted corner, as the reference implementation does */
		double s = a->max ? fmax(fmax(v[0], v[1]), fmax(v[2], v[3])) : v[0] + v[1] + v[2] + v[3];
		acc = !a->max ? acc + s : i == 0 || s > acc ? s : acc;
	}
	return a->max ? acc : acc / (double)(n > 1 ? n : 1);
}

/* One region (x1, y1, x2, y2) over the planes x0 of its batch item into y (C x oh x ow). */
static int roi_align_one(ox_k *k, const roi_align *a, const double *x0, const double *roi, double *y)
{
	double off = a->half ? 0.5 : 0, sw = roi[0] * a->scale - off, sh = roi[1] * a->scale - off;
	double rw = roi[2] * a->scale - off - sw, rh = roi[3] * a->scale - off - sh;
	if (!a->half) { /* malformed regions become 1 x 1 */
		rw = fmax(rw, 1);
		rh = fmax(rh, 1);
	}
	int64_t gh = roi_grid(k, a, rh, a->oh), gw = gh < 0 ? -1 : roi_grid(k, a, rw, a->ow);
	if (gw < 0)
		return -1;
	int64_t n = gh * gw, bins = a->oh * a->ow; /* bins <= the output's count */
	if (n && bins > (INT64_MAX / (int64_t)sizeof(roi_tap)) / n)
		return ox_kfail(k, "a region takes too many samples");
	int64_t total = bins * n;
	roi_tap *t = malloc((size_t)(total > 0 ? total : 1) * sizeof *t);
	if (!t)
		return ox_kfail(k, "out of memory for %lld samples", (long long)total);
	double bh = rh / (double)a->oh, bw = rw / (double)a->ow;
	for (int64_t b = 0, i = 0; b < bins; b++)
		for (int64_t iy = 0; iy < gh; iy++)
			for (int64_t ix = 0; ix < gw; ix++, i++)
				roi_sample(sh + (double)(b / a->ow) * bh + ((double)iy + 0.5) * bh / (double)gh,
					   sw + (double)(b % a->ow) * bw + ((double)ix + 0.5) * bw / (double)gw, a->H, a->W,
					   &t[i]);
	for (int64_t c = 0; c < a->C; c++)
		for (int64_t b = 0; b < bins; b++)
			y[c * bins + b] = roi_value(a, x0 + c * a->H * a->W, t + b * n, n);
	free(t);
	return 0;
}

/* coordinate_transformation_mode comes at version 16 (ctm); version 10 samples as
 * output_half_pixel does. */
static int roi_align_attrs(ox_k *k, bool ctm, const ox_val *x, roi_align *a)
{
	a->C = x->dims[1];
	a->H = x->dims[2];
	a->W = x->dims[3];
	a->oh = ox_attr_int(k, "output_height", 1);
	a->ow = ox_attr_int(k, "output_width", 1);
	a->ratio = ox_attr_int(k, "sampling_ratio", 0);
	a->scale = ox_attr_float(k, "spatial_scale", 1.0f);
	a->max = ox_attr_str_is(k, "mode", "avg", "max");
	a->half = ctm && ox_attr_str_is(k, "coordinate_transformation_mode", "half_pixel", "half_pixel");
	if (!a->max && !ox_attr_str_is(k, "mode", "avg", "avg"))
		return ox_kfail(k, "mode must be 'avg' or 'max'");
	if (ctm && !a->half &&
	    !ox_attr_str_is(k, "coordinate_transformation_mode", "half_pixel", "output_half_pixel"))
		return ox_kfail(k, "coordinate_transformation_mode must be 'half_pixel' or 'output_half_pixel'");
	if (a->oh < 1 || a->ow < 1 || a->oh > ATTR_MAX || a->ow > ATTR_MAX)
		return ox_kfail(k, "output_height and output_width must be positive");
	if (a->ratio < 0 || a->ratio > 65536)
		return ox_kfail(k, "sampling_ratio must be in [0, 65536], not %lld", (long long)a->ratio);
	return 0;
}

static int roi_align_run(ox_k *k, bool ctm)
{
	ox_val *x = ox_in_tensor(k, 0, true), *rois = ox_in_tensor(k, 1, true), *bi = ox_in_tensor(k, 2, true);
	if (!x || !rois || !bi || ox_need_real(k, x, "input X") || ox_need_real(k, rois, "input rois"))
		return -1;
	if (x->rank != 4)
		return ox_kfail(k, "input X must have rank 4 (N x C x H x W), not %d", x->rank);
	if (rois->rank != 2 || rois->dims[1] != 4)
		return ox_kfail(k, "input rois must have shape (num_rois, 4)");
	if ((bi->type != OX_INT64 && bi->type != OX_INT32) || bi->rank != 1 || bi->dims[0] != rois->dims[0])
		return ox_kfail(k, "input batch_indices must be int64 of shape (num_rois)");
	roi_align a;
	if (roi_align_attrs(k, ctm, x, &a))
		return -1;
	int64_t dims[4] = {rois->dims[0], a.C, a.oh, a.ow};
	ox_val *y = ox_out_tensor(k, 0, x->type, 4, dims);
	double *xd = y ? ox_load_f64(k, x, "input") : NULL, *rd = xd ? ox_load_f64(k, rois, "input") : NULL;
	double *yd = rd ? ox_scratch(k, y->count, sizeof(double), "scratch") : NULL;
	int rc = yd ? 0 : -1;
	for (int64_t r = 0; rc == 0 && r < dims[0]; r++) {
		int64_t b = ox_get_i64(bi, r);
		if (b < 0 || b >= x->dims[0])
			rc = ox_kfail(k, "batch index %lld of region %lld is out of range for a batch of %lld", (long long)b,
				      (long long)r, (long long)x->dims[0]);
		else
			rc = roi_align_one(k, &a, xd + b * a.C * a.H * a.W, rd + r * 4, yd + r * a.C * a.oh * a.ow);
	}
	return roi_finish(y, rc, xd, rd, yd);
}

OX_KERNEL(ox_op_RoiAlign_10, roi_align_run(k, false))
OX_KERNEL(ox_op_RoiAlign_16, roi_align_run(k, true))

/* ---- MaxUnpool ----------------------------------------------------------------------- */

/* The output shape: the output_shape input, or by default each spatial axis as
 * (in - 1) * stride + kernel - pads. */
static int unpool_shape(ox_k *k, const ox_val *x, int64_t *dims)
{
	int n = x->rank - 2;
	int64_t ks[OX_MAX_RANK], st[OX_MAX_RANK], pads[2 * OX_MAX_RANK];
	const int64_t *a;
	if (ox_attr_ints(k, "kernel_shape", &a) < 0)
		return ox_kfail(k, "attribute 'kernel_shape' is required");
	if (ox_window_ints(k, "kernel_shape", n, 1, 1, ks) || ox_window_ints(k, "strides", n, 1, 1, st) ||
	    ox_window_ints(k, "pads", 2 * n, 0, 0, pads))
		return -1;
	if (ox_in(k, 2)) {
		int64_t m = ox_in_ints(k, 2, dims, OX_MAX_RANK, "input output_shape");
		if (m >= 0 && m != x->rank)
			return ox_kfail(k, "input output_shape has %lld values; %d expected", (long long)m, x->rank);
		return m < 0 ? -1 : 0;
	}
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	for (int i = 0; i < n; i++) {
		dims[i + 2] = (x->dims[i + 2] - 1) * st[i] + ks[i] - pads[i] - pads[i + n];
		if (dims[i + 2] < 0)
			return ox_kfail(k, "the pads make spatial axis %d of the output negative", i);
	}
	return 0;
}

int ox_op_MaxUnpool(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *ind = ox_in_tensor(k, 1, true);
	if (!x || !ind || ox_need_real(k, x, "input X"))
		return -1;
	if (x->rank < 3)
		return ox_kfail(k, "input X must have rank 3 or more (N x C x D1 ...), not %d", x->rank);
	if (ind->type != OX_INT64 || ind->count != x->count)
		return ox_kfail(k, "input I must be int64 with as many elements as X");
	int64_t dims[OX_MAX_RANK];
	ox_val *y = unpool_shape(k, x, dims) ? NULL : ox_out_tensor(k, 0, x->type, x->rank, dims);
	if (!y)
		return -1;
	size_t es = ox_elem_size(x->type);
	if (y->count)
		memset(y->data, 0, (size_t)y->count * es);
	const int64_t *id = ind->data;
	for (int64_t i = 0; i < x->count; i++) {
		if (id[i] < 0 || id[i] >= y->count)
			return ox_kfail(k, "index %lld (element %lld of I) is out of range for an output of %lld elements",
					(long long)id[i], (long long)i, (long long)y->count);
		memcpy((char *)y->data + (size_t)id[i] * es, (const char *)x->data + (size_t)i * es, es);
	}
	return 0;
}
