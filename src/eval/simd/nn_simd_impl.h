/* The vector kernels of nn.h written once over the SIMD macro layer: nn_simd.c includes
 * this file once per level between that level's simd_*.h and simd_end.h. Tails shorter than one vector are done in scalar code, the same way the scalar
 * table does them, so that results differ from it only by rounding. */

#include "vmath.h"

static inline TARGET float FN(hsum)(VF v)
{
	float b[VW];
	VSTORE(b, v);
	double s = 0;
	for (int i = 0; i < VW; i++)
		s += b[i];
	return (float)s;
}

/* The largest (max) or smallest lane, or NaN when a lane is NaN. */
static inline TARGET float FN(hext)(VF v, bool max)
{
	float b[VW];
	VSTORE(b, v);
	float m = b[0];
	for (int i = 0; i < VW; i++) {
		if (isnan(b[i]))
			return b[i];
		if (max ? b[i] > m : b[i] < m)
			m = b[i];
	}
	return m;
}

/* Blocks of lanes, each block's total added in double: the error grows with the block,
 * not with n. */
static TARGET float FN(sum)(const float *x, int64_t n)
{
	double total = 0;
	int64_t i = 0;
	while (n - i >= VW) {
		int64_t end = n - i > 4096 ? i + 4096 : n;
		VF a = VZERO(), b = VZERO();
		for (; i + 2 * VW <= end; i += 2 * VW) {
			a = VADD(a, VLOAD(x + i));
			b = VADD(b, VLOAD(x + i + VW));
		}
		for (; i + VW <= end; i += VW)
			a = VADD(a, VLOAD(x + i));
		total += FN(hsum)(VADD(a, b));
	}
	for (; i < n; i++)
		total += x[i];
	return (float)total;
}

static TARGET float FN(extreme)(const float *x, int64_t n, bool max)
{
	float m = max ? -INFINITY : INFINITY;
	int64_t i = 0;
	if (n >= VW) {
		VF a = VLOAD(x);
		for (i = VW; i + VW <= n; i += VW) {
			VF v = VLOAD(x + i);
			a = VSEL(VNAN(v), max ? VMAX(v, a) : VMIN(v, a), v);
		}
		m = FN(hext)(a, max);
	}
	for (; i < n && !isnan(m); i++)
		if (isnan(x[i]) || (max ? x[i] > m : x[i] < m))
			m = x[i];
	return m;
}

static TARGET float FN(max)(const float *x, int64_t n)
{
	return FN(extreme)(x, n, true);
}

static TARGET float FN(min)(const float *x, int64_t n)
{
	return FN(extreme)(x, n, false);
}

static TARGET void FN(acc_add)(float *acc, const float *x, int64_t n)
{
	int64_t i = 0;
	for (; i + VW <= n; i += VW)
		VSTORE(acc + i, VADD(VLOAD(acc + i), VLOAD(x + i)));
	for (; i < n; i++)
		acc[i] += x[i];
}

static TARGET void FN(acc_ext)(float *acc, const float *x, int64_t n, bool max)
{
	int64_t i = 0;
	for (; i + VW <= n; i += VW) {
		VF a = VLOAD(acc + i), v = VLOAD(x + i);
		VSTORE(acc + i, VSEL(VNAN(v), max ? VMAX(v, a) : VMIN(v, a), v));
	}
	for (; i < n; i++)
		if (isnan(x[i]) || (max ? x[i] > acc[i] : x[i] < acc[i]))
			acc[i] = x[i];
}

static TARGET void FN(acc_max)(float *acc, const float *x, int64_t n)
{
	FN(acc_ext)(acc, x, n, true);
}

static TARGET void FN(acc_min)(float *acc, const float *x, int64_t n)
{
	FN(acc_ext)(acc, x, n, false);
}

static TARGET float FN(exp_shift)(float *y, const float *x, float m, int64_t n)
{
	VF s = VZERO(), vm = VSET(m);
	int64_t i = 0;
	for (; i + VW <= n; i += VW) {
		VF e = FN(vexp)(VSUB(VLOAD(x + i), vm));
		VSTORE(y + i, e);
		s = VADD(s, e);
	}
	double total = FN(hsum)(s);
	for (; i < n; i++) {
		y[i] = expf(x[i] - m);
		total += y[i];
	}
	return (float)total;
}

static TARGET void FN(exp_shift_v)(float *y, const float *x, const float *m, float *sum, int64_t n)
{
	int64_t i = 0;
	for (; i + VW <= n; i += VW) {
		VF e = FN(vexp)(VSUB(VLOAD(x + i), VLOAD(m + i)));
		VSTORE(y + i, e);
		VSTORE(sum + i, VADD(VLOAD(sum + i), e));
	}
	for (; i < n; i++) {
		y[i] = expf(x[i] - m[i]);
		sum[i] += y[i];
	}
}

static TARGET void FN(affine)(float *y, const float *x, float a, float b, int64_t n)
{
	VF va = VSET(a), vb = VSET(b);
	int64_t i = 0;
	for (; i + VW <= n; i += VW)
		VSTORE(y + i, VFMA(VLOAD(x + i), va, vb));
	for (; i < n; i++)
		y[i] = x[i] * a + b;
}

static TARGET void FN(affine_v)(float *y, const float *x, const float *a, const float *b, int64_t n)
{
	int64_t i = 0;
	for (; i + VW <= n; i += VW)
		VSTORE(y + i, VFMA(VLOAD(x + i), VLOAD(a + i), VLOAD(b + i)));
	for (; i < n; i++)
		y[i] = x[i] * a[i] + b[i];
}

static TARGET void FN(mul_v)(float *y, const float *x, const float *a, int64_t n)
{
	int64_t i = 0;
	for (; i + VW <= n; i += VW)
		VSTORE(y + i, VMUL(VLOAD(x + i), VLOAD(a + i)));
	for (; i < n; i++)
		y[i] = x[i] * a[i];
}

static TARGET void FN(add_v)(float *y, const float *x, const float *b, int64_t n)
{
	int64_t i = 0;
	for (; i + VW <= n; i += VW)
		VSTORE(y + i, VADD(VLOAD(x + i), VLOAD(b + i)));
	for (; i < n; i++)
		y[i] = x[i] + b[i];
}

static TARGET void FN(exp)(float *y, const float *x, int64_t n)
{
	int64_t i = 0;
	for (; i + VW <= n; i += VW)
		VSTORE(y + i, FN(vexp)(VLOAD(x + i)));
	for (; i < n; i++)
		y[i] = expf(x[i]);
}

/* One tap's VW lanes at q: contiguous with a stride of 1, else as how says. */
static inline __attribute__((always_inline)) TARGET VF FN(pool_tap)(const float *q, VI idx, int64_t sw, int how)
{
	return sw == 1 ? VLOAD(q) : how == POOL_EVEN ? VEVEN(q) : how == POOL_ODD ? VODD(q - 1) : VGATHER(q, idx);
}

/* pool_lanes for one stride, way of reading and mode, each made with them constant: the
 * loop over the taps is then a load and a max or add (the general loop tested all three
 * at every tap, and took twice the time). A max starts from the first tap and an average
 * from +0, as pool_one does. */
static inline __attribute__((always_inline)) TARGET VF FN(pool_taps)(const ox_pool2d *p, const float *row0,
								    int64_t nrows, VI idx, int64_t sw, int how,
								    bool max)
{
	const int64_t rs = p->dh * p->iw, kw = p->kw, dw = p->dw;
	VF acc = max ? FN(pool_tap)(row0, idx, sw, how) : VZERO();
	for (int64_t r = 0; r < nrows; r++)
		for (int64_t kx = max && r == 0; kx < kw; kx++) {
			VF v = FN(pool_tap)(row0 + r * rs + kx * dw, idx, sw, how);
			acc = max ? VMAX(v, acc) : VADD(acc, v); /* max keeps acc when either is NaN, like v > acc */
		}
	return acc;
}

/* VW outputs of one row whose windows lie inside the input horizontally and have nrows
 * (at least 1) rows inside it vertically, the first at row0. The taps go in pool_one's
 * order, so the sums are the same. */
static __attribute__((noinline)) TARGET VF FN(pool_lanes)(const ox_pool2d *p, const float *row0, int64_t nrows, VI idx,
							 int how)
{
	bool max = p->mode == OX_POOL_MAX;
	if (p->sw == 1)
		return max ? FN(pool_taps)(p, row0, nrows, idx, 1, POOL_GATHER, true)
			   : FN(pool_taps)(p, row0, nrows, idx, 1, POOL_GATHER, false);
	if (how == POOL_EVEN)
		return max ? FN(pool_taps)(p, row0, nrows, idx, 2, POOL_EVEN, true)
			   : FN(pool_taps)(p, row0, nrows, idx, 2, POOL_EVEN, false);
	if (how == POOL_ODD)
		return max ? FN(pool_taps)(p, row0, nrows, idx, 2, POOL_ODD, true)
			   : FN(pool_taps)(p, row0, nrows, idx, 2, POOL_ODD, false);
	return max ? FN(pool_taps)(p, row0, nrows, idx, p->sw, POOL_GATHER, true)
		   : FN(pool_taps)(p, row0, nrows, idx, p->sw, POOL_GATHER, false);
}

/* Outputs ox .. ox + VW - 1 of a row (see pool_lanes). */
static inline TARGET void FN(pool_block)(const ox_pool2d *p, const float *row0, int64_t nrows, float div, float *yr,
					 int64_t ox)
{
	int64_t start = 2 * ox - p->pl, end = start + (p->kw - 1) * p->dw + 2 * VW; /* the floats POOL_EVEN reads */
	int how = p->sw != 2 ? POOL_GATHER : end <= p->iw ? POOL_EVEN : start >= 1 && end - 1 <= p->iw ? POOL_ODD : POOL_GATHER;
	VF acc = FN(pool_lanes)(p, row0 + ox * p->sw, nrows, VIOTA(p->sw), how);
	VSTORE(yr + ox, p->mode == OX_POOL_MAX ? acc : VDIV(acc, VSET(div)));
}

/* Outputs ox .. ox + n - 1 (n <= VW) of a row whose kernel rows [ky0, ky1) lie in the
 * input, through copies of those rows (pool_edge_rows): for the edges, where windows
 * reach into the pads; the same bits as pool_one. False when they do not qualify. */
static TARGET bool FN(pool_edge)(const ox_pool2d *p, const float *x, int64_t y0, int64_t ky0, int64_t ky1, float *yr,
				 int64_t ox, int64_t n)
{
	float buf[POOL_EDGE_FLOATS], div[VW], out[VW];
	ox_pool2d q = *p;
	if (!pool_edge_rows(p, x, y0, ky0, ky1, ox, n, VW, buf, &q.iw, div))
		return false;
	q.dh = 1;
	VF acc = FN(pool_lanes)(&q, buf, ky1 - ky0, VIOTA(p->sw), p->sw == 2 ? POOL_EVEN : POOL_GATHER);
	VSTORE(out, p->mode == OX_POOL_MAX ? acc : VDIV(acc, VLOAD(div)));
	memcpy(yr + ox, out, (size_t)n * sizeof *out);
	return true;
}

/* pool2d through a padded copy of the plane (nn_simd.c), on the stack; false when the
 * plane does not qualify or is too large for it (the edge blocks of the general path
 * then cost less than copying the whole plane). */
static TARGET bool FN(pool2d_padded)(const ox_pool2d *p, const float *x, float *y)
{
	if (!pool_pad_wanted(p, VW))
		return false;
	int64_t wp = pool_pad_width(p, VW), hp = (p->oh - 1) * p->sh + p->kh, ow = p->ow;
	if (wp > POOL_PAD_STACK / hp || hp * wp + 2 * (ow + VW) > POOL_PAD_STACK)
		return false;
	float buf[POOL_PAD_STACK];
	float *creal = buf + hp * wp, *cdiv = creal + ow + VW, t[VW];
	pool_pad_plane(p, x, buf, hp, wp);
	bool hollow = pool_pad_cols(p, ow, VW, creal, cdiv);
	ox_pool2d q = *p;
	q.iw = wp;
	bool max = p->mode == OX_POOL_MAX;
	for (int64_t oy = 0; oy < p->oh; oy++) {
		int64_t y0 = oy * p->sh - p->pt, rows = pool_count(y0, p->kh, 0, p->ih);
		float rdiv = (float)(p->mode == OX_POOL_AVG_PAD ? pool_count(y0, p->kh, -p->pt, p->ih + p->pb) : rows);
		float *yr = y + oy * ow;
		const float *row0 = buf + oy * p->sh * wp;
		for (int64_t ob = 0; rows && ob < ow; ob += VW) {
			VF acc = FN(pool_lanes)(&q, row0 + ob * p->sw, p->kh, VIOTA(p->sw), p->sw == 2 ? POOL_EVEN : POOL_GATHER);
			if (!max)
				acc = VDIV(acc, VMUL(VLOAD(cdiv + ob), VSET(rdiv)));
			VSTORE(ob + VW <= ow ? yr + ob : t, acc);
			if (ob + VW > ow)
				memcpy(yr + ob, t, (size_t)(ow - ob) * sizeof *t);
		}
		for (int64_t ox = 0; (hollow || !rows) && ox < ow; ox++)
			if (!rows || creal[ox] == 0)
				yr[ox] = pool_one(p, x, oy, ox);
	}
	return true;
}

static TARGET void FN(pool2d)(const ox_pool2d *p, const float *x, float *y)
{
	if (FN(pool2d_padded)(p, x, y))
		return;
	int64_t lo, hi;
	pool_interior(p, &lo, &hi);
	for (int64_t oy = 0; oy < p->oh; oy++) {
		float *yr = y + oy * p->ow;
		int64_t y0 = oy * p->sh - p->pt, ky0, ky1;
		float div = pool_rows(p, y0, &ky0, &ky1);
		int64_t ox = 0, first = p->ow < VW ? p->ow : VW;
		if (ky0 < ky1) {
			/* an edge block costs a few pool_one: for a whole narrow row, or several */
			if (lo > 0 && (p->ow <= VW || lo >= 4) && FN(pool_edge)(p, x, y0, ky0, ky1, yr, 0, first))
				ox = first;
			for (; ox < lo; ox++)
				yr[ox] = pool_one(p, x, oy, ox);
			const float *row0 = x + (y0 + ky0 * p->dh) * p->iw - p->pl;
			for (; ox + VW <= hi; ox += VW)
				FN(pool_block)(p, row0, ky1 - ky0, div, yr, ox);
#ifdef VHALF /* a narrower block before the scalar tail */
			for (; ox + VW / 2 <= hi; ox += VW / 2)
				VHALF(p, row0, ky1 - ky0, div, yr, ox);
#endif
			/* the rest of the interior as a block overlapping the last: its outputs
			 * come out the same again, and pool_one is several times slower */
			if (ox < hi && hi - VW >= lo) {
				FN(pool_block)(p, row0, ky1 - ky0, div, yr, hi - VW);
				ox = hi;
			}
			for (int64_t n; (n = p->ow - ox < VW ? p->ow - ox : VW) >= 4 &&
					FN(pool_edge)(p, x, y0, ky0, ky1, yr, ox, n);)
				ox += n;
		}
		for (; ox < p->ow; ox++)
			yr[ox] = pool_one(p, x, oy, ox);
	}
}

static TARGET void FN(sq_acc)(float *acc, const float *x, int64_t n)
{
	int64_t i = 0;
	for (; i + VW <= n; i += VW) {
		VF v = VLOAD(x + i);
		VSTORE(acc + i, VFMA(v, v, VLOAD(acc + i)));
	}
	for (; i < n; i++)
		acc[i] = fmaf(x[i], x[i], acc[i]);
}

static TARGET void FN(lrn75)(float *y, const float *x, const float *s, float a, float b, int64_t n)
{
	int64_t i = 0;
	for (; i + VW <= n; i += VW) {
		VF r = VSQRT(VFMA(VLOAD(s + i), VSET(a), VSET(b)));
		VSTORE(y + i, VDIV(VLOAD(x + i), VMUL(r, VSQRT(r))));
	}
	for (; i < n; i++) {
		float r = sqrtf(fmaf(s[i], a, b));
		y[i] = x[i] / (r * sqrtf(r));
	}
}

static const ox_nn_vec FN(table) = {
	FN(sum), FN(max), FN(min), FN(acc_add), FN(acc_max), FN(acc_min), FN(exp_shift),
	FN(exp_shift_v), FN(affine), FN(affine_v), FN(mul_v), FN(add_v), FN(exp), FN(pool2d), FN(sq_acc),
	FN(lrn75),
};
