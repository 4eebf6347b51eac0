/* The canonical printer: one function per message type over a shared output buffer.
 * What the syntax cannot say goes into annotations ("#@" lines, see annotate.c) written
 * before the element, so text -> binary reproduces the original message exactly. */
#include "print.h"

#include <stdlib.h>

#include "diag.h"
#include "file.h"
#include "literal.h"
#include "proto.h"
#include "types.h"

#define AT(x) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x
#define LINE_MAX_COLUMNS 100

static bool notes_on(const ox_out *o)
{
	return !(o->flags & ONNXTXT_PRINT_NO_ANNOTATIONS);
}

static void print_graph(ox_out *o, const Onnx__GraphProto *g, bool in_attribute);
static bool print_type(ox_out *o, const Onnx__TypeProto *t);
static bool type_ok(const Onnx__TypeProto *t, bool denotations);

/* ---- annotation values ---------------------------------------------------------------- */

static void end_note(ox_out *o)
{
	ox_newline(o);
}

static void note_messages(ox_out *o, size_t n, const void *const *m)
{
	ox_putc(o, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			ox_put(o, ", ", 2);
		ox_note_message(o, m[i]);
	}
	ox_putc(o, ']');
}

static void note_entries(ox_out *o, size_t n, Onnx__StringStringEntryProto *const *e)
{
	if (!ox_entries_plain(n, e)) {
		note_messages(o, n, (const void *const *)e);
		return;
	}
	ox_putc(o, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			ox_put(o, ", ", 2);
		ox_note_string(o, e[i]->key, strlen(e[i]->key));
		ox_put(o, ": ", 2);
		ox_note_string(o, e[i]->value, strlen(e[i]->value));
	}
	ox_putc(o, ']');
}

/* One value of a field, in annotation syntax. */
static void note_value(ox_out *o, const ProtobufCFieldDescriptor *fd, const void *v)
{
	switch (fd->type) {
	case PROTOBUF_C_TYPE_STRING: ox_note_string(o, *(char *const *)v, strlen(*(char *const *)v)); break;
	case PROTOBUF_C_TYPE_BYTES: {
		const ProtobufCBinaryData *b = v;
		ox_put_base64(o, b->data, b->len);
		break;
	}
	case PROTOBUF_C_TYPE_MESSAGE: ox_note_message(o, *(const void *const *)v); break;
	case PROTOBUF_C_TYPE_FLOAT: ox_put_float(o, *(const float *)v, false); break;
	case PROTOBUF_C_TYPE_DOUBLE: ox_put_double(o, *(const double *)v, false); break;
	case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: ox_put_uint(o, *(const uint64_t *)v); break;
	case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
		ox_put_int(o, *(const int64_t *)v);
		break;
	case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: ox_put_uint(o, *(const uint32_t *)v); break;
	default: ox_put_int(o, *(const int32_t *)v); break;
	}
}

static void note_field(ox_out *o, const char *path, const ProtobufCMessage *msg, const char *name);

/* Whether a message reads well as one note per field: no unknown fields, some field set,
 * and no field a message but for string-string entries. */
static bool flat_message(const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	bool any = false;
	if (m->n_unknown_fields)
		return false;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[i];
		if (!ox_field_present(m, fd))
			continue;
		any = true;
		if (fd->type == PROTOBUF_C_TYPE_MESSAGE && fd->descriptor != &onnx__string_string_entry_proto__descriptor)
			return false;
	}
	return any;
}

/* A message field of flat messages as notes on their fields, "path.name[i].field: v";
 * false (and nothing written) when some message is not flat. */
static bool note_flat_field(ox_out *o, const char *key, const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd)
{
	const char *m = (const char *)msg;
	bool repeated = fd->label == PROTOBUF_C_LABEL_REPEATED;
	size_t n = repeated ? *(const size_t *)(m + fd->quantifier_offset) : 1;
	const ProtobufCMessage *const *subs = repeated ? *(const ProtobufCMessage *const *const *)(m + fd->offset)
						       : (const ProtobufCMessage *const *)(m + fd->offset);
	for (size_t i = 0; i < n; i++)
		if (!flat_message(subs[i]))
			return false;
	for (size_t i = 0; i < n; i++) {
		char path[256 + 24]; /* key and "[i]." */
		if (repeated)
			snprintf(path, sizeof path, "%s[%zu].", key, i);
		else
			snprintf(path, sizeof path, "%s.", key);
		const ProtobufCMessageDescriptor *d = subs[i]->descriptor;
		for (unsigned f = 0; f < d->n_fields; f++)
			note_field(o, path, subs[i], d->fields[f].name);
	}
	return true;
}

/* "#@ path.name: value" for any field. */
static void note_field(ox_out *o, const char *path, const ProtobufCMessage *msg, const char *name)
{
	const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field_by_name(msg->descriptor, name);
	if (!fd || !ox_field_present(msg, fd))
		return;
	char key[256];
	snprintf(key, sizeof key, "%s%s", path, name);
	if (fd->type == PROTOBUF_C_TYPE_MESSAGE && fd->descriptor != &onnx__string_string_entry_proto__descriptor &&
	    note_flat_field(o, key, msg, fd))
		return;
	ox_note(o, key);
	const char *m = (const char *)msg;
	if (fd->label != PROTOBUF_C_LABEL_REPEATED) {
		note_value(o, fd, m + fd->offset);
	} else if (fd->descriptor == &onnx__string_string_entry_proto__descriptor) {
		note_entries(o, *(const size_t *)(m + fd->quantifier_offset),
			     *(Onnx__StringStringEntryProto *const *const *)(m + fd->offset));
	} else {
		size_t n = *(const size_t *)(m + fd->quantifier_offset), size = ox_field_value_size(fd);
		const char *values = *(const char *const *)(m + fd->offset);
		ox_putc(o, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				ox_put(o, ", ", 2);
			note_value(o, fd, values + i * size);
		}
		ox_putc(o, ']');
	}
	end_note(o);
}

static void note_unknown(ox_out *o, const char *path, const ProtobufCMessage *m)
{
	if (!m->n_unknown_fields)
		return;
	size_t len = 0;
	for (unsigned i = 0; i < m->n_unknown_fields; i++)
		len += 5 + m->unknown_fields[i].len;
	unsigned char *b = malloc(len), *p = b;
	if (!b) {
		o->failed = *o->nomem = true;
		return;
	}
	for (unsigned i = 0; i < m->n_unknown_fields; i++) {
		const ProtobufCMessageUnknownField *f = &m->unknown_fields[i];
		uint32_t tag = f->tag << 3 | (uint32_t)f->wire_type;
		for (; tag >= 0x80; tag >>= 7)
			*p++ = (unsigned char)(tag | 0x80);
		*p++ = (unsigned char)tag;
		memcpy(p, f->data, f->len);
		p += f->len;
	}
	char key[128];
	snprintf(key, sizeof key, "%sunknown", path);
	ox_note(o, key);
	ox_put_base64(o, b, (size_t)(p - b));
	end_note(o);
	free(b);
}

/* "#@ path.absent: [a, b]" for the fields named a and b that are absent (every message
 * the syntax cannot leave out has one or two: b is NULL for one). */
static void note_absent(ox_out *o, const char *path, const char *a, bool a_absent, const char *b, bool b_absent)
{
	if (!a_absent && !b_absent)
		return;
	char key[128];
	snprintf(key, sizeof key, "%sabsent", path);
	ox_note(o, key);
	ox_putc(o, '[');
	ox_puts(o, a_absent ? a : "");
	ox_puts(o, a_absent && b_absent ? ", " : "");
	ox_puts(o, b_absent ? b : "");
	ox_putc(o, ']');
	end_note(o);
}

static void note_proto(ox_out *o, const void *m)
{
	ox_note(o, "proto");
	ox_note_message(o, m);
	end_note(o);
}

/* Runs notes(), which writes annotation lines, into a scratch buffer at o's indentation;
 * returns whether it wrote any (the caller decides the layout on that). */
typedef void notes_fn(ox_out *o, const void *elem, const void *extra);
static bool collect(ox_out *scratch, const ox_out *o, notes_fn *notes, const void *elem, const void *extra)
{
	ox_out_init(scratch, NULL, o->flags, o->nomem);
	scratch->indent = o->indent;
	if (notes_on(o))
		notes(scratch, elem, extra);
	return scratch->len != 0;
}

/* Appends collected notes; the output is then at the start of an indented line. */
static void emit(ox_out *o, ox_out *scratch)
{
	if (scratch->line) /* the notes end a line: the current one starts inside them */
		o->line = o->flushed + o->len + scratch->line;
	if (scratch->len)
		ox_put(o, scratch->buf, scratch->len);
	o->failed |= scratch->failed;
	ox_out_free(scratch);
}

/* Writes elem's notes, if any, where o is (at the start of an indented line). */
static void emit_notes(ox_out *o, notes_fn *notes, const void *elem, const void *extra)
{
	if (elem && notes_on(o))
		notes(o, elem, extra);
}

/* ---- types ------------------------------------------------------------------------------ */

static bool shape_ok(const Onnx__TensorShapeProto *s, bool denotations)
{
	if (!s)
		return true;
	if (s->base.n_unknown_fields)
		return false;
	for (size_t i = 0; i < s->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = s->dim[i];
		if ((d->denotation && !denotations) || d->base.n_unknown_fields ||
		    (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && !d->dim_param))
			return false;
	}
	return true;
}

static bool elem_ok(protobuf_c_boolean has, int32_t elem)
{
	return has && ox_elem_name(elem);
}

static bool opaque_ok(const Onnx__TypeProto__Opaque *q)
{
	if (q->base.n_unknown_fields)
		return false;
	if (!q->domain)
		return !q->name || ox_is_dotted_ident(q->name);
	return ox_is_dotted_ident(q->domain) && q->name && ox_is_ident(q->name);
}

/* One level of a type other than opaque, for the walks below: the message that holds it
 * (for its unknown fields), the element type of a tensor or the key type of a map
 * (`typed`), a tensor's shape (`shaped`) or else the type inside it, the text that opens
 * it ("seq(", "" for a tensor) and its field path (for notes). */
typedef struct level {
	const ProtobufCMessage *msg;
	bool typed, has_elem, shaped;
	int32_t elem;
	const Onnx__TensorShapeProto *shape;
	const Onnx__TypeProto *inner;
	const char *open, *field;
} level;

static bool level_of(const Onnx__TypeProto *t, level *l)
{
	const Onnx__TypeProto__Tensor *tt = t->tensor_type;
	const Onnx__TypeProto__SparseTensor *st = t->sparse_tensor_type;
	const Onnx__TypeProto__Map *mt = t->map_type;
	switch (t->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
		*l = (level){&tt->base, true, tt->has_elem_type, true, tt->elem_type, tt->shape, NULL, "", "tensor_type"};
		return true;
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
		*l = (level){&st->base, true, st->has_elem_type, true, st->elem_type, st->shape, NULL, "sparse_tensor(",
			     "sparse_tensor_type"};
		return true;
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		*l = (level){.msg = &t->sequence_type->base, .inner = t->sequence_type->elem_type, .open = "seq(",
			     .field = "sequence_type.elem_type"};
		return true;
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
		*l = (level){.msg = &t->optional_type->base, .inner = t->optional_type->elem_type, .open = "optional(",
			     .field = "optional_type.elem_type"};
		return true;
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
		*l = (level){&mt->base, true, mt->has_key_type, false, mt->key_type, NULL, mt->value_type, "map(",
			     "map_type.value_type"};
		return true;
	default: return false;
	}
}

/* Whether the syntax can write this type exactly, or but for denotations, which notes can
 * carry (type_notes). */
static bool type_ok(const Onnx__TypeProto *t, bool denotations)
{
	level l;
	if (!t || (t->denotation && !denotations) || t->base.n_unknown_fields)
		return false;
	if (t->value_case == ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE)
		return opaque_ok(t->opaque_type);
	return level_of(t, &l) && !l.msg->n_unknown_fields && (!l.typed || elem_ok(l.has_elem, l.elem)) &&
	       (l.shaped ? shape_ok(l.shape, denotations) : type_ok(l.inner, denotations));
}

/* "#@ type.denotation: ..." notes for the denotations of a type type_ok(t, true) accepted;
 * path addresses the type ("type." in a value info). */
static void type_notes(ox_out *o, const char *path, const Onnx__TypeProto *t)
{
	char key[256];
	level l;
	note_field(o, path, &t->base, "denotation");
	if (!level_of(t, &l))
		return;
	if (l.inner) {
		snprintf(key, sizeof key, "%s%s.", path, l.field);
		type_notes(o, key, l.inner);
		return;
	}
	for (size_t i = 0; l.shape && i < l.shape->n_dim; i++)
		if (l.shape->dim[i]->denotation) {
			snprintf(key, sizeof key, "%s%s.shape.dim[%zu].", path, l.field, i);
			note_field(o, key, &l.shape->dim[i]->base, "denotation");
		}
}

static void print_shape(ox_out *o, const Onnx__TensorShapeProto *s)
{
	if (!s) {
		ox_put(o, "[]", 2);
		return;
	}
	if (!s->n_dim)
		return; /* rank 0 */
	ox_putc(o, '[');
	for (size_t i = 0; i < s->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = s->dim[i];
		if (i)
			ox_put(o, ", ", 2);
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			ox_put_int(o, d->dim_value);
		else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
			ox_put_name(o, d->dim_param, true);
		else
			ox_putc(o, '?');
	}
	ox_putc(o, ']');
}

/* Writes the type (which type_ok accepted); returns false after writing nothing otherwise. */
static bool print_type(ox_out *o, const Onnx__TypeProto *t)
{
	level l;
	if (!type_ok(t, true))
		return false;
	if (level_of(t, &l)) {
		ox_puts(o, l.open);
		if (l.typed)
			ox_puts(o, ox_elem_name(l.elem));
		if (l.shaped)
			print_shape(o, l.shape);
		else if (l.typed)
			ox_put(o, ", ", 2);
		if (l.inner)
			print_type(o, l.inner);
		if (*l.open)
			ox_putc(o, ')');
		return true;
	}
	const Onnx__TypeProto__Opaque *q = t->opaque_type;
	ox_puts(o, "opaque(");
	if (q->domain) {
		ox_puts(o, q->domain);
		ox_put(o, ", ", 2);
	}
	if (q->name)
		ox_puts(o, q->name);
	ox_putc(o, ')');
	return true;
}

/* ---- value infos and tensors -------------------------------------------------------------- */

static void vi_notes(ox_out *o, const void *elem, const void *extra)
{
	const Onnx__ValueInfoProto *vi = elem;
	(void)extra;
	if (!vi->doc_string && !vi->n_metadata_props && !vi->base.n_unknown_fields && vi->name &&
	    (!vi->type || type_ok(vi->type, false)))
		return; /* the common case, without looking fields up by name */
	note_field(o, "", &vi->base, "doc_string");
	note_field(o, "", &vi->base, "metadata_props");
	if (vi->type && !type_ok(vi->type, true))
		note_field(o, "", &vi->base, "type");
	else if (vi->type)
		type_notes(o, "type.", vi->type);
	note_unknown(o, "", &vi->base);
	note_absent(o, "", "name", !vi->name, NULL, false);
}

/* "type name" or, untyped, the name alone (quoted when a type keyword would misread it). */
static void print_vi_text(ox_out *o, const Onnx__ValueInfoProto *vi)
{
	const char *name = vi->name ? vi->name : "";
	if (print_type(o, vi->type)) {
		ox_putc(o, ' ');
		ox_put_name(o, name, true);
	} else {
		ox_put_name(o, name, !ox_is_type_word(name));
	}
}

static bool floats_exact(const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ox_float_exact(v[i]))
			return false;
	return true;
}

static bool typed_floats_exact(const Onnx__TensorProto *t)
{
	for (size_t i = 0; i < t->n_double_data; i++)
		if (!ox_double_exact(t->double_data[i]))
			return false;
	return floats_exact(t->float_data, t->n_float_data);
}

/* Notes for a tensor written as "type name = data"; prefix addresses it from the element
 * that carries the notes ("" for an initializer entry, "t." for an attribute). */
static void tensor_notes(ox_out *o, const Onnx__TensorProto *t, const char *prefix)
{
	static const char *const data_fields[] = {"float_data", "int32_data", "string_data", "int64_data",
						  "raw_data", "external_data", "data_location", "double_data",
						  "uint64_data"};
	enum ox_data_kind kind = ox_tensor_data_kind(t);
	if (!typed_floats_exact(t)) { /* notes would write such NaNs as "nan" too */
		char key[64];
		snprintf(key, sizeof key, "%sproto", prefix);
		ox_note(o, key);
		ox_note_message(o, t);
		end_note(o);
		return;
	}
	note_field(o, prefix, &t->base, "doc_string");
	note_field(o, prefix, &t->base, "metadata_props");
	note_field(o, prefix, &t->base, "segment");
	if (t->has_data_type && !ox_elem_name(t->data_type))
		note_field(o, prefix, &t->base, "data_type");
	if (kind == OX_DATA_OTHER)
		for (size_t i = 0; i < sizeof data_fields / sizeof *data_fields; i++)
			note_field(o, prefix, &t->base, data_fields[i]);
	if (kind == OX_DATA_RAW) {
		char key[64];
		snprintf(key, sizeof key, "%sraw", prefix);
		ox_puts(o, "#@ ");
		ox_puts(o, key);
		end_note(o);
	}
	note_unknown(o, prefix, &t->base);
	note_absent(o, prefix, "name", !t->name, "data_type", !t->has_data_type);
}

static void tensor_entry_notes(ox_out *o, const void *elem, const void *extra)
{
	(void)extra;
	tensor_notes(o, elem, "");
}

/* "float[2, 3]" for a tensor; an unknown element type writes "float" (and a note). */
static void print_tensor_type(ox_out *o, const Onnx__TensorProto *t)
{
	const char *name = t->has_data_type ? ox_elem_name(t->data_type) : NULL;
	ox_puts(o, name ? name : "float");
	if (!t->n_dims)
		return;
	ox_putc(o, '[');
	for (size_t i = 0; i < t->n_dims; i++) {
		if (i)
			ox_put(o, ", ", 2);
		ox_put_int(o, t->dims[i]);
	}
	ox_putc(o, ']');
}

/* A quoted string; "" for an absent one. */
static void put_text(ox_out *o, const char *s)
{
	ox_put_string(o, s ? s : "", s ? strlen(s) : 0);
}

static void print_entries(ox_out *o, size_t n, const ProtobufCMessage *const *e);


/* The data after "=": values, external entries, or nothing. */
/* " = data", or only " =" when the text carries no data. */
static void print_eq_data(ox_out *o, const Onnx__TensorProto *t)
{
	enum ox_data_kind kind = ox_tensor_data_kind(t);
	if (kind == OX_DATA_TYPED || kind == OX_DATA_RAW) {
		ox_put(o, " = ", 3);
		ox_print_tensor_values(o, t);
	} else if (kind == OX_DATA_EXTERNAL) {
		ox_put(o, " = ", 3);
		print_entries(o, t->n_external_data, (const ProtobufCMessage *const *)t->external_data);
	} else {
		ox_put(o, " =", 2); /* no data, or data the notes carry */
	}
}

/* An initializer in a graph's "<...>" list: "type name = data". */
static void print_initializer(ox_out *o, const Onnx__TensorProto *t)
{
	print_tensor_type(o, t);
	ox_putc(o, ' ');
	ox_put_name(o, t->name ? t->name : "", true);
	print_eq_data(o, t);
}

/* A tensor in an attribute or on its own: "type [name] [=] data". The '=' is written
 * when there is no name, so that a rank-0 type is never followed directly by '['. */
static void print_tensor_value(ox_out *o, const Onnx__TensorProto *t)
{
	print_tensor_type(o, t);
	if (t->name && *t->name) {
		ox_putc(o, ' ');
		ox_put_name(o, t->name, true);
	}
	enum ox_data_kind kind = ox_tensor_data_kind(t);
	if (kind == OX_DATA_TYPED || kind == OX_DATA_RAW) {
		ox_putc(o, ' ');
		ox_print_tensor_values(o, t);
	} else if (kind == OX_DATA_EXTERNAL || !(t->name && *t->name)) {
		print_eq_data(o, t);
	}
}

/* ---- attributes --------------------------------------------------------------------------- */

static bool tensor_clean(const Onnx__TensorProto *t)
{
	enum ox_data_kind kind = ox_tensor_data_kind(t);
	return t->name && t->has_data_type && ox_elem_name(t->data_type) && !t->doc_string && !t->n_metadata_props &&
	       !t->segment && !t->base.n_unknown_fields && kind != OX_DATA_RAW && kind != OX_DATA_OTHER;
}

/* Whether the attribute is one the syntax writes: its type set, and only that type's
 * value present (or a reference). Single tensors may carry notes ("t."); list elements
 * must be plain. */
static bool attr_canonical(const Onnx__AttributeProto *a)
{
	if (!a->name || a->sparse_tensor || a->n_sparse_tensors)
		return false;
	if (a->has_type && !ox_attr_type_name(a->type))
		return false;
	int set = a->has_f + a->has_i + a->has_s + !!a->t + !!a->g + !!a->tp + !!a->n_floats + !!a->n_ints +
		  !!a->n_strings + !!a->n_tensors + !!a->n_graphs + !!a->n_type_protos;
	if (a->ref_attr_name)
		return set == 0;
	if (!a->has_type || set > 1 || (a->has_f && !ox_float_exact(a->f)) || !floats_exact(a->floats, a->n_floats))
		return false;
	for (size_t i = 0; i < a->n_tensors; i++)
		if (!tensor_clean(a->tensors[i]))
			return false;
	for (size_t i = 0; i < a->n_type_protos; i++)
		if (!type_ok(a->type_protos[i], true))
			return false;
	switch (a->type) {
	case AT(FLOAT): return a->has_f;
	case AT(INT): return a->has_i;
	case AT(STRING): return a->has_s;
	case AT(TENSOR): return a->t && ox_tensor_data_kind(a->t) != OX_DATA_OTHER && a->t->has_data_type &&
				ox_elem_name(a->t->data_type);
	case AT(GRAPH): return a->g != NULL;
	case AT(TYPE_PROTO): return type_ok(a->tp, true);
	case AT(FLOATS): return set == 0 || a->n_floats;
	case AT(INTS): return set == 0 || a->n_ints;
	case AT(STRINGS): return set == 0 || a->n_strings;
	case AT(TENSORS): return set == 0 || a->n_tensors;
	case AT(GRAPHS): return set == 0 || a->n_graphs;
	case AT(TYPE_PROTOS): return set == 0 || a->n_type_protos;
	default: return false;
	}
}

/* Whether an attribute surely has no notes: the common case, said without looking fields
 * up by name. */
static bool attr_plain(const Onnx__AttributeProto *a)
{
	return !a->doc_string && !a->base.n_unknown_fields && !a->t && !a->tp && !a->n_type_protos && attr_canonical(a);
}

static void attr_notes(ox_out *o, const void *elem, const void *extra)
{
	const Onnx__AttributeProto *a = elem;
	(void)extra;
	if (attr_plain(a))
		return;
	if (!attr_canonical(a)) {
		note_proto(o, a);
		return;
	}
	note_field(o, "", &a->base, "doc_string");
	if (a->t)
		tensor_notes(o, a->t, "t.");
	if (a->tp)
		type_notes(o, "tp.", a->tp);
	for (size_t i = 0; i < a->n_type_protos; i++) {
		char path[48];
		snprintf(path, sizeof path, "type_protos[%zu].", i);
		type_notes(o, path, a->type_protos[i]);
	}
	note_unknown(o, "", &a->base);
}

static bool attr_has_graph(const Onnx__AttributeProto *a)
{
	return a->g || a->n_graphs;
}

/* One value of the attribute's (list) type. */
static void print_attr_element(ox_out *o, const Onnx__AttributeProto *a, int type, size_t i)
{
	switch (type) {
	case AT(FLOAT): ox_put_float(o, a->n_floats ? a->floats[i] : a->f, true); break;
	case AT(INT): ox_put_int(o, a->n_ints ? a->ints[i] : a->i); break;
	case AT(STRING): {
		const ProtobufCBinaryData *s = a->n_strings ? &a->strings[i] : &a->s;
		ox_put_string(o, (const char *)s->data, s->len);
		break;
	}
	case AT(TENSOR): print_tensor_value(o, a->n_tensors ? a->tensors[i] : a->t); break;
	case AT(GRAPH): print_graph(o, a->n_graphs ? a->graphs[i] : a->g, true); break;
	case AT(TYPE_PROTO): print_type(o, a->n_type_protos ? a->type_protos[i] : a->tp); break;
	}
}

static size_t list_length(const Onnx__AttributeProto *a)
{
	return a->n_floats + a->n_ints + a->n_strings + a->n_tensors + a->n_graphs + a->n_type_protos;
}

/* "name = value", "name: type = @ref", "name: ints = []"; a non-canonical attribute is
 * written as an empty list, which its "proto" note replaces. */
static void print_attr(ox_out *o, const Onnx__AttributeProto *a)
{
	ox_put_name(o, a->name ? a->name : "", true);
	if (!attr_canonical(a)) {
		ox_puts(o, ": ints = []"); /* replaced by the attribute's proto note */
		return;
	}
	int type = a->has_type ? (int)a->type : 0;
	size_t n = list_length(a);
	bool annotate = a->ref_attr_name ? a->has_type : (ox_attr_is_list(type) && n == 0);
	if (annotate) {
		ox_put(o, ": ", 2);
		ox_puts(o, ox_attr_type_name(type));
	}
	ox_put(o, " = ", type == AT(GRAPH) && !a->ref_attr_name ? 2 : 3); /* print_graph adds the space */
	if (a->ref_attr_name) {
		ox_putc(o, '@');
		ox_put_name(o, a->ref_attr_name, true);
	} else if (!ox_attr_is_list(type)) {
		print_attr_element(o, a, type, 0);
	} else {
		bool graphs = type == AT(GRAPHS) && n; /* one graph per line */
		ox_putc(o, '[');
		o->indent += 2;
		for (size_t i = 0; i < n; i++) {
			if (graphs) {
				if (i)
					ox_putc(o, ',');
				ox_newline(o);
				print_attr_element(o, a, ox_attr_singular(type), i);
				continue;
			}
			ox_item it = ox_item_begin(o, i == 0);
			print_attr_element(o, a, ox_attr_singular(type), i);
			ox_item_end(o, it);
		}
		o->indent -= 2;
		if (graphs)
			ox_newline(o);
		ox_putc(o, ']');
	}
}

/* "<a = 1, b = 2>" on one line, or one attribute per line when any attribute has notes
 * or holds a graph. A function's list starts with its plain attribute names. */
static void print_attrs(ox_out *o, size_t nnames, char *const *names, size_t n, Onnx__AttributeProto *const *attrs,
			bool multiline)
{
	ox_putc(o, '<');
	o->indent += 2;
	for (size_t i = 0; i < nnames + n; i++) {
		const Onnx__AttributeProto *a = i < nnames ? NULL : attrs[i - nnames];
		ox_item it = {0};
		if (multiline) {
			if (i)
				ox_putc(o, ',');
			ox_newline(o);
			emit_notes(o, attr_notes, a, NULL);
		} else {
			it = ox_item_begin(o, i == 0);
		}
		if (a)
			print_attr(o, a);
		else
			ox_put_name(o, names[i], true);
		if (!multiline)
			ox_item_end(o, it);
	}
	o->indent -= 2;
	if (multiline)
		ox_newline(o);
	ox_putc(o, '>');
}

/* An upper bound of the columns a plain attribute takes on one line ("name = value"), or
 * a large number when finding one would take as long as writing the value. */
static size_t attr_width_bound(const Onnx__AttributeProto *a)
{
	enum { NUMBER = 24 }; /* "-9223372036854775808", "-1.1754944e-38" */
	size_t w = 3 + strlen(a->name ? a->name : "") * 2 + 2 + 16; /* " = ", quotes, ": type" */
	if (a->ref_attr_name)
		return w + 2 * strlen(a->ref_attr_name) + 3;
	if (a->has_s)
		return w + 2 * a->s.len + 2;
	if (a->has_i || a->has_f)
		return w + NUMBER;
	if (a->n_ints || a->n_floats)
		return w + 2 + (a->n_ints + a->n_floats) * (NUMBER + 2);
	if (a->n_strings) {
		for (size_t i = 0; i < a->n_strings; i++)
			w += 2 * a->strings[i].len + 4;
		return w + 2;
	}
	return a->t || a->g || a->tp || a->n_tensors || a->n_graphs || a->n_type_protos ? OX_WIDTH : w + 2;
}

/* One attribute per line when any has notes or holds a graph, or when the list and tail
 * more columns after it do not fit on the line (measured by writing the list, up to the
 * room left). */
static bool attrs_multiline(const ox_out *o, size_t nnames, char *const *names, size_t n,
			    Onnx__AttributeProto *const *attrs, size_t tail)
{
	size_t bound = 2; /* of the list's width: "<" and ">" */
	for (size_t i = 0; i < n; i++) {
		if (attr_has_graph(attrs[i]))
			return true;
		if (!attr_plain(attrs[i])) {
			ox_out notes;
			bool any = collect(&notes, o, attr_notes, attrs[i], NULL);
			ox_out_free(&notes);
			if (any)
				return true;
		}
		bound += attr_width_bound(attrs[i]) + 2;
	}
	for (size_t i = 0; i < nnames; i++)
		bound += strlen(names[i]) + 4;
	size_t column = ox_column(o) + 1 + tail; /* after the space before '<' */
	if (column + bound < OX_WIDTH)
		return false; /* fits whatever the values print as */
	if (column + 2 >= OX_WIDTH)
		return column - tail + 2 < OX_WIDTH; /* only a long tail: its line breaks anyway */
	ox_out line;
	ox_out_init(&line, NULL, o->flags, o->nomem);
	line.limit = OX_WIDTH - column;
	print_attrs(&line, nnames, names, n, attrs, false);
	bool fits = !line.failed && !memchr(line.buf, '\n', line.len);
	ox_out_free(&line);
	return !fits;
}

/* ---- nodes --------------------------------------------------------------------------------- */

typedef struct node_ctx {
	bool domain_absent; /* the body's node_domain default */
} node_ctx;

/* How a node's op is written: the dotted domain is printed only when it is made of
 * identifiers; anything the text cannot carry goes into notes. */
static bool op_printable(const Onnx__NodeProto *n)
{
	return n->op_type && ox_is_ident(n->op_type) && (!n->domain || !*n->domain || ox_is_dotted_ident(n->domain));
}

static void node_notes(ox_out *o, const void *elem, const void *extra)
{
	const Onnx__NodeProto *n = elem;
	const node_ctx *ctx = extra;
	/* the common node has nothing to note: say so without looking fields up by name */
	if (!n->doc_string && !n->n_metadata_props && !n->n_device_configurations && !n->base.n_unknown_fields &&
	    op_printable(n) && (!n->overload || ox_is_ident(n->overload)) && (n->domain || ctx->domain_absent))
		return;
	note_field(o, "", &n->base, "doc_string");
	note_field(o, "", &n->base, "metadata_props");
	note_field(o, "", &n->base, "device_configurations");
	if (!op_printable(n)) {
		/* nothing of the op is written: the parser leaves op_type "" and the domain
		 * absent or "", as the body's default says */
		if (n->op_type && *n->op_type)
			note_field(o, "", &n->base, "op_type");
		if (n->domain && (*n->domain || ctx->domain_absent))
			note_field(o, "", &n->base, "domain");
	}
	if (n->overload && (!ox_is_ident(n->overload) || !op_printable(n)))
		note_field(o, "", &n->base, "overload");
	note_unknown(o, "", &n->base);
	note_absent(o, "", "domain", !n->domain && !ctx->domain_absent, "op_type", !n->op_type);
}

/* A node's inputs or outputs. An empty name is written as nothing, "(x, , y)", which every
 * version of the official parser reads, except last, where only "" keeps it. */
static void print_ids(ox_out *o, size_t n, char *const *ids)
{
	for (size_t i = 0; i < n; i++) {
		ox_item it = ox_item_begin(o, i == 0);
		if (*ids[i] || i + 1 == n)
			ox_put_name(o, ids[i], true);
		ox_item_end(o, it);
	}
}

static void print_op(ox_out *o, const Onnx__NodeProto *n, const node_ctx *ctx)
{
	if (!op_printable(n))
		return;
	if (n->domain && *n->domain) {
		ox_puts(o, n->domain);
		ox_putc(o, '.');
	} else if (n->domain && ctx->domain_absent) {
		ox_putc(o, '.'); /* present but empty, where absent is the default */
	}
	ox_puts(o, n->op_type);
	if (n->overload && ox_is_ident(n->overload)) {
		ox_putc(o, ':');
		ox_puts(o, n->overload);
	}
}

/* "[label] out1, out2 = dom.Op:overload <attrs> (in1, in2)"; attributes holding graphs
 * go after the inputs, one per line. */
static void print_node(ox_out *o, const Onnx__NodeProto *n, const node_ctx *ctx)
{
	emit_notes(o, node_notes, n, ctx);
	if (n->name) {
		ox_putc(o, '[');
		ox_put_name(o, n->name, true);
		ox_put(o, "] ", 2);
	}
	o->indent += 2; /* lines that outputs and inputs continue on */
	print_ids(o, n->n_output, n->output);
	o->indent -= 2;
	ox_put(o, n->n_output ? " = " : "= ", n->n_output ? 3 : 2);
	print_op(o, n, ctx);
	bool graphs = false;
	for (size_t i = 0; i < n->n_attribute; i++)
		graphs |= attr_has_graph(n->attribute[i]);
	if (n->n_attribute && !graphs) {
		size_t inputs = 3; /* " (...)", names roughly as written */
		for (size_t i = 0; i < n->n_input; i++)
			inputs += strlen(n->input[i]) + (i ? 2 : 0) + (ox_is_ident(n->input[i]) ? 0 : 2);
		bool multiline = (o->attrs_apart && o->attrs_apart(o->attrs_ctx, n)) ||
				 attrs_multiline(o, 0, NULL, n->n_attribute, n->attribute, inputs);
		ox_putc(o, ' ');
		print_attrs(o, 0, NULL, n->n_attribute, n->attribute, multiline);
	}
	ox_put(o, " (", 2);
	o->indent += 2;
	print_ids(o, n->n_input, n->input);
	o->indent -= 2;
	ox_putc(o, ')');
	if (n->n_attribute && graphs) {
		ox_putc(o, ' ');
		print_attrs(o, 0, NULL, n->n_attribute, n->attribute, true);
	}
}

/* The node_domain default of a body: absent when most nodes leave the domain out. */
static bool domain_absent_default(const ox_out *o, size_t n, Onnx__NodeProto *const *nodes)
{
	size_t absent = 0;
	for (size_t i = 0; i < n; i++)
		absent += nodes[i]->domain == NULL;
	return notes_on(o) && absent * 2 > n;
}

static void print_nodes(ox_out *o, size_t n, Onnx__NodeProto *const *nodes, const node_ctx *ctx)
{
	ox_putc(o, '{');
	o->indent += 2;
	for (size_t i = 0; i < n; i++) {
		ox_newline(o);
		print_node(o, nodes[i], ctx);
	}
	o->indent -= 2;
	ox_newline(o);
	ox_putc(o, '}');
}

/* ---- graphs --------------------------------------------------------------------------------- */

/* The notes a graph and a function end with: "#@ node_domain: absent" when their nodes
 * leave the domain out, their unknown fields, and their name when it is missing. */
static void body_notes(ox_out *o, const ProtobufCMessage *m, const char *name, const node_ctx *ctx)
{
	if (ctx->domain_absent) {
		ox_note(o, "node_domain");
		ox_puts(o, "absent");
		end_note(o);
	}
	note_unknown(o, "", m);
	note_absent(o, "", "name", !name, NULL, false);
}

static void graph_notes(ox_out *o, const void *elem, const void *extra)
{
	const Onnx__GraphProto *g = elem;
	const node_ctx *ctx = extra;
	note_field(o, "", &g->base, "doc_string");
	note_field(o, "", &g->base, "metadata_props");
	note_field(o, "", &g->base, "sparse_initializer");
	note_field(o, "", &g->base, "quantization_annotation");
	body_notes(o, &g->base, g->name, ctx);
}

/* "(vi, vi)", or one per line when any has notes or the line would grow too long. */
static void print_vi_list(ox_out *o, char open, char close, size_t n, Onnx__ValueInfoProto *const *vis)
{
	ox_out line;
	ox_out_init(&line, NULL, o->flags, o->nomem);
	bool multiline = false;
	for (size_t i = 0; i < n && !multiline; i++) {
		ox_out notes;
		multiline = collect(&notes, o, vi_notes, vis[i], NULL);
		ox_out_free(&notes);
		print_vi_text(&line, vis[i]);
		multiline |= ox_column(o) + line.len + 2 * i > LINE_MAX_COLUMNS;
	}
	ox_out_free(&line);
	ox_putc(o, open);
	o->indent += 2;
	for (size_t i = 0; i < n; i++) {
		if (multiline) {
			ox_newline(o);
			emit_notes(o, vi_notes, vis[i], NULL);
		} else if (i) {
			ox_putc(o, ' ');
		}
		print_vi_text(o, vis[i]);
		if (i + 1 < n)
			ox_putc(o, ',');
	}
	o->indent -= 2;
	if (multiline)
		ox_newline(o);
	ox_putc(o, close);
}

/* "<\n init,\n ...,\n vi\n>": initializers, then value infos, one per line. */
static void print_inits(ox_out *o, const Onnx__GraphProto *g)
{
	size_t total = g->n_initializer + g->n_value_info;
	ox_putc(o, '<');
	o->indent += 2;
	for (size_t i = 0; i < total; i++) {
		ox_newline(o);
		bool init = i < g->n_initializer;
		const void *e = init ? (const void *)g->initializer[i] : (const void *)g->value_info[i - g->n_initializer];
		emit_notes(o, init ? tensor_entry_notes : vi_notes, e, NULL);
		if (init)
			print_initializer(o, e);
		else
			print_vi_text(o, e);
		if (i + 1 < total)
			ox_putc(o, ',');
	}
	o->indent -= 2;
	ox_newline(o);
	ox_putc(o, '>');
}

/* A graph: at the start of a line, or in an attribute after "name =", where it adds the
 * space (or, before notes, the line break). Notes come first, on their own lines. */
static void print_graph(ox_out *o, const Onnx__GraphProto *g, bool in_attribute)
{
	node_ctx ctx = {domain_absent_default(o, g->n_node, g->node)};
	ox_out notes;
	bool annotated = collect(&notes, o, graph_notes, g, &ctx);
	if (in_attribute && ox_column(o) != (size_t)o->indent) { /* after "name =" */
		if (annotated)
			ox_newline(o);
		else
			ox_putc(o, ' ');
	}
	if (annotated)
		emit(o, &notes);
	else
		ox_out_free(&notes);
	/* in an attribute, a graph named like a type or a float would be misread */
	ox_put_name(o, g->name ? g->name : "", !in_attribute);
	ox_putc(o, ' ');
	print_vi_list(o, '(', ')', g->n_input, g->input);
	ox_put(o, " => ", 4);
	print_vi_list(o, '(', ')', g->n_output, g->output);
	if (g->n_initializer || g->n_value_info) {
		ox_newline(o);
		print_inits(o, g);
	}
	ox_newline(o);
	print_nodes(o, g->n_node, g->node, &ctx);
}

/* ---- functions ------------------------------------------------------------------------------- */

/* Opset and string-string entries are always written; what an entry lacks, or adds,
 * is annotated on the entry itself: "#@ opset_import[0].absent: [domain]". */
static void entry_notes(ox_out *o, const char *field, size_t n, const ProtobufCMessage *const *entries)
{
	for (size_t i = 0; i < n; i++) {
		const ProtobufCMessage *e = entries[i];
		char path[64];
		snprintf(path, sizeof path, "%s[%zu].", field, i);
		note_unknown(o, path, e);
		if (e->descriptor == &onnx__operator_set_id_proto__descriptor) {
			const Onnx__OperatorSetIdProto *op = (const void *)e;
			note_absent(o, path, "domain", !op->domain, "version", !op->has_version);
		} else {
			const Onnx__StringStringEntryProto *kv = (const void *)e;
			note_absent(o, path, "key", !kv->key, "value", !kv->value);
		}
	}
}

static void function_notes(ox_out *o, const void *elem, const void *extra)
{
	const Onnx__FunctionProto *f = elem;
	const node_ctx *ctx = extra;
	note_field(o, "", &f->base, "metadata_props");
	entry_notes(o, "opset_import", f->n_opset_import, (const ProtobufCMessage *const *)f->opset_import);
	body_notes(o, &f->base, f->name, ctx);
}

/* Header entries "key: value", one per line; returns how many were written. Headers are
 * only at the top level, at indentation 0. */
static int header_entry(ox_out *o, int count, const char *key)
{
	ox_putc(o, count ? ',' : '<');
	o->indent = 2;
	ox_newline(o);
	ox_puts(o, key);
	ox_put(o, ": ", 2);
	return count + 1;
}

static int header_string(ox_out *o, int count, const char *key, const char *value)
{
	if (!value)
		return count;
	count = header_entry(o, count, key);
	put_text(o, value);
	return count;
}

static void end_header(ox_out *o, int count)
{
	o->indent = 0;
	if (count) {
		ox_newline(o);
		ox_putc(o, '>');
		ox_newline(o);
	}
}

/* Whether value info i can be written inline as the typed IO entry for name. */
static bool io_typed(const ox_out *o, const Onnx__FunctionProto *f, size_t j, const char *name)
{
	if (j >= f->n_value_info)
		return false;
	const Onnx__ValueInfoProto *vi = f->value_info[j];
	ox_out notes;
	bool plain = !collect(&notes, o, vi_notes, vi, NULL);
	ox_out_free(&notes);
	return plain && vi->name && strcmp(vi->name, name) == 0 && type_ok(vi->type, true);
}

/* "(a, float[N] b)": names, typed where the next value info belongs to them, which is
 * how the parser builds value_info from typed inputs, then outputs, then "<...>". */
static size_t print_io(ox_out *o, const Onnx__FunctionProto *f, size_t n, char *const *names, size_t j)
{
	ox_putc(o, '(');
	for (size_t i = 0; i < n; i++) {
		if (i)
			ox_put(o, ", ", 2);
		if (io_typed(o, f, j, names[i]))
			print_vi_text(o, f->value_info[j++]);
		else
			ox_put_name(o, names[i], !ox_is_type_word(names[i]));
	}
	ox_putc(o, ')');
	return j;
}

static void print_function_attrs(ox_out *o, const Onnx__FunctionProto *f)
{
	if (!f->n_attribute && !f->n_attribute_proto)
		return;
	ox_putc(o, ' ');
	print_attrs(o, f->n_attribute, f->attribute, f->n_attribute_proto, f->attribute_proto,
		    attrs_multiline(o, f->n_attribute, f->attribute, f->n_attribute_proto, f->attribute_proto, 0));
}

static void print_function(ox_out *o, const Onnx__FunctionProto *f)
{
	node_ctx ctx = {domain_absent_default(o, f->n_node, f->node)};
	emit_notes(o, function_notes, f, &ctx);
	int count = header_string(o, 0, "domain", f->domain);
	count = header_string(o, count, "overload", f->overload);
	if (f->n_opset_import) {
		count = header_entry(o, count, "opset_import");
		print_entries(o, f->n_opset_import, (const ProtobufCMessage *const *)f->opset_import);
	}
	count = header_string(o, count, "doc_string", f->doc_string);
	end_header(o, count);
	ox_put_name(o, f->name ? f->name : "", true);
	print_function_attrs(o, f);
	ox_putc(o, ' ');
	size_t j = print_io(o, f, f->n_input, f->input, 0);
	ox_put(o, " => ", 4);
	j = print_io(o, f, f->n_output, f->output, j);
	if (j < f->n_value_info) {
		ox_putc(o, ' ');
		print_vi_list(o, '<', '>', f->n_value_info - j, f->value_info + j);
	}
	ox_newline(o);
	print_nodes(o, f->n_node, f->node, &ctx);
}

/* ---- models ---------------------------------------------------------------------------------- */

static void model_notes(ox_out *o, const void *elem, const void *extra)
{
	const Onnx__ModelProto *m = elem;
	(void)extra;
	entry_notes(o, "opset_import", m->n_opset_import, (const ProtobufCMessage *const *)m->opset_import);
	entry_notes(o, "metadata_props", m->n_metadata_props, (const ProtobufCMessage *const *)m->metadata_props);
	note_field(o, "", &m->base, "training_info");
	note_field(o, "", &m->base, "configuration");
	note_unknown(o, "", &m->base);
	note_absent(o, "", "graph", !m->graph, NULL, false);
}

/* '["k": "v", ...]' for metadata and external data entries, '["domain" : 17, ...]' for
 * opset imports. */
static void print_entries(ox_out *o, size_t n, const ProtobufCMessage *const *e)
{
	ox_putc(o, '[');
	o->indent += 2;
	for (size_t i = 0; i < n; i++) {
		ox_item it = ox_item_begin(o, i == 0);
		if (e[i]->descriptor == &onnx__operator_set_id_proto__descriptor) {
			const Onnx__OperatorSetIdProto *op = (const void *)e[i];
			put_text(o, op->domain);
			ox_put(o, " : ", 3);
			ox_put_int(o, op->has_version ? op->version : 0);
		} else {
			const Onnx__StringStringEntryProto *kv = (const void *)e[i];
			put_text(o, kv->key);
			ox_put(o, ": ", 2);
			put_text(o, kv->value);
		}
		ox_item_end(o, it);
	}
	o->indent -= 2;
	ox_putc(o, ']');
}

static int model_header(ox_out *o, const Onnx__ModelProto *m)
{
	int count = 0;
	if (m->has_ir_version) {
		count = header_entry(o, count, "ir_version");
		ox_put_int(o, m->ir_version);
	}
	if (m->n_opset_import) {
		count = header_entry(o, count, "opset_import");
		print_entries(o, m->n_opset_import, (const ProtobufCMessage *const *)m->opset_import);
	}
	count = header_string(o, count, "producer_name", m->producer_name);
	count = header_string(o, count, "producer_version", m->producer_version);
	count = header_string(o, count, "domain", m->domain);
	if (m->has_model_version) {
		count = header_entry(o, count, "model_version");
		ox_put_int(o, m->model_version);
	}
	count = header_string(o, count, "doc_string", m->doc_string);
	if (m->n_metadata_props) {
		count = header_entry(o, count, "metadata_props");
		print_entries(o, m->n_metadata_props, (const ProtobufCMessage *const *)m->metadata_props);
	}
	return count;
}

static void print_model(ox_out *o, const Onnx__ModelProto *m)
{
	static const Onnx__GraphProto placeholder = ONNX__GRAPH_PROTO__INIT;
	ox_out notes;
	bool annotated = collect(&notes, o, model_notes, m, NULL);
	if (annotated)
		emit(o, &notes);
	else
		ox_out_free(&notes);
	int count = model_header(o, m);
	if (count) {
		end_header(o, count);
	} else if (annotated) {
		ox_puts(o, "<>"); /* gives the model's notes their place */
		ox_newline(o);
	}
	print_graph(o, m->graph ? m->graph : &placeholder, false);
	for (size_t i = 0; i < m->n_functions; i++) {
		ox_newline(o);
		ox_newline(o);
		print_function(o, m->functions[i]);
	}
}

/* ---- entry ------------------------------------------------------------------------------------ */

typedef void print_fn(ox_out *o, const void *m);

static void print_vi_entry(ox_out *o, const void *m)
{
	emit_notes(o, vi_notes, m, NULL);
	print_vi_text(o, m);
}

static void print_attr_entry(ox_out *o, const void *m)
{
	emit_notes(o, attr_notes, m, NULL);
	print_attr(o, m);
}

static void print_tensor_entry(ox_out *o, const void *m)
{
	emit_notes(o, tensor_entry_notes, m, NULL);
	print_tensor_value(o, m);
}

static void print_type_entry(ox_out *o, const void *m)
{
	if (!type_ok(m, false)) {
		if (notes_on(o))
			note_proto(o, m);
		ox_puts(o, "float"); /* a placeholder the proto note replaces */
		return;
	}
	print_type(o, m);
}

static void print_node_entry(ox_out *o, const void *m)
{
	node_ctx ctx = {false};
	print_node(o, m, &ctx);
}

static void print_graph_entry(ox_out *o, const void *m)
{
	print_graph(o, m, false);
}

static void print_function_entry(ox_out *o, const void *m)
{
	print_function(o, m);
}

static void print_model_entry(ox_out *o, const void *m)
{
	print_model(o, m);
}

bool ox_print_message(ox_out *o, const ProtobufCMessage *m)
{
	static const struct {
		const ProtobufCMessageDescriptor *d;
		print_fn *print;
	} entries[] = {
		{&onnx__model_proto__descriptor, print_model_entry},
		{&onnx__graph_proto__descriptor, print_graph_entry},
		{&onnx__function_proto__descriptor, print_function_entry},
		{&onnx__node_proto__descriptor, print_node_entry},
		{&onnx__type_proto__descriptor, print_type_entry},
		{&onnx__tensor_proto__descriptor, print_tensor_entry},
		{&onnx__attribute_proto__descriptor, print_attr_entry},
		{&onnx__value_info_proto__descriptor, print_vi_entry},
	};
	for (size_t i = 0; i < sizeof entries / sizeof *entries; i++)
		if (m->descriptor == entries[i].d) {
			entries[i].print(o, m);
			ox_putc(o, '\n');
			return true;
		}
	return false;
}

/* ---- public API ------------------------------------------------------------------------------- */

/* ONNXTXT_ERR_ARG, "invalid argument: what" */
static OnnxStatus bad_arg(OnnxError *err, const char *what)
{
	ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: %s", what);
	return ONNXTXT_ERR_ARG;
}

static OnnxStatus print_into(ox_out *o, const void *message, OnnxError *err)
{
	if (!message || !ox_print_message(o, message))
		return bad_arg(err, message ? "cannot print this message type" : "message is NULL");
	o->nbreaks = 0; /* printing is over: no line breaks anywhere any more, all goes out */
	o->last.open = false;
	ox_out_flush(o);
	if (*o->nomem) {
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return err->code;
	}
	if (o->failed) {
		ox_error_io(err, o->sys_errno, "cannot write the text");
		return err->code;
	}
	return ONNXTXT_OK;
}

/* Prints message to f, or without one into memory for *text and *len; attrs_apart as
 * ox_print_apart takes it. */
static OnnxStatus print_to(const void *message, unsigned flags, FILE *f, char **text, size_t *len,
			   bool (*attrs_apart)(const void *, const void *), const void *ctx, OnnxError *err)
{
	ox_out o;
	bool nomem = false;
	ox_out_init(&o, f, flags, &nomem);
	o.attrs_apart = attrs_apart;
	o.attrs_ctx = ctx;
	OnnxStatus st = print_into(&o, message, err);
	if (st == ONNXTXT_OK && text)
		return ox_out_take(&o, text, len, err);
	ox_out_free(&o);
	return st;
}

OnnxStatus ox_print_apart(const void *message, unsigned flags, bool (*attrs_apart)(const void *, const void *),
			  const void *ctx, char **text, size_t *len, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!text)
		return bad_arg(err, "text is NULL");
	*text = NULL;
	return print_to(message, flags, NULL, text, len, attrs_apart, ctx, err);
}

OnnxStatus OnnxPrinter_Print(const void *message, unsigned flags, char **text, size_t *len, OnnxError *err)
{
	return ox_print_apart(message, flags, NULL, NULL, text, len, err);
}

OnnxStatus OnnxPrinter_Write(const void *message, unsigned flags, FILE *f, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!f)
		return bad_arg(err, "file is NULL");
	return print_to(message, flags, f, NULL, NULL, NULL, NULL, err);
}

static int write_text(FILE *f, void *ctx, OnnxError *err)
{
	const ox_write_job *job = ctx; /* the message, and the flags to print it with */
	return OnnxPrinter_Write(job->p, (unsigned)job->n, f, err) == ONNXTXT_OK;
}

OnnxStatus OnnxPrinter_WriteFile(const void *message, unsigned flags, const char *path, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!path || !message)
		return ox_error_null(err);
	ox_write_job job = {message, flags};
	return ox_write_atomic(path, write_text, &job, err);
}
