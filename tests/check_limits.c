/* Limits against hostile input not met elsewhere (check_hostile: text nesting and size;
 * check_binary: structure and depth; check_eval: calls): the memory one call builds from its
 * input, and shapes and nesting in the evaluator. Each test meets a limit and its error. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "testutil.h"

/* A growable byte string. */
typedef struct buf {
	unsigned char *p;
	size_t n, cap;
} buf;

static void put(buf *b, const void *data, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		ck_assert(b->p);
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

static void put_str(buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void put_varint(buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	for (; v >= 0x80; v >>= 7)
		tmp[n++] = (unsigned char)(v | 0x80);
	tmp[n++] = (unsigned char)v;
	put(b, tmp, n);
}

/* A model whose graph holds n empty initializers: two bytes each on the wire ("2a 00"),
 * a TensorProto of over two hundred bytes each in memory. */
static buf empty_initializers(size_t n)
{
	buf graph = {0}, model = {0};
	for (size_t i = 0; i < n; i++)
		put(&graph, "\x2a\x00", 2);
	put(&model, "\x3a", 1); /* ModelProto.graph */
	put_varint(&model, graph.n);
	put(&model, graph.p, graph.n);
	free(graph.p);
	return model;
}

static void expect_memory_limit(OnnxStatus st, const OnnxError *e, size_t input, const char *per)
{
	ck_assert_msg(st == ONNXTXT_ERR_LIMIT, "status %d: %s", st, e->message);
	char want[200];
	snprintf(want, sizeof want,
		 "the model would take more than %zu MiB of memory (%d bytes per byte of %s, plus %u MiB)",
		 ox_memory_limit(input) >> 20, ONNXTXT_MAX_EXPANSION, per, (unsigned)(ox_memory_base >> 20));
	ck_assert_str_eq(e->message, want);
}

/* ---- binary ----------------------------------------------------------------------------------- */

/* With the base lowered to 1 MiB, 64 Ki empty tensors (128 KiB of input, 9 MiB allowed)
 * would need about 16 MiB: refused. A thousand read. */
START_TEST(binary_empty_messages_beyond_the_memory_limit)
{
	ox_memory_base = 1u << 20;
	buf ok = empty_initializers(1000), bad = empty_initializers(64 * 1024);
	Onnx__ModelProto *m;
	OnnxError e;
	ck_assert_int_eq(OnnxBinary_Read(ok.p, ok.n, &m, &e), ONNXTXT_OK);
	ck_assert_uint_eq(m->graph->n_initializer, 1000);
	OnnxProto_Free(m);
	expect_memory_limit(OnnxBinary_Read(bad.p, bad.n, &m, &e), &e, bad.n, "input");
	ck_assert_ptr_null(m);
	free(ok.p);
	free(bad.p);
}
END_TEST

/* The limit applies to one call's unpacking only: a model that was read may then grow
 * without it (external data embedded, say). */
START_TEST(binary_limit_ends_with_the_call)
{
	ox_memory_base = 1u << 20;
	buf ok = empty_initializers(10);
	Onnx__ModelProto *m;
	OnnxError e;
	ck_assert_int_eq(OnnxBinary_Read(ok.p, ok.n, &m, &e), ONNXTXT_OK);
	ck_assert_ptr_nonnull(ox_arena_alloc(ox_root_arena(m), 8u << 20));
	OnnxProto_Free(m);
	free(ok.p);
}
END_TEST

/* At the real limits: 2 MiB of empty tensors (192 MiB allowed) would need 240 MiB. Too
 * slow under valgrind (ONNXTXT_SLOW), where the lowered limits above suffice. */
START_TEST(binary_empty_messages_at_the_real_limit)
{
	if (getenv("ONNXTXT_SLOW"))
		return;
	size_t n = 1024 * 1024;
	buf bad = empty_initializers(n);
	Onnx__ModelProto *m;
	OnnxError e;
	expect_memory_limit(OnnxBinary_Read(bad.p, bad.n, &m, &e), &e, bad.n, "input");
	free(bad.p);
}
END_TEST

/* ---- text ------------------------------------------------------------------------------------- */

/* "a=1," is four bytes of text and an AttributeProto of about 260 bytes in memory, the
 * densest text there is; with no base allowance, a quarter million of them are refused,
 * at the position where the parse stopped. Inputs read well within the limit. */
START_TEST(text_attributes_beyond_the_memory_limit)
{
	ox_memory_base = 0;
	buf t = {0};
	put_str(&t, "y = Foo <a=1");
	for (int i = 0; i < 250000; i++)
		put_str(&t, ",a=1");
	put_str(&t, "> (x)");
	Onnx__NodeProto *n;
	OnnxError e;
	OnnxStatus st = OnnxParser_ParseNode((const char *)t.p, t.n, &n, &e);
	expect_memory_limit(st, &e, t.n, "text");
	ck_assert_msg(e.offset > 0 && e.offset <= t.n && e.line == 1 && e.column == e.offset + 1, "at %zu: %u:%u",
		      e.offset, e.line, e.column);
	free(t.p);

	ox_memory_base = 1u << 20;
	t = (buf){0};
	put_str(&t, "y = Concat(x");
	for (int i = 0; i < 250000; i++)
		put_str(&t, ", x");
	put_str(&t, ")");
	ck_assert_int_eq(OnnxParser_ParseNode((const char *)t.p, t.n, &n, &e), ONNXTXT_OK);
	ck_assert_uint_eq(n->n_input, 250001);
	OnnxProto_Free(n);
	free(t.p);
}
END_TEST

/* Text converted straight to binary: the node being streamed has the same limit. */
START_TEST(text_to_binary_beyond_the_memory_limit)
{
	ox_memory_base = 0;
	buf t = {0};
	put_str(&t, "<ir_version: 8>\ng (x) => (y) {\n  y = Foo <a=1");
	for (int i = 0; i < 250000; i++)
		put_str(&t, ",a=1");
	put_str(&t, "> (x)\n}\n");
	FILE *f = fopen("/dev/null", "wb");
	OnnxError e;
	expect_memory_limit(OnnxParser_ParseToBinary((const char *)t.p, t.n, f, &e), &e, t.n, "text");
	fclose(f);
	free(t.p);
}
END_TEST

/* ---- evaluation --------------------------------------------------------------------------------- */

/* Runs a one-node model on inputs given as text; returns the status, with the error. */
static OnnxStatus eval_text(const char *model, const char *const *inputs, OnnxError *e)
{
	Onnx__ModelProto *m = tu_model(model);
	OnnxSession *s;
	OnnxStatus st = OnnxSession_New(m, &s, e);
	ck_assert_msg(st == ONNXTXT_OK, "%s", e->message);
	for (size_t i = 0; inputs[i]; i += 2) {
		OnnxValue *v;
		ck_assert_int_eq(OnnxValue_Parse(inputs[i + 1], strlen(inputs[i + 1]), &v, e), ONNXTXT_OK);
		ck_assert_int_eq(OnnxSession_SetInput(s, inputs[i], v, e), ONNXTXT_OK);
		OnnxValue_Free(v);
	}
	st = OnnxSession_Run(s, e);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	return st;
}

/* Shapes computed from input data are checked before anything is allocated: a crop to a
 * size whose pads overflow int64 (found by fuzz_eval), and a shape of 2^40 elements. */
START_TEST(eval_shapes_from_data_beyond_the_limits)
{
	static const char *const crop_in[] = {"x", "float[2] {1, 2}", "shape", "int64[1] {9223372036854775807}", NULL};
	OnnxError e;
	OnnxStatus st = eval_text("<ir_version: 8, opset_import: [\"\" : 18]>\n"
				  "g (float[2] x, int64[1] shape) => (float y) { y = CenterCropPad(x, shape) }",
				  crop_in, &e);
	ck_assert_int_eq(st, ONNXTXT_ERR_EVAL);
	ck_assert_msg(strstr(e.message, "graph.node[0] (CenterCropPad): axis 0: pads") &&
			      strstr(e.message, "more than the limit of 2^36"),
		      "%s", e.message);
	static const char *const shape_in[] = {"shape", "int64[2] {1048576, 1048576}", NULL};
	st = eval_text("<ir_version: 8, opset_import: [\"\" : 18]>\n"
		       "g (int64[2] shape) => (float y) { y = ConstantOfShape(shape) }",
		       shape_in, &e);
	ck_assert_int_eq(st, ONNXTXT_ERR_EVAL);
	ck_assert_msg(strstr(e.message, "graph.node[0] (ConstantOfShape)") && strstr(e.message, "limit of 2^36"), "%s",
		      e.message);
}
END_TEST

/* If nodes nested 70 deep, built in memory from one parsed level: the text (64 brackets)
 * and binary (192 messages) limits keep parsed models within the evaluator's 64 levels of
 * sub-graphs, but a model built in C is not parsed. The session refuses it, naming the
 * node where the limit was reached; 60 levels run. */
static const char IF_TEXT[] = "<ir_version: 8, opset_import: [\"\" : 18]>\n"
			      "g (bool c) => (float y) {\n"
			      "  y = If <then_branch = t () => (float y) { y = Constant <value = float {1}> () },\n"
			      "          else_branch = e () => (float y) { y = Constant <value = float {2}> () }> (c)\n"
			      "}\n";

static OnnxStatus run_nested_ifs(int levels, OnnxError *e)
{
	Onnx__ModelProto *m = tu_model(IF_TEXT);
	Onnx__GraphProto *graphs = calloc((size_t)levels, sizeof *graphs);
	Onnx__NodeProto *nodes = calloc((size_t)levels, sizeof *nodes);
	Onnx__NodeProto **node_ptrs = calloc((size_t)levels, sizeof *node_ptrs);
	Onnx__AttributeProto *attrs = calloc((size_t)levels, sizeof *attrs);
	Onnx__AttributeProto **attr_ptrs = calloc(2 * (size_t)levels, sizeof *attr_ptrs);
	ck_assert(graphs && nodes && node_ptrs && attrs && attr_ptrs);
	const Onnx__NodeProto *top = m->graph->node[0];
	Onnx__GraphProto *inner = top->attribute[0]->g; /* the innermost then_branch: a leaf */
	for (int k = 0; k < levels; k++) {
		/* level k: a graph t whose If's then_branch is level k - 1 */
		attrs[k] = *top->attribute[0];
		attrs[k].g = inner;
		attr_ptrs[2 * k] = &attrs[k];
		attr_ptrs[2 * k + 1] = top->attribute[1];
		nodes[k] = *top;
		nodes[k].attribute = &attr_ptrs[2 * k];
		node_ptrs[k] = &nodes[k];
		graphs[k] = *top->attribute[0]->g;
		graphs[k].n_node = 1;
		graphs[k].node = &node_ptrs[k];
		inner = &graphs[k];
	}
	Onnx__GraphProto *saved = top->attribute[0]->g;
	top->attribute[0]->g = inner;
	OnnxSession *s;
	OnnxStatus st = OnnxSession_New(m, &s, e);
	if (st == ONNXTXT_OK) {
		OnnxValue *c;
		ck_assert_int_eq(OnnxValue_Parse("bool {1}", 8, &c, e), ONNXTXT_OK);
		ck_assert_int_eq(OnnxSession_SetInput(s, "c", c, e), ONNXTXT_OK);
		st = OnnxSession_Run(s, e);
		OnnxValue_Free(c);
		OnnxSession_Free(s);
	}
	top->attribute[0]->g = saved;
	free(graphs);
	free(nodes);
	free(node_ptrs);
	free(attrs);
	free(attr_ptrs);
	OnnxProto_Free(m);
	return st;
}

START_TEST(eval_sub_graphs_nested_beyond_the_limit)
{
	OnnxError e;
	OnnxStatus st = run_nested_ifs(60, &e);
	ck_assert_msg(st == ONNXTXT_OK, "60 levels: %s", e.message);
	st = run_nested_ifs(70, &e);
	ck_assert_msg(st == ONNXTXT_ERR_LIMIT, "70 levels: status %d: %s", st, e.message);
	ck_assert_msg(strstr(e.message, "sub-graphs nest deeper than 64"), "%s", e.message);
}
END_TEST

static void reset_limits(void)
{
	ox_memory_base = ONNXTXT_MAX_MEMORY_BASE;
}

int main(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("memory");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, reset_limits, reset_limits);
	tcase_add_test(tc, binary_empty_messages_beyond_the_memory_limit);
	tcase_add_test(tc, binary_limit_ends_with_the_call);
	tcase_add_test(tc, binary_empty_messages_at_the_real_limit);
	tcase_add_test(tc, text_attributes_beyond_the_memory_limit);
	tcase_add_test(tc, text_to_binary_beyond_the_memory_limit);
	suite_add_tcase(s, tc);
	tc = tcase_create("evaluation");
	tcase_add_test(tc, eval_shapes_from_data_beyond_the_limits);
	tcase_add_test(tc, eval_sub_graphs_nested_beyond_the_limit);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
