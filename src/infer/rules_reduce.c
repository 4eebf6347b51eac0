/* Inference rules of the reductions (ReduceSum and family: axes from the attribute, or from
 * input 1 since the opset that made it one; keepdims; noop_with_empty_axes) and of ArgMax and
 * ArgMin. */
#include <string.h>

#include "infer/rules.h"

/* The opset from which the reduction takes its axes as input 1 (ReduceSum 13, others 18). */
static int axes_input_since(const char *op)
{
	return !strcmp(op, "ReduceSum") ? 13 : 18;
}

int ox_rule_reduce(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	int elem = ox_out_elem(x, 0);
	bool keep = ox_iattr_int(x, "keepdims", 1) != 0, by_input = x->schema->since >= axes_input_since(x->node->op_type);
	const int64_t *axes = NULL;
	int64_t n = by_input ? (ox_has_input(x, 1) ? ox_input_values(x, 1, &axes) : 0) : ox_iattr_ints(x, "axes", &axes);
	if (!in || (by_input && n < 0)) {
		/* axes unknown (a computed input): the rank is kept with keepdims, else unknown */
		ox_set_out(x, 0, ox_type_tensor(x, elem, in && keep ? in->rank : -1));
		return 0;
	}
	if (n < 0)
		n = 0; /* no attribute: every axis */
	bool red[OX_INFER_MAX_RANK];
	if (ox_reduce_axes(x, axes, n, in->rank, "the axes", red) < 0)
		return -1;
	if (n == 0 && !(by_input && ox_iattr_int(x, "noop_with_empty_axes", 0)))
		for (int k = 0; k < in->rank; k++)
			red[k] = true;
	int r = 0;
	for (int k = 0; k < in->rank; k++)
		r += keep || !red[k];
	ox_type *out = ox_type_tensor(x, elem, r);
	for (int k = 0, j = 0; out && k < in->rank; k++)
		if (!red[k])
			out->dims[j++] = in->dims[k];
		else if (keep)
			out->dims[j++] = ox_dim_num(1);
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_arg_reduce(ox_ictx *x)
{
	const ox_type *in = ox_input_ranked(x, 0);
	bool keep = ox_iattr_int(x, "keepdims", 1) != 0;
	int a;
	if (!in) {
		ox_set_out(x, 0, ox_type_tensor(x, OX_INT64, -1));
		return 0;
	}
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", 0), in->rank, 0, "attribute 'axis'", &a) < 0)
		return -1;
	ox_type *out = ox_type_tensor(x, OX_INT64, keep ? in->rank : in->rank - 1);
	for (int k = 0, j = 0; out && k < in->rank; k++)
		if (k != a)
			out->dims[j++] = in->dims[k];
		else if (keep)
			out->dims[j++] = ox_dim_num(1);
	ox_set_out(x, 0, out);
	return 0;
}
