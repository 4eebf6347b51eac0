/* Sequences and optionals: SequenceEmpty, SequenceConstruct, SequenceAt, SequenceInsert,
 * SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence, Optional,
 * OptionalHasElement, OptionalGetElement. Values are immutable, so a new sequence
 * shares the tensors of the old one. */
#include <string.h>

#include "eval/move.h"

static ox_val *seq_input(ox_k *k, int i)
{
	return ox_in_kind(k, i, OX_SEQUENCE, true);
}

/* A position input (int32 or int64 scalar) normalized against [-n, n) or, for
 * insertion, [-n, n]; def when the input is omitted, which fails when def is negative
 * (the input is required). -1 after failing. */
static int64_t seq_position(ox_k *k, int i, size_t n, bool insert, int64_t def)
{
	if (!ox_in(k, i))
		return def >= 0 ? def : ox_kfail(k, "input %d (position) is required", i);
	int64_t p;
	int64_t c = ox_in_ints(k, i, &p, 1, "position");
	if (c < 0)
		return -1;
	if (c != 1)
		return ox_kfail(k, "position must be a scalar");
	int64_t hi = (int64_t)n - !insert, q = p < 0 ? p + (int64_t)n : p;
	if (q < 0 || q > hi)
		return ox_kfail(k, "position %lld is out of range for a sequence of %zu", (long long)p, n);
	return q;
}

/* A new sequence of the element type of like, with n slots (filled by the caller). */
static ox_val *seq_out(ox_k *k, int type, size_t n)
{
	ox_val *s = ox_sequence_new(type, n);
	if (!s)
		ox_kfail(k, "out of memory");
	return s;
}

int ox_op_SequenceEmpty(ox_k *k)
{
	int type = (int)ox_attr_int(k, "dtype", OX_FLOAT);
	if (!ox_elem_size(type))
		return ox_kfail(k, "dtype %d is not a tensor element type", type);
	ox_val *s = seq_out(k, type, 0);
	if (!s)
		return -1;
	ox_out_set(k, 0, s);
	return 0;
}

int ox_op_SequenceConstruct(ox_k *k)
{
	for (int i = 0; i < k->nin; i++) {
		ox_val *t = ox_in_tensor(k, i, true);
		if (!t)
			return -1;
		if (t->type != k->in[0]->type)
			return ox_kfail(k, "input %d is %s, but input 0 is %s", i, ox_elem_label(t->type),
					ox_elem_label(k->in[0]->type));
	}
	if (k->nin < 1)
		return ox_kfail(k, "SequenceConstruct needs at least one input");
	ox_val *s = seq_out(k, k->in[0]->type, (size_t)k->nin);
	if (!s)
		return -1;
	for (int i = 0; i < k->nin; i++)
		s->items[i] = ox_val_ref(k->in[i]);
	ox_out_set(k, 0, s);
	return 0;
}

int ox_op_SequenceAt(ox_k *k)
{
	ox_val *s = seq_input(k, 0);
	int64_t p = s ? seq_position(k, 1, s->nitems, false, -1) : -1;
	if (p < 0)
		return -1;
	ox_out_set(k, 0, ox_val_ref(s->items[p]));
	return 0;
}

int ox_op_SequenceInsert(ox_k *k)
{
	ox_val *s = seq_input(k, 0), *t = ox_in_tensor(k, 1, true);
	if (!s || !t)
		return -1;
	if (s->type && t->type != s->type)
		return ox_kfail(k, "cannot insert a %s tensor into a sequence of %s", ox_elem_label(t->type),
				ox_elem_label(s->type));
	int64_t p = seq_position(k, 2, s->nitems, true, (int64_t)s->nitems);
	ox_val *o = p < 0 ? NULL : seq_out(k, t->type, s->nitems + 1);
	if (!o)
		return -1;
	for (size_t i = 0, j = 0; i < o->nitems; i++)
		o->items[i] = ox_val_ref((int64_t)i == p ? t : s->items[j++]);
	ox_out_set(k, 0, o);
	return 0;
}

int ox_op_SequenceErase(ox_k *k)
{
	ox_val *s = seq_input(k, 0);
	if (!s)
		return -1;
	if (s->nitems == 0)
		return ox_kfail(k, "cannot erase from an empty sequence");
	int64_t p = seq_position(k, 1, s->nitems, false, (int64_t)s->nitems - 1);
	ox_val *o = p < 0 ? NULL : seq_out(k, s->type, s->nitems - 1);
	if (!o)
		return -1;
	for (size_t i = 0, j = 0; i < s->nitems; i++)
		if ((int64_t)i != p)
			o->items[j++] = ox_val_ref(s->items[i]);
	ox_out_set(k, 0, o);
	return 0;
}

int ox_op_SequenceLength(ox_k *k)
{
	ox_val *s = seq_input(k, 0);
	ox_val *y = s ? ox_out_tensor(k, 0, OX_INT64, 0, NULL) : NULL;
	if (!y)
		return -1;
	*(int64_t *)y->data = (int64_t)s->nitems;
	return 0;
}

/* ---- SplitToSequence and ConcatFromSequence -------------------------------------- */

/* The chunks: of size *chunk each (the last one smaller) when split is absent (ones) or
 * a scalar, else the sizes of the 1-D split returned in *sp. Returns the count, -1 after
 * failing. */
static int64_t split_sizes(ox_k *k, int64_t dim, ox_val **sp, int64_t *chunk)
{
	*sp = ox_in(k, 1) ? ox_in_tensor(k, 1, true) : NULL;
	if (ox_in(k, 1) && !*sp)
		return -1;
	if (*sp && ((*sp)->type != OX_INT64 && (*sp)->type != OX_INT32))
		return ox_kfail(k, "split must be int32 or int64, not %s", ox_elem_label((*sp)->type));
	if (*sp && (*sp)->rank == 1)
		return (*sp)->count;
	if (*sp && (*sp)->rank != 0)
		return ox_kfail(k, "split must be a scalar or 1-D, not of rank %d", (*sp)->rank);
	*chunk = *sp ? ox_get_i64(*sp, 0) : 1;
	*sp = NULL;
	if (*chunk <= 0)
		return ox_kfail(k, "split must be positive, not %lld", (long long)*chunk);
	return dim / *chunk + (dim % *chunk != 0);
}

/* Chunk i of SplitToSequence; squeezed along axis when keepdims is 0 (chunks of 1). */
static ox_val *split_chunk(ox_val *x, int axis, int64_t off, int64_t n, bool squeeze, const char **why)
{
	ox_val *c = ox_split_part(x, axis, off, n, why);
	if (!c || !squeeze)
		return c;
	int64_t dims[OX_MAX_RANK];
	for (int d = 0, j = 0; d < x->rank; d++)
		if (d != axis)
			dims[j++] = c->dims[d];
	ox_val *v = ox_tensor_view(c, x->rank - 1, dims);
	ox_val_unref(c);
	if (!v)
		*why = "out of memory";
	return v;
}

int ox_op_SplitToSequence(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *sp;
	int axis = x ? ox_axis_attr(k, x, "split") : -1;
	int64_t dim = axis < 0 ? 0 : x->dims[axis], chunk = 1;
	int64_t n = axis < 0 ? -1 : split_sizes(k, dim, &sp, &chunk);
	if (n < 0 || (sp && ox_split_check(k, x, axis, NULL, sp, n) < 0))
		return -1;
	bool squeeze = !ox_in(k, 1) && ox_attr_int(k, "keepdims", 1) == 0;
	ox_val *s = seq_out(k, x->type, (size_t)n);
	if (!s)
		return -1;
	ox_out_set(k, 0, s);
	for (int64_t i = 0, off = 0; i < n; i++) {
		const char *why;
		int64_t c = sp ? ox_get_i64(sp, i) : dim - off < chunk ? dim - off : chunk;
		if (!(s->items[i] = split_chunk(x, axis, off, c, squeeze, &why)))
			return ox_kfail(k, "chunk %lld: %s", (long long)i, why);
		off += c;
	}
	return 0;
}

int ox_op_ConcatFromSequence(ox_k *k)
{
	ox_val *s = seq_input(k, 0);
	if (!s)
		return -1;
	if (!ox_attr(k, "axis"))
		return ox_kfail(k, "attribute 'axis' is required");
	if (s->nitems == 0)
		return ox_kfail(k, "cannot concatenate an empty sequence");
	return ox_concat(k, s->items, (int64_t)s->nitems, ox_attr_int(k, "axis", 0), ox_attr_int(k, "new_axis", 0) != 0);
}

/* ---- optionals ------------------------------------------------------------------- */

int ox_op_Optional(ox_k *k)
{
	ox_val *x = ox_in(k, 0), *o;
	if (x) {
		o = ox_optional_new(x->kind, x->type, ox_val_ref(x));
	} else {
		const Onnx__AttributeProto *a = ox_attr(k, "type");
		const Onnx__TypeProto *tp = a ? a->tp : NULL;
		if (!tp)
			return ox_kfail(k, "attribute 'type' is required when the input is omitted");
		if (tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
			o = ox_optional_new(OX_TENSOR, tp->tensor_type->elem_type, NULL);
		else if (tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && tp->sequence_type->elem_type &&
			 tp->sequence_type->elem_type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
			o = ox_optional_new(OX_SEQUENCE, tp->sequence_type->elem_type->tensor_type->elem_type, NULL);
		else
			return ox_kfail(k, "attribute 'type' must be a tensor or a sequence of tensors");
	}
	if (!o)
		return ox_kfail(k, "out of memory");
	ox_out_set(k, 0, o);
	return 0;
}

/* Before version 18 the input must be an optional; from 18 on (any) a tensor or a sequence
 * stands for a present value and an omitted input for an absent one. */
static int optional_input(ox_k *k, bool any, ox_val **x)
{
	*x = ox_in(k, 0);
	if (!any) {
		if (!*x)
			return ox_kfail(k, "input 0 is required");
		if ((*x)->kind != OX_OPTIONAL) /* the message names the opset the user imports */
			return ox_kfail(k, "input 0 must be an optional at opset %lld (tensors and sequences are taken from 18)",
					(long long)k->version);
	}
	return 0;
}

static int has_element(ox_k *k, bool any)
{
	ox_val *x;
	if (optional_input(k, any, &x) < 0)
		return -1;
	ox_val *y = ox_out_tensor(k, 0, OX_BOOL, 0, NULL);
	if (!y)
		return -1;
	*(uint8_t *)y->data = x && (x->kind != OX_OPTIONAL || x->nitems > 0);
	return 0;
}

OX_KERNEL(ox_op_OptionalHasElement_15, has_element(k, false))
OX_KERNEL(ox_op_OptionalHasElement_18, has_element(k, true))

static int get_element(ox_k *k, bool any)
{
	ox_val *x;
	if (optional_input(k, any, &x) < 0)
		return -1;
	if (!x)
		return ox_kfail(k, "input 0 is required");
	if (x->kind != OX_OPTIONAL) {
		ox_out_set(k, 0, ox_val_ref(x));
		return 0;
	}
	if (x->nitems == 0)
		return ox_kfail(k, "the optional input is empty");
	ox_out_set(k, 0, ox_val_ref(x->items[0]));
	return 0;
}

OX_KERNEL(ox_op_OptionalGetElement_15, get_element(k, false))
OX_KERNEL(ox_op_OptionalGetElement_18, get_element(k, true))
