/* Fuzz harness: binary -> print -> parse. Any model that reads prints to text that parses
 * back to a model with the same bytes, whatever the text syntax cannot say; it also checks
 * and draws. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Onnx__ModelProto *m = NULL;
	OnnxError err;
	if (OnnxBinary_Read(data, size, &m, &err) != ONNXTXT_OK)
		return 0;
	fz_check_print(m, &fz_kinds[0]);
	fz_check_model(m);
	OnnxProto_Free(m);
	return 0;
}
