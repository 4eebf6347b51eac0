/* Attribute builders: the value decides the type unless an annotation (": ints") does;
 * an INT literal where a FLOAT is expected is read as a float, the one implicit
 * conversion. Lists keep every element, tensors and graphs included (SYNTAX-DECISIONS P3). */
#include "build.h"

#include <string.h>

#include "literal.h"
#include "onnx.h"
#include "types.h"

#define T(x) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x

ox_ab ox_attr_new(ox_parser *P, ox_tok name, const ox_tok *annotation, size_t ann)
{
	Onnx__AttributeProto *a = ox_new(P, &onnx__attribute_proto__descriptor);
	a->name = ox_name(P, name);
	ox_span_tok(P, a, name);
	if (annotation) {
		int t = ox_attr_type_lookup(annotation->p, annotation->n);
		if (t < 0)
			ox_fail(P, annotation, ONNXTXT_ERR_SYNTAX,
				"unknown attribute type '%.*s'; expected one of float, int, string, tensor, graph, "
				"sparse_tensor, type_proto, floats, ints, strings, tensors, graphs, sparse_tensors, "
				"type_protos", (int)annotation->n, annotation->p);
		a->has_type = 1;
		a->type = t;
	}
	ox_ab h = {a, ann};
	return h;
}

ox_value ox_literal(int code, ox_tok t)
{
	ox_value v = {code == TK_INT ? OX_V_INT : code == TK_FLOAT ? OX_V_FLOAT : OX_V_STRING, t, NULL};
	return v;
}

ox_value ox_ref(ox_parser *P, ox_tok at, ox_tok name)
{
	ox_value v = {OX_V_REF, at, ox_name(P, name)};
	return v;
}

ox_value ox_type_value(ox_type t)
{
	ox_value v = {OX_V_TYPE, t.at, t.tp};
	return v;
}

ox_value ox_graph_value(ox_parser *P, Onnx__GraphProto *g)
{
	ox_value v = {OX_V_GRAPH, P->last_body, g};
	return v;
}

/* The attribute type a value has where `expected` (singular, or 0) is expected. */
static int value_type(const ox_value *v, int expected)
{
	switch (v->kind) {
	case OX_V_INT: return expected == T(FLOAT) ? T(FLOAT) : T(INT);
	case OX_V_FLOAT: return T(FLOAT);
	case OX_V_STRING: return T(STRING);
	case OX_V_TYPE: return T(TYPE_PROTO);
	case OX_V_TENSOR: return T(TENSOR);
	case OX_V_GRAPH: return T(GRAPH);
	case OX_V_REF: break;
	}
	return T(UNDEFINED);
}

static const char *kind_phrase(int type)
{
	switch (type) {
	case T(INT): return "an integer";
	case T(FLOAT): return "a float";
	case T(STRING): return "a string";
	case T(TENSOR): return "a tensor";
	case T(GRAPH): return "a graph";
	case T(TYPE_PROTO): return "a type";
	default: return "a list";
	}
}

static const ox_tok *where(const ox_value *v, const ox_parser *P)
{
	return v->at.p ? &v->at : &P->prev;
}

static _Noreturn void mismatch(ox_parser *P, const Onnx__AttributeProto *a, const ox_value *v, int declared,
			       int found)
{
	ox_fail(P, where(v, P), ONNXTXT_ERR_VALUE, "attribute '%s' is declared '%s' but its value is %s", a->name,
		ox_attr_type_name(declared), kind_phrase(found));
}

static float float_value(ox_parser *P, const ox_value *v)
{
	float f;
	if (ox_parse_float(v->at.p, v->at.n, &f) != OX_NUM_OK)
		ox_fail(P, &v->at, ONNXTXT_ERR_VALUE, "%.*s is out of range for a float", (int)v->at.n, v->at.p);
	return f;
}

static Onnx__AttributeProto *finish(ox_parser *P, Onnx__AttributeProto *a, size_t ann)
{
	ox_annotate(P, a, ann);
	return a;
}

Onnx__AttributeProto *ox_attr_single(ox_parser *P, ox_ab *h, ox_value *v)
{
	Onnx__AttributeProto *a = h->a;
	int declared = a->has_type ? (int)a->type : 0;
	if (v->kind == OX_V_REF) {
		a->ref_attr_name = v->msg; /* the type comes from the annotation alone */
		return finish(P, a, h->ann);
	}
	int t = value_type(v, declared);
	if (declared && t != declared)
		mismatch(P, a, v, declared, t);
	a->has_type = 1;
	a->type = t;
	switch (t) {
	case T(INT):
		a->has_i = 1;
		a->i = ox_int(P, v->at);
		break;
	case T(FLOAT):
		a->has_f = 1;
		a->f = float_value(P, v);
		break;
	case T(STRING):
		a->has_s = 1;
		a->s = ox_bytes(P, v->at);
		break;
	case T(TYPE_PROTO): a->tp = v->msg; break;
	case T(TENSOR): a->t = v->msg; break;
	case T(GRAPH): a->g = v->msg; break;
	}
	return finish(P, a, h->ann);
}

Onnx__AttributeProto *ox_attr_empty_list(ox_parser *P, ox_ab *h, ox_tok bracket)
{
	Onnx__AttributeProto *a = h->a;
	if (!a->has_type)
		ox_fail(P, &bracket, ONNXTXT_ERR_VALUE,
			"an empty list needs a type annotation, as in '%s: ints = []'", a->name);
	if (!ox_attr_is_list(a->type))
		ox_fail(P, &bracket, ONNXTXT_ERR_VALUE, "attribute '%s' is declared '%s', a single value, not a list",
			a->name, ox_attr_type_name(a->type));
	return finish(P, a, h->ann);
}

ox_alist ox_attr_list_begin(ox_parser *P, ox_ab *h)
{
	Onnx__AttributeProto *a = h->a;
	ox_alist l = {a, h->ann, P->top, a->has_type ? ox_attr_singular(a->type) : 0};
	return l;
}

void ox_attr_list_add(ox_parser *P, ox_alist *l, ox_value *v)
{
	if (v->kind == OX_V_REF)
		ox_fail(P, &v->at, ONNXTXT_ERR_VALUE, "an attribute reference cannot be a list element");
	int t = value_type(v, l->elem);
	size_t index = (P->top - l->mark) / (l->elem == T(STRING) ? 2 : 1) + 1;
	if (!l->elem)
		l->elem = t;
	else if (t != l->elem && l->a->has_type)
		ox_fail(P, where(v, P), ONNXTXT_ERR_VALUE, "element %zu of attribute '%s' is %s, but '%s' is declared '%s'",
			index, l->a->name, kind_phrase(t), l->a->name, ox_attr_type_name(l->a->type));
	else if (t != l->elem)
		ox_fail(P, where(v, P), ONNXTXT_ERR_VALUE,
			"element %zu of attribute '%s' is %s, but its first element is %s", index, l->a->name,
			kind_phrase(t), kind_phrase(l->elem));
	switch (t) {
	case T(INT): ox_push_i64(P, ox_int(P, v->at)); break;
	case T(FLOAT): {
		ox_slot s = {.f = float_value(P, v)};
		ox_push_i64(P, s.i);
		break;
	}
	case T(STRING): {
		ProtobufCBinaryData b = ox_bytes(P, v->at);
		ox_push_pair(P, b.data, (void *)(uintptr_t)b.len);
		break;
	}
	default: ox_push(P, v->msg); break;
	}
}

Onnx__AttributeProto *ox_attr_list_end(ox_parser *P, ox_alist *l)
{
	Onnx__AttributeProto *a = l->a;
	size_t n = P->top - l->mark;
	ox_slot *s = P->stack + l->mark;
	a->has_type = 1;
	a->type = ox_attr_plural(l->elem);
	switch (l->elem) {
	case T(INT):
		a->n_ints = n;
		a->ints = ox_alloc(P, n * sizeof *a->ints);
		for (size_t i = 0; i < n; i++)
			a->ints[i] = s[i].i;
		break;
	case T(FLOAT):
		a->n_floats = n;
		a->floats = ox_alloc(P, n * sizeof *a->floats);
		for (size_t i = 0; i < n; i++)
			a->floats[i] = (float)s[i].f;
		break;
	case T(STRING):
		a->n_strings = n / 2;
		a->strings = ox_alloc(P, n / 2 * sizeof *a->strings);
		for (size_t i = 0; i < n / 2; i++) {
			a->strings[i].data = s[2 * i].p;
			a->strings[i].len = (size_t)(uintptr_t)s[2 * i + 1].p;
		}
		break;
	case T(TENSOR): a->tensors = (Onnx__TensorProto **)ox_take(P, l->mark, &a->n_tensors); break;
	case T(GRAPH): a->graphs = (Onnx__GraphProto **)ox_take(P, l->mark, &a->n_graphs); break;
	case T(TYPE_PROTO): a->type_protos = (Onnx__TypeProto **)ox_take(P, l->mark, &a->n_type_protos); break;
	}
	P->top = l->mark;
	return finish(P, a, l->ann);
}
