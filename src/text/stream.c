/* Streaming text -> binary: packed nodes accumulate in chunks; the model is then written
 * as its fields before the graph, the graph (streamed nodes first: field 1 comes first),
 * and its fields after it, which is the order protobuf-c packs them in. */
#include "stream.h"

#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define CHUNK (1u << 20)

struct ox_chunk {
	ox_chunk *next;
	size_t len, cap;
	unsigned char data[];
};

/* n contiguous bytes at the end of the last chunk (a node never straddles two). */
static unsigned char *room(ox_sink *s, size_t n)
{
	if (!s->tail || s->tail->cap - s->tail->len < n) {
		size_t cap = n > CHUNK ? n : CHUNK;
		ox_chunk *c = malloc(sizeof *c + cap);
		if (!c) {
			s->failed = 1;
			return NULL;
		}
		c->next = NULL;
		c->len = 0;
		c->cap = cap;
		if (s->tail)
			s->tail->next = c;
		else
			s->head = c;
		s->tail = c;
	}
	return s->tail->data + s->tail->len;
}

static size_t varint(unsigned char *out, uint64_t v)
{
	size_t n = 0;
	for (; v >= 0x80; v >>= 7)
		out[n++] = (unsigned char)(v | 0x80);
	out[n++] = (unsigned char)v;
	return n;
}

int ox_sink_node(ox_sink *s, const Onnx__NodeProto *node)
{
	size_t size = protobuf_c_message_get_packed_size(&node->base);
	unsigned char *d = room(s, size + 11);
	if (!d)
		return 0;
	d[0] = 1 << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED; /* GraphProto.node */
	size_t n = 1 + varint(d + 1, size);
	n += protobuf_c_message_pack(&node->base, d + n);
	s->tail->len += n;
	s->total += n;
	return 1;
}

void ox_sink_free(ox_sink *s)
{
	for (ox_chunk *c = s->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(s, 0, sizeof *s);
}

typedef struct file_buffer {
	ProtobufCBuffer base;
	FILE *f;
} file_buffer;

static void file_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	fwrite(data, 1, len, ((file_buffer *)b)->f);
}

/* The model with only the fields numbered below (before) or above (!before) the graph. */
static Onnx__ModelProto split(const Onnx__ModelProto *m, uint32_t graph_id, int before)
{
	Onnx__ModelProto part = *m;
	const ProtobufCMessageDescriptor *d = m->base.descriptor;
	for (unsigned i = 0; i < d->n_fields; i++)
		if (before ? d->fields[i].id >= graph_id : d->fields[i].id <= graph_id)
			ox_field_clear(&part.base, &d->fields[i]);
	if (before) {
		part.base.n_unknown_fields = 0; /* protobuf-c packs unknown fields last */
		part.base.unknown_fields = NULL;
	}
	return part;
}

int ox_sink_write_model(ox_sink *s, Onnx__ModelProto *m, FILE *f)
{
	file_buffer out = {{file_append}, f};
	if (!m->graph) { /* an annotation removed the graph, and the nodes with it */
		protobuf_c_message_pack_to_buffer(&m->base, &out.base);
		return !ferror(f);
	}
	uint32_t graph_id = protobuf_c_message_descriptor_get_field_by_name(m->base.descriptor, "graph")->id;
	Onnx__ModelProto head = split(m, graph_id, 1), tail = split(m, graph_id, 0);
	protobuf_c_message_pack_to_buffer(&head.base, &out.base);
	unsigned char tag[12];
	size_t n = varint(tag + 1, s->total + protobuf_c_message_get_packed_size(&m->graph->base));
	tag[0] = (unsigned char)(graph_id << 3 | PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED);
	fwrite(tag, 1, n + 1, f);
	for (ox_chunk *c = s->head; c; c = c->next)
		fwrite(c->data, 1, c->len, f);
	protobuf_c_message_pack_to_buffer(&m->graph->base, &out.base);
	protobuf_c_message_pack_to_buffer(&tail.base, &out.base);
	return !ferror(f);
}
