/* The operator schema table (src/schema): the schema in force per opset version, in every
 * standard domain; formals, attributes with their defaults, type constraints; the table is
 * sorted and whole; near names. */
#include <stdint.h>
#include <string.h>

#include "schema/schema.h"
#include "testutil.h"

START_TEST(schema_in_force_per_version)
{
	ck_assert_int_eq(ox_schema_find("", "Relu", 24)->since, 14);
	ck_assert_int_eq(ox_schema_find("ai.onnx", "Relu", 13)->since, 13);
	ck_assert_int_eq(ox_schema_find("", "Relu", 5)->since, 1);
	ck_assert_ptr_null(ox_schema_find("", "Relu", 0));
	ck_assert_ptr_null(ox_schema_find("", "Relux", 24));
	ck_assert_ptr_null(ox_schema_find("", "LayerNormalization", 16));
	const ox_schema *ln = ox_schema_find("", "LayerNormalization", 23);
	ck_assert_int_eq(ln->since, 17);
	ck_assert_int_eq(ln->min_in, 2);
	ck_assert_int_eq(ln->max_in, 3);
	ck_assert_int_eq(ln->max_out, 3);
	/* a deprecated schema: the operator is gone from there on */
	ck_assert(ox_schema_find("", "Upsample", 10)->flags & OX_SCHEMA_DEPRECATED);
	ck_assert(!(ox_schema_find("", "Upsample", 9)->flags & OX_SCHEMA_DEPRECATED));
	ck_assert(ox_schema_find("ai.onnx.ml", "TreeEnsembleClassifier", 5)->flags & OX_SCHEMA_DEPRECATED);
}
END_TEST

START_TEST(every_standard_domain)
{
	ck_assert_int_eq(ox_schema_domain_find("")->max, 28);
	ck_assert_int_eq(ox_schema_domain_find("ai.onnx")->max, 28);
	ck_assert_int_eq(ox_schema_domain_find("ai.onnx.ml")->max, 5);
	ck_assert_int_eq(ox_schema_domain_find("ai.onnx.preview")->max, 1);
	ck_assert_int_eq(ox_schema_domain_find("ai.onnx.preview.training")->max, 1);
	ck_assert_ptr_null(ox_schema_domain_find("com.example"));
	ck_assert_ptr_nonnull(ox_schema_find("ai.onnx.ml", "Scaler", 1));
	ck_assert_ptr_nonnull(ox_schema_find("ai.onnx.preview.training", "Adagrad", 1));
	ck_assert_ptr_nonnull(ox_schema_find("ai.onnx.preview", "FlexAttention", 1));
	ck_assert_ptr_null(ox_schema_find("ai.onnx.ml", "Relu", 5));
	size_t n;
	ck_assert_ptr_nonnull(ox_schema_versions("", "Add", &n));
	ck_assert_uint_eq(n, 5); /* 1, 6, 7, 13, 14 */
}
END_TEST

START_TEST(formals_attributes_constraints)
{
	const ox_schema *s = ox_schema_find("", "Concat", 13);
	ck_assert_uint_eq(s->n_inputs, 1);
	ck_assert_int_eq(s->inputs[0].option, OX_FORMAL_VARIADIC);
	ck_assert(s->inputs[0].homogeneous);
	ck_assert_int_eq(s->max_in, OX_UNBOUNDED);
	ck_assert_str_eq(s->inputs[0].type, "T");
	ck_assert(s->inputs[0].set->tensor & (1u << ONNX__TENSOR_PROTO__DATA_TYPE__STRING));
	const ox_schema_attr *axis = ox_schema_attr_find(s, "axis");
	ck_assert(axis->required);
	const ox_schema *lr = ox_schema_find("", "LeakyRelu", 16);
	const ox_schema_attr *alpha = ox_schema_attr_find(lr, "alpha");
	ck_assert_int_eq(alpha->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
	ck_assert(alpha->has_default);
	ck_assert(alpha->f == 0.01f);
	ck_assert_ptr_null(ox_schema_attr_find(lr, "beta"));
	const ox_schema *mvn = ox_schema_find("", "MeanVarianceNormalization", 13);
	const ox_schema_attr *axes = ox_schema_attr_find(mvn, "axes");
	ck_assert_uint_eq(axes->n, 3);
	ck_assert_int_eq(axes->ints[2], 3);
	ck_assert_str_eq(ox_schema_attr_find(ox_schema_find("", "DepthToSpace", 13), "mode")->s, "DCR");
	const ox_schema *shape = ox_schema_find("", "Shape", 21);
	ck_assert_str_eq(shape->outputs[0].type, "T1");
	ck_assert_uint_eq(shape->outputs[0].set->tensor, 1u << ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
	const ox_schema *seq = ox_schema_find("", "SequenceConstruct", 11);
	ck_assert(seq->outputs[0].set->seq & (1u << ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT));
	const ox_schema *zm = ox_schema_find("ai.onnx.ml", "ZipMap", 1);
	ck_assert_ptr_nonnull(strstr(zm->outputs[0].set->other, "seq(map(string,float))"));
}
END_TEST

/* Sorted by (domain, op, since) with no duplicates, so that binary search finds them. */
START_TEST(table_sorted_and_whole)
{
	size_t n, ops = 0;
	const ox_schema *t = ox_schema_all(&n);
	ck_assert_uint_eq(n, 642);
	for (size_t i = 1; i < n; i++) {
		int c = strcmp(t[i - 1].domain, t[i].domain);
		c = c ? c : strcmp(t[i - 1].name, t[i].name);
		ck_assert_msg(c < 0 || (c == 0 && t[i - 1].since < t[i].since), "%s %d", t[i].name, t[i].since);
		ops += c != 0;
	}
	ck_assert_uint_eq(ops + 1, 227);
}
END_TEST

START_TEST(near_names)
{
	ck_assert_str_eq(ox_schema_suggest("", "Relux"), "Relu");
	ck_assert_str_eq(ox_schema_suggest("", "relu"), "Relu");
	ck_assert_str_eq(ox_schema_suggest("ai.onnx.ml", "Scalar"), "Scaler");
	ck_assert_ptr_null(ox_schema_suggest("", "Frobnicate"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("schema");
	TCase *tc = tcase_create("lookup");
	tcase_add_test(tc, schema_in_force_per_version);
	tcase_add_test(tc, every_standard_domain);
	tcase_add_test(tc, formals_attributes_constraints);
	tcase_add_test(tc, table_sorted_and_whole);
	tcase_add_test(tc, near_names);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
