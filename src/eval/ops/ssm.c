/* CausalConvWithState (opset 27): the stateful causal depthwise 1-D convolution of state
 * space and linear-attention models. Per (batch, channel), seq = past_state ++ input (zeros
 * when past_state is omitted), output[t] = act(bias + sum_k weight[k] * seq[t + k]) and
 * present_state = the last k - 1 entries of seq. Computed in double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval/kernel.h"

static const int float_types[] = {OX_FLOAT, OX_FLOAT16, OX_BFLOAT16, 0};

typedef struct cconv {
	int64_t b, c, l, k;
	bool silu;
	double *x, *w, *bias, *past, *seq, *y, *st;
} cconv;

static int cconv_shapes(ox_k *k, const ox_val *x, const ox_val *w, const ox_val *bias, const ox_val *past, cconv *C)
{
	if (x->rank != 3 || w->rank != 3)
		return ox_kfail(k, "input and weight must have rank 3 ([batch, channels, length] and [channels, 1, k])");
	*C = (cconv){x->dims[0], x->dims[1], x->dims[2], w->dims[2], false, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
	if (w->dims[0] != C->c || w->dims[1] != 1 || C->k < 1)
		return ox_kfail(k, "weight must be [%lld, 1, k] with k >= 1 (depthwise)", (long long)C->c);
	if (bias && (bias->rank != 1 || bias->dims[0] != C->c))
		return ox_kfail(k, "bias must be [%lld]", (long long)C->c);
	if (past && (past->rank != 3 || past->dims[0] != C->b || past->dims[1] != C->c || past->dims[2] != C->k - 1))
		return ox_kfail(k, "past_state must be [%lld, %lld, %lld] (batch, channels, k - 1)", (long long)C->b,
				(long long)C->c, (long long)(C->k - 1));
	if (w->type != x->type || (bias && bias->type != x->type) || (past && past->type != x->type))
		return ox_kfail(k, "weight, bias and past_state must have the element type of input");
	return 0;
}

static void cconv_row(cconv *C, int64_t b, int64_t c)
{
	int64_t h = C->k - 1, n = h + C->l;
	for (int64_t i = 0; i < h; i++)
		C->seq[i] = C->past ? C->past[(b * C->c + c) * h + i] : 0;
	memcpy(C->seq + h, C->x + (b * C->c + c) * C->l, (size_t)C->l * sizeof *C->seq);
	for (int64_t t = 0; t < C->l; t++) {
		double s = C->bias ? C->bias[c] : 0;
		for (int64_t j = 0; j < C->k; j++)
			s += C->w[c * C->k + j] * C->seq[t + j];
		C->y[(b * C->c + c) * C->l + t] = C->silu ? s / (1 + exp(-s)) : s;
	}
	memcpy(C->st + (b * C->c + c) * h, C->seq + n - h, (size_t)h * sizeof *C->seq);
}

static int cconv_load(ox_k *k, cconv *C, const ox_val *x, const ox_val *w, const ox_val *bias, const ox_val *past)
{
	C->x = ox_load_f64(k, x, "input");
	C->w = C->x ? ox_load_f64(k, w, "weight") : NULL;
	C->bias = C->w && bias ? ox_load_f64(k, bias, "bias") : NULL;
	C->past = C->w && (!bias || C->bias) && past ? ox_load_f64(k, past, "past_state") : NULL;
	if (!C->w || (bias && !C->bias) || (past && !C->past))
		return -1;
	C->seq = ox_scratch(k, C->k - 1 + C->l, sizeof(double), "sequence");
	C->y = C->seq ? ox_scratch(k, x->count, sizeof(double), "output") : NULL;
	C->st = C->y ? ox_scratch(k, ox_mul_count(C->b * C->c, C->k - 1), sizeof(double), "present_state") : NULL;
	return C->st ? 0 : -1;
}

static int cconv_store(ox_k *k, const cconv *C, const ox_val *x)
{
	ox_val *y = ox_out_tensor(k, 0, x->type, 3, x->dims);
	if (!y)
		return -1;
	ox_store_f64(y, C->y);
	if (!ox_out_wanted(k, 1))
		return 0;
	int64_t dims[3] = {C->b, C->c, C->k - 1};
	ox_val *st = ox_out_tensor(k, 1, x->type, 3, dims);
	if (!st)
		return -1;
	ox_store_f64(st, C->st);
	return 0;
}

int ox_op_CausalConvWithState(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *w = ox_in_tensor(k, 1, true);
	ox_val *bias = ox_in_tensor(k, 2, false), *past = ox_in_tensor(k, 3, false);
	cconv C = {0};
	if (!x || !w || ox_check_type(k, x, "input", float_types) < 0 || cconv_shapes(k, x, w, bias, past, &C) < 0)
		return -1;
	C.silu = ox_attr_str_is(k, "activation", "none", "silu") || ox_attr_str_is(k, "activation", "none", "swish");
	if (!C.silu && !ox_attr_str_is(k, "activation", "none", "none"))
		return ox_kfail(k, "activation must be none, silu or swish");
	int rc = cconv_load(k, &C, x, w, bias, past);
	for (int64_t b = 0; rc == 0 && b < C.b; b++)
		for (int64_t c = 0; c < C.c; c++)
			cconv_row(&C, b, c);
	if (rc == 0)
		rc = cconv_store(k, &C, x);
	free(C.x), free(C.w), free(C.bias), free(C.past), free(C.seq), free(C.y), free(C.st);
	return rc;
}
