/* Values <-> protobuf messages: TensorProto (every data field and raw_data),
 * SequenceProto, OptionalProto and MapProto, as the ONNX backend test layout stores them. */
#ifndef OX_EVAL_CONVERT_H
#define OX_EVAL_CONVERT_H

#include "arena.h"
#include "onnxtxt/onnxtxt.h"
#include "value.h"

/* A new tensor from t; NULL with a message in msg (OX_MSG bytes) when t is malformed
 * (data that does not match its shape, external data, an unsupported type). */
ox_val *ox_val_from_tensor_proto(const Onnx__TensorProto *t, char *msg);
/* The same for a tensor of a model that outlives the value: its raw bytes are used in
 * place where they can be (ox_val.borrowed), else copied. */
ox_val *ox_val_borrow_tensor_proto(const Onnx__TensorProto *t, char *msg);
ox_val *ox_val_from_sequence_proto(const Onnx__SequenceProto *s, char *msg);
ox_val *ox_val_from_optional_proto(const Onnx__OptionalProto *o, char *msg);
/* A map of scalars: its values a SequenceProto of one scalar tensor per key. */
ox_val *ox_val_from_map_proto(const Onnx__MapProto *m, char *msg);
/* The status for a message those calls (or a kernel, through ox_kfail) wrote:
 * ONNXTXT_ERR_NOMEM when memory ran out (the message then says "out of memory"), else
 * bad_input. */
OnnxStatus ox_convert_status(const char *msg, OnnxStatus bad_input);

/* Messages allocated in a (not roots); NULL when out of memory. Numeric data goes to
 * raw_data, strings to string_data. */
Onnx__TensorProto *ox_val_to_tensor_proto(ox_arena *a, const ox_val *v, const char *name);
Onnx__SequenceProto *ox_val_to_sequence_proto(ox_arena *a, const ox_val *v, const char *name);
Onnx__OptionalProto *ox_val_to_optional_proto(ox_arena *a, const ox_val *v, const char *name);
Onnx__MapProto *ox_val_to_map_proto(ox_arena *a, const ox_val *v, const char *name);

#endif
