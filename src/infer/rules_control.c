/* Inference rules of the control-flow operators: If (both branches inferred, their outputs
 * must agree and are merged), Loop (carried values, scan outputs with the iteration
 * dimension) and Scan (the scan axis taken off the inputs and put on the outputs). */
#include "infer/rules.h"

/* What two branches' outputs have in common: their element type (which must be the same),
 * the rank when both have it, each dim when both agree on it. */
static const ox_type *union_of(ox_ictx *x, const ox_type *a, const ox_type *b)
{
	if (!a || !b || a->kind != OX_T_TENSOR || b->kind != OX_T_TENSOR)
		return a && b && a->kind == b->kind ? a : NULL;
	ox_type *u = ox_type_tensor(x, a->elem, a->rank == b->rank ? a->rank : -1);
	for (int k = 0; u && k < u->rank; k++)
		u->dims[k] = ox_dim_eq(a->dims[k], b->dims[k]) ? a->dims[k] : OX_DIM_UNKNOWN;
	return u;
}

int ox_rule_if(ox_ictx *x)
{
	const Onnx__GraphProto *g[2] = {ox_iattr_graph(x, "then_branch"), ox_iattr_graph(x, "else_branch")};
	if (!g[0] || !g[1])
		return 0;
	const ox_type **out[2];
	for (int b = 0; b < 2; b++) {
		out[b] = ox_type_outputs(x, g[b]->n_output);
		if (!out[b] || ox_infer_graph(x, g[b], b ? "else_branch" : "then_branch", NULL, 0, out[b]) < 0)
			return -1;
	}
	if (g[0]->n_output != g[1]->n_output)
		return ox_ierr(x, OX_P_OP, 0, "the branches have %zu and %zu outputs", g[0]->n_output, g[1]->n_output);
	for (size_t i = 0; i < x->n_out && i < g[0]->n_output; i++) {
		const ox_type *a = out[0][i], *b = out[1][i];
		if (a && b && (a->kind != b->kind || (a->kind == OX_T_TENSOR && a->elem && b->elem && a->elem != b->elem))) {
			char ta[160], tb[160];
			ox_type_str(a, ta, sizeof ta);
			ox_type_str(b, tb, sizeof tb);
			return ox_ierr(x, OX_P_OP, 0, "the branches disagree on output %zu: then_branch gives %s, else_branch %s",
				       i, ta, tb);
		}
		ox_set_out(x, i, union_of(x, a, b));
	}
	return 0;
}

/* A scan output: the body's per-iteration type with a leading dim of n iterations. */
static const ox_type *stacked(ox_ictx *x, const ox_type *t, ox_dim n, int axis)
{
	if (!t || t->kind != OX_T_TENSOR || t->rank < 0)
		return t ? ox_type_tensor(x, t->elem, -1) : NULL;
	ox_type *s = ox_type_tensor(x, t->elem, t->rank + 1);
	if (axis < 0 || axis > t->rank)
		axis = 0;
	for (int k = 0, j = 0; s && k <= t->rank; k++)
		s->dims[k] = k == axis ? n : t->dims[j++];
	return s;
}

int ox_rule_loop(ox_ictx *x)
{
	const Onnx__GraphProto *g = ox_iattr_graph(x, "body");
	if (!g)
		return 0;
	size_t carried = x->n_in >= 2 ? x->n_in - 2 : 0, n_in = carried + 2;
	const ox_type **in = ox_type_outputs(x, n_in), **out = ox_type_outputs(x, g->n_output);
	if (!in || !out)
		return -1;
	in[0] = ox_type_tensor(x, OX_INT64, 0);
	in[1] = ox_type_tensor(x, OX_BOOL, 0);
	for (size_t i = 0; i < carried; i++)
		in[2 + i] = ox_input(x, 2 + i);
	if (ox_infer_graph(x, g, "body", in, n_in, out) < 0)
		return -1;
	/* without a condition the loop runs exactly its trip count: scan outputs get it */
	const int64_t *trips;
	ox_dim n = !ox_has_input(x, 1) && ox_input_values(x, 0, &trips) == 1 && trips[0] >= 0 ? ox_dim_num(trips[0])
											  : OX_DIM_UNKNOWN;
	for (size_t i = 0; i < x->n_out; i++) {
		const ox_type *t = i + 1 < g->n_output ? out[i + 1] : NULL;
		if (i < carried) /* the final value: the body's type where both agree */
			ox_set_out(x, i, union_of(x, t, ox_input(x, 2 + i)) ? union_of(x, t, ox_input(x, 2 + i)) : t);
		else
			ox_set_out(x, i, stacked(x, t, n, 0));
	}
	return 0;
}

/* Scan (opset 9 on): N state values then M scan inputs, sliced along their axes. */
int ox_rule_scan(ox_ictx *x)
{
	const Onnx__GraphProto *g = ox_iattr_graph(x, "body");
	int64_t m = ox_iattr_int(x, "num_scan_inputs", 0);
	if (!g || x->schema->since < 9 || m < 0 || (size_t)m > x->n_in)
		return 0;
	size_t states = x->n_in - (size_t)m;
	const int64_t *in_axes, *out_axes;
	int64_t nia = ox_iattr_ints(x, "scan_input_axes", &in_axes), noa = ox_iattr_ints(x, "scan_output_axes", &out_axes);
	const ox_type **in = ox_type_outputs(x, x->n_in), **out = ox_type_outputs(x, g->n_output);
	if (!in || !out)
		return -1;
	ox_dim len = OX_DIM_UNKNOWN;
	for (size_t i = 0; i < x->n_in; i++) {
		const ox_type *t = ox_input(x, i);
		if (i < states || !t || t->kind != OX_T_TENSOR || t->rank < 1) {
			in[i] = i < states ? t : NULL;
			continue;
		}
		int a = 0;
		int64_t axis = nia > (int64_t)(i - states) ? in_axes[i - states] : 0;
		if (ox_infer_axis(x, axis, t->rank, 0, "scan_input_axes", &a) < 0)
			return -1;
		ox_type *slice = ox_type_tensor(x, t->elem, t->rank - 1);
		for (int k = 0, j = 0; slice && k < t->rank; k++)
			if (k != a)
				slice->dims[j++] = t->dims[k];
		len = t->dims[a];
		in[i] = slice;
	}
	if (ox_infer_graph(x, g, "body", in, x->n_in, out) < 0)
		return -1;
	for (size_t i = 0; i < x->n_out && i < g->n_output; i++) {
		int axis = noa > (int64_t)(i - states) && i >= states ? (int)out_axes[i - states] : 0;
		ox_set_out(x, i, i < states ? out[i] : stacked(x, out[i], len, axis < 0 && out[i] ? axis + out[i]->rank + 1 : axis));
	}
	return 0;
}
