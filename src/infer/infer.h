/* Type and shape inference: the types (kinds, element types, shapes with numbers, named
 * parameters and unknown dimensions, and the values of small tensors known statically), the
 * context an operator rule sees, the one rule table, and the helpers rules share. The engine
 * (engine.c) walks a graph and calls one rule per node; rules live in rules_FAMILY.c, listed
 * in rules.h. */
#ifndef OX_INFER_INFER_H
#define OX_INFER_INFER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/check.h"
#include "onnx.pb-c.h"
#include "schema/schema.h"
#include "types.h"

/* ---- types ----------------------------------------------------------------------------------- */

/* One dimension: a number (param NULL, v >= 0), a named parameter (param set: "N", interned by
 * the engine, so that equal names are equal pointers) or unknown (param NULL, v < 0). */
typedef struct ox_dim {
	int64_t v;
	const char *param;
} ox_dim;

#define OX_DIM_UNKNOWN ((ox_dim){-1, NULL})
static inline ox_dim ox_dim_num(int64_t v)
{
	return (ox_dim){v, NULL};
}
static inline bool ox_dim_known(ox_dim d)
{
	return !d.param && d.v >= 0;
}
static inline bool ox_dim_is_unknown(ox_dim d)
{
	return !d.param && d.v < 0;
}

enum ox_tkind { OX_T_UNKNOWN, OX_T_TENSOR, OX_T_SPARSE, OX_T_SEQ, OX_T_MAP, OX_T_OPT };

/* Tensors known element by element at inference time are at most this many elements. */
#define OX_INFER_MAX_VALUES 4096
/* Ranks beyond this are refused (an error at the node). */
#define OX_INFER_MAX_RANK 64

/* A value's type. Tensors and sparse tensors: elem (0: unknown) and a shape of rank dims
 * (rank -1: unknown); sequences and optionals: their element's type in inner (NULL: unknown);
 * maps: key (an element type) and the value's type in inner.
 * Values (partial data propagation): when nvals > 0, the tensor has that many elements, in
 * row-major order, and vals[i] holds element i when known[i] (known NULL: all known). Integer
 * and bool tensors hold their values as int64; floating-point ones (when rules need them:
 * Resize scales) in fvals instead of vals. Types are immutable once a rule has set them as an
 * output: rules build new ones (ox_type_new, ox_type_tensor, ox_type_copy). */
typedef struct ox_type {
	unsigned char kind; /* enum ox_tkind */
	int elem;           /* tensors, sparse tensors; a map's key type in key */
	int key;
	int rank;
	ox_dim *dims;
	const struct ox_type *inner;
	int64_t nvals;
	int64_t *vals;
	double *fvals;
	bool *known;
	const char **sym; /* NULL, or per element: the dim parameter an unknown value stands for
			   * (Shape of float[N] gives one element, unknown, standing for N) */
} ox_type;

/* ---- the engine, and the context of one rule ------------------------------------------------- */

typedef struct ox_infer ox_infer; /* engine.c: the state of one inference over a model */

/* What a rule sees of the node it infers. Inputs: in[i] is NULL for an absent optional input
 * ("") and for a value of unknown type; outputs start as the engine's guess (the element
 * type a shared type constraint or a fixed formal type gives, shape unknown) and are set
 * with ox_set_out. */
typedef struct ox_ictx {
	ox_infer *e;
	const Onnx__NodeProto *node;
	const ox_schema *schema; /* in force; NULL for a node of another domain */
	const char *domain;      /* "" for ai.onnx */
	int64_t version;         /* the domain's opset version for this node */
	size_t n_in, n_out;
	const ox_type *const *in;
	const ox_type **out;
	bool failed; /* a rule reported an error: its outputs stay unknown */
} ox_ictx;

/* A rule: returns 0, or -1 after reporting an error (ox_ierr). */
typedef int (*ox_rule_fn)(ox_ictx *x);

/* Rules are keyed by (domain, op, the since version of the schema in force): one serves the
 * schemas whose since lies in [since, until] (until 0: no upper bound). rules.h lists them all
 * (OX_INFER_RULES), family by family, and rules.c builds the one table from that list. */
typedef struct ox_rule {
	const char *domain, *op;
	int since, until;
	ox_rule_fn fn;
} ox_rule;

/* The rule for op of domain whose schema in force has since version since, or NULL. */
ox_rule_fn ox_rule_find(const char *domain, const char *op, int since);

/* ---- inputs and attributes ------------------------------------------------------------------ */

/* Input i's type (NULL: absent, unknown or beyond the node's inputs). */
const ox_type *ox_input(const ox_ictx *x, size_t i);
/* Input i as a tensor of known rank, or NULL (absent, unknown, rank unknown). */
const ox_type *ox_input_ranked(const ox_ictx *x, size_t i);
/* Whether the node has input i (not left out with ""). */
bool ox_has_input(const ox_ictx *x, size_t i);

/* Attributes, the schema's default applying when the node has none of that name; def when
 * neither has one. The lists are the node's (or the default's) own storage. */
bool ox_attr_given(const ox_ictx *x, const char *name);
/* The node's attribute called name (a reference resolved against the function call being
 * inferred), or NULL. */
const Onnx__AttributeProto *ox_iattr(const ox_ictx *x, const char *name);
int64_t ox_iattr_int(const ox_ictx *x, const char *name, int64_t def);
float ox_iattr_float(const ox_ictx *x, const char *name, float def);
const char *ox_iattr_str(const ox_ictx *x, const char *name, const char *def);
/* The INTS of name in *v: their count, or -1 when neither the node nor the schema gives any. */
int64_t ox_iattr_ints(const ox_ictx *x, const char *name, const int64_t **v);
const Onnx__TensorProto *ox_iattr_tensor(const ox_ictx *x, const char *name);
const Onnx__GraphProto *ox_iattr_graph(const ox_ictx *x, const char *name);

/* The int64 values of input i when every element is known (from an initializer, a Constant
 * or data propagation): their count, or -1. */
int64_t ox_input_values(const ox_ictx *x, size_t i, const int64_t **v);

/* ---- outputs --------------------------------------------------------------------------------- */

/* A new type of kind, owned by the engine (NULL when out of memory: the engine notices). */
ox_type *ox_type_new(ox_ictx *x, enum ox_tkind kind);
/* A tensor of elem and rank (-1: unknown), its dims unknown. */
ox_type *ox_type_tensor(ox_ictx *x, int elem, int rank);
/* A tensor of elem with the rank dims d (dims.c). */
ox_type *ox_type_dims(ox_ictx *x, int elem, int rank, const ox_dim *d);
/* A copy of t (dims and values copied), to change before setting it. */
ox_type *ox_type_copy(ox_ictx *x, const ox_type *t);
/* Gives t nvals values, all unknown; returns t->vals (NULL when out of memory or too many). */
int64_t *ox_type_values(ox_ictx *x, ox_type *t, int64_t nvals);

/* The type of a tensor (a Constant's value, an attribute's tensor), with its values when
 * small; NULL when out of memory. */
ox_type *ox_type_from_tensor(ox_ictx *x, const Onnx__TensorProto *p);

/* Element i of t's values as a dim: the value when known and not negative, the parameter it
 * stands for (sym), else unknown. */
ox_dim ox_value_dim(const ox_type *t, int64_t i);
/* Sets element i of t's values (t given values by ox_type_values) from a dim. */
void ox_value_set(ox_ictx *x, ox_type *t, int64_t i, ox_dim d);
/* Copies element j of from's values into element i of t's (known, value, parameter). */
void ox_value_copy(ox_ictx *x, ox_type *t, int64_t i, const ox_type *from, int64_t j);

/* Sets output i (ignored beyond the node's outputs or for one left out). */
void ox_set_out(ox_ictx *x, size_t i, const ox_type *t);
/* Output 0 is values; output 1, where the node has it, the int64 indices of the same shape
 * (TopK, MaxPool). In rules_index.c. */
void ox_set_out_indexed(ox_ictx *x, const ox_type *values);
/* The engine's guess for output i's element type (0 when it has none). */
int ox_out_elem(const ox_ictx *x, size_t i);
/* Output i is a tensor of elem with the shape of input j (rank unknown when it is). */
void ox_out_like(ox_ictx *x, size_t i, int elem, size_t j);

/* ---- sub-graphs ------------------------------------------------------------------------------ */

/* Infers graph g, the node's attribute attr, in a scope inside the node's (outer names
 * visible): its inputs get the types in[0..n) (a NULL one, or those beyond n: as declared),
 * merged with what the graph declares; out[0..g->n_output) receives its outputs' types
 * (NULL: unknown). Returns -1 when it reported an error inside g. */
/* An array of n types (all NULL) owned by the engine, for a sub-graph's inputs or outputs;
 * NULL when out of memory. */
const ox_type **ox_type_outputs(ox_ictx *x, size_t n);
int ox_infer_graph(ox_ictx *x, const Onnx__GraphProto *g, const char *attr, const ox_type *const *in, size_t n,
		   const ox_type **out);

/* ---- problems -------------------------------------------------------------------------------- */

/* Reports an error at the node's part (OX_P_OP: the operator; OX_P_INPUT/OUTPUT: the
 * index-th input or output), marks the rule failed and returns -1. */
int ox_ierr(ox_ictx *x, enum ox_part part, size_t index, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- shared helpers (dims.c) ----------------------------------------------------------------- */

/* Dims and types as the syntax spells them: "3", "N", "?", "float[N,3]", "seq(int64[?])"; the
 * text is cut to fit size. */
void ox_dim_str(ox_dim d, char *buf, size_t size);
void ox_type_str(const ox_type *t, char *buf, size_t size);

bool ox_dim_eq(ox_dim a, ox_dim b);
/* Two dims that must be the same: N meets N (N); N meets 3 (3); anything meets unknown (the
 * other); 3 meets 4: false, *out unknown. */
bool ox_dim_unify(ox_dim a, ox_dim b, ox_dim *out);
/* Broadcasting two dims: 1 meets d (d), d meets d (d), N or unknown meets 3 (3: it is 3 or
 * 1), unknown meets a parameter and M meets N (unknown: either may be 1); 3 meets 4: false. */
bool ox_dim_broadcast(ox_dim a, ox_dim b, ox_dim *out);
/* Products, sums for element counts and sizes: unknown when any part is not a number (but
 * 1 times N is N, and 0 times anything 0), or when the result passes INT64_MAX. */
ox_dim ox_dim_mul(ox_dim a, ox_dim b);
ox_dim ox_dim_add(ox_dim a, ox_dim b);

/* The multidirectional broadcast of inputs ins (NULL ones skipped; rank unknown when any is)
 * into a tensor of elem: an error at the node when two dims conflict. NULL after an error or
 * when out of memory. */
ox_type *ox_broadcast(ox_ictx *x, const size_t *ins, size_t n, int elem);
/* axis normalised against rank r (in [-r, r) or, with extra 1, [-r, r]: Flatten's) into *out,
 * negative ones counting from r; an error naming what ("attribute 'axis'") otherwise. For
 * axes of a result of rank r + 1 (Unsqueeze), pass that rank. */
int ox_infer_axis(ox_ictx *x, int64_t axis, int r, int extra, const char *what, int *out);
/* Reduction axes (an attribute's or an input's values) normalised and marked in reduced[r]
 * (cleared first). Duplicates and out-of-range axes are errors naming what. */
int ox_reduce_axes(ox_ictx *x, const int64_t *axes, int64_t n, int r, const char *what, bool *reduced);
/* The number of elements of t when every dim is a number, else -1. */
int64_t ox_type_count(const ox_type *t);
/* Whether two types can be the same value's: kinds, element types and ranks equal where both
 * know them, dims unifiable. */
bool ox_type_compatible(const ox_type *a, const ox_type *b);
/* The type that knows what either knows of one value (a and b compatible), owned by the
 * engine; NULL when out of memory. */
ox_type *ox_type_merge(ox_ictx *x, const ox_type *a, const ox_type *b);

/* ---- the engine (engine.c) -------------------------------------------------------------------- */

/* Infers the types of every value of the model the checker c checks (after a structural check
 * with no error), reporting through c. types (when not NULL) receives, for the main graph,
 * each value name -> its ox_type, owned by the returned engine (free with ox_infer_free). With
 * strict, an operator without a rule is an error. */
typedef struct ox_infer_opts {
	bool strict;
} ox_infer_opts;
ox_infer *ox_infer_model(ox_check *c, const Onnx__ModelProto *m, const ox_infer_opts *o);
/* The inferred type of a main-graph value, or NULL; of a value of graph g (the main graph or
 * a sub-graph of its nodes), or NULL. */
const ox_type *ox_infer_type_of(const ox_infer *e, const char *name);
const ox_type *ox_infer_type_in(const ox_infer *e, const Onnx__GraphProto *g, const char *name);
void ox_infer_free(ox_infer *e);
/* annotate.c: writes the inferred types into m (a model the library allocated: its arena
 * takes the new messages), as value_info entries for every value of its graphs that none
 * describes, and as refined types of outputs and value_info; false when out of memory. */
bool ox_infer_annotate(const ox_infer *e, Onnx__ModelProto *m);

#endif
