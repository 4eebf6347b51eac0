/* Session-time optimization and threads as callers see them: every light model gives the
 * plain evaluation's outputs when folded, fused and packed, the same bits on 1 and 2
 * threads; BatchNormalization fusion and folding step aside when a run overrides the
 * initializers they were made from. */
#define _GNU_SOURCE /* mincore */
#include <dirent.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arena.h"
#include "eval/convert.h"
#include "eval/exec.h"
#include "eval/slab.h"
#include "eval/threads.h"
#include "eval/value.h"
#include "testutil.h"

/* A session on m with the given options; fails the test on error. */
static OnnxSession *session(const Onnx__ModelProto *m, int threads, int plain)
{
	OnnxSessionOptions o = {threads, plain};
	OnnxSession *s;
	OnnxError err;
	REQUIRE(OnnxSession_NewWithOptions(m, &o, &s, &err) == ONNXTXT_OK, "session: %s", err.message);
	return s;
}

static void run(OnnxSession *s)
{
	OnnxError err;
	REQUIRE(OnnxSession_Run(s, &err) == ONNXTXT_OK, "run: %s", err.message);
}

/* Binds dir/input_K.pb to the K-th input without an initializer. */
static void bind_dir(OnnxSession *s, const char *dir)
{
	for (size_t k = 0, i = 0; i < OnnxSession_InputCount(s); i++) {
		int optional;
		const Onnx__ValueInfoProto *vi = OnnxSession_Input(s, i, &optional);
		if (optional)
			continue;
		char file[4200];
		snprintf(file, sizeof file, "%s/input_%zu.pb", dir, k++);
		OnnxValue *v;
		OnnxError err;
		REQUIRE(OnnxValue_ReadFile(file, OnnxSession_InputKind(s, i), &v, &err) == ONNXTXT_OK, "%s: %s", file,
			err.message);
		REQUIRE(OnnxSession_SetInput(s, vi->name, v, &err) == ONNXTXT_OK, "%s: %s", file, err.message);
		OnnxValue_Free(v);
	}
}

static bool same_bits(const OnnxValue *a, const OnnxValue *b)
{
	size_t es = OnnxValue_ElemType(a) == 11 || OnnxValue_ElemType(a) == 7 ? 8 : 4;
	return OnnxValue_Count(a) == OnnxValue_Count(b) &&
	       memcmp(OnnxValue_Data(a), OnnxValue_Data(b), OnnxValue_Count(a) * es) == 0;
}

/* ---- every light model ---------------------------------------------------------------- */

static void check_model(const char *path)
{
	char dir[4096], sets[4200];
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	snprintf(sets, sizeof sets, "%s/test_data_set_0", dir);
	Onnx__ModelProto *m;
	OnnxError err;
	REQUIRE(OnnxBinary_ReadFile(path, &m, &err) == ONNXTXT_OK, "%s: %s", path, err.message);
	OnnxSession *s[3] = {session(m, 1, 1), session(m, 1, 0), session(m, 2, 0)};
	for (int i = 0; i < 3; i++) {
		bind_dir(s[i], sets);
		/* the memory plan: a run that asks for the sizes of the one before finds every
		 * tensor's place free (the first makes the inputs of Concats in place already,
		 * by the shapes inference gives them) */
		run(s[i]);
		uint64_t before = ox_system_allocs();
		run(s[i]);
		REQUIRE(!ox_blocks_active() || ox_system_allocs() == before, "%s: the second run allocated %llu blocks",
			dir, (unsigned long long)(ox_system_allocs() - before));
	}
	for (size_t o = 0; o < OnnxSession_OutputCount(s[0]); o++) {
		OnnxError verr;
		const OnnxValue *plain = OnnxSession_Output(s[0], o);
		REQUIRE(OnnxValue_Equal(OnnxSession_Output(s[1], o), plain, 1e-4, 1e-6, &verr) == ONNXTXT_OK,
			"%s: optimized output %zu differs from the plain evaluation: %s", dir, o, verr.message);
		REQUIRE(same_bits(OnnxSession_Output(s[1], o), OnnxSession_Output(s[2], o)),
			"%s: output %zu is not the same bits on 1 and 2 threads", dir, o);
	}
	for (int i = 0; i < 3; i++)
		OnnxSession_Free(s[i]);
	OnnxProto_Free(m);
}

START_TEST(light_models)
{
	static const char *const sets[] = {"onnx-backend-data/light-random", "onnx-backend-data/light"};
	int found = 0;
	/* under valgrind, the two small light-random models only (vgg19 alone would take hours) */
	for (size_t k = 0; k < (tu_slow() ? 1u : 2u); k++) {
		char root[4096];
		snprintf(root, sizeof root, "%s", tu_path(tu_shared(), sets[k]));
		if (access(root, F_OK) != 0)
			continue;
		char **models = tu_find(root, "model.onnx");
		for (size_t i = 0; models && models[i]; i++, found++)
			check_model(models[i]);
		tu_free_list(models);
	}
	if (!found)
		fprintf(stderr, "# light models not found under %s: skipped\n", tu_shared());
}
END_TEST

/* ---- fusion and folding with initializers overridden ---------------------------------- */

/* Conv + BatchNormalization + Relu whose weights and statistics are initializers that are
 * also inputs (IR 3 style), so a run may override them. */
static const char bn_model[] =
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"
	"g (float[1, 2, 5, 5] X, float[3, 2, 3, 3] W, float[3] s, float[3] b, float[3] mean, float[3] var)\n"
	"  => (float[1, 3, 5, 5] Y)\n"
	"  <float[3, 2, 3, 3] W = {0.5, -1, 2, 0.25, 1, -0.5, 1.5, -2, 0.75, 1, 1, -1, 0.5, 0.5, 2, -0.25, 0, 1,\n"
	"                         -1, 2, 0.5, 1, -0.75, 0.25, 1, 1.5, -1, 0.5, 2, 1, -2, 0.25, 1, 0.5, -0.5, 1,\n"
	"                         1, 0.5, -1, 2, 0.25, 1, -1.5, 0.75, 1, -1, 0.5, 2, 1, -0.25, 0.5, 1, 2, -2},\n"
	"   float[3] s = {1.5, 0.5, -1}, float[3] b = {0.25, -0.5, 1}, float[3] mean = {0.1, -0.2, 0.3},\n"
	"   float[3] var = {1, 2, 0.5}>\n"
	"{\n"
	"  C = Conv <pads = [1, 1, 1, 1]> (X, W)\n"
	"  N = BatchNormalization <epsilon = 0.01> (C, s, b, mean, var)\n"
	"  Y = Relu(N)\n"
	"}\n";

static OnnxValue *tensor(const int64_t *dims, size_t rank, float seed)
{
	size_t n = 1;
	for (size_t i = 0; i < rank; i++)
		n *= (size_t)dims[i];
	float *d = malloc(n * sizeof *d);
	for (size_t i = 0; i < n; i++)
		d[i] = sinf(seed + (float)i);
	OnnxValue *v;
	OnnxError err;
	REQUIRE(OnnxValue_NewTensor(1, dims, rank, d, &v, &err) == ONNXTXT_OK, "tensor: %s", err.message);
	free(d);
	return v;
}

static void set(OnnxSession *s, const char *name, const OnnxValue *v)
{
	OnnxError err;
	REQUIRE(OnnxSession_SetInput(s, name, v, &err) == ONNXTXT_OK, "%s: %s", name, err.message);
}

/* The optimized and the plain session, given the same bindings, agree. */
static void agree(OnnxSession *opt, OnnxSession *plain, const char *what)
{
	OnnxError verr;
	run(opt);
	run(plain);
	REQUIRE(OnnxValue_Equal(OnnxSession_Output(opt, 0), OnnxSession_Output(plain, 0), 1e-5, 1e-6, &verr) == ONNXTXT_OK,
		"%s: %s", what, verr.message);
}

/* Binds X, then names[i] to vals[i] one after another, in both sessions, which agree
 * after each binding. */
static void agree_overriding(OnnxSession *opt, OnnxSession *plain, const OnnxValue *x, int n,
			     const char *const *names, OnnxValue *const *vals)
{
	set(opt, "X", x), set(plain, "X", x);
	agree(opt, plain, "initializers as given");
	for (int i = 0; i < n; i++) {
		set(opt, names[i], vals[i]), set(plain, names[i], vals[i]);
		agree(opt, plain, names[i]);
	}
}

/* Both sessions given X agree on their first n outputs. */
static void agree_on(OnnxSession *opt, OnnxSession *plain, const OnnxValue *x, size_t n, const char *what)
{
	set(opt, "X", x), set(plain, "X", x);
	run(opt), run(plain);
	OnnxError verr;
	for (size_t o = 0; o < n; o++)
		REQUIRE(OnnxValue_Equal(OnnxSession_Output(opt, o), OnnxSession_Output(plain, o), 1e-5, 1e-6, &verr) ==
				ONNXTXT_OK,
			"%s, output %zu: %s", what, o, verr.message);
}

START_TEST(bn_fusion_overridden)
{
	Onnx__ModelProto *m = tu_model(bn_model);
	OnnxSession *opt = session(m, 2, 0), *plain = session(m, 1, 1);
	int64_t xd[4] = {1, 2, 5, 5}, wd[4] = {3, 2, 3, 3}, cd[1] = {3};
	OnnxValue *x = tensor(xd, 4, 0), *w = tensor(wd, 4, 7), *var = tensor(cd, 1, 3), *mean = tensor(cd, 1, 5);
	for (size_t i = 0; i < 3; i++)
		((float *)OnnxValue_Data(var))[i] = fabsf(((float *)OnnxValue_Data(var))[i]) + 0.5f;
	agree_overriding(opt, plain, x, 2, (const char *[]){"W", "var"}, (OnnxValue *[]){w, var});
	OnnxSession_Free(opt);
	OnnxSession_Free(plain);
	opt = session(m, 1, 0), plain = session(m, 1, 1);
	agree_overriding(opt, plain, x, 1, (const char *[]){"mean"}, (OnnxValue *[]){mean});
	OnnxValue_Free(x), OnnxValue_Free(w), OnnxValue_Free(var), OnnxValue_Free(mean);
	OnnxSession_Free(opt);
	OnnxSession_Free(plain);
	OnnxProto_Free(m);
}
END_TEST

/* The BatchNormalization of C, the Mul and Add by per-channel constants and the Relu after
 * it, and their constants: the end of chan_model and bn_head_model. */
#define CHAN_PARAMS                                                                                     \
	"   float[3] s = {1.5, 0.5, -1}, float[3] b = {0.25, -0.5, 1}, float[3] mean = {0.1, -0.2, 0.3},\n" \
	"   float[3] var = {1, 2, 0.5}, float[3] m = {2, -0.5, 1.25}, float[1, 3, 1, 1] c = {-1, 0.5, 3},\n"   \
	"   int64[2] axes = {1, 2}>\n"                                                                      \
	"{\n"
#define CHAN_NODES                                                       \
	"  N = BatchNormalization <epsilon = 0.01> (C, s, b, mean, var)\n" \
	"  mu = Unsqueeze(m, axes)\n"                                      \
	"  M = Mul(N, mu)\n"                                               \
	"  A = Add(M, c)\n"                                                \
	"  Y = Relu(A)\n"                                                  \
	"}\n"

/* The same with a Mul and an Add by per-channel constants between the BatchNormalization
 * and the Relu, as caffe2's inception_v2 and densenet121 have them: [3, 1, 1] made by an
 * Unsqueeze that comes after the Conv, and [1, 3, 1, 1]; both may be overridden. */
static const char chan_model[] =
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"
	"g (float[1, 2, 5, 5] X, float[3, 2, 3, 3] W, float[3] s, float[3] b, float[3] mean, float[3] var,\n"
	"   float[3] m, float[1, 3, 1, 1] c) => (float[1, 3, 5, 5] Y)\n"
	"  <float[3, 2, 3, 3] W = {0.5, -1, 2, 0.25, 1, -0.5, 1.5, -2, 0.75, 1, 1, -1, 0.5, 0.5, 2, -0.25, 0, 1,\n"
	"                         -1, 2, 0.5, 1, -0.75, 0.25, 1, 1.5, -1, 0.5, 2, 1, -2, 0.25, 1, 0.5, -0.5, 1,\n"
	"                         1, 0.5, -1, 2, 0.25, 1, -1.5, 0.75, 1, -1, 0.5, 2, 1, -0.25, 0.5, 1, 2, -2},\n"
	CHAN_PARAMS
	"  C = Conv <pads = [1, 1, 1, 1]> (X, W)\n"
	CHAN_NODES;

START_TEST(channel_ops_fused)
{
	Onnx__ModelProto *m = tu_model(chan_model);
	OnnxSession *opt = session(m, 1, 0), *plain = session(m, 1, 1);
	int64_t xd[4] = {1, 2, 5, 5}, md[1] = {3}, cd[4] = {1, 3, 1, 1};
	OnnxValue *x = tensor(xd, 4, 0), *mv = tensor(md, 1, 2), *cv = tensor(cd, 4, 9);
	agree_overriding(opt, plain, x, 2, (const char *[]){"m", "c"}, (OnnxValue *[]){mv, cv});
	OnnxValue_Free(x), OnnxValue_Free(mv), OnnxValue_Free(cv);
	OnnxSession_Free(opt);
	OnnxSession_Free(plain);
	OnnxProto_Free(m);
}
END_TEST

/* A BatchNormalization after no Conv (densenet121's follow a Concat), with the Mul and Add
 * by per-channel constants and the Relu after it: one pass, whose results agree with the
 * plain session's while the constants are overridden one after another. */
static const char bn_head_model[] =
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"
	"g (float[1, 2, 5, 5] X, float[3] s, float[3] b, float[3] mean, float[3] var, float[3] m,\n"
	"   float[1, 3, 1, 1] c) => (float[1, 3, 5, 5] Y)\n"
	"  <float[1, 1, 5, 5] one = {-3, -2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5,\n"
	"                            6, -6, -5, -4, 0.25, 0.75, -0.125},\n"
	CHAN_PARAMS
	"  C = Concat <axis = 1> (X, one)\n"
	CHAN_NODES;

/* The same over rank 3, whose per-channel constants are [3, 1]; and a Relu alone after it. */
static const char bn_head_rank3_model[] =
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"
	"g (float[2, 3, 7] X, float[3] s, float[3] b, float[3] mean, float[3] var, float[3, 1] m)\n"
	"   => (float[2, 3, 7] Y, float[2, 3, 7] Z)\n"
	"  <float[3] s = {1.5, 0.5, -1}, float[3] b = {0.25, -0.5, 1}, float[3] mean = {0.1, -0.2, 0.3},\n"
	"   float[3] var = {1, 2, 0.5}, float[3, 1] m = {2, -0.5, 1.25}>\n"
	"{\n"
	"  N = BatchNormalization (X, s, b, mean, var)\n"
	"  M = Mul(N, m)\n"
	"  Y = Relu(M)\n"
	"  K = BatchNormalization (X, s, b, mean, var)\n"
	"  Z = Relu(K)\n"
	"}\n";

START_TEST(bn_head_fused)
{
	Onnx__ModelProto *m = tu_model(bn_head_model);
	OnnxSession *opt = session(m, 2, 0), *plain = session(m, 1, 1);
	int64_t xd[4] = {1, 2, 5, 5}, pd[1] = {3}, cd[4] = {1, 3, 1, 1};
	OnnxValue *x = tensor(xd, 4, 0), *mv = tensor(pd, 1, 2), *cv = tensor(cd, 4, 9), *sv = tensor(pd, 1, 5);
	agree_overriding(opt, plain, x, 3, (const char *[]){"m", "c", "s"}, (OnnxValue *[]){mv, cv, sv});
	OnnxValue_Free(x), OnnxValue_Free(mv), OnnxValue_Free(cv), OnnxValue_Free(sv);
	OnnxSession_Free(opt);
	OnnxSession_Free(plain);
	OnnxProto_Free(m);
	m = tu_model(bn_head_rank3_model);
	opt = session(m, 1, 0), plain = session(m, 1, 1);
	int64_t x3[3] = {2, 3, 7};
	x = tensor(x3, 3, 4);
	agree_on(opt, plain, x, 2, "rank 3");
	OnnxValue_Free(x);
	OnnxSession_Free(opt);
	OnnxSession_Free(plain);
	OnnxProto_Free(m);
}
END_TEST

/* Values made in a Concat's output (exec.c: placement): a Conv with its Relu fused, a Conv,
 * a Concat read by another node and by a later Concat, a graph input (copied), the same
 * input twice. From the second run on, B is a view at its place in Y; results agree with
 * the plain session's through a change of shape and a batch of 2, where nothing is placed. */
#define CONCAT_MODEL(N, H, W)                                                                       \
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"                                                 \
	"g (float[" N ", 2, " H ", " W "] X) => (float[" N ", 20, " H ", " W "] Y, float[" N ", 4, " H   \
	", " W "] B)\n"                                                                                 \
	"  <float[3, 2, 1, 1] W1 = {0.5, -1, 2, 0.25, 1, -0.5},\n"                                      \
	"   float[4, 2, 1, 1] W2 = {1, 0.5, -1, 2, 0.25, 1, -1.5, 0.75}>\n"                             \
	"{\n"                                                                                           \
	"  A = Conv(X, W1)\n"                                                                           \
	"  R = Relu(A)\n"                                                                               \
	"  B = Conv(X, W2)\n"                                                                           \
	"  C = Concat <axis = 1> (R, B)\n"                                                              \
	"  M = Neg(C)\n"                                                                                \
	"  Y = Concat <axis = -3> (C, M, X, B)\n"                                                       \
	"}\n"
static const char concat_model[] = CONCAT_MODEL("N", "H", "W");

/* Run r of concat_in_place on input shape x (the last run's: last): both sessions agree,
 * and B is at its place in Y when it should be placed, only then. */
static void concat_run(OnnxSession *opt, OnnxSession *plain, size_t r, const int64_t *x, const int64_t *last)
{
	OnnxValue *v = tensor(x, 4, (float)r);
	char what[32];
	snprintf(what, sizeof what, "run %zu", r);
	agree_on(opt, plain, v, 2, what);
	/* placed once the last run gave the same shapes, batch 1 only */
	bool placed = x[0] == 1 && last && memcmp(x, last, 4 * sizeof *x) == 0;
	const char *y = OnnxValue_Data(OnnxSession_Output(opt, 0)), *b = OnnxValue_Data(OnnxSession_Output(opt, 1));
	size_t at = (size_t)(3 * x[2] * x[3]) * sizeof(float);
	REQUIRE((b == y + at) == placed, "run %zu: B %s in Y", r, placed ? "not" : "unexpectedly");
	OnnxValue_Free(v);
}

START_TEST(concat_in_place)
{
	Onnx__ModelProto *m = tu_model(concat_model);
	OnnxSession *plain = session(m, 1, 1), *opt = session(m, 2, 0);
	const int64_t shapes[][4] = {{1, 2, 5, 5}, {1, 2, 5, 5}, {1, 2, 5, 5}, {1, 2, 6, 7},
				     {1, 2, 6, 7}, {2, 2, 5, 5}, {2, 2, 5, 5}};
	for (size_t r = 0; r < sizeof shapes / sizeof *shapes; r++)
		concat_run(opt, plain, r, shapes[r], r ? shapes[r - 1] : NULL);
	OnnxSession_Free(opt);
	OnnxSession_Free(plain);
	OnnxProto_Free(m);
}
END_TEST

/* With shapes inference gives, the first run makes B in Y already, and the second takes
 * no memory from the system. */
START_TEST(concat_placed_from_inference)
{
	Onnx__ModelProto *m = tu_model(CONCAT_MODEL("1", "5", "5"));
	OnnxSession *plain = session(m, 1, 1), *opt = session(m, 1, 0);
	const int64_t x[4] = {1, 2, 5, 5};
	concat_run(opt, plain, 0, x, x);
	uint64_t before = ox_system_allocs();
	concat_run(opt, plain, 1, x, x);
	REQUIRE(!ox_blocks_active() || ox_system_allocs() == before, "the second run allocated %llu blocks",
		(unsigned long long)(ox_system_allocs() - before));
	OnnxSession_Free(opt);
	OnnxSession_Free(plain);
	OnnxProto_Free(m);
}
END_TEST

/* Inputs placed by the shapes of the run before, in a run whose shapes differ but add up
 * to the same output: the middle input keeps its shape, so it is made at the place the
 * last run gave it, which is not its place now; the first one's copy would overwrite it.
 * The Concat then takes an output of its own. */
static const char concat_moved_model[] =
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"
	"g (float[1, A] a, float[1, B] b, float[1, C] c) => (float[1, S] Y) {\n"
	"  ra = Relu(a)\n"
	"  rb = Relu(b)\n"
	"  rc = Relu(c)\n"
	"  Y = Concat <axis = 1> (ra, rb, rc)\n"
	"}\n";

START_TEST(concat_inputs_moved)
{
	Onnx__ModelProto *m = tu_model(concat_moved_model);
	OnnxSession *plain = session(m, 1, 1), *opt = session(m, 1, 0);
	const int64_t sizes[][3] = {{2, 3, 4}, {4, 3, 2}, {4, 3, 2}, {2, 3, 4}};
	for (size_t r = 0; r < sizeof sizes / sizeof *sizes; r++) {
		for (int i = 0; i < 3; i++) {
			const char name[2] = {(char)('a' + i), 0};
			OnnxValue *v = tensor((const int64_t[]){1, sizes[r][i]}, 2, (float)(r * 3 + (size_t)i) + 1);
			set(opt, name, v), set(plain, name, v);
			OnnxValue_Free(v);
		}
		char what[32];
		snprintf(what, sizeof what, "run %zu", r);
		agree(opt, plain, what);
	}
	OnnxSession_Free(opt);
	OnnxSession_Free(plain);
	OnnxProto_Free(m);
}
END_TEST

/* An Add and a Sum of two with the Relu after them, done in one pass (the same bits as
 * apart, on 1 and 2 threads, over a tensor large enough to be split); a Sum of three, an
 * Add read twice and an int32 Add (the float kernel alone applies the Relu) stay apart. */
static const char ew_relu_model[] =
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"
	"g (float[2, 300, 500] X) => (float[2, 300, 500] Y, float[2, 300, 500] Z, float[2, 300, 500] T,\n"
	"   float[2, 300, 500] A2, float[2, 300, 500] U, int32[2, 300, 500] I)\n"
	"  <int64[1] n = {500}, float[1] k = {100}>\n"
	"{\n"
	"  b = ConstantOfShape <value = float[1] {-0.25}> (n)\n"
	"  S = Sin(X)\n"
	"  A = Add(S, b)\n"
	"  Y = Relu(A)\n"
	"  W = Sum(S, X)\n"
	"  Z = Relu(W)\n"
	"  V = Sum(S, X, S)\n"
	"  T = Relu(V)\n"
	"  A2 = Add(X, S)\n"
	"  U = Relu(A2)\n"
	"  K = Mul(S, k)\n"
	"  i = Cast <to = 6> (K)\n"
	"  J = Add(i, i)\n"
	"  I = Relu(J)\n"
	"}\n";

START_TEST(add_relu_fused)
{
	Onnx__ModelProto *m = tu_model(ew_relu_model);
	OnnxSession *s[3] = {session(m, 1, 1), session(m, 1, 0), session(m, 2, 0)};
	int64_t xd[3] = {2, 300, 500};
	OnnxValue *x = tensor(xd, 3, 1);
	for (int t = 0; t < 3; t++) {
		set(s[t], "X", x);
		run(s[t]);
	}
	for (size_t o = 0; o < 6; o++)
		for (int t = 1; t < 3; t++)
			REQUIRE(same_bits(OnnxSession_Output(s[0], o), OnnxSession_Output(s[t], o)),
				"output %zu: session %d differs from the plain one", o, t);
	OnnxValue_Free(x);
	for (int t = 0; t < 3; t++)
		OnnxSession_Free(s[t]);
	OnnxProto_Free(m);
}
END_TEST

/* Results kept from initializers are given again while the initializer is, and computed
 * anew from an overriding input (then again from the initializer when it is unbound). */
static const char fold_model[] =
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"
	"g (float[2] x, float[2] k) => (float[2] y) <float[2] k = {3, 4}> {\n"
	"  k2 = Mul(k, k)\n"
	"  w = Add(k2, k)\n"
	"  y = Add(x, w)\n"
	"}\n";

static float out0(OnnxSession *s, size_t i)
{
	run(s);
	return ((const float *)OnnxValue_Data(OnnxSession_Output(s, 0)))[i];
}

START_TEST(folding_follows_inputs)
{
	Onnx__ModelProto *m = tu_model(fold_model);
	OnnxSession *s = session(m, 1, 0);
	int64_t d[1] = {2};
	float xv[2] = {1, 2}, kv[2] = {10, 20};
	OnnxValue *x, *k;
	OnnxError err;
	ck_assert_int_eq(OnnxValue_NewTensor(1, d, 1, xv, &x, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxValue_NewTensor(1, d, 1, kv, &k, &err), ONNXTXT_OK);
	set(s, "x", x);
	ck_assert_float_eq(out0(s, 1), 2 + 16 + 4);
	ck_assert_float_eq(out0(s, 0), 1 + 9 + 3); /* kept, the same */
	set(s, "k", k);
	ck_assert_float_eq(out0(s, 0), 1 + 100 + 10);
	ck_assert_float_eq(out0(s, 1), 2 + 400 + 20);
	OnnxValue_Free(x), OnnxValue_Free(k);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

START_TEST(options_checked)
{
	Onnx__ModelProto *m = tu_model(fold_model);
	OnnxSessionOptions o = {-1, 0};
	OnnxSession *s = NULL;
	OnnxError err;
	ck_assert_int_eq(OnnxSession_NewWithOptions(m, &o, &s, &err), ONNXTXT_ERR_ARG);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(OnnxSession_NewWithOptions(m, NULL, &s, &err), ONNXTXT_OK);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

/* Elementwise operations, pooling and BatchNormalization large enough to be split over
 * threads (small planes: pooling splits by window taps, so a 3x3 pool on 10x10 planes
 * runs in ~80 tasks): the same bits on 1, 2 and 3 threads. */
static const char ew_model[] =
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"
	"g (float[600, 1000] x) => (float[600, 1000] a, float[600, 1000] b, float[600, 1000] c, float[1, 240, 48, 24] d, float[1, 6000, 10, 10] p, float[1, 6000, 10, 10] n) {\n"
	"  z = Constant <value = int64[2] {0, 0}> ()\n"
	"  re = Constant <value = int64[2] {1, 1000}> ()\n"
	"  ce = Constant <value = int64[2] {600, 1}> ()\n"
	"  shape = Constant <value = int64[4] {1, 240, 50, 50}> ()\n"
	"  s = Sin(x)\n"
	"  e = Sigmoid(s)\n"
	"  a = Add(s, e)\n"
	"  row = Slice(s, z, re)\n"
	"  m = Mul(s, row)\n"
	"  b = Tanh(m)\n"
	"  col = Slice(s, z, ce)\n"
	"  c = Div(col, e)\n"
	"  r = Reshape(a, shape)\n"
	"  d = MaxPool <kernel_shape = [3, 3], strides = [1, 2]> (r)\n"
	"  small = Constant <value = int64[4] {1, 6000, 10, 10}> ()\n"
	"  r2 = Reshape(b, small)\n"
	"  p = AveragePool <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (r2)\n"
	"  c6 = Constant <value = int64[1] {6000}> ()\n"
	"  sc6 = ConstantOfShape <value = float[1] {1.5}> (c6)\n"
	"  v6 = ConstantOfShape <value = float[1] {0.25}> (c6)\n"
	"  n = BatchNormalization(r2, sc6, sc6, sc6, v6)\n"
	"}\n";

START_TEST(elementwise_threads_exact)
{
	Onnx__ModelProto *m = tu_model(ew_model);
	int64_t dims[2] = {600, 1000};
	float *d = malloc(600000 * sizeof *d);
	for (int i = 0; i < 600000; i++)
		d[i] = (float)i * 0.001f - 300;
	OnnxValue *x;
	OnnxError err;
	ck_assert_int_eq(OnnxValue_NewTensor(1, dims, 2, d, &x, &err), ONNXTXT_OK);
	OnnxSession *s[3];
	for (int t = 0; t < 3; t++) {
		s[t] = session(m, t + 1, 0);
		set(s[t], "x", x);
		run(s[t]);
	}
	for (size_t o = 0; o < 6; o++)
		for (int t = 1; t < 3; t++)
			REQUIRE(same_bits(OnnxSession_Output(s[0], o), OnnxSession_Output(s[t], o)),
				"output %zu is not the same bits on 1 and %d threads", o, t + 1);
	for (int t = 0; t < 3; t++)
		OnnxSession_Free(s[t]);
	OnnxValue_Free(x);
	free(d);
	OnnxProto_Free(m);
}
END_TEST

static const char shared_w_model[] =
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"
	"g (float[1, 2, 5, 5] X) => (float[1, 3, 5, 5] A, float[1, 3, 3, 3] B) <int64[4] ws = {3, 2, 3, 3}> {\n"
	"  W = ConstantOfShape <value = float[1] {0.25}> (ws)\n"
	"  A = Conv <pads = [1, 1, 1, 1]> (X, W)\n"
	"  B = Conv (X, W)\n"
	"}\n";

/* Weights packed on several threads (one task each) give what the plain evaluation gives. */
START_TEST(shared_weights_packed)
{
	Onnx__ModelProto *m = tu_model(shared_w_model);
	int64_t dims[4] = {1, 2, 5, 5};
	float d[50];
	for (int i = 0; i < 50; i++)
		d[i] = (float)(i % 9) - 4;
	OnnxValue *x;
	OnnxError err;
	ck_assert_int_eq(OnnxValue_NewTensor(1, dims, 4, d, &x, &err), ONNXTXT_OK);
	OnnxSession *s[2] = {session(m, 1, 1), session(m, 2, 0)};
	for (int t = 0; t < 2; t++) {
		set(s[t], "X", x);
		run(s[t]);
	}
	for (size_t o = 0; o < 2; o++)
		REQUIRE(OnnxValue_Equal(OnnxSession_Output(s[1], o), OnnxSession_Output(s[0], o), 1e-6, 1e-6, &err) ==
				ONNXTXT_OK,
			"output %zu: %s", o, err.message);
	for (int t = 0; t < 2; t++)
		OnnxSession_Free(s[t]);
	OnnxValue_Free(x);
	OnnxProto_Free(m);
}
END_TEST

/* ConstantOfShape fills large outputs in pieces on the session's threads: every element
 * holds the value whatever the count, for elements of 4, 8 and 2 bytes and lengths that
 * end inside a piece. */
START_TEST(fill_in_pieces)
{
	Onnx__ModelProto *m = tu_model("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				       "g (int64[1] n1, int64[1] n2, int64[1] n3) => (float[A] a, int64[B] b, float16[C] c) {\n"
				       "  a = ConstantOfShape <value = float[1] {0.02}> (n1)\n"
				       "  b = ConstantOfShape <value = int64[1] {-7}> (n2)\n"
				       "  c = ConstantOfShape <value = float16[1] {1.5}> (n3)\n"
				       "}\n");
	const int64_t len[3] = {1048576 + 3, 600001, 2097152 * 2 + 5}, one = 1;
	for (int t = 1; t <= 3; t++) {
		OnnxSession *s = session(m, t, 0);
		for (int i = 0; i < 3; i++) {
			OnnxValue *n;
			OnnxError err;
			char name[4];
			snprintf(name, sizeof name, "n%d", i + 1);
			ck_assert_int_eq(OnnxValue_NewTensor(7, &one, 1, &len[i], &n, &err), ONNXTXT_OK);
			set(s, name, n);
			OnnxValue_Free(n);
		}
		run(s);
		const float *a = OnnxValue_Data(OnnxSession_Output(s, 0));
		const int64_t *b = OnnxValue_Data(OnnxSession_Output(s, 1));
		const uint16_t *c = OnnxValue_Data(OnnxSession_Output(s, 2));
		for (int i = 0; i < 3; i++)
			ck_assert_uint_eq(OnnxValue_Count(OnnxSession_Output(s, (size_t)i)), (size_t)len[i]);
		for (int64_t i = 0; i < len[0]; i++)
			REQUIRE(a[i] == 0.02f, "%d threads: a[%lld] = %g", t, (long long)i, a[i]);
		for (int64_t i = 0; i < len[1]; i++)
			REQUIRE(b[i] == -7, "%d threads: b[%lld] = %lld", t, (long long)i, (long long)b[i]);
		for (int64_t i = 0; i < len[2]; i++)
			REQUIRE(c[i] == 0x3e00, "%d threads: c[%lld] = 0x%x", t, (long long)i, c[i]);
		OnnxSession_Free(s);
	}
	OnnxProto_Free(m);
}
END_TEST

/* OnnxSession_Prepare does the session-time work before any input is bound, once; the
 * run after it folds and packs nothing more and gives the plain evaluation's outputs. A
 * fold the memory budget refuses is left to the run, which reports the limit. */
START_TEST(prepare_before_run)
{
	OnnxError err;
	ck_assert_int_eq(OnnxSession_Prepare(NULL, &err), ONNXTXT_ERR_ARG);
	/* weights of 18 KiB: blocks that count as taken from the system */
	Onnx__ModelProto *m = tu_model("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				       "g (float[1, 2, 5, 5] X) => (float[1, 256, 5, 5] A, float[1, 256, 3, 3] B)\n"
				       "  <int64[4] ws = {256, 2, 3, 3}> {\n"
				       "  W = ConstantOfShape <value = float[1] {0.25}> (ws)\n"
				       "  A = Conv <pads = [1, 1, 1, 1]> (X, W)\n"
				       "  B = Conv (X, W)\n"
				       "}\n");
	OnnxSession *s = session(m, 2, 0), *plain = session(m, 1, 1);
	uint64_t before = ox_system_allocs();
	ck_assert_int_eq(OnnxSession_Prepare(s, &err), ONNXTXT_OK);
	/* the folded weights and their packed form */
	ck_assert_uint_ge(ox_system_allocs(), before + 2);
	before = ox_system_allocs();
	ck_assert_int_eq(OnnxSession_Prepare(s, &err), ONNXTXT_OK);
	ck_assert_uint_eq(ox_system_allocs(), before);
	int64_t dims[4] = {1, 2, 5, 5};
	float d[50] = {0};
	d[7] = 1, d[24] = -2;
	OnnxValue *x;
	ck_assert_int_eq(OnnxValue_NewTensor(1, dims, 4, d, &x, &err), ONNXTXT_OK);
	set(s, "X", x);
	set(plain, "X", x);
	run(s);
	run(plain);
	for (size_t o = 0; o < 2; o++)
		REQUIRE(OnnxValue_Equal(OnnxSession_Output(s, o), OnnxSession_Output(plain, o), 1e-6, 1e-6, &err) ==
				ONNXTXT_OK,
			"output %zu: %s", o, err.message);
	OnnxSession_Free(s);
	OnnxSession_Free(plain);
	OnnxValue_Free(x);
	OnnxProto_Free(m);
	m = tu_model("<ir_version: 8, opset_import: [\"\" : 17]>\n"
		     "g () => (float[N] y) <int64[1] shape = {1000000}> {\n  y = ConstantOfShape(shape)\n}\n");
	s = session(m, 1, 0);
	ck_assert_int_eq(OnnxSession_SetMaxMemory(s, 1 << 20, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_Prepare(s, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_Run(s, &err), ONNXTXT_ERR_LIMIT);
	ck_assert_msg(strstr(err.message, "memory budget of 1 MiB exceeded"), "%s", err.message);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

/* A binary model of 3 MB is mapped when read (OnnxBinary_ReadFile), its raw bytes land
 * 64-byte aligned, and the session uses them in place; an output that is the initializer
 * itself is the caller's own copy, which outlives the session and the model. */
START_TEST(initializer_bytes_in_place)
{
	enum { N = 786432 };
	Onnx__ModelProto *m = tu_model("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				       "g (float[2] x) => (float[M] wo, float[2] y) <float[2] w = {1, 2}> {\n"
				       "  wo = Identity(w)\n  y = Add(x, x)\n}\n");
	float *pattern = malloc(N * sizeof *pattern);
	for (int i = 0; i < N; i++)
		pattern[i] = (float)(i % 1000) * 0.5f;
	Onnx__TensorProto *t = m->graph->initializer[0];
	t->dims[0] = N;
	t->n_float_data = 0;
	t->has_raw_data = 1;
	t->raw_data = (ProtobufCBinaryData){N * sizeof *pattern, (uint8_t *)pattern};
	void *bin;
	size_t len;
	OnnxError err;
	ck_assert_int_eq(OnnxBinary_Write(m, &bin, &len, &err), ONNXTXT_OK);
	OnnxProto_Free(m);
	char path[] = "/tmp/check_optimize_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bin, len), (ssize_t)len);
	close(fd);
	free(bin);
	ck_assert_int_eq(OnnxBinary_ReadFile(path, &m, &err), ONNXTXT_OK);
	unlink(path);
	t = m->graph->initializer[0];
	ck_assert_uint_eq(t->raw_data.len, N * sizeof *pattern);
	ck_assert_uint_eq((uintptr_t)t->raw_data.data % 64, 0);
	ck_assert(memcmp(t->raw_data.data, pattern, N * sizeof *pattern) == 0);
	char msg[OX_MSG];
	ox_val *v = ox_val_borrow_tensor_proto(t, msg);
	ck_assert(v && v->borrowed && v->data == t->raw_data.data);
	ox_val_unref(v);
	OnnxSession *a = session(m, 2, 0);
	int64_t two = 2;
	float xd[2] = {1, 2};
	OnnxValue *x;
	ck_assert_int_eq(OnnxValue_NewTensor(1, &two, 1, xd, &x, &err), ONNXTXT_OK);
	set(a, "x", x);
	OnnxValue_Free(x);
	run(a);
	const OnnxValue *wo = OnnxSession_Output(a, 0);
	ck_assert_ptr_ne(OnnxValue_Data(wo), t->raw_data.data);
	Onnx__ModelProto *mb = tu_model("<ir_version: 8, opset_import: [\"\" : 17]>\n"
					"g (float[M] p) => (float[M] q) {\n  q = Neg(p)\n}\n");
	OnnxSession *b = session(mb, 1, 0);
	set(b, "p", wo);
	OnnxSession_Free(a);
	OnnxProto_Free(m); /* the mapped model's arena, and its raw bytes, are gone */
	run(b);
	const float *q = OnnxValue_Data(OnnxSession_Output(b, 0));
	ck_assert_uint_eq(OnnxValue_Count(OnnxSession_Output(b, 0)), N);
	for (int i = 0; i < N; i++)
		REQUIRE(q[i] == -pattern[i], "q[%d] = %g", i, q[i]);
	OnnxSession_Free(b);
	OnnxProto_Free(mb);
	free(pattern);
}
END_TEST

static ox_plan_stats counts(const char *text)
{
	Onnx__ModelProto *m = tu_model(text);
	ox_arena *a = ox_arena_new();
	ox_status st;
	ox_plan *p = ox_plan_model(a, m, &st);
	REQUIRE(p != NULL, "plan: %s", st.msg);
	ox_plan_optimize(p);
	ox_plan_stats c;
	ox_plan_counts(p, &c);
	ox_plan_free(p);
	ox_arena_free(a);
	OnnxProto_Free(m);
	return c;
}

/* Residual Adds fused into the Conv before them: Sum with the Conv's result as its
 * second operand then Relu; an Add of two Convs, fused into the later one; an Add whose
 * other operand broadcasts ([1, 3, 1, 1]), which the Conv leaves to the Add at run time. */
static char *residual_model(void)
{
	static char text[8192];
	int at = snprintf(text, sizeof text,
			  "<ir_version: 8, opset_import: [\"\" : 17]>\n"
			  "g (float[1, 4, 6, 7] X, float[1, 3, 6, 7] R, float[1, 3, 1, 1] Rb)\n"
			  "  => (float[1, 3, 6, 7] Y, float[1, 3, 6, 7] T, float[1, 3, 6, 7] Z) <float[3, 4, 3, 3] W = {");
	for (int i = 0; i < 108; i++)
		at += snprintf(text + at, sizeof text - (size_t)at, "%s%.3f", i ? ", " : "", sinf((float)i));
	snprintf(text + at, sizeof text - (size_t)at,
		 "}> {\n"
		 "  C = Conv <pads = [1, 1, 1, 1]> (X, W)\n"
		 "  S = Sum(R, C)\n"
		 "  Y = Relu(S)\n"
		 "  A1 = Conv <pads = [1, 1, 1, 1]> (Y, W2)\n"
		 "  A2 = Conv <pads = [0, 1, 2, 1]> (Y, W2)\n"
		 "  T = Add(A1, A2)\n"
		 "  C3 = Conv <pads = [1, 1, 1, 1]> (X, W)\n"
		 "  Z = Add(C3, Rb)\n"
		 "}\n");
	return text;
}

START_TEST(residual_fused)
{
	char *text = residual_model(), *w2 = strstr(text, "<float[3, 4, 3, 3] W = {");
	/* W2: the weights of A1 and A2, 3 -> 3 channels, as an initializer made from W's first 81 */
	static char full[12288];
	int at = snprintf(full, sizeof full, "%.*s", (int)(w2 - text), text);
	at += snprintf(full + at, sizeof full - (size_t)at, "<float[3, 3, 3, 3] W2 = {");
	for (int i = 0; i < 81; i++)
		at += snprintf(full + at, sizeof full - (size_t)at, "%s%.3f", i ? ", " : "", cosf((float)i));
	snprintf(full + at, sizeof full - (size_t)at, "}, %s", w2 + 1);
	ox_plan_stats c = counts(full);
	ck_assert_uint_eq(c.fused, 4); /* the Sum and the Relu, the Add of A1 and A2, and Z's Add */
	Onnx__ModelProto *m = tu_model(full);
	int64_t xd[4] = {1, 4, 6, 7}, rd[4] = {1, 3, 6, 7}, bd[4] = {1, 3, 1, 1};
	OnnxValue *x = tensor(xd, 4, 0), *r = tensor(rd, 4, 3), *rb = tensor(bd, 4, 5);
	OnnxSession *plain = session(m, 1, 1);
	set(plain, "X", x), set(plain, "R", r), set(plain, "Rb", rb);
	run(plain);
	for (int th = 1; th <= 2; th++) {
		OnnxSession *opt = session(m, th, 0);
		set(opt, "X", x), set(opt, "R", r), set(opt, "Rb", rb);
		run(opt);
		for (size_t o = 0; o < 3; o++) {
			OnnxError verr;
			REQUIRE(OnnxValue_Equal(OnnxSession_Output(opt, o), OnnxSession_Output(plain, o), 1e-5, 1e-6, &verr) ==
					ONNXTXT_OK,
				"%d threads, output %zu: %s", th, o, verr.message);
		}
		OnnxSession_Free(opt);
	}
	OnnxValue_Free(x), OnnxValue_Free(r), OnnxValue_Free(rb);
	OnnxSession_Free(plain);
	OnnxProto_Free(m);
}
END_TEST

START_TEST(optimizations_happen)
{
	ox_plan_stats c = counts(bn_model);
	ck_assert_uint_eq(c.fused, 2); /* BatchNormalization and Relu */
	ck_assert_uint_eq(c.packed, 1);
	ck_assert_uint_eq(c.kept, 0);
	c = counts(chan_model);
	ck_assert_uint_eq(c.fused, 4); /* and the Mul and the Add between */
	ck_assert_uint_eq(c.kept, 1);  /* the Unsqueeze */
	c = counts(bn_head_model);
	ck_assert_uint_eq(c.fused, 3); /* the Mul, the Add and the Relu, into the BatchNormalization */
	c = counts(bn_head_rank3_model);
	ck_assert_uint_eq(c.fused, 3); /* the Mul and the Relu; the second Relu */
	c = counts(ew_relu_model);
	ck_assert_uint_eq(c.fused, 3); /* the Relus after the Add, the Sum of two and the int32 Add */
	ck_assert_uint_eq(c.kept, 1);  /* b */
	c = counts(fold_model);
	ck_assert_uint_eq(c.kept, 2); /* k2 and w; y reads x */
	ck_assert_uint_eq(c.fused, 0);
	/* weights made by a node from a shape initializer: kept, then packed; a Relu after a
	 * Conv whose output is also a graph output stays on its own */
	c = counts("<ir_version: 8, opset_import: [\"\" : 17]>\n"
		   "g (float[1, 2, 4, 4] X) => (float[1, 3, 4, 4] C, float[1, 3, 4, 4] Y) <int64[4] ws = {3, 2, 1, 1}> {\n"
		   "  W = ConstantOfShape <value = float[1] {0.5}> (ws)\n"
		   "  C = Conv (X, W)\n"
		   "  Y = Relu(C)\n"
		   "}\n");
	ck_assert_uint_eq(c.kept, 1);
	ck_assert_uint_eq(c.packed, 1);
	ck_assert_uint_eq(c.fused, 0);
	/* weights two Conv nodes share: packed once (one task), seen packed by both */
	c = counts(shared_w_model);
	ck_assert_uint_eq(c.kept, 1);
	ck_assert_uint_eq(c.packed, 2);
	ck_assert_uint_eq(c.unread, 0);
}
END_TEST

/* Outputs nothing reads are not made: a Dropout's mask, a MaxPool's indices (which would
 * take the general path); those a node or the graph reads are, and the results agree
 * with the plain session's. */
static const char unread_model[] =
	"<ir_version: 8, opset_import: [\"\" : 17]>\n"
	"g (float[1, 2, 6, 6] X) => (float[1, 2, 3, 3] Y, int64[1, 2, 3, 3] I) {\n"
	"  D, M = Dropout(X)\n"
	"  P, J = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (D)\n"
	"  Q, I = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (X)\n"
	"  B, K = Dropout(P)\n"
	"  Y = Add(B, Q)\n"
	"  N = Not(K)\n"
	"}\n";

START_TEST(unread_outputs_not_made)
{
	ck_assert_uint_eq(counts(unread_model).unread, 2); /* M and J; I is an output, K is read */
	Onnx__ModelProto *m = tu_model(unread_model);
	OnnxSession *plain = session(m, 1, 1), *opt = session(m, 2, 0);
	OnnxValue *x = tensor((const int64_t[]){1, 2, 6, 6}, 4, 0.5f);
	agree_on(opt, plain, x, 2, "unread outputs");
	OnnxValue_Free(x);
	OnnxSession_Free(opt);
	OnnxSession_Free(plain);
	OnnxProto_Free(m);
}
END_TEST

/* ---- a session's memory in huge pages -------------------------------------------------- */

/* Whether any page of [p, p + n) is mapped: mincore fails with ENOMEM on unmapped memory. */
static bool mapped(const void *p, size_t n)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p & ~(page - 1);
	unsigned char vec[64];
	return n / page < sizeof vec && mincore((void *)a, (uintptr_t)p + n - a, vec) == 0;
}

START_TEST(slab_blocks)
{
	ox_slab *s = ox_slab_new();
	ck_assert_ptr_nonnull(s);
	char *a = ox_slab_alloc(s, 100), *b = ox_slab_alloc(s, 5000);
	/* larger than a chunk: a chunk of its own, mapped without being touched */
	char *big = ox_slab_alloc(s, (size_t)40 << 20);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(big);
	ck_assert_uint_eq((uintptr_t)a % 64, 0);
	ck_assert_uint_eq((uintptr_t)b % 64, 0);
	ck_assert(b >= a + 128 || a >= b + 5056); /* rounded up to 64: no overlap */
	memset(a, 1, 100);
	memset(b, 2, 5000);
	big[0] = big[((size_t)40 << 20) - 1] = 3;
	ck_assert_int_eq(a[99], 1);
	void *m = malloc(64);
	ck_assert(ox_slab_owns(s, b + 4999) && ox_slab_owns(s, big));
	ck_assert(!ox_slab_owns(s, m) && !ox_slab_owns(s, NULL));
	ck_assert(!ox_slab_release(m)); /* not a slab block: left alone */
	free(m);
	ck_assert(!ox_slab_release(NULL));
	ck_assert(ox_slab_release(big));
	ox_slab_close(s);
	/* closed with blocks still out: they stay usable until the last is released */
	ck_assert(mapped(a, 100) && mapped(b, 5000) && mapped(big, 1));
	memset(b, 4, 5000);
	ck_assert(ox_slab_release(a));
	ck_assert(mapped(b, 5000));
	ox_slab_retain(b + 4096); /* b split in two: two blocks to release */
	ck_assert(ox_slab_release(b));
	ck_assert(mapped(big, 1));
	ck_assert(ox_slab_release(b + 4096));
	/* then the chunk of its own is unmapped, the ordinary one kept for the next slab */
	ck_assert(!mapped(big, 1));
	ck_assert(!ox_slab_release(b)); /* forgotten with its slab */
	s = ox_slab_new();
	ck_assert_ptr_eq(ox_slab_alloc(s, 64), a);
	ck_assert(ox_slab_release(a));
	ox_slab_close(s);
}
END_TEST

static ox_val *floats(int64_t n)
{
	ox_val *v = ox_tensor_new(OX_FLOAT, 1, &n, NULL);
	ck_assert_ptr_nonnull(v);
	memset(v->data, 1, (size_t)n * sizeof(float)); /* all of it is writable */
	return v;
}

/* The memory plan: a tensor takes the smallest free extent it fits and leaves the rest,
 * and freed neighbours merge, so tensors of other sizes reuse the memory of dead ones. */
START_TEST(plan_best_fit)
{
	if (!ox_blocks_active())
		return;
	ox_blocks *k = ox_blocks_new(), *old = ox_blocks_enter(k);
	const int64_t K = 256; /* floats in a KiB */
	uint64_t before = ox_system_allocs();
	ox_val *a = floats(1024 * K), *b = floats(1024 * K); /* one after the other in a fresh slab */
	char *x = a->data;
	ck_assert_ptr_eq(b->data, x + (1 << 20));
	ck_assert_uint_eq(ox_system_allocs(), before + 2);
	ox_val_unref(a);
	ox_val *c = floats(256 * K); /* the front of a's memory */
	ck_assert_ptr_eq(c->data, x);
	ox_val_unref(b); /* merged with the rest of a's: 1.75 MiB from x + 256 KiB */
	ox_val *d = floats(1280 * K);
	ck_assert_ptr_eq(d->data, x + (256 << 10));
	ox_val_unref(c); /* free: 256 KiB at x, 512 KiB at x + 1536 KiB */
	ox_val *e = floats(300 * K); /* only the second fits: 212 KiB left at x + 1836 KiB */
	ck_assert_ptr_eq(e->data, x + (1536 << 10));
	ox_val *f = floats(200 * K); /* the smaller of the two that fit */
	ck_assert_ptr_eq(f->data, x + (1836 << 10));
	ox_val_unref(d);
	ox_val_unref(f);
	ox_val_unref(e); /* all merged again */
	ox_val *g = floats(2048 * K);
	ck_assert_ptr_eq(g->data, x);
	ck_assert_uint_eq(ox_system_allocs(), before + 2);
	/* 4052 bytes take the plan's smallest block, 4 KiB, and give it back */
	for (int r = 0; r < 3; r++)
		ox_val_unref(floats(1013));
	ck_assert_uint_eq(ox_system_allocs(), before + 3);
	ox_blocks_enter(old);
	ox_blocks_free(k); /* g outlives the plan: still its own */
	ck_assert(mapped(g->data, 1));
	memset(g->data, 2, (size_t)2 << 20);
	ox_val_unref(g);
}
END_TEST

/* A run that asks for the sizes the run before did, in its order, takes the places that
 * one did, where best fit alone would put some elsewhere; a place still taken (by a value
 * kept from the run before) is found by best fit instead. */
START_TEST(plan_replay)
{
	if (!ox_blocks_active())
		return;
	ox_blocks *k = ox_blocks_new(), *old = ox_blocks_enter(k);
	const int64_t K = 256; /* floats in a KiB */
	char *x = NULL;
	ox_val *kept = NULL;
	for (int r = 0; r < 3; r++) {
		ox_blocks_start(k);
		uint64_t before = ox_system_allocs();
		ox_val *a = floats(100 * K), *b = floats(100 * K);
		x = r ? x : a->data;
		ck_assert_ptr_eq(a->data, x);
		ck_assert_ptr_eq(b->data, x + (100 << 10));
		ox_val_unref(b);
		/* the first run: 100 KiB free at x + 100 KiB is too small, so it goes after;
		 * from then on best fit alone would put it at x + 100 KiB */
		ox_val *c = floats(150 * K);
		if (r < 2)
			ck_assert_ptr_eq(c->data, x + (200 << 10));
		else /* the second run's is still taken: somewhere that does not overlap it */
			ck_assert((char *)c->data >= (char *)kept->data + (150 << 10) ||
				  (char *)c->data + (150 << 10) <= (char *)kept->data);
		ck_assert_uint_eq(ox_system_allocs(), before + (r == 0 ? 3 : r == 2));
		ox_val_unref(a);
		if (r == 1)
			kept = c;
		else
			ox_val_unref(c);
	}
	ox_val_unref(kept);
	ox_blocks_enter(old);
	ox_blocks_free(k);
}
END_TEST

static OnnxSession *text_session(const char *text, Onnx__ModelProto **m)
{
	OnnxError err;
	REQUIRE(OnnxParser_Parse(text, strlen(text), m, &err) == ONNXTXT_OK, "parse: %s", err.message);
	return session(*m, 2, 0);
}

/* Runs on inputs of two sizes in turn: none can place its tensors where the run before
 * did, yet the plan stops growing, and every run's results are right. */
START_TEST(plan_shapes_alternate)
{
	Onnx__ModelProto *m;
	OnnxSession *s = text_session("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				      "g (float[N] X) => (float[N] Y, float[N] Z) {\n"
				      "  A = Relu (X)\n  B = Neg (A)\n  C = Abs (B)\n  Y = Add (A, C)\n  Z = Neg (C)\n}\n",
				      &m);
	static float x[9000];
	for (int i = 0; i < 9000; i++)
		x[i] = (float)(i % 5) - 2;
	uint64_t grown = 0;
	for (int r = 0; r < 16; r++) {
		int64_t n = r % 2 ? 9000 : 5000;
		OnnxValue *v;
		OnnxError err;
		ck_assert_int_eq(OnnxValue_NewTensor(1, &n, 1, x, &v, &err), ONNXTXT_OK);
		ck_assert_int_eq(OnnxSession_SetInput(s, "X", v, &err), ONNXTXT_OK);
		OnnxValue_Free(v);
		uint64_t before = ox_system_allocs();
		run(s);
		if (r >= 4)
			grown += ox_system_allocs() - before;
		const float *y = OnnxValue_Data(OnnxSession_Output(s, 0)), *z = OnnxValue_Data(OnnxSession_Output(s, 1));
		ck_assert_uint_eq(OnnxValue_Count(OnnxSession_Output(s, 0)), (size_t)n);
		for (int64_t i = 0; i < n; i++) {
			float a = x[i] > 0 ? x[i] : 0;
			ck_assert_float_eq(y[i], a + a);
			ck_assert_float_eq(z[i], -a);
		}
	}
	ck_assert(!ox_blocks_active() || grown == 0);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

/* A session's output is a block of its slab; bound as another session's input it
 * outlives the session that made it, and the one that reads it sees its values. */
START_TEST(output_outlives_session)
{
	Onnx__ModelProto *ma, *mb;
	OnnxSession *a = text_session("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				      "g (float[4096] X) => (float[4096] Y) {\n  Y = Relu (X)\n}\n", &ma);
	OnnxSession *b = text_session("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				      "g (float[4096] X) => (float[4096] Y) {\n  Y = Neg (X)\n}\n", &mb);
	float x[4096];
	for (int i = 0; i < 4096; i++)
		x[i] = (float)(i % 7) - 3;
	int64_t n = 4096;
	OnnxValue *v;
	OnnxError err;
	ck_assert_int_eq(OnnxValue_NewTensor(1, &n, 1, x, &v, &err), ONNXTXT_OK);
	for (int r = 0; r < 2; r++) { /* the second run: outputs in kept blocks */
		ck_assert_int_eq(OnnxSession_SetInput(a, "X", v, &err), ONNXTXT_OK);
		run(a);
	}
	OnnxValue_Free(v);
	ck_assert_int_eq(OnnxSession_SetInput(b, "X", OnnxSession_Output(a, 0), &err), ONNXTXT_OK);
	OnnxSession_Free(a);
	run(b);
	const float *y = OnnxValue_Data(OnnxSession_Output(b, 0));
	for (int i = 0; i < 4096; i++)
		ck_assert_float_eq(y[i], -(x[i] > 0 ? x[i] : 0));
	OnnxSession_Free(b);
	OnnxProto_Free(ma);
	OnnxProto_Free(mb);
}
END_TEST

/* The pool hands out every task once, from each thread's share and then the others':
 * counts of tasks below, at and above the thread count, with a task that itself calls
 * ox_parallel_for (run on its thread alone). */
static _Atomic int task_runs[1000];

static void count_task(void *ctx, int64_t i)
{
	(void)ctx;
	task_runs[i]++;
}

static void nested_task(void *ctx, int64_t i)
{
	int64_t n = *(const int64_t *)ctx;
	ox_parallel_for(1, count_task, NULL); /* task 0 once more per outer task */
	if (i + 1 < n)
		task_runs[i + 1]++;
}

START_TEST(threads_every_task_once)
{
	for (int threads = 2; threads <= 5; threads++) {
		ox_pool *p = ox_pool_new(threads), *old = ox_pool_enter(p);
		ck_assert_ptr_nonnull(p);
		const int64_t counts[] = {0, 1, 2, 3, 5, 7, 64, 1000};
		for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
			for (int rep = 0; rep < 20; rep++) {
				int64_t n = counts[c];
				memset(task_runs, 0, sizeof task_runs);
				ox_parallel_for(n, count_task, NULL);
				for (int64_t i = 0; i < n; i++)
					ck_assert_msg(task_runs[i] == 1, "%d threads, %lld tasks: task %lld ran %d times", threads,
						      (long long)n, (long long)i, (int)task_runs[i]);
			}
		memset(task_runs, 0, sizeof task_runs);
		int64_t n = 100;
		ox_parallel_for(n, nested_task, &n);
		ck_assert_int_eq(task_runs[0], 100);
		for (int64_t i = 1; i < n; i++)
			ck_assert_int_eq(task_runs[i], 1);
		ox_pool_enter(old);
		ox_pool_free(p);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("optimize");
	TCase *tc = tcase_create("models");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, light_models);
	suite_add_tcase(s, tc);
	tc = tcase_create("sessions");
	tcase_add_test(tc, bn_fusion_overridden);
	tcase_add_test(tc, channel_ops_fused);
	tcase_add_test(tc, bn_head_fused);
	tcase_add_test(tc, concat_in_place);
	tcase_add_test(tc, concat_inputs_moved);
	tcase_add_test(tc, concat_placed_from_inference);
	tcase_add_test(tc, add_relu_fused);
	tcase_add_test(tc, folding_follows_inputs);
	tcase_add_test(tc, options_checked);
	tcase_add_test(tc, optimizations_happen);
	tcase_add_test(tc, unread_outputs_not_made);
	tcase_add_test(tc, residual_fused);
	tcase_add_test(tc, elementwise_threads_exact);
	tcase_add_test(tc, slab_blocks);
	tcase_add_test(tc, plan_best_fit);
	tcase_add_test(tc, plan_replay);
	tcase_add_test(tc, plan_shapes_alternate);
	tcase_add_test(tc, fill_in_pieces);
	tcase_add_test(tc, shared_weights_packed);
	tcase_add_test(tc, prepare_before_run);
	tcase_add_test(tc, initializer_bytes_in_place);
	tcase_add_test(tc, output_outlives_session);
	tcase_add_test(tc, threads_every_task_once);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
