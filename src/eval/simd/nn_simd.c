/* The float32 vector kernels of pooling, softmax, normalization and reductions (nn.h): the
 * portable scalar versions, which are the reference, and AVX2 and AVX-512 versions made
 * from nn_simd_impl.h. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "eval/ops/nn.h"
#include "transpose.h"

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

/* ---- pooling through copies of the input rows (nn_simd_impl.h) ---------------------- */

/* The rows the ring of row copies holds at most (kh + sh: two output rows' worth), and the
 * floats it may take on the stack (more come from the heap): 16 KiB, five rows of some
 * 800 columns for a 3x3 window at stride 2. */
enum { POOL_RING = 16, POOL_ROWS_STACK = 4096 };

/* Taps of [start, start + k) inside [lo, hi). */
static int64_t pool_count(int64_t start, int64_t k, int64_t lo, int64_t hi)
{
	int64_t a = start > lo ? start : lo, b = start + k < hi ? start + k : hi;
	return b > a ? b - a : 0;
}

/* The columns a row of vw-wide blocks reads in the copy, the last block included: 2 vw
 * floats a tap at a stride of 2 (read as their even elements). */
static int64_t pool_pad_width(const ox_pool2d *p, int vw)
{
	int64_t ob = (p->ow - 1) / vw * vw; /* the last block's first output */
	return p->sw == 2 ? 2 * ob + p->kw - 1 + 2 * vw : (ob + vw - 1) * p->sw + p->kw;
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

static void pool2d_scalar(const ox_pool2d *p, const float *x, float *y, int64_t planes)
{
	for (int64_t q = 0; q < planes; q++, x += p->ih * p->iw)
		for (int64_t oy = 0; oy < p->oh; oy++)
			for (int64_t ox = 0; ox < p->ow; ox++)
				*y++ = pool_one(p, x, oy, ox);
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

/* ---- AVX-512: small planes sixteen at a time -------------------------------------------
 * Planes of a few hundred outputs (inception's 13 x 13 and 6 x 6) cost more in row set-up
 * than in taps. Sixteen planes turned round (ox_turn16) put one position of each in
 * the lanes of a vector: every window is then the same taps for all lanes, pool_one's
 * own loop with vectors for floats, and no edge needs a copy. */

/* Planes whose positions fit the buffers of pool16 (16 floats a position), and rows whose
 * column spans fit its table. */
enum { POOL16_MAX_POS = 4096, POOL16_MAX_OW = 32 };

/* The taps [*a, *b) of a window from start (k taps d apart) inside [0, n), and how many
 * lie inside [-lo, n + hi) (the pads). */
static int64_t pool16_span(int64_t start, int64_t k, int64_t d, int64_t n, int64_t lo, int64_t hi, int64_t *a,
			   int64_t *b)
{
	int64_t npad = 0;
	*a = k, *b = 0;
	for (int64_t i = 0; i < k; i++) {
		int64_t at = start + i * d;
		npad += at >= -lo && at < n + hi;
		if (at >= 0 && at < n) {
			*a = i < *a ? i : *a;
			*b = i + 1;
		}
	}
	return npad;
}

/* The window of 16 planes at t (position-major) with rows [ya, yb) and columns [xa, xb)
 * inside the input (n taps), row y0 and column x0 at its tap 0: pool_one's taps in its
 * order. KW: the column count when constant (2 or 3, at a dilation of 1), else 0. */
OX_TARGET_AVX512 static inline __attribute__((always_inline)) __m512
pool16_window(const ox_pool2d *p, const float *t, int64_t y0, int64_t ya, int64_t yb, int64_t x0, int64_t xa,
	      int64_t xb, bool max, const int KW)
{
	int64_t dw = KW ? 1 : p->dw, xw = KW ? KW : xb - xa, rs = p->dh * p->iw * 16;
	const float *row = t + ((y0 + ya * p->dh) * p->iw + x0 + xa * dw) * 16;
	__m512 v = _mm512_loadu_ps(row), acc = max ? v : _mm512_add_ps(_mm512_setzero_ps(), v); /* +0 first, as pool_one */
	for (int64_t kx = 1; kx < xw; kx++) {
		v = _mm512_loadu_ps(row + kx * dw * 16);
		acc = max ? _mm512_max_ps(v, acc) : _mm512_add_ps(acc, v); /* max: v > acc ? v : acc */
	}
	for (int64_t ky = ya + 1; ky < yb; ky++) {
		row += rs;
		for (int64_t kx = 0; kx < xw; kx++) {
			v = _mm512_loadu_ps(row + kx * dw * 16);
			acc = max ? _mm512_max_ps(v, acc) : _mm512_add_ps(acc, v);
		}
	}
	return acc;
}

/* Outputs [lo, hi) of a row whose windows (K x K, dilation 1) lie wholly inside the
 * input, the first window's tap 0 at row: K * K taps in pool_one's order, and an average
 * divided by K * K, which is then both its count and its count with the pads. */
OX_TARGET_AVX512 static inline __attribute__((always_inline)) void
pool16_inside(const ox_pool2d *p, const float *row, float *u, int64_t lo, int64_t hi, bool max, const int K)
{
	int64_t rs = p->iw * 16, step = p->sw * 16;
	__m512 div = _mm512_set1_ps((float)(K * K));
	for (int64_t ox = lo; ox < hi; ox++, row += step) {
		__m512 acc = max ? _mm512_loadu_ps(row) : _mm512_add_ps(_mm512_setzero_ps(), _mm512_loadu_ps(row));
		for (int ky = 0; ky < K; ky++)
			for (int kx = ky == 0; kx < K; kx++) {
				__m512 v = _mm512_loadu_ps(row + ky * rs + kx * 16);
				acc = max ? _mm512_max_ps(v, acc) : _mm512_add_ps(acc, v);
			}
		_mm512_storeu_ps(u + ox * 16, max ? acc : _mm512_div_ps(acc, div));
	}
}

/* pool_one of 16 planes at once over t (position-major), into u: the same taps in the
 * same order, the column spans found once for all rows. The windows wholly inside the
 * input of 2x2 and 3x3 pools go through pool16_inside: finding each window's spans cost
 * more than its taps (3x3 AveragePool of 576x14x14: 0.041 -> 0.029 ms, 3x3/s2 MaxPool
 * of 192x56x56: 0.096 -> 0.084). */
OX_TARGET_AVX512 static void pool16_windows(const ox_pool2d *p, const float *t, float *u)
{
	bool max = p->mode == OX_POOL_MAX;
	int64_t xs[POOL16_MAX_OW][3]; /* first and end column inside the input, columns inside the pads */
	for (int64_t ox = 0; ox < p->ow; ox++)
		xs[ox][2] = pool16_span(ox * p->sw - p->pl, p->kw, p->dw, p->iw, p->pl, p->pr, &xs[ox][0], &xs[ox][1]);
	int K = p->kh == p->kw && (p->kw == 2 || p->kw == 3) && p->dh == 1 && p->dw == 1 ? (int)p->kw : 0;
	int64_t lo = (p->pl + p->sw - 1) / p->sw, hi = p->iw >= p->kw - p->pl ? (p->iw - p->kw + p->pl) / p->sw + 1 : 0;
	hi = hi < p->ow ? hi : p->ow;
	for (int64_t oy = 0; oy < p->oh; oy++) {
		int64_t y0 = oy * p->sh - p->pt, ya, yb;
		int64_t ypad = pool16_span(y0, p->kh, p->dh, p->ih, p->pt, p->pb, &ya, &yb);
		bool inside = K && y0 >= 0 && y0 + K <= p->ih && lo < hi;
		if (inside) {
			const float *row = t + (y0 * p->iw + lo * p->sw - p->pl) * 16;
			float *ur = u + oy * p->ow * 16;
			if (K == 3)
				max ? pool16_inside(p, row, ur, lo, hi, true, 3) : pool16_inside(p, row, ur, lo, hi, false, 3);
			else
				max ? pool16_inside(p, row, ur, lo, hi, true, 2) : pool16_inside(p, row, ur, lo, hi, false, 2);
		}
		for (int64_t ox = 0; ox < p->ow; ox++) {
			if (inside && ox == lo)
				ox = hi;
			if (ox >= p->ow)
				break;
			int64_t x0 = ox * p->sw - p->pl, xa = xs[ox][0], xb = xs[ox][1];
			int64_t n = yb > ya && xb > xa ? (yb - ya) * (xb - xa) : 0;
			__m512 acc;
			if (!n)
				acc = max ? _mm512_set1_ps(-INFINITY) : _mm512_setzero_ps();
			else if (xb - xa == 3 && p->dw == 1)
				acc = max ? pool16_window(p, t, y0, ya, yb, x0, xa, xb, true, 3)
					  : pool16_window(p, t, y0, ya, yb, x0, xa, xb, false, 3);
			else if (xb - xa == 2 && p->dw == 1)
				acc = max ? pool16_window(p, t, y0, ya, yb, x0, xa, xb, true, 2)
					  : pool16_window(p, t, y0, ya, yb, x0, xa, xb, false, 2);
			else
				acc = pool16_window(p, t, y0, ya, yb, x0, xa, xb, max, 0);
			if (!max)
				acc = _mm512_div_ps(acc, _mm512_set1_ps((float)(p->mode == OX_POOL_AVG ? n : ypad * xs[ox][2])));
			_mm512_storeu_ps(u + (oy * p->ow + ox) * 16, acc);
		}
	}
}

/* The planes of pool2d sixteen at a time while they fit POOL16_MAX_POS; how many it did
 * (the rest go another way). */
OX_TARGET_AVX512 static int64_t pool16(const ox_pool2d *p, const float *x, float *y, int64_t planes)
{
	int64_t isz = p->ih * p->iw, osz = p->oh * p->ow, done = 0;
	if (planes < 16 || isz > POOL16_MAX_POS || osz > POOL16_MAX_POS || p->ow > POOL16_MAX_OW)
		return 0;
	float *t = aligned_alloc(64, (size_t)(isz + osz) * 16 * sizeof *t);
	if (!t)
		return 0;
	for (; done + 16 <= planes; done += 16) {
		ox_turn16((float *)(x + done * isz), isz, 16, t, isz, false); /* only read */
		pool16_windows(p, t, t + isz * 16);
		ox_turn16(y + done * osz, osz, 16, t + isz * 16, osz, true);
	}
	free(t);
	return done;
}
#define POOL_PLANES pool16

#include "simd_avx512.h"
#define VHALF pool_block_avx2 /* AVX-512 finishes a row with an AVX2 block */
#include "nn_simd_impl.h"
#undef VHALF
#undef POOL_PLANES
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
