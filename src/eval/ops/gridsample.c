/* GridSample (opset 16: 2-D, modes bilinear/nearest/bicubic; opset 20: N-D, modes
 * linear/nearest/cubic) and AffineGrid. Sampling follows the ONNX reference
 * (onnx/reference/ops/op_grid_sample.py, itself after PyTorch's grid_sampler): grid values
 * in [-1, 1] are denormalized per align_corners, out-of-range coordinates are clamped or
 * reflected per padding_mode, and taps outside the input read 0, the border or a
 * reflection. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval/kernel.h"
#include "eval/move.h"


enum { G_LINEAR, G_NEAREST, G_CUBIC };
enum { P_ZEROS, P_BORDER, P_REFLECTION };

#define MAXTAPS 4096 /* tap combinations of one output point */

typedef struct gs {
	int mode, pad, nsp;
	bool align;
	int64_t in[OX_MAX_RANK];
	double lo[OX_MAX_RANK], hi[OX_MAX_RANK]; /* the borders reflection uses */
	int64_t ntap;                            /* taps per dim: 1, 2 or 4 */
} gs;

static double reflect(double x, double lo, double hi)
{
	double range = hi - lo;
	if (range <= 0)
		return lo;
	if (x < lo) {
		double dx = lo - x, n = floor(dx / range), r = dx - n * range;
		return fmod(n, 2) == 0 ? lo + r : hi - r;
	}
	if (x > hi) {
		double dx = x - hi, n = floor(dx / range), r = dx - n * range;
		return fmod(n, 2) == 0 ? hi - r : lo + r;
	}
	return x;
}

/* The input index a tap at i reads along dim d, or -1 for a zero. */
static int64_t tap_index(const gs *G, int d, int64_t i)
{
	if (i >= 0 && i < G->in[d])
		return i;
	if (G->pad == P_ZEROS)
		return -1;
	if (G->pad == P_BORDER)
		return i < 0 ? 0 : G->in[d] - 1;
	int64_t r = (int64_t)reflect((double)i, G->lo[d], G->hi[d]);
	return r < 0 ? 0 : r >= G->in[d] ? G->in[d] - 1 : r;
}

static void cubic_coeffs(double t, double *c)
{
	const double a = -0.75;
	double x = t + 1;
	c[0] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
	c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
	x = 1 - t;
	c[2] = ((a + 2) * x - (a + 3)) * x * x + 1;
	x = 2 - t;
	c[3] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

/* The input coordinate of normalized grid value v along dim d, rounded for nearest and
 * brought into range per padding_mode. */
static double coord(const gs *G, int d, double v)
{
	double len = (double)G->in[d];
	double x = G->align ? (v + 1) / 2 * (len - 1) : ((v + 1) * len - 1) / 2;
	if (G->mode == G_NEAREST)
		x = G->nsp == 3 ? round(x) : nearbyint(x);
	if (x < G->lo[d] || x > G->hi[d]) {
		if (G->pad == P_BORDER)
			x = x < 0 ? 0 : x > len - 1 ? len - 1 : x;
		else if (G->pad == P_REFLECTION)
			x = reflect(x, G->lo[d], G->hi[d]);
	}
	return x;
}

/* Taps of one dim: indices (or -1) and weights. */
static void dim_taps(const gs *G, int d, double x, int64_t *idx, double *w)
{
	if (!(fabs(x) < 1e15)) { /* NaN or far outside: no tap reads anything */
		for (int64_t i = 0; i < G->ntap; i++)
			idx[i] = -1, w[i] = 0;
		return;
	}
	if (G->mode == G_NEAREST) {
		idx[0] = tap_index(G, d, (int64_t)x), w[0] = 1;
		return;
	}
	double f = floor(x), t = x - f;
	int64_t base = (int64_t)f - (G->mode == G_CUBIC);
	if (G->mode == G_LINEAR)
		w[0] = 1 - t, w[1] = t;
	else
		cubic_coeffs(t, w);
	for (int64_t i = 0; i < G->ntap; i++)
		idx[i] = tap_index(G, d, base + i);
}

/* Every combination of the dims' taps as (input offset, weight), zero taps left out. */
static int64_t combine(const gs *G, const int64_t *idx, const double *w, const int64_t *st, int64_t *off,
		       double *wt)
{
	int64_t n = 0, total = 1, c[OX_MAX_RANK] = {0};
	for (int d = 0; d < G->nsp; d++)
		total *= G->ntap;
	for (int64_t k = 0; k < total; k++) {
		int64_t o = 0;
		double wk = 1;
		for (int d = 0; d < G->nsp && wk != 0; d++) {
			int64_t i = idx[d * G->ntap + c[d]];
			wk = i < 0 ? 0 : wk * w[d * G->ntap + c[d]];
			o += i * st[d];
		}
		if (wk != 0)
			off[n] = o, wt[n++] = wk;
		for (int d = G->nsp - 1; d >= 0 && ++c[d] == G->ntap; d--)
			c[d] = 0;
	}
	return n;
}

/* The modes are called bilinear and bicubic at version 16, linear and cubic from 20 (v20). */
static int gs_params(ox_k *k, bool v20, const ox_val *x, const ox_val *grid, gs *G)
{
	memset(G, 0, sizeof *G);
	const char *def = v20 ? "linear" : "bilinear";
	if (ox_attr_str_is(k, "mode", def, "nearest"))
		G->mode = G_NEAREST, G->ntap = 1;
	else if (ox_attr_str_is(k, "mode", def, v20 ? "cubic" : "bicubic"))
		G->mode = G_CUBIC, G->ntap = 4;
	else if (ox_attr_str_is(k, "mode", def, v20 ? "linear" : "bilinear"))
		G->mode = G_LINEAR, G->ntap = 2;
	else
		return ox_kfail(k, "mode must be %s", v20 ? "linear, nearest or cubic" : "bilinear, nearest or bicubic");
	if (ox_attr_str_is(k, "padding_mode", "zeros", "border"))
		G->pad = P_BORDER;
	else if (ox_attr_str_is(k, "padding_mode", "zeros", "reflection"))
		G->pad = P_REFLECTION;
	else if (!ox_attr_str_is(k, "padding_mode", "zeros", "zeros"))
		return ox_kfail(k, "padding_mode must be zeros, border or reflection");
	G->align = ox_attr_int(k, "align_corners", 0) != 0;
	G->nsp = x->rank - 2;
	if (x->rank < 3 || (!v20 && x->rank != 4))
		return ox_kfail(k, "X must have rank %s, not %d", v20 ? "3 or more" : "4", x->rank);
	if (grid->rank != x->rank || grid->dims[0] != x->dims[0] || grid->dims[grid->rank - 1] != G->nsp)
		return ox_kfail(k, "grid must have shape [N, spatial dims of the output..., %d] with X's N", G->nsp);
	int64_t total = 1;
	for (int d = 0; d < G->nsp; d++) {
		G->in[d] = x->dims[2 + d];
		if (G->in[d] == 0 && grid->count > 0 && x->dims[1] > 0)
			return ox_kfail(k, "X's spatial dimension %d is empty: there is nothing to sample", d);
		G->lo[d] = G->align ? 0 : -0.5;
		G->hi[d] = G->align ? (double)G->in[d] - 1 : (double)G->in[d] - 0.5;
		total *= G->ntap;
		if (total > MAXTAPS)
			return ox_kfail(k, "%d spatial dims are too many for this mode", G->nsp);
	}
	return 0;
}

typedef struct gsbuf {
	double *x, *grid, *y, *wt;
	int64_t *off;
} gsbuf;

/* Output point p of image n: its taps, applied to every channel. */
static void sample_point(const gs *G, const ox_val *x, gsbuf *B, int64_t n, int64_t p, int64_t npts,
			 const int64_t *st)
{
	int64_t idx[OX_MAX_RANK * 4], chan = 1, C = x->dims[1];
	double w[OX_MAX_RANK * 4];
	for (int d = 0; d < G->nsp; d++)
		chan *= G->in[d];
	const double *g = B->grid + (n * npts + p) * G->nsp;
	for (int d = 0; d < G->nsp; d++) /* the grid lists coordinates innermost dim first */
		dim_taps(G, d, coord(G, d, g[G->nsp - 1 - d]), idx + d * G->ntap, w + d * G->ntap);
	int64_t nt = combine(G, idx, w, st, B->off, B->wt);
	for (int64_t c = 0; c < C; c++) {
		const double *src = B->x + (n * C + c) * chan;
		double s = 0;
		for (int64_t t = 0; t < nt; t++)
			s += B->wt[t] * src[B->off[t]];
		B->y[(n * C + c) * npts + p] = s;
	}
}

static int grid_sample(ox_k *k, bool v20)
{
	ox_val *x = ox_in_tensor(k, 0, true), *grid = ox_in_tensor(k, 1, true);
	gs G;
	static const int gt[] = {OX_FLOAT, OX_FLOAT16, OX_DOUBLE, OX_BFLOAT16, 0};
	if (!x || !grid || ox_check_type(k, grid, "grid", gt) < 0 || gs_params(k, v20, x, grid, &G) < 0)
		return -1;
	if (!ox_elem_is_float(x->type) && !ox_elem_is_int(x->type))
		return ox_kfail(k, "X must be numeric, not %s", ox_elem_label(x->type));
	int64_t dims[OX_MAX_RANK], st[OX_MAX_RANK], npts = 1;
	dims[0] = x->dims[0], dims[1] = x->dims[1];
	for (int d = 0; d < G.nsp; d++) {
		dims[2 + d] = grid->dims[1 + d];
		npts *= grid->dims[1 + d];
	}
	ox_strides(G.nsp, G.in, st);
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, dims);
	gsbuf B = {0};
	int rc = -1;
	if (y && (B.x = ox_load_f64(k, x, "X")) && (B.grid = ox_load_f64(k, grid, "grid")) &&
	    (B.y = ox_scratch(k, y->count, sizeof *B.y, "output")) &&
	    (B.off = ox_scratch(k, MAXTAPS, sizeof *B.off, "taps")) &&
	    (B.wt = ox_scratch(k, MAXTAPS, sizeof *B.wt, "taps"))) {
		for (int64_t n = 0; n < x->dims[0]; n++)
			for (int64_t p = 0; p < npts; p++)
				sample_point(&G, x, &B, n, p, npts, st);
		ox_store_f64(y, B.y);
		rc = 0;
	}
	free(B.x), free(B.grid), free(B.y), free(B.off), free(B.wt);
	return rc;
}

OX_KERNEL(ox_op_GridSample_16, grid_sample(k, false))
OX_KERNEL(ox_op_GridSample_20, grid_sample(k, true))

/* ---- AffineGrid ------------------------------------------------------------------ */

/* The normalized coordinate of index i of n points. */
static double base_coord(int64_t i, int64_t n, bool align)
{
	if (align)
		return n > 1 ? -1 + 2.0 * (double)i / (double)(n - 1) : -1;
	return -1 + (2.0 * (double)i + 1) / (double)n;
}

/* Grid point p of r spatial dims sp: theta (r x (r + 1)) times the homogeneous base point
 * (x, y[, z], 1), x from the innermost dim. */
static void affine_point(const double *theta, const int64_t *sp, int r, int64_t p, bool align, double *out)
{
	double h[4] = {0, 0, 0, 1};
	for (int d = r - 1; d >= 0; d--) {
		h[r - 1 - d] = base_coord(p % sp[d], sp[d], align);
		p /= sp[d];
	}
	h[r] = 1;
	for (int i = 0; i < r; i++) {
		double s = 0;
		for (int j = 0; j <= r; j++)
			s += theta[i * (r + 1) + j] * h[j];
		out[i] = s;
	}
}

int ox_op_AffineGrid(ox_k *k)
{
	static const int tt[] = {OX_FLOAT, OX_FLOAT16, OX_DOUBLE, OX_BFLOAT16, 0};
	ox_val *theta = ox_in_tensor(k, 0, true);
	int64_t size[5];
	int64_t ns = theta ? ox_in_ints(k, 1, size, 5, "size") : -1;
	if (!theta || ns < 0 || ox_check_type(k, theta, "theta", tt) < 0)
		return -1;
	int r = (int)ns - 2; /* spatial dims: 2 or 3 */
	if ((ns != 4 && ns != 5) || theta->rank != 3 || theta->dims[0] != size[0] || theta->dims[1] != r ||
	    theta->dims[2] != r + 1)
		return ox_kfail(k, "size must be [N, C, H, W] or [N, C, D, H, W] and theta [N, 2, 3] or [N, 3, 4] to match");
	bool align = ox_attr_int(k, "align_corners", 0) != 0;
	int64_t dims[5] = {size[0]};
	for (int d = 0; d < r; d++)
		dims[1 + d] = size[2 + d];
	dims[1 + r] = r;
	ox_val *y = ox_out_tensor(k, 0, theta->type, r + 2, dims);
	int64_t npts = y && y->count ? y->count / (size[0] * r) : 0;
	double *th = y ? ox_load_f64(k, theta, "theta") : NULL;
	double *out = th ? ox_scratch(k, y->count, sizeof *out, "grid") : NULL;
	if (!out) {
		free(th);
		return -1;
	}
	for (int64_t n = 0; n < size[0]; n++)
		for (int64_t p = 0; p < npts; p++)
			affine_point(th + n * r * (r + 1), size + 2, r, p, align, out + (n * npts + p) * r);
	ox_store_f64(y, out);
	free(th), free(out);
	return 0;
}
