/* Inference rules of the control-flow operators: If (both branches inferred, their outputs
 * must agree and are merged), Loop (carried values, scan outputs with the iteration
 * dimension) and Scan (the scan axis, and Scan-8's batch, taken off the inputs and put on the
 * outputs). */
#include <stdio.h>
#include <string.h>

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

/* t with the n dims d inserted at axis at (a scan output: the iteration dim; Scan-8's: the
 * batch and the sequence in front); rank unknown when t's is. */
static const ox_type *widened(ox_ictx *x, const ox_type *t, int at, const ox_dim *d, int n)
{
	if (!t || t->kind != OX_T_TENSOR || t->rank < 0)
		return t ? ox_type_tensor(x, t->elem, -1) : NULL;
	ox_type *s = ox_type_tensor(x, t->elem, t->rank + n);
	for (int k = 0, j = 0; s && k < s->rank; k++)
		s->dims[k] = k >= at && k < at + n ? d[k - at] : t->dims[j++];
	return s;
}

/* Whether a and b (a union of a with something) are the same type: NULL, a kind other than a
 * tensor's, or a tensor of the same rank and dims. */
static bool same_type(const ox_type *a, const ox_type *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != OX_T_TENSOR || b->kind != OX_T_TENSOR || a->elem != b->elem || a->rank != b->rank)
		return false;
	for (int k = 0; k < a->rank; k++)
		if (!ox_dim_eq(a->dims[k], b->dims[k]))
			return false;
	return true;
}

/* Whether tensor a's int64 values are all known and b has the same. */
static bool same_values(const ox_type *a, const ox_type *b)
{
	if (!a || !b || !a->vals || !b->vals || a->nvals != b->nvals || !a->nvals)
		return false;
	for (int64_t i = 0; i < a->nvals; i++)
		if ((a->known && !a->known[i]) || (b->known && !b->known[i]) || a->vals[i] != b->vals[i])
			return false;
	return true;
}

/* Infers Loop's body with carried values in[2..n) that hold for every iteration: a carried
 * value may change from one iteration to the next (grow, count), so the body is inferred
 * again with the union of what goes in and what comes out (without values, unless the body
 * gives the same ones back) until that changes nothing. Each pass loses values, a dim, a
 * rank or a type, or ends it; the last pass's types are the body's. */
static int loop_body(ox_ictx *x, const Onnx__GraphProto *g, const ox_type **in, size_t n, const ox_type **out)
{
	for (bool again = true; again;) {
		if (ox_infer_graph(x, g, "body", in, n, out) < 0)
			return -1;
		again = false;
		for (size_t i = 2; i < n; i++) {
			const ox_type *o = i - 1 < g->n_output ? out[i - 1] : NULL, *u = union_of(x, in[i], o);
			if (same_type(u, in[i]) && same_values(in[i], o))
				continue; /* passed on as it came, values too */
			again |= !same_type(u, in[i]) || (in[i] && in[i]->nvals);
			in[i] = u;
		}
	}
	return 0;
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
	if (loop_body(x, g, in, n_in, out) < 0)
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
			ox_set_out(x, i, widened(x, t, 0, &n, 1));
	}
	return 0;
}

/* ---- Scan -------------------------------------------------------------------------------------- */

/* What Scan's inputs say. Scan-8 (v8) has sequence_lens first and the batch as axis 0 of
 * every state and scan input (and the sequence as axis 1 of the scan inputs); from 9 on the
 * states are the body's as they are and each scan input has its own scan axis. batch and len
 * are what the inputs agree on so far, and batch_at, len_at the node inputs that said so. */
typedef struct scan {
	bool v8;
	size_t first, states, m, k; /* input of the first state; N states, M scan inputs, K scan outputs */
	const int64_t *in_axes, *out_axes; /* from 9 on; NULL: all 0 */
	ox_dim batch, len;
	size_t batch_at, len_at;
} scan;

static const char *role(const scan *s, size_t i)
{
	return s->v8 && i == 0 ? "sequence_lens" : i < s->first + s->states ? "state" : "scan input";
}

/* The batch (or the length) input i gives meets what the inputs before it gave: two
 * different numbers are an error. */
static int agree(ox_ictx *x, scan *s, size_t i, ox_dim d, bool batch)
{
	ox_dim *have = batch ? &s->batch : &s->len, u;
	size_t *at = batch ? &s->batch_at : &s->len_at;
	if (ox_dim_unify(*have, d, &u)) {
		*at = ox_dim_eq(u, *have) ? *at : i;
		*have = u;
		return 0;
	}
	char a[64], b[64];
	ox_dim_str(d, a, sizeof a);
	ox_dim_str(*have, b, sizeof b);
	return ox_ierr(x, OX_P_INPUT, i, "%s '%s' has %s %s, but %s '%s' has %s", role(s, i), x->node->input[i],
		       batch ? "batch size" : s->v8 ? "sequence length" : "scan length", a, role(s, *at), x->node->input[*at], b);
}

/* A list attribute of count values, one per scan input or output (NULL in *v when absent). */
static int scan_list(ox_ictx *x, const char *name, size_t count, const int64_t **v)
{
	int64_t n = ox_iattr_ints(x, name, v);
	if (n < 0)
		*v = NULL;
	else if ((size_t)n != count)
		return ox_ierr(x, OX_P_OP, 0, "attribute '%s' has %lld values; expected %zu, one per scan %s", name, (long long)n,
			       count, strstr(name, "output") ? "output" : "input");
	return 0;
}

/* The counts, the body's arity and the attribute lists. */
static int scan_open(ox_ictx *x, const Onnx__GraphProto *g, scan *s)
{
	int64_t m = ox_iattr_int(x, "num_scan_inputs", 0);
	size_t given = x->n_in > s->first ? x->n_in - s->first : 0;
	if (m < 1 || (size_t)m > given)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'num_scan_inputs' is %lld; expected 1 to %zu, the inputs given%s",
			       (long long)m, given, s->v8 ? " after sequence_lens" : "");
	s->m = (size_t)m;
	s->states = x->n_in - s->first - s->m;
	if (g->n_input != s->states + s->m)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'body' has %zu inputs; expected %zu (states: %zu, scan inputs: %zu)",
			       g->n_input, s->states + s->m, s->states, s->m);
	if (g->n_output < s->states)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'body' has %zu outputs; expected at least %zu, one per state", g->n_output,
			       s->states);
	if (x->n_out > g->n_output)
		return ox_ierr(x, OX_P_OP, 0, "Scan has %zu outputs, but its body only %zu", x->n_out, g->n_output);
	s->k = g->n_output - s->states;
	const int64_t *dirs;
	if (s->v8)
		return scan_list(x, "directions", s->m, &dirs);
	return scan_list(x, "scan_input_axes", s->m, &s->in_axes) < 0 ||
			       scan_list(x, "scan_input_directions", s->m, &dirs) < 0 ||
			       scan_list(x, "scan_output_axes", s->k, &s->out_axes) < 0 ||
			       scan_list(x, "scan_output_directions", s->k, &dirs) < 0
		       ? -1
		       : 0;
}

/* Tensor t (of a known rank) without its n dims from at. */
static ox_type *narrowed(ox_ictx *x, const ox_type *t, int at, int n)
{
	ox_type *r = ox_type_tensor(x, t->elem, t->rank - n);
	for (int k = 0, j = 0; r && k < t->rank; k++)
		if (k < at || k >= at + n)
			r->dims[j++] = t->dims[k];
	return r;
}

/* What the body sees of input i in *b: Scan-8's states without the batch and its scan inputs
 * without the batch and the sequence; from 9 on, a state as it is and a scan input without its
 * scan axis. */
static int body_input(ox_ictx *x, scan *s, size_t i, const ox_type **b)
{
	const ox_type *t = ox_input(x, i);
	bool state = i < s->first + s->states;
	*b = t;
	if (!t || t->kind != OX_T_TENSOR || (state && !s->v8))
		return 0;
	if (t->rank < 0)
		return (*b = ox_type_tensor(x, t->elem, -1)), 0;
	const char *name = x->node->input[i];
	if (s->v8) {
		int lead = state ? 1 : 2;
		if (t->rank < lead)
			return ox_ierr(x, OX_P_INPUT, i, "%s '%s' has rank %d; expected %s", role(s, i), name, t->rank,
				       state ? "the batch axis first" : "the batch axis, then the sequence axis");
		if (agree(x, s, i, t->dims[0], true) < 0 || (!state && agree(x, s, i, t->dims[1], false) < 0))
			return -1;
		return (*b = narrowed(x, t, 0, lead)), 0;
	}
	int a;
	if (t->rank < 1)
		return ox_ierr(x, OX_P_INPUT, i, "scan input '%s' is a scalar; it needs an axis to scan", name);
	size_t j = i - s->first - s->states;
	char what[160];
	snprintf(what, sizeof what, "attribute 'scan_input_axes' for scan input '%s'", name);
	if (ox_infer_axis(x, s->in_axes ? s->in_axes[j] : 0, t->rank, 0, what, &a) < 0 ||
	    agree(x, s, i, t->dims[a], false) < 0)
		return -1;
	return (*b = narrowed(x, t, a, 1)), 0;
}

/* The body's inputs: the scan inputs first (the batch is theirs, as the specification has it),
 * then the states, then Scan-8's sequence_lens, one length per batch entry. */
static int body_inputs(ox_ictx *x, scan *s, const ox_type **in)
{
	size_t n = s->states + s->m;
	for (size_t k = 0; k < n; k++) {
		size_t j = (k + s->states) % n;
		if (body_input(x, s, s->first + j, &in[j]) < 0)
			return -1;
	}
	const ox_type *lens = s->v8 ? ox_input_ranked(x, 0) : NULL;
	if (lens && lens->rank != 1)
		return ox_ierr(x, OX_P_INPUT, 0, "sequence_lens '%s' has rank %d; expected 1, a length per batch entry",
			       x->node->input[0], lens->rank);
	return lens ? agree(x, s, 0, lens->dims[0], true) : 0;
}

/* Output i from the body's output t: a state (which must keep the type it entered the body
 * with, b; Scan-8's gets the batch in front; the node's input where the body says nothing of
 * it) or a scan output, the iterations stacked along its axis (Scan-8's: the batch, then the
 * sequence, in front). */
static int scan_output(ox_ictx *x, scan *s, size_t i, const ox_type *t, const ox_type *b)
{
	bool ranked = t && t->kind == OX_T_TENSOR && t->rank >= 0;
	if (i < s->states && t && b && !ox_type_compatible(t, b)) {
		char tt[160], tb[160];
		ox_type_str(t, tt, sizeof tt);
		ox_type_str(b, tb, sizeof tb);
		return ox_ierr(x, OX_P_OUTPUT, i, "the body gives state %zu as %s, but it enters the body as %s ('%s')", i, tt,
			       tb, x->node->input[s->first + i]);
	}
	if (i < s->states) {
		ox_set_out(x, i, !ranked ? ox_input(x, s->first + i) : s->v8 ? widened(x, t, 0, &s->batch, 1) : t);
		return 0;
	}
	ox_dim d[2] = {s->batch, s->len};
	if (s->v8) {
		ox_set_out(x, i, widened(x, t, 0, d, 2));
		return 0;
	}
	int a = 0;
	int64_t axis = s->out_axes ? s->out_axes[i - s->states] : 0;
	char what[160];
	snprintf(what, sizeof what, "attribute 'scan_output_axes' for scan output '%s'", x->node->output[i]);
	if (ranked && ox_infer_axis(x, axis, t->rank + 1, 0, what, &a) < 0)
		return -1;
	ox_set_out(x, i, widened(x, t, a, &s->len, 1));
	return 0;
}

/* Scan: N state values then M scan inputs (Scan-8: after sequence_lens), sliced for the body;
 * the final states and the stacked scan outputs. */
int ox_rule_scan(ox_ictx *x)
{
	const Onnx__GraphProto *g = ox_iattr_graph(x, "body");
	scan s = {.v8 = x->schema->since < 9, .first = x->schema->since < 9, .batch = OX_DIM_UNKNOWN, .len = OX_DIM_UNKNOWN};
	if (!g || scan_open(x, g, &s) < 0)
		return g ? -1 : 0;
	const ox_type **in = ox_type_outputs(x, s.states + s.m), **out = ox_type_outputs(x, g->n_output);
	if (!in || !out || body_inputs(x, &s, in) < 0 || ox_infer_graph(x, g, "body", in, s.states + s.m, out) < 0)
		return -1;
	for (size_t i = 0; i < x->n_out; i++)
		if (scan_output(x, &s, i, out[i], i < s.states ? in[i] : NULL) < 0)
			return -1;
	return 0;
}
