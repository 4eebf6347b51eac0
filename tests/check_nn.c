/* Unit tests for the pooling, normalization, softmax and reduction kernels: every vector
 * table against the scalar one over many sizes (the ai.onnx.ml dot products too), the vector
 * exp against a correctly rounded one, and pooling against a naive reference built here
 * from the spec's formulas. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/simd/cpu.h"
#include "eval/ops/nn.h"
#include "eval/simd/ml_simd.h"
#include "testutil.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* uniform in [lo, hi) */
static double unif(double lo, double hi)
{
	return lo + (hi - lo) * (double)(next() >> 11) * 0x1p-53;
}

static int64_t irand(int64_t lo, int64_t hi) /* [lo, hi] */
{
	return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1));
}

/* ---- running one kernel directly ---------------------------------------------------- */

enum { TN_ATTRS = 12 };

typedef struct tnode {
	Onnx__NodeProto proto;
	Onnx__AttributeProto attr[TN_ATTRS];
	const Onnx__AttributeProto *ap[TN_ATTRS];
	int64_t ints[TN_ATTRS][2 * OX_MAX_RANK];
	char *outs[4];
	ox_val *in[6];
	ox_val *out[4];
	char msg[OX_MSG];
	ox_k k;
} tnode;

static void tn_init(tnode *t, int64_t version, int nout)
{
	memset(t, 0, sizeof *t);
	onnx__node_proto__init(&t->proto);
	static char *names[4] = {"Y", "Z", "W", "V"};
	for (int i = 0; i < nout; i++)
		t->outs[i] = names[i];
	t->proto.output = t->outs;
	t->proto.n_output = (size_t)nout;
	t->k = (ox_k){.proto = &t->proto, .version = version, .in = t->in, .out = t->out, .nout = nout,
		      .attrs = t->ap, .msg = t->msg};
}

static Onnx__AttributeProto *tn_attr(tnode *t, const char *name, Onnx__AttributeProto__AttributeType type)
{
	size_t i = t->k.nattrs++;
	ck_assert_uint_lt(i, TN_ATTRS);
	Onnx__AttributeProto *a = &t->attr[i];
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->type = type;
	t->ap[i] = a;
	return a;
}

static void tn_ints(tnode *t, const char *name, int n, const int64_t *v)
{
	Onnx__AttributeProto *a = tn_attr(t, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
	int64_t *store = t->ints[a - t->attr];
	memcpy(store, v, (size_t)n * sizeof *v);
	a->ints = store;
	a->n_ints = (size_t)n;
}

static void tn_int(tnode *t, const char *name, int64_t v)
{
	tn_attr(t, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT)->i = v;
}

static void tn_float(tnode *t, const char *name, float v)
{
	tn_attr(t, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT)->f = v;
}

static void tn_str(tnode *t, const char *name, const char *v)
{
	Onnx__AttributeProto *a = tn_attr(t, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
	a->s.data = (uint8_t *)v;
	a->s.len = strlen(v);
}

/* Input i (the node takes the reference). */
static void tn_in(tnode *t, int i, ox_val *v)
{
	t->in[i] = v;
	if (t->k.nin <= i)
		t->k.nin = i + 1;
}

static void tn_free(tnode *t)
{
	for (int i = 0; i < 6; i++)
		ox_val_unref(t->in[i]);
	for (int i = 0; i < 4; i++)
		ox_val_unref(t->out[i]);
}

static ox_val *tensor(int type, int rank, const int64_t *dims)
{
	ox_val *v = ox_tensor_new(type, rank, dims, NULL);
	ck_assert_ptr_nonnull(v);
	return v;
}

/* A float or double tensor of random values in [-4, 4), some repeated so max has ties. */
static ox_val *random_tensor(int type, int rank, const int64_t *dims)
{
	ox_val *v = tensor(type, rank, dims);
	for (int64_t i = 0; i < v->count; i++)
		ox_set_f64(v, i, next() % 5 == 0 ? (double)irand(-2, 2) : unif(-4, 4));
	return v;
}

static bool close_to(double got, double want, double rtol, double atol)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	return fabs(got - want) <= atol + rtol * fabs(want);
}

/* ---- vector tables against the scalar one ----------------------------------------------- */

static const int levels[] = {OX_CPU_AVX2, OX_CPU_AVX512};

static const int64_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 23, 31, 32, 33, 47, 63, 64, 65, 100, 127, 129,
				1000, 4095, 4097, 10007};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

static float *floats(int64_t n, double lo, double hi)
{
	float *p = malloc((size_t)(n + 1) * sizeof *p);
	for (int64_t i = 0; i < n; i++)
		p[i] = (float)unif(lo, hi);
	return p;
}

/* x with NaN at position at (when in range). */
static void poke_nan(float *x, int64_t n, int64_t at)
{
	if (at >= 0 && at < n)
		x[at] = NAN;
}

START_TEST(vec_reductions)
{
	const ox_nn_vec *s = ox_nn_vec_level(OX_CPU_SCALAR);
	for (size_t l = 0; l < 2; l++) {
		const ox_nn_vec *v = ox_nn_vec_level(levels[l]);
		if (!v)
			continue;
		for (int si = 0; si < NSIZES; si++) {
			int64_t n = sizes[si];
			float *x = floats(n, -10, 10);
			float ss = s->sum(x, n), vs = v->sum(x, n);
			REQUIRE(close_to(vs, ss, 1e-5, 1e-4), "level %d sum n=%lld: %g vs %g", levels[l], (long long)n, vs, ss);
			REQUIRE(v->max(x, n) == s->max(x, n), "level %d max n=%lld", levels[l], (long long)n);
			REQUIRE(v->min(x, n) == s->min(x, n), "level %d min n=%lld", levels[l], (long long)n);
			for (int64_t at = 0; at < n; at += n / 3 + 1) { /* NaN anywhere wins */
				float keep = x[at];
				poke_nan(x, n, at);
				REQUIRE(isnan(v->max(x, n)) && isnan(s->max(x, n)), "max NaN at %lld of %lld", (long long)at,
					(long long)n);
				REQUIRE(isnan(v->min(x, n)) && isnan(s->min(x, n)), "min NaN at %lld of %lld", (long long)at,
					(long long)n);
				x[at] = keep;
			}
			free(x);
		}
		ck_assert(isinf(v->max(NULL, 0)) && v->max(NULL, 0) < 0);
		ck_assert(isinf(v->min(NULL, 0)) && v->min(NULL, 0) > 0);
	}
}
END_TEST

/* The ai.onnx.ml dot products and squared distances of every level against the scalar
 * ones, over lengths around the vector widths, with misaligned starts. */
START_TEST(vec_ml_dot)
{
	const ox_ml_vec *s = ox_ml_vec_level(OX_CPU_SCALAR);
	for (size_t l = 0; l < 2; l++) {
		const ox_ml_vec *v = ox_ml_vec_level(levels[l]);
		if (!v)
			continue;
		for (int si = 0; si < NSIZES; si++) {
			int64_t n = sizes[si];
			double *a = malloc((size_t)(n + 1) * sizeof *a);
			float *b = malloc((size_t)(n + 1) * sizeof *b);
			for (int64_t i = 0; i <= n; i++)
				a[i] = unif(-10, 10), b[i] = (float)unif(-10, 10);
			double sd = s->dot(a + 1, b + 1, n), vd = v->dot(a + 1, b + 1, n);
			double sq = s->sqdist(a + 1, b + 1, n), vq = v->sqdist(a + 1, b + 1, n);
			REQUIRE(fabs(vd - sd) <= 1e-12 * (1 + n * 100.0), "level %d dot n=%lld: %.17g vs %.17g", levels[l],
				(long long)n, vd, sd);
			REQUIRE(fabs(vq - sq) <= 1e-12 * (1 + sq), "level %d sqdist n=%lld: %.17g vs %.17g", levels[l],
				(long long)n, vq, sq);
			free(a);
			free(b);
		}
	}
}
END_TEST

/* Random complete trees of depth 6 in one array (node i's children 2i+1, 2i+2, the last
 * level leaves), each mode, NaN features here and there: every level's walk reaches the
 * scalar walk's leaves, from several roots, over row counts around the vector width; a
 * node sent back to the root makes every row a cycle (-1). */
START_TEST(vec_ml_walk)
{
	enum { DEPTH = 6, NN = (1 << (DEPTH + 1)) - 1, C = 5 };
	int32_t feat[NN], t[NN], f[NN], nan_true[NN];
	double split[NN];
	for (int i = 0; i < NN; i++) {
		bool leaf = i >= NN / 2;
		feat[i] = leaf ? 0 : (int32_t)irand(0, C - 1), t[i] = leaf ? -1 : 2 * i + 1, f[i] = leaf ? -1 : 2 * i + 2;
		nan_true[i] = irand(0, 1) ? -1 : 0, split[i] = unif(-1, 1);
	}
	const ox_ml_vec *s = ox_ml_vec_level(OX_CPU_SCALAR);
	for (int mode = 0; mode < 4; mode++)
		for (size_t l = 0; l < 2; l++) {
			const ox_ml_vec *v = ox_ml_vec_level(levels[l]);
			if (!v)
				continue;
			ox_ml_trees T = {mode, NN, feat, t, f, nan_true, split};
			for (int64_t n = 0; n < 23; n++) {
				double *x = malloc((size_t)(n * C + 1) * sizeof *x);
				for (int64_t i = 0; i < n * C; i++)
					x[i] = irand(0, 9) ? unif(-1, 1) : NAN;
				int32_t a[23], b[23];
				for (int32_t root = 0; root < 3; root++) {
					s->walk(&T, root, x, n, C, a);
					v->walk(&T, root, x, n, C, b);
					for (int64_t r = 0; r < n; r++)
						REQUIRE(a[r] == b[r] && a[r] >= NN / 2, "level %d mode %d n=%lld root %d row %lld: %d vs %d",
							levels[l], mode, (long long)n, root, (long long)r, b[r], a[r]);
				}
				int32_t t0 = t[0], f0 = f[0];
				t[0] = f[0] = 0; /* a cycle */
				v->walk(&T, 0, x, n, C, b);
				for (int64_t r = 0; r < n; r++)
					REQUIRE(b[r] == -1, "cycle: row %lld reached %d", (long long)r, b[r]);
				t[0] = t0, f[0] = f0;
				free(x);
			}
		}
}
END_TEST

START_TEST(vec_accumulators)
{
	const ox_nn_vec *s = ox_nn_vec_level(OX_CPU_SCALAR);
	for (size_t l = 0; l < 2; l++) {
		const ox_nn_vec *v = ox_nn_vec_level(levels[l]);
		if (!v)
			continue;
		for (int si = 0; si < NSIZES; si++) {
			int64_t n = sizes[si];
			float *x = floats(n, -10, 10), *a = floats(n, -10, 10), *b = floats(n, -1, 1);
			float *y1 = floats(n, 0, 1), *y2 = floats(n, 0, 1);
			poke_nan(x, n, n / 2);
			poke_nan(a, n, n / 3);
			void (*acc_s[3])(float *, const float *, int64_t) = {s->acc_add, s->acc_max, s->acc_min};
			void (*acc_v[3])(float *, const float *, int64_t) = {v->acc_add, v->acc_max, v->acc_min};
			for (int f = 0; f < 3; f++) {
				memcpy(y1, a, (size_t)n * sizeof *a);
				memcpy(y2, a, (size_t)n * sizeof *a);
				acc_s[f](y1, x, n);
				acc_v[f](y2, x, n);
				for (int64_t i = 0; i < n; i++)
					REQUIRE(close_to(y2[i], y1[i], 0, 0), "level %d acc %d n=%lld at %lld: %g vs %g",
						levels[l], f, (long long)n, (long long)i, y2[i], y1[i]);
			}
			/* LRN's pieces: bit for bit, since both fuse the same multiply-adds */
			memcpy(y1, b, (size_t)n * sizeof *b);
			memcpy(y2, b, (size_t)n * sizeof *b);
			s->sq_acc(y1, x, n);
			v->sq_acc(y2, x, n);
			for (int64_t i = 0; i < n; i++)
				REQUIRE(close_to(y2[i], y1[i], 0, 0), "sq_acc n=%lld at %lld", (long long)n, (long long)i);
			s->lrn75(y1, x, a, 0.3f, 1.5f, n);
			v->lrn75(y2, x, a, 0.3f, 1.5f, n);
			for (int64_t i = 0; i < n; i++)
				REQUIRE(close_to(y2[i], y1[i], 0, 0), "lrn75 n=%lld at %lld: %g vs %g", (long long)n, (long long)i,
					y2[i], y1[i]);
			s->affine(y1, x, 1.5f, -0.25f, n);
			v->affine(y2, x, 1.5f, -0.25f, n);
			for (int64_t i = 0; i < n; i++)
				REQUIRE(close_to(y2[i], y1[i], 1e-6, 1e-6), "affine n=%lld at %lld", (long long)n, (long long)i);
			s->affine_v(y1, x, a, b, n);
			v->affine_v(y2, x, a, b, n);
			for (int64_t i = 0; i < n; i++)
				REQUIRE(close_to(y2[i], y1[i], 1e-6, 1e-5), "affine_v n=%lld at %lld", (long long)n, (long long)i);
			s->mul_v(y1, x, a, n);
			v->mul_v(y2, x, a, n);
			for (int64_t i = 0; i < n; i++)
				REQUIRE(close_to(y2[i], y1[i], 0, 0), "mul_v n=%lld at %lld", (long long)n, (long long)i);
			s->add_v(y1, x, b, n);
			v->add_v(y2, x, b, n);
			for (int64_t i = 0; i < n; i++)
				REQUIRE(close_to(y2[i], y1[i], 0, 0), "add_v n=%lld at %lld", (long long)n, (long long)i);
			free(x), free(a), free(b), free(y1), free(y2);
		}
	}
}
END_TEST

START_TEST(vec_exp_shift)
{
	const ox_nn_vec *s = ox_nn_vec_level(OX_CPU_SCALAR);
	for (size_t l = 0; l < 2; l++) {
		const ox_nn_vec *v = ox_nn_vec_level(levels[l]);
		if (!v)
			continue;
		for (int si = 0; si < NSIZES; si++) {
			int64_t n = sizes[si];
			float *x = floats(n, -30, 10), *m = floats(n, -5, 5);
			float *y1 = floats(n, 0, 1), *y2 = floats(n, 0, 1), *s1 = floats(n, 0, 1), *s2 = floats(n, 0, 1);
			float t1 = s->exp_shift(y1, x, 3.5f, n), t2 = v->exp_shift(y2, x, 3.5f, n);
			REQUIRE(close_to(t2, t1, 1e-5, 0), "level %d exp_shift sum n=%lld: %g vs %g", levels[l], (long long)n, t2, t1);
			for (int64_t i = 0; i < n; i++)
				REQUIRE(close_to(y2[i], y1[i], 4e-7, 0), "exp_shift n=%lld at %lld: %g vs %g", (long long)n,
					(long long)i, y2[i], y1[i]);
			memcpy(s2, s1, (size_t)n * sizeof *s1);
			s->exp_shift_v(y1, x, m, s1, n);
			v->exp_shift_v(y2, x, m, s2, n);
			for (int64_t i = 0; i < n; i++)
				REQUIRE(close_to(y2[i], y1[i], 4e-7, 0) && close_to(s2[i], s1[i], 4e-7, 0),
					"exp_shift_v n=%lld at %lld", (long long)n, (long long)i);
			free(x), free(m), free(y1), free(y2), free(s1), free(s2);
		}
	}
}
END_TEST

/* Distance in units in the last place between two floats of the same sign. */
static int64_t ulps(float a, float b)
{
	int32_t ia, ib;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	if ((ia < 0) != (ib < 0))
		return a == b ? 0 : INT32_MAX;
	return ia > ib ? (int64_t)ia - ib : (int64_t)ib - ia;
}

START_TEST(vec_exp_accuracy)
{
	enum { N = 200000 };
	float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
	for (int i = 0; i < N; i++)
		x[i] = (float)(-105.0 + 195.0 * i / (N - 1));
	float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 88.72283f, 88.72284f, 89.0f, -87.33654f, -103.9f, -103.98f,
			   -104.5f, -150.0f, 1e-8f, -1e-8f, INFINITY, -INFINITY, NAN};
	memcpy(x, special, sizeof special);
	for (size_t l = 0; l < 2; l++) {
		const ox_nn_vec *v = ox_nn_vec_level(levels[l]);
		if (!v)
			continue;
		v->exp(y, x, N);
		int64_t worst = 0;
		for (int i = 0; i < N; i++) {
			float want = (float)exp((double)x[i]);
			if (isnan(want)) {
				REQUIRE(isnan(y[i]), "exp(NaN) is %g", y[i]);
				continue;
			}
			int64_t u = ulps(y[i], want);
			/* subnormal results carry fewer bits; count them absolutely */
			if (fabsf(want) < 0x1p-126f)
				u = fabsf(y[i] - want) <= 0x1p-149f ? 0 : u;
			REQUIRE(u <= 2, "level %d exp(%.9g) = %.9g, want %.9g (%lld ulp)", levels[l], x[i], y[i], want,
				(long long)u);
			worst = u > worst ? u : worst;
		}
	}
	free(x);
	free(y);
}
END_TEST

/* ---- pooling ---------------------------------------------------------------------------- */

static void random_pool2d(ox_pool2d *p)
{
	p->kh = irand(1, 4), p->kw = irand(1, 5);
	p->sh = irand(1, 3), p->sw = irand(1, 3);
	p->dh = irand(1, 2), p->dw = irand(1, 3);
	p->pt = irand(0, p->kh - 1), p->pb = irand(0, p->kh - 1);
	p->pl = irand(0, p->kw - 1), p->pr = irand(0, p->kw - 1);
	p->ih = irand((p->kh - 1) * p->dh + 1, 12);
	p->iw = irand((p->kw - 1) * p->dw + 1, 70);
	bool up = irand(0, 1); /* ceil_mode: the last windows may hang past the end pads */
	p->oh = (p->ih + p->pt + p->pb - (p->kh - 1) * p->dh - 1 + (up ? p->sh - 1 : 0)) / p->sh + 1;
	p->ow = (p->iw + p->pl + p->pr - (p->kw - 1) * p->dw - 1 + (up ? p->sw - 1 : 0)) / p->sw + 1;
	p->oh -= p->oh > 1 && (p->oh - 1) * p->sh >= p->ih + p->pt;
	p->ow -= p->ow > 1 && (p->ow - 1) * p->sw >= p->iw + p->pl;
	p->mode = (int)irand(0, 2);
}

/* Pools planes planes of x through each vector table into y2, which must be the scalar
 * one's y1 bit for bit (a NaN where it has one); what names the case in a failure. */
static void pool_levels_agree(const ox_pool2d *p, int64_t planes, const float *x, const float *y1, float *y2,
			      const char *what)
{
	for (size_t l = 0; l < 2; l++) {
		const ox_nn_vec *v = ox_nn_vec_level(levels[l]);
		if (!v)
			continue;
		v->pool2d(p, x, y2, planes);
		for (int64_t i = 0; i < planes * p->oh * p->ow; i++)
			REQUIRE(close_to(y2[i], y1[i], 0, 0) || (isnan(y1[i]) && isnan(y2[i])),
				"%s level %d mode %d planes %lld at %lld: %g vs %g", what, levels[l], p->mode,
				(long long)planes, (long long)i, y2[i], y1[i]);
	}
}

/* planes planes (x random, with a NaN in some when nan) through the scalar table and the
 * vector ones: 16 planes or more go through AVX-512's planes-at-once path (nn_simd.c),
 * any left over through the row copies. */
static void pool_case(const ox_pool2d *p, int64_t planes, bool nan, const char *what)
{
	const ox_nn_vec *s = ox_nn_vec_level(OX_CPU_SCALAR);
	int64_t in = planes * p->ih * p->iw, out = planes * p->oh * p->ow;
	float *x = floats(in, -5, 5), *y1 = floats(out, 0, 1), *y2 = floats(out, 0, 1);
	for (int64_t q = 0; nan && q < planes; q += 3)
		poke_nan(x, in, irand(0, in - 1));
	s->pool2d(p, x, y1, planes);
	pool_levels_agree(p, planes, x, y1, y2, what);
	free(x), free(y1), free(y2);
}

START_TEST(vec_pool2d)
{
	for (int trial = 0; trial < 2000; trial++) {
		ox_pool2d p;
		random_pool2d(&p);
		char what[32];
		snprintf(what, sizeof what, "trial %d", trial);
		pool_case(&p, trial % 3 == 0 ? irand(16, 40) : 1, trial % 7 == 0, what);
	}
}
END_TEST

/* Stride 2 over rows as wide as the models' (squeezenet's 3x3 MaxPool on 109, 54 and 27
 * columns, inception's with the end pad, resnet's with pads all round): a row's 2 or 3 taps come from one pair of
 * vectors (and the float after them), read in place where no window reaches past the row
 * (a max down the rows first, nn_simd_impl.h pool_max_s2), and must be pool_one's bits,
 * NaNs included: a NaN only where a window's first tap is one. Rows and planes are
 * allocated exactly, so a read past the end shows under AddressSanitizer. */
START_TEST(vec_pool2d_stride2_rows)
{
	const int64_t widths[] = {109, 54, 27, 112, 56, 28, 14, 37, 38, 65, 66};
	for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
		for (int mode = 0; mode < 3; mode++)
			for (int pad = 0; pad < 3; pad++) { /* none, at the ends, all round (resnet's) */
				ox_pool2d p = {.ih = 5, .iw = widths[w], .kh = 3, .kw = 3 + (w % 3 == 2), .sh = 2, .sw = 2,
					       .dh = 1, .dw = 1, .pt = pad / 2, .pl = pad / 2, .pb = pad > 0, .pr = pad > 0,
					       .mode = mode};
				if (pad == 2 && p.kw == 4)
					p.kw = 2, p.sh = 1;
				p.oh = (p.ih + p.pt + p.pb - p.kh) / p.sh + 1;
				p.ow = (p.iw + p.pl + p.pr - p.kw) / p.sw + 1;
				char what[64];
				snprintf(what, sizeof what, "width %lld kw %lld sh %lld pad %d", (long long)p.iw, (long long)p.kw,
					 (long long)p.sh, pad);
				pool_case(&p, 1, w % 2 == 1, what);
			}
	/* 2x2 over rows of whole pairs of vectors: the last block ends with the plane */
	for (int64_t iw = 16; iw <= 64; iw *= 2)
		for (int nan = 0; nan < 2; nan++) {
			ox_pool2d p = {.ih = 4, .iw = iw, .kh = 2, .kw = 2, .sh = 2, .sw = 2, .dh = 1, .dw = 1,
				       .oh = 2, .ow = iw / 2, .mode = OX_POOL_MAX};
			pool_case(&p, 1, nan, "2x2 of whole vectors");
		}
}
END_TEST

/* Planes pooled as inception pools them, 17 at once (16 through AVX-512's planes-at-once
 * path, one through the row copies): inception's 3x3 windows at stride 1
 * with pads of 1 on 27, 14, 13, 7 and 6 wide planes, 3x3 at stride 2 with an end pad, 7x7
 * with end pads, 2x2 at strides 2 and 1, as pool_one gives them bit for bit, NaNs
 * included. */
START_TEST(vec_pool2d_padded_planes)
{
	const int64_t geo[][7] = {/* ih = iw, k, stride, pt = pl, pb = pr, oh = ow */
				  {27, 3, 1, 1, 1, 27}, {14, 3, 1, 1, 1, 14}, {13, 3, 1, 1, 1, 13}, {7, 3, 1, 1, 1, 7},
				  {6, 3, 1, 1, 1, 6},	 {28, 3, 2, 0, 1, 14}, {14, 3, 2, 0, 1, 7},  {7, 7, 1, 0, 1, 2},
				  {56, 3, 2, 0, 1, 28}, {5, 3, 2, 1, 1, 3},   {28, 2, 2, 0, 0, 14}, {9, 2, 1, 0, 1, 9}};
	for (size_t g = 0; g < sizeof geo / sizeof *geo; g++)
		for (int mode = 0; mode < 3; mode++)
			for (int nan = 0; nan < 2; nan++) {
				const int64_t *q = geo[g];
				ox_pool2d p = {.ih = q[0], .iw = q[0], .kh = q[1], .kw = q[1], .sh = q[2], .sw = q[2], .dh = 1,
					       .dw = 1, .pt = q[3], .pl = q[3], .pb = q[4], .pr = q[4], .oh = q[5], .ow = q[5],
					       .mode = mode};
				char what[32];
				snprintf(what, sizeof what, "plane %zu", g);
				pool_case(&p, 17, nan, what);
			}
}
END_TEST

/* The naive reference: the spec's output shape, then each window over the input, padded
 * positions counted for count_include_pad (never beyond the pads). */
typedef struct ref_pool {
	int nsp, mode; /* 0 max, 1 avg, 2 avg with pads, 3 lp */
	bool ceil;
	double p;
	int64_t k[3], s[3], d[3], pads[6], in[3], out[3];
} ref_pool;

static void ref_shape(ref_pool *r)
{
	for (int i = 0; i < r->nsp; i++) {
		int64_t ek = (r->k[i] - 1) * r->d[i] + 1;
		double q = (double)(r->in[i] + r->pads[i] + r->pads[i + r->nsp] - ek) / (double)r->s[i] + 1;
		r->out[i] = (int64_t)(r->ceil ? ceil(q) : floor(q));
		if (r->ceil && (r->out[i] - 1) * r->s[i] >= r->in[i] + r->pads[i])
			r->out[i]--;
	}
}

static double ref_one(const ref_pool *r, const double *x, const int64_t *o, int64_t *arg)
{
	double acc = 0, best = -INFINITY;
	int64_t n = 0, npad = 0;
	for (int64_t a = 0; a < r->k[0]; a++)
		for (int64_t b = 0; b < (r->nsp > 1 ? r->k[1] : 1); b++)
			for (int64_t c = 0; c < (r->nsp > 2 ? r->k[2] : 1); c++) {
				int64_t kk[3] = {a, b, c}, off = 0;
				bool in = true, pad = true;
				for (int i = 0; i < r->nsp; i++) {
					int64_t pos = o[i] * r->s[i] - r->pads[i] + kk[i] * r->d[i];
					in = in && pos >= 0 && pos < r->in[i];
					pad = pad && pos >= -r->pads[i] && pos < r->in[i] + r->pads[i + r->nsp];
					off = off * r->in[i] + pos;
				}
				npad += pad;
				if (!in)
					continue;
				n++;
				if (r->mode == 0 && x[off] > best) {
					best = x[off];
					*arg = off;
				}
				acc += r->mode == 3 ? pow(fabs(x[off]), r->p) : x[off];
			}
	switch (r->mode) {
	case 0: return best;
	case 1: return acc / (double)n;
	case 2: return acc / (double)npad;
	default: return pow(acc, 1 / r->p);
	}
}

static void random_ref(ref_pool *r)
{
	r->nsp = (int)irand(1, 3);
	for (int i = 0; i < r->nsp; i++) {
		r->k[i] = irand(1, 3);
		r->s[i] = irand(1, 3);
		r->d[i] = irand(1, 2);
		r->pads[i] = irand(0, r->k[i] - 1);
		r->pads[i + r->nsp] = irand(0, r->k[i] - 1);
		r->in[i] = irand((r->k[i] - 1) * r->d[i] + 1, r->nsp == 3 ? 6 : 11);
	}
	r->ceil = irand(0, 1);
	ref_shape(r);
}

/* Runs MaxPool (mode 0), AveragePool (1, 2) or LpPool (3) on a random N x C x ... input of
 * type and checks every output (and MaxPool's Indices when asked for) against ref_one. */
static void check_pool(const ref_pool *r, int type, bool indices, int trial)
{
	tnode t;
	tn_init(&t, 19, r->mode == 0 && indices ? 2 : 1);
	int64_t dims[5] = {irand(1, 2), irand(1, 3)}, ydims[5] = {dims[0], dims[1]};
	for (int i = 0; i < r->nsp; i++)
		dims[i + 2] = r->in[i], ydims[i + 2] = r->out[i];
	ox_val *x = random_tensor(type, r->nsp + 2, dims);
	tn_in(&t, 0, x);
	tn_ints(&t, "kernel_shape", r->nsp, r->k);
	tn_ints(&t, "strides", r->nsp, r->s);
	tn_ints(&t, "dilations", r->nsp, r->d);
	tn_ints(&t, "pads", 2 * r->nsp, r->pads);
	tn_int(&t, "ceil_mode", r->ceil);
	if (r->mode == 2)
		tn_int(&t, "count_include_pad", 1);
	if (r->mode == 3)
		tn_int(&t, "p", (int64_t)r->p);
	int (*op)(ox_k *) = r->mode == 0 ? ox_op_MaxPool : r->mode == 3 ? ox_op_LpPool : ox_op_AveragePool;
	REQUIRE(op(&t.k) == 0, "trial %d: %s", trial, t.msg);
	ox_val *y = t.out[0];
	REQUIRE(y->rank == r->nsp + 2, "trial %d: rank %d", trial, y->rank);
	for (int i = 0; i < y->rank; i++)
		REQUIRE(y->dims[i] == ydims[i], "trial %d: dim %d is %lld, want %lld", trial, i, (long long)y->dims[i],
			(long long)ydims[i]);
	int64_t isz = x->count / (dims[0] * dims[1]), osz = y->count / (dims[0] * dims[1]);
	double *xd = malloc((size_t)x->count * sizeof *xd);
	for (int64_t i = 0; i < x->count; i++)
		xd[i] = ox_get_f64(x, i);
	for (int64_t plane = 0; plane < dims[0] * dims[1]; plane++) {
		int64_t o[3] = {0, 0, 0};
		for (int64_t j = 0; j < osz; j++) {
			int64_t arg = -1, at = plane * osz + j;
			double want = ref_one(r, xd + plane * isz, o, &arg), got = ox_get_f64(y, at);
			REQUIRE(close_to(got, want, 1e-5, 1e-6), "trial %d (mode %d, type %d) output %lld: %g, want %g", trial,
				r->mode, type, (long long)at, got, want);
			if (r->mode == 0 && indices)
				REQUIRE(((int64_t *)t.out[1]->data)[at] == plane * isz + arg, "trial %d: index %lld", trial,
					(long long)at);
			for (int i = r->nsp - 1; i >= 0 && ++o[i] == r->out[i]; i--)
				o[i] = 0;
		}
	}
	free(xd);
	tn_free(&t);
}

START_TEST(pool_vs_reference)
{
	for (int trial = 0; trial < 1500; trial++) {
		ref_pool r;
		random_ref(&r);
		r.mode = (int)irand(0, 3);
		r.p = (double)irand(1, 3);
		check_pool(&r, trial % 3 == 0 ? OX_DOUBLE : OX_FLOAT, trial % 2 == 0, trial);
	}
}
END_TEST

/* The same float32 pools through each vector table. */
START_TEST(pool_levels)
{
	for (int lv = OX_CPU_SCALAR; lv <= OX_CPU_AVX512; lv++) {
		if (!ox_nn_vec_level(lv))
			continue;
		ox_nn_vec_force(lv);
		for (int trial = 0; trial < 400; trial++) {
			ref_pool r;
			random_ref(&r);
			r.mode = (int)irand(0, 2);
			check_pool(&r, OX_FLOAT, false, trial);
		}
	}
	ox_nn_vec_force(-1);
}
END_TEST

/* auto_pad SAME_UPPER / SAME_LOWER: output ceil(in / stride), the odd pad at the end or at
 * the beginning (MaxPool spec). 1 x 1 x 5 input, kernel 2, stride 2: pad total 1. */
START_TEST(pool_auto_pad)
{
	static const char *modes[] = {"SAME_UPPER", "SAME_LOWER", "VALID"};
	static const double want[3][3] = {{2, 4, 5}, {1, 3, 5}, {2, 4, -1}};
	for (int m = 0; m < 3; m++) {
		tnode t;
		tn_init(&t, 12, 1);
		ox_val *x = tensor(OX_FLOAT, 3, (int64_t[]){1, 1, 5});
		for (int i = 0; i < 5; i++)
			ox_set_f64(x, i, i + 1);
		tn_in(&t, 0, x);
		tn_ints(&t, "kernel_shape", 1, (int64_t[]){2});
		tn_ints(&t, "strides", 1, (int64_t[]){2});
		tn_str(&t, "auto_pad", modes[m]);
		ck_assert_msg(ox_op_MaxPool(&t.k) == 0, "%s", t.msg);
		ck_assert_int_eq(t.out[0]->dims[2], m == 2 ? 2 : 3);
		for (int i = 0; i < t.out[0]->dims[2]; i++)
			ck_assert_double_eq(ox_get_f64(t.out[0], i), want[m][i]);
		tn_free(&t);
	}
}
END_TEST

/* GlobalLpPool at opset 1 takes p as a float attribute. */
START_TEST(global_lp_float_p)
{
	tnode t;
	tn_init(&t, 1, 1);
	ox_val *x = tensor(OX_FLOAT, 3, (int64_t[]){1, 2, 2});
	float v[4] = {3, -4, 1, 1};
	memcpy(x->data, v, sizeof v);
	tn_in(&t, 0, x);
	tn_float(&t, "p", 1.0f);
	ck_assert_msg(ox_op_GlobalLpPool(&t.k) == 0, "%s", t.msg);
	ck_assert_double_eq(ox_get_f64(t.out[0], 0), 7);
	ck_assert_double_eq(ox_get_f64(t.out[0], 1), 2);
	tn_free(&t);
}
END_TEST

/* ---- whole kernels: float32 at every level against the double path --------------------- */

/* One node: op at an opset version with int attributes; input 0 is set per run. */
typedef struct opcase {
	int (*op)(ox_k *);
	int64_t version;
	int nin, nattr;
	ox_val *in[6];
	const char *an[4];
	int64_t av[4];
} opcase;

/* Output 0 of c run on x (a new reference), failing the test when the kernel fails. */
static ox_val *run_case(const opcase *c, ox_val *x)
{
	tnode t;
	tn_init(&t, c->version, 1);
	tn_in(&t, 0, ox_val_ref(x));
	for (int i = 1; i < c->nin; i++)
		tn_in(&t, i, ox_val_ref(c->in[i]));
	for (int i = 0; i < c->nattr; i++)
		tn_int(&t, c->an[i], c->av[i]);
	REQUIRE(c->op(&t.k) == 0, "kernel failed: %s", t.msg);
	ox_val *y = ox_val_ref(t.out[0]);
	tn_free(&t);
	return y;
}

static ox_val *as_double(const ox_val *x)
{
	ox_val *d = tensor(OX_DOUBLE, x->rank, x->dims);
	for (int64_t i = 0; i < x->count; i++)
		ox_set_f64(d, i, ox_get_f64(x, i));
	return d;
}

/* c on x (float) at each level, against c on x as double; tolerances relative to the
 * result and absolute. */
static void check_levels(const opcase *c, ox_val *x, double rtol, double atol, const char *what)
{
	ox_val *xd = as_double(x), *want = run_case(c, xd);
	for (int lv = OX_CPU_SCALAR; lv <= OX_CPU_AVX512; lv++) {
		if (!ox_nn_vec_level(lv))
			continue;
		ox_nn_vec_force(lv);
		ox_val *got = run_case(c, x);
		REQUIRE(got->type == OX_FLOAT && got->count == want->count && got->rank == want->rank, "%s: shape", what);
		for (int64_t i = 0; i < got->count; i++)
			REQUIRE(close_to(ox_get_f64(got, i), ox_get_f64(want, i), rtol, atol), "%s level %d at %lld: %.9g vs %.9g",
				what, lv, (long long)i, ox_get_f64(got, i), ox_get_f64(want, i));
		ox_val_unref(got);
	}
	ox_nn_vec_force(-1);
	ox_val_unref(want);
	ox_val_unref(xd);
}

/* A random shape of rank 1..4, sizes mostly small, sometimes 0 or past a vector width. */
static int random_shape(int64_t *dims)
{
	int rank = (int)irand(1, 4);
	for (int i = 0; i < rank; i++) {
		int64_t r = irand(0, 19);
		dims[i] = r == 0 ? 0 : r < 15 ? irand(1, 5) : r < 18 ? irand(6, 40) : irand(100, 300);
	}
	while (ox_shape_count(rank, dims) > 40000)
		dims[irand(0, rank - 1)] /= 4;
	return rank;
}

START_TEST(softmax_levels)
{
	for (int trial = 0; trial < 600; trial++) {
		int64_t dims[4];
		int rank = random_shape(dims);
		ox_val *x = random_tensor(OX_FLOAT, rank, dims);
		for (int64_t i = 0; i < x->count; i++)
			((float *)x->data)[i] *= 5; /* [-20, 20): exp over a wide range */
		bool v13 = trial % 3; /* the 2-D coercion of version 1 (opset 11) too */
		opcase c = {trial % 2 ? (v13 ? ox_op_Softmax_13 : ox_op_Softmax_1) : (v13 ? ox_op_LogSoftmax_13 : ox_op_LogSoftmax_1),
			    v13 ? 13 : 11, 1, 1, {0}, {"axis"},
			    {irand(-rank, rank - 1)}};
		char what[64];
		snprintf(what, sizeof what, "trial %d %s", trial, trial % 2 ? "Softmax" : "LogSoftmax");
		check_levels(&c, x, 2e-5, trial % 2 ? 1e-7 : 2e-5, what);
		ox_val_unref(x);
	}
}
END_TEST

START_TEST(batchnorm_levels)
{
	for (int trial = 0; trial < 300; trial++) {
		int64_t dims[4] = {irand(1, 3), irand(1, 20), irand(0, 9), irand(1, 37)};
		int rank = (int)irand(2, 4);
		ox_val *x = random_tensor(OX_FLOAT, rank, dims);
		opcase c = {.op = ox_op_BatchNormalization_14, .version = 15, .nin = 5};
		for (int i = 1; i < 5; i++) {
			c.in[i] = random_tensor(i == 1 || i == 4 ? OX_DOUBLE : OX_FLOAT, 1, &dims[1]);
			for (int64_t j = 0; i == 4 && j < dims[1]; j++) /* a variance */
				((double *)c.in[i]->data)[j] = fabs(((double *)c.in[i]->data)[j]) + 0.1;
		}
		char what[64];
		snprintf(what, sizeof what, "BatchNormalization trial %d", trial);
		check_levels(&c, x, 1e-5, 1e-5, what);
		ox_val_unref(x);
		for (int i = 1; i < 5; i++)
			ox_val_unref(c.in[i]);
	}
}
END_TEST

START_TEST(global_pool_levels)
{
	for (int trial = 0; trial < 300; trial++) {
		int64_t dims[4] = {irand(1, 2), irand(1, 4), irand(0, 40), irand(1, 41)};
		ox_val *x = random_tensor(OX_FLOAT, 4, dims);
		opcase c = {.op = trial % 2 ? ox_op_GlobalAveragePool : ox_op_GlobalMaxPool, .version = 1, .nin = 1};
		check_levels(&c, x, 1e-5, 1e-6, trial % 2 ? "GlobalAveragePool" : "GlobalMaxPool");
		ox_val_unref(x);
	}
}
END_TEST

/* ReduceSum, Mean, Max and Min over random axis sets, adjacent (the vector path) or not. */
START_TEST(reduce_levels)
{
	int (*ops[4])(ox_k *) = {ox_op_ReduceSum_13, ox_op_ReduceMean_18, ox_op_ReduceMax_18, ox_op_ReduceMin_18};
	for (int trial = 0; trial < 800; trial++) {
		int64_t dims[4], axes[4], na = 0;
		int rank = random_shape(dims);
		for (int i = 0; i < rank; i++)
			if (next() % 2)
				axes[na++] = next() % 2 ? i : i - rank;
		ox_val *x = random_tensor(OX_FLOAT, rank, dims), *a = tensor(OX_INT64, 1, &na);
		if (trial % 13 == 0 && x->count)
			((float *)x->data)[irand(0, x->count - 1)] = NAN;
		if (na)
			memcpy(a->data, axes, (size_t)na * sizeof *axes);
		opcase c = {ops[trial % 4], 18, 2, 1, {NULL, a}, {"keepdims"}, {irand(0, 1)}};
		char what[64];
		snprintf(what, sizeof what, "Reduce op %d trial %d", trial % 4, trial);
		check_levels(&c, x, 1e-5, 1e-4, what);
		ox_val_unref(x);
		ox_val_unref(a);
	}
}
END_TEST

/* Dropout in training mode: the same seed drops the same elements; the kept ones are scaled
 * by 1 / (1 - ratio), the mask says which, and about ratio of them go. */
static void dropout_train(int64_t seed, ox_val **y, ox_val **mask)
{
	tnode t;
	tn_init(&t, 13, 2);
	int64_t n = 10000;
	ox_val *x = tensor(OX_FLOAT, 1, &n), *r = tensor(OX_FLOAT, 0, NULL), *on = tensor(OX_BOOL, 0, NULL);
	for (int64_t i = 0; i < n; i++)
		((float *)x->data)[i] = (float)(i % 7) + 1;
	*(float *)r->data = 0.25f;
	*(uint8_t *)on->data = 1;
	tn_in(&t, 0, x);
	tn_in(&t, 1, r);
	tn_in(&t, 2, on);
	tn_int(&t, "seed", seed);
	ck_assert_msg(ox_op_Dropout_12(&t.k) == 0, "%s", t.msg);
	*y = ox_val_ref(t.out[0]);
	*mask = ox_val_ref(t.out[1]);
	tn_free(&t);
}

START_TEST(dropout_training)
{
	ox_val *y1, *m1, *y2, *m2, *y3, *m3;
	dropout_train(42, &y1, &m1);
	dropout_train(42, &y2, &m2);
	dropout_train(7, &y3, &m3);
	ck_assert_int_eq(m1->type, OX_BOOL);
	int64_t kept = 0, differ = 0;
	for (int64_t i = 0; i < y1->count; i++) {
		float x = (float)(i % 7) + 1, v = ((float *)y1->data)[i];
		bool keep = ((uint8_t *)m1->data)[i];
		REQUIRE(keep ? v == x / 0.75f : v == 0, "element %lld: %g with mask %d", (long long)i, v, keep);
		REQUIRE(v == ((float *)y2->data)[i] && keep == ((uint8_t *)m2->data)[i], "seed 42 twice differs at %lld",
			(long long)i);
		kept += keep;
		differ += keep != ((uint8_t *)m3->data)[i];
	}
	ck_assert_int_gt(kept, 7200); /* 7500 expected */
	ck_assert_int_lt(kept, 7800);
	ck_assert_int_gt(differ, 1000); /* another seed, another mask */
	ox_val *v[] = {y1, m1, y2, m2, y3, m3};
	for (int i = 0; i < 6; i++)
		ox_val_unref(v[i]);
}
END_TEST

/* Dropout in inference passes the data through and gives a mask of ones, of the data's type
 * before opset 10 and bool since: every element of an odd-sized mask (the mask is filled by
 * copying its first element). */
START_TEST(dropout_inference_mask)
{
	for (int v = 0; v < 2; v++) {
		tnode t;
		tn_init(&t, v ? 10 : 7, 2);
		int64_t dims[2] = {37, 29};
		ox_val *x = tensor(OX_FLOAT, 2, dims);
		for (int64_t i = 0; i < x->count; i++)
			((float *)x->data)[i] = (float)i - 500;
		tn_in(&t, 0, x);
		ck_assert_msg((v ? ox_op_Dropout_10(&t.k) : ox_op_Dropout_7(&t.k)) == 0, "%s", t.msg);
		ox_val *y = t.out[0], *m = t.out[1];
		ck_assert_ptr_eq(y->data, x->data);
		ck_assert_int_eq(m->type, v ? OX_BOOL : OX_FLOAT);
		ck_assert_int_eq(m->count, 37 * 29);
		for (int64_t i = 0; i < m->count; i++)
			REQUIRE(v ? ((uint8_t *)m->data)[i] == 1 : ((float *)m->data)[i] == 1.0f, "opset %d: mask[%lld] is not 1",
				v ? 10 : 7, (long long)i);
		tn_free(&t);
	}
}
END_TEST

/* ---- failures ------------------------------------------------------------------------------ */

/* The message of running op on x with one int attribute (or none when name is NULL). */
static const char *failure(int (*op)(ox_k *), int64_t version, ox_val *x, ox_val *in1, const char *name, int64_t v)
{
	static char msg[OX_MSG];
	tnode t;
	tn_init(&t, version, 1);
	tn_in(&t, 0, x);
	if (in1)
		tn_in(&t, 1, in1);
	if (name)
		tn_int(&t, name, v);
	ck_assert_int_eq(op(&t.k), -1);
	snprintf(msg, sizeof msg, "%s", t.msg);
	tn_free(&t);
	return msg;
}

START_TEST(error_messages)
{
	int64_t d2[2] = {2, 3}, d1[1] = {2};
	ck_assert_str_eq(failure(ox_op_Softmax_13, 13, tensor(OX_FLOAT, 2, d2), NULL, "axis", 2),
			 "axis 2 is out of range for rank 2");
	ck_assert_str_eq(failure(ox_op_Softmax_13, 13, tensor(OX_INT32, 2, d2), NULL, NULL, 0),
			 "input must be float, double, float16 or bfloat16, not int32");
	ox_val *dup = tensor(OX_INT64, 1, d1);
	((int64_t *)dup->data)[0] = 1, ((int64_t *)dup->data)[1] = -1;
	ck_assert_str_eq(failure(ox_op_ReduceSum_13, 13, tensor(OX_FLOAT, 2, d2), dup, NULL, 0), "axis -1 is given twice");
	ox_val *k5 = tensor(OX_INT64, 1, (int64_t[]){1});
	((int64_t *)k5->data)[0] = 5;
	ck_assert_str_eq(failure(ox_op_TopK_10, 11, tensor(OX_FLOAT, 2, d2), k5, NULL, 0),
			 "K is 5, more than the 3 elements along axis 1");
	ck_assert_str_eq(failure(ox_op_MaxPool, 12, tensor(OX_FLOAT, 2, d2), NULL, NULL, 0),
			 "input X must have rank 3 or more (N x C x D1 ...), not 2");
	ck_assert_str_eq(failure(ox_op_MaxPool, 12, tensor(OX_FLOAT, 3, (int64_t[]){1, 1, 4}), NULL, NULL, 0),
			 "attribute 'kernel_shape' is required, with one value per spatial axis (1)");
	ck_assert_str_eq(failure(ox_op_ArgMax, 13, tensor(OX_FLOAT, 2, (int64_t[]){2, 0}), NULL, "axis", 1),
			 "axis 1 is empty: no index to choose");
	ck_assert_str_eq(failure(ox_op_LpNormalization, 1, tensor(OX_FLOAT, 2, d2), NULL, "p", 3), "p must be 1 or 2, not 3");
}
END_TEST

/* An empty X whose other dims multiply past int64: kernels finish at once, without looping
 * over those dims. */
START_TEST(empty_with_huge_dims)
{
	int64_t dims[4] = {INT64_C(1) << 35, 0, INT64_C(1) << 40, INT64_C(1) << 40};
	struct {
		int (*op)(ox_k *);
		int64_t version;
	} ops[] = {{ox_op_Softmax_13, 13}, {ox_op_LogSoftmax_1, 11}, {ox_op_Hardmax_13, 13}, {ox_op_LpNormalization, 1},
		   {ox_op_MeanVarianceNormalization, 13}, {ox_op_ReduceSum_13, 13}, {ox_op_ReduceMax_18, 18},
		   {ox_op_ReduceL2_18, 18}, {ox_op_ArgMax, 13}, {ox_op_LRN, 13}, {ox_op_Dropout_12, 12},
		   {ox_op_GlobalAveragePool, 1}, {ox_op_GlobalMaxPool, 1}};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		tnode t;
		tn_init(&t, ops[i].version, 1);
		tn_in(&t, 0, tensor(OX_FLOAT, 4, dims));
		if (ops[i].op == ox_op_LRN)
			tn_int(&t, "size", 3);
		if (ops[i].op == ox_op_ArgMax)
			tn_int(&t, "axis", 1);
		int rc = ops[i].op(&t.k);
		REQUIRE(rc == 0 || t.msg[0], "op %zu failed without a message", i);
		tn_free(&t);
	}
	tnode t;
	tn_init(&t, 11, 1);
	tn_in(&t, 0, tensor(OX_FLOAT, 4, dims));
	tn_ints(&t, "kernel_shape", 2, (int64_t[]){1, 1});
	tn_str(&t, "auto_pad", "SAME_UPPER");
	ck_assert_int_eq(ox_op_MaxPool(&t.k), 0);
	ck_assert_int_eq(t.out[0]->count, 0);
	tn_free(&t);
}
END_TEST

/* LRN against the spec's formula with pow in double, on random shapes (odd sizes, rank 2
 * to 4) and window sizes: beta 0.75 goes through the float32 vector path (a few ulps),
 * other betas through pow in double (within one ulp). */
START_TEST(lrn_vs_reference)
{
	for (int trial = 0; trial < 200; trial++) {
		int rank = (int)irand(2, 4);
		int64_t dims[4] = {irand(1, 2), irand(1, 9), irand(1, 7), irand(1, 5)}, S = 1, C = dims[1];
		for (int i = 2; i < rank; i++)
			S *= dims[i];
		int64_t size = irand(1, 6);
		float alpha = (float)unif(1e-4, 1), beta = trial % 3 ? 0.75f : (float)unif(0.1, 2), bias = (float)unif(0.5, 2);
		tnode t;
		tn_init(&t, 13, 1);
		ox_val *x = random_tensor(OX_FLOAT, rank, dims);
		tn_in(&t, 0, x);
		tn_int(&t, "size", size);
		tn_float(&t, "alpha", alpha), tn_float(&t, "beta", beta), tn_float(&t, "bias", bias);
		ck_assert_msg(ox_op_LRN(&t.k) == 0, "%s", t.msg);
		for (int64_t i = 0; i < x->count; i++) {
			int64_t c = i / S % C, lo = c - (size - 1) / 2, hi = c + size / 2;
			double sq = 0;
			for (int64_t j = lo < 0 ? 0 : lo; j <= hi && j < C; j++) {
				double v = ox_get_f64(x, i + (j - c) * S);
				sq += v * v;
			}
			float want = (float)(ox_get_f64(x, i) / pow(bias + alpha / (double)size * sq, beta));
			float got = (float)ox_get_f64(t.out[0], i), ulp = fabsf(nextafterf(want, INFINITY) - want);
			REQUIRE(fabsf(got - want) <= (beta == 0.75f ? 8 : 1) * ulp,
				"trial %d at %lld: %.9g vs %.9g", trial, (long long)i, got, want);
		}
		tn_free(&t);
	}
}
END_TEST

/* The kernel spans more than the padded input: the spec's output size would be 0 or less. */
START_TEST(pool_kernel_too_big)
{
	tnode t;
	tn_init(&t, 12, 1);
	tn_in(&t, 0, tensor(OX_FLOAT, 3, (int64_t[]){1, 1, 3}));
	tn_ints(&t, "kernel_shape", 1, (int64_t[]){3});
	tn_ints(&t, "dilations", 1, (int64_t[]){2});
	ck_assert_int_eq(ox_op_MaxPool(&t.k), -1);
	ck_assert_str_eq(t.msg, "the kernel spans 5 elements along spatial axis 0, more than the 3 of the padded input");
	tn_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nn");
	TCase *tc = tcase_create("simd");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, vec_reductions);
	tcase_add_test(tc, vec_accumulators);
	tcase_add_test(tc, vec_ml_dot);
	tcase_add_test(tc, vec_ml_walk);
	tcase_add_test(tc, vec_exp_shift);
	tcase_add_test(tc, vec_exp_accuracy);
	tcase_add_test(tc, vec_pool2d);
	tcase_add_test(tc, vec_pool2d_stride2_rows);
	tcase_add_test(tc, vec_pool2d_padded_planes);
	suite_add_tcase(s, tc);
	tc = tcase_create("pool");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, pool_vs_reference);
	tcase_add_test(tc, pool_levels);
	tcase_add_test(tc, pool_auto_pad);
	tcase_add_test(tc, global_lp_float_p);
	tcase_add_test(tc, pool_kernel_too_big);
	tcase_add_test(tc, lrn_vs_reference);
	suite_add_tcase(s, tc);
	tc = tcase_create("kernels");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, softmax_levels);
	tcase_add_test(tc, batchnorm_levels);
	tcase_add_test(tc, global_pool_levels);
	tcase_add_test(tc, reduce_levels);
	tcase_add_test(tc, dropout_training);
	tcase_add_test(tc, dropout_inference_mask);
	tcase_add_test(tc, error_messages);
	tcase_add_test(tc, empty_with_huge_dims);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
