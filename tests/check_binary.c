/* Binary I/O against malformed and hostile bytes: every failure is ONNXTXT_ERR_BINARY with a
 * message naming the field path and byte offset, nothing crashes, and OnnxBinary_WriteFile
 * replaces files atomically. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "testutil.h"

/* ---- building protobuf bytes by hand -------------------------------------------------- */

typedef struct bytes {
	uint8_t *p;
	size_t n, cap;
} bytes;

static void b_raw(bytes *b, const void *data, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		ck_assert(b->p);
	}
	if (n)
		memcpy(b->p + b->n, data, n);
	b->n += n;
}

static void b_byte(bytes *b, uint8_t c)
{
	b_raw(b, &c, 1);
}

static void b_varint(bytes *b, uint64_t v)
{
	do {
		b_byte(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v);
}

static void b_tag(bytes *b, unsigned field, unsigned wt)
{
	b_varint(b, (uint64_t)field << 3 | wt);
}

static void b_int(bytes *b, unsigned field, uint64_t v)
{
	b_tag(b, field, 0);
	b_varint(b, v);
}

static void b_len(bytes *b, unsigned field, const void *data, size_t n)
{
	b_tag(b, field, 2);
	b_varint(b, n);
	b_raw(b, data, n);
}

static void b_str(bytes *b, unsigned field, const char *s)
{
	b_len(b, field, s, strlen(s));
}

/* Appends inner as a length-delimited field and releases it. */
static void b_msg(bytes *b, unsigned field, bytes *inner)
{
	b_len(b, field, inner->p, inner->n);
	free(inner->p);
	*inner = (bytes){0};
}

/* Field numbers of onnx.proto used below. */
enum {
	MODEL_IR_VERSION = 1, MODEL_PRODUCER_NAME = 2, MODEL_GRAPH = 7, MODEL_OPSET = 8,
	GRAPH_NODE = 1, GRAPH_NAME = 2, GRAPH_INITIALIZER = 5, GRAPH_INPUT = 11,
	NODE_INPUT = 1, NODE_OUTPUT = 2, NODE_OP_TYPE = 4, NODE_ATTRIBUTE = 5,
	ATTR_NAME = 1, ATTR_F = 2, ATTR_I = 3, ATTR_T = 5, ATTR_G = 6, ATTR_INTS = 8, ATTR_TYPE = 20,
	TENSOR_DIMS = 1, TENSOR_DATA_TYPE = 2, TENSOR_FLOAT_DATA = 4, TENSOR_INT32_DATA = 5,
	TENSOR_INT64_DATA = 7, TENSOR_DOUBLE_DATA = 10,
	VI_NAME = 1, VI_TYPE = 2, TYPE_TENSOR = 1, TYPE_SEQUENCE = 4, SEQ_ELEM_TYPE = 1,
};

/* ---- checking errors ------------------------------------------------------------------ */

static int is_path(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t start = i;
		while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_'))
			i++;
		if (i == start)
			return 0;
		if (i < n && s[i] == '[') {
			size_t d = ++i;
			while (i < n && s[i] >= '0' && s[i] <= '9')
				i++;
			if (i == d || i >= n || s[i++] != ']')
				return 0;
		}
		if (i < n && s[i++] != '.')
			return 0;
		if (i == n && s[n - 1] == '.')
			return 0;
	}
	return 1;
}

/* Checks the shape of a binary error: the code want, no text position, "[PATH: ]WHAT (at byte N)"
 * with N == err->offset <= len. Copies the path (possibly empty) into path. */
static void check_error(const OnnxError *e, OnnxStatus want, size_t len, char *path, size_t size,
			const char *ctx)
{
	ck_assert_msg(e->code == want, "%s: code %d, want %d: %s", ctx, e->code, want, e->message);
	ck_assert_msg(e->line == 0 && e->column == 0, "%s: binary errors have no line/column", ctx);
	const char *at = strstr(e->message, " (at byte ");
	ck_assert_msg(at, "%s: message names no byte offset: %s", ctx, e->message);
	while (strstr(at + 1, " (at byte "))
		at = strstr(at + 1, " (at byte ");
	size_t n;
	char close = 0, extra = 0;
	ck_assert_msg(sscanf(at, " (at byte %zu%c%c", &n, &close, &extra) == 2 && close == ')', "%s: %s", ctx,
		      e->message);
	ck_assert_msg(n == e->offset, "%s: message says byte %zu, err.offset is %zu", ctx, n, e->offset);
	ck_assert_msg(n <= len, "%s: byte %zu is beyond the %zu bytes of input", ctx, n, len);
	const char *colon = strstr(e->message, ": ");
	path[0] = '\0';
	if (colon && colon < at && is_path(e->message, (size_t)(colon - e->message)))
		snprintf(path, size, "%.*s", (int)(colon - e->message), e->message);
}

/* Walks a path such as "graph.node[3].attribute[0].t" through a message; returns NULL
 * when every component exists, else what is missing. */
static const char *resolve(const ProtobufCMessage *m, const char *path)
{
	static char why[300];
	char comp[100];
	const char *p = path;
	while (*p) {
		size_t k = strcspn(p, ".[");
		snprintf(comp, sizeof comp, "%.*s", (int)k, p);
		p += k;
		long idx = -1;
		if (*p == '[') {
			idx = strtol(p + 1, (char **)&p, 10);
			p++; /* ']' */
		}
		if (*p == '.')
			p++;
		if (!m) {
			snprintf(why, sizeof why, "'%s' follows a scalar", comp);
			return why;
		}
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, comp);
		if (!fd) {
			snprintf(why, sizeof why, "%s has no field '%s'", m->descriptor->name, comp);
			return why;
		}
		const char *base = (const char *)m;
		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t count = *(const size_t *)(base + fd->quantifier_offset);
			if (idx < 0 || (size_t)idx >= count) {
				snprintf(why, sizeof why, "%s[%ld] does not exist (%zu elements)", comp, idx, count);
				return why;
			}
			m = fd->type == PROTOBUF_C_TYPE_MESSAGE ? (*(ProtobufCMessage *const *const *)(base + fd->offset))[idx]
								: NULL;
		} else {
			if (idx >= 0) {
				snprintf(why, sizeof why, "%s is not repeated", comp);
				return why;
			}
			if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF &&
			    *(const uint32_t *)(base + fd->quantifier_offset) != fd->id) {
				snprintf(why, sizeof why, "oneof member %s is not set", comp);
				return why;
			}
			if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
				m = *(ProtobufCMessage *const *)(base + fd->offset);
				if (!m) {
					snprintf(why, sizeof why, "%s is not set", comp);
					return why;
				}
			} else {
				m = NULL;
			}
		}
	}
	return NULL;
}

static void expect_error(const bytes *b, const char *want_message, size_t want_offset)
{
	Onnx__ModelProto *m = (void *)&m;
	OnnxError e;
	OnnxStatus st = OnnxBinary_Read(b->p, b->n, &m, &e);
	ck_assert_msg(st == ONNXTXT_ERR_BINARY, "read gave %d (%s), want an error: %s", st, e.message, want_message);
	ck_assert_ptr_null(m);
	char path[512];
	check_error(&e, ONNXTXT_ERR_BINARY, b->n, path, sizeof path, want_message);
	ck_assert_str_eq(e.message, want_message);
	ck_assert_uint_eq(e.offset, want_offset);
}

static Onnx__ModelProto *expect_ok(const bytes *b)
{
	Onnx__ModelProto *m = NULL;
	OnnxError e;
	OnnxStatus st = OnnxBinary_Read(b->p, b->n, &m, &e);
	ck_assert_msg(st == ONNXTXT_OK, "read failed: %s", e.message);
	ck_assert_ptr_nonnull(m);
	return m;
}

/* Packs m with OnnxBinary_Write and compares with want. */
static void expect_bytes(const Onnx__ModelProto *m, const void *want, size_t n, const char *ctx)
{
	void *data = NULL;
	size_t len = 0;
	OnnxError e;
	ck_assert_int_eq(OnnxBinary_Write(m, &data, &len, &e), ONNXTXT_OK);
	size_t i = 0;
	while (i < len && i < n && ((uint8_t *)data)[i] == ((const uint8_t *)want)[i])
		i++;
	ck_assert_msg(len == n && i == n, "%s: written %zu bytes, want %zu; first difference at byte %zu", ctx, len, n,
		      i);
	free(data);
}

/* ---- real models ------------------------------------------------------------------------ */

static const char rich_text[] =
	"<\n"
	"  ir_version: 10,\n"
	"  opset_import: [\"\" : 21, \"local\" : 1],\n"
	"  producer_name: \"onnxtxt-tests\",\n"
	"  producer_version: \"1\",\n"
	"  domain: \"test.rich\",\n"
	"  model_version: 3,\n"
	"  doc_string: \"A model that touches many message types.\",\n"
	"  metadata_props: [\"k1\" : \"v1\", \"k2\" : \"v2\"]\n"
	">\n"
	"rich (float[N, 3] x, int64[2] shape = {1, -1}, seq(float[?]) s, map(int64, string) mp,\n"
	"      optional(int32) o) => (float[M] y, float z)\n"
	"<float[3] bias = {0.5, 1e-3, -2}, double[2] dd = {1.5, 2.5}, string[2] names = {\"a\", \"bc\"},\n"
	" int8[2] small = {-3, 4}, float w>\n"
	"{\n"
	"  [first] t = Add(x, bias)\n"
	"  c = If <then_branch = thn () => (float[3] a) {\n"
	"            a = Constant <value = float[3] {1, 2, 3}> ()\n"
	"          },\n"
	"          else_branch = els () => (float[3] b) {\n"
	"            [inner] b = Identity <note = \"hi\", fs = [1.5, 2.5], is = [1, 2, 3], ss = [\"p\", \"q\"]> (bias)\n"
	"          }> (cond)\n"
	"  u = local.Twice <k = 2> (t)\n"
	"  v = Foo <tt = [float[1] {1}, int64[2] {1, 2}], gg = [g1 () => () {}, g2 () => () {}],\n"
	"           tp = seq(float[3]), tps = [float, int64[2]], r = @ref> (u)\n"
	"  y = Reshape <allowzero = 0> (v, shape)\n"
	"  z = ReduceSum (y)\n"
	"}\n"
	"<domain: \"local\", opset_import: [\"\" : 21]>\n"
	"Twice <k> (a) => (b)\n"
	"{\n"
	"  b = Add(a, a)\n"
	"}\n";

typedef struct model_bytes {
	char name[128];
	uint8_t *p;
	size_t n;
} model_bytes;

static model_bytes models[8];
static int nmodels;

static void add_packed(const char *name, const char *text, size_t len)
{
	Onnx__ModelProto *m;
	OnnxError e;
	if (OnnxParser_Parse(text, len, &m, &e) != ONNXTXT_OK) {
		printf("# cannot parse %s: %u:%u: %s\n", name, e.line, e.column, e.message);
		return;
	}
	model_bytes *mb = &models[nmodels++];
	snprintf(mb->name, sizeof mb->name, "%s", name);
	mb->p = tu_pack(m, &mb->n);
	OnnxProto_Free(m);
}

static void load_models(void)
{
	static const char *const corpus[] = {"golden_sample.onnxtxt", "mlp_classifier.onnxtxt"};
	for (size_t i = 0; i < sizeof corpus / sizeof *corpus; i++) {
		char rel[200];
		snprintf(rel, sizeof rel, "corpus/valid/%s", corpus[i]);
		size_t len;
		char *text = tu_read(tu_path(tu_source_root(), rel), &len);
		if (text)
			add_packed(rel, text, len);
		free(text);
	}
	add_packed("rich", rich_text, strlen(rich_text));
	static const char *const shared[] = {"simple/test_sequence_model7/model.onnx",
					     "simple/test_gradient_of_add/model.onnx",
					     "pytorch-converted/test_Conv1d_pad2/model.onnx"};
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", tu_path(tu_shared(), "onnx-backend-data"));
	for (size_t i = 0; i < sizeof shared / sizeof *shared; i++) {
		model_bytes *mb = &models[nmodels];
		char *data = tu_read(tu_path(dir, shared[i]), &mb->n);
		if (!data) {
			printf("# skipping %s: ../shared/onnx-backend-data not found\n", shared[i]);
			continue;
		}
		mb->p = (uint8_t *)data;
		snprintf(mb->name, sizeof mb->name, "%s", shared[i]);
		nmodels++;
	}
}

/* Start offsets of the top-level fields; a prefix is a valid model exactly when it ends at one
 * of them (or at the end). Returns a malloc'd map of len + 1 flags. */
static char *top_level_boundaries(const uint8_t *p, size_t n)
{
	char *ok = calloc(n + 1, 1);
	size_t at = 0;
	while (at < n) {
		ok[at] = 1;
		uint64_t tag = 0, v = 0;
		for (int s = 0;; s += 7) {
			tag |= (uint64_t)(p[at] & 0x7f) << s;
			if (!(p[at++] & 0x80))
				break;
		}
		unsigned wt = tag & 7;
		if (wt == 0 || wt == 2) {
			for (int s = 0;; s += 7) {
				v |= (uint64_t)(p[at] & 0x7f) << s;
				if (!(p[at++] & 0x80))
					break;
			}
		}
		at += wt == 1 ? 8 : wt == 5 ? 4 : wt == 2 ? v : 0;
	}
	ck_assert_uint_eq(at, n);
	ok[n] = 1;
	return ok;
}

static const char *top_field_name(const uint8_t *p, size_t n, size_t cut)
{
	size_t at = 0;
	const char *name = NULL;
	while (at < n && at <= cut) {
		uint64_t tag = 0, v = 0;
		for (int s = 0;; s += 7) {
			tag |= (uint64_t)(p[at] & 0x7f) << s;
			if (!(p[at++] & 0x80))
				break;
		}
		const ProtobufCFieldDescriptor *fd =
			protobuf_c_message_descriptor_get_field(&onnx__model_proto__descriptor, (unsigned)(tag >> 3));
		name = fd ? fd->name : NULL;
		unsigned wt = tag & 7;
		if (wt == 0 || wt == 2) {
			for (int s = 0;; s += 7) {
				v |= (uint64_t)(p[at] & 0x7f) << s;
				if (!(p[at++] & 0x80))
					break;
			}
		}
		at += wt == 1 ? 8 : wt == 5 ? 4 : wt == 2 ? v : 0;
	}
	return name;
}

/* Every prefix of a real model: it reads exactly when it ends between top-level fields (and
 * then packs back to the prefix itself); otherwise the error is well-formed, its byte lies
 * within the prefix and its path exists in the whole model. */
START_TEST(truncated_at_every_byte)
{
	const model_bytes *mb = &models[_i];
	Onnx__ModelProto *whole = NULL;
	OnnxError e;
	ck_assert_int_eq(OnnxBinary_Read(mb->p, mb->n, &whole, &e), ONNXTXT_OK);
	expect_bytes(whole, mb->p, mb->n, mb->name);
	char *boundary = top_level_boundaries(mb->p, mb->n);
	int errors = 0;
	for (size_t cut = 0; cut < mb->n; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1); /* exact size, so ASan sees any overread */
		memcpy(copy, mb->p, cut);
		Onnx__ModelProto *m = (void *)&m;
		OnnxStatus st = OnnxBinary_Read(copy, cut, &m, &e);
		char ctx[200];
		snprintf(ctx, sizeof ctx, "%s cut at %zu of %zu", mb->name, cut, mb->n);
		if (boundary[cut]) {
			ck_assert_msg(st == ONNXTXT_OK, "%s: a prefix ending between fields must read: %s", ctx,
				      e.message);
			expect_bytes(m, copy, cut, ctx);
			OnnxProto_Free(m);
		} else {
			ck_assert_msg(st != ONNXTXT_OK, "%s: read a prefix that ends inside a field", ctx);
			ck_assert_msg(m == NULL, "%s: *out is not NULL after failure", ctx);
			char path[512];
			check_error(&e, ONNXTXT_ERR_BINARY, cut, path, sizeof path, ctx);
			const char *top = top_field_name(mb->p, mb->n, cut);
			if (path[0] && top) {
				size_t k = strlen(top);
				ck_assert_msg(strncmp(path, top, k) == 0 && strchr(".[", path[k]) != NULL,
					      "%s: error path %s is not inside field %s", ctx, path, top);
			}
			const char *why = resolve(&whole->base, path);
			ck_assert_msg(!why, "%s: error path %s does not exist in the model: %s", ctx, path, why);
			errors++;
		}
		free(copy);
	}
	ck_assert_int_gt(errors, 0);
	free(boundary);
	OnnxProto_Free(whole);
}
END_TEST

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Random byte flips (600 per model, or $ONNXTXT_MUTATIONS in all): each result reads cleanly or
 * fails cleanly; what reads packs to bytes that read again into the same model. */
START_TEST(random_byte_flips)
{
	const model_bytes *mb = &models[_i];
	rng = 0x9e3779b97f4a7c15ull + (uint64_t)_i;
	int ok = 0, failed = 0;
	const char *more = getenv("ONNXTXT_MUTATIONS"); /* for longer exploratory runs */
	int rounds = more ? atoi(more) / nmodels : 600;
	for (int round = 0; round < rounds; round++) {
		uint8_t *copy = malloc(mb->n);
		memcpy(copy, mb->p, mb->n);
		int flips = 1 + (int)(next_random() % 4);
		for (int k = 0; k < flips; k++) {
			size_t at = (size_t)(next_random() % mb->n);
			uint8_t mask = (uint8_t)(1 + next_random() % 255);
			copy[at] ^= mask;
		}
		char ctx[200];
		snprintf(ctx, sizeof ctx, "%s, round %d", mb->name, round);
		Onnx__ModelProto *m = (void *)&m;
		OnnxError e;
		if (OnnxBinary_Read(copy, mb->n, &m, &e) == ONNXTXT_OK) {
			void *once;
			size_t n1;
			ck_assert_int_eq(OnnxBinary_Write(m, &once, &n1, &e), ONNXTXT_OK);
			Onnx__ModelProto *again;
			ck_assert_msg(OnnxBinary_Read(once, n1, &again, &e) == ONNXTXT_OK, "%s: re-read: %s", ctx,
				      e.message);
			expect_bytes(again, once, n1, ctx);
			OnnxProto_Free(again);
			OnnxProto_Free(m);
			free(once);
			ok++;
		} else {
			ck_assert_msg(m == NULL, "%s: *out is not NULL after failure", ctx);
			char path[512];
			check_error(&e, ONNXTXT_ERR_BINARY, mb->n, path, sizeof path, ctx);
			failed++;
		}
		free(copy);
	}
	printf("# %s: %d flipped models read, %d failed\n", mb->name, ok, failed);
	ck_assert_int_gt(failed, 0);
}
END_TEST

/* ---- hand-built malformed bytes --------------------------------------------------------- */

START_TEST(empty_input_is_an_empty_model)
{
	Onnx__ModelProto *m = NULL;
	OnnxError e;
	ck_assert_int_eq(OnnxBinary_Read("", 0, &m, &e), ONNXTXT_OK);
	ck_assert_ptr_nonnull(m);
	ck_assert(!m->has_ir_version && !m->graph && m->n_opset_import == 0 && m->n_functions == 0);
	ck_assert(m->producer_name == NULL || m->producer_name[0] == '\0');
	expect_bytes(m, "", 0, "empty model");
	OnnxProto_Free(m);
	m = NULL;
	ck_assert_int_eq(OnnxBinary_Read(NULL, 0, &m, &e), ONNXTXT_OK);
	ck_assert_ptr_nonnull(m);
	OnnxProto_Free(m);
}
END_TEST

/* graph { node { op_type: "Relu" }, node { attribute { name: "a" }, attribute { ... } } } */
static bytes node_with_attributes(bytes *second_attribute)
{
	bytes n0 = {0}, n1 = {0}, a0 = {0}, g = {0}, model = {0};
	b_str(&n0, NODE_OP_TYPE, "Relu");
	b_str(&a0, ATTR_NAME, "a");
	b_str(&n1, NODE_OP_TYPE, "Foo");
	b_msg(&n1, NODE_ATTRIBUTE, &a0);
	b_msg(&n1, NODE_ATTRIBUTE, second_attribute);
	b_msg(&g, GRAPH_NODE, &n0);
	b_msg(&g, GRAPH_NODE, &n1);
	b_str(&g, GRAPH_NAME, "g");
	b_int(&model, MODEL_IR_VERSION, 8);
	b_msg(&model, MODEL_GRAPH, &g);
	return model;
}

START_TEST(length_prefix_larger_than_the_data)
{
	/* at the top level */
	bytes b = {0};
	b_int(&b, MODEL_IR_VERSION, 8);
	b_tag(&b, MODEL_GRAPH, 2);
	b_varint(&b, 100);
	b_raw(&b, "\x0a\x00\x12", 3);
	expect_error(&b, "graph: length runs past the end of the data (at byte 2)", 2);
	free(b.p);
	/* a string inside graph.node[1].attribute[1] claims 1000 bytes */
	bytes a1 = {0};
	b_str(&a1, ATTR_NAME, "b");
	b_tag(&a1, ATTR_NAME, 2);
	b_varint(&a1, 1000);
	b_raw(&a1, "xyz", 3);
	bytes m = node_with_attributes(&a1);
	/* the attribute's own length covers its bytes, so the string overruns it */
	expect_error(&m, "graph.node[1].attribute[1].name: length runs past the end of the data (at byte 29)", 29);
	free(m.p);
	/* a length near 2^64 must not wrap around */
	b = (bytes){0};
	b_tag(&b, MODEL_PRODUCER_NAME, 2);
	b_varint(&b, UINT64_MAX - 1);
	b_raw(&b, "abc", 3);
	expect_error(&b, "producer_name: length runs past the end of the data (at byte 0)", 0);
	free(b.p);
}
END_TEST

START_TEST(bad_wire_types)
{
	/* groups (3, 4) and the undefined wire types 6 and 7, known and unknown fields */
	static const unsigned wts[] = {3, 4, 6, 7};
	for (size_t i = 0; i < 4; i++) {
		bytes b = {0};
		b_int(&b, MODEL_IR_VERSION, 8);
		b_tag(&b, MODEL_PRODUCER_NAME, wts[i]);
		b_raw(&b, "\x01\x02\x03", 3);
		expect_error(&b, "producer_name: unsupported wire type (groups are not used by ONNX) (at byte 2)", 2);
		free(b.p);
		b = (bytes){0};
		b_tag(&b, 1000, wts[i]);
		expect_error(&b, "unsupported wire type (groups are not used by ONNX) (at byte 0)", 0);
		free(b.p);
	}
	/* graph.node[1].attribute[1].t (a message) sent as a varint */
	bytes a1 = {0};
	b_str(&a1, ATTR_NAME, "t");
	b_int(&a1, ATTR_T, 5);
	bytes m = node_with_attributes(&a1);
	expect_error(&m, "graph.node[1].attribute[1].t: wire type does not match the field's type (at byte 29)", 29);
	free(m.p);
	/* attribute f (a float, fixed 32-bit) sent as fixed 64-bit */
	a1 = (bytes){0};
	b_str(&a1, ATTR_NAME, "f");
	b_tag(&a1, ATTR_F, 1);
	b_raw(&a1, "\0\0\0\0\0\0\xf0\x3f", 8);
	m = node_with_attributes(&a1);
	expect_error(&m, "graph.node[1].attribute[1].f: wire type does not match the field's type (at byte 29)", 29);
	free(m.p);
	/* a string sent as a varint */
	bytes b = {0};
	b_int(&b, MODEL_PRODUCER_NAME, 7);
	expect_error(&b, "producer_name: wire type does not match the field's type (at byte 0)", 0);
	free(b.p);
	/* field number 0 */
	b = (bytes){0};
	b_int(&b, MODEL_IR_VERSION, 8);
	b_int(&b, 0, 1);
	expect_error(&b, "malformed field tag (at byte 2)", 2);
	free(b.p);
}
END_TEST

START_TEST(varints_longer_than_ten_bytes)
{
	static const uint8_t eleven[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	/* as a value */
	bytes b = {0};
	b_tag(&b, MODEL_IR_VERSION, 0);
	b_raw(&b, eleven, sizeof eleven);
	expect_error(&b, "ir_version: malformed varint (at byte 0)", 0);
	free(b.p);
	/* as a tag */
	b = (bytes){0};
	b_int(&b, MODEL_IR_VERSION, 8);
	b_raw(&b, eleven, sizeof eleven);
	expect_error(&b, "malformed field tag (at byte 2)", 2);
	free(b.p);
	/* as a length, inside graph.node[1].attribute[1] */
	bytes a1 = {0};
	b_str(&a1, ATTR_NAME, "s");
	b_tag(&a1, 4, 2);
	b_raw(&a1, eleven, sizeof eleven);
	bytes m = node_with_attributes(&a1);
	expect_error(&m, "graph.node[1].attribute[1].s: length runs past the end of the data (at byte 29)", 29);
	free(m.p);
	/* 0x80 continuation bytes only, up to the end of the data */
	b = (bytes){0};
	b_tag(&b, MODEL_IR_VERSION, 0);
	b_raw(&b, "\x80\x80\x80", 3);
	expect_error(&b, "ir_version: malformed varint (at byte 0)", 0);
	free(b.p);
	/* tags and lengths: at most five bytes, as protobuf-c reads them (a longer, padded
	 * encoding of a small number is refused by the scan, with its path) */
	b = (bytes){0};
	b_int(&b, MODEL_IR_VERSION, 8);
	b_raw(&b, "\x88\x80\x80\x80\x80\x00\x08", 7);
	expect_error(&b, "malformed field tag (at byte 2)", 2);
	free(b.p);
	b = (bytes){0};
	b_raw(&b, "\x12\x81\x80\x80\x80\x80\x00" "a", 8);
	expect_error(&b, "producer_name: malformed length (more than five bytes) (at byte 0)", 0);
	free(b.p);
	/* ten bytes is the longest valid varint: -1 as int64 */
	b = (bytes){0};
	b_tag(&b, MODEL_IR_VERSION, 0);
	b_raw(&b, eleven + 1, sizeof eleven - 1);
	Onnx__ModelProto *model = expect_ok(&b);
	ck_assert(model->has_ir_version && model->ir_version == -1);
	expect_bytes(model, b.p, b.n, "ir_version -1");
	OnnxProto_Free(model);
	free(b.p);
}
END_TEST

/* model.graph.node[0].attribute[0].g.node[0]... with `levels` messages below the model. */
static bytes graph_chain(int levels)
{
	static const unsigned field_into[] = {ATTR_G, GRAPH_NODE, NODE_ATTRIBUTE}; /* by (level - 1) % 3 */
	bytes b = {0};
	for (int level = levels; level >= 1; level--) {
		bytes outer = {0};
		int parent_is_attribute = level > 1 && level % 3 == 1;
		if (parent_is_attribute) /* give it a name and a type, like a real one */
			b_str(&outer, ATTR_NAME, "body");
		b_msg(&outer, level == 1 ? MODEL_GRAPH : field_into[(level - 1) % 3], &b);
		if (parent_is_attribute)
			b_int(&outer, ATTR_TYPE, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
		b = outer;
	}
	return b;
}

/* model.graph.input[0].type.sequence_type.elem_type.sequence_type... */
static bytes type_chain(int levels)
{
	bytes b = {0};
	for (int level = levels; level >= 1; level--) {
		bytes outer = {0};
		unsigned field = level == 1 ? MODEL_GRAPH
			       : level == 2 ? GRAPH_INPUT
			       : level == 3 ? VI_TYPE
			       : level % 2 == 0 ? TYPE_SEQUENCE
						: SEQ_ELEM_TYPE;
		if (level == 3)
			b_str(&outer, VI_NAME, "x");
		b_msg(&outer, field, &b);
		b = outer;
	}
	return b;
}

static void check_depth(bytes (*chain)(int), const char *path_start)
{
	/* exactly at the limit: reads and writes back */
	bytes b = chain(ONNXTXT_MAX_MESSAGE_DEPTH);
	Onnx__ModelProto *m = expect_ok(&b);
	expect_bytes(m, b.p, b.n, "nesting at the limit");
	OnnxProto_Free(m);
	free(b.p);
	/* one and many levels more: fails with the limit named */
	static const int beyond[] = {ONNXTXT_MAX_MESSAGE_DEPTH + 1, ONNXTXT_MAX_MESSAGE_DEPTH + 2, 10000};
	for (size_t i = 0; i < sizeof beyond / sizeof *beyond; i++) {
		b = chain(beyond[i]);
		m = (void *)&m;
		OnnxError e;
		ck_assert_int_ne(OnnxBinary_Read(b.p, b.n, &m, &e), ONNXTXT_OK);
		ck_assert_ptr_null(m);
		char path[512];
		check_error(&e, ONNXTXT_ERR_LIMIT, b.n, path, sizeof path, "nesting beyond the limit");
		ck_assert_msg(strstr(e.message, "nested too deep"), "%d levels: the limit is not named: %s", beyond[i],
			      e.message);
		/* a long path keeps its innermost fields behind "..." */
		ck_assert_msg(strncmp(e.message, path_start, strlen(path_start)) == 0 || strncmp(e.message, "...", 3) == 0,
			      "%d levels: path: %s", beyond[i], e.message);
		free(b.p);
	}
}

START_TEST(nesting_deeper_than_the_limit)
{
	check_depth(graph_chain, "graph.node[0].attribute[0].g.node[0].attribute[0].g.");
	check_depth(type_chain, "graph.input[0].type.sequence_type.elem_type.sequence_type.");
}
END_TEST

/* A tensor in graph.initializer[0] whose packed field holds `n` bytes of `data`. */
static bytes packed_tensor(unsigned field, const void *data, size_t n)
{
	bytes t = {0}, g = {0}, model = {0};
	b_int(&t, TENSOR_DIMS, 2);
	b_int(&t, TENSOR_DATA_TYPE, 1);
	b_len(&t, field, data, n);
	b_str(&t, 8, "w");
	b_msg(&g, GRAPH_INITIALIZER, &t);
	b_msg(&model, MODEL_GRAPH, &g);
	return model;
}

START_TEST(packed_length_not_a_multiple_of_the_element)
{
	static const uint8_t zeros[16] = {0};
	static const struct {
		unsigned field;
		size_t n;
		const char *name;
	} cases[] = {
		{TENSOR_FLOAT_DATA, 5, "float_data"}, {TENSOR_FLOAT_DATA, 7, "float_data"},
		{TENSOR_FLOAT_DATA, 1, "float_data"}, {TENSOR_DOUBLE_DATA, 9, "double_data"},
		{TENSOR_DOUBLE_DATA, 4, "double_data"}, {TENSOR_DOUBLE_DATA, 15, "double_data"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		bytes b = packed_tensor(cases[i].field, zeros, cases[i].n);
		char want[200];
		snprintf(want, sizeof want,
			 "graph.initializer[0].%s[0]: packed values do not fill the field exactly (at byte 10)",
			 cases[i].name);
		expect_error(&b, want, 10);
		free(b.p);
	}
	/* packed varints whose last value is cut off */
	bytes b = packed_tensor(TENSOR_INT64_DATA, "\x01\x02\x80", 3);
	expect_error(&b, "graph.initializer[0].int64_data[0]: packed values do not fill the field exactly (at byte 10)",
		     10);
	free(b.p);
	b = packed_tensor(TENSOR_INT32_DATA, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
	expect_error(&b, "graph.initializer[0].int32_data[0]: packed values do not fill the field exactly (at byte 10)",
		     10);
	free(b.p);
	/* whole elements read */
	b = packed_tensor(TENSOR_FLOAT_DATA, "\0\0\x80\x3f\0\0\0\x40", 8);
	Onnx__ModelProto *m = expect_ok(&b);
	ck_assert_uint_eq(m->graph->initializer[0]->n_float_data, 2);
	ck_assert(m->graph->initializer[0]->float_data[1] == 2.0f);
	expect_bytes(m, b.p, b.n, "packed floats");
	OnnxProto_Free(m);
	free(b.p);
}
END_TEST

/* Repeated scalars read in both encodings, whichever the schema declares. */
START_TEST(packed_and_unpacked_encodings_both_read)
{
	/* attribute ints (declared unpacked) sent packed */
	bytes a1 = {0};
	b_str(&a1, ATTR_NAME, "is");
	b_len(&a1, ATTR_INTS, "\x01\x02\x7f", 3);
	bytes b = node_with_attributes(&a1);
	Onnx__ModelProto *m = expect_ok(&b);
	Onnx__AttributeProto *a = m->graph->node[1]->attribute[1];
	ck_assert_uint_eq(a->n_ints, 3);
	ck_assert(a->ints[0] == 1 && a->ints[1] == 2 && a->ints[2] == 127);
	OnnxProto_Free(m);
	free(b.p);
	/* float_data (declared packed) sent one value per field */
	bytes t = {0}, g = {0};
	b = (bytes){0};
	b_int(&t, TENSOR_DIMS, 2);
	b_int(&t, TENSOR_DATA_TYPE, 1);
	b_tag(&t, TENSOR_FLOAT_DATA, 5);
	b_raw(&t, "\0\0\x80\x3f", 4);
	b_tag(&t, TENSOR_FLOAT_DATA, 5);
	b_raw(&t, "\0\0\0\x40", 4);
	b_msg(&g, GRAPH_INITIALIZER, &t);
	b_msg(&b, MODEL_GRAPH, &g);
	m = expect_ok(&b);
	Onnx__TensorProto *w = m->graph->initializer[0];
	ck_assert_uint_eq(w->n_float_data, 2);
	ck_assert(w->float_data[0] == 1.0f && w->float_data[1] == 2.0f);
	OnnxProto_Free(m);
	free(b.p);
}
END_TEST

/* One unknown field of every wire type. */
static void unknown_fields(bytes *b, unsigned first)
{
	b_int(b, first, 300);
	b_tag(b, first + 1, 1);
	b_raw(b, "12345678", 8);
	b_tag(b, first + 2, 5);
	b_raw(b, "abcd", 4);
	b_str(b, first + 3, "unknown bytes");
	b_len(b, first + 4, "\x08\x01\x12\x01x", 5); /* looks like a message; stays opaque */
}

START_TEST(unknown_fields_survive_read_and_write)
{
	/* at the end of each message, the bytes come back exactly */
	bytes n0 = {0}, g = {0}, b = {0};
	b_str(&n0, NODE_INPUT, "x");
	b_str(&n0, NODE_OUTPUT, "y");
	b_str(&n0, NODE_OP_TYPE, "Relu");
	unknown_fields(&n0, 100);
	b_msg(&g, GRAPH_NODE, &n0);
	b_str(&g, GRAPH_NAME, "g");
	unknown_fields(&g, 200);
	b_int(&b, MODEL_IR_VERSION, 8);
	b_msg(&b, MODEL_GRAPH, &g);
	unknown_fields(&b, 1000);
	unknown_fields(&b, 536870900); /* the largest field numbers */
	Onnx__ModelProto *m = expect_ok(&b);
	ck_assert_uint_eq(m->base.n_unknown_fields, 10);
	ck_assert_uint_eq(m->graph->base.n_unknown_fields, 5);
	ck_assert_uint_eq(m->graph->node[0]->base.n_unknown_fields, 5);
	expect_bytes(m, b.p, b.n, "unknown fields");
	OnnxProto_Free(m);
	free(b.p);
	/* between known fields: kept, written after the known ones as protobuf does */
	bytes mid = {0}, want = {0};
	b_int(&mid, MODEL_IR_VERSION, 8);
	unknown_fields(&mid, 50);
	b_str(&mid, MODEL_PRODUCER_NAME, "p");
	b_int(&want, MODEL_IR_VERSION, 8);
	b_str(&want, MODEL_PRODUCER_NAME, "p");
	unknown_fields(&want, 50);
	m = expect_ok(&mid);
	expect_bytes(m, want.p, want.n, "unknown fields between known ones");
	OnnxProto_Free(m);
	free(mid.p);
	free(want.p);
}
END_TEST

/* ---- OnnxBinary_WriteFile --------------------------------------------------------------- */

static char workdir[4096];
static Onnx__ModelProto *small_model;
static uint8_t *small_bytes;
static size_t small_len;

/* One scratch directory for the whole test case, made and removed by the parent process (an
 * unchecked fixture), so that it goes away even when a test fails; each test starts with it
 * empty. */
static void make_workdir(void)
{
	tu_scratch_dir(workdir, "binary");
}

static void remove_workdir(void)
{
	chmod(workdir, 0755);
	tu_remove_tree(workdir);
}

static void setup_workdir(void)
{
	remove_workdir();
	ck_assert_int_eq(mkdir(workdir, 0755), 0);
	chmod(workdir, 0755);
	small_model = tu_model("<ir_version: 8, opset_import: [\"\" : 18]>\n"
			       "g (float[2] x) => (float[2] y) { y = Relu(x) }\n");
	small_bytes = tu_pack(small_model, &small_len);
}

static void teardown_workdir(void)
{
	OnnxProto_Free(small_model);
	free(small_bytes);
}

static const char *in_work(const char *rel)
{
	static char buf[2][4400];
	static int k;
	k ^= 1;
	snprintf(buf[k], sizeof buf[k], "%s/%s", workdir, rel);
	return buf[k];
}

static int not_dots(const struct dirent *e)
{
	return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

/* The directory's entries as one sorted string, "a,b,". */
static char *listing(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, not_dots, alphasort);
	ck_assert_msg(n >= 0, "cannot list %s: %s", dir, strerror(errno));
	size_t cap = 1;
	for (int i = 0; i < n; i++)
		cap += strlen(names[i]->d_name) + 1;
	char *s = calloc(1, cap);
	for (int i = 0; i < n; i++) {
		strcat(s, names[i]->d_name);
		strcat(s, ",");
		free(names[i]);
	}
	free(names);
	return s;
}

static void write_file(const char *path, const char *content, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	chmod(path, mode);
}

static void expect_content(const char *path, const void *want, size_t n)
{
	size_t len;
	char *got = tu_read(path, &len);
	ck_assert_msg(got, "cannot read %s", path);
	ck_assert_msg(len == n && memcmp(got, want, n) == 0, "%s: content changed (%zu bytes, want %zu)", path, len,
		      n);
	free(got);
}

typedef struct write_result {
	OnnxStatus status;
	OnnxError err;
	char *before, *after; /* the directory's entries */
} write_result;

static write_result try_write(const char *path, const char *dir)
{
	write_result r;
	r.before = listing(dir);
	r.status = OnnxBinary_WriteFile(small_model, path, &r.err);
	r.after = listing(dir);
	return r;
}

/* The write failed with ONNXTXT_ERR_IO and errno `want_errno` (0: any), leaving the
 * directory's entries as they were. */
static void check_write_failure(write_result *r, const char *path, int want_errno)
{
	const OnnxError *e = &r->err;
	ck_assert_msg(r->status == ONNXTXT_ERR_IO, "%s: status %d, want ONNXTXT_ERR_IO (%s)", path, r->status,
		      e->message);
	ck_assert_msg(e->sys_errno != 0, "%s: sys_errno is not set", path);
	if (want_errno)
		ck_assert_msg(e->sys_errno == want_errno, "%s: sys_errno %d (%s), want %d (%s)", path, e->sys_errno,
			      strerror(e->sys_errno), want_errno, strerror(want_errno));
	ck_assert_msg(e->message[0] != '\0', "%s: no message", path);
	ck_assert_msg(strcmp(r->before, r->after) == 0, "%s: directory entries changed: [%s] -> [%s]", path,
		      r->before, r->after);
	free(r->before);
	free(r->after);
}

static void expect_write_failure(const char *path, const char *dir, int want_errno)
{
	write_result r = try_write(path, dir);
	check_write_failure(&r, path, want_errno);
}

/* Writes under a file size limit of 8 bytes, which makes the write fail like a full disk
 * would. The limit is lifted before anything is checked: Check itself writes files. */
static write_result write_beyond_file_size_limit(const char *path)
{
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit old, lim = {8, 8};
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	write_result r = try_write(path, workdir);
	setrlimit(RLIMIT_FSIZE, &old);
	return r;
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* A new file gets the permissions the umask gives any new file; a replaced file keeps its
 * own (as cp and sed -i keep them). */
START_TEST(write_file_permissions)
{
	static const mode_t masks[] = {022, 077, 002, 027};
	for (size_t i = 0; i < sizeof masks / sizeof *masks; i++) {
		mode_t old = umask(masks[i]);
		/* what a normal new file gets under this umask */
		const char *ref = in_work("reference");
		unlink(ref);
		int fd = open(ref, O_WRONLY | O_CREAT | O_EXCL, 0666);
		ck_assert_int_ge(fd, 0);
		close(fd);
		mode_t want = mode_of(ref);
		unlink(ref);
		/* a new file, then replacing an existing one that has other permissions */
		const char *path = in_work("model.onnx");
		unlink(path);
		OnnxError e;
		ck_assert_int_eq(OnnxBinary_WriteFile(small_model, path, &e), ONNXTXT_OK);
		expect_content(path, small_bytes, small_len);
		ck_assert_msg(mode_of(path) == want, "umask %03o: new file has mode %04o, want %04o", masks[i],
			      mode_of(path), want);
		static const mode_t kept[] = {0400, 0640, 0600, 0755};
		chmod(path, kept[i]);
		ck_assert_int_eq(OnnxBinary_WriteFile(small_model, path, &e), ONNXTXT_OK);
		expect_content(path, small_bytes, small_len);
		ck_assert_msg(mode_of(path) == kept[i], "umask %03o: replaced file has mode %04o, want %04o", masks[i],
			      mode_of(path), kept[i]);
		umask(old);
		char *names = listing(workdir);
		ck_assert_str_eq(names, "model.onnx,");
		free(names);
		unlink(path);
	}
}
END_TEST

START_TEST(write_file_into_a_missing_directory)
{
	expect_write_failure(in_work("missing/model.onnx"), workdir, ENOENT);
	ck_assert_int_ne(access(in_work("missing"), F_OK), 0);
}
END_TEST

START_TEST(write_file_over_a_directory)
{
	const char *dir = in_work("model.onnx");
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	write_file(in_work("model.onnx/inside"), "kept", 0644);
	expect_write_failure(dir, workdir, EISDIR);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	expect_content(in_work("model.onnx/inside"), "kept", 4);
}
END_TEST

/* Root ignores directory permissions, so as root the write is tried as "nobody". */
static int become_unprivileged(void)
{
	if (geteuid() != 0)
		return 1;
	return setegid(65534) == 0 && seteuid(65534) == 0;
}

static void become_root_again(uid_t uid, gid_t gid)
{
	if (uid == 0) {
		ck_assert_int_eq(seteuid(0), 0);
		ck_assert_int_eq(setegid(gid), 0);
	}
}

START_TEST(write_file_into_an_unwritable_directory)
{
	const char *dir = in_work("readonly");
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	write_file(in_work("readonly/model.onnx"), "old content", 0666);
	chmod(dir, 0555);
	uid_t uid = geteuid();
	gid_t gid = getegid();
	ck_assert_msg(become_unprivileged(), "cannot drop privileges: %s", strerror(errno));
	char path[4200];
	snprintf(path, sizeof path, "%s/model.onnx", dir);
	expect_write_failure(path, dir, EACCES);
	/* a new name in the same directory fails the same way */
	snprintf(path, sizeof path, "%s/new.onnx", dir);
	expect_write_failure(path, dir, EACCES);
	become_root_again(uid, gid);
	expect_content(in_work("readonly/model.onnx"), "old content", 11);
}
END_TEST

/* A write that fails half-way (the file size limit, like a full disk) removes its temporary
 * file and leaves the old file. */
START_TEST(write_file_that_fails_while_writing)
{
	const char *path = in_work("model.onnx");
	write_file(path, "old content", 0644);
	write_result r = write_beyond_file_size_limit(path);
	check_write_failure(&r, path, 0);
	expect_content(path, "old content", 11);
}
END_TEST

START_TEST(write_file_with_null_arguments)
{
	OnnxError e;
	ck_assert_int_eq(OnnxBinary_WriteFile(NULL, in_work("x.onnx"), &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxBinary_WriteFile(small_model, NULL, &e), ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxBinary_WriteFile(small_model, NULL, NULL), ONNXTXT_ERR_ARG);
	char *names = listing(workdir);
	ck_assert_str_eq(names, "");
	free(names);
}
END_TEST

/* A write that fails in fflush/fsync (any model under stdio's 1 MiB buffer) reports the real
 * cause (here EFBIG; ENOSPC on a full disk), not EIO. */
START_TEST(write_failure_keeps_errno)
{
	const char *path = in_work("model.onnx");
	write_result r = write_beyond_file_size_limit(path);
	check_write_failure(&r, path, EFBIG);
}
END_TEST

/* A file name near NAME_MAX works: the temporary name does not grow with it. */
START_TEST(write_file_with_a_long_name)
{
	char name[256];
	memset(name, 'x', 250);
	strcpy(name + 250, ".onnx");
	const char *path = in_work(name);
	OnnxError e;
	ck_assert_msg(OnnxBinary_WriteFile(small_model, path, &e) == ONNXTXT_OK, "%s", e.message);
	expect_content(path, small_bytes, small_len);
}
END_TEST

/* A destination that is not a regular file is written in place, not replaced: "-o /dev/null"
 * run as root must not replace /dev/null itself. Here a private null device stands in for it. */
START_TEST(write_file_into_a_device)
{
	const char *dev = in_work("null");
	if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) {
		printf("# cannot create a device node here: %s\n", strerror(errno));
		return;
	}
	OnnxError e;
	OnnxStatus st = OnnxBinary_WriteFile(small_model, dev, &e);
	struct stat sb;
	ck_assert_int_eq(stat(dev, &sb), 0);
	ck_assert_msg(S_ISCHR(sb.st_mode), "status %d, and the device was replaced by a regular file", st);
}
END_TEST

/* A string field holding a NUL byte cannot be kept (protobuf-c strings end at a NUL), so
 * it is refused with its field named rather than cut silently. */
START_TEST(nul_in_a_string_field_is_refused)
{
	bytes b = {0};
	b_len(&b, MODEL_PRODUCER_NAME, "a\0b", 3);
	Onnx__ModelProto *m = (void *)&m;
	OnnxError e;
	ck_assert_int_eq(OnnxBinary_Read(b.p, b.n, &m, &e), ONNXTXT_ERR_BINARY);
	ck_assert_ptr_null(m);
	ck_assert_msg(!strncmp(e.message, "producer_name: ", 15), "%s", e.message);
	free(b.p);
}
END_TEST

/* ---- registration ----------------------------------------------------------------------- */

static char *case_names[64];
static int ncase_names;

static TCase *named_case(Suite *s, const char *fmt, const char *arg)
{
	char *name;
	if (asprintf(&name, fmt, arg) < 0)
		abort();
	case_names[ncase_names++] = name;
	TCase *tc = tcase_create(name);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return tc;
}

int main(void)
{
	load_models();
	Suite *s = suite_create("binary");
	for (int i = 0; i < nmodels; i++) {
		TCase *tc = named_case(s, "truncated at every byte: %s", models[i].name);
		_tcase_add_test(tc, truncated_at_every_byte, 0, 0, i, i + 1);
		tc = named_case(s, "random byte flips: %s", models[i].name);
		_tcase_add_test(tc, random_byte_flips, 0, 0, i, i + 1);
	}
	TCase *tc = named_case(s, "%s", "malformed");
	tcase_add_test(tc, empty_input_is_an_empty_model);
	tcase_add_test(tc, length_prefix_larger_than_the_data);
	tcase_add_test(tc, bad_wire_types);
	tcase_add_test(tc, varints_longer_than_ten_bytes);
	tcase_add_test(tc, nesting_deeper_than_the_limit);
	tcase_add_test(tc, packed_length_not_a_multiple_of_the_element);
	tcase_add_test(tc, packed_and_unpacked_encodings_both_read);
	tcase_add_test(tc, unknown_fields_survive_read_and_write);
	tcase_add_test(tc, nul_in_a_string_field_is_refused);
	tc = named_case(s, "%s", "write_file");
	tcase_add_unchecked_fixture(tc, make_workdir, remove_workdir);
	tcase_add_checked_fixture(tc, setup_workdir, teardown_workdir);
	tcase_add_test(tc, write_file_permissions);
	tcase_add_test(tc, write_file_into_a_missing_directory);
	tcase_add_test(tc, write_file_over_a_directory);
	tcase_add_test(tc, write_file_that_fails_while_writing);
	tcase_add_test(tc, write_file_with_null_arguments);
	tcase_add_test(tc, write_failure_keeps_errno);
	tcase_add_test(tc, write_file_with_a_long_name);
	tcase_add_test(tc, write_file_into_a_device);
	uid_t uid = geteuid();
	if (uid != 0 || (setegid(65534) == 0 && seteuid(65534) == 0 && seteuid(0) == 0 && setegid(0) == 0))
		tcase_add_test(tc, write_file_into_an_unwritable_directory);
	else
		printf("# skipping write_file_into_an_unwritable_directory: root cannot drop privileges here\n");
	int rc = tu_run(s);
	for (int i = 0; i < nmodels; i++)
		free(models[i].p);
	for (int i = 0; i < ncase_names; i++)
		free(case_names[i]);
	return rc;
}
