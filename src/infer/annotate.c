/* Writes what inference found into a model: value_info for every value it could type, and the
 * declared types of outputs, value_info and sub-graph inputs refined where it knows more
 * (OnnxModel_Infer). */
#include <string.h>

#include "infer/engine.h"

typedef struct writer {
	ox_arena *a;
	const ox_infer *e;
	bool nomem;
} writer;

static void *alloc(writer *w, size_t size)
{
	void *p = ox_arena_alloc(w->a, size);
	w->nomem |= !p;
	return p;
}

static Onnx__TensorShapeProto *shape_proto(writer *w, const ox_type *t)
{
	Onnx__TensorShapeProto *s = alloc(w, sizeof *s);
	if (!s)
		return NULL;
	*s = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
	s->n_dim = (size_t)t->rank;
	s->dim = t->rank ? alloc(w, (size_t)t->rank * sizeof *s->dim) : NULL;
	for (int i = 0; s->dim && i < t->rank; i++) {
		Onnx__TensorShapeProto__Dimension *d = s->dim[i] = alloc(w, sizeof *d);
		if (!d)
			return NULL;
		*d = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
		if (ox_dim_known(t->dims[i])) {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			d->dim_value = t->dims[i].v;
		} else if (t->dims[i].param) {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			d->dim_param = ox_arena_strndup(w->a, t->dims[i].param, strlen(t->dims[i].param));
			w->nomem |= !d->dim_param;
		}
	}
	return s;
}

/* A new message of type T, set to its initial value INIT; NULL when out of memory. */
#define NEW(w, T, INIT) ((T *)copy_of(w, &(T)INIT, sizeof(T)))

static void *copy_of(writer *w, const void *init, size_t size)
{
	void *p = alloc(w, size);
	return p ? memcpy(p, init, size) : NULL;
}

/* Which field of a TypeProto holds a type of each kind. */
static const Onnx__TypeProto__ValueCase value_case[] = {
	[OX_T_TENSOR] = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, [OX_T_SPARSE] = ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE,
	[OX_T_SEQ] = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE,  [OX_T_MAP] = ONNX__TYPE_PROTO__VALUE_MAP_TYPE,
	[OX_T_OPT] = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE,
};

/* t as a TypeProto, or NULL when it is not known well enough to write (no element type). */
static Onnx__TypeProto *type_proto(writer *w, const ox_type *t)
{
	if (!t)
		return NULL;
	Onnx__TypeProto *p = NULL, *inner = NULL;
	if ((t->kind == OX_T_SEQ || t->kind == OX_T_OPT || t->kind == OX_T_MAP) && !(inner = type_proto(w, t->inner)))
		return NULL;
	if ((t->kind == OX_T_TENSOR || t->kind == OX_T_SPARSE) && !ox_elem_name(t->elem))
		return NULL;
	if (t->kind == OX_T_UNKNOWN || (t->kind == OX_T_MAP && !t->key) ||
	    !(p = NEW(w, Onnx__TypeProto, ONNX__TYPE_PROTO__INIT)))
		return NULL;
	p->value_case = value_case[t->kind];
	if (t->kind == OX_T_TENSOR || t->kind == OX_T_SPARSE) {
		Onnx__TypeProto__Tensor *tt = NEW(w, Onnx__TypeProto__Tensor, ONNX__TYPE_PROTO__TENSOR__INIT);
		if (!tt)
			return NULL;
		tt->has_elem_type = 1;
		tt->elem_type = t->elem;
		tt->shape = t->rank >= 0 ? shape_proto(w, t) : NULL;
		if (t->kind == OX_T_SPARSE) {
			Onnx__TypeProto__SparseTensor *st =
				NEW(w, Onnx__TypeProto__SparseTensor, ONNX__TYPE_PROTO__SPARSE_TENSOR__INIT);
			if (!(p->sparse_tensor_type = st))
				return NULL;
			st->has_elem_type = 1;
			st->elem_type = tt->elem_type;
			st->shape = tt->shape;
		} else {
			p->tensor_type = tt;
		}
	} else if (t->kind == OX_T_SEQ) {
		Onnx__TypeProto__Sequence *s = NEW(w, Onnx__TypeProto__Sequence, ONNX__TYPE_PROTO__SEQUENCE__INIT);
		if (!(p->sequence_type = s))
			return NULL;
		s->elem_type = inner;
	} else if (t->kind == OX_T_OPT) {
		Onnx__TypeProto__Optional *o = NEW(w, Onnx__TypeProto__Optional, ONNX__TYPE_PROTO__OPTIONAL__INIT);
		if (!(p->optional_type = o))
			return NULL;
		o->elem_type = inner;
	} else {
		Onnx__TypeProto__Map *m = NEW(w, Onnx__TypeProto__Map, ONNX__TYPE_PROTO__MAP__INIT);
		if (!(p->map_type = m))
			return NULL;
		m->has_key_type = 1;
		m->key_type = t->key;
		m->value_type = inner;
	}
	return p;
}

/* A declared value's type, refined by what inference found (the scope holds the merge). */
static void refine(writer *w, const Onnx__GraphProto *g, Onnx__ValueInfoProto *vi)
{
	const ox_type *t = vi->name ? ox_infer_type_in(w->e, g, vi->name) : NULL;
	Onnx__TypeProto *p = type_proto(w, t);
	if (p)
		vi->type = p;
}

static void annotate_graph(writer *w, Onnx__GraphProto *g, bool sub);

/* Names the graph already describes: inputs, outputs, value_info, initializers. */
static bool described(ox_names *seen, const char *name)
{
	return ox_names_get(seen, name) != NULL;
}

static void add_value_info(writer *w, Onnx__GraphProto *g, ox_names *seen, const char *name)
{
	Onnx__TypeProto *p = type_proto(w, ox_infer_type_in(w->e, g, name));
	if (!p || described(seen, name))
		return;
	Onnx__ValueInfoProto *vi = alloc(w, sizeof *vi);
	Onnx__ValueInfoProto **v = alloc(w, (g->n_value_info + 1) * sizeof *v);
	if (!vi || !v)
		return;
	*vi = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
	vi->name = (char *)name;
	vi->type = p;
	if (g->n_value_info)
		memcpy(v, g->value_info, g->n_value_info * sizeof *v);
	v[g->n_value_info++] = vi;
	g->value_info = v;
	w->nomem |= !ox_names_put(seen, name, 1);
}

/* A sub-graph's inputs get the types its node gives them (an input with an initializer of its
 * name keeps its declaration: the initializer is a default); the main graph's are the model's
 * interface, as declared. */
static void annotate_graph(writer *w, Onnx__GraphProto *g, bool sub)
{
	ox_names seen = {0};
	for (size_t i = 0; i < g->n_initializer; i++)
		w->nomem |= g->initializer[i]->name && !ox_names_put(&seen, g->initializer[i]->name, 1);
	for (size_t i = 0; i < g->n_input; i++) {
		if (sub && g->input[i]->name && !described(&seen, g->input[i]->name))
			refine(w, g, g->input[i]);
		w->nomem |= g->input[i]->name && !ox_names_put(&seen, g->input[i]->name, 1);
	}
	for (size_t i = 0; i < g->n_output; i++) {
		refine(w, g, g->output[i]);
		w->nomem |= g->output[i]->name && !ox_names_put(&seen, g->output[i]->name, 1);
	}
	for (size_t i = 0; i < g->n_value_info; i++) {
		refine(w, g, g->value_info[i]);
		w->nomem |= g->value_info[i]->name && !ox_names_put(&seen, g->value_info[i]->name, 1);
	}
	for (size_t i = 0; i < g->n_node && !w->nomem; i++) {
		const Onnx__NodeProto *n = g->node[i];
		for (size_t j = 0; j < n->n_output; j++)
			if (n->output[j] && *n->output[j])
				add_value_info(w, g, &seen, n->output[j]);
		for (size_t j = 0; j < n->n_attribute; j++) {
			Onnx__AttributeProto *a = n->attribute[j];
			if (a->g)
				annotate_graph(w, a->g, true);
			for (size_t k = 0; k < a->n_graphs; k++)
				annotate_graph(w, a->graphs[k], true);
		}
	}
	ox_names_free(&seen);
}

bool ox_infer_annotate(const ox_infer *e, Onnx__ModelProto *m)
{
	writer w = {ox_root_arena(m), e, false};
	if (m->graph)
		annotate_graph(&w, m->graph, false);
	return !w.nomem;
}
