/* Fuzz harness: evaluation of small parsed models. A model that parses gets a session,
 * inputs and a run; every step succeeds or fails cleanly, and the outputs print. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The inputs come from the model's "#@ input" lines, else from the bytes of the fuzz input
 * for each declared tensor type. Inputs are bounded (text size, elements per bound tensor),
 * and so is each run: a small memory budget and a deadline, which Loop and Scan with huge
 * trip counts and function calls that fan out meet. In the fuzz build the evaluator's
 * tensor size limit is lowered too (meson.build). */
#define MAX_TEXT 8192
#define MAX_ELEMENTS 4096
#define RUN_MEMORY ((uint64_t)64 << 20)
#define RUN_SECONDS 0.5

/* A failure is clean: a status that fits (ONNXTXT_ERR_ARG only where the caller may be
 * wrong: binding a name the graph does not have) and a message. */
static void check_error(OnnxStatus st, const OnnxError *err, const char *what, int arg_ok)
{
	bool message = err->message[0] && memchr(err->message, '\0', sizeof err->message);
	FZ_CHECK(st != ONNXTXT_OK && err->code == st && message, "%s: status %d, err.code %d", what, st, err->code);
	FZ_CHECK(st == ONNXTXT_ERR_VALUE || st == ONNXTXT_ERR_LIMIT || st == ONNXTXT_ERR_UNSUPPORTED ||
			 st == ONNXTXT_ERR_EVAL || st == ONNXTXT_ERR_NOMEM || (arg_ok && st == ONNXTXT_ERR_ARG),
		 "%s: status %d: %s", what, st, err->message);
}

/* A tensor for a declared input type: symbolic and unknown dims are 2, the data comes from
 * the fuzz input (strings are empty). NULL when the type is no tensor or too large. */
static OnnxValue *input_for(const Onnx__ValueInfoProto *vi, const uint8_t *data, size_t size)
{
	const Onnx__TypeProto *t = vi->type;
	if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type->has_elem_type)
		return NULL;
	const Onnx__TensorShapeProto *shape = t->tensor_type->shape;
	int64_t dims[16];
	size_t rank = shape ? shape->n_dim : 0, count = 1;
	if (rank > 16)
		return NULL;
	for (size_t i = 0; i < rank; i++) {
		const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
		dims[i] = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? d->dim_value : 2;
		if (dims[i] < 0 || dims[i] > MAX_ELEMENTS || (count *= (size_t)dims[i]) > MAX_ELEMENTS)
			return NULL;
	}
	int type = t->tensor_type->elem_type;
	uint8_t *bytes = NULL;
	if (type != ONNX__TENSOR_PROTO__DATA_TYPE__STRING) {
		bytes = calloc(count ? count : 1, 16);
		FZ_CHECK(bytes, "out of memory");
		for (size_t i = 0; size && i < count * 16; i++)
			bytes[i] = data[i % size];
		/* bools and sub-byte types keep to their value range */
		if (type == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL)
			for (size_t i = 0; i < count; i++)
				bytes[i] &= 1;
		if (type >= ONNX__TENSOR_PROTO__DATA_TYPE__UINT4)
			for (size_t i = 0; i < count; i++)
				bytes[i] &= 1;
	}
	OnnxValue *v = NULL;
	OnnxError err;
	OnnxStatus st = OnnxValue_NewTensor(type, dims, rank, bytes, &v, &err);
	free(bytes);
	return st == ONNXTXT_OK ? v : NULL;
}

/* Binds the "#@ input" lines, or values made for the declared types. */
static void bind_inputs(OnnxSession *s, const char *text, size_t size)
{
	OnnxCaseItem *items = NULL;
	size_t n = 0;
	OnnxError err;
	if (OnnxCase_Parse(text, size, &items, &n, &err) == ONNXTXT_OK) {
		for (size_t i = 0; i < n; i++)
			if (!items[i].expect && OnnxValue_Count(items[i].value) <= MAX_ELEMENTS) {
				OnnxStatus st = OnnxSession_SetInput(s, items[i].name, items[i].value, &err);
				if (st != ONNXTXT_OK)
					check_error(st, &err, "SetInput (from the case)", 1);
			}
		OnnxCase_Free(items, n);
		if (n)
			return;
	}
	for (size_t i = 0; i < OnnxSession_InputCount(s); i++) {
		int optional = 0;
		const Onnx__ValueInfoProto *vi = OnnxSession_Input(s, i, &optional);
		OnnxValue *v = vi && vi->name ? input_for(vi, (const uint8_t *)text, size) : NULL;
		if (!v)
			continue;
		OnnxStatus st = OnnxSession_SetInput(s, vi->name, v, &err);
		if (st != ONNXTXT_OK)
			check_error(st, &err, "SetInput", 1);
		OnnxValue_Free(v);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_TEXT)
		return 0;
	const char *text = (const char *)data;
	Onnx__ModelProto *m = NULL;
	OnnxError err;
	if (OnnxParser_Parse(text, size, &m, &err) != ONNXTXT_OK)
		return 0;
	OnnxSession *s = NULL;
	OnnxStatus st = OnnxSession_New(m, &s, &err);
	if (st == ONNXTXT_OK) {
		FZ_CHECK(OnnxSession_SetMaxMemory(s, RUN_MEMORY, &err) == ONNXTXT_OK, "%s", err.message);
		FZ_CHECK(OnnxSession_SetTimeout(s, RUN_SECONDS, &err) == ONNXTXT_OK, "%s", err.message);
		bind_inputs(s, text, size);
		st = OnnxSession_Run(s, &err);
		if (st == ONNXTXT_OK) {
			for (size_t i = 0; i < OnnxSession_OutputCount(s); i++) {
				const OnnxValue *v = OnnxSession_Output(s, i);
				FZ_CHECK(v, "output %zu missing after a successful run", i);
				char *printed = NULL;
				st = OnnxValue_Print(v, &printed, NULL, &err);
				FZ_CHECK(st == ONNXTXT_OK, "printing output %zu: %s", i, err.message);
				free(printed);
			}
		} else {
			check_error(st, &err, "Run", 0);
		}
		OnnxSession_Free(s);
	} else {
		check_error(st, &err, "Session_New", 0);
	}
	OnnxProto_Free(m);
	return 0;
}
