/* The one table of element types (names, widths, storage, the TensorProto field that holds
 * them, narrow-float formats) and of attribute types, shared by every stage. */
#ifndef OX_TYPES_H
#define OX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"

/* Element types are TensorProto.DataType numbers. */
enum {
	OX_UNDEFINED = 0, OX_FLOAT = 1, OX_UINT8 = 2, OX_INT8 = 3, OX_UINT16 = 4, OX_INT16 = 5,
	OX_INT32 = 6, OX_INT64 = 7, OX_STRING = 8, OX_BOOL = 9, OX_FLOAT16 = 10, OX_DOUBLE = 11,
	OX_UINT32 = 12, OX_UINT64 = 13, OX_COMPLEX64 = 14, OX_COMPLEX128 = 15, OX_BFLOAT16 = 16,
	OX_FLOAT8E4M3FN = 17, OX_FLOAT8E4M3FNUZ = 18, OX_FLOAT8E5M2 = 19, OX_FLOAT8E5M2FNUZ = 20,
	OX_UINT4 = 21, OX_INT4 = 22, OX_FLOAT4E2M1 = 23, OX_FLOAT8E8M0 = 24, OX_UINT2 = 25,
	OX_INT2 = 26, OX_NTYPES
};
#define OX_MAX_ELEM_TYPE (OX_NTYPES - 1)
#define OX_MAX_ATTR_TYPE 14 /* TYPE_PROTOS */

/* The repeated TensorProto field that holds values outside raw_data. */
enum ox_field { OX_FIELD_INT32, OX_FIELD_INT64, OX_FIELD_UINT64, OX_FIELD_FLOAT, OX_FIELD_DOUBLE, OX_FIELD_STRING };
#define OX_NFIELDS (OX_FIELD_STRING + 1)

enum ox_elem_class { OX_CLASS_FLOAT, OX_CLASS_SIGNED, OX_CLASS_UNSIGNED, OX_CLASS_BOOL, OX_CLASS_COMPLEX, OX_CLASS_STRING };

/* How a narrow floating-point format (float16, bfloat16, float8*, float4e2m1) encodes
 * NaN, and its layout. */
typedef enum ox_nan_kind {
	OX_NAN_NONE,     /* float4e2m1 */
	OX_NAN_IEEE,     /* all-ones exponent, non-zero mantissa (infinities exist too) */
	OX_NAN_ALL_ONES, /* all bits but the sign set: float8e4m3fn, float8e8m0 */
	OX_NAN_FNUZ      /* the negative-zero pattern 0x80 */
} ox_nan_kind;

typedef struct ox_float_format {
	int ebits, mbits, bias;
	int emin; /* exponent of the smallest normal value */
	bool has_sign, has_subnormal;
	ox_nan_kind nan;
	uint32_t nan_bits; /* the NaN the parser writes */
	double max;        /* largest finite value */
} ox_float_format;

/* A string element in the evaluator's storage: n bytes at p (malloc'd, NUL-terminated for
 * convenience; NULL when n is 0). Strings may hold NUL bytes. */
typedef struct ox_str {
	char *p;
	size_t n;
} ox_str;

typedef struct ox_elem_type {
	const char *name;  /* the syntax's keyword: "float", "int4", ... */
	unsigned char bits; /* packed width: 4 for int4, 128 for complex128, 0 for string */
	/* bytes per element in the evaluator: one element per slot, little endian;
	 * float16/bfloat16 as uint16_t bits; float8 and float4 as one uint8_t of bits;
	 * int4/uint4/int2/uint2 unpacked, one int8_t/uint8_t each; bool as one byte 0/1;
	 * complex as pairs of float/double; strings as ox_str */
	unsigned char size;
	unsigned char field; /* enum ox_field */
	unsigned char cls;   /* enum ox_elem_class */
	const ox_float_format *narrow; /* narrow floats only */
} ox_elem_type;

/* The table's entry for an element type; NULL for UNDEFINED and unknown numbers. */
const ox_elem_type *ox_elem(int dtype);

/* Element type <-> name; NULL / 0 when unknown. */
const char *ox_elem_name(int dtype);
int ox_elem_lookup(const char *s, size_t n);
/* The element type TensorProto's enum spells s ("FLOAT", "BFLOAT16": Cast-1's 'to'), or 0. */
int ox_elem_lookup_enum(const char *s, size_t n);
/* The name for messages: "undefined" for 0, "unknown" for numbers outside the table. */
const char *ox_elem_label(int dtype);
/* Bits per element (ox_elem_type.bits), bytes in the evaluator (ox_elem_type.size); 0
 * for unknown types. */
int ox_elem_bits(int dtype);
size_t ox_elem_size(int dtype);
bool ox_elem_is_float(int dtype); /* float, double and the narrow floats */
bool ox_elem_is_int(int dtype);   /* signed and unsigned integers of every width */
/* The narrow-float format of an element type, or NULL. */
const ox_float_format *ox_elem_narrow(int dtype);

/* The field that holds the values of an element type: ox_elem(dtype)->field, and
 * int32_data (protobuf's first) for unknown types. */
enum ox_field ox_elem_field(int dtype);
/* A TensorProto repeated field: its name, the bytes of one entry, how many entries t holds
 * in it and where; ox_field_set makes it n entries at data. */
const char *ox_field_name(enum ox_field f);
size_t ox_field_entry_size(enum ox_field f);
size_t ox_field_count(const Onnx__TensorProto *t, enum ox_field f);
const void *ox_field_data(const Onnx__TensorProto *t, enum ox_field f);
void ox_field_set(Onnx__TensorProto *t, enum ox_field f, size_t n, void *data);

/* Attribute type <-> annotation name ("float", "ints", ...); NULL / -1 when unknown. */
const char *ox_attr_type_name(int type);
int ox_attr_type_lookup(const char *s, size_t n);
/* Enum spelling used in messages ("INTS", "TYPE_PROTO"). */
const char *ox_attr_type_enum(int type);

/* The singular type of a list type (INTS -> INT), the list type of a singular one
 * (INT -> INTS), and whether a type is a list type. */
int ox_attr_singular(int type);
int ox_attr_plural(int type);
int ox_attr_is_list(int type);

#endif
