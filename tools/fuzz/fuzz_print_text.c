/* Fuzz harness: parse -> print -> parse. Whatever text parses (as any entry point but the
 * node list, which prints as a graph) prints to text that parses back to the same bytes. */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
		OnnxProto_Free(out);
	}
	return 0;
}
