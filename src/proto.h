/* Generic field access through protobuf-c descriptors, for code that handles any field
 * of any message (annotations, the printer's notes, the streaming writer), and messages
 * packed as parts of a key. */
#ifndef OX_PROTO_H
#define OX_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "onnx.pb-c.h"

/* Whether the field holds anything protobuf-c would serialize. */
bool ox_field_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd);
/* Makes the field absent (repeated: empty). */
void ox_field_clear(ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd);
/* Bytes one value of the field takes in its struct or array. */
size_t ox_field_value_size(const ProtobufCFieldDescriptor *fd);

/* Attributes a[0..n) packed one after another, each after its size (a size_t), into out,
 * or only measured when out is NULL; the bytes either way. Equal attributes pack equal, so
 * the bytes can be part of a key (a function call's, by the planner and by inference). */
size_t ox_attrs_pack(const Onnx__AttributeProto *const *a, size_t n, uint8_t *out);

#endif
