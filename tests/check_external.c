/* External data: OnnxModel_ExternalizeData and OnnxModel_EmbedExternalData. Round trips
 * give back the same bytes, the data file holds exactly the little-endian values at the
 * recorded offsets, locations may not leave the model's directory (by "..", an absolute
 * path or a symbolic link), embedding checks every range, and a failed call leaves the model
 * and the directory as they were.
 *
 * Each test gets a fresh scratch tree ROOT/models (the model's directory, also the current
 * directory during the test) and ROOT/outside (where nothing may ever appear). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define DT(x) ONNX__TENSOR_PROTO__DATA_TYPE__##x
#define EXTERNAL ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL

/* ---- models ------------------------------------------------------------------------------ */

/* Tensors everywhere the library looks: initializers (main graph and a subgraph), a Constant's
 * tensor attribute, a tensor-list attribute, a Constant inside an If branch and one inside a
 * model-local function; int64, double, float16, int32, int8, uint32 and uint64 data; a string
 * tensor that must never move; tensors of 4 to 24 bytes for threshold tests. */
static const char *const MAIN_TEXT =
	"<ir_version: 10, opset_import: [\"\" : 21, \"local\" : 1, \"com.example\" : 1]>\n"
	"main (float[4] x, bool cond) => (float[4] y)\n"
	"<float[4] w = {1, 2, 3, 4}, int64[3] i64 = {-1, 2, 9000000000}, double[2] d = {0.5, -2},\n"
	" float16[3] h = {15360, 16384, 48128}, string[2] s = {\"abc\", \"de\"}, float[1] small = {7}>\n"
	"{\n"
	"  c = Constant <value = int32[4] ci {1, -2, 3, -4}> ()\n"
	"  l = com.example.Tables <vals = [int8[5] t8 {-1, 2, -3, 4, -5}, uint32[2] t32 {1, 4000000000}]> ()\n"
	"  r = If (cond) <\n"
	"    then_branch = then_g () => (float[4] a) <float[4] tw = {5, 6, 7, 8}> { a = Add(x, tw) },\n"
	"    else_branch = else_g () => (float[4] b) {\n"
	"      k = Constant <value = double[2] kd {1.25, 3}> ()\n"
	"      b = local.F(x)\n"
	"    }\n"
	"  >\n"
	"  y = local.F(r)\n"
	"}\n"
	"<domain: \"local\", opset_import: [\"\" : 21]>\n"
	"F (X) => (Y)\n"
	"{\n"
	"  fk = Constant <value = uint64[2] fk {1, 18446744073709551615}> ()\n"
	"  Y = Add(X, fk)\n"
	"}\n";

/* Names and data sizes of MAIN_TEXT's tensors, in no particular order. */
static const struct {
	const char *name;
	size_t bytes;
} MAIN_TENSORS[] = {
	{"w", 16}, {"i64", 24}, {"d", 16}, {"h", 6}, {"small", 4}, {"ci", 16},
	{"t8", 5}, {"t32", 8}, {"tw", 16}, {"kd", 16}, {"fk", 16},
};
#define N_MAIN_TENSORS (sizeof MAIN_TENSORS / sizeof *MAIN_TENSORS)

/* More element types, one initializer each. */
static const char *const TYPES_TEXT =
	"<ir_version: 10, opset_import: [\"\" : 21]>\n"
	"types () => ()\n"
	"<bool[3] b = {1, 0, 1}, uint8[2] u8 = {0, 255}, int16[2] i16 = {-2, 300}, uint16[2] u16 = {65535, 1},\n"
	" int32[2] i32 = {-100000, 7}, bfloat16[2] bf = {16256, 49024}, float8e4m3fn[2] f8 = {56, 127},\n"
	" float8e5m2[1] f85 = {60}, int4[3] i4 = {1, 2, -3}, complex64[2] c64 = {1, 2, 3, 4},\n"
	" complex128[1] c128 = {1.5, -2}, uint64[2] u64 = {1, 18446744073709551615},\n"
	" uint32[2] u32 = {4294967295, 5}, double[1] dd = {-0.0}, float[2] ff = {-1.5, 3e38}>\n"
	"{\n"
	"}\n";

/* One float[4] initializer whose data is external; %s is the pair list. */
static const char *const EXT_TEMPLATE =
	"<ir_version: 10, opset_import: [\"\" : 21]>\n"
	"g (float[4] x) => (float[4] y)\n"
	"<float[4] w = [%s]>\n"
	"{\n"
	"  y = Add(x, w)\n"
	"}\n";

/* Just float[4] w = {1, 2, 3, 4}. */
static const char *const W_TEXT =
	"<ir_version: 10, opset_import: [\"\" : 21]>\ng () => () <float[4] w = {1, 2, 3, 4}> {}\n";

/* The little-endian bytes of {1, 2, 3, 4} as float: what EXT_TEMPLATE's data file holds. */
static const uint8_t FLOATS_1234[16] = {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40};

/* ---- walking tensors -------------------------------------------------------------------- */

typedef struct tensor_list {
	Onnx__TensorProto **t;
	size_t n, cap;
} tensor_list;

static void tl_add(tensor_list *l, Onnx__TensorProto *t)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->t = realloc(l->t, l->cap * sizeof *l->t);
		ck_assert(l->t);
	}
	l->t[l->n++] = t;
}

static void walk_graph(tensor_list *l, Onnx__GraphProto *g);

static void walk_nodes(tensor_list *l, size_t n, Onnx__NodeProto **nodes)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nodes[i]->n_attribute; k++) {
			Onnx__AttributeProto *a = nodes[i]->attribute[k];
			if (a->t)
				tl_add(l, a->t);
			for (size_t j = 0; j < a->n_tensors; j++)
				tl_add(l, a->tensors[j]);
			if (a->g)
				walk_graph(l, a->g);
			for (size_t j = 0; j < a->n_graphs; j++)
				walk_graph(l, a->graphs[j]);
		}
}

static void walk_graph(tensor_list *l, Onnx__GraphProto *g)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		tl_add(l, g->initializer[i]);
	walk_nodes(l, g->n_node, g->node);
}

/* Every tensor of the model's graphs (with subgraphs) and functions. */
static tensor_list all_tensors(Onnx__ModelProto *m)
{
	tensor_list l = {0};
	if (m->graph)
		walk_graph(&l, m->graph);
	for (size_t i = 0; i < m->n_functions; i++)
		walk_nodes(&l, m->functions[i]->n_node, m->functions[i]->node);
	return l;
}

static Onnx__TensorProto *tensor_named(Onnx__ModelProto *m, const char *name)
{
	tensor_list l = all_tensors(m);
	Onnx__TensorProto *found = NULL;
	for (size_t i = 0; i < l.n; i++)
		if (l.t[i]->name && strcmp(l.t[i]->name, name) == 0)
			found = l.t[i];
	free(l.t);
	ck_assert_msg(found, "no tensor named %s", name);
	return found;
}

static int is_external(const Onnx__TensorProto *t)
{
	return t->has_data_location && t->data_location == EXTERNAL;
}

static const char *entry_value(const Onnx__TensorProto *t, const char *key)
{
	for (size_t i = 0; i < t->n_external_data; i++)
		if (strcmp(t->external_data[i]->key, key) == 0)
			return t->external_data[i]->value;
	return NULL;
}

static int has_typed_data(const Onnx__TensorProto *t)
{
	return t->n_float_data || t->n_int32_data || t->n_string_data || t->n_int64_data || t->n_double_data ||
	       t->n_uint64_data;
}

/* ---- expected bytes, computed here independently of the library ------------------------- */

typedef struct buf {
	uint8_t *p;
	size_t n;
} buf;

static void put_le(uint8_t *out, uint64_t v, size_t width)
{
	for (size_t i = 0; i < width; i++)
		out[i] = (uint8_t)(v >> (8 * i));
}

/* Bytes per int32_data entry (sub-byte types hold one packed byte per entry). */
static size_t int32_width(int type)
{
	switch (type) {
	case DT(INT32):
		return 4;
	case DT(INT16):
	case DT(UINT16):
	case DT(FLOAT16):
	case DT(BFLOAT16):
		return 2;
	default:
		return 1;
	}
}

/* The tensor's data as ONNX raw_data would hold it: little-endian values in order. */
static buf raw_bytes(const Onnx__TensorProto *t)
{
	buf b = {0};
	if (t->has_raw_data) {
		b.n = t->raw_data.len;
		b.p = malloc(b.n + 1);
		if (b.n)
			memcpy(b.p, t->raw_data.data, b.n);
		return b;
	}
	size_t w32 = int32_width(t->data_type), w64 = t->data_type == DT(UINT32) ? 4 : 8;
	b.n = t->n_int32_data * w32 + t->n_float_data * 4 + t->n_int64_data * 8 + t->n_double_data * 8 +
	      t->n_uint64_data * w64;
	b.p = malloc(b.n + 1);
	uint8_t *o = b.p;
	for (size_t i = 0; i < t->n_int32_data; i++, o += w32)
		put_le(o, (uint64_t)(int64_t)t->int32_data[i], w32);
	for (size_t i = 0; i < t->n_float_data; i++, o += 4) {
		uint32_t u;
		memcpy(&u, &t->float_data[i], 4);
		put_le(o, u, 4);
	}
	for (size_t i = 0; i < t->n_int64_data; i++, o += 8)
		put_le(o, (uint64_t)t->int64_data[i], 8);
	for (size_t i = 0; i < t->n_double_data; i++, o += 8) {
		uint64_t u;
		memcpy(&u, &t->double_data[i], 8);
		put_le(o, u, 8);
	}
	for (size_t i = 0; i < t->n_uint64_data; i++, o += w64)
		put_le(o, t->uint64_data[i], w64);
	return b;
}

/* ---- model helpers ----------------------------------------------------------------------- */

static buf pack(const Onnx__ModelProto *m)
{
	buf b = {0};
	void *p = NULL;
	OnnxError e;
	ck_assert_msg(OnnxBinary_Write(m, &p, &b.n, &e) == ONNXTXT_OK, "OnnxBinary_Write: %s", e.message);
	b.p = p;
	return b;
}

static void expect_same_bytes(const buf *got, const buf *want, const char *what)
{
	size_t i = 0;
	while (i < got->n && i < want->n && got->p[i] == want->p[i])
		i++;
	ck_assert_msg(got->n == want->n && i == got->n, "%s: %zu bytes, want %zu; first difference at byte %zu", what,
		      got->n, want->n, i);
}

static void expect_model_bytes(const Onnx__ModelProto *m, const buf *want, const char *what)
{
	buf got = pack(m);
	expect_same_bytes(&got, want, what);
	free(got.p);
}

static Onnx__ModelProto *read_model(const buf *b)
{
	Onnx__ModelProto *m = NULL;
	OnnxError e;
	ck_assert_msg(OnnxBinary_Read(b->p, b->n, &m, &e) == ONNXTXT_OK, "OnnxBinary_Read: %s", e.message);
	return m;
}

/* The binary of text's model with every non-string tensor's data moved to raw_data. */
static buf raw_binary(const char *text)
{
	Onnx__ModelProto *m = tu_model(text);
	tensor_list l = all_tensors(m);
	buf *owned = calloc(l.n + 1, sizeof *owned);
	for (size_t i = 0; i < l.n; i++) {
		Onnx__TensorProto *t = l.t[i];
		if (t->data_type == DT(STRING) || is_external(t) || !has_typed_data(t))
			continue;
		owned[i] = raw_bytes(t);
		t->raw_data = (ProtobufCBinaryData){owned[i].n, owned[i].p};
		t->has_raw_data = 1;
		t->n_int32_data = t->n_float_data = t->n_int64_data = t->n_double_data = t->n_uint64_data = 0;
	}
	buf b = pack(m);
	OnnxProto_Free(m);
	for (size_t i = 0; i < l.n; i++)
		free(owned[i].p);
	free(owned);
	free(l.t);
	return b;
}

/* text's model, read from binary with its data as raw_data. */
static Onnx__ModelProto *raw_model(const char *text)
{
	buf b = raw_binary(text);
	Onnx__ModelProto *m = read_model(&b);
	free(b.p);
	return m;
}

static Onnx__ModelProto *ext_model(const char *pairs)
{
	char *text;
	ck_assert(asprintf(&text, EXT_TEMPLATE, pairs) > 0);
	Onnx__ModelProto *m = tu_model(text);
	free(text);
	return m;
}

/* ---- scratch directories ---------------------------------------------------------------- */

static char root[4096], saved_cwd[4096];

/* Made and removed by the parent process, so that it goes away even when a test fails. */
static void make_root(void)
{
	tu_scratch_dir(root, "external");
}

static void remove_root(void)
{
	tu_remove_tree(root);
}

/* Each test starts with empty ROOT/models (the current directory) and ROOT/outside. */
static void setup(void)
{
	ck_assert_ptr_nonnull(getcwd(saved_cwd, sizeof saved_cwd));
	tu_remove_tree(root);
	ck_assert_int_eq(mkdir(root, 0755), 0);
	chmod(root, 0755);
	char p[4200];
	snprintf(p, sizeof p, "%s/models", root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	chmod(p, 0755);
	snprintf(p, sizeof p, "%s/outside", root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(chdir(root), 0);
	ck_assert_int_eq(chdir("models"), 0);
}

static void teardown(void)
{
	if (chdir(saved_cwd) != 0)
		perror(saved_cwd);
}

/* ROOT/rel, in one of a few rotating static buffers. */
static const char *at(const char *rel)
{
	static char b[6][4400];
	static int k;
	k = (k + 1) % 6;
	snprintf(b[k], sizeof b[k], "%s/%s", root, rel);
	return b[k];
}

static void tree_into(const char *dir, const char *rel, char **out, size_t *len, size_t *cap)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		if (strcmp(name, ".") && strcmp(name, "..")) {
			char *path, *sub;
			struct stat st;
			ck_assert(asprintf(&path, "%s/%s", dir, name) > 0);
			ck_assert(asprintf(&sub, "%s%s", rel, name) > 0);
			int ok = lstat(path, &st) == 0;
			const char *kind = !ok ? "?" : S_ISDIR(st.st_mode) ? "/" : S_ISLNK(st.st_mode) ? "@" : "";
			char item[4600];
			int k = snprintf(item, sizeof item, "%s%s(%lld),", sub, kind,
					 ok && S_ISREG(st.st_mode) ? (long long)st.st_size : -1LL);
			while (*len + (size_t)k + 1 > *cap) {
				*cap = *cap ? 2 * *cap : 256;
				*out = realloc(*out, *cap);
			}
			memcpy(*out + *len, item, (size_t)k + 1);
			*len += (size_t)k;
			if (ok && S_ISDIR(st.st_mode)) {
				char *subrel;
				ck_assert(asprintf(&subrel, "%s/", sub) > 0);
				tree_into(path, subrel, out, len, cap);
				free(subrel);
			}
			free(path);
			free(sub);
		}
		free(names[i]);
	}
	free(names);
}

/* Everything below ROOT (without following links), with the sizes of regular files, as
 * "models/(-1),models/w.bin(16),outside/(-1),". */
static char *tree(void)
{
	char *s = calloc(1, 1);
	size_t len = 0, cap = 1;
	tree_into(root, "", &s, &len, &cap);
	return s;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
	close(fd);
}

static buf file_bytes(const char *path)
{
	buf b = {0};
	b.p = (uint8_t *)tu_read(path, &b.n);
	ck_assert_msg(b.p, "cannot read %s", path);
	return b;
}

static void expect_file(const char *path, const void *want, size_t n)
{
	buf got = file_bytes(path);
	buf w = {(uint8_t *)want, n};
	expect_same_bytes(&got, &w, path);
	free(got.p);
}

static void expect_no_file(const char *path)
{
	struct stat st;
	ck_assert_msg(lstat(path, &st) != 0 && errno == ENOENT, "%s exists", path);
}

static void expect_tree(const char *before, const char *what)
{
	char *after = tree();
	ck_assert_msg(strcmp(before, after) == 0, "%s: the scratch tree changed:\n  before %s\n  after  %s", what,
		      before, after);
	free(after);
}

/* ---- calls ------------------------------------------------------------------------------- */

static void externalize_ok(Onnx__ModelProto *m, const char *model_path, const char *location, size_t threshold)
{
	OnnxError e;
	OnnxStatus st = OnnxModel_ExternalizeData(m, model_path, location, threshold, &e);
	ck_assert_msg(st == ONNXTXT_OK, "externalize to %s (model %s): status %d: %s", location,
		      model_path ? model_path : "NULL", st, e.message);
	ck_assert_int_eq(e.code, ONNXTXT_OK);
}

static void embed_ok(Onnx__ModelProto *m, const char *model_path)
{
	OnnxError e;
	OnnxStatus st = OnnxModel_EmbedExternalData(m, model_path, &e);
	ck_assert_msg(st == ONNXTXT_OK, "embed (model %s): status %d: %s", model_path ? model_path : "NULL", st,
		      e.message);
	ck_assert_int_eq(e.code, ONNXTXT_OK);
}

/* ======================================================================================== */
/* 1. Round trips                                                                           */
/* ======================================================================================== */

/* raw_data in initializers, attributes, an If branch and a function: externalize, embed,
 * and the binary is the same, byte for byte. */
START_TEST(round_trip_raw_data)
{
	const char *texts[] = {MAIN_TEXT, TYPES_TEXT};
	for (size_t k = 0; k < 2; k++) {
		buf want = raw_binary(texts[k]);
		Onnx__ModelProto *m = read_model(&want);
		externalize_ok(m, at("models/model.onnx"), "w.bin", 1);
		tensor_list l = all_tensors(m);
		size_t moved = 0, strings = 0;
		for (size_t i = 0; i < l.n; i++) {
			moved += is_external(l.t[i]);
			strings += l.t[i]->data_type == DT(STRING);
		}
		ck_assert_msg(moved == l.n - strings && moved >= 11, "model %zu: %zu of %zu tensors moved", k, moved, l.n);
		free(l.t);
		embed_ok(m, at("models/model.onnx"));
		expect_model_bytes(m, &want, k ? "TYPES_TEXT" : "MAIN_TEXT");
		OnnxProto_Free(m);
		free(want.p);
	}
}
END_TEST

/* Typed data (float_data, int32_data, ...; what the parser produces) comes back as raw_data,
 * as documented: the binary equals the original with each tensor's values as raw_data. */
START_TEST(round_trip_typed_data)
{
	const char *texts[] = {MAIN_TEXT, TYPES_TEXT};
	for (size_t k = 0; k < 2; k++) {
		buf want = raw_binary(texts[k]);
		Onnx__ModelProto *m = tu_model(texts[k]);
		buf orig = pack(m);
		ck_assert_msg(orig.n != want.n || memcmp(orig.p, want.p, orig.n) != 0, "the parser produced raw_data");
		externalize_ok(m, at("models/model.onnx"), "w.bin", 1);
		embed_ok(m, at("models/model.onnx"));
		expect_model_bytes(m, &want, k ? "TYPES_TEXT" : "MAIN_TEXT");
		OnnxProto_Free(m);
		free(orig.p);
		free(want.p);
	}
}
END_TEST

/* Per element type: a model with just that tensor round-trips, and the file holds its
 * values. */
START_TEST(round_trip_each_element_type)
{
	static const struct {
		const char *decl;
		uint8_t bytes[16];
		size_t n;
	} cases[] = {
		{"float[2] t = {1, -2}", {0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0}, 8},
		{"double[1] t = {1}", {0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, 8},
		{"int64[2] t = {-1, 258}", {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 1, 0, 0, 0, 0, 0, 0}, 16},
		{"int32[2] t = {-2, 65536}", {0xfe, 0xff, 0xff, 0xff, 0, 0, 1, 0}, 8},
		{"int16[2] t = {-2, 258}", {0xfe, 0xff, 2, 1}, 4},
		{"uint16[1] t = {65535}", {0xff, 0xff}, 2},
		{"int8[3] t = {-1, 127, -128}", {0xff, 0x7f, 0x80}, 3},
		{"uint8[2] t = {255, 1}", {0xff, 1}, 2},
		{"bool[3] t = {1, 0, 1}", {1, 0, 1}, 3},
		{"float16[2] t = {15360, 48128}", {0, 0x3c, 0, 0xbc}, 4},
		{"bfloat16[1] t = {16256}", {0x80, 0x3f}, 2},
		{"float8e4m3fn[2] t = {56, 127}", {56, 127}, 2},
		{"int4[4] t = {1, 2, -3, 7}", {0x21, 0x7d}, 2},
		{"uint4[3] t = {15, 0, 9}", {0x0f, 0x09}, 2},
		{"uint32[2] t = {4294967295, 2}", {0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0}, 8},
		{"uint64[1] t = {18446744073709551614}", {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 8},
		{"complex64[1] t = {1, 2}", {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40}, 8},
		{"complex128[1] t = {2, 0}", {0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0}, 16},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *text;
		ck_assert(asprintf(&text, "<ir_version: 10, opset_import: [\"\" : 21]>\ng () => () <%s> {}\n",
				   cases[i].decl) > 0);
		for (int raw = 0; raw < 2; raw++) {
			buf want = raw_binary(text);
			Onnx__ModelProto *m = raw ? read_model(&want) : tu_model(text);
			externalize_ok(m, at("models/model.onnx"), "t.bin", 1);
			Onnx__TensorProto *t = tensor_named(m, "t");
			ck_assert_msg(is_external(t), "%s: not moved", cases[i].decl);
			expect_file(at("models/t.bin"), cases[i].bytes, cases[i].n);
			embed_ok(m, at("models/model.onnx"));
			expect_model_bytes(m, &want, cases[i].decl);
			OnnxProto_Free(m);
			free(want.p);
			unlink(at("models/t.bin"));
		}
		free(text);
	}
}
END_TEST

/* ======================================================================================== */
/* 2. The data file                                                                         */
/* ======================================================================================== */

typedef struct range {
	uint64_t offset, length;
	const Onnx__TensorProto *t;
} range;

static int by_offset(const void *a, const void *b)
{
	const range *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static uint64_t decimal(const char *s, const char *what)
{
	ck_assert_msg(s && *s, "%s: missing", what);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	ck_assert_msg(*s >= '0' && *s <= '9' && !*end && !errno, "%s: \"%s\" is not a decimal number", what, s);
	return v;
}

/* After externalizing with location loc: every moved tensor carries exactly the entries
 * location/offset/length, has no data left, and the file holds its bytes (want[i] for
 * tensor i of the walk) at the recorded offset; the ranges tile the file without gaps. */
static void check_data_file(Onnx__ModelProto *m, const buf *want, const char *loc, const char *file,
			    size_t threshold)
{
	tensor_list l = all_tensors(m);
	buf data = file_bytes(file);
	range *r = calloc(l.n + 1, sizeof *r);
	size_t nr = 0;
	for (size_t i = 0; i < l.n; i++) {
		Onnx__TensorProto *t = l.t[i];
		const char *name = t->name ? t->name : "?";
		int should_move = t->data_type != DT(STRING) && want[i].n > 0 && want[i].n >= threshold;
		ck_assert_msg(is_external(t) == should_move, "%s (%zu bytes): external %d at threshold %zu", name,
			      want[i].n, is_external(t), threshold);
		if (!should_move) {
			ck_assert_msg(t->n_external_data == 0, "%s: kept its data but has external_data", name);
			continue;
		}
		/* exactly the three keys of the ONNX layout, each once (in any order) */
		ck_assert_msg(t->n_external_data == 3, "%s: %zu external_data entries", name, t->n_external_data);
		unsigned seen = 0;
		for (size_t k = 0; k < 3; k++) {
			const char *key = t->external_data[k]->key;
			unsigned bit = !strcmp(key, "location") ? 1 : !strcmp(key, "offset") ? 2 : !strcmp(key, "length") ? 4 : 8;
			ck_assert_msg(!(seen & bit) && bit != 8, "%s: unexpected or repeated key \"%s\"", name, key);
			seen |= bit;
		}
		ck_assert_str_eq(entry_value(t, "location"), loc);
		ck_assert_msg(!t->has_raw_data && !has_typed_data(t), "%s: still holds data", name);
		range x = {decimal(entry_value(t, "offset"), name), decimal(entry_value(t, "length"), name), t};
		ck_assert_msg(x.length == want[i].n, "%s: length %" PRIu64 ", want %zu", name, x.length, want[i].n);
		ck_assert_msg(x.offset <= data.n && x.length <= data.n - x.offset,
			      "%s: bytes %" PRIu64 "+%" PRIu64 " beyond the %zu-byte file", name, x.offset, x.length,
			      data.n);
		ck_assert_msg(memcmp(data.p + x.offset, want[i].p, want[i].n) == 0, "%s: wrong bytes at offset %" PRIu64,
			      name, x.offset);
		r[nr++] = x;
	}
	/* no alignment is documented: the tensors follow one another */
	qsort(r, nr, sizeof *r, by_offset);
	uint64_t end = 0;
	for (size_t i = 0; i < nr; i++) {
		ck_assert_msg(r[i].offset == end, "%s at offset %" PRIu64 ", want %" PRIu64 " (gap or overlap)",
			      r[i].t->name, r[i].offset, end);
		end += r[i].length;
	}
	ck_assert_msg(end == data.n, "the file has %zu bytes, the tensors %" PRIu64, data.n, end);
	free(r);
	free(data.p);
	free(l.t);
}

static buf *expected_per_tensor(Onnx__ModelProto *m, size_t *n)
{
	tensor_list l = all_tensors(m);
	buf *want = calloc(l.n + 1, sizeof *want);
	for (size_t i = 0; i < l.n; i++)
		want[i] = raw_bytes(l.t[i]);
	*n = l.n;
	free(l.t);
	return want;
}

static void free_expected(buf *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(want[i].p);
	free(want);
}

START_TEST(data_file_holds_the_little_endian_values)
{
	static const size_t thresholds[] = {1, 5, 6, 16, 17, 24};
	for (size_t k = 0; k < sizeof thresholds / sizeof *thresholds; k++)
		for (int raw = 0; raw < 2; raw++) {
			Onnx__ModelProto *m = raw ? raw_model(MAIN_TEXT) : tu_model(MAIN_TEXT);
			size_t n;
			buf *want = expected_per_tensor(m, &n);
			ck_assert_uint_eq(n, N_MAIN_TENSORS + 1 /* s */);
			externalize_ok(m, at("models/model.onnx"), "data.bin", thresholds[k]);
			check_data_file(m, want, "data.bin", at("models/data.bin"), thresholds[k]);
			free_expected(want, n);
			OnnxProto_Free(m);
			unlink(at("models/data.bin"));
		}
}
END_TEST

/* The values written out by hand, for a model with two tensors. */
START_TEST(data_file_bytes_by_hand)
{
	Onnx__ModelProto *m = tu_model("<ir_version: 10, opset_import: [\"\" : 21]>\n"
				       "g () => () <float[4] a = {1, 2, 3, 4}, int64[1] b = {-2}> {}\n");
	externalize_ok(m, at("models/model.onnx"), "ab.bin", 1);
	uint8_t want[24];
	memcpy(want, FLOATS_1234, 16);
	memcpy(want + 16, (uint8_t[]){0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 8);
	buf got = file_bytes(at("models/ab.bin"));
	ck_assert_uint_eq(got.n, 24);
	/* whichever order the tensors were written in, the entries say where each is */
	Onnx__TensorProto *a = tensor_named(m, "a"), *b = tensor_named(m, "b");
	uint64_t oa = decimal(entry_value(a, "offset"), "a"), ob = decimal(entry_value(b, "offset"), "b");
	ck_assert_str_eq(entry_value(a, "length"), "16");
	ck_assert_str_eq(entry_value(b, "length"), "8");
	ck_assert(oa + 16 <= got.n && ob + 8 <= got.n);
	ck_assert_msg(memcmp(got.p + oa, want, 16) == 0, "a's bytes");
	ck_assert_msg(memcmp(got.p + ob, want + 16, 8) == 0, "b's bytes");
	free(got.p);
	OnnxProto_Free(m);
}
END_TEST

/* At threshold N a tensor of exactly N bytes moves; at N+1 it stays, with its data. */
START_TEST(threshold_boundary)
{
	for (size_t i = 0; i < N_MAIN_TENSORS; i++)
		for (int raw = 0; raw < 2; raw++) {
			const char *name = MAIN_TENSORS[i].name;
			size_t n = MAIN_TENSORS[i].bytes;
			Onnx__ModelProto *m = raw ? raw_model(MAIN_TEXT) : tu_model(MAIN_TEXT);
			buf before = pack(m);
			externalize_ok(m, at("models/model.onnx"), "d.bin", n + 1);
			Onnx__TensorProto *t = tensor_named(m, name);
			ck_assert_msg(!is_external(t) && t->n_external_data == 0, "%s (%zu bytes) moved at threshold %zu",
				      name, n, n + 1);
			if (n == 24) { /* the largest: nothing moved, no file, model unchanged */
				expect_no_file(at("models/d.bin"));
				expect_model_bytes(m, &before, "nothing moved");
			}
			externalize_ok(m, at("models/model.onnx"), "e.bin", n);
			ck_assert_msg(is_external(t), "%s (%zu bytes) did not move at threshold %zu", name, n, n);
			ck_assert_str_eq(entry_value(t, "location"), "e.bin");
			char len[32];
			snprintf(len, sizeof len, "%zu", n);
			ck_assert_str_eq(entry_value(t, "length"), len);
			free(before.p);
			OnnxProto_Free(m);
			unlink(at("models/d.bin"));
			unlink(at("models/e.bin"));
		}
}
END_TEST

/* Tensors under the threshold keep their data exactly as it was (typed fields stay typed). */
START_TEST(small_tensors_keep_their_data)
{
	Onnx__ModelProto *m = tu_model(MAIN_TEXT), *ref = tu_model(MAIN_TEXT);
	externalize_ok(m, at("models/model.onnx"), "big.bin", 16);
	const char *small[] = {"h", "small", "t8", "t32", "s"};
	for (size_t i = 0; i < sizeof small / sizeof *small; i++) {
		buf got, want;
		got.p = tu_pack(tensor_named(m, small[i]), &got.n);
		want.p = tu_pack(tensor_named(ref, small[i]), &want.n);
		expect_same_bytes(&got, &want, small[i]);
		free(got.p);
		free(want.p);
	}
	OnnxProto_Free(m);
	OnnxProto_Free(ref);
}
END_TEST

/* String tensors never move, at any threshold; a model with only strings writes no file. */
START_TEST(string_tensors_never_move)
{
	static const size_t thresholds[] = {0, 1, 2};
	for (size_t k = 0; k < 3; k++) {
		Onnx__ModelProto *m = tu_model(MAIN_TEXT);
		buf s_before;
		s_before.p = tu_pack(tensor_named(m, "s"), &s_before.n);
		externalize_ok(m, at("models/model.onnx"), "s.bin", thresholds[k]);
		Onnx__TensorProto *s = tensor_named(m, "s");
		ck_assert(!is_external(s) && s->n_external_data == 0 && s->n_string_data == 2);
		buf s_after;
		s_after.p = tu_pack(s, &s_after.n);
		expect_same_bytes(&s_after, &s_before, "string tensor");
		ck_assert(is_external(tensor_named(m, "w")));
		free(s_before.p);
		free(s_after.p);
		OnnxProto_Free(m);
		unlink(at("models/s.bin"));
	}
	Onnx__ModelProto *m = tu_model("<ir_version: 10, opset_import: [\"\" : 21]>\n"
				       "g () => () <string[3] s = {\"a long string, longer than anything\", \"b\", \"\"}>\n"
				       "{ c = Constant <value = string[1] {\"xyz\"}> () }\n");
	buf before = pack(m);
	char *t0 = tree();
	externalize_ok(m, at("models/model.onnx"), "s.bin", 1);
	expect_tree(t0, "a model with only strings");
	expect_model_bytes(m, &before, "a model with only strings");
	free(t0);
	free(before.p);
	OnnxProto_Free(m);
}
END_TEST

/* Nothing to move: no file is created, an existing file at the location is left alone, and
 * the model is unchanged. */
START_TEST(nothing_to_move_writes_no_file)
{
	Onnx__ModelProto *m = tu_model(MAIN_TEXT);
	buf before = pack(m);
	char *t0 = tree();
	externalize_ok(m, at("models/model.onnx"), "none.bin", 25);
	expect_tree(t0, "nothing to move");
	expect_model_bytes(m, &before, "nothing to move");
	write_bytes(at("models/none.bin"), "keep me", 7);
	externalize_ok(m, at("models/model.onnx"), "none.bin", SIZE_MAX);
	expect_file(at("models/none.bin"), "keep me", 7);
	expect_model_bytes(m, &before, "nothing to move");
	free(t0);
	free(before.p);
	OnnxProto_Free(m);
}
END_TEST

/* Threshold 0 moves every tensor with data, like threshold 1. */
START_TEST(threshold_zero_moves_everything)
{
	Onnx__ModelProto *m = tu_model(MAIN_TEXT);
	size_t n;
	buf *want = expected_per_tensor(m, &n);
	externalize_ok(m, at("models/model.onnx"), "all.bin", 0);
	check_data_file(m, want, "all.bin", at("models/all.bin"), 1);
	free_expected(want, n);
	OnnxProto_Free(m);
}
END_TEST

/* Tensors whose data is already external keep their entries; only the others move. */
START_TEST(already_external_tensors_stay_as_they_are)
{
	Onnx__ModelProto *m = tu_model("<ir_version: 10, opset_import: [\"\" : 21]>\n"
				       "g () => () <float[4] e = [\"location\": \"other.bin\", \"offset\": \"4\"],\n"
				       "  float[4] w = {1, 2, 3, 4}> {}\n");
	externalize_ok(m, at("models/model.onnx"), "w.bin", 1);
	Onnx__TensorProto *e = tensor_named(m, "e"), *w = tensor_named(m, "w");
	ck_assert(is_external(e) && e->n_external_data == 2);
	ck_assert_str_eq(entry_value(e, "location"), "other.bin");
	ck_assert_str_eq(entry_value(e, "offset"), "4");
	ck_assert(is_external(w));
	ck_assert_str_eq(entry_value(w, "offset"), "0");
	expect_file(at("models/w.bin"), FLOATS_1234, 16);
	expect_no_file(at("models/other.bin"));
	OnnxProto_Free(m);
}
END_TEST

/* An existing data file is replaced whole (not overwritten in place: no old bytes remain
 * past the new end), and no temporary file is left beside it. */
START_TEST(existing_data_file_is_replaced)
{
	char junk[100];
	memset(junk, 'j', sizeof junk);
	write_bytes(at("models/w.bin"), junk, sizeof junk);
	Onnx__ModelProto *m = tu_model(W_TEXT);
	externalize_ok(m, at("models/model.onnx"), "w.bin", 1);
	expect_file(at("models/w.bin"), FLOATS_1234, 16);
	char *t = tree();
	ck_assert_str_eq(t, "models/(-1),models/w.bin(16),outside/(-1),");
	free(t);
	OnnxProto_Free(m);
}
END_TEST

/* ======================================================================================== */
/* 3. Printing                                                                              */
/* ======================================================================================== */

START_TEST(printed_external_model_parses_and_embeds)
{
	for (int raw = 0; raw < 2; raw++) {
		buf want = raw_binary(MAIN_TEXT);
		Onnx__ModelProto *m = raw ? read_model(&want) : tu_model(MAIN_TEXT);
		externalize_ok(m, at("models/model.onnx"), "weights.bin", 16);
		buf ext = pack(m);
		char *text = NULL;
		size_t len;
		OnnxError e;
		ck_assert_msg(OnnxPrinter_Print(m, 0, &text, &len, &e) == ONNXTXT_OK, "%s", e.message);
		ck_assert_msg(strstr(text, "\"location\": \"weights.bin\""), "no location entry in:\n%s", text);
		ck_assert_msg(strstr(text, "\"offset\": \"0\""), "no offset 0 in:\n%s", text);
		ck_assert_msg(strstr(text, "\"length\": \"24\""), "no length of i64 in:\n%s", text);
		/* i64's value 9000000000 is in the file, not in the text; h's 48128 stays */
		ck_assert_msg(!strstr(text, "9000000000"), "moved data still printed:\n%s", text);
		ck_assert_msg(strstr(text, "48128"), "small tensor's data not printed:\n%s", text);
		Onnx__ModelProto *back = NULL;
		ck_assert_msg(OnnxParser_Parse(text, len, &back, &e) == ONNXTXT_OK, "%u:%u: %s\n%s", e.line, e.column,
			      e.message, text);
		expect_model_bytes(back, &ext, "printed external model, parsed");
		embed_ok(back, at("models/model.onnx"));
		if (raw) {
			expect_model_bytes(back, &want, "printed, parsed and embedded");
		} else {
			/* tensors under the threshold were parsed as typed data again: compare with m embedded */
			embed_ok(m, at("models/model.onnx"));
			buf m_bytes = pack(m);
			expect_model_bytes(back, &m_bytes, "printed, parsed and embedded");
			free(m_bytes.p);
			/* and every tensor holds the original values */
			Onnx__ModelProto *orig = tu_model(MAIN_TEXT);
			for (size_t i = 0; i < N_MAIN_TENSORS; i++) {
				buf a = raw_bytes(tensor_named(back, MAIN_TENSORS[i].name));
				buf b = raw_bytes(tensor_named(orig, MAIN_TENSORS[i].name));
				expect_same_bytes(&a, &b, MAIN_TENSORS[i].name);
				free(a.p);
				free(b.p);
			}
			OnnxProto_Free(orig);
		}
		OnnxProto_Free(back);
		free(text);
		free(ext.p);
		free(want.p);
		OnnxProto_Free(m);
		unlink(at("models/weights.bin"));
	}
}
END_TEST

/* ======================================================================================== */
/* 4. Locations                                                                             */
/* ======================================================================================== */

/* Externalizing to loc fails with ONNXTXT_ERR_VALUE, a message naming loc, the model as it
 * was and nothing created anywhere. */
static void expect_externalize_refused(const char *loc)
{
	Onnx__ModelProto *m = tu_model(MAIN_TEXT);
	buf before = pack(m);
	char *t0 = tree();
	OnnxError e;
	OnnxStatus st = OnnxModel_ExternalizeData(m, at("models/model.onnx"), loc, 1, &e);
	ck_assert_msg(st == ONNXTXT_ERR_VALUE && e.code == st, "location \"%s\": status %d (%s), want ERR_VALUE", loc,
		      st, e.message);
	char quoted[4400];
	snprintf(quoted, sizeof quoted, "\"%s\"", loc);
	ck_assert_msg(strstr(e.message, quoted), "location \"%s\": the message does not name it: %s", loc, e.message);
	expect_tree(t0, loc);
	expect_model_bytes(m, &before, loc);
	/* the same without an OnnxError */
	ck_assert_int_eq(OnnxModel_ExternalizeData(m, at("models/model.onnx"), loc, 1, NULL), ONNXTXT_ERR_VALUE);
	expect_tree(t0, loc);
	expect_model_bytes(m, &before, loc);
	free(t0);
	free(before.p);
	OnnxProto_Free(m);
}

/* Embedding from loc fails the same way, even where a file with the right bytes waits. */
static void expect_embed_refused(const char *loc)
{
	char pairs[4600];
	snprintf(pairs, sizeof pairs, "\"location\": \"%s\", \"offset\": \"0\", \"length\": \"16\"", loc);
	Onnx__ModelProto *m = ext_model(pairs);
	buf before = pack(m);
	char *t0 = tree();
	OnnxError e;
	OnnxStatus st = OnnxModel_EmbedExternalData(m, at("models/model.onnx"), &e);
	ck_assert_msg(st == ONNXTXT_ERR_VALUE && e.code == st, "embed from \"%s\": status %d (%s), want ERR_VALUE",
		      loc, st, e.message);
	char quoted[4400];
	snprintf(quoted, sizeof quoted, "\"%s\"", loc);
	ck_assert_msg(strstr(e.message, quoted), "embed from \"%s\": the message does not name it: %s", loc,
		      e.message);
	expect_tree(t0, loc);
	expect_model_bytes(m, &before, loc);
	free(t0);
	free(before.p);
	OnnxProto_Free(m);
}

static const char *const BAD_LOCATIONS[] = {
	"", "..", "../x", "../outside/x", "a/../../x", "a/./../../x", "a/..", "a//x", "//x", "..x/../../x", "./../x",
};

START_TEST(refuses_lexically_bad_locations)
{
	/* files with the right bytes wherever an escaping location would lead */
	write_bytes(at("x"), FLOATS_1234, 16);
	write_bytes(at("outside/x"), FLOATS_1234, 16);
	ck_assert_int_eq(mkdir(at("models/a"), 0755), 0);
	ck_assert_int_eq(mkdir(at("models/x"), 0755), 0);
	for (size_t i = 0; i < sizeof BAD_LOCATIONS / sizeof *BAD_LOCATIONS; i++) {
		expect_externalize_refused(BAD_LOCATIONS[i]);
		expect_embed_refused(BAD_LOCATIONS[i]);
	}
}
END_TEST

/* A trailing slash names a directory, never a data file: whatever exists there, the call
 * fails and creates nothing. */
static const char *const TRAILING_SLASHES[] = {"x/", "dir/", "file/", "none/", "dir/x/"};

static void make_trailing_slash_targets(void)
{
	ck_assert_int_eq(mkdir(at("models/dir"), 0755), 0);
	write_bytes(at("models/file"), FLOATS_1234, 16);
}

START_TEST(trailing_slash_fails_and_creates_nothing)
{
	make_trailing_slash_targets();
	for (size_t i = 0; i < sizeof TRAILING_SLASHES / sizeof *TRAILING_SLASHES; i++) {
		const char *loc = TRAILING_SLASHES[i];
		Onnx__ModelProto *m = tu_model(MAIN_TEXT);
		buf before = pack(m);
		char *t0 = tree();
		OnnxError e;
		OnnxStatus st = OnnxModel_ExternalizeData(m, at("models/model.onnx"), loc, 1, &e);
		ck_assert_msg(st != ONNXTXT_OK && e.code == st && e.message[0], "externalize to \"%s\": status %d", loc,
			      st);
		ck_assert_msg(strstr(e.message, loc), "externalize to \"%s\": message does not name it: %s", loc,
			      e.message);
		expect_tree(t0, loc);
		expect_model_bytes(m, &before, loc);
		free(before.p);
		OnnxProto_Free(m);
		char pairs[200];
		snprintf(pairs, sizeof pairs, "\"location\": \"%s\", \"offset\": \"0\", \"length\": \"16\"", loc);
		m = ext_model(pairs);
		before = pack(m);
		st = OnnxModel_EmbedExternalData(m, at("models/model.onnx"), &e);
		ck_assert_msg(st != ONNXTXT_OK && e.code == st && e.message[0], "embed from \"%s\": status %d", loc, st);
		expect_tree(t0, loc);
		expect_model_bytes(m, &before, loc);
		free(before.p);
		free(t0);
		OnnxProto_Free(m);
	}
}
END_TEST

/* A final empty component ("x/") breaks the location rules, as "a//b" does: refused as a
 * location, whatever x is, not left to fail later as an I/O error. */
START_TEST(trailing_slash_is_refused_as_a_location)
{
	make_trailing_slash_targets();
	for (size_t i = 0; i < sizeof TRAILING_SLASHES / sizeof *TRAILING_SLASHES; i++) {
		expect_externalize_refused(TRAILING_SLASHES[i]);
		expect_embed_refused(TRAILING_SLASHES[i]);
	}
}
END_TEST

START_TEST(refuses_absolute_locations)
{
	write_bytes(at("outside/abs.bin"), FLOATS_1234, 16);
	write_bytes(at("models/abs.bin"), FLOATS_1234, 16);
	expect_externalize_refused(at("outside/new.bin"));
	expect_externalize_refused(at("outside/abs.bin"));
	expect_externalize_refused(at("models/inside.bin")); /* even one inside the directory */
	expect_externalize_refused("/");
	expect_embed_refused(at("outside/abs.bin"));
	expect_embed_refused(at("models/abs.bin"));
}
END_TEST

/* A directory link inside the model's directory that points outside. */
START_TEST(refuses_a_linked_directory_leading_outside)
{
	write_bytes(at("outside/existing.bin"), FLOATS_1234, 16);
	ck_assert_int_eq(symlink(at("outside"), at("models/out")), 0);
	ck_assert_int_eq(symlink("../outside", at("models/rel")), 0);
	/* a sibling whose name starts with the model directory's is still outside */
	ck_assert_int_eq(mkdir(at("models-sibling"), 0755), 0);
	write_bytes(at("models-sibling/existing.bin"), FLOATS_1234, 16);
	ck_assert_int_eq(symlink("../models-sibling", at("models/sibling")), 0);
	expect_externalize_refused("sibling/new.bin");
	expect_externalize_refused("sibling/existing.bin");
	expect_embed_refused("sibling/existing.bin");
	expect_externalize_refused("out/new.bin");
	expect_externalize_refused("out/existing.bin");
	expect_externalize_refused("rel/new.bin");
	expect_embed_refused("out/existing.bin");
	expect_embed_refused("rel/existing.bin");
	expect_file(at("outside/existing.bin"), FLOATS_1234, 16);
}
END_TEST

/* ONNXTXT_EXTERNAL_ANY_PATH: absolute locations, ".." and links leading outside are followed
 * (by embedding only), and the data read is the file's; unknown flags are refused. */
START_TEST(any_path_flag_allows_locations_outside)
{
	write_bytes(at("outside/w.bin"), FLOATS_1234, 16);
	ck_assert_int_eq(symlink(at("outside"), at("models/out")), 0);
	char abs[4400];
	snprintf(abs, sizeof abs, "%s", at("outside/w.bin"));
	const char *const locs[] = {abs, "../outside/w.bin", "out/w.bin"};
	for (size_t i = 0; i < sizeof locs / sizeof *locs; i++) {
		expect_embed_refused(locs[i]);
		char pairs[4600];
		snprintf(pairs, sizeof pairs, "\"location\": \"%s\", \"offset\": \"0\", \"length\": \"16\"", locs[i]);
		Onnx__ModelProto *m = ext_model(pairs);
		OnnxError e;
		OnnxStatus st = OnnxModel_EmbedExternalDataWith(m, at("models/model.onnx"), ONNXTXT_EXTERNAL_ANY_PATH, &e);
		ck_assert_msg(st == ONNXTXT_OK, "embed from \"%s\" with ONNXTXT_EXTERNAL_ANY_PATH: %s", locs[i], e.message);
		Onnx__TensorProto *t = tensor_named(m, "w");
		ck_assert(t && !is_external(t) && t->raw_data.len == 16 && !memcmp(t->raw_data.data, FLOATS_1234, 16));
		OnnxProto_Free(m);
	}
	Onnx__ModelProto *m = ext_model("\"location\": \"w.bin\"");
	OnnxError e;
	ck_assert_int_eq(OnnxModel_EmbedExternalDataWith(m, at("models/model.onnx"), 0x80, &e), ONNXTXT_ERR_ARG);
	OnnxProto_Free(m);
}
END_TEST

/* A link that leads nowhere (to a file that would be created outside) is refused. */
START_TEST(refuses_a_dangling_link_leading_outside)
{
	ck_assert_int_eq(symlink(at("outside/nowhere.bin"), at("models/dangling.bin")), 0);
	ck_assert_int_eq(symlink("../outside/nowhere2.bin", at("models/dangling2.bin")), 0);
	expect_externalize_refused("dangling.bin");
	expect_externalize_refused("dangling2.bin");
	expect_no_file(at("outside/nowhere.bin"));
	expect_no_file(at("outside/nowhere2.bin"));
}
END_TEST

/* A data file that is a link to a file outside is not read; nor written through. */
START_TEST(refuses_a_data_file_linked_outside)
{
	write_bytes(at("outside/w.bin"), FLOATS_1234, 16);
	ck_assert_int_eq(symlink(at("outside/w.bin"), at("models/w.bin")), 0);
	ck_assert_int_eq(symlink("../outside/w.bin", at("models/w2.bin")), 0);
	expect_embed_refused("w.bin");
	expect_embed_refused("w2.bin");
	expect_externalize_refused("w.bin");
	expect_externalize_refused("w2.bin");
	expect_file(at("outside/w.bin"), FLOATS_1234, 16);
}
END_TEST

/* Links that stay inside the directory are fine: a file link (the link stays, its target is
 * replaced) and a directory link. */
START_TEST(accepts_links_that_stay_inside)
{
	ck_assert_int_eq(mkdir(at("models/sub"), 0755), 0);
	ck_assert_int_eq(symlink("sub", at("models/alias")), 0);
	write_bytes(at("models/real.bin"), "old", 3);
	ck_assert_int_eq(symlink("real.bin", at("models/link.bin")), 0);
	write_bytes(at("models/sub/abs-target.bin"), "old", 3);
	ck_assert_int_eq(symlink(at("models/sub/abs-target.bin"), at("models/abslink.bin")), 0);
	const char *locs[] = {"link.bin", "alias/w.bin", "abslink.bin", "./sub/dot.bin"};
	const char *files[] = {"models/real.bin", "models/sub/w.bin", "models/sub/abs-target.bin", "models/sub/dot.bin"};
	for (size_t i = 0; i < 4; i++) {
		Onnx__ModelProto *m = tu_model(W_TEXT);
		buf orig = raw_binary(W_TEXT);
		externalize_ok(m, at("models/model.onnx"), locs[i], 1);
		expect_file(at(files[i]), FLOATS_1234, 16);
		ck_assert_str_eq(entry_value(tensor_named(m, "w"), "location"), locs[i]);
		embed_ok(m, at("models/model.onnx"));
		expect_model_bytes(m, &orig, locs[i]);
		free(orig.p);
		OnnxProto_Free(m);
	}
	struct stat st;
	ck_assert(lstat(at("models/link.bin"), &st) == 0 && S_ISLNK(st.st_mode));
	ck_assert(lstat(at("models/abslink.bin"), &st) == 0 && S_ISLNK(st.st_mode));
	ck_assert(lstat(at("models/alias"), &st) == 0 && S_ISLNK(st.st_mode));
}
END_TEST

/* The model's directory reached through a link is resolved first: its own files are inside. */
START_TEST(model_directory_behind_a_link)
{
	ck_assert_int_eq(symlink(at("models"), at("outside/models-link")), 0);
	Onnx__ModelProto *m = tu_model(W_TEXT);
	externalize_ok(m, at("outside/models-link/model.onnx"), "w.bin", 1);
	expect_file(at("models/w.bin"), FLOATS_1234, 16);
	embed_ok(m, at("outside/models-link/model.onnx"));
	OnnxProto_Free(m);
}
END_TEST

/* ======================================================================================== */
/* 5. Embedding errors                                                                      */
/* ======================================================================================== */

/* Embedding EXT_TEMPLATE's tensor with these pairs fails with want; the model is unchanged
 * and the message contains needle. Returns the error. */
static OnnxError expect_embed_error(const char *pairs, OnnxStatus want, const char *needle)
{
	Onnx__ModelProto *m = ext_model(pairs);
	buf before = pack(m);
	char *t0 = tree();
	OnnxError e;
	OnnxStatus st = OnnxModel_EmbedExternalData(m, at("models/model.onnx"), &e);
	ck_assert_msg(st == want && e.code == st, "[%s]: status %d (%s), want %d", pairs, st, e.message, want);
	ck_assert_msg(e.message[0], "[%s]: no message", pairs);
	if (needle)
		ck_assert_msg(strstr(e.message, needle), "[%s]: message does not mention %s: %s", pairs, needle,
			      e.message);
	expect_model_bytes(m, &before, pairs);
	expect_tree(t0, pairs);
	ck_assert_int_eq(OnnxModel_EmbedExternalData(m, at("models/model.onnx"), NULL), want);
	free(t0);
	free(before.p);
	OnnxProto_Free(m);
	return e;
}

static void expect_embed_gives(const char *pairs, const uint8_t *want, size_t n)
{
	Onnx__ModelProto *m = ext_model(pairs);
	embed_ok(m, at("models/model.onnx"));
	Onnx__TensorProto *w = tensor_named(m, "w");
	ck_assert_msg(w->has_raw_data && w->raw_data.len == n && memcmp(w->raw_data.data, want, n) == 0,
		      "[%s]: wrong data", pairs);
	ck_assert(!w->has_data_location && w->n_external_data == 0);
	OnnxProto_Free(m);
}

START_TEST(embed_missing_file)
{
	OnnxError e = expect_embed_error("\"location\": \"missing.bin\", \"offset\": \"0\", \"length\": \"16\"",
					 ONNXTXT_ERR_IO, "missing.bin");
	ck_assert_msg(e.sys_errno == ENOENT, "sys_errno %d (%s), want ENOENT", e.sys_errno, strerror(e.sys_errno));
	/* a missing directory on the way too */
	e = expect_embed_error("\"location\": \"nodir/missing.bin\"", ONNXTXT_ERR_IO, "nodir/missing.bin");
	ck_assert_int_eq(e.sys_errno, ENOENT);
}
END_TEST

/* A location naming a FIFO (or a directory, a device) is refused at once: the open is non-
 * blocking, so no writer is waited for; the alarm fails the test instead of hanging. */
START_TEST(embed_refuses_what_is_not_a_regular_file)
{
	ck_assert_int_eq(mkfifo(at("models/fifo.bin"), 0600), 0);
	alarm(10);
	OnnxError e = expect_embed_error("\"location\": \"fifo.bin\", \"offset\": \"0\", \"length\": \"16\"",
					 ONNXTXT_ERR_IO, "fifo.bin is a FIFO, not a regular file");
	ck_assert_str_eq(strstr(e.message, "external data of"), e.message);
	ck_assert_int_eq(mkdir(at("models/dir.bin"), 0700), 0);
	expect_embed_error("\"location\": \"dir.bin\"", ONNXTXT_ERR_IO, "dir.bin is a directory, not a regular file");
	alarm(0);
	ck_assert_int_eq(unlink(at("models/fifo.bin")), 0);
	ck_assert_int_eq(rmdir(at("models/dir.bin")), 0);
}
END_TEST

START_TEST(embed_ranges_are_checked_against_the_file)
{
	uint8_t data[24];
	memcpy(data, FLOATS_1234, 16);
	memset(data + 16, 0xaa, 8);
	write_bytes(at("models/w.bin"), data, 16);
	expect_embed_error("\"location\": \"w.bin\", \"offset\": \"8\", \"length\": \"16\"", ONNXTXT_ERR_VALUE,
			   "beyond the end");
	expect_embed_error("\"location\": \"w.bin\", \"offset\": \"0\", \"length\": \"17\"", ONNXTXT_ERR_VALUE, "w.bin");
	expect_embed_error("\"location\": \"w.bin\", \"offset\": \"17\"", ONNXTXT_ERR_VALUE, "w.bin");
	expect_embed_error("\"location\": \"w.bin\", \"offset\": \"17\", \"length\": \"0\"", ONNXTXT_ERR_VALUE, "w.bin");
	/* offset + length overflowing 64 bits */
	expect_embed_error("\"location\": \"w.bin\", \"offset\": \"16\", \"length\": \"18446744073709551615\"",
			   ONNXTXT_ERR_VALUE, "w.bin");
	expect_embed_error("\"location\": \"w.bin\", \"offset\": \"18446744073709551615\", \"length\": \"2\"",
			   ONNXTXT_ERR_VALUE, "w.bin");
	/* exactly up to the end is fine; offset and length are honoured */
	expect_embed_gives("\"location\": \"w.bin\", \"offset\": \"0\", \"length\": \"16\"", FLOATS_1234, 16);
	write_bytes(at("models/w.bin"), data, 24);
	memmove(data + 8, data, 16);
	memset(data, 0x55, 8);
	write_bytes(at("models/w.bin"), data, 24);
	expect_embed_gives("\"location\": \"w.bin\", \"offset\": \"8\", \"length\": \"16\"", FLOATS_1234, 16);
	/* no length: the rest of the file */
	expect_embed_gives("\"location\": \"w.bin\", \"offset\": \"8\"", FLOATS_1234, 16);
	/* no offset: from 0 */
	write_bytes(at("models/v.bin"), FLOATS_1234, 16);
	expect_embed_gives("\"location\": \"v.bin\", \"length\": \"16\"", FLOATS_1234, 16);
	expect_embed_gives("\"location\": \"v.bin\"", FLOATS_1234, 16);
	/* other keys are ignored; leading zeros are still decimal */
	expect_embed_gives("\"location\": \"w.bin\", \"checksum\": \"abc\", \"offset\": \"008\", \"length\": \"0016\"",
			   FLOATS_1234, 16);
}
END_TEST

START_TEST(embed_malformed_offset_or_length)
{
	static const char *const bad[] = {"abc", "", " 4", "4 ", "+4", "-4", "-0", "0x4", "4e0", "4.0",
					  "18446744073709551616", "99999999999999999999999"};
	write_bytes(at("models/w.bin"), FLOATS_1234, 16);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char pairs[200];
		snprintf(pairs, sizeof pairs, "\"location\": \"w.bin\", \"offset\": \"%s\", \"length\": \"16\"", bad[i]);
		expect_embed_error(pairs, ONNXTXT_ERR_VALUE, "'w'");
		snprintf(pairs, sizeof pairs, "\"location\": \"w.bin\", \"offset\": \"0\", \"length\": \"%s\"", bad[i]);
		expect_embed_error(pairs, ONNXTXT_ERR_VALUE, "'w'");
	}
	/* no location at all */
	expect_embed_error("\"offset\": \"0\", \"length\": \"16\"", ONNXTXT_ERR_VALUE, "'w'");
}
END_TEST

/* A length that does not match the tensor's size (float[4] takes 16 bytes) would give
 * raw_data that contradicts the dims (onnx's numpy_helper: "cannot reshape array of size 2
 * into shape (4,)"): refused. */
START_TEST(embed_length_must_match_the_tensor)
{
	uint8_t data[32] = {0};
	memcpy(data, FLOATS_1234, 16);
	write_bytes(at("models/w.bin"), data, sizeof data);
	expect_embed_error("\"location\": \"w.bin\", \"offset\": \"0\", \"length\": \"8\"", ONNXTXT_ERR_VALUE, "'w'");
	expect_embed_error("\"location\": \"w.bin\", \"offset\": \"0\", \"length\": \"20\"", ONNXTXT_ERR_VALUE, "'w'");
	expect_embed_error("\"location\": \"w.bin\", \"offset\": \"0\", \"length\": \"0\"", ONNXTXT_ERR_VALUE, "'w'");
	/* no length: the rest of the file, 32 bytes from 0, 4 bytes from 28 */
	expect_embed_error("\"location\": \"w.bin\"", ONNXTXT_ERR_VALUE, "'w'");
	expect_embed_error("\"location\": \"w.bin\", \"offset\": \"28\"", ONNXTXT_ERR_VALUE, "'w'");
}
END_TEST

/* A string tensor cannot hold raw_data (onnx.proto: "raw_data ... cannot be used to store
 * strings"): refused. */
START_TEST(embed_into_a_string_tensor_is_refused)
{
	write_bytes(at("models/s.bin"), "abcdef", 6);
	Onnx__ModelProto *m = tu_model("<ir_version: 10, opset_import: [\"\" : 21]>\n"
				       "g () => () <string[2] s = [\"location\": \"s.bin\"]> {}\n");
	buf before = pack(m);
	OnnxError e;
	OnnxStatus st = OnnxModel_EmbedExternalData(m, at("models/model.onnx"), &e);
	ck_assert_msg(st == ONNXTXT_ERR_VALUE, "status %d (%s); the string tensor now has %zu bytes of raw_data", st,
		      e.message, tensor_named(m, "s")->raw_data.len);
	expect_model_bytes(m, &before, "string tensor");
	free(before.p);
	OnnxProto_Free(m);
}
END_TEST

/* ======================================================================================== */
/* 6. NULL arguments                                                                        */
/* ======================================================================================== */

START_TEST(null_arguments)
{
	char *t0 = tree();
	OnnxError e;
	Onnx__ModelProto *m = tu_model(MAIN_TEXT);
	buf before = pack(m);
	ck_assert_int_eq(OnnxModel_ExternalizeData(NULL, at("models/model.onnx"), "w.bin", 1, &e), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(e.code, ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxModel_ExternalizeData(m, at("models/model.onnx"), NULL, 1, &e), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(e.code, ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxModel_ExternalizeData(NULL, NULL, NULL, 1, NULL), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxModel_ExternalizeData(m, NULL, NULL, 1, NULL), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(OnnxModel_EmbedExternalData(NULL, at("models/model.onnx"), &e), ONNXTXT_ERR_ARG);
	ck_assert_int_eq(e.code, ONNXTXT_ERR_ARG);
	ck_assert_str_ne(e.message, "");
	ck_assert_int_eq(OnnxModel_EmbedExternalData(NULL, NULL, NULL), ONNXTXT_ERR_ARG);
	expect_tree(t0, "NULL arguments");
	expect_model_bytes(m, &before, "NULL arguments");
	/* NULL err is fine for calls that succeed */
	ck_assert_int_eq(OnnxModel_ExternalizeData(m, at("models/model.onnx"), "w.bin", 1, NULL), ONNXTXT_OK);
	ck_assert(is_external(tensor_named(m, "w")));
	ck_assert_int_eq(OnnxModel_EmbedExternalData(m, at("models/model.onnx"), NULL), ONNXTXT_OK);
	ck_assert(!is_external(tensor_named(m, "w")));
	/* and a success clears an earlier error */
	memset(&e, 0x5a, sizeof e);
	ck_assert_int_eq(OnnxModel_EmbedExternalData(m, at("models/model.onnx"), &e), ONNXTXT_OK);
	ck_assert_int_eq(e.code, ONNXTXT_OK);
	free(before.p);
	free(t0);
	OnnxProto_Free(m);
}
END_TEST

/* ======================================================================================== */
/* 7. model_path forms                                                                      */
/* ======================================================================================== */

START_TEST(model_path_forms)
{
	ck_assert_int_eq(mkdir(at("models/dir"), 0755), 0);
	static const struct {
		const char *model_path; /* NULL: the current directory; "@" prefix: below ROOT */
		const char *file;
	} forms[] = {
		{"model.onnxtxt", "models/w.bin"},
		{"dir/model.onnxtxt", "models/dir/w.bin"},
		{"./dir/model.onnxtxt", "models/dir/w.bin"},
		{"@models/dir/model.onnxtxt", "models/dir/w.bin"},
		{"@models/model.onnxtxt", "models/w.bin"},
		{NULL, "models/w.bin"},
		{"", "models/w.bin"},
	};
	buf orig = raw_binary(MAIN_TEXT);
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
		char path[4400];
		const char *mp = forms[i].model_path;
		if (mp && mp[0] == '@') {
			snprintf(path, sizeof path, "%s", at(mp + 1));
			mp = path;
		}
		Onnx__ModelProto *m = tu_model(MAIN_TEXT);
		size_t n;
		buf *want = expected_per_tensor(m, &n);
		externalize_ok(m, mp, "w.bin", 1);
		check_data_file(m, want, "w.bin", at(forms[i].file), 1);
		char *t = tree();
		char needle[200];
		snprintf(needle, sizeof needle, ",%s(", forms[i].file);
		ck_assert_msg(strstr(t, needle) && !strstr(t, ".tmp"), "%s: %s", mp ? mp : "NULL", t);
		free(t);
		/* embedding relative to another directory does not find the file */
		OnnxError e;
		const char *other = strstr(forms[i].file, "dir/") ? at("models/model.onnx") : at("models/dir/model.onnx");
		ck_assert_int_eq(OnnxModel_EmbedExternalData(m, other, &e), ONNXTXT_ERR_IO);
		ck_assert_int_eq(e.sys_errno, ENOENT);
		embed_ok(m, mp);
		expect_model_bytes(m, &orig, mp ? mp : "NULL");
		free_expected(want, n);
		OnnxProto_Free(m);
		unlink(at(forms[i].file));
	}
	free(orig.p);
}
END_TEST

/* A model path in a directory that does not exist: an I/O error, nothing created. */
START_TEST(model_path_in_a_missing_directory)
{
	char *t0 = tree();
	Onnx__ModelProto *m = tu_model(MAIN_TEXT);
	buf before = pack(m);
	OnnxError e;
	ck_assert_int_eq(OnnxModel_ExternalizeData(m, "missing/model.onnx", "w.bin", 1, &e), ONNXTXT_ERR_IO);
	ck_assert_int_eq(e.sys_errno, ENOENT);
	ck_assert_msg(strstr(e.message, "missing"), "%s", e.message);
	/* a location in a missing subdirectory */
	ck_assert_int_eq(OnnxModel_ExternalizeData(m, "model.onnx", "nodir/w.bin", 1, &e), ONNXTXT_ERR_IO);
	ck_assert_int_eq(e.sys_errno, ENOENT);
	expect_tree(t0, "missing directory");
	expect_model_bytes(m, &before, "missing directory");
	free(before.p);
	free(t0);
	OnnxProto_Free(m);
}
END_TEST

/* ======================================================================================== */
/* 8. Atomicity                                                                             */
/* ======================================================================================== */

/* Root ignores directory permissions, so as root the write is tried as "nobody". */
static int can_drop_privileges(void)
{
	if (geteuid() != 0)
		return 1;
	int ok = setegid(65534) == 0 && seteuid(65534) == 0;
	if (seteuid(0) != 0 || setegid(0) != 0)
		abort();
	return ok;
}

START_TEST(unwritable_directory_changes_nothing)
{
	ck_assert_int_eq(mkdir(at("models/ro"), 0755), 0);
	write_bytes(at("models/ro/old.bin"), "old data", 8);
	chmod(at("models/ro"), 0555);
	uid_t uid = geteuid();
	gid_t gid = getegid();
	for (int raw = 0; raw < 2; raw++) {
		Onnx__ModelProto *m = raw ? raw_model(MAIN_TEXT) : tu_model(MAIN_TEXT);
		buf before = pack(m);
		char *t0 = tree();
		const char *locs[] = {"new.bin", "old.bin"};
		for (int k = 0; k < 2; k++) {
			if (uid == 0)
				ck_assert(setegid(65534) == 0 && seteuid(65534) == 0);
			OnnxError e;
			OnnxStatus st = OnnxModel_ExternalizeData(m, at("models/ro/model.onnx"), locs[k], 1, &e);
			if (uid == 0)
				ck_assert(seteuid(0) == 0 && setegid(gid) == 0);
			ck_assert_msg(st == ONNXTXT_ERR_IO && e.code == st, "status %d: %s", st, e.message);
			ck_assert_msg(e.sys_errno == EACCES, "sys_errno %d (%s)", e.sys_errno, strerror(e.sys_errno));
			ck_assert_msg(strstr(e.message, locs[k]), "message does not name %s: %s", locs[k], e.message);
			expect_tree(t0, "unwritable directory");
			expect_model_bytes(m, &before, "unwritable directory");
		}
		expect_file(at("models/ro/old.bin"), "old data", 8);
		free(t0);
		free(before.p);
		OnnxProto_Free(m);
	}
}
END_TEST

/* Externalizes under a file size limit of 8 bytes, which makes the write fail like a full
 * disk would (EFBIG). The limit is lifted before anything is checked. */
static OnnxStatus externalize_beyond_file_size_limit(Onnx__ModelProto *m, const char *loc, OnnxError *e)
{
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit old, lim = {8, 8};
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	OnnxStatus st = OnnxModel_ExternalizeData(m, at("models/model.onnx"), loc, 1, e);
	setrlimit(RLIMIT_FSIZE, &old);
	return st;
}

static void failed_write_changes_nothing(int raw)
{
	write_bytes(at("models/old.bin"), "old data", 8);
	Onnx__ModelProto *m = raw ? raw_model(MAIN_TEXT) : tu_model(MAIN_TEXT);
	buf before = pack(m);
	char *t0 = tree();
	const char *locs[] = {"new.bin", "old.bin"};
	for (int k = 0; k < 2; k++) {
		OnnxError e;
		OnnxStatus st = externalize_beyond_file_size_limit(m, locs[k], &e);
		ck_assert_msg(st == ONNXTXT_ERR_IO && e.code == st, "status %d: %s", st, e.message);
		ck_assert_msg(e.sys_errno == EFBIG, "sys_errno %d (%s)", e.sys_errno, strerror(e.sys_errno));
		expect_tree(t0, "failed write");
		expect_file(at("models/old.bin"), "old data", 8);
		expect_model_bytes(m, &before, raw ? "failed write, raw data" : "failed write, typed data");
	}
	free(t0);
	free(before.p);
	OnnxProto_Free(m);
}

START_TEST(failed_write_changes_nothing_raw_data)
{
	failed_write_changes_nothing(1);
}
END_TEST

/* Typed data (float_data, ...) is written through a raw copy: when the write fails, the
 * model is left exactly as it was. */
START_TEST(failed_write_changes_nothing_typed_data)
{
	failed_write_changes_nothing(0);
}
END_TEST

/* Externalizing again into a file that tensors already keep their data in would replace
 * it under them: either the call is refused (and changes nothing) or all data stays
 * reachable. */
START_TEST(externalizing_twice_into_one_file_keeps_all_data)
{
	/* threshold 16 first: the second file is shorter (embedding fails); threshold 17 first
	 * (only i64 moves): the second file is longer, and embedding succeeds with wrong data */
	static const size_t first[] = {16, 17};
	for (size_t k = 0; k < 2; k++) {
		buf want = raw_binary(MAIN_TEXT);
		Onnx__ModelProto *m = tu_model(MAIN_TEXT);
		externalize_ok(m, at("models/model.onnx"), "w.bin", first[k]);
		buf first_file = file_bytes(at("models/w.bin"));
		buf first_model = pack(m);
		OnnxError e;
		OnnxStatus st = OnnxModel_ExternalizeData(m, at("models/model.onnx"), "w.bin", 1, &e);
		if (st != ONNXTXT_OK) {
			expect_file(at("models/w.bin"), first_file.p, first_file.n);
			expect_model_bytes(m, &first_model, "refused second externalization");
		} else {
			st = OnnxModel_EmbedExternalData(m, at("models/model.onnx"), &e);
			ck_assert_msg(st == ONNXTXT_OK, "threshold %zu, then 1, into w.bin: embedding fails: %s", first[k],
				      e.message);
			expect_model_bytes(m, &want, first[k] == 16 ? "threshold 16, then 1; embedded"
								   : "threshold 17, then 1; embedded");
		}
		free(first_file.p);
		free(first_model.p);
		free(want.p);
		OnnxProto_Free(m);
		unlink(at("models/w.bin"));
	}
}
END_TEST

/* ---- registration ----------------------------------------------------------------------- */

static TCase *new_case(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, make_root, remove_root);
	tcase_add_checked_fixture(tc, setup, teardown);
	suite_add_tcase(s, tc);
	return tc;
}

int main(void)
{
	Suite *s = suite_create("external");
	TCase *tc = new_case(s, "round trips");
	tcase_add_test(tc, round_trip_raw_data);
	tcase_add_test(tc, round_trip_typed_data);
	tcase_add_test(tc, round_trip_each_element_type);

	tc = new_case(s, "data file");
	tcase_add_test(tc, data_file_holds_the_little_endian_values);
	tcase_add_test(tc, data_file_bytes_by_hand);
	tcase_add_test(tc, threshold_boundary);
	tcase_add_test(tc, small_tensors_keep_their_data);
	tcase_add_test(tc, string_tensors_never_move);
	tcase_add_test(tc, nothing_to_move_writes_no_file);
	tcase_add_test(tc, threshold_zero_moves_everything);
	tcase_add_test(tc, already_external_tensors_stay_as_they_are);
	tcase_add_test(tc, existing_data_file_is_replaced);
	tcase_add_test(tc, externalizing_twice_into_one_file_keeps_all_data);

	tc = new_case(s, "printing");
	tcase_add_test(tc, printed_external_model_parses_and_embeds);

	tc = new_case(s, "locations");
	tcase_add_test(tc, refuses_lexically_bad_locations);
	tcase_add_test(tc, trailing_slash_fails_and_creates_nothing);
	tcase_add_test(tc, trailing_slash_is_refused_as_a_location);
	tcase_add_test(tc, refuses_absolute_locations);
	tcase_add_test(tc, refuses_a_linked_directory_leading_outside);
	tcase_add_test(tc, refuses_a_dangling_link_leading_outside);
	tcase_add_test(tc, any_path_flag_allows_locations_outside);
	tcase_add_test(tc, refuses_a_data_file_linked_outside);
	tcase_add_test(tc, accepts_links_that_stay_inside);
	tcase_add_test(tc, model_directory_behind_a_link);

	tc = new_case(s, "embedding errors");
	tcase_add_test(tc, embed_missing_file);
	tcase_add_test(tc, embed_refuses_what_is_not_a_regular_file);
	tcase_add_test(tc, embed_ranges_are_checked_against_the_file);
	tcase_add_test(tc, embed_malformed_offset_or_length);
	tcase_add_test(tc, embed_length_must_match_the_tensor);
	tcase_add_test(tc, embed_into_a_string_tensor_is_refused);

	tc = new_case(s, "arguments");
	tcase_add_test(tc, null_arguments);
	tcase_add_test(tc, model_path_forms);
	tcase_add_test(tc, model_path_in_a_missing_directory);

	tc = new_case(s, "atomicity");
	if (can_drop_privileges())
		tcase_add_test(tc, unwritable_directory_changes_nothing);
	else
		printf("# skipping unwritable_directory_changes_nothing: root cannot drop privileges here\n");
	tcase_add_test(tc, failed_write_changes_nothing_raw_data);
	tcase_add_test(tc, failed_write_changes_nothing_typed_data);
	return tu_run(s);
}
