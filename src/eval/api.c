/* The public evaluation API: OnnxValue (an ox_val behind an opaque name) and OnnxSession
 * (a plan, the bound inputs and the outputs of the last run). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "binary.h"
#include "budget.h"
#include "convert.h"
#include "diag.h"
#include "exec.h"
#include "file.h"
#include "threads.h"

struct OnnxSession {
	ox_arena *arena;
	ox_plan *plan;
	ox_budget *budget; /* limits of each run */
	bool optimize;     /* session-time work (folding, fusion, packed weights) still to do */
	ox_pool *pool;
	ox_blocks *blocks; /* the memory plan: blocks of dead values, kept for the next run */
	ox_val **inputs;
	ox_val **outputs;
	size_t ninputs, noutputs;
};

#define VAL(v) ((ox_val *)(v))
#define PUB(v) ((OnnxValue *)(v))

/* ---- values ---------------------------------------------------------------------------- */

OnnxStatus OnnxValue_NewTensor(int elem_type, const int64_t *dims, size_t rank, const void *data, OnnxValue **out,
			       OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!out || (rank && !dims))
		return ox_error_null(err);
	const char *why = "rank exceeds the limit of 16";
	ox_val *v = rank <= OX_MAX_RANK ? ox_tensor_new(elem_type, (int)rank, dims, &why) : NULL;
	if (!v) {
		ox_error_set(err, strcmp(why, "out of memory") ? ONNXTXT_ERR_VALUE : ONNXTXT_ERR_NOMEM, "%s", why);
		return err->code;
	}
	size_t es = ox_elem_size(elem_type), n = (size_t)v->count;
	if (elem_type == OX_STRING) {
		const char *const *s = data;
		for (size_t i = 0; s && i < n; i++)
			if (!ox_str_set(&((ox_str *)v->data)[i], s[i] ? s[i] : "", s[i] ? strlen(s[i]) : 0)) {
				ox_val_unref(v);
				ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
				return err->code;
			}
	} else if (n) {
		if (data)
			memcpy(v->data, data, n * es);
		else
			memset(v->data, 0, n * es);
	}
	*out = PUB(v);
	return ONNXTXT_OK;
}

OnnxStatus OnnxValue_FromProto(const void *message, OnnxValue **out, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!message || !out)
		return ox_error_null(err);
	const ProtobufCMessageDescriptor *d = ((const ProtobufCMessage *)message)->descriptor;
	ox_val *v = d == &onnx__tensor_proto__descriptor     ? ox_val_from_tensor_proto(message, err->message)
		    : d == &onnx__sequence_proto__descriptor ? ox_val_from_sequence_proto(message, err->message)
		    : d == &onnx__optional_proto__descriptor ? ox_val_from_optional_proto(message, err->message)
		    : d == &onnx__map_proto__descriptor      ? ox_val_from_map_proto(message, err->message)
							     : NULL;
	if (!v) {
		err->code = ox_convert_status(err->message, ONNXTXT_ERR_VALUE);
		if (!err->message[0])
			snprintf(err->message, sizeof err->message, "a value is a TensorProto, SequenceProto, OptionalProto or MapProto");
		return err->code;
	}
	*out = PUB(v);
	return ONNXTXT_OK;
}

static void *to_proto(ox_arena *a, const ox_val *v, const char *name)
{
	switch (v->kind) {
	case OX_TENSOR: return ox_val_to_tensor_proto(a, v, name);
	case OX_SEQUENCE: return ox_val_to_sequence_proto(a, v, name);
	case OX_MAP: return ox_val_to_map_proto(a, v, name);
	default: return ox_val_to_optional_proto(a, v, name);
	}
}

OnnxStatus OnnxValue_ToProto(const OnnxValue *v, const char *name, void **message, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!v || !message)
		return ox_error_null(err);
	ox_arena *a = ox_arena_new();
	void *m = a ? to_proto(a, VAL(v), name) : NULL;
	/* the message must be the arena's root so that OnnxProto_Free finds the arena */
	size_t size = VAL(v)->kind == OX_TENSOR     ? sizeof(Onnx__TensorProto)
		      : VAL(v)->kind == OX_SEQUENCE ? sizeof(Onnx__SequenceProto)
		      : VAL(v)->kind == OX_MAP      ? sizeof(Onnx__MapProto)
						    : sizeof(Onnx__OptionalProto);
	void *root = m ? ox_arena_root(a, size) : NULL;
	if (!root) {
		ox_arena_free(a);
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return err->code;
	}
	memcpy(root, m, size);
	*message = root;
	return ONNXTXT_OK;
}

/* The bytes as a message of type d with every field one d has: the bytes of another
 * message type nearly always leave some over (a TensorProto's name and raw_data are
 * fields 8 and 9, past a SequenceProto's last), or do not parse at all. */
static void *unpack_strict(const ProtobufCMessageDescriptor *d, const void *data, size_t len)
{
	OnnxError e;
	ProtobufCMessage *m = ox_binary_unpack(d, data, len, &e);
	if (m && m->n_unknown_fields) {
		OnnxProto_Free(m);
		m = NULL;
	}
	return m;
}

/* A MapProto's key type is an integer or string element type, and it has keys. */
static int is_map(const Onnx__MapProto *m)
{
	static const int keys[] = {2, 3, 4, 5, 6, 7, 8, 12, 13};
	int key_type = 0;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		key_type |= m->has_key_type && m->key_type == keys[i];
	return key_type && m->values && (m->n_keys || m->n_string_keys);
}

/* The value of a message that may not be what its bytes hold, or NULL. */
static ox_val *value_of(void *m)
{
	OnnxValue *v = NULL;
	OnnxError e;
	if (m && OnnxValue_FromProto(m, &v, &e) != ONNXTXT_OK)
		v = NULL;
	return VAL(v);
}

/* The message a value's bytes hold, told by their content: a TensorProto has a data
 * type and makes a tensor (a SequenceProto's fields 1 and 2, name and element type, also
 * read as dims and a data type, but then the data is missing); a MapProto has keys;
 * anything else that parses is a SequenceProto (an OptionalProto of at most one value is,
 * byte for byte, a SequenceProto of it). */
static void *unpack_any_value(const void *data, size_t len, OnnxError *err)
{
	Onnx__TensorProto *t = unpack_strict(&onnx__tensor_proto__descriptor, data, len);
	ox_val *v = t && t->has_data_type && t->data_type ? value_of(t) : NULL;
	if (v) {
		ox_val_unref(v);
		return t;
	}
	OnnxProto_Free(t);
	Onnx__MapProto *map = unpack_strict(&onnx__map_proto__descriptor, data, len);
	if (map && is_map(map))
		return map;
	OnnxProto_Free(map);
	Onnx__SequenceProto *s = unpack_strict(&onnx__sequence_proto__descriptor, data, len);
	if (!s)
		ox_error_set(err, ONNXTXT_ERR_BINARY,
			     "not the bytes of a value: a TensorProto, SequenceProto, OptionalProto or MapProto");
	return s;
}

OnnxStatus OnnxValue_Read(const void *data, size_t len, OnnxValueKind kind, OnnxValue **out, char **name,
			  OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!data || !out)
		return ox_error_null(err);
	const ProtobufCMessageDescriptor *d = kind == ONNXTXT_VALUE_SEQUENCE ? &onnx__sequence_proto__descriptor
					      : kind == ONNXTXT_VALUE_OPTIONAL ? &onnx__optional_proto__descriptor
					      : kind == ONNXTXT_VALUE_MAP      ? &onnx__map_proto__descriptor
									       : &onnx__tensor_proto__descriptor;
	void *m = kind ? ox_binary_unpack(d, data, len, err) : unpack_any_value(data, len, err);
	if (!m)
		return err->code;
	const ProtobufCMessageDescriptor *md = ((const ProtobufCMessage *)m)->descriptor;
	const char *field = md == &onnx__tensor_proto__descriptor     ? ((Onnx__TensorProto *)m)->name
			    : md == &onnx__sequence_proto__descriptor ? ((Onnx__SequenceProto *)m)->name
			    : md == &onnx__map_proto__descriptor      ? ((Onnx__MapProto *)m)->name
								      : ((Onnx__OptionalProto *)m)->name;
	OnnxStatus st = OnnxValue_FromProto(m, out, err);
	size_t n = field ? strlen(field) : 0;
	if (st == ONNXTXT_OK && name && (*name = malloc(n + 1)))
		memcpy(*name, field ? field : "", n + 1);
	else if (st == ONNXTXT_OK && name) {
		OnnxValue_Free(*out);
		*out = NULL;
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		st = err->code;
	}
	OnnxProto_Free(m);
	return st;
}

OnnxStatus OnnxValue_ReadFile(const char *path, OnnxValueKind kind, OnnxValue **out, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!out)
		return ox_error_null(err);
	size_t len;
	char *data = ox_read_file(path, &len, err);
	OnnxStatus st = data ? OnnxValue_Read(data, len, kind, out, NULL, err) : err->code;
	free(data);
	return st;
}

typedef struct pb_job {
	const ProtobufCMessage *m;
} pb_job;

static int write_pb(FILE *f, void *ctx, OnnxError *err)
{
	const ProtobufCMessage *m = ((pb_job *)ctx)->m;
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf) {
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return 0;
	}
	protobuf_c_message_pack(m, buf);
	int ok = fwrite(buf, 1, n, f) == n;
	free(buf);
	return ok;
}

OnnxStatus OnnxValue_WriteFile(const OnnxValue *v, const char *name, const char *path, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!v || !path)
		return ox_error_null(err);
	void *m;
	if (OnnxValue_ToProto(v, name, &m, err) != ONNXTXT_OK)
		return err->code;
	pb_job job = {m};
	OnnxStatus st = ox_write_atomic(path, write_pb, &job, err);
	OnnxProto_Free(m);
	return st;
}

void OnnxValue_Free(OnnxValue *v)
{
	ox_val_unref(VAL(v));
}

OnnxValueKind OnnxValue_Kind(const OnnxValue *v)
{
	return v ? (OnnxValueKind)VAL(v)->kind : 0;
}

int OnnxValue_ElemType(const OnnxValue *v)
{
	return v ? VAL(v)->type : 0;
}

size_t OnnxValue_Rank(const OnnxValue *v)
{
	return v && VAL(v)->kind == OX_TENSOR ? (size_t)VAL(v)->rank : 0;
}

const int64_t *OnnxValue_Dims(const OnnxValue *v)
{
	return v ? VAL(v)->dims : NULL;
}

size_t OnnxValue_Count(const OnnxValue *v)
{
	if (!v)
		return 0;
	return VAL(v)->kind == OX_TENSOR ? (size_t)VAL(v)->count : VAL(v)->nitems;
}

const void *OnnxValue_Data(const OnnxValue *v)
{
	return v && VAL(v)->kind == OX_TENSOR ? VAL(v)->data : NULL;
}

const char *OnnxValue_String(const OnnxValue *v, size_t i, size_t *len)
{
	if (!v || VAL(v)->kind != OX_TENSOR || VAL(v)->type != OX_STRING || i >= (size_t)VAL(v)->count)
		return NULL;
	const ox_str *s = &((const ox_str *)VAL(v)->data)[i];
	if (len)
		*len = s->n;
	return s->p ? s->p : "";
}

const OnnxValue *OnnxValue_Item(const OnnxValue *v, size_t i)
{
	return v && VAL(v)->kind != OX_TENSOR && i < VAL(v)->nitems ? PUB(VAL(v)->items[i]) : NULL;
}

/* ---- sessions -------------------------------------------------------------------------- */

/* The planner's or executor's status as an error, with the path of the main graph's node it
 * is about (the message starts with it too), for callers to point at in text. */
static void status_error(OnnxError *err, const ox_status *st)
{
	ox_error_set(err, st->code ? st->code : ONNXTXT_ERR_NOMEM, "%s", st->msg[0] ? st->msg : "out of memory");
	if (st->node >= 0)
		snprintf(err->path, sizeof err->path, "graph.node[%ld]", st->node);
}

OnnxStatus OnnxSession_New(const Onnx__ModelProto *model, OnnxSession **out, OnnxError *err)
{
	return OnnxSession_NewWithOptions(model, NULL, out, err);
}

OnnxStatus OnnxSession_NewWithOptions(const Onnx__ModelProto *model, const OnnxSessionOptions *opts,
				      OnnxSession **out, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!model || !out || (opts && opts->threads < 0))
		return ox_error_null(err);
	*out = NULL;
	OnnxSession *s = calloc(1, sizeof *s);
	ox_status st = {0, "", -1};
	if (!s || !(s->arena = ox_arena_new()) || !(s->budget = ox_budget_new())) {
		if (s)
			ox_arena_free(s->arena);
		free(s);
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return err->code;
	}
	if (!(s->plan = ox_plan_model(s->arena, model, &st))) {
		status_error(err, &st);
		OnnxSession_Free(s);
		return err->code;
	}
	s->ninputs = ox_plan_inputs(s->plan);
	s->noutputs = ox_plan_outputs(s->plan);
	s->inputs = calloc(s->ninputs + 1, sizeof *s->inputs);
	s->outputs = calloc(s->noutputs + 1, sizeof *s->outputs);
	s->pool = ox_pool_new(opts && opts->threads ? opts->threads : ox_cpu_count());
	s->blocks = ox_blocks_new();
	if (!s->inputs || !s->outputs || !s->pool || !s->blocks) {
		OnnxSession_Free(s);
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return err->code;
	}
	s->optimize = !opts || !opts->no_optimize;
	*out = s;
	return ONNXTXT_OK;
}

static void drop_outputs(OnnxSession *s)
{
	for (size_t i = 0; s->outputs && i < s->noutputs; i++) {
		ox_val_unref(s->outputs[i]);
		s->outputs[i] = NULL;
	}
}

void OnnxSession_Free(OnnxSession *s)
{
	if (!s)
		return;
	drop_outputs(s);
	for (size_t i = 0; s->inputs && i < s->ninputs; i++)
		ox_val_unref(s->inputs[i]);
	free(s->inputs);
	free(s->outputs);
	ox_plan_free(s->plan);
	ox_arena_free(s->arena);
	ox_budget_release(s->budget);
	ox_pool_free(s->pool);
	ox_blocks_free(s->blocks);
	free(s);
}

size_t OnnxSession_InputCount(const OnnxSession *s)
{
	return s ? s->ninputs : 0;
}

const Onnx__ValueInfoProto *OnnxSession_Input(const OnnxSession *s, size_t i, int *optional)
{
	return s && i < s->ninputs ? ox_plan_input(s->plan, i, optional) : NULL;
}

/* The kind of value a declared type holds; a tensor when undeclared. */
static OnnxValueKind kind_of(const Onnx__TypeProto *t)
{
	if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)
		return ONNXTXT_VALUE_SEQUENCE;
	if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)
		return ONNXTXT_VALUE_OPTIONAL;
	if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_MAP_TYPE)
		return ONNXTXT_VALUE_MAP;
	return ONNXTXT_VALUE_TENSOR;
}

OnnxValueKind OnnxSession_InputKind(const OnnxSession *s, size_t i)
{
	const Onnx__ValueInfoProto *vi = OnnxSession_Input(s, i, NULL);
	return vi ? kind_of(vi->type) : 0; /* 0: no such input (or no session) */
}

OnnxValueKind OnnxSession_OutputKind(const OnnxSession *s, size_t i)
{
	return s && i < s->noutputs ? kind_of(ox_plan_output_type(s->plan, i)) : 0;
}

size_t OnnxSession_OutputCount(const OnnxSession *s)
{
	return s ? s->noutputs : 0;
}

const char *OnnxSession_OutputName(const OnnxSession *s, size_t i)
{
	return s && i < s->noutputs ? ox_plan_output_name(s->plan, i) : NULL;
}

const OnnxValue *OnnxSession_Output(const OnnxSession *s, size_t i)
{
	return s && i < s->noutputs ? PUB(s->outputs[i]) : NULL;
}

/* What a session makes current on the thread that runs it: its limits, its threads and
 * its memory plan; and what was current before, to be restored. */
typedef struct session_state {
	ox_budget *budget;
	ox_pool *pool;
	ox_blocks *blocks;
} session_state;

static session_state session_enter(OnnxSession *s)
{
	return (session_state){ox_budget_enter(s->budget), ox_pool_enter(s->pool), ox_blocks_enter(s->blocks)};
}

static void session_leave(const session_state *prev)
{
	ox_blocks_enter(prev->blocks);
	ox_pool_enter(prev->pool);
	ox_budget_leave(prev->budget);
}

/* The session-time work, once, under the limits the caller set on the session by then:
 * folding a hostile constant must meet the memory budget and the deadline too. */
static void prepare(OnnxSession *s)
{
	if (s->optimize) {
		ox_plan_optimize(s->plan);
		s->optimize = false;
	}
}

void ox_session_observe(OnnxSession *s, ox_observer fn, void *ctx)
{
	ox_plan_observe(s->plan, fn, ctx);
}

static void outputs_fit(const OnnxSession *s, OnnxError *err);

OnnxStatus OnnxSession_Run(OnnxSession *s, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!s)
		return ox_error_null(err);
	ox_blocks *old_blocks = ox_blocks_enter(s->blocks);
	drop_outputs(s);
	ox_blocks_enter(old_blocks);
	ox_blocks_start(s->blocks);
	for (size_t i = 0; i < s->ninputs; i++) {
		int optional;
		const Onnx__ValueInfoProto *vi = ox_plan_input(s->plan, i, &optional);
		if (!s->inputs[i] && !optional) {
			ox_error_set(err, ONNXTXT_ERR_EVAL, "input '%s' has no value", vi->name ? vi->name : "");
			return err->code;
		}
	}
	ox_status st;
	session_state prev = session_enter(s);
	prepare(s);
	if (ox_plan_run(s->plan, s->inputs, s->outputs, &st) < 0)
		status_error(err, &st);
	/* an output may be an initializer, whose bytes are the model's: the caller may keep
	 * it (as another session's input) after the model is gone */
	for (size_t i = 0; err->code == ONNXTXT_OK && i < s->noutputs; i++)
		if (!ox_val_own(&s->outputs[i]))
			ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
	if (err->code == ONNXTXT_OK)
		outputs_fit(s, err);
	session_leave(&prev);
	return err->code;
}

OnnxStatus OnnxSession_Prepare(OnnxSession *s, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!s)
		return ox_error_null(err);
	session_state prev = session_enter(s);
	prepare(s);
	session_leave(&prev);
	return ONNXTXT_OK;
}

OnnxStatus OnnxSession_SetMaxMemory(OnnxSession *s, uint64_t bytes, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!s)
		return ox_error_null(err);
	ox_budget_set_memory(s->budget, bytes);
	return ONNXTXT_OK;
}

OnnxStatus OnnxSession_SetTimeout(OnnxSession *s, double seconds, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!s)
		return ox_error_null(err);
	if (!isfinite(seconds) || seconds < 0) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: a timeout is a finite number of seconds, 0 or more");
		return err->code;
	}
	ox_budget_set_timeout(s->budget, seconds);
	return ONNXTXT_OK;
}

/* ---- binding inputs, checked against their declared types ------------------------------ */

/* "float[2,N]" for a tensor type, "seq(float)", "optional(...)": for messages. */
static size_t type_text(const Onnx__TypeProto *t, char *buf, size_t size)
{
	if (!t)
		return (size_t)snprintf(buf, size, "any");
	switch (t->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE: {
		const Onnx__TypeProto__Tensor *tt = t->tensor_type;
		/* as the syntax writes it: no brackets for rank 0, "[]" for an unknown rank */
		size_t n = (size_t)snprintf(buf, size, "%s", ox_elem_label(tt->elem_type));
		if (tt->shape && !tt->shape->n_dim)
			return n;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "[");
		for (size_t i = 0; tt->shape && i < tt->shape->n_dim; i++) {
			const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
			const char *sep = i ? "," : "";
			if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
				n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%lld", sep, (long long)d->dim_value);
			else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
				n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", sep, d->dim_param);
			else
				n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s?", sep);
		}
		return n + (size_t)snprintf(buf + n, n < size ? size - n : 0, "]");
	}
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: {
		size_t n = (size_t)snprintf(buf, size, "seq(");
		n += type_text(t->sequence_type->elem_type, buf + n, n < size ? size - n : 0);
		return n + (size_t)snprintf(buf + n, n < size ? size - n : 0, ")");
	}
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: {
		size_t n = (size_t)snprintf(buf, size, "optional(");
		n += type_text(t->optional_type->elem_type, buf + n, n < size ? size - n : 0);
		return n + (size_t)snprintf(buf + n, n < size ? size - n : 0, ")");
	}
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: {
		size_t n = (size_t)snprintf(buf, size, "map(%s, ", ox_elem_label(t->map_type->key_type));
		n += type_text(t->map_type->value_type, buf + n, n < size ? size - n : 0);
		return n + (size_t)snprintf(buf + n, n < size ? size - n : 0, ")");
	}
	default:
		return (size_t)snprintf(buf, size, "(a type the evaluator does not check)");
	}
}

static size_t value_text(const ox_val *v, char *buf, size_t size)
{
	if (v->kind == OX_SEQUENCE)
		return (size_t)snprintf(buf, size, "a sequence of %zu", v->nitems);
	if (v->kind == OX_OPTIONAL)
		return (size_t)snprintf(buf, size, "an optional%s", v->nitems ? "" : " (none)");
	if (v->kind == OX_MAP)
		return (size_t)snprintf(buf, size, "map(%s, %s)", ox_elem_label(v->items[0]->type),
					ox_elem_label(v->items[1]->type));
	size_t n = (size_t)snprintf(buf, size, "%s[", ox_elem_label(v->type));
	for (int i = 0; i < v->rank; i++)
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%lld", i ? "," : "", (long long)v->dims[i]);
	return n + (size_t)snprintf(buf + n, n < size ? size - n : 0, "]");
}

static bool fits(const Onnx__TypeProto *t, const ox_val *v)
{
	if (!t)
		return true;
	switch (t->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE: {
		const Onnx__TypeProto__Tensor *tt = t->tensor_type;
		if (v->kind != OX_TENSOR || (tt->elem_type && tt->elem_type != v->type))
			return false;
		if (!tt->shape)
			return true;
		if (tt->shape->n_dim != (size_t)v->rank)
			return false;
		for (int i = 0; i < v->rank; i++)
			if (tt->shape->dim[i]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
			    tt->shape->dim[i]->dim_value != v->dims[i])
				return false;
		return true;
	}
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		if (v->kind != OX_SEQUENCE)
			return false;
		for (size_t i = 0; i < v->nitems; i++)
			if (!fits(t->sequence_type->elem_type, v->items[i]))
				return false;
		return true;
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
		if (v->kind != OX_OPTIONAL)
			return fits(t->optional_type->elem_type, v);
		return !v->nitems || fits(t->optional_type->elem_type, v->items[0]);
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: {
		/* the value type: an element type, as a tensor type of any shape */
		const Onnx__TypeProto *vt = t->map_type->value_type;
		int want = vt && vt->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? vt->tensor_type->elem_type : 0;
		return v->kind == OX_MAP && (!t->map_type->key_type || t->map_type->key_type == v->items[0]->type) &&
		       (!want || want == v->items[1]->type);
	}
	default:
		return true;
	}
}

/* A run whose output contradicts the graph's declared output type is an error, as at
 * onnxruntime's load: the model is wrong, and a value of the wrong type must not pass as
 * its result. */
static void outputs_fit(const OnnxSession *s, OnnxError *err)
{
	for (size_t i = 0; i < s->noutputs; i++) {
		const Onnx__TypeProto *t = ox_plan_output_type(s->plan, i);
		if (!s->outputs[i] || fits(t, s->outputs[i]))
			continue;
		char want[200], got[200];
		type_text(t, want, sizeof want);
		value_text(s->outputs[i], got, sizeof got);
		ox_error_set(err, ONNXTXT_ERR_EVAL, "graph.output[%zu]: '%s' is declared %s, the run gave %s", i,
			     ox_plan_output_name(s->plan, i), want, got);
		snprintf(err->path, sizeof err->path, "graph.output[%zu]", i);
		return;
	}
}

OnnxStatus OnnxSession_SetInput(OnnxSession *s, const char *name, const OnnxValue *value, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!s || !name || !value)
		return ox_error_null(err);
	for (size_t i = 0; i < s->ninputs; i++) {
		const Onnx__ValueInfoProto *vi = ox_plan_input(s->plan, i, NULL);
		if (!vi->name || strcmp(vi->name, name) != 0)
			continue;
		ox_val *v = VAL(value);
		if (!fits(vi->type, v)) {
			char want[200], got[200];
			type_text(vi->type, want, sizeof want);
			value_text(v, got, sizeof got);
			ox_error_set(err, ONNXTXT_ERR_EVAL, "input '%s': expected %s, got %s", name, want, got);
			return err->code;
		}
		/* a plain value bound to an optional input becomes a present optional */
		bool wrap = vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE &&
			    v->kind != OX_OPTIONAL;
		ox_val *b = wrap ? ox_optional_new(v->kind, v->type, ox_val_ref(v)) : ox_val_ref(v);
		if (!b) {
			ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
			return err->code;
		}
		ox_val_unref(s->inputs[i]);
		s->inputs[i] = b;
		return ONNXTXT_OK;
	}
	ox_error_set(err, ONNXTXT_ERR_ARG, "the graph has no input named '%s'", name);
	return err->code;
}
