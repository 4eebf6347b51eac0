/* Unit tests for the dim algebra of shape inference (src/infer/dims.c): unifying and
 * broadcasting numbers, named parameters and unknown dims, products and sums with their
 * overflow, element counts, type compatibility and the spelling of types in messages; and,
 * through the public API, what data propagation and the declared-type comparison give. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer.h"
#include "testutil.h"

static const char *N = "N", *M = "M";

static ox_dim num(int64_t v)
{
	return ox_dim_num(v);
}

static ox_dim par(const char *p)
{
	return (ox_dim){-1, p};
}

static bool same(ox_dim a, ox_dim b)
{
	return a.v == b.v && a.param == b.param;
}

START_TEST(unify)
{
	ox_dim d;
	ck_assert(ox_dim_unify(par(N), par(N), &d) && same(d, par(N))); /* N meets N */
	ck_assert(ox_dim_unify(par(N), num(3), &d) && same(d, num(3))); /* N meets 3: 3 */
	ck_assert(ox_dim_unify(num(3), par(N), &d) && same(d, num(3)));
	ck_assert(ox_dim_unify(num(3), num(3), &d) && same(d, num(3)));
	ck_assert(!ox_dim_unify(num(3), num(4), &d) && ox_dim_is_unknown(d)); /* a conflict */
	ck_assert(ox_dim_unify(OX_DIM_UNKNOWN, par(N), &d) && same(d, par(N)));
	ck_assert(ox_dim_unify(num(0), OX_DIM_UNKNOWN, &d) && same(d, num(0)));
	ck_assert(ox_dim_unify(par(N), par(M), &d) && same(d, par(N))); /* two names: the first */
}
END_TEST

START_TEST(broadcast)
{
	ox_dim d;
	ck_assert(ox_dim_broadcast(num(1), num(5), &d) && same(d, num(5)));
	ck_assert(ox_dim_broadcast(num(5), num(1), &d) && same(d, num(5)));
	ck_assert(ox_dim_broadcast(num(1), par(N), &d) && same(d, par(N)));
	ck_assert(ox_dim_broadcast(par(N), num(3), &d) && same(d, num(3))); /* N is 3 or 1 */
	ck_assert(ox_dim_broadcast(par(N), par(N), &d) && same(d, par(N)));
	ck_assert(ox_dim_broadcast(par(N), par(M), &d) && ox_dim_is_unknown(d)); /* either may be 1 */
	ck_assert(ox_dim_broadcast(OX_DIM_UNKNOWN, num(4), &d) && same(d, num(4)));
	ck_assert(ox_dim_broadcast(num(0), num(1), &d) && same(d, num(0)));
	ck_assert(!ox_dim_broadcast(num(3), num(4), &d));
	ck_assert(!ox_dim_broadcast(num(0), num(2), &d));
}
END_TEST

START_TEST(arithmetic)
{
	ck_assert(same(ox_dim_mul(num(3), num(4)), num(12)));
	ck_assert(same(ox_dim_mul(num(1), par(N)), par(N)));
	ck_assert(same(ox_dim_mul(par(N), num(0)), num(0)));
	ck_assert(ox_dim_is_unknown(ox_dim_mul(par(N), num(2))));
	ck_assert(ox_dim_is_unknown(ox_dim_mul(num(INT64_C(1) << 40), num(INT64_C(1) << 40)))); /* overflow */
	ck_assert(same(ox_dim_add(num(2), num(5)), num(7)));
	ck_assert(ox_dim_is_unknown(ox_dim_add(num(INT64_MAX), num(1))));
	ck_assert(ox_dim_is_unknown(ox_dim_add(par(N), num(1))));
}
END_TEST

START_TEST(types)
{
	ox_dim d1[] = {par(N), num(3)}, d2[] = {num(2), num(3)}, d3[] = {num(2), num(4)};
	ox_type a = {.kind = OX_T_TENSOR, .elem = OX_FLOAT, .rank = 2, .dims = d1};
	ox_type b = {.kind = OX_T_TENSOR, .elem = OX_FLOAT, .rank = 2, .dims = d2};
	ox_type c = {.kind = OX_T_TENSOR, .elem = OX_FLOAT, .rank = 2, .dims = d3};
	ox_type i = {.kind = OX_T_TENSOR, .elem = OX_INT64, .rank = -1};
	ox_type s = {.kind = OX_T_SEQ, .inner = &a};
	char buf[64];
	ck_assert(ox_type_compatible(&a, &b));
	ck_assert(!ox_type_compatible(&b, &c));
	ck_assert(!ox_type_compatible(&a, &i)); /* element types */
	ck_assert(ox_type_compatible(&i, &(ox_type){.kind = OX_T_TENSOR, .elem = OX_INT64, .rank = 2, .dims = d2}));
	ck_assert(!ox_type_compatible(&a, &s));
	ck_assert_int_eq(ox_type_count(&a), -1);
	ck_assert_int_eq(ox_type_count(&b), 6);
	ox_type_str(&a, buf, sizeof buf);
	ck_assert_str_eq(buf, "float[N,3]");
	ox_type_str(&i, buf, sizeof buf);
	ck_assert_str_eq(buf, "int64");
	ox_type_str(&s, buf, sizeof buf);
	ck_assert_str_eq(buf, "seq(float[N,3])");
	ox_type_str(&s, buf, 6); /* cut to fit */
	ck_assert_str_eq(buf, "seq(f");
	ox_dim_str(OX_DIM_UNKNOWN, buf, sizeof buf);
	ck_assert_str_eq(buf, "?");
}
END_TEST

/* The first problem of checking text, "LINE:COL: message", or "ok". */
static char *first_problem(const char *text)
{
	static char buf[1200];
	OnnxError err, *problems = NULL;
	size_t count = 0;
	OnnxStatus st = OnnxModel_CheckText(text, strlen(text), &problems, &count, &err);
	snprintf(buf, sizeof buf, "%s", st == ONNXTXT_OK ? "ok" : "");
	if (st != ONNXTXT_OK)
		snprintf(buf, sizeof buf, "%u:%u: %s", err.line, err.column, err.message);
	free(problems);
	return buf;
}

#define MODEL(graph) "<ir_version: 8, opset_import: [\"\" : 17]>\n" graph

START_TEST(propagation)
{
	/* Shape -> Slice -> Concat -> Reshape: [N, 3, 4] to [N, 12] exactly */
	ck_assert_str_eq(first_problem(MODEL("g (float[N, 3, 4] x) => (float[N, 11] y)\n"
					     "<int64[1] zero = {0}, int64[1] one = {1}, int64[1] minus_one = {-1}> {\n"
					     "  s = Shape (x)\n"
					     "  n = Slice (s, zero, one)\n"
					     "  t = Concat <axis = 0> (n, minus_one)\n"
					     "  y = Reshape (x, t)\n"
					     "}\n")),
			 "7:3: graph.node[3] (Reshape): output 'y' is inferred as float[N,12], but it is declared as "
			 "float[N,11]");
	/* an initializer that is also an input gives its values all the same (as in onnx) */
	ck_assert_str_eq(first_problem(MODEL("g (float[2, 6] x, int64[2] s = {3, 4}) => (float[5, 5] y) {\n"
					     "  y = Reshape (x, s)\n"
					     "}\n")),
			 "3:3: graph.node[0] (Reshape): output 'y' is inferred as float[3,4], but it is declared as "
			 "float[5,5]");
}
END_TEST

/* A body is inferred once per key (function, attributes as resolved, input types): calls
 * that differ in one of them each get their own result, and a model whose functions each
 * call the next twice, 40 levels deep (2^40 calls expanded), checks at once (the harness's
 * time limit catches a regression). */
START_TEST(function_calls)
{
	ck_assert_str_eq(first_problem("<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
				       "g (float[2, 3] x, float[3] z) => (float[4, 3] y1, float[4, 3] y2, float[4] y3) {\n"
				       "  y1 = local.F <axis = 0> (x)\n"
				       "  y2 = local.F <axis = 1> (x)\n"
				       "  y3 = local.F <axis = 0> (z)\n"
				       "}\n"
				       "<domain: \"local\", opset_import: [\"\" : 17]>\n"
				       "F <axis> (a) => (b) { b = Concat <axis: int = @axis> (a, a) }\n"),
			 "4:3: graph.node[1] (local.F): output 'y2' is inferred as float[2,6], but it is declared as "
			 "float[4,3]");
	/* an attribute a call in a body passes on from the call of that body: its value, per
	 * outer call (the two calls of G inside F are written alike) */
	ck_assert_str_eq(first_problem("<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
				       "g (float[2, 3] x) => (float[2, 6] y1, float[2, 6] y2) {\n"
				       "  y1 = local.F <ax2 = 1> (x)\n"
				       "  y2 = local.F <ax2 = 0> (x)\n"
				       "}\n"
				       "<domain: \"local\", opset_import: [\"\" : 17, \"local\" : 1]>\n"
				       "F <ax2> (a) => (b) { b = local.G <ax: int = @ax2> (a) }\n"
				       "<domain: \"local\", opset_import: [\"\" : 17]>\n"
				       "G <ax> (a) => (b) { b = Concat <axis: int = @ax> (a, a) }\n"),
			 "4:3: graph.node[1] (local.F): output 'y2' is inferred as float[4,3], but it is declared as "
			 "float[2,6]");
	/* G's error on float[2,3], met first inside F, whose own error was reported (so quietly),
	 * is still reported where the graph calls G itself */
	const char *quiet = "<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
			    "g (float[3, 3] x, float[2, 3] v) => (float[3, 3] y, float[2, 3] z, float[2, 3] w) {\n"
			    "  y = local.F(x)\n"
			    "  z = local.F(v)\n"
			    "  w = local.G(v)\n"
			    "}\n"
			    "<domain: \"local\", opset_import: [\"\" : 17, \"local\" : 1]>\n"
			    "F (a) => (b) { t = Reshape(a, a) b = local.G(a) }\n"
			    "<domain: \"local\", opset_import: [\"\" : 17]>\n"
			    "G (a) => (b) { b = MatMul(a, a) }\n";
	OnnxError err, *problems = NULL;
	size_t count = 0;
	ck_assert_int_eq(OnnxModel_CheckText(quiet, strlen(quiet), &problems, &count, &err), ONNXTXT_ERR_INVALID);
	ck_assert_uint_eq(count, 2);
	ck_assert_msg(strstr(problems[1].message, "functions[1].node[0] (MatMul): the inner dimensions differ") != NULL,
		      "%s", problems[1].message);
	free(problems);
	char *text = malloc(8192);
	ck_assert_ptr_nonnull(text);
	int n = snprintf(text, 8192, "<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
				     "g (float[1] x) => (float[2] y) { y = local.F0(x) }\n");
	for (int i = 0; i < 40; i++)
		n += snprintf(text + n, 8192 - (size_t)n,
			      "<domain: \"local\", opset_import: [\"\" : 17, \"local\" : 1]>\n"
			      "F%d (a) => (b) { t = local.F%d(a) b = local.F%d(t) }\n", i, i + 1, i + 1);
	snprintf(text + n, 8192 - (size_t)n, "<domain: \"local\", opset_import: [\"\" : 17]>\nF40 (a) => (b) { b = Add(a, a) }\n");
	ck_assert_str_eq(first_problem(text),
			 "2:34: graph.node[0] (local.F0): output 'y' is inferred as float[1], but it is declared as float[2]");
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("infer");
	TCase *tc = tcase_create("dims");
	tcase_add_test(tc, unify);
	tcase_add_test(tc, broadcast);
	tcase_add_test(tc, arithmetic);
	tcase_add_test(tc, types);
	tcase_add_test(tc, propagation);
	tcase_add_test(tc, function_calls);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
