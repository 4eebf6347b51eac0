/* Unit tests for the elementwise kernels: every SIMD loop against its scalar twin at every
 * level the CPU runs (sizes 0..130, random larger ones, special values, aliasing), the
 * broadcasting engine against a naive reference, Cast's corner cases, and the operators
 * themselves through a hand-made kernel context. */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/convert.h"
#include "eval/simd/cpu.h"
#include "eval/ops/elementwise.h"
#include "eval/kernel.h"
#include "eval/registry.h"
#include "schema/schema.h"
#include "testutil.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static float bits_f(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint32_t f_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

/* Distance in units in the last place, counting across zero */
static int64_t ulps(float a, float b)
{
	int64_t x = (int32_t)f_bits(a), y = (int32_t)f_bits(b);
	x = x < 0 ? INT32_MIN - x : x;
	y = y < 0 ? INT32_MIN - y : y;
	return x > y ? x - y : y - x;
}

/* Values that tell loops apart: specials, subnormals, both signs, all magnitudes */
static float special(uint64_t r)
{
	static const float s[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1e-45f, -1e-45f, 1e-40f,
				  -3e-39f, 1.17549435e-38f, 3.4028235e38f, -3.4028235e38f, 1.0f, -1.0f, 0.5f,
				  88.72f, 88.73f, -87.4f, -103.9f, -104.5f, 9.0f, -9.5f, 0.625f, -0.6249f};
	return s[r % (sizeof s / sizeof s[0])];
}

static void fill(float *x, size_t n, int mode)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = next();
		if (mode == 0 || r % 8 == 0)
			x[i] = special(r >> 8);
		else if (r % 8 < 4)
			x[i] = bits_f((uint32_t)(r >> 16)); /* any float */
		else
			x[i] = (float)((int64_t)(r >> 20) % 20000) / 1000.0f; /* [-20, 20] */
	}
}

/* The levels this CPU runs, beyond scalar */
static int max_level(void)
{
	int l = ox_cpu_level();
	return l == OX_CPU_NEON ? OX_CPU_SCALAR : l;
}

static const size_t extra_sizes[] = {131, 257, 1000, 1023, 4097, 65537, 100003};

/* Sizes 0..130, then some larger ones that are not multiples of any vector width */
static size_t size_at(int i)
{
	return i <= 130 ? (size_t)i : extra_sizes[i - 131];
}
#define NSIZES (131 + (int)(sizeof extra_sizes / sizeof extra_sizes[0]))

/* ---- binary loops ---------------------------------------------------------------- */

typedef struct named_binary {
	const char *name;
	size_t off;
} named_binary;

static const named_binary binaries[] = {
	{"add", offsetof(ox_f32_loops, add)}, {"sub", offsetof(ox_f32_loops, sub)},
	{"mul", offsetof(ox_f32_loops, mul)}, {"div", offsetof(ox_f32_loops, div)},
	{"max", offsetof(ox_f32_loops, max)}, {"min", offsetof(ox_f32_loops, min)},
	{"prelu", offsetof(ox_f32_loops, prelu)},
};

static ox_f32_binary binary_at(const ox_f32_loops *l, size_t off)
{
	ox_f32_binary f;
	memcpy(&f, (const char *)l + off, sizeof f);
	return f;
}

static bool same(float a, float b)
{
	return f_bits(a) == f_bits(b) || (isnan(a) && isnan(b));
}

/* one binary loop of one level against scalar, n elements, strides sa, sb */
static void check_binary(int level, const named_binary *op, size_t n, int sa, int sb, int mode)
{
	float *a = malloc((n + 1) * 4), *b = malloc((n + 1) * 4), *y = malloc((n + 1) * 4), *z = malloc((n + 1) * 4);
	fill(a, n + 1, mode);
	fill(b, n + 1, mode);
	binary_at(ox_f32_loops_at(OX_CPU_SCALAR), op->off)(z, a, b, n, sa, sb);
	binary_at(ox_f32_loops_at(level), op->off)(y, a, b, n, sa, sb);
	for (size_t i = 0; i < n; i++)
		REQUIRE(same(y[i], z[i]), "%s %s n=%zu sa=%d sb=%d [%zu]: %a op %a = %a, scalar %a",
			ox_cpu_level_name(level), op->name, n, sa, sb, i, a[i * sa], b[i * sb], y[i], z[i]);
	free(a);
	free(b);
	free(y);
	free(z);
}

START_TEST(binary_vs_scalar)
{
	const named_binary *op = &binaries[_i];
	for (int level = OX_CPU_AVX2; level <= max_level(); level++)
		for (int i = 0; i < NSIZES; i++)
			for (int s = 0; s < 4; s++)
				check_binary(level, op, size_at(i), s & 1, s >> 1, i % 2);
}
END_TEST

/* In place (y = a) and through the non-temporal path with an unaligned output */
START_TEST(binary_in_place_and_stream)
{
	size_t n = OX_STREAM_BYTES / 4 + 37;
	float *a = malloc((n + 16) * 4), *b = malloc(n * 4), *y = malloc((n + 16) * 4), *z = malloc(n * 4);
	fill(a, n, 1);
	fill(b, n, 1);
	for (int level = OX_CPU_SCALAR; level <= max_level(); level++) {
		const ox_f32_loops *l = ox_f32_loops_at(level);
		ox_f32_loops_at(OX_CPU_SCALAR)->add(z, a, b, n, 1, 1);
		l->add(y + 3, a, b, n, 1, 1); /* y + 3: a prologue before the aligned stores */
		for (size_t i = 0; i < n; i++)
			REQUIRE(same(y[i + 3], z[i]), "%s streamed add [%zu]", l->level ? "simd" : "scalar", i);
		memcpy(y, a, n * 4);
		l->mul(y, y, b, n, 1, 1);
		ox_f32_loops_at(OX_CPU_SCALAR)->mul(z, a, b, n, 1, 1);
		for (size_t i = 0; i < n; i++)
			REQUIRE(same(y[i], z[i]), "%s in-place mul [%zu]", ox_cpu_level_name(level), i);
	}
	free(a);
	free(b);
	free(y);
	free(z);
}
END_TEST

/* ---- unary loops ----------------------------------------------------------------- */

typedef struct named_unary {
	const char *name;
	size_t off;
	int64_t ulp; /* 0: exact */
	float p[2];
} named_unary;

static const named_unary unaries[] = {
	{"relu", offsetof(ox_f32_loops, relu), 0, {0}},
	{"leaky_relu", offsetof(ox_f32_loops, leaky_relu), 0, {0.01f}},
	{"sigmoid", offsetof(ox_f32_loops, sigmoid), OX_F32_ULP_SIGMOID, {0}},
	{"tanh", offsetof(ox_f32_loops, tanh), OX_F32_ULP_TANH, {0}},
	{"exp", offsetof(ox_f32_loops, exp), OX_F32_ULP_EXP, {0}},
	{"clip", offsetof(ox_f32_loops, clip), 0, {-1.5f, 2.0f}},
	{"clip (min > max)", offsetof(ox_f32_loops, clip), 0, {3.0f, -2.0f}},
	{"clip (signed zeros)", offsetof(ox_f32_loops, clip), 0, {0.0f, -0.0f}},
	{"abs", offsetof(ox_f32_loops, abs), 0, {0}},
	{"neg", offsetof(ox_f32_loops, neg), 0, {0}},
	{"sqrt", offsetof(ox_f32_loops, sqrt), 0, {0}},
};

static ox_f32_unary unary_at(const ox_f32_loops *l, size_t off)
{
	ox_f32_unary f;
	memcpy(&f, (const char *)l + off, sizeof f);
	return f;
}

static void check_unary(int level, const named_unary *op, size_t n, int mode, bool in_place)
{
	float *x = malloc((n + 1) * 4), *y = malloc((n + 1) * 4), *z = malloc((n + 1) * 4);
	fill(x, n, mode);
	unary_at(ox_f32_loops_at(OX_CPU_SCALAR), op->off)(z, x, n, op->p);
	if (in_place)
		memcpy(y, x, n * 4);
	unary_at(ox_f32_loops_at(level), op->off)(y, in_place ? y : x, n, op->p);
	for (size_t i = 0; i < n; i++) {
		bool ok = op->ulp ? (isnan(z[i]) ? isnan(y[i]) : ulps(y[i], z[i]) <= op->ulp) : same(y[i], z[i]);
		REQUIRE(ok, "%s %s n=%zu [%zu]: f(%a) = %a, scalar %a (%lld ulp)", ox_cpu_level_name(level), op->name, n,
			i, x[i], y[i], z[i], (long long)ulps(y[i], z[i]));
	}
	free(x);
	free(y);
	free(z);
}

START_TEST(unary_vs_scalar)
{
	const named_unary *op = &unaries[_i];
	for (int level = OX_CPU_AVX2; level <= max_level(); level++)
		for (int i = 0; i < NSIZES; i++)
			check_unary(level, op, size_at(i), i % 2, i % 3 == 0);
}
END_TEST

/* The approximations over a dense sweep of their interesting range, and the tails: the
 * last elements of a loop go through the vector code too, so an element's value does not
 * depend on its position. */
START_TEST(unary_sweep_and_tails)
{
	enum { N = 1 << 16 };
	static float x[N], y[N], z[N];
	for (int level = OX_CPU_AVX2; level <= max_level(); level++)
		for (size_t u = 0; u < 3; u++) {
			const named_unary *op = &unaries[2 + u]; /* sigmoid, tanh, exp */
			for (int i = 0; i < N; i++)
				x[i] = -110.0f + 200.0f * (float)i / N;
			unary_at(ox_f32_loops_at(level), op->off)(y, x, N, op->p);
			unary_at(ox_f32_loops_at(OX_CPU_SCALAR), op->off)(z, x, N, op->p);
			for (int i = 0; i < N; i++)
				REQUIRE(ulps(y[i], z[i]) <= op->ulp, "%s %s(%a) = %a, scalar %a", ox_cpu_level_name(level),
					op->name, x[i], y[i], z[i]);
			for (size_t n = 1; n < 40; n++) {
				unary_at(ox_f32_loops_at(level), op->off)(z, x + 1000, n, op->p);
				for (size_t i = 0; i < n; i++)
					REQUIRE(same(z[i], y[1000 + i]), "%s %s tail %zu/%zu", ox_cpu_level_name(level),
						op->name, i, n);
			}
		}
}
END_TEST

/* Unary outputs large enough to be streamed, unaligned (a head before the aligned
 * stores) and in place: exact loops give the scalar bits, approximations the same value
 * wherever the element falls. */
START_TEST(unary_stream)
{
	size_t n = OX_STREAM_BYTES / 4 + 21;
	float *x = malloc((n + 16) * 4), *y = malloc((n + 16) * 4), *z = malloc((n + 16) * 4);
	fill(x, n + 16, 1);
	for (int level = OX_CPU_AVX2; level <= max_level(); level++) {
		const ox_f32_loops *l = ox_f32_loops_at(level);
		const float clip[2] = {-1, 1};
		l->clip(y + 5, x + 5, n, clip); /* y + 5: not aligned */
		ox_f32_loops_at(OX_CPU_SCALAR)->clip(z, x + 5, n, clip);
		for (size_t i = 0; i < n; i++)
			REQUIRE(same(y[i + 5], z[i]), "%s streamed clip [%zu]", ox_cpu_level_name(level), i);
		l->tanh(z, x, n + 16, NULL); /* aligned, for reference */
		memcpy(y, x, (n + 16) * 4);
		l->tanh(y + 3, y + 3, n, NULL); /* in place, unaligned */
		for (size_t i = 0; i < n; i++)
			REQUIRE(same(y[i + 3], z[i + 3]), "%s streamed in-place tanh [%zu]", ox_cpu_level_name(level), i);
	}
	free(x);
	free(y);
	free(z);
}
END_TEST

/* Exactly representable results and limits */
START_TEST(unary_exact_points)
{
	for (int level = OX_CPU_SCALAR; level <= max_level(); level++) {
		const ox_f32_loops *l = ox_f32_loops_at(level);
		float x[] = {0.0f, -0.0f, INFINITY, -INFINITY, 89.0f, -120.0f, NAN, 1e-40f};
		float y[8];
		l->exp(y, x, 8, NULL);
		REQUIRE(y[0] == 1 && y[1] == 1 && y[2] == INFINITY && y[3] == 0 && y[4] == INFINITY && y[5] == 0 &&
				isnan(y[6]) && y[7] == 1,
			"%s exp specials", ox_cpu_level_name(level));
		l->tanh(y, x, 8, NULL);
		REQUIRE(f_bits(y[0]) == 0 && f_bits(y[1]) == 0x80000000u && y[2] == 1 && y[3] == -1 && y[4] == 1 &&
				y[5] == -1 && isnan(y[6]) && y[7] == 1e-40f,
			"%s tanh specials", ox_cpu_level_name(level));
		l->sigmoid(y, x, 8, NULL);
		REQUIRE(y[0] == 0.5f && y[1] == 0.5f && y[2] == 1 && y[3] == 0 && y[4] == 1 && y[5] == 0 &&
				isnan(y[6]) && y[7] == 0.5f,
			"%s sigmoid specials", ox_cpu_level_name(level));
	}
}
END_TEST

static bool f16_nan(uint16_t h)
{
	return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

/* F16C against the scalar conversions: every float16 to float32; to float16 every
 * midpoint between neighbours (ties to even), its neighbours' floats, and random floats */
START_TEST(f16_conversions)
{
	enum { H = 65536 };
	static uint16_t h[H], hy[H], hz[H];
	static float fy[H], fz[H], x[3 * H];
	for (int i = 0; i < H; i++)
		h[i] = (uint16_t)i;
	for (int i = 0; i < H; i++) {
		float a = ox_f16_to_f32((uint16_t)i), b = ox_f16_to_f32((uint16_t)(i + 1));
		x[3 * i] = (a + b) / 2; /* exact: float has 13 more bits */
		x[3 * i + 1] = nextafterf(x[3 * i], INFINITY);
		x[3 * i + 2] = i % 2 ? bits_f((uint32_t)next()) : special(next());
	}
	const ox_f32_loops *sc = ox_f32_loops_at(OX_CPU_SCALAR);
	for (int level = OX_CPU_AVX2; level <= max_level(); level++) {
		const ox_f32_loops *l = ox_f32_loops_at(level);
		l->f16_to_f32(fy, h, H);
		sc->f16_to_f32(fz, h, H);
		for (int i = 0; i < H; i++)
			REQUIRE(same(fy[i], fz[i]), "%s f16 %04x -> %a, scalar %a", ox_cpu_level_name(level), i, fy[i], fz[i]);
		for (int part = 0; part < 3; part++) {
			l->f32_to_f16(hy, x + part * H, H - part); /* H - part: tails too */
			sc->f32_to_f16(hz, x + part * H, H - part);
			for (int i = 0; i < H - part; i++)
				REQUIRE(hy[i] == hz[i] || (f16_nan(hy[i]) && f16_nan(hz[i])), "%s %a -> f16 %04x, scalar %04x",
					ox_cpu_level_name(level), x[part * H + i], hy[i], hz[i]);
		}
	}
}
END_TEST

/* ---- running operators ------------------------------------------------------------ */

static ox_val *tensor(const char *text)
{
	Onnx__TensorProto *t = NULL;
	OnnxError err;
	REQUIRE(OnnxParser_ParseTensor(text, strlen(text), &t, &err) == ONNXTXT_OK, "%s: %s", text, err.message);
	char msg[OX_MSG];
	ox_val *v = ox_val_from_tensor_proto(t, msg);
	REQUIRE(v != NULL, "%s: %s", text, msg);
	OnnxProto_Free(t);
	return v;
}

/* Runs one node (text) at an opset version; inputs are tensor texts, "" for omitted.
 * Returns the kernel's status; outputs in out, the message in msg. */
static int run(const char *node_text, int version, const char *const *in, int nin, ox_val **out, char *msg)
{
	Onnx__NodeProto *node = NULL;
	OnnxError err;
	REQUIRE(OnnxParser_ParseNode(node_text, strlen(node_text), &node, &err) == ONNXTXT_OK, "%s: %s",
		node_text, err.message);
	const ox_schema *s = ox_schema_find(node->domain ? node->domain : "", node->op_type, version);
	const ox_op *op = ox_op_find(node->domain, node->op_type, s ? s->since : version, NULL);
	REQUIRE(op != NULL, "no kernel for %s", node->op_type);
	ox_val *x[8] = {0};
	for (int i = 0; i < nin; i++)
		x[i] = in[i][0] ? tensor(in[i]) : NULL;
	out[0] = NULL;
	msg[0] = '\0';
	ox_k k = {.proto = node, .version = version, .in = x, .nin = nin, .out = out, .nout = (int)node->n_output,
		  .attrs = (const Onnx__AttributeProto *const *)node->attribute, .nattrs = node->n_attribute,
		  .msg = msg, .schema = s};
	int rc = op->run(&k);
	for (int i = 0; i < nin; i++)
		ox_val_unref(x[i]);
	OnnxProto_Free(node);
	return rc;
}

static bool close_enough(double got, double exp, double rtol)
{
	if (isnan(exp) || isnan(got))
		return isnan(exp) && isnan(got);
	if (isinf(exp) || isinf(got))
		return got == exp;
	return fabs(got - exp) <= 1e-30 + rtol * fabs(exp);
}

/* got equals the tensor text want: type, shape, and each element (within rtol for floats) */
static void expect_value(const char *what, const ox_val *got, const char *want, double rtol)
{
	ox_val *w = tensor(want);
	REQUIRE(got->type == w->type, "%s: type %s, expected %s", what, ox_elem_label(got->type), ox_elem_label(w->type));
	REQUIRE(got->rank == w->rank && memcmp(got->dims, w->dims, (size_t)w->rank * 8) == 0, "%s: shape differs", what);
	for (int64_t i = 0; i < w->count; i++) {
		if (w->type == OX_STRING) {
			const ox_str *a = &((const ox_str *)got->data)[i], *b = &((const ox_str *)w->data)[i];
			REQUIRE(a->n == b->n && memcmp(a->p, b->p, a->n) == 0, "%s [%lld]: \"%s\", expected \"%s\"", what,
				(long long)i, a->p, b->p);
		} else if (ox_elem_is_float(w->type)) {
			REQUIRE(close_enough(ox_get_f64(got, i), ox_get_f64(w, i), rtol), "%s [%lld]: %.9g, expected %.9g",
				what, (long long)i, ox_get_f64(got, i), ox_get_f64(w, i));
		} else {
			REQUIRE(ox_get_i64(got, i) == ox_get_i64(w, i) && (w->type != OX_UINT64 ||
				((const uint64_t *)got->data)[i] == ((const uint64_t *)w->data)[i]),
				"%s [%lld]: %lld, expected %lld", what, (long long)i, (long long)ox_get_i64(got, i),
				(long long)ox_get_i64(w, i));
		}
	}
	ox_val_unref(w);
}

typedef struct optest {
	const char *node;
	int version;
	const char *in[4];
	const char *want; /* a tensor, or "!" and a part of the expected error message */
} optest;

#include "check_elementwise_cases.h"

static void run_case(const optest *t, const char *where)
{
	int nin = 0;
	while (nin < 4 && t->in[nin])
		nin++;
	ox_val *out[2] = {0};
	char msg[OX_MSG];
	int rc = run(t->node, t->version, t->in, nin, out, msg);
	char what[300];
	snprintf(what, sizeof what, "%s: %s (opset %d)", where, t->node, t->version);
	if (t->want[0] == '!') {
		REQUIRE(rc < 0, "%s: succeeded, expected an error with \"%s\"", what, t->want + 1);
		REQUIRE(strstr(msg, t->want + 1), "%s: error \"%s\", expected \"%s\"", what, msg, t->want + 1);
	} else {
		REQUIRE(rc == 0 && out[0], "%s: failed: %s", what, msg);
		expect_value(what, out[0], t->want, 2e-6);
	}
	ox_val_unref(out[0]);
}

START_TEST(op_cases)
{
	char where[32];
	snprintf(where, sizeof where, "case %d", _i);
	run_case(&optests[_i], where);
}
END_TEST

/* ---- the broadcasting engine ------------------------------------------------------ */

/* int32 Add and Where over random compatible shapes against index arithmetic */
static void random_shapes(int *ra, int64_t *da, int *rb, int64_t *db, int *ro, int64_t *dout)
{
	*ro = (int)(next() % 6);
	for (int i = 0; i < *ro; i++)
		dout[i] = (int64_t)(next() % 5); /* 0 sometimes: empty outputs */
	if (next() % 4)
		for (int i = 0; i < *ro; i++)
			dout[i] += dout[i] == 0;
	*ra = *ro - (int)(next() % (*ro + 1));
	*rb = *ro - (int)(next() % (*ro + 1));
	if (next() % 2)
		*ra = *ro;
	else
		*rb = *ro;
	for (int i = 0; i < *ra; i++)
		da[i] = next() % 3 == 0 ? 1 : dout[*ro - *ra + i];
	for (int i = 0; i < *rb; i++)
		db[i] = next() % 3 == 0 ? 1 : dout[*ro - *rb + i];
	for (int i = 0; i < *ro; i++) { /* the output shape is the broadcast one */
		int64_t x = i >= *ro - *ra ? da[i - (*ro - *ra)] : 1, y = i >= *ro - *rb ? db[i - (*ro - *rb)] : 1;
		dout[i] = x == 1 ? y : x;
	}
}

static int64_t offset_of(int64_t flat, int ro, const int64_t *dout, int r, const int64_t *d)
{
	int64_t off = 0, stride = 1;
	for (int i = ro - 1; i >= 0; i--) {
		int64_t idx = flat % dout[i];
		flat /= dout[i];
		int j = i - (ro - r);
		if (j >= 0) {
			off += (d[j] == 1 ? 0 : idx) * stride;
			stride *= d[j];
		}
	}
	return off;
}

static void add_loop(void *yv, const void *const *x, const int *s, size_t n, const void *ctx)
{
	int32_t *y = yv;
	const int32_t *a = x[0], *b = x[1];
	for (size_t i = 0; i < n; i++)
		y[i] = a[i * (size_t)s[0]] * 1000 + b[i * (size_t)s[1]];
}

START_TEST(engine_random_shapes)
{
	for (int iter = 0; iter < 3000; iter++) {
		int ra, rb, ro;
		int64_t da[8], db[8], dout[8];
		random_shapes(&ra, da, &rb, db, &ro, dout);
		ox_val *a = ox_tensor_new(OX_INT32, ra, da, NULL), *b = ox_tensor_new(OX_INT32, rb, db, NULL);
		ox_val *y = ox_tensor_new(OX_INT32, ro, dout, NULL);
		for (int64_t i = 0; i < a->count; i++)
			((int32_t *)a->data)[i] = (int32_t)i;
		for (int64_t i = 0; i < b->count; i++)
			((int32_t *)b->data)[i] = (int32_t)i;
		const ox_val *x[2] = {a, b};
		ox_ew_apply(y, 2, x, add_loop, NULL);
		for (int64_t i = 0; i < y->count; i++) {
			int64_t want = offset_of(i, ro, dout, ra, da) * 1000 + offset_of(i, ro, dout, rb, db);
			REQUIRE(((int32_t *)y->data)[i] == want, "iteration %d element %lld: %d, expected %lld", iter,
				(long long)i, ((int32_t *)y->data)[i], (long long)want);
		}
		ox_val_unref(a);
		ox_val_unref(b);
		ox_val_unref(y);
	}
}
END_TEST

/* Float Add through the kernel (SIMD inner loops) against double arithmetic, including
 * row and column broadcasts long enough for the vector paths */
START_TEST(add_kernel_broadcasts)
{
	static const struct {
		int ra, rb;
		int64_t da[3], db[3];
	} shapes[] = {
		{2, 1, {37, 130}, {130}}, {2, 2, {37, 130}, {37, 1}}, {3, 3, {130, 1, 9}, {1, 37, 1}},
		{0, 2, {0}, {3, 100}}, {3, 2, {2, 0, 3}, {1, 3}}, {1, 1, {1000}, {1000}},
	};
	Onnx__NodeProto *node = NULL;
	OnnxError err;
	ck_assert_int_eq(OnnxParser_ParseNode("y = Add(a, b)", 13, &node, &err), ONNXTXT_OK);
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		ox_val *a = ox_tensor_new(OX_FLOAT, shapes[s].ra, shapes[s].da, NULL);
		ox_val *b = ox_tensor_new(OX_FLOAT, shapes[s].rb, shapes[s].db, NULL);
		for (int64_t i = 0; i < a->count; i++)
			((float *)a->data)[i] = (float)i * 0.5f;
		for (int64_t i = 0; i < b->count; i++)
			((float *)b->data)[i] = (float)i * -0.25f;
		ox_val *in[2] = {a, b}, *out = NULL;
		char msg[OX_MSG];
		ox_k k = {.proto = node, .version = 17, .in = in, .nin = 2, .out = &out, .nout = 1, .msg = msg};
		ck_assert_int_eq(ox_op_Add_7(&k), 0);
		for (int64_t i = 0; i < out->count; i++) {
			double want = (double)offset_of(i, out->rank, out->dims, a->rank, a->dims) * 0.5 -
				      (double)offset_of(i, out->rank, out->dims, b->rank, b->dims) * 0.25;
			REQUIRE(((float *)out->data)[i] == (float)want, "shape %zu element %lld", s, (long long)i);
		}
		ox_val_unref(out);
		ox_val_unref(a);
		ox_val_unref(b);
	}
	OnnxProto_Free(node);
}
END_TEST

/* ---- Cast ------------------------------------------------------------------------- */

/* float -> float8 for both saturate settings against Cast-19's tables */
START_TEST(cast_float8_saturate)
{
	static const struct {
		int type;
		float max;
		bool inf_nan_when_saturating; /* FNUZ: +-Inf -> NaN even when saturating */
		bool has_inf;
	} f8[] = {
		{OX_FLOAT8E4M3FN, 448, false, false},
		{OX_FLOAT8E4M3FNUZ, 240, true, false},
		{OX_FLOAT8E5M2, 57344, false, true},
		{OX_FLOAT8E5M2FNUZ, 57344, true, false},
	};
	const float in[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 1e6f, -1e6f, 1.0f, 0.1f};
	for (size_t t = 0; t < 4; t++)
		for (int sat = 0; sat < 2; sat++) {
			int64_t dims[1] = {9};
			ox_val *x = ox_tensor_new(OX_FLOAT, 1, dims, NULL), *y = ox_tensor_new(f8[t].type, 1, dims, NULL);
			memcpy(x->data, in, sizeof in);
			ox_cast_opts o = {sat != 0, OX_ROUND_UP};
			char msg[OX_MSG];
			ck_assert_int_eq(ox_ew_convert(y, x, &o, msg), 0);
			const char *name = ox_elem_label(f8[t].type);
			uint8_t *b = y->data;
			double v[9];
			for (int i = 0; i < 9; i++)
				v[i] = ox_get_f64(y, i);
			REQUIRE(v[0] == 0 && !signbit(v[0]), "%s: 0", name);
			REQUIRE(v[1] == 0 && (signbit(v[1]) != 0) == (f8[t].type == OX_FLOAT8E4M3FN || f8[t].type == OX_FLOAT8E5M2),
				"%s: -0 (%02x)", name, b[1]);
			REQUIRE(isnan(v[2]), "%s: NaN", name);
			for (int i = 3; i <= 6; i++) {
				float want;
				bool is_inf = i <= 4;
				if (sat && !(is_inf && f8[t].inf_nan_when_saturating))
					want = in[i] > 0 ? f8[t].max : -f8[t].max;
				else if (f8[t].has_inf)
					want = in[i] > 0 ? INFINITY : -INFINITY;
				else
					want = NAN;
				REQUIRE(isnan(want) ? isnan(v[i]) : v[i] == want, "%s saturate=%d: %g -> %g (%02x), expected %g",
					name, sat, in[i], v[i], b[i], want);
			}
			REQUIRE(v[7] == 1, "%s: 1", name);
			REQUIRE(fabs(v[8] - 0.1) < 0.02, "%s: 0.1 -> %g", name, v[8]);
			ox_val_unref(x);
			ox_val_unref(y);
		}
}
END_TEST

/* Conversions through double round once: a double just above a float16 midpoint whose
 * float is the midpoint itself must round up, not to even. */
START_TEST(cast_rounds_once)
{
	int64_t dims[1] = {2};
	ox_val *x = ox_tensor_new(OX_DOUBLE, 1, dims, NULL), *y = ox_tensor_new(OX_FLOAT16, 1, dims, NULL);
	((double *)x->data)[0] = 1.0 + 0x1p-11 + 0x1p-40;  /* float: 1 + 2^-11, a tie */
	((double *)x->data)[1] = -(1.0 + 0x1p-11 + 0x1p-40);
	ox_cast_opts o = {true, OX_ROUND_UP};
	char msg[OX_MSG];
	ck_assert_int_eq(ox_ew_convert(y, x, &o, msg), 0);
	ck_assert_uint_eq(((uint16_t *)y->data)[0], 0x3c01);
	ck_assert_uint_eq(((uint16_t *)y->data)[1], 0xbc01);
	ox_val_unref(y);
	y = ox_tensor_new(OX_BFLOAT16, 1, dims, NULL);
	((double *)x->data)[0] = 1.0 + 0x1p-8 + 0x1p-30; /* bfloat16 midpoint + a bit */
	ck_assert_int_eq(ox_ew_convert(y, x, &o, msg), 0);
	ck_assert_uint_eq(((uint16_t *)y->data)[0], 0x3f81);
	ox_val_unref(x);
	ox_val_unref(y);
}
END_TEST

/* float8e8m0 (Cast-24): round_mode and saturate */
START_TEST(cast_e8m0)
{
	const float in[] = {1.0f, 3.0f, 5.0f, 0.0f, INFINITY, NAN, 1e-39f};
	const int want[3][2][7] = {
		/* up */ {{127, 129, 130, 255, 255, 255, 255}, {127, 129, 130, 0, 254, 255, 0}},
		/* down */ {{127, 128, 129, 255, 255, 255, 255}, {127, 128, 129, 0, 254, 255, 0}},
		/* nearest */ {{127, 129, 129, 255, 255, 255, 255}, {127, 129, 129, 0, 254, 255, 0}},
	};
	int64_t dims[1] = {7};
	for (int mode = 0; mode < 3; mode++)
		for (int sat = 0; sat < 2; sat++) {
			ox_val *x = ox_tensor_new(OX_FLOAT, 1, dims, NULL), *y = ox_tensor_new(OX_FLOAT8E8M0, 1, dims, NULL);
			memcpy(x->data, in, sizeof in);
			ox_cast_opts o = {sat != 0, mode};
			char msg[OX_MSG];
			ck_assert_int_eq(ox_ew_convert(y, x, &o, msg), 0);
			for (int i = 0; i < 7; i++)
				REQUIRE(((uint8_t *)y->data)[i] == want[mode][sat][i], "mode %d saturate %d: %g -> %d, expected %d",
					mode, sat, in[i], ((uint8_t *)y->data)[i], want[mode][sat][i]);
			ox_val_unref(x);
			ox_val_unref(y);
		}
}
END_TEST

/* ---- suite ------------------------------------------------------------------------ */

static Suite *suite(void)
{
	Suite *s = suite_create("elementwise");
	TCase *tc = tcase_create("simd");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, binary_vs_scalar, 0, sizeof binaries / sizeof binaries[0]);
	tcase_add_test(tc, binary_in_place_and_stream);
	tcase_add_loop_test(tc, unary_vs_scalar, 0, sizeof unaries / sizeof unaries[0]);
	tcase_add_test(tc, unary_sweep_and_tails);
	tcase_add_test(tc, unary_stream);
	tcase_add_test(tc, unary_exact_points);
	tcase_add_test(tc, f16_conversions);
	suite_add_tcase(s, tc);
	tc = tcase_create("engine");
	tcase_add_test(tc, engine_random_shapes);
	tcase_add_test(tc, add_kernel_broadcasts);
	suite_add_tcase(s, tc);
	tc = tcase_create("cast");
	tcase_add_test(tc, cast_float8_saturate);
	tcase_add_test(tc, cast_rounds_once);
	tcase_add_test(tc, cast_e8m0);
	suite_add_tcase(s, tc);
	tc = tcase_create("ops");
	tcase_add_loop_test(tc, op_cases, 0, sizeof optests / sizeof optests[0]);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
