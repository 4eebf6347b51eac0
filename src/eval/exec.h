/* The executor: a graph is planned once (names to slots, structural checks, last uses,
 * sub-graphs and function bodies, one plan per distinct call) and then run as often as
 * asked. */
#ifndef OX_EVAL_EXEC_H
#define OX_EVAL_EXEC_H

#include "arena.h"
#include "kernel.h"

#define OX_MAX_NESTING 64 /* sub-graphs and function calls inside each other */
/* Nodes and their attributes planned in all (each sub-graph, each function body once per
 * distinct call): the bound on planning's time and memory (about 200 bytes a unit),
 * whatever the model's function calls expand to. Tests lower ox_plan_limit. */
#define OX_MAX_PLANNED ((size_t)1 << 20)
extern size_t ox_plan_limit;

typedef struct ox_plan ox_plan;

/* Why planning or running failed: an OnnxStatus and a message, and the index of the main
 * graph's node it is about (-1: none), so that callers can point at it in the text. */
typedef struct ox_status {
	int code;
	char msg[OX_MSG];
	long node;
} ox_status;

/* Plans the model's main graph; everything lives in arena a. NULL on failure, with
 * st->code ONNXTXT_ERR_UNSUPPORTED for an operator the evaluator does not know. */
ox_plan *ox_plan_model(ox_arena *a, const Onnx__ModelProto *m, ox_status *st);

/* Session-time work on the main graph: nodes whose inputs are all constants are run and
 * their results kept (folding), a Conv absorbs the BatchNormalization and Relu after it
 * (a BatchNormalization after no Conv, the Mul, Add and Relu after it), constant Conv
 * weights are packed for the GEMM, the inputs of Concats are placed in their outputs
 * (exec.c: placement), and outputs after the first that nothing reads are not made.
 * Runs give the same results as without it (up to rounding where BatchNormalization is
 * folded); when a run overrides an initializer that something was made from, that part
 * runs as it would have. Out of memory just leaves a part undone. */
void ox_plan_optimize(ox_plan *p);

/* What ox_plan_optimize did to the main graph, for tests: nodes with results kept, nodes
 * fused into the node before them, Conv nodes whose weights (an initializer or fused
 * weights) are packed, named outputs no longer made because nothing reads them. */
typedef struct ox_plan_stats {
	size_t kept, fused, packed, unread;
} ox_plan_stats;
void ox_plan_counts(const ox_plan *p, ox_plan_stats *c);

/* Releases the values the plans hold (the arena holds the rest). */
void ox_plan_free(ox_plan *p);

/* The main graph's inputs (those without an initializer are required) and outputs. */
size_t ox_plan_inputs(const ox_plan *p);
const Onnx__ValueInfoProto *ox_plan_input(const ox_plan *p, size_t i, int *has_default);
size_t ox_plan_outputs(const ox_plan *p);
const char *ox_plan_output_name(const ox_plan *p, size_t i);
/* Output i's declared type; NULL when it has none or the plan is a function body's. */
const Onnx__TypeProto *ox_plan_output_type(const ox_plan *p, size_t i);

/* For tests: fn (NULL: none) is called after each node of the main graph with each value
 * the node stored, under its name (borrowed, valid during the call), so that every
 * intermediate value can be compared with what inference says of it. Unset, it costs a
 * test per node. ox_session_observe (api.c) sets it on a session's plan. */
typedef void (*ox_observer)(void *ctx, const char *name, const ox_val *v);
void ox_plan_observe(ox_plan *p, ox_observer fn, void *ctx);
void ox_session_observe(OnnxSession *s, ox_observer fn, void *ctx);

/* Runs the plan: in[i] binds input i (NULL uses its initializer); out[0..outputs) get new
 * references. Returns 0, or -1 with st filled. */
int ox_plan_run(const ox_plan *p, ox_val *const *in, ox_val **out, ox_status *st);

#endif
