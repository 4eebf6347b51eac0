/* The dimension algebra of shape inference (infer.h): unifying and broadcasting dims,
 * element counts, axes, and types as text for messages. */
#include <stdio.h>
#include <string.h>

#include "infer/infer.h"

bool ox_dim_eq(ox_dim a, ox_dim b)
{
	if (a.param || b.param)
		return a.param && b.param && !strcmp(a.param, b.param);
	return a.v == b.v || (a.v < 0 && b.v < 0);
}

bool ox_dim_unify(ox_dim a, ox_dim b, ox_dim *out)
{
	if (ox_dim_known(a) && ox_dim_known(b) && a.v != b.v) {
		*out = OX_DIM_UNKNOWN;
		return false;
	}
	/* what knows most wins: a number, then a name (the first of two names), then unknown */
	if (ox_dim_known(a) || (a.param && !ox_dim_known(b)) || ox_dim_is_unknown(b))
		*out = a;
	else
		*out = b;
	return true;
}

bool ox_dim_broadcast(ox_dim a, ox_dim b, ox_dim *out)
{
	if (ox_dim_known(a) && a.v == 1) {
		*out = b;
		return true;
	}
	if (ox_dim_known(b) && b.v == 1) {
		*out = a;
		return true;
	}
	if (ox_dim_known(a) && ox_dim_known(b)) {
		*out = a.v == b.v ? a : OX_DIM_UNKNOWN;
		return a.v == b.v;
	}
	if (ox_dim_eq(a, b)) {
		*out = a;
		return true;
	}
	/* a parameter or an unknown dim meets a number other than 1: it must be that number
	 * (or 1, which broadcasts): the number is the result either way */
	if (ox_dim_known(a) || ox_dim_known(b)) {
		*out = ox_dim_known(a) ? a : b;
		return true;
	}
	*out = OX_DIM_UNKNOWN; /* unknown, or two parameters: either may be 1 */
	return true;
}

ox_dim ox_dim_mul(ox_dim a, ox_dim b)
{
	if (ox_dim_known(a) && a.v == 1)
		return b;
	if (ox_dim_known(b) && b.v == 1)
		return a;
	if (!ox_dim_known(a) || !ox_dim_known(b))
		return (ox_dim_known(a) && a.v == 0) || (ox_dim_known(b) && b.v == 0) ? ox_dim_num(0) : OX_DIM_UNKNOWN;
	if (a.v && b.v > INT64_MAX / a.v)
		return OX_DIM_UNKNOWN;
	return ox_dim_num(a.v * b.v);
}

ox_dim ox_dim_add(ox_dim a, ox_dim b)
{
	if (!ox_dim_known(a) || !ox_dim_known(b) || b.v > INT64_MAX - a.v)
		return OX_DIM_UNKNOWN;
	return ox_dim_num(a.v + b.v);
}

int64_t ox_type_count(const ox_type *t)
{
	if (!t || t->kind != OX_T_TENSOR || t->rank < 0)
		return -1;
	ox_dim n = ox_dim_num(1);
	for (int i = 0; i < t->rank; i++)
		n = ox_dim_mul(n, t->dims[i]);
	return ox_dim_known(n) ? n.v : -1;
}

ox_type *ox_type_dims(ox_ictx *x, int elem, int rank, const ox_dim *d)
{
	ox_type *t = ox_type_tensor(x, elem, rank);
	for (int k = 0; t && k < rank; k++)
		t->dims[k] = d[k];
	return t;
}

void ox_dim_str(ox_dim d, char *buf, size_t size)
{
	if (d.param)
		snprintf(buf, size, "%s", d.param);
	else if (d.v >= 0)
		snprintf(buf, size, "%lld", (long long)d.v);
	else
		snprintf(buf, size, "?");
}

/* Appends to buf[*at..size), keeping it NUL-terminated and cut at size. */
static void put(char *buf, size_t size, size_t *at, const char *s)
{
	size_t n = strlen(s);
	if (*at >= size)
		return;
	if (n > size - *at - 1)
		n = size - *at - 1;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
}

static void type_str(const ox_type *t, char *buf, size_t size, size_t *at)
{
	char d[64];
	if (!t || t->kind == OX_T_UNKNOWN) {
		put(buf, size, at, "unknown");
		return;
	}
	if (t->kind == OX_T_SEQ || t->kind == OX_T_OPT) {
		put(buf, size, at, t->kind == OX_T_SEQ ? "seq(" : "optional(");
		type_str(t->inner, buf, size, at);
		put(buf, size, at, ")");
		return;
	}
	if (t->kind == OX_T_MAP) {
		put(buf, size, at, "map(");
		put(buf, size, at, t->key ? ox_elem_label(t->key) : "unknown");
		put(buf, size, at, ", ");
		type_str(t->inner, buf, size, at);
		put(buf, size, at, ")");
		return;
	}
	if (t->kind == OX_T_SPARSE)
		put(buf, size, at, "sparse_tensor(");
	put(buf, size, at, t->elem ? ox_elem_label(t->elem) : "unknown");
	if (t->rank >= 0) {
		put(buf, size, at, "[");
		for (int i = 0; i < t->rank; i++) {
			ox_dim_str(t->dims[i], d, sizeof d);
			put(buf, size, at, i ? "," : "");
			put(buf, size, at, d);
		}
		put(buf, size, at, "]");
	}
	if (t->kind == OX_T_SPARSE)
		put(buf, size, at, ")");
}

void ox_type_str(const ox_type *t, char *buf, size_t size)
{
	size_t at = 0;
	if (size)
		buf[0] = '\0';
	type_str(t, buf, size, &at);
}

bool ox_type_compatible(const ox_type *a, const ox_type *b)
{
	if (!a || !b || a->kind == OX_T_UNKNOWN || b->kind == OX_T_UNKNOWN)
		return true;
	if (a->kind != b->kind)
		return false;
	if (a->kind == OX_T_SEQ || a->kind == OX_T_OPT)
		return ox_type_compatible(a->inner, b->inner);
	if (a->kind == OX_T_MAP)
		return (!a->key || !b->key || a->key == b->key) && ox_type_compatible(a->inner, b->inner);
	if (a->elem && b->elem && a->elem != b->elem)
		return false;
	if (a->rank < 0 || b->rank < 0)
		return true;
	if (a->rank != b->rank)
		return false;
	ox_dim d;
	for (int i = 0; i < a->rank; i++)
		if (!ox_dim_unify(a->dims[i], b->dims[i], &d))
			return false;
	return true;
}

int ox_infer_axis(ox_ictx *x, int64_t axis, int r, int extra, const char *what, int *out)
{
	int64_t lo = -(int64_t)r, hi = (int64_t)r + extra;
	if (axis < lo || axis >= hi)
		return ox_ierr(x, OX_P_OP, 0, "%s is %lld, out of range [%lld, %lld] for rank %d", what, (long long)axis,
			       (long long)lo, (long long)hi - 1, r);
	*out = (int)(axis < 0 ? axis + r : axis);
	return 0;
}

int ox_reduce_axes(ox_ictx *x, const int64_t *axes, int64_t n, int r, const char *what, bool *reduced)
{
	for (int i = 0; i < r; i++)
		reduced[i] = false;
	for (int64_t i = 0; i < n; i++) {
		int a = 0;
		if (ox_infer_axis(x, axes[i], r, 0, what, &a) < 0)
			return -1;
		if (reduced[a])
			return ox_ierr(x, OX_P_OP, 0, "%s names axis %d twice", what, a);
		reduced[a] = true;
	}
	return 0;
}
