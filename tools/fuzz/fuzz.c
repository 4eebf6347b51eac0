/* Helpers of the libFuzzer harnesses (tools/fuzz/fuzz.h): entry points by kind, packing,
 * checks of a failed parse. */
#define _GNU_SOURCE
#include "fuzz.h"
#include "literal.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: check failed: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* One wrapper per entry point, so that each is called through its own type. */
#define WRAP(fn, type)                                                                                        \
	static OnnxStatus fn##_any(const char *text, size_t len, void **out, OnnxError *err)                  \
	{                                                                                                     \
		type *m = NULL;                                                                               \
		OnnxStatus st = fn(text, len, &m, err);                                                       \
		*out = m;                                                                                     \
		return st;                                                                                    \
	}
WRAP(OnnxParser_Parse, Onnx__ModelProto)
WRAP(OnnxParser_ParseGraph, Onnx__GraphProto)
WRAP(OnnxParser_ParseFunction, Onnx__FunctionProto)
WRAP(OnnxParser_ParseNode, Onnx__NodeProto)
WRAP(OnnxParser_ParseNodeList, Onnx__GraphProto)
WRAP(OnnxParser_ParseType, Onnx__TypeProto)
WRAP(OnnxParser_ParseTensor, Onnx__TensorProto)
WRAP(OnnxParser_ParseAttribute, Onnx__AttributeProto)
WRAP(OnnxParser_ParseValueInfo, Onnx__ValueInfoProto)

const fz_kind fz_kinds[] = {
	{"model", OnnxParser_Parse_any},
	{"graph", OnnxParser_ParseGraph_any},
	{"function", OnnxParser_ParseFunction_any},
	{"node", OnnxParser_ParseNode_any},
	{"nodes", OnnxParser_ParseNodeList_any},
	{"type", OnnxParser_ParseType_any},
	{"tensor", OnnxParser_ParseTensor_any},
	{"attribute", OnnxParser_ParseAttribute_any},
	{"value_info", OnnxParser_ParseValueInfo_any},
};
const size_t fz_nkinds = sizeof fz_kinds / sizeof *fz_kinds;

void fz_check_parse_error(OnnxStatus st, const OnnxError *err, const char *text, size_t len, const char *what)
{
	FZ_CHECK(st == ONNXTXT_ERR_SYNTAX || st == ONNXTXT_ERR_VALUE || st == ONNXTXT_ERR_LIMIT,
		 "%s: status %d: %s", what, st, err->message);
	FZ_CHECK(err->code == st, "%s: err.code %d, status %d", what, err->code, st);
	FZ_CHECK(memchr(err->message, '\0', sizeof err->message) && err->message[0], "%s: no message", what);
	FZ_CHECK(err->offset <= len && err->length <= len - err->offset, "%s: range %zu+%zu outside %zu bytes: %s",
		 what, err->offset, err->length, len, err->message);
	FZ_CHECK(err->line >= 1 && err->column >= 1, "%s: position %u:%u: %s", what, err->line, err->column,
		 err->message);
	char buf[256];
	size_t need = OnnxError_Format(err, "fuzz", text, len, buf, sizeof buf);
	FZ_CHECK(need >= strlen(buf) && strncmp(buf, "fuzz:", 5) == 0, "%s: formatted as %s", what, buf);
}

uint8_t *fz_pack(const void *msg, size_t *len)
{
	*len = protobuf_c_message_get_packed_size(msg);
	uint8_t *buf = malloc(*len ? *len : 1);
	FZ_CHECK(buf, "out of memory");
	size_t n = protobuf_c_message_pack(msg, buf);
	FZ_CHECK(n == *len, "packed %zu bytes, expected %zu", n, *len);
	return buf;
}

int fz_same_bytes(const void *a, const void *b)
{
	size_t na, nb;
	uint8_t *pa = fz_pack(a, &na), *pb = fz_pack(b, &nb);
	int same = na == nb && memcmp(pa, pb, na) == 0;
	free(pa);
	free(pb);
	return same;
}

static char *print(const void *msg, unsigned flags, size_t *len, const char *what)
{
	char *text = NULL;
	OnnxError err;
	OnnxStatus st = OnnxPrinter_Print(msg, flags, &text, len, &err);
	FZ_CHECK(st == ONNXTXT_OK && text, "%s: print (flags %u) failed: %s", what, flags, err.message);
	/* NUL bytes of bytes fields print as they are (the syntax has no escape for them) */
	FZ_CHECK(text[*len] == '\0', "%s: printed %zu bytes without a final NUL", what, *len);
	return text;
}

/* Parses printed text, which must succeed; returns the message. */
static void *reparse(const fz_kind *kind, const char *text, size_t len, unsigned flags)
{
	void *back = NULL;
	OnnxError err;
	OnnxStatus st = kind->parse(text, len, &back, &err);
	FZ_CHECK(st == ONNXTXT_OK, "%s printed with flags %u does not parse: %u:%u: %s\n%s", kind->name, flags,
		 err.line, err.column, err.message, text);
	return back;
}

/* Whatever bytes a model holds, every output is UTF-8 (\xHH in text, U+FFFD elsewhere). */
static bool all_utf8(const char *s, size_t n)
{
	for (size_t i = 0, k; i < n; i += k)
		if (!(k = ox_utf8_len(s + i, n - i)))
			return false;
	return true;
}

void fz_check_print(const void *msg, const fz_kind *kind)
{
	size_t len, len2;
	char *text = print(msg, 0, &len, kind->name);
	FZ_CHECK(all_utf8(text, len), "%s: the printed text is not UTF-8:\n%s", kind->name, text);
	void *back = reparse(kind, text, len, 0);
	FZ_CHECK(fz_same_bytes(msg, back), "%s: printed and parsed back, the message differs:\n%s", kind->name, text);
	char *again = print(back, 0, &len2, kind->name);
	FZ_CHECK(len == len2 && memcmp(text, again, len) == 0, "%s: printing is not idempotent:\n%s\n---\n%s",
		 kind->name, text, again);
	free(again);
	OnnxProto_Free(back);
	free(text);
	static const unsigned variants[] = {ONNXTXT_PRINT_NO_ANNOTATIONS, ONNXTXT_PRINT_FLOAT_LITERALS};
	for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
		text = print(msg, variants[i], &len, kind->name);
		OnnxProto_Free(reparse(kind, text, len, variants[i]));
		free(text);
	}
}

void fz_check_model(const Onnx__ModelProto *m)
{
	OnnxError *problems = NULL, err;
	size_t count = 0;
	OnnxStatus st = OnnxModel_Check(m, &problems, &count, &err);
	/* a valid model may come with warnings, and only with warnings */
	size_t warnings = 0;
	for (size_t i = 0; i < count; i++)
		warnings += problems[i].code == ONNXTXT_WARNING;
	bool listed = st == ONNXTXT_ERR_INVALID && count > warnings && count <= ONNXTXT_MAX_PROBLEMS;
	FZ_CHECK(st == ONNXTXT_OK ? count == warnings : listed, "check: status %d with %zu problems (%zu warnings): %s",
		 st, count, warnings, err.message);
	for (size_t i = 0; i < count; i++)
		FZ_CHECK(problems[i].message[0] && memchr(problems[i].message, '\0', sizeof problems[i].message),
			 "check: problem %zu has no message", i);
	free(problems);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	FZ_CHECK(f, "open_memstream failed");
	st = OnnxPrinter_Dot(m, f, &err);
	fclose(f);
	FZ_CHECK(st == ONNXTXT_OK && len > 0, "dot: status %d: %s", st, err.message);
	FZ_CHECK(all_utf8(text, len), "dot: the output is not UTF-8");
	free(text);
	for (unsigned flags = 0; flags <= ONNXTXT_INFO_JSON; flags++) {
		st = OnnxModel_Info(m, flags, &text, &len, &err);
		FZ_CHECK(st == ONNXTXT_OK && len > 0 && strlen(text) == len, "info %u: status %d: %s", flags, st,
			 err.message);
		FZ_CHECK(all_utf8(text, len), "info %u: the output is not UTF-8", flags);
		free(text);
	}
}
