/* Unique: the distinct elements (or slices along an axis) of a tensor, sorted or in order
 * of first occurrence, with their first indices, the inverse mapping and the counts. The
 * order is numpy's: numbers ascending with NaN last (all NaNs one value), strings by
 * bytes, slices lexicographically in row-major order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/move.h"

/* The slices being compared: slice i is elements (o * n + i) * inner + t. */
typedef struct uq {
	const ox_val *x;
	int64_t outer, n, inner;
} uq;

static int cmp_f64(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

static int cmp_elem(const ox_val *x, int64_t i, int64_t j)
{
	const void *d = x->data;
	switch (x->type) {
	case OX_STRING: {
		const ox_str *a = &((const ox_str *)d)[i], *b = &((const ox_str *)d)[j];
		int c = memcmp(a->p ? a->p : "", b->p ? b->p : "", a->n < b->n ? a->n : b->n);
		return c ? (c > 0) - (c < 0) : (a->n > b->n) - (a->n < b->n);
	}
	case OX_UINT64: {
		uint64_t a = ((const uint64_t *)d)[i], b = ((const uint64_t *)d)[j];
		return (a > b) - (a < b);
	}
	case OX_COMPLEX64: case OX_COMPLEX128: {
		int c = cmp_f64(ox_get_f64(x, i), ox_get_f64(x, j));
		if (c)
			return c;
		return x->type == OX_COMPLEX64 ? cmp_f64(((const float *)d)[2 * i + 1], ((const float *)d)[2 * j + 1])
					       : cmp_f64(((const double *)d)[2 * i + 1], ((const double *)d)[2 * j + 1]);
	}
	default:
		if (ox_elem_is_float(x->type))
			return cmp_f64(ox_get_f64(x, i), ox_get_f64(x, j));
		int64_t a = ox_get_i64(x, i), b = ox_get_i64(x, j);
		return (a > b) - (a < b);
	}
}

static int cmp_slice(const uq *q, int64_t i, int64_t j)
{
	for (int64_t o = 0; o < q->outer; o++)
		for (int64_t t = 0; t < q->inner; t++) {
			int c = cmp_elem(q->x, (o * q->n + i) * q->inner + t, (o * q->n + j) * q->inner + t);
			if (c)
				return c;
		}
	return 0;
}

/* Stable bottom-up merge sort of the slice numbers in v (tmp as scratch): equal slices
 * keep their order, so each group of equals starts with its first occurrence. */
static void sort_slices(const uq *q, int64_t *v, int64_t *tmp, int64_t n)
{
	for (int64_t w = 1; w < n; w *= 2) {
		for (int64_t lo = 0; lo < n; lo += 2 * w) {
			int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			int64_t a = lo, b = mid, o = lo;
			while (a < mid && b < hi)
				tmp[o++] = cmp_slice(q, v[b], v[a]) < 0 ? v[b++] : v[a++];
			while (a < mid)
				tmp[o++] = v[a++];
			while (b < hi)
				tmp[o++] = v[b++];
		}
		memcpy(v, tmp, (size_t)n * sizeof *v);
	}
}

/* The groups: first[g] (slice number of the group's first occurrence), counts[g], and
 * inverse[i] (group of slice i). Returns the number of groups. */
static int64_t group(const uq *q, const int64_t *order, int64_t *first, int64_t *counts, int64_t *inverse)
{
	int64_t u = 0;
	for (int64_t i = 0; i < q->n; i++) {
		if (i == 0 || cmp_slice(q, order[i - 1], order[i]) != 0) {
			first[u] = order[i];
			counts[u++] = 0;
		}
		counts[u - 1]++;
		inverse[order[i]] = u - 1;
	}
	return u;
}

/* sorted=0: the groups in order of first occurrence. first[] are distinct slice numbers,
 * so a scan over the slices puts the groups in that order in linear time. tmp holds
 * n + 3u entries. */
static void by_occurrence(int64_t u, int64_t n, int64_t *first, int64_t *counts, int64_t *inverse, int64_t *tmp)
{
	int64_t *at = tmp, *f2 = tmp + n, *c2 = f2 + u, *newpos = c2 + u, g = 0;
	for (int64_t i = 0; i < n; i++)
		at[i] = -1;
	for (int64_t h = 0; h < u; h++)
		at[first[h]] = h;
	for (int64_t i = 0; i < n; i++)
		if (at[i] >= 0) {
			f2[g] = first[at[i]];
			c2[g] = counts[at[i]];
			newpos[at[i]] = g++;
		}
	for (int64_t i = 0; i < n; i++)
		inverse[i] = newpos[inverse[i]];
	memcpy(first, f2, (size_t)u * sizeof *first);
	memcpy(counts, c2, (size_t)u * sizeof *counts);
}

static int unique_outputs(ox_k *k, const uq *q, int axis, int64_t u, const int64_t *first, const int64_t *counts,
			  const int64_t *inverse)
{
	const ox_val *x = q->x;
	int64_t dims[OX_MAX_RANK];
	memcpy(dims, x->dims, sizeof dims);
	dims[axis < 0 ? 0 : axis] = u;
	ox_val *y = ox_out_tensor(k, 0, x->type, axis < 0 ? 1 : x->rank, dims);
	if (!y)
		return -1;
	size_t es = ox_elem_size(x->type);
	char *o = y->data;
	for (int64_t a = 0; a < q->outer; a++)
		for (int64_t g = 0; g < u; g++, o += q->inner * (int64_t)es)
			ox_copy_elems(o, (const char *)x->data + (a * q->n + first[g]) * q->inner * (int64_t)es, es, q->inner);
	if (ox_out_own(k, y) < 0)
		return -1;
	const int64_t *src[3] = {first, inverse, counts};
	int64_t len[3] = {u, q->n, u};
	for (int i = 1; i < 4; i++) {
		if (!ox_out_wanted(k, i))
			continue;
		ox_val *t = ox_out_tensor(k, i, OX_INT64, 1, &len[i - 1]);
		if (!t)
			return -1;
		ox_copy_elems(t->data, src[i - 1], sizeof(int64_t), len[i - 1]);
	}
	return 0;
}

int ox_op_Unique(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	int axis = -1;
	uq q = {x, 1, x->count, 1};
	if (ox_attr(k, "axis")) {
		if (x->rank == 0)
			return ox_kfail(k, "axis is given, but the input is a scalar");
		if ((axis = ox_axis(k, ox_attr_int(k, "axis", 0), x->rank)) < 0)
			return -1;
		q.outer = ox_shape_count(axis, x->dims);
		q.n = x->dims[axis];
		q.inner = ox_shape_count(x->rank - axis - 1, x->dims + axis + 1);
	}
	int64_t n = q.n;
	/* order, tmp (3n + n for by_occurrence), first, counts, inverse */
	int64_t *buf = malloc((size_t)(8 * n + 1) * sizeof *buf);
	if (!buf)
		return ox_kfail(k, "out of memory");
	int64_t *order = buf, *tmp = buf + n, *first = buf + 5 * n, *counts = buf + 6 * n, *inverse = buf + 7 * n;
	for (int64_t i = 0; i < n; i++)
		order[i] = i;
	sort_slices(&q, order, tmp, n);
	int64_t u = group(&q, order, first, counts, inverse);
	if (!ox_attr_int(k, "sorted", 1))
		by_occurrence(u, n, first, counts, inverse, tmp);
	int rc = unique_outputs(k, &q, axis, u, first, counts, inverse);
	free(buf);
	return rc;
}
