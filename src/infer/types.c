/* Inference types from what a model declares (TypeProto), from tensors (initializers and
 * Constant values, with their values when small), copies and merges. */
#include <string.h>

#include "eval/convert.h"
#include "eval/value.h"
#include "infer/engine.h"

const char *ox_infer_intern(ox_infer *e, const char *name)
{
	const intptr_t *v = ox_names_get(&e->params, name);
	if (v)
		return (const char *)*v;
	char *s = ox_arena_strndup(e->arena, name, strlen(name));
	if (!s || !ox_names_put(&e->params, s, (intptr_t)s)) {
		e->nomem = true;
		return NULL;
	}
	return s;
}

ox_type *ox_infer_alloc_type(ox_infer *e, enum ox_tkind kind)
{
	ox_type *t = ox_arena_alloc(e->arena, sizeof *t);
	if (!t) {
		e->nomem = true;
		return NULL;
	}
	t->kind = (unsigned char)kind;
	t->rank = -1;
	return t;
}

/* Gives t rank dims, all unknown; false when out of memory. */
static bool set_rank(ox_infer *e, ox_type *t, int rank)
{
	t->rank = rank;
	t->dims = NULL;
	if (rank <= 0)
		return true;
	t->dims = ox_arena_alloc(e->arena, (size_t)rank * sizeof *t->dims);
	if (!t->dims) {
		e->nomem = true;
		return false;
	}
	for (int i = 0; i < rank; i++)
		t->dims[i] = OX_DIM_UNKNOWN;
	return true;
}

static void shape_from_proto(ox_infer *e, ox_type *t, const Onnx__TensorShapeProto *s)
{
	if (!s || s->n_dim > OX_INFER_MAX_RANK || !set_rank(e, t, (int)s->n_dim))
		return;
	for (size_t i = 0; i < s->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = s->dim[i];
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0)
			t->dims[i] = ox_dim_num(d->dim_value);
		else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param && *d->dim_param)
			t->dims[i] = (ox_dim){-1, ox_infer_intern(e, d->dim_param)};
	}
}

ox_type *ox_infer_from_proto(ox_infer *e, const Onnx__TypeProto *p)
{
	if (!p)
		return NULL;
	ox_type *t = NULL;
	switch (p->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE: {
		bool sparse = p->value_case == ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE;
		const Onnx__TypeProto__Tensor *tt = p->tensor_type; /* the two have one layout */
		if (!(t = ox_infer_alloc_type(e, sparse ? OX_T_SPARSE : OX_T_TENSOR)))
			return NULL;
		t->elem = sparse ? p->sparse_tensor_type->elem_type : tt->elem_type;
		shape_from_proto(e, t, sparse ? p->sparse_tensor_type->shape : tt->shape);
		return t;
	}
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		if ((t = ox_infer_alloc_type(e, OX_T_SEQ)))
			t->inner = ox_infer_from_proto(e, p->sequence_type->elem_type);
		return t;
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
		if ((t = ox_infer_alloc_type(e, OX_T_OPT)))
			t->inner = ox_infer_from_proto(e, p->optional_type->elem_type);
		return t;
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
		if ((t = ox_infer_alloc_type(e, OX_T_MAP))) {
			t->key = p->map_type->key_type;
			t->inner = ox_infer_from_proto(e, p->map_type->value_type);
		}
		return t;
	default:
		return NULL;
	}
}

/* Element i of v (an integer or bool tensor) as int64. */
static int64_t int_at(const ox_val *v, int64_t i)
{
	switch (v->type) {
	case OX_INT8: case OX_INT4: case OX_INT2: return ((const int8_t *)v->data)[i];
	case OX_UINT8: case OX_UINT4: case OX_UINT2: case OX_BOOL: return ((const uint8_t *)v->data)[i];
	case OX_INT16: return ((const int16_t *)v->data)[i];
	case OX_UINT16: return ((const uint16_t *)v->data)[i];
	case OX_INT32: return ((const int32_t *)v->data)[i];
	case OX_UINT32: return ((const uint32_t *)v->data)[i];
	case OX_UINT64: return (int64_t)((const uint64_t *)v->data)[i];
	default: return ((const int64_t *)v->data)[i];
	}
}

/* The values of a small integer, bool, float or double tensor, read as the evaluator reads
 * them (one decoder for raw and typed fields). */
static void tensor_values(ox_infer *e, ox_type *t, const Onnx__TensorProto *p, int64_t count)
{
	bool integer = ox_elem_is_int(t->elem) || t->elem == OX_BOOL;
	bool real = t->elem == OX_FLOAT || t->elem == OX_DOUBLE;
	if (count < 0 || count > OX_INFER_MAX_VALUES || (!integer && !real) || p->data_location)
		return;
	char msg[256] = "";
	ox_val *v = ox_val_from_tensor_proto(p, msg);
	if (!v) {
		/* bad data is the structural check's to report; running out of memory is ours */
		e->nomem |= ox_convert_status(msg, ONNXTXT_ERR_VALUE) == ONNXTXT_ERR_NOMEM;
		return;
	}
	if (v->count == count) {
		if (integer && (t->vals = ox_arena_alloc(e->arena, (size_t)count * sizeof *t->vals + 1)))
			for (int64_t i = 0; i < count; i++)
				t->vals[i] = int_at(v, i);
		if (real && (t->fvals = ox_arena_alloc(e->arena, (size_t)count * sizeof *t->fvals + 1)))
			for (int64_t i = 0; i < count; i++)
				t->fvals[i] = v->type == OX_FLOAT ? ((const float *)v->data)[i] : ((const double *)v->data)[i];
		e->nomem |= !(t->vals || t->fvals);
		t->nvals = t->vals || t->fvals ? count : 0;
	}
	ox_val_unref(v);
}

ox_type *ox_infer_from_tensor(ox_infer *e, const Onnx__TensorProto *p, bool values)
{
	ox_type *t = ox_infer_alloc_type(e, OX_T_TENSOR);
	if (!t || p->n_dims > OX_INFER_MAX_RANK || !set_rank(e, t, (int)p->n_dims))
		return t;
	t->elem = p->data_type;
	for (size_t i = 0; i < p->n_dims; i++)
		t->dims[i] = p->dims[i] >= 0 ? ox_dim_num(p->dims[i]) : OX_DIM_UNKNOWN;
	if (values)
		tensor_values(e, t, p, ox_type_count(t));
	return t;
}

ox_type *ox_infer_copy(ox_infer *e, const ox_type *t)
{
	ox_type *c = ox_infer_alloc_type(e, t ? t->kind : OX_T_UNKNOWN);
	if (!c || !t)
		return c;
	*c = *t;
	c->dims = NULL;
	if (t->rank > 0 && (c->dims = ox_arena_memdup(e->arena, t->dims, (size_t)t->rank * sizeof *t->dims)) == NULL)
		e->nomem = true;
	/* values are never changed in place once set: sharing them is safe */
	return c;
}

/* a and b are compatible (ox_type_compatible): what either knows. Values come from a. */
ox_type *ox_infer_merge(ox_infer *e, const ox_type *a, const ox_type *b)
{
	if (!a || a->kind == OX_T_UNKNOWN)
		return (ox_type *)b;
	if (!b || b->kind == OX_T_UNKNOWN || a->kind != b->kind)
		return (ox_type *)a;
	ox_type *m = ox_infer_copy(e, a);
	if (!m)
		return NULL;
	if (a->kind == OX_T_SEQ || a->kind == OX_T_OPT || a->kind == OX_T_MAP) {
		m->inner = ox_infer_merge(e, a->inner, b->inner);
		m->key = a->key ? a->key : b->key;
		return m;
	}
	m->elem = a->elem ? a->elem : b->elem;
	if (a->rank < 0 && b->rank >= 0) {
		m->rank = b->rank;
		m->dims = b->dims; /* shared read-only */
		return m;
	}
	for (int i = 0; b->rank == a->rank && i < a->rank; i++)
		ox_dim_unify(a->dims[i], b->dims[i], &m->dims[i]);
	return m;
}

intptr_t ox_infer_code(const ox_type *t)
{
	if (!t)
		return 0;
	switch (t->kind) {
	case OX_T_TENSOR: return t->elem ? t->elem | OX_KIND_TENSOR << 8 : 0;
	case OX_T_SPARSE: return t->elem ? t->elem | OX_KIND_SPARSE << 8 : 0;
	case OX_T_SEQ:
		return t->inner && t->inner->kind == OX_T_TENSOR && t->inner->elem ? t->inner->elem | OX_KIND_SEQ << 8 : 0;
	case OX_T_OPT:
		if (t->inner && t->inner->kind == OX_T_TENSOR && t->inner->elem)
			return t->inner->elem | OX_KIND_OPT << 8;
		return t->inner && ox_infer_code(t->inner) >> 8 == OX_KIND_SEQ ? (ox_infer_code(t->inner) & 0xff) | OX_KIND_OPTSEQ << 8
									    : 0;
	default: return 0;
	}
}

static ox_type *tensor_of(ox_infer *e, int elem)
{
	ox_type *t = ox_infer_alloc_type(e, OX_T_TENSOR);
	if (t)
		t->elem = elem;
	return t;
}

ox_type *ox_infer_from_code(ox_infer *e, intptr_t code)
{
	int elem = (int)(code & 0xff);
	ox_type *t;
	switch (code >> 8) {
	case OX_KIND_TENSOR: return tensor_of(e, elem);
	case OX_KIND_SPARSE:
		if ((t = ox_infer_alloc_type(e, OX_T_SPARSE)))
			t->elem = elem;
		return t;
	case OX_KIND_SEQ:
	case OX_KIND_OPT:
		if ((t = ox_infer_alloc_type(e, code >> 8 == OX_KIND_SEQ ? OX_T_SEQ : OX_T_OPT)))
			t->inner = tensor_of(e, elem);
		return t;
	default:
		if ((t = ox_infer_alloc_type(e, OX_T_OPT)))
			t->inner = ox_infer_from_code(e, elem | OX_KIND_SEQ << 8);
		return t;
	}
}
