/* Checked unpacking of any ONNX message (models, and tensors of backend test data). */
#ifndef OX_BINARY_H
#define OX_BINARY_H

#include <stddef.h>

#include "onnxtxt/onnxtxt.h"

/* Validates wire structure and nesting depth; on failure fills err with the field path. */
int ox_binary_check(const ProtobufCMessageDescriptor *d, const void *data, size_t len, OnnxError *err);
/* Check, then unpack into a new arena; the result is freed with OnnxProto_Free. */
void *ox_binary_unpack(const ProtobufCMessageDescriptor *d, const void *data, size_t len, OnnxError *err);

#endif
