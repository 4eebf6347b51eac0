/* Generic field access through protobuf-c descriptors, for code that handles any field
 * of any message (annotations, the printer's notes, the streaming writer). */
#ifndef OX_PROTO_H
#define OX_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#include <protobuf-c/protobuf-c.h>

/* Whether the field holds anything protobuf-c would serialize. */
bool ox_field_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd);
/* Makes the field absent (repeated: empty). */
void ox_field_clear(ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd);
/* Bytes one value of the field takes in its struct or array. */
size_t ox_field_value_size(const ProtobufCFieldDescriptor *fd);

#endif
