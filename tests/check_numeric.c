/* The quantization, resampling, Einsum, signal, random and remaining kernels through
 * sessions, where a test needs more than a fixed case: the FFT against a naive DFT at
 * many lengths, random generators by their statistics, Einsum against a naive product,
 * quantization round trips, identities of Resize and GridSample, and error messages. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { FLOAT = 1, UINT8 = 2, INT8 = 3, INT64 = 7, BOOL = 9, DOUBLE = 11 };

/* ---- helpers ------------------------------------------------------------------------ */

typedef struct run {
	Onnx__ModelProto *m;
	OnnxSession *s;
} run;

static run open_model(const char *text)
{
	run r = {tu_model(text), NULL};
	OnnxError err;
	if (OnnxSession_New(r.m, &r.s, &err) != ONNXTXT_OK)
		ck_abort_msg("%s", err.message);
	return r;
}

static void close_model(run *r)
{
	OnnxSession_Free(r->s);
	OnnxProto_Free(r->m);
}

static void set_input(run *r, const char *name, int type, const int64_t *dims, size_t rank, const void *data)
{
	OnnxValue *v;
	OnnxError err;
	ck_assert_int_eq(OnnxValue_NewTensor(type, dims, rank, data, &v, &err), ONNXTXT_OK);
	if (OnnxSession_SetInput(r->s, name, v, &err) != ONNXTXT_OK)
		ck_abort_msg("%s: %s", name, err.message);
	OnnxValue_Free(v);
}

static void run_ok(run *r)
{
	OnnxError err;
	if (OnnxSession_Run(r->s, &err) != ONNXTXT_OK)
		ck_abort_msg("%s", err.message);
}

/* The message of a failing run. */
static const char *run_error(run *r)
{
	static OnnxError err;
	ck_assert_int_ne(OnnxSession_Run(r->s, &err), ONNXTXT_OK);
	return err.message;
}

static const OnnxValue *output(const run *r, size_t i, int type, size_t count)
{
	const OnnxValue *v = OnnxSession_Output(r->s, i);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(OnnxValue_ElemType(v), type);
	ck_assert_uint_eq(OnnxValue_Count(v), count);
	return v;
}

/* A uniform double in [0, 1) from a small LCG, so that tests are reproducible. */
static double lcg(unsigned long long *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) * 0x1.0p-53;
}

#define HEAD(opset) "<ir_version: 10, opset_import: [\"\" : " #opset "]>\n"

/* ---- DFT ---------------------------------------------------------------------------- */

static const int64_t dft_lengths[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 32, 64, 100, 127, 128, 400, 1000};

START_TEST(dft_matches_naive)
{
	int64_t n = dft_lengths[_i], dims[3] = {1, n, 2};
	double *x = malloc((size_t)n * 2 * sizeof *x);
	unsigned long long seed = (unsigned long long)n;
	for (int64_t i = 0; i < 2 * n; i++)
		x[i] = lcg(&seed) * 2 - 1;
	run r = open_model(HEAD(20) "g (double[1, N, 2] x) => (double[1, N, 2] y, double[1, N, 2] z) {\n"
				    "  y = DFT (x)\n  z = DFT <inverse = 1> (y)\n}");
	set_input(&r, "x", DOUBLE, dims, 3, x);
	run_ok(&r);
	const double *y = OnnxValue_Data(output(&r, 0, DOUBLE, (size_t)(2 * n)));
	const double *z = OnnxValue_Data(output(&r, 1, DOUBLE, (size_t)(2 * n)));
	for (int64_t k = 0; k < n; k++) {
		double re = 0, im = 0;
		for (int64_t t = 0; t < n; t++) {
			double a = -2 * 3.14159265358979323846 * (double)((k * t) % n) / (double)n;
			re += x[2 * t] * cos(a) - x[2 * t + 1] * sin(a);
			im += x[2 * t] * sin(a) + x[2 * t + 1] * cos(a);
		}
		ck_assert_msg(fabs(y[2 * k] - re) < 1e-9 * (double)n && fabs(y[2 * k + 1] - im) < 1e-9 * (double)n,
			      "n %lld bin %lld: got %g%+gi, expected %g%+gi", (long long)n, (long long)k, y[2 * k],
			      y[2 * k + 1], re, im);
		ck_assert_msg(fabs(z[2 * k] - x[2 * k]) < 1e-12 && fabs(z[2 * k + 1] - x[2 * k + 1]) < 1e-12,
			      "n %lld: the inverse does not give the signal back at %lld", (long long)n, (long long)k);
	}
	close_model(&r);
	free(x);
}
END_TEST

/* ---- random ------------------------------------------------------------------------- */

#define SAMPLES 100000

static void moments(const float *v, size_t n, double *mean, double *var)
{
	double s = 0, q = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*var = q / (double)n;
}

START_TEST(random_uniform_statistics)
{
	run r = open_model(HEAD(17) "g () => (float[100000] y) {\n"
				    "  y = RandomUniform <shape = [100000], low = -2.0, high = 3.0, seed = 5.0> ()\n}");
	run_ok(&r);
	const float *y = OnnxValue_Data(output(&r, 0, FLOAT, SAMPLES));
	double mean, var;
	for (size_t i = 0; i < SAMPLES; i++)
		ck_assert_msg(y[i] >= -2.0f && y[i] < 3.0f, "element %zu is %g, outside [-2, 3)", i, (double)y[i]);
	moments(y, SAMPLES, &mean, &var);
	/* mean 0.5, variance 25/12; the bounds are over 5 standard errors wide */
	ck_assert_msg(fabs(mean - 0.5) < 0.03, "mean %g", mean);
	ck_assert_msg(fabs(var - 25.0 / 12) < 0.05, "variance %g", var);
	close_model(&r);
}
END_TEST

START_TEST(random_normal_statistics)
{
	run r = open_model(HEAD(17) "g () => (float[100000] y) {\n"
				    "  y = RandomNormal <shape = [100000], mean = 1.0, scale = 2.0, seed = 7.0> ()\n}");
	run_ok(&r);
	const float *y = OnnxValue_Data(output(&r, 0, FLOAT, SAMPLES));
	double mean, var;
	moments(y, SAMPLES, &mean, &var);
	ck_assert_msg(fabs(mean - 1.0) < 0.04, "mean %g", mean);
	ck_assert_msg(fabs(sqrt(var) - 2.0) < 0.04, "standard deviation %g", sqrt(var));
	size_t within = 0;
	for (size_t i = 0; i < SAMPLES; i++)
		within += fabs(y[i] - 1.0) < 2.0;
	/* 68.3% of a normal distribution lies within one standard deviation */
	ck_assert_msg(fabs((double)within / SAMPLES - 0.6827) < 0.01, "%zu within one deviation", within);
	close_model(&r);
}
END_TEST

/* Two runs of the same seeded node agree; another seed gives other values. */
START_TEST(random_seeds)
{
	static const char *const texts[] = {
		HEAD(17) "g () => (float[64] y) { y = RandomNormal <shape = [64], seed = 1.0> () }",
		HEAD(17) "g () => (float[64] y) { y = RandomNormal <shape = [64], seed = 2.0> () }",
	};
	float a[64], b[64];
	run r = open_model(texts[0]);
	run_ok(&r);
	memcpy(a, OnnxValue_Data(output(&r, 0, FLOAT, 64)), sizeof a);
	run_ok(&r);
	ck_assert_mem_eq(a, OnnxValue_Data(output(&r, 0, FLOAT, 64)), sizeof a);
	close_model(&r);
	r = open_model(texts[1]);
	run_ok(&r);
	memcpy(b, OnnxValue_Data(output(&r, 0, FLOAT, 64)), sizeof b);
	ck_assert(memcmp(a, b, sizeof a) != 0);
	close_model(&r);
}
END_TEST

START_TEST(random_like_types)
{
	run r = open_model(HEAD(17) "g (int64[2, 3] x) => (double[2, 3] y, float[2, 3] z) {\n"
				    "  y = RandomUniformLike <dtype = 11, low = 10.0, high = 11.0> (x)\n"
				    "  z = RandomNormalLike <dtype = 1> (x)\n}");
	int64_t dims[2] = {2, 3}, x[6] = {0};
	set_input(&r, "x", INT64, dims, 2, x);
	run_ok(&r);
	const OnnxValue *y = output(&r, 0, DOUBLE, 6);
	ck_assert_uint_eq(OnnxValue_Rank(y), 2);
	ck_assert_int_eq(OnnxValue_Dims(y)[1], 3);
	for (int i = 0; i < 6; i++)
		ck_assert(((const double *)OnnxValue_Data(y))[i] >= 10 && ((const double *)OnnxValue_Data(y))[i] < 11);
	output(&r, 1, FLOAT, 6);
	/* without dtype, a non-float input is an error */
	close_model(&r);
	r = open_model(HEAD(17) "g (int64[2] x) => (float[2] y) { y = RandomUniformLike (x) }");
	set_input(&r, "x", INT64, dims, 1, x);
	ck_assert_ptr_nonnull(
		strstr(run_error(&r), "graph.node[0] (RandomUniformLike): dtype must be float, float16, double or bfloat16, not int64"));
	close_model(&r);
}
END_TEST

START_TEST(bernoulli_statistics)
{
	run r = open_model(HEAD(15) "g (float[100000] p) => (bool[100000] y, double[100000] z) {\n"
				    "  y = Bernoulli <dtype = 9, seed = 3.0> (p)\n  z = Bernoulli <dtype = 11> (p)\n}");
	float *p = malloc(SAMPLES * sizeof *p);
	for (size_t i = 0; i < SAMPLES; i++)
		p[i] = i < 1000 ? 0.0f : i < 2000 ? 1.0f : 0.3f;
	int64_t n = SAMPLES;
	set_input(&r, "p", FLOAT, &n, 1, p);
	run_ok(&r);
	const unsigned char *y = OnnxValue_Data(output(&r, 0, BOOL, SAMPLES));
	const double *z = OnnxValue_Data(output(&r, 1, DOUBLE, SAMPLES));
	size_t ones = 0;
	for (size_t i = 0; i < SAMPLES; i++) {
		ck_assert(y[i] <= 1 && (z[i] == 0 || z[i] == 1));
		if (i < 2000)
			ck_assert_uint_eq(y[i], i >= 1000);
		else
			ones += y[i];
	}
	ck_assert_msg(fabs((double)ones / (SAMPLES - 2000) - 0.3) < 0.01, "%zu ones", ones);
	close_model(&r);
	free(p);
}
END_TEST

START_TEST(multinomial_statistics)
{
	run r = open_model(HEAD(7) "g (float[2, 3] x) => (int64[2, 100000] y) {\n"
				   "  y = Multinomial <dtype = 7, sample_size = 100000, seed = 11.0> (x)\n}");
	/* unnormalized log-probabilities: row 0 is 0.2, 0.5, 0.3; row 1 always class 2 */
	float x[6] = {logf(0.2f) + 4, logf(0.5f) + 4, logf(0.3f) + 4, -1e30f, -1e30f, 0};
	int64_t dims[2] = {2, 3};
	set_input(&r, "x", FLOAT, dims, 2, x);
	run_ok(&r);
	const int64_t *y = OnnxValue_Data(output(&r, 0, INT64, 2 * SAMPLES));
	size_t count[3] = {0};
	for (size_t i = 0; i < SAMPLES; i++) {
		ck_assert(y[i] >= 0 && y[i] < 3);
		count[y[i]]++;
		ck_assert_int_eq(y[SAMPLES + i], 2);
	}
	ck_assert_msg(fabs((double)count[0] / SAMPLES - 0.2) < 0.01 && fabs((double)count[1] / SAMPLES - 0.5) < 0.01 &&
			      fabs((double)count[2] / SAMPLES - 0.3) < 0.01,
		      "frequencies %zu %zu %zu", count[0], count[1], count[2]);
	close_model(&r);
}
END_TEST

/* ---- Einsum ------------------------------------------------------------------------- */

START_TEST(einsum_batched_product)
{
	enum { B = 3, M = 17, K = 33, N = 9 };
	run r = open_model(HEAD(12) "g (float[3, 17, 33] a, float[3, 33, 9] b) => (float[3, 9, 17] c, float[3] t) {\n"
				    "  c = Einsum <equation = \"bij, bjk -> bki\"> (a, b)\n"
				    "  t = Einsum <equation = \"bij,bjk->b\"> (a, b)\n}");
	static float a[B * M * K], b[B * K * N];
	unsigned long long seed = 1;
	for (size_t i = 0; i < B * M * K; i++)
		a[i] = (float)(lcg(&seed) - 0.5);
	for (size_t i = 0; i < B * K * N; i++)
		b[i] = (float)(lcg(&seed) - 0.5);
	int64_t da[3] = {B, M, K}, db[3] = {B, K, N};
	set_input(&r, "a", FLOAT, da, 3, a);
	set_input(&r, "b", FLOAT, db, 3, b);
	run_ok(&r);
	const float *c = OnnxValue_Data(output(&r, 0, FLOAT, B * M * N));
	const float *t = OnnxValue_Data(output(&r, 1, FLOAT, B));
	for (int p = 0; p < B; p++) {
		double total = 0;
		for (int i = 0; i < M; i++)
			for (int k = 0; k < N; k++) {
				double s = 0;
				for (int j = 0; j < K; j++)
					s += (double)a[(p * M + i) * K + j] * b[(p * K + j) * N + k];
				total += s;
				ck_assert_msg(fabs(c[(p * N + k) * M + i] - s) < 1e-5, "c[%d, %d, %d]", p, k, i);
			}
		ck_assert_msg(fabs(t[p] - total) < 1e-4, "t[%d] is %g, expected %g", p, (double)t[p], total);
	}
	close_model(&r);
}
END_TEST

static const struct bad_einsum {
	const char *eq, *error;
} bad_einsums[] = {
	{"ij,jk,k->ik", "equation has a different number of terms than the 2 inputs"},
	{"ijk,jk->ik", "equation: term 'ijk' has 3 labels for an input of rank 2"},
	{"ij,jk->iz", "equation: output label 'z' appears in no input"},
	{"ij,jk->ii", "equation: an output label is repeated"},
	{"i.j,jk", "equation: a lone '.' or a second ellipsis in term 'i.j'"},
	{"ij,j1", "equation: '1' is not a letter"},
	{"ij,ik->jk", "equation: a label has sizes 2 and 3"},
	{"...j,jk->k", "equation: the output term 'k' has no ellipsis for the 1 dims the inputs' ellipses stand for"},
};

START_TEST(einsum_errors)
{
	char text[512];
	snprintf(text, sizeof text,
		 HEAD(12) "g (float[2, 3] a, float[3, 3] b) => (float[3, 3] c) { c = Einsum <equation = \"%s\"> (a, b) }",
		 bad_einsums[_i].eq);
	run r = open_model(text);
	float a[6] = {0}, b[9] = {0};
	int64_t da[2] = {2, 3}, db[2] = {3, 3};
	set_input(&r, "a", FLOAT, da, 2, a);
	set_input(&r, "b", FLOAT, db, 2, b);
	const char *msg = run_error(&r);
	ck_assert_msg(strstr(msg, bad_einsums[_i].error), "%s: %s", bad_einsums[_i].eq, msg);
	close_model(&r);
}
END_TEST

/* ---- quantization ------------------------------------------------------------------- */

/* Dequantize(Quantize(x)) is within half a step of x inside the range; rounding is half
 * to even and saturates outside it. */
START_TEST(quantize_round_trip)
{
	run r = open_model(HEAD(19) "g (float[1000] x, float s, int8 z) => (int8[1000] q, float[1000] y) {\n"
				    "  q = QuantizeLinear (x, s, z)\n  y = DequantizeLinear (q, s, z)\n}");
	float x[1000], s = 0.05f;
	int8_t z = -3;
	unsigned long long seed = 2;
	for (int i = 0; i < 1000; i++)
		x[i] = (float)(lcg(&seed) * 12 - 6);
	x[0] = 2.5f * s, x[1] = 3.5f * s, x[2] = -2.5f * s, x[3] = 100, x[4] = -100;
	int64_t n = 1000;
	set_input(&r, "x", FLOAT, &n, 1, x);
	set_input(&r, "s", FLOAT, NULL, 0, &s);
	set_input(&r, "z", INT8, NULL, 0, &z);
	run_ok(&r);
	const int8_t *q = OnnxValue_Data(output(&r, 0, INT8, 1000));
	const float *y = OnnxValue_Data(output(&r, 1, FLOAT, 1000));
	ck_assert_int_eq(q[0], 2 - 3);
	ck_assert_int_eq(q[1], 4 - 3);
	ck_assert_int_eq(q[2], -2 - 3);
	ck_assert_int_eq(q[3], 127);
	ck_assert_int_eq(q[4], -128);
	for (int i = 5; i < 1000; i++) {
		bool inside = x[i] / s + z >= -128 && x[i] / s + z <= 127;
		if (inside)
			ck_assert_msg(fabs(y[i] - x[i]) <= s / 2 * 1.0001, "%g came back as %g", (double)x[i], (double)y[i]);
	}
	close_model(&r);
}
END_TEST

static const struct bad_quant {
	const char *text, *error;
} bad_quants[] = {
	{"q = QuantizeLinear <axis = 1> (x, s3)", "per-axis quantization: the scale must be a 1-D tensor of 4 values (x's axis 1)"},
	{"q = QuantizeLinear <axis = 2> (x, s4)", "axis 2 is out of range for rank 2"},
	{"q = QuantizeLinear <block_size = 3> (x, s4)", "blocked quantization: the scale has rank 1; expected the rank of x, 2"},
	{"q = QuantizeLinear <output_dtype = 3> (x, s4, z)", "output_dtype int8 differs from the zero point's type uint8"},
};

START_TEST(quantize_errors)
{
	char text[512];
	snprintf(text, sizeof text,
		 HEAD(21) "g (float[2, 4] x, float[3] s3, float[4] s4, uint8[4] z) => (int8[2, 4] q) { %s }",
		 bad_quants[_i].text);
	run r = open_model(text);
	float x[8] = {0}, s[4] = {1, 1, 1, 1};
	uint8_t z[4] = {0};
	int64_t dx[2] = {2, 4}, d3 = 3, d4 = 4;
	set_input(&r, "x", FLOAT, dx, 2, x);
	set_input(&r, "s3", FLOAT, &d3, 1, s);
	set_input(&r, "s4", FLOAT, &d4, 1, s);
	set_input(&r, "z", UINT8, &d4, 1, z);
	const char *msg = run_error(&r);
	ck_assert_msg(strstr(msg, bad_quants[_i].error), "%s: %s", bad_quants[_i].text, msg);
	close_model(&r);
}
END_TEST

/* ---- resampling --------------------------------------------------------------------- */

static const char *const identity_resizes[] = {
	"mode = \"nearest\"", "mode = \"linear\"", "mode = \"cubic\"",
	"mode = \"linear\", coordinate_transformation_mode = \"align_corners\"",
	"mode = \"cubic\", coordinate_transformation_mode = \"asymmetric\", exclude_outside = 1",
	"mode = \"linear\", coordinate_transformation_mode = \"pytorch_half_pixel\", antialias = 1",
	"mode = \"nearest\", coordinate_transformation_mode = \"half_pixel_symmetric\", nearest_mode = \"ceil\"",
};

/* Scale 1 on every axis gives the input back, whatever the mode. */
START_TEST(resize_identity)
{
	char text[512];
	snprintf(text, sizeof text,
		 HEAD(19) "g (float[2, 3, 5, 4] x, float[4] s) => (float[2, 3, 5, 4] y) { y = Resize <%s> (x, , s) }",
		 identity_resizes[_i]);
	run r = open_model(text);
	float x[120], s[4] = {1, 1, 1, 1};
	for (int i = 0; i < 120; i++)
		x[i] = (float)((i * 37) % 23) - 11;
	int64_t dx[4] = {2, 3, 5, 4}, ds = 4;
	set_input(&r, "x", FLOAT, dx, 4, x);
	set_input(&r, "s", FLOAT, &ds, 1, s);
	run_ok(&r);
	const float *y = OnnxValue_Data(output(&r, 0, FLOAT, 120));
	for (int i = 0; i < 120; i++)
		ck_assert_msg(fabs(y[i] - x[i]) < 1e-5, "%s: element %d is %g, expected %g", identity_resizes[_i], i,
			      (double)y[i], (double)x[i]);
	close_model(&r);
}
END_TEST

/* AffineGrid of the identity transform, sampled by GridSample with the same
 * align_corners, reproduces the image (2-D and 3-D). */
START_TEST(affine_grid_identity)
{
	bool three = _i >= 2;
	int align = _i % 2;
	char text[768];
	snprintf(text, sizeof text,
		 HEAD(20) "g (float[%s] x, float[%s] theta, int64[%d] size) => (float[%s] y) {\n"
			  "  grid = AffineGrid <align_corners = %d> (theta, size)\n"
			  "  y = GridSample <align_corners = %d, mode = \"%s\"> (x, grid)\n}",
		 three ? "1, 2, 3, 4, 5" : "2, 2, 4, 5", three ? "1, 3, 4" : "2, 2, 3", three ? 5 : 4,
		 three ? "1, 2, 3, 4, 5" : "2, 2, 4, 5", align, align, _i == 1 ? "cubic" : "linear");
	run r = open_model(text);
	float x[120], theta[24] = {0};
	for (int i = 0; i < 120; i++)
		x[i] = (float)((i * 7) % 11);
	int n = three ? 1 : 2, sp = three ? 3 : 2;
	for (int b = 0; b < n; b++)
		for (int i = 0; i < sp; i++)
			theta[(b * sp + i) * (sp + 1) + i] = 1;
	int64_t dx[5] = {2, 2, 4, 5}, dx3[5] = {1, 2, 3, 4, 5}, dt[3] = {n, sp, sp + 1};
	set_input(&r, "x", FLOAT, three ? dx3 : dx, (size_t)sp + 2, x);
	set_input(&r, "theta", FLOAT, dt, 3, theta);
	set_input(&r, "size", INT64, (int64_t[1]){sp + 2}, 1, three ? dx3 : dx);
	run_ok(&r);
	size_t count = three ? 120 : 80;
	const float *y = OnnxValue_Data(output(&r, 0, FLOAT, count));
	for (size_t i = 0; i < count; i++)
		ck_assert_msg(fabs(y[i] - x[i]) < 1e-4, "case %d: element %zu is %g, expected %g", _i, i, (double)y[i],
			      (double)x[i]);
	close_model(&r);
}
END_TEST

static const struct bad_resize {
	const char *text, *error;
} bad_resizes[] = {
	{"y = Resize (x, , s, z)", "exactly one of scales and sizes must be given"},
	{"y = Resize <mode = \"area\"> (x, , s)", "mode 'area' is not supported"},
	{"y = Resize <coordinate_transformation_mode = \"tf_half_pixel_for_nn\"> (x, , s)",
	 "coordinate_transformation_mode is not available at opset 19"},
	{"y = Resize <axes = [0, 0]> (x, , s2)", "axis 0 is repeated in axes"},
	{"y = Resize (x, , s2)", "scales must be 4 float values, not 2 float values"},
	{"y = GridSample (x, g)", "grid must have shape [N, spatial dims of the output..., 2] with X's N"},
};

START_TEST(resize_errors)
{
	char text[512];
	snprintf(text, sizeof text,
		 HEAD(19) "g (float[1, 1, 2, 2] x, float[4] s, float[2] s2, int64[4] z, float[1, 2, 2, 3] g) => "
			  "(float[1, 1, 2, 2] y) { %s }",
		 bad_resizes[_i].text);
	run r = open_model(text);
	float x[12] = {0}, s[4] = {1, 1, 2, 2};
	int64_t z[4] = {1, 1, 2, 2}, dx[4] = {1, 1, 2, 2}, dg[4] = {1, 2, 2, 3}, d4 = 4, d2 = 2;
	set_input(&r, "x", FLOAT, dx, 4, x);
	set_input(&r, "s", FLOAT, &d4, 1, s);
	set_input(&r, "s2", FLOAT, &d2, 1, s);
	set_input(&r, "z", INT64, &d4, 1, z);
	set_input(&r, "g", FLOAT, dg, 4, x);
	const char *msg = run_error(&r);
	ck_assert_msg(strstr(msg, bad_resizes[_i].error), "%s: %s", bad_resizes[_i].text, msg);
	close_model(&r);
}
END_TEST

/* ---- the rest ----------------------------------------------------------------------- */

START_TEST(tensor_scatter_linear_overflow)
{
	run r = open_model(HEAD(24) "g (float[1, 3, 2] c, float[1, 2, 2] u, int64[1] w) => (float[1, 3, 2] y) {\n"
				    "  y = TensorScatter <axis = 1> (c, u, w)\n}");
	float c[6] = {0}, u[4] = {1, 2, 3, 4};
	int64_t w = 2, dc[3] = {1, 3, 2}, du[3] = {1, 2, 2}, one = 1;
	set_input(&r, "c", FLOAT, dc, 3, c);
	set_input(&r, "u", FLOAT, du, 3, u);
	set_input(&r, "w", INT64, &one, 1, &w);
	ck_assert_ptr_nonnull(
		strstr(run_error(&r), "graph.node[0] (TensorScatter): write index 3 is outside the cache's 3 positions"));
	close_model(&r);
}
END_TEST

/* Domains other than the default one are looked up by (domain, op): a training op exists,
 * an unknown op of that domain does not, nor does a training op in the default domain. */
START_TEST(unsupported_domain_op)
{
	Onnx__ModelProto *m = tu_model("<ir_version: 8, opset_import: [\"\" : 20, \"ai.onnx.preview.training\" : 1]>\n"
				       "g (float[1] x) => (float[1] y) { y = ai.onnx.preview.training.Adamax (x) }");
	OnnxSession *s = NULL;
	OnnxError err;
	ck_assert_int_eq(OnnxSession_New(m, &s, &err), ONNXTXT_ERR_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(err.message, "operator ai.onnx.preview.training.Adamax is not supported"));
	OnnxProto_Free(m);
	m = tu_model(HEAD(20) "g (float[1] x) => (float[1] y) { y = Adam (x) }");
	ck_assert_int_eq(OnnxSession_New(m, &s, &err), ONNXTXT_ERR_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(err.message, "operator Adam is not supported"));
	OnnxProto_Free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("numeric");
	TCase *t = tcase_create("signal");
	tcase_add_loop_test(t, dft_matches_naive, 0, sizeof dft_lengths / sizeof dft_lengths[0]);
	suite_add_tcase(s, t);
	t = tcase_create("random");
	tcase_set_timeout(t, 120); /* 200000 draws: slow under valgrind on a loaded machine */
	tcase_add_test(t, random_uniform_statistics);
	tcase_add_test(t, random_normal_statistics);
	tcase_add_test(t, random_seeds);
	tcase_add_test(t, random_like_types);
	tcase_add_test(t, bernoulli_statistics);
	tcase_add_test(t, multinomial_statistics);
	suite_add_tcase(s, t);
	t = tcase_create("einsum");
	tcase_add_test(t, einsum_batched_product);
	tcase_add_loop_test(t, einsum_errors, 0, sizeof bad_einsums / sizeof bad_einsums[0]);
	suite_add_tcase(s, t);
	t = tcase_create("quant");
	tcase_add_test(t, quantize_round_trip);
	tcase_add_loop_test(t, quantize_errors, 0, sizeof bad_quants / sizeof bad_quants[0]);
	suite_add_tcase(s, t);
	t = tcase_create("resample");
	tcase_add_loop_test(t, resize_identity, 0, sizeof identity_resizes / sizeof identity_resizes[0]);
	tcase_add_loop_test(t, affine_grid_identity, 0, 4);
	tcase_add_loop_test(t, resize_errors, 0, sizeof bad_resizes / sizeof bad_resizes[0]);
	suite_add_tcase(s, t);
	t = tcase_create("other");
	tcase_add_test(t, tensor_scatter_linear_overflow);
	tcase_add_test(t, unsupported_domain_op);
	suite_add_tcase(s, t);
	return tu_run(s);
}
