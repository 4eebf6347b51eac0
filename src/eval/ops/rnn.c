/* RNN, GRU and LSTM: one recurrent layer over a batch of sequences, in every direction and
 * layout, with the optional inputs, activation functions, clip and sequence lengths of the
 * ONNX operators. The arithmetic (rnn_core.h) is in double for double tensors and in float,
 * through the GEMM of gemm.h, for the others (float16 and bfloat16 converted). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "eval/simd/gemm.h"
#include "eval/kernel.h"

enum { RNN_PLAIN, RNN_GRU, RNN_LSTM };

/* ---- activation functions ---------------------------------------------------------------- */

enum {
	F_RELU, F_TANH, F_SIGMOID, F_AFFINE, F_LEAKYRELU, F_THRESHOLDEDRELU, F_SCALEDTANH, F_HARDSIGMOID, F_ELU,
	F_SOFTSIGN, F_SOFTPLUS, F_COUNT
};

/* Which of alpha and beta each function takes from activation_alpha/activation_beta, and
 * their defaults, those of the ONNX operators of the same names. */
static const struct func {
	const char *name;
	bool alpha, beta;
	float dalpha, dbeta;
} funcs[F_COUNT] = {
	[F_RELU] = {"Relu", false, false, 0, 0},
	[F_TANH] = {"Tanh", false, false, 0, 0},
	[F_SIGMOID] = {"Sigmoid", false, false, 0, 0},
	[F_AFFINE] = {"Affine", true, true, 1.0f, 0.0f},
	[F_LEAKYRELU] = {"LeakyRelu", true, false, 0.01f, 0},
	[F_THRESHOLDEDRELU] = {"ThresholdedRelu", true, false, 1.0f, 0},
	[F_SCALEDTANH] = {"ScaledTanh", true, true, 1.0f, 1.0f},
	[F_HARDSIGMOID] = {"HardSigmoid", true, true, 0.2f, 0.5f},
	[F_ELU] = {"Elu", true, false, 1.0f, 0},
	[F_SOFTSIGN] = {"Softsign", false, false, 0, 0},
	[F_SOFTPLUS] = {"Softplus", false, false, 0, 0},
};

typedef struct act {
	int f;
	float alpha, beta;
} act;


/* ---- the layer ----------------------------------------------------------------------------- */

typedef struct rnn {
	ox_k *k;
	int kind, gates, ndir, type;
	bool reverse, layout1, lbr, couple;
	size_t es;      /* bytes per element of the arithmetic: 8 for double tensors, else 4 */
	int64_t seq, batch, in, hid;
	float clip;
	act acts[2][3]; /* per direction: f (RNN); f, g (GRU); f, g, h (LSTM) */
	int64_t *lens;  /* per batch entry */
	/* copies in the type of the arithmetic, in layout 0: x [seq, batch, in], w [ndir, G*hid,
	 * in], r [ndir, G*hid, hid], b [ndir, 2*G*hid], p [ndir, 3*hid], h0 and c0 [ndir, batch,
	 * hid]; NULL when absent */
	void *x, *w, *r, *b, *p, *h0, *c0;
	/* results: y [seq, ndir, batch, hid] (only when wanted), yh and yc [ndir, batch, hid] */
	void *y, *yh, *yc;
} rnn;

/* A zeroed buffer of a*b*c elements of the arithmetic's type, NULL after failing when
 * beyond the limits. */
static void *buf(rnn *R, int64_t a, int64_t b, int64_t c)
{
	int64_t dims[3] = {a, b, c}, n = ox_shape_count(3, dims);
	if (n < 0)
		return ox_kfail(R->k, "a scratch buffer of %lld x %lld x %lld exceeds the element limit", (long long)a,
				(long long)b, (long long)c), NULL;
	void *p = calloc((size_t)n + 1, R->es);
	if (!p)
		ox_kfail(R->k, "out of memory");
	return p;
}

/* n elements of v from element at into dst: doubles as they are, the other types as float. */
static void load_row(const ox_val *v, int64_t at, void *dst, int64_t n)
{
	float *f = dst;
	switch (v->type) {
	case OX_FLOAT: memcpy(f, (const float *)v->data + at, (size_t)n * sizeof *f); break;
	case OX_DOUBLE: memcpy(dst, (const double *)v->data + at, (size_t)n * sizeof(double)); break;
	case OX_FLOAT16: for (int64_t i = 0; i < n; i++) f[i] = ox_f16_to_f32(((const uint16_t *)v->data)[at + i]); break;
	default: for (int64_t i = 0; i < n; i++) f[i] = ox_bf16_to_f32(((const uint16_t *)v->data)[at + i]); break;
	}
}

static void store_row(ox_val *v, int64_t at, const void *src, int64_t n)
{
	const float *f = src;
	switch (v->type) {
	case OX_FLOAT: memcpy((float *)v->data + at, f, (size_t)n * sizeof *f); break;
	case OX_DOUBLE: memcpy((double *)v->data + at, src, (size_t)n * sizeof(double)); break;
	case OX_FLOAT16: for (int64_t i = 0; i < n; i++) ((uint16_t *)v->data)[at + i] = ox_f32_to_f16(f[i]); break;
	default: for (int64_t i = 0; i < n; i++) ((uint16_t *)v->data)[at + i] = ox_f32_to_bf16(f[i]); break;
	}
}

/* v in the arithmetic's type; with swap, a rank-3 v of [a, b, n] becomes [b, a, n] (layout 1
 * to layout 0). */
static void *load(rnn *R, const ox_val *v, bool swap)
{
	char *f = buf(R, v->count, 1, 1);
	if (!f || !v->count) /* empty: no offsets from its NULL data */
		return f;
	if (!swap) {
		load_row(v, 0, f, v->count);
		return f;
	}
	int64_t a = v->dims[1], b = v->dims[0], n = v->dims[2];
	for (int64_t i = 0; i < a; i++)
		for (int64_t j = 0; j < b; j++)
			load_row(v, (j * a + i) * n, f + (size_t)((i * b + j) * n) * R->es, n);
	return f;
}

/* Stores src, laid out [a, b, c, n] with c the batch, as output oi: so, or with the batch
 * first when layout is 1. Y has a = seq; Y_h and Y_c have a = 1 and rank 3. */
static int store(rnn *R, int oi, const void *src, int64_t a, int64_t b, int64_t c, int64_t n, int rank)
{
	int64_t dims[4], *d = dims;
	if (R->layout1)
		*d++ = c;
	if (rank == 4)
		*d++ = a;
	*d++ = b;
	if (!R->layout1)
		*d++ = c;
	*d = n;
	ox_val *y = ox_out_tensor(R->k, oi, R->type, rank, dims);
	if (!y || !y->count)
		return y ? 0 : -1;
	for (int64_t i = 0; i < a; i++)
		for (int64_t j = 0; j < b; j++)
			for (int64_t l = 0; l < c; l++) {
				int64_t s = (i * b + j) * c + l, t = R->layout1 ? (l * a + i) * b + j : s;
				store_row(y, t * n, (const char *)src + (size_t)(s * n) * R->es, n);
			}
	return 0;
}


static int64_t gates_width(const rnn *R)
{
	return R->gates * R->hid;
}

/* The time step that batch entry b is at in step s: reversed within its own length. */
static int64_t time_of(const rnn *R, bool rev, int64_t b, int64_t s)
{
	return rev ? R->lens[b] - 1 - s : s;
}

/* C[m x n] = A[m x k] * B^T, B of n rows of k (the weights as given): the float GEMM. */
static int mm_bt_f(rnn *R, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
		   float *c, int64_t ldc)
{
	return ox_sgemm(false, true, m, n, k, 1, a, lda, b, ldb, 0, c, ldc) < 0 ? ox_kfail(R->k, "out of memory") : 0;
}

/* The same in double, as dot products of rows (both contiguous). */
static int mm_bt_d(rnn *R, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
		   int64_t ldb, double *c, int64_t ldc)
{
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			double sum = 0;
			for (int64_t p = 0; p < k; p++)
				sum += a[i * lda + p] * b[j * ldb + p];
			c[i * ldc + j] = sum;
		}
	return 0;
}

#define REAL float
#define NAME(x) x##_f
#define M(fn) fn##f
#include "rnn_core.h"
#undef REAL
#undef NAME
#undef M

#define REAL double
#define NAME(x) x##_d
#define M(fn) fn
#include "rnn_core.h"
#undef REAL
#undef NAME
#undef M

/* ---- inputs and attributes ----------------------------------------------------------------- */

static int find_func(const char *s, size_t n)
{
	for (int f = 0; f < F_COUNT; f++)
		if (strlen(funcs[f].name) == n && strncasecmp(funcs[f].name, s, n) == 0)
			return f;
	return -1;
}

/* count functions per direction from 'activations' (given once for both directions or
 * for each), alpha and beta consumed in order by the functions that take them. */
static int parse_acts(rnn *R, int count, const int *dflt)
{
	ox_k *k = R->k;
	const Onnx__AttributeProto *a = ox_attr(k, "activations");
	const float *al, *be;
	int64_t nal = ox_attr_floats(k, "activation_alpha", &al), nbe = ox_attr_floats(k, "activation_beta", &be);
	int64_t ia = 0, ib = 0;
	size_t n = a ? a->n_strings : 0;
	if (a && n != (size_t)count && n != (size_t)(count * R->ndir))
		return ox_kfail(k, "attribute 'activations' has %zu functions; expected %d (%d for each direction)", n,
				count * R->ndir, count);
	for (int d = 0; d < R->ndir; d++)
		for (int i = 0; i < count; i++) {
			act *x = &R->acts[d][i];
			if (!a || (n == (size_t)count && d == 1)) {
				*x = a ? R->acts[0][i] : (act){dflt[i], 0, 0};
				continue;
			}
			const ProtobufCBinaryData *s = &a->strings[(size_t)(d * count + i)];
			int f = find_func((const char *)s->data, s->len);
			if (f < 0)
				return ox_kfail(k, "attribute 'activations': '%.*s' is not an activation function of the "
					       "recurrent operators", (int)(s->len > 64 ? 64 : s->len), (const char *)s->data);
			x->f = f;
			x->alpha = funcs[f].alpha && ia < nal ? al[ia++] : funcs[f].dalpha;
			x->beta = funcs[f].beta && ib < nbe ? be[ib++] : funcs[f].dbeta;
		}
	return 0;
}

static int parse_attrs(rnn *R)
{
	ox_k *k = R->k;
	static const int dflt[3][3] = {{F_TANH}, {F_SIGMOID, F_TANH}, {F_SIGMOID, F_TANH, F_TANH}};
	R->ndir = 1;
	if (ox_attr_str_is(k, "direction", "forward", "bidirectional"))
		R->ndir = 2;
	else if (ox_attr_str_is(k, "direction", "forward", "reverse"))
		R->reverse = true;
	else if (!ox_attr_str_is(k, "direction", "forward", "forward"))
		return ox_kfail(k, "attribute 'direction' must be forward, reverse or bidirectional");
	int64_t layout = ox_attr_int(k, "layout", 0);
	if (layout != 0 && layout != 1)
		return ox_kfail(k, "attribute 'layout' is %lld; expected 0 or 1", (long long)layout);
	R->layout1 = layout == 1;
	const Onnx__AttributeProto *clip = ox_attr(k, "clip");
	R->clip = clip ? clip->f : INFINITY;
	if (!(R->clip >= 0))
		return ox_kfail(k, "attribute 'clip' is %g; expected a threshold of 0 or more", (double)R->clip);
	R->lbr = R->kind == RNN_GRU && ox_attr_int(k, "linear_before_reset", 0) != 0;
	R->couple = R->kind == RNN_LSTM && ox_attr_int(k, "input_forget", 0) != 0;
	return parse_acts(R, R->kind + 1, dflt[R->kind]);
}

/* Input i: absent (when optional), or a tensor of X's type of shape dims (-1: any). */
static int input(rnn *R, int i, const char *name, bool required, int rank, const int64_t *dims, const char *meaning,
		 const ox_val **out)
{
	ox_k *k = R->k;
	*out = NULL;
	if (!ox_in(k, i) && !required)
		return 0;
	const ox_val *v = ox_in_tensor(k, i, true);
	if (!v)
		return -1;
	if (v->type != R->type)
		return ox_kfail(k, "%s is %s; expected %s, the type of X", name, ox_elem_label(v->type), ox_elem_label(R->type));
	bool ok = v->rank == rank;
	for (int d = 0; ok && d < rank; d++)
		ok = dims[d] < 0 || v->dims[d] == dims[d];
	if (!ok) {
		char got[128], want[128];
		size_t g = 0, w = 0;
		for (int d = 0; d < v->rank && g < 100; d++)
			g += (size_t)snprintf(got + g, sizeof got - g, "%s%lld", d ? "," : "", (long long)v->dims[d]);
		for (int d = 0; d < rank; d++)
			w += (size_t)(dims[d] < 0 ? snprintf(want + w, sizeof want - w, "%s?", d ? "," : "")
						 : snprintf(want + w, sizeof want - w, "%s%lld", d ? "," : "", (long long)dims[d]));
		got[g] = want[w] = '\0';
		return ox_kfail(k, "%s has shape [%s]; expected %s = [%s]", name, got, meaning, want);
	}
	*out = v;
	return 0;
}

static int parse_weights(rnn *R, const ox_val **w, const ox_val **r)
{
	ox_k *k = R->k;
	const char *gw = R->gates == 1 ? "hidden_size" : R->gates == 3 ? "3*hidden_size" : "4*hidden_size";
	char meaning[96];
	snprintf(meaning, sizeof meaning, "[num_directions, %s, input_size]", gw);
	if (input(R, 1, "W", true, 3, (int64_t[]){R->ndir, -1, R->in}, meaning, w) < 0)
		return -1;
	if ((*w)->dims[1] % R->gates)
		return ox_kfail(k, "W has %lld rows per direction; expected %s", (long long)(*w)->dims[1], gw);
	R->hid = (*w)->dims[1] / R->gates;
	int64_t attr = ox_attr_int(k, "hidden_size", R->hid);
	if (attr != R->hid)
		return ox_kfail(k, "attribute 'hidden_size' is %lld, but W has %lld rows per direction, %s", (long long)attr,
				(long long)(*w)->dims[1], gw);
	snprintf(meaning, sizeof meaning, "[num_directions, %s, hidden_size]", gw);
	return input(R, 2, "R", true, 3, (int64_t[]){R->ndir, R->gates * R->hid, R->hid}, meaning, r);
}

static int parse_lens(rnn *R)
{
	ox_k *k = R->k;
	const ox_val *v = ox_in(k, 4);
	if (!(R->lens = calloc((size_t)R->batch + 1, sizeof *R->lens)))
		return ox_kfail(k, "out of memory");
	for (int64_t b = 0; b < R->batch; b++)
		R->lens[b] = R->seq;
	if (!v)
		return 0;
	if (v->kind != OX_TENSOR || (v->type != OX_INT32 && v->type != OX_INT64) || v->rank != 1 || v->count != R->batch)
		return ox_kfail(k, "sequence_lens must be an int32 tensor of shape [batch_size] = [%lld]", (long long)R->batch);
	for (int64_t b = 0; b < R->batch; b++) {
		R->lens[b] = ox_get_i64(v, b);
		if (R->lens[b] < 0 || R->lens[b] > R->seq)
			return ox_kfail(k, "sequence_lens[%lld] is %lld; expected 0 to seq_length, %lld", (long long)b,
					(long long)R->lens[b], (long long)R->seq);
	}
	return 0;
}

/* The optional inputs B, initial_h, initial_c and P, as float buffers. */
static int parse_optional(rnn *R)
{
	const ox_val *v;
	int64_t gw = gates_width(R), nd = R->ndir, b = R->batch, h = R->hid;
	int64_t state[3] = {R->layout1 ? b : nd, R->layout1 ? nd : b, h};
	const char *sm = R->layout1 ? "[batch_size, num_directions, hidden_size]" : "[num_directions, batch_size, hidden_size]";
	if (input(R, 3, "B", false, 2, (int64_t[]){nd, 2 * gw}, "[num_directions, 2*gates*hidden_size]", &v) < 0 ||
	    (v && !(R->b = load(R, v, false))))
		return -1;
	if (input(R, 5, "initial_h", false, 3, state, sm, &v) < 0 || (v && !(R->h0 = load(R, v, R->layout1))))
		return -1;
	if (R->kind != RNN_LSTM)
		return 0;
	if (input(R, 6, "initial_c", false, 3, state, sm, &v) < 0 || (v && !(R->c0 = load(R, v, R->layout1))))
		return -1;
	if (input(R, 7, "P", false, 2, (int64_t[]){nd, 3 * h}, "[num_directions, 3*hidden_size]", &v) < 0 ||
	    (v && !(R->p = load(R, v, false))))
		return -1;
	return 0;
}

static int parse(rnn *R)
{
	ox_k *k = R->k;
	const ox_val *x = ox_in_tensor(k, 0, true), *w, *r;
	if (!x)
		return -1;
	R->type = x->type;
	R->es = x->type == OX_DOUBLE ? sizeof(double) : sizeof(float);
	if (x->type != OX_FLOAT && x->type != OX_DOUBLE && x->type != OX_FLOAT16 && x->type != OX_BFLOAT16)
		return ox_kfail(k, "X is %s; expected float, double, float16 or bfloat16", ox_elem_label(x->type));
	if (x->rank != 3)
		return ox_kfail(k, "X has rank %d; expected 3", x->rank);
	if (parse_attrs(R) < 0)
		return -1;
	R->seq = x->dims[R->layout1 ? 1 : 0];
	R->batch = x->dims[R->layout1 ? 0 : 1];
	R->in = x->dims[2];
	if (parse_weights(R, &w, &r) < 0 || parse_lens(R) < 0)
		return -1;
	if (!(R->x = load(R, x, R->layout1)) || !(R->w = load(R, w, false)) || !(R->r = load(R, r, false)))
		return -1;
	return parse_optional(R);
}

/* ---- the operators ------------------------------------------------------------------------- */

static int outputs(rnn *R)
{
	int64_t nd = R->ndir, b = R->batch, h = R->hid;
	if (R->y && store(R, 0, R->y, R->seq, nd, b, h, 4) < 0)
		return -1;
	if (ox_out_wanted(R->k, 1) && store(R, 1, R->yh, 1, nd, b, h, 3) < 0)
		return -1;
	if (R->kind == RNN_LSTM && ox_out_wanted(R->k, 2) && store(R, 2, R->yc, 1, nd, b, h, 3) < 0)
		return -1;
	return 0;
}

static int layer(ox_k *k, int kind)
{
	rnn R = {.k = k, .kind = kind, .gates = kind == RNN_PLAIN ? 1 : kind == RNN_GRU ? 3 : 4};
	int rc = parse(&R);
	if (rc == 0 && ox_out_wanted(k, 0) && !(R.y = buf(&R, R.seq, R.ndir, R.batch * R.hid)))
		rc = -1;
	if (rc == 0 && (!(R.yh = buf(&R, R.ndir, R.batch, R.hid)) || !(R.yc = buf(&R, R.ndir, R.batch, R.hid))))
		rc = -1;
	for (int d = 0; rc == 0 && d < R.ndir; d++)
		rc = R.es == sizeof(double) ? run_direction_d(&R, d) : run_direction_f(&R, d);
	if (rc == 0)
		rc = outputs(&R);
	void *bufs[] = {R.x, R.w, R.r, R.b, R.p, R.h0, R.c0, R.y, R.yh, R.yc};
	for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
		free(bufs[i]);
	free(R.lens);
	return rc;
}

OX_KERNEL(ox_op_RNN, layer(k, RNN_PLAIN))
OX_KERNEL(ox_op_GRU, layer(k, RNN_GRU))
OX_KERNEL(ox_op_LSTM, layer(k, RNN_LSTM))
