/* Operator lookup by (domain, op type). */
#ifndef OX_EVAL_REGISTRY_H
#define OX_EVAL_REGISTRY_H

#include <stddef.h>

#include "kernel.h"

typedef int (*ox_kernel)(ox_k *k);

typedef struct ox_op {
	const char *name;
	ox_kernel run;
	const char *domain; /* "" for the default domain */
} ox_op;

/* The op of domain ("" and "ai.onnx" both name the default domain) named op_type, or
 * NULL. */
const ox_op *ox_op_find(const char *domain, const char *op_type);

#endif
