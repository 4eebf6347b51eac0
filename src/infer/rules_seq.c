/* Inference rules of the sequence and optional operators: a sequence's element type is one
 * tensor type (what its tensors share), an optional's is the type it may hold; SequenceMap's
 * body is inferred on those element types. */
#include "infer/engine.h"
#include "infer/rules.h"

/* The tensor type two tensors of one sequence share: the element type (they must agree), the
 * rank when both have it, each dim they agree on. NULL: they disagree on the element type. */
static const ox_type *common(ox_ictx *x, const ox_type *a, const ox_type *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->kind != OX_T_TENSOR || b->kind != OX_T_TENSOR || (a->elem && b->elem && a->elem != b->elem))
		return NULL;
	ox_type *u = ox_type_tensor(x, a->elem ? a->elem : b->elem, a->rank == b->rank ? a->rank : -1);
	for (int k = 0; u && k < u->rank; k++)
		u->dims[k] = ox_dim_eq(a->dims[k], b->dims[k]) ? a->dims[k] : OX_DIM_UNKNOWN;
	return u;
}

static const ox_type *seq_of(ox_ictx *x, const ox_type *inner)
{
	ox_type *s = ox_type_new(x, OX_T_SEQ);
	if (s)
		s->inner = inner;
	return s;
}

/* Input i as a sequence, or NULL (unknown); an error when it is known to be something else. */
static int seq_input(ox_ictx *x, size_t i, const ox_type **s)
{
	*s = ox_input(x, i);
	if (*s && (*s)->kind != OX_T_SEQ && (*s)->kind != OX_T_UNKNOWN) {
		char t[160];
		ox_type_str(*s, t, sizeof t);
		return ox_ierr(x, OX_P_INPUT, i, "input %zu is %s, not a sequence", i, t);
	}
	if (*s && (*s)->kind != OX_T_SEQ)
		*s = NULL;
	return 0;
}

/* The element type of sequence input i, or NULL (unknown, or an error reported). */
static const ox_type *seq_elem(ox_ictx *x, size_t i)
{
	const ox_type *s;
	return seq_input(x, i, &s) < 0 || !s ? NULL : s->inner;
}

static int mismatch(ox_ictx *x, size_t i, const ox_type *t, const ox_type *with, const char *what)
{
	char a[160], b[160];
	ox_type_str(t, a, sizeof a);
	ox_type_str(with, b, sizeof b);
	return ox_ierr(x, OX_P_INPUT, i, "input %zu is %s, but %s %s", i, a, what, b);
}

int ox_rule_sequence_empty(ox_ictx *x)
{
	ox_set_out(x, 0, seq_of(x, ox_type_tensor(x, (int)ox_iattr_int(x, "dtype", OX_FLOAT), -1)));
	return 0;
}

int ox_rule_sequence_construct(ox_ictx *x)
{
	const ox_type *u = NULL;
	for (size_t i = 0; i < x->n_in; i++) {
		const ox_type *t = ox_input(x, i), *c = common(x, u, t);
		if (!c && t)
			return mismatch(x, i, t, u, "the sequence's tensors before it are");
		u = c;
	}
	ox_set_out(x, 0, seq_of(x, u));
	return 0;
}

int ox_rule_sequence_at(ox_ictx *x)
{
	ox_set_out(x, 0, seq_elem(x, 0));
	return x->failed ? -1 : 0;
}

int ox_rule_sequence_insert(ox_ictx *x)
{
	const ox_type *s, *t = ox_input(x, 1);
	if (seq_input(x, 0, &s) < 0)
		return -1;
	const ox_type *inner = s ? s->inner : NULL, *c = common(x, inner, t);
	if (!c && t && inner)
		return mismatch(x, 1, t, inner, "the sequence holds");
	ox_set_out(x, 0, s || t ? seq_of(x, c) : NULL);
	return 0;
}

int ox_rule_sequence_erase(ox_ictx *x)
{
	const ox_type *s;
	if (seq_input(x, 0, &s) < 0)
		return -1;
	ox_set_out(x, 0, s);
	return 0;
}

int ox_rule_sequence_length(ox_ictx *x)
{
	const ox_type *s;
	if (seq_input(x, 0, &s) < 0)
		return -1;
	ox_set_out(x, 0, ox_type_tensor(x, OX_INT64, 0));
	return 0;
}

/* SplitToSequence: without 'split', pieces of length 1 along the axis (dropped with keepdims
 * 0); with it, pieces whose length along the axis is not known statically in general. */
int ox_rule_split_to_sequence(ox_ictx *x)
{
	const ox_type *t = ox_input_ranked(x, 0);
	if (!t) {
		ox_set_out(x, 0, seq_of(x, ox_type_tensor(x, ox_input(x, 0) ? ox_input(x, 0)->elem : 0, -1)));
		return 0;
	}
	int axis;
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", 0), t->rank, 0, "attribute 'axis'", &axis) < 0)
		return -1;
	bool whole = !ox_has_input(x, 1), drop = whole && !ox_iattr_int(x, "keepdims", 1);
	ox_type *p = ox_type_tensor(x, t->elem, drop ? t->rank - 1 : t->rank);
	for (int k = 0, j = 0; p && k < t->rank; k++)
		if (k != axis)
			p->dims[j++] = t->dims[k];
		else if (!drop)
			p->dims[j++] = whole ? ox_dim_num(1) : OX_DIM_UNKNOWN;
	ox_set_out(x, 0, seq_of(x, p));
	return 0;
}

/* ConcatFromSequence: the tensors joined along axis (a new one with new_axis 1). */
int ox_rule_concat_from_sequence(ox_ictx *x)
{
	const ox_type *t = seq_elem(x, 0);
	if (x->failed)
		return -1;
	if (!t || t->kind != OX_T_TENSOR || t->rank < 0) {
		ox_set_out(x, 0, ox_type_tensor(x, t ? t->elem : ox_out_elem(x, 0), -1));
		return 0;
	}
	int na = ox_iattr_int(x, "new_axis", 0) != 0, axis;
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", 0), t->rank + na, 0, "attribute 'axis'", &axis) < 0)
		return -1;
	ox_type *o = ox_type_tensor(x, t->elem, t->rank + na);
	for (int k = 0, j = 0; o && k < o->rank; k++) {
		o->dims[k] = k == axis ? OX_DIM_UNKNOWN : t->dims[j]; /* the pieces' lengths add up */
		j += k != axis || !na;
	}
	ox_set_out(x, 0, o);
	return 0;
}

int ox_rule_optional(ox_ictx *x)
{
	const Onnx__AttributeProto *a = ox_iattr(x, "type");
	ox_type *o = ox_type_new(x, OX_T_OPT);
	if (!o)
		return 0;
	if (ox_has_input(x, 0))
		o->inner = ox_input(x, 0);
	else if (a && a->tp)
		o->inner = ox_infer_from_proto(x->e, a->tp);
	else
		return ox_ierr(x, OX_P_OP, 0, "Optional without an input needs the attribute 'type'");
	ox_set_out(x, 0, o);
	return 0;
}

int ox_rule_optional_has_element(ox_ictx *x)
{
	ox_set_out(x, 0, ox_type_tensor(x, OX_BOOL, 0));
	return 0;
}

/* OptionalGetElement: an optional's element; from opset 18 a tensor or sequence passes. */
int ox_rule_optional_get_element(ox_ictx *x)
{
	const ox_type *t = ox_input(x, 0);
	if (!t || t->kind == OX_T_UNKNOWN)
		return 0;
	if (t->kind != OX_T_OPT && x->schema && x->schema->since < 18) {
		char s[160];
		ox_type_str(t, s, sizeof s);
		return ox_ierr(x, OX_P_INPUT, 0, "input 0 is %s, not an optional", s);
	}
	ox_set_out(x, 0, t->kind == OX_T_OPT ? t->inner : t);
	return 0;
}

/* SequenceMap: the body runs on an item of each sequence input (their element types) and on
 * the other inputs as they are; output j is the sequence of the body's output j. Sequences of
 * different lengths are a run-time matter. */
int ox_rule_sequence_map(ox_ictx *x)
{
	const Onnx__GraphProto *g = ox_iattr_graph(x, "body");
	const ox_type *s;
	if (seq_input(x, 0, &s) < 0 || !g)
		return x->failed ? -1 : 0;
	if (g->n_input != x->n_in || g->n_output != x->n_out)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'body' has %zu inputs and %zu outputs; expected as many as SequenceMap "
			       "has (%zu and %zu)", g->n_input, g->n_output, x->n_in, x->n_out);
	const ox_type **in = ox_type_outputs(x, x->n_in), **out = ox_type_outputs(x, x->n_out);
	if (!in || !out)
		return -1;
	for (size_t i = 0; i < x->n_in; i++)
		in[i] = ox_input(x, i) && ox_input(x, i)->kind == OX_T_SEQ ? ox_input(x, i)->inner : ox_input(x, i);
	if (ox_infer_graph(x, g, "body", in, x->n_in, out) < 0)
		return -1;
	for (size_t j = 0; j < x->n_out; j++) {
		if (out[j] && out[j]->kind != OX_T_TENSOR) {
			char t[160];
			ox_type_str(out[j], t, sizeof t);
			return ox_ierr(x, OX_P_OUTPUT, j, "the body gives output %zu as %s; expected a tensor, an item of the "
				       "output sequence", j, t);
		}
		ox_set_out(x, j, seq_of(x, out[j]));
	}
	return 0;
}
