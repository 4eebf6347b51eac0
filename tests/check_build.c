/* Unit tests for the builders (src/text/build.c, attr.c, tensor.c) through every parser entry
 * point: the protobuf-c structs are checked field by field, presence included, following
 * SYNTAX.md §2 and §2.12 and the deliberate differences of SYNTAX-DECISIONS.md (P2-P4).
 * Where a message's bytes are easy to write down, they are compared with hand-packed
 * ones too, which pins field presence and packing together. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define DT(x) ONNX__TENSOR_PROTO__DATA_TYPE__##x
#define AT(x) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x
#define TP_TENSOR ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE
#define DIM_VALUE ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
#define DIM_PARAM ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
#define DIM_NONE ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET

/* ---- helpers --------------------------------------------------------------------------- */

/* Everything parsed in a test is freed after it (LeakSanitizer checks OnnxProto_Free). */
static void *parsed[256];
static int nparsed;

static void free_parsed(void)
{
	for (int i = 0; i < nparsed; i++)
		OnnxProto_Free(parsed[i]);
	nparsed = 0;
}

static void *parse_n(const char *kind, const char *text, size_t len)
{
	void *out = NULL;
	OnnxError err;
	OnnxStatus st = tu_parse(kind, text, len, &out, &err);
	ck_assert_msg(st == ONNXTXT_OK, "%s '%s': %u:%u: %s", kind, text, err.line, err.column, err.message);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_lt(nparsed, 256);
	parsed[nparsed++] = out;
	return out;
}

static void *parse(const char *kind, const char *text)
{
	return parse_n(kind, text, strlen(text));
}

#define MODEL(t) ((Onnx__ModelProto *)parse("model", (t)))
#define GRAPH(t) ((Onnx__GraphProto *)parse("graph", (t)))
#define FUNC(t) ((Onnx__FunctionProto *)parse("function", (t)))
#define NODE(t) ((Onnx__NodeProto *)parse("node", (t)))
#define NODES(t) ((Onnx__GraphProto *)parse("nodes", (t)))
#define TYPE(t) ((Onnx__TypeProto *)parse("type", (t)))
#define TENSOR(t) ((Onnx__TensorProto *)parse("tensor", (t)))
#define ATTR(t) ((Onnx__AttributeProto *)parse("attribute", (t)))
#define VI(t) ((Onnx__ValueInfoProto *)parse("value_info", (t)))

static void fails(const char *kind, const char *text)
{
	void *out = NULL;
	OnnxError err;
	OnnxStatus st = tu_parse(kind, text, strlen(text), &out, &err);
	if (st == ONNXTXT_OK)
		OnnxProto_Free(out);
	ck_assert_msg(st != ONNXTXT_OK, "%s '%s' parsed, but is an error", kind, text);
	ck_assert_uint_gt(err.line, 0); /* with a position (P2) */
}

static void str_is(const char *got, const char *want, const char *what)
{
	ck_assert_msg(got != NULL, "%s is absent, want \"%s\"", what, want);
	ck_assert_msg(strcmp(got, want) == 0, "%s is \"%s\", want \"%s\"", what, got, want);
}
#define STR(got, want) str_is((got), (want), #got)
#define ABSENT(p) ck_assert_msg((p) == NULL, "%s is present, want absent", #p)

static void bytes_is(ProtobufCBinaryData b, const char *want, size_t n, const char *what)
{
	ck_assert_msg(b.len == n && (n == 0 || memcmp(b.data, want, n) == 0), "%s: %zu bytes '%.*s', want '%.*s'",
		      what, b.len, (int)b.len, b.data, (int)n, want);
}
#define BYTES(b, lit) bytes_is((b), (lit), sizeof(lit) - 1, #b)

static void packed_is(const void *msg, const unsigned char *want, size_t n)
{
	size_t len;
	unsigned char *got = tu_pack(msg, &len);
	char hex[1024] = "";
	for (size_t i = 0; i < len && i < 300; i++)
		sprintf(hex + strlen(hex), "%02x ", got[i]);
	int same = len == n && memcmp(got, want, n) == 0;
	free(got);
	ck_assert_msg(same, "packed %s: %s(%zu bytes, want %zu)", ((const ProtobufCMessage *)msg)->descriptor->name,
		      hex, len, n);
}
#define PACKED(msg, ...)                                                     \
	do {                                                                 \
		static const unsigned char want_[] = {__VA_ARGS__};          \
		packed_is((msg), want_, sizeof want_);                       \
	} while (0)

static void names_are(char **got, size_t n, const char *const *want, size_t k, const char *what)
{
	ck_assert_msg(n == k, "%s: %zu names, want %zu", what, n, k);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(got[i] != NULL, "%s[%zu] is absent", what, i);
		ck_assert_msg(strcmp(got[i], want[i]) == 0, "%s[%zu] is \"%s\", want \"%s\"", what, i, got[i], want[i]);
	}
}
#define NAMES(msg, field, ...)                                                                        \
	do {                                                                                          \
		static const char *const want_[] = {__VA_ARGS__};                                     \
		names_are((msg)->field, (msg)->n_##field, want_, sizeof want_ / sizeof *want_, #field); \
	} while (0)
#define NO_NAMES(msg, field) ck_assert_uint_eq((msg)->n_##field, 0)

/* A tensor type: element type, and the shape's presence and rank. */
static const Onnx__TypeProto__Tensor *tensor_type(const Onnx__TypeProto *tp, int elem)
{
	ck_assert_ptr_nonnull(tp);
	ck_assert_int_eq(tp->value_case, TP_TENSOR);
	const Onnx__TypeProto__Tensor *t = tp->tensor_type;
	ck_assert_ptr_nonnull(t);
	ck_assert_msg(t->has_elem_type && t->elem_type == elem, "elem_type %d (has %d), want %d", t->elem_type,
		      t->has_elem_type, elem);
	ABSENT(tp->denotation);
	return t;
}

static void int32s_are(const Onnx__TensorProto *t, const int32_t *want, size_t n)
{
	ck_assert_msg(t->n_int32_data == n, "%zu int32_data values, want %zu", t->n_int32_data, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(t->int32_data[i] == want[i], "int32_data[%zu] = %d (0x%x), want %d (0x%x)", i,
			      t->int32_data[i], (unsigned)t->int32_data[i], want[i], (unsigned)want[i]);
}
#define INT32S(t, ...) int32s_are((t), (const int32_t[]){__VA_ARGS__}, sizeof((const int32_t[]){__VA_ARGS__}) / 4)

/* Only the named data field holds values; the others, raw_data and external data are
 * absent. */
enum field { F_INT32 = 1, F_INT64 = 2, F_UINT64 = 4, F_FLOAT = 8, F_DOUBLE = 16, F_STRING = 32 };

static void only_field(const Onnx__TensorProto *t, int field)
{
	ck_assert_msg(!t->n_int32_data || field == F_INT32, "int32_data set");
	ck_assert_msg(!t->n_int64_data || field == F_INT64, "int64_data set");
	ck_assert_msg(!t->n_uint64_data || field == F_UINT64, "uint64_data set");
	ck_assert_msg(!t->n_float_data || field == F_FLOAT, "float_data set");
	ck_assert_msg(!t->n_double_data || field == F_DOUBLE, "double_data set");
	ck_assert_msg(!t->n_string_data || field == F_STRING, "string_data set");
	ck_assert(!t->has_raw_data);
	ck_assert_uint_eq(t->n_external_data, 0);
	ck_assert(!t->has_data_location);
	ABSENT(t->segment);
	ABSENT(t->doc_string);
	ck_assert_uint_eq(t->n_metadata_props, 0);
}

static void dims_are(const Onnx__TensorProto *t, const int64_t *want, size_t n)
{
	ck_assert_msg(t->n_dims == n, "%zu dims, want %zu", t->n_dims, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(t->dims[i] == want[i], "dims[%zu] = %lld", i, (long long)t->dims[i]);
}
#define DIMS(t, ...) dims_are((t), (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / 8)

static void is_tensor(const Onnx__TensorProto *t, const char *name, int dtype)
{
	ck_assert_ptr_nonnull(t);
	str_is(t->name, name, "tensor name");
	ck_assert_msg(t->has_data_type && t->data_type == dtype, "data_type %d, want %d", t->data_type, dtype);
}

static uint32_t fbits(float f)
{
	uint32_t b;
	memcpy(&b, &f, 4);
	return b;
}

/* An attribute's name and type (0: the type is absent), and which value fields are set. */
static void is_attr(const Onnx__AttributeProto *a, const char *name, int type)
{
	ck_assert_ptr_nonnull(a);
	str_is(a->name, name, "attribute name");
	if (type)
		ck_assert_msg(a->has_type && (int)a->type == type, "type %d (has %d), want %d", a->type, a->has_type, type);
	else
		ck_assert_msg(!a->has_type, "type %d is present, want absent", a->type);
	ABSENT(a->doc_string);
	ABSENT(a->sparse_tensor);
	ck_assert_uint_eq(a->n_sparse_tensors, 0);
}

/* The value fields of an attribute other than the one that holds its value are unset. */
enum { V_F = 1, V_I = 2, V_S = 4, V_T = 8, V_G = 16, V_TP = 32, V_FLOATS = 64, V_INTS = 128, V_STRINGS = 256,
       V_TENSORS = 512, V_GRAPHS = 1024, V_TPS = 2048, V_REF = 4096 };

static void only_value(const Onnx__AttributeProto *a, int v)
{
	ck_assert_msg(!a->has_f == !(v & V_F), "has_f = %d", a->has_f);
	ck_assert_msg(!a->has_i == !(v & V_I), "has_i = %d", a->has_i);
	ck_assert_msg(!a->has_s == !(v & V_S), "has_s = %d", a->has_s);
	ck_assert_msg(!a->t == !(v & V_T), "t");
	ck_assert_msg(!a->g == !(v & V_G), "g");
	ck_assert_msg(!a->tp == !(v & V_TP), "tp");
	ck_assert_msg(!a->n_floats || (v & V_FLOATS), "floats");
	ck_assert_msg(!a->n_ints || (v & V_INTS), "ints");
	ck_assert_msg(!a->n_strings || (v & V_STRINGS), "strings");
	ck_assert_msg(!a->n_tensors || (v & V_TENSORS), "tensors");
	ck_assert_msg(!a->n_graphs || (v & V_GRAPHS), "graphs");
	ck_assert_msg(!a->n_type_protos || (v & V_TPS), "type_protos");
	ck_assert_msg(!a->ref_attr_name == !(v & V_REF), "ref_attr_name");
}

/* ---- model (§2.2, §2.3) ------------------------------------------------------------------ */

START_TEST(model_without_header)
{
	Onnx__ModelProto *m = MODEL("g () => () {}");
	ck_assert(!m->has_ir_version);
	ck_assert(!m->has_model_version);
	ck_assert_uint_eq(m->n_opset_import, 0);
	ABSENT(m->producer_name);
	ABSENT(m->producer_version);
	ABSENT(m->domain);
	ABSENT(m->doc_string);
	ck_assert_uint_eq(m->n_metadata_props, 0);
	ck_assert_uint_eq(m->n_functions, 0);
	ck_assert_uint_eq(m->n_training_info, 0);
	ck_assert_uint_eq(m->n_configuration, 0);
	ck_assert_ptr_nonnull(m->graph);
	STR(m->graph->name, "g");
	PACKED(m, 0x3a, 0x03, 0x12, 0x01, 'g'); /* graph { name: "g" } and nothing else */
}
END_TEST

START_TEST(model_full_header)
{
	Onnx__ModelProto *m = MODEL("<ir_version: 8, opset_import: [\"\" : 18, \"com.microsoft\": 1], producer_name: "
				    "\"onnxtxt\", producer_version: \"1.0\", domain: \"ai.test\", model_version: 3, "
				    "doc_string: \"doc\", metadata_props: [\"k\": \"v\", \"a\": \"\"]>\n"
				    "g () => () {}");
	ck_assert(m->has_ir_version && m->ir_version == 8);
	ck_assert(m->has_model_version && m->model_version == 3);
	ck_assert_uint_eq(m->n_opset_import, 2);
	STR(m->opset_import[0]->domain, "");
	ck_assert(m->opset_import[0]->has_version && m->opset_import[0]->version == 18);
	STR(m->opset_import[1]->domain, "com.microsoft");
	ck_assert(m->opset_import[1]->has_version && m->opset_import[1]->version == 1);
	STR(m->producer_name, "onnxtxt");
	STR(m->producer_version, "1.0");
	STR(m->domain, "ai.test");
	STR(m->doc_string, "doc");
	ck_assert_uint_eq(m->n_metadata_props, 2);
	STR(m->metadata_props[0]->key, "k");
	STR(m->metadata_props[0]->value, "v");
	STR(m->metadata_props[1]->key, "a");
	STR(m->metadata_props[1]->value, "");
}
END_TEST

/* Scalars: the last wins; opset_import and metadata_props append (§2.2). */
START_TEST(model_header_repetition)
{
	Onnx__ModelProto *m = MODEL(
		"<ir_version: 7, producer_name: \"a\", opset_import: [\"\": 17], metadata_props: [\"m1\": \"1\"], "
		"model_version: 1, doc_string: \"d1\", domain: \"x\", producer_version: \"p1\", ir_version: 9, "
		"producer_name: \"b\", opset_import: [\"ai.onnx.ml\": 3, \"x\": 1], metadata_props: [\"m2\": \"2\"], "
		"model_version: 2, doc_string: \"d2\", domain: \"y\", producer_version: \"p2\", opset_import: []> "
		"g () => () {}");
	ck_assert_int_eq(m->ir_version, 9);
	ck_assert_int_eq(m->model_version, 2);
	STR(m->producer_name, "b");
	STR(m->producer_version, "p2");
	STR(m->domain, "y");
	STR(m->doc_string, "d2");
	ck_assert_uint_eq(m->n_opset_import, 3);
	STR(m->opset_import[0]->domain, "");
	ck_assert_int_eq(m->opset_import[0]->version, 17);
	STR(m->opset_import[1]->domain, "ai.onnx.ml");
	STR(m->opset_import[2]->domain, "x");
	ck_assert_uint_eq(m->n_metadata_props, 2);
	STR(m->metadata_props[0]->key, "m1");
	STR(m->metadata_props[1]->key, "m2");
}
END_TEST

/* Empty values are set; empty lists add nothing; strings keep their bytes. */
START_TEST(model_header_values)
{
	Onnx__ModelProto *m = MODEL("<opset_import: [], metadata_props: [], producer_name: \"\"> g () => () {}");
	ck_assert_uint_eq(m->n_opset_import, 0);
	ck_assert_uint_eq(m->n_metadata_props, 0);
	STR(m->producer_name, "");
	ck_assert(!m->has_ir_version);
	PACKED(m, 0x12, 0x00, 0x3a, 0x03, 0x12, 0x01, 'g');
	m = MODEL("<ir_version: 8> g () => () {}");
	PACKED(m, 0x08, 0x08, 0x3a, 0x03, 0x12, 0x01, 'g');
	m = MODEL("<doc_string: \"a\\\"b\\\\c\\nd\xe4\xb8\xad\", opset_import: [\"x\" : -1], ir_version: "
		  "9223372036854775807> g () => () {}");
	STR(m->doc_string, "a\"b\\cnd\xe4\xb8\xad");
	ck_assert_int_eq(m->opset_import[0]->version, -1);
	ck_assert_int_eq(m->ir_version, INT64_MAX);
	fails("model", "<> g () => () {}");
	fails("model", "<\"ir_version\": 8> g () => () {}");
	fails("model", "<ir_version: 8,> g () => () {}");
	fails("model", "<ir_version: \"8\"> g () => () {}");
	fails("model", "<opset_import: [x: 1]> g () => () {}");
	fails("model", "<overload: \"x\"> g () => () {}");
	fails("model", "<ir_version: 1.5> g () => () {}");
	fails("model", "<IR_VERSION: 8> g () => () {}");
	fails("model", "<opset_import: ['': 1]> g () => () {}");
}
END_TEST

START_TEST(model_functions)
{
	Onnx__ModelProto *m = MODEL("g () => () {}\nf1 () => () {}\n<domain: \"d\"> f2 (x) => (y) { y = Relu(x) }");
	ck_assert_uint_eq(m->n_functions, 2);
	STR(m->functions[0]->name, "f1");
	ABSENT(m->functions[0]->domain);
	STR(m->functions[1]->name, "f2");
	STR(m->functions[1]->domain, "d");
	ck_assert_uint_eq(m->functions[1]->n_node, 1);
	fails("model", "g () => () {} junk");
	ck_assert_uint_eq(MODEL("# c\n g () => () {}\n# trailing comment\n \t\r\n")->n_functions, 0);
	fails("model", "g () => () {} g2 () => () {} }");
}
END_TEST

/* ---- graph (§2.4) ------------------------------------------------------------------------ */

START_TEST(graph_minimal)
{
	Onnx__GraphProto *g = GRAPH("g () => () {}");
	STR(g->name, "g");
	ck_assert_uint_eq(g->n_input, 0);
	ck_assert_uint_eq(g->n_output, 0);
	ck_assert_uint_eq(g->n_node, 0);
	ck_assert_uint_eq(g->n_initializer, 0);
	ck_assert_uint_eq(g->n_value_info, 0);
	ck_assert_uint_eq(g->n_sparse_initializer, 0);
	ck_assert_uint_eq(g->n_quantization_annotation, 0);
	ck_assert_uint_eq(g->n_metadata_props, 0);
	ABSENT(g->doc_string);
	PACKED(g, 0x12, 0x01, 'g');
	g = GRAPH("g => (y) {}"); /* the input list may be omitted */
	ck_assert_uint_eq(g->n_input, 0);
	ck_assert_uint_eq(g->n_output, 1);
	fails("graph", "() => () {}"); /* the name cannot be omitted at top level */
	g = GRAPH("g () => () <> {}");
	ck_assert_uint_eq(g->n_value_info, 0);
	ck_assert_uint_eq(g->n_initializer, 0);
}
END_TEST

/* The name is always set; keywords are plain names here (§1.7). */
START_TEST(graph_names)
{
	Onnx__GraphProto *g = GRAPH("\"\" () => () {}");
	STR(g->name, "");
	PACKED(g, 0x12, 0x00);
	STR(GRAPH("\"a b.c\" () => () {}")->name, "a b.c");
	STR(GRAPH("\"q\\\"r\" () => () {}")->name, "q\"r");
	static const char *const words[] = {"float", "seq", "map", "inf", "NaN", "infinity", "domain", "ir_version",
					    "opaque", "int4", "overload", "sparse_tensor"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		char text[64];
		snprintf(text, sizeof text, "%s () => () {}", words[i]);
		STR(GRAPH(text)->name, words[i]);
	}
}
END_TEST

/* The example of §2.4: inputs x, s; initializers s, b (in that order); value_info t. */
START_TEST(graph_example)
{
	Onnx__GraphProto *g = GRAPH("g (float[N] x, int64[2] s = {1, -1}) => (float[M] y) <float[3] b = {1,2,3}, "
				    "float[N] t> {}");
	ck_assert_uint_eq(g->n_input, 2);
	STR(g->input[0]->name, "x");
	const Onnx__TypeProto__Tensor *x = tensor_type(g->input[0]->type, DT(FLOAT));
	ck_assert_uint_eq(x->shape->n_dim, 1);
	STR(x->shape->dim[0]->dim_param, "N");
	STR(g->input[1]->name, "s");
	tensor_type(g->input[1]->type, DT(INT64));
	ck_assert_uint_eq(g->n_output, 1);
	STR(g->output[0]->name, "y");
	ck_assert_uint_eq(g->n_initializer, 2);
	Onnx__TensorProto *s = g->initializer[0], *b = g->initializer[1];
	is_tensor(s, "s", DT(INT64));
	DIMS(s, 2);
	only_field(s, F_INT64);
	ck_assert_uint_eq(s->n_int64_data, 2);
	ck_assert(s->int64_data[0] == 1 && s->int64_data[1] == -1);
	is_tensor(b, "b", DT(FLOAT));
	DIMS(b, 3);
	only_field(b, F_FLOAT);
	ck_assert_uint_eq(b->n_float_data, 3);
	ck_assert(b->float_data[0] == 1 && b->float_data[1] == 2 && b->float_data[2] == 3);
	ck_assert_uint_eq(g->n_value_info, 1);
	STR(g->value_info[0]->name, "t");
	tensor_type(g->value_info[0]->type, DT(FLOAT));
}
END_TEST

/* Input-list initializers come first, then those of the '<...>' list, each in text order;
 * '<...>' initializers are not value_infos, input-list ones are also inputs. */
START_TEST(graph_initializer_order)
{
	Onnx__GraphProto *g = GRAPH("g (float[1] a = {1}, x, float[1] c = {2}) => (y) <float[1] d = {3}, t, "
				    "float[1] e = {4}, float u> { y = Identity(x) }");
	ck_assert_uint_eq(g->n_initializer, 4);
	static const char *const want[] = {"a", "c", "d", "e"};
	for (int i = 0; i < 4; i++) {
		STR(g->initializer[i]->name, want[i]);
		ck_assert(g->initializer[i]->float_data[0] == (float)(i + 1));
	}
	ck_assert_uint_eq(g->n_input, 3);
	STR(g->input[0]->name, "a");
	tensor_type(g->input[0]->type, DT(FLOAT));
	STR(g->input[1]->name, "x");
	ABSENT(g->input[1]->type);
	STR(g->input[2]->name, "c");
	ck_assert_uint_eq(g->n_value_info, 2);
	STR(g->value_info[0]->name, "t");
	ABSENT(g->value_info[0]->type);
	STR(g->value_info[1]->name, "u");
}
END_TEST

/* An initializer without data is accepted (§2.7), as is `<float[2] w = , x>`. */
START_TEST(graph_initializer_without_data)
{
	Onnx__GraphProto *g = GRAPH("g (float[2] v = ) => () <float[2] w = , x> {}");
	ck_assert_uint_eq(g->n_initializer, 2);
	is_tensor(g->initializer[0], "v", DT(FLOAT));
	DIMS(g->initializer[0], 2);
	only_field(g->initializer[0], 0);
	is_tensor(g->initializer[1], "w", DT(FLOAT));
	only_field(g->initializer[1], 0);
	ck_assert_uint_eq(g->n_value_info, 1);
	STR(g->value_info[0]->name, "x");
	fails("graph", "g (x = {1}) => () {}");          /* an initializer needs a type */
	fails("graph", "g () => (float[1] y = {1}) {}"); /* no '=' in outputs */
	fails("graph", "g (float[N] w = ) => () {}");    /* numeric dims only */
	fails("graph", "g (float[] w = {1}) => () {}");  /* known shape */
	fails("graph", "g (seq(float) w = {1}) => () {}");
}
END_TEST

START_TEST(graph_nodes_in_order)
{
	Onnx__GraphProto *g = GRAPH("g (x) => (z) { z = C(b) a = A(x) b = B(a) }");
	ck_assert_uint_eq(g->n_node, 3);
	STR(g->node[0]->op_type, "C");
	STR(g->node[1]->op_type, "A");
	STR(g->node[2]->op_type, "B");
}
END_TEST

/* ---- types and value infos (§2.5, §2.6) ---------------------------------------------------- */

START_TEST(type_rank)
{
	const Onnx__TypeProto__Tensor *t = tensor_type(TYPE("float"), DT(FLOAT));
	ck_assert_ptr_nonnull(t->shape); /* rank 0: present and empty */
	ck_assert_uint_eq(t->shape->n_dim, 0);
	PACKED(TYPE("float"), 0x0a, 0x04, 0x08, 0x01, 0x12, 0x00);
	t = tensor_type(TYPE("float[]"), DT(FLOAT));
	ABSENT(t->shape); /* unknown rank */
	PACKED(TYPE("float[]"), 0x0a, 0x02, 0x08, 0x01);
	PACKED(TYPE("float[?, N, 3]"), 0x0a, 0x0f, 0x08, 0x01, 0x12, 0x0b, 0x0a, 0x00, 0x0a, 0x03, 0x12, 0x01, 'N', 0x0a,
	       0x02, 0x08, 0x03);
}
END_TEST

START_TEST(type_dims)
{
	const Onnx__TypeProto__Tensor *t = tensor_type(TYPE("int8[?, N, \"M + N\", \"\", 3, -1, 0, \"7\", map]"), DT(INT8));
	ck_assert_uint_eq(t->shape->n_dim, 9);
	Onnx__TensorShapeProto__Dimension **d = t->shape->dim;
	ck_assert_int_eq(d[0]->value_case, DIM_NONE);
	ck_assert_int_eq(d[1]->value_case, DIM_PARAM);
	STR(d[1]->dim_param, "N");
	ck_assert_int_eq(d[2]->value_case, DIM_PARAM);
	STR(d[2]->dim_param, "M + N");
	ck_assert_int_eq(d[3]->value_case, DIM_PARAM);
	STR(d[3]->dim_param, "");
	ck_assert_int_eq(d[4]->value_case, DIM_VALUE);
	ck_assert_int_eq(d[4]->dim_value, 3);
	ck_assert_int_eq(d[5]->value_case, DIM_VALUE);
	ck_assert_int_eq(d[5]->dim_value, -1);
	ck_assert_int_eq(d[6]->value_case, DIM_VALUE);
	ck_assert_int_eq(d[6]->dim_value, 0);
	ck_assert_int_eq(d[7]->value_case, DIM_PARAM); /* a quoted number is a name */
	STR(d[7]->dim_param, "7");
	STR(d[8]->dim_param, "map");
	for (int i = 0; i < 9; i++)
		ABSENT(d[i]->denotation);
	fails("type", "float[N,]");
	fails("type", "float[,]");
	fails("type", "float[,N]");
	fails("type", "float[1.5]");
	fails("type", "float[-N]");
	fails("type", "float[9223372036854775808]");
}
END_TEST

/* SYNTAX.md §2.5: every element-type name and its enum value. */
static const struct {
	const char *name;
	int dtype;
} elem_types[] = {
	{"float", 1},          {"uint8", 2},         {"int8", 3},            {"uint16", 4},      {"int16", 5},
	{"int32", 6},          {"int64", 7},         {"string", 8},          {"bool", 9},        {"float16", 10},
	{"double", 11},        {"uint32", 12},       {"uint64", 13},         {"complex64", 14},  {"complex128", 15},
	{"bfloat16", 16},      {"float8e4m3fn", 17}, {"float8e4m3fnuz", 18}, {"float8e5m2", 19}, {"float8e5m2fnuz", 20},
	{"uint4", 21},         {"int4", 22},         {"float4e2m1", 23},     {"float8e8m0", 24}, {"uint2", 25},
	{"int2", 26},
};

START_TEST(type_every_element_type)
{
	char text[64];
	snprintf(text, sizeof text, "%s[2]", elem_types[_i].name);
	tensor_type(TYPE(text), elem_types[_i].dtype);
	snprintf(text, sizeof text, "%s x", elem_types[_i].name);
	Onnx__ValueInfoProto *vi = VI(text);
	STR(vi->name, "x");
	tensor_type(vi->type, elem_types[_i].dtype);
	snprintf(text, sizeof text, "map(%s, float)", elem_types[_i].name);
	const Onnx__TypeProto *m = TYPE(text);
	ck_assert(m->map_type->has_key_type && m->map_type->key_type == elem_types[_i].dtype);
}
END_TEST

START_TEST(type_constructors)
{
	const Onnx__TypeProto *t = TYPE("seq(float[N])");
	ck_assert_int_eq(t->value_case, ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE);
	tensor_type(t->sequence_type->elem_type, DT(FLOAT));
	t = TYPE("optional(seq(map(int64, float[N])))");
	ck_assert_int_eq(t->value_case, ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE);
	const Onnx__TypeProto *s = t->optional_type->elem_type;
	ck_assert_int_eq(s->value_case, ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE);
	const Onnx__TypeProto *m = s->sequence_type->elem_type;
	ck_assert_int_eq(m->value_case, ONNX__TYPE_PROTO__VALUE_MAP_TYPE);
	ck_assert(m->map_type->has_key_type && m->map_type->key_type == DT(INT64));
	tensor_type(m->map_type->value_type, DT(FLOAT));
	t = TYPE("map(string, seq(int8))");
	ck_assert_int_eq(t->map_type->key_type, DT(STRING));
	t = TYPE("map(float, int64)"); /* any element type is a key */
	ck_assert_int_eq(t->map_type->key_type, DT(FLOAT));
	fails("type", "map(seq(float), float)");
	fails("type", "map(float)");

	t = TYPE("sparse_tensor(float[2, N])");
	ck_assert_int_eq(t->value_case, ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE);
	ck_assert(t->sparse_tensor_type->has_elem_type && t->sparse_tensor_type->elem_type == DT(FLOAT));
	ck_assert_uint_eq(t->sparse_tensor_type->shape->n_dim, 2);
	t = TYPE("sparse_tensor(int8)");
	ck_assert_ptr_nonnull(t->sparse_tensor_type->shape);
	ck_assert_uint_eq(t->sparse_tensor_type->shape->n_dim, 0);
	t = TYPE("sparse_tensor(int8[])");
	ABSENT(t->sparse_tensor_type->shape);
	fails("type", "sparse_tensor(seq(float))");

	t = TYPE("opaque()");
	ck_assert_int_eq(t->value_case, ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE);
	ABSENT(t->opaque_type->domain);
	ABSENT(t->opaque_type->name);
	t = TYPE("opaque(a.b.c)"); /* one argument is the name, even dotted */
	ABSENT(t->opaque_type->domain);
	STR(t->opaque_type->name, "a.b.c");
	t = TYPE("opaque(a.b, C)");
	STR(t->opaque_type->domain, "a.b");
	STR(t->opaque_type->name, "C");
	t = TYPE("opaque(x)");
	STR(t->opaque_type->name, "x");
	fails("type", "opaque(a, b.c)");
	fails("type", "opaque(\"x\")");
	fails("type", "FLOAT");
	fails("type", "tensor(float)");
	fails("type", "fp16");
	fails("type", "seq()");
}
END_TEST

START_TEST(value_infos)
{
	Onnx__ValueInfoProto *v = VI("x");
	STR(v->name, "x");
	ABSENT(v->type);
	ABSENT(v->doc_string);
	ck_assert_uint_eq(v->n_metadata_props, 0);
	PACKED(v, 0x0a, 0x01, 'x');
	v = VI("float x");
	tensor_type(v->type, DT(FLOAT));
	PACKED(v, 0x0a, 0x01, 'x', 0x12, 0x06, 0x0a, 0x04, 0x08, 0x01, 0x12, 0x00);
	STR(VI("\"a b\"")->name, "a b");
	STR(VI("\"\"")->name, "");
	v = VI("float float"); /* a type, then a name that is a keyword */
	STR(v->name, "float");
	tensor_type(v->type, DT(FLOAT));
	v = VI("\"float\""); /* untyped, named like a type */
	STR(v->name, "float");
	ABSENT(v->type);
	v = VI("seq(float) s");
	ck_assert_int_eq(v->type->value_case, ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE);
	STR(VI("domain")->name, "domain");
	fails("value_info", "float");
	fails("value_info", "seq");
	fails("value_info", "map");
	fails("graph", "g (float) => () {}");
	fails("graph", "g (seq, x) => () {}");
	Onnx__GraphProto *g = GRAPH("g (\"float\", float float) => () {}");
	ABSENT(g->input[0]->type);
	ck_assert_ptr_nonnull(g->input[1]->type);
}
END_TEST

/* ---- tensors (§2.7, P3, P4) ---------------------------------------------------------------- */

START_TEST(tensor_forms)
{
	Onnx__TensorProto *t = TENSOR("float[2] {1, 2}");
	is_tensor(t, "", DT(FLOAT)); /* the name is set even when not written */
	DIMS(t, 2);
	only_field(t, F_FLOAT);
	ck_assert(t->n_float_data == 2 && t->float_data[0] == 1 && t->float_data[1] == 2);
	PACKED(t, 0x08, 0x02, 0x10, 0x01, 0x22, 0x08, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0x42, 0x00);
	is_tensor(TENSOR("float[2] w {1, 2}"), "w", DT(FLOAT));
	is_tensor(TENSOR("float[2] = {1, 2}"), "", DT(FLOAT));
	is_tensor(TENSOR("float[2] w = {1, 2}"), "w", DT(FLOAT));
	t = TENSOR("float {3}"); /* rank 0 */
	ck_assert_uint_eq(t->n_dims, 0);
	ck_assert(t->n_float_data == 1 && t->float_data[0] == 3);
	t = TENSOR("float[2] w"); /* no data */
	is_tensor(t, "w", DT(FLOAT));
	only_field(t, 0);
	t = TENSOR("float[0] {}");
	DIMS(t, 0);
	only_field(t, 0);
	t = TENSOR("int32[2, 0, 3] {}");
	DIMS(t, 2, 0, 3);
	t = TENSOR("float[-1] w"); /* negative dims are not checked without data */
	DIMS(t, -1);
	Onnx__GraphProto *g = GRAPH("g (float[2] w = {1, 2}) => () {}");
	t = g->initializer[0];
	PACKED(t, 0x08, 0x02, 0x10, 0x01, 0x22, 0x08, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0x42, 0x01, 'w');
}
END_TEST

START_TEST(tensor_external)
{
	Onnx__GraphProto *g = GRAPH("g (float[2] w = [\"location\": \"f.bin\", \"offset\": \"17\"]) => () {}");
	Onnx__TensorProto *t = g->initializer[0];
	is_tensor(t, "w", DT(FLOAT));
	ck_assert(t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
	ck_assert_uint_eq(t->n_external_data, 2);
	STR(t->external_data[0]->key, "location");
	STR(t->external_data[0]->value, "f.bin");
	STR(t->external_data[1]->key, "offset");
	STR(t->external_data[1]->value, "17");
	ck_assert_uint_eq(t->n_float_data, 0);
	ck_assert(!t->has_raw_data);
	t = TENSOR("float[1] w [\"location\": \"f\"]");
	PACKED(t, 0x08, 0x01, 0x10, 0x01, 0x42, 0x01, 'w', 0x6a, 0x0d, 0x0a, 0x08, 'l', 'o', 'c', 'a', 't', 'i', 'o', 'n',
	       0x12, 0x01, 'f', 0x70, 0x01);
	fails("graph", "g (float[2] w = []) => () {}"); /* at least one pair */
	fails("graph", "g (float[2] w = [\"location\"]) => () {}");
}
END_TEST

typedef struct {
	const char *text;
	int dtype, field;
	int n;
	int64_t v[6];
} data_case;

/* §2.7's table, with P3's packing of 4- and 2-bit types (first value in the low bits) and
 * P4's FLOAT literals for the narrow float types. */
static const data_case data_cases[] = {
	{"int8[2] {-128, 127}", DT(INT8), F_INT32, 2, {-128, 127}},
	{"int16[2] {-32768, 32767}", DT(INT16), F_INT32, 2, {-32768, 32767}},
	{"int32[2] {-2147483648, 2147483647}", DT(INT32), F_INT32, 2, {INT32_MIN, INT32_MAX}},
	{"uint8[2] {0, 255}", DT(UINT8), F_INT32, 2, {0, 255}},
	{"uint16[1] {65535}", DT(UINT16), F_INT32, 1, {65535}},
	{"bool[3] {0, 1, 0}", DT(BOOL), F_INT32, 3, {0, 1, 0}},
	/* INT literals are bit patterns for the narrow floats (HEAD's meaning, P4) */
	{"float16[2] {15360, 65535}", DT(FLOAT16), F_INT32, 2, {15360, 65535}},
	{"float16[1] {-0}", DT(FLOAT16), F_INT32, 1, {0}},
	{"bfloat16[1] {16256}", DT(BFLOAT16), F_INT32, 1, {16256}},
	{"float8e4m3fn[2] {56, 255}", DT(FLOAT8E4M3FN), F_INT32, 2, {56, 255}},
	{"float8e4m3fnuz[1] {128}", DT(FLOAT8E4M3FNUZ), F_INT32, 1, {128}},
	{"float8e5m2[1] {60}", DT(FLOAT8E5M2), F_INT32, 1, {60}},
	{"float8e5m2fnuz[1] {255}", DT(FLOAT8E5M2FNUZ), F_INT32, 1, {255}},
	{"float8e8m0[1] {127}", DT(FLOAT8E8M0), F_INT32, 1, {127}},
	/* FLOAT literals, rounded to nearest even (P4) */
	{"float16[3] {inf, nan, Infinity}", DT(FLOAT16), F_INT32, 3, {0x7c00, 0x7e00, 0x7c00}},
	{"float16[5] {1.5, -0.0, -inf, 65504.0, 0.1}", DT(FLOAT16), F_INT32, 5, {0x3e00, 0x8000, 0xfc00, 0x7bff, 0x2e66}},
	{"float16[2] {15360, 1.0}", DT(FLOAT16), F_INT32, 2, {15360, 15360}},
	{"bfloat16[3] {1.5, 0.1, -2.0}", DT(BFLOAT16), F_INT32, 3, {0x3fc0, 0x3dcd, 0xc000}},
	{"float8e4m3fn[3] {1.5, 448.0, -0.0}", DT(FLOAT8E4M3FN), F_INT32, 3, {0x3c, 0x7e, 0x80}},
	{"float8e4m3fnuz[3] {1.5, -0.0, -1.0}", DT(FLOAT8E4M3FNUZ), F_INT32, 3, {0x44, 0x00, 0xc0}},
	{"float8e5m2[2] {1.5, -inf}", DT(FLOAT8E5M2), F_INT32, 2, {0x3e, 0xfc}},
	{"float8e5m2fnuz[1] {1.5}", DT(FLOAT8E5M2FNUZ), F_INT32, 1, {0x42}},
	{"float8e8m0[2] {2.0, 0.5}", DT(FLOAT8E8M0), F_INT32, 2, {0x80, 0x7e}},
	/* sub-byte types: packed, two (four) per int32_data entry, first in the low bits */
	{"int4[3] {-8, 7, 1}", DT(INT4), F_INT32, 2, {0x78, 0x01}},
	{"int4[1] {-1}", DT(INT4), F_INT32, 1, {0x0f}},
	{"uint4[4] {15, 0, 3, 4}", DT(UINT4), F_INT32, 2, {0x0f, 0x43}},
	{"float4e2m1[2] {1, 15}", DT(FLOAT4E2M1), F_INT32, 1, {0xf1}},
	{"float4e2m1[3] {1.5, -6.0, 0.5}", DT(FLOAT4E2M1), F_INT32, 2, {0xf3, 0x01}},
	{"int2[5] {-2, 1, 0, -1, 1}", DT(INT2), F_INT32, 2, {0xc6, 0x01}},
	{"uint2[4] {3, 2, 1, 0}", DT(UINT2), F_INT32, 1, {0x1b}},
	{"uint2[6] {1, 1, 1, 1, 2, 2}", DT(UINT2), F_INT32, 2, {0x55, 0x0a}},
	{"int64[2] {-9223372036854775808, 9223372036854775807}", DT(INT64), F_INT64, 2, {INT64_MIN, INT64_MAX}},
	{"uint32[2] {0, 4294967295}", DT(UINT32), F_UINT64, 2, {0, 4294967295}},
	{"uint64[2] {18446744073709551615, 7}", DT(UINT64), F_UINT64, 2, {-1, 7}},
	/* -0 is the INT literal 0 (§1.5), not a negative value */
	{"uint64[1] {-0}", DT(UINT64), F_UINT64, 1, {0}},
	{"uint32[1] {-0}", DT(UINT32), F_UINT64, 1, {0}},
};

START_TEST(tensor_data_fields)
{
	const data_case *c = &data_cases[_i];
	Onnx__TensorProto *t = TENSOR(c->text);
	is_tensor(t, "", c->dtype);
	only_field(t, c->field);
	switch (c->field) {
	case F_INT32:
		ck_assert_uint_eq(t->n_int32_data, (size_t)c->n);
		for (int i = 0; i < c->n; i++)
			ck_assert_msg(t->int32_data[i] == (int32_t)c->v[i], "%s: [%d] = 0x%x, want 0x%x", c->text, i,
				      (unsigned)t->int32_data[i], (unsigned)c->v[i]);
		break;
	case F_INT64:
		ck_assert_uint_eq(t->n_int64_data, (size_t)c->n);
		for (int i = 0; i < c->n; i++)
			ck_assert(t->int64_data[i] == c->v[i]);
		break;
	case F_UINT64:
		ck_assert_uint_eq(t->n_uint64_data, (size_t)c->n);
		for (int i = 0; i < c->n; i++)
			ck_assert(t->uint64_data[i] == (uint64_t)c->v[i]);
		break;
	}
}
END_TEST

START_TEST(tensor_float_fields)
{
	Onnx__TensorProto *t = TENSOR("float[6] {1, 2.5, -0.0, inf, -inf, nan}");
	only_field(t, F_FLOAT);
	ck_assert_uint_eq(t->n_float_data, 6);
	ck_assert(t->float_data[0] == 1 && t->float_data[1] == 2.5f);
	ck_assert_uint_eq(fbits(t->float_data[2]), 0x80000000u);
	ck_assert(isinf(t->float_data[3]) && t->float_data[3] > 0 && isinf(t->float_data[4]) && t->float_data[4] < 0);
	ck_assert(isnan(t->float_data[5]));
	t = TENSOR("float[2] {-0, 0}"); /* -0 keeps its sign as a float */
	ck_assert_uint_eq(fbits(t->float_data[0]), 0x80000000u);
	ck_assert_uint_eq(fbits(t->float_data[1]), 0);
	ck_assert(signbit(TENSOR("double[1] {-0}")->double_data[0]));
	t = TENSOR("complex64[2] {1, 2, 3.5, -4}"); /* real, imaginary pairs */
	only_field(t, F_FLOAT);
	ck_assert_uint_eq(t->n_float_data, 4);
	ck_assert(t->float_data[2] == 3.5f && t->float_data[3] == -4);
	t = TENSOR("double[3] {0.1, 1e308, -0.0}");
	only_field(t, F_DOUBLE);
	ck_assert_uint_eq(t->n_double_data, 3);
	ck_assert(t->double_data[0] == 0.1 && t->double_data[1] == 1e308 && signbit(t->double_data[2]));
	PACKED(TENSOR("double[1] {1}"), 0x08, 0x01, 0x10, 0x0b, 0x42, 0x00, 0x52, 0x08, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f);
	t = TENSOR("complex128[1] {1, -2}");
	only_field(t, F_DOUBLE);
	ck_assert(t->n_double_data == 2 && t->double_data[1] == -2);
	PACKED(TENSOR("int64[2] t {1, -1}"), 0x08, 0x02, 0x10, 0x07, 0x3a, 0x0b, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff,
	       0xff, 0xff, 0xff, 0xff, 0x01, 0x42, 0x01, 't');
	PACKED(TENSOR("int8[2] {1, 2}"), 0x08, 0x02, 0x10, 0x03, 0x2a, 0x02, 0x01, 0x02, 0x42, 0x00);
	/* dims are not packed; int32_data is, with negative values as 10-byte varints */
	PACKED(TENSOR("int32[2, 1] {-1, 2}"), 0x08, 0x02, 0x08, 0x01, 0x10, 0x06, 0x2a, 0x0b, 0xff, 0xff, 0xff, 0xff, 0xff,
	       0xff, 0xff, 0xff, 0xff, 0x01, 0x02, 0x42, 0x00);
	PACKED(TENSOR("uint64[1] {5}"), 0x08, 0x01, 0x10, 0x0d, 0x42, 0x00, 0x5a, 0x01, 0x05);
}
END_TEST

/* Plain numbers are read by the driver straight from the text, anything else by the
 * lexer: the hand-overs (comments, words, long numbers, mistakes) give the same values
 * and messages either way. */
START_TEST(tensor_data_scanning)
{
	static const struct {
		const char *text;
		float want[3];
	} ok[] = {
		{"float[3] {1, -2.5, 4.}", {1, -2.5f, 4}},
		{"float[3] {1 # one\n, 2, # two\n 3}", {1, 2, 3}},
		{"float[3] {1#c\n,2,3}", {1, 2, 3}},
		{"float[3]{ 1e+5 ,2E-3,\t00012 }", {1e5f, 2e-3f, 12}},
		{"float[3] {123456789012345678901234, 0.000000000000000000000000000000000000000000001, -0}",
		 {1.2345679e23f, 1e-45f, -0.0f}},
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		Onnx__TensorProto *t = TENSOR(ok[i].text);
		ck_assert_uint_eq(t->n_float_data, 3);
		for (int k = 0; k < 3; k++)
			ck_assert_msg(fbits(t->float_data[k]) == fbits(ok[i].want[k]), "%s: value %d", ok[i].text, k);
	}
	Onnx__TensorProto *t = TENSOR("float[3] {1, inf, -nan}");
	ck_assert(t->float_data[0] == 1 && isinf(t->float_data[1]) && isnan(t->float_data[2]));
	static const char *const bad[][2] = {
		{"float[2] {1x, 2}", "1:11: malformed number '1x': a number cannot run into letters, '_' or '.'"},
		{"float[2] {1.5.3, 1}", "1:11: malformed number '1.5.3': a number has at most one '.'"},
		{"float[2] {1e, 2}", "1:11: malformed number: the exponent has no digits"},
		{"float[2] {1 2}", "1:13: expected '}' or ',' after '1', found '2'"},
		{"float[2] {1, 2,}", "1:16: expected a number after ',', found '}'"},
		{"float[2] {,1}", "1:11: expected '}' or a number after '{', found ','"},
		{"float[2] {1, \"a\"}", "1:14: expected a number in float data, found \"a\""},
		{"float[1] {3e40}", "1:11: value 3e40 is out of range for float"},
		{"int64[2] {1, 2.5}", "1:14: expected an integer in int64 data, found 2.5"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_str_eq(tu_error("tensor", bad[i][0]), bad[i][1]);
}
END_TEST

START_TEST(tensor_strings)
{
	Onnx__TensorProto *t = TENSOR("string[4] {\"a\", \"b\\\"c\", \"\", \"\xe4\xb8\xad\\n\"}");
	only_field(t, F_STRING);
	ck_assert_uint_eq(t->n_string_data, 4);
	BYTES(t->string_data[0], "a");
	BYTES(t->string_data[1], "b\"c");
	BYTES(t->string_data[2], "");
	BYTES(t->string_data[3], "\xe4\xb8\xadn");
	static const char nul[] = "string[1] {\"x\0y\"}"; /* a NUL inside a string is kept (P3) */
	t = parse_n("tensor", nul, sizeof nul - 1);
	BYTES(t->string_data[0], "x\0y");
	PACKED(TENSOR("string[1] {\"ab\"}"), 0x08, 0x01, 0x10, 0x08, 0x32, 0x02, 'a', 'b', 0x42, 0x00);
}
END_TEST

/* P3: values must fit the element type, their number must match the shape; P2: float
 * overflow is an error. */
static const char *const bad_data[] = {
	"int8[1] {128}",         "int8[1] {-129}",          "uint8[1] {256}",        "uint8[1] {-1}",
	"bool[1] {2}",           "bool[1] {-1}",            "int16[1] {32768}",      "uint16[1] {-1}",
	"uint16[1] {65536}",     "int32[1] {2147483648}",   "int32[1] {-2147483649}", "uint32[1] {-1}",
	"uint32[1] {4294967296}", "uint64[1] {-1}",         "int64[1] {9223372036854775808}",
	"uint64[1] {18446744073709551616}", "int4[1] {8}",  "int4[1] {-9}",          "uint4[1] {16}",
	"uint4[1] {-1}",         "int2[1] {2}",             "int2[1] {-3}",          "uint2[1] {4}",
	"float16[1] {65536}",    "float16[1] {-1}",         "bfloat16[1] {65536}",   "float8e4m3fn[1] {256}",
	"float8e8m0[1] {256}",   "float4e2m1[1] {16}",      "int32[1] {1.5}",        "int64[1] {1.0}",
	"uint64[1] {1e3}",       "int8[1] {inf}",           "bool[1] {nan}",         "float[1] {\"a\"}",
	"string[1] {1}",         "float[1] {3e40}",         "float[1] {-3e40}",      "double[1] {1e309}",
	"complex64[1] {3e40, 0}", "float16[1] {1e6}",       "float16[1] {65520.0}",    "bfloat16[1] {1e39}",
	"float8e4m3fn[1] {inf}", "float8e4m3fn[1] {500}",   "float8e4m3fn[1] {500.0}",   "float8e5m2fnuz[1] {-inf}", "float4e2m1[1] {nan}",
	"float4e2m1[1] {7.0}",     "float8e8m0[1] {-1.0}",    "float[2] {1}",          "float[1] {1, 2}",
	"complex64[1] {1}",      "complex128[2] {1, 2, 3}", "float[2] {1,}",         "float[2] {,1}",
	"float[2] {1 2}",        "string[2] {\"a\"}",       "int4[3] {1, 2}",        "float[] {1}",
	"float[N] {1}",          "float[-1] {}",            "bool[1] {true}",        "float16[1] {true}",            "seq(float) {1}",        "float[2] {1, 2",
};

START_TEST(tensor_bad_data)
{
	fails("tensor", bad_data[_i]);
}
END_TEST

/* ---- nodes (§2.8) ------------------------------------------------------------------------------ */

START_TEST(node_fields)
{
	Onnx__NodeProto *n = NODE("y = Relu(x)");
	NAMES(n, output, "y");
	NAMES(n, input, "x");
	STR(n->op_type, "Relu");
	STR(n->domain, ""); /* always set */
	ABSENT(n->name);      /* only with a label */
	ABSENT(n->overload);
	ABSENT(n->doc_string);
	ck_assert_uint_eq(n->n_attribute, 0);
	ck_assert_uint_eq(n->n_metadata_props, 0);
	ck_assert_uint_eq(n->n_device_configurations, 0);
	PACKED(n, 0x0a, 0x01, 'x', 0x12, 0x01, 'y', 0x22, 0x04, 'R', 'e', 'l', 'u', 0x3a, 0x00);
	n = NODE("= Foo()");
	NO_NAMES(n, output);
	NO_NAMES(n, input);
	n = NODE("\"a b\", c = Op(\"c.d\", \"\")");
	NAMES(n, output, "a b", "c");
	NAMES(n, input, "c.d", "");
	/* keywords are plain names in nodes (§1.7's example) */
	n = NODE("_x1 = a.b.c_d(float, seq, map, domain, opaque, ir_version, int, tensor)");
	STR(n->domain, "a.b");
	STR(n->op_type, "c_d");
	NAMES(n, input, "float", "seq", "map", "domain", "opaque", "ir_version", "int", "tensor");
}
END_TEST

/* No reserved words: keywords are plain names wherever a keyword has no meaning (§1.7). */
START_TEST(keywords_as_names)
{
	Onnx__NodeProto *n = NODE("float, seq = Op <domain = 1, float = 2, seq = 3, inf = 4, type = 5, int = 6, "
				  "ir_version = 7, nan = 8> (map, opaque)");
	NAMES(n, output, "float", "seq");
	NAMES(n, input, "map", "opaque");
	static const char *const attrs[] = {"domain", "float", "seq", "inf", "type", "int", "ir_version", "nan"};
	ck_assert_uint_eq(n->n_attribute, 8);
	for (int i = 0; i < 8; i++) {
		is_attr(n->attribute[i], attrs[i], AT(INT));
		ck_assert_int_eq(n->attribute[i]->i, i + 1);
	}
	Onnx__FunctionProto *f = FUNC("f <float, seq, inf> (float x) => (seq(float) y) {}");
	NAMES(f, attribute, "float", "seq", "inf");
	Onnx__GraphProto *g = GRAPH("g (float[N] float, int64 seq, domain) => (opset_import, inf) {}");
	STR(g->input[0]->name, "float");
	STR(g->input[1]->name, "seq");
	STR(g->input[2]->name, "domain");
	ABSENT(g->input[2]->type);
	STR(g->output[1]->name, "inf");
	fails("graph", "g () => (map) {}");
	/* UTF-8 in quoted names is kept byte for byte */
	n = NODE("\"\xe5\x90\x8d\xe5\x89\x8d\" = Op(\"\xc3\xa9\")");
	NAMES(n, output, "\xe5\x90\x8d\xe5\x89\x8d");
	NAMES(n, input, "\xc3\xa9");
	/* A NUL byte in a name or text field is refused (protobuf-c strings end at a NUL),
	 * while bytes fields keep it: check_api's nul_* tests cover both. */
}
END_TEST

START_TEST(node_labels)
{
	Onnx__NodeProto *n = NODE("[lbl] y = Relu(x)");
	STR(n->name, "lbl");
	STR(NODE("[] y = Relu(x)")->name, ""); /* present, empty */
	STR(NODE("[\"\"] y = Relu(x)")->name, "");
	STR(NODE("[\"a b\"] y = Relu(x)")->name, "a b");
	STR(NODE("[float] y = Relu(x)")->name, "float");
	PACKED(NODE("[] = F()"), 0x1a, 0x00, 0x22, 0x01, 'F', 0x3a, 0x00);
	/* a label after a node starts the next node */
	Onnx__GraphProto *g = NODES("x = Foo(a) [lbl] y = Bar(x)");
	ck_assert_uint_eq(g->n_node, 2);
	ABSENT(g->node[0]->name);
	STR(g->node[1]->name, "lbl");
}
END_TEST

/* "a.b.C": each '.' moves the name read so far onto the domain (§2.8). */
START_TEST(node_op_names)
{
	static const struct {
		const char *text, *domain, *op;
	} t[] = {
		{"y = a.b.C(x)", "a.b", "C"},
		{"y = .C(x)", "", "C"},
		{"y = .b.C(x)", "b", "C"},
		{"y = a . b . C (x)", "a.b", "C"},
		{"y = a # c\n . C(x)", "a", "C"},
		{"y = com.microsoft.Foo(x)", "com.microsoft", "Foo"},
		{"y = (x)", "", ""},
		{"y = float(x)", "", "float"},
		{"y = seq.map(x)", "seq", "map"},
		{"y = ai.onnx.ml.inf(x)", "ai.onnx.ml", "inf"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		Onnx__NodeProto *n = NODE(t[i].text);
		ck_assert_msg(n->domain && strcmp(n->domain, t[i].domain) == 0, "'%s': domain '%s'", t[i].text, n->domain);
		ck_assert_msg(n->op_type && strcmp(n->op_type, t[i].op) == 0, "'%s': op '%s'", t[i].text, n->op_type);
	}
	fails("node", "y = foo.(x)");
	fails("node", "y = a..C(x)");
	fails("node", "y = \"Op\"(x)");
	fails("node", "y = a.\"b\".C(x)");
}
END_TEST

START_TEST(node_overload_and_attributes)
{
	Onnx__NodeProto *n = NODE("x = dom.F:ov1 <a = 1> (y)");
	STR(n->domain, "dom");
	STR(n->op_type, "F");
	STR(n->overload, "ov1");
	ck_assert_uint_eq(n->n_attribute, 1);
	is_attr(n->attribute[0], "a", AT(INT));
	n = NODE("x = F:ov(y)");
	STR(n->overload, "ov");
	fails("node", "x = F:\"ov\"(y)");
	/* the attribute list goes before or after the inputs, in text order */
	n = NODE("y = Op <b = 2, a = 1> (x)");
	ck_assert_uint_eq(n->n_attribute, 2);
	STR(n->attribute[0]->name, "b");
	STR(n->attribute[1]->name, "a");
	NAMES(n, input, "x");
	n = NODE("y = Op (x, z) <c = 3, d = 4>");
	ck_assert_uint_eq(n->n_attribute, 2);
	STR(n->attribute[0]->name, "c");
	STR(n->attribute[1]->name, "d");
	NAMES(n, input, "x", "z");
	fails("node", "y = Op <a = 1> (x) <b = 2>");
	fails("node", "y = Op <> (x)");
	fails("node", "y = Op <a = 1,> (x)");
	fails("node", "y = Op");
}
END_TEST

typedef struct {
	const char *list;
	int n;
	const char *names[3];
} idlist_case;

/* §2.8's table: an empty unquoted last element is dropped. */
static const idlist_case idlists[] = {
	{"", 0, {NULL}},          {",", 1, {""}},           {",x", 2, {"", "x"}},    {"x,", 1, {"x"}},
	{"x,,", 2, {"x", ""}},    {",,", 2, {"", ""}},      {"x,,y", 3, {"x", "", "y"}}, {"\"\"", 1, {""}},
	{"x, \"\"", 2, {"x", ""}}, {"\"\",", 1, {""}},      {"x,y", 2, {"x", "y"}},
};

START_TEST(node_id_lists)
{
	const idlist_case *c = &idlists[_i];
	char text[64];
	snprintf(text, sizeof text, "z = Op(%s)", c->list);
	Onnx__NodeProto *n = NODE(text);
	names_are(n->input, n->n_input, c->names, (size_t)c->n, text);
	snprintf(text, sizeof text, "%s = Op(a)", c->list);
	n = NODE(text);
	names_are(n->output, n->n_output, c->names, (size_t)c->n, text);
}
END_TEST

START_TEST(node_lists)
{
	Onnx__GraphProto *g = NODES("a = A(x) b = B(a)");
	ck_assert_uint_eq(g->n_node, 2);
	STR(g->node[1]->op_type, "B");
	g = NODES("{ a = A(x) b = B(a) }");
	ck_assert_uint_eq(g->n_node, 2);
	ck_assert_uint_eq(NODES("")->n_node, 0);
	ck_assert_uint_eq(NODES("{}")->n_node, 0);
	fails("nodes", "{ a = A(x) } b = B(a)");
}
END_TEST

/* ---- attributes (§2.9) -------------------------------------------------------------------------- */

START_TEST(attr_int)
{
	Onnx__AttributeProto *a = ATTR("a = 1");
	is_attr(a, "a", AT(INT));
	only_value(a, V_I);
	ck_assert_int_eq(a->i, 1);
	PACKED(a, 0x0a, 0x01, 'a', 0x18, 0x01, 0xa0, 0x01, 0x02);
	ck_assert_int_eq(ATTR("a = -5")->i, -5);
	ck_assert_int_eq(ATTR("a = -0")->i, 0);
	ck_assert(ATTR("a = -9223372036854775808")->i == INT64_MIN);
	a = ATTR("a: int = 007");
	is_attr(a, "a", AT(INT));
	ck_assert_int_eq(a->i, 7);
	fails("attribute", "a = 9223372036854775808");
	fails("attribute", "a = - 1");
	fails("attribute", "a = +1");
	fails("attribute", "a = .5");
}
END_TEST

START_TEST(attr_float)
{
	Onnx__AttributeProto *a = ATTR("a = 1.5");
	is_attr(a, "a", AT(FLOAT));
	only_value(a, V_F);
	ck_assert(a->f == 1.5f);
	PACKED(a, 0x0a, 0x01, 'a', 0x15, 0, 0, 0xc0, 0x3f, 0xa0, 0x01, 0x01);
	ck_assert(ATTR("a = 1e5")->f == 1e5f);
	ck_assert(ATTR("a = 1.")->f == 1.0f);
	ck_assert(ATTR("a = 0.1")->f == 0.1f);
	ck_assert_uint_eq(fbits(ATTR("a = -0.0")->f), 0x80000000u);
	static const char *const specials[] = {"a = inf", "a = INF", "a = Infinity", "a = -inf", "a = -Infinity",
					       "a = nan", "a = NaN", "a = -nan"};
	for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
		a = ATTR(specials[i]);
		is_attr(a, "a", AT(FLOAT));
		only_value(a, V_F);
		ck_assert_msg(strstr(specials[i], "nan") || strstr(specials[i], "NaN") ? isnan(a->f) : isinf(a->f), "%s",
			      specials[i]);
		ck_assert_msg(!signbit(a->f) == !strchr(specials[i], '-'), "%s: sign", specials[i]);
	}
	ck_assert(ATTR("a = 1e-46")->f == 0); /* underflow is accepted */
	fails("attribute", "a = 3e40");
	fails("attribute", "a = 1e");
	fails("attribute", "a = -inf1");
}
END_TEST

/* An INT literal where a FLOAT is expected becomes f alone, keeping -0's sign (HEAD
 * #8065, §2.9). */
START_TEST(attr_float_annotation)
{
	Onnx__AttributeProto *a = ATTR("a: float = 2");
	is_attr(a, "a", AT(FLOAT));
	only_value(a, V_F);
	ck_assert(a->f == 2.0f);
	PACKED(a, 0x0a, 0x01, 'a', 0x15, 0, 0, 0, 0x40, 0xa0, 0x01, 0x01);
	a = ATTR("a: float = -0");
	only_value(a, V_F);
	ck_assert_uint_eq(fbits(a->f), 0x80000000u);
	a = ATTR("a: float = 16777217"); /* rounded as a float, not truncated */
	ck_assert(a->f == 16777216.0f);
	a = ATTR("a: float = 1.5");
	ck_assert(a->f == 1.5f);
	fails("attribute", "a: float = 99999999999999999999999999999999999999999"); /* 1e41 */
}
END_TEST

START_TEST(attr_string)
{
	Onnx__AttributeProto *a = ATTR("a = \"s\"");
	is_attr(a, "a", AT(STRING));
	only_value(a, V_S);
	BYTES(a->s, "s");
	PACKED(a, 0x0a, 0x01, 'a', 0x22, 0x01, 's', 0xa0, 0x01, 0x03);
	a = ATTR("a = \"\"");
	only_value(a, V_S);
	BYTES(a->s, "");
	PACKED(a, 0x0a, 0x01, 'a', 0x22, 0x00, 0xa0, 0x01, 0x03);
	BYTES(ATTR("a: string = \"x\\\"y\\\\z\\n\"")->s, "x\"y\\zn");
	BYTES(ATTR("a = \"line\nnext\"")->s, "line\nnext");
	static const char nul[] = "a = \"x\0y\"";
	a = parse_n("attribute", nul, sizeof nul - 1);
	BYTES(a->s, "x\0y");
}
END_TEST

/* Annotation and value must agree; INT->FLOAT is the only conversion. */
static const char *const mismatches[] = {
	"a: int = 1.5",        "a: int = inf",            "a: float = \"x\"",     "a: string = 1",
	"a: ints = 5",         "a: floats = 1.5",         "a: strings = \"x\"",   "a: tensor = 1",
	"a: graph = 1",        "a: sparse_tensor = 1",    "a: type_proto = 1",    "a: int = float[1] {1}",
	"a: tensor = float",   "a: type_proto = float {1}", "a: graph = float[1] {1}", "a: int = g () => () {}",
	"a: integer = 1",      "a: INT = 1",              "a: floats = \"x\"",    "a: tensors = 1",
	"a: ints = [1.5]",     "a: strings = [1]",        "a: floats = [\"x\"]", "a: tensors = [1]",
	"a: graphs = [float {1}]", "a: type_protos = [g () => () {}]", "a: sparse_tensors = [1]",
	"a: int = []",         "a: float = []",           "a = []",               "a: tensor = []",
};

START_TEST(attr_mismatch)
{
	fails("attribute", mismatches[_i]);
}
END_TEST

START_TEST(attr_ref)
{
	Onnx__AttributeProto *a = ATTR("a = @r");
	is_attr(a, "a", 0); /* no annotation: the type stays unset */
	only_value(a, V_REF);
	STR(a->ref_attr_name, "r");
	PACKED(a, 0x0a, 0x01, 'a', 0xaa, 0x01, 0x01, 'r');
	a = ATTR("a: int = @r");
	is_attr(a, "a", AT(INT));
	only_value(a, V_REF);
	a = ATTR("a: floats = @r");
	is_attr(a, "a", AT(FLOATS));
	STR(ATTR("a = @\"q r\"")->ref_attr_name, "q r");
	fails("attribute", "a = [@r]");
}
END_TEST

START_TEST(attr_lists)
{
	Onnx__AttributeProto *a = ATTR("a = [1, 2]");
	is_attr(a, "a", AT(INTS));
	only_value(a, V_INTS);
	ck_assert(a->n_ints == 2 && a->ints[0] == 1 && a->ints[1] == 2);
	PACKED(a, 0x0a, 0x01, 'a', 0x40, 0x01, 0x40, 0x02, 0xa0, 0x01, 0x07); /* not packed */
	a = ATTR("a: ints = [1, -2, 0]");
	ck_assert(a->n_ints == 3 && a->ints[1] == -2);
	a = ATTR("a = [2.5, 1]"); /* INT promoted in a float list */
	is_attr(a, "a", AT(FLOATS));
	only_value(a, V_FLOATS);
	ck_assert(a->n_floats == 2 && a->floats[0] == 2.5f && a->floats[1] == 1.0f);
	PACKED(ATTR("a = [1.5]"), 0x0a, 0x01, 'a', 0x3d, 0, 0, 0xc0, 0x3f, 0xa0, 0x01, 0x06); /* not packed */
	a = ATTR("a: floats = [1, 2]");
	is_attr(a, "a", AT(FLOATS));
	only_value(a, V_FLOATS);
	ck_assert(a->n_floats == 2 && a->floats[1] == 2.0f);
	a = ATTR("a: float = [1, 2]"); /* a singular annotation is promoted to the list type */
	is_attr(a, "a", AT(FLOATS));
	ck_assert(a->n_floats == 2);
	a = ATTR("a: int = [1]");
	is_attr(a, "a", AT(INTS));
	ck_assert(a->n_ints == 1 && a->ints[0] == 1);
	a = ATTR("a: floats = [1, 2.5]");
	ck_assert(a->n_floats == 2 && a->floats[0] == 1.0f && a->floats[1] == 2.5f);
	ck_assert_uint_eq(a->n_ints, 0);
	a = ATTR("a: floats = [-0, 3]");
	ck_assert_uint_eq(fbits(a->floats[0]), 0x80000000u);
	a = ATTR("a = [inf, -inf, nan]");
	ck_assert(a->n_floats == 3 && isinf(a->floats[0]) && a->floats[1] < 0 && isnan(a->floats[2]));
	a = ATTR("a = [\"x\", \"\", \"y\\\"\"]");
	is_attr(a, "a", AT(STRINGS));
	only_value(a, V_STRINGS);
	ck_assert_uint_eq(a->n_strings, 3);
	BYTES(a->strings[0], "x");
	BYTES(a->strings[1], "");
	BYTES(a->strings[2], "y\"");
	fails("attribute", "a = [1, 2.5]");
	fails("attribute", "a = [1.5, \"x\"]");
	fails("attribute", "a = [\"x\", 1]");
	fails("attribute", "a = [1,]");
	fails("attribute", "a = [,1]");
}
END_TEST

START_TEST(attr_empty_lists)
{
	static const struct {
		const char *text;
		int type;
	} t[] = {
		{"a: ints = []", AT(INTS)},         {"a: floats = []", AT(FLOATS)},   {"a: strings = []", AT(STRINGS)},
		{"a: tensors = []", AT(TENSORS)},   {"a: graphs = []", AT(GRAPHS)},   {"a: type_protos = []", AT(TYPE_PROTOS)},
		{"a: sparse_tensors = []", AT(SPARSE_TENSORS)},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		Onnx__AttributeProto *a = ATTR(t[i].text);
		is_attr(a, "a", t[i].type);
		only_value(a, 0);
	}
	PACKED(ATTR("a: ints = []"), 0x0a, 0x01, 'a', 0xa0, 0x01, 0x07);
}
END_TEST

START_TEST(attr_tensor)
{
	Onnx__AttributeProto *a = ATTR("t = float[2] {1, 2}");
	is_attr(a, "t", AT(TENSOR));
	only_value(a, V_T);
	is_tensor(a->t, "", DT(FLOAT));
	DIMS(a->t, 2);
	ck_assert(a->t->n_float_data == 2);
	is_tensor(ATTR("t = float[2] w {1, 2}")->t, "w", DT(FLOAT));
	is_tensor(ATTR("t = float[2] = {1, 2}")->t, "", DT(FLOAT));
	is_tensor(ATTR("t = float[2] w = {1, 2}")->t, "w", DT(FLOAT));
	a = ATTR("t = float {3}");
	ck_assert_uint_eq(a->t->n_dims, 0);
	ck_assert(a->t->float_data[0] == 3);
	a = ATTR("t = int4[3] {1, 2, 3}");
	INT32S(a->t, 0x21, 0x03);
	a = ATTR("t = float[2] w [\"location\": \"f\"]");
	is_attr(a, "t", AT(TENSOR));
	is_tensor(a->t, "w", DT(FLOAT));
	ck_assert(a->t->has_data_location && a->t->n_external_data == 1);
	a = ATTR("t = float[2] w"); /* no data */
	is_attr(a, "t", AT(TENSOR));
	only_field(a->t, 0);
	is_attr(ATTR("t: tensor = float[1] {1}"), "t", AT(TENSOR));
	Onnx__NodeProto *n = NODE("y = Op <t = float[2] w, u = int8 v = , k = 1> (x)"); /* no data, in a node */
	is_attr(n->attribute[0], "t", AT(TENSOR));
	is_tensor(n->attribute[0]->t, "w", DT(FLOAT));
	is_attr(n->attribute[1], "u", AT(TENSOR));
	is_tensor(n->attribute[1]->t, "v", DT(INT8));
	only_field(n->attribute[1]->t, 0);
	is_attr(n->attribute[2], "k", AT(INT));
	a = ATTR("t = float[2] float {1, 2}"); /* a keyword as the tensor's name */
	is_tensor(a->t, "float", DT(FLOAT));
	fails("attribute", "t = float[N] {1}");
	fails("attribute", "t = float[] {1}");
	fails("attribute", "t = seq(float) {1}");
}
END_TEST

/* P3: tensors HEAD misreads as a type followed by junk. */
START_TEST(attr_tensor_relaxations)
{
	Onnx__AttributeProto *a = ATTR("t = float[2] \"a b\" {1, 2}");
	is_attr(a, "t", AT(TENSOR));
	is_tensor(a->t, "a b", DT(FLOAT));
	ck_assert_uint_eq(a->t->n_float_data, 2);
	a = ATTR("t = float[2] [\"location\": \"f\"]");
	is_attr(a, "t", AT(TENSOR));
	is_tensor(a->t, "", DT(FLOAT));
	ck_assert(a->t->has_data_location && a->t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
	STR(a->t->external_data[0]->value, "f");
	a = ATTR("t = float = [\"location\": \"f\"]");
	is_attr(a, "t", AT(TENSOR));
	is_tensor(a->t, "", DT(FLOAT));
	ck_assert_uint_eq(a->t->n_dims, 0);
	ck_assert_uint_eq(a->t->n_external_data, 1);
	a = ATTR("t = float[2] \"q\" = {1, 2}");
	is_tensor(a->t, "q", DT(FLOAT));
}
END_TEST

START_TEST(attr_type_proto)
{
	Onnx__AttributeProto *a = ATTR("T = seq(float[N])");
	is_attr(a, "T", AT(TYPE_PROTO));
	only_value(a, V_TP);
	ck_assert_int_eq(a->tp->value_case, ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE);
	a = ATTR("T = float");
	is_attr(a, "T", AT(TYPE_PROTO));
	ck_assert_ptr_nonnull(tensor_type(a->tp, DT(FLOAT))->shape);
	a = ATTR("T = float[N]");
	is_attr(a, "T", AT(TYPE_PROTO));
	a = ATTR("T = float[]");
	ABSENT(tensor_type(a->tp, DT(FLOAT))->shape);
	is_attr(ATTR("T: type_proto = float[2]"), "T", AT(TYPE_PROTO));
	is_attr(ATTR("T = map(int64, float)"), "T", AT(TYPE_PROTO));
	is_attr(ATTR("T = opaque(a.b, c)"), "T", AT(TYPE_PROTO));
	is_attr(ATTR("T = sparse_tensor(float[2])"), "T", AT(TYPE_PROTO));
	/* followed by ',' or '>' in a node: a type */
	Onnx__NodeProto *n = NODE("y = Foo <T = float[2], U = int8, V = seq(float)> (x)");
	for (int i = 0; i < 3; i++)
		is_attr(n->attribute[i], n->attribute[i]->name, AT(TYPE_PROTO));
}
END_TEST

START_TEST(attr_graph)
{
	Onnx__AttributeProto *a = ATTR("body = g1 (x) => (y) { y = Relu(x) }");
	is_attr(a, "body", AT(GRAPH));
	only_value(a, V_G);
	STR(a->g->name, "g1");
	ck_assert_uint_eq(a->g->n_node, 1);
	NAMES(a->g->node[0], input, "x");
	a = ATTR("body = g1 (float[2] x) => (y) <float[2] w = {1, 2}, t> { y = Add(x, w) }");
	ck_assert_uint_eq(a->g->n_initializer, 1);
	ck_assert_uint_eq(a->g->n_value_info, 1);
	a = ATTR("body = g => (y) {}");
	STR(a->g->name, "g");
	is_attr(ATTR("body: graph = g () => () {}"), "body", AT(GRAPH));
	/* P3: names HEAD cannot use for an attribute graph */
	static const char *const names[] = {"nan_g", "inf_x", "infinity_", "\"g h\"", "\"float\""};
	static const char *const want[] = {"nan_g", "inf_x", "infinity_", "g h", "float"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char text[64];
		snprintf(text, sizeof text, "body = %s () => () {}", names[i]);
		a = ATTR(text);
		is_attr(a, "body", AT(GRAPH));
		STR(a->g->name, want[i]);
	}
	a = ATTR("x = inf"); /* a special float, not a graph */
	is_attr(a, "x", AT(FLOAT));
	/* nested graphs */
	a = ATTR("b = outer () => () { y = If <then_branch = inner () => (z) { z = C() }> (c) }");
	STR(a->g->node[0]->attribute[0]->g->name, "inner");
}
END_TEST

/* P3: lists of tensors, graphs and type protos keep their elements. */
START_TEST(attr_lists_kept)
{
	Onnx__AttributeProto *a = ATTR("x = [float {1}, float[2] w {2, 3}]");
	is_attr(a, "x", AT(TENSORS));
	only_value(a, V_TENSORS);
	ck_assert_uint_eq(a->n_tensors, 2);
	ck_assert(a->tensors[0]->float_data[0] == 1);
	is_tensor(a->tensors[1], "w", DT(FLOAT));
	a = ATTR("x: tensors = [float[2] {1, 2}]");
	is_attr(a, "x", AT(TENSORS));
	ck_assert_uint_eq(a->n_tensors, 1);
	a = ATTR("x = [g1 () => () {}, g2 (a) => (a) {}]");
	is_attr(a, "x", AT(GRAPHS));
	only_value(a, V_GRAPHS);
	ck_assert_uint_eq(a->n_graphs, 2);
	STR(a->graphs[0]->name, "g1");
	STR(a->graphs[1]->name, "g2");
	a = ATTR("x: graphs = [g () => () {}]");
	ck_assert_uint_eq(a->n_graphs, 1);
	a = ATTR("x = [float, seq(int64), map(string, float[N])]");
	is_attr(a, "x", AT(TYPE_PROTOS));
	only_value(a, V_TPS);
	ck_assert_uint_eq(a->n_type_protos, 3);
	ck_assert_int_eq(a->type_protos[1]->value_case, ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE);
	a = ATTR("x: type_protos = [float]");
	ck_assert_uint_eq(a->n_type_protos, 1);
	fails("attribute", "x = [float {1}, 1]");
	fails("attribute", "x = [1, float {1}]");
	fails("attribute", "x = [float {1}, float]");
	fails("attribute", "x = [g () => () {}, float {1}]");
}
END_TEST

/* ---- functions (§2.10) ------------------------------------------------------------------------- */

START_TEST(function_example)
{
	Onnx__FunctionProto *f = FUNC("<domain: \"local\", opset_import: [\"\" : 18], doc_string: \"d\", overload: \"ov\"> "
				      "foo <alpha: float = 1.0, beta> (float[N] x, w) => (y) <float[N] t> "
				      "{ y = Relu(x) }");
	STR(f->domain, "local");
	STR(f->doc_string, "d");
	STR(f->overload, "ov");
	ck_assert_uint_eq(f->n_opset_import, 1);
	STR(f->opset_import[0]->domain, "");
	ck_assert_int_eq(f->opset_import[0]->version, 18);
	STR(f->name, "foo");
	NAMES(f, attribute, "beta");
	ck_assert_uint_eq(f->n_attribute_proto, 1);
	is_attr(f->attribute_proto[0], "alpha", AT(FLOAT));
	ck_assert(f->attribute_proto[0]->f == 1.0f);
	NAMES(f, input, "x", "w");
	NAMES(f, output, "y");
	ck_assert_uint_eq(f->n_value_info, 2); /* typed inputs first, then the '<...>' list */
	STR(f->value_info[0]->name, "x");
	tensor_type(f->value_info[0]->type, DT(FLOAT));
	STR(f->value_info[1]->name, "t");
	ck_assert_uint_eq(f->n_node, 1);
	ck_assert_uint_eq(f->n_metadata_props, 0);
}
END_TEST

START_TEST(function_fields)
{
	Onnx__FunctionProto *f = FUNC("f () => () {}");
	STR(f->name, "f");
	ABSENT(f->domain);
	ABSENT(f->overload);
	ABSENT(f->doc_string);
	ck_assert_uint_eq(f->n_opset_import, 0);
	NO_NAMES(f, input);
	NO_NAMES(f, output);
	NO_NAMES(f, attribute);
	ck_assert_uint_eq(f->n_attribute_proto, 0);
	ck_assert_uint_eq(f->n_value_info, 0);
	PACKED(f, 0x0a, 0x01, 'f');
	/* names vs defaults: two lists, each in its own order */
	f = FUNC("f <a, b: int = 1, c, d = \"s\", \"e f\", g: ints = []> () => () {}");
	NAMES(f, attribute, "a", "c", "e f");
	ck_assert_uint_eq(f->n_attribute_proto, 3);
	is_attr(f->attribute_proto[0], "b", AT(INT));
	ck_assert_int_eq(f->attribute_proto[0]->i, 1);
	is_attr(f->attribute_proto[1], "d", AT(STRING));
	is_attr(f->attribute_proto[2], "g", AT(INTS));
	/* typed IO: value_info holds typed inputs, then typed outputs, then the '<...>' list */
	f = FUNC("\"my f\" (float[N] x, w, int64 k) => (float y, z) <float t, u> {}");
	STR(f->name, "my f");
	NAMES(f, input, "x", "w", "k");
	NAMES(f, output, "y", "z");
	ck_assert_uint_eq(f->n_value_info, 5);
	static const char *const vi[] = {"x", "k", "y", "t", "u"};
	for (int i = 0; i < 5; i++)
		STR(f->value_info[i]->name, vi[i]);
	ck_assert_ptr_nonnull(f->value_info[3]->type);
	ABSENT(f->value_info[4]->type);
	f = FUNC("f (\"a b\") => (\"\") <> {}");
	NAMES(f, input, "a b");
	NAMES(f, output, "");
	ck_assert_uint_eq(f->n_value_info, 0);
	/* header: scalars set by the last entry, opset lists appended */
	f = FUNC("<domain: \"a\", opset_import: [\"\": 1], domain: \"b\", opset_import: [\"x\": 2, \"y\": 3]> f () => () {}");
	STR(f->domain, "b");
	ck_assert_uint_eq(f->n_opset_import, 3);
	STR(f->opset_import[2]->domain, "y");
	f = FUNC("<domain: \"\"> f () => () {}");
	STR(f->domain, "");
}
END_TEST

START_TEST(function_errors)
{
	fails("function", "<ir_version: 8> f () => () {}");
	fails("function", "<producer_name: \"p\"> f () => () {}");
	fails("function", "<metadata_props: []> f () => () {}");
	fails("function", "f <a: float = \"x\"> () => () {}"); /* errors in defaults are reported (P2) */
	fails("function", "f <a: float = 3e40> () => () {}");
	fails("function", "f <> () => () {}");
	fails("function", "f () => () <float[1] w = {1}> {}");
	fails("function", "f (x = {1}) => () {}");
	fails("function", "f => () {}");
	fails("function", "f () => () {} junk");
}
END_TEST

/* ---- every entry point consumes its whole input (P3) ---------------------------------------- */

START_TEST(entry_points_whole_input)
{
	static const struct {
		const char *kind, *text;
	} t[] = {
		{"model", "g () => () {} )"},   {"graph", "g () => () {} x"},     {"function", "f () => () {} {"},
		{"node", "y = Relu(x) z"},       {"nodes", "y = Relu(x) }"},        {"type", "float[2] x"},
		{"tensor", "float[1] {1} x"},    {"attribute", "a = 1, b = 2"},     {"value_info", "float x y"},
		{"attribute", "a = 1 >"},        {"type", "seq(float))"},           {"value_info", "x,"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		fails(t[i].kind, t[i].text);
}
END_TEST

static TCase *tcase(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);
	tcase_add_checked_fixture(tc, NULL, free_parsed);
	suite_add_tcase(s, tc);
	return tc;
}

int main(void)
{
	Suite *s = suite_create("build");
	TCase *tc = tcase(s, "model");
	tcase_add_test(tc, model_without_header);
	tcase_add_test(tc, model_full_header);
	tcase_add_test(tc, model_header_repetition);
	tcase_add_test(tc, model_header_values);
	tcase_add_test(tc, model_functions);

	tc = tcase(s, "graph");
	tcase_add_test(tc, graph_minimal);
	tcase_add_test(tc, graph_names);
	tcase_add_test(tc, graph_example);
	tcase_add_test(tc, graph_initializer_order);
	tcase_add_test(tc, graph_initializer_without_data);
	tcase_add_test(tc, graph_nodes_in_order);

	tc = tcase(s, "types");
	tcase_add_test(tc, type_rank);
	tcase_add_test(tc, type_dims);
	tcase_add_loop_test(tc, type_every_element_type, 0, sizeof elem_types / sizeof elem_types[0]);
	tcase_add_test(tc, type_constructors);
	tcase_add_test(tc, value_infos);

	tc = tcase(s, "tensors");
	tcase_add_test(tc, tensor_forms);
	tcase_add_test(tc, tensor_external);
	tcase_add_loop_test(tc, tensor_data_fields, 0, sizeof data_cases / sizeof data_cases[0]);
	tcase_add_test(tc, tensor_float_fields);
	tcase_add_test(tc, tensor_data_scanning);
	tcase_add_test(tc, tensor_strings);
	tcase_add_loop_test(tc, tensor_bad_data, 0, sizeof bad_data / sizeof bad_data[0]);

	tc = tcase(s, "nodes");
	tcase_add_test(tc, node_fields);
	tcase_add_test(tc, node_labels);
	tcase_add_test(tc, keywords_as_names);
	tcase_add_test(tc, node_op_names);
	tcase_add_test(tc, node_overload_and_attributes);
	tcase_add_loop_test(tc, node_id_lists, 0, sizeof idlists / sizeof idlists[0]);
	tcase_add_test(tc, node_lists);

	tc = tcase(s, "attributes");
	tcase_add_test(tc, attr_int);
	tcase_add_test(tc, attr_float);
	tcase_add_test(tc, attr_float_annotation);
	tcase_add_test(tc, attr_string);
	tcase_add_loop_test(tc, attr_mismatch, 0, sizeof mismatches / sizeof mismatches[0]);
	tcase_add_test(tc, attr_ref);
	tcase_add_test(tc, attr_lists);
	tcase_add_test(tc, attr_empty_lists);
	tcase_add_test(tc, attr_tensor);
	tcase_add_test(tc, attr_tensor_relaxations);
	tcase_add_test(tc, attr_type_proto);
	tcase_add_test(tc, attr_graph);
	tcase_add_test(tc, attr_lists_kept);

	tc = tcase(s, "functions");
	tcase_add_test(tc, function_example);
	tcase_add_test(tc, function_fields);
	tcase_add_test(tc, function_errors);
	tcase_add_test(tc, entry_points_whole_input);
	return tu_run(s);
}
