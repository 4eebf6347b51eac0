/* RNN, GRU and LSTM: one recurrent layer over a batch of sequences, in every direction and
 * layout, with the optional inputs, activation functions, clip and sequence lengths of the
 * ONNX operators. The input projections of all steps are one matrix product per direction;
 * each step adds the recurrent product. Arithmetic is in float (float16, bfloat16 and
 * double inputs are converted to float and the outputs back). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernel.h"

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

static float sigmoid(float x)
{
	return x >= 0 ? 1 / (1 + expf(-x)) : expf(x) / (1 + expf(x));
}

static void apply_one(const act *a, float *x, int64_t n)
{
	float al = a->alpha, be = a->beta;
	switch (a->f) {
	case F_RELU: for (int64_t i = 0; i < n; i++) x[i] = x[i] > 0 ? x[i] : 0; break;
	case F_TANH: for (int64_t i = 0; i < n; i++) x[i] = tanhf(x[i]); break;
	case F_SIGMOID: for (int64_t i = 0; i < n; i++) x[i] = sigmoid(x[i]); break;
	case F_AFFINE: for (int64_t i = 0; i < n; i++) x[i] = al * x[i] + be; break;
	case F_LEAKYRELU: for (int64_t i = 0; i < n; i++) x[i] = x[i] >= 0 ? x[i] : al * x[i]; break;
	case F_THRESHOLDEDRELU: for (int64_t i = 0; i < n; i++) x[i] = x[i] >= al ? x[i] : 0; break;
	case F_SCALEDTANH: for (int64_t i = 0; i < n; i++) x[i] = al * tanhf(be * x[i]); break;
	case F_HARDSIGMOID: for (int64_t i = 0; i < n; i++) x[i] = fminf(fmaxf(al * x[i] + be, 0), 1); break;
	case F_ELU: for (int64_t i = 0; i < n; i++) x[i] = x[i] >= 0 ? x[i] : al * expm1f(x[i]); break;
	case F_SOFTSIGN: for (int64_t i = 0; i < n; i++) x[i] = x[i] / (1 + fabsf(x[i])); break;
	case F_SOFTPLUS:
		for (int64_t i = 0; i < n; i++)
			x[i] = fmaxf(x[i], 0) + log1pf(expf(-fabsf(x[i])));
		break;
	}
}

/* The activation a of x[0..n), its input first bounded to [-clip, clip] (the "cell clip"
 * of the operators; clip is infinite when not given). */
static void activate(const act *a, float clip, float *x, int64_t n)
{
	if (clip < INFINITY)
		for (int64_t i = 0; i < n; i++)
			x[i] = x[i] < -clip ? -clip : x[i] > clip ? clip : x[i];
	apply_one(a, x, n);
}

/* ---- the layer ----------------------------------------------------------------------------- */

typedef struct rnn {
	ox_k *k;
	int kind, gates, ndir, type;
	bool reverse, layout1, lbr, couple;
	int64_t seq, batch, in, hid;
	float clip;
	act acts[2][3]; /* per direction: f (RNN); f, g (GRU); f, g, h (LSTM) */
	int64_t *lens;  /* per batch entry */
	/* float copies, in layout 0: x [seq, batch, in], w [ndir, G*hid, in], r [ndir, G*hid, hid],
	 * b [ndir, 2*G*hid], p [ndir, 3*hid], h0 and c0 [ndir, batch, hid]; NULL when absent */
	float *x, *w, *r, *b, *p, *h0, *c0;
	/* results: y [seq, ndir, batch, hid] (only when wanted), yh and yc [ndir, batch, hid] */
	float *y, *yh, *yc;
} rnn;

/* A zeroed float buffer of a*b*c elements, NULL after failing when beyond the limits. */
static float *fbuf(ox_k *k, int64_t a, int64_t b, int64_t c)
{
	int64_t dims[3] = {a, b, c}, n = ox_shape_count(3, dims);
	if (n < 0)
		return ox_kfail(k, "a scratch buffer of %lld x %lld x %lld exceeds the element limit", (long long)a,
				(long long)b, (long long)c), NULL;
	float *p = calloc((size_t)n + 1, sizeof *p);
	if (!p)
		ox_kfail(k, "out of memory");
	return p;
}

static void load_row(const ox_val *v, int64_t at, float *dst, int64_t n)
{
	switch (v->type) {
	case OX_FLOAT: memcpy(dst, (const float *)v->data + at, (size_t)n * sizeof *dst); break;
	case OX_DOUBLE: for (int64_t i = 0; i < n; i++) dst[i] = (float)((const double *)v->data)[at + i]; break;
	case OX_FLOAT16: for (int64_t i = 0; i < n; i++) dst[i] = ox_f16_to_f32(((const uint16_t *)v->data)[at + i]); break;
	default: for (int64_t i = 0; i < n; i++) dst[i] = ox_bf16_to_f32(((const uint16_t *)v->data)[at + i]); break;
	}
}

static void store_row(ox_val *v, int64_t at, const float *src, int64_t n)
{
	switch (v->type) {
	case OX_FLOAT: memcpy((float *)v->data + at, src, (size_t)n * sizeof *src); break;
	case OX_DOUBLE: for (int64_t i = 0; i < n; i++) ((double *)v->data)[at + i] = src[i]; break;
	case OX_FLOAT16: for (int64_t i = 0; i < n; i++) ((uint16_t *)v->data)[at + i] = ox_f32_to_f16(src[i]); break;
	default: for (int64_t i = 0; i < n; i++) ((uint16_t *)v->data)[at + i] = ox_f32_to_bf16(src[i]); break;
	}
}

/* v as a float buffer; with swap, a rank-3 v of [a, b, n] becomes [b, a, n] (layout 1 to
 * layout 0). */
static float *load(rnn *R, const ox_val *v, bool swap)
{
	float *f = fbuf(R->k, v->count, 1, 1);
	if (!f || !v->count) /* empty: no offsets from its NULL data */
		return f;
	if (!swap) {
		load_row(v, 0, f, v->count);
		return f;
	}
	int64_t a = v->dims[1], b = v->dims[0], n = v->dims[2];
	for (int64_t i = 0; i < a; i++)
		for (int64_t j = 0; j < b; j++)
			load_row(v, (j * a + i) * n, f + (i * b + j) * n, n);
	return f;
}

/* Stores src, laid out [a, b, c, n] with c the batch, as output oi: so, or with the batch
 * first when layout is 1. Y has a = seq; Y_h and Y_c have a = 1 and rank 3. */
static int store(rnn *R, int oi, const float *src, int64_t a, int64_t b, int64_t c, int64_t n, int rank)
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
				store_row(y, t * n, src + s * n, n);
			}
	return 0;
}

/* ---- arithmetic ---------------------------------------------------------------------------- */

/* C[m x n] = (acc ? C : 0) + A[m x k] * B[k x n], with row strides lda, ldb, ldc. */
static void matmul(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
		   int64_t ldc, bool acc)
{
	for (int64_t i = 0; i < m; i++) {
		float *ci = c + i * ldc;
		if (!acc)
			memset(ci, 0, (size_t)n * sizeof *ci);
		for (int64_t p = 0; p < k; p++) {
			float aip = a[i * lda + p];
			const float *bp = b + p * ldb;
			for (int64_t j = 0; j < n; j++)
				ci[j] += aip * bp[j];
		}
	}
}

/* dst[cols x rows] = src[rows x cols] transposed. */
static void transpose(const float *src, int64_t rows, int64_t cols, float *dst)
{
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++)
			dst[j * rows + i] = src[i * cols + j];
}

/* ---- one direction ------------------------------------------------------------------------- */

typedef struct dir {
	int d;
	bool rev;
	const act *acts;
	const float *rbh; /* GRU with linear_before_reset: Rb of the hidden gate, or NULL */
	float *rt;        /* R^T [hid, G*hid] */
	float *xw;        /* [seq * batch, G*hid]: X * W^T plus the biases that can go there */
	float *g;         /* [batch, G*hid]: the gates of one step */
	float *h, *c;     /* [batch, hid]: the state */
	float *tmp;       /* [batch, hid]: GRU r (.) H; LSTM the clipped C */
	float *hh;        /* [batch, hid]: GRU (r (.) H) * Rh^T */
} dir;

static int64_t gates_width(const rnn *R)
{
	return R->gates * R->hid;
}

/* The time step that batch entry b is at in step s: reversed within its own length. */
static int64_t time_of(const rnn *R, const dir *D, int64_t b, int64_t s)
{
	return D->rev ? R->lens[b] - 1 - s : s;
}

/* Hidden state of batch entry b at time t into Y. */
static void emit(rnn *R, const dir *D, int64_t t, int64_t b)
{
	if (R->y)
		memcpy(R->y + ((t * R->ndir + D->d) * R->batch + b) * R->hid, D->h + b * R->hid,
		       (size_t)R->hid * sizeof(float));
}

/* Adds the biases that do not depend on the state (Wb + Rb, except GRU's Rbh with
 * linear_before_reset) to every row of xw. */
static int add_biases(rnn *R, dir *D)
{
	int64_t gw = gates_width(R);
	if (!R->b)
		return 0;
	const float *wb = R->b + D->d * 2 * gw, *rb = wb + gw;
	float *sum = fbuf(R->k, gw, 1, 1);
	if (!sum)
		return -1;
	for (int64_t j = 0; j < gw; j++)
		sum[j] = wb[j] + (R->lbr && j >= 2 * R->hid ? 0 : rb[j]);
	if (R->lbr)
		D->rbh = rb + 2 * R->hid;
	for (int64_t i = 0; i < R->seq * R->batch; i++)
		for (int64_t j = 0; j < gw; j++)
			D->xw[i * gw + j] += sum[j];
	free(sum);
	return 0;
}

static int dir_open(rnn *R, dir *D, int d)
{
	ox_k *k = R->k;
	int64_t gw = gates_width(R), H = R->hid, B = R->batch;
	*D = (dir){d, R->ndir == 2 ? d == 1 : R->reverse, R->acts[d], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
	float *wt = fbuf(k, R->in, gw, 1);
	if (!wt || !(D->rt = fbuf(k, H, gw, 1)) || !(D->xw = fbuf(k, R->seq * B, gw, 1)) || !(D->g = fbuf(k, B, gw, 1)) ||
	    !(D->h = fbuf(k, B, H, 1)) || !(D->c = fbuf(k, B, H, 1)) || !(D->tmp = fbuf(k, B, H, 1)) ||
	    !(D->hh = fbuf(k, B, H, 1))) {
		free(wt);
		return -1;
	}
	transpose(R->w + d * gw * R->in, gw, R->in, wt);
	transpose(R->r + d * gw * H, gw, H, D->rt);
	matmul(R->seq * B, gw, R->in, R->x, R->in, wt, gw, D->xw, gw, false);
	free(wt);
	if (R->h0)
		memcpy(D->h, R->h0 + d * B * H, (size_t)(B * H) * sizeof(float));
	if (R->c0)
		memcpy(D->c, R->c0 + d * B * H, (size_t)(B * H) * sizeof(float));
	return add_biases(R, D);
}

static void dir_close(dir *D)
{
	free(D->rt);
	free(D->xw);
	free(D->g);
	free(D->h);
	free(D->c);
	free(D->tmp);
	free(D->hh);
}

/* Ht = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Wbi + Rbi) */
static void step_rnn(rnn *R, dir *D, int64_t s)
{
	int64_t H = R->hid, B = R->batch;
	matmul(B, H, H, D->h, H, D->rt, H, D->g, H, false);
	for (int64_t b = 0; b < B; b++) {
		if (s >= R->lens[b])
			continue;
		int64_t t = time_of(R, D, b, s);
		float *g = D->g + b * H;
		const float *xw = D->xw + (t * B + b) * H;
		for (int64_t j = 0; j < H; j++)
			g[j] += xw[j];
		activate(&D->acts[0], R->clip, g, H);
		memcpy(D->h + b * H, g, (size_t)H * sizeof *g);
		emit(R, D, t, b);
	}
}

/* zt and rt of the active batch entries, in place in D->g; without linear_before_reset
 * also rt (.) Ht-1 into D->tmp. */
static void gru_gates(rnn *R, dir *D, int64_t s)
{
	int64_t H = R->hid, B = R->batch, gw = 3 * H;
	for (int64_t b = 0; b < B; b++) {
		if (s >= R->lens[b])
			continue;
		float *g = D->g + b * gw;
		const float *xw = D->xw + (time_of(R, D, b, s) * B + b) * gw;
		for (int64_t j = 0; j < 2 * H; j++)
			g[j] += xw[j];
		activate(&D->acts[0], R->clip, g, 2 * H);
		for (int64_t j = 0; !R->lbr && j < H; j++)
			D->tmp[b * H + j] = g[H + j] * D->h[b * H + j];
	}
}

/* zt = f(Xt*(Wz^T) + Ht-1*(Rz^T) + Wbz + Rbz)
 * rt = f(Xt*(Wr^T) + Ht-1*(Rr^T) + Wbr + Rbr)
 * ht = g(Xt*(Wh^T) + (rt (.) Ht-1)*(Rh^T) + Rbh + Wbh), or with linear_before_reset
 * ht = g(Xt*(Wh^T) + (rt (.) (Ht-1*(Rh^T) + Rbh)) + Wbh)
 * Ht = (1 - zt) (.) ht + zt (.) Ht-1 */
static void step_gru(rnn *R, dir *D, int64_t s)
{
	int64_t H = R->hid, B = R->batch, gw = 3 * H;
	matmul(B, R->lbr ? gw : 2 * H, H, D->h, H, D->rt, gw, D->g, gw, false);
	gru_gates(R, D, s);
	if (!R->lbr)
		matmul(B, H, H, D->tmp, H, D->rt + 2 * H, gw, D->hh, H, false);
	for (int64_t b = 0; b < B; b++) {
		if (s >= R->lens[b])
			continue;
		int64_t t = time_of(R, D, b, s);
		float *z = D->g + b * gw, *r = z + H, *n = r + H, *h = D->h + b * H;
		const float *xw = D->xw + (t * B + b) * gw + 2 * H;
		for (int64_t j = 0; j < H; j++)
			n[j] = xw[j] + (R->lbr ? r[j] * (n[j] + (D->rbh ? D->rbh[j] : 0)) : D->hh[b * H + j]);
		activate(&D->acts[1], R->clip, n, H);
		for (int64_t j = 0; j < H; j++)
			h[j] = (1 - z[j]) * n[j] + z[j] * h[j];
		emit(R, D, t, b);
	}
}

/* it = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Pi (.) Ct-1 + Wbi + Rbi)
 * ft = f(Xt*(Wf^T) + Ht-1*(Rf^T) + Pf (.) Ct-1 + Wbf + Rbf), or 1 - it with input_forget
 * ct = g(Xt*(Wc^T) + Ht-1*(Rc^T) + Wbc + Rbc)
 * Ct = ft (.) Ct-1 + it (.) ct
 * ot = f(Xt*(Wo^T) + Ht-1*(Ro^T) + Po (.) Ct + Wbo + Rbo)
 * Ht = ot (.) h(Ct)                      (gates in the order i, o, f, c) */
static void lstm_entry(rnn *R, dir *D, int64_t b, int64_t t)
{
	int64_t H = R->hid, gw = 4 * H;
	float *gi = D->g + b * gw, *go = gi + H, *gf = go + H, *gc = gf + H, *c = D->c + b * H, *tmp = D->tmp + b * H;
	const float *xw = D->xw + (t * R->batch + b) * gw, *p = R->p ? R->p + D->d * 3 * H : NULL;
	for (int64_t j = 0; j < gw; j++)
		gi[j] += xw[j];
	for (int64_t j = 0; p && j < H; j++) {
		gi[j] += p[j] * c[j];
		gf[j] += p[2 * H + j] * c[j];
	}
	activate(&D->acts[0], R->clip, gi, H);
	if (R->couple)
		for (int64_t j = 0; j < H; j++)
			gf[j] = 1 - gi[j];
	else
		activate(&D->acts[0], R->clip, gf, H);
	activate(&D->acts[1], R->clip, gc, H);
	for (int64_t j = 0; j < H; j++)
		c[j] = gf[j] * c[j] + gi[j] * gc[j];
	for (int64_t j = 0; p && j < H; j++)
		go[j] += p[H + j] * c[j];
	activate(&D->acts[0], R->clip, go, H);
	memcpy(tmp, c, (size_t)H * sizeof *tmp);
	activate(&D->acts[2], R->clip, tmp, H);
	for (int64_t j = 0; j < H; j++)
		D->h[b * H + j] = go[j] * tmp[j];
}

static void step_lstm(rnn *R, dir *D, int64_t s)
{
	int64_t H = R->hid, B = R->batch;
	matmul(B, 4 * H, H, D->h, H, D->rt, 4 * H, D->g, 4 * H, false);
	for (int64_t b = 0; b < B; b++) {
		if (s >= R->lens[b])
			continue;
		int64_t t = time_of(R, D, b, s);
		lstm_entry(R, D, b, t);
		emit(R, D, t, b);
	}
}

/* Runs direction d over every step; the final states go to yh and yc (zeros for
 * sequences of length 0, as onnxruntime gives). */
static int run_direction(rnn *R, int d)
{
	dir D;
	if (dir_open(R, &D, d) < 0) {
		dir_close(&D);
		return -1;
	}
	int64_t longest = 0, H = R->hid, B = R->batch;
	for (int64_t b = 0; b < B; b++)
		longest = R->lens[b] > longest ? R->lens[b] : longest;
	for (int64_t s = 0; s < longest; s++) {
		if (R->kind == RNN_PLAIN)
			step_rnn(R, &D, s);
		else if (R->kind == RNN_GRU)
			step_gru(R, &D, s);
		else
			step_lstm(R, &D, s);
	}
	for (int64_t b = 0; b < B; b++)
		if (R->lens[b]) {
			memcpy(R->yh + (d * B + b) * H, D.h + b * H, (size_t)H * sizeof(float));
			memcpy(R->yc + (d * B + b) * H, D.c + b * H, (size_t)H * sizeof(float));
		}
	dir_close(&D);
	return 0;
}

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
		return ox_kfail(k, "%s is %s; expected %s, the type of X", name, ox_type_name(v->type), ox_type_name(R->type));
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
	if (x->type != OX_FLOAT && x->type != OX_DOUBLE && x->type != OX_FLOAT16 && x->type != OX_BFLOAT16)
		return ox_kfail(k, "X is %s; expected float, double, float16 or bfloat16", ox_type_name(x->type));
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
	if (rc == 0 && ox_out_wanted(k, 0) && !(R.y = fbuf(k, R.seq, R.ndir, R.batch * R.hid)))
		rc = -1;
	if (rc == 0 && (!(R.yh = fbuf(k, R.ndir, R.batch, R.hid)) || !(R.yc = fbuf(k, R.ndir, R.batch, R.hid))))
		rc = -1;
	for (int d = 0; rc == 0 && d < R.ndir; d++)
		rc = run_direction(&R, d);
	if (rc == 0)
		rc = outputs(&R);
	float *bufs[] = {R.x, R.w, R.r, R.b, R.p, R.h0, R.c0, R.y, R.yh, R.yc};
	for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
		free(bufs[i]);
	free(R.lens);
	return rc;
}

int ox_op_RNN(ox_k *k)
{
	return layer(k, RNN_PLAIN);
}

int ox_op_GRU(ox_k *k)
{
	return layer(k, RNN_GRU);
}

int ox_op_LSTM(ox_k *k)
{
	return layer(k, RNN_LSTM);
}
