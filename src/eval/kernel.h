/* What a kernel sees: its node's inputs, outputs and attributes, the opset version the
 * model imports for the node's domain, and a way to fail with a message. Every kernel is
 *     int ox_op_<OpType>(ox_k *k);   (ox_op_<OpType>_<since> for one range of versions)
 * returning 0, or -1 after ox_kfail(). Kernels never see the executor's internals. */
#ifndef OX_EVAL_KERNEL_H
#define OX_EVAL_KERNEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnxtxt/onnxtxt.h"
#include "value.h"

typedef struct ox_node ox_node; /* a planned node, see exec.c */

typedef struct ox_k {
	const ox_node *node;
	const Onnx__NodeProto *proto;
	int64_t version;          /* opset version imported for the node's domain; the kernel
	                           * was picked by operator version (ops.h), so it is for the
	                           * rare behaviour the schema version does not decide */
	ox_val *const *in;      /* in[i] is NULL for an omitted optional input */
	int nin;
	ox_val **out;           /* kernels store new references here */
	int nout;                 /* outputs the node names (some may be "" = unused) */
	const Onnx__AttributeProto *const *attrs; /* after attribute references were resolved */
	size_t nattrs;
	void *exec;               /* the executor, for ox_run_graph */
	char *msg;                /* error message buffer, OX_MSG bytes */
	/* the operator's schema at that opset (src/schema): attribute defaults come from it; its
	 * since is the version of the operator to run. NULL outside the standard domains. */
	const struct ox_schema *schema;
	int act;                  /* Conv: an activation to apply as the output is stored */
} ox_k;

enum { OX_ACT_NONE, OX_ACT_RELU };

#define OX_MSG 512

/* Formats the message (the executor adds the node's name and op) and returns -1. */
int ox_kfail(ox_k *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- inputs and outputs ---------------------------------------------------------- */

/* Input i, or NULL when it is omitted or beyond the inputs given. */
static inline ox_val *ox_in(const ox_k *k, int i)
{
	return i < k->nin ? k->in[i] : NULL;
}
/* Input i, which must be a tensor; fails (returns NULL) when it is missing and required,
 * or is not a tensor. */
ox_val *ox_in_tensor(ox_k *k, int i, bool required);
/* The same for any kind of value (OX_TENSOR, OX_SEQUENCE, OX_OPTIONAL). */
ox_val *ox_in_kind(ox_k *k, int i, int kind, bool required);
/* Inputs 0..n-1 as tensors into v, the first nreq required, the others optional (NULL when
 * omitted); -1 when one is missing or not a tensor. All are fetched, so the message is the
 * one about the last bad input. */
int ox_in_tensors(ox_k *k, ox_val **v, int n, int nreq);
/* The 8-bit integer operands of ConvInteger and MatMulInteger: inputs 0 and 1 into a and b
 * (uint8 or int8, called na and nb in messages), their optional zero points 2 and 3 into za
 * and zb. */
int ox_in_int8_operands(ox_k *k, ox_val **a, ox_val **b, ox_val **za, ox_val **zb, const char *na, const char *nb);
/* Whether output i is wanted: named by the node, and read by something where the
 * session knows (exec.c: ox_node_out_used). */
bool ox_out_wanted(const ox_k *k, int i);
bool ox_node_out_used(const ox_node *n, int i);
/* Allocates output tensor i (uninitialized data); NULL after failing with the reason.
 * Where the session placed the output in a Concat's output (exec.c), it is a view there. */
ox_val *ox_out_tensor(ox_k *k, int i, int type, int rank, const int64_t *dims);
/* The executor's side of that: output i as a view in a Concat's output, or NULL (exec.c). */
ox_val *ox_exec_placed(ox_k *k, int i, int type, int rank, const int64_t *dims);
/* Stores v (a new reference, possibly shared with an input via ox_val_ref) as output i. */
void ox_out_set(ox_k *k, int i, ox_val *v);
/* Fills tensor y with copies of the element at elem (zeros when NULL; elem may be
 * y->data, its first element). */
void ox_tensor_fill(ox_val *y, const void *elem);

/* Input i as a list of int64 (int32 and int64 tensors of rank 0 or 1, as shape-like inputs
 * of Reshape, Slice, ... are); returns the count or -1 after failing. */
int64_t ox_in_ints(ox_k *k, int i, int64_t *buf, int64_t cap, const char *what);

/* ---- attributes ------------------------------------------------------------------ */

/* The getters return the node's attribute, else the schema's default for the opset in
 * force (so that a default changed between opsets is right), else def. */
const Onnx__AttributeProto *ox_attr(const ox_k *k, const char *name);
int64_t ox_attr_int(const ox_k *k, const char *name, int64_t def);
float ox_attr_float(const ox_k *k, const char *name, float def);
/* The bytes of a string attribute (not NUL-terminated in general), or def (NUL-terminated)
 * when absent; *len gets the length. */
const char *ox_attr_str(const ox_k *k, const char *name, const char *def, size_t *len);
/* Whether a string attribute equals s. */
bool ox_attr_str_is(const ox_k *k, const char *name, const char *def, const char *s);
/* INTS / FLOATS / STRINGS: the count, or -1 when absent. */
int64_t ox_attr_ints(const ox_k *k, const char *name, const int64_t **v);
int64_t ox_attr_floats(const ox_k *k, const char *name, const float **v);
const Onnx__TensorProto *ox_attr_tensor(const ox_k *k, const char *name);
const Onnx__GraphProto *ox_attr_graph(const ox_k *k, const char *name);

/* ---- helpers shared by kernels --------------------------------------------------- */

/* One step of an odometer over dims[0..rank) (the last axis fastest) whose position is idx:
 * advances idx and returns off moved by the strides st (the offset of the next position). */
int64_t ox_odometer_next(int rank, const int64_t *dims, const int64_t *st, int64_t *idx, int64_t off);

/* Normalizes a possibly negative axis against rank; -1 after failing when out of range. */
int ox_axis(ox_k *k, int64_t axis, int rank);
/* The node's 'axis' attribute (default 0) normalized against x's rank; x may not be a
 * scalar ("cannot VERB a scalar"). -1 after failing. */
int ox_axis_attr(ox_k *k, const ox_val *x, const char *verb);
/* Split and SplitToSequence: the n sizes of a split of x along axis (from sizes, or else
 * from the integer tensor sp) must each lie in 0..dim and add up to dim. */
int ox_split_check(ox_k *k, const ox_val *x, int axis, const int64_t *sizes, const ox_val *sp, int64_t n);
/* Numpy broadcasting of two shapes into out (rank in *orank); fails when incompatible. */
int ox_broadcast_shape(ox_k *k, int ra, const int64_t *da, int rb, const int64_t *db, int *orank,
		       int64_t *dout);
/* Element strides of a tensor of shape (rank, dims) seen through broadcasting as shape
 * (orank, odims): 0 on broadcast dims. */
void ox_broadcast_strides(int rank, const int64_t *dims, int orank, const int64_t *odims,
			  int64_t *strides);
/* The elements of a numeric tensor as doubles, into d[0..count). */
void ox_to_f64(const ox_val *t, double *d);

/* ---- tensors as doubles: the working precision of kernels without a typed fast path -- */

/* A malloc'd buffer of n elements of size bytes (never NULL for n == 0); NULL after
 * failing with a message naming what when n * size overflows or exceeds OX_MAX_BYTES. */
void *ox_scratch(ox_k *k, int64_t n, size_t size, const char *what);
/* The elements of a numeric tensor as doubles (the real part of complex ones), in a
 * buffer from ox_scratch; NULL after failing. */
double *ox_load_f64(ox_k *k, const ox_val *t, const char *what);
/* Stores src[0..t->count) into t: rounding to nearest for float types, truncation toward
 * zero saturated to the type's range for integer types, nonzero for bool. */
void ox_store_f64(ox_val *t, const double *src);
/* float, double, float16 or bfloat16: the types most floating-point kernels accept. */
bool ox_is_real(int type);
/* Fails unless t (named what) is one of those. */
int ox_need_real(ox_k *k, const ox_val *t, const char *what);
/* Fails unless t (named what) has one of the element types of the 0-terminated list. */
int ox_check_type(ox_k *k, const ox_val *t, const char *what, const int *types);
/* The scalar value of a one-element tensor as a double or int64 (0 when empty). */
double ox_scalar_f64(const ox_val *t);
int64_t ox_scalar_i64(const ox_val *t);
/* Input i as one integer (a scalar or one-element int32/int64 tensor); -1 after failing. */
int ox_in_int(ox_k *k, int i, int64_t *v, const char *what);
/* a * b for non-negative a and b, or -1 when it exceeds OX_MAX_ELEMENTS. */
int64_t ox_mul_count(int64_t a, int64_t b);
/* A tensor converted from an attribute's TensorProto (Constant, ConstantOfShape). */
ox_val *ox_val_from_attr_tensor(ox_k *k, const Onnx__TensorProto *t);

/* Runs the sub-graph held by the node's attribute attr with the given inputs (bound to
 * the graph's inputs in order) and stores its outputs (new references) in out[0..nout).
 * Names the sub-graph does not define are looked up in the enclosing scopes. */
int ox_run_graph(ox_k *k, const char *attr, ox_val *const *in, int nin, ox_val **out, int nout);
/* Number of inputs and outputs the sub-graph of attr declares (-1 when absent). */
int ox_graph_arity(ox_k *k, const char *attr, int *nout);

/* The body (graph or function) that runs k's node, for Gradient, which differentiates
 * it: its slots (one per name), initializers, nodes (node gets an ox_k for reading the
 * node's attributes, in and out NULL; the input slots are returned, the output slots set,
 * -1 for an omitted one), and running node i on given inputs. */
int ox_body_slots(const ox_k *k);
int ox_body_slot(const ox_k *k, const char *name);
ox_val *ox_body_init(const ox_k *k, int slot);
size_t ox_body_nodes(const ox_k *k);
const int *ox_body_node(const ox_k *k, size_t i, ox_k *node, const int **out);
int ox_body_call(ox_k *k, size_t i, ox_val **in, ox_val **out);

/* A kernel that is one call of a helper its family or its operator's versions share (an XV
 * entry of ops.h names a version's kernel), as in
 *     OX_KERNEL(ox_op_Squeeze_13, squeeze(k, true))   (axes: input 1, not the attribute) */
#define OX_KERNEL(fn, call)    \
	int fn(ox_k *k)        \
	{                      \
		return call;   \
	}

/* Every kernel, declared from the registry's list. */
#include "ops.h"
#define OX_DECLARE_OP(name) int ox_op_##name(ox_k *k);
#define OX_DECLARE_VERSION(name, since) int ox_op_##name##_##since(ox_k *k);
#define OX_DECLARE_DOMAIN_OP(domain, name) OX_DECLARE_OP(name)
OX_OPS(OX_DECLARE_OP, OX_DECLARE_VERSION)
OX_DOMAIN_OPS(OX_DECLARE_DOMAIN_OP)
#undef OX_DECLARE_DOMAIN_OP
#undef OX_DECLARE_VERSION
#undef OX_DECLARE_OP
#define OX_DECLARE_ML(name) int ox_ml_##name(ox_k *k);
#define OX_DECLARE_ML_VERSION(name, since) int ox_ml_##name##_##since(ox_k *k);
OX_OPS_ML(OX_DECLARE_ML, OX_DECLARE_ML_VERSION)
#undef OX_DECLARE_ML_VERSION
#undef OX_DECLARE_ML

#endif
