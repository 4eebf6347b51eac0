/* What an inference rule sees of its node (infer.h): inputs, attributes with the schema's
 * defaults, outputs, problems placed at the node, and broadcasting. */
#include <stdio.h>
#include <string.h>

#include "infer/engine.h"

const ox_type *ox_input(const ox_ictx *x, size_t i)
{
	const ox_type *t = i < x->n_in ? x->in[i] : NULL;
	return t && t->kind != OX_T_UNKNOWN ? t : NULL;
}

const ox_type *ox_input_ranked(const ox_ictx *x, size_t i)
{
	const ox_type *t = ox_input(x, i);
	return t && t->kind == OX_T_TENSOR && t->rank >= 0 ? t : NULL;
}

bool ox_has_input(const ox_ictx *x, size_t i)
{
	return i < x->node->n_input && x->node->input[i] && *x->node->input[i];
}

int64_t ox_input_values(const ox_ictx *x, size_t i, const int64_t **v)
{
	const ox_type *t = ox_input(x, i);
	if (!t || t->kind != OX_T_TENSOR || !t->vals || !t->nvals)
		return t && t->vals && ox_type_count(t) == 0 ? (*v = t->vals, 0) : -1;
	for (int64_t k = 0; t->known && k < t->nvals; k++)
		if (!t->known[k])
			return -1;
	*v = t->vals;
	return t->nvals;
}

/* ---- attributes ---------------------------------------------------------------------------- */

static const Onnx__AttributeProto *find(Onnx__AttributeProto *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i]->name && !strcmp(v[i]->name, name))
			return v[i];
	return NULL;
}

const Onnx__AttributeProto *ox_iattr(const ox_ictx *x, const char *name)
{
	const Onnx__AttributeProto *a = find(x->node->attribute, x->node->n_attribute, name);
	if (!a || !a->ref_attr_name || !*a->ref_attr_name)
		return a;
	/* inside a function body: the call's attribute, else the function's default */
	const ox_infer *e = x->e;
	const Onnx__AttributeProto *r =
		e->caller ? find((Onnx__AttributeProto *const *)e->caller_attrs, e->n_caller_attrs, a->ref_attr_name) : NULL;
	if (!r && e->function)
		r = find(e->function->attribute_proto, e->function->n_attribute_proto, a->ref_attr_name);
	return r;
}

bool ox_attr_given(const ox_ictx *x, const char *name)
{
	return ox_iattr(x, name) != NULL;
}

OX_SCHEMA_ATTR_READERS(ox_iattr, ox_ictx)

const char *ox_iattr_str(const ox_ictx *x, const char *name, const char *def)
{
	return ox_schema_attr_str(x->schema, ox_iattr(x, name), name, def, NULL);
}

/* ---- outputs -------------------------------------------------------------------------------- */

ox_type *ox_type_new(ox_ictx *x, enum ox_tkind kind)
{
	return ox_infer_alloc_type(x->e, kind);
}

ox_type *ox_type_tensor(ox_ictx *x, int elem, int rank)
{
	ox_type *t = ox_infer_alloc_type(x->e, OX_T_TENSOR);
	if (!t)
		return NULL;
	t->elem = elem;
	if (rank > OX_INFER_MAX_RANK) {
		ox_ierr(x, OX_P_OP, 0, "the result would have rank %d, more than %d", rank, OX_INFER_MAX_RANK);
		return NULL;
	}
	t->rank = rank;
	if (rank > 0 && !(t->dims = ox_arena_alloc(x->e->arena, (size_t)rank * sizeof *t->dims))) {
		x->e->nomem = true;
		return NULL;
	}
	for (int i = 0; i < rank; i++)
		t->dims[i] = OX_DIM_UNKNOWN;
	return t;
}

ox_type *ox_type_copy(ox_ictx *x, const ox_type *t)
{
	return ox_infer_copy(x->e, t);
}

const ox_type **ox_type_outputs(ox_ictx *x, size_t n)
{
	const ox_type **v = ox_arena_alloc(x->e->arena, (n + 1) * sizeof *v);
	x->e->nomem |= !v;
	return v;
}

int64_t *ox_type_values(ox_ictx *x, ox_type *t, int64_t nvals)
{
	if (nvals < 0 || nvals > OX_INFER_MAX_VALUES)
		return NULL;
	t->nvals = 0;
	t->vals = ox_arena_alloc(x->e->arena, (size_t)nvals * sizeof *t->vals + 1);
	t->known = ox_arena_alloc(x->e->arena, (size_t)nvals + 1);
	t->fvals = NULL;
	t->sym = NULL;
	if (!t->vals || !t->known) {
		x->e->nomem = true;
		t->vals = NULL;
		t->known = NULL;
		return NULL;
	}
	t->nvals = nvals;
	return t->vals;
}

ox_type *ox_type_from_tensor(ox_ictx *x, const Onnx__TensorProto *p)
{
	return p ? ox_infer_from_tensor(x->e, p, true) : NULL;
}

ox_dim ox_value_dim(const ox_type *t, int64_t i)
{
	if (!t || !t->vals || i < 0 || i >= t->nvals)
		return OX_DIM_UNKNOWN;
	if (!t->known || t->known[i])
		return t->vals[i] >= 0 ? ox_dim_num(t->vals[i]) : OX_DIM_UNKNOWN;
	return t->sym && t->sym[i] ? (ox_dim){-1, t->sym[i]} : OX_DIM_UNKNOWN;
}

void ox_value_set(ox_ictx *x, ox_type *t, int64_t i, ox_dim d)
{
	if (!t->vals || i < 0 || i >= t->nvals)
		return;
	t->vals[i] = d.param ? -1 : d.v;
	t->known[i] = ox_dim_known(d);
	if (d.param && !t->sym && !(t->sym = ox_arena_alloc(x->e->arena, (size_t)t->nvals * sizeof *t->sym)))
		x->e->nomem = true;
	if (t->sym)
		t->sym[i] = d.param;
}

void ox_value_copy(ox_ictx *x, ox_type *t, int64_t i, const ox_type *from, int64_t j)
{
	if (!t->vals || i < 0 || i >= t->nvals)
		return;
	bool ok = from && from->vals && j >= 0 && j < from->nvals;
	t->vals[i] = ok ? from->vals[j] : -1;
	t->known[i] = ok && (!from->known || from->known[j]);
	const char *p = ok && from->sym ? from->sym[j] : NULL;
	if (p && !t->sym && !(t->sym = ox_arena_alloc(x->e->arena, (size_t)t->nvals * sizeof *t->sym)))
		x->e->nomem = true;
	if (t->sym)
		t->sym[i] = p;
}

void ox_set_out(ox_ictx *x, size_t i, const ox_type *t)
{
	if (i < x->n_out && t)
		x->out[i] = t;
}

int ox_out_elem(const ox_ictx *x, size_t i)
{
	const ox_type *t = i < x->n_out ? x->out[i] : NULL;
	return t && (t->kind == OX_T_TENSOR || t->kind == OX_T_SPARSE) ? t->elem : 0;
}

void ox_out_like(ox_ictx *x, size_t i, int elem, size_t j)
{
	const ox_type *in = ox_input(x, j);
	ox_type *t = in && in->kind == OX_T_TENSOR ? ox_type_copy(x, in) : ox_type_tensor(x, elem, -1);
	if (!t)
		return;
	t->elem = elem;
	t->nvals = 0;
	t->vals = NULL;
	t->fvals = NULL;
	t->known = NULL;
	t->sym = NULL;
	ox_set_out(x, i, t);
}

/* ---- problems ------------------------------------------------------------------------------- */

int ox_ierr(ox_ictx *x, enum ox_part part, size_t index, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!x->e->quiet) {
		x->e->c->node = x->node;
		ox_check_report(x->e->c, ONNXTXT_ERR_INVALID, x->node, part, index, "%s", msg);
	}
	x->failed = true;
	return -1;
}

/* ---- broadcasting --------------------------------------------------------------------------- */

ox_type *ox_broadcast(ox_ictx *x, const size_t *ins, size_t n, int elem)
{
	int rank = 0;
	for (size_t k = 0; k < n; k++) {
		const ox_type *t = ox_input(x, ins[k]);
		if (!t || t->kind != OX_T_TENSOR || t->rank < 0)
			return ox_type_tensor(x, elem, -1);
		rank = t->rank > rank ? t->rank : rank;
	}
	ox_type *out = ox_type_tensor(x, elem, rank);
	for (int d = 0; out && d < rank; d++)
		out->dims[d] = ox_dim_num(1);
	for (size_t k = 0; out && k < n; k++) {
		const ox_type *t = ox_input(x, ins[k]);
		for (int d = 0; d < t->rank; d++) {
			ox_dim *o = &out->dims[rank - t->rank + d], r;
			if (ox_dim_broadcast(*o, t->dims[d], &r)) {
				*o = r;
				continue;
			}
			char a[64], b[64];
			ox_type_str(t, a, sizeof a);
			ox_dim_str(*o, b, sizeof b);
			ox_ierr(x, OX_P_INPUT, ins[k], "input '%s' (%s) does not broadcast: its dimension %d is %lld, against %s",
				x->node->input[ins[k]], a, d, (long long)t->dims[d].v, b);
			return NULL;
		}
	}
	return out;
}
