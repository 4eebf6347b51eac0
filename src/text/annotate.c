/* Annotations: "#@" lines before an element carry what the syntax cannot say. Their
 * joined text is parsed by the grammar's annotation entry point into "key: value" items,
 * and each key names a field of the element's protobuf message (dotted for fields of
 * sub-messages), set through protobuf-c's descriptors. So every field of every message
 * can be carried, without a table to keep in sync with proto/onnx.proto. Special keys:
 *   absent: [f, ...]     clear fields the syntax always sets (a node's domain, ...)
 *   raw                  store a tensor's values in raw_data (little-endian)
 *   unknown: "base64"    the message's unknown fields, as protobuf-c packs them
 *   node_domain: absent  in a graph or function: nodes written without a domain leave
 *                        it absent (".Op" marks a present, empty domain)
 * Messages and bytes are base64 (bytes may hold NUL, which a "#@" line cannot);
 * ["k": "v"] lists fill string-string entries; enums take a number or a value name.
 *   proto: "base64"      the whole element, replacing what the text said */
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "build.h"
#include "literal.h"
#include "onnx.h"
#include "proto.h"
#include "tensor.h"
#include "types.h"

typedef struct item {
	char *key;
	ox_annval *value; /* NULL for a flag */
	ox_tok at;
} item;

void ox_annot_push(ox_parser *P, ox_tok t)
{
	if (P->nannots == P->capannots) {
		size_t cap = P->capannots ? 2 * P->capannots : 16;
		ox_tok *a = realloc(P->annots, cap * sizeof *a);
		if (!a)
			ox_fail_memory(P);
		P->annots = a;
		P->capannots = cap;
	}
	P->annots[P->nannots++] = t;
}

/* ---- grammar actions -------------------------------------------------------------- */

void ox_annot_item(ox_parser *P, char *key, ox_annval *value)
{
	item *it = ox_alloc(P, sizeof *it);
	it->key = key;
	it->value = value;
	it->at = value ? value->tok : P->prev;
	ox_push(P, it);
}

char *ox_indexed(ox_parser *P, char *key, ox_tok index)
{
	size_t k = strlen(key);
	char *s = ox_alloc(P, k + index.n + 3);
	memcpy(s, key, k);
	s[k] = '[';
	memcpy(s + k + 1, index.p, index.n);
	s[k + 1 + index.n] = ']';
	s[k + 2 + index.n] = '\0';
	return s;
}

ox_annval *ox_annval_token(ox_parser *P, int kind, ox_tok t)
{
	ox_annval *v = ox_alloc(P, sizeof *v);
	v->kind = kind;
	v->tok = t;
	return v;
}

ox_annval *ox_annval_list(ox_parser *P, size_t mark)
{
	ox_annval *v = ox_annval_token(P, OX_AV_LIST, P->prev);
	v->items = (ox_annval **)ox_take(P, mark, &v->n);
	return v;
}

ox_annval *ox_annval_entries(ox_parser *P, size_t mark)
{
	ox_annval *v = ox_annval_token(P, OX_AV_ENTRIES, P->prev);
	v->entries = (Onnx__StringStringEntryProto **)ox_take(P, mark, &v->n);
	return v;
}

/* ---- values ------------------------------------------------------------------------- */

static const char *name_of(const ProtobufCMessage *m)
{
	return m->descriptor->short_name;
}

static _Noreturn void bad_value(ox_parser *P, const item *it, const char *want)
{
	ox_fail(P, &it->at, ONNXTXT_ERR_VALUE, "annotation '%s' needs %s", it->key, want);
}

static const ox_annval *expect(ox_parser *P, const item *it, const ox_annval *v, int kind, const char *want)
{
	if (!v || v->kind != kind)
		bad_value(P, it, want);
	return v;
}

static void *decode_base64(ox_parser *P, const item *it, const ox_annval *v, size_t *len)
{
	expect(P, it, v, TK_STRING, "a base64 string");
	ProtobufCBinaryData b = ox_bytes(P, v->tok);
	unsigned char *out = ox_alloc(P, b.len / 4 * 3 + 1);
	*len = ox_base64_decode(out, (const char *)b.data, b.len);
	if (*len == SIZE_MAX)
		ox_fail(P, &v->tok, ONNXTXT_ERR_VALUE, "annotation '%s': malformed base64", it->key);
	return out;
}

static void *decode_message(ox_parser *P, const item *it, const ox_annval *v, const ProtobufCMessageDescriptor *d)
{
	size_t len;
	void *bytes = decode_base64(P, it, v, &len);
	OnnxError err;
	if (!ox_binary_check(d, bytes, len, &err))
		ox_fail(P, &v->tok, ONNXTXT_ERR_VALUE, "annotation '%s': %s", it->key, err.message);
	ProtobufCAllocator alloc = ox_arena_allocator(P->arena);
	void *m = protobuf_c_message_unpack(d, &alloc, len, bytes);
	if (!m)
		ox_fail_memory(P);
	return m;
}

static int64_t integer(ox_parser *P, const item *it, const ox_annval *v, const ProtobufCFieldDescriptor *fd)
{
	if (fd->type == PROTOBUF_C_TYPE_ENUM && v && v->kind == TK_ID) {
		char *name = ox_name(P, v->tok);
		const ProtobufCEnumValue *e =
			protobuf_c_enum_descriptor_get_value_by_name(fd->descriptor, name);
		if (!e)
			ox_fail(P, &v->tok, ONNXTXT_ERR_VALUE, "annotation '%s': no value %s in %s", it->key, name,
				((const ProtobufCEnumDescriptor *)fd->descriptor)->short_name);
		return e->value;
	}
	expect(P, it, v, TK_INT, "an integer");
	bool is_unsigned = fd->type == PROTOBUF_C_TYPE_UINT32 || fd->type == PROTOBUF_C_TYPE_FIXED32 ||
			   fd->type == PROTOBUF_C_TYPE_UINT64 || fd->type == PROTOBUF_C_TYPE_FIXED64;
	bool wide = fd->type == PROTOBUF_C_TYPE_INT64 || fd->type == PROTOBUF_C_TYPE_SINT64 ||
		    fd->type == PROTOBUF_C_TYPE_SFIXED64 || fd->type == PROTOBUF_C_TYPE_UINT64 ||
		    fd->type == PROTOBUF_C_TYPE_FIXED64;
	int64_t i = 0;
	uint64_t u = 0;
	bool ok = is_unsigned ? ox_parse_u64(v->tok.p, v->tok.n, &u) == OX_NUM_OK
			      : ox_parse_i64(v->tok.p, v->tok.n, &i) == OX_NUM_OK;
	if (is_unsigned) {
		ok = ok && (wide || u <= UINT32_MAX);
		i = (int64_t)u;
	} else {
		ok = ok && (wide || (i >= INT32_MIN && i <= INT32_MAX));
	}
	if (!ok)
		ox_fail(P, &v->tok, ONNXTXT_ERR_VALUE, "annotation '%s': %.*s is out of range", it->key, (int)v->tok.n,
			v->tok.p);
	return i;
}

/* Stores one value of the field's type at dst. */
static void store(ox_parser *P, const item *it, const ox_annval *v, const ProtobufCFieldDescriptor *fd, void *dst)
{
	switch (fd->type) {
	case PROTOBUF_C_TYPE_STRING:
		*(char **)dst = ox_name(P, expect(P, it, v, TK_STRING, "a string")->tok);
		break;
	case PROTOBUF_C_TYPE_BYTES: {
		ProtobufCBinaryData *b = dst;
		b->data = decode_base64(P, it, v, &b->len);
		break;
	}
	case PROTOBUF_C_TYPE_MESSAGE:
		*(void **)dst = decode_message(P, it, v, fd->descriptor);
		break;
	case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_DOUBLE: {
		if (!v || (v->kind != TK_INT && v->kind != TK_FLOAT))
			bad_value(P, it, "a number");
		bool ok = fd->type == PROTOBUF_C_TYPE_FLOAT ? ox_parse_float(v->tok.p, v->tok.n, dst) == OX_NUM_OK
							    : ox_parse_double(v->tok.p, v->tok.n, dst) == OX_NUM_OK;
		if (!ok)
			ox_fail(P, &v->tok, ONNXTXT_ERR_VALUE, "annotation '%s': number out of range", it->key);
		break;
	}
	default: {
		int64_t i = integer(P, it, v, fd);
		if (ox_field_value_size(fd) == 4)
			*(int32_t *)dst = (int32_t)i;
		else
			*(int64_t *)dst = i;
	}
	}
}

static void set_repeated(ox_parser *P, const item *it, char *m, const ProtobufCFieldDescriptor *fd)
{
	size_t *n = (size_t *)(m + fd->quantifier_offset);
	void **array = (void **)(m + fd->offset);
	const ox_annval *v = it->value;
	if (v && v->kind == OX_AV_ENTRIES && fd->descriptor == &onnx__string_string_entry_proto__descriptor) {
		*n = v->n;
		*array = v->entries;
		return;
	}
	if (!v || (v->kind != OX_AV_LIST && v->kind != OX_AV_ENTRIES))
		bad_value(P, it, "a list");
	if (v->kind == OX_AV_ENTRIES && v->n)
		bad_value(P, it, "a list of values");
	size_t size = ox_field_value_size(fd);
	char *values = v->n ? ox_alloc(P, v->n * size) : NULL;
	for (size_t i = 0; i < v->n; i++)
		store(P, it, v->items[i], fd, values + i * size);
	*n = v->n;
	*array = values;
}

static void set_field(ox_parser *P, const item *it, ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd)
{
	char *m = (char *)msg;
	if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
		set_repeated(P, it, m, fd);
		return;
	}
	store(P, it, it->value, fd, m + fd->offset);
	if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
		*(uint32_t *)(m + fd->quantifier_offset) = fd->id;
	else if (fd->type != PROTOBUF_C_TYPE_STRING && fd->type != PROTOBUF_C_TYPE_MESSAGE)
		*(protobuf_c_boolean *)(m + fd->quantifier_offset) = 1;
}

/* ---- special keys ------------------------------------------------------------------- */

static const ProtobufCFieldDescriptor *field(ox_parser *P, const item *it, const ProtobufCMessage *m, const char *name)
{
	const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, name);
	if (!fd)
		ox_fail(P, &it->at, ONNXTXT_ERR_VALUE, "annotation '%s': %s has no field '%s'", it->key, name_of(m),
			name);
	return fd;
}

static void absent(ox_parser *P, const item *it, ProtobufCMessage *m)
{
	const ox_annval *v = expect(P, it, it->value, OX_AV_LIST, "a list of field names");
	for (size_t i = 0; i < v->n; i++) {
		const ox_annval *f = v->items[i];
		if (f->kind != TK_ID)
			bad_value(P, it, "a list of field names");
		ox_field_clear(m, field(P, it, m, ox_name(P, f->tok)));
	}
}

/* Splits the bytes protobuf-c writes for unknown fields back into fields. */
static void unknown(ox_parser *P, const item *it, ProtobufCMessage *m)
{
	size_t len, n = 0, at = 0;
	unsigned char *b = decode_base64(P, it, it->value, &len);
	ProtobufCMessageUnknownField *f = ox_alloc(P, (len / 2 + 1) * sizeof *f);
	while (at < len) {
		uint64_t tag = 0, size = 0;
		int shift = 0;
		while (at < len && shift < 64 && (b[at] & 0x80))
			tag |= (uint64_t)(b[at++] & 0x7f) << shift, shift += 7;
		if (at >= len || shift >= 64)
			bad_value(P, it, "well-formed unknown fields");
		tag |= (uint64_t)b[at++] << shift;
		size_t start = at;
		int wt = (int)(tag & 7);
		if (wt == 0 || wt == 2) {
			for (shift = 0; at < len && shift < 64; shift += 7) {
				size |= (uint64_t)(b[at] & 0x7f) << shift;
				if (!(b[at++] & 0x80))
					break;
			}
			if (wt == 0)
				size = 0;
		} else if (wt == 1 || wt == 5) {
			size = wt == 1 ? 8 : 4;
		} else {
			bad_value(P, it, "well-formed unknown fields");
		}
		if (size > len - at || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
			bad_value(P, it, "well-formed unknown fields");
		at += (size_t)size;
		f[n++] = (ProtobufCMessageUnknownField){(uint32_t)(tag >> 3), (ProtobufCWireType)wt, at - start,
							 b + start};
	}
	m->n_unknown_fields = (unsigned)n;
	m->unknown_fields = f;
}

/* "raw": moves a tensor's values from its typed field into raw_data. */
static void raw(ox_parser *P, const item *it, ProtobufCMessage *m)
{
	if (m->descriptor != &onnx__tensor_proto__descriptor)
		ox_fail(P, &it->at, ONNXTXT_ERR_VALUE, "annotation 'raw' applies to tensors, not to a %s", name_of(m));
	Onnx__TensorProto *t = (Onnx__TensorProto *)m;
	if (t->n_string_data)
		ox_fail(P, &it->at, ONNXTXT_ERR_VALUE, "a string tensor cannot be stored as raw data");
	if (!ox_tensor_make_raw(P->arena, t))
		ox_fail_memory(P);
}

static void node_domain(ox_parser *P, const item *it, ProtobufCMessage *m)
{
	if (m->descriptor != &onnx__graph_proto__descriptor && m->descriptor != &onnx__function_proto__descriptor)
		ox_fail(P, &it->at, ONNXTXT_ERR_VALUE, "annotation 'node_domain' applies to graphs and functions");
	const ox_annval *v = expect(P, it, it->value, TK_ID, "'absent'");
	if (v->tok.n != 6 || memcmp(v->tok.p, "absent", 6))
		bad_value(P, it, "'absent'");
	ox_set_node_domain_absent(P);
}

/* ---- paths -------------------------------------------------------------------------- */

/* Follows "a.b[2].c" to the message that holds the last field; returns that field's name. */
static ProtobufCMessage *resolve(ox_parser *P, const item *it, ProtobufCMessage *m, char **last)
{
	char *path = ox_name(P, (ox_tok){it->key, (uint32_t)strlen(it->key), 0, 0});
	char *dot;
	while ((dot = strchr(path, '.'))) {
		*dot = '\0';
		char *bracket = strchr(path, '[');
		long index = -1;
		if (bracket) {
			*bracket = '\0';
			index = strtol(bracket + 1, NULL, 10);
		}
		const ProtobufCFieldDescriptor *fd = field(P, it, m, path);
		char *base = (char *)m;
		bool repeated = fd->label == PROTOBUF_C_LABEL_REPEATED;
		if (fd->type != PROTOBUF_C_TYPE_MESSAGE || repeated != (index >= 0))
			ox_fail(P, &it->at, ONNXTXT_ERR_VALUE, "annotation '%s': '%s' is not a %s", it->key, path,
				repeated ? "list to index" : "message field");
		if (repeated) {
			size_t *n = (size_t *)(base + fd->quantifier_offset);
			ProtobufCMessage ***array = (ProtobufCMessage ***)(base + fd->offset);
			if ((size_t)index == *n) { /* the next index adds an element */
				ProtobufCMessage **grown = ox_alloc(P, (*n + 1) * sizeof *grown);
				if (*n)
					memcpy(grown, *array, *n * sizeof *grown);
				grown[(*n)++] = ox_new(P, fd->descriptor);
				*array = grown;
			}
			if ((size_t)index >= *n)
				ox_fail(P, &it->at, ONNXTXT_ERR_VALUE,
					"annotation '%s': no element %ld ('%s' has %zu; the next index, %zu, adds one)",
					it->key, index, path, *n, *n);
			m = (*array)[index];
		} else {
			ProtobufCMessage **sub = (ProtobufCMessage **)(base + fd->offset);
			bool oneof = fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF;
			if (oneof && *(uint32_t *)(base + fd->quantifier_offset) != fd->id && *sub)
				ox_fail(P, &it->at, ONNXTXT_ERR_VALUE, "annotation '%s': '%s' is not the one set", it->key,
					path);
			if (!*sub) {
				*sub = ox_new(P, fd->descriptor);
				if (oneof)
					*(uint32_t *)(base + fd->quantifier_offset) = fd->id;
			}
			m = *sub;
		}
		path = dot + 1;
	}
	*last = path;
	return m;
}

static void apply(ox_parser *P, ProtobufCMessage *root, const item *it)
{
	char *key;
	ProtobufCMessage *m = resolve(P, it, root, &key);
	if (strcmp(key, "absent") == 0)
		absent(P, it, m);
	else if (strcmp(key, "raw") == 0 && !it->value)
		raw(P, it, m);
	else if (strcmp(key, "unknown") == 0)
		unknown(P, it, m);
	else if (strcmp(key, "node_domain") == 0)
		node_domain(P, it, m);
	else if (strcmp(key, "proto") == 0)
		memcpy(m, decode_message(P, it, it->value, m->descriptor), m->descriptor->sizeof_message);
	else
		set_field(P, it, m, field(P, it, m, key));
}

/* ---- blocks ------------------------------------------------------------------------- */

/* Joins the block's lines, each without its "#@" and one following space. */
static void join(ox_parser *P, size_t mark)
{
	size_t lines = P->nannots - mark, len = 0;
	for (size_t i = mark; i < P->nannots; i++)
		len += P->annots[i].n + 1;
	char *text = ox_alloc(P, len + 1);
	size_t *starts = ox_alloc(P, lines * sizeof *starts);
	const char **srcs = ox_alloc(P, lines * sizeof *srcs);
	size_t at = 0;
	for (size_t i = 0; i < lines; i++) {
		const ox_tok *t = &P->annots[mark + i];
		size_t skip = 2 + (t->n > 2 && t->p[2] == ' ');
		starts[i] = at;
		srcs[i] = t->p + skip;
		memcpy(text + at, t->p + skip, t->n - skip);
		at += t->n - skip;
		text[at++] = '\n';
	}
	P->ann_text = text;
	P->ann_len = at;
	P->ann_lines = lines;
	P->ann_line_start = starts;
	P->ann_line_src = srcs;
}

/* Parses the block from mark and applies its items (only node_domain, or all others),
 * consuming the block's lines unless they are needed again. */
static void annotate_part(ox_parser *P, void *message, size_t mark, enum ox_annotate_part part)
{
	if (mark >= P->nannots)
		return;
	size_t end = P->nannots;
	join(P, mark);
	P->nannots = mark;
	size_t items = P->top;
	ox_parse_nested(P, TK_ENTRY_ANNOTATION, P->ann_text, P->ann_len);
	for (size_t i = items; i < P->top; i++) {
		const item *it = P->stack[i].p;
		bool domain = strcmp(it->key, "node_domain") == 0;
		if (part == OX_ANN_ALL || (part == OX_ANN_NODE_DOMAIN) == domain)
			apply(P, message, it);
	}
	P->top = items;
	P->ann_text = NULL;
	if (part == OX_ANN_NODE_DOMAIN)
		P->nannots = end; /* the rest applies when the function ends */
}

void ox_annotate(ox_parser *P, void *message, size_t mark)
{
	annotate_part(P, message, mark, OX_ANN_ALL);
}

void ox_annotate_some(ox_parser *P, void *message, size_t mark, enum ox_annotate_part part)
{
	annotate_part(P, message, mark, part);
}

void ox_annotate_value_info(ox_parser *P, Onnx__ValueInfoProto *vi, Onnx__TensorProto *init, size_t mark)
{
	ox_annotate(P, vi ? (void *)vi : (void *)init, mark);
}
