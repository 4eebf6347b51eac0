/* The operator schema table: every operator of every opset of the standard domains, as
 * src/schema/operators.txt lists them (generated into C at build time by gen.py), looked up
 * by (domain, operator, opset version) by the checker and the evaluator. */
#ifndef OX_SCHEMA_H
#define OX_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The types a type parameter (or a formal of fixed type) allows: one bit per element type
 * (1u << TensorProto.DataType) for tensor(T), seq(tensor(T)), optional(tensor(T)),
 * optional(seq(tensor(T))) and sparse_tensor(T); other types (maps, sequences of maps) by
 * their spelling, space-separated, in other. */
typedef struct ox_typeset {
	uint32_t tensor, seq, opt, optseq, sparse;
	const char *other;
} ox_typeset;

typedef struct ox_constraint {
	const char *param;
	const char *allowed; /* as onnx spells them, space-separated, for messages */
	ox_typeset set;
} ox_constraint;

enum { OX_FORMAL_SINGLE, OX_FORMAL_OPTIONAL, OX_FORMAL_VARIADIC };

/* A formal input or output: its name, its type (a type parameter such as "T", or a type
 * such as "tensor(int64)") and the types that allows. */
typedef struct ox_formal {
	const char *name, *type;
	const ox_typeset *set;
	unsigned char option, homogeneous, min_arity;
} ox_formal;

typedef struct ox_schema_attr {
	const char *name;
	int type; /* AttributeProto.AttributeType */
	bool required, has_default;
	int64_t i; /* the default of an int */
	float f;
	const char *s;
	const int64_t *ints; /* lists: n values */
	const float *floats;
	const char *const *strings;
	size_t n;
} ox_schema_attr;

enum { OX_SCHEMA_DEPRECATED = 1, OX_SCHEMA_EXPERIMENTAL = 2, OX_SCHEMA_FUNCTION = 4, OX_SCHEMA_INFERENCE = 8 };
#define OX_UNBOUNDED (-1) /* max_input, max_output: no limit */

typedef struct ox_schema {
	const char *domain; /* "" for ai.onnx */
	const char *name;
	int since;
	int min_in, max_in, min_out, max_out;
	unsigned flags;
	const ox_formal *inputs, *outputs;
	const ox_schema_attr *attrs; /* sorted by name */
	const ox_constraint *constraints;
	unsigned char n_inputs, n_outputs, n_attrs, n_constraints;
} ox_schema;

/* A domain onnx knows and the range of its opset versions. */
typedef struct ox_schema_domain {
	const char *name; /* "" for ai.onnx */
	int min, max;
} ox_schema_domain;

/* The standard domain of that name ("ai.onnx" and "" are one), or NULL. */
const ox_schema_domain *ox_schema_domain_find(const char *domain);
/* The schema of op in force at opset version of domain: the newest whose since is at most
 * version (it may be deprecated: the operator is then removed); NULL when there is none. */
const ox_schema *ox_schema_find(const char *domain, const char *op, int64_t version);
/* Every schema of op, oldest first (*n of them); NULL when the domain has no such op. */
const ox_schema *ox_schema_versions(const char *domain, const char *op, size_t *n);
/* The operator name of domain closest to op (a typo, a case slip), or NULL. */
const char *ox_schema_suggest(const char *domain, const char *op);
/* The schema's attribute called name, or NULL. */
const ox_schema_attr *ox_schema_attr_find(const ox_schema *s, const char *name);

/* An attribute's value: a (the node's attribute of that name, or NULL), else s's default for
 * name when it has one of the right type (s may be NULL), else def. The evaluator and type
 * inference both read attributes so. The string's bytes are not NUL-terminated in general
 * (def is); *len (if len) gets its length. The lists give their count, or -1 when absent. */
struct Onnx__AttributeProto;
int64_t ox_schema_attr_int(const ox_schema *s, const struct Onnx__AttributeProto *a, const char *name, int64_t def);
float ox_schema_attr_float(const ox_schema *s, const struct Onnx__AttributeProto *a, const char *name, float def);
const char *ox_schema_attr_str(const ox_schema *s, const struct Onnx__AttributeProto *a, const char *name,
			       const char *def, size_t *len);
int64_t ox_schema_attr_ints(const ox_schema *s, const struct Onnx__AttributeProto *a, const char *name,
			    const int64_t **v);
int64_t ox_schema_attr_floats(const ox_schema *s, const struct Onnx__AttributeProto *a, const char *name,
			      const float **v);

/* The attribute readers of a context type ctx with a schema member, whose node attribute
 * called name pre(c, name) finds: the evaluator's kernels (ox_attr, ox_k) and type inference
 * (ox_iattr, ox_ictx) read attributes alike, so one definition gives both theirs. */
#define OX_SCHEMA_ATTR_READERS(pre, ctx)                                                          \
	int64_t pre##_int(const ctx *c, const char *name, int64_t def)                             \
	{                                                                                          \
		return ox_schema_attr_int(c->schema, pre(c, name), name, def);                     \
	}                                                                                          \
	float pre##_float(const ctx *c, const char *name, float def)                               \
	{                                                                                          \
		return ox_schema_attr_float(c->schema, pre(c, name), name, def);                   \
	}                                                                                          \
	int64_t pre##_ints(const ctx *c, const char *name, const int64_t **v)                      \
	{                                                                                          \
		return ox_schema_attr_ints(c->schema, pre(c, name), name, v);                      \
	}                                                                                          \
	const Onnx__TensorProto *pre##_tensor(const ctx *c, const char *name)                      \
	{                                                                                          \
		const Onnx__AttributeProto *a = pre(c, name);                                      \
		return a ? a->t : NULL;                                                            \
	}                                                                                          \
	const Onnx__GraphProto *pre##_graph(const ctx *c, const char *name)                        \
	{                                                                                          \
		const Onnx__AttributeProto *a = pre(c, name);                                      \
		return a ? a->g : NULL;                                                            \
	}

/* The whole table, sorted by domain, op and since. */
const ox_schema *ox_schema_all(size_t *n);

#endif
