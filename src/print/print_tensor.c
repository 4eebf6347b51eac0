/* Tensor data as text: values from whichever field holds them (typed field or raw_data,
 * sub-byte types unpacked, complex as pairs), checked first so that the parser will
 * rebuild exactly the same field from the text. Nothing ever prints as "...". */
#include "print.h"

#include <math.h>
#include <stdlib.h>

#include "literal.h"
#include "types.h"


/* Values of the data type, twice as many for complex; SIZE_MAX when the dims cannot
 * hold data (negative) or overflow. */
static size_t value_count(const Onnx__TensorProto *t)
{
	uint64_t n = 1;
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0 || (t->dims[i] && n > UINT64_MAX / (uint64_t)t->dims[i]))
			return SIZE_MAX;
		n *= (uint64_t)t->dims[i];
	}
	if (t->data_type == OX_COMPLEX64 || t->data_type == OX_COMPLEX128)
		n *= 2;
	return n > SIZE_MAX / 16 ? SIZE_MAX : (size_t)n;
}

static int bits_of(const Onnx__TensorProto *t)
{
	int bits = ox_elem_bits(t->data_type);
	if (t->data_type == OX_COMPLEX64 || t->data_type == OX_COMPLEX128)
		bits /= 2;
	return bits;
}

/* Bytes of raw data, or entries of int32_data for sub-byte types, that n values take
 * (strings have no width: one entry each). */
static size_t packed_count(int bits, size_t n)
{
	return bits > 0 && bits < 8 ? (n * (size_t)bits + 7) / 8 : n;
}

static size_t typed_count(const Onnx__TensorProto *t)
{
	size_t n = 0;
	for (int f = 0; f < OX_NFIELDS; f++)
		n += ox_field_count(t, f);
	return n;
}

/* How many entries the field the parser fills for the data type holds. */
static size_t own_field_count(const Onnx__TensorProto *t)
{
	return ox_field_count(t, ox_elem_field(t->data_type));
}

/* Raw values as the parser would store them in int32_data (sign-extended where the type
 * is signed); for 4- and 2-bit types, a packed byte per entry. */
static int64_t raw_int(const Onnx__TensorProto *t, size_t i)
{
	const uint8_t *r = t->raw_data.data;
	switch (t->data_type) {
	case OX_INT8: return (int8_t)r[i];
	case OX_INT16: return (int16_t)(r[2 * i] | r[2 * i + 1] << 8);
	case OX_UINT16: case OX_FLOAT16: case OX_BFLOAT16: return (uint16_t)(r[2 * i] | r[2 * i + 1] << 8);
	case OX_INT32: {
		uint32_t v = (uint32_t)r[4 * i] | (uint32_t)r[4 * i + 1] << 8 | (uint32_t)r[4 * i + 2] << 16 |
			     (uint32_t)r[4 * i + 3] << 24;
		return (int32_t)v;
	}
	default: return r[i]; /* one byte: uint8, bool, float8, packed sub-byte values */
	}
}

/* Entry i of the int32_data view, from whichever field holds it. */
static int64_t int32_view(const Onnx__TensorProto *t, size_t i)
{
	return t->n_int32_data ? t->int32_data[i] : raw_int(t, i);
}

/* Whether every int32_data entry lies where the parser can produce it. */
static bool int32_entries_ok(const Onnx__TensorProto *t, size_t entries, size_t n)
{
	int bits = bits_of(t);
	int64_t lo = 0, hi;
	if (bits < 8) {
		hi = 255;
	} else if (t->data_type == OX_INT8 || t->data_type == OX_INT16 || t->data_type == OX_INT32) {
		lo = -(INT64_C(1) << (bits - 1));
		hi = (INT64_C(1) << (bits - 1)) - 1;
	} else {
		hi = t->data_type == OX_BOOL ? 1 : (INT64_C(1) << bits) - 1;
	}
	for (size_t i = 0; i < entries; i++) {
		int64_t v = int32_view(t, i);
		if (v < lo || v > hi)
			return false;
	}
	/* unused high bits of the last packed byte must be zero, as the parser writes them */
	if (bits < 8 && entries && (n * (size_t)bits) % 8)
		return (int32_view(t, entries - 1) >> ((n * (size_t)bits) % 8)) == 0;
	return true;
}

bool ox_float_exact(float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	return v == v || (bits & 0x7fffffffu) == 0x7fc00000u;
}

bool ox_double_exact(double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	return v == v || (bits & ~(1ull << 63)) == 0x7ff8000000000000ull;
}

static float float_at(const Onnx__TensorProto *t, size_t i);
static double double_at(const Onnx__TensorProto *t, size_t i);

/* Float data whose NaNs would not survive as text. */
static bool floats_exact(const Onnx__TensorProto *t, size_t n)
{
	bool dbl = t->data_type == OX_DOUBLE || t->data_type == OX_COMPLEX128;
	if (!dbl && t->data_type != OX_FLOAT && t->data_type != OX_COMPLEX64)
		return true;
	for (size_t i = 0; i < n; i++)
		if (dbl ? !ox_double_exact(double_at(t, i)) : !ox_float_exact(float_at(t, i)))
			return false;
	return true;
}

bool ox_entries_plain(size_t n, Onnx__StringStringEntryProto *const *e)
{
	for (size_t i = 0; i < n; i++)
		if (!e[i]->key || !e[i]->value || e[i]->base.n_unknown_fields)
			return false;
	return true;
}

enum ox_data_kind ox_tensor_data_kind(const Onnx__TensorProto *t)
{
	if (!t->has_data_type || !ox_elem_name(t->data_type))
		return OX_DATA_OTHER;
	bool external = t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	size_t typed = typed_count(t);
	if (external)
		return t->n_external_data && !typed && !t->has_raw_data &&
				       ox_entries_plain(t->n_external_data, t->external_data)
			       ? OX_DATA_EXTERNAL
			       : OX_DATA_OTHER;
	if (t->n_external_data || t->has_data_location) /* an explicit DEFAULT too */
		return OX_DATA_OTHER;
	size_t n = value_count(t);
	if (!typed && !t->has_raw_data) /* "{}" says no data as well, where it is complete */
		return n == 0 ? OX_DATA_TYPED : OX_DATA_NONE;
	int bits = bits_of(t);
	if (n == SIZE_MAX || (typed && t->has_raw_data))
		return OX_DATA_OTHER;
	if (t->has_raw_data) {
		if (t->data_type == OX_STRING || t->raw_data.len != packed_count(bits, n) * (bits < 8 ? 1 : (size_t)bits / 8))
			return OX_DATA_OTHER;
	} else if (own_field_count(t) != typed || typed != packed_count(bits, n)) {
		return OX_DATA_OTHER;
	}
	bool int32 = t->data_type != OX_FLOAT && t->data_type != OX_COMPLEX64 && t->data_type != OX_DOUBLE &&
		     t->data_type != OX_COMPLEX128 && t->data_type != OX_INT64 && t->data_type != OX_UINT32 &&
		     t->data_type != OX_UINT64 && t->data_type != OX_STRING;
	if (int32 && !int32_entries_ok(t, packed_count(bits, n), n))
		return OX_DATA_OTHER;
	if (t->data_type == OX_UINT32 && !t->has_raw_data)
		for (size_t i = 0; i < t->n_uint64_data; i++)
			if (t->uint64_data[i] > UINT32_MAX)
				return OX_DATA_OTHER;
	if (!floats_exact(t, n))
		return OX_DATA_OTHER;
	return t->has_raw_data ? OX_DATA_RAW : OX_DATA_TYPED;
}

/* ---- values ------------------------------------------------------------------------- */

static uint64_t raw_u64(const uint8_t *r, size_t width)
{
	uint64_t v = 0;
	for (size_t k = 0; k < width; k++)
		v |= (uint64_t)r[k] << (8 * k);
	return v;
}

static float float_at(const Onnx__TensorProto *t, size_t i)
{
	if (!t->has_raw_data)
		return t->float_data[i];
	uint32_t bits = (uint32_t)raw_u64(t->raw_data.data + 4 * i, 4);
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

static double double_at(const Onnx__TensorProto *t, size_t i)
{
	if (!t->has_raw_data)
		return t->double_data[i];
	uint64_t bits = raw_u64(t->raw_data.data + 8 * i, 8);
	double d;
	memcpy(&d, &bits, 8);
	return d;
}

/* Value i of a 4- or 2-bit type, unpacked (the first value in the low bits). */
static int64_t subbyte_at(const Onnx__TensorProto *t, size_t i, int bits)
{
	size_t per = 8 / (size_t)bits;
	uint32_t byte = (uint32_t)int32_view(t, i / per);
	uint32_t v = byte >> (i % per * (size_t)bits) & ((1u << bits) - 1);
	bool is_signed = t->data_type == OX_INT4 || t->data_type == OX_INT2;
	return is_signed && (v >> (bits - 1)) ? (int64_t)v - (1 << bits) : (int64_t)v;
}

/* A narrow float as a decimal number, or as its bit pattern where the number would not
 * read back to the same bits (NaN payloads). */
/* A narrow float as the shortest decimal literal that reads back to its bits (at most 9
 * digits for these widths; integers in full), or the bit pattern when no literal does
 * (NaN payloads). */
static void narrow_value(ox_out *o, int dtype, uint32_t bits)
{
	double d = ox_narrow_to_double(dtype, bits);
	uint32_t back;
	char tmp[40];
	if (d != d) {
		int n = snprintf(tmp, sizeof tmp, "%snan", signbit(d) ? "-" : "");
		if (ox_parse_narrow_float(dtype, tmp, (size_t)n, &back) == OX_NUM_OK && back == bits)
			ox_put(o, tmp, (size_t)n);
		else
			ox_put_uint(o, bits);
		return;
	}
	if (d == 0 || isinf(d) || (d == floor(d) && fabs(d) < 0x1p24)) { /* "448.0", not "4.5e+02" */
		ox_put_double(o, d, true);
		return;
	}
	for (int digits = 1; digits <= 9; digits++) {
		int n = snprintf(tmp, sizeof tmp, "%.*g", digits, d);
		if (ox_parse_narrow_float(dtype, tmp, (size_t)n, &back) == OX_NUM_OK && back == bits) {
			ox_put(o, tmp, (size_t)n);
			if (!strpbrk(tmp, ".e"))
				ox_put(o, ".0", 2); /* a FLOAT literal, not an INT bit pattern */
			return;
		}
	}
	ox_put_double(o, d, true);
}

static void value_at(ox_out *o, const Onnx__TensorProto *t, size_t i)
{
	int dtype = t->data_type;
	bool literals = o->flags & ONNXTXT_PRINT_FLOAT_LITERALS;
	switch (dtype) {
	case OX_FLOAT: case OX_COMPLEX64: ox_put_float(o, float_at(t, i), false); return;
	case OX_DOUBLE: case OX_COMPLEX128: ox_put_double(o, double_at(t, i), false); return;
	case OX_INT64:
		ox_put_int(o, t->has_raw_data ? (int64_t)raw_u64(t->raw_data.data + 8 * i, 8) : t->int64_data[i]);
		return;
	case OX_UINT32: case OX_UINT64: {
		size_t w = dtype == OX_UINT32 ? 4 : 8;
		ox_put_uint(o, t->has_raw_data ? raw_u64(t->raw_data.data + w * i, w) : t->uint64_data[i]);
		return;
	}
	case OX_STRING: ox_put_string(o, (const char *)t->string_data[i].data, t->string_data[i].len); return;
	}
	int bits = bits_of(t);
	int64_t v = bits < 8 ? subbyte_at(t, i, bits) : int32_view(t, i);
	if (literals && ox_elem_narrow(dtype))
		narrow_value(o, dtype, (uint32_t)v);
	else
		ox_put_int(o, v);
}

/* "{v, v, ...}", filled up to OX_WIDTH columns with continuation lines indented. */
void ox_print_tensor_values(ox_out *o, const Onnx__TensorProto *t)
{
	size_t n = value_count(t);
	size_t brace = o->flushed + o->len; /* a line starting after it: the values wrapped */
	ox_putc(o, '{');
	o->indent += 2;
	for (size_t i = 0; i < n && !o->failed; i++) {
		ox_item it = ox_item_begin(o, i == 0);
		value_at(o, t, i);
		ox_item_end(o, it);
	}
	o->indent -= 2;
	if (o->line > brace) /* the brace closes on its own line */
		ox_newline(o);
	ox_putc(o, '}');
}
