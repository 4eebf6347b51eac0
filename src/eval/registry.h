/* Operator lookup by (domain, op type). */
#ifndef OX_EVAL_REGISTRY_H
#define OX_EVAL_REGISTRY_H

#include <stddef.h>

#include "kernel.h"

typedef int (*ox_kernel)(ox_k *k);

typedef struct ox_op {
	const char *name;
	ox_kernel run;
} ox_op;

/* The op of the default domain ("" or "ai.onnx") or of ai.onnx.ml named op_type, or NULL. */
const ox_op *ox_op_find(const char *domain, const char *op_type);
/* All registered ops of the default domain, sorted by name. */
const ox_op *const *ox_op_list(size_t *n);

#endif
