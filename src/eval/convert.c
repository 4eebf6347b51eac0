/* Values <-> TensorProto / SequenceProto / OptionalProto. Raw data is little-endian, which
 * is also the host order on every target the evaluator is built for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "kernel.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the evaluator assumes a little-endian host"
#endif

/* The width of a sub-byte type, packed several to a byte; 0 for the others. */
static int sub_bits(int type)
{
	int bits = ox_elem_bits(type);
	return bits < 8 ? bits : 0;
}

/* Unpacks sub-byte elements, first in the low bits, sign-extending signed integers. */
static void unpack_bits(ox_val *v, const uint8_t *src, int bits)
{
	uint8_t *d = v->data;
	int per = 8 / bits, mask = (1 << bits) - 1;
	bool sign = ox_elem(v->type)->cls == OX_CLASS_SIGNED;
	for (int64_t i = 0; i < v->count; i++) {
		int x = (src[i / per] >> ((i % per) * bits)) & mask;
		if (sign && (x >> (bits - 1)))
			x -= 1 << bits;
		d[i] = (uint8_t)x;
	}
}

static bool set_strings(ox_val *v, const Onnx__TensorProto *t, char *msg)
{
	if (t->n_string_data != (size_t)v->count) {
		snprintf(msg, OX_MSG, "tensor '%s' has %zu strings where its shape needs %lld", t->name ? t->name : "",
			 t->n_string_data, (long long)v->count);
		return false;
	}
	ox_str *s = v->data;
	for (size_t i = 0; i < t->n_string_data; i++)
		if (!ox_str_set(&s[i], (const char *)t->string_data[i].data, t->string_data[i].len)) {
			snprintf(msg, OX_MSG, "out of memory");
			return false;
		}
	return true;
}

/* Typed fields: the field for the type, and how many entries the shape needs. */
static bool set_typed(ox_val *v, const Onnx__TensorProto *t, char *msg)
{
	int64_t n = v->count, need = n;
	int bits = sub_bits(v->type);
	size_t have;
	bool cplx = v->type == OX_COMPLEX64 || v->type == OX_COMPLEX128;
	if (bits)
		need = (n * bits + 7) / 8;
	if (cplx)
		need = 2 * n;
	enum ox_field field = ox_elem_field(v->type);
	have = ox_field_count(t, field);
	if (have != (size_t)need) {
		snprintf(msg, OX_MSG, "tensor '%s' has %zu values where its shape needs %lld", t->name ? t->name : "",
			 have, (long long)need);
		return false;
	}
	if (have == 0)
		return true; /* empty: the typed field may be NULL, which memcpy may not be given */
	if (v->type == OX_UINT32) {
		for (size_t i = 0; i < have; i++)
			((uint32_t *)v->data)[i] = (uint32_t)t->uint64_data[i];
		return true;
	}
	if (field != OX_FIELD_INT32) { /* the stored form is the field's */
		memcpy(v->data, ox_field_data(t, field), have * ox_field_entry_size(field));
		return true;
	}
	if (bits) {
		uint8_t tmp[256] = {0}, *bytes = have <= sizeof tmp ? tmp : malloc(have);
		if (!bytes) {
			snprintf(msg, OX_MSG, "out of memory");
			return false;
		}
		for (size_t i = 0; i < have; i++)
			bytes[i] = (uint8_t)t->int32_data[i];
		unpack_bits(v, bytes, bits);
		if (bytes != tmp)
			free(bytes);
		return true;
	}
	for (int64_t i = 0; i < n; i++) {
		int32_t x = t->int32_data[i];
		switch (ox_elem_size(v->type)) {
		case 1: ((uint8_t *)v->data)[i] = (uint8_t)x; break;
		case 2: ((uint16_t *)v->data)[i] = (uint16_t)x; break;
		default: ((int32_t *)v->data)[i] = x; break;
		}
	}
	if (v->type == OX_BOOL)
		for (int64_t i = 0; i < n; i++)
			((uint8_t *)v->data)[i] = ((uint8_t *)v->data)[i] != 0;
	return true;
}

static bool set_raw(ox_val *v, const Onnx__TensorProto *t, char *msg)
{
	int bits = sub_bits(v->type);
	size_t need = bits ? (size_t)(v->count * bits + 7) / 8 : (size_t)v->count * ox_elem_size(v->type);
	if (t->raw_data.len != need) {
		snprintf(msg, OX_MSG, "tensor '%s' has %zu bytes of raw data where its shape needs %zu",
			 t->name ? t->name : "", t->raw_data.len, need);
		return false;
	}
	if (bits)
		unpack_bits(v, t->raw_data.data, bits);
	else if (need)
		memcpy(v->data, t->raw_data.data, need);
	return true;
}

OnnxStatus ox_convert_status(const char *msg, OnnxStatus bad_input)
{
	/* a kernel whose optional library was left out of the build (ImageDecoder's codecs):
	 * "test" skips such a case rather than failing it */
	if (strstr(msg, "not supported: built without"))
		return ONNXTXT_ERR_UNSUPPORTED;
	return strstr(msg, "out of memory") ? ONNXTXT_ERR_NOMEM : bad_input;
}

ox_val *ox_val_from_tensor_proto(const Onnx__TensorProto *t, char *msg)
{
	const char *name = t->name ? t->name : "";
	if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		snprintf(msg, OX_MSG, "tensor '%s' has external data, which must be embedded first", name);
		return NULL;
	}
	if (t->segment) {
		snprintf(msg, OX_MSG, "tensor '%s' is a segment, which the evaluator does not support", name);
		return NULL;
	}
	if (t->n_dims > OX_MAX_RANK) {
		snprintf(msg, OX_MSG, "tensor '%s' has rank %zu, beyond the limit of %d", name, t->n_dims, OX_MAX_RANK);
		return NULL;
	}
	const char *why;
	ox_val *v = ox_tensor_new(t->data_type, (int)t->n_dims, t->dims, &why);
	if (!v) {
		snprintf(msg, OX_MSG, "tensor '%s' (%s%s): %s", name, ox_elem_label(t->data_type),
			 t->has_data_type ? "" : ", no data_type", why);
		return NULL;
	}
	bool ok = v->type == OX_STRING ? set_strings(v, t, msg)
		  : t->has_raw_data        ? set_raw(v, t, msg)
					   : set_typed(v, t, msg);
	if (!ok) {
		ox_val_unref(v);
		return NULL;
	}
	return v;
}

/* An initializer's raw bytes used where they are, when they are what the tensor would
 * hold (a fixed-size element type, little-endian, OX_ALIGN-aligned: binary.c aligns large
 * bytes fields so); else a copy. Copying light-random shufflenet's 5.7 MB of weights was
 * a tenth of a whole `onnxtxt test` process. */
ox_val *ox_val_borrow_tensor_proto(const Onnx__TensorProto *t, char *msg)
{
	const uint16_t one = 1;
	int64_t n = t->n_dims <= OX_MAX_RANK ? ox_shape_count((int)t->n_dims, t->dims) : -1;
	size_t es = ox_elem_size(t->data_type);
	bool raw = t->has_raw_data && !t->segment &&
		   !(t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
	if (!raw || n <= 0 || !es || t->data_type == OX_STRING || sub_bits(t->data_type) || *(const uint8_t *)&one != 1 ||
	    t->raw_data.len != (size_t)n * es || (uintptr_t)t->raw_data.data % OX_ALIGN)
		return ox_val_from_tensor_proto(t, msg);
	ox_val *v = ox_tensor_borrow(t->data_type, (int)t->n_dims, t->dims, n, t->raw_data.data);
	if (!v)
		snprintf(msg, OX_MSG, "out of memory");
	return v;
}

ox_val *ox_val_from_sequence_proto(const Onnx__SequenceProto *s, char *msg)
{
	size_t n;
	switch (s->elem_type) {
	case ONNX__SEQUENCE_PROTO__DATA_TYPE__TENSOR: n = s->n_tensor_values; break;
	case ONNX__SEQUENCE_PROTO__DATA_TYPE__SEQUENCE: n = s->n_sequence_values; break;
	case ONNX__SEQUENCE_PROTO__DATA_TYPE__OPTIONAL: n = s->n_optional_values; break;
	case ONNX__SEQUENCE_PROTO__DATA_TYPE__MAP: n = s->n_map_values; break;
	default:
		snprintf(msg, OX_MSG, "sequence '%s': element type %d is not supported", s->name ? s->name : "",
			 (int)s->elem_type);
		return NULL;
	}
	ox_val *v = ox_sequence_new(0, n);
	if (!v) {
		snprintf(msg, OX_MSG, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		ox_val *e = s->elem_type == ONNX__SEQUENCE_PROTO__DATA_TYPE__TENSOR
				    ? ox_val_from_tensor_proto(s->tensor_values[i], msg)
			    : s->elem_type == ONNX__SEQUENCE_PROTO__DATA_TYPE__SEQUENCE
				    ? ox_val_from_sequence_proto(s->sequence_values[i], msg)
			    : s->elem_type == ONNX__SEQUENCE_PROTO__DATA_TYPE__MAP
				    ? ox_val_from_map_proto(s->map_values[i], msg)
				    : ox_val_from_optional_proto(s->optional_values[i], msg);
		if (!e) {
			ox_val_unref(v);
			return NULL;
		}
		v->items[i] = e;
		v->elem_kind = e->kind;
		if (e->kind == OX_TENSOR)
			v->type = e->type;
	}
	return v;
}

ox_val *ox_val_from_optional_proto(const Onnx__OptionalProto *o, char *msg)
{
	ox_val *e = NULL;
	int kind = OX_TENSOR;
	switch (o->elem_type) {
	case ONNX__OPTIONAL_PROTO__DATA_TYPE__TENSOR:
		if (o->tensor_value && !(e = ox_val_from_tensor_proto(o->tensor_value, msg)))
			return NULL;
		break;
	case ONNX__OPTIONAL_PROTO__DATA_TYPE__SEQUENCE:
		kind = OX_SEQUENCE;
		if (o->sequence_value && !(e = ox_val_from_sequence_proto(o->sequence_value, msg)))
			return NULL;
		break;
	case ONNX__OPTIONAL_PROTO__DATA_TYPE__MAP:
		kind = OX_MAP;
		if (o->map_value && !(e = ox_val_from_map_proto(o->map_value, msg)))
			return NULL;
		break;
	case ONNX__OPTIONAL_PROTO__DATA_TYPE__UNDEFINED:
		break;
	default:
		snprintf(msg, OX_MSG, "optional '%s': element type %d is not supported", o->name ? o->name : "",
			 (int)o->elem_type);
		return NULL;
	}
	ox_val *v = ox_optional_new(kind, e ? e->type : 0, e);
	if (!v)
		snprintf(msg, OX_MSG, "out of memory");
	return v;
}

static ox_val *map_keys(const Onnx__MapProto *m, const char *name, char *msg)
{
	int kt = m->key_type;
	if (!ox_map_key_ok(kt)) {
		snprintf(msg, OX_MSG, "map '%s': key type %d is not an integer type or string", name, kt);
		return NULL;
	}
	size_t n = kt == OX_STRING ? m->n_string_keys : m->n_keys;
	if (kt == OX_STRING ? m->n_keys : m->n_string_keys) {
		snprintf(msg, OX_MSG, "map '%s': keys of key type %s in the wrong field", name, ox_elem_label(kt));
		return NULL;
	}
	int64_t dim = (int64_t)n;
	ox_val *k = ox_tensor_new(kt, 1, &dim, NULL);
	if (!k) {
		snprintf(msg, OX_MSG, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (kt != OX_STRING)
			ox_set_i64(k, (int64_t)i, m->keys[i]);
		else if (!ox_str_set(&((ox_str *)k->data)[i], (const char *)m->string_keys[i].data, m->string_keys[i].len)) {
			snprintf(msg, OX_MSG, "out of memory");
			ox_val_unref(k);
			return NULL;
		}
	return k;
}

/* The values: one tensor of a single element per key, all of one element type. */
static ox_val *map_values(const ox_val *seq, const ox_val *keys, const char *name, char *msg)
{
	if (seq->nitems != (size_t)keys->count || (seq->nitems && seq->elem_kind != OX_TENSOR)) {
		snprintf(msg, OX_MSG, "map '%s': %lld keys but %zu values, or values that are not scalars", name,
			 (long long)keys->count, seq->nitems);
		return NULL;
	}
	int vt = seq->nitems ? seq->items[0]->type : OX_FLOAT;
	ox_val *v = ox_tensor_new(vt, 1, &keys->count, NULL);
	if (!v) {
		snprintf(msg, OX_MSG, "out of memory");
		return NULL;
	}
	size_t es = ox_elem_size(vt);
	for (size_t i = 0; i < seq->nitems; i++) {
		const ox_val *e = seq->items[i];
		if (e->type != vt || e->count != 1) {
			snprintf(msg, OX_MSG, "map '%s': value %zu is not one element of type %s", name, i, ox_elem_label(vt));
			ox_val_unref(v);
			return NULL;
		}
		if (vt != OX_STRING)
			memcpy((char *)v->data + i * es, e->data, es);
		else if (!ox_str_set(&((ox_str *)v->data)[i], ((ox_str *)e->data)->p, ((ox_str *)e->data)->n)) {
			snprintf(msg, OX_MSG, "out of memory");
			ox_val_unref(v);
			return NULL;
		}
	}
	return v;
}

ox_val *ox_val_from_map_proto(const Onnx__MapProto *m, char *msg)
{
	const char *name = m->name ? m->name : "";
	ox_val *keys = map_keys(m, name, msg), *seq = NULL, *vals = NULL;
	if (!keys)
		return NULL;
	if (m->values)
		seq = ox_val_from_sequence_proto(m->values, msg);
	else
		seq = ox_sequence_new(0, 0);
	if (seq)
		vals = map_values(seq, keys, name, msg);
	ox_val_unref(seq);
	if (!vals) {
		ox_val_unref(keys);
		return NULL;
	}
	ox_val *v = ox_map_new(keys, vals);
	if (!v)
		snprintf(msg, OX_MSG, "out of memory");
	return v;
}

/* ---- values -> messages ---------------------------------------------------------- */

/* A new message of descriptor d in a, initialised, with its "name" field (every value
 * message has one) a copy of name; NULL when out of memory. */
static void *new_named(ox_arena *a, const ProtobufCMessageDescriptor *d, const char *name)
{
	void *m = ox_arena_alloc(a, d->sizeof_message);
	if (!m)
		return NULL;
	protobuf_c_message_init(d, m);
	const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(d, "name");
	*(char **)((char *)m + f->offset) = name ? ox_arena_strndup(a, name, strlen(name)) : NULL;
	return m;
}

Onnx__TensorProto *ox_val_to_tensor_proto(ox_arena *a, const ox_val *v, const char *name)
{
	Onnx__TensorProto *t = new_named(a, &onnx__tensor_proto__descriptor, name);
	if (!t || (v->rank && !(t->dims = ox_arena_memdup(a, v->dims, (size_t)v->rank * sizeof *v->dims))))
		return NULL;
	t->has_data_type = 1;
	t->data_type = v->type;
	t->n_dims = (size_t)v->rank;
	if (v->type == OX_STRING) {
		t->n_string_data = (size_t)v->count;
		t->string_data = ox_arena_alloc(a, (size_t)v->count * sizeof *t->string_data + 1);
		if (!t->string_data)
			return NULL;
		const ox_str *s = v->data;
		for (int64_t i = 0; i < v->count; i++) {
			t->string_data[i].len = s[i].n;
			t->string_data[i].data = s[i].n ? ox_arena_memdup(a, s[i].p, s[i].n) : NULL;
			if (s[i].n && !t->string_data[i].data)
				return NULL;
		}
		return t;
	}
	int bits = sub_bits(v->type);
	size_t n = bits ? (size_t)(v->count * bits + 7) / 8 : (size_t)v->count * ox_elem_size(v->type);
	uint8_t *raw = ox_arena_alloc(a, n ? n : 1);
	if (!raw)
		return NULL;
	if (bits) {
		int per = 8 / bits, mask = (1 << bits) - 1;
		for (int64_t i = 0; i < v->count; i++)
			raw[i / per] |= (uint8_t)((((const uint8_t *)v->data)[i] & mask) << ((i % per) * bits));
	} else if (n) {
		memcpy(raw, v->data, n);
	}
	t->has_raw_data = 1;
	t->raw_data = (ProtobufCBinaryData){n, raw};
	return t;
}

/* ox_val_to_sequence_proto's items (v->items[0..n)) into one of the repeated fields of s,
 * each converted by conv. */
#define ITEMS(field, conv)                                                               \
	do {                                                                             \
		if (!(s->field = ox_arena_alloc(a, n * sizeof(void *) + 1)))              \
			return NULL;                                                     \
		for (size_t i = 0; i < n; i++)                                           \
			if (!(s->field[i] = conv(a, v->items[i], NULL)))                 \
				return NULL;                                             \
		s->n_##field = n;                                                        \
	} while (0)

Onnx__SequenceProto *ox_val_to_sequence_proto(ox_arena *a, const ox_val *v, const char *name)
{
	Onnx__SequenceProto *s = new_named(a, &onnx__sequence_proto__descriptor, name);
	if (!s)
		return NULL;
	s->has_elem_type = 1;
	size_t n = v->nitems;
	switch (v->elem_kind) {
	case OX_SEQUENCE:
		s->elem_type = ONNX__SEQUENCE_PROTO__DATA_TYPE__SEQUENCE;
		ITEMS(sequence_values, ox_val_to_sequence_proto);
		break;
	case OX_MAP:
		s->elem_type = ONNX__SEQUENCE_PROTO__DATA_TYPE__MAP;
		if (!(s->map_values = ox_arena_alloc(a, n * sizeof(void *) + 1)))
			return NULL;
		for (size_t i = 0; i < n; i++)
			if (!(s->map_values[i] = ox_val_to_map_proto(a, v->items[i], NULL)))
				return NULL;
		s->n_map_values = n;
		break;
	case OX_OPTIONAL:
		s->elem_type = ONNX__SEQUENCE_PROTO__DATA_TYPE__OPTIONAL;
		ITEMS(optional_values, ox_val_to_optional_proto);
		break;
	default:
		s->elem_type = ONNX__SEQUENCE_PROTO__DATA_TYPE__TENSOR;
		ITEMS(tensor_values, ox_val_to_tensor_proto);
		break;
	}
#undef ITEMS
	return s;
}

Onnx__OptionalProto *ox_val_to_optional_proto(ox_arena *a, const ox_val *v, const char *name)
{
	Onnx__OptionalProto *o = new_named(a, &onnx__optional_proto__descriptor, name);
	if (!o)
		return NULL;
	o->has_elem_type = 1;
	if (v->elem_kind == OX_MAP) {
		o->elem_type = ONNX__OPTIONAL_PROTO__DATA_TYPE__MAP;
		if (v->nitems && !(o->map_value = ox_val_to_map_proto(a, v->items[0], NULL)))
			return NULL;
	} else if (v->elem_kind == OX_SEQUENCE) {
		o->elem_type = ONNX__OPTIONAL_PROTO__DATA_TYPE__SEQUENCE;
		if (v->nitems && !(o->sequence_value = ox_val_to_sequence_proto(a, v->items[0], NULL)))
			return NULL;
	} else {
		o->elem_type = ONNX__OPTIONAL_PROTO__DATA_TYPE__TENSOR;
		if (v->nitems && !(o->tensor_value = ox_val_to_tensor_proto(a, v->items[0], NULL)))
			return NULL;
	}
	return o;
}

/* Keys in keys or string_keys, values a sequence of scalar tensors (as onnx.helper.make_map
 * and onnxruntime write them). */
Onnx__MapProto *ox_val_to_map_proto(ox_arena *a, const ox_val *v, const char *name)
{
	const ox_val *keys = v->items[0], *vals = v->items[1];
	Onnx__MapProto *m = new_named(a, &onnx__map_proto__descriptor, name);
	Onnx__SequenceProto *s = new_named(a, &onnx__sequence_proto__descriptor, NULL);
	size_t n = (size_t)keys->count, es = ox_elem_size(vals->type);
	if (!m || !s)
		return NULL;
	if (!(s->tensor_values = ox_arena_alloc(a, n * sizeof(void *) + 1)))
		return NULL;
	m->has_key_type = 1;
	m->key_type = keys->type;
	if (keys->type == OX_STRING ? !(m->string_keys = ox_arena_alloc(a, n * sizeof *m->string_keys + 1))
				    : !(m->keys = ox_arena_alloc(a, n * sizeof *m->keys + 1)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (keys->type != OX_STRING) {
			m->keys[i] = ox_get_i64(keys, (int64_t)i);
		} else {
			const ox_str *k = &((const ox_str *)keys->data)[i];
			m->string_keys[i] = (ProtobufCBinaryData){k->n, k->n ? ox_arena_memdup(a, k->p, k->n) : NULL};
			if (k->n && !m->string_keys[i].data)
				return NULL;
		}
		ox_val one = *vals; /* a scalar view of value i, for the tensor writer */
		one.rank = 0, one.count = 1, one.data = (char *)vals->data + i * es;
		if (!(s->tensor_values[i] = ox_val_to_tensor_proto(a, &one, NULL)))
			return NULL;
	}
	*(keys->type == OX_STRING ? &m->n_string_keys : &m->n_keys) = n;
	s->has_elem_type = 1;
	s->elem_type = ONNX__SEQUENCE_PROTO__DATA_TYPE__TENSOR;
	s->n_tensor_values = n;
	m->values = s;
	return m;
}
