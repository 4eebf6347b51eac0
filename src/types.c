/* The element-type and attribute-type tables: one each, so that the parser, the printer,
 * the checker, the evaluator and external data cannot drift apart. */
#include "types.h"

#include <string.h>
#include <strings.h>

#include "onnx.pb-c.h"

static const ox_float_format f16 = {5, 10, 15, -14, true, true, OX_NAN_IEEE, 0x7e00, 65504.0},
			     bf16 = {8, 7, 127, -126, true, true, OX_NAN_IEEE, 0x7fc0, 0x1.fep127},
			     e4m3fn = {4, 3, 7, -6, true, true, OX_NAN_ALL_ONES, 0x7f, 448.0},
			     e4m3fnuz = {4, 3, 8, -7, true, true, OX_NAN_FNUZ, 0x80, 240.0},
			     e5m2 = {5, 2, 15, -14, true, true, OX_NAN_IEEE, 0x7e, 57344.0},
			     e5m2fnuz = {5, 2, 16, -15, true, true, OX_NAN_FNUZ, 0x80, 57344.0},
			     e8m0 = {8, 0, 127, -127, false, false, OX_NAN_ALL_ONES, 0xff, 0x1p127},
			     e2m1 = {2, 1, 1, 0, true, true, OX_NAN_NONE, 0, 6.0};

#define F(x) OX_FIELD_##x
#define C(x) OX_CLASS_##x
static const ox_elem_type elems[OX_NTYPES] = {
	/*                 name              bits size field      class        narrow */
	[OX_FLOAT] =          {"float",          32, 4, F(FLOAT),  C(FLOAT),    NULL},
	[OX_UINT8] =          {"uint8",           8, 1, F(INT32),  C(UNSIGNED), NULL},
	[OX_INT8] =           {"int8",            8, 1, F(INT32),  C(SIGNED),   NULL},
	[OX_UINT16] =         {"uint16",         16, 2, F(INT32),  C(UNSIGNED), NULL},
	[OX_INT16] =          {"int16",          16, 2, F(INT32),  C(SIGNED),   NULL},
	[OX_INT32] =          {"int32",          32, 4, F(INT32),  C(SIGNED),   NULL},
	[OX_INT64] =          {"int64",          64, 8, F(INT64),  C(SIGNED),   NULL},
	[OX_STRING] =         {"string",          0, sizeof(ox_str), F(STRING), C(STRING), NULL},
	[OX_BOOL] =           {"bool",            8, 1, F(INT32),  C(BOOL),     NULL},
	[OX_FLOAT16] =        {"float16",        16, 2, F(INT32),  C(FLOAT),    &f16},
	[OX_DOUBLE] =         {"double",         64, 8, F(DOUBLE), C(FLOAT),    NULL},
	[OX_UINT32] =         {"uint32",         32, 4, F(UINT64), C(UNSIGNED), NULL},
	[OX_UINT64] =         {"uint64",         64, 8, F(UINT64), C(UNSIGNED), NULL},
	[OX_COMPLEX64] =      {"complex64",      64, 8, F(FLOAT),  C(COMPLEX),  NULL},
	[OX_COMPLEX128] =     {"complex128",    128, 16, F(DOUBLE), C(COMPLEX), NULL},
	[OX_BFLOAT16] =       {"bfloat16",       16, 2, F(INT32),  C(FLOAT),    &bf16},
	[OX_FLOAT8E4M3FN] =   {"float8e4m3fn",    8, 1, F(INT32),  C(FLOAT),    &e4m3fn},
	[OX_FLOAT8E4M3FNUZ] = {"float8e4m3fnuz",  8, 1, F(INT32),  C(FLOAT),    &e4m3fnuz},
	[OX_FLOAT8E5M2] =     {"float8e5m2",      8, 1, F(INT32),  C(FLOAT),    &e5m2},
	[OX_FLOAT8E5M2FNUZ] = {"float8e5m2fnuz",  8, 1, F(INT32),  C(FLOAT),    &e5m2fnuz},
	[OX_UINT4] =          {"uint4",           4, 1, F(INT32),  C(UNSIGNED), NULL},
	[OX_INT4] =           {"int4",            4, 1, F(INT32),  C(SIGNED),   NULL},
	[OX_FLOAT4E2M1] =     {"float4e2m1",      4, 1, F(INT32),  C(FLOAT),    &e2m1},
	[OX_FLOAT8E8M0] =     {"float8e8m0",      8, 1, F(INT32),  C(FLOAT),    &e8m0},
	[OX_UINT2] =          {"uint2",           2, 1, F(INT32),  C(UNSIGNED), NULL},
	[OX_INT2] =           {"int2",            2, 1, F(INT32),  C(SIGNED),   NULL},
};
#undef F
#undef C

static const struct {
	const char *name;
	size_t size;
} fields[OX_NFIELDS] = {
	[OX_FIELD_INT32] = {"int32_data", sizeof(int32_t)}, [OX_FIELD_INT64] = {"int64_data", sizeof(int64_t)},
	[OX_FIELD_UINT64] = {"uint64_data", sizeof(uint64_t)}, [OX_FIELD_FLOAT] = {"float_data", sizeof(float)},
	[OX_FIELD_DOUBLE] = {"double_data", sizeof(double)},
	[OX_FIELD_STRING] = {"string_data", sizeof(ProtobufCBinaryData)},
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

const ox_elem_type *ox_elem(int dtype)
{
	return dtype > 0 && dtype < OX_NTYPES ? &elems[dtype] : NULL;
}

const char *ox_elem_name(int dtype)
{
	const ox_elem_type *e = ox_elem(dtype);
	return e ? e->name : NULL;
}

const char *ox_elem_label(int dtype)
{
	const ox_elem_type *e = ox_elem(dtype);
	return e ? e->name : dtype == OX_UNDEFINED ? "undefined" : "unknown";
}

static int same(const char *name, const char *s, size_t n)
{
	return name && strlen(name) == n && memcmp(name, s, n) == 0;
}

int ox_elem_lookup(const char *s, size_t n)
{
	for (int t = 1; t < OX_NTYPES; t++)
		if (same(elems[t].name, s, n))
			return t;
	return 0;
}

int ox_elem_lookup_enum(const char *s, size_t n)
{
	for (int t = 1; t < OX_NTYPES; t++)
		if (elems[t].name && strlen(elems[t].name) == n && strncasecmp(elems[t].name, s, n) == 0)
			return t;
	return 0;
}

int ox_elem_bits(int dtype)
{
	const ox_elem_type *e = ox_elem(dtype);
	return e ? e->bits : 0;
}

size_t ox_elem_size(int dtype)
{
	const ox_elem_type *e = ox_elem(dtype);
	return e ? e->size : 0;
}

bool ox_elem_is_float(int dtype)
{
	const ox_elem_type *e = ox_elem(dtype);
	return e && e->cls == OX_CLASS_FLOAT;
}

bool ox_elem_is_int(int dtype)
{
	const ox_elem_type *e = ox_elem(dtype);
	return e && (e->cls == OX_CLASS_SIGNED || e->cls == OX_CLASS_UNSIGNED);
}

const ox_float_format *ox_elem_narrow(int dtype)
{
	const ox_elem_type *e = ox_elem(dtype);
	return e ? e->narrow : NULL;
}

enum ox_field ox_elem_field(int dtype)
{
	const ox_elem_type *e = ox_elem(dtype);
	return e ? (enum ox_field)e->field : OX_FIELD_INT32;
}

const char *ox_field_name(enum ox_field f)
{
	return fields[f].name;
}

size_t ox_field_entry_size(enum ox_field f)
{
	return fields[f].size;
}

/* The count and the values of field f of t, through one switch for reading and writing. */
static void field_refs(const Onnx__TensorProto *t, enum ox_field f, size_t **n, void ***data)
{
	Onnx__TensorProto *w = (Onnx__TensorProto *)t;
	switch (f) {
	case OX_FIELD_INT32: *n = &w->n_int32_data; *data = (void **)&w->int32_data; return;
	case OX_FIELD_INT64: *n = &w->n_int64_data; *data = (void **)&w->int64_data; return;
	case OX_FIELD_UINT64: *n = &w->n_uint64_data; *data = (void **)&w->uint64_data; return;
	case OX_FIELD_FLOAT: *n = &w->n_float_data; *data = (void **)&w->float_data; return;
	case OX_FIELD_DOUBLE: *n = &w->n_double_data; *data = (void **)&w->double_data; return;
	default: *n = &w->n_string_data; *data = (void **)&w->string_data; return;
	}
}

size_t ox_field_count(const Onnx__TensorProto *t, enum ox_field f)
{
	size_t *n;
	void **data;
	field_refs(t, f, &n, &data);
	return *n;
}

const void *ox_field_data(const Onnx__TensorProto *t, enum ox_field f)
{
	size_t *n;
	void **data;
	field_refs(t, f, &n, &data);
	return *data;
}

void ox_field_set(Onnx__TensorProto *t, enum ox_field f, size_t count, void *values)
{
	size_t *n;
	void **data;
	field_refs(t, f, &n, &data);
	*n = count;
	*data = values;
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
