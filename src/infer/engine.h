/* The inference engine's state, shared by its files: engine.c (graphs, nodes, functions),
 * context.c (what a rule sees) and types.c (types from declarations and tensors). */
#ifndef OX_INFER_ENGINE_H
#define OX_INFER_ENGINE_H

#include "arena.h"
#include "infer/infer.h"
#include "names.h"

/* A graph's values: name -> ox_type * (0: defined, type unknown), and which of them the
 * graph declares (name -> ox_type *) so that inferred types are compared with those. */
typedef struct ox_iscope {
	ox_names types, declared;
	const struct ox_iscope *up;
} ox_iscope;

/* A sub-graph's scope, kept after inferring it, for ox_infer_type_in. */
typedef struct ox_kept {
	const Onnx__GraphProto *g;
	ox_iscope *sc;
} ox_kept;

struct ox_infer {
	ox_check *c;
	ox_arena *arena;
	const Onnx__ModelProto *m;
	ox_infer_opts o;
	ox_names params;            /* interned dim parameter names */
	ox_names functions;         /* "domain\nname" -> index + 1 of a model-local function */
	char **function_keys;
	bool *in_progress;          /* per function: being inferred (recursion guard) */
	bool *reported;             /* per function: an error inside it was reported once */
	ox_names calls;             /* a call's key -> its outputs (engine.c: call keys) */
	const ox_names *opsets;     /* domain -> version for the nodes being inferred */
	ox_names model_opsets;
	const Onnx__NodeProto *caller; /* the call being inferred */
	/* its attributes, references to the enclosing call's resolved (engine.c: call_attrs) */
	const Onnx__AttributeProto **caller_attrs;
	size_t n_caller_attrs;
	const Onnx__FunctionProto *function;
	int quiet;                  /* > 0: errors fail rules without being reported */
	int depth;                  /* graphs and calls nested */
	ox_iscope *top;             /* the main graph's scope (kept for ox_infer_type_of) */
	const ox_iscope *scope;     /* the scope of the node being inferred */
	ox_kept *kept;
	size_t n_kept, kept_cap;
	ox_rule_fn *rule_cache;     /* per schema of the table (ox_schema_all): its rule */
	unsigned char *rule_looked;
	bool nomem;
};

/* types.c */
const char *ox_infer_intern(ox_infer *e, const char *name);
ox_type *ox_infer_alloc_type(ox_infer *e, enum ox_tkind kind);
ox_type *ox_infer_from_proto(ox_infer *e, const Onnx__TypeProto *t);
/* A tensor's type; with values, its values too when small. */
ox_type *ox_infer_from_tensor(ox_infer *e, const Onnx__TensorProto *t, bool values);
ox_type *ox_infer_copy(ox_infer *e, const ox_type *t);
ox_type *ox_infer_merge(ox_infer *e, const ox_type *a, const ox_type *b);
/* A type code as the checker's (element type | kind << 8), 0 when t is not one. */
intptr_t ox_infer_code(const ox_type *t);
ox_type *ox_infer_from_code(ox_infer *e, intptr_t code);

/* engine.c */
void ox_infer_scope_put(ox_infer *e, ox_iscope *sc, const char *name, const ox_type *t);
const ox_type *ox_infer_lookup(const ox_iscope *sc, const char *name, bool *found);
void ox_infer_scope_free(ox_iscope *sc);

#endif
