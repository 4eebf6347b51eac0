/* Streaming text -> binary: the nodes of a model's main graph are packed as soon as they
 * are parsed, and the model is written around them. */
#ifndef OX_STREAM_H
#define OX_STREAM_H

#include <stddef.h>
#include <stdio.h>

#include "onnxtxt/onnxtxt.h"

typedef struct ox_chunk ox_chunk;

/* Packed nodes, as the graph's field 1 entries (tag, length, bytes), in chunks. */
typedef struct ox_sink {
	ox_chunk *head, *tail;
	size_t total;
	int failed;
} ox_sink;

int ox_sink_node(ox_sink *s, const Onnx__NodeProto *node);
void ox_sink_free(ox_sink *s);
/* Writes model, whose graph's nodes are in s, with exactly the bytes protobuf-c would
 * pack for the model with those nodes in place. Returns 0 on a write error. */
int ox_sink_write_model(ox_sink *s, Onnx__ModelProto *model, FILE *f);

#endif
