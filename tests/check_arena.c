/* Unit tests for src/arena.c, and for the property the parser's ox_new relies on: the
 * initial value of every ONNX message type is all zero bytes except its descriptor, so
 * zeroed arena memory plus a descriptor pointer is a correctly initialised message. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "testutil.h"

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		if (c[i])
			return false;
	return true;
}

/* ---- allocation ---------------------------------------------------------------------- */

START_TEST(zeroed_aligned_disjoint)
{
	ox_arena *a = ox_arena_new();
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(ox_arena_bytes(a), 0);
	enum { N = 20000 };
	static unsigned char *p[N];
	static size_t sz[N];
	uint64_t r = 88172645463325252ull;
	size_t total = 0;
	for (int i = 0; i < N; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		sz[i] = i % 100 == 0 ? r % 20000 : r % 200; /* mostly small, some larger */
		p[i] = ox_arena_alloc(a, sz[i]);
		REQUIRE(p[i] != NULL, "allocation %d of %zu bytes failed", i, sz[i]);
		REQUIRE(((uintptr_t)p[i] & 7) == 0, "allocation %d is not 8-byte aligned", i);
		REQUIRE(all_zero(p[i], sz[i]), "allocation %d of %zu bytes is not zeroed", i, sz[i]);
		memset(p[i], (unsigned char)(i % 251 + 1), sz[i]);
		total += sz[i];
	}
	for (int i = 0; i < N; i++)
		for (size_t k = 0; k < sz[i]; k++)
			REQUIRE(p[i][k] == (unsigned char)(i % 251 + 1), "allocation %d was overwritten", i);
	ck_assert_uint_ge(ox_arena_bytes(a), total);
	ox_arena_free(a);
}
END_TEST

START_TEST(zero_size)
{
	ox_arena *a = ox_arena_new();
	void *p = ox_arena_alloc(a, 0), *q = ox_arena_alloc(a, 0), *r = ox_arena_alloc(a, 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_ne(p, q);
	ck_assert_ptr_ne(q, r);
	ox_arena_free(a);
	ox_arena_free(NULL);
}
END_TEST

/* Allocations larger than any block: each gets its own, zeroed and fully usable, and
 * small allocations after them still come out zeroed. */
START_TEST(big_allocations)
{
	ox_arena *a = ox_arena_new();
	static const size_t sizes[] = {4095, 4096, 4097, 1 << 20, (2 << 20) - 100, 2 << 20, 3 << 20, (8 << 20) + 1,
				       64u << 20};
	size_t total = 0;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		unsigned char *p = ox_arena_alloc(a, sizes[i]);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p & 7, 0);
		ck_assert_msg(all_zero(p, sizes[i]), "%zu bytes not zeroed", sizes[i]);
		memset(p, 0xff, sizes[i]);
		total += sizes[i];
		unsigned char *s = ox_arena_alloc(a, 24);
		ck_assert_ptr_nonnull(s);
		ck_assert(all_zero(s, 24));
		ck_assert(s + 24 <= p || s >= p + sizes[i]);
		memset(s, 0xee, 24);
	}
	ck_assert_uint_ge(ox_arena_bytes(a), total);
	ox_arena_free(a);
}
END_TEST

/* A reset arena (one streamed node after another) keeps its largest block, zeroed, and
 * grows again from that size: after a node with megabytes of data, a node with a few KiB
 * takes no new block, and after small nodes a 100 KiB one does not get an 8 MiB block
 * (issue 16: every later node over 4 KiB used to get a fresh 8 MiB populated mapping). */
START_TEST(reset_keeps_the_largest_block)
{
	ox_arena *a = ox_arena_new();
	for (int i = 0; i < 40; i++) /* 20 MiB in 512 KiB pieces: blocks up to 8 MiB */
		memset(ox_arena_alloc(a, 512u << 10), 0xff, 512u << 10);
	ox_arena_reset(a);
	size_t kept = ox_arena_bytes(a);
	ck_assert_uint_ge(kept, 8u << 20);
	for (int node = 0; node < 50; node++) {
		unsigned char *p = ox_arena_alloc(a, 5000);
		ck_assert(all_zero(p, 5000));
		memset(p, 0xee, 5000);
		ck_assert_uint_eq(ox_arena_bytes(a), kept); /* no new block */
		ox_arena_reset(a);
	}
	ox_arena_free(a);

	a = ox_arena_new();
	ox_arena_alloc(a, 3000);
	ox_arena_alloc(a, 3000); /* a second block: 8 KiB */
	ox_arena_reset(a);
	size_t small = ox_arena_bytes(a);
	ck_assert_uint_lt(small, 16u << 10);
	unsigned char *p = ox_arena_alloc(a, 100u << 10);
	ck_assert(all_zero(p, 100u << 10));
	ck_assert_uint_lt(ox_arena_bytes(a) - small, 256u << 10); /* its own size, not 8 MiB */
	ox_arena_reset(a);
	ck_assert_uint_lt(ox_arena_bytes(a), 256u << 10);
	ox_arena_free(a);
}
END_TEST

/* Sizes that cannot be allocated give NULL (never a short block), and the arena stays
 * usable. */
START_TEST(impossible_sizes)
{
	ox_arena *a = ox_arena_new();
	ck_assert_ptr_null(ox_arena_alloc(a, SIZE_MAX / 2 + 1));
	/* rounding these up to the alignment would wrap to 0 */
	ck_assert_ptr_null(ox_arena_alloc(a, SIZE_MAX));
	ck_assert_ptr_null(ox_arena_alloc(a, SIZE_MAX - 3));
	ck_assert_ptr_null(ox_arena_alloc(a, (size_t)1 << 50)); /* a petabyte */
	void *p = ox_arena_alloc(a, 100);
	ck_assert_ptr_nonnull(p);
	ck_assert(all_zero(p, 100));
	ox_arena_free(a);
}
END_TEST

START_TEST(strndup_memdup)
{
	ox_arena *a = ox_arena_new();
	/* sources in exactly-sized buffers: nothing past n may be read */
	char *src = malloc(5);
	memcpy(src, "ab\0cd", 5);
	char *s = ox_arena_strndup(a, src, 5);
	ck_assert_ptr_nonnull(s);
	ck_assert_mem_eq(s, "ab\0cd", 5); /* an embedded NUL is copied */
	ck_assert_int_eq(s[5], '\0');
	char *t = ox_arena_strndup(a, src, 2);
	ck_assert_str_eq(t, "ab");
	char *e = ox_arena_strndup(a, src, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e, "");
	ck_assert_ptr_ne(s, t);
	unsigned char *m = ox_arena_memdup(a, src, 5);
	ck_assert_ptr_nonnull(m);
	ck_assert_mem_eq(m, "ab\0cd", 5);
	ck_assert_ptr_ne(m, (unsigned char *)src);
	free(src);
	/* the copies are independent of the source and of each other */
	s[0] = 'X';
	ck_assert_int_eq(t[0], 'a');
	ck_assert_int_eq(m[0], 'a');
	/* large copies */
	size_t big = 5u << 20;
	char *b = malloc(big);
	for (size_t i = 0; i < big; i++)
		b[i] = (char)(i * 7);
	char *c = ox_arena_memdup(a, b, big);
	ck_assert_ptr_nonnull(c);
	ck_assert(memcmp(b, c, big) == 0);
	char *d = ox_arena_strndup(a, b, big);
	ck_assert(memcmp(b, d, big) == 0 && d[big] == '\0');
	free(b);
	ox_arena_free(a);
}
END_TEST

/* ---- roots ------------------------------------------------------------------------------ */

START_TEST(roots)
{
	ox_arena *a = ox_arena_new();
	ox_arena *b = ox_arena_new();
	void *r1 = ox_arena_root(a, 40);
	ck_assert_ptr_nonnull(r1);
	ck_assert(all_zero(r1, 40));
	ck_assert_uint_eq((uintptr_t)r1 & 7, 0);
	ck_assert_ptr_eq(ox_root_arena(r1), a);
	for (int i = 0; i < 1000; i++)
		ox_arena_alloc(a, 1000); /* later blocks */
	void *r2 = ox_arena_root(a, 0);
	void *r3 = ox_arena_root(a, 10u << 20); /* in a block of its own */
	void *r4 = ox_arena_root(b, 8);
	ck_assert_ptr_nonnull(r2);
	ck_assert_ptr_nonnull(r3);
	ck_assert(all_zero(r3, 10u << 20));
	ck_assert_ptr_eq(ox_root_arena(r2), a);
	ck_assert_ptr_eq(ox_root_arena(r3), a);
	ck_assert_ptr_eq(ox_root_arena(r4), b);
	ck_assert_ptr_eq(ox_root_arena(r1), a); /* still */
	/* ordinary allocations are not roots */
	void *z = ox_arena_alloc(a, 64);
	void *p = ox_arena_alloc(a, 64);
	(void)z;
	ck_assert_ptr_null(ox_root_arena(p));
	ox_arena_free(a);
	ox_arena_free(b);
}
END_TEST

/* Every message the parser returns is a root that names its arena; OnnxProto_Free
 * releases everything (LeakSanitizer checks this in the sanitizer build). */
START_TEST(parsed_messages_are_roots)
{
	static const struct {
		const char *kind, *text;
	} t[] = {
		{"model", "<ir_version: 8> g (float[2] x) => (y) { y = Relu(x) }"},
		{"graph", "g (float[2] x = {1, 2}) => (y) { y = Relu(x) }"},
		{"function", "f (x) => (y) { y = Relu(x) }"},
		{"node", "y = Relu(x)"},
		{"nodes", "y = Relu(x) z = Neg(y)"},
		{"type", "seq(float[N])"},
		{"tensor", "float[2] w {1, 2}"},
		{"attribute", "a = [1, 2]"},
		{"value_info", "float[N] x"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		void *m = NULL;
		OnnxError err;
		OnnxStatus st = tu_parse(t[i].kind, t[i].text, strlen(t[i].text), &m, &err);
		ck_assert_msg(st == ONNXTXT_OK, "%s: %s", t[i].kind, err.message);
		ck_assert_ptr_nonnull(ox_root_arena(m));
		ck_assert_ptr_nonnull(((ProtobufCMessage *)m)->descriptor);
		OnnxProto_Free(m);
	}
	OnnxProto_Free(NULL);
}
END_TEST

/* The arena as protobuf-c's allocator: unpack into it and free everything at once. */
START_TEST(protobuf_allocator)
{
	Onnx__ModelProto *m = tu_model("<ir_version: 9, producer_name: \"p\"> g (float[2] x = {1, 2}) => (y) "
				       "{ y = Relu(x) }");
	size_t n;
	unsigned char *bytes = tu_pack(m, &n);
	OnnxProto_Free(m);
	ox_arena *a = ox_arena_new();
	ProtobufCAllocator alloc = ox_arena_allocator(a);
	Onnx__ModelProto *u = onnx__model_proto__unpack(&alloc, n, bytes);
	ck_assert_ptr_nonnull(u);
	ck_assert(u->has_ir_version && u->ir_version == 9);
	ck_assert_str_eq(u->producer_name, "p");
	ck_assert_uint_eq(u->graph->n_initializer, 1);
	ck_assert_uint_eq(u->graph->initializer[0]->n_float_data, 2);
	ck_assert_uint_gt(ox_arena_bytes(a), 0);
	size_t n2;
	unsigned char *again = tu_pack(u, &n2);
	ck_assert(n == n2 && memcmp(bytes, again, n) == 0);
	free(bytes);
	free(again);
	ox_arena_free(a); /* no free_unpacked: the arena owns it all */
}
END_TEST

/* ---- every message type's initial value ----------------------------------------------- */

#define D(x) &onnx__##x##__descriptor
static const ProtobufCMessageDescriptor *const messages[] = {
	D(attribute_proto),
	D(value_info_proto),
	D(node_proto),
	D(int_int_list_entry_proto),
	D(node_device_configuration_proto),
	D(sharding_spec_proto),
	D(sharded_dim_proto),
	D(simple_sharded_dim_proto),
	D(training_info_proto),
	D(model_proto),
	D(device_configuration_proto),
	D(string_string_entry_proto),
	D(tensor_annotation),
	D(graph_proto),
	D(tensor_proto),
	D(tensor_proto__segment),
	D(sparse_tensor_proto),
	D(tensor_shape_proto),
	D(tensor_shape_proto__dimension),
	D(type_proto),
	D(type_proto__tensor),
	D(type_proto__sequence),
	D(type_proto__map),
	D(type_proto__optional),
	D(type_proto__sparse_tensor),
	D(type_proto__opaque),
	D(operator_set_id_proto),
	D(function_proto),
	D(sequence_proto),
	D(map_proto),
	D(optional_proto),
};
#undef D
enum { NMESSAGES = sizeof messages / sizeof messages[0] };

/* Full names ("onnx.TypeProto.Tensor") of the messages declared in proto/onnx.proto. */
static int proto_messages(char names[][96], int cap)
{
	size_t len;
	char *text = tu_read(tu_path(tu_source_root(), "proto/onnx.proto"), &len);
	ck_assert_msg(text, "cannot read proto/onnx.proto");
	/* blank out comments */
	for (char *p = text; *p; p++)
		if (p[0] == '/' && p[1] == '/')
			while (*p && *p != '\n')
				*p++ = ' ';
	char stack[16][64]; /* names of the enclosing blocks; "" for non-messages */
	int depth = 0, n = 0;
	char word[64] = "", prev[64] = "";
	for (char *p = text; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_') {
			char *s = p;
			while ((p[1] >= 'A' && p[1] <= 'Z') || (p[1] >= 'a' && p[1] <= 'z') || (p[1] >= '0' && p[1] <= '9') ||
			       p[1] == '_')
				p++;
			snprintf(prev, sizeof prev, "%s", word);
			snprintf(word, sizeof word, "%.*s", (int)(p - s + 1), s);
		} else if (*p == '{') {
			ck_assert_int_lt(depth, 16);
			bool msg = strcmp(prev, "message") == 0;
			snprintf(stack[depth++], 64, "%s", msg ? word : "");
			if (msg) {
				ck_assert_int_lt(n, cap);
				char full[96] = "onnx";
				for (int i = 0; i < depth; i++) {
					ck_assert_msg(stack[i][0], "message %s inside a non-message block", word);
					strcat(full, ".");
					strcat(full, stack[i]);
				}
				snprintf(names[n++], 96, "%s", full);
			}
			word[0] = prev[0] = '\0';
		} else if (*p == '}') {
			ck_assert_int_gt(depth, 0);
			depth--;
		}
	}
	free(text);
	return n;
}

/* The list above is every message of the schema: the same names as proto/onnx.proto,
 * and closed under message-typed fields. */
START_TEST(descriptor_list_is_complete)
{
	static char names[64][96];
	int n = proto_messages(names, 64);
	ck_assert_int_eq(n, NMESSAGES);
	for (int i = 0; i < n; i++) {
		bool found = false;
		for (int k = 0; k < NMESSAGES; k++)
			found |= strcmp(messages[k]->name, names[i]) == 0;
		ck_assert_msg(found, "message %s of proto/onnx.proto is missing from the test's list", names[i]);
	}
	for (int k = 0; k < NMESSAGES; k++) {
		const ProtobufCMessageDescriptor *d = messages[k];
		ck_assert_uint_eq(d->magic, PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC);
		for (unsigned f = 0; f < d->n_fields; f++) {
			const ProtobufCFieldDescriptor *fd = &d->fields[f];
			if (fd->type != PROTOBUF_C_TYPE_MESSAGE)
				continue;
			bool found = false;
			for (int j = 0; j < NMESSAGES; j++)
				found |= messages[j] == fd->descriptor;
			ck_assert_msg(found, "%s.%s: type %s missing from the list", d->name, fd->name,
				      ((const ProtobufCMessageDescriptor *)fd->descriptor)->name);
		}
	}
}
END_TEST

static size_t field_size(const ProtobufCFieldDescriptor *fd)
{
	if (fd->label == PROTOBUF_C_LABEL_REPEATED)
		return sizeof(void *);
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_ENUM:
		return 4;
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	default:
		return 8;
	}
}

/* protobuf_c_message_init gives all zero bytes but the descriptor; and, field by field
 * (whatever happens to padding), every value, count, has_ flag and oneof case is zero. */
START_TEST(initial_value_is_zero)
{
	const ProtobufCMessageDescriptor *d = messages[_i];
	size_t size = d->sizeof_message;
	ck_assert_uint_ge(size, sizeof(ProtobufCMessage));
	unsigned char *m = calloc(1, size);
	protobuf_c_message_init(d, m);
	ck_assert_ptr_eq(((ProtobufCMessage *)m)->descriptor, d);
	size_t skip = sizeof(const ProtobufCMessageDescriptor *);
	for (size_t k = skip; k < size; k++)
		ck_assert_msg(m[k] == 0, "%s: byte %zu of %zu of the initial value is 0x%02x", d->name, k, size, m[k]);

	memset(m, 0xa5, size);
	protobuf_c_message_init(d, m);
	const ProtobufCMessage *base = (const ProtobufCMessage *)m;
	ck_assert_uint_eq(base->n_unknown_fields, 0);
	ck_assert_ptr_null(base->unknown_fields);
	for (unsigned f = 0; f < d->n_fields; f++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[f];
		ck_assert_msg(all_zero(m + fd->offset, field_size(fd)), "%s.%s is not zero initially", d->name, fd->name);
		ck_assert_msg(fd->default_value == NULL, "%s.%s has a default value", d->name, fd->name);
		if (fd->quantifier_offset) {
			size_t qs = fd->label == PROTOBUF_C_LABEL_REPEATED ? sizeof(size_t)
				    : (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) ? sizeof(uint32_t)
										: sizeof(protobuf_c_boolean);
			ck_assert_msg(all_zero(m + fd->quantifier_offset, qs), "%s.%s: count/has/case is not zero",
				      d->name, fd->name);
		}
	}
	free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("arena");
	TCase *tc = tcase_create("alloc");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, zeroed_aligned_disjoint);
	tcase_add_test(tc, zero_size);
	tcase_add_test(tc, big_allocations);
	tcase_add_test(tc, reset_keeps_the_largest_block);
	tcase_add_test(tc, impossible_sizes);
	tcase_add_test(tc, strndup_memdup);
	suite_add_tcase(s, tc);

	tc = tcase_create("roots");
	tcase_add_test(tc, roots);
	tcase_add_test(tc, parsed_messages_are_roots);
	tcase_add_test(tc, protobuf_allocator);
	suite_add_tcase(s, tc);

	tc = tcase_create("messages");
	tcase_add_test(tc, descriptor_list_is_complete);
	tcase_add_loop_test(tc, initial_value_is_zero, 0, NMESSAGES);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
