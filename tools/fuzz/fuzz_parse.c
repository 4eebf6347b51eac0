/* Fuzz harness: text through every parser entry point. A parse succeeds with a message that
 * packs, or fails cleanly; a model converted straight to binary gives the same bytes, and
 * checks, draws and summarizes; syntax colour keeps every byte of the text. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* OnnxParser_ParseToBinary agrees with OnnxParser_Parse + packing, error or not. */
static void check_streaming(const char *text, size_t size, OnnxStatus st, const Onnx__ModelProto *m,
			    const OnnxError *err)
{
	char *bytes = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&bytes, &n);
	FZ_CHECK(f, "open_memstream failed");
	OnnxError e2;
	OnnxStatus st2 = OnnxParser_ParseToBinary(text, size, f, &e2);
	fclose(f);
	FZ_CHECK(st2 == st, "ParseToBinary: status %d, Parse: %d (%s / %s)", st2, st, e2.message, err->message);
	if (st == ONNXTXT_OK) {
		size_t len;
		uint8_t *want = fz_pack(m, &len);
		FZ_CHECK(n == len && memcmp(bytes, want, len) == 0, "ParseToBinary wrote %zu bytes, packing %zu", n,
			 len);
		free(want);
	} else {
		FZ_CHECK(strcmp(e2.message, err->message) == 0 && e2.offset == err->offset,
			 "ParseToBinary: %s at %zu, Parse: %s at %zu", e2.message, e2.offset, err->message,
			 err->offset);
	}
	free(bytes);
}

/* s without its SGR sequences (ESC '[' digits 'm'), in place; the new length. */
static size_t strip_sgr(char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = i + 2;
		while (s[i] == '\033' && i + 1 < n && s[i + 1] == '[' && j < n && s[j] >= '0' && s[j] <= '9')
			j++;
		if (s[i] == '\033' && j > i + 2 && j < n && s[j] == 'm') {
			i = j;
			continue;
		}
		s[k++] = s[i];
	}
	return k;
}

/* Syntax colour only adds escape sequences: without them, the output is the input (both
 * stripped, since the input may hold such sequences itself). */
static void check_highlight(const char *text, size_t size)
{
	char *out, *in = malloc(size + 1);
	size_t n;
	FZ_CHECK(in && OnnxPrinter_Highlight(text, size, &out, &n, NULL) == ONNXTXT_OK, "highlight failed");
	memcpy(in, text, size);
	size_t a = strip_sgr(in, size), b = strip_sgr(out, n);
	FZ_CHECK(a == b && memcmp(in, out, a) == 0, "highlight changed the text (%zu bytes, %zu without colour)", a, b);
	free(in);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	check_highlight(text, size);
	for (size_t k = 0; k < fz_nkinds; k++) {
		void *out = NULL;
		OnnxError err;
		OnnxStatus st = fz_kinds[k].parse(text, size, &out, &err);
		if (st == ONNXTXT_OK) {
			FZ_CHECK(out, "%s: OK without a message", fz_kinds[k].name);
			size_t len;
			free(fz_pack(out, &len));
		} else {
			FZ_CHECK(!out, "%s: a message after an error", fz_kinds[k].name);
			fz_check_parse_error(st, &err, text, size, fz_kinds[k].name);
		}
		if (k == 0)
			check_streaming(text, size, st, out, &err);
		if (k == 0 && st == ONNXTXT_OK)
			fz_check_model(out);
		OnnxProto_Free(out);
	}
	return 0;
}
