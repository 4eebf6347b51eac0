/* Inference rules of matrix products: MatMul (numpy's rules: 1-D operands promoted, batch
 * dimensions broadcast), MatMulInteger and QLinearMatMul (the same shapes), Gemm (transposes,
 * C broadcast to the result), Einsum (its equation read by einsum.h, as the evaluator reads it). */
#include <stdio.h>
#include <stdlib.h>

#include "einsum.h"
#include "infer/rules.h"

/* The inner dims of a product of inputs ia and ib must agree: an error naming both operands
 * otherwise. */
static int inner(ox_ictx *x, size_t ia, size_t ib, ox_dim ka, ox_dim kb, ox_dim *k)
{
	if (ox_dim_unify(ka, kb, k))
		return 0;
	char a[160], b[160];
	ox_type_str(ox_input(x, ia), a, sizeof a);
	ox_type_str(ox_input(x, ib), b, sizeof b);
	return ox_ierr(x, OX_P_OP, 0, "the inner dimensions differ: '%s' is %s (%lld columns), '%s' is %s (%lld rows)",
		       x->node->input[ia], a, (long long)ka.v, x->node->input[ib], b, (long long)kb.v);
}

/* Output 0 of elem: the matrix product of inputs ia and ib (MatMul, MatMulInteger,
 * QLinearMatMul). */
static int matmul(ox_ictx *x, size_t ia, size_t ib, int elem)
{
	const ox_type *a = ox_input_ranked(x, ia), *b = ox_input_ranked(x, ib);
	if (!a || !b) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, -1));
		return 0;
	}
	if (a->rank == 0 || b->rank == 0)
		return ox_ierr(x, OX_P_INPUT, a->rank == 0 ? ia : ib, "input '%s' is a scalar; %s needs rank 1 or more",
			       x->node->input[a->rank == 0 ? ia : ib], x->node->op_type);
	ox_dim k;
	ox_dim ka = a->dims[a->rank - 1], kb = b->dims[b->rank >= 2 ? b->rank - 2 : 0];
	if (inner(x, ia, ib, ka, kb, &k) < 0)
		return -1;
	/* batch dims: all but the last two of each (1-D operands have none) */
	int ba = a->rank >= 2 ? a->rank - 2 : 0, bb = b->rank >= 2 ? b->rank - 2 : 0;
	int batch = ba > bb ? ba : bb;
	int rank = batch + (a->rank >= 2) + (b->rank >= 2);
	ox_type *out = ox_type_tensor(x, elem, rank);
	for (int d = 0; out && d < batch; d++) {
		ox_dim da = d >= batch - ba ? a->dims[d - (batch - ba)] : ox_dim_num(1);
		ox_dim db = d >= batch - bb ? b->dims[d - (batch - bb)] : ox_dim_num(1);
		if (!ox_dim_broadcast(da, db, &out->dims[d]))
			return ox_ierr(x, OX_P_OP, 0, "batch dimension %d does not broadcast: %lld against %lld", d,
				       (long long)da.v, (long long)db.v);
	}
	if (out && a->rank >= 2)
		out->dims[batch] = a->dims[a->rank - 2];
	if (out && b->rank >= 2)
		out->dims[rank - 1] = b->dims[b->rank - 1];
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_matmul(ox_ictx *x)
{
	return matmul(x, 0, 1, ox_out_elem(x, 0));
}

/* QLinearMatMul: the product of a (input 0) and b (input 3), of y_zero_point's element type
 * (a's when it is left out, as the evaluator does); y_scale and y_zero_point are scalars. */
int ox_rule_qlinear_matmul(ox_ictx *x)
{
	const ox_type *a = ox_input(x, 0);
	for (size_t i = 6; i < 8; i++) {
		const ox_type *t = ox_input_ranked(x, i);
		int64_t n = t ? ox_type_count(t) : -1;
		if (n >= 0 && n != 1)
			return ox_ierr(x, OX_P_INPUT, i, "input '%s' (%s) has %lld values; expected a scalar", x->node->input[i],
				       x->schema->inputs[i].name, (long long)n);
	}
	return matmul(x, 0, 3, ox_out_elem(x, 0) ? ox_out_elem(x, 0) : a && a->kind == OX_T_TENSOR ? a->elem : 0);
}

int ox_rule_gemm(ox_ictx *x)
{
	const ox_type *a = ox_input_ranked(x, 0), *b = ox_input_ranked(x, 1), *c = ox_input_ranked(x, 2);
	int elem = ox_out_elem(x, 0);
	ox_type *out = ox_type_tensor(x, elem, 2);
	if (!out || !a || !b) {
		ox_set_out(x, 0, out);
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		const ox_type *t = i ? b : a;
		if (t->rank != 2)
			return ox_ierr(x, OX_P_INPUT, (size_t)i, "input '%s' has rank %d; Gemm needs matrices",
				       x->node->input[i], t->rank);
	}
	bool ta = ox_iattr_int(x, "transA", 0) != 0, tb = ox_iattr_int(x, "transB", 0) != 0;
	ox_dim k;
	if (inner(x, 0, 1, a->dims[ta ? 0 : 1], b->dims[tb ? 1 : 0], &k) < 0)
		return -1;
	out->dims[0] = a->dims[ta ? 1 : 0];
	out->dims[1] = b->dims[tb ? 0 : 1];
	/* C broadcasts to [M, N] one way: each of its dims is 1 or the result's */
	for (int d = 0; c && d < c->rank && c->rank <= 2; d++) {
		ox_dim cd = c->dims[d], od = out->dims[2 - c->rank + d], r;
		if (!(ox_dim_known(cd) && cd.v == 1) && !ox_dim_unify(cd, od, &r))
			return ox_ierr(x, OX_P_INPUT, 2, "input '%s' does not broadcast to the result: its dimension %d is %lld, "
				       "against %lld", x->node->input[2], d, (long long)cd.v, (long long)od.v);
	}
	if (c && c->rank > 2)
		return ox_ierr(x, OX_P_INPUT, 2, "input '%s' has rank %d; Gemm's C has rank 2 at most", x->node->input[2],
			       c->rank);
	ox_set_out(x, 0, out);
	return 0;
}

/* ---- Einsum ---------------------------------------------------------------------------------- */

/* A label for messages: "label 'i'", or "ellipsis dim 0". */
static void label_name(int l, char *buf, size_t size)
{
	if (l >= OX_EINSUM_LETTERS)
		snprintf(buf, size, "ellipsis dim %d", l - OX_EINSUM_LETTERS);
	else
		snprintf(buf, size, "label '%c'", ox_einsum_label_char(l));
}

/* Each label's dim: within one input a repeated label takes a diagonal (its dims equal);
 * across inputs a 1 broadcasts, as at run time. An error names the label and both dims. */
static int label_dims(ox_ictx *x, const ox_einsum *E, ox_dim *size, bool *seen)
{
	int from[OX_EINSUM_MAXL] = {0};
	for (int i = 0; i < E->nin; i++) {
		const ox_type *t = ox_input(x, (size_t)i);
		ox_dim mine[OX_EINSUM_MAXL];
		bool here[OX_EINSUM_MAXL] = {false};
		for (int j = 0; j < E->nl[i]; j++) {
			int l = E->lab[i][j];
			ox_dim d = t->dims[j], u = d;
			char a[32], b[32], ln[32];
			if (here[l] && !ox_dim_unify(mine[l], d, &u)) {
				label_name(l, ln, sizeof ln), ox_dim_str(mine[l], a, sizeof a), ox_dim_str(d, b, sizeof b);
				return ox_ierr(x, OX_P_INPUT, (size_t)i, "equation: %s is repeated in the term of input %d "
					       "('%s') over dims %s and %s; a diagonal needs equal dims", ln, i,
					       x->node->input[i], a, b);
			}
			mine[l] = here[l] ? u : d, here[l] = true;
			if (seen[l] && !ox_dim_broadcast(size[l], d, &u)) {
				label_name(l, ln, sizeof ln), ox_dim_str(size[l], a, sizeof a), ox_dim_str(d, b, sizeof b);
				return ox_ierr(x, OX_P_INPUT, (size_t)i, "equation: %s is %s in input %d ('%s') but %s in input "
					       "%d ('%s')", ln, a, from[l], x->node->input[from[l]], b, i, x->node->input[i]);
			}
			if (!seen[l] || (ox_dim_known(size[l]) && size[l].v == 1))
				from[l] = i; /* the input that gave the dim */
			size[l] = seen[l] ? u : d, seen[l] = true;
		}
	}
	return 0;
}

/* The output of a parsed equation: each output label's dim. */
static int einsum_out(ox_ictx *x, const ox_einsum *E, int elem)
{
	ox_dim size[OX_EINSUM_MAXL];
	bool seen[OX_EINSUM_MAXL] = {false};
	if (label_dims(x, E, size, seen) < 0)
		return -1;
	ox_type *out = ox_type_tensor(x, elem, E->nout);
	for (int j = 0; out && j < E->nout; j++)
		out->dims[j] = size[E->out[j]];
	ox_set_out(x, 0, out);
	return 0;
}

int ox_rule_einsum(ox_ictx *x)
{
	int elem = ox_out_elem(x, 0), n = (int)x->n_in, rc = 0;
	const Onnx__AttributeProto *a = ox_iattr(x, "equation");
	int *ranks = calloc((size_t)n + 1, sizeof *ranks), *nl = calloc((size_t)n + 1, sizeof *nl);
	int (*lab)[OX_EINSUM_MAXL] = calloc((size_t)n + 1, sizeof *lab);
	bool ranked = a && ranks && nl && lab;
	for (int i = 0; ranked && i < n; i++) {
		const ox_type *t = ox_input_ranked(x, (size_t)i);
		ranked = t != NULL;
		ranks[i] = t ? t->rank : -1;
	}
	ox_einsum E = {.nin = n, .lab = lab, .nl = nl};
	if (!ranked) /* the equation cannot be read against the inputs yet */
		ox_set_out(x, 0, ox_type_tensor(x, elem, -1));
	else if (ox_einsum_parse(&E, (const char *)a->s.data, a->s.len, ranks) < 0)
		rc = E.bad >= 0 ? ox_ierr(x, OX_P_INPUT, (size_t)E.bad, "%s (input %d, '%s')", E.err, E.bad,
					  x->node->input[E.bad])
				: ox_ierr(x, OX_P_OP, 0, "%s", E.err);
	else
		rc = einsum_out(x, &E, elem);
	free(ranks), free(nl), free(lab);
	return rc;
}
