/* Attention (opsets 23, 24) and RotaryEmbedding (23), after the spec's function bodies:
 * scaled dot product of Q and K (3-D inputs split into heads), bias from attn_mask (bool:
 * 0 or -inf; shorter masks padded with -inf), the causal mask (key j hidden from query i
 * when j > i + past length), the padding mask of nonpad_kv_seqlen, softcap, softmax, and
 * the product with V; K/V heads shared by groups of query heads (GQA); past and present
 * key/value caches. LinearAttention (27): the recurrences of its four update rules, token
 * by token. ai.onnx.preview.FlexAttention (1): scores, softmax and output in the
 * softmax_precision type, with the score_mod and prob_mod sub-graphs run on the whole score
 * and probability tensors. Computes in double. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eval/kernel.h"
#include "eval/move.h"


static const int float_types[] = {OX_FLOAT, OX_FLOAT16, OX_DOUBLE, OX_BFLOAT16, 0};

/* A [B, H, S, D] view of Q, K or V (3-D inputs [B, S, H * D] are read through strides). */
typedef struct heads {
	int64_t b, h, s, d;
	int64_t sb, sh, ss; /* element strides of batch, head and sequence; d is contiguous */
} heads;

static int as_heads(ox_k *k, const ox_val *t, int64_t nh, const char *what, heads *v)
{
	if (t->rank == 4) {
		*v = (heads){t->dims[0], t->dims[1], t->dims[2], t->dims[3], 0, 0, 0};
		v->ss = v->d, v->sh = v->s * v->d, v->sb = v->h * v->sh;
		return 0;
	}
	if (t->rank != 3)
		return ox_kfail(k, "%s must have rank 3 or 4, not %d", what, t->rank);
	if (nh <= 0 || t->dims[2] % nh)
		return ox_kfail(k, "%s is 3-D: q_num_heads and kv_num_heads must be set and divide its hidden size", what);
	*v = (heads){t->dims[0], nh, t->dims[1], t->dims[2] / nh, 0, 0, 0};
	v->sh = v->d, v->ss = nh * v->d, v->sb = v->s * v->ss;
	return 0;
}

typedef struct attn {
	ox_k *k;
	heads q, k_, v;
	int64_t past, total, group; /* past length, past + new, query heads per K/V head */
	double scale, softcap;
	bool causal;
	double *qd, *kd, *vd; /* Q and the present K and V ([B, Hk, total, D]) */
	const ox_val *mask;
	double *maskd;
	int64_t mstr[4], mlast; /* mask strides over (B, Hq, Sq, total) and its last dim */
	const int64_t *nonpad;
	int mode; /* qk_matmul_output_mode */
	double *y, *qk;
} attn;

/* present = concat(past, new) along the sequence, as [B, Hk, total, D] doubles. */
static double *present(attn *A, const ox_val *past, const ox_val *cur, const heads *h, int64_t d)
{
	double *out = ox_scratch(A->k, h->b * h->h * A->total * d, sizeof *out, "present cache");
	double *p = out && past ? ox_load_f64(A->k, past, "past cache") : NULL;
	double *c = out && (!past || p) ? ox_load_f64(A->k, cur, "key/value") : NULL;
	if (!c) {
		free(out), free(p);
		return NULL;
	}
	for (int64_t b = 0; b < h->b; b++)
		for (int64_t hh = 0; hh < h->h; hh++)
			for (int64_t t = 0; t < A->total; t++) {
				double *dst = out + ((b * h->h + hh) * A->total + t) * d;
				const double *src = t < A->past ? p + ((b * h->h + hh) * A->past + t) * d
								: c + b * h->sb + hh * h->sh + (t - A->past) * h->ss;
				memcpy(dst, src, (size_t)d * sizeof *dst);
			}
	free(p), free(c);
	return out;
}

/* The additive bias for (b, h, i, j). */
static double bias(const attn *A, int64_t b, int64_t h, int64_t i, int64_t j)
{
	double v = 0;
	if (A->mask) {
		if (j >= A->mlast)
			return -INFINITY;
		double m = A->maskd[b * A->mstr[0] + h * A->mstr[1] + i * A->mstr[2] + j * A->mstr[3]];
		v = A->mask->type == OX_BOOL ? (m != 0 ? 0 : -INFINITY) : m;
	}
	int64_t offset = A->past;
	if (A->nonpad && !A->past)
		offset = A->nonpad[b] - A->q.s;
	if (A->causal && j > i + offset)
		v += -INFINITY;
	if (A->nonpad && j >= A->nonpad[b])
		v += -INFINITY;
	return v;
}

/* One row of scores: query i of head h in batch b against every key. */
static void attend_row(attn *A, int64_t b, int64_t h, int64_t i, double *row, double *out)
{
	int64_t kh = h / A->group, D = A->q.d, Dv = A->v.d;
	const double *q = A->qd + b * A->q.sb + h * A->q.sh + i * A->q.ss;
	const double *kbase = A->kd + (b * A->k_.h + kh) * A->total * D;
	double *qk = A->qk ? A->qk + ((b * A->q.h + h) * A->q.s + i) * A->total : NULL;
	double mx = -INFINITY, sum = 0;
	for (int64_t j = 0; j < A->total; j++) {
		double s = 0;
		for (int64_t d = 0; d < D; d++)
			s += q[d] * kbase[j * D + d];
		s *= A->scale;
		if (qk && A->mode == 0)
			qk[j] = s;
		s += bias(A, b, h, i, j);
		if (qk && A->mode == 1)
			qk[j] = s;
		if (A->softcap != 0)
			s = A->softcap * tanh(s / A->softcap);
		if (qk && A->mode == 2)
			qk[j] = s;
		row[j] = s;
		mx = fmax(mx, s);
	}
	for (int64_t j = 0; j < A->total; j++)
		sum += row[j] = exp(row[j] - mx);
	for (int64_t j = 0; j < A->total; j++) {
		row[j] /= sum;
		if (qk && A->mode == 3)
			qk[j] = row[j];
	}
	const double *vbase = A->vd + (b * A->v.h + kh) * A->total * Dv;
	for (int64_t d = 0; d < Dv; d++)
		out[d] = 0;
	for (int64_t j = 0; j < A->total; j++)
		for (int64_t d = 0; row[j] != 0 && d < Dv; d++)
			out[d] += row[j] * vbase[j * Dv + d];
}

/* Mask strides over (B, Hq, Sq, total): numpy broadcasting from the right. */
static int mask_layout(attn *A)
{
	const ox_val *m = A->mask;
	int64_t want[4] = {A->q.b, A->q.h, A->q.s, A->total}, st[OX_MAX_RANK];
	if (m->rank < 1 || m->rank > 4)
		return ox_kfail(A->k, "attn_mask must have rank 1 to 4, not %d", m->rank);
	ox_strides(m->rank, m->dims, st);
	A->mlast = m->dims[m->rank - 1];
	for (int i = 0; i < 4; i++) {
		int j = i - (4 - m->rank);
		int64_t d = j < 0 ? 1 : m->dims[j];
		if (i < 3 && d != 1 && d != want[i])
			return ox_kfail(A->k, "attn_mask's shape does not broadcast to [%lld, %lld, %lld, %lld]",
					(long long)want[0], (long long)want[1], (long long)want[2], (long long)want[3]);
		A->mstr[i] = j < 0 || (d == 1 && i < 3) ? 0 : st[j];
	}
	if (A->mlast > A->total)
		return ox_kfail(A->k, "attn_mask's last dimension (%lld) is longer than the total sequence (%lld)",
				(long long)A->mlast, (long long)A->total);
	return 0;
}

static int attn_shapes(ox_k *k, attn *A, const ox_val *q, const ox_val *kk, const ox_val *v, const ox_val *pk,
		       const ox_val *pv)
{
	int64_t qh = ox_attr_int(k, "q_num_heads", 0), kvh = ox_attr_int(k, "kv_num_heads", 0);
	if (as_heads(k, q, qh, "Q", &A->q) < 0 || as_heads(k, kk, kvh, "K", &A->k_) < 0 ||
	    as_heads(k, v, kvh, "V", &A->v) < 0)
		return -1;
	if (q->rank != kk->rank || q->rank != v->rank)
		return ox_kfail(k, "Q, K and V must all be 3-D or all 4-D");
	if (A->k_.b != A->q.b || A->v.b != A->q.b || A->k_.d != A->q.d || A->v.h != A->k_.h || A->v.s != A->k_.s)
		return ox_kfail(k, "Q, K and V do not agree: batch, K's head size and K/V heads and lengths must match");
	if (A->k_.h == 0 || A->q.h % A->k_.h)
		return ox_kfail(k, "the %lld query heads cannot be grouped over %lld key/value heads", (long long)A->q.h,
				(long long)A->k_.h);
	A->group = A->q.h / A->k_.h;
	if ((pk == NULL) != (pv == NULL))
		return ox_kfail(k, "past_key and past_value must be given together");
	A->past = pk ? pk->dims[2] : 0;
	if (pk && (pk->rank != 4 || pv->rank != 4 || pk->dims[0] != A->q.b || pk->dims[1] != A->k_.h ||
		   pk->dims[3] != A->q.d || pv->dims[0] != A->q.b || pv->dims[1] != A->k_.h || pv->dims[2] != A->past ||
		   pv->dims[3] != A->v.d))
		return ox_kfail(k, "past_key and past_value must be [batch, kv_num_heads, past_length, head size]");
	A->total = A->past + A->k_.s;
	return 0;
}

/* Y in Q's layout (3-D or 4-D), present key/value, and qk_matmul_output. */
static int attn_outputs(ox_k *k, attn *A, const ox_val *q, const ox_val *kk, const ox_val *v, ox_val **out)
{
	int64_t yd[4] = {A->q.b, A->q.h, A->q.s, A->v.d}, y3[3] = {A->q.b, A->q.s, A->q.h * A->v.d};
	int64_t pkd[4] = {A->q.b, A->k_.h, A->total, A->q.d}, pvd[4] = {A->q.b, A->k_.h, A->total, A->v.d};
	int64_t qkd[4] = {A->q.b, A->q.h, A->q.s, A->total};
	if (!(out[0] = q->rank == 3 ? ox_out_tensor(k, 0, q->type, 3, y3) : ox_out_tensor(k, 0, q->type, 4, yd)))
		return -1;
	if (ox_out_wanted(k, 1) && !(out[1] = ox_out_tensor(k, 1, kk->type, 4, pkd)))
		return -1;
	if (ox_out_wanted(k, 2) && !(out[2] = ox_out_tensor(k, 2, v->type, 4, pvd)))
		return -1;
	if (ox_out_wanted(k, 3) && !(out[3] = ox_out_tensor(k, 3, q->type, 4, qkd)))
		return -1;
	return 0;
}

static int attn_run(attn *A, ox_val *const *out)
{
	double *row = ox_scratch(A->k, A->total, sizeof *row, "scores");
	double *yrow = row ? ox_scratch(A->k, A->v.d, sizeof *yrow, "output row") : NULL;
	if (!yrow) {
		free(row);
		return -1;
	}
	for (int64_t b = 0; b < A->q.b; b++)
		for (int64_t h = 0; h < A->q.h; h++)
			for (int64_t i = 0; i < A->q.s; i++) {
				attend_row(A, b, h, i, row, yrow);
				/* Y is [B, H, S, Dv], or [B, S, H * Dv] for 3-D inputs */
				int64_t at = out[0]->rank == 4 ? ((b * A->q.h + h) * A->q.s + i) * A->v.d
							       : ((b * A->q.s + i) * A->q.h + h) * A->v.d;
				memcpy(A->y + at, yrow, (size_t)A->v.d * sizeof *yrow);
			}
	free(row), free(yrow);
	return 0;
}

static int attn_inputs(ox_k *k, ox_val **in)
{
	for (int i = 0; i < 7; i++) {
		in[i] = ox_in_tensor(k, i, i < 3);
		if ((i < 3 && !in[i]) || (!in[i] && ox_in(k, i)))
			return -1;
	}
	if (ox_check_type(k, in[0], "Q", float_types) < 0 || ox_check_type(k, in[1], "K", float_types) < 0 ||
	    ox_check_type(k, in[2], "V", float_types) < 0)
		return -1;
	if (in[6] && (in[6]->type != OX_INT64 || in[6]->rank != 1 || in[6]->dims[0] != in[0]->dims[0]))
		return ox_kfail(k, "nonpad_kv_seqlen must be an int64 vector of one length per batch");
	if (in[6] && in[4])
		return ox_kfail(k, "nonpad_kv_seqlen cannot be used with past_key and past_value");
	return 0;
}

int ox_op_Attention(ox_k *k)
{
	ox_val *in[7], *out[4] = {0};
	attn A = {.k = k};
	if (attn_inputs(k, in) < 0 || attn_shapes(k, &A, in[0], in[1], in[2], in[4], in[5]) < 0)
		return -1;
	A.mask = in[3], A.nonpad = in[6] ? in[6]->data : NULL;
	A.causal = ox_attr_int(k, "is_causal", 0) != 0;
	A.softcap = ox_attr_float(k, "softcap", 0);
	A.mode = (int)ox_attr_int(k, "qk_matmul_output_mode", 0);
	const Onnx__AttributeProto *sa = ox_attr(k, "scale");
	A.scale = sa ? sa->f : 1 / sqrt((double)A.q.d);
	if (A.mode < 0 || A.mode > 3)
		return ox_kfail(k, "qk_matmul_output_mode must be 0, 1, 2 or 3, not %d", A.mode);
	if ((A.mask && mask_layout(&A) < 0) || attn_outputs(k, &A, in[0], in[1], in[2], out) < 0)
		return -1;
	int rc = -1;
	if ((A.qd = ox_load_f64(k, in[0], "Q")) && (A.kd = present(&A, in[4], in[1], &A.k_, A.q.d)) &&
	    (A.vd = present(&A, in[5], in[2], &A.v, A.v.d)) && (!A.mask || (A.maskd = ox_load_f64(k, A.mask, "mask"))) &&
	    (A.y = ox_scratch(k, out[0]->count, sizeof *A.y, "output")) &&
	    (!out[3] || (A.qk = ox_scratch(k, out[3]->count, sizeof *A.qk, "qk output")))) {
		rc = attn_run(&A, out);
		ox_store_f64(out[0], A.y);
		if (out[1])
			ox_store_f64(out[1], A.kd);
		if (out[2])
			ox_store_f64(out[2], A.vd);
		if (out[3])
			ox_store_f64(out[3], A.qk);
	}
	free(A.qd), free(A.kd), free(A.vd), free(A.maskd), free(A.y), free(A.qk);
	return rc;
}

/* ---- RotaryEmbedding --------------------------------------------------------------- */

typedef struct rope {
	heads x;
	int64_t rot, half;
	bool interleaved;
	const ox_val *cos, *sin, *pos;
	int64_t npos;
} rope;

/* The cos/sin row for (b, s): cache[position_ids[b, s]], or cache[b, s] ([S, half] caches
 * broadcast over the batch). */
static int64_t cache_row(ox_k *k, const rope *R, int64_t b, int64_t s)
{
	if (R->pos) {
		int64_t p = ox_get_i64(R->pos, R->pos->count == R->x.s ? s : b * R->x.s + s);
		if (p < 0 || p >= R->npos) {
			ox_kfail(k, "position_ids holds %lld, outside the cache's %lld rows", (long long)p, (long long)R->npos);
			return -1;
		}
		return p;
	}
	return R->cos->rank == 3 ? b * R->x.s + s : s;
}

static void rotate(const rope *R, double *x, const double *c, const double *sn)
{
	for (int64_t i = 0; i < R->half; i++) {
		int64_t a = R->interleaved ? 2 * i : i, b = R->interleaved ? 2 * i + 1 : i + R->half;
		double x1 = x[a], x2 = x[b];
		x[a] = c[i] * x1 - sn[i] * x2;
		x[b] = sn[i] * x1 + c[i] * x2;
	}
}

static int rope_check(ox_k *k, const ox_val *x, rope *R)
{
	int64_t nh = ox_attr_int(k, "num_heads", 0);
	if (x->rank == 4) { /* [B, H, S, D] */
		R->x = (heads){x->dims[0], x->dims[1], x->dims[2], x->dims[3], 0, 0, 0};
		R->x.ss = R->x.d, R->x.sh = R->x.s * R->x.d, R->x.sb = R->x.h * R->x.sh;
	} else if (as_heads(k, x, nh, "input", &R->x) < 0) {
		return -1;
	}
	R->rot = ox_attr_int(k, "rotary_embedding_dim", 0);
	R->rot = R->rot ? R->rot : R->x.d;
	R->half = R->rot / 2;
	R->interleaved = ox_attr_int(k, "interleaved", 0) != 0;
	if (R->rot % 2 || R->rot > R->x.d)
		return ox_kfail(k, "rotary_embedding_dim %lld must be even and at most the head size %lld", (long long)R->rot,
				(long long)R->x.d);
	const ox_val *c = R->cos;
	if (c->rank < 2 || c->dims[c->rank - 1] != R->half || R->sin->rank != c->rank ||
	    memcmp(R->sin->dims, c->dims, (size_t)c->rank * sizeof *c->dims) != 0)
		return ox_kfail(k, "cos_cache and sin_cache must have the same shape, ending in rotary_embedding_dim / 2 = %lld",
				(long long)R->half);
	R->npos = c->dims[0];
	if (R->pos && (R->pos->rank != 2 || R->pos->dims[1] != R->x.s || (R->pos->dims[0] != R->x.b && R->pos->dims[0] != 1)))
		return ox_kfail(k, "position_ids must be [batch_size, sequence_length]");
	if (!R->pos && (c->rank == 3 ? c->dims[0] != R->x.b || c->dims[1] != R->x.s : c->dims[0] != R->x.s))
		return ox_kfail(k, "without position_ids the caches must be [batch_size, sequence_length, %lld]",
				(long long)R->half);
	return 0;
}

int ox_op_RotaryEmbedding(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *c = ox_in_tensor(k, 1, true), *s = ox_in_tensor(k, 2, true);
	ox_val *pos = ox_in_tensor(k, 3, false);
	rope R = {.cos = c, .sin = s, .pos = pos};
	if (!x || !c || !s || (!pos && ox_in(k, 3)) || ox_check_type(k, x, "input", float_types) < 0 ||
	    rope_check(k, x, &R) < 0)
		return -1;
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, x->dims);
	double *xd = y ? ox_load_f64(k, x, "input") : NULL, *cd = xd ? ox_load_f64(k, c, "cos_cache") : NULL;
	double *sd = cd ? ox_load_f64(k, s, "sin_cache") : NULL;
	int rc = sd ? 0 : -1;
	for (int64_t b = 0; rc == 0 && b < R.x.b; b++)
		for (int64_t i = 0; rc == 0 && i < R.x.s; i++) {
			int64_t row = cache_row(k, &R, b, i);
			rc = row < 0 ? -1 : 0;
			for (int64_t h = 0; rc == 0 && h < R.x.h; h++)
				rotate(&R, xd + b * R.x.sb + h * R.x.sh + i * R.x.ss, cd + row * R.half, sd + row * R.half);
		}
	if (rc == 0)
		ox_store_f64(y, xd);
	free(xd), free(cd), free(sd);
	return rc;
}

/* ---- LinearAttention --------------------------------------------------------------- */

/* Per (batch, K/V head) a state S [dk, dv], per token t (g: decay, b: beta):
 *   linear       S += k ⊗ v
 *   gated        S = exp(g) S + k ⊗ v
 *   delta        S += k ⊗ b (v - S^T k)
 *   gated_delta  S = exp(g) S;  S += k ⊗ b (v - S^T k)
 * and o = scale * q^T S for each query head of the K/V head's group. */
typedef struct lin {
	int64_t b, t, hq, hkv, dk, dv, group;
	int64_t glast, blast; /* last dimension of decay (hkv or hkv * dk) and beta (hkv or 1) */
	bool gated, delta;
	const char *rule;
	int qtype;
	double scale;
	double *q, *kk, *v, *g, *beta, *s, *y; /* s: the states, [B, Hkv, dk, dv] */
} lin;

static const int lin_types[] = {OX_FLOAT, OX_FLOAT16, OX_BFLOAT16, 0};

static int lin_rule(ox_k *k, lin *L)
{
	static const char *const rules[] = {"linear", "gated", "delta", "gated_delta"};
	size_t n;
	const char *r = ox_attr_str(k, "update_rule", "gated_delta", &n);
	for (int i = 0; i < 4; i++)
		if (strlen(rules[i]) == n && memcmp(r, rules[i], n) == 0) {
			L->gated = i % 2, L->delta = i >= 2, L->rule = rules[i];
			return 0;
		}
	return ox_kfail(k, "update_rule must be \"linear\", \"gated\", \"delta\" or \"gated_delta\", not \"%.*s\"",
			(int)(n < 64 ? n : 64), r);
}

/* query [B, T, Hq * dk], key [B, T, Hkv * dk], value [B, T, Hkv * dv]. */
static int lin_qkv(ox_k *k, lin *L, ox_val *const *in)
{
	static const char *const names[] = {"query", "key", "value"};
	L->hq = ox_attr_int(k, "q_num_heads", 0), L->hkv = ox_attr_int(k, "kv_num_heads", 0);
	if (L->hq <= 0 || L->hkv <= 0 || L->hq % L->hkv)
		return ox_kfail(k, "q_num_heads (%lld) must be a positive multiple of kv_num_heads (%lld)",
				(long long)L->hq, (long long)L->hkv);
	for (int i = 0; i < 3; i++) {
		if (ox_check_type(k, in[i], names[i], lin_types) < 0)
			return -1;
		if (in[i]->type != in[0]->type)
			return ox_kfail(k, "%s must have query's element type %s, not %s", names[i],
					ox_elem_label(in[0]->type), ox_elem_label(in[i]->type));
		if (in[i]->rank != 3)
			return ox_kfail(k, "%s must have rank 3 [batch, sequence, heads * head size], not %d", names[i],
					in[i]->rank);
	}
	if (in[0]->dims[2] % L->hq || in[2]->dims[2] % L->hkv)
		return ox_kfail(k, "%s's last dimension (%lld) is not a multiple of %s (%lld)",
				in[0]->dims[2] % L->hq ? "query" : "value",
				(long long)(in[0]->dims[2] % L->hq ? in[0]->dims[2] : in[2]->dims[2]),
				in[0]->dims[2] % L->hq ? "q_num_heads" : "kv_num_heads",
				(long long)(in[0]->dims[2] % L->hq ? L->hq : L->hkv));
	L->qtype = in[0]->type, L->b = in[0]->dims[0], L->t = in[0]->dims[1], L->group = L->hq / L->hkv;
	L->dk = in[0]->dims[2] / L->hq, L->dv = in[2]->dims[2] / L->hkv;
	int64_t want[3][3] = {{L->b, L->t, L->hq * L->dk}, {L->b, L->t, L->hkv * L->dk}, {L->b, L->t, L->hkv * L->dv}};
	for (int i = 0; i < 3; i++)
		if (memcmp(in[i]->dims, want[i], sizeof want[i]) != 0)
			return ox_kfail(k, "%s must be [%lld, %lld, %lld] (q_num_heads %lld, kv_num_heads %lld, "
					   "head sizes %lld and %lld), not [%lld, %lld, %lld]", names[i],
					(long long)want[i][0], (long long)want[i][1], (long long)want[i][2], (long long)L->hq,
					(long long)L->hkv, (long long)L->dk, (long long)L->dv, (long long)in[i]->dims[0],
					(long long)in[i]->dims[1], (long long)in[i]->dims[2]);
	return 0;
}

/* decay or beta: given exactly when the update rule uses it, [B, T, one of lasts]; its last
 * dimension into *last. */
static int lin_gate(ox_k *k, lin *L, const ox_val *x, const char *what, bool used, const int64_t *lasts, int64_t *last)
{
	if (used != (x != NULL))
		return ox_kfail(k, "update_rule \"%s\" %s the %s input", L->rule, used ? "needs" : "does not take", what);
	if (!x)
		return 0;
	if (ox_check_type(k, x, what, lin_types) < 0)
		return -1;
	if (x->type != L->qtype)
		return ox_kfail(k, "%s must have query's element type %s, not %s", what, ox_elem_label(L->qtype),
				ox_elem_label(x->type));
	if (x->rank != 3 || x->dims[0] != L->b || x->dims[1] != L->t || (x->dims[2] != lasts[0] && x->dims[2] != lasts[1]))
		return ox_kfail(k, "%s must be [%lld, %lld, %lld] or [%lld, %lld, %lld]", what, (long long)L->b,
				(long long)L->t, (long long)lasts[0], (long long)L->b, (long long)L->t, (long long)lasts[1]);
	*last = x->dims[2];
	return 0;
}

static int lin_check(ox_k *k, lin *L, ox_val *const *in)
{
	if (lin_rule(k, L) < 0 || lin_qkv(k, L, in) < 0)
		return -1;
	int64_t glasts[2] = {L->hkv, L->hkv * L->dk}, blasts[2] = {L->hkv, 1};
	if (lin_gate(k, L, in[4], "decay", L->gated, glasts, &L->glast) < 0 ||
	    lin_gate(k, L, in[5], "beta", L->delta, blasts, &L->blast) < 0)
		return -1;
	const ox_val *p = in[3];
	if (p && ox_check_type(k, p, "past_state", lin_types) < 0)
		return -1;
	int64_t want[4] = {L->b, L->hkv, L->dk, L->dv};
	if (p && (p->rank != 4 || memcmp(p->dims, want, sizeof want) != 0))
		return ox_kfail(k, "past_state must be [batch, kv_num_heads, head size of key, head size of value] = "
				   "[%lld, %lld, %lld, %lld]", (long long)want[0], (long long)want[1], (long long)want[2],
				(long long)want[3]);
	const Onnx__AttributeProto *sa = ox_attr(k, "scale");
	L->scale = sa && sa->f != 0 ? sa->f : 1 / sqrt((double)L->dk);
	return 0;
}

/* Token t of batch b through the state S of K/V head h; u: dv doubles of room. */
static void lin_step(lin *L, int64_t b, int64_t h, int64_t t, double *S, double *u)
{
	int64_t dk = L->dk, dv = L->dv, bt = b * L->t + t;
	const double *kt = L->kk + (bt * L->hkv + h) * dk, *vt = L->v + (bt * L->hkv + h) * dv;
	if (L->gated) {
		const double *g = L->g + bt * L->glast + (L->glast == L->hkv ? h : h * dk);
		for (int64_t i = 0; i < dk; i++) {
			double e = exp(L->glast == L->hkv ? g[0] : g[i]);
			for (int64_t m = 0; m < dv; m++)
				S[i * dv + m] *= e;
		}
	}
	double beta = L->delta ? L->beta[bt * L->blast + (L->blast == 1 ? 0 : h)] : 1;
	for (int64_t m = 0; m < dv; m++) {
		double r = 0;
		for (int64_t i = 0; L->delta && i < dk; i++)
			r += S[i * dv + m] * kt[i];
		u[m] = L->delta ? beta * (vt[m] - r) : vt[m];
	}
	for (int64_t i = 0; i < dk; i++)
		for (int64_t m = 0; m < dv; m++)
			S[i * dv + m] += kt[i] * u[m];
	for (int64_t qh = h * L->group; qh < (h + 1) * L->group; qh++) {
		const double *qt = L->q + (bt * L->hq + qh) * dk;
		double *y = L->y + (bt * L->hq + qh) * dv;
		for (int64_t m = 0; m < dv; m++) {
			double s = 0;
			for (int64_t i = 0; i < dk; i++)
				s += qt[i] * S[i * dv + m];
			y[m] = L->scale * s;
		}
	}
}

static int lin_load(ox_k *k, lin *L, ox_val *const *in, const ox_val *state)
{
	if (!(L->q = ox_load_f64(k, in[0], "query")) || !(L->kk = ox_load_f64(k, in[1], "key")) ||
	    !(L->v = ox_load_f64(k, in[2], "value")) || (in[4] && !(L->g = ox_load_f64(k, in[4], "decay"))) ||
	    (in[5] && !(L->beta = ox_load_f64(k, in[5], "beta"))))
		return -1;
	if (in[3])
		return (L->s = ox_load_f64(k, in[3], "past_state")) ? 0 : -1;
	if (!(L->s = ox_scratch(k, state->count, sizeof *L->s, "state")))
		return -1;
	for (int64_t i = 0; i < state->count; i++)
		L->s[i] = 0;
	return 0;
}

int ox_op_LinearAttention(ox_k *k)
{
	ox_val *in[6];
	lin L = {0};
	if (ox_in_tensors(k, in, 6, 3) < 0 || lin_check(k, &L, in) < 0)
		return -1;
	int64_t yd[3] = {L.b, L.t, L.hq * L.dv}, sd[4] = {L.b, L.hkv, L.dk, L.dv};
	ox_val *y = ox_out_tensor(k, 0, L.qtype, 3, yd);
	ox_val *s = y ? ox_out_tensor(k, 1, in[3] ? in[3]->type : L.qtype, 4, sd) : NULL;
	double *u = s ? ox_scratch(k, L.dv, sizeof *u, "update") : NULL;
	int rc = u && lin_load(k, &L, in, s) == 0 && (L.y = ox_scratch(k, y->count, sizeof *L.y, "output")) ? 0 : -1;
	for (int64_t b = 0; rc == 0 && b < L.b; b++)
		for (int64_t h = 0; h < L.hkv; h++)
			for (int64_t t = 0; t < L.t; t++)
				lin_step(&L, b, h, t, L.s + (b * L.hkv + h) * L.dk * L.dv, u);
	if (rc == 0) {
		ox_store_f64(y, L.y);
		ox_store_f64(s, L.s);
	}
	free(u), free(L.q), free(L.kk), free(L.v), free(L.g), free(L.beta), free(L.s), free(L.y);
	return rc;
}

/* ---- ai.onnx.preview.FlexAttention ------------------------------------------------- */

/* Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev]; query head h reads K/V head
 * h / (Hq / Hkv). The scores and probabilities [B, Hq, L, S] and the product with V are
 * rounded to the softmax_precision type (float unless the inputs are double), the type the
 * score_mod and prob_mod sub-graphs see; Y is rounded from it to Q's type. */
typedef struct flex {
	ox_k *k;
	int64_t b, hq, hkv, l, s, e, ev, group;
	int ctype;
	double scale;
} flex;

/* x rounded to the precision of type (float, float16, bfloat16 or double). */
static void round_to(int type, double *x, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float f = (float)x[i];
		if (type == OX_FLOAT)
			x[i] = f;
		else if (type == OX_FLOAT16)
			x[i] = ox_f16_to_f32(ox_f32_to_f16(f));
		else if (type == OX_BFLOAT16)
			x[i] = ox_bf16_to_f32(ox_f32_to_bf16(f));
	}
}

static int flex_precision(ox_k *k, flex *F, int type)
{
	const Onnx__AttributeProto *p = ox_attr(k, "softmax_precision");
	F->ctype = type == OX_DOUBLE ? OX_DOUBLE : OX_FLOAT;
	if (!p)
		return 0;
	if (p->i != OX_FLOAT && p->i != OX_FLOAT16 && p->i != OX_DOUBLE && p->i != OX_BFLOAT16)
		return ox_kfail(k, "softmax_precision must be 1 (float), 10 (float16), 11 (double) or 16 (bfloat16), not %lld",
				(long long)p->i);
	F->ctype = (int)p->i;
	return 0;
}

static int flex_check(ox_k *k, flex *F, ox_val *const *in)
{
	static const char *const names[] = {"Q", "K", "V"};
	for (int i = 0; i < 3; i++) {
		if (ox_check_type(k, in[i], names[i], float_types) < 0)
			return -1;
		if (in[i]->type != in[0]->type)
			return ox_kfail(k, "%s must have Q's element type %s, not %s", names[i], ox_elem_label(in[0]->type),
					ox_elem_label(in[i]->type));
		if (in[i]->rank != 4)
			return ox_kfail(k, "%s must have rank 4 [batch, heads, sequence, head size], not %d", names[i],
					in[i]->rank);
	}
	const int64_t *q = in[0]->dims, *kk = in[1]->dims, *v = in[2]->dims;
	*F = (flex){k, q[0], q[1], kk[1], q[2], kk[2], q[3], v[3], 1, 0, 0};
	if (kk[0] != F->b || v[0] != F->b)
		return ox_kfail(k, "Q, K and V must have the same batch size (%lld, %lld, %lld)", (long long)q[0],
				(long long)kk[0], (long long)v[0]);
	if (kk[3] != F->e)
		return ox_kfail(k, "K's head size (%lld) must be Q's (%lld)", (long long)kk[3], (long long)F->e);
	if (v[1] != F->hkv || v[2] != F->s)
		return ox_kfail(k, "K and V must have the same heads and sequence length ([%lld, %lld] and [%lld, %lld])",
				(long long)F->hkv, (long long)F->s, (long long)v[1], (long long)v[2]);
	if (F->hq != F->hkv && (F->hkv == 0 || F->hq % F->hkv))
		return ox_kfail(k, "the %lld query heads cannot be grouped over %lld key/value heads", (long long)F->hq,
				(long long)F->hkv);
	F->group = F->hkv ? F->hq / F->hkv : 1;
	const Onnx__AttributeProto *sa = ox_attr(k, "scale");
	F->scale = sa ? sa->f : 1 / sqrt((double)F->e);
	return flex_precision(k, F, in[0]->type);
}

/* scores[b, h, i, j] = scale * Q[b, h, i] . K[b, h / group, j] */
static void flex_scores(const flex *F, const double *q, const double *kd, double *sc)
{
	for (int64_t b = 0; b < F->b; b++)
		for (int64_t h = 0; h < F->hq; h++)
			for (int64_t i = 0; i < F->l; i++) {
				const double *qi = q + ((b * F->hq + h) * F->l + i) * F->e;
				const double *kb = kd + (b * F->hkv + h / F->group) * F->s * F->e;
				double *row = sc + ((b * F->hq + h) * F->l + i) * F->s;
				for (int64_t j = 0; j < F->s; j++) {
					double d = 0;
					for (int64_t e = 0; e < F->e; e++)
						d += qi[e] * kb[j * F->e + e];
					row[j] = F->scale * d;
				}
			}
}

/* Softmax over each row of s values (NaN rows where the maximum is infinite or NaN, as
 * exp(x - max) gives). */
static void flex_softmax(double *x, int64_t rows, int64_t s)
{
	for (int64_t r = 0; r < rows; r++, x += s) {
		double mx = -INFINITY, sum = 0;
		for (int64_t j = 0; j < s; j++)
			mx = isnan(x[j]) || isnan(mx) ? NAN : fmax(mx, x[j]);
		for (int64_t j = 0; j < s; j++)
			sum += x[j] = exp(x[j] - mx);
		for (int64_t j = 0; j < s; j++)
			x[j] /= sum;
	}
}

/* Runs the sub-graph of attr (score_mod or prob_mod), when the node has one, on x as a
 * [B, Hq, L, S] tensor of the softmax precision; x gets its result, which must have that
 * type and shape. */
static int flex_mod(const flex *F, const char *attr, double *x)
{
	ox_k *k = F->k;
	if (!ox_attr_graph(k, attr))
		return 0;
	int gout, gin = ox_graph_arity(k, attr, &gout);
	if (gin != 1 || gout != 1)
		return ox_kfail(k, "attribute '%s' must have one input and one output, not %d and %d", attr, gin, gout);
	int64_t dims[4] = {F->b, F->hq, F->l, F->s};
	const char *why;
	ox_val *t = ox_tensor_new(F->ctype, 4, dims, &why), *r = NULL;
	if (!t)
		return ox_kfail(k, "the input of '%s': %s", attr, why);
	ox_store_f64(t, x);
	int rc = ox_run_graph(k, attr, &t, 1, &r, 1);
	char want[96], got[96];
	if (rc == 0 && (!r || r->kind != OX_TENSOR || r->type != t->type || r->rank != 4 ||
			memcmp(r->dims, dims, sizeof dims) != 0))
		rc = ox_kfail(k, "attribute '%s' must return a tensor of its input's type and shape, %s, not %s", attr,
			      ox_val_describe(t, want, sizeof want), ox_val_describe(r, got, sizeof got));
	if (rc == 0)
		ox_to_f64(r, x);
	ox_val_unref(t);
	ox_val_unref(r);
	return rc;
}

/* Y[b, h, i] = sum_j P[b, h, i, j] V[b, h / group, j], rounded to the softmax precision. */
static void flex_output(const flex *F, const double *p, const double *v, double *y)
{
	for (int64_t bh = 0; bh < F->b * F->hq; bh++)
		for (int64_t i = 0; i < F->l; i++) {
			const double *pi = p + (bh * F->l + i) * F->s;
			const double *vb = v + ((bh / F->hq) * F->hkv + (bh % F->hq) / F->group) * F->s * F->ev;
			double *yi = y + (bh * F->l + i) * F->ev;
			for (int64_t d = 0; d < F->ev; d++)
				yi[d] = 0;
			for (int64_t j = 0; j < F->s; j++)
				for (int64_t d = 0; d < F->ev; d++)
					yi[d] += pi[j] * vb[j * F->ev + d];
		}
	round_to(F->ctype, y, F->b * F->hq * F->l * F->ev);
}

int ox_op_FlexAttention(ox_k *k)
{
	ox_val *in[3];
	flex F;
	if (ox_in_tensors(k, in, 3, 3) < 0 || flex_check(k, &F, in) < 0)
		return -1;
	int64_t yd[4] = {F.b, F.hq, F.l, F.ev}, n = ox_mul_count(ox_mul_count(ox_mul_count(F.b, F.hq), F.l), F.s);
	ox_val *y = ox_out_tensor(k, 0, in[0]->type, 4, yd);
	if (!y)
		return -1;
	if (n < 0)
		return ox_kfail(k, "the scores [%lld, %lld, %lld, %lld] exceed the element limit", (long long)F.b,
				(long long)F.hq, (long long)F.l, (long long)F.s);
	double *q = ox_load_f64(k, in[0], "Q"), *kd = q ? ox_load_f64(k, in[1], "K") : NULL;
	double *v = kd ? ox_load_f64(k, in[2], "V") : NULL, *sc = v ? ox_scratch(k, n, sizeof *sc, "scores") : NULL;
	double *yd64 = sc ? ox_scratch(k, y->count, sizeof *yd64, "output") : NULL;
	int rc = -1;
	if (yd64) {
		flex_scores(&F, q, kd, sc);
		round_to(F.ctype, sc, n);
		if (flex_mod(&F, "score_mod", sc) == 0) {
			flex_softmax(sc, n / (F.s ? F.s : 1), F.s);
			round_to(F.ctype, sc, n);
			rc = flex_mod(&F, "prob_mod", sc);
		}
	}
	if (rc == 0) {
		round_to(F.ctype, v, in[2]->count);
		flex_output(&F, sc, v, yd64);
		ox_store_f64(y, yd64);
	}
	free(q), free(kd), free(v), free(sc), free(yd64);
	return rc;
}
