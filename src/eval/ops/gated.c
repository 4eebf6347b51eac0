/* SwiGLU (opset 28): the gated activation Y = Swish_alpha(A) * B, with Swish_alpha(a) =
 * a * sigmoid(alpha * a); A and B have one shape (the spec does not broadcast). Computed in
 * double, like the spec's function body would be in its inputs' type at best. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval/kernel.h"

static const int float_types[] = {OX_FLOAT, OX_FLOAT16, OX_DOUBLE, OX_BFLOAT16, 0};

int ox_op_SwiGLU(ox_k *k)
{
	ox_val *a = ox_in_tensor(k, 0, true), *b = ox_in_tensor(k, 1, true);
	if (!a || !b || ox_check_type(k, a, "A", float_types) < 0 || ox_check_type(k, b, "B", float_types) < 0)
		return -1;
	if (a->type != b->type)
		return ox_kfail(k, "A and B must have the same element type");
	if (a->rank != b->rank || memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims))
		return ox_kfail(k, "A and B must have the same shape (SwiGLU does not broadcast)");
	double alpha = ox_attr_float(k, "alpha", 1.0f);
	double *da = ox_load_f64(k, a, "A"), *db = da ? ox_load_f64(k, b, "B") : NULL;
	ox_val *y = db ? ox_out_tensor(k, 0, a->type, a->rank, a->dims) : NULL;
	if (y) {
		for (int64_t i = 0; i < a->count; i++)
			da[i] = da[i] / (1 + exp(-alpha * da[i])) * db[i];
		ox_store_f64(y, da);
	}
	free(da), free(db);
	return y ? 0 : -1;
}
