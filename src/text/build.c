/* Builders for models, graphs, functions, nodes, types and value infos: what the grammar's
 * actions call. Field presence follows the reference parser exactly (SYNTAX.md §2.12). */
#include "build.h"

#include <stdlib.h>
#include <string.h>

#include "literal.h"
#include "onnx.h"
#include "stream.h"

void *ox_alloc(ox_parser *P, size_t size)
{
	void *p = ox_arena_alloc(P->arena, size);
	if (!p)
		ox_fail_memory(P);
	return p;
}

/* Arena memory is zeroed, and every ONNX message's initial value is all zeros but its
 * descriptor (tests/check_arena.c checks this for each message type). */
void *ox_new(ox_parser *P, const ProtobufCMessageDescriptor *d)
{
	ProtobufCMessage *m = ox_alloc(P, d->sizeof_message);
	m->descriptor = d;
	return m;
}

/* ---- scratch stack ---------------------------------------------------------------- */

static void reserve(ox_parser *P, size_t more)
{
	if (P->cap - P->top >= more)
		return;
	size_t cap = P->cap ? P->cap * 2 : 256;
	while (cap - P->top < more)
		cap *= 2;
	ox_slot *s = realloc(P->stack, cap * sizeof *s);
	if (!s)
		ox_fail_memory(P);
	P->stack = s;
	P->cap = cap;
}

size_t ox_mark(ox_parser *P)
{
	return P->top;
}

size_t ox_push(ox_parser *P, void *p)
{
	reserve(P, 1);
	P->stack[P->top].p = p;
	return P->top++;
}

size_t ox_push_i64(ox_parser *P, int64_t v)
{
	reserve(P, 1);
	P->stack[P->top].i = v;
	return P->top++;
}

size_t ox_push_pair(ox_parser *P, void *a, void *b)
{
	reserve(P, 2);
	P->stack[P->top].p = a;
	P->stack[P->top + 1].p = b;
	P->top += 2;
	return P->top - 2;
}

/* Moves the pointers above mark into a new arena array; *n receives their number. */
void **ox_take(ox_parser *P, size_t mark, size_t *n)
{
	*n = P->top - mark;
	void **v = NULL;
	if (*n) {
		v = ox_alloc(P, *n * sizeof *v);
		for (size_t i = 0; i < *n; i++)
			v[i] = P->stack[mark + i].p;
	}
	P->top = mark;
	return v;
}

/* Appends the pointers above mark to an existing repeated field. */
static void append(ox_parser *P, size_t mark, size_t *n, void ***field)
{
	size_t k;
	void **more = ox_take(P, mark, &k);
	if (!k)
		return;
	if (!*n) {
		*n = k;
		*field = more;
		return;
	}
	void **all = ox_alloc(P, (*n + k) * sizeof *all);
	memcpy(all, *field, *n * sizeof *all);
	memcpy(all + *n, more, k * sizeof *all);
	*field = all;
	*n += k;
}

#define APPEND(P, mark, msg, field) append(P, mark, &(msg)->n_##field, (void ***)&(msg)->field)

/* ---- strings ----------------------------------------------------------------------- */

static char *unquote(ox_parser *P, ox_tok t, size_t *len)
{
	char *s = ox_alloc(P, t.n - 1);
	*len = ox_unescape(s, t.p + 1, t.n - 2);
	s[*len] = '\0';
	return s;
}

char *ox_name(ox_parser *P, ox_tok t)
{
	if (t.n == 0)
		return "";
	if (t.p[0] != '"') {
		char *s = ox_alloc(P, t.n + 1);
		memcpy(s, t.p, t.n);
		s[t.n] = '\0';
		return s;
	}
	size_t n;
	char *s = unquote(P, t, &n);
	if (memchr(s, '\0', n))
		ox_fail(P, &t, ONNXTXT_ERR_VALUE, "a name or text field cannot contain a NUL byte");
	return s;
}

char *ox_string(ox_parser *P, ox_tok t)
{
	return ox_name(P, t);
}

ProtobufCBinaryData ox_bytes(ox_parser *P, ox_tok t)
{
	ProtobufCBinaryData b;
	b.data = (uint8_t *)unquote(P, t, &b.len);
	return b;
}

int64_t ox_int(ox_parser *P, ox_tok t)
{
	int64_t v;
	if (ox_parse_i64(t.p, t.n, &v) != OX_NUM_OK)
		ox_fail(P, &t, ONNXTXT_ERR_VALUE, "integer %.*s does not fit in 64 bits", (int)t.n, t.p);
	return v;
}

/* ---- model ------------------------------------------------------------------------- */

/* The model's annotations wait until its graph is attached ("absent: [graph]"). */
Onnx__ModelProto *ox_model_new(ox_parser *P, size_t ann)
{
	Onnx__ModelProto *m = ox_new(P, &onnx__model_proto__descriptor);
	P->model_ann = ann;
	return m;
}

void ox_model_int(ox_parser *P, Onnx__ModelProto *m, int key, ox_tok v)
{
	if (key == TK_IR_VERSION) {
		m->has_ir_version = 1;
		m->ir_version = ox_int(P, v);
	} else {
		m->has_model_version = 1;
		m->model_version = ox_int(P, v);
	}
}

void ox_model_str(ox_parser *P, Onnx__ModelProto *m, int key, ox_tok v)
{
	char *s = ox_string(P, v);
	switch (key) {
	case TK_PRODUCER_NAME: m->producer_name = s; break;
	case TK_PRODUCER_VERSION: m->producer_version = s; break;
	case TK_DOMAIN: m->domain = s; break;
	default: m->doc_string = s; break;
	}
}

void ox_model_opsets(ox_parser *P, Onnx__ModelProto *m, size_t mark)
{
	APPEND(P, mark, m, opset_import);
}

void ox_model_props(ox_parser *P, Onnx__ModelProto *m, size_t mark)
{
	APPEND(P, mark, m, metadata_props);
}

Onnx__ModelProto *ox_model_graph(ox_parser *P, Onnx__ModelProto *m, Onnx__GraphProto *g)
{
	if (!m)
		m = ox_model_new(P, P->nannots);
	m->graph = g;
	ox_annotate(P, m, P->model_ann);
	return m;
}

void ox_model_functions(ox_parser *P, Onnx__ModelProto *m, size_t mark)
{
	APPEND(P, mark, m, functions);
}

Onnx__OperatorSetIdProto *ox_opset(ox_parser *P, ox_tok domain, ox_tok version)
{
	Onnx__OperatorSetIdProto *o = ox_new(P, &onnx__operator_set_id_proto__descriptor);
	o->domain = ox_string(P, domain);
	ox_span_tok(P, o, domain);
	o->has_version = 1;
	o->version = ox_int(P, version);
	return o;
}

Onnx__StringStringEntryProto *ox_entry(ox_parser *P, ox_tok key, ox_tok value)
{
	Onnx__StringStringEntryProto *e = ox_new(P, &onnx__string_string_entry_proto__descriptor);
	e->key = ox_string(P, key);
	e->value = ox_string(P, value);
	return e;
}

/* ---- graph ------------------------------------------------------------------------- */

/* Graph and function bodies keep their own node_domain default while their nodes are
 * read; bodies nest at most as deep as brackets do. */
static void body_open(ox_parser *P, ox_tok name)
{
	if (P->bodies >= ONNXTXT_MAX_DEPTH)
		ox_fail_depth(P);
	P->node_domain_absent[++P->bodies] = false;
	P->body_name[P->bodies] = name;
}

static void body_close(ox_parser *P)
{
	P->last_body = P->body_name[P->bodies--];
}

void ox_set_node_domain_absent(ox_parser *P)
{
	P->node_domain_absent[P->bodies] = true;
}

Onnx__GraphProto *ox_graph_new(ox_parser *P, ox_tok name, size_t ann)
{
	Onnx__GraphProto *g = ox_new(P, &onnx__graph_proto__descriptor);
	g->name = ox_name(P, name);
	ox_span_tok(P, g, name);
	bool main_graph = P->sink && P->bodies == 0;
	body_open(P, name);
	if (main_graph)
		P->stream_body = P->bodies;
	ox_annotate(P, g, ann);
	return g;
}

/* Splits (a, b) pairs above mark: the non-NULL firsts and the non-NULL seconds are
 * appended to the two repeated fields. */
static void split_pairs(ox_parser *P, size_t mark, size_t *na, void ***a, size_t *nb, void ***b)
{
	size_t pairs = (P->top - mark) / 2, ka = 0, kb = 0;
	for (size_t i = 0; i < pairs; i++) {
		ka += P->stack[mark + 2 * i].p != NULL;
		kb += P->stack[mark + 2 * i + 1].p != NULL;
	}
	void **va = ka ? ox_alloc(P, (*na + ka) * sizeof *va) : *a;
	void **vb = kb ? ox_alloc(P, (*nb + kb) * sizeof *vb) : *b;
	if (ka && *na)
		memcpy(va, *a, *na * sizeof *va);
	if (kb && *nb)
		memcpy(vb, *b, *nb * sizeof *vb);
	for (size_t i = 0; i < pairs; i++) {
		if (P->stack[mark + 2 * i].p)
			va[(*na)++] = P->stack[mark + 2 * i].p;
		if (P->stack[mark + 2 * i + 1].p)
			vb[(*nb)++] = P->stack[mark + 2 * i + 1].p;
	}
	*a = va;
	*b = vb;
	P->top = mark;
}

void ox_graph_inputs(ox_parser *P, Onnx__GraphProto *g, size_t mark)
{
	split_pairs(P, mark, &g->n_input, (void ***)&g->input, &g->n_initializer, (void ***)&g->initializer);
}

void ox_graph_outputs(ox_parser *P, Onnx__GraphProto *g, size_t mark)
{
	APPEND(P, mark, g, output);
}

void ox_graph_value_infos(ox_parser *P, Onnx__GraphProto *g, size_t mark)
{
	split_pairs(P, mark, &g->n_value_info, (void ***)&g->value_info, &g->n_initializer,
		    (void ***)&g->initializer);
}

void ox_graph_nodes(ox_parser *P, Onnx__GraphProto *g, size_t mark)
{
	if (P->stream_body && P->bodies == P->stream_body) {
		P->arena = P->model_arena; /* the nodes went to the sink */
		P->stream_body = 0;
	}
	APPEND(P, mark, g, node);
	body_close(P);
}

static bool streaming(const ox_parser *P)
{
	return P->stream_body && P->bodies == P->stream_body;
}

size_t ox_nodes_begin(ox_parser *P)
{
	P->node_start = P->prev.p ? P->prev.p + P->prev.n : P->src;
	if (streaming(P))
		P->arena = P->node_arena;
	return P->top;
}

void ox_nodes_add(ox_parser *P, Onnx__NodeProto *n)
{
	if (!streaming(P)) {
		ox_push(P, n);
		return;
	}
	if (!ox_sink_node(P->sink, n))
		ox_fail_memory(P);
	ox_arena_reset(P->node_arena);
}

Onnx__GraphProto *ox_node_list(ox_parser *P, size_t mark)
{
	Onnx__GraphProto *g = ox_new(P, &onnx__graph_proto__descriptor);
	APPEND(P, mark, g, node);
	return g;
}

/* ---- function ---------------------------------------------------------------------- */

Onnx__FunctionProto *ox_function_new(ox_parser *P, size_t ann)
{
	Onnx__FunctionProto *f = ox_new(P, &onnx__function_proto__descriptor);
	body_open(P, P->cur);
	P->function_ann = ann;
	ox_annotate_some(P, f, ann, OX_ANN_NODE_DOMAIN);
	return f;
}

void ox_function_str(ox_parser *P, Onnx__FunctionProto *f, int key, ox_tok v)
{
	char *s = ox_string(P, v);
	switch (key) {
	case TK_DOMAIN: f->domain = s; break;
	case TK_OVERLOAD: f->overload = s; break;
	default: f->doc_string = s; break;
	}
}

void ox_function_opsets(ox_parser *P, Onnx__FunctionProto *f, size_t mark)
{
	APPEND(P, mark, f, opset_import);
}

void ox_function_name(ox_parser *P, Onnx__FunctionProto *f, ox_tok name)
{
	f->name = ox_name(P, name);
	ox_span_tok(P, f, name);
}

void ox_function_attrs(ox_parser *P, Onnx__FunctionProto *f, size_t mark)
{
	split_pairs(P, mark, &f->n_attribute, (void ***)&f->attribute, &f->n_attribute_proto,
		    (void ***)&f->attribute_proto);
}

/* Names go to input/output; typed entries also become value_info, inputs first. */
void ox_function_io(ox_parser *P, Onnx__FunctionProto *f, size_t mark, bool outputs)
{
	size_t n = P->top - mark, typed = 0;
	char **names = n ? ox_alloc(P, n * sizeof *names) : NULL;
	for (size_t i = 0; i < n; i++) {
		Onnx__ValueInfoProto *vi = P->stack[mark + i].p;
		names[i] = vi->name;
		if (vi->type)
			P->stack[mark + typed++].p = vi;
	}
	if (outputs) {
		f->n_output = n;
		f->output = names;
	} else {
		f->n_input = n;
		f->input = names;
	}
	P->top = mark + typed;
	APPEND(P, mark, f, value_info);
}

void ox_function_value_infos(ox_parser *P, Onnx__FunctionProto *f, size_t mark)
{
	APPEND(P, mark, f, value_info);
}

void ox_function_nodes(ox_parser *P, Onnx__FunctionProto *f, size_t mark)
{
	APPEND(P, mark, f, node);
	body_close(P);
	ox_annotate_some(P, f, P->function_ann, OX_ANN_REST);
}

/* ---- node -------------------------------------------------------------------------- */

size_t ox_id_push(ox_parser *P, const ox_tok *id)
{
	return ox_push(P, id ? ox_name(P, *id) : "");
}

ox_nb ox_node_new(ox_parser *P, const ox_tok *label, size_t outputs, size_t ann)
{
	Onnx__NodeProto *n = ox_new(P, &onnx__node_proto__descriptor);
	n->output = (char **)ox_take(P, outputs, &n->n_output);
	if (label)
		n->name = ox_name(P, *label);
	n->domain = "";
	n->op_type = "";
	ox_nb b = {n, ann, false, P->node_start};
	return b;
}

Onnx__NodeProto *ox_node_end(ox_parser *P, ox_nb *b, size_t inputs, size_t attrs, bool attrs_last)
{
	Onnx__NodeProto *n = b->n;
	if (attrs != SIZE_MAX && attrs_last)
		n->attribute = (Onnx__AttributeProto **)ox_take(P, attrs, &n->n_attribute);
	n->input = (char **)ox_take(P, inputs, &n->n_input);
	if (attrs != SIZE_MAX && !attrs_last)
		n->attribute = (Onnx__AttributeProto **)ox_take(P, attrs, &n->n_attribute);
	if (!b->dotted && P->node_domain_absent[P->bodies])
		n->domain = NULL;
	ox_annotate(P, n, b->ann);
	if (P->spans) {
		const char *end = P->prev.p + P->prev.n;
		ox_span_add(P, n, b->start ? b->start : P->prev.p, end);
		P->node_start = end;
	}
	return n;
}

void ox_node_op(ox_parser *P, Onnx__NodeProto *n, ox_tok id)
{
	n->op_type = ox_name(P, id);
}

/* "a.b.C": each '.' moves the name read so far onto the domain, as the reference does
 * (so ".C" has domain "" and ".b.C" has domain "b"). */
void ox_node_op_dot(ox_parser *P, ox_nb *b, ox_tok id)
{
	Onnx__NodeProto *n = b->n;
	b->dotted = true;
	size_t d = strlen(n->domain), o = strlen(n->op_type);
	if (d == 0) {
		n->domain = n->op_type;
	} else {
		char *s = ox_alloc(P, d + 1 + o + 1);
		memcpy(s, n->domain, d);
		s[d] = '.';
		memcpy(s + d + 1, n->op_type, o + 1);
		n->domain = s;
	}
	n->op_type = ox_name(P, id);
}

void ox_node_overload(ox_parser *P, Onnx__NodeProto *n, ox_tok id)
{
	n->overload = ox_name(P, id);
}

/* ---- types ------------------------------------------------------------------------- */

static Onnx__TypeProto *new_type(ox_parser *P, Onnx__TypeProto__ValueCase which, void *value)
{
	Onnx__TypeProto *t = ox_new(P, &onnx__type_proto__descriptor);
	t->value_case = which;
	t->tensor_type = value; /* the union's members are all message pointers */
	return t;
}

ox_type ox_tensor_type(ox_parser *P, ox_tok elem, enum ox_rank rank, size_t dims, bool sparse)
{
	Onnx__TensorShapeProto *shape = NULL;
	if (rank != OX_RANK_UNKNOWN) {
		shape = ox_new(P, &onnx__tensor_shape_proto__descriptor);
		if (rank == OX_RANK_DIMS)
			shape->dim = (Onnx__TensorShapeProto__Dimension **)ox_take(P, dims, &shape->n_dim);
	}
	ox_type r = {NULL, elem};
	if (sparse) {
		Onnx__TypeProto__SparseTensor *s = ox_new(P, &onnx__type_proto__sparse_tensor__descriptor);
		s->has_elem_type = 1;
		s->elem_type = elem.v;
		s->shape = shape;
		r.tp = new_type(P, ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE, s);
	} else {
		Onnx__TypeProto__Tensor *t = ox_new(P, &onnx__type_proto__tensor__descriptor);
		t->has_elem_type = 1;
		t->elem_type = elem.v;
		t->shape = shape;
		r.tp = new_type(P, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, t);
	}
	return r;
}

ox_type ox_wrap_type(ox_parser *P, int code, ox_tok kw, ox_type inner)
{
	ox_type r = {NULL, kw};
	if (code == TK_SEQ) {
		Onnx__TypeProto__Sequence *s = ox_new(P, &onnx__type_proto__sequence__descriptor);
		s->elem_type = inner.tp;
		r.tp = new_type(P, ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE, s);
	} else {
		Onnx__TypeProto__Optional *o = ox_new(P, &onnx__type_proto__optional__descriptor);
		o->elem_type = inner.tp;
		r.tp = new_type(P, ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE, o);
	}
	return r;
}

ox_type ox_map_type(ox_parser *P, ox_tok kw, ox_tok key, ox_type value)
{
	Onnx__TypeProto__Map *m = ox_new(P, &onnx__type_proto__map__descriptor);
	m->has_key_type = 1;
	m->key_type = key.v;
	m->value_type = value.tp;
	ox_type r = {new_type(P, ONNX__TYPE_PROTO__VALUE_MAP_TYPE, m), kw};
	return r;
}

ox_type ox_opaque_type(ox_parser *P, ox_tok kw, const char *domain, const char *name)
{
	Onnx__TypeProto__Opaque *o = ox_new(P, &onnx__type_proto__opaque__descriptor);
	o->domain = (char *)domain;
	o->name = (char *)name;
	ox_type r = {new_type(P, ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE, o), kw};
	return r;
}

char *ox_dotted(ox_parser *P, char *prefix, ox_tok part)
{
	size_t a = strlen(prefix);
	char *s = ox_alloc(P, a + 1 + part.n + 1);
	memcpy(s, prefix, a);
	s[a] = '.';
	memcpy(s + a + 1, part.p, part.n);
	s[a + 1 + part.n] = '\0';
	return s;
}

void ox_dim_push(ox_parser *P, const ox_tok *t)
{
	Onnx__TensorShapeProto__Dimension *d = ox_new(P, &onnx__tensor_shape_proto__dimension__descriptor);
	if (t && t->p[0] != '"' && (t->p[0] == '-' || (t->p[0] >= '0' && t->p[0] <= '9'))) {
		d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d->dim_value = ox_int(P, *t);
	} else if (t) {
		d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
		d->dim_param = ox_name(P, *t);
	}
	ox_push(P, d);
}

Onnx__ValueInfoProto *ox_value_info(ox_parser *P, const ox_type *type, ox_tok name)
{
	Onnx__ValueInfoProto *vi = ox_new(P, &onnx__value_info_proto__descriptor);
	vi->name = ox_name(P, name);
	ox_span_tok(P, vi, name);
	if (type)
		vi->type = type->tp;
	P->last_vi_type = type ? type->at : name;
	return vi;
}
