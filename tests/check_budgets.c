/* Budgets against runaway models (issue 15): function bodies planned once per call, the
 * bound on planning, a session's memory budget and deadline, and RegexFullMatch patterns
 * refused before regcomp. Each test meets a limit with a hostile model and checks its
 * exact message. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/exec.h"
#include "testutil.h"

#define HEAD "<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
#define FN_HEAD "<domain: \"local\", opset_import: [\"\" : 17, \"local\" : 1]>\n"

/* A growable string. */
typedef struct str {
	char *p;
	size_t n;
} str;

static void put(str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(str *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	ck_assert(n >= 0 && (s->p = realloc(s->p, s->n + (size_t)n + 1)));
	va_start(ap, fmt);
	vsnprintf(s->p + s->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->n += (size_t)n;
}

typedef struct limits {
	uint64_t memory; /* 0: the default */
	double seconds;
	int runs;
} limits;

/* Makes a session for model (which must plan), binds inputs (name, value pairs), and runs
 * it lim->runs times (at least once), stopping at the first failure. */
static OnnxStatus run_limited(const char *model, const char *const *inputs, const limits *lim, OnnxError *e)
{
	Onnx__ModelProto *m = tu_model(model);
	OnnxSession *s;
	OnnxStatus st = OnnxSession_New(m, &s, e);
	ck_assert_msg(st == ONNXTXT_OK, "%s", e->message);
	if (lim->memory)
		ck_assert_int_eq(OnnxSession_SetMaxMemory(s, lim->memory, e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetTimeout(s, lim->seconds, e), ONNXTXT_OK);
	for (size_t i = 0; inputs && inputs[i]; i += 2) {
		OnnxValue *v;
		ck_assert_int_eq(OnnxValue_Parse(inputs[i + 1], strlen(inputs[i + 1]), &v, e), ONNXTXT_OK);
		ck_assert_int_eq(OnnxSession_SetInput(s, inputs[i], v, e), ONNXTXT_OK);
		OnnxValue_Free(v);
	}
	for (int r = 0; r < (lim->runs ? lim->runs : 1) && st == ONNXTXT_OK; r++)
		st = OnnxSession_Run(s, e);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	return st;
}

static const char *session_error(const char *model, OnnxStatus *code)
{
	static OnnxError e;
	Onnx__ModelProto *m = tu_model(model);
	OnnxSession *s = NULL;
	*code = OnnxSession_New(m, &s, &e);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	return *code ? e.message : "";
}

/* ---- function bodies planned once ------------------------------------------------------- */

/* The hostile model of issue 15: each function calls the next twice, 40 levels, so that
 * expanding the calls makes 2^40 nodes; the last one adds. */
static char *fan_out(int levels)
{
	str s = {0};
	put(&s, HEAD "g (float[1] x) => (float[1] y) { y = local.F0(x) }\n");
	for (int i = 0; i < levels; i++)
		put(&s, FN_HEAD "F%d (a) => (b) { t = local.F%d(a) b = local.F%d(t) }\n", i, i + 1, i + 1);
	put(&s, FN_HEAD "F%d (a) => (b) { b = Add(a, a) }\n", levels);
	return s.p;
}

/* It plans at once (the test harness's time limit catches a regression to expanding the
 * calls), and its run is stopped by the deadline, somewhere down the calls. */
START_TEST(fan_out_plans_once_and_meets_the_deadline)
{
	char *model = fan_out(40);
	static const char *const in[] = {"x", "float[1] {1}", NULL};
	limits lim = {0, 0.2, 1};
	OnnxError e;
	OnnxStatus st = run_limited(model, in, &lim, &e);
	ck_assert_int_eq(st, ONNXTXT_ERR_LIMIT);
	ck_assert_msg(strncmp(e.message, "graph.node[0] (local.F0): ", 26) == 0, "%s", e.message);
	const char *end = "time limit of 0.2 s reached";
	ck_assert_msg(strlen(e.message) > strlen(end) && !strcmp(e.message + strlen(e.message) - strlen(end), end),
		      "%s", e.message);
	/* where the deadline meets the calls depends on the machine's speed (under ASan the
	 * path is shorter): a path too long for the message is cut in the middle, once */
	const char *cut = strstr(e.message, ": ... ");
	ck_assert_msg(!cut || !strstr(cut + 1, ": ... "), "%s", e.message);
	free(model);
}
END_TEST

/* Shared bodies still compute what each call asks: four levels make 2^4 doublings. */
START_TEST(fan_out_shares_bodies_and_computes)
{
	char *model = fan_out(4);
	static const char *const in[] = {"x", "float[1] {1}", NULL};
	Onnx__ModelProto *m = tu_model(model);
	OnnxSession *s;
	OnnxError e;
	ck_assert_int_eq(OnnxSession_New(m, &s, &e), ONNXTXT_OK);
	OnnxValue *x;
	ck_assert_int_eq(OnnxValue_Parse(in[1], strlen(in[1]), &x, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetInput(s, "x", x, &e), ONNXTXT_OK);
	ck_assert_msg(OnnxSession_Run(s, &e) == ONNXTXT_OK, "%s", e.message);
	ck_assert(((const float *)OnnxValue_Data(OnnxSession_Output(s, 0)))[0] == 65536);
	OnnxValue_Free(x);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	free(model);
}
END_TEST

/* A chain of n functions, each calling the next, called from the graph directly and, when
 * via is set, also through a function G: a body planned at the first call is reused at the
 * deeper one, where its nesting must still fit in 64 levels. */
static char *chain(int n, int via)
{
	str s = {0};
	put(&s, HEAD "g (float x) => (float y, float z) { y = local.F1(x) z = local.%s(x) }\n", via ? "G" : "F1");
	put(&s, FN_HEAD "G (a) => (b) { b = local.F1(a) }\n");
	for (int i = 1; i < n; i++)
		put(&s, FN_HEAD "F%d (a) => (b) { b = local.F%d(a) }\n", i, i + 1);
	put(&s, FN_HEAD "F%d (a) => (b) { b = Identity(a) }\n", n);
	return s.p;
}

START_TEST(shared_bodies_keep_the_nesting_limit)
{
	OnnxStatus code;
	char *m = chain(63, 1);
	ck_assert_str_eq(session_error(m, &code), "");
	free(m);
	m = chain(64, 0);
	ck_assert_str_eq(session_error(m, &code), "");
	free(m);
	m = chain(64, 1);
	ck_assert_str_eq(session_error(m, &code),
			 "node[0] (local.F1): function calls nest deeper than 64 (is the function recursive?)");
	ck_assert_int_eq(code, ONNXTXT_ERR_LIMIT);
	free(m);
}
END_TEST

/* Calls whose attribute values differ get bodies of their own: here each level passes on
 * its attributes and calls the next level twice, once with attribute a<i> set, so level i
 * has 2^i distinct calls. The bound on planning stops it. */
static char *distinct_calls(int levels)
{
	str s = {0};
	put(&s, HEAD "g (float x) => (float y) { y = local.F0(x) }\n");
	for (int i = 0; i <= levels; i++) {
		put(&s, FN_HEAD "F%d <", i);
		for (int j = 0; j < levels; j++)
			put(&s, "%sa%d: int = 0", j ? ", " : "", j);
		if (i == levels) {
			put(&s, "> (a) => (b) { b = Identity(a) }\n");
			continue;
		}
		put(&s, "> (a) => (b) {\n  t = local.F%d <", i + 1);
		for (int j = 0; j < levels; j++)
			put(&s, "%sa%d: int = @a%d", j ? ", " : "", j, j);
		put(&s, "> (a)\n  b = local.F%d <", i + 1);
		for (int j = 0; j < levels; j++)
			put(&s, j == i ? "%sa%d: int = 1" : "%sa%d: int = @a%d", j ? ", " : "", j, j);
		put(&s, "> (t)\n}\n");
	}
	return s.p;
}

START_TEST(planning_is_bounded)
{
	OnnxStatus code;
	char *m = distinct_calls(8);
	size_t saved = ox_plan_limit;
	ox_plan_limit = 5000; /* 255 bodies of 2 calls with 8 attributes, 256 leaves: 4847 */
	ck_assert_str_eq(session_error(m, &code), "");
	ox_plan_limit = 3000;
	const char *msg = session_error(m, &code);
	ox_plan_limit = saved;
	ck_assert_int_eq(code, ONNXTXT_ERR_LIMIT);
	ck_assert_msg(strstr(msg, ": planning the model takes more than 3000 nodes and attributes (each sub-graph "
				  "counts, and each function once per distinct set of attribute values)"),
		      "%s", msg);
	free(m);
}
END_TEST

/* ---- memory budget ---------------------------------------------------------------------- */

/* ConstantOfShape of [1e9] (3.7 GiB of floats) is refused before anything is allocated. */
START_TEST(memory_budget_refuses_a_huge_tensor)
{
	limits lim = {(uint64_t)1 << 30, 0, 1};
	OnnxError e;
	OnnxStatus st = run_limited("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				    "g () => (float[N] y) <int64[1] shape = {1000000000}> { y = ConstantOfShape(shape) }",
				    NULL, &lim, &e);
	ck_assert_int_eq(st, ONNXTXT_ERR_LIMIT);
	ck_assert_str_eq(e.message, "graph.node[0] (ConstantOfShape): memory budget of 1 GiB exceeded (a new tensor of "
				    "4000000000 bytes, 0 bytes in use)");
}
END_TEST

/* The budget counts live tensors: a and b (400 bytes each) are alive together, and a is
 * freed before c is made, so 800 bytes suffice, run after run; 799 do not. */
START_TEST(memory_budget_counts_live_tensors)
{
	static const char model[] = "<ir_version: 8, opset_import: [\"\" : 17]>\n"
				    "g (float[100] x) => (float[100] c) { a = Add(x, x) b = Add(a, a) c = Add(b, b) }";
	str x = {0};
	for (int i = 0; i < 100; i++)
		put(&x, "%s%d", i ? ", " : "float[100] {", i);
	put(&x, "}");
	const char *const in[] = {"x", x.p, NULL};
	limits lim = {800, 0, 3};
	OnnxError e;
	ck_assert_msg(run_limited(model, in, &lim, &e) == ONNXTXT_OK, "%s", e.message);
	lim.memory = 799;
	ck_assert_int_eq(run_limited(model, in, &lim, &e), ONNXTXT_ERR_LIMIT);
	ck_assert_str_eq(e.message, "graph.node[1] (Add): memory budget of 799 bytes exceeded (a new tensor of 400 bytes, "
				    "400 bytes in use)");
	free(x.p);
}
END_TEST

/* A tensor made in one session's run and bound to another outlives the first. */
START_TEST(outputs_outlive_their_session)
{
	static const char model[] = "<ir_version: 8, opset_import: [\"\" : 17]>\n"
				    "g (float[2] x) => (float[2] y) { y = Add(x, x) }";
	Onnx__ModelProto *m = tu_model(model);
	OnnxSession *a, *b;
	OnnxError e;
	OnnxValue *x;
	ck_assert_int_eq(OnnxSession_New(m, &a, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_New(m, &b, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxValue_Parse("float[2] {1, 2}", 15, &x, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetInput(a, "x", x, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_Run(a, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetInput(b, "x", OnnxSession_Output(a, 0), &e), ONNXTXT_OK);
	OnnxSession_Free(a);
	ck_assert_int_eq(OnnxSession_Run(b, &e), ONNXTXT_OK);
	ck_assert(((const float *)OnnxValue_Data(OnnxSession_Output(b, 0)))[1] == 8);
	OnnxSession_Free(b);
	OnnxValue_Free(x);
	OnnxProto_Free(m);
}
END_TEST

/* ---- deadline --------------------------------------------------------------------------- */

/* A Loop with a trip count of 10^12: the deadline stops it between iterations. */
START_TEST(deadline_stops_a_loop)
{
	limits lim = {0, 0.2, 1};
	OnnxError e;
	OnnxStatus st = run_limited("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				    "g () => (float y) <int64 n = {1000000000000}, bool c = {1}, float x = {1}> {\n"
				    "  y = Loop(n, c, x) <body = b (int64 i, bool ci, float xi) => (bool co, float xo) {\n"
				    "    co = Identity(ci)\n    xo = Identity(xi)\n  }>\n}",
				    NULL, &lim, &e);
	ck_assert_int_eq(st, ONNXTXT_ERR_LIMIT);
	ck_assert_str_eq(e.message, "graph.node[0] (Loop): time limit of 0.2 s reached");
}
END_TEST

/* A Scan over 4 million rows: the deadline stops it. The body allocates nothing, so the
 * clock fires in the Scan node itself (a body that allocates could stop inside it). */
START_TEST(deadline_stops_a_scan)
{
	Onnx__ModelProto *m = tu_model("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				       "g (float[N] xs) => (float s) <float s0 = {0}> {\n"
				       "  s = Scan <num_scan_inputs = 1, body = b (float acc, float x) => (float out) {\n"
				       "    out = Identity(acc)\n  }> (s0, xs)\n}");
	OnnxSession *s;
	OnnxError e;
	OnnxValue *xs;
	int64_t n = 4000000;
	ck_assert_int_eq(OnnxSession_New(m, &s, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetTimeout(s, 0.05, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxValue_NewTensor(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, &n, 1, NULL, &xs, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetInput(s, "xs", xs, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_Run(s, &e), ONNXTXT_ERR_LIMIT);
	ck_assert_str_eq(e.message, "graph.node[0] (Scan): time limit of 0.05 s reached");
	OnnxValue_Free(xs);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

START_TEST(limits_reject_bad_arguments)
{
	OnnxError e;
	ck_assert_int_eq(OnnxSession_SetMaxMemory(NULL, 1, &e), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxSession_SetTimeout(NULL, 1, &e), ONNXTXT_ERR_ARG);
	Onnx__ModelProto *m = tu_model("<ir_version: 8, opset_import: [\"\" : 17]>\ng (float x) => (float y) { y = Identity(x) }");
	OnnxSession *s;
	ck_assert_int_eq(OnnxSession_New(m, &s, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetTimeout(s, -1, &e), ONNXTXT_ERR_ARG);
	ck_assert_str_eq(e.message, "invalid argument: a timeout is a finite number of seconds, 0 or more");
	ck_assert_int_eq(OnnxSession_SetTimeout(s, NAN, &e), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxSession_SetTimeout(s, 0, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetMaxMemory(s, 0, &e), ONNXTXT_OK);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

/* ---- regular expressions ---------------------------------------------------------------- */

static OnnxStatus regex(const char *pattern, OnnxError *e)
{
	str s = {0};
	put(&s, "<ir_version: 8, opset_import: [\"\" : 20]>\n"
		"g (string[1] x) => (bool[1] y) { y = RegexFullMatch <pattern = \"%s\"> (x) }",
	    pattern);
	static const char *const in[] = {"x", "string[1] {\"aaaa\"}", NULL};
	limits lim = {0, 0, 1};
	OnnxStatus st = run_limited(s.p, in, &lim, e);
	free(s.p);
	return st;
}

/* The 179-byte kind of pattern that grows glibc's regcomp without bound is refused first,
 * as RE2 refuses it: nested counts multiply to more than 1000. */
START_TEST(regex_nested_repetition_refused)
{
	OnnxError e;
	ck_assert_int_eq(regex("((a{1000}){1000}){1000}", &e), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(e.message, "graph.node[0] (RegexFullMatch): pattern /((a{1000}){1000}){1000}/: repetition counts "
				    "nested in each other multiply to more than 1000 (RE2's limit) (inputs: string[1])");
	ck_assert_int_eq(regex("(?:a{2}|b{600}){2}", &e), ONNXTXT_ERR_EVAL);
	ck_assert_int_eq(regex("(a{10}){101}", &e), ONNXTXT_ERR_EVAL);
	/* at the limit, side by side, and counts in sibling groups do not multiply */
	ck_assert_msg(regex("(a{10}){100}", &e) == ONNXTXT_OK, "%s", e.message);
	ck_assert_msg(regex("a{1000}b{1000}", &e) == ONNXTXT_OK, "%s", e.message);
	ck_assert_msg(regex("((a{2}))(b){500}(c{1000})", &e) == ONNXTXT_OK, "%s", e.message);
	ck_assert_msg(regex("(a|b{999})", &e) == ONNXTXT_OK, "%s", e.message);
}
END_TEST

START_TEST(regex_deep_groups_refused)
{
	str s = {0};
	for (int i = 0; i < 1001; i++)
		put(&s, "(");
	put(&s, "a");
	for (int i = 0; i < 1001; i++)
		put(&s, ")");
	OnnxError e;
	ck_assert_int_eq(regex(s.p, &e), ONNXTXT_ERR_EVAL);
	ck_assert_msg(strstr(e.message, "groups nest deeper than 1000 (RE2's limit)"), "%s", e.message);
	free(s.p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("budgets");
	TCase *tc = tcase_create("functions");
	tcase_add_test(tc, fan_out_plans_once_and_meets_the_deadline);
	tcase_add_test(tc, fan_out_shares_bodies_and_computes);
	tcase_add_test(tc, shared_bodies_keep_the_nesting_limit);
	tcase_add_test(tc, planning_is_bounded);
	suite_add_tcase(s, tc);
	tc = tcase_create("runs");
	tcase_add_test(tc, memory_budget_refuses_a_huge_tensor);
	tcase_add_test(tc, memory_budget_counts_live_tensors);
	tcase_add_test(tc, outputs_outlive_their_session);
	tcase_add_test(tc, deadline_stops_a_loop);
	tcase_add_test(tc, deadline_stops_a_scan);
	tcase_add_test(tc, limits_reject_bad_arguments);
	suite_add_tcase(s, tc);
	tc = tcase_create("regex");
	tcase_add_test(tc, regex_nested_repetition_refused);
	tcase_add_test(tc, regex_deep_groups_refused);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
