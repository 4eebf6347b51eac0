/* The canonical printer's internals, shared by print.c and print_tensor.c. */
#ifndef OX_PRINT_H
#define OX_PRINT_H

#include "onnxtxt/onnxtxt.h"
#include "out.h"

/* How a tensor's data can be written. */
enum ox_data_kind {
	OX_DATA_NONE,     /* no data at all */
	OX_DATA_TYPED,    /* values in the field the parser fills: "{...}" */
	OX_DATA_RAW,      /* values in raw_data: "{...}" plus the "raw" annotation */
	OX_DATA_EXTERNAL, /* external data: "[...]" */
	OX_DATA_OTHER     /* anything else: no data in text, fields in annotations */
};

enum ox_data_kind ox_tensor_data_kind(const Onnx__TensorProto *t);
/* Whether "k": "v" entries say all there is: both strings set, no unknown fields. */
bool ox_entries_plain(size_t n, Onnx__StringStringEntryProto *const *e);
/* Whether text gives the value back bit for bit: everything but NaNs other than the
 * one the parser makes of "nan" / "-nan". */
bool ox_float_exact(float v);
bool ox_double_exact(double v);
void ox_print_tensor_values(ox_out *o, const Onnx__TensorProto *t);

/* Prints any supported message (model, graph, function, node, type, tensor, attribute,
 * value info); false for other message types. */
bool ox_print_message(ox_out *o, const ProtobufCMessage *m);

/* OnnxPrinter_Print, but the nodes for which attrs_apart(ctx, node) is true have their
 * attributes one per line (the formatter's request). */
OnnxStatus ox_print_apart(const void *message, unsigned flags, bool (*attrs_apart)(const void *, const void *),
			  const void *ctx, char **text, size_t *len, OnnxError *err);

#endif
