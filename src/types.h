/* The one table of element-type and attribute-type names, shared by parser and printer. */
#ifndef OX_TYPES_H
#define OX_TYPES_H

#include <stddef.h>

#define OX_MAX_ELEM_TYPE 26 /* INT2 */
#define OX_MAX_ATTR_TYPE 14 /* TYPE_PROTOS */

/* Element type (TensorProto.DataType) <-> name; NULL / 0 when unknown. */
const char *ox_elem_name(int dtype);
int ox_elem_lookup(const char *s, size_t n);

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

/* Bits per element for fixed-width types (4 for int4, 2 for int2, 128 for complex128),
 * 0 for string and unknown types. */
int ox_elem_bits(int dtype);

#endif
