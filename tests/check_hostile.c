/* Hostile text (P5): nesting just below and above ONNXTXT_MAX_DEPTH in every construct, huge
 * inputs in bounded time, NUL bytes, every prefix of the corpus and random mutations; each one
 * parses or fails cleanly with a position inside the text (run under ASan+UBSan too). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
/* Seconds a huge input may take; generous, since only superlinear behaviour blows it
 * (under valgrind, tu_slow(), only a hang would). */
#define TIME_LIMIT (tu_slow() ? 600.0 : SANITIZED ? 20.0 : 3.0)

static const char *const kinds[] = {"model", "graph", "function", "node", "nodes",
				    "type", "tensor", "attribute", "value_info"};
#define NKINDS (sizeof kinds / sizeof *kinds)

/* ---- a growable string ------------------------------------------------------------------ */

typedef struct str {
	char *p;
	size_t n, cap;
} str;

static void s_add(str *s, const char *data, size_t n)
{
	if (s->n + n + 1 > s->cap) {
		s->cap = (s->n + n + 1) * 2;
		s->p = realloc(s->p, s->cap);
		ck_assert(s->p);
	}
	memcpy(s->p + s->n, data, n);
	s->n += n;
	s->p[s->n] = '\0';
}

static void s_put(str *s, const char *text)
{
	s_add(s, text, strlen(text));
}

static void s_fmt(str *s, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	s_add(s, buf, (size_t)n);
}

static void s_repeat(str *s, const char *text, int times)
{
	for (int i = 0; i < times; i++)
		s_put(s, text);
}

/* ---- checking an outcome ---------------------------------------------------------------- */

/* 1-based line and column (in UTF-8 characters) of a byte offset. Lines end at LF, CRLF
 * or a lone CR; a byte-order mark at the start is not a column. */
static void locate(const char *text, size_t len, size_t off, unsigned *line, unsigned *col)
{
	*line = *col = 1;
	for (size_t i = off >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0; i < off; i++) {
		if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n'))) {
			++*line;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			++*col;
		}
	}
}

/* Parses text as kind: returns the status after checking that a success packs and that a
 * failure is a clean error with a consistent position inside the text. */
/* Whitespace and comments only: what may follow an "end of input" error's position,
 * which is right after the last token. */
static bool only_trivia(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '#')
			while (i < n && p[i] != '\n')
				i++;
		else if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r' && p[i] != '\v' && p[i] != '\f')
			return false;
	}
	return true;
}

static OnnxStatus parse_checked(const char *kind, const char *text, size_t len, OnnxError *e, const char *ctx)
{
	/* an exact-size copy, so that ASan sees any read past the end */
	char *copy = malloc(len ? len : 1);
	memcpy(copy, text, len);
	void *out = &out;
	OnnxStatus st = tu_parse(kind, copy, len, &out, e);
	if (st == ONNXTXT_OK) {
		ck_assert_msg(out != NULL, "%s: OK without a message", ctx);
		size_t n;
		free(tu_pack(out, &n));
		OnnxProto_Free(out);
		free(copy);
		return st;
	}
	ck_assert_msg(out == NULL, "%s: *out is not NULL after failure", ctx);
	ck_assert_msg(st == ONNXTXT_ERR_SYNTAX || st == ONNXTXT_ERR_VALUE || st == ONNXTXT_ERR_LIMIT,
		      "%s: unexpected status %d: %s", ctx, st, e->message);
	ck_assert_msg(e->code == st, "%s: err.code %d, status %d", ctx, e->code, st);
	ck_assert_msg(e->message[0] != '\0', "%s: empty message", ctx);
	ck_assert_msg(e->offset <= len && e->length <= len - e->offset, "%s: error at %zu+%zu outside %zu bytes: %s",
		      ctx, e->offset, e->length, len, e->message);
	unsigned line, col;
	locate(text, len, e->offset, &line, &col);
	ck_assert_msg(e->line == line && e->column == col, "%s: error at byte %zu reported as %u:%u, which is %u:%u: %s",
		      ctx, e->offset, e->line, e->column, line, col, e->message);
	if (strstr(e->message, "found end of input"))
		ck_assert_msg(e->length == 0 && only_trivia(text + e->offset, len - e->offset),
			      "%s: end of input reported at %zu+%zu of %zu, before more than whitespace", ctx, e->offset,
			      e->length, len);
	/* rendering never fails either */
	char buf[1024], head[64];
	size_t need = OnnxError_Format(e, NULL, copy, len, buf, sizeof buf);
	snprintf(head, sizeof head, "<stdin>:%u:%u: error: ", line, col);
	ck_assert_msg(strncmp(buf, head, strlen(head)) == 0, "%s: formatted as %s", ctx, buf);
	ck_assert_msg(need >= strlen(buf), "%s", ctx);
	free(copy);
	return st;
}

/* ---- nesting (P5) ------------------------------------------------------------------------- */

/* The deepest bracket nesting of a text, and the offset of the first bracket that goes
 * beyond `limit`; the '>' of "=>", strings and comments do not count. */
static int max_depth(const char *t, size_t n, int limit, size_t *first_over)
{
	int depth = 0, deepest = 0;
	*first_over = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		char c = t[i];
		if (c == '"') {
			for (i++; i < n && t[i] != '"'; i++)
				i += t[i] == '\\';
		} else if (c == '#') {
			while (i < n && t[i] != '\n')
				i++;
		} else if (c == '=' && i + 1 < n && t[i + 1] == '>') {
			i++;
		} else if (strchr("<([{", c)) {
			if (++depth > deepest)
				deepest = depth;
			if (depth > limit && *first_over == SIZE_MAX)
				*first_over = i;
		} else if (strchr(">)]}", c)) {
			depth--;
		}
	}
	return deepest;
}

typedef struct family {
	const char *name, *kind;
	void (*gen)(str *s, int k); /* a valid text whose nesting grows with k */
} family;

static void seq_type(str *s, int k)
{
	s_repeat(s, "seq(", k);
	s_put(s, "float[N]");
	s_repeat(s, ")", k);
}

/* optional(seq(map(int64, optional(...)))) */
static void mixed_type(str *s, int k)
{
	static const char *const open[] = {"optional(", "seq(", "map(int64, "};
	for (int i = 0; i < k; i++)
		s_put(s, open[i % 3]);
	s_put(s, "sparse_tensor(float[2, ?])");
	s_repeat(s, ")", k);
}

static void model_input_type(str *s, int k)
{
	s_put(s, "<ir_version: 8, opset_import: [\"\" : 18]>\ng (");
	seq_type(s, k);
	s_put(s, " x) => (float y) { y = Foo(x) }\n");
}

/* g_k () => () { y = If <then_branch = g_{k-1} ...> (c) } */
static void nested_graph(str *s, int k)
{
	if (k == 0) {
		s_put(s, "leaf () => (float y) {\n  y = Identity(x)\n}");
		return;
	}
	s_fmt(s, "g%d () => (float y) {\n  y = If <then_branch = ", k);
	nested_graph(s, k - 1);
	s_put(s, ", else_branch = e () => (float y) { y = Identity(x) }> (c)\n}");
}

static void model_graphs(str *s, int k)
{
	s_put(s, "<ir_version: 8, opset_import: [\"\" : 18]>\n");
	nested_graph(s, k);
}

/* the same inside a function body */
static void function_graphs(str *s, int k)
{
	s_put(s, "<domain: \"local\", opset_import: [\"\" : 18]>\nf (x, c) => (y) {\n  y = If <then_branch = ");
	nested_graph(s, k);
	s_put(s, "> (c)\n}");
}

/* graphs in attribute lists: Loop <body = [g, [...]]>, three brackets a level */
static void graph_lists(str *s, int k)
{
	if (k == 0) {
		s_put(s, "leaf () => () { y = Foo <ts = [float {1}, int64 {2}]> () }");
		return;
	}
	s_fmt(s, "g%d () => () { y = Foo <gs = [e () => () {}, ", k);
	graph_lists(s, k - 1);
	s_put(s, "]> () }");
}

static void model_graph_lists(str *s, int k)
{
	s_put(s, "<ir_version: 8>\n");
	graph_lists(s, k);
}

/* nodes with attributes holding graphs, in a node list with braces */
static void node_list(str *s, int k)
{
	s_put(s, "{ a = Relu(x) ");
	if (k > 0) {
		s_put(s, "b = If <then_branch = ");
		graph_lists(s, k - 1);
		s_put(s, "> (c)");
	}
	s_put(s, " }");
}

/* a node whose tensor attribute sits at the bottom: its data brace is the deepest bracket */
static void tensor_at_bottom(str *s, int k)
{
	s_put(s, "y = If <then_branch = ");
	if (k == 0) {
		s_put(s, "leaf () => () { z = Constant <value = float {1.5}> () }");
	} else {
		str inner = {0};
		tensor_at_bottom(&inner, k - 1);
		s_put(s, "g () => () { ");
		s_put(s, inner.p);
		s_put(s, " }");
		free(inner.p);
	}
	s_put(s, "> (c)");
}

/* types inside attributes: Foo <tp = seq(seq(...))> */
static void attribute_types(str *s, int k)
{
	s_put(s, "tp = [int64, ");
	seq_type(s, k);
	s_put(s, "]");
}

static void value_info_types(str *s, int k)
{
	mixed_type(s, k);
	s_put(s, " x");
}

static const family families[] = {
	{"seq types", "type", seq_type},
	{"mixed types", "type", mixed_type},
	{"types of model inputs", "model", model_input_type},
	{"types of value infos", "value_info", value_info_types},
	{"types in attributes", "attribute", attribute_types},
	{"graphs in attributes", "model", model_graphs},
	{"graphs in attributes of functions", "function", function_graphs},
	{"graphs in attribute lists", "model", model_graph_lists},
	{"graphs in node lists", "nodes", node_list},
	{"tensor data at the bottom", "node", tensor_at_bottom},
};
#define NFAMILIES (sizeof families / sizeof *families)

/* The deepest valid text within the limit parses; the shallowest beyond fails with the
 * limit at the first bracket too many; so does one far beyond. */
START_TEST(nesting_just_below_and_above_the_limit)
{
	const family *f = &families[_i];
	int below = -1, above = -1, below_depth = 0, above_depth = 0;
	for (int k = 0; k < 200 && above < 0; k++) {
		str s = {0};
		f->gen(&s, k);
		size_t first;
		int d = max_depth(s.p, s.n, ONNXTXT_MAX_DEPTH, &first);
		if (d <= ONNXTXT_MAX_DEPTH) {
			below = k;
			below_depth = d;
		} else {
			above = k;
			above_depth = d;
		}
		free(s.p);
	}
	ck_assert_msg(below >= 0 && above > below, "%s: the generator does not grow", f->name);
	int levels[] = {below, above, above + 1, 300};
	for (size_t i = 0; i < sizeof levels / sizeof *levels; i++) {
		str s = {0};
		f->gen(&s, levels[i]);
		size_t first;
		int d = max_depth(s.p, s.n, ONNXTXT_MAX_DEPTH, &first);
		char ctx[128];
		snprintf(ctx, sizeof ctx, "%s, %d levels of brackets", f->name, d);
		OnnxError e;
		OnnxStatus st = parse_checked(f->kind, s.p, s.n, &e, ctx);
		if (d <= ONNXTXT_MAX_DEPTH) {
			ck_assert_msg(st == ONNXTXT_OK, "%s: %u:%u: %s", ctx, e.line, e.column, e.message);
		} else {
			ck_assert_msg(st == ONNXTXT_ERR_LIMIT, "%s: status %d: %u:%u: %s", ctx, st, e.line, e.column,
				      e.message);
			ck_assert_str_eq(e.message, "nesting too deep: more than 64 levels of brackets");
			ck_assert_msg(e.offset == first && e.length == 1, "%s: error at byte %zu+%zu, want %zu", ctx,
				      e.offset, e.length, first);
		}
		free(s.p);
	}
	printf("# %s: %d levels parse, %d fail\n", f->name, below_depth, above_depth);
}
END_TEST

/* Nothing but brackets, far beyond the limit, for every entry point. */
START_TEST(brackets_only)
{
	static const char brackets[] = "<([{";
	size_t n = 200000;
	char *text = malloc(n);
	for (size_t b = 0; b < 4; b++) {
		memset(text, brackets[b], n);
		for (size_t k = 0; k < NKINDS; k++) {
			char ctx[64];
			snprintf(ctx, sizeof ctx, "%s, '%c' x %zu", kinds[k], brackets[b], n);
			OnnxError e;
			ck_assert_int_ne(parse_checked(kinds[k], text, n, &e, ctx), ONNXTXT_OK);
			ck_assert_msg(e.offset <= ONNXTXT_MAX_DEPTH, "%s: error at %zu", ctx, e.offset);
		}
	}
	/* interleaved, inside a valid start */
	str s = {0};
	s_put(&s, "g (x) => (y) { y = Foo <a = ");
	for (int i = 0; i < 50000; i++)
		s_put(&s, i % 2 ? "[" : "seq(");
	OnnxError e;
	ck_assert_int_eq(parse_checked("graph", s.p, s.n, &e, "interleaved"), ONNXTXT_ERR_SYNTAX);
	free(s.p);
	free(text);
}
END_TEST

/* Tensor data cannot nest; nested braces are a syntax error at the second brace. */
START_TEST(nested_tensor_braces)
{
	for (int k = 2; k <= 100; k += 7) {
		str s = {0};
		s_put(&s, "float[1] t = ");
		size_t second = s.n + 1;
		s_repeat(&s, "{", k);
		s_put(&s, "1");
		s_repeat(&s, "}", k);
		OnnxError e;
		ck_assert_int_eq(parse_checked("tensor", s.p, s.n, &e, "nested braces"), ONNXTXT_ERR_SYNTAX);
		ck_assert_uint_eq(e.offset, second);
		free(s.p);
	}
}
END_TEST

/* ---- huge inputs -------------------------------------------------------------------------- */

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Parses text as kind within TIME_LIMIT and returns the message (to be freed). */
static void *parse_timed(const char *kind, const str *s, const char *what)
{
	void *out = NULL;
	OnnxError e;
	double t0 = now();
	OnnxStatus st = tu_parse(kind, s->p, s->n, &out, &e);
	double dt = now() - t0;
	ck_assert_msg(st == ONNXTXT_OK, "%s: %u:%u: %s", what, e.line, e.column, e.message);
	ck_assert_msg(dt < TIME_LIMIT, "%s: %.2f s for %zu bytes (limit %.0f s)", what, dt, s->n, TIME_LIMIT);
	printf("# %s: %zu bytes in %.3f s\n", what, s->n, dt);
	return out;
}

START_TEST(a_million_ints_in_an_attribute)
{
	str s = {0};
	s_put(&s, "ints = [");
	for (int i = 0; i < 1000000; i++)
		s_fmt(&s, i ? ", %d" : "%d", i - 500000);
	s_put(&s, "]");
	Onnx__AttributeProto *a = parse_timed("attribute", &s, "1M ints");
	ck_assert_uint_eq(a->n_ints, 1000000);
	ck_assert(a->ints[0] == -500000 && a->ints[999999] == 499999);
	OnnxProto_Free(a);
	free(s.p);
}
END_TEST

START_TEST(a_million_tensor_values)
{
	str s = {0};
	s_put(&s, "float[1000, 1000] w = {");
	for (int i = 0; i < 1000000; i++)
		s_fmt(&s, i ? ", %d.5" : "%d.5", i % 1000);
	s_put(&s, "}");
	Onnx__TensorProto *t = parse_timed("tensor", &s, "1M float values");
	ck_assert_uint_eq(t->n_float_data, 1000000);
	ck_assert(t->float_data[999999] == 999.5f);
	OnnxProto_Free(t);
	free(s.p);
	s = (str){0};
	s_put(&s, "int64[1000000] w = {");
	for (int i = 0; i < 1000000; i++)
		s_fmt(&s, i ? ", %d" : "%d", -i);
	s_put(&s, "}");
	t = parse_timed("tensor", &s, "1M int64 values");
	ck_assert_uint_eq(t->n_int64_data, 1000000);
	ck_assert(t->int64_data[999999] == -999999);
	OnnxProto_Free(t);
	free(s.p);
}
END_TEST

START_TEST(a_hundred_thousand_nodes)
{
	str s = {0};
	s_put(&s, "<ir_version: 8, opset_import: [\"\" : 18]>\ng (float[N] v0) => (float[N] v100000) {\n");
	for (int i = 0; i < 100000; i++)
		s_fmt(&s, "  v%d = Add <alpha = 1.5> (v%d, v0)\n", i + 1, i);
	s_put(&s, "}\n");
	Onnx__ModelProto *m = parse_timed("model", &s, "100k nodes");
	ck_assert_uint_eq(m->graph->n_node, 100000);
	ck_assert_str_eq(m->graph->node[99999]->output[0], "v100000");
	OnnxProto_Free(m);
	free(s.p);
}
END_TEST

START_TEST(a_ten_megabyte_string)
{
	size_t n = 10 << 20;
	str s = {0};
	s_put(&s, "s = \"");
	char *body = malloc(n);
	for (size_t i = 0; i < n; i++)
		body[i] = (char)('a' + i % 26);
	s_add(&s, body, n);
	s_put(&s, "\"");
	Onnx__AttributeProto *a = parse_timed("attribute", &s, "10 MB string");
	ck_assert_uint_eq(a->s.len, n);
	ck_assert(memcmp(a->s.data, body, n) == 0);
	OnnxProto_Free(a);
	free(s.p);
	/* all escapes: decoding stays linear */
	s = (str){0};
	s_put(&s, "doc = \"");
	for (size_t i = 0; i < n / 2; i++)
		s_put(&s, "\\\"");
	s_put(&s, "\"");
	a = parse_timed("attribute", &s, "10 MB of escapes");
	ck_assert_uint_eq(a->s.len, n / 2);
	OnnxProto_Free(a);
	free(s.p);
	/* a 10 MB name */
	s = (str){0};
	s_put(&s, "y = Relu(");
	memset(body, 'x', n);
	s_add(&s, body, n);
	s_put(&s, ")");
	Onnx__NodeProto *node = parse_timed("node", &s, "10 MB name");
	ck_assert_uint_eq(strlen(node->input[0]), n);
	OnnxProto_Free(node);
	free(s.p);
	free(body);
}
END_TEST

START_TEST(other_long_lists)
{
	str s = {0};
	s_put(&s, "y = Concat(");
	s_repeat(&s, ",", 1000000);
	s_put(&s, "x)");
	Onnx__NodeProto *n = parse_timed("node", &s, "1M empty inputs");
	ck_assert_uint_eq(n->n_input, 1000001);
	OnnxProto_Free(n);
	free(s.p);
	s = (str){0};
	s_put(&s, "float[");
	for (int i = 0; i < 200000; i++)
		s_put(&s, i ? ", 1" : "1");
	s_put(&s, "] x");
	Onnx__ValueInfoProto *vi = parse_timed("value_info", &s, "200k dimensions");
	ck_assert_uint_eq(vi->type->tensor_type->shape->n_dim, 200000);
	OnnxProto_Free(vi);
	free(s.p);
	s = (str){0};
	s_put(&s, "ss = [");
	for (int i = 0; i < 200000; i++)
		s_fmt(&s, i ? ", \"s%d\"" : "\"s%d\"", i);
	s_put(&s, "]");
	Onnx__AttributeProto *a = parse_timed("attribute", &s, "200k strings");
	ck_assert_uint_eq(a->n_strings, 200000);
	OnnxProto_Free(a);
	free(s.p);
	s = (str){0};
	for (int i = 0; i < 100000; i++)
		s_put(&s, "# a comment line that is not very long\n");
	s_put(&s, "y = Relu(x)");
	n = parse_timed("node", &s, "100k comment lines");
	OnnxProto_Free(n);
	free(s.p);
}
END_TEST

/* Shapes whose data would need gigabytes are refused before anything is allocated. */
START_TEST(huge_shapes_fail_fast)
{
	static const char *const texts[] = {
		"float[2000000000] {1}",
		"float[4294967296, 4294967296] {}",
		"float[3037000500, 3037000500] {}",
		"float[9223372036854775807] {1}",
		"complex128[4611686018427387904] {}",
		"string[2000000000] {\"a\"}",
		"int4[4611686018427387904, 4] {}",
		"float[-1] {}",
		"float[9223372036854775808] {}",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		OnnxError e;
		double t0 = now();
		OnnxStatus st = parse_checked("tensor", texts[i], strlen(texts[i]), &e, texts[i]);
		ck_assert_msg(st == ONNXTXT_ERR_VALUE, "%s: status %d: %s", texts[i], st, e.message);
		ck_assert_msg(now() - t0 < 0.5, "%s: slow", texts[i]);
	}
}
END_TEST

/* ---- corpus files: prefixes, NUL bytes, mutations ------------------------------------------ */

typedef struct text_file {
	char name[256], kind[32];
	char *text;
	size_t len;
} text_file;

static text_file files[64];
static int nfiles;

/* The "# entry: KIND" directive of a corpus file (check_corpus.c); "model" without one. */
static void entry_of(const char *text, char *kind, size_t size)
{
	snprintf(kind, size, "model");
	for (const char *p = text; *p == '#';) {
		if (strncmp(p, "# entry:", 8) == 0) {
			const char *v = p + 8;
			while (*v == ' ')
				v++;
			size_t n = 0;
			while (v[n] && v[n] != ' ' && v[n] != '\n')
				n++;
			snprintf(kind, size, "%.*s", (int)n, v);
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
}

/* Not in the corpus: a seed that reaches functions, nested and listed graphs, escapes,
 * UTF-8, quoted names, every attribute kind, and sub-byte and complex tensors. */
static const char seed_text[] =
	"<\n"
	"  ir_version: 10,\n"
	"  opset_import: [\"\" : 21, \"local\" : 1],\n"
	"  producer_name: \"onnxtxt \\\"tests\\\"\\\\\\n\",\n"
	"  model_version: 3,\n"
	"  doc_string: \"Ünïcödé 中文 – a seed for mutations\",\n"
	"  metadata_props: [\"k1\" : \"v1\", \"\" : \"\"]\n"
	">\n"
	"seed (float[N, 3] x, int64[2] shape = {1, -1}, seq(float[?]) s, map(int64, string) mp,\n"
	"      optional(int32) o, bool c) => (float[M] y, float z, float \"quoted name\")\n"
	"<float[3] bias = {0.5, 1e-3, -2}, double[2] dd = {inf, -nan}, string[2] names = {\"a\\tb\", \"\\u00e9\"},\n"
	" int8[2] small = {-128, 127}, float16[2] h = {15360, 1.5}, complex64[1] cz = {1, -2},\n"
	" uint4[3] nib = {1, 2, 15}, float w>\n"
	"{\n"
	"  [first] t = Add(x, bias)   # a comment with \"quotes\" and { braces\n"
	"  c2 = If <then_branch = thn () => (float[3] a) {\n"
	"            a = Constant <value = float[3] {1, 2, 3}> ()\n"
	"          },\n"
	"          else_branch = \"els\" () => (float[3] b) {\n"
	"            [inner] b = Identity <note = \"hi\", fs = [1.5, -2.5e-3], is = [1, -2, 3], ss = [\"p\", \"q\"]> (bias)\n"
	"          }> (c)\n"
	"  u = local.Twice:v2 <k = 2> (t)\n"
	"  v, , v3 = com.example.Foo <tt = [float[1] {1}, int64[2] {1, 2}], gg = [g1 () => () {}, g2 () => () {}],\n"
	"      tp = seq(float[3]), tps = [float, int64[2]], r = @ref, e: ints = [],\n"
	"      ext = float[2] [\"location\" : \"w.bin\"]> (u, , \"quoted name\")\n"
	"  y = Reshape <allowzero = 0> (v, shape)\n"
	"  z = ReduceSum (y)\n"
	"  \"quoted name\" = Identity(z)\n"
	"}\n"
	"<domain: \"local\", opset_import: [\"\" : 21], overload: \"v2\", doc_string: \"twice\">\n"
	"Twice <k, alpha: float = 1.0> (a) => (b)\n"
	"<float tmp>\n"
	"{\n"
	"  tmp = Add(a, a)\n"
	"  b = Identity(tmp)\n"
	"}\n";

static void load_files(void)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", tu_path(tu_source_root(), "corpus/valid"));
	char **names = tu_list(dir, ".onnxtxt");
	for (int i = 0; names[i] && nfiles < 63; i++) {
		if (tu_slow() && i % 4) /* under valgrind, every fourth file is enough */
			continue;
		text_file *f = &files[nfiles];
		f->text = tu_read(tu_path(dir, names[i]), &f->len);
		if (!f->text)
			continue;
		snprintf(f->name, sizeof f->name, "corpus/valid/%s", names[i]);
		entry_of(f->text, f->kind, sizeof f->kind);
		nfiles++;
	}
	tu_free_list(names);
	text_file *f = &files[nfiles++];
	snprintf(f->name, sizeof f->name, "built-in seed");
	snprintf(f->kind, sizeof f->kind, "model");
	f->len = strlen(seed_text);
	f->text = strdup(seed_text);
}

/* Cuts to try for a file of n bytes: every offset, unless n is so large that n^2 bytes of
 * parsing would take too long under ASan; then a stride, plus every offset near both ends. */
static size_t stride_for(size_t n)
{
	const double budget = tu_slow() ? 2e6 : 64e6;
	double s = (double)n * (double)n / budget;
	return s < 1 ? 1 : (size_t)s + 1;
}

START_TEST(every_prefix_of_a_corpus_file)
{
	const text_file *f = &files[_i];
	size_t stride = stride_for(f->len);
	int ok = 0, failed = 0;
	for (size_t cut = 0; cut <= f->len; cut++) {
		if (stride > 1 && cut > 2048 && cut + 2048 < f->len && cut % stride)
			continue;
		char ctx[300];
		snprintf(ctx, sizeof ctx, "%s cut at byte %zu", f->name, cut);
		OnnxError e;
		if (parse_checked(f->kind, f->text, cut, &e, ctx) == ONNXTXT_OK)
			ok++;
		else
			failed++;
	}
	ck_assert_msg(failed > 0, "%s: every prefix parsed", f->name);
	OnnxError e;
	ck_assert_int_eq(parse_checked(f->kind, f->text, f->len, &e, f->name), ONNXTXT_OK);
}
END_TEST

/* For each offset of a text: 1 when a byte inserted there lands inside a string literal, 2
 * when it would also split an escape sequence, 0 outside strings. */
static char *string_interiors(const char *t, size_t n)
{
	char *in = calloc(n + 1, 1);
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '#') {
			while (i < n && t[i] != '\n')
				i++;
		} else if (t[i] == '"') {
			for (i++; i < n && t[i] != '"'; i++) {
				in[i] = 1;
				if (t[i] == '\\' && i + 1 < n)
					in[++i] = 2;
			}
			if (i < n)
				in[i] = 1; /* before the closing quote is still inside */
		}
	}
	return in;
}

/* A NUL inserted anywhere: inside a string literal it is kept (bytes fields) or refused on
 * that literal (names); anywhere else the error is at the NUL, or on a token it cut short. */
START_TEST(a_nul_byte_at_every_offset)
{
	const text_file *f = &files[_i];
	char *inside = string_interiors(f->text, f->len);
	char *text = malloc(f->len + 1);
	size_t stride = stride_for(f->len);
	for (size_t at = 0; at <= f->len; at++) {
		if (stride > 1 && at % stride)
			continue;
		memcpy(text, f->text, at);
		text[at] = '\0';
		memcpy(text + at + 1, f->text + at, f->len - at);
		char ctx[300];
		snprintf(ctx, sizeof ctx, "%s, NUL at byte %zu", f->name, at);
		OnnxError e;
		OnnxStatus st = parse_checked(f->kind, text, f->len + 1, &e, ctx);
		if (inside[at] == 2) {
			continue; /* parse_checked has checked that the outcome is clean */
		} else if (inside[at] == 1) {
			/* a NUL that cuts a UTF-8 character leaves the bytes before it not text */
			bool cut = strncmp(e.message, "invalid UTF-8 byte", 18) == 0 && e.offset < at && at - e.offset < 4;
			ck_assert_msg(st == ONNXTXT_OK || (e.offset < at && at < e.offset + e.length) || cut,
				      "%s: error at %zu+%zu does not cover the string: %s", ctx, e.offset, e.length,
				      e.message);
		} else {
			ck_assert_msg(st != ONNXTXT_OK, "%s: parsed", ctx);
			ck_assert_msg((e.offset == at && e.length == 1 &&
				       strcmp(e.message, "NUL byte outside a string literal") == 0) ||
					      (e.offset < at && e.offset + e.length == at),
				      "%s: error at %zu+%zu: %s", ctx, e.offset, e.length, e.message);
		}
	}
	free(text);
	free(inside);
}
END_TEST

static uint64_t rng;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t below(size_t n)
{
	return n ? (size_t)(next_random() % n) : 0;
}

static const char *const dictionary[] = {
	"<", ">", "(", ")", "[", "]", "{", "}", ",", ":", "=", "=>", ".", "@", "?", "\"", "\\", "#", "#@ ", "\n",
	" ", "\t", "-", "'", "\0", "\xc3\xa9", "\xe4\xb8\xad", "\xff", "\x80", "0", "-0", "1e", "1e-3", "1.",
	".5", "nan", "-inf", "infinity", "9223372036854775807", "-9223372036854775808", "18446744073709551616",
	"1e308", "1e309", "3.4028236e38", "1e-46", "0x10", "float", "float16", "bfloat16", "int4", "uint2",
	"complex64", "string", "bool", "seq(", "map(int64, ", "optional(", "sparse_tensor(", "opaque(",
	"ir_version", "opset_import", "domain", "doc_string", "overload", "x", "\"s\"", "\"\\\"\"", "{1, 2}",
	"[1, 2]", "g () => () {}", "<a = 1>", "@ref", "float[2] {1, 2}", "y = Foo(x)", "seq(float)", "int8[1] {300}",
};
#define NDICT (sizeof dictionary / sizeof *dictionary)

/* One random edit: replace a byte, insert a dictionary word, delete or duplicate a range. */
static void mutate(str *s)
{
	size_t at = below(s->n + 1);
	switch (next_random() % 5) {
	case 0:
		if (s->n)
			s->p[below(s->n)] = (char)next_random();
		break;
	case 1:
	case 2: {
		const char *w = dictionary[below(NDICT)];
		size_t k = w[0] ? strlen(w) : 1;
		str t = {0};
		s_add(&t, s->p, at);
		s_add(&t, w, k);
		s_add(&t, s->p + at, s->n - at);
		free(s->p);
		*s = t;
		break;
	}
	case 3: {
		size_t k = below(s->n - at < 40 ? s->n - at + 1 : 41);
		memmove(s->p + at, s->p + at + k, s->n - at - k);
		s->n -= k;
		break;
	}
	default: {
		size_t k = below(s->n - at < 40 ? s->n - at + 1 : 41);
		str t = {0};
		s_add(&t, s->p, at + k);
		s_add(&t, s->p + at, s->n - at);
		free(s->p);
		*s = t;
		break;
	}
	}
}

/* Random mutations of each corpus file (4000 in all, or $ONNXTXT_MUTATIONS), parsed as the
 * file's kind and as another; what parses as a model must survive the binary round trip. */
START_TEST(random_mutations)
{
	const text_file *f = &files[_i];
	rng = 0x2545f4914f6cdd1dull ^ (uint64_t)(_i + 1) * 0x9e3779b97f4a7c15ull;
	const char *more = getenv("ONNXTXT_MUTATIONS"); /* for longer exploratory runs */
	int rounds = (more ? atoi(more) : 4000) / (nfiles ? nfiles : 1);
	int parsed = 0;
	for (int round = 0; round < rounds; round++) {
		str s = {0};
		s_add(&s, f->text, f->len);
		int edits = 1 + (int)below(3);
		for (int k = 0; k < edits; k++)
			mutate(&s);
		char ctx[300];
		snprintf(ctx, sizeof ctx, "%s, mutation %d", f->name, round);
		OnnxError e;
		const char *kind = f->kind, *other = kinds[below(NKINDS)];
		if (parse_checked(kind, s.p, s.n, &e, ctx) == ONNXTXT_OK) {
			parsed++;
			if (strcmp(kind, "model") == 0) {
				Onnx__ModelProto *m, *back;
				ck_assert_int_eq(OnnxParser_Parse(s.p, s.n, &m, &e), ONNXTXT_OK);
				void *data;
				size_t len;
				ck_assert_int_eq(OnnxBinary_Write(m, &data, &len, &e), ONNXTXT_OK);
				ck_assert_msg(OnnxBinary_Read(data, len, &back, &e) == ONNXTXT_OK, "%s: %s", ctx,
					      e.message);
				size_t n2;
				unsigned char *again = tu_pack(back, &n2);
				ck_assert_msg(n2 == len && memcmp(again, data, len) == 0, "%s: binary round trip differs",
					      ctx);
				free(again);
				free(data);
				OnnxProto_Free(back);
				OnnxProto_Free(m);
			}
		}
		parse_checked(other, s.p, s.n, &e, ctx);
		free(s.p);
	}
	printf("# %s: %d of %d mutants parsed\n", f->name, parsed, rounds);
}
END_TEST

static char *case_names[256];
static int ncase_names;

static TCase *add_case(Suite *s, const char *prefix, const char *name, int timeout)
{
	char *full;
	if (asprintf(&full, "%s%s", prefix, name) < 0)
		abort();
	case_names[ncase_names++] = full;
	TCase *tc = tcase_create(full);
	tcase_set_timeout(tc, timeout);
	suite_add_tcase(s, tc);
	return tc;
}

int main(void)
{
	load_files();
	Suite *s = suite_create("hostile");
	for (size_t i = 0; i < NFAMILIES; i++) {
		TCase *tc = add_case(s, "nesting: ", families[i].name, 60);
		_tcase_add_test(tc, nesting_just_below_and_above_the_limit, 0, 0, (int)i, (int)i + 1);
	}
	TCase *tc = add_case(s, "nesting: ", "other", 60);
	tcase_add_test(tc, brackets_only);
	tcase_add_test(tc, nested_tensor_braces);
	tc = add_case(s, "huge: ", "inputs", 240);
	tcase_add_test(tc, a_million_ints_in_an_attribute);
	tcase_add_test(tc, a_million_tensor_values);
	tcase_add_test(tc, a_hundred_thousand_nodes);
	tcase_add_test(tc, a_ten_megabyte_string);
	tcase_add_test(tc, other_long_lists);
	tcase_add_test(tc, huge_shapes_fail_fast);
	for (int i = 0; i < nfiles; i++) {
		tc = add_case(s, "every prefix: ", files[i].name, 120);
		_tcase_add_test(tc, every_prefix_of_a_corpus_file, 0, 0, i, i + 1);
		tc = add_case(s, "NUL at every offset: ", files[i].name, 120);
		_tcase_add_test(tc, a_nul_byte_at_every_offset, 0, 0, i, i + 1);
		tc = add_case(s, "random mutations: ", files[i].name, 120);
		_tcase_add_test(tc, random_mutations, 0, 0, i, i + 1);
	}
	int rc = tu_run(s);
	for (int i = 0; i < nfiles; i++)
		free(files[i].text);
	for (int i = 0; i < ncase_names; i++)
		free(case_names[i]);
	return rc;
}
