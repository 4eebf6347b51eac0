/* Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
 * ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, and ArgMax, ArgMin, CumSum, CumProd and TopK.
 * float32 Sum, Mean, Max and Min over one run of adjacent axes use the vector kernels of
 * nn.h; other floats compute in double, integers in int64 (wrapping like C's unsigned
 * arithmetic), except L2, LogSum and LogSumExp, which go through double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn.h"

enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOGSUM, R_LOGSUMEXP, R_SUMSQ };

/* Which axes of x a node reduces, and the shapes around them. */
typedef struct red {
	int rank, orank;
	bool axis[OX_MAX_RANK];
	int64_t n;                /* elements per reduction */
	int64_t odims[OX_MAX_RANK]; /* output shape (with keepdims) */
} red;

/* The product of d[from..to), saturated: an empty tensor may have huge other dims. */
static int64_t prod(const int64_t *d, int from, int to)
{
	int64_t p = 1;
	for (int i = from; i < to; i++)
		p = d[i] && p > INT64_MAX / d[i] ? INT64_MAX : p * d[i];
	return p;
}

/* The axes: attribute axes before version 13 (ReduceSum) or 18 (the others), the optional
 * input 1 since (input); none given means all, or none at all with noop_with_empty_axes. */
static int reduce_axes(ox_k *k, const ox_val *x, bool input, red *r)
{
	int64_t axes[OX_MAX_RANK], na = 0;
	const int64_t *a;
	if (!input && (na = ox_attr_ints(k, "axes", &a)) > x->rank)
		return ox_kfail(k, "attribute 'axes' has %lld values, more than the rank %d", (long long)na, x->rank);
	if (!input && na > 0)
		memcpy(axes, a, (size_t)na * sizeof *a);
	if (input && ox_in(k, 1) && (na = ox_in_ints(k, 1, axes, OX_MAX_RANK, "input axes")) < 0)
		return -1;
	na = na < 0 ? 0 : na;
	bool noop = input && na == 0 && ox_attr_int(k, "noop_with_empty_axes", 0);
	for (int i = 0; i < x->rank; i++)
		r->axis[i] = na == 0 && !noop;
	for (int64_t i = 0; i < na; i++) {
		int ax = ox_axis(k, axes[i], x->rank);
		if (ax < 0)
			return -1;
		if (r->axis[ax])
			return ox_kfail(k, "axis %lld is given twice", (long long)axes[i]);
		r->axis[ax] = true;
	}
	bool keep = ox_attr_int(k, "keepdims", 1) != 0;
	r->rank = x->rank;
	r->orank = 0;
	r->n = 1;
	for (int i = 0; i < x->rank; i++) {
		int64_t d = r->axis[i] ? x->dims[i] : 1;
		r->n = d && r->n > INT64_MAX / d ? INT64_MAX : r->n * d;
		if (!r->axis[i] || keep)
			r->odims[r->orank++] = r->axis[i] ? 1 : x->dims[i];
	}
	return 0;
}

/* An odometer over x giving, for each element in order, the index of its output. */
typedef struct walk {
	int rank;
	int64_t dims[OX_MAX_RANK], st[OX_MAX_RANK], pos[OX_MAX_RANK], at;
} walk;

static void walk_init(walk *w, const ox_val *x, const red *r)
{
	int64_t s = 1;
	w->rank = x->rank;
	w->at = 0;
	for (int i = x->rank - 1; i >= 0; i--) {
		w->dims[i] = x->dims[i];
		w->pos[i] = 0;
		w->st[i] = r->axis[i] ? 0 : s;
		s *= r->axis[i] ? 1 : x->dims[i];
	}
}

static void walk_next(walk *w)
{
	for (int i = w->rank - 1; i >= 0; i--) {
		w->at += w->st[i];
		if (++w->pos[i] < w->dims[i])
			return;
		w->at -= w->st[i] * w->dims[i];
		w->pos[i] = 0;
	}
}

/* ---- in double ------------------------------------------------------------------------- */

static double fold_init(int op)
{
	return op == R_MAX ? -INFINITY : op == R_MIN ? INFINITY : op == R_PROD ? 1 : 0;
}

/* Max and Min keep the first NaN they meet. */
static double fold(int op, double acc, double v)
{
	switch (op) {
	case R_MAX: return !isnan(acc) && (isnan(v) || v > acc) ? v : acc;
	case R_MIN: return !isnan(acc) && (isnan(v) || v < acc) ? v : acc;
	case R_PROD: return acc * v;
	case R_L1: return acc + fabs(v);
	case R_L2: case R_SUMSQ: return acc + v * v;
	default: return acc + v;
	}
}

static double fold_end(int op, double acc, int64_t n)
{
	switch (op) {
	case R_MEAN: return acc / (double)n;
	case R_L2: return sqrt(acc);
	case R_LOGSUM: return log(acc);
	default: return acc;
	}
}

/* LogSumExp as max + log(sum(exp(x - max))), with the max in acc from a first pass; an
 * infinite (or NaN) max is the answer. */
static int reduce_double(ox_k *k, const ox_val *x, const red *r, int op, ox_val *y)
{
	double *xd = ox_load_f64(k, x, "input"), *acc = xd ? ox_scratch(k, 2 * y->count, sizeof(double), "scratch") : NULL;
	if (!acc) {
		free(xd);
		return -1;
	}
	double *m = acc + y->count;
	bool lse = op == R_LOGSUMEXP;
	walk w;
	for (int64_t i = 0; i < y->count; i++)
		m[i] = fold_init(R_MAX), acc[i] = fold_init(op);
	walk_init(&w, x, r);
	for (int64_t i = 0; lse && i < x->count; i++, walk_next(&w))
		m[w.at] = fold(R_MAX, m[w.at], xd[i]);
	walk_init(&w, x, r);
	for (int64_t i = 0; i < x->count; i++, walk_next(&w))
		acc[w.at] = lse ? acc[w.at] + exp(xd[i] - m[w.at]) : fold(op, acc[w.at], xd[i]);
	for (int64_t i = 0; i < y->count; i++)
		acc[i] = !lse ? fold_end(op, acc[i], r->n) : isfinite(m[i]) ? m[i] + log(acc[i]) : m[i];
	ox_store_f64(y, acc);
	free(xd);
	free(acc);
	return 0;
}

/* ---- in int64 ------------------------------------------------------------------------- */

/* The smallest and largest values of an integer (or bool) type; uint64's largest as the
 * int64 of the same bits. */
static int64_t int_min(int type)
{
	switch (type) {
	case OX_INT8: return INT8_MIN;
	case OX_INT16: return INT16_MIN;
	case OX_INT32: return INT32_MIN;
	case OX_INT64: return INT64_MIN;
	case OX_INT4: return -8;
	case OX_INT2: return -2;
	default: return 0;
	}
}

static int64_t int_max(int type)
{
	switch (type) {
	case OX_INT8: return INT8_MAX;
	case OX_INT16: return INT16_MAX;
	case OX_INT32: return INT32_MAX;
	case OX_INT64: return INT64_MAX;
	case OX_UINT8: return UINT8_MAX;
	case OX_UINT16: return UINT16_MAX;
	case OX_UINT32: return UINT32_MAX;
	case OX_UINT64: return -1;
	case OX_INT4: return 7;
	case OX_UINT4: return 15;
	case OX_INT2: return 1;
	case OX_UINT2: return 3;
	default: return 1; /* bool */
	}
}

/* a < b, as unsigned for uint64 */
static bool less(int64_t a, int64_t b, bool uns)
{
	return uns ? (uint64_t)a < (uint64_t)b : a < b;
}

static int64_t ifold(int op, int64_t acc, int64_t v, bool uns)
{
	uint64_t a = (uint64_t)acc, u = (uint64_t)v;
	switch (op) {
	case R_MAX: return less(acc, v, uns) ? v : acc;
	case R_MIN: return less(v, acc, uns) ? v : acc;
	case R_PROD: return (int64_t)(a * u);
	case R_L1: return (int64_t)(a + (v < 0 && !uns ? 0 - u : u));
	case R_SUMSQ: return (int64_t)(a + u * u);
	default: return (int64_t)(a + u);
	}
}

static int reduce_int(ox_k *k, const ox_val *x, const red *r, int op, ox_val *y)
{
	int64_t *acc = malloc((size_t)(y->count + 1) * sizeof *acc);
	if (!acc)
		return ox_kfail(k, "out of memory");
	bool uns = x->type == OX_UINT64;
	int64_t init = op == R_MAX ? int_min(x->type) : op == R_MIN ? int_max(x->type) : op == R_PROD;
	for (int64_t i = 0; i < y->count; i++)
		acc[i] = init;
	walk w;
	walk_init(&w, x, r);
	for (int64_t i = 0; i < x->count; i++, walk_next(&w))
		acc[w.at] = ifold(op, acc[w.at], ox_get_i64(x, i), uns);
	for (int64_t i = 0; i < y->count; i++) {
		int64_t v = acc[i];
		if (op == R_MEAN) /* truncated, like numpy's mean in an integer dtype; 0 when empty */
			v = !r->n ? 0 : uns ? (int64_t)((uint64_t)v / (uint64_t)r->n) : v / r->n;
		ox_set_i64(y, i, v);
	}
	free(acc);
	return 0;
}

/* ---- float32 over one run of adjacent axes ------------------------------------------------ */

/* x as outer x n x inner when the reduced axes (at least one) are adjacent. */
static bool adjacent(const ox_val *x, const red *r, int64_t *outer, int64_t *inner)
{
	int a = 0, b;
	while (a < x->rank && !r->axis[a])
		a++;
	for (b = a; b < x->rank && r->axis[b]; b++)
		;
	for (int i = b; i < x->rank; i++)
		if (r->axis[i])
			return false;
	*outer = prod(x->dims, 0, a);
	*inner = prod(x->dims, b, x->rank);
	return a < x->rank;
}

static bool reduce_fast(const ox_val *x, const red *r, int op, ox_val *y)
{
	int64_t outer, inner, n = r->n;
	if (x->type != OX_FLOAT || op > R_MIN || !x->count || !adjacent(x, r, &outer, &inner))
		return false; /* an empty X has no data to point into */
	const ox_nn_vec *v = ox_nn_vec_get();
	const float *xf = x->data;
	float *yf = y->data;
	void (*acc)(float *, const float *, int64_t) = op == R_MAX ? v->acc_max : op == R_MIN ? v->acc_min : v->acc_add;
	for (int64_t o = 0; o < outer; o++) {
		const float *xo = xf + o * n * inner;
		float *yo = yf + o * inner;
		if (inner == 1) {
			*yo = op == R_MAX ? v->max(xo, n) : op == R_MIN ? v->min(xo, n) : v->sum(xo, n);
		} else if (n == 0) {
			for (int64_t i = 0; i < inner; i++)
				yo[i] = (float)fold_init(op);
		} else {
			memcpy(yo, xo, (size_t)inner * sizeof *yo);
			for (int64_t j = 1; j < n; j++)
				acc(yo, xo + j * inner, inner);
		}
		for (int64_t i = 0; op == R_MEAN && i < inner; i++)
			yo[i] /= (float)n;
	}
	return true;
}

/* ---- the Reduce operators ---------------------------------------------------------------- */

static int reduce(ox_k *k, int op, bool axes_input)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y;
	red r;
	if (!x)
		return -1;
	bool isint = ox_elem_is_int(x->type) || (x->type == OX_BOOL && (op == R_MAX || op == R_MIN));
	if (!isint && ox_need_real(k, x, "input data"))
		return -1;
	if (reduce_axes(k, x, axes_input, &r) || !(y = ox_out_tensor(k, 0, x->type, r.orank, r.odims)))
		return -1;
	if (reduce_fast(x, &r, op, y))
		return 0;
	if (isint && op != R_L2 && op != R_LOGSUM && op != R_LOGSUMEXP)
		return reduce_int(k, x, &r, op, y);
	return reduce_double(k, x, &r, op, y);
}

/* Op_1 takes the axes as an attribute, Op_<since> (13 for ReduceSum, 18 for the others) as
 * input 1. */
#define REDUCE_OP(Op, code, since)                          \
	OX_KERNEL(ox_op_##Op##_1, reduce(k, code, false)) \
	OX_KERNEL(ox_op_##Op##_##since, reduce(k, code, true))

REDUCE_OP(ReduceSum, R_SUM, 13)
REDUCE_OP(ReduceMean, R_MEAN, 18)
REDUCE_OP(ReduceMax, R_MAX, 18)
REDUCE_OP(ReduceMin, R_MIN, 18)
REDUCE_OP(ReduceProd, R_PROD, 18)
REDUCE_OP(ReduceL1, R_L1, 18)
REDUCE_OP(ReduceL2, R_L2, 18)
REDUCE_OP(ReduceLogSum, R_LOGSUM, 18)
REDUCE_OP(ReduceLogSumExp, R_LOGSUMEXP, 18)
REDUCE_OP(ReduceSumSquare, R_SUMSQ, 18)

/* ---- ArgMax, ArgMin ------------------------------------------------------------------------ */

/* x viewed as outer x n x inner around axis a. */
static void around(const ox_val *x, int a, int64_t *outer, int64_t *n, int64_t *inner)
{
	*outer = x->count ? prod(x->dims, 0, a) : 0; /* no loop over the dims of an empty X */
	*n = x->rank ? x->dims[a] : 1;
	*inner = prod(x->dims, a + 1, x->rank);
}

/* Whether v replaces the best b so far: better, or as good with select_last_index. A NaN
 * beats any number, as in numpy's argmax and argmin. */
static bool fbetter(double v, double b, bool max, bool last)
{
	if (isnan(b) || isnan(v))
		return isnan(v) && (!isnan(b) || last);
	return (max ? v > b : v < b) || (last && v == b);
}

static bool ibetter(int64_t v, int64_t b, bool max, bool uns, bool last)
{
	return (max ? less(b, v, uns) : less(v, b, uns)) || (last && v == b);
}

static int64_t arg_column(const ox_val *x, const double *xd, int64_t at, int64_t n, int64_t inner, bool max, bool last)
{
	int64_t best = 0;
	bool fl = xd != NULL, uns = x->type == OX_UINT64;
	for (int64_t j = 1; j < n; j++) {
		int64_t i = at + j * inner, b = at + best * inner;
		if (fl ? fbetter(xd[i], xd[b], max, last) : ibetter(ox_get_i64(x, i), ox_get_i64(x, b), max, uns, last))
			best = j;
	}
	return best;
}

static int arg_extreme(ox_k *k, bool max)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y;
	int a;
	if (!x || (!ox_elem_is_int(x->type) && ox_need_real(k, x, "input data")) ||
	    (a = ox_axis(k, ox_attr_int(k, "axis", 0), x->rank)) < 0)
		return -1;
	int64_t outer, n, inner, dims[OX_MAX_RANK];
	around(x, a, &outer, &n, &inner);
	bool keep = ox_attr_int(k, "keepdims", 1) != 0, last = ox_attr_int(k, "select_last_index", 0) != 0;
	int orank = 0;
	for (int i = 0; i < x->rank; i++)
		if (i != a || keep)
			dims[orank++] = i == a ? 1 : x->dims[i];
	if (n == 0 && ox_shape_count(orank, dims) != 0)
		return ox_kfail(k, "axis %d is empty: no index to choose", a);
	if (!(y = ox_out_tensor(k, 0, OX_INT64, orank, dims)))
		return -1;
	double *xd = NULL;
	if (!ox_elem_is_int(x->type) && !(xd = ox_load_f64(k, x, "input")))
		return -1;
	int64_t *yd = y->data;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++)
			yd[o * inner + i] = arg_column(x, xd, o * n * inner + i, n, inner, max, last);
	free(xd);
	return 0;
}

OX_KERNEL(ox_op_ArgMax, arg_extreme(k, true))
OX_KERNEL(ox_op_ArgMin, arg_extreme(k, false))

/* ---- CumSum -------------------------------------------------------------------------------- */

/* One column of n values at stride inner from at: running sums in the given direction, each
 * including its own element or (exclusive) not; integers wrap (xd NULL), floats in double. */
static void cumsum_column(const ox_val *x, const double *xd, ox_val *y, double *yd, int64_t at, int64_t n,
			  int64_t inner, bool excl, bool rev, bool prod)
{
	double fs = prod;
	uint64_t is = prod;
	for (int64_t j = 0; j < n; j++) {
		int64_t i = at + (rev ? n - 1 - j : j) * inner;
		if (!xd) {
			uint64_t v = (uint64_t)ox_get_i64(x, i);
			uint64_t next = prod ? is * v : is + v;
			ox_set_i64(y, i, (int64_t)(excl ? is : next));
			is = next;
		} else {
			double next = prod ? fs * xd[i] : fs + xd[i];
			yd[i] = excl ? fs : next;
			fs = next;
		}
	}
}

/* Running sums (or products) along axis (input 1, a scalar or one-element tensor). */
static int cumulate(ox_k *k, bool prod)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y;
	int64_t ax[1];
	bool isint = x && ox_elem_is_int(x->type);
	if (!x || (!isint && ox_need_real(k, x, "input x")))
		return -1;
	int64_t na = ox_in_ints(k, 1, ax, 1, "input axis");
	if (na != 1)
		return na < 0 ? -1 : ox_kfail(k, "input axis must hold one value");
	int a = ox_axis(k, ax[0], x->rank);
	if (a < 0 || !(y = ox_out_tensor(k, 0, x->type, x->rank, x->dims)))
		return -1;
	bool excl = ox_attr_int(k, "exclusive", 0) != 0, rev = ox_attr_int(k, "reverse", 0) != 0;
	int64_t outer, n, inner;
	around(x, a, &outer, &n, &inner);
	double *xd = isint ? NULL : ox_load_f64(k, x, "input"), *yd = isint || !xd ? NULL : ox_scratch(k, x->count, sizeof(double), "scratch");
	if (!isint && !yd) {
		free(xd);
		return -1;
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++)
			cumsum_column(x, xd, y, yd, o * n * inner + i, n, inner, excl, rev, prod);
	if (!isint)
		ox_store_f64(y, yd);
	free(xd);
	free(yd);
	return 0;
}

OX_KERNEL(ox_op_CumSum, cumulate(k, false))

/* CumProd (opset 26): the same with products, 1 before the first element. */
OX_KERNEL(ox_op_CumProd, cumulate(k, true))

/* ---- TopK ---------------------------------------------------------------------------------- */

typedef struct topk_item {
	double f;    /* float types */
	int64_t i;   /* integers, uint64 with the sign bit flipped so that it orders as int64 */
	int64_t idx; /* position along the axis */
} topk_item;

/* Largest first (NaN before everything, as the greatest), equal values by lower index. */
static int by_f_desc(const void *pa, const void *pb)
{
	const topk_item *a = pa, *b = pb;
	if (isnan(a->f) != isnan(b->f))
		return isnan(a->f) ? -1 : 1;
	if (!isnan(a->f) && a->f != b->f)
		return a->f > b->f ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Smallest first (NaN last), equal values by lower index. */
static int by_f_asc(const void *pa, const void *pb)
{
	const topk_item *a = pa, *b = pb;
	if (isnan(a->f) != isnan(b->f))
		return isnan(a->f) ? 1 : -1;
	if (!isnan(a->f) && a->f != b->f)
		return a->f < b->f ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int by_i_desc(const void *pa, const void *pb)
{
	const topk_item *a = pa, *b = pb;
	if (a->i != b->i)
		return a->i > b->i ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int by_i_asc(const void *pa, const void *pb)
{
	const topk_item *a = pa, *b = pb;
	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* K: attribute k at version 1, a one-element int64 input since 10 (k_input). */
static int topk_k(ox_k *k, bool k_input, int64_t *kk)
{
	if (!k_input) {
		*kk = ox_attr_int(k, "k", -1);
		return *kk < 0 ? ox_kfail(k, "attribute 'k' is required and must not be negative") : 0;
	}
	int64_t n = ox_in_ints(k, 1, kk, 1, "input K");
	if (n != 1)
		return n < 0 ? -1 : ox_kfail(k, "input K must hold one value");
	return *kk < 0 ? ox_kfail(k, "K is %lld; it must not be negative", (long long)*kk) : 0;
}

/* Sorts one slice (n items from at, step inner) and writes the first K of it. */
static void topk_slice(const ox_val *x, const double *xd, topk_item *it, int64_t at, int64_t n, int64_t inner,
		       int64_t kk, bool largest, ox_val *vals, ox_val *ind, int64_t oat)
{
	bool fl = xd != NULL;
	for (int64_t j = 0; j < n; j++) {
		int64_t src = at + j * inner;
		it[j] = (topk_item){fl ? xd[src] : 0, 0, j};
		if (!fl)
			it[j].i = ox_get_i64(x, src) ^ (x->type == OX_UINT64 ? INT64_MIN : 0);
	}
	qsort(it, (size_t)n, sizeof *it, fl ? (largest ? by_f_desc : by_f_asc) : (largest ? by_i_desc : by_i_asc));
	size_t es = ox_elem_size(x->type);
	for (int64_t j = 0; j < kk; j++) {
		int64_t dst = oat + j * inner;
		memcpy((char *)vals->data + (size_t)dst * es, (const char *)x->data + (size_t)(at + it[j].idx * inner) * es, es);
		((int64_t *)ind->data)[dst] = it[j].idx;
	}
}

/* The K largest (or smallest) along axis, sorted, equal values by lower index (the order
 * sorted = 0 leaves open is the sorted one too). */
static int topk(ox_k *k, bool k_input)
{
	ox_val *x = ox_in_tensor(k, 0, true), *vals, *ind;
	int64_t kk, outer, n, inner, dims[OX_MAX_RANK];
	int a;
	if (!x || (!ox_elem_is_int(x->type) && ox_need_real(k, x, "input X")) || topk_k(k, k_input, &kk) ||
	    (a = ox_axis(k, ox_attr_int(k, "axis", -1), x->rank)) < 0)
		return -1;
	around(x, a, &outer, &n, &inner);
	if (kk > n)
		return ox_kfail(k, "K is %lld, more than the %lld elements along axis %d", (long long)kk, (long long)n, a);
	memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
	dims[a] = kk;
	if (!(vals = ox_out_tensor(k, 0, x->type, x->rank, dims)) || !(ind = ox_out_tensor(k, 1, OX_INT64, x->rank, dims)))
		return -1;
	bool largest = ox_attr_int(k, "largest", 1) != 0; /* from version 11: the session refuses it before */
	double *xd = NULL;
	topk_item *it = malloc((size_t)(n + 1) * sizeof *it);
	if (!it)
		return ox_kfail(k, "out of memory");
	if (!ox_elem_is_int(x->type) && !(xd = ox_load_f64(k, x, "input"))) {
		free(it);
		return -1;
	}
	for (int64_t o = 0; o < outer && kk; o++)
		for (int64_t i = 0; i < inner; i++)
			topk_slice(x, xd, it, o * n * inner + i, n, inner, kk, largest, vals, ind, o * kk * inner + i);
	free(it);
	free(xd);
	return 0;
}

OX_KERNEL(ox_op_TopK_1, topk(k, false))
OX_KERNEL(ox_op_TopK_10, topk(k, true))
