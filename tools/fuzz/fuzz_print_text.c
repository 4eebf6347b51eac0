/* Fuzz harness: parse -> print -> parse. Whatever text parses (as any entry point but the
 * node list, which prints as a graph) prints to text that parses back to the same bytes;
 * a model formats (comments kept) to text that is the same model and formats to itself. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_format(const char *text, size_t size, const void *model)
{
	char *once, *twice;
	size_t n1, n2;
	void *back = NULL;
	OnnxError err;
	OnnxStatus st = OnnxPrinter_Format(text, size, 0, &once, &n1, &err);
	if (st == ONNXTXT_ERR_NOMEM)
		return;
	FZ_CHECK(st == ONNXTXT_OK, "a model that parses does not format: %s", err.message);
	FZ_CHECK(OnnxParser_Parse(once, n1, (Onnx__ModelProto **)&back, &err) == ONNXTXT_OK,
		 "the formatted text does not parse: %s\n%s", err.message, once);
	FZ_CHECK(fz_same_bytes(model, back), "formatting changed the model:\n%s", once);
	FZ_CHECK(OnnxPrinter_Format(once, n1, 0, &twice, &n2, &err) == ONNXTXT_OK, "%s", err.message);
	FZ_CHECK(n1 == n2 && memcmp(once, twice, n1) == 0, "formatting is not idempotent:\n%s\n---\n%s", once, twice);
	OnnxProto_Free(back);
	free(once);
	free(twice);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t k = 0; k < fz_nkinds; k++) {
		if (strcmp(fz_kinds[k].name, "nodes") == 0)
			continue;
		void *out = NULL;
		OnnxError err;
		if (fz_kinds[k].parse((const char *)data, size, &out, &err) != ONNXTXT_OK)
			continue;
		fz_check_print(out, &fz_kinds[k]);
		if (strcmp(fz_kinds[k].name, "model") == 0)
			check_format((const char *)data, size, out);
		OnnxProto_Free(out);
	}
	return 0;
}
