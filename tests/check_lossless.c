/* Losslessness of text: random messages, built field by field from the protobuf-c
 * descriptors (so every field of every message in proto/onnx.proto takes part, present
 * or absent, with awkward values and unknown fields), must come back byte for byte from
 * print -> parse. This is what the annotations promise (SYNTAX-DECISIONS R3). */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13; /* xorshift64: reproducible from the seed */
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int chance(int one_in)
{
	return rnd() % (uint64_t)one_in == 0;
}

/* Strings: identifiers, awkward names, keywords, empty, multi-line, non-ASCII, bytes that
 * are not UTF-8, and "\x41" as text; no NUL (protobuf-c strings cannot hold one). */
static char *random_string(void)
{
	static const char *const words[] = {"x", "", "float", "seq", "inf", "NaN", "a b", "gpu_0/conv1", "0", "\"q\"",
					    "back\\slash", "two\nlines", "#@ not a note", "caf\xc3\xa9", "\xff\xfe",
					    "ends\n", "\n", "tab\there", "com.example", "1e5", "\\x41",
					    "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80", "\xe4\xb8"};
	if (chance(3)) {
		size_t n = rnd() % 12;
		char *s = malloc(n + 1);
		for (size_t i = 0; i < n; i++)
			s[i] = (char)(1 + rnd() % 255);
		s[n] = '\0';
		return s;
	}
	return strdup(words[rnd() % (sizeof words / sizeof *words)]);
}

static ProtobufCBinaryData random_bytes(void)
{
	size_t n = rnd() % 10;
	uint8_t *d = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		d[i] = (uint8_t)rnd();
	return (ProtobufCBinaryData){n, d};
}

static uint64_t random_bits(void)
{
	static const uint64_t special[] = {0, 1, (uint64_t)-1, 0x7fffffff, 0x80000000, 0x7ff8000000000000ull,
					   0x7fc00000, 0xffc00001, 0x7f800000, 0x3f800000, 0x8000000000000000ull};
	return chance(3) ? special[rnd() % (sizeof special / sizeof *special)] : rnd() >> (rnd() % 64);
}

static void random_scalar(const ProtobufCFieldDescriptor *fd, void *dst, int depth);

static ProtobufCMessage *random_message(const ProtobufCMessageDescriptor *d, int depth)
{
	ProtobufCMessage *m = calloc(1, d->sizeof_message);
	protobuf_c_message_init(d, m);
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[i];
		char *base = (char *)m;
		bool message = fd->type == PROTOBUF_C_TYPE_MESSAGE;
		if (chance(message && depth > 2 ? 1 : 3))
			continue;
		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = rnd() % 4, size = message || fd->type == PROTOBUF_C_TYPE_STRING ? sizeof(void *)
				   : fd->type == PROTOBUF_C_TYPE_BYTES ? sizeof(ProtobufCBinaryData)
				   : (fd->type == PROTOBUF_C_TYPE_INT64 || fd->type == PROTOBUF_C_TYPE_UINT64 ||
				      fd->type == PROTOBUF_C_TYPE_DOUBLE) ? 8 : 4;
			char *values = calloc(n ? n : 1, size);
			for (size_t k = 0; k < n; k++)
				random_scalar(fd, values + k * size, depth);
			*(size_t *)(base + fd->quantifier_offset) = n;
			*(void **)(base + fd->offset) = values;
			continue;
		}
		if ((fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)) {
			if (*(uint32_t *)(base + fd->quantifier_offset))
				continue; /* another member of the oneof is set */
			*(uint32_t *)(base + fd->quantifier_offset) = fd->id;
		} else if (!message && fd->type != PROTOBUF_C_TYPE_STRING) {
			*(protobuf_c_boolean *)(base + fd->quantifier_offset) = 1;
		}
		random_scalar(fd, base + fd->offset, depth);
	}
	if (chance(8)) { /* an unknown field: a varint with a number no message uses */
		ProtobufCMessageUnknownField *u = calloc(1, sizeof *u);
		u->tag = 900 + (uint32_t)(rnd() % 100);
		u->wire_type = PROTOBUF_C_WIRE_TYPE_VARINT;
		u->len = 1;
		u->data = malloc(1);
		u->data[0] = (uint8_t)(rnd() % 128);
		m->n_unknown_fields = 1;
		m->unknown_fields = u;
	}
	return m;
}

static void random_scalar(const ProtobufCFieldDescriptor *fd, void *dst, int depth)
{
	uint64_t bits = random_bits();
	switch (fd->type) {
	case PROTOBUF_C_TYPE_STRING: *(char **)dst = random_string(); break;
	case PROTOBUF_C_TYPE_BYTES: *(ProtobufCBinaryData *)dst = random_bytes(); break;
	case PROTOBUF_C_TYPE_MESSAGE: *(void **)dst = random_message(fd->descriptor, depth + 1); break;
	case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_DOUBLE:
		memcpy(dst, &bits, 8);
		break;
	case PROTOBUF_C_TYPE_ENUM: {
		const ProtobufCEnumDescriptor *e = fd->descriptor;
		int32_t v = chance(6) ? (int32_t)(rnd() % 100) : e->values[rnd() % e->n_values].value;
		memcpy(dst, &v, 4);
		break;
	}
	default: {
		uint32_t v = (uint32_t)bits;
		if (fd->type == PROTOBUF_C_TYPE_INT32 && chance(2))
			v = (uint32_t)(rnd() % 30); /* element types, mostly known */
		memcpy(dst, &v, 4);
	}
	}
}

START_TEST(random_models_survive_text)
{
	rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)(_i + 1) * 0x2545f4914f6cdd1dull;
	ProtobufCMessage *m = random_message(&onnx__model_proto__descriptor, 0);
	size_t n;
	unsigned char *bytes = tu_pack(m, &n);
	protobuf_c_message_free_unpacked(m, NULL);
	Onnx__ModelProto *model;
	OnnxError err;
	ck_assert_msg(OnnxBinary_Read(bytes, n, &model, &err) == ONNXTXT_OK, "seed %d: %s", _i, err.message);
	char *text;
	size_t tlen;
	ck_assert_msg(OnnxPrinter_Print(model, 0, &text, &tlen, &err) == ONNXTXT_OK, "seed %d: %s", _i, err.message);
	/* the random strings hold any bytes; the text holds them as \xHH */
	size_t bad = tu_utf8_bad(text, tlen);
	ck_assert_msg(bad == tlen, "seed %d: the text is not UTF-8 at byte %zu", _i, bad);
	Onnx__ModelProto *back;
	OnnxStatus st = OnnxParser_Parse(text, tlen, &back, &err);
	ck_assert_msg(st == ONNXTXT_OK, "seed %d: %u:%u: %s\n%s", _i, err.line, err.column, err.message, text);
	size_t n2;
	unsigned char *again = tu_pack(back, &n2);
	ck_assert_msg(n2 == n && memcmp(again, bytes, n) == 0, "seed %d: text lost something:\n%s", _i, text);
	free(again);
	free(text);
	free(bytes);
	OnnxProto_Free(back);
	OnnxProto_Free(model);
}
END_TEST

int main(void)
{
	const char *env = getenv("ONNXTXT_LOSSLESS_CASES");
	int cases = env ? atoi(env) : 2000;
	Suite *s = suite_create("lossless");
	TCase *tc = tcase_create("random models");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, random_models_survive_text, 0, cases);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
