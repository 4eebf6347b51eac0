/* The evaluator's core as callers see it: values (narrow-float conversions, text form,
 * .pb conversion, comparison), sessions (binding with type checks, running, errors that
 * name the node) and the executor's structural checks, function expansion and limits; the
 * kernel registry's lookup by version range and its lists against the schema table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/kernel.h"
#include "eval/ops.h"
#include "eval/registry.h"
#include "eval/value.h"
#include "schema/schema.h"
#include "testutil.h"

/* ---- narrow floats ------------------------------------------------------------------------ */

START_TEST(f16_round_trips)
{
	for (unsigned h = 0; h < 0x10000; h++) {
		float f = ox_f16_to_f32((uint16_t)h);
		if (isnan(f))
			ck_assert(isnan(ox_f16_to_f32(ox_f32_to_f16(f))));
		else
			ck_assert_uint_eq(ox_f32_to_f16(f), h);
	}
	ck_assert_uint_eq(ox_f32_to_f16(65520.0f), 0x7c00);   /* rounds to infinity */
	ck_assert_uint_eq(ox_f32_to_f16(65519.0f), 0x7bff);   /* the largest finite */
	ck_assert_uint_eq(ox_f32_to_f16(0x1p-25f), 0);        /* a tie to even, zero */
	ck_assert_uint_eq(ox_f32_to_f16(0x1.8p-24f), 2);      /* a tie to even, up */
	ck_assert_uint_eq(ox_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
}
END_TEST

START_TEST(bf16_round_trips)
{
	for (unsigned h = 0; h < 0x10000; h++) {
		float f = ox_bf16_to_f32((uint16_t)h);
		if (!isnan(f))
			ck_assert_uint_eq(ox_f32_to_bf16(f), h);
	}
	ck_assert_uint_eq(ox_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80); /* tie to even */
}
END_TEST

static const int f8_types[] = {17, 18, 19, 20};

START_TEST(f8_round_trips)
{
	int type = f8_types[_i];
	for (unsigned b = 0; b < 256; b++) {
		float f = ox_f8_to_f32(type, (uint8_t)b);
		if (isnan(f) || isinf(f))
			continue;
		uint8_t back = ox_f32_to_f8(type, f, true);
		/* FNUZ formats have no negative zero: 0x80 is their NaN */
		if (f == 0 && (type == 18 || type == 20))
			ck_assert_uint_eq(back, 0);
		else
			ck_assert_uint_eq(back, b);
	}
}
END_TEST

START_TEST(f8_saturation)
{
	/* Cast-19's table: out of range saturates to the largest value, or else gives NaN
	 * (infinity for E5M2) */
	ck_assert_float_eq(ox_f8_to_f32(17, ox_f32_to_f8(17, 1e6f, true)), 448.0f);
	ck_assert(isnan(ox_f8_to_f32(17, ox_f32_to_f8(17, 1e6f, false))));
	ck_assert_float_eq(ox_f8_to_f32(19, ox_f32_to_f8(19, -1e6f, true)), -57344.0f);
	ck_assert(isinf(ox_f8_to_f32(19, ox_f32_to_f8(19, 1e6f, false))));
	ck_assert_float_eq(ox_f8_to_f32(17, ox_f32_to_f8(17, INFINITY, true)), 448.0f);
	ck_assert(isnan(ox_f8_to_f32(18, ox_f32_to_f8(18, INFINITY, true))));
	ck_assert_float_eq(ox_f8_to_f32(17, ox_f32_to_f8(17, 464.0f, false)), 448.0f); /* a tie, to even */
	ck_assert_float_eq(ox_f4_to_f32(ox_f32_to_f4(2.5f)), 2.0f);
	ck_assert_float_eq(ox_f4_to_f32(ox_f32_to_f4(-7.0f)), -6.0f);
}
END_TEST

/* ---- values as text, as protobuf, compared -------------------------------------------- */

static OnnxValue *value(const char *text)
{
	OnnxValue *v;
	OnnxError err;
	if (OnnxValue_Parse(text, strlen(text), &v, &err) != ONNXTXT_OK)
		ck_abort_msg("%s: %u:%u: %s", text, err.line, err.column, err.message);
	return v;
}

static const char *const value_texts[] = {
	"float[2, 2] {1, 2, 3, 4}", "int64 {7}", "string[2] {\"a\", \"b c\"}", "bool[3] {1, 0, 1}",
	"float[0, 3] {}", "float16[2] {1.5, -2.0}", "int4[3] {-8, 7, 1}", "uint8[2] {0, 255}",
	"[float[1] {1}, float[2] {2, 3}]", "[]", "none", "double[2] {nan, -inf}", "complex64[1] {1, 2}",
	"map(int64, float) {3: 0.5, -1: nan}", "map(string, double) {\"a\": 1, \"b, c\": -0.25}",
	"[map(int64, string) {1: \"x: y\"}, map(int64, string) {2: \"\"}]", "map(uint8, int64) {255: 7, 0: -1}",
};

START_TEST(value_text_round_trips)
{
	const char *t = value_texts[_i];
	OnnxValue *v = value(t);
	char *printed;
	ck_assert_int_eq(OnnxValue_Print(v, &printed, NULL, NULL), ONNXTXT_OK);
	OnnxValue *w = value(printed);
	OnnxError verr;
	ck_assert_msg(OnnxValue_Equal(w, v, 0, 0, &verr) == ONNXTXT_OK, "%s -> %s: %s", t, printed, verr.message);
	/* and through protobuf */
	void *m;
	ck_assert_int_eq(OnnxValue_ToProto(v, "x", &m, NULL), ONNXTXT_OK);
	OnnxValue *u;
	ck_assert_int_eq(OnnxValue_FromProto(m, &u, NULL), ONNXTXT_OK);
	ck_assert_msg(OnnxValue_Equal(u, v, 0, 0, &verr) == ONNXTXT_OK, "%s via proto: %s", t, verr.message);
	OnnxProto_Free(m);
	OnnxValue_Free(u);
	OnnxValue_Free(w);
	OnnxValue_Free(v);
	free(printed);
}
END_TEST

/* A value wider than the printer's 100 columns prints on one line exactly as a short one
 * does: no space inside the braces. */
START_TEST(wide_value_prints_like_a_short_one)
{
	char text[2048] = "float[2, 20] {", *printed;
	for (int i = 0; i < 40; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d.25", i ? ", " : "", i);
	strcat(text, "}");
	OnnxValue *v = value(text);
	ck_assert_int_eq(OnnxValue_Print(v, &printed, NULL, NULL), ONNXTXT_OK);
	ck_assert_str_eq(printed, text);
	free(printed);
	OnnxValue_Free(v);
	const char *seq = "[string[3] {\"a very long string, so that the line is wide enough\", "
			  "\"to break in the printer\", \"and one more\"}, none]";
	v = value(seq);
	ck_assert_int_eq(OnnxValue_Print(v, &printed, NULL, NULL), ONNXTXT_OK);
	ck_assert_str_eq(printed, seq);
	free(printed);
	OnnxValue_Free(v);
}
END_TEST

/* OnnxValue_Read with kind 0 tells the message by the bytes; PrintNamed and ParseNamed
 * carry the name field through "NAME = VALUE". */
static const char *const named_texts[] = {
	"x = float[2, 2] {1, 2, 3, 4}\n", "seq = [int64[2] {1, 2}, int64 {3}]\n", "int8[2] {-1, 1}\n",
	"\"a \\\"b\\\"\" = string[1] {\"s\"}\n", "[]\n", "s = [[float {1}], []]\n",
};

START_TEST(named_values_read_by_content)
{
	const char *t = named_texts[_i];
	OnnxValue *v, *w;
	char *name, *name2, *printed;
	OnnxError err;
	ck_assert_msg(OnnxValue_ParseNamed(t, strlen(t), &v, &name, &err) == ONNXTXT_OK, "%s: %s", t, err.message);
	void *m;
	ck_assert_int_eq(OnnxValue_ToProto(v, *name ? name : NULL, &m, NULL), ONNXTXT_OK);
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *bytes = malloc(n + 1);
	protobuf_c_message_pack(m, bytes);
	ck_assert_msg(OnnxValue_Read(bytes, n, 0, &w, &name2, &err) == ONNXTXT_OK, "%s: %s", t, err.message);
	ck_assert_str_eq(name2, name);
	ck_assert_int_eq(OnnxValue_PrintNamed(w, name2, &printed, NULL, NULL), ONNXTXT_OK);
	ck_assert_str_eq(printed, t);
	free(printed);
	free(bytes);
	free(name);
	free(name2);
	OnnxProto_Free(m);
	OnnxValue_Free(w);
	OnnxValue_Free(v);
}
END_TEST

START_TEST(named_value_errors)
{
	/* a MapProto told by its keys (name "m", int64 keys 1 and 2) but with an empty
	 * sequence of values: the map's own error, not "not a value" */
	static const uint8_t map[] = {012, 1, 'm', 020, 7, 030, 1, 030, 2, 052, 2, 020, 1};
	OnnxValue *v;
	char *name;
	OnnxError err;
	ck_assert_int_ne(OnnxValue_Read(map, sizeof map, 0, &v, &name, &err), ONNXTXT_OK);
	ck_assert_str_eq(err.message, "map 'm': 2 keys but 0 values, or values that are not scalars");
	static const uint8_t junk[] = {0x08, 0x96, 0x01, 'g', 'a', 'r'};
	ck_assert_int_eq(OnnxValue_Read(junk, sizeof junk, 0, &v, &name, &err), ONNXTXT_ERR_BINARY);
	const char *bad = "x = float[2] {1}";
	ck_assert_int_eq(OnnxValue_ParseNamed(bad, strlen(bad), &v, &name, &err), ONNXTXT_ERR_VALUE);
	ck_assert_uint_eq(err.column, 14);
	ck_assert_ptr_null(v);
	ck_assert_ptr_null(name);
}
END_TEST

static const struct bad_value {
	const char *text, *error;
} bad_values[] = {
	{"float[2] {1}", "1:10: the tensor has 1 value but its shape needs 2"},
	{"[float {1}", "1:11: expected ',' or ']' in a sequence"},
	{"float {1} x", "1:11: unexpected text after the value"},
	{"12", "1:1: expected a value such as 'float[2] {1, 2}', '[...]' or 'none'"},
	{"[float {1} float {2}]", "1:12: expected ',' or ']' in a sequence"},
	{"map(float, float) {1: 2}", "1:1: a map key is an integer of 8 to 64 bits or a string, not float"},
	{"map(int64, float) {1: 2, 1: 3}", "1:1: map key 1 repeats an earlier key"},
	{"map(int64 float) {}", "1:11: expected ',' after the map's key type"},
	{"map(int64, float) {1 2}", "1:23: expected a map entry 'KEY: VALUE'"},
	{"map(int64, float) {1: 2", "1:24: expected ',' or '}' in a map"},
	{"map(int64, float) {1: x}", "1:1: the map's values: expected '}' or a number after '{', found 'x'"},
};

START_TEST(value_text_errors)
{
	OnnxValue *v;
	OnnxError err;
	const struct bad_value *b = &bad_values[_i];
	ck_assert_int_ne(OnnxValue_Parse(b->text, strlen(b->text), &v, &err), ONNXTXT_OK);
	char got[600];
	snprintf(got, sizeof got, "%u:%u: %s", err.line, err.column, err.message);
	ck_assert_str_eq(got, b->error);
}
END_TEST

/* A map: its kind, key type, and two items, the keys and the values. */
START_TEST(map_value_api)
{
	OnnxValue *m = value("map(string, float) {\"b\": 2, \"a\": 1}");
	ck_assert_int_eq(OnnxValue_Kind(m), ONNXTXT_VALUE_MAP);
	ck_assert_int_eq(OnnxValue_ElemType(m), 8);
	ck_assert_uint_eq(OnnxValue_Count(m), 2);
	const OnnxValue *keys = OnnxValue_Item(m, 0), *vals = OnnxValue_Item(m, 1);
	ck_assert_str_eq(OnnxValue_String(keys, 0, NULL), "b");
	ck_assert(((const float *)OnnxValue_Data(vals))[1] == 1.0f);
	OnnxError verr;
	OnnxValue *same = value("map(string, float) {\"a\": 1, \"b\": 2}"), *other = value("map(string, float) {\"a\": 1}");
	ck_assert_msg(OnnxValue_Equal(same, m, 0, 0, &verr) == ONNXTXT_OK, "%s", verr.message);
	ck_assert_int_eq(OnnxValue_Equal(other, m, 0, 0, &verr), ONNXTXT_ERR_MISMATCH);
	ck_assert_str_eq(verr.message, "got map(string, float) of 1, expected map(string, float) of 2");
	OnnxValue_Free(other);
	OnnxValue_Free(same);
	OnnxValue_Free(m);
}
END_TEST

START_TEST(equal_reports_first_mismatch)
{
	OnnxValue *a = value("float[2, 2] {1, 2, 3, 4}"), *b = value("float[2, 2] {1, 2, 3.5, 4}");
	OnnxValue *c = value("float[4] {1, 2, 3, 4}"), *n1 = value("float {nan}"), *n2 = value("float {nan}");
	OnnxError verr;
	ck_assert_int_eq(OnnxValue_Equal(a, b, 1e-3, 0, &verr), ONNXTXT_ERR_MISMATCH);
	ck_assert_int_eq(verr.code, ONNXTXT_ERR_MISMATCH);
	ck_assert_str_eq(verr.message, "element [1,0] (index 2): got 3, expected 3.5");
	ck_assert_int_eq(OnnxValue_Equal(a, b, 0.2, 0, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxValue_Equal(a, c, 1, 1, &verr), ONNXTXT_ERR_MISMATCH);
	ck_assert_str_eq(verr.message, "got float[2,2], expected float[4]");
	ck_assert_int_eq(OnnxValue_Equal(n1, n2, 0, 0, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxValue_Equal(n1, a, 0, 0, NULL), ONNXTXT_ERR_MISMATCH);
	ck_assert_int_eq(OnnxValue_Equal(NULL, a, 0, 0, &verr), ONNXTXT_ERR_ARG);
	ck_assert_str_eq(verr.message, "invalid argument: a value is NULL");
	OnnxValue_Free(a), OnnxValue_Free(b), OnnxValue_Free(c), OnnxValue_Free(n1), OnnxValue_Free(n2);
}
END_TEST

START_TEST(new_tensor_api)
{
	const char *strs[2] = {"x", "yz"};
	int64_t dims[1] = {2};
	OnnxValue *v;
	ck_assert_int_eq(OnnxValue_NewTensor(8, dims, 1, strs, &v, NULL), ONNXTXT_OK);
	size_t n;
	ck_assert_str_eq(OnnxValue_String(v, 1, &n), "yz");
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(OnnxValue_Count(v), 2);
	OnnxValue_Free(v);
	int64_t huge[3] = {1 << 30, 1 << 30, 1 << 30};
	OnnxError err;
	ck_assert_int_eq(OnnxValue_NewTensor(1, huge, 3, NULL, &v, &err), ONNXTXT_ERR_VALUE);
	ck_assert_str_eq(err.message, "element count exceeds the limit of 2^36");
	int64_t neg[1] = {-1};
	ck_assert_int_eq(OnnxValue_NewTensor(1, neg, 1, NULL, &v, &err), ONNXTXT_ERR_VALUE);
}
END_TEST

/* ---- sessions ------------------------------------------------------------------------------ */

static OnnxSession *session(const char *text, Onnx__ModelProto **m)
{
	*m = tu_model(text);
	OnnxSession *s;
	OnnxError err;
	if (OnnxSession_New(*m, &s, &err) != ONNXTXT_OK)
		ck_abort_msg("%s", err.message);
	return s;
}

/* The error of making a session for a model. */
static const char *session_error(const char *text, OnnxStatus *code)
{
	static OnnxError err;
	Onnx__ModelProto *m = tu_model(text);
	OnnxSession *s = NULL;
	*code = OnnxSession_New(m, &s, &err);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	return *code ? err.message : "";
}

#define HEAD "<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"

static const struct structural {
	const char *model;
	OnnxStatus code;
	const char *error;
} structural[] = {
	{HEAD "g (float x) => (float y) { y = Identity(z) }", ONNXTXT_ERR_EVAL,
	 "graph.node[0] (Identity): input 'z' is not defined"},
	{HEAD "g (float x) => (float y) { y = Identity(t) t = Identity(x) }", ONNXTXT_ERR_EVAL,
	 "graph.node[0] (Identity): input 't' is used before node[1] defines it (nodes must be in topological order)"},
	{HEAD "g (float x) => (float y) { y = Identity(x) y = Identity(x) }", ONNXTXT_ERR_EVAL,
	 "graph.node[1] (Identity): output 'y' is already defined (each name is assigned once)"},
	{HEAD "g (float x) => (float y) { [n] y = NoSuchOp(x) }", ONNXTXT_ERR_UNSUPPORTED,
	 "graph.node[0] (NoSuchOp): operator NoSuchOp is not supported"},
	{HEAD "g (float x) => (float y) { y = other.Op(x) }", ONNXTXT_ERR_EVAL,
	 "graph.node[0] (other.Op): domain 'other' is not imported (opset_import)"},
	{HEAD "g (float x) => (float y, float z) { y = Identity(x) }", ONNXTXT_ERR_EVAL,
	 "graph 'g': output 'z' is never computed"},
	{HEAD "g (float x, float x) => (float y) { y = Identity(x) }", ONNXTXT_ERR_EVAL,
	 "graph 'g': input 'x' is declared twice"},
	{HEAD "g (float x) => (float y) { y = local.f(x) }\n"
	      "<domain: \"local\", opset_import: [\"\" : 17, \"local\" : 1]> f (a) => (b) { b = local.f(a) }",
	 ONNXTXT_ERR_LIMIT, NULL},
};

START_TEST(structural_errors)
{
	const struct structural *c = &structural[_i];
	OnnxStatus code;
	const char *msg = session_error(c->model, &code);
	ck_assert_int_eq(code, c->code);
	if (c->error)
		ck_assert_str_eq(msg, c->error);
	else
		ck_assert_msg(strstr(msg, "function calls nest deeper than 64"), "%s", msg);
}
END_TEST

START_TEST(functions_expand_with_attributes)
{
	/* an attribute reference takes the call's value, or the function's default */
	Onnx__ModelProto *m;
	OnnxSession *s = session(HEAD "g (float[2] x) => (int64 y, int64 z) {\n"
				      "  y = local.pick <which = 1> (x)\n"
				      "  z = local.pick (x)\n}\n"
				      "<domain: \"local\", opset_import: [\"\" : 17]>\n"
				      "pick <which: int = 0> (a) => (b) {\n"
				      "  c = Constant <value_int: int = @which> ()\n"
				      "  b = Identity(c)\n}",
				 &m);
	OnnxValue *x = value("float[2] {1, 2}");
	ck_assert_int_eq(OnnxSession_SetInput(s, "x", x, NULL), ONNXTXT_OK);
	OnnxError err;
	ck_assert_msg(OnnxSession_Run(s, &err) == ONNXTXT_OK, "%s", err.message);
	OnnxValue *one = value("int64 {1}"), *zero = value("int64 {0}");
	ck_assert_int_eq(OnnxValue_Equal(OnnxSession_Output(s, 0), one, 0, 0, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxValue_Equal(OnnxSession_Output(s, 1), zero, 0, 0, NULL), ONNXTXT_OK);
	OnnxValue_Free(one), OnnxValue_Free(zero), OnnxValue_Free(x);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

START_TEST(binding_checks_types)
{
	Onnx__ModelProto *m;
	OnnxSession *s = session(HEAD "g (float[2, N] x, seq(int64) q) => (float[2, N] y) { y = Identity(x) }", &m);
	ck_assert_int_eq(OnnxSession_InputKind(s, 0), ONNXTXT_VALUE_TENSOR);
	ck_assert_int_eq(OnnxSession_InputKind(s, 1), ONNXTXT_VALUE_SEQUENCE);
	ck_assert_int_eq(OnnxSession_InputKind(s, 2), 0);
	ck_assert_int_eq(OnnxSession_OutputKind(s, 0), ONNXTXT_VALUE_TENSOR);
	ck_assert_int_eq(OnnxSession_OutputKind(s, 1), 0);
	OnnxError err;
	OnnxValue *ok = value("float[2, 5] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}"), *bad = value("float[3, 1] {1, 2, 3}");
	OnnxValue *wrong = value("int64[2, 1] {1, 2}"), *seq = value("[int64 {1}]"), *badseq = value("[float {1}]");
	ck_assert_int_eq(OnnxSession_SetInput(s, "x", ok, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetInput(s, "x", bad, &err), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(err.message, "input 'x': expected float[2,N], got float[3,1]");
	ck_assert_int_eq(OnnxSession_SetInput(s, "x", wrong, &err), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(err.message, "input 'x': expected float[2,N], got int64[2,1]");
	ck_assert_int_eq(OnnxSession_SetInput(s, "q", seq, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetInput(s, "q", badseq, &err), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(err.message, "input 'q': expected seq(int64), got a sequence of 1");
	ck_assert_int_eq(OnnxSession_SetInput(s, "nope", ok, &err), ONNXTXT_ERR_ARG);
	ck_assert_str_eq(err.message, "the graph has no input named 'nope'");
	ck_assert_int_eq(OnnxSession_Run(s, &err), ONNXTXT_OK);
	OnnxValue_Free(ok), OnnxValue_Free(bad), OnnxValue_Free(wrong), OnnxValue_Free(seq), OnnxValue_Free(badseq);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

START_TEST(outputs_must_fit_their_declared_type)
{
	/* issue 13's Relu declared int64: the run gives float, which must not pass as the result */
	Onnx__ModelProto *m;
	OnnxSession *s = session(HEAD "g (float[2] x) => (int64[2] y) { y = Relu(x) }", &m);
	OnnxValue *x = value("float[2] {1, -2}");
	OnnxError err;
	ck_assert_int_eq(OnnxSession_SetInput(s, "x", x, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_Run(s, &err), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(err.message, "graph.output[0]: 'y' is declared int64[2], the run gave float[2]");
	ck_assert_str_eq(err.path, "graph.output[0]");
	OnnxValue_Free(x);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

START_TEST(missing_input_and_initializer_default)
{
	Onnx__ModelProto *m;
	OnnxSession *s = session(HEAD "g (float[1] x, float[1] w) => (float[1] y)\n"
				      "<float[1] w = {5}> { y = Identity(w) }",
				 &m);
	OnnxError err;
	ck_assert_int_eq(OnnxSession_Run(s, &err), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(err.message, "input 'x' has no value");
	OnnxValue *x = value("float[1] {1}"), *five = value("float[1] {5}"), *six = value("float[1] {6}");
	ck_assert_int_eq(OnnxSession_SetInput(s, "x", x, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_Run(s, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxValue_Equal(OnnxSession_Output(s, 0), five, 0, 0, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetInput(s, "w", six, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_Run(s, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxValue_Equal(OnnxSession_Output(s, 0), six, 0, 0, NULL), ONNXTXT_OK);
	OnnxValue_Free(x), OnnxValue_Free(five), OnnxValue_Free(six);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

/* A session checks each node's attributes against the operator's schema at the imported
 * opset: an unknown one (a misspelling, or one a later opset brought), a mistyped one, a
 * missing required one are refused with the node named, rather than ignored at run time. */
START_TEST(sessions_check_attributes_against_the_schema)
{
	OnnxStatus code;
	ck_assert_str_eq(session_error(HEAD "g (float[2] x) => (float[2] y) { [act] y = LeakyRelu <alpah = 0.5> (x) }", &code),
			 "graph.node[0] (LeakyRelu): unknown attribute 'alpah' (LeakyRelu has none such at opset 17; "
			 "did you mean 'alpha'?)");
	ck_assert_int_eq(code, ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(session_error("<ir_version: 8, opset_import: [\"\" : 11]>\n"
				       "g (float[3] x, int64[1] i, float[1] u) => (float[3] y) "
				       "{ y = ScatterElements <reduction = \"add\"> (x, i, u) }", &code),
			 "graph.node[0] (ScatterElements): unknown attribute 'reduction' (ScatterElements has none such at "
			 "opset 11)");
	ck_assert_str_eq(session_error(HEAD "g (float[2] x) => (float[2] y) { y = LeakyRelu <alpha = 1> (x) }", &code),
			 "graph.node[0] (LeakyRelu): attribute 'alpha' must be float, not int");
	ck_assert_str_eq(session_error(HEAD "g (float[2] a) => (float y) { y = Concat (a, a) }", &code),
			 "graph.node[0] (Concat): required attribute 'axis' is missing");
	ck_assert_str_eq(session_error("<ir_version: 8, opset_import: [\"\" : 19]>\n"
				       "g (float[2] x) => (float[2] y) { y = Gelu (x) }", &code),
			 "graph.node[0] (Gelu): the operator first appears in opset 20, but the model imports opset 19");
}
END_TEST

/* An attribute left out takes the schema's default at the imported opset. */
START_TEST(attribute_defaults_come_from_the_schema)
{
	ox_k k = {.schema = ox_schema_find("", "LeakyRelu", 16)};
	ck_assert(ox_attr_float(&k, "alpha", 99.0f) == 0.01f);
	k.schema = ox_schema_find("", "DepthToSpace", 13);
	ck_assert_str_eq(ox_attr_str(&k, "mode", "XYZ", NULL), "DCR");
	k.schema = ox_schema_find("", "MeanVarianceNormalization", 13);
	const int64_t *axes;
	ck_assert_int_eq(ox_attr_ints(&k, "axes", &axes), 3);
	ck_assert_int_eq(axes[1], 2);
	/* no schema (a kernel test's bare node), or no default there: the kernel's own */
	k.schema = NULL;
	ck_assert(ox_attr_float(&k, "alpha", 99.0f) == 99.0f);
	k.schema = ox_schema_find("", "Concat", 13);
	ck_assert_int_eq(ox_attr_int(&k, "axis", -7), -7);
}
END_TEST

START_TEST(kernel_errors_name_the_node)
{
	Onnx__ModelProto *m;
	OnnxSession *s = session(HEAD "g (float[2] x) => (float y) { [make] y = Constant () }", &m);
	OnnxError err;
	OnnxValue *x = value("float[2] {1, 2}");
	ck_assert_int_eq(OnnxSession_SetInput(s, "x", x, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_Run(s, &err), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(err.message, "graph.node[0] (Constant): one of the value attributes is required");
	OnnxValue_Free(x);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

/* Evaluator errors carry the node's path (as check writes it) in err.path, and
 * OnnxModel_LocateText places them in the text, at the node's op type. */
START_TEST(errors_carry_the_node_path)
{
	const char *text = HEAD "g (float[3] x) => (float[1] y) {\n"
			   "  idx = Constant <value = int64[1] {7}> ()\n"
			   "  y = Gather <axis = 0> (x, idx)\n}";
	Onnx__ModelProto *m;
	OnnxSession *s = session(text, &m);
	OnnxError err;
	OnnxValue *x = value("float[3] {1, 2, 3}");
	ck_assert_int_eq(OnnxSession_SetInput(s, "x", x, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_Run(s, &err), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(err.path, "graph.node[1]");
	ck_assert_uint_eq(err.line, 0);
	ck_assert_int_eq(OnnxModel_LocateText(text, strlen(text), &err), ONNXTXT_OK);
	ck_assert_uint_eq(err.line, 4);
	ck_assert_uint_eq(err.column, 7);
	ck_assert_uint_eq(err.length, 6);
	ck_assert_uint_eq(err.offset, (size_t)(strstr(text, "Gather") - text));
	ck_assert_str_eq(err.message, "graph.node[1] (Gather): index 7 is out of range for axis 0 of dim 3 (inputs: "
				      "float[3], int64[1])");
	/* a path the text does not have, or no path: err is left as it was */
	OnnxError other = err;
	strcpy(other.path, "graph.node[9]");
	other.line = 0;
	ck_assert_int_eq(OnnxModel_LocateText(text, strlen(text), &other), ONNXTXT_ERR_VALUE);
	ck_assert_uint_eq(other.line, 0);
	other.path[0] = '\0';
	ck_assert_int_eq(OnnxModel_LocateText(text, strlen(text), &other), ONNXTXT_ERR_VALUE);
	ck_assert_int_eq(OnnxModel_LocateText(text, strlen(text), NULL), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxModel_LocateText(NULL, 5, &other), ONNXTXT_ERR_ARG);
	OnnxValue_Free(x);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	/* a planning error too; and a successful run has no path */
	OnnxSession *t;
	Onnx__ModelProto *u = tu_model(HEAD "g (float[2] x) => (float[2] y) { t = Relu (x)\n y = Identity (z) }");
	ck_assert_int_eq(OnnxSession_New(u, &t, &err), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(err.path, "graph.node[1]");
	OnnxProto_Free(u);
}
END_TEST

START_TEST(bitcast_needs_the_same_width)
{
	Onnx__ModelProto *m;
	OnnxSession *s = session("<ir_version: 13, opset_import: [\"\" : 26]>\n"
				 "g (float[2] x) => (int64[2] y) { y = BitCast <to = 7> (x) }",
				 &m);
	OnnxError err;
	OnnxValue *x = value("float[2] {1, 2}");
	ck_assert_int_eq(OnnxSession_SetInput(s, "x", x, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_Run(s, &err), ONNXTXT_ERR_EVAL);
	ck_assert_str_eq(err.message, "graph.node[0] (BitCast): attribute 'to' must name a non-string type of 32 bits, like "
				      "the input's float (inputs: float[2])");
	OnnxValue_Free(x);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
}
END_TEST

START_TEST(case_lines)
{
	const char *text = "# a case\n#@ input X = float[2] {1, 2}\n  #@ expect \"y z\" = int64 {3} rtol=0 atol=0.5\n"
			   "#@ raw\n";
	OnnxCaseItem *items;
	size_t n;
	OnnxError err;
	ck_assert_int_eq(OnnxCase_Parse(text, strlen(text), &items, &n, &err), ONNXTXT_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(items[0].name, "X");
	ck_assert_int_eq(items[0].expect, 0);
	ck_assert_uint_eq(items[0].line, 2);
	ck_assert_str_eq(items[1].name, "y z");
	ck_assert(items[1].rtol == 0 && items[1].atol == 0.5);
	OnnxCase_Free(items, n);
	const char *bad = "#@ expect Y = float {1} tol=3\n";
	ck_assert_int_eq(OnnxCase_Parse(bad, strlen(bad), &items, &n, &err), ONNXTXT_ERR_SYNTAX);
	ck_assert_str_eq(err.message, "unexpected text after the value (only rtol=R and atol=A may follow)");
	ck_assert_uint_eq(err.column, 25);
	const char *bad2 = "\n#@ input X float {1}\n";
	ck_assert_int_eq(OnnxCase_Parse(bad2, strlen(bad2), &items, &n, &err), ONNXTXT_ERR_SYNTAX);
	ck_assert_uint_eq(err.line, 2);
	ck_assert_str_eq(err.message, "expected '=' after the name");
}
END_TEST

/* ---- the kernel registry ------------------------------------------------------------------ */

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
	/* Upsample-1 (width_scale, height_scale), 7 (scales), 9 (scales an input) */
	ck_assert_ptr_eq(at_opset("", "Upsample", 6), ox_op_Upsample_1);
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

/* The other way round: every schema of the table, in every domain, version by version, runs
 * (issue 14: every operator and every version). */
START_TEST(every_schema_has_a_kernel)
{
	size_t n;
	const ox_schema *all = ox_schema_all(&n);
	for (size_t i = 0; i < n; i++) {
		const ox_op *o = ox_op_find(all[i].domain, all[i].name, all[i].since, NULL);
		REQUIRE(o != NULL, "%s%s%s version %d has no kernel", all[i].domain, *all[i].domain ? "." : "",
			all[i].name, all[i].since);
	}
	ck_assert_uint_gt(n, 600);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eval");
	TCase *t = tcase_create("values");
	tcase_add_test(t, f16_round_trips);
	tcase_add_test(t, bf16_round_trips);
	tcase_add_loop_test(t, f8_round_trips, 0, 4);
	tcase_add_test(t, f8_saturation);
	tcase_add_loop_test(t, value_text_round_trips, 0, sizeof value_texts / sizeof value_texts[0]);
	tcase_add_loop_test(t, value_text_errors, 0, sizeof bad_values / sizeof bad_values[0]);
	tcase_add_test(t, wide_value_prints_like_a_short_one);
	tcase_add_loop_test(t, named_values_read_by_content, 0, sizeof named_texts / sizeof named_texts[0]);
	tcase_add_test(t, named_value_errors);
	tcase_add_test(t, equal_reports_first_mismatch);
	tcase_add_test(t, map_value_api);
	tcase_add_test(t, new_tensor_api);
	tcase_add_test(t, case_lines);
	suite_add_tcase(s, t);
	t = tcase_create("sessions");
	tcase_add_loop_test(t, structural_errors, 0, sizeof structural / sizeof structural[0]);
	tcase_add_test(t, functions_expand_with_attributes);
	tcase_add_test(t, binding_checks_types);
	tcase_add_test(t, outputs_must_fit_their_declared_type);
	tcase_add_test(t, missing_input_and_initializer_default);
	tcase_add_test(t, kernel_errors_name_the_node);
	tcase_add_test(t, sessions_check_attributes_against_the_schema);
	tcase_add_test(t, attribute_defaults_come_from_the_schema);
	tcase_add_test(t, errors_carry_the_node_path);
	tcase_add_test(t, bitcast_needs_the_same_width);
	suite_add_tcase(s, t);
	t = tcase_create("registry");
	tcase_add_test(t, version_ranges);
	tcase_add_test(t, older_than_the_first_entry);
	tcase_add_test(t, lists_agree_with_the_schemas);
	tcase_add_test(t, every_schema_has_a_kernel);
	suite_add_tcase(s, t);
	return tu_run(s);
}
