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

/* ---- pooling through copies of the input rows ------------------------------------------
 * With dilation 1, each input row the windows read is copied once, its pads filled (0
 * for averages, the nearest edge element for max), into a ring of kh + sh rows, unless it
 * can be read in place. An output row is then whole vector blocks over its rows inside
 * the input, with the taps unrolled for the common widths and strides: no pool_one at the
 * edges, and the column counts made once for all planes. Sums and maxima come out as
 * pool_one's: the taps go in its order, and a window that holds one input column holds
 * its edge element too, so the filled columns change neither a sum nor a max (the first
 * tap unless a later one is greater). */

/* Row d (wp floats, VW more writable): input row src from column -pl, filled. */
static TARGET void FN(pool_copy_row)(const ox_pool2d *p, const float *src, float *d, int64_t wp)
{
	int64_t pl = p->pl, iw = p->iw, i = 0;
	bool max = p->mode == OX_POOL_MAX;
	VF lf = VSET(max ? src[0] : 0.0f), rf = VSET(max ? src[iw - 1] : 0.0f);
	for (int64_t t = 0; t < pl; t += VW)
		VSTORE(d + t, lf);
	for (; i + VW <= iw; i += VW)
		VSTORE(d + pl + i, VLOAD(src + i));
	if (i < iw)
		VSTOREN(d + pl + i, VLOADN(src + i, (int)(iw - i)), (int)(iw - i));
	for (int64_t t = pl + iw; t < wp; t += VW)
		VSTORE(d + t, rf);
}

/* A tap's VW lanes at q: stride 1, 2 (the even floats of 2 VW) or any (SW 0: gathered). */
static inline __attribute__((always_inline)) TARGET VF FN(pool_at)(const float *q, const int SW, VI idx)
{
	return SW == 1 ? VLOAD(q) : SW == 2 ? VEVEN(q) : VGATHER(q, idx);
}

/* NR output rows (1 or 2, whose chains of taps then interleave) over the copies
 * rp[j][0..nr) of each: blocks of VW outputs, KW taps a row (0: p->kw), stride SW (0:
 * p->sw); an average divided by its column count times rdiv. */
static inline __attribute__((always_inline)) TARGET void FN(pool_row_t)(const ox_pool2d *p, const float *const *rp,
								       int64_t nr, float rdiv, const float *cdiv,
								       float *yr, const int NR, const int KW,
								       const int SW, const bool MAX)
{
	const int kw = KW ? KW : (int)p->kw;
	const int64_t ow = p->ow, sw = SW ? SW : p->sw;
	/* 2 or 3 taps at stride 2 from one pair of loads: each VEVEN read two vectors across
	 * cache lines, and the loads were the bound (squeezenet's 3x3/s2 MaxPool of 64x111x111:
	 * 0.140 -> 0.085 ms) */
	const bool share = SW == 2 && (KW == 2 || KW == 3);
	VI idx = VIOTA(sw);
	for (int64_t ob = 0; ob < ow; ob += VW) {
		int64_t at = ob * sw;
		VF acc[2];
		for (int j = 0; j < NR; j++) /* a max starts from the first tap, an average from +0 */
			acc[j] = MAX && !share ? FN(pool_at)(rp[j * POOL_RING] + at, SW, idx) : VZERO();
		for (int64_t r = 0; share && r < nr; r++)
			for (int j = 0; j < NR; j++) {
				const float *q = rp[j * POOL_RING + r] + at;
				VF a = VLOAD(q), b = VLOAD(q + VW);
				/* in registers: the compiler would load them again for each permute */
				__asm__("" : "+v"(a), "+v"(b));
				VF t[3] = {VEVENV(a, b), VODDV(a, b), KW == 3 ? VEVEN1V(a, b, q[2 * VW]) : VZERO()};
				for (int kx = 0; kx < KW; kx++)
					acc[j] = MAX && r == 0 && kx == 0 ? t[0] : MAX ? VMAX(t[kx], acc[j]) : VADD(acc[j], t[kx]);
			}
		for (int64_t r = 0; !share && r < nr; r++)
			for (int kx = MAX && r == 0; kx < kw; kx++)
				for (int j = 0; j < NR; j++) {
					VF v = FN(pool_at)(rp[j * POOL_RING + r] + at + kx, SW, idx);
					/* max keeps acc when either is NaN, like v > acc */
					acc[j] = MAX ? VMAX(v, acc[j]) : VADD(acc[j], v);
				}
		for (int j = 0; j < NR; j++) {
			VF o = MAX ? acc[j] : VDIV(acc[j], VMUL(VLOAD(cdiv + ob), VSET(rdiv)));
			if (ob + VW <= ow)
				VSTORE(yr + j * ow + ob, o);
			else
				VSTOREN(yr + j * ow + ob, o, (int)(ow - ob));
		}
	}
}

/* Output rows at yr (NR of them, rp as in pool_row_t). */
typedef void (*FN(pool_row_fn))(const ox_pool2d *p, const float *const *rp, int64_t nr, float rdiv,
				  const float *cdiv, float *yr);
#define POOL_ROW(name, NR, KW, SW, MAX)                                                                    \
	static TARGET void FN(name)(const ox_pool2d *p, const float *const *rp, int64_t nr, float rdiv,      \
				    const float *cdiv, float *yr)                                            \
	{                                                                                                  \
		FN(pool_row_t)(p, rp, nr, rdiv, cdiv, yr, NR, KW, SW, MAX);                                \
	}
#define POOL_ROWS(KW, SW)                                                                                  \
	POOL_ROW(pool_max_##KW##_##SW, 1, KW, SW, true)                                                    \
	POOL_ROW(pool_avg_##KW##_##SW, 1, KW, SW, false)                                                   \
	POOL_ROW(pool_max2_##KW##_##SW, 2, KW, SW, true)                                                   \
	POOL_ROW(pool_avg2_##KW##_##SW, 2, KW, SW, false)                                                  \
	static const FN(pool_row_fn) FN(pool_rows_##KW##_##SW)[2][2] = {                                   \
		{FN(pool_avg_##KW##_##SW), FN(pool_max_##KW##_##SW)},                                      \
		{FN(pool_avg2_##KW##_##SW), FN(pool_max2_##KW##_##SW)}};
POOL_ROWS(2, 2)
POOL_ROWS(3, 1)
POOL_ROWS(3, 2)
POOL_ROWS(0, 1)
POOL_ROWS(0, 2)
POOL_ROWS(0, 0)
#undef POOL_ROWS
#undef POOL_ROW

/* The row kernels for p's width and stride: [one row, two][average, max]. */
static const FN(pool_row_fn) (*FN(pool_row_for)(const ox_pool2d *p))[2]
{
	if (p->kw == 2 && p->sw == 2)
		return FN(pool_rows_2_2);
	if (p->kw == 3 && p->sw <= 2)
		return p->sw == 1 ? FN(pool_rows_3_1) : FN(pool_rows_3_2);
	if (p->sw <= 2)
		return p->sw == 1 ? FN(pool_rows_0_1) : FN(pool_rows_0_2);
	return FN(pool_rows_0_0);
}

/* The rows a row of blocks reads, wp floats each: input rows themselves where left (end)
 * is not before the first column and every output's window ends inside its row, so that
 * only lanes past the outputs read on (into the next row, but not past end); else copies. */
typedef struct FN(pool_src) {
	const float *end;
	float *buf;
	int64_t ws, wp, nslot, next; /* next: the first input row not copied yet */
	bool direct;
} FN(pool_src);

/* The input rows [y0, y0 + kh) inside the plane xq, into rp (nr of them): read in place
 * or copied, after the last one copied (row iy in slot iy % nslot of the ring). */
static TARGET int64_t FN(pool_ring_rows)(const ox_pool2d *p, const float *xq, FN(pool_src) *S, int64_t y0,
					 const float **rp)
{
	int64_t a = y0 < 0 ? 0 : y0, b = y0 + p->kh < p->ih ? y0 + p->kh : p->ih, slot = a % S->nslot;
	for (int64_t iy = a; iy < b; iy++) {
		const float *row = xq + iy * p->iw;
		if (!S->direct || S->end - row < S->wp) {
			float *d = S->buf + slot * S->ws;
			if (iy >= S->next) {
				FN(pool_copy_row)(p, row, d, S->wp);
				S->next = iy + 1;
			}
			row = d;
		}
		rp[iy - a] = row;
		slot = slot + 1 == S->nslot ? 0 : slot + 1;
	}
	return b > a ? b - a : 0;
}

/* planes planes of pool2d through row copies; false when they do not qualify (a dilation,
 * a kernel taller than the ring) or the copies find no memory. Rows whose windows lie
 * wholly inside the input go two at a time. */
static TARGET bool FN(pool2d_rows)(const ox_pool2d *p, const float *x, float *y, int64_t planes)
{
	int64_t nslot = p->kh + p->sh; /* two output rows' input rows at most */
	if (p->dh != 1 || p->dw != 1 || nslot > POOL_RING || p->oh < 1 || p->ow < 1)
		return false;
	int64_t ow = p->ow, wp = pool_pad_width(p, VW), ws = wp + VW; /* + VW: the fills' last store */
	int64_t need = nslot * ws + 2 * (ow + VW);
	float stack[POOL_ROWS_STACK] __attribute__((aligned(64)));
	float *buf = need <= POOL_ROWS_STACK ? stack : malloc((size_t)need * sizeof *buf);
	if (!buf)
		return false;
	float *creal = buf + nslot * ws, *cdiv = creal + ow + VW;
	bool hollow = pool_pad_cols(p, ow, VW, creal, cdiv), max = p->mode == OX_POOL_MAX;
	const FN(pool_row_fn)(*row)[2] = FN(pool_row_for)(p);
	FN(pool_src) S = {x + planes * p->ih * p->iw, buf, ws, wp, nslot, 0, !p->pl && (ow - 1) * p->sw + p->kw <= p->iw};
	for (int64_t q = 0; q < planes; q++) {
		const float *xq = x + q * p->ih * p->iw;
		float *yq = y + q * p->oh * ow;
		S.next = 0;
		for (int64_t oy = 0; oy < p->oh;) {
			const float *rp[2 * POOL_RING];
			int64_t y0 = oy * p->sh - p->pt;
			int64_t nr = FN(pool_ring_rows)(p, xq, &S, y0, rp);
			float rdiv = (float)(p->mode == OX_POOL_AVG_PAD ? pool_count(y0, p->kh, -p->pt, p->ih + p->pb) : nr);
			int two = nr == p->kh && oy + 1 < p->oh && y0 + p->sh + p->kh <= p->ih;
			if (two)
				FN(pool_ring_rows)(p, xq, &S, y0 + p->sh, rp + POOL_RING);
			float *yr = yq + oy * ow;
			if (nr)
				row[two][max](p, rp, nr, rdiv, cdiv, yr);
			for (int64_t j = 0; j <= two; j++)
				for (int64_t ox = 0; (hollow || !nr) && ox < ow; ox++)
					if (!nr || creal[ox] == 0)
						yr[j * ow + ox] = pool_one(p, xq, oy + j, ox);
			oy += 1 + two;
		}
	}
	if (buf != stack)
		free(buf);
	return true;
}

/* One plane with a dilation: vector blocks inside, pool_one at the edges. */
static TARGET void FN(pool2d_dilated)(const ox_pool2d *p, const float *x, float *y)
{
	int64_t lo, hi;
	pool_interior(p, &lo, &hi);
	for (int64_t oy = 0; oy < p->oh; oy++) {
		float *yr = y + oy * p->ow;
		int64_t y0 = oy * p->sh - p->pt, ky0, ky1;
		float div = pool_rows(p, y0, &ky0, &ky1);
		int64_t ox = 0;
		if (ky0 < ky1) {
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
		}
		for (; ox < p->ow; ox++)
			yr[ox] = pool_one(p, x, oy, ox);
	}
}

/* ---- max at stride 2 across: down the rows first -----------------------------------------
 * A 2- or 3-wide max at stride 2 along the rows (any height and stride down them): each
 * block of outputs takes the max down the window's rows of two vectors of columns (and the
 * column after them), then one set of permutes, rather than one set a row (3x3/s2
 * MaxPool, one thread, ms: squeezenet's 64x111x111 0.076 -> 0.050 and 128x55x55 0.047 ->
 * 0.028, resnet's 64x112x112 with pads 0.092 -> 0.058, inception's 192x56x56 with an
 * end pad 0.075 -> 0.040; the row copies and their bookkeeping cost more than the
 * taps). The rows are read in place: only those inside the input, columns past its
 * end as -inf; a left pad is of one column at most, its windows then one column less. As
 * in pool_one, a NaN comes out where a window's first tap inside the input is one, and
 * NaNs elsewhere are passed over: the maxima leave every NaN out, then the first taps are
 * put back in. A maximum that is a zero may differ in sign from pool_one's. */

/* Lanes to read of a vector whose first column is n before the end. */
static inline int FN(lanes_left)(int64_t n)
{
	return n >= VW ? VW : n > 0 ? (int)n : 0;
}

/* The block of outputs whose windows' first column is q, over nr rows iw apart: WHOLE,
 * or na and nb lanes of its two vectors inside the row (the others -inf) and the column
 * after them when ex. */
static inline __attribute__((always_inline)) TARGET VF FN(pool_max_s2_block)(const float *q, int64_t iw, int64_t nr,
									    int na, int nb, bool ex, const int KW,
									    const bool WHOLE)
{
	VF a0 = WHOLE ? VLOAD(q) : VLOADNF(q, na, -INFINITY), b0 = WHOLE ? VLOAD(q + VW) : VLOADNF(q + VW, nb, -INFINITY);
	VF a = VMAX(a0, VSET(-INFINITY)), b = VMAX(b0, VSET(-INFINITY)); /* NaN: -inf */
	bool x3 = KW == 3 && (WHOLE || ex); /* the column after the vectors is read */
	float e = x3 && q[2 * VW] > -INFINITY ? q[2 * VW] : -INFINITY;
	for (int64_t r = 1; r < nr; r++) {
		q += iw;
		a = VMAX(WHOLE ? VLOAD(q) : VLOADNF(q, na, -INFINITY), a);
		b = VMAX(WHOLE ? VLOAD(q + VW) : VLOADNF(q + VW, nb, -INFINITY), b);
		e = x3 && q[2 * VW] > e ? q[2 * VW] : e;
	}
	VF acc = VMAX(VODDV(a, b), VEVENV(a, b));
	if (KW == 3)
		acc = VMAX(VEVEN1V(a, b, e), acc);
	return VMAX(acc, VEVENV(a0, b0)); /* the first taps: their NaNs */
}

static inline __attribute__((always_inline)) TARGET void FN(pool_max_s2_plane)(const ox_pool2d *p, const float *x,
									     float *y, const int KW, const int PL)
{
	int64_t ow = p->ow, iw = p->iw;
	for (int64_t oy = 0; oy < p->oh; oy++) {
		int64_t y0 = oy * p->sh - p->pt, ya = y0 > 0 ? y0 : 0, yb = y0 + p->kh < p->ih ? y0 + p->kh : p->ih;
		const float *r0 = x + ya * iw;
		float *yr = y + oy * ow;
		if (PL) { /* columns 0 .. KW - 2, pool_one's taps in its order */
			float m = r0[0];
			for (int64_t r = 0; r < yb - ya; r++)
				for (int c = 0; c < KW - 1; c++)
					m = r0[r * iw + c] > m ? r0[r * iw + c] : m;
			yr[0] = m;
		}
		int64_t ob = PL;
		for (; ob < ow && iw - (2 * ob - PL) >= 2 * VW + (KW == 3); ob += VW) {
			VF acc = FN(pool_max_s2_block)(r0 + 2 * ob - PL, iw, yb - ya, VW, VW, true, KW, true);
			if (ob + VW <= ow)
				VSTORE(yr + ob, acc);
			else
				VSTOREN(yr + ob, acc, (int)(ow - ob));
		}
		for (; ob < ow; ob += VW) {
			int64_t n = iw - (2 * ob - PL); /* columns from the block's first */
			VF acc = FN(pool_max_s2_block)(r0 + 2 * ob - PL, iw, yb - ya, FN(lanes_left)(n), FN(lanes_left)(n - VW),
						       KW == 3 && n > 2 * VW, KW, false);
			VSTOREN(yr + ob, acc, (int)(ow - ob < VW ? ow - ob : VW));
		}
	}
}

/* planes planes through pool_max_s2_plane; false when p is not such a pool (every window
 * must start inside the input), or its rows are shorter than half a vector (the other ways
 * take them faster: 3x3/s2 of 256x13x13, 0.004 against 0.0065 ms). */
static TARGET bool FN(pool_max_s2)(const ox_pool2d *p, const float *x, float *y, int64_t planes)
{
	if (p->mode != OX_POOL_MAX || p->sw != 2 || 2 * p->ow < VW || (p->kw != 2 && p->kw != 3) || p->dh != 1 ||
	    p->dw != 1 || p->pl > 1 || p->pt >= p->kh || p->oh < 1 || (p->oh - 1) * p->sh - p->pt >= p->ih ||
	    2 * (p->ow - 1) - p->pl >= p->iw)
		return false;
	for (int64_t q = 0; q < planes; q++) {
		const float *xq = x + q * p->ih * p->iw;
		float *yq = y + q * p->oh * p->ow;
		if (p->kw == 3)
			p->pl ? FN(pool_max_s2_plane)(p, xq, yq, 3, 1) : FN(pool_max_s2_plane)(p, xq, yq, 3, 0);
		else
			p->pl ? FN(pool_max_s2_plane)(p, xq, yq, 2, 1) : FN(pool_max_s2_plane)(p, xq, yq, 2, 0);
	}
	return true;
}

static TARGET void FN(pool2d)(const ox_pool2d *p, const float *x, float *y, int64_t planes)
{
	if (FN(pool_max_s2)(p, x, y, planes))
		return;
#ifdef POOL_PLANES /* a level's own way for some planes */
	int64_t done = POOL_PLANES(p, x, y, planes);
	x += done * p->ih * p->iw, y += done * p->oh * p->ow, planes -= done;
#endif
	if (FN(pool2d_rows)(p, x, y, planes))
		return;
	for (int64_t q = 0; q < planes; q++)
		FN(pool2d_dilated)(p, x + q * p->ih * p->iw, y + q * p->oh * p->ow);
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
