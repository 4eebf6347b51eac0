/* Generic field access through protobuf-c descriptors. */
#include "proto.h"

#include <string.h>

size_t ox_field_value_size(const ProtobufCFieldDescriptor *fd)
{
	switch (fd->type) {
	case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
	case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	default: return 4;
	}
}

bool ox_field_present(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd)
{
	const char *m = (const char *)msg;
	if (fd->label == PROTOBUF_C_LABEL_REPEATED)
		return *(const size_t *)(m + fd->quantifier_offset) != 0;
	if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
		return *(const uint32_t *)(m + fd->quantifier_offset) == fd->id;
	if (fd->type == PROTOBUF_C_TYPE_STRING || fd->type == PROTOBUF_C_TYPE_MESSAGE)
		return *(void *const *)(m + fd->offset) != NULL;
	return *(const protobuf_c_boolean *)(m + fd->quantifier_offset);
}

void ox_field_clear(ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd)
{
	char *m = (char *)msg;
	if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
		*(size_t *)(m + fd->quantifier_offset) = 0;
		*(void **)(m + fd->offset) = NULL;
		return;
	}
	if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
		if (*(uint32_t *)(m + fd->quantifier_offset) != fd->id)
			return; /* another member of the oneof is set */
		*(uint32_t *)(m + fd->quantifier_offset) = 0;
	} else if (fd->type != PROTOBUF_C_TYPE_STRING && fd->type != PROTOBUF_C_TYPE_MESSAGE) {
		*(protobuf_c_boolean *)(m + fd->quantifier_offset) = 0;
	}
	memset(m + fd->offset, 0, ox_field_value_size(fd));
}

size_t ox_attrs_pack(const Onnx__AttributeProto *const *a, size_t n, uint8_t *out)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		size_t size = protobuf_c_message_get_packed_size(&a[i]->base);
		if (out) {
			memcpy(out + total, &size, sizeof size);
			protobuf_c_message_pack(&a[i]->base, out + total + sizeof size);
		}
		total += sizeof size + size;
	}
	return total;
}
