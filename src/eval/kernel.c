/* The helpers kernels share: inputs, outputs, attributes, axes and broadcasting. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "kernel.h"
#include "schema/schema.h"
#include "threads.h"

int ox_kfail(ox_k *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(k->msg, OX_MSG, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *kind_name(int kind)
{
	return kind == OX_TENSOR ? "tensor" : kind == OX_SEQUENCE ? "sequence" : kind == OX_MAP ? "map" : "optional";
}

ox_val *ox_in_kind(ox_k *k, int i, int kind, bool required)
{
	ox_val *v = ox_in(k, i);
	if (!v) {
		if (required)
			ox_kfail(k, "input %d is required", i);
		return NULL;
	}
	if (v->kind != kind) {
		ox_kfail(k, "input %d must be a %s, not a %s", i, kind_name(kind), kind_name(v->kind));
		return NULL;
	}
	return v;
}

ox_val *ox_in_tensor(ox_k *k, int i, bool required)
{
	return ox_in_kind(k, i, OX_TENSOR, required);
}

int ox_in_tensors(ox_k *k, ox_val **v, int n, int nreq)
{
	int rc = 0;
	for (int i = 0; i < n; i++)
		if (!(v[i] = ox_in_tensor(k, i, i < nreq)) && (i < nreq || ox_in(k, i)))
			rc = -1;
	return rc;
}

int ox_in_int8_operands(ox_k *k, ox_val **a, ox_val **b, ox_val **za, ox_val **zb, const char *na, const char *nb)
{
	*a = ox_in_tensor(k, 0, true);
	*b = *a ? ox_in_tensor(k, 1, true) : NULL;
	*za = ox_in_tensor(k, 2, false);
	*zb = ox_in_tensor(k, 3, false);
	if (!*b || (ox_in(k, 2) && !*za) || (ox_in(k, 3) && !*zb))
		return -1;
	for (int i = 0; i < 2; i++) {
		int t = (i ? *b : *a)->type;
		if (t != OX_UINT8 && t != OX_INT8)
			return ox_kfail(k, "%s has type %s; expected uint8 or int8", i ? nb : na, ox_elem_label(t));
	}
	return 0;
}

bool ox_out_wanted(const ox_k *k, int i)
{
	return i < k->nout && k->proto->output[i] && k->proto->output[i][0] && (!k->node || ox_node_out_used(k->node, i));
}

void ox_out_set(ox_k *k, int i, ox_val *v)
{
	if (i < k->nout) {
		ox_val_unref(k->out[i]);
		k->out[i] = v;
	} else {
		ox_val_unref(v);
	}
}

/* Fills bytes [lo, hi) of y with copies of one element of es bytes (lo a multiple of es):
 * the copied prefix doubles each step, so a weight tensor of millions of elements takes a
 * few dozen memcpy calls rather than one per element. */
static void fill_range(char *y, size_t lo, size_t hi, const void *elem, size_t es)
{
	memcpy(y + lo, elem, es);
	for (size_t have = es; have < hi - lo; have *= 2)
		memcpy(y + lo + have, y + lo, have < hi - lo - have ? have : hi - lo - have);
}

/* Pieces of a large fill, one task each: the pages of a fresh output are faulted in (and
 * zeroed by the kernel) on every thread at once. Measured on light vgg19, whose 550 MB of
 * weights are ConstantOfShape outputs folded when the session starts. */
#define FILL_PIECE ((size_t)4 << 20)

typedef struct fill_job {
	char *y;
	unsigned char elem[16]; /* a copy: elem may be y's first element, which piece 0 rewrites */
	bool zero;
	size_t es, total, piece;
} fill_job;

static void fill_task(void *ctx, int64_t i)
{
	const fill_job *J = ctx;
	size_t lo = (size_t)i * J->piece, hi = J->total - lo < J->piece ? J->total : lo + J->piece;
	if (J->zero)
		memset(J->y + lo, 0, hi - lo);
	else
		fill_range(J->y, lo, hi, J->elem, J->es);
}

void ox_tensor_fill(ox_val *y, const void *elem)
{
	size_t es = ox_elem_size(y->type), total = (size_t)y->count * es;
	/* pieces hold whole elements, so each starts on one */
	fill_job J = {y->data, {0}, !elem, es, total, FILL_PIECE / es * es};
	if (!total || es > sizeof J.elem)
		return;
	if (elem)
		memcpy(J.elem, elem, es);
	ox_parallel_for((int64_t)((total + J.piece - 1) / J.piece), fill_task, &J);
}

ox_val *ox_out_tensor(ox_k *k, int i, int type, int rank, const int64_t *dims)
{
	const char *why;
	if (i >= k->nout) { /* ox_out_set would free the new tensor before the kernel fills it */
		ox_kfail(k, "output %d is missing (the node names %d output%s)", i, k->nout, k->nout == 1 ? "" : "s");
		return NULL;
	}
	ox_val *v = k->exec ? ox_exec_placed(k, i, type, rank, dims) : NULL;
	if (!v)
		v = ox_tensor_new(type, rank, dims, &why);
	if (!v) {
		ox_kfail(k, "output %d: %s", i, why);
		return NULL;
	}
	ox_out_set(k, i, v);
	return v;
}

int64_t ox_in_ints(ox_k *k, int i, int64_t *buf, int64_t cap, const char *what)
{
	ox_val *t = ox_in_tensor(k, i, true);
	if (!t)
		return -1;
	if (t->type != OX_INT64 && t->type != OX_INT32)
		return ox_kfail(k, "%s must be int64 or int32, not %s", what, ox_elem_label(t->type));
	if (t->rank > 1)
		return ox_kfail(k, "%s must be a scalar or 1-D tensor, not of rank %d", what, t->rank);
	if (t->count > cap)
		return ox_kfail(k, "%s has %lld values, more than the %lld allowed", what, (long long)t->count,
				(long long)cap);
	for (int64_t j = 0; j < t->count; j++)
		buf[j] = t->type == OX_INT64 ? ((const int64_t *)t->data)[j] : ((const int32_t *)t->data)[j];
	return t->count;
}

/* ---- attributes ------------------------------------------------------------------ */

const Onnx__AttributeProto *ox_attr(const ox_k *k, const char *name)
{
	for (size_t i = 0; i < k->nattrs; i++)
		if (k->attrs[i]->name && strcmp(k->attrs[i]->name, name) == 0)
			return k->attrs[i];
	return NULL;
}

OX_SCHEMA_ATTR_READERS(ox_attr, ox_k)

const char *ox_attr_str(const ox_k *k, const char *name, const char *def, size_t *len)
{
	return ox_schema_attr_str(k->schema, ox_attr(k, name), name, def, len);
}

bool ox_attr_str_is(const ox_k *k, const char *name, const char *def, const char *s)
{
	size_t n;
	const char *v = ox_attr_str(k, name, def, &n);
	return v && n == strlen(s) && memcmp(v, s, n) == 0;
}

int64_t ox_attr_floats(const ox_k *k, const char *name, const float **v)
{
	return ox_schema_attr_floats(k->schema, ox_attr(k, name), name, v);
}

ox_val *ox_val_from_attr_tensor(ox_k *k, const Onnx__TensorProto *t)
{
	ox_val *v = ox_val_from_tensor_proto(t, k->msg);
	return v;
}

/* ---- shapes ---------------------------------------------------------------------- */

int ox_axis(ox_k *k, int64_t axis, int rank)
{
	int64_t a = axis < 0 ? axis + rank : axis;
	if (a < 0 || a >= (rank ? rank : 1))
		return ox_kfail(k, "axis %lld is out of range for rank %d", (long long)axis, rank);
	return (int)a;
}

int ox_axis_attr(ox_k *k, const ox_val *x, const char *verb)
{
	if (x->rank == 0)
		return ox_kfail(k, "cannot %s a scalar", verb);
	return ox_axis(k, ox_attr_int(k, "axis", 0), x->rank);
}

int ox_split_check(ox_k *k, const ox_val *x, int axis, const int64_t *sizes, const ox_val *sp, int64_t n)
{
	int64_t dim = x->dims[axis], sum = 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t c = sizes ? sizes[i] : ox_get_i64(sp, i);
		if (c < 0 || c > dim)
			return ox_kfail(k, "split[%lld] is %lld, outside 0..%lld", (long long)i, (long long)c, (long long)dim);
		sum += c;
	}
	if (sum != dim)
		return ox_kfail(k, "split sums to %lld, but axis %d has %lld", (long long)sum, axis, (long long)dim);
	return 0;
}

int ox_broadcast_shape(ox_k *k, int ra, const int64_t *da, int rb, const int64_t *db, int *orank, int64_t *dout)
{
	int r = ra > rb ? ra : rb;
	for (int i = 0; i < r; i++) {
		int64_t x = i < r - ra ? 1 : da[i - (r - ra)];
		int64_t y = i < r - rb ? 1 : db[i - (r - rb)];
		if (x != y && x != 1 && y != 1)
			return ox_kfail(k, "shapes cannot be broadcast: dimension %d is %lld in one and %lld in the other",
					i, (long long)x, (long long)y);
		dout[i] = x == 1 ? y : x;
	}
	*orank = r;
	return 0;
}

void ox_broadcast_strides(int rank, const int64_t *dims, int orank, const int64_t *odims, int64_t *strides)
{
	int64_t s = 1;
	for (int i = orank - 1; i >= 0; i--) {
		int j = i - (orank - rank);
		if (j < 0 || dims[j] == 1) {
			strides[i] = 0;
		} else {
			strides[i] = s;
			s *= dims[j];
		}
		(void)odims;
	}
}

void ox_to_f64(const ox_val *t, double *d)
{
	int64_t n = t->count;
	switch (t->type) {
	case OX_FLOAT:
		for (int64_t i = 0; i < n; i++)
			d[i] = ((const float *)t->data)[i];
		break;
	case OX_DOUBLE:
		if (n)
			memcpy(d, t->data, (size_t)n * sizeof *d);
		break;
	case OX_FLOAT16:
		for (int64_t i = 0; i < n; i++)
			d[i] = ox_f16_to_f32(((const uint16_t *)t->data)[i]);
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			d[i] = ox_get_f64(t, i);
		break;
	}
}

/* ---- tensors as doubles ------------------------------------------------------------ */

void *ox_scratch(ox_k *k, int64_t n, size_t size, const char *what)
{
	if (n < 0 || (n > 0 && (uint64_t)n > OX_MAX_BYTES / size)) {
		ox_kfail(k, "%s: %lld elements of %zu bytes are more than the %zu bytes allowed", what, (long long)n,
			 size, (size_t)OX_MAX_BYTES);
		return NULL;
	}
	void *p = malloc(n ? (size_t)n * size : 1);
	if (!p)
		ox_kfail(k, "%s: out of memory", what);
	return p;
}

double *ox_load_f64(ox_k *k, const ox_val *t, const char *what)
{
	double *d = ox_scratch(k, t->count, sizeof *d, what);
	if (!d)
		return NULL;
	ox_to_f64(t, d);
	return d;
}

/* Truncation toward zero, saturated to [lo, hi]; NaN becomes 0. */
static double trunc_sat(double x, double lo, double hi)
{
	if (isnan(x))
		return 0;
	x = trunc(x);
	return x < lo ? lo : x > hi ? hi : x;
}

/* The range of an integer type of at most 32 bits (wider ones saturate in ox_set_f64). */
static bool int_range(int type, double *lo, double *hi)
{
	const ox_elem_type *e = ox_elem(type);
	if (!e || e->bits > 32 || (e->cls != OX_CLASS_SIGNED && e->cls != OX_CLASS_UNSIGNED))
		return false;
	double span = ldexp(1.0, e->bits);
	*lo = e->cls == OX_CLASS_SIGNED ? -span / 2 : 0;
	*hi = *lo + span - 1;
	return true;
}

void ox_store_f64(ox_val *t, const double *src)
{
	int64_t n = t->count;
	double lo, hi;
	if (t->type == OX_FLOAT) {
		for (int64_t i = 0; i < n; i++)
			((float *)t->data)[i] = (float)src[i];
	} else if (t->type == OX_DOUBLE) {
		if (n)
			memcpy(t->data, src, (size_t)n * sizeof *src);
	} else if (int_range(t->type, &lo, &hi)) {
		for (int64_t i = 0; i < n; i++)
			ox_set_i64(t, i, (int64_t)trunc_sat(src[i], lo, hi));
	} else if (t->type == OX_UINT64) {
		for (int64_t i = 0; i < n; i++)
			ox_set_f64(t, i, src[i] < 0 || isnan(src[i]) ? 0 : src[i]);
	} else {
		/* int64 saturates in ox_set_f64; float types round there */
		for (int64_t i = 0; i < n; i++)
			ox_set_f64(t, i, src[i]);
	}
}

bool ox_is_real(int type)
{
	return type == OX_FLOAT || type == OX_DOUBLE || type == OX_FLOAT16 || type == OX_BFLOAT16;
}

int ox_need_real(ox_k *k, const ox_val *t, const char *what)
{
	if (ox_is_real(t->type))
		return 0;
	return ox_kfail(k, "%s must be float, double, float16 or bfloat16, not %s", what, ox_elem_label(t->type));
}

int ox_check_type(ox_k *k, const ox_val *t, const char *what, const int *types)
{
	for (const int *p = types; *p; p++)
		if (t->type == *p)
			return 0;
	char list[256];
	size_t len = 0;
	list[0] = 0;
	for (const int *p = types; *p && len < sizeof list - 32; p++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", p == types ? "" : ", ",
					ox_elem_label(*p));
	return ox_kfail(k, "%s has element type %s; expected one of %s", what, ox_elem_label(t->type), list);
}

double ox_scalar_f64(const ox_val *t)
{
	return t->count ? ox_get_f64(t, 0) : 0;
}

int64_t ox_scalar_i64(const ox_val *t)
{
	return t->count ? ox_get_i64(t, 0) : 0;
}

int ox_in_int(ox_k *k, int i, int64_t *v, const char *what)
{
	int64_t n = ox_in_ints(k, i, v, 1, what);
	if (n == 0)
		return ox_kfail(k, "%s must hold one value, not none", what);
	return n < 0 ? -1 : 0;
}

int64_t ox_mul_count(int64_t a, int64_t b)
{
	if (a < 0 || b < 0 || (b && a > OX_MAX_ELEMENTS / b) || a * b > OX_MAX_ELEMENTS)
		return -1;
	return a * b;
}

int64_t ox_odometer_next(int rank, const int64_t *dims, const int64_t *st, int64_t *idx, int64_t off)
{
	for (int d = rank - 1; d >= 0; d--) {
		off += st[d];
		if (++idx[d] < dims[d])
			break;
		off -= st[d] * dims[d];
		idx[d] = 0;
	}
	return off;
}
