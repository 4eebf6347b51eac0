/* Element-type and attribute-type names: one table each, so the parser, the printer
 * and the lexer's keyword test cannot drift apart. */
#include "types.h"

#include <string.h>

#include "onnx.pb-c.h"

static const char *const elem_names[OX_MAX_ELEM_TYPE + 1] = {
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT] = "float",
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT8] = "uint8",
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT8] = "int8",
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT16] = "uint16",
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT16] = "int16",
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT32] = "int32",
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT64] = "int64",
	[ONNX__TENSOR_PROTO__DATA_TYPE__STRING] = "string",
	[ONNX__TENSOR_PROTO__DATA_TYPE__BOOL] = "bool",
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16] = "float16",
	[ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE] = "double",
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT32] = "uint32",
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT64] = "uint64",
	[ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64] = "complex64",
	[ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128] = "complex128",
	[ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16] = "bfloat16",
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E4M3FN] = "float8e4m3fn",
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E4M3FNUZ] = "float8e4m3fnuz",
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E5M2] = "float8e5m2",
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E5M2FNUZ] = "float8e5m2fnuz",
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT4] = "uint4",
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT4] = "int4",
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT4E2M1] = "float4e2m1",
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E8M0] = "float8e8m0",
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT2] = "uint2",
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT2] = "int2",
};

static const unsigned char elem_bits[OX_MAX_ELEM_TYPE + 1] = {
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT] = 32,
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT8] = 8,
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT8] = 8,
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT16] = 16,
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT16] = 16,
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT32] = 32,
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT64] = 64,
	[ONNX__TENSOR_PROTO__DATA_TYPE__BOOL] = 8,
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16] = 16,
	[ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE] = 64,
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT32] = 32,
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT64] = 64,
	[ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64] = 64,
	[ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128] = 128,
	[ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16] = 16,
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E4M3FN] = 8,
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E4M3FNUZ] = 8,
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E5M2] = 8,
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E5M2FNUZ] = 8,
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT4] = 4,
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT4] = 4,
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT4E2M1] = 4,
	[ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E8M0] = 8,
	[ONNX__TENSOR_PROTO__DATA_TYPE__UINT2] = 2,
	[ONNX__TENSOR_PROTO__DATA_TYPE__INT2] = 2,
};

/* Indexed by AttributeProto.AttributeType: annotation name, enum spelling. */
static const struct {
	const char *name, *spelling;
} attr_types[OX_MAX_ATTR_TYPE + 1] = {
	[0] = {NULL, "UNDEFINED"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT] = {"float", "FLOAT"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT] = {"int", "INT"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING] = {"string", "STRING"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR] = {"tensor", "TENSOR"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH] = {"graph", "GRAPH"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS] = {"floats", "FLOATS"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS] = {"ints", "INTS"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS] = {"strings", "STRINGS"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS] = {"tensors", "TENSORS"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS] = {"graphs", "GRAPHS"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR] = {"sparse_tensor", "SPARSE_TENSOR"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS] = {"sparse_tensors", "SPARSE_TENSORS"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO] = {"type_proto", "TYPE_PROTO"},
	[ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS] = {"type_protos", "TYPE_PROTOS"},
};

/* singular <-> list pairs */
static const int attr_pairs[][2] = {
	{ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS},
	{ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS},
	{ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS},
	{ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS},
	{ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS},
	{ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS},
	{ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS},
};

const char *ox_elem_name(int dtype)
{
	return dtype > 0 && dtype <= OX_MAX_ELEM_TYPE ? elem_names[dtype] : NULL;
}

static int same(const char *name, const char *s, size_t n)
{
	return name && strlen(name) == n && memcmp(name, s, n) == 0;
}

int ox_elem_lookup(const char *s, size_t n)
{
	for (int t = 1; t <= OX_MAX_ELEM_TYPE; t++)
		if (same(elem_names[t], s, n))
			return t;
	return 0;
}

int ox_elem_bits(int dtype)
{
	return dtype > 0 && dtype <= OX_MAX_ELEM_TYPE ? elem_bits[dtype] : 0;
}

const char *ox_attr_type_name(int type)
{
	return type >= 0 && type <= OX_MAX_ATTR_TYPE ? attr_types[type].name : NULL;
}

const char *ox_attr_type_enum(int type)
{
	return type >= 0 && type <= OX_MAX_ATTR_TYPE ? attr_types[type].spelling : "UNKNOWN";
}

int ox_attr_type_lookup(const char *s, size_t n)
{
	for (int t = 1; t <= OX_MAX_ATTR_TYPE; t++)
		if (same(attr_types[t].name, s, n))
			return t;
	return -1;
}

int ox_attr_singular(int type)
{
	for (size_t i = 0; i < sizeof attr_pairs / sizeof attr_pairs[0]; i++)
		if (attr_pairs[i][1] == type)
			return attr_pairs[i][0];
	return type;
}

int ox_attr_plural(int type)
{
	for (size_t i = 0; i < sizeof attr_pairs / sizeof attr_pairs[0]; i++)
		if (attr_pairs[i][0] == type)
			return attr_pairs[i][1];
	return type;
}

int ox_attr_is_list(int type)
{
	return ox_attr_singular(type) != type;
}
