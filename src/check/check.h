/* The structural check's shared state (src/check.c) and its rule files: the operator rules
 * against the schema table (ops.c) and the IR-version rules (ir.c). */
#ifndef OX_CHECK_CHECK_H
#define OX_CHECK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"
#include "onnxtxt/onnxtxt.h"
#include "spans.h"

/* The names a graph or function body defines (name -> a node's index, or OX_DEF_*) and
 * the types it declares (name -> ox_check_type code); lookups continue in the enclosing
 * one. */
enum { OX_DEF_INPUT = -1, OX_DEF_INIT = -2 };
typedef struct ox_scope {
	ox_names defs, types;
	const struct ox_scope *up;
} ox_scope;

/* Which part of a node a problem is about, to point at it in the text. */
enum ox_part { OX_P_ALL, OX_P_OP, OX_P_INPUT, OX_P_OUTPUT };

typedef struct ox_check {
	const char *text; /* with spans: the model's text */
	size_t len;
	const ox_spans *spans;
	OnnxError *problems;
	size_t n, cap, errors;
	size_t max;   /* problems kept at most; the rest are only counted */
	size_t total; /* problems found, kept or not */
	size_t *want_total;
	bool nomem;
	int64_t ir_version;
	const ox_names *opsets;       /* domain -> version for the nodes being checked */
	const ox_names *model_opsets; /* the model's own */
	const Onnx__ModelProto *model;
	ox_names functions; /* "domain\nname" of each model-local function -> its index */
	char **function_keys;
	bool in_function;
	const Onnx__NodeProto *node; /* the node being checked, named after the path */
	const ox_scope *scope;       /* and the scope around it */
	char path[1024];
	size_t plen;
	bool no_infer, strict;     /* the structural check alone; inference: no rule is an error */
	struct ox_infer **keep;    /* when set, receives the inference (else freed) */
} ox_check;

/* Records a problem (code ONNXTXT_ERR_INVALID) or a warning (ONNXTXT_WARNING): "PATH (Op):
 * message", placed at msg (a node's part) in the text. */
void ox_check_report(ox_check *c, OnnxStatus code, const void *msg, enum ox_part part, size_t index,
		     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Appends to the path; returns the old length for ox_check_path_pop. */
/* A problem's hint, "did you mean 'word'?", and the fix-it that replaces the text the
 * problem points at (an operator's name) with word. */
void ox_check_suggest(OnnxError *e, const char *word);
size_t ox_check_path_push(ox_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ox_check_path_pop(ox_check *c, size_t len);

/* A declared type as one number: element type | kind << 8 (OX_KIND_*), 0 when unknown or
 * not one of these (maps, opaque types, no element type). */
enum { OX_KIND_TENSOR, OX_KIND_SEQ, OX_KIND_OPT, OX_KIND_OPTSEQ, OX_KIND_SPARSE };
intptr_t ox_check_type_code(const Onnx__TypeProto *t);
struct ox_typeset;
struct ox_schema;
struct ox_formal;
/* Whether set (a formal's or a type parameter's) allows that type code; the checker and
 * type inference judge types by the same rule. */
bool ox_check_type_allowed(const struct ox_typeset *set, intptr_t code);
/* The index of the type constraint naming f's type parameter in s, -1 if f's type is fixed. */
int ox_check_constraint_of(const struct ox_schema *s, const struct ox_formal *f);
/* Its spelling, as onnx writes it ("tensor(float)"). */
void ox_check_type_name(intptr_t code, char *buf, size_t size);
/* The declared type of name in sc or around it, 0 if none. */
intptr_t ox_check_type_of(const ox_scope *sc, const char *name);

/* The type an attribute has: declared, else that of its value; *conflict when it holds
 * more than one value or one of another type than declared (check.c reports that). */
int ox_check_attr_type(const Onnx__AttributeProto *a, bool *conflict);

/* ops.c: the node of a standard domain against its schema at version. */
void ox_check_op(ox_check *c, const Onnx__NodeProto *n, const char *domain, int64_t version, const ox_scope *sc);
/* ops.c: the model's opset imports: versions newer than known (a warning); for a function's
 * node, an opset its function imports at another version than the model, where the
 * operator differs between the two. */
void ox_check_opset_imports(ox_check *c, const Onnx__ModelProto *m);
void ox_check_function_opsets(ox_check *c, const Onnx__NodeProto *n, const char *domain);

/* check.c, for tests: checks model (the structural check, then inference) and hands the
 * inference over in *e (NULL when it did not run: an error of the structural check), to
 * be freed with ox_infer_free, whatever the status; problems as OnnxModel_CheckOpts. */
struct ox_infer;
OnnxStatus ox_check_infer(const Onnx__ModelProto *model, struct ox_infer **e, OnnxError **problems, size_t *count,
			  OnnxError *err);

/* ir.c: what the model's IR version does not have yet, and the opset/IR pairing of the
 * releases (a warning). */
void ox_check_ir_elem(ox_check *c, int elem_type, const void *at, const char *what);
void ox_check_ir_type(ox_check *c, const Onnx__TypeProto *t, const void *at, const char *name);
void ox_check_ir_node(ox_check *c, const Onnx__NodeProto *n);
void ox_check_ir_function(ox_check *c, const Onnx__FunctionProto *f);
void ox_check_ir_opsets(ox_check *c, const Onnx__ModelProto *m);

#endif
