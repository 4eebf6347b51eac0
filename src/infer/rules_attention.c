/* Inference rules of the attention family, with the shapes the evaluator computes
 * (src/eval/ops/attention.c, norm.c, gated.c, ssm.c): RotaryEmbedding (the input's type),
 * Attention (3-D or 4-D Q, K and V, query heads grouped over the K/V heads, past and present
 * caches, the QK output), ai.onnx.preview FlexAttention (its score_mod and prob_mod
 * sub-graphs), LinearAttention, RMSNormalization, SwiGLU and CausalConvWithState. */
#include <stdio.h>
#include <string.h>

#include "infer/rules.h"

int ox_rule_rotary_embedding(ox_ictx *x)
{
	const ox_type *t = ox_input(x, 0);
	ox_out_like(x, 0, t && t->kind == OX_T_TENSOR ? t->elem : ox_out_elem(x, 0), 0);
	return 0;
}

/* ---- shared checks --------------------------------------------------------------------------- */

/* Dim have of input i (called what) must be want (whose): the one dim into *out, else an
 * error at the input naming both. */
static int agree(ox_ictx *x, size_t i, const char *what, ox_dim have, ox_dim want, const char *whose, ox_dim *out)
{
	ox_dim u;
	if (ox_dim_unify(have, want, &u)) {
		if (out)
			*out = u;
		return 0;
	}
	char a[32], b[32];
	ox_dim_str(have, a, sizeof a);
	ox_dim_str(want, b, sizeof b);
	return ox_ierr(x, OX_P_INPUT, i, "input '%s' has %s %s, but %s %s", x->node->input[i], what, a, whose, b);
}

/* Input i, when typed, must have rank r (what: its layout, for the message); NULL when
 * its shape is unknown. */
static const ox_type *of_rank(ox_ictx *x, size_t i, int r, const char *what, bool *bad)
{
	const ox_type *t = ox_input_ranked(x, i);
	if (t && t->rank != r) {
		ox_ierr(x, OX_P_INPUT, i, "input '%s' has rank %d; expected %s (rank %d)", x->node->input[i], t->rank, what, r);
		*bad = true;
		return NULL;
	}
	return t;
}

/* hidden / heads when hidden is known (an error when heads does not divide it), else unknown. */
static int per_head(ox_ictx *x, size_t i, ox_dim hidden, int64_t heads, const char *attr, ox_dim *out)
{
	*out = OX_DIM_UNKNOWN;
	if (!ox_dim_known(hidden))
		return 0;
	if (heads <= 0 || hidden.v % heads)
		return ox_ierr(x, OX_P_INPUT, i, "input '%s' has a last dimension of %lld, not a multiple of %s (%lld)",
			       x->node->input[i], (long long)hidden.v, attr, (long long)heads);
	*out = ox_dim_num(hidden.v / heads);
	return 0;
}

/* hq query heads over hkv K/V heads: each K/V head serves a group of query heads. */
static int grouped(ox_ictx *x, ox_dim hq, ox_dim hkv)
{
	if (ox_dim_known(hq) && ox_dim_known(hkv) && (hkv.v == 0 || hq.v % hkv.v))
		return ox_ierr(x, OX_P_OP, 0, "the %lld query heads cannot be grouped over %lld key/value heads",
			       (long long)hq.v, (long long)hkv.v);
	return 0;
}

/* Output i, when the node has it: a tensor of elem with the rank dims d. */
static void set_dims(ox_ictx *x, size_t i, int elem, int rank, const ox_dim *d)
{
	if (i < x->n_out && x->node->output[i] && *x->node->output[i])
		ox_set_out(x, i, ox_type_dims(x, elem, rank, d));
}

/* ---- Attention ------------------------------------------------------------------------------- */

/* Q, K or V as [batch, heads, sequence, head size]: 4-D as it is, 3-D [batch, sequence,
 * heads * head size] split by the heads attribute. */
typedef struct heads {
	ox_dim b, h, s, d;
} heads;

typedef struct attn {
	heads q, k, v;
	int rank;
	bool past;          /* past_key and past_value given */
	ox_dim total;       /* past + new sequence length */
} attn;

static int as_heads(ox_ictx *x, size_t i, const char *attr, heads *h)
{
	const ox_type *t = ox_input_ranked(x, i);
	if (t->rank == 4) {
		*h = (heads){t->dims[0], t->dims[1], t->dims[2], t->dims[3]};
		return 0;
	}
	if (t->rank != 3)
		return ox_ierr(x, OX_P_INPUT, i, "input '%s' has rank %d; Attention takes [batch, sequence, hidden] (3-D) or "
			       "[batch, heads, sequence, head size] (4-D)", x->node->input[i], t->rank);
	int64_t n = ox_iattr_int(x, attr, 0);
	if (n <= 0)
		return ox_ierr(x, OX_P_INPUT, i, "input '%s' is 3-D, so attribute '%s' must give its heads", x->node->input[i],
			       attr);
	*h = (heads){t->dims[0], ox_dim_num(n), t->dims[1], OX_DIM_UNKNOWN};
	return per_head(x, i, t->dims[2], n, attr, &h->d);
}

/* Q, K and V: one rank, one batch, K's head size Q's, V's heads and length K's. */
static int attn_qkv(ox_ictx *x, attn *A)
{
	static const char *const attrs[] = {"q_num_heads", "kv_num_heads", "kv_num_heads"};
	heads *hs[3] = {&A->q, &A->k, &A->v};
	A->rank = ox_input_ranked(x, 0)->rank;
	for (size_t i = 0; i < 3; i++) {
		int r = ox_input_ranked(x, i)->rank;
		if (i && r != A->rank && (r == 3 || r == 4) && (A->rank == 3 || A->rank == 4))
			return ox_ierr(x, OX_P_INPUT, i, "input '%s' is %d-D but Q is %d-D; Q, K and V must all be 3-D or all "
				       "4-D", x->node->input[i], r, A->rank);
		if (as_heads(x, i, attrs[i], hs[i]) < 0)
			return -1;
	}
	if (agree(x, 1, "batch size", A->k.b, A->q.b, "Q has", &A->q.b) < 0 ||
	    agree(x, 2, "batch size", A->v.b, A->q.b, "Q has", &A->q.b) < 0 ||
	    agree(x, 1, "head size", A->k.d, A->q.d, "Q has", &A->q.d) < 0 ||
	    agree(x, 2, "heads", A->v.h, A->k.h, "K has", &A->k.h) < 0 ||
	    agree(x, 2, "sequence length", A->v.s, A->k.s, "K has", &A->k.s) < 0)
		return -1;
	return grouped(x, A->q.h, A->k.h);
}

/* past_key [batch, K/V heads, past, head size] and past_value [..., past, V's head size]:
 * the total sequence is past + K's. */
static int attn_past(ox_ictx *x, attn *A)
{
	bool bad = false;
	A->past = ox_has_input(x, 4);
	if (A->past != ox_has_input(x, 5))
		return ox_ierr(x, OX_P_OP, 0, "past_key and past_value must be given together");
	if (A->past && ox_has_input(x, 6))
		return ox_ierr(x, OX_P_INPUT, 6, "nonpad_kv_seqlen cannot be used with past_key and past_value");
	const char *layout = "[batch, kv_num_heads, past_sequence, head size]";
	const ox_type *pk = A->past ? of_rank(x, 4, 4, layout, &bad) : NULL;
	const ox_type *pv = A->past ? of_rank(x, 5, 4, layout, &bad) : NULL;
	ox_dim past = OX_DIM_UNKNOWN;
	if (bad || (pk && (agree(x, 4, "batch size", pk->dims[0], A->q.b, "Q has", NULL) < 0 ||
			   agree(x, 4, "heads", pk->dims[1], A->k.h, "K has", NULL) < 0 ||
			   agree(x, 4, "head size", pk->dims[3], A->q.d, "Q has", NULL) < 0)))
		return -1;
	if (pv && (agree(x, 5, "batch size", pv->dims[0], A->q.b, "Q has", NULL) < 0 ||
		   agree(x, 5, "heads", pv->dims[1], A->k.h, "K has", NULL) < 0 ||
		   agree(x, 5, "past length", pv->dims[2], pk ? pk->dims[2] : OX_DIM_UNKNOWN, "past_key has", &past) < 0 ||
		   agree(x, 5, "head size", pv->dims[3], A->v.d, "V has", NULL) < 0))
		return -1;
	if (pk && !pv)
		past = pk->dims[2];
	A->total = A->past ? ox_dim_add(past, A->k.s) : A->k.s;
	return 0;
}

/* attn_mask broadcasts to [batch, q heads, q sequence, total] (its last dim may be shorter:
 * the rest is masked); nonpad_kv_seqlen holds one length per batch. */
static int attn_mask(ox_ictx *x, const attn *A)
{
	const ox_type *m = ox_input_ranked(x, 3), *np = ox_input_ranked(x, 6);
	if (np && (np->rank != 1 || !ox_dim_unify(np->dims[0], A->q.b, &(ox_dim){0})))
		return ox_ierr(x, OX_P_INPUT, 6, "input '%s' must be a vector of one length per batch", x->node->input[6]);
	if (!m)
		return 0;
	if (m->rank < 1 || m->rank > 4)
		return ox_ierr(x, OX_P_INPUT, 3, "input '%s' (the mask) has rank %d; expected 1 to 4", x->node->input[3], m->rank);
	ox_dim want[4] = {A->q.b, A->q.h, A->q.s, A->total}, u;
	static const char *const names[] = {"batch", "query heads", "query sequence"};
	for (int i = 0; i < 3; i++) {
		int j = i - (4 - m->rank);
		if (j >= 0 && !(ox_dim_known(m->dims[j]) && m->dims[j].v == 1) && !ox_dim_unify(m->dims[j], want[i], &u)) {
			char a[32], b[32];
			ox_dim_str(m->dims[j], a, sizeof a), ox_dim_str(want[i], b, sizeof b);
			return ox_ierr(x, OX_P_INPUT, 3, "input '%s' (the mask) has %s at dimension %d, which does not broadcast to "
				       "the %s (%s)", x->node->input[3], a, j, names[i], b);
		}
	}
	ox_dim last = m->dims[m->rank - 1];
	if (ox_dim_known(last) && ox_dim_known(A->total) && last.v > A->total.v)
		return ox_ierr(x, OX_P_INPUT, 3, "input '%s' (the mask) covers %lld keys, more than the total sequence (%lld)",
			       x->node->input[3], (long long)last.v, (long long)A->total.v);
	return 0;
}

/* Y in Q's layout, present key and value, and the QK product. */
static void attn_outputs(ox_ictx *x, const attn *A)
{
	ox_dim y4[4] = {A->q.b, A->q.h, A->q.s, A->v.d}, y3[3] = {A->q.b, A->q.s, ox_dim_mul(A->q.h, A->v.d)};
	ox_dim pk[4] = {A->q.b, A->k.h, A->total, A->q.d}, pv[4] = {A->q.b, A->k.h, A->total, A->v.d};
	ox_dim qk[4] = {A->q.b, A->q.h, A->q.s, A->total};
	set_dims(x, 0, ox_out_elem(x, 0), A->rank, A->rank == 3 ? y3 : y4);
	set_dims(x, 1, ox_out_elem(x, 1), 4, pk);
	set_dims(x, 2, ox_out_elem(x, 2), 4, pv);
	set_dims(x, 3, ox_out_elem(x, 3), 4, qk);
}

int ox_rule_attention(ox_ictx *x)
{
	attn A = {0};
	int64_t mode = ox_iattr_int(x, "qk_matmul_output_mode", 0);
	if (mode < 0 || mode > 3)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'qk_matmul_output_mode' is %lld; expected 0, 1, 2 or 3", (long long)mode);
	if (!ox_input_ranked(x, 0) || !ox_input_ranked(x, 1) || !ox_input_ranked(x, 2)) {
		const ox_type *q = ox_input_ranked(x, 0);
		for (size_t i = 0; i < x->n_out; i++)
			if (x->node->output[i] && *x->node->output[i])
				ox_set_out(x, i, ox_type_tensor(x, ox_out_elem(x, i), i ? 4 : q ? q->rank : -1));
		return 0;
	}
	if (attn_qkv(x, &A) < 0 || attn_past(x, &A) < 0 || attn_mask(x, &A) < 0)
		return -1;
	attn_outputs(x, &A);
	return 0;
}

/* ---- ai.onnx.preview FlexAttention ----------------------------------------------------------- */

/* The softmax_precision type: float unless the inputs are double, or the attribute's. */
static int flex_precision(ox_ictx *x, int elem)
{
	const Onnx__AttributeProto *p = ox_iattr(x, "softmax_precision");
	if (!p)
		return elem == OX_DOUBLE ? OX_DOUBLE : OX_FLOAT;
	if (p->i != OX_FLOAT && p->i != OX_FLOAT16 && p->i != OX_DOUBLE && p->i != OX_BFLOAT16)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'softmax_precision' is %lld; expected 1 (float), 10 (float16), "
			       "11 (double) or 16 (bfloat16)", (long long)p->i);
	return (int)p->i;
}

/* The sub-graph of attr, when the node has one, takes the scores (or probabilities) and
 * must give back a tensor of their type and shape. */
static int flex_mod(ox_ictx *x, const char *attr, const ox_type *scores)
{
	const Onnx__GraphProto *g = ox_iattr_graph(x, attr);
	if (!g)
		return 0;
	if (g->n_input != 1 || g->n_output != 1)
		return ox_ierr(x, OX_P_OP, 0, "attribute '%s' has %zu inputs and %zu outputs; it must take one tensor and give "
			       "one back", attr, g->n_input, g->n_output);
	const ox_type **out = ox_type_outputs(x, 1);
	if (!out || ox_infer_graph(x, g, attr, &scores, 1, out) < 0)
		return -1;
	if (out[0] && !ox_type_compatible(out[0], scores)) {
		char a[160], b[160];
		ox_type_str(out[0], a, sizeof a);
		ox_type_str(scores, b, sizeof b);
		return ox_ierr(x, OX_P_OP, 0, "attribute '%s' gives %s; it must give back its input's type, %s", attr, a, b);
	}
	return 0;
}

/* Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev]: Y [B, Hq, L, Ev]; the sub-graphs see
 * [B, Hq, L, S] in the softmax precision. */
int ox_rule_flex_attention(ox_ictx *x)
{
	const char *layout = "[batch, heads, sequence, head size]";
	bool bad = false;
	const ox_type *q = of_rank(x, 0, 4, layout, &bad), *k = of_rank(x, 1, 4, layout, &bad), *v = of_rank(x, 2, 4, layout, &bad);
	int elem = ox_out_elem(x, 0), ctype = bad ? -1 : flex_precision(x, elem);
	if (bad || ctype < 0)
		return -1;
	if (!q || !k || !v) {
		ox_set_out(x, 0, ox_type_tensor(x, elem, 4));
		return 0;
	}
	ox_dim b = q->dims[0], e = q->dims[3], hkv = k->dims[1], s = k->dims[2];
	if (agree(x, 1, "batch size", k->dims[0], b, "Q has", &b) < 0 || agree(x, 2, "batch size", v->dims[0], b, "Q has", &b) < 0 ||
	    agree(x, 1, "head size", k->dims[3], e, "Q has", NULL) < 0 ||
	    agree(x, 2, "heads", v->dims[1], hkv, "K has", &hkv) < 0 ||
	    agree(x, 2, "sequence length", v->dims[2], s, "K has", &s) < 0 || grouped(x, q->dims[1], hkv) < 0)
		return -1;
	ox_dim sd[4] = {b, q->dims[1], q->dims[2], s}, yd[4] = {b, q->dims[1], q->dims[2], v->dims[3]};
	const ox_type *scores = ox_type_dims(x, ctype, 4, sd);
	if (!scores || flex_mod(x, "score_mod", scores) < 0 || flex_mod(x, "prob_mod", scores) < 0)
		return -1;
	set_dims(x, 0, elem, 4, yd);
	return 0;
}

/* ---- LinearAttention ------------------------------------------------------------------------- */

typedef struct lin {
	ox_dim b, t, dk, dv;
	int64_t hq, hkv;
	bool gated, delta;
	const char *rule;
} lin;

static int lin_rule(ox_ictx *x, lin *L)
{
	static const char *const rules[] = {"linear", "gated", "delta", "gated_delta"};
	const char *r = ox_iattr_str(x, "update_rule", "gated_delta");
	for (int i = 0; i < 4; i++)
		if (!strcmp(r, rules[i])) {
			L->gated = i % 2, L->delta = i >= 2, L->rule = rules[i];
			return 0;
		}
	return ox_ierr(x, OX_P_OP, 0, "attribute 'update_rule' is '%s'; expected linear, gated, delta or gated_delta", r);
}

/* query [B, T, Hq * dk], key [B, T, Hkv * dk], value [B, T, Hkv * dv]. */
static int lin_qkv(ox_ictx *x, lin *L, const ox_type *const *in)
{
	L->hq = ox_iattr_int(x, "q_num_heads", 0), L->hkv = ox_iattr_int(x, "kv_num_heads", 0);
	if (L->hq <= 0 || L->hkv <= 0 || L->hq % L->hkv)
		return ox_ierr(x, OX_P_OP, 0, "attribute 'q_num_heads' (%lld) must be a positive multiple of 'kv_num_heads' "
			       "(%lld)", (long long)L->hq, (long long)L->hkv);
	ox_dim dk2;
	if (per_head(x, 0, in[0]->dims[2], L->hq, "q_num_heads", &L->dk) < 0 ||
	    per_head(x, 1, in[1]->dims[2], L->hkv, "kv_num_heads", &dk2) < 0 ||
	    per_head(x, 2, in[2]->dims[2], L->hkv, "kv_num_heads", &L->dv) < 0 ||
	    agree(x, 1, "head size", dk2, L->dk, "query has", &L->dk) < 0)
		return -1;
	L->b = in[0]->dims[0], L->t = in[0]->dims[1];
	for (size_t i = 1; i < 3; i++)
		if (agree(x, i, "batch size", in[i]->dims[0], L->b, "query has", &L->b) < 0 ||
		    agree(x, i, "sequence length", in[i]->dims[1], L->t, "query has", &L->t) < 0)
			return -1;
	return 0;
}

/* decay or beta (input i): given exactly when the update rule uses it, [B, T, one of lasts]. */
static int lin_gate(ox_ictx *x, const lin *L, size_t i, bool used, ox_dim l0, ox_dim l1)
{
	static const char *const names[] = {"decay", "beta"};
	const char *what = names[i - 4];
	if (used != ox_has_input(x, i))
		return ox_ierr(x, used ? OX_P_OP : OX_P_INPUT, used ? 0 : i, "update_rule '%s' %s the %s input", L->rule,
			       used ? "needs" : "does not take", what);
	bool bad = false;
	const ox_type *g = used ? of_rank(x, i, 3, "[batch, sequence, heads]", &bad) : NULL;
	if (bad || (g && (agree(x, i, "batch size", g->dims[0], L->b, "query has", NULL) < 0 ||
			  agree(x, i, "sequence length", g->dims[1], L->t, "query has", NULL) < 0)))
		return -1;
	ox_dim d = g ? g->dims[2] : OX_DIM_UNKNOWN, u;
	if (ox_dim_known(d) && ox_dim_known(l0) && ox_dim_known(l1) && !ox_dim_unify(d, l0, &u) && !ox_dim_unify(d, l1, &u))
		return ox_ierr(x, OX_P_INPUT, i, "the %s input '%s' has a last dimension of %lld; expected %lld or %lld",
			       what, x->node->input[i], (long long)d.v, (long long)l0.v, (long long)l1.v);
	return 0;
}

/* output [B, T, Hq * dv] of query's type; present_state [B, Hkv, dk, dv] of past_state's. */
int ox_rule_linear_attention(ox_ictx *x)
{
	lin L = {0};
	bool bad = false;
	const char *layout = "[batch, sequence, heads * head size]";
	const ox_type *in[3] = {of_rank(x, 0, 3, layout, &bad), of_rank(x, 1, 3, layout, &bad), of_rank(x, 2, 3, layout, &bad)};
	int elem = ox_out_elem(x, 0), selem = ox_out_elem(x, 1) ? ox_out_elem(x, 1) : elem;
	if (bad || lin_rule(x, &L) < 0)
		return -1;
	if (!in[0] || !in[1] || !in[2]) {
		set_dims(x, 0, elem, 3, (ox_dim[3]){OX_DIM_UNKNOWN, OX_DIM_UNKNOWN, OX_DIM_UNKNOWN});
		set_dims(x, 1, selem, 4, (ox_dim[4]){OX_DIM_UNKNOWN, OX_DIM_UNKNOWN, OX_DIM_UNKNOWN, OX_DIM_UNKNOWN});
		return 0;
	}
	if (lin_qkv(x, &L, in) < 0)
		return -1;
	ox_dim hkv = ox_dim_num(L.hkv);
	if (lin_gate(x, &L, 4, L.gated, hkv, ox_dim_mul(hkv, L.dk)) < 0 || lin_gate(x, &L, 5, L.delta, hkv, ox_dim_num(1)) < 0)
		return -1;
	ox_dim sd[4] = {L.b, hkv, L.dk, L.dv}, yd[3] = {L.b, L.t, ox_dim_mul(ox_dim_num(L.hq), L.dv)};
	const ox_type *p = of_rank(x, 3, 4, "[batch, kv_num_heads, key head size, value head size]", &bad);
	static const char *const what[] = {"batch size", "heads", "key head size", "value head size"};
	for (int i = 0; p && i < 4; i++)
		if (agree(x, 3, what[i], p->dims[i], sd[i], "the state needs", &sd[i]) < 0)
			return -1;
	if (bad)
		return -1;
	set_dims(x, 0, elem, 3, yd);
	set_dims(x, 1, selem, 4, sd);
	return 0;
}

/* ---- RMSNormalization, SwiGLU, CausalConvWithState -------------------------------------------- */

/* Y has X's shape and, as onnx infers it and the evaluator computes it, X's element type
 * (the schema's V is the scale's; the function body casts back to X's); axis in [-r, r];
 * scale broadcasts to X's shape (towards its last dims). */
int ox_rule_rms_norm(ox_ictx *x)
{
	const ox_type *t = ox_input(x, 0), *in = ox_input_ranked(x, 0), *s = ox_input_ranked(x, 1);
	int a;
	ox_out_like(x, 0, t && t->kind == OX_T_TENSOR && t->elem ? t->elem : ox_out_elem(x, 0), 0);
	if (!in)
		return 0;
	if (ox_infer_axis(x, ox_iattr_int(x, "axis", -1), in->rank, 1, "attribute 'axis'", &a) < 0)
		return -1;
	bool ok = !s || s->rank <= in->rank;
	for (int j = 0; s && ok && j < s->rank; j++) {
		ox_dim d = s->dims[s->rank - 1 - j], u;
		ok = (ox_dim_known(d) && d.v == 1) || ox_dim_unify(d, in->dims[in->rank - 1 - j], &u);
	}
	if (!ok) {
		char a1[160], b1[160];
		ox_type_str(s, a1, sizeof a1);
		ox_type_str(in, b1, sizeof b1);
		return ox_ierr(x, OX_P_INPUT, 1, "input '%s' (the scale) is %s, which does not broadcast to X's shape (%s)",
			       x->node->input[1], a1, b1);
	}
	return 0;
}

/* A and B have one shape (no broadcasting): Y has it. */
int ox_rule_swiglu(ox_ictx *x)
{
	const ox_type *a = ox_input_ranked(x, 0), *b = ox_input_ranked(x, 1);
	if (!a || !b) {
		ox_out_like(x, 0, ox_out_elem(x, 0), a ? 0 : 1);
		return 0;
	}
	ox_type *y = ox_type_tensor(x, ox_out_elem(x, 0), a->rank);
	bool ok = a->rank == b->rank;
	for (int i = 0; y && ok && i < a->rank; i++)
		ok = ox_dim_unify(a->dims[i], b->dims[i], &y->dims[i]);
	if (!ok) {
		char sa[160], sb[160];
		ox_type_str(a, sa, sizeof sa);
		ox_type_str(b, sb, sizeof sb);
		return ox_ierr(x, OX_P_INPUT, 1, "input '%s' is %s, but A is %s; SwiGLU does not broadcast", x->node->input[1], sb,
			       sa);
	}
	ox_set_out(x, 0, y);
	return 0;
}

/* input [B, C, L], weight [C, 1, K], bias [C], past_state [B, C, K - 1]: output like input,
 * present_state [B, C, K - 1]. */
int ox_rule_causal_conv(ox_ictx *x)
{
	bool bad = false;
	const ox_type *in = of_rank(x, 0, 3, "[batch, channels, length]", &bad), *w = of_rank(x, 1, 3, "[channels, 1, k]", &bad);
	const ox_type *bias = of_rank(x, 2, 1, "[channels]", &bad), *past = of_rank(x, 3, 3, "[batch, channels, k - 1]", &bad);
	int elem = ox_out_elem(x, 0);
	if (bad)
		return -1;
	ox_dim b = in ? in->dims[0] : OX_DIM_UNKNOWN, c = in ? in->dims[1] : OX_DIM_UNKNOWN, k1 = OX_DIM_UNKNOWN;
	if (w && (agree(x, 1, "channels", w->dims[0], c, "the input has", &c) < 0 ||
		  agree(x, 1, "a middle dimension of", w->dims[1], ox_dim_num(1), "depthwise weights have", NULL) < 0))
		return -1;
	if (w && ox_dim_known(w->dims[2]) && w->dims[2].v < 1)
		return ox_ierr(x, OX_P_INPUT, 1, "input '%s' has a kernel of 0 taps", x->node->input[1]);
	if (w && ox_dim_known(w->dims[2]))
		k1 = ox_dim_num(w->dims[2].v - 1);
	if ((bias && agree(x, 2, "channels", bias->dims[0], c, "the input has", &c) < 0) ||
	    (past && (agree(x, 3, "batch size", past->dims[0], b, "the input has", &b) < 0 ||
		      agree(x, 3, "channels", past->dims[1], c, "the input has", &c) < 0 ||
		      agree(x, 3, "a state length of", past->dims[2], k1, "the kernel's k - 1 is", &k1) < 0)))
		return -1;
	ox_dim yd[3] = {b, c, in ? in->dims[2] : OX_DIM_UNKNOWN}, sd[3] = {b, c, k1};
	set_dims(x, 0, elem, 3, yd);
	set_dims(x, 1, ox_out_elem(x, 1), 3, sd);
	return 0;
}
