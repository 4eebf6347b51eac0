/* Inference rules of the attention family: RotaryEmbedding rotates its input in place, so
 * the result has the input's type. */
#include "infer/rules.h"

int ox_rule_rotary_embedding(ox_ictx *x)
{
	const ox_type *t = ox_input(x, 0);
	ox_out_like(x, 0, t && t->kind == OX_T_TENSOR ? t->elem : ox_out_elem(x, 0), 0);
	return 0;
}
