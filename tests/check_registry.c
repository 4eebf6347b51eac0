/* The kernel registry (src/eval/registry.c, ops.h): the lookup by version range (the entry
 * with the largest since at or below the operator version in force), the refusal of a
 * version older than the first entry, and the lists agreeing with the schema table. */
#include <stdint.h>
#include <string.h>

#include "eval/ops.h"
#include "eval/registry.h"
#include "schema/schema.h"
#include "testutil.h"

/* The kernel the session picks for op of domain at an opset: by the schema in force. */
static ox_kernel at_opset(const char *domain, const char *op, int64_t opset)
{
	const ox_schema *s = ox_schema_find(domain, op, opset);
	ck_assert_msg(s != NULL, "no schema %s at opset %lld", op, (long long)opset);
	const ox_op *o = ox_op_find(domain, op, s->since, NULL);
	return o ? o->run : NULL;
}

START_TEST(version_ranges)
{
	/* Gemm has entries 1, 7 and 11; its schemas are 1 6 7 9 11 13 */
	ck_assert_ptr_eq(at_opset("", "Gemm", 1), ox_op_Gemm_1);
	ck_assert_ptr_eq(at_opset("", "Gemm", 6), ox_op_Gemm_1);   /* before the second entry */
	ck_assert_ptr_eq(at_opset("", "Gemm", 7), ox_op_Gemm_7);   /* at it */
	ck_assert_ptr_eq(at_opset("", "Gemm", 10), ox_op_Gemm_7);  /* between (schema 9) */
	ck_assert_ptr_eq(at_opset("ai.onnx", "Gemm", 11), ox_op_Gemm_11);
	ck_assert_ptr_eq(at_opset("", "Gemm", 28), ox_op_Gemm_11); /* after the last (schema 13) */
	/* the lookup itself takes any version: the largest since at or below it */
	ck_assert_ptr_eq(ox_op_find("", "Gemm", 8, NULL)->run, ox_op_Gemm_7);
	ck_assert_int_eq(ox_op_find(NULL, "Gemm", 100, NULL)->since, 11);
	/* ai.onnx.ml: LabelEncoder 1, 2, 4 */
	ck_assert_ptr_eq(at_opset("ai.onnx.ml", "LabelEncoder", 1), ox_ml_LabelEncoder_1);
	ck_assert_ptr_eq(at_opset("ai.onnx.ml", "LabelEncoder", 3), ox_ml_LabelEncoder_2);
	ck_assert_ptr_eq(at_opset("ai.onnx.ml", "LabelEncoder", 5), ox_ml_LabelEncoder_4);
	/* an operator with one kernel for every version */
	ck_assert_ptr_eq(at_opset("", "Relu", 1), ox_op_Relu);
	ck_assert_ptr_eq(at_opset("", "Relu", 24), ox_op_Relu);
}
END_TEST

START_TEST(older_than_the_first_entry)
{
	int oldest = -1;
	/* Upsample-1 (width_scale, height_scale) has no kernel; 7 is the first */
	ck_assert_ptr_null(ox_op_find("", "Upsample", 1, &oldest));
	ck_assert_int_eq(oldest, 7);
	ck_assert_ptr_null(at_opset("", "Upsample", 6));
	ck_assert_ptr_eq(at_opset("", "Upsample", 7), ox_op_Upsample_7);
	ck_assert_ptr_eq(at_opset("", "Upsample", 10), ox_op_Upsample_9); /* deprecated there: still runs */
	ck_assert_ptr_null(ox_op_find("", "OneHot", 8, &oldest));
	ck_assert_int_eq(oldest, 9);
	/* no such operator at all */
	ck_assert_ptr_null(ox_op_find("", "NoSuchOp", 20, &oldest));
	ck_assert_int_eq(oldest, 0);
	ck_assert_ptr_null(ox_op_find("ai.onnx.ml", "Gemm", 20, &oldest));
	ck_assert_int_eq(oldest, 0);
}
END_TEST

/* Every entry of the lists, as registry.c reads them. */
typedef struct entry {
	const char *domain, *name;
	int since; /* 0 for X(Name) */
	ox_kernel run;
} entry;

#define PLAIN(name) {"", #name, 0, ox_op_##name},
#define VERSIONED(name, since) {"", #name, since, ox_op_##name##_##since},
#define ML_PLAIN(name) {"ai.onnx.ml", #name, 0, ox_ml_##name},
#define ML_VERSIONED(name, since) {"ai.onnx.ml", #name, since, ox_ml_##name##_##since},
static const entry entries[] = {OX_OPS(PLAIN, VERSIONED) OX_OPS_ML(ML_PLAIN, ML_VERSIONED)};

static bool is_since(const char *domain, const char *name, int since)
{
	size_t n;
	const ox_schema *v = ox_schema_versions(domain, name, &n);
	for (size_t i = 0; v && i < n; i++)
		if (v[i].since == since)
			return true;
	return false;
}

/* An XV entry starts at a schema version of its operator (a typo would make a range no
 * schema has), and the lookup at it returns that very kernel; an X entry is its
 * operator's only one. */
START_TEST(lists_agree_with_the_schemas)
{
	size_t n = sizeof entries / sizeof entries[0], versioned = 0;
	for (size_t i = 0; i < n; i++) {
		const entry *e = &entries[i];
		const ox_op *all = ox_op_find(e->domain, e->name, INT64_MAX, NULL);
		REQUIRE(all != NULL, "%s is not found", e->name);
		if (!e->since) {
			REQUIRE(all->run == e->run && all->since == 1, "%s: X and XV entries mixed", e->name);
			continue;
		}
		versioned++;
		REQUIRE(is_since(e->domain, e->name, e->since), "XV(%s, %d): no schema of %s starts at %d", e->name,
			e->since, e->name, e->since);
		const ox_op *o = ox_op_find(e->domain, e->name, e->since, NULL);
		REQUIRE(o && o->run == e->run && o->since == e->since, "XV(%s, %d) is not what the lookup finds",
			e->name, e->since);
	}
	ck_assert_uint_gt(versioned, 100);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("registry");
	TCase *tc = tcase_create("lookup");
	tcase_add_test(tc, version_ranges);
	tcase_add_test(tc, older_than_the_first_entry);
	tcase_add_test(tc, lists_agree_with_the_schemas);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
