/* Operator lookup by (domain, op type, operator version). */
#ifndef OX_EVAL_REGISTRY_H
#define OX_EVAL_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

typedef int (*ox_kernel)(ox_k *k);

typedef struct ox_op {
	const char *name;
	ox_kernel run;
	const char *domain; /* "" for the default domain */
	int since;          /* the oldest operator version this kernel runs (1 for X entries) */
} ox_op;

/* The kernel of op_type of domain ("" and "ai.onnx" both name the default domain) for
 * operator version `version` (the since_version of the schema in force): the entry with
 * the largest since <= version. NULL when there is none; then *oldest (when oldest is not
 * NULL) is the since of the operator's first entry, or 0 when the registry has no such
 * operator at all. */
const ox_op *ox_op_find(const char *domain, const char *op_type, int64_t version, int *oldest);

#endif
