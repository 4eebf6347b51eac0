/* The float32 vector kernels of pooling, softmax, normalization and reductions (nn.h): the
 * portable scalar versions, which are the reference, and AVX2 and AVX-512 versions made
 * from nn_simd_impl.h. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "eval/ops/nn.h"

#if OX_X86
#include <immintrin.h>
#endif

/* ---- 2-D pooling, shared by every table ------------------------------------------------ */

/* One output of a pooling plane. Taps beyond the pads count for nothing; taps in the pads
 * count in the divisor of OX_POOL_AVG_PAD only. MAX keeps the first tap unless a later one
 * is greater, so a NaN wins only when it comes first. */
static float pool_one(const ox_pool2d *p, const float *x, int64_t oy, int64_t ox)
{
	int64_t y0 = oy * p->sh - p->pt, x0 = ox * p->sw - p->pl, n = 0, npad = 0;
	float acc = 0;
	for (int64_t ky = 0; ky < p->kh; ky++) {
		int64_t iy = y0 + ky * p->dh;
		if (iy < -p->pt || iy >= p->ih + p->pb)
			continue;
		for (int64_t kx = 0; kx < p->kw; kx++) {
			int64_t ix = x0 + kx * p->dw;
			if (ix < -p->pl || ix >= p->iw + p->pr)
				continue;
			npad++;
			if (iy < 0 || iy >= p->ih || ix < 0 || ix >= p->iw)
				continue;
			float v = x[iy * p->iw + ix];
			if (p->mode != OX_POOL_MAX)
				acc += v;
			else if (n == 0 || v > acc)
				acc = v;
			n++;
		}
	}
	if (p->mode == OX_POOL_MAX)
		return n ? acc : -INFINITY;
	return acc / (float)(p->mode == OX_POOL_AVG ? n : npad);
}

/* The outputs [lo, hi) of a row whose windows lie inside the input horizontally. Huge
 * strides get none, which keeps vector gather offsets in int32. */
static void pool_interior(const ox_pool2d *p, int64_t *lo, int64_t *hi)
{
	int64_t last = p->iw - 1 - (p->kw - 1) * p->dw + p->pl;
	*lo = (p->pl + p->sw - 1) / p->sw;
	*hi = last < 0 ? 0 : last / p->sw + 1;
	if (*hi > p->ow)
		*hi = p->ow;
	if (*hi < *lo || p->sw > 4096)
		*hi = *lo;
}

/* The kernel rows [ky0, ky1) inside the input for the output row starting at input row
 * y0, and the divisor of an average over interior columns. */
static float pool_rows(const ox_pool2d *p, int64_t y0, int64_t *ky0, int64_t *ky1)
{
	int64_t first = -1, last = -1, npad = 0;
	for (int64_t ky = 0; ky < p->kh; ky++) {
		int64_t iy = y0 + ky * p->dh;
		npad += iy >= -p->pt && iy < p->ih + p->pb;
		if (iy >= 0 && iy < p->ih) {
			if (first < 0)
				first = ky;
			last = ky;
		}
	}
	*ky0 = first < 0 ? 0 : first;
	*ky1 = first < 0 ? 0 : last + 1;
	return (float)((p->mode == OX_POOL_AVG ? *ky1 - *ky0 : npad) * p->kw);
}

/* How a stride of 2 reads a tap's VW lanes: as the even elements of the 2 VW floats from
 * the tap's first (POOL_EVEN), as the odd ones from the float before it (POOL_ODD: the
 * last block of a row, whose 2 VW floats from the tap would pass the row's end by one),
 * or by a gather, several times slower (on AMD EPYC a third of a whole pooling layer
 * went to the one gathered block per row). */
enum { POOL_GATHER, POOL_EVEN, POOL_ODD };

/* Room for the copied rows of one block of outputs at a row's edges. */
enum { POOL_EDGE_FLOATS = 2048 };

/* The window rows of an edge block that count in its divisors. */
static int64_t pool_edge_nrows(const ox_pool2d *p, int64_t y0, int64_t ky0, int64_t ky1)
{
	if (p->mode != OX_POOL_AVG_PAD)
		return ky1 - ky0;
	int64_t n = 0;
	for (int64_t ky = 0; ky < p->kh; ky++)
		n += y0 + ky * p->dh >= -p->pt && y0 + ky * p->dh < p->ih + p->pb;
	return n;
}

/* One kernel row of an edge block: columns c0 .. c0 + w - 1 of src, those outside the
 * input as fill (0), or as the nearest edge element (max). */
static void pool_edge_row(const ox_pool2d *p, const float *src, int64_t c0, int64_t w, float *d)
{
	int64_t l = c0 < 0 ? (-c0 < w ? -c0 : w) : 0, e = p->iw - c0 < w ? p->iw - c0 : w;
	e = e < l ? l : e;
	bool max = p->mode == OX_POOL_MAX;
	for (int64_t t = 0; t < l; t++)
		d[t] = max ? src[0] : 0;
	memcpy(d + l, src + c0 + l, (size_t)(e - l) * sizeof *d);
	for (int64_t t = e; t < w; t++)
		d[t] = max ? src[p->iw - 1] : 0;
}

/* For the vw outputs from ox of a row whose kernel rows [ky0, ky1) lie in the input
 * (input row y0 + ky * dh): copies of those rows from column ox * sw - pl on, *w wide, and
 * each output's divisor. Columns outside the input hold 0 for averages and the nearest
 * edge element for max: with dilation 1 a window that holds one input column holds that
 * edge element too, so the copies change neither its sum nor pool_one's max (the first
 * tap unless a later one is greater). False when one of the first n outputs holds no
 * input column, the dilation is not 1 or the rows do not fit POOL_EDGE_FLOATS. */
static bool pool_edge_rows(const ox_pool2d *p, const float *x, int64_t y0, int64_t ky0, int64_t ky1, int64_t ox,
			   int64_t n, int vw, float *buf, int64_t *w, float *div)
{
	if (p->dw != 1 || p->sw > 64 || p->kw > 64 || ky1 - ky0 > 64)
		return false;
	*w = (vw - 1) * p->sw + p->kw + vw; /* + vw: a stride of 2 reads two vectors a tap */
	if (*w * (ky1 - ky0) > POOL_EDGE_FLOATS)
		return false;
	int64_t c0 = ox * p->sw - p->pl, rows = pool_edge_nrows(p, y0, ky0, ky1);
	for (int i = 0; i < vw; i++) {
		int64_t a = c0 + i * p->sw, b = a + p->kw; /* the window's columns [a, b) */
		int64_t in = (b < p->iw ? b : p->iw) - (a > 0 ? a : 0);
		int64_t pad = (b < p->iw + p->pr ? b : p->iw + p->pr) - (a > -p->pl ? a : -p->pl);
		if (i < n && in <= 0)
			return false;
		div[i] = i >= n ? 1 : (float)(rows * (p->mode == OX_POOL_AVG_PAD ? pad : in));
	}
	for (int64_t r = 0; r < ky1 - ky0; r++)
		pool_edge_row(p, x + (y0 + (ky0 + r) * p->dh) * p->iw, c0, *w, buf + r * *w);
	return true;
}

/* ---- pooling over a padded copy of the plane -----------------------------------------
 * With dilation 1, a plane copied with its pads filled (pool_edge_row: 0 for averages,
 * the nearest edge element for max) has every window inside the copy, so each output
 * row is whole vector blocks: no pool_one at the edges, no copied rows per edge block.
 * Sums and maxima come out as pool_one's (see pool_edge_rows); an average divides by
 * (rows counted) * (columns counted), exact in float. */

/* Floats a padded plane and its column counts may take (on the stack): 16 KiB, a 56 x 56
 * plane at a stride of 1. */
enum { POOL_PAD_STACK = 4096 };

/* Taps of [start, start + k) inside [lo, hi). */
static int64_t pool_count(int64_t start, int64_t k, int64_t lo, int64_t hi)
{
	int64_t a = start > lo ? start : lo, b = start + k < hi ? start + k : hi;
	return b > a ? b - a : 0;
}

/* Whether the plane has windows that reach outside the input, which the padded copy is
 * for (or rows narrower than a vector); dilation 1 only. */
static bool pool_pad_wanted(const ox_pool2d *p, int vw)
{
	if (p->dh != 1 || p->dw != 1 || p->oh < 1 || p->ow < 1)
		return false;
	return p->pt || p->pb || p->pl || p->pr || p->ow < vw || (p->ow - 1) * p->sw + p->kw > p->iw ||
	       (p->oh - 1) * p->sh + p->kh > p->ih;
}

/* The columns a row of vw-wide blocks reads in the copy, the last block included: 2 vw
 * floats a tap at a stride of 2 (read as their even elements). */
static int64_t pool_pad_width(const ox_pool2d *p, int vw)
{
	int64_t ob = (p->ow - 1) / vw * vw; /* the last block's first output */
	return p->sw == 2 ? 2 * ob + p->kw - 1 + 2 * vw : (ob + vw - 1) * p->sw + p->kw;
}

/* hp rows of wp columns: input row r - pt, columns from -pl, filled outside the input. */
static void pool_pad_plane(const ox_pool2d *p, const float *x, float *buf, int64_t hp, int64_t wp)
{
	bool max = p->mode == OX_POOL_MAX;
	for (int64_t r = 0; r < hp; r++) {
		int64_t iy = r - p->pt;
		float *d = buf + r * wp;
		if (!max && (iy < 0 || iy >= p->ih)) {
			memset(d, 0, (size_t)wp * sizeof *d);
			continue;
		}
		iy = iy < 0 ? 0 : iy >= p->ih ? p->ih - 1 : iy;
		pool_edge_row(p, x + iy * p->iw, -p->pl, wp, d);
	}
}

/* Per output column (n of them, the rest up to n + vw set to 1): the input columns its
 * window holds (0: none, pool_one's case) and the columns its divisor counts. Whether
 * some window holds none. */
static bool pool_pad_cols(const ox_pool2d *p, int64_t n, int vw, float *creal, float *cdiv)
{
	bool hollow = false;
	for (int64_t ox = 0; ox < n + vw; ox++) {
		int64_t a = ox * p->sw - p->pl;
		creal[ox] = ox < n ? (float)pool_count(a, p->kw, 0, p->iw) : 1;
		cdiv[ox] = ox >= n ? 1 : p->mode == OX_POOL_AVG_PAD ? (float)pool_count(a, p->kw, -p->pl, p->iw + p->pr) : creal[ox];
		hollow = hollow || creal[ox] == 0;
	}
	return hollow;
}

/* ---- scalar reference ---------------------------------------------------------------- */

static float sum_scalar(const float *x, int64_t n)
{
	double s = 0;
	for (int64_t i = 0; i < n; i++)
		s += x[i];
	return (float)s;
}

static float max_scalar(const float *x, int64_t n)
{
	float m = -INFINITY;
	for (int64_t i = 0; i < n && !isnan(m); i++)
		if (isnan(x[i]) || x[i] > m)
			m = x[i];
	return m;
}

static float min_scalar(const float *x, int64_t n)
{
	float m = INFINITY;
	for (int64_t i = 0; i < n && !isnan(m); i++)
		if (isnan(x[i]) || x[i] < m)
			m = x[i];
	return m;
}

static void acc_add_scalar(float *acc, const float *x, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		acc[i] += x[i];
}

static void acc_max_scalar(float *acc, const float *x, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		if (isnan(x[i]) || x[i] > acc[i])
			acc[i] = x[i];
}

static void acc_min_scalar(float *acc, const float *x, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		if (isnan(x[i]) || x[i] < acc[i])
			acc[i] = x[i];
}

static float exp_shift_scalar(float *y, const float *x, float m, int64_t n)
{
	double s = 0;
	for (int64_t i = 0; i < n; i++) {
		y[i] = expf(x[i] - m);
		s += y[i];
	}
	return (float)s;
}

static void exp_shift_v_scalar(float *y, const float *x, const float *m, float *sum, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		y[i] = expf(x[i] - m[i]);
		sum[i] += y[i];
	}
}

static void affine_scalar(float *y, const float *x, float a, float b, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] * a + b;
}

static void affine_v_scalar(float *y, const float *x, const float *a, const float *b, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] * a[i] + b[i];
}

static void mul_v_scalar(float *y, const float *x, const float *a, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] * a[i];
}

static void add_v_scalar(float *y, const float *x, const float *b, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] + b[i];
}

static void exp_scalar(float *y, const float *x, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		y[i] = expf(x[i]);
}

static void sq_acc_scalar(float *acc, const float *x, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		acc[i] = fmaf(x[i], x[i], acc[i]);
}

static void lrn75_scalar(float *y, const float *x, const float *s, float a, float b, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float r = sqrtf(fmaf(s[i], a, b));
		y[i] = x[i] / (r * sqrtf(r));
	}
}

static void pool2d_scalar(const ox_pool2d *p, const float *x, float *y)
{
	for (int64_t oy = 0; oy < p->oh; oy++)
		for (int64_t ox = 0; ox < p->ow; ox++)
			y[oy * p->ow + ox] = pool_one(p, x, oy, ox);
}

static const ox_nn_vec scalar_table = {
	sum_scalar, max_scalar, min_scalar, acc_add_scalar, acc_max_scalar, acc_min_scalar,
	exp_shift_scalar, exp_shift_v_scalar, affine_scalar, affine_v_scalar, mul_v_scalar,
	add_v_scalar, exp_scalar, pool2d_scalar, sq_acc_scalar, lrn75_scalar,
};

/* ---- AVX2 and AVX-512 ------------------------------------------------------------------ */

#if OX_X86

#include "simd_avx2.h"
#include "nn_simd_impl.h"
#include "simd_end.h"

#include "simd_avx512.h"
#define VHALF pool_block_avx2 /* AVX-512 finishes a row with an AVX2 block */
#include "nn_simd_impl.h"
#undef VHALF
#include "simd_end.h"

#endif

/* ---- choice ------------------------------------------------------------------------------ */

static int forced = -1;

const ox_nn_vec *ox_nn_vec_level(int level)
{
	return ox_cpu_table(level, OX_CPU_TABLES(&scalar_table, &table_avx2, &table_avx512));
}

const ox_nn_vec *ox_nn_vec_get(void)
{
	const ox_nn_vec *t = ox_nn_vec_level(forced >= 0 ? forced : ox_cpu_level());
	return t ? t : &scalar_table;
}

void ox_nn_vec_force(int level)
{
	forced = level;
}
