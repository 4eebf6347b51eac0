/* Where the elements of a parsed model are in its text, recorded on request while parsing,
 * so that the structural check (check.c) can point at file:line:col. */
#ifndef OX_SPANS_H
#define OX_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "onnxtxt/onnxtxt.h"

/* A message of the model and the bytes [start, end) of the text it was read from: a
 * node's whole text; the name of a value info, initializer, attribute, graph or function;
 * an opset_import entry's domain. */
typedef struct ox_span {
	const void *msg;
	uint32_t start, end;
} ox_span;

typedef struct ox_spans {
	ox_span *v; /* malloc'd; sorted by msg once parsing is over */
	size_t n, cap;
} ox_spans;

/* OnnxParser_Parse that also records spans (freed with ox_spans_free, even on failure). */
OnnxStatus ox_parse_model_spans(const char *text, size_t len, Onnx__ModelProto **out, ox_spans *spans,
				OnnxError *err);
/* Sorts the spans by message, for ox_span_find. */
void ox_spans_sort(ox_spans *s);
/* The span of msg, or NULL. */
const ox_span *ox_span_find(const ox_spans *s, const void *msg);
void ox_spans_free(ox_spans *s);

#endif
