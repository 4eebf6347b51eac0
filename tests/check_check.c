/* The structural check (OnnxModel_Check, OnnxModel_CheckText): every file of corpus/check
 * gives exactly the problems its "# error:" lines list, at those places, and the same
 * messages without places when the model comes from binary; valid models (the examples,
 * the shared backend models) pass; where in a node's text a problem points; tensor and
 * attribute rules only binary can break; the problem limit; the API's arguments. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static char check_dir[4096];
static char **check_files;

/* The "# error:" lines of a corpus file, in order, NULL-terminated (malloc'd). */
static char **expected_problems(const char *text)
{
	char **v = calloc(ONNXTXT_MAX_PROBLEMS + 1, sizeof *v);
	size_t n = 0;
	for (const char *p = text; p && *p && n < ONNXTXT_MAX_PROBLEMS; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, "# error: ", 9) || !strncmp(p, "# warning: ", 11))
			v[n++] = strndup(p + 2, strcspn(p + 2, "\n"));
	return v;
}

static void free_list(char **v)
{
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/* A problem as a "# error:" line writes it: "LINE:COL: MESSAGE", or the message alone. */
static const char *show(const OnnxError *e)
{
	static char buf[700];
	if (e->line)
		snprintf(buf, sizeof buf, "%u:%u: %s", e->line, e->column, e->message);
	else
		snprintf(buf, sizeof buf, "%s", e->message);
	return buf;
}

/* The same with its kind in front, as a corpus file lists it: "error: ..." or "warning: ...". */
static const char *show_kind(const OnnxError *e)
{
	static char buf[720];
	snprintf(buf, sizeof buf, "%s: %s", e->code == ONNXTXT_WARNING ? "warning" : "error", show(e));
	return buf;
}

/* Whether a list of expected problems has an error (else the model is valid, with warnings). */
static bool any_error(char **want)
{
	for (size_t i = 0; want[i]; i++)
		if (!strncmp(want[i], "error: ", 7))
			return true;
	return false;
}

START_TEST(corpus_file_gives_its_problems)
{
	const char *name = check_files[_i];
	size_t len;
	char *text = tu_read(tu_path(check_dir, name), &len);
	char **want = expected_problems(text);
	OnnxError err, *problems;
	size_t count, nwant = 0;
	while (want[nwant])
		nwant++;
	ck_assert_msg(nwant > 0, "%s: no '# error:' or '# warning:' lines", name);
	OnnxStatus st = OnnxModel_CheckText(text, len, &problems, &count, &err);
	bool invalid = any_error(want);
	ck_assert_msg(st == (invalid ? ONNXTXT_ERR_INVALID : ONNXTXT_OK), "%s: status %d: %s", name, st, err.message);
	for (size_t i = 0; i < count || i < nwant; i++)
		ck_assert_msg(i < count && i < nwant && !strcmp(show_kind(&problems[i]), want[i]),
			      "%s: problem %zu:\n  want %s\n  got  %s", name, i, i < nwant ? want[i] : "(none)",
			      i < count ? show_kind(&problems[i]) : "(none)");
	for (size_t i = 0; invalid && i < count; i++)
		if (problems[i].code != ONNXTXT_WARNING) { /* *err is the first error */
			ck_assert_str_eq(err.message, problems[i].message);
			ck_assert_uint_eq(err.line, problems[i].line);
			break;
		}
	free(problems);
	free_list(want);
	free(text);
}
END_TEST

/* A binary model gets the same messages, without places. */
START_TEST(corpus_file_from_binary)
{
	const char *name = check_files[_i];
	size_t len, blen;
	char *text = tu_read(tu_path(check_dir, name), &len);
	Onnx__ModelProto *m = tu_model(text), *b;
	unsigned char *bytes = tu_pack(m, &blen);
	OnnxError err, *bin, *txt;
	size_t nbin, ntxt;
	char **want = expected_problems(text);
	OnnxStatus st = any_error(want) ? ONNXTXT_ERR_INVALID : ONNXTXT_OK;
	free_list(want);
	ck_assert_int_eq(OnnxBinary_Read(bytes, blen, &b, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxModel_Check(b, &bin, &nbin, &err), st);
	ck_assert_int_eq(OnnxModel_CheckText(text, len, &txt, &ntxt, &err), st);
	ck_assert_uint_eq(nbin, ntxt);
	for (size_t i = 0; i < nbin; i++) {
		ck_assert_str_eq(bin[i].message, txt[i].message);
		ck_assert_uint_eq(bin[i].line, 0);
		ck_assert_int_eq(bin[i].code, txt[i].code);
	}
	free(bin);
	free(txt);
	OnnxProto_Free(b);
	OnnxProto_Free(m);
	free(bytes);
	free(text);
}
END_TEST

static void assert_valid_text(const char *name, const char *text, size_t len)
{
	OnnxError err, *problems = (OnnxError *)1;
	size_t count = 99;
	OnnxStatus st = OnnxModel_CheckText(text, len, &problems, &count, &err);
	ck_assert_msg(st == ONNXTXT_OK, "%s: %s", name, show(&err));
	ck_assert_ptr_null(problems);
	ck_assert_uint_eq(count, 0);
}

START_TEST(examples_are_valid)
{
	static const char *const files[] = {"corpus/examples/relu.onnxtxt", "corpus/valid/mlp_classifier.onnxtxt",
					    "corpus/golden/control_flow.onnxtxt"};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		size_t len;
		char *text = tu_read(tu_path(tu_source_root(), files[i]), &len);
		assert_valid_text(files[i], text, len);
		free(text);
	}
}
END_TEST

/* Every model of the shared ONNX backend data passes (they pass onnx.checker). */
START_TEST(backend_models_are_valid)
{
	char **models = tu_find(tu_path(tu_shared(), "onnx-backend-data"), "model.onnx");
	size_t n = 0;
	for (; models && models[n]; n++) {
		Onnx__ModelProto *m;
		OnnxError err;
		ck_assert_int_eq(OnnxBinary_ReadFile(models[n], &m, &err), ONNXTXT_OK);
		OnnxStatus st = OnnxModel_Check(m, NULL, NULL, &err);
		ck_assert_msg(st == ONNXTXT_OK, "%s: %s", models[n], err.message);
		OnnxProto_Free(m);
	}
	if (models)
		tu_free_list(models);
	/* without the shared data there is nothing to check; with it, there must be models */
	ck_assert_msg(n > 0 || access(tu_path(tu_shared(), "onnx-backend-data"), F_OK) != 0, "no model.onnx found");
}
END_TEST

/* The first problem of text, as "LINE:COL: MESSAGE". */
static const char *first_problem(const char *text)
{
	static char buf[700];
	OnnxError err;
	OnnxStatus st = OnnxModel_CheckText(text, strlen(text), NULL, NULL, &err);
	snprintf(buf, sizeof buf, "%s", st == ONNXTXT_OK ? "ok" : show(&err));
	return buf;
}

#define HEAD "<ir_version: 8, opset_import: [\"\" : 17, \"x\" : 1, \"x.y\" : 1]>\n"

/* Outputs and inputs are found by their place in the node's lists, whatever comes
 * before them: labels, annotations, empty elements, attributes, dotted op names. */
START_TEST(node_parts_are_located)
{
	ck_assert_str_eq(first_problem(HEAD "g (float[N] p) => (float[N] y) {\n"
					      "  #@ doc_string: \"d\"\n"
					      "  [lbl] y, , w = x.y.Op <k = 1> (p, , q)\n}"),
			 "4:39: graph.node[0] (x.y.Op): input 'q' is not defined anywhere");
	ck_assert_str_eq(first_problem(HEAD "g (float[N] p) => (float[N] y) {\n"
					      "  y, , p = x.Op (p)\n}"),
			 "3:8: graph.node[0] (x.Op): output 'p' is already defined by an input");
	/* the same name inside an attribute's graph is not the node's input */
	ck_assert_str_eq(first_problem(HEAD "g (float[N] p, bool c) => (float[N] y) {\n"
					      "  y = x.If (c, z) <g = b () => (float[N] z) { z = Identity (p) }>\n}"),
			 "3:16: graph.node[0] (x.If): input 'z' is not defined anywhere");
	ck_assert_str_eq(first_problem(HEAD "g (float[N] p, bool c) => (float[N] y) {\n"
					      "  y = x.If <g = b () => (float[N] z) { z = Identity (p) }> (c, z)\n}"),
			 "3:64: graph.node[0] (x.If): input 'z' is not defined anywhere");
	ck_assert_str_eq(first_problem(HEAD "g (float[N] p) => (float[N] y) {\n"
					      "  y = com.example.Op (p)\n}"),
			 "3:7: graph.node[0] (com.example.Op): no opset_import for domain 'com.example'");
	ck_assert_str_eq(first_problem(HEAD "g (float[N] p) => (float[N] y) {\n"
					      "  y = Relu <\"my attr\" = 1> (p)\n}"),
			 "3:13: graph.node[0] (Relu): unknown attribute 'my attr'");
}
END_TEST

/* "ai.onnx" is the default domain; operators are checked against the imported opset. */
START_TEST(default_domain_and_versions)
{
	ck_assert_str_eq(first_problem("<ir_version: 8, opset_import: [\"ai.onnx\" : 17]>\n"
				       "g (float[N] p) => (float[N] y) { y = ai.onnx.Relu (p) }"),
			 "ok");
	/* operators of opsets 18 to 23 are known by name ... */
	ck_assert_str_eq(first_problem("<ir_version: 10, opset_import: [\"\" : 21]>\n"
				       "g (float[N] p) => (float[N] y) { y = Gelu <approximate = \"tanh\"> (p) }"),
			 "ok");
	ck_assert_str_eq(first_problem("<ir_version: 10, opset_import: [\"\" : 21]>\n"
				       "g (float[N] p) => (float[N] y) { y = Gelx (p) }"),
			 "2:38: graph.node[0] (Gelx): no operator 'Gelx' in the default domain (did you mean 'Gelu'?)");
	ck_assert_str_eq(first_problem("<ir_version: 9, opset_import: [\"\" : 19]>\n"
				       "g (float[N] p) => (float[N] y) { y = Gelu (p) }"),
			 "2:38: graph.node[0] (Gelu): the operator first appears in opset 20, but the default domain "
			 "is imported at opset 19");
	/* beyond the newest known opset (a warning), as of the newest */
	ck_assert_str_eq(first_problem("<ir_version: 13, opset_import: [\"\" : 99]>\n"
				       "g (float[N] p) => (float[N] y) { y = Gelx (p) }"),
			 "2:38: graph.node[0] (Gelx): no operator 'Gelx' in the default domain (did you mean 'Gelu'?)");
	/* each opset's own signature: ReduceMean's axes an input from 18 on, an attribute before */
	ck_assert_str_eq(first_problem("<ir_version: 9, opset_import: [\"\" : 18]>\n"
				       "g (float[N] p, int64[1] a) => (float[1] y) { y = ReduceMean (p, a) }"),
			 "ok");
	ck_assert_str_eq(first_problem("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				       "g (float[N] p, int64[1] a) => (float[1] y) { y = ReduceMean (p, a) }"),
			 "2:50: graph.node[0] (ReduceMean): takes 1 input, not 2");
	/* attribute types */
	ck_assert_str_eq(first_problem("<ir_version: 10, opset_import: [\"\" : 21]>\n"
				       "g (float[N] p) => (float[N] y) { y = LeakyRelu <alpha = 1> (p) }"),
			 "2:49: graph.node[0] (LeakyRelu): attribute 'alpha' must be float, not int (write a float "
			 "literal: 1.0, not 1)");
	/* attributes of older versions are known: Add's broadcast (opsets 1 to 6) */
	ck_assert_str_eq(first_problem("<ir_version: 3, opset_import: [\"\" : 6]>\n"
				       "g (float[N] p) => (float[N] y) { y = Add <broadcast = 1> (p, p) }"),
			 "ok");
	/* either type an operator ever took: Cast's 'to' was a string in opset 1 */
	ck_assert_str_eq(first_problem("<ir_version: 3, opset_import: [\"\" : 1]>\n"
				       "g (float[N] p) => (float[N] y) { y = Cast <to = \"FLOAT\"> (p) }"),
			 "ok");
}
END_TEST

/* A function's nodes see the function's own opset imports and its inputs. */
START_TEST(functions)
{
	ck_assert_str_eq(first_problem("<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
				       "g (float[N] p) => (float[N] y) { y = local.F <alpha = 0.5> (p) }\n"
				       "<domain: \"local\", opset_import: [\"\" : 17]>\n"
				       "F <alpha> (a) => (b) { b = LeakyRelu <alpha: float = @alpha> (a) }"),
			 "ok");
	ck_assert_str_eq(first_problem("<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
				       "g (float[N] p) => (float[N] y) { y = local.F (p) }\n"
				       "<domain: \"local\", opset_import: [\"\" : 17]>\n"
				       "F (a) => (b) { b = x.Op (a) }"),
			 "4:20: functions[0].node[0] (x.Op): no opset_import for domain 'x'");
	ck_assert_str_eq(first_problem("<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
				       "g (float[N] p) => (float[N] y) { y = local.F (p) }\n"
				       "<domain: \"local\", opset_import: [\"\" : 17]>\n"
				       "F (a) => (b) { b = Relu (a) }\n"
				       "<domain: \"local\", opset_import: [\"\" : 17]>\n"
				       "F (a) => (b) { b = Relu (a) }"),
			 "6:1: functions[1]: function 'F' of domain 'local' is defined twice");
}
END_TEST

/* Binary models can break rules the text cannot express. */
static Onnx__ModelProto *relu_model(void)
{
	return tu_model("<ir_version: 8, opset_import: [\"\" : 17]>\n"
			"g (float[2] p) => (float[2] y) <float[2] w = {1, 2}> { y = LeakyRelu <alpha = 0.5> (p) }");
}

static const char *model_problem(const Onnx__ModelProto *m)
{
	static char buf[700];
	OnnxError err;
	OnnxStatus st = OnnxModel_Check(m, NULL, NULL, &err);
	snprintf(buf, sizeof buf, "%s", st == ONNXTXT_OK ? "ok" : err.message);
	return buf;
}

START_TEST(tensor_rules)
{
	Onnx__ModelProto *m = relu_model();
	Onnx__TensorProto *w = m->graph->initializer[0];
	ck_assert_str_eq(model_problem(m), "ok");
	w->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w' has no element type (data_type)");
	w->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w': int64 values belong in int64_data, not float_data");
	w->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	static uint8_t raw[8];
	w->has_raw_data = 1;
	w->raw_data.data = raw;
	w->raw_data.len = sizeof raw;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w' needs its values in exactly one data field, not 2");
	w->n_float_data = 0;
	ck_assert_str_eq(model_problem(m), "ok");
	w->has_data_location = 1;
	w->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w' is stored externally but also has raw_data");
	w->has_data_location = 0;
	w->dims[0] = 0;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w' has no elements but has raw_data");
	OnnxProto_Free(m);
}
END_TEST

/* Rules only binary models can break (the text parser refuses these): value counts,
 * element type numbers, external locations, opaque type names. */
START_TEST(binary_tensor_rules)
{
	Onnx__ModelProto *m = relu_model();
	Onnx__TensorProto *w = m->graph->initializer[0];
	w->n_float_data = 1;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w' has 1 value(s) in float_data but its shape needs 2");
	w->n_float_data = 2;
	w->data_type = 99;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w' has an unknown element type (data_type 99)");
	w->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	static uint8_t raw[4];
	w->n_float_data = 0;
	w->has_raw_data = 1;
	w->raw_data.data = raw;
	w->raw_data.len = sizeof raw;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w' has 4 byte(s) in raw_data but its shape needs 8");
	/* 4-bit values: packed two to an int32_data entry */
	static int32_t packed[2] = {0x21, 0x3};
	w->has_raw_data = 0;
	w->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT4;
	w->dims[0] = 3;
	w->int32_data = packed;
	w->n_int32_data = 2;
	m->ir_version = 10;
	ck_assert_str_eq(model_problem(m), "ok");
	w->dims[0] = 5;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w' has 2 value(s) in int32_data but its shape needs 3");
	OnnxProto_Free(m);
}
END_TEST

START_TEST(binary_external_and_types)
{
	Onnx__ModelProto *m = relu_model();
	Onnx__TensorProto *w = m->graph->initializer[0];
	static Onnx__StringStringEntryProto loc = ONNX__STRING_STRING_ENTRY_PROTO__INIT, *locs[] = {&loc};
	loc.key = "location";
	loc.value = "/etc/passwd";
	w->n_float_data = 0;
	w->has_data_location = 1;
	w->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	w->external_data = locs;
	w->n_external_data = 1;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w': external data location '/etc/passwd' must be a "
			 "relative path inside the model's directory (no absolute path, no '..')");
	loc.value = "data/../../w.bin";
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w': external data location 'data/../../w.bin' must be "
			 "a relative path inside the model's directory (no absolute path, no '..')");
	loc.value = "data/w.bin";
	ck_assert_str_eq(model_problem(m), "ok");
	w->n_external_data = 0;
	ck_assert_str_eq(model_problem(m), "graph.initializer[0]: tensor 'w' is stored externally but has no location");
	w->n_external_data = 1;
	static Onnx__TypeProto__Opaque opaque = ONNX__TYPE_PROTO__OPAQUE__INIT;
	Onnx__TypeProto *t = m->graph->input[0]->type;
	t->value_case = ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE;
	t->opaque_type = &opaque;
	ck_assert_str_eq(model_problem(m), "graph.input[0]: 'p' has an opaque type without a name");
	opaque.name = "blob";
	ck_assert_str_eq(model_problem(m), "ok");
	OnnxProto_Free(m);
}
END_TEST

/* A sparse initializer defines its name (its values tensor's). */
START_TEST(sparse_initializer_defines_a_name)
{
	Onnx__ModelProto *m = tu_model("<ir_version: 8, opset_import: [\"\" : 17]>\n"
				       "g (float[2] p) => (float[2] y) <float[2] w = {1, 2}> { y = Add (p, w) }");
	static Onnx__SparseTensorProto sp = ONNX__SPARSE_TENSOR_PROTO__INIT, *sps[] = {&sp};
	sp.values = m->graph->initializer[0];
	m->graph->n_initializer = 0;
	ck_assert_str_eq(model_problem(m), "graph.node[0] (Add): input 'w' is not defined anywhere");
	m->graph->sparse_initializer = sps;
	m->graph->n_sparse_initializer = 1;
	ck_assert_str_eq(model_problem(m), "ok");
	OnnxProto_Free(m);
}
END_TEST

/* Fields the text syntax cannot write before their IR version: node metadata, function
 * value_info. */
START_TEST(ir_version_fields)
{
	Onnx__ModelProto *m = tu_model("<ir_version: 9, opset_import: [\"\" : 19, \"local\" : 1]>\n"
				       "g (float[2] p) => (float[2] y) { y = local.F (p) }\n"
				       "<domain: \"local\", opset_import: [\"\" : 19]>\nF (a) => (b) { b = Relu (a) }");
	ck_assert_str_eq(model_problem(m), "ok");
	static Onnx__StringStringEntryProto prop = ONNX__STRING_STRING_ENTRY_PROTO__INIT, *props[] = {&prop};
	prop.key = "k";
	prop.value = "v";
	m->graph->node[0]->metadata_props = props;
	m->graph->node[0]->n_metadata_props = 1;
	ck_assert_str_eq(model_problem(m), "graph.node[0] (local.F): metadata_props on a node need IR version 10 (the model has 9)");
	m->graph->node[0]->n_metadata_props = 0;
	static Onnx__ValueInfoProto vi = ONNX__VALUE_INFO_PROTO__INIT, *vis[] = {&vi};
	vi.name = "b";
	m->functions[0]->value_info = vis;
	m->functions[0]->n_value_info = 1;
	ck_assert_str_eq(model_problem(m), "functions[0]: function 'F': value_info in a function needs IR version 10 (the model has 9)");
	m->ir_version = 10;
	ck_assert_str_eq(model_problem(m), "ok");
	OnnxProto_Free(m);
}
END_TEST

START_TEST(attribute_rules)
{
	Onnx__ModelProto *m = relu_model();
	Onnx__AttributeProto *a = m->graph->node[0]->attribute[0];
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	ck_assert_str_eq(model_problem(m), "graph.node[0] (LeakyRelu): attribute 'alpha' is declared int but holds a float value");
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
	a->has_i = 1;
	ck_assert_str_eq(model_problem(m), "graph.node[0] (LeakyRelu): attribute 'alpha' has 2 values; an attribute has one");
	a->has_i = 0;
	a->has_type = 0;
	ck_assert_str_eq(model_problem(m), "graph.node[0] (LeakyRelu): attribute 'alpha' has no type");
	a->has_type = 1;
	a->name = "";
	ck_assert_str_eq(model_problem(m), "graph.node[0] (LeakyRelu): an attribute has no name");
	OnnxProto_Free(m);
}
END_TEST

/* At most ONNXTXT_MAX_PROBLEMS problems are collected. */
START_TEST(problem_limit)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	fputs(HEAD "g (float[N] p) => (float[N] y) {\n  y = Relu (p)\n", f);
	for (int i = 0; i < 2 * ONNXTXT_MAX_PROBLEMS; i++)
		fprintf(f, "  t%d = Relu (u%d)\n", i, i);
	fputs("}\n", f);
	fclose(f);
	OnnxError err, *problems;
	size_t count;
	ck_assert_int_eq(OnnxModel_CheckText(text, size, &problems, &count, &err), ONNXTXT_ERR_INVALID);
	ck_assert_uint_eq(count, ONNXTXT_MAX_PROBLEMS);
	ck_assert_str_eq(show(&problems[count - 1]), "103:15: graph.node[100] (Relu): input 'u99' is not defined anywhere");
	free(problems);
	free(text);
}
END_TEST

/* Long chains grow the name tables; a valid one passes. */
START_TEST(many_nodes)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	fputs(HEAD "g (float[N] t0) => (float[N] y) {\n", f);
	for (int i = 0; i < 5000; i++)
		fprintf(f, "  t%d = Relu (t%d)\n", i + 1, i);
	fputs("  y = Identity (t5000)\n}\n", f);
	fclose(f);
	assert_valid_text("chain", text, size);
	free(text);
}
END_TEST

START_TEST(arguments)
{
	OnnxError err, *problems;
	size_t count;
	const char *bad = HEAD "g (float[N] p) => (float[N] y) { y = Relu (p }";
	ck_assert_int_eq(OnnxModel_Check(NULL, NULL, NULL, &err), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxModel_CheckText(bad, strlen(bad), &problems, NULL, &err), ONNXTXT_ERR_ARG);
	/* a syntax error is returned as such, with its place and no problems */
	ck_assert_int_eq(OnnxModel_CheckText(bad, strlen(bad), &problems, &count, &err), ONNXTXT_ERR_SYNTAX);
	ck_assert_uint_eq(err.line, 2);
	ck_assert_ptr_null(problems);
	ck_assert_uint_eq(count, 0);
	/* without problems, err alone says what was first */
	const char *invalid = HEAD "g (float[N] p) => (float[N] y) { y = Relu (q) }";
	ck_assert_int_eq(OnnxModel_CheckText(invalid, strlen(invalid), NULL, NULL, &err), ONNXTXT_ERR_INVALID);
	ck_assert_int_eq(err.code, ONNXTXT_ERR_INVALID);
	ck_assert_str_eq(show(&err), "2:44: graph.node[0] (Relu): input 'q' is not defined anywhere");
	ck_assert_uint_eq(err.offset, strlen(HEAD) + 43);
	ck_assert_uint_eq(err.length, 1);
	ck_assert_int_eq(OnnxModel_CheckText(invalid, strlen(invalid), NULL, NULL, NULL), ONNXTXT_ERR_INVALID);
}
END_TEST

int main(void)
{
	snprintf(check_dir, sizeof check_dir, "%s", tu_path(tu_source_root(), "corpus/check"));
	check_files = tu_list(check_dir, ".onnxtxt");
	int n = 0;
	while (check_files[n])
		n++;
	Suite *s = suite_create("check");
	TCase *corpus = tcase_create("corpus/check");
	tcase_add_loop_test(corpus, corpus_file_gives_its_problems, 0, n);
	tcase_add_loop_test(corpus, corpus_file_from_binary, 0, n);
	suite_add_tcase(s, corpus);
	TCase *tc = tcase_create("check");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, examples_are_valid);
	tcase_add_test(tc, backend_models_are_valid);
	tcase_add_test(tc, node_parts_are_located);
	tcase_add_test(tc, default_domain_and_versions);
	tcase_add_test(tc, functions);
	tcase_add_test(tc, tensor_rules);
	tcase_add_test(tc, attribute_rules);
	tcase_add_test(tc, binary_tensor_rules);
	tcase_add_test(tc, binary_external_and_types);
	tcase_add_test(tc, sparse_initializer_defines_a_name);
	tcase_add_test(tc, ir_version_fields);
	tcase_add_test(tc, problem_limit);
	tcase_add_test(tc, many_nodes);
	tcase_add_test(tc, arguments);
	suite_add_tcase(s, tc);
	int rc = tu_run(s);
	tu_free_list(check_files);
	return rc;
}
