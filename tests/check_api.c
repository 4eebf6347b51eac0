/* The public API as a caller sees it: every entry point on valid, invalid and trailing input,
 * NULL arguments, ownership (run under LSan by tools/test.sh), embedded NUL bytes, the
 * fields of OnnxError and what OnnxError_Format renders. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dirent.h>

#include "file.h"
#include "testutil.h"

typedef OnnxStatus (*entry_fn)(const char *, size_t, void **, OnnxError *);

static const struct entry {
	const char *kind;
	entry_fn fn;
	const char *valid;   /* parses */
	const char *invalid; /* a syntax or value error */
	const char *head;    /* parses ... */
	const char *tail;    /* ... but not with this after it (P3), a space then the text */
} entries[] = {
	{"model", (entry_fn)OnnxParser_Parse,
	 "<ir_version: 8, opset_import: [\"\" : 18]> g (float[2] x) => (float[2] y) { y = Relu(x) }",
	 "<ir_version: 8> g (float[2] x) => (float[2] y) { y = Relu(x }",
	 "<ir_version: 8> g (float[2] x) => (float[2] y) { y = Relu(x) }", " }"},
	{"graph", (entry_fn)OnnxParser_ParseGraph, "g (float[2] x) => (float[2] y) { y = Relu(x) }",
	 "g (float[2] x) => (float[2] y) { y = Relu(x) ", "g (float[2] x) => (float[2] y) { y = Relu(x) }", " z"},
	{"function", (entry_fn)OnnxParser_ParseFunction,
	 "<domain: \"local\", opset_import: [\"\" : 18]> twice (x) => (y) { y = Add(x, x) }",
	 "<domain: \"local\"> twice (x) => (y) { y = Add(x, x)) }", "<domain: \"local\"> twice (x) => (y) { y = Add(x, x) }",
	 " twice"},
	{"node", (entry_fn)OnnxParser_ParseNode, "[n1] y = Relu <alpha = 0.5> (x)", "y = Relu(x", "y = Relu(x)", " z"},
	{"nodes", (entry_fn)OnnxParser_ParseNodeList, "{ t = Relu(x) y = Neg(t) }", "t = Relu(x) y = ",
	 "{ t = Relu(x) }", " y = Neg(t)"},
	{"type", (entry_fn)OnnxParser_ParseType, "map(int64, seq(float[N, 3]))", "map(int64 seq(float))", "float[N]",
	 " x"},
	{"tensor", (entry_fn)OnnxParser_ParseTensor, "int64[3] t = {1, 2, 3}", "int64[3] t = {1, 2}",
	 "int64[3] t = {1, 2, 3}", " 4"},
	{"attribute", (entry_fn)OnnxParser_ParseAttribute, "ints = [1, 2, 3]", "ints = [1, 2, 3", "ints = [1, 2, 3]",
	 ", alpha = 1.0"},
	{"value_info", (entry_fn)OnnxParser_ParseValueInfo, "float[N, 3] x", "float[N, 3 x", "float[N, 3] x", " y"},
};
#define NENTRIES (sizeof entries / sizeof *entries)

/* Checks a failed call: a code, a message, a position inside the text, *out reset. */
static void check_failure(const struct entry *en, const char *text, OnnxStatus st, void *out, const OnnxError *e)
{
	ck_assert_msg(st == ONNXTXT_ERR_SYNTAX || st == ONNXTXT_ERR_VALUE, "%s: \"%s\": status %d: %s", en->kind, text,
		      st, e->message);
	ck_assert_int_eq(e->code, st);
	ck_assert_msg(out == NULL, "%s: \"%s\": *out is not NULL after failure", en->kind, text);
	ck_assert_msg(e->message[0], "%s: no message", en->kind);
	ck_assert_msg(e->line >= 1 && e->column >= 1, "%s: \"%s\": no position", en->kind, text);
	ck_assert_msg(e->offset <= strlen(text), "%s: offset %zu beyond the text", en->kind, e->offset);
}

START_TEST(valid_input_parses)
{
	const struct entry *en = &entries[_i];
	void *out = NULL;
	OnnxError e;
	OnnxStatus st = en->fn(en->valid, strlen(en->valid), &out, &e);
	ck_assert_msg(st == ONNXTXT_OK, "%s: %u:%u: %s", en->kind, e.line, e.column, e.message);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(e.code, ONNXTXT_OK);
	/* the result is a complete message: it packs */
	size_t n;
	free(tu_pack(out, &n));
	OnnxProto_Free(out);
	/* without an error struct */
	out = NULL;
	ck_assert_int_eq(en->fn(en->valid, strlen(en->valid), &out, NULL), ONNXTXT_OK);
	ck_assert_ptr_nonnull(out);
	OnnxProto_Free(out);
}
END_TEST

START_TEST(invalid_input_fails)
{
	const struct entry *en = &entries[_i];
	void *out = &out;
	OnnxError e;
	OnnxStatus st = en->fn(en->invalid, strlen(en->invalid), &out, &e);
	check_failure(en, en->invalid, st, out, &e);
	out = &out;
	ck_assert_int_eq(en->fn(en->invalid, strlen(en->invalid), &out, NULL), st);
	ck_assert_ptr_null(out);
}
END_TEST

/* P3: each entry point consumes the whole input. */
START_TEST(trailing_text_is_an_error)
{
	const struct entry *en = &entries[_i];
	void *out = NULL;
	OnnxError e;
	OnnxStatus st = en->fn(en->head, strlen(en->head), &out, &e);
	ck_assert_msg(st == ONNXTXT_OK, "%s: \"%s\": %s", en->kind, en->head, e.message);
	OnnxProto_Free(out);
	char *text;
	ck_assert_int_ge(asprintf(&text, "%s%s", en->head, en->tail), 0);
	size_t at = strlen(en->head) + strspn(en->tail, " ");
	if (en->tail[0] == ',')
		at = strlen(en->head);
	out = &out;
	st = en->fn(text, strlen(text), &out, &e);
	check_failure(en, text, st, out, &e);
	ck_assert_msg(e.offset == at, "%s: \"%s\": error at byte %zu (%s), want %zu", en->kind, text, e.offset,
		      e.message, at);
	ck_assert_msg(strstr(e.message, "end of input"), "%s: the message should say end of input was expected: %s",
		      en->kind, e.message);
	free(text);
}
END_TEST

START_TEST(null_arguments)
{
	const struct entry *en = &entries[_i];
	OnnxError e;
	void *out = &out;
	/* a NULL output pointer */
	memset(&e, 0xab, sizeof e);
	ck_assert_int_eq(en->fn(en->valid, strlen(en->valid), NULL, &e), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(e.code, ONNXTXT_ERR_ARG);
	ck_assert_msg(e.message[0] && memchr(e.message, 0, sizeof e.message), "%s: no message", en->kind);
	ck_assert(e.line == 0 && e.column == 0);
	/* NULL text with a length */
	memset(&e, 0xab, sizeof e);
	ck_assert_int_eq(en->fn(NULL, 5, &out, &e), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(e.code, ONNXTXT_ERR_ARG);
	ck_assert_msg(e.message[0] && memchr(e.message, 0, sizeof e.message), "%s: no message", en->kind);
	/* and both without an error struct */
	ck_assert_int_eq(en->fn(en->valid, strlen(en->valid), NULL, NULL), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(en->fn(NULL, 5, &out, NULL), ONNXTXT_ERR_ARG);
	/* NULL text of length 0 is the empty text */
	void *a = &a, *b = &b;
	OnnxError ea, eb;
	OnnxStatus sa = en->fn(NULL, 0, &a, &ea), sb = en->fn("", 0, &b, &eb);
	ck_assert_int_eq(sa, sb);
	ck_assert_str_eq(ea.message, eb.message);
	ck_assert_msg((sa == ONNXTXT_OK) == (a != NULL), "%s: *out does not match the status", en->kind);
	OnnxProto_Free(sa == ONNXTXT_OK ? a : NULL);
	OnnxProto_Free(sb == ONNXTXT_OK ? b : NULL);
}
END_TEST

START_TEST(binary_null_arguments)
{
	OnnxError e;
	Onnx__ModelProto *m = tu_model("<ir_version: 8> g () => () {}");
	void *data;
	size_t len;
	Onnx__ModelProto *out;
	ck_assert_int_eq(OnnxBinary_Read("", 0, NULL, &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxBinary_Read(NULL, 3, &out, &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxBinary_Read(NULL, 3, &out, NULL), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxBinary_ReadFile(NULL, &out, &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxBinary_ReadFile("model.onnx", NULL, &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxBinary_ReadFile(NULL, NULL, NULL), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxBinary_Write(NULL, &data, &len, &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxBinary_Write(m, NULL, &len, &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxBinary_Write(m, &data, NULL, &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxBinary_Write(m, &data, NULL, NULL), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxBinary_WriteFile(NULL, "never-written.onnx", &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxBinary_WriteFile(m, NULL, &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_ne(access("never-written.onnx", F_OK), 0);
	OnnxProto_Free(NULL);
	OnnxProto_Free(m);
}
END_TEST

START_TEST(read_file_errors)
{
	Onnx__ModelProto *out;
	OnnxError e;
	ck_assert_int_eq(OnnxBinary_ReadFile("/nonexistent/dir/model.onnx", &out, &e), ONNXTXT_ERR_IO);
	ck_assert_int_eq(e.code, ONNXTXT_ERR_IO);
	ck_assert_int_eq(e.sys_errno, ENOENT);
	ck_assert_msg(strstr(e.message, "/nonexistent/dir/model.onnx"), "the message names no file: %s", e.message);
	ck_assert_int_eq(OnnxBinary_ReadFile("/", &out, &e), ONNXTXT_ERR_IO);
	ck_assert_int_eq(e.sys_errno, EISDIR);
	ck_assert_int_eq(OnnxBinary_ReadFile("/nonexistent", &out, NULL), ONNXTXT_ERR_IO);
	/* malformed content is a binary error, not an I/O error */
	char path[] = "/tmp/onnxtxt-check-api-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "\x3a\x10\x0a", 3), 3);
	close(fd);
	out = (void *)&out;
	ck_assert_int_eq(OnnxBinary_ReadFile(path, &out, &e), ONNXTXT_ERR_BINARY);
	ck_assert_str_eq(e.message, "graph: length runs past the end of the data (at byte 0)");
	ck_assert_ptr_null(out);
	unlink(path);
}
END_TEST

/* Everything the library returns is freed by OnnxProto_Free alone; LSan (tools/test.sh)
 * reports anything left over. Also frees after failures that happen deep in a parse. */
START_TEST(one_free_releases_everything)
{
	for (size_t i = 0; i < NENTRIES; i++) {
		for (int round = 0; round < 3; round++) {
			void *out = NULL;
			OnnxError e;
			ck_assert_int_eq(entries[i].fn(entries[i].valid, strlen(entries[i].valid), &out, &e), ONNXTXT_OK);
			OnnxProto_Free(out);
			out = NULL;
			entries[i].fn(entries[i].invalid, strlen(entries[i].invalid), &out, &e);
			char *text;
			ck_assert_int_ge(asprintf(&text, "%s%s", entries[i].head, entries[i].tail), 0);
			entries[i].fn(text, strlen(text), &out, NULL);
			free(text);
		}
	}
	/* a model big enough to need many arena blocks, read back from binary */
	size_t cap = 4 << 20, n = 0;
	char *text = malloc(cap);
	n += (size_t)snprintf(text + n, cap - n, "<ir_version: 8, opset_import: [\"\" : 18]> g (float x) => (float y) {\n");
	for (int k = 0; k < 20000; k++)
		n += (size_t)snprintf(text + n, cap - n, "  v%d = Add <alpha = %d, s = \"%d\"> (v%d, x)\n", k + 1, k, k, k);
	n += (size_t)snprintf(text + n, cap - n, "}\n");
	Onnx__ModelProto *m = NULL, *back = NULL;
	OnnxError e;
	ck_assert_int_eq(OnnxParser_Parse(text, n, &m, &e), ONNXTXT_OK);
	void *data;
	size_t len;
	ck_assert_int_eq(OnnxBinary_Write(m, &data, &len, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxBinary_Read(data, len, &back, &e), ONNXTXT_OK);
	ck_assert_uint_eq(back->graph->n_node, 20000);
	OnnxProto_Free(back);
	OnnxProto_Free(m);
	/* failures deep inside: the last node is broken */
	text[n - 4] = '(';
	m = (void *)&m;
	ck_assert_int_ne(OnnxParser_Parse(text, n, &m, &e), ONNXTXT_OK);
	ck_assert_ptr_null(m);
	((char *)data)[len - 1] ^= 0x80; /* last byte becomes a continuation */
	back = (void *)&back;
	ck_assert_int_ne(OnnxBinary_Read(data, len, &back, &e), ONNXTXT_OK);
	ck_assert_ptr_null(back);
	free(data);
	free(text);
	OnnxProto_Free(NULL);
}
END_TEST

/* ---- embedded NUL (P3) -------------------------------------------------------------------- */

START_TEST(nul_inside_strings_is_kept_in_bytes_fields)
{
	static const char attr_s[] = "s = \"a\0b\"";
	Onnx__AttributeProto *a = NULL;
	OnnxError e;
	ck_assert_int_eq(OnnxParser_ParseAttribute(attr_s, sizeof attr_s - 1, &a, &e), ONNXTXT_OK);
	ck_assert_uint_eq(a->s.len, 3);
	ck_assert(memcmp(a->s.data, "a\0b", 3) == 0);
	OnnxProto_Free(a);

	static const char attr_strings[] = "ss = [\"\0\", \"x\0\0y\"]";
	ck_assert_int_eq(OnnxParser_ParseAttribute(attr_strings, sizeof attr_strings - 1, &a, &e), ONNXTXT_OK);
	ck_assert_uint_eq(a->n_strings, 2);
	ck_assert_uint_eq(a->strings[0].len, 1);
	ck_assert_uint_eq(a->strings[1].len, 4);
	ck_assert(memcmp(a->strings[1].data, "x\0\0y", 4) == 0);
	OnnxProto_Free(a);

	static const char tensor[] = "string[2] t = {\"a\0b\", \"\0\"}";
	Onnx__TensorProto *t = NULL;
	ck_assert_int_eq(OnnxParser_ParseTensor(tensor, sizeof tensor - 1, &t, &e), ONNXTXT_OK);
	ck_assert_uint_eq(t->n_string_data, 2);
	ck_assert_uint_eq(t->string_data[0].len, 3);
	ck_assert(memcmp(t->string_data[0].data, "a\0b", 3) == 0);
	ck_assert_uint_eq(t->string_data[1].len, 1);
	ck_assert_str_eq(t->name, "t");
	OnnxProto_Free(t);

	/* and through a whole model, binary and back */
	static const char model[] = "<ir_version: 8, opset_import: [\"\" : 18]>\n"
				    "g () => (string[1] y) { y = Constant <value = string[1] {\"\0\1\0\"}, s = \"\0\"> () }";
	Onnx__ModelProto *m = NULL, *back = NULL;
	ck_assert_int_eq(OnnxParser_Parse(model, sizeof model - 1, &m, &e), ONNXTXT_OK);
	void *data;
	size_t len;
	ck_assert_int_eq(OnnxBinary_Write(m, &data, &len, &e), ONNXTXT_OK);
	ck_assert_int_eq(OnnxBinary_Read(data, len, &back, &e), ONNXTXT_OK);
	Onnx__NodeProto *n = back->graph->node[0];
	ck_assert_uint_eq(n->attribute[0]->t->string_data[0].len, 3);
	ck_assert(memcmp(n->attribute[0]->t->string_data[0].data, "\0\1\0", 3) == 0);
	ck_assert_uint_eq(n->attribute[1]->s.len, 1);
	free(data);
	OnnxProto_Free(back);
	OnnxProto_Free(m);
}
END_TEST

/* A NUL outside a string literal is an error at its own position, never the end of input. */
START_TEST(nul_elsewhere_is_an_error)
{
	static const struct {
		const char *text;
		size_t len, at;
	} cases[] = {
		{"y = Relu(x)\0", 12, 11},          /* at the end */
		{"y = Relu(x)\0 z = Neg(y)", 23, 11}, /* where the text would be cut */
		{"y = Re\0lu(x)", 12, 6},           /* inside a name */
		{"y = Relu(x) # a\0comment", 23, 15}, /* inside a comment */
		{"\0y = Relu(x)", 12, 0},           /* at the start */
		{"y = Relu <a = 1\0> (x)", 21, 15},  /* after a number */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		Onnx__GraphProto *g = (void *)&g;
		OnnxError e;
		OnnxStatus st = OnnxParser_ParseNodeList(cases[i].text, cases[i].len, &g, &e);
		ck_assert_msg(st == ONNXTXT_ERR_SYNTAX, "case %zu: status %d: %s", i, st, e.message);
		ck_assert_ptr_null(g);
		ck_assert_msg(e.offset == cases[i].at && e.length == 1, "case %zu: at byte %zu (+%zu), want %zu: %s", i,
			      e.offset, e.length, cases[i].at, e.message);
		ck_assert_uint_eq(e.line, 1);
		ck_assert_uint_eq(e.column, cases[i].at + 1);
		ck_assert_str_eq(e.message, "NUL byte outside a string literal");
	}
	/* a name cannot hold a NUL (its field is a C string): a value error on the literal */
	static const char name[] = "y = Relu(\"a\0b\")";
	Onnx__NodeProto *n = (void *)&n;
	OnnxError e;
	ck_assert_int_eq(OnnxParser_ParseNode(name, sizeof name - 1, &n, &e), ONNXTXT_ERR_VALUE);
	ck_assert_ptr_null(n);
	ck_assert_uint_eq(e.offset, 9);
	ck_assert_uint_eq(e.length, 5);
}
END_TEST

/* ---- OnnxError and OnnxError_Format ----------------------------------------------------- */

typedef struct expected_error {
	const char *kind, *text;
	OnnxStatus code;
	unsigned line, column;
	size_t offset, length;
	const char *formatted; /* OnnxError_Format with file "m.onnxtxt" */
} expected_error;

static const expected_error errors[] = {
	{"graph", "g (float[N] x) => (float y) { y = Add(x, }", ONNXTXT_ERR_SYNTAX, 1, 42, 41, 1,
	 "m.onnxtxt:1:42: error: expected ')', ',', an identifier or a string after ',', found '}'\n"
	 "g (float[N] x) => (float y) { y = Add(x, }\n"
	 "                                         ^\n"},
	/* columns count characters; the echoed line keeps its tab */
	{"graph", "# \xe4\xb8\xad\xe6\x96\x87\ng (float[N] x) => (float y) {\n\ty = Add(x\xc3\xa9) }", ONNXTXT_ERR_SYNTAX, 3,
	 11, 49, 2,
	 "m.onnxtxt:3:11: error: unexpected character '\xc3\xa9'\n"
	 "\ty = Add(x\xc3\xa9) }\n"
	 "\t         ^\n"},
	{"tensor", "int8[2] {1, 300}", ONNXTXT_ERR_VALUE, 1, 13, 12, 3,
	 "m.onnxtxt:1:13: error: value 300 is out of range for int8\n"
	 "int8[2] {1, 300}\n"
	 "            ^~~\n"},
	{"tensor", "float[1] {1e}", ONNXTXT_ERR_SYNTAX, 1, 11, 10, 2,
	 "m.onnxtxt:1:11: error: malformed number: the exponent has no digits\n"
	 "float[1] {1e}\n"
	 "          ^~\n"},
	/* at the end of the input, after a final newline */
	{"graph", "g () => () {\n", ONNXTXT_ERR_SYNTAX, 1, 13, 12, 0,
	 "m.onnxtxt:1:13: error: expected '[', '}', ',', '=', an identifier or a string after '{', found end of input\n"
	 "g () => () {\n"
	 "            ^\n"},
	{"graph", "g (x) = > (y) {}", ONNXTXT_ERR_SYNTAX, 1, 7, 6, 1,
	 "m.onnxtxt:1:7: error: expected '=>' after ')', found '='; '=>' is one token, write it without a space\n"
	 "g (x) = > (y) {}\n"
	 "      ^\n"},
};
#define NERRORS (sizeof errors / sizeof *errors)

START_TEST(error_fields)
{
	const expected_error *x = &errors[_i];
	void *out = &out;
	OnnxError e;
	OnnxStatus st = tu_parse(x->kind, x->text, strlen(x->text), &out, &e);
	ck_assert_int_eq(st, x->code);
	ck_assert_int_eq(e.code, x->code);
	ck_assert_ptr_null(out);
	ck_assert_msg(e.line == x->line && e.column == x->column, "%u:%u, want %u:%u (%s)", e.line, e.column, x->line,
		      x->column, e.message);
	ck_assert_uint_eq(e.offset, x->offset);
	ck_assert_uint_eq(e.length, x->length);
	ck_assert_int_eq(e.sys_errno, 0);

	char buf[1024];
	size_t n = OnnxError_Format(&e, "m.onnxtxt", x->text, strlen(x->text), buf, sizeof buf);
	ck_assert_str_eq(buf, x->formatted);
	ck_assert_uint_eq(n, strlen(x->formatted));
	/* like snprintf: the length needed, a truncated but terminated buffer */
	ck_assert_uint_eq(OnnxError_Format(&e, "m.onnxtxt", x->text, strlen(x->text), NULL, 0), n);
	char small[11];
	memset(small, 'X', sizeof small);
	ck_assert_uint_eq(OnnxError_Format(&e, "m.onnxtxt", x->text, strlen(x->text), small, 10), n);
	ck_assert_str_eq(small, "m.onnxtxt");
	ck_assert_int_eq(small[10], 'X');
	for (size_t size = 1; size <= n + 1; size++) {
		char *b = malloc(size);
		ck_assert_uint_eq(OnnxError_Format(&e, "m.onnxtxt", x->text, strlen(x->text), b, size), n);
		ck_assert_uint_eq(strlen(b), size - 1 < n ? size - 1 : n);
		ck_assert(strncmp(b, x->formatted, strlen(b)) == 0);
		free(b);
	}
	/* no file name: <stdin>; no text: the first line only */
	OnnxError_Format(&e, NULL, x->text, strlen(x->text), buf, sizeof buf);
	ck_assert_msg(strncmp(buf, "<stdin>:", 8) == 0 && strcmp(buf + 7, x->formatted + 9) == 0, "%s", buf);
	OnnxError_Format(&e, "m.onnxtxt", NULL, 0, buf, sizeof buf);
	ck_assert_msg(strlen(buf) == (size_t)(strchr(x->formatted, '\n') - x->formatted) + 1 &&
			      strncmp(buf, x->formatted, strlen(buf)) == 0,
		      "%s", buf);
}
END_TEST

START_TEST(errors_without_a_position)
{
	OnnxError e;
	Onnx__ModelProto *m;
	ck_assert_int_eq(OnnxBinary_Read("\x08", 1, &m, &e), ONNXTXT_ERR_BINARY);
	ck_assert(e.line == 0 && e.column == 0);
	char buf[600];
	OnnxError_Format(&e, "m.onnx", NULL, 0, buf, sizeof buf);
	ck_assert_str_eq(buf, "m.onnx: error: ir_version: malformed varint (at byte 0)\n");
	/* a text is ignored when the error has no line */
	OnnxError_Format(&e, NULL, "\x08", 1, buf, sizeof buf);
	ck_assert_str_eq(buf, "<stdin>: error: ir_version: malformed varint (at byte 0)\n");

	ck_assert_int_eq(OnnxParser_Parse(NULL, 1, &m, &e), ONNXTXT_ERR_ARG);
	ck_assert(e.line == 0 && e.column == 0 && e.offset == 0 && e.length == 0);
	ck_assert_int_eq(OnnxBinary_ReadFile("/nonexistent/m.onnx", &m, &e), ONNXTXT_ERR_IO);
	ck_assert(e.line == 0 && e.column == 0);
	ck_assert_int_eq(e.sys_errno, ENOENT);
}
END_TEST

START_TEST(nesting_limit_error_fields)
{
	char text[400] = "";
	for (int i = 0; i <= ONNXTXT_MAX_DEPTH; i++)
		strcat(text, "seq(");
	strcat(text, "float");
	for (int i = 0; i <= ONNXTXT_MAX_DEPTH; i++)
		strcat(text, ")");
	Onnx__TypeProto *t = (void *)&t;
	OnnxError e;
	ck_assert_int_eq(OnnxParser_ParseType(text, strlen(text), &t, &e), ONNXTXT_ERR_LIMIT);
	ck_assert_ptr_null(t);
	ck_assert_uint_eq(e.line, 1);
	ck_assert_uint_eq(e.offset, 4 * ONNXTXT_MAX_DEPTH + 3); /* the '(' one too many */
	ck_assert_uint_eq(e.column, 4 * ONNXTXT_MAX_DEPTH + 4);
	ck_assert_uint_eq(e.length, 1);
	ck_assert_str_eq(e.message, "nesting too deep: more than 64 levels of brackets");
}
END_TEST

/* More than ONNXTXT_MAX_TEXT bytes is refused up front (the bytes are readable zeros, so a
 * parser that read them would report a NUL byte instead). */
START_TEST(text_longer_than_the_limit)
{
#if SIZE_MAX > 0xffffffffu
	size_t n = (size_t)ONNXTXT_MAX_TEXT + 1;
	void *text = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ck_assert_msg(text != MAP_FAILED, "mmap");
	for (size_t i = 0; i < NENTRIES; i++) {
		void *out = &out;
		OnnxError e;
		ck_assert_int_eq(entries[i].fn(text, n, &out, &e), ONNXTXT_ERR_LIMIT);
		ck_assert_ptr_null(out);
		ck_assert_msg(strstr(e.message, "4294967295"), "the limit is not named: %s", e.message);
	}
	munmap(text, n);
#endif
}
END_TEST

/* A stream that cannot be written: the error says why, and sys_errno has the reason. */
START_TEST(stream_write_errors_say_why)
{
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		return; /* no /dev/full here: nothing to write to that fails */
	setvbuf(f, NULL, _IONBF, 0);
	const char *text = entries[0].valid;
	Onnx__ModelProto *m;
	OnnxError err;
	ck_assert_int_eq(OnnxParser_Parse(text, strlen(text), &m, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxPrinter_Write(m, 0, f, &err), ONNXTXT_ERR_IO);
	ck_assert_str_eq(err.message, "cannot write the text: No space left on device");
	ck_assert_int_eq(err.sys_errno, ENOSPC);
	ck_assert_int_eq(OnnxPrinter_Dot(m, f, &err), ONNXTXT_ERR_IO);
	ck_assert_str_eq(err.message, "cannot write the graph: No space left on device");
	ck_assert_int_eq(err.sys_errno, ENOSPC);
	ck_assert_int_eq(OnnxParser_ParseToBinary(text, strlen(text), f, &err), ONNXTXT_ERR_IO);
	ck_assert_str_eq(err.message, "cannot write the model: No space left on device");
	ck_assert_int_eq(err.sys_errno, ENOSPC);
	/* a file that cannot be written is named */
	ck_assert_int_eq(OnnxPrinter_WriteFile(m, 0, "/dev/full", &err), ONNXTXT_ERR_IO);
	ck_assert_str_eq(err.message, "cannot write /dev/full: No space left on device");
	OnnxProto_Free(m);
	fclose(f);
}
END_TEST

/* The entries of dir but . and .., joined by spaces. */
static void list_dir(const char *dir, char *out, size_t size)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	out[0] = '\0';
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? " " : "", e->d_name);
	closedir(d);
}

typedef struct interrupted {
	const char *dir;
	char during[512], after[512];
} interrupted;

/* A write that a signal handler interrupts: what the directory holds before and after
 * the handler's OnnxLibrary_RemoveTempFiles. */
static int interrupt_write(FILE *f, void *ctx, OnnxError *err)
{
	interrupted *in = ctx;
	fputs("partial", f);
	list_dir(in->dir, in->during, sizeof in->during);
	OnnxLibrary_RemoveTempFiles();
	list_dir(in->dir, in->after, sizeof in->after);
	return 0;
}

START_TEST(temp_files_removed_for_a_signal_handler)
{
	char dir[4096], path[4200];
	tu_scratch_dir(dir, "temps");
	snprintf(path, sizeof path, "%s/out.onnx", dir);
	interrupted in = {dir, "", ""};
	OnnxError err = {0};
	ck_assert_int_ne(ox_write_atomic(path, interrupt_write, &in, &err), ONNXTXT_OK);
	ck_assert_msg(!strncmp(in.during, ".onnxtxt-", 9), "no temporary file during the write: '%s'", in.during);
	ck_assert_str_eq(in.after, "");
	/* a finished write is no longer tracked: calling it again removes nothing */
	Onnx__ModelProto *m = tu_model(entries[0].valid);
	ck_assert_int_eq(OnnxBinary_WriteFile(m, path, &err), ONNXTXT_OK);
	OnnxProto_Free(m);
	OnnxLibrary_RemoveTempFiles();
	list_dir(dir, in.after, sizeof in.after);
	ck_assert_str_eq(in.after, "out.onnx");
	tu_remove_tree(dir);
}
END_TEST

START_TEST(version)
{
	ck_assert_str_eq(OnnxLibrary_Version(), ONNXTXT_VERSION);
	ck_assert_ptr_eq(OnnxLibrary_Version(), OnnxLibrary_Version());
}
END_TEST

/* *out is NULL after every failure, argument and I/O errors included. */
START_TEST(out_reset_on_failure)
{
	void *out = &out;
	ck_assert_int_eq(OnnxParser_Parse(NULL, 5, (Onnx__ModelProto **)&out, NULL), ONNXTXT_ERR_ARG);
	ck_assert_msg(out == NULL, "OnnxParser_Parse(NULL, 5, &out): *out unchanged");
	out = &out;
	ck_assert_int_eq(OnnxBinary_Read(NULL, 5, (Onnx__ModelProto **)&out, NULL), ONNXTXT_ERR_ARG);
	ck_assert_msg(out == NULL, "OnnxBinary_Read(NULL, 5, &out): *out unchanged");
	out = &out;
	ck_assert_int_eq(OnnxBinary_ReadFile("/nonexistent", (Onnx__ModelProto **)&out, NULL), ONNXTXT_ERR_IO);
	ck_assert_msg(out == NULL, "OnnxBinary_ReadFile(missing file): *out unchanged");
}
END_TEST

static int valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
		if (n < 0)
			return 0;
		for (p++; n > 0; n--, p++)
			if ((*p & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

/* Messages quote long tokens cut on a UTF-8 character boundary. */
START_TEST(message_keeps_utf8_whole)
{
	const char *text = "g (x) => (y) { y = Foo(x) \"\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad"
			   "\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad\" }";
	Onnx__GraphProto *g;
	OnnxError e;
	ck_assert_int_eq(OnnxParser_ParseGraph(text, strlen(text), &g, &e), ONNXTXT_ERR_SYNTAX);
	ck_assert_msg(valid_utf8(e.message), "not UTF-8: %s", e.message);
}
END_TEST

/* OnnxPrinter_Format: comments back in place, flags, errors as the parser reports them,
 * NULL arguments; FormatFile writes the same text. */
START_TEST(format_keeps_comments)
{
	static const char text[] = "# top\n<ir_version: 8>\ng (float x) => (float y) {\n  y = Relu(x)  # r\n# end\n}\n";
	static const char want[] = "# top\n<\n  ir_version: 8\n>\ng (float x) => (float y)\n{\n  y = Relu (x)  # r\n"
				   "  # end\n}\n";
	char *out;
	size_t n;
	OnnxError e;
	ck_assert_int_eq(OnnxPrinter_Format(text, strlen(text), 0, &out, &n, &e), ONNXTXT_OK);
	ck_assert_str_eq(out, want);
	ck_assert_uint_eq(n, strlen(want));
	char *again;
	ck_assert_int_eq(OnnxPrinter_Format(out, n, 0, &again, NULL, NULL), ONNXTXT_OK);
	ck_assert_str_eq(again, want);
	free(again);
	free(out);
	ck_assert_int_eq(OnnxPrinter_Format(text, strlen(text), ONNXTXT_FORMAT_DROP_COMMENTS, &out, NULL, &e),
			 ONNXTXT_OK);
	ck_assert_str_eq(out, "<\n  ir_version: 8\n>\ng (float x) => (float y)\n{\n  y = Relu (x)\n}\n");
	free(out);
	/* a syntax error is the parser's, with its place; *out stays NULL */
	static const char bad[] = "# c\ng (float x) => (float y) { y = Relu(x }";
	out = (char *)1;
	ck_assert_int_eq(OnnxPrinter_Format(bad, strlen(bad), 0, &out, &n, &e), ONNXTXT_ERR_SYNTAX);
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(e.line, 2);
	ck_assert_int_eq(OnnxPrinter_Format(text, strlen(text), 0, NULL, &n, &e), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxPrinter_FormatFile(text, strlen(text), 0, NULL, &e), ONNXTXT_ERR_ARG);
	char path[] = "/tmp/onnxtxt-format-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(OnnxPrinter_FormatFile(text, strlen(text), 0, path, &e), ONNXTXT_OK);
	FILE *f = fopen(path, "rb");
	char got[sizeof want + 16] = {0};
	size_t k = fread(got, 1, sizeof got - 1, f);
	fclose(f);
	unlink(path);
	ck_assert_uint_eq(k, strlen(want));
	ck_assert_str_eq(got, want);
}
END_TEST

/* ---- NULL arguments to every entry point ---------------------------------------------------
 * Each call below passes NULL where the API wants a pointer. A call that returns a status
 * must return ONNXTXT_ERR_ARG and fill err with a message; the others must return their
 * "nothing" (0, NULL) or do nothing. None may crash. */

static const char RELU[] = "<ir_version: 8, opset_import: [\"\" : 18]> g (float[2] x) => (float[2] y) { y = Relu(x) }";

static Onnx__ModelProto *relu(void)
{
	return tu_model(RELU);
}

static OnnxValue *vec2(void)
{
	float d[2] = {1, -1};
	int64_t dims[1] = {2};
	OnnxValue *v = NULL;
	OnnxError e;
	ck_assert_int_eq(OnnxValue_NewTensor(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, dims, 1, d, &v, &e), ONNXTXT_OK);
	return v;
}

/* A status call with a valid model (or session, value) and NULL elsewhere. */
#define WITH_MODEL(expr) do { Onnx__ModelProto *m = relu(); OnnxStatus st_ = (expr); OnnxProto_Free(m); return st_; } while (0)
#define WITH_SESSION(expr) do { Onnx__ModelProto *m = relu(); OnnxSession *s = NULL; \
	ck_assert_int_eq(OnnxSession_New(m, &s, NULL), ONNXTXT_OK); OnnxStatus st_ = (expr); \
	OnnxSession_Free(s); OnnxProto_Free(m); return st_; } while (0)
#define WITH_VALUE(expr) do { OnnxValue *v = vec2(); OnnxStatus st_ = (expr); OnnxValue_Free(v); return st_; } while (0)

static int64_t dims2[1] = {2};
static char *text_out;
static size_t len_out;
static void *ptr_out;

static OnnxStatus n01(OnnxError *e) { return OnnxParser_ParseToBinary(NULL, 5, stdout, e); }
static OnnxStatus n02(OnnxError *e) { return OnnxParser_ParseToBinary(RELU, strlen(RELU), NULL, e); }
static OnnxStatus n03(OnnxError *e) { return OnnxParser_ParseToBinaryFile(RELU, strlen(RELU), NULL, e); }
static OnnxStatus n04(OnnxError *e) { return OnnxParser_ParseToBinaryFile(NULL, 5, "never.onnx", e); }
static OnnxStatus n05(OnnxError *e) { return OnnxModel_ExternalizeData(NULL, NULL, "w.bin", 0, e); }
static OnnxStatus n06(OnnxError *e) { WITH_MODEL(OnnxModel_ExternalizeData(m, NULL, NULL, 0, e)); }
static OnnxStatus n07(OnnxError *e) { return OnnxModel_EmbedExternalData(NULL, NULL, e); }
static OnnxStatus n08(OnnxError *e) { return OnnxModel_EmbedExternalDataWith(NULL, NULL, 0, e); }
static OnnxStatus n09(OnnxError *e) { return OnnxModel_Check(NULL, NULL, NULL, e); }
static OnnxStatus n10(OnnxError *e) { WITH_MODEL(OnnxModel_Check(m, (OnnxError **)&ptr_out, NULL, e)); }
static OnnxStatus n11(OnnxError *e) { return OnnxModel_CheckText(NULL, 5, NULL, NULL, e); }
static OnnxStatus n12(OnnxError *e) { return OnnxModel_CheckWith(NULL, 0, NULL, NULL, NULL, e); }
static OnnxStatus n13(OnnxError *e) { return OnnxModel_CheckTextWith(NULL, 5, 0, NULL, NULL, NULL, e); }
static OnnxStatus n14(OnnxError *e) { return OnnxPrinter_Print(NULL, 0, &text_out, &len_out, e); }
static OnnxStatus n15(OnnxError *e) { WITH_MODEL(OnnxPrinter_Print(m, 0, NULL, NULL, e)); }
static OnnxStatus n16(OnnxError *e) { return OnnxPrinter_Write(NULL, 0, stdout, e); }
static OnnxStatus n17(OnnxError *e) { WITH_MODEL(OnnxPrinter_Write(m, 0, NULL, e)); }
static OnnxStatus n18(OnnxError *e) { return OnnxPrinter_WriteFile(NULL, 0, "never.onnxtxt", e); }
static OnnxStatus n19(OnnxError *e) { WITH_MODEL(OnnxPrinter_WriteFile(m, 0, NULL, e)); }
static OnnxStatus n20(OnnxError *e) { return OnnxPrinter_Dot(NULL, stdout, e); }
static OnnxStatus n21(OnnxError *e) { WITH_MODEL(OnnxPrinter_Dot(m, NULL, e)); }
static OnnxStatus n22(OnnxError *e) { return OnnxPrinter_DotFile(NULL, "never.dot", e); }
static OnnxStatus n23(OnnxError *e) { WITH_MODEL(OnnxPrinter_DotFile(m, NULL, e)); }
static OnnxStatus n24(OnnxError *e) { return OnnxValue_NewTensor(1, NULL, 1, NULL, (OnnxValue **)&ptr_out, e); }
static OnnxStatus n25(OnnxError *e) { return OnnxValue_NewTensor(1, dims2, 1, NULL, NULL, e); }
static OnnxStatus n26(OnnxError *e) { return OnnxValue_FromProto(NULL, (OnnxValue **)&ptr_out, e); }
static OnnxStatus n27(OnnxError *e) { WITH_VALUE(OnnxValue_ToProto(v, NULL, NULL, e)); }
static OnnxStatus n28(OnnxError *e) { return OnnxValue_ToProto(NULL, "x", &ptr_out, e); }
static OnnxStatus n29(OnnxError *e) { return OnnxValue_ReadFile(NULL, ONNXTXT_VALUE_TENSOR, (OnnxValue **)&ptr_out, e); }
static OnnxStatus n30(OnnxError *e) { return OnnxValue_ReadFile("x.pb", ONNXTXT_VALUE_TENSOR, NULL, e); }
static OnnxStatus n31(OnnxError *e) { return OnnxValue_WriteFile(NULL, "x", "never.pb", e); }
static OnnxStatus n32(OnnxError *e) { WITH_VALUE(OnnxValue_WriteFile(v, "x", NULL, e)); }
static OnnxStatus n33(OnnxError *e) { return OnnxValue_Parse(NULL, 5, (OnnxValue **)&ptr_out, e); }
static OnnxStatus n34(OnnxError *e) { return OnnxValue_Parse("int64 {7}", 9, NULL, e); }
static OnnxStatus n35(OnnxError *e) { return OnnxValue_Print(NULL, &text_out, &len_out, e); }
static OnnxStatus n36(OnnxError *e) { WITH_VALUE(OnnxValue_Print(v, NULL, NULL, e)); }
static OnnxStatus n37(OnnxError *e) { return OnnxSession_New(NULL, (OnnxSession **)&ptr_out, e); }
static OnnxStatus n38(OnnxError *e) { WITH_MODEL(OnnxSession_New(m, NULL, e)); }
static OnnxStatus n39(OnnxError *e) { WITH_VALUE(OnnxSession_SetInput(NULL, "x", v, e)); }
static OnnxStatus n40(OnnxError *e) { WITH_SESSION(OnnxSession_SetInput(s, NULL, NULL, e)); }
static OnnxStatus n41(OnnxError *e) { WITH_SESSION(OnnxSession_SetInput(s, "x", NULL, e)); }
static OnnxStatus n42(OnnxError *e) { return OnnxSession_Run(NULL, e); }
static OnnxStatus n43(OnnxError *e) { return OnnxCase_Parse(NULL, 5, (OnnxCaseItem **)&ptr_out, &len_out, e); }
static OnnxStatus n44(OnnxError *e) { return OnnxCase_Parse("", 0, NULL, NULL, e); }

static OnnxStatus (*const status_calls[])(OnnxError *) = {
	n01, n02, n03, n04, n05, n06, n07, n08, n09, n10, n11, n12, n13, n14, n15, n16, n17, n18, n19, n20, n21, n22,
	n23, n24, n25, n26, n27, n28, n29, n30, n31, n32, n33, n34, n35, n36, n37, n38, n39, n40, n41, n42, n43, n44,
};

START_TEST(null_arguments_everywhere)
{
	OnnxError e;
	memset(&e, 0x55, sizeof e);
	char dir[] = "/tmp/onnxtxt-null-XXXXXX"; /* where a wrong call would write its file */
	ck_assert_msg(mkdtemp(dir) && chdir(dir) == 0, "cannot make %s", dir);
	OnnxStatus st = status_calls[_i](&e);
	ck_assert_msg(st == ONNXTXT_ERR_ARG, "call %d: status %d, want ONNXTXT_ERR_ARG (%s)", _i + 1, st, e.message);
	ck_assert_int_eq(e.code, ONNXTXT_ERR_ARG);
	ck_assert_msg(strncmp(e.message, "invalid argument", 16) == 0, "call %d: message '%.80s'", _i + 1, e.message);
	ck_assert_int_eq(status_calls[_i](NULL), ONNXTXT_ERR_ARG); /* err itself may be NULL */
	ck_assert_msg(access("never.onnx", F_OK) && access("never.onnxtxt", F_OK) && access("never.dot", F_OK) &&
			      access("never.pb", F_OK),
		      "call %d wrote a file", _i + 1);
	ck_assert_msg(chdir("/") == 0 && rmdir(dir) == 0, "call %d left something in %s", _i + 1, dir);
}
END_TEST

/* The calls that return no status: a NULL object has nothing in it. */
START_TEST(null_objects_are_empty)
{
	OnnxValue *v = vec2();
	ck_assert_int_eq(OnnxValue_Kind(NULL), 0);
	ck_assert_int_eq(OnnxValue_ElemType(NULL), 0);
	ck_assert_uint_eq(OnnxValue_Rank(NULL), 0);
	ck_assert_ptr_null(OnnxValue_Dims(NULL));
	ck_assert_uint_eq(OnnxValue_Count(NULL), 0);
	ck_assert_ptr_null(OnnxValue_Data(NULL));
	ck_assert_ptr_null(OnnxValue_String(NULL, 0, NULL));
	ck_assert_ptr_null(OnnxValue_Item(NULL, 0));
	OnnxError verr;
	ck_assert_int_eq(OnnxValue_Equal(NULL, NULL, 0, 0, NULL), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxValue_Equal(v, NULL, 0, 0, &verr), ONNXTXT_ERR_ARG);
	ck_assert_str_eq(verr.message, "invalid argument: a value is NULL");
	ck_assert_int_eq(OnnxValue_Equal(NULL, v, 0, 0, &verr), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxValue_Equal(v, v, 0, 0, NULL), ONNXTXT_OK);
	OnnxValue_Free(NULL);
	OnnxValue_Free(v);
	ck_assert_uint_eq(OnnxSession_InputCount(NULL), 0);
	int optional = 7;
	ck_assert_ptr_null(OnnxSession_Input(NULL, 0, &optional));
	ck_assert_ptr_null(OnnxSession_Input(NULL, 0, NULL));
	ck_assert_int_eq(OnnxSession_InputKind(NULL, 0), 0);
	ck_assert_uint_eq(OnnxSession_OutputCount(NULL), 0);
	ck_assert_ptr_null(OnnxSession_OutputName(NULL, 0));
	ck_assert_int_eq(OnnxSession_OutputKind(NULL, 0), 0);
	ck_assert_ptr_null(OnnxSession_Output(NULL, 0));
	OnnxSession_Free(NULL);
	OnnxCase_Free(NULL, 3);
	OnnxProto_Free(NULL);
	ck_assert_ptr_nonnull(OnnxLibrary_Version());
}
END_TEST

/* OnnxError_Format with no error renders nothing; a NULL buffer is size 0 whatever size
 * says. */
START_TEST(format_null_arguments)
{
	char buf[64] = "x";
	ck_assert_uint_eq(OnnxError_Format(NULL, "m.onnxtxt", "abc", 3, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_uint_eq(OnnxError_Format(NULL, NULL, NULL, 0, NULL, 0), 0);
	OnnxError e;
	memset(&e, 0, sizeof e);
	strcpy(e.message, "m");
	e.line = e.column = 1;
	ck_assert_uint_eq(OnnxError_Format(&e, NULL, "abc", 3, NULL, 100), strlen("<stdin>:1:1: error: m\nabc\n^\n"));
	/* text NULL with a length: no source line */
	ck_assert_uint_eq(OnnxError_Format(&e, "f", NULL, 3, buf, sizeof buf), strlen("f:1:1: error: m\n"));
}
END_TEST

static void add_loop(Suite *s, const char *name, const TTest *test, int n)
{
	TCase *tc = tcase_create(name);
	tcase_set_timeout(tc, 60);
	_tcase_add_test(tc, test, 0, 0, 0, n);
	suite_add_tcase(s, tc);
}

/* OnnxModel_Info: the counts it reports, in both forms, and its argument checks. */
START_TEST(model_info)
{
	const char *t = "<ir_version: 8, opset_import: [\"\" : 17, \"x\" : 1]>\n"
			"g (float[2] a, float[2] w) => (float[2] y) <float[2] w = {1, 2}, int64[3] s = {1, 2, 3}> {\n"
			"  b = Relu(a)\n  c = Relu(b)\n  y = x.Foo(c, w)\n}";
	Onnx__ModelProto *m;
	ck_assert_int_eq(OnnxParser_Parse(t, strlen(t), &m, NULL), ONNXTXT_OK);
	char *text;
	size_t len;
	OnnxError e;
	ck_assert_int_eq(OnnxModel_Info(m, 0, &text, &len, &e), ONNXTXT_OK);
	ck_assert_uint_eq(len, strlen(text));
	ck_assert_ptr_nonnull(strstr(text, "inputs (1, and 1 with an initializer):\n  a: float[2]\n"));
	ck_assert_ptr_nonnull(strstr(text, "nodes: 3 (main graph 3, sub-graphs 0, functions 0)\n"));
	ck_assert_ptr_nonnull(strstr(text, "operators:\n  Relu: 2\n  x.Foo: 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "initializers: 2 tensors, 5 parameters, 32 bytes\n"));
	ck_assert_ptr_nonnull(strstr(text, "largest tensors:\n  s: int64[3], 24 bytes\n  w: float[2], 8 bytes\n"));
	free(text);
	ck_assert_int_eq(OnnxModel_Info(m, ONNXTXT_INFO_JSON, &text, NULL, &e), ONNXTXT_OK);
	ck_assert_ptr_nonnull(strstr(text, "{\"domain\": \"x\", \"op_type\": \"Foo\", \"count\": 1}"));
	ck_assert_ptr_nonnull(strstr(text, "\"inputs_with_initializer\": 1"));
	free(text);
	OnnxProto_Free(m);
	/* nothing to count (UBSan once caught a qsort of no elements given NULL) */
	const char *empty = "<ir_version: 8>\nempty () => () {}";
	ck_assert_int_eq(OnnxParser_Parse(empty, strlen(empty), &m, NULL), ONNXTXT_OK);
	ck_assert_int_eq(OnnxModel_Info(m, 0, &text, NULL, &e), ONNXTXT_OK);
	ck_assert_ptr_nonnull(strstr(text, "nodes: 0 (main graph 0, sub-graphs 0, functions 0)\noperators:\ndomains:\n"));
	free(text);
	ck_assert_int_eq(OnnxModel_Info(NULL, 0, &text, NULL, &e), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxModel_Info(m, 0, NULL, NULL, NULL), ONNXTXT_ERR_ARG);
	OnnxProto_Free(m);
}
END_TEST

/* OnnxPrinter_Highlight: every class of token, comments (test case lines too) in the
 * gaps the lexer skips, and bytes it cannot read copied as they are. */
START_TEST(highlight)
{
	const char *t = "# c\n#@ input X = float[1] {1}\n<ir_version: 8>\ng (float[N] x) => (y) {\n"
			"  y = Foo <s = \"a\", f = 1.5> (x)  # end\n}\nout/1 = int64 {7}\n";
	char *out;
	size_t len;
	ck_assert_int_eq(OnnxPrinter_Highlight(t, strlen(t), &out, &len, NULL), ONNXTXT_OK);
	ck_assert_uint_eq(len, strlen(out));
	ck_assert_str_eq(out, "\033[90m# c\033[0m\n\033[90m#@ input X = float[1] {1}\033[0m\n"
			      "<\033[35mir_version\033[0m: \033[33m8\033[0m>\n"
			      "\033[34mg\033[0m (\033[36mfloat\033[0m[\033[34mN\033[0m] \033[34mx\033[0m) => (\033[34my\033[0m) {\n"
			      "  \033[34my\033[0m = \033[34mFoo\033[0m <\033[34ms\033[0m = \033[32m\"a\"\033[0m, "
			      "\033[34mf\033[0m = \033[33m1.5\033[0m> (\033[34mx\033[0m)  \033[90m# end\033[0m\n}\n"
			      "\033[34mout\033[0m/\033[33m1\033[0m = \033[36mint64\033[0m {\033[33m7\033[0m}\n");
	free(out);
	ck_assert_int_eq(OnnxPrinter_Highlight("", 0, &out, &len, NULL), ONNXTXT_OK);
	ck_assert_str_eq(out, "");
	free(out);
	ck_assert_int_eq(OnnxPrinter_Highlight(t, 1, NULL, NULL, NULL), ONNXTXT_ERR_ARG);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api");
	add_loop(s, "valid input parses", valid_input_parses, NENTRIES);
	add_loop(s, "invalid input fails", invalid_input_fails, NENTRIES);
	add_loop(s, "trailing text is an error", trailing_text_is_an_error, NENTRIES);
	add_loop(s, "null arguments", null_arguments, NENTRIES);
	add_loop(s, "error fields and format", error_fields, NERRORS);
	add_loop(s, "null arguments everywhere", null_arguments_everywhere,
		 (int)(sizeof status_calls / sizeof status_calls[0]));
	TCase *tc = tcase_create("api");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, binary_null_arguments);
	tcase_add_test(tc, null_objects_are_empty);
	tcase_add_test(tc, format_null_arguments);
	tcase_add_test(tc, read_file_errors);
	tcase_add_test(tc, one_free_releases_everything);
	tcase_add_test(tc, nul_inside_strings_is_kept_in_bytes_fields);
	tcase_add_test(tc, nul_elsewhere_is_an_error);
	tcase_add_test(tc, errors_without_a_position);
	tcase_add_test(tc, nesting_limit_error_fields);
	tcase_add_test(tc, text_longer_than_the_limit);
	tcase_add_test(tc, stream_write_errors_say_why);
	tcase_add_test(tc, temp_files_removed_for_a_signal_handler);
	tcase_add_test(tc, version);
	tcase_add_test(tc, out_reset_on_failure);
	tcase_add_test(tc, message_keeps_utf8_whole);
	tcase_add_test(tc, model_info);
	tcase_add_test(tc, highlight);
	tcase_add_test(tc, format_keeps_comments);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
