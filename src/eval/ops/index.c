/* Index manipulation: Gather, GatherElements, GatherND, Scatter, ScatterElements,
 * ScatterND, TensorScatter, NonZero, Compress, OneHot and ReverseSequence. Indices may be negative
 * (counting from the end) and are checked against their dim before any data moves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/move.h"

/* Element i of an int32 or int64 tensor. */
static int64_t index_at(const ox_val *t, int64_t i)
{
	return t->type == OX_INT64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
}

static int index_input(ox_k *k, int i, ox_val **t)
{
	*t = ox_in_tensor(k, i, true);
	if (!*t)
		return -1;
	if ((*t)->type != OX_INT64 && (*t)->type != OX_INT32)
		return ox_kfail(k, "input %d (indices) must be int32 or int64, not %s", i, ox_elem_label((*t)->type));
	return 0;
}

/* An index normalized against dim, or -1 after failing when out of range. */
static int64_t norm_index(ox_k *k, int64_t v, int64_t dim, int axis)
{
	int64_t i = v < 0 ? v + dim : v;
	if (i < 0 || i >= dim)
		return ox_kfail(k, "index %lld is out of range for axis %d of dim %lld", (long long)v, axis,
				(long long)dim);
	return i;
}

/* Copies n elements of size es from src at the element offsets off[] to dst. */
static void gather_elems(char *dst, const char *src, const int64_t *off, int64_t n, size_t es)
{
#define G(T)                                                                  \
	for (int64_t i = 0; i < n; i++)                                       \
		memcpy((T *)(void *)dst + i, (const T *)(const void *)src + off[i], sizeof(T)); \
	break
	switch (es) {
	case 1: G(uint8_t);
	case 2: G(uint16_t);
	case 4: G(uint32_t);
	case 8: G(uint64_t);
	default:
		for (int64_t i = 0; i < n; i++)
			memcpy(dst + (size_t)i * es, src + off[i] * (int64_t)es, es);
	}
#undef G
}

/* ---- Gather ---------------------------------------------------------------------- */

int ox_op_Gather(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *ind;
	if (!x || index_input(k, 1, &ind) < 0)
		return -1;
	int axis = ox_axis_attr(k, x, "gather from");
	if (axis < 0)
		return -1;
	int r = x->rank - 1 + ind->rank;
	if (r > OX_MAX_RANK)
		return ox_kfail(k, "the output's rank %d exceeds the limit of %d", r, OX_MAX_RANK);
	int64_t dims[OX_MAX_RANK];
	memcpy(dims, x->dims, (size_t)axis * sizeof *dims);
	memcpy(dims + axis, ind->dims, (size_t)ind->rank * sizeof *dims);
	memcpy(dims + axis + ind->rank, x->dims + axis + 1, (size_t)(x->rank - axis - 1) * sizeof *dims);
	int64_t n = x->dims[axis], inner = ox_shape_count(x->rank - axis - 1, x->dims + axis + 1);
	for (int64_t j = 0; j < ind->count; j++)
		if (norm_index(k, index_at(ind, j), n, axis) < 0)
			return -1;
	ox_val *y = ox_out_tensor(k, 0, x->type, r, dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	size_t es = ox_elem_size(x->type);
	int64_t outer = ox_shape_count(axis, x->dims), blk = inner * (int64_t)es;
	char *o = y->data;
	for (int64_t a = 0; a < outer; a++)
		for (int64_t j = 0; j < ind->count; j++, o += blk) {
			int64_t i = index_at(ind, j);
			memcpy(o, (const char *)x->data + (a * n + (i < 0 ? i + n : i)) * blk, (size_t)blk);
		}
	return ox_out_own(k, y);
}

/* The element offsets into data of GatherElements / ScatterElements: each element of
 * indices names the position along axis; its own position gives the other coordinates.
 * Returns a malloc'd array of ind->count offsets, or NULL after failing. */
static int64_t *element_offsets(ox_k *k, const ox_val *x, const ox_val *ind, int axis)
{
	if (ind->rank != x->rank)
		return ox_kfail(k, "indices have rank %d, but data has rank %d", ind->rank, x->rank), NULL;
	for (int d = 0; d < x->rank; d++)
		if (d != axis && ind->dims[d] > x->dims[d])
			return ox_kfail(k, "indices have dim %lld on axis %d, more than data's %lld", (long long)ind->dims[d],
					d, (long long)x->dims[d]), NULL;
	int64_t *off = malloc((size_t)(ind->count ? ind->count : 1) * sizeof *off);
	if (!off)
		return ox_kfail(k, "out of memory"), NULL;
	int64_t ds[OX_MAX_RANK], idx[OX_MAX_RANK] = {0}, base = 0;
	ox_strides(x->rank, x->dims, ds);
	for (int64_t i = 0; i < ind->count; i++) {
		int64_t v = norm_index(k, index_at(ind, i), x->dims[axis], axis);
		if (v < 0) {
			free(off);
			return NULL;
		}
		off[i] = base + v * ds[axis];
		for (int d = x->rank - 1; d >= 0; d--) {
			int64_t s = d == axis ? 0 : ds[d];
			base += s;
			if (++idx[d] < ind->dims[d])
				break;
			base -= s * ind->dims[d];
			idx[d] = 0;
		}
	}
	return off;
}

int ox_op_GatherElements(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *ind;
	if (!x || index_input(k, 1, &ind) < 0)
		return -1;
	int axis = ox_axis_attr(k, x, "gather from");
	int64_t *off = axis < 0 ? NULL : element_offsets(k, x, ind, axis);
	if (!off)
		return -1;
	ox_val *y = ox_out_tensor(k, 0, x->type, ind->rank, ind->dims);
	if (y)
		gather_elems(y->data, x->data, off, y->count, ox_elem_size(x->type));
	free(off);
	return y ? ox_out_own(k, y) : -1;
}

/* ---- GatherND and ScatterND ------------------------------------------------------ */

/* The geometry of GatherND / ScatterND: batch_dims b, index tuples of m coordinates
 * into data's dims b..b+m, each naming a slice of `slice` elements. */
typedef struct nd_plan {
	int b, m;
	int64_t batches, tuples, slice, batch_size;
} nd_plan;

static int nd_plan_make(ox_k *k, const ox_val *x, const ox_val *ind, int b, nd_plan *p)
{
	if (ind->rank < 1)
		return ox_kfail(k, "indices must have rank >= 1");
	if (b < 0 || b >= ind->rank || b >= x->rank)
		return ox_kfail(k, "batch_dims %d must be less than the ranks of data (%d) and indices (%d)", b, x->rank,
				ind->rank);
	p->b = b;
	p->m = (int)ind->dims[ind->rank - 1];
	if (ind->dims[ind->rank - 1] > x->rank - b)
		return ox_kfail(k, "index tuples have %lld coordinates, more than data's rank %d less batch_dims %d",
				(long long)ind->dims[ind->rank - 1], x->rank, b);
	for (int d = 0; d < b; d++)
		if (ind->dims[d] != x->dims[d])
			return ox_kfail(k, "batch dim %d is %lld in indices but %lld in data", d, (long long)ind->dims[d],
					(long long)x->dims[d]);
	p->batches = ox_shape_count(b, x->dims);
	p->tuples = ox_shape_count(ind->rank - 1 - b, ind->dims + b);
	p->slice = ox_shape_count(x->rank - b - p->m, x->dims + b + p->m);
	p->batch_size = ox_shape_count(x->rank - b, x->dims + b);
	return 0;
}

/* Element offsets (within the batch) of the slice each tuple names; NULL after failing. */
static int64_t *nd_offsets(ox_k *k, const ox_val *x, const ox_val *ind, const nd_plan *p)
{
	int64_t n = p->batches * p->tuples, ds[OX_MAX_RANK];
	int64_t *off = malloc((size_t)(n ? n : 1) * sizeof *off);
	if (!off)
		return ox_kfail(k, "out of memory"), NULL;
	ox_strides(x->rank, x->dims, ds);
	for (int64_t t = 0; t < n; t++) {
		off[t] = 0;
		for (int j = 0; j < p->m; j++) {
			int a = p->b + j;
			int64_t v = norm_index(k, index_at(ind, t * p->m + j), x->dims[a], a);
			if (v < 0) {
				free(off);
				return NULL;
			}
			off[t] += v * ds[a];
		}
	}
	return off;
}

int ox_op_GatherND(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *ind;
	nd_plan p;
	if (!x || index_input(k, 1, &ind) < 0)
		return -1;
	int b = (int)ox_attr_int(k, "batch_dims", 0); /* from version 12: the session refuses it before */
	if (nd_plan_make(k, x, ind, b, &p) < 0)
		return -1;
	int64_t dims[2 * OX_MAX_RANK];
	int r = ind->rank - 1 + x->rank - b - p.m;
	if (r > OX_MAX_RANK)
		return ox_kfail(k, "the output's rank %d exceeds the limit of %d", r, OX_MAX_RANK);
	memcpy(dims, ind->dims, (size_t)(ind->rank - 1) * sizeof *dims);
	memcpy(dims + ind->rank - 1, x->dims + b + p.m, (size_t)(x->rank - b - p.m) * sizeof *dims);
	int64_t *off = nd_offsets(k, x, ind, &p);
	if (!off)
		return -1;
	ox_val *y = ox_out_tensor(k, 0, x->type, r, dims);
	if (y && y->count) {
		size_t es = ox_elem_size(x->type);
		char *o = y->data;
		for (int64_t t = 0; t < p.batches * p.tuples; t++, o += p.slice * (int64_t)es)
			ox_copy_elems(o, (const char *)x->data + (t / p.tuples * p.batch_size + off[t]) * (int64_t)es, es,
				      p.slice);
	}
	free(off);
	return y ? ox_out_own(k, y) : -1;
}

/* ---- scatter reductions ---------------------------------------------------------- */

enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN }; /* -1 is a failure */

/* The reduction attribute (from version 16; the session refuses it before); max and min
 * from version 18. */
static int reduction(ox_k *k, int type, bool minmax)
{
	if (!ox_attr(k, "reduction") || ox_attr_str_is(k, "reduction", "none", "none"))
		return RED_NONE;
	static const char *const names[] = {"none", "add", "mul", "max", "min"};
	int n = minmax ? 5 : 3;
	for (int i = 1; i < n; i++)
		if (ox_attr_str_is(k, "reduction", "none", names[i])) {
			if (type == OX_STRING || type == OX_COMPLEX64 || type == OX_COMPLEX128)
				return ox_kfail(k, "reduction '%s' does not apply to %s", names[i], ox_elem_label(type));
			return i;
		}
	return ox_kfail(k, "reduction must be none, add, mul%s", minmax ? ", max or min" : "");
}

static double red_f(int red, double a, double b)
{
	if (red == RED_ADD)
		return a + b;
	if (red == RED_MUL)
		return a * b;
	if (isnan(a) || isnan(b))
		return NAN;
	return (red == RED_MAX) == (a > b) ? a : b;
}

static int64_t red_i(int red, int64_t a, int64_t b)
{
	if (red == RED_ADD)
		return (int64_t)((uint64_t)a + (uint64_t)b);
	if (red == RED_MUL)
		return (int64_t)((uint64_t)a * (uint64_t)b);
	return (red == RED_MAX) == (a > b) ? a : b;
}

/* y[i] = red(y[i], u[j]), computed in the element type for float and the integers and in
 * float for the narrow floats (which round back each time, as their arithmetic would). */
static void reduce_at(ox_val *y, int64_t i, const ox_val *u, int64_t j, int red)
{
	switch (y->type) {
	case OX_FLOAT: {
		float *a = &((float *)y->data)[i], b = ((const float *)u->data)[j];
		*a = red == RED_ADD ? *a + b : red == RED_MUL ? *a * b : (float)red_f(red, *a, b);
		break;
	}
	case OX_UINT64: {
		uint64_t *a = &((uint64_t *)y->data)[i], b = ((const uint64_t *)u->data)[j];
		*a = red == RED_ADD ? *a + b : red == RED_MUL ? *a * b : (red == RED_MAX) == (*a > b) ? *a : b;
		break;
	}
	default:
		if (ox_elem_is_int(y->type) || y->type == OX_BOOL)
			ox_set_i64(y, i, red_i(red, ox_get_i64(y, i), ox_get_i64(u, j)));
		else
			ox_set_f64(y, i, red_f(red, ox_get_f64(y, i), ox_get_f64(u, j)));
	}
}

/* y[off[j] + t] op= u[j * n + t] for t < n: a plain store, or a reduction. */
static int scatter_run(ox_k *k, ox_val *y, const ox_val *u, const int64_t *off, int64_t nidx, int64_t n, int red)
{
	size_t es = ox_elem_size(y->type);
	for (int64_t j = 0; j < nidx; j++)
		for (int64_t t = 0; t < n; t++) {
			int64_t a = off[j] + t, b = j * n + t;
			if (red != RED_NONE)
				reduce_at(y, a, u, b, red);
			else if (y->type != OX_STRING)
				memcpy((char *)y->data + a * (int64_t)es, (const char *)u->data + b * (int64_t)es, es);
			else if (!ox_str_set(&((ox_str *)y->data)[a], ((const ox_str *)u->data)[b].p,
					     ((const ox_str *)u->data)[b].n))
				return ox_kfail(k, "out of memory");
		}
	return 0;
}

/* The output of a scatter: a deep copy of data. */
static ox_val *scatter_out(ox_k *k, ox_val *x, const ox_val *u)
{
	if (u->type != x->type)
		return ox_kfail(k, "updates are %s, but data is %s", ox_elem_label(u->type), ox_elem_label(x->type)), NULL;
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, x->dims);
	if (y && !ox_tensor_copy_data(y, x))
		return ox_kfail(k, "out of memory"), NULL;
	return y;
}

static bool same_shape(const ox_val *a, const ox_val *b)
{
	return a->rank == b->rank && !memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims);
}

static int scatter_elements(ox_k *k, bool minmax)
{
	ox_val *x = ox_in_tensor(k, 0, true), *ind, *u = ox_in_tensor(k, 2, true);
	if (!x || index_input(k, 1, &ind) < 0 || !u)
		return -1;
	if (!same_shape(ind, u))
		return ox_kfail(k, "updates must have the shape of indices");
	int axis = ox_axis_attr(k, x, "scatter into"), red = axis < 0 ? -1 : reduction(k, x->type, minmax);
	if (red < 0 || axis < 0)
		return -1;
	int64_t *off = element_offsets(k, x, ind, axis);
	ox_val *y = off ? scatter_out(k, x, u) : NULL;
	int rc = y ? scatter_run(k, y, u, off, ind->count, 1, red) : -1;
	free(off);
	return rc;
}

OX_KERNEL(ox_op_ScatterElements_11, scatter_elements(k, false))
OX_KERNEL(ox_op_ScatterElements_18, scatter_elements(k, true))

/* Scatter (opset 9, deprecated at 11) is ScatterElements without reduction. */
int ox_op_Scatter(ox_k *k)
{
	return scatter_elements(k, false);
}

static int scatter_nd(ox_k *k, bool minmax)
{
	ox_val *x = ox_in_tensor(k, 0, true), *ind, *u = ox_in_tensor(k, 2, true);
	nd_plan p;
	if (!x || index_input(k, 1, &ind) < 0 || !u || nd_plan_make(k, x, ind, 0, &p) < 0)
		return -1;
	int red = reduction(k, x->type, minmax);
	if (red < 0)
		return -1;
	/* updates: indices.shape[:-1] + data.shape[m:] */
	bool ok = u->rank == ind->rank - 1 + x->rank - p.m;
	for (int d = 0; ok && d < u->rank; d++)
		ok = u->dims[d] == (d < ind->rank - 1 ? ind->dims[d] : x->dims[d - (ind->rank - 1) + p.m]);
	if (!ok)
		return ox_kfail(k, "updates must have the shape indices.shape[:-1] + data.shape[%d:]", p.m);
	int64_t *off = nd_offsets(k, x, ind, &p);
	ox_val *y = off ? scatter_out(k, x, u) : NULL;
	int rc = y ? scatter_run(k, y, u, off, p.tuples, p.slice, red) : -1;
	free(off);
	return rc;
}

OX_KERNEL(ox_op_ScatterND_11, scatter_nd(k, false))
OX_KERNEL(ox_op_ScatterND_18, scatter_nd(k, true))

/* ---- NonZero and Compress -------------------------------------------------------- */

static bool nonzero_at(const ox_val *x, int64_t i)
{
	const void *d = x->data;
	switch (x->type) {
	case OX_STRING: return ((const ox_str *)d)[i].n != 0;
	case OX_FLOAT: return ((const float *)d)[i] != 0;
	case OX_DOUBLE: return ((const double *)d)[i] != 0;
	case OX_FLOAT16: case OX_BFLOAT16: return (((const uint16_t *)d)[i] & 0x7fff) != 0;
	case OX_COMPLEX64: return ((const float *)d)[2 * i] != 0 || ((const float *)d)[2 * i + 1] != 0;
	case OX_COMPLEX128: return ((const double *)d)[2 * i] != 0 || ((const double *)d)[2 * i + 1] != 0;
	default:
		if (ox_elem_is_float(x->type))
			return ox_get_f64(x, i) != 0;
		for (size_t b = 0; b < ox_elem_size(x->type); b++)
			if (((const uint8_t *)d)[(size_t)i * ox_elem_size(x->type) + b])
				return true;
		return false;
	}
}

int ox_op_NonZero(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	int64_t nnz = 0;
	for (int64_t i = 0; i < x->count; i++)
		nnz += nonzero_at(x, i);
	/* a scalar is taken as a one-element vector, as numpy and onnxruntime do */
	int r = x->rank ? x->rank : 1;
	int64_t dims[2] = {r, nnz}, idx[OX_MAX_RANK] = {0};
	ox_val *y = ox_out_tensor(k, 0, OX_INT64, 2, dims);
	if (!y)
		return -1;
	int64_t *o = y->data, j = 0;
	for (int64_t i = 0; i < x->count; i++) {
		if (nonzero_at(x, i)) {
			for (int d = 0; d < r; d++)
				o[d * nnz + j] = idx[d];
			j++;
		}
		for (int d = x->rank - 1; d >= 0 && ++idx[d] == x->dims[d]; d--)
			idx[d] = 0;
	}
	return 0;
}

int ox_op_Compress(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *c = ox_in_tensor(k, 1, true);
	if (!x || !c)
		return -1;
	if (c->type != OX_BOOL || c->rank != 1)
		return ox_kfail(k, "condition must be a 1-D bool tensor");
	bool flat = !ox_attr(k, "axis");
	int axis = flat ? 0 : ox_axis(k, ox_attr_int(k, "axis", 0), x->rank);
	if (axis < 0)
		return -1;
	if (!flat && x->rank == 0)
		return ox_kfail(k, "axis is given, but the input is a scalar");
	int64_t dims[OX_MAX_RANK], n = flat ? x->count : x->dims[axis], sel = 0;
	const uint8_t *cv = c->data;
	for (int64_t i = 0; i < c->count; i++)
		if (cv[i] && i >= n)
			return ox_kfail(k, "condition selects index %lld, beyond the %lld along the axis", (long long)i,
					(long long)n);
		else
			sel += cv[i] != 0;
	memcpy(dims, x->dims, sizeof dims);
	dims[axis] = sel;
	ox_val *y = ox_out_tensor(k, 0, x->type, flat ? 1 : x->rank, flat ? &sel : dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	size_t es = ox_elem_size(x->type);
	int64_t outer = flat ? 1 : ox_shape_count(axis, x->dims);
	int64_t blk = (flat ? 1 : ox_shape_count(x->rank - axis - 1, x->dims + axis + 1)) * (int64_t)es;
	char *o = y->data;
	for (int64_t a = 0; a < outer; a++)
		for (int64_t i = 0; i < c->count && i < n; i++)
			if (cv[i]) {
				memcpy(o, (const char *)x->data + (a * n + i) * blk, (size_t)blk);
				o += blk;
			}
	return ox_out_own(k, y);
}

/* ---- OneHot ---------------------------------------------------------------------- */

static int onehot_args(ox_k *k, ox_val **ind, int64_t *depth, ox_val **vals)
{
	ox_val *d = ox_in_tensor(k, 1, true);
	*ind = ox_in_tensor(k, 0, true);
	*vals = ox_in_tensor(k, 2, true);
	if (!*ind || !d || !*vals)
		return -1;
	if (d->count != 1)
		return ox_kfail(k, "depth must hold one value");
	if ((*vals)->count != 2 || (*vals)->rank != 1)
		return ox_kfail(k, "values must be [off_value, on_value]");
	if ((*ind)->type == OX_STRING || d->type == OX_STRING)
		return ox_kfail(k, "indices and depth must be numbers");
	double dv = ox_get_f64(d, 0);
	if (!(dv >= 1) || dv > (double)OX_MAX_ELEMENTS)
		return ox_kfail(k, "depth must be at least 1 and within the limits, not %g", dv);
	*depth = (int64_t)dv;
	return 0;
}

/* Negative indices count from the end from version 11 (negative). */
static int one_hot(ox_k *k, bool negative)
{
	ox_val *ind, *vals;
	int64_t depth = 0, dims[OX_MAX_RANK];
	if (onehot_args(k, &ind, &depth, &vals) < 0)
		return -1;
	int r = ind->rank + 1;
	if (r > OX_MAX_RANK)
		return ox_kfail(k, "the output's rank %d exceeds the limit of %d", r, OX_MAX_RANK);
	int axis = ox_axis(k, ox_attr_int(k, "axis", -1), r);
	if (axis < 0)
		return -1;
	for (int i = 0, j = 0; i < r; i++)
		dims[i] = i == axis ? depth : ind->dims[j++];
	ox_val *y = ox_out_tensor(k, 0, vals->type, r, dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	size_t es = ox_elem_size(vals->type);
	const char *off = vals->data, *on = off + es;
	char *o = y->data;
	for (int64_t i = 0; i < y->count; i++)
		memcpy(o + i * (int64_t)es, off, es);
	int64_t inner = ox_shape_count(r - axis - 1, dims + axis + 1);
	for (int64_t i = 0; i < ind->count; i++) {
		double v = trunc(ox_get_f64(ind, i));
		if (v < 0 && negative)
			v += (double)depth;
		if (!(v >= 0 && v < (double)depth))
			continue; /* out of range: all off */
		int64_t a = i / inner, b = i % inner;
		memcpy(o + ((a * depth + (int64_t)v) * inner + b) * (int64_t)es, on, es);
	}
	return ox_out_own(k, y);
}

OX_KERNEL(ox_op_OneHot_9, one_hot(k, false))
OX_KERNEL(ox_op_OneHot_11, one_hot(k, true))

/* ---- ReverseSequence ------------------------------------------------------------- */

int ox_op_ReverseSequence(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *lens;
	if (!x || index_input(k, 1, &lens) < 0)
		return -1;
	int64_t ta = ox_attr_int(k, "time_axis", 0), ba = ox_attr_int(k, "batch_axis", 1);
	if (x->rank < 2)
		return ox_kfail(k, "input must have rank >= 2, not %d", x->rank);
	if (!((ta == 0 && ba == 1) || (ta == 1 && ba == 0)))
		return ox_kfail(k, "time_axis and batch_axis must be 0 and 1 in some order (%lld, %lld)", (long long)ta,
				(long long)ba);
	int64_t nt = x->dims[ta], nb = x->dims[ba], str[OX_MAX_RANK];
	if (lens->rank != 1 || lens->count != nb)
		return ox_kfail(k, "sequence_lens must be 1-D with one length per batch (%lld)", (long long)nb);
	for (int64_t b = 0; b < nb; b++)
		if (index_at(lens, b) < 0 || index_at(lens, b) > nt)
			return ox_kfail(k, "sequence_lens[%lld] is %lld, outside 0..%lld", (long long)b,
					(long long)index_at(lens, b), (long long)nt);
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, x->dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	size_t es = ox_elem_size(x->type);
	ox_strides(x->rank, x->dims, str);
	int64_t blk = str[1] * (int64_t)es; /* the trailing dims move as one block */
	for (int64_t b = 0; b < nb; b++)
		for (int64_t t = 0, n = index_at(lens, b); t < nt; t++) {
			int64_t from = t < n ? n - 1 - t : t;
			memcpy((char *)y->data + (b * str[ba] + t * str[ta]) * (int64_t)es,
			       (const char *)x->data + (b * str[ba] + from * str[ta]) * (int64_t)es, (size_t)blk);
		}
	return ox_out_own(k, y);
}

/* ---- TensorScatter ----------------------------------------------------------------- */

/* Copies element run [from, from + n) of src to [to, to + n) of dst (any element type). */
static int copy_run(ox_k *k, ox_val *dst, int64_t to, const ox_val *src, int64_t from, int64_t n)
{
	if (dst->type != OX_STRING) {
		size_t es = ox_elem_size(dst->type);
		memcpy((char *)dst->data + (size_t)to * es, (const char *)src->data + (size_t)from * es, (size_t)n * es);
		return 0;
	}
	for (int64_t i = 0; i < n; i++) {
		const ox_str *s = &((const ox_str *)src->data)[from + i];
		if (!ox_str_set(&((ox_str *)dst->data)[to + i], s->p, s->n))
			return ox_kfail(k, "out of memory");
	}
	return 0;
}

static int scatter_check(ox_k *k, const ox_val *cache, const ox_val *upd, const ox_val *wi, int axis)
{
	if (upd->type != cache->type || upd->rank != cache->rank)
		return ox_kfail(k, "update must have past_cache's type and rank");
	for (int i = 0; i < cache->rank; i++)
		if (i == axis ? upd->dims[i] > cache->dims[i] : upd->dims[i] != cache->dims[i])
			return ox_kfail(k, "update's dimension %d (%lld) does not fit past_cache's (%lld)", i,
					(long long)upd->dims[i], (long long)cache->dims[i]);
	if (wi && (wi->type != OX_INT64 || wi->rank != 1 || wi->dims[0] != cache->dims[0]))
		return ox_kfail(k, "write_indices must be an int64 vector of one index per batch");
	return 0;
}

int ox_op_TensorScatter(ox_k *k)
{
	ox_val *cache = ox_in_tensor(k, 0, true), *upd = ox_in_tensor(k, 1, true), *wi = ox_in_tensor(k, 2, false);
	if (!cache || !upd || (!wi && ox_in(k, 2)))
		return -1;
	int axis = ox_axis(k, ox_attr_int(k, "axis", -2), cache->rank);
	bool circular = ox_attr_str_is(k, "mode", "linear", "circular");
	if (axis < 0 || scatter_check(k, cache, upd, wi, axis) < 0)
		return -1;
	if (axis == 0)
		return ox_kfail(k, "axis must not be the batch axis 0");
	if (!circular && !ox_attr_str_is(k, "mode", "linear", "linear"))
		return ox_kfail(k, "mode must be linear or circular");
	ox_val *y = ox_out_tensor(k, 0, cache->type, cache->rank, cache->dims);
	if (!y || !ox_tensor_copy_data(y, cache))
		return y ? ox_kfail(k, "out of memory") : -1;
	int64_t outer = 1, inner = 1, max = cache->dims[axis], len = upd->dims[axis];
	for (int i = 0; i < axis; i++)
		outer *= cache->dims[i];
	for (int i = axis + 1; i < cache->rank; i++)
		inner *= cache->dims[i];
	int64_t per_batch = cache->dims[0] ? outer / cache->dims[0] : 0;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t s = 0; s < len; s++) {
			int64_t at = (wi ? ((const int64_t *)wi->data)[o / per_batch] : 0) + s;
			at = circular && max ? ((at % max) + max) % max : at;
			if (at < 0 || at >= max)
				return ox_kfail(k, "write index %lld is outside the cache's %lld positions", (long long)at,
						(long long)max);
			if (copy_run(k, y, (o * max + at) * inner, upd, (o * len + s) * inner, inner) < 0)
				return -1;
		}
	return 0;
}
