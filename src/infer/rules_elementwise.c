/* Inference rules of the elementwise operators: unary ones (the input's shape), broadcasting
 * binary and variadic ones, comparisons and logic (bool results), Where, Cast, Identity and
 * Dropout; small integer values are propagated through them (shape arithmetic). */
#include <string.h>

#include "infer/rules.h"

/* ---- values ---------------------------------------------------------------------------------- */

/* a op b for the integer arithmetic shape computations use; false when undefined (division
 * by zero) or when it overflows. */
static bool arith(const char *op, int64_t a, int64_t b, int64_t *r)
{
	if (!strcmp(op, "Add") || !strcmp(op, "Sum"))
		return !__builtin_add_overflow(a, b, r);
	if (!strcmp(op, "Sub"))
		return !__builtin_sub_overflow(a, b, r);
	if (!strcmp(op, "Mul"))
		return !__builtin_mul_overflow(a, b, r);
	if (!strcmp(op, "Max") || !strcmp(op, "Min")) {
		*r = (op[1] == 'a') == (a > b) ? a : b;
		return true;
	}
	if (!strcmp(op, "Div")) {
		if (!b || (a == INT64_MIN && b == -1))
			return false;
		*r = a / b; /* integer Div truncates, as the evaluator's kernel does */
		return true;
	}
	if (!strcmp(op, "Mod") && b && !(a == INT64_MIN && b == -1)) {
		*r = a % b;
		if (*r && (*r < 0) != (b < 0))
			*r += b; /* fmod=0: the sign of the divisor */
		return true;
	}
	return false;
}

/* r as an element of type elem holds it: wrapped around to the type's width in two's
 * complement, as the evaluator's integer kernels compute (int8 100 + 100 is -56); false
 * (unknown) for a 64-bit unsigned value past INT64_MAX, which int64 cannot hold. */
static bool wrap(int elem, int64_t *r)
{
	int bits = ox_elem_bits(elem);
	bool is_unsigned = ox_elem(elem)->cls == OX_CLASS_UNSIGNED;
	if (bits >= 64)
		return !is_unsigned || *r >= 0;
	uint64_t mask = (UINT64_C(1) << bits) - 1, u = (uint64_t)*r & mask;
	if (!is_unsigned && u >> (bits - 1))
		u |= ~mask; /* the sign bit, extended */
	*r = (int64_t)u;
	return true;
}

/* The known values of a binary integer op when one side is a scalar or both have the same
 * count: element by element, known where both are and the result is defined. */
static void binary_values(ox_ictx *x, ox_type *out)
{
	const ox_type *a = ox_input(x, 0), *b = ox_input(x, 1);
	int64_t n = ox_type_count(out);
	if (x->n_in != 2 || !a || !b || !a->vals || !b->vals || n < 0 || (a->nvals != n && a->nvals != 1) || (b->nvals != n && b->nvals != 1) ||
	    !ox_elem_is_int(out->elem) || (!strcmp(x->node->op_type, "Mod") && ox_iattr_int(x, "fmod", 0)) ||
	    !ox_type_values(x, out, n))
		return;
	for (int64_t i = 0; i < n; i++) {
		int64_t ia = a->nvals == 1 ? 0 : i, ib = b->nvals == 1 ? 0 : i;
		bool ka = !a->known || a->known[ia], kb = !b->known || b->known[ib];
		/* uint64 values past INT64_MAX are held negative: Max, Min, Div would misread them */
		bool held = wrap(out->elem, &(int64_t){a->vals[ia]}) && wrap(out->elem, &(int64_t){b->vals[ib]});
		out->known[i] = ka && kb && held && arith(x->node->op_type, a->vals[ia], b->vals[ib], &out->vals[i]) &&
				wrap(out->elem, &out->vals[i]);
	}
}

/* ---- rules ------------------------------------------------------------------------------------ */

/* The output has the first input's type and shape (elementwise unary ops, Identity). */
int ox_rule_unary(ox_ictx *x)
{
	int elem = ox_out_elem(x, 0);
	ox_out_like(x, 0, elem ? elem : (ox_input(x, 0) ? ox_input(x, 0)->elem : 0), 0);
	return 0;
}

/* Identity of any type (sequences and optionals too), its values kept. */
int ox_rule_identity(ox_ictx *x)
{
	const ox_type *t = ox_input(x, 0);
	if (t)
		ox_set_out(x, 0, t);
	return 0;
}

/* Every input broadcast together; the result's element type is the engine's guess
 * (the shared constraint, or bool for comparisons). */
int ox_rule_broadcast(ox_ictx *x)
{
	size_t idx[64], n = 0;
	for (size_t i = 0; i < x->n_in && n < 64; i++)
		if (ox_has_input(x, i))
			idx[n++] = i;
	ox_type *out = ox_broadcast(x, idx, n, ox_out_elem(x, 0));
	if (!out)
		return -1;
	binary_values(x, out);
	ox_set_out(x, 0, out);
	return 0;
}

/* Before opset 7, binary ops broadcast only B into A (with broadcast=1): A's shape. */
int ox_rule_legacy_binary(ox_ictx *x)
{
	return ox_rule_unary(x);
}

/* Cast: the element type 'to', the input's shape; integer values keep their values when
 * the target holds them (int64 <-> int32 shape arithmetic). */
/* The element type 'to' names: an INT, or before opset 6 a STRING ("FLOAT"). */
static int cast_to(const ox_ictx *x)
{
	if (x->schema && x->schema->since >= 6)
		return (int)ox_iattr_int(x, "to", 0);
	const char *to = ox_iattr_str(x, "to", "");
	return ox_elem_lookup_enum(to, strlen(to));
}

int ox_rule_cast(ox_ictx *x)
{
	int to = cast_to(x);
	if (!ox_elem_name(to))
		return ox_ierr(x, OX_P_OP, 0, "attribute 'to' does not name an element type");
	ox_out_like(x, 0, to, 0);
	const ox_type *in = ox_input(x, 0);
	if (in && in->vals && in->nvals && (to == OX_INT64 || to == OX_INT32) && ox_elem_is_int(in->elem)) {
		ox_type *t = ox_type_copy(x, x->out[0]);
		if (t && ox_type_values(x, t, in->nvals)) {
			for (int64_t i = 0; i < in->nvals; i++) {
				t->vals[i] = in->vals[i];
				t->known[i] = (!in->known || in->known[i]) && (to == OX_INT64 || (in->vals[i] >= INT32_MIN && in->vals[i] <= INT32_MAX));
			}
			ox_set_out(x, 0, t);
		}
	}
	return 0;
}

/* BitCast: the input's shape under the type 'to', which must be as wide (ox_elem_bits, the
 * width the evaluator checks too). */
int ox_rule_bitcast(ox_ictx *x)
{
	int to = (int)ox_iattr_int(x, "to", 0);
	const ox_type *in = ox_input(x, 0);
	if (!ox_elem_name(to) || !ox_elem_bits(to))
		return ox_ierr(x, OX_P_OP, 0, "attribute 'to' (%d) does not name a non-string element type", to);
	if (in && in->kind == OX_T_TENSOR && in->elem && ox_elem_bits(in->elem) != ox_elem_bits(to))
		return ox_ierr(x, OX_P_OP, 0, "attribute 'to' is %s (%d bits), but input '%s' is %s (%d bits); BitCast "
			       "keeps the width", ox_elem_name(to), ox_elem_bits(to), x->node->input[0],
			       ox_elem_name(in->elem), ox_elem_bits(in->elem));
	ox_out_like(x, 0, to, 0);
	return 0;
}

/* CastLike: the second input's element type. */
int ox_rule_cast_like(ox_ictx *x)
{
	const ox_type *like = ox_input(x, 1);
	ox_out_like(x, 0, like ? like->elem : ox_out_elem(x, 0), 0);
	return 0;
}

/* Dropout: the data's type and shape, and a bool mask of the same shape. */
int ox_rule_dropout(ox_ictx *x)
{
	ox_rule_unary(x);
	if (x->n_out > 1)
		ox_out_like(x, 1, ox_out_elem(x, 1) ? ox_out_elem(x, 1) : OX_BOOL, 0);
	return 0;
}
