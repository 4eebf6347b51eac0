/* Inference rules of the shape and movement operators: Shape, Size, Constant,
 * ConstantOfShape, Reshape, Flatten, Transpose, Concat, Squeeze, Unsqueeze, Gather, Slice,
 * Expand, Tile and Split, with the values of small integer tensors carried through them
 * (Shape -> Gather -> Concat -> Reshape gives a concrete shape). */
#include <string.h>

#include "infer/rules.h"

/* A 1-D int64 result of n values, all unknown; NULL when n is too large or out of memory. */
static ox_type *int_vector(ox_ictx *x, int64_t n)
{
	ox_type *t = ox_type_tensor(x, OX_INT64, 1);
	if (!t)
		return NULL;
	t->dims[0] = ox_dim_num(n);
	if (!ox_type_values(x, t, n))
		t->nvals = 0;
	return t;
}

/* ---- Shape, Size, Constant, ConstantOfShape ------------------------------------------------- */

int ox_rule_shape(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	if (!in) {
		ox_set_out(x, 0, ox_type_tensor(x, OX_INT64, 1));
		return 0;
	}
	int r = in->rank, start = 0, end = r;
	int64_t s = ox_iattr_int(x, "start", 0), e = ox_iattr_int(x, "end", r);
	/* opset 15: start and end clamp to [0, r] after adding r to negatives */
	s = s < 0 ? s + r : s;
	e = e < 0 ? e + r : e;
	start = (int)(s < 0 ? 0 : s > r ? r : s);
	end = (int)(e < 0 ? 0 : e > r ? r : e);
	int64_t n = end > start ? end - start : 0;
	ox_type *t = int_vector(x, n);
	for (int64_t i = 0; t && t->nvals && i < n; i++)
		ox_value_set(x, t, i, in->dims[start + i]);
	ox_set_out(x, 0, t);
	return 0;
}

int ox_rule_size(ox_ictx *x)
{
	ox_type *t = ox_type_tensor(x, OX_INT64, 0);
	int64_t n = ox_type_count(ox_input_ranked(x, 0));
	if (t && n >= 0 && ox_type_values(x, t, 1))
		ox_value_set(x, t, 0, ox_dim_num(n));
	ox_set_out(x, 0, t);
	return 0;
}

/* Constant: the value attribute's tensor, or value_int(s) / value_float(s) / value_string(s). */
int ox_rule_constant(ox_ictx *x)
{
	const Onnx__TensorProto *v = ox_iattr_tensor(x, "value");
	const int64_t *ints = NULL;
	int64_t n = -1;
	if (v) {
		ox_set_out(x, 0, ox_type_from_tensor(x, v));
		return 0;
	}
	const Onnx__AttributeProto *a;
	if (ox_attr_given(x, "value_int") || (n = ox_iattr_ints(x, "value_ints", &ints)) >= 0) {
		bool one = ox_attr_given(x, "value_int");
		int64_t one_v = ox_iattr_int(x, "value_int", 0);
		ox_type *t = one ? ox_type_tensor(x, OX_INT64, 0) : int_vector(x, n);
		if (t && one && ox_type_values(x, t, 1)) {
			t->vals[0] = one_v;
			t->known[0] = true;
		}
		for (int64_t i = 0; t && !one && t->nvals && i < n; i++) {
			t->vals[i] = ints[i];
			t->known[i] = true;
		}
		ox_set_out(x, 0, t);
		return 0;
	}
	struct { const char *name; int elem, rank; } k[] = {{"value_float", OX_FLOAT, 0}, {"value_floats", OX_FLOAT, 1},
		{"value_string", OX_STRING, 0}, {"value_strings", OX_STRING, 1}};
	for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
		if (!ox_attr_given(x, k[i].name))
			continue;
		ox_type *t = ox_type_tensor(x, k[i].elem, k[i].rank);
		a = ox_iattr(x, k[i].name);
		if (t && k[i].rank)
			t->dims[0] = ox_dim_num(k[i].elem == OX_FLOAT ? (int64_t)a->n_floats : (int64_t)a->n_strings);
		ox_set_out(x, 0, t);
	}
	return 0;
}

/* The shape a 1-D input's values give (ConstantOfShape, Expand): rank known when its length
 * is; a negative value is an error. */
static ox_type *shape_from_values(ox_ictx *x, size_t i, int elem)
{
	const ox_type *s = ox_input_ranked(x, i);
	if (!s || s->rank != 1 || !ox_dim_known(s->dims[0]))
		return ox_type_tensor(x, elem, -1);
	int64_t n = s->dims[0].v;
	if (n > OX_INFER_MAX_RANK) {
		ox_ierr(x, OX_P_INPUT, i, "input '%s' gives a shape of %lld dimensions, more than %d", x->node->input[i],
			(long long)n, OX_INFER_MAX_RANK);
		return NULL;
	}
	ox_type *t = ox_type_tensor(x, elem, (int)n);
	for (int64_t k = 0; t && k < n; k++) {
		if (s->vals && (!s->known || s->known[k]) && s->vals[k] < 0) {
			ox_ierr(x, OX_P_INPUT, i, "input '%s' gives dimension %lld as %lld; dimensions are not negative",
				x->node->input[i], (long long)k, (long long)s->vals[k]);
			return NULL;
		}
		t->dims[k] = ox_value_dim(s, k);
	}
	return t;
}

int ox_rule_constant_of_shape(ox_ictx *x)
{
	const Onnx__TensorProto *v = ox_iattr_tensor(x, "value");
	ox_type *t = shape_from_values(x, 0, v ? v->data_type : OX_FLOAT);
	if (!t)
		return -1;
	ox_set_out(x, 0, t);
	return 0;
}

/* ---- Reshape, Flatten ------------------------------------------------------------------------- */

/* Dim k of the new shape from value v (known) or the shape input's element (unknown). */
static int reshape_dim(ox_ictx *x, const ox_type *in, const ox_type *s, int64_t k, bool allowzero, int *minus)
{
	ox_type *out = (ox_type *)x->out[0];
	if (s->known && !s->known[k]) {
		out->dims[k] = ox_value_dim(s, k);
		return 0;
	}
	int64_t v = s->vals[k];
	if (v == -1) {
		if (*minus >= 0)
			return ox_ierr(x, OX_P_INPUT, 1, "the shape has -1 twice (dimensions %d and %lld)", *minus, (long long)k);
		*minus = (int)k;
	} else if (v == 0 && !allowzero) {
		if (!in || k >= in->rank)
			return in ? ox_ierr(x, OX_P_INPUT, 1, "the shape's dimension %lld is 0 (copy the input's), but the input "
					"has rank %d", (long long)k, in->rank) : 0;
		out->dims[k] = in->dims[k];
	} else if (v < 0) {
		return ox_ierr(x, OX_P_INPUT, 1, "the shape's dimension %lld is %lld", (long long)k, (long long)v);
	} else {
		out->dims[k] = ox_dim_num(v);
	}
	return 0;
}

/* The product of dims as a number times named parameters (params[0..*np)); false when a dim
 * is unknown or the number overflows. skip: a dim left out (-1 when none). */
static bool product(const ox_dim *d, int r, int skip, int64_t *num, const char **params, int *np)
{
	*num = 1;
	*np = 0;
	for (int k = 0; k < r; k++) {
		if (k == skip)
			continue;
		if (d[k].param)
			params[(*np)++] = d[k].param;
		else if (!ox_dim_known(d[k]) || __builtin_mul_overflow(*num, d[k].v, num))
			return false;
	}
	return true;
}

/* Cancels the parameters a and b share (interned: equal names are equal pointers); true
 * when none is left on either side. */
static bool cancel(const char **a, int na, const char **b, int nb)
{
	int left = na;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			if (b[j] && a[i] == b[j]) {
				b[j] = NULL;
				left--;
				break;
			}
	for (int j = 0; j < nb; j++)
		left += b[j] != NULL;
	return left == 0;
}

/* -1 takes what the other dims leave of the input's elements (parameters cancelling:
 * [N, 3, 4] to [N, -1] gives 12); element counts that do not match are errors. */
static int reshape_count(ox_ictx *x, const ox_type *in, int minus)
{
	ox_type *out = (ox_type *)x->out[0];
	const char *pa[OX_INFER_MAX_RANK], *pb[OX_INFER_MAX_RANK];
	int64_t total, rest;
	int na, nb;
	if (!in || !product(in->dims, in->rank, -1, &total, pa, &na) || !product(out->dims, out->rank, minus, &rest, pb, &nb) ||
	    !cancel(pa, na, pb, nb))
		return 0;
	char a[160];
	ox_type_str(in, a, sizeof a);
	if (minus >= 0) {
		if (rest == 0 || total % rest)
			return ox_ierr(x, OX_P_OP, 0, "cannot reshape %s (%lld elements) with -1 and %lld elements in the other "
				       "dimensions", a, (long long)total, (long long)rest);
		out->dims[minus] = ox_dim_num(total / rest);
	} else if (rest != total) {
		char b[160];
		ox_type_str(out, b, sizeof b);
		return ox_ierr(x, OX_P_OP, 0, "cannot reshape %s (%lld elements) to %s (%lld elements)", a, (long long)total,
			       b + strcspn(b, "["), (long long)rest);
	}
	return 0;
}

int ox_rule_reshape(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0), *s = NULL;
	int elem = ox_out_elem(x, 0);
	const int64_t *v;
	int64_t n = -1;
	ox_type tmp = {0};
	if (x->schema->since < 5 && (n = ox_iattr_ints(x, "shape", &v)) >= 0) {
		tmp = (ox_type){.kind = OX_T_TENSOR, .elem = OX_INT64, .nvals = n, .vals = (int64_t *)v};
		s = &tmp;
	} else if ((s = ox_input_ranked(x, 1)) && s->rank == 1 && ox_dim_known(s->dims[0])) {
		n = s->dims[0].v;
	}
	if (n < 0 || n > OX_INFER_MAX_RANK) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, -1));
		return 0;
	}
	ox_type *out = ox_type_tensor(x, elem, (int)n);
	ox_set_out(x, 0, out);
	if (!out || !s->vals || s->nvals != n)
		return 0;
	int minus = -1;
	bool allowzero = ox_iattr_int(x, "allowzero", 0) != 0;
	for (int64_t k = 0; k < n; k++)
		if (reshape_dim(x, in, s, k, allowzero, &minus) < 0)
			return -1;
	if (reshape_count(x, in, minus) < 0)
		return -1;
	/* values: a reshape keeps them in order */
	if (in && in->vals && in->nvals == ox_type_count(out)) {
		out->nvals = in->nvals, out->vals = in->vals, out->known = in->known, out->sym = in->sym;
		out->fvals = in->fvals;
	}
	return 0;
}

int ox_rule_flatten(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	ox_type *out = ox_type_tensor(x, ox_out_elem(x, 0), 2);
	int axis;
	if (!out || !in) {
		ox_set_out(x, 0, out);
		return 0;
	}
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", 1), in->rank, 1, "attribute 'axis'", &axis) < 0)
		return -1;
	out->dims[0] = out->dims[1] = ox_dim_num(1);
	for (int k = 0; k < in->rank; k++)
		out->dims[k >= axis] = ox_dim_mul(out->dims[k >= axis], in->dims[k]);
	ox_set_out(x, 0, out);
	return 0;
}

/* ---- Transpose, Concat ------------------------------------------------------------------------ */

int ox_rule_transpose(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const int64_t *perm;
	int64_t n = ox_iattr_ints(x, "perm", &perm);
	if (!in) {
		ox_set_out(x, 0, ox_type_tensor(x, ox_out_elem(x, 0), n >= 0 ? (int)n : -1));
		return 0;
	}
	if (n >= 0 && n != in->rank)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'perm' has %lld values, but the input has rank %d", (long long)n,
			       in->rank);
	ox_type *out = ox_type_tensor(x, ox_out_elem(x, 0), in->rank);
	bool seen[OX_INFER_MAX_RANK] = {false};
	for (int k = 0; out && k < in->rank; k++) {
		int64_t p = n >= 0 ? perm[k] : in->rank - 1 - k;
		if (p < 0 || p >= in->rank || seen[p])
			return ox_ierr(x, OX_P_OP, 0, "attribute 'perm' is not a permutation of 0..%d (value %lld at %d)",
				       in->rank - 1, (long long)p, k);
		seen[p] = true;
		out->dims[k] = in->dims[p];
	}
	ox_set_out(x, 0, out);
	return 0;
}

/* The values of a concatenation of 1-D inputs, when each has values. */
static void concat_values(ox_ictx *x, ox_type *out)
{
	int64_t n = ox_type_count(out), at = 0;
	if (out->rank != 1 || n < 0 || !ox_type_values(x, out, n))
		return;
	for (size_t i = 0; i < x->n_in; i++) {
		const ox_type *t = ox_input(x, i);
		int64_t c = ox_type_count(t);
		if (!t->vals || t->nvals != c) {
			out->nvals = 0, out->vals = NULL, out->known = NULL, out->sym = NULL;
			return;
		}
		for (int64_t j = 0; j < c; j++)
			ox_value_copy(x, out, at++, t, j);
	}
}

int ox_rule_concat(ox_ictx *x)
{
	const ox_type *first = NULL;
	for (size_t i = 0; i < x->n_in && !first; i++)
		first = ox_input_ranked(x, i);
	for (size_t i = 0; i < x->n_in || !first; i++)
		if (!first || !ox_input_ranked(x, i)) {
			ox_set_out(x, 0, ox_type_tensor(x, ox_out_elem(x, 0), first ? first->rank : -1));
			return 0;
		}
	int r = first->rank, axis;
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", 1), r, 0, "attribute 'axis'", &axis) < 0)
		return -1;
	ox_type *out = ox_type_copy(x, first);
	out->elem = ox_out_elem(x, 0);
	out->nvals = 0, out->vals = NULL, out->known = NULL, out->sym = NULL, out->fvals = NULL;
	for (size_t i = 1; i < x->n_in; i++) {
		const ox_type *t = ox_input(x, i);
		char a[160];
		ox_type_str(t, a, sizeof a);
		if (t->rank != r)
			return ox_ierr(x, OX_P_INPUT, i, "input '%s' (%s) has rank %d, but input '%s' has rank %d",
				       x->node->input[i], a, t->rank, x->node->input[0], r);
		for (int k = 0; k < r; k++) {
			if (k == axis) {
				out->dims[k] = ox_dim_add(out->dims[k], t->dims[k]);
			} else if (!ox_dim_unify(out->dims[k], t->dims[k], &out->dims[k])) {
				char d[32];
				ox_dim_str(first->dims[k], d, sizeof d);
				return ox_ierr(x, OX_P_INPUT, i, "input '%s' (%s) has dimension %d of %lld, but the others have %s "
					       "(only axis %d may differ)", x->node->input[i], a, k, (long long)t->dims[k].v, d, axis);
			}
		}
	}
	concat_values(x, out);
	ox_set_out(x, 0, out);
	return 0;
}

/* ---- Squeeze, Unsqueeze -------------------------------------------------------------------------- */

/* The axes: the attribute (before opset 13) or input 1's values; -1 when not known, -2 when
 * there are none (Squeeze's every-1 form). */
static int64_t axes_of(ox_ictx *x, const int64_t **v)
{
	if (x->schema->since < 13) {
		int64_t n = ox_iattr_ints(x, "axes", v);
		return n >= 0 ? n : -2;
	}
	if (!ox_has_input(x, 1))
		return -2;
	return ox_input_values(x, 1, v);
}

/* What Squeeze and Unsqueeze start from: the input (ranked, or NULL), the axes (n as axes_of
 * gives it), the engine's guess for the output's element type, and a mark per axis (the
 * axes Squeeze drops, the ones Unsqueeze adds), all clear. */
typedef struct {
	const ox_type *in;
	const int64_t *axes;
	int64_t n;
	int elem;
	bool mark[OX_INFER_MAX_RANK];
} axes_args;

static axes_args axes_args_of(ox_ictx *x)
{
	axes_args a = {.in = ox_input_ranked(x, 0)};
	a.n = axes_of(x, &a.axes);
	a.elem = ox_out_elem(x, 0);
	return a;
}

static void keep_values(ox_type *out, const ox_type *in)
{
	if (in->vals && in->nvals == ox_type_count(out)) {
		out->nvals = in->nvals, out->vals = in->vals, out->known = in->known, out->sym = in->sym;
		out->fvals = in->fvals;
	}
}

int ox_rule_squeeze(ox_ictx *x)
{
	axes_args a = axes_args_of(x);
	if (!a.in || a.n == -1) {
		ox_set_out(x, 0, ox_type_tensor(x, a.elem, a.in && a.n >= 0 ? a.in->rank - (int)a.n : -1));
		return 0;
	}
	if (a.n >= 0 && ox_reduce_axes(x, a.axes, a.n, a.in->rank, "the axes", a.mark) < 0)
		return -1;
	int r = 0;
	for (int k = 0; k < a.in->rank; k++) {
		if (a.n == -2 && !ox_dim_known(a.in->dims[k])) {
			ox_set_out(x, 0, ox_type_tensor(x, a.elem, -1)); /* it may be 1 */
			return 0;
		}
		if (a.n == -2)
			a.mark[k] = a.in->dims[k].v == 1;
		else if (a.mark[k] && ox_dim_known(a.in->dims[k]) && a.in->dims[k].v != 1)
			return ox_ierr(x, OX_P_OP, 0, "cannot squeeze axis %d: its dimension is %lld, not 1", k,
				       (long long)a.in->dims[k].v);
		r += !a.mark[k];
	}
	ox_type *out = ox_type_tensor(x, a.elem, r);
	for (int k = 0, j = 0; out && k < a.in->rank; k++)
		if (!a.mark[k])
			out->dims[j++] = a.in->dims[k];
	if (out)
		keep_values(out, a.in);
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_unsqueeze(ox_ictx *x)
{
	axes_args a = axes_args_of(x);
	if (a.n == -2)
		return ox_ierr(x, OX_P_OP, 0, "Unsqueeze needs axes");
	if (!a.in || a.n < 0) {
		ox_set_out(x, 0, ox_type_tensor(x, a.elem, a.in && a.n >= 0 ? a.in->rank + (int)a.n : -1));
		return 0;
	}
	int r = a.in->rank + (int)a.n;
	if (r > OX_INFER_MAX_RANK)
		return ox_ierr(x, OX_P_OP, 0, "the result would have rank %d, more than %d", r, OX_INFER_MAX_RANK);
	if (ox_reduce_axes(x, a.axes, a.n, r, "the axes", a.mark) < 0)
		return -1;
	ox_type *out = ox_type_tensor(x, a.elem, r);
	for (int k = 0, j = 0; out && k < r; k++)
		out->dims[k] = a.mark[k] ? ox_dim_num(1) : a.in->dims[j++];
	if (out)
		keep_values(out, a.in);
	ox_set_out(x, 0, out);
	return 0;
}

/* ---- Gather, Slice ---------------------------------------------------------------------------------- */

/* Gather of a 1-D tensor with values by indices with values: the selected values. */
static void gather_values(ox_ictx *x, ox_type *out, const ox_type *data, const ox_type *idx)
{
	int64_t n = ox_type_count(out), len = data->dims[0].v;
	if (data->rank != 1 || !data->vals || !idx->vals || idx->nvals != n || !ox_dim_known(data->dims[0]) ||
	    !ox_type_values(x, out, n))
		return;
	for (int64_t i = 0; i < n; i++) {
		int64_t j = idx->vals[i] < 0 ? idx->vals[i] + len : idx->vals[i];
		if ((idx->known && !idx->known[i]) || j < 0 || j >= len)
			out->known[i] = false;
		else
			ox_value_copy(x, out, i, data, j);
	}
}

int ox_rule_gather(ox_ictx *x)
{
	const ox_type *data = ox_input_ranked(x, 0), *idx = ox_input_ranked(x, 1);
	int elem = ox_out_elem(x, 0), axis;
	if (!data || !idx) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, data && idx ? data->rank + idx->rank - 1 : -1));
		return 0;
	}
	if (data->rank < 1)
		return ox_ierr(x, OX_P_INPUT, 0, "input '%s' is a scalar; Gather needs rank 1 or more", x->node->input[0]);
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", 0), data->rank, 0, "attribute 'axis'", &axis) < 0)
		return -1;
	ox_type *out = ox_type_tensor(x, elem, data->rank + idx->rank - 1);
	for (int k = 0, j = 0; out && k < data->rank; k++) {
		if (k != axis) {
			out->dims[j++] = data->dims[k];
			continue;
		}
		for (int q = 0; q < idx->rank; q++)
			out->dims[j++] = idx->dims[q];
	}
	if (out && idx->vals && ox_dim_known(data->dims[axis]))
		for (int64_t i = 0; i < idx->nvals; i++) {
			int64_t v = idx->vals[i], len = data->dims[axis].v;
			if ((!idx->known || idx->known[i]) && (v < -len || v >= len))
				return ox_ierr(x, OX_P_INPUT, 1, "index %lld is out of range for dimension %lld of axis %d",
					       (long long)v, (long long)len, axis);
		}
	if (out)
		gather_values(x, out, data, idx);
	ox_set_out(x, 0, out);
	return 0;
}

/* The start, end and step of one sliced axis of dim d: the output's length. */
static int64_t slice_len(int64_t d, int64_t start, int64_t end, int64_t step)
{
	if (start < 0)
		start += d;
	if (end < 0)
		end += d;
	if (step > 0) {
		start = start < 0 ? 0 : start > d ? d : start;
		end = end < 0 ? 0 : end > d ? d : end;
		return end > start ? (end - start + step - 1) / step : 0;
	}
	start = start < 0 ? -1 : start > d - 1 ? d - 1 : start;
	end = end < -1 ? -1 : end > d - 1 ? d - 1 : end;
	return start > end ? (start - end - step - 1) / -step : 0;
}

/* Slice's starts, ends, axes and steps: attributes before opset 10, inputs since. */
typedef struct slice_args {
	const int64_t *starts, *ends, *axes, *steps;
	int64_t n, nax, nst;
} slice_args;

static bool slice_args_of(ox_ictx *x, slice_args *s)
{
	if (x->schema->since < 10) {
		s->n = ox_iattr_ints(x, "starts", &s->starts);
		s->nax = ox_iattr_ints(x, "axes", &s->axes);
		s->nst = -2;
		return s->n >= 0 && ox_iattr_ints(x, "ends", &s->ends) == s->n;
	}
	s->n = ox_input_values(x, 1, &s->starts);
	s->nax = ox_has_input(x, 3) ? ox_input_values(x, 3, &s->axes) : -2;
	s->nst = ox_has_input(x, 4) ? ox_input_values(x, 4, &s->steps) : -2;
	return s->n >= 0 && ox_input_values(x, 2, &s->ends) == s->n && s->nax != -1 && s->nst != -1;
}

int ox_rule_slice(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	slice_args s = {0};
	int elem = ox_out_elem(x, 0);
	if (!in || !slice_args_of(x, &s)) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, in ? in->rank : -1));
		return 0;
	}
	if ((s.nax >= 0 && s.nax != s.n) || (s.nst >= 0 && s.nst != s.n))
		return ox_ierr(x, OX_P_OP, 0, "starts, ends, axes and steps differ in length");
	ox_type *out = ox_type_copy(x, in);
	out->elem = elem;
	out->nvals = 0, out->vals = NULL, out->known = NULL, out->sym = NULL, out->fvals = NULL;
	bool seen[OX_INFER_MAX_RANK] = {false};
	int64_t first = 0, step0 = 1;
	for (int64_t i = 0; i < s.n; i++) {
		int a;
		if (ox_infer_axis(x, s.nax >= 0 ? s.axes[i] : i, in->rank, 0, "the axes", &a) < 0)
			return -1;
		int64_t step = s.nst >= 0 ? s.steps[i] : 1;
		if (step == 0)
			return ox_ierr(x, OX_P_OP, 0, "a step is 0");
		if (seen[a])
			return ox_ierr(x, OX_P_OP, 0, "the axes name axis %d twice", a);
		seen[a] = true;
		out->dims[a] = ox_dim_known(in->dims[a]) ? ox_dim_num(slice_len(in->dims[a].v, s.starts[i], s.ends[i], step))
							  : OX_DIM_UNKNOWN;
		if (a == 0 && ox_dim_known(in->dims[0])) {
			int64_t d = in->dims[0].v, st = s.starts[i] < 0 ? s.starts[i] + d : s.starts[i];
			first = step > 0 ? (st < 0 ? 0 : st > d ? d : st) : (st < 0 ? -1 : st > d - 1 ? d - 1 : st);
			step0 = step;
		}
	}
	int64_t n = ox_type_count(out);
	if (in->rank == 1 && in->vals && n >= 0 && ox_type_values(x, out, n))
		for (int64_t i = 0; i < n; i++)
			ox_value_copy(x, out, i, in, first + i * step0);
	ox_set_out(x, 0, out);
	return 0;
}

/* ---- Expand, Tile, Split -------------------------------------------------------------------------- */

int ox_rule_expand(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	ox_type *s = shape_from_values(x, 1, ox_out_elem(x, 0));
	if (!s)
		return -1;
	if (!in || s->rank < 0) {
		ox_set_out(x, 0, ox_type_tensor(x, ox_out_elem(x, 0), -1));
		return 0;
	}
	int r = in->rank > s->rank ? in->rank : s->rank;
	ox_type *out = ox_type_tensor(x, ox_out_elem(x, 0), r);
	for (int k = 0; out && k < r; k++) {
		ox_dim a = k >= r - in->rank ? in->dims[k - (r - in->rank)] : ox_dim_num(1);
		ox_dim b = k >= r - s->rank ? s->dims[k - (r - s->rank)] : ox_dim_num(1);
		if (!ox_dim_broadcast(a, b, &out->dims[k]))
			return ox_ierr(x, OX_P_OP, 0, "cannot expand dimension %lld of the input to %lld (axis %d)", (long long)a.v,
				       (long long)b.v, k);
		if (ox_dim_known(b) && b.v == 1 && !ox_dim_known(a))
			out->dims[k] = a;
	}
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_tile(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const int64_t *rep;
	int64_t n = ox_input_values(x, 1, &rep);
	if (!in) {
		ox_set_out(x, 0, ox_type_tensor(x, ox_out_elem(x, 0), -1));
		return 0;
	}
	if (n >= 0 && n != in->rank)
		return ox_ierr(x, OX_P_INPUT, 1, "input '%s' has %lld repeats, but the input has rank %d", x->node->input[1],
			       (long long)n, in->rank);
	ox_type *out = ox_type_tensor(x, ox_out_elem(x, 0), in->rank);
	for (int k = 0; out && k < in->rank; k++) {
		if (n >= 0 && rep[k] < 0)
			return ox_ierr(x, OX_P_INPUT, 1, "repeat %d is %lld", k, (long long)rep[k]);
		out->dims[k] = n >= 0 ? ox_dim_mul(in->dims[k], ox_dim_num(rep[k])) : OX_DIM_UNKNOWN;
		if (n >= 0 && rep[k] == 1)
			out->dims[k] = in->dims[k];
	}
	ox_set_out(x, 0, out);
	return 0;
}

/* The split sizes: the attribute (before opset 13) or input 1; -1 when unknown, -2 when
 * none is given (equal parts). */
static int64_t split_sizes(ox_ictx *x, const int64_t **v)
{
	if (x->schema->since < 13) {
		int64_t n = ox_iattr_ints(x, "split", v);
		return n > 0 ? n : -2;
	}
	return ox_has_input(x, 1) ? ox_input_values(x, 1, v) : -2;
}

int ox_rule_split(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	const int64_t *sizes;
	int64_t n = split_sizes(x, &sizes);
	int axis, elem = ox_out_elem(x, 0);
	if (!in || ox_infer_axis(x, ox_iattr_int(x, "axis", 0), in->rank, 0, "attribute 'axis'", &axis) < 0) {
		for (size_t i = 0; !in && i < x->n_out; i++)
			ox_set_out(x, i, ox_type_tensor(x, elem, -1));
		return in ? -1 : 0;
	}
	ox_dim d = in->dims[axis];
	if (n >= 0 && (size_t)n != x->n_out)
		return ox_ierr(x, OX_P_OP, 0, "the split has %lld sizes for %zu outputs", (long long)n, x->n_out);
	int64_t sum = 0;
	for (int64_t i = 0; i < n; i++)
		sum += sizes[i] >= 0 ? sizes[i] : 0;
	if (n >= 0 && ox_dim_known(d) && sum != d.v)
		return ox_ierr(x, OX_P_OP, 0, "the split sizes add up to %lld, but axis %d has %lld", (long long)sum, axis,
			       (long long)d.v);
	int64_t parts = (int64_t)x->n_out, chunk = ox_dim_known(d) ? (d.v + parts - 1) / parts : -1;
	for (size_t i = 0; i < x->n_out; i++) {
		ox_type *out = ox_type_copy(x, in);
		if (!out)
			return -1;
		out->elem = elem;
		out->nvals = 0, out->vals = NULL, out->known = NULL, out->sym = NULL, out->fvals = NULL;
		if (n >= 0)
			out->dims[axis] = ox_dim_num(sizes[i]);
		else if (n == -2 && chunk >= 0)
			out->dims[axis] = ox_dim_num((int64_t)i + 1 < parts ? chunk : d.v - chunk * (parts - 1));
		else
			out->dims[axis] = OX_DIM_UNKNOWN;
		ox_set_out(x, i, out);
	}
	return 0;
}
