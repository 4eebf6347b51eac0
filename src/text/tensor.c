/* Tensor constants: initializers and tensor-valued attributes. Values are converted
 * straight into the typed field of their element type as they are read, then checked
 * against the shape and, for 4- and 2-bit types, packed as the ONNX spec requires. */
#include "build.h"

#include <stdlib.h>
#include <string.h>

#include "literal.h"
#include "tensor.h"
#include "onnx.h"
#include "types.h"

/* Range of INT literals for the types stored in int32_data. Narrow floats take their bit
 * pattern, as in the reference. */
static void int_range(int dtype, int64_t *lo, int64_t *hi)
{
	int bits = ox_elem_bits(dtype);
	switch (dtype) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT4:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT2:
		*lo = -(INT64_C(1) << (bits - 1));
		*hi = (INT64_C(1) << (bits - 1)) - 1;
		return;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
		*lo = 0;
		*hi = 1;
		return;
	default: /* unsigned integers and bit patterns */
		*lo = 0;
		*hi = (INT64_C(1) << bits) - 1;
		return;
	}
}

static void check_tensor_type(ox_parser *P, const Onnx__TypeProto *tp, const ox_tok *at)
{
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		ox_fail(P, at, ONNXTXT_ERR_VALUE, "a tensor constant needs a tensor type such as 'float[2]'");
	const Onnx__TensorShapeProto *s = tp->tensor_type->shape;
	if (!s)
		ox_fail(P, at, ONNXTXT_ERR_VALUE,
			"a tensor constant needs a known shape; '[]' leaves the rank unknown");
	for (size_t i = 0; i < s->n_dim; i++)
		if (s->dim[i]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			ox_fail(P, at, ONNXTXT_ERR_VALUE,
				"a tensor constant needs numeric dimensions; dimension %zu is symbolic", i + 1);
}

static Onnx__TensorProto *new_tensor(ox_parser *P, const Onnx__TypeProto *tp, const ox_tok *at, char *name)
{
	check_tensor_type(P, tp, at);
	const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
	Onnx__TensorProto *t = ox_new(P, &onnx__tensor_proto__descriptor);
	t->name = name;
	t->has_data_type = 1;
	t->data_type = tt->elem_type;
	t->n_dims = tt->shape->n_dim;
	if (t->n_dims) {
		t->dims = ox_alloc(P, t->n_dims * sizeof *t->dims);
		for (size_t i = 0; i < t->n_dims; i++)
			t->dims[i] = tt->shape->dim[i]->dim_value;
	}
	P->td.t = t;
	return t;
}

/* Errors point at the value info's type, or at its name when it has none. */
Onnx__TensorProto *ox_init_begin(ox_parser *P, Onnx__ValueInfoProto *vi, ox_tok eq)
{
	(void)eq;
	if (!vi->type)
		ox_fail(P, &P->last_vi_type, ONNXTXT_ERR_VALUE,
			"initializer '%s' needs a type, such as 'float[2] %s = {...}'", vi->name, vi->name);
	Onnx__TensorProto *t = new_tensor(P, vi->type, &P->last_vi_type, vi->name);
	if (P->spans && P->spans->n && P->spans->v[P->spans->n - 1].msg == vi) {
		ox_span at = P->spans->v[P->spans->n - 1]; /* the initializer is where its name is */
		ox_span_add(P, t, P->src + at.start, P->src + at.end);
	}
	return t;
}

ox_value ox_tensor_begin(ox_parser *P, const ox_type *type, const ox_tok *name)
{
	ox_value v = {OX_V_TENSOR, type->at, NULL};
	v.msg = new_tensor(P, type->tp, &type->at, name ? ox_name(P, *name) : "");
	return v;
}

/* ---- values ---------------------------------------------------------------------- */

void ox_tdata_open(ox_parser *P, ox_tok brace)
{
	ox_tdata *td = &P->td;
	td->open = brace;
	td->n = 0;
	td->field = ox_elem_field(td->t->data_type);
	td->elem_size = ox_field_entry_size(td->field);
}

static void *next_slot(ox_parser *P)
{
	ox_tdata *td = &P->td;
	if ((td->n + 1) * td->elem_size > td->cap) {
		size_t cap = td->cap ? td->cap * 2 : 4096;
		void *buf = realloc(td->buf, cap);
		if (!buf)
			ox_fail_memory(P);
		td->buf = buf;
		td->cap = cap;
	}
	return (char *)td->buf + td->n++ * td->elem_size;
}

static _Noreturn void wrong_literal(ox_parser *P, const ox_tok *lit, const char *want, int dtype)
{
	ox_fail(P, lit, ONNXTXT_ERR_VALUE, "expected %s in %s data, found %.*s", want, ox_elem_label(dtype),
		(int)(lit->n > 40 ? 40 : lit->n), lit->p);
}

static _Noreturn void out_of_range(ox_parser *P, const ox_tok *lit, int dtype)
{
	ox_fail(P, lit, ONNXTXT_ERR_VALUE, "value %.*s is out of range for %s", (int)(lit->n > 40 ? 40 : lit->n),
		lit->p, ox_elem_label(dtype));
}

static int32_t int32_value(ox_parser *P, int dtype, int code, const ox_tok *lit)
{
	if (code == TK_FLOAT && ox_elem_narrow(dtype)) {
		uint32_t bits;
		if (ox_parse_narrow_float(dtype, lit->p, lit->n, &bits) != OX_NUM_OK)
			out_of_range(P, lit, dtype);
		return (int32_t)bits;
	}
	if (code != TK_INT)
		wrong_literal(P, lit, ox_elem_narrow(dtype) ? "a number" : "an integer", dtype);
	int64_t v, lo, hi;
	int_range(dtype, &lo, &hi);
	bool in_range = ox_parse_i64(lit->p, lit->n, &v) == OX_NUM_OK && v >= lo && v <= hi;
	if (!in_range && ox_elem_narrow(dtype))
		ox_fail(P, lit, ONNXTXT_ERR_VALUE,
			"integer %.*s is read as a %s bit pattern, which must lie in 0..%lld; write %.*s.0 for the number",
			(int)lit->n, lit->p, ox_elem_label(dtype), (long long)hi, (int)lit->n, lit->p);
	if (!in_range)
		out_of_range(P, lit, dtype);
	return (int32_t)v;
}

bool ox_tdata_floats(const ox_parser *P)
{
	return P->td.field == OX_FIELD_FLOAT;
}

void ox_tdata_float(ox_parser *P, float v)
{
	*(float *)next_slot(P) = v;
}

void ox_tdata_value(ox_parser *P, int code, ox_tok lit)
{
	int dtype = P->td.t->data_type;
	enum ox_field f = P->td.field;
	if (f == OX_FIELD_FLOAT && code != TK_STRING) { /* the common case first */
		if (ox_parse_float(lit.p, lit.n, next_slot(P)) != OX_NUM_OK)
			out_of_range(P, &lit, dtype);
		return;
	}
	if ((f == OX_FIELD_STRING) != (code == TK_STRING))
		wrong_literal(P, &lit, f == OX_FIELD_STRING ? "a string" : "a number", dtype);
	void *slot = next_slot(P);
	switch (f) {
	case OX_FIELD_INT32:
		*(int32_t *)slot = int32_value(P, dtype, code, &lit);
		break;
	case OX_FIELD_INT64:
		if (code != TK_INT)
			wrong_literal(P, &lit, "an integer", dtype);
		if (ox_parse_i64(lit.p, lit.n, slot) != OX_NUM_OK)
			out_of_range(P, &lit, dtype);
		break;
	case OX_FIELD_UINT64:
		if (code != TK_INT)
			wrong_literal(P, &lit, "an integer", dtype);
		if (ox_parse_u64(lit.p, lit.n, slot) != OX_NUM_OK ||
		    (dtype == ONNX__TENSOR_PROTO__DATA_TYPE__UINT32 && *(uint64_t *)slot > UINT32_MAX))
			out_of_range(P, &lit, dtype);
		break;
	case OX_FIELD_FLOAT:
		if (ox_parse_float(lit.p, lit.n, slot) != OX_NUM_OK)
			out_of_range(P, &lit, dtype);
		break;
	case OX_FIELD_DOUBLE:
		if (ox_parse_double(lit.p, lit.n, slot) != OX_NUM_OK)
			out_of_range(P, &lit, dtype);
		break;
	case OX_FIELD_STRING:
		*(ProtobufCBinaryData *)slot = ox_bytes(P, lit);
		break;
	}
}

/* ---- closing ------------------------------------------------------------------------ */

static void check_count(ox_parser *P, const Onnx__TensorProto *t, size_t n)
{
	uint64_t want = 1;
	bool empty = false;
	for (size_t i = 0; i < t->n_dims; i++)
		empty |= t->dims[i] == 0;
	for (size_t i = 0; i < t->n_dims && !empty; i++) {
		if (t->dims[i] < 0)
			ox_fail(P, &P->td.open, ONNXTXT_ERR_VALUE, "a tensor with data cannot have negative dimension %lld",
				(long long)t->dims[i]);
		if (t->dims[i] && want > UINT64_MAX / (uint64_t)t->dims[i])
			ox_fail(P, &P->td.open, ONNXTXT_ERR_VALUE, "the tensor's shape has too many elements");
		want *= (uint64_t)t->dims[i];
	}
	if (empty)
		want = 0;
	int complex = t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64 ||
		      t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128;
	if (complex)
		want *= 2;
	if (n != want)
		ox_fail(P, &P->td.open, ONNXTXT_ERR_VALUE, "the tensor has %zu value%s but its shape needs %llu%s", n,
			n == 1 ? "" : "s", (unsigned long long)want, complex ? " (real, imaginary pairs)" : "");
}

/* Packs 4-bit and 2-bit values, first value in the least significant bits, one byte of
 * values per int32_data entry. */
static size_t pack_subbyte(int32_t *v, size_t n, int bits)
{
	size_t per = 8 / (size_t)bits, words = (n + per - 1) / per;
	uint32_t mask = (1u << bits) - 1;
	for (size_t w = 0; w < words; w++) {
		uint32_t byte = 0;
		for (size_t k = 0; k < per && w * per + k < n; k++)
			byte |= ((uint32_t)v[w * per + k] & mask) << (k * (size_t)bits);
		v[w] = (int32_t)byte;
	}
	return words;
}

void ox_tdata_close(ox_parser *P, ox_tok brace)
{
	(void)brace;
	ox_tdata *td = &P->td;
	Onnx__TensorProto *t = td->t;
	check_count(P, t, td->n);
	size_t n = td->n;
	int bits = ox_elem_bits(t->data_type);
	if (bits < 8 && bits > 0)
		n = pack_subbyte(td->buf, n, bits);
	void *data = n ? ox_arena_memdup(P->arena, td->buf, n * td->elem_size) : NULL;
	if (n && !data)
		ox_fail_memory(P);
	ox_field_set(t, td->field, n, data);
}

void ox_tdata_external(ox_parser *P, size_t mark)
{
	Onnx__TensorProto *t = P->td.t;
	t->has_data_location = 1;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	t->external_data = (Onnx__StringStringEntryProto **)ox_take(P, mark, &t->n_external_data);
}

bool ox_tensor_make_raw(ox_arena *a, Onnx__TensorProto *t)
{
	int bits = ox_elem_bits(t->data_type);
	if (t->n_int32_data) {
		size_t n = t->n_int32_data, width = bits <= 8 ? 1 : (size_t)bits / 8; /* sub-byte: packed bytes */
		unsigned char *r = ox_arena_alloc(a, n * width);
		if (!r)
			return false;
		for (size_t i = 0; i < n; i++)
			memcpy(r + i * width, &t->int32_data[i], width); /* little-endian host */
		t->raw_data = (ProtobufCBinaryData){n * width, r};
		t->n_int32_data = 0;
		t->int32_data = NULL;
	} else if (t->n_uint64_data && t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__UINT32) {
		size_t n = t->n_uint64_data;
		uint32_t *r = ox_arena_alloc(a, n * 4);
		if (!r)
			return false;
		for (size_t i = 0; i < n; i++)
			r[i] = (uint32_t)t->uint64_data[i];
		t->raw_data = (ProtobufCBinaryData){n * 4, (uint8_t *)r};
		t->n_uint64_data = 0;
		t->uint64_data = NULL;
	} else if (!t->n_string_data) {
		/* the same bytes, another field */
		struct { size_t *n; void **v; size_t size; } f[] = {
			{&t->n_float_data, (void **)&t->float_data, 4}, {&t->n_int64_data, (void **)&t->int64_data, 8},
			{&t->n_double_data, (void **)&t->double_data, 8}, {&t->n_uint64_data, (void **)&t->uint64_data, 8}};
		for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
			if (*f[k].n) {
				t->raw_data = (ProtobufCBinaryData){*f[k].n * f[k].size, *f[k].v};
				*f[k].n = 0;
				*f[k].v = NULL;
			}
	} else {
		return true;
	}
	t->has_raw_data = 1;
	return true;
}
