/* Control flow and recurrent kernels as a session runs them: the errors of If, Loop, Scan,
 * SequenceMap, RNN, GRU and LSTM; long loops whose bodies keep or drop the values the
 * kernels reuse between iterations; and RNN, GRU and LSTM against themselves: a
 * bidirectional layer is a forward and a reverse one, layout 1 is layout 0 transposed, and
 * a sequence of sequence_lens is the same sequence run alone. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define HEAD "<ir_version: 8, opset_import: [\"\" : 17]>\n"
#define CONST_F(v) "Constant <value = float {" #v "}> ()"

static OnnxValue *value(const char *text)
{
	OnnxValue *v;
	OnnxError err;
	if (OnnxValue_Parse(text, strlen(text), &v, &err) != ONNXTXT_OK)
		ck_abort_msg("%s: %s", text, err.message);
	return v;
}

/* A session for model with inputs bound from "name=value" texts (NULL-terminated); runs it
 * and returns the status, the message in err. */
static OnnxStatus run(const char *model, const char *const *inputs, OnnxSession **out, OnnxError *err)
{
	Onnx__ModelProto *m = tu_model(model);
	OnnxSession *s;
	ck_assert_msg(OnnxSession_New(m, &s, err) == ONNXTXT_OK, "%s", err->message);
	for (size_t i = 0; inputs && inputs[i]; i++) {
		const char *eq = strchr(inputs[i], '=');
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)(eq - inputs[i]), inputs[i]);
		OnnxValue *v = value(eq + 1);
		ck_assert_msg(OnnxSession_SetInput(s, name, v, err) == ONNXTXT_OK, "%s", err->message);
		OnnxValue_Free(v);
	}
	OnnxStatus st = OnnxSession_Run(s, err);
	OnnxProto_Free(m);
	if (out)
		*out = s;
	else
		OnnxSession_Free(s);
	return st;
}

static void expect_output(OnnxSession *s, size_t i, const char *text)
{
	OnnxValue *e = value(text);
	OnnxError verr;
	ck_assert_msg(OnnxValue_Equal(OnnxSession_Output(s, i), e, 1e-6, 0, &verr) == ONNXTXT_OK, "output %zu: %s", i,
		      verr.message);
	OnnxValue_Free(e);
}

/* ---- errors --------------------------------------------------------------------------------- */

#define BRANCHES \
	"then_branch = t () => (float r) { r = " CONST_F(1) " }, else_branch = e () => (float r) { r = " CONST_F(2) " }"

static const struct failure {
	const char *model;
	const char *inputs[6]; /* NULL-terminated */
	const char *error;
} failures[] = {
	{HEAD "g (c) => (y) { y = If (c) <" BRANCHES "> }", {"c=float[1] {1}"},
	 "node 0 (If): cond must be a bool tensor of one element, not float[1] (inputs: float[1])"},
	{HEAD "g (c) => (y) { y = If (c) <then_branch = t () => (r, s) { r = " CONST_F(1) " s = Identity(r) },"
	      " else_branch = e () => (r) { r = " CONST_F(2) " }> }",
	 {"c=bool {1}"}, "node 0 (If): attribute 'then_branch' has 2 outputs, If 1 (they must match) (inputs: bool[])"},
	{HEAD "g (M, v0) => (v, vs) { v, vs = Loop (M, , v0) <body = b (i, k, v) => (k2, v2, s) {"
	      " k2 = Identity(k) v2 = Constant <value = float[2] {1, 2}> () s = Identity(v) }> }",
	 {"M=int64 {3}", "v0=float[1] {1}"},
	 "node 0 (Loop): scan output 0: iteration 1 gives float[2], iteration 0 gave float[1] (every iteration must "
	 "give one type and shape) (inputs: int64[], (none), float[1])"},
	/* the carried value turns from bool to float, which the If of the second iteration rejects */
	{HEAD "g (M, c0) => (c) { c = Loop (M, , c0) <body = b (i, k, c) => (k2, c2) { k2 = Identity(k)"
	      " c2 = If (c) <" BRANCHES "> }> }",
	 {"M=int64 {3}", "c0=bool {1}"},
	 "node 0 (Loop): iteration 1: in attribute 'body': node 1 (If): cond must be a bool tensor of one element, not "
	 "float[] (inputs: float[]) (inputs: int64[], (none), bool[])"},
	{HEAD "g (M) => (c) { c = Loop (M, ) <body = b (i) => (k) { k = Constant <value = bool {1}> () }> }",
	 {"M=int64 {3}"},
	 "node 0 (Loop): attribute 'body' has 1 inputs and 1 outputs; expected 2 inputs (iteration, condition, 0 "
	 "loop-carried values) (inputs: int64[])"},
	{HEAD "g (M, x) => (c) { c = Loop (M, , x) <body = b (i, k, v) => (k2, v2) { k2 = Identity(k) v2 = Identity(v) }> }",
	 {"M=float {3}", "x=float {3}"},
	 "node 0 (Loop): M must be an int64 tensor of one element, not float[] (inputs: float[], (none), float[])"},
	{HEAD "g (M, x) => (c) { c = Loop (M, , x) <body = b (i, k, v) => (k2, v2) { k2 = Identity(v) v2 = Identity(v) }> }",
	 {"M=int64 {2}", "x=float {3}"},
	 "node 0 (Loop): the body's condition output must be a bool tensor of one element, not float[] (inputs: "
	 "int64[], (none), float[])"},
	{HEAD "g (s0, A, B) => (s) { s = Scan (s0, A, B) <num_scan_inputs = 2, body = b (a, x, y) => (a2) {"
	      " a2 = Identity(a) }> }",
	 {"s0=float {0}", "A=float[3] {1, 2, 3}", "B=float[2] {1, 2}"},
	 "node 0 (Scan): scan input 1 has 2 elements along its scan axis, scan input 0 3 (inputs: float[], float[3], "
	 "float[2])"},
	{HEAD "g (s0, A) => (s) { s = Scan (s0, A) <num_scan_inputs = 3, body = b (a, x) => (a2) { a2 = Identity(a) }> }",
	 {"s0=float {0}", "A=float[3] {1, 2, 3}"},
	 "node 0 (Scan): attribute 'num_scan_inputs' is 3; expected 1 to 2, the inputs given (inputs: float[], float[3])"},
	{HEAD "g (s0, A) => (s) { s = Scan (s0, A) <num_scan_inputs = 1, scan_input_axes = [-2], body = b (a, x) => (a2)"
	      " { a2 = Identity(a) }> }",
	 {"s0=float {0}", "A=float[3] {1, 2, 3}"},
	 "node 0 (Scan): scan_input_axes[0] is -2, out of range for scan input 0 of rank 1 (inputs: float[], float[3])"},
	{"<ir_version: 8, opset_import: [\"\" : 8]>\n"
	 "g (L, s0, A) => (s) { s = Scan (L, s0, A) <num_scan_inputs = 1, body = b (a, x) => (a2) { a2 = Identity(a) }> }",
	 {"L=int64[1] {4}", "s0=float[1] {0}", "A=float[1, 3] {1, 2, 3}"},
	 "node 0 (Scan): sequence_lens[0] is 4; expected 0 to 3 (inputs: int64[1], float[1], float[1,3])"},
	{HEAD "g (S, Q) => (Y) { Y = SequenceMap (S, Q) <body = b (x, q) => (y) { y = Identity(x) }> }",
	 {"S=[float {1}, float {2}]", "Q=[float {1}]"},
	 "node 0 (SequenceMap): input 1 is a sequence of 1 items, input 0 of 2 (they must match) (inputs: sequence of 2, "
	 "sequence of 1)"},
	{HEAD "g (S) => (Y) { Y = SequenceMap (S) <body = b (x) => (y) { y = Identity(x) }> }", {"S=float {1}"},
	 "node 0 (SequenceMap): input 0 must be a sequence (inputs: float[])"},
	{HEAD "g (S, O) => (Y) { Y = SequenceMap (S, O) <body = b (x, o) => (y) { y = Identity(o) }> }",
	 {"S=[float {1}]", "O=none"},
	 "node 0 (SequenceMap): iteration 0: output 0 of the body is an optional; expected a tensor (inputs: sequence of "
	 "1, optional of 0)"},
	{HEAD "g (X, W, R) => (Y) { Y = RNN <hidden_size = 3> (X, W, R) }",
	 {"X=float[1, 1, 2] {1, 2}", "W=float[1, 3, 3] {1, 2, 3, 4, 5, 6, 7, 8, 9}", "R=float[1, 3, 3] {1, 2, 3, 4, 5, 6, 7, 8, 9}"},
	 "node 0 (RNN): W has shape [1,3,3]; expected [num_directions, hidden_size, input_size] = [1,?,2] (inputs: "
	 "float[1,1,2], float[1,3,3], float[1,3,3])"},
	{HEAD "g (X, W, R) => (Y) { Y = GRU <hidden_size = 2> (X, W, R) }",
	 {"X=float[1, 1, 1] {1}", "W=float[1, 3, 1] {1, 2, 3}", "R=float[1, 3, 1] {1, 2, 3}"},
	 "node 0 (GRU): attribute 'hidden_size' is 2, but W has 3 rows per direction, 3*hidden_size (inputs: "
	 "float[1,1,1], float[1,3,1], float[1,3,1])"},
	{HEAD "g (X, W, R) => (Y) { Y = RNN <activations = [\"Swish\"]> (X, W, R) }",
	 {"X=float[1, 1, 1] {1}", "W=float[1, 1, 1] {1}", "R=float[1, 1, 1] {1}"},
	 "node 0 (RNN): attribute 'activations': 'Swish' is not an activation function of the recurrent operators "
	 "(inputs: float[1,1,1], float[1,1,1], float[1,1,1])"},
	{HEAD "g (X, W, R) => (Y) { Y = LSTM <activations = [\"Sigmoid\", \"Tanh\"]> (X, W, R) }",
	 {"X=float[1, 1, 1] {1}", "W=float[1, 4, 1] {1, 2, 3, 4}", "R=float[1, 4, 1] {1, 2, 3, 4}"},
	 "node 0 (LSTM): attribute 'activations' has 2 functions; expected 3 (3 for each direction) (inputs: "
	 "float[1,1,1], float[1,4,1], float[1,4,1])"},
	{HEAD "g (X, W, R) => (Y) { Y = RNN <direction = \"both\"> (X, W, R) }",
	 {"X=float[1, 1, 1] {1}", "W=float[1, 1, 1] {1}", "R=float[1, 1, 1] {1}"},
	 "node 0 (RNN): attribute 'direction' must be forward, reverse or bidirectional (inputs: float[1,1,1], "
	 "float[1,1,1], float[1,1,1])"},
	{HEAD "g (X, W, R, L) => (Y) { Y = RNN (X, W, R, , L) }",
	 {"X=float[1, 1, 1] {1}", "W=float[1, 1, 1] {1}", "R=float[1, 1, 1] {1}", "L=int32[1] {2}"},
	 "node 0 (RNN): sequence_lens[0] is 2; expected 0 to seq_length, 1 (inputs: float[1,1,1], float[1,1,1], "
	 "float[1,1,1], (none), int32[1])"},
	{HEAD "g (X, W, R) => (Y) { Y = RNN (X, W, R) }",
	 {"X=int64[1, 1, 1] {1}", "W=float[1, 1, 1] {1}", "R=float[1, 1, 1] {1}"},
	 "node 0 (RNN): X is int64; expected float, double, float16 or bfloat16 (inputs: int64[1,1,1], float[1,1,1], "
	 "float[1,1,1])"},
	{HEAD "g (X, W, R, H) => (Y) { Y = RNN (X, W, R, , , H) }",
	 {"X=float[1, 1, 1] {1}", "W=float[1, 1, 1] {1}", "R=float[1, 1, 1] {1}", "H=double[1, 1, 1] {1}"},
	 "node 0 (RNN): initial_h is double; expected float, the type of X (inputs: float[1,1,1], float[1,1,1], "
	 "float[1,1,1], (none), (none), double[1,1,1])"},
};

START_TEST(kernel_errors)
{
	const struct failure *f = &failures[_i];
	OnnxError err;
	ck_assert_int_eq(run(f->model, f->inputs, NULL, &err), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(err.message, f->error);
}
END_TEST

/* ---- long loops ------------------------------------------------------------------------------ */

START_TEST(loop_counter_kept_or_dropped)
{
	/* the first body drops the counter (Loop can reuse it); the second keeps it as a scan
	 * output and as the carried value, so each iteration needs a new one */
	OnnxSession *s;
	OnnxError err;
	const char *model = HEAD "g (M, x0, y0) => (x, y, ys) {\n"
				 "  x = Loop (M, , x0) <body = b1 (i, k, v) => (k2, v2) { k2 = Identity(k) v2 = Identity(v) }>\n"
				 "  y, ys = Loop (M, , y0) <body = b2 (i, k, v) => (k2, v2, s) {\n"
				 "    k2 = Identity(k) v2 = Identity(i) s = Identity(i) }>\n}";
	const char *inputs[] = {"M=int64 {20000}", "x0=float {5}", "y0=int64 {-1}", NULL};
	ck_assert_msg(run(model, inputs, &s, &err) == ONNXTXT_OK, "%s", err.message);
	expect_output(s, 0, "float {5}");
	expect_output(s, 1, "int64 {19999}");
	const int64_t *ys = OnnxValue_Data(OnnxSession_Output(s, 2));
	ck_assert_uint_eq(OnnxValue_Count(OnnxSession_Output(s, 2)), 20000);
	for (int64_t i = 0; i < 20000; i++)
		ck_assert_int_eq(ys[i], i);
	OnnxSession_Free(s);
}
END_TEST

START_TEST(scan_elements_kept_or_dropped)
{
	/* the state takes each element as it is; the scan output keeps every element */
	OnnxSession *s;
	OnnxError err;
	const char *model = HEAD "g (s0, X) => (s, xs) {\n"
				 "  s, xs = Scan (s0, X) <num_scan_inputs = 1, body = b (a, x) => (a2, x2) {\n"
				 "    a2 = Identity(x) x2 = Identity(x) }>\n}";
	const char *inputs[] = {"s0=string[2] {\"\", \"\"}", "X=string[3, 2] {\"a\", \"b\", \"c\", \"d\", \"e\", \"f\"}", NULL};
	ck_assert_msg(run(model, inputs, &s, &err) == ONNXTXT_OK, "%s", err.message);
	expect_output(s, 0, "string[2] {\"e\", \"f\"}");
	expect_output(s, 1, "string[3, 2] {\"a\", \"b\", \"c\", \"d\", \"e\", \"f\"}");
	OnnxSession_Free(s);
}
END_TEST

START_TEST(scan8_states_per_batch_entry)
{
	/* Scan-8 gives each batch entry its own copy of the initial state */
	OnnxSession *s;
	OnnxError err;
	const char *model = "<ir_version: 8, opset_import: [\"\" : 8]>\n"
			    "g (s0, X) => (s, ys) {\n"
			    "  s, ys = Scan (, s0, X) <num_scan_inputs = 1, directions = [1], body = b (a, x) => (a2, y) {\n"
			    "    a2 = Identity(x) y = Identity(a) }>\n}";
	const char *inputs[] = {"s0=int64[2] {10, 20}", "X=int64[2, 3] {1, 2, 3, 4, 5, 6}", NULL};
	ck_assert_msg(run(model, inputs, &s, &err) == ONNXTXT_OK, "%s", err.message);
	expect_output(s, 0, "int64[2] {1, 4}");
	expect_output(s, 1, "int64[2, 3] {10, 3, 2, 20, 6, 5}");
	OnnxSession_Free(s);
}
END_TEST

START_TEST(optional_inputs_hold_what_they_are_given)
{
	/* a graph input declared optional(T) given a T holds it as a present optional: here the
	 * main graph's X, and the body input v given the tensor the body returned */
	OnnxSession *s;
	OnnxError err;
	const char *model = HEAD "g (optional(float[1]) X, M, t0) => (Y, Z) {\n"
				 "  Y = Identity(X)\n"
				 "  Z = Loop (M, , t0) <body = b (i, k, optional(float[1]) v) => (k2, v2) {\n"
				 "    k2 = Identity(k) v2 = Constant <value = float[1] {2}> () }>\n}";
	const char *inputs[] = {"X=float[1] {1}", "M=int64 {2}", "t0=float[1] {0}", NULL};
	ck_assert_msg(run(model, inputs, &s, &err) == ONNXTXT_OK, "%s", err.message);
	ck_assert_int_eq(OnnxValue_Kind(OnnxSession_Output(s, 0)), ONNXTXT_VALUE_OPTIONAL);
	expect_output(s, 0, "float[1] {1}");
	expect_output(s, 1, "float[1] {2}");
	OnnxSession_Free(s);
}
END_TEST

/* ---- recurrent layers against themselves ------------------------------------------------------- */

static const char *const layers[] = {"RNN", "GRU", "LSTM"};
enum { SEQ = 5, BATCH = 3, IN = 4, HID = 6 };

typedef struct arr {
	int rank;
	int64_t dims[4];
	float *v;
} arr;

static uint32_t seed = 12345;

static float rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static size_t count(const arr *a)
{
	size_t n = 1;
	for (int i = 0; i < a->rank; i++)
		n *= (size_t)a->dims[i];
	return n;
}

static arr make(int rank, int64_t d0, int64_t d1, int64_t d2, int64_t d3, bool random)
{
	arr a = {rank, {d0, d1, d2, d3}, NULL};
	a.v = calloc(count(&a) + 1, sizeof *a.v);
	for (size_t i = 0; random && i < count(&a); i++)
		a.v[i] = rnd();
	return a;
}

/* a[i0, i1, i2, i3] for the first rank indexes */
static float *at(const arr *a, int64_t i0, int64_t i1, int64_t i2, int64_t i3)
{
	int64_t idx[4] = {i0, i1, i2, i3}, off = 0;
	for (int i = 0; i < a->rank; i++)
		off = off * a->dims[i] + idx[i];
	return a->v + off;
}

/* The inputs of one layer: X, W, R, B, sequence_lens, initial_h, initial_c, P. */
typedef struct layer_in {
	arr x, w, r, b, h0, c0, p;
	int32_t lens[BATCH];
	int64_t nlens;
} layer_in;

/* Runs op with attrs on the inputs and returns Y, Y_h and (LSTM) Y_c. */
static void run_layer(int kind, const char *attrs, const layer_in *li, arr *out)
{
	char model[600];
	bool lstm = kind == 2;
	snprintf(model, sizeof model,
		 "<ir_version: 8, opset_import: [\"\" : 14]>\n"
		 "g (X, W, R, B, L, H0%s) => (Y, Y_h%s) { Y, Y_h%s = %s <hidden_size = %d%s> (X, W, R, B, L, H0%s) }",
		 lstm ? ", C0, P" : "", lstm ? ", Y_c" : "", lstm ? ", Y_c" : "", layers[kind], HID, attrs,
		 lstm ? ", C0, P" : "");
	Onnx__ModelProto *m = tu_model(model);
	OnnxSession *s;
	OnnxError err;
	ck_assert_msg(OnnxSession_New(m, &s, &err) == ONNXTXT_OK, "%s", err.message);
	const arr *ins[] = {&li->x, &li->w, &li->r, &li->b, &li->h0, &li->c0, &li->p};
	const char *names[] = {"X", "W", "R", "B", "H0", "C0", "P"};
	for (int i = 0; i < (lstm ? 7 : 5); i++) {
		OnnxValue *v;
		ck_assert_int_eq(OnnxValue_NewTensor(1, ins[i]->dims, (size_t)ins[i]->rank, ins[i]->v, &v, NULL), ONNXTXT_OK);
		ck_assert_int_eq(OnnxSession_SetInput(s, names[i], v, NULL), ONNXTXT_OK);
		OnnxValue_Free(v);
	}
	OnnxValue *l;
	ck_assert_int_eq(OnnxValue_NewTensor(6, &li->nlens, 1, li->lens, &l, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetInput(s, "L", l, NULL), ONNXTXT_OK);
	OnnxValue_Free(l);
	ck_assert_msg(OnnxSession_Run(s, &err) == ONNXTXT_OK, "%s", err.message);
	for (size_t o = 0; o < (lstm ? 3u : 2u); o++) {
		const OnnxValue *v = OnnxSession_Output(s, o);
		out[o] = (arr){(int)OnnxValue_Rank(v), {0}, NULL};
		memcpy(out[o].dims, OnnxValue_Dims(v), (size_t)out[o].rank * sizeof(int64_t));
		out[o].v = malloc(OnnxValue_Count(v) * sizeof(float) + 1);
		if (OnnxValue_Count(v)) /* the data of an empty tensor is NULL */
			memcpy(out[o].v, OnnxValue_Data(v), OnnxValue_Count(v) * sizeof(float));
	}
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}

static int gates(int kind)
{
	return kind == 0 ? 1 : kind == 1 ? 3 : 4;
}

/* Random inputs for nd directions, layout 0. */
static layer_in random_inputs(int kind, int nd, int64_t seq, int64_t batch)
{
	int64_t g = gates(kind);
	layer_in li = {make(3, seq, batch, IN, 0, true), make(3, nd, g * HID, IN, 0, true), make(3, nd, g * HID, HID, 0, true),
		       make(2, nd, 2 * g * HID, 0, 0, true), make(3, nd, batch, HID, 0, true), make(3, nd, batch, HID, 0, true),
		       make(2, nd, 3 * HID, 0, 0, true), {0}, batch};
	for (int64_t b = 0; b < batch; b++)
		li.lens[b] = (int32_t)seq;
	return li;
}

static void free_inputs(layer_in *li)
{
	arr *a[] = {&li->x, &li->w, &li->r, &li->b, &li->h0, &li->c0, &li->p};
	for (size_t i = 0; i < sizeof a / sizeof *a; i++)
		free(a[i]->v);
}

/* The inputs of direction d alone (the parameters with a first dimension of 1). */
static layer_in one_direction(const layer_in *li, int d)
{
	layer_in o = *li;
	arr *a[] = {&o.w, &o.r, &o.b, &o.h0, &o.c0, &o.p};
	const arr *src[] = {&li->w, &li->r, &li->b, &li->h0, &li->c0, &li->p};
	for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
		a[i]->dims[0] = 1;
		size_t n = count(a[i]);
		a[i]->v = malloc(n * sizeof(float) + 1);
		memcpy(a[i]->v, src[i]->v + (size_t)d * n, n * sizeof(float));
	}
	o.x.v = malloc(count(&o.x) * sizeof(float) + 1);
	memcpy(o.x.v, li->x.v, count(&o.x) * sizeof(float));
	return o;
}

static void close_to(float got, float want, const char *what, int64_t i)
{
	ck_assert_msg(fabsf(got - want) <= 1e-5f + 1e-5f * fabsf(want), "%s, element %lld: got %g, expected %g", what,
		      (long long)i, (double)got, (double)want);
}

START_TEST(bidirectional_is_forward_and_reverse)
{
	int kind = _i;
	layer_in li = random_inputs(kind, 2, SEQ, BATCH);
	li.lens[1] = 2;
	arr bi[3], dir[2][3];
	run_layer(kind, ", direction = \"bidirectional\"", &li, bi);
	for (int d = 0; d < 2; d++) {
		layer_in o = one_direction(&li, d);
		run_layer(kind, d ? ", direction = \"reverse\"" : "", &o, dir[d]);
		free_inputs(&o);
		for (int64_t t = 0; t < SEQ; t++)
			for (int64_t b = 0; b < BATCH; b++)
				for (int64_t h = 0; h < HID; h++)
					close_to(*at(&bi[0], t, d, b, h), *at(&dir[d][0], t, 0, b, h), "Y", t);
		for (int k = 1; k < (kind == 2 ? 3 : 2); k++)
			for (int64_t j = 0; j < BATCH * HID; j++)
				close_to(bi[k].v[d * BATCH * HID + j], dir[d][k].v[j], k == 1 ? "Y_h" : "Y_c", j);
		for (int k = 0; k < (kind == 2 ? 3 : 2); k++)
			free(dir[d][k].v);
	}
	for (int o = 0; o < (kind == 2 ? 3 : 2); o++)
		free(bi[o].v);
	free_inputs(&li);
}
END_TEST

/* [a, b, n] -> [b, a, n] */
static arr swap01(const arr *x)
{
	arr y = make(3, x->dims[1], x->dims[0], x->dims[2], 0, false);
	for (int64_t i = 0; i < x->dims[0]; i++)
		for (int64_t j = 0; j < x->dims[1]; j++)
			memcpy(at(&y, j, i, 0, 0), at(x, i, j, 0, 0), (size_t)x->dims[2] * sizeof(float));
	return y;
}

START_TEST(layout1_is_layout0_transposed)
{
	int kind = _i;
	layer_in li = random_inputs(kind, 2, SEQ, BATCH);
	li.lens[0] = 3;
	li.lens[2] = 1;
	arr l0[3], l1[3];
	run_layer(kind, ", direction = \"bidirectional\"", &li, l0);
	layer_in t = li;
	t.x = swap01(&li.x), t.h0 = swap01(&li.h0), t.c0 = swap01(&li.c0);
	run_layer(kind, ", direction = \"bidirectional\", layout = 1", &t, l1);
	/* Y: [seq, nd, batch, hid] against [batch, seq, nd, hid] */
	for (int64_t s = 0; s < SEQ; s++)
		for (int64_t d = 0; d < 2; d++)
			for (int64_t b = 0; b < BATCH; b++)
				for (int64_t h = 0; h < HID; h++)
					close_to(*at(&l1[0], b, s, d, h), *at(&l0[0], s, d, b, h), "Y", s);
	for (int o = 1; o < (kind == 2 ? 3 : 2); o++) {
		arr back = swap01(&l1[o]);
		for (size_t j = 0; j < count(&back); j++)
			close_to(back.v[j], l0[o].v[j], o == 1 ? "Y_h" : "Y_c", (int64_t)j);
		free(back.v);
	}
	for (int o = 0; o < (kind == 2 ? 3 : 2); o++)
		free(l0[o].v), free(l1[o].v);
	free(t.x.v), free(t.h0.v), free(t.c0.v);
	free_inputs(&li);
}
END_TEST

/* The inputs of batch entry b alone, its sequence cut to its length. */
static layer_in one_entry(const layer_in *li, int64_t b)
{
	layer_in o = *li;
	int64_t len = li->lens[b], nd = li->w.dims[0];
	o.x = make(3, len, 1, IN, 0, false);
	for (int64_t t = 0; t < len; t++)
		memcpy(at(&o.x, t, 0, 0, 0), at(&li->x, t, b, 0, 0), IN * sizeof(float));
	o.h0 = make(3, nd, 1, HID, 0, false);
	o.c0 = make(3, nd, 1, HID, 0, false);
	for (int64_t d = 0; d < nd; d++) {
		memcpy(at(&o.h0, d, 0, 0, 0), at(&li->h0, d, b, 0, 0), HID * sizeof(float));
		memcpy(at(&o.c0, d, 0, 0, 0), at(&li->c0, d, b, 0, 0), HID * sizeof(float));
	}
	o.lens[0] = (int32_t)len;
	o.nlens = 1;
	return o;
}

START_TEST(sequence_lens_is_the_sequence_alone)
{
	int kind = _i;
	layer_in li = random_inputs(kind, 2, SEQ, BATCH);
	li.lens[0] = 2, li.lens[1] = 0, li.lens[2] = 5;
	arr all[3], alone[3];
	run_layer(kind, ", direction = \"bidirectional\"", &li, all);
	for (int64_t b = 0; b < BATCH; b++) {
		layer_in o = one_entry(&li, b);
		run_layer(kind, ", direction = \"bidirectional\"", &o, alone);
		for (int64_t t = 0; t < SEQ; t++)
			for (int64_t d = 0; d < 2; d++)
				for (int64_t h = 0; h < HID; h++)
					close_to(*at(&all[0], t, d, b, h), t < li.lens[b] ? *at(&alone[0], t, d, 0, h) : 0, "Y", t);
		for (int o2 = 1; o2 < (kind == 2 ? 3 : 2); o2++)
			for (int64_t d = 0; d < 2; d++)
				for (int64_t h = 0; h < HID; h++)
					close_to(*at(&all[o2], d, b, h, 0), *at(&alone[o2], d, 0, h, 0), "Y_h/Y_c", h);
		for (int o2 = 0; o2 < (kind == 2 ? 3 : 2); o2++)
			free(alone[o2].v);
		free(o.x.v), free(o.h0.v), free(o.c0.v);
	}
	for (int o2 = 0; o2 < (kind == 2 ? 3 : 2); o2++)
		free(all[o2].v);
	free_inputs(&li);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("control");
	TCase *t = tcase_create("errors");
	tcase_add_loop_test(t, kernel_errors, 0, sizeof failures / sizeof failures[0]);
	suite_add_tcase(s, t);
	t = tcase_create("iterations");
	tcase_add_test(t, loop_counter_kept_or_dropped);
	tcase_add_test(t, scan_elements_kept_or_dropped);
	tcase_add_test(t, scan8_states_per_batch_entry);
	tcase_add_test(t, optional_inputs_hold_what_they_are_given);
	suite_add_tcase(s, t);
	t = tcase_create("recurrent");
	tcase_add_loop_test(t, bidirectional_is_forward_and_reverse, 0, 3);
	tcase_add_loop_test(t, layout1_is_layout0_transposed, 0, 3);
	tcase_add_loop_test(t, sequence_lens_is_the_sequence_alone, 0, 3);
	suite_add_tcase(s, t);
	return tu_run(s);
}
