/* Fuzz harness: binary .onnx through OnnxBinary_Read. Malformed bytes fail cleanly with a
 * binary or limit error found by the structure scan (never by protobuf-c itself); what
 * reads packs, reads back and packs to the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Onnx__ModelProto *m = NULL;
	OnnxError err;
	OnnxStatus st = OnnxBinary_Read(data, size, &m, &err);
	if (st != ONNXTXT_OK) {
		FZ_CHECK(!m, "a message after an error");
		FZ_CHECK(st == ONNXTXT_ERR_BINARY || st == ONNXTXT_ERR_LIMIT, "status %d: %s", st, err.message);
		FZ_CHECK(err.code == st && err.message[0] && memchr(err.message, '\0', sizeof err.message),
			 "err.code %d, status %d", err.code, st);
		FZ_CHECK(err.offset <= size, "error at byte %zu of %zu: %s", err.offset, size, err.message);
		/* the scan before unpacking must catch whatever protobuf-c refuses, with a path */
		FZ_CHECK(!strstr(err.message, "protobuf-c could not unpack"), "the scan let through: %s", err.message);
		return 0;
	}
	void *bytes;
	size_t len;
	FZ_CHECK(OnnxBinary_Write(m, &bytes, &len, &err) == ONNXTXT_OK, "write: %s", err.message);
	Onnx__ModelProto *back = NULL;
	FZ_CHECK(OnnxBinary_Read(bytes, len, &back, &err) == ONNXTXT_OK, "packed bytes do not read back: %s",
		 err.message);
	FZ_CHECK(fz_same_bytes(m, back), "read, packed and read again, the model packs differently");
	free(bytes);
	OnnxProto_Free(back);
	OnnxProto_Free(m);
	return 0;
}
