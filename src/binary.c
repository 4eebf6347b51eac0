/* Binary .onnx: a wire-format scan checks structure and nesting depth and names the field
 * path of the first problem (protobuf-c's unpack recurses without a limit and only says
 * "failed"); then protobuf-c unpacks into an arena and packs back out. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "binary.h"
#include "diag.h"
#include "file.h"
#include "onnxtxt/onnxtxt.h"

typedef struct frame {
	const struct frame *up;
	const ProtobufCFieldDescriptor *field; /* how we got here; NULL at the root */
	unsigned index;                        /* element of a repeated field */
} frame;

/* "graph.node[12].attribute[3]"; a path too long for the message keeps its last fields,
 * behind "...". */
static void path_of(const frame *f, char *out, size_t size)
{
	char part[160];
	size_t used = 0;
	out[size - 1] = '\0';
	for (; f && f->field; f = f->up) {
		const ProtobufCFieldDescriptor *fd = f->field;
		int w = fd->label == PROTOBUF_C_LABEL_REPEATED ? snprintf(part, sizeof part, "%s[%u]", fd->name, f->index)
							      : snprintf(part, sizeof part, "%s", fd->name);
		size_t k = (size_t)w + (used ? 1 : 0);
		if (used + k + 4 >= size) {
			memcpy(out + size - 1 - used - 4, "...", 3);
			out[size - 1 - used - 1] = '.';
			used += 4;
			break;
		}
		if (used)
			out[size - 1 - used - 1] = '.';
		memcpy(out + size - 1 - used - k, part, (size_t)w);
		used += k;
	}
	memmove(out, out + size - 1 - used, used + 1);
}

static int fail_with(OnnxError *err, OnnxStatus code, const frame *f, size_t offset, const char *what)
{
	char path[300];
	path_of(f, path, sizeof path);
	ox_error_set(err, code, "%s%s%s (at byte %zu)", path, path[0] ? ": " : "", what, offset);
	err->offset = offset;
	return 0;
}

static int fail(OnnxError *err, const frame *f, size_t offset, const char *what)
{
	return fail_with(err, ONNXTXT_ERR_BINARY, f, offset, what);
}

static int varint(const uint8_t *p, size_t n, size_t *at, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 70 && *at < n; shift += 7) {
		uint8_t b = p[(*at)++];
		x |= (uint64_t)(b & 0x7f) << (shift < 64 ? shift : 0);
		if (!(b & 0x80)) {
			*v = x;
			return shift < 64;
		}
	}
	return 0;
}

static int wire_type_of(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT: return 5;
	case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE: return 1;
	case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES: case PROTOBUF_C_TYPE_MESSAGE: return 2;
	default: return 0;
	}
}

/* A packed run must hold whole elements. */
static int packed_ok(const ProtobufCFieldDescriptor *fd, const uint8_t *p, size_t len)
{
	int wt = wire_type_of(fd->type);
	if (wt == 5)
		return len % 4 == 0;
	if (wt == 1)
		return len % 8 == 0;
	size_t at = 0;
	uint64_t v;
	while (at < len)
		if (!varint(p, len, &at, &v))
			return 0;
	return 1;
}

static int scan(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n, size_t base, const frame *f,
		int depth, OnnxError *err);

/* Whether a message of type d, in bytes p[0..n) already scanned, sets a member of a oneof. */
static bool sets_oneof(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n)
{
	size_t at = 0;
	uint64_t tag, v;
	while (at < n && varint(p, n, &at, &tag)) {
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, (unsigned)(tag >> 3));
		if (fd && (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF))
			return true;
		int wt = (int)(tag & 7);
		if (wt == 0 || wt == 2) {
			if (!varint(p, n, &at, &v))
				return false;
			at += wt == 2 ? (size_t)v : 0;
		} else {
			at += wt == 1 ? 8 : 4;
		}
	}
	return false;
}

static bool has_oneof(const ProtobufCMessageDescriptor *d)
{
	for (unsigned i = 0; i < d->n_fields; i++)
		if (d->fields[i].flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
			return true;
	return false;
}

/* A message field given more than once is merged; protobuf-c 1.4 fails to merge two
 * messages of a type with a oneof (TypeProto) when neither sets it, where protobuf proper
 * gives the empty message. *state, per field of the enclosing message: 0 not seen, 1 seen
 * without the oneof, 2 seen with it. */
static int mergeable(const ProtobufCFieldDescriptor *fd, const uint8_t *p, size_t len, unsigned char *state)
{
	if (fd->label == PROTOBUF_C_LABEL_REPEATED || !has_oneof(fd->descriptor))
		return 1;
	bool set = sets_oneof(fd->descriptor, p, len);
	if (*state == 1 && !set)
		return 0;
	*state = *state == 2 || set ? 2 : 1;
	return 1;
}

static int scan_field(const ProtobufCFieldDescriptor *fd, const uint8_t *p, size_t len, size_t base,
		      const frame *here, int depth, unsigned char *merge_state, OnnxError *err)
{
	if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
		if (depth >= ONNXTXT_MAX_MESSAGE_DEPTH)
			return fail_with(err, ONNXTXT_ERR_LIMIT, here, base,
					 "messages nested too deeply (more than " OX_STR(ONNXTXT_MAX_MESSAGE_DEPTH)
					 " levels)");
		if (!scan(fd->descriptor, p, len, base, here, depth + 1, err))
			return 0;
		if (!mergeable(fd, p, len, merge_state))
			return fail(err, here, base,
				    "given again, with no value either time, which protobuf-c cannot merge");
		return 1;
	}
	if (fd->type == PROTOBUF_C_TYPE_STRING && memchr(p, '\0', len))
		return fail(err, here, base, "a string with a NUL byte, which protobuf-c cannot keep");
	if (fd->type != PROTOBUF_C_TYPE_STRING && fd->type != PROTOBUF_C_TYPE_BYTES && !packed_ok(fd, p, len))
		return fail(err, here, base, "packed values do not fill the field exactly");
	return 1;
}

static int scan(const ProtobufCMessageDescriptor *d, const uint8_t *p, size_t n, size_t base, const frame *f,
		int depth, OnnxError *err)
{
	unsigned counts[64] = {0};
	unsigned char merge_state[64] = {0}, spare = 0;
	size_t at = 0;
	while (at < n) {
		size_t start = at;
		uint64_t tag, len;
		/* protobuf-c reads tags and lengths of at most five bytes */
		if (!varint(p, n, &at, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff || at - start > 5)
			return fail(err, f, base + start, "malformed field tag");
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, (unsigned)(tag >> 3));
		int wt = (int)(tag & 7);
		unsigned idx = 0, k = fd ? (unsigned)(fd - d->fields) : 64;
		if (fd)
			idx = k < 64 ? counts[k]++ : 0;
		frame here = {f, fd, idx};
		switch (wt) {
		case 0:
			if (!varint(p, n, &at, &len))
				return fail(err, fd ? &here : f, base + start, "malformed varint");
			break;
		case 1:
		case 5:
			if (n - at < (wt == 1 ? 8u : 4u))
				return fail(err, fd ? &here : f, base + start, "truncated fixed-width value");
			at += wt == 1 ? 8 : 4;
			break;
		case 2: {
			size_t len_at = at;
			if (!varint(p, n, &at, &len) || len > n - at)
				return fail(err, fd ? &here : f, base + start, "length runs past the end of the data");
			if (at - len_at > 5)
				return fail(err, fd ? &here : f, base + start, "malformed length (more than five bytes)");
			if (fd && !scan_field(fd, p + at, (size_t)len, base + at, &here, depth,
					      k < 64 ? &merge_state[k] : &spare, err))
				return 0;
			at += (size_t)len;
			break;
		}
		default:
			return fail(err, fd ? &here : f, base + start, "unsupported wire type (groups are not used by ONNX)");
		}
		if (fd && wt != wire_type_of(fd->type) &&
		    !(wt == 2 && fd->label == PROTOBUF_C_LABEL_REPEATED && wire_type_of(fd->type) != 2))
			return fail(err, &here, base + start, "wire type does not match the field's type");
	}
	return 1;
}

int ox_binary_check(const ProtobufCMessageDescriptor *d, const void *data, size_t len, OnnxError *err)
{
	return scan(d, data, len, 0, NULL, 0, err);
}

/* protobuf-c's allocator over an arena, remembering whether an allocation failed: unpack
 * then returns NULL, as it does for bytes it cannot read. */
typedef struct unpack_alloc {
	ox_arena *arena;
	bool failed;
} unpack_alloc;

/* Large allocations (the bytes of raw_data, mostly) start on 64 bytes, so that the
 * evaluator can use an initializer's raw bytes in place as tensor data
 * (ox_val_borrow_tensor_proto); the arena aligns to 8 only. */
#define RAW_ALIGN 64
#define RAW_MIN 4096

static void *unpack_alloc_fn(void *data, size_t size)
{
	unpack_alloc *u = data;
	bool big = size >= RAW_MIN;
	char *p = ox_arena_alloc(u->arena, big ? size + RAW_ALIGN - 1 : size);
	u->failed |= !p;
	if (p && big)
		p += (RAW_ALIGN - (uintptr_t)p % RAW_ALIGN) % RAW_ALIGN;
	return p;
}

static void unpack_free_fn(void *data, void *p)
{
	(void)data;
	(void)p;
}

void *ox_binary_unpack(const ProtobufCMessageDescriptor *d, const void *data, size_t len, OnnxError *err)
{
	if (!ox_binary_check(d, data, len, err))
		return NULL;
	unpack_alloc u = {ox_arena_new(), false};
	if (!u.arena) {
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	ox_arena_set_limit(u.arena, ox_memory_limit(len));
	ProtobufCAllocator alloc = {.alloc = unpack_alloc_fn, .free = unpack_free_fn, .allocator_data = &u};
	ProtobufCMessage *m = protobuf_c_message_unpack(d, &alloc, len, data);
	void *root = m ? ox_arena_root(u.arena, d->sizeof_message) : NULL;
	if (!root) {
		bool nomem = !m ? u.failed : true, over = ox_arena_over(u.arena);
		ox_arena_free(u.arena);
		if (over)
			ox_error_set(err, ONNXTXT_ERR_LIMIT,
				     "the model would take more than %zu MiB of memory (%d bytes per byte of input, plus "
				     "%u MiB)",
				     ox_memory_limit(len) >> 20, ONNXTXT_MAX_EXPANSION, (unsigned)(ox_memory_base >> 20));
		else
			ox_error_set(err, nomem ? ONNXTXT_ERR_NOMEM : ONNXTXT_ERR_BINARY,
				     nomem ? "out of memory" : "protobuf-c could not unpack the data");
		return NULL;
	}
	ox_arena_set_limit(u.arena, 0); /* the limit was for unpacking */
	memcpy(root, m, d->sizeof_message); /* nothing points at the top-level struct */
	return root;
}

OnnxStatus OnnxBinary_Read(const void *data, size_t len, Onnx__ModelProto **out, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (out)
		*out = NULL;
	if (!out || (!data && len))
		return ox_error_null(err);
	*out = ox_binary_unpack(&onnx__model_proto__descriptor, data ? data : "", len, err);
	return *out ? ONNXTXT_OK : err->code;
}

OnnxStatus OnnxBinary_ReadFile(const char *path, Onnx__ModelProto **out, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (out)
		*out = NULL;
	if (!out)
		return ox_error_null(err);
	ox_file_view f;
	OnnxStatus st = ox_view_file(path, &f, err);
	if (st == ONNXTXT_OK) {
		/* the model keeps no pointer into f: unpacking copies what it keeps */
		st = OnnxBinary_Read(f.data, f.len, out, err);
		ox_file_view_release(&f);
	}
	return st;
}

OnnxStatus OnnxBinary_Write(const Onnx__ModelProto *model, void **data, size_t *len, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!model || !data || !len)
		return ox_error_null(err);
	size_t n = protobuf_c_message_get_packed_size(&model->base);
	*data = malloc(n ? n : 1);
	if (!*data) {
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return err->code;
	}
	*len = protobuf_c_message_pack(&model->base, *data);
	return ONNXTXT_OK;
}

/* Packs straight into the output file, so no second copy of the model is held. */
typedef struct file_buffer {
	ProtobufCBuffer base;
	FILE *f;
} file_buffer;

static void file_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	file_buffer *fb = (file_buffer *)b;
	fwrite(data, 1, len, fb->f);
}

static int pack_to(FILE *f, void *model, OnnxError *err)
{
	(void)err;
	file_buffer fb = {{file_append}, f};
	protobuf_c_message_pack_to_buffer(model, &fb.base);
	return !ferror(f);
}

OnnxStatus OnnxBinary_WriteFile(const Onnx__ModelProto *model, const char *path, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!model || !path)
		return ox_error_null(err);
	return ox_write_atomic(path, pack_to, (void *)model, err);
}
